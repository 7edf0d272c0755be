"""The Panzer Corps family's shortcuts of issue 29 (``pbem verify`` at 20k events/s) give what
the plain code gives (correctness only: the figures come from tests/benchmark.py --only games):

- the decision step's sides (the kernel's gate before every order) are read from the
  decision, without its row (a set-up's row lists every unit's legal hexes: Khar'kov 3.0(4));
- Dunkerque's end of the game (4.1, 4.2, ``Dunkerque.end_lines``) finds the open hexes once
  and the hexes joined through them to the edges and to each port, and searches for a unit's
  line only where one exists: the lines are those of a search from every unit (``plain_end_lines``).

The ``plain_*`` functions are the code before the shortcuts, kept here as the reference.
Every state is that after each event of the examples' logs."""
from __future__ import annotations

import pytest

from conftest import EXAMPLES
from pbem.mechanics.movement import trace_line

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
