"""Mail that reads like mail: an orders mail's lines sorted into orders, mail
commands and the words around them, and the answers to the commands.

A line is an order when it parses as one.  A line that does not parse but
looks like a misspelt order (its first word is an order word or close to one,
or it names a unit) stays with the orders, so it is refused with the reason
as before.  Any other line (a greeting, a sign-off, a remark) is ignored and
reported, with a "did you mean" where a word is close to an order word, a
unit or a hex.  Commands are lines of their own (or, for CHECK, FINAL, DRAFT,
HELP and STATUS, a capitalised word of the subject):

    CHECK            check the orders of this mail; apply nothing
    DRAFT / FINAL    hold the orders for this step / apply them (or the held ones)
    UNDO             drop the orders held (staged) for this side
    HELP             the orders of this game and step, with examples
    STATUS           whose move, the deadline, the score, what the game waits for
    HISTORY [N]      the last N events (default 10) as this side may see them
    ABSENT until DATE   push this side's deadlines to DATE (as far as the host allows)
    TIMEZONE ZONE    read every time in ZONE too (Europe/Berlin), besides UTC
    EXTEND 2d        ask for the running deadlines 2d later: they move once every side asks
    MAP SVG          this answer carries the map as SVG too (subject word: SVG)
    THEN             the orders after it are for your next step (held, pbem.ahead)
    press TEXT       (an order) a message to the other sides, in the log
"""
from __future__ import annotations

import difflib
import re
from dataclasses import dataclass, field

from pbem.core import orders as O
from pbem.core.turn import step_line
from pbem.host.common import fmt_duration, iso, parse_time

MODES = ("check", "final", "draft")
COMMANDS = ("help", "status", "history", "absent", "key", "timezone", "extend", "undo")
SUBJECT_WORDS = {"CHECK", "FINAL", "DRAFT", "HELP", "STATUS", "SVG"}
MAP_SVG = ["map", "svg"]                  # the command a line `MAP SVG` (or the subject word SVG) gives
HISTORY_DEFAULT, HISTORY_MAX = 10, 200
_TAG = re.compile(r"\[pbem\s+[^\]]*\]", re.IGNORECASE)


@dataclass
class Request:
    """One mail read: its mode, commands, orders (in their line positions: other
    lines blank, so numbers match the mail), press lines the same way, and the
    lines ignored (``{"line", "text", "hint"}``)."""
    mode: str = ""
    commands: list[list[str]] = field(default_factory=list)
    orders: str = ""
    press: str = ""
    ignored: list[dict] = field(default_factory=list)
    ahead: list[str] = field(default_factory=list)    # the blocks after each THEN line (pbem.ahead)

    @property
    def has_orders(self) -> bool:
        return bool(self.orders.strip())


def _word(tok: str) -> str:
    return tok.strip(".,;:!?()\"'").lower()


def read(text: str, subject: str, game) -> Request:
    """Sort the lines of ``text`` (the mail's own text, key lines and quotes
    already blanked) for ``game``."""
    rules, sc = game.rules, game.scenario
    verbs = [*O.CORE_VERBS, *sorted(rules.verbs)]
    units = {u.id.lower(): u.id for u in sc.units}
    req = Request()
    for w in _TAG.sub(" ", subject or "").split():
        w = w.strip(".,;:!?")
        if w in SUBJECT_WORDS:
            if w == "SVG":
                if MAP_SVG not in req.commands:
                    req.commands.append(list(MAP_SVG))
            elif w.lower() in MODES:
                req.mode = _stronger(req.mode, w.lower())
            elif [w.lower(), ""] not in req.commands:
                req.commands.append([w.lower(), ""])
    orders: list[str] = []
    press: list[str] = []
    blocks: list[list[str]] = []                  # orders after THEN lines, one list per THEN
    for n, raw in enumerate(O.split_lines(text), start=1):      # the engine's lines, no others
        body = raw.split("#", 1)[0].strip()
        orders.append("")
        press.append("")
        if not body:
            continue
        toks = body.split()
        first = _word(toks[0])
        if first == "then" and len(toks) == 1:
            blocks.append([])
            continue
        if [first, _word(toks[-1])] == MAP_SVG and len(toks) == 2:
            if MAP_SVG not in req.commands:
                req.commands.append(list(MAP_SVG))
            continue
        if first in MODES and len(toks) == 1:
            req.mode = _stronger(req.mode, first)
            continue
        if first in COMMANDS and (first not in ("help", "status", "undo") or len(toks) == 1):
            req.commands.append([first, " ".join(toks[1:])])
            continue
        try:
            order = O.parse_line(body, rules.verbs)
        except O.OrderError:
            order = None
            if _looks_like_order(toks, verbs, units):
                if blocks:
                    blocks[-1].append(body)
                else:
                    orders[-1] = body               # refused with its reason, as any bad order
                continue
            req.ignored.append({"line": n, "text": O.clean(body), "hint": _hint(toks, verbs, units, sc)})
            continue
        if isinstance(order, O.Press):
            press[-1] = body
        elif blocks:
            blocks[-1].append(body)
        else:
            orders[-1] = body
    req.orders = "\n".join(orders)
    req.ahead = ["\n".join(b) for b in blocks]
    req.press = "\n".join(press)
    return req


