"""Retreats after combat (7.4.2.2, 7.4.2.3), overstacking and displacement
(5.3.2) and HQ displacement (5.3.3).

``retreat_search`` is pure over predicates; the rest reads the state through
``board`` and emits events through ``ctx``.  Choices the rules give the owner
(the path among equals) or the opponent (which unit to displace where) are
made by the documented defaults below: by email they would cost a round trip
for each hex, so they are not asked."""
from __future__ import annotations

from collections.abc import Callable

from pbem.core.hexgrid import Grid
from pbem.core.ruleset import Ctx
from pbem.games.formation import board as B
from pbem.games.formation import combat_events as CE
from pbem.games.formation import events as E
from pbem.games.formation.state import other
from pbem.games.formation.movement import displace_hq


def retreat_search(grid: Grid, start: str, combat_hex: str, hexes: int, *, forced: bool,
                   allowed: Callable[[str, str], bool], ezoc: Callable[[str], bool],
                   goal: Callable[[str], int], full: Callable[[str], bool] = lambda h: False
                   ) -> tuple[list[str], int, int]:
    """The retreat path of ``hexes`` hexes from ``start`` (7.4.2.2): each step one hex
    farther from ``combat_hex``, only where ``allowed(a, b)``; an EZOC only in a forced
    retreat and only when no other step exists (7.4.2.3).  Among the steps left: one
    avoiding overstacking (``full``; where it cannot be avoided in a hex passed through, we
    apply the overstacking only where the retreat ends), then the one nearest the retreat goal (``goal``: a
    distance to the nearest friendly supply source or map edge), then the lowest hex
    number.  Returns (path, EZOC hexes entered, hexes that could not be entered)."""
    path: list[str] = []
    here = start
    entered_ezoc = 0
    for i in range(hexes):
        d = grid.distance(here, combat_hex)
        steps = [n for n in grid.neighbours(here) if grid.distance(n, combat_hex) > d and allowed(here, n)]
        clear = [n for n in steps if not ezoc(n)]
        if not clear and not forced:
            return path, entered_ezoc, hexes - i
        pool = clear or steps
        if not pool:
            return path, entered_ezoc, hexes - i
        nxt = min(pool, key=lambda n: (full(n), goal(n), n))
        if ezoc(nxt):
            entered_ezoc += 1
        path.append(nxt)
        here = nxt
    return path, entered_ezoc, 0


def retreat_losses(ezoc_entered: int, blocked: int, forced: bool) -> int:
    """7.4.2.3: per retreating unit, one SP for each EZOC hex entered and two for each
    hex it could not enter (forced retreats; a voluntary retreat never enters an EZOC)."""
    return ezoc_entered + 2 * blocked if forced else 0


# --- the board-reading part ----------------------------------------------------------

def _goal_fn(st, sc, side: str) -> Callable[[str], int]:
    """Distance to the nearest friendly supply source or friendly map edge (7.4.2.2)."""
    grid = sc.board.grid
    goals = set(B.gd(sc).supply_sources.get(side, []))
    edge = B.gd(sc).friendly_edges.get(side, "")
    if edge:
        goals |= set(grid.edge_hexes(edge))
    goals = {g for g in goals if grid.contains(g)}
    if not goals:
        return lambda h: 0
    return lambda h: min(grid.distance(h, g) for g in goals)


def _allowed_fn(st, sc, side: str, mover: str) -> Callable[[str, str], bool]:
    """7.4.2.2: no enemy-occupied hex, no hex next to an enemy HQ, no enemy functional
    strongpoint, nothing off the map or prohibited to the mover, no ridge/wadi hexside."""
    grid = sc.board.grid
    enemy = other(side)
    enemy_hq = [u.hex for u in st.units.values() if u.side == enemy and B.alive(u) and B.is_hq(sc, u.id)]
    kind = B.move_type(sc, mover)

    def ok(a: str, b: str) -> bool:
        if not grid.contains(b) or B.occupied_by(st, b, enemy):
            return False
        if any(grid.adjacent(b, h) for h in enemy_hq):
            return False
        if B.functional_strongpoint(st, sc, b) == enemy:
            return False
        if B.barrier(sc, a, b) and not B.road_link(sc, a, b):
            return False                        # 13.2.2: no retreat across a ridge or wadi, unless by road/trail
        return B.step_cost(sc, {kind}, a, b, road_ok=False) is not None
    return ok


