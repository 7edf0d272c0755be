"""What one side may see: its view of the state and its copy of the log.

Secrets (SecretRecorded) of another side show only their commitment until
the matching SecretRevealed.  "referee" sees everything.
"""
from __future__ import annotations

from pbem.core import events as E
from pbem.core.known import base_row
from pbem.engine import Entry, Game
from pbem.core.ruleset import Ruleset
from pbem.core.state import GameState
from pbem.core.turn import Turn
from pbem.log import line_hash, walk_chain

REFEREE = "referee"


def side_id(sc, side: str, referee: bool = True) -> str:
    """The side a command line names, by its id or its name as `pbem scenarios` prints it
    ("Commonwealth" or ``allied``; any case), or the referee; an unknown one is refused
    with a "did you mean" and the choices."""
    from pbem.engine import EngineError
    if side == REFEREE and referee:
        return side
    found = sc.side_of(side)
    if found:
        return found
    import difflib
    names = {s.id.lower(): s.id for s in sc.sides} | {s.name.lower(): s.id for s in sc.sides}
    near = difflib.get_close_matches((side or "").lower(), list(names), n=1, cutoff=0.6)
    hint = f"did you mean {sc.side_name(names[near[0]])} ({names[near[0]]})? " if near else ""
    choices = ", ".join(f"{s.id} ({s.name})" if s.name.lower() != s.id.lower() else s.id for s in sc.sides)
    raise EngineError(f"unknown side {side!r}; {hint}choose one of: {choices}" + (", referee" if referee else ""))


def check_viewer(game: Game, side: str) -> str:
    """The viewer ``side`` names (``side_id``), or EngineError."""
    return side_id(game.scenario, side)


def viewer(game: Game, side: str | None) -> str:
    """The viewer a command names (the referee when none), checked (``check_viewer``)."""
    return check_viewer(game, side or REFEREE)


def result_text(sc, result: dict) -> str:
    """A ``state_view`` result in words: "Axis wins (reason, rule R)", "a draw (reason, rule R)"."""
    who = "a draw" if result["winner"] == "draw" else f"{sc.side_name(result['winner'])} wins"
    return f"{who} ({result['reason']}, rule {result['rule']})"


def score_text(sc, score: dict) -> str:
    """The score by side in words, "Axis 3, British 5" (a key that is no side as it is)."""
    return ", ".join(f"{sc.side_name(k) if k in sc.side_ids() else k} {n}" for k, n in sorted(score.items()))


def score_line(game: Game, st: GameState, viewer: str) -> str:
    """The running score in one line, as the map's title bar and the report's SITUATION say
    it: the game's own words (``Ruleset.map_marks``'s ``score``: its victory points against
    the turn's range, say), else the state's score by side; "" for a game without one."""
    got = (game.rules.map_marks(st, game.scenario, viewer) or {}).get("score")
    return got or (score_text(game.scenario, st.score) if st.score else "")


def visible_event(ev: E.Event, side: str, rules: Ruleset) -> E.Event:
    """The event as ``side`` may see it: sealed secrets and sealing orders of
    another side show only their commitment and name; then the game redacts its
    own events (``Ruleset.redact``).  The referee sees everything."""
    if side == REFEREE:
        return ev
    if isinstance(ev, E.SecretRecorded) and ev.side != side:
        return E.SecretRecorded(side=ev.side, name=ev.name, commitment=ev.commitment)
    if isinstance(ev, E.OrderGiven) and ev.side != side and ev.text.split(None, 1)[0].lower() == "secret":
        name = (ev.text.split() + ["", ""])[1]
        return E.OrderGiven(side=ev.side, text=f"secret {name} (sealed)", by=ev.by)
    return rules.redact(ev, side)


def order_text(by_side: str, text: str, viewer: str, rules: Ruleset) -> str:
    """An order of ``by_side`` as ``viewer`` may read it (a sealed order shows only its name)."""
    return visible_event(E.OrderGiven(side=by_side, text=text), viewer, rules).text


def unit_rows(game: Game, st: GameState, side: str) -> list[dict]:
    """Every unit as ``side`` may see it: the referee and a unit's own side see
    its full row; another side sees what ``Ruleset.unit_row`` lets through."""
    sc = game.scenario
    rows = []
    for u in st.units.values():
        row: dict | None = base_row(sc, u)
        row.update(game.rules.unit_facts(st, sc, u))
        if side != REFEREE and u.side != side:
            row = game.rules.unit_row(st, sc, u, row, side)
        if row is not None:
            rows.append(row)
    return rows


def turn_of(game: Game, st: GameState) -> Turn:
    """The turn of ``st`` (core/turn.py): what the game waits for and offers, read once from its hooks."""
    return Turn(game.rules, game.scenario, st)


def awaiting_rows(game: Game, st: GameState, side: str, turn: Turn | None = None) -> list[dict]:
    """What the game waits for, as ``side`` may read it (``Ruleset.awaiting_view``)."""
    return (turn or turn_of(game, st)).rows(side)


