"""Command range and command paths (5.8): a unit is in command when a path of at
most the HQ's command range leads from its HQ to it, never through an enemy unit
or an EZOC without a friendly unit (5.8.2), crossing at most one ridge or wadi
hexside not on a road (Mirages 13.2.2)."""
from __future__ import annotations

from collections import deque

from pbem.core.scenario import Scenario
from pbem.games.formation.board import (alive, barrier, closed, fdata, formation_of, hq_unit, is_hq, is_static,
                                        links, road_link, zoc_hexes)
from pbem.games.formation.position import position
from pbem.games.formation.state import FormationState, other


def trace(st: FormationState, sc: Scenario, side: str, start: str, goal: str, reach: int,
          ezoc: set[str] | None = None) -> bool:
    """A path of at most ``reach`` steps from start to goal: every hex after the start
    and before the goal open (5.8.2); the goal may be in an EZOC (traced into, not
    through); one ridge/wadi crossing off the road, not counting one at the goal (13.2.2)."""
    if start == goal:
        return True
    if ezoc is None:
        ezoc = zoc_hexes(st, sc, other(side))
    grid = sc.board.grid
    path_open = position(st, sc).open
    best: dict[str, int] = {start: 0}
    todo = deque([(start, 0, 0)])
    while todo:
        h, d, crossed = todo.popleft()
        if d >= reach:
            continue
        for n in grid.neighbours(h):
            c = crossed
            if barrier(sc, h, n) and not road_link(sc, h, n) and n != goal:
                c += 1
                if c > 1:
                    continue
            if n == goal:
                return True
            if not path_open(sc, side, n, ezoc):
                continue
            key = f"{n}:{c}"
            if best.get(key, 99) <= d + 1:
                continue
            best[key] = d + 1
            todo.append((n, d + 1, c))
    return False


def in_command(st: FormationState, sc: Scenario, uid: str, ezoc: set[str] | None = None) -> bool:
    """5.8: static units always; HQs count as in command; a combat unit when its HQ is
    on the map within command range by an unbroken path.  Found once per position
    (``position``; ``ezoc``, when given, is the enemy's ZOC in it)."""
    known = position(st, sc).command
    got = known.get(uid)
    if got is None:
        got = known[uid] = _in_command(st, sc, uid, ezoc)
    return got


def _in_command(st: FormationState, sc: Scenario, uid: str, ezoc: set[str] | None = None) -> bool:
    u = st.units[uid]
    if not alive(u):
        return False
    if is_static(sc, uid) or is_hq(sc, uid):
        return True
    f = formation_of(sc, uid)
    hq = hq_unit(st, sc, f)
    if hq is None:
        return False
    reach = fdata(sc, f).command_range
    if sc.board.grid.distance(hq.hex, u.hex) > reach:
        return False
    if ezoc is not None:
        return trace(st, sc, u.side, hq.hex, u.hex, reach, ezoc)
    return u.hex in commanded(st, sc, u.side, hq.hex, reach)


def commanded(st: FormationState, sc: Scenario, side: str, start: str, reach: int) -> frozenset[str]:
    """Every hex ``trace`` reaches from ``start`` within ``reach`` steps, found in one
    search per position and HQ: the start, and each neighbour of a hex the search
    enters (open, 5.8.2) or starts from less than ``reach`` steps out.  A goal never
    needs to be open and its own crossing is not counted (13.2.2), and a path through
    a goal reaches nothing the hex before it does not, so these are the goals ``trace``
    finds, one by one."""
    known = position(st, sc).reach
    k = (side, start, reach)
    got = known.get(k)
    if got is not None:
        return got
    shut = closed(st, sc, side)                 # not path_open (5.8.2)
    nbs = links(sc)                             # and the ridge/wadi crossings (13.2.2)
    out = {start}
    best: dict[tuple[str, int], int] = {(start, 0): 0}
    todo = deque([(start, 0, 0)])
    while todo:
        h, d, crossed = todo.popleft()
        if d >= reach:
            continue
        for n, cross, sea, _ in nbs[h]:
            out.add(n)
            c = crossed
            if cross:
                c += 1
                if c > 1:
                    continue
            if sea or n in shut or best.get((n, c), 99) <= d + 1:
                continue
            best[n, c] = d + 1
            todo.append((n, d + 1, c))
    got = known[k] = frozenset(out)
    return got
