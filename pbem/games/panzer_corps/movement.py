"""Movement (8.0), zones of control (6.x) and stacking room (7.x) of the family.

A mixin of ``PanzerCorps`` (family.py): it calls the hooks declared there
(``entry_forbidden``, ``zoc_blocked``, ``break_off``, ``on_entered``).  The
generic parts (step costs, path checks, ZOCs) are pbem.mechanics; the rule
numbers are here.
"""
from __future__ import annotations

from pbem.core import orders as O
from pbem.core.orders import OrderError
from pbem.core.ruleset import Ctx
from pbem.core.scenario import Scenario
from pbem.core.state import GameState, UnitState
from pbem.games.panzer_corps import events as E
from pbem.games.panzer_corps.params import GameParams
from pbem.mechanics import movement as M
from pbem.mechanics.zoc import enemy_zoc

# The rule each check of a movement path enforces (pbem.mechanics.movement.check_path):
# a path hex by hex within the MA (8.2), stopping in an EZOC (6.1), stacking at its end (7.x).
PATH_RULES = {
    M.PathProblem.OFF_MAP: "8.1(5)",
    M.PathProblem.NOT_ADJACENT: "8.2(3)",
    M.PathProblem.ENEMY: "7.2",
    M.PathProblem.PROHIBITED: "8.3",
    M.PathProblem.OVER_ALLOWANCE: "8.2(1)",
    M.PathProblem.ZOC_TO_ZOC: "6.1",
    M.PathProblem.ZOC_STOP: "6.1",
    M.PathProblem.END: "7.1",
}


class Movement:
    p: GameParams

    def movement_allowance(self, st: GameState, u: UnitState) -> int:
        if st.turn == 1 and u.side == self.p.first_turn_halved:
            return u.ma // 2                 # 8.4 (fractions dropped: our reading)
        if self.p.reinforcement_mp and u.entered_turn == st.turn:
            return max(0, u.ma - self.p.reinforcement_mp)   # Dunkerque 10.0(5)
        return u.ma

    def step_cost(self, sc: Scenario, a: str, b: str) -> int | None:
        """MP to step from a into adjacent b; None if b's terrain may not be entered (8.3).
        Along a line feature its fixed cost (Khar'kov 8.3(5): whatever the terrain or river);
        El Alamein's roads cost the terrain under them (8.3(7)); hexside costs 8.3(3)/(4)."""
        return M.step_cost(sc.board, sc.terrain, a, b, hexside_costs=self.p.hexside_costs,
                           line_features=self.p.line_features, lines_ignore_hexsides=self.p.lines_ignore_hexsides)

    def crossing_block(self, st: GameState, sc: Scenario, u: UnitState, a: str, b: str) -> tuple[str, str] | None:
        """Why ``u`` may not step from a into b (beyond terrain and enemies), or None."""
        if self.p.blocking_hexsides:
            feats = sc.board.side_features(a, b) & self.p.blocking_hexsides
            if feats:
                return f"{u.id} may not cross the {sorted(feats)[0]} between {a} and {b}", "8.3(3)"
        return self.entry_forbidden(st, sc, u, b)

    def can_step(self, st: GameState, sc: Scenario, u: UnitState, a: str, b: str) -> bool:
        return self.step_cost(sc, a, b) is not None and self.crossing_block(st, sc, u, a, b) is None

    def room(self, st: GameState, side: str, h: str, moving: str = "") -> bool:
        """``side`` may have one more unit in h (7.0)."""
        here = [u for u in M.units_at(st).get(h, []) if u.side == side and u.id != moving]
        return len(here) < self.p.stacking[side]

    def zoc_against(self, st: GameState, sc: Scenario, side: str) -> set[str]:
        """Hexes in an enemy ZOC for ``side``'s units (6.0; disrupted units have none, 6.3, 9.7(2);
        not across what ``zoc_blocked`` says, 6.4)."""
        enemy = next((s for s in self.p.stacking if s != side), "")
        return enemy_zoc(st, sc.board, side, blocked=self.zoc_blocked(sc, enemy))

    def _full_message(self, st: GameState, side: str, h: str) -> str:
        limit = self.p.stacking[side]
        if limit == 1:
            return f"{h} already holds a friendly unit; no stacking at the end of a move"
        return f"{h} already holds {limit} friendly units, the stacking limit (7.0)"

    def _move(self, ctx: Ctx, order: O.Move) -> None:
        st, sc = ctx.state, ctx.sc
        u = self.unit(ctx, order.unit, ctx.side)
        if u.moved:
            raise OrderError(f"{u.id} has already moved this phase", "8.1(2)")
        if u.disrupted:
            raise OrderError(f"{u.id} is disrupted and may not move", "9.7(2)")
        if u.pinned_turn == st.turn:
            raise OrderError(f"{u.id} entered in an enemy zone of control this turn and may not move", "10.0(4)")
        ma = self.movement_allowance(st, u)
        ezoc = self.zoc_against(st, sc, u.side)

        def can_end(h: str) -> str | None:
            if not self.room(st, u.side, h, u.id):
                return self._full_message(st, u.side, h)
            return None

        def cost(a: str, b: str) -> int | None:
            c = self.step_cost(sc, a, b)
            if c is None:
                return None
            why = self.crossing_block(st, sc, u, a, b)
            if why:
                raise OrderError(*why)
            return c

        # 7.1 / 4.2(2): a unit breaking off ends its move off the map, so the
        # edge hex it leaves from may hold a friendly unit (it only passes through).
        try:
            mp = M.check_path(st, sc.board, u, order.path, ma=ma, ezoc=ezoc, step_cost=cost,
                              can_end=(lambda h: None) if order.off else can_end)
        except M.PathProblem as e:
            raise OrderError(e.reason, PATH_RULES[e.kind]) from None
        if order.off:
            self.break_off(ctx, u, order.path, mp, ma, ezoc)
            return
        if not order.path:
            raise OrderError("a move needs at least one hex")
        ctx.emit(E.UnitMoved(unit=u.id, path=list(order.path), mp=mp, ma=ma))
        self.on_entered(ctx, u, list(order.path), "move")
