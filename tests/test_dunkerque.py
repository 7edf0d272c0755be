"""Dunkerque (Panzer Corps) rules, driven through the real engine.

Each test names the rule it checks (panzer-corps.txt, Dunkerque section).
Most tests build a small map with ``pz_game`` (conftest.py): 8 x 8 clear
hexes, north-up, so the printed west edge is column 01 and the south edge
row 08; the test CRT gives 1 DE, 2 DR1, 3 DR2, 4 AR, 5 AE, 6 C whatever the
odds.  Phases: 0 German movement, 1 German combat, 2 Allied movement,
3 Allied combat.
"""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from conftest import SHUFFLE, one, only, pz_units
from pbem.games.panzer_corps import events as E
from pbem.report import render
from pbem.games import ruleset_for
from pbem.core.ruleset import secret_commitment
from pbem.core.scenario import lint, load
from pbem.views import log_view, state_view

ROOT = Path(__file__).resolve().parent.parent
G = pz_units("german")
F = pz_units("allied", "french")
GER_MOVE, GER_COMBAT, ALL_MOVE, ALL_COMBAT = 0, 1, 2, 3
R_UNITS = [f"R{i}" for i in range(1, 8)]


def drawn(rolls: list[int], pool: list[str] = R_UNITS) -> list[str]:
    """The slot order the engine's Fisher-Yates shuffle makes from these rolls (10.0(2))."""
    pool = list(pool)
    for k, i in enumerate(range(len(pool) - 1, 0, -1)):
        j = rolls[k] - 1
        pool[i], pool[j] = pool[j], pool[i]
    return pool


def r_units(ma: int = 4) -> list[dict]:
    return [F(uid, 2, ma, entry_turn=0) for uid in R_UNITS]


SLOTS = [2, 3, 3, 4, 4, 5, 5]                   # 3.0(4): one on turn 2, two on each of turns 3 to 5
HIDDEN = {"hidden_reinforcements": R_UNITS, "hidden_slots": SLOTS}
# The victory values printed in 4.0-4.2, which a scenario's [victory] table gives (the code holds none).
# A test map names the ports it has (lint: each port of victory.ports is a place of the map).
VICTORY = {"german_points_needed": 35, "points_per_allied_cs": 1, "points_per_german_cs": -2,
           "ports": [], "port_capacity": 5}
PORT = {"places": [("Dunkerque", ["0505"])], "victory": {"ports": ["Dunkerque"]}}   # a port in 0505


# ============================================================================
# Shipped scenario
# ============================================================================

def test_shipped_scenario_lints_and_follows_the_rulebook():
    # 2.2(1) 25 German, 17 French, 5 British, 4 Belgian; 5.0 six turns; 3.0(4) seven R units.
    sc = load("dunkerque")
    rules = ruleset_for(sc.game)
    assert lint(sc, set(rules.result_codes)) == [] and rules.lint(sc) == []
    by_nat: dict[str, int] = {}
    for u in sc.units:
        by_nat[u.nationality] = by_nat.get(u.nationality, 0) + 1
    assert by_nat == {"german": 25, "french": 17, "british": 5, "belgian": 4}
    assert sc.turns == 6 and sc.turn_track[0].label == "14-15 May"           # 3.0(5), 5.0
    assert [(p.side, p.name) for p in sc.sequence] == [
        ("german", "movement"), ("german", "combat"), ("allied", "movement"), ("allied", "combat")]
    assert len(sc.game_data["hidden_reinforcements"]) == 7
    assert all(sc.unit_defs[u].hex is None for u in sc.game_data["hidden_reinforcements"])
    assert sc.board.terrain["0607"] == "city"                                  # errata: Leuven
    assert sc.board.places["0607"] == "Leuven"
    terrains = set(sc.board.terrain.values())
    assert {"clear", "city", "coast", "port", "forest", "marsh", "highlands", "sea"} <= terrains   # 8.3
    assert any(hs.feature == "river" for hs in sc.map.hexsides)                # 8.3(4)
    ports = {sc.board.places[h] for h, t in sc.board.terrain.items() if t == "port"}
    assert {"Boulogne", "Calais", "Dunkerque", "Ostende", "Antwerpen"} <= ports    # 4.2(1)
    assert sc.reconstructed and sc.map.reconstructed and sc.crt.reconstructed


