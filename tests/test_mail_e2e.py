"""The whole El Alamein example game played only by e-mail (issue 3, items 8
and 9): two scripted players read the host's mail and answer it; the host
reads a real Maildir and sends through a real SMTP server on loopback."""
from __future__ import annotations

import re

import pytest

from mail_helpers import (AXIS, BRITISH, CLOCK, EXAMPLE, HOST_ADDR, SEED, SmtpCapture, game_store, log_bytes,
                          make_host, parse, reopen, text_of)
from pbem.host import mail as M
from pbem.engine import Game
from pbem.host.mailplay import Player, Table, play_steps

pytestmark = pytest.mark.usefixtures("store_kind")         # every test on files and on PostgreSQL (conftest)


@pytest.fixture(autouse=True)
def fixed_clock(monkeypatch):
    monkeypatch.setenv("PBEM_CLOCK", CLOCK)
    monkeypatch.delenv("PBEM_HOST", raising=False)


def play_directly(into) -> Game:
    """The reference: the playbook's steps given straight to the engine, as `pbem play` does."""
    import tomllib
    book = tomllib.loads((EXAMPLE / "playbook.toml").read_text())
    g = Game.create(into, book["scenario"], book["players"], seed_hex=book["seed"], game_id=book["id"])
    for step in book["steps"]:
        sub = g.submit(step.split("-")[1].split(".")[0], (EXAMPLE / step).read_text())
        assert sub.refused is None, (step, sub.refused)
    return g


def test_example_game_by_mail_through_smtp_equals_pbem_play(tmp_path, store_kind):
    # the reference: the same playbook applied directly
    direct = tmp_path / "direct"
    play_directly(direct)
    # the PNG maps (two thirds of this test's time) are drawn alike on either store: files only
    png = store_kind == "files"

    with SmtpCapture() as smtp:
        host = make_host(tmp_path / "host", smtp_port=smtp.port, map_png=png)
        game = Game.create(game_store(host, "el-alamein-example"), "el-alamein",
                           {"axis": AXIS, "british": BRITISH}, seed_hex=SEED, game_id="el-alamein-example")
        host.welcome(game)
        inbox = M.Maildir(host.inbox_path)
        table = Table("el-alamein-example", HOST_ADDR,
                      [Player("axis", AXIS, sign=True), Player("british", BRITISH, sign=False)],
                      smtp.mailbox, inbox.deliver, host.poll)
        steps = play_steps(EXAMPLE, table, ["axis", "british"], echo=lambda s: None)
        assert steps == 24
        sent = list(smtp.messages)

    # the same game, event for event and byte for byte
    game = reopen(game)
    st = game.state()
    assert st.result is not None and st.result.winner == "british" and st.turn == 4
    assert log_bytes(game) == (direct / "log.jsonl").read_bytes()
    assert game.verify().ok
    # every message went out through SMTP: nothing was left in the spool, nothing in the inbox
    assert host.pending() == 0 and M.Maildir(host.inbox_path).messages() == []
    assert len(M.Maildir(host.cfg.root / "mail" / "processed").messages()) == 24

    by_kind: dict[str, list] = {}
    for mail_from, rcpt, raw in sent:
        assert mail_from == HOST_ADDR and len(rcpt) == 1
        assert b"\r\n" in raw                                       # SMTP line endings
        msg = parse(raw)
        by_kind.setdefault(str(msg["X-pbem-Kind"]), []).append(msg)
    # one welcome per player, one answer per order mail, a report to the other side and the referee each time
    assert len(by_kind["welcome"]) == 2 and len(by_kind["answer"]) == 24
    assert len(by_kind["report"]) == 24 and len(by_kind["referee"]) == 25
    for msg in by_kind["answer"]:
        assert msg["X-pbem-Outcome"] == "accepted"
        assert msg["In-Reply-To"] and msg["In-Reply-To"] in str(msg["References"])
        assert str(msg["Subject"]).startswith("ACCEPTED: Re: ") and "[pbem el-alamein-example]" in str(msg["Subject"])
    for msg in by_kind["report"] + by_kind["welcome"] + by_kind["answer"]:
        kinds = [p.get_content_type() for p in msg.iter_attachments()]
        # the SVG goes only with the game-over report (host config map_svg = "final")
        over = int(msg["X-pbem-Seq"]) == st.seq             # mailed at the final state, the game over
        want = (["image/png"] if png else []) + (["image/svg+xml"] if over else [])
        assert kinds == want, (kinds, str(msg["Subject"]))
        if png:
            assert next(msg.iter_attachments()).get_content()[:8] == b"\x89PNG\r\n\x1a\n"
    # reports to a side thread under that side's welcome
    for msg in by_kind["report"]:
        side = str(msg["X-pbem-Side"])
        assert f"<pbem.el-alamein-example.welcome.{side}@club.example>" in str(msg["References"])
    # the last answer tells the British player they won
    last = by_kind["answer"][-1]
    assert "British Commonwealth wins" in text_of(last)
    # nobody's secret went to anyone but its owner's welcome
    secrets = {s: table.players[s].secret for s in ("axis", "british")}
    for mail_from, rcpt, raw in sent:
        msg = parse(raw)
        for side, sec in secrets.items():
            if sec.encode() in raw:
                assert msg["X-pbem-Kind"] == "welcome" and msg["X-pbem-Side"] == side


