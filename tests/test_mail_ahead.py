"""Orders ahead (issue 27, "The Tobruk r33 example by mail needs at most half
today's mails"): a mail's orders for the side's later steps after lines THEN,
held privately (pbem/ahead.py) and applied the next time the game waits for
that side, so the log is the one `pbem play` writes.  Played on the Advanced
Tobruk r33 example, whose strict alternation of activations (rule 5.03) made
most of its 79 mails a bare `pass`.  Every test on files and on PostgreSQL."""
from __future__ import annotations

import json
import tomllib
from pathlib import Path

import pytest

from mail_helpers import CLOCK, HOST_ADDR, SmtpCapture, deliver, game_store, log_bytes, make_host, message, \
    reopen, secret, text_of
from pbem import ahead
from pbem.engine import Game
from pbem.host import mail as M
from pbem.host.mailplay import Player, Table, mail_extras, play_steps

pytestmark = pytest.mark.usefixtures("store_kind")

R33 = Path(__file__).resolve().parent.parent / "examples" / "tobruk-r33"
BOOK = tomllib.loads((R33 / "playbook.toml").read_text())
BRITISH, GERMAN = BOOK["players"]["british"], BOOK["players"]["german"]
GID = BOOK["id"]


@pytest.fixture(autouse=True)
def fixed_clock(monkeypatch):
    monkeypatch.setenv("PBEM_CLOCK", CLOCK)
    monkeypatch.delenv("PBEM_HOST", raising=False)


def side_of(step: str) -> str:
    return step.split("-")[1].split(".")[0]


def create(where) -> Game:
    return Game.create(where, BOOK["scenario"], BOOK["players"], seed_hex=BOOK["seed"], game_id=GID)


def flat(text: str) -> str:
    return " ".join(text.replace("\r\n", "\n").split())


def test_r33_by_mail_with_then_is_pbem_play_in_at_most_half_the_mails(tmp_path, store_kind):
    direct = create(tmp_path / "direct")
    for step in BOOK["steps"]:
        assert direct.submit(side_of(step), (R33 / step).read_text()).refused is None
    with SmtpCapture() as smtp:
        host = make_host(tmp_path / "host", smtp_port=smtp.port)
        game = create(game_store(host, GID))
        host.welcome(game)
        table = Table(GID, HOST_ADDR, [Player("british", BRITISH, sign=True), Player("german", GERMAN)],
                      smtp.mailbox, M.Maildir(host.inbox_path).deliver, host.poll)
        said: list[str] = []
        assert play_steps(R33, table, ["british", "german"], echo=said.append, extras=mail_extras(R33)) == 70
        out = len(smtp.messages)
    game = reopen(game)
    # the same game, byte for byte: the held steps went in at the points `pbem play` applied them
    assert log_bytes(game) == log_bytes(direct)
    assert game.state().result.winner == "british" and game.verify().ok
    mails_in = len(M.Maildir(host.cfg.root / "mail" / "processed").messages())
    # 79 mails in and 243 out before ruleset 3 (one pause per move); 70 and 216 with it; now:
    assert mails_in == 39 and mails_in <= 79 // 2
    assert out <= 125                       # 39 answers, 41 reports, 40 referee copies, welcomes
    assert sum("sent ahead" in s for s in said) == 70 - 39
    assert not ahead.held(game, "british") and not ahead.held(game, "german")


def host_at(tmp_path, smtp, upto: int):
    """A host running r33 with the playbook's first ``upto`` steps applied."""
    host = make_host(tmp_path / "host", smtp_port=smtp.port)
    game = create(game_store(host, GID))
    host.welcome(game)
    for step in BOOK["steps"][:upto]:
        assert game.submit(side_of(step), (R33 / step).read_text()).refused is None
    return host, game


def send(host, game, smtp, side: str, body: str, mid: str):
    sender = BRITISH if side == "british" else GERMAN
    deliver(host, message(sender, f"Token: {secret(game, side)}\n\n{body}", subject=f"[pbem {GID}] orders",
                          mid=mid))
    host.poll()
    got = [m for m in smtp.to(sender) if str(m["In-Reply-To"] or "") == f"<{mid}>"]
    assert len(got) == 1
    return flat(text_of(got[0]))