def test_shipped_map_edges_are_the_printed_west_and_south():
    # 4.1(1), 10.0(3): the printed map has north to the left; its west edge is the grid's
    # bottom row, its south edge the grid's last column (see the scenario notes).
    sc = load("dunkerque")
    assert sc.game_data["map_edges"] == {"west": "south", "south": "east"}
    rules = ruleset_for("dunkerque")
    assert rules.edge(sc, "west") == "south" and rules.edge(sc, "south") == "east"


# ============================================================================
# 8.3 movement
# ============================================================================

def test_8_3_4_crossing_a_river_costs_one_more_mp(pz_game):
    # 8.3(1)/(4): clear 1 MP; across the river 0404|0405 it is 1 + 1.
    t = pz_game("dunkerque", [G("G", 4, 4, "0404"), F("A", 2, 4, "0808")], hexsides=[("0404", "0405", "river")])
    ev = one(t.ok("german", "move G 0405 0406"), E.UnitMoved)
    assert ev.mp == 3
    t2 = pz_game("dunkerque", [G("G", 4, 2, "0404"), F("A", 2, 4, "0808")], name="g2",
                 hexsides=[("0404", "0405", "river")])
    t2.refuse("german", "move G 0405 0406", rule="8.2(1)")


@pytest.mark.parametrize("terrain, cost", [("f", 2), ("m", 2), ("h", 2), ("C", 1), ("P", 1), ("c", 1)])
def test_8_3_terrain_costs(pz_game, terrain, cost):
    # 8.3(1)/(2): clear, city, coast, port 1 MP; forest, marsh, highlands 2 MP.
    rows = ["." * 8] * 8
    rows[4] = "...." + terrain + "..."                 # hex 0505
    t = pz_game("dunkerque", [G("G", 4, 4, "0404"), F("A", 2, 4, "0808")], rows=rows,
                **(PORT if terrain == "P" else {}))
    assert one(t.ok("german", "move G 0505"), E.UnitMoved).mp == cost


def test_8_3_3_the_sea_may_not_be_entered(pz_game):
    rows = ["~" * 8] + ["." * 8] * 7
    t = pz_game("dunkerque", [G("G", 4, 4, "0402"), F("A", 2, 4, "0808")], rows=rows)
    t.refuse("german", "move G 0401", rule="8.3")


def test_7_0_7_1_no_stacking_at_the_end_of_the_movement_phase(pz_game):
    # 7.0: one unit a hex, 7.1: counted when the movement phase ends (no 7.3 in Dunkerque): G may
    # end on H, which has not moved, but end is refused until H leaves; a unit that has moved
    # already cannot make room, so nobody may stay on it.
    t = pz_game("dunkerque", [G("G", 4, 4, "0404"), G("H", 4, 4, "0405"), G("K", 4, 4, "0507"),
                              F("A", 2, 4, "0808")])
    t.ok("german", "move G 0405")
    err = t.refuse("german", "end", rule="7.1", match="0405 holds G, H")
    assert "one unit a hex (7.0)" in err.message
    t.ok("german", "move H 0406")
    t.refuse("german", "move K 0406", rule="7.1", match="could not be moved out")
    t.ok("german", "end")
    assert t.phase() == (1, GER_COMBAT)


# ============================================================================
# 9.3 terrain effects on combat, 9.4 results
# ============================================================================

