"""Paratroop: Crete rules (paratroop.txt, Crete part), driven through the real engine
on the shipped scenario with scripted dice.  Each test names the rule it checks.

Standard start (``start``): the German plan lands 7 units on the west map; the
Commonwealth places the units a test names where it says and every other unit
in the far south of the east map (three to a hex); the Germans unveil the plan
and drop I/StR..III/1 accurately (die 5, clear) on 0303, 0403 ... 0903.

West map neighbours (columns 01-14, "even-down"): an odd column c, row r touches
(c, r-1), (c, r+1), (c+-1, r-1), (c+-1, r); an even column touches (c, r-1),
(c, r+1), (c+-1, r), (c+-1, r+1).  0304 touches 0303 0305 0203 0204 0403 0404.

Tables (scenario): All Out 1:1 row 3 Ee, 1:2 row 3 Ca, 3:1 rows 1-2 De, row 3 Ca,
row 4 Ee; Limited 1:1 rows 1-3 Ca, row 4 Ne; Limited 3:1 rows 1-5 Ca.
"""
from __future__ import annotations

import json
from fractions import Fraction
from pathlib import Path

import pytest
from click.testing import CliRunner

from conftest import Table, events_of, one, only
from pbem.games.crete import events as E
from pbem.report import render
from pbem.cli import main
from pbem.engine import Game
from pbem.mechanics.pathcost import PathCost, fmt, frac
from pbem.core.scenario import load
from pbem.views import log_view, state_view

ROOT = Path(__file__).resolve().parent.parent
DROPS = ["I/StR", "II/StR", "III/StR", "IV/StR", "I/1", "II/1", "III/1"]
DROP_HEXES = ["0303", "0403", "0503", "0603", "0703", "0803", "0903"]
AIR_LANDING, G_MOVE, G_COMBAT, C_MOVE, C_COMBAT = 2, 3, 4, 5, 6


