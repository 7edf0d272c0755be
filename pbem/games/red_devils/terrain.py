"""The scenario's data and the map: unit facts (2.5, 2.6), terrain and movement
costs (4.2, 4.9, exact fractions through pbem.mechanics.pathcost), the Neder
Rijn (4.6, 11.0) and zones of control (4.4)."""
from __future__ import annotations

from fractions import Fraction

from pbem.core.scenario import Scenario, once_per_scenario
from pbem.core.state import UnitState
from pbem.games.red_devils.state import RedDevilsState
from pbem.mechanics.pathcost import PathCost, frac
from pbem.mechanics.zoc import enemy_zoc, hexsides_block

RIJN = "major_river"
MINOR = "minor_river"
ROADS = ("major_road", "minor_road")
RAIL_BRIDGE = "rail_bridge"
FERRY = "ferry"


# --- scenario data -------------------------------------------------------------

def gd(sc: Scenario) -> dict:
    return sc.game_data


def info(sc: Scenario, uid: str) -> dict:
    return gd(sc).get("units", {}).get(uid, {})


def rng(sc: Scenario, uid: str) -> int:
    return int(info(sc, uid).get("range", 1))                # 2.5: no printed range = 1


def utype(sc: Scenario, uid: str) -> str:
    return sc.unit_defs[uid].type


def is_artillery(sc: Scenario, uid: str) -> bool:
    return rng(sc, uid) > 2                                   # 6.6: range greater than two


def is_mech(sc: Scenario, uid: str) -> bool:
    return utype(sc, uid) in gd(sc).get("mechanized_types", [])


def is_static(sc: Scenario, uid: str) -> bool:
    return utype(sc, uid) in gd(sc).get("static_types", [])  # 4.8 the flak


def terrain(sc: Scenario, h: str) -> str:
    return sc.board.terrain.get(h, "")


def entry_letter(sc: Scenario, h: str) -> str:
    for letter, hexes in gd(sc).get("entry_hexes", {}).items():
        if h in hexes:
            return letter
    return ""


# --- the Neder Rijn and movement costs (4.x) --------------------------------------

def rijn_between(sc: Scenario, a: str, b: str) -> bool:
    return RIJN in sc.board.side_features(a, b)


def unbridged_rijn(st: RedDevilsState, sc: Scenario, a: str, b: str) -> bool:
    """A Neder Rijn hexside with no road bridge, or the railway bridge once destroyed (11.0)."""
    kind = rijn_sides(sc).get((a, b) if a < b else (b, a))
    return kind is not None and (kind == "unbridged" or st.bridge == "destroyed")


def rijn_sides(sc: Scenario) -> dict[tuple[str, str], str]:
    """The Neder Rijn hexsides without a road bridge, once per scenario (moves, retreats and the
    lines of communication ask for every step): (a, b) with a < b -> "rail" (the railway
    bridge, unbridged once destroyed, 11.0) or "unbridged"."""
    return once_per_scenario(_RIJN, sc, _find_rijn_sides)


_RIJN: dict = {}


def _find_rijn_sides(sc: Scenario) -> dict[tuple[str, str], str]:
    out = {}
    for (a, b), f in sc.board.hexsides.items():
        if RIJN in f and not any(r in f for r in ROADS):
            out[(a, b) if a < b else (b, a)] = "rail" if RAIL_BRIDGE in f else "unbridged"
    return out


def crossings(sc: Scenario) -> tuple[dict[tuple[str, str], str], frozenset[str]]:
    """The hexsides a move's reducer looks at, once per scenario: (a, b) with a < b -> "ferry"
    (4.7) or, a Neder Rijn hexside without a road bridge (4.6), "rail" / "unbridged" as
    ``rijn_sides`` says; and every hex on one of them (a move touching none crosses none)."""
    return once_per_scenario(_CROSSINGS, sc, _find_crossings)


_CROSSINGS: dict = {}


def _find_crossings(sc: Scenario) -> tuple[dict[tuple[str, str], str], frozenset[str]]:
    out = dict(rijn_sides(sc))
    for (a, b), f in sc.board.hexsides.items():
        if FERRY in f:
            out[(a, b) if a < b else (b, a)] = "ferry"
    return out, frozenset(h for k in out for h in k)


def minor_river(sc: Scenario, a: str, b: str) -> bool:
    """A minor river hexside (4.9), from a set made once per scenario."""
    return ((a, b) if a < b else (b, a)) in once_per_scenario(_MINOR, sc, _find_minor_sides)


_MINOR: dict = {}


def _find_minor_sides(sc: Scenario) -> frozenset[tuple[str, str]]:
    return frozenset((a, b) if a < b else (b, a) for (a, b), f in sc.board.hexsides.items() if MINOR in f)


def _cost(sc: Scenario, table: str, key: str, mech: bool) -> str:
    return gd(sc)[table][key][0 if mech else 1]


