"""Crete's part of applying an event: runs after the core reducer (pbem.core.reduce),
so it adds only what the Crete rules add.  One handler per event type (REDUCERS);
an event with none is a core event or a bug (no_reducer)."""
from __future__ import annotations

from collections.abc import Callable

from pbem.core.reduce import Handlers
from pbem.core.scenario import Scenario
from pbem.games.crete import events as E
from pbem.games.crete.airborne import plan_name, read_plan
from pbem.games.crete.board import gd, map_of, printed
from pbem.games.crete.state import CW, GERMAN, CreteState, Fight, other


def note_airfield(st: CreteState, sc: Scenario, uid: str, h: str | None) -> None:
    """6.0: an airfield is captured while its last ground occupant was German."""
    cd = st.crete
    if h and h in gd(sc).get("airfields", []):
        side = st.units[uid].side
        if side == GERMAN and h not in cd.captured:
            cd.captured.append(h)
            cd.captured.sort()
        elif side == CW and h in cd.captured:
            cd.captured.remove(h)


def owed(st: CreteState, uid: str) -> None:
    """Bookkeeping of a retreat in progress (10.5): the first retreat or loss of the
    force that had to choose turns the choice into a retreat of the whole force."""
    f = st.crete.fight
    if st.decision is not None and uid in st.decision.units and st.decision.kind in ("ca", "retreat"):
        st.decision = None
    if f is None:
        return
    if f.stage == "ca" and uid in f.targets:
        f.stage = "retreat"
        f.to_retreat = [t for t in f.targets if t != uid and not st.units[t].eliminated
                        and st.units[t].hex is not None]
    elif f.stage == "retreat" and uid in f.to_retreat:
        f.to_retreat.remove(uid)


# --- the sequence (3.0) -------------------------------------------------------------------

def phase_started(st: CreteState, ev: E.PhaseStarted, sc: Scenario) -> None:
    cd = st.crete
    for u in st.units.values():               # 3.0: "moved", "attacked", "defended" are this phase's
        if u.moved or u.attacked or u.defended:     # (read first: a write costs 4x a read, most are clear)
            u.moved = u.attacked = u.defended = False
    if ev.name == "air-landing":
        cd.air_used = []                      # 11.4: every air unit once per Game-Turn
    # 7.1, 7.7: the units that begin a movement phase in a track
    cd.from_track = sorted(k for k in cd.track if st.units[k].side == ev.side) if ev.name == "movement" else []


# --- set-up, drop plan, air landing (1.0, 5.0, 6.0) ---------------------------------------------

def unit_placed(st: CreteState, ev: E.UnitPlaced, sc: Scenario) -> None:
    st.units[ev.unit].hex = ev.hex            # 1.2
    note_airfield(st, sc, ev.unit, ev.hex)


def plan_sealed(st: CreteState, ev: E.SecretRecorded, sc: Scenario) -> None:
    """1.0: the German drop plan sealed (checked where the payload is known: the host)."""
    cd = st.crete
    if ev.side == GERMAN and ev.name == plan_name(sc):
        cd.plan_sealed, cd.plan_open, cd.plan = True, False, {}
        _, cd.plan_error = read_plan(sc, ev.payload)


def plan_opened(st: CreteState, ev: E.SecretRevealed, sc: Scenario) -> None:
    """1.0: the drop plan opened when the drops begin; public from then on."""
    cd = st.crete
    if ev.side == GERMAN and ev.name == plan_name(sc):
        cd.plan, err = read_plan(sc, ev.payload)
        cd.plan_open = True
        cd.plan_error = err


def air_dropped(st: CreteState, ev: E.AirDropped, sc: Scenario) -> None:
    cd = st.crete
    cd.dropped[ev.unit] = st.turn             # 5.5-5.7
    if st.turn == 1:                          # 1.0: the drops of Game-Turn 1 follow the plan
        m = map_of(sc, ev.target) or "?"
        cd.t1[m] = cd.t1.get(m, 0) + 1
    if ev.hex:
        st.units[ev.unit].hex = ev.hex
        if not _enemy_in(st, ev.hex, GERMAN):     # 5.2: onto Commonwealth units it fights first
            note_airfield(st, sc, ev.unit, ev.hex)


def _enemy_in(st: CreteState, h: str, side: str) -> bool:
    """Whether ``board.enemies(st, h, side)`` has any: one pass, no map of every hex."""
    for u in st.units.values():
        if u.hex == h and u.side != side and not u.eliminated:
            return True
    return False


def unit_landed(st: CreteState, ev: E.UnitLanded, sc: Scenario) -> None:
    st.crete.landed[ev.unit] = st.turn        # 6.5 (the core placed it)
    note_airfield(st, sc, ev.unit, ev.hex)


# --- movement (4.0, 7.0) ------------------------------------------------------------------------

def unit_moved(st: CreteState, ev: E.UnitMoved, sc: Scenario) -> None:
    st.crete.track.pop(ev.unit, None)         # 7.1: out of its track (the core moved it)
    note_airfield(st, sc, ev.unit, ev.path[-1])


def track_entered(st: CreteState, ev: E.TrackEntered, sc: Scenario) -> None:
    u = st.units[ev.unit]
    u.hex, u.moved = None, True               # 7.0: a unit in a track has no hex
    st.crete.track[ev.unit] = f"{ev.track}>{ev.exit}"


# --- combat (8.0-11.0) --------------------------------------------------------------------------

