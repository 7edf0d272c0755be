"""The actions of an activated formation (7): movement (7.3), refit (7.5), improved
defense (7.6), seizing a victory location (7.3.6); their AP costs, doubled for
out-of-command units (5.8.3) and paid first from a Battle Victory bonus (7.4.3)."""
from __future__ import annotations

from fractions import Fraction

from pbem.core.orders import OrderError
from pbem.core.ruleset import Ctx, find_unit
from pbem.games.formation import events as E
from pbem.games.formation.board import (acting, action_cost, combat_units, formation_of, functional_strongpoint, gd,
                                        is_hq, may_act, overstacked)
from pbem.games.formation.command import in_command
from pbem.games.formation.effectiveness import ec
from pbem.games.formation.movement import (check_movers, displace_adjacent_hqs, parse_stack,
                                           screen_allowed, stack_ma, walk)
from pbem.games.formation.reaction import trigger
from pbem.games.formation.terms import seize, vp_hex
from pbem.mechanics.pathcost import fmt, frac
from pbem.games.formation.admin import _admin_side, due_reinforcements, legal_entries


def must_act(ctx: Ctx) -> None:
    st = ctx.state
    act = st.fm.active
    if st.fm.step != "actions" or act is None:
        raise OrderError("no formation of yours is active: actions come after 'activate FORMATION' (or a "
                         "successful reaction)", "6.4, 7.2")
    if act.side != ctx.side:
        if act.defender:
            raise OrderError(f"the game waits for {ctx.sc.side_name(act.side)}'s Battle Victory bonus actions", "7.4.3")
        raise OrderError(f"{ctx.sc.side_name(act.side)}'s formation {act.formation} is acting now", "7.2")


def pay(ctx: Ctx, units: list[str], ap: int, action: str) -> None:
    """7.2 D: spend ``ap`` (from the bonus first when every unit may use it, 7.4.3)."""
    act = ctx.state.fm.active
    bonus = min(act.bonus, ap) if act.bonus and all(u in act.bonus_units for u in units) else 0
    if act.ap + bonus < ap:
        raise OrderError(f"{action} costs {ap} AP; {act.formation} has {act.ap} left"
                         + (f" (+{act.bonus} bonus for {', '.join(act.bonus_units)})" if act.bonus else ""), "7.0")
    ctx.emit(E.APSpent(formation=act.formation, ap=ap, action=action, bonus=bonus))


def ooc_cost(ctx: Ctx, units: list[str], base: int) -> int:
    """5.8.3: out-of-command units move (or attack hasty) for double cost."""
    st, sc = ctx.state, ctx.sc
    return base * 2 if any(not in_command(st, sc, u) for u in units if not is_hq(sc, u)) else base


def move_order(ctx: Ctx, token: str, path: list[str], *, screen: bool = False) -> None:
    """7.3: ``move UNIT[+UNIT] HEX ...`` / ``screen UNIT[+UNIT] HEX``."""
    must_act(ctx)
    st, sc = ctx.state, ctx.sc
    units = parse_stack(ctx, token)
    check_movers(ctx, units)
    start = st.units[units[0]].hex
    if not path:
        raise OrderError("give the path hex by hex", "7.3")
    ma = stack_ma(st, sc, units)
    if screen:
        if len(path) != 1:
            raise OrderError("screen movement is one hex from an EZOC into another, for the whole MA", "7.3.4")
        ok, mine, theirs = screen_allowed(st, sc, start, ctx.side)
        cost = ooc_cost(ctx, units, action_cost(sc, "move"))
        if not ok:
            pay(ctx, units, cost, "screen move (failed)")
            ctx.emit(E.StackMoved(side=ctx.side, units=units, path=[], mp="0", ma=fmt(ma), screen=True))
            return
    costs = walk(st, sc, units, start, path, ma, screen=screen)
    _check_end_stacking(ctx, units, path[-1])
    pay(ctx, units, ooc_cost(ctx, units, action_cost(sc, "move")), "screen move" if screen else "move")
    # 6.5.1: announcing to leave a hex next to an enemy combat unit
    r = trigger(ctx, units, start, list(path), fmt(ma), leaving=True, screen=screen, barred=[])
    if r != "go":
        return
    continue_move(ctx, units, start, path, fmt(ma), screen=screen, costs=costs)


