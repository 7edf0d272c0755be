"""The perimeter's ground as the rules read it: field emplacements that the game can
remove (wire cleared 31.85, a bunker destroyed 31.54: ``TobrukState.cleared``),
the hexes where personnel may go under cover into FULL (31.25, 31.34, 31.5, 31.74,
33.73), and the levels of deirs and wadis (33.41, 33.71).

Map names (a project convention, like the hillock levels of spotting.py): hex
features ``wire`` (31.8), ``trench`` (an anti-tank trench, 31.7), ``bunker`` (31.5),
``hedgehog`` (31.2), ``pit`` (31.3), ``sangar`` (31.4); terrain ``deir`` (level -5),
``wadi`` (level -10) and the feature ``wadi-end`` on a wadi hex where the wadi meets
the plain (33.71, 33.72).  A card without them plays as before: nothing here
changes a rule for a hex that has none of these names."""
from __future__ import annotations

from pbem.core.scenario import Scenario
from pbem.games.advanced_tobruk import data
from pbem.games.advanced_tobruk.board.spotting import level as hill_level
from pbem.games.advanced_tobruk.state import TobrukState
from pbem.core.hexgrid import DIRECTIONS

WIRE, TRENCH, BUNKER, HEDGEHOG, PIT, SANGAR = "wire", "trench", "bunker", "hedgehog", "pit", "sangar"
DEIR, WADI, WADI_END = "deir", "wadi", "wadi-end"
DEIR_LEVEL, WADI_LEVEL = -5, -10                  # 33.41, 33.71
# 31.253, 31.34, 31.53, 31.74, 33.73: where personnel may be under cover (FULL); a sangar has
# no FULL (31.42), a blockhouse is not built
FULL_KINDS = (BUNKER, TRENCH, HEDGEHOG, PIT)


def has(st: TobrukState, sc: Scenario, h: str | None, feature: str) -> bool:
    """The map shows ``feature`` in ``h`` and the game has not removed it."""
    return bool(h) and sc.board.has(h, feature) and f"{h}:{feature}" not in st.cleared


def is_deir(sc: Scenario, h: str | None) -> bool:
    return bool(h) and data.terrain(sc, h) == DEIR


def is_wadi(sc: Scenario, h: str | None) -> bool:
    return bool(h) and data.terrain(sc, h) == WADI


def is_wadi_end(sc: Scenario, h: str | None) -> bool:
    return is_wadi(sc, h) and sc.board.has(h, WADI_END)


def level(sc: Scenario, h: str | None) -> int:
    """33.11-33.13, 33.41, 33.71: the ground level of a hex: a hillock's, or -5 in a deir, -10 in a wadi."""
    if is_wadi(sc, h):
        return WADI_LEVEL
    if is_deir(sc, h):
        return DEIR_LEVEL
    return hill_level(sc, h)


def contour(sc: Scenario, a: str, b: str) -> bool:
    """33.35, 33.43: the hexside between adjacent ``a`` and ``b`` is a contour of a deir or hillock
    (the ground level changes across it); a wadi's banks are no contours (33.13)."""
    if is_wadi(sc, a) or is_wadi(sc, b):
        return False
    return level(sc, a) != level(sc, b)


def full_kind(st: TobrukState, sc: Scenario, h: str | None) -> str:
    """The cover a personnel unit in ``h`` may go under into FULL: 'bunker', 'trench', 'hedgehog',
    'pit' or 'wadi' ('' for none)."""
    for name in FULL_KINDS:
        if has(st, sc, h, name):
            return name
    return WADI if is_wadi(sc, h) else ""


def same_cover(st: TobrukState, sc: Scenario, a: str, b: str) -> bool:
    """31.256, 31.33, 33.73: a unit in FULL cover in ``a`` may move to the adjacent ``b`` and stay
    under cover: hedgehog to hedgehog or weapon pit, trench to trench, wadi to wadi."""
    ka, kb = full_kind(st, sc, a), full_kind(st, sc, b)
    if not ka or not kb or BUNKER in (ka, kb):
        return False
    if ka == HEDGEHOG:
        return kb in (HEDGEHOG, PIT)
    if ka == PIT:
        return kb == HEDGEHOG
    return ka == kb


def in_bunker(st: TobrukState, sc: Scenario, uid: str) -> bool:
    """31.53: a unit under (inside) a bunker: FULL cover in a bunker hex."""
    h = st.units[uid].hex
    return st.pieces[uid].full and has(st, sc, h, BUNKER)


def wadi_dirs(sc: Scenario, h: str) -> list[int]:
    """The hexsides (0..5, N..NW) of a wadi hex that the wadi crosses (to another wadi hex)."""
    grid = sc.board.grid
    return [i for i, d in enumerate(DIRECTIONS) if is_wadi(sc, grid.neighbour(h, d))]
