"""Advanced Tobruk's side notes (5.01): each sealed as a core secret, written only
when the rules allow, shown only to its owner, never changed, opened by the rules."""
from __future__ import annotations

import json
import re

from pbem.core import events as CE
from pbem.core.reduce import secret_commitment
from pbem.engine import Game
from pbem.views import log_view
from pbem.report.render import report_text

from conftest import Table
from tobruk_kit import SCENARIO

SSR = '''
artillery = { BTY1 = { side = "british", nationality = "british", battery = "25pdr", kinds = ["concentration"] } }
registrations = { BTY1 = 2, H2 = 1 }
limited_intelligence = true
hidden = { british = ["H1", "HC1"] }
dummies = { british = { counters = ["H1", "H3"], count = 1 } }
mines = { british = { factors = 5, hidden = 1, dummies = 1 } }
setup_area = { british = ["0704", "0402", "0606", "0506", "0406", "0803", "0804", "0705"] }
command_control = ["german"]
elite = { german = 1 }
apcr = { german = 0 }
'''

UNITS = '''units = [
  { id = "H1", side = "british", nationality = "british", type = "2pdr-gun", strength = 1, ma = 0, entry_turn = 0 },
  { id = "HC1", side = "british", nationality = "british", type = "brit-crew", strength = 1, ma = 0, entry_turn = 0 },
  { id = "H2", side = "british", nationality = "british", type = "2pdr-gun", strength = 1, ma = 0, hex = "0803" },
  { id = "C2", side = "british", nationality = "british", type = "brit-crew", strength = 1, ma = 0, hex = "0803" },
  { id = "H3", side = "british", nationality = "british", type = "2pdr-gun", strength = 1, ma = 0, hex = "0804" },
  { id = "C3", side = "british", nationality = "british", type = "brit-crew", strength = 1, ma = 0, hex = "0804" },
  { id = "FO1", side = "british", nationality = "british", type = "fo", strength = 1, ma = 0, hex = "0705" },
  { id = "A1", side = "british", nationality = "australian", type = "aus-squad", strength = 1, ma = 0, hex = "0705" },
  { id = "P1", side = "german", nationality = "german", type = "pz3g", strength = 1, ma = 8, hex = "0609" },
  { id = "P2", side = "german", nationality = "german", type = "pz3g", strength = 1, ma = 8, hex = "0909" },
  { id = "G1", side = "german", nationality = "german", type = "ger-squad", strength = 1, ma = 0, hex = "0708" },
  { id = "GFO", side = "german", nationality = "german", type = "fo", strength = 1, ma = 0, hex = "0909" },
]
'''

FO_TYPE = '''
[game_data.types.fo]
cls = "leader"
face = "infantry"
nation = "british"
fo = true
gunfire = 1
range = 1
morale = 8
melee = 1
sp = 1
reduced = { gunfire = 1, range = 1, morale = 6 }
'''


def scenario(tmp_path) -> str:
    text = SCENARIO.read_text().replace('id = "tobruk-r33"', 'id = "test-notes"', 1)
    text = re.sub(r"\nunits = \[\n.*?\n\]\n", "\n" + UNITS, text, count=1, flags=re.S)
    text = re.sub(r"\[game_data.units\]\n.*?\n\n", "[game_data.units]\nP1 = { facing = \"NNE\" }\n"
                  "P2 = { facing = \"NNW\" }\n\n", text, count=1, flags=re.S)
    text = text.replace('friendly_edge = { british = ["north"], german = ["south"] }',
                        'friendly_edge = { british = ["north"], german = ["south"] }' + SSR, 1)
    text = text.replace('{ side = "british", name = "setup", rule = "2.48" },',
                        '{ side = "british", name = "setup", rule = "2.48" },\n'
                        '  { side = "british", name = "register", rule = "18.51" },', 1)
    # the Pz III G's 50 mm may fire APCR in this test card (17.22)
    text = text.replace('guns = [ { name = "50mm", pen = "50mm-L42", rating = "B", size = 50, rof = 2, mount = "turret", '
                        'he = 8, ap = true } ]',
                        'guns = [ { name = "50mm", pen = "50mm-L42", rating = "B", size = 50, rof = 2, mount = "turret", '
                        'he = 8, ap = true, alt = ["APCR"] } ]', 1)
    assert 'alt = ["APCR"]' in text
    text += FO_TYPE
    p = tmp_path / "notes.toml"
    p.write_text(text)
    return str(p)


def game(tmp_path, dice=(7, 6) + (1, 2) * 20) -> Table:
    return Table(Game.create(tmp_path / "g", scenario(tmp_path), {}, dice=list(dice), lint=False))   # a position (tobruk_kit)


BRITISH_SETUP = ["roll", "note fo BTY1 FO1", "note crew H2 C2", "note crew H3 C3", "note hide H1+HC1 0704 SSE",
                 "note crew H1 HC1", "note dummy H3", "note mine 0606 3", "note mine 0506 2 hidden",
                 "note mine 0406 dummy", "note register H2 0607"]


