"""Paratroop: Red Devils (paratroop.txt, "Red Devils"): Arnhem, September 1944.

Rule numbers are the cases of the Red Devils rules.  This module is the
game's Ruleset: its hooks, the orders of each phase (3.0) and what the game
waits for.  The rules themselves, by concern:

    state.py        RedDevilsState: the game's own typed state (doctrines, the paused
                    move, the air landing, the bridge, exits)
    reducer.py      what each event does to it, after the core reducer
    terrain.py      scenario data, terrain and movement costs (4.2, 4.9), the Neder Rijn, ZOC (4.4)
    movement.py     move and mode orders (4.0-4.8, 10.1-10.3)
    opportunity.py  doctrine and opportunity fire (5.0-5.4), the move carried out hex by hex
    combat.py       attacks, column shifts, retreat or disrupt, advance (6.0-7.8, 8.2)
    airborne.py     drop zones and air landings (1.2, 9.0-9.9), the Polish drop zones (9.7)
    answers.py      answers to what the game waits for (5.0, 7.6-7.8, 8.5, 11.0)
    terms.py        the sequence (3.0), command points (8.5), the bridge (11.0), victory (12.0)
    words.py        report wording;  lint.py  scenario checks

Movement points are kept exactly with fractions.Fraction (4.2 roads, pbem.mechanics.pathcost).
"""
from __future__ import annotations

from pbem.core import orders as O
from pbem.core.orders import OrderError
from pbem.core.ruleset import Ctx, Ruleset, core_help
from pbem.core.scenario import Scenario
from pbem.core.state import UnitState
from pbem.games.red_devils import airborne, events as E, reducer, terms, terrain, words
from pbem.games.red_devils.airborne import POLISH_SECRET
from pbem.games.red_devils.answers import answer
from pbem.games.red_devils.combat import attack
from pbem.games.red_devils.lint import lint as lint_scenario
from pbem.games.red_devils.movement import mode_order, move_order
from pbem.games.red_devils.opportunity import doctrine_order
from pbem.games.red_devils.schema import GameTable, RedDevilsData
from pbem.games.red_devils.state import RedDevilsState
from pbem.games.red_devils.terrain import gd

GAME = "red-devils"
RESULTS = frozenset({"Ae", "Ad", "-", "Dd", "De", "De*"})


