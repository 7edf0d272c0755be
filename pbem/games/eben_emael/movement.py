"""Movement (4.0): paths and their cost (4.1, 4.2, 4.9), bold movement (4.6)
and the minefields that interrupt it (11.0-11.4, 11.8), stacking at the end
of movement (4.4), reinforcements (10.0-10.3) and the German set-up (12.2).
"""
from __future__ import annotations

from pbem.core import orders as O
from pbem.core.orders import OrderError
from pbem.core.ruleset import Ctx
from pbem.core.state import UnitState
from pbem.games.eben_emael import events as E
from pbem.games.eben_emael.board import (BELGIAN, GERMAN, forts, gd, hexside_extra, is_fort, squads_at, terrain,
                                         undestroyed_fort, unit)
from pbem.games.eben_emael.fire import mine_attack
from pbem.games.eben_emael.secrets import dummies, minefields, open_secret
from pbem.mechanics.movement import step_cost as mech_step_cost

# --- paths -------------------------------------------------------------------------------------


def step_cost(ctx: Ctx, u: UnitState, a: str | None, b: str) -> int:
    """MP to enter b from a (a None: from off the map).  Refuses with the rule."""
    st, sc = ctx.state, ctx.sc
    if not sc.board.grid.contains(b):
        raise OrderError(f"{b} is not on the map; units may not leave it", "4.5")
    if a is not None and not sc.board.grid.adjacent(a, b):
        raise OrderError(f"{b} is not adjacent to {a}: a path goes hex by hex", "4.0")
    # 4.2: the terrain cost from the shared step_cost, with no hexside costs (so ``a`` is unused there);
    # the hexside extras are added below by the game's own hexside_extra (4.9: slope upslope only).
    cost = mech_step_cost(sc.board, sc.terrain, a or b, b)
    if cost is None:
        raise OrderError(f"{b} is {terrain(sc, b)} and may not be entered", "4.2")
    # Not enemy_hexes: that counts the Belgian fortifications as enemies; 4.8 refuses those with its own reason.
    occupants = squads_at(st, sc).get(b, [])
    if any(o.side != u.side for o in occupants):
        raise OrderError(f"{b} holds an enemy unit", "4.3")
    if u.side == GERMAN and undestroyed_fort(st, sc, b) is not None:
        raise OrderError(f"{b} is an undestroyed fortification; German units may not enter it", "4.8")
    if a is not None:
        extra = hexside_extra(sc, a, b)
        if extra is None:
            raise OrderError(f"the hexside {a}-{b} is a cliff and may not be crossed", "4.2")
        cost += extra
    return cost


# Not check_path: 4.1 checks the whole path's MP after every step's own refusal, a path may start off the map (10.2)
# and Eben Emael has no zones of control.
def _path_cost(ctx: Ctx, u: UnitState, start: str | None, path: list[str]) -> int:
    here, mp = start, 0
    for h in path:
        mp += step_cost(ctx, u, here, h)
        here = h
    if mp > u.ma:
        raise OrderError(f"the path costs {mp} MP, more than {u.id}'s movement allowance of {u.ma}", "4.1")
    return mp


def _can_move(u: UnitState) -> None:
    if "pinned" in u.marks:
        raise OrderError(f"{u.id} is pinned and may not move", "4.7")
    if u.moved:
        raise OrderError(f"{u.id} has already moved this phase", "4.0")


def _end_hex_free(ctx: Ctx, u: UnitState, h: str) -> None:
    others = [o for o in squads_at(ctx.state, ctx.sc).get(h, []) if o.id != u.id]
    if others:
        raise OrderError(f"{h} holds {others[0].id}; a move may pass through a friend but not end on it", "4.4")


# --- moving ------------------------------------------------------------------------------------


def move(ctx: Ctx, order: O.Move) -> None:
    sc = ctx.sc
    u = unit(ctx, order.unit, ctx.side)
    if is_fort(sc, u.id):
        raise OrderError("fortifications never move", "9.0")
    if u.hex is None:
        raise OrderError(f"{u.id} is not on the map; reinforcements come in with 'enter' or 'place'", "10.0")
    if order.off:
        raise OrderError("units may not leave the map", "4.5")
    _can_move(u)
    path = list(order.path)
    mp = _path_cost(ctx, u, u.hex, path)
    _end_hex_free(ctx, u, path[-1])
    bold = len(path) > 1                                                       # 4.6
    if u.side == BELGIAN and bold:
        mines = minefields(ctx)
        for h in path:
            if h in mines:
                raise OrderError(f"{h} is one of your minefields; Belgian units may not enter it "
                                 "by bold movement", "11.8")
    if u.side == GERMAN:
        _german_move(ctx, u, path, mp)
        return
    ctx.emit(E.UnitMoved(unit=u.id, path=path, mp=mp, ma=u.ma))
    if bold:
        ctx.emit(E.BoldMovement(unit=u.id))


def _german_move(ctx: Ctx, u: UnitState, path: list[str], mp_total: int) -> None:
    """11.0-11.4: minefields interrupt bold movement: a hex entered after the
    first step is attacked on entry; a first-step minefield is attacked when
    the unit goes on out of it; a one-hex move only tells the German player
    that the hex is mined.  The start hex never attacks (11.4)."""
    st = ctx.state
    mines = minefields(ctx)
    bold = len(path) > 1
    start = u.hex
    if bold:
        ctx.emit(E.BoldMovement(unit=u.id))
    if not bold:
        ctx.emit(E.UnitMoved(unit=u.id, path=path, mp=mp_total, ma=u.ma))
        if path[0] in mines:
            open_secret(ctx, mines[path[0]])                         # 11.2: the German is told
        return
    done: list[str] = []
    here = start
    spent = 0
    for h in path:
        spent += step_cost(ctx, u, here, h)
        done.append(h)
        here = h
        hits = st.mine_hits.get(u.id, [])                            # 11.1
        if h in mines and h not in hits:
            ctx.emit(E.UnitMoved(unit=u.id, path=done, mp=spent, ma=u.ma))
            done, spent = [], 0
            open_secret(ctx, mines[h])
            effect = mine_attack(ctx, u, h)
            if effect in ("pinned", "eliminated"):
                return                                               # 11.3: a pinned unit stays
    if done:
        ctx.emit(E.UnitMoved(unit=u.id, path=done, mp=spent, ma=u.ma))


