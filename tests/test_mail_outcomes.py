"""Issue 27, "Every mail says when and how it went": every report, answer and
notice a player gets says when this side's next orders are due (UTC, and the
player's own zone once TIMEZONE set it) and what the host applies then; answer
subjects begin with the outcome; a DRAFT with a refused line is refused and
keeps the previous draft; UNDO drops the staged orders; HISTORY shows a press
once.  Every message goes through a real Maildir inbox and out through a real
SMTP server on loopback; PBEM_CLOCK pins the time."""
from __future__ import annotations

import re
from datetime import timedelta

import pytest

from mail_helpers import AXIS, BRITISH, CLOCK, SmtpCapture, deliver, make_host, message, new_game, secret
from mail_helpers import text_of as _text_of
from pbem import staging
from pbem.host import Host
from pbem.host.common import parse_time

DICE = [5, 3, 2, 4, 1, 6, 3, 3, 2, 5, 4, 1]


def text_of(msg) -> str:
    return _text_of(msg).replace("\r\n", "\n")


def flat(text: str) -> str:
    return " ".join(text.split())


@pytest.fixture(autouse=True)
def fixed_clock(monkeypatch):
    monkeypatch.setenv("PBEM_CLOCK", CLOCK)
    monkeypatch.delenv("PBEM_HOST", raising=False)


@pytest.fixture
def smtp():
    with SmtpCapture() as s:
        yield s


def table(tmp_path, smtp, period="48h", now=None):
    root = tmp_path / "h"
    make_host(root, smtp_port=smtp.port, period=period)
    cfg = re.sub(r"(?m)^map_(svg|png) = .*$", r"map_\1 = false", (root / "pbem-host.toml").read_text())
    (root / "pbem-host.toml").write_text(cfg)
    host = Host.open(root, now=now)
    return host, new_game(host, dice=DICE)


def send(host, game, smtp, body, subject="[pbem g1] orders", mid="m1@example.org", side="axis"):
    sender = AXIS if side == "axis" else BRITISH
    deliver(host, message(sender, f"Token: {secret(game, side)}\n\n{body}", subject=subject, mid=mid))
    host.poll()
    got = [m for m in smtp.to(sender) if str(m["In-Reply-To"] or "") == f"<{mid}>"]
    assert len(got) == 1
    return got[0]


def log(game) -> bytes:
    return (game.dir / "log.jsonl").read_bytes()


DEFAULT = "the host applies the game's default: No further moves or attacks this phase"


def test_every_mail_says_when_the_next_orders_are_due_and_what_happens_then(tmp_path, smtp):
    now = [parse_time(CLOCK)]
    host, game = table(tmp_path, smtp, now=lambda: now[0])
    welcome = flat(text_of(smtp.to(AXIS)[0]))
    # the welcome: axis moves first, due 48h after the game began, in UTC (no zone known yet)
    assert "Your next orders (movement) are due by 2026-01-03T00:00:00Z." in welcome
    assert DEFAULT in welcome and "The default: Deadline defaults" not in welcome
    british = flat(text_of(smtp.to(BRITISH)[0]))
    assert "Your next orders are not due yet: the game waits for German-Italian now." in british
    # TIMEZONE: from now on every time in the player's zone too
    a = send(host, game, smtp, "TIMEZONE Europe/Berlin\n")
    t = flat(text_of(a))
    assert "Your next orders (movement) are due by 2026-01-03T00:00:00Z (Saturday 3 January, 01:00 CET in " \
           "Europe/Berlin)." in t and DEFAULT in t
    # an answer that applies orders; the other side's report says when its own orders are due
    now[0] += timedelta(hours=1)
    a = send(host, game, smtp, "move 8Pz 0612 0712\nend\n", mid="m2@example.org")
    assert a["X-pbem-Outcome"] == "accepted"
    t = flat(text_of(a))
    assert "Your next orders (attack-declarations) are due by 2026-01-03T01:00:00Z (Saturday 3 January, 02:00 " \
           "CET in Europe/Berlin)." in t
    report = flat(text_of(smtp.to(BRITISH)[-1]))
    assert "Your next orders" in report and DEFAULT in report
    # a refusal of an authenticated player says it too (press over the host's limit)
    a = send(host, game, smtp, "press " + "x" * 5000 + "\n", mid="m3@example.org")
    assert a["X-pbem-Outcome"] == "refused" and "Your next orders" in flat(text_of(a))


def test_a_game_without_deadlines_says_so_in_every_answer(tmp_path, smtp):
    host, game = table(tmp_path, smtp, period="off")
    a = send(host, game, smtp, "HELP\n")
    assert "Your next orders: this game has no deadlines" in flat(text_of(a))


