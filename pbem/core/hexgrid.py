"""Hex grid geometry for maps with printed four-digit ``XXYY`` hex numbers.

Hexes are flat-topped and stacked in vertical columns; XX is the column
(increasing eastward) and YY the row (increasing southward).  Every other
column sits half a hex lower, declared per scenario by ``offset``:

* ``"even-down"`` -- even-numbered columns are shifted down;
* ``"odd-down"``  -- odd-numbered columns are shifted down.

Internally hexes are converted to cube coordinates ``(x, y, z)`` with
``x + y + z == 0``: ``x`` is the column, and ``N`` is ``(0, +1, -1)``.
Everything is pure, deterministic stdlib code; conversions are cached.
"""

from __future__ import annotations

from functools import lru_cache

Hex = str  # "XXYY"
Cube = tuple[int, int, int]

DIRECTIONS: tuple[str, ...] = ("N", "NE", "SE", "S", "SW", "NW")

# Cube offset for each direction, in DIRECTIONS order.
_VECTORS: tuple[Cube, ...] = (
    (0, 1, -1),   # N
    (1, 0, -1),   # NE
    (1, -1, 0),   # SE
    (0, -1, 1),   # S
    (-1, 0, 1),   # SW
    (-1, 1, 0),   # NW
)
_DIR_VECTOR: dict[str, Cube] = dict(zip(DIRECTIONS, _VECTORS))
_VECTOR_DIR: dict[Cube, str] = dict(zip(_VECTORS, DIRECTIONS))

OFFSETS: tuple[str, ...] = ("even-down", "odd-down")
EDGES: tuple[str, ...] = ("north", "south", "east", "west")

# Tie-breaking nudge for line drawing; not parallel to any hexside.
_EPS: tuple[float, float, float] = (1e-6, 2e-6, -3e-6)


@lru_cache(maxsize=None)                 # bounded all the same: only the 10,000 valid numbers are cached
def _parse(text: str) -> tuple[int, int]:
    if not (text.isascii() and text.isdigit()):
        raise ValueError(f"hex number must be exactly four digits XXYY, got {text!r}")
    if len(text) != 4:
        # "01234" is refused, not read as column 01 row 234 or column 012 row 34.
        raise ValueError(f"hex number {text!r} has {len(text)} digits; it must have exactly four, XXYY "
                         f"(column 00-99, row 00-99)")
    return int(text[:2]), int(text[2:])


def parse_hex(text: str) -> tuple[int, int]:
    """Parse ``"XXYY"`` into ``(col, row)``; ValueError unless exactly 4 ASCII digits."""
    if not isinstance(text, str):
        raise ValueError(f"hex number must be a four-digit string XXYY, got {text!r}")
    return _parse(text)


def format_hex(col: int, row: int) -> str:
    """Format ``(col, row)`` as ``"XXYY"``; ValueError if either is outside 0..99."""
    if not (0 <= col <= 99 and 0 <= row <= 99):
        raise ValueError(f"hex column/row must be within 0..99, got ({col}, {row})")
    return f"{col:02d}{row:02d}"