def british_set_up(t: Table) -> None:
    for line in BRITISH_SETUP:
        t.ok("british", line)
    t.ok("british", "pass")


def set_up(t: Table) -> None:
    british_set_up(t)
    t.ok("german", "roll")
    total = t.state().notes["german"].ammo["APCR"]
    t.ok("german", f"note apcr P1 {total}")
    t.ok("german", "note command P2")
    t.ok("german", "note elite P1")
    t.ok("german", "pass")


def test_setup_requires_the_rolls_and_notes_the_rules_ask_for(tmp_path):
    t = game(tmp_path)
    err = t.refuse("british", "pass")
    for need in ("roll", "note fo BTY1", "note crew H2", "note hide H1", "note hide HC1"):
        assert need in str(err), need
    assert "5.01" in str(err.rule)


def test_every_note_is_sealed_and_its_meaning_enters_the_state(tmp_path):
    t = game(tmp_path)
    set_up(t)
    st = t.state()
    b = st.notes["british"]
    # 18.12: the d10 roll of 7 halved is 3 FFEs (no ammunition supply SSR)
    assert b.ffe == {"BTY1": 3}
    assert b.fo == {"BTY1": "FO1"}
    assert {w: st.pieces[w].holder for w in ("H2", "H3", "H1")} == {"H2": "C2", "H3": "C3", "H1": "HC1"}   # 9.12
    assert b.registrations == {"H2": ["0607"]}
    assert st.pieces["H1"].hidden_at == "0704" and st.pieces["HC1"].hidden_at == "0704"
    assert st.units["H1"].hex is None                                # off the map until revealed (32.22)
    assert st.pieces["H1"].facing == 2                               # SSE
    assert st.pieces["H2"].holder == "C2" and st.pieces["H3"].dummy
    mf = st.minefields
    assert (mf["0606"].density, mf["0606"].hidden) == (3, False)
    assert (mf["0506"].density, mf["0506"].hidden) == (2, True)
    assert mf["0406"].dummy
    g = st.notes["german"]
    assert g.command == "P2" and g.elite == ["P1"]
    # 17.24: half of the two APCR-capable units (1) plus the table roll
    assert g.ammo["APCR"] >= 1 and st.pieces["P1"].ammo == {"APCR": g.ammo["APCR"]}
    # every note is a sealed secret whose commitment checks against its text
    entries = t.game.entries()
    recs = [en.event for en in entries if isinstance(en.event, CE.SecretRecorded)]
    assert len(recs) == 15
    for r in recs:
        assert secret_commitment(r.salt, r.payload) == st.secrets[f"{r.side}:{r.name}"]
    names = {r.name for r in recs if r.side == "british"}
    assert {"roll-1", "fo-1", "crew-1", "hide-1", "dummy-1", "mine-1", "mine-3", "reg-1"} <= names
    # the registration step: BTY1's registrations after all set-up (18.51); the Germans have none
    assert t.game.scenario.sequence[st.phase].name == "register" and st.step.to_act == "british"
    t.ok("british", "note register BTY1 0607")
    t.ok("british", "pass")
    st = t.state()
    assert st.notes["british"].registrations["BTY1"] == ["0607"]
    assert t.game.scenario.sequence[st.phase].name == "indirect" or st.turn == 1


def test_the_other_side_sees_fingerprints_only(tmp_path):
    t = game(tmp_path)
    set_up(t)
    entries = t.game.entries()
    # the bodies of the German copy of the log (not the hex digits of hashes, salts and commitments,
    # nor the creation record with the game folder's path, where "0606" may occur by chance)
    bodies = [{k: v for k, v in e["body"].items() if k not in ("commitment", "salt")}
              for e in log_view(entries, "german", t.game.rules) if e["kind"] != "GameCreated"]
    seen = json.dumps(bodies)
    for secret in ("0704", "hide H1", "dummy H3", "mine 0506", "0606", "register H2", "fo BTY1", "ffe BTY1"):
        assert secret not in seen, secret
    assert '"text": "note (sealed)"' in seen and '"text": "roll (sealed)"' in seen
    german_rolls = [e for e in log_view(entries, "german", t.game.rules) if e["kind"] == "TobrukNoteRolled"
                    and e["body"]["side"] == "british"]
    assert german_rolls and all(not e["body"].get("rolls") for e in german_rolls)
    # the owner reads its own notes in its report; the other side a count of sealed ones
    st = t.state()
    own = report_text(t.game, "british", st, entries, -1, t.game.head()[1])
    # (hex digits of the log head and the seed's commitment removed: "0704" may occur in them by chance)
    other = re.sub(r"[0-9a-f]{12,}", "#", report_text(t.game, "german", st, entries, -1, t.game.head()[1]))
    assert "YOUR SIDE NOTES" in own and "set up hidden in 0704" in own and "a dummy minefield in 0406" in own
    assert "BRITISH SIDE NOTES" in other and "still sealed" in other
    for secret in ("0704", "dummy counter", "0506", "density 3"):
        assert secret not in other, secret
    assert "P1 carries" in other and "P1 carries" not in own      # each side reads its own notes


