"""Paratroop fidelity (issue 17): the values the rulebook text gives, the score at every
moment, and three readings of the text decided on purpose (each test names its rule).

- Red Devils turn track: the text's track prints turn 9 (B, G, 5 command points, 8.5).
- Crete 12.1-12.3: the state's score is the game's score at every moment; the places of
  12.2 are scored (PlaceScored) when the game ends, before the result.  Red Devils 12.1 too.
- Crete 10.6: an empty hex in an enemy zone of control is a safe hex (fewer than three
  friendly units, none included), so the scatter fight of 5.2 really offers its choice.
- Red Devils 7.6/7.7: an Ad retreat ends two hexes from the attacker's own hex (7.7).
- Eben Emael 7.8/7.9: the +1 for a slope applies only to an assault up the slope.
"""
from __future__ import annotations

import pytest

from conftest import Table, one, only
from pbem.core.scenario import load
from pbem.engine import Game
from pbem.games.crete import events as CE
from pbem.games.crete.combat import safe_hexes
from pbem.games.red_devils import events as RE
from pbem.report import render
from pbem.views import state_view
from test_crete import AIR_LANDING, C_COMBAT, G_COMBAT, G_MOVE, start
from test_eben_emael import ctx, new_game, run
from test_red_devils import BM, GC, GM, U, goto, scenario_text


@pytest.fixture
def rd(tmp_path, fixed_clock):
    def make(units, dice=(), name="g") -> Table:
        p = tmp_path / f"{name}.toml"
        p.write_text(scenario_text([dict(u) for u in units]))
        t = Table(Game.create(tmp_path / name, str(p), {}, dice=list(dice)))
        t.ok("british", "end")                          # set-up: nothing to place
        return t
    return make


# --- Red Devils: the turn track of the text (8.5) ----------------------------------------------

def test_red_devils_turn_9_gives_the_printed_5_command_points():
    sc = load("red-devils")
    assert sc.game_data["command_points"][:9] == [5, 2, 4, 3, 3, 3, 3, 3, 5]      # the text's track, turns 1-9
    label = next(t.label for t in sc.turn_track if t.turn == 9)
    assert "5 command points" in label and "reconstructed" not in label
    assert all("turns 9 and 10" not in r for r in sc.reconstructed)


def test_red_devils_8_5_five_british_units_recover_on_turn_9(rd):
    # 8.5: five units disrupted by their landing (die 2: D, 9.9) on turn 9 all recover in that turn's
    # British disruption removal phase: the track gives 5 command points (3 before this issue).
    units = [U(f"P{i}", "british", None, turn=9, drop_zones=["2818"]) for i in range(5)]
    t = rd(units + [U("Helle", "german", "0105", 2, "infantry")], dice=[2] * 5)
    goto(t, 9, BM)
    t.ok("british", "land P0 2817\nland P1 2818\nland P2 2819\nland P3 2718\nland P4 2918")
    assert all(t.unit(f"P{i}").disrupted for i in range(5))
    goto(t, 9, GM)
    evs = t.ok("german", "end")
    assert one(evs, RE.UnitsRecovered).units == [f"P{i}" for i in range(5)]
    assert not only(evs, RE.DecisionRequired) and t.phase() == (9, GC)


# --- Crete: the score at every moment (12.1-12.3) ------------------------------------------------

def test_crete_12_score_is_current_and_the_places_count_at_the_end(tmp_path):
    # I/StR takes Maleme airfield (0302); II/StR and III/StR (0403) eliminate 22NZ (4) at 3:1, die 1:
    # De (12.1: German 4 at once).  The Commonwealth keeps Retimo airfield (1902).  At the end of
    # Game-Turn 10 each place held scores 5 (12.2) into the state's score, and the result says the same.
    hexes = ["0303", "0403", "0403", "0603", "0703", "0803", "0903"]
    t = start(tmp_path, keep={"22NZ": "0304", "2/1MG": "1902"}, hexes=hexes, dice=[1])
    assert t.state().score == {"german": 0, "commonwealth": 0}
    t.goto(2, G_MOVE)
    t.ok("german", "move I/StR 0302")
    t.goto(2, G_COMBAT)
    evs = t.ok("german", "attack 0304 with II/StR III/StR all-out no-advance")
    assert one(evs, CE.CombatResolved).result == "De"
    assert t.state().score == {"german": 4, "commonwealth": 0}                      # 12.1, at once
    gone = one(evs, CE.UnitEliminated)
    t.goto(10, C_COMBAT)
    evs = t.end()
    scored = only(evs, CE.PlaceScored)
    assert [(p.side, p.hex, p.points) for p in scored] == [("german", "0302", 5), ("commonwealth", "1902", 5)]
    kinds = [type(e).__name__ for e in evs]
    assert kinds.index("PlaceScored") < kinds.index("GameEnded")
    st = t.state()
    assert st.score == {"german": 9, "commonwealth": 5}
    assert "German 9 VP, Commonwealth 5 VP, difference 4" in st.result.reason
    view = state_view(t.game, st, "commonwealth", t.game.head()[1])
    assert view["score"] == {"german": 9, "commonwealth": 5}                        # pbem state --json
    said = [render.describe(p, t.game.scenario, "german") for p in scored]
    assert said[0] == "German holds the airfield 0302 (Maleme airfield) at the end: +5 VP (12.2)."
    assert "German +4 VP (12.1)" in render.describe(gone, t.game.scenario, "referee")   # the report says so
    assert t.game.verify().ok


