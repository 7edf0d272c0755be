"""Staged orders: a side's orders for its current step, held until it says
FINAL (or its deadline comes), as the Diplomacy judges hold a turn.

They are not events: nothing reaches the log until they are applied, and the
other sides never see them.  They live in the game folder in ``staged.json``
(mode 0600, written by ``log.write_private``), one entry per side: the text,
and the step (turn, phase) and head they were written at.  Staging again
replaces the whole entry.  Orders staged for a step the game has left are
dropped when they would be applied, with a note, never applied to a step
their author did not see.

The same file holds, under the key ``held``, each side's orders written ahead
after THEN lines (pbem.ahead), as private as these.

Applying them (``final``: FINAL, `pbem order --final`, the deadline) happens
exactly once, whatever runs at the same time and wherever a process dies:
under the log's lock the entry is marked with the head it is applied at,
then its orders go into the log, and only then is the entry removed.  An
entry found marked is checked against the log: when the line after the
marked head is its first order (by its side), it was applied before a crash
and is removed without being applied again; otherwise it is applied now.
"""
from __future__ import annotations

import hashlib
import json
import os
import time

from pbem.engine import EngineError

STAGED_NAME = "staged.json"


def _load(game) -> dict:
    try:
        data = json.loads(game.store.read(STAGED_NAME) or b"{}")
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


def _save(game, data: dict) -> None:
    game.store.write(STAGED_NAME, json.dumps(data, indent=1, sort_keys=True).encode())


def _locked(game):
    return game.store.doc_lock(STAGED_NAME)          # staged.lock beside the file (files)


def step_of(game, st) -> str:
    """The step orders are staged for (core/turn.py ``step_id``): the turn, the phase of the
    sequence and the interrupt that is the step, if one is."""
    from pbem.core.turn import step_id
    return step_id(st, game.rules, game.scenario)


def staged(game, side: str) -> dict | None:
    """``side``'s staged entry (text, step, head, at), or None."""
    e = _load(game).get(side)
    return e if isinstance(e, dict) and e.get("text") else None


class NotYourStep(EngineError):
    """Orders staged while the game waits for another side only: the step would
    end without them and they would be dropped, so they are not held at all."""


def stage(game, side: str, text: str, at: str = "", trial=None):
    """Check ``text`` against the current state and stage it for ``side``'s current
    step (replacing what was staged); returns the check (``Game.check``).
    Raises NotYourStep (nothing held) when the game waits for other sides only.
    ``trial``: the caller's ``game.check(side, text)``, used when it was made at the
    head the game is still at (else the text is checked again)."""
    from pbem.engine import now_utc
    st = game.state()
    why = not_your_step(game, side, text, st)
    if why:
        raise NotYourStep(why)
    sub = trial if trial is not None and trial.head and trial.head == game.head()[1] else game.check(side, text)
    with _locked(game):
        data = _load(game)
        if text.strip():
            data[side] = {"text": text, "step": step_of(game, st), "turn": st.turn, "phase": st.phase,
                          "head": sub.head, "at": at or now_utc()}
        else:
            data.pop(side, None)
        _save(game, data)
    return sub


def not_your_step(game, side: str, text: str, st=None) -> str:
    """Why ``text`` cannot be staged for ``side`` now ('' when it can): the game waits
    for other sides only (what the side's own report says it waits for)."""
    from pbem.views import turn_of
    st = game.state() if st is None else st
    waits = turn_of(game, st).rows(side)           # what the side's own report says the game waits for
    if text.strip() and st.result is None and waits and all(a.get("side") != side for a in waits):
        who = ", ".join(dict.fromkeys(game.scenario.side_name(a["side"]) for a in waits if a.get("side")))
        return (f"NOT STAGED: the game waits for {who} now, not for {game.scenario.side_name(side)}; "
                "orders are held only for a step of yours (held now, they would be dropped when "
                "this step ends). Send them, or a DRAFT, when the game waits for you.")
    return ""


def discard(game, side: str) -> None:
    with _locked(game):
        data = _load(game)
        if data.pop(side, None) is not None:
            _save(game, data)


