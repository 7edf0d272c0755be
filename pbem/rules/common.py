"""Mechanics shared by hex-and-counter games, parametrised per game.

Zones of control, movement paths, odds columns, retreat search.  Everything
here is pure: it reads a state and a board and returns values.
"""
from __future__ import annotations

from collections.abc import Callable, Iterable

from ..orders import OrderError
from ..scenario import Board, Scenario
from ..state import GameState, UnitState

# A predicate saying whether a ZOC extends from hex a into adjacent hex b.
ZocBlock = Callable[[str, str], bool]


def units_at(state: GameState) -> dict[str, list[UnitState]]:
    """Map hex -> units on it (on-map, not eliminated)."""
    where: dict[str, list[UnitState]] = {}
    for u in state.units.values():
        if u.hex is not None and not u.eliminated:
            where.setdefault(u.hex, []).append(u)
    return where


def enemy_zoc(state: GameState, board: Board, side: str, blocked: ZocBlock | None = None,
              ignore: Iterable[str] = ()) -> set[str]:
    """Hexes in the zone of control of ``side``'s enemies (6.0).

    Disrupted units exert no ZOC (6.3, 9.7(2)).  ``ignore`` lists unit ids to
    leave out (a unit never projects ZOC against itself; callers rarely need it)."""
    skip = set(ignore)
    out: set[str] = set()
    for u in state.units.values():
        if u.side == side or u.hex is None or u.eliminated or u.disrupted or u.id in skip:
            continue
        for n in board.grid.neighbours(u.hex):
            if blocked is None or not blocked(u.hex, n):
                out.add(n)
    return out


def odds_column(attack: int, defence: int, best: int = 6, worst: int = 2) -> str | None:
    """The CRT column for attack vs defence strength (9.2).

    At or above 1:1 the ratio is rounded down (11:4 -> 2:1) and capped at
    ``best``:1; below 1:1 it is 1:n with n rounded up (2:3 -> 1:2).  Returns
    None when the odds are worse than 1:``worst`` (not allowed)."""
    if defence <= 0:
        return f"{best}:1"
    if attack <= 0:
        return None
    if attack >= defence:
        return f"{min(attack // defence, best)}:1"
    n = -(-defence // attack)
    if n > worst:
        return None
    return f"1:{n}"


def check_path(state: GameState, sc: Scenario, unit: UnitState, path: list[str], *,
               ma: int, ezoc: set[str], step_cost: Callable[[str, str], int | None],
               can_end: Callable[[str], str | None]) -> int:
    """Validate a movement path hex by hex (8.2, 6.1, 7.x); return MP spent.

    ``step_cost(a, b)`` is the MP to go from a into b, or None if prohibited;
    ``can_end(h)`` returns a reason the unit may not end in h (stacking), or None.
    Raises OrderError naming the first offending step and the rule."""
    grid = sc.board.grid
    occupied = units_at(state)
    here = unit.hex
    assert here is not None
    mp = 0
    start_in_ezoc = here in ezoc
    for i, h in enumerate(path):
        if not grid.contains(h):
            raise OrderError(f"{h} is not on the map; units may not leave it", "8.1(5)")
        if not grid.adjacent(here, h):
            raise OrderError(f"{h} is not adjacent to {here}: a path goes hex by hex", "8.2(3)")
        if any(o.side != unit.side for o in occupied.get(h, ())):
            raise OrderError(f"{h} holds an enemy unit and may not be entered", "7.2")
        cost = step_cost(here, h)
        if cost is None:
            raise OrderError(f"{h} ({sc.board.terrain.get(h)}) may not be entered", "8.3")
        mp += cost
        if mp > ma:
            raise OrderError(f"entering {h} would spend {mp} MP, more than {unit.id}'s movement allowance of {ma}", "8.2(1)")
        if i == 0 and start_in_ezoc and h in ezoc:
            raise OrderError(f"{unit.id} starts in an enemy zone of control and may not move straight into another ({h})", "6.1")
        if h in ezoc and i != len(path) - 1:
            raise OrderError(f"{h} is in an enemy zone of control: the move must stop there", "6.1")
        here = h
    if path:
        why = can_end(path[-1])
        if why:
            raise OrderError(why, "7.1")
    return mp


def retreat_paths(state: GameState, sc: Scenario, unit: UnitState, origin: str, combat_hex: str,
                  distance: int, *, ezoc: set[str], passable: Callable[[str], bool],
                  room: Callable[[str], bool]) -> list[list[str]]:
    """Every legal retreat path for ``unit`` (9.5).

    Each step must take the unit one hex farther from the combat hex (our
    reading of 9.5(2): it must end ``distance`` hexes away).  It may not
    enter an enemy unit, an EZOC, a hex off the map or one it could not move
    into (9.5(3)).  It may pass through friendly units, and must end where
    ``room`` says there is space if any such path exists; only when none does
    may it go one hex further to a hex with room (7.1, 9.5(2)).  Returns the
    paths of the preferred length; [] means the unit cannot retreat."""
    grid = sc.board.grid
    enemy = {h for h, us in units_at(state).items() if any(u.side != unit.side for u in us)}

    def ok(h: str) -> bool:
        return grid.contains(h) and passable(h) and h not in enemy and h not in ezoc

    frontier: list[list[str]] = [[]]
    here_of = lambda p: p[-1] if p else origin  # noqa: E731
    for _ in range(distance):
        nxt = []
        for p in frontier:
            d = grid.distance(here_of(p), combat_hex)
            for n in grid.neighbours(here_of(p)):
                if grid.distance(n, combat_hex) == d + 1 and ok(n):
                    nxt.append(p + [n])
        frontier = nxt
    good = [p for p in frontier if room(p[-1])]
    if good:
        return good
    longer = []
    for p in frontier:
        d = grid.distance(p[-1], combat_hex)
        for n in grid.neighbours(p[-1]):
            if grid.distance(n, combat_hex) == d + 1 and ok(n) and room(n):
                longer.append(p + [n])
    return longer
