"""Placing and moving units: the Commonwealth set-up (1.2), movement (4.0) with
roads at a fraction of an MP, and the transit tracks between the maps (7.0)."""
from __future__ import annotations

from fractions import Fraction

from pbem.core import orders as O
from pbem.core.orders import OrderError
from pbem.core.ruleset import Ctx, find_unit
from pbem.core.scenario import Scenario
from pbem.core.state import UnitState
from pbem.games.crete import events as E
from pbem.games.crete.board import (args_of, costs, enemies, friends, gd, hex_arg, land, map_of, sea_side,
                                    stack_limit, tracks, zoc)
from pbem.games.crete.state import CW, CreteState
from pbem.mechanics.pathcost import ceil_mp, fmt, frac


# set-up (1.0, 1.2) ---------------------------------------------------------------------------

def place(ctx: Ctx, order: O.GameVerb) -> None:
    st, sc = ctx.state, ctx.sc
    uid, h = args_of(order, 2, "place UNIT HEX")
    u = find_unit(ctx, uid, CW)
    h = hex_arg(ctx, h)
    if not land(sc, h):
        raise OrderError(f"{h} is {sc.board.terrain.get(h)}: units are placed on land hexes of the three maps", "1.2")
    if friends(st, h, CW, u.id) >= stack_limit(sc):
        raise OrderError(f"{h} already holds {stack_limit(sc)} Commonwealth units", "4.4")
    ctx.emit(E.UnitPlaced(unit=u.id, hex=h))


# transit tracks (7.0) ------------------------------------------------------------------------

def track_entries(st: CreteState, sc: Scenario, u: UnitState) -> list[str]:
    """Where a unit in a transit track may come onto the next map (7.3, 7.4): the road hex,
    or, when that is enemy occupied or in an EZOC, the closest hexes of that map that are
    neither (and have room for it)."""
    _, exit_hex = st.crete.track[u.id].split(">")
    m = map_of(sc, exit_hex)
    ezoc = zoc(st, sc, u.side)
    grid = sc.board.grid

    def ok(h: str) -> bool:
        return (land(sc, h) and map_of(sc, h) == m and h not in ezoc
                and not enemies(st, h, u.side) and friends(st, h, u.side, u.id) < stack_limit(sc))
    if ok(exit_hex):
        return [exit_hex]
    best: list[str] = []
    for r in range(1, 40):
        best = sorted(h for h in grid.ring(exit_hex, r) if grid.contains(h) and ok(h))
        if best:
            break
    return best


def owing_tracks(st: CreteState) -> list[str]:
    """Units that began this movement phase in a transit track and are still in it (7.1)."""
    cd = st.crete
    return [u for u in cd.from_track if u in cd.track]


# movement (4.0) ------------------------------------------------------------------------------

def move(ctx: Ctx, order: O.Move) -> None:
    st, sc = ctx.state, ctx.sc
    cd = st.crete
    u = find_unit(ctx, order.unit, ctx.side)
    if u.moved:
        raise OrderError(f"{u.id} has already moved this phase", "4.0")
    if cd.dropped.get(u.id) == st.turn:
        raise OrderError(f"{u.id} dropped this Game-Turn and may not move until the next", "5.5")
    pc = costs(sc)
    ma = Fraction(u.ma)
    ezoc = zoc(st, sc, u.side)
    path = list(order.path)
    spent = Fraction(0)
    if u.id in cd.track:
        if order.off:
            raise OrderError(f"{u.id} is in a transit track and must come out onto the next map", "7.1, 7.7")
        if not path:
            raise OrderError(f"{u.id} is in a transit track: its path starts with the hex where it enters the map",
                             "7.4")
        entries = track_entries(st, sc, u)
        if path[0] not in entries:
            raise OrderError(f"{u.id} must come out of the track at {' or '.join(entries) or '(nowhere)'}, "
                             f"not {path[0]} (the road hex, else the closest hex free of enemy units and "
                             "EZOC)", "7.3, 7.4")
        _, exit_hex = cd.track[u.id].split(">")
        t = sc.terrain[sc.board.terrain[path[0]]]
        # 7.5: the road hex is entered along the road (1/3 MP); another hex costs its terrain.
        spent = frac(gd(sc).get("road_cost", "1/3")) if path[0] == exit_hex else Fraction(t.move_cost)
        here, rest, start_in_ezoc = path[0], path[1:], False
    else:
        if u.hex is None:
            raise OrderError(f"{u.id} is not on the map")
        here, rest, start_in_ezoc = u.hex, path, u.hex in ezoc
    start = here
    # Not mechanics.movement.check_path: it needs the unit on a hex and 0 MP spent (a unit out of a track
    # starts at path[0] with MP spent, 7.4-7.5), checks 4.5 in another order, and has no 4.x rule numbers.
    for i, h in enumerate(rest):
        h = hex_arg(ctx, h)
        if not sc.board.grid.adjacent(here, h):
            raise OrderError(f"{h} is not adjacent to {here}: a path goes hex by hex", "4.0")
        if enemies(st, h, u.side):
            raise OrderError(f"{h} holds an enemy unit and may not be entered", "4.3")
        c = pc.step(here, h)
        if c is None:
            why = "an all-sea hexside" if sea_side(sc, here, h) else f"{sc.board.terrain.get(h)}"
            raise OrderError(f"{h} may not be entered from {here} ({why})", "4.8")
        spent += c
        if spent > ma:
            raise OrderError(f"entering {h} would spend {fmt(spent)} MP, more than {u.id}'s movement "
                             f"allowance of {u.ma}", "4.1")
        if i == 0 and start_in_ezoc and h in ezoc:
            raise OrderError(f"{u.id} starts in an enemy zone of control; its first hex ({h}) may not be in one",
                             "4.6")
        if here in ezoc and (i > 0 or here != start or not start_in_ezoc):
            raise OrderError(f"{here} is in an enemy zone of control: the move must stop there", "4.5")
        here = h
    if order.off:
        tr = next((t for t in tracks(sc) if here in (t["a"], t["b"])), None)
        if tr is None:
            raise OrderError(f"{here} is not the road hex of a transit track; a unit leaves its map only "
                             "into a track, from its road hex", "7.0")
        if here in ezoc and here != start:
            raise OrderError(f"{here} is in an enemy zone of control: the move must stop there", "4.5")
        if u.id in cd.from_track:
            raise OrderError(f"{u.id} began this phase in a transit track and may not enter one again", "7.7")
        spent += int(gd(sc).get("track_entry_cost", 1))          # 7.6
        if spent > ma:
            raise OrderError(f"entering the track costs 1 MP: {fmt(spent)} in all, more than {u.id}'s "
                             f"movement allowance of {u.ma}", "7.6")
        exit_hex = tr["b"] if here == tr["a"] else tr["a"]
        ctx.emit(E.TrackEntered(unit=u.id, track=tr["id"], path=path, cost=fmt(spent), ma=u.ma, exit=exit_hex))
        return
    if not path:
        raise OrderError("a move needs at least one hex")
    if friends(st, here, u.side, u.id) >= stack_limit(sc):
        raise OrderError(f"{here} already holds {stack_limit(sc)} friendly units", "4.4")
    ctx.emit(E.UnitMoved(unit=u.id, path=path, mp=ceil_mp(spent), ma=u.ma, cost=fmt(spent)))
