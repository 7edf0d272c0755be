"""Issue 10: the host attacked as a hostile player, a careless host and a failing
machine would.  One regression test (at least) per numbered item; each failed
on the code before the fix."""
from __future__ import annotations

import errno
import re
import json
import stat

import pytest
from click.testing import CliRunner

import pbem.host as H
from mail_helpers import AXIS, BRITISH, CLOCK, HOST_ADDR, SEED, answers, deliver, doc, game_store, make_host, \
    message, new_game, outbox, reopen, secret, text_of
from pbem.host import mail as M
from pbem.cli import main
from pbem.engine import Game
from pbem.host import Host

TURN1 = "move 8Pz 0612 0712 0812\nend\n"


@pytest.fixture(autouse=True)
def fixed_clock(monkeypatch):
    monkeypatch.setenv("PBEM_CLOCK", CLOCK)
    monkeypatch.delenv("PBEM_HOST", raising=False)


# the tests with a host run on both stores (conftest's store_kind: files and PostgreSQL)
both_stores = pytest.mark.usefixtures("store_kind")


@pytest.fixture
def host(tmp_path, store_kind) -> Host:
    return make_host(tmp_path / "host")


@pytest.fixture
def game(host) -> Game:
    return new_game(host, dice=[5, 3, 2, 4, 1, 6, 3, 3, 2, 5, 4, 1] * 4)


def orders(game, side="axis", body=TURN1, mid="m1@example.org", **kw) -> bytes:
    return message({"axis": AXIS, "british": BRITISH}[side], f"Token: {secret(game, side)}\n{body}", mid=mid, **kw)


def raw_mail(sender: str, body: str, headers: str) -> bytes:
    return (f"From: {sender}\r\nTo: {HOST_ADDR}\r\n{headers}\r\n\r\n{body}").encode()


def order_texts(game):
    return [en.event.text for en in reopen(game).entries() if en.kind == "OrderGiven"]


# --- 2. mail that wedges the host -------------------------------------------------------------------

@pytest.mark.parametrize("mid", ["a\x01b@x.example", "a\x1b[2Jb@x.example", "a\x7fb@x.example", "x" * 400 + "@y"])
def test_a_message_id_with_control_characters_is_applied_answered_and_filed(host, game, mid):
    raw = raw_mail(AXIS, f"Token: {secret(game, 'axis')}\n{TURN1}",
                   f"Subject: [pbem g1] orders\r\nMessage-ID: <{mid}>\r\nReferences: <ok@x> <bad\x01ref@x>")
    deliver(host, raw)
    [oc] = host.poll()
    assert oc.status == "accepted", oc
    assert M.Maildir(host.inbox_path).messages() == []           # filed, not left to fail again
    mine = [m for _n, m in outbox(host) if str(m["X-pbem-Kind"]) == "answer"]
    assert len(mine) == 1 and mid[:20] not in mine[0].as_string()   # an unusable id is not echoed
    assert "<ok@x>" in str(mine[0]["References"]) and "bad" not in str(mine[0]["References"])
    assert host.poll() == []                                      # nothing left to trip over


def test_a_subject_with_line_breaks_cannot_add_a_header(host, game):
    raw = raw_mail(AXIS, f"Token: {secret(game, 'axis')}\n{TURN1}",
                   "Subject: =?utf-8?q?=5Bpbem_g1=5D_orders=0D=0ABcc=3A_victim=40x.example?=\r\n"
                   "Message-ID: <m1@example.org>")
    deliver(host, raw)
    [oc] = host.poll()
    assert oc.status == "accepted"
    [ans] = answers(host, "m1@example.org")
    assert ans["Bcc"] is None and "\n" not in str(ans["Subject"]) and "victim" in str(ans["Subject"])


@pytest.mark.parametrize("addr", ["evil@x.example\r\nBcc: victim@y.example", "evil@x.example\nX: y", "a b@c.d"])
def test_pbem_new_refuses_a_player_address_that_is_not_plain(tmp_path, addr):
    r = CliRunner().invoke(main, ["new", str(tmp_path / "g"), "--scenario", "el-alamein", "--player", f"axis={addr}"])
    assert r.exit_code == 1 and "not a plain e-mail address" in r.output and "Traceback" not in r.output
    assert not (tmp_path / "g" / "log.jsonl").exists()