def press_chars(text: str) -> int:
    """The characters of press in ``text`` (the press lines ``read`` kept)."""
    n = 0
    for ln in O.split_lines(text):
        try:
            order = O.parse_line(ln)
        except O.OrderError:
            continue
        if isinstance(order, O.Press):
            n += len(order.text)
    return n


def press_in_step(game, side: str) -> int:
    """The characters of press ``side`` sent since the game's current step began (the
    last PhaseStarted), read from the end of the log."""
    import json
    n = 0
    for line in game.log.iter_lines_reversed():
        env = json.loads(line)
        if env.get("kind") in ("PhaseStarted", "GameCreated"):
            break
        body = env.get("body") or {}
        if env.get("kind") == "PressSent" and body.get("side") == side:
            n += len(body.get("text", ""))
    return n


def press_problem(cfg, game, side: str, req: Request) -> str:
    """Why the host refuses this mail's press ('' when it takes it): more than
    ``[orders] press_per_mail`` characters in the mail, or more than ``press_per_step``
    from this side in this step of the game (CHECK applies none: only the first)."""
    n = press_chars(req.press)
    if not n:
        return ""
    if n > cfg.press_per_mail:
        return (f"this mail holds {n:,} characters of press; this host takes at most {cfg.press_per_mail:,} a mail "
                "(send less, or in several mails); nothing was applied")
    if req.mode != "check":
        used = press_in_step(game, side)
        if used + n > cfg.press_per_step:
            return (f"this mail's {n:,} characters of press would bring your press in this step of the game to "
                    f"{used + n:,}; this host takes at most {cfg.press_per_step:,} a side and step (the rest must "
                    "wait for the next step); nothing was applied")
    return ""


def _stronger(a: str, b: str) -> str:
    """CHECK wins over FINAL, FINAL over DRAFT: a mail that says CHECK applies nothing."""
    rank = {"": 0, "draft": 1, "final": 2, "check": 3}
    return a if rank[a] >= rank[b] else b


def _looks_like_order(toks: list[str], verbs: list[str], units: dict[str, str]) -> bool:
    """An order word first, or a unit named, or a word close to an order word
    followed by something an order holds (a hex, a unit): "mvoe 8Pz 0612" is a
    misspelt order, "More to follow" is not."""
    first = _word(toks[0])
    if first in verbs or any(_word(t) in units or t.lower() in units for t in toks):
        return True
    if difflib.get_close_matches(first, verbs, n=1, cutoff=0.75):
        return any(len(w) == 4 and sum(c.isdigit() for c in w) >= 3
                   or difflib.get_close_matches(w.lower(), list(units), n=1, cutoff=0.75)
                   for w in (t.strip(".,;:!?()") for t in toks[1:]))
    return False


