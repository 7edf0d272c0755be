"""SSH signatures (OpenSSH's ``sshsig`` format, PROTOCOL.sshsig), in pure Python.

What ``ssh-keygen -Y sign -f KEY -n NAMESPACE FILE`` writes and ``ssh-keygen -Y
verify`` checks: an armored blob

    "SSHSIG" uint32(1) string(public key) string(namespace) string("")
    string(hash algorithm) string(signature)

whose signature covers "SSHSIG" string(namespace) string("") string(hash
algorithm) string(H(message)).  The namespace keeps a signature made for one
purpose (pbem orders) from being passed off for another (a git commit).

Keys: Ed25519, RSA (rsa-sha2-256/512, at least 2048 bits) and ECDSA (NIST
P-256/384/521).  Ed25519 and RSA signatures are deterministic, so ``sign``
gives the same bytes as ssh-keygen; ECDSA ones are random by nature, and still
verify either way.
"""
from __future__ import annotations

import base64
import binascii
import hashlib
import struct
from dataclasses import dataclass
from pathlib import Path

BEGIN = "-----BEGIN SSH SIGNATURE-----"
END = "-----END SSH SIGNATURE-----"
MAGIC = b"SSHSIG"
VERSION = 1
HASHES = {"sha256": hashlib.sha256, "sha512": hashlib.sha512}
RSA_MIN_BITS = 2048
_ECDSA = {"ecdsa-sha2-nistp256": ("secp256r1", "sha256"), "ecdsa-sha2-nistp384": ("secp384r1", "sha384"),
          "ecdsa-sha2-nistp521": ("secp521r1", "sha512")}
KEY_TYPES = ("ssh-ed25519", "ssh-rsa", *_ECDSA)


class SigError(Exception):
    """A key or signature that cannot be read, or a signature that does not verify."""


# --- the wire format -----------------------------------------------------------------------

def _string(b: bytes) -> bytes:
    return struct.pack(">I", len(b)) + b


class _Reader:
    def __init__(self, data: bytes, what: str):
        self.data, self.pos, self.what = data, 0, what

    def raw(self, n: int) -> bytes:
        if self.pos + n > len(self.data):
            raise SigError(f"{self.what} is cut short")
        out = self.data[self.pos:self.pos + n]
        self.pos += n
        return out

    def uint32(self) -> int:
        return struct.unpack(">I", self.raw(4))[0]

    def string(self) -> bytes:
        return self.raw(self.uint32())

    def mpint(self) -> int:
        return int.from_bytes(self.string(), "big", signed=True)

    def done(self) -> None:
        if self.pos != len(self.data):
            raise SigError(f"{self.what} has {len(self.data) - self.pos} bytes too many")


# --- public keys -------------------------------------------------------------------------------

@dataclass(frozen=True)
class PublicKey:
    """An SSH public key: its type, its wire blob and the key object that verifies."""
    type: str
    blob: bytes
    key: object

    @property
    def line(self) -> str:
        """``TYPE BASE64`` as in authorized_keys (no comment): how pbem records a key."""
        return f"{self.type} {base64.b64encode(self.blob).decode('ascii')}"

    @property
    def fingerprint(self) -> str:
        """``SHA256:...`` exactly as ``ssh-keygen -l`` prints it."""
        return "SHA256:" + base64.b64encode(hashlib.sha256(self.blob).digest()).decode("ascii").rstrip("=")


def _from_blob(blob: bytes) -> PublicKey:
    from cryptography.hazmat.primitives.asymmetric import ec, rsa
    from cryptography.hazmat.primitives.serialization import load_ssh_public_key
    r = _Reader(blob, "the public key")
    ktype = r.string().decode("ascii", "replace")
    if ktype not in KEY_TYPES:
        raise SigError(f"key type {ktype!r} is not supported; use one of {', '.join(KEY_TYPES)}")
    try:
        key = load_ssh_public_key(ktype.encode() + b" " + base64.b64encode(blob))
    except (ValueError, TypeError) as e:
        raise SigError(f"not a valid {ktype} public key ({e})") from None
    if isinstance(key, rsa.RSAPublicKey) and key.key_size < RSA_MIN_BITS:
        raise SigError(f"an RSA key of {key.key_size} bits is too weak; use at least {RSA_MIN_BITS} bits or Ed25519")
    if isinstance(key, ec.EllipticCurvePublicKey) and key.curve.name != _ECDSA[ktype][0]:
        raise SigError(f"{ktype} key on the wrong curve {key.curve.name}")
    return PublicKey(ktype, blob, key)