@both_stores
def test_a_player_address_with_a_line_break_gets_no_mail_but_stops_nothing(tmp_path):
    host = make_host(tmp_path / "h")
    bad = new_game(host, "bad", dice=[4, 2, 6, 1] * 8)
    # a careless host edits the player's new address by hand, with a line break in it
    bad.store.write(H.CHANGES_NAME, json.dumps({"addresses": {"axis": "evil@x.example\r\nBcc: victim@y.example"}}).encode())
    bad.submit("axis", "move 8Pz 0612 0712 0812", at=CLOCK)           # bad owes its players a report
    good = new_game(host, "g1", dice=[4, 2, 6, 1] * 8)
    deliver(host, orders(good))
    [oc] = host.poll()
    assert oc.status == "accepted"
    for _name, m in outbox(host):
        assert "victim" not in m.as_string()
    assert any(str(m["X-pbem-Game"]) == "bad" and str(m["X-pbem-Kind"]) == "report" for _n, m in outbox(host))


def test_report_eml_refuses_an_address_that_is_not_plain(tmp_path):
    g = Game.create(tmp_path / "g", "el-alamein", {"axis": AXIS}, dice=[1, 2], game_id="g", at=CLOCK)
    from pbem.report import render
    st, entries = g.state(), g.entries()
    with pytest.raises(M.Undeliverable, match="not a plain e-mail address"):
        render.report_eml(g, "axis", st, entries, 0, entries[-1].hash, to="a@b.c\r\nBcc: v@x")
    r = CliRunner().invoke(main, ["report", str(g.dir), "--as", "axis", "--format", "eml"])
    assert r.exit_code == 0 and "Traceback" not in r.output


def test_a_message_that_always_fails_is_set_aside_and_blocks_nothing_else(host, game, monkeypatch, store_kind):
    other = new_game(host, "g2", dice=[4, 2, 6, 1] * 8)
    real = Host._finish_orders

    def poisoned(self, name, inc, key, rec, *game):                # game: the one ingest opened, if any
        if inc.message_id == "poison@x.example":
            Game(self.games()[rec["game"]]).submit(rec["side"], rec["text"], at=CLOCK)  # applied, then ...
            raise RuntimeError("answer cannot be written")                            # ... the answer fails
        return real(self, name, inc, key, rec, *game)
    monkeypatch.setattr(Host, "_finish_orders", poisoned)
    deliver(host, orders(game, body="move 8Pz 0612 0712 0812\n", mid="poison@x.example"))
    results = []
    for n in range(H.Host.MAX_ATTEMPTS):
        deliver(host, message(AXIS, f"Token: {secret(other, 'axis')}\nmove 8Pz 0612\n",
                              subject="[pbem g2] orders", mid=f"ok{n}@x.example"))
        results.append({o.name: o for o in host.poll()})
    # the other game's message is applied in every poll, whatever the poisoned one does
    assert [sum(o.status in ("accepted", "partial", "refused") for o in r.values()) for r in results] == [1, 1, 1]
    last = [o for o in results[-1].values() if o.status == "error"][0]
    assert last.filed == "quarantine" and "set aside" in last.detail
    assert M.Maildir(host.inbox_path).messages() == []
    assert not host.busy("g1")                                    # g1's deadlines and reports go on
    if store_kind == "files":
        assert order_texts(game) == ["move 8Pz 0612 0712 0812"]  # what was applied stays, once
    else:
        assert order_texts(game) == [] and "kept nothing" in last.detail   # each try was rolled back whole
    assert any("set aside" in reason for _p, _at, reason in host.quarantined())


def test_one_game_failing_in_tick_does_not_stop_the_others(host, game, monkeypatch):
    other = new_game(host, "g2", dice=[4, 2, 6, 1] * 8)
    # orders given at the host: both games owe their players a report
    assert other.submit("axis", "move 8Pz 0612 0712 0812", at=CLOCK).refused is None
    assert game.submit("axis", "move 8Pz 0612 0712 0812", at=CLOCK).refused is None
    real = Host._sync_reports

    def broken(self, g):
        if g.game_id == "g1":
            raise ValueError("g1 is broken")
        return real(self, g)
    monkeypatch.setattr(Host, "_sync_reports", broken)
    host.poll()
    kinds = [(str(m["X-pbem-Game"]), str(m["X-pbem-Kind"])) for _n, m in outbox(host)]
    assert ("g2", "report") in kinds and ("g1", "report") not in kinds
    assert "g1: reports and deadlines skipped" in (host.cfg.root / "host.log").read_text()


