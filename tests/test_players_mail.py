"""Issue 16, players by mail: CHECK, staged orders held until FINAL (or the
deadline), mail that reads like mail, HELP / STATUS / HISTORY / press /
ABSENT, the game's own welcome, and STATUS from the referee.  Every message
goes through a real Maildir inbox and leaves through a real SMTP server on
loopback."""
from __future__ import annotations

import re
from datetime import timedelta

import pytest

from mail_helpers import (AXIS, BRITISH, CLOCK, HOST_ADDR, SmtpCapture, deliver, game_store, log_bytes, make_host,
                          message, new_game, reopen, secret, crash_once)
from mail_helpers import text_of as _text_of
from pbem import staging
from pbem.engine import Game
from pbem.host import Host
from pbem.host.common import parse_time

def text_of(msg) -> str:
    return _text_of(msg).replace("\r\n", "\n")


DICE = [5, 3, 2, 4, 1, 6, 3, 3, 2, 5, 4, 1]


@pytest.fixture(autouse=True)
def fixed_clock(monkeypatch):
    monkeypatch.setenv("PBEM_CLOCK", CLOCK)
    monkeypatch.delenv("PBEM_HOST", raising=False)


@pytest.fixture
def smtp(store_kind):
    """The loopback SMTP server of a host test: each of them runs on both stores (conftest)."""
    with SmtpCapture() as s:
        yield s


def host_at(root, smtp, **kw) -> Host:
    """A host sending through the loopback SMTP server, without maps (these tests read the text)."""
    make_host(root, smtp_port=smtp.port, **kw)
    cfg = (root / "pbem-host.toml").read_text()
    cfg = re.sub(r"(?m)^map_(svg|png) = .*$", r"map_\1 = false", cfg)
    (root / "pbem-host.toml").write_text(cfg)
    return Host.open(root, now=kw.get("now"))


def table(tmp_path, smtp, **kw):
    host = host_at(tmp_path / "h", smtp, **kw)
    game = new_game(host, dice=DICE)
    return host, game


def send(host, game, smtp, body, subject="[pbem g1] orders", mid="m1@example.org", side="axis", sender=None):
    """A player's mail through the inbox; the host's answer, as SMTP delivered it."""
    sender = sender or (AXIS if side == "axis" else BRITISH)
    deliver(host, message(sender, f"Token: {secret(game, side)}\n\n{body}", subject=subject, mid=mid))
    host.poll()
    got = [m for m in smtp.to(sender) if str(m["In-Reply-To"] or "") == f"<{mid}>"]
    assert len(got) == 1, [str(m["Subject"]) for m in smtp.to(sender)]
    return got[0]


def log(game) -> bytes:
    return log_bytes(game)


def test_check_by_mail_line_and_subject_word(tmp_path, smtp):
    host, game = table(tmp_path, smtp)
    before = log(game)
    a = send(host, game, smtp, "CHECK\nmove 8Pz 0612 0712\nmove 8Pz 0812\n")
    body = text_of(a)
    assert a["X-pbem-Outcome"] == "checked" and "CHECKED: nothing was applied" in body
    assert "would apply  line 4: move 8Pz 0612 0712" in body
    assert "would REFUSE line 5: 8Pz has already moved this phase" in body
    a = send(host, game, smtp, "move 8Pz 0612 0712 0812\nend\nattack 0913 with 8Pz\nend\n", subject="[pbem g1] CHECK",
             mid="m2@example.org")
    assert a["X-pbem-Outcome"] == "checked" and "needs dice   line 6: end" in text_of(a)
    assert str(a["Subject"]) == "CHECKED: Re: [pbem g1]"     # a reply to the answer is not a CHECK again
    assert log(game) == before
    # the other side heard nothing of it
    assert all("0712" not in text_of(m) for m in smtp.to(BRITISH))


