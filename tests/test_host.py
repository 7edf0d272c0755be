"""The mail host (issue 3): ingest, authentication, answers, refusals,
exactly-once processing across crashes, deadlines, serve.  Real Maildirs,
real files; no mocks of mail parts."""
from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from datetime import timedelta
from pathlib import Path

import pytest
from click.testing import CliRunner

import pbem.host as H
from mail_helpers import (AXIS, BRITISH, CLOCK, EXAMPLE, HOST_ADDR, SEED, SmtpCapture, answers, deliver, doc,
                          game_arg, game_store, log_bytes, make_host, message, new_game, outbox, parse, reopen,
                          secret, text_of, crash_once)
from pbem.host import mail as M
from pbem.cli import main
from pbem.engine import Game
from pbem.host import Host, SimulatedCrash, crash, parse_time

TURN1 = "move 8Pz 0612 0712 0812\nend\nattack 0913 with 8Pz\nend\n"

pytestmark = pytest.mark.usefixtures("store_kind")         # every test on files and on PostgreSQL (conftest)


@pytest.fixture(autouse=True)
def fixed_clock(monkeypatch):
    monkeypatch.setenv("PBEM_CLOCK", CLOCK)
    monkeypatch.delenv("PBEM_HOST", raising=False)
    monkeypatch.delenv("PBEM_SMTP_PASSWORD", raising=False)
    monkeypatch.delenv("PBEM_IMAP_PASSWORD", raising=False)


@pytest.fixture
def host(tmp_path) -> Host:
    return make_host(tmp_path / "host")


@pytest.fixture
def game(host) -> Game:
    return new_game(host, dice=[5, 3, 2, 4, 1, 6, 3, 3, 2, 5, 4, 1] * 4)


def orders_mail(game, side="axis", orders=TURN1, mid="m1@example.org", head=None, token=None, sender=None, **kw):
    lines = []
    if head:
        lines.append(f"Head: {head}")
    lines.append(f"Token: {token if token is not None else secret(game, side)}")
    return message(sender or {"axis": AXIS, "british": BRITISH}[side], "\n".join(lines) + "\n" + orders, mid=mid, **kw)


def only_answer(host, mid="m1@example.org"):
    got = answers(host, mid)
    assert len(got) == 1, [m["Subject"] for m in got]
    return got[0]


def order_texts(game):
    return [en.event.text for en in reopen(game).entries() if en.kind == "OrderGiven"]


# --- configuration -------------------------------------------------------------------

@pytest.mark.files_only("host init's folders and modes; no store is opened")
def test_host_init_writes_config_folders_and_private_credentials(tmp_path):
    r = CliRunner().invoke(main, ["host", "init", str(tmp_path / "h"), "--address", "Ref@Club.Example",
                                  "--smtp", "smtp.club.example:587", "--ask-passwords"], input="s3cret-pw\n")
    assert r.exit_code == 0, r.output
    root = tmp_path / "h"
    cfg = H.load_config(root)
    assert cfg.address == "ref@club.example" and cfg.outgoing["kind"] == "smtp" and cfg.outgoing["port"] == 587
    assert cfg.incoming["kind"] == "maildir"
    for d in ("inbox/new", "inbox/cur", "inbox/tmp", "games", "mail/processed/cur", "mail/quarantine/cur"):
        assert (root / d).is_dir(), d
    assert (root / "credentials.toml").stat().st_mode & 0o777 == 0o600
    assert "s3cret-pw" not in (root / "pbem-host.toml").read_text()
    assert H.password(cfg, "smtp") == "s3cret-pw"
    shown = CliRunner().invoke(main, ["host", "show", "--host", str(root)])
    assert shown.exit_code == 0 and "password: credentials.toml" in shown.output and "s3cret" not in shown.output
    os.chmod(root / "credentials.toml", 0o644)
    with pytest.raises(H.HostError, match="chmod 600"):
        H.password(cfg, "smtp")


@pytest.mark.files_only("passwords only; no store is opened")
def test_password_from_environment_wins(tmp_path, monkeypatch):
    H.init_host(tmp_path / "h", HOST_ADDR, outgoing={"kind": "smtp", "server": "x", "port": 25})
    monkeypatch.setenv("PBEM_SMTP_PASSWORD", "from-env")
    assert H.password(H.load_config(tmp_path / "h"), "smtp") == "from-env"


@pytest.mark.parametrize("edit, needle", [
    ('address = "referee@club.example"', "address: missing"),
    ('kind = "maildir"', 'incoming.kind: Invalid enum value \'pop3\'; accepted: "maildir", "imap"'),
    ('period = "off"', "is not a duration"),
])
def test_bad_config_is_one_clear_line(tmp_path, edit, needle):
    make_host(tmp_path / "h")
    p = tmp_path / "h" / "pbem-host.toml"
    text = p.read_text()
    repl = {"address: missing": "", 'incoming.kind: Invalid enum value \'pop3\'; accepted: "maildir", "imap"': 'kind = "pop3"',
            "is not a duration": 'period = "soon"'}[needle]
    p.write_text(text.replace(edit, repl, 1))
    r = CliRunner().invoke(main, ["mail", "poll", "--host", str(tmp_path / "h")])
    assert r.exit_code == 1 and needle in r.output and "Traceback" not in r.output


# --- creating a game by mail ---------------------------------------------------------------