def state_view(game: Game, st: GameState, side: str = REFEREE, head: str = "", turn: Turn | None = None) -> dict:
    """The state as a JSON-ready dict (the `pbem state --json` contract); ``turn``: the
    state's Turn when the caller has one already."""
    sc = game.scenario
    t = turn or turn_of(game, st)
    return {
        "game_id": st.game_id,
        "scenario": sc.id,
        "title": sc.title,
        "viewer": side,
        "turn": st.turn,
        "turns": sc.turns,
        "turn_label": t.turn_label,
        "phase": t.phase,
        "phase_side": t.phase_side,
        "awaiting": t.rows(side),
        "units": unit_rows(game, st, side),
        "score": dict(st.score),
        "result": t.result,
        "dice_mode": st.dice_mode,
        "seed_commitment": st.seed_commitment,
        "seed_revealed": bool(st.seed),
        "head": head,
        "seq": st.seq,
        **({} if st.chain is None else {"dice_chain": st.chain.head, "dice_revealed": st.chain.revealed}),
    }


def log_view(entries: list[Entry], side: str, rules: Ruleset) -> list[dict]:
    out = []
    for en in entries:
        ev = visible_event(en.event, side, rules)
        out.append({"seq": en.seq, "hash": en.hash, "at": en.at, "kind": en.kind, "body": E.body_of(ev)})
    return out


def _marked(path, end: int, last: int, marks: tuple[bytes, ...], chunk: int = 1 << 20, start: int = 0):
    """(line number, line) of each line before byte ``end`` (and from byte ``start``, a
    line's start) of the log at ``path`` that holds one of ``marks``, the last first;
    ``last`` is the number of the line that ends at ``end``.  Blocks are read backwards
    and searched with ``bytes.rfind``."""
    from pbem.log import open_regular
    with open_regular(path) as f:
        hi, carry = end, b""
        while hi > start:
            lo = max(start, hi - chunk)
            f.seek(lo)
            block = f.read(hi - lo) + carry
            hi = lo
            if lo > start:
                cut = block.find(b"\n")
                if cut < 0:                             # one line longer than the block
                    carry = block
                    continue
                carry, block = block[:cut + 1], block[cut + 1:]
            else:
                carry = b""
            # ``block``: whole lines, each ending in a newline; its last is line ``last``
            top = len(block)
            at = {m: block.rfind(m, 0, top) for m in marks}     # each mark's last place before ``top``
            seen, after = len(block), 0          # the newlines at and after ``seen``, counted once
            while True:
                p = max(at.values())
                if p < 0:
                    break
                first = block.rfind(b"\n", 0, p) + 1
                stop = block.find(b"\n", p)
                after += block.count(b"\n", stop + 1, seen)
                seen = stop + 1
                yield last - after, block[first:stop]
                top = first
                for m, q in at.items():
                    if q >= top:
                        at[m] = block.rfind(m, 0, top)
            last -= block.count(b"\n")


def _stood(ev: E.Event, want_path: set[str], want_where: set[str]) -> bool:
    """Whether ``ev``, read backwards from ``since``, tells where a wanted unit stood then:
    the last event with a ``unit`` and a ``path`` of a unit (the reports' words read it), or
    the last event of a unit's declared motion that places it (the map's trails start there).
    The units it answers for leave the sets."""
    hit = False
    unit = getattr(ev, "unit", None)
    if unit in want_path and getattr(ev, "path", None):
        want_path.discard(unit)
        hit = True
    moved = E.moved_where(ev)
    if moved is not None and want_where.intersection(moved[0]):
        want_where.difference_update(moved[0])
        hit = True
    return hit


def _may_stand(line: bytes, kinds: tuple[bytes, ...]) -> bool:
    """Whether a log line may tell where a unit stood (``_stood``): a unit and a path, a kind
    that declares a motion, or a backslash (JSON escapes: the bytes say nothing sure)."""
    return (b'"path"' in line and b'"unit"' in line) or b"\\" in line or any(m in line for m in kinds)


class _Moves:
    """Of one log file up to byte ``end``: each unit's last line with a unit and a path
    (``path``) and its last line of a declared motion that places it (``where``), as
    (line number, line); ``tail``: the line that ends at ``end``, which names (by the
    chain) every line before it."""

    def __init__(self, ident: tuple):
        self.ident, self.end, self.tail = ident, 0, b""
        self.path: dict[str, tuple[int, bytes]] = {}
        self.where: dict[str, tuple[int, bytes]] = {}


_MOVES: dict[str, _Moves] = {}


def _last_line(path, end: int) -> bytes | None:
    """The line that ends at byte ``end`` (None when longer than the window read)."""
    from pbem.log import open_regular
    lo = max(0, end - 65536)
    with open_regular(path) as f:
        f.seek(lo)
        data = f.read(end - lo)
    cut = data.rfind(b"\n", 0, len(data) - 1)
    if cut < 0 and lo > 0:
        return None
    return data[cut + 1:]