def parse_public_key(text: str) -> PublicKey:
    """A key as ``~/.ssh/id_ed25519.pub`` holds it: ``TYPE BASE64 [comment]``."""
    parts = (text or "").strip().split()
    if len(parts) < 2:
        raise SigError("an SSH public key reads 'ssh-ed25519 AAAA... [comment]' (the line of your .pub file)")
    try:
        blob = base64.b64decode(parts[1], validate=True)
    except (binascii.Error, ValueError):
        raise SigError("the public key's base64 part is damaged") from None
    key = _from_blob(blob)
    if key.type != parts[0]:
        raise SigError(f"the key says it is {parts[0]} but holds a {key.type} key")
    return key


def _public_of(private) -> PublicKey:
    """The public half of a private key object, kept per object (the host signs every
    answer's receipt and report's head with one key: it was derived for each)."""
    got = _PUBLIC.get(id(private))
    if got is not None and got[0] is private:       # the object itself is kept: its id is not reused
        return got[1]
    from cryptography.hazmat.primitives.serialization import Encoding, PublicFormat
    line = private.public_key().public_bytes(Encoding.OpenSSH, PublicFormat.OpenSSH).decode("ascii")
    pub = parse_public_key(line)
    if len(_PUBLIC) >= 16:
        _PUBLIC.clear()
    _PUBLIC[id(private)] = (private, pub)
    return pub


_PUBLIC: dict[int, tuple[object, PublicKey]] = {}


def load_private_key(data: bytes, password: bytes | None = None):
    """An OpenSSH private key file's bytes as a key object (SigError if unusable)."""
    from cryptography.hazmat.primitives.serialization import load_ssh_private_key
    try:
        return load_ssh_private_key(data, password=password)
    except (ValueError, TypeError, binascii.Error) as e:
        text = str(e)
        if "password" in text.lower() or "encrypted" in text.lower():
            raise SigError("the private key is protected by a passphrase: sign with "
                           "`ssh-keygen -Y sign -n pbem` instead (the same signature)") from None
        raise SigError(f"not an OpenSSH private key ({text})") from None
    except Exception as e:                       # noqa: BLE001 - e.g. a missing bcrypt for encrypted keys
        raise SigError(f"the private key cannot be read ({type(e).__name__}: {e})") from None


# --- signing and verifying -------------------------------------------------------------------------

def _signed_data(namespace: str, hash_alg: str, message: bytes) -> bytes:
    digest = HASHES[hash_alg](message).digest()
    return MAGIC + _string(namespace.encode()) + _string(b"") + _string(hash_alg.encode()) + _string(digest)


def armor(blob: bytes) -> str:
    """The armored text ssh-keygen writes: base64 in lines of 70 characters."""
    b64 = base64.b64encode(blob).decode("ascii")
    lines = [b64[i:i + 70] for i in range(0, len(b64), 70)]
    return "\n".join([BEGIN, *lines, END]) + "\n"


def unarmor(text: str) -> bytes:
    """The blob of the first armored signature in ``text``."""
    start = text.find(BEGIN)
    end = text.find(END, start + 1) if start >= 0 else -1
    if start < 0 or end < 0:
        raise SigError(f"no SSH signature found (a block from {BEGIN} to {END})")
    body = "".join(text[start + len(BEGIN):end].split())
    try:
        return base64.b64decode(body, validate=True)
    except (binascii.Error, ValueError):
        raise SigError("the SSH signature's base64 is damaged") from None


