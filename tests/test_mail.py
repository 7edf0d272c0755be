"""pbem/mail.py: reading what players send, writing what the host sends, and
the transports (Maildir, outbox, SMTP on loopback, IMAP on loopback)."""
from __future__ import annotations

import json

import pytest

from mail_helpers import (AXIS, CLOCK, HOST_ADDR, ImapServer, SmtpCapture, answers, make_host, message,
                          new_game, parse, secret, text_of)
from pbem.host import mail as M
from pbem.host import Host


@pytest.fixture(autouse=True)
def fixed_clock(monkeypatch):
    monkeypatch.setenv("PBEM_CLOCK", CLOCK)
    monkeypatch.delenv("PBEM_HOST", raising=False)
    monkeypatch.delenv("PBEM_IMAP_PASSWORD", raising=False)


# --- reading ----------------------------------------------------------------------------

def test_parse_finds_game_side_head_token_and_orders():
    raw = message("Erwin <Rommel@Example.org>", "Side: axis\nHead: abcdef123456\nToken: T0K\n\nmove 8Pz 0612\nend\n",
                  subject="Re: Re: [pbem g-7.b] turn 1", extra={"In-Reply-To": "<x@y>", "References": "<a@b> <x@y>"})
    inc = M.parse(raw)
    assert inc.sender == "rommel@example.org" and inc.message_id == "m1@example.org" and inc.key == "m1@example.org"
    assert inc.game == "g-7.b" and inc.fields == {"side": "axis", "head": "abcdef123456", "token": "T0K"}
    assert inc.orders.split("\n")[4:6] == ["move 8Pz 0612", "end"]       # line numbers kept: line 5 is line 5
    assert inc.in_reply_to == "x@y" and inc.references == ["<a@b>", "<x@y>"]
    assert not inc.problem and not inc.automatic


def test_reply_quotes_attribution_and_signature_are_dropped():
    text = ("move 8Pz 0612\n\nOn Mon, 1 Jan 2026 at 10:00, pbem referee\n<referee@club.example> wrote:\n"
            "> move 5Pz 0512\n>> end\n")
    assert M.strip_reply(text).strip() == "move 8Pz 0612"
    assert M.strip_reply("end\n-- \nErwin Rommel\nmove 5Pz 0512\n") == "end"
    assert M.strip_reply("end\n\n-----Original Message-----\nmove 1 2\n") == "end"
    assert M.strip_reply("end\nFrom: referee@club.example\nSent: Monday\nTo: me\nmove 1\n") == "end"
    assert M.strip_reply("end\nSent from my phone\n") == "end"


def test_html_is_turned_into_text_without_the_quoted_part():
    html = ("<html><head><style>p {color: red}</style></head><body><p>Token:&nbsp;abc</p>"
            "<div>move 8Pz 0612 <b>0712</b></div><br><div>end</div>"
            "<blockquote type='cite'>move 5Pz 0512</blockquote>"
            "<div class='gmail_quote'><div>On Monday X wrote:</div><div>attack 1 with 2</div></div></body></html>")
    text = M.html_to_text(html)
    lines = [ln for ln in text.splitlines() if ln]
    assert lines == ["Token: abc", "move 8Pz 0612 0712", "end"]
    inc = M.parse(message(AXIS, None, html=html))
    assert inc.fields["token"] == "abc" and "move 8Pz 0612 0712" in inc.orders


def test_plain_part_is_preferred_over_html():
    inc = M.parse(message(AXIS, "end\n", html="<p>move 8Pz 0612</p>"))
    assert inc.orders.strip() == "end"


def test_format_flowed_lines_are_joined():
    raw = (b"From: a@x.org\nSubject: [pbem g] o\nContent-Type: text/plain; charset=utf-8; format=flowed\n\n"
           b"attack 0911 with 104 115 retreat 0811 \n0810 ar 104 0711\nend\n")
    inc = M.parse(raw)
    assert inc.orders.splitlines()[:2] == ["attack 0911 with 104 115 retreat 0811 0810 ar 104 0711", "end"]
    assert M.unflow("abc \ndef", delsp=True) == "abcdef"


def test_unknown_charset_and_broken_base64_are_read_as_far_as_possible():
    raw = (b"From: a@x.org\nSubject: [pbem g] o\nContent-Type: text/plain; charset=klingon\n"
           b"Content-Transfer-Encoding: base64\n\nbW92ZSA4UHogMDYxMg==!!\n")
    inc = M.parse(raw)
    assert not inc.problem and inc.orders.strip() == "move 8Pz 0612"


