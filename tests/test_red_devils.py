"""Red Devils (paratroop.txt, Red Devils): rules tests with scripted dice.

Positions are set up on the shipped (reconstructed) map by replacing the
scenario's unit list (``rd_game``).  Map facts used below (odd columns sit
half a hex lower): 0808 broken touches 0807 0907 0908 0809 0708 0707;
1112|1113 is the ferry, 1512|1513 the railway bridge, 2214|2314 the road
bridge; the Neder Rijn runs between rows 11/12 (columns 1-7), 12/13 (8-15)
and 13/14 or 14/15 further east; 2214 and the hexes around 2011 are city.
"""
from __future__ import annotations

import json
import re
from fractions import Fraction
from pathlib import Path

import pytest

from pbem.games.red_devils import events as E
from pbem.report import render
from pbem.engine import Game
from pbem.games.red_devils.combat import column_index
from pbem.games.red_devils.state import rd_of
from pbem.mechanics.pathcost import fmt as frac_text
from pbem.core.scenario import SCENARIO_DIR

from conftest import Table, events_of, one, only

SHIPPED = (SCENARIO_DIR / "red-devils.toml").read_text()
BM, GR, BC, GM, BR, GC = 1, 2, 3, 4, 5, 6        # phase indices (0 = set-up)


def U(uid, side, hex=None, strength=4, type="parachute infantry", turn=None, **info):
    d = {"id": uid, "side": side, "nationality": "german" if side == "german" else "british", "type": type,
         "strength": strength, "ma": 10}
    if hex:
        d["hex"] = hex
    if turn:
        d["entry_turn"] = turn
    d["_info"] = info
    return d


def scenario_text(units: list[dict], polish: bool = False) -> str:
    lines, info = [], []
    for u in units:
        extra = u.pop("_info", {})
        lines.append("  { " + ", ".join(f"{k} = {json.dumps(v)}" for k, v in u.items()) + " },")
        if extra:
            info.append(f'"{u["id"]}" = {{ ' + ", ".join(f"{k} = {json.dumps(v)}" for k, v in extra.items()) + " }")
    text = re.sub(r"\nunits = \[\n.*?\n\]\n", "\nunits = [\n" + "\n".join(lines) + "\n]\n", SHIPPED, count=1, flags=re.S)
    text = re.sub(r"\[game_data.units\]\n.*?\n\n", "[game_data.units]\n" + "\n".join(info) + "\n\n", text, count=1, flags=re.S)
    if not polish:
        text = text.replace('polish_units = ["1Pol", "2Pol", "3Pol", "PolAT"]', "polish_units = []")
    return text.replace('id = "red-devils"', 'id = "test-red-devils"', 1)


@pytest.fixture
def rd_game(tmp_path, fixed_clock):
    def make(units, dice=(), name="g", polish=False, setup=True) -> Table:
        p = tmp_path / f"{name}.toml"
        p.write_text(scenario_text([dict(u) for u in units], polish))
        t = Table(Game.create(tmp_path / name, str(p), {}, dice=list(dice)))
        if setup:
            t.ok("british", "end")                      # set-up: nothing to place
        return t
    return make


def goto(t: Table, turn: int, phase: int):
    while t.phase() != (turn, phase):
        st = t.state()
        side = t.game.scenario.sequence[st.phase].side
        t.ok(side, "end")


# --- tables and numbers ------------------------------------------------------------

@pytest.mark.parametrize("diff,col", [(-9, 0), (-4, 0), (-3, 0), (-2, 1), (-1, 1), (0, 2), (1, 3), (2, 4), (3, 4),
                                      (4, 5), (6, 5), (7, 6), (9, 6), (10, 7), (13, 7), (14, 8), (30, 8)])
def test_differential_columns_and_edge_clamping(diff, col):
    # 7.6 column headings; 7.2 beyond the edges the edge column is used
    assert column_index(diff) == col


def test_printed_crt_rows_and_lint():
    # 7.6: rows 1 and 2 as printed; the linter knows the result codes
    from pbem.games import ruleset_for
    from pbem.core.scenario import lint, load
    sc = load("red-devils")
    assert sc.crt.rows["1"] == ["Dd", "Dd", "Dd", "Dd", "De*", "De", "De", "De", "De"]
    assert sc.crt.rows["2"] == ["-", "-", "Dd", "Dd", "Dd", "De*", "De", "De", "De"]
    r = ruleset_for("red-devils")
    assert lint(sc, set(r.result_codes)) + r.lint(sc) == []


def test_fractions_are_exact():
    # 4.2: fractions of movement points are kept exactly
    assert frac_text(Fraction(1, 3) * 3) == "1"
    assert frac_text(Fraction(7, 2)) == "3 1/2"


# --- movement (4.x) ------------------------------------------------------------------

def test_road_movement_uses_fractions_and_only_road_hexsides(rd_game):
    t = rd_game([U("Grabner", "german", "2708", 5, "armored reconnaissance"), U("1Para", "british", "0105")])
    goto(t, 1, GM)
    # 4.2: 2709 -> 2809 -> 2909 is the Amsterdamseweg (major road): 1/3 MP each for mechanized units;
    # 2708 -> 2709 is not a road hexside: the town costs 1
    ev = one(t.ok("german", "move Grabner 2709 2809 2909"), E.UnitMoved)
    assert ev.cost == "1 2/3" and ev.mp == 2


