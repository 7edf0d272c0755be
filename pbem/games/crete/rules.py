"""Paratroop: Crete (paratroop.txt, the Crete part and its charts).

Rule numbers are those of the Crete rules.  The shape of one game:

* set-up (1.0): the German player seals a drop plan (``secret drop-plan
  west=N centre=N east=N``), then the Commonwealth player places its 43 units
  (``place UNIT HEX``);
* ten Game-Turns of five phases (3.0): German air landing (``drop``, ``land``,
  and on turn 1 first ``unveil drop-plan``), movement, combat; Commonwealth
  movement, combat;
* victory by points (12.0).

One grid, three maps: the maps lie side by side in their own column ranges
(scenario ``[game_data.maps]``) separated by columns of ``offmap`` terrain; the
transit tracks are off-map boxes (``[[game_data.tracks]]``) and a unit in one
has no hex.  Movement costs are exact fractions (``pathcost.py``).

Combat is resolved at once, one attack at a time (3.0 step three).  An attack
is a *fight*: a chain of rolls (10.5) that ends with De, Ae, Ee, Ne or a
retreat.  Each choice on the way is a decision of the player it belongs to.
A side may answer the Ca choices in advance with standing orders (``doctrine ca
...``, ``doctrine re-roll ...``); each one applied is logged and reported.
"""
from __future__ import annotations

import itertools
from fractions import Fraction

from msgspec import Struct

from pbem.games.crete.schema import CreteData, CreteVictory
from pbem.games.crete import events as E
from pbem.core import orders as O
from pbem.core.orders import OrderError
from pbem.core.scenario import Scenario
from pbem.core.state import Decision, GameState, Result, UnitState
from pbem.core.reduce import no_reducer
from pbem.games.words import classic
from pbem.core.ruleset import Ctx, Ruleset, Stash, find_unit
from pbem.games.panzer_corps.common import odds_column, units_at
from pbem.mechanics.pathcost import PathCost, ceil_mp, fmt, frac

GERMAN, CW = "german", "commonwealth"
RESULTS = frozenset({"Ae", "De", "Ee", "Ne", "Ca"})
TABLES = {"all-out": "all-out", "allout": "all-out", "limited": "limited"}
ATTACK_WORDS = {"plus", "air", "lose"} | set(TABLES)
# Standing answers to a Ca (10.5): "ca" for the original defender's force (retreat or counterattack
# a hex), "re-roll" for the original attacker's force after a counterattack (roll again or retreat).
STANDING_TOPICS = {"ca": "ca", "re-roll": "re-roll", "reroll": "re-roll"}
STANDING_WORDS = {"retreat", "counterattack", "ask", "default"} | set(TABLES)
STANDING_USAGE = ("doctrine ca [UNIT|HEX] retreat | counterattack all-out|limited | ask; "
                  "doctrine re-roll [UNIT|HEX] all-out|limited | retreat | ask; doctrine ca|re-roll UNIT|HEX default")
# A guard against an endless exchange of Ca results answered by standing orders (a table with a
# column of nothing but Ca): after this many automatic answers in one fight the next Ca is asked.
AUTO_LIMIT = 12


class Fight(Struct, omit_defaults=True):
    """One attack and its chain of counterattacks (10.5)."""
    index: int
    kind: str                      # "attack" | "scatter" (5.2)
    side: str                      # side of the original attacker
    attackers: list[str]           # the original attacking force
    defenders: list[str]           # the original defending force
    hexes: list[str]               # hexes originally attacked
    air: list[str] = []
    lose: list[str] = []           # inline answers of the original attacker
    advance: str = ""
    advance_hex: str = ""
    roll_side: str = ""            # the roll last made: who rolled, with what, against whom
    rollers: list[str] = []
    targets: list[str] = []
    target_hexes: list[str] = []
    mode: str = ""
    result: str = ""
    stage: str = "open"            # open | ca | retreat | advance | done
    to_retreat: list[str] = []
    victors: list[str] = []
    vacated: list[str] = []
    auto: int = 0                  # Ca answers given by standing order in this fight (AUTO_LIMIT)


class CData(Struct, omit_defaults=True):
    """Crete's part of the state (kept in GameState.extra["crete"])."""
    plan_sealed: bool = False
    plan_error: str = ""           # why the sealed plan is not a valid one (host state only)
    plan: dict[str, int] = {}      # the drop plan once unveiled (public from then on)
    plan_open: bool = False
    t1: dict[str, int] = {}        # drops made on Game-Turn 1 per map (1.0)
    dropped: dict[str, int] = {}   # airborne unit -> turn it dropped (5.5-5.7)
    landed: dict[str, int] = {}    # mountain unit -> turn it landed (6.5)
    track: dict[str, str] = {}     # unit -> "TRACK>EXITHEX" while in a transit track (7.0)
    from_track: list[str] = []     # units that began this movement phase in a track (7.1, 7.7)
    air_used: list[str] = []       # air units used this Game-Turn (11.4)
    captured: list[str] = []       # airfields whose last ground occupant was German (6.0)
    fights: int = 0
    fight: Fight | None = None
    standing: dict[str, dict[str, str]] = {}   # "SIDE:TOPIC" -> scope ("" | unit | hex) -> standing answer (10.5)


_stash = Stash("crete", CData)
cdata = _stash.get
_put = _stash.put


def other(side: str) -> str:
    return CW if side == GERMAN else GERMAN


def parse_plan(payload: str, maps: list[str], minimum: int, most: int) -> tuple[dict[str, int], str]:
    """'west=4 centre=3 east=2' -> counts per map, or an error text (1.0, 1.1)."""
    plan: dict[str, int] = {m: 0 for m in maps}
    for tok in payload.split():
        k, sep, v = tok.partition("=")
        if not sep or k not in plan or not v.isdigit():
            return {}, f"write the plan as MAP=N for the maps {', '.join(maps)} (e.g. {maps[0]}=4); {tok!r} is not"
        plan[k] = int(v)
    total = sum(plan.values())
    if total < minimum:
        return {}, f"the plan lands {total} airborne units on Game-Turn 1; at least {minimum} must land (1.1)"
    if total > most:
        return {}, f"the plan lands {total} airborne units; there are only {most} (1.1)"
    return plan, ""


