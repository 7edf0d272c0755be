"""Advanced Tobruk's views: the map's marks (objectives, score, set-up hexes),
the set-up choices, and the other side's standing opportunity-fire orders kept
private (6.6 by email) in every mail and CLI output a side receives."""
from __future__ import annotations

from pbem.core.turn import Turn

from email import policy
from email.parser import BytesParser
from pathlib import Path

from click.testing import CliRunner

from pbem.cli import main
from pbem.core import events as CE
from pbem.engine import Game
from pbem.games.advanced_tobruk import events as E, fire_events as F
from pbem.host.mailplay import demo
from pbem.views import REFEREE, awaiting_rows, visible_event
from tobruk_kit import U, make

EXAMPLE = Path(__file__).resolve().parent.parent / "examples" / "tobruk-r33"


def _game(tmp_path, units, setup=False):
    t = make(tmp_path, units, dice=(1, 2) * 4, setup=setup)
    return t, t.game.rules, t.game.scenario


def test_map_marks_show_the_objectives_their_holder_and_the_score(tmp_path):
    t, rules, sc = _game(tmp_path, [U("A1", "british", "aus-squad", "0705"), U("G1", "german", "ger-squad", "0905"),
                                    U("G2", "german", "ger-squad", "1110")], setup=True)
    m = rules.map_marks(t.state(), sc, "german")
    objs = {o["hex"]: (o["vp"], o["side"]) for o in m["objectives"]}
    # 0705 held by the British squad; 0905 by the German squad alone there (not the card's holder)
    assert objs == {"0705": (6, "british"), "0905": (3, "german")}
    assert m["score"].startswith("victory points British 6, German 3")
    assert "areas" not in m                             # the set-up is over


def test_set_up_areas_only_during_the_set_up_and_only_the_viewers(tmp_path):
    t, rules, sc = _game(tmp_path, [U("Tk1", "british", "a13", "0502", facing="SSE"),
                                    U("P1", "german", "pz3g", "0609", facing="NNE")])
    areas = rules.map_marks(t.state(), sc, "british")["areas"]
    assert [(a["side"], a["hexes"]) for a in areas] == [("british", ["0502"])]
    assert {a["side"] for a in rules.map_marks(t.state(), sc, REFEREE)["areas"]} == {"british", "german"}
    t.ok("british", "pass")
    t.ok("german", "pass")
    assert "areas" not in rules.map_marks(t.state(), sc, "british")


def test_setup_choices_list_facings_turrets_and_standing_orders_of_the_side_setting_up(tmp_path):
    t, rules, sc = _game(tmp_path, [U("Tk1", "british", "a13", "0502", facing="SSE"),
                                    U("A1", "british", "aus-squad", "0705"),
                                    U("P1", "german", "pz3g", "0609", facing="NNE")])
    lines = list(Turn(rules, sc, t.state()).setup("british"))
    assert lines[0].startswith("Tk1 in 0502, facing SSE: pivot Tk1 SPINE; turret Tk1 SPINE")
    assert not any(x.startswith("A1") for x in lines)               # no facing: nothing to choose
    assert "side default now: ask; units of their own: none" in lines[-3]
    assert lines[-2].startswith("what each standing order costs in mails: ask (the default)")   # 6.6 by email
    assert "one answer mail from you for its whole path" in lines[-2] and "hold, any, afv - no mail" in lines[-2]
    assert lines[-1].startswith("pass")
    assert list(Turn(rules, sc, t.state()).setup("german")) == []      # the British set up first (2.48)
    t.ok("british", "standing Tk1 afv range 6\npivot Tk1 E\npass")
    assert list(Turn(rules, sc, t.state()).setup("british")) == []
    german = list(Turn(rules, sc, t.state()).setup("german"))
    assert german[0].startswith("P1 in 0609, facing NNE")
    t.ok("german", "pass")
    assert list(Turn(rules, sc, t.state()).setup("german")) == []


def test_the_other_sides_standing_orders_are_redacted(tmp_path):
    t, rules, sc = _game(tmp_path, [U("Tk1", "british", "a13", "0502", facing="SSE"),
                                    U("P1", "german", "pz3g", "0609", facing="NNE")])
    t.ok("british", "standing Tk1 afv range 6\npass")
    entries = t.game.entries()
    seen = [visible_event(en.event, "german", rules) for en in entries]
    own = [visible_event(en.event, "british", rules) for en in entries]
    assert E.StandingOrderSet(side="british", unit="Tk1", mode="afv", range=6) in own
    assert E.StandingOrderSet(side="british", unit="", mode="") in seen
    assert not any(isinstance(ev, CE.OrderGiven) and "Tk1" in ev.text for ev in seen)
    assert rules.describe_event(E.StandingOrderSet(side="british", unit="", mode=""), sc) == \
        "British sets a standing opportunity-fire order (private to its side, 6.6)."
    passed = E.OpportunityPassed(side="british", firers=["Tk1"], target="P1", hex="0609", by="standing order")
    assert rules.redact(passed, "british") == passed
    assert rules.redact(passed, "german").by == ""
    shot = F.GunFired(firer="Tk1", weapon="2pdr", target="P1", hex="0609", range=3, ammo="AP", hpn=9, need=9,
                      rof=1, rounds=[], rolls=[], by="standing order")
    assert rules.redact(shot, "german").by == "opportunity"
    assert "as opportunity fire" in rules.describe_event(rules.redact(shot, "german"), sc)


