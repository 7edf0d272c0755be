"""The mail host's part of pbem/trust: SSH-signed mail, the KEY command, receipts.

- A mail whose body ends with an SSH signature (``ssh-keygen -Y sign -n pbem``
  of the text above it, or ``pbem orders sign --key``) is authenticated by the
  side's registered key instead of its token; its text and signature go into
  the log with the orders (``Game.submit(signed=, signature=)``).
- ``KEY ssh-ed25519 AAAA...`` (before the game's first order) asks to register a
  key; the answer holds a code, and the player's reply ``KEY CONFIRM CODE`` from
  the same address registers it (KeyRegistered): a forged From never sees the code.
- Every answer that applied orders ends with the host's signed receipt.
"""
from __future__ import annotations

import json
import secrets

from pbem.host import mail as M
from pbem.trust import receipt as R
from pbem.trust import signed as S
from pbem.trust import sshsig

PENDING = "pending-keys.json"
UNSIGNED = ("this game requires every order to be signed with your SSH key: sign the text (with its Game:, "
            "Side: and Head: lines) with `ssh-keygen -Y sign -f ~/.ssh/id_ed25519 -n pbem orders.txt` or "
            "`pbem orders sign --key ~/.ssh/id_ed25519`, and send the text followed by the signature; "
            "nothing was applied")


def ssh_auth(game, side: str, inc: M.Incoming) -> str:
    """'' when the mail's SSH signature is by ``side``'s registered key and names this
    game, side and head; else why not.  Keeps the exact text that verified."""
    key = game.state().keys.get(side, "")
    if not key:
        return (f"the mail is signed with an SSH key, but {game.scenario.side_name(side)} has none registered in game "
                f"{game.game_id}: send 'KEY ssh-ed25519 AAAA...' (your .pub line) first; nothing was applied")
    text = inc.ssh_signed
    last = None
    for cand in dict.fromkeys((text, text.rstrip("\n") + "\n", text.rstrip("\n") + "\n\n")):
        try:
            S.check(key, cand, inc.ssh_signature)
        except sshsig.SigError as e:
            last = last or e                        # the exact text's reason (another key, say)
            continue
        why = S.binding(cand, game.game_id, side, game.head()[1])
        if why:
            return f"{why}; nothing was applied"
        inc.ssh_signed = cand
        return ""
    return f"the SSH signature does not hold: {last}; nothing was applied"


def key_command(game, side: str, address: str, arg: str) -> list[str]:
    """KEY PUBKEY (ask) or KEY CONFIRM CODE (the reply from the same address)."""
    from pbem.engine import EngineError
    try:
        pending = json.loads(game.store.read(PENDING) or b"{}")
    except (OSError, ValueError):
        pending = {}
    words = arg.split()
    if words[:1] and words[0].lower() == "confirm":
        want = pending.get(side)
        if not want or len(words) != 2 or want.get("address") != address or \
                not secrets.compare_digest(words[1].lower(), want.get("code", "")):
            return ["No key waits for that code from this address; send KEY with your public key first."]
        try:
            fp = game.register_key(side, want["key"])
        except EngineError as e:
            return [str(e)]
        pending.pop(side, None)
        game.store.write(PENDING, json.dumps(pending).encode())
        return [f"Registered: your orders may now be signed with {fp} (ssh-keygen -Y sign -n pbem)."]
    try:
        pub = sshsig.parse_public_key(arg)
    except sshsig.SigError as e:
        return [f"KEY needs your public key, the line of your .pub file: {e}"]
    if game.state().seq >= 0 and any(type(en.event).__name__ == "OrderGiven" for en in game.iter_entries(False)):
        return ["The game has begun: a key is registered before the first order (ask the host to replace a lost key)."]
    code = secrets.token_hex(8)
    pending[side] = {"key": pub.line, "code": code, "address": address}
    game.store.write(PENDING, json.dumps(pending).encode())
    return [f"To register the key {pub.fingerprint} for your side, reply from this address with the line:",
            f"KEY CONFIRM {code}"]


def receipt(root, game, sub, text: str) -> str:
    """The host's signed receipt of what it applied: game, seq, head, the orders' hash."""
    key = R.host_key(root)
    pub = sshsig.parse_public_key(R.public_line(key))
    return ("\n\nRECEIPT (signed by the host's key " + pub.fingerprint + "; keep it, check it with "
            "`pbem receipt check`)\n" + R.sign(key, game.game_id, sub.seq, sub.head, text))


def head_receipt(root, game, seq: int, head: str) -> str:
    """A report's head, signed by the host: a copy of the game can be checked against it."""
    key = R.host_key(root)
    return "\n\nSIGNED HEAD (the host's key; check with `pbem receipt check`)\n" + R.sign(key, game.game_id, seq, head)


def welcome_lines(root, game, side: str) -> list[str]:
    """What the welcome says about keys, receipts and the dice (scheme 2)."""
    c = game.created
    key = R.host_key(root)
    out = ["The host signs every answer's receipt and every report's head with its key:",
           f"  {R.public_line(key)}",
           f"  ({sshsig.parse_public_key(R.public_line(key)).fingerprint}). Keep both; check one with",
           "  pbem receipt check FILE --host-key 'THAT KEY' [--game COPY] [--orders SENT]"]
    mine = game.state().keys.get(side)
    if mine:
        out.append(f"Your orders are signed with your SSH key {sshsig.parse_public_key(mine).fingerprint}.")
    else:
        out.append("To sign your orders with your own SSH key, send: KEY ssh-ed25519 AAAA... (your .pub line)")
        out.append("  before the first order, then the confirmation the answer asks for.")
    out.append("Sign a file of orders headed by its Game:, Side: and Head: lines with")
    out.append("  ssh-keygen -Y sign -f ~/.ssh/id_ed25519 -n pbem orders.txt   (or pbem orders sign --key)")
    out.append("  and send the file's text followed by the signature.")
    if c.signatures == "required":
        out.append("This game REQUIRES every order to be signed so.")
    if c.dice_scheme == 2:
        out += ["Dice scheme 2: each turn's dice come from a seed of a hash chain whose head,",
                f"  {c.dice_chain},",
                "  is in the log's first event. When a turn is over the host reveals its seed, and",
                "  pbem verify (or pbem explain on a roll) re-derives every roll of it:",
                "  key = HMAC-SHA256(seed, 'pbem-dice-2:key:' + digest of the contributions), then",
                "  HMAC-SHA256(key, 'GAME:ORDER-SEQ:K') read as 4-byte values, the first below the",
                "  limit gives the face. Rolls for a side's secret come from that side's own chain,",
                "  revealed once its secrets are open, or at the end."]
        if c.entropy:
            out += ["Before the first roll each side contributes to the dice: run",
                    "  pbem dice contribute FILE   and send the line it prints (entropy commit ...);",
                    "  once every side has, send the line of  pbem dice reveal FILE . Neither the host",
                    "  nor a player then chose the dice. A side that does not answer by the deadline",
                    "  contributes nothing (entropy none)."]
    return out
