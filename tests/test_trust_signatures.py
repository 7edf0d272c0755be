"""Orders signed with the player's own SSH key, checked by pbem and by stock OpenSSH;
the host's signed receipts (pbem/trust)."""
from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest
from click.testing import CliRunner

from pbem.cli import main
from pbem.engine import EngineError, Game
from pbem.trust import receipt as R
from pbem.trust import signed as S
from pbem.trust import sshsig

from test_trust_dice import players_copy, rechain

SSH_KEYGEN = shutil.which("ssh-keygen")
needs_ssh = pytest.mark.skipif(SSH_KEYGEN is None, reason="ssh-keygen (OpenSSH) is not installed")
CLOCK = "2024-01-01T00:00:00Z"


@pytest.fixture(autouse=True)
def _clock(monkeypatch):
    monkeypatch.setenv("PBEM_CLOCK", CLOCK)


def keygen(folder: Path, name: str, kind: str = "ed25519", bits: int | None = None) -> Path:
    args = [SSH_KEYGEN, "-q", "-t", kind, "-N", "", "-C", name, "-f", str(folder / name)]
    if bits:
        args += ["-b", str(bits)]
    subprocess.run(args, check=True)
    return folder / name


def ssh_sign(key: Path, path: Path, namespace: str = "pbem") -> str:
    subprocess.run([SSH_KEYGEN, "-q", "-Y", "sign", "-f", str(key), "-n", namespace, str(path)], check=True,
                   capture_output=True)
    sig = Path(str(path) + ".sig")
    text = sig.read_text()
    sig.unlink()
    return text


def ssh_verify(pub: Path, message: bytes, signature: str, namespace: str = "pbem") -> bool:
    allowed = pub.parent / "allowed"
    allowed.write_text(f"player {pub.read_text()}")
    sig = pub.parent / "sig"
    sig.write_text(signature)
    r = subprocess.run([SSH_KEYGEN, "-Y", "verify", "-f", str(allowed), "-I", "player", "-n", namespace,
                        "-s", str(sig)], input=message, capture_output=True)
    return r.returncode == 0


@pytest.fixture(scope="module")
def keys(tmp_path_factory):
    if SSH_KEYGEN is None:
        pytest.skip("ssh-keygen (OpenSSH) is not installed")
    d = tmp_path_factory.mktemp("keys")
    return {"ed": keygen(d, "ed"), "rsa": keygen(d, "rsa", "rsa", 2048), "ec": keygen(d, "ec", "ecdsa"),
            "other": keygen(d, "other")}


# --- the sshsig format against stock OpenSSH --------------------------------------------

@needs_ssh
@pytest.mark.parametrize("kind", ["ed", "rsa"])
def test_pbem_signs_the_same_bytes_as_ssh_keygen(keys, kind, tmp_path):
    f = tmp_path / "orders.txt"
    f.write_text("Game: g1\nSide: axis\nmove 15Pz/8 1203 1304\nend\n")
    assert sshsig.sign_file(f, keys[kind], S.NAMESPACE) == ssh_sign(keys[kind], f)


@needs_ssh
@pytest.mark.parametrize("kind", ["ed", "rsa", "ec"])
def test_ssh_keygen_accepts_pbems_signature_and_pbem_accepts_ssh_keygens(keys, kind, tmp_path):
    f = tmp_path / "orders.txt"
    f.write_bytes(b"move A 0101\nend\n")
    pub = Path(str(keys[kind]) + ".pub")
    mine = sshsig.sign(f.read_bytes(), keys[kind].read_bytes(), S.NAMESPACE)
    assert ssh_verify(pub, f.read_bytes(), mine)
    assert not ssh_verify(pub, b"move A 0102\nend\n", mine)          # OpenSSH too refuses a changed text
    theirs = ssh_sign(keys[kind], f)
    assert sshsig.verify(f.read_bytes(), theirs, S.NAMESPACE).blob == sshsig.parse_public_key(pub.read_text()).blob


