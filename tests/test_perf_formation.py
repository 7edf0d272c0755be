"""The Formation Series' shortcuts of issue 29 give the answers the plain code gives
(correctness only: the figures come from tests/benchmark.py), on states along every
Mirages example and after a unit moves, is disrupted or eliminated in place (the
position changes, the answers with it):

- the position cache (``formation/position.py``): command (5.8), HQ supply (5.7),
  paths to a source (16.1), ZOCs (5.4) and the hexes a path may not enter (5.7.4,
  5.8.2), each found once per position;
- the searches from the sources (``supply.road_area``, ``supply.source_area``) in
  place of one search from each HQ or unit;
- the tables made once per scenario or board: the order of battle
  (``board.OrderOfBattle``: formation_of, is_hq, is_static, a formation's units, a
  side's combat units), each hex's links and ridge/wadi crossings (13.2.2), the hexes
  a unit projects a ZOC into (5.4), the step costs (TEC, 7.3.3);
- the last position asked, compared with the next before the dict of kept ones;
- the steps' sides for the kernel's gate before every order (``Step.sides``), without their
  rows (the Admin Phase's to-do list, the formations able to activate).

The ``plain_*`` functions are the code before the shortcuts, kept here as the reference."""
from __future__ import annotations

from collections import deque

import pytest

from conftest import EXAMPLES
from pbem.games.formation import board as B
from pbem.games.formation import command, position, supply
from pbem.games.formation.state import other

MIRAGES = [n for n in EXAMPLES if n.startswith("mirages")]


# --- the plain code ------------------------------------------------------------------------

def plain_formation_of(sc, uid):
    return B.udata(sc, uid).formation or B.hq_formation(sc, uid)


def plain_is_hq(sc, uid):
    return bool(B.hq_formation(sc, uid))


def plain_is_static(sc, uid):
    d = B.udata(sc, uid)
    return d.static or (not plain_is_hq(sc, uid) and not d.formation)


def plain_zoc(st, sc, side):
    """5.4: ``projects_zoc`` of every unit into each of its neighbours."""
    out = set()
    for u in st.units.values():
        if u.side != side or not B.alive(u) or u.disrupted or plain_is_hq(sc, u.id):
            continue
        out.add(u.hex)
        for n in sc.board.grid.neighbours(u.hex):
            if B.projects_zoc(st, sc, u, n):
                out.add(n)
    return out


def plain_in_command(st, sc, uid):
    """``trace`` through ``board.path_open`` for each unit."""
    u = st.units[uid]
    if not B.alive(u):
        return False
    if plain_is_static(sc, uid) or plain_is_hq(sc, uid):
        return True
    f = plain_formation_of(sc, uid)
    hq = B.hq_unit(st, sc, f)
    if hq is None:
        return False
    reach = B.fdata(sc, f).command_range
    if sc.board.grid.distance(hq.hex, u.hex) > reach:
        return False
    ezoc = plain_zoc(st, sc, other(u.side))
    best, todo = {hq.hex: 0}, deque([(hq.hex, 0, 0)])
    while todo:
        h, d, crossed = todo.popleft()
        if d >= reach:
            continue
        for n in sc.board.grid.neighbours(h):
            c = crossed
            if B.barrier(sc, h, n) and not B.road_link(sc, h, n) and n != u.hex:
                c += 1
                if c > 1:
                    continue
            if n == u.hex:
                return True
            if not B.path_open(st, sc, u.side, n, ezoc) or best.get(f"{n}:{c}", 99) <= d + 1:
                continue
            best[f"{n}:{c}"] = d + 1
            todo.append((n, d + 1, c))
    return hq.hex == u.hex


def plain_road_reaches(st, sc, side, starts, goals, ezoc):
    seen = {h for h in starts if B.path_open(st, sc, side, h, ezoc) or h in goals}
    todo = deque(seen)
    while todo:
        h = todo.popleft()
        if h in goals:
            return True
        for n in sc.board.grid.neighbours(h):
            if n in seen or not B.road_link(sc, h, n) or not B.path_open(st, sc, side, n, ezoc):
                continue
            seen.add(n)
            todo.append(n)
    return False


