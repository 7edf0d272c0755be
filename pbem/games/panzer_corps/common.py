"""Mechanics shared by hex-and-counter games, parametrised per game.

Zones of control, movement paths, odds columns, retreat search.  Everything
here is pure: it reads a state and a board and returns values.
"""
from __future__ import annotations

from collections.abc import Callable, Iterable

from pbem.core.orders import OrderError
from pbem.core.scenario import Board, Scenario
from pbem.core.state import GameState, UnitState

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
                  room: Callable[[str], bool], crossing: Callable[[str, str], bool] | None = None,
                  empty: Callable[[str], bool] | None = None) -> list[list[str]]:
    """Every legal retreat path for ``unit`` (9.5).

    Each step must take the unit one hex farther from the combat hex (our
    reading of 9.5(2): it must end ``distance`` hexes away).  It may not
    enter an enemy unit, an EZOC, a hex off the map or one it could not move
    into (9.5(3)).  It may pass through friendly units, and must end where
    ``room`` says there is space if any such path exists; only when none does
    may it go one hex further to a hex with room (7.1, 9.5(2)).  Returns the
    paths of the preferred length; [] means the unit cannot retreat.

    Games with stacking limits above one unit pass ``empty`` too: an end hex
    where it holds is preferred to one that only has ``room`` (9.5(2): a hex
    with no other unit if possible).  ``crossing(a, b)`` says whether the step
    from a to b may cross their hexside (a cliff may not be crossed)."""
    grid = sc.board.grid
    enemy = {h for h, us in units_at(state).items() if any(u.side != unit.side for u in us)}

    def ok(a: str, h: str) -> bool:
        return (grid.contains(h) and passable(h) and h not in enemy and h not in ezoc
                and (crossing is None or crossing(a, h)))

    frontier: list[list[str]] = [[]]
    here_of = lambda p: p[-1] if p else origin  # noqa: E731
    for _ in range(distance):
        nxt = []
        for p in frontier:
            d = grid.distance(here_of(p), combat_hex)
            for n in grid.neighbours(here_of(p)):
                if grid.distance(n, combat_hex) == d + 1 and ok(here_of(p), n):
                    nxt.append(p + [n])
        frontier = nxt
    if empty is not None:
        best = [p for p in frontier if room(p[-1]) and empty(p[-1])]
        if best:
            return best
    good = [p for p in frontier if room(p[-1])]
    if good:
        return good
    longer = []
    for p in frontier:
        d = grid.distance(p[-1], combat_hex)
        for n in grid.neighbours(p[-1]):
            if grid.distance(n, combat_hex) == d + 1 and ok(p[-1], n) and room(n):
                longer.append(p + [n])
    return longer


def stack_violations(state: GameState, limits: dict[str, int]) -> list[tuple[str, str, list[UnitState]]]:
    """(hex, side, units) for every hex holding more of a side's units than its limit (7.0, 7.3)."""
    out = []
    for h, us in sorted(units_at(state).items()):
        for side in sorted({u.side for u in us}):
            mine = [u for u in us if u.side == side]
            if len(mine) > limits.get(side, 1):
                out.append((h, side, mine))
    return out


_OPPOSITE = (("N", "S"), ("NE", "SW"), ("SE", "NW"))


def between_enemies(board: Board, h: str, enemy_hexes: set[str]) -> bool:
    """True if enemy units stand on two opposite sides of ``h`` (a hex "sandwiched" between
    two enemy units, Dunkerque and Khar'kov 10.0(4))."""
    grid = board.grid
    for d1, d2 in _OPPOSITE:
        a, b = grid.neighbour(h, d1), grid.neighbour(h, d2)
        if a in enemy_hexes and b in enemy_hexes:
            return True
    return False


def trace_line(board: Board, starts: Iterable[str], goals: set[str], *, open_hex: Callable[[str], bool],
               crossing: Callable[[str, str], bool] | None = None) -> list[str] | None:
    """Shortest chain of adjacent hexes from one of ``starts`` to one of ``goals``
    (a connecting line, supply line); every hex after the start must pass
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


def max_flow(supply: dict[str, int], capacity: dict[str, int], links: dict[str, list[str]]) -> dict[str, dict[str, int]]:
    """How much of each source's ``supply`` goes to which sink (sinks hold ``capacity``),
    along ``links`` (source -> sinks), so that the total is as large as possible.

    Small bipartite problems only (evacuation through ports, Dunkerque 4.2); augmenting
    paths in a fixed order keep the answer deterministic."""
    flow: dict[str, dict[str, int]] = {s: {} for s in supply}
    used = {k: 0 for k in capacity}

    def sent(s: str) -> int:
        return sum(flow[s].values())

    def augment(s: str, seen: set[str]) -> tuple[int, list[tuple[str, str, int]]] | None:
        # find a path s -> sink with spare capacity, possibly re-routing other sources
        for k in links.get(s, []):
            if k in seen:
                continue
            seen.add(k)
            if used[k] < capacity[k]:
                return capacity[k] - used[k], [(s, k, +1)]
            for other in sorted(flow):
                if other != s and flow[other].get(k, 0) > 0:
                    sub = augment(other, seen)
                    if sub is not None:
                        amount, steps = sub
                        amount = min(amount, flow[other][k])
                        return amount, [(s, k, +1), (other, k, -1)] + steps
        return None

    for s in supply:
        while sent(s) < supply[s]:
            found = augment(s, set())
            if found is None:
                break
            amount, steps = found
            amount = min(amount, supply[s] - sent(s))
            for src, k, sign in steps:
                flow[src][k] = flow[src].get(k, 0) + sign * amount
                used[k] += sign * amount
                if flow[src][k] == 0:
                    del flow[src][k]
    return flow
