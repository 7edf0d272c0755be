"""Khar'kov (panzer-corps.txt, Khar'kov): what the family engine does not.

- Set-up (3.0(3)/(4)): the six German units stand on the map; the Soviet
  player places eighteen units in the map-edge hexes printed with their
  army's mark ("6", "1GD", "Ppv"), stacking limits observed.  A set-up
  decision with one ``place UNIT HEX`` order per unit.
- Reinforcement phases (5.0, 10.0): units due by the turn track enter at the
  edge hexes printed with their army's name (Soviet) or letter A-D (German),
  at no MP cost, stacking applies, not between two enemy units; units may
  wait, and units with no open hex must (10.0(4)).
- Victory points (4.x): city control (2 per hex at the end), the Soviet first
  charge into each city hex (1), eliminations (1, or 2 for a German tank or
  mechanized unit), one railroad cut per Soviet movement phase (2 orange,
  1 yellow), sudden death at Poltava or Dnepro Petrovsk (4.5).  Every point
  value and the sudden-death hexes are the scenario's ``[victory]`` values.

Where units enter is data: ``game_data.areas`` lists each printed entry
area's hexes and the units that set up or enter there.
"""
from __future__ import annotations

from pbem.games.panzer_corps.schema import Area, KharkovData, KharkovVictory
from pbem.games.panzer_corps import events as E
from pbem.core.scenario import Printed, Scenario
from pbem.core.state import GameState, UnitState
from pbem.core.ruleset import Ctx
from pbem.games.panzer_corps.family import PanzerCorps
from pbem.games.panzer_corps.params import GameParams, result_rules
from pbem.mechanics.movement import units_at

SOVIET, GERMAN = "soviet", "german"
RAIL_WORDS = {"railroad": "main railroad (orange)", "railroad_branch": "Rostov branch railroad (yellow)"}   # 4.4


