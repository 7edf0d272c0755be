"""Khar'kov (Panzer Corps) rules, driven through the real engine.

Each test names the rule it checks (panzer-corps.txt, Khar'kov section).
Small maps come from ``pz_game`` (conftest.py): 8 x 8 clear hexes unless a
test says otherwise; the test CRT gives 1 DE, 2 DR1, 3 DR2, 4 AR, 5 AE, 6 EX
whatever the odds.  Phases: 0 Soviet reinforcement, 1 Soviet movement,
2 Soviet combat, 3 German reinforcement, 4 German movement, 5 German combat;
a reinforcement phase with nothing due passes by itself.
"""
from __future__ import annotations

import pytest

from conftest import one, only, pz_units
from pbem.games.panzer_corps import events as E
from pbem.games import ruleset_for
from pbem.core.scenario import lint, load

S = pz_units("soviet")
G = pz_units("german")
SOV_REIN, SOV_MOVE, SOV_COMBAT, GER_REIN, GER_MOVE, GER_COMBAT = range(6)
# The victory values printed in 4.x, which a scenario's [victory] table gives (the code holds none).
VP = {"city_vp": 2, "charge_vp": 1, "elimination_vp": 1, "tank_elimination_vp": 2,
      "railroad_vp": {"railroad": 2, "railroad_branch": 1}, "tie_winner": "draw"}


def cities(*hexes: str, base: list[str] | None = None) -> list[str]:
    rows = [list(r) for r in (base or ["." * 8] * 8)]
    for h in hexes:
        rows[int(h[2:]) - 1][int(h[:2]) - 1] = "C"
    return ["".join(r) for r in rows]


# ============================================================================
# Shipped scenario
# ============================================================================

def test_shipped_scenario_lints_and_follows_the_rulebook():
    sc = load("kharkov")
    rules = ruleset_for(sc.game)
    assert lint(sc, set(rules.result_codes)) == [] and rules.lint(sc) == []
    assert sc.turns == 8 and sc.turn_track[0].label == "19-25 January"           # 3.0(6), 5.0
    assert [(p.side, p.name) for p in sc.sequence] == [                           # 5.0
        ("soviet", "reinforcement"), ("soviet", "movement"), ("soviet", "combat"),
        ("german", "reinforcement"), ("german", "movement"), ("german", "combat")]
    german = [u for u in sc.units if u.side == "german"]
    soviet = [u for u in sc.units if u.side == "soviet"]
    tanks = rules.p.tank_types
    # 4.1's counter table: German 28 black (tank, mechanized) / 15 gray, Soviet 22 red / 15 brown
    assert (sum(u.type in tanks for u in german), sum(u.type not in tanks for u in german)) == (28, 15)
    assert (sum(u.type in tanks for u in soviet), sum(u.type not in tanks for u in soviet)) == (22, 15)
    assert len([u for u in german if u.hex]) == 6                                   # 3.0(3)
    setup = [u for u in soviet if u.hex is None and u.entry_turn == 0]
    assert len(setup) == 18                                                          # 3.0(4)
    marks = {rules.area_of(sc, u.id) for u in setup}
    assert marks == {"6", "1GD", "Ppv"}
    assert all(u.entry_turn and u.entry_turn >= 1 for u in sc.units if u.hex is None and u not in setup)
    assert {rules.area_of(sc, u.id) for u in german if u.hex is None} <= {"A", "B", "C", "D"}   # 10.0(3)
    assert sc.board.terrain["0634"] == "city" and sc.board.places["0634"] == "Poltava"         # 4.5
    assert sc.board.terrain["1732"] == "city" and sc.board.places["1732"] == "Dnepro Petrovsk"
    assert len(next(p.hexes for p in sc.map.places if p.name == "Khar'kov")) == 4           # 4.1(1)
    feats = {hs.feature for hs in sc.map.hexsides}
    assert feats == {"major_river", "minor_river"}
    assert sc.map.features["railroad"].hexes and sc.map.features["railroad_branch"].hexes  # 4.4


