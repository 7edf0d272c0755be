"""Advanced Tobruk's limited intelligence (32): the Spotting Ranges Table by
condition and height, no fire at unspotted units, FOW faces and their flip,
dummies removed when they must flip."""
from __future__ import annotations

import pytest

from pbem.core.orders import OrderError
from pbem.core.ruleset import Ctx
from pbem.core.scenario import loads
from pbem.games.advanced_tobruk import fog_events as FE
from pbem.games.advanced_tobruk.fog import fog_words, fow
from pbem.games.advanced_tobruk.board import spotting
from test_tobruk_fog_kit import DIRECT, MOVEMENT, U, card, goto, make


def _sc(tmp_path, conditions="", units=None, hillock=(), name="g"):
    ssr = "limited_intelligence = true" + (f'\nconditions = "{conditions}"' if conditions else "")
    units = units or [U("A1", "british", "aus-squad", "0705"), U("G1", "german", "ger-squad", "0708")]
    t = make(tmp_path, units, ssr=ssr, hillock=hillock, name=name)
    return t, t.game.scenario


def test_the_spotting_ranges_table_by_condition_and_the_sup_fow_row(tmp_path):
    _, sc = _sc(tmp_path)                                   # no conditions on the card: OPTIMAL (32.253)
    assert [spotting.range_for(sc, x) for x in "VPH"] == [16, 6, 8]
    assert [spotting.range_for(sc, x, True) for x in "VPH"] == [6, 3, 3]
    _, night = _sc(tmp_path, "night", name="n")
    assert [spotting.range_for(night, x) for x in "VPH"] == [2, 1, 1]
    assert [spotting.range_for(night, x, True) for x in "VPH"] == [2, 1, 1]    # never longer than the night
    _, dusk = _sc(tmp_path, "dusk", name="d")
    assert [spotting.range_for(dusk, x) for x in "VPH"] == [8, 4, 5]
    bad = loads(card([U("A1", "british", "aus-squad", "0705")], 'limited_intelligence = true\nconditions = "fog"')
                .encode())
    with pytest.raises(OrderError, match="32.253"):
        spotting.range_for(bad, "V")


def test_letters_vehicles_personnel_heavy_weapons(tmp_path):
    t, sc = _sc(tmp_path, units=[U("A1", "british", "aus-squad", "0705"), U("B1", "british", "bren", "0705"),
                                 U("Gun1", "british", "2pdr-gun", "0803", holder="C1"),
                                 U("C1", "british", "brit-crew", "0803"),
                                 U("P1", "german", "pz3g", "0609", facing="NNE")])
    assert [spotting.letter(sc, u) for u in ("A1", "B1", "Gun1", "P1")] == ["P", "P", "H", "V"]


def test_height_advantage_a_unit_at_level_5_adds_five_hexes_both_ways(tmp_path):
    # 32.261: the example of a unit at level +5 on a hillock adding five hexes; spotting is reciprocal
    units = [U("A1", "british", "aus-squad", "0702"), U("G1", "german", "ger-squad", "0709"),
             U("G2", "german", "ger-squad", "1402")]
    t, sc = _sc(tmp_path, "night", units, hillock=("0702",))
    st = t.state()
    assert spotting.level(sc, "0702") == 5 and spotting.level(sc, "0709") == 0
    assert spotting.spotting_range(st, sc, "A1", "G1") == 1 + 5
    assert spotting.spotting_range(st, sc, "G1", "A1") == 1 + 5          # seen at the increased range too
    assert spotting.can_spot(st, sc, "G1", "A1") is False                # 7 hexes away: beyond 6
    assert sc.board.grid.distance("0702", "1402") == 7
    t2, sc2 = _sc(tmp_path, "night", [U("A1", "british", "aus-squad", "0704"),
                                U("G1", "german", "ger-squad", "0709")], hillock=("0704",), name="x")
    st2 = t2.state()
    assert sc2.board.grid.distance("0704", "0709") == 5
    assert spotting.can_spot(st2, sc2, "A1", "G1") and spotting.can_spot(st2, sc2, "G1", "A1")
    assert spotting.spotted(st2, sc2, "german", "A1")
    t3, sc3 = _sc(tmp_path, "night", [U("A1", "british", "aus-squad", "0704"),
                                U("G1", "german", "ger-squad", "0709")], name="y")
    assert not spotting.can_spot(t3.state(), sc3, "A1", "G1")         # level 0: one hex at night