@pytest.mark.parametrize("raw, problem", [
    (b"From: a@x.org\nContent-Type: multipart/mixed; boundary=\"B\"\n\nno parts here\n", "StartBoundaryNotFoundDefect"),
    (b"From: a@x.org\nContent-Type: image/png\n\n\x89PNG\n", "no text part"),
])
def test_unreadable_bodies_name_the_problem(raw, problem):
    assert problem in M.parse(raw).problem


def test_oversized_messages_are_read_for_their_headers_only():
    raw = message(AXIS, "end\n" + "#" * 5000)
    inc = M.parse(raw, max_bytes=1000)
    assert "at most 1,000" in inc.problem and inc.sender == AXIS and inc.orders == ""


@pytest.mark.parametrize("extra, why", [
    ({"Auto-Submitted": "auto-replied"}, "Auto-Submitted"),
    ({"Precedence": "bulk"}, "bulk"),
    ({"X-Failed-Recipients": "x@y"}, "bounce"),
])
def test_machine_mail_is_recognised(extra, why):
    assert why in M.parse(message(AXIS, "end", extra=extra)).automatic
    assert "mail system" in M.parse(message("MAILER-DAEMON@x.org", "end")).automatic
    assert M.parse(message(AXIS, "end", extra={"Auto-Submitted": "no"})).automatic == ""


def test_garbage_never_raises():
    for raw in (b"", b"\x00\xff" * 100, b"From: <<<>>>\nSubject: =?bad?=\n\n", b"Content-Type: multipart/x\n\n--"):
        inc = M.parse(raw)
        assert inc.key                                  # something to record it by


# --- signatures -------------------------------------------------------------------------

def test_signature_survives_re_spacing_and_comments_but_not_a_changed_order():
    orders = "move 8Pz 0612 0712   # north\n\nend\n"
    sig = M.signature("s3cret", "g1", "axis", "ABCDEF123456", orders)
    assert sig == M.signature("s3cret", "g1", "axis", "abcdef123456", "  move  8Pz 0612 0712\nend  # done\n")
    assert sig != M.signature("s3cret", "g1", "axis", "abcdef123456", "move 8Pz 0612 0713\nend\n")
    assert sig != M.signature("s3cret", "g1", "british", "abcdef123456", orders)
    assert sig != M.signature("s3cret", "g2", "axis", "abcdef123456", orders)
    assert sig != M.signature("other", "g1", "axis", "abcdef123456", orders)
    body = M.signed_body("s3cret", "g1", "axis", "abcdef123456", orders)
    inc = M.parse(message(AXIS, body))
    assert inc.fields["signature"] == sig and "s3cret" not in body


# --- writing and transports -------------------------------------------------------------------

def test_built_messages_thread_and_ask_for_no_auto_replies():
    msg = M.build(HOST_ADDR, AXIS, "Re: [pbem g1] orders " + "x" * 100, "body\n", message_id="a.1@club.example",
                  in_reply_to="m1@example.org", references=["<w@club.example>"],
                  attachments=[M.Attachment(b"<svg/>", "image", "svg+xml", "map.svg")])
    raw = bytes(msg)
    back = parse(raw)
    assert back["In-Reply-To"] == "<m1@example.org>" and back["References"] == "<w@club.example> <m1@example.org>"
    assert back["Auto-Submitted"] == "auto-generated" and back["Message-ID"] == "<a.1@club.example>"
    assert b"\nSubject: Re: [pbem g1] orders xxx" in raw          # a long subject is not folded onto a new line
    assert [p.get_filename() for p in back.iter_attachments()] == ["map.svg"]


def test_maildir_delivery_listing_and_filing(tmp_path):
    box, done = M.Maildir(tmp_path / "in"), M.Maildir(tmp_path / "done")
    a = box.deliver(b"one")
    b = box.deliver(b"two")
    assert box.messages() == [a, b] and list((tmp_path / "in" / "tmp").iterdir()) == []
    moved = done.file_here(a)
    assert not a.exists() and moved.read_bytes() == b"one" and moved.name.endswith(":2,S")
    again = done.file_here(box.deliver(b"one"))                  # same base name twice never overwrites
    assert again != moved and len(done.messages()) == 2
    with pytest.raises(M.MailError, match="not a Maildir"):
        M.Maildir(tmp_path / "nothing", create=False)


def test_outbox_writes_each_name_once(tmp_path):
    out = M.Outbox(tmp_path / "out")
    out.send("a", b"x")
    out.send("a", b"x")
    assert [p.name for p in (tmp_path / "out").iterdir()] == ["a.eml"]