class Crete(Ruleset):
    verbs = frozenset({"place", "drop", "land", "counterattack", "lose", "doctrine"})   # set-up, airdrop, air landing, counterattack (10.5), losses (10.3), standing answers
    scenario_schema = (CreteVictory, CreteData)          # [victory], [game_data] (pbem scenario lint)
    defaults_help = (                       # mailed to the players: what a missed deadline does
        "Deadline defaults. Drop plan: the scenario's default plan; set-up: the scenario's "
        "default deployment; Game-Turn 1 air landing: unveil the plan and drop it on the "
        "scenario's default targets; later air landings, movement and combat: nothing more "
        "(units in a track come out at their first entry hex, 7.1); Ca: retreat (first unit, "
        "first safe hex), or the first counterattack when no retreat exists; retreat: the "
        "first safe hex; Ee: the first loss set listed; advance: none.")
    game = "crete"
    ruleset_version = "1"
    result_codes = RESULTS

    # --- scenario data --------------------------------------------------------

    @staticmethod
    def gd(sc: Scenario) -> dict:
        return sc.game_data

    def map_of(self, sc: Scenario, h: str | None) -> str | None:
        if not h or not sc.board.grid.contains(h):
            return None
        col = int(h[:2])
        for mid, m in self.gd(sc).get("maps", {}).items():
            if m["first_col"] <= col <= m["last_col"]:
                return mid if sc.board.terrain.get(h, "offmap") != "offmap" else None
        return None

    def land(self, sc: Scenario, h: str) -> bool:
        """A hex a unit may stand in: on one of the maps, not all-sea."""
        t = sc.terrain.get(sc.board.terrain.get(h, ""))
        return self.map_of(sc, h) is not None and t is not None and not t.impassable

    def sea_side(self, sc: Scenario, a: str, b: str) -> bool:
        return self.gd(sc).get("sea_hexside", "sea") in sc.board.side_features(a, b)

    def costs(self, sc: Scenario) -> PathCost:
        def enter(h: str) -> Fraction | None:
            t = sc.terrain.get(sc.board.terrain.get(h, ""))
            if t is None or t.impassable or self.map_of(sc, h) is None:
                return None
            return Fraction(t.move_cost)
        return PathCost(sc.board, enter, road_cost=frac(self.gd(sc).get("road_cost", "1/3")),
                        blocked_features=[self.gd(sc).get("sea_hexside", "sea")])

    def utype(self, sc: Scenario, uid: str) -> str:
        d = sc.unit_defs.get(uid)
        return d.type if d else ""

    def printed(self, sc: Scenario, uid: str) -> int:
        d = sc.unit_defs.get(uid)
        return d.strength if d else 0

    def air_units(self, sc: Scenario) -> dict[str, dict]:
        return {a["id"]: a for a in self.gd(sc).get("air", [])}

    def tracks(self, sc: Scenario) -> list[dict]:
        return list(self.gd(sc).get("tracks", []))

    def stack_limit(self, sc: Scenario) -> int:
        return int(self.gd(sc).get("stacking", 3))

    # --- state helpers ---------------------------------------------------------

    @staticmethod
    def alive(st: GameState, ids: list[str]) -> list[UnitState]:
        return [st.units[i] for i in ids if not st.units[i].eliminated and st.units[i].hex is not None]

    @staticmethod
    def friends(st: GameState, h: str, side: str, but: str = "") -> int:
        return sum(1 for u in units_at(st).get(h, []) if u.side == side and u.id != but)

    @staticmethod
    def enemies(st: GameState, h: str, side: str) -> list[UnitState]:
        return [u for u in units_at(st).get(h, []) if u.side != side]

    def zoc(self, st: GameState, sc: Scenario, side: str) -> set[str]:
        """Hexes in the zone of control of ``side``'s enemies (4.5); not across all-sea hexsides
        nor into hexes no unit may enter."""
        out: set[str] = set()
        for u in st.units.values():
            if u.side == side or u.hex is None or u.eliminated:
                continue
            for n in sc.board.grid.neighbours(u.hex):
                if self.land(sc, n) and not self.sea_side(sc, u.hex, n):
                    out.add(n)
        return out

    # --- setting up ------------------------------------------------------------

    def new_state(self, sc: Scenario, game_id: str) -> GameState:
        st = GameState(game_id=game_id, scenario_id=sc.id, game=sc.game)
        for u in sc.units:
            # 1.2: the Commonwealth places every unit at the start; Germans arrive by air (5.0, 6.0).
            st.units[u.id] = UnitState(id=u.id, side=u.side, hex=None, strength=u.strength, ma=u.ma)
        st.score = {GERMAN: 0, CW: 0}
        _put(st, CData())
        return st

    first_turn = 0                 # 1.x: the set-up steps come before turn 1

    # --- reducer ------------------------------------------------------------------

    def _note_airfield(self, sc: Scenario, cd: CData, st: GameState, uid: str, h: str | None) -> None:
        if h and h in self.gd(sc).get("airfields", []):
            side = st.units[uid].side
            if side == GERMAN and h not in cd.captured:
                cd.captured.append(h)
                cd.captured.sort()
            elif side == CW and h in cd.captured:
                cd.captured.remove(h)

    def reduce(self, st: GameState, ev: E.Event, sc: Scenario) -> None:
        # after the core reducer (pbem.core.reduce): only what this game adds
        cd = cdata(st)
        f = cd.fight
        match ev:
            case E.PhaseStarted():
                for u in st.units.values():
                    u.moved = u.attacked = u.defended = False
                if ev.name == "air-landing":
                    cd.air_used = []                      # 11.4: every air unit once per Game-Turn
                cd.from_track = sorted(k for k in cd.track if st.units[k].side == ev.side) \
                    if ev.name == "movement" else []
            case E.UnitPlaced():
                st.units[ev.unit].hex = ev.hex
                self._note_airfield(sc, cd, st, ev.unit, ev.hex)
            case E.AirDropped():
                cd.dropped[ev.unit] = st.turn
                if st.turn == 1:
                    m = self.map_of(sc, ev.target) or "?"
                    cd.t1[m] = cd.t1.get(m, 0) + 1
                if ev.hex:
                    st.units[ev.unit].hex = ev.hex
                    if not self.enemies(st, ev.hex, GERMAN):
                        self._note_airfield(sc, cd, st, ev.unit, ev.hex)
            case E.UnitLanded():
                cd.landed[ev.unit] = st.turn
                st.units[ev.unit].hex = ev.hex
                self._note_airfield(sc, cd, st, ev.unit, ev.hex)
            case E.UnitMoved():
                cd.track.pop(ev.unit, None)
                u = st.units[ev.unit]
                u.hex, u.moved = ev.path[-1], True
                self._note_airfield(sc, cd, st, ev.unit, u.hex)
            case E.TrackEntered():
                u = st.units[ev.unit]
                u.hex, u.moved = None, True
                cd.track[ev.unit] = f"{ev.track}>{ev.exit}"
            case E.CombatOpened():
                if ev.mode in ("attack", "scatter"):
                    cd.fights += 1
                    f = cd.fight = Fight(index=ev.index, kind=ev.mode, side=ev.side, attackers=list(ev.attackers),
                                         defenders=list(ev.defenders), hexes=list(ev.hexes), air=list(ev.air),
                                         lose=list(ev.lose), advance=ev.advance, advance_hex=ev.advance_hex)
                    for a in ev.attackers:
                        st.units[a].attacked = True      # 8.2: one attack initiated per phase
                    for d in ev.defenders:
                        st.units[d].defended = True      # 8.2: the object of one combat
                    cd.air_used.extend(ev.air)
                assert f is not None
                f.roll_side, f.rollers, f.targets = ev.side, list(ev.attackers), list(ev.defenders)
                f.target_hexes, f.mode, f.stage, f.result = list(ev.hexes), ev.mode, "open", ""
                f.to_retreat = []
            case E.CombatResolved():
                if f is not None:
                    f.result = ev.result
                    f.stage = "ca" if ev.result == "Ca" else "resolved"
            case E.DecisionRequired():
                if ev.decision == "advance" and f is not None:
                    f.stage, f.victors = "advance", list(ev.units)
                    f.vacated = sorted({o[1] for o in ev.options})
            case E.UnitRetreated():
                u = st.units[ev.unit]
                u.hex = ev.path[-1]
                self._note_airfield(sc, cd, st, ev.unit, u.hex)
                self._owed(st, f, ev.unit)
            case E.UnitEliminated():
                u = st.units[ev.unit]
                u.hex, u.eliminated = None, True
                cd.track.pop(ev.unit, None)
                st.score[other(u.side)] = st.score.get(other(u.side), 0) + self.printed(sc, ev.unit)  # 12.1
                self._owed(st, f, ev.unit)
            case E.UnitAdvanced():
                st.units[ev.unit].hex = ev.path[-1]
                self._note_airfield(sc, cd, st, ev.unit, ev.path[-1])
                st.decision = None
                if f is not None and ev.unit in f.victors:
                    f.victors.remove(ev.unit)
            case E.AdvanceDeclined():
                st.decision = None
                if f is not None:
                    f.stage = "done"
            case E.CombatFinished():
                cd.fight = None
                st.decision = None
            case E.SecretRecorded():
                if ev.side == GERMAN and ev.name == self.plan_name(sc):
                    cd.plan_sealed, cd.plan_open, cd.plan = True, False, {}
                    _, cd.plan_error = self._parse_plan(sc, ev.payload)
            case E.SecretRevealed():
                if ev.side == GERMAN and ev.name == self.plan_name(sc):
                    cd.plan, err = self._parse_plan(sc, ev.payload)
                    cd.plan_open = True
                    cd.plan_error = err
            case E.StandingOrderSet():
                key = f"{ev.side}:{ev.topic}"
                table = dict(cd.standing.get(key, {}))
                if ev.answer == "default" or (ev.answer == "ask" and not ev.scope):
                    table.pop(ev.scope, None)
                else:
                    table[ev.scope] = ev.answer
                if table:
                    cd.standing[key] = table
                else:
                    cd.standing.pop(key, None)
            case E.StandingOrderApplied():
                if f is not None:
                    f.auto += 1
            case _:
                no_reducer(self.game, ev)
        _put(st, cd)

    @staticmethod
    def _owed(st: GameState, f: Fight | None, uid: str) -> None:
        """Bookkeeping of a retreat in progress (10.5): the first retreat or loss of the
        force that had to choose turns the choice into a retreat of the whole force."""
        if st.decision is not None and uid in st.decision.units and st.decision.kind in ("ca", "retreat"):
            st.decision = None
        if f is None:
            return
        if f.stage == "ca" and uid in f.targets:
            f.stage = "retreat"
            f.to_retreat = [t for t in f.targets if t != uid and not st.units[t].eliminated
                            and st.units[t].hex is not None]
        elif f.stage == "retreat" and uid in f.to_retreat:
            f.to_retreat.remove(uid)

    def plan_name(self, sc: Scenario) -> str:
        return self.gd(sc).get("drop_plan_secret", "drop-plan")

    def _parse_plan(self, sc: Scenario, payload: str) -> tuple[dict[str, int], str]:
        gd = self.gd(sc)
        most = sum(1 for u in sc.units if u.type == gd.get("airborne_type", "airborne"))
        return parse_plan(payload, list(gd.get("maps", {})), int(gd.get("first_turn_min_drops", 7)), most)

    # --- sealed secrets: the drop plan (1.0) ----------------------------------------

    def check_sealed(self, ctx: Ctx, order: O.Order) -> None:
        """Called before a secret is sealed or unveiled (when the core offers the hook)."""
        st, sc = ctx.state, ctx.sc
        name = self.plan_name(sc)
        if getattr(order, "name", "") != name:
            return
        ph = sc.sequence[st.phase] if st.phase >= 0 else None
        if ctx.side != GERMAN:
            raise OrderError(f"only the German player has a {name}", "1.0")
        if isinstance(order, O.Secret):
            if ph is None or ph.name != "drop-plan":
                raise OrderError("the drop plan is written before the Commonwealth set-up, in the drop-plan step", "1.0")
            _, err = self._parse_plan(sc, order.payload)
            if err:
                raise OrderError(err, "1.1")
        elif not (st.turn == 1 and ph is not None and ph.name == "air-landing"):
            raise OrderError("the drop plan is opened when the drops begin, in the Game-Turn 1 air landing phase", "1.0")

    # --- what the game waits for ------------------------------------------------------

    def awaiting(self, st: GameState, sc: Scenario) -> list[dict]:
        if st.result is not None or st.phase < 0:
            return []
        cd = cdata(st)
        if st.decision is not None:
            d = st.decision
            item = {"side": d.side, "kind": d.kind, "units": list(d.units), "rule": d.rule}
            if d.kind == "ca":
                item["options"] = self._ca_lines(st, sc, d)
                item["order"] = "retreat UNIT HEX (the whole force retreats) | counterattack [HEX] all-out|limited"
                if cd.fight is not None and self.alive(st, d.units):
                    orders, pick, why = self.standing_answer(st, sc, cd.fight, self.alive(st, d.units), d.options)
                    said = ("standing orders " if len(orders) > 1 else "standing order ") + \
                        " / ".join(f"'{o}'" for o in orders)
                    if why:
                        item["order"] += f" - {said} not applied: {why}"
                    elif pick is not None:
                        item["order"] += f" - {said} given after this Ca; it answers the next ones"
            elif d.kind == "retreat":
                item["options"] = [f"retreat {d.units[0]} {o[0]}" for o in d.options]
                item["order"] = "retreat UNIT HEX"
            elif d.kind == "losses":
                item["options"] = ["lose " + " ".join(o) for o in d.options]
                item["order"] = "lose UNIT ..."
            else:
                item["options"] = [f"advance {o[0]} {o[1]}" for o in d.options] + ["no-advance"]
                item["order"] = "advance UNIT HEX (one unit an order; again for more) | no-advance"
            return [item]
        ph = sc.sequence[st.phase]
        if ph.name == "drop-plan":
            maps = list(self.gd(sc).get("maps", {}))
            return [{"side": ph.side, "kind": "drop-plan", "rule": "1.0",
                     "order": f"secret {self.plan_name(sc)} " + " ".join(f"{m}=N" for m in maps)
                              + " (at least 7 in all, 1.1), then end"}]
        if ph.name == "set-up":
            left = [u.id for u in st.units.values() if u.side == CW and u.hex is None and not u.eliminated]
            return [{"side": ph.side, "kind": "set-up", "rule": "1.2", "units": left,
                     "order": "place UNIT HEX (every Commonwealth unit), then end"}]
        if ph.name == "air-landing":
            item = {"side": ph.side, "kind": "air-landing", "rule": "5.0, 6.0",
                    "order": "drop UNIT HEX | land UNIT HEX (any number), then end"}
            if st.turn == 1:
                if not cd.plan_open:
                    item["order"] = f"unveil {self.plan_name(sc)} first (1.0); then " + item["order"]
                else:
                    item["plan"] = {m: f"{cd.t1.get(m, 0)} of {n}" for m, n in cd.plan.items()}
            return [item]
        if ph.name == "movement":
            item = {"side": ph.side, "kind": "movement", "rule": "4.0",
                    "order": "move UNIT HEX ... [off] (any number), then end"}
            owing = [u for u in cd.from_track if u in cd.track]
            if owing:
                item["must_leave_tracks"] = {u: self.track_entries(st, sc, st.units[u]) for u in owing}
            return [item]
        return [{"side": ph.side, "kind": "attacks", "rule": "8.0, 9.1",
                 "order": "attack HEX [plus HEX ...] with UNIT ... all-out|limited [air AIR ...] [lose UNIT ...] "
                          "[advance UNIT [HEX] | no-advance] (one at a time), then end"}]

    def _ca_lines(self, st: GameState, sc: Scenario, d: Decision) -> list[str]:
        out = []
        for o in d.options:
            if o[0] == "retreat":
                for uid in d.units:
                    u = st.units[uid]
                    out += [f"retreat {uid} {h}" for h in self.safe_hexes(st, sc, u)]
            else:
                out.append(" ".join(o))
        return out

    def default_orders(self, st: GameState, sc: Scenario, side: str) -> list[str]:
        """The deadline defaults of ``defaults_help``."""
        gd = self.gd(sc)
        cd = cdata(st)
        out: list[str] = []
        for item in self.awaiting(st, sc):
            if item["side"] != side:
                continue
            k = item["kind"]
            if k == "drop-plan":
                if not cd.plan_sealed:
                    out.append(f"secret {self.plan_name(sc)} {gd.get('default_drops', {}).get('default_plan', '')}")
                out.append("end")
            elif k == "set-up":
                setup = gd.get("default_setup", {})
                out += [f"place {u} {setup[u]}" for u in item["units"] if u in setup]
                out.append("end")
            elif k == "air-landing":
                if st.turn == 1:
                    if not cd.plan_open:
                        out.append(f"unveil {self.plan_name(sc)}")
                        return out       # the plan must be open before the drops can be chosen
                    todo = [u.id for u in sorted(st.units.values(), key=lambda u: u.id)
                            if self.utype(sc, u.id) == gd.get("airborne_type", "airborne")
                            and u.id not in cd.dropped and not u.eliminated]
                    for m, n in cd.plan.items():
                        targets = [h for h in gd.get("default_drops", {}).get(m, [])
                                   if not self.enemies(st, h, GERMAN)]
                        for i in range(n - cd.t1.get(m, 0)):
                            if todo and targets:
                                out.append(f"drop {todo.pop(0)} {targets[i % len(targets)]}")
                out.append("end")
            elif k == "movement":
                for uid, entries in item.get("must_leave_tracks", {}).items():
                    if entries:
                        out.append(f"move {uid} {entries[0]}")
                out.append("end")
            elif k == "attacks":
                out.append("end")
            elif k in ("ca", "retreat", "losses"):
                out.append(item["options"][0])
            elif k == "advance":
                out.append("no-advance")
        return out

    # --- orders -------------------------------------------------------------------

    def handle(self, ctx: Ctx, order: O.Order) -> None:
        st, sc = ctx.state, ctx.sc
        if st.result is not None:
            raise OrderError(f"the game is over ({st.result.reason})")
        if isinstance(order, O.GameVerb) and order.word == "doctrine":
            self._doctrine(ctx, order.args)     # a standing order: any time, by either side
            return
        if st.decision is not None:
            self._answer(ctx, order)
            return
        ph = sc.sequence[st.phase]
        if ctx.side != ph.side:
            raise OrderError(f"it is the {sc.side_name(ph.side)} {ph.name} phase; the game waits for "
                             f"{sc.side_name(ph.side)}", "3.0")
        word = order.word if isinstance(order, O.GameVerb) else order.__struct_config__.tag
        if isinstance(order, O.End):
            self._end(ctx, ph.name)
            return
        allowed = {"drop-plan": (), "set-up": ("place",), "air-landing": ("drop", "land"),
                   "movement": ("move",), "combat": ("attack",)}[ph.name]
        if word not in allowed:
            what = {"drop-plan": f"seal the drop plan (secret {self.plan_name(sc)} ...) and end",
                    "set-up": "place UNIT HEX, then end", "air-landing": "drop / land, then end",
                    "movement": "move, then end", "combat": "attack, then end"}[ph.name]
            raise OrderError(f"'{word}' is not an order of the {ph.name} phase: {what}", "3.0")
        if word == "place":
            self._place(ctx, order)
        elif word == "drop":
            self._drop(ctx, order)
        elif word == "land":
            self._land(ctx, order)
        elif word == "move":
            self._move(ctx, order)
        else:
            self._attack(ctx, order)

    def unit(self, ctx: Ctx, uid: str, side: str | None = None) -> UnitState:
        return find_unit(ctx, uid, side)

    @staticmethod
    def _args(order: O.GameVerb, n: int, usage: str) -> list[str]:
        if len(order.args) != n:
            raise OrderError(f"write: {usage}")
        return order.args

    def _hex(self, ctx: Ctx, h: str) -> str:
        if not (len(h) == 4 and h.isdigit()) or not ctx.sc.board.grid.contains(h):
            raise OrderError(f"{h!r} is not a hex of the map")
        return h

    # set-up (1.0, 1.2) ---------------------------------------------------------------

    def _place(self, ctx: Ctx, order: O.GameVerb) -> None:
        st, sc = ctx.state, ctx.sc
        uid, h = self._args(order, 2, "place UNIT HEX")
        u = self.unit(ctx, uid, CW)
        h = self._hex(ctx, h)
        if not self.land(sc, h):
            raise OrderError(f"{h} is {sc.board.terrain.get(h)}: units are placed on land hexes of the three maps", "1.2")
        if self.friends(st, h, CW, u.id) >= self.stack_limit(sc):
            raise OrderError(f"{h} already holds {self.stack_limit(sc)} Commonwealth units", "4.4")
        ctx.emit(E.UnitPlaced(unit=u.id, hex=h))

    # air landing (5.0, 6.0) ------------------------------------------------------------

    def _drop(self, ctx: Ctx, order: O.GameVerb) -> None:
        st, sc = ctx.state, ctx.sc
        gd = self.gd(sc)
        cd = cdata(st)
        uid, target = self._args(order, 2, "drop UNIT HEX")
        u = self.unit(ctx, uid, GERMAN)
        if self.utype(sc, u.id) != gd.get("airborne_type", "airborne"):
            raise OrderError(f"{u.id} is not an airborne unit; mountain units land on airfields (land UNIT HEX)", "5.0")
        if u.id in cd.dropped or u.hex is not None:
            raise OrderError(f"{u.id} has already made its one airdrop", "5.7")
        target = self._hex(ctx, target)
        m = self.map_of(sc, target)
        if m is None:
            raise OrderError(f"{target} is not on any of the three maps (a transit track or the gap between maps "
                             "is never a target)", "5.8")
        if sc.board.terrain.get(target) == "sea":
            raise OrderError(f"{target} is an all-sea hex and may not be a target hex", "5.1")
        if self.enemies(st, target, GERMAN):
            raise OrderError(f"{target} holds Commonwealth units and may not be a target hex", "5.1")
        if st.turn == 1:
            name = self.plan_name(sc)
            if not cd.plan_open:
                raise OrderError(f"open the sealed drop plan before the first drop: unveil {name}", "1.0")
            if cd.plan_error:
                raise OrderError(f"the sealed drop plan is not valid ({cd.plan_error}); no drop can match it", "1.0")
            if cd.t1.get(m, 0) >= cd.plan.get(m, 0):
                raise OrderError(f"the drop plan lands {cd.plan.get(m, 0)} airborne unit(s) on the {m} map on "
                                 f"Game-Turn 1 and {cd.t1.get(m, 0)} have dropped there", "1.0")
        terr = sc.board.terrain.get(target, "")
        table = gd["scatter_table"]
        column = table["terrain"].get(terr, table["columns"][0])
        d1 = ctx.dice.roll(sc.die)
        result = table["rows"][str(d1)][table["columns"].index(column)]
        rolls = [d1]
        where: str | None = target
        direction = ""
        if result == "Sc":
            d2 = ctx.dice.roll(sc.die)
            rolls.append(d2)
            direction = gd["scatter_directions"][d2 - 1]
            where = sc.board.grid.neighbour(target, direction)
            if where is not None and self.map_of(sc, where) != m:
                where = None                                  # into the gap between maps: off the map
        ctx.emit(E.AirDropped(unit=u.id, target=target, column=column, rolls=rolls, result=result,
                              direction=direction, hex=where or ""))
        if where is None:
            ctx.emit(E.UnitEliminated(unit=u.id, reason="scattered off the map", rule="5.3"))
            return
        if sc.board.terrain.get(where) == "sea":
            ctx.emit(E.UnitEliminated(unit=u.id, reason=f"scattered into the all-sea hex {where}", rule="5.3"))
            return
        if self.friends(st, where, GERMAN, u.id) >= self.stack_limit(sc):
            ctx.emit(E.UnitEliminated(unit=u.id, reason=f"landed in {where}, which already holds three German units",
                                      rule="5.4"))
            return
        cw = self.enemies(st, where, GERMAN)
        if cw:
            self._scatter_fight(ctx, u, where, cw)

    def _land(self, ctx: Ctx, order: O.GameVerb) -> None:
        st, sc = ctx.state, ctx.sc
        gd = self.gd(sc)
        cd = cdata(st)
        uid, h = self._args(order, 2, "land UNIT HEX")
        u = self.unit(ctx, uid, GERMAN)
        if self.utype(sc, u.id) != gd.get("mountain_type", "mountain"):
            raise OrderError(f"{u.id} is not a mountain unit; airborne units drop (drop UNIT HEX)", "6.0")
        if u.id in cd.landed or u.hex is not None:
            raise OrderError(f"{u.id} has already landed once", "6.5")
        h = self._hex(ctx, h)
        if h not in gd.get("airfields", []):
            raise OrderError(f"{h} is not an airfield hex; mountain units land only on airfields", "6.0")
        if self.enemies(st, h, GERMAN):
            raise OrderError(f"the airfield {sc.board.label(h)} is occupied by Commonwealth units", "6.1")
        if h not in cd.captured:
            raise OrderError(f"the airfield {sc.board.label(h)} has not been captured: a German unit must occupy "
                             "it first (our reading of 6.0)", "6.0")
        if self.friends(st, h, GERMAN) >= 3:
            raise OrderError(f"{h} already holds {self.friends(st, h, GERMAN)} German units; at most three per "
                             "airfield, landing units included", "6.2")
        ctx.emit(E.UnitLanded(unit=u.id, hex=h))

    # movement (4.0, 7.0) ---------------------------------------------------------------------

    def track_entries(self, st: GameState, sc: Scenario, u: UnitState) -> list[str]:
        """Where a unit in a transit track may come onto the next map (7.3, 7.4): the road hex,
        or, when that is enemy occupied or in an EZOC, the closest hexes of that map that are
        neither (and have room for it)."""
        cd = cdata(st)
        _, exit_hex = cd.track[u.id].split(">")
        m = self.map_of(sc, exit_hex)
        ezoc = self.zoc(st, sc, u.side)
        grid = sc.board.grid

        def ok(h: str) -> bool:
            return (self.land(sc, h) and self.map_of(sc, h) == m and h not in ezoc
                    and not self.enemies(st, h, u.side) and self.friends(st, h, u.side, u.id) < self.stack_limit(sc))
        if ok(exit_hex):
            return [exit_hex]
        best: list[str] = []
        for r in range(1, 40):
            best = sorted(h for h in grid.ring(exit_hex, r) if grid.contains(h) and ok(h))
            if best:
                break
        return best

    def _move(self, ctx: Ctx, order: O.Move) -> None:
        st, sc = ctx.state, ctx.sc
        cd = cdata(st)
        u = self.unit(ctx, order.unit, ctx.side)
        if u.moved:
            raise OrderError(f"{u.id} has already moved this phase", "4.0")
        if cd.dropped.get(u.id) == st.turn:
            raise OrderError(f"{u.id} dropped this Game-Turn and may not move until the next", "5.5")
        pc = self.costs(sc)
        ma = Fraction(u.ma)
        ezoc = self.zoc(st, sc, u.side)
        path = list(order.path)
        spent = Fraction(0)
        if u.id in cd.track:
            if order.off:
                raise OrderError(f"{u.id} is in a transit track and must come out onto the next map", "7.1, 7.7")
            if not path:
                raise OrderError(f"{u.id} is in a transit track: its path starts with the hex where it enters the map",
                                 "7.4")
            entries = self.track_entries(st, sc, u)
            if path[0] not in entries:
                raise OrderError(f"{u.id} must come out of the track at {' or '.join(entries) or '(nowhere)'}, "
                                 f"not {path[0]} (the road hex, else the closest hex free of enemy units and "
                                 "EZOC)", "7.3, 7.4")
            _, exit_hex = cd.track[u.id].split(">")
            t = sc.terrain[sc.board.terrain[path[0]]]
            # 7.5: the road hex is entered along the road (1/3 MP); another hex costs its terrain.
            spent = frac(self.gd(sc).get("road_cost", "1/3")) if path[0] == exit_hex else Fraction(t.move_cost)
            here, rest, start_in_ezoc = path[0], path[1:], False
        else:
            if u.hex is None:
                raise OrderError(f"{u.id} is not on the map")
            here, rest, start_in_ezoc = u.hex, path, u.hex in ezoc
        start = here
        for i, h in enumerate(rest):
            h = self._hex(ctx, h)
            if not sc.board.grid.adjacent(here, h):
                raise OrderError(f"{h} is not adjacent to {here}: a path goes hex by hex", "4.0")
            if self.enemies(st, h, u.side):
                raise OrderError(f"{h} holds an enemy unit and may not be entered", "4.3")
            c = pc.step(here, h)
            if c is None:
                why = "an all-sea hexside" if self.sea_side(sc, here, h) else f"{sc.board.terrain.get(h)}"
                raise OrderError(f"{h} may not be entered from {here} ({why})", "4.8")
            spent += c
            if spent > ma:
                raise OrderError(f"entering {h} would spend {fmt(spent)} MP, more than {u.id}'s movement "
                                 f"allowance of {u.ma}", "4.1")
            if i == 0 and start_in_ezoc and h in ezoc:
                raise OrderError(f"{u.id} starts in an enemy zone of control; its first hex ({h}) may not be in one",
                                 "4.6")
            if here in ezoc and (i > 0 or here != start or not start_in_ezoc):
                raise OrderError(f"{here} is in an enemy zone of control: the move must stop there", "4.5")
            here = h
        if order.off:
            tr = next((t for t in self.tracks(sc) if here in (t["a"], t["b"])), None)
            if tr is None:
                raise OrderError(f"{here} is not the road hex of a transit track; a unit leaves its map only "
                                 "into a track, from its road hex", "7.0")
            if here in ezoc and here != start:
                raise OrderError(f"{here} is in an enemy zone of control: the move must stop there", "4.5")
            if u.id in cd.from_track:
                raise OrderError(f"{u.id} began this phase in a transit track and may not enter one again", "7.7")
            spent += int(self.gd(sc).get("track_entry_cost", 1))          # 7.6
            if spent > ma:
                raise OrderError(f"entering the track costs 1 MP: {fmt(spent)} in all, more than {u.id}'s "
                                 f"movement allowance of {u.ma}", "7.6")
            exit_hex = tr["b"] if here == tr["a"] else tr["a"]
            ctx.emit(E.TrackEntered(unit=u.id, track=tr["id"], path=path, cost=fmt(spent), ma=u.ma, exit=exit_hex))
            return
        if not path:
            raise OrderError("a move needs at least one hex")
        if self.friends(st, here, u.side, u.id) >= self.stack_limit(sc):
            raise OrderError(f"{here} already holds {self.stack_limit(sc)} friendly units", "4.4")
        ctx.emit(E.UnitMoved(unit=u.id, path=path, mp=ceil_mp(spent), ma=u.ma, cost=fmt(spent)))

    # ends of phases -------------------------------------------------------------------------------

    def _end(self, ctx: Ctx, phase: str) -> None:
        st, sc = ctx.state, ctx.sc
        cd = cdata(st)
        if phase == "drop-plan":
            name = self.plan_name(sc)
            if f"{GERMAN}:{name}" not in st.secrets or not cd.plan_sealed:
                raise OrderError(f"seal the drop plan first: secret {name} "
                                 + " ".join(f"{m}=N" for m in self.gd(sc).get("maps", {})), "1.0")
            if cd.plan_error:
                raise OrderError(f"the sealed drop plan is not valid: {cd.plan_error}; unveil {name} and seal a "
                                 "valid one", "1.0")
        elif phase == "set-up":
            left = sorted(u.id for u in st.units.values() if u.side == CW and u.hex is None)
            if left:
                raise OrderError(f"every Commonwealth unit must be placed; still to place: {', '.join(left)}", "1.2")
        elif phase == "air-landing" and st.turn == 1:
            if not cd.plan_open:
                raise OrderError(f"unveil {self.plan_name(sc)} and make its drops first", "1.0")
            short = [f"{m}: {cd.t1.get(m, 0)} of {n}" for m, n in cd.plan.items() if cd.t1.get(m, 0) != n]
            if short:
                raise OrderError(f"the drops do not yet match the drop plan ({'; '.join(short)})", "1.0, 1.1")
        elif phase == "movement":
            owing = [u for u in cd.from_track if u in cd.track]
            if owing:
                raise OrderError(f"units in a transit track must come out onto the next map this phase: "
                                 f"{', '.join(owing)}", "7.1")
        self._next_phase(ctx)

    def _next_phase(self, ctx: Ctx) -> None:
        st, sc = ctx.state, ctx.sc
        first = next(i for i, p in enumerate(sc.sequence) if p.name == "air-landing")
        nxt, turn = st.phase + 1, st.turn
        if nxt >= len(sc.sequence):
            if turn >= sc.turns:
                self._game_end(ctx)
                return
            nxt, turn = first, turn + 1
        if nxt == first and turn == 0:
            turn = 1
        p = sc.sequence[nxt]
        ctx.emit(E.PhaseStarted(turn=turn, phase=nxt, side=p.side, name=p.name))

    def final_points(self, st: GameState, sc: Scenario) -> tuple[dict[str, int], list[str]]:
        """Victory Points at the end (12.1, 12.2) and the reasons for the place points."""
        v = sc.victory
        gd = self.gd(sc)
        pts = {GERMAN: st.score.get(GERMAN, 0), CW: st.score.get(CW, 0)}
        notes = []
        held = [(h, int(v.get("airfield_points", 5)), sc.board.label(h)) for h in gd.get("airfields", [])]
        if gd.get("suda"):
            held.append((gd["suda"], int(v.get("suda_points", 10)), sc.board.label(gd["suda"])))
        for h, n, lab in held:
            sides = {u.side for u in units_at(st).get(h, [])}
            if len(sides) == 1:
                s = sides.pop()
                pts[s] += n
                notes.append(f"{lab} {sc.side_name(s)} +{n}")
        return pts, notes

    def _game_end(self, ctx: Ctx) -> None:
        st, sc = ctx.state, ctx.sc
        pts, notes = self.final_points(st, sc)
        diff = abs(pts[GERMAN] - pts[CW])
        level = next((lv["level"] for lv in sc.victory.get("levels", []) if lv["from"] <= diff <= lv["to"]), "")
        winner = "draw" if diff == 0 else (GERMAN if pts[GERMAN] > pts[CW] else CW)
        what = "a draw" if winner == "draw" else f"{sc.side_name(winner)} {level} victory"
        ctx.emit(E.GameEnded(winner=winner, rule="12.3",
                             reason=f"{what}: German {pts[GERMAN]} VP, Commonwealth {pts[CW]} VP, difference {diff} "
                                    f"(places held: {', '.join(notes) or 'none'})"))

    # combat (8.0-11.0) -------------------------------------------------------------------------------

    def strengths(self, st: GameState, sc: Scenario, rollers: list[UnitState], targets: list[UnitState],
                  air: list[str], terrain: bool = True) -> tuple[int, int, list[str]]:
        att = sum(u.strength for u in rollers)
        mods = []
        if air:
            au = self.air_units(sc)
            extra = sum(int(au[a]["strength"]) for a in air)
            att += extra
            mods.append(f"air {'+'.join(air)} adds {extra} (11.0)")
        dfn = 0
        for u in targets:
            t = sc.terrain.get(sc.board.terrain.get(u.hex or "", ""))
            k = t.defence if (t is not None and terrain) else 1
            if k > 1:
                mods.append(f"{u.id} doubled in {sc.board.terrain.get(u.hex or '')} (4.8)")
            dfn += u.strength * k
        if not terrain:
            mods.append("no terrain benefit for the German unit (5.2)")
        return att, dfn, mods

    def table(self, sc: Scenario, name: str) -> tuple[list[str], dict[str, list[str]], str]:
        if name == "limited":
            t = self.gd(sc)["limited"]
            return t["columns"], t["rows"], "9.6"
        return sc.crt.columns, sc.crt.rows, "9.5"

    def _roll(self, ctx: Ctx, mode: str, side: str, rollers: list[UnitState], targets: list[UnitState],
              hexes: list[str], table: str, air: list[str] | None = None, terrain: bool = True,
              **inline) -> None:
        st, sc = ctx.state, ctx.sc
        cd = cdata(st)
        index = cd.fight.index if cd.fight is not None else cd.fights
        ctx.emit(E.CombatOpened(index=index, mode=mode, side=side, attackers=[u.id for u in rollers],
                                defenders=[u.id for u in targets], hexes=hexes, table=table, air=list(air or []),
                                **inline))
        att, dfn, mods = self.strengths(st, sc, rollers, targets, air or [], terrain)
        col = odds_column(att, dfn, best=7, worst=3)
        assert col is not None
        cols, rows, rule = self.table(sc, table)
        die = ctx.dice.roll(sc.die)
        result = rows[str(die)][cols.index(col)]
        ctx.emit(E.CombatResolved(index=index, target=hexes[0], attackers=[u.id for u in rollers],
                                  defenders=[u.id for u in targets], attack_strength=att, defence_strength=dfn,
                                  modifiers=[f"{table} table ({rule})"] + mods, odds=col, rolls=[die], result=result))
        self._after_roll(ctx)

    def _parse_attack(self, ctx: Ctx, order: O.Attack) -> tuple[list[str], list[str], str, list[str], list[str]]:
        """Split the words after 'with': units, then 'plus HEX ...', the table, 'air ...', 'lose ...'."""
        units: list[str] = []
        hexes = [order.target]
        table = ""
        air: list[str] = []
        lose: list[str] = []
        bucket = units
        for w in order.attackers:
            lw = w.lower()
            if lw in TABLES:
                if table:
                    raise OrderError("name one table: all-out or limited", "9.1")
                table = TABLES[lw]
                bucket = units
            elif lw == "plus":
                bucket = hexes
            elif lw == "air":
                bucket = air
            elif lw == "lose":
                bucket = lose
            elif bucket is hexes:
                hexes.append(self._hex(ctx, w))
            else:
                bucket.append(w)
        return units, hexes, table, air, lose

    def _attack(self, ctx: Ctx, order: O.Attack) -> None:
        st, sc = ctx.state, ctx.sc
        gd = self.gd(sc)
        cd = cdata(st)
        side = ctx.side
        ids, hexes, table, air, lose = self._parse_attack(ctx, order)
        if order.retreat or order.attacker_retreat:
            raise OrderError("the defender chooses its own retreat (10.6); 'retreat' and 'ar' have no use here", "10.5")
        if len(set(hexes)) != len(hexes):
            raise OrderError("a hex is named twice")
        defenders: list[UnitState] = []
        for h in hexes:
            self._hex(ctx, h)
            here = self.enemies(st, h, side)
            if not here:
                raise OrderError(f"{h} holds no enemy unit")
            defenders += here              # 8.6: every unit in the hex defends together
        for d in defenders:
            if d.defended:
                raise OrderError(f"{d.id} has already been the object of a combat this phase", "8.2")
        if not ids:
            raise OrderError("name the attacking units: attack HEX with UNIT ... all-out|limited")
        attackers: list[UnitState] = []
        for uid in ids:
            u = self.unit(ctx, uid, side)
            if u in attackers:
                raise OrderError(f"{u.id} is listed twice")
            if u.hex is None:
                raise OrderError(f"{u.id} is not on the map")
            if u.attacked:
                raise OrderError(f"{u.id} has already attacked this phase", "8.2")
            if cd.dropped.get(u.id) == st.turn:
                raise OrderError(f"{u.id} dropped this Game-Turn and may not attack", "5.6")
            for h in hexes:
                if not sc.board.grid.adjacent(u.hex, h):
                    raise OrderError(f"{u.id} in {u.hex} is not adjacent to {h}; every attacker must be adjacent "
                                     "to every defender", "8.4")
                if self.sea_side(sc, u.hex, h):
                    raise OrderError(f"{u.id} would attack {h} across an all-sea hexside", "4.8")
            attackers.append(u)
        if not table:
            raise OrderError("name the table before the roll: all-out or limited", "9.1")
        if air:
            au = self.air_units(sc)
            if side != GERMAN:
                raise OrderError("only the German player has air units", "11.0")
            if st.turn in gd.get("no_air_turns", [1]):
                raise OrderError("air units are not used on Game-Turn One", "11.5")
            if len(air) > int(gd.get("air_per_attack", 3)):
                raise OrderError(f"at most {gd.get('air_per_attack', 3)} air units in one attack", "11.0")
            for a in air:
                if a not in au:
                    raise OrderError(f"unknown air unit {a!r}; air units: {', '.join(au)}", "11.0")
                if a in cd.air_used or air.count(a) > 1:
                    raise OrderError(f"air unit {a} has already been used this Game-Turn", "11.4")
        att, dfn, _ = self.strengths(st, sc, attackers, defenders, air)
        if odds_column(att, dfn, best=7, worst=3) is None:
            raise OrderError(f"odds of {att}:{dfn} are below 1:3; such an attack is not allowed", "9.4")
        names = {u.id for u in attackers}
        lose_ids = [self.unit(ctx, x, side).id for x in lose]
        if any(x not in names for x in lose_ids):
            raise OrderError("'lose' names a unit that is not in this attack", "10.3")
        adv, adv_hex = order.advance, (order.advance_path[0] if order.advance_path else "")
        if adv not in ("", "-"):
            adv = self.unit(ctx, adv, side).id
            if adv not in names:
                raise OrderError(f"only a unit of the attack may advance; {adv} is not in it", "10.7")
            if adv_hex and adv_hex not in hexes:
                raise OrderError(f"{adv_hex} is not an attacked hex", "10.7")
        self._roll(ctx, "attack", side, attackers, defenders, hexes, table, air,
                   lose=lose_ids, advance=adv, advance_hex=adv_hex)

    def _scatter_fight(self, ctx: Ctx, u: UnitState, h: str, cw: list[UnitState]) -> None:
        """5.2: a unit that scatters onto Commonwealth units attacks them at once on the All Out table,
        without air units (11.5); below 1:3 it is eliminated (9.4)."""
        st, sc = ctx.state, ctx.sc
        att, dfn, _ = self.strengths(st, sc, [u], cw, [])
        if odds_column(att, dfn, best=7, worst=3) is None:
            ctx.emit(E.UnitEliminated(unit=u.id, reason=f"scattered onto Commonwealth units in {h} at odds of "
                                                        f"{att}:{dfn}, below 1:3", rule="9.4"))
            return
        self._roll(ctx, "scatter", GERMAN, [u], cw, [h], "all-out")

    def fight(self, st: GameState) -> Fight:
        f = cdata(st).fight
        assert f is not None
        return f

    def _after_roll(self, ctx: Ctx) -> None:
        st = ctx.state
        f = self.fight(st)
        r = f.result
        rollers = self.alive(st, f.rollers)
        targets = self.alive(st, f.targets)
        if f.kind == "scatter" and r == "Ne":
            r = "Ca"          # 5.2: the exchange goes on until a unit is eliminated or the defender retreats
        if r == "De":
            for u in targets:
                ctx.emit(E.UnitEliminated(unit=u.id, reason=f"De in the combat at {f.target_hexes[0]}", rule="10.2"))
            self._advance_start(ctx, [u.id for u in rollers], f.target_hexes)
        elif r == "Ae":
            vacated = sorted({u.hex for u in rollers if u.hex})
            for u in rollers:
                ctx.emit(E.UnitEliminated(unit=u.id, reason=f"Ae in the combat at {f.target_hexes[0]}", rule="10.1"))
            self._advance_start(ctx, [u.id for u in targets], vacated)
        elif r == "Ee":
            for u in targets:
                ctx.emit(E.UnitEliminated(unit=u.id, reason=f"Ee in the combat at {f.target_hexes[0]}", rule="10.3"))
            self._losses(ctx)
        elif r == "Ne":
            ctx.emit(E.CombatFinished(index=f.index))                           # 10.4
        else:
            self._ca_choice(ctx)

    # Ee (10.3) -------------------------------------------------------------------------------

    def loss_options(self, st: GameState, sc: Scenario, f: Fight) -> list[list[str]]:
        """Sets of attacking units whose printed strengths reach the defenders' printed strength,
        none of them with a unit to spare (10.3)."""
        need = sum(self.printed(sc, t) for t in f.targets)
        pool = sorted(self.alive(st, f.rollers), key=lambda u: u.id)
        if sum(u.strength for u in pool) <= need:
            return [[u.id for u in pool]]
        out = []
        for n in range(1, len(pool) + 1):
            for combo in itertools.combinations(pool, n):
                s = sum(u.strength for u in combo)
                if s >= need and s - min(u.strength for u in combo) < need:
                    out.append([u.id for u in combo])
        return out

    def _losses(self, ctx: Ctx) -> None:
        st, sc = ctx.state, ctx.sc
        f = self.fight(st)
        opts = self.loss_options(st, sc, f)
        choice = None
        if len(opts) == 1:
            choice = opts[0]
        elif f.roll_side == f.side and f.lose and sorted(f.lose) in [sorted(o) for o in opts]:
            choice = f.lose
        if choice is None:
            ctx.emit(E.DecisionRequired(side=f.roll_side, decision="losses", combat=f.index,
                                        units=[u.id for u in self.alive(st, f.rollers)], options=opts, rule="10.3"))
            return
        self._lose(ctx, choice)

    def _lose(self, ctx: Ctx, ids: list[str]) -> None:
        st = ctx.state
        f = self.fight(st)
        need = sum(self.printed(ctx.sc, t) for t in f.targets)
        for uid in ids:
            ctx.emit(E.UnitEliminated(unit=uid, reason=f"Ee: the attackers lose at least {need} strength points",
                                      rule="10.3"))
        f = self.fight(st)
        self._advance_start(ctx, [u.id for u in self.alive(st, f.rollers)], f.target_hexes)

    # Ca (10.5) --------------------------------------------------------------------------------

    def safe_hexes(self, st: GameState, sc: Scenario, u: UnitState) -> list[str]:
        """10.6: adjacent hexes the unit could enter, free of enemy units, with room, and outside
        enemy zones of control unless friendly units already stand there (our reading)."""
        if u.hex is None:
            return []
        ezoc = self.zoc(st, sc, u.side)
        out = []
        for n in sc.board.grid.neighbours(u.hex):
            if not self.land(sc, n) or self.sea_side(sc, u.hex, n) or self.enemies(st, n, u.side):
                continue
            k = self.friends(st, n, u.side, u.id)
            if k >= self.stack_limit(sc):
                continue
            if n in ezoc and k == 0:
                continue
            out.append(n)
        return sorted(out)

    def ca_options(self, st: GameState, sc: Scenario, f: Fight) -> list[list[str]]:
        """The choices of the force that drew a Ca: ["retreat"] and ["counterattack", HEX, TABLE]
        (original defenders) or ["counterattack", TABLE] (original attackers: the original
        attack rolled again without air power)."""
        force = self.alive(st, f.targets)
        if not force:
            return []
        side = force[0].side
        opts: list[list[str]] = []
        scatter = f.kind == "scatter"
        if not (scatter and side == f.side) and any(self.safe_hexes(st, sc, u) for u in force):
            opts.append(["retreat"])
        tables = ["all-out"] if scatter else ["all-out", "limited"]
        if side != f.side:
            own = self.alive(st, f.defenders)
            for h in sorted({u.hex for u in self.alive(st, f.rollers) if u.hex}):
                tg = self.enemies(st, h, side)
                att, dfn, _ = self.strengths(st, sc, own, tg, [], terrain=not scatter)
                if tg and odds_column(att, dfn, best=7, worst=3) is not None:
                    opts += [["counterattack", h, t] for t in tables]
        else:
            att, dfn, _ = self.strengths(st, sc, self.alive(st, f.attackers), self.alive(st, f.defenders), [])
            if odds_column(att, dfn, best=7, worst=3) is not None:
                opts += [["counterattack", t] for t in tables]
        return opts

    def _ca_choice(self, ctx: Ctx) -> None:
        st, sc = ctx.state, ctx.sc
        f = self.fight(st)
        force = self.alive(st, f.targets)
        if not force:
            ctx.emit(E.CombatFinished(index=f.index))
            return
        opts = self.ca_options(st, sc, f)
        if not opts:
            for u in force:
                ctx.emit(E.UnitEliminated(unit=u.id, reason="Ca with no safe retreat and no counterattack of "
                                                            "at least 1:3", rule="10.5"))
            f = self.fight(st)
            self._advance_start(ctx, [u.id for u in self.alive(st, f.rollers)], f.target_hexes)
            return
        if opts == [["retreat"]]:
            self._retreats(ctx)            # no counterattack possible: the force retreats (10.5)
            return
        if len(opts) == 1:                 # 5.2: the German unit must counterattack on the All Out table
            self._counterattack(ctx, opts[0])
            return
        orders, pick, _ = self.standing_answer(st, sc, f, force, opts)
        if pick is not None:
            ctx.emit(E.StandingOrderApplied(side=force[0].side, orders=orders, answer=" ".join(pick),
                                            units=[u.id for u in force], combat=f.index, rule="10.5"))
            if pick == ["retreat"]:
                self._retreats(ctx)
            else:
                self._counterattack(ctx, pick)
            return
        ctx.emit(E.DecisionRequired(side=force[0].side, decision="ca", combat=f.index, units=[u.id for u in force],
                                    options=opts, rule="10.5"))

    # standing answers to a Ca (10.5) ---------------------------------------------------------------

    def _doctrine(self, ctx: Ctx, args: list[str]) -> None:
        """doctrine ca|re-roll [UNIT|HEX] ANSWER: a standing answer to the Ca choices of 10.5, for
        every unit of the side, or an exception for one unit or for the units in one hex."""
        st, sc = ctx.state, ctx.sc
        if not args or args[0].lower() not in STANDING_TOPICS:
            raise OrderError(f"a Crete standing order is: {STANDING_USAGE}", "10.5")
        topic = STANDING_TOPICS[args[0].lower()]
        rest = list(args[1:])
        scope = ""
        if rest and rest[0].lower() not in STANDING_WORDS:
            if O.HEX_RE.match(rest[0]):
                scope = self._hex(ctx, rest[0])
                if not self.land(sc, scope):
                    raise OrderError(f"{scope} is not a land hex of the three maps", "10.5")
            else:
                scope = self.unit(ctx, rest[0], ctx.side).id
            rest = rest[1:]
        words = [TABLES.get(w.lower(), w.lower()) for w in rest]
        if topic == "ca":
            ok = words in (["retreat"], ["ask"], ["counterattack", "all-out"], ["counterattack", "limited"])
        else:
            ok = words in (["retreat"], ["ask"], ["all-out"], ["limited"])
        if words == ["default"] and scope:
            if scope not in cdata(st).standing.get(f"{ctx.side}:{topic}", {}):
                raise OrderError(f"{scope} has no standing {topic} exception to clear", "10.5")
            ok = True
        if not ok:
            raise OrderError(f"write: {STANDING_USAGE}", "10.5")
        ctx.emit(E.StandingOrderSet(side=ctx.side, topic=topic, answer=" ".join(words), scope=scope))

    def standing_answer(self, st: GameState, sc: Scenario, f: Fight, force: list[UnitState],
                        opts: list[list[str]]) -> tuple[list[str], list[str] | None, str]:
        """What the standing orders answer to the Ca choice of ``force`` (10.5): the standing orders
        that speak for it (as written), the option they pick (None: ask the player) and, when they
        say something but cannot be applied, why.  Each unit follows its own exception, else the
        one for its hex, else the side's; the force must agree.  A counterattack of the original
        defender goes against the hex that gives the best odds (on equal odds the lowest hex number)."""
        side = force[0].side
        topic = "re-roll" if side == f.side else "ca"
        table = cdata(st).standing.get(f"{side}:{topic}", {})
        if not table:
            return [], None, ""
        orders: list[str] = []
        says: dict[str, str] = {}
        for u in force:
            scope = u.id if u.id in table else (u.hex if u.hex in table else ("" if "" in table else None))
            if scope is None:
                says[u.id] = "ask"
                continue
            says[u.id] = table[scope]
            text = " ".join(["doctrine", topic] + ([scope] if scope else []) + [table[scope]])
            if text not in orders:
                orders.append(text)
        answers = set(says.values())
        if answers == {"ask"}:
            return [], None, ""
        if len(answers) > 1:
            return orders, None, "the standing orders differ within the force (" + \
                "; ".join(f"{u} {a}" for u, a in says.items()) + ")"
        ans = answers.pop()
        if f.auto >= AUTO_LIMIT:
            return orders, None, f"{AUTO_LIMIT} Ca results of this fight were already answered by standing order"
        if ans == "retreat":
            if ["retreat"] in opts:
                return orders, ["retreat"], ""
            why = "no unit of the force has a safe hex (10.6)" if f.kind != "scatter" else \
                "the German unit of a scatter fight may not retreat (5.2)"
            return orders, None, why
        tab = ans.split()[-1]
        cands = [o for o in opts if o[0] == "counterattack" and o[-1] == tab]
        if not cands:
            if f.kind == "scatter" and tab == "limited":
                return orders, None, "a scatter fight uses the All Out table only (5.2)"
            return orders, None, f"no counterattack of at least 1:3 is possible on the {tab} table (9.4)"
        if topic == "re-roll":
            return orders, cands[0], ""
        own = self.alive(st, f.defenders)

        def odds(o: list[str]) -> int:
            att, dfn, _ = self.strengths(st, sc, own, self.enemies(st, o[1], side), [], terrain=f.kind != "scatter")
            return sc.crt.columns.index(odds_column(att, dfn, best=7, worst=3) or sc.crt.columns[0])
        return orders, max(cands, key=odds), ""

    def _counterattack(self, ctx: Ctx, opt: list[str]) -> None:
        st = ctx.state
        f = self.fight(st)
        side = self.alive(st, f.targets)[0].side
        if side != f.side:
            h, table = opt[1], opt[2]
            own = self.alive(st, f.defenders)
            self._roll(ctx, "counterattack", side, own, self.enemies(st, h, side), [h], table,
                       terrain=f.kind != "scatter")
        else:
            defs = self.alive(st, f.defenders)
            hexes = [h for h in f.hexes if any(d.hex == h for d in defs)]
            self._roll(ctx, "re-roll", side, self.alive(st, f.attackers), defs, hexes, opt[1])

    def _retreats(self, ctx: Ctx) -> None:
        """Retreat the force one unit at a time (10.5, 10.6); stop at the first real choice."""
        st, sc = ctx.state, ctx.sc
        while True:
            f = self.fight(st)
            owing = f.to_retreat if f.stage == "retreat" else f.targets
            force = self.alive(st, owing)
            if not force:
                break
            u = force[0]
            opts = self.safe_hexes(st, sc, u)
            if not opts:
                ctx.emit(E.UnitEliminated(unit=u.id, reason=f"no safe hex to retreat to from {u.hex}", rule="10.6"))
            elif len(opts) == 1:
                ctx.emit(E.UnitRetreated(unit=u.id, path=opts, chosen_by="auto"))
            else:
                ctx.emit(E.DecisionRequired(side=u.side, decision="retreat", combat=f.index, units=[u.id],
                                            options=[[h] for h in opts], rule="10.6"))
                return
        f = self.fight(st)
        self._advance_start(ctx, [u.id for u in self.alive(st, f.rollers)], f.target_hexes)

    # advance (10.7) -------------------------------------------------------------------------------

    def advance_options(self, st: GameState, sc: Scenario, victors: list[str], vacated: list[str]) -> list[list[str]]:
        out = []
        for u in self.alive(st, victors):
            for h in vacated:
                if (self.enemies(st, h, u.side) or u.hex == h or not sc.board.grid.adjacent(u.hex, h)
                        or self.sea_side(sc, u.hex, h) or not self.land(sc, h)
                        or self.friends(st, h, u.side, u.id) >= self.stack_limit(sc)):
                    continue
                out.append([u.id, h])
        return out

    def _advance_start(self, ctx: Ctx, victors: list[str], vacated: list[str]) -> None:
        st, sc = ctx.state, ctx.sc
        f = self.fight(st)
        opts = [] if f.kind == "scatter" else self.advance_options(st, sc, victors, vacated)
        if not opts:
            ctx.emit(E.CombatFinished(index=f.index))
            return
        side = st.units[opts[0][0]].side
        if side == f.side and f.advance:
            if f.advance == "-":
                ctx.emit(E.AdvanceDeclined(index=f.index))
                ctx.emit(E.CombatFinished(index=f.index))
                return
            pick = next((o for o in opts if o[0] == f.advance and (not f.advance_hex or o[1] == f.advance_hex)), None)
            if pick is not None:
                ctx.emit(E.UnitAdvanced(unit=pick[0], path=[pick[1]]))
                ctx.emit(E.CombatFinished(index=f.index))
                return
        ctx.emit(E.DecisionRequired(side=side, decision="advance", combat=f.index,
                                    units=sorted({o[0] for o in opts}), options=opts, rule="10.7"))

    # answers to decisions -----------------------------------------------------------------------------

    def _answer(self, ctx: Ctx, order: O.Order) -> None:
        st, sc = ctx.state, ctx.sc
        d = st.decision
        assert d is not None
        f = self.fight(st)
        if ctx.side != d.side:
            raise OrderError(f"the game waits for {sc.side_name(d.side)} to answer a {d.kind} decision "
                             f"({', '.join(d.units)})", d.rule)
        word = order.word if isinstance(order, O.GameVerb) else order.__struct_config__.tag
        if d.kind in ("ca", "retreat") and isinstance(order, O.Retreat):
            if d.kind == "ca" and ["retreat"] not in d.options:
                raise OrderError("this force may not retreat; it must counterattack", "5.2")
            u = self.unit(ctx, order.unit, ctx.side)
            if u.id not in d.units:
                raise OrderError(f"{u.id} does not owe a retreat; the retreating force: {', '.join(d.units)}", "10.5")
            opts = self.safe_hexes(st, sc, u)
            if len(order.path) != 1 or order.path[0] not in opts:
                raise OrderError(f"{u.id} retreats one hex, to a safe hex: {', '.join(opts) or 'none'}", "10.6")
            ctx.emit(E.UnitRetreated(unit=u.id, path=list(order.path), chosen_by=ctx.side))
            self._retreats(ctx)
            return
        if d.kind == "ca" and word == "counterattack":
            args = [a.lower() if a.lower() in TABLES else a for a in order.args]
            args = [TABLES.get(a, a) for a in args]
            cands = [o for o in d.options if o[0] == "counterattack"]
            if not cands:
                raise OrderError("no counterattack of at least 1:3 is possible; the force must retreat", "10.5")
            if len(args) == 1 and len(cands[0]) == 3:
                hexes = sorted({o[1] for o in cands})
                if len(hexes) == 1:
                    args = [hexes[0]] + args
            if ["counterattack"] + args not in cands:
                raise OrderError("choose one of: " + "; ".join(" ".join(o) for o in cands), "10.5")
            self._counterattack(ctx, ["counterattack"] + args)
            return
        if d.kind == "losses" and word == "lose":
            ids = [self.unit(ctx, x, ctx.side).id for x in order.args]
            if sorted(ids) not in [sorted(o) for o in d.options]:
                raise OrderError("lose one of these sets: " + "; ".join(" ".join(o) for o in d.options), "10.3")
            self._lose(ctx, ids)
            return
        if d.kind == "advance" and isinstance(order, O.Advance):
            if order.unit == "-":
                ctx.emit(E.AdvanceDeclined(index=f.index))
                ctx.emit(E.CombatFinished(index=f.index))
                return
            u = self.unit(ctx, order.unit, ctx.side)
            hexes = [o[1] for o in d.options if o[0] == u.id]
            h = order.path[0] if order.path else (hexes[0] if len(hexes) == 1 else "")
            if [u.id, h] not in d.options:
                raise OrderError("advance one of: " + "; ".join(" ".join(o) for o in d.options), "10.7")
            ctx.emit(E.UnitAdvanced(unit=u.id, path=[h]))
            f = self.fight(st)
            opts = self.advance_options(st, sc, f.victors, f.vacated)
            if opts:
                ctx.emit(E.DecisionRequired(side=d.side, decision="advance", combat=f.index,
                                            units=sorted({o[0] for o in opts}), options=opts, rule="10.7"))
            else:
                ctx.emit(E.CombatFinished(index=f.index))
            return
        wants = {"ca": "retreat UNIT HEX or counterattack [HEX] all-out|limited", "retreat": "retreat UNIT HEX",
                 "losses": "lose UNIT ...", "advance": "advance UNIT [HEX] or no-advance"}[d.kind]
        raise OrderError(f"the game waits for {sc.side_name(d.side)}'s answer: {wants}", d.rule)

    # --- report wording (used when the core offers the describe_event hook) ---------------------------

    def describe_event(self, ev: E.Event, sc: Scenario, origin: str | None = None) -> str | None:
        own = self._own_words(ev, sc)
        return own if own is not None else classic(ev, sc, origin)

    def _own_words(self, ev: E.Event, sc: Scenario) -> str | None:
        name = sc.side_name
        lab = sc.board.label
        match ev:
            case E.StandingOrderSet():
                text = " ".join(["doctrine", ev.topic] + ([ev.scope] if ev.scope else []) + [ev.answer])
                who = (f"its units in {lab(ev.scope)}" if ev.scope and ev.scope.isdigit() else ev.scope) \
                    or "any of its forces"
                when = f"a Ca in an attack on {who}" if ev.topic == "ca" else f"a Ca in a counterattack on {who}"
                tab = ev.answer.split()[-1]
                what = {"retreat": "is answered by a retreat of the whole force",
                        "ask": "is put to the player",
                        "default": "follows the side's standing order again (the exception is cleared)",
                        }.get(ev.answer, f"is answered by a counterattack on the {tab} table, against the enemy hex "
                                         "giving the best odds" if ev.topic == "ca" else
                              f"is answered by rolling the original attack again on the {tab} table")
                return f"{name(ev.side)} standing order '{text}': {when} {what} (10.5)."
            case E.StandingOrderApplied():
                many = "s" if len(ev.orders) > 1 else ""
                what, rule = f"{ev.answer}", "10.5"
                if ev.answer == "retreat":
                    what, rule = "retreat, the whole force", "10.5, 10.6"
                elif len(ev.answer.split()) == 2:
                    what = f"{ev.answer}, the original attack rolled again without air units"
                return (f"{name(ev.side)} answers the Ca of {', '.join(ev.units)} by standing order{many} "
                        f"'{' / '.join(ev.orders)}': {what} ({rule}).")
            case E.CombatResolved():
                mods = f" ({'; '.join(ev.modifiers)})" if ev.modifiers else ""
                return (f"Combat at {lab(ev.target)}: {'+'.join(ev.attackers)} ({ev.attack_strength}) against "
                        f"{'+'.join(ev.defenders)} ({ev.defence_strength}){mods}; odds {ev.odds}, die "
                        f"{', '.join(map(str, ev.rolls))}: {ev.result} (9.2, 9.4, 10.0).")
            case E.UnitRetreated():
                who = "no choice" if ev.chosen_by == "auto" else f"chosen by {name(ev.chosen_by)}"
                return f"{ev.unit} retreats to {lab(ev.path[-1])} ({who}) (10.5, 10.6)."
            case E.UnitAdvanced():
                return f"{ev.unit} advances into {lab(ev.path[-1])} (10.7)."
            case E.GameEnded():
                return f"GAME OVER - {ev.reason} ({ev.rule})."
        return None

    # --- scenario checks --------------------------------------------------------------------------

    def lint(self, sc: Scenario) -> list[str]:
        errs: list[str] = []
        gd = self.gd(sc)
        grid = sc.board.grid
        for key in ("maps", "tracks", "scatter_table", "limited", "air", "airfields", "suda", "scatter_directions"):
            if key not in gd:
                errs.append(f"game_data.{key}: missing")
        if errs:
            return errs
        maps = gd["maps"]
        ranges = sorted((m["first_col"], m["last_col"], k) for k, m in maps.items())
        for (a0, a1, ka), (b0, b1, kb) in zip(ranges, ranges[1:]):
            if b0 <= a1 + 1:
                errs.append(f"game_data.maps: {ka} and {kb} need at least one offmap column between them")
        for h in grid.all_hexes():
            col = int(h[:2])
            inside = any(m["first_col"] <= col <= m["last_col"] for m in maps.values())
            off = sc.board.terrain.get(h) == "offmap"
            if inside == off:
                errs.append(f"map: hex {h} is {'offmap inside a map' if off else 'outside every map but not offmap'}")
                break
        for i, t in enumerate(gd["tracks"]):
            ma, mb = self.map_of(sc, t.get("a")), self.map_of(sc, t.get("b"))
            if ma is None or mb is None or ma == mb:
                errs.append(f"game_data.tracks[{i}]: a and b must be hexes of two different maps")
                continue
            for end in (t["a"], t["b"]):
                if not any("road" in sc.board.side_features(end, n) for n in grid.neighbours(end)):
                    errs.append(f"game_data.tracks[{i}]: {end} is not on a road (7.0)")
        for h in gd["airfields"]:
            if sc.board.terrain.get(h) != "airfield":
                errs.append(f"game_data.airfields: {h} is not an airfield hex")
        if sc.board.terrain.get(gd["suda"]) != "town":
            errs.append(f"game_data.suda: {gd['suda']} is not a town hex")
        st = gd["scatter_table"]
        for d in range(1, sc.die + 1):
            row = st["rows"].get(str(d))
            if row is None or len(row) != len(st["columns"]) or any(r not in ("Ac", "Sc") for r in row):
                errs.append(f"game_data.scatter_table.rows[{d}]: needs {len(st['columns'])} of Ac/Sc")
        for t, c in st["terrain"].items():
            if c not in st["columns"]:
                errs.append(f"game_data.scatter_table.terrain.{t}: unknown column {c!r}")
        for t, tt in sc.terrain.items():
            if not tt.impassable and t not in st["terrain"]:
                errs.append(f"game_data.scatter_table.terrain: no column for terrain {t!r}")
        dirs = gd["scatter_directions"]
        if sorted(dirs) != sorted(["N", "NE", "SE", "S", "SW", "NW"]):
            errs.append("game_data.scatter_directions: six directions N NE SE S SW NW, one per die roll")
        lim = gd["limited"]
        if lim.get("columns") != sc.crt.columns:
            errs.append("game_data.limited.columns: must match crt.columns (1:3 ... 7:1)")
        for d in range(1, sc.die + 1):
            row = lim["rows"].get(str(d))
            if row is None or len(row) != len(sc.crt.columns) or any(r not in RESULTS for r in row):
                errs.append(f"game_data.limited.rows[{d}]: needs {len(sc.crt.columns)} results of {sorted(RESULTS)}")
        if sc.crt.columns != ["1:3", "1:2", "1:1"] + [f"{n}:1" for n in range(2, 8)]:
            errs.append("crt.columns: must be 1:3, 1:2, 1:1, 2:1 ... 7:1 (9.4)")
        air = gd["air"]
        if len(air) != 7 or len({a["id"] for a in air}) != 7:
            errs.append("game_data.air: seven air units with distinct ids (11.0)")
        kinds = {"airborne": 0, "mountain": 0}
        ncw = 0
        for u in sc.units:
            if u.side not in (GERMAN, CW):
                errs.append(f"units[{u.id}]: side must be german or commonwealth")
            if u.side == GERMAN:
                if u.type not in kinds:
                    errs.append(f"units[{u.id}]: German units are airborne or mountain")
                else:
                    kinds[u.type] += 1
            else:
                ncw += 1
        if kinds["airborne"] != 13:
            errs.append(f"units: {kinds['airborne']} airborne units, 5.0 gives 13")
        if kinds["mountain"] != 12:
            errs.append(f"units: {kinds['mountain']} mountain units, 6.0 gives 12")
        if ncw != 43:
            errs.append(f"units: {ncw} Commonwealth units, 1.2 gives 43")
        setup = gd.get("default_setup", {})
        count: dict[str, int] = {}
        for uid, h in setup.items():
            if uid not in sc.unit_defs or sc.unit_defs[uid].side != CW:
                errs.append(f"game_data.default_setup.{uid}: not a Commonwealth unit")
            elif not self.land(sc, h):
                errs.append(f"game_data.default_setup.{uid}: {h} is not a land hex of a map")
            count[h] = count.get(h, 0) + 1
            if count[h] > self.stack_limit(sc):
                errs.append(f"game_data.default_setup: more than {self.stack_limit(sc)} units in {h}")
        for m, hs in gd.get("default_drops", {}).items():
            if m == "default_plan":
                _, err = self._parse_plan(sc, hs) if isinstance(hs, str) else ({}, "write the plan as text")
                if err:
                    errs.append(f"game_data.default_drops.default_plan: {err}")
                continue
            if m not in maps or isinstance(hs, str):
                errs.append(f"game_data.default_drops.{m}: a list of hexes for one of the maps {', '.join(maps)}")
                continue
            for h in hs:
                if self.map_of(sc, h) != m or not self.land(sc, h):
                    errs.append(f"game_data.default_drops.{m}: {h} is not a land hex of that map")
        for hs in sc.map.hexsides:
            if hs.feature not in ("road", gd.get("sea_hexside", "sea")):
                errs.append(f"map.hexsides: feature {hs.feature!r} is not one the Crete rules know")
        return errs
