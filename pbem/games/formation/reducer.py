"""The Formation Series part of applying an event (after the core reducer): one
small function per event type; the combat events' functions come from M2's
``COMBAT_REDUCERS``.  Where a stack move, a retreat before combat, a displaced HQ,
a reinforcement or an elimination leaves its units is the core's (their declared
``motion``); what reads the hex a unit leaves runs before it (``reduce_before``)."""
from __future__ import annotations

from collections.abc import Callable

from pbem.core.reduce import Handlers, no_reducer
from pbem.core.scenario import Scenario
from pbem.games.formation import events as E
from pbem.games.formation.board import formation_of, gd, hq_formation
from pbem.games.formation.combat import COMBAT_BEFORE, COMBAT_REDUCERS
from pbem.games.formation.state import Activation, FormationState, Paused, other


STEP_OF_PHASE = {"admin": "admin", "ops": "ops-choose", "end-of-turn": "end-of-turn"}


def phase_started(st: FormationState, ev: E.PhaseStarted, sc: Scenario) -> None:
    fm = st.fm
    fm.step = STEP_OF_PHASE.get(ev.name, ev.name)
    if ev.name == "admin":
        fm.admin_side = "axis"                 # 14.1: the Axis player receives reinforcements first
    if ev.name == "ops":
        # 6.1 / 9: the initiative markers start the Ops Phase on the 0 space
        fm.init_drm, fm.init_drm_side, fm.in_row, fm.in_row_side = 0, "", 0, ""
        fm.transfers, fm.transfer_side, fm.cycle, fm.initiative, fm.by_transfer = 0, "", 0, "", False
        fm.active = fm.suspended = None
        fm.paused = None
    if ev.name == "end-of-turn":
        fm.active = fm.suspended = None


def doctrine_set(st: FormationState, ev: E.DoctrineSet, sc: Scenario) -> None:
    book = st.fm.doctrines.setdefault(ev.side, {})
    if ev.text in ("", "none"):
        book.pop(ev.topic, None)
    else:
        book[ev.topic] = ev.text


def initiative(st: FormationState, ev: E.InitiativeDetermined, sc: Scenario) -> None:
    fm = st.fm
    if not fm.by_transfer:
        fm.transfers, fm.transfer_side = 0, ""     # 6.2: the last cycle had no transfer: the run ends
    fm.cycle = ev.cycle
    fm.initiative = ev.winner
    fm.by_transfer = False
    fm.init_drm_side, fm.init_drm = ev.drm_side, ev.drm
    if fm.in_row_side == ev.winner:
        fm.in_row += 1
    else:
        fm.in_row_side, fm.in_row = ev.winner, 1
    fm.step = "ops-choose"


def transferred(st: FormationState, ev: E.InitiativeTransferred, sc: Scenario) -> None:
    fm = st.fm
    fm.initiative = ev.to
    fm.by_transfer = True
    if fm.transfer_side == ev.to:
        fm.transfers += 1
    else:
        fm.transfer_side, fm.transfers = ev.to, 1


def activated(st: FormationState, ev: E.FormationActivated, sc: Scenario) -> None:
    fm = st.fm
    f = fm.formations[ev.formation]
    f.level = ev.new_level
    f.oos = not ev.in_supply
    act = Activation(formation=ev.formation, side=ev.side, ap=ev.ap, reaction=ev.reaction)
    if ev.marker >= 0:
        # 6.4.1 optional: drawn markers stay out; at two left the cup is refilled
        n = len(gd(sc).ap_markers.get(ev.side, []))
        cup = [i for i in (fm.cups.get(ev.side) or list(range(n))) if i != ev.marker]
        fm.cups[ev.side] = cup if len(cup) > 2 else list(range(n))
    if ev.reaction:
        fm.suspended = fm.active
    fm.active = act
    fm.step = "actions"


def activation_ended(st: FormationState, ev: E.ActivationEnded, sc: Scenario) -> None:
    fm = st.fm
    # 3.1.3: a friendly strongpoint left unoccupied at the end of a friendly activation is depleted
    points = gd(sc).strongpoints
    if points:
        held = {u.hex for u in st.units.values() if u.side == ev.side and not u.eliminated}
        for h, sp in points.items():
            if sp.side == ev.side and h not in fm.depleted and h not in held:
                fm.depleted.append(h)
                fm.depleted.sort()
    fm.active = fm.suspended
    fm.suspended = None
    fm.step = "actions" if fm.active is not None else "ops-choose"
    if fm.active is None:
        fm.initiative = ""


def ops_ended(st: FormationState, ev: E.OpsPhaseEnded, sc: Scenario) -> None:
    st.fm.step = "end-of-turn"
    st.fm.active = st.fm.suspended = None


def ap_spent(st: FormationState, ev: E.APSpent, sc: Scenario) -> None:
    act = st.fm.active
    if act is None:
        return
    act.bonus -= ev.bonus
    act.ap -= ev.ap - ev.bonus
    if "move" in ev.action:                       # a movement action, screen movement included
        act.moves += 1
        st.fm.reacted = False
    if act.bonus <= 0:
        act.bonus, act.bonus_units = 0, []