def test_mechanized_units_may_not_enter_woods(rd_game):
    t = rd_game([U("Grabner", "german", "2007", 5, "armored reconnaissance"), U("1Para", "british", "0105")])
    goto(t, 1, GM)
    t.refuse("german", "move Grabner 2106", rule="4.9", match="prohibited")   # 2106 woods, no road hexside


def test_zoc_stops_and_leaving_costs_three(rd_game):
    t = rd_game([U("1Para", "british", "0808"), U("Krafft", "german", "1008", 4, "infantry")])
    goto(t, 1, BM)
    t.ok("german", "doctrine never")
    # 4.4: 0908 is next to Krafft: the move must stop there
    t.refuse("british", "move 1Para 0908 0909", rule="4.4")
    t.ok("british", "move 1Para 0908")
    goto(t, 2, BM)
    # leaving a ZOC: +3 and not straight into another ZOC hex (1009 touches 1008)
    t.refuse("british", "move 1Para 1009", rule="4.4")
    ev = one(t.ok("british", "move 1Para 0808"), E.UnitMoved)
    assert ev.cost == "5"                                                    # broken 2 + 3


def test_no_zoc_across_the_neder_rijn(rd_game):
    t = rd_game([U("1Para", "british", "1211"), U("Krafft", "german", "1213", 4, "infantry")])
    goto(t, 1, BM)
    t.ok("german", "doctrine never")
    # 1212 touches Krafft's hex 1213 only across the Neder Rijn: no ZOC there, so the move goes on
    t.ok("british", "move 1Para 1212 1111 1011")
    assert t.game.state().units["1Para"].hex == "1011"


def test_stacking_only_with_the_flak(rd_game):
    t = rd_game([U("Flak", "german", "2214", 3, "flak", range=2), U("Garrison", "german", "2213", 2, "infantry"),
                 U("Knaust", "german", "2113", 5, "infantry"), U("1Para", "british", "0105")])
    goto(t, 1, GM)
    t.refuse("german", "move Knaust 2213", rule="4.3")
    t.ok("german", "move Garrison 2214")             # 4.3 exception: the flak does not count
    t.refuse("german", "move Flak 2213", rule="4.8")


def test_swim_the_rijn_once_with_all_mp(rd_game):
    t = rd_game([U("1Para", "british", "0912"), U("2Para", "british", "0812"), U("Recce", "british", "0711", 2,
                 "airborne reconnaissance"), U("X", "german", "2708", 2, "infantry")])
    goto(t, 1, BM)
    t.refuse("british", "move Recce 0712", rule="4.6")                # mechanized: never
    ev = one(t.ok("british", "move 1Para 0913"), E.UnitMoved)
    assert ev.cost == "10"                                            # 4.6 all its MP
    t.refuse("british", "move 2Para 0813", rule="4.6", match="one unit")


def test_ferry_german_only_once_per_turn(rd_game):
    t = rd_game([U("Krafft", "german", "1112", 4, "infantry"), U("Helle", "german", "1111", 2, "infantry"),
                 U("1Para", "british", "1212")])
    goto(t, 1, GM)
    # 1112 is next to 1Para in 1212: enemy-controlled, no ferry (4.7)
    t.refuse("german", "move Krafft 1113", rule="4.7")


def test_first_turn_armour_and_flak_never_move(rd_game):
    t = rd_game([U("1/9/9SS", "german", "2708", 6, "armor"), U("1Para", "british", "0105")])
    goto(t, 1, GM)
    t.refuse("german", "move 1/9/9SS 2709", rule="4.8")


def test_motorized_infantry_declares_its_mode(rd_game):
    t = rd_game([U("Knaust", "german", "2007", 5, "motorized infantry"), U("1Para", "british", "0105")])
    goto(t, 1, GM)
    t.refuse("german", "move Knaust 2106", rule="4.9")                # mechanized by default: woods prohibited
    ev = one(t.ok("german", "mode Knaust foot 2106"), E.UnitMoved)   # 4.8 non-mechanized: 3 MP
    assert ev.cost == "3"


def test_german_exit_and_reentry_by_letter(rd_game):
    t = rd_game([U("Helle", "german", "0110", 2, "infantry"), U("1Para", "british", "2708")])
    goto(t, 1, GM)
    assert one(t.ok("german", "move Helle off"), E.UnitExited).letter == "A"     # 4.5 from an entry hex, 1 MP
    goto(t, 2, GM)
    t.refuse("german", "move Helle 0113", rule="4.5")                # not before turn 3
    goto(t, 3, GM)
    t.refuse("german", "move Helle 1201", rule="4.5")                # B: wrong letter
    t.ok("german", "move Helle 0113")


def test_reinforcements_scheduled_hex_then_any_same_letter(rd_game):
    t = rd_game([U("Spindler", "german", None, 4, "infantry", turn=2, entry="3009"),
                 U("Helle", "german", None, 2, "infantry", turn=2, entry="A"), U("1Para", "british", "0808")])
    goto(t, 2, GM)
    t.refuse("german", "move Spindler 3004", rule="10.1")
    t.ok("german", "move Helle 0105")                                  # 10.3 any A hex
    goto(t, 3, GM)
    t.ok("german", "move Spindler 3004")                               # 10.2 delayed: any C hex