def orders_given(game) -> list[tuple[str, str]]:
    out = []
    for line in reopen(game).store.log.iter_lines():
        env = json.loads(line)
        if env["kind"] == "OrderGiven":
            out.append((env["body"]["side"], env["body"]["text"]))
    return out


def test_held_blocks_are_private_applied_in_the_same_poll_and_shown_to_their_side(tmp_path):
    with SmtpCapture() as smtp:
        host, game = host_at(tmp_path, smtp, 18)             # step 19: British fire in turn 2 (rule 5.03)
        a = send(host, game, smtp, "british", "fire A2 at G3\nTHEN\npass\npass\nTHEN\npass", "b19")
        assert "Held for your next steps: pass; pass | pass" in a and "end of game turn 2" in a
        # never in the log, never shown to the other side
        assert ("british", "pass") not in orders_given(game)[-1:]
        german = flat(text_of(smtp.to(GERMAN)[-1]))
        assert "Held for your next steps" not in german and "pass; pass" not in german
        assert ahead.held(reopen(game), "british") == ["pass\npass", "pass"]
        # STATUS shows them; the German pass (step 20) lets the first held block go in at once
        s = send(host, game, smtp, "british", "STATUS", "b-status")
        assert "Held for your next steps: pass; pass | pass" in s
        n = len(orders_given(game))
        send(host, game, smtp, "german", "pass", "g20")
        assert orders_given(game)[n:] == [("german", "pass"), ("british", "pass"), ("british", "pass")]
        report = flat(text_of(smtp.to(BRITISH)[-1]))     # one report covers the German pass and the held block
        assert "Your held orders were applied: pass; pass." in report and "Held for your next steps: pass " in report
        # UNDO drops what is still held
        u = send(host, game, smtp, "british", "UNDO", "b-undo")
        assert "were dropped: pass" in u and ahead.held(reopen(game), "british") == []


def test_a_held_block_refused_when_its_time_comes_is_dropped_with_the_rest_and_told(tmp_path):
    with SmtpCapture() as smtp:
        host, game = host_at(tmp_path, smtp, 18)
        send(host, game, smtp, "british", "fire A2 at G3\nTHEN\nfire Gun1 at 0101\nTHEN\npass", "b19")
        before = log_bytes(reopen(game))
        send(host, game, smtp, "german", "pass", "g20")
        given = orders_given(game)
        assert given[-1] == ("german", "pass")               # nothing of the refused block, nor of the next
        report = flat(text_of(smtp.to(BRITISH)[-1]))
        assert "Your held orders were NOT applied: fire Gun1 at 0101" in report
        assert "dropped with the rest held after them (2 step(s) in all: fire Gun1 at 0101 | pass)" in report
        assert ahead.held(reopen(game), "british") == [] and len(log_bytes(reopen(game))) > len(before)
        st = reopen(game).state()
        from pbem.views import turn_of
        assert turn_of(reopen(game), st).sides_waited() == ["british"]       # the game waits for them as usual


def test_check_with_then_checks_the_first_block_and_holds_nothing(tmp_path):
    with SmtpCapture() as smtp:
        host, game = host_at(tmp_path, smtp, 18)
        head = reopen(game).head()
        c = send(host, game, smtp, "british", "CHECK\nfire A2 at G3\nTHEN\npass", "b-check")
        assert "1 block(s) after THEN would be held for your next steps (pass)" in c
        assert reopen(game).head() == head and ahead.held(reopen(game), "british") == []


def test_held_blocks_expire_when_the_game_turn_ends(tmp_path):
    game = create(tmp_path / "g")
    for step in BOOK["steps"][:19]:                          # turn 2: the game waits for German
        game.submit(side_of(step), (R33 / step).read_text())
    ahead.hold(game, "german", ["pass"], "j1", turn=1)       # stamped for a turn already over
    got = ahead.run(game, "british")
    assert [(r["side"], r["status"]) for r in got] == [("german", "expired")] and ahead.held(game, "german") == []
    assert "game turn 1 ended" in ahead.notes(game, got)["german"]


