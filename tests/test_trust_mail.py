"""A game played by mail with every order signed by the players' own SSH keys (made
here with ssh-keygen), keys registered by KEY mails, the host's receipts checked."""
from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner

from mail_helpers import (AXIS, BRITISH, answers, deliver, folder_of, game_store, make_host, message, outbox, reopen,
                          secret, text_of)
from pbem.cli import main
from pbem.engine import Game
from pbem.trust import sshsig
from test_trust_dice import players_copy, rechain
from test_trust_signatures import SSH_KEYGEN, keygen, ssh_sign

CLOCK = "2024-01-01T00:00:00Z"
pytestmark = [pytest.mark.skipif(SSH_KEYGEN is None, reason="ssh-keygen (OpenSSH) is not installed"),
              pytest.mark.usefixtures("store_kind")]      # every test on files and on PostgreSQL (conftest)


@pytest.fixture(autouse=True)
def _env(monkeypatch):
    monkeypatch.setenv("PBEM_CLOCK", CLOCK)
    monkeypatch.delenv("PBEM_HOST", raising=False)


def answer_of(host, mid: str) -> str:
    got = answers(host, mid)
    assert got, f"no answer to {mid}"
    return text_of(got[-1])


def signed_mail(game, side: str, key: Path, orders: str, folder: Path, mid: str, sender: str) -> bytes:
    text = f"Game: {game.game_id}\nSide: {side}\nHead: {game.head()[1]}\n\n{orders}"
    f = folder / f"{mid}.txt"
    f.write_text(text)
    return message(sender, text + ssh_sign(key, f), mid=mid)


