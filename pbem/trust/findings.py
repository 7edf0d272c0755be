"""What the log proves about who gave each order: every signature re-checked
against the key the side had registered at that point (GameCreated, KeyRegistered).

``order_signatures`` gives one row per OrderGiven: ``signed`` (by the side's key,
for this game, side and head), ``unbound`` (signed, but the text names no head:
it could have been replayed), ``key-changed`` (signed by a key registered after
the game began), ``bad`` (the text or the signature was changed, or it is for
another game, side or head), ``other-key`` (a valid signature by a key that is
not the side's), ``unsigned``, and ``deadline`` (the host applied the rules'
default: nobody signs those).  verify, audit and explain read these rows."""
from __future__ import annotations

from dataclasses import dataclass

from pbem.core import events as E
from pbem.trust import signed as S
from pbem.trust import sshsig

PROBLEMS = ("bad", "other-key")
WARNINGS = ("unbound", "key-changed")


@dataclass
class OrderSig:
    seq: int
    side: str
    text: str
    status: str                  # signed | unbound | key-changed | bad | other-key | unsigned | deadline
    why: str = ""
    fingerprint: str = ""        # the signer's key (signed, unbound, key-changed, other-key)
    batch: int = 0               # seq of the OrderGiven holding the batch's signature


def order_signatures(created: E.GameCreated, entries) -> list[OrderSig]:
    keys = dict(created.keys)
    changed: set[str] = set()                # sides whose key was replaced after the first order
    begun = False
    batches: dict[int, tuple[OrderSig, list[str]]] = {}   # seq -> (its row, order lines not yet matched)
    out: list[OrderSig] = []
    prev_hash = ""
    for en in entries:
        ev = en.event
        if isinstance(ev, E.KeyRegistered):
            keys[ev.side] = ev.key
            if begun:
                changed.add(ev.side)
        elif isinstance(ev, E.OrderGiven):
            begun = True
            out.append(_row(created.game_id, keys, changed, batches, en.seq, ev, prev_hash))
        prev_hash = en.hash
    return out


def _row(game_id: str, keys, changed, batches, seq: int, ev: E.OrderGiven, head: str) -> OrderSig:
    row = OrderSig(seq, ev.side, ev.text, "unsigned")
    if ev.by == "deadline" and not ev.signature and not ev.signed_in:
        row.status = "deadline"
        return row
    if ev.signature:
        row.batch = seq
        try:
            pub = S.check(keys.get(ev.side, ""), ev.signed, ev.signature)
        except sshsig.SigError as e:
            row.status, row.why = _sig_fail(ev, e)
            return row
        row.fingerprint = pub.fingerprint
        lines = S.order_lines(ev.signed)
        batches[seq] = (row, lines)
        why = S.binding(ev.signed, game_id, ev.side, head)
        if why:
            row.status, row.why = "bad", why
            return row
        row.status = "key-changed" if ev.side in changed else \
            ("signed" if S.fields(ev.signed).get("head") else "unbound")
        return _match(row, lines)
    if ev.signed_in:
        row.batch = ev.signed_in
        first = batches.get(ev.signed_in)
        if first is None or first[0].side != ev.side:
            row.status, row.why = "bad", f"it names seq {ev.signed_in} as its signed batch, which holds no signature of {ev.side}"
            return row
        head_row, lines = first
        row.fingerprint = head_row.fingerprint
        row.status, row.why = head_row.status, head_row.why
        if row.status in PROBLEMS:
            return row
        return _match(row, lines)
    return row


def _match(row: OrderSig, lines: list[str]) -> OrderSig:
    """The batch's orders are lines of its signed text, in order (signed.covers)."""
    while lines and lines[0] != row.text:
        lines.pop(0)
    if not lines:
        row.status, row.why = "bad", f"the order {row.text!r} is not a line the signature covers (after the ones before it)"
        return row
    lines.pop(0)
    return row


def _sig_fail(ev: E.OrderGiven, e: sshsig.SigError) -> tuple[str, str]:
    text = str(e)
    return ("other-key" if text.startswith("signed by another key") else "bad"), text


def counts(rows: list[OrderSig]) -> dict[str, int]:
    out: dict[str, int] = {}
    for r in rows:
        out[r.status] = out.get(r.status, 0) + 1
    return out


def describe(r: OrderSig) -> str:
    """One line for a report, an audit or explain."""
    what = {"signed": f"signed by {r.side}'s key {r.fingerprint}",
            "unbound": f"signed by {r.side}'s key {r.fingerprint}, but the text names no head, so it could be replayed",
            "key-changed": f"signed by {r.fingerprint}, a key {r.side} registered after the game began",
            "bad": f"WRONGLY SIGNED: {r.why}",
            "other-key": f"WRONGLY SIGNED: {r.why}",
            "unsigned": "not signed",
            "deadline": "applied by the host as the rules' deadline default (nobody signs those)"}[r.status]
    return what
