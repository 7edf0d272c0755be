"""The Red Devils reducer: what this game's rules add to an event, run after the
core reducer (pbem.core.reduce, which has already set the phase, decisions,
secrets and dice).  One function per event type, found in ``REDUCERS``."""
from __future__ import annotations

from collections.abc import Callable

from pbem.core.reduce import Handlers
from pbem.core.scenario import Scenario
from pbem.core.state import Attack, Decision
from pbem.games.red_devils import events as E
from pbem.games.red_devils.airborne import POLISH_SECRET, landing_due
from pbem.games.red_devils.state import Doctrine, Pending, RedDevilsState
from pbem.games.red_devils.terrain import crossings, terrain


def _owed_done(st: RedDevilsState, uid: str) -> None:
    """A unit that owed a retreat (or an answer) has paid it."""
    if st.decision is not None and uid in st.decision.units:
        st.decision = None
    if not st.attacks or st.current >= len(st.attacks):
        return
    a = st.attacks[st.current]
    if uid in a.to_retreat:
        a.to_retreat.remove(uid)
        if not a.to_retreat and a.stage in ("defender", "attacker", "attacker-retreat"):
            a.stage = "advance"


def _phase(st: RedDevilsState, ev: E.PhaseStarted, sc: Scenario) -> None:
    """3.0: a new phase; 4.6 a new player-turn's swim; 9.0 the landing that begins it."""
    st.attacks, st.current = [], 0
    for u in st.units.values():
        if u.moved or u.attacked or u.defended:           # read first: a write costs 4x a read
            u.moved = u.attacked = u.defended = False
    st.fired, st.hit, st.mode, st.pending = [], [], {}, None
    if ev.name == "movement":
        st.swim = False
    if ev.name == "movement" and ev.side == "british":
        st.landing = landing_due(st, sc, ev.turn)


def _placed(st: RedDevilsState, ev: E.UnitPlaced, sc: Scenario) -> None:
    st.dz[ev.unit] = ev.hex                               # 1.2


def _doctrine(st: RedDevilsState, ev: E.DoctrineSet, sc: Scenario) -> None:
    # 5.0; the exceptions sorted by unit, as the next DoctrineSet writes them back
    st.doctrine[ev.side] = Doctrine(default=ev.default, units=dict(sorted(ev.units.items())), retreat=ev.retreat,
                                    bridge=ev.bridge)


def _landed(st: RedDevilsState, ev: E.UnitLanded, sc: Scenario) -> None:
    st.landed[ev.unit] = st.turn                          # 9.0, 9.6 (the core placed it)
    if st.landing is not None:
        st.landing.placed.append(ev.unit)


def _landing_rolled(st: RedDevilsState, ev: E.AirLandingResolved, sc: Scenario) -> None:
    if st.landing is not None:
        st.landing.resolved.append(ev.unit)               # 9.9
        if len(st.landing.resolved) == len(st.landing.units):
            st.landing = None
            st.fired, st.hit = [], []                     # 9.3 fire is not the movement phase's (our reading)


def _crossed(st: RedDevilsState, ev: E.UnitMoved, sc: Scenario) -> None:
    """Before the core moves the unit: the ferry or the unbridged Rijn on its way from where it stood
    (the hexsides of ``terrain.crossings``: a move that touches none of their hexes crosses none)."""
    here = st.units[ev.unit].hex
    sides, ends = crossings(sc)
    if here not in ends and ends.isdisjoint(ev.path):
        return
    trail = ([here] if here else []) + list(ev.path)
    for a, b in zip(trail, trail[1:]):
        kind = sides.get((a, b) if a < b else (b, a))
        if kind == "ferry":
            st.ferry_turn = st.turn                       # 4.7 one unit per game-turn
        elif kind == "unbridged" or (kind == "rail" and st.bridge == "destroyed"):
            st.swim = True                                # 4.6 one crossing per player-turn (11.0)


def _moved(st: RedDevilsState, ev: E.UnitMoved, sc: Scenario) -> None:
    st.exited.pop(ev.unit, None)                          # 4.5: back on the map (the core moved it)