def test_a_game_by_mail_with_every_order_signed_by_the_players_ssh_keys(tmp_path):
    host = make_host(tmp_path / "host")
    g = Game.create(game_store(host, "g1"), "el-alamein", {"axis": AXIS, "british": BRITISH}, seed_hex="11" * 32,
                    game_id="g1", at=CLOCK, dice_scheme=2, require_signatures=True)
    host.welcome(g)
    welcome = text_of(next(m for _n, m in outbox(host) if m["X-pbem-Kind"] == "welcome"))
    assert "When a turn is over the host reveals that turn's seed" in welcome and "At the end the host" not in welcome
    assert "\nSIGNATURES, RECEIPTS\n  The host signs every answer's receipt" in welcome      # the heading on its own line
    keys = {"axis": keygen(tmp_path, "axis"), "british": keygen(tmp_path, "british", "rsa", 2048)}
    addr = {"axis": AXIS, "british": BRITISH}
    # KEY: asked with the token, confirmed by a reply from the same address
    for side in ("axis", "british"):
        pub = Path(str(keys[side]) + ".pub").read_text().strip()
        deliver(host, message(addr[side], f"Token: {secret(g, side)}\nKEY {pub}\n", mid=f"key-{side}@x"))
        host.poll()
        code = re.search(r"KEY CONFIRM ([0-9a-f]{16})", answer_of(host, f"key-{side}@x"))[1]
        deliver(host, message(addr[side], f"Token: {secret(g, side)}\nKEY CONFIRM {'0' * 16}\n", mid=f"bad-{side}@x"))
        host.poll()
        assert "No key waits for that code" in answer_of(host, f"bad-{side}@x")
        deliver(host, message(addr[side], f"Token: {secret(g, side)}\nKEY CONFIRM {code}\n", mid=f"ok-{side}@x"))
        host.poll()
        assert "Registered" in answer_of(host, f"ok-{side}@x")
    assert set(reopen(g).state().keys) == {"axis", "british"}
    # an unsigned order is refused in this game
    deliver(host, message(AXIS, f"Token: {secret(g, 'axis')}\nend\n", mid="unsigned@x"))
    host.poll()
    assert "requires every order to be signed" in answer_of(host, "unsigned@x")
    # the whole game: each side's two phases of a turn by one signed mail; an answer holds the host's receipt
    host_pub = (host.cfg.root / "host-key.pub").read_text()
    n = 0
    while (st := reopen(g).state()).result is None:
        [side] = {w["side"] for w in g.rules.awaiting(st, g.scenario)}
        n += 1
        mid = f"orders{n}@x"
        deliver(host, signed_mail(reopen(g), side, keys[side], "end\nend  # no attacks\n", tmp_path, mid, addr[side]))
        host.poll()
        body = answer_of(host, mid)
        assert "RECEIPT" in body, body
        rfile = tmp_path / f"{mid}.receipt"
        rfile.write_text(body)
        r = CliRunner().invoke(main, ["receipt", "check", str(rfile), "--host-key", host_pub, "--game",
                                      str(folder_of(g, tmp_path / f"copy-{n}"))])          # the player's copy
        assert r.exit_code == 0, r.output
    game = reopen(g)
    given = [en.event for en in game.entries() if type(en.event).__name__ == "OrderGiven"]
    assert n == 2 * game.scenario.turns and len(given) == 4 * game.scenario.turns     # played to its end
    assert all(ev.signature or ev.signed_in for ev in given)
    rep = game.verify()
    assert rep.ok, rep.problems
    assert any(f"order signatures: {len(given)} signed" in x for x in rep.notes), rep.notes
    assert game.state().chain.revealed >= game.scenario.turns - 1     # the turns are over: their dice are out
    # every report's head is signed too: the British player's last report checks against the game,
    # and against a copy rewritten afterwards it does not
    reports = [m for _n, m in outbox(host) if m["To"] == BRITISH and "SIGNED HEAD" in text_of(m)]
    reports = [m for m in reports if m["X-pbem-Kind"] == "report"]             # reports, not answers
    assert reports
    last = text_of(reports[-1])
    head = re.search(r"Log head ([0-9a-f]{64}) \(seq (\d+)\)", last)
    (tmp_path / "report.txt").write_text(last)
    args = ["receipt", "check", str(tmp_path / "report.txt"), "--host-key", host_pub]
    r = CliRunner().invoke(main, args + ["--game", str(folder_of(g, tmp_path / "copy-last"))])
    assert r.exit_code == 0, r.output
    assert f"seq {head[2]}, head {head[1]}" in r.output and f"holds that head at seq {head[2]}" in r.output
    copy = players_copy(Game(folder_of(game, tmp_path / "copy-r")), tmp_path / "rewritten")
    rechain(copy.dir, lambda n, rec: rec.update(at="2030-01-01T00:00:00Z") if n == int(head[2]) else None)
    r = CliRunner().invoke(main, args + ["--game", str(copy.dir)])
    assert r.exit_code == 1 and "the log was changed after the host accepted it" in r.output


def test_a_signed_mail_by_another_key_or_changed_on_the_way_is_refused(tmp_path):
    host = make_host(tmp_path / "host")
    axis_key, other = keygen(tmp_path, "axis"), keygen(tmp_path, "other")
    g = Game.create(game_store(host, "g1"), "el-alamein", {"axis": AXIS, "british": BRITISH}, seed_hex="11" * 32,
                    game_id="g1", at=CLOCK, dice_scheme=2,
                    keys={"axis": Path(str(axis_key) + ".pub").read_text()})
    host.welcome(g)
    deliver(host, signed_mail(g, "axis", other, "end\n", tmp_path, "m1@x", AXIS))
    host.poll()
    assert "signed by another key" in answer_of(host, "m1@x")
    raw = signed_mail(g, "axis", axis_key, "end\n", tmp_path, "m2@x", AXIS).replace(b"\nend\n", b"\nend\nend\n", 1)
    deliver(host, raw)
    host.poll()
    assert "the text or the signature was changed" in answer_of(host, "m2@x")
    before = reopen(g).head()[0]
    assert before == 1                                           # nothing applied: GameCreated, PhaseStarted
    # the same, signed rightly: applied, without a token
    deliver(host, signed_mail(g, "axis", axis_key, "end\n", tmp_path, "m3@x", AXIS))
    host.poll()
    assert "RECEIPT" in answer_of(host, "m3@x") and reopen(g).head()[0] > before


