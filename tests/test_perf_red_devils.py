"""Red Devils' shortcuts of issue 29 (``pbem verify`` at 20k events/s) give the answers
the plain code gives (correctness only: the figures come from tests/benchmark.py), on
states along the example: the air landing hexes' terrain found once per drop zone
(9.1, 9.2), the opportunity firers looked for within two hexes (5.0-5.4: a longer range
is artillery's, 6.6), the lines of communication built from their predecessors' (12.2),
the air landing step's sides without its rows (the gate before every order), and the
Neder Rijn's unbridged hexsides and the minor rivers read from tables made once per
scenario (4.6, 4.9, 11.0), the victory count (12.1-12.6) reading the lines of the VP
hexes alone from the searches, and the cost of each step (4.2, 4.6, 4.9) kept per scenario.

The ``plain_*`` functions are the code before the shortcuts, kept here as the reference."""
from __future__ import annotations

from collections import deque

from pbem.games.red_devils import airborne, opportunity, steps, terms
from pbem.games.red_devils.terrain import (MINOR, RAIL_BRIDGE, RIJN, ROADS, ezoc, is_artillery, minor_river,
                                           rng, terrain, unbridged_rijn)
from pbem.mechanics.movement import units_at

NAME = "red-devils"


def plain_landing_hexes(sc, dz, st=None, ignore_units=False):
    grid = sc.board.grid
    occ = set() if ignore_units or st is None else set(units_at(st))
    return [h for h in grid.within(dz, 3) if terrain(sc, h) in ("clear", "broken")
            and not any(terrain(sc, n) == "city" for n in grid.neighbours(h)) and h not in occ]


def plain_eligible_firers(st, sc, target, h, landing=False, adjacent_only=False):
    if target.id in st.hit:
        return []
    grid = sc.board.grid
    out = []
    able = [f for f in st.units.values() if not (f.side == target.side or f.hex is None or f.eliminated or f.disrupted)]
    for f in sorted(able, key=lambda x: x.id):
        if is_artillery(sc, f.id) or f"{f.id}>{target.id}" in st.fired:
            continue
        d = grid.distance(f.hex, h)
        if d > rng(sc, f.id) or (adjacent_only and d != 1):
            continue
        if terrain(sc, h) == "city" and d > 1:
            continue
        if d == 2 and opportunity.city_between(sc, f.hex, h):
            continue
        out.append(f.id)
    return out


def plain_lines(st, sc, side):
    grid = sc.board.grid
    occ = units_at(st)
    mine = {h for h, us in occ.items() if any(u.side == side for u in us)}
    enemy = {h for h, us in occ.items() if any(u.side != side for u in us)}
    zoc = ezoc(st, sc, side)
    prev, q = {}, deque()
    for h in sorted(mine):
        prev[h] = None
        q.append(h)
    while q:
        h = q.popleft()
        for n in grid.neighbours(h):
            if n in prev or n in enemy or not (n in mine or n not in zoc) or plain_unbridged_rijn(st, sc, h, n):
                continue
            prev[n] = h
            q.append(n)
    out = {}
    for h in prev:
        path = [h]
        while prev[path[-1]] is not None:
            path.append(prev[path[-1]])
        out[h] = list(reversed(path))
    return out