def test_smtp_sender_delivers_with_crlf_to_every_recipient(tmp_path):
    msg = M.build(HOST_ADDR, AXIS, "s", "line one\nline two\n", message_id="x@y")
    with SmtpCapture() as smtp:
        with M.SmtpSender("127.0.0.1", smtp.port, security="none", envelope_from=HOST_ADDR) as s:
            assert s.send("n", bytes(msg)) == AXIS
        [(mail_from, rcpt, raw)] = smtp.messages
    assert mail_from == HOST_ADDR and rcpt == [AXIS] and b"line one\r\nline two\r\n" in raw


def test_smtp_down_keeps_the_mail_in_the_spool(tmp_path):
    with SmtpCapture() as smtp:
        port = smtp.port
    host = make_host(tmp_path / "h", smtp_port=port)              # nobody listens there any more
    game = new_game(host)
    assert host.pending() == 3 and "delivery failed" in (host.cfg.root / "host.log").read_text()
    with SmtpCapture() as smtp:
        cfg = host.cfg.root / "pbem-host.toml"
        cfg.write_text(cfg.read_text().replace(f"port = {port}", f"port = {smtp.port}"))
        Host.open(host.cfg.root).flush()
        assert len(smtp.messages) == 3
    assert Host.open(host.cfg.root).pending() == 0 and game.game_id == "g1"


# --- IMAP ----------------------------------------------------------------------------------------

def _imap_host(tmp_path, imap: ImapServer) -> Host:
    host = make_host(tmp_path / "h")
    cfg = host.cfg.root / "pbem-host.toml"
    text = cfg.read_text().replace('kind = "maildir"\nmaildir = "inbox"',
                                   f'kind = "imap"\nserver = "127.0.0.1"\nport = {imap.port}\nsecurity = "none"\n'
                                   f'user = "{HOST_ADDR}"')
    cfg.write_text(text)
    (host.cfg.root / "credentials.toml").write_text('[imap]\npassword = "pw"\n')
    (host.cfg.root / "credentials.toml").chmod(0o600)
    return Host.open(host.cfg.root)


@pytest.mark.parametrize("move", [True, False])
def test_imap_inbox_messages_are_processed_and_moved(tmp_path, move):
    with ImapServer(move=move) as imap:
        host = _imap_host(tmp_path, imap)
        game = new_game(host)
        imap.append(message(AXIS, f"Token: {secret(game, 'axis')}\nmove 8Pz 0612 0712 0812\n"))
        imap.append(message("stranger@else.example", "end\n", mid="s@else.example"))
        outcomes = host.poll()
        assert [o.status for o in outcomes] == ["accepted", "quarantined"]
        assert imap.raws("INBOX") == []
        assert len(imap.raws("pbem-processed")) == 1 and len(imap.raws("pbem-quarantine")) == 1
        assert len(answers(host, "m1@example.org")) == 1
        # a local copy of the quarantined message keeps the reason
        reasons = [json.loads(x) for x in (host.quarantine_dir / "reasons.jsonl").read_text().splitlines()]
        assert "plays no game" in reasons[0]["reason"]


def test_imap_wrong_password_is_logged_not_raised(tmp_path):
    with ImapServer(password="other") as imap:
        host = _imap_host(tmp_path, imap)
        assert host.poll() == []
    assert "IMAP 127.0.0.1" in (host.cfg.root / "host.log").read_text()


def test_reply_text_is_readable(tmp_path):
    host = make_host(tmp_path / "h")
    game = new_game(host)
    M.Maildir(host.inbox_path).deliver(message(AXIS, f"Token: {secret(game, 'axis')}\nmove 8Pz 0612 0712\n"))
    host.poll()
    [ans] = answers(host, "m1@example.org")
    body = text_of(ans)
    assert body.splitlines()[0] == "ACCEPTED: all 1 order(s) applied."
    assert "HOW TO SEND ORDERS" in body


def test_a_refused_recipient_is_set_aside_and_the_rest_goes(tmp_path):
    with SmtpCapture(refuse=("auchinleck@example.org",)) as smtp:
        host = make_host(tmp_path / "h", smtp_port=smtp.port)
        new_game(host)
        delivered = sorted(r[0] for _f, r, _raw in smtp.messages)
    assert delivered == sorted([AXIS, HOST_ADDR])
    assert host.pending() == 0 and len(list(host.spool_failed.glob("*.eml"))) == 1
    assert "cannot be delivered" in (host.cfg.root / "host.log").read_text()
