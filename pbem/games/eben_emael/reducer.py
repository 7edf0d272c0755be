"""Eben Emael's part of applying an event, after the core reducer (pbem.core.reduce):
one function per event type, looked up in ``REDUCERS``."""
from __future__ import annotations

from collections.abc import Callable

from pbem.core.reduce import Handlers
from pbem.core.scenario import Scenario
from pbem.games.eben_emael import events as E
from pbem.games.eben_emael.board import forts, mark, unmark
from pbem.games.eben_emael.state import AssaultAction, DemolitionAction, EbenEmaelState, FireAction

Reducer = Callable[[EbenEmaelState, E.Event, Scenario], None]


def _resolving(st: EbenEmaelState):
    """The announced attack being resolved (None once all are)."""
    return st.actions[st.current] if st.current < len(st.actions) else None


def _phase(st: EbenEmaelState, ev: E.PhaseStarted, sc: Scenario) -> None:
    """3.0: every phase announces its own attacks; garrisons come out once per turn (10.3)."""
    st.actions, st.declarations_closed, st.current = [], False, 0
    st.fired, st.mine_hits = {}, {}
    if st.last_turn_placed != ev.turn:
        st.placed_forts, st.last_turn_placed = [], ev.turn
    for u in st.units.values():
        if u.moved or u.attacked or u.defended:     # read first: a write costs 4x a read, most are clear
            u.moved = u.attacked = u.defended = False


def _activated(st: EbenEmaelState, ev: E.FortActivation, sc: Scenario) -> None:
    """9.4: an activated fortification loses its inactive marker."""
    if ev.active:
        unmark(st.units[forts(sc)[ev.fort]], "inactive")


def _placed(st: EbenEmaelState, ev: E.UnitPlaced, sc: Scenario) -> None:
    """12.2 set-up; 10.3: a garrison placed on a fortification in the movement phase."""
    st.units[ev.unit].hex = ev.hex
    if sc.sequence[st.phase].name == "movement":
        st.placed_forts.append(ev.hex)


def _bold(st: EbenEmaelState, ev: E.BoldMovement, sc: Scenario) -> None:
    """4.6."""
    mark(st.units[ev.unit], "bold")


def _fire_declared(st: EbenEmaelState, ev: E.FireDeclared, sc: Scenario) -> None:
    """5.2; 5.4, 9.2: fires are counted per firer."""
    st.actions.append(FireAction(firer=ev.firer, target=ev.target, second=ev.second))
    st.fired[ev.firer] = st.fired.get(ev.firer, 0) + 1


def _fire_resolved(st: EbenEmaelState, ev: E.FireResolved, sc: Scenario) -> None:
    """5.0, 5.7; 11.1: a minefield attacks a unit once per hex and phase."""
    if ev.firer == "minefield":
        st.mine_hits.setdefault(ev.target, []).append(ev.hex)
    else:
        st.current += 1
    if ev.effect == "pinned":
        mark(st.units[ev.target], "pinned")


def _lapsed(st: EbenEmaelState, ev: E.FireLapsed, sc: Scenario) -> None:
    """5.2: an announced fire whose target is gone."""
    st.current += 1


def _assault_declared(st: EbenEmaelState, ev: E.AssaultDeclared, sc: Scenario) -> None:
    """7.1, 7.3."""
    st.actions.append(AssaultAction(target=ev.target, attackers=list(ev.attackers), lose=ev.lose,
                                    advance=ev.advance))
    for a in ev.attackers:
        st.units[a].attacked = True


def _assault_resolved(st: EbenEmaelState, ev: E.AssaultResolved, sc: Scenario) -> None:
    """7.5: De eliminates the defender, Ae one attacker."""
    a = st.actions[ev.index]
    a.defender, a.result = ev.defender, ev.result
    a.stage = {"De": "eliminate", "Ae": "lose"}.get(ev.result, "done")


