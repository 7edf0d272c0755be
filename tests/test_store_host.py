"""The mail host on both stores (one suite, parametrised): the file store and
PostgreSQL give the same answers, apply every order once and answer it once,
whatever crashes; deadlines are taken once; what the database keeps apart."""
from __future__ import annotations

import json
from datetime import datetime, timedelta, timezone

import pytest

from mail_helpers import (AXIS, BRITISH, CLOCK, answers, deliver, make_host, message, outbox,
                          text_of, crash_once)
from pbem.engine import Game
from pbem.host import Host, SimulatedCrash
from pbem.host import mail as M

TURN1 = "move 8Pz 0612 0712 0812\nend\nattack 0913 with 8Pz\nend\n"
DICE = [5, 3, 2, 4, 1, 6, 3, 3, 2, 5, 4, 1] * 4


@pytest.fixture(autouse=True)
def fixed_clock(monkeypatch):
    monkeypatch.setenv("PBEM_CLOCK", CLOCK)
    monkeypatch.delenv("PBEM_HOST", raising=False)


@pytest.fixture(params=["files", "postgresql"])
def root(request, tmp_path):
    """A host folder on the file store, or on a fresh database."""
    root = tmp_path / "host"
    make_host(root, period="72h")
    if request.param == "postgresql":
        from pg_helpers import use_database
        use_database(root, request.getfixturevalue("pg_url"))
    return root


def new_game(host: Host, gid: str = "g1", dice=DICE) -> Game:
    where = host.store.game(gid) if host.store.shared else host.cfg.games_dir / gid
    g = Game.create(where, "el-alamein", {"axis": AXIS, "british": BRITISH}, dice=dice, game_id=gid, at=CLOCK)
    host.welcome(g)
    return Game(host.games()[gid])


def token(game, side: str) -> str:
    return json.loads(game.store.read("player-secrets.json"))[side]


def orders_mail(game, side="axis", orders=TURN1, mid="m1@example.org") -> bytes:
    return message({"axis": AXIS, "british": BRITISH}[side], f"Token: {token(game, side)}\n{orders}", mid=mid)


def order_texts(game) -> list[str]:
    return [en.event.text for en in Game(game.store).entries() if en.kind == "OrderGiven"]


def test_orders_by_mail_are_applied_answered_and_reported_alike_on_both_stores(root):
    host = Host.open(root)
    game = new_game(host)
    welcomes = len(outbox(host))
    assert welcomes == 3                                             # two players and the referee
    deliver(host, orders_mail(game))
    [oc] = host.poll()
    assert oc.status == "accepted" and oc.game == "g1" and oc.side == "axis"
    assert order_texts(game) == TURN1.split("\n")[:-1]
    [answer] = answers(host, "m1@example.org")
    assert "ACCEPTED" in text_of(answer).upper() and answer["X-pbem-Head"] == game.head()[1]
    assert len(outbox(host)) == welcomes + 3                         # the answer, the British report, the referee's
    assert M.Maildir(host.inbox_path).messages() == [] and len(host.processed.messages()) == 1
    assert host.pending() == 0 and Game(game.store).verify().ok



