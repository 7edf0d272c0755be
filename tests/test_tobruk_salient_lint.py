"""Advanced Tobruk: the Salient card (scenarios/tobruk-salient.toml) and the lint of the
special-rule fields of side notes, artillery and limited intelligence (issue 14).

Each test breaks the shipped card in one place and checks that `pbem scenario lint`
names the key and the rule; the shipped card itself lints clean."""
from __future__ import annotations

import re

import pytest
from click.testing import CliRunner

from pbem.cli import main
from pbem.core import scenario as S
from pbem.core.scenario import SCENARIO_DIR
from pbem.games import ruleset_for

CARD = (SCENARIO_DIR / "tobruk-salient.toml").read_text()


def problems(text: str) -> list[str]:
    # a changed card only: loads() caches by the bytes, so the shipped bytes are loaded by their path
    assert text != CARD
    sc = S.loads(text.encode(), "test-salient.toml")
    return lint(sc)


def lint(sc) -> list[str]:
    rules = ruleset_for(sc.game)
    return S.lint(sc, set(rules.result_codes), stacking=rules.setup_stacking) + rules.lint(sc)


def broken(old: str, new: str, count: int = 1) -> list[str]:
    assert CARD.count(old) >= count, f"{old!r} is not in the card"
    return problems(CARD.replace(old, new, count))


def has(errs: list[str], *parts: str) -> bool:
    return any(all(p in e for p in parts) for e in errs)


def test_the_shipped_salient_card_lints_clean_by_the_cli():
    r = CliRunner().invoke(main, ["scenario", "lint", "tobruk-salient"])
    assert r.exit_code == 0, r.output
    assert "ok (22 units" in r.output


def test_the_card_uses_every_special_rule_field_and_says_reconstructed():
    sc = S.load("tobruk-salient")
    assert lint(sc) == []
    gd = sc.game_data
    for key in ("artillery", "registrations", "limited_intelligence", "hidden", "dummies", "mines",
                "command_control", "elite", "apcr", "setup_area"):
        assert gd.get(key), key
    assert {b["side"] for b in gd["artillery"].values()} == {"british", "german"}     # counter-battery both ways
    assert gd["dummies"]["british"]["count"] == 1
    # 32.22 the hidden units have no hex; the dummy candidates share type and name (the file tells nothing)
    assert all(sc.unit_defs[u].hex is None and sc.unit_defs[u].entry_turn == 0 for u in gd["hidden"]["british"])
    cands = gd["dummies"]["british"]["counters"]
    assert len({(sc.unit_defs[u].type, sc.unit_defs[u].name) for u in cands}) == 1
    assert "reconstructed" in CARD and sc.game_data.get("reconstructed") is True
    assert "scenario card, map, counters and special rules reconstructed" in CARD     # never shown as printed


def test_the_r33_card_without_special_rules_still_lints_clean():
    assert lint(S.load("tobruk-r33")) == []


# --- 18.1 batteries, 18.82 forward observers ---------------------------------------------------

def test_a_battery_of_an_unknown_side_is_refused():
    errs = broken('side = "german"\nnation = "german"', 'side = "italian"\nnation = "german"')
    assert has(errs, "game_data.artillery.AR75.side", "'italian' is not a side")


def test_a_battery_nation_not_of_its_side_is_refused():
    errs = broken('side = "german"\nnation = "german"', 'side = "german"\nnation = "british"')
    assert has(errs, "game_data.artillery.AR75.nation", "not a nationality of german")


def test_an_unknown_fire_kind_and_a_barrage_turn_off_the_track_are_refused():
    errs = broken('fire = ["concentration", "barrage"]\nbarrage_turns = [1, 2, 3, 4, 5, 6, 7, 8]',
                  'fire = ["concentration", "barrage", "stonk"]\nbarrage_turns = [1, 9]')
    assert has(errs, "game_data.artillery.RHA.fire", "'stonk' is not one of concentration, barrage, rolling")
    assert has(errs, "game_data.artillery.RHA.barrage_turns", "9 is not a turn of the game (1..8)")


