"""El Alamein (panzer-corps.txt, El Alamein): what the family engine does not.

The British break-off from the west map edge (4.2) and the German-Italian
objective hexes checked after the British combat phase (4.1).
"""
from __future__ import annotations

from pbem.games.panzer_corps.schema import AlameinVictory, GameTable
from pbem.games.panzer_corps import events as E
from pbem.core.orders import OrderError
from pbem.core.state import UnitState
from pbem.core.ruleset import Ctx
from pbem.core.scenario import Scenario
from pbem.games.panzer_corps.family import PanzerCorps
from pbem.games.panzer_corps.params import GameParams, result_rules


class ElAlamein(PanzerCorps):
    scenario_schema = (AlameinVictory, GameTable)          # [victory], [game_data] (pbem scenario lint)
    params = GameParams(
        game="el-alamein",
        stacking={"axis": 1, "british": 1},  # 7.0 no stacking
        result_codes=frozenset({"AE", "AR", "DR1", "DR2", "DR3", "DE"}),  # 9.4
        result_rules=result_rules("AE", "AR", "DR", "DE"),
        first_turn_halved="british",         # 8.4
        doubling_terrain=frozenset({"highlands", "village"}),             # 9.3
    )


    def break_off(self, ctx: Ctx, u: UnitState, path: list[str], mp: int, ma: int, ezoc: set[str]) -> None:
        sc = ctx.sc
        edge = self.vic(sc).break_edge
        if not edge or u.side != self.vic(sc).break_side:
            raise OrderError("units may not leave the map", "8.1(5)")
        last = path[-1] if path else u.hex
        if not sc.board.grid.is_edge(last, edge):
            raise OrderError(f"{last} is not on the {edge} map edge; only from there may a unit break off", "4.2(2)")
        if last in ezoc:
            raise OrderError(f"{last} is in an enemy zone of control: a unit there may not break off", "4.2(2)")
        if mp + 1 > ma:
            raise OrderError(f"breaking off costs 1 MP and {u.id} has {ma - mp} left", "4.2(2)")
        if path:
            ctx.emit(E.UnitMoved(unit=u.id, path=list(path), mp=mp, ma=ma))
        ctx.emit(E.UnitBrokeOff(unit=u.id, hex=last, edge=edge))
        ctx.emit(E.GameEnded(winner=u.side, reason=f"{u.id} broke off the {edge} map edge at {last}", rule="4.2(1)"))

    def victory_after_combat(self, ctx: Ctx, side: str) -> bool:
        st, sc = ctx.state, ctx.sc
        if side != self.vic(sc).axis_check_after:
            return False
        ridge = self.vic(sc).alam_halfa_positions
        goal = set(self.vic(sc).objective_hexes) | set(ridge)
        holders = sorted((u.hex, u.id) for u in st.units.values()
                         if u.side != side and u.hex in goal and not u.eliminated)
        if holders:
            h, uid = holders[0]
            rule = "4.1(2)" if h in ridge else "4.1(1)"
            ctx.emit(E.GameEnded(winner=st.units[uid].side,
                                 reason=f"{uid} holds {sc.board.label(h)} at the end of the British combat phase",
                                 rule=rule))
            return True
        return False

    def game_over(self, ctx: Ctx) -> None:
        st, sc = ctx.state, ctx.sc
        ctx.emit(E.GameEnded(winner=self.vic(sc).default_winner,
                             reason=f"turn {st.turn} ended without an Axis victory", rule="4.2(4)"))

    def map_marks(self, state, sc: Scenario, viewer: str) -> dict:
        """4.1: an Axis unit on an objective hex or an Alam Halfa position wins."""
        objs = [{"hex": h, "vp": 0, "label": "objective (4.1)"} for h in self.vic(sc).objective_hexes]
        objs += [{"hex": h, "vp": 0, "label": "Alam Halfa position (4.1)"}
                 for h in self.vic(sc).alam_halfa_positions]
        return {"objectives": objs}

    def lint_game(self, sc: Scenario) -> list[str]:
        errs = []
        for key in ("objective_hexes", "alam_halfa_positions"):       # 4.1
            for h in getattr(self.vic(sc), key):
                if not sc.board.grid.contains(h):
                    errs.append(f"victory.{key}: hex {h} is not on the map")
        sides = set(sc.side_ids())
        for key in ("axis_check_after", "break_side", "default_winner"):   # 4.1, 4.2
            if getattr(self.vic(sc), key) not in sides:
                errs.append(f"victory.{key}: {getattr(self.vic(sc), key)!r} is not a side")
        return errs