def test_a_block_applied_before_a_crash_is_not_applied_again(tmp_path):
    game = create(tmp_path / "g")
    for step in BOOK["steps"][:19]:
        game.submit(side_of(step), (R33 / step).read_text())
    ahead.hold(game, "german", ["pass"], "j1", turn=game.state().turn)
    # the crash: the block was marked and applied, but not yet taken off the entry
    seq, head = game.head()
    e = ahead.entry(game, "german")
    ahead._put(game, "german", dict(e, applying={"seq": seq, "head": head}))
    game.submit("german", "pass")
    n = game.head()[0]
    got = ahead.run(game, "british")
    assert got[0]["status"] == "recovered" and game.head()[0] == n and ahead.held(game, "german") == []
    assert ahead.hold(game, "german", ["pass"], "j1", turn=game.state().turn) is False    # the same job: not again


def test_pbem_order_reads_then_as_the_mail_does(tmp_path):
    from click.testing import CliRunner
    from pbem.cli import main
    game = create(tmp_path / "g")
    for step in BOOK["steps"][:18]:
        game.submit(side_of(step), (R33 / step).read_text())
    mine = tmp_path / "british.txt"
    mine.write_text("Dear Erwin,\nfire A2 at G3\nTHEN\npass\npass\n")

    def run(*args, input=None):
        return CliRunner().invoke(main, [str(a) for a in args], input=input, catch_exceptions=False)
    r = run("order", game.dir, "--as", "british", mine)
    assert r.exit_code == 0 and "Held for your next steps: pass; pass" in r.output
    assert ahead.held(game, "british") == ["pass\npass"]
    r = run("order", game.dir, "--as", "german", "-", input="pass\n")
    assert r.exit_code == 0 and "held     British: applied: pass; pass" in r.output
    assert [t for _s, t in orders_given(game)[-3:]] == ["pass", "pass", "pass"] and not ahead.held(game, "british")


def _r33_on_a_clock(tmp_path, smtp, now: list, steps: int):
    """A host with 24h deadlines at the clock ``now[0]``, holding r33 played to its step ``steps``."""
    host = make_host(tmp_path / "host", smtp_port=smtp.port, period="24h", reminder="0h", now=lambda: now[0])
    game = create(game_store(host, GID))
    host.welcome(game)
    for step in BOOK["steps"][:steps]:
        assert game.submit(side_of(step), (R33 / step).read_text()).refused is None
    return host, game


def test_a_deadline_default_lets_the_other_sides_held_block_go_in(tmp_path):
    from datetime import timedelta
    from pbem.host.common import parse_time
    now = [parse_time(CLOCK)]
    with SmtpCapture() as smtp:
        host, game = _r33_on_a_clock(tmp_path, smtp, now, 18)
        send(host, game, smtp, "british", "HELP\nfire A2 at G3\nTHEN\npass\npass", "b19")
        help_text = flat(text_of(smtp.to(BRITISH)[-1]))
        assert "THEN the orders below it are for your next step" in help_text
        assert "Held for your next steps: pass; pass (1 step(s)" in help_text
        now[0] += timedelta(hours=25)                       # German misses the deadline: the default, a pass
        host.tick()
        host.flush()
        given = orders_given(game)
        assert [g for g in given[-3:]] == [("german", "pass"), ("british", "pass"), ("british", "pass")]
        assert "Your held orders were applied: pass; pass." in flat(text_of(smtp.to(BRITISH)[-1]))
        assert not ahead.held(reopen(game), "british")


