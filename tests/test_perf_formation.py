"""The Formation Series' position cache of issue 29 (``formation/position.py``) gives
the answers the plain tracing gives (correctness only: the figures come from
tests/benchmark.py): command (5.8), HQ supply (5.7), paths to a source (16.1)
and ZOCs (5.4) on states along every Mirages example, and after a unit moves,
is disrupted or eliminated in place (the position changes, the answers with it)."""
from __future__ import annotations

import pytest

from conftest import EXAMPLES
from pbem.games.formation import board as B
from pbem.games.formation import command, position, supply
from pbem.games.formation.state import other

MIRAGES = [n for n in EXAMPLES if n.startswith("mirages")]


def ref_zoc(st, sc, side):
    return B._zoc_hexes(st, sc, side)


def ref_in_command(st, sc, uid):
    """The code before the cache: ``trace`` through ``board.path_open`` for each unit."""
    u = st.units[uid]
    if not B.alive(u):
        return False
    if B.is_static(sc, uid) or B.is_hq(sc, uid):
        return True
    f = B.formation_of(sc, uid)
    hq = B.hq_unit(st, sc, f)
    if hq is None:
        return False
    reach = B.fdata(sc, f).command_range
    if sc.board.grid.distance(hq.hex, u.hex) > reach:
        return False
    ezoc = ref_zoc(st, sc, other(u.side))
    from collections import deque
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


def fresh(fn, *args):
    position._kept.clear()
    return fn(*args)


def check(st, sc):
    for side in sc.side_ids():
        assert B.zoc_hexes(st, sc, side) == ref_zoc(st, sc, side)
    for uid in st.units:
        assert command.in_command(st, sc, uid) == ref_in_command(st, sc, uid), uid
    for f in st.fm.formations:
        assert supply.hq_in_supply(st, sc, f) == fresh(supply._hq_in_supply, st, sc, f), f
    for u in list(st.units.values())[:12]:
        if B.alive(u):
            assert supply.path_to_source(st, sc, u.side, u.hex) == fresh(supply._path_to_source, st, sc, u.side, u.hex)


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