def sign(message: bytes, private, namespace: str, hash_alg: str = "sha512") -> str:
    """Armored signature of ``message`` with ``private`` (a key object or an
    OpenSSH private key file's bytes): the bytes ssh-keygen -Y sign writes."""
    from cryptography.hazmat.primitives import hashes
    from cryptography.hazmat.primitives.asymmetric import ec, ed25519, padding, rsa
    from cryptography.hazmat.primitives.asymmetric.utils import decode_dss_signature
    if isinstance(private, (bytes, bytearray)):
        private = load_private_key(bytes(private))
    pub = _public_of(private)
    data = _signed_data(namespace, hash_alg, message)
    if isinstance(private, ed25519.Ed25519PrivateKey):
        sig = _string(b"ssh-ed25519") + _string(private.sign(data))
    elif isinstance(private, rsa.RSAPrivateKey):
        sig = _string(b"rsa-sha2-512") + _string(private.sign(data, padding.PKCS1v15(), hashes.SHA512()))
    elif isinstance(private, ec.EllipticCurvePrivateKey):
        h = {"sha256": hashes.SHA256(), "sha384": hashes.SHA384(), "sha512": hashes.SHA512()}[_ECDSA[pub.type][1]]
        r, s = decode_dss_signature(private.sign(data, ec.ECDSA(h)))
        inner = _string(_mpint(r)) + _string(_mpint(s))
        sig = _string(pub.type.encode()) + _string(inner)
    else:
        raise SigError(f"cannot sign with a {type(private).__name__}")
    blob = (MAGIC + struct.pack(">I", VERSION) + _string(pub.blob) + _string(namespace.encode()) + _string(b"")
            + _string(hash_alg.encode()) + _string(sig))
    return armor(blob)


def _mpint(n: int) -> bytes:
    """A positive integer as SSH's mpint: big-endian, minimal, a 0 byte first if the top bit is set."""
    b = n.to_bytes((n.bit_length() + 7) // 8, "big")
    return b"\x00" + b if b and b[0] & 0x80 else b


def verify(message: bytes, armored: str, namespace: str) -> PublicKey:
    """Check an armored signature over ``message`` made for ``namespace``;
    returns the key that made it (SigError if it does not verify).  Whether
    that key is the one expected is for the caller to check."""
    from cryptography.exceptions import InvalidSignature
    from cryptography.hazmat.primitives import hashes
    from cryptography.hazmat.primitives.asymmetric import padding
    from cryptography.hazmat.primitives.asymmetric.utils import encode_dss_signature
    r = _Reader(unarmor(armored), "the SSH signature")
    if r.raw(6) != MAGIC:
        raise SigError("not an SSH signature (no SSHSIG preamble)")
    if r.uint32() != VERSION:
        raise SigError("an SSH signature of an unknown version")
    pub = _from_blob(r.string())
    ns = r.string().decode("utf-8", "replace")
    r.string()                                             # reserved
    hash_alg = r.string().decode("ascii", "replace")
    sig = _Reader(r.string(), "the signature")
    r.done()
    if ns != namespace:
        raise SigError(f"the signature was made for namespace {ns!r}, not {namespace!r} (ssh-keygen -Y sign -n {namespace})")
    if hash_alg not in HASHES:
        raise SigError(f"hash algorithm {hash_alg!r} is not one of {', '.join(HASHES)}")
    data = _signed_data(namespace, hash_alg, message)
    alg = sig.string().decode("ascii", "replace")
    raw = sig.string()
    sig.done()
    try:
        if pub.type == "ssh-ed25519" and alg == "ssh-ed25519":
            pub.key.verify(raw, data)
        elif pub.type == "ssh-rsa" and alg in ("rsa-sha2-256", "rsa-sha2-512"):
            h = hashes.SHA512() if alg == "rsa-sha2-512" else hashes.SHA256()
            pub.key.verify(raw, data, padding.PKCS1v15(), h)
        elif pub.type in _ECDSA and alg == pub.type:
            from cryptography.hazmat.primitives.asymmetric import ec
            inner = _Reader(raw, "the ECDSA signature")
            rr, ss = inner.mpint(), inner.mpint()
            inner.done()
            h = {"sha256": hashes.SHA256(), "sha384": hashes.SHA384(), "sha512": hashes.SHA512()}[_ECDSA[pub.type][1]]
            pub.key.verify(encode_dss_signature(rr, ss), data, ec.ECDSA(h))
        else:
            raise SigError(f"a {pub.type} key cannot make a {alg} signature (ssh-rsa with SHA-1 is not accepted)")
    except InvalidSignature:
        raise SigError("the signature does not match the text: the text or the signature was changed") from None
    return pub


def sign_file(path: Path, key_path: Path, namespace: str) -> str:
    """``ssh-keygen -Y sign -f KEY -n NAMESPACE FILE``'s signature of a file."""
    try:
        data, key = Path(path).read_bytes(), Path(key_path).read_bytes()
    except OSError as e:
        raise SigError(f"cannot read {e.filename}: {e.strerror}") from None
    return sign(data, key, namespace)
