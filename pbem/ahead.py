"""Orders ahead: a side's orders for its later steps, written in one mail (or
orders file) after lines ``THEN``, held privately and applied automatically,
block by block, the next times the game waits for that side.

The first block of a mail is applied as any orders are.  Each later block is
held for the side as staged orders are (in ``staged.json``, under the key
``held``: never in the log, never shown to the other sides) and applied when
the game next waits for that side alone, right after another side's orders
were applied (``run``: in the same poll, before the reports are mailed).  The
log is the same as if the side had mailed each block at its time.

A held block that the rules would refuse when its time comes is not applied:
it is dropped with the rest of the side's held blocks, and the side is told.
Held blocks are for the game turn the mail's own orders left the game in:
when that turn ends before their time comes they expire (dropped, with a
note).  A new mail with orders applied now replaces what was held; UNDO drops
it.  A side's deadline applies its next held block first, as staged orders
(host/deadlines.py), when its own orders left the game waiting for it still.

Exactly once, as ``staging.final``: under the log's lock a block is marked
with the head it is applied at, applied, and only then taken off the entry;
an entry found marked is checked against the log (the line after the marked
head is the block's first order, by its side) and the block is taken off
without being applied again when it is.  An entry remembers the job that
held it, so a job finished again after a crash does not hold its blocks twice.
"""
from __future__ import annotations


from pbem import staging

KEY = "held"
def _all(game) -> dict:
    d = staging._load(game).get(KEY)
    return d if isinstance(d, dict) else {}


def entry(game, side: str) -> dict:
    e = _all(game).get(side)
    return e if isinstance(e, dict) else {}


def held(game, side: str) -> list[str]:
    """``side``'s held blocks, next first."""
    return [b for b in entry(game, side).get("blocks", []) if isinstance(b, str)]


def _put(game, side: str, e: dict | None) -> None:
    with staging._locked(game):
        data = staging._load(game)
        allh = data.get(KEY) if isinstance(data.get(KEY), dict) else {}
        if e is None:
            allh.pop(side, None)
        else:
            allh[side] = e
        if allh:
            data[KEY] = allh
        else:
            data.pop(KEY, None)
        staging._save(game, data)


def hold(game, side: str, blocks: list[str], job: str, turn: int, at: str = "") -> bool:
    """Hold ``blocks`` (blank ones left out) for ``side`` in game turn ``turn``, replacing
    what was held; False (nothing changed) when job ``job`` held its blocks already."""
    blocks = [b.strip("\n") for b in blocks if b.strip()]
    with game.log.lock():
        e = entry(game, side)
        if job and e.get("job") == job:
            return False
        if not blocks:                          # nothing to hold: nothing written unless something was held
            if e.get("blocks"):
                _put(game, side, None)
            return bool(e.get("blocks"))
        _put(game, side, {"job": job, "blocks": blocks, "turn": turn, "at": at})
    return True


def drop(game, side: str) -> list[str]:
    """Drop ``side``'s held blocks (UNDO); returns them."""
    with game.log.lock():
        e = entry(game, side)
        got = [b for b in e.get("blocks", []) if isinstance(b, str)]
        if got:
            _put(game, side, dict(e, blocks=[], applying=None))
    return got


def shown(blocks: list[str]) -> str:
    """The held blocks in one line: ``pass | fire A2 at G3``."""
    return " | ".join("; ".join(ln.strip() for ln in b.split("\n") if ln.strip()) for b in blocks)


def lines_for(game, side: str) -> list[str]:
    """What STATUS, HELP and the reports say of ``side``'s held blocks ([] when none)."""
    e = entry(game, side)
    blocks = [b for b in e.get("blocks", []) if isinstance(b, str)]      # held(): from the entry read here
    if not blocks:
        return []
    return [f"Held for your next steps: {shown(blocks)} ({len(blocks)} step(s); applied one at a time when the "
            f"game next waits for you, until the end of game turn {e.get('turn')}; UNDO drops them)."]


def moved(sub) -> bool:
    """Did ``sub`` (a Submission) apply an order other than press?  Press alone never
    lets a held block go in: the game did not move on."""
    from pbem.core.events import PressSent
    return bool(sub) and any(not isinstance(ev, PressSent) for a in sub.applied for ev in a.events)


