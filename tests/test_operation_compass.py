"""Operation Compass (Panzer Corps) rules, driven through the real engine.

Each test names the rule it checks (panzer-corps.txt, Operation Compass
section).  Small maps come from ``pz_game`` (conftest.py); the test CRT gives
1 DE, 2 DR1, 3 DR2, 4 AR, 5 AE, 6 EX (or C with ``crt6="C"``) whatever the
odds.  Phases: 0 British movement, 1 British combat, 2 Italian movement,
3 Italian combat.
"""
from __future__ import annotations

import pytest

from conftest import one, only, pz_units
from pbem.games.panzer_corps import events as E
from pbem.engine import Game
from pbem.games import ruleset_for
from pbem.core.scenario import lint, load

B = pz_units("british")
I = pz_units("italian")
BRIT_MOVE, BRIT_COMBAT, ITAL_MOVE, ITAL_COMBAT = range(4)
COAST = ["~~~~~~~~", "cccccccc"] + ["." * 8] * 6
ENTRY = ["0808", "0807", "0708", "0707", "0608", "0508"]
# The values printed in 3.1 and 4.0/4.2, which a scenario's tables give (the code holds none).
BOMBARD = {"bombardment": [3, 3, 3, 4, 4, 4], "bombardment_reach": 2}
VICTORY = {"british_losses_per_vp": 2, "tie_winner": "italian"}


# ============================================================================
# Shipped scenario
# ============================================================================

def test_shipped_scenario_lints_and_follows_the_rulebook():
    sc = load("operation-compass")
    rules = ruleset_for(sc.game)
    assert lint(sc, set(rules.result_codes)) == [] and rules.lint(sc) == []
    assert sc.turns == 5                                                            # 4.0, 5.0
    assert [(p.side, p.name) for p in sc.sequence] == [
        ("british", "movement"), ("british", "combat"), ("italian", "movement"), ("italian", "combat")]
    brit = [u for u in sc.units if u.side == "british"]
    ital = [u for u in sc.units if u.side == "italian"]
    # 2.2(1): British 9 brown (tanks) / 13 light brown; Italian 4 green (tanks) / 14 light green
    assert (sum(u.type == "armour" for u in brit), sum(u.type != "armour" for u in brit)) == (9, 13)
    assert (sum(u.type == "armour" for u in ital), sum(u.type != "armour" for u in ital)) == (4, 14)
    assert sorted(sc.game_data["s_units"]) == sorted(u.id for u in ital if u.type == "armour")   # 3.0(3)
    assert all(u.hex is None for u in brit)                                        # 3.0(4), 3.2
    assert rules.footholds(sc) == {"1702": 1, "0904": 1, "0107": 2, "0115": 2}   # 4.1(1)
    assert sorted(sc.map.features["foothold"].hexes) == ["0107", "0115", "0904", "1702"]
    assert sc.game_data["supply"]["italian"] == [f"01{r:02d}" for r in range(5, 19)]      # 4.3(2)
    brit_src = sc.game_data["supply"]["british"]
    assert brit_src[0] == "2905" and brit_src[-1] == "2217"                               # 4.3(2)
    assert len(sc.map.features["british_entry"].hexes) == 6                              # 3.2(1)
    terrains = set(sc.board.terrain.values())
    assert {"clear", "coast", "hills", "sea"} <= terrains
    assert {"road", "lane", "battle_position", "town"} <= set(sc.map.features)
    assert any(hs.feature == "cliff" for hs in sc.map.hexsides)


def test_3_0_shipped_set_up_sequence_to_the_first_move(tmp_path):
    # 3.0(3) -> 3.1 -> 3.2 with the documented defaults for every choice.
    g = Game.create(tmp_path / "oc", "operation-compass", dice=[5])
    for side, kind in (("italian", "set-up"), ("british", "bombardment"), ("british", "entry")):
        st = g.state()
        assert st.decision is not None and (st.decision.side, st.decision.kind) == (side, kind)
        lines = g.rules.default_orders(st, g.scenario, side)
        assert g.submit(side, "\n".join(lines)).refused is None
    st = g.state()
    assert st.decision is None and (st.turn, st.phase) == (1, BRIT_MOVE)
    assert sum(u.disrupted for u in st.units.values()) == 4                        # die 5: four units (3.1(1))
    assert all(u.hex in g.scenario.map.features["british_entry"].hexes
               for u in st.units.values() if u.side == "british")
    assert g.verify().ok


# ============================================================================
# 3.0-3.2 set-up
# ============================================================================