@pytest.mark.parametrize("terrain", ["C", "P"])
def test_9_3_city_and_port_double_the_defender(pz_game, terrain):
    rows = ["." * 8] * 8
    rows[4] = "...." + terrain + "..."
    t = pz_game("dunkerque", [G("G", 6, 4, "0404"), F("A", 3, 4, "0505")], rows=rows, dice=[6],
                **(PORT if terrain == "P" else {}))
    t.goto(1, GER_COMBAT)
    t.ok("german", "attack 0505 with G")
    c = one(t.ok("german", "end"), E.CombatResolved)
    assert (c.defence_strength, c.odds) == (6, "1:1")
    assert "9.3" in c.modifiers[0]


@pytest.mark.parametrize("terrain", ["f", "h", "m"])
def test_9_3_forest_highlands_marsh_do_not_double(pz_game, terrain):
    # 9.3: only cities and ports (and rivers) change a defender's strength in Dunkerque.
    rows = ["." * 8] * 8
    rows[4] = "...." + terrain + "..."
    t = pz_game("dunkerque", [G("G", 6, 4, "0404"), F("A", 3, 4, "0505")], rows=rows, dice=[6])
    t.goto(1, GER_COMBAT)
    t.ok("german", "attack 0505 with G")
    c = one(t.ok("german", "end"), E.CombatResolved)
    assert (c.defence_strength, c.odds, c.modifiers) == (3, "2:1", [])


def test_9_3_1_every_attacker_across_a_river_doubles(pz_game):
    # 9.3(1): G1 (0404) and G2 (0504) both attack 0505 across rivers: 3 -> 6.
    t = pz_game("dunkerque", [G("G1", 4, 4, "0404"), G("G2", 4, 4, "0504"), F("A", 3, 4, "0505")], dice=[6],
                hexsides=[("0404", "0505", "river"), ("0504", "0505", "river")])
    t.goto(1, GER_COMBAT)
    t.ok("german", "attack 0505 with G1 G2")
    c = one(t.ok("german", "end"), E.CombatResolved)
    assert (c.attack_strength, c.defence_strength, c.odds) == (8, 6, "1:1")
    assert "river" in c.modifiers[0] and "9.3(1)" in c.modifiers[0]


def test_9_3_1_one_attacker_not_across_the_river_cancels_it(pz_game):
    # 9.3(1): G2 attacks from 0504 with no river between: the defender keeps 3.
    t = pz_game("dunkerque", [G("G1", 4, 4, "0404"), G("G2", 4, 4, "0504"), F("A", 3, 4, "0505")], dice=[6],
                hexsides=[("0404", "0505", "river")])
    t.goto(1, GER_COMBAT)
    t.ok("german", "attack 0505 with G1 G2")
    c = one(t.ok("german", "end"), E.CombatResolved)
    assert (c.defence_strength, c.odds, c.modifiers) == (3, "2:1", [])


def test_9_3_2_city_across_a_river_is_doubled_only_once(pz_game):
    # 9.3(2): a city attacked across a river: x2, not x4.
    rows = ["." * 8] * 8
    rows[4] = "....C..."
    t = pz_game("dunkerque", [G("G", 12, 4, "0404"), F("A", 3, 4, "0505")], rows=rows, dice=[6],
                hexsides=[("0404", "0505", "river")])
    t.goto(1, GER_COMBAT)
    t.ok("german", "attack 0505 with G")
    c = one(t.ok("german", "end"), E.CombatResolved)
    assert (c.defence_strength, c.odds) == (6, "2:1")
    assert len(c.modifiers) == 2 and "only once" in c.modifiers[1]


def test_9_4_3_contact_changes_nothing(pz_game):
    # 9.4(3) C: no retreat, no elimination, no advance; nobody is disrupted.
    t = pz_game("dunkerque", [G("G", 6, 4, "0404"), F("A", 3, 4, "0505")], dice=[6])
    t.goto(1, GER_COMBAT)
    t.ok("german", "attack 0505 with G")
    evs = t.ok("german", "end")
    assert one(evs, E.CombatResolved).result == "C"
    assert not only(evs, E.UnitRetreated) and not only(evs, E.UnitEliminated) and not only(evs, E.DecisionRequired)
    st = t.state()
    assert (st.units["G"].hex, st.units["A"].hex) == ("0404", "0505")
    assert not st.units["A"].disrupted and t.phase() == (1, ALL_MOVE)