def _check_end_stacking(ctx: Ctx, units: list[str], end: str) -> None:
    """Refuse a move that would end overstacked, before any event (5.3.1)."""
    st, sc = ctx.state, ctx.sc
    saved = {u: st.units[u].hex for u in units}
    try:
        for u in units:
            st.units[u].hex = end
        bad = overstacked(st, sc, end, ctx.side)
    finally:
        for u, h in saved.items():
            st.units[u].hex = h
    if bad:
        raise OrderError(f"the move would leave {end} overstacked (13.1.3: Commonwealth two units, one of them "
                         "leg infantry; Axis one infantry and two panzer/recce; one HQ)", "5.3.1, 13.1.3")


def continue_move(ctx: Ctx, units: list[str], here: str, path: list[str], mp_left: str, *,
                  screen: bool = False, costs: list[Fraction] | None = None) -> None:
    """Move on along ``path``; stops at a reaction trigger that pauses or succeeds.
    ``costs``: the path's ``walk`` when the caller has just checked it on this board
    (``move_order``, before the trigger on leaving: a reaction that does not stop the
    move moves no unit), else it is checked here."""
    st, sc = ctx.state, ctx.sc
    ma = stack_ma(st, sc, units)
    left = frac(mp_left)
    spent0 = ma - left
    if costs is None:
        costs = walk(st, sc, units, here, path, ma, screen=screen, spent=spent0)
    barred: list[str] = []
    if path:
        _clear_improved(ctx, here, "a unit leaves the hex")   # not before: 6.5.3 keeps it on a stop
    for i, h in enumerate(path):
        ctx.emit(E.StackMoved(side=st.units[units[0]].side, units=units, path=[h],
                              mp=fmt(costs[i] - (costs[i - 1] if i else spent0)), ma=fmt(ma), screen=screen,
                              ends=i == len(path) - 1))
        if i == len(path) - 1:
            ended_in(ctx, h)
        barred += displace_adjacent_hqs(ctx, units, h)
        if trigger(ctx, units, h, path[i + 1:], fmt(ma - costs[i]), leaving=False, screen=screen,
                   barred=barred) != "go":
            return


def _clear_improved(ctx: Ctx, h: str, reason: str) -> None:
    if h in ctx.state.fm.improved:
        ctx.emit(E.ImprovedDefense(hex=h, on=False, reason=reason))


def ended_in(ctx: Ctx, h: str) -> None:
    """7.6: another unit ends a Movement Action in ``h`` (a move, a reinforcement's free move,
    a move stopped by a reaction): the hex's Improved Defense marker goes, in the log."""
    _clear_improved(ctx, h, "another unit ends its move in the hex")


def refit(ctx: Ctx, args: list[str]) -> None:
    """7.5: ``refit UNIT``: one disrupted unit of the formation in command range."""
    must_act(ctx)
    if len(args) != 1:
        raise OrderError("refit needs one unit: refit UNIT", "7.5")
    refit_unit(ctx, find_unit(ctx, args[0], ctx.side, on_map=True).id)


def refit_unit(ctx: Ctx, uid: str) -> None:
    """7.5: an EC; a pass recovers the unit.  For the acting side (a standing order may act
    for the winning defender, 7.4.3, within the attacker's order)."""
    st, sc = ctx.state, ctx.sc
    u = st.units[uid]
    if not may_act(st, sc, u.id) or is_hq(sc, u.id):
        raise OrderError(f"{u.id} is not a combat unit of {acting(st)}", "7.5")
    if not u.disrupted:
        raise OrderError(f"{u.id} is not disrupted", "7.5")
    if not in_command(st, sc, u.id):
        raise OrderError(f"{u.id} is out of command: no refit", "7.1, 5.8.3")
    pay(ctx, [u.id], action_cost(sc, "refit"), "refit")
    _clear_improved(ctx, u.hex, "a unit in the hex acts")
    ec(ctx, u.id, "refit")