class Kharkov(PanzerCorps):
    # 2: the per-scenario values moved into the scenario file (issue 17), which changes its sha256 in the log
    ruleset_version = "2"
    scenario_schema = (KharkovVictory, KharkovData)          # [victory], [game_data] (pbem scenario lint)
    params = GameParams(
        game="kharkov",
        stacking={"german": 3, "soviet": 2},  # 7.0
        stack_removal=True,                  # 7.3
        result_codes=frozenset({"AE", "AR", "EX", "DR1", "DR2", "DR3", "DE"}),  # 9.4
        result_rules=result_rules("AE", "AR", "EX", "DR", "DE"),
        advance_units=0,                     # 9.6(1) up to the stacking limit
        tank_second_hex=True,                # 9.6(3)
        tank_types=frozenset({"armour", "mechanized"}),   # German black, Soviet red units (9.6(3), 4.3)
        doubling_terrain=frozenset({"forest", "city"}),   # 9.3
        hexside_costs={"major_river": 2, "minor_river": 1},  # 8.3(3)/(4)
        doubling_hexsides=frozenset({"major_river"}),        # 9.3(1); minor rivers none (9.3(3))
        line_features={"railroad": 1, "railroad_branch": 1},  # 8.3(5)
        lines_ignore_hexsides=True,          # 8.3(5)
        declare_rule="9.1(6)",
    )

    # --- scenario data ------------------------------------------------------

    def known_features(self) -> set[str]:
        return {"railroad", "railroad_branch"}

    def areas(self, sc: Scenario) -> dict[str, Area]:
        return {a.name: a for a in self.data(sc).areas}

    def vp(self, sc: Scenario, key: str) -> int:
        return getattr(self.vic(sc), key)

    def area_of(self, sc: Scenario, uid: str) -> str:
        for name, a in self.areas(sc).items():
            if uid in a.units:
                return name
        return ""

    def area_hexes(self, sc: Scenario, uid: str) -> list[str]:
        a = self.areas(sc).get(self.area_of(sc, uid))
        return list(a.hexes) if a else []

    @staticmethod
    def set_up_units(sc: Scenario) -> list[str]:
        """Soviet units placed by their owner at set-up: off the map with entry turn 0 (3.0(4))."""
        return [u.id for u in sc.units if u.hex is None and u.entry_turn == 0]

    _cities: dict[str, list[str]] = {}

    @classmethod
    def cities(cls, sc: Scenario) -> list[str]:
        """The city hexes (4.1(1)), once per scenario file."""
        if sc.sha256 not in cls._cities:
            cls._cities[sc.sha256] = sorted(h for h, t in sc.board.terrain.items() if t == "city")
        return list(cls._cities[sc.sha256])

    def waiting_label(self, sc: Scenario, uid: str) -> str:
        d = sc.unit_defs[uid]
        area = self.area_of(sc, uid)
        if d.entry_turn == 0:
            return f"set-up at {area}"
        return f"enters turn {d.entry_turn} at {area}"

    def initial_control(self, sc: Scenario) -> dict[str, str]:
        return {h: GERMAN for h in self.cities(sc)}            # 4.1(3)

    # --- set-up (3.0(4)) ---------------------------------------------------------

    def setup_events(self, st: GameState, sc: Scenario) -> list[E.Event]:
        units = self.set_up_units(sc)
        if units:
            return [E.DecisionRequired(side=SOVIET, decision="set-up", combat=-1, units=units, rule="3.0(4)")]
        if sc.sequence[st.phase].name == "reinforcement" and not self.due_reinforcements(st, sc):
            nxt = sc.sequence[st.phase + 1]            # nothing to set up or bring in: play starts with movement
            return [E.PhaseStarted(turn=st.turn, phase=st.phase + 1, side=nxt.side, name=nxt.name)]
        return []

    def setup_hexes(self, st: GameState, sc: Scenario, u: UnitState, kind: str) -> list[str]:
        at = units_at(st)
        return [h for h in self.area_hexes(sc, u.id)
                if not any(o.side != u.side for o in at.get(h, [])) and self.room_at(at, u.side, h, u.id)]

    def setup_answered(self, ctx: Ctx, kind: str) -> None:
        st, sc = ctx.state, ctx.sc
        if sc.sequence[st.phase].name == "reinforcement" and not self.due_reinforcements(st, sc):
            self._end_phase(ctx)

    # --- reinforcements (10.0) --------------------------------------------------------

    def due_reinforcements(self, st: GameState, sc: Scenario) -> list[str]:
        side = sc.sequence[st.phase].side
        due = [(d.entry_turn, i, d.id) for i, d in enumerate(sc.units)
               if d.side == side and d.entry_turn and d.entry_turn <= st.turn
               and st.units[d.id].hex is None and not st.units[d.id].eliminated]
        return [uid for _t, _i, uid in sorted(due)]

    def reinforcement_hexes(self, st: GameState, sc: Scenario, u: UnitState) -> list[str]:
        open_to = self.entry_hexes_open(st, sc, u)
        return [h for h in self.area_hexes(sc, u.id) if open_to(h)]

    def on_phase_started(self, ctx: Ctx) -> None:
        st, sc = ctx.state, ctx.sc
        if sc.sequence[st.phase].name == "reinforcement" and not self.due_reinforcements(st, sc):
            self._end_phase(ctx)                                  # nothing due: the phase passes

    # --- victory points (4.x) ------------------------------------------------------------

    def on_entered(self, ctx: Ctx, u: UnitState, hexes: list[str], how: str) -> None:
        st, sc = ctx.state, ctx.sc
        cities = set(self.cities(sc))
        for h in hexes:
            if h in cities and st.control.get(h) != u.side:
                charged = f"charged:{h}" in st.point_marks
                marker = "Charge & Control" if u.side == SOVIET else ("Charged" if charged else "")
                ctx.emit(E.HexControlled(hex=h, side=u.side, rule="4.1(2)", marker=marker))
                if u.side == SOVIET and not charged:
                    ctx.emit(E.PointsScored(side=SOVIET, points=self.vp(sc, "charge_vp"), reason=f"{u.id} charges "
                                            f"into {sc.board.label(h)} for the first time", rule="4.2(1)",
                                            mark=f"charged:{h}"))
        if u.side == SOVIET:
            for h in self.vic(sc).sudden_death:                       # 4.5
                if st.control.get(h) == SOVIET:
                    ctx.emit(E.GameEnded(winner=SOVIET, reason=f"{u.id} takes {sc.board.label(h)}", rule="4.5"))
                    return
        ph = sc.sequence[st.phase]
        if how == "move" and u.side == SOVIET and ph.name == "movement":
            board = sc.board
            level, where, line = 0, "", ""
            for h in hexes:                             # the most valuable railroad cut, first hex on a tie
                for feat, vp in self.vic(sc).railroad_vp.items():
                    if board.has(h, feat) and vp > level:
                        level, where, line = vp, h, RAIL_WORDS.get(feat, feat.replace("_", " "))
            mark = f"rail:{st.turn}"
            got = st.point_marks.get(mark, 0)
            if level > got:
                ctx.emit(E.PointsScored(side=SOVIET, points=level - got,
                                        reason=f"{u.id} cuts the {line} at {board.label(where)} this turn",
                                        rule="4.4", mark=mark))

    def on_eliminated(self, ctx: Ctx, u: UnitState, rule: str) -> None:
        sc = ctx.sc
        if u.side == GERMAN:
            heavy = self.is_tank(sc, u.id)
            points = self.vp(sc, "tank_elimination_vp" if heavy else "elimination_vp")
            if points:
                ctx.emit(E.PointsScored(side=SOVIET, points=points, reason=f"German {u.id} eliminated"
                                        + (" (tank or mechanized)" if heavy else ""), rule="4.3"))
        elif self.vp(sc, "elimination_vp"):
            ctx.emit(E.PointsScored(side=GERMAN, points=self.vp(sc, "elimination_vp"),
                                    reason=f"Soviet {u.id} eliminated", rule="4.3"))

    def game_over(self, ctx: Ctx) -> None:
        st, sc = ctx.state, ctx.sc
        for side in (SOVIET, GERMAN):
            held = [h for h in self.cities(sc) if st.control.get(h) == side]
            if held and self.vp(sc, "city_vp"):
                ctx.emit(E.PointsScored(side=side, points=self.vp(sc, "city_vp") * len(held),
                                        reason=f"controls {len(held)} city hex(es): {', '.join(held)}",
                                        rule="4.1(1)"))
        s, g = st.score.get(SOVIET, 0), st.score.get(GERMAN, 0)
        tally = f"Soviet {s} VP, German {g} VP"
        if s == g:
            ctx.emit(E.GameEnded(winner=self.vic(sc).tie_winner, reason=f"{tally}: equal",
                                 rule="4.0"))
        else:
            ctx.emit(E.GameEnded(winner=SOVIET if s > g else GERMAN, reason=tally, rule="4.0"))

    # --- the map's marks ------------------------------------------------------------

    def map_marks(self, state, sc: Scenario, viewer: str) -> dict:
        """4.1: every city hex (2 VP to its controller at the end), with who controls it and
        whether the Soviets may still charge into it (4.2); 4.5: the sudden-death cities;
        3.0(4): the Soviet set-up areas during the set-up; 10.0(3): the entry areas of the
        units due in a reinforcement phase; the VP so far (4.0); north is to the left."""
        city, charge = self.vp(sc, "city_vp"), self.vp(sc, "charge_vp")
        sudden = set(self.vic(sc).sudden_death)
        objs = []
        for h in self.cities(sc):
            label = f"{sc.board.label(h)}: city (4.1)"
            if h in sudden:
                label += f"; {sc.side_name(SOVIET)} control wins at once (4.5)"
            if charge and f"charged:{h}" not in state.point_marks:
                label += f"; first {sc.side_name(SOVIET)} charge +{charge} (4.2)"
            objs.append({"hex": h, "vp": city, "label": label, "side": state.control.get(h, "")})
        marks: dict = {"objectives": objs, "north": 270}     # the scenario's grid has north to the left
        d, units = state.decision, []
        playing = state.result is None and 0 <= state.phase < len(sc.sequence)
        if playing and d is not None and d.kind == "set-up":
            units = [u for u in d.units if state.units[u].hex is None]                     # 3.0(4)
        elif playing and d is None and sc.sequence[state.phase].name == "reinforcement":
            units = self.due_reinforcements(state, sc)                                       # 10.0(3)
        areas, shown = self.areas(sc), []
        what, rule = ("set-up", "3.0(4)") if d is not None else ("entry", "10.0(3)")
        for uid in units:
            name, side = self.area_of(sc, uid), state.units[uid].side
            if name in areas and name not in [a["name"] for a in shown]:
                shown.append({"name": name, "label": f"{sc.side_name(side)} {what} area {name} ({rule})",
                              "hexes": list(areas[name].hexes), "side": side})
        if shown:
            marks["areas"] = [{k: v for k, v in a.items() if k != "name"} for a in shown]
        held = {s: sum(1 for h in self.cities(sc) if state.control.get(h) == s) for s in (SOVIET, GERMAN)}
        marks["score"] = (f"{sc.side_name(SOVIET)} {state.score.get(SOVIET, 0)} VP, "
                          f"{sc.side_name(GERMAN)} {state.score.get(GERMAN, 0)} VP"
                          + ("" if state.result is not None else
                             f" (city hexes held, {city} VP each at the end: {sc.side_name(SOVIET)} "
                             f"{held[SOVIET]}, {sc.side_name(GERMAN)} {held[GERMAN]})"))
        return marks

    # --- scenario checks -------------------------------------------------------------

    def lint_game(self, sc: Scenario) -> list[str]:
        errs = []
        grid = sc.board.grid
        for h in self.vic(sc).sudden_death:
            if sc.board.terrain.get(h) != "city":
                errs.append(f"victory.sudden_death: hex {h} ({sc.board.label(h)}, 4.5) must be a city")
        for feat in self.vic(sc).railroad_vp:
            if feat not in self.p.line_features:
                errs.append(f"victory.railroad_vp.{feat}: not a railroad feature of the map (4.4)")
        tie = self.vic(sc).tie_winner
        if tie not in set(sc.side_ids()) | {"draw"}:
            errs.append(f"victory.tie_winner: {tie!r} is neither a side nor 'draw' (4.0)")
        kh = next((p.hexes for p in sc.map.places if p.name == "Khar'kov"), [])
        if len(kh) != 4 or any(sc.board.terrain.get(h) != "city" for h in kh):
            errs.append(Printed("map.places: Khar'kov must be four city hexes (4.1(1))"))
        areas = self.areas(sc)
        placed: dict[str, str] = {}
        for name, a in areas.items():
            for h in a.hexes:
                if not grid.contains(h):
                    errs.append(f"game_data.areas[{name}]: hex {h} is not on the map")
                elif not any(grid.is_edge(h, e) for e in ("north", "south", "east", "west")):
                    errs.append(f"game_data.areas[{name}]: hex {h} is not on a map edge (10.0(3))")
            for uid in a.units:
                if uid not in sc.unit_defs:
                    errs.append(f"game_data.areas[{name}]: unknown unit {uid!r}")
                if uid in placed:
                    errs.append(f"game_data.areas: {uid} is in both {placed[uid]} and {name}")
                placed[uid] = name
        for u in sc.units:
            if u.hex is None and u.id not in placed:
                errs.append(f"units[{u.id}]: starts off the map but no game_data.areas entry says where it comes in")
        for uid in self.set_up_units(sc):
            if sc.unit_defs[uid].side != SOVIET:
                errs.append(f"units[{uid}]: only Soviet units are placed by their owner at set-up (3.0(3)/(4))")
        return errs
