"""Paratroop: Eben Emael (paratroop.txt, "Eben Emael" and its charts; the addenda).

A tactical game: single squads fire at range with line of sight (5.0, 6.0),
close-assault adjacent enemies (7.0), and the German sappers demolish the
Belgian fortifications (8.0) that are printed on the map (9.0).  Rule
numbers below are those of the Eben Emael section.

Fortifications are kept as units of the Belgian side (type "cupola" or
"casemate", movement 0) so that reports and maps show them; their markers
("inactive", "destroyed") are unit marks.  They are never targets of fire
(5.8), never stack with anything and never move.

Secrets (9.5, 11.0): the two dummy cupolas and, in 12.2, the minefield hexes
are sealed before play with the generic ``secret`` order (names ``dummy-1``,
``dummy-2``, ``mine-01`` .. ``mine-15``; the text is the hex).  The German
side sees only their commitments.  The rules read the payloads from the
host's copy of the log (``Ctx.secret_records``), never from the state, and
open a secret with ``SecretRevealed`` exactly when 9.5 (a dummy destroyed by
demolition) or 11.2 (a minefield attack, or a single-hex move into a
minefield) says the German player learns it.  The reducer checks every
opening against its commitment.
"""
from __future__ import annotations

import math

from pbem.games.eben_emael.schema import EbenData, EbenVictory
from pbem.games.eben_emael import events as E
from pbem.core import orders as O
from pbem.core.hexgrid import DIRECTIONS
from pbem.core.orders import OrderError
from pbem.core.scenario import Scenario
from pbem.core.state import Decision, GameState, Result, UnitState
from pbem.core.reduce import no_reducer
from pbem.games.words import classic
from pbem.core.ruleset import Ctx, Ruleset, find_unit, secret_commitment
from pbem.mechanics.sight import SightRules, blocked_by, side_key

GERMAN, BELGIAN = "german", "belgian"
FORT_TYPES = ("cupola", "casemate")
OBSTRUCTING_HEXES = ("woods", "hilltop")                 # 6.5
OBSTRUCTING_SIDES = ("wall", "ridge", "slope", "cliff")  # 6.5
SIDE_COST = {"ridge": 1, "wall": 1, "stream": 1, "slope": 1}   # 4.9 (slope only upslope)
SIDE_PROHIBITED = ("cliff",)                             # 4.2, 4.9
HEXSIDE_FEATURES = ("ridge", "wall", "stream", "slope", "cliff")
FIRE_RESULTS = frozenset({"-", "0", "1", "2", "3"})
ASSAULT_RESULTS = ("De", "Ae", "-")

# --- generic helpers over a scenario's hexside features ----------------------------


def hexside_extra(sc: Scenario, a: str, b: str, extra: dict[str, int] = SIDE_COST,
                  prohibited=SIDE_PROHIBITED) -> int | None:
    """Extra MP to cross from a into adjacent b (None: prohibited).  A slope
    costs its extra only upslope: when b is the hexside's ``up`` hex (4.9)."""
    total = 0
    for hs in _sides(sc).get(side_key(a, b), []):
        if hs.feature in prohibited:
            return None
        if hs.feature == "slope" and hs.up and hs.up != b:
            continue
        total += extra.get(hs.feature, 0)
    return total


def _sides(sc: Scenario) -> dict:
    cache = sc.__dict__.get("_ee_sides")
    if cache is None:
        cache = {}
        for hs in sc.map.hexsides:
            cache.setdefault(side_key(hs.a, hs.b), []).append(hs)
        sc.__dict__["_ee_sides"] = cache
    return cache


def _pixel(grid, h: str) -> tuple[float, float]:
    x, _, z = grid.to_cube(h)
    return 1.5 * x, math.sqrt(3) * (z + x / 2)


def in_field_of_fire(grid, fort: str, target: str, arrows: list[str]) -> bool:
    """9.3 (reconstructed geometry): each arrow covers the 60-degree wedge
    centred on one hexside direction, edges included; a field is the union of
    its arrows.  An empty list means all round (a cupola, 9.2)."""
    if not arrows:
        return True
    fx, fy = _pixel(grid, fort)
    tx, ty = _pixel(grid, target)
    vx, vy = tx - fx, ty - fy
    n = math.hypot(vx, vy)
    if n == 0:
        return False
    for d in arrows:
        nb = _step(grid, fort, d)
        ax, ay = _pixel(grid, nb)
        ax, ay = ax - fx, ay - fy
        cos = (vx * ax + vy * ay) / (n * math.hypot(ax, ay))
        if cos >= math.cos(math.radians(30)) - 1e-9:
            return True
    return False


def _step(grid, h: str, d: str) -> str:
    vec = {"N": (0, 1, -1), "NE": (1, 0, -1), "SE": (1, -1, 0), "S": (0, -1, 1),
           "SW": (-1, 0, 1), "NW": (-1, 1, 0)}[d]
    x, y, z = grid.to_cube(h)
    return grid.from_cube((x + vec[0], y + vec[1], z + vec[2]))


# --- the ruleset -------------------------------------------------------------------


