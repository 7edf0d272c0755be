"""The family's part of applying an event (panzer-corps.txt rule numbers).

``PanzerCorps.apply`` runs the core reducer (pbem.core.reduce) first, then
``reduce`` here: one function per event type, looked up in ``REDUCERS``.
Only what this family adds is here; dice positions, phases, decisions,
sealed-secret commitments and where a moved, retreated, advanced, placed or
eliminated unit stands (the events' declared ``motion``) are the core's.
"""
from __future__ import annotations

from collections.abc import Callable

from pbem.core.reduce import Handlers
from pbem.core.state import Attack
from pbem.games.panzer_corps import events as E
from pbem.games.panzer_corps.state import DrawSlot, PanzerCorpsState, Sealed

St = PanzerCorpsState


# --- bookkeeping the combat results share ----------------------------------------------

def _owed_done(st: St, uid: str) -> None:
    """``uid`` has retreated or been eliminated: it no longer owes a retreat (9.5)
    or a removal (7.3); the attack moves on when nobody does."""
    if st.decision and uid in st.decision.units and st.decision.combat < 0:
        st.decision = None
    if not st.attacks or st.current >= len(st.attacks):
        return
    a = st.attacks[st.current]
    if uid in a.to_retreat:
        a.to_retreat.remove(uid)
        if not a.to_retreat:
            a.stage = {"retreat": "advance", "eliminate-defenders": "advance"}.get(a.stage, "done")
    if st.decision and uid in st.decision.units:
        # The answer ends this decision; units still owing a retreat are
        # looked at afresh (their options may have changed).
        st.decision = None


def _ex_done(st: St, uid: str) -> None:
    """EX (9.4): the attacker's loss is taken, then the defender's."""
    if not st.attacks or st.current >= len(st.attacks):
        return
    a = st.attacks[st.current]
    if a.stage == "ex-attacker" and uid in a.attackers:
        a.stage = "ex-defender"
    elif a.stage == "ex-defender" and uid in a.defenders:
        a.stage = "done"


# --- phases, movement (5.0, 8.0, 4.2; UnitMoved has only the core's effect) ---------------------------------------------------------

def _phase(st: St, ev: E.PhaseStarted) -> None:
    # 5.0: a new phase; 8.1(2) no unit has moved yet, 9.1(3) none has attacked or been attacked
    st.attacks = []
    st.declarations_closed = False
    st.current = 0
    st.picking = False
    for u in st.units.values():
        if u.moved or u.attacked or u.defended:     # read first: a write costs 4x a read, most are clear
            u.moved = u.attacked = u.defended = False


def _broke_off(st: St, ev: E.UnitBrokeOff) -> None:
    u = st.units[ev.unit]                       # El Alamein 4.2: off the map (the core's) for good
    u.gone, u.moved = "broke-off", True


# --- combat (9.x) -------------------------------------------------------------------------

def _declared(st: St, ev: E.AttackDeclared) -> None:
    # 9.1: the attack, its defenders as they stand now; 9.1(3) each unit attacks and is attacked once
    here = [u for u in st.units.values() if u.hex == ev.target and not u.eliminated]   # one pass over the units
    declared = [u.id for u in here if u.side != st.units[ev.attackers[0]].side]
    st.attacks.append(Attack(target=ev.target, attackers=list(ev.attackers), retreat=list(ev.retreat),
                             attacker_retreat=dict(ev.attacker_retreat), advance=ev.advance,
                             advance_path=list(ev.advance_path),
                             advance_more=[list(g) for g in ev.advance_more], ex_loss=ev.ex_loss,
                             defenders=declared))
    for a in ev.attackers:
        st.units[a].attacked = True
    for u in here:
        u.defended = True


def _closed(st: St, ev: E.DeclarationsClosed) -> None:
    st.declarations_closed = True               # 9.1(5) (Khar'kov, Compass 9.1(6)): all attacks declared first


def _resolved(st: St, ev: E.CombatResolved) -> None:
    # 9.4: what the result leaves to do
    a = st.attacks[ev.index]
    a.result, a.defenders = ev.result, list(ev.defenders)
    if ev.result == "AR":
        a.stage, a.to_retreat, a.distance = "attacker-retreat", list(ev.attackers), 1
    elif ev.result.startswith("DR"):
        a.stage, a.to_retreat, a.distance = "retreat", list(ev.defenders), int(ev.result[2:])
    elif ev.result == "DE":
        a.stage, a.to_retreat = "eliminate-defenders", list(ev.defenders)
    elif ev.result == "AE":
        a.stage, a.to_retreat = "eliminate-attackers", list(ev.attackers)
    elif ev.result == "EX":
        a.stage = "ex-attacker"
    else:                                          # C (contact): nothing happens
        a.stage = "done"


def _retreated(st: St, ev: E.UnitRetreated) -> None:
    st.units[ev.unit].disrupted = True          # 9.5(4), 9.7(1); the core moved it
    _owed_done(st, ev.unit)


def _eliminated(st: St, ev: E.UnitEliminated) -> None:
    st.units[ev.unit].disrupted = False         # the core took it off the map
    _ex_done(st, ev.unit)
    _owed_done(st, ev.unit)


def _advanced(st: St, ev: E.UnitAdvanced) -> None:
    st.attacks[st.current].stage = "done"       # 9.6; the core moved it
    st.decision = None


def _declined(st: St, ev: E.AdvanceDeclined) -> None:
    st.attacks[ev.index].stage = "done"         # 9.6(1): advancing is optional
    st.decision = None


