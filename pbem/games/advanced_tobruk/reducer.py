"""The Advanced Tobruk reducer: what this game's events do to its state, after the
core reducer.  The engine's events are here; the fire package's (fire_events.py)
come in through its FIRE_REDUCERS table.

State structs keep no non-empty string default: msgspec's omit_defaults compares
strings by identity, so a value equal to such a default would encode differently
when built at run time and when decoded from the log."""
from __future__ import annotations

from collections.abc import Callable

import msgspec

from pbem.core.hexgrid import DIRECTIONS
from pbem.core.reduce import Handlers
from pbem.core.scenario import Scenario
from pbem.core.state import Decision
from pbem.games.advanced_tobruk import data, events as E
from pbem.games.advanced_tobruk.board.facing import SPINES
from pbem.games.advanced_tobruk.board.ground import in_bunker
from pbem.games.advanced_tobruk.arty_events import ART_NAMING, ART_NO_PIECES, ART_REDUCERS
from pbem.games.advanced_tobruk.fire_events import FIRE_REDUCERS, _casualty, _drop_held, _gun_fired, _morale
from pbem.games.advanced_tobruk.fog_events import FOG_REDUCERS
from pbem.games.advanced_tobruk.mine_events import MINE_REDUCERS
from pbem.games.advanced_tobruk.notes.notes import NOTE_REDUCERS
from pbem.games.advanced_tobruk.noting import ALL as _ALL, Asked as _Asked, touch as _touch, walk as _walk
from pbem.games.advanced_tobruk.perimeter_events import PERIMETER_REDUCERS, apply_cover
from pbem.games.advanced_tobruk.state import FireOrder, Pending, Shot, StandingOrders, Step, TobrukState

GAME = "advanced-tobruk"

SEGMENT = {"setup": "setup", "indirect": "combat", "direct-fire": "combat", "movement": "movement",
           "final-fire": "movement", "infiltration": "close-assault", "melee": "close-assault", "end": "end"}


def _other(sc: Scenario, side: str) -> str:
    for s in sc.sides:                            # the first side that is not ``side`` (a loop: hot in replay)
        if s.id != side:
            return s.id
    return side


def _phase(st: TobrukState, ev: E.PhaseStarted, sc: Scenario) -> list[str]:
    """A phase begins; the units whose markers may change (it reads plain dicts: ``_SELF_MARKING``):
    a new Movement Segment's movers, and the winded ones whose marker ends (6.413) as the turns go by."""
    name, side = ev.name, ev.side
    st.step = Step(SEGMENT.get(name, name), name, side, side)     # segment, phase, first, to_act
    st.pending = None
    turn, units = st.turn, st.units
    if name != "movement":
        return [uid for uid, p in st.pieces.items()
                if p.winded and turn - p.winded > 1 and uid in units and "winded" in units[uid].marks]
    touched = []                                  # a new Movement Segment: MP counts start again
    for uid, p in st.pieces.items():
        if p.mp or p.move or p.reversed or p.pinned or p.path or p.continued:
            touched.append(uid)
            p.mp, p.move, p.reversed, p.pinned, p.path = "", "", False, False, []
            if p.continued:                       # 6.541: the arrow of last turn is replaced by this turn's
                p.continued = p.moved = False
        elif p.winded and turn - p.winded > 1 and uid in units and "winded" in units[uid].marks:
            touched.append(uid)
    return touched


def _passed(st: TobrukState, ev: E.Passed, sc: Scenario) -> None:
    if ev.side not in st.step.passed:
        st.step.passed = [*st.step.passed, ev.side]
    other = _other(sc, ev.side)
    if other not in st.step.passed:
        st.step.to_act = other


def _acted(st: TobrukState, ev: E.Acted, sc: Scenario) -> None:
    if ev.what != "grenade":                     # 22.11: grenades first, then the unit may still infiltrate
        st.step.acted = [*st.step.acted, *[u for u in ev.units if u not in st.step.acted]]
    st.step.last = ev.side
    other = _other(sc, ev.side)
    st.step.to_act = ev.side if other in st.step.passed else other


def _faced(st: TobrukState, ev: E.Faced, sc: Scenario) -> None:
    p = st.pieces[ev.unit]
    if ev.facing >= 0:
        p.facing = ev.facing
    p.turret = ev.turret if ev.turret != p.facing else -1
    if not ev.setup:
        p.moved = True                            # 6.532: pivoting in place is movement


