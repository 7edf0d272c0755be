"""Staged orders: a side's orders for its current step, held until it says
FINAL (or its deadline comes), as the Diplomacy judges hold a turn.

They are not events: nothing reaches the log until they are applied, and the
other sides never see them.  They live in the game folder in ``staged.json``
(mode 0600, written by ``log.write_private``), one entry per side: the text,
and the step (turn, phase) and head they were written at.  Staging again
replaces the whole entry.  Orders staged for a step the game has left are
dropped when they would be applied, with a note, never applied to a step
their author did not see.
"""
from __future__ import annotations

import json

from pbem.engine import EngineError
from pbem.log import private_lock, write_private

STAGED_NAME = "staged.json"


def _path(game):
    return game.dir / STAGED_NAME


def _load(game) -> dict:
    try:
        data = json.loads(_path(game).read_text())
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


def _save(game, data: dict) -> None:
    write_private(_path(game), json.dumps(data, indent=1, sort_keys=True).encode())


def step_of(st) -> str:
    """The step orders are staged for: the turn and the phase of the sequence."""
    return f"t{st.turn}.p{st.phase}"


def staged(game, side: str) -> dict | None:
    """``side``'s staged entry (text, step, head, at), or None."""
    e = _load(game).get(side)
    return e if isinstance(e, dict) and e.get("text") else None


class NotYourStep(EngineError):
    """Orders staged while the game waits for another side only: the step would
    end without them and they would be dropped, so they are not held at all."""


def stage(game, side: str, text: str, at: str = ""):
    """Check ``text`` against the current state and stage it for ``side``'s current
    step (replacing what was staged); returns the check (``Game.check``).
    Raises NotYourStep (nothing held) when the game waits for other sides only."""
    from pbem.engine import now_utc
    from pbem.views import awaiting_rows
    st = game.state()
    waits = awaiting_rows(game, st, side)          # what the side's own report says the game waits for
    if text.strip() and st.result is None and waits and all(a.get("side") != side for a in waits):
        who = ", ".join(dict.fromkeys(game.scenario.side_name(a["side"]) for a in waits if a.get("side")))
        raise NotYourStep(f"NOT STAGED: the game waits for {who} now, not for {game.scenario.side_name(side)}; "
                          "orders are held only for a step of yours (held now, they would be dropped when "
                          "this step ends). Send them, or a DRAFT, when the game waits for you.")
    sub = game.check(side, text)
    with private_lock(game.dir / "staged.lock"):
        data = _load(game)
        if text.strip():
            data[side] = {"text": text, "step": step_of(st), "turn": st.turn, "phase": st.phase,
                          "head": sub.head, "at": at or now_utc()}
        else:
            data.pop(side, None)
        _save(game, data)
    return sub


def discard(game, side: str) -> None:
    with private_lock(game.dir / "staged.lock"):
        data = _load(game)
        if data.pop(side, None) is not None:
            _save(game, data)


def take(game, side: str) -> tuple[str, str]:
    """Remove ``side``'s staged orders and return (text to apply, note).  Orders
    staged for another step than the game's current one are dropped:
    ('', why)."""
    e = staged(game, side)
    if e is None:
        return "", ""
    discard(game, side)
    st = game.state()
    if e.get("step") != step_of(st):
        return "", (f"the orders staged at turn {e.get('turn')} (seq of head {str(e.get('head', ''))[:12]}...) "
                    "were for a step the game has left; they were dropped, not applied")
    return e["text"], ""
