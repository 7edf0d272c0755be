"""El Alamein (Panzer Corps) rules, driven through the real engine.

Each test names the rule it checks (panzer-corps.txt, El Alamein section).
Most tests build a small scenario (see conftest.py for the default 8x8 map,
the fixed CRT and the hex neighbour pattern) so the position is exactly what
the test needs; the dice are scripted, so each result follows from the CRT.

Decisions taken where the rules leave room (also in the report):
- 8.4: a halved MA drops fractions (the code's reading; no shipped unit has
  an odd MA).
- 9.5(2): a retreat path must move one hex farther from the combat hex at
  every step; on an AR the attacker ends 2 hexes from the defender's hex.
- 9.5(2)/7.1: passing through a friendly unit during a retreat is allowed
  even when a path through empty hexes exists; only the end hex must be
  empty where possible.
- 9.5(1): an inline retreat that is illegal when the combat resolves is not
  an error: the unit takes the only legal path, or the attacker is asked.
- 4.2(4) is the rule number of "British win at the end of turn 4" in the
  rulebook text (the brief calls it 4.4).
"""
from __future__ import annotations

import subprocess
import sys

import pytest

from conftest import (AXIS_COMBAT, AXIS_MOVE, BRIT_COMBAT, BRIT_MOVE, U, crt, events_of, one, only,
                      write_scenario)
from pbem.games.panzer_corps import events as E
from pbem.core import orders as O
from pbem.core.dice import ScriptedDice
from pbem.engine import Game
from pbem.core.orders import OrderError
from pbem.games import ruleset_for
from pbem.core.ruleset import Ctx
from pbem.mechanics.odds import odds_column
from pbem.mechanics.zoc import enemy_zoc
from pbem.core.scenario import load, lint
from pbem.core.state import copy_state, state_bytes


def combat(events) -> E.CombatResolved:
    return one(events, E.CombatResolved)


def crafted_ctx(t, side: str, **changes):
    """A rules context on a copy of the game's state with some units changed.

    Used only for positions that legal play in El Alamein cannot produce
    (e.g. a disrupted unit in an enemy movement phase)."""
    st = copy_state(t.state())
    for uid, fields in changes.items():
        for k, v in fields.items():
            setattr(st.units[uid], k, v)
    return Ctx(t.game.rules, st, t.game.scenario, side, ScriptedDice([]))


# ============================================================================
# Shipped scenario
# ============================================================================

def test_2_2_shipped_scenario_has_39_units_by_nationality():
    # 2.2(1): 11 German, 8 Italian and 20 British Commonwealth units.
    sc = load("el-alamein")
    assert len(sc.units) == 39
    by_nat = {}
    for u in sc.units:
        by_nat[u.nationality] = by_nat.get(u.nationality, 0) + 1
    assert by_nat == {"german": 11, "italian": 8, "british": 20}
    assert all(u.side == "axis" for u in sc.units if u.nationality in ("german", "italian"))
    assert all(u.side == "british" for u in sc.units if u.nationality == "british")
    assert all(u.hex is not None for u in sc.units)      # 3.0(3): every unit starts on the map


def test_shipped_scenario_passes_the_linters():
    # Scenario linter (design.md): hexes exist, legal set-up terrain, CRT complete (9.2, 9.4).
    sc = load("el-alamein")
    rules = ruleset_for(sc.game)
    assert lint(sc, set(rules.result_codes)) == []
    assert rules.lint(sc) == []
    assert sc.turns == 4 and sc.die == 6                 # 5.0 four turns, 2.3 one d6
    assert [(p.side, p.name) for p in sc.sequence] == [   # 5.0 sequence of play
        ("axis", "movement"), ("axis", "combat"), ("british", "movement"), ("british", "combat")]


def test_4_1_shipped_victory_hexes():
    # 4.1(1): El Alamein and the road east of it; 4.1(2): two battle positions on Alam Halfa Ridge.
    sc = load("el-alamein")
    v = sc.victory
    alamein = next(p.hexes for p in sc.map.places if p.name == "El Alamein")
    ridge = next(p.hexes for p in sc.map.places if p.name == "Alam Halfa Ridge")
    assert set(alamein) <= set(v["objective_hexes"])
    assert set(v["objective_hexes"]) <= set(sc.map.features["road"].hexes)
    assert len(v["alam_halfa_positions"]) == 2
    assert set(v["alam_halfa_positions"]) <= set(ridge)
    assert set(v["alam_halfa_positions"]) <= set(sc.map.features["battle_position"].hexes)
    assert sc.map.features["battle_position"].side == "british"


def test_small_test_scenarios_mirror_the_shipped_structure(tmp_path):
    # conftest.write_scenario: same game, sides, sequence, terrain, CRT columns and victory keys
    # as the shipped file; a generated scenario passes both linters.
    shipped = load("el-alamein")
    small = load(write_scenario(tmp_path, [U("A", "axis", 4, 6, "0303"), U("B", "british", 4, 4, "0707")]))
    rules = ruleset_for(small.game)
    assert lint(small, set(rules.result_codes)) == [] and rules.lint(small) == []
    assert small.game == shipped.game == "el-alamein"
    assert small.sides == shipped.sides and small.sequence == shipped.sequence
    assert small.crt.columns == shipped.crt.columns
    rule_keys = {"objective_hexes", "alam_halfa_positions", "axis_check_after", "break_side", "break_edge",
                 "default_winner"}
    assert rule_keys <= set(shipped.victory) and set(small.victory) == rule_keys
    for k in ("axis_check_after", "break_side", "break_edge", "default_winner"):
        assert small.victory[k] == shipped.victory[k]
    for name, ter in shipped.terrain.items():
        mine = small.terrain[name]
        assert (mine.move_cost, mine.impassable, mine.defence) == (ter.move_cost, ter.impassable, ter.defence)
    assert small.map.features["battle_position"].side == "british"


def test_3_0_shipped_initial_set_up(shipped_game):
    # 3.0(3)/(4): units on their set-up hexes, game turn marker on box 1; 5.0 Axis moves first.
    t = shipped_game()
    sc = t.game.scenario
    st = t.state()
    assert (st.turn, st.phase) == (1, AXIS_MOVE)
    assert st.result is None and st.decision is None
    assert len(st.units) == 39
    for u in sc.units:
        s = st.units[u.id]
        assert (s.hex, s.side, s.strength, s.ma) == (u.hex, u.side, u.strength, u.ma)
        assert not (s.disrupted or s.eliminated or s.moved or s.attacked)
    assert [(a["side"], a["kind"]) for a in t.awaiting()] == [("axis", "movement")]
    assert sc.turn_track[0].label == "31 August AM"
    assert t.game.verify().ok


def test_8_4_shipped_british_armour_halved_on_turn_1(shipped_game):
    # 8.4: 22Arm (MA 6) has only 3 MP in the turn-1 British movement phase.
    t = shipped_game()
    t.goto(1, BRIT_MOVE)
    t.refuse("british", "move 22Arm 1408 1407 1406 1405", rule="8.2(1)")
    ev = one(t.ok("british", "move 22Arm 1408 1407 1406"), E.UnitMoved)
    assert (ev.mp, ev.ma) == (3, 3)
    assert t.hex_of("22Arm") == "1406"
    assert t.game.verify().ok


# ============================================================================
# 9.2 odds
# ============================================================================

@pytest.mark.parametrize("att, dfn, column", [
    (11, 4, "2:1"),    # 9.2(1) worked example: 11:4 = 2.75:1, rounds down to 2:1
    (2, 3, "1:2"),     # 9.2(2) worked example: 2:3 = 1:1.5, rounds up to 1:2
    (4, 4, "1:1"),
    (7, 4, "1:1"),     # 9.2(1): 1.75:1 rounds down
    (8, 4, "2:1"),
    (3, 4, "1:2"),     # 9.2(2): 1:1.33 rounds up to 1:2
    (1, 2, "1:2"),
    (18, 3, "6:1"),
    (28, 4, "6:1"),    # 9.2(1): 7:1 is fought on the 6:1 column
    (100, 1, "6:1"),
    (1, 3, None),      # 9.2(2): 1:3 is not allowed
    (2, 5, None),      # 9.2(2): 1:2.5 rounds up to 1:3, not allowed
    (1, 4, None),
])
def test_9_2_odds_column(att, dfn, column):
    assert odds_column(att, dfn) == column


def test_9_2_1_worked_example_11_to_4_fights_at_2_to_1(make_game):
    # 9.2(1): strengths 8 + 3 against 4 give 11:4, fought on the 2:1 column.
    t = make_game([U("A8", "axis", 8, 6, "0404"), U("A3", "axis", 3, 6, "0504"),
                   U("B", "british", 4, 4, "0505")], dice=[1])
    t.goto(1, AXIS_COMBAT)
    t.ok("axis", "attack 0505 with A8 A3 retreat 0506 no-advance")
    c = combat(t.ok("axis", "end"))
    assert (c.attack_strength, c.defence_strength, c.odds) == (11, 4, "2:1")
    assert c.rolls == [1] and c.result == crt(1, "2:1") == "DR1"
    assert t.hex_of("B") == "0506"


def test_9_2_2_worked_example_2_to_3_fights_at_1_to_2(make_game):
    # 9.2(2): 2 against 3 is 1:1.5, fought on the 1:2 column; die 3 there is AE (9.4(1)).
    t = make_game([U("A", "axis", 2, 6, "0404"), U("B", "british", 3, 4, "0505")], dice=[3])
    t.goto(1, AXIS_COMBAT)
    t.ok("axis", "attack 0505 with A")
    evs = t.ok("axis", "end")
    c = combat(evs)
    assert (c.attack_strength, c.defence_strength, c.odds, c.result) == (2, 3, "1:2", "AE")
    assert t.unit("A").eliminated


def test_9_2_1_odds_above_6_to_1_use_the_6_to_1_column(make_game):
    # 9.2(1): 24 against 2 (12:1) is resolved on the 6:1 column; die 1 there is DE.
    t = make_game([U("A1", "axis", 8, 6, "0404"), U("A2", "axis", 8, 6, "0504"), U("A3", "axis", 8, 6, "0506"),
                   U("B", "british", 2, 4, "0505")], dice=[1])
    t.goto(1, AXIS_COMBAT)
    t.ok("axis", "attack 0505 with A1 A2 A3 no-advance")
    c = combat(t.ok("axis", "end"))
    assert (c.attack_strength, c.defence_strength, c.odds, c.result) == (24, 2, "6:1", "DE")
    assert t.unit("B").eliminated


@pytest.mark.parametrize("att", [1, 2])
def test_9_2_2_attack_at_1_to_3_or_worse_is_refused(make_game, att):
    # 9.2(2): 1:3 (and 2:5, which rounds up to 1:3) may not be attacked; nothing reaches the log.
    t = make_game([U("A", "axis", att, 6, "0404"), U("B", "british", 3 if att == 1 else 5, 4, "0505")])
    t.goto(1, AXIS_COMBAT)
    err = t.refuse("axis", "attack 0505 with A", rule="9.2(2)")
    assert "1:3" in err.message
    assert t.state().attacks == [] and not t.unit("A").attacked