def test_answer_subjects_begin_with_the_outcome_and_keep_the_thread(tmp_path, smtp):
    host, game = table(tmp_path, smtp)
    seen = {}
    for mid, body, subject in [
            ("c", "CHECK\nmove 8Pz 0612 0712\n", "Re: [pbem g1] welcome: you play German-Italian"),
            ("s", "DRAFT\nmove 8Pz 0612 0712\n", "Re: CHECKED: Re: [pbem g1] welcome: you play German-Italian"),
            ("h", "HELP\n", "[pbem g1] help me"),
            ("n", "Dear opponent,\n", "[pbem g1] hello"),
            ("p", "move 8Pz 0612 0712\nmove 8Pz 0812\n", "[pbem g1] orders"),
            ("r", "move 8Pz 0612\n", "[pbem g1] orders"),
            ("a", "move 5Pz 0512\n", "Re: REFUSED: Re: [pbem g1] orders")]:
        a = send(host, game, smtp, body, subject=subject, mid=f"{mid}@example.org")
        seen[mid] = (str(a["Subject"]), a["X-pbem-Outcome"], text_of(a))
    assert seen["c"][0] == "CHECKED: Re: [pbem g1] welcome: you play German-Italian"
    assert seen["s"][0] == "STAGED: Re: [pbem g1] welcome: you play German-Italian"     # one Re:, one outcome
    assert seen["h"][0] == "ANSWERED: Re: [pbem g1] help me"
    assert seen["n"][0] == "NO ORDERS: Re: [pbem g1] hello"
    assert seen["p"][0] == "PARTLY APPLIED: Re: [pbem g1] orders" and seen["p"][1] == "partial"
    assert seen["r"][0] == "REFUSED: Re: [pbem g1] orders" and seen["r"][1] == "refused"
    assert seen["a"][0] == "ACCEPTED: Re: [pbem g1] orders" and seen["a"][1] == "accepted"
    # never "nothing was applied" beside what was applied
    for subj, _o, body in seen.values():
        assert not ("nothing was applied" in body and "\nApplied:\n" in body), subj


def test_a_checked_mail_with_press_does_not_say_nothing_was_applied(tmp_path, smtp):
    host, game = table(tmp_path, smtp)
    a = send(host, game, smtp, "DRAFT\npress Good luck!\n")        # DRAFT without orders: a check; press sent
    t = text_of(a)
    assert "\nApplied:\n" in t and "nothing was applied" not in t
    assert str(a["Subject"]).startswith("CHECKED: ")


def test_a_refused_draft_keeps_the_previous_one_and_undo_drops_it(tmp_path, smtp):
    host, game = table(tmp_path, smtp)
    before = log(game)
    a = send(host, game, smtp, "DRAFT\nmove 8Pz 0612 0712\n")
    assert a["X-pbem-Outcome"] == "staged"
    good = staging.staged(game, "axis")
    # a draft with a refused line (8Pz cannot move twice), and a press: none of it is taken
    a = send(host, game, smtp, "DRAFT\nmove 5Pz 0512\nmove 5Pz 0412\npress hello\n", mid="m2@example.org")
    t = flat(text_of(a))
    assert a["X-pbem-Outcome"] == "refused" and str(a["Subject"]).startswith("REFUSED: ")
    assert "REFUSED: nothing was applied, and this DRAFT was not staged." in t
    assert "DRAFT REFUSED: line 5 would be refused" in t and "previous draft" in t and "is kept as it was" in t
    assert "would REFUSE line 5" in t and "Applied:" not in t
    assert staging.staged(game, "axis") == good and log(game) == before
    # UNDO drops the staged orders
    a = send(host, game, smtp, "UNDO\n", mid="m3@example.org")
    assert "Your staged orders (held since" in flat(text_of(a)) and "were dropped" in text_of(a)
    assert staging.staged(game, "axis") is None and log(game) == before
    a = send(host, game, smtp, "UNDO\n", mid="m4@example.org")
    assert "You had no orders staged; nothing to drop." in text_of(a)
    # a refused draft with nothing staged before says so
    a = send(host, game, smtp, "DRAFT\nmove 5Pz 0512\nmove 5Pz 0412\n", mid="m5@example.org")
    assert "You have no orders staged" in flat(text_of(a)) and staging.staged(game, "axis") is None


def test_history_shows_a_press_once(tmp_path, smtp):
    host, game = table(tmp_path, smtp)
    send(host, game, smtp, "press Good luck, Auchinleck!\n")
    a = send(host, game, smtp, "HISTORY 5\n", mid="m2@example.org")
    history = text_of(a).split("\nHISTORY 5\n")[1].split("\n\n")[0]
    assert history.count("Good luck, Auchinleck!") == 1


def test_mirages_by_mail_words_its_deadlines_choices_and_default(tmp_path, smtp):
    from mail_helpers import CLOCK as AT
    from pbem.engine import Game
    host, _g = table(tmp_path, smtp)
    game = Game.create(host.cfg.games_dir / "m1", "mirages-skorpion", {"axis": AXIS, "allied": BRITISH},
                       seed_hex="ab" * 32, game_id="m1", at=AT)
    host.welcome(game)
    welcome = flat(text_of(smtp.to(AXIS)[-1]))
    assert "the host applies the game's default: Initiative: end the Ops Phase" in welcome
    assert "Deadline defaults" not in welcome and "SET-UP" not in welcome.upper().replace("YOUR SET-UP", "")
    assert "Your Ops Phase choices: activate cramer" in welcome
    a = send(host, game, smtp, "activate cramer\n", subject="[pbem m1] go")
    t = flat(text_of(a))
    assert str(a["Subject"]) == "ACCEPTED: Re: [pbem m1] go"
    assert "Your next orders (actions) are due by 2026-01-03T00:00:00Z." in t
    assert "YOUR OPS PHASE CHOICES NOW" in t and "SET-UP CHOICES" not in t
    a = send(host, game, smtp, "STATUS\n", subject="[pbem m1] status", mid="m2@example.org")
    t = flat(text_of(a))
    assert "Deadline for your actions: due by 2026-01-03T00:00:00Z" in t and "actions is due" not in t