def _demolition_declared(st: EbenEmaelState, ev: E.DemolitionDeclared, sc: Scenario) -> None:
    """8.2, 7.7; 8.1: the 110 lb charge is used once."""
    st.actions.append(DemolitionAction(fort=ev.fort, unit=ev.unit, charge=ev.charge))
    st.units[ev.unit].attacked = True
    if ev.charge:
        mark(st.units[ev.unit], "charge used")


def _demolition_resolved(st: EbenEmaelState, ev: E.DemolitionResolved, sc: Scenario) -> None:
    """8.0."""
    st.current += 1
    if ev.destroyed:
        f = st.units[forts(sc)[ev.fort]]
        unmark(f, "inactive")
        mark(f, "destroyed")


def _closed(st: EbenEmaelState, ev: E.DeclarationsClosed, sc: Scenario) -> None:
    """5.2, 7.1, 8.2: all attacks announced; now resolved in order."""
    st.declarations_closed = True


def _eliminated(st: EbenEmaelState, ev: E.UnitEliminated, sc: Scenario) -> None:
    """5.0, 7.5, 4.4, 11.0; an eliminated unit moves its close assault on (7.5, 7.6)."""
    st.units[ev.unit].marks = []                # the core took it off the map
    a = _resolving(st)
    if st.decision is not None and st.decision.kind == "lose":
        st.decision = None
        if isinstance(a, AssaultAction) and a.stage == "lose":
            a.stage = "done"
    elif isinstance(a, AssaultAction):
        if a.stage == "eliminate" and ev.unit == a.defender:
            a.stage = "advance"
        elif a.stage == "lose" and ev.unit in a.attackers:
            a.stage = "done"


def _advanced(st: EbenEmaelState, ev: E.UnitAdvanced, sc: Scenario) -> None:
    """7.6 (the core moved it)."""
    st.decision = None
    st.actions[st.current].stage = "done"


def _declined(st: EbenEmaelState, ev: E.AdvanceDeclined, sc: Scenario) -> None:
    """7.6: the advance is optional."""
    st.decision = None
    st.actions[ev.index].stage = "done"


def _finished(st: EbenEmaelState, ev: E.CombatFinished, sc: Scenario) -> None:
    st.current = ev.index + 1


def _reorganized(st: EbenEmaelState, ev: E.UnitsReorganized, sc: Scenario) -> None:
    """3.0 steps 6, 11: pinned units flip back, Bold Movement markers come off."""
    for uid in ev.unpinned:
        unmark(st.units[uid], "pinned")
    for uid in ev.unmarked:
        unmark(st.units[uid], "bold")


# UnitMoved and UnitEntered (4.0, 10.2): the core's effect alone (the unit on its path's last hex, moved)
REDUCERS: dict[type, Reducer] = {
    E.PhaseStarted: _phase,
    E.FortActivation: _activated,
    E.UnitPlaced: _placed,
    E.BoldMovement: _bold,
    E.FireDeclared: _fire_declared,
    E.FireResolved: _fire_resolved,
    E.FireLapsed: _lapsed,
    E.AssaultDeclared: _assault_declared,
    E.AssaultResolved: _assault_resolved,
    E.DemolitionDeclared: _demolition_declared,
    E.DemolitionResolved: _demolition_resolved,
    E.DeclarationsClosed: _closed,
    E.UnitEliminated: _eliminated,
    E.UnitAdvanced: _advanced,
    E.AdvanceDeclined: _declined,
    E.CombatFinished: _finished,
    E.UnitsReorganized: _reorganized,
}


_HANDLERS = Handlers("eben-emael", REDUCERS)


def reduce(st: EbenEmaelState, ev: E.Event, sc: Scenario) -> None:
    """After the core reducer: only what this game adds; an unknown game event raises (the game's
    ``reduce``, called for every event: each type's handler found once, ``Handlers``)."""
    fn = _HANDLERS[ev.__class__]
    if fn is not None:
        fn(st, ev, sc)