def _moves_before(game: Game, path, end: int, last: int, kinds: tuple[bytes, ...]) -> _Moves | None:
    """Every unit's last lines before byte ``end`` that tell where it stood (see ``_Moves``),
    read from the log only after the byte the last call read to, on the same file whose
    line there is unchanged; None when they cannot be kept (the plain search reads them)."""
    import os
    try:
        st = os.stat(path)
        ident = (st.st_dev, st.st_ino)
        tail = _last_line(path, end) if end > 0 else b""
    except OSError:
        return None
    if tail is None:
        return None
    m = _MOVES.get(str(path))
    if m is None or m.ident != ident or m.end > end or (m.end and _last_line(path, m.end) != m.tail):
        m = _Moves(ident)
    if m.end < end:
        path_new: dict[str, tuple[int, bytes]] = {}
        where_new: dict[str, tuple[int, bytes]] = {}
        for k, line in _marked(path, end, last, (b'"path"', b"\\") + kinds, start=m.end):
            if not _may_stand(line, kinds):
                continue
            ev = game.decode_line(k, line).body
            unit = getattr(ev, "unit", None)
            if unit and getattr(ev, "path", None):
                path_new.setdefault(unit, (k, line))     # read backwards: the first is the last
            moved = E.moved_where(ev)
            if moved is not None:
                for u in moved[0]:
                    where_new.setdefault(u, (k, line))
        m.path.update(path_new)
        m.where.update(where_new)
        m.end, m.tail = end, tail
    if len(_MOVES) > 128:                       # a host with more games: begin again
        _MOVES.clear()
    _MOVES[str(path)] = m
    return m


def report_entries(game: Game, since: int, keep: bool = False) -> list[Entry]:
    """What a report telling what happened after seq ``since`` reads, from the
    end of the log backwards: every entry after ``since`` (checked against the
    chain from the head down to the line before them) and, of those before it,
    the last event with a ``unit`` and a ``path``, and the last declared motion
    (``events.Motion``), of each unit the later entries name (where each stood when
    they begin).  For the reports (render's
    report_context and moves_since) this list reads the same as ``entries()``,
    but a report of the last few events reads the last lines, not the whole log.
    A changed line before ``since`` is for ``pbem verify`` to find.

    ``keep`` (a host, which reports on the same games all day): each unit's last such
    lines are kept per log file (``_moves_before``), so the next report reads only the
    lines written since; the first reads every line that may name a move, where the
    plain search stops once it found the units it wants (`pbem report`, once)."""
    import os
    path = game.log.path
    n = game.log.head()[0] + 1
    tail: list[Entry] = []
    before: list[Entry] = []
    wanted: set[str] = set()                    # units named after ``since``, position before unknown
    want_path: set[str] = set()                 # of those, the ones whose line before is still to find
    want_where: set[str] = set()
    try:
        end = os.stat(path).st_size             # where the lines not read yet end
    except OSError:
        end = -1
    lines = game.log.iter_lines_reversed() if since < n - 1 else ()
    for n, line, x, h in walk_chain(lines, game.decode_line, game._check_link, last=n - 1):
        end -= len(line) + 1
        if n and isinstance(x.body, E.GameCreated):
            raise game._second_created(n)
        if n > since:
            tail.append(Entry(x.seq, h, x.at, x.body))
            unit = getattr(x.body, "unit", None)
            if unit:
                wanted.add(unit)
            wanted.update(E.moved_units(x.body))
            continue
        # the line at ``since``: checked, the chain read ends here
        want_path, want_where = set(wanted), set(wanted)
        if _stood(x.body, want_path, want_where):
            before.append(Entry(x.seq, h, x.at, x.body))
        break
    # Before that, only lines that may name a unit and a path, or of a kind that declares a
    # motion, are decoded (a backslash: JSON escapes), found a block at a time (``_marked``): a unit that has not moved for long
    # costs a search of the bytes before, not a Python loop over their lines.
    if wanted and n > 0 and end >= 0 and (want_path or want_where):
        kinds = tuple(b'"kind":"%s"' % k.encode() for k, t in E.BY_KIND.items() if t.motion is not None)
        known = _moves_before(game, path, end, n - 1, kinds) if keep else None
        if known is not None:                   # each unit's last such lines, kept from the last read
            hits = {known.path[u] for u in want_path if u in known.path} | \
                {known.where[u] for u in want_where if u in known.where}
            for k, line in sorted(hits, reverse=True):
                x = game.decode_line(k, line)
                before.append(Entry(x.seq, line_hash(x.prev, line), x.at, x.body))
        else:
            for k, line in _marked(path, end, n - 1, (b'"path"', b"\\") + kinds):
                if not _may_stand(line, kinds):
                    continue
                x = game.decode_line(k, line)
                if _stood(x.body, want_path, want_where):
                    before.append(Entry(x.seq, line_hash(x.prev, line), x.at, x.body))
                    if not (want_path or want_where):
                        break
    before.reverse()
    tail.reverse()
    return before + tail