@needs_ssh
def test_a_changed_text_another_namespace_or_a_weak_key_is_refused(keys, tmp_path):
    f = tmp_path / "o.txt"
    f.write_bytes(b"end\n")
    sig = ssh_sign(keys["ed"], f)
    with pytest.raises(sshsig.SigError, match="text or the signature was changed"):
        sshsig.verify(b"end \n", sig, S.NAMESPACE)
    with pytest.raises(sshsig.SigError, match="namespace 'git'"):
        sshsig.verify(b"end\n", ssh_sign(keys["ed"], f, "git"), S.NAMESPACE)
    weak = keygen(tmp_path, "weak", "rsa", 1024)
    with pytest.raises(sshsig.SigError, match="too weak"):
        sshsig.parse_public_key(Path(str(weak) + ".pub").read_text())
    assert sshsig.parse_public_key(Path(str(keys["ed"]) + ".pub").read_text()).fingerprint == \
        subprocess.run([SSH_KEYGEN, "-l", "-f", str(keys["ed"]) + ".pub"], capture_output=True, text=True).stdout.split()[1]


# --- signed orders in a game ---------------------------------------------------------------

def pub(keys, name: str) -> str:
    return Path(str(keys[name]) + ".pub").read_text().strip()


def signed_orders(g: Game, side: str, key: Path, orders: str, tmp_path: Path, head: str | None = None) -> tuple[str, str]:
    """The text a player signs (the host's key lines and the orders) and ssh-keygen's signature."""
    text = f"Game: {g.game_id}\nSide: {side}\nHead: {head or g.head()[1]}\n\n{orders}"
    f = tmp_path / f"orders-{side}.txt"
    f.write_text(text)
    return text, ssh_sign(key, f)


@pytest.fixture
def game(keys, tmp_path):
    return Game.create(tmp_path / "g", "el-alamein", seed_hex="11" * 32, dice_scheme=2,
                       keys={"axis": pub(keys, "ed"), "british": pub(keys, "rsa")}, require_signatures=True)


@needs_ssh
def test_signed_orders_are_kept_and_verify(game, keys, tmp_path):
    # one signed batch of two orders (the movement and combat phases end): the first
    # keeps the text and the signature, the second points to it
    text, sig = signed_orders(game, "axis", keys["ed"], "end\nend  # no attack\n", tmp_path)
    sub = game.submit("axis", "end\nend", signed=text, signature=sig)
    assert sub.refused is None and len(sub.applied) == 2
    first, second = [(en.seq, en.event) for en in game.entries() if type(en.event).__name__ == "OrderGiven"]
    assert first[1].signed == text and first[1].signature == sig
    assert second[1].signed_in == first[0] and not second[1].signature
    text, sig = signed_orders(game, "british", keys["rsa"], "end\n", tmp_path)
    assert game.submit("british", "end", signed=text, signature=sig).refused is None
    rep = game.verify()
    assert rep.ok, rep.problems
    assert any("order signatures: 3 signed" in n for n in rep.notes)


@needs_ssh
def test_the_engine_refuses_a_wrong_key_a_changed_order_and_a_replayed_text(game, keys, tmp_path):
    text, sig = signed_orders(game, "axis", keys["other"], "end\n", tmp_path)
    assert "another key" in str(game.submit("axis", "end", signed=text, signature=sig).refused)
    text, sig = signed_orders(game, "axis", keys["ed"], "end\n", tmp_path)
    assert "not the lines" in str(game.submit("axis", "move 15Pz/8 1203", signed=text, signature=sig).refused)
    assert game.submit("axis", "end", signed=text, signature=sig).refused is None
    # the same signed text again, later: it names the old head
    assert "written against head" in str(game.submit("axis", "end", signed=text, signature=sig).refused)