def _leave(st: FormationState, h: str, reason: str) -> None:
    if h in st.fm.improved:
        st.fm.improved.remove(h)


def stack_leaving(st: FormationState, ev: E.StackMoved, sc: Scenario) -> None:
    start = st.units[ev.units[0]].hex
    if ev.path and start:
        _leave(st, start, "left")              # 7.6: a unit leaves the hex


def stack_moved(st: FormationState, ev: E.StackMoved, sc: Scenario) -> None:
    if not ev.path:
        return
    _deplete(st, sc, ev.units, ev.path)
    for h in ev.path:
        _unblock(st, sc, ev.units, h)
    if ev.ends:                                # 7.6: the rules log the marker it removes (ImprovedDefense)
        _blocks(st, sc, ev.units, ev.path[-1])


def _blocks(st: FormationState, sc: Scenario, units: list[str], h: str) -> None:
    """5.7.3: an enemy ending a Movement Action on a supply source blocks it."""
    side = st.units[units[0]].side
    if h in gd(sc).supply_sources.get(other(side), []) and h not in st.fm.blocked:
        st.fm.blocked.append(h)
        st.fm.blocked.sort()


def _unblock(st: FormationState, sc: Scenario, units: list[str], h: str) -> None:
    """5.7.3: a friendly unit entering clears the marker (not Bardia's, lost for good: Mirages 15)."""
    side = st.units[units[0]].side
    if h in st.fm.blocked and h in gd(sc).supply_sources.get(side, []) and h not in gd(sc).bardia:
        st.fm.blocked.remove(h)


def _deplete(st: FormationState, sc: Scenario, units: list[str], path: list[str]) -> None:
    """3.1.3: a strongpoint entered by an enemy unit is depleted for good."""
    side = st.units[units[0]].side
    for h in path:
        sp = gd(sc).strongpoints.get(h)
        if sp is not None and sp.side != side and h not in st.fm.depleted:
            st.fm.depleted.append(h)
            st.fm.depleted.sort()


def paused(st: FormationState, ev: E.ReactionPaused, sc: Scenario) -> None:
    st.fm.paused = Paused(side=ev.side, units=list(ev.units), at=ev.at, rest=list(ev.rest),
                          formations=list(ev.formations), leaving=ev.leaving, mp_left=ev.mp_left, screen=ev.screen)
    st.fm.step = "paused"


def declined(st: FormationState, ev: E.ReactionDeclined, sc: Scenario) -> None:
    st.fm.reacted = True


def attempted(st: FormationState, ev: E.ReactionAttempted, sc: Scenario) -> None:
    st.fm.reacted = True


def resumed(st: FormationState, ev: E.MoveResumed, sc: Scenario) -> None:
    st.fm.paused = None
    st.fm.step = "actions"


def stopped(st: FormationState, ev: E.MoveStopped, sc: Scenario) -> None:
    st.fm.paused = None
    st.fm.step = "actions"
    _blocks(st, sc, ev.units, ev.at)            # the stopped move ends here (6.5.3: Improved Defense stays)


def hq_displaced(st: FormationState, ev: E.HQDisplaced, sc: Scenario) -> None:
    f = st.fm.formations[ev.formation]
    f.support, f.level = ev.support, ev.level


def ec_rolled(st: FormationState, ev: E.ECRolled, sc: Scenario) -> None:
    u = st.units[ev.unit]
    if ev.disrupts:
        u.disrupted = True
        if u.hex:
            _leave(st, u.hex, "disrupted")     # 7.6: a unit in the hex becomes disrupted
    if ev.recovers:
        u.disrupted = False
    if ev.step_loss:
        u.strength -= 1
    if ev.eliminated:
        if u.hex:
            _leave(st, u.hex, "eliminated")
        u.eliminated, u.strength, u.hex = True, 0, None


def improved(st: FormationState, ev: E.ImprovedDefense, sc: Scenario) -> None:
    if ev.on and ev.hex not in st.fm.improved:
        st.fm.improved.append(ev.hex)
        st.fm.improved.sort()
    elif not ev.on and ev.hex in st.fm.improved:
        st.fm.improved.remove(ev.hex)


def vp_scored(st: FormationState, ev: E.VPScored, sc: Scenario) -> None:
    st.fm.vp = ev.total
    st.score[ev.side] = ev.total             # 16: only the scorer earns VPs; the score at every moment
    if ev.hex not in st.fm.scored:
        st.fm.scored.append(ev.hex)


def admin_begun(st: FormationState, ev: E.AdminBegun, sc: Scenario) -> None:
    st.fm.snafu, st.fm.snafu_used = ev.snafu, False
    st.fm.sp_done = False
    st.fm.scored = []
    st.fm.cups = {}                            # 9.2: both AP marker cups refilled
    for u in st.units.values():
        if u.moved:                            # read first: a write costs 4x a read
            u.moved = False