# --- 3. the host's own job keys are not Message-IDs -------------------------------------------------

def test_a_strangers_message_id_cannot_suppress_a_welcome(host, tmp_path):
    for mid in ("<welcome:g2>", "welcome:g2", "<host job welcome:g2>", "host job welcome:g2"):
        deliver(host, raw_mail("stranger@else.example", "end", f"Subject: hello\r\nMessage-ID: {mid}"))
    host.poll()
    g2 = Game.create(game_store(host, "g2"), "el-alamein", {"axis": AXIS, "british": BRITISH},
                     seed_hex=SEED, game_id="g2", at=CLOCK)
    sent = host.welcome(g2)
    assert len(sent) == 2
    kinds = [(str(m["X-pbem-Game"]), str(m["X-pbem-Kind"])) for _n, m in outbox(host)]
    assert kinds.count(("g2", "welcome")) == 2


def test_job_keys_and_message_ids_do_not_meet():
    assert H.job_key("welcome", "g2").startswith("host job ")
    assert M._msgid("<host job welcome:g2>") == ""                # no id holds a space
    assert M.parse(raw_mail(AXIS, "x", "Message-ID: <welcome:g2>")).key == "welcome:g2" != H.job_key("welcome", "g2")


# --- 4. a full disk loses nothing ---------------------------------------------------------------

def test_a_full_disk_leaves_the_message_in_the_inbox_until_space_returns(host, game, monkeypatch, store_kind):
    real = M.write_atomic

    def full(path, data, mode=0o600):
        raise OSError(errno.ENOSPC, "No space left on device")
    monkeypatch.setattr(M, "write_atomic", full)
    deliver(host, orders(game))
    before = len(outbox(host))
    [oc] = host.poll()
    if store_kind == "files":                                     # the spool is on the full disk
        assert oc.status == "error" and oc.filed == "left" and "No space left" in oc.detail
        assert len(M.Maildir(host.inbox_path).messages()) == 1 and host.quarantined() == []
        assert "tried again on the next poll" in (host.cfg.root / "host.log").read_text()
    else:                                                         # the database took the job; the outbox waits
        assert oc.status == "accepted" and host.pending() == 3 and len(outbox(host)) == before
        assert "delivery failed, 3 mail(s) wait in the spool" in (host.cfg.root / "host.log").read_text()
    monkeypatch.setattr(M, "write_atomic", real)                  # space is back
    host.poll()
    assert order_texts(game) == TURN1.split("\n")[:-1] and host.pending() == 0
    assert len(answers(host, "m1@example.org")) == 1


def test_quarantine_lists_a_message_whose_reason_could_not_be_written(host, game, monkeypatch):
    monkeypatch.setattr(Host, "_reason", lambda self, name, oc: (_ for _ in ()).throw(OSError(errno.ENOSPC, "full")))
    deliver(host, message("stranger@else.example", "end", mid="s1@x"))
    host.poll()
    r = CliRunner().invoke(main, ["mail", "quarantine", "--host", str(host.cfg.root)])
    assert "quarantine empty" not in r.output and "(no reason recorded)" in r.output


# --- 5. what holds a secret is private --------------------------------------------------------------

def test_welcome_mails_outbox_and_host_folders_are_private(host, game):
    welcomes = [f for f in host.outbox_path.glob("*.eml") if "welcome" in f.name]
    assert welcomes and secret(game, "axis") in b"".join(f.read_bytes() for f in welcomes).decode()
    for f in welcomes:
        assert stat.S_IMODE(f.stat().st_mode) == 0o600, f
    for d in (host.outbox_path, host.state_dir, host.cfg.root / "mail", host.cfg.games_dir):
        assert stat.S_IMODE(d.stat().st_mode) == 0o700, d
    assert stat.S_IMODE(host.logfile.stat().st_mode) == 0o600


def test_a_host_made_before_is_made_private_when_opened(host):
    host.outbox_path.chmod(0o755)
    Host.open(host.cfg.root)
    assert stat.S_IMODE(host.outbox_path.stat().st_mode) == 0o700


# --- 10. tokens and signatures of any text -----------------------------------------------------------

