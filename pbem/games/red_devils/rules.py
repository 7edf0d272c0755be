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
from pbem.core.ruleset import Ctx, Ruleset
from pbem.core.scenario import Scenario
from pbem.core.state import UnitState
from pbem.games.red_devils import airborne, events as E, reducer, terms, terrain, words
from pbem.games.red_devils.airborne import POLISH_SECRET
from pbem.games.red_devils.lint import lint as lint_scenario
from pbem.games.red_devils.steps import FORMS, INTERRUPTS, STEPS
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
    steps = STEPS                 # the turn (3.0): the kernel's handle, awaiting and defaults read them
    interrupts = INTERRUPTS       # the answers the game waits for (5.0, 7.6-7.8, 8.5, 9.0, 9.7, 11.0)
    forms = FORMS                 # the order forms: HELP and the set-up choices (core/forms.py)
    sequence_rule = "3.0"          # the sequence of play: whose phase it is
    any_time = {"doctrine": lambda ctx, order: doctrine_order(ctx, order.args)}   # 5.0: at any time

    def step_name(self, st: RedDevilsState, sc: Scenario) -> str:
        name = sc.sequence[st.phase].name
        return name if name in ("setup", "movement") else "combat"   # disruption removal: played by itself

    # --- the game's start, the reducer, the data --------------------------------------

    def new_state(self, sc: Scenario, game_id: str) -> RedDevilsState:
        st = RedDevilsState(game_id=game_id, scenario_id=sc.id, game=sc.game)
        for u in sc.units:
            st.units[u.id] = UnitState(id=u.id, side=u.side, hex=u.hex, strength=u.strength, ma=u.ma)
        st.score = {"british": 0}      # 12.1: British victory points, kept current as they arise
        return st

    # Ruleset.reduce_before and .reduce (st, ev, sc): the reducer's own, one call less an event
    reduce_before = staticmethod(reducer.reduce_before)
    reduce = staticmethod(reducer.reduce)

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
