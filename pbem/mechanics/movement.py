"""Moving counters over a hex board: who stands where, what a step costs,
whether a path may be taken, stacking, and chains of open hexes.

Pure and parametrised: a game passes its numbers (terrain, hexside and line
costs, stacking limits) and predicates, and turns the problems found into
its own words and rule numbers.  Nothing here rolls dice or emits events.
"""
from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping

from pbem.core.scenario import Board, Terrain
from pbem.core.state import GameState, UnitState


def units_at(state: GameState) -> dict[str, list[UnitState]]:
    """Map hex -> units on it (on the map, not eliminated)."""
    where: dict[str, list[UnitState]] = {}
    get = where.get
    for u in state.units.values():
        h = u.hex
        if h is not None and not u.eliminated:
            here = get(h)
            if here is None:
                where[h] = [u]
            else:
                here.append(u)
    return where


def enemy_hexes(state: GameState, side: str) -> set[str]:
    """Hexes holding at least one unit that is not ``side``'s."""
    return {h for h, us in units_at(state).items() if any(u.side != side for u in us)}


# --- what a step costs ------------------------------------------------------------

def hexside_cost(board: Board, a: str, b: str, costs: Mapping[str, int]) -> int:
    """Extra MP to cross the hexside a|b: the sum of ``costs`` of its features."""
    if not costs:
        return 0
    return sum(costs.get(f, 0) for f in board.side_features(a, b))


def step_cost(board: Board, terrain: Mapping[str, Terrain], a: str, b: str, *,
              hexside_costs: Mapping[str, int] = {}, line_features: Mapping[str, int] = {},
              lines_ignore_hexsides: bool = False) -> int | None:
    """MP to step from a into the adjacent hex b; None if b's terrain may not be entered.

    A step along a line feature (both hexes carry it: a railroad, a road drawn
    as hex features) costs the line's fixed MP, plus the hexside costs unless
    ``lines_ignore_hexsides``; any other step costs the terrain entered plus
    the hexside costs.  The first line feature (in ``line_features`` order)
    that both hexes carry is the one used."""
    t = terrain.get(board.terrain.get(b, ""))
    if t is None or t.impassable:
        return None
    for feat, cost in line_features.items():
        if board.has(a, feat) and board.has(b, feat):
            if lines_ignore_hexsides:
                return cost
            return cost + hexside_cost(board, a, b, hexside_costs)
    return t.move_cost + hexside_cost(board, a, b, hexside_costs)


# --- checking a path ------------------------------------------------------------------

class PathProblem(Exception):
    """Why a path may not be taken.  ``kind`` names the check that failed (one of
    the constants below, for the game to give it its rule number), ``index`` the
    step (-1: the end hex), ``hex`` the hex entered; ``str()`` is the reason in
    plain words."""

    OFF_MAP = "off-map"                # a hex off the map
    NOT_ADJACENT = "not-adjacent"      # a jump: a path goes hex by hex
    ENEMY = "enemy"                    # a hex holding an enemy unit
    PROHIBITED = "prohibited"          # terrain that may not be entered
    OVER_ALLOWANCE = "over-allowance"  # more MP than the movement allowance
    ZOC_TO_ZOC = "zoc-to-zoc"          # from an enemy zone of control straight into another
    ZOC_STOP = "zoc-stop"              # going on after entering an enemy zone of control
    END = "end"                        # the end hex refused (stacking): the reason is the game's

    def __init__(self, kind: str, reason: str, index: int, hex: str):
        super().__init__(reason)
        self.kind, self.reason, self.index, self.hex = kind, reason, index, hex