def test_9_6_1_one_unit_advances(pz_game):
    # 9.6(1): in Dunkerque one attacking unit may advance, and no second hex.
    t = pz_game("dunkerque", [G("G1", 6, 4, "0404"), G("G2", 6, 4, "0504"), F("A", 1, 4, "0505")], dice=[1])
    t.goto(1, GER_COMBAT)
    t.ok("german", "attack 0505 with G1 G2")
    t.ok("german", "end")
    assert t.state().decision.options == [["G1", "0505"], ["G2", "0505"]]
    t.refuse("german", "advance G1 G2", rule="9.6", match="at most 1")
    t.refuse("german", "advance G1 0505 0506", rule="9.6")
    t.ok("german", "advance G2")
    assert t.hex_of("G2") == "0505"


# ============================================================================
# 3.0(4), 10.0 hidden reinforcements
# ============================================================================

def test_3_0_4_the_r_units_are_drawn_face_down_with_the_dice(pz_game):
    # 3.0(4) / 10.0(2): the first order carries the draw: six rolls (d7 .. d2) shuffle the seven R
    # units onto turns 2, 3, 3, 4, 4, 5, 5; each slot is sealed for the referee.
    rolls = [3, 6, 1, 4, 2, 2]
    t = pz_game("dunkerque", [G("G", 4, 4, "0404")] + r_units(), game_data=HIDDEN, dice=rolls)
    evs = t.ok("german", "end")
    draw = one(evs, E.HiddenDraw)
    assert draw.rolls == rolls and draw.slots == SLOTS
    assert draw.units == drawn(rolls)
    seals = only(evs, E.SecretRecorded)
    assert [s.side for s in seals] == ["referee"] * 7
    assert [s.payload for s in seals] == draw.units
    assert all(s.commitment == secret_commitment(s.salt, s.payload) for s in seals)
    assert t.game.verify().ok
    # ...and only once
    assert not only(t.ok("german", "end"), E.HiddenDraw)


def test_10_0_2_nobody_but_the_referee_sees_the_draw(pz_game):
    # 10.0(2): not even the Allied player knows which unit waits on which turn; each side's log
    # and report show the number per turn; the referee sees the draw.
    rolls = [3, 6, 1, 4, 2, 2]
    t = pz_game("dunkerque", [G("G", 4, 4, "0404")] + r_units(), game_data=HIDDEN, dice=rolls)
    t.ok("german", "end")
    g = t.game
    entries = g.entries()
    order = drawn(rolls)
    for side in ("german", "allied"):
        rows = log_view(entries, side, g.rules)
        text = json.dumps(rows)
        view = json.dumps(state_view(g, g.state(), side, entries[-1].hash))
        report = render.report_text(g, side, g.state(), entries, 0, entries[-1].hash)
        svg = render.report_svg(g, side, g.state(), entries, 0, entries[-1].hash)
        draw = next(r for r in rows if r["kind"] == "HiddenDraw")["body"]
        assert draw == {"name": "R", "slots": [2, 3, 3, 4, 4, 5, 5]}
        for r in rows:
            if r["kind"] == "SecretRecorded":
                assert set(r["body"]) == {"side", "name", "commitment"}
        for blob in (text, view, report, svg):
            assert f"turn 2 {order[0]}" not in blob and f"2:{order[0]}" not in blob
        assert "1 on turn 2, 2 on turn 3, 2 on turn 4, 2 on turn 5" in report
        assert "face-down reinforcement" in report
    ref = render.report_text(g, "referee", g.state(), entries, 0, entries[-1].hash)
    assert f"turn 2 {order[0]}; turn 3 {order[1]}" in ref