def _exited(st: RedDevilsState, ev: E.UnitExited, sc: Scenario) -> None:
    st.units[ev.unit].moved = True                        # the core took it off the map
    st.exited[ev.unit] = [str(st.turn), ev.letter]        # 4.5


def _paused(st: RedDevilsState, ev: E.MovePaused, sc: Scenario) -> None:
    # 5.0, 5.1, 9.3, 11.0: the move waits; MovePaused is this game's DecisionRequired
    st.pending = Pending(unit=ev.unit, hex=ev.hex, question=ev.question, firers=list(ev.firers),
                         remaining=list(ev.remaining), costs=list(ev.costs), spent=ev.spent, ma=ev.ma, mode=ev.mode,
                         swim=ev.swim, off=ev.off, context=ev.context, then=ev.then)
    kind = "opportunity-fire" if ev.question == "fire" else "bridge"
    st.decision = Decision(side=ev.side, kind=kind, combat=-1, units=[ev.unit],
                           options=[[f] for f in ev.firers], rule=ev.rule)


def _fired(st: RedDevilsState, ev: E.OpportunityFire, sc: Scenario) -> None:
    st.fired.append(f"{ev.firer}>{ev.target}")            # 5.2 once per target
    if ev.by == "answer":
        st.decision, st.pending = None, None


def _held(st: RedDevilsState, ev: E.OpportunityFirePassed, sc: Scenario) -> None:
    if ev.by == "answer":
        st.decision, st.pending = None, None


def _demolition(st: RedDevilsState, ev: E.BridgeDemolition, sc: Scenario) -> None:
    st.bridge = "destroyed" if ev.destroyed else "intact"    # 11.0
    st.decision, st.pending = None, None


def _disrupted(st: RedDevilsState, ev: E.UnitDisrupted, sc: Scenario) -> None:
    st.units[ev.unit].disrupted = True
    if ev.rule.startswith("5.") or ev.rule.startswith("9.3"):
        st.hit.append(ev.unit)                            # 5.3 fires no more at it this phase
    if ev.rule.startswith("9.3"):
        st.fire_disrupted.append(ev.unit)
    _owed_done(st, ev.unit)


def _declared(st: RedDevilsState, ev: E.AttackDeclared, sc: Scenario) -> None:
    st.attacks.append(Attack(target=ev.target, attackers=list(ev.attackers), advance=ev.advance,
                             advance_path=list(ev.advance_path)))
    st.current = len(st.attacks) - 1
    for a in ev.attackers:
        st.units[a].attacked = True                       # 6.3
    for u in st.units.values():
        if u.hex == ev.target and not u.eliminated:
            u.defended = True                             # 6.4


def _resolved(st: RedDevilsState, ev: E.CombatResolved, sc: Scenario) -> None:
    a = st.attacks[ev.index]
    a.result, a.defenders = ev.result, list(ev.defenders)
    res = ev.result
    if res == "De*":
        res = "Dd" if terrain(sc, ev.target) == "city" else "De"      # 7.6
    if res in ("Dd", "De"):
        owe = list(ev.defenders)
        if res == "Dd":
            # 8.2: an already disrupted unit in a city is not affected by a disruption result
            owe = [d for d in owe if not (st.units[d].disrupted and terrain(sc, ev.target) == "city")]
        a.stage, a.to_retreat, a.distance = "defender", owe, 2
        a.attacker_retreat = {"kind": [res]}
    elif res in ("Ae", "Ad"):
        adj = [x for x in ev.attackers if sc.board.grid.adjacent(st.units[x].hex, ev.target)]
        a.stage, a.to_retreat, a.distance = "attacker", adj, 2
        a.attacker_retreat = {"kind": [res], "hexes": [st.units[x].hex for x in adj]}
    else:
        a.stage = "done"
    if a.stage != "done" and not a.to_retreat:
        a.stage = "advance"


