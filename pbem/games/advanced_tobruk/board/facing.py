"""Facing, covered arcs and target aspect on the flat-topped hex grid (6.52, 12.1, 13.51).

A facing is a hex spine, 0..5 clockwise from the spine between the N and NE
hexsides (names NNE, E, SSE, SSW, W, NNW).  Facing ``k`` has its two front
hexsides in DIRECTIONS[k] and DIRECTIONS[k+1], its flanks in k+2 and k+5 and
its rear in k+3 and k+4.  Any offset between two hexes splits uniquely into
non-negative steps along two neighbouring directions (a 60-degree wedge), which
gives the covered arc and the hexside a line of fire crosses."""
from __future__ import annotations

from pbem.core.hexgrid import DIRECTIONS, Grid

SPINES = ("NNE", "E", "SSE", "SSW", "W", "NNW")
_VEC = ((0, 1, -1), (1, 0, -1), (1, -1, 0), (0, -1, 1), (-1, 0, 1), (-1, 1, 0))   # DIRECTIONS order


def spine(name: str) -> int:
    """A spine's number from its name (case-insensitive); ValueError if unknown."""
    try:
        return SPINES.index(name.upper())
    except ValueError:
        raise ValueError(f"a facing is a hex spine: {' '.join(SPINES)}") from None


def front_dirs(f: int) -> tuple[str, str]:
    return DIRECTIONS[f % 6], DIRECTIONS[(f + 1) % 6]


def rear_dirs(f: int) -> tuple[str, str]:
    return DIRECTIONS[(f + 3) % 6], DIRECTIONS[(f + 4) % 6]


def spine_turns(a: int, b: int) -> int:
    """Hex spine changes from facing a to facing b (6.533: one MP each)."""
    d = (b - a) % 6
    return min(d, 6 - d)


def _split(grid: Grid, frm: str, to: str) -> tuple[int, int, int]:
    """(j, a, b): offset frm->to = a*DIRECTIONS[j] + b*DIRECTIONS[j+1], a > 0, b >= 0 (j=-1 for the same hex)."""
    fx, fy, fz = grid.to_cube(frm)
    tx, ty, tz = grid.to_cube(to)
    dx, dz = tx - fx, tz - fz
    if dx == 0 and dz == 0:
        return -1, 0, 0
    for j in range(6):
        x1, _, z1 = _VEC[j]
        x2, _, z2 = _VEC[(j + 1) % 6]
        a = dx * z2 - x2 * dz                # the determinant of every neighbouring pair is 1
        b = x1 * dz - z1 * dx
        if a > 0 and b >= 0:
            return j, a, b
    raise AssertionError("unreachable: the six wedges cover the plane")


def in_arc(grid: Grid, at: str, facing: int, target: str) -> bool:
    """``target`` lies in the covered arc of a unit at ``at`` facing ``facing``:
    the wedge through its two front hexsides (12.12); its own hex counts."""
    j, a, b = _split(grid, at, target)
    if j < 0:
        return True
    f = facing % 6
    return j == f or (j == (f + 1) % 6 and b == 0)


def in_sponson_arc(grid: Grid, at: str, facing: int, target: str) -> bool:
    """27.03: the Grant's sponson 75 mm: the angle between the facing spine and the next spine
    clockwise (the right front), both included; our reading of 'front-right' to 'right
    front-flank' spine for a vehicle that faces a spine (6.521).  Its own hex counts."""
    j, a, b = _split(grid, at, target)
    if j < 0:
        return True
    f = facing % 6
    return j == f and b >= a or j == (f + 1) % 6 and a >= b


def _category(rel: int) -> str:
    return "front" if rel in (0, 1) else "rear" if rel in (3, 4) else "flank"


def crossed_sides(grid: Grid, target: str, frm: str) -> list[int]:
    """The target hexside(s) a line from ``frm`` crosses into ``target``: one, or two along a spine."""
    j, a, b = _split(grid, target, frm)
    if j < 0:
        return []
    if a > b:
        return [j]
    if a < b:
        return [(j + 1) % 6]
    return [j, (j + 1) % 6]


def aspect(grid: Grid, target: str, facing: int, frm: str, moving: bool = False) -> str:
    """'front', 'flank' or 'rear': the target's side facing the firer (13.511); along
    a spine front beats flank (13.512), flank/rear is rear unless moving (13.513)."""
    sides = crossed_sides(grid, target, frm)
    if not sides:
        return "front"                        # 13.531 same hex: front unless the entry says otherwise
    cats = {_category((s - facing) % 6) for s in sides}
    if len(cats) == 1:
        return cats.pop()
    if "front" in cats:
        return "front"
    return "flank" if moving else "rear"
