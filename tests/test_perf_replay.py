"""Replay's shortcuts of issue 29 give the states the plain reducers give (correctness
only: the figures come from tests/benchmark.py).

- Advanced Tobruk derives a unit's markers (its status column) again only for the
  units an event touched (the pieces and units its reducer asked for; every unit
  when it walked them all; the winded ones when a phase begins), instead of every
  unit after every event: after every event of every Tobruk example each unit's
  markers are those the markers of issue 18 (``ref_markers``) give from its piece; a
  turn's end and a Movement Segment's start touch only the pieces they change.
"""
from __future__ import annotations

import pytest

from conftest import EXAMPLES
from pbem.games.advanced_tobruk import reducer
from pbem.games.advanced_tobruk.board.facing import SPINES
from pbem.core.hexgrid import DIRECTIONS

TOBRUK = [n for n in EXAMPLES if n.startswith("tobruk")]


def ref_markers(p, turn: int, gone: bool = False) -> list[str]:
    """``markers`` as it was before issue 29 (a table of flags), the reference."""
    out = []
    if p.facing >= 0:
        out.append(f"facing {SPINES[p.facing]}")
    if p.turret >= 0:
        out.append(f"turret {SPINES[p.turret]}")
    if p.steps and not gone:
        names = reducer.STEPS.get(p.cls, ("", "reduced"))
        out.append(names[p.steps] if p.steps < len(names) else f"{p.steps} steps")
    if p.holder:
        out.append(f"with {p.holder}")
    if p.hidden_at and not gone:
        out.append(f"hidden in {p.hidden_at}")
    if p.dummy:
        out.append("dummy")
    flags = (("wreck", p.wreck == "wreck"), ("burning wreck", p.wreck == "burning"), ("F", p.fired),
             ("moving", p.moving), ("moved", p.moved and not p.moving), ("continued movement", p.continued),
             ("suppressed", p.suppressed), ("M-KILL", p.m_kill), ("bailed out", p.bailed),
             ("broken", p.broken), ("surrendered", p.surrendered), ("pinned", p.pinned),
             ("winded", bool(p.winded) and turn - p.winded <= 1), ("courage", p.courage), ("FULL cover", p.full),
             ("melee", p.melee), ("hull defilade", bool(p.hd)))
    out += [name for name, on in flags if on]
    if p.f_kill:
        out.append("F-KILL " + ",".join(p.f_kill))
    if p.rim >= 0 and not gone:
        out.append(f"up in the wadi, facing {DIRECTIONS[p.rim]}")
    return out


@pytest.mark.parametrize("name", TOBRUK)
def test_tobruk_markers_after_every_event_are_those_of_every_piece(played_example, name):
    g = played_example(name).game()
    entries = g.entries()
    st = g.state(0)
    checked = 0
    for en in entries[1:]:
        g.rules.apply(st, en.event, g.scenario)
        for uid, u in st.units.items():
            assert u.marks == ref_markers(st.pieces[uid], st.turn, u.eliminated), (en.seq, en.kind, uid)
            checked += 1
    assert checked > 1000 and isinstance(st.pieces, dict) and isinstance(st.units, dict)
    assert g.state() == st or g.state().units == st.units


def test_a_reducer_that_walks_every_piece_has_every_units_markers_derived_again():
    asked = reducer._Asked({"a": 1, "b": 2})
    assert asked["a"] == 1 and asked.get("c") is None and "b" in asked and not asked.every
    assert asked.asked == {"a", "c"}
    list(asked.values())
    assert asked.every
