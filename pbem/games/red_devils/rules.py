"""Paratroop: Red Devils (paratroop.txt, "Red Devils"): Arnhem, September 1944.

Rule numbers are the cases of the Red Devils rules.  What this module adds to
the core, in the terms of design.md:

* Opportunity fire (5.0) is a decision of the non-phasing player taken in the
  middle of the phasing player's move.  Each side may give a standing
  *doctrine* (``doctrine always | never | ask | fire-at differential>=N``, per
  firing unit exceptions ``doctrine UNIT ...``, cleared again with ``doctrine
  UNIT default``), recorded as a DoctrineSet event
  and applied automatically; each shot is an OpportunityFire event.  Where the
  doctrine says ``ask`` (the default when none is given) the move pauses
  (MovePaused is the DecisionRequired of this game, kind ``opportunity-fire``)
  and resumes on the answer ``fire UNIT ...`` or ``pass``.
* Movement points are kept exactly with fractions.Fraction (4.2 roads).
* The Polish drop zones (9.7) are a sealed secret ``secret polish-dz HEX HEX``
  checked when sealed (two hexes, each with four valid landing hexes within
  three) and opened with ``unveil polish-dz`` at the start of the British
  movement phase of turn 9, where the opening is checked against the
  commitment before the Polish units land.

Game state beyond the core GameState lives in ``state.extra["rd"]`` (a JSON
document, see ``RD``), changed only by the reducer.
"""
from __future__ import annotations

import math
from collections import deque
from fractions import Fraction

from msgspec import Struct

from pbem.games.red_devils.schema import RedDevilsData, GameTable
from pbem.games.red_devils import events as E
from pbem.core import orders as O
from pbem.core.orders import OrderError
from pbem.core.scenario import Scenario
from pbem.core.state import Attack, Decision, GameState, Result, UnitState
from pbem.core.reduce import no_reducer
from pbem.games.words import classic
from pbem.core.ruleset import Ctx, Ruleset, Stash, find_unit, secret_commitment
from pbem.games.panzer_corps.common import units_at

GAME = "red-devils"
POLISH_SECRET = "polish-dz"
RIJN = "major_river"
MINOR = "minor_river"
ROADS = ("major_road", "minor_road")
RAIL_BRIDGE = "rail_bridge"
FERRY = "ferry"
RESULTS = frozenset({"Ae", "Ad", "-", "Dd", "De", "De*"})
# 12.6 levels of victory: (lowest British VP total, level)
LEVELS = [(33, "British Decisive Victory"), (27, "British Median Victory"), (21, "British Marginal Victory"),
          (16, "German Marginal Victory"), (6, "German Median Victory"), (-10**6, "German Decisive Victory")]


# --- the game's own state ------------------------------------------------------

class Doctrine(Struct, omit_defaults=True):
    default: str = "ask"                   # "ask" | "always" | "never" | "diff>=N"
    units: dict[str, str] = {}
    retreat: str = ""                      # "" = ask, "disrupt"
    bridge: str = ""                       # "" = ask, "demolish", "spare"


class Pending(Struct, omit_defaults=True):
    """A move (or landing) paused for the non-phasing player's answer."""
    unit: str
    hex: str
    question: str                          # "fire" | "bridge"
    firers: list[str] = []
    remaining: list[str] = []
    costs: list[str] = []                  # cumulative MP once each remaining hex is entered
    spent: str = "0"
    ma: int = 10
    mode: str = ""
    swim: bool = False
    off: bool = False
    context: str = "move"                  # "start" (5.1) | "move" | "landing"
    then: str = "step"                     # where the walk resumes: "step" | "fire"


class Landing(Struct, omit_defaults=True):
    units: list[str] = []                  # to land this turn (9.0)
    placed: list[str] = []                 # in the order placed
    resolved: list[str] = []               # Airlanding Table done (or eliminated first)
    polish: bool = False


class RD(Struct, omit_defaults=True):
    doctrine: dict[str, Doctrine] = {}
    fired: list[str] = []                  # "FIRER>TARGET" this phase (5.2)
    hit: list[str] = []                    # disrupted by opportunity fire this phase (5.3)
    pending: Pending | None = None
    landing: Landing | None = None
    landed: dict[str, int] = {}            # unit -> turn it air-landed (9.6)
    fire_disrupted: list[str] = []         # disrupted by fire while landing (9.3)
    dz: dict[str, str] = {}                # drop zone chosen at set-up (1.2)
    swim: bool = False                     # 4.6 used this player-turn
    ferry_turn: int = 0                    # 4.7 last game-turn the ferry carried a unit
    bridge: str = ""                       # 11.0: "" untouched, "destroyed", "intact"
    exited: dict[str, list[str]] = {}      # unit -> [turn, letter] (4.5)
    mode: dict[str, str] = {}              # 4.8 declared this phase
    polish_dz: list[str] = []              # revealed 9.7 zones
    vp: dict[str, int] = {}


_stash = Stash("rd", RD, deterministic=True)
rd_of = _stash.get
rd_put = _stash.put


def frac(text: str) -> Fraction:
    return Fraction(text)


def frac_text(f: Fraction) -> str:
    """'3 1/2' for 7/2; '1/3'; '4'."""
    if f.denominator == 1:
        return str(f.numerator)
    w, r = divmod(f.numerator, f.denominator)
    return f"{w} {r}/{f.denominator}" if w else f"{r}/{f.denominator}"


def column_index(diff: int) -> int:
    """The CRT column of a combat differential (7.2: beyond an edge, the edge column)."""
    if diff <= -3:
        return 0
    if diff <= -1:
        return 1
    if diff == 0:
        return 2
    if diff == 1:
        return 3
    if diff <= 3:
        return 4
    if diff <= 6:
        return 5
    if diff <= 9:
        return 6
    if diff <= 13:
        return 7
    return 8