def test_3_0_shipped_set_up_decision(tmp_path):
    # 3.0(4): the game opens waiting for the Soviet player to place eighteen units.
    from pbem.engine import Game
    g = Game.create(tmp_path / "k", "kharkov", dice=[1])
    st = g.state()
    assert (st.turn, st.phase) == (1, SOV_REIN)
    assert st.decision.kind == "set-up" and len(st.decision.units) == 18
    [item] = g.rules.awaiting(st, g.scenario)
    assert item["side"] == "soviet" and item["order"] == "place UNIT HEX"
    lines = g.rules.default_orders(st, g.scenario, "soviet")
    assert len(lines) == 18
    sub = g.submit("soviet", "\n".join(lines))
    assert sub.refused is None
    st = g.state()
    assert st.decision is None and (st.turn, st.phase) == (1, SOV_MOVE)    # turn 1: nothing to bring in
    assert g.verify().ok


# ============================================================================
# 3.0(4) set-up
# ============================================================================

AREAS = {"areas": [{"name": "6", "hexes": ["0801", "0802", "0803"], "units": ["S1", "S2", "S3"]}]}


def test_3_0_4_soviet_set_up_in_marked_edge_hexes_observing_stacking(pz_game):
    t = pz_game("kharkov", [G("G", 4, 4, "0404")] + [S(f"S{i}", 2, 4, entry_turn=0) for i in (1, 2, 3)],
                game_data=AREAS)
    d = t.state().decision
    assert (d.side, d.kind, d.units, d.rule) == ("soviet", "set-up", ["S1", "S2", "S3"], "3.0(4)")
    t.refuse("german", "move G 0405", match="waits for Soviet")
    t.refuse("soviet", "place S1 0101", rule="3.0(4)", match="legal: 0801 0802 0803")
    t.refuse("soviet", "move S1 0801", match="place UNIT HEX")
    t.ok("soviet", "place S1 0801\nplace S2 0801")
    t.refuse("soviet", "place S3 0801", rule="3.0(4)")                  # 7.0: two Soviet units a hex
    evs = t.ok("soviet", "place S3 0803")
    assert one(evs, E.UnitSetUp) == E.UnitSetUp(unit="S3", hex="0803", rule="3.0(4)")
    assert only(evs, E.PhaseStarted)[0].name == "movement"             # the empty reinforcement phase passes
    assert t.phase() == (1, SOV_MOVE)


# ============================================================================
# 7.x stacking
# ============================================================================

def test_7_0_7_1_three_german_two_soviet_units_a_hex_counted_at_the_end_of_the_phase(pz_game):
    # 7.0: three German units a hex, two Soviet; 7.1: the limit counts when the movement phase
    # ends, so a unit may end its move in a full hex (and pass through one); 7.3: what is still
    # over the limit at the end is removed, the owner choosing which.
    t = pz_game("kharkov", [G("G1", 2, 4, "0404"), G("G2", 2, 4, "0405"), G("G3", 2, 4, "0403"),
                            G("G4", 2, 4, "0304"), S("S1", 2, 4, "0707"), S("S2", 2, 4, "0706"),
                            S("S3", 2, 4, "0807")], victory=VP)
    t.ok("soviet", "move S2 0707")
    t.ok("soviet", "move S3 0707")                                         # a third Soviet unit: fine for now
    [item] = t.awaiting()
    assert item["options"] == ["0707: S1, S2, S3 - over the limit of 2 units a hex; "
                               "the excess is removed at the end of the phase (7.3)"]
    evs = t.ok("soviet", "end")
    d = one(evs, E.DecisionRequired)
    assert (d.side, d.decision, d.units, d.distance, d.rule) == ("soviet", "stack-loss", ["S1", "S2", "S3"], 1, "7.3")
    assert one(t.ok("soviet", "lose S3"), E.UnitEliminated).rule == "7.3"
    t.goto(1, GER_MOVE)
    t.ok("german", "move G2 0404\nmove G3 0404")                           # three German units: the limit
    t.ok("german", "move G4 0404")                                         # a fourth, until the end (7.1)
    d = one(t.ok("german", "end"), E.DecisionRequired)
    assert (d.side, d.decision, d.units, d.distance, d.rule) == (
        "german", "stack-loss", ["G1", "G2", "G3", "G4"], 1, "7.3")