# ============================================================================
# 9.3 terrain effects on combat
# ============================================================================

@pytest.mark.parametrize("target, attacker_hex, why", [
    ("0606", "0605", "highlands"),                 # 9.3: highlands double the defender
    ("0707", "0706", "village"),                   # 9.3: villages double the defender
    ("0806", "0706", "battle position (9.3(1))"),  # 9.3(1): British defender in a battle position
])
def test_9_3_defender_doubled(make_game, target, attacker_hex, why):
    t = make_game([U("A", "axis", 6, 6, attacker_hex), U("B", "british", 3, 4, target)], dice=[4])
    t.goto(1, AXIS_COMBAT)
    t.ok("axis", f"attack {target} with A")
    c = combat(t.ok("axis", "end"))
    assert (c.attack_strength, c.defence_strength, c.odds) == (6, 6, "1:1")
    assert len(c.modifiers) == 1 and why in c.modifiers[0] and "9.3" in c.modifiers[0]
    assert c.result == crt(4, "1:1") == "AR"


def test_9_3_desert_defender_not_doubled(make_game):
    # 9.3: only highlands, villages and British battle positions change a defender's strength.
    t = make_game([U("A", "axis", 6, 6, "0404"), U("B", "british", 3, 4, "0505")], dice=[4])
    t.goto(1, AXIS_COMBAT)
    t.ok("axis", "attack 0505 with A")
    c = combat(t.ok("axis", "end"))
    assert (c.defence_strength, c.odds, c.modifiers) == (3, "2:1", [])


def test_9_3_doubling_can_make_an_attack_illegal(make_game):
    # 9.3 + 9.2(2): 2 against 3 doubled in highlands (6) is 1:3: refused.
    t = make_game([U("A", "axis", 2, 6, "0605"), U("B", "british", 3, 4, "0606")])
    t.goto(1, AXIS_COMBAT)
    t.refuse("axis", "attack 0606 with A", rule="9.2(2)")


def test_9_3_3_battle_position_in_highlands_doubles_once(make_game):
    # 9.3(3): 0708 is highlands with a battle position: 3 -> 6, not 12.
    t = make_game([U("A", "axis", 6, 6, "0807"), U("B", "british", 3, 4, "0708")], dice=[4])
    t.goto(1, AXIS_COMBAT)
    t.ok("axis", "attack 0708 with A")
    c = combat(t.ok("axis", "end"))
    assert (c.defence_strength, c.odds) == (6, "1:1")
    assert any("9.3(3)" in m for m in c.modifiers)


def test_9_3_1_german_unit_in_a_battle_position_is_not_doubled(make_game):
    # 9.3(1): a German-Italian unit in a British battle position keeps its strength.
    t = make_game([U("G", "axis", 3, 3, "0806"), U("B", "british", 6, 4, "0706")], dice=[1],
                  alam_halfa=["0103"])
    t.goto(1, BRIT_COMBAT)
    t.ok("british", "attack 0806 with B retreat 0807 advance B")
    evs = t.ok("british", "end")
    c = combat(evs)
    assert (c.attack_strength, c.defence_strength, c.odds, c.modifiers) == (6, 3, "2:1", [])
    assert c.result == "DR1"
    assert t.hex_of("G") == "0807" and t.hex_of("B") == "0806"


def test_9_3_2_battle_position_survives_axis_occupation(make_game):
    # 9.3(2): after a German unit held 0806, a British unit that enters it again is doubled there.
    t = make_game([U("G", "axis", 3, 3, "0806"), U("A", "axis", 6, 6, "0805"),
                   U("B", "british", 6, 4, "0706")], dice=[1, 3], alam_halfa=["0103"])
    t.goto(1, BRIT_COMBAT)
    t.ok("british", "attack 0806 with B retreat 0807 advance B")
    t.ok("british", "end")
    assert t.hex_of("B") == "0806"
    t.goto(2, AXIS_COMBAT)
    t.ok("axis", "attack 0806 with A")
    c = combat(t.ok("axis", "end"))
    assert (c.attack_strength, c.defence_strength, c.odds) == (6, 12, "1:2")
    assert c.result == crt(3, "1:2") == "AE"


# ============================================================================
# 6.x zones of control
# ============================================================================

def test_6_1_move_must_stop_on_entering_an_ezoc(make_game):
    # 6.1: 0404 is next to B (0505): a path may end there but not go on.
    t = make_game([U("A", "axis", 4, 6, "0303"), U("B", "british", 4, 4, "0505")])
    err = t.refuse("axis", "move A 0304 0404 0504", rule="6.1")
    assert "0404" in err.message
    ev = one(t.ok("axis", "move A 0304 0404"), E.UnitMoved)
    assert ev.path == ["0304", "0404"] and ev.mp == 2
    assert t.hex_of("A") == "0404"


def test_6_1_unit_starting_in_ezoc_may_not_move_straight_into_another(make_game):
    # 6.1: C starts in B's ZOC at 0404; 0504 is also in B's ZOC.
    t = make_game([U("C", "axis", 4, 6, "0404"), U("B", "british", 4, 4, "0505")])
    t.refuse("axis", "move C 0504", rule="6.1")
    t.refuse("axis", "move C 0405", rule="6.1")
    # ...but it may leave to a hex outside every EZOC and come back into one later, stopping there.
    ev = one(t.ok("axis", "move C 0403 0503 0504"), E.UnitMoved)
    assert ev.mp == 3 and t.hex_of("C") == "0504"


def test_6_0_several_zocs_count_as_one_and_own_zoc_is_ignored(make_game):
    # 6.0: 0404 is in the ZOC of both B1 and B2, with the effect of one ZOC (stop there; 8.2(5):
    # no extra MP for it); A moves next to its friend F all along: friendly ZOCs never hinder.
    t = make_game([U("A", "axis", 4, 6, "0303"), U("F", "axis", 4, 6, "0403"),
                   U("B1", "british", 4, 4, "0505"), U("B2", "british", 4, 4, "0405")])
    t.refuse("axis", "move A 0304 0404 0403", rule="6.1")
    ev = one(t.ok("axis", "move A 0304 0404"), E.UnitMoved)    # next to F the whole way: no effect
    assert ev.mp == 2


def test_6_3_disrupted_units_exert_no_zoc_unit_level(make_game):
    # 6.3 / 9.7(2): a disrupted unit has no ZOC.
    t = make_game([U("A", "axis", 4, 6, "0303"), U("B", "british", 4, 4, "0505")])
    st = t.state()
    board = t.game.scenario.board
    assert enemy_zoc(st, board, "axis") == {"0504", "0506", "0604", "0605", "0404", "0405"}
    st.units["B"].disrupted = True
    assert enemy_zoc(st, board, "axis") == set()


def test_6_3_moving_past_a_disrupted_unit_is_free(make_game):
    # 6.3 / 9.7(2): with B disrupted, A may move through 0404 (B's former ZOC) and on.
    # In El Alamein a disrupted enemy never sits in one's own movement phase (9.7(3)
    # recovers it first), so the position is crafted on a copy of the state.
    t = make_game([U("A", "axis", 4, 6, "0303"), U("B", "british", 4, 4, "0505")])
    ctx = crafted_ctx(t, "axis", B={"disrupted": True})
    t.game.rules.handle(ctx, O.parse_line("move A 0304 0404 0504 0604"))
    assert ctx.events[-1] == E.UnitMoved(unit="A", path=["0304", "0404", "0504", "0604"], mp=4, ma=6)
    ctx = crafted_ctx(t, "axis")
    with pytest.raises(OrderError) as ei:
        t.game.rules.handle(ctx, O.parse_line("move A 0304 0404 0504 0604"))
    assert ei.value.rule == "6.1"


def test_6_3_9_7_3_attacker_retreated_by_ar_loses_zoc_for_a_later_retreat(make_game):
    # 9.7(3) + 6.3: A1 is retreated (AR) to 0603 in the first combat; disrupted, it has no ZOC,
    # so in the second combat the defender B2 may retreat into 0604, next to A1.
    # 9.7(3): A1 recovers at the end of the same Axis combat phase.
    units = [U("A1", "axis", 3, 6, "0703"), U("B1", "british", 3, 4, "0803"),
             U("A2", "axis", 8, 6, "0404"), U("B2", "british", 4, 4, "0505")]
    t = make_game(units, dice=[2, 1])          # 1:1 die 2 = AR; 2:1 die 1 = DR1
    t.goto(1, AXIS_COMBAT)
    t.ok("axis", "attack 0803 with A1 ar A1 0603\nattack 0505 with A2 no-advance")
    evs = t.ok("axis", "end")
    assert [c.result for c in only(evs, E.CombatResolved)] == ["AR", "DR1"]
    assert one(evs, E.UnitRetreated) == E.UnitRetreated(unit="A1", path=["0603"], chosen_by="axis")
    st = t.state()
    assert st.units["A1"].disrupted                         # 9.7(1)
    assert st.decision.kind == "retreat" and st.decision.units == ["B2"]
    assert ["0604"] in st.decision.options                  # next to disrupted A1: allowed
    assert sorted(st.decision.options) == [["0506"], ["0604"], ["0605"]]
    evs = t.ok("axis", "retreat B2 0604")
    assert one(evs, E.UnitsRecovered).units == ["A1"]       # 9.7(3) end of that combat phase
    st = t.state()
    assert not st.units["A1"].disrupted and st.units["B2"].disrupted
    assert (st.turn, st.phase) == (1, BRIT_MOVE)


def test_6_2_control_a_unit_in_good_order_blocks_that_retreat(make_game):
    # Control for the test above: with A1 in 0603 not disrupted, 0604 is in its ZOC (9.5(3)).
    t = make_game([U("A1", "axis", 3, 6, "0603"), U("A2", "axis", 8, 6, "0404"),
                   U("B2", "british", 4, 4, "0505")], dice=[1])
    t.goto(1, AXIS_COMBAT)
    t.ok("axis", "attack 0505 with A2 no-advance")
    t.ok("axis", "end")
    assert sorted(t.state().decision.options) == [["0506"], ["0605"]]
    t.refuse("axis", "retreat B2 0604", rule="9.5")


# ============================================================================
# 7.x stacking
# ============================================================================

def test_7_1_passing_through_a_friendly_unit_is_allowed(make_game):
    # 7.1: stacking counts only at the end of the move.
    t = make_game([U("A", "axis", 4, 6, "0303"), U("F", "axis", 4, 6, "0403"), U("B", "british", 4, 4, "0808")])
    ev = one(t.ok("axis", "move A 0403 0503"), E.UnitMoved)
    assert ev.path == ["0403", "0503"] and t.hex_of("A") == "0503" and t.hex_of("F") == "0403"