def setup_game(pz_game, dice):
    units = [I("I1", 2, 4, "0303"), I("I2", 2, 4, "0404"), I("I4", 2, 4, "0604"), I("I3", 2, 4, "0507"),
             I("SA", 3, 6, type="armour", entry_turn=0), I("SB", 3, 6, type="armour", entry_turn=0),
             B("B1", 4, 4, entry_turn=0), B("B2", 4, 4, entry_turn=0), B("B3", 4, 4, entry_turn=0)]
    return pz_game("operation-compass", units, rows=COAST, dice=dice,
                   features={"foothold": ["0306", "0606"], "town": ["0703"], "battle_position": ["0205"],
                             "british_entry": ENTRY},
                   game_data={"s_units": ["SA", "SB"], "footholds": {"0306": 1, "0606": 2},
                              "supply": {"italian": ["0101"], "british": ["0808"]}, **BOMBARD})


def test_3_0_3_italian_s_battalions_alone_in_footholds_towns_battle_positions(pz_game):
    t = setup_game(pz_game, dice=[2])
    d = t.state().decision
    assert (d.side, d.kind, d.units, d.rule) == ("italian", "set-up", ["SA", "SB"], "3.0(3)")
    assert t.awaiting()[0]["options"] == ["SA: 0205 0306 0606 0703", "SB: 0205 0306 0606 0703"]
    t.refuse("british", "place B1 0808", match="waits for Italian")
    t.refuse("italian", "place SA 0404", rule="3.0(3)")                 # not a foothold, town or BP
    t.ok("italian", "place SA 0306")
    t.refuse("italian", "place SB 0306", rule="3.0(3)")                 # never stacked with an Italian unit
    evs = t.ok("italian", "place SB 0703")
    assert one(evs, E.BombardmentRolled) == E.BombardmentRolled(rolls=[2], count=3, rule="3.1(1)")


def test_3_1_bombardment_targets_within_two_hexes_of_the_coast(pz_game):
    # 3.1(1)-(3): die 2: three units; only Italian units within two hexes of the coast (their own
    # hex counted, the coast not): I1 (row 3), I2, I4 (row 4) and SB (0703); not I3 (row 7) nor SA (row 6).
    t = setup_game(pz_game, dice=[2])
    t.ok("italian", "place SA 0306\nplace SB 0703")
    d = t.state().decision
    assert (d.side, d.kind, d.distance, d.rule) == ("british", "bombardment", 3, "3.1(3)")
    assert d.units == ["I1", "I2", "I4", "SB"]
    t.refuse("british", "bombard I1 I2", rule="3.1(3)")
    t.refuse("british", "bombard I1 I2 I3", rule="3.1(2)")
    evs = t.ok("british", "bombard I1 I2 SB")
    assert one(evs, E.UnitsDisrupted).units == ["I1", "I2", "SB"]
    assert t.unit("SB").disrupted and not t.unit("I4").disrupted
    d = t.state().decision
    assert (d.side, d.kind, d.units, d.rule) == ("british", "entry", ["B1", "B2", "B3"], "3.2(1)")


def test_3_1_four_units_on_4_to_6_and_all_when_too_few(pz_game):
    # 3.1(1): a 4-6 lets the British disrupt four units; with four or fewer in reach, all of them.
    t = setup_game(pz_game, dice=[5])
    evs = t.ok("italian", "place SA 0306\nplace SB 0703")
    assert one(evs, E.BombardmentRolled).count == 4
    assert one(evs, E.UnitsDisrupted).units == ["I1", "I2", "I4", "SB"]     # exactly four in reach
    assert t.state().decision.kind == "entry"
    units = [I("I1", 2, 4, "0303"), I("I2", 2, 4, "0404"), I("I4", 2, 4, "0604"), I("I5", 2, 4, "0203"),
             I("SA", 3, 6, type="armour", entry_turn=0), B("B1", 4, 4, entry_turn=0)]
    t2 = pz_game("operation-compass", units, rows=COAST, dice=[5], name="five",
                 features={"town": ["0703"], "british_entry": ENTRY},
                 game_data={"s_units": ["SA"], "footholds": {}, **BOMBARD})
    t2.ok("italian", "place SA 0703")
    d = t2.state().decision
    assert (d.kind, d.distance, len(d.units)) == ("bombardment", 4, 5)
    t2.ok("british", "bombard I1 I2 I4 I5")