def far_setup(sc, keep: dict[str, str]) -> dict[str, str]:
    """Every Commonwealth unit: those in ``keep`` where given, the rest 3 a hex in the east map's south."""
    spots = [f"{c:02d}{r:02d}" for r in (8, 9) for c in range(27, 37)]
    out, i = {}, 0
    for u in sc.units:
        if u.side != "commonwealth":
            continue
        if u.id in keep:
            out[u.id] = keep[u.id]
        else:
            out[u.id] = spots[i // 3]
            i += 1
    return out


def new(tmp_path, dice, name="g") -> Table:
    return Table(Game.create(tmp_path / name, "crete", dice=list(dice), game_id=name, at="2026-01-01T00:00:00Z"))


def start(tmp_path, dice=(), keep=None, plan="west=7", drop=True, name="g", hexes=None) -> Table:
    """Set up and make the seven standard drops (they use seven 5s, put in front of ``dice``)."""
    t = new(tmp_path, ([5] * 7 if drop else []) + list(dice), name)
    t.ok("german", f"secret drop-plan {plan}\nend")
    setup = far_setup(t.game.scenario, keep or {})
    t.ok("commonwealth", "\n".join(f"place {u} {h}" for u, h in setup.items()) + "\nend")
    t.ok("german", "unveil drop-plan")
    if drop:
        t.ok("german", "\n".join(f"drop {u} {h}" for u, h in zip(DROPS, hexes or DROP_HEXES)))
    return t


def to_combat(t: Table, turn: int = 2) -> None:
    t.goto(turn, G_COMBAT)


# --- pathcost.py: exact fractions, roads along hexsides (4.2) ----------------------------

def test_pathcost_roads_are_hexsides_and_costs_are_exact_fractions():
    sc = load("crete")
    pc = PathCost(sc.board, lambda h: Fraction(sc.terrain[sc.board.terrain[h]].move_cost)
                  if not sc.terrain[sc.board.terrain[h]].impassable else None, blocked_features=["sea"])
    # 4.2: three road hexsides cost exactly one MP
    assert pc.path("0103", ["0203", "0303", "0403"]) == [Fraction(1, 3), Fraction(2, 3), Fraction(1)]
    # 0903-0904 is a road hexside; 0904-1004 is not (0904 is a road hex, 1004 is not on that road)
    assert pc.step("0903", "0904") == Fraction(1, 3)
    assert pc.step("0904", "1004") == 1
    # two road hexes touching without a road hexside between them: the terrain is paid (4.2)
    assert pc.is_road("0303", "0302") and not pc.is_road("0402", "0303")
    assert pc.step("0402", "0303") == 1
    # rough costs 2; all-sea hexes and the all-sea hexside may not be entered or crossed (4.8)
    assert pc.step("0403", "0504") == 2
    assert pc.step("0502", "0501") is None
    assert pc.step("1202", "1302") is None
    reach = pc.reachable("0103", 1)
    assert reach["0403"] == 1 and "0503" not in reach
    assert fmt(Fraction(7, 3)) == "2 1/3" and frac("2 1/3") == Fraction(7, 3) and fmt(Fraction(2, 3)) == "2/3"


# --- 1.0, 1.1: the drop plan ---------------------------------------------------------------

def test_drop_plan_must_be_sealed_and_valid_before_the_set_up(tmp_path):
    t = new(tmp_path, [])
    t.refuse("german", "end", rule="1.0", match="seal the drop plan")
    t.refuse("commonwealth", "place 22NZ 0303", rule="3.0", match="not your turn: the game waits for German")   # the kernel (core/turn.py)
    # 1.1: at least 7 airborne units on Game-Turn 1 (refused when sealed, or at the end of the step)
    sub = t.game.submit("german", "secret drop-plan west=3 centre=2\nend")
    assert sub.refused is not None and "at least 7" in sub.refused.message
    assert t.state().phase == 0


def test_drops_must_match_the_sealed_plan(tmp_path):
    t = start(tmp_path, drop=False, plan="west=1 centre=6", dice=[5, 5])
    t.refuse("german", "unveil drop-plan", match="no sealed secret")          # already open
    t.refuse("german", "drop I/StR 2803", rule="1.0", match="0 have")     # east: none planned
    t.ok("german", "drop I/StR 0303")
    t.refuse("german", "drop II/StR 0403", rule="1.0", match="west map")  # the west share is used up
    t.refuse("german", "end", rule="1.0, 1.1", match="centre: 0 of 6")
    t.ok("german", "drop II/StR 1703")


def test_drop_before_the_plan_is_opened_is_refused(tmp_path):
    t = new(tmp_path, [5])
    t.ok("german", "secret drop-plan west=7\nend")
    t.ok("commonwealth", "\n".join(f"place {u} {h}" for u, h in far_setup(t.game.scenario, {}).items()) + "\nend")
    t.refuse("german", "drop I/StR 0303", rule="1.0", match="unveil drop-plan")


# --- 5.0-5.8: airdrops ------------------------------------------------------------------------------

def test_drop_targets(tmp_path):
    t = start(tmp_path, drop=False, keep={"22NZ": "0304"})
    t.refuse("german", "drop I/StR 0304", rule="5.1")          # Commonwealth occupied
    t.refuse("german", "drop I/StR 0101", rule="5.1")          # all-sea
    t.refuse("german", "drop I/StR 1503", rule="5.8")          # the gap between maps / a track
    t.refuse("german", "drop I/85 0303", rule="5.0")           # a mountain unit does not drop


def test_scatter_off_the_map_into_sea_and_onto_three_germans(tmp_path):
    # die 1 on clear = Sc; scatter die 1 = N, 2 = NE (direction convention in the scenario)
    t = start(tmp_path, drop=False, plan="west=7",
              dice=[1, 1, 2, 2, 5, 5, 5, 1, 2, 6, 6])
    evs = t.ok("german", "drop I/StR 0502")                  # N of 0502 is 0501: all-sea
    assert one(evs, E.AirDropped).direction == "N"
    assert one(evs, E.UnitEliminated).rule == "5.3"
    evs = t.ok("german", "drop II/StR 1403")                 # NE of 1403 is 1503: the gap between maps
    assert one(evs, E.AirDropped).hex == "" and one(evs, E.UnitEliminated).reason == "scattered off the map"
    t.ok("german", "drop III/StR 0703\ndrop IV/StR 0703\ndrop I/1 0703")
    evs = t.ok("german", "drop II/1 0603")                   # scatters NE into 0703, which holds three
    assert one(evs, E.AirDropped).hex == "0703" and one(evs, E.UnitEliminated).rule == "5.4"
    evs = t.ok("german", "drop III/1 0803")
    assert one(evs, E.AirDropped).result == "Ac"
    assert t.state().score["commonwealth"] == 6 + 6 + 6     # 12.1: eliminated German strength
    t.refuse("german", "drop III/1 0303", rule="5.7")          # one airdrop per unit per game
    t.ok("german", "end")
    t.refuse("german", "move III/1 0804", rule="5.5")          # no move on the turn it landed


def test_dropped_units_may_not_attack_that_turn(tmp_path):
    t = start(tmp_path, keep={"22NZ": "0304"})
    t.goto(1, G_COMBAT)
    t.refuse("german", "attack 0304 with I/StR all-out", rule="5.6")


def test_scatter_onto_commonwealth_below_1_to_3_eliminates(tmp_path):
    # 5.2, 9.4: a lone airborne unit scattering onto 14 points doubled in a town (28) cannot attack at 1:3
    keep = {"1Welch": "0902", "2BW": "0902", "NHus": "0902"}
    t = start(tmp_path, drop=False, keep=keep, dice=[1, 1])
    evs = t.ok("german", "drop I/StR 0903")                  # Sc, die 1 = N: into the town 0902
    assert one(evs, E.AirDropped).hex == "0902"
    assert one(evs, E.UnitEliminated).rule == "9.4"
    assert not only(evs, E.CombatResolved)


def test_scatter_attack_is_all_out_and_the_defender_chooses(tmp_path):
    # 5.2: 6 vs 4 on the All Out table (1:1), die 4: Ca.  22NZ has safe hexes (10.6: fewer than three
    # friends, in an enemy ZOC or not), so it may retreat or counterattack, but only on the All Out table.
    t = start(tmp_path, drop=False, keep={"22NZ": "0304", "1Welch": "0305"}, dice=[1, 4, 4, 2, 5])
    evs = t.ok("german", "drop I/StR 0303")                  # Sc, die 4 = S: onto 22NZ in 0304
    opened = one(evs, E.CombatOpened)
    assert opened.mode == "scatter" and opened.table == "all-out" and not opened.air
    assert one(evs, E.CombatResolved).result == "Ca"
    d = t.state().decision
    assert d.side == "commonwealth" and d.kind == "ca"
    assert d.options == [["retreat"], ["counterattack", "0304", "all-out"]]
    t.refuse("german", "drop II/StR 0403", match="waits for Commonwealth")
    t.refuse("commonwealth", "counterattack 0304 limited", rule="10.5")
    evs = t.ok("commonwealth", "counterattack all-out")        # 4 vs 6, German terrain ignored: 1:2, die 2: Ee
    res = one(evs, E.CombatResolved)
    assert res.odds == "1:2" and "no terrain benefit for the German unit (5.2)" in res.modifiers
    assert res.result == "Ee"
    assert {e.unit for e in only(evs, E.UnitEliminated)} == {"I/StR", "22NZ"}   # 10.3: 4 points pay for 6
    assert t.state().decision is None
    t.ok("german", "drop II/StR 0403")                           # the phase goes on


def test_scatter_exchange_until_a_result_german_must_roll_again(tmp_path):
    # 5.2: 22NZ chooses to counterattack (All Out 1:2, die 3: Ca); the German may not retreat
    # and rolls again at once (All Out 1:1, die 3: Ee) - all within the drop.
    t = start(tmp_path, drop=False, keep={"22NZ": "0304"}, dice=[1, 4, 4, 3, 3])
    evs = t.ok("german", "drop I/StR 0303")
    assert t.state().decision.kind == "ca"                   # 10.6: empty hexes around it are safe
    evs += t.ok("commonwealth", "counterattack all-out")
    assert [e.mode for e in only(evs, E.CombatOpened)] == ["scatter", "counterattack", "re-roll"]
    assert [e.result for e in only(evs, E.CombatResolved)] == ["Ca", "Ca", "Ee"]
    assert t.state().decision is None


# --- 6.0: mountain troops -----------------------------------------------------------------------------

def test_mountain_troops_land_on_captured_airfields_only(tmp_path):
    t = start(tmp_path, keep={"27MG": "1902"})
    t.refuse("german", "land I/85 0302", rule="6.0", match="not been captured")
    t.refuse("german", "land I/85 1902", rule="6.1")
    t.refuse("german", "land I/85 0303", rule="6.0", match="not an airfield")
    t.goto(1, G_MOVE)
    t.ok("german", "end")
    t.goto(2, G_MOVE)
    t.ok("german", "move I/StR 0302")                          # captures Maleme airfield
    t.goto(3, AIR_LANDING)
    evs = t.ok("german", "land I/85 0302\nland II/85 0302")
    assert len(only(evs, E.UnitLanded)) == 2
    t.refuse("german", "land III/85 0302", rule="6.2")         # three units per airfield, I/StR included
    t.refuse("german", "land I/85 0302", rule="6.5")
    t.ok("german", "end")
    evs = t.ok("german", "move I/85 0303 0203")                # 6.3: moves the turn it lands
    assert one(evs, E.UnitMoved).cost == "2/3"


# --- 4.0: movement ---------------------------------------------------------------------------------------

def test_movement_fractions_zoc_and_stacking(tmp_path):
    t = start(tmp_path, keep={"21NZ": "1003", "23NZ": "1003", "28Maori": "1003"})
    t.goto(2, G_MOVE)
    t.refuse("german", "move II/StR 0404 0405 0406 0407", rule="4.1")      # 1 + 2 + 2 + 2 > 5
    evs = t.ok("german", "move I/StR 0203 0103")                              # 4.2: two road hexsides
    assert one(evs, E.UnitMoved).cost == "2/3" and one(evs, E.UnitMoved).mp == 1
    t.refuse("german", "move II/1 0904 0905", rule="4.5")           # 0904 touches 1003: the move stops
    t.refuse("german", "move III/1 0904", rule="4.6")               # from 1003's ZOC straight into it
    t.refuse("german", "move III/1 1003", rule="4.3")
    t.ok("german", "move II/1 0804")
    t.ok("german", "move I/1 0704 0804")
    t.ok("german", "move IV/StR 0704 0804")
    t.refuse("german", "move III/StR 0603 0704 0804", rule="4.4")             # a fourth unit


def test_leaving_an_enemy_zoc(tmp_path):
    # 4.6: a unit starting next to the enemy may leave if its first hex is free of enemy ZOC
    t = start(tmp_path, keep={"22NZ": "0304"})
    t.goto(2, G_MOVE)
    t.refuse("german", "move I/StR 0203", rule="4.6")          # 0203 is next to 0304 as well
    t.ok("german", "move I/StR 0302 0402")                     # 0302 is not


# --- 7.0: transit tracks ----------------------------------------------------------------------------------

def test_transit_track_entry_exit_and_ezoc_at_the_far_end(tmp_path):
    t = start(tmp_path, keep={"2/8": "1704"})
    t.goto(2, G_MOVE)
    t.refuse("german", "move III/1 1003 off", rule="7.0")
    t.refuse("german", "move III/1 1003 1103 1203 1303 off", rule="7.0")    # only from the road hex 1403
    evs = t.ok("german", "move III/1 1003 1103 1203 1303 1403 off")           # 5/3 + 1 = 2 2/3 MP
    tr = one(evs, E.TrackEntered)
    assert tr.cost == "2 2/3" and tr.exit == "1603" and t.hex_of("III/1") is None
    t.goto(2, C_MOVE)
    t.ok("commonwealth", "end")
    t.goto(3, G_MOVE)
    # 7.4: 1603 is in the ZOC of 2/8 (1704): the closest hexes free of enemy units and ZOC instead
    aw = t.awaiting()[0]
    entries = aw["must_leave_tracks"]["III/1"]
    assert "1603" not in entries and entries
    t.refuse("german", "end", rule="7.1")
    t.refuse("german", "move III/1 1603", rule="7.3, 7.4")
    t.refuse("german", f"move III/1 {entries[0]} off", rule="7.1, 7.7")
    evs = t.ok("german", f"move III/1 {entries[0]}")
    assert one(evs, E.UnitMoved).path == [entries[0]]
    t.ok("german", "end")


def test_track_exit_on_the_road_hex_costs_a_third(tmp_path):
    t = start(tmp_path)
    t.goto(2, G_MOVE)
    t.ok("german", "move III/1 1003 1103 1203 1303 1403 off")
    t.goto(3, G_MOVE)
    evs = t.ok("german", "move III/1 1603 1703 1803")         # 7.5: 1/3 to enter on the road hex
    assert one(evs, E.UnitMoved).cost == "1"


# --- 8.0-9.6: combat -----------------------------------------------------------------------------------------

def test_attack_preconditions(tmp_path):
    t = start(tmp_path, keep={"22NZ": "0304", "1Welch": "0204", "2BW": "0902", "2YL": "0902", "NHus": "0902"})
    to_combat(t)
    t.refuse("german", "attack 0304 with I/StR", rule="9.1")                       # no table named
    t.refuse("german", "attack 0304 with I/StR III/StR all-out", rule="8.4")       # 0503 not adjacent
    t.refuse("german", "attack 0304 plus 0204 with I/StR all-out")                 # malformed: plus after with
    t.refuse("german", "attack 0304 with I/StR plus 0204 all-out", rule="8.4")     # 0303 not next to 0204
    t.refuse("german", "attack 0902 with III/1 all-out", rule="9.4")               # 6 vs 14 doubled in town
    t.refuse("german", "attack 0304 with I/StR I/StR all-out", match="twice")


def test_odds_rounded_for_the_defender_and_capped_at_7_to_1(tmp_path):
    # 9.2: 12 against 2 is 6:1; 9.4: 18 against 2 (9:1) is read as 7:1
    t = start(tmp_path, keep={"NZEng": "0304", "GkGarr": "0704"}, dice=[1, 2])
    t.goto(2, G_COMBAT)
    evs = t.ok("german", "attack 0304 with I/StR II/StR limited no-advance")
    assert one(evs, E.CombatResolved).odds == "6:1"
    evs = t.ok("german", "attack 0704 with IV/StR I/1 all-out air Ju88a Ju88b Me109 no-advance")
    res = one(evs, E.CombatResolved)
    assert res.attack_strength == 5 + 6 + 3 + 3 + 1 and res.odds == "7:1"
    assert res.result == "De"


def test_worked_example_11_to_4():
    from pbem.mechanics.odds import odds_column
    assert odds_column(11, 4, best=7, worst=3) == "2:1"        # 9.2, the rulebook's example
    assert odds_column(2, 7, best=7, worst=3) is None          # below 1:3 (9.4)
    assert odds_column(50, 3, best=7, worst=3) == "7:1"


def test_luftwaffe_limits(tmp_path):
    t = start(tmp_path, keep={"NZEng": "0304", "GkGarr": "0404", "Gk6": "0704"}, dice=[1, 2])
    t.goto(2, G_COMBAT)
    t.refuse("german", "attack 0304 with I/StR all-out air Ju88a Ju88b Ju87a Ju87b", rule="11.0")
    t.refuse("german", "attack 0304 with I/StR all-out air Stuka", rule="11.0")
    t.ok("german", "attack 0304 with I/StR all-out air Ju88a no-advance")
    t.refuse("german", "attack 0404 with II/StR all-out air Ju88a", rule="11.4")   # once per Game-Turn
    t.ok("german", "attack 0404 with II/StR all-out air Ju88b no-advance")
    t.goto(2, C_COMBAT)
    t.refuse("commonwealth", "attack 0703 with Gk6 all-out air Ju87a", rule="11.0")


def test_no_air_on_turn_one_and_mountain_units_fight_the_turn_they_land(tmp_path):
    # Maleme airfield (0302) is captured by a drop; I/85 lands there and attacks the same turn (6.3),
    # but without air units on Game-Turn One (11.5); the dropped units may not attack (5.6).
    hexes = ["0302", "0403", "0503", "0603", "0703", "0803", "0903"]
    t = start(tmp_path, keep={"22NZ": "0402"}, hexes=hexes, dice=[1])
    t.ok("german", "land I/85 0302\nend\nend")
    t.refuse("german", "attack 0402 with I/StR all-out", rule="5.6")
    t.refuse("german", "attack 0402 with I/85 all-out air Ju88a", rule="11.5")
    evs = t.ok("german", "attack 0402 with I/85 all-out no-advance")          # 6 vs 4: 1:1, die 1: Ee
    assert one(evs, E.CombatResolved).result == "Ee"


def test_de_and_inline_advance(tmp_path):
    # 10.2, 10.7: 12 vs 4 at 3:1 All Out, die 1: De; the inline answer advances I/StR
    t = start(tmp_path, keep={"22NZ": "0304"}, dice=[1])
    to_combat(t)
    evs = t.ok("german", "attack 0304 with I/StR II/StR all-out advance I/StR")
    assert one(evs, E.CombatResolved).result == "De"
    assert one(evs, E.UnitAdvanced).unit == "I/StR" and t.hex_of("I/StR") == "0304"
    assert t.state().score["german"] == 4
    t.refuse("german", "attack 0304 with I/StR all-out", match="holds no enemy")


def test_advance_decision_several_units(tmp_path):
    t = start(tmp_path, keep={"22NZ": "0304"}, dice=[1])
    to_combat(t)
    t.ok("german", "attack 0304 with I/StR II/StR all-out")
    d = t.state().decision
    assert d.kind == "advance" and sorted(d.units) == ["I/StR", "II/StR"]
    t.ok("german", "advance I/StR 0304")
    assert t.state().decision.units == ["II/StR"]            # 10.7: one or more units may advance
    t.ok("german", "no-advance")
    assert t.state().decision is None


def test_ae_lets_the_defender_advance(tmp_path):
    # 10.1: 6 vs 10 is 1:2; All Out die 6: Ae; the defenders may advance into the vacated hex
    t = start(tmp_path, keep={"1Welch": "0304", "2BW": "0304"}, dice=[6])
    to_combat(t)
    evs = t.ok("german", "attack 0304 with I/StR all-out")
    assert one(evs, E.CombatResolved).odds == "1:2" and one(evs, E.UnitEliminated).unit == "I/StR"
    d = t.state().decision
    assert d.side == "commonwealth" and d.kind == "advance" and ["2BW", "0303"] in d.options
    t.ok("commonwealth", "advance 2BW 0303")
    assert t.hex_of("2BW") == "0303"


def test_ee_the_attacker_chooses_losses_at_least_the_printed_defence(tmp_path):
    # 10.3: 12 vs 2BW (5) is 2:1, All Out die 3: Ee.  The attackers must lose at least 5 printed
    # points: either 6-point unit will do, both would be one too many.
    t = start(tmp_path, keep={"2BW": "0904"}, dice=[3])
    to_combat(t)
    evs = t.ok("german", "attack 0904 with II/1 III/1 all-out")
    assert one(evs, E.CombatResolved).result == "Ee"
    d = t.state().decision
    assert d.kind == "losses" and sorted(map(sorted, d.options)) == [["II/1"], ["III/1"]]
    t.refuse("german", "lose II/1 III/1", rule="10.3")
    evs = t.ok("german", "lose III/1")
    assert [e.unit for e in only(evs, E.UnitEliminated)] == ["III/1"]
    assert t.state().decision.kind == "advance"


def test_ee_inline_loss_answer(tmp_path):
    t = start(tmp_path, keep={"2BW": "0904"}, dice=[3])
    to_combat(t)
    evs = t.ok("german", "attack 0904 with II/1 III/1 all-out lose II/1 no-advance")
    assert [e.unit for e in only(evs, E.UnitEliminated)] == ["2BW", "II/1"]
    assert t.state().decision is None


# --- 10.5: the counterattack chain, branch by branch ----------------------------------------------------------

def ca_start(tmp_path, dice, keep=None):
    t = start(tmp_path, keep=keep or {"22NZ": "0304"}, dice=dice)
    to_combat(t)
    return t


def test_ca_defender_retreats_then_attacker_advances(tmp_path):
    # Limited 1:1 (6 vs 4) die 1: Ca; 22NZ may retreat into any of its free neighbours (10.6)
    t = ca_start(tmp_path, [1], keep={"22NZ": "0304", "1Welch": "0205"})
    t.ok("german", "attack 0304 with I/StR limited")
    d = t.state().decision
    assert d.kind == "ca" and d.side == "commonwealth"
    assert ["retreat"] in d.options and ["counterattack", "0303", "all-out"] in d.options
    t.refuse("commonwealth", "retreat 22NZ 0403", rule="10.6")     # II/StR stands there
    evs = t.ok("commonwealth", "retreat 22NZ 0305")
    assert one(evs, E.UnitRetreated).path == ["0305"]
    d = t.state().decision
    assert d.kind == "advance" and d.side == "german" and d.options == [["I/StR", "0304"]]
    t.ok("german", "advance I/StR")
    assert t.hex_of("I/StR") == "0304"


def test_ca_defender_counterattacks_and_wins(tmp_path):
    # German Limited 1:1 die 1: Ca; 22NZ counterattacks 0303 All Out at 1:2 (4 vs 6), die 1: Ee
    t = ca_start(tmp_path, [1, 1])
    t.ok("german", "attack 0304 with I/StR limited")
    evs = t.ok("commonwealth", "counterattack 0303 all-out")
    opened = one(evs, E.CombatOpened)
    assert opened.mode == "counterattack" and opened.side == "commonwealth" and opened.hexes == ["0303"]
    assert one(evs, E.CombatResolved).result == "Ee"
    assert {e.unit for e in only(evs, E.UnitEliminated)} == {"I/StR", "22NZ"}


def test_ca_chain_counterattack_ca_then_original_attacker_rolls_again_without_air(tmp_path):
    # German Limited 1:1 with air? (air makes it 9 vs 4 = 2:1 Limited die 1: Ca); CW All Out 1:2 die 3: Ca;
    # the German rolls the original attack again WITHOUT the air (6 vs 4 = 1:1), Limited die 4: Ne.
    t = ca_start(tmp_path, [1, 3, 4])
    evs = t.ok("german", "attack 0304 with I/StR limited air Ju88a")
    assert one(evs, E.CombatResolved).odds == "2:1"
    t.ok("commonwealth", "counterattack all-out")             # one hex only: it may be left out
    d = t.state().decision
    assert d.side == "german" and d.kind == "ca"
    assert d.options == [["retreat"], ["counterattack", "all-out"], ["counterattack", "limited"]]
    evs = t.ok("german", "counterattack limited")
    opened = one(evs, E.CombatOpened)
    assert opened.mode == "re-roll" and opened.air == []
    res = one(evs, E.CombatResolved)
    assert res.attack_strength == 6 and res.odds == "1:1" and res.result == "Ne"
    assert t.state().decision is None and t.hex_of("I/StR") == "0303" and t.hex_of("22NZ") == "0304"


def test_ca_chain_original_attacker_retreats(tmp_path):
    # German Limited 1:1 die 1: Ca; 22NZ counterattacks All Out 1:2 die 3: Ca; the German retreats
    t = ca_start(tmp_path, [1, 3])
    t.ok("german", "attack 0304 with I/StR limited")
    t.ok("commonwealth", "counterattack 0303 all-out")
    d = t.state().decision
    assert d.side == "german" and ["retreat"] in d.options
    t.refuse("german", "retreat I/StR 0304", rule="10.6")      # 22NZ stands there
    evs = t.ok("german", "retreat I/StR 0302")
    assert one(evs, E.UnitRetreated).unit == "I/StR"
    # the Commonwealth unit won the exchange: it may advance into 0303 (10.5, 10.7)
    d = t.state().decision
    assert d.kind == "advance" and d.side == "commonwealth" and d.options == [["22NZ", "0303"]]
    t.ok("commonwealth", "no-advance")


def test_ca_with_no_retreat_and_no_counterattack_eliminates(tmp_path):
    # 10.5: Gk6 (2) in 0402 has no safe hex (0401 is sea, 0302 holds three Commonwealth units,
    # the rest German units) and its only counterattack, on the three units in 0303, would be
    # 2 vs 18; Limited 7:1 die 5: Ca.
    hexes = ["0303", "0303", "0303", "0403", "0503", "0502", "0803"]
    keep = {"Gk6": "0402", "22NZ": "0302", "21NZ": "0302", "23NZ": "0302"}
    t = start(tmp_path, keep=keep, hexes=hexes, dice=[5])
    to_combat(t)
    evs = t.ok("german", "attack 0402 with I/StR II/StR III/StR limited no-advance")
    assert one(evs, E.CombatResolved).odds == "7:1" and one(evs, E.CombatResolved).result == "Ca"
    el = one(evs, E.UnitEliminated)
    assert el.unit == "Gk6" and el.rule == "10.5"


# --- 10.5 answered in advance: standing orders (doctrine ca / doctrine re-roll) ---------------------------------

def said(t: Table, evs: list[E.Event]) -> list[str]:
    return [render.describe(e, t.game.scenario, "referee") for e in evs]


def test_standing_ca_retreat_answers_the_defenders_ca(tmp_path):
    # 10.5: the defending force that draws Ca retreats or counterattacks; the Commonwealth answers in
    # advance, during the German phase.  Limited 1:1 die 1: Ca; 22NZ then has four safe hexes, so the
    # retreat hex is still its owner's choice (10.6).
    t = ca_start(tmp_path, [1])
    evs = t.ok("commonwealth", "doctrine ca retreat")
    assert one(evs, E.StandingOrderSet) == E.StandingOrderSet(side="commonwealth", topic="ca", answer="retreat")
    evs = t.ok("german", "attack 0304 with I/StR limited")
    applied = one(evs, E.StandingOrderApplied)
    assert applied.side == "commonwealth" and applied.orders == ["doctrine ca retreat"]
    assert applied.answer == "retreat" and applied.units == ["22NZ"] and applied.rule == "10.5"
    assert not [e for e in only(evs, E.DecisionRequired) if e.decision == "ca"]
    assert "by standing order 'doctrine ca retreat'" in " ".join(said(t, evs))
    d = t.state().decision
    assert d.kind == "retreat" and d.side == "commonwealth" and d.options == [["0203"], ["0204"], ["0305"], ["0404"]]
    t.ok("commonwealth", "retreat 22NZ 0305")
    assert t.state().decision.kind == "advance"
    assert t.game.verify().ok                 # replay re-derives the automatic answer from the log


def test_standing_ca_counterattack_takes_the_hex_with_the_best_odds(tmp_path):
    # 10.5: the counterattack goes against all enemy units of one hex the attack came from; the table is
    # the counterattacker's (9.1).  I/StR+III/StR (12 vs 4, Limited 3:1 die 1: Ca) attack from 0303 and
    # 0403; 0303 also holds II/StR, so 0303 would be 4 vs 12 (1:3), 0403 4 vs 6 (1:2): 0403 is taken.
    # All Out 1:2 die 1: Ee.
    hexes = ["0303", "0303", "0403", "0603", "0703", "0803", "0903"]
    t = start(tmp_path, keep={"22NZ": "0304"}, hexes=hexes, dice=[1, 1])
    to_combat(t)
    t.ok("commonwealth", "doctrine ca counterattack allout")
    assert t.game.entries()[-1].event.answer == "counterattack all-out"
    evs = t.ok("german", "attack 0304 with I/StR III/StR limited no-advance")
    applied = one(evs, E.StandingOrderApplied)
    assert applied.orders == ["doctrine ca counterattack all-out"] and applied.answer == "counterattack 0403 all-out"
    opened = only(evs, E.CombatOpened)[1]
    assert opened.mode == "counterattack" and opened.hexes == ["0403"] and opened.table == "all-out"
    assert only(evs, E.CombatResolved)[1].odds == "1:2"
    assert {e.unit for e in only(evs, E.UnitEliminated)} == {"III/StR", "22NZ"}
    assert t.state().decision is None and t.game.verify().ok


def test_standing_re_roll_answers_the_original_attackers_ca(tmp_path):
    # 10.5: on a Ca to the counterattack the original attacker rolls its attack again, less the air
    # power, or retreats.  Both answers given in advance: the whole chain runs within the German order.
    # Limited 2:1 with Ju88a die 1: Ca; All Out 1:2 die 3: Ca; re-roll without air Limited 1:1 die 4: Ne.
    t = ca_start(tmp_path, [1, 3, 4])
    t.ok("commonwealth", "doctrine ca counterattack all-out")
    t.ok("german", "doctrine re-roll limited")
    evs = t.ok("german", "attack 0304 with I/StR limited air Ju88a")
    assert [e.mode for e in only(evs, E.CombatOpened)] == ["attack", "counterattack", "re-roll"]
    assert [(a.side, a.orders, a.answer) for a in only(evs, E.StandingOrderApplied)] == [
        ("commonwealth", ["doctrine ca counterattack all-out"], "counterattack 0303 all-out"),
        ("german", ["doctrine re-roll limited"], "counterattack limited")]
    assert only(evs, E.CombatOpened)[2].air == [] and only(evs, E.CombatResolved)[2].attack_strength == 6
    assert "by standing order 'doctrine re-roll limited'" in " ".join(said(t, evs))
    assert t.state().decision is None and t.game.verify().ok


def test_standing_re_roll_retreat(tmp_path):
    # 10.5: the original attacker may retreat instead of rolling again; I/StR then picks its hex (10.6)
    # and the Commonwealth unit that won the exchange may advance (10.7).
    t = ca_start(tmp_path, [1, 3])
    t.ok("german", "doctrine re-roll retreat")
    t.ok("german", "attack 0304 with I/StR limited")
    evs = t.ok("commonwealth", "counterattack 0303 all-out")
    applied = one(evs, E.StandingOrderApplied)
    assert applied.side == "german" and applied.answer == "retreat" and applied.units == ["I/StR"]
    d = t.state().decision
    assert d.kind == "retreat" and d.side == "german"
    t.ok("german", "retreat I/StR 0302")
    assert t.state().decision.options == [["22NZ", "0303"]]


def test_standing_orders_per_hex_and_per_unit(tmp_path):
    # 10.5: each unit of the force follows its own exception, else its hex's, else the side's; the
    # force must agree or the choice is asked.  I/StR+II/StR (12) vs 22NZ+1Welch (4+4) in 0304,
    # Limited 1:1 die 2: Ca.
    t = ca_start(tmp_path, [2, 4], keep={"22NZ": "0304", "1Welch": "0304"})
    t.ok("commonwealth", "doctrine ca counterattack limited\ndoctrine ca 0304 retreat\ndoctrine ca 1Welch ask")
    evs = t.ok("german", "attack 0304 with I/StR II/StR limited")
    assert not only(evs, E.StandingOrderApplied)
    d = t.state().decision
    assert d.kind == "ca" and d.side == "commonwealth"
    (item,) = t.awaiting()
    assert ("standing orders 'doctrine ca 0304 retreat' / 'doctrine ca 1Welch ask' not applied: the standing "
            "orders differ within the force (22NZ retreat; 1Welch ask)") in item["order"]
    # clearing the exception (refused when there is none) does not answer the question already asked
    t.refuse("commonwealth", "doctrine ca 22NZ default", rule="10.5", match="no standing ca exception")
    t.ok("commonwealth", "doctrine ca 1Welch default")
    assert t.state().decision.kind == "ca"
    assert "standing order 'doctrine ca 0304 retreat' given after this Ca" in t.awaiting()[0]["order"]
    evs = t.ok("commonwealth", "counterattack 0303 limited")       # 8 vs 6, Limited 1:1 die 4: Ne
    assert one(evs, E.CombatResolved).result == "Ne" and t.game.verify().ok


def test_standing_order_not_legal_falls_back_to_asking(tmp_path):
    # 10.5: Gk6 in 0402 has no safe hex (10.6: 0401 is sea, 0302 holds three Commonwealth units, the
    # rest German units) but may counterattack 0303 at 1:3 (Limited 3:1 die 1: Ca): a standing
    # retreat cannot be applied, so the Commonwealth is asked, and told why.
    keep = {"Gk6": "0402", "22NZ": "0302", "21NZ": "0302", "23NZ": "0302"}
    hexes = ["0303", "0403", "0503", "0502", "0703", "0803", "0903"]
    t = start(tmp_path, keep=keep, hexes=hexes, dice=[1, 6])
    to_combat(t)
    t.ok("commonwealth", "doctrine ca retreat")
    evs = t.ok("german", "attack 0402 with I/StR limited")
    assert not only(evs, E.StandingOrderApplied)
    assert one(evs, E.DecisionRequired).decision == "ca"
    (item,) = t.awaiting()
    assert item["side"] == "commonwealth"
    assert "standing order 'doctrine ca retreat' not applied: no unit of the force has a safe hex" in item["order"]
    t.ok("commonwealth", "counterattack all-out")                # 2 vs 6, All Out 1:3 die 6: Ae
    assert t.unit("Gk6").eliminated


def test_standing_counterattack_in_a_scatter_fight(tmp_path):
    # 5.2, 10.5: during the German air landing the Commonwealth answers the scatter fight's Ca by standing
    # order, but only on the All Out table: a standing Limited counterattack is asked instead.
    t = start(tmp_path, drop=False, keep={"22NZ": "0304", "1Welch": "0305"}, dice=[1, 4, 4, 2])
    t.ok("commonwealth", "doctrine ca counterattack limited")
    t.ok("german", "drop I/StR 0303")                            # Sc S onto 22NZ; All Out 1:1 die 4: Ca
    assert t.state().decision.kind == "ca"
    assert "a scatter fight uses the All Out table only (5.2)" in t.awaiting()[0]["order"]
    t.ok("commonwealth", "counterattack all-out")
    t2 = start(tmp_path, drop=False, keep={"22NZ": "0304", "1Welch": "0305"}, dice=[1, 4, 4, 2], name="g2")
    t2.ok("commonwealth", "doctrine ca counterattack all-out")
    evs = t2.ok("german", "drop I/StR 0303")
    assert one(evs, E.StandingOrderApplied).answer == "counterattack 0304 all-out"
    assert only(evs, E.CombatResolved)[-1].result == "Ee" and t2.state().decision is None


def test_standing_orders_stop_after_a_long_exchange(tmp_path):
    # 10.5: the exchange goes on until a retreat or a result other than Ca; standing orders on both
    # sides answer at most twelve Ca results of one fight, then the players are asked.
    t = ca_start(tmp_path, [1] + [3, 1] * 6)
    t.ok("commonwealth", "doctrine ca counterattack all-out")
    t.ok("german", "doctrine re-roll limited")
    evs = t.ok("german", "attack 0304 with I/StR limited")
    assert len(only(evs, E.StandingOrderApplied)) == 12
    assert {e.result for e in only(evs, E.CombatResolved)} == {"Ca"}
    assert t.state().decision.kind == "ca"
    assert "12 Ca results of this fight were already answered" in t.awaiting()[0]["order"]
    assert "commonwealth:ca" in t.state().crete.standing
    t.ok("commonwealth", "doctrine ca ask")
    assert "commonwealth:ca" not in t.state().crete.standing


def test_standing_order_syntax(tmp_path):
    # 10.5: what a standing order may say, and who may give it
    t = ca_start(tmp_path, [])
    for bad in ("doctrine ca", "doctrine ca counterattack", "doctrine re-roll counterattack all-out",
                "doctrine ca 22NZ", "doctrine fire always", "doctrine ca retreat now"):
        t.refuse("commonwealth", bad, rule="10.5")
    t.refuse("german", "doctrine ca 22NZ retreat", match="not a German unit")
    t.refuse("commonwealth", "doctrine ca 0101 retreat", rule="10.5", match="not a land hex")
    evs = t.ok("german", "doctrine reroll I/StR all-out")
    assert one(evs, E.StandingOrderSet) == E.StandingOrderSet(side="german", topic="re-roll", answer="all-out",
                                                              scope="I/StR")
    assert said(t, evs) == ["German standing order 'doctrine re-roll I/StR all-out': a Ca in a counterattack on "
                            "I/StR is answered by rolling the original attack again on the all-out table (10.5)."]
    assert said(t, t.ok("commonwealth", "doctrine ca 0304 counterattack limited")) == [
        "Commonwealth standing order 'doctrine ca 0304 counterattack limited': a Ca in an attack on its units in "
        "0304 is answered by a counterattack on the limited table, against the enemy hex giving the best odds (10.5)."]


# --- the secret: no Commonwealth export shows the plan before the drops --------------------------------------

PLAN = "west=4 centre=2 east=3"


def everything_commonwealth_sees(g: Game) -> str:
    entries = g.entries()
    st = g.state()
    head = entries[-1].hash
    parts = [
        json.dumps(log_view(entries, "commonwealth", g.rules)),
        json.dumps(state_view(g, st, "commonwealth", head)),
        json.dumps(g.rules.awaiting(st, g.scenario)),
        render.report_text(g, "commonwealth", st, entries, 0, head),
        render.report_svg(g, "commonwealth", st, entries, 0, head),
        bytes(render.report_eml(g, "commonwealth", st, entries, 0, head)).decode("utf-8", "replace"),
        CliRunner().invoke(main, ["log", str(g.dir), "--as", "commonwealth"]).output,
        CliRunner().invoke(main, ["log", str(g.dir), "--as", "commonwealth", "--json"]).output,
        CliRunner().invoke(main, ["report", str(g.dir), "--as", "commonwealth", "--since", "0"]).output,
        CliRunner().invoke(main, ["state", str(g.dir), "--as", "commonwealth", "--json"]).output,
    ]
    return "\n".join(parts)


@pytest.mark.parametrize("seeded", [False, True])
def test_the_drop_plan_stays_secret_until_the_drops(tmp_path, seeded):
    if seeded:
        g = Game.create(tmp_path / "s", "crete", game_id="s", seed_hex="ab" * 32, at="2026-01-01T00:00:00Z")
    else:
        g = Game.create(tmp_path / "s", "crete", game_id="s", dice=[5] * 20, at="2026-01-01T00:00:00Z")
    assert g.submit("german", f"secret drop-plan {PLAN}\nend").refused is None
    setup = far_setup(g.scenario, {})
    assert g.submit("commonwealth", "\n".join(f"place {u} {h}" for u, h in setup.items()) + "\nend").refused is None
    rec = next(e.event for e in g.entries() if e.kind == "SecretRecorded")
    seen = everything_commonwealth_sees(g)
    for needle in (PLAN, "west=4", "centre=2", "east=3", rec.salt):
        assert needle not in seen
    assert rec.commitment in seen                                # the commitment itself is public
    german = json.dumps(log_view(g.entries(), "german", g.rules))
    assert PLAN in german
    # once the drops begin, the plan is opened and checked against the commitment
    assert g.submit("german", "unveil drop-plan").refused is None
    assert PLAN in everything_commonwealth_sees(g)
    assert g.verify().ok


# --- the example game ------------------------------------------------------------------------------------------

def test_example_game_plays_ten_turns_to_a_victory_level(played_example):
    ex = played_example("crete")                     # played once per run by playbook.play (conftest)
    out = ex.summary
    g = ex.game()
    st = g.state()
    assert st.result is not None and st.result.rule == "12.3"
    assert st.turn == 10
    assert "victory" in st.result.reason or "draw" in st.result.reason
    assert g.verify().ok and "verified" in out