def test_7_1_two_units_swap_hexes_within_a_phase(make_game):
    # 7.1: the limit counts when the movement phase ends, so A may end its move on F while F,
    # which has not moved yet, can still leave; F then takes A's old hex: the two swap.
    t = make_game([U("A", "axis", 4, 6, "0303"), U("F", "axis", 4, 6, "0403"), U("B", "british", 4, 4, "0808")])
    t.ok("axis", "move A 0403\nmove F 0303")
    assert (t.hex_of("A"), t.hex_of("F")) == ("0403", "0303")
    t.ok("axis", "end")
    assert t.phase() == (1, AXIS_COMBAT)


def test_7_1_a_unit_passes_a_friend_and_ends_on_another_which_then_moves_on(make_game):
    # 7.1: A passes through F (0403) and ends on G (0503); the report names the over-full hex;
    # G, not yet moved, moves on; F goes through A's hex and back (a hex may be passed both ways).
    t = make_game([U("A", "axis", 4, 6, "0303"), U("F", "axis", 4, 6, "0403"), U("G", "axis", 4, 6, "0503"),
                   U("B", "british", 4, 4, "0808")])
    t.ok("axis", "move A 0403 0503")
    [item] = t.awaiting()
    assert item["options"] == ["0503: A, G - over the limit of one unit a hex; move units out before end (7.1)"]
    t.ok("axis", "move G 0603")
    assert "options" not in t.awaiting()[0]
    assert one(t.ok("axis", "move F 0503 0403"), E.UnitMoved).path == ["0503", "0403"]
    t.ok("axis", "end")
    assert [t.hex_of(u) for u in "AFG"] == ["0503", "0403", "0603"] and t.phase() == (1, AXIS_COMBAT)


def test_7_1_end_is_refused_while_a_hex_is_over_the_limit(make_game):
    # 7.0 one unit a hex, 7.1 at the end of the movement phase; El Alamein has no 7.3, so the
    # phase may not end while F can still be moved out; the refusal names the hex, the limit and
    # a way out, and the deadline default makes that move before it ends the phase.
    t = make_game([U("A", "axis", 4, 6, "0304"), U("F", "axis", 4, 6, "0403"), U("B", "british", 4, 4, "0808")])
    t.ok("axis", "move A 0403")
    err = t.refuse("axis", "end", rule="7.1")
    assert "0403 holds A, F" in err.message and "one unit a hex" in err.message and "move F " in err.message
    defaults = t.game.rules.default_orders(t.state(), t.game.scenario, "axis")
    assert len(defaults) == 2 and defaults[0].startswith("move F ") and defaults[1] == "end"
    t.ok("axis", "\n".join(defaults))
    assert t.phase() == (1, AXIS_COMBAT) and t.hex_of("A") == "0403" and t.hex_of("F") != "0403"


def test_7_0_a_move_may_not_end_on_a_friend_that_can_no_longer_leave(make_game):
    # 7.0/7.1 with 8.1(2): F has already moved, so nothing could empty 0403 before the end of the
    # phase: A may pass through it but not stay.
    t = make_game([U("A", "axis", 4, 6, "0304"), U("F", "axis", 4, 6, "0503"), U("B", "british", 4, 4, "0808")])
    t.ok("axis", "move F 0403")
    err = t.refuse("axis", "move A 0403", rule="7.1")
    assert "0403" in err.message and "F" in err.message
    t.refuse("axis", "move A 0303 0403", rule="7.1")
    assert t.hex_of("A") == "0304"
    t.ok("axis", "move A 0403 0504")


# A corridor: row 03 from 0103 to 0503 is land, every other hex sea but 0808.
CORRIDOR = ["~" * 8, "~" * 8, ".....~~~", "~" * 8, "~" * 8, "~" * 8, "~" * 8, "~~~~~~~."]


def test_7_1_room_made_along_a_chain_of_moves(make_game):
    # 7.1: A ends on F in the dead end 0103; F's only way out is G's hex, and G, not yet moved,
    # can make room there: the move stands, and the refusal of end shows the two moves.
    t = make_game([U("F", "axis", 4, 1, "0103"), U("G", "axis", 4, 2, "0203"), U("A", "axis", 4, 2, "0303"),
                   U("B", "british", 4, 4, "0808")], rows=CORRIDOR)
    t.ok("axis", "move A 0203 0103")
    err = t.refuse("axis", "end", rule="7.1")
    assert "move G 0303; move F 0203" in err.message
    assert t.game.rules.default_orders(t.state(), t.game.scenario, "axis") == ["move G 0303", "move F 0203", "end"]
    t.ok("axis", "move G 0303\nmove F 0203\nend")
    assert t.phase() == (1, AXIS_COMBAT)


def test_7_0_a_stack_no_move_can_empty_any_more_loses_its_excess(make_game):
    # Our ruling (El Alamein has no 7.3): A ends on F, which may still go to 0303; D then takes
    # 0303 and C (back and forth through F) 0103, both moved, so no move can empty 0203 any more.
    # end asks the owner which unit goes, as the sister games' 7.3 would; the removal counts as
    # an elimination.
    t = make_game([U("C", "axis", 4, 2, "0103"), U("F", "axis", 2, 1, "0203"), U("A", "axis", 4, 2, "0403"),
                   U("D", "axis", 4, 2, "0503"), U("B", "british", 4, 4, "0808")], rows=CORRIDOR)
    t.ok("axis", "move C 0203 0103")                       # through F and back (7.1)
    t.ok("axis", "move A 0303 0203")
    t.ok("axis", "move D 0403 0303")
    d = one(t.ok("axis", "end"), E.DecisionRequired)
    assert (d.side, d.decision, d.units, d.distance, d.rule) == ("axis", "stack-loss", ["A", "F"], 1, "7.0")
    assert t.phase() == (1, AXIS_MOVE)
    assert t.game.rules.default_orders(t.state(), t.game.scenario, "axis") == ["lose F"]
    t.refuse("axis", "lose C", rule="7.0")
    ev = one(t.ok("axis", "lose F"), E.UnitEliminated)
    assert (ev.unit, ev.rule, ev.reason) == ("F", "7.0", "over the stacking limit in 0203")
    assert t.phase() == (1, AXIS_COMBAT)


def test_7_2_entering_an_enemy_hex_is_refused(make_game):
    # 7.2: never into (nor through) a hex with an enemy unit.
    t = make_game([U("A", "axis", 4, 6, "0303"), U("B", "british", 4, 4, "0403")])
    t.refuse("axis", "move A 0403", rule="7.2")
    t.refuse("axis", "move A 0403 0503", rule="7.2")


# ============================================================================
# 8.x movement
# ============================================================================

def test_8_3_terrain_costs(make_game):
    # 8.3(1)-(5): desert 1, highlands 2, village 1, coast 1; a battle position costs what the
    # terrain under it costs (0806 desert, 0708 highlands).
    t = make_game([U("A", "axis", 4, 3, "0506"), U("V", "axis", 4, 3, "0607"), U("C", "axis", 4, 3, "0403"),
                   U("D", "axis", 4, 3, "0805"), U("H", "axis", 4, 3, "0808"), U("B", "british", 4, 4, "0103")])
    assert one(t.ok("axis", "move A 0606 0706"), E.UnitMoved).mp == 3      # highlands 2 + desert 1
    assert one(t.ok("axis", "move V 0707 0807"), E.UnitMoved).mp == 2      # village 1 + desert 1
    assert one(t.ok("axis", "move C 0402 0502"), E.UnitMoved).mp == 2      # coast 1 + 1
    assert one(t.ok("axis", "move D 0806"), E.UnitMoved).mp == 1           # battle position in desert
    assert one(t.ok("axis", "move H 0708"), E.UnitMoved).mp == 2           # battle position in highlands


def test_8_2_1_movement_allowance_may_not_be_exceeded(make_game):
    # 8.2(1) / 8.3(2): MA 2 pays 2 for highlands 0606 and has nothing left for 0607.
    t = make_game([U("A", "axis", 4, 2, "0507"), U("B", "british", 4, 4, "0103")])
    err = t.refuse("axis", "move A 0606 0607", rule="8.2(1)")
    assert "0607" in err.message
    assert one(t.ok("axis", "move A 0606"), E.UnitMoved).mp == 2


def test_8_3_6_the_sea_may_not_be_entered(make_game):
    # 8.3(6): the Mediterranean (row 01) is impassable.
    t = make_game([U("A", "axis", 4, 6, "0302"), U("B", "british", 4, 4, "0808")])
    err = t.refuse("axis", "move A 0301", rule="8.3")
    assert "sea" in err.message
    t.refuse("axis", "move A 0401 0502", rule="8.3")


@pytest.mark.parametrize("order", ["move A 0003", "move A 0109", "move A 0104 0105 0106 0107 0108 0109", "move A off"])
def test_8_1_5_units_may_not_leave_the_map(make_game, order):
    # 8.1(5): no move off the map; only British units may break off (4.2(2)).
    t = make_game([U("A", "axis", 4, 6, "0103"), U("B", "british", 4, 4, "0808")])
    t.refuse("axis", order, rule="8.1(5)")


def test_8_2_3_path_must_be_hex_by_hex(make_game):
    # 8.2(3): each step goes to an adjacent hex.
    t = make_game([U("A", "axis", 4, 6, "0303"), U("B", "british", 4, 4, "0808")])
    t.refuse("axis", "move A 0305", rule="8.2(3)")


def test_8_1_2_a_unit_moves_once_per_phase(make_game):
    # 8.1(2): a finished move cannot be continued or redone, also within one batch.
    t = make_game([U("A", "axis", 4, 6, "0303"), U("B", "british", 4, 4, "0808")])
    sub = t.game.submit("axis", "move A 0304\nmove A 0305")
    assert [a.text for a in sub.applied] == ["move A 0304"]
    assert sub.refused.rule == "8.1(2)" and sub.refused.line == 2 and sub.not_applied == ["move A 0305"]
    t.refuse("axis", "move A 0403", rule="8.1(2)")
    assert t.hex_of("A") == "0304"
    # ...and it may move again in its next movement phase.
    t.goto(2, AXIS_MOVE)
    assert one(t.ok("axis", "move A 0305"), E.UnitMoved).path == ["0305"]


def test_8_4_british_ma_halved_on_turn_1_only(make_game):
    # 8.4: British MA 4 is 2 on turn 1, back to 4 from turn 2; Axis MA is not halved.
    t = make_game([U("A", "axis", 4, 4, "0703"), U("B", "british", 4, 4, "0303")])
    assert one(t.ok("axis", "move A 0704 0705 0706 0707"), E.UnitMoved).ma == 4
    t.goto(1, BRIT_MOVE)
    t.refuse("british", "move B 0304 0305 0306", rule="8.2(1)")
    ev = one(t.ok("british", "move B 0304 0305"), E.UnitMoved)
    assert (ev.mp, ev.ma) == (2, 2)
    t.goto(2, BRIT_MOVE)
    ev = one(t.ok("british", "move B 0306 0307 0308 0408"), E.UnitMoved)
    assert (ev.mp, ev.ma) == (4, 4)