# --- opportunity fire (5.x) -------------------------------------------------------------

def test_doctrine_fires_automatically_and_is_reported(rd_game):
    # 1Para (4) moves next to Krafft (4): differential 0 -> column 0, woods 0907: one left -> "-1 or -2";
    # die 1: Dd: disrupted, no retreat, the move stops (5.3)
    t = rd_game([U("1Para", "british", "0708"), U("Krafft", "german", "1008", 4, "infantry")], dice=[1])
    goto(t, 1, BM)
    t.ok("german", "doctrine fire-at differential>=0")
    evs = t.ok("british", "move 1Para 0808 0908")
    fire = one(evs, E.OpportunityFire)
    assert (fire.firer, fire.hex, fire.differential, fire.result, fire.by) == ("Krafft", "0908", 0, "Dd", "doctrine")
    assert t.unit("1Para").disrupted and t.hex_of("1Para") == "0908"


def test_doctrine_below_threshold_passes_silently(rd_game):
    t = rd_game([U("1Para", "british", "0708", 6), U("Krafft", "german", "1008", 4, "infantry")])
    goto(t, 1, BM)
    t.ok("german", "doctrine fire-at differential>=0")
    evs = t.ok("british", "move 1Para 0808 0908")
    assert not only(evs, E.OpportunityFire) and t.hex_of("1Para") == "0908"


def test_no_doctrine_pauses_the_move_and_the_answer_resumes_it(rd_game):
    # Flak range 2 in 2214; 1Para walks 2011(city: only adjacent fire) ... test with open ground instead:
    t = rd_game([U("1Para", "british", "1705"), U("Pak", "german", "1907", 3, "anti-tank", range=2)], dice=[6])
    goto(t, 1, BM)
    evs = t.ok("british", "move 1Para 1706 1707")      # 1706 is two hexes from 1907: in range
    pause = one(evs, E.MovePaused)
    assert pause.firers == ["Pak"] and pause.remaining == ["1707"] and t.hex_of("1Para") == "1706"
    aw = t.awaiting()[0]
    assert aw["side"] == "german" and aw["kind"] == "opportunity-fire"
    t.refuse("british", "move 2Para 1605", match="waits for German")
    evs = t.ok("german", "fire Pak")
    # differential 3-4 = -1, woods 1706 one column left: "-3 or less", die 6: Ae, which never hurts the firer
    fire = one(evs, E.OpportunityFire)
    assert (fire.column, fire.result, fire.by) == ("-3 or less", "Ae", "answer")
    assert t.hex_of("1Para") == "1707"               # resumed; Pak already fired at it (5.2): no second pause


def test_pass_answer_lets_the_unit_go_on_and_fire_later(rd_game):
    t = rd_game([U("1Para", "british", "1705"), U("Pak", "german", "1907", 3, "anti-tank", range=2)])
    goto(t, 1, BM)
    t.ok("british", "move 1Para 1706 1707")
    evs = t.ok("german", "pass")
    assert one(evs, E.OpportunityFirePassed).firers == ["Pak"]
    assert one(evs, E.MovePaused).hex == "1707"      # still in range at the next hex: asked again


def test_clearing_a_unit_exception_brings_back_the_side_doctrine(rd_game):
    # 5.0: German doctrine "never", but Pak always fires: it fires at 1Para in 1706 (differential -1, woods:
    # "-3 or less", die 6: Ae, which never hurts the firer).  Once cleared (`doctrine Pak default`), Pak follows
    # "never" again: 2Para walks through the same hex, in range and unshot (Pak may still fire at it, 5.2).
    t = rd_game([U("1Para", "british", "1705"), U("2Para", "british", "1704"),
                 U("Pak", "german", "1907", 3, "anti-tank", range=2)], dice=[6])
    goto(t, 1, BM)
    t.ok("german", "doctrine never")
    t.ok("german", "doctrine Pak always")
    fire = one(t.ok("british", "move 1Para 1706 1707"), E.OpportunityFire)
    assert (fire.firer, fire.target, fire.hex, fire.by) == ("Pak", "1Para", "1706", "doctrine")
    ds = one(t.ok("german", "doctrine Pak default"), E.DoctrineSet)
    assert (ds.default, ds.units, ds.cleared) == ("never", {}, "Pak")
    evs = t.ok("british", "move 2Para 1705 1706")
    assert not only(evs, E.OpportunityFire) and not only(evs, E.MovePaused) and t.hex_of("2Para") == "1706"


