"""Replay's shortcuts of issue 29 give the states the plain reducers give (correctness
only: the figures come from tests/benchmark.py).

- Advanced Tobruk derives a unit's markers (its status column) again only for the
  units an event touched (the pieces and units its reducer asked for; every unit
  when it walked them all; the winded ones when a phase begins), instead of every
  unit after every event: after every event of every Tobruk example each unit's
  markers are those ``markers`` gives from its piece.
"""
from __future__ import annotations

import pytest

from conftest import EXAMPLES
from pbem.games.advanced_tobruk import reducer

TOBRUK = [n for n in EXAMPLES if n.startswith("tobruk")]


@pytest.mark.parametrize("name", TOBRUK)
def test_tobruk_markers_after_every_event_are_those_of_every_piece(played_example, name):
    g = played_example(name).game()
    entries = g.entries()
    st = g.state(0)
    checked = 0
    for en in entries[1:]:
        g.rules.apply(st, en.event, g.scenario)
        for uid, u in st.units.items():
            assert u.marks == reducer.markers(st.pieces[uid], st.turn, u.eliminated), (en.seq, en.kind, uid)
            checked += 1
    assert checked > 1000 and isinstance(st.pieces, dict) and isinstance(st.units, dict)
    assert g.state() == st or g.state().units == st.units


def test_a_reducer_that_walks_every_piece_has_every_units_markers_derived_again():
    asked = reducer._Asked({"a": 1, "b": 2})
    assert asked["a"] == 1 and asked.get("c") is None and "b" in asked and not asked.every
    assert asked.asked == {"a", "c"}
    list(asked.values())
    assert asked.every