@pytest.mark.parametrize("ma, halved", [(6, 3), (4, 2), (5, 2), (3, 1)])
def test_8_4_halving_drops_fractions(make_game, ma, halved):
    # 8.4 (decision): a halved odd MA is rounded down (the rulebook does not say).
    t = make_game([U("A", "axis", 4, 4, "0808"), U("B", "british", 4, ma, "0303")])
    t.goto(1, BRIT_MOVE)
    path = ["0304", "0305", "0306", "0307"][:halved]
    assert one(t.ok("british", "move B " + " ".join(path)), E.UnitMoved).ma == halved


def test_5_0_orders_out_of_turn_name_whose_input_the_game_waits_for(make_game):
    # 5.0 / 8.1(3): only the phasing side gives orders; the refusal says who is awaited.
    t = make_game([U("A", "axis", 4, 6, "0303"), U("B", "british", 4, 4, "0707")])
    err = t.refuse("british", "move B 0706", rule="5.0")
    assert err.message == "not your turn: the game waits for German-Italian (movement, 8.0)"   # the kernel's words
    t.refuse("british", "end", rule="5.0", match="waits for German-Italian")
    t.refuse("axis", "attack 0707 with A", rule="5.0")          # attacks wait for the combat phase
    t.end()                                                   # -> Axis combat
    t.refuse("axis", "move A 0304", rule="8.1(3)")              # moves only in the movement phase
    t.refuse("british", "move B 0706", rule="5.0", match="waits for German-Italian")
    t.end()                                                   # -> British movement
    err = t.refuse("axis", "move A 0304", rule="5.0")
    assert "waits for British Commonwealth" in err.message
    t.refuse("axis", "retreat A 0304", match="waits for British Commonwealth")
    t.end()                                                   # -> British combat
    t.refuse("british", "move B 0706", rule="8.1(3)")
    t.refuse("axis", "end", rule="5.0", match="waits for British Commonwealth")


# ============================================================================
# 4.2 British break-off from the west edge
# ============================================================================

def test_4_2_1_british_unit_breaking_off_the_west_edge_wins(make_game):
    # 4.2(1)/(2): from a west-edge hex, outside any EZOC, for 1 MP: immediate British win.
    t = make_game([U("A", "axis", 4, 6, "0808"), U("B", "british", 4, 4, "0104")])
    t.goto(1, BRIT_MOVE)
    evs = t.ok("british", "break B")
    assert one(evs, E.UnitBrokeOff) == E.UnitBrokeOff(unit="B", hex="0104", edge="west")
    end = one(evs, E.GameEnded)
    assert (end.winner, end.rule) == ("british", "4.2(1)")
    st = t.state()
    assert st.result.winner == "british" and st.units["B"].hex is None and st.units["B"].gone == "broke-off"
    assert t.awaiting() == []
    t.refuse("british", "end", match="the game is over")
    t.refuse("axis", "move A 0807", match="the game is over")
    assert t.game.verify().ok


def test_4_2_2_breaking_off_costs_one_mp(make_game):
    # 4.2(2) + 8.4: on turn 1 B has 2 MP: 0204 -> 0104 (1) + break (1) fits; 0304 -> 0204 -> 0104 + 1 does not.
    t = make_game([U("A", "axis", 4, 6, "0808"), U("B", "british", 4, 4, "0304"),
                   U("C", "british", 4, 4, "0204")])
    t.goto(1, BRIT_MOVE)
    err = t.refuse("british", "move B 0204 0104 off", rule="4.2(2)")
    assert "1 MP" in err.message
    t.end()
    t.goto(2, BRIT_MOVE)                                        # MA back to 4 (8.4)
    evs = t.ok("british", "move B 0204 0104 off")              # passes through C in 0204 (7.1)
    assert one(evs, E.UnitMoved).mp == 2
    assert one(evs, E.GameEnded).winner == "british"


def test_4_2_2_break_off_on_turn_1_with_exact_mp(make_game):
    # 4.2(2) + 8.4: MA 4 halved to 2: one hex to the edge and one MP to leave.
    t = make_game([U("A", "axis", 4, 6, "0808"), U("B", "british", 4, 4, "0204")])
    t.goto(1, BRIT_MOVE)
    evs = t.ok("british", "move B 0104 off")
    assert one(evs, E.UnitMoved) == E.UnitMoved(unit="B", path=["0104"], mp=1, ma=2)
    assert one(evs, E.GameEnded).rule == "4.2(1)"


def test_4_2_2_no_break_off_from_an_ezoc(make_game):
    # 4.2(2): 0104 is next to Axis A (0204): B may not break off from there.
    t = make_game([U("A", "axis", 4, 6, "0204"), U("B", "british", 4, 4, "0104"),
                   U("C", "british", 4, 4, "0203")])
    t.goto(1, BRIT_MOVE)
    t.refuse("british", "break B", rule="4.2(2)", match="zone of control")
    # C leaves A's ZOC to 0103, then re-enters it at the edge hex 0104 (passing B): no exit there.
    t.refuse("british", "move C 0103 0104 off", rule="4.2(2)", match="zone of control")
    assert t.state().result is None


def test_4_2_2_break_off_only_from_the_west_edge(make_game):
    # 4.2(2): a unit not on the west edge may not break off.
    t = make_game([U("A", "axis", 4, 6, "0808"), U("B", "british", 4, 4, "0304"),
                   U("C", "british", 4, 4, "0805")])
    t.goto(1, BRIT_MOVE)
    t.refuse("british", "break B", rule="4.2(2)", match="west map edge")
    t.refuse("british", "break C", rule="4.2(2)")             # the east edge is no exit


def test_4_2_2_break_off_through_a_friendly_unit_on_the_edge(make_game):
    # 4.2(2) + 7.1: F holds 0104; B passes through it and leaves the map, so it never stacks.
    t = make_game([U("A", "axis", 4, 6, "0808"), U("B", "british", 4, 4, "0204"),
                   U("F", "british", 4, 4, "0104")])
    t.goto(1, BRIT_MOVE)
    evs = t.ok("british", "move B 0104 off")
    assert one(evs, E.UnitBrokeOff).hex == "0104"
    assert t.state().result.winner == "british"


def test_4_2_2_break_off_must_be_part_of_the_move(make_game):
    # 4.2(2) + 8.1(2): a finished move is not reopened, so the exit is ordered with the move
    # ('move B 0104 off'); a separate 'break' after 'move B 0104' is refused.
    t = make_game([U("A", "axis", 4, 6, "0808"), U("B", "british", 4, 4, "0204")])
    t.goto(1, BRIT_MOVE)
    t.ok("british", "move B 0104")
    t.refuse("british", "break B", rule="8.1(2)")
    assert t.state().result is None


def test_4_2_axis_units_may_not_break_off(make_game):
    # 4.2(1)/(2), 8.1(5): only British Commonwealth units leave by the west edge.
    t = make_game([U("A", "axis", 4, 6, "0104"), U("B", "british", 4, 4, "0808")])
    t.refuse("axis", "break A", rule="8.1(5)")
    t.refuse("axis", "move A 0103 off", rule="8.1(5)")


def test_4_2_1_break_off_only_in_the_british_movement_phase(make_game):
    # 4.2(1) / 8.1(3): not in the British combat phase.
    t = make_game([U("A", "axis", 4, 6, "0808"), U("B", "british", 4, 4, "0104")])
    t.goto(1, BRIT_COMBAT)
    t.refuse("british", "break B", rule="8.1(3)")


# ============================================================================
# 9.1 declaring attacks
# ============================================================================

def _two_defenders(make_game, dice=()):
    # A1 (0404) touches B1 (0505) and B2 (0405); A2 (0506) touches both too; A3 (0303) touches neither.
    return make_game([U("A1", "axis", 4, 6, "0404"), U("A2", "axis", 4, 6, "0506"), U("A3", "axis", 4, 6, "0303"),
                      U("B1", "british", 2, 4, "0505"), U("B2", "british", 2, 4, "0405")], dice=dice)


def test_9_1_3_each_attacker_attacks_once(make_game):
    t = _two_defenders(make_game)
    t.goto(1, AXIS_COMBAT)
    t.ok("axis", "attack 0505 with A1")
    t.refuse("axis", "attack 0405 with A1", rule="9.1(3)")
    t.refuse("axis", "attack 0405 with A2 A1", rule="9.1(3)")


def test_9_1_3_each_defender_is_attacked_once(make_game):
    t = _two_defenders(make_game)
    t.goto(1, AXIS_COMBAT)
    t.ok("axis", "attack 0505 with A1")
    t.refuse("axis", "attack 0505 with A2", rule="9.1(3)", match="already attacked")


def test_9_1_4_attackers_must_be_adjacent_to_the_defender(make_game):
    # 9.0 / 9.1(4): A3 in 0303 is not next to 0505.
    t = _two_defenders(make_game)
    t.goto(1, AXIS_COMBAT)
    t.refuse("axis", "attack 0505 with A3", rule="9.0", match="not adjacent")
    t.refuse("axis", "attack 0505 with A1 A3", rule="9.0")


@pytest.mark.parametrize("order, match", [
    ("attack 0505 with A1 A1", "listed twice"),
    ("attack 0606 with A1", "no enemy unit"),
    ("attack 0506 with A1", "no enemy unit"),           # own unit
    ("attack 0505 with B2", "not a German-Italian unit"),
    ("attack 0505 with Nobody", "unknown unit"),
    ("attack 0909 with A1", "not on the map"),
    ("attack 0505 with A1 advance A3", "only an attacking unit may advance"),
    ("attack 0505 with A1 ar A2 0403", "not in this attack"),
])
def test_9_1_malformed_declarations_are_refused(make_game, order, match):
    t = _two_defenders(make_game)
    t.goto(1, AXIS_COMBAT)
    t.refuse("axis", order, match=match)


def test_9_1_4_one_attack_is_against_one_hex(make_game):
    # 9.1(4): an attack names exactly one defending hex.
    t = _two_defenders(make_game)
    t.goto(1, AXIS_COMBAT)
    t.refuse("axis", "attack 0505 0405 with A1", match="malformed attack")


def test_9_1_5_declared_attacks_all_resolve_in_declared_order(make_game):
    # 9.1(5) / 9.2: both declared attacks are fought, in the order declared, with the dice in order.
    t = _two_defenders(make_game, dice=[1, 1])
    t.goto(1, AXIS_COMBAT)
    t.ok("axis", "attack 0405 with A2 no-advance\nattack 0505 with A1 no-advance")
    evs = t.ok("axis", "end")
    assert one(evs, E.DeclarationsClosed).count == 2
    cs = only(evs, E.CombatResolved)
    assert [(c.index, c.target, c.attackers, c.odds, c.rolls) for c in cs] == [
        (0, "0405", ["A2"], "2:1", [1]), (1, "0505", ["A1"], "2:1", [1])]