def ident(entry: dict) -> str:
    """What names one staged entry (a new stage of the same text is another one):
    the head it was staged against, when, and its text."""
    data = f"{entry.get('head', '')}\n{entry.get('at', '')}\n{entry.get('text', '')}"
    return hashlib.sha256(data.encode("utf-8", "replace")).hexdigest()[:32]


def pause(point: str) -> None:
    """A test hook: with PBEM_TEST_PAUSE=POINT:FILE the process creates FILE at
    POINT and sleeps there (for a test to kill it with SIGKILL at that point)."""
    want = os.environ.get("PBEM_TEST_PAUSE", "")
    name, sep, flag = want.partition(":")
    if sep and name == point:
        with open(flag, "w") as f:
            f.write(str(os.getpid()))
        time.sleep(120)


def _first_order(game, text: str) -> str | None:
    from pbem.core import orders as O
    try:
        lines = O.parse(text, game.rules.verbs)
    except O.OrderError:
        return None
    return lines[0].text if lines else None


def _applied(game, side: str, entry: dict) -> bool:
    """Whether the log already holds ``entry``'s orders: the line right after the
    head it was marked at is its first order, given by ``side``."""
    mark = entry.get("applying") or {}
    seq, head = mark.get("seq"), mark.get("head")
    first = _first_order(game, entry.get("text", ""))
    if not isinstance(seq, int) or not head or first is None or game.head()[0] <= seq:
        return False
    for line in game.log.iter_lines_reversed():
        env = json.loads(line)
        if env.get("seq", -1) > seq + 1:
            continue
        body = env.get("body") if isinstance(env.get("body"), dict) else {}
        return (env.get("seq") == seq + 1 and env.get("prev") == head and env.get("kind") == "OrderGiven"
                and body.get("side") == side and body.get("text") == first)
    return False


def _drop(game, side: str, entry: dict) -> None:
    """Remove ``side``'s entry if it is still ``entry`` (not staged anew since)."""
    with _locked(game):
        data = _load(game)
        now = data.get(side)
        if isinstance(now, dict) and ident(now) == ident(entry):
            del data[side]
            _save(game, data)


def _mark(game, side: str, entry: dict, seq: int, head: str) -> dict:
    with _locked(game):
        data = _load(game)
        now = data.get(side)
        if not isinstance(now, dict) or ident(now) != ident(entry):
            return {}
        now["applying"] = {"seq": seq, "head": head}
        _save(game, data)
        return now


ALREADY = "already"        # final(): the staged orders were in the log already (a crash after applying them)
UNDER = ("the orders staged are for the step under the decision the game asks of you now; they stay staged, "
         "to be applied with FINAL (or at the deadline) when the game is back in that step: answer this first")


def under(staged_step, now: str) -> bool:
    """Whether orders staged for ``staged_step`` are for the step beneath the interrupt the
    game is in now ("t3.p2" under "t3.p2.retreat"): the interrupt ends and that step resumes,
    so they are kept, neither applied now nor dropped (core/turn.py ``step_id``)."""
    return isinstance(staged_step, str) and now.startswith(staged_step + ".")


def final(game, side: str, apply, want: str = ""):
    """Apply ``side``'s staged orders once: ``apply(text)`` submits them (and returns
    what the caller needs).  Returns (its result, '') or (None, why nothing was
    applied: '' when nothing is staged, ``ALREADY``, or a sentence).  ``want``: only
    the entry of this ``ident`` (the one a host job planned to apply).

    All under the log's lock: the entry is marked with the head it is applied at,
    applied, and removed only once its orders are in the log."""
    with game.log.lock():
        e = staged(game, side)
        if e is None or (want and ident(e) != want):
            return None, ""
        if e.get("applying") and _applied(game, side, e):
            _drop(game, side, e)
            return None, ALREADY
        st = game.state()
        now = step_of(game, st)
        if under(e.get("step"), now):
            return None, UNDER
        if e.get("step") != now:
            _drop(game, side, e)
            return None, (f"the orders staged at turn {e.get('turn')} (seq of head {str(e.get('head', ''))[:12]}...) "
                          "were for a step the game has left; they were dropped, not applied")
        seq, head = game.head()
        e = _mark(game, side, e, seq, head)
        if not e:
            return None, ""
        pause("final-marked")
        result = apply(e["text"])
        pause("final-applied")
        _drop(game, side, e)
        return result, ""