def _began(st: TobrukState, ev: E.MoveBegan, sc: Scenario) -> list[str]:
    """The movers' pieces (it names them: ``_SELF_MARKING``)."""
    pieces = st.pieces
    for u in ev.units:
        p = pieces[u]
        p.moving, p.move = True, ev.move
        if ev.move == "run":
            p.winded = st.turn                    # 6.413
    return ev.units


def _carried(st: TobrukState, movers: list[str]) -> list[str]:
    """Weapons held by the movers (they go along, 8.4).  Reads every piece but changes
    none: the caller asks for the ones it moves (so only their markers are derived again)."""
    pieces = st.pieces.d if isinstance(st.pieces, _Asked) else st.pieces
    units = st.units.d if isinstance(st.units, _Asked) else st.units
    return [w for w, p in pieces.items() if p.holder in movers and not units[w].eliminated]


def _stepped(st: TobrukState, ev: E.Stepped, sc: Scenario) -> list[str]:
    """A step of a move: the movers and the weapons they carry (8.4), which it names (``_SELF_MARKING``)."""
    st.pending = None
    if st.decision is not None and st.decision.kind == "opportunity-fire":
        st.decision = None
    units, pieces, movers, h = st.units, st.pieces, ev.units, ev.hex
    moved = [*movers, *_carried(st, movers)]
    for u in moved:
        unit = units[u]
        was = unit.hex
        unit.hex = h
        p = pieces[u]
        if u in movers:
            p.mp, p.moved = ev.spent, True
            if h != was and was:
                p.path = [*(p.path or [was]), h]          # 13.441 the path, for fire at it
            if ev.cover:
                apply_cover(p, ev.cover)                   # 31.02, 31.256, 33.74 (cover_moves.py)
            elif h != was and (p.full or p.rim >= 0):
                apply_cover(p, "top")                      # out of the hex, out of its cover
            if h != was:
                p.hd = ""                                  # 33.81: hull defilade stays in its hex
            if ev.what != "turret":
                p.bot, p.bot_turn = "", 0         # 13.461: a firer that moves loses its Burst on Target
            if ev.what == "reverse":
                p.reversed = True
        else:
            p.gun_moved = True
    if movers and ev.facing >= 0:
        p = pieces[movers[0]]
        p.facing = ev.facing
        p.turret = ev.turret if ev.turret != ev.facing else -1
    return moved


def _ended(st: TobrukState, ev: E.MoveEnded, sc: Scenario) -> list[str]:
    """The movers' pieces (it names them: ``_SELF_MARKING``)."""
    st.pending = None
    if st.decision is not None and st.decision.kind == "opportunity-fire":
        st.decision = None
    pieces = st.pieces
    for u in ev.units:
        p = pieces[u]
        p.moving = False
        p.moved = True
        p.continued = ev.continued
    return ev.units


def _exited(st: TobrukState, ev: E.UnitExited, sc: Scenario) -> None:
    for u in [ev.unit, *_carried(st, [ev.unit])]:
        st.units[u].hex = None
        st.units[u].gone = "exited"
        st.pieces[u].moving = False
    if ev.vp:
        st.exited = [*st.exited, ev.unit]


def _standing(st: TobrukState, ev: E.StandingOrderSet, sc: Scenario) -> None:
    cur = st.orders.get(ev.side, StandingOrders())
    units = dict(cur.units)
    default = cur.default
    if not ev.unit:
        default = FireOrder(mode=ev.mode, range=ev.range, duel=ev.duel, drop=ev.drop)
    elif ev.mode == "clear":
        units.pop(ev.unit, None)
    else:
        units[ev.unit] = FireOrder(mode=ev.mode, range=ev.range, duel=ev.duel, drop=ev.drop)
    st.orders = {**st.orders, ev.side: StandingOrders(default=default, units=dict(sorted(units.items())))}


def _paused(st: TobrukState, ev: E.MovePaused, sc: Scenario) -> None:
    st.pending = Pending(units=list(ev.units), hex=ev.hex, firers=list(ev.firers), remaining=list(ev.remaining),
                         spent_here=ev.spent_here, side=ev.side, final=ev.final, came_from=ev.came_from)
    st.decision = Decision(side=ev.side, kind="opportunity-fire", combat=-1, units=list(ev.firers), rule="6.6")