@needs_ssh
def test_verify_and_audit_catch_a_changed_order_a_changed_signature_another_key_and_unsigned(game, keys, tmp_path):
    from pbem.referee.audit import audit_game
    text, sig = signed_orders(game, "axis", keys["ed"], "end\nend\n", tmp_path)
    assert game.submit("axis", "end\nend", signed=text, signature=sig).refused is None
    assert game.submit("british", "end").refused is None            # the host typed it: unsigned
    given = [en.seq for en in game.entries() if type(en.event).__name__ == "OrderGiven"]
    given = [given[0], given[2]]                    # axis's signed batch, british's unsigned order
    other_text, other_sig = signed_orders(game, "axis", keys["other"], "end\nend\n", tmp_path,
                                          head=game.entries()[given[0] - 1].hash)
    cases = {
        "text": (lambda rec: rec["body"].update(signed=rec["body"]["signed"].replace("Side: axis", "Side: axis ")),
                 "text or the signature was changed"),
        "signature": (lambda rec: rec["body"].update(signature=ssh_sign(keys["ed"], _write(tmp_path, "x\n"))),
                      "text or the signature was changed"),
        "other key": (lambda rec: rec["body"].update(signed=other_text, signature=other_sig), "another key"),
    }
    for name, (edit, words) in cases.items():
        copy = players_copy(game, tmp_path / f"copy-{name.replace(' ', '-')}")
        rechain(copy.dir, lambda n, rec: edit(rec) if n == given[0] else None)
        rep = Game(copy.dir).verify()
        assert not rep.ok and any(words in p and f"seq {given[0]}" in p for p in rep.problems), (name, rep.problems)
        row = audit_game(copy.dir)
        assert any(f.code == "signature" and f.severity == "error" and words in f.text for f in row.findings), name
    # the unsigned british order, in a game that requires signatures
    rep = game.verify()
    assert not rep.ok and any(f"seq {given[1]}" in p and "not signed" in p for p in rep.problems)
    row = audit_game(game.dir)
    assert any(f.code == "signature" and f.severity == "warning" and "not signed" in f.text for f in row.findings)


def _write(folder: Path, text: str) -> Path:
    p = folder / "other.txt"
    p.write_text(text)
    return p


@needs_ssh
def test_a_key_is_registered_before_the_game_begins_and_a_later_change_is_flagged(keys, tmp_path):
    g = Game.create(tmp_path / "g", "el-alamein", seed_hex="11" * 32, dice_scheme=2)
    assert g.register_key("axis", pub(keys, "ed")) == sshsig.parse_public_key(pub(keys, "ed")).fingerprint
    text, sig = signed_orders(g, "axis", keys["ed"], "end\n", tmp_path)
    assert g.submit("axis", "end", signed=text, signature=sig).refused is None
    with pytest.raises(EngineError, match="the game has begun"):
        g.register_key("axis", pub(keys, "other"))
    g.register_key("axis", pub(keys, "other"), force=True)
    text, sig = signed_orders(g, "axis", keys["other"], "end\n", tmp_path)
    assert g.submit("axis", "end", signed=text, signature=sig).refused is None
    rep = g.verify()
    assert rep.ok and any("registered after the game began" in n for n in rep.notes), rep.notes
    from pbem.referee.audit import WARNING, audit_game
    row = audit_game(g.dir)
    assert [(f.severity, f.code) for f in row.findings if "registered after the game began" in f.text] == \
        [(WARNING, "signature")]


@needs_ssh
def test_explain_shows_who_signed_an_order(game, keys, tmp_path):
    from pbem.referee.explain import explain, explain_text
    text, sig = signed_orders(game, "axis", keys["ed"], "end\n", tmp_path)
    game.submit("axis", "end", signed=text, signature=sig)
    seq = game.head()[0]
    out = explain_text(explain(game, seq, "british"), game.scenario)
    assert f"signature: signed by axis's key {sshsig.parse_public_key(pub(keys, 'ed')).fingerprint}" in out


# --- the command line ---------------------------------------------------------------------