def _to_allied_move(t, turn: int) -> None:
    t.goto(turn, ALL_MOVE)


def test_10_0_3_entry_on_the_south_edge_reveals_the_unit(pz_game):
    # 10.0(3)/(5): the Allied player names an empty south-edge hex; the slot is unveiled
    # (SecretRevealed against its commitment) and the unit enters with 1 MP spent.
    t = pz_game("dunkerque", [G("G", 4, 4, "0101")] + r_units(ma=4), game_data=HIDDEN, dice=SHUFFLE)
    t.goto(1, ALL_MOVE)
    assert t.state().decision is None                       # nothing due on turn 1
    t.goto(2, GER_COMBAT)
    t.end()
    st = t.state()
    d = st.decision
    assert (d.side, d.kind, d.distance, d.units, d.rule) == ("allied", "reinforcement", 1, [], "10.0(3)")
    [item] = t.awaiting()
    assert item["options"] == [f"0{c}08" for c in range(1, 9)] and "1 face-down" in item["kind"]
    t.refuse("allied", "move R1 0707", match="enter HEX")
    t.refuse("allied", "enter 0507", rule="10.0(3)", match="south map edge")
    t.refuse("allied", "enter 0508 0608", rule="10.0(1)")
    first = drawn(SHUFFLE)[0]
    evs = t.ok("allied", "enter 0508")
    rev = one(evs, E.SecretRevealed)
    assert (rev.side, rev.payload) == ("referee", first)
    sealed = next(e.event for e in t.game.entries() if isinstance(e.event, E.SecretRecorded)
                  and e.event.name == rev.name)
    assert secret_commitment(rev.salt, rev.payload) == sealed.commitment      # the draw was not changed
    assert "referee:R1-turn2" not in t.state().secrets                          # unveiled
    ent = one(evs, E.ReinforcementEntered)
    assert (ent.unit, ent.hex, ent.mp, ent.pinned) == (first, "0508", 1, False)
    # 10.0(5): MA 4 less the 1 MP spent entering
    t.refuse("allied", f"move {first} 0507 0506 0505 0504", rule="8.2(1)")
    ev = one(t.ok("allied", f"move {first} 0507 0506 0505"), E.UnitMoved)
    assert (ev.mp, ev.ma) == (3, 3)
    assert t.game.verify().ok


def test_10_0_4_entry_hex_rules(pz_game):
    # 10.0(4): no stacking, not between two German units, an EZOC is allowed but the unit
    # may not move this turn.  0508 has G1 (0407) to its north-west and G2 (0608) to its
    # south-east: between them.  0408 touches G1 only.
    units = [G("G1", 4, 4, "0407"), G("G2", 4, 4, "0608"), F("A", 2, 4, "0108")] + r_units()
    t = pz_game("dunkerque", units, game_data=HIDDEN, dice=SHUFFLE)
    t.goto(2, ALL_MOVE)
    t.refuse("allied", "enter 0108", rule="10.0(4)", match="full")
    t.refuse("allied", "enter 0508", rule="10.0(4)", match="between two enemy units")
    t.refuse("allied", "enter 0608", rule="10.0(4)", match="enemy unit")
    evs = t.ok("allied", "enter 0408")
    ent = one(evs, E.ReinforcementEntered)
    assert ent.pinned is True
    t.refuse("allied", f"move {ent.unit} 0308", rule="10.0(4)")