def test_clearing_an_exception_is_logged_described_and_refused_precisely(rd_game):
    # 5.0: only a unit of one's own side that has an exception can be cleared; the others keep theirs
    t = rd_game([U("1Para", "british", "0708"), U("Krafft", "german", "1008", 4, "infantry"),
                 U("Pak", "german", "1907", 3, "anti-tank", range=2)])
    goto(t, 1, BM)
    t.ok("german", "doctrine fire-at differential>=0")
    t.refuse("german", "doctrine Pak default", rule="5.0",
             match="Pak has no doctrine exception to clear: it already follows the German doctrine "
                   "(fire-at differential>=0)")
    t.refuse("german", "doctrine 1Para default", match="1Para is not a German unit")
    t.refuse("german", "doctrine default", rule="5.0", match="doctrine UNIT default")
    t.refuse("german", "doctrine Pak sometimes", rule="5.0", match="or default")
    t.ok("german", "doctrine Pak always")
    t.ok("german", "doctrine Krafft never")
    t.refuse("british", "doctrine Pak default", match="Pak is not a British unit")
    ds = one(t.ok("german", "doctrine pak default"), E.DoctrineSet)
    assert (ds.side, ds.default, ds.units, ds.cleared) == ("german", "diff>=0", {"Krafft": "never"}, "Pak")
    assert rd_of(t.state()).doctrine["german"].units == {"Krafft": "never"}
    assert render.describe(ds, t.game.scenario, "referee") == (
        "German opportunity-fire doctrine: Pak's exception cleared, it follows the side's doctrine again: "
        "diff>=0 (exceptions: Krafft never) (5.0).")
    t.refuse("german", "doctrine Pak default", rule="5.0", match="no doctrine exception")


def test_adjacent_units_fire_before_a_unit_leaves(rd_game):
    # 5.1: 1Para starts next to Krafft; fire is resolved in the start hex, die 1 -> Dd, it never moves
    t = rd_game([U("1Para", "british", "0908"), U("Krafft", "german", "1008", 4, "infantry")], dice=[1])
    goto(t, 1, BM)
    t.ok("german", "doctrine always")
    evs = t.ok("british", "move 1Para 0808")
    assert one(evs, E.OpportunityFire).hex == "0908"
    assert not only(evs, E.UnitMoved) and t.unit("1Para").disrupted


def test_disrupted_while_stacked_is_eliminated(rd_game):
    # 5.3: 2Para passes through 1Para's hex 0809 and is disrupted there
    t = rd_game([U("1Para", "british", "0809"), U("2Para", "british", "0709"),
                 U("Pak", "german", "1009", 3, "anti-tank", range=2)], dice=[1])
    goto(t, 1, BM)
    t.ok("german", "doctrine always")
    t.ok("british", "doctrine never")
    evs = t.ok("british", "move 2Para 0809 0808")
    assert "stacked" in one(evs, E.UnitEliminated).reason


def test_no_fire_into_a_city_except_adjacent(rd_game):
    # 5.4: the flak (range 2) may not fire at a unit two hexes away in a city hex
    t = rd_game([U("1Para", "british", "1910"), U("Flak", "german", "2112", 3, "flak", range=2)])
    goto(t, 1, BM)
    t.ok("german", "doctrine always")
    evs = t.ok("british", "move 1Para 2010")
    assert not only(evs, E.OpportunityFire)


def test_firing_differential_floor_minus_three(rd_game):
    t = rd_game([U("1Para", "british", "0708", 9), U("Helle", "german", "1008", 2, "infantry")], dice=[6])
    goto(t, 1, BM)
    t.ok("german", "doctrine always")
    fire = one(t.ok("british", "move 1Para 0808 0908"), E.OpportunityFire)
    assert fire.differential == -7 and fire.column == "-3 or less"   # 5.2


# --- combat (6.x, 7.x) -------------------------------------------------------------------

def test_attack_needs_an_adjacent_unit_and_limits_ranged_support(rd_game):
    t = rd_game([U("1Para", "british", "0908"), U("LtRA", "british", "0606", 4, "airborne artillery", range=5),
                 U("LtRB", "british", "0605", 4, "airborne artillery", range=5),
                 U("Krafft", "german", "1008", 4, "infantry")], dice=[3])
    goto(t, 1, BC)
    t.refuse("british", "attack 1008 with LtRA", rule="6.8")
    t.refuse("british", "attack 1008 with 1Para LtRA LtRB", rule="6.6")


def test_dd_owner_chooses_retreat_or_disruption_then_advance(rd_game):
    # diff 8-4=+4 -> "+4 to +6"; Krafft in woods 1008: one left -> "+2 to +3"; die 2: Dd
    t = rd_game([U("1Para", "british", "0908", 8), U("Krafft", "german", "1008", 4, "infantry")], dice=[2])
    goto(t, 1, BC)
    evs = t.ok("british", "attack 1008 with 1Para")
    res = one(evs, E.CombatResolved)
    assert res.odds == "+2 to +3" and res.result == "Dd"
    d = one(evs, E.DecisionRequired)
    assert d.side == "german" and d.decision == "retreat"
    opts = [" ".join(o) for o in d.options]
    evs = t.ok("german", f"retreat Krafft {opts[0]}")
    d2 = one(evs, E.DecisionRequired)
    assert d2.decision == "advance" and ["1Para", "1008"] in d2.options
    assert ["1Para", "1008", opts[0].split()[0]] in d2.options        # 7.8 two hexes along the retreat
    t.ok("british", "advance 1Para 1008")