def test_draft_is_held_replaced_then_final_applies_it(tmp_path, smtp):
    host, game = table(tmp_path, smtp)
    before = log(game)
    a = send(host, game, smtp, "DRAFT\nmove 8Pz 0612\n")
    assert a["X-pbem-Outcome"] == "staged" and "STAGED" in text_of(a)
    a = send(host, game, smtp, "DRAFT\nmove 8Pz 0612 0712\n", mid="m2@example.org")
    assert "would apply  line 4: move 8Pz 0612 0712" in text_of(a)
    a = send(host, game, smtp, "DRAFT\n", mid="m2b@example.org")             # shows the draft, keeps it
    assert "your staged orders are kept" in text_of(a) and "would apply  line 4: move 8Pz 0612 0712" in text_of(a)
    assert log(game) == before and staging.staged(game, "axis")["text"].strip() == "move 8Pz 0612 0712"
    n_british = len(smtp.to(BRITISH))
    assert n_british == 1 and "8Pz 0612" not in text_of(smtp.to(BRITISH)[0])    # only the welcome
    a = send(host, game, smtp, "FINAL\n", mid="m3@example.org")
    assert a["X-pbem-Outcome"] == "accepted" and "your staged orders were applied" in text_of(a)
    assert reopen(game).state().units["8Pz"].hex == "0712"
    assert staging.staged(game, "axis") is None
    assert len(smtp.to(BRITISH)) == n_british + 1                  # now the other side gets its report
    # orders sent to be applied at once replace a draft
    send(host, game, smtp, "DRAFT\nmove 5Pz 0512\n", mid="m4@example.org")
    assert staging.staged(game, "axis") is not None
    a = send(host, game, smtp, "move 104 0512\n", mid="m5@example.org")
    assert a["X-pbem-Outcome"] == "accepted" and staging.staged(game, "axis") is None
    # and a FINAL with nothing staged says so, applying nothing
    a = send(host, game, smtp, "FINAL\n", mid="m6@example.org")
    assert "no orders were staged, so none were applied" in text_of(a)


def test_host_in_staged_mode_holds_mail_without_final(tmp_path, smtp):
    host_at(tmp_path / "h", smtp)
    cfg = (tmp_path / "h" / "pbem-host.toml").read_text()
    assert "[orders]" in cfg
    (tmp_path / "h" / "pbem-host.toml").write_text(cfg.replace('mode = "immediate"', 'mode = "staged"'))
    host = Host.open(tmp_path / "h")
    assert host.cfg.orders_mode == "staged"
    game = new_game(host, dice=DICE)
    before = log(game)
    a = send(host, game, smtp, "move 8Pz 0612 0712\n")
    assert a["X-pbem-Outcome"] == "staged" and log(game) == before
    a = send(host, game, smtp, "move 5Pz 0512\nFINAL\n", mid="m2@example.org")   # FINAL with orders: these ones
    assert a["X-pbem-Outcome"] == "accepted"
    st = reopen(game).state()
    assert st.units["5Pz"].hex == "0512" and st.units["8Pz"].hex != "0712"


def test_the_deadline_applies_staged_orders_before_the_default(tmp_path, smtp):
    now = [parse_time(CLOCK)]
    host = host_at(tmp_path / "h", smtp, period="24h", reminder="0h", now=lambda: now[0])
    game = new_game(host, dice=DICE)
    send(host, game, smtp, "DRAFT\nmove 8Pz 0612 0712\nend\n")
    now[0] += timedelta(hours=25)
    host.tick()
    host.flush()
    g = reopen(game)
    assert g.state().units["8Pz"].hex == "0712"
    given = [en.event for en in g.entries() if type(en.event).__name__ == "OrderGiven"]
    assert [e.text for e in given] == ["move 8Pz 0612 0712", "end"] and all(e.by == "" for e in given)
    assert staging.staged(g, "axis") is None
    assert any("had staged" in text_of(m) for m in smtp.to(BRITISH))