@lru_cache(maxsize=None)
def _to_cube(col: int, row: int, odd_down: bool) -> Cube:
    # A shifted column sits half a hex lower, so its rows line up "earlier".
    z = row - (col // 2 if odd_down else (col + 1) // 2)
    return (col, -col - z, z)


@lru_cache(maxsize=None)
def _from_cube(x: int, z: int, odd_down: bool) -> Hex:
    if not 0 <= x <= 99:
        raise ValueError(f"cube {(x, -x - z, z)} has column {x}, outside 0..99")
    row = z + (x // 2 if odd_down else (x + 1) // 2)
    if not 0 <= row <= 99:
        raise ValueError(f"cube {(x, -x - z, z)} has row {row}, outside 0..99")
    return format_hex(x, row)


def _cube_round(x: float, y: float, z: float) -> Cube:
    rx, ry, rz = round(x), round(y), round(z)
    dx, dy, dz = abs(rx - x), abs(ry - y), abs(rz - z)
    if dx > dy and dx > dz:
        rx = -ry - rz
    elif dy > dz:
        ry = -rx - rz
    else:
        rz = -rx - ry
    return (rx, ry, rz)


def _cube_distance(a: Cube, b: Cube) -> int:
    return max(abs(a[0] - b[0]), abs(a[1] - b[1]), abs(a[2] - b[2]))


class Grid:
    """A rectangular block of numbered hexes with a column-offset convention."""

    __slots__ = ("first_col", "last_col", "first_row", "last_row", "offset", "_odd", "_nb", "_in", "_cube",
                 "_all", "_edges", "_memo")

    def __init__(self, first_col: int, last_col: int, first_row: int, last_row: int,
                 offset: str = "even-down") -> None:
        if offset not in OFFSETS:
            raise ValueError(f"offset must be one of {OFFSETS}, got {offset!r}")
        if not (0 <= first_col <= last_col <= 99 and 0 <= first_row <= last_row <= 99):
            raise ValueError(
                f"bad grid bounds: cols {first_col}..{last_col}, rows {first_row}..{last_row}")
        self.first_col, self.last_col = first_col, last_col
        self.first_row, self.last_row = first_row, last_row
        self.offset = offset
        self._odd = offset == "odd-down"
        self._nb: dict[str, tuple[Hex, ...]] = {}      # neighbours, computed once per hex (hot in verify)
        self._in: dict[str, bool] = {}                 # contains(), likewise
        self._cube: dict[str, Cube] = {}               # to_cube(), likewise
        self._all: tuple[Hex, ...] | None = None       # all_hexes()
        self._edges: dict[str, tuple[Hex, ...]] = {}   # edge_hexes()
        self._memo: dict[str, dict] = {}               # memo(): the mechanics' per-grid caches

    def __repr__(self) -> str:
        return (f"Grid({self.first_col}, {self.last_col}, {self.first_row}, "
                f"{self.last_row}, offset={self.offset!r})")

    # -- numbering -------------------------------------------------------
    def contains(self, h: str) -> bool:
        """True if ``h`` is a well-formed hex number inside the map bounds."""
        known = self._in.get(h) if isinstance(h, str) else None
        if known is not None:
            return known
        try:
            col, row = parse_hex(h)
        except (ValueError, TypeError):
            return False
        inside = self.first_col <= col <= self.last_col and self.first_row <= row <= self.last_row
        if len(self._in) < 100_000:                    # bounded: junk input must not grow it forever
            self._in[h] = inside
        return inside

    def all_hexes(self) -> list[Hex]:
        """Every on-map hex, sorted by column then row."""
        if self._all is None:
            self._all = tuple(format_hex(c, r)
                              for c in range(self.first_col, self.last_col + 1)
                              for r in range(self.first_row, self.last_row + 1))
        return list(self._all)

    def edge_hexes(self, edge: str) -> tuple[Hex, ...]:
        """The on-map hexes for which ``is_edge(h, edge)`` holds, in all_hexes() order."""
        known = self._edges.get(edge)
        if known is None:
            if edge not in EDGES:
                raise ValueError(f"edge must be one of {EDGES}, got {edge!r}")
            known = self._edges[edge] = tuple(h for h in self.all_hexes() if self.is_edge(h, edge))
        return known

    def memo(self, name: str) -> dict:
        """A dict kept with this grid under ``name``: for caches of answers that depend on
        the grid alone (or on data as fixed as the grid, like a scenario's board)."""
        d = self._memo.get(name)
        if d is None:
            d = self._memo[name] = {}
        return d

    def to_cube(self, h: str) -> Cube:
        """Cube coordinates of ``h`` (need not be on the map)."""
        try:
            c = self._cube.get(h)
        except TypeError:                               # unhashable: parse_hex says what is wrong
            c = None
        if c is None:
            col, row = parse_hex(h)
            c = _to_cube(col, row, self._odd)
            if len(self._cube) < 10_000:               # only valid numbers get here: at most 10,000
                self._cube[h] = c
        return c

    def from_cube(self, c: Cube) -> Hex:
        """Hex number for cube ``c``; ValueError if it cannot be numbered."""
        x, y, z = c
        if x + y + z != 0:
            raise ValueError(f"cube coordinates must sum to 0, got {c}")
        return _from_cube(x, z, self._odd)

    def _number(self, c: Cube) -> Hex | None:
        try:
            return _from_cube(c[0], c[2], self._odd)
        except ValueError:
            return None

    def _on_map(self, c: Cube) -> Hex | None:
        h = self._number(c)
        return h if h is not None and self.contains(h) else None

    # -- adjacency -------------------------------------------------------
    def neighbour(self, h: str, direction: str) -> Hex | None:
        """The hex adjacent to ``h`` in ``direction``, or None if off the map."""
        try:
            dx, dy, dz = _DIR_VECTOR[direction]
        except KeyError:
            raise ValueError(f"direction must be one of {DIRECTIONS}, got {direction!r}") from None
        x, y, z = self.to_cube(h)
        return self._on_map((x + dx, y + dy, z + dz))

    def neighbours(self, h: str) -> list[Hex]:
        """On-map hexes adjacent to ``h``, in DIRECTIONS order."""
        known = self._nb.get(h)
        return list(known if known is not None else self.around(h))

    def around(self, h: str) -> tuple[Hex, ...]:
        """neighbours() as a shared tuple, computed once per hex (for hot loops)."""
        known = self._nb.get(h)
        if known is None:
            x, y, z = self.to_cube(h)
            known = tuple(n for dx, dy, dz in _VECTORS if (n := self._on_map((x + dx, y + dy, z + dz))) is not None)
            self._nb[h] = known
        return known

    def direction(self, a: str, b: str) -> str | None:
        """Direction name from ``a`` to ``b`` if they are adjacent, else None."""
        ax, ay, az = self.to_cube(a)
        bx, by, bz = self.to_cube(b)
        return _VECTOR_DIR.get((bx - ax, by - ay, bz - az))

    def distance(self, a: str, b: str) -> int:
        """Hex distance between ``a`` and ``b`` (on or off the map)."""
        return _cube_distance(self.to_cube(a), self.to_cube(b))

    def adjacent(self, a: str, b: str) -> bool:
        """True if ``a`` and ``b`` share a hexside."""
        return self.direction(a, b) is not None

    def hexside(self, a: str, b: str) -> tuple[Hex, Hex]:
        """Canonical key (sorted pair) for the side between adjacent ``a`` and ``b``."""
        if not self.adjacent(a, b):
            raise ValueError(f"{a} and {b} are not adjacent")
        return (a, b) if a < b else (b, a)

    def is_edge(self, h: str, edge: str) -> bool:
        """True if ``h`` lies in the first/last row or column named by ``edge``."""
        col, row = parse_hex(h)
        if edge == "north":
            return row == self.first_row
        if edge == "south":
            return row == self.last_row
        if edge == "west":
            return col == self.first_col
        if edge == "east":
            return col == self.last_col
        raise ValueError(f"edge must be one of {EDGES}, got {edge!r}")

    # -- areas -----------------------------------------------------------
    def ring(self, h: str, radius: int) -> list[Hex]:
        """On-map hexes at exactly ``radius`` from ``h``, clockwise from north."""
        if radius < 0:
            raise ValueError(f"radius must be >= 0, got {radius}")
        cx, cy, cz = self.to_cube(h)
        if radius == 0:
            return [h] if self.contains(h) else []
        x, y, z = cx, cy + radius, cz - radius  # start due north
        out = []
        for i in range(6):
            dx, dy, dz = _VECTORS[(i + 2) % 6]
            for _ in range(radius):
                n = self._on_map((x, y, z))
                if n is not None:
                    out.append(n)
                x, y, z = x + dx, y + dy, z + dz
        return out

    def within(self, h: str, radius: int) -> list[Hex]:
        """On-map hexes at distance <= ``radius`` from ``h`` (including ``h``), sorted."""
        if radius < 0:
            raise ValueError(f"radius must be >= 0, got {radius}")
        cx, cy, cz = self.to_cube(h)
        out = []
        for dx in range(-radius, radius + 1):
            for dy in range(max(-radius, -dx - radius), min(radius, -dx + radius) + 1):
                n = self._on_map((cx + dx, cy + dy, cz - dx - dy))
                if n is not None:
                    out.append(n)
        out.sort()
        return out

    # -- lines -----------------------------------------------------------
    def _line(self, a: str, b: str, both: bool) -> list[tuple[Hex, Hex]]:
        ax, ay, az = self.to_cube(a)
        bx, by, bz = self.to_cube(b)
        n = max(abs(ax - bx), abs(ay - by), abs(az - bz))
        if n == 0:
            return [(a, a)]
        ex, ey, ez = _EPS
        out = []
        for i in range(n + 1):
            j = n - i
            x = (ax * j + bx * i) / n
            y = (ay * j + by * i) / n
            z = (az * j + bz * i) / n
            plus = self._number(_cube_round(x + ex, y + ey, z + ez))
            minus = None
            if both or plus is None or not self.contains(plus):
                minus = self._number(_cube_round(x - ex, y - ey, z - ez))
            # Along the very map-number edge one candidate can be unnumberable
            # (row 00/99, column 00/99); fall back to the other one.
            if plus is None:
                plus = minus
            if minus is None:
                minus = plus
            if plus is None:  # pragma: no cover - cannot happen between numbered hexes
                raise ValueError(f"line {a}-{b} leaves the numbered area")
            out.append((plus, minus))
        return out

    def line(self, a: str, b: str) -> list[Hex]:
        """Hexes from ``a`` to ``b`` inclusive along the line between centres.

        Ties (the line passing exactly through a hexside) are broken by a fixed
        nudge, preferring an on-map hex, so ``line(b, a)`` is exactly
        ``line(a, b)`` reversed.
        """
        return [m if m != p and self.contains(m) and not self.contains(p) else p
                for p, m in self._line(a, b, False)]

    def line_pairs(self, a: str, b: str) -> list[tuple[Hex, Hex]]:
        """Like line(), but each step is ``(hex nudged +eps, hex nudged -eps)``.

        The two differ exactly where the centre line runs along (or passes
        exactly through) a hexside; elsewhere both entries are the same hex.
        Candidates that cannot be numbered (beyond 00/99) are replaced by the
        other one.
        """
        return self._line(a, b, True)