def test_a_barrage_needs_a_registration_and_a_rolling_one_its_track():
    errs = broken("registrations = { RHA = 2,", "registrations = {")
    assert has(errs, "game_data.artillery.RHA.fire", "barrage needs a registration hex (18.722")
    errs = broken('fire = ["concentration", "barrage"]', 'fire = ["rolling"]')
    assert has(errs, "game_data.artillery.RHA.rolling", "18.732")


def test_each_battery_needs_a_forward_observer_counter():
    errs = broken('nation = "british"\nfo = true', 'nation = "british"\nfo = false')
    assert has(errs, "british has 1 off-board batteries but 0 forward observers", "18.82")


# --- 18.5, 18.54, 19.6 registrations ------------------------------------------------------------

def test_a_registration_of_an_unknown_battery_is_refused():
    errs = broken("registrations = { RHA = 2,", "registrations = { RHA = 2, BTY9 = 1,")
    assert has(errs, "game_data.registrations.BTY9", "no off-board battery or unit of that id")


def test_a_registration_for_a_squad_or_a_count_of_zero_is_refused():
    errs = broken("W2 = 1, H1 = 1", "W2 = 0, A1 = 1, H1 = 1")
    assert has(errs, "game_data.registrations.A1", "A1 is a squad", "18.52, 18.54")
    assert has(errs, "game_data.registrations.W2", "0 registrations")


def test_an_on_board_weapon_of_the_second_side_to_set_up_cannot_register():
    # 18.54: recorded before the opponent sets up; the British (the defender) set up first
    errs = broken("W2 = 1, H1 = 1", "W2 = 1, P1 = 1, H1 = 1")
    assert has(errs, "game_data.registrations.P1", "german on-board weapon", "british sets up first (2.48)")


# --- 32.2 hidden set-up, 32.24 dummies -------------------------------------------------------

def test_a_hidden_unit_with_a_hex_is_refused():
    errs = broken('{ id = "Cr1", side = "british", nationality = "australian", type = "brit-crew", '
                  'strength = 1, ma = 0, entry_turn = 0,',
                  '{ id = "Cr1", side = "british", nationality = "australian", type = "brit-crew", '
                  'strength = 1, ma = 0, hex = "0904",')
    assert has(errs, "units[Cr1]", "a hidden unit has no hex and entry_turn = 0", "32.22")


def test_a_unit_without_a_hex_must_be_listed_hidden():
    errs = broken('hidden = { british = ["H1", "H2", "H3", "Cr1", "Cr2"] }',
                  'hidden = { british = ["H1", "H2", "H3", "Cr1"] }')
    assert has(errs, "units[Cr2]", "not in game_data.hidden", "32.21")


def test_a_hidden_unit_of_the_other_side_or_unknown_is_refused():
    errs = broken('hidden = { british = ["H1", "H2", "H3", "Cr1", "Cr2"] }',
                  'hidden = { british = ["H1", "H2", "H3", "Cr1", "Cr2", "G1", "X9"] }')
    assert has(errs, "game_data.hidden.british", "G1 is a german unit")
    assert has(errs, "game_data.hidden.british", "'X9' is no unit")


def test_a_hidden_unit_facing_in_the_public_file_is_refused():
    errs = broken('P4 = { facing = "E" }', 'P4 = { facing = "E" }\nH1 = { facing = "W" }')
    assert has(errs, "game_data.units.H1", "side notes")


def test_a_set_up_area_without_hiding_terrain_is_refused():
    area = re.search(r'setup_area.british = \[.*?\n\]', CARD, re.S).group(0)
    errs = broken(area, 'setup_area.british = ["0801", "0802"]')
    assert has(errs, "game_data.hidden.british", "no hex of its set-up area hides a unit", "32.21")


def test_hidden_set_up_needs_limited_intelligence():
    errs = broken("limited_intelligence = true", "limited_intelligence = false")
    assert has(errs, "game_data.hidden", "limited_intelligence = true (32)")


def test_dummy_count_counters_and_names():
    errs = broken("counters = [\"H1\", \"H2\", \"H3\"], count = 1", "counters = [\"H1\", \"H2\", \"A2\"], count = 4")
    assert has(errs, "game_data.dummies.british.count", "1 to 3")
    assert has(errs, "game_data.dummies.british.counters", "A2 is neither a heavy weapon nor a vehicle (32.241)")
    assert has(errs, "game_data.dummies.british.counters", "tells the dummy apart")