def test_3_2_british_entry_ignores_stacking_then_the_limit_applies(pz_game):
    # 3.2(1)/(2): every British unit goes to the six entry hexes, stacking ignored; 7.1/7.3: from
    # the end of the first British movement phase the limit of two applies again.
    t = setup_game(pz_game, dice=[2])
    t.ok("italian", "place SA 0306\nplace SB 0703")
    t.ok("british", "bombard I1 I2 SB")
    t.refuse("british", "place B1 0505", rule="3.2(1)")
    t.refuse("british", "end", match="place UNIT HEX")
    t.ok("british", "place B1 0808\nplace B2 0808")
    evs = t.ok("british", "place B3 0808")
    assert one(evs, E.UnitSetUp).hex == "0808"
    assert t.state().decision is None and t.phase() == (1, BRIT_MOVE)
    evs = t.ok("british", "end")
    d = one(evs, E.DecisionRequired)
    assert (d.side, d.decision, d.units, d.distance, d.rule) == ("british", "stack-loss", ["B1", "B2", "B3"], 1, "7.3")
    evs = t.ok("british", "lose B3")
    assert one(evs, E.UnitEliminated).rule == "7.3" and t.phase() == (1, BRIT_COMBAT)


def test_3_2_3_italians_never_enter_entry_hexes_nor_project_zoc_into_them(pz_game):
    # 3.2(3): B in the entry hex 0707 touches I (0706) but is in no Italian ZOC, so it may move
    # straight into 0606, which is; C in 0605, an ordinary hex next to I, may not (6.1).
    t = pz_game("operation-compass", [I("I", 2, 4, "0706"), B("B", 4, 4, "0707"), B("C", 4, 4, "0605")],
                features={"british_entry": ENTRY})
    assert one(t.ok("british", "move B 0606"), E.UnitMoved).path == ["0606"]
    t.refuse("british", "move C 0606", rule="6.1")
    t.goto(1, ITAL_MOVE)
    t.refuse("italian", "move I 0707", rule="3.2(3)")


# ============================================================================
# 8.3, 9.3 terrain; cliffs
# ============================================================================

def test_8_3_3_6_4_cliffs_block_movement_attacks_and_zoc(pz_game):
    # 8.3(3): no crossing; 9.3: no attack across; 6.4: no ZOC across.  Cliffs run along
    # 0404|0405 and 0404|0504; I stands in 0405.
    t = pz_game("operation-compass", [B("B", 4, 4, "0404"), I("I", 2, 4, "0405")],
                hexsides=[("0404", "0405", "cliff"), ("0404", "0504", "cliff")])
    t.refuse("british", "move B 0504", rule="8.3(3)", match="cliff")
    # I's ZOC does not cross the cliff into 0404, so B does not start in an EZOC: it may go to
    # 0304 and on into 0305, next to I (where it stops, 6.1).
    ev = one(t.ok("british", "move B 0304 0305"), E.UnitMoved)
    assert ev.mp == 2
    t2 = pz_game("operation-compass", [B("B", 4, 4, "0404"), I("I", 2, 4, "0405")], name="g2",
                 hexsides=[("0404", "0405", "cliff")])
    t2.goto(1, BRIT_COMBAT)
    t2.refuse("british", "attack 0405 with B", rule="9.3", match="cliff")


@pytest.mark.parametrize("where, doubled", [("hills", True), ("bp", True), ("clear", False)])
def test_9_3_hills_and_battle_positions_double_any_defender(pz_game, where, doubled):
    rows = ["." * 8] * 8
    feats = {}
    if where == "hills":
        rows[4] = "....h..."
    elif where == "bp":
        feats = {"battle_position": ["0505"]}
    t = pz_game("operation-compass", [I("I", 6, 4, "0404"), B("B", 3, 4, "0505")], rows=rows, features=feats,
                dice=[6])
    t.goto(1, ITAL_COMBAT)
    t.ok("italian", "attack 0505 with I")
    c = one(t.ok("italian", "end"), E.CombatResolved)
    assert c.defence_strength == (6 if doubled else 3)


def test_8_3_1_roads_and_lanes_cost_one_through_hills(pz_game):
    rows = ["." * 8] * 8
    rows[3] = "...hh..."
    # 8.3(1)/(2): 0404 and 0504 are hills; along the road 0304-0404 and the lane 0404-0504 each
    # step costs 1; C entering 0404 from 0403, off the road, pays the hills' 2.
    t = pz_game("operation-compass", [B("B", 4, 2, "0304"), B("C", 4, 2, "0403"), I("I", 2, 4, "0808")], rows=rows,
                features={"road": ["0304", "0404"], "lane": ["0404", "0504"]})
    assert one(t.ok("british", "move B 0404 0504"), E.UnitMoved).mp == 2
    t.refuse("british", "move C 0404 0504", rule="8.2(1)")


