"""Formation Series combat (Mirages '40 '41, 7.4): the pure arithmetic and the
rulebook's worked examples, number for number."""
from __future__ import annotations

from pbem.core.hexgrid import Grid
from pbem.games.formation import chits, crt
from pbem.games.formation.combat_math import (Fighter, armor_superiority, battle_strength, ca_shift, clamp_drm,
                                              combined_arms, hq_support, modified_roll, rbc_blockers, rbc_drm,
                                              support_drm)
from pbem.games.formation.losses import first_loss, plan_rest, spread, victory
from pbem.games.formation.retreats import retreat_losses, retreat_search

CLEAR = crt.headings(crt.DEFAULT_ODDS["clear"])

# The Combat Sequence Example's stacks (7.4).  Red attacks with Unit 16 (tank, 6 SP) and
# Unit 13 (motorized infantry, 5 SP), both rated 5; Blue defends with Unit 11 (tank, 5 SP,
# rated 6) and the armoured car Unit 7 (3 SP, rated 7: half of it, rounded up, is the +4).
RED = [Fighter("16", 6, 5, tank=3, category="tank", formation="R", motorized=True),
       Fighter("13", 5, 5, category="mot-infantry", formation="R", motorized=True)]
BLUE = [Fighter("11", 5, 6, tank=3, category="tank", formation="E", motorized=True),
        Fighter("7", 3, 7, at=1, category="armoured-car", formation="E", motorized=True)]


def test_rbc_example_7_vs_7_fails():
    # 7.4.1.1 / Combat Sequence Example B: the armoured car's half rating, rounded up: +4
    assert rbc_blockers(BLUE) == []
    assert rbc_drm(BLUE, RED, defending=True) == (4, "7")
    assert rbc_drm(RED, BLUE, defending=False) == (0, "")
    # Red 7, Blue 3 + 4 = 7: the defender must be strictly higher
    assert not (3 + 4 > 7)


def test_rbc_full_rating_against_leg_stack_and_blockers():
    legs = [Fighter("a", 4, 4, category="infantry")]
    assert rbc_drm(BLUE, legs, defending=True) == (7, "7")      # full rating of a motorized unit
    assert "a defender is disrupted" in rbc_blockers([Fighter("x", 3, 5, disrupted=True, motorized=True)])
    assert "no defender is motorized or mechanized" in rbc_blockers(legs)
    assert "a defender is a static unit" in rbc_blockers([Fighter("s", 3, 5, static=True, motorized=True)])


def test_example_strengths_22_vs_16_is_1_to_1():
    # 7.4.1.2: chit 1 for Red (Regular Attack, rating 5: x2), chit 2 for Blue (Regular Defense)
    att, lines = battle_strength(RED, 1, attack_kind="regular")
    dfn, dlines = battle_strength(BLUE, 2)
    assert (att, dfn) == (22, 16)
    assert lines == ["16 6x2=12", "13 5x2=10"] and dlines == ["11 5x2=10", "7 3x2=6"]
    # both sides have combined arms: no shift (the example), 22:16 rounds down to 1:1
    assert combined_arms(RED) and combined_arms(BLUE)
    assert ca_shift(True, True)[0] == 0
    col = crt.column(22, 16, CLEAR)
    assert CLEAR[col] == "1:1"


def test_example_drm_plus_2_natural_2_gives_2_1_both_red():
    arm = armor_superiority(RED, BLUE, mode="tank")
    assert arm.drm == 0 and (arm.att_unit, arm.def_unit) == ("16", "11")
    parts = [support_drm("regular", [True], attacking=False),      # Blue's supporting unit: -1
             support_drm("regular", [], attacking=True),           # Red's support is disrupted
             hq_support("regular", 6),                             # half of the HQ's 6: +3
             arm.drm, -2,                                          # Schwerpunkt (Blue)
             +2]                                                   # failed retreat before combat
    assert parts == [-1, 0, 3, 0, -2, 2]
    drm = clamp_drm(parts)
    assert drm == 2 and modified_roll(2, drm) == 4
    res = crt.lookup(crt.DEFAULT_ROWS, crt.column(22, 16, CLEAR), 4)
    assert (res.att, res.deff, res.att_red, res.def_red) == (2, 1, True, True)   # the text's one CRT datum


def test_example_hit_distribution():
    # Blue: one red hit: Unit 11 (armor superiority) loses the first SP (5 -> 4); no hit remains
    assert first_loss({"11": 5, "7": 3}, "11") == "11"
    p = plan_rest(0, {"11": 4, "7": 3}, attacker=False, red=True, failed={"7"}, disrupted_before=set(),
                  choice="hold", taken={"11": 1})
    assert p.steps == [] and p.retreats == []
    # Red: two red hits: Unit 16 first (6 -> 5); 16 fails its EC, 13 passes (case C); the
    # stack follows the forced retreat, which settles the second hit
    assert first_loss({"16": 6, "13": 5}, "16") == "16"
    p = plan_rest(1, {"16": 5, "13": 5}, attacker=True, red=True, failed={"16"}, disrupted_before=set(),
                  choice="retreat", taken={"16": 1})
    assert p.case == "C" and p.steps == []
    assert [(g.units, g.hexes, g.forced) for g in p.retreats] == [(["16", "13"], 1, True)]
    # Battle Victory: Blue suffered fewer hits
    assert victory(2, 1, True, True) == "defender"


