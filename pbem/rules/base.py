"""What every ruleset offers the engine, and the context rules run in.

Rules are pure: they read the state and the scenario, roll through the dice
source they are given, and emit events.  ``Ctx.emit`` applies each event to
the working state at once, so later steps of the same order see its effects.
"""
from __future__ import annotations

from typing import Protocol

from ..events import Event
from ..orders import Order, OrderError
from ..scenario import Scenario
from ..state import GameState


class DiceSource(Protocol):
    def roll(self, sides: int) -> int: ...


class Ctx:
    """One order being handled: the working state, the dice and the events so far."""

    def __init__(self, rules: "Ruleset", state: GameState, sc: Scenario, side: str, dice: DiceSource):
        self.rules = rules
        self.state = state
        self.sc = sc
        self.side = side
        self.dice = dice
        self.events: list[Event] = []

    def emit(self, ev: Event) -> None:
        self.events.append(ev)
        self.rules.apply(self.state, ev, self.sc)

    def refuse(self, message: str, rule: str = "") -> None:
        raise OrderError(message, rule)


class Ruleset:
    """Base of a game family's rules; subclasses override the hooks."""

    game = ""
    ruleset_version = "1"
    result_codes: frozenset[str] = frozenset()

    def initial_events(self, sc: Scenario) -> list[Event]:
        raise NotImplementedError

    def new_state(self, sc: Scenario, game_id: str) -> GameState:
        raise NotImplementedError

    def apply(self, state: GameState, ev: Event, sc: Scenario) -> None:
        raise NotImplementedError

    def handle(self, ctx: Ctx, order: Order) -> None:
        raise NotImplementedError

    def awaiting(self, state: GameState, sc: Scenario) -> list[dict]:
        raise NotImplementedError

    def lint(self, sc: Scenario) -> list[str]:
        return []
