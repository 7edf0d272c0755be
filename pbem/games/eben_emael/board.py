"""The map and who stands on it: the scenario's Eben Emael data, the printed
fortifications (9.0), hexside features (4.9, 6.5), stacking (4.4) and the
words of an order that name a unit.

Fortifications are kept as units of the Belgian side (type "cupola" or
"casemate", movement 0) so that reports and maps show them; their markers
("inactive", "destroyed") are unit marks.  They are never targets of fire
(5.8), never stack with anything and never move.
"""
from __future__ import annotations

from pbem.core.ruleset import Ctx, find_unit
from pbem.core.scenario import Scenario
from pbem.core.state import GameState, UnitState
from pbem.mechanics.sight import side_key

GERMAN, BELGIAN = "german", "belgian"
FORT_TYPES = ("cupola", "casemate")
OBSTRUCTING_HEXES = ("woods", "hilltop")                 # 6.5
OBSTRUCTING_SIDES = ("wall", "ridge", "slope", "cliff")  # 6.5
SIDE_COST = {"ridge": 1, "wall": 1, "stream": 1, "slope": 1}   # 4.9 (slope only upslope)
SIDE_PROHIBITED = ("cliff",)                             # 4.2, 4.9
HEXSIDE_FEATURES = ("ridge", "wall", "stream", "slope", "cliff")
FIRE_RESULTS = frozenset({"-", "0", "1", "2", "3"})      # 5.9
ASSAULT_RESULTS = ("De", "Ae", "-")                      # 7.9


# --- scenario data ------------------------------------------------------------------------


def gd(sc: Scenario) -> dict:
    return sc.game_data


def forts(sc: Scenario) -> dict[str, str]:
    """hex -> fort unit id (9.0): a fresh dict, built once per scenario (hot in every check)."""
    known = sc.__dict__.get("_ee_forts")
    if known is None:
        known = sc.__dict__["_ee_forts"] = {u.hex: u.id for u in sc.units if u.type in FORT_TYPES and u.hex}
    return dict(known)


def fort_info(sc: Scenario, h: str) -> dict:
    return gd(sc).get("forts", {}).get(h, {})


def is_fort(sc: Scenario, uid: str) -> bool:
    d = sc.unit_defs.get(uid)
    return d is not None and d.type in FORT_TYPES


def terrain(sc: Scenario, h: str) -> str:
    return sc.board.terrain.get(h, "")


# --- hexsides -------------------------------------------------------------------------------


def sides(sc: Scenario) -> dict:
    """(a, b) sorted -> the hexside features between a and b."""
    cache = sc.__dict__.get("_ee_sides")
    if cache is None:
        cache = {}
        for hs in sc.map.hexsides:
            cache.setdefault(side_key(hs.a, hs.b), []).append(hs)
        sc.__dict__["_ee_sides"] = cache
    return cache


def features(sc: Scenario, a: str, b: str) -> set[str]:
    return {hs.feature for hs in sides(sc).get(side_key(a, b), [])}


# Not mechanics hexside_cost: 4.9 charges a slope only upslope and 4.2 prohibits a cliff, which it cannot express.
def hexside_extra(sc: Scenario, a: str, b: str, extra: dict[str, int] = SIDE_COST,
                  prohibited=SIDE_PROHIBITED) -> int | None:
    """Extra MP to cross from a into adjacent b (None: prohibited).  A slope
    costs its extra only upslope: when b is the hexside's ``up`` hex (4.9)."""
    total = 0
    for hs in sides(sc).get(side_key(a, b), []):
        if hs.feature in prohibited:
            return None
        if hs.feature == "slope" and hs.up and hs.up != b:
            continue
        total += extra.get(hs.feature, 0)
    return total


# --- units on the map ----------------------------------------------------------------------


def unit(ctx: Ctx, uid: str, side: str | None = None) -> UnitState:
    """The unit an order names; a fortification may be named by its hex."""
    fs = forts(ctx.sc)
    if len(uid) == 4 and uid.isdigit() and uid in fs:
        uid = fs[uid]
    return find_unit(ctx, uid, side)


# Not mechanics units_at: fortifications are units here but never stack or block (4.4, 9.0), so they are left out.
def squads_at(st: GameState, sc: Scenario) -> dict[str, list[UnitState]]:
    """hex -> the squads (not fortifications) in it."""
    out: dict[str, list[UnitState]] = {}
    for u in st.units.values():
        if u.hex and not u.eliminated and not is_fort(sc, u.id):
            out.setdefault(u.hex, []).append(u)
    return out


def undestroyed_fort(st: GameState, sc: Scenario, h: str) -> UnitState | None:
    fid = forts(sc).get(h)
    if fid is None:
        return None
    f = st.units[fid]
    return None if "destroyed" in f.marks else f


def mark(u: UnitState, m: str) -> None:
    if m not in u.marks:
        u.marks = sorted(u.marks + [m])


def unmark(u: UnitState, m: str) -> None:
    if m in u.marks:
        u.marks = [x for x in u.marks if x != m]