def test_7_1_a_full_hex_emptied_before_the_end_loses_nothing(pz_game):
    # 7.1: S3 ends its move in 0707 beside S1 and S2; S1, not yet moved, then leaves: at the end
    # of the phase 0707 holds two Soviet units, the limit, and nothing is removed (7.3).
    t = pz_game("kharkov", [G("G", 2, 4, "0101"), S("S1", 2, 4, "0707"), S("S2", 2, 4, "0707"),
                            S("S3", 2, 4, "0807")], victory=VP)
    t.ok("soviet", "move S3 0707\nmove S1 0607")
    evs = t.ok("soviet", "end")
    assert not only(evs, E.DecisionRequired) and not only(evs, E.UnitEliminated)
    assert t.phase() == (1, SOV_COMBAT) and sorted(u.id for u in t.state().units.values()
                                                   if u.hex == "0707") == ["S2", "S3"]


def test_7_3_excess_units_are_removed_as_eliminated(pz_game):
    # 7.1/7.3: at the end of the movement phase a hex over the limit loses the excess; the owner
    # chooses which; the removal counts as an elimination (4.3: +1 VP to the Germans).
    t = pz_game("kharkov", [G("G", 2, 4, "0101"), S("S1", 2, 4, "0505"), S("S2", 3, 4, "0505"),
                            S("S3", 1, 4, "0506")], victory=VP)
    t.ok("soviet", "move S3 0505")                  # moving through or into a full hex is fine (7.1)
    evs = t.ok("soviet", "end")
    d = one(evs, E.DecisionRequired)
    assert (d.side, d.decision, d.units, d.distance, d.rule) == ("soviet", "stack-loss", ["S1", "S2", "S3"], 1, "7.3")
    assert t.phase() == (1, SOV_MOVE)
    assert t.game.rules.default_orders(t.state(), t.game.scenario, "soviet") == ["lose S3"]
    t.refuse("soviet", "lose S1 S2", rule="7.3")
    t.refuse("soviet", "lose G", match="not a Soviet unit")
    evs = t.ok("soviet", "lose S2")
    assert one(evs, E.UnitEliminated) == E.UnitEliminated(unit="S2", reason="over the stacking limit in 0505",
                                                          rule="7.3")
    assert one(evs, E.PointsScored).side == "german"
    assert t.phase() == (1, SOV_COMBAT)


# ============================================================================
# 9.1, 9.2 stacks in combat
# ============================================================================

def test_9_1_5_stacked_attackers_may_split_targets(pz_game):
    # 9.1(5): S1 and S2 share 0404; S1 attacks 0405 and S2 attacks 0504.
    t = pz_game("kharkov", [S("S1", 4, 4, "0404"), S("S2", 4, 4, "0404"), G("G1", 2, 4, "0405"),
                            G("G2", 2, 4, "0504")], dice=[6, 6])
    t.goto(1, SOV_COMBAT)
    t.ok("soviet", "attack 0405 with S1\nattack 0504 with S2")
    evs = t.ok("soviet", "end")
    assert [(c.target, c.attackers) for c in only(evs, E.CombatResolved)] == [("0405", ["S1"]), ("0504", ["S2"])]


def test_9_2_stacked_defenders_are_attacked_together(pz_game):
    # 9.1(5), 9.2(1): the three German units in 0505 defend together: 2 + 3 + 4 = 9; 18:9 = 2:1;
    # a DR1 retreats each of them (9.5(4)).
    t = pz_game("kharkov", [S("S1", 9, 4, "0404"), S("S2", 9, 4, "0504"), G("G1", 2, 4, "0505"),
                            G("G2", 3, 4, "0505"), G("G3", 4, 4, "0505")], dice=[2])
    t.goto(1, SOV_COMBAT)
    t.ok("soviet", "attack 0505 with S1 S2 retreat 0506 no-advance")
    evs = t.ok("soviet", "end")
    c = one(evs, E.CombatResolved)
    assert (c.defenders, c.attack_strength, c.defence_strength, c.odds) == (["G1", "G2", "G3"], 18, 9, "2:1")
    assert [(r.unit, r.path) for r in only(evs, E.UnitRetreated)] == [
        ("G1", ["0506"]), ("G2", ["0506"]), ("G3", ["0506"])]        # 9.5(4): together, up to the limit