def test_a_backlog_on_the_database_is_answered_as_it_goes_not_at_the_end_of_the_look(root, monkeypatch):
    """A host on the database sends what it committed while it works through a backlog
    (every two seconds; here after every job): the first answers leave before the last
    orders are read, every mail once, and the poll counts them all."""
    from pbem.host import inbox
    host = Host.open(root)
    game = new_game(host)
    welcomes = len(outbox(host))
    monkeypatch.setattr(inbox, "SEND_EVERY", 0.0)
    seen = []                                                        # the outbox at each look at the spool
    flush = host.flush
    monkeypatch.setattr(host, "flush", lambda: (seen.append(len(outbox(host))), flush())[1])
    for n in range(3):
        deliver(host, message(AXIS, f"Token: {token(game, 'axis')}\npress note {n}\n", mid=f"b{n}@example.org"))
    ocs = host.poll()
    assert [oc.status for oc in ocs] == ["accepted"] * 3
    sent_in_look = [x - welcomes for x in seen]
    if host.store.shared:
        assert sent_in_look == [0, 3, 6, 9]                          # after each job, and at the end (nothing left)
    else:
        assert sent_in_look == [0]                                   # the file store: at the end of the look
    assert len(outbox(host)) == welcomes + 9 and host.pending() == 0
    assert host.last_poll.sent == 9
    # a transport that fails is not tried again until the look's end (it says why there)
    host.cfg.outgoing = {"kind": "smtp", "server": "127.0.0.1", "port": 9, "security": "none", "timeout": 5}
    calls = []
    monkeypatch.setattr(host, "flush", lambda: (calls.append(1), flush())[1])
    for n in range(3, 6):
        deliver(host, message(AXIS, f"Token: {token(game, 'axis')}\npress note {n}\n", mid=f"b{n}@example.org"))
    assert [oc.status for oc in host.poll()] == ["accepted"] * 3
    assert len(calls) == (2 if host.store.shared else 1) and host.pending() == 9
    assert host.last_poll.sent == 0 and host.last_poll.problems
    assert all("delivery failed" in p for p in host.last_poll.problems), host.last_poll.problems

def test_a_redelivered_message_is_applied_once_and_answered_once(root):
    host = Host.open(root)
    game = new_game(host)
    raw = orders_mail(game)
    deliver(host, raw)
    host.poll()
    deliver(host, raw)
    [oc] = host.poll()
    assert oc.status == "duplicate"
    assert order_texts(game) == TURN1.split("\n")[:-1]
    assert len(answers(host, "m1@example.org")) == 1


def test_a_poll_that_is_no_worker_waits_for_a_games_lock_and_deals_with_every_message(root):
    # `pbem mail poll` (no worker of `pbem serve`) deals with every message waiting: on a
    # game whose lock another process holds a moment it waits, as before; only a worker
    # passes over such a game (its owner takes it: test_store_affinity.py)
    import threading
    host = Host.open(root)
    game = new_game(host)
    for n in range(3):
        deliver(host, orders_mail(game, orders=f"press number {n}\n", mid=f"p{n}@example.org"))
    release, held = threading.Event(), threading.Event()
    holder = None
    if host.store.shared:
        other = Host.open(root)

        def hold():
            with other.store.transaction():
                other.store.game_lock("g1")
                held.set()
                release.wait(10)
        holder = threading.Thread(target=hold)
        holder.start()
        assert held.wait(10)
        threading.Timer(1.0, release.set).start()
    outcomes = host.poll()
    if holder is not None:
        holder.join(10)
    assert [o.status for o in outcomes] == ["accepted"] * 3
    assert M.Maildir(host.inbox_path).messages() == []


def test_a_message_another_worker_just_dealt_with_is_left_to_it_to_file(root, monkeypatch):
    # README, *Many workers on one database*: two workers may both see a message between
    # the moment one commits its job and the moment it files it; the other leaves it in the
    # inbox (filing it too puts a second copy into an IMAP folder), and should the first
    # have died before filing it, a poll after the grace files it
    first, second = Host.open(root), Host.open(root)
    game = new_game(first)
    raw = orders_mail(game)
    deliver(first, raw)
    oc = first.ingest_claimed(raw, "m1")                    # dealt with, not filed yet
    assert oc.status == "accepted"
    [again] = second.poll()
    assert again.status == "duplicate"
    if not first.store.shared:                              # one process: nothing to wait for
        assert again.filed == "processed" and M.Maildir(second.inbox_path).messages() == []
        return
    assert again.filed == "left" and len(M.Maildir(second.inbox_path).messages()) == 1
    [mine] = first.poll()                                   # its own job: filed at once
    assert mine.status == "duplicate" and mine.filed == "processed"
    assert M.Maildir(first.inbox_path).messages() == [] and len(first.processed.messages()) == 1
    deliver(first, raw)                                     # once more, the first one gone quiet
    [later] = second.poll()
    assert later.filed == "left"
    monkeypatch.setattr(Host, "FILING_GRACE", 0.0)
    [later] = second.poll()
    assert later.status == "duplicate" and later.filed == "processed"
    assert order_texts(game) == TURN1.split("\n")[:-1]      # applied once all along
    assert len(answers(first, "m1@example.org")) == 1


