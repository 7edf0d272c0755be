"""Dunkerque (panzer-corps.txt, Dunkerque): what the family engine does not.

- The seven Allied "R" units are shuffled face down onto the turn track with
  the seeded dice before the first order of the game (3.0(4), 10.0(2)): one on
  turn 2, two on each of turns 3 to 5.  The draw is a HiddenDraw event only the
  referee may read, and each slot's unit is sealed in a SecretRecorded of side
  "referee"; a slot is unveiled (SecretRevealed) when its unit enters.
- At the start of each Allied movement phase with face-down units due, the
  Allied player chooses their entry hexes on the printed south edge, or delays
  them (10.0(3)-(7)).  Entering costs 1 MP (10.0(5)).
- Victory (4.0-4.2): points per Combat Strength eliminated, connecting lines to
  the west or south edge at the end, evacuation through ports (5 CS each).

The printed map has north to the left (the hex numbers, Leuven 0607 among
them, fit no other way), so the printed west and south edges are grid edges
named in the scenario's ``game_data.map_edges``.
"""
from __future__ import annotations

from pbem.games.panzer_corps.schema import DunkerqueData, DunkerqueVictory
from pbem.games.panzer_corps import events as E
from pbem.core.orders import HEX_RE, OrderError
from pbem.core.scenario import Printed, Scenario
from pbem.core.state import GameState, UnitState
from pbem.core.ruleset import Ctx, secret_commitment
from pbem.games.panzer_corps.common import max_flow, verb, verb_args
from pbem.games.panzer_corps.family import PanzerCorps
from pbem.games.panzer_corps.params import GameParams, result_rules
from pbem.games.panzer_corps.state import DrawSlot, PanzerCorpsState
from pbem.mechanics.movement import trace_line, units_at

DRAW = "R"                             # 3.0(4): the counters' mark, the name of the draw and its slots
EDGE_DEGREES = {"north": 0, "east": 90, "south": 180, "west": 270}   # a grid edge, clockwise from the top