def test_dd_standing_answer_disrupts_and_second_dd_forces_retreat(rd_game):
    t = rd_game([U("1Para", "british", "0908", 8), U("2Para", "british", "0907", 8),
                 U("Krafft", "german", "1008", 4, "infantry")], dice=[2, 2])
    goto(t, 1, BC)
    t.ok("german", "doctrine dd disrupt")
    evs = t.ok("british", "attack 1008 with 1Para")
    assert one(evs, E.UnitDisrupted).unit == "Krafft"
    goto(t, 1, GC)
    goto(t, 2, BC)        # German disruption removal (8.0) flipped Krafft back; disrupt it again, then...
    assert not t.unit("Krafft").disrupted


def test_surrounded_defender_shifts_right_except_in_city(rd_game):
    t = rd_game([U("A", "british", "0707", 4), U("B", "british", "0908", 4), U("C", "british", "0809", 4),
                 U("Krafft", "german", "0808", 4, "infantry")], dice=[6])
    goto(t, 1, BC)
    res = one(t.ok("british", "attack 0808 with A B C"), E.CombatResolved)
    assert any("surrounded" in m for m in res.modifiers)


def test_anti_tank_cover_shifts_left_against_armour(rd_game):
    t = rd_game([U("StuG", "german", "0908", 8, "armor"), U("1Para", "british", "0808"),
                 U("1ATBty", "british", "0807", 3, "airborne anti-tank", range=2)], dice=[6])
    goto(t, 1, GC)
    res = one(t.ok("german", "attack 0808 with StuG"), E.CombatResolved)
    assert any("7.4" in m for m in res.modifiers)


def test_ae_eliminates_adjacent_attackers_only(rd_game):
    # diff 4-8 = -4 -> column 0; die 6: Ae
    t = rd_game([U("1Para", "british", "0908", 4), U("AT", "british", "0907", 1, "airborne anti-tank", range=2),
                 U("Krafft", "german", "0909", 8, "infantry")], dice=[6])
    goto(t, 1, BC)
    evs = t.ok("british", "attack 0909 with 1Para AT")
    assert [e.unit for e in only(evs, E.UnitEliminated)] == ["1Para"]


# --- disruption (8.x) and air landings (9.x) ------------------------------------------------

def test_air_landing_placement_rules(rd_game):
    t = rd_game([U("1Para", "british", None, turn=1, drop_zones=["0708"]),
                 U("2Para", "british", None, turn=1, drop_zones=["0708"]),
                 U("X", "german", "2818", 2, "infantry")], dice=[6, 6])
    t.refuse("british", "move 1Para 0808", rule="9.0, 9.8")           # 9.0 the landing comes first
    t.refuse("british", "land 1Para 0812", rule="9.0")                # more than three hexes from 0708
    t.refuse("british", "land 1Para 0507", rule="9.1")                # woods
    t.ok("british", "land 1Para 0709")
    t.refuse("british", "land 2Para 0709", rule="9.2")                # occupied, even by a friend
    evs = t.ok("british", "land 2Para 0710")                          # the last one: fire, then the table
    res = only(evs, E.AirLandingResolved)
    assert [r.unit for r in res] == ["1Para", "2Para"] and all(r.result == "-" for r in res)
    assert rd_of(t.state()).landing is None
    t.ok("british", "move 1Para 0809")                                # 9.5 undisrupted units move at once


def test_air_landing_table_modifiers(rd_game):
    # 9.9: 0808 is broken (-1) and touches the woods 0907 (-1): die 2 -> 0: E
    t = rd_game([U("1Para", "british", None, turn=1, drop_zones=["0708"]), U("X", "german", "2818", 2, "infantry")],
                dice=[2])
    evs = t.ok("british", "land 1Para 0808")
    r = one(evs, E.AirLandingResolved)
    assert (r.total, r.result) == (0, "E") and len(r.modifiers) == 2
    assert one(evs, E.UnitEliminated).unit == "1Para"


def test_double_strength_fire_then_second_disruption_eliminates(rd_game):
    # 9.3: Krafft (4, doubled 8) fires at 1Para (4) landing next to it in clear 0606: diff +4 -> "+4 to +6",
    # die 2: De* -> De? no: die 3 -> Dd: disrupted; then the table: die 3 -> D again: eliminated
    t = rd_game([U("1Para", "british", None, turn=1, drop_zones=["0708"]), U("Krafft", "german", "0605", 4, "infantry")],
                dice=[3, 3])
    t.ok("german", "doctrine always")
    evs = t.ok("british", "land 1Para 0606")
    fire = one(evs, E.OpportunityFire)
    assert fire.fire_strength == 8 and fire.result == "Dd"
    assert one(evs, E.UnitEliminated).rule == "9.3"


def test_british_recovery_limited_by_command_points(rd_game):
    # 8.5: turn 2 gives 2 command points; three British units are disrupted by the landing (die 2 -> D)
    units = [U(f"P{i}", "british", None, turn=2, drop_zones=["2818"]) for i in range(3)]
    t = rd_game(units + [U("Helle", "german", "0105", 2, "infantry")], dice=[2, 2, 2])
    goto(t, 2, BM)
    t.ok("british", "land P0 2817\nland P1 2818\nland P2 2819")
    assert all(t.unit(f"P{i}").disrupted for i in range(3))
    goto(t, 2, BR)
    aw = t.awaiting()[0]
    assert aw["kind"] == "recover" and "at most 2" in aw["order"]
    t.refuse("british", "recover P0 P1 P2", rule="8.5")
    evs = t.ok("british", "recover P0 P2")
    assert one(evs, E.UnitsRecovered).units == ["P0", "P2"] and t.unit("P1").disrupted