def path_cost(st: RedDevilsState, sc: Scenario, uid: str, mech: bool) -> "StepCosts":
    """4.2, 4.6, 4.9: what one unit pays for a step, moving mechanized or not (``step(a, b)``: the MP
    to enter b from a, None when prohibited).  The Neder Rijn is read from ``st`` at each step, so
    a bridge destroyed during a move counts from then on (11.0)."""
    # 4.2: through a road hexside only the road cost counts; artillery moves on roads as non-mechanized (4.9)
    return StepCosts(st, sc, mech, mech and not is_artillery(sc, uid))


def plain_path_cost(st: RedDevilsState, sc: Scenario, mech: bool, road_mech: bool) -> PathCost:
    """The PathCost path_cost's steps are those of (``road_mech``: the road costs of a mechanized unit)."""
    col = 0 if mech else 1
    moves = gd(sc)["move_costs"]

    def enter(h: str) -> Fraction | None:
        cost = moves.get(terrain(sc, h), ["P", "P"])[col]
        return None if cost == "P" else frac(cost)

    def side_extra(a: str, b: str) -> Fraction | int | None:
        if unbridged_rijn(st, sc, a, b):
            return None                                   # 4.6: swum, never walked
        if minor_river(sc, a, b):
            return None if mech else 1                    # 4.9 minor river: P for mechanized, else +1
        return 0

    roads = {r: _cost(sc, "road_costs", r, road_mech) for r in ROADS if r in gd(sc)["road_costs"]}
    return PathCost(sc.board, enter, road_costs=roads, road_always_open=True, side_extra=side_extra)


_STEPS: dict = {}
_MISS = object()


class StepCosts:
    """plain_path_cost's ``step``, each answer kept per scenario: a step's cost depends on the map,
    the two ways of moving and whether the railway bridge is down (read at each step, 11.0), and
    moves, retreats and the walk of a move ask for the same steps again and again."""

    __slots__ = ("st", "sc", "mech", "road_mech", "_plain")

    def __init__(self, st: RedDevilsState, sc: Scenario, mech: bool, road_mech: bool):
        self.st, self.sc, self.mech, self.road_mech = st, sc, mech, road_mech
        self._plain: PathCost | None = None

    def step(self, a: str, b: str) -> Fraction | None:
        memos = once_per_scenario(_STEPS, self.sc, lambda sc: {})
        key = (self.mech, self.road_mech, self.st.bridge == "destroyed")
        memo = memos.get(key)
        if memo is None:
            memo = memos[key] = {}
        got = memo.get((a, b), _MISS)
        if got is _MISS:
            if self._plain is None:
                self._plain = plain_path_cost(self.st, self.sc, self.mech, self.road_mech)
            got = self._plain.step(a, b)
            grid = self.sc.board.grid
            if grid.contains(a) and grid.contains(b):         # hexes of the map only: the memo stays bounded
                memo[(a, b)] = got
        return got


def entry_cost(sc: Scenario, uid: str, b: str, mech: bool) -> Fraction | None:
    """MP to enter b from off the map (10.4; None: prohibited): by road where b has one, else its terrain."""
    if sc.board.has(b, "road"):
        road = "major_road" if any("major_road" in sc.board.side_features(b, n)
                                   for n in sc.board.grid.neighbours(b)) else "minor_road"
        return frac(_cost(sc, "road_costs", road, mech and not is_artillery(sc, uid)))
    cost = gd(sc)["move_costs"].get(terrain(sc, b), ["P", "P"])[0 if mech else 1]
    return None if cost == "P" else frac(cost)


def closed_to_mech(sc: Scenario, h: str) -> bool:
    """4.8: mechanized units may not be in ``h`` (its terrain is P for them)."""
    return gd(sc)["move_costs"].get(terrain(sc, h), ["P"])[0] == "P"


def movement_mode(st: RedDevilsState, sc: Scenario, u: UnitState) -> bool:
    """True = mechanized.  4.8: motorized infantry as declared ('mode'), mechanized by default
    unless it starts where mechanized units may not be."""
    if utype(sc, u.id) == "motorized infantry":
        m = st.mode.get(u.id)
        if m:
            return m == "mech"
        if u.hex and closed_to_mech(sc, u.hex):
            return False
        return True
    return is_mech(sc, u.id)


# --- zones of control (4.4) ---------------------------------------------------------

def ezoc(st: RedDevilsState, sc: Scenario, side: str, *, disrupted_exert: bool = True) -> set[str]:
    """4.4: hexes in the ZOC of ``side``'s enemies; none across the Neder Rijn, bridged or not;
    disrupted units exert one too (8.3) unless ``disrupted_exert`` is False."""
    return enemy_zoc(st, sc.board, side, hexsides_block(sc.board, [RIJN]), disrupted_exert=disrupted_exert)


def in_ezoc(st: RedDevilsState, sc: Scenario, h: str, side: str) -> bool:
    return h in ezoc(st, sc, side)