SECRETS = {
    "british": [("05-british.txt", "secret minefield mines laid in 1110 1111 1210"),
                ("18-british.txt", "secret reserve 22Arm waits behind Alam Halfa")],
    "axis": [("01-axis.txt", "secret dummy the Italian column near 0409 is a decoy"),
             ("14-axis.txt", "secret fuel only two days of fuel left")],
}


def _rolls_of(log_dir) -> list[int]:
    g = Game(log_dir)
    return [r for en in g.entries() for r in getattr(en.event, "rolls", [])]


def test_secrets_by_mail_never_reach_the_other_side(tmp_path):
    """Item 8: secret orders ride along in the players' own messages through a
    whole game; every message to the other side is searched for each secret,
    which reaches only its own side (and the referee) until it is unveiled."""
    # scripted dice = the example's rolls, so the extra events (the secrets) do not change the game
    rolls = _rolls_of(play_directly(tmp_path / "direct").dir)
    host = make_host(tmp_path / "host")
    game = Game.create(game_store(host, "g1"), "el-alamein", {"axis": AXIS, "british": BRITISH},
                       dice=rolls, game_id="g1")
    host.welcome(game)
    inbox = M.Maildir(host.inbox_path)

    to_of: dict[str, list[str]] = {}

    def mailbox(address):
        out = []
        for f in sorted(host.outbox_path.glob("*.eml")):
            if f.name not in to_of:
                to_of[f.name] = M.recipients(f.read_bytes())
            if address in to_of[f.name]:
                out.append((f.name, f.read_bytes()))
        return out

    table = Table("g1", HOST_ADDR, [Player("axis", AXIS, sign=False), Player("british", BRITISH, sign=True)],
                  mailbox, inbox.deliver, host.poll)
    extra = {step: line for side in SECRETS for step, line in SECRETS[side]}
    import tomllib
    book = tomllib.loads((EXAMPLE / "playbook.toml").read_text())
    for step in book["steps"]:
        side = step.split("-")[1].split(".")[0]
        text = (EXAMPLE / step).read_text()
        if step in extra:
            text = extra[step] + "\n" + text
        answer = table.send(side, text)
        assert answer["X-pbem-Outcome"] == "accepted", text_of(answer)
    # the British unveil one secret at the end: from then on it is public
    answer = table.send("british", "unveil minefield")
    assert answer["X-pbem-Outcome"] == "accepted"
    game = reopen(game)
    assert game.state().result.winner == "british" and game.verify().ok

    payloads = {side: [line.split(None, 2)[2] for _s, line in SECRETS[side]] for side in SECRETS}
    other = {"axis": "british", "british": "axis"}
    everything = outbox(host)
    blobs = [(name, str(msg["X-pbem-Side"]), msg.as_bytes().decode("utf-8", "replace")) for name, msg in everything]
    for side, texts in payloads.items():
        for payload in texts:
            unveiled = payload.startswith("mines laid")
            owner_saw = False
            for name, to_side, blob in blobs:
                if to_side == other[side] and payload in blob:
                    # only an unveiled secret may reach the other side, and only after its unveiling
                    assert unveiled and "revealed the secret minefield" in blob, (name, payload)
                if to_side == side and payload in blob:
                    owner_saw = True
            assert owner_saw, payload
    # the other side saw each sealed secret as a commitment (a fingerprint)
    axis_text = "\n".join(text_of(m) for _n, m in everything if str(m["X-pbem-Side"]) == "axis")
    assert axis_text.count("recorded a secret (reserve)") == 1


def outbox(host):
    return [(f.name, parse(f.read_bytes())) for f in sorted(host.outbox_path.glob("*.eml"))]