def plain_hq_in_supply(st, sc, f):
    """5.7.2: the HQ's search, then the road's from its starts."""
    hq = B.hq_unit(st, sc, f)
    if hq is None:
        return f in st.fm.formations and not st.fm.formations[f].removed
    side = hq.side
    grid = sc.board.grid
    near = [hq.hex] + grid.neighbours(hq.hex)
    if any(B.functional_strongpoint(st, sc, h) == side for h in near):
        return True
    goals = supply.sources(st, sc, side)
    if not goals:
        return False
    ezoc = plain_zoc(st, sc, other(side))
    row = B.fdata(sc, f)
    if row.hq_movement == "leg":
        starts = {h for h in near if B.on_road(sc, h)}
        return bool(starts) and plain_road_reaches(st, sc, side, starts, goals, ezoc)
    starts, todo, seen = set(), deque([(hq.hex, 0, 0)]), {(hq.hex, 0)}
    while todo:
        h, d, crossed = todo.popleft()
        if B.on_road(sc, h):
            starts.add(h)
        if d >= row.command_range:
            continue
        for n in grid.neighbours(h):
            c = crossed + (1 if B.barrier(sc, h, n) and not B.road_link(sc, h, n) else 0)
            if c > 1 or (n, c) in seen or not B.path_open(st, sc, side, n, ezoc):
                continue
            if B._step_cost(sc, {"hq"}, h, n, road_ok=False) is None:
                continue
            seen.add((n, c))
            todo.append((n, d + 1, c))
    return bool(starts) and plain_road_reaches(st, sc, side, starts, goals, ezoc)


def plain_path_to_source(st, sc, side, start):
    """16.1: one search from the unit."""
    goals = supply.sources(st, sc, side)
    if start in goals:
        return True
    ezoc = plain_zoc(st, sc, other(side))
    seen, todo = {start}, deque([start])
    while todo:
        h = todo.popleft()
        for n in sc.board.grid.neighbours(h):
            if n in seen or not B.path_open(st, sc, side, n, ezoc):
                continue
            if n in goals:
                return True
            seen.add(n)
            todo.append(n)
    return False


# --- the checks ----------------------------------------------------------------------------

def check(st, sc):
    hexes = sc.board.grid.all_hexes()
    for side in sc.side_ids():
        ezoc = plain_zoc(st, sc, side)
        assert B.zoc_hexes(st, sc, side) == ezoc
        own = plain_zoc(st, sc, other(side))
        sea = {h for h in hexes if B.impassable(sc, h)}
        assert B.closed(st, sc, side) | sea == {h for h in hexes if not B.path_open(st, sc, side, h, own)}
    for uid in st.units:
        assert command.in_command(st, sc, uid) == plain_in_command(st, sc, uid), uid
    for f in st.fm.formations:
        assert supply.hq_in_supply(st, sc, f) == plain_hq_in_supply(st, sc, f), f
    for u in st.units.values():
        if B.alive(u):
            assert supply.path_to_source(st, sc, u.side, u.hex) == plain_path_to_source(st, sc, u.side, u.hex), u.id
            for n in sc.board.grid.neighbours(u.hex):      # a hex next to a unit: perhaps in an EZOC, or shut
                assert supply.path_to_source(st, sc, u.side, n) == plain_path_to_source(st, sc, u.side, n), n