# ============================================================================
# 8.3 movement, 9.3 terrain
# ============================================================================

def test_8_3_river_crossing_costs(pz_game):
    # 8.3(3)/(4): +2 MP across a major river, +1 across a minor one.
    t = pz_game("kharkov", [S("S", 2, 3, "0404"), S("T", 2, 2, "0604"), G("G", 2, 4, "0101")],
                hexsides=[("0404", "0405", "major_river"), ("0604", "0605", "minor_river")])
    assert one(t.ok("soviet", "move S 0405"), E.UnitMoved).mp == 3
    assert one(t.ok("soviet", "move T 0605"), E.UnitMoved).mp == 2


def test_8_3_5_railroad_movement_ignores_terrain_and_rivers(pz_game):
    # 8.3(5): along the railroad 0402-0403-0404-0405-0406 every hex costs 1 MP, forest (0404)
    # and a major river (0404|0405) included.  Off the railroad the same ground (forest 0603,
    # major river 0603|0604) costs 2 + 1 + 2.
    rows = ["." * 8] * 8
    rows[3] = "...f...."
    rows[2] = ".....f.."
    t = pz_game("kharkov", [S("S", 2, 4, "0402"), S("T", 2, 4, "0602"), G("G", 2, 4, "0808")], rows=rows,
                features={"railroad": ["0402", "0403", "0404", "0405", "0406"]},
                hexsides=[("0404", "0405", "major_river"), ("0603", "0604", "major_river")])
    assert one(t.ok("soviet", "move S 0403 0404 0405 0406"), E.UnitMoved).mp == 4
    t.refuse("soviet", "move T 0603 0604", rule="8.2(1)", match="5 MP")


@pytest.mark.parametrize("terrain, doubled", [("f", True), ("C", True), ("t", False), ("m", False)])
def test_9_3_forest_and_city_double(pz_game, terrain, doubled):
    rows = ["." * 8] * 8
    rows[4] = "...." + terrain + "..."
    t = pz_game("kharkov", [S("S", 6, 4, "0404"), G("G", 3, 4, "0505")], rows=rows, dice=[6])
    t.goto(1, SOV_COMBAT)
    t.ok("soviet", "attack 0505 with S ex S")
    c = one(t.ok("soviet", "end"), E.CombatResolved)
    assert c.defence_strength == (6 if doubled else 3)


def test_9_3_1_major_river_doubles_only_when_every_attacker_crosses(pz_game):
    units = [S("S1", 4, 4, "0404"), S("S2", 4, 4, "0504"), G("G", 4, 4, "0505")]
    t = pz_game("kharkov", units, dice=[6], hexsides=[("0404", "0505", "major_river"), ("0504", "0505", "major_river")])
    t.goto(1, SOV_COMBAT)
    t.ok("soviet", "attack 0505 with S1 S2 ex S1")
    c = one(t.ok("soviet", "end"), E.CombatResolved)
    assert c.defence_strength == 8 and "major river" in c.modifiers[0]
    t2 = pz_game("kharkov", units, dice=[6], name="g2", hexsides=[("0404", "0505", "major_river")])
    t2.goto(1, SOV_COMBAT)
    t2.ok("soviet", "attack 0505 with S1 S2 ex S1")
    assert one(t2.ok("soviet", "end"), E.CombatResolved).defence_strength == 4


def test_9_3_3_minor_rivers_do_not_affect_combat(pz_game):
    t = pz_game("kharkov", [S("S", 4, 4, "0404"), G("G", 4, 4, "0505")], dice=[6],
                hexsides=[("0404", "0505", "minor_river")])
    t.goto(1, SOV_COMBAT)
    t.ok("soviet", "attack 0505 with S")
    c = one(t.ok("soviet", "end"), E.CombatResolved)
    assert (c.defence_strength, c.modifiers) == (4, [])