def test_a_hillock_between_two_lower_units_blocks_the_line(tmp_path):
    units = [U("A1", "british", "aus-squad", "0703"), U("G1", "german", "ger-squad", "0706")]
    t, sc = _sc(tmp_path, "", units, hillock=("0704",))
    assert not spotting.los_clear(t.state(), sc, "0703", "0706")
    assert not spotting.spotted(t.state(), sc, "german", "A1")
    t2, sc2 = _sc(tmp_path, "", units, name="o")
    assert spotting.spotted(t2.state(), sc2, "german", "A1")


def test_two_smoke_hexes_in_between_block_spotting(tmp_path):
    from pbem.core.state import copy_state
    units = [U("A1", "british", "aus-squad", "0702"), U("G1", "german", "ger-squad", "0706")]
    t, sc = _sc(tmp_path, "", units)
    st = copy_state(t.state())
    assert spotting.los_clear(st, sc, "0702", "0706")
    st.smoke = {"0703": 1}
    assert spotting.spotted(st, sc, "german", "A1")                   # one smoke hex only hinders
    st.smoke = {"0703": 1, "0704": 2}
    assert not spotting.los_clear(st, sc, "0702", "0706") and not spotting.spotted(st, sc, "german", "A1")


def test_without_limited_intelligence_every_unit_on_the_map_is_spotted(tmp_path):
    units = [U("A1", "british", "aus-squad", "0701"), U("G1", "german", "ger-squad", "0710")]
    t = make(tmp_path, units, ssr='conditions = "night"')
    assert spotting.spotted(t.state(), t.game.scenario, "german", "A1")
    assert t.state().pieces["A1"].flipped is False


# --- 32.251 no fire at an unspotted unit -------------------------------------------------------

def test_no_unit_may_be_fired_on_unless_it_is_spotted(tmp_path):
    units = [U("A1", "british", "aus-squad", "0702"), U("G1", "german", "ger-squad", "0705"),
             U("G2", "german", "ger-squad", "0708")]
    t = make(tmp_path, units, dice=(1, 2) * 4 + (5,) * 8)         # dusk: personnel spotted at 4 hexes
    goto(t, 1, DIRECT)
    sc = t.game.scenario
    assert sc.board.grid.distance("0702", "0708") == 6                  # within twice the squad's range 4
    t.refuse("british", "fire A1 at G2", rule="32.251", match="not spotted")
    t.refuse("british", "fire A1 at 0708", rule="32.251", match="is spotted by any")
    assert not spotting.spotted(t.state(), sc, "british", "G2")
    evs = t.ok("british", "fire A1 at G1")                              # 3 hexes: spotted
    assert any(type(e).__name__ == "CasualtyAttack" for e in evs)


def test_opportunity_fire_ignores_movers_it_cannot_spot(tmp_path):
    units = [U("A1", "british", "aus-squad", "0702"), U("G1", "german", "ger-squad", "0707")]
    t = make(tmp_path, units, ssr='limited_intelligence = true\nconditions = "night"', dice=(2, 1) * 6)
    t.ok("british", "standing any")
    goto(t, 1, MOVEMENT)
    evs = t.ok("german", "assault G1 0706 0705")                    # 3 hexes off at night: never spotted
    assert not [e for e in evs if type(e).__name__ in ("CasualtyAttack", "MovePaused")]
    assert t.hex_of("G1") == "0705"


# --- 32.11 / 32.12 FOW faces ----------------------------------------------------------------

def test_vehicles_start_fow_side_up_and_flip_within_spotting_range_in_the_open(tmp_path):
    units = [U("A1", "british", "aus-squad", "0703"), U("P1", "german", "pz3g", "0610", facing="NNE")]
    t = make(tmp_path, units, dice=(2, 1) * 6)
    st = t.state()
    sc = t.game.scenario
    assert st.pieces["P1"].flipped is False and spotting.fow_up(st, sc, "P1")
    goto(t, 1, MOVEMENT)
    # dusk: a FOW vehicle is spotted at the SUP|FOW row's 6 hexes: from 0610 (8 away) to 0608 (6 away)
    assert sc.board.grid.distance("0608", "0703") == 6 and sc.board.grid.distance("0609", "0703") == 7
    evs = t.ok("german", "cross P1 0609 0608")
    flips = [e for e in evs if isinstance(e, FE.Flipped)]
    assert flips == [FE.Flipped(units=["P1"], why="within an enemy unit's spotting range", rule="32.12")]
    assert [e.hex for e in evs if type(e).__name__ == "Stepped"][-1] == "0608"
    assert t.state().pieces["P1"].flipped


