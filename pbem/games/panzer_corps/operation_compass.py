"""Operation Compass (panzer-corps.txt, Operation Compass): what the family
engine does not.

Set-up in three steps before the first British movement phase (3.0-3.2):
1. the Italian player places the four "S" tank battalions in footholds, towns
   or battle positions, each alone among Italian units (3.0(3));
2. the British die roll (1-3: three, 4-6: four) and the British player's
   choice of Italian units within two hexes of the coast to disrupt (3.1);
3. the British player places every British unit in the six entry hexes,
   stacking ignored (3.2); the limits apply again from the end of the first
   British movement phase (7.1, 7.3).
Italian units never enter an entry hex and their ZOC does not reach one
(3.2(3)); cliffs stop movement, attacks and ZOC (8.3(3), 9.3, 6.4).

Victory (4.x): footholds controlled at the end with a connecting line to a
friendly supply source (a friendly unit in an enemy ZOC keeps the line open,
4.3(3)), half the British units eliminated (fractions dropped) for the
Italians, ties to the Italians, and the British sudden death on holding all
four footholds (4.4).
"""
from __future__ import annotations

from pbem.games.panzer_corps.schema import CompassData, CompassVictory
from pbem.games.panzer_corps import events as E
from pbem.core.scenario import Printed, Scenario
from pbem.core.state import GameState, UnitState
from pbem.core.ruleset import Ctx
from pbem.games.panzer_corps.family import PanzerCorps
from pbem.games.panzer_corps.params import GameParams, result_rules
from pbem.mechanics.movement import trace_line, units_at
from pbem.mechanics.zoc import ZocReach

BRITISH, ITALIAN = "british", "italian"