def test_a_paused_move_does_not_tell_the_mover_which_units_may_answer(tmp_path):
    t, rules, sc = _game(tmp_path, [U("A1", "british", "aus-squad", "0705"),
                                    U("G1", "german", "ger-squad", "0708")])
    st = t.state()
    paused = E.MovePaused(side="british", units=["G1"], hex="0707", firers=["A1"], spent_here="1")
    assert rules.redact(paused, "british").firers == ["A1"]
    assert rules.redact(paused, "german").firers == []
    items = [{"side": "british", "kind": "opportunity-fire", "units": ["A1"], "rule": "6.6",
              "order": "fire UNIT[+UNIT...] (of A1) | pass"}]
    assert rules.awaiting_view(st, sc, items, "british") == items
    [mover] = rules.awaiting_view(st, sc, items, "german")
    assert "units" not in mover and "A1" not in mover["order"]
    assert awaiting_rows(t.game, st, "german") == awaiting_rows(t.game, st, REFEREE)   # nothing paused here


def _hidden_texts(game: Game) -> dict[str, list[str]]:
    """Per side: the referee's words for every event the side sees redacted, and the other side's
    standing order lines (the example has both)."""
    rules, sc = game.rules, game.scenario
    out: dict[str, list[str]] = {s: [] for s in sc.side_ids()}
    for en in game.entries():
        ev = en.event
        for side in sc.side_ids():
            if isinstance(ev, CE.OrderGiven) and ev.side != side and ev.text.startswith("standing"):
                out[side].append(ev.text)
            elif visible_event(ev, side, rules) != ev:
                full = rules.describe_event(ev, sc)
                if full and full != rules.describe_event(visible_event(ev, side, rules), sc):
                    out[side].append(full)
    return out


# the example's own orders, as the referee reads them (seq 5 and 13 of its log)
PLAIN = {"german": ["Gun1: fire at moving AFVs only", "G2+GL stop in 0807 (1 MP spent there): British may fire with"],
         "british": ["German (side default): hold fire"]}


def test_no_mail_or_log_output_to_a_side_shows_the_other_sides_standing_orders(tmp_path):
    demo(EXAMPLE, tmp_path / "host", echo=lambda *_: None, maps=False)
    [gdir] = [d for d in (tmp_path / "host" / "games").iterdir() if (d / "log.jsonl").is_file()]
    game = Game(gdir)
    hidden = _hidden_texts(game)
    assert len(hidden["german"]) >= 5 and len(hidden["british"]) >= 3      # the example sets and uses orders
    checked = 0
    for f in sorted((tmp_path / "host" / "outbox").glob("*.eml")):
        msg = BytesParser(policy=policy.default).parsebytes(f.read_bytes())
        side = str(msg["X-pbem-Side"] or "")
        if side not in hidden:
            continue
        text = msg.get_body(("plain",)).get_content()
        found = [h for h in hidden[side] + PLAIN[side] if h in text]
        assert not found, f"{f.name} to {side} shows {found}"
        checked += 1
    assert checked > 50
    for side, texts in hidden.items():
        log = CliRunner().invoke(main, ["log", str(gdir), "--as", side]).output
        assert "(private to its side, 6.6)" in log
        assert not [h for h in texts if h in log]
        assert "fire at moving AFVs only" in CliRunner().invoke(main, ["log", str(gdir), "--as", "referee"]).output


def test_fire_and_morale_words_show_the_table_entry_and_the_die_against_the_number(tmp_path):
    t, rules, sc = _game(tmp_path, [U("Tk1", "british", "a13", "0502", facing="SSE"),
                                    U("A1", "british", "aus-squad", "0705")])
    shot = F.GunFired(firer="Tk1", weapon="2pdr", target="P1", hex="0609", range=8, ammo="AP", hpn=8, need=8,
                      rof=1, rounds=[], rolls=[])
    assert "range 8: HPN 8 (rating A, 13.22): hits on 8 or less" in rules.describe_event(shot, sc)

    def said(rolls, drm=0, result="passed"):
        return rules.describe_event(F.MoraleChecked(unit="A1", why="casualty", morale=6, altered=12, result=result,
                                                    rolls=rolls, drm=drm, mods=["leader +2"], rule="15.921"), sc)
    assert "; roll 7 +1 for C1 = 8 vs 12: passed" in said([7], 1)
    assert "roll 10 (always fails, 10.241), courage roll 1 (10: courage, 11.242): broken" in said([10, 1], 1, "broken")
    assert "roll 1 (always passes, 10.241): passed" in said([1], 2)
