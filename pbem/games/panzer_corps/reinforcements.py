"""Reinforcements (10.0): entering in a reinforcement phase (Khar'kov), where a
unit may enter, and the units that wait.

A mixin of ``PanzerCorps`` (family.py): it calls the hooks declared there
(``due_reinforcements``, ``reinforcement_hexes``, ``on_entered``).  Face-down
units (Dunkerque) enter through the game's ``hidden_reinforcement`` hook, which
uses ``entry_hex_open``, ``_entry_refusal`` and ``_place_reinforcement``.
"""
from __future__ import annotations

from pbem.core import orders as O
from pbem.core.orders import OrderError
from pbem.core.ruleset import Ctx
from pbem.core.scenario import Scenario
from pbem.core.state import GameState, UnitState
from pbem.games.panzer_corps import events as E
from pbem.games.panzer_corps.common import between_enemies, verb_args
from pbem.games.panzer_corps.params import GameParams
from pbem.mechanics.movement import enemy_hexes, units_at


class Reinforcements:
    p: GameParams

    def _enter(self, ctx: Ctx, order: O.Order) -> None:
        """``enter UNIT HEX`` in a reinforcement phase (10.0(3))."""
        st, sc = ctx.state, ctx.sc
        args = verb_args(order)
        if len(args) != 2:
            raise OrderError("write: enter UNIT HEX", "10.0(3)")
        u = self.unit(ctx, args[0], ctx.side, on_map=False)
        h = args[1]
        if u.hex is not None:
            raise OrderError(f"{u.id} is already on the map")
        if u.id not in self.due_reinforcements(st, sc):
            d = sc.unit_defs[u.id]
            when = f"turn {d.entry_turn}" if d.entry_turn else "set-up"
            raise OrderError(f"{u.id} is not a reinforcement of this turn (it is due on {when})", "10.0(1)")
        legal = self.reinforcement_hexes(st, sc, u)
        if h not in legal:
            raise OrderError(self._entry_refusal(st, sc, u, h) + (f"; legal now: {' '.join(legal)}" if legal
                                                                  else "; no hex is open to it now"), "10.0(4)")
        self._place_reinforcement(ctx, u, h, "10.0(3)")

    def _entry_refusal(self, st: GameState, sc: Scenario, u: UnitState, h: str) -> str:
        """Why ``u`` may not enter in h (10.0(4))."""
        if not sc.board.grid.contains(h):
            return f"{h} is not on the map"
        occupied = units_at(st).get(h, [])
        if any(o.side != u.side for o in occupied):
            return f"{h} holds an enemy unit"
        if not self.room(st, u.side, h, u.id):
            return f"{h} is full: stacking limits apply to reinforcements (10.0(4))"
        if between_enemies(sc.board, h, enemy_hexes(st, u.side)):
            return f"{h} lies between two enemy units (10.0(4))"
        return f"{h} is not an entry hex of {u.id}"

    def entry_hex_open(self, st: GameState, sc: Scenario, u: UnitState, h: str) -> bool:
        """Stacking applies, no enemy in it, not between two enemy units (10.0(4))."""
        return self.entry_hexes_open(st, sc, u)(h)

    def entry_hexes_open(self, st: GameState, sc: Scenario, u: UnitState):
        """``entry_hex_open`` for many hexes of one state: who stands where is found once."""
        occupied = units_at(st)
        enemies = {x for x, us in occupied.items() if any(o.side != u.side for o in us)}
        terrain, board = sc.terrain, sc.board

        def open_to(h: str) -> bool:
            t = terrain.get(board.terrain.get(h, ""))
            if t is None or t.impassable:
                return False
            if h in enemies:
                return False
            if not self.room_at(occupied, u.side, h, u.id):
                return False
            return not between_enemies(board, h, enemies)
        return open_to

    def _place_reinforcement(self, ctx: Ctx, u: UnitState, h: str, rule: str) -> None:
        """``u`` enters in h: pinned for the turn if h is in an enemy ZOC (10.0(4)); the MP
        entering costs (Dunkerque 10.0(5))."""
        st, sc = ctx.state, ctx.sc
        pinned = h in self.zoc_against(st, sc, u.side)
        ctx.emit(E.ReinforcementEntered(unit=u.id, hex=h, mp=self.p.reinforcement_mp, pinned=pinned, rule=rule))
        self.on_entered(ctx, u, [h], "reinforcement")

    def _close_reinforcements(self, ctx: Ctx) -> None:
        """The reinforcement phase ends: units not entered wait, by choice (10.0(2)) or
        for want of an open hex (10.0(4))."""
        st, sc = ctx.state, ctx.sc
        due = self.due_reinforcements(st, sc)
        forced = [uid for uid in due if not self.reinforcement_hexes(st, sc, st.units[uid])]
        chosen = [uid for uid in due if uid not in forced]
        if chosen:
            ctx.emit(E.ReinforcementDelayed(units=chosen, count=len(chosen), rule="10.0(2)"))
        if forced:
            ctx.emit(E.ReinforcementDelayed(units=forced, count=len(forced), forced=True, rule="10.0(4)"))