class OperationCompass(PanzerCorps):
    # 2: the per-scenario values moved into the scenario file (issue 17), which changes its sha256 in the log
    ruleset_version = "2"
    scenario_schema = (CompassVictory, CompassData)          # [victory], [game_data] (pbem scenario lint)
    params = GameParams(
        game="operation-compass",
        stacking={"british": 2, "italian": 2},  # 7.0
        stack_removal=True,                  # 7.3
        result_codes=frozenset({"AE", "AR", "C", "EX", "DR1", "DR2", "DR3", "DE"}),  # 9.4
        result_rules=result_rules("AE", "AR", "C", "EX", "DR", "DE"),
        disrupted_attackable=True,           # 9.7(4)
        advance_units=0,                     # 9.6(1)
        tank_second_hex=True,                # 9.6(3)
        tank_types=frozenset({"armour"}),    # British brown, Italian green units
        doubling_terrain=frozenset({"hills"}),   # 9.3 (and battle positions, a hex feature)
        battle_position_any_side=True,       # 9.3
        blocking_hexsides=frozenset({"cliff"}),  # 8.3(3), 9.3, 6.4
        line_features={"road": 1, "lane": 1},    # 8.3(1)
        declare_rule="9.1(6)",
    )

    # --- scenario data --------------------------------------------------------

    def known_features(self) -> set[str]:
        return {"road", "lane", "battle_position", "foothold", "town", "british_entry"}

    def s_units(self, sc: Scenario) -> list[str]:
        return list(self.data(sc).s_units)

    @staticmethod
    def feature(sc: Scenario, name: str) -> list[str]:
        f = sc.map.features.get(name)
        return list(f.hexes) if f else []

    def footholds(self, sc: Scenario) -> dict[str, int]:
        return dict(self.data(sc).footholds)

    def supply(self, sc: Scenario, side: str) -> list[str]:
        return list(self.data(sc).supply.get(side, []))

    def waiting_label(self, sc: Scenario, uid: str) -> str:
        return "set-up (S)" if uid in self.s_units(sc) else "enters at set-up (3.2)"

    def initial_control(self, sc: Scenario) -> dict[str, str]:
        return {h: ITALIAN for h in self.footholds(sc)}          # 4.1(3)

    def entry_forbidden(self, st: GameState, sc: Scenario, u: UnitState, h: str) -> tuple[str, str] | None:
        if u.side == ITALIAN and h in self.feature(sc, "british_entry"):
            return f"{h} is a British entry hex, which Italian units may never enter", "3.2(3)"
        return None

    def zoc_blocked(self, sc: Scenario, owner_side: str):
        key = f"_compass_zoc_{owner_side}"          # the board's data only: one per scenario and side
        known = sc.__dict__.get(key)
        if known is None:
            board = sc.board
            entry = set(self.feature(sc, "british_entry")) if owner_side == ITALIAN else set()
            known = sc.__dict__[key] = ZocReach(
                board, lambda a, b: bool(board.side_features(a, b) & self.p.blocking_hexsides) or b in entry)
        return known

    # --- set-up (3.0-3.2) ---------------------------------------------------------

    def setup_events(self, st: GameState, sc: Scenario) -> list[E.Event]:
        units = [uid for uid in self.s_units(sc) if st.units[uid].hex is None]
        if not units:
            return []
        return [E.DecisionRequired(side=ITALIAN, decision="set-up", combat=-1, units=units, rule="3.0(3)")]

    def setup_hexes(self, st: GameState, sc: Scenario, u: UnitState, kind: str) -> list[str]:
        if kind == "entry":
            return self.feature(sc, "british_entry")                 # 3.2(1): stacking ignored
        at = units_at(st)
        allowed = set(self.footholds(sc)) | set(self.feature(sc, "town")) | set(self.feature(sc, "battle_position"))
        return sorted(h for h in allowed if sc.board.grid.contains(h) and not at.get(h))

    def bombard_targets(self, st: GameState, sc: Scenario) -> list[str]:
        """Italian units within two hexes of a coast hex, counting their own hex and not the coast (3.1(2))."""
        grid = sc.board.grid
        coast = [h for h, t in sc.board.terrain.items() if t == "coast"]
        reach = self.data(sc).bombardment_reach
        out = []
        for u in sorted(self.on_map(st, ITALIAN), key=lambda x: x.id):
            if any(grid.distance(u.hex, c) <= reach for c in coast):
                out.append(u.id)
        return out

    def setup_answered(self, ctx: Ctx, kind: str) -> None:
        st, sc = ctx.state, ctx.sc
        if kind == "set-up":
            die = ctx.dice.roll(sc.die)
            table = self.data(sc).bombardment
            count = int(table[die - 1]) if die <= len(table) else 0
            ctx.emit(E.BombardmentRolled(rolls=[die], count=count, rule="3.1(1)"))
            targets = self.bombard_targets(st, sc)
            if len(targets) <= count:
                if targets:
                    ctx.emit(E.UnitsDisrupted(units=targets, reason="naval bombardment (every unit in reach)",
                                              rule="3.1(1)"))
                self.setup_answered(ctx, "bombardment")
                return
            ctx.emit(E.DecisionRequired(side=BRITISH, decision="bombardment", combat=-1, units=targets,
                                        distance=count, rule="3.1(3)"))
        elif kind == "bombardment":
            units = [u.id for u in sc.units if u.side == BRITISH and st.units[u.id].hex is None]
            if units:
                ctx.emit(E.DecisionRequired(side=BRITISH, decision="entry", combat=-1, units=units, rule="3.2(1)"))

    # --- control, sudden death, victory (4.x) --------------------------------------------

    def on_entered(self, ctx: Ctx, u: UnitState, hexes: list[str], how: str) -> None:
        st, sc = ctx.state, ctx.sc
        holds = self.footholds(sc)
        for h in hexes:
            if h in holds and st.control.get(h) != u.side:
                ctx.emit(E.HexControlled(hex=h, side=u.side, rule="4.1(2)"))
        if u.side == BRITISH and holds and all(st.control.get(h) == BRITISH for h in holds):
            ctx.emit(E.GameEnded(winner=BRITISH, reason="the British control all four footholds", rule="4.4"))

    def line(self, st: GameState, sc: Scenario, side: str, start: str) -> list[str] | None:
        """A connecting line from ``start`` to one of ``side``'s supply sources (4.3): no enemy
        unit, no enemy ZOC unless a friendly unit stands there, nothing units cannot enter."""
        ezoc = self.zoc_against(st, sc, side)
        at = units_at(st)
        blocking = self.p.blocking_hexsides

        def open_hex(h: str) -> bool:
            t = sc.terrain.get(sc.board.terrain.get(h, ""))
            if t is None or t.impassable:
                return False
            here = at.get(h, [])
            if any(o.side != side for o in here):
                return False
            return h not in ezoc or any(o.side == side for o in here)

        if not open_hex(start):
            return None
        goals = {h for h in self.supply(sc, side) if open_hex(h)}
        return trace_line(sc.board, [start], goals, open_hex=open_hex,
                          crossing=lambda a, b: not (sc.board.side_features(a, b) & blocking))

    def game_over(self, ctx: Ctx) -> None:
        st, sc = ctx.state, ctx.sc
        for h, vp in sorted(self.footholds(sc).items()):
            side = st.control.get(h, ITALIAN)
            path = self.line(st, sc, side, h)
            label = sc.board.label(h)
            if path is None:
                ctx.emit(E.ConnectingLine(subject=label, start=h, traced=False,
                                          note=f"{sc.side_name(side)} control it but score nothing", rule="4.1(4)"))
                continue
            ctx.emit(E.ConnectingLine(subject=label, start=h, traced=True,
                                      to=f"{sc.side_name(side)} supply source {path[-1]}", path=path, rule="4.3"))
            ctx.emit(E.PointsScored(side=side, points=vp, reason=f"controls the foothold {label} with a "
                                    f"connecting line", rule="4.1(1)"))
        lost = len(self.eliminated(st, BRITISH))
        per = self.vic(sc).british_losses_per_vp
        if lost // per:
            share = "half of them" if per == 2 else f"one VP per {per}"
            ctx.emit(E.PointsScored(side=ITALIAN, points=lost // per, reason=f"{lost} British units eliminated, "
                                    f"{share}, fractions dropped", rule="4.2"))
        b, i = st.score.get(BRITISH, 0), st.score.get(ITALIAN, 0)
        tally = f"British {b} VP, Italian {i} VP"
        if b != i:
            ctx.emit(E.GameEnded(winner=BRITISH if b > i else ITALIAN, reason=tally, rule="4.0"))
        else:
            tie = self.vic(sc).tie_winner
            words = "a draw" if tie == "draw" else f"a tie goes to the {sc.side_name(tie)}s"
            ctx.emit(E.GameEnded(winner=tie, reason=f"{tally}: {words}", rule="4.0"))

    # --- the map's marks ------------------------------------------------------------

    def map_marks(self, state, sc: Scenario, viewer: str) -> dict:
        """4.1(1): the footholds with their VP and who controls them (4.1(2)/(3)); 3.0(3): where the
        S battalions may set up, and 3.2(1): the British entry hexes, each while its step runs;
        the score: VP once the game is over, before it what the footholds held and the British
        losses would give (4.1, 4.2: footholds count only with a connecting line, 4.3)."""
        holds = self.footholds(sc)
        objs = [{"hex": h, "vp": vp, "label": f"{sc.board.label(h)}: foothold (4.1; {sc.side_name(BRITISH)} "
                 f"holding all {len(holds)} win at once, 4.4)",
                 "side": state.control.get(h, "")} for h, vp in sorted(holds.items())]
        marks: dict = {"objectives": objs}
        d = state.decision
        if state.result is None and d is not None and d.kind in ("set-up", "entry") and d.units:
            rule = "3.0(3)" if d.kind == "set-up" else "3.2(1)"
            what = "S battalions set up" if d.kind == "set-up" else "entry hexes"
            hexes = self.setup_hexes(state, sc, state.units[d.units[0]], d.kind)     # the legal ones now
            marks["areas"] = [{"label": f"{sc.side_name(d.side)} {what} ({rule})", "hexes": hexes, "side": d.side}]
        b, i = sc.side_name(BRITISH), sc.side_name(ITALIAN)
        if state.result is not None:
            marks["score"] = f"{b} {state.score.get(BRITISH, 0)} VP, {i} {state.score.get(ITALIAN, 0)} VP"
            return marks
        held = {s: sum(vp for h, vp in holds.items() if state.control.get(h) == s) for s in (BRITISH, ITALIAN)}
        lost = len(self.eliminated(state, BRITISH))
        per = self.vic(sc).british_losses_per_vp
        marks["score"] = (f"footholds held: {b} {held[BRITISH]} VP, {i} {held[ITALIAN]} VP; "
                          f"{lost} {b} units lost" + (f" ({i} +{lost // per} VP, 4.2)" if per else ""))
        return marks

    # --- scenario checks -----------------------------------------------------------------

    def lint_game(self, sc: Scenario) -> list[str]:
        errs = []
        grid = sc.board.grid
        for h in self.footholds(sc):
            if not grid.contains(h):
                errs.append(f"foothold {h} (4.1(1)) is not on the map")
            elif h not in self.feature(sc, "foothold"):
                errs.append(f"map.features.foothold: the foothold {h} (4.1(1)) is missing")
        for side in (BRITISH, ITALIAN):
            hexes = self.supply(sc, side)
            if not hexes:
                errs.append(f"game_data.supply.{side}: no supply source (4.3(2))")
            for h in hexes:
                if not grid.contains(h):
                    errs.append(f"game_data.supply.{side}: hex {h} is not on the map")
        table = self.data(sc).bombardment
        if len(table) != sc.die or any(n < 0 for n in table):
            errs.append(f"game_data.bombardment: one count of units for each die roll 1 to {sc.die} (3.1(1))")
        tie = self.vic(sc).tie_winner
        if tie not in {BRITISH, ITALIAN, "draw"}:
            errs.append(f"victory.tie_winner: {tie!r} is neither a side nor 'draw' (4.0)")
        entry = self.feature(sc, "british_entry")
        if len(entry) != 6:
            errs.append(Printed(f"map.features.british_entry: {len(entry)} hexes, 3.2(1) names six"))
        for uid in self.s_units(sc):
            d = sc.unit_defs.get(uid)
            if d is None or d.side != ITALIAN or d.hex is not None or d.type not in self.p.tank_types:
                errs.append(f"game_data.s_units: {uid} must be an Italian tank battalion placed at set-up (3.0(3))")
        s_places = (set(self.footholds(sc)) | set(self.feature(sc, "town")) | set(self.feature(sc, "battle_position"))) \
            - {u.hex for u in sc.units if u.side == ITALIAN and u.hex}
        if len(s_places) < len(self.s_units(sc)):
            errs.append(f"3.0(3): {len(s_places)} free footholds, towns and battle positions for "
                        f"{len(self.s_units(sc))} S battalions")
        for u in sc.units:
            if u.hex is None and u.side == ITALIAN and u.id not in self.s_units(sc):
                errs.append(f"units[{u.id}]: Italian units other than the S battalions start on the map (3.0(3))")
        return errs
