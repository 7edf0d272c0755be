"""Player-facing review of Advanced Tobruk's side notes, indirect fire and minefields (R2):
what each side reads in its reports, HELP and set-up letters.  Wording and views only: each
test asserts the new text (the old one was unclear, doubled or raw)."""
from __future__ import annotations

from pbem.core.turn import Turn

from pbem.games.advanced_tobruk.notes import notes_words

import re
from pathlib import Path

from pbem.engine import Game
from pbem.games.advanced_tobruk.artillery import arty_words
from pbem.games.advanced_tobruk.mines import mine_words
from pbem.games.advanced_tobruk.arty_events import ContactRolled, VehicleStruck
from pbem.games.advanced_tobruk.mine_events import MineEntered
from pbem.games.advanced_tobruk.note_events import NoteRolled
from pbem.views import awaiting_rows

from conftest import Table

EXAMPLE = Path(__file__).resolve().parent.parent / "examples" / "tobruk-salient"
GOLDEN = Path(__file__).resolve().parent / "golden" / "tobruk-salient"


def salient(tmp_path) -> Table:
    return Table(Game.create(tmp_path / "g", "tobruk-salient", {}, dice=[5] * 40))


def orders(name: str) -> str:
    return "\n".join(x for x in (EXAMPLE / name).read_text().splitlines() if x and not x.startswith("#"))


def waiting(t: Table, viewer: str) -> str:
    return " | ".join(a["order"] for a in awaiting_rows(t.game, t.state(), viewer))


def test_the_setup_step_tells_the_acting_side_its_notes_still_due_and_the_other_side_nothing_of_them(tmp_path):
    # 5.01: the WAITING FOR line named only facings and standing orders; the side notes it must write were missing
    t = salient(tmp_path)
    own, other = waiting(t, "british"), waiting(t, "german")
    assert own.startswith("roll, note KIND ... (your sealed side notes; HELP lists them all), pivot|turret")
    for due in ("note fo RHA FO (18.82)", "note hide H1[+UNIT...] HEX SPINE (32.22)",
                "note crew H3 CREW (9.12; none if it is the dummy: note dummy H3, 32.24)"):
        assert due in own, due
    assert other == ("its secret rolls and side notes (sealed), facings (pivot|turret UNIT SPINE), "
                     "standing orders, then pass")
    t.ok("british", orders("01-british.txt"))
    assert "every required note is written" not in waiting(t, "german")         # the German's own list now
    assert "still due: roll" in waiting(t, "german")


def test_the_registration_step_lists_the_registrations_left_to_the_acting_side(tmp_path):
    # 18.51, 19.6: which battery and mortar may still register, and how many
    t = salient(tmp_path)
    t.ok("british", orders("01-british.txt"))
    t.ok("german", orders("02-german.txt"))
    assert waiting(t, "british").startswith("note register RHA HEX (2 left); note register W2 HEX (1 left) - "
                                            "sealed, after all set-up: +20 on the accuracy roll")
    assert waiting(t, "german") == "its battery and mortar registrations (sealed notes, after all set-up), then pass"
    t.ok("british", "note register RHA 0306")
    assert waiting(t, "british").startswith("note register RHA HEX (1 left); note register W2 HEX (1 left)")


def test_the_setup_choices_say_pass_comes_after_the_required_notes(tmp_path):
    t = salient(tmp_path)
    choices = list(Turn(t.game.rules, t.game.scenario, t.state()).setup("british"))
    assert any(c.startswith("pass  when the facings, standing orders and the side notes marked 'required'")
               for c in choices)
    assert any(c.endswith("hidden, 1 dummy)") for c in choices)                   # not "1 dummies"


def test_help_says_once_that_notes_are_sealed_and_when_each_is_written():
    lines = notes_words.help_lines()
    text = "\n".join(lines)
    assert text.count("sealed: only you read") == 1                                # not on all eleven lines
    assert "registration step" in lines[0]
    reg = next(x for x in lines if x.startswith("note register"))
    assert "in your set-up, before the opponent sets up (18.54)" in reg and "after all set-up (18.51, 19.6)" in reg
    assert next(x for x in lines if x.startswith("roll")).split("    ")[1].startswith("first in your set-up")


def test_secret_rolls_name_their_subject_and_only_its_rule(tmp_path):
    sc = salient(tmp_path).game.scenario
    # the other side's copy keeps only the kind (notes_words.redact): no battery, no die
    assert notes_words.describe(NoteRolled(side="british", what="ffe"), sc) == \
        "British made a secret roll for a battery's FFE allotment (18.12); its result is sealed in a note."
    assert notes_words.describe(NoteRolled(side="german", what="ammo APCR", rolls=[4]), sc) == \
        "German secret roll for APCR rounds (17.23): 4 (sealed in the next note)."


