"""Line of sight over hexes and hexsides, shared by the tactical games.

A line of sight runs from the centre of one hex to the centre of another.
What it passes through decides whether it is clear:

* an intermediate hex whose terrain obstructs blocks it; the two end hexes
  never do ("into but not through": a unit in woods can be seen, a unit
  behind woods cannot);
* a hexside it crosses whose feature obstructs blocks it (a wall, a ridge);
* where it runs exactly along a hexside, that hexside blocks if it
  obstructs, and the two hexes on either side of the run are judged by the
  ``along`` parameter: ``"both"`` (the default) blocks only when the line
  cannot be traced past on either side, ``"either"`` blocks when one side
  blocks.

Degenerate lines (along a hexside, through a vertex) are settled the way
``hexgrid.Grid.line_pairs`` settles them: the line is nudged a hair to each
side and each nudged line is judged on its own.  The geometry is exact
rather than sampled: a centre-to-centre line can clip the corner of a hex
that the sampled ``Grid.line`` does not list (on an even-down grid
0606-1202 clips 0804 and 1004), and such a hex counts.  ``Grid.line_pairs``
still supplies the candidates: every hex the line touches is on the sampled
line or next to it.

Game-specific exceptions are parameters of ``SightRules``: elevated end
hexes (hilltops) that only some hexsides obstruct, and a separate test for
adjacent hexes.  Everything is pure and deterministic, and symmetric: the
line from a to b is judged exactly as the line from b to a.
"""
from __future__ import annotations

import math
from collections.abc import Callable

import msgspec

from pbem.core.hexgrid import Grid

S3 = math.sqrt(3.0)
_NORMALS = ((0.0, 1.0), (S3 / 2, 0.5), (S3 / 2, -0.5))
_HALF = S3 / 2            # half-width of a hex (radius 1) across each pair of hexsides
_EPS = 1e-6               # the nudge, in hex radii
_CUBE_DIRS = ((0, 1, -1), (1, 0, -1), (1, -1, 0), (0, -1, 1), (-1, 0, 1), (-1, 1, 0))

Side = tuple[str, str]


def side_key(a: str, b: str) -> Side:
    return (a, b) if a < b else (b, a)


def _centre(c: tuple[int, int, int]) -> tuple[float, float]:
    x, _, z = c
    return 1.5 * x, S3 * (z + x / 2)


def _entry(p: tuple[float, float], d: tuple[float, float], centre: tuple[float, float]) -> float | None:
    """Parameter t in [0, 1] where the segment p + t*d enters the open hexagon
    around ``centre``, or None if it misses the interior."""
    lo, hi = 0.0, 1.0
    for nx, ny in _NORMALS:
        c = (p[0] - centre[0]) * nx + (p[1] - centre[1]) * ny
        dd = d[0] * nx + d[1] * ny
        if abs(dd) < 1e-15:
            if abs(c) >= _HALF:
                return None
            continue
        t1, t2 = (-_HALF - c) / dd, (_HALF - c) / dd
        if t1 > t2:
            t1, t2 = t2, t1
        lo, hi = max(lo, t1), min(hi, t2)
        if lo >= hi:
            return None
    return lo


# Frozen msgspec Structs rather than dataclasses: as immutable and comparable, and far
# cheaper to define at import (every command that opens a game of these rules imports this).
class Trace(msgspec.Struct, frozen=True):
    """What one (nudged) line passes through."""
    hexes: tuple[str, ...]        # every hex entered, in order, ends included
    sides: tuple[Side, ...]       # hexsides crossed, in order (sorted pairs)


class Path(msgspec.Struct, frozen=True):
    """The line from a to b: the two nudged traces and the hexsides run along."""
    a: str
    b: str
    left: Trace
    right: Trace
    along: tuple[Side, ...]

    @property
    def intermediate(self) -> set[str]:
        return (set(self.left.hexes) | set(self.right.hexes)) - {self.a, self.b}


def _trace(grid: Grid, a: str, b: str, cands: list[tuple[tuple[int, int, int], str]], shift: float) -> Trace:
    pa, pb = _centre(grid.to_cube(a)), _centre(grid.to_cube(b))
    d = (pb[0] - pa[0], pb[1] - pa[1])
    n = math.hypot(*d)
    off = (-d[1] / n * shift, d[0] / n * shift)
    p = (pa[0] + off[0], pa[1] + off[1])
    hits = []
    for c, name in cands:
        t = _entry(p, d, _centre(c))
        if t is not None:
            hits.append((t, name))
    hits.sort()
    hexes = tuple(h for _, h in hits)
    sides = tuple(side_key(x, y) for x, y in zip(hexes, hexes[1:]))
    return Trace(hexes, sides)


def trace(grid: Grid, a: str, b: str) -> Path:
    """The hexes and hexsides the centre-to-centre line from a to b meets.

    Computed on the canonical direction (smaller hex number first) so that
    trace(a, b) and trace(b, a) describe the same line."""
    if a == b:
        t = Trace((a,), ())
        return Path(a, b, t, t, ())
    memo = grid.memo("sight.trace")             # pure geometry of the grid, and Paths are frozen
    known = memo.get((a, b))
    if known is None:
        known = _trace_line(grid, a, b)
        if len(memo) < 50_000:
            memo[(a, b)] = known
    return known