class RedDevils(Ruleset):
    verbs = frozenset({"place", "land", "doctrine", "fire", "pass", "disrupt", "demolish", "spare", "recover", "mode"})   # opportunity fire (5.0), Dd/Ad (7.6), the bridge (11.0), recovery (8.5), motorized mode (4.8)
    scenario_schema = (GameTable, RedDevilsData)          # [victory], [game_data] (pbem scenario lint)
    defaults_help = (                       # mailed to the players: what a missed deadline does
        "Deadline defaults (never a die roll): movement/combat 'end'; opportunity fire "
        "'pass'; bridge 'spare'; Dd 'disrupt' (else the first safe path); Ad 'disrupt'; no "
        "advance; recovery of the first units by id; landing on the first valid hex by "
        "number; the Polish zones are unveiled; at set-up the first printed drop zones and, "
        "if no Polish zones were sealed, the two lowest-numbered hexes that qualify.")
    game = GAME
    ruleset_version = "1"
    result_codes = RESULTS

    # --- scenario data -------------------------------------------------------

    @staticmethod
    def gd(sc: Scenario) -> dict:
        return sc.game_data

    def info(self, sc: Scenario, uid: str) -> dict:
        return self.gd(sc).get("units", {}).get(uid, {})

    def rng(self, sc: Scenario, uid: str) -> int:
        return int(self.info(sc, uid).get("range", 1))           # 2.5: no printed range = 1

    def utype(self, sc: Scenario, uid: str) -> str:
        return sc.unit_defs[uid].type

    def is_artillery(self, sc: Scenario, uid: str) -> bool:
        return self.rng(sc, uid) > 2                                # 6.6: range greater than two

    def is_mech(self, sc: Scenario, uid: str) -> bool:
        return self.utype(sc, uid) in self.gd(sc).get("mechanized_types", [])

    def terrain(self, sc: Scenario, h: str) -> str:
        return sc.board.terrain.get(h, "")

    def entry_letter(self, sc: Scenario, h: str) -> str:
        for letter, hexes in self.gd(sc).get("entry_hexes", {}).items():
            if h in hexes:
                return letter
        return ""

    # --- setting up ----------------------------------------------------------

    def new_state(self, sc: Scenario, game_id: str) -> GameState:
        st = GameState(game_id=game_id, scenario_id=sc.id, game=sc.game)
        for u in sc.units:
            st.units[u.id] = UnitState(id=u.id, side=u.side, hex=u.hex, strength=u.strength, ma=u.ma)
        return st

    # --- reducer ---------------------------------------------------------------

    def reduce(self, st: GameState, ev: E.Event, sc: Scenario) -> None:
        # after the core reducer (pbem.core.reduce): only what this game adds
        rd = rd_of(st)
        match ev:
            case E.PhaseStarted():
                st.attacks, st.current = [], 0
                for u in st.units.values():
                    u.moved = u.attacked = u.defended = False
                rd.fired, rd.hit, rd.mode, rd.pending = [], [], {}, None
                if ev.name == "movement":
                    rd.swim = False
                if ev.name == "movement" and ev.side == "british":
                    rd.landing = self._landing_for(st, sc, ev.turn)
            case E.UnitPlaced():
                rd.dz[ev.unit] = ev.hex
            case E.DoctrineSet():
                rd.doctrine[ev.side] = Doctrine(default=ev.default, units=dict(ev.units), retreat=ev.retreat,
                                                bridge=ev.bridge)
            case E.UnitLanded():
                u = st.units[ev.unit]
                u.hex = ev.hex
                rd.landed[ev.unit] = st.turn
                if rd.landing is not None:
                    rd.landing.placed.append(ev.unit)
            case E.AirLandingResolved():
                if rd.landing is not None:
                    rd.landing.resolved.append(ev.unit)
                    if len(rd.landing.resolved) == len(rd.landing.units):
                        rd.landing = None
                        rd.fired, rd.hit = [], []        # 9.3 fire is not the movement phase's (our reading)
            case E.UnitMoved():
                u = st.units[ev.unit]
                trail = ([u.hex] if u.hex else []) + list(ev.path)
                for a, b in zip(trail, trail[1:]):
                    if FERRY in sc.board.side_features(a, b):
                        rd.ferry_turn = st.turn               # 4.7 one unit per game-turn
                    elif self.unbridged_rijn(st, sc, a, b):
                        rd.swim = True                        # 4.6 one crossing per player-turn
                u.hex = ev.path[-1]
                u.moved = True
                rd.exited.pop(ev.unit, None)
            case E.UnitExited():
                u = st.units[ev.unit]
                u.hex, u.moved = None, True
                rd.exited[ev.unit] = [str(st.turn), ev.letter]
            case E.MovePaused():
                rd.pending = Pending(unit=ev.unit, hex=ev.hex, question=ev.question, firers=list(ev.firers),
                                     remaining=list(ev.remaining), costs=list(ev.costs), spent=ev.spent, ma=ev.ma, mode=ev.mode,
                                     swim=ev.swim, off=ev.off, context=ev.context, then=ev.then)
                kind = "opportunity-fire" if ev.question == "fire" else "bridge"
                st.decision = Decision(side=ev.side, kind=kind, combat=-1, units=[ev.unit],
                                       options=[[f] for f in ev.firers], rule=ev.rule)
            case E.OpportunityFire():
                rd.fired.append(f"{ev.firer}>{ev.target}")
                if ev.by == "answer":
                    st.decision, rd.pending = None, None
            case E.OpportunityFirePassed():
                if ev.by == "answer":
                    st.decision, rd.pending = None, None
            case E.BridgeDemolition():
                rd.bridge = "destroyed" if ev.destroyed else "intact"
                st.decision, rd.pending = None, None
            case E.UnitDisrupted():
                u = st.units[ev.unit]
                u.disrupted = True
                if ev.rule.startswith("5.") or ev.rule.startswith("9.3"):
                    rd.hit.append(ev.unit)
                if ev.rule.startswith("9.3"):
                    rd.fire_disrupted.append(ev.unit)
                self._owed_done(st, ev.unit)
            case E.AttackDeclared():
                st.attacks.append(Attack(target=ev.target, attackers=list(ev.attackers), advance=ev.advance,
                                         advance_path=list(ev.advance_path)))
                st.current = len(st.attacks) - 1
                for a in ev.attackers:
                    st.units[a].attacked = True
                for u in st.units.values():
                    if u.hex == ev.target and not u.eliminated:
                        u.defended = True
            case E.CombatResolved():
                a = st.attacks[ev.index]
                a.result, a.defenders = ev.result, list(ev.defenders)
                res = ev.result
                if res == "De*":
                    res = "Dd" if self.terrain(sc, ev.target) == "city" else "De"      # 7.6
                if res in ("Dd", "De"):
                    owe = list(ev.defenders)
                    if res == "Dd":
                        # 8.2: an already disrupted unit in a city is not affected by a disruption result
                        owe = [d for d in owe if not (st.units[d].disrupted and self.terrain(sc, ev.target) == "city")]
                    a.stage, a.to_retreat, a.distance = "defender", owe, 2
                    a.attacker_retreat = {"kind": [res]}
                elif res in ("Ae", "Ad"):
                    adj = [x for x in ev.attackers if sc.board.grid.adjacent(st.units[x].hex, ev.target)]
                    a.stage, a.to_retreat, a.distance = "attacker", adj, 2
                    a.attacker_retreat = {"kind": [res], "hexes": [st.units[x].hex for x in adj]}
                else:
                    a.stage = "done"
                if a.stage != "done" and not a.to_retreat:
                    a.stage = "advance"
            case E.UnitRetreated():
                u = st.units[ev.unit]
                if st.attacks and st.current < len(st.attacks):
                    a = st.attacks[st.current]
                    if ev.unit in a.defenders:
                        a.retreat = list(ev.path)
                    elif a.stage == "attacker":
                        a.stage = "attacker-retreat"          # 7.6 Ad: all retreat once one has
                u.hex = ev.path[-1]
                self._owed_done(st, ev.unit)
            case E.UnitEliminated():
                u = st.units[ev.unit]
                u.hex, u.eliminated, u.disrupted = None, True, False
                self._owed_done(st, ev.unit)
            case E.UnitAdvanced():
                st.units[ev.unit].hex = ev.path[-1]
                st.attacks[st.current].stage = "done"
                st.decision = None
            case E.AdvanceDeclined():
                st.attacks[ev.index].stage = "done"
                st.decision = None
            case E.CombatFinished():
                st.attacks[ev.index].stage = "finished"
                st.decision = None
            case E.UnitsRecovered():
                for uid in ev.units:
                    st.units[uid].disrupted = False
                st.decision = None
            case E.VictoryCounted():
                rd.vp = {"total": ev.total}
                st.score = {"british": ev.total}
            case E.SecretRevealed():
                if ev.name == POLISH_SECRET and ev.side == "british":
                    rd.polish_dz = ev.payload.split()
            case _:
                no_reducer(self.game, ev)
        rd_put(st, rd)

    def _landing_for(self, st: GameState, sc: Scenario, turn: int) -> Landing | None:
        """9.0: units scheduled to air-land at the start of this British movement phase."""
        gd = self.gd(sc)
        polish = set(gd.get("polish_units", []))
        due = [u.id for u in sc.units if u.side == "british" and u.entry_turn == turn and u.hex is None
               and not st.units[u.id].eliminated]
        if not due:
            return None
        return Landing(units=due, polish=bool(polish & set(due)))

    @staticmethod
    def _owed_done(st: GameState, uid: str) -> None:
        if st.decision is not None and uid in st.decision.units:
            st.decision = None
        if not st.attacks or st.current >= len(st.attacks):
            return
        a = st.attacks[st.current]
        if uid in a.to_retreat:
            a.to_retreat.remove(uid)
            if not a.to_retreat and a.stage in ("defender", "attacker", "attacker-retreat"):
                a.stage = "advance"

    # --- lint ------------------------------------------------------------------

    def lint(self, sc: Scenario) -> list[str]:
        errs: list[str] = []
        gd = self.gd(sc)
        grid = sc.board.grid
        on = grid.contains

        def hexes(where: str, hs) -> None:
            for h in hs:
                if not on(h):
                    errs.append(f"game_data.{where}: hex {h} is not on the map")

        for key in ("move_costs", "road_costs", "units", "entry_hexes", "command_points", "vp_hexes",
                    "vp_special", "mechanized_types"):
            if key not in gd:
                errs.append(f"game_data.{key}: missing")
        for t in sc.terrain:
            if t not in gd.get("move_costs", {}):
                errs.append(f"game_data.move_costs: no costs for terrain {t!r} (4.9)")
        for t, pair in {**gd.get("move_costs", {}), **gd.get("road_costs", {})}.items():
            if len(pair) != 2 or any(c != "P" and not _is_frac(c) for c in pair):
                errs.append(f"game_data costs for {t!r}: need [mechanized, non-mechanized] as fractions or 'P'")
        for letter, hs in gd.get("entry_hexes", {}).items():
            hexes(f"entry_hexes.{letter}", hs)
        hexes("vp_hexes", gd.get("vp_hexes", []))
        hexes("vp_special", gd.get("vp_special", []))
        if len(gd.get("airlanding_table", [])) != 8:
            errs.append("game_data.airlanding_table: eight results, for modified rolls -1 up to 6 (9.9)")
        cps = gd.get("command_points", [])
        if len(cps) < sc.turns:
            errs.append(f"game_data.command_points: {len(cps)} entries for {sc.turns} turns (8.5)")
        ids = set(sc.unit_defs)
        for uid, info in gd.get("units", {}).items():
            if uid not in ids:
                errs.append(f"game_data.units.{uid}: no such unit")
                continue
            hexes(f"units.{uid}.drop_zones", info.get("drop_zones", []))
            ent = info.get("entry", "")
            if ent and not (ent in gd.get("entry_hexes", {}) or self.entry_letter(sc, ent)):
                errs.append(f"game_data.units.{uid}.entry: {ent!r} is neither an entry letter nor an entry hex (10.1)")
        for u in sc.units:
            info = self.info(sc, u.id)
            if u.side == "british" and u.hex is None and u.id not in gd.get("polish_units", []):
                dzs = info.get("drop_zones", [])
                if not dzs:
                    errs.append(f"units[{u.id}]: a British reinforcement needs drop_zones (9.0)")
                for dz in dzs:
                    if on(dz) and len(self.landing_hexes(sc, dz, ignore_units=True)) < 1:
                        errs.append(f"units[{u.id}]: drop zone {dz} has no valid landing hex within three (9.1)")
            if u.side == "german" and u.hex is None and not info.get("entry"):
                errs.append(f"units[{u.id}]: a German reinforcement needs an entry hex or letter (10.0)")
        first = [u for u in sc.units if u.side == "british" and u.entry_turn == 1]
        if len(first) != 14:
            errs.append(f"units: {len(first)} British units land on turn 1; 1.2 gives fourteen")
        start = [u for u in sc.units if u.side == "german" and u.hex is not None]
        if len(start) != 4:
            errs.append(f"units: {len(start)} German units start on the map; 1.1 gives four")
        if len(gd.get("polish_units", [])) != 4:
            errs.append("game_data.polish_units: 9.7 gives four Polish units")
        for name in sc.map.features:
            if name not in ("road",):
                errs.append(f"map.features.{name}: not a feature the Red Devils rules know")
        known = {RIJN, MINOR, RAIL_BRIDGE, FERRY, *ROADS}
        for i, hs in enumerate(sc.map.hexsides):
            if hs.feature not in known:
                errs.append(f"map.hexsides[{i}]: unknown feature {hs.feature!r}")
        return errs

    # --- terrain and movement (4.x) ----------------------------------------------

    def landing_hexes(self, sc: Scenario, dz: str, st: GameState | None = None, ignore_units: bool = False) -> list[str]:
        """9.1, 9.2: clear or broken hexes within three of ``dz``, not next to a city, not occupied."""
        grid = sc.board.grid
        occ = set() if ignore_units or st is None else set(units_at(st))
        out = []
        for h in grid.within(dz, 3):
            if self.terrain(sc, h) not in ("clear", "broken"):
                continue
            if any(self.terrain(sc, n) == "city" for n in grid.neighbours(h)):
                continue
            if h in occ:
                continue
            out.append(h)
        return out

    def rijn_between(self, sc: Scenario, a: str, b: str) -> bool:
        return RIJN in sc.board.side_features(a, b)

    def unbridged_rijn(self, st: GameState, sc: Scenario, a: str, b: str) -> bool:
        """A Neder Rijn hexside with no road bridge, or the railway bridge once destroyed (11.0)."""
        f = sc.board.side_features(a, b)
        if RIJN not in f:
            return False
        if any(r in f for r in ROADS):
            return False
        if RAIL_BRIDGE in f and rd_of(st).bridge != "destroyed":
            return False
        return True

    def step_cost(self, st: GameState, sc: Scenario, uid: str, a: str | None, b: str, mech: bool) -> Fraction | None:
        """MP to enter b from a (None: prohibited), 4.2, 4.6, 4.9; a None = entering from off the map (10.4)."""
        gd = self.gd(sc)
        terr = self.terrain(sc, b)
        feats = sc.board.side_features(a, b) if a else set()
        road = next((r for r in ROADS if r in feats), None)
        if a is None and sc.board.has(b, "road"):
            road = "major_road" if any("major_road" in sc.board.side_features(b, n)
                                       for n in sc.board.grid.neighbours(b)) else "minor_road"
        if road:
            # 4.2: through a road hexside only the road cost counts; artillery moves on roads as non-mechanized (4.9)
            use_mech = mech and not self.is_artillery(sc, uid)
            return frac(gd["road_costs"][road][0 if use_mech else 1])
        if a and self.unbridged_rijn(st, sc, a, b):
            return None
        cost = gd["move_costs"].get(terr, ["P", "P"])[0 if mech else 1]
        if cost == "P":
            return None
        c = frac(cost)
        if MINOR in feats:
            if mech:
                return None                                   # 4.9 minor river: P for mechanized
            c += 1
        return c

    def zoc_sources(self, st: GameState, sc: Scenario, h: str, side: str) -> list[UnitState]:
        """Enemy units whose ZOC covers h (4.4; none across the Neder Rijn; disrupted units too, 8.3)."""
        grid = sc.board.grid
        out = []
        for n in grid.neighbours(h):
            for u in units_at(st).get(n, []):
                if u.side != side and not self.rijn_between(sc, h, n):
                    out.append(u)
        return out

    def in_ezoc(self, st: GameState, sc: Scenario, h: str, side: str) -> bool:
        return bool(self.zoc_sources(st, sc, h, side))

    def movement_mode(self, st: GameState, sc: Scenario, u: UnitState) -> bool:
        """True = mechanized.  4.8: motorized infantry as declared ('mode'), mechanized by default
        unless it starts where mechanized units may not be."""
        t = self.utype(sc, u.id)
        if t == "motorized infantry":
            m = rd_of(st).mode.get(u.id)
            if m:
                return m == "mech"
            if u.hex and self.gd(sc)["move_costs"].get(self.terrain(sc, u.hex), ["P"])[0] == "P":
                return False
            return True
        return self.is_mech(sc, u.id)

    # --- what the game waits for ----------------------------------------------------

    def awaiting(self, st: GameState, sc: Scenario) -> list[dict]:
        if st.result is not None or st.phase < 0:
            return []
        rd = rd_of(st)
        d = st.decision
        if d is not None:
            if d.kind == "opportunity-fire":
                p = rd.pending
                return [{"side": d.side, "kind": "opportunity-fire", "units": d.units, "rule": "5.0",
                         "options": [f"{o[0]} (range {self.rng(sc, o[0])})" for o in d.options],
                         "order": f"fire UNIT ... (some of: {' '.join(o[0] for o in d.options)}) | pass"
                                  + (f"  [target in {p.hex}]" if p else "")}]
            if d.kind == "bridge":
                return [{"side": d.side, "kind": "bridge demolition", "units": d.units, "rule": "11.0",
                         "order": "demolish (roll: 1-5 destroys) | spare"}]
            if d.kind == "retreat":
                a = st.attacks[d.combat]
                opts = [" ".join(o) for o in d.options]
                return [{"side": d.side, "kind": "retreat", "units": d.units, "combat": a.target, "rule": d.rule,
                         "distance": 2, "options": opts,
                         "order": "retreat UNIT HEX HEX" + (" | disrupt UNIT" if d.distance == 0 else "")}]
            if d.kind == "ad":
                a = st.attacks[d.combat]
                return [{"side": d.side, "kind": "attacker retreat (Ad)", "units": d.units, "combat": a.target,
                         "rule": "7.6", "options": [" ".join(o) for o in d.options],
                         "order": "retreat UNIT HEX HEX (for each unit) | disrupt"}]
            if d.kind in ("advance", "defender-advance"):
                a = st.attacks[d.combat]
                return [{"side": d.side, "kind": d.kind, "units": d.units, "combat": a.target, "rule": d.rule,
                         "options": [" ".join(o) for o in d.options], "order": "advance UNIT [HEX ...] | no-advance"}]
            if d.kind == "recover":
                return [{"side": d.side, "kind": "recover", "units": d.units, "rule": "8.5",
                         "order": f"recover UNIT ... (at most {d.distance})"}]
        ph = sc.sequence[st.phase]
        if ph.name == "setup":
            return [{"side": ph.side, "kind": "set-up", "rule": "1.2, 9.7",
                     "order": f"place UNIT HEX (units with two drop zones), secret {POLISH_SECRET} HEX HEX, then end"}]
        if ph.name == "movement" and ph.side == "british" and rd.landing is not None:
            if rd.landing.polish and not rd.polish_dz:
                return [{"side": "british", "kind": "reveal Polish drop zones", "rule": "9.7",
                         "order": f"unveil {POLISH_SECRET}"}]
            left = [u for u in rd.landing.units if u not in rd.landing.placed]
            return [{"side": "british", "kind": "air landing", "units": left, "rule": "9.0",
                     "order": "land UNIT HEX (each unit, within three hexes of its drop zone)"}]
        if ph.name == "movement":
            return [{"side": ph.side, "kind": "movement", "rule": "4.0",
                     "order": "move UNIT HEX ... [off] (any number), mode UNIT mech|foot, doctrine ..., then end"}]
        return [{"side": ph.side, "kind": "combat", "rule": "6.0, 7.0",
                 "order": "attack HEX with UNIT ... [advance UNIT [HEX ...] | no-advance] (resolved at once), then end"}]

    def default_orders(self, st: GameState, sc: Scenario, side: str) -> list[str]:
        """The deadline defaults of ``defaults_help``."""
        for item in self.awaiting(st, sc):
            if item["side"] != side:
                continue
            k = item["kind"]
            d = st.decision
            if k == "opportunity-fire":
                return ["pass"]
            if k == "bridge demolition":
                return ["spare"]
            if k == "retreat":
                return [f"disrupt {d.units[0]}"] if d.distance == 0 else [f"retreat {d.units[0]} {item['options'][0]}"]
            if k.startswith("attacker retreat"):
                a = st.attacks[d.combat]
                if a.stage == "attacker":
                    return ["disrupt"]
                return [f"retreat {d.options[0][0]} {' '.join(d.options[0][1:])}"]
            if k in ("advance", "defender-advance"):
                return ["no-advance"]
            if k == "recover":
                return ["recover " + " ".join(sorted(d.units)[:d.distance])]
            if k.startswith("reveal"):
                return [f"unveil {POLISH_SECRET}"]
            if k == "air landing":
                return self._default_landings(st, sc, item["units"])
            if k == "set-up":
                out = []
                if f"british:{POLISH_SECRET}" not in st.secrets:
                    good = [h for h in sc.board.grid.all_hexes()
                            if len(self.landing_hexes(sc, h, ignore_units=True)) >= 4][:2]
                    out.append(f"secret {POLISH_SECRET} {' '.join(good)}")
                return out + ["end"]
            return ["end"]
        return []

    def _default_landings(self, st: GameState, sc: Scenario, left: list[str]) -> list[str]:
        """Each unit on the lowest-numbered free valid hex of its drop zone; the Poles all
        around the first of their two zones that still fits every one already down."""
        grid = sc.board.grid
        rd = rd_of(st)
        taken: set[str] = set()
        polish = set(self.gd(sc).get("polish_units", []))
        down = [st.units[x].hex for x in (rd.landing.placed if rd.landing else []) if x in polish and st.units[x].hex]
        out = []
        for uid in left:
            zones = self._zones_for(st, sc, uid)
            if uid in polish:
                zones = [z for z in zones if all(grid.distance(z, h) <= 3 for h in down)][:1]
            for z in zones:
                hs = [h for h in self.landing_hexes(sc, z, st) if h not in taken]
                if hs:
                    taken.add(hs[0])
                    out.append(f"land {uid} {hs[0]}")
                    break
        return out

    # --- orders -----------------------------------------------------------------

    def check_sealed(self, ctx: Ctx, order: O.Order) -> None:
        """9.7: the Polish drop zones are sealed at set-up and opened at the start of the
        British movement phase of turn 9; other sealed notes are free."""
        st, sc = ctx.state, ctx.sc
        name = order.name
        if name != POLISH_SECRET:
            return
        ph = sc.sequence[st.phase]
        if ctx.side != "british":
            raise OrderError(f"only the British player records the Polish drop zones", "9.7")
        if isinstance(order, O.Secret):
            if ph.name != "setup":
                raise OrderError("the Polish drop zones are chosen before play starts, in the set-up", "9.7")
            hs = order.payload.split()
            if len(hs) != 2 or hs[0] == hs[1]:
                raise OrderError(f"write two different hexes: secret {POLISH_SECRET} HEX HEX", "9.7")
            for h in hs:
                if not sc.board.grid.contains(h):
                    raise OrderError(f"{h} is not a hex of the map", "9.7")
                n = len(self.landing_hexes(sc, h, ignore_units=True))
                if n < 4:
                    raise OrderError(f"{h} has only {n} valid air landing hex(es) within three hexes; "
                                     "each Polish drop zone needs at least four", "9.7")
            return
        # unveil
        rd = rd_of(st)
        if not (ph.name == "movement" and ph.side == "british" and rd.landing is not None and rd.landing.polish):
            raise OrderError("the Polish drop zones are revealed at the start of the British movement phase "
                             f"of turn {self.gd(sc).get('polish_turn', 9)}", "9.7")
        key = f"british:{POLISH_SECRET}"
        rec = ctx.secret_records.get(key)
        if rec is None or key not in st.secrets:
            raise OrderError("no Polish drop zones were sealed", "9.7")
        if secret_commitment(rec.salt, rec.payload) != st.secrets[key]:
            raise OrderError("the recorded Polish drop zones do not match the commitment sealed at set-up", "9.7")

    def handle(self, ctx: Ctx, order: O.Order) -> None:
        st, sc = ctx.state, ctx.sc
        if st.result is not None:
            raise OrderError(f"the game is over: {st.result.reason}")
        if isinstance(order, O.GameVerb) and order.word == "doctrine":
            self._doctrine(ctx, order.args)
            return
        if st.decision is not None:
            self._answer(ctx, order)
            return
        ph = sc.sequence[st.phase]
        if ctx.side != ph.side:
            raise OrderError(f"it is the {sc.side_name(ph.side)} {ph.name} phase of turn {st.turn}; "
                             f"the game waits for {sc.side_name(ph.side)}", "3.0")
        word = order.word if isinstance(order, O.GameVerb) else order.__struct_config__.tag
        if ph.name == "setup":
            if word == "place":
                return self._place(ctx, order.args)
            if word == "end":
                if self.gd(sc).get("polish_units") and f"british:{POLISH_SECRET}" not in st.secrets:
                    raise OrderError(f"record the Polish drop zones first: secret {POLISH_SECRET} HEX HEX", "9.7")
                return self._next_phase(ctx)
            raise OrderError("at set-up: place UNIT HEX, secret polish-dz HEX HEX, end", "1.2")
        rd = rd_of(st)
        if ph.name == "movement":
            if rd.landing is not None:
                if word != "land":
                    left = [u for u in rd.landing.units if u not in rd.landing.placed]
                    what = f"unveil {POLISH_SECRET}" if rd.landing.polish and not rd.polish_dz else \
                        f"land UNIT HEX for {', '.join(left)}"
                    raise OrderError(f"the air landing comes first, before any unit moves: {what}", "9.0, 9.8")
                return self._land(ctx, order.args)
            if word == "move":
                return self._move(ctx, order)
            if word == "mode":
                return self._mode(ctx, order.args)
            if word == "end":
                return self._next_phase(ctx)
            raise OrderError("in a movement phase: move, mode, doctrine, end", "4.0")
        if ph.name == "combat":
            if word == "attack":
                return self._attack(ctx, order)
            if word == "end":
                return self._next_phase(ctx)
            raise OrderError("in a combat phase: attack HEX with UNIT ..., end", "7.0")
        raise OrderError(f"nothing to do in the {ph.name} phase")

    def unit(self, ctx: Ctx, uid: str, side: str | None = None, on_map: bool = True,
             alive: bool = True) -> UnitState:
        return find_unit(ctx, uid, side, on_map=on_map, alive=alive)

    # doctrine ---------------------------------------------------------------------

    @staticmethod
    def _doctrine_value(words: list[str]) -> str:
        w = [x.lower() for x in words]
        if w in (["always"], ["fire"], ["fire-at", "any"]):
            return "always"
        if w in (["never"], ["pass"]):
            return "never"
        if w == ["ask"]:
            return "ask"
        if len(w) == 2 and w[0] == "fire-at" and w[1].startswith("differential>="):
            n = w[1][len("differential>="):]
            try:
                return f"diff>={int(n)}"
            except ValueError:
                pass
        raise OrderError("a doctrine is: always | never | ask | fire-at differential>=N", "5.0")

    def _doctrine(self, ctx: Ctx, args: list[str]) -> None:
        """doctrine always|never|ask|fire-at differential>=N; doctrine UNIT ...; doctrine UNIT default
        (the unit follows the side's doctrine again); doctrine dd disrupt|ask; doctrine bridge demolish|spare|ask."""
        st, sc = ctx.state, ctx.sc
        if not args:
            raise OrderError("doctrine needs a value: doctrine always | never | ask | fire-at differential>=N", "5.0")
        cur = rd_of(st).doctrine.get(ctx.side, Doctrine())
        new = Doctrine(default=cur.default, units=dict(cur.units), retreat=cur.retreat, bridge=cur.bridge)
        head = args[0].lower()
        if head == "dd":
            if args[1:] not in (["disrupt"], ["ask"]):
                raise OrderError("doctrine dd disrupt | ask (the standing answer to a Dd result)", "7.6")
            new.retreat = "" if args[1] == "ask" else "disrupt"
        elif head == "bridge":
            if ctx.side != "german" or len(args) != 2 or args[1] not in ("demolish", "spare", "ask"):
                raise OrderError("doctrine bridge demolish | spare | ask (German only)", "11.0")
            new.bridge = "" if args[1] == "ask" else args[1]
        elif head in ("always", "never", "ask", "fire", "pass", "fire-at"):
            new.default = self._doctrine_value(args)
        elif head == "default":
            raise OrderError("default clears one unit's exception: doctrine UNIT default; the side's own "
                             "doctrine is: always | never | ask | fire-at differential>=N", "5.0")
        elif [w.lower() for w in args[1:]] == ["default"]:
            u = self.unit(ctx, args[0], ctx.side, on_map=False, alive=False)
            if u.id not in new.units:
                raise OrderError(f"{u.id} has no doctrine exception to clear: it already follows the "
                                 f"{sc.side_name(ctx.side)} doctrine ({self._doctrine_words(new.default)})", "5.0")
            del new.units[u.id]
            ctx.emit(E.DoctrineSet(side=ctx.side, default=new.default, units=new.units, retreat=new.retreat,
                                   bridge=new.bridge, cleared=u.id))
            return
        else:
            u = self.unit(ctx, args[0], ctx.side, on_map=False)
            try:
                new.units[u.id] = self._doctrine_value(args[1:])
            except OrderError:
                raise OrderError(f"doctrine {u.id} always | never | ask | fire-at differential>=N, or default "
                                 f"(back to the side's doctrine)", "5.0") from None
        ctx.emit(E.DoctrineSet(side=ctx.side, default=new.default, units=new.units, retreat=new.retreat,
                               bridge=new.bridge))

    @staticmethod
    def _doctrine_words(value: str) -> str:
        """A stored doctrine value in the order's own words."""
        return f"fire-at differential>={value[6:]}" if value.startswith("diff>=") else value

    def doctrine_says(self, st: GameState, side: str, firer: str, diff: int) -> str:
        """'fire', 'pass' or 'ask' for one firing unit at one differential."""
        d = rd_of(st).doctrine.get(side, Doctrine())
        v = d.units.get(firer, d.default)
        if v == "always":
            return "fire"
        if v == "never":
            return "pass"
        if v.startswith("diff>="):
            return "fire" if diff >= int(v[6:]) else "pass"
        return "ask"

    # set-up and air landing (1.2, 9.x) ----------------------------------------------

    def _place(self, ctx: Ctx, args: list[str]) -> None:
        st, sc = ctx.state, ctx.sc
        if len(args) != 2:
            raise OrderError("place UNIT HEX: the drop zone of a unit printed with two", "1.2")
        u = self.unit(ctx, args[0], "british", on_map=False)
        dzs = self.info(sc, u.id).get("drop_zones", [])
        if sc.unit_defs[u.id].entry_turn != 1 or len(dzs) < 2:
            raise OrderError(f"{u.id} has one drop zone; only the turn-1 units printed with two hexes choose", "1.2")
        if args[1] not in dzs:
            raise OrderError(f"{u.id} may be placed in {' or '.join(dzs)} only", "1.2")
        ctx.emit(E.UnitPlaced(unit=u.id, hex=args[1]))

    def _zones_for(self, st: GameState, sc: Scenario, uid: str) -> list[str]:
        rd = rd_of(st)
        if uid in self.gd(sc).get("polish_units", []):
            return list(rd.polish_dz)
        if uid in rd.dz:
            return [rd.dz[uid]]
        return list(self.info(sc, uid).get("drop_zones", []))[:1]

    def _polish_ok(self, st: GameState, sc: Scenario, uid: str, h: str) -> bool:
        """9.7: all four Polish units land around the same one of the two zones."""
        gd = self.gd(sc)
        if uid not in gd.get("polish_units", []):
            return True
        rd = rd_of(st)
        grid = sc.board.grid
        placed = [st.units[x].hex for x in (rd.landing.placed if rd.landing else []) if x in gd["polish_units"]
                  and st.units[x].hex]
        return any(all(grid.distance(z, p) <= 3 for p in placed + [h]) for z in rd.polish_dz)

    def _land(self, ctx: Ctx, args: list[str]) -> None:
        st, sc = ctx.state, ctx.sc
        rd = rd_of(st)
        assert rd.landing is not None
        if rd.landing.polish and not rd.polish_dz:
            raise OrderError(f"reveal the Polish drop zones first: unveil {POLISH_SECRET}", "9.7")
        if len(args) != 2:
            raise OrderError("land UNIT HEX", "9.0")
        u = self.unit(ctx, args[0], "british", on_map=False)
        h = args[1]
        if u.id not in rd.landing.units or u.id in rd.landing.placed:
            raise OrderError(f"{u.id} is not waiting to air-land this turn; waiting: "
                             f"{', '.join(x for x in rd.landing.units if x not in rd.landing.placed)}", "9.0")
        if not sc.board.grid.contains(h):
            raise OrderError(f"{h} is not a hex of the map", "9.0")
        zones = self._zones_for(st, sc, u.id)
        if not any(sc.board.grid.distance(z, h) <= 3 for z in zones):
            raise OrderError(f"{h} is more than three hexes from {u.id}'s drop zone {' / '.join(zones)}", "9.0")
        if self.terrain(sc, h) not in ("clear", "broken"):
            raise OrderError(f"{h} is {self.terrain(sc, h)}; units air-land on clear or broken hexes only", "9.1")
        if any(self.terrain(sc, n) == "city" for n in sc.board.grid.neighbours(h)):
            raise OrderError(f"{h} is next to a city hex", "9.1")
        if units_at(st).get(h):
            raise OrderError(f"{h} is occupied; air-landing units may not share a hex", "9.2")
        if not self._polish_ok(st, sc, u.id, h):
            raise OrderError("the four Polish units land around one and the same drop zone", "9.7")
        ctx.emit(E.UnitLanded(unit=u.id, hex=h))
        rd = rd_of(st)
        if rd.landing is not None and len(rd.landing.placed) == len(rd.landing.units):
            self._landing_continue(ctx, None)

    def _landing_continue(self, ctx: Ctx, fired_on: str | None) -> None:
        """9.3 then 9.9 for each placed unit in placement order; ``fired_on`` = the unit whose
        opportunity fire was just answered."""
        st, sc = ctx.state, ctx.sc
        while True:
            rd = rd_of(st)
            if rd.landing is None:
                return
            todo = [x for x in rd.landing.placed if x not in rd.landing.resolved]
            if not todo:
                return
            uid = todo[0]
            u = st.units[uid]
            if not u.eliminated and fired_on != uid:
                firers = self.eligible_firers(st, sc, u, u.hex, landing=True)
                ask = self._fire_round(ctx, u, u.hex, firers, mult=2, swim=False)
                if ask and not st.units[uid].eliminated and uid not in rd_of(st).hit:
                    ctx.emit(E.MovePaused(side="german", unit=uid, hex=u.hex, question="fire", firers=ask,
                                          context="landing", rule="9.3"))
                    return
            fired_on = None
            self._airlanding_roll(ctx, uid)

    def _airlanding_roll(self, ctx: Ctx, uid: str) -> None:
        st, sc = ctx.state, ctx.sc
        u = st.units[uid]
        if u.eliminated:
            ctx.emit(E.AirLandingResolved(unit=uid, hex="", rolls=[], modifiers=["eliminated by opportunity fire"],
                                          total=0, result="E"))
            return
        h = u.hex
        grid = sc.board.grid
        mods = []
        die = ctx.dice.roll(sc.die)
        total = die
        if self.terrain(sc, h) == "broken":
            total -= 1
            mods.append("-1 broken terrain (9.9)")
        near = any(self.terrain(sc, n) in ("woods", "town", "rough") for n in grid.neighbours(h))
        river = any(sc.board.side_features(h, n) & {RIJN, MINOR} for n in grid.neighbours(h))   # its own hexsides
        if near or river:
            total -= 1
            mods.append("-1 next to woods, town, rough or river (9.9)")
        table = self.gd(sc)["airlanding_table"]              # results for modified rolls -1 .. 6
        res = table[max(min(total, 6), -1) + 1]
        ctx.emit(E.AirLandingResolved(unit=uid, hex=h, rolls=[die], modifiers=mods, total=total, result=res))
        if res == "E":
            ctx.emit(E.UnitEliminated(unit=uid, reason=f"Air Landing Table {total}: E", rule="9.9"))
        elif res == "D":
            if u.disrupted:
                ctx.emit(E.UnitEliminated(unit=uid, reason="disrupted by fire while landing and again by the "
                                                           "Air Landing Table", rule="9.3"))
            else:
                ctx.emit(E.UnitDisrupted(unit=uid, reason=f"Air Landing Table {total}: D", rule="9.9"))

    # opportunity fire (5.x) -------------------------------------------------------------

    def city_between(self, sc: Scenario, a: str, b: str) -> bool:
        """5.4: a city hex, or a hexside of one, lies between two hexes two apart."""
        for p, m in sc.board.grid.line_pairs(a, b)[1:-1]:
            if self.terrain(sc, p) == "city" or self.terrain(sc, m) == "city":
                return True
        return False

    def eligible_firers(self, st: GameState, sc: Scenario, target: UnitState, h: str, landing: bool = False,
                        adjacent_only: bool = False) -> list[str]:
        """Undisrupted non-artillery enemy units with ``h`` in range that have not yet fired at the target (5.0-5.4)."""
        rd = rd_of(st)
        if target.id in rd.hit:
            return []
        grid = sc.board.grid
        out = []
        for f in sorted(st.units.values(), key=lambda x: x.id):
            if f.side == target.side or f.hex is None or f.eliminated or f.disrupted:
                continue
            if self.is_artillery(sc, f.id) or f"{f.id}>{target.id}" in rd.fired:
                continue
            d = grid.distance(f.hex, h)
            if d > self.rng(sc, f.id) or (adjacent_only and d != 1):
                continue
            if self.terrain(sc, h) == "city" and d > 1:
                continue                                      # 5.4 into a city: adjacent firers only
            if d == 2 and self.city_between(sc, f.hex, h):
                continue                                      # 5.4 no range-2 fire through a city
            out.append(f.id)
        return out

    def _fire_round(self, ctx: Ctx, target: UnitState, h: str, firers: list[str], mult: int, swim: bool) -> list[str]:
        """Doctrine fires at once (in id order); returns the firers whose owner must be asked."""
        st = ctx.state
        side = st.units[firers[0]].side if firers else ""
        ask = []
        for f in firers:
            t = st.units[target.id]
            if t.eliminated or t.id in rd_of(st).hit:
                return []
            diff = st.units[f].strength * mult - t.strength
            say = self.doctrine_says(st, side, f, diff)
            if say == "fire":
                self.shoot(ctx, f, target.id, h, mult, swim, by="doctrine")
            elif say == "ask":
                ask.append(f)
        t = st.units[target.id]
        if t.eliminated or t.id in rd_of(st).hit:
            return []
        return ask

    def shoot(self, ctx: Ctx, firer: str, target: str, h: str, mult: int, swim: bool, by: str) -> None:
        st, sc = ctx.state, ctx.sc
        f, t = st.units[firer], st.units[target]
        fs = f.strength * mult
        diff = fs - t.strength
        col = column_index(max(diff, -3))                     # 5.2: below -3 use -3
        shifts = []
        terr = self.terrain(sc, h)
        if swim:
            shifts.append("no terrain benefit while swimming the Neder Rijn (4.6)")
        elif terr in ("city", "rough"):
            col -= 2
            shifts.append(f"target in {terr}: two columns left (5.4)")
        elif terr in ("town", "woods"):
            col -= 1
            shifts.append(f"target in {terr}: one column left (5.4)")
        col = max(0, min(col, len(sc.crt.columns) - 1))
        if mult == 2:
            shifts.insert(0, f"{f.id} fires at double strength at a landing unit (9.3)")
        die = ctx.dice.roll(sc.die)
        res = sc.crt.rows[str(die)][col]
        ctx.emit(E.OpportunityFire(firer=firer, target=target, hex=h, fire_strength=fs, target_strength=t.strength,
                                   differential=diff, column=sc.crt.columns[col], shifts=shifts, rolls=[die],
                                   result=res, by=by))
        if res == "De*":
            res = "Dd" if terr == "city" else "De"
        if res == "De":
            ctx.emit(E.UnitEliminated(unit=target, reason=f"opportunity fire by {firer}: De", rule="5.0"))
        elif res == "Dd":
            stacked = [u for u in units_at(st).get(h, []) if u.id != target]
            if swim:
                ctx.emit(E.UnitEliminated(unit=target, reason="disrupted while swimming the Neder Rijn", rule="4.6"))
            elif stacked:
                ctx.emit(E.UnitEliminated(unit=target, reason=f"disrupted by fire while stacked with "
                                                              f"{stacked[0].id}", rule="5.3"))
            else:
                rule = "9.3" if mult == 2 else "5.3"
                ctx.emit(E.UnitDisrupted(unit=target, reason=f"opportunity fire by {firer}", rule=rule))

    # movement -------------------------------------------------------------------------

    def _mode(self, ctx: Ctx, args: list[str]) -> None:
        """4.8: ``mode UNIT mech|foot HEX ...`` moves motorized infantry the declared way."""
        st, sc = ctx.state, ctx.sc
        if len(args) < 3 or args[1] not in ("mech", "foot"):
            raise OrderError("mode UNIT mech|foot HEX ... [off]: a motorized infantry move, declared", "4.8")
        u = self.unit(ctx, args[0], ctx.side, on_map=False)
        if self.utype(sc, u.id) != "motorized infantry":
            raise OrderError(f"{u.id} is not motorized infantry; only they choose how to move", "4.8")
        off = args[-1].lower() == "off"
        path = args[2:-1] if off else args[2:]
        for h in path:
            if not O.HEX_RE.match(h):
                raise OrderError(f"{h!r} is not a hex number")
        if args[1] == "mech" and u.hex and self.gd(sc)["move_costs"].get(self.terrain(sc, u.hex), ["P"])[0] == "P":
            raise OrderError(f"{u.id} starts in {self.terrain(sc, u.hex)}, closed to mechanized units: "
                             "it moves non-mechanized, if at all", "4.8")
        self._move(ctx, O.Move(unit=u.id, path=path, off=off), mech=args[1] == "mech")

    def _move(self, ctx: Ctx, order: O.Move, mech: bool | None = None) -> None:
        st, sc = ctx.state, ctx.sc
        rd = rd_of(st)
        grid = sc.board.grid
        u = self.unit(ctx, order.unit, ctx.side, on_map=False)
        gd = self.gd(sc)
        entering = u.hex is None
        if u.moved:
            raise OrderError(f"{u.id} has already moved this phase", "4.0")
        if u.disrupted:
            raise OrderError(f"{u.id} is disrupted and may not move", "8.1")
        if self.utype(sc, u.id) in gd.get("static_types", []):
            raise OrderError(f"{u.id} is static and never moves", "4.8")
        if u.id in gd.get("no_move_turn1", []) and st.turn == 1:
            raise OrderError(f"{u.id} may not move on game-turn 1", "4.8")
        if not order.path and not order.off:
            raise OrderError("a move needs at least one hex")
        if mech is None:
            mech = self.movement_mode(st, sc, u)
        ma = gd.get("ma", 10)                                 # 2.6
        if entering:
            self._check_entry(ctx, u, order.path[0] if order.path else "")
        side = u.side
        here = u.hex
        spent = Fraction(0)
        swim = False
        occupied = units_at(st)
        start_ezoc = here is not None and self.in_ezoc(st, sc, here, side)
        leave_penalty = start_ezoc
        costs: list[str] = []
        for i, h in enumerate(order.path):
            if not grid.contains(h):
                raise OrderError(f"{h} is not on the map; British units never leave it and German units "
                                 "leave only from an entry hex ('off')", "4.5")
            if here is not None and not grid.adjacent(here, h):
                raise OrderError(f"{h} is not adjacent to {here}: a path goes hex by hex", "4.0")
            if any(o.side != side for o in occupied.get(h, [])):
                raise OrderError(f"{h} holds an enemy unit and may not be entered", "4.3")
            feats = sc.board.side_features(here, h) if here else set()
            cost = self.step_cost(st, sc, u.id, here, h, mech)
            if here is not None and FERRY in feats and RIJN in feats:
                cost = self._ferry(st, sc, u, here, h, mech)
            if cost is None and here is not None and self.unbridged_rijn(st, sc, here, h):
                self._check_swim(st, sc, u, order.path, rd, here, h)
                swim, cost = True, Fraction(ma)
            if cost is None:
                why = "the Neder Rijn (unbridged)" if here and self.rijn_between(sc, here, h) else \
                    f"{self.terrain(sc, h)}" + (" across a minor river" if here and MINOR in feats else "")
                raise OrderError(f"{u.id} ({'mechanized' if mech else 'non-mechanized'}) may not enter {h}: "
                                 f"{why} is prohibited", "4.9")
            if leave_penalty:
                cost += 3                                     # 4.4: leaving an enemy ZOC
                if self.in_ezoc(st, sc, h, side):
                    raise OrderError(f"{u.id} leaves an enemy zone of control and may not move directly into "
                                     f"another ({h})", "4.4")
            spent += cost
            costs.append(str(spent))
            if spent > ma:
                raise OrderError(f"entering {h} would spend {frac_text(spent)} MP, more than the movement "
                                 f"allowance of {ma}", "4.1")
            srcs = self.zoc_sources(st, sc, h, side)
            leave_penalty = False
            if srcs and i != len(order.path) - 1:
                if all(x.disrupted for x in srcs):
                    leave_penalty = True                      # 4.4: ZOC of disrupted units only
                else:
                    raise OrderError(f"{h} is in an enemy zone of control: the move must stop there", "4.4")
            here = h
        if order.off:
            self._check_exit(st, sc, u, here, spent + 1, ma)
        elif order.path:
            end = order.path[-1]
            others = [o for o in occupied.get(end, []) if o.id != u.id]
            if others and not all(self.utype(sc, o.id) in gd.get("static_types", []) for o in others):
                raise OrderError(f"{end} already holds {others[0].id}; no unit may end its move stacked", "4.3")
            if others and side != "german":
                raise OrderError(f"{end} already holds {others[0].id}", "4.3")
        mv = Pending(unit=u.id, hex=u.hex or "", question="", remaining=list(order.path), costs=costs, spent="0", ma=ma,
                     mode="mech" if mech else "foot", swim=swim, off=order.off, context="move")
        if u.hex is not None and any(o.side != side for n in grid.neighbours(u.hex) for o in occupied.get(n, [])):
            mv.context = "start"                              # 5.1: adjacent enemies fire before it leaves
        self._walk(ctx, mv, [], "start" if mv.context == "start" else "step")

    def _check_swim(self, st: GameState, sc: Scenario, u: UnitState, path: list[str], rd: RD, a: str, b: str) -> None:
        """4.6: one unmoved infantry unit per player-turn, its whole allowance, no enemy ZOC either side."""
        if self.utype(sc, u.id) not in self.gd(sc).get("swim_types", []):
            raise OrderError(f"{u.id} may not cross an unbridged Neder Rijn hexside: only infantry may", "4.6")
        if len(path) != 1:
            raise OrderError("crossing the Neder Rijn uses all the unit's movement points: the move is that one hex",
                             "4.6")
        if rd.swim:
            raise OrderError("only one unit per player-turn may cross the Neder Rijn this way", "4.6")
        if self.in_ezoc(st, sc, a, u.side) or self.in_ezoc(st, sc, b, u.side):
            raise OrderError("the crossing may not start in or end in an enemy zone of control", "4.6")

    def _ferry(self, st: GameState, sc: Scenario, u: UnitState, a: str, b: str, mech: bool) -> Fraction:
        """4.7: German only, 1112/1113 not enemy-controlled, one unit per game-turn; crossing costs
        the ferry_cost of the scenario plus the hex entered (reconstructed)."""
        if u.side != "german":
            raise OrderError("only the German player may use the ferry", "4.7")
        for h in (a, b):
            if self.in_ezoc(st, sc, h, "german"):
                raise OrderError(f"{h} is controlled by a British unit: the ferry may not be used", "4.7")
        if rd_of(st).ferry_turn == st.turn:
            raise OrderError("the ferry has already carried a unit this game-turn", "4.7")
        cost = self.gd(sc)["move_costs"].get(self.terrain(sc, b), ["P", "P"])[0 if mech else 1]
        if cost == "P":
            cost = self.gd(sc)["move_costs"][self.terrain(sc, b)][1]
        return frac(cost) + int(self.gd(sc).get("ferry_cost", 5))

    def _check_entry(self, ctx: Ctx, u: UnitState, first: str) -> None:
        """10.1-10.3 German reinforcements; 4.5 re-entry by letter after a full game-turn."""
        st, sc = ctx.state, ctx.sc
        rd = rd_of(st)
        if u.side != "german":
            raise OrderError(f"{u.id} is not on the map; British units arrive by air landing", "9.0")
        letter = self.entry_letter(sc, first)
        if not letter:
            raise OrderError(f"{first} is not a German entry hex", "10.1")
        if u.id in rd.exited:
            turn, let = int(rd.exited[u.id][0]), rd.exited[u.id][1]
            if st.turn < turn + 2:
                raise OrderError(f"{u.id} left the map on turn {turn}; it may come back from turn {turn + 2}", "4.5")
            if letter != let:
                raise OrderError(f"{u.id} left through an '{let}' hex and must return through one", "4.5")
        else:
            d = sc.unit_defs[u.id]
            if d.entry_turn is None or st.turn < d.entry_turn:
                raise OrderError(f"{u.id} arrives on turn {d.entry_turn}", "10.0")
            ent = self.info(sc, u.id).get("entry", "")
            sched_letter = ent if ent in self.gd(sc).get("entry_hexes", {}) else self.entry_letter(sc, ent)
            if st.turn == d.entry_turn and ent not in self.gd(sc).get("entry_hexes", {}) and first != ent:
                raise OrderError(f"on its arrival turn {u.id} enters at {ent} only", "10.1")
            if letter != sched_letter:
                raise OrderError(f"{u.id} enters through '{sched_letter}' hexes", "10.2")
        if any(o.side != u.side for o in units_at(st).get(first, [])):
            raise OrderError(f"{first} is occupied by the enemy: the unit is delayed", "10.1")

    def _check_exit(self, st: GameState, sc: Scenario, u: UnitState, here: str | None, spent: Fraction, ma: int) -> None:
        if u.side != "german":
            raise OrderError("British units may not leave the map", "4.5")
        if here is None or not self.entry_letter(sc, here):
            raise OrderError(f"{here} is not a German entry hex; units leave the map only from one", "4.5")
        if spent > ma:
            raise OrderError(f"leaving the map costs 1 MP; {u.id} would spend {frac_text(spent)}", "4.5")

    def _flush(self, ctx: Ctx, mv: Pending, done: list[str]) -> None:
        if done:
            sp = frac(mv.spent)
            ctx.emit(E.UnitMoved(unit=mv.unit, path=list(done), mp=math.ceil(sp), ma=mv.ma, cost=frac_text(sp)))
            done.clear()

    def _walk(self, ctx: Ctx, mv: Pending, done: list[str], stage: str) -> None:
        """Carry a validated move out hex by hex: 11.0 at the railway bridge, opportunity fire
        (5.1 before leaving, 5.0 on each hex entered), pausing where an answer is needed."""
        st, sc = ctx.state, ctx.sc
        u = st.units[mv.unit]
        other = "german" if u.side == "british" else "british"
        here = done[-1] if done else (mv.hex or None)
        while True:
            if u.eliminated or u.id in rd_of(st).hit:
                self._flush(ctx, mv, done)
                return
            if stage == "start":
                firers = self.eligible_firers(st, sc, u, here, adjacent_only=True)   # 5.1
                ask = self._fire_round(ctx, u, here, firers, 1, False)
                if ask:
                    ctx.emit(E.MovePaused(side=other, unit=u.id, hex=here, question="fire", firers=ask,
                                          remaining=mv.remaining, costs=mv.costs, spent=mv.spent, ma=mv.ma, mode=mv.mode,
                                          swim=mv.swim, off=mv.off, context="start", then="step", rule="5.1"))
                    return
                stage = "step"
                continue
            if stage == "step":
                if not mv.remaining:
                    if mv.off:
                        self._flush(ctx, mv, done)
                        ctx.emit(E.UnitExited(unit=u.id, hex=here, letter=self.entry_letter(sc, here)))
                        return
                    self._flush(ctx, mv, done)
                    return
                h = mv.remaining[0]
                if here is not None and not mv.swim and self.step_cost(st, sc, u.id, here, h, mv.mode == "mech") is None \
                        and not (FERRY in sc.board.side_features(here, h)):
                    self._flush(ctx, mv, done)              # 11.0: the bridge went down under it
                    return
                mv.spent = mv.costs[0]
                mv.remaining, mv.costs = mv.remaining[1:], mv.costs[1:]
                done.append(h)
                here = h
                stage = "bridge"
                continue
            if stage == "bridge":
                stage = "fire"
                if u.side == "british" and here in self.gd(sc).get("rail_bridge", []) and rd_of(st).bridge == "":
                    say = rd_of(st).doctrine.get("german", Doctrine()).bridge
                    self._flush(ctx, mv, done)
                    if say == "":
                        ctx.emit(E.MovePaused(side="german", unit=u.id, hex=here, question="bridge",
                                              remaining=mv.remaining, costs=mv.costs, spent=mv.spent, ma=mv.ma, mode=mv.mode,
                                              swim=mv.swim, off=mv.off, context="move", then="fire", rule="11.0"))
                        return
                    self.demolish(ctx, say == "demolish")
                continue
            if stage == "fire":
                firers = self.eligible_firers(st, sc, u, here)
                if firers and any(self.doctrine_says(st, other, f, st.units[f].strength - u.strength) != "pass"
                                  for f in firers):
                    self._flush(ctx, mv, done)
                    ask = self._fire_round(ctx, u, here, firers, 1, mv.swim)
                    if ask:
                        ctx.emit(E.MovePaused(side=other, unit=u.id, hex=here, question="fire", firers=ask,
                                              remaining=mv.remaining, costs=mv.costs, spent=mv.spent, ma=mv.ma, mode=mv.mode,
                                              swim=mv.swim, off=mv.off, context="move", then="step", rule="5.0"))
                        return
                stage = "step"
                continue

    def demolish(self, ctx: Ctx, attempt: bool) -> None:
        """11.0: one German roll the first time a British unit enters 1512 or 1513; 1-5 destroys."""
        hs = "-".join(self.gd(ctx.sc).get("rail_bridge", []))
        if not attempt:
            ctx.emit(E.BridgeDemolition(hexside=hs, rolls=[], destroyed=False))
            return
        die = ctx.dice.roll(ctx.sc.die)
        ctx.emit(E.BridgeDemolition(hexside=hs, rolls=[die], destroyed=die <= 5))

    # answers to what the game waits for -------------------------------------------------

    def _answer(self, ctx: Ctx, order: O.Order) -> None:
        st, sc = ctx.state, ctx.sc
        d = st.decision
        assert d is not None
        if ctx.side != d.side:
            raise OrderError(f"the game waits for {sc.side_name(d.side)} to answer ({d.kind}, rule {d.rule})", d.rule)
        word = order.word if isinstance(order, O.GameVerb) else order.__struct_config__.tag
        args = order.args if isinstance(order, O.GameVerb) else []
        if d.kind == "opportunity-fire":
            return self._answer_fire(ctx, word, args)
        if d.kind == "bridge":
            if word not in ("demolish", "spare"):
                raise OrderError("the game waits for the German answer: demolish | spare", "11.0")
            mv = rd_of(st).pending
            self.demolish(ctx, word == "demolish")
            return self._resume(ctx, mv)
        if d.kind == "recover":
            if word != "recover":
                raise OrderError(f"the game waits for: recover UNIT ... (at most {d.distance})", "8.5")
            chosen = [self.unit(ctx, x, "british").id for x in args]
            if len(set(chosen)) != len(chosen) or len(chosen) > d.distance:
                raise OrderError(f"name at most {d.distance} different units (command points this turn)", "8.5")
            for c in chosen:
                if c not in d.units:
                    raise OrderError(f"{c} is not disrupted", "8.5")
            ctx.emit(E.UnitsRecovered(units=sorted(chosen)))
            return self._next_phase(ctx)
        a = st.attacks[d.combat]
        if d.kind == "retreat":
            if word == "disrupt":
                if d.distance != 0:
                    raise OrderError(f"{d.units[0]} is already disrupted: it must retreat", "8.2")
                ctx.emit(E.UnitDisrupted(unit=d.units[0], reason=f"chose disruption instead of retreat "
                                                                  f"({a.result} on {a.target})", rule="7.7"))
                return self._combat_continue(ctx)
            if not isinstance(order, O.Retreat):
                raise OrderError("the game waits for: retreat UNIT HEX HEX" + (" | disrupt" if d.distance == 0 else ""), "7.7")
            u = self.unit(ctx, order.unit)
            if u.id not in d.units or order.path not in d.options:
                raise OrderError(f"not a safe retreat for {d.units[0]}; legal: "
                                 + "; ".join(" ".join(o) for o in d.options), "7.7")
            ctx.emit(E.UnitRetreated(unit=u.id, path=list(order.path), chosen_by=ctx.side))
            return self._combat_continue(ctx)
        if d.kind == "ad":
            if word == "disrupt" and a.stage == "attacker":
                for uid in list(a.to_retreat):
                    ctx.emit(E.UnitDisrupted(unit=uid, reason=f"Ad on {a.target}: the attackers disrupt instead of "
                                                              "retreating", rule="7.6"))
                return self._combat_continue(ctx)
            if not isinstance(order, O.Retreat):
                raise OrderError("the game waits for: retreat UNIT HEX HEX (each adjacent attacker) | disrupt", "7.6")
            u = self.unit(ctx, order.unit)
            opts = self.retreat_options(st, sc, u) if u.id in a.to_retreat else []
            if order.path not in opts:
                raise OrderError(f"not a safe retreat for {u.id}; legal: " + "; ".join(" ".join(o) for o in opts), "7.7")
            ctx.emit(E.UnitRetreated(unit=u.id, path=list(order.path), chosen_by=ctx.side))
            return self._combat_continue(ctx)
        if d.kind in ("advance", "defender-advance"):
            if not isinstance(order, O.Advance):
                raise OrderError("the game waits for: advance UNIT [HEX ...] | no-advance", d.rule)
            if order.unit == "-":
                ctx.emit(E.AdvanceDeclined(index=d.combat))
            else:
                u = self.unit(ctx, order.unit, ctx.side)
                path = order.path or [d.options[0][1]] if d.options else []
                path = order.path or [next((o[1] for o in d.options if o[0] == u.id), "")]
                if [u.id] + path not in d.options:
                    raise OrderError(f"{u.id} may not advance along {' '.join(path)}; options: "
                                     + "; ".join(" ".join(o) for o in d.options), "7.8")
                ctx.emit(E.UnitAdvanced(unit=u.id, path=path))
            return self._combat_continue(ctx)
        raise OrderError(f"unexpected decision {d.kind}")

    def _answer_fire(self, ctx: Ctx, word: str, args: list[str]) -> None:
        st = ctx.state
        d = st.decision
        mv = rd_of(st).pending
        asked = [o[0] for o in d.options]
        if word == "pass":
            if args:
                raise OrderError("pass takes no arguments (it passes every unit asked)", "5.0")
            ctx.emit(E.OpportunityFirePassed(firers=asked, target=mv.unit, hex=mv.hex, by="answer"))
        elif word == "fire":
            if not args:
                raise OrderError(f"fire UNIT ...: name the firing units, some of {' '.join(asked)}", "5.0")
            chosen = []
            for x in args:
                u = self.unit(ctx, x, ctx.side)
                if u.id not in asked:
                    raise OrderError(f"{u.id} may not fire now; asked: {' '.join(asked)}", "5.2")
                if u.id in chosen:
                    raise OrderError(f"{u.id} is named twice", "5.2")
                chosen.append(u.id)
            mult = 2 if mv.context == "landing" else 1
            for i, f in enumerate(chosen):
                t = st.units[mv.unit]
                if t.eliminated or t.id in rd_of(st).hit:
                    break
                if i == 0:
                    self.shoot(ctx, f, mv.unit, mv.hex, mult, mv.swim, by="answer")
                else:
                    self.shoot(ctx, f, mv.unit, mv.hex, mult, mv.swim, by="answer+")
            rest = [f for f in asked if f not in chosen]
            t = st.units[mv.unit]
            if rest and not t.eliminated and t.id not in rd_of(st).hit:
                ctx.emit(E.OpportunityFirePassed(firers=rest, target=mv.unit, hex=mv.hex, by="answer+"))
        else:
            raise OrderError(f"the game waits for the answer to opportunity fire at {mv.unit} in {mv.hex}: "
                             f"fire UNIT ... (some of {' '.join(asked)}) | pass", "5.0")
        self._resume(ctx, mv)

    def _resume(self, ctx: Ctx, mv: Pending) -> None:
        if mv.context == "landing":
            return self._landing_continue(ctx, mv.unit)
        mv = Pending(**{f: getattr(mv, f) for f in mv.__struct_fields__})
        mv.hex = mv.hex
        self._walk(ctx, mv, [], mv.then)

    # combat (6.x, 7.x) -------------------------------------------------------------------

    def _attack(self, ctx: Ctx, order: O.Attack) -> None:
        st, sc = ctx.state, ctx.sc
        grid = sc.board.grid
        rd = rd_of(st)
        if order.retreat or order.attacker_retreat:
            raise OrderError("in Red Devils the owner retreats his own units; write no retreat in the attack", "7.7")
        if not grid.contains(order.target):
            raise OrderError(f"{order.target} is not on the map")
        defenders = [u for u in units_at(st).get(order.target, []) if u.side != ctx.side]
        if not defenders:
            raise OrderError(f"{order.target} holds no enemy unit")
        if any(d.defended for d in defenders):
            raise OrderError(f"{order.target} has already been attacked this phase", "6.4")
        attackers, seen = [], set()
        ranged = {"artillery": None, "range-2": None}
        for uid in order.attackers:
            u = self.unit(ctx, uid, ctx.side)
            if u.id in seen:
                raise OrderError(f"{u.id} is listed twice")
            seen.add(u.id)
            if u.attacked:
                raise OrderError(f"{u.id} has already attacked this phase", "6.3")
            if u.disrupted:
                raise OrderError(f"{u.id} is disrupted and may not attack", "8.1")
            dist = grid.distance(u.hex, order.target)
            if dist > 1:
                r = self.rng(sc, u.id)
                if dist > r:
                    raise OrderError(f"{u.id} in {u.hex} is {dist} hexes from {order.target}; its range is {r}", "2.5")
                kind = "artillery" if r > 2 else "range-2"
                if ranged[kind]:
                    raise OrderError(f"only one {kind} unit may join from a non-adjacent hex ({ranged[kind]} does)", "6.6")
                ranged[kind] = u.id
                if self.in_ezoc(st, sc, u.hex, u.side):
                    raise OrderError(f"{u.id} is in an enemy-controlled hex and may not attack a non-adjacent unit", "6.7")
            if self.is_artillery(sc, u.id) and rd.landed.get(u.id) == st.turn and u.side == "british":
                raise OrderError(f"{u.id} air-landed this turn: artillery may not attack in that player-turn", "9.6")
            attackers.append(u)
        if not any(grid.distance(u.hex, order.target) == 1 for u in attackers):
            raise OrderError("at least one attacking unit must be adjacent to the defender", "6.8")
        adv = order.advance
        if adv not in ("", "-"):
            adv = self.unit(ctx, adv, ctx.side).id
            if adv not in seen:
                raise OrderError(f"only a unit of this attack may advance; {adv} is not in it", "7.8")
        diff, col, shifts = self.combat_column(st, sc, attackers, defenders, order.target)
        ctx.emit(E.AttackDeclared(target=order.target, attackers=[u.id for u in attackers], advance=adv,
                                  advance_path=list(order.advance_path)))
        idx = len(st.attacks) - 1
        die = ctx.dice.roll(sc.die)
        res = sc.crt.rows[str(die)][col]
        if res == "Dd" or (res == "De*" and self.terrain(sc, order.target) == "city"):
            if self.terrain(sc, order.target) == "city":
                shifts += [f"{d.id}, already disrupted in a city, is not affected (8.2)" for d in defenders if d.disrupted]
        ctx.emit(E.CombatResolved(index=idx, target=order.target, attackers=[u.id for u in attackers],
                                  defenders=[d.id for d in defenders],
                                  attack_strength=sum(u.strength for u in attackers),
                                  defence_strength=sum(d.strength for d in defenders), modifiers=shifts,
                                  odds=sc.crt.columns[col], rolls=[die], result=res))
        self._combat_continue(ctx)

    def combat_column(self, st: GameState, sc: Scenario, attackers: list[UnitState], defenders: list[UnitState],
                      target: str) -> tuple[int, int, list[str]]:
        """7.0-7.5: differential, its column (clamped, 7.2) and the cumulative shifts."""
        grid = sc.board.grid
        gd = self.gd(sc)
        diff = sum(u.strength for u in attackers) - sum(d.strength for d in defenders)
        col = column_index(diff)
        shifts = [f"differential {diff:+d}"]
        terr = self.terrain(sc, target)
        if terr in ("city", "rough"):
            col -= 2
            shifts.append(f"defender in {terr}: two columns left (7.3)")
        elif terr in ("town", "woods"):
            col -= 1
            shifts.append(f"defender in {terr}: one column left (7.3)")
        adj = [u for u in attackers if grid.distance(u.hex, target) == 1]
        sides = [sc.board.side_features(u.hex, target) for u in adj]
        if sides and all(RIJN in f for f in sides):
            col -= 2
            shifts.append("attacked only across the Neder Rijn: two columns left (7.3)")
        elif sides and all(MINOR in f for f in sides):
            col -= 1
            shifts.append("attacked only across a minor river: one column left (7.3)")
        armour = set(gd.get("armour_types", []))
        at_types = set(gd.get("anti_tank_types", []))
        if any(self.utype(sc, u.id) in armour for u in adj):
            dside = defenders[0].side
            covered = any(self.utype(sc, d.id) in at_types for d in defenders) or any(
                f.side == dside and not f.disrupted and f.hex and self.utype(sc, f.id) in at_types
                and grid.distance(f.hex, target) <= self.rng(sc, f.id) for f in st.units.values() if not f.eliminated)
            if covered:
                col -= 1
                shifts.append("armour attacks into anti-tank cover: one column left (7.4)")
        if terr != "city" and self.surrounded(st, sc, target, defenders[0].side):
            col += 1
            shifts.append("defender surrounded by enemy units and zones of control: one column right (7.5)")
        col = max(0, min(col, len(sc.crt.columns) - 1))
        return diff, col, shifts

    def surrounded(self, st: GameState, sc: Scenario, h: str, side: str) -> bool:
        grid = sc.board.grid
        ns = grid.neighbours(h)
        if len(ns) < 6:
            return False
        occ = units_at(st)
        for n in ns:
            if any(u.side != side for u in occ.get(n, [])):
                continue
            if not self.in_ezoc(st, sc, n, side):
                return False
        return True

    def retreat_options(self, st: GameState, sc: Scenario, u: UnitState) -> list[list[str]]:
        """7.7: two hexes away, each vacant, enterable, outside enemy ZOC; never off the map or
        across an unbridged Neder Rijn hexside."""
        grid = sc.board.grid
        if self.utype(sc, u.id) in self.gd(sc).get("static_types", []):
            return []                                          # 4.8 the flak never retreats
        occ = units_at(st)
        mech = self.is_mech(sc, u.id) and self.utype(sc, u.id) != "motorized infantry"
        o = u.hex

        def safe(a: str, b: str) -> bool:
            return (not occ.get(b) and self.step_cost(st, sc, u.id, a, b, mech) is not None
                    and not self.in_ezoc(st, sc, b, u.side))
        out = []
        for a in grid.neighbours(o):
            if not safe(o, a):
                continue
            for b in grid.neighbours(a):
                if grid.distance(o, b) == 2 and safe(a, b):
                    out.append([a, b])
        return out

    def _combat_continue(self, ctx: Ctx) -> None:
        st, sc = ctx.state, ctx.sc
        while st.decision is None and st.attacks and st.current < len(st.attacks):
            i = st.current
            a = st.attacks[i]
            if a.stage == "finished":
                return
            if a.stage == "done":
                ctx.emit(E.CombatFinished(index=i))
                return
            kind = a.attacker_retreat.get("kind", [""])[0]
            if a.stage == "defender":
                uid = a.to_retreat[0]
                u = st.units[uid]
                if kind == "De":
                    ctx.emit(E.UnitEliminated(unit=uid, reason=f"De in the attack on {a.target}", rule="7.6"))
                    continue
                opts = self.retreat_options(st, sc, u)
                if self.utype(sc, uid) in self.gd(sc).get("static_types", []) and not u.disrupted:
                    ctx.emit(E.UnitDisrupted(unit=uid, reason="Dd: the static flak may not retreat", rule="4.8"))
                    continue
                if u.disrupted:
                    if not opts:                               # 8.2 second disruption, no safe retreat
                        ctx.emit(E.UnitEliminated(unit=uid, reason="already disrupted with no safe retreat", rule="8.2"))
                    elif len(opts) == 1:
                        ctx.emit(E.UnitRetreated(unit=uid, path=opts[0], chosen_by="auto"))
                    else:
                        ctx.emit(E.DecisionRequired(side=u.side, decision="retreat", combat=i, units=[uid],
                                                    distance=2, options=opts, rule="8.2"))
                    continue
                if not opts:
                    ctx.emit(E.UnitDisrupted(unit=uid, reason=f"Dd on {a.target}: no safe retreat hex", rule="7.7"))
                    continue
                if rd_of(st).doctrine.get(u.side, Doctrine()).retreat == "disrupt":
                    ctx.emit(E.UnitDisrupted(unit=uid, reason=f"Dd on {a.target}: disrupted in place (standing "
                                                              "doctrine)", rule="7.7"))
                    continue
                ctx.emit(E.DecisionRequired(side=u.side, decision="retreat", combat=i, units=[uid], distance=0,
                                            options=opts, rule="7.7"))
                return
            if a.stage in ("attacker", "attacker-retreat"):
                if kind == "Ae":
                    for uid in list(a.to_retreat):
                        ctx.emit(E.UnitEliminated(unit=uid, reason=f"Ae in the attack on {a.target}", rule="7.6"))
                    continue
                opts = {uid: self.retreat_options(st, sc, st.units[uid]) for uid in a.to_retreat}
                if a.stage == "attacker" and not all(opts.values()):
                    for uid in list(a.to_retreat):
                        ctx.emit(E.UnitDisrupted(unit=uid, reason=f"Ad on {a.target}: not every attacker can "
                                                                  "retreat safely, so all disrupt", rule="7.6"))
                    continue
                if a.stage == "attacker-retreat":
                    uid = a.to_retreat[0]
                    if not opts[uid]:
                        ctx.emit(E.UnitDisrupted(unit=uid, reason="no safe retreat left", rule="7.7"))
                        continue
                    if len(opts[uid]) == 1:
                        ctx.emit(E.UnitRetreated(unit=uid, path=opts[uid][0], chosen_by="auto"))
                        continue
                side = st.units[a.to_retreat[0]].side
                flat = [[uid] + p for uid, ps in opts.items() for p in ps]
                ctx.emit(E.DecisionRequired(side=side, decision="ad", combat=i, units=list(a.to_retreat),
                                            distance=2, options=flat, rule="7.6"))
                return
            if a.stage == "advance":
                self._advance(ctx, i, a, kind)
                return

    def _advance(self, ctx: Ctx, i: int, a: Attack, kind: str) -> None:
        """7.8 after a defender left; 7.6 the defender's option after Ae or a retreating Ad."""
        st, sc = ctx.state, ctx.sc
        grid = sc.board.grid
        occ = units_at(st)
        if kind in ("Dd", "De", "De*"):
            if occ.get(a.target):
                ctx.emit(E.CombatFinished(index=i))
                return
            opts = []
            for uid in a.attackers:
                u = st.units[uid]
                if u.eliminated or u.hex is None or u.disrupted or grid.distance(u.hex, a.target) != 1:
                    continue
                opts.append([uid, a.target])
                if a.retreat and not occ.get(a.retreat[0]):
                    opts.append([uid, a.target, a.retreat[0]])
            if not opts:
                ctx.emit(E.CombatFinished(index=i))
                return
            if a.advance == "-":
                ctx.emit(E.AdvanceDeclined(index=i))
                return
            if a.advance:
                path = a.advance_path or [a.target]
                if [a.advance] + path in opts:
                    ctx.emit(E.UnitAdvanced(unit=a.advance, path=path))
                    return
            ctx.emit(E.DecisionRequired(side=st.units[a.attackers[0]].side, decision="advance", combat=i,
                                        units=sorted({o[0] for o in opts}), options=opts, rule="7.8"))
            return
        # Ae / Ad: the defender may take one vacated attacker hex (7.6)
        defs = [st.units[d] for d in a.defenders if not st.units[d].eliminated and st.units[d].hex == a.target
                and not st.units[d].disrupted and self.utype(sc, d) not in self.gd(sc).get("static_types", [])]
        vac = sorted({h for h in a.attacker_retreat.get("hexes", []) if not occ.get(h)})
        opts = [[d.id, h] for d in defs for h in vac]
        if not opts:
            ctx.emit(E.CombatFinished(index=i))
            return
        ctx.emit(E.DecisionRequired(side=defs[0].side, decision="defender-advance", combat=i,
                                    units=[d.id for d in defs], options=opts, rule="7.6"))

    # phases (3.0) and disruption removal (8.x) ------------------------------------------------

    def _next_phase(self, ctx: Ctx) -> None:
        st, sc = ctx.state, ctx.sc
        while True:
            nxt, turn = st.phase + 1, st.turn
            if nxt >= len(sc.sequence):
                if turn >= sc.turns:
                    self._victory(ctx)                        # 12.0 after the tenth game-turn
                    return
                nxt, turn = 1, turn + 1                       # index 0 is the set-up, played once
            p = sc.sequence[nxt]
            ctx.emit(E.PhaseStarted(turn=turn, phase=nxt, side=p.side, name=p.name))
            if p.name != "disruption-removal":
                return
            mine = sorted(u.id for u in st.units.values() if u.side == p.side and u.disrupted and not u.eliminated)
            if p.side == "german":
                if mine:
                    ctx.emit(E.UnitsRecovered(units=mine))    # 8.0 all German units
                continue
            cps = self.gd(sc)["command_points"]
            cp = int(cps[turn - 1]) if turn - 1 < len(cps) else 0
            if len(mine) <= cp:
                if mine:
                    ctx.emit(E.UnitsRecovered(units=mine))
                continue
            ctx.emit(E.DecisionRequired(side="british", decision="recover", combat=-1, units=mine, distance=cp,
                                        rule="8.5"))
            return

    # victory (12.x) ------------------------------------------------------------------------------

    def lines_of_communication(self, st: GameState, sc: Scenario, side: str) -> dict[str, list[str]]:
        """12.2: the shortest path (in hexes) from any unit of ``side`` to every hex it can reach
        without crossing an unbridged Neder Rijn hexside (the ferry is no bridge) or entering an
        enemy-occupied or enemy-controlled hex; own units cancel enemy ZOC in their hex."""
        grid = sc.board.grid
        occ = units_at(st)
        mine = {h for h, us in occ.items() if any(u.side == side for u in us)}
        enemy = {h for h, us in occ.items() if any(u.side != side for u in us)}

        def open_hex(h: str) -> bool:
            if h in enemy:
                return False
            return h in mine or not self.in_ezoc(st, sc, h, side)

        prev: dict[str, str | None] = {}
        q: deque[str] = deque()
        for h in sorted(mine):
            prev[h] = None
            q.append(h)
        while q:
            h = q.popleft()
            for n in grid.neighbours(h):
                if n in prev or not open_hex(n) or self.unbridged_rijn(st, sc, h, n):
                    continue
                prev[n] = h
                q.append(n)
        out = {}
        for h in prev:
            path = [h]
            while prev[path[-1]] is not None:
                path.append(prev[path[-1]])
            out[h] = list(reversed(path))
        return out

    def count_victory(self, st: GameState, sc: Scenario) -> E.VictoryCounted:
        gd = self.gd(sc)
        rd = rd_of(st)
        brit = self.lines_of_communication(st, sc, "british")
        germ = self.lines_of_communication(st, sc, "german")
        special = set(gd.get("vp_special", []))
        worthless = set(gd.get("rail_bridge_vp", [])) if rd.bridge == "destroyed" else set()   # 12.4
        hexes, lines = {}, {}
        for h in sorted(set(gd.get("vp_hexes", [])) | special):
            if h not in brit or h in worthless:
                continue
            if h in germ and len(germ[h]) <= len(brit[h]):
                continue                                      # 12.2 a shorter British line is needed
            hexes[h] = 2 if h in special else 1
            lines[h] = brit[h]
        pair = gd.get("bridge_pair", [])
        if pair and all(h in hexes for h in pair):
            for h in pair:
                hexes[h] = 4                                  # 12.3: eight for the two together
        gone = sum(1 for u in st.units.values() if u.side == "german" and u.eliminated)
        alive = sum(1 for u in st.units.values() if u.side == "british" and not u.eliminated and u.hex is not None)
        extra = max(0, alive - 9)
        total = sum(hexes.values()) + gone + extra
        level = next(name for low, name in LEVELS if total >= low)
        return E.VictoryCounted(hexes=hexes, lines=lines, german_eliminated=gone, british_extra=extra,
                                total=total, level=level)

    def _victory(self, ctx: Ctx) -> None:
        ev = self.count_victory(ctx.state, ctx.sc)
        ctx.emit(ev)
        winner = "british" if ev.level.startswith("British") else "german"
        lab = ctx.sc.board.label
        rows = [f"{ev.level}: {ev.total} British victory points (12.1-12.6)"]
        rows += [f"    {lab(h)}: {vp} VP, line of communications {' '.join(ev.lines.get(h, []))}"
                 for h, vp in ev.hexes.items()]
        rows.append(f"    German units eliminated: {ev.german_eliminated} VP; British units on the map over nine: "
                    f"{ev.british_extra} VP")
        ctx.emit(E.GameEnded(winner=winner, reason="\n".join(rows), rule="12.6"))

    # report wording -------------------------------------------------------------------------------

    def describe_event(self, ev: E.Event, sc: Scenario, origin: str | None = None) -> str | None:
        own = self._own_words(ev, sc)
        return own if own is not None else classic(ev, sc, origin)

    def _own_words(self, ev: E.Event, sc: Scenario) -> str | None:
        lab = sc.board.label
        name = sc.side_name
        match ev:
            case E.DoctrineSet():
                per = "; ".join(f"{k} {v}" for k, v in sorted(ev.units.items()))
                more = []
                if per:
                    more.append(f"exceptions: {per}")
                if ev.retreat:
                    more.append(f"Dd answered: {ev.retreat}")
                if ev.bridge:
                    more.append(f"railway bridge: {ev.bridge}")
                tail = f" ({'; '.join(more)})" if more else ""
                if ev.cleared:
                    return (f"{name(ev.side)} opportunity-fire doctrine: {ev.cleared}'s exception cleared, it follows "
                            f"the side's doctrine again: {ev.default}{tail} (5.0).")
                return f"{name(ev.side)} opportunity-fire doctrine: {ev.default}{tail} (5.0)."
            case E.OpportunityFire():
                how = "by standing doctrine" if ev.by == "doctrine" else "on the player's answer"
                sh = f"; {'; '.join(ev.shifts)}" if ev.shifts else ""
                return (f"Opportunity fire {how}: {ev.firer} ({ev.fire_strength}) at {ev.target} ({ev.target_strength}) "
                        f"in {lab(ev.hex)}, differential {ev.differential:+d}{sh}; column \"{ev.column}\", "
                        f"die {', '.join(map(str, ev.rolls))}: {ev.result} (5.0).")
            case E.OpportunityFirePassed():
                verb = "holds" if len(ev.firers) == 1 else "hold"
                return f"{', '.join(ev.firers)} {verb} fire at {ev.target} in {lab(ev.hex)} (5.0)."
            case E.MovePaused():
                if ev.question == "bridge":
                    return (f"{ev.unit} enters {lab(ev.hex)}: {name(ev.side)} may try to blow the Oosterbeek railway "
                            f"bridge (11.0); the move waits.")
                return (f"{ev.unit} in {lab(ev.hex)} is in range of {', '.join(ev.firers)}: the move waits for "
                        f"{name(ev.side)}'s fire-or-pass answer ({ev.rule}).")
            case E.UnitDisrupted():
                return f"{ev.unit} is disrupted: {ev.reason} ({ev.rule})."
            case E.UnitPlaced():
                return f"{ev.unit} will air-land around drop zone {ev.hex} (1.2)."
            case E.UnitLanded():
                return f"{ev.unit} is placed for air landing in {lab(ev.hex)} (9.0)."
            case E.AirLandingResolved():
                if not ev.rolls:
                    return f"{ev.unit}: no Air Landing Table roll, eliminated by opportunity fire (9.3)."
                mods = f" {'; '.join(ev.modifiers)}," if ev.modifiers else ""
                what = {"E": "eliminated", "D": "disrupted", "-": "lands safely"}.get(ev.result, ev.result)
                return f"Air landing of {ev.unit} in {lab(ev.hex)}: die {ev.rolls[0]},{mods} total {ev.total}: {what} (9.9)."
            case E.BridgeDemolition():
                if not ev.rolls:
                    return f"The German player does not try to blow the railway bridge {ev.hexside} (11.0)."
                st = "DESTROYED: now an unbridged Neder Rijn hexside" if ev.destroyed else "still intact"
                return f"Demolition of the Oosterbeek railway bridge {ev.hexside}: die {ev.rolls[0]}: {st} (11.0)."
            case E.SecretRevealed() if ev.name == POLISH_SECRET:
                return (f"The British reveal the Polish drop zones {', '.join(ev.payload.split())}; they match the "
                        f"commitment sealed before play (9.7).")
            case E.UnitExited():
                return f"{ev.unit} leaves the map at {ev.hex} (entry letter {ev.letter}) (4.5)."
            case E.UnitRetreated():
                who = "no choice" if ev.chosen_by == "auto" else f"chosen by {name(ev.chosen_by)}"
                return f"{ev.unit} retreats to {' '.join(ev.path)} ({who}) (7.7)."
            case E.UnitAdvanced():
                return f"{ev.unit} advances into {' '.join(ev.path)} (7.8)."
            case E.UnitsRecovered():
                return f"No longer disrupted: {', '.join(ev.units)} (8.0)." if ev.units else ""
            case E.CombatResolved():
                mods = f" ({'; '.join(ev.modifiers)})" if ev.modifiers else ""
                return (f"Attack on {lab(ev.target)}: {'+'.join(ev.attackers)} ({ev.attack_strength}) against "
                        f"{'+'.join(ev.defenders)} ({ev.defence_strength}){mods}; column \"{ev.odds}\", "
                        f"die {', '.join(map(str, ev.rolls))}: {ev.result} (7.0, 7.6).")
            case E.AttackDeclared():
                return ""
            case E.DecisionRequired():
                what = {"retreat": "retreat or disruption", "ad": "how the attackers take an Ad",
                        "advance": "whether to advance", "defender-advance": "whether the defender advances",
                        "recover": f"which {ev.distance} units recover"}.get(ev.decision, ev.decision)
                return f"{name(ev.side)} must choose {what} for {', '.join(ev.units)} ({ev.rule})."
            case E.VictoryCounted():
                rows = [f"VICTORY POINTS (12.0): {ev.total} - {ev.level}"]
                for h, vp in ev.hexes.items():
                    rows.append(f"      {lab(h)}: {vp} VP, line of communications {' '.join(ev.lines.get(h, []))}")
                rows.append(f"      German units eliminated: {ev.german_eliminated} VP (12.1)")
                rows.append(f"      British units on the map over nine: {ev.british_extra} VP (12.1)")
                return "\n".join(rows)
        return None


def _is_frac(text: str) -> bool:
    try:
        Fraction(text)
        return True
    except (ValueError, ZeroDivisionError):
        return False
