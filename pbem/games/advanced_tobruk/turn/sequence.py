"""The sequence of play (5): set-up, then each turn's Combat Segment (indirect
fire - an empty automatic phase unless the scenario has indirect fire, indirect.py -
and direct fire), Movement Segment
(movement, then final opportunity fire), Close Assault Segment (infiltration,
melee) and End of Turn Segment.

Each alternating phase begins with the first-fire / first-move roll (5.031,
6.21): both sides roll a die, the lower goes first, a tie is rolled again (the
text leaves ties open).  The sides then alternate one activation at a time -
one unit, platoon or firegroup (5.121, 5.21) - and a side that has finished
passes; the other completes (5.131, 5.22).  A side with nothing left it could
do is passed by the rules (``Passed(auto=True)``), so that a mail is never
asked for a choice that does not exist.  Final opportunity fire (6.65) has no
roll: the units with standing orders that decide fire first (standing.py), then
the side that would have moved next acts first.  The Movement Segment may not be
passed while a broken unit still owes its move towards safety (11.131)."""
from __future__ import annotations

from pbem.core.orders import OrderError
from pbem.core.ruleset import Ctx
from pbem.core.scenario import Scenario
from pbem.games.advanced_tobruk.fire import continued_fire
from pbem.games.advanced_tobruk import data, events as E
from pbem.games.advanced_tobruk.board import defilade
from pbem.games.advanced_tobruk.fog import hidden
from pbem.games.advanced_tobruk.artillery import indirect
from pbem.games.advanced_tobruk.notes import notes
from pbem.games.advanced_tobruk.turn.broken import must_move
from pbem.games.advanced_tobruk.fire.eligible import eligible_firers
from pbem.games.advanced_tobruk.fire.melee import resolve_melees
from pbem.games.advanced_tobruk.fire.morale import check_intimidation, end_of_turn
from pbem.games.advanced_tobruk.turn.standing import asks, final_fire
from pbem.games.advanced_tobruk.state import TobrukState
from pbem.games.advanced_tobruk.turn.terms import turn_over, wiped_out
from pbem.games.advanced_tobruk.fog import fow

ROLLED = ("direct-fire", "movement", "infiltration")      # 5.031, 5.21, 5.31
ALTERNATING = ROLLED + ("setup", "register", "final-fire")
PREGAME = ("setup", "register")            # 5.01: played once, before turn 1
AUTOMATIC = ("indirect", "melee", "end")


def other(sc: Scenario, side: str) -> str:
    return next((s for s in sc.side_ids() if s != side), side)


def phase_name(st: TobrukState, sc: Scenario) -> str:
    return sc.sequence[st.phase].name if st.phase >= 0 else ""


def _first_roll(ctx: Ctx, name: str) -> str:
    sides = ctx.sc.side_ids()
    rolls: list[int] = []
    while True:
        pair = [ctx.dice.roll(10) for _ in sides]
        rolls += pair
        if pair[0] != pair[1]:
            break
    first = sides[0] if pair[0] < pair[1] else sides[1]
    ctx.emit(E.FirstRolled(phase=name, sides=list(sides), rolls=rolls, first=first))
    return first


def start(ctx: Ctx, turn: int, index: int) -> None:
    """Begin phase ``index`` of ``turn``; automatic phases run and move on at once."""
    st: TobrukState = ctx.state
    sc = ctx.sc
    name = sc.sequence[index].name
    if name == "indirect" and indirect.enabled(sc):
        return _indirect_start(ctx, turn, index)
    if name in ROLLED and not any(can_act(st, sc, s, name, fresh=True) for s in sc.side_ids()):
        ctx.emit(E.PhaseStarted(turn=turn, phase=index, side=sc.sequence[index].side, name=name))
        return advance(ctx)                       # no side has anything to do: no roll
    if name in ROLLED:
        side = _first_roll(ctx, name)
    elif name == "final-fire":
        last = st.step.last
        side = other(sc, last) if last else sc.sequence[index].side     # 6.65
    else:
        side = sc.sequence[index].side
    ctx.emit(E.PhaseStarted(turn=turn, phase=index, side=side, name=name))
    if name == "final-fire":
        final_fire(ctx, side, other(sc, side))   # 6.65 by standing order, then the owners' choices
    if name == "melee":
        resolve_melees(ctx)                       # 5.35, 22.5-22.7
    elif name == "end":
        end_of_turn(ctx)                          # 5.42 rally, suppression
        if indirect.enabled(sc):
            indirect.end_of_turn(ctx)             # 5.41 FFE -> CFF, 20.364 smoke, 18.733 lifts
        continued_fire.end_of_turn(ctx)           # 15.93 (our reading: the turn's markers go)
        ctx.emit(E.TurnEnded(turn=turn))          # 5.41
        if turn_over(ctx):
            return
    if name in AUTOMATIC:
        return advance(ctx)
    settle(ctx)