def check_path(state: GameState, board: Board, unit: UnitState, path: list[str], *,
               ma: int, ezoc: set[str], step_cost: Callable[[str, str], int | None],
               can_end: Callable[[str], str | None]) -> int:
    """Validate a movement path hex by hex; return the MP spent.

    ``step_cost(a, b)`` is the MP to go from a into b, or None if prohibited (it
    may raise its own error for a step it refuses with its own reason);
    ``can_end(h)`` returns a reason the unit may not end in h, or None.  A unit
    stops on entering a hex of ``ezoc`` and may not go from one such hex
    straight into another.  Raises PathProblem at the first offending step."""
    grid = board.grid
    occupied = units_at(state)
    here = unit.hex
    assert here is not None
    mp = 0
    start_in_ezoc = here in ezoc
    for i, h in enumerate(path):
        if not grid.contains(h):
            raise PathProblem(PathProblem.OFF_MAP, f"{h} is not on the map; units may not leave it", i, h)
        if not grid.adjacent(here, h):
            why = (f"the path enters {h}, where the unit is already: name only the hexes to enter" if h == here
                   else f"{h} is not adjacent to {here}: a path goes hex by hex")
            raise PathProblem(PathProblem.NOT_ADJACENT, why, i, h)
        if any(o.side != unit.side for o in occupied.get(h, ())):
            raise PathProblem(PathProblem.ENEMY, f"{h} holds an enemy unit and may not be entered", i, h)
        cost = step_cost(here, h)
        if cost is None:
            raise PathProblem(PathProblem.PROHIBITED, f"{h} ({board.terrain.get(h)}) may not be entered", i, h)
        mp += cost
        if mp > ma:
            raise PathProblem(PathProblem.OVER_ALLOWANCE, f"entering {h} would spend {mp} MP, more than "
                              f"{unit.id}'s movement allowance of {ma}", i, h)
        if i == 0 and start_in_ezoc and h in ezoc:
            raise PathProblem(PathProblem.ZOC_TO_ZOC, f"{unit.id} starts in an enemy zone of control and may not "
                              f"move straight into another ({h})", i, h)
        if h in ezoc and i != len(path) - 1:
            raise PathProblem(PathProblem.ZOC_STOP, f"{h} is in an enemy zone of control: the move must stop there",
                              i, h)
        here = h
    if path:
        why = can_end(path[-1])
        if why:
            raise PathProblem(PathProblem.END, why, -1, path[-1])
    return mp


# --- stacking -------------------------------------------------------------------------------

def stack_violations(state: GameState, limits: Mapping[str, int],
                     default: int = 1) -> list[tuple[str, str, list[UnitState]]]:
    """(hex, side, units) for every hex holding more of a side's units than its limit
    (``limits[side]``, else ``default``), hexes and sides in sorted order."""
    out = []
    for h, us in sorted(units_at(state).items()):
        for side in sorted({u.side for u in us}):
            mine = [u for u in us if u.side == side]
            if len(mine) > limits.get(side, default):
                out.append((h, side, mine))
    return out


# --- chains of open hexes -----------------------------------------------------------------------

def trace_line(board: Board, starts: Iterable[str], goals: set[str], *, open_hex: Callable[[str], bool],
               crossing: Callable[[str, str], bool] | None = None) -> list[str] | None:
    """Shortest chain of adjacent hexes from one of ``starts`` to one of ``goals``
    (a connecting line, a supply line); every hex after the start must pass
    ``open_hex``, every step ``crossing``.  Returns the path (start included) or None.

    Deterministic: neighbours are tried in the grid's fixed order, starts in the given order."""
    grid = board.grid
    prev: dict[str, str | None] = {}
    queue: list[str] = []
    for s in starts:
        if s not in prev:
            prev[s] = None
            queue.append(s)
    i = 0
    while i < len(queue):
        h = queue[i]
        i += 1
        if h in goals:
            path = [h]
            while prev[path[-1]] is not None:
                path.append(prev[path[-1]])  # type: ignore[arg-type]
            return path[::-1]
        for n in grid.neighbours(h):
            if n in prev or not open_hex(n):
                continue
            if crossing is not None and not crossing(h, n):
                continue
            prev[n] = h
            queue.append(n)
    return None