def test_9_3_2_forest_across_a_major_river_doubles_once(pz_game):
    rows = ["." * 8] * 8
    rows[4] = "....f..."
    t = pz_game("kharkov", [S("S", 8, 4, "0404"), G("G", 2, 4, "0505")], rows=rows, dice=[6],
                hexsides=[("0404", "0505", "major_river")])
    t.goto(1, SOV_COMBAT)
    t.ok("soviet", "attack 0505 with S")
    c = one(t.ok("soviet", "end"), E.CombatResolved)
    assert (c.defence_strength, c.odds) == (4, "2:1")


# ============================================================================
# 9.4(3) EX
# ============================================================================

def test_9_4_3_exchange_each_side_removes_one_participant(pz_game):
    # 9.4(3): the attacker named its loss on the attack line (ex S2); the German player chooses
    # his; nobody retreats, nobody advances; both losses score (4.3).
    t = pz_game("kharkov", [S("S1", 4, 4, "0404"), S("S2", 3, 4, "0504"), G("G1", 2, 4, "0505", type="armour"),
                            G("G2", 2, 4, "0505")], dice=[6], victory=VP)
    t.goto(1, SOV_COMBAT)
    t.refuse("soviet", "attack 0505 with S1 ex G1", match="not a Soviet unit")
    t.ok("soviet", "attack 0505 with S1 S2 ex S2")
    evs = t.ok("soviet", "end")
    assert one(evs, E.CombatResolved).result == "EX"
    assert [e.unit for e in only(evs, E.UnitEliminated)] == ["S2"]
    d = t.state().decision
    assert (d.side, d.kind, d.units, d.rule) == ("german", "ex-loss", ["G1", "G2"], "9.4(3)")
    t.refuse("soviet", "lose S1", match="waits for German")
    t.refuse("german", "lose G1 G2", rule="9.4(3)")
    evs = t.ok("german", "lose G1")
    assert one(evs, E.UnitEliminated).unit == "G1"
    assert not only(evs, E.UnitRetreated) and not only(evs, E.UnitAdvanced) and not only(evs, E.DecisionRequired)
    assert t.hex_of("G2") == "0505" and t.hex_of("S1") == "0404"
    assert t.state().score == {"german": 1, "soviet": 2}                 # 4.3: a German tank is worth 2
    assert t.phase() == (1, GER_MOVE)                                  # nothing due: German reinforcements pass


def test_9_4_3_exchange_asks_the_attacker_too_when_no_answer_was_given(pz_game):
    t = pz_game("kharkov", [S("S1", 4, 4, "0404"), S("S2", 3, 4, "0504"), G("G", 2, 4, "0505")], dice=[6])
    t.goto(1, SOV_COMBAT)
    t.ok("soviet", "attack 0505 with S1 S2")
    evs = t.ok("soviet", "end")
    d = one(evs, E.DecisionRequired)
    assert (d.side, d.decision, d.units) == ("soviet", "ex-loss", ["S1", "S2"])
    evs = t.ok("soviet", "lose S1")
    assert [e.unit for e in only(evs, E.UnitEliminated)] == ["S1", "G"]     # the defender's only unit goes too


# ============================================================================
# 9.6 advance after combat, tanks
# ============================================================================

def test_9_6_1_up_to_the_stacking_limit_and_a_tanks_second_hex(pz_game):
    # 9.6(1)/(3): after a DE three German units may advance (limit 3); the tank may go one hex more.
    t = pz_game("kharkov", [G("T", 4, 4, "0404", type="armour"), G("I1", 4, 4, "0504"), G("I2", 4, 4, "0405"),
                            G("I3", 4, 4, "0605"), S("S", 1, 4, "0505")], dice=[1])
    t.goto(1, GER_COMBAT)
    t.ok("german", "attack 0505 with T I1 I2 I3")
    t.ok("german", "end")
    d = t.state().decision
    assert ["T", "0505", "0506"] in d.options and ["I1", "0505", "0506"] not in d.options
    t.refuse("german", "advance I1 0505 0506", rule="9.6")                        # 9.6(3): tanks only
    t.refuse("german", "advance T I1 I2 I3", rule="9.6", match="at most 3")
    evs = t.ok("german", "advance T 0505 0506 I1 I2")
    assert [(e.unit, e.path) for e in only(evs, E.UnitAdvanced)] == [
        ("T", ["0505", "0506"]), ("I1", ["0505"]), ("I2", ["0505"])]
    assert t.hex_of("T") == "0506"