def _retreated(st: RedDevilsState, ev: E.UnitRetreated, sc: Scenario) -> None:
    if st.attacks and st.current < len(st.attacks):       # the core moved it
        a = st.attacks[st.current]
        if ev.unit in a.defenders:
            a.retreat = list(ev.path)
        elif a.stage == "attacker":
            a.stage = "attacker-retreat"                  # 7.6 Ad: all retreat once one has
    _owed_done(st, ev.unit)


def _eliminated(st: RedDevilsState, ev: E.UnitEliminated, sc: Scenario) -> None:
    u = st.units[ev.unit]                                 # the core took it off the map
    u.disrupted = False
    if u.side == "german":                                # 12.1: one British VP as each German unit goes
        st.score["british"] = st.score.get("british", 0) + 1
    lg = st.landing
    if lg is not None and ev.unit in lg.units and ev.unit not in lg.placed:
        lg.units.remove(ev.unit)                          # lost in the drop: no legal hex (9.2, 9.8)
        if not lg.units:
            st.landing = None
    _owed_done(st, ev.unit)


def _advanced(st: RedDevilsState, ev: E.UnitAdvanced, sc: Scenario) -> None:
    st.attacks[st.current].stage = "done"                 # 7.8 (the core moved it)
    st.decision = None


def _declined(st: RedDevilsState, ev: E.AdvanceDeclined, sc: Scenario) -> None:
    st.attacks[ev.index].stage = "done"
    st.decision = None


def _finished(st: RedDevilsState, ev: E.CombatFinished, sc: Scenario) -> None:
    st.attacks[ev.index].stage = "finished"
    st.decision = None


def _recovered(st: RedDevilsState, ev: E.UnitsRecovered, sc: Scenario) -> None:
    for uid in ev.units:
        st.units[uid].disrupted = False                   # 8.0, 8.5
    st.decision = None


def _counted(st: RedDevilsState, ev: E.VictoryCounted, sc: Scenario) -> None:
    st.vp = {"total": ev.total}                           # 12.0
    st.score = {"british": ev.total}                      # the hexes and the units left count only now


def _revealed(st: RedDevilsState, ev: E.SecretRevealed, sc: Scenario) -> None:
    if ev.name == POLISH_SECRET and ev.side == "british":
        st.polish_dz = ev.payload.split()                 # 9.7


REDUCERS: dict[type, Callable[[RedDevilsState, E.Event, Scenario], None]] = {
    E.PhaseStarted: _phase, E.UnitPlaced: _placed, E.DoctrineSet: _doctrine, E.UnitLanded: _landed,
    E.AirLandingResolved: _landing_rolled, E.UnitMoved: _moved, E.UnitExited: _exited, E.MovePaused: _paused,
    E.OpportunityFire: _fired, E.OpportunityFirePassed: _held, E.BridgeDemolition: _demolition,
    E.UnitDisrupted: _disrupted, E.AttackDeclared: _declared, E.CombatResolved: _resolved,
    E.UnitRetreated: _retreated, E.UnitEliminated: _eliminated, E.UnitAdvanced: _advanced,
    E.AdvanceDeclined: _declined, E.CombatFinished: _finished, E.UnitsRecovered: _recovered,
    E.VictoryCounted: _counted, E.SecretRevealed: _revealed,
}


_HANDLERS = Handlers("red-devils", REDUCERS)


def reduce_before(st: RedDevilsState, ev: E.Event, sc: Scenario) -> None:
    """What reads where a unit stood before the core part moves it (Ruleset.reduce_before, called
    for every event): the crossings of a move (4.6, 4.7)."""
    if ev.__class__ is E.UnitMoved:
        _crossed(st, ev, sc)


def reduce(st: RedDevilsState, ev: E.Event, sc: Scenario) -> None:
    """This game's part of applying ``ev`` (after the core part); an event it does not know raises,
    unless a core one (``Handlers``: each event type's reducer found once)."""
    fn = _HANDLERS[ev.__class__]
    if fn is not None:
        fn(st, ev, sc)