def _trace_line(grid: Grid, a: str, b: str) -> Path:
    lo, hi = (a, b) if a < b else (b, a)
    seen: dict[tuple[int, int, int], str] = {}
    for p, m in grid.line_pairs(lo, hi):
        for h in (p, m):
            x, y, z = grid.to_cube(h)
            for dx, dy, dz in ((0, 0, 0),) + _CUBE_DIRS:
                c = (x + dx, y + dy, z + dz)
                if c not in seen:
                    try:
                        seen[c] = grid.from_cube(c)
                    except ValueError:
                        seen[c] = f"?{c}"      # beyond the numbered area: never blocks
    cands = sorted(seen.items())
    left = _trace(grid, lo, hi, cands, _EPS)
    right = _trace(grid, lo, hi, cands, -_EPS)
    along = []
    if left.hexes != right.hexes:
        lset, rset = set(left.hexes) - set(right.hexes), set(right.hexes) - set(left.hexes)
        for x in sorted(lset):
            for y in sorted(rset):
                if not x.startswith("?") and not y.startswith("?") and grid.adjacent(x, y):
                    along.append(side_key(x, y))
    if a != lo:
        left, right = Trace(left.hexes[::-1], left.sides[::-1]), Trace(right.hexes[::-1], right.sides[::-1])
    return Path(a, b, left, right, tuple(sorted(set(along))))


def _never_hex(h: str) -> bool:
    return False


def _never_side(x: str, y: str) -> bool:
    return False


class SightRules(msgspec.Struct, frozen=True):
    """What obstructs a line of sight in one game.

    hex_blocks(h)      -- terrain of an intermediate hex obstructs;
    side_blocks(x, y)  -- the hexside between x and y obstructs (crossed or run along);
    along              -- "both" or "either": a run along a hexside between two hexes
                          is blocked when both / either of the two nudged lines is;
    adjacent_side_blocks(x, y) -- for adjacent ends, which hexside blocks (None = side_blocks);
    elevated(h)        -- an end hex that sees over hex terrain (a hilltop): when either
                          end is elevated, hexes never block and only
                          elevated_side_blocks(x, y) hexsides do;
    ends_block         -- True only for games where the end hexes' own terrain blocks.
    """
    hex_blocks: Callable[[str], bool] = _never_hex
    side_blocks: Callable[[str, str], bool] = _never_side
    along: str = "both"
    adjacent_side_blocks: Callable[[str, str], bool] | None = None
    elevated: Callable[[str], bool] | None = None
    elevated_side_blocks: Callable[[str, str], bool] = _never_side
    ends_block: bool = False
    extra: dict = msgspec.field(default_factory=dict)


def _trace_blocked(tr: Trace, a: str, b: str, hex_blocks, side_blocks, ends_block: bool) -> bool:
    for h in tr.hexes:
        if h.startswith("?"):
            continue
        if (h not in (a, b) or ends_block) and hex_blocks(h):
            return True
    return any(not x.startswith("?") and not y.startswith("?") and side_blocks(x, y) for x, y in tr.sides)


def blocked_by(grid: Grid, a: str, b: str, rules: SightRules) -> str:
    """Why the line from a to b is blocked ("" if it is clear)."""
    if a == b:
        return ""
    if grid.adjacent(a, b):
        test = rules.adjacent_side_blocks or rules.side_blocks
        return f"hexside {a}-{b}" if test(a, b) else ""
    hex_blocks, side_blocks = rules.hex_blocks, rules.side_blocks
    if rules.elevated is not None and (rules.elevated(a) or rules.elevated(b)):
        hex_blocks, side_blocks = _never_hex, rules.elevated_side_blocks
    path = trace(grid, a, b)
    for x, y in path.along:
        if side_blocks(x, y):
            return f"runs along the hexside {x}-{y}"
    lb = _trace_blocked(path.left, a, b, hex_blocks, side_blocks, rules.ends_block)
    rb = _trace_blocked(path.right, a, b, hex_blocks, side_blocks, rules.ends_block)
    if (lb and rb) if rules.along == "both" else (lb or rb):
        return _first_obstacle(path, a, b, hex_blocks, side_blocks, rules.ends_block)
    return ""


def _first_obstacle(path: Path, a, b, hex_blocks, side_blocks, ends_block) -> str:
    for tr in (path.left, path.right):
        for h in tr.hexes:
            if not h.startswith("?") and (h not in (a, b) or ends_block) and hex_blocks(h):
                return f"hex {h}"
        for x, y in tr.sides:
            if not x.startswith("?") and not y.startswith("?") and side_blocks(x, y):
                return f"hexside {x}-{y}"
    return "obstructed"


def clear(grid: Grid, a: str, b: str, rules: SightRules) -> bool:
    """True if a and b can see each other (and so b and a)."""
    return not blocked_by(grid, a, b, rules)