def run(game, mover: str, at: str | None = None, submit=None) -> list[dict]:
    """Apply the held blocks whose time has come: while the game waits for one side
    only, not the one whose orders were applied last (``mover`` first), and that side
    holds a block.  Returns what happened, one dict per block taken:
    ``{"side", "status": applied | recovered | refused | expired, "text", "sub", "why", "dropped"}``.
    ``submit(side, text)``: how to apply a block (default ``game.submit``)."""
    from pbem.views import turn_of
    submit = submit or (lambda s, t: game.submit(s, t, at=at))
    out: list[dict] = _settle(game)
    if not any(isinstance(e, dict) and any(isinstance(b, str) for b in e.get("blocks", []) or [])
               for e in _all(game).values()):
        return out                                  # nothing held: no block to take (the state is not read)
    last = mover
    for _ in range(1000):
        st = game.state()
        if st.result is not None:
            break
        waited = turn_of(game, st).sides_waited()
        if len(waited) != 1 or waited[0] == last:
            break
        side = waited[0]
        got = _one(game, side, submit)
        if got is None:
            break
        out.append(got)
        if got["status"] != "applied":
            break
        last = side
    return out


def _settle(game) -> list[dict]:
    """Entries marked by a run that died: a block whose orders are in the log is taken
    off (not applied again); otherwise the mark goes and the block waits for its time."""
    out = []
    with game.log.lock():
        for side, e in list(_all(game).items()):
            if not isinstance(e, dict) or not e.get("applying"):
                continue
            blocks = [b for b in e.get("blocks", []) if isinstance(b, str)]
            done = bool(blocks) and staging._applied(game, side, {"applying": e["applying"], "text": blocks[0]})
            _put(game, side, dict(e, blocks=blocks[1:] if done else blocks, applying=None))
            if done:
                out.append({"side": side, "status": "recovered", "text": blocks[0], "sub": None, "why": "",
                            "dropped": []})
    return out


def _one(game, side: str, submit) -> dict | None:
    with game.log.lock():
        e = entry(game, side)
        blocks = [b for b in e.get("blocks", []) if isinstance(b, str)]
        if not blocks:
            return None
        text = blocks[0]
        st = game.state()
        if st.turn != e.get("turn"):
            _put(game, side, dict(e, blocks=[], applying=None))
            return {"side": side, "status": "expired", "text": text, "sub": None, "dropped": blocks,
                    "why": f"game turn {e.get('turn')} ended before their time came"}
        trial = game.check(side, text)          # refused as the side could know it: nothing applied
        if trial.refused is not None:
            _put(game, side, dict(e, blocks=[], applying=None))
            return {"side": side, "status": "refused", "text": text, "sub": None, "dropped": blocks,
                    "why": str(trial.refused)}
        seq, head = game.head()
        _put(game, side, dict(e, applying={"seq": seq, "head": head}))
        staging.pause("held-marked")
        sub = submit(side, text)
        staging.pause("held-applied")
        if sub.refused is not None:             # refused on what the check could not see (a roll, a secret)
            _put(game, side, dict(e, blocks=[], applying=None))
            return {"side": side, "status": "partly applied" if sub.applied else "refused", "text": text,
                    "sub": sub, "dropped": blocks, "why": str(sub.refused)}
        _put(game, side, dict(e, blocks=blocks[1:], applying=None))
        return {"side": side, "status": "applied", "text": text, "sub": sub, "why": "", "dropped": []}


def notes(game, results: list[dict]) -> dict[str, str]:
    """What each side whose held blocks were taken is told (its own eyes only)."""
    out: dict[str, list[str]] = {}
    for r in results:
        side = r["side"]
        if r["status"] in ("applied", "recovered"):
            out.setdefault(side, []).append(f"Your held orders were applied: {shown([r['text']])}.")
        elif r["status"] == "partly applied":
            done = [a.text for a in r["sub"].applied]
            out.setdefault(side, []).append(
                f"Your held orders were PARTLY APPLIED: {shown(done)} applied, then refused ({r['why']}); the "
                f"rest was dropped with what was held after it ({len(r['dropped'])} step(s) in all: "
                f"{shown(r['dropped'])}). The game waits for your orders as usual.")
        else:
            out.setdefault(side, []).append(
                f"Your held orders were NOT applied: {shown([r['text']])} ({r['why']}); they were dropped with "
                f"the rest held after them ({len(r['dropped'])} step(s) in all: {shown(r['dropped'])}). "
                "The game waits for your orders as usual.")
    return {s: " ".join(v) for s, v in out.items()}