class RedDevils(Ruleset):
    verbs = frozenset({"place", "land", "doctrine", "fire", "pass", "disrupt", "demolish", "spare", "recover", "mode"})   # opportunity fire (5.0), Dd/Ad (7.6), the bridge (11.0), recovery (8.5), motorized mode (4.8)
    scenario_schema = (GameTable, RedDevilsData)          # [victory], [game_data] (pbem scenario lint)
    defaults_help = (                       # mailed to the players: what a missed deadline does
        "Deadline defaults (never a die roll): movement/combat 'end'; opportunity fire "
        "'pass'; bridge 'spare'; Dd 'disrupt' (else the first safe path); Ad 'disrupt'; no "
        "advance; recovery of the first units by id; landing on the first valid hex by "
        "number (the Poles around the first zone with room for all; a unit with no legal hex "
        "left is lost, 9.8); the Polish zones are unveiled; at set-up the first printed drop zones and, "
        "if no Polish zones were sealed, the two lowest-numbered hexes that qualify.")
    game = GAME
    ruleset_version = "1"
    result_codes = RESULTS
    state_type = RedDevilsState

    # --- the game's start, the reducer, the data --------------------------------------

    def new_state(self, sc: Scenario, game_id: str) -> RedDevilsState:
        st = RedDevilsState(game_id=game_id, scenario_id=sc.id, game=sc.game)
        for u in sc.units:
            st.units[u.id] = UnitState(id=u.id, side=u.side, hex=u.hex, strength=u.strength, ma=u.ma)
        st.score = {"british": 0}      # 12.1: British victory points, kept current as they arise
        return st

    def reduce_before(self, st: RedDevilsState, ev: E.Event, sc: Scenario) -> None:
        reducer.reduce_before(st, ev, sc)

    def reduce(self, st: RedDevilsState, ev: E.Event, sc: Scenario) -> None:
        reducer.reduce(st, ev, sc, self.game)

    def lint(self, sc: Scenario) -> list[str]:
        return lint_scenario(sc)

    def map_marks(self, state, sc: Scenario, viewer: str) -> dict:
        """12.1-12.3 victory hexes (the specially marked ones count two); 10.1-10.3 German entry hexes."""
        data = gd(sc)
        special = set(data.get("vp_special", []))
        objs = [{"hex": h, "vp": 2 if h in special else 1, "label": "victory hex (12.1)"}
                for h in sorted(set(data.get("vp_hexes", [])) | special)]
        areas = [{"label": f"German entry {k} (10.1)", "hexes": list(v), "side": "german"}
                 for k, v in sorted((data.get("entry_hexes") or {}).items())]
        areas += self._drop_areas(state, sc)
        win = min(v for v, level in terms.LEVELS if level.startswith("British"))
        score = (f"{sc.side_name('british')} {state.score.get('british', 0)} VP "
                 f"({win} or more at the end: a {sc.side_name('british')} victory, 12.6)")
        return {"objectives": objs, "areas": areas, "score": score}

    @staticmethod
    def _drop_areas(state: RedDevilsState, sc: Scenario) -> list[dict]:
        """1.2, 9.0-9.2: while the British set up, the printed drop zones of the turn-1 units (both
        of a unit printed with two until one is chosen); during an air landing, the zones of the
        units still to land, each with its free landing hexes.  The Polish zones appear only
        once unveiled (9.7): before that the state does not hold them."""
        if state.result is not None or not 0 <= state.phase < len(sc.sequence):
            return []
        zones: dict[str, str] = {}
        if sc.sequence[state.phase].name == "setup":
            for d in sc.units:
                if d.side == "british" and d.entry_turn == 1:
                    dzs = [state.dz[d.id]] if d.id in state.dz else terrain.info(sc, d.id).get("drop_zones", [])
                    zones.update({z: "1.2, 9.0" for z in dzs})
        elif state.landing is not None:
            for uid in state.landing.units:
                if uid not in state.landing.placed and not state.units[uid].eliminated:
                    zones.update({z: "9.0" for z in airborne.zones_for(state, sc, uid)})
        return [{"label": f"{sc.side_name('british')} drop zone {z} ({rule})",
                 "hexes": airborne.landing_hexes(sc, z, state), "side": "british"}
                for z, rule in sorted(zones.items())]

    def describe_event(self, ev: E.Event, sc: Scenario, origin: str | None = None) -> str | None:
        return words.describe(ev, sc, origin)

    # what tests and tools ask of the rules
    unbridged_rijn = staticmethod(terrain.unbridged_rijn)      # 4.6, 11.0
    landing_hexes = staticmethod(airborne.landing_hexes)       # 9.1, 9.2
    count_victory = staticmethod(terms.count_victory)          # 12.0

    # --- orders (3.0: each phase's own) ---------------------------------------------------

    def check_sealed(self, ctx: Ctx, order: O.Secret | O.Unveil) -> None:
        airborne.check_sealed(ctx, order)                      # 9.7

    def handle(self, ctx: Ctx, order: O.Order) -> None:
        st: RedDevilsState = ctx.state
        sc = ctx.sc
        if st.result is not None:
            raise OrderError(f"the game is over: {st.result.reason}")
        if isinstance(order, O.GameVerb) and order.word == "doctrine":
            return doctrine_order(ctx, order.args)             # 5.0, at any time
        if st.decision is not None:
            return answer(ctx, order)
        ph = sc.sequence[st.phase]
        if ctx.side != ph.side:
            raise OrderError(f"it is the {sc.side_name(ph.side)} {ph.name} phase of turn {st.turn}; "
                             f"the game waits for {sc.side_name(ph.side)}", "3.0")
        word = order.word if isinstance(order, O.GameVerb) else order.__struct_config__.tag
        if ph.name == "setup":
            if word == "place":
                return airborne.place(ctx, order.args)         # 1.2
            if word == "end":
                if terrain.gd(sc).get("polish_units") and f"british:{POLISH_SECRET}" not in st.secrets:
                    raise OrderError(f"record the Polish drop zones first: secret {POLISH_SECRET} HEX HEX", "9.7")
                return terms.next_phase(ctx)
            raise OrderError("at set-up: place UNIT HEX, secret polish-dz HEX HEX, end", "1.2")
        if ph.name == "movement":
            if st.landing is not None:
                if word != "land":
                    left = [u for u in st.landing.units if u not in st.landing.placed]
                    what = f"unveil {POLISH_SECRET}" if st.landing.polish and not st.polish_dz else \
                        f"land UNIT HEX for {', '.join(left)}"
                    raise OrderError(f"the air landing comes first, before any unit moves: {what}", "9.0, 9.8")
                return airborne.land(ctx, order.args)
            if word == "move":
                return move_order(ctx, order)
            if word == "mode":
                return mode_order(ctx, order.args)             # 4.8
            if word == "end":
                return terms.next_phase(ctx)
            raise OrderError("in a movement phase: move, mode, doctrine, end", "4.0")
        if ph.name == "combat":
            if word == "attack":
                return attack(ctx, order)
            if word == "end":
                return terms.next_phase(ctx)
            raise OrderError("in a combat phase: attack HEX with UNIT ..., end", "7.0")
        raise OrderError(f"nothing to do in the {ph.name} phase")

    # --- what the game waits for ------------------------------------------------------------

    def awaiting(self, st: RedDevilsState, sc: Scenario) -> list[dict]:
        if st.result is not None or st.phase < 0:
            return []
        d = st.decision
        if d is not None:
            if d.kind == "opportunity-fire":
                p = st.pending
                return [{"side": d.side, "kind": "opportunity-fire", "units": d.units, "rule": "5.0",
                         "options": [f"{o[0]} (range {terrain.rng(sc, o[0])})" for o in d.options],
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
        if ph.name == "movement" and ph.side == "british" and st.landing is not None:
            if st.landing.polish and not st.polish_dz:
                return [{"side": "british", "kind": "reveal Polish drop zones", "rule": "9.7",
                         "order": f"unveil {POLISH_SECRET}"}]
            left = [u for u in st.landing.units if u not in st.landing.placed]
            item = {"side": "british", "kind": "air landing", "units": left, "rule": "9.0",
                    "order": "land UNIT HEX (each unit, within three hexes of its drop zone)"}
            stuck = [u for u in left if not airborne.legal_hexes(st, sc, u)]
            if stuck:      # our ruling: lost in the drop, it may neither wait (9.8) nor share a hex (9.2)
                item["rule"] = "9.0, 9.2, 9.8"
                item["order"] += (f"; no legal hex is left for {', '.join(stuck)}: land UNIT {airborne.LOST} "
                                  "- the unit is eliminated, lost in the drop (it may not be delayed, 9.8, "
                                  "nor share a hex, 9.2)")
            return [item]
        if ph.name == "movement":
            return [{"side": ph.side, "kind": "movement", "rule": "4.0",
                     "order": "move UNIT HEX ... [off] (any number), mode UNIT mech|foot, doctrine ..., then end"}]
        return [{"side": ph.side, "kind": "combat", "rule": "6.0, 7.0",
                 "order": "attack HEX with UNIT ... [advance UNIT [HEX ...] | no-advance] (resolved at once), then end"}]

    # --- what players are told (HELP, the welcome) -------------------------------------

    def order_help(self, st: RedDevilsState, sc: Scenario, side: str) -> list[str]:
        own = [
            "move UNIT HEX ... [off]    move hex by hex; the enemy may fire as you go (4.0, 5.0)",
            "mode UNIT mech|foot    a motorized unit's mode (4.8)",
            "doctrine ...    standing orders for opportunity fire (5.0)",
            "fire UNIT ... | pass    answer an opportunity to fire (5.0)",
            "attack HEX with UNIT ... [advance UNIT [HEX ...] | no-advance]    resolved at once (6.0, 7.0)",
            "retreat UNIT HEX HEX | disrupt [UNIT]    answer a Dd or Ad result (7.6)",
            "recover UNIT ...    units to recover with command points (8.5)",
        ]
        if side == "british":
            own += ["place UNIT HEX    set-up: the drop zone of a unit printed with two (1.2)",
                    f"secret {POLISH_SECRET} HEX HEX    set-up: seal the two Polish drop zones (9.7)",
                    "land UNIT HEX    air landing: within three hexes of its drop zone (9.0)"]
        else:
            own += ["demolish | spare    the bridge, when the game asks (11.0)"]
        keep = [x for x in core_help(st, sc, side) if x.split()[0] in ("advance", "end", "secret", "unveil", "press")]
        return own + keep

    def setup_choices(self, st: RedDevilsState, sc: Scenario, side: str) -> list[str]:
        """At set-up: each unit's two printed drop zones (1.2); in an air landing: each unit's legal hexes (9.0)."""
        if st.result is not None or st.decision is not None or not 0 <= st.phase < len(sc.sequence) \
                or side != "british":
            return []
        ph = sc.sequence[st.phase]
        if ph.name == "setup":
            out = []
            for d in sc.units:
                dzs = terrain.info(sc, d.id).get("drop_zones", [])
                if d.side == "british" and d.entry_turn == 1 and len(dzs) >= 2 and d.id not in st.dz:
                    out.append(f"place {d.id} HEX: {' or '.join(dzs)}")
            out.append(f"secret {POLISH_SECRET} HEX HEX: two hexes, each with room around it for the four Polish "
                       "units (9.7)")
            return out
        if ph.name == "movement" and st.landing is not None:
            left = [u for u in st.landing.units if u not in st.landing.placed]
            return [f"land {u}: {' '.join(airborne.legal_hexes(st, sc, u)) or airborne.LOST}" for u in left]
        return []

    def default_orders(self, st: RedDevilsState, sc: Scenario, side: str) -> list[str]:
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
                return airborne.default_landings(st, sc, item["units"])
            if k == "set-up":
                out = []
                if f"british:{POLISH_SECRET}" not in st.secrets:
                    good = [h for h in sc.board.grid.all_hexes()
                            if len(airborne.landing_hexes(sc, h, ignore_units=True)) >= 4][:2]
                    out.append(f"secret {POLISH_SECRET} {' '.join(good)}")
                return out + ["end"]
            return ["end"]
        return []