def test_greetings_are_ignored_with_a_hint_and_misspelt_orders_refused(tmp_path, smtp):
    host, game = table(tmp_path, smtp)
    body = "Dear Claude,\nhere are my orders:\nmove 8Pz 0612 0712\nMore to follow.\nBest regards, Erwin\n"
    a = send(host, game, smtp, body)
    t = text_of(a)
    assert a["X-pbem-Outcome"] == "accepted" and "ACCEPTED: all 1 order(s) applied" in t
    assert "Ignored (not orders, not commands):" in t and "line 3: Dear Claude," in t
    assert "line 6: More to follow.    (did you mean move?)" in t
    assert reopen(game).state().units["8Pz"].hex == "0712"
    # a misspelt order is refused as before, not ignored
    a = send(host, game, smtp, "Hello,\nmvoe 5Pz 0512\n", mid="m2@example.org")
    assert a["X-pbem-Outcome"] == "refused" and "unknown order 'mvoe' (did you mean move?)" in text_of(a)
    # so is a line naming a unit
    a = send(host, game, smtp, "please 5Pz go 0512\n", mid="m3@example.org")
    assert a["X-pbem-Outcome"] == "refused"
    # quoted text and a signature are not read at all
    a = send(host, game, smtp, "move 5Pz 0512\n\n> move 104 0512\n-- \nmove 115 0612\n", mid="m4@example.org")
    assert "ACCEPTED: all 1 order(s)" in text_of(a) and "Ignored" not in text_of(a)


def test_help_lists_this_games_orders_with_examples(tmp_path, smtp):
    host, game = table(tmp_path, smtp)
    a = send(host, game, smtp, "HELP\n")
    t = text_of(a)
    assert a["X-pbem-Outcome"] == "accepted" and "\nHELP\n" in t
    assert "e.g. move " in t and "The game waits for you now:" in t
    for word in ("CHECK", "DRAFT", "FINAL", "STATUS", "HISTORY [N]", "press TEXT", "ABSENT until DATE"):
        assert word in t
    assert log(game) == log(reopen(game))


def test_status_history_press_and_absent(tmp_path, smtp):
    now = [parse_time(CLOCK)]
    host = host_at(tmp_path / "h", smtp, period="72h", now=lambda: now[0])
    game = new_game(host, dice=DICE)
    a = send(host, game, smtp, "press Good luck, Auchinleck!\nSTATUS\nHISTORY 3\nABSENT until 2026-01-08\n")
    t = text_of(a)
    assert "Turn 1 of 4" in t and "Waiting for you: " in t and "Deadline for your" in t
    history = t.split("\nHISTORY 3\n")[1].split("\n\n")[0].splitlines()
    assert history[0].strip() == "The last 3 events of the log, as you may see them:" and len(history) == 4
    assert history[-1].split(None, 1)[1] == "German-Italian writes: Good luck, Auchinleck!"
    assert "You are marked absent until 2026-01-08T00:00:00Z" in t
    g = reopen(game)
    ev = g.entries()[-1].event
    assert type(ev).__name__ == "PressSent" and ev.text == "Good luck, Auchinleck!"
    # forwarded to the other side
    assert any("writes: Good luck, Auchinleck!" in text_of(m) for m in smtp.to(BRITISH))
    dl = host._deadlines(g)
    assert all(w["due"] == "2026-01-08T00:00:00Z" for w in dl["waits"].values() if w["side"] == "axis")
    # beyond what the host allows: as far as it allows (14 days by default), and said so
    a = send(host, game, smtp, "ABSENT until 2026-06-01\n", mid="m2@example.org")
    assert "away 14d at most in any 30d, so not until 2026-06-01" in " ".join(text_of(a).split())
    assert "You are marked absent until 2026-01-15T00:00:00Z" in text_of(a)
    assert all(w["due"] == "2026-01-15T00:00:00Z" for w in host._deadlines(g)["waits"].values()
               if w["side"] == "axis")


