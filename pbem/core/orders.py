"""Plain-text orders: one order a line, ``#`` starts a comment.

    move 8Pz 0611 0711 0712          # path, hex by hex; "off" as the last step breaks off a map edge
    break 7Mot                       # leave the map from the edge hex the unit is in
    attack 0710 with 8Pz 115 [retreat 0811 0912] [ar 8Pz 0511] [advance 8Pz | no-advance]
    retreat 5NZ 1011 1112            # answer to a pending retreat
    advance 8Pz [0710] | no-advance  # answer to a pending advance
    advance T1 0710 0811 I2 0710     # several units (up to the stacking limit); a tank's second hex
    end                              # end this phase / close the attack declarations
    secret NAME TEXT ...             # a sealed note: others see only its commitment
    unveil NAME                      # open it; the commitment proves it was not changed
    press TEXT ...                   # a message to the other sides, public, in the log
    entropy commit HASH | reveal VALUE | none   # a contribution to the dice (scheme 2, chain.py)

Parsing is syntax only; whether an order is legal is for the rules.

A line ends at LF, CR or CRLF and nowhere else (``split_lines``: the mail
reader, this parser, staging and signing all use it), so a character that
only Python's ``splitlines`` takes for a line break (U+001C, U+2028, ...)
cannot start a hidden order.  Control characters (ESC, BEL, backspace, the
C1 set) and bidirectional overrides are taken out of every line (``clean``)
before it is read: they never reach the log, another side's mail or a
terminal; other Unicode text is kept as written.
"""
from __future__ import annotations

import re

from msgspec import Struct

# Removed from an order line: C0 controls but the tab, DEL, the C1 controls, and the
# bidirectional marks, embeddings, overrides and isolates (they reorder what a reader sees).
_CONTROL = re.compile("[\x00-\x08\x0e-\x1b\x7f-\x84\x86-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]")
# ... and these, which some programs take for line or page breaks, become a space.
_BREAKLIKE = re.compile("[\x0b\x0c\x1c-\x1f\x85\u2028\u2029]")


def split_lines(text: str) -> list[str]:
    """The lines of ``text``: a line ends at LF, CR or CRLF, nothing else (as for
    ``splitlines``, a last line break ends the last line rather than starting one)."""
    lines = text.replace("\r\n", "\n").replace("\r", "\n").split("\n")
    if lines and not lines[-1]:
        lines.pop()
    return lines


def clean(line: str) -> str:
    """``line`` without control characters and bidirectional overrides (break-like
    ones become a space); any other text, in any script, as it was."""
    return _CONTROL.sub("", _BREAKLIKE.sub(" ", line))


_UNSEEN = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069\u2028\u2029]")


def visible(text: str) -> str:
    """``text`` for a terminal or a mail body: every control character but LF and
    tab, and every bidirectional override, written out (``\\x1b``, ``\\u202e``)
    instead of acting.  For text that may predate ``clean`` (an old log)."""
    return _UNSEEN.sub(lambda m: f"\\x{ord(m[0]):02x}" if ord(m[0]) < 0x100 else f"\\u{ord(m[0]):04x}", text)


HEX_RE = re.compile(r"[0-9]{4}\Z")                # four ASCII digits, nothing after
NAME_RE = re.compile(r"^[A-Za-z0-9_-]{1,40}$")


class OrderError(Exception):
    """An order that cannot be applied; nothing of it reaches the log."""

    def __init__(self, message: str, rule: str = "", line: int | None = None, text: str = ""):
        super().__init__(message)
        self.message = message
        self.rule = rule
        self.line = line
        self.text = text

    def __str__(self) -> str:
        where = f"line {self.line}: " if self.line is not None else ""
        quote = f" [{self.text}]" if self.text else ""
        # a message that already ends by naming its rule ("... (18.722)") does not name it twice
        said = self.message.rstrip(".").endswith(f"{self.rule})")
        rule = f" (rule {self.rule})" if self.rule and not said else ""
        return f"{where}{self.message}{rule}{quote}"


class Order(Struct, tag_field="verb"):
    pass


class Move(Order, tag="move"):
    unit: str
    path: list[str]
    off: bool = False


class Attack(Order, tag="attack"):
    target: str
    attackers: list[str]
    retreat: list[str] = []
    attacker_retreat: dict[str, list[str]] = {}
    advance: str = ""              # "" = ask when the time comes, "-" = no advance
    advance_path: list[str] = []
    advance_more: list[list[str]] = []   # further advancing units: [unit, hex, ...] each
    ex_loss: str = ""              # the attacker's own loss on an EX result


class Retreat(Order, tag="retreat"):
    unit: str
    path: list[str]


class Advance(Order, tag="advance"):
    unit: str                      # "-" = no advance
    path: list[str] = []
    also: list[list[str]] = []     # further advancing units: [unit, hex, ...] each


class End(Order, tag="end"):
    pass