def test_10_0_7_delay_and_later_entry(pz_game):
    # 10.0(7): the Allied player may hold face-down units back (not bring them forward); held
    # units are due again, the earliest slot first.
    t = pz_game("dunkerque", [G("G", 4, 4, "0101")] + r_units(), game_data=HIDDEN, dice=SHUFFLE)
    t.goto(2, ALL_MOVE)
    evs = t.ok("allied", "delay")
    assert one(evs, E.ReinforcementDelayed).count == 1
    assert t.state().decision is None and t.awaiting()[0]["kind"] == "movement"
    t.goto(3, ALL_MOVE)
    assert t.state().decision.distance == 3                 # 1 held on turn 2 + 2 of turn 3
    order = drawn(SHUFFLE)
    evs = t.ok("allied", "enter 0208 0408")
    assert [e.unit for e in only(evs, E.ReinforcementEntered)] == order[:2]
    assert one(evs, E.ReinforcementDelayed).count == 1
    assert [e.name for e in only(evs, E.SecretRevealed)] == ["R1-turn2", "R2-turn3"]
    t.goto(4, ALL_MOVE)
    assert t.state().decision.distance == 3
    assert t.game.verify().ok


def test_10_0_default_is_to_delay(pz_game):
    # design: the documented deadline default for face-down units is to hold them back.
    t = pz_game("dunkerque", [G("G", 4, 4, "0101")] + r_units(), game_data=HIDDEN, dice=SHUFFLE)
    t.goto(2, ALL_MOVE)
    assert t.game.rules.default_orders(t.state(), t.game.scenario, "allied") == ["delay"]


# ============================================================================
# 4.x victory
# ============================================================================

def test_4_0_points_per_combat_strength(pz_game):
    # 4.0(1)/(2): +1 per Allied CS eliminated, -2 per German CS eliminated.
    t = pz_game("dunkerque", [G("G", 6, 4, "0404"), F("A", 3, 4, "0505"), G("G2", 2, 4, "0707"),
                              F("B", 8, 4, "0708")], dice=[1, 1], victory=VICTORY)
    t.goto(1, GER_COMBAT)
    t.ok("german", "attack 0505 with G no-advance")
    t.ok("german", "end")
    assert t.state().score == {"german": 3}
    t.goto(1, ALL_COMBAT)
    t.ok("allied", "attack 0707 with B no-advance")
    evs = t.ok("allied", "end")
    assert [p.points for p in only(evs, E.PointsScored)] == [-4]
    assert t.state().score == {"german": -1}


def _last_turn(t):
    t.goto(6, ALL_COMBAT)
    return t.ok("allied", "end")


def test_4_1_connecting_lines_at_the_end(pz_game):
    # 4.1(1)-(3): A1 in the open traces west; A2 is ringed by German ZOC: cut off and eliminated,
    # its 2 CS go to the German points; a unit standing in an EZOC may still trace from there.
    units = [F("A1", 3, 4, "0303"), F("A2", 2, 4, "0606"),
             G("G1", 2, 4, "0506"), G("G2", 2, 4, "0705"), G("G3", 2, 4, "0607"), G("G4", 2, 4, "0504")]
    t = pz_game("dunkerque", units, victory=VICTORY)
    evs = _last_turn(t)
    lines = {e.subject: e for e in only(evs, E.ConnectingLine)}
    assert lines["A1"].traced and lines["A1"].path[0] == "0303"
    assert not lines["A2"].traced
    assert one(evs, E.UnitEliminated).unit == "A2"
    assert t.state().score == {"german": 2}
    end = one(evs, E.GameEnded)
    assert (end.winner, end.rule) == ("allied", "4.0")


def test_4_1_3_a_friendly_unit_does_not_negate_the_ezoc(pz_game):
    # 4.1(3): A2 sits in 0204, in G's ZOC; A1 beyond it cannot trace through 0204 even though a
    # friendly unit stands there.  Map: column 01 is the west edge; G in 0203 also covers 0103/0104.
    rows = ["." * 8] * 8
    units = [F("A1", 3, 4, "0305"), F("A2", 3, 4, "0204"), G("G", 2, 4, "0203"),
             G("H1", 2, 4, "0206"), G("H2", 2, 4, "0307"), G("H3", 2, 4, "0405"), G("H4", 2, 4, "0403")]
    t = pz_game("dunkerque", units, rows=rows)
    st = t.state()
    rules = t.game.rules
    assert rules.trace(st, t.game.scenario, st.units["A1"]) is None
    st.units["G"].hex = None                                # without G's ZOC the way through 0204 is open
    assert "0204" in rules.trace(st, t.game.scenario, st.units["A1"])


