"""A check's view of a Formation Series game (core/known.py): the state as one
side may know it under limited intelligence (5.3.4), and where a check stops.

The core already takes the units beneath the top of an enemy stack off the
map and gives every enemy unit its printed strength (``intel.unit_row``).
Here, for every other side: no standing orders (6.5, 5.2, 7.4: the rules ask);
a paused enemy move without its remaining path, its movement points or the
units under its top (6.5.1); an enemy attack without its participants while
the defender has not decided on retreat before combat (7.4.1.1: the visible
top of the attacking hex stands in) and without the attacker's inline
answers (escalation, hold or withdraw); an enemy activation without the units
that may spend Battle Victory APs (7.4.3).

A check stops (``check_stop``) where the real order could show what these
stand-ins hide: an answer to a paused enemy move (the rest of it is the
mover's, 6.5.1); a Movement Action of the Initiative player that enters or
leaves a hex next to an enemy stack (a reaction may come: the enemy's
standing orders decide, and units beneath its stacks may react, 6.5.1); an
attack on a stack whose top is no HQ (declaring it shows the defenders,
5.3.4); a combat left to the attacker's escalation (its inline answer may
carry it on, 7.4.1 C).
"""
from __future__ import annotations

import msgspec

from pbem.core.events import Event
from pbem.core.orders import Order
from pbem.core.scenario import Scenario
from pbem.games.formation import combat_events as CE
from pbem.games.formation import events as E
from pbem.games.formation.board import is_hq
from pbem.games.formation.combat_state import Combat
from pbem.games.formation.intel import top_unit
from pbem.games.formation.state import FormationState

_DEFAULT = Combat(side="", formation="", hex="", target="", attackers=[], defenders=[])


def known(k: FormationState, st: FormationState, sc: Scenario, viewer: str) -> None:
    """The Formation Series' part of ``Ruleset.known``: ``k`` (a copy of ``st``) as ``viewer`` may know it."""
    fm = k.fm
    fm.doctrines = {s: d for s, d in fm.doctrines.items() if s == viewer}
    p = fm.paused
    if p is not None and p.side == viewer:              # we react: the mover's plan and stack are its own
        fm.paused = msgspec.structs.replace(p, rest=[], mp_left="0", units=p.units[:1])
    cb = fm.combat
    if cb is not None and cb.side != viewer:
        if cb.stage == "rbc":
            top = top_unit(st, sc, cb.hex, cb.side)
            cb.attackers = [top] if top else []
        cb.escalate, cb.loss = _DEFAULT.escalate, _DEFAULT.loss
    for act in (fm.active, fm.suspended, *fm.interrupted):
        if act is not None and act.side != viewer:
            act.bonus_units = []


def check_stop(before: FormationState, after: FormationState, events: list[Event], sc: Scenario, side: str,
               order: Order) -> str:
    """Where the real order could reveal what the known state hides (see the module's text)."""
    p = before.fm.paused
    if p is not None and p.side == side:
        return "the rest of the paused move is the mover's own plan (6.5.1)"
    act = before.fm.active
    reactable = act is not None and act.side == side and not act.reaction and not act.defender   # 7.4.3
    grid = sc.board.grid
    enemy = {u.hex for u in before.units.values() if u.side != side and u.hex and not u.eliminated}
    for ev in events:
        if isinstance(ev, E.StackMoved) and ev.side == side and reactable and not ev.free:
            start = before.units[ev.units[0]].hex if ev.units and ev.units[0] in before.units else None
            near = [h for h in [start, *ev.path] if h and any(n in enemy for n in grid.neighbours(h))]
            if near:
                return (f"the move comes next to an enemy stack in {near[0]}: a reaction may answer it, by "
                        "standing orders you cannot see or with units beneath the top (6.5.1, 5.3.4)")
        if isinstance(ev, CE.CombatDeclared) and ev.side == side:
            top = top_unit(before, sc, ev.target, next(s for s in sc.side_ids() if s != side))
            if not (top and is_hq(sc, top)):
                return f"declaring the attack shows you the whole defending stack in {ev.target} (5.3.4)"
    cb = after.fm.combat
    if cb is not None and cb.side != side and cb.stage == "escalate":
        return "the attacker's own answers, which you cannot see, may carry the combat on (7.4.1 C)"
    return ""
