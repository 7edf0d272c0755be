"""Mail in over IMAP against a real server (issue 28): Debian's Dovecot on loopback with a
throw-away user (tests/dovecot_helpers.py), through a proxy that sees every command.
Polling without IDLE, a change of UIDVALIDITY, a message another client deleted, and a
connection dropped in the middle of a fetch: every message is applied exactly once."""
from __future__ import annotations

import threading
import time

import pytest
from click.testing import CliRunner

from dovecot_helpers import PASSWORD, Dovecot, Proxy, dovecot_or_skip
from mail_helpers import AXIS, CLOCK, answers, make_host, message, new_game, secret
from pbem.cli import main
from pbem.engine import Game
from pbem.host import Host
from pbem.host import mail as M


@pytest.fixture(scope="session")
def dovecot():
    dovecot_or_skip()
    d = Dovecot().start()
    yield d
    d.stop()


@pytest.fixture(autouse=True)
def env(monkeypatch):
    monkeypatch.setenv("PBEM_CLOCK", CLOCK)
    monkeypatch.delenv("PBEM_HOST", raising=False)
    monkeypatch.setenv("PBEM_IMAP_PASSWORD", PASSWORD)


@pytest.fixture
def box(dovecot):
    """A fresh mail user and a proxy in front of Dovecot for it."""
    p = Proxy(dovecot.port)
    yield dovecot.new_user(), p
    p.close()


def imap_host(tmp_path, user: str, port: int) -> Host:
    host = make_host(tmp_path / "h")
    cfg = host.cfg.root / "pbem-host.toml"
    cfg.write_text(cfg.read_text().replace('kind = "maildir"\nmaildir = "inbox"',
                                           f'kind = "imap"\nserver = "127.0.0.1"\nport = {port}\n'
                                           f'security = "none"\nuser = "{user}"\ntimeout = 10'))
    return Host.open(host.cfg.root)


def orders(game, text: str, mid: str) -> bytes:
    return message(AXIS, f"Token: {secret(game, 'axis')}\n{text}\n", mid=mid)


def press(game) -> list[str]:
    return [e.event.text for e in Game(game.dir).entries() if type(e.event).__name__ == "PressSent"]


def test_messages_are_applied_and_filed_on_a_real_server(tmp_path, dovecot, box):
    user, proxy = box
    host = imap_host(tmp_path, user, proxy.port)
    game = new_game(host)
    dovecot.append(user, orders(game, "move 8Pz 0612 0712 0812", "m1@example.org"))
    dovecot.append(user, message("stranger@else.example", "end\n", mid="s@else.example"))
    outcomes = host.poll()
    assert [o.status for o in outcomes] == ["accepted", "quarantined"]
    assert dovecot.raws(user) == []
    assert len(dovecot.raws(user, "pbem-processed")) == 1 and len(dovecot.raws(user, "pbem-quarantine")) == 1
    assert len(answers(host, "m1@example.org")) == 1
    assert not any(c.split()[1:2] == ["IDLE"] for c in proxy.commands)
    assert any(c.split()[1:3] == ["UID", "MOVE"] for c in proxy.commands)      # named only after the login


def test_polling_without_idle_picks_up_mail_that_arrives_between_polls(tmp_path, dovecot, box):
    user, proxy = box
    host = imap_host(tmp_path, user, proxy.port)
    game = new_game(host)
    stop = threading.Event()
    loop = threading.Thread(target=host.serve, kwargs={"interval": 0.2, "stop": stop})
    loop.start()
    try:
        time.sleep(0.5)                                   # a few empty polls first
        dovecot.append(user, orders(game, "press one", "p1@example.org"))
        deadline = time.monotonic() + 20
        while not answers(host, "p1@example.org") and time.monotonic() < deadline:
            time.sleep(0.05)
    finally:
        stop.set()
        loop.join(30)
    assert answers(host, "p1@example.org") and press(game) == ["one"]
    verbs = [c.split()[1].upper() for c in proxy.commands if len(c.split()) > 1]
    assert "IDLE" not in verbs and "NOOP" not in verbs
    assert verbs.count("LOGIN") >= 2 and verbs.count("LOGIN") == verbs.count("LOGOUT")   # one session a poll


def test_a_uidvalidity_change_renumbers_nothing_the_host_keeps(tmp_path, dovecot, box, monkeypatch):
    user, proxy = box
    host = imap_host(tmp_path, user, proxy.port)
    game = new_game(host)
    dovecot.append(user, orders(game, "press first", "p1@example.org"))
    real = M.ImapInbox.file_into

    def broken(self, uid, where):
        raise M.MailError("IMAP 127.0.0.1: connection reset (simulated, after the message was handled)")
    monkeypatch.setattr(M.ImapInbox, "file_into", broken)
    r = CliRunner().invoke(main, ["mail", "poll", "--host", str(host.cfg.root)])
    assert r.exit_code == 1 and "connection reset" in r.output
    assert press(game) == ["first"] and len(dovecot.raws(user)) == 1          # applied, still in the folder
    monkeypatch.setattr(M.ImapInbox, "file_into", real)
    # the server renumbers its messages: another UIDVALIDITY, and UIDs from 100 on
    dovecot.doveadm("mailbox", "update", "-u", user, "--uid-validity", "4242", "--min-next-uid", "100", "INBOX")
    dovecot.append(user, orders(game, "press second", "p2@example.org"))
    outcomes = host.poll()
    assert sorted(o.status for o in outcomes) == ["accepted", "duplicate"]
    assert press(game) == ["first", "second"]                 # the first one not again
    assert dovecot.raws(user) == [] and len(dovecot.raws(user, "pbem-processed")) == 2
    log = (host.cfg.root / "host.log").read_text()
    assert "the UIDVALIDITY of INBOX changed from" in log and "to 4242" in log
    assert len(answers(host, "p1@example.org")) == 1