def _hint(toks: list[str], verbs: list[str], units: dict[str, str], sc) -> str:
    """'did you mean ...' for an ignored line: its first word against the order
    words and commands, the others against the unit ids and hexes."""
    found: list[str] = []
    first = _word(toks[0])
    # 0.75: "statsu" is STATUS and "chek" CHECK, while "Dear" is not "delay" nor "Best" ABSENT
    m = difflib.get_close_matches(first, [*verbs, *COMMANDS, *MODES], n=1, cutoff=0.75)
    if m:
        found.append(m[0].upper() if m[0] in COMMANDS + MODES else m[0])
    hexes = sc.board.terrain
    for t in toks[1:]:
        w = t.strip(".,;:!?()\"'")
        m = difflib.get_close_matches(w.lower(), list(units), n=1, cutoff=0.75)
        if m and units[m[0]] not in found:
            found.append(units[m[0]])
        elif len(w) == 4 and w.isdigit() and w not in hexes:
            near = difflib.get_close_matches(w, list(hexes), n=1, cutoff=0.75)
            if near and near[0] not in found:
                found.append(near[0])
    return f"did you mean {' / '.join(found)}?" if found else ""


# --- answers to the commands --------------------------------------------------------

def help_lines(game, st, side: str) -> list[str]:
    """HELP: what ``side`` is offered (core/turn.py ``Offer``): the orders of this game,
    what the game waits for from it now, the legal set-up choices; then the mail commands."""
    from pbem.views import turn_of
    turn = turn_of(game, st)
    offer = turn.offer(side)
    out = ["Orders of this game (one a line):"]
    out += [f"  {row}" for x in offer.help for row in align(x)]
    if st.result is not None:
        out.append("The game is over: it takes no more orders (press still reaches the others).")
    elif offer.waits:
        out.append("The game waits for you now:")
        out += [f"  {w.kind}: write {w.order}" for w in offer.waits]
    else:
        out.append("The game waits for the other side now; you may still send press, or stage orders with DRAFT.")
    from pbem import ahead
    out += ahead.lines_for(game, side)
    choices = offer.setup
    if choices:
        out.append(f"Your {turn.setup_title(side)} now:")
        out += [f"  {c}" for c in choices]
    out += ["Mail commands (a line of their own; CHECK, DRAFT, FINAL, HELP, STATUS also as a word of the subject):",
            "  CHECK               check this mail's orders: what would be applied and refused; nothing is applied",
            "  DRAFT               hold this mail's orders for your current step (replacing any held); nothing applied;",
            "                      a DRAFT without orders shows the held ones, checked again; a DRAFT with a",
            "                      refused line is refused and the held orders stay as they were",
            "  FINAL               apply this mail's orders, or the held ones if it has none",
            "  UNDO                drop your held (staged) orders and those held after THEN; nothing is held then",
            "  THEN                the orders below it are for your next step: held, and applied when the game next",
            "                      waits for you (one block per THEN, in order); a refused one is dropped with the",
            "                      rest, and held blocks expire when this game turn ends",
            "  HELP                this list",
            "  STATUS              whose move, deadline, score, what the game waits for",
            "  HISTORY [N]         the last N events (default 10) as you may see them",
            "  press TEXT          a message to the other side: public, kept in the log",
            "  ABSENT until DATE   move your deadlines to DATE (e.g. 2026-03-01), as far as the host allows",
            "  TIMEZONE ZONE       read every time in your zone too (e.g. TIMEZONE Europe/Berlin), besides UTC",
            "  EXTEND 2d           ask for the running deadlines 2d later: they move once every side asks",
            "  MAP SVG             this answer carries the map as SVG too, sharp at any zoom (or SVG in the subject)",
            "Greetings, sign-offs and other text are ignored (the answer lists them); quoted text (>) and",
            "everything below a '-- ' signature line are not read."]
    return out


def align(line: str) -> list[str]:
    """A HELP line (core/forms.py) as rows: the syntax in a column, what it does beside
    it, or on the next row under that column when the syntax is wider."""
    syntax, sep, what = line.partition("    ")
    if not sep:
        return [line]
    if len(syntax) < 34:
        return [f"{syntax:<34} {what.strip()}"]
    return [syntax, f"{'':<34} {what.strip()}"]


