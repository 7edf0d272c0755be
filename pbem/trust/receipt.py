"""The host's signed receipts: what the host accepted, and the heads it reported.

The host holds an Ed25519 key (``host-key``, OpenSSH format, mode 0600, in the
host folder; its public half in ``host-key.pub``, in the welcome and in `pbem host
show`).  Every answer to orders carries a receipt, every report the same for its
head::

    pbem receipt 1
    game: GAME-ID
    seq: 42
    head: 64 hex digits
    orders: sha256 of the order text as the host received it     (answers only)
    -----BEGIN SSH SIGNATURE-----  (namespace "pbem-receipt")

A player keeps them.  `pbem receipt check` proves the host signed one, that the
order text it names is the one the player sent, and that a copy of the game's log
holds that head at that seq: a host that later rewrote the game cannot deny it.
``ssh-keygen -Y verify -n pbem-receipt`` checks the signature too.
"""
from __future__ import annotations

import hashlib
import os
from dataclasses import dataclass
from pathlib import Path

from pbem.trust import sshsig

NAMESPACE = "pbem-receipt"
TITLE = "pbem receipt 1"
KEY_NAME = "host-key"


def order_hash(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def text_of(game_id: str, seq: int, head: str, orders: str | None = None) -> str:
    lines = [TITLE, f"game: {game_id}", f"seq: {seq}", f"head: {head}"]
    if orders is not None:
        lines.append(f"orders: {order_hash(orders)}")
    return "\n".join(lines) + "\n"


_loaded: dict[tuple, object] = {}          # the key read from its file, by the file's identity


def host_key(folder: Path, create: bool = True):
    """The host's private key (made on first use, mode 0600); None if absent and not ``create``."""
    from cryptography.hazmat.primitives import serialization
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
    path = Path(folder) / KEY_NAME
    try:
        st = path.stat()
    except FileNotFoundError:
        if not create:
            return None
        key = Ed25519PrivateKey.generate()
        data = key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.OpenSSH,
                                 serialization.NoEncryption())
        fd = os.open(path, os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o600)
        with os.fdopen(fd, "wb") as f:
            f.write(data)
        pub = key.public_key().public_bytes(serialization.Encoding.OpenSSH, serialization.PublicFormat.OpenSSH)
        (Path(folder) / (KEY_NAME + ".pub")).write_bytes(pub + b" pbem-host\n")
        return key
    if st.st_mode & 0o077:
        raise sshsig.SigError(f"{path} can be read by others (mode {st.st_mode & 0o777:o}); run: chmod 600 {path}")
    # read once per process while the file stays the same one (a host signs two receipts a mail)
    ident = (str(path), st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns, st.st_ctime_ns)
    key = _loaded.get(ident)
    if key is None:
        key = sshsig.load_private_key(path.read_bytes())
        _loaded.clear()
        _loaded[ident] = key
    return key


def public_line(key) -> str:
    return sshsig._public_of(key).line


def sign(key, game_id: str, seq: int, head: str, orders: str | None = None) -> str:
    """A receipt: its text followed by the host's signature of it."""
    text = text_of(game_id, seq, head, orders)
    return text + sshsig.sign(text.encode("utf-8"), key, NAMESPACE)


@dataclass
class Receipt:
    game: str
    seq: int
    head: str
    orders: str                  # the order text's sha256, "" for a report's head
    signer: sshsig.PublicKey


def read(text: str, host_pub: str) -> Receipt:
    """Check a receipt (its text and signature, anywhere in ``text``, e.g. a whole
    mail) against the host's public key; SigError if it does not hold."""
    start = text.find(TITLE)
    if start < 0:
        raise sshsig.SigError(f"no receipt found (it begins with the line {TITLE!r})")
    body = text[start:].replace("\r\n", "\n")
    cut = body.find(sshsig.BEGIN)
    if cut < 0:
        raise sshsig.SigError("the receipt has no signature")
    signed, sig = body[:cut], body[cut:]
    pub = sshsig.verify(signed.encode("utf-8"), sig, NAMESPACE)
    want = sshsig.parse_public_key(host_pub)
    if pub.blob != want.blob:
        raise sshsig.SigError(f"the receipt is signed by {pub.fingerprint}, not by the host's key {want.fingerprint}")
    fields = dict(ln.split(": ", 1) for ln in signed.splitlines()[1:] if ": " in ln)
    try:
        return Receipt(fields["game"], int(fields["seq"]), fields["head"], fields.get("orders", ""), pub)
    except (KeyError, ValueError):
        raise sshsig.SigError("the receipt's text is incomplete (game, seq, head)") from None


def check_against(rec: Receipt, game) -> str:
    """Why a copy of the game contradicts the receipt ("" if it holds it): the line at
    the receipt's seq must hash to its head."""
    if game.game_id != rec.game:
        return f"the receipt is for game {rec.game}, this copy is of {game.game_id}"
    for en in game.iter_entries(verify=True):
        if en.seq == rec.seq:
            if en.hash != rec.head:
                return (f"line {rec.seq + 1} of this log hashes to {en.hash}, not to the head {rec.head} the host "
                        "signed: the log was changed after the host accepted it")
            return ""
    return f"this log ends before seq {rec.seq}: it is older than the receipt, or lines were removed"