def combat_opened(st: CreteState, ev: E.CombatOpened, sc: Scenario) -> None:
    cd = st.crete
    f = cd.fight
    if ev.mode in ("attack", "scatter"):
        cd.fights += 1
        f = cd.fight = Fight(index=ev.index, kind=ev.mode, side=ev.side, attackers=list(ev.attackers),
                             defenders=list(ev.defenders), hexes=list(ev.hexes), air=list(ev.air),
                             lose=list(ev.lose), advance=ev.advance, advance_hex=ev.advance_hex)
        for a in ev.attackers:
            st.units[a].attacked = True      # 8.2: one attack initiated per phase
        for d in ev.defenders:
            st.units[d].defended = True      # 8.2: the object of one combat
        cd.air_used.extend(ev.air)           # 11.4
    assert f is not None                     # 10.5: a counterattack or re-roll of the fight in progress
    f.roll_side, f.rollers, f.targets = ev.side, list(ev.attackers), list(ev.defenders)
    f.target_hexes, f.mode, f.stage, f.result = list(ev.hexes), ev.mode, "open", ""
    f.to_retreat = []


def combat_resolved(st: CreteState, ev: E.CombatResolved, sc: Scenario) -> None:
    f = st.crete.fight
    if f is not None:
        f.result = ev.result
        f.stage = "ca" if ev.result == "Ca" else "resolved"     # 10.5


def decision_required(st: CreteState, ev: E.DecisionRequired, sc: Scenario) -> None:
    f = st.crete.fight
    if ev.decision == "advance" and f is not None:              # 10.7
        f.stage, f.victors = "advance", list(ev.units)
        f.vacated = sorted({o[1] for o in ev.options})


def unit_retreated(st: CreteState, ev: E.UnitRetreated, sc: Scenario) -> None:
    note_airfield(st, sc, ev.unit, ev.path[-1])   # 10.6 (the core moved it)
    owed(st, ev.unit)


def unit_eliminated(st: CreteState, ev: E.UnitEliminated, sc: Scenario) -> None:
    u = st.units[ev.unit]                     # the core took it off the map
    st.crete.track.pop(ev.unit, None)
    st.score[other(u.side)] = st.score.get(other(u.side), 0) + printed(sc, ev.unit)  # 12.1
    owed(st, ev.unit)


def place_scored(st: CreteState, ev: E.PlaceScored, sc: Scenario) -> None:
    st.score[ev.side] = st.score.get(ev.side, 0) + ev.points          # 12.2


def unit_advanced(st: CreteState, ev: E.UnitAdvanced, sc: Scenario) -> None:
    f = st.crete.fight                        # 10.7 (the core moved it)
    note_airfield(st, sc, ev.unit, ev.path[-1])
    st.decision = None
    if f is not None and ev.unit in f.victors:
        f.victors.remove(ev.unit)


def advance_declined(st: CreteState, ev: E.AdvanceDeclined, sc: Scenario) -> None:
    st.decision = None                        # 10.7
    if st.crete.fight is not None:
        st.crete.fight.stage = "done"


def combat_finished(st: CreteState, ev: E.CombatFinished, sc: Scenario) -> None:
    st.crete.fight = None
    st.decision = None


# --- standing answers to a Ca (10.5) -------------------------------------------------------------

def standing_set(st: CreteState, ev: E.StandingOrderSet, sc: Scenario) -> None:
    """A standing order set, or an exception cleared ("default"; "ask" for the whole side)."""
    cd = st.crete
    key = f"{ev.side}:{ev.topic}"
    table = dict(cd.standing.get(key, {}))
    if ev.answer == "default" or (ev.answer == "ask" and not ev.scope):
        table.pop(ev.scope, None)
    else:
        table[ev.scope] = ev.answer
    if table:
        cd.standing[key] = table
    else:
        cd.standing.pop(key, None)


def standing_applied(st: CreteState, ev: E.StandingOrderApplied, sc: Scenario) -> None:
    if st.crete.fight is not None:
        st.crete.fight.auto += 1              # standing.AUTO_LIMIT


REDUCERS: dict[type, Callable[[CreteState, E.Event, Scenario], None]] = {
    E.PhaseStarted: phase_started,            # 3.0, 7.1, 11.4
    E.UnitPlaced: unit_placed,                # 1.2
    E.SecretRecorded: plan_sealed,            # 1.0
    E.SecretRevealed: plan_opened,            # 1.0
    E.AirDropped: air_dropped,                # 5.0-5.7
    E.UnitLanded: unit_landed,                # 6.0, 6.5
    E.UnitMoved: unit_moved,                  # 4.0, 7.4
    E.TrackEntered: track_entered,            # 7.0
    E.CombatOpened: combat_opened,            # 8.2, 9.1, 10.5, 11.4
    E.CombatResolved: combat_resolved,        # 10.0
    E.DecisionRequired: decision_required,    # 10.7
    E.UnitRetreated: unit_retreated,          # 10.5, 10.6
    E.UnitEliminated: unit_eliminated,        # 10.5, 12.1
    E.PlaceScored: place_scored,              # 12.2
    E.UnitAdvanced: unit_advanced,            # 10.7
    E.AdvanceDeclined: advance_declined,      # 10.7
    E.CombatFinished: combat_finished,        # 10.0
    E.StandingOrderSet: standing_set,         # 10.5
    E.StandingOrderApplied: standing_applied,  # 10.5
}


_HANDLERS = Handlers("crete", REDUCERS)


def reduce(st: CreteState, ev: E.Event, sc: Scenario) -> None:
    """Apply Crete's part of ``ev`` (after the core part); the game's ``reduce`` (replay calls it
    for every event: the handler of each event type found once, ``Handlers``)."""
    fn = _HANDLERS[ev.__class__]
    if fn is not None:
        fn(st, ev, sc)