def test_the_contribution_exchange_by_mail_with_a_player_who_never_answers(tmp_path):
    """Issue 31: each side may commit to a contribution to the dice by mail (`pbem dice
    contribute` makes the line), then reveal it; a side that never answers contributes
    nothing when the host's deadline passes, and the game goes on."""
    from datetime import datetime, timedelta, timezone
    from pbem.core import chain as C
    from pbem.host import Host
    start = datetime(2024, 1, 1, tzinfo=timezone.utc)
    clock = [start]
    make_host(tmp_path / "host", period="72h")
    host = Host.open(tmp_path / "host", now=lambda: clock[0])
    g = Game.create(game_store(host, "g1"), "el-alamein", {"axis": AXIS, "british": BRITISH},
                    seed_hex="11" * 32, game_id="g1", at=CLOCK, dice_scheme=2, contributions=True)
    host.welcome(g)
    waits = g.rules.awaiting(g.state(), g.scenario)
    assert {(w["side"], w["kind"]) for w in waits} == {("axis", "dice contribution"), ("british", "dice contribution")}
    run = CliRunner().invoke
    commit = run(main, ["dice", "contribute", str(tmp_path / "mine")])
    assert commit.exit_code == 0 and commit.output.startswith("entropy commit ")
    deliver(host, message(AXIS, f"Token: {secret(g, 'axis')}\n{commit.output}", mid="c1@x"))
    host.poll()
    assert "applied" in answer_of(host, "c1@x").lower()
    assert reopen(g).state().chain.entropy == "commit"            # the British have not answered
    clock[0] = start + timedelta(hours=73)                           # their deadline passes
    host.poll()
    nothing = [en.event for en in reopen(g).entries() if type(en.event).__name__ == "OrderGiven"][-1]
    assert (nothing.side, nothing.text, nothing.by) == ("british", "entropy none", "deadline")
    assert reopen(g).state().chain.entropy == "reveal"
    reveal = run(main, ["dice", "reveal", str(tmp_path / "mine")])
    deliver(host, message(AXIS, f"Token: {secret(g, 'axis')}\n{reveal.output}", mid="r1@x"))
    host.poll()
    st = reopen(g).state()
    value = (tmp_path / "mine").read_text().strip()
    assert st.chain.entropy == "" and st.chain.digest == C.digest({"axis": value}) != C.digest({})
    assert [w["kind"] for w in g.rules.awaiting(st, g.scenario)] == ["movement"]    # the game goes on
    rep = players_copy(Game(folder_of(g, tmp_path / "export")), tmp_path / "copy").verify()
    assert rep.ok, rep.problems


def test_a_key_by_mail_is_refused_once_the_game_has_begun(tmp_path):
    host = make_host(tmp_path / "host")
    g = Game.create(game_store(host, "g1"), "el-alamein", {"axis": AXIS, "british": BRITISH}, seed_hex="11" * 32,
                    game_id="g1", at=CLOCK, dice_scheme=2)
    host.welcome(g)
    pub = Path(str(keygen(tmp_path, "axis")) + ".pub").read_text().strip()
    deliver(host, message(AXIS, f"Token: {secret(g, 'axis')}\nKEY {pub}\n", mid="k1@x"))
    host.poll()
    code = re.search(r"KEY CONFIRM ([0-9a-f]{16})", answer_of(host, "k1@x"))[1]
    deliver(host, message(AXIS, f"Token: {secret(g, 'axis')}\nend\n", mid="o1@x"))        # the first order
    host.poll()
    deliver(host, message(AXIS, f"Token: {secret(g, 'axis')}\nKEY CONFIRM {code}\n", mid="k2@x"))
    host.poll()
    assert "the game has begun" in answer_of(host, "k2@x").lower()
    deliver(host, message(AXIS, f"Token: {secret(g, 'axis')}\nKEY {pub}\n", mid="k3@x"))
    host.poll()
    assert "The game has begun" in answer_of(host, "k3@x")
    assert reopen(g).state().keys == {}
