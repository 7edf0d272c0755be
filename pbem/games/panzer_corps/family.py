"""Panzer Corps family (panzer-corps.txt): El Alamein, Dunkerque, Khar'kov and
Operation Compass.

One engine for the four games.  What the rulebook sets per game is a value in
``GameParams`` (params.py); what a game adds on top (set-up steps, hidden or
timed reinforcements, victory) is a hook of ``PanzerCorps`` below that a game
module overrides:

    el_alamein.py        break-off and objective hexes (4.1, 4.2)
    dunkerque.py         the face-down "R" draw, connecting lines, evacuation (4.x, 10.0)
    kharkov.py           Soviet set-up, reinforcement phases, city control, railroads (3.0, 4.x, 10.0)
    operation_compass.py Italian set-up, naval bombardment, British entry, footholds (3.x, 4.x)

The engine itself, by concern (``PanzerCorps`` is the Ruleset and mixes them in):

    family.py            the hooks, orders by phase (5.0), the end of a phase
    state.py             the family's typed state (PanzerCorpsState)
    reducer.py           its part of applying events, by event type
    movement.py          movement, ZOCs, stacking room (6.x, 7.x, 8.x)
    combat.py            declarations, odds, results, retreats, exchanges, advances (9.x, 7.3)
    reinforcements.py    entering and waiting reinforcements (10.0)
    decisions.py         what the game waits for, answers to decisions, deadline defaults
    lint.py              scenario checks the family shares
    params.py, common.py, events.py, schema.py

Rule numbers refer to the section of the game named in the parameters; where
the games number a rule differently the number comes from the parameters.
"""
from __future__ import annotations

from pbem.core import orders as O
from pbem.core.orders import OrderError
from pbem.core.ruleset import Ctx, Ruleset, find_unit
from pbem.core.scenario import Scenario
from pbem.core.state import GameState, UnitState
from pbem.games.panzer_corps import events as E
from pbem.games.panzer_corps import reducer
from pbem.games.panzer_corps.combat import Combat
from pbem.games.panzer_corps.decisions import Decisions
from pbem.games.panzer_corps.lint import lint_family
from pbem.games.panzer_corps.movement import Movement
from pbem.games.panzer_corps.params import GameParams
from pbem.games.panzer_corps.reinforcements import Reinforcements
from pbem.games.panzer_corps.state import PanzerCorpsState
from pbem.games.panzer_corps.steps import forms_of, step_name, steps_of
from pbem.games.panzer_corps.words import describe
from pbem.mechanics.zoc import ZocBlock, hexsides_block