def test_drm_captions_follow_the_arithmetic():
    # 7.4.1.4 examples: the printed totals of the second and third captions are swapped;
    # we follow the arithmetic: -1 +3 +3 +2 = +7 and -1 +2 +6 -2 = +5.
    second = [support_drm("regular", [True], attacking=False), hq_support("regular", 6), 3, 2]
    assert second == [-1, 3, 3, 2] and clamp_drm(second) == 7
    third = [support_drm("regular", [True], attacking=False), support_drm("prepared", [True], attacking=True),
             hq_support("prepared", 6), 0, -2]
    assert third == [-1, 2, 6, 0, -2] and clamp_drm(third) == 5
    # the first caption: Improved Defense, one same-formation supporter: -2; 5 TP against 5 AT: none
    first = armor_superiority([Fighter("b", 4, 5, tank=5)], [Fighter("4", 3, 5, at=3)], at_bonus=2)
    assert first.drm == 0
    assert clamp_drm([support_drm("improved", [True], attacking=False), first.drm]) == -2


def test_drm_clamp_and_roll_limits():
    assert clamp_drm([9, 8]) == 12 and clamp_drm([-20]) == -12
    assert modified_roll(1, -12) == 1 and modified_roll(10, 12) == 20


def test_armor_superiority_captions():
    # 7.4.1.4 C examples: 5 TP against 2 AT: +3
    assert armor_superiority([Fighter("20", 4, 5, tank=5)], [Fighter("d", 4, 5, at=2)]).drm == 3
    # the attacker has only AT points, the defender 5 TP: -5
    a = armor_superiority([Fighter("x", 4, 5, at=3)], [Fighter("t", 4, 5, tank=5)])
    assert a.drm == -5 and a.def_unit == "t"
    # Tank Points on both sides, the defender one more: -1
    assert armor_superiority([Fighter("a", 4, 5, tank=4)], [Fighter("t", 4, 5, tank=5)]).drm == -1
    # neither side has Tank Points
    assert armor_superiority([Fighter("a", 4, 5, at=2)], [Fighter("d", 4, 5, at=3)]).drm == 0
    # defending AT can only cancel: never a negative DRM
    assert armor_superiority([Fighter("a", 4, 5, tank=2)], [Fighter("d", 4, 5, at=6)], mode="at").drm == 0


def test_loss_allocation_example_3_1():
    # 7.4.2 hit distribution example: Blue (defender) one red hit on Unit 14 (its AT points
    # were used); Unit 16 fails its EC, 14 passes; nothing remains.
    arm = armor_superiority([Fighter("15", 5, 5, tank=4), Fighter("13", 4, 5)],
                            [Fighter("14", 4, 5, at=3), Fighter("16", 3, 4)], mode="at")
    assert (arm.att_unit, arm.def_unit, arm.mode) == ("15", "14", "at")
    assert first_loss({"14": 4, "16": 3}, arm.def_unit) == "14"
    assert plan_rest(0, {"14": 3, "16": 3}, attacker=False, red=True, failed={"16"}, disrupted_before=set(),
                     choice="hold", taken={"14": 1}).steps == []
    # Red (attacker) three black hits: Unit 15 (its TPs were used) first, the second
    # becomes a retreat, the third cannot and falls on Unit 13.
    assert first_loss({"15": 5, "13": 4}, arm.att_unit) == "15"
    p = plan_rest(2, {"15": 4, "13": 4}, attacker=True, red=False, failed=set(), disrupted_before=set(),
                  choice="retreat", taken={"15": 1})
    assert p.steps == ["13"]
    assert [(g.hexes, g.forced) for g in p.retreats] == [(1, False)]


def test_defender_black_retreat_and_case_b():
    p = plan_rest(2, {"a": 3, "b": 3}, attacker=False, red=False, failed=set(), disrupted_before=set(),
                  choice="retreat", taken={"a": 1})
    assert p.steps == [] and p.retreats[0].hexes == 2 and not p.retreats[0].forced
    p = plan_rest(2, {"a": 3, "b": 3}, attacker=False, red=True, failed={"a", "b"}, disrupted_before=set(),
                  choice="hold", taken={"a": 1})
    assert p.case == "B" and p.retreats[0].hexes == 2 and p.retreats[0].forced
    p = plan_rest(3, {"a": 3, "b": 3}, attacker=True, red=True, failed={"a", "b"}, disrupted_before=set(),
                  choice="hold", taken={"a": 1})
    assert p.case == "B" and p.retreats[0].hexes == 1 and p.steps == ["b", "a"]
    # holding with a unit disrupted before the combat: it retreats alone (7.4.2 a)
    p = plan_rest(1, {"a": 3, "b": 3}, attacker=False, red=False, failed=set(), disrupted_before={"b"},
                  choice="hold", taken={"a": 1})
    assert p.steps == ["a"] and p.retreats[0].units == ["b"] and p.retreats[0].forced