def test_4_1_4_disrupted_german_units_have_no_zoc_at_the_end(pz_game):
    # 4.1(4): a German unit disrupted in the last Allied combat phase projects no ZOC.  A's only
    # way west is the corridor of row 04; G in 0403 covers it.  B attacks G (DR1) and retreats it
    # to 0303, still next to the corridor (0304), but disrupted: the line is open.
    rows = ["~~~~~~~~", "~~~~~~~~", "~~...~~~", "......~~", "~~~~~~~~", "~~~~~~~~", "~~~~~~~~", "~~~~~~~~"]
    units = [F("A", 3, 4, "0604"), G("G", 2, 4, "0403"), F("B", 8, 4, "0503")]
    t = pz_game("dunkerque", units, rows=rows, dice=[2])
    st = t.state()
    assert t.game.rules.trace(st, t.game.scenario, st.units["A"]) is None
    t.goto(6, ALL_COMBAT)
    t.ok("allied", "attack 0403 with B retreat 0303 no-advance")      # DR1: G disrupted in 0303
    evs = t.ok("allied", "end")
    assert t.hex_of("G") == "0303" and t.unit("G").disrupted
    line = next(e for e in only(evs, E.ConnectingLine) if e.subject == "A")
    assert line.traced and line.path == ["0604", "0504", "0404", "0304", "0204", "0104"]


def test_4_2_evacuation_through_ports_up_to_five_cs(pz_game):
    # 4.2: cut off from the edges, A1 (4 CS) and A2 (3 CS) reach the port 0505 only: 5 CS are
    # evacuated, 2 CS are lost and count for the Germans.
    rows = ["." * 8, "." * 8, "." * 8, "...~~~..", "...~P~..", "...~.~..", "...~.~..", "...~~~.."]
    units = [F("A1", 4, 4, "0506"), F("A2", 3, 4, "0507"), G("G", 2, 4, "0202")]
    t = pz_game("dunkerque", units, rows=rows, places=[("Dunkerque", ["0505"])],
                victory={**VICTORY, "ports": ["Dunkerque"]})
    evs = _last_turn(t)
    lines = {e.subject: e for e in only(evs, E.ConnectingLine)}
    assert lines["A1"].traced and lines["A2"].traced
    assert "0505" in lines["A1"].to
    assert not only(evs, E.UnitEliminated)
    assert [p.points for p in only(evs, E.PointsScored)] == [2]
    assert t.state().score == {"german": 2}


def test_4_2_2_cs_over_a_ports_capacity_scores_as_the_scenario_scores_an_eliminated_cs(pz_game):
    # 4.2(2): the excess is "considered eliminated", so it scores the scenario's points per
    # Allied CS eliminated (4.0(1)), and the capacity is the scenario's: here 3 CS a port, 2 a CS.
    rows = ["." * 8, "." * 8, "." * 8, "...~~~..", "...~P~..", "...~.~..", "...~.~..", "...~~~.."]
    units = [F("A1", 4, 4, "0506"), F("A2", 3, 4, "0507"), G("G", 2, 4, "0202")]
    t = pz_game("dunkerque", units, rows=rows, places=[("Dunkerque", ["0505"])],
                victory={**VICTORY, "ports": ["Dunkerque"], "points_per_allied_cs": 2, "port_capacity": 3})
    evs = _last_turn(t)
    # the strongest first: A1 gets 3 of its 4 CS away, 1 CS lost; the port is full for A2, cut off
    assert [(p.points, p.rule) for p in only(evs, E.PointsScored)] == [(1 * 2, "4.2(2)"), (3 * 2, "4.0(1)")]
    assert t.state().score == {"german": 8}


