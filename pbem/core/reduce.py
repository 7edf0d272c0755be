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


def _units_of(v) -> list[str]:
    """``events.moved_units`` of a field's value (a unit, or a list of units)."""
    if isinstance(v, str):
        return [v] if v else []
    return [x for x in (v or []) if x]


def _board_step(m: E.Motion) -> Callable[[GameState, E.Event, bool], bool]:
    """``board_effect`` for the events of one declared motion ``m``, its fields read
    once (the same effect: tests/test_perf_replay.py checks it against the plain code)."""
    uf, pf, hf = m.unit, m.path, m.hex
    if m.kind == "eliminated":
        def eliminated(st: GameState, ev: E.Event, eliminated_stay: bool) -> bool:
            units = st.units
            for uid in _units_of(getattr(ev, uf, None)):
                u = units[uid]
                u.eliminated = True
                if not eliminated_stay:
                    u.hex = None
            return True
        return eliminated
    off = m.kind == "off"
    moves = m.kind == "move"

    def board(st: GameState, ev: E.Event, eliminated_stay: bool) -> bool:
        if off:                                 # moved_to: [] and moved_where: off the map
            end = None
        elif pf:
            path = [h for h in getattr(ev, pf, None) or [] if h]
            if path:
                end = path[-1]
            elif hf:
                end = None
            else:
                return True                     # an empty path: nobody moves
        elif hf:
            end = getattr(ev, hf, "") or None
        else:
            return True
        units = st.units
        for uid in _units_of(getattr(ev, uf, None)):
            u = units[uid]
            u.hex = end
            if moves and end is not None:
                u.moved = True
        return True
    return board


def _step_of(cls: type) -> Callable[[GameState, E.Event, bool], bool] | None:
    """``reduce_core`` for the events of type ``cls``: None when the core does nothing
    with them, else a function doing what ``reduce_core`` does and answering the same."""
    rolls = hasattr(cls, E.DICE_FIELD)
    m = cls.motion
    effect = _board_step(m) if m is not None and m.core else None
    core = None if effect is not None else CORE.get(cls)
    if core is not None:
        def effect(st: GameState, ev: E.Event, eliminated_stay: bool) -> bool:
            core(st, ev)
            return True
    if not rolls:
        return effect
    field = E.DICE_FIELD

    def with_dice(st: GameState, ev: E.Event, eliminated_stay: bool) -> bool:
        n = getattr(ev, field, None)
        if n:
            st.scripted_pos += len(n)
        return effect(st, ev, eliminated_stay) if effect is not None else False
    return with_dice


class _Steps(dict):
    def __missing__(self, cls: type):
        step = self[cls] = _step_of(cls)
        return step


STEPS: dict[type, Callable[[GameState, E.Event, bool], bool] | None] = _Steps()
"""The core's part of each event type, made on first use: ``STEPS[type(ev)]`` is None when
the core does nothing with such an event, else ``step(st, ev, eliminated_stay)``, which does
what ``reduce_core`` does (the dice count, the board effect or the ``CORE`` reducer) and
returns True for a core event.  An event's class, its ``motion`` and ``CORE`` never change
once a type exists, so a type's step is made once (replay asks for it at every event)."""


def reduce_core(st: GameState, ev: E.Event, eliminated_stay: bool = False) -> bool:
    """Apply what is common to every game; True when ``ev`` is a core event (a board
    event whose motion the core applies included).  ``eliminated_stay``: board_effect.
    The work is the event type's step (``STEPS``), made once per type."""
    step = STEPS[ev.__class__]
    return step is not None and step(st, ev, eliminated_stay)


def no_reducer(game: str, ev: E.Event) -> None:
    """A game's reducer met an event it does not know: fine for a core event, else a bug."""
    if type(ev) not in CORE and not (ev.motion is not None and ev.motion.core):
        raise ValueError(f"{game}: no reducer for {type(ev).__name__}")


class Handlers(dict):
    """A game's reducers by event type (its ``REDUCERS``) for a ``reduce`` called at every
    event: ``handlers[type(ev)]`` is the type's reducer, None for a core event the game adds
    nothing to, and an unknown game event raises as ``no_reducer`` does.  A type met for the
    first time is looked up once (an event's class, its ``motion`` and ``CORE`` never change)."""

    def __init__(self, game: str, reducers: dict):
        super().__init__(reducers)
        self.game = game

    def __missing__(self, cls: type):
        if cls not in CORE and not (cls.motion is not None and cls.motion.core):
            raise ValueError(f"{self.game}: no reducer for {cls.__name__}")
        self[cls] = None
        return None
