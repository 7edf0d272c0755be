"""The one reducer for the core events: what every game's state does with them.

``Ruleset.apply`` runs this first and the game's own ``reduce`` after it, so a
game only adds what its rules add (its own phase resets, its secrets' meaning).
Board events: an event whose declared ``motion`` (events.Motion) says ``core``
moves its units here (``board_effect``: position, moved, off the map, eliminated).
Dice: every event that rolled keeps its rolls in a field named ``rolls``
(``events.DICE_FIELD``); the scripted-dice position advances by them here, for every game.
"""
from __future__ import annotations

import hashlib
from collections.abc import Callable

from pbem.core import events as E
from pbem.core.state import Decision, GameState, Result


def secret_commitment(salt: str, payload: str) -> str:
    """sha256 of the salt (hex text) followed by the payload (UTF-8)."""
    return hashlib.sha256((salt + payload).encode("utf-8")).hexdigest()


def _phase(st: GameState, ev: E.PhaseStarted) -> None:
    st.turn, st.phase = ev.turn, ev.phase
    st.decision = None


def _ended(st: GameState, ev: E.GameEnded) -> None:
    st.result = Result(winner=ev.winner, reason=ev.reason, rule=ev.rule)
    st.decision = None


def _seed(st: GameState, ev: E.SeedRevealed) -> None:
    st.seed = ev.seed


def _sealed(st: GameState, ev: E.SecretRecorded) -> None:
    st.secrets[f"{ev.side}:{ev.name}"] = ev.commitment
    if st.chain is not None:                    # scheme 2: the owner's secret-roll seed waits for it
        st.chain.sealed_turn[f"{ev.side}:{ev.name}"] = st.turn


def _opened(st: GameState, ev: E.SecretRevealed) -> None:
    if st.chain is not None:
        st.chain.sealed_turn.pop(f"{ev.side}:{ev.name}", None)
    want = st.secrets.pop(f"{ev.side}:{ev.name}", None)
    if want is not None and secret_commitment(ev.salt, ev.payload) != want:
        raise ValueError(f"the opened secret {ev.name} does not match its commitment")


def _decision(st: GameState, ev: E.DecisionRequired) -> None:
    st.decision = Decision(side=ev.side, kind=ev.decision, combat=ev.combat, units=list(ev.units),
                           distance=ev.distance, options=[list(o) for o in ev.options], rule=ev.rule)


def _key(st: GameState, ev: E.KeyRegistered) -> None:
    st.keys[ev.side] = ev.key


def _chain(st: GameState, ev: E.Event) -> None:
    from pbem.core import chain
    if st.chain is None:
        raise ValueError(f"{E.kind_of(ev)} in a game of dice scheme 1")
    if isinstance(ev, E.TurnDiceRevealed):
        chain.apply_reveal(st.chain, ev)
    else:
        chain.apply_entropy(st.chain, ev)


def _nothing(st: GameState, ev: E.Event) -> None:
    """The order itself changes nothing: its effects are the events after it."""


CORE: dict[type, Callable[[GameState, E.Event], None]] = {
    E.PhaseStarted: _phase, E.GameEnded: _ended, E.SeedRevealed: _seed, E.SecretRecorded: _sealed,
    E.SecretRevealed: _opened, E.DecisionRequired: _decision, E.OrderGiven: _nothing, E.PressSent: _nothing,
    E.KeyRegistered: _key, E.TurnDiceRevealed: _chain, E.EntropyCommitted: _chain, E.EntropyRevealed: _chain,
    E.EntropyStage: _chain, E.DeadlinesChanged: _nothing,
}


def board_effect(st: GameState, ev: E.Event, eliminated_stay: bool = False) -> None:
    """The core effect of a board event (its ``motion`` declared with ``core``): each unit
    it names stands on the last hex of its path (a "move" also marks it moved), on its one
    hex (off the map when that is ""), off the map ("off"), or is eliminated and off the
    map ("eliminated"; it keeps its hex when ``eliminated_stay``: Ruleset.eliminated_stay)."""
    m = ev.motion
    units = E.moved_units(ev)
    if m.kind == "eliminated":
        for uid in units:
            u = st.units[uid]
            u.eliminated = True
            if not eliminated_stay:
                u.hex = None
        return
    where = E.moved_where(ev)
    if where is None:                          # an empty path: nobody moves
        return
    end = where[1]
    for uid in units:
        u = st.units[uid]
        u.hex = end
        if m.kind == "move" and end is not None:
            u.moved = True


def dice_used(ev: E.Event) -> int:
    """How many dice ``ev`` rolled: the length of its ``rolls`` (events.DICE_FIELD; read here
    without the list ``dice_of`` copies: replay asks it of every event)."""
    rolls = getattr(ev, E.DICE_FIELD, None)
    return len(rolls) if rolls else 0


def reduce_core(st: GameState, ev: E.Event, eliminated_stay: bool = False) -> bool:
    """Apply what is common to every game; True when ``ev`` is a core event (a board
    event whose motion the core applies included).  ``eliminated_stay``: board_effect."""
    n = dice_used(ev)
    if n:
        st.scripted_pos += n
    m = ev.motion
    if m is not None and m.core:
        board_effect(st, ev, eliminated_stay)
        return True
    core = CORE.get(type(ev))
    if core is None:
        return False
    core(st, ev)
    return True


def no_reducer(game: str, ev: E.Event) -> None:
    """A game's reducer met an event it does not know: fine for a core event, else a bug."""
    if type(ev) not in CORE and not (ev.motion is not None and ev.motion.core):
        raise ValueError(f"{game}: no reducer for {type(ev).__name__}")