def test_4_0_thirty_five_points_win(pz_game):
    # 4.0: 35 points or more at the end of turn 6: German victory; 34 or fewer: Allied.
    units = [G("G", 2, 4, "0101")] + [F(f"A{i}", 7, 4, f"0{i}05") for i in range(2, 7)]
    t = pz_game("dunkerque", units, victory=VICTORY)
    t.game.rules  # the units are cut off by nothing: all trace
    evs = _last_turn(t)
    assert one(evs, E.GameEnded).winner == "allied"
    # 5 units of 7 CS ringed by the sea: 35 points
    rows = ["." * 8, "~~~~~~~~", "." * 8, "." * 8, "." * 8, "." * 8, "~~~~~~~~", "." * 8]
    units = [G("G", 2, 4, "0101")] + [F(f"A{i}", 7, 4, f"0{i}04") for i in range(2, 7)]
    rows = ["~~~~~~~~", "~......~", "~......~", "~......~", "~......~", "~~~~~~~~", "." * 8, "." * 8]
    units = [G("G", 2, 4, "0108")] + [F(f"A{i}", 7, 4, f"0{i}03") for i in range(2, 7)]
    t2 = pz_game("dunkerque", units, rows=rows, name="g2", victory=VICTORY)
    evs = _last_turn(t2)
    assert len(only(evs, E.UnitEliminated)) == 5
    end = one(evs, E.GameEnded)
    assert (end.winner, end.rule) == ("german", "4.0") and "35 points" in end.reason


# ============================================================================
# The example game
# ============================================================================

def test_example_game_is_decided_and_verifies(played_example):
    # examples/dunkerque: six turns to a German victory on points (4.0), every unit's connecting
    # line traced at the end (4.1, 4.2); verify re-runs every order.
    g = played_example("dunkerque").game()           # played once per run (conftest)
    st = g.state()
    assert st.result is not None and st.result.winner == "german" and st.result.rule == "4.0"
    assert st.turn == 6 and st.score["german"] >= 35
    entries = g.entries()
    lines = [e.event for e in entries if isinstance(e.event, E.ConnectingLine)]
    cut = {e.event.unit for e in entries if isinstance(e.event, E.UnitEliminated) and e.event.rule == "4.1(1)"}
    standing = {u.id for u in st.units.values() if u.side == "allied" and u.hex is not None}
    assert {ln.subject for ln in lines} == standing | cut                  # every Allied unit's line is reported
    assert any("evacuated" in ln.note for ln in lines) and any(not ln.traced for ln in lines)
    assert len([e for e in entries if isinstance(e.event, E.SecretRevealed)]) == 7   # every R unit entered
    assert any(isinstance(e.event, E.ReinforcementDelayed) for e in entries)        # one held back (10.0(7))
    assert g.verify().ok


def test_lint_catches_broken_dunkerque_data(tmp_path):
    # The linter checks what the rules rely on: Leuven a city (errata), a slot per R unit (3.0(4)),
    # the five ports (4.2(1)), river hexsides (8.3(4)), highlands not doubling (9.3).
    from pbem.core.scenario import loads
    text = (ROOT / "scenarios" / "dunkerque.toml").read_text()
    text = text.replace('hidden_reinforcements = ["2DCR", ', 'hidden_reinforcements = [')
    text = text.replace('name = "Calais"', 'name = "Kales"')
    text = text.replace('[terrain.highlands]\nmove_cost = 2', '[terrain.highlands]\ndefence = 2\nmove_cost = 2')
    sc = loads(text.encode(), "broken.toml")
    problems = ruleset_for("dunkerque").lint(sc)
    assert any("hidden_slots: 7 slots for 6 hidden reinforcements" in p for p in problems)
    assert any("units[2DCR]: off the map but not an R unit" in p for p in problems)
    assert any("victory.ports: the port Calais (4.2(1)) is not in map.places" in p for p in problems)
    assert any("map: port hexes 0624 belong to no port of victory.ports" in p for p in problems)
    assert any("terrain.highlands: defence 2, but in dunkerque it does not double" in p for p in problems)