def test_9_1_5_no_attack_after_declarations_are_closed(make_game):
    # 9.1(5): once 'end' closes the declarations no attack can be added,
    # neither while a decision of this phase is pending nor after the phase.
    t = make_game([U("A", "axis", 8, 6, "0404"), U("B", "british", 4, 4, "0505"),
                   U("A2", "axis", 4, 6, "0706"), U("C", "british", 2, 4, "0707")], dice=[1])
    t.goto(1, AXIS_COMBAT)
    t.ok("axis", "attack 0505 with A no-advance")
    t.ok("axis", "end")                                     # DR1 with a choice: decision pending
    st = t.state()
    assert st.declarations_closed and st.decision is not None and len(st.attacks) == 1
    t.refuse("axis", "attack 0707 with A2", match="offered now: retreat - retreat UNIT HEX")
    t.refuse("axis", "end", match="retreat UNIT HEX")
    t.ok("axis", "retreat B 0604")
    assert t.phase() == (1, BRIT_MOVE)
    t.refuse("axis", "attack 0707 with A2", rule="5.0")
    assert not t.unit("A2").attacked and t.hex_of("C") == "0707"


def test_9_1_2_attacking_is_voluntary(make_game):
    # 9.1(2): ending the combat phase with no declaration is fine.
    t = _two_defenders(make_game)
    t.goto(1, AXIS_COMBAT)
    evs = t.ok("axis", "end")
    assert one(evs, E.DeclarationsClosed).count == 0
    assert not only(evs, E.CombatResolved)
    assert t.phase() == (1, BRIT_MOVE)


# ============================================================================
# 9.4 combat results
# ============================================================================

def test_9_4_1_ae_removes_all_attackers(make_game):
    # 9.4(1): 1 + 1 against 3 is 1:2; die 3 = AE: both attackers eliminated, the defender unharmed.
    t = make_game([U("A1", "axis", 1, 6, "0404"), U("A2", "axis", 1, 6, "0504"),
                   U("B", "british", 3, 4, "0505")], dice=[3])
    t.goto(1, AXIS_COMBAT)
    t.ok("axis", "attack 0505 with A1 A2")
    evs = t.ok("axis", "end")
    assert combat(evs).result == "AE"
    assert sorted(e.unit for e in only(evs, E.UnitEliminated)) == ["A1", "A2"]
    assert all(e.rule == "9.4(1)" for e in only(evs, E.UnitEliminated))
    st = t.state()
    assert st.units["A1"].eliminated and st.units["A2"].eliminated and st.units["A1"].hex is None
    assert st.units["B"].hex == "0505" and not st.units["B"].disrupted
    assert not only(evs, E.DecisionRequired)                 # 9.6(2): the defender never advances
    assert t.phase() == (1, BRIT_MOVE)


def test_9_4_2_ar_retreats_attackers_one_hex_decision_then_recovery(make_game):
    # 9.4(2): 3 against 3, die 2 = AR.  The attacker chooses where its unit goes (9.5(1));
    # options are one hex farther from 0505 and outside B's ZOC.  9.5(4): A is disrupted;
    # 9.7(3): it recovers at the end of this same Axis combat phase.
    t = make_game([U("A", "axis", 3, 6, "0404"), U("B", "british", 3, 4, "0505")], dice=[2])
    t.goto(1, AXIS_COMBAT)
    t.ok("axis", "attack 0505 with A")
    evs = t.ok("axis", "end")
    assert combat(evs).result == "AR"
    st = t.state()
    assert st.decision.side == "axis" and st.decision.units == ["A"]
    assert sorted(st.decision.options) == [["0304"], ["0305"], ["0403"]]
    [item] = t.awaiting()
    assert item["side"] == "axis" and item["kind"] == "retreat" and item["units"] == ["A"]
    assert sorted(item["options"]) == ["0304", "0305", "0403"]
    t.refuse("british", "retreat A 0304", match="waits for German-Italian")
    t.refuse("axis", "retreat A 0405", rule="9.5")           # in B's ZOC and not farther away
    t.refuse("axis", "retreat B 0506", match="does not owe a retreat")
    t.refuse("axis", "advance A", match="retreat UNIT HEX")
    evs = t.ok("axis", "retreat A 0304")
    assert one(evs, E.UnitRetreated) == E.UnitRetreated(unit="A", path=["0304"], chosen_by="axis")
    assert one(evs, E.UnitsRecovered).units == ["A"]
    assert not only(evs, E.DecisionRequired)                 # 9.6(2): B does not advance
    st = t.state()
    assert st.units["A"].hex == "0304" and not st.units["A"].disrupted
    assert st.units["B"].hex == "0505" and (st.turn, st.phase) == (1, BRIT_MOVE)


def test_9_4_2_ar_inline_answer(make_game):
    # 9.4(2) with the retreat given on the attack line ('ar UNIT HEX').
    t = make_game([U("A", "axis", 3, 6, "0404"), U("B", "british", 3, 4, "0505")], dice=[2])
    t.goto(1, AXIS_COMBAT)
    t.ok("axis", "attack 0505 with A ar A 0403")
    evs = t.ok("axis", "end")
    assert one(evs, E.UnitRetreated) == E.UnitRetreated(unit="A", path=["0403"], chosen_by="axis")
    assert t.hex_of("A") == "0403"


def test_9_4_2_ar_two_attackers_retreat_one_decision_at_a_time(make_game):
    # 9.4(2) + 9.5(1)/(2): both attackers retreat; the Axis player places A1 first, then A2 is
    # asked with fresh options: 0403, just taken by A1, is no longer an end hex for A2.
    t = make_game([U("A1", "axis", 2, 6, "0404"), U("A2", "axis", 2, 6, "0504"),
                   U("B", "british", 4, 4, "0505")], dice=[2])
    t.goto(1, AXIS_COMBAT)
    t.ok("axis", "attack 0505 with A1 A2")
    evs = t.ok("axis", "end")
    assert (combat(evs).odds, combat(evs).result) == ("1:1", "AR")
    d = t.state().decision
    assert d.units == ["A1"] and sorted(d.options) == [["0304"], ["0305"], ["0403"]]
    t.refuse("axis", "retreat A2 0503", match="does not owe a retreat")
    evs = t.ok("axis", "retreat A1 0403")
    assert t.unit("A1").disrupted and not t.unit("A2").disrupted     # 9.5(4) / 9.7(1)
    d = t.state().decision
    assert d.units == ["A2"] and sorted(d.options) == [["0503"], ["0603"]]
    assert one(evs, E.DecisionRequired).units == ["A2"]
    t.refuse("axis", "retreat A2 0403", rule="9.5")
    evs = t.ok("axis", "retreat A2 0603")
    assert sorted(one(evs, E.UnitsRecovered).units) == ["A1", "A2"]       # 9.7(3)
    assert (t.hex_of("A1"), t.hex_of("A2")) == ("0403", "0603")


def test_9_4_2_ar_two_attackers_inline(make_game):
    # 9.4(2) with both attackers' retreats given on the attack line.
    t = make_game([U("A1", "axis", 2, 6, "0404"), U("A2", "axis", 2, 6, "0504"),
                   U("B", "british", 4, 4, "0505")], dice=[2])
    t.goto(1, AXIS_COMBAT)
    t.ok("axis", "attack 0505 with A1 A2 ar A1 0304 A2 0503")
    evs = t.ok("axis", "end")
    assert [(e.unit, e.path) for e in only(evs, E.UnitRetreated)] == [("A1", ["0304"]), ("A2", ["0503"])]
    assert t.phase() == (1, BRIT_MOVE)


def test_9_4_3_dr1_inline_retreat_chosen_by_attacker(make_game):
    # 9.4(3) + 9.5(1): 8 against 4, die 1 = DR1; the Axis player chose 0605 on the attack line.
    t = make_game([U("A", "axis", 8, 6, "0404"), U("B", "british", 4, 4, "0505")], dice=[1])
    t.goto(1, AXIS_COMBAT)
    t.ok("axis", "attack 0505 with A retreat 0605 no-advance")
    evs = t.ok("axis", "end")
    assert combat(evs).result == "DR1"
    assert one(evs, E.UnitRetreated) == E.UnitRetreated(unit="B", path=["0605"], chosen_by="axis")
    assert one(evs, E.AdvanceDeclined).index == 0
    st = t.state()
    assert st.units["B"].hex == "0605" and st.units["B"].disrupted    # 9.5(4)
    assert st.units["A"].hex == "0404"


def test_9_4_3_dr2_inline_retreat(make_game):
    # 9.4(3): 9 against 3 is 3:1, die 1 = DR2: two hexes, each farther from 0505.
    t = make_game([U("A", "axis", 9, 6, "0404"), U("B", "british", 3, 4, "0505")], dice=[1])
    t.goto(1, AXIS_COMBAT)
    t.ok("axis", "attack 0505 with A retreat 0605 0705 no-advance")
    evs = t.ok("axis", "end")
    assert (combat(evs).odds, combat(evs).result) == ("3:1", "DR2")
    assert one(evs, E.UnitRetreated).path == ["0605", "0705"]
    assert t.hex_of("B") == "0705" and t.unit("B").disrupted


def test_9_4_3_dr2_awaited_decision(make_game):
    # 9.4(3) + 9.5(1): no path given: the game waits for the Axis player and lists the legal paths.
    t = make_game([U("A", "axis", 9, 6, "0404"), U("B", "british", 3, 4, "0505")], dice=[1])
    t.goto(1, AXIS_COMBAT)
    t.ok("axis", "attack 0505 with A")
    evs = t.ok("axis", "end")
    dec = one(evs, E.DecisionRequired)
    assert (dec.side, dec.decision, dec.units, dec.distance, dec.rule) == ("axis", "retreat", ["B"], 2, "9.5(1)")
    grid = t.game.scenario.board.grid
    for p in dec.options:                                    # every option: 2 steps, each 1 farther
        assert len(p) == 2 and grid.distance(p[0], "0505") == 1 and grid.distance(p[1], "0505") == 2
        assert p[0] not in ("0405", "0504")                  # A's ZOC (9.5(3))
    assert ["0605", "0705"] in dec.options and ["0506", "0507"] in dec.options
    [item] = t.awaiting()
    assert item["distance"] == 2 and "0605 0705" in item["options"]
    t.refuse("axis", "retreat B 0605", rule="9.5")           # one hex is not enough
    t.refuse("axis", "retreat B 0605 0505", rule="9.5")      # back towards the combat
    t.refuse("axis", "retreat B 0504 0503", rule="9.5")      # through an EZOC
    t.refuse("axis", "retreat B 0605 0705 0805", rule="9.5") # too far
    evs = t.ok("axis", "retreat B 0506 0507")
    assert one(evs, E.UnitRetreated) == E.UnitRetreated(unit="B", path=["0506", "0507"], chosen_by="axis")
    assert t.state().decision.kind == "advance"              # 9.6: then the advance is asked