def test_9_6_4_no_second_hex_when_the_first_is_in_an_ezoc(pz_game):
    # 9.6(4) / 6.2: S2 in 0605 projects a ZOC into 0505: the tank stops there.
    t = pz_game("kharkov", [G("T", 6, 4, "0404", type="armour"), S("S", 1, 4, "0505"), S("S2", 1, 4, "0605")],
                dice=[1])
    t.goto(1, GER_COMBAT)
    t.ok("german", "attack 0505 with T")
    t.ok("german", "end")
    assert t.state().decision.options == [["T", "0505"]]
    t.refuse("german", "advance T 0505 0506", rule="9.6")


def test_9_6_1_no_advance_after_an_exchange(pz_game):
    t = pz_game("kharkov", [G("T", 6, 4, "0404", type="armour"), G("I", 2, 4, "0504"), S("S", 1, 4, "0505")],
                dice=[6])
    t.goto(1, GER_COMBAT)
    t.ok("german", "attack 0505 with T I ex I advance T")
    evs = t.ok("german", "end")
    assert t.unit("S").eliminated and not only(evs, E.UnitAdvanced) and t.hex_of("T") == "0404"


# ============================================================================
# 10.0 reinforcements
# ============================================================================

REIN = {"areas": [{"name": "A", "hexes": ["0101", "0102", "0103"], "units": ["R1", "R2", "R3"]}]}
REIN_R1 = {"areas": [{"name": "A", "hexes": ["0101", "0102", "0103"], "units": ["R1"]}]}


def test_10_0_reinforcements_enter_at_their_letter_with_full_ma(pz_game):
    # 10.0(1)-(5): German R1 due on turn 2 at "A"; placed at no MP cost, it moves its full MA.
    t = pz_game("kharkov", [S("S", 2, 4, "0808"), G("R1", 4, 4, entry_turn=2), G("R2", 4, 4, entry_turn=3),
                            G("R3", 4, 4, entry_turn=2)], game_data=REIN)
    t.goto(1, GER_MOVE)                                   # turn 1: nothing due, the phase passed
    t.goto(2, GER_REIN)
    [item] = t.awaiting()
    assert item["units"] == ["R1", "R3"] and item["options"][0] == "R1: 0101 0102 0103"
    t.refuse("german", "enter R2 0101", rule="10.0(1)")                 # not yet: no moving up
    t.refuse("german", "enter R1 0505", rule="10.0(4)")
    evs = t.ok("german", "enter R1 0102")
    assert one(evs, E.ReinforcementEntered) == E.ReinforcementEntered(unit="R1", hex="0102", rule="10.0(3)")
    evs = t.ok("german", "end")                                          # R3 waits by choice (10.0(2))
    assert one(evs, E.ReinforcementDelayed) == E.ReinforcementDelayed(units=["R3"], count=1, rule="10.0(2)")
    ev = one(t.ok("german", "move R1 0202 0302 0402 0502"), E.UnitMoved)
    assert (ev.mp, ev.ma) == (4, 4)
    t.goto(3, GER_REIN)
    assert t.awaiting()[0]["units"] == ["R3", "R2"]


def test_10_0_4_blocked_entry_is_a_forced_delay(pz_game):
    # 10.0(4): not between two enemy units; stacking applies; when no hex is open the unit waits.
    # S1 (0201) and S2 (0103)... 0102 lies between 0101 (N) and 0103 (S); 0101 and 0103 hold Soviets.
    t = pz_game("kharkov", [S("S1", 2, 4, "0101"), S("S2", 2, 4, "0103"), G("R1", 4, 4, entry_turn=2)],
                game_data=REIN_R1)
    t.goto(2, GER_REIN)
    assert "no legal hex" in t.awaiting()[0]["options"][0]
    t.refuse("german", "enter R1 0102", rule="10.0(4)", match="between two enemy units")
    evs = t.ok("german", "end")
    assert one(evs, E.ReinforcementDelayed).forced is True