def _indirect_start(ctx: Ctx, turn: int, index: int) -> None:
    """5.11 in a scenario with indirect fire: the first-fire roll (5.031) when a side can fire,
    rolling barrages first (18.732), then the alternation; locating at its end (18.1151)."""
    st: TobrukState = ctx.state
    sc = ctx.sc
    live = any(can_act(st, sc, s, "indirect", fresh=True) for s in sc.side_ids())
    side = _first_roll(ctx, "indirect") if live else sc.sequence[index].side
    ctx.emit(E.PhaseStarted(turn=turn, phase=index, side=side, name="indirect"))
    indirect.phase_start(ctx)
    if not live:
        indirect.phase_end(ctx)
        return advance(ctx)
    settle(ctx)


def advance(ctx: Ctx) -> None:
    """The current phase is over: the next one (after the last, the next turn; set-up is played once)."""
    st: TobrukState = ctx.state
    sc = ctx.sc
    i, turn = st.phase + 1, st.turn
    if phase_name(st, sc) == "setup":
        fow.after_setup(ctx)                      # 32.22 pit-hidden guns in spotting range placed; 32.12 flips
        defilade.after_setup(ctx)                 # 33.35, 33.53, 33.63 hull defilade after all set-up
    if i >= len(sc.sequence):
        i, turn = _first_of_turn(sc), turn + 1
    elif sc.sequence[i].name == "setup":
        i = _first_of_turn(sc)
    start(ctx, turn, i)


def _first_of_turn(sc: Scenario) -> int:
    return next(i for i, p in enumerate(sc.sequence) if p.name not in PREGAME)


def settle(ctx: Ctx) -> None:
    """After every order: pass a side that has nothing left to do, end the phase once both have passed."""
    st: TobrukState = ctx.state
    sc = ctx.sc
    if st.result is None and wiped_out(ctx):
        return
    while st.result is None and st.pending is None:
        name = phase_name(st, sc)
        if name not in ALTERNATING and not (name == "indirect" and indirect.enabled(sc)):
            return
        if all(s in st.step.passed for s in sc.side_ids()):
            if name == "indirect":
                indirect.phase_end(ctx)                   # 18.1151 locating attempts
            return advance(ctx)
        side = st.step.to_act
        if name == "setup" or can_act(st, sc, side, name):
            return
        ctx.emit(E.Passed(side=side, phase=name, auto=True))


def activated(ctx: Ctx, units: list[str], what: str = "") -> None:
    """One activation done: intimidation (11.61, in any segment), then the alternation moves on (5.121, 5.21)."""
    check_intimidation(ctx)
    ctx.emit(E.Acted(side=ctx.side, units=list(units), what=what))
    settle(ctx)


def pass_phase(ctx: Ctx) -> None:
    name = phase_name(ctx.state, ctx.sc)
    if name == "movement":
        due = must_move(ctx.state, ctx.sc, ctx.side)
        if due:
            raise OrderError(f"broken units must first move towards safety: {', '.join(due)} (a friendly map "
                             "edge, an emplacement or a building; assault UNIT HEX ..., at most three hexes)",
                             "11.131")
    ctx.emit(E.Passed(side=ctx.side, phase=name))
    settle(ctx)