class Dunkerque(PanzerCorps):
    # 2: the per-scenario values moved into the scenario file (issue 17), which changes its sha256 in the log
    ruleset_version = "2"
    scenario_schema = (DunkerqueVictory, DunkerqueData)          # [victory], [game_data] (pbem scenario lint)
    params = GameParams(
        game="dunkerque",
        stacking={"german": 1, "allied": 1},  # 7.0 no stacking
        result_codes=frozenset({"AE", "AR", "C", "DR1", "DR2", "DR3", "DE"}),  # 9.4
        result_rules=result_rules("AE", "AR", "C", "DR", "DE"),
        doubling_terrain=frozenset({"city", "port"}),                     # 9.3
        hexside_costs={"river": 1},          # 8.3(4)
        doubling_hexsides=frozenset({"river"}),   # 9.3(1)
        reinforcement_mp=1,                  # 10.0(5)
    )

    # --- scenario data ------------------------------------------------------

    def hidden_units(self, sc: Scenario) -> list[str]:
        return list(self.data(sc).hidden_reinforcements)

    def slots(self, sc: Scenario) -> list[int]:
        """The turn of each face-down slot (3.0(4): one on 2, two on each of 3 to 5)."""
        return [int(t) for t in self.data(sc).hidden_slots]

    def edge(self, sc: Scenario, printed: str) -> str:
        """The grid edge of the printed map's ``printed`` edge (west, south, ...)."""
        return self.data(sc).map_edges.get(printed, printed)

    def known_features(self) -> set[str]:
        return set()

    def waiting_label(self, sc: Scenario, uid: str) -> str:
        return "face-down reinforcement (R)" if uid in self.hidden_units(sc) else ""

    def ports(self, sc: Scenario) -> list[str]:
        """The port hexes of the places 4.2(1) names (victory.ports)."""
        named = set(self.vic(sc).ports)
        return sorted({h for p in sc.map.places if p.name in named for h in p.hexes
                       if sc.board.terrain.get(h) == "port"})

    # --- the hidden draw (3.0(4), 10.0(2)) ------------------------------------

    def before_order(self, ctx: Ctx) -> None:
        st, sc = ctx.state, ctx.sc
        pool = self.hidden_units(sc)
        if not pool or DRAW in st.draws:
            return
        rolls = []
        for i in range(len(pool) - 1, 0, -1):       # Fisher-Yates with the seeded dice
            r = ctx.secret_roll(i + 1, "referee")  # the referee's own chain (dice scheme 2)
            rolls.append(r)
            pool[i], pool[r - 1] = pool[r - 1], pool[i]
        slots = self.slots(sc)[:len(pool)]
        ctx.emit(E.HiddenDraw(name=DRAW, slots=slots, rolls=rolls, units=pool))
        for k, (turn, uid) in enumerate(zip(slots, pool), start=1):
            salt = ctx.dice.salt()
            ctx.emit(E.SecretRecorded(side="referee", name=self.slot_name(k, turn),
                                      commitment=secret_commitment(salt, uid), salt=salt, payload=uid))

    @staticmethod
    def slot_name(k: int, turn: int) -> str:
        return f"{DRAW}{k}-turn{turn}"

    def schedule(self, st: PanzerCorpsState) -> list[tuple[str, int, str]]:
        """(slot name, turn, unit) in slot order, from the host's copy of the draw."""
        return [(self.slot_name(k, s.turn), s.turn, s.unit) for k, s in enumerate(st.draws.get(DRAW, []), start=1)]

    def due_hidden(self, st: PanzerCorpsState) -> list[tuple[str, str]]:
        """Face-down units that may enter now: (slot name, unit), earliest slot first (10.0(7))."""
        return [(name, uid) for name, t, uid in self.schedule(st)
                if t <= st.turn and st.units[uid].hex is None and not st.units[uid].eliminated]

    def reinforcement_hexes(self, st: GameState, sc: Scenario, u: UnitState) -> list[str]:
        open_to = self.entry_hexes_open(st, sc, u)
        return [h for h in sc.board.grid.edge_hexes(self.edge(sc, "south")) if open_to(h)]

    def on_phase_started(self, ctx: Ctx) -> None:
        st, sc = ctx.state, ctx.sc
        ph = sc.sequence[st.phase]
        due = self.due_hidden(st)
        if ph.name != "movement" or not due or ph.side != st.units[due[0][1]].side:
            return
        hexes = self.reinforcement_hexes(st, sc, st.units[due[0][1]])
        ctx.emit(E.DecisionRequired(side=ph.side, decision="reinforcement", combat=-1, distance=len(due),
                                    options=[[h] for h in hexes], rule="10.0(3)"))

    def hidden_reinforcement(self, ctx: Ctx, order) -> None:
        st, sc = ctx.state, ctx.sc
        d = st.decision
        due_count = d.distance
        word, args = verb(order), verb_args(order)
        if word == "delay" and not args:
            ctx.emit(E.ReinforcementDelayed(count=due_count, rule="10.0(7)"))
            return
        if word != "enter" or not args:
            raise OrderError(f"the game waits for the Allied face-down reinforcements: enter HEX [HEX ...] "
                             f"(one hex per unit, {d.distance} due) or delay", d.rule)
        for h in args:
            if not HEX_RE.match(h):
                raise OrderError(f"face-down units are placed by hex only (nobody knows which unit is which "
                                 f"before it enters): enter HEX [HEX ...]; {h!r} is not a hex", "10.0(3)")
        if len(args) > d.distance:
            raise OrderError(f"only {d.distance} face-down unit(s) may enter now", "10.0(1)")
        if len(set(args)) != len(args):
            raise OrderError("each unit needs its own hex: there is no stacking in Dunkerque", "10.0(4)")
        due = self.due_hidden(st)
        south = self.edge(sc, "south")
        probe = st.units[due[0][1]]
        for h in args:                                # checked before anything is revealed
            if not sc.board.grid.contains(h) or not sc.board.grid.is_edge(h, south):
                raise OrderError(f"{h} is not on the south map edge, where reinforcements enter", "10.0(3)")
            if not self.entry_hex_open(st, sc, probe, h):
                raise OrderError(self._entry_refusal(st, sc, probe, h), "10.0(4)")
        for (name, uid), h in zip(due, args):
            note = st.sealed[name]
            ctx.emit(E.SecretRevealed(side="referee", name=name, salt=note.salt, payload=note.payload))
            self._place_reinforcement(ctx, st.units[uid], h, "10.0(3)")
        if len(args) < due_count:
            ctx.emit(E.ReinforcementDelayed(count=due_count - len(args), rule="10.0(7)"))

    # --- a check's view (core/known.py) ------------------------------------------

    def known(self, k: PanzerCorpsState, state: PanzerCorpsState, sc: Scenario, viewer: str) -> None:
        """10.0(2): no player knows the draw.  A slot already unveiled keeps its unit (public since
        it entered); the units still face down stand in the unveiled slots' place in the order the
        scenario lists them, so how many are due stays right and which is which is nobody's."""
        super().known(k, state, sc, viewer)
        slots = k.draws.get(DRAW)
        if not slots:
            return
        down = [f"referee:{self.slot_name(n, s.turn)}" in state.secrets for n, s in enumerate(slots, start=1)]
        known_units = {s.unit for s, d in zip(slots, down) if not d}
        rest = iter([u for u in self.hidden_units(sc) if u not in known_units])
        k.draws = {**k.draws, DRAW: [DrawSlot(turn=s.turn, unit=next(rest) if d else s.unit)
                                     for s, d in zip(slots, down)]}

    def check_stop(self, before, after, events, sc: Scenario, side: str, order) -> str:
        d = before.decision
        if d is not None and d.kind == "reinforcement" and verb(order) == "enter":
            return "which face-down unit enters is the referee's secret until it does (10.0(2))"
        return ""

    # --- points (4.0) and the end of the game (4.1, 4.2) ------------------------

    def on_eliminated(self, ctx: Ctx, u: UnitState, rule: str) -> None:
        sc = ctx.sc
        cs = sc.unit_defs[u.id].strength
        allied = u.side == "allied"
        v = self.vic(sc)
        points = cs * (v.points_per_allied_cs if allied else v.points_per_german_cs)
        if points:
            ctx.emit(E.PointsScored(side="german", points=points,
                                    reason=f"{'Allied' if allied else 'German'} {u.id} eliminated ({cs} CS)",
                                    rule="4.0(1)" if allied else "4.0(2)"))

    def line_open(self, st: GameState, sc: Scenario):
        """Hexes a connecting line may pass (4.1(2)/(3)): no German unit, no German ZOC (a
        friendly unit does not negate it; disrupted Germans have none, 4.1(4)), no sea."""
        ezoc = self.zoc_against(st, sc, "allied")
        german = {h for h, us in units_at(st).items() if any(u.side != "allied" for u in us)}

        def open_hex(h: str) -> bool:
            t = sc.terrain.get(sc.board.terrain.get(h, ""))
            return t is not None and not t.impassable and h not in german and h not in ezoc
        return open_hex

    def trace(self, st: GameState, sc: Scenario, u: UnitState, open_hex=None) -> list[str] | None:
        """A connecting line from ``u`` to the printed west or south map edge, or None
        (``open_hex``: this state's ``line_open``, when the caller has it already)."""
        if open_hex is None:
            open_hex = self.line_open(st, sc)
        grid = sc.board.grid
        goals = {h for e in (self.edge(sc, "west"), self.edge(sc, "south")) for h in grid.edge_hexes(e)
                 if open_hex(h)}
        return trace_line(sc.board, [u.hex], goals, open_hex=open_hex)

    def end_lines(self, st: GameState, sc: Scenario) -> tuple[list[tuple[UnitState, list[str]]],
                                                               dict[str, dict[str, list[str]]]]:
        """4.1, 4.2(1): the Allied units with a connecting line to the west or south edge (with
        it), and the others' lines to each port they reach, in the evacuation order (our default,
        4.2: the strongest units first, so that whole formations get away).

        The lines marked so far change no hex's openness: the open hexes are found once, and the
        hexes joined through them to the edges (and to each port); a unit with no such hex next
        to it has no line, and its search (every open hex it reaches) is not made.  A line found
        is trace_line's from the unit, as before (tests/test_perf_panzer_corps.py)."""
        grid = sc.board.grid
        line_open = self.line_open(st, sc)
        opened = {h for h in grid.all_hexes() if line_open(h)}
        open_hex = opened.__contains__
        goals = {h for e in (self.edge(sc, "west"), self.edge(sc, "south")) for h in grid.edge_hexes(e)
                 if h in opened}
        to_edge = _region(grid, goals, opened)
        to_port: dict[str, set[str]] = {}
        traced: list[tuple[UnitState, list[str]]] = []
        stranded: dict[str, dict[str, list[str]]] = {}
        for u in sorted(self.on_map(st, "allied"), key=lambda x: (-x.strength, x.id)):
            if _joined(grid, u.hex, goals, to_edge):
                traced.append((u, trace_line(sc.board, [u.hex], goals, open_hex=open_hex)))
                continue
            stranded[u.id] = {}
            for port in self.ports(sc):
                if port == u.hex:                      # in the port: a line of its own hex
                    stranded[u.id][port] = [port]
                elif port in opened:
                    if port not in to_port:
                        to_port[port] = _region(grid, {port}, opened)
                    if _joined(grid, u.hex, {port}, to_port[port]):
                        stranded[u.id][port] = trace_line(sc.board, [u.hex], {port}, open_hex=open_hex)
        return traced, stranded

    def game_over(self, ctx: Ctx) -> None:
        st, sc = ctx.state, ctx.sc
        edges = {self.edge(sc, "west"): "west", self.edge(sc, "south"): "south"}
        grid = sc.board.grid
        traced, stranded = self.end_lines(st, sc)
        for u, path in traced:
            end = path[-1]
            printed = next(edges[e] for e in edges if grid.is_edge(end, e))
            ctx.emit(E.ConnectingLine(subject=u.id, start=u.hex, traced=True,
                                      to=f"the {printed} map edge at {end}", path=path, rule="4.1(2)"))
        capacity = self.vic(sc).port_capacity
        flow = max_flow({uid: st.units[uid].strength for uid in stranded},
                        {port: capacity for port in self.ports(sc)},
                        {uid: list(ports) for uid, ports in stranded.items()})
        for uid, ports in stranded.items():
            u = st.units[uid]
            sent = flow.get(uid, {})
            evacuated = sum(sent.values())
            lost = u.strength - evacuated
            if evacuated:
                port = max(sent, key=lambda k: (sent[k], k))
                where = ", ".join(f"{n} CS through {sc.board.label(k)}" for k, n in sorted(sent.items()))
                note = f"evacuated {where}"
                if lost:
                    note += f"; {lost} CS over the ports' capacity of {capacity} each are lost"
                ctx.emit(E.ConnectingLine(subject=uid, start=u.hex, traced=True, to=sc.board.label(port),
                                          path=ports[port], note=note, rule="4.2(1)"))
                if lost:            # 4.2(2): "considered eliminated", so scored as 4.0(1) scores an Allied CS
                    ctx.emit(E.PointsScored(side="german", points=lost * self.vic(sc).points_per_allied_cs,
                                            reason=f"{lost} CS of {uid} cannot be evacuated", rule="4.2(2)"))
            else:
                why = ("no line to the west or south edge, and every port it reaches is full" if ports
                       else "no line to the west or south edge nor to a port")
                ctx.emit(E.ConnectingLine(subject=uid, start=u.hex, traced=False, note=why, rule="4.1(1)"))
                self._eliminate(ctx, uid, "cut off at the end of the game: no connecting line", "4.1(1)")
        points = ctx.state.score.get("german", 0)
        need = self.vic(sc).german_points_needed
        if points >= need:
            ctx.emit(E.GameEnded(winner="german", reason=f"the German forces have {points} points, "
                                 f"{need} or more are needed", rule="4.0"))
        else:
            ctx.emit(E.GameEnded(winner="allied", reason=f"the German forces have {points} points, "
                                 f"fewer than the {need} they need", rule="4.0"))

    # --- the map's marks ------------------------------------------------------------

    def map_marks(self, state, sc: Scenario, viewer: str) -> dict:
        """4.2: the ports that evacuate cut-off Allied units (a capacity, no VP of their own);
        10.0(3): the printed south edge while face-down units wait to enter (which unit is
        which stays hidden); 4.0: the German points against the need; north is to the left."""
        places = {h: p.name for p in sc.map.places for h in p.hexes}
        cap = self.vic(sc).port_capacity
        marks: dict = {"objectives": [{"hex": h, "vp": 0, "side": "",
                                       "label": f"{places.get(h, h)}: port, evacuates up to {cap} CS (4.2)"}
                                      for h in self.ports(sc)],
                       # north lies a quarter turn clockwise from the printed west edge
                       "north": (EDGE_DEGREES[self.edge(sc, "west")] + 90) % 360}
        d = state.decision
        if state.result is None and d is not None and d.kind == "reinforcement":
            kinds = [(h, sc.terrain.get(sc.board.terrain.get(h, "")))
                     for h in sc.board.grid.edge_hexes(self.edge(sc, "south"))]
            land = [h for h, t in kinds if t is not None and not t.impassable]
            marks["areas"] = [{"label": f"{sc.side_name(d.side)} reinforcements enter (10.0(3))",
                               "hexes": land, "side": d.side}]
        need = self.vic(sc).german_points_needed
        marks["score"] = (f"{sc.side_name('german')} {state.score.get('german', 0)} points "
                          f"({need} or more win at the end, 4.0)")
        return marks

    # --- scenario checks ----------------------------------------------------------

    def lint_game(self, sc: Scenario) -> list[str]:
        errs = []
        hidden = self.hidden_units(sc)
        if len(hidden) != len(self.slots(sc)):
            errs.append(f"game_data.hidden_slots: {len(self.slots(sc))} slots for {len(hidden)} hidden "
                        f"reinforcements; 3.0(4) gives each its slot")
        for t in self.slots(sc):
            if not 1 < t <= sc.turns:
                errs.append(f"game_data.hidden_slots: turn {t} is not a turn after the first (3.0(4))")
        for uid in hidden:
            d = sc.unit_defs.get(uid)
            if d is None:
                errs.append(f"game_data.hidden_reinforcements: unknown unit {uid!r}")
            elif d.hex is not None or d.side != "allied":
                errs.append(f"units[{uid}]: an R unit is Allied and starts off the map (3.0(4))")
        for u in sc.units:
            if u.hex is None and u.id not in hidden:
                errs.append(f"units[{u.id}]: off the map but not an R unit; Dunkerque has no other reinforcements")
        grid_edges = {"north", "south", "east", "west"}
        for printed in ("west", "south"):                         # 4.1(2), 10.0(3): the edges the rules name
            if printed not in self.data(sc).map_edges:
                errs.append(f"game_data.map_edges.{printed}: missing; the printed {printed} edge is read (4.1(2))")
        names = {p.name: p.hexes for p in sc.map.places}
        for port in self.vic(sc).ports:                      # 4.2(1)
            if port not in names:
                errs.append(f"victory.ports: the port {port} (4.2(1)) is not in map.places")
            elif not any(sc.board.terrain.get(h) == "port" for h in names[port]):
                errs.append(f"map.places[{port}]: none of its hexes is a port (4.2(1))")
        stray = sorted(set(h for h, t in sc.board.terrain.items() if t == "port") - set(self.ports(sc)))
        if stray:
            errs.append(f"map: port hexes {', '.join(stray)} belong to no port of victory.ports (4.2(1))")
        if "Leuven" not in names:
            errs.append(Printed("map.places: Leuven (a city by the Dunkerque errata) is missing"))
        elif any(sc.board.terrain.get(h) != "city" for h in names["Leuven"]):
            errs.append(Printed("map.places[Leuven]: Leuven must be a city (Dunkerque errata)"))
        return errs


def _region(grid, seeds: set[str], opened: set[str]) -> set[str]:
    """The hexes of ``opened`` joined to ``seeds`` (open hexes) through open hexes."""
    seen = set(seeds)
    todo = list(seeds)
    while todo:
        for n in grid.neighbours(todo.pop()):
            if n not in seen and n in opened:
                seen.add(n)
                todo.append(n)
    return seen


def _joined(grid, start: str, goals: set[str], region: set[str]) -> bool:
    """Whether trace_line finds a line from ``start`` to ``goals``: ``start`` is a goal, or a hex
    next to it is joined to one (``region``; the start hex itself need not be open)."""
    return start in goals or any(n in region for n in grid.neighbours(start))