def test_german_units_all_recover(rd_game):
    t = rd_game([U("1Para", "british", "0908", 8), U("Krafft", "german", "1008", 4, "infantry")], dice=[2])
    goto(t, 1, GM)
    t.ok("german", "end")
    goto(t, 2, BC)
    t.ok("german", "doctrine dd disrupt")
    evs = t.ok("british", "attack 1008 with 1Para")
    assert one(evs, E.UnitDisrupted).unit == "Krafft"
    goto(t, 2, GM)
    assert t.unit("Krafft").disrupted                                 # 8.1 it may not move now
    t.refuse("german", "move Krafft 1108", rule="8.1")
    goto(t, 3, BC)                                                    # 8.0: every German unit flipped back
    assert not t.unit("Krafft").disrupted


# --- railway bridge (11.0) and victory (12.x) -----------------------------------------------

def test_railway_bridge_roll_on_first_entry(rd_game):
    t = rd_game([U("1Para", "british", "1511"), U("X", "german", "2818", 2, "infantry")], dice=[4])
    goto(t, 1, BM)
    evs = t.ok("british", "move 1Para 1512 1513")
    assert one(evs, E.MovePaused).question == "bridge" and t.hex_of("1Para") == "1512"
    t.refuse("german", "fire X", match="demolish")
    evs = t.ok("german", "demolish")
    assert one(evs, E.BridgeDemolition).destroyed                     # 1-5 destroys
    assert t.hex_of("1Para") == "1512"                                # the bridge is gone under the rest of the move
    assert t.game.rules.unbridged_rijn(t.state(), t.game.scenario, "1512", "1513")


def test_victory_lines_bridge_pair_and_levels(rd_game):
    t = rd_game([U("A", "british", "2214"), U("B", "british", "2314"), U("X", "german", "0105", 2, "infantry")])
    st = t.state()
    vc = t.game.rules.count_victory(st, t.game.scenario)
    assert vc.hexes["2214"] == 4 and vc.hexes["2314"] == 4             # 12.3: eight for the pair
    assert vc.lines["2214"] == ["2214"]
    assert vc.level == "German Median Victory" or vc.total >= 8


def test_shorter_german_line_denies_the_hex(rd_game):
    # 12.2: 1410 is reached by both; the German line is shorter
    t = rd_game([U("A", "british", "0808"), U("X", "german", "1510", 2, "infantry")])
    vc = t.game.rules.count_victory(t.state(), t.game.scenario)
    assert "1410" not in vc.hexes and "1006" in vc.hexes


def test_game_ends_after_turn_ten_with_a_level(rd_game):
    t = rd_game([U("A", "british", "0808"), U("X", "german", "2818", 2, "infantry")])
    goto(t, 10, GC)
    evs = t.ok("german", "end")
    vc = one(evs, E.VictoryCounted)
    end = one(evs, E.GameEnded)
    assert end.rule == "12.6" and vc.level in end.reason


# --- the example game ---------------------------------------------------------------------

EXAMPLE = Path(__file__).resolve().parent.parent / "examples" / "red-devils"


def test_example_game_plays_ten_turns_to_a_level_of_victory_and_verifies(tmp_path):
    import tomllib
    book = tomllib.loads((EXAMPLE / "playbook.toml").read_text())
    g = Game.create(tmp_path / "ex", book["scenario"], book["players"], seed_hex=book["seed"], game_id=book["id"],
                    at="2026-01-01T00:00:00Z")
    for step in book["steps"]:
        side = step.rsplit("-", 1)[1].removesuffix(".txt")
        sub = g.submit(side, (EXAMPLE / step).read_text(), at="2026-01-01T00:00:00Z")
        assert sub.refused is None, f"{step}: {sub.refused}"
    st = g.state()
    assert st.turn == 10 and st.result is not None and st.result.rule == "12.6"
    assert st.result.reason.startswith(("British", "German"))                  # a level of victory
    evs = [e.event for e in g.entries()]
    fires = [e for e in evs if isinstance(e, E.OpportunityFire)]
    assert {"doctrine", "answer"} <= {f.by for f in fires}                      # both kinds of opportunity fire
    assert any(isinstance(e, E.OpportunityFirePassed) and e.by == "answer" for e in evs)
    assert any(isinstance(e, E.MovePaused) and e.side == "british" for e in evs)
    assert any(isinstance(e, E.MovePaused) and e.side == "german" for e in evs)
    assert any(isinstance(e, E.OpportunityFire) and e.fire_strength == 2 * st.units[e.firer].strength for e in evs)
    assert {e.unit for e in evs if isinstance(e, E.AirLandingResolved)} >= {"1Para", "11Para", "1Pol"}
    assert any(isinstance(e, E.SecretRevealed) and e.name == "polish-dz" for e in evs)
    assert any(isinstance(e, E.VictoryCounted) for e in evs)
    rep = g.verify()
    assert rep.ok, rep.problems


# --- more cases -------------------------------------------------------------------------------