def recovered(st: FormationState, ev: E.FormationRecovered, sc: Scenario) -> None:
    f = st.fm.formations[ev.formation]
    f.level, f.oos = ev.level, not ev.in_supply


def disruption_recovered(st: FormationState, ev: E.DisruptionRecovered, sc: Scenario) -> None:
    for uid in ev.units:
        st.units[uid].disrupted = False


def schwerpunkt(st: FormationState, ev: E.SchwerpunktPlaced, sc: Scenario) -> None:
    st.fm.schwerpunkt = ev.formation
    st.fm.sp_done = st.fm.sp_done or ev.organized


def entered(st: FormationState, ev: E.ReinforcementEntered, sc: Scenario) -> None:
    u = st.units[ev.unit]                      # the core placed it
    u.waiting = ""
    u.entered_turn = st.turn
    back = st.fm.off_map.pop(ev.unit, None) is not None
    f = formation_of(sc, ev.unit)
    fr = st.fm.formations.get(f)
    if fr is not None and fr.removed:
        fr.removed = False
    if fr is not None and not back and hq_formation(sc, ev.unit) == f:
        # 9.4.3 / 14.2: a new reinforcing formation's marker starts on its maximum
        fr.level = gd(sc).formations[f].max_level


def substitute(st: FormationState, ev: E.SubstituteHQ, sc: Scenario) -> None:
    old, new = st.units[ev.old], st.units[ev.new]     # the core placed the new one
    new.waiting = ""
    old.hex, old.eliminated = None, True
    old.gone = "replaced"
    f = st.fm.formations[ev.formation]
    f.level, f.substituted, f.removed = ev.level, True, False


def admin_done(st: FormationState, ev: E.AdminSideDone, sc: Scenario) -> None:
    st.fm.admin_side = "allied" if ev.side == "axis" else ""


def snafu_used(st: FormationState, ev: E.SnafuUsed, sc: Scenario) -> None:
    st.fm.snafu = other(ev.holder)             # 5.2: the marker is handed to the opponent
    st.fm.snafu_used = True


def leaving(st: FormationState, ev: E.UnitEliminated, sc: Scenario) -> None:
    u = st.units[ev.unit]
    if u.hex:
        _leave(st, u.hex, "eliminated")        # 7.6: the unit leaves the hex


def eliminated(st: FormationState, ev: E.UnitEliminated, sc: Scenario) -> None:
    f = hq_formation(sc, ev.unit)
    if f and f in st.fm.formations:
        st.fm.formations[f].removed = True     # 3.3: the HQ leaves with its last unit
        if st.fm.schwerpunkt == f:
            st.fm.schwerpunkt = ""             # 5.9: the marker waits for the next turn


def nothing(st: FormationState, ev: E.Event, sc: Scenario) -> None:
    """Facts for the report only (the state changes through the events after them)."""


REDUCERS: dict[type, Callable] = {
    E.PhaseStarted: phase_started, E.DoctrineSet: doctrine_set, E.InitiativeDetermined: initiative,
    E.InitiativeTransferred: transferred, E.FormationActivated: activated, E.ActivationEnded: activation_ended,
    E.OpsPhaseEnded: ops_ended, E.APSpent: ap_spent, E.StackMoved: stack_moved, E.ReactionPaused: paused,
    E.ReactionDeclined: declined, E.ReactionAttempted: attempted, E.MoveResumed: resumed, E.MoveStopped: stopped,
    E.HQDisplaced: hq_displaced, E.ECRolled: ec_rolled, E.ImprovedDefense: improved, E.VPScored: vp_scored,
    E.AdminBegun: admin_begun, E.FormationRecovered: recovered, E.DisruptionRecovered: disruption_recovered,
    E.SchwerpunktPlaced: schwerpunkt, E.ReinforcementEntered: entered, E.SubstituteHQ: substitute,
    E.AdminSideDone: admin_done, E.SnafuUsed: snafu_used, E.UnitEliminated: eliminated,
    E.GameEnded: nothing,
}
REDUCERS.update(COMBAT_REDUCERS)


# What reads the hex a unit leaves, before the core part moves it (Ruleset.reduce_before)
BEFORE: dict[type, Callable] = {E.StackMoved: stack_leaving, E.UnitEliminated: leaving}
BEFORE.update(COMBAT_BEFORE)


def reduce_before(st: FormationState, ev: E.Event, sc: Scenario) -> None:
    fn = BEFORE.get(type(ev))
    if fn is not None:
        fn(st, ev, sc)


def reduce(game: str, st: FormationState, ev: E.Event, sc: Scenario) -> None:
    fn = REDUCERS.get(type(ev))
    if fn is None:
        no_reducer(game, ev)
        return
    fn(st, ev, sc)


_HANDLERS = Handlers("mirages", REDUCERS)


def reduce_event(st: FormationState, ev: E.Event, sc: Scenario) -> None:
    """``reduce`` as the game's ``reduce`` (replay calls it for every event: each type's handler
    found once, ``Handlers``)."""
    fn = _HANDLERS[ev.__class__]
    if fn is not None:
        fn(st, ev, sc)