def test_status_from_the_referee_gets_the_host_board(tmp_path, smtp):
    host, game = table(tmp_path, smtp)
    cfg = (tmp_path / "h" / "pbem-host.toml").read_text()
    (tmp_path / "h" / "pbem-host.toml").write_text(cfg.replace(f'referee = "{HOST_ADDR}"', 'referee = "boss@club.example"'))
    host = Host.open(tmp_path / "h")
    deliver(host, message("boss@club.example", "STATUS\n", subject="STATUS", mid="r1@example.org"))
    host.poll()
    got = smtp.to("boss@club.example")
    assert got and "g1" in text_of(got[-1]) and "games of the host" in text_of(got[-1])


def test_welcome_lists_the_games_own_verbs(tmp_path, smtp):
    host = host_at(tmp_path / "h", smtp)
    g = Game.create(game_store(host, "c1"), "crete", {"german": AXIS, "commonwealth": BRITISH}, dice=DICE,
                    game_id="c1", at=CLOCK)
    host.welcome(g)
    w = text_of(smtp.to(AXIS)[0])
    assert "drop" in w and "The orders of this game" in w


@pytest.mark.parametrize("point", ["journaled", "applied", "spooled", "recorded"])
def test_a_final_cut_short_by_a_crash_applies_the_staged_orders_once(tmp_path, smtp, monkeypatch, point):
    from pbem.host import SimulatedCrash, crash
    host, game = table(tmp_path, smtp)
    send(host, game, smtp, "DRAFT\nmove 8Pz 0612 0712\n")
    crash_once(monkeypatch, point)
    deliver(host, message(AXIS, f"Token: {secret(game, 'axis')}\n\nFINAL\n", mid="f1@example.org"))
    with pytest.raises(SimulatedCrash):
        Host.open(host.cfg.root).poll()
    monkeypatch.setattr(crash, "checkpoint", lambda name: None)
    again = Host.open(host.cfg.root)
    again.poll()
    again.poll()
    g = reopen(game)
    assert [en.event.text for en in g.entries() if type(en.event).__name__ == "OrderGiven"] == ["move 8Pz 0612 0712"]
    assert staging.staged(g, "axis") is None
    assert len([m for m in smtp.to(AXIS) if str(m["In-Reply-To"]) == "<f1@example.org>"]) == 1


def test_set_up_choices_reach_the_player_in_the_welcome_and_each_answer(tmp_path, smtp):
    host = host_at(tmp_path / "h", smtp)
    g = Game.create(game_store(host, "rd"), "red-devils", {"british": AXIS, "german": BRITISH}, dice=DICE,
                    game_id="rd", at=CLOCK)
    host.welcome(g)
    w = text_of(smtp.to(AXIS)[0])
    assert "Your set-up choices:" in w and "place 1Border HEX: 0906 or 1105" in w
    assert "place 1Border" not in text_of(smtp.to(BRITISH)[0])             # the other side's choices are not theirs
    a = send(host, g, smtp, "place 1Border 1105\n", subject="[pbem rd] set-up", side="british", sender=AXIS)
    t = text_of(a)
    assert "YOUR SET-UP CHOICES NOW" in t and "place 7KOSB HEX: 1105 or 0906" in t and "place 1Border HEX" not in t


def test_history_shows_another_sides_secret_sealed(tmp_path, smtp):
    # HISTORY words the log through the per-side view (render.describe): a sealed
    # secret reads in full to its author, and only by name to the other side
    host, game = table(tmp_path, smtp)
    a = send(host, game, smtp, "secret plan Strike at Tobruk at dawn\nHISTORY 2\n")
    mine = text_of(a).split("\nHISTORY 2\n")[1].split("\n\n")[0]
    assert "Strike at Tobruk" in mine
    b = send(host, game, smtp, "HISTORY 2\n", mid="m2@example.org", side="british")
    theirs = text_of(b).split("\nHISTORY 2\n")[1].split("\n\n")[0].splitlines()
    assert theirs[0].strip() == "The last 2 events of the log, as you may see them:"
    assert any("plan" in row for row in theirs[1:])
    assert "Strike at Tobruk" not in text_of(b)
    assert all("Strike at Tobruk" not in text_of(m) for m in smtp.to(BRITISH))