def test_9_5_1_british_attack_decisions_belong_to_the_british_player(make_game):
    # 9.5(1) / 9.6(1): in the British combat phase the British player places the retreating
    # Axis unit and decides the advance; the Axis player is told whose input is awaited.
    t = make_game([U("G", "axis", 3, 3, "0505"), U("B", "british", 6, 4, "0404")], dice=[1])
    t.goto(1, BRIT_COMBAT)
    t.ok("british", "attack 0505 with B")
    evs = t.ok("british", "end")
    assert combat(evs).result == "DR1"
    d = t.state().decision
    assert (d.side, d.kind, d.units) == ("british", "retreat", ["G"])
    assert sorted(d.options) == [["0506"], ["0604"], ["0605"]]
    t.refuse("axis", "retreat G 0604", match="waits for British Commonwealth")
    t.ok("british", "retreat G 0506")
    d = t.state().decision
    assert (d.side, d.kind, d.options) == ("british", "advance", [["B", "0505"]])
    t.refuse("axis", "no-advance", match="waits for British Commonwealth")
    t.ok("british", "no-advance")
    assert t.phase() == (2, AXIS_MOVE) and t.unit("G").disrupted and t.hex_of("B") == "0404"


def test_9_4_4_de_eliminates_the_defender(make_game):
    # 9.4(4): 8 against 2 is 4:1, die 1 = DE.
    t = make_game([U("A", "axis", 8, 6, "0404"), U("B", "british", 2, 4, "0505")], dice=[1])
    t.goto(1, AXIS_COMBAT)
    t.ok("axis", "attack 0505 with A no-advance")
    evs = t.ok("axis", "end")
    assert (combat(evs).odds, combat(evs).result) == ("4:1", "DE")
    el = one(evs, E.UnitEliminated)
    assert (el.unit, el.rule) == ("B", "9.4(4)")
    st = t.state()
    assert st.units["B"].eliminated and st.units["B"].hex is None


@pytest.mark.parametrize("die", [1, 2, 3, 4, 5, 6])
def test_9_2_3_the_die_picks_the_crt_row(make_game, die):
    # 9.2(3): the result is the CRT cell of the die roll and the odds column (here 2:1).
    t = make_game([U("A", "axis", 8, 6, "0404"), U("B", "british", 4, 4, "0505")], dice=[die])
    t.goto(1, AXIS_COMBAT)
    t.ok("axis", "attack 0505 with A no-advance")
    c = combat(t.ok("axis", "end"))
    assert c.rolls == [die] and c.result == crt(die, "2:1")


# ============================================================================
# 9.5 retreats
# ============================================================================

def test_9_5_3_no_retreat_into_ezoc_or_enemy_units(make_game):
    # 9.5(3): around 0505, 0404 holds A and 0506 holds A3 (enemy units); 0405, 0504 are in A's ZOC
    # and 0605 in A3's: only 0604 is left, so B takes it without a choice; the inline
    # answer 0605 (an EZOC) is not legal and is not used (decision 9.5(1), see module doc).
    t = make_game([U("A", "axis", 8, 6, "0404"), U("A3", "axis", 1, 6, "0506"),
                   U("B", "british", 4, 4, "0505")], dice=[1])
    t.goto(1, AXIS_COMBAT)
    t.ok("axis", "attack 0505 with A retreat 0605 no-advance")
    evs = t.ok("axis", "end")
    assert one(evs, E.UnitRetreated) == E.UnitRetreated(unit="B", path=["0604"], chosen_by="auto")


def test_9_5_3_no_retreat_into_the_sea(make_game):
    # 9.5(3) / 8.3(6): B on the coast (0402) may not retreat into the sea (0401).
    t = make_game([U("A", "axis", 8, 6, "0403"), U("B", "british", 4, 4, "0402")], dice=[1])
    t.goto(1, AXIS_COMBAT)
    t.ok("axis", "attack 0402 with A no-advance")
    t.ok("axis", "end")
    assert sorted(t.state().decision.options) == [["0302"], ["0502"]]
    t.refuse("axis", "retreat B 0401", rule="9.5")
    t.ok("axis", "retreat B 0302")
    assert t.hex_of("B") == "0302"


def test_9_5_3_no_legal_retreat_eliminates(make_game):
    # 9.5(3): every hex around 0505 is an enemy unit or an EZOC (A at 0404, A2 at 0606, A3 at 0603).
    t = make_game([U("A", "axis", 8, 6, "0404"), U("A2", "axis", 1, 6, "0606"), U("A3", "axis", 1, 6, "0603"),
                   U("B", "british", 4, 4, "0505")], dice=[1])
    t.goto(1, AXIS_COMBAT)
    t.ok("axis", "attack 0505 with A advance A")
    evs = t.ok("axis", "end")
    assert combat(evs).result == "DR1"
    el = one(evs, E.UnitEliminated)
    assert (el.unit, el.rule) == ("B", "9.5(3)")
    assert not only(evs, E.UnitRetreated)
    assert t.unit("B").eliminated
    assert one(evs, E.UnitAdvanced) == E.UnitAdvanced(unit="A", path=["0505"])   # 9.6(1): hex vacated


def test_9_5_3_attacker_with_no_retreat_is_eliminated(make_game):
    # 9.4(2) + 9.5(3): A's AR retreat hexes 0304, 0403 (C's ZOC) and 0305 (D's ZOC) are all blocked.
    t = make_game([U("A", "axis", 3, 6, "0404"), U("B", "british", 3, 4, "0505"),
                   U("C", "british", 2, 4, "0303"), U("D", "british", 2, 4, "0306")], dice=[2])
    t.goto(1, AXIS_COMBAT)
    t.ok("axis", "attack 0505 with A")
    evs = t.ok("axis", "end")
    assert combat(evs).result == "AR"
    el = one(evs, E.UnitEliminated)
    assert (el.unit, el.rule) == ("A", "9.5(3)")
    assert t.unit("A").eliminated


def test_4_2_3_british_unit_retreated_off_the_west_edge_is_eliminated(make_game):
    # 4.2(3) / 9.5(3): B (0104) can only go west, off the map: it is eliminated, it does not
    # break off, and the game goes on.
    t = make_game([U("A", "axis", 8, 6, "0204"), U("A2", "axis", 1, 6, "0202"),
                   U("B", "british", 4, 4, "0104")], dice=[1])
    t.goto(1, AXIS_COMBAT)
    t.ok("axis", "attack 0104 with A no-advance")
    evs = t.ok("axis", "end")
    el = one(evs, E.UnitEliminated)
    assert (el.unit, el.rule) == ("B", "9.5(3)")
    assert not only(evs, E.UnitBrokeOff) and not only(evs, E.GameEnded)
    st = t.state()
    assert st.result is None and st.units["B"].eliminated and st.units["B"].gone == ""
    assert (st.turn, st.phase) == (1, BRIT_MOVE)


def test_9_5_2_retreat_must_end_in_an_empty_hex_if_possible(make_game):
    # 9.5(2): F holds 0604; 0506 and 0605 are empty, so B may not end on F.
    t = make_game([U("A", "axis", 8, 6, "0404"), U("B", "british", 4, 4, "0505"),
                   U("F", "british", 2, 4, "0604")], dice=[1])
    t.goto(1, AXIS_COMBAT)
    t.ok("axis", "attack 0505 with A no-advance")
    t.ok("axis", "end")
    assert sorted(t.state().decision.options) == [["0506"], ["0605"]]
    t.refuse("axis", "retreat B 0604", rule="9.5")
    t.ok("axis", "retreat B 0605")
    assert (t.hex_of("B"), t.hex_of("F")) == ("0605", "0604")


def test_9_5_2_7_1_every_end_hex_held_by_friends_retreat_one_more_hex(make_game):
    # 9.5(2) / 7.1: 0506, 0604 and 0605 all hold British units: DR1 becomes a 2-hex retreat
    # through one of them to an empty hex 2 away from 0505.
    t = make_game([U("A", "axis", 8, 6, "0404"), U("B", "british", 4, 4, "0505"),
                   U("F1", "british", 2, 4, "0506"), U("F2", "british", 2, 4, "0604"),
                   U("F3", "british", 2, 4, "0605")], dice=[1])
    t.goto(1, AXIS_COMBAT)
    t.ok("axis", "attack 0505 with A no-advance")
    t.ok("axis", "end")
    opts = t.state().decision.options
    grid = t.game.scenario.board.grid
    assert opts and all(len(p) == 2 and p[0] in ("0506", "0604", "0605") for p in opts)
    assert all(grid.distance(p[1], "0505") == 2 for p in opts)
    assert ["0605", "0705"] in opts and ["0506", "0406"] in opts
    t.refuse("axis", "retreat B 0605", rule="9.5")            # may not stop on F3
    t.ok("axis", "retreat B 0605 0705")
    assert t.hex_of("B") == "0705" and t.hex_of("F3") == "0605"


def test_9_5_2_retreat_may_pass_through_a_friendly_unit(make_game):
    # 7.1 / 9.5(2) (decision): passing through F on the way is allowed even though empty paths exist.
    t = make_game([U("A", "axis", 9, 6, "0404"), U("B", "british", 3, 4, "0505"),
                   U("F", "british", 2, 4, "0605")], dice=[1])
    t.goto(1, AXIS_COMBAT)
    t.ok("axis", "attack 0505 with A retreat 0605 0705 no-advance")
    evs = t.ok("axis", "end")
    assert one(evs, E.UnitRetreated).path == ["0605", "0705"]


# ============================================================================
# 9.6 advance after combat
# ============================================================================

def test_9_6_1_inline_advance(make_game):
    # 9.6(1): 8 against 2, die 1 = DE; A advances into 0505 as ordered on the attack line.
    t = make_game([U("A", "axis", 8, 6, "0404"), U("B", "british", 2, 4, "0505")], dice=[1])
    t.goto(1, AXIS_COMBAT)
    t.ok("axis", "attack 0505 with A advance A")
    evs = t.ok("axis", "end")
    assert one(evs, E.UnitAdvanced) == E.UnitAdvanced(unit="A", path=["0505"])
    assert t.hex_of("A") == "0505"


def test_9_6_1_inline_no_advance(make_game):
    t = make_game([U("A", "axis", 8, 6, "0404"), U("B", "british", 2, 4, "0505")], dice=[1])
    t.goto(1, AXIS_COMBAT)
    t.ok("axis", "attack 0505 with A no-advance")
    evs = t.ok("axis", "end")
    assert one(evs, E.AdvanceDeclined).index == 0 and not only(evs, E.UnitAdvanced)
    assert t.hex_of("A") == "0404"