# ============================================================================
# 9.4 C and EX, 9.6 tanks, 9.7(4) disrupted units
# ============================================================================

def test_9_4_3_contact(pz_game):
    t = pz_game("operation-compass", [B("B", 6, 4, "0404"), I("I", 2, 4, "0505")], dice=[6], crt6="C")
    t.goto(1, BRIT_COMBAT)
    t.ok("british", "attack 0505 with B")
    evs = t.ok("british", "end")
    assert one(evs, E.CombatResolved).result == "C"
    assert not only(evs, E.UnitEliminated) and t.hex_of("I") == "0505"


def test_9_4_4_exchange(pz_game):
    t = pz_game("operation-compass", [B("B1", 6, 4, "0404"), B("B2", 2, 4, "0504"), I("I", 2, 4, "0505")],
                dice=[6])
    t.goto(1, BRIT_COMBAT)
    t.ok("british", "attack 0505 with B1 B2 ex B2")
    evs = t.ok("british", "end")
    assert [(e.unit, e.rule) for e in only(evs, E.UnitEliminated)] == [("B2", "9.4(4)"), ("I", "9.4(4)")]
    assert not only(evs, E.UnitAdvanced)


def test_9_6_3_tank_second_hex(pz_game):
    t = pz_game("operation-compass", [B("T", 6, 4, "0404", type="armour"), B("N", 6, 4, "0504"),
                                      I("I", 1, 4, "0505")], dice=[1])
    t.goto(1, BRIT_COMBAT)
    t.ok("british", "attack 0505 with T N advance T 0505 0605 N")
    evs = t.ok("british", "end")
    assert [(e.unit, e.path) for e in only(evs, E.UnitAdvanced)] == [("T", ["0505", "0605"]), ("N", ["0505"])]


def test_9_7_4_disrupted_units_may_be_attacked(pz_game):
    # 9.7(4): unlike the other three games, a disrupted unit may be attacked at its normal strength:
    # here an Italian unit disrupted by the naval bombardment, on the first British turn.
    units = [I("I1", 2, 4, "0304"), I("SA", 3, 6, type="armour", entry_turn=0), B("B1", 6, 4, entry_turn=0)]
    t = pz_game("operation-compass", units, rows=COAST, dice=[2, 3],
                features={"foothold": ["0606"], "british_entry": ["0404", "0808", "0807", "0708", "0707", "0608"]},
                game_data={"s_units": ["SA"], "footholds": {"0606": 1}, **BOMBARD})
    t.ok("italian", "place SA 0606")
    assert t.unit("I1").disrupted                                      # the only unit in reach
    t.ok("british", "place B1 0404")
    t.goto(1, BRIT_COMBAT)
    t.ok("british", "attack 0304 with B1 no-advance")
    evs = t.ok("british", "end")
    c = one(evs, E.CombatResolved)
    assert (c.defenders, c.defence_strength, c.result) == (["I1"], 2, "DR2")


# ============================================================================
# 4.x victory
# ============================================================================

# Row 04 is a corridor; 0808, cut off by the sea, is a second foothold the Italians keep without a
# line (so holding 0404 is not "all the footholds", 4.4).
CORRIDOR = ["~~~~~~~~", "~~~~~~~~", "~~~~.~~~", "........", "~~~~~~~~", "~~~~~~~~", "~~~~~~~~", "~~~~~~~."]
ONE_HOLD = {"footholds": {"0404": 1, "0808": 1}, "supply": {"british": ["0804"], "italian": ["0104"]}}


def test_4_3_3_a_friendly_unit_keeps_the_line_through_an_ezoc(pz_game):
    # 4.1(2)/(4), 4.3(3): B1 takes the foothold 0404; its line east runs through 0504, in the
    # ZOC of Italian I (0503).  With B2 standing in 0504 the line holds: 1 VP, British win.
    units = [B("B1", 4, 4, "0304"), B("B2", 4, 4, "0504"), I("I", 2, 4, "0503")]
    t = pz_game("operation-compass", units, rows=CORRIDOR, features={"foothold": ["0404", "0808"]}, game_data=ONE_HOLD,
                turns=1)
    t.ok("british", "move B1 0404")
    assert t.state().control == {"0404": "british", "0808": "italian"}
    t.goto(1, ITAL_COMBAT)
    evs = t.end()
    line, cut = only(evs, E.ConnectingLine)
    assert not cut.traced and cut.start == "0808"
    assert line.traced and line.path == ["0404", "0504", "0604", "0704", "0804"]
    end = one(evs, E.GameEnded)
    assert (end.winner, end.reason) == ("british", "British 1 VP, Italian 0 VP")