def test_a_dummy_candidate_with_its_own_name_gives_the_dummy_away():
    errs = broken('type = "2pdr-gun", strength = 1, ma = 0, entry_turn = 0, name = "anti-tank gun, 2/3rd',
                  'type = "2pdr-gun", strength = 1, ma = 0, entry_turn = 0, name = "dummy gun, 2/3rd')
    assert has(errs, "game_data.dummies.british.counters", "one type and one name")


# --- 31.1 minefields, set-up areas --------------------------------------------------------------

def test_a_minefield_area_hex_off_the_map_or_on_a_pit_is_refused():
    errs = broken('area = ["0602",', 'area = ["1513", "0805", "0602",')
    assert has(errs, "game_data.mines.british.area", "'1513' is not on the map")
    assert has(errs, "game_data.mines.british.area", "0805 holds a pit", "31.13")


def test_minefield_counts_and_keys():
    errs = broken("factors = 10\nhidden = 2\ndummies = 1", "factors = 10\nhidden = 12\ndummies = -1\nlanes = 2")
    assert has(errs, "game_data.mines.british.hidden", "12 hidden minefields: 0 to 10", "31.15")
    assert has(errs, "game_data.mines.british.dummies", "31.191")
    assert has(errs, "game_data.mines.british.lanes", "unknown key")


def test_a_set_up_area_off_the_map_is_refused():
    errs = broken('"1212",\n]', '"1212", "1212", "0013",\n]')
    assert has(errs, "game_data.setup_area.british", "'0013' is not on the map")
    assert has(errs, "game_data.setup_area.british", "1212 listed twice")


# --- 24 armour command control, elite commanders; 17.23; 9.12 crews ------------------------

def test_elite_commanders_and_command_control_need_afvs_of_a_real_side():
    errs = broken('command_control = ["german"]', 'command_control = ["german", "italian"]')
    assert has(errs, "game_data.command_control[1]", "'italian' is not a side")
    errs = broken("elite = { german = 1 }", "elite = { german = 5, british = 2 }")
    assert has(errs, "game_data.elite.german", "5 elite commanders for 4 AFVs (24.07)")
    assert has(errs, "game_data.elite.british", "2 elite commanders for 1 AFVs")


def test_each_crew_served_weapon_needs_a_crew():
    text = re.sub(r'\n  \{ id = "Cr2".*\n', "\n", CARD)
    text = text.replace('"Cr1", "Cr2"]', '"Cr1"]')
    errs = problems(text)
    assert has(errs, "british has 4 crew-served weapons without a holder (W2, H1, H2, H3) but 2 free crews (9.12)")


def test_the_apcr_modifier_follows_a_matilda_in_the_enemy_order_of_battle():
    # 17.23: the table's modifier when the Allied order of battle holds a Matilda (V1)
    errs = broken("apcr = { german = 2 }", "apcr = { german = 0, british = 1 }")
    assert has(errs, "game_data.apcr.german", "holds V1 (a Grant or Matilda)", "+2", "gives +0")
    assert has(errs, "game_data.apcr.british", "no british unit fires APCR or HEAT")


@pytest.mark.parametrize("key", ["apcr", "elite"])
def test_an_unknown_side_in_a_per_side_table_is_refused(key):
    old = {"apcr": "apcr = { german = 2 }", "elite": "elite = { german = 1 }"}[key]
    errs = broken(old, old.replace("}", ", axis = 1 }"))
    assert has(errs, f"game_data.{key}.axis", "'axis' is not a side")


def test_unknown_spotting_conditions_and_battery_guns_are_refused():
    errs = broken('conditions = "dusk"', 'conditions = "fog"')
    assert has(errs, "game_data.conditions", "'fog' is not a row of the Spotting Ranges Table", "dusk")
    errs = broken('battery = "105mm"', 'battery = "howitzer"')
    assert has(errs, "game_data.artillery.AR75.battery", "'howitzer'")