def test_9_6_1_awaited_advance_decision(make_game):
    # 9.6(1): with no answer given the game asks which one attacker (if any) advances.
    t = make_game([U("A1", "axis", 4, 6, "0404"), U("A2", "axis", 4, 6, "0504"), U("A3", "axis", 4, 6, "0303"),
                   U("B", "british", 2, 4, "0505")], dice=[1])
    t.goto(1, AXIS_COMBAT)
    t.ok("axis", "attack 0505 with A1 A2")
    evs = t.ok("axis", "end")
    assert combat(evs).result == "DE"
    dec = one(evs, E.DecisionRequired)
    assert (dec.side, dec.decision, dec.rule) == ("axis", "advance", "9.6(1)")
    assert dec.options == [["A1", "0505"], ["A2", "0505"]]
    [item] = t.awaiting()
    assert item["kind"] == "advance" and item["options"] == ["A1 0505", "A2 0505"]
    t.refuse("axis", "advance A3", rule="9.6")                 # not an attacker
    t.refuse("axis", "advance A1 0506", rule="9.6")            # only into the vacated hex
    t.refuse("british", "advance A1", match="waits for German-Italian")
    t.refuse("axis", "retreat A1 0403", match="advance UNIT")
    t.refuse("axis", "move A1 0403", match="advance UNIT")
    evs = t.ok("axis", "advance A2")
    assert one(evs, E.UnitAdvanced) == E.UnitAdvanced(unit="A2", path=["0505"])
    assert (t.hex_of("A1"), t.hex_of("A2")) == ("0404", "0505")
    assert t.phase() == (1, BRIT_MOVE)


def test_9_6_1_awaited_advance_declined(make_game):
    t = make_game([U("A", "axis", 8, 6, "0404"), U("B", "british", 2, 4, "0505")], dice=[1])
    t.goto(1, AXIS_COMBAT)
    t.ok("axis", "attack 0505 with A")
    t.ok("axis", "end")
    assert t.state().decision.kind == "advance"
    evs = t.ok("axis", "no-advance")
    assert one(evs, E.AdvanceDeclined).index == 0
    assert t.hex_of("A") == "0404" and t.phase() == (1, BRIT_MOVE)


def test_6_2_advance_ignores_ezoc(make_game):
    # 6.2: A (0404) is in C's ZOC and so is 0505: a move from one to the other is refused (6.1),
    # an advance after combat is not.
    t = make_game([U("A", "axis", 8, 6, "0404"), U("B", "british", 2, 4, "0505"),
                   U("C", "british", 1, 4, "0405")], dice=[1])
    ezoc = enemy_zoc(t.state(), t.game.scenario.board, "axis")
    assert {"0404", "0505"} <= ezoc
    t.goto(1, AXIS_COMBAT)
    t.ok("axis", "attack 0505 with A advance A")
    evs = t.ok("axis", "end")
    assert one(evs, E.UnitAdvanced).path == ["0505"]
    assert t.hex_of("A") == "0505"


def test_9_6_2_defenders_never_advance(make_game):
    # 9.6(2): after AE the attackers' hex is empty, yet the British defender stays and nobody is asked.
    t = make_game([U("A", "axis", 2, 6, "0404"), U("B", "british", 3, 4, "0505")], dice=[3])
    t.goto(1, AXIS_COMBAT)
    t.ok("axis", "attack 0505 with A")
    evs = t.ok("axis", "end")
    assert combat(evs).result == "AE"
    assert not only(evs, E.DecisionRequired) and not only(evs, E.UnitAdvanced)
    assert t.state().decision is None and t.hex_of("B") == "0505"
    t.refuse("british", "advance B 0404", match="'advance' is not an order of this step")


# ============================================================================
# 9.7 disruption and recovery
# ============================================================================

def test_9_7_british_defender_disrupted_until_after_british_combat(make_game):
    # 9.7(1): B retreats and is disrupted.  9.7(2): it may not move in the British movement
    # phase nor attack in the British combat phase.  9.7(3): it recovers after the British
    # combat phase, so by the next Axis combat (9.7(4)) it is in good order and may be attacked.
    t = make_game([U("A", "axis", 8, 6, "0404"), U("B", "british", 4, 4, "0505")], dice=[1, 6])
    t.goto(1, AXIS_COMBAT)
    t.ok("axis", "attack 0505 with A retreat 0605 advance A")
    t.ok("axis", "end")
    assert t.unit("B").disrupted and t.hex_of("A") == "0505"
    t.refuse("british", "move B 0705", rule="9.7(2)")
    t.end()
    assert t.unit("B").disrupted
    t.refuse("british", "attack 0505 with B", rule="9.7(2)")   # 4 v 8 would be a legal 1:2
    evs = t.end()
    assert one(evs, E.UnitsRecovered).units == ["B"]
    assert not t.unit("B").disrupted
    t.goto(2, AXIS_COMBAT)
    t.ok("axis", "attack 0605 with A")                          # no 9.7(4) obstacle any more
    t.goto(2, BRIT_MOVE)


def test_9_7_axis_defender_disrupted_until_after_next_axis_combat(make_game):
    # 9.7(1)-(3): G retreats in the British combat phase; through the next Axis movement and
    # combat phases it may neither move nor attack; it recovers after that Axis combat phase.
    t = make_game([U("G", "axis", 3, 3, "0505"), U("B", "british", 6, 4, "0404")], dice=[1])
    t.goto(1, BRIT_COMBAT)
    t.ok("british", "attack 0505 with B retreat 0605 advance B")
    evs = t.ok("british", "end")
    assert one(evs, E.UnitRetreated).chosen_by == "british"     # 9.5(1): the attacker chooses
    assert not only(evs, E.UnitsRecovered)                      # British recovery: no British unit disrupted
    assert t.phase() == (2, AXIS_MOVE) and t.unit("G").disrupted
    t.refuse("axis", "move G 0606", rule="9.7(2)")
    t.end()
    t.refuse("axis", "attack 0505 with G", rule="9.7(2)")
    evs = t.end()
    assert one(evs, E.UnitsRecovered).units == ["G"]
    assert not t.unit("G").disrupted


def test_9_7_4_disrupted_units_may_not_be_attacked(make_game):
    # 9.7(4): the sequence recovers units before the enemy can next declare attacks (see the two
    # tests above), so this position is crafted: B disrupted during an Axis combat phase.
    t = make_game([U("A", "axis", 8, 6, "0404"), U("B", "british", 4, 4, "0505")])
    t.goto(1, AXIS_COMBAT)
    ctx = crafted_ctx(t, "axis", B={"disrupted": True})
    with pytest.raises(OrderError) as ei:
        t.game.rules.handle(ctx, O.parse_line("attack 0505 with A"))
    assert ei.value.rule == "9.7(4)"
    ctx = crafted_ctx(t, "axis")
    t.game.rules.handle(ctx, O.parse_line("attack 0505 with A"))
    assert isinstance(ctx.events[-1], E.AttackDeclared)


# ============================================================================
# 4.1 / 4.2(4) victory
# ============================================================================

def test_4_1_1_axis_wins_holding_el_alamein_at_end_of_british_combat(make_game):
    # 4.1(1): A enters 0802 (the objective of the test map) in the Axis movement phase.  Nothing
    # happens at the end of the Axis combat phase or the British movement phase; at the end of
    # the British combat phase the Axis wins at once.
    t = make_game([U("A", "axis", 4, 6, "0703"), U("B", "british", 4, 4, "0307")])
    t.ok("axis", "move A 0802")
    t.end()
    t.end()
    assert t.state().result is None and t.phase() == (1, BRIT_MOVE)   # not after the Axis combat phase
    t.end()
    assert t.state().result is None
    evs = t.end()
    end = one(evs, E.GameEnded)
    assert (end.winner, end.rule) == ("axis", "4.1(1)") and "0802" in end.reason
    assert t.state().result.winner == "axis"
    assert not only(evs, E.PhaseStarted)
    t.refuse("axis", "end", match="the game is over")


def test_4_1_2_axis_wins_holding_an_alam_halfa_battle_position(make_game):
    # 4.1(2): the Alam Halfa battle position of the test map is 0806.
    t = make_game([U("A", "axis", 4, 6, "0706"), U("B", "british", 4, 4, "0307")])
    t.ok("axis", "move A 0806")
    t.goto(1, BRIT_COMBAT)
    end = one(t.end(), E.GameEnded)
    assert (end.winner, end.rule) == ("axis", "4.1(2)")


def test_4_1_not_checked_at_end_of_axis_combat_phase_british_can_retake(make_game):
    # 4.1: only the end of the British combat phase counts.  A holds 0802 from the start; the
    # British destroy it in their combat phase (8 v 2 = 4:1, die 1 = DE), so no Axis win.
    t = make_game([U("A", "axis", 2, 3, "0802"), U("B", "british", 8, 4, "0803")], dice=[1])
    t.goto(1, BRIT_MOVE)
    assert t.state().result is None
    t.end()
    t.ok("british", "attack 0802 with B no-advance")
    evs = t.ok("british", "end")
    assert combat(evs).result == "DE"
    assert not only(evs, E.GameEnded) and t.state().result is None
    assert t.phase() == (2, AXIS_MOVE)


def test_4_1_any_axis_unit_in_any_objective_hex(make_game):
    # 4.1(1): "one or more hexes": a second road hex counts as well; Italian units count too.
    t = make_game([U("I", "axis", 2, 3, "0703", nationality="italian"), U("B", "british", 4, 4, "0307")],
                  objectives=["0802", "0702"])
    t.ok("axis", "move I 0702")
    t.goto(1, BRIT_COMBAT)
    end = one(t.end(), E.GameEnded)
    assert (end.winner, end.rule) == ("axis", "4.1(1)") and "I " in end.reason + " "


def test_4_2_4_british_win_at_end_of_turn_4(make_game):
    # 4.2(4) (the brief's "4.4"): four full turns without an Axis or British victory.
    t = make_game([U("A", "axis", 4, 6, "0303"), U("B", "british", 4, 4, "0707")])
    t.goto(4, BRIT_COMBAT)
    assert t.state().result is None
    evs = t.end()
    end = one(evs, E.GameEnded)
    assert (end.winner, end.rule) == ("british", "4.2(4)")
    assert t.state().result.winner == "british" and t.awaiting() == []
    t.refuse("axis", "move A 0304", match="the game is over")
    assert t.game.verify().ok


def test_4_1_checked_before_4_2_4_on_the_last_turn(make_game):
    # 4.1 / 4.2(4): an Axis unit on the objective at the end of turn 4 still wins for the Axis.
    t = make_game([U("A", "axis", 4, 6, "0703"), U("B", "british", 4, 4, "0307")], turns=1)
    t.ok("axis", "move A 0802")
    t.goto(1, BRIT_COMBAT)
    assert one(t.end(), E.GameEnded).winner == "axis"


def test_4_2_4_game_length_follows_the_scenario(make_game):
    # 5.0: a two-turn test scenario ends after turn 2.
    t = make_game([U("A", "axis", 4, 6, "0303"), U("B", "british", 4, 4, "0707")], turns=2)
    t.goto(2, BRIT_COMBAT)
    end = one(t.end(), E.GameEnded)
    assert end.winner == "british" and "turn 2" in end.reason


# ============================================================================
# A sample game: replay determinism, verify, refusals
# ============================================================================

SAMPLE_UNITS = [U("A1", "axis", 3, 6, "0703"), U("B1", "british", 3, 4, "0803"),
                U("A2", "axis", 8, 6, "0404"), U("B2", "british", 4, 4, "0505")]
