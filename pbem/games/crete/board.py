"""The island and who stands on it: the scenario's Crete data, the three maps
on one grid (2.1), land and all-sea hexsides, stacking (4.4), zones of
control (4.5) and the words of an order that name a unit or a hex.

One grid, three maps: the maps lie side by side in their own column ranges
(scenario ``[game_data.maps]``) separated by columns of ``offmap`` terrain; the
transit tracks are off-map boxes (``[[game_data.tracks]]``) and a unit in one
has no hex.  Movement costs are exact fractions (``pathcost.py``).
"""
from __future__ import annotations

from fractions import Fraction

from pbem.core import orders as O
from pbem.core.orders import OrderError
from pbem.core.ruleset import Ctx
from pbem.core.scenario import Scenario
from pbem.core.state import GameState, UnitState
from pbem.mechanics.movement import units_at
from pbem.mechanics.pathcost import PathCost, frac
from pbem.mechanics.zoc import ZocReach, enemy_zoc


# --- scenario data ------------------------------------------------------------------------

def gd(sc: Scenario) -> dict:
    return sc.game_data


def map_of(sc: Scenario, h: str | None) -> str | None:
    """The map (2.1) a hex is on; None off every map (the offmap columns between them)."""
    if not h or not sc.board.grid.contains(h):
        return None
    col = int(h[:2])
    for mid, m in gd(sc).get("maps", {}).items():
        if m["first_col"] <= col <= m["last_col"]:
            return mid if sc.board.terrain.get(h, "offmap") != "offmap" else None
    return None


def land(sc: Scenario, h: str) -> bool:
    """A hex a unit may stand in: on one of the maps, not all-sea."""
    t = sc.terrain.get(sc.board.terrain.get(h, ""))
    return map_of(sc, h) is not None and t is not None and not t.impassable


def sea_side(sc: Scenario, a: str, b: str) -> bool:
    """An all-sea hexside (4.8)."""
    return gd(sc).get("sea_hexside", "sea") in sc.board.side_features(a, b)


def costs(sc: Scenario) -> PathCost:
    """The movement costs (4.2, 4.8): terrain, roads at a fraction of an MP, no all-sea hexside."""
    def enter(h: str) -> Fraction | None:
        t = sc.terrain.get(sc.board.terrain.get(h, ""))
        if t is None or t.impassable or map_of(sc, h) is None:
            return None
        return Fraction(t.move_cost)
    return PathCost(sc.board, enter, road_cost=frac(gd(sc).get("road_cost", "1/3")),
                    blocked_features=[gd(sc).get("sea_hexside", "sea")])


def utype(sc: Scenario, uid: str) -> str:
    d = sc.unit_defs.get(uid)
    return d.type if d else ""


def printed(sc: Scenario, uid: str) -> int:
    d = sc.unit_defs.get(uid)
    return d.strength if d else 0


def air_units(sc: Scenario) -> dict[str, dict]:
    """The German air units (11.0)."""
    return {a["id"]: a for a in gd(sc).get("air", [])}


def tracks(sc: Scenario) -> list[dict]:
    """The transit tracks (2.2, 7.0)."""
    return list(gd(sc).get("tracks", []))


def stack_limit(sc: Scenario) -> int:
    """Units of one side in a hex (4.4)."""
    return int(gd(sc).get("stacking", 3))


# --- who stands where ---------------------------------------------------------------------

def alive(st: GameState, ids: list[str]) -> list[UnitState]:
    return [st.units[i] for i in ids if not st.units[i].eliminated and st.units[i].hex is not None]


def friends(st: GameState, h: str, side: str, but: str = "") -> int:
    return sum(1 for u in units_at(st).get(h, []) if u.side == side and u.id != but)


def enemies(st: GameState, h: str, side: str) -> list[UnitState]:
    return [u for u in units_at(st).get(h, []) if u.side != side]


def zoc(st: GameState, sc: Scenario, side: str) -> set[str]:
    """Hexes in the zone of control of ``side``'s enemies (4.5); not across all-sea hexsides
    nor into hexes no unit may enter.  Crete has no disruption: every unit on the map exerts one."""
    block = sc.__dict__.get("_crete_zoc")         # the board's data only: one per scenario
    if block is None:
        block = sc.__dict__["_crete_zoc"] = ZocReach(sc.board, lambda a, b: not land(sc, b) or sea_side(sc, a, b))
    return enemy_zoc(st, sc.board, side, block, disrupted_exert=True)


# --- the words of an order ----------------------------------------------------------------

def args_of(order: O.GameVerb, n: int, usage: str) -> list[str]:
    if len(order.args) != n:
        raise OrderError(f"write: {usage}")
    return order.args


def hex_arg(ctx: Ctx, h: str) -> str:
    if not (len(h) == 4 and h.isdigit()) or not ctx.sc.board.grid.contains(h):
        raise OrderError(f"{h!r} is not a hex of the map")
    return h