def _planned(st: TobrukState, ev: E.OpportunityPlanned, sc: Scenario) -> None:
    pd = st.pending
    if pd is not None:
        st.pending = msgspec.structs.replace(pd, shots=[*pd.shots, Shot(firers=list(ev.firers), hex=ev.hex)])


def _opp_passed(st: TobrukState, ev: E.OpportunityPassed, sc: Scenario) -> None:
    if ev.by == "answer":
        st.decision = None


def _infiltrated(st: TobrukState, ev: E.Infiltrated, sc: Scenario) -> None:
    u = st.units[ev.unit]
    p = st.pieces[ev.unit]
    if ev.hex != u.hex and (p.full or p.rim >= 0):
        apply_cover(p, ev.cover or "top")                  # out of its cover, unless it stays under (31.256)
    for x in [ev.unit, *_carried(st, [ev.unit])]:
        st.units[x].hex = ev.hex
    if not ev.melee:
        return
    if ev.hex not in st.melee_attacker:            # 5.33 / 22.31: the first to enter attacks
        st.melees = [*st.melees, ev.hex]
        st.melee_attacker[ev.hex] = u.side
    attacking = st.melee_attacker[ev.hex]
    for _, v in _walk(st.units):                  # the units in the hex are asked for (in_bunker)
        if v.hex == ev.hex and not v.eliminated and data.is_personnel(sc, v.id) and not in_bunker(st, sc, v.id):
            p = st.pieces[v.id]
            p.melee = True
            if v.side == attacking:
                p.attacker = True


def _eliminated(st: TobrukState, ev: E.UnitEliminated, sc: Scenario) -> None:
    _touch(st.units, ev.unit)                     # the core eliminated it (in its hex): its markers change
    _drop_held(st, ev.unit)


def _turn_ended(st: TobrukState, ev: E.TurnEnded, sc: Scenario) -> list[str]:
    """5.41: F markers, movement arrows (not continued movers'), melee and pinned markers go.
    Returns the units it changed (it reads plain dicts: ``_SELF_MARKING``)."""
    touched = []
    for uid, p in st.pieces.items():
        if (p.fired or p.moving or p.pinned or p.melee or p.attacker or p.overrun or p.overrun_by
                or (p.moved and not p.continued)):
            touched.append(uid)
            p.fired = p.moving = p.pinned = p.melee = p.attacker = False
            p.overrun, p.overrun_by = 0, []
            if not p.continued:
                p.moved = False
    st.melees, st.melee_attacker = [], {}
    return touched


def _vp(st: TobrukState, ev: E.VictoryCounted, sc: Scenario) -> None:
    st.vp = dict(ev.vp)
    st.score = dict(ev.vp)


def _nothing(st: TobrukState, ev: E.Event, sc: Scenario) -> None:
    """Recorded for the report (the roll); the state changes with the event after it."""


REDUCERS: dict[type, Callable[[TobrukState, E.Event, Scenario], None]] = {
    E.PhaseStarted: _phase, E.FirstRolled: _nothing, E.Passed: _passed, E.Acted: _acted, E.Faced: _faced,
    E.MoveBegan: _began, E.Stepped: _stepped, E.MoveEnded: _ended, E.UnitExited: _exited,
    E.StandingOrderSet: _standing, E.MovePaused: _paused, E.OpportunityPassed: _opp_passed,
    E.OpportunityPlanned: _planned,
    E.Infiltrated: _infiltrated, E.UnitEliminated: _eliminated, E.TurnEnded: _turn_ended, E.VictoryCounted: _vp,
    **FIRE_REDUCERS, **ART_REDUCERS, **FOG_REDUCERS, **MINE_REDUCERS, **NOTE_REDUCERS, **PERIMETER_REDUCERS,
}


# reducers that change no piece and no unit (the step, the orders, the score): no marker can change
# (and the side notes' rolls and openings: the notes' reducer of SecretRevealed and NoteRolled does nothing)
_NO_PIECES = frozenset({_nothing, _passed, _acted, _standing, _opp_passed, _vp,
                        NOTE_REDUCERS[E.SecretRevealed], NOTE_REDUCERS[E.NoteRolled], *ART_NO_PIECES})
# reducers that return the units they changed (plain dicts, no _Asked): those that walk the pieces
# themselves, and those that change only units they can name (a move's, a side note's, a casualty
# attack's, a morale check's, fire's; the weapons a unit drops: fire_events._drop_held)
_SELF_MARKING = frozenset({_phase, _turn_ended, _began, _stepped, _ended, NOTE_REDUCERS[E.SecretRecorded],
                          _casualty, _morale, _gun_fired, *ART_NAMING})