def retreat(ctx: Ctx, units: list[str], combat_hex: str, hexes: int, forced: bool) -> tuple[list[str], int]:
    """Retreat ``units`` (one stack) ``hexes`` hexes and apply 7.4.2.3's losses and the
    overstacking at the end (7.4.2.2, 5.3.2).  A stack reaching its friendly map edge may
    leave into the off-board area, which settles every hex still owed (13.2.4.1); our
    default for that choice of the owner: only when the retreat on the map would cost
    strength points.  Returns (the hexes left behind, hexes of a voluntary retreat that
    could not be made: the caller turns them back into step losses)."""
    st, sc = ctx.state, ctx.sc
    live = [u for u in units if not st.units[u].eliminated]
    if not live or hexes <= 0:
        return [], 0
    side = st.units[live[0]].side
    start = st.units[live[0]].hex
    ez = B.zoc_hexes(st, sc, other(side))
    path, n_ezoc, blocked = retreat_search(
        sc.board.grid, start, combat_hex, hexes, forced=forced, allowed=_allowed_fn(st, sc, side, live[0]),
        ezoc=lambda h: h in ez, goal=_goal_fn(st, sc, side),
        full=lambda h: _would_overstack(st, sc, h, side, live))
    edge = B.gd(sc).friendly_edges.get(side, "")
    if edge and (blocked or (forced and n_ezoc)):
        walked = [start] + path
        for i, h in enumerate(walked):
            if i and walked[i] in ez:
                break
            if sc.board.grid.is_edge(h, edge):
                ctx.emit(CE.CombatRetreated(units=live, path=walked[1:i + 1], owed=hexes, forced=forced, off=True))
                return [start], 0
    ctx.emit(CE.CombatRetreated(units=live, path=path, owed=hexes, forced=forced, ezoc=n_ezoc, blocked=blocked))
    if forced:
        for u in live:
            lose(ctx, u, n_ezoc, "entered an EZOC in a forced retreat", "7.4.2.3")
            lose(ctx, u, 2 * blocked, "could not complete a forced retreat", "7.4.2.3")
    if path:
        overstack(ctx, path[-1], side, arrived=[u for u in live if not st.units[u].eliminated])
    return [start], 0 if forced else blocked


def _would_overstack(st, sc, h: str, side: str, movers: list[str]) -> bool:
    """Would ``movers`` overstack ``h`` (13.1.3; the limits as board.overstacked reads them)?"""
    here = [u for u in B.stack(st, h) if u.side == side and u.id not in movers] + [st.units[m] for m in movers]
    return B.over_limit(B.stacking_count(sc, here), B.gd(sc).stacking.get(side)) != []


def lose(ctx: Ctx, uid: str, sp: int, why: str, rule: str) -> None:
    """``sp`` strength points off ``uid`` (7.4.2.1): eliminated at 0."""
    u = ctx.state.units[uid]
    if u.eliminated or sp <= 0:
        return
    n = min(sp, u.strength)
    left = u.strength - n
    ctx.emit(CE.StepLost(unit=uid, sp=n, strength=left, why=why, rule=rule))
    if left <= 0:
        ctx.emit(E.UnitEliminated(unit=uid, reason=why, rule=rule))


def overstack(ctx: Ctx, h: str, side: str, arrived: list[str], *, retreated: bool = True,
              avoid: frozenset[str] = frozenset()) -> None:
    """5.3.2 / 7.4.2.2: an overstacked hex: every combat unit not yet disrupted disrupts,
    every one already disrupted loses a strength point, and units that retreated in lose
    one more each; then the opponent displaces surplus units (never static ones), each
    time triggering the same in the hex it enters.  Our default for the opponent's choice:
    the units that just arrived go first, each to the lowest-numbered adjacent hex among
    the best allowed (no EZOC with room; else a full hex; else an EZOC), never back into
    a hex a displacement came from."""
    st, sc = ctx.state, ctx.sc
    if not B.overstacked(st, sc, h, side):
        return
    here = B.combat_units(st, sc, h, side)
    fresh = [u.id for u in here if not u.disrupted]
    for u in here:
        if u.id not in fresh:
            lose(ctx, u.id, 1, "overstacked while disrupted", "5.3.2")
    if fresh:
        ctx.emit(CE.OverstackDisrupted(units=fresh, hex=h, why="overstacked"))
    if retreated:
        for uid in arrived:
            lose(ctx, uid, 1, "retreated into an overstacked hex", "7.4.2.2")
    grid = sc.board.grid
    movable = [u.id for u in here if not B.is_static(sc, u.id)]
    order = [u for u in arrived if u in movable] + [u for u in movable if u not in arrived]
    ez = B.zoc_hexes(st, sc, other(side))
    for uid in order:
        if not B.overstacked(st, sc, h, side):
            break
        u = st.units[uid]
        if u.eliminated or u.hex != h:
            continue
        opts = [n for n in grid.neighbours(h) if n not in avoid and not B.occupied_by(st, n, other(side))
                and B.step_cost(sc, {B.move_type(sc, uid)}, h, n, road_ok=False) is not None
                and not B.barrier(sc, h, n)]
        if not opts:
            ctx.emit(CE.UnitDisplaced(unit=uid, frm=h, to="", by=other(side)))
            ctx.emit(E.UnitEliminated(unit=uid, reason="could not be displaced", rule="5.3.2"))
            continue
        to = min(opts, key=lambda n: (n in ez, _would_overstack(st, sc, n, side, [uid]), n))
        ctx.emit(CE.UnitDisplaced(unit=uid, frm=h, to=to, by=other(side)))
        overstack(ctx, to, side, arrived=[uid], retreated=False, avoid=avoid | {h})


def hq_alone(ctx: Ctx, hexes: list[str]) -> None:
    """7.4 / 5.3.3: an HQ left alone in a hex by combat is displaced at once
    (movement.displace_hq: the nearest unit of its formation, -1 support point, one
    space down the activation track).  With no unit left to go to, it stays."""
    st, sc = ctx.state, ctx.sc
    for h in dict.fromkeys(hexes):
        here = B.stack(st, h)
        if len(here) != 1 or not B.is_hq(sc, here[0].id):
            continue
        f = B.hq_formation(sc, here[0].id)
        if any(B.alive(u) and not B.is_hq(sc, u.id) and B.formation_of(sc, u.id) == f for u in st.units.values()):
            displace_hq(ctx, f, "left alone in its hex by combat (7.4, 5.3.3)")