def status_lines(host, game, st, side: str, head: str) -> list[str]:
    """STATUS as ``side`` may see it (views.state_view): turn and phase, whose
    move, what the game waits for, the score, this side's deadlines (``host``: the
    mail host that runs the game; None for `pbem status` of a game none runs)."""
    from pbem.views import result_text, score_text, state_view
    sc = game.scenario
    v = state_view(game, st, side, head)
    out = [f"{sc.title}, game {game.game_id}: you play {sc.side_name(side)}."]
    if v["result"]:
        out.append(f"Game over: {result_text(sc, v['result'])}.")
    else:
        out.append(step_line(sc, v, long=True) + ".")
    for a in v["awaiting"]:
        who = "you" if a["side"] == side else sc.side_name(a["side"])
        out.append(f"Waiting for {who}: {a['kind']} ({a['order']}).")
    if not v["awaiting"] and not v["result"]:
        out.append("Waiting for nobody.")
    if v["score"]:
        out.append("Score so far: " + score_text(sc, v["score"]))
    from pbem import ahead, staging
    held = staging.staged(game, side)
    if host is None:                            # `pbem status` of a game no mail host here runs
        out.append("No mail host runs this game here, so no deadline runs.")
        if held:
            out.append(f"You have orders staged (held) since {held['at']}; `pbem order GAME --as SIDE --final` "
                       "applies them, --unstage drops them.")
    else:
        out += _host_status(host, game, side, held)
    out += ahead.lines_for(game, side)
    out.append(f"Log head {head} (seq {st.seq}).")
    return out


def _host_status(host, game, side: str, held: dict | None) -> list[str]:
    """STATUS's lines of a game a mail host runs: deadlines, absence, staged orders."""
    out: list[str] = []
    dl = host._deadlines(game)
    out += host.deadline_lines(game, side, dl)
    if not dl.get("waits") and host.deadlines_on(game):
        out.append("No deadline is running.")
    away = dl.get("absent", {}).get(side)
    now = host.now()
    if away and away > iso(now):
        out.append(f"You are marked absent until {host.show_time(game, side, away, dl)}.")
    if host.cfg.absence is not None:
        from pbem.host import absence as A
        cap, window = host.cfg.absence, host.cfg.absence_window
        reach = A.latest(dl, side, now, cap, window)
        since = max(now, parse_time(away)) if away and away > iso(now) else now
        rule = f"this host allows {fmt_duration(cap)} at most in any {fmt_duration(window)}"
        out.append(f"ABSENT: {fmt_duration(reach - since)} more is left: an ABSENT sent now could reach "
                   f"{host.show_time(game, side, reach, dl)} ({rule})." if reach > since else f"ABSENT: none is left now ({rule}).")
    if held:
        out.append(f"You have orders staged (held) since {host.show_time(game, side, held['at'], dl)}; send FINAL "
                   "to apply them, UNDO to drop them.")
    return out


def history_lines(game, side: str, arg: str) -> list[str]:
    """HISTORY [N]: the last N events as ``side`` may see them (the report's words)."""
    from pbem.report.render import describe
    n = HISTORY_DEFAULT
    if arg.strip():
        if not arg.strip().isdigit():
            return [f"HISTORY takes a number of events (1 to {HISTORY_MAX}), not {arg.strip()!r}."]
        n = max(1, min(HISTORY_MAX, int(arg.strip())))
    from pbem.core.events import OrderGiven
    rows = []
    for en in reversed(game.entries()):
        if len(rows) >= n:
            break
        if isinstance(en.event, OrderGiven) and en.event.text.split(None, 1)[:1] == ["press"]:
            continue                # its PressSent says it: a press once, not twice
        text = describe(en.event, game.scenario, side)
        if text:
            rows.append(f"  {en.seq:>5}  {text}")
    return [f"The last {n} events of the log, as you may see them:"] + rows[::-1]