# each event type's reducer and how its markers are found again (``reduce``): 0 it changes no piece
# and no unit, 1 it says which units it changed, 2 it runs with the noting view
_HANDLERS = Handlers(GAME, {cls: (fn, 0 if fn in _NO_PIECES else 1 if fn in _SELF_MARKING else 2)
                            for cls, fn in REDUCERS.items()})
_new = object.__new__


def reduce(st: TobrukState, ev: E.Event, sc: Scenario, game: str = GAME) -> None:
    """The game's part of ``ev`` (the game's ``reduce``: replay calls it for every event), then
    the markers of the units it touched.  ``game``: unused (the table's errors name GAME)."""
    got = _HANDLERS[ev.__class__]
    if got is None:
        return                                    # a core event the game adds nothing to
    fn, how = got
    if how == 0:
        fn(st, ev, sc)
        return
    # The markers (a report's status column) follow from a unit's piece, its elimination
    # and the turn (winded, 6.413): only the units the event touched are derived again
    # (all of them when it walked every piece or unit).
    if how == 1:
        touched = fn(st, ev, sc)
    else:
        pieces, units = st.pieces, st.units
        touched = set()
        wp, wu = _new(_Asked), _new(_Asked)       # _Asked(pieces, touched), _Asked(units, touched)
        wp.d, wp.asked, wu.d, wu.asked = pieces, touched, units, touched
        st.pieces, st.units = wp, wu
        try:
            fn(st, ev, sc)
        finally:
            # a reducer that replaced a dict made a new one: every unit is looked at
            if st.pieces is wp:
                st.pieces = pieces
            else:
                touched.add(_ALL)
            if st.units is wu:
                st.units = units
            else:
                touched.add(_ALL)
        if not touched:
            return
        if _ALL in touched:
            touched = st.units
    units, pieces, turn = st.units, st.pieces, st.turn
    for uid in touched:
        u = units.get(uid)
        if u is not None:
            marks = markers(pieces[uid], turn, u.eliminated)
            if u.marks != marks:
                u.marks = marks


STEPS = {"squad": ("", "casualties", "half-squad", "half-squad, casualties"), "leader": ("", "wounded")}


_FACING = tuple(f"facing {s}" for s in SPINES)
_TURRET = tuple(f"turret {s}" for s in SPINES)


def markers(p, turn: int, gone: bool = False) -> list[str]:
    """The markers a report shows on a unit (its status column).  Every event derives
    them again for the units it touched (``reduce``): plain tests, in the order shown."""
    out = []
    if p.facing >= 0:
        out.append(_FACING[p.facing])
    if p.turret >= 0:
        out.append(_TURRET[p.turret])
    if p.steps and not gone:
        names = STEPS.get(p.cls, ("", "reduced"))
        out.append(names[p.steps] if p.steps < len(names) else f"{p.steps} steps")
    if p.holder:
        out.append(f"with {p.holder}")
    if p.hidden_at and not gone:
        out.append(f"hidden in {p.hidden_at}")            # the owner's side note (32.22); views hide it
    if p.dummy:
        out.append("dummy")                               # 32.24, the owner's alone
    if p.wreck == "wreck":
        out.append("wreck")
    elif p.wreck == "burning":
        out.append("burning wreck")
    if p.fired:
        out.append("F")
    if p.moving:
        out.append("moving")
    elif p.moved:
        out.append("moved")
    if p.continued:
        out.append("continued movement")
    if p.suppressed:
        out.append("suppressed")
    if p.m_kill:
        out.append("M-KILL")
    if p.bailed:
        out.append("bailed out")
    if p.broken:
        out.append("broken")
    if p.surrendered:
        out.append("surrendered")
    if p.pinned:
        out.append("pinned")
    if p.winded and turn - p.winded <= 1:
        out.append("winded")
    if p.courage:
        out.append("courage")
    if p.full:
        out.append("FULL cover")
    if p.melee:
        out.append("melee")
    if p.hd:
        out.append("hull defilade")
    if p.f_kill:
        out.append("F-KILL " + ",".join(p.f_kill))
    if p.rim >= 0 and not gone:
        out.append(f"up in the wadi, facing {DIRECTIONS[p.rim]}")       # 33.74 the LOS +10 marker
    return out
