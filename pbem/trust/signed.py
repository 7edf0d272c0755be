"""Orders signed with the player's own SSH key.

A player signs a text file of orders, usually headed by the lines the mail
host reads (``Game: ID``, ``Side: SIDE``, ``Head: HASH``), with stock OpenSSH::

    ssh-keygen -Y sign -f ~/.ssh/id_ed25519 -n pbem orders.txt

(or ``pbem orders sign --key ~/.ssh/id_ed25519 orders.txt``: the same bytes),
and sends the text followed by the signature.  The log keeps the exact text and
the signature with the batch's first OrderGiven, so anyone can check later that
every order of the batch is a line of a text the side's key signed, for this
game, side and head: a host cannot forge an order nor replay an old one.
"""
from __future__ import annotations

import re

from pbem.trust import sshsig

NAMESPACE = "pbem"
_KEY_RE = re.compile(r"^\s*(game|side|head|token|signature)\s*:\s*(\S*)\s*$", re.IGNORECASE)


def split(body: str) -> tuple[str, str]:
    """A mail body as (the text before the signature, the armored signature);
    ("body", "") when it holds no SSH signature."""
    start = body.find(sshsig.BEGIN)
    if start < 0:
        return body, ""
    end = body.find(sshsig.END, start)
    if end < 0:
        return body, ""
    return body[:start], body[start:end + len(sshsig.END)] + "\n"


def fields(text: str) -> dict[str, str]:
    """The ``Key: value`` lines of a signed text (game, side, head), first of each."""
    out: dict[str, str] = {}
    from pbem.core.orders import split_lines
    for ln in split_lines(text):
        m = _KEY_RE.match(ln)
        if m:
            out.setdefault(m.group(1).lower(), m.group(2))
    return out


def order_lines(text: str) -> list[str]:
    """The order lines of a signed text as the engine records them (OrderGiven.text):
    comments cut, ends stripped, blank and ``Key:`` lines left out."""
    from pbem.core.orders import clean, split_lines
    out = []
    for ln in split_lines(text):
        ln = clean(ln)
        if _KEY_RE.match(ln):
            continue
        body = ln.split("#", 1)[0].strip()
        if body:
            out.append(body)
    return out


def covers(signed_lines: list[str], batch: list[str]) -> bool:
    """Every line of the batch is a line of the signed text, in the same order (a
    signed mail's commands, HELP or STATUS, are among its lines but are no orders)."""
    it = iter(signed_lines)
    return all(any(x == b for x in it) for b in batch)


def check(key_line: str, text: str, signature: str) -> sshsig.PublicKey:
    """The signature over ``text`` must verify and be by ``key_line``'s key (SigError if not)."""
    pub = sshsig.verify(text.encode("utf-8"), signature, NAMESPACE)
    want = sshsig.parse_public_key(key_line) if key_line else None
    if want is None:
        raise sshsig.SigError("no key is registered for this side, so its signature cannot be checked")
    if pub.blob != want.blob:
        raise sshsig.SigError(f"signed by another key ({pub.fingerprint}), not the side's registered key "
                              f"({want.fingerprint})")
    return pub


def binding(text: str, game_id: str, side: str, head: str) -> str:
    """Why a signed text does not belong here ("" if it does): another game, side or head.
    A text without a Head: line is accepted (the host's stale-head check still holds) but
    the audits say it could be replayed."""
    f = fields(text)
    if f.get("game") and f["game"] != game_id:
        return f"the signed text is for game {f['game']}, not {game_id}"
    if f.get("side") and f["side"].lower() != side.lower():
        return f"the signed text is for side {f['side']}, not {side}"
    h = f.get("head", "").lower()
    if h and (len(h) < 12 or not head.startswith(h)):
        return f"the signed text was written against head {h[:12]}..., not this game's {head[:12]}..."
    return ""


def refusal(game, st, side: str, text: str, signature: str, lines) -> str:
    """Why the engine refuses a signed batch ("" if it takes it): the signature, the
    key, the game/side/head it names, and its order lines against the batch's."""
    try:
        check(st.keys.get(side, ""), text, signature)
    except sshsig.SigError as e:
        return f"the SSH signature is refused: {e}"
    why = binding(text, game.game_id, side, game.log.head()[1])
    if why:
        return why
    if not covers(order_lines(text), [ln.text for ln in lines]):
        return "the orders are not the lines the signature covers"
    return ""


def creation_fields(sc, keys: dict[str, str], required: bool, error=ValueError) -> dict:
    """GameCreated's ``keys`` (each checked, recorded as ``TYPE BASE64``) and ``signatures``."""
    out: dict = {}
    for side, key in keys.items():
        if side not in sc.side_ids():
            raise error(f"--key {side}=...: {sc.id} has no side {side!r}; sides: {', '.join(sc.side_ids())}")
        try:
            out.setdefault("keys", {})[side] = sshsig.parse_public_key(key).line
        except sshsig.SigError as e:
            raise error(f"--key for {side}: {e}") from None
    if required:
        out["signatures"] = "required"
    return out