def test_10_0_4_entry_in_an_ezoc_pins_the_unit(pz_game):
    t = pz_game("kharkov", [S("S1", 2, 4, "0202"), G("R1", 4, 4, entry_turn=2)], game_data=REIN_R1)
    t.goto(2, GER_REIN)
    ent = one(t.ok("german", "enter R1 0103"), E.ReinforcementEntered)
    assert ent.pinned
    t.end()
    t.refuse("german", "move R1 0104", rule="10.0(4)")


# ============================================================================
# 4.x victory points
# ============================================================================

def test_4_1_4_2_control_and_charges(pz_game):
    # 4.1(2)/(3): cities start German; entering takes control.  4.2: the first Soviet charge into
    # a city hex scores 1 VP, kept when the Germans retake it ("Charged"), not scored twice.
    t = pz_game("kharkov", [S("S", 2, 6, "0304"), G("G", 2, 6, "0503")], rows=cities("0505"), victory=VP)
    assert t.state().control == {"0505": "german"}
    evs = t.ok("soviet", "move S 0404 0505 0605")                    # passing through takes control
    assert one(evs, E.HexControlled) == E.HexControlled(hex="0505", side="soviet", rule="4.1(2)",
                                                       marker="Charge & Control")
    assert one(evs, E.PointsScored).points == 1 and t.state().score == {"soviet": 1}
    t.goto(1, GER_MOVE)
    assert one(t.ok("german", "move G 0504 0505"), E.HexControlled).marker == "Charged"    # 4.2(3)
    assert t.state().control["0505"] == "german"
    t.goto(2, SOV_MOVE)
    t.ok("soviet", "move S 0705")
    t.goto(2, GER_MOVE)
    t.ok("german", "move G 0504 0503")
    t.goto(3, SOV_MOVE)
    evs = t.ok("soviet", "move S 0605 0505")
    assert one(evs, E.HexControlled).side == "soviet" and not only(evs, E.PointsScored)   # 4.2(2)
    assert t.state().score == {"soviet": 1}


def test_4_3_elimination_points(pz_game):
    t = pz_game("kharkov", [S("S", 9, 4, "0404"), G("G", 1, 4, "0505", type="mechanized"),
                            G("H", 1, 4, "0707")], dice=[1], victory=VP)
    t.goto(1, SOV_COMBAT)
    t.ok("soviet", "attack 0505 with S no-advance")
    evs = t.ok("soviet", "end")
    p = one(evs, E.PointsScored)
    assert (p.side, p.points, p.rule) == ("soviet", 2, "4.3")


def test_4_4_railroad_cut_once_per_turn(pz_game):
    # 4.4: entering an orange railroad hex in the Soviet movement phase: 2 VP once a turn; a
    # yellow (Rostov branch) hex alone: 1 VP; yellow then orange in the same turn: 2 in all.
    feats = {"railroad": ["0503", "0504"], "railroad_branch": ["0203", "0204"]}
    t = pz_game("kharkov", [S("S1", 2, 4, "0403"), S("S2", 2, 4, "0303"), S("S3", 2, 4, "0604"),
                            G("G", 2, 4, "0808")], features=feats, victory=VP)
    evs = t.ok("soviet", "move S2 0203")
    assert one(evs, E.PointsScored).points == 1
    evs = t.ok("soviet", "move S1 0503")
    assert one(evs, E.PointsScored).points == 1
    assert not only(t.ok("soviet", "move S3 0504"), E.PointsScored)
    assert t.state().score == {"soviet": 2}
    t.goto(2, SOV_MOVE)
    assert one(t.ok("soviet", "move S1 0502 0503"), E.PointsScored).points == 2