def test_a_message_deleted_by_another_client_before_its_fetch_is_skipped(tmp_path, dovecot, box):
    user, proxy = box
    host = imap_host(tmp_path, user, proxy.port)
    game = new_game(host)
    dovecot.append(user, orders(game, "press gone", "g1@example.org"))
    dovecot.append(user, orders(game, "press kept", "k1@example.org"))
    fetches = []

    def other_client(line: str):
        words = line.split()
        if words[1:3] == ["UID", "FETCH"]:
            fetches.append(words[3])
            if len(fetches) == 1:                           # the first: deleted by someone else just now
                c = dovecot.client(user)
                c.select("INBOX")
                c.uid("STORE", words[3], "+FLAGS", "(\\Deleted)")
                c.expunge()
                c.logout()
    proxy.before = other_client
    outcomes = host.poll()
    assert [o.status for o in outcomes] == ["accepted"] and press(game) == ["kept"]
    assert dovecot.raws(user) == [] and len(dovecot.raws(user, "pbem-processed")) == 1
    assert "was deleted by another client" in (host.cfg.root / "host.log").read_text()


def test_a_connection_dropped_in_the_middle_of_a_fetch_loses_and_repeats_nothing(tmp_path, dovecot, box):
    user, proxy = box
    host = imap_host(tmp_path, user, proxy.port)
    game = new_game(host)
    for n in (1, 2, 3):
        dovecot.append(user, orders(game, f"press number {n}", f"p{n}@example.org"))
    fetches = []

    def drop_on_second(line: str):
        if line.split()[1:3] == ["UID", "FETCH"]:
            fetches.append(line)
            if len(fetches) == 2:
                proxy.cut_fetch = 40                        # 40 bytes of the message, then the line goes dead
    proxy.before = drop_on_second
    r = CliRunner().invoke(main, ["mail", "poll", "--host", str(host.cfg.root)])
    assert proxy.cuts == 1
    assert r.exit_code == 1 and "pbem: inbox: IMAP 127.0.0.1" in r.output and "while fetching message" in r.output
    assert press(game) == ["number 1"] and len(dovecot.raws(user)) == 2
    proxy.before = None
    r = CliRunner().invoke(main, ["mail", "poll", "--host", str(host.cfg.root)])
    assert r.exit_code == 0, r.output
    assert press(game) == ["number 1", "number 2", "number 3"]
    assert dovecot.raws(user) == [] and all(len(answers(host, f"p{n}@example.org")) == 1 for n in (1, 2, 3))


def test_a_wrong_password_fails_the_poll_with_the_servers_words(tmp_path, dovecot, box, monkeypatch):
    user, proxy = box
    host = imap_host(tmp_path, user, dovecot.port)
    monkeypatch.setenv("PBEM_IMAP_PASSWORD", "not-the-password")
    r = CliRunner().invoke(main, ["mail", "poll", "--host", str(host.cfg.root)])
    assert r.exit_code == 1 and "pbem: inbox: IMAP 127.0.0.1" in r.output and "AUTHENTICATIONFAILED" in r.output
    assert "inbox empty" not in r.output


def test_two_workers_on_one_database_take_each_message_of_one_folder_once(tmp_path, dovecot, box, pg_url):
    """README, *Many workers on one database*: with IMAP every worker reads the folder and
    one of them takes each message.  Two hosts on one database poll the same folder at
    one instant: every message applied once, answered once and filed once."""
    import json
    from pg_helpers import use_database
    user, _proxy = box
    root = imap_host(tmp_path, user, dovecot.port).cfg.root
    use_database(root, pg_url)
    host = Host.open(root)
    g = Game.create(host.store.game("g1"), "el-alamein", {"axis": AXIS}, seed_hex="33" * 32, game_id="g1", at=CLOCK)
    host.welcome(g)
    token = json.loads(g.store.read("player-secrets.json"))["axis"]
    for n in range(8):
        dovecot.append(user, message(AXIS, f"Token: {token}\npress number {n}\n", mid=f"p{n}@example.org"))
    workers = [Host.open(root) for _ in range(2)]
    start = threading.Barrier(len(workers))
    outcomes = []

    def work(h):
        start.wait()
        outcomes.extend(h.poll())
    threads = [threading.Thread(target=work, args=(h,)) for h in workers]
    for t in threads:
        t.start()
    for t in threads:
        t.join(120)
    texts = [e.event.text for e in Game(host.store.game("g1")).entries() if type(e.event).__name__ == "PressSent"]
    assert sorted(texts) == [f"number {n}" for n in range(8)]                   # each once
    assert sorted(o.status for o in outcomes).count("accepted") == 8
    assert dovecot.raws(user) == [] and len(dovecot.raws(user, "pbem-processed")) == 8
    assert all(len(answers(host, f"p{n}@example.org")) == 1 for n in range(8))