def states(played_example, n=8):
    g = played_example(NAME).game()
    last = g.head()[0]
    return g.scenario, [g.state(last * k // n) for k in range(1, n + 1)]


def test_landing_hexes_are_those_found_afresh(played_example):
    sc, sts = states(played_example, 4)
    for dz in sc.board.grid.all_hexes():
        assert airborne.landing_hexes(sc, dz, ignore_units=True) == plain_landing_hexes(sc, dz, ignore_units=True)
    zones = sorted({h for st in sts for u in st.units.values() if u.hex for h in [u.hex]})
    for st in sts:
        for dz in zones:
            assert airborne.landing_hexes(sc, dz, st) == plain_landing_hexes(sc, dz, st), dz
    assert any(plain_landing_hexes(sc, dz, st) != plain_landing_hexes(sc, dz, ignore_units=True)
               for st in sts for dz in zones)          # the units do take hexes away


def test_opportunity_firers_are_those_found_afresh(played_example):
    sc, sts = states(played_example)
    found = 0
    for st in sts:
        for target in st.units.values():
            if target.hex is None or target.eliminated:
                continue
            for h in [target.hex] + sc.board.grid.neighbours(target.hex):
                for adjacent_only in (False, True):
                    want = plain_eligible_firers(st, sc, target, h, adjacent_only=adjacent_only)
                    assert opportunity.eligible_firers(st, sc, target, h, adjacent_only=adjacent_only) == want
                    found += len(want)
    assert found


def test_lines_of_communication_are_the_paths_traced_back(played_example):
    sc, sts = states(played_example, 4)
    for st in sts:
        for side in ("british", "german"):
            got = terms.lines_of_communication(st, sc, side)
            assert got == plain_lines(st, sc, side) and list(got) == list(plain_lines(st, sc, side))


def test_the_air_landing_step_waits_for_the_side_its_rows_name(played_example):
    g = played_example(NAME).game()
    sc, seen = g.scenario, 0
    for seq in range(g.head()[0] + 1):
        st = g.state(seq)
        if steps.LANDING.pending(st, sc):
            assert steps.LANDING.waited(st, sc) == [r["side"] for r in steps.LANDING.rows(st, sc)]
            seen += 1
    assert seen


def plain_unbridged_rijn(st, sc, a, b):
    f = sc.board.side_features(a, b)
    if RIJN not in f or any(r in f for r in ROADS):
        return False
    return not (RAIL_BRIDGE in f and st.bridge != "destroyed")


def test_the_neder_rijn_and_minor_river_tables_are_the_hexsides_features(played_example):
    # unbridged_rijn and minor_river read tables made once per scenario: every pair of adjacent
    # hexes of the map, either way round, the railway bridge standing and destroyed (11.0)
    sc, sts = states(played_example, 1)
    st = sts[0]
    grid = sc.board.grid
    unbridged = minor = 0
    for bridge in ("", "destroyed"):
        st.bridge = bridge
        for a in grid.all_hexes():
            for b in grid.neighbours(a):
                want = plain_unbridged_rijn(st, sc, a, b)
                assert unbridged_rijn(st, sc, a, b) is want, (a, b, bridge)
                assert minor_river(sc, a, b) is (MINOR in sc.board.side_features(a, b))
                unbridged += want
                minor += minor_river(sc, a, b)
    assert unbridged and minor
    assert any(RAIL_BRIDGE in f for f in sc.board.hexsides.values())


def test_lines_of_communication_are_the_plain_search_on_every_state(played_example):
    g = played_example(NAME).game()
    sc = g.scenario
    st = g.state(0)
    n = 0
    for en in g.entries()[1:]:
        g.rules.apply(st, en.event, sc)
        for side in ("british", "german"):
            if en.seq % 4 == 0 or side == "british" and en.seq % 4 == 2:
                assert terms.lines_of_communication(st, sc, side) == plain_lines(st, sc, side)
                n += 1
    st.bridge = "destroyed"
    for side in ("british", "german"):
        assert terms.lines_of_communication(st, sc, side) == plain_lines(st, sc, side)
    assert n > 200


def plain_count_victory(st, sc):
    """terms.count_victory before the lines were read from the searches: every line built."""
    from pbem.games.red_devils import events as E
    data = sc.game_data
    brit, germ = plain_lines(st, sc, "british"), plain_lines(st, sc, "german")
    special = set(data.get("vp_special", []))
    worthless = set(data.get("rail_bridge_vp", [])) if st.bridge == "destroyed" else set()
    hexes, lines = {}, {}
    for h in sorted(set(data.get("vp_hexes", [])) | special):
        if h not in brit or h in worthless or h in germ and len(germ[h]) <= len(brit[h]):
            continue
        hexes[h] = 2 if h in special else 1
        lines[h] = brit[h]
    pair = data.get("bridge_pair", [])
    if pair and all(h in hexes for h in pair):
        for h in pair:
            hexes[h] = 4
    gone = sum(1 for u in st.units.values() if u.side == "german" and u.eliminated)
    alive = sum(1 for u in st.units.values() if u.side == "british" and not u.eliminated and u.hex is not None)
    extra = max(0, alive - 9)
    total = sum(hexes.values()) + gone + extra
    level = next(name for low, name in terms.LEVELS if total >= low)
    return E.VictoryCounted(hexes=hexes, lines=lines, german_eliminated=gone, british_extra=extra,
                            total=total, level=level)


def test_the_victory_count_is_the_plain_count_along_the_game(played_example):
    g = played_example(NAME).game()
    sc = g.scenario
    st = g.state(0)
    scored = 0
    for en in g.entries()[1:]:
        g.rules.apply(st, en.event, sc)
        if en.seq % 3 == 0:
            got = terms.count_victory(st, sc)
            assert got == plain_count_victory(st, sc)
            scored += bool(got.hexes)
    st.bridge = "destroyed"
    assert terms.count_victory(st, sc) == plain_count_victory(st, sc)
    assert scored > 20


def test_step_costs_kept_per_scenario_are_the_path_costs(played_example):
    # path_cost's steps (4.2, 4.6, 4.9) are read from a table kept per scenario: every step of the
    # map, each way of moving, the railway bridge standing then destroyed under the same object (11.0)
    from pbem.games.red_devils.terrain import StepCosts, path_cost, plain_path_cost
    sc, sts = states(played_example, 2)
    st = sts[0]
    grid = sc.board.grid
    prohibited = 0
    for mech, road_mech in ((False, False), (True, False), (True, True)):
        st.bridge = ""
        costs = StepCosts(st, sc, mech, road_mech)
        for bridge in ("", "destroyed", ""):
            st.bridge = bridge
            plain = plain_path_cost(st, sc, mech, road_mech)
            for a in grid.all_hexes():
                for b in grid.neighbours(a):
                    want = plain.step(a, b)
                    assert costs.step(a, b) == want, (a, b, mech, road_mech, bridge)
                    prohibited += want is None
            assert costs.step("0101", "9999") is plain.step("0101", "9999") is None
    assert prohibited
    art = next(u for u in sc.units if is_artillery(sc, u.id))
    assert path_cost(st, sc, art.id, True).road_mech is False
