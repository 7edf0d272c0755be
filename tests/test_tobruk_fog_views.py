"""What each side sees under limited intelligence (32): the other side's state,
log and report never show a hidden unit before its reveal, a dummy's nature
before it is removed, an unflipped unit's identity, the units under a stack
(32.132), personnel in FULL cover in an emplacement (32.131), or a hidden
minefield; side notes read "note (sealed)"."""
from __future__ import annotations

import json
import re

from pbem.games.advanced_tobruk import fog_events as FE
from pbem.report.render import report_text
from pbem.views import log_view, state_view
from test_tobruk_fog_kit import MOVEMENT, U, goto, make

SSR = '''limited_intelligence = true
conditions = "dusk"
hidden = { british = ["H1", "HC1"] }
dummies = { british = { counters = ["V9"], count = 1 } }
mines = { british = { factors = 5, hidden = 1, dummies = 1 } }
'''
BRITISH = ("note hide H1+HC1 0704 SSE", "note dummy V9", "note mine 0606 3", "note mine 0506 2 hidden",
           "note mine 0406 dummy", "standing hold", "pass")
UNITS = [U("H1", "british", "2pdr-gun", None, holder="HC1"), U("HC1", "british", "brit-crew", None),
         U("V9", "british", "a13", "0502", facing="SSE"), U("Tk1", "british", "a13", "1102", facing="SSE"),
         U("A2", "british", "aus-squad", "0905", full=True), U("A3", "british", "aus-squad", "1301"),
         U("AL", "british", "aus-leader", "1301"),
         U("P1", "german", "pz3g", "0709", facing="NNE"), U("G1", "german", "ger-squad", "0110")]


def _game(tmp_path):
    return make(tmp_path, UNITS, ssr=SSR, dice=(2, 1) * 10, british=BRITISH)


def _plain(x):
    """A log body without its hex fingerprints (hashes, salts, commitments: random hex digits)."""
    if isinstance(x, dict):
        return {k: _plain(v) for k, v in x.items() if k not in ("commitment", "salt", "hash", "scenario_sha256")}
    if isinstance(x, list):
        return [_plain(v) for v in x]
    return x


def _seen(t, side):
    st = t.state()
    entries = t.game.entries()
    rows = {r["id"]: r for r in state_view(t.game, st, side)["units"]}
    log = json.dumps([_plain(en["body"]) for en in log_view(entries, side, t.game.rules)])
    report = re.sub(r"[0-9a-f]{12,}", "#", report_text(t.game, side, st, entries, -1, t.game.head()[1]))
    return rows, log, report


def test_the_german_side_never_sees_what_limited_intelligence_hides(tmp_path):
    t = _game(tmp_path)
    rows, log, report = _seen(t, "german")
    assert "H1" not in rows and "HC1" not in rows                              # hidden: not at all (32.22)
    for uid in ("V9", "Tk1"):                                                  # FOW faces (32.11)
        r = rows[uid]
        assert (r["type"], r["name"], r["nationality"], r["ma"]) == ("AFV", "AFV (FOW side, 32.11)", "", 0)
        assert not [m for m in r["status"] if m.startswith(("dummy", "turret", "hidden"))]
    assert rows["A2"]["name"] == "unit in FULL cover in an emplacement (32.131)" and rows["A2"]["type"] == "unit"
    assert rows["A3"]["type"] == "aus-squad"                                   # the top of its stack
    assert rows["AL"]["name"] == "unit under the top of the stack (32.132)" and rows["AL"]["type"] == "unit"
    for secret in ("0704", "hide H1", "dummy V9", "a13", "2pdr", "0506", "mine 0606", "aus-leader"):
        assert secret not in log, secret
        assert secret not in report, secret
    assert '"text": "note (sealed)"' in log and "HC1" not in log and "HC1" not in report
    marks = t.game.rules.map_marks(t.state(), t.game.scenario, "german")
    mines = [a for a in marks.get("areas", []) if "minefield" in a["label"]]
    assert [(a["label"], a["hexes"]) for a in mines] == [("British minefield, density unknown (31.1)",
                                                          ["0406", "0606"])]
    own = t.game.rules.map_marks(t.state(), t.game.scenario, "british")
    labels = {a["label"]: a["hexes"] for a in own.get("areas", []) if "minefield" in a["label"]}
    assert [h for label, h in labels.items() if "hidden" in label] == [["0506"]]
    assert [h for label, h in labels.items() if "dummy" in label] == [["0406"]]
    # the owner sees its own units as they are
    mine, _, _ = _seen(t, "british")
    assert mine["V9"]["type"] == "a13" and "H1" in mine and mine["AL"]["type"] == "aus-leader"


def test_a_reveal_shows_the_face_only_and_a_removed_dummy_says_what_it_was(tmp_path):
    t = _game(tmp_path)
    goto(t, 1, MOVEMENT)
    if t.state().step.to_act == "british":
        t.ok("british", "pass")
    evs = t.ok("german", "cross P1 0708 0707 0706 0705 0704")
    assert any(isinstance(e, FE.Revealed) for e in evs)
    rows, log, report = _seen(t, "german")
    assert rows["H1"]["hex"] == "0704" and rows["H1"]["name"] == "gun (FOW side, 32.11)"
    assert rows["HC1"]["name"] == "unit under the top of the stack (32.132)"
    assert "2pdr" not in report and "2pdr" not in json.dumps(rows)
    assert "hide H1+HC1 0704 SSE" in log                                       # the note, opened (32.22)
    # P1 in 0705 has the FOW dummy in 0502 within its 6 hexes: forced to flip, it is removed (32.241)
    gone = [e for e in evs if isinstance(e, FE.DummyRemoved)]
    assert [(e.unit, e.hex) for e in gone] == [("V9", "0502")]
    assert rows["V9"]["hex"] is None and rows["V9"]["status"] == ["removed from play: a dummy (32.241)"]
    assert "dummy V9" in log                                                   # its note opened with it
    assert rows["Tk1"]["name"] == "AFV (FOW side, 32.11)"                      # 1102: still out of range


def test_a_sealed_crew_assignment_is_not_shown_to_the_enemy(tmp_path):
    units = [U("Gun2", "british", "2pdr-gun", "0803", facing="SSE"), U("C2", "british", "brit-crew", "0803"),
             U("P1", "german", "pz3g", "0709", facing="NNE")]
    t = make(tmp_path, units, ssr="", dice=(2, 1) * 6, british=("note crew Gun2 C2", "pass"))
    assert t.state().pieces["Gun2"].holder == "C2"
    german, _, _ = _seen(t, "german")
    british, _, _ = _seen(t, "british")
    assert "with C2" in british["Gun2"]["status"]
    assert not [m for m in german["Gun2"]["status"] if m.startswith("with")]
    assert "facing SSE" in german["Gun2"]["status"]


def test_an_eliminated_unit_is_never_hidden_under_a_stack(tmp_path):
    # 32.132 hides the units beneath the top of a live stack; a unit the enemy saw die (or a wreck, 13.7)
    # shows as eliminated, where it fell
    t = _game(tmp_path)
    german, _, _ = _seen(t, "german")
    assert german["AL"]["type"] == "unit"                                   # beneath A3 in 1301
    st = t.state()
    st.units["AL"].eliminated = True
    from pbem.games.advanced_tobruk.views import unit_row
    row = unit_row(st, t.game.scenario, st.units["AL"], {"id": "AL", "type": "aus-leader", "status": []}, "german")
    assert row["type"] == "aus-leader"