CRASH_POINTS = ["started", "journaled", "applied", "spool-written", "spooled", "recorded", "filed", "sent"]


@pytest.mark.parametrize("point", CRASH_POINTS)
def test_a_crash_at_any_point_applies_the_orders_once_and_answers_once(root, monkeypatch, point):
    """The file store finishes a job from its journal; the database rolls back the
    whole job (nothing of it was committed) and the next poll does it again."""
    host = Host.open(root)
    game = new_game(host)
    welcomes = len(outbox(host))
    deliver(host, orders_mail(game))
    fired = crash_once(monkeypatch, point)
    with pytest.raises(SimulatedCrash):
        Host.open(root).poll()
    assert fired == [point]
    again = Host.open(root)
    again.poll()
    again.poll()
    assert order_texts(game) == TURN1.split("\n")[:-1]               # applied exactly once
    assert len(answers(again, "m1@example.org")) == 1                # answered exactly once
    assert len(outbox(again)) == welcomes + 3
    assert M.Maildir(again.inbox_path).messages() == [] and again.pending() == 0
    assert Game(game.store).verify().ok


def test_a_deadline_default_is_applied_once_and_reported(root):
    start = datetime(2026, 1, 1, tzinfo=timezone.utc)
    clock = [start]
    host = Host.open(root, now=lambda: clock[0])
    game = new_game(host)
    before = len(order_texts(game))
    clock[0] = start + timedelta(hours=73)
    host.poll()
    host.poll()                                                      # a second look applies nothing more
    applied = order_texts(game)[before:]
    assert applied and all(t == "end" for t in applied[:1])
    deadline_mails = [m for _n, m in outbox(host) if m["X-pbem-Kind"] == "deadline"]
    assert len(deadline_mails) == 2 and "deadline" in text_of(deadline_mails[0]).lower()     # to each player
    assert Game(game.store).verify().ok


def test_the_status_board_reads_the_store(root):
    from pbem.host.status import board
    host = Host.open(root)
    new_game(host, "g1")
    new_game(host, "g2")
    rows, text = board(host)
    assert [r["game"] for r in rows] == ["g1", "g2"] and all(r["deadline"] for r in rows)
    assert ("worker(s) on the database" in text) == host.store.shared


@pytest.mark.parametrize("kind", ["files", "postgresql"])
def test_mail_no_server_takes_is_shown_by_status_with_the_servers_words(kind, tmp_path, request):
    """Issue 28 on both stores: a mail the server refuses is set aside, and `pbem host
    status` shows it with the server's words (the spool's errors.json, or pbem_outgoing)."""
    from click.testing import CliRunner
    from mail_helpers import SmtpCapture
    from pbem.cli import main
    with SmtpCapture(refuse=(BRITISH,)) as smtp:
        root = tmp_path / "h"
        make_host(root, smtp_port=smtp.port)
        if kind == "postgresql":
            from pg_helpers import use_database
            use_database(root, request.getfixturevalue("pg_url"))
        host = Host.open(root)
        new_game(host)
        host.flush()
        assert len(smtp.messages) == 2                              # axis and the referee
        out = CliRunner().invoke(main, ["host", "status", "--host", str(root)]).output
        assert f"welcome to {BRITISH}: set aside (no server will take it), 1 try" in out, out
        assert "550 5.1.1 no such mailbox" in out