@pytest.mark.parametrize("name", MIRAGES)
def test_command_supply_and_zoc_per_position_are_those_traced_afresh(played_example, name):
    g = played_example(name).game()
    sc = g.scenario
    last = g.head()[0]
    for at in sorted({last * k // 5 for k in range(1, 6)}):
        st = g.state(at)
        check(st, sc)
        # the same state changed in place: a unit moved, one disrupted, one eliminated
        units = [u for u in st.units.values() if B.alive(u) and not B.is_hq(sc, u.id)]
        hexes = sorted({u.hex for u in units})
        units[0].hex = hexes[len(hexes) // 2]
        check(st, sc)
        units[1].disrupted = not units[1].disrupted
        check(st, sc)
        units[2].eliminated = True
        check(st, sc)
        # a strongpoint depleted, a source blocked: new positions too
        st.fm.depleted = sorted(set(st.fm.depleted) | set(B.gd(sc).strongpoints))
        st.fm.blocked = sorted(set(st.fm.blocked) | {h for hs in B.gd(sc).supply_sources.values() for h in hs[:1]})
        check(st, sc)


@pytest.mark.parametrize("name", MIRAGES)
def test_order_of_battle_is_the_units_rows(played_example, name):
    g = played_example(name).game()
    sc, st = g.scenario, g.state()
    data = B.gd(sc)
    ids = {u.id for u in sc.units} | set(data.units) | set(B._hqs(data)) | {"no-such-unit", ""}
    for uid in sorted(ids):
        assert B.formation_of(sc, uid) == plain_formation_of(sc, uid), uid
        assert B.is_hq(sc, uid) == plain_is_hq(sc, uid), uid
        assert B.is_static(sc, uid) == plain_is_static(sc, uid), uid
    assert any(B.is_hq(sc, u.id) for u in sc.units) and any(not B.is_hq(sc, u.id) for u in sc.units)
    for f in set(data.formations) | {"", "no-such-formation"}:
        assert B.members(st, sc, f) == [u for u in st.units.values()
                                        if plain_formation_of(sc, u.id) == f and not plain_is_hq(sc, u.id)], f
    for f in set(data.formations) | {"", "no-such-formation"}:
        row = B.fdata(sc, f)
        ids = [] if row is None else [row.substitute_hq] + [s.hq for s in data.substitutes if s.formation == f] + [row.hq]
        assert B.hq_unit(st, sc, f) is next((st.units[u] for u in ids if u in st.units and B.alive(st.units[u])), None)
    for side in sc.side_ids():
        assert [st.units[u] for u in B.oob(sc).combat.get(side, ())] == [
            u for u in st.units.values()
            if u.side == side and not plain_is_hq(sc, u.id) and not plain_is_static(sc, u.id)]


@pytest.mark.parametrize("name", MIRAGES[:1])
def test_board_tables_are_the_plain_lookups(played_example, name):
    sc = played_example(name).game().scenario
    grid = sc.board.grid
    kinds = [{"leg"}, {"mot"}, {"hq"}, {"leg", "mot"}, {"leg", "mot", "hq"}]
    crossings = 0
    for h in grid.all_hexes():
        assert B.links(sc)[h] == tuple((n, B.barrier(sc, h, n) and not B.road_link(sc, h, n), B.impassable(sc, n),
                                        B.road_link(sc, h, n) != "") for n in grid.neighbours(h))
        assert B.zoc_into(sc)[h] == tuple(n for n in grid.neighbours(h) if not B.barrier(sc, h, n)
                                          and B.tec(sc, n).zoc)
        crossings += sum(c for _, c, _, _ in B.links(sc)[h])
        for n in grid.neighbours(h):
            for k in kinds:
                for road_ok in (False, True):
                    assert B.step_cost(sc, k, h, n, road_ok=road_ok) == B._step_cost(sc, k, h, n, road_ok=road_ok)
                    assert B.step_cost(sc, frozenset(k), h, n, road_ok=road_ok) == \
                        B._step_cost(sc, k, h, n, road_ok=road_ok)
    assert crossings                                   # the map has ridges or wadis off the road (13.2.2)


def test_a_position_is_shared_by_equal_states_and_not_by_different_ones(played_example):
    g = played_example(MIRAGES[0]).game()
    sc = g.scenario
    a, b = g.state(), g.state()
    assert a is not b and position.position(a, sc) is position.position(b, sc)
    u = next(u for u in b.units.values() if B.alive(u))
    u.disrupted = not u.disrupted
    assert position.position(a, sc) is not position.position(b, sc)
    # the last position asked is compared first: asked again, a changed state is another
    # position, and the same one again once changed back (whatever the dict of kept ones holds)
    pa = position.position(a, sc)
    assert position.position(a, sc) is pa
    u.disrupted = not u.disrupted
    assert position.position(b, sc) is pa
    position._kept.clear()
    assert position.position(b, sc) is pa
    u.hex = None
    pb = position.position(b, sc)
    assert pb is not pa and position.key(b) != position.key(a) and pb.at != pa.at
    assert position.position(a, sc).at == pa.at


def test_a_move_walked_once_is_the_path_walked_again(played_example, monkeypatch):
    """``move_order`` hands its ``walk`` to ``continue_move`` (a reaction on leaving that does
    not stop the move moves no unit): the path walked again gives the same costs."""
    from pbem.games.formation import actions, movement
    seen = []
    plain = actions.continue_move

    def checked(ctx, units, here, path, mp_left, *, screen=False, costs=None):
        if costs is not None:
            st, sc = ctx.state, ctx.sc
            ma = movement.stack_ma(st, sc, units)
            left = actions.frac(mp_left)
            assert costs == movement.walk(st, sc, units, here, path, ma, screen=screen, spent=ma - left)
            seen.append(len(path))
        return plain(ctx, units, here, path, mp_left, screen=screen, costs=costs)
    monkeypatch.setattr(actions, "continue_move", checked)
    for name in MIRAGES:
        assert played_example(name).game().verify().ok
    assert len(seen) > 20 and max(seen) > 1


def test_mp_text_is_the_plain_fraction_text():
    from fractions import Fraction
    from pbem.mechanics.pathcost import fmt

    def plain(value):
        value = Fraction(value)
        if value.denominator == 1:
            return str(value.numerator)
        whole, rest = divmod(value.numerator, value.denominator)
        return f"{whole} {rest}/{value.denominator}" if whole else f"{rest}/{value.denominator}"
    for v in [0, 3, Fraction(1, 3), Fraction(7, 3), Fraction(-1, 2), Fraction(10, 2), 2.5]:
        assert fmt(v) == plain(v)


def test_mp_read_from_text_is_the_plain_reading():
    """``pathcost.frac`` keeps what it read from a text: the same Fraction again, a bad text refused every time."""
    import pytest as _pytest
    from fractions import Fraction
    from pbem.mechanics.pathcost import _read, frac
    for text in ["1/3", " 2 1/3 ", "2", "0", "5/10", "1 1/2", "-1/2"]:
        for _ in range(2):
            assert frac(text) == _read(text) and type(frac(text)) is Fraction
    assert frac("2 1/3") == Fraction(7, 3) and frac(Fraction(1, 2)) == Fraction(1, 2) and frac(4) == 4
    for bad in ["x", "1/0", ""]:
        for _ in range(2):
            with _pytest.raises((ValueError, ZeroDivisionError)):
                frac(bad)


@pytest.mark.parametrize("name", MIRAGES)
def test_formation_and_side_checks_are_the_plain_scans(played_example, name):
    """3.3 (an HQ whose units are all eliminated), 6.4.2 (a unit on the map), 16 (every combat
    unit eliminated) read from the order of battle: the plain scans of every unit, on states
    along the game and after a formation, then a side, is eliminated in place."""
    from pbem.games.formation import terms
    g = played_example(name).game()
    sc = g.scenario
    last = g.head()[0]
    for at in (last // 3, last):
        st = g.state(at)
        for step in range(3):
            for f in list(st.fm.formations) + [""]:
                mine = [u for u in st.units.values() if plain_formation_of(sc, u.id) == f and not plain_is_hq(sc, u.id)]
                assert B.on_map(st, sc, f) == any(B.alive(u) for u in mine), f
                assert B.all_eliminated(st, sc, f) == (bool(mine) and all(u.eliminated for u in mine)), f
            for side in sc.side_ids():
                mine = [u for u in st.units.values() if u.side == side and not plain_is_hq(sc, u.id)
                        and not plain_is_static(sc, u.id)]
                assert terms._all_lost(st, sc, side) == (any(u.eliminated for u in mine)
                                                         and not any(B.alive(u) for u in mine)), side
            f = sorted(st.fm.formations)[0]
            for u in st.units.values():          # step 0: one formation gone; step 1: one side's units
                if (plain_formation_of(sc, u.id) == f if step == 0 else u.side == sc.side_ids()[0]):
                    u.eliminated, u.hex = True, None


@pytest.mark.parametrize("name", MIRAGES)
def test_the_steps_sides_are_their_rows_sides(played_example, name):
    from pbem.core.turn import current_step
    g = played_example(name).game()
    rules, sc = g.rules, g.scenario
    st = g.state(0)
    asked = set()
    for en in g.entries()[1:]:
        rules.apply(st, en.event, sc)
        step = current_step(rules, st, sc)
        if step is None or st.result is not None:
            continue
        assert step.waited(st, sc) == [r["side"] for r in step.waits(st, sc)], step.name
        if step.sides is not None:
            asked.add(step.name)
    assert {"initiative", "actions", "admin"} <= asked