class Secret(Order, tag="secret"):
    """A secret only the giving side (and the referee) may read until unveiled."""
    name: str
    payload: str


class Unveil(Order, tag="unveil"):
    name: str


class Press(Order, tag="press"):
    """A message to the other sides: public, kept in the log, changes nothing in the game."""
    text: str


class Entropy(Order, tag="entropy"):
    """A side's part in the exchange of contributions to the dice (pbem/core/chain.py)."""
    action: str                    # commit | reveal | none
    value: str = ""                # 64 hex digits: the commitment, or the value revealed


PRESS_MAX = 2000                                  # characters of one press line


class GameVerb(Order, tag="game-verb"):
    """An order word one game defines (its Ruleset.verbs); its rules read the words."""
    word: str
    args: list[str] = []


class Line(Struct):
    number: int
    text: str
    order: Order


def _hex(tok: str, what: str) -> str:
    if not HEX_RE.match(tok):
        raise OrderError(f"{tok!r} is not a hex number; {what} must be four digits like 0512")
    return tok


def _hexes(toks: list[str], what: str) -> list[str]:
    return [_hex(t, what) for t in toks]


CORE_VERBS = ("move", "break", "attack", "retreat", "advance", "no-advance", "end", "secret", "unveil", "press")


def parse_line(text: str, verbs: frozenset[str] = frozenset()) -> Order | None:
    """Parse one line; None for blank or comment lines.  ``verbs`` are the game's own
    order words (Ruleset.verbs), passed on as GameVerb for its rules to read."""
    body = clean(text).split("#", 1)[0].strip()
    if not body:
        return None
    toks = body.split()
    verb = toks[0].lower()
    args = toks[1:]
    if verb == "move":
        if len(args) < 2:
            raise OrderError("move needs a unit and at least one hex: move UNIT HEX [HEX ...]")
        off = args[-1].lower() == "off"
        path = args[1:-1] if off else args[1:]
        return Move(unit=args[0], path=_hexes(path, "each step of a path"), off=off)
    if verb == "break":
        if len(args) != 1:
            raise OrderError("break needs exactly one unit: break UNIT")
        return Move(unit=args[0], path=[], off=True)
    if verb == "attack":
        return _parse_attack(args)
    if verb == "retreat":
        if len(args) < 2:
            raise OrderError("retreat needs a unit and its path: retreat UNIT HEX [HEX ...]")
        return Retreat(unit=args[0], path=_hexes(args[1:], "each step of a retreat"))
    if verb == "advance":
        if not args:
            raise OrderError("advance needs a unit: advance UNIT [HEX ...], or no-advance")
        groups = _unit_groups(args, "each step of an advance")
        return Advance(unit=groups[0][0], path=groups[0][1:], also=groups[1:])
    if verb in ("no-advance", "noadvance"):
        if args:
            raise OrderError("no-advance takes no arguments")
        return Advance(unit="-")
    if verb == "secret":
        if len(args) < 2 or not NAME_RE.match(args[0]):
            raise OrderError("secret needs a name (letters, digits, - or _) and its text: secret NAME TEXT ...")
        return Secret(name=args[0], payload=" ".join(args[1:]))
    if verb == "unveil":
        if len(args) != 1:
            raise OrderError("unveil needs the name of a secret: unveil NAME")
        return Unveil(name=args[0])
    if verb == "press":
        said = body[len(toks[0]):].strip()
        if not said:
            raise OrderError("press needs the message: press TEXT ...")
        if len(said) > PRESS_MAX:
            raise OrderError(f"a press line holds at most {PRESS_MAX} characters; send several")
        return Press(text=said)
    if verb == "entropy":
        act = args[0].lower() if args else ""
        if act == "none" and len(args) == 1:
            return Entropy(action="none")
        if act in ("commit", "reveal") and len(args) == 2 and re.fullmatch(r"[0-9a-fA-F]{64}", args[1]):
            return Entropy(action=act, value=args[1].lower())
        raise OrderError("write: entropy commit SHA256 | entropy reveal VALUE (64 hex digits each) | entropy none")
    if verb == "end":
        if args:
            raise OrderError("end takes no arguments")
        return End()
    if verb in verbs:
        return GameVerb(word=verb, args=args)
    known = [*CORE_VERBS, *sorted(verbs)]
    import difflib                      # only for a refusal: not on every command's import path
    near = difflib.get_close_matches(verb, known, n=1, cutoff=0.6)
    hint = f" (did you mean {near[0]}?)" if near else ""
    raise OrderError(f"unknown order {toks[0]!r}{hint}; known: {', '.join(known)}")


def _unit_groups(toks: list[str], what: str) -> list[list[str]]:
    """``U1 [HEX ...] U2 [HEX ...]`` -> [[U1, HEX, ...], [U2, ...]].

    A four-digit token is a hex; a four-character token with three digits
    (``06x1``) is taken for a mistyped hex, not for a unit."""
    groups: list[list[str]] = []
    for t in toks:
        if HEX_RE.match(t) or (len(t) == 4 and sum(c.isdigit() for c in t) >= 3):
            if not groups:
                raise OrderError(f"{t!r} comes before any unit; write UNIT [HEX ...]")
            groups[-1].append(_hex(t, what))
        else:
            groups.append([t])
    return groups