def improve(ctx: Ctx, args: list[str]) -> None:
    """7.6: ``improve HEX``."""
    must_act(ctx)
    if len(args) != 1:
        raise OrderError("improve needs the hex: improve HEX", "7.6")
    dig_in(ctx, args[0])


def dig_in(ctx: Ctx, h: str) -> None:
    """7.6: every unit in the hex of the acting formation (or the winning defender's units,
    7.4.3), in command, undisrupted; not in a functional friendly strongpoint (always
    improved there)."""
    st, sc = ctx.state, ctx.sc
    side = st.fm.active.side
    here = combat_units(st, sc, h)
    if not here or any(u.side != side for u in here):
        raise OrderError(f"no combat unit of yours in {h}", "7.6")
    if any(not may_act(st, sc, u.id) for u in here) or len({formation_of(sc, u.id) for u in here}) > 1:
        raise OrderError(f"every unit in {h} must be of {acting(st)}, and of one formation", "7.6")
    if any(u.disrupted or not in_command(st, sc, u.id) for u in here):
        raise OrderError(f"every unit in {h} must be undisrupted and in command", "7.6")
    if functional_strongpoint(st, sc, h) == side:
        raise OrderError(f"{h} is a functional friendly strongpoint: always in Improved Defense already", "7.6")
    if h in st.fm.improved:
        raise OrderError(f"{h} already has an Improved Defense marker", "7.6")
    pay(ctx, [u.id for u in here], action_cost(sc, "improve"), "improved defense")
    ctx.emit(E.ImprovedDefense(hex=h, on=True, reason="improved defense action"))


def seize_order(ctx: Ctx, args: list[str]) -> None:
    """7.3.6: a combat unit of the active formation on a victory location spends 1 AP;
    the in-command value is scored (13.3.1), once per turn (16)."""
    must_act(ctx)
    st, sc = ctx.state, ctx.sc
    if len(args) != 1:
        raise OrderError("seize needs the hex: seize HEX", "7.3.6")
    h = args[0]
    if vp_hex(sc, h) is None:
        raise OrderError(f"{h} is not a victory location of this scenario", "7.3.6")
    mine = [u for u in combat_units(st, sc, h, ctx.side) if may_act(st, sc, u.id)]
    if not mine:
        raise OrderError(f"no combat unit of {acting(st)} in {h}", "7.3.6")
    if h in st.fm.scored:
        raise OrderError(f"{h} was already scored this turn", "16")
    if gd(sc).scorer != ctx.side:
        raise OrderError(f"only {sc.side_name(gd(sc).scorer)} earns victory points here", "16")
    pay(ctx, [mine[0].id], action_cost(sc, "seize"), "seize")
    seize(ctx, h, mine[0].id, during="ops")


def enter(ctx: Ctx, args: list[str]) -> None:
    """9.4, 14.1: ``enter UNIT HEX [HEX ...]``: place a reinforcement on a legal entry hex,
    then its free move (not into an EZOC, 9.4.2)."""
    _admin_side(ctx)
    st, sc = ctx.state, ctx.sc
    if len(args) < 2:
        raise OrderError("enter needs a unit and its entry hex: enter UNIT HEX [HEX ...]", "9.4")
    u = find_unit(ctx, args[0], ctx.side)
    if u.id not in due_reinforcements(st, sc, ctx.side):
        raise OrderError(f"{u.id} is not a reinforcement due now", "9.4")
    h, path = args[1], args[2:]
    entries = legal_entries(st, sc, u.id)
    if h not in entries:
        raise OrderError(f"{u.id} may enter on: {', '.join(entries) or 'no hex'} (listed entry hexes not blocked, "
                         "not in an EZOC, free of enemies; else the friendly map edge)", "9.4.1, 14.1")
    if path:
        walk(st, sc, [u.id], h, path, Fraction(u.ma), free=True)
    _check_end_stacking(ctx, [u.id], path[-1] if path else h)   # 9.4.2: met at the end of the free move
    ctx.emit(E.ReinforcementEntered(unit=u.id, hex=h))
    if path:
        ctx.emit(E.StackMoved(side=ctx.side, units=[u.id], path=path, mp="", ma=str(u.ma), free=True))
        ended_in(ctx, path[-1])