# --- who could still do something ------------------------------------------------------

def may_close_assault(st: TobrukState, sc: Scenario, uid: str) -> bool:
    """22.01, 23.02-23.03, 23.12, 23.13: a personnel unit that may still declare a close assault on an
    enemy vehicle in its hex (one that has just infiltrated into it, too): not yet assaulting, not
    being overrun, no enemy personnel with the vehicle."""
    u, p = st.units[uid], st.pieces[uid]
    if uid in st.assaults or p.overrun or u.hex is None:
        return False
    here = [v for v in st.units.values() if v.hex == u.hex and v.side != u.side and not v.eliminated]
    if any(data.is_personnel(sc, v.id) and not st.pieces[v.id].surrendered for v in here):
        return False
    return any(data.is_vehicle(sc, v.id) and not st.pieces[v.id].wreck for v in here)


def _live(st: TobrukState, side: str):
    for u in st.units.values():
        if u.side == side and u.hex is not None and not u.eliminated:
            yield u.id, st.pieces[u.id]


def _may_still_fire(st: TobrukState, sc: Scenario, side: str, name: str, acted) -> bool:
    """Whether a unit of ``side`` not in ``acted`` passes the tests eligible_firers makes of every
    firer before it looks at a target (on the map or hidden, not fired, bailed out, a wreck or a
    dummy; in final fire not moved): without one, no target has a firer of the side."""
    limited = None
    for f, u in st.units.items():
        if u.side != side or f in acted or u.eliminated:
            continue
        if u.hex is None:
            if limited is None:
                limited = data.gd(sc).limited_intelligence          # spotting.active (32)
            if not (limited and hidden.is_hidden(st, f)):
                continue
        p = st.pieces.get(f)
        if p is None or p.fired or p.bailed or p.wreck or p.dummy or name != "direct-fire" and p.moved:
            continue
        return True
    return False


def can_act(st: TobrukState, sc: Scenario, side: str, name: str, fresh: bool = False) -> bool:
    """Whether ``side`` has any unit that could still act in phase ``name`` (``fresh``: before it begins)."""
    acted = () if fresh else st.step.acted
    if name == "register":
        return notes.can_register(st, sc, side)            # 18.51, 19.6
    if name == "movement":
        for uid, p in _live(st, side):
            if uid in acted or p.melee or p.surrendered or data.is_weapon(sc, uid):
                continue
            if data.is_vehicle(sc, uid) and (p.m_kill or p.bailed):
                continue
            return True
        return False
    if name == "indirect":
        return indirect.can_act(st, sc, side, fresh)
    if name == "infiltration":
        return any(data.is_personnel(sc, uid) and not p.broken and not p.surrendered and not p.melee
                   and (uid not in acted or may_close_assault(st, sc, uid)) for uid, p in _live(st, side))
    if name in ("direct-fire", "final-fire"):
        if hidden.waits(st, sc, side):
            return True        # 32.2: asked, target or not, so that waiting never betrays a hidden unit
        if not _may_still_fire(st, sc, side, name, acted):
            return False       # no unit of the side passes eligible_firers' first tests: no target needed
        targets = [u.id for u in st.units.values() if u.side != side and u.hex is not None and not u.eliminated
                   and (name == "direct-fire" or st.pieces[u.id].moved)]
        def able(f: str) -> bool:
            return (st.units[f].side == side and f not in acted
                    and (name == "direct-fire" or asks(st, side, f)))       # 6.65: the standing orders fired
        # The target and firer found the last time are asked first (most often the firer may
        # still fire): the answer is the same, any target with a firer will do.
        hints = sc.__dict__.setdefault("_tobruk_fire_hint", {})
        hint = hints.get((side, name))
        if hint is not None and hint[0] in targets and hint[1] in st.units and able(hint[1]) \
                and eligible_firers(st, sc, hint[0], name, stop=able, only=(hint[1],)):
            return True
        for t in targets:
            found = eligible_firers(st, sc, t, name, stop=able)
            if any(able(f) for f in found):
                hints[side, name] = (t, found[0])
                return True
        return False
    return True
