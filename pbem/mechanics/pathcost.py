"""Movement costs in exact fractions, with roads that run along hexsides.

Shared by the games whose roads cost a fraction of a movement point (a third
of an MP per road hex, say, or a half for one kind of unit and a third for
another).  Costs are ``fractions.Fraction`` throughout: three road hexes at
1/3 cost exactly 1 MP, never 0.9999.  ``frac`` reads an MP value from scenario
text, ``fmt`` writes one for players, ``ceil_mp`` rounds one up for the event
fields that hold whole MP.

How a road is written down
--------------------------
A road is a set of *hexside connections*, not a set of hexes: in the scenario
each connection is a ``[[map.hexsides]]`` entry ``{ a = "0303", b = "0403",
feature = "road" }``.  A step from hex A to the adjacent hex B is a road step
only when the hexside A|B carries a road feature.  Two road hexes that touch
without a road hexside between them are *not* connected: a unit stepping
between them pays the terrain (a road entered through a non-road hexside has
no effect).  Scenario linters check that both hexes of each connection exist
and are adjacent (``pbem.scenario.lint``).

A game builds one ``PathCost`` with:

* ``enter(h)``: the MP to enter hex h by its terrain, or None if prohibited;
* ``road_cost``: what a road step costs (a Fraction), for every feature of
  ``road_features``; or ``road_costs``: a cost per road feature, for roads of
  several kinds (where a hexside carries two, the first listed counts);
* ``road_replaces_terrain``: True when a road step costs the road's cost
  whatever the terrain entered; False to add hexside extras on top of it;
* ``road_always_open``: True when a road step may be taken even into a hex or
  across a hexside that would otherwise be prohibited (its cost is then the
  road's alone); False (the default) when a prohibited hex stays prohibited;
* ``side_extra(a, b)``: extra MP to cross the hexside a|b (rivers, slopes), 0
  by default, or None if the hexside may not be crossed;
* ``blocked_features``: hexside features that may never be crossed (all-sea
  hexsides, say).
"""
from __future__ import annotations

from collections.abc import Callable, Collection, Iterable, Mapping
from fractions import Fraction

from pbem.core.scenario import Board

MP = Fraction


def frac(value: int | str | Fraction) -> Fraction:
    """An exact MP value from an int, a Fraction or text such as "1/3" or "2 1/3"."""
    if isinstance(value, Fraction):
        return value
    if isinstance(value, int):
        return Fraction(value)
    if type(value) is str:
        got = _READ.get(value)
        if got is None:
            got = _read(value)
            if len(_READ) < 10_000:             # bounded: the MP texts of tables and events
                _READ[value] = got
        return got
    return _read(value)


_READ: dict[str, Fraction] = {}


def _read(value) -> Fraction:
    """``frac`` of a text (or anything ``str`` makes one of), read afresh."""
    text = str(value).strip()
    if " " in text:
        whole, part = text.split(None, 1)
        return Fraction(int(whole)) + Fraction(part)
    return Fraction(text)


def is_mp(text: str) -> bool:
    """True when ``frac`` reads ``text`` (for scenario linters)."""
    try:
        frac(text)
        return True
    except (ValueError, ZeroDivisionError):
        return False


def fmt(value: Fraction) -> str:
    """Readable MP: 2, 1/3, 2 1/3."""
    num, den = (value if isinstance(value, Fraction) else Fraction(value)).as_integer_ratio()
    if den == 1:
        return str(num)
    whole, rest = divmod(num, den)
    part = f"{rest}/{den}"
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
                 road_costs: Mapping[str, Fraction | int | str] | None = None,
                 road_replaces_terrain: bool = True, road_always_open: bool = False,
                 side_extra: Callable[[str, str], Fraction | None] | None = None,
                 blocked_features: Iterable[str] = ()):
        self.board = board
        self.enter = enter
        self.road_cost = Fraction(road_cost)
        if road_costs is None:
            road_costs = {f: self.road_cost for f in road_features}
        self.road_costs = {f: frac(c) for f, c in road_costs.items()}
        self.road_features = frozenset(self.road_costs)
        self.road_replaces_terrain = road_replaces_terrain
        self.road_always_open = road_always_open
        self.side_extra = side_extra
        self.blocked = frozenset(blocked_features)

    def is_road(self, a: str, b: str) -> bool:
        """True when the hexside between adjacent hexes a and b carries a road."""
        return bool(self.road_features & self.board.side_features(a, b))

    def road_step(self, feats: Collection[str]) -> Fraction | None:
        """The cost of a road step through a hexside with ``feats``, None when it carries no road."""
        for f, c in self.road_costs.items():
            if f in feats:
                return c
        return None

    def step(self, a: str, b: str) -> Fraction | None:
        """MP to move from a into the adjacent hex b, or None if that step is prohibited."""
        grid = self.board.grid
        if not grid.contains(b) or not grid.adjacent(a, b):
            return None
        feats = self.board.side_features(a, b)
        if self.blocked & feats:
            return None
        road = self.road_step(feats)
        if road is not None and self.road_always_open:
            return road
        base = self.enter(b)
        if base is None:
            return None
        extra = Fraction(0)
        if self.side_extra is not None:
            e = self.side_extra(a, b)
            if e is None:
                return None
            extra = Fraction(e)
        if road is not None:
            return road if self.road_replaces_terrain else road + extra
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
