"""Movement costs in exact fractions, with roads that run along hexsides.

Shared by games whose roads cost a fraction of a movement point (Paratroop:
Crete 4.2 pays 1/3 MP per road hex; Red Devils has roads too).  Costs are
``fractions.Fraction`` throughout: three road hexes cost exactly 1 MP, never
0.9999.

How a road is written down
--------------------------
A road is a set of *hexside connections*, not a set of hexes: in the scenario
each connection is a ``[[map.hexsides]]`` entry ``{ a = "0303", b = "0403",
feature = "road" }``.  A step from hex A to the adjacent hex B is a road step
only when the hexside A|B carries a road feature.  Two road hexes that touch
without a road hexside between them are *not* connected: a unit stepping
between them pays the terrain (Crete 4.2: a road entered through a non-road
hexside has no effect).  Scenario linters check that both hexes of each
connection exist and are adjacent (``pbem.scenario.lint``).

A game builds one ``PathCost`` with:

* ``enter(h)``: the MP to enter hex h by its terrain, or None if prohibited;
* ``road_cost``: what a road step costs (a Fraction);
* ``road_replaces_terrain``: True when a road step costs ``road_cost``
  whatever the terrain entered (Crete 4.2); False to add hexside extras on
  top of it as well;
* ``side_extra(a, b)``: extra MP to cross the hexside a|b (rivers, slopes), 0
  by default, or None if the hexside may not be crossed;
* ``blocked_features``: hexside features that may never be crossed (Crete's
  all-sea hexsides).
"""
from __future__ import annotations

from collections.abc import Callable, Iterable
from fractions import Fraction

from pbem.core.scenario import Board

MP = Fraction


def frac(value: int | str | Fraction) -> Fraction:
    """An exact MP value from an int, a Fraction or text such as "1/3" or "2 1/3"."""
    if isinstance(value, Fraction):
        return value
    if isinstance(value, int):
        return Fraction(value)
    text = str(value).strip()
    if " " in text:
        whole, part = text.split(None, 1)
        return Fraction(int(whole)) + Fraction(part)
    return Fraction(text)


def fmt(value: Fraction) -> str:
    """Readable MP: 2, 1/3, 2 1/3."""
    value = Fraction(value)
    if value.denominator == 1:
        return str(value.numerator)
    whole, rest = divmod(value.numerator, value.denominator)
    part = f"{rest}/{value.denominator}"
    return f"{whole} {part}" if whole else part


def ceil_mp(value: Fraction) -> int:
    """Whole MP rounded up (for event fields that hold integers)."""
    return -(-value.numerator // value.denominator)


class PathError(ValueError):
    """A step that may not be taken: ``index`` is the step's position in the path."""

    def __init__(self, index: int, hex: str, reason: str):
        super().__init__(reason)
        self.index, self.hex, self.reason = index, hex, reason


class PathCost:
    """Exact movement costs on one board (see the module text)."""

    def __init__(self, board: Board, enter: Callable[[str], Fraction | None], *,
                 road_features: Iterable[str] = ("road",), road_cost: Fraction = Fraction(1, 3),
                 road_replaces_terrain: bool = True,
                 side_extra: Callable[[str, str], Fraction | None] | None = None,
                 blocked_features: Iterable[str] = ()):
        self.board = board
        self.enter = enter
        self.road_features = frozenset(road_features)
        self.road_cost = Fraction(road_cost)
        self.road_replaces_terrain = road_replaces_terrain
        self.side_extra = side_extra
        self.blocked = frozenset(blocked_features)

    def is_road(self, a: str, b: str) -> bool:
        """True when the hexside between adjacent hexes a and b carries a road."""
        return bool(self.road_features & self.board.side_features(a, b))

    def step(self, a: str, b: str) -> Fraction | None:
        """MP to move from a into the adjacent hex b, or None if that step is prohibited."""
        grid = self.board.grid
        if not grid.contains(b) or not grid.adjacent(a, b):
            return None
        feats = self.board.side_features(a, b)
        if self.blocked & feats:
            return None
        base = self.enter(b)
        if base is None:
            return None
        extra = Fraction(0)
        if self.side_extra is not None:
            e = self.side_extra(a, b)
            if e is None:
                return None
            extra = Fraction(e)
        if self.road_features & feats:
            return self.road_cost if self.road_replaces_terrain else self.road_cost + extra
        return Fraction(base) + extra

    def path(self, start: str, path: list[str]) -> list[Fraction]:
        """The running total after each step of ``path`` from ``start``; PathError at the first bad step."""
        out: list[Fraction] = []
        here, total = start, Fraction(0)
        for i, h in enumerate(path):
            if not self.board.grid.contains(h):
                raise PathError(i, h, f"{h} is not on the map")
            if not self.board.grid.adjacent(here, h):
                raise PathError(i, h, f"{h} is not adjacent to {here}: a path goes hex by hex")
            c = self.step(here, h)
            if c is None:
                raise PathError(i, h, f"{h} may not be entered from {here}")
            total += c
            out.append(total)
            here = h
        return out

    def reachable(self, start: str, ma: Fraction | int, *, may_enter: Callable[[str], bool] = lambda h: True,
                  must_stop: Callable[[str], bool] = lambda h: False,
                  first_ok: Callable[[str], bool] = lambda h: True) -> dict[str, Fraction]:
        """Cheapest exact cost to every hex reachable within ``ma`` (Dijkstra on Fractions).

        ``may_enter(h)``: False for hexes that may not be entered at all;
        ``must_stop(h)``: True where a unit must stop (it may enter, not leave);
        ``first_ok(h)``: False for hexes that may not be the first step."""
        ma = Fraction(ma)
        best: dict[str, Fraction] = {start: Fraction(0)}
        frontier: list[tuple[Fraction, str]] = [(Fraction(0), start)]
        done: set[str] = set()
        while frontier:
            frontier.sort(key=lambda t: (t[0], t[1]))
            cost, h = frontier.pop(0)
            if h in done:
                continue
            done.add(h)
            if h != start and must_stop(h):
                continue
            for n in self.board.grid.neighbours(h):
                if not may_enter(n) or (h == start and not first_ok(n)):
                    continue
                c = self.step(h, n)
                if c is None or cost + c > ma:
                    continue
                if n not in best or cost + c < best[n]:
                    best[n] = cost + c
                    frontier.append((cost + c, n))
        best.pop(start, None)
        return best