def test_note_meanings_have_plurals_and_no_doubled_parentheses(tmp_path):
    sc = salient(tmp_path).game.scenario
    assert notes_words.meaning("register AR75 0805", sc) == \
        "AR75 registered on 0805 (Post R5): +20 to its accuracy there (18.551)"
    assert notes_words.meaning("apcr P1 1", sc) == "P1 carries 1 APCR round (17.25)"
    assert notes_words.meaning("ffe RHA 5 roll 10", sc) == "RHA may place 5 FFEs: roll 10 halved (18.12)"
    assert notes_words.meaning("ammo APCR 5 base 1 roll 4", sc) == \
        ("5 APCR rounds for the side: 1 for half the capable units + 4 from the Alternate Ammunition table, "
         "roll 4 (17.24)")


def test_contact_roll_without_modifiers_reads_roll_against_need(tmp_path):
    sc = salient(tmp_path).game.scenario
    plain = arty_words.describe(ContactRolled(battery="AR75", side="german", rolls=[8], need=6), sc)
    assert plain == "AR75 battery contact roll 8 against 6: NO FIRE (18.221)."
    drm = arty_words.describe(ContactRolled(battery="AR75", side="german", rolls=[7], need=6,
                                            drms=["+1 NO FIRE (1 turn, 18.222)"], ok=False), sc)
    assert "roll 7 +1 NO FIRE (1 turn, 18.222) = 8 against 6" in drm


def test_indirect_hits_on_vehicles_and_weapons_read_without_repeats_or_nested_brackets(tmp_path):
    sc = salient(tmp_path).game.scenario
    w = arty_words.describe(VehicleStruck(source="RHA", unit="W3", how="weapon", result="direct hit: F-KILL"), sc)
    assert w == "RHA on W3: direct hit on a weapon (19.31): F-KILL."
    s = arty_words.describe(VehicleStruck(source="RHA", unit="P3", how="suppression", rolls=[4], suppress_number=7,
                                          result="suppressed"), sc)
    assert s == "RHA on P3: HE fire: suppression check (suppression on 7 or less, rolled 4; 19.15, 30.02): suppressed."
    a = arty_words.describe(VehicleStruck(source="RHA", unit="P2", how="afv", rolls=[5, 9], location="UH",
                                          aspect="flank", armour=6, pen=3, suppress_number=7,
                                          result="no penetration; not suppressed"), sc)
    assert a.startswith("RHA on P2: direct hit (location UH, roll 5; flank armour 6 against HE penetration 3, "
                        "halved per 19.15; suppression on 7 or less, rolled 9)")


def test_a_failed_forcing_roll_gives_its_rules_once(tmp_path):
    sc = salient(tmp_path).game.scenario
    ev = MineEntered(hex="0607", side="british", units=["P2"], move="assault", how="forcing", placed=True,
                     density=3, rolls=[3], failed=["P2"], rule="31.15, 31.201")
    line = mine_words.describe(ev, sc)
    assert line.endswith("forcing roll P2 3 must be greater than 3: P2 failed: attacked "
                         "(31.15, 31.201, 31.173, 31.18).")


def test_the_examples_final_reports_carry_none_of_the_old_raw_phrases():
    for viewer in ("british", "german", "referee"):
        text = (GOLDEN / f"report-{viewer}.txt").read_text()
        assert not re.search(r"roll (\d+) = \1 against", text), viewer
        for old in ("(18.12, 17.23)", "FFE(s)", "round(s)", "direct hit: F-KILL", ") (suppression", "(roll 5)"):
            assert old not in text, (viewer, old)


def test_a_line_of_sight_shift_reads_its_columns_only():
    # the event keeps the line's HPN label ("wreck in the line +1"); as a Casualty Table shift it reads -1
    from pbem.games.advanced_tobruk.fire_events import CasualtyAttack
    from pbem.games.advanced_tobruk.fire.fire_words import describe as fire_words
    from pbem.core.scenario import load
    sc = load("tobruk-salient")
    ev = CasualtyAttack(source="gunfire", hex="0506", factors=3, column=2, roll=8, result=0, rolls=[8], firers=["A2"],
                        shifts=["wreck in the line +1 -1", "good (pit) -1"])
    text = fire_words(ev, sc)
    assert "shifts wreck in the line -1, good (pit) -1;" in text