def test_pbem_new_with_a_host_mails_each_player_a_welcome(tmp_path, monkeypatch):
    root = tmp_path / "h"
    make_host(root, map_png=True)
    monkeypatch.chdir(root)
    r = CliRunner().invoke(main, ["new", "games/g1", "--scenario", "el-alamein", "--player", f"axis={AXIS}",
                                  "--player", f"british={BRITISH}", "--id", "g1"])
    assert r.exit_code == 0, r.output
    assert "welcome mailed to axis" in r.output
    host = Host.open(root)
    g = Game(host.games()["g1"])                  # games/g1, or game g1 in the host's database
    sec = json.loads(doc(g, "player-secrets.json"))
    assert g.store.mode("player-secrets.json") == 0o600
    log = log_bytes(g).decode()
    mails = {str(m["X-pbem-Side"]): m for _n, m in outbox(host)}
    assert set(mails) == {"axis", "british", "referee"}
    for side, addr in (("axis", AXIS), ("british", BRITISH)):
        m = mails[side]
        body = text_of(m)
        assert m["To"] == addr and "[pbem g1] welcome" in m["Subject"]
        assert sec[side] in body and sec[side] not in log
        other = "british" if side == "axis" else "axis"
        assert sec[other] not in m.as_string()
        assert g.created.seed_commitment in body                 # the seed commitment
        assert "HOW TO SEND ORDERS" in body and "Report for" in body   # how to write orders; first report
        assert [p.get_content_type() for p in m.iter_attachments()] == ["image/png"]
        assert m["Message-ID"] == f"<pbem.g1.welcome.{side}@club.example>"
    assert not any(s in mails["referee"].as_string() for s in sec.values())