def test_artillery_may_not_attack_on_its_landing_turn(rd_game):
    # 9.6: LtRA lands on turn 1 and may not join the British combat of turn 1
    t = rd_game([U("LtRA", "british", None, 4, "airborne artillery", turn=1, range=5, drop_zones=["0708"]),
                 U("1Para", "british", "0908"), U("Krafft", "german", "1008", 4, "infantry")], dice=[6, 6])
    t.ok("german", "doctrine never")
    t.ok("british", "land LtRA 0709")
    goto(t, 1, BC)
    t.refuse("british", "attack 1008 with 1Para LtRA", rule="9.6")


def test_railway_bridge_hexes_worthless_once_destroyed(rd_game):
    # 12.4: 1513 and 1514 give no VP after the bridge is blown
    t = rd_game([U("1Para", "british", "1511"), U("2Para", "british", "1514"), U("X", "german", "2818", 2, "infantry")],
                dice=[1])
    before = t.game.rules.count_victory(t.state(), t.game.scenario)
    assert "1514" in before.hexes
    goto(t, 1, BM)
    t.ok("german", "doctrine bridge demolish")
    assert one(t.ok("british", "move 1Para 1512"), E.BridgeDemolition).destroyed
    after = t.game.rules.count_victory(t.state(), t.game.scenario)
    assert "1514" not in after.hexes and "1513" not in after.hexes


def test_ferry_carries_one_german_unit_a_turn(rd_game):
    t = rd_game([U("Krafft", "german", "1112", 4, "infantry"), U("Helle", "german", "1111", 2, "infantry"),
                 U("1Para", "british", "0105")])
    goto(t, 1, GM)
    ev = one(t.ok("german", "move Krafft 1113"), E.UnitMoved)
    assert ev.cost == "6"                                               # 4.7: 5 (reconstructed) + clear 1
    t.refuse("german", "move Helle 1112 1113", rule="4.7")             # one unit per game-turn
    t.refuse("british", "end")                                          # (not the British phase)


def test_zoc_of_disrupted_units_may_be_crossed_for_three(rd_game):
    # Krafft walks next to 1Para and is disrupted by British doctrine fire (4-4 = 0, woods: "-2 to -1",
    # die 1: Dd).  Next turn B enters 0807, controlled only by the disrupted Krafft, and goes on (4.4):
    # +3 to leave, never straight into another controlled hex.
    t = rd_game([U("1Para", "british", "0808"), U("B", "british", "0806"), U("Krafft", "german", "1108", 4, "infantry")],
                dice=[1])
    t.ok("british", "doctrine always")
    goto(t, 1, GM)
    fire = one(t.ok("german", "move Krafft 1008 0907"), E.OpportunityFire)
    assert fire.result == "Dd" and t.unit("Krafft").disrupted
    goto(t, 2, BM)
    t.refuse("british", "move B 0807 0808", rule="4.4")
    ev = one(t.ok("british", "move B 0807 0707"), E.UnitMoved)
    assert ev.cost == "7"                                              # broken 2, broken 2 + 3


def test_de_star_in_a_city_is_a_dd(rd_game):
    # 7.6 De*: 2011 is city.  12-2 = +10 -> column "+10 to +13", city two left -> "+4 to +6", die 2: De* -> Dd
    t = rd_game([U("A", "british", "1910", 6), U("B", "british", "2010", 6), U("G", "german", "2011", 2, "infantry")],
                dice=[2])
    goto(t, 1, BC)
    t.ok("german", "doctrine dd disrupt")
    evs = t.ok("british", "attack 2011 with A B")
    assert one(evs, E.CombatResolved).result == "De*"
    assert one(evs, E.UnitDisrupted).unit == "G" and not only(evs, E.UnitEliminated)


def test_flak_stack_defends_together_and_the_flak_never_retreats(rd_game):
    # 4.3, 4.8: Flak (3) and Garrison (2) in 2214 defend as one; a Dd disrupts the flak in place
    t = rd_game([U("Flak", "german", "2214", 3, "flak", range=2), U("Garrison", "german", "2313", 2, "infantry"),
                 U("A", "british", "2113", 8), U("B", "british", "2114", 8)], dice=[3])
    t.ok("british", "doctrine never")
    goto(t, 1, GM)
    t.ok("german", "move Garrison 2214")
    goto(t, 2, BC)
    t.ok("german", "doctrine dd disrupt")
    evs = t.ok("british", "attack 2214 with A B")
    res = one(evs, E.CombatResolved)
    assert res.defenders == ["Flak", "Garrison"] and res.defence_strength == 5
    assert {e.unit for e in only(evs, E.UnitDisrupted)} == {"Flak", "Garrison"}


def test_entry_hex_held_by_the_enemy_delays_the_reinforcement(rd_game):
    # 10.1: Spindler's hex 3009 is British-occupied: it may not enter there
    t = rd_game([U("Spindler", "german", None, 4, "infantry", turn=1, entry="3009"), U("1Para", "british", "3009")])
    goto(t, 1, GM)
    t.refuse("german", "move Spindler 3009", rule="10.1")