def check_lines(game, side: str, sub) -> list[str]:
    """A check (``Game.check``) line by line, for the CLI and the mail answer alike."""
    from pbem.report.render import describe
    out = []
    for a in sub.applied:
        out.append(f"would apply  line {a.line}: {a.text}")
        out += [f"             {t}" for t in (describe(ev, game.scenario, side) for ev in a.events) if t]
    past = list(sub.past_dice)
    if sub.needs_dice:
        legal = bool(past) and past[0].verdict == "apply"
        out.append(f"needs dice   {sub.needs_dice}: " + ("legal whatever the roll; " if legal else "")
                   + "a check rolls no die, so what it does is known only when it is applied; "
                   + ("the lines after it are" if legal else "it and the lines after it are")
                   + " tried with every outcome of the rolls")
        if legal:
            del past[0]
    for c in past:
        out += past_dice_lines(game, side, c, first=c is sub.past_dice[0])
    if sub.too_many:
        out.append(f"not checked  {sub.too_many}: it and the rolls before it have too many outcomes to try them all")
        out += [f"not checked  {t} (too many outcomes before it)" for t in sub.unchecked]
    if sub.needs_reveal:
        out.append(f"needs reveal {sub.needs_reveal}: would need the game to reveal something; not checked "
                   f"- {sub.why}")
        out += [f"not checked  {t} (depends on what it would reveal)" for t in sub.unchecked]
    if sub.refused is not None:
        last = sub.past_dice[-1] if sub.past_dice else None
        out.append(f"would REFUSE {sub.refused}" + ("" if last is None else " - whatever the roll" + (
            "; with other outcomes: " + reasons(last.refusals[1:]) if len(last.refusals) > 1 else "")))
        rest = list(sub.not_applied)
        bare = [t.split("#", 1)[0].strip() for t in rest]
        named = sub.refused.text.split("#", 1)[0].strip()
        if named in bare:                                       # the refused line itself is named above
            del rest[bare.index(named)]
        out += [f"not applied  {t}" for t in rest]
    elif sub.not_applied:                                       # past a roll: refused with every outcome
        out += [f"not applied  {t} (every outcome stops before it)" for t in sub.not_applied]
    if not (sub.applied or sub.refused or sub.needs_dice or sub.needs_reveal):
        out.append("no orders to check")
    out.append(f"checked against head {sub.head} (seq {sub.seq}); nothing was written")
    return out


def reasons(said: list[str], most: int = 3) -> str:
    """Refusals found with different outcomes of the rolls: the first few, and how many more."""
    more = f" OR {len(said) - most} more" if len(said) > most else ""
    return " OR ".join(said[:most]) + more


def past_dice_lines(game, side: str, c, first: bool = False) -> list[str]:
    """One line checked with every outcome of the rolls (``checking.Checked``), in words."""
    from pbem.report.render import describe
    said = f"line {c.line}: {c.text}"
    rolls = "; it rolls too" if c.rolls and not first else ""
    if c.verdict == "refuse":
        return []                                               # said as "would REFUSE ... whatever the roll"
    if c.verdict == "apply":
        head = [f"would apply  {said} - whatever the roll{rolls}"]
    else:
        how = ["would apply with some outcomes"] if c.applies else []
        if c.refusals:
            how.append("REFUSED with " + ("others" if c.applies else "some") + ": " + reasons(c.refusals))
        if not c.reached_by_all:
            how.append("not reached with others (a line before it is refused)")
        head = [f"depends      {said} - on the roll: " + "; ".join(how) + rolls]
    if c.applies and c.events is None and not first:
        head[-1] += "; its events depend on the roll"
    if c.events:
        head += [f"             {t}" for t in (describe(ev, game.scenario, side) for ev in c.events) if t]
    return head


def merge(*texts: str) -> str:
    """Line-position texts (as ``Request.orders`` and ``.press``) laid over each other."""
    rows = [t.split("\n") for t in texts]
    n = max(len(r) for r in rows)
    return "\n".join(next((r[i] for r in rows if i < len(r) and r[i]), "") for i in range(n))


def board_asked(inc) -> bool:
    """Does a mail ask for the host's status board (STATUS, nothing else)?"""
    words = [ln.strip().lower() for ln in inc.orders.split("\n") if ln.strip()]
    subject = {w.strip(".,;:!?") for w in _TAG.sub(" ", inc.subject or "").split()}
    return words == ["status"] or (not words and "STATUS" in subject)


def undo_lines(game, side: str) -> list[str]:
    """UNDO (and `pbem order --unstage`): drop ``side``'s staged orders."""
    from pbem import ahead, staging
    held = staging.staged(game, side)
    later = ahead.drop(game, side)
    out = []
    if held is not None:
        staging.discard(game, side)
        out.append(f"Your staged orders (held since {held.get('at', '?')}) were dropped; nothing is staged now.")
    if later:
        out.append(f"Your orders held for your next steps (after THEN) were dropped: {ahead.shown(later)}.")
    return out or ["You had no orders staged; nothing to drop."]