def test_pause_extend_timezone_and_a_webhook_alike_on_both_stores(root, monkeypatch):
    """Issue 28's deadlines and pings on either store: `pbem deadline --pause/--resume`
    (a folder on files, the game's id on the database), EXTEND from each side and
    TIMEZONE by mail, a "your turn" ping to a webhook on loopback."""
    from click.testing import CliRunner
    from pbem.cli import main
    from pbem.host import notify as N
    from test_hosts_notify import Hooks
    monkeypatch.setenv("PBEM_HOST", str(root))
    monkeypatch.chdir(root)
    with Hooks() as hooks:
        host = Host.open(root)
        where = host.store.game("g1") if host.store.shared else host.cfg.games_dir / "g1"
        game = Game.create(where, "el-alamein", {"axis": AXIS, "british": BRITISH}, dice=DICE, game_id="g1", at=CLOCK)
        N.set_hooks(game, {"axis": f"{hooks.url}/axis"})
        host.welcome(game)
        assert [(p, d["side"], d["due"]) for p, d in hooks.posts] == [("/axis", "axis", "2026-01-04T00:00:00Z")]
        ref = "g1" if host.store.shared else str(where)
        r = CliRunner().invoke(main, ["deadline", ref, "--pause"])
        assert r.exit_code == 0 and "deadlines paused" in r.output, r.output
        r = CliRunner().invoke(main, ["deadline", ref, "--resume"])
        assert r.exit_code == 0 and "deadlines resumed" in r.output, r.output
        deliver(host, message(AXIS, f"Token: {token(game, 'axis')}\nTIMEZONE Asia/Tokyo\nEXTEND 1d\n", mid="a1@x"))
        deliver(host, message(BRITISH, f"Token: {token(game, 'british')}\nEXTEND 1d\n", mid="b1@x"))
        Host.open(root).poll()
        changes = [(en.event.action, en.event.by) for en in Game(game.store).entries() if en.kind == "DeadlinesChanged"]
        assert changes == [("paused", "host"), ("resumed", "host"), ("extended", "sides")]
        assert "Your times are now in UTC and in Asia/Tokyo" in text_of(answers(host, "a1@x")[-1])
        assert "Every side asked for it" in " ".join(text_of(answers(host, "b1@x")[-1]).split())
        due = [w["due"] for w in Host.open(root)._deadlines(Game(game.store))["waits"].values()]
        assert due == ["2026-01-05T00:00:00Z"]                  # 72 h from the start, then a day more
        assert Game(game.store).verify().ok


def test_a_key_by_mail_and_a_signed_order_with_its_receipt_alike_on_both_stores(root, tmp_path):
    """Issue 31 on either store: KEY / KEY CONFIRM by mail, an order signed with
    ssh-keygen, the host's receipt checked by `pbem receipt check`."""
    import re
    from pathlib import Path
    from click.testing import CliRunner
    from pbem.cli import main
    from test_trust_mail import SSH_KEYGEN, signed_mail
    from test_trust_signatures import keygen
    if SSH_KEYGEN is None:
        pytest.skip("ssh-keygen (OpenSSH) is not installed")
    host = Host.open(root)
    game = new_game(host)
    key = keygen(tmp_path, "axis")
    pub = Path(str(key) + ".pub").read_text().strip()
    deliver(host, message(AXIS, f"Token: {token(game, 'axis')}\nKEY {pub}\n", mid="k1@x"))
    host.poll()
    code = re.search(r"KEY CONFIRM ([0-9a-f]{16})", text_of(answers(host, "k1@x")[-1]))[1]
    deliver(host, message(AXIS, f"Token: {token(game, 'axis')}\nKEY CONFIRM {code}\n", mid="k2@x"))
    host.poll()
    assert "Registered" in text_of(answers(host, "k2@x")[-1])
    deliver(host, signed_mail(Game(game.store), "axis", key, "end\n", tmp_path, "s1@x", AXIS))
    host.poll()
    body = text_of(answers(host, "s1@x")[-1])
    assert "RECEIPT" in body, body
    (tmp_path / "answer.txt").write_text(body)
    r = CliRunner().invoke(main, ["receipt", "check", str(tmp_path / "answer.txt"), "--host-key",
                                  (root / "host-key.pub").read_text()])
    assert r.exit_code == 0, r.output
    given = [en.event for en in Game(game.store).entries() if en.kind == "OrderGiven"]
    assert given[-1].signature and Game(game.store).verify().ok
