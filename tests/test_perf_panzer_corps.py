"""The Panzer Corps family's shortcuts of issue 29 (``pbem verify`` at 20k events/s) give what
the plain code gives (correctness only: the figures come from tests/benchmark.py --only games):

- the decision step's sides (the kernel's gate before every order) are read from the
  decision, without its row (a set-up's row lists every unit's legal hexes: Khar'kov 3.0(4));
- ``zoc_against`` (6.0-6.4) is kept per scenario by the hexes of the enemy units with a ZOC;
- ``room_at`` (7.0) reads who stands where from ``units_at``, for the many hexes of a set-up's
  or a reinforcement's choices (Khar'kov 3.0(4), 10.0(4));
- Dunkerque's end of the game (4.1, 4.2, ``Dunkerque.end_lines``) finds the open hexes once
  and the hexes joined through them to the edges and to each port, and searches for a unit's
  line only where one exists: the lines are those of a search from every unit (``plain_end_lines``).

The ``plain_*`` functions are the code before the shortcuts, kept here as the reference.
Every state is that after each event of the examples' logs."""
from __future__ import annotations

import random

import pytest

from conftest import EXAMPLES
from pbem.core.state import copy_state
from pbem.mechanics.movement import trace_line, units_at
from pbem.mechanics.zoc import enemy_zoc

FAMILY = [n for n in EXAMPLES if n in ("dunkerque", "el-alamein", "kharkov", "operation-compass")]


def _states(g):
    """The state after each event of the game's log."""
    st = g.state(0)
    for en in g.entries()[1:]:
        g.rules.apply(st, en.event, g.scenario)
        yield st


@pytest.mark.parametrize("name", FAMILY)
def test_the_decision_steps_sides_are_its_rows_sides(played_example, name):
    g = played_example(name).game()
    rules, sc = g.rules, g.scenario
    step = rules.interrupts[0]
    asked = 0
    for st in _states(g):
        if st.decision is None or st.result is not None:
            continue
        asked += 1
        assert step.waited(st, sc) == [r["side"] for r in step.waits(st, sc)]
    assert asked


def plain_end_lines(rules, st, sc):
    """Dunkerque.game_over's search before issue 29: from every unit, to the edges, else to each port."""
    open_hex = rules.line_open(st, sc)
    traced, stranded = [], {}
    for u in sorted(rules.on_map(st, "allied"), key=lambda x: (-x.strength, x.id)):
        path = rules.trace(st, sc, u, open_hex)
        if path is not None:
            traced.append((u, path))
            continue
        stranded[u.id] = {}
        for port in rules.ports(sc):
            p = trace_line(sc.board, [u.hex], {port}, open_hex=lambda h, port=port: h == port or open_hex(h))
            if p is not None and (port == u.hex or open_hex(port)):
                stranded[u.id][port] = p
    return traced, stranded


def test_dunkerque_end_of_game_lines_are_those_searched_from_every_unit(played_example):
    g = played_example("dunkerque").game()
    rules, sc = g.rules, g.scenario
    traced = cut = to_port = 0
    for st in _states(g):
        got, want = rules.end_lines(st, sc), plain_end_lines(rules, st, sc)
        assert [(u.id, p) for u, p in got[0]] == [(u.id, p) for u, p in want[0]]
        assert list(got[1].items()) == list(want[1].items())
        traced += len(want[0])
        cut += len(want[1])
        to_port += sum(len(ports) for ports in want[1].values())
    assert traced and cut and to_port                        # lines to an edge, to a port, and none


def _moved(st, rng):
    """A copy with units moved, disrupted and eliminated at random."""
    st = copy_state(st)
    hexes = sorted({u.hex for u in st.units.values() if u.hex})
    for u in st.units.values():
        if rng.random() < 0.3:
            u.hex = rng.choice(hexes + [None])
        u.disrupted = rng.random() < 0.2
        u.eliminated = rng.random() < 0.05
    return st


@pytest.mark.parametrize("name", FAMILY)
def test_zoc_kept_per_enemy_position_is_the_zoc_found_afresh(played_example, name):
    g = played_example(name).game()
    rules, sc = g.rules, g.scenario
    sides = list(rules.p.stacking)
    rng = random.Random(name)
    n = 0
    for i, st in enumerate(_states(g)):
        for x in (st, _moved(st, rng)) if i % 10 == 0 else (st,):
            for side in sides:
                enemy = next(s for s in sides if s != side)
                want = enemy_zoc(x, sc.board, side, blocked=rules.zoc_blocked(sc, enemy))
                got = rules.zoc_against(x, sc, side)
                assert got == want and isinstance(got, frozenset)
                n += bool(want)
    assert n > 100


@pytest.mark.parametrize("name", FAMILY)
def test_room_read_from_units_at_is_room(played_example, name):
    g = played_example(name).game()
    rules, sc = g.rules, g.scenario
    rng = random.Random(name)
    full = 0
    for i, st in enumerate(_states(g)):
        if i % 25:
            continue
        for x in (st, _moved(st, rng)):
            at = units_at(x)
            hexes = sorted(at) + sc.board.grid.all_hexes()[::29]
            for side in rules.p.stacking:
                for h in hexes:
                    for moving in ("", *(u.id for u in at.get(h, ())[:2])):
                        want = rules.room(x, side, h, moving)
                        assert rules.room_at(at, side, h, moving) is want
                        full += not want
    assert full