def _finished(st: St, ev: E.CombatFinished) -> None:
    # 9.2: this combat is over; the next one not yet resolved, in declaration order
    # (while the attacker names them, 9.1(5), it waits there to be chosen)
    st.attacks[ev.index].stage = "finished"
    st.current = next((i for i, a in enumerate(st.attacks) if a.stage == "declared"), len(st.attacks))


def _chosen(st: St, ev: E.CombatChosen) -> None:
    # 9.1(5): the attacker resolves the combats in any order; ``in_order`` returns to the default
    st.current = ev.index
    st.attacks[ev.index].stage = "chosen"
    st.picking = not ev.in_order


def _recovered(st: St, ev: E.UnitsRecovered) -> None:
    for uid in ev.units:                        # 9.7(3)
        st.units[uid].disrupted = False


def _disrupted(st: St, ev: E.UnitsDisrupted) -> None:
    for uid in ev.units:                        # Compass 3.1: the naval bombardment
        st.units[uid].disrupted = True
    if st.decision is not None and st.decision.kind == "bombardment":
        st.decision = None


# --- secrets and the hidden draw (Dunkerque 3.0(4), 10.0(2)) -----------------------------------------

def _sealed(st: St, ev: E.SecretRecorded) -> None:
    if ev.side == "referee":                    # the host's copy: what to unveil when the unit enters
        st.sealed[ev.name] = Sealed(salt=ev.salt, payload=ev.payload)


def _unveiled(st: St, ev: E.SecretRevealed) -> None:
    st.sealed.pop(ev.name, None)


def _drawn(st: St, ev: E.HiddenDraw) -> None:
    # The host's copy names the units; a copy without them (never replayed by the
    # engine) still marks the draw as made.
    st.draws[ev.name] = [DrawSlot(turn=t, unit=u) for t, u in zip(ev.slots, ev.units)]


# --- set-up and reinforcements (3.x, 10.0) -------------------------------------------------------------

def _set_up(st: St, ev: E.UnitSetUp) -> None:
    st.units[ev.unit].waiting = ""              # Khar'kov 3.0(4), Compass 3.0(3), 3.2; the core placed it
    d = st.decision
    if d is not None and ev.unit in d.units:
        d.units.remove(ev.unit)
        if not d.units:
            st.decision = None


def _entered(st: St, ev: E.ReinforcementEntered) -> None:
    u = st.units[ev.unit]                       # 10.0(3); 10.0(4): pinned when placed in an enemy ZOC
    u.waiting, u.entered_turn = "", st.turn     # the core placed it
    if ev.pinned:
        u.pinned_turn = st.turn
    d = st.decision
    if d is not None and d.kind == "reinforcement":
        d.distance -= 1
        if d.distance <= 0:
            st.decision = None


def _delayed(st: St, ev: E.ReinforcementDelayed) -> None:
    if st.decision is not None and st.decision.kind == "reinforcement":    # 10.0(2), 10.0(7)
        st.decision = None


def _nothing(st: St, ev: E.Event) -> None:
    """Nothing beyond the core: the rolls (Compass 3.1(1)) advance the dice there."""


# --- victory: points, control, lines (4.x) -------------------------------------------------------------

def _scored(st: St, ev: E.PointsScored) -> None:
    st.score[ev.side] = st.score.get(ev.side, 0) + ev.points
    if ev.mark:                                 # Khar'kov 4.2(1), 4.4
        st.point_marks[ev.mark] = st.point_marks.get(ev.mark, 0) + ev.points


def _controlled(st: St, ev: E.HexControlled) -> None:
    st.control[ev.hex] = ev.side                # Khar'kov 4.1(2), Compass 4.1(2)


def _line(st: St, ev: E.ConnectingLine) -> None:
    u = st.units.get(ev.subject)
    if u is not None:                           # a unit's line (Dunkerque 4.1): shown with its status
        u.marks = list(u.marks) + [f"line to {ev.to}" if ev.traced else "cut off"]


# UnitMoved (8.0): the core's effect alone (the unit on its path's last hex, moved)
REDUCERS: dict[type, Callable[[St, E.Event], None]] = {
    E.PhaseStarted: _phase, E.UnitBrokeOff: _broke_off,
    E.AttackDeclared: _declared, E.DeclarationsClosed: _closed, E.CombatResolved: _resolved,
    E.UnitRetreated: _retreated, E.UnitEliminated: _eliminated, E.UnitAdvanced: _advanced,
    E.AdvanceDeclined: _declined, E.CombatFinished: _finished, E.CombatChosen: _chosen, E.UnitsRecovered: _recovered,
    E.SecretRecorded: _sealed, E.SecretRevealed: _unveiled, E.HiddenDraw: _drawn,
    E.UnitSetUp: _set_up, E.ReinforcementEntered: _entered, E.ReinforcementDelayed: _delayed,
    E.BombardmentRolled: _nothing, E.UnitsDisrupted: _disrupted,
    E.PointsScored: _scored, E.HexControlled: _controlled, E.ConnectingLine: _line,
}


def handlers(game: str) -> Handlers:
    """``REDUCERS`` for the game's ``reduce`` (family.py), called for every event: the family's part
    of applying it, each type's handler found once; a core event it adds nothing to passes, any
    other unknown event raises (``Handlers``, as ``no_reducer``)."""
    return Handlers(game, REDUCERS)