def test_an_unfired_fow_unit_in_scrub_stays_fow_until_it_fires(tmp_path):
    units = [U("A1", "british", "aus-squad", "0605"), U("P1", "german", "pz3g", "0607", facing="NNE")]
    t = make(tmp_path, units, dice=(2, 1) * 2 + (9,) + (2, 1) * 8)
    goto(t, 1, DIRECT)
    sc = t.game.scenario
    assert sc.board.terrain["0607"] == "scrub"
    st = t.state()
    assert spotting.can_spot(st, sc, "A1", "P1") and not st.pieces["P1"].flipped     # 32.12's exception
    evs = t.ok("german", "fire P1 at A1 with coax")
    assert isinstance(evs[0], FE.Flipped) and evs[0].units == ["P1"]                # before the fire names it
    assert t.state().pieces["P1"].flipped


def test_a_dummy_forced_to_flip_is_removed_and_the_event_says_so(tmp_path):
    units = [U("A1", "british", "aus-squad", "0703"), U("V9", "german", "pz3g", "0610", facing="NNE"),
             U("G1", "german", "ger-squad", "0710")]
    ssr = 'limited_intelligence = true\nconditions = "dusk"\ndummies = { german = { counters = ["V9"], count = 1 } }'
    t = make(tmp_path, units, ssr=ssr, dice=(2, 1) * 6, german=("note dummy V9", "pass"))
    assert t.state().pieces["V9"].dummy
    goto(t, 1, MOVEMENT)
    evs = t.ok("german", "cross V9 0609 0608")
    gone = [e for e in evs if isinstance(e, FE.DummyRemoved)]
    assert [(e.unit, e.hex) for e in gone] == [("V9", "0608")]
    assert "was a dummy" in fog_words.describe(gone[0], t.game.scenario)
    st = t.state()
    assert st.units["V9"].hex is None and st.units["V9"].gone == "dummy"
    assert not [e for e in evs if isinstance(e, FE.Flipped)]


def test_a_dummy_fired_on_is_removed_and_no_fire_is_made(tmp_path):
    units = [U("Tk1", "british", "a13", "0603", facing="SSE"), U("V9", "german", "pz3g", "0607", facing="NNE"),
             U("G1", "german", "ger-squad", "0609")]
    ssr = 'limited_intelligence = true\nconditions = "dusk"\ndummies = { german = { counters = ["V9"], count = 1 } }'
    t = make(tmp_path, units, ssr=ssr, dice=(2, 1) * 4, german=("note dummy V9", "pass"))
    goto(t, 1, DIRECT)
    st = t.state()
    assert st.step.passed == ["german"] and st.step.to_act == "british"      # the dummy may not fire (32.241)
    ctx = Ctx(t.game.rules, st, t.game.scenario, "german", None)
    with pytest.raises(OrderError, match="32.241"):
        fow.before_fire(ctx, ["V9"])
    evs = t.ok("british", "fire Tk1 at V9")
    assert [type(e).__name__ for e in evs if type(e).__name__ in ("DummyRemoved", "CasualtyAttack", "GunFired")] \
        == ["DummyRemoved"]
    assert t.state().units["V9"].gone == "dummy"


def test_a_dummy_leaving_the_map_is_removed_and_scores_nothing(tmp_path):
    units = [U("A1", "british", "aus-squad", "1310"), U("V9", "german", "pz3g", "0102", facing="NNE"),
             U("G1", "german", "ger-squad", "0710")]
    ssr = 'limited_intelligence = true\nconditions = "night"\ndummies = { german = { counters = ["V9"], count = 1 } }'
    t = make(tmp_path, units, ssr=ssr, dice=(2, 1) * 6, german=("note dummy V9", "pass"))
    goto(t, 1, MOVEMENT)
    if t.state().step.to_act == "british":
        t.ok("british", "pass")
    evs = t.ok("german", "cross V9 0101 off")
    assert [type(e).__name__ for e in evs if type(e).__name__ in ("DummyRemoved", "UnitExited")] == ["DummyRemoved"]
    assert "V9" not in t.state().exited and t.state().units["V9"].gone == "dummy"