_ATTACK_KEYS = {"retreat", "ar", "advance", "no-advance", "ex"}


def _parse_attack(args: list[str]) -> Attack:
    usage = ("attack HEX with UNIT [UNIT ...] [retreat HEX ...] [ar UNIT HEX ...] [advance UNIT [HEX] | no-advance]"
             " [ex UNIT]")
    if len(args) < 3 or args[1].lower() != "with":
        raise OrderError(f"malformed attack; write: {usage}")
    target = _hex(args[0], "the attacked hex")
    i = 2
    attackers: list[str] = []
    while i < len(args) and args[i].lower() not in _ATTACK_KEYS:
        attackers.append(args[i])
        i += 1
    if not attackers:
        raise OrderError(f"attack names no attacking unit; write: {usage}")
    order = Attack(target=target, attackers=attackers)
    while i < len(args):
        key = args[i].lower()
        i += 1
        vals: list[str] = []
        while i < len(args) and args[i].lower() not in _ATTACK_KEYS:
            vals.append(args[i])
            i += 1
        if key == "retreat":
            if not vals:
                raise OrderError("'retreat' in an attack needs the defender's path: retreat HEX [HEX ...]")
            order.retreat = _hexes(vals, "each step of a retreat")
        elif key == "ar":
            # pairs or runs: ar UNIT HEX [UNIT HEX ...]
            if len(vals) < 2 or len(vals) % 2:
                raise OrderError("'ar' needs UNIT HEX pairs: where each attacker retreats on an AR result")
            for u, h in zip(vals[::2], vals[1::2]):
                order.attacker_retreat[u] = [_hex(h, "an attacker's retreat hex")]
        elif key == "advance":
            if not vals:
                raise OrderError("'advance' in an attack needs a unit: advance UNIT [HEX]")
            groups = _unit_groups(vals, "each step of an advance")
            order.advance = groups[0][0]
            order.advance_path = groups[0][1:]
            order.advance_more = groups[1:]
        elif key == "ex":
            if len(vals) != 1:
                raise OrderError("'ex' needs one unit: the attacker's own loss on an EX result")
            order.ex_loss = vals[0]
        elif key == "no-advance":
            if vals:
                raise OrderError("no-advance takes no arguments")
            order.advance = "-"
    return order


def parse(text: str, verbs: frozenset[str] = frozenset()) -> list[Line]:
    """Parse a whole batch; the first malformed line raises OrderError with its number."""
    out: list[Line] = []
    for n, raw in enumerate(split_lines(text), start=1):
        raw = clean(raw)
        try:
            o = parse_line(raw, verbs)
        except OrderError as e:
            e.line = n
            e.text = raw.strip()
            raise
        if o is not None:
            out.append(Line(number=n, text=raw.split("#", 1)[0].strip(), order=o))
    return out


def order_line(order: Order) -> str:
    """An order as the one line ``parse_line`` reads back into the same order (the
    canonical spelling: lower-case verbs, one space between words).  Deadline defaults
    are Order objects (core/turn.py); this is the line the host applies and tells."""
    if isinstance(order, Move):
        if order.off and not order.path:
            return f"break {order.unit}"
        return " ".join(["move", order.unit, *order.path] + (["off"] if order.off else []))
    if isinstance(order, Attack):
        out = ["attack", order.target, "with", *order.attackers]
        if order.retreat:
            out += ["retreat", *order.retreat]
        if order.attacker_retreat:
            out.append("ar")
            for u, hexes in order.attacker_retreat.items():
                out += [u, *hexes[:1]]
        if order.advance == "-":
            out.append("no-advance")
        elif order.advance:
            out += ["advance", order.advance, *order.advance_path] + [t for g in order.advance_more for t in g]
        if order.ex_loss:
            out += ["ex", order.ex_loss]
        return " ".join(out)
    if isinstance(order, Retreat):
        return " ".join(["retreat", order.unit, *order.path])
    if isinstance(order, Advance):
        if order.unit == "-":
            return "no-advance"
        return " ".join(["advance", order.unit, *order.path] + [t for g in order.also for t in g])
    if isinstance(order, End):
        return "end"
    if isinstance(order, Secret):
        return f"secret {order.name} {order.payload}"
    if isinstance(order, Unveil):
        return f"unveil {order.name}"
    if isinstance(order, Press):
        return f"press {order.text}"
    if isinstance(order, Entropy):
        return " ".join(["entropy", order.action] + ([order.value] if order.value else []))
    if isinstance(order, GameVerb):
        return " ".join([order.word, *order.args])
    raise TypeError(f"no line for {type(order).__name__}")