@pytest.mark.parametrize("line", ["Token: sécret", "Token: 秘密", "Signature: ünïcode", "Token: \udcff"])
def test_non_ascii_token_or_signature_is_refused_with_an_answer(host, game, line):
    head = game.head()[1]
    body = (f"Head: {head}\n" if line.startswith("Signature") else "") + f"{line}\n{TURN1}"
    deliver(host, message(AXIS, body.encode("utf-8", "surrogateescape").decode("utf-8", "replace")))
    [oc] = host.poll()
    assert oc.status == "quarantined" and "does not match" in oc.detail, oc
    [ans] = answers(host, "m1@example.org")
    assert "REFUSED" in text_of(ans) and order_texts(game) == []


# --- 11. pbem orders sign on any bytes -------------------------------------------------------------

def test_orders_sign_refuses_non_utf8_orders_and_secret_clearly(tmp_path):
    orders_file = tmp_path / "o.txt"
    orders_file.write_bytes(b"move 8Pz 0612 \xff\xfe\n")
    secret_file = tmp_path / "s"
    secret_file.write_bytes(b"abc\n")
    args = ["orders", "sign", str(orders_file), "--game", "g1", "--side", "axis", "--head", "ab" * 32,
            "--secret-file", str(secret_file)]
    r = CliRunner().invoke(main, args)
    assert r.exit_code == 2 and "not UTF-8" in r.output and "Traceback" not in r.output
    orders_file.write_bytes(b"move 8Pz 0612\n")
    secret_file.write_bytes(b"\xc3\x28secret")
    r = CliRunner().invoke(main, args)
    assert r.exit_code == 2 and "secret file" in r.output and "not UTF-8" in r.output


# --- 13. exactly the documented security values --------------------------------------------------

@pytest.mark.parametrize("value", ["ssl", "SSL", "STARTTLS", "tls ", "plain", "", "None"])
@pytest.mark.parametrize("section", ["incoming", "outgoing"])
def test_a_security_typo_is_refused_with_the_accepted_values(tmp_path, section, value):
    kind = {"incoming": "imap", "outgoing": "smtp"}[section]
    data = {"address": HOST_ADDR, section: {"kind": kind, "server": "mail.example.org", "security": value}}
    with pytest.raises(H.HostError, match=f'{section}.security: .*accepted: "tls", "starttls", "none"'):
        H._config(data, tmp_path, tmp_path / "pbem-host.toml")


def test_a_security_typo_in_the_file_is_refused_by_every_command(tmp_path):
    make_host(tmp_path / "h")
    cfg = tmp_path / "h" / "pbem-host.toml"
    cfg.write_text(cfg.read_text().replace('kind = "outbox"\noutbox = "outbox"',
                                           'kind = "smtp"\nserver = "smtp.example.org"\nsecurity = "ssl"'))
    r = CliRunner().invoke(main, ["mail", "poll", "--host", str(tmp_path / "h")])
    assert r.exit_code == 1 and 'outgoing.security: Invalid enum value \'ssl\'' in r.output
    assert '"tls", "starttls", "none"' in r.output


@pytest.mark.parametrize("value", ["ssl", "STARTTLS", "plain"])
def test_the_transports_themselves_refuse_unknown_security(value):
    with pytest.raises(M.MailError, match="not one of"):
        M.SmtpSender("smtp.example.org", security=value)
    with pytest.raises(M.MailError, match="not one of"):
        M.ImapInbox("imap.example.org", security=value)
    with pytest.raises(M.MailError, match="loopback"):
        M.SmtpSender("smtp.example.org", security="none")


def test_an_unknown_config_key_is_refused_not_ignored(tmp_path):
    make_host(tmp_path / "h")
    cfg = tmp_path / "h" / "pbem-host.toml"
    cfg.write_text(cfg.read_text().replace("map_png = false", "map_pgn = false"))
    with pytest.raises(H.HostError, match="map_pgn: unknown key"):
        H.load_config(tmp_path / "h")


@both_stores
def test_map_attachments_can_be_switched_off(tmp_path):
    host = make_host(tmp_path / "h")
    cfg = host.cfg.root / "pbem-host.toml"
    cfg.write_text(cfg.read_text().replace('map_svg = "final"', "map_svg = false"))
    host = Host.open(host.cfg.root)
    game = new_game(host, dice=[4, 2, 6, 1] * 8)
    deliver(host, orders(game))
    host.poll()
    [ans] = answers(host, "m1@example.org")
    assert [p.get_content_type() for p in ans.iter_attachments()] == []
    assert json.loads(doc(game, "player-secrets.json"))