def test_4_1_4_without_a_line_the_foothold_scores_nothing_and_a_tie_goes_to_italy(pz_game):
    units = [B("B1", 4, 4, "0304"), B("B2", 4, 4, "0704"), I("I", 2, 4, "0503")]
    t = pz_game("operation-compass", units, rows=CORRIDOR, features={"foothold": ["0404", "0808"]}, game_data=ONE_HOLD,
                turns=1, victory=VICTORY)
    t.ok("british", "move B1 0404")
    t.goto(1, ITAL_COMBAT)
    evs = t.end()
    assert [x.traced for x in only(evs, E.ConnectingLine)] == [False, False]
    end = one(evs, E.GameEnded)
    assert end.winner == "italian" and "tie goes to the Italians" in end.reason


def test_4_2_half_the_british_units_eliminated_fractions_dropped(pz_game):
    # 4.2: the Italians score half the British units eliminated, fractions dropped: one unit 0 VP,
    # three units 1 VP.
    def game(n: int, name: str):
        units = [I("I1", 9, 4, "0303"), I("I2", 9, 4, "0503"), I("I3", 9, 4, "0703"),
                 B("B1", 1, 4, "0304"), B("B2", 1, 4, "0504"), B("B3", 1, 4, "0704")]
        t = pz_game("operation-compass", units, dice=[1] * n, turns=1, name=name,
                    game_data={"footholds": {}}, victory=VICTORY)
        t.goto(1, ITAL_COMBAT)
        t.ok("italian", "\n".join(f"attack {h} with I{i} no-advance"
                                   for i, h in enumerate(["0304", "0504", "0704"][:n], start=1)))
        return t.ok("italian", "end")
    evs = game(1, "one")
    assert not only(evs, E.PointsScored)
    assert one(evs, E.GameEnded).reason == "British 0 VP, Italian 0 VP: a tie goes to the Italians"
    evs = game(3, "three")
    p = one(evs, E.PointsScored)
    assert (p.side, p.points, p.rule) == ("italian", 1, "4.2")
    assert one(evs, E.GameEnded).winner == "italian"


def test_4_4_british_sudden_death_with_all_four_footholds(pz_game):
    holds = {"0303": 1, "0305": 1, "0505": 2, "0507": 2}
    units = [B(f"B{i}", 2, 4, h) for i, h in enumerate(["0203", "0205", "0405", "0407"], start=1)] + \
            [I("I", 2, 4, "0808")]
    t = pz_game("operation-compass", units, features={"foothold": list(holds)},
                game_data={"footholds": holds, "supply": {"british": ["0801"], "italian": ["0101"]}})
    t.ok("british", "move B1 0303\nmove B2 0305\nmove B3 0505")
    assert t.state().result is None
    evs = t.ok("british", "move B4 0507")
    end = one(evs, E.GameEnded)
    assert (end.winner, end.rule) == ("british", "4.4")


def test_3_2_3_6_2_no_italian_attack_into_an_entry_hex(pz_game):
    # 6.2: units attack enemies in their ZOC; 3.2(3): the Italian ZOC does not reach the entry hexes.
    t = pz_game("operation-compass", [I("I", 6, 4, "0706"), B("B", 2, 4, "0707"), B("C", 2, 4, "0605")],
                features={"british_entry": ENTRY}, dice=[1])
    t.goto(1, ITAL_COMBAT)
    t.refuse("italian", "attack 0707 with I", rule="6.2", match="entry hex")
    t.ok("italian", "attack 0605 with I no-advance")


def test_example_game_plays_through_pbem_play_and_verifies(played_example):
    # examples/operation-compass through the README's `pbem play` (playbook.play): the set-up
    # sequence, five turns, the footholds' connecting lines and a decided result (4.0).
    ex = played_example("operation-compass")        # played once per run by playbook.play (conftest)
    out = ex.summary
    assert "Italian wins" in out and "verified" in out
    g = ex.game()
    st = g.state()
    assert st.result.rule == "4.0" and st.turn == 5
    kinds = {e.kind for e in g.entries()}
    assert {"BombardmentRolled", "UnitsDisrupted", "UnitSetUp", "ConnectingLine", "SeedRevealed"} <= kinds
    assert (ex.dir / "reports" / "99-final-referee.txt").exists()