def test_notes_may_not_be_changed_or_opened_by_hand(tmp_path):
    t = game(tmp_path)
    for line in BRITISH_SETUP[:6]:
        t.ok("british", line)
    t.refuse("british", "note fo BTY1 FO1", match="permanent")                     # 18.82
    t.refuse("british", "note hide H1 0402 NNE", match="already set up")            # 32.22
    t.refuse("british", "note register BTY1 0607", match="after all set-up")        # 18.51
    t.refuse("british", "roll", match="may not be rolled again")                    # 18.12
    t.refuse("british", "unveil hide-1", match="the rules open it")
    t.refuse("british", "secret reg-7 0101", match="side note")
    t.refuse("british", "note mine 0606 6", match="mine factors")                   # 31.14
    t.refuse("british", "note mine 0705 1", match="emplacement")                    # 31.13: a post (pit)
    t.ok("british", "note mine 0606 3")
    t.refuse("british", "note mine 0606 1", match="one a hex")                      # 31.12
    t.refuse("british", "note mine 0406 dummy hidden", match="may not be hidden")   # 31.201
    t.refuse("german", "note command P2", match="set-up now")                       # not its step
    t.refuse("british", "note command H2", match="not an AFV")


def test_on_board_registrations_only_before_the_opponent_sets_up(tmp_path):
    t = game(tmp_path)
    set_up(t)
    t.refuse("british", "note register H2 0608", match="before the opponent sets up")   # 18.54
    st = t.state()
    assert st.notes["british"].registrations == {"H2": ["0607"]}


def test_apcr_rounds_cannot_exceed_the_secret_roll(tmp_path):
    t = game(tmp_path)
    british_set_up(t)
    t.refuse("german", "note apcr P1 1", match="roll first")                        # 17.23
    t.ok("german", "roll")
    total = t.state().notes["german"].ammo["APCR"]
    t.refuse("german", f"note apcr P1 {total + 1}", match="not yet given out")     # 17.24
    t.refuse("german", "note apcr G1 1", match="cannot fire APCR")                   # 17.22


def test_a_missed_setup_deadline_writes_the_first_legal_notes(tmp_path):
    t = game(tmp_path)
    st = t.state()
    lines = t.game.rules.default_orders(st, t.game.scenario, "british")
    assert lines[0] == "roll" and lines[-1] == "pass"
    assert "note fo BTY1 FO1" in lines and any(x.startswith("note hide H1 ") for x in lines)
    t.ok("british", "\n".join(lines))
    assert "british" in t.state().step.passed or t.state().step.to_act == "german"


def test_with_command_control_the_fo_rides_in_the_command_tank(tmp_path):
    t = game(tmp_path)
    british_set_up(t)
    t.refuse("german", "note op GFO P1", match="command tank")                      # 24.04
    t.ok("german", "note command P2")
    t.refuse("german", "note op GFO P1", match="command tank")
    t.refuse("german", "note op G1 P2", match="not a forward observer")             # 18.91
    t.ok("german", "note op GFO P2")
    assert t.state().notes["german"].op == {"GFO": "P2"}


def test_an_opened_minefield_note_shows_the_minefield_in_full(tmp_path):
    # at the end every note is opened: the enemy's report then reads the hidden and face-down minefields
    from pbem.games.advanced_tobruk.mines import mines
    t = game(tmp_path)
    set_up(t)
    st = t.state()
    sc = t.game.scenario
    before = mines.report_lines(st, sc, "german")
    assert not any("0506" in x for x in before) and any("0606" in x and "unknown" in x for x in before)
    for name, text in st.notes["british"].names.items():
        if text.startswith("mine "):
            st.secrets.pop(f"british:{name}")                      # as SecretRevealed does
    after = mines.report_lines(st, sc, "german")
    assert any("0506" in x and "density 2" in x for x in after)
    assert any("0606" in x and "density 3" in x for x in after) and any("0406" in x and "dummy" in x for x in after)


def test_the_registration_step_takes_registrations_only_and_says_whose_step_it_is(tmp_path):
    t = game(tmp_path)
    set_up(t)
    t.refuse("german", "note elite P2", match="British's registration step now")
    t.refuse("british", "note mine 0706 1", match="written in your set-up step")          # 18.51
    t.refuse("british", "roll", match="written in your set-up step")
    err = t.refuse("british", "call BTY1 at 0607")
    assert "register" in str(err)


def test_a_wrong_verb_in_the_set_up_names_the_side_notes(tmp_path):
    t = game(tmp_path)
    err = t.refuse("british", "call BTY1 at 0607")
    assert "roll, note KIND" in str(err)