def test_4_5_sudden_death_at_poltava_any_moment(pz_game):
    # 4.5: a Soviet unit advancing into Poltava (0634) after combat ends the game at once.
    base = ["." * 8] * 36
    t = pz_game("kharkov", [S("S", 9, 4, "0633"), G("G", 1, 4, "0634"), G("H", 2, 4, "0101")],
                rows=cities("0634", base=base), dice=[1], victory={**VP, "sudden_death": ["0634"]})
    t.goto(1, SOV_COMBAT)
    t.ok("soviet", "attack 0634 with S advance S")
    evs = t.ok("soviet", "end")
    end = one(evs, E.GameEnded)
    assert (end.winner, end.rule) == ("soviet", "4.5")
    assert t.awaiting() == []


def test_4_0_end_of_game_city_points_and_draw(pz_game):
    # 4.0/4.1(1): after turn 8, 2 VP per controlled city hex; equal totals: a draw.
    t = pz_game("kharkov", [S("S", 2, 4, "0304"), G("G", 2, 4, "0707")], rows=cities("0505", "0606"), turns=1,
                victory=VP)
    t.ok("soviet", "move S 0404 0505")                  # +1 charge
    t.goto(1, GER_COMBAT)
    evs = t.end()
    pts = {(p.side, p.points) for p in only(evs, E.PointsScored)}
    assert pts == {("soviet", 2), ("german", 2)}
    end = one(evs, E.GameEnded)
    assert (end.winner, end.rule) == ("soviet", "4.0") and "Soviet 3 VP, German 2 VP" in end.reason
    t2 = pz_game("kharkov", [S("S", 2, 4, "0304"), G("G", 2, 4, "0707")], rows=cities("0606"), turns=1, name="g2",
                 victory=VP)
    t2.goto(1, GER_COMBAT)
    assert one(t2.end(), E.GameEnded).winner == "german"


def test_example_game_is_decided_and_verifies(played_example):
    # examples/kharkov: eight turns, the Soviet set-up, reinforcements of both sides, charges,
    # railroad cuts, EX results, and a Soviet victory on points (4.0).
    g = played_example("kharkov").game()             # played once per run (conftest)
    st = g.state()
    assert st.result is not None and st.result.winner == "soviet" and st.turn == 8
    assert st.score["soviet"] > st.score["german"]
    kinds = {e.kind for e in g.entries()}
    assert {"UnitSetUp", "ReinforcementEntered", "HexControlled", "PointsScored"} <= kinds
    results = {e.event.result for e in g.entries() if isinstance(e.event, E.CombatResolved)}
    assert "EX" in results
    assert g.verify().ok


def test_wording_a_charge_worth_nothing_and_orders_after_a_draw(pz_game):
    # issue 25 item 8: a scenario whose charge is worth 0 VP logs the charge (its mark counts,
    # 4.2(3)) without "+0 point(s)"; after a draw, orders are refused without "draw won"
    from pbem.core.orders import OrderError, parse_line
    from pbem.core.ruleset import Ctx
    from pbem.core.state import Result, copy_state
    t = pz_game("kharkov", [S("S", 2, 6, "0304"), G("G", 2, 6, "0503")], rows=cities("0505"),
                victory={**VP, "charge_vp": 0})
    p = one(t.ok("soviet", "move S 0404 0505"), E.PointsScored)
    words = t.game.rules.describe_event(p, t.game.scenario)
    assert "+0" not in words and words == "S charges into 0505 for the first time: no points for Soviet (4.2(1))."
    st = copy_state(t.state())
    st.result = Result(winner="draw", reason="Soviet 3 VP, German 3 VP: equal", rule="4.0")
    with pytest.raises(OrderError) as e:
        t.game.rules.handle(Ctx(t.game.rules, st, t.game.scenario, "soviet", None), parse_line("end"))
    assert str(e.value) == "the game is over: a draw (Soviet 3 VP, German 3 VP: equal)"
    from pbem.views import result_text                  # the state and STATUS lines: not "draw wins"
    assert result_text(t.game.scenario, {"winner": "draw", "reason": "equal", "rule": "4.0"}) == "a draw (equal, rule 4.0)"