def test_the_deadline_applies_the_held_block_first_as_staged_orders(tmp_path):
    from datetime import timedelta
    from pbem.host.common import parse_time
    now = [parse_time(CLOCK)]
    with SmtpCapture() as smtp:
        host, game = _r33_on_a_clock(tmp_path, smtp, now, 20)
        # British pass the direct fire (rule 5.03) and move first: the game still waits for them, so
        # the block after THEN waits too (it is for their *next* step after the other side's)
        send(host, game, smtp, "british", "pass\nTHEN\npass", "b21")
        assert ahead.held(reopen(game), "british") == ["pass"]
        n = len(orders_given(game))
        now[0] += timedelta(hours=25)
        host.tick()
        host.flush()
        assert orders_given(game)[n:] == [("british", "pass")]          # the held pass, not the default
        assert all(e["body"].get("by", "") == "" for e in map(json.loads, reopen(game).store.log.iter_lines())
                   if e["kind"] == "OrderGiven")
        assert "applied the orders British held" in flat(text_of(smtp.to(BRITISH)[-1]))
        german = flat(text_of(smtp.to(GERMAN)[-1]))         # held orders are their side's own: not named to the other
        assert "British's orders were applied" in german and "British held" not in german and "after THEN" not in german
        assert not ahead.held(reopen(game), "british")


@pytest.mark.parametrize("point", ["held-marked", "held-applied"])
def test_kill_9_while_applying_a_held_block_loses_nothing_and_applies_it_once(tmp_path, point):
    import os
    import signal
    import subprocess
    import sys
    import time
    game = create(tmp_path / "g")
    for step in BOOK["steps"][:18]:
        game.submit(side_of(step), (R33 / step).read_text())

    def order(side: str, text: str, env=None):
        return subprocess.run([sys.executable, "-m", "pbem", "order", str(game.dir), "--as", side, "-"], input=text,
                              capture_output=True, text=True, env={**os.environ, **(env or {})}, timeout=60)
    assert order("british", "fire A2 at G3\nTHEN\npass\npass\n").returncode == 0
    flag = tmp_path / "flag"
    (tmp_path / "g20.txt").write_text("pass\n")
    p = subprocess.Popen([sys.executable, "-m", "pbem", "order", str(game.dir), "--as", "german",
                          tmp_path / "g20.txt"], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                         env={**os.environ, "PBEM_TEST_PAUSE": f"{point}:{flag}"})
    end = time.monotonic() + 60
    while not flag.exists() and p.poll() is None and time.monotonic() < end:
        time.sleep(0.01)
    assert flag.exists(), p.communicate()
    p.send_signal(signal.SIGKILL)
    p.communicate()
    applied = point == "held-applied"
    given = orders_given(Game(game.dir))
    assert given[-1] == (("british", "pass") if applied else ("german", "pass"))
    # whoever moves next finds the block marked: taken off when in the log, applied when not; never twice
    r = order("german", (R33 / "22-german.txt").read_text()) if applied else order("british", "STATUS\n")
    assert r.returncode == 0, r.stderr
    if not applied:                                  # nothing moved it on: the next order run applies it
        assert ahead.held(Game(game.dir), "british") == ["pass\npass"]
        assert ahead.run(Game(game.dir), "german")[0]["status"] == "applied"
        assert order("german", (R33 / "22-german.txt").read_text()).returncode == 0
    direct = create(tmp_path / "direct")
    for step in BOOK["steps"][:22]:
        assert direct.submit(side_of(step), (R33 / step).read_text()).refused is None
    assert orders_given(Game(game.dir)) == orders_given(direct) and not ahead.held(Game(game.dir), "british")


def test_press_alone_never_lets_a_held_block_go_in(tmp_path):
    with SmtpCapture() as smtp:
        host, game = host_at(tmp_path, smtp, 20)
        send(host, game, smtp, "british", "pass\nTHEN\npass", "b21")          # the game still waits for British
        n = len(orders_given(game))
        send(host, game, smtp, "german", "press Guten Tag", "g-press")
        assert [t for _s, t in orders_given(game)[n:]] == ["press Guten Tag"]         # the press, no held pass
        assert ahead.held(reopen(game), "british") == ["pass"]
