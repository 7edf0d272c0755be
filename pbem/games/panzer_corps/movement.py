"""Movement (8.0), zones of control (6.x) and stacking room (7.x) of the family.

A mixin of ``PanzerCorps`` (family.py): it calls the hooks declared there
(``entry_forbidden``, ``zoc_blocked``, ``break_off``, ``on_entered``).  The
generic parts (step costs, path checks, ZOCs) are pbem.mechanics; the rule
numbers are here.
"""
from __future__ import annotations

import heapq

from pbem.core import orders as O
from pbem.core.orders import OrderError
from pbem.core.ruleset import Ctx
from pbem.core.scenario import Scenario, once_per_scenario
from pbem.core.state import GameState, UnitState, copy_state
from pbem.games.panzer_corps import events as E
from pbem.games.panzer_corps.params import GameParams
from pbem.mechanics import movement as M
from pbem.mechanics.zoc import enemy_zoc

# The rule each check of a movement path enforces (pbem.mechanics.movement.check_path):
# a path hex by hex within the MA (8.2), stopping in an EZOC (6.1); the end hex (7.1, see _move).
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


_ZOCS: dict = {}                   # per scenario: (side, hexes of the enemy units with a ZOC) -> the ZOC


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
        here = sum(1 for u in st.units.values()
                   if u.hex == h and not u.eliminated and u.side == side and u.id != moving)
        return here < self.p.stacking[side]

    def room_at(self, occupied: dict[str, list[UnitState]], side: str, h: str, moving: str = "") -> bool:
        """``room`` read from ``occupied`` (``units_at`` of the state: on the map, not eliminated),
        for a caller that asks it of many hexes of one state."""
        here = sum(1 for u in occupied.get(h, ()) if u.side == side and u.id != moving)
        return here < self.p.stacking[side]

    def zoc_against(self, st: GameState, sc: Scenario, side: str) -> frozenset[str]:
        """Hexes in an enemy ZOC for ``side``'s units (6.0; disrupted units have none, 6.3, 9.7(2);
        not across what ``zoc_blocked`` says, 6.4).

        The answer depends on the hexes of the enemy units that have a ZOC alone (``zoc_blocked``
        is the board's): it is kept per scenario by those hexes, so the moves of one side's
        movement phase, which leave the enemy where it stands, find it once."""
        key = (side, tuple(u.hex for u in st.units.values()
                           if u.side != side and u.hex is not None and not u.eliminated and not u.disrupted))
        memo = once_per_scenario(_ZOCS, sc, lambda sc: {})
        got = memo.get(key)
        if got is None:
            if len(memo) >= 512:
                memo.clear()
            enemy = next((s for s in self.p.stacking if s != side), "")
            got = memo[key] = frozenset(enemy_zoc(st, sc.board, side, blocked=self.zoc_blocked(sc, enemy)))
        return got

    # --- stacking at the end of the movement phase (7.0, 7.1, 7.3) ---------------------

    def reach(self, st: GameState, sc: Scenario, u: UnitState) -> dict[str, list[str]]:
        """Every hex ``u`` could move to now, with a cheapest path (8.2, 8.3, 6.1, 7.2): the
        same checks as a move, friendly units passed freely (7.1).  Ties go to the grid's
        neighbour order, so the answer is deterministic."""
        ma = self.movement_allowance(st, u)
        ezoc = self.zoc_against(st, sc, u.side)
        enemy = M.enemy_hexes(st, u.side)
        start = u.hex
        assert start is not None
        grid = sc.board.grid
        best = {start: 0}
        paths: dict[str, list[str]] = {start: []}
        heap = [(0, 0, start)]
        tick = 0
        while heap:
            mp, _, h = heapq.heappop(heap)
            if mp > best[h] or (h != start and h in ezoc):      # 6.1: a unit entering an EZOC stops
                continue
            for n in grid.neighbours(h):
                if n in enemy or (h == start and start in ezoc and n in ezoc):   # 7.2; 6.1 EZOC to EZOC
                    continue
                c = self.step_cost(sc, h, n)
                if c is None or mp + c > ma or self.crossing_block(st, sc, u, h, n) is not None:
                    continue
                if mp + c < best.get(n, ma + 1):
                    best[n] = mp + c
                    paths[n] = paths[h] + [n]
                    tick += 1
                    heapq.heappush(heap, (mp + c, tick, n))
        del paths[start]
        return paths

    def can_still_move(self, st: GameState, u: UnitState) -> bool:
        """``u`` may still move this phase (8.1(2), 9.7(2), 10.0(4))."""
        return not (u.moved or u.disrupted or u.eliminated or u.hex is None or u.pinned_turn == st.turn)

    def over_stacked(self, st: GameState) -> list[tuple[str, str, list[UnitState]]]:
        """(hex, side, units) of every hex holding more of a side's units than 7.0 allows."""
        return M.stack_violations(st, self.p.stacking)

    def _stack_words(self, side: str) -> str:
        limit = self.p.stacking[side]
        return "one unit a hex" if limit == 1 else f"{limit} units a hex"

    def room_chain(self, st: GameState, sc: Scenario, h: str, side: str) -> list[tuple[str, list[str]]] | None:
        """Moves that take one unit out of the over-full hex h before the phase ends (7.1): a
        unit there that may still move goes to a hex with room, or to a hex whose own unit
        that may still move goes on to one with room, and so on.  The moves in the order they
        are made (the far end of the chain first); None if there is no such chain.  Breadth
        first over hexes: the fewest moves; then units by id, nearer hexes, the grid's order."""
        at = M.units_at(st)
        parent: dict[str, tuple[str, str, list[str]]] = {}       # hex -> (from hex, unit, path)
        seen, queue = {h}, [h]
        while queue:
            x = queue.pop(0)
            movers = sorted((o for o in at.get(x, []) if o.side == side and self.can_still_move(st, o)),
                            key=lambda o: o.id)
            for u in movers:
                for y, path in sorted(self.reach(st, sc, u).items(), key=lambda kv: len(kv[1])):
                    if y in seen:
                        continue
                    seen.add(y)
                    parent[y] = (x, u.id, path)
                    if self.room(st, side, y):
                        chain, z = [], y
                        while z != h:
                            z, uid, p = parent[z]
                            chain.append((uid, p))
                        return chain
                    queue.append(y)
        return None

    def stack_fixes(self, st: GameState, sc: Scenario) -> tuple[list[tuple[str, list[str]]], list[str]]:
        """Moves that bring every hex within the limit where moves still can (``room_chain``,
        hex by hex), and the hexes they cannot: ([(unit, path)], [hex])."""
        work = copy_state(st)
        moves: list[tuple[str, list[str]]] = []
        stuck: list[str] = []
        while True:
            todo = [(h, side) for h, side, _us in self.over_stacked(work) if h not in stuck]
            if not todo:
                return moves, stuck
            h, side = todo[0]
            chain = self.room_chain(work, sc, h, side)
            if chain is None:
                stuck.append(h)
                continue
            for uid, path in chain:
                u = work.units[uid]
                u.hex, u.moved = path[-1], True
                moves.append((uid, path))

    def _stack_at_end(self, ctx: Ctx, refuse: bool) -> bool:
        """7.1: the limits apply when the movement phase ends.  Khar'kov and Compass remove the
        excess (7.3, the owner chooses).  El Alamein and Dunkerque have no 7.3: ``end`` is
        refused (``refuse``) while moves of units that have not moved can still bring the hexes
        within the limit; a hex no move can empty any more loses its excess, its owner choosing
        (our ruling, 7.0).  True if the phase may not end yet."""
        st, sc = ctx.state, ctx.sc
        if self.p.stack_removal:
            return self._stack_check(ctx, -1)
        over = self.over_stacked(st)
        if not over:
            return False
        moves, stuck = self.stack_fixes(st, sc)
        if moves:
            if refuse:
                held = "; ".join(f"{h} holds {', '.join(sorted(u.id for u in us))}" for h, _s, us in over)
                how = "; ".join(f"move {uid} {' '.join(path)}" for uid, path in moves)
                raise OrderError(f"stacking limits apply at the end of the movement phase (7.1), "
                                 f"{self._stack_words(over[0][1])} (7.0): {held}. Move units out first, "
                                 f"e.g. {how}; then end", "7.1")
            return True
        h, side, us = next(v for v in over if v[0] in stuck)
        ctx.emit(E.DecisionRequired(side=side, decision="stack-loss", combat=-1, units=sorted(u.id for u in us),
                                    distance=len(us) - self.p.stacking[side], rule="7.0"))
        return True

    def stack_notes(self, st: GameState) -> list[str]:
        """The over-full hexes, for the report of a movement phase (7.1, 7.3)."""
        then = "the excess is removed at the end of the phase (7.3)" if self.p.stack_removal \
            else "move units out before end (7.1)"
        return [f"{h}: {', '.join(sorted(u.id for u in us))} - over the limit of {self._stack_words(side)}; {then}"
                for h, side, us in self.over_stacked(st)]

    def _end_move_problem(self, st: GameState, sc: Scenario, u: UnitState, h: str) -> str | None:
        """Why ``u`` may not end its move in h for stacking (7.1), or None.  A move may end on
        friendly units (7.1: the limit counts at the end of the phase).  Where the excess is
        not removed (no 7.3: El Alamein, Dunkerque) moves of units that have not moved must
        still be able to bring h within the limit, or the phase could never end (8.1(2): a
        finished move is not reopened)."""
        if self.room(st, u.side, h, u.id) or self.p.stack_removal:
            return None
        work = copy_state(st)
        work.units[u.id].hex, work.units[u.id].moved = h, True
        if h not in self.stack_fixes(work, sc)[1]:
            return None
        others = ", ".join(sorted(o.id for o in M.units_at(st).get(h, []) if o.side == u.side))
        return (f"{u.id} may not end its move in {h}: {others} there could not be moved out to make room before "
                f"the end of the phase, when a hex may hold {self._stack_words(u.side)} (7.0, 7.1)")

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
            return self._end_move_problem(st, sc, u, h)

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