def test_even_spread_of_step_losses():
    # 7.4.2.1: nobody takes a second before everyone took one
    assert spread(3, {"a": 5, "b": 2, "c": 4}, {}) == ["a", "c", "b"]
    assert spread(4, {"a": 1, "b": 3}, {}) == ["b", "a", "b", "b"]


def test_retreat_ezoc_and_blocked_losses():
    # 7.4.2.2 captions: a forced retreat whose only way is an EZOC hex costs each unit one
    # SP; a forced retreat blocked altogether costs two per hex not entered.
    g = Grid(1, 6, 1, 6)
    start, combat = "0303", "0302"
    ez = {n for n in g.neighbours(start)}
    path, n_ezoc, blocked = retreat_search(g, start, combat, 1, forced=True, allowed=lambda a, b: True,
                                           ezoc=lambda h: h in ez, goal=lambda h: 0)
    assert len(path) == 1 and n_ezoc == 1 and blocked == 0
    assert retreat_losses(n_ezoc, blocked, True) == 1
    path, n_ezoc, blocked = retreat_search(g, start, combat, 1, forced=True, allowed=lambda a, b: False,
                                           ezoc=lambda h: False, goal=lambda h: 0)
    assert path == [] and blocked == 1 and retreat_losses(n_ezoc, blocked, True) == 2
    # a voluntary retreat never enters an EZOC
    path, n_ezoc, blocked = retreat_search(g, start, combat, 1, forced=False, allowed=lambda a, b: True,
                                           ezoc=lambda h: h in ez, goal=lambda h: 0)
    assert path == [] and blocked == 1 and retreat_losses(0, blocked, False) == 0


def test_retreat_goes_away_and_towards_the_goal():
    g = Grid(1, 8, 1, 8)
    path, _, _ = retreat_search(g, "0404", "0403", 2, forced=False, allowed=lambda a, b: True,
                                ezoc=lambda h: False, goal=lambda h: g.distance(h, "0408"))
    assert len(path) == 2
    assert g.distance(path[0], "0403") == 2 and g.distance(path[1], "0403") == 3
    assert g.distance(path[1], "0408") < g.distance("0404", "0408")


def test_odds_round_down_cap_and_5_0():
    assert CLEAR[crt.column(7, 2, CLEAR)] == "3:1"
    assert CLEAR[crt.column(100, 1, CLEAR)] == "6:1"              # capped at the right
    assert crt.column(1, 3, CLEAR) is None                        # below 1:2
    r = crt.lookup(crt.DEFAULT_ROWS, None, 15)
    assert (r.att, r.deff) == (5, 0)
    rough = crt.headings(crt.DEFAULT_ODDS["broken"])
    assert crt.column(1, 1, rough) == 0 and crt.column(2, 3, rough) is None
    assert crt.shift(len(CLEAR) - 1, 1, CLEAR) == len(CLEAR) - 1


def test_chits_sample_and_table_shape():
    # the sample chit (chit 1) as transcribed
    assert [chits.multiplier(1, 2, k, False) for k in chits.ATTACK] == [1, 2, 3]
    assert [chits.multiplier(1, 3, k, False) for k in chits.ATTACK] == [3, 1, 1]
    assert [chits.multiplier(1, 6, k, True) for k in chits.DEFENCE] == [2, 3, 3]
    assert chits.multiplier(1, 9, "regular", True) == chits.multiplier(1, 7, "regular", True)
    assert chits.multiplier(1, 1, "hasty", False) == chits.multiplier(1, 2, "hasty", False)
    for c in chits.CHITS:
        groups = c.split()
        assert len(groups) == 6 and all(len(g) == 7 and set(g) <= set("123/") for g in groups)


def test_crt_shape_and_results():
    assert len(crt.DEFAULT_ROWS) == 20 and all(len(r) == 8 for r in crt.DEFAULT_ROWS.values())
    for row in crt.DEFAULT_ROWS.values():
        for cell in row:
            crt.parse_result(cell)
    # higher rolls never hurt the attacker more nor the defender less
    for c in range(8):
        col = [crt.parse_result(crt.DEFAULT_ROWS[str(r)][c]) for r in range(1, 21)]
        assert all(a.att >= b.att for a, b in zip(col, col[1:]))


def test_out_of_supply_attacker_halved_fraction_kept():
    # 5.1, 5.7.5: halves are kept until the side's total, then rounded up
    fs = [Fighter("a", 3, 5, oos=True), Fighter("b", 3, 5, oos=True)]
    m = chits.multiplier(1, 5, "hasty", False)
    total, _ = battle_strength(fs, 1, attack_kind="hasty")
    assert total == -(-(3 * m + 3 * m) // 2)
    one, _ = battle_strength([Fighter("a", 3, 5, oos=True)], 3, attack_kind="hasty")
    assert one == -(-(3 * chits.multiplier(3, 5, "hasty", False)) // 2)