def test_documented_defaults_play_a_whole_game_to_a_level(tmp_path):
    # every awaited decision has a default (design.md): ten turns of deadlines end in a level of victory
    g = Game.create(tmp_path / "d", "red-devils", seed_hex="11" * 32, game_id="rd-defaults", at="2026-01-01T00:00:00Z")
    for _ in range(3000):
        st = g.state()
        if st.result:
            break
        side = g.rules.awaiting(st, g.scenario)[0]["side"]
        sub = g.submit(side, "\n".join(g.rules.default_orders(st, g.scenario, side)), by="deadline",
                       at="2026-01-01T00:00:00Z")
        assert sub.refused is None, sub.refused
    assert g.state().result.rule == "12.6"


def test_adjacent_fire_before_leaving_also_across_the_rijn(rd_game):
    # 5.1 speaks of adjacency, not of zones of control: 1212 and 1213 touch across the Neder Rijn
    # (no ZOC there, 4.4), yet Krafft may fire before 1Para leaves.  4-4 = 0 in rough 1212: "-3 or less",
    # die 1: Dd
    t = rd_game([U("1Para", "british", "1212"), U("Krafft", "german", "1213", 4, "infantry")], dice=[1])
    t.ok("german", "doctrine always")
    goto(t, 1, BM)
    evs = t.ok("british", "move 1Para 1211")
    assert one(evs, E.OpportunityFire).hex == "1212" and t.unit("1Para").disrupted and t.hex_of("1Para") == "1212"


# --- Polish landing with units in the way (9.1, 9.2, 9.7, 9.8) ------------------------------------
# 1002 and 2502 have exactly four valid landing hexes within three (9.7): 0701 0702 0703 1005 and
# 2801-2804.  German units standing on some of them leave fewer than four free on turn 9.

POLES = ["1Pol", "2Pol", "3Pol", "PolAT"]


def polish_game(rd_game, germans, dice):
    units = [U(p, "british", None, 3 if p == "PolAT" else 4, turn=9) for p in POLES]
    t = rd_game(units + [U(f"G{h}", "german", h, 2, "infantry") for h in germans], dice=dice, polish=True,
                setup=False)
    t.ok("british", "secret polish-dz 1002 2502\nend")
    t.ok("german", "doctrine never")
    goto(t, 9, BM)
    t.ok("british", "unveil polish-dz")
    return t


def test_polish_default_lands_all_four_around_the_zone_with_room(rd_game):
    # 9.7, 9.2: 1002 has three free hexes (G1005 stands on the fourth), 2502 four: the default takes 2502
    t = polish_game(rd_game, ["1005"], dice=[6] * 4)
    st = t.state()
    orders = t.game.rules.default_orders(st, t.game.scenario, "british")
    assert orders == [f"land {p} {h}" for p, h in zip(POLES, ["2801", "2802", "2803", "2804"])]
    evs = t.ok("british", "\n".join(orders))
    assert {r.unit for r in only(evs, E.AirLandingResolved)} == set(POLES)
    assert rd_of(t.state()).landing is None and t.awaiting()[0]["kind"] == "movement"


def _no_room(rd_game, dice):
    # 9.2: three free hexes around each zone: no zone can take all four Poles
    return polish_game(rd_game, ["1005", "2804"], dice=dice)


def test_polish_unit_with_no_legal_hex_is_lost_by_the_default(rd_game):
    # 9.8 no delay, 9.2 no sharing: our ruling, the Pole left without a hex is lost in the drop
    t = _no_room(rd_game, dice=[6] * 3)
    orders = t.game.rules.default_orders(t.state(), t.game.scenario, "british")
    assert orders == ["land 1Pol 0701", "land 2Pol 0702", "land 3Pol 0703", "land PolAT lost"]
    evs = t.ok("british", "\n".join(orders))
    lost = one(evs, E.UnitEliminated)
    assert (lost.unit, lost.rule) == ("PolAT", "9.8, 9.2") and "lost in the drop" in lost.reason
    assert len(only(evs, E.AirLandingResolved)) == 3 and t.unit("PolAT").eliminated
    assert rd_of(t.state()).landing is None and t.awaiting()[0]["kind"] == "movement"
    text = t.game.rules.describe_event(lost, t.game.scenario)
    assert text.startswith("PolAT is eliminated: lost in the drop") and text.endswith("(9.8, 9.2).")
    assert t.game.verify().ok


def test_polish_unit_with_no_legal_hex_is_lost_by_the_players_order(rd_game):
    # 9.8: "lost" is refused while a legal hex is left; 9.7 once 1Pol is down by 1002, 2502 is out of reach
    t = _no_room(rd_game, dice=[6] * 3)
    t.refuse("british", "land PolAT lost", rule="9.8")
    t.ok("british", "land 1Pol 0701\nland 2Pol 0702\nland 3Pol 0703")
    aw = t.awaiting()[0]
    assert aw["units"] == ["PolAT"] and "land UNIT lost" in aw["order"] and "9.8" in aw["rule"]
    t.refuse("british", "land PolAT 2801", rule="9.7")
    evs = t.ok("british", "land PolAT lost")
    assert one(evs, E.UnitEliminated).unit == "PolAT" and len(only(evs, E.AirLandingResolved)) == 3
    t.ok("british", "move 1Pol 0801")                                 # 9.5 the movement phase goes on
    assert t.game.verify().ok