class EbenEmael(Ruleset):
    verbs = frozenset({"place", "fire", "assault", "demolish", "enter", "lose"})   # set-up, fire, close assault (7.0), demolition, entry (10.2), losses
    scenario_schema = (EbenVictory, EbenData)          # [victory], [game_data] (pbem scenario lint)
    defaults_help = (                       # mailed to the players: what a missed deadline does
        "Belgian set-up -- the two lowest-numbered cupolas that may be dummies, no "
        "minefields; German set-up (12.2) -- each unplaced unit in the lowest-numbered free "
        "clear hex; any other phase -- no further action (\"end\"); a loss after Ae -- the "
        "first attacker listed; an advance -- none.")
    game = "eben-emael"
    ruleset_version = "1"
    result_codes = FIRE_RESULTS
    needs_secrets = True          # the engine hands the host's sealed payloads to every order

    # ---- data --------------------------------------------------------------------

    @staticmethod
    def gd(sc: Scenario) -> dict:
        return sc.game_data

    def forts(self, sc: Scenario) -> dict[str, str]:
        """hex -> fort unit id."""
        return {u.hex: u.id for u in sc.units if u.type in FORT_TYPES and u.hex}

    def fort_info(self, sc: Scenario, h: str) -> dict:
        return self.gd(sc).get("forts", {}).get(h, {})

    def is_fort(self, sc: Scenario, uid: str) -> bool:
        d = sc.unit_defs.get(uid)
        return d is not None and d.type in FORT_TYPES

    def terrain(self, sc: Scenario, h: str) -> str:
        return sc.board.terrain.get(h, "")

    # ---- setting up ----------------------------------------------------------------

    def new_state(self, sc: Scenario, game_id: str) -> GameState:
        st = GameState(game_id=game_id, scenario_id=sc.id, game=sc.game)
        optional = set(self.gd(sc).get("optional_units", []))
        use_optional = bool(self.gd(sc).get("use_optional", False))
        for u in sc.units:
            if u.id in optional and not use_optional:
                continue
            us = UnitState(id=u.id, side=u.side, hex=u.hex, strength=u.strength, ma=u.ma)
            if u.type in FORT_TYPES:
                us.marks = ["inactive"]                      # 9.4, 12.1, 12.2
            st.units[u.id] = us
        st.game_data = {"actions": [], "closed": False, "current": 0, "fired": {}, "mine_hits": {},
                        "placed_forts": [], "last_turn_placed": 0}
        return st

    # ---- reducer -------------------------------------------------------------------

    def reduce(self, st: GameState, ev: E.Event, sc: Scenario) -> None:
        # after the core reducer (pbem.core.reduce): only what this game adds
        gd = st.game_data
        match ev:
            case E.PhaseStarted():
                gd["actions"], gd["closed"], gd["current"] = [], False, 0
                gd["fired"], gd["mine_hits"] = {}, {}
                if gd.get("last_turn_placed") != ev.turn:
                    gd["placed_forts"], gd["last_turn_placed"] = [], ev.turn
                for u in st.units.values():
                    u.moved = u.attacked = u.defended = False
            case E.FortActivation():
                if ev.active:
                    _unmark(st.units[self.forts(sc)[ev.fort]], "inactive")
            case E.UnitMoved() | E.UnitEntered():
                u = st.units[ev.unit]
                u.hex = ev.path[-1]
                u.moved = True
            case E.UnitPlaced():
                u = st.units[ev.unit]
                u.hex = ev.hex
                if sc.sequence[st.phase].name == "movement":
                    gd["placed_forts"].append(ev.hex)
            case E.BoldMovement():
                _mark(st.units[ev.unit], "bold")
            case E.FireDeclared():
                gd["actions"].append({"kind": "fire", "firer": ev.firer, "target": ev.target, "second": ev.second})
                gd["fired"][ev.firer] = gd["fired"].get(ev.firer, 0) + 1
            case E.FireResolved():
                if ev.firer == "minefield":
                    gd["mine_hits"].setdefault(ev.target, []).append(ev.hex)
                else:
                    gd["current"] += 1
                if ev.effect == "pinned":
                    _mark(st.units[ev.target], "pinned")
            case E.FireLapsed():
                gd["current"] += 1
            case E.AssaultDeclared():
                gd["actions"].append({"kind": "assault", "target": ev.target, "attackers": list(ev.attackers),
                                      "lose": ev.lose, "advance": ev.advance, "stage": "declared"})
                for a in ev.attackers:
                    st.units[a].attacked = True
            case E.AssaultResolved():
                a = gd["actions"][ev.index]
                a["defender"], a["result"] = ev.defender, ev.result
                a["stage"] = {"De": "eliminate", "Ae": "lose"}.get(ev.result, "done")
            case E.DemolitionDeclared():
                gd["actions"].append({"kind": "demolish", "fort": ev.fort, "unit": ev.unit, "charge": ev.charge})
                st.units[ev.unit].attacked = True
                if ev.charge:
                    _mark(st.units[ev.unit], "charge used")
            case E.DemolitionResolved():
                gd["current"] += 1
                if ev.destroyed:
                    f = st.units[self.forts(sc)[ev.fort]]
                    _unmark(f, "inactive")
                    _mark(f, "destroyed")
            case E.DeclarationsClosed():
                gd["closed"] = True
            case E.UnitEliminated():
                u = st.units[ev.unit]
                u.hex, u.eliminated = None, True
                u.marks = []
                if st.decision is not None and st.decision.kind == "lose":
                    st.decision = None
                    a = gd["actions"][gd["current"]] if gd["current"] < len(gd["actions"]) else None
                    if a is not None and a.get("stage") == "lose":
                        a["stage"] = "done"
                else:
                    a = gd["actions"][gd["current"]] if gd["current"] < len(gd["actions"]) else None
                    if a is not None and a.get("kind") == "assault":
                        if a.get("stage") == "eliminate" and ev.unit == a.get("defender"):
                            a["stage"] = "advance"
                        elif a.get("stage") == "lose" and ev.unit in a["attackers"]:
                            a["stage"] = "done"
            case E.UnitAdvanced():
                st.units[ev.unit].hex = ev.path[-1]
                st.decision = None
                gd["actions"][gd["current"]]["stage"] = "done"
            case E.AdvanceDeclined():
                st.decision = None
                gd["actions"][ev.index]["stage"] = "done"
            case E.CombatFinished():
                gd["current"] = ev.index + 1
            case E.UnitsReorganized():
                for uid in ev.unpinned:
                    _unmark(st.units[uid], "pinned")
                for uid in ev.unmarked:
                    _unmark(st.units[uid], "bold")
            case _:
                no_reducer(self.game, ev)

    # ---- secrets ------------------------------------------------------------------------

    def sealed(self, ctx: Ctx, prefix: str) -> dict[str, str]:
        """hex -> secret name, for the Belgian secrets whose name starts with prefix."""
        out = {}
        for key, rec in sorted(ctx.secret_records.items()):
            side, name = key.split(":", 1)
            if side == BELGIAN and name.startswith(prefix):
                out[rec.payload.strip()] = name
        return out

    def dummies(self, ctx: Ctx) -> dict[str, str]:
        return self.sealed(ctx, "dummy-")

    def minefields(self, ctx: Ctx) -> dict[str, str]:
        return self.sealed(ctx, "mine-")

    def open_secret(self, ctx: Ctx, name: str) -> None:
        key = f"{BELGIAN}:{name}"
        rec = ctx.secret_records.get(key)
        if rec is not None and key in ctx.state.secrets:
            ctx.emit(E.SecretRevealed(side=BELGIAN, name=name, salt=rec.salt, payload=rec.payload))

    def check_sealed(self, ctx: Ctx, order: O.Order) -> None:
        """9.5, 11.0: what the Belgian may seal, and when."""
        if not isinstance(order, O.Secret):
            return
        name = order.name
        if not (name.startswith("dummy-") or name.startswith("mine-")):
            return                                         # a free note: any side, any time
        st, sc = ctx.state, ctx.sc
        ph = sc.sequence[st.phase]
        if ctx.side != BELGIAN or ph.name != "setup-belgian":
            raise OrderError("dummy cupolas and minefields are chosen by the Belgian player before play", "9.5, 11.0")
        h = order.payload.strip()
        if not sc.board.grid.contains(h):
            raise OrderError(f"the text of {name} must be one hex of the map, e.g. 'secret {name} 0611'")
        if name.startswith("dummy-"):
            if name not in ("dummy-1", "dummy-2"):
                raise OrderError("there are two dummy cupolas: name them dummy-1 and dummy-2", "9.5")
            fid = self.forts(sc).get(h)
            if fid is None or sc.unit_defs[fid].type != "cupola":
                raise OrderError(f"{h} is not a cupola", "9.5")
            if h in self.gd(sc).get("never_dummy", []):
                raise OrderError(f"the cupola in {h} may not be a dummy", "9.5")
            if h in self.dummies(ctx):
                raise OrderError(f"{h} is already a dummy", "9.5")
        else:
            count = int(self.gd(sc).get("minefields", 0))
            names = {f"mine-{i:02d}" for i in range(1, count + 1)}
            if name not in names:
                if not count:
                    raise OrderError("this scenario has no minefields", "12.2")
                raise OrderError(f"minefields are named mine-01 .. mine-{count:02d} ({count} hexes)", "12.2")
            if h in self.forts(sc):
                raise OrderError(f"{h} is a fortification hex and may not be a minefield", "11.6")
            if h in self.minefields(ctx):
                raise OrderError(f"{h} is already a minefield", "11.0")

    # ---- what the game waits for ---------------------------------------------------

    def awaiting(self, st: GameState, sc: Scenario) -> list[dict]:
        if st.result is not None or st.phase < 0:
            return []
        if st.decision is not None:
            d = st.decision
            a = st.game_data["actions"][d.combat]
            item = {"side": d.side, "kind": d.kind, "combat": a.get("target", ""), "units": d.units,
                    "rule": d.rule, "options": [" ".join(o) for o in d.options]}
            item["order"] = "lose UNIT" if d.kind == "lose" else "advance UNIT | no-advance"
            return [item]
        ph = sc.sequence[st.phase]
        kind = self.kind(ph.name)
        orders = {
            "setup-belgian": ("set-up", "9.5, 11.0", "secret dummy-1 HEX, secret dummy-2 HEX"
                              + (", secret mine-01 HEX .. mine-15 HEX" if self.gd(sc).get("minefields") else "")
                              + ", then end"),
            "setup-german": ("set-up", "12.2", "place UNIT HEX for every German unit, then end"),
            "fire": ("fire", "5.2", "fire UNIT TARGET (all fire attacks), then end"),
            "movement": ("movement", "4.0", "move UNIT HEX ...; enter UNIT HEX ...; place UNIT HEX; then end"),
            "assault": ("assault", "7.1, 8.2",
                        "assault HEX with UNIT ... / demolish FORT with UNIT [charge] (all of them), then end"),
        }
        k, rule, text = orders.get(kind, (kind, "3.0", "end"))
        if kind == "fire" and st.game_data.get("closed"):
            return []
        return [{"side": ph.side, "kind": k, "rule": rule, "order": text}]

    @staticmethod
    def kind(name: str) -> str:
        return "fire" if name in ("fire", "defensive-fire") else name

    def default_orders(self, st: GameState, sc: Scenario, side: str) -> list[str]:
        """The deadline defaults of ``defaults_help``."""
        for item in self.awaiting(st, sc):
            if item["side"] != side:
                continue
            if item["kind"] == "lose":
                return [f"lose {item['options'][0]}"]
            if item["kind"] == "advance":
                return ["no-advance"]
            ph = sc.sequence[st.phase].name
            if ph == "setup-belgian":
                chosen = {k.split(":", 1)[1] for k in st.secrets if k.startswith("belgian:dummy-")}
                out = []
                cands = [h for h, fid in sorted(self.forts(sc).items())
                         if sc.unit_defs[fid].type == "cupola" and h not in self.gd(sc).get("never_dummy", [])]
                for name, h in zip([n for n in ("dummy-1", "dummy-2") if n not in chosen], cands):
                    out.append(f"secret {name} {h}")
                return out + ["end"]
            if ph == "setup-german":
                used = {u.hex for u in st.units.values() if u.hex}
                free = [h for h in sc.board.grid.all_hexes() if self.terrain(sc, h) == "clear"
                        and h not in self.forts(sc) and h not in used]
                out = []
                for u in sorted(st.units.values(), key=lambda u: u.id):
                    if u.side == GERMAN and u.hex is None and not u.eliminated:
                        out.append(f"place {u.id} {free.pop(0)}")
                return out + ["end"]
            return ["end"]
        return []

    # ---- lint -------------------------------------------------------------------------

    def lint(self, sc: Scenario) -> list[str]:
        errs: list[str] = []
        gd = self.gd(sc)
        grid = sc.board.grid
        forts = self.forts(sc)
        for key in ("effectiveness", "demolition", "fire_rows", "close_assault", "forts", "victory_forts"):
            if key not in gd:
                errs.append(f"game_data.{key}: missing")
        if errs:
            return errs
        for nat in ("german", "belgian"):
            if not isinstance(gd["effectiveness"].get(nat), int):
                errs.append(f"game_data.effectiveness.{nat}: an Effectiveness Rating (integer) is needed")
        cols = sc.crt.columns
        for want in ("Cupola", "1", "2", "3", "German", "Belgian"):
            if want not in cols:
                errs.append(f"crt.columns: no column {want!r} (5.9)")
        for d in range(-1, 9):
            row = gd["fire_rows"].get(str(d)) if str(d) not in sc.crt.rows else sc.crt.rows[str(d)]
            if row is None:
                errs.append(f"fire CRT: no row for modified die {d} (crt.rows or game_data.fire_rows)")
            elif len(row) != len(cols) or any(r not in FIRE_RESULTS for r in row):
                errs.append(f"fire CRT row {d}: needs {len(cols)} results from {sorted(FIRE_RESULTS)}")
        ca = gd["close_assault"]
        if ca.get("columns") != ["0", "+1", "+2", "+3", "+4", "+5"]:
            errs.append("game_data.close_assault.columns: must be 0, +1 .. +5 (7.0)")
        for d in range(1, 9):
            row = ca.get("rows", {}).get(str(d))
            if row is None or len(row) != 6 or any(r not in ASSAULT_RESULTS for r in row):
                errs.append(f"game_data.close_assault.rows[{d}]: six results from De, Ae, -")
        for h, info in gd["forts"].items():
            if h not in forts:
                errs.append(f"game_data.forts.{h}: no fortification unit in that hex")
            for d in info.get("arrows", []):
                if d not in DIRECTIONS:
                    errs.append(f"game_data.forts.{h}.arrows: {d!r} is not a direction {DIRECTIONS}")
        for h, fid in forts.items():
            t = sc.unit_defs[fid].type
            if t == "casemate" and not self.fort_info(sc, h).get("arrows"):
                errs.append(f"units[{fid}]: a casemate needs its field of fire in game_data.forts.{h}.arrows (9.3)")
            if t == "casemate" and not 1 <= sc.unit_defs[fid].strength <= 3:
                errs.append(f"units[{fid}]: a casemate's strength is 1, 2 or 3 (9.1)")
        for h in gd["victory_forts"] + gd.get("never_dummy", []):
            if h not in forts:
                errs.append(f"game_data: {h} is not a fortification hex")
        cupolas = [h for h, fid in forts.items() if sc.unit_defs[fid].type == "cupola"]
        if len([h for h in cupolas if h not in gd.get("never_dummy", [])]) < 2:
            errs.append("fewer than two cupolas may be dummies (9.5)")
        for i, hs in enumerate(sc.map.hexsides):
            if hs.feature not in HEXSIDE_FEATURES:
                errs.append(f"map.hexsides[{i}]: unknown feature {hs.feature!r}")
            if hs.feature == "slope" and hs.up not in (hs.a, hs.b):
                errs.append(f"map.hexsides[{i}]: a slope needs up = one of its two hexes")
        for name in sc.terrain:
            if name not in ("clear", "woods", "building", "hilltop", "canal"):
                errs.append(f"terrain.{name}: not a terrain of the Eben Emael chart (4.9)")
        for r in gd.get("reinforcements", []):
            for uid in r.get("units", []):
                d = sc.unit_defs.get(uid)
                if d is None or d.side != BELGIAN or d.entry_turn != r.get("turn"):
                    errs.append(f"game_data.reinforcements: {uid} is not a Belgian unit entering on turn {r.get('turn')}")
            if r.get("via") not in ("edge", "fortification"):
                errs.append("game_data.reinforcements: via must be edge or fortification (10.2, 10.3)")
        for u in sc.units:
            if u.type not in FORT_TYPES and u.hex is not None and u.hex in forts and u.side == GERMAN:
                errs.append(f"units[{u.id}]: German units may not start in a fortification (4.8)")
            if u.hex and not grid.contains(u.hex):
                pass
        return errs

    # ---- orders -----------------------------------------------------------------------

    def handle(self, ctx: Ctx, order: O.Order) -> None:
        st, sc = ctx.state, ctx.sc
        if st.result is not None:
            raise OrderError(f"the game is over: {sc.side_name(st.result.winner)} won ({st.result.reason})")
        if st.decision is not None:
            self._answer(ctx, order)
            return
        ph = sc.sequence[st.phase]
        if ctx.side != ph.side:
            raise OrderError(f"it is the {sc.side_name(ph.side)} {ph.name} phase of turn {st.turn}; "
                             f"the game waits for {sc.side_name(ph.side)}", "3.0")
        kind = self.kind(ph.name)
        word = order.word if isinstance(order, O.GameVerb) else ""
        if isinstance(order, O.End):
            self._end(ctx, kind)
            return
        if kind == "setup-german" and word == "place":
            self._setup_place(ctx, order.args)
        elif kind == "movement" and isinstance(order, O.Move):
            self._move(ctx, order)
        elif kind == "movement" and word == "enter":
            self._enter(ctx, order.args)
        elif kind == "movement" and word == "place":
            self._place_f(ctx, order.args)
        elif kind == "movement" and word == "lose":
            self._lose_excess(ctx, order.args)
        elif kind == "fire" and word == "fire":
            self._declare_fire(ctx, order.args)
        elif kind == "assault" and word == "assault":
            self._declare_assault(ctx, order.args)
        elif kind == "assault" and word == "demolish":
            self._declare_demolition(ctx, order.args)
        else:
            what = word or order.__struct_config__.tag
            allowed = {"setup-belgian": "secret dummy-N HEX / secret mine-NN HEX, end",
                       "setup-german": "place UNIT HEX, end",
                       "fire": "fire UNIT TARGET, end", "movement": "move, enter, place, lose, end",
                       "assault": "assault HEX with UNIT ..., demolish FORT with UNIT [charge], end"}.get(kind, "end")
            raise OrderError(f"'{what}' is not an order of the {sc.side_name(ph.side)} {ph.name} phase; "
                             f"allowed: {allowed}", "3.0")

    def unit(self, ctx: Ctx, uid: str, side: str | None = None) -> UnitState:
        sc = ctx.sc
        if len(uid) == 4 and uid.isdigit() and uid in self.forts(sc):
            uid = self.forts(sc)[uid]          # a fortification may be named by its hex
        return find_unit(ctx, uid, side)

    def squads_at(self, st: GameState, sc: Scenario) -> dict[str, list[UnitState]]:
        out: dict[str, list[UnitState]] = {}
        for u in st.units.values():
            if u.hex and not u.eliminated and not self.is_fort(sc, u.id):
                out.setdefault(u.hex, []).append(u)
        return out

    def undestroyed_fort(self, st: GameState, sc: Scenario, h: str) -> UnitState | None:
        fid = self.forts(sc).get(h)
        if fid is None:
            return None
        f = st.units[fid]
        return None if "destroyed" in f.marks else f

    # ---- set-up ------------------------------------------------------------------------

    def _setup_place(self, ctx: Ctx, args: list[str]) -> None:
        st, sc = ctx.state, ctx.sc
        if len(args) != 2:
            raise OrderError("write: place UNIT HEX")
        u = self.unit(ctx, args[0], GERMAN)
        h = args[1]
        if u.hex is not None:
            raise OrderError(f"{u.id} is already set up in {u.hex}", "12.2")
        if not sc.board.grid.contains(h):
            raise OrderError(f"{h} is not a hex of the map", "4.5")
        if self.terrain(sc, h) != "clear" or h in self.forts(sc):
            raise OrderError(f"{h} is {self.terrain(sc, h)}{' with a fortification' if h in self.forts(sc) else ''}; "
                             "German units set up in clear hexes only", "12.2")
        if h in self.squads_at(st, sc):
            raise OrderError(f"{h} already holds {self.squads_at(st, sc)[h][0].id}; no stacking", "12.2")
        ctx.emit(E.UnitPlaced(unit=u.id, hex=h))

    # ---- phase flow ---------------------------------------------------------------------

    def _end(self, ctx: Ctx, kind: str) -> None:
        st, sc = ctx.state, ctx.sc
        if kind == "setup-belgian":
            if len(self.dummies(ctx)) != 2:
                raise OrderError("seal both dummy cupolas first: secret dummy-1 HEX and secret dummy-2 HEX", "9.5")
        elif kind == "setup-german":
            left = sorted(u.id for u in st.units.values() if u.side == GERMAN and u.hex is None and not u.eliminated)
            if left:
                raise OrderError(f"set up every German unit first: {', '.join(left)}", "12.2")
            self._mines_at_setup(ctx)
            if st.result is not None:
                return
        elif kind == "movement":
            crowded = [(h, us) for h, us in sorted(self.squads_at(st, sc).items())
                       if len([u for u in us if u.side == ctx.side]) > 1]
            if crowded:
                h, us = crowded[0]
                raise OrderError(f"{h} holds {' and '.join(u.id for u in us)}: only one may stay; "
                                 f"eliminate the excess with 'lose UNIT'", "4.4")
        elif kind in ("fire", "assault"):
            if not st.game_data["closed"]:
                ctx.emit(E.DeclarationsClosed(count=len(st.game_data["actions"])))
                self._resolve(ctx)
                return
        self._next_phase(ctx)

    def _next_phase(self, ctx: Ctx) -> None:
        st, sc = ctx.state, ctx.sc
        nxt, turn = st.phase + 1, st.turn
        if nxt >= len(sc.sequence):
            if turn >= sc.turns:
                self._final_victory(ctx)
                return
            nxt = next(i for i, p in enumerate(sc.sequence) if p.name == "activation")
            turn += 1
        p = sc.sequence[nxt]
        ctx.emit(E.PhaseStarted(turn=turn, phase=nxt, side=p.side, name=p.name))
        self._auto_phase(ctx)

    def _auto_phase(self, ctx: Ctx) -> None:
        st, sc = ctx.state, ctx.sc
        ph = sc.sequence[st.phase]
        if ph.name == "setup-german" and self.gd(sc).get("german_setup", "fixed") == "fixed":
            self._next_phase(ctx)                        # 12.1: the set-up is printed
        elif ph.name == "activation":
            for h, fid in sorted(self.forts(sc).items()):           # 9.4, in hex order
                f = st.units[fid]
                if "inactive" in f.marks and "destroyed" not in f.marks:
                    die = ctx.dice.roll(6)
                    ctx.emit(E.FortActivation(fort=h, rolls=[die], active=die <= 4))
            self._next_phase(ctx)
        elif ph.name == "reorganization":
            mine = [u for u in sorted(st.units.values(), key=lambda u: u.id) if u.side == ph.side]
            ctx.emit(E.UnitsReorganized(side=ph.side, unpinned=[u.id for u in mine if "pinned" in u.marks],
                                        unmarked=[u.id for u in mine if "bold" in u.marks]))
            self._next_phase(ctx)

    def _check_decided(self, ctx: Ctx) -> bool:
        """12.1/12.2: every listed fortification destroyed decides the game (nothing rebuilds one)."""
        st, sc = ctx.state, ctx.sc
        need = self.gd(sc)["victory_forts"]
        if all(self.undestroyed_fort(st, sc, h) is None for h in need):
            ctx.emit(E.GameEnded(winner=GERMAN, reason=f"every required fortification ({', '.join(need)}) is "
                                 "destroyed; none can be rebuilt, so the result is decided", rule=self._vrule(sc)))
            return True
        return False

    def _vrule(self, sc: Scenario) -> str:
        return self.gd(sc).get("victory_rule", "12.1")

    def _final_victory(self, ctx: Ctx) -> None:
        st, sc = ctx.state, ctx.sc
        if self._check_decided(ctx):
            return
        left = [h for h in self.gd(sc)["victory_forts"] if self.undestroyed_fort(st, sc, h) is not None]
        ctx.emit(E.GameEnded(winner=BELGIAN, reason=f"turn {st.turn} is over and fortifications "
                             f"{', '.join(left)} still stand", rule=self._vrule(sc)))

    # ---- movement ----------------------------------------------------------------------

    def step_cost(self, ctx: Ctx, u: UnitState, a: str | None, b: str) -> int:
        """MP to enter b from a (a None: from off the map).  Refuses with the rule."""
        st, sc = ctx.state, ctx.sc
        if not sc.board.grid.contains(b):
            raise OrderError(f"{b} is not on the map; units may not leave it", "4.5")
        if a is not None and not sc.board.grid.adjacent(a, b):
            raise OrderError(f"{b} is not adjacent to {a}: a path goes hex by hex", "4.0")
        terr = self.terrain(sc, b)
        t = sc.terrain.get(terr)
        if t is None or t.impassable:
            raise OrderError(f"{b} is {terr} and may not be entered", "4.2")
        occupants = self.squads_at(st, sc).get(b, [])
        if any(o.side != u.side for o in occupants):
            raise OrderError(f"{b} holds an enemy unit", "4.3")
        if u.side == GERMAN and self.undestroyed_fort(st, sc, b) is not None:
            raise OrderError(f"{b} is an undestroyed fortification; German units may not enter it", "4.8")
        cost = t.move_cost
        if a is not None:
            extra = hexside_extra(sc, a, b)
            if extra is None:
                raise OrderError(f"the hexside {a}-{b} is a cliff and may not be crossed", "4.2")
            cost += extra
        return cost

    def _path_cost(self, ctx: Ctx, u: UnitState, start: str | None, path: list[str]) -> int:
        here, mp = start, 0
        for h in path:
            mp += self.step_cost(ctx, u, here, h)
            here = h
        if mp > u.ma:
            raise OrderError(f"the path costs {mp} MP, more than {u.id}'s movement allowance of {u.ma}", "4.1")
        return mp

    def _can_move(self, ctx: Ctx, u: UnitState) -> None:
        if "pinned" in u.marks:
            raise OrderError(f"{u.id} is pinned and may not move", "4.7")
        if u.moved:
            raise OrderError(f"{u.id} has already moved this phase", "4.0")

    def _end_hex_free(self, ctx: Ctx, u: UnitState, h: str) -> None:
        others = [o for o in self.squads_at(ctx.state, ctx.sc).get(h, []) if o.id != u.id]
        if others:
            raise OrderError(f"{h} holds {others[0].id}; a move may pass through a friend but not end on it", "4.4")

    def _move(self, ctx: Ctx, order: O.Move) -> None:
        st, sc = ctx.state, ctx.sc
        u = self.unit(ctx, order.unit, ctx.side)
        if self.is_fort(sc, u.id):
            raise OrderError("fortifications never move", "9.0")
        if u.hex is None:
            raise OrderError(f"{u.id} is not on the map; reinforcements come in with 'enter' or 'place'", "10.0")
        if order.off:
            raise OrderError("units may not leave the map", "4.5")
        self._can_move(ctx, u)
        path = list(order.path)
        mp = self._path_cost(ctx, u, u.hex, path)
        self._end_hex_free(ctx, u, path[-1])
        bold = len(path) > 1
        if u.side == BELGIAN and bold:
            mines = self.minefields(ctx)
            for h in path:
                if h in mines:
                    raise OrderError(f"{h} is one of your minefields; Belgian units may not enter it "
                                     "by bold movement", "11.8")
        if u.side == GERMAN:
            self._german_move(ctx, u, path, mp)
            return
        ctx.emit(E.UnitMoved(unit=u.id, path=path, mp=mp, ma=u.ma))
        if bold:
            ctx.emit(E.BoldMovement(unit=u.id))

    def _german_move(self, ctx: Ctx, u: UnitState, path: list[str], mp_total: int) -> None:
        """11.0-11.4: minefields interrupt bold movement: a hex entered after the
        first step is attacked on entry; a first-step minefield is attacked when
        the unit goes on out of it; a one-hex move only tells the German player
        that the hex is mined.  The start hex never attacks (11.4)."""
        st, sc = ctx.state, ctx.sc
        mines = self.minefields(ctx)
        bold = len(path) > 1
        start = u.hex
        if bold:
            ctx.emit(E.BoldMovement(unit=u.id))
        if not bold:
            ctx.emit(E.UnitMoved(unit=u.id, path=path, mp=mp_total, ma=u.ma))
            if path[0] in mines:
                self.open_secret(ctx, mines[path[0]])                # 11.2: the German is told
            return
        done: list[str] = []
        here = start
        spent = 0
        for i, h in enumerate(path):
            spent += self.step_cost(ctx, u, here, h)
            done.append(h)
            here = h
            hits = st.game_data["mine_hits"].get(u.id, [])
            if h in mines and h not in hits:
                ctx.emit(E.UnitMoved(unit=u.id, path=done, mp=spent, ma=u.ma))
                done, spent = [], 0
                self.open_secret(ctx, mines[h])
                effect = self._mine_attack(ctx, u, h)
                if effect in ("pinned", "eliminated"):
                    return                                           # 11.3: a pinned unit stays
        if done:
            ctx.emit(E.UnitMoved(unit=u.id, path=done, mp=spent, ma=u.ma))

    def _mine_attack(self, ctx: Ctx, u: UnitState, h: str) -> str:
        """11.0: the Belgian "3" fortification row, two subtracted; terrain ignored (11.5)."""
        return self._roll_fire(ctx, "minefield", u, "3", [("-2", "minefield attack (11.0)")], hex_=h)

    def _mines_at_setup(self, ctx: Ctx) -> None:
        """12.2: German units set up in minefields are attacked before play."""
        st = ctx.state
        mines = self.minefields(ctx)
        for u in sorted(st.units.values(), key=lambda u: u.id):
            if u.side == GERMAN and u.hex in mines and not u.eliminated:
                self.open_secret(ctx, mines[u.hex])
                self._mine_attack(ctx, u, u.hex)

    def _enter(self, ctx: Ctx, args: list[str]) -> None:
        """10.1, 10.2: a map-edge reinforcement; the first hex must be on an edge
        and costs its terrain."""
        st, sc = ctx.state, ctx.sc
        if len(args) < 2:
            raise OrderError("write: enter UNIT EDGE-HEX [HEX ...]")
        u = self.unit(ctx, args[0], ctx.side)
        self._available(ctx, u, "edge")
        path = args[1:]
        grid = sc.board.grid
        if not grid.contains(path[0]) or not any(grid.is_edge(path[0], e) for e in ("north", "south", "east", "west")):
            raise OrderError(f"{path[0]} is not a map-edge hex", "10.2")
        mp = self._path_cost(ctx, u, None, path)
        self._end_hex_free(ctx, u, path[-1])
        if len(path) > 1 and any(h in self.minefields(ctx) for h in path):
            raise OrderError("Belgian units may not enter a minefield by bold movement", "11.8")
        ctx.emit(E.UnitEntered(unit=u.id, path=list(path), mp=mp, ma=u.ma, via="edge"))
        if len(path) > 1:
            ctx.emit(E.BoldMovement(unit=u.id))

    def _available(self, ctx: Ctx, u: UnitState, via: str) -> None:
        st, sc = ctx.state, ctx.sc
        if u.hex is not None:
            raise OrderError(f"{u.id} is already on the map", "10.0")
        for r in self.gd(sc).get("reinforcements", []):
            if u.id in r.get("units", []):
                if r["turn"] > st.turn:
                    raise OrderError(f"{u.id} arrives on turn {r['turn']}", "10.0")
                if r["via"] != via:
                    how = "on a fortification with 'place UNIT HEX'" if r["via"] == "fortification" \
                        else "at a map edge with 'enter UNIT HEX ...'"
                    raise OrderError(f"{u.id} comes in {how}", "10.2, 10.3")
                return
        raise OrderError(f"{u.id} is not a reinforcement", "10.0")

    def _place_f(self, ctx: Ctx, args: list[str]) -> None:
        """10.3: a fort-garrison unit appears on an undestroyed, non-dummy
        fortification, one per fortification per turn; it may then move."""
        st, sc = ctx.state, ctx.sc
        if len(args) != 2:
            raise OrderError("write: place UNIT FORT-HEX")
        u = self.unit(ctx, args[0], ctx.side)
        self._available(ctx, u, "fortification")
        h = args[1]
        if self.undestroyed_fort(st, sc, h) is None:
            raise OrderError(f"{h} is not an undestroyed fortification", "10.3")
        if h in self.dummies(ctx):
            raise OrderError(f"{h} is a dummy cupola; no garrison comes out of it", "10.3")
        if h in st.game_data["placed_forts"]:
            raise OrderError(f"a garrison unit already came out of {h} this turn", "10.3")
        ctx.emit(E.UnitPlaced(unit=u.id, hex=h))

    def _lose_excess(self, ctx: Ctx, args: list[str]) -> None:
        st, sc = ctx.state, ctx.sc
        if len(args) != 1:
            raise OrderError("write: lose UNIT")
        u = self.unit(ctx, args[0], ctx.side)
        mates = [o for o in self.squads_at(st, sc).get(u.hex or "", []) if o.side == u.side]
        if len(mates) < 2:
            raise OrderError(f"{u.id} is not in an overstacked hex", "4.4")
        ctx.emit(E.UnitEliminated(unit=u.id, reason=f"excess unit in {u.hex} at the end of movement", rule="4.4"))

    # ---- sighting ------------------------------------------------------------------------

    def sight_rules(self, sc: Scenario) -> SightRules:
        cached = sc.__dict__.get("_ee_sight")
        if cached is not None:
            return cached
        sides = _sides(sc)

        def feats(x, y):
            return {hs.feature for hs in sides.get(side_key(x, y), [])}

        r = SightRules(
            hex_blocks=lambda h: self.terrain(sc, h) in OBSTRUCTING_HEXES,            # 6.5
            side_blocks=lambda x, y: bool(feats(x, y) & set(OBSTRUCTING_SIDES)),      # 6.5
            adjacent_side_blocks=lambda x, y: "cliff" in feats(x, y),                 # 6.5
            elevated=lambda h: self.terrain(sc, h) == "hilltop",                      # 6.3
            elevated_side_blocks=lambda x, y: "cliff" in feats(x, y),
        )
        sc.__dict__["_ee_sight"] = r
        return r

    def observation(self, ctx: Ctx) -> bool:
        """6.4: an active, undestroyed, real observation cupola remains."""
        st, sc = ctx.state, ctx.sc
        dummies = self.dummies(ctx)
        for h, fid in self.forts(sc).items():
            f = st.units[fid]
            if (self.fort_info(sc, h).get("observation") and h not in dummies
                    and "inactive" not in f.marks and "destroyed" not in f.marks):
                return True
        return False

    def los(self, sc: Scenario, a: str, b: str) -> str:
        return blocked_by(sc.board.grid, a, b, self.sight_rules(sc))

    # ---- fire ------------------------------------------------------------------------------

    def _declare_fire(self, ctx: Ctx, args: list[str]) -> None:
        st, sc = ctx.state, ctx.sc
        if st.game_data["closed"]:
            raise OrderError("the fire attacks of this phase are already announced and resolved", "5.2")
        if len(args) not in (2, 3):
            raise OrderError("write: fire UNIT TARGET (a fortification fires by its hex; in 12.2 a second "
                             "target may follow: fire FORT TARGET TARGET2)")
        firer = self.unit(ctx, args[0], ctx.side)
        fort = self.is_fort(sc, firer.id)
        targets = args[1:]
        if len(targets) == 2 and not (fort and self.gd(sc).get("second_fire")):
            raise OrderError("only fortifications fire twice, and only in scenario 12.2", "5.4, 12.2")
        shots = []
        for i, t in enumerate(targets):
            target = self.unit(ctx, t)
            second = i == 1
            self._check_fire(ctx, firer, target, second)
            shots.append((target, second))
        for target, second in shots:
            ctx.emit(E.FireDeclared(firer=firer.hex if fort else firer.id, target=target.id, second=second))

    def _check_fire(self, ctx: Ctx, firer: UnitState, target: UnitState, second: bool) -> None:
        st, sc = ctx.state, ctx.sc
        fort = self.is_fort(sc, firer.id)
        key = firer.hex if fort else firer.id
        if target.side == firer.side or self.is_fort(sc, target.id):
            raise OrderError(f"{target.id} is not an enemy unit that may be fired on", "5.8" if self.is_fort(sc, target.id) else "5.0")
        if target.hex is None:
            raise OrderError(f"{target.id} is not on the map")
        if fort:
            if "destroyed" in firer.marks:
                raise OrderError(f"the fortification in {firer.hex} is destroyed", "9.0")
            if "inactive" in firer.marks:
                raise OrderError(f"the fortification in {firer.hex} is inactive and may not fire", "9.4")
            if firer.hex in self.dummies(ctx):
                raise OrderError(f"{firer.hex} is a dummy cupola and cannot fire", "9.5")
            done = st.game_data["fired"].get(key, 0)
            if done and not second:
                raise OrderError(f"the fortification in {firer.hex} has already fired this phase", "9.2")
            arrows = self.fort_info(sc, firer.hex).get("arrows", [])
            if not in_field_of_fire(sc.board.grid, firer.hex, target.hex, arrows):
                raise OrderError(f"{target.hex} is outside the field of fire of {firer.hex} "
                                 f"({', '.join(arrows)})", "9.3")
            if second or not self.observation(ctx):
                why = self.los(sc, firer.hex, target.hex)
                if why:
                    extra = " (a second fire never uses the observation cupolas, 12.2)" if second else ""
                    raise OrderError(f"{firer.hex} cannot sight {target.id} in {target.hex}: {why}{extra}", "6.0")
        else:
            if "pinned" in firer.marks:
                raise OrderError(f"{firer.id} is pinned and may not fire", "5.7")
            if firer.hex is None:
                raise OrderError(f"{firer.id} is not on the map")
            if st.game_data["fired"].get(key):
                raise OrderError(f"{firer.id} has already fired this phase", "5.4")
            d = sc.board.grid.distance(firer.hex, target.hex)
            if d > int(self.gd(sc).get("unit_range", 2)):
                raise OrderError(f"{target.id} is {d} hexes away; a unit's range is two", "5.1")
            why = self.los(sc, firer.hex, target.hex)
            if why:
                raise OrderError(f"{firer.id} cannot sight {target.id}: the line from {firer.hex} to "
                                 f"{target.hex} is blocked ({why})", "6.0")

    def _fire_row(self, sc: Scenario, firer: UnitState, second: bool) -> str:
        if self.is_fort(sc, firer.id):
            if second:
                return "1"                                              # 12.2
            d = sc.unit_defs[firer.id]
            return "Cupola" if d.type == "cupola" else str(d.strength)
        return sc.unit_defs[firer.id].nationality.capitalize()

    def _fire_result(self, sc: Scenario, row: str, total: int) -> str:
        total = max(-1, min(8, total))
        rows = sc.crt.rows.get(str(total)) or self.gd(sc)["fire_rows"][str(total)]
        return rows[sc.crt.columns.index(row)]

    def _roll_fire(self, ctx: Ctx, firer: str, target: UnitState, row: str, mods: list[tuple[str, str]],
                   hex_: str | None = None) -> str:
        st, sc = ctx.state, ctx.sc
        die = ctx.dice.roll(6)
        total = die + sum(int(m) for m, _ in mods)
        result = self._fire_result(sc, row, total)
        rolls = [die]
        score = rating = 0
        effect = "no effect"
        if result != "-":
            second = ctx.dice.roll(6)
            rolls.append(second)
            score = second + int(result)
            rating = int(self.gd(sc)["effectiveness"][sc.unit_defs[target.id].nationality])
            if score >= rating + 4:
                effect = "eliminated"
            elif score > rating:
                effect = "already pinned" if "pinned" in target.marks else "pinned"
        ctx.emit(E.FireResolved(firer=firer, target=target.id, hex=hex_ or target.hex or "", row=row,
                                modifiers=[f"{m} {why}" for m, why in mods], rolls=rolls, total=total,
                                result=result, score=score, rating=rating, effect=effect))
        if effect == "eliminated":
            ctx.emit(E.UnitEliminated(unit=target.id, reason=f"fire from {firer}" if firer != "minefield"
                                      else f"minefield in {hex_}", rule="5.0" if firer != "minefield" else "11.0"))
        return effect

    def _fire_mods(self, ctx: Ctx, target: UnitState) -> list[tuple[str, str]]:
        st, sc = ctx.state, ctx.sc
        mods = []
        terr = self.terrain(sc, target.hex)
        if terr in ("woods", "building"):
            mods.append(("+1", f"target in {terr} (5.6)"))
        if target.hex in self.forts(sc):
            mods.append(("+2", "target in a fortification hex (5.6)"))
        if "bold" in target.marks:
            mods.append(("-2", "target used bold movement (4.6)"))
        return mods

    def _resolve_fire(self, ctx: Ctx, a: dict) -> None:
        st, sc = ctx.state, ctx.sc
        firer = self.unit(ctx, self.forts(sc).get(a["firer"], a["firer"]))
        target = st.units[a["target"]]
        if target.eliminated or target.hex is None:
            ctx.emit(E.FireLapsed(firer=a["firer"], target=a["target"], reason="the target is gone"))
            return
        row = self._fire_row(sc, firer, a["second"])
        self._roll_fire(ctx, a["firer"], target, row, self._fire_mods(ctx, target))

    # ---- close assault and demolition -----------------------------------------------------

    def _acting(self, ctx: Ctx, u: UnitState) -> None:
        if "pinned" in u.marks:
            raise OrderError(f"{u.id} is pinned", "7.0, 8.0")
        if u.attacked:
            raise OrderError(f"{u.id} already assaults or demolishes this phase", "7.3, 7.7, 8.3")
        if u.hex is None:
            raise OrderError(f"{u.id} is not on the map")

    def _declare_assault(self, ctx: Ctx, args: list[str]) -> None:
        st, sc = ctx.state, ctx.sc
        usage = "write: assault HEX with UNIT [UNIT ...] [lose UNIT] [advance UNIT | no-advance]"
        if st.game_data["closed"]:
            raise OrderError("the attacks of this phase are already announced and resolved", "7.1")
        if len(args) < 3 or args[1].lower() != "with":
            raise OrderError(usage)
        target = args[0]
        rest = args[2:]
        attackers, lose, advance = [], "", ""
        i = 0
        while i < len(rest):
            w = rest[i].lower()
            if w == "lose" and i + 1 < len(rest):
                lose, i = rest[i + 1], i + 2
            elif w == "advance" and i + 1 < len(rest):
                advance, i = rest[i + 1], i + 2
            elif w == "no-advance":
                advance, i = "-", i + 1
            else:
                attackers.append(rest[i])
                i += 1
        if not attackers:
            raise OrderError(usage)
        defenders = [u for u in self.squads_at(st, sc).get(target, []) if u.side != ctx.side]
        if not defenders:
            what = " (fortifications are never close assaulted)" if target in self.forts(sc) else ""
            raise OrderError(f"{target} holds no enemy unit{what}", "7.8")
        if any(x["kind"] == "assault" and x["target"] == target for x in st.game_data["actions"]):
            raise OrderError(f"{target} is already assaulted this phase", "7.4")
        units = []
        for uid in attackers:
            u = self.unit(ctx, uid, ctx.side)
            self._acting(ctx, u)
            if u in units:
                raise OrderError(f"{u.id} is listed twice", "7.3")
            if not sc.board.grid.adjacent(u.hex, target):
                raise OrderError(f"{u.id} in {u.hex} is not adjacent to {target}", "7.0")
            if "cliff" in {hs.feature for hs in _sides(sc).get(side_key(u.hex, target), [])}:
                raise OrderError(f"{u.id} would assault across the cliff {u.hex}-{target}", "7.8")
            units.append(u)
        ids = [u.id for u in units]
        if lose and lose not in ids:
            raise OrderError(f"lose {lose}: not one of the assaulting units", "7.5")
        if advance not in ("", "-") and advance not in ids:
            raise OrderError(f"advance {advance}: not one of the assaulting units", "7.6")
        ctx.emit(E.AssaultDeclared(target=target, attackers=ids, lose=lose, advance=advance))

    def _declare_demolition(self, ctx: Ctx, args: list[str]) -> None:
        st, sc = ctx.state, ctx.sc
        usage = "write: demolish FORT-HEX with UNIT [charge]"
        if st.game_data["closed"]:
            raise OrderError("the attacks of this phase are already announced and resolved", "8.2")
        if ctx.side != GERMAN:
            raise OrderError("only German units demolish fortifications", "8.0")
        words = [w for w in args if w.lower() != "with"]
        charge = bool(words) and words[-1].lower() == "charge"
        if charge:
            words = words[:-1]
        if len(words) != 2:
            raise OrderError(usage)
        h, uid = words
        if h not in self.forts(sc):
            raise OrderError(f"{h} is not a fortification hex", "8.0")
        if self.undestroyed_fort(st, sc, h) is None:
            raise OrderError(f"the fortification in {h} is already destroyed", "8.0")
        u = self.unit(ctx, uid, GERMAN)
        self._acting(ctx, u)
        if not sc.board.grid.adjacent(u.hex, h):
            raise OrderError(f"{u.id} in {u.hex} is not adjacent to {h}", "8.0")
        if charge and "charge used" in u.marks:
            raise OrderError(f"{u.id} has already used its 110 lb charge", "8.1")
        ctx.emit(E.DemolitionDeclared(fort=h, unit=u.id, charge=charge))

    def _resolve_assault(self, ctx: Ctx, i: int, a: dict) -> None:
        st, sc = ctx.state, ctx.sc
        stage = a["stage"]
        if stage == "declared":
            attackers = [st.units[x] for x in a["attackers"] if not st.units[x].eliminated]
            defenders = [u for u in self.squads_at(st, sc).get(a["target"], []) if u.side != ctx.side]
            if not attackers or not defenders:
                ctx.emit(E.CombatFinished(index=i))
                return
            d = defenders[0]
            diff = max(0, min(5, len(attackers) - 1))                       # 7.0
            mods = []
            terr = self.terrain(sc, a["target"])
            if terr in ("woods", "building"):
                mods.append(f"+1 defender in {terr} (7.8)")
            kinds = []
            for u in attackers:
                f = set()
                for hs in _sides(sc).get(side_key(u.hex, a["target"]), []):
                    if hs.feature in ("ridge", "stream") or (hs.feature == "slope" and hs.up in ("", a["target"])):
                        f.add(hs.feature)
                kinds.append(f)
            if kinds and all(kinds):
                mods.append("+1 every attacker across a ridge, stream or up a slope (7.8)")
            die = ctx.dice.roll(6)
            total = max(1, min(8, die + len(mods)))
            result = self.gd(sc)["close_assault"]["rows"][str(total)][diff]
            ctx.emit(E.AssaultResolved(index=i, target=a["target"], defender=d.id, attackers=[u.id for u in attackers],
                                       differential=diff, modifiers=mods, rolls=[die], total=total, result=result))
        elif stage == "eliminate":
            ctx.emit(E.UnitEliminated(unit=a["defender"], reason=f"close assault on {a['target']}", rule="7.5"))
        elif stage == "lose":
            alive = [x for x in a["attackers"] if not st.units[x].eliminated]
            if a["lose"] in alive:
                pick = a["lose"]
            elif len(alive) == 1:
                pick = alive[0]
            else:
                ctx.emit(E.DecisionRequired(side=ctx.side, decision="lose", combat=i, units=alive,
                                            options=[[x] for x in alive], rule="7.5"))
                return
            ctx.emit(E.UnitEliminated(unit=pick, reason=f"Ae in the close assault on {a['target']}", rule="7.5"))
        elif stage == "advance":
            options = self.advance_options(st, sc, a)
            if not options:
                ctx.emit(E.CombatFinished(index=i))
            elif a["advance"] == "-":
                ctx.emit(E.AdvanceDeclined(index=i))
            elif a["advance"] in options:
                ctx.emit(E.UnitAdvanced(unit=a["advance"], path=[a["target"]]))
            else:
                ctx.emit(E.DecisionRequired(side=ctx.side, decision="advance", combat=i, units=options,
                                            options=[[x] for x in options], rule="7.6"))
        else:
            ctx.emit(E.CombatFinished(index=i))

    def advance_options(self, st: GameState, sc: Scenario, a: dict) -> list[str]:
        """7.6: one victorious attacker may move into the vacated hex, never a German
        into an undestroyed fortification."""
        h = a["target"]
        if self.squads_at(st, sc).get(h):
            return []
        out = []
        for uid in a["attackers"]:
            u = st.units[uid]
            if u.eliminated or u.hex is None:
                continue
            if u.side == GERMAN and self.undestroyed_fort(st, sc, h) is not None:
                continue
            out.append(uid)
        return out

    def _resolve_demolition(self, ctx: Ctx, a: dict) -> None:
        st, sc = ctx.state, ctx.sc
        h, u = a["fort"], st.units[a["unit"]]
        dem = self.gd(sc)["demolition"]
        rating = int(dem["charge"] if a["charge"] else dem["normal"])               # 8.1
        if self.undestroyed_fort(st, sc, h) is None:
            ctx.emit(E.DemolitionResolved(fort=h, unit=u.id, rating=rating, modifiers=[], rolls=[], total=0,
                                          destroyed=False, wasted=True))          # 8.2
            return
        mods = []
        if u.hex and {hs.feature for hs in _sides(sc).get(side_key(u.hex, h), [])} & {"ridge", "slope"}:
            mods.append("+1 through a ridge or slope hexside (8.5)")
        die = ctx.dice.roll(6)
        total = die + len(mods)
        ok = total <= rating
        ctx.emit(E.DemolitionResolved(fort=h, unit=u.id, rating=rating, modifiers=mods, rolls=[die], total=total,
                                      destroyed=ok))
        if ok:
            dummies = self.dummies(ctx)
            if h in dummies:
                self.open_secret(ctx, dummies[h])                                  # 9.5
            self._check_decided(ctx)

    def _resolve(self, ctx: Ctx) -> None:
        st = ctx.state
        gd = st.game_data
        while st.result is None and st.decision is None:
            i = gd["current"]
            if i >= len(gd["actions"]):
                self._next_phase(ctx)
                return
            a = gd["actions"][i]
            if a["kind"] == "fire":
                self._resolve_fire(ctx, a)
            elif a["kind"] == "demolish":
                self._resolve_demolition(ctx, a)
            else:
                self._resolve_assault(ctx, i, a)

    def _answer(self, ctx: Ctx, order: O.Order) -> None:
        st, sc = ctx.state, ctx.sc
        d = st.decision
        assert d is not None
        if ctx.side != d.side:
            raise OrderError(f"the game waits for {sc.side_name(d.side)} to choose ({d.kind})", d.rule)
        if d.kind == "lose":
            if not (isinstance(order, O.GameVerb) and order.word == "lose" and len(order.args) == 1):
                raise OrderError(f"the game waits for the unit to lose: lose UNIT, one of {', '.join(d.units)}", d.rule)
            u = self.unit(ctx, order.args[0], ctx.side)
            if u.id not in d.units:
                raise OrderError(f"{u.id} did not take part; choose one of {', '.join(d.units)}", d.rule)
            a = st.game_data["actions"][d.combat]
            ctx.emit(E.UnitEliminated(unit=u.id, reason=f"Ae in the close assault on {a['target']}", rule="7.5"))
        else:
            if not isinstance(order, O.Advance):
                raise OrderError(f"the game waits for an advance: advance UNIT (one of {', '.join(d.units)}) "
                                 "or no-advance", d.rule)
            if order.unit == "-":
                ctx.emit(E.AdvanceDeclined(index=d.combat))
            else:
                u = self.unit(ctx, order.unit, ctx.side)
                if u.id not in d.units:
                    raise OrderError(f"{u.id} may not advance; choose one of {', '.join(d.units)}", d.rule)
                a = st.game_data["actions"][d.combat]
                ctx.emit(E.UnitAdvanced(unit=u.id, path=[a["target"]]))
        self._resolve(ctx)

    # ---- wording ---------------------------------------------------------------------------

    def describe_event(self, ev: E.Event, sc: Scenario, origin: str | None = None) -> str | None:
        own = self._own_words(ev, sc)
        return own if own is not None else classic(ev, sc, origin)

    def _own_words(self, ev: E.Event, sc: Scenario) -> str | None:
        lab = sc.board.label
        match ev:
            case E.FortActivation():
                return (f"Activation roll for the fortification in {ev.fort}: die {ev.rolls[0]}, "
                        f"{'activated' if ev.active else 'stays inactive'} (9.4).")
            case E.BoldMovement():
                return f"{ev.unit} moved more than one hex: Bold Movement marker (4.6)."
            case E.UnitEntered():
                via = f" and moves via {' '.join(ev.path[1:-1])} to {ev.path[-1]}" if len(ev.path) > 1 else ""
                return f"{ev.unit} enters the map at {lab(ev.path[0])}{via} ({ev.mp} of {ev.ma} MP) (10.1, 10.2)."
            case E.UnitPlaced():
                return f"{ev.unit} is placed in {lab(ev.hex)} (10.3, 12.2)."
            case E.FireDeclared():
                extra = " (second fire at strength 1, 12.2)" if ev.second else ""
                return f"Fire announced: {ev.firer} at {ev.target}{extra} (5.2)."
            case E.FireResolved():
                who = "A minefield" if ev.firer == "minefield" else ev.firer
                mods = f" ({'; '.join(ev.modifiers)})" if ev.modifiers else ""
                head = (f"{who} fires at {ev.target} in {lab(ev.hex)} on the {ev.row} row{mods}: "
                        f"die {ev.rolls[0]}, modified {ev.total}, result {ev.result}")
                if ev.result == "-":
                    return head + ": no effect (5.0)."
                return (head + f"; {ev.target}'s die {ev.rolls[1]} + {ev.result} = {ev.score} against "
                        f"Effectiveness {ev.rating}: {ev.effect} (5.0, 5.7).")
            case E.FireLapsed():
                return f"The fire of {ev.firer} at {ev.target} lapses: {ev.reason}."
            case E.AssaultDeclared():
                return f"Close assault announced on {lab(ev.target)} by {', '.join(ev.attackers)} (7.1)."
            case E.AssaultResolved():
                mods = f" ({'; '.join(ev.modifiers)})" if ev.modifiers else ""
                return (f"Close assault on {ev.defender} in {lab(ev.target)} by {'+'.join(ev.attackers)}: "
                        f"differential +{ev.differential}{mods}, die {ev.rolls[0]} (modified {ev.total}): "
                        f"{ev.result} (7.5, 7.9).")
            case E.DemolitionDeclared():
                return (f"Demolition announced: {ev.unit} against the fortification in {ev.fort}"
                        f"{' with its 110 lb charge' if ev.charge else ''} (8.2).")
            case E.DemolitionResolved():
                if ev.wasted:
                    return f"{ev.unit}'s demolition of {ev.fort} is wasted: it is already destroyed (8.2)."
                mods = f" ({'; '.join(ev.modifiers)})" if ev.modifiers else ""
                return (f"{ev.unit} demolishes {ev.fort}: rating {ev.rating}, die {ev.rolls[0]}{mods} = {ev.total}: "
                        f"{'DESTROYED' if ev.destroyed else 'no effect'} (8.0).")
            case E.UnitsReorganized():
                parts = []
                if ev.unpinned:
                    parts.append(f"unpinned {', '.join(ev.unpinned)}")
                if ev.unmarked:
                    parts.append(f"Bold Movement markers removed from {', '.join(ev.unmarked)}")
                return f"{sc.side_name(ev.side)} reorganization: {'; '.join(parts) or 'nothing to do'} (3.0)."
            case E.SecretRevealed() if ev.name.startswith("dummy-"):
                return f"The cupola in {ev.payload} was a dummy ({ev.name}, checked against its commitment) (9.5)."
            case E.SecretRevealed() if ev.name.startswith("mine-"):
                return f"{lab(ev.payload)} is a minefield ({ev.name}, checked against its commitment) (11.2)."
            case E.DecisionRequired() if ev.decision == "lose":
                return f"{sc.side_name(ev.side)} must choose which of {', '.join(ev.units)} is eliminated (7.5)."
            case E.UnitAdvanced():
                return f"{ev.unit} advances into {lab(ev.path[-1])} (7.6)."
            case E.DeclarationsClosed():
                return f"{ev.count} attack(s) announced; now resolved in order (5.2, 7.1, 8.2)."
        return None


def _mark(u: UnitState, m: str) -> None:
    if m not in u.marks:
        u.marks = sorted(u.marks + [m])


def _unmark(u: UnitState, m: str) -> None:
    if m in u.marks:
        u.marks = [x for x in u.marks if x != m]