class PanzerCorps(Decisions, Combat, Reinforcements, Movement, Ruleset):
    """The family engine; each game is a subclass that sets ``params`` (its values
    of the shared rules) and overrides the hooks below for what it adds."""
    # set-up (place), reinforcements (enter | delay), EX and stacking losses (lose), naval
    # bombardment (bombard), the combat to resolve next (resolve, 9.1(5))
    verbs = frozenset({"place", "enter", "delay", "lose", "bombard", "resolve"})
    defaults_help = (                       # mailed to the players: what a missed deadline does
        "no further moves or attacks this phase (in El Alamein and Dunkerque a hex over the stacking "
        "limit is first brought within it by the fewest moves of units that have not moved, units by "
        "id, the nearest hex with room, 7.1); the combats not yet resolved go in declaration order "
        "(9.1); "
        "a pending retreat takes the first legal path "
        "in the listed order; no advance; an EX or stacking loss takes the weakest unit(s); "
        "set-up places each unit in its first legal hex; the bombardment takes the strongest "
        "targets; face-down and timed reinforcements wait (10.0).")
    ruleset_version = "1"
    state_type = PanzerCorpsState
    params: GameParams

    def __init__(self):
        self.p = type(self).params
        self.game = self.p.game
        self.result_codes = self.p.result_codes
        # 7.0: where a hex holds more than one unit, so may a set-up hex (lint checks the limit)
        self.setup_stacking = max(self.p.stacking.values()) > 1
        # the turn (5.0, steps.py): the kernel's handle, awaiting and deadline defaults read them
        self.steps, self.interrupts = steps_of(self)
        self.forms = forms_of(self)            # the order forms: HELP and the set-up choices (core/forms.py)
        self._handlers = reducer.handlers(self.game)   # reduce: each event type's reducer found once

    step_name = staticmethod(step_name)        # movement, reinforcement, else combat (5.0)
    sequence_rule = "5.0"                      # the sequence of play: whose phase it is

    # ===================================================================
    # Hooks: a game module overrides what its rules add.
    # ===================================================================

    def setup_events(self, st: PanzerCorpsState, sc: Scenario) -> list[E.Event]:
        """Events after the first PhaseStarted at game creation (e.g. the first set-up decision)."""
        return []

    def waiting_label(self, sc: Scenario, uid: str) -> str:
        """Status of a unit that starts off the map."""
        return ""

    def initial_control(self, sc: Scenario) -> dict[str, str]:
        return {}

    def before_order(self, ctx: Ctx) -> None:
        """Runs before every rules order (Dunkerque's hidden draw at the first one)."""

    def on_phase_started(self, ctx: Ctx) -> None:
        """Runs after a PhaseStarted (reinforcement decisions, empty phases skipped)."""

    def on_entered(self, ctx: Ctx, u: UnitState, hexes: list[str], how: str) -> None:
        """A unit entered ``hexes`` (how: move, retreat, advance, reinforcement, set-up)."""

    def on_eliminated(self, ctx: Ctx, u: UnitState, rule: str) -> None:
        """A unit was eliminated (points)."""

    def victory_after_combat(self, ctx: Ctx, side: str) -> bool:
        """Checked at the end of ``side``'s combat phase; True if the game ended."""
        return False

    def game_over(self, ctx: Ctx) -> None:
        """The last turn is over: emit the victory determination and GameEnded."""
        raise NotImplementedError

    def break_off(self, ctx: Ctx, u: UnitState, path: list[str], mp: int, ma: int, ezoc: set[str]) -> None:
        """A move ending off the map (``move ... off``): refused unless the game allows it (El Alamein 4.2)."""
        raise OrderError("units may not leave the map", "8.1(5)")

    def entry_forbidden(self, st: GameState, sc: Scenario, u: UnitState, h: str) -> tuple[str, str] | None:
        """A hex ``u`` may never enter, with the reason and rule (Compass 3.2(3))."""
        return None

    def zoc_blocked(self, sc: Scenario, owner_side: str) -> ZocBlock | None:
        """Predicate (a, b) -> True if the ZOC of ``owner_side``'s unit in a does not reach b
        (by default: across a blocking hexside, 6.4)."""
        return hexsides_block(sc.board, self.p.blocking_hexsides)

    def setup_hexes(self, st: GameState, sc: Scenario, u: UnitState, kind: str) -> list[str]:
        """Legal set-up hexes for ``u`` in set-up step ``kind``."""
        return []

    def setup_answered(self, ctx: Ctx, kind: str) -> None:
        """A set-up step is complete: start the next one (or let play begin)."""

    def reinforcement_hexes(self, st: GameState, sc: Scenario, u: UnitState) -> list[str]:
        """Where a reinforcement may be placed now (10.0(3)/(4))."""
        return []

    def due_reinforcements(self, st: GameState, sc: Scenario) -> list[str]:
        """Units that may enter in this reinforcement phase."""
        return []

    def hidden_reinforcement(self, ctx: Ctx, order: O.Order) -> None:
        raise OrderError("this game has no face-down reinforcements")

    def lint_game(self, sc: Scenario) -> list[str]:
        return []

    def known_features(self) -> set[str]:
        return {"road", "battle_position"}

    def describe_decision(self, kind: str) -> str:
        return {"ex-loss": "which of its units to remove for the EX result",
                "stack-loss": "which units to remove to meet the stacking limit",
                "set-up": "where to set up its units", "entry": "where its units enter",
                "bombardment": "the targets of the naval bombardment",
                "reinforcement": "where its face-down reinforcements enter"}.get(kind, kind)

    # ===================================================================
    # Scenario data: every per-scenario value comes from the scenario file
    # ===================================================================

    @staticmethod
    def vic(sc: Scenario):
        """The scenario's ``[victory]``, typed by the game's schema (``scenario_schema``, where
        every key is required): the rules read it, never the raw table."""
        return sc.tables.victory

    @staticmethod
    def data(sc: Scenario):
        """The scenario's ``[game_data]``, as ``vic``."""
        return sc.tables.data

    # ===================================================================
    # The Ruleset contract
    # ===================================================================

    def new_state(self, sc: Scenario, game_id: str) -> PanzerCorpsState:
        st = PanzerCorpsState(game_id=game_id, scenario_id=sc.id, game=sc.game)
        for u in sc.units:
            st.units[u.id] = UnitState(id=u.id, side=u.side, hex=u.hex, strength=u.strength, ma=u.ma)
            if u.hex is None:
                st.units[u.id].waiting = self.waiting_label(sc, u.id)
        st.control = self.initial_control(sc)
        return st

    def initial_events(self, sc: Scenario) -> list[E.Event]:
        evs = super().initial_events(sc)
        st = self.new_state(sc, "")
        for ev in evs:
            self.apply(st, ev, sc)
        return evs + self.setup_events(st, sc)

    def reduce(self, st: PanzerCorpsState, ev: E.Event, sc: Scenario) -> None:
        """After the core reducer (pbem.core.reduce): only what this family adds (reducer.py:
        ``reduce``, its handler of each event type found once)."""
        fn = self._handlers[ev.__class__]
        if fn is not None:
            fn(st, ev)

    def lint(self, sc: Scenario) -> list[str]:
        return lint_family(self.p, self.known_features(), sc) + self.lint_game(sc)

    def describe_event(self, ev: E.Event, sc: Scenario, origin: str | None = None) -> str | None:
        if isinstance(ev, E.CombatChosen):
            where = sc.board.label(ev.target)
            if ev.in_order:
                return f"The remaining attacks are resolved in declaration order, from the attack on {where} " \
                       f"({self.p.declare_rule})."
            return f"The attacker resolves the attack on {where} next ({self.p.declare_rule})."
        return describe(ev, sc, origin)

    def known(self, k: PanzerCorpsState, state: PanzerCorpsState, sc: Scenario, viewer: str) -> None:
        k.sealed = {}                             # a check's view (core/known.py): the referee's notes are its own

    def redact(self, ev: E.Event, viewer: str) -> E.Event:
        if isinstance(ev, E.HiddenDraw):          # only the referee sees rolls and units (Dunkerque 10.0(2))
            return E.HiddenDraw(name=ev.name, slots=ev.slots)
        return ev

    # ===================================================================
    # Orders, by phase (5.0)
    # ===================================================================

    def _end_phase(self, ctx: Ctx, refuse: bool = True) -> None:
        """The phase is over: stacking after movement (7.1, 7.3), waiting reinforcements (10.0),
        recovery after combat (9.7(3)) and the game's victory check; then the next phase.
        ``refuse``: an over-full hex refuses the order that ends the phase (El Alamein,
        Dunkerque 7.1); after a stacking loss the phase simply goes on instead."""
        st, sc = ctx.state, ctx.sc
        ph = sc.sequence[st.phase]
        if ph.name == "movement" and self._stack_at_end(ctx, refuse):
            return
        if ph.name == "reinforcement":
            self._close_reinforcements(ctx)
        if ph.name == "combat":
            back = sorted(u.id for u in st.units.values() if u.side == ph.side and u.disrupted and not u.eliminated)
            if back:
                ctx.emit(E.UnitsRecovered(units=back))        # 9.7(3)
            if self.victory_after_combat(ctx, ph.side):
                return
        nxt = st.phase + 1
        turn = st.turn
        if nxt >= len(sc.sequence):
            if turn >= sc.turns:
                self.game_over(ctx)
                return
            nxt, turn = 0, turn + 1
        p = sc.sequence[nxt]
        ctx.emit(E.PhaseStarted(turn=turn, phase=nxt, side=p.side, name=p.name))
        self.on_phase_started(ctx)

    # ===================================================================
    # Units
    # ===================================================================

    def unit(self, ctx: Ctx, uid: str, side: str | None = None, on_map: bool = True) -> UnitState:
        return find_unit(ctx, uid, side, on_map=on_map)

    def is_tank(self, sc: Scenario, uid: str) -> bool:
        d = sc.unit_defs.get(uid)
        return d is not None and d.type in self.p.tank_types

    @staticmethod
    def eliminated(st: GameState, side: str) -> list[UnitState]:
        return [u for u in st.units.values() if u.side == side and u.eliminated]

    @staticmethod
    def on_map(st: GameState, side: str) -> list[UnitState]:
        return [u for u in st.units.values() if u.side == side and u.hex is not None and not u.eliminated]