def lose_excess(ctx: Ctx, args: list[str]) -> None:
    """4.4, 10.5: one unit per hex at the end of the movement phase; the owner picks who goes."""
    st, sc = ctx.state, ctx.sc
    if len(args) != 1:
        raise OrderError("write: lose UNIT")
    u = unit(ctx, args[0], ctx.side)
    mates = [o for o in squads_at(st, sc).get(u.hex or "", []) if o.side == u.side]
    if len(mates) < 2:
        raise OrderError(f"{u.id} is not in an overstacked hex", "4.4")
    ctx.emit(E.UnitEliminated(unit=u.id, reason=f"excess unit in {u.hex} at the end of movement", rule="4.4"))


# --- reinforcements (10.0) ---------------------------------------------------------------------


def _available(ctx: Ctx, u: UnitState, via: str) -> None:
    st, sc = ctx.state, ctx.sc
    if u.hex is not None:
        raise OrderError(f"{u.id} is already on the map", "10.0")
    for r in gd(sc).get("reinforcements", []):
        if u.id in r.get("units", []):
            if r["turn"] > st.turn:
                raise OrderError(f"{u.id} arrives on turn {r['turn']}", "10.0")
            if r["via"] != via:
                how = "on a fortification with 'place UNIT HEX'" if r["via"] == "fortification" \
                    else "at a map edge with 'enter UNIT HEX ...'"
                raise OrderError(f"{u.id} comes in {how}", "10.2, 10.3")
            return
    raise OrderError(f"{u.id} is not a reinforcement", "10.0")


def enter(ctx: Ctx, args: list[str]) -> None:
    """10.1, 10.2: a map-edge reinforcement; the first hex must be on an edge
    and costs its terrain."""
    sc = ctx.sc
    if len(args) < 2:
        raise OrderError("write: enter UNIT EDGE-HEX [HEX ...]")
    u = unit(ctx, args[0], ctx.side)
    _available(ctx, u, "edge")
    path = args[1:]
    grid = sc.board.grid
    if not grid.contains(path[0]) or not any(grid.is_edge(path[0], e) for e in ("north", "south", "east", "west")):
        raise OrderError(f"{path[0]} is not a map-edge hex", "10.2")
    mp = _path_cost(ctx, u, None, path)
    _end_hex_free(ctx, u, path[-1])
    if len(path) > 1 and any(h in minefields(ctx) for h in path):
        raise OrderError("Belgian units may not enter a minefield by bold movement", "11.8")
    ctx.emit(E.UnitEntered(unit=u.id, path=list(path), mp=mp, ma=u.ma, via="edge"))
    if len(path) > 1:
        ctx.emit(E.BoldMovement(unit=u.id))


def place_garrison(ctx: Ctx, args: list[str]) -> None:
    """10.3: a fort-garrison unit appears on an undestroyed, non-dummy
    fortification, one per fortification per turn; it may then move."""
    st, sc = ctx.state, ctx.sc
    if len(args) != 2:
        raise OrderError("write: place UNIT FORT-HEX")
    u = unit(ctx, args[0], ctx.side)
    _available(ctx, u, "fortification")
    h = args[1]
    if undestroyed_fort(st, sc, h) is None:
        raise OrderError(f"{h} is not an undestroyed fortification", "10.3")
    if h in dummies(ctx):
        raise OrderError(f"{h} is a dummy cupola; no garrison comes out of it", "10.3")
    if h in st.placed_forts:
        raise OrderError(f"a garrison unit already came out of {h} this turn", "10.3")
    ctx.emit(E.UnitPlaced(unit=u.id, hex=h))


# --- the German set-up (12.2) --------------------------------------------------------------------


def setup_place(ctx: Ctx, args: list[str]) -> None:
    st, sc = ctx.state, ctx.sc
    if len(args) != 2:
        raise OrderError("write: place UNIT HEX")
    u = unit(ctx, args[0], GERMAN)
    h = args[1]
    if u.hex is not None:
        raise OrderError(f"{u.id} is already set up in {u.hex}", "12.2")
    if not sc.board.grid.contains(h):
        raise OrderError(f"{h} is not a hex of the map", "4.5")
    if terrain(sc, h) != "clear" or h in forts(sc):
        raise OrderError(f"{h} is {terrain(sc, h)}{' with a fortification' if h in forts(sc) else ''}; "
                         "German units set up in clear hexes only", "12.2")
    if h in squads_at(st, sc):
        raise OrderError(f"{h} already holds {squads_at(st, sc)[h][0].id}; no stacking", "12.2")
    ctx.emit(E.UnitPlaced(unit=u.id, hex=h))


def mines_at_setup(ctx: Ctx) -> None:
    """12.2: German units set up in minefields are attacked before play."""
    st = ctx.state
    mines = minefields(ctx)
    for u in sorted(st.units.values(), key=lambda u: u.id):
        if u.side == GERMAN and u.hex in mines and not u.eliminated:
            open_secret(ctx, mines[u.hex])
            mine_attack(ctx, u, u.hex)