def test_red_devils_12_1_each_german_unit_eliminated_scores_at_once(rd):
    # 12.1: one British VP per German unit eliminated, in the state's score as it happens (the hexes
    # and the units left on the map count at the end).  8 - 4 = +4, woods one left: "+2 to +3",
    # die 1: De* - De outside a city.
    t = rd([U("1Para", "british", "0908", 8), U("Krafft", "german", "1008", 4, "infantry")], dice=[1])
    assert t.state().score == {"british": 0}
    goto(t, 1, 3)
    evs = t.ok("british", "attack 1008 with 1Para no-advance")
    assert one(evs, RE.UnitEliminated).unit == "Krafft"
    assert t.state().score == {"british": 1}


# --- Crete 10.6: an empty hex in an enemy ZOC is safe -----------------------------------------------

def test_crete_10_6_an_empty_hex_in_an_enemy_zoc_is_safe(tmp_path):
    # 22NZ in 0304 beside I/StR (0303) and II/StR (0403): 0203 lies in I/StR's ZOC and holds no
    # friend; 10.6 counts "fewer than three friendly units", none included (5.4 uses the same words
    # for an empty landing hex), so it is safe.  A hex with three friends or an enemy never is.
    keep = {"22NZ": "0304", "21NZ": "0404", "23NZ": "0404", "28Maori": "0404"}
    t = start(tmp_path, keep=keep)
    st, sc = t.state(), t.game.scenario
    assert safe_hexes(st, sc, st.units["22NZ"]) == ["0203", "0204", "0305"]   # 0404 is full; 0303, 0403 German


def test_crete_5_2_the_scatter_fight_offers_retreat_or_counterattack(tmp_path):
    # 5.2: I/StR scatters (die 1, then 4 = S) from 0303 onto 22NZ alone in 0304: All Out 1:1, die 4: Ca.
    # The Commonwealth unit may retreat or counterattack; its empty neighbours, all in I/StR's ZOC, are
    # safe (10.6), so it is asked (before this issue it was made to counterattack at once).
    t = start(tmp_path, drop=False, keep={"22NZ": "0304"}, dice=[1, 4, 4])
    evs = t.ok("german", "drop I/StR 0303")
    assert one(evs, CE.AirDropped).hex == "0304" and one(evs, CE.CombatResolved).result == "Ca"
    d = t.state().decision
    assert d.side == "commonwealth" and d.kind == "ca"
    assert d.options == [["retreat"], ["counterattack", "0304", "all-out"]]
    evs = t.ok("commonwealth", "retreat 22NZ 0305")
    assert one(evs, CE.UnitRetreated).path == ["0305"]
    assert t.hex_of("22NZ") == "0305" and t.hex_of("I/StR") == "0304"            # no advance after 5.2
    assert t.state().decision is None and t.state().crete.fight is None
    assert t.phase() == (1, AIR_LANDING)


# --- Red Devils 7.6, 7.7: where an Ad retreat is measured from -----------------------------------

def test_red_devils_7_7_ad_retreat_ends_two_hexes_from_the_attackers_own_hex(rd):
    # 1Para (4) attacks Krafft (8) in woods 1008 from 0908: -4, column "-3 or less"; die 3: Ad.
    # 7.7 measures every retreat from the hex the unit occupied; 7.6's "away from the defender" is the
    # direction, which the zone of control already enforces (no end hex is next to Krafft).
    t = rd([U("1Para", "british", "0908", 4), U("Krafft", "german", "1008", 8, "infantry")], dice=[3])
    goto(t, 1, 3)
    evs = t.ok("british", "attack 1008 with 1Para")
    assert one(evs, RE.CombatResolved).result == "Ad"
    d = one(evs, RE.DecisionRequired)
    assert d.decision == "ad" and d.side == "british" and d.options
    grid = t.game.scenario.board.grid
    ends = {o[-1] for o in d.options}
    assert all(len(o) == 3 and o[0] == "1Para" for o in d.options)                 # always two hexes
    assert all(grid.distance("0908", h) == 2 for h in ends)                         # 7.7: from its own hex
    assert all(grid.distance("1008", h) >= 2 for h in ends)                         # away from Krafft
    assert {grid.distance("1008", h) for h in ends} == {2, 3}


# --- Eben Emael 7.8, 7.9: a slope counts only uphill --------------------------------------------

@pytest.mark.parametrize("attacker,defender,plus", [("0621", "0620", True), ("0620", "0621", False)])
def test_eben_emael_7_8_slope_adds_one_only_up_the_slope(tmp_path, attacker, defender, plus):
    # 0620|0621 is a slope with 0620 the upper hex; both hexes are clear.  The chart (7.9) adds one
    # when every attacker assaults "up a slope"; 7.8 lists the slope among hexsides without saying
    # which way.  pbem follows the chart: a slope is one-way in this game (4.9 charges it only
    # upslope), and 7.8 is about the defender's terrain - a slope belongs to the higher hex.
    g = new_game(tmp_path)
    c = ctx(g, "german", dice=[3], phase="assault", Bel_3=defender, Unger=attacker)
    ev = run(c, f"assault {defender} with Unger", "end")
    ar = [e for e in ev if type(e).__name__ == "AssaultResolved"][0]
    assert ar.differential == 0 and ar.rolls == [3]
    assert (ar.total, bool(ar.modifiers)) == ((4, True) if plus else (3, False))
    assert ar.result == ("Ae" if plus else "-")                                     # 7.9 column 0: 4 Ae, 3 -
