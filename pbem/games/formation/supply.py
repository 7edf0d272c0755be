"""HQ supply (5.7): a leg HQ on or next to a road traces along the road to an
unblocked friendly supply source; a motorized HQ first goes cross-country up to
its command range to a road hex (5.7.2).  A friendly functional strongpoint on or
next to the HQ supplies it (5.7.3).  Paths break on enemy units and on EZOCs
without a friendly unit (5.7.4); one ridge/wadi crossing off the road (13.2.2)."""
from __future__ import annotations

from collections import deque

from pbem.core.scenario import Scenario
from pbem.games.formation.board import (closed, fdata, functional_strongpoint, gd, hq_unit, links, on_road,
                                        step_cost)
from pbem.games.formation.position import position
from pbem.games.formation.state import FormationState


def sources(st: FormationState, sc: Scenario, side: str) -> set[str]:
    """The side's supply sources not blocked (5.7.3, Mirages 15: a lost source stays lost)."""
    return {h for h in gd(sc).supply_sources.get(side, []) if h not in st.fm.blocked}


def _road_reaches(st, sc, side: str, starts: set[str], goals: set[str]) -> bool:
    """Along road/trail links only, through open hexes, from any start to any goal: a start
    that is a goal, or an open one joined by the road to an open goal (``road_area``)."""
    area = road_area(st, sc, side)
    return any(h in goals or h in area for h in starts)


def road_area(st, sc, side: str) -> frozenset[str]:
    """The open hexes joined to an open unblocked friendly source along road/trail links
    through open hexes (5.7.2, 5.7.4): the search from the sources, once per position."""
    pos = position(st, sc)
    got = pos.road_area.get(side)
    if got is None:
        got = pos.road_area[side] = _from_sources(st, sc, side, pos, roads_only=True)
    return got


def _from_sources(st, sc, side: str, pos, roads_only: bool) -> frozenset[str]:
    """The open hexes reached from the side's open sources through open, non-sea hexes
    (5.7.4, 16.1), along road/trail links only with ``roads_only`` (5.7.2)."""
    shut = closed(st, sc, side)
    nbs = links(sc)
    seen = {h for h in sources(st, sc, side) if sc.board.grid.contains(h) and h not in shut and h not in pos.sea}
    todo = deque(seen)
    while todo:
        for n, _, sea, road in nbs[todo.popleft()]:
            if (road or not roads_only) and not sea and n not in seen and n not in shut:
                seen.add(n)
                todo.append(n)
    return frozenset(seen)


def hq_in_supply(st: FormationState, sc: Scenario, f: str) -> bool:
    """5.7.2: is formation f's HQ in supply now?  No HQ on the map: out of supply,
    except an HQ off map with its units (13.2.4.1: in supply).  Found once per position."""
    known = position(st, sc).supply
    got = known.get(f)
    if got is None:
        got = known[f] = _hq_in_supply(st, sc, f)
    return got


def _hq_in_supply(st: FormationState, sc: Scenario, f: str) -> bool:
    hq = hq_unit(st, sc, f)
    if hq is None:
        return f in st.fm.formations and not st.fm.formations[f].removed
    side = hq.side
    grid = sc.board.grid
    near = [hq.hex] + grid.neighbours(hq.hex)
    if any(functional_strongpoint(st, sc, h) == side for h in near):
        return True
    goals = sources(st, sc, side)
    if not goals:
        return False
    row = fdata(sc, f)
    if row.hq_movement == "leg":
        starts = {h for h in near if on_road(sc, h)}
        return bool(starts) and _road_reaches(st, sc, side, starts, goals)
    reach = row.command_range
    shut = closed(st, sc, side)                 # not path_open (5.7.4)
    nbs = links(sc)                             # and the ridge/wadi crossings (13.2.2)
    starts: set[str] = set()
    todo = deque([(hq.hex, 0, 0)])
    seen = {(hq.hex, 0)}
    while todo:
        h, d, crossed = todo.popleft()
        if on_road(sc, h):
            starts.add(h)
        if d >= reach:
            continue
        for n, cross, sea, _ in nbs[h]:
            c = crossed + cross
            if c > 1 or sea or (n, c) in seen or n in shut:
                continue
            if step_cost(sc, HQ_KIND, h, n, road_ok=False) is None:
                continue
            seen.add((n, c))
            todo.append((n, d + 1, c))
    return bool(starts) and _road_reaches(st, sc, side, starts, goals)


HQ_KIND = frozenset({"hq"})


def path_to_source(st: FormationState, sc: Scenario, side: str, start: str) -> bool:
    """16.1 (Italian surrender): any path of hexes, no length limit, from start to an
    Axis supply source, never through an enemy unit or an EZOC without a friendly unit.
    Found once per position."""
    known = position(st, sc).to_source
    got = known.get((side, start))
    if got is None:
        got = known[side, start] = _path_to_source(st, sc, side, start)
    return got


def _path_to_source(st: FormationState, sc: Scenario, side: str, start: str) -> bool:
    """A start that is a source, or next to an open hex joined to an open source through
    open hexes (``source_area``)."""
    if start in sources(st, sc, side):
        return True
    area = source_area(st, sc, side)
    return any(n in area for n in sc.board.grid.around(start))


def source_area(st: FormationState, sc: Scenario, side: str) -> frozenset[str]:
    """The open hexes joined to an open unblocked friendly source through open hexes
    (16.1, 5.7.4): the search from the sources, once per position."""
    pos = position(st, sc)
    got = pos.source_area.get(side)
    if got is None:
        got = pos.source_area[side] = _from_sources(st, sc, side, pos, roads_only=False)
    return got
