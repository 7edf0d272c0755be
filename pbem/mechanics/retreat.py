"""Retreat paths: where a unit a combat result pushes back may go.

A retreat moves a unit ``distance`` hexes away from the combat hex, each step
one hex farther from it.  A step may not enter an enemy unit, an enemy zone of
control, a hex off the map, a hex the unit could not move into, nor cross a
hexside the game forbids.  It may pass friendly units; where it ends is chosen
by preference (see ``retreat_paths``).  Pure: reads a state and a grid.
"""
from __future__ import annotations

from collections.abc import Callable

from pbem.core.hexgrid import Grid
from pbem.core.state import GameState, UnitState
from pbem.mechanics.movement import enemy_hexes


def _farther(grid: Grid, path: list[str], origin: str, combat_hex: str,
             ok: Callable[[str, str], bool]) -> list[list[str]]:
    """``path`` extended by each legal step one hex farther from ``combat_hex``."""
    here = path[-1] if path else origin
    d = grid.distance(here, combat_hex)
    return [path + [n] for n in grid.neighbours(here)
            if grid.distance(n, combat_hex) == d + 1 and ok(here, n)]


def retreat_paths(state: GameState, grid: Grid, unit: UnitState, origin: str, combat_hex: str,
                  distance: int, *, ezoc: set[str], passable: Callable[[str], bool],
                  room: Callable[[str], bool], crossing: Callable[[str, str], bool] | None = None,
                  empty: Callable[[str], bool] | None = None) -> list[list[str]]:
    """Every legal retreat path for ``unit`` from ``origin``, ``distance`` hexes from ``combat_hex``.

    ``passable(h)``: the unit could move into h; ``crossing(a, b)``: the step
    from a to b may cross their hexside; ``room(h)``: the unit may end in h
    (stacking).  Preferred ends, in order: where ``empty`` holds as well as
    ``room`` (when ``empty`` is given: a hex with no other unit), then where
    ``room`` holds; only when no path of ``distance`` steps ends with room may
    the unit go one hex further to a hex with room.  Returns the paths of the
    first kind found, in the grid's neighbour order; [] means the unit cannot
    retreat."""
    enemy = enemy_hexes(state, unit.side)

    def ok(a: str, h: str) -> bool:
        return (grid.contains(h) and passable(h) and h not in enemy and h not in ezoc
                and (crossing is None or crossing(a, h)))

    frontier: list[list[str]] = [[]]
    for _ in range(distance):
        frontier = [q for p in frontier for q in _farther(grid, p, origin, combat_hex, ok)]
    if empty is not None:
        best = [p for p in frontier if room(p[-1]) and empty(p[-1])]
        if best:
            return best
    good = [p for p in frontier if room(p[-1])]
    if good:
        return good
    return [q for p in frontier for q in _farther(grid, p, origin, combat_hex, ok) if room(q[-1])]