SAMPLE_DICE = [2, 1, 1]
# Turn 1: A1 (3) v B1 (3) 1:1 die 2 AR -> A1 to 0603; A2 (8) v B2 (4) 2:1 die 1 DR1 -> B2 to 0604,
# A2 advances.  Turn 2: A1 + A2 (11) v B2 (4) 2:1 die 1 DR1, no legal retreat -> B2 eliminated.
SAMPLE_ORDERS = [
    ("axis", "end"),
    ("axis", "attack 0803 with A1 ar A1 0603\nattack 0505 with A2"),
    ("axis", "end"),
    ("axis", "retreat B2 0604"),
    ("axis", "advance A2"),
    ("british", "move B1 0804 0805\nend"),
    ("british", "end"),
    ("axis", "move A1 0703 0704\nend"),
    ("axis", "attack 0604 with A1 A2\nend"),
    ("axis", "advance A1"),
    ("british", "end"),
]


def play_sample(t):
    for side, text in SAMPLE_ORDERS:
        t.ok(side, text)
    return t


def test_sample_game_plays_out_as_the_rules_say(make_game):
    # 9.4(2), 9.5, 9.6, 9.7(3), 6.1 and 9.5(3) together.
    t = play_sample(make_game(SAMPLE_UNITS, dice=SAMPLE_DICE))
    st = t.state()
    assert (st.turn, st.phase) == (2, BRIT_COMBAT)
    assert {u: (s.hex, s.disrupted, s.eliminated) for u, s in st.units.items()} == {
        "A1": ("0604", False, False), "A2": ("0505", False, False),
        "B1": ("0805", False, False), "B2": (None, False, True)}
    kinds = [en.kind for en in t.game.entries()]
    assert kinds.count("CombatResolved") == 3 and kinds.count("UnitEliminated") == 1
    assert t.game.verify().ok


def _bodies(path):
    import json
    return [{k: v for k, v in json.loads(line).items() if k not in ("at", "prev")}
            for line in path.read_bytes().splitlines()]


def test_replay_determinism_two_game_dirs(make_game, monkeypatch):
    # design.md: same orders + same dice give the same log bodies and the same state bytes.
    t1 = play_sample(make_game(SAMPLE_UNITS, dice=SAMPLE_DICE, name="g1", game_id="det"))
    monkeypatch.setenv("PBEM_CLOCK", "2030-06-30T12:00:00Z")      # other timestamps, same facts
    t2 = play_sample(make_game(SAMPLE_UNITS, dice=SAMPLE_DICE, name="g2", game_id="det"))
    assert t1.log_bytes() != t2.log_bytes()
    assert _bodies(t1.log_path) == _bodies(t2.log_path)
    assert state_bytes(t1.state()) == state_bytes(t2.state())
    monkeypatch.setenv("PBEM_CLOCK", "2024-01-01T00:00:00Z")
    t3 = play_sample(make_game(SAMPLE_UNITS, dice=SAMPLE_DICE, name="g3", game_id="det"))
    assert t3.log_bytes() == t1.log_bytes()                          # same clock: same bytes


def test_replay_determinism_seeded_dice(make_game):
    # design.md Dice: the same seed and game id give the same rolls, logs and states.
    seed = "5eed" * 16
    games = []
    for name in ("s1", "s2"):
        t = make_game(SAMPLE_UNITS, name=name, game_id="seeded", seed_hex=seed)
        t.ok("axis", "end")
        t.ok("axis", "attack 0803 with A1\nattack 0505 with A2 no-advance\nend")
        games.append(t)
    a, b = games
    assert a.log_bytes() == b.log_bytes()
    assert state_bytes(a.state()) == state_bytes(b.state())
    assert [c.rolls for c in only([en.event for en in a.game.entries()], E.CombatResolved)] != []
    assert a.game.verify().ok


def test_replay_in_a_fresh_process_gives_the_same_state_bytes(make_game):
    t = play_sample(make_game(SAMPLE_UNITS, dice=SAMPLE_DICE))
    here = state_bytes(t.state())
    code = ("import sys; from pbem.engine import Game; from pbem.core.state import state_bytes; "
            "g = Game(sys.argv[1]); sys.stdout.write(state_bytes(g.replay(g.entries())).hex())")
    out = subprocess.run([sys.executable, "-c", code, str(t.game.dir)], capture_output=True, text=True,
                         check=True, cwd=str(t.game.dir))
    assert bytes.fromhex(out.stdout) == here


def test_cached_state_equals_a_full_replay(make_game):
    # engine: the state cache is an optimisation only; deleting it changes nothing.
    t = play_sample(make_game(SAMPLE_UNITS, dice=SAMPLE_DICE))
    cached = state_bytes(t.state())
    (t.game.dir / ".state-cache").unlink()
    assert state_bytes(Game(t.game.dir).state()) == cached
    assert state_bytes(t.game.replay(t.game.entries())) == cached


def test_verify_passes_and_a_changed_byte_fails_it(make_game, tmp_path):
    import shutil
    t = play_sample(make_game(SAMPLE_UNITS, dice=SAMPLE_DICE))
    rep = t.game.verify()
    assert rep.ok and rep.problems == [] and rep.events == len(t.log_bytes().splitlines())
    assert any("scripted" in n for n in rep.notes)
    raw = t.log_bytes()

    def tampered(name, old, new, start=0):
        d = tmp_path / name
        shutil.copytree(t.game.dir, d)
        (d / ".state-cache").unlink(missing_ok=True)
        i = raw.index(old, start)
        assert len(old) == len(new) and sum(x != y for x, y in zip(old, new)) == 1
        (d / "log.jsonl").write_bytes(raw[:i] + new + raw[i + len(old):])
        return Game(d).verify()

    # one byte in the middle of the log (B2's retreat hex 0604 -> 0605): the hash chain breaks
    rep = tampered("mid", b'"unit":"B2","path":["0604"]', b'"unit":"B2","path":["0605"]')
    assert not rep.ok and any("hash chain" in p for p in rep.problems)
    # one byte in the last line (the chain cannot see it): the rules disagree with the log
    last_start = raw.rindex(b"\n", 0, len(raw) - 1) + 1
    assert b'"phase":3' in raw[last_start:]
    rep = tampered("last", b'"phase":3', b'"phase":2', start=last_start)
    assert not rep.ok and any("the rules give" in p for p in rep.problems)
    # one byte of the dice script in the first line
    rep = tampered("dice", b'"scripted_dice":[2,1,1]', b'"scripted_dice":[3,1,1]')
    assert not rep.ok


def test_refused_orders_leave_the_log_unchanged_throughout_a_game(make_game):
    # design.md Orders: a refused order changes nothing.  Every refusal below is checked
    # byte-for-byte by Table.refuse; at the end the log equals that of a twin game that never
    # received the refused orders.
    t = make_game(SAMPLE_UNITS, dice=SAMPLE_DICE, name="r", game_id="twin")
    R = t.refuse
    # Axis movement, turn 1
    R("british", "move B1 0804", rule="5.0")
    R("axis", "move A2 0505", rule="7.2")
    R("axis", "move A1 0702 0701", rule="8.3")
    R("axis", "move A2 0504", rule="6.1")
    R("axis", "move A1 0803", rule="7.2")
    R("axis", "move A1 0704", rule="6.1")                # from B1's ZOC straight into it again
    R("axis", "move A1 0702 0602 0502 0402 0302 0202 0102", rule="8.2(1)")
    R("axis", "frobnicate A1", match="unknown order")
    R("axis", "move A1 07x3", match="not a hex number")
    R("axis", "attack 0505 with A2", rule="5.0")
    R("axis", "retreat B2 0604", match="'retreat' is not an order of this step")
    t.ok("axis", "end")
    # Axis combat
    R("axis", "attack 0505 with A1", rule="9.0")
    R("axis", "move A2 0405", rule="8.1(3)")
    R("axis", "attack 0404 with A2", match="no enemy unit")
    R("british", "end", rule="5.0")
    t.ok("axis", "attack 0803 with A1 ar A1 0603\nattack 0505 with A2")
    R("axis", "attack 0803 with A2", rule="9.1(3)")
    t.ok("axis", "end")
    # the retreat decision for B2
    R("axis", "retreat B2 0504", rule="9.5")
    R("british", "retreat B2 0506", match="waits for German-Italian")
    R("axis", "advance A2", match="retreat UNIT HEX")
    t.ok("axis", "retreat B2 0604")
    R("axis", "advance A1", rule="9.6")
    t.ok("axis", "advance A2")
    # British movement (8.4: MA 2)
    R("british", "move B2 0704", rule="9.7(2)")
    R("british", "move B1 0804 0805 0806", rule="8.2(1)")
    R("british", "break B1", rule="4.2(2)")
    t.ok("british", "move B1 0804 0805\nend")
    R("british", "attack 0505 with B2", rule="9.7(2)")
    R("british", "attack 0603 with B1", rule="9.0")
    t.ok("british", "end")
    for side, text in SAMPLE_ORDERS[7:]:
        t.ok(side, text)
    twin = play_sample(make_game(SAMPLE_UNITS, dice=SAMPLE_DICE, name="twin", game_id="twin"))
    assert t.log_bytes() == twin.log_bytes()
    assert t.game.verify().ok


def test_a_refused_line_stops_the_batch_and_keeps_the_lines_before(make_game):
    # design.md Orders: applied order by order; at the first refusal the rest is not applied.
    t = make_game([U("A", "axis", 4, 6, "0303"), U("C", "axis", 4, 6, "0703"), U("B", "british", 4, 4, "0505")])
    before = t.log_bytes()
    sub = t.game.submit("axis", "move A 0304 0404\n# a comment\nmove C 0704 0604 0504\nend")
    assert [a.text for a in sub.applied] == ["move A 0304 0404"]
    assert sub.refused.line == 3 and sub.refused.rule == "6.1"
    assert sub.not_applied == ["move C 0704 0604 0504", "end"]
    assert t.log_bytes().startswith(before) and t.log_bytes() != before
    assert t.hex_of("A") == "0404" and t.hex_of("C") == "0703" and t.phase() == (1, AXIS_MOVE)
    # a syntax error anywhere refuses the whole batch before anything is applied
    before = t.log_bytes()
    sub = t.game.submit("axis", "move C 0704\nmove C 12")
    assert sub.applied == [] and sub.refused.line == 2 and t.log_bytes() == before


def test_exhausted_dice_script_refuses_the_order_and_logs_nothing(make_game):
    # design.md Dice: a roll the script cannot give refuses the order; nothing is half-applied.
    t = make_game([U("A", "axis", 8, 6, "0404"), U("B", "british", 4, 4, "0505")], dice=[])
    t.goto(1, AXIS_COMBAT)
    t.ok("axis", "attack 0505 with A")
    t.refuse("axis", "end", match="scripted dice exhausted")
    st = t.state()
    assert not st.declarations_closed and st.attacks[0].result == ""