@pytest.mark.files_only("no host at all")
def test_pbem_new_without_a_host_sends_nothing(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    r = CliRunner().invoke(main, ["new", "g", "--scenario", "el-alamein", "--player", f"axis={AXIS}"])
    assert r.exit_code == 0 and "welcome" not in r.output
    assert not (tmp_path / "g" / "player-secrets.json").exists()


@pytest.mark.files_only("adds a game folder; a database host loads folders with `pbem host import` (test_store_host)")
def test_host_add_welcomes_an_existing_game(tmp_path):
    host = make_host(tmp_path / "h")
    Game.create(tmp_path / "elsewhere", "el-alamein", {"axis": AXIS, "british": BRITISH}, game_id="old")
    r = CliRunner().invoke(main, ["host", "add", str(tmp_path / "elsewhere"), "--host", str(tmp_path / "h")])
    assert r.exit_code == 0, r.output
    assert "old" in host.games() and len([1 for _n, m in outbox(host) if m["X-pbem-Kind"] == "welcome"]) == 2


# --- accepted orders -----------------------------------------------------------------------

def test_accepted_orders_are_answered_in_thread_and_every_side_gets_its_report(host, game):
    deliver(host, orders_mail(game, extra={"References": "<pbem.g1.welcome.axis@club.example>"}))
    outcomes = host.poll()
    assert [o.status for o in outcomes] == ["accepted"]
    assert order_texts(game) == TURN1.split("\n")[:-1]
    ans = only_answer(host)
    assert ans["To"] == AXIS and ans["X-pbem-Outcome"] == "accepted"
    assert ans["In-Reply-To"] == "<m1@example.org>"
    assert ans["References"] == "<pbem.g1.welcome.axis@club.example> <m1@example.org>"
    assert ans["Subject"] == "ACCEPTED: Re: [pbem g1] orders" and ans["Auto-Submitted"] == "auto-replied"
    body = text_of(ans)
    assert "ACCEPTED: all 4 order(s) applied." in body and "line 2: move 8Pz 0612 0712 0812" in body
    assert "Combat at 0913" in body and reopen(game).head()[1] in body
    head = reopen(game).head()[1]
    new = [m for _n, m in outbox(host) if m["X-pbem-Kind"] in ("report", "referee") and m["X-pbem-Head"] == head]
    assert sorted(str(m["To"]) for m in new) == sorted([BRITISH, HOST_ADDR])
    brit = next(m for m in new if m["To"] == BRITISH)
    assert "Combat at 0913" in text_of(brit) and secret(game, "axis") not in brit.as_string()
    assert secret(game, "axis") not in ans.as_string()          # the token is not echoed back either
    # the message left the inbox for mail/processed only after all that
    assert M.Maildir(host.inbox_path).messages() == []
    assert len(host.processed.messages()) == 1


def test_html_only_mail_is_read_as_text(host, game):
    html = (f"<html><body><p>Token: {secret(game, 'axis')}</p><div>move 8Pz 0612 0712 0812</div><div>end</div>"
            "<div class='gmail_quote'>On Monday the referee wrote:<blockquote>move 5Pz 0512</blockquote></div>"
            "</body></html>")
    deliver(host, message(AXIS, None, html=html))
    assert [o.status for o in host.poll()] == ["accepted"]
    assert order_texts(game) == ["move 8Pz 0612 0712 0812", "end"]


def test_quoted_lines_and_signature_are_not_orders(host, game):
    body = (f"Token: {secret(game, 'axis')}\nmove 8Pz 0612 0712 0812\n\nOn Mon, 1 Jan 2026, the host wrote:\n"
            "> move 5Pz 0512 0612 0713\n> end\n-- \nErwin\nend\n")
    deliver(host, message(AXIS, body))
    host.poll()
    assert order_texts(game) == ["move 8Pz 0612 0712 0812"]


def test_a_message_without_orders_gets_the_current_report(host, game):
    deliver(host, orders_mail(game, orders="# just send me the report\n"))
    host.poll()
    ans = only_answer(host)
    assert "No orders found" in text_of(ans) and "Report for German-Italian" in text_of(ans)
    assert len(outbox(host)) == 3 + 1                       # welcomes + this answer: no state change, no reports


def test_partly_applied_orders_say_what_was_and_was_not_applied(host, game):
    before = len(outbox(host))
    deliver(host, orders_mail(game, orders="move 8Pz 0612 0712\nmove 8Pz 0812\nend\n"))
    [oc] = host.poll()
    assert oc.status == "partial"
    body = text_of(only_answer(host))
    assert "PARTLY APPLIED" in body and "line 2: move 8Pz 0612 0712" in body     # line 1 holds the token
    assert "line 3: 8Pz has already moved this phase (rule 8.1(2))" in body
    assert "Not applied:\n  move 8Pz 0812\n  end" in body
    assert len(outbox(host)) == before + 3                 # the answer, the British report, the referee copy


def test_signed_orders_are_accepted_and_a_changed_order_is_refused(host, game):
    head = reopen(game).head()[1]
    body = M.signed_body(secret(game, "axis"), "g1", "axis", head, "move 8Pz 0612 0712 0812   # north\nend\n")
    deliver(host, message(AXIS, body.replace("\n\n", "\n\n\n  ")))   # a mail program re-spacing lines is fine
    assert [o.status for o in host.poll()] == ["accepted"]
    head = reopen(game).head()[1]
    forged = M.signed_body(secret(game, "axis"), "g1", "axis", head, "attack 0913 with 8Pz\n").replace(
        "attack 0913 with 8Pz", "attack 0813 with 8Pz")
    deliver(host, message(AXIS, forged, mid="m2@example.org"))
    before = log_bytes(game)
    [oc] = host.poll()
    assert oc.status == "quarantined" and "Signature: line does not match" in oc.detail
    assert log_bytes(game) == before
    assert "does not match these orders" in text_of(only_answer(host, "m2@example.org"))


def test_orders_sign_command_output_is_accepted(host, game, tmp_path):
    (tmp_path / "orders.txt").write_text(TURN1)
    (tmp_path / "my-secret").write_text(secret(game, "axis") + "\n")
    head = reopen(game).head()[1]
    r = CliRunner().invoke(main, ["orders", "sign", str(tmp_path / "orders.txt"), "--game", "g1", "--side", "axis",
                                  "--head", head, "--secret-file", str(tmp_path / "my-secret")])
    assert r.exit_code == 0 and "Signature: " in r.output and secret(game, "axis") not in r.output
    deliver(host, message(AXIS, r.output))
    assert [o.status for o in host.poll()] == ["accepted"]
    bad = CliRunner().invoke(main, ["orders", "sign", "-", "--game", "g1", "--side", "axis", "--head", "xyz"],
                             input="end\n", env={"PBEM_SECRET": "abc"})
    assert bad.exit_code == 2 and "--head" in bad.output


def test_signature_only_hosts_refuse_tokens(tmp_path):
    host = make_host(tmp_path / "h")
    cfg = host.cfg.root / "pbem-host.toml"
    cfg.write_text(cfg.read_text().replace('auth = "token-or-signature"', 'auth = "signature"'))
    host = Host.open(host.cfg.root)
    game = new_game(host)
    deliver(host, orders_mail(game))
    [oc] = host.poll()
    assert oc.status == "quarantined" and "signed orders only" in oc.detail


# --- refusals: each one a clear answer, nothing applied -----------------------------------------

def _refusal(host, game, raw, needle, mid="m1@example.org", answered=True):
    before = log_bytes(game)
    deliver(host, raw)
    [oc] = host.poll()
    assert needle in oc.detail, oc.detail
    assert log_bytes(game) == before
    assert M.Maildir(host.inbox_path).messages() == []           # nothing is left lying around ...
    reasons = (host.quarantine_dir / "reasons.jsonl").read_text()
    assert needle in reasons                                     # ... and nothing is lost: it is kept, with why
    got = answers(host, mid)
    if answered:
        assert len(got) == 1
        body = text_of(got[0])
        assert body.startswith("REFUSED: nothing was applied.") and needle.lower() in body.lower()
        assert got[0]["X-pbem-Outcome"] == "refused"
    else:
        assert got == []
    return oc


def test_wrong_secret(host, game):
    _refusal(host, game, orders_mail(game, token="0" * 32), "the Token: line does not match German-Italian's secret")


def test_missing_token(host, game):
    raw = message(AXIS, TURN1)
    _refusal(host, game, raw, "neither a 'Token:' line nor a 'Signature:' line")


def test_spoofed_from_with_a_stolen_token(host, game):
    """The British player knows only their own token: with a forged Side: line
    and their own address the message is refused, and so with a forged From."""
    raw = message(BRITISH, f"Side: axis\nToken: {secret(game, 'british')}\n{TURN1}")
    _refusal(host, game, raw, "is not the address registered for German-Italian")
    raw = message(AXIS, f"Token: {secret(game, 'british')}\n{TURN1}", mid="m2@example.org")
    _refusal(host, game, raw, "does not match German-Italian's secret", mid="m2@example.org")


def test_stranger_is_quarantined_and_never_answered(host, game):
    # no backscatter: a stranger (or a forged From) gets no mail from the host
    _refusal(host, game, message("mallory@evil.example", f"Token: x\n{TURN1}"),
             "mallory@evil.example plays no game 'g1' on this host", answered=False)
    assert answers(host, "m1@example.org") == []


def test_unknown_game(host, game):
    raw = orders_mail(game, subject="[pbem nope] orders")
    _refusal(host, game, raw, "plays no game 'nope' on this host")


def test_a_refusal_never_tells_which_game_ids_exist(host, game, tmp_path):
    # a player of g1 asking about g2 (which exists) gets the same words as about a game that does not
    other = Game.create(game_store(host, "g2"), "el-alamein", {"axis": "x@else.example", "british": "y@else.example"},
                        seed_hex=SEED, game_id="g2")
    host.register(other)
    _refusal(host, game, orders_mail(game, subject="[pbem g2] orders"), "plays no game 'g2' on this host")
    _refusal(host, game, orders_mail(game, subject="[pbem g3] orders", mid="m2@example.org"),
             "plays no game 'g3' on this host", mid="m2@example.org")


def test_no_game_named(host, game):
    _refusal(host, game, orders_mail(game, subject="my orders"), "does not say which game")


def test_malformed_mime(host, game):
    raw = (f"From: {AXIS}\nTo: {HOST_ADDR}\nSubject: [pbem g1] orders\nMessage-ID: <m1@example.org>\n"
           "MIME-Version: 1.0\nContent-Type: multipart/mixed; boundary=\"XYZ\"\n\n"
           f"Token: {secret(game, 'axis')}\nmove 8Pz 0612\n").encode()
    _refusal(host, game, raw, "StartBoundaryNotFoundDefect")


def test_missing_text_part(host, game):
    from email.message import EmailMessage
    msg = EmailMessage()
    msg["From"], msg["To"], msg["Subject"], msg["Message-ID"] = AXIS, HOST_ADDR, "[pbem g1] orders", "<m1@example.org>"
    msg.set_content(b"\x89PNG....", maintype="image", subtype="png", filename="orders.png")
    _refusal(host, game, bytes(msg), "no text part")


def test_oversized_message(host, game):
    raw = orders_mail(game, orders=TURN1 + "# " + "x" * 1_100_000 + "\n")
    oc = _refusal(host, game, raw, "this host accepts at most 1,000,000")
    assert oc.filed == "quarantine"


def test_no_from_address_is_kept_but_cannot_be_answered(host, game):
    raw = b"To: referee@club.example\nSubject: [pbem g1] x\nMessage-ID: <m1@example.org>\n\nend\n"
    _refusal(host, game, raw, "no From address", answered=False)


def test_automatic_mail_is_never_answered(host, game):
    raw = orders_mail(game, extra={"Auto-Submitted": "auto-replied"})
    _refusal(host, game, raw, "Auto-Submitted", answered=False)


def test_pbem_own_mail_coming_back_is_ignored(host, game):
    """The referee copy goes to the host address; if that is the inbox, it comes back."""
    own = next(f for f in sorted(host.outbox_path.glob("*.eml")) if "referee" in f.name)
    before = len(outbox(host))
    deliver(host, own.read_bytes())
    [oc] = host.poll()
    assert oc.status == "ignored" and len(outbox(host)) == before


def test_stale_head_is_refused_with_the_current_head(host, game):
    old = reopen(game).head()[1]
    deliver(host, orders_mail(game, orders="move 8Pz 0612 0712 0812\n", mid="m1@example.org", head=old))
    host.poll()
    now = reopen(game).head()[1]
    before = log_bytes(game)
    deliver(host, orders_mail(game, orders="move 5Pz 0512 0612 0713\n", mid="m2@example.org", head=old[:16]))
    [oc] = host.poll()
    assert oc.status == "refused" and oc.filed == "processed"
    assert log_bytes(game) == before
    body = text_of(only_answer(host, "m2@example.org"))
    assert body.startswith("REFUSED: nothing was applied.") and f"moved on to head {now}" in body


def test_redelivered_message_is_applied_once_and_answered_once(host, game):
    raw = orders_mail(game)
    deliver(host, raw)
    host.poll()
    deliver(host, b"Received: from relay.example by mx.example; Mon, 1 Jan 2026\n" + raw)
    [oc] = host.poll()
    assert oc.status == "duplicate"
    assert order_texts(game) == TURN1.split("\n")[:-1]
    assert len(answers(host, "m1@example.org")) == 1


def test_replayed_message_id_with_other_orders_is_refused(host, game):
    deliver(host, orders_mail(game, orders="move 8Pz 0612 0712 0812\n"))
    host.poll()
    before = log_bytes(game)
    deliver(host, orders_mail(game, orders="move 5Pz 0512 0612 0713\n"))
    [oc] = host.poll()
    assert oc.status == "quarantined" and log_bytes(game) == before
    refusals = [m for m in answers(host, "m1@example.org") if m["X-pbem-Outcome"] == "refused"]
    assert len(refusals) == 1 and "reuses the Message-ID" in text_of(refusals[0])


def test_a_captured_signed_message_replayed_later_is_stale(host, game):
    head = reopen(game).head()[1]
    body = M.signed_body(secret(game, "axis"), "g1", "axis", head, "move 8Pz 0612 0712 0812\n")
    deliver(host, message(AXIS, body, mid="m1@example.org"))
    host.poll()
    before = log_bytes(game)
    deliver(host, message(AXIS, body, mid="copy@evil.example"))   # same text, new Message-ID
    [oc] = host.poll()
    assert oc.status == "refused" and "moved on" in oc.detail and log_bytes(game) == before


def test_message_without_message_id_is_still_applied_once(host, game):
    raw = orders_mail(game, mid="")
    deliver(host, raw)
    deliver(host, raw)
    outcomes = host.poll()
    assert [o.status for o in outcomes] == ["accepted", "duplicate"]


# --- never twice, never lost -------------------------------------------------------------------------

CRASH_POINTS = ["started", "journaled", "applied", "spool-written", "spooled", "recorded", "filed", "sent"]


@pytest.mark.parametrize("point", CRASH_POINTS)
@pytest.mark.parametrize("orders, applied", [
    (TURN1, TURN1.split("\n")[:-1]),
    ("move 8Pz 0612 0712\nmove 8Pz 0812\nend\n", ["move 8Pz 0612 0712"]),     # partly refused
])
def test_a_crash_at_any_point_leaves_the_message_unprocessed_or_fully_processed(tmp_path, monkeypatch, point,
                                                                                 orders, applied, store_kind):
    host = make_host(tmp_path / "h")
    game = new_game(host, dice=[4, 2, 6, 1])
    welcome = len(outbox(host))
    deliver(host, orders_mail(game, orders=orders))
    fired = crash_once(monkeypatch, point)
    with pytest.raises(SimulatedCrash):
        Host.open(host.cfg.root).poll()
    assert fired == [point]
    # the process died; a new one starts and polls again
    again = Host.open(host.cfg.root)
    again.poll()
    again.poll()
    assert order_texts(game) == applied                               # applied exactly once
    got = answers(again, "m1@example.org")
    assert len(got) == 1                                              # answered exactly once
    assert ("PARTLY APPLIED" in text_of(got[0])) == (len(applied) == 1)
    assert "8Pz has already moved" in text_of(got[0]) or len(applied) > 1
    assert len(outbox(again)) == welcome + 3                          # answer, British report, referee copy
    assert M.Maildir(again.inbox_path).messages() == [] and len(again.processed.messages()) == 1
    assert again.pending() == 0 and reopen(game).verify().ok
    if point in ("applied", "spool-written", "spooled") and store_kind == "files":   # the orders were in the log
        assert "recovered job" in (again.cfg.root / "host.log").read_text()      # (the database rolled them back)


def test_a_crash_while_sending_by_smtp_resends_the_same_message_id(tmp_path, monkeypatch):
    """SMTP cannot be exactly once: a crash after the server took a mail and
    before the spool forgot it sends that one mail again, with the same
    Message-ID, so the reader's mail program shows it once."""
    with SmtpCapture() as smtp:
        host = make_host(tmp_path / "h", smtp_port=smtp.port)
        game = new_game(host)
        deliver(host, orders_mail(game))
        crash_once(monkeypatch, "sent")
        with pytest.raises(SimulatedCrash):
            host.poll()
        monkeypatch.setattr(crash, "checkpoint", lambda name: None)
        Host.open(host.cfg.root).poll()
        ids = [str(parse(raw)["Message-ID"]) for _f, _r, raw in smtp.messages]
    assert len(ids) == len(set(ids)) + 1
    assert len(set(ids)) == 3 + 3 and order_texts(game) == TURN1.split("\n")[:-1]


def test_another_writer_between_crash_and_restart(tmp_path, monkeypatch):
    """The host died before applying; meanwhile the referee applied orders by
    hand.  The message named a head, so it is refused as stale, not applied
    to a position its author never saw."""
    host = make_host(tmp_path / "h")
    game = new_game(host)
    deliver(host, orders_mail(game, orders="move 5Pz 0512 0612 0713\n", head=reopen(game).head()[1]))
    crash_once(monkeypatch, "journaled")
    with pytest.raises(SimulatedCrash):
        host.poll()
    monkeypatch.setattr(crash, "checkpoint", lambda name: None)
    assert reopen(game).submit("axis", "move 8Pz 0612 0712 0812").refused is None
    [oc] = Host.open(host.cfg.root).poll()
    assert oc.status == "refused" and "moved on" in oc.detail
    assert order_texts(game) == ["move 8Pz 0612 0712 0812"]


def test_an_internal_error_never_crashes_the_host_and_loses_nothing(host, game, monkeypatch):
    from pbem.report import render
    deliver(host, orders_mail(game, mid="m1@example.org"))
    real = render.report_text

    def broken(*a, **k):
        raise RuntimeError("template exploded")
    monkeypatch.setattr(render, "report_text", broken)
    [oc] = host.poll()
    # the orders were applied, the answers could not be made: the message stays to be finished
    assert oc.status == "error" and oc.filed == "left" and "template exploded" in oc.detail
    assert len(M.Maildir(host.inbox_path).messages()) == 1
    monkeypatch.setattr(render, "report_text", real)
    [oc] = host.poll()
    assert oc.status == "accepted" and order_texts(game) == TURN1.split("\n")[:-1]
    assert len(answers(host, "m1@example.org")) == 1


# --- deadlines ----------------------------------------------------------------------------------

class Clock:
    def __init__(self):
        self.t = parse_time(CLOCK)

    def __call__(self):
        return self.t


def test_deadline_reminder_then_documented_default_then_next_deadline(tmp_path):
    clock = Clock()
    host = make_host(tmp_path / "h", period="72h", reminder="24h", now=clock)
    game = new_game(host, gid="el-alamein-example", seed=SEED)
    start = clock.t
    n0 = len(outbox(host))
    clock.t = start + timedelta(hours=47)
    host.poll()
    assert len(outbox(host)) == n0                                    # not yet
    clock.t = start + timedelta(hours=49)
    host.poll()
    host.poll()
    rem = [m for _n, m in outbox(host) if m["X-pbem-Kind"] == "reminder"]
    assert len(rem) == 1 and rem[0]["To"] == AXIS                      # the late side only, once
    assert "due by 2026-01-04T00:00:00Z" in text_of(rem[0]) and "      end" in text_of(rem[0])
    clock.t = start + timedelta(hours=72)
    host.poll()
    ev = [en.event for en in reopen(game).entries() if en.kind == "OrderGiven"]
    assert [(e.side, e.text, e.by) for e in ev] == [("axis", "end", "deadline")]
    head = reopen(game).head()[1]
    told = [m for _n, m in outbox(host) if m["X-pbem-Kind"] in ("deadline", "referee") and m["X-pbem-Head"] == head]
    assert sorted(str(m["To"]) for m in told) == sorted([AXIS, BRITISH, HOST_ADDR])
    assert all("The deadline for German-Italian's movement passed" in text_of(m) for m in told)
    dl = json.loads(doc(game, "deadline.json"))
    [w] = dl["waits"].values()
    assert w["kind"] == "attack-declarations" and w["due"] == "2026-01-07T00:00:00Z"
    assert reopen(game).verify().ok


def test_a_reminder_says_what_the_game_waits_for_as_the_side_may_read_it(tmp_path, monkeypatch):
    # the reminder is text a side receives: what it waits for passes Ruleset.awaiting_view
    clock = Clock()
    host = make_host(tmp_path / "h", period="72h", reminder="24h", now=clock)
    game = new_game(host, gid="el-alamein-example", seed=SEED)

    def view(self, state, sc, items, viewer):
        return [dict(it, order=f"seen by {viewer}") for it in items]
    monkeypatch.setattr(type(game.rules), "awaiting_view", view)
    clock.t += timedelta(hours=49)
    host.poll()
    [rem] = [m for _n, m in outbox(host) if m["X-pbem-Kind"] == "reminder"]
    assert "write seen by axis" in text_of(rem)


def test_deadline_default_for_a_retreat_takes_the_first_listed_path(tmp_path):
    clock = Clock()
    host = make_host(tmp_path / "h", period="24h", reminder="off", now=clock)
    game = new_game(host, gid="el-alamein-example", seed=SEED)
    deliver(host, orders_mail(game, orders=(EXAMPLE / "01-axis.txt").read_text(),
                              subject="[pbem el-alamein-example] orders"))
    host.poll()
    st = reopen(game).state()
    [item] = game.rules.awaiting(st, game.scenario)
    assert item["kind"] == "retreat"
    clock.t += timedelta(hours=25)
    host.poll()
    last = [en.event for en in reopen(game).entries() if en.kind == "OrderGiven"][-1]
    assert last.by == "deadline" and last.text == f"retreat {item['units'][0]} {item['options'][0]}"


def test_deadline_extend_from_the_command_line(tmp_path, monkeypatch):
    host = make_host(tmp_path / "h", period="72h")
    game = new_game(host)
    r = CliRunner().invoke(main, ["deadline", game_arg(game), "--extend", "24h", "--host", str(host.cfg.root)])
    assert r.exit_code == 0, r.output
    assert "axis: movement due by 2026-01-05T00:00:00Z" in r.output
    notes = [m for _n, m in outbox(host) if m["X-pbem-Kind"] == "notice"]
    assert sorted(str(m["To"]) for m in notes) == sorted([AXIS, BRITISH])
    bad = CliRunner().invoke(main, ["deadline", game_arg(game), "--extend", "soon", "--host", str(host.cfg.root)])
    assert bad.exit_code == 1 and "not a duration" in bad.output


# --- the command line -----------------------------------------------------------------------------

def test_a_hosted_game_is_named_to_the_host_commands_from_any_folder(host, game, tmp_path, monkeypatch):
    """With --host the game may be named by its id (a database host) from any folder:
    the id is looked up on that host, not on the one found from the current folder."""
    arg = game_arg(game)
    monkeypatch.delenv("PBEM_HOST", raising=False)
    monkeypatch.chdir(tmp_path)
    r = CliRunner().invoke(main, ["deadline", arg, "--period", "72h", "--host", str(host.cfg.root)])
    assert r.exit_code == 0 and "axis: movement due by" in r.output, r.output
    r = CliRunner().invoke(main, ["host", "rotate-secret", arg, "british", "--host", str(host.cfg.root)])
    assert r.exit_code == 0 and f"new secret for british mailed to {BRITISH}" in r.output, r.output
    r = CliRunner().invoke(main, ["deadline", "nowhere", "--host", str(host.cfg.root)])
    assert r.exit_code == 1 and "not a pbem game" in r.output, r.output


def test_mail_ingest_files_and_quarantine_listing(host, game, tmp_path):
    good = tmp_path / "good.eml"
    good.write_bytes(orders_mail(game))
    bad = tmp_path / "bad.eml"
    bad.write_bytes(message("mallory@evil.example", "end", mid="evil@x"))
    r = CliRunner().invoke(main, ["mail", "ingest", str(good), str(bad), "--host", str(host.cfg.root)])
    assert r.exit_code == 0, r.output
    assert "good.eml: accepted g1/axis" in r.output and "bad.eml: quarantined g1" in r.output
    assert good.exists() and bad.exists()                          # files given by hand stay where they are
    q = CliRunner().invoke(main, ["mail", "quarantine", "--host", str(host.cfg.root)])
    assert "plays no game 'g1'" in q.output and "not answered" in q.output
    again = CliRunner().invoke(main, ["mail", "ingest", str(good), "--host", str(host.cfg.root)])
    assert "duplicate" in again.output


@pytest.mark.files_only("moves the game's folder away and back")
def test_a_quarantined_message_can_be_retried_by_hand(host, game, tmp_path):
    """The game's folder was away (a disk not mounted, say): the message is
    quarantined as for an unknown game; once the folder is back, the host
    runs `pbem mail ingest` on the quarantined file and it is applied."""
    raw = orders_mail(game)
    away = tmp_path / "away"
    game.dir.rename(away)
    deliver(host, raw)
    [oc] = host.poll()
    assert oc.status == "quarantined" and "no game 'g1'" in oc.detail
    away.rename(game.dir)
    [q] = M.Maildir(host.quarantine_dir).messages()
    r = CliRunner().invoke(main, ["mail", "ingest", str(q), "--host", str(host.cfg.root)])
    assert r.exit_code == 0 and "accepted g1/axis" in r.output
    assert order_texts(game) == TURN1.split("\n")[:-1]
    assert "duplicate" in CliRunner().invoke(main, ["mail", "ingest", str(q), "--host", str(host.cfg.root)]).output


@pytest.mark.parametrize("stop", [signal.SIGTERM, signal.SIGINT])
def test_serve_polls_until_told_to_stop(host, game, stop):
    env = dict(os.environ, PBEM_HOST=str(host.cfg.root), PBEM_CLOCK=CLOCK)
    p = subprocess.Popen([sys.executable, "-m", "pbem", "serve", "--interval", "0.2"], env=env,
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        deliver(host, orders_mail(game))
        deadline = time.monotonic() + 30
        while not answers(host, "m1@example.org") and time.monotonic() < deadline:
            time.sleep(0.1)
        assert answers(host, "m1@example.org")
    finally:
        p.send_signal(stop)
        out, err = p.communicate(timeout=30)
    assert p.returncode == 0, err
    assert "Traceback" not in err and "accepted g1/axis" in err and err.rstrip().endswith("stopped")
    assert "stopped" in (host.cfg.root / "host.log").read_text()


def test_passwords_never_reach_the_log_or_the_output(tmp_path, monkeypatch):
    """The test SMTP server offers no AUTH, so the login fails: the failure is
    logged and the mail waits in the spool, without the password anywhere."""
    with SmtpCapture() as smtp:
        host = make_host(tmp_path / "h", smtp_port=smtp.port)
        cfg = host.cfg.root / "pbem-host.toml"
        cfg.write_text(cfg.read_text().replace('security = "none"', 'security = "none"\nuser = "referee"'))
        monkeypatch.setenv("PBEM_SMTP_PASSWORD", "hunter2-very-secret")
        r = CliRunner().invoke(main, ["host", "add", game_arg(new_game(Host.open(host.cfg.root))),
                                      "--host", str(host.cfg.root)])
        out = CliRunner().invoke(main, ["mail", "poll", "--host", str(host.cfg.root)])
        shown = CliRunner().invoke(main, ["host", "show", "--host", str(host.cfg.root)])
    log = (host.cfg.root / "host.log").read_text()
    assert "delivery failed" in log and Host.open(host.cfg.root).pending() == 3
    assert "password: environment" in shown.output
    for text in (log, r.output, out.output, shown.output, cfg.read_text()):
        assert "hunter2" not in text


@pytest.mark.files_only("refused before any store exists")
def test_clear_text_passwords_to_a_remote_server_are_refused(tmp_path):
    r = CliRunner().invoke(main, ["host", "init", str(tmp_path / "h"), "--address", HOST_ADDR,
                                  "--imap", "imap.club.example:143", "--imap-security", "none"])
    assert r.exit_code == 1 and "unencrypted" in r.output and not (tmp_path / "h").exists()


def test_deadline_refuses_a_game_the_host_does_not_hold(tmp_path):
    make_host(tmp_path / "h")
    Game.create(tmp_path / "other", "el-alamein", game_id="other")
    r = CliRunner().invoke(main, ["deadline", str(tmp_path / "other"), "--host", str(tmp_path / "h")])
    assert r.exit_code == 1 and "not hosted" in r.output


def test_the_host_log_never_holds_order_text(host, game):
    deliver(host, orders_mail(game, orders="secret plan zebra crossing at 0912\nmove 8Pz 0101\n"))
    [oc] = host.poll()
    assert oc.status == "partial"
    log = (host.cfg.root / "host.log").read_text()
    assert "zebra" not in log and "line 3 refused" in log


def test_changes_made_at_the_host_are_mailed_too(host, game):
    """`pbem order` or `pbem reveal` by the host change the game outside the
    mail; the next poll mails every side its report of the change."""
    r = CliRunner().invoke(main, ["order", game_arg(game), "--as", "axis", "-"], input="move 8Pz 0612 0712 0812\n")
    assert r.exit_code == 0
    before = len(outbox(host))
    host.poll()
    new = [m for _n, m in outbox(host)][before:]
    assert sorted(str(m["To"]) for m in new) == sorted([AXIS, BRITISH, HOST_ADDR])
    assert all("8Pz moves" in text_of(m) for m in new)
    host.poll()
    assert len(outbox(host)) == before + 3                       # once


def test_the_seed_reveal_reaches_every_player(tmp_path):
    host = make_host(tmp_path / "h")
    game = new_game(host, seed=SEED)
    assert CliRunner().invoke(main, ["reveal", "--force", game_arg(game)]).exit_code == 0
    host.poll()
    got = [m for _n, m in outbox(host) if m["X-pbem-Kind"] == "report"]
    assert len(got) == 2 and all(SEED in text_of(m) for m in got)


def test_pbem_host_env_names_the_host_for_a_game_anywhere(tmp_path, monkeypatch):
    make_host(tmp_path / "h")
    monkeypatch.setenv("PBEM_HOST", str(tmp_path / "h"))
    r = CliRunner().invoke(main, ["new", str(tmp_path / "elsewhere"), "--scenario", "el-alamein", "--id", "far",
                                  "--player", f"axis={AXIS}"])
    assert r.exit_code == 0 and "welcome mailed to axis" in r.output
    assert "far" in Host.open(tmp_path / "h").games()
    monkeypatch.setenv("PBEM_HOST", str(tmp_path / "nothing"))
    r = CliRunner().invoke(main, ["mail", "poll"])
    assert r.exit_code == 1 and "PBEM_HOST" in r.output and "Traceback" not in r.output


@pytest.mark.files_only("no host store involved")
def test_mail_demo_refuses_a_folder_in_use(tmp_path):
    (tmp_path / "used").mkdir()
    (tmp_path / "used" / "x").write_text("")
    r = CliRunner().invoke(main, ["mail", "demo", str(EXAMPLE), "--into", str(tmp_path / "used")])
    assert r.exit_code == 1 and "not empty" in r.output


# --- rotating a player's secret ---------------------------------------------------------------------

NEWBIE = "montgomery@example.org"


def _rotate(host, game, *args):
    r = CliRunner().invoke(main, ["host", "rotate-secret", game_arg(game), *args, "--host", str(host.cfg.root)])
    return r


def _secret_only_in(host, sec, mails, allowed):
    """``sec`` is in the mails of ``allowed`` (file names) and nowhere else the host writes."""
    for name, m in mails:
        assert (sec in m.as_string()) == (name in allowed), name
    assert sec not in (host.cfg.root / "host.log").read_text()
    for f in host.state_dir.rglob("*"):
        if f.is_file():
            assert sec.encode() not in f.read_bytes(), f


def test_rotate_secret_refuses_the_old_token_and_accepts_the_new(host, game):
    old = secret(game, "axis")
    brit = secret(game, "british")
    before = len(outbox(host))
    r = _rotate(host, game, "axis")
    assert r.exit_code == 0, r.output
    new = secret(game, "axis")
    assert new != old and secret(game, "british") == brit
    assert game.store.mode("player-secrets.json") == 0o600
    assert "new secret for axis mailed to " + AXIS in r.output and new not in r.output
    mails = outbox(host)[before:]
    kinds = sorted((str(m["To"]), str(m["X-pbem-Kind"])) for _n, m in mails)
    assert kinds == sorted([(AXIS, "secret"), (HOST_ADDR, "notice")])      # nothing to the British player
    [(name, mine)] = [(n, m) for n, m in mails if m["To"] == AXIS]
    body = text_of(mine)
    assert new in body and old not in body and "YOUR NEW SECRET" in body and "HOW TO SEND ORDERS" in body
    assert "Report for German-Italian" in body
    assert mine["References"] == "<pbem.g1.welcome.axis@club.example>"
    changes = doc(game, "player-changes.json").decode()
    assert old not in changes and new not in changes
    assert game.store.mode("player-changes.json") == 0o600
    # the old token: refused, saying why
    _refusal(host, game, orders_mail(game, token=old), "holds an old secret of German-Italian")
    assert "replaced it on 2026-01-01T00:00:00Z" in text_of(only_answer(host))
    # orders signed with the old secret: refused, with a hint
    head = reopen(game).head()[1]
    signed = M.signed_body(old, "g1", "axis", head, "move 8Pz 0612 0712 0812\n")
    oc = _refusal(host, game, message(AXIS, signed, mid="m2@example.org"), "Signature: line does not match",
                  mid="m2@example.org")
    assert "replaced German-Italian's secret" in oc.detail
    # the new token: accepted; the other side's report never holds it
    deliver(host, orders_mail(game, token=new, mid="m3@example.org"))
    [oc] = host.poll()
    assert oc.status == "accepted" and order_texts(game) == TURN1.split("\n")[:-1]
    _secret_only_in(host, new, outbox(host), {name})
    assert any(m["To"] == BRITISH and m["X-pbem-Kind"] == "report" for _n, m in outbox(host)[before:])


def test_rotate_secret_to_a_new_player_address(host, game):
    old = secret(game, "axis")
    before = len(outbox(host))
    r = _rotate(host, game, "axis", "--email", f"Monty <{NEWBIE.upper()}>")
    assert r.exit_code == 0, r.output
    assert f"mailed to {NEWBIE}" in r.output and f"{AXIS} was told it no longer plays axis" in r.output
    new = secret(game, "axis")
    mails = outbox(host)[before:]
    assert sorted((str(m["To"]), str(m["X-pbem-Kind"])) for _n, m in mails) == \
        sorted([(NEWBIE, "secret"), (AXIS, "notice"), (HOST_ADDR, "notice")])
    name = next(n for n, m in mails if m["To"] == NEWBIE)
    told = next(m for _n, m in mails if m["To"] == AXIS)
    assert "no longer plays it" in text_of(told) and new not in told.as_string() and old not in told.as_string()
    assert f"registered {NEWBIE} as the player" in text_of(next(m for _n, m in mails if m["To"] == NEWBIE))
    referee = next(m for _n, m in mails if m["To"] == HOST_ADDR)
    assert f"now played from {NEWBIE} instead of {AXIS}" in text_of(referee)
    # the old address is refused, with or without a Side: line, even with the right token
    _refusal(host, game, orders_mail(game, token=new), f"{AXIS} no longer plays German-Italian in game g1")
    _refusal(host, game, message(AXIS, f"Side: axis\nToken: {new}\n{TURN1}", mid="m2@example.org"),
             "no longer plays German-Italian", mid="m2@example.org")
    # the new address with the old token is refused; with the new one it plays
    _refusal(host, game, orders_mail(game, token=old, sender=NEWBIE, mid="m3@example.org"), "an old secret",
             mid="m3@example.org")
    deliver(host, orders_mail(game, token=new, sender=NEWBIE, mid="m4@example.org"))
    [oc] = host.poll()
    assert oc.status == "accepted" and oc.side == "axis"
    assert only_answer(host, "m4@example.org")["To"] == NEWBIE
    # every later mail for the side goes to the new address
    CliRunner().invoke(main, ["deadline", game_arg(game), "--period", "72h", "--host", str(host.cfg.root)])
    r = CliRunner().invoke(main, ["deadline", game_arg(game), "--extend", "24h", "--host", str(host.cfg.root)])
    assert r.exit_code == 0, r.output
    notes = [m for _n, m in outbox(host) if m["X-pbem-Kind"] == "notice" and "extended" in text_of(m)]
    assert notes and sorted({str(m["To"]) for m in notes}) == sorted([NEWBIE, BRITISH])
    _secret_only_in(host, new, outbox(host), {name})


@pytest.mark.parametrize("args, needle", [
    (["axis", "--email", "not-an-address"], "--email 'not-an-address' is not an e-mail address"),
    (["axis", "--email", HOST_ADDR], "is the host's own address"),
    (["nazis"], "game g1 has no side 'nazis'; its sides are axis, british"),
])
def test_rotate_secret_bad_side_or_address_is_one_clear_line(host, game, args, needle):
    sec = doc(game, "player-secrets.json")
    before = len(outbox(host))
    r = _rotate(host, game, *args)
    assert r.exit_code == 1 and needle in r.output and "Traceback" not in r.output
    assert len(r.output.strip().splitlines()) == 1
    assert doc(game, "player-secrets.json") == sec and len(outbox(host)) == before


def test_rotate_secret_bad_game_is_one_clear_line(host, tmp_path):
    root = str(host.cfg.root)
    r = CliRunner().invoke(main, ["host", "rotate-secret", str(tmp_path / "nowhere"), "axis", "--host", root])
    assert r.exit_code == 1 and "is not a pbem game" in r.output and len(r.output.strip().splitlines()) == 1
    Game.create(tmp_path / "other", "el-alamein", {"axis": AXIS}, game_id="other")
    r = CliRunner().invoke(main, ["host", "rotate-secret", str(tmp_path / "other"), "axis", "--host", root])
    assert r.exit_code == 1 and "not hosted" in r.output and len(r.output.strip().splitlines()) == 1
    assert "Traceback" not in r.output


def test_rotate_secret_stopped_half_way_is_simply_run_again(host, game, monkeypatch, store_kind):
    """A crash after the new secret is in force but before its mail is made:
    the old secret is refused already; running the command again makes
    another secret, and the player gets exactly one mail, with the one in force."""
    old = secret(game, "axis")
    before = len(outbox(host))
    crash_once(monkeypatch, "rotated")
    with pytest.raises(SimulatedCrash):
        Host.open(host.cfg.root).rotate_secret(reopen(game), "axis")
    # files: the new secret is in force already; the database rolled the whole rotation back
    assert (secret(game, "axis") != old) == (store_kind == "files")
    assert len(outbox(host)) == before and host.pending() == 0
    monkeypatch.setattr(crash, "checkpoint", lambda name: None)
    assert _rotate(host, game, "axis").exit_code == 0
    mine = [m for _n, m in outbox(host)[before:] if m["To"] == AXIS]
    assert len(mine) == 1 and secret(game, "axis") in text_of(mine[0])