@needs_ssh
def test_cli_new_with_keys_orders_sign_and_key_show(keys, tmp_path):
    run = CliRunner().invoke
    g = tmp_path / "g"
    r = run(main, ["new", str(g), "--scenario", "el-alamein", "--key", f"axis={pub(keys, 'ed')}",
                   "--require-signatures"])
    assert r.exit_code == 0, r.output
    assert "dice scheme 2" in r.output
    f = tmp_path / "orders.txt"
    f.write_text("end\n")
    r = run(main, ["orders", "sign", "--key", str(keys["ed"]), str(f)])
    assert r.exit_code == 0 and r.output == ssh_sign(keys["ed"], f)
    head = Game(g).head()[1]
    r = run(main, ["orders", "sign", "--key", str(keys["ed"]), "--game", Game(g).game_id, "--side", "axis",
                   "--head", head, str(f)])
    body, sig = S.split(r.output)
    assert Game(g).submit("axis", "end", signed=body, signature=sig).refused is None
    r = run(main, ["key", "show", str(g)])
    assert "axis" in r.output and "SHA256:" in r.output and "signatures: required" in r.output
    r = run(main, ["key", "register", str(g), "--as", "british", pub(keys, "rsa")])
    assert r.exit_code == 1 and "the game has begun" in r.output
    bad = run(main, ["new", str(tmp_path / "h"), "--scenario", "el-alamein", "--key", "axis=ssh-ed25519 AAAA"])
    assert bad.exit_code == 1 and "Traceback" not in bad.output and "--key for axis" in bad.output


# --- the host's receipts --------------------------------------------------------------------------

@needs_ssh
def test_a_host_receipt_is_checked_by_the_player_and_against_a_copy_of_the_game(game, tmp_path):
    key = R.host_key(tmp_path / "host" if (tmp_path / "host").mkdir() is None else None)
    host_pub = (tmp_path / "host" / "host-key.pub").read_text()
    sub = game.submit("axis", "end")
    rec = R.sign(key, game.game_id, sub.seq, sub.head, "end\n")
    (tmp_path / "receipt.txt").write_text("Your orders were applied.\n\n" + rec)
    (tmp_path / "sent.txt").write_text("end\n")
    run = CliRunner().invoke
    args = ["receipt", "check", str(tmp_path / "receipt.txt"), "--host-key", host_pub]
    r = run(main, args + ["--orders", str(tmp_path / "sent.txt"), "--game", str(game.dir)])
    assert r.exit_code == 0, r.output
    assert f"seq {sub.seq}, head {sub.head}" in r.output and "holds that head" in r.output
    # stock OpenSSH checks it too
    text, sig = rec.split(sshsig.BEGIN)
    assert ssh_verify(tmp_path / "host" / "host-key.pub", text.encode(), sshsig.BEGIN + sig, R.NAMESPACE)
    # a copy the host rewrote afterwards contradicts the receipt
    copy = players_copy(game, tmp_path / "copy")
    rechain(copy.dir, lambda n, rec: rec.update(at="2030-01-01T00:00:00Z") if n == sub.seq else None)
    r = run(main, args + ["--game", str(copy.dir)])
    assert r.exit_code == 1 and "was changed after the host accepted it" in r.output
    # another key, or a changed receipt
    other = R.host_key(tmp_path / "elsewhere" if (tmp_path / "elsewhere").mkdir() is None else None)
    (tmp_path / "forged.txt").write_text(R.sign(other, game.game_id, sub.seq, sub.head))
    r = run(main, ["receipt", "check", str(tmp_path / "forged.txt"), "--host-key", host_pub])
    assert r.exit_code == 1 and "not by the host's key" in r.output
    (tmp_path / "changed.txt").write_text(rec.replace(f"seq: {sub.seq}", f"seq: {sub.seq - 1}"))
    r = run(main, ["receipt", "check", str(tmp_path / "changed.txt"), "--host-key", host_pub])
    assert r.exit_code == 1 and "was changed" in r.output
    assert (tmp_path / "host" / "host-key").stat().st_mode & 0o077 == 0
