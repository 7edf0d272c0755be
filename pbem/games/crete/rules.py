"""Paratroop: Crete (paratroop.txt, the Crete part and its charts).

Rule numbers are those of the Crete rules.  The shape of one game:

* set-up (1.0): the German player seals a drop plan (``secret drop-plan
  west=N centre=N east=N``), then the Commonwealth player places its 43 units
  (``place UNIT HEX``);
* ten Game-Turns of five phases (3.0): German air landing (``drop``, ``land``,
  and on turn 1 first ``unveil drop-plan``), movement, combat; Commonwealth
  movement, combat;
* victory by points (12.0).

This module is the Ruleset: the hooks, the phases and which order goes where.
The rules themselves are in the package's other modules:

    state.py     CreteState (Crete.state_type): the core state and Crete's own part
    board.py     the three maps on one grid, land and sea, stacking, zones of control
    reducer.py   Crete's part of applying each event (after the core reducer)
    airborne.py  the drop plan (1.0), airdrops and scatter (5.0), air landing (6.0)
    movement.py  set-up (1.2), movement (4.0), transit tracks (7.0)
    odds.py      strengths and the All Out / Limited tables (9.0)
    combat.py    the attack and its chain of rolls (8.0-10.7)
    standing.py  standing answers to a Ca (10.5)
    answers.py   the players' answers to the decisions of a fight (10.3-10.7)
    terms.py     victory (12.0)
    words.py     report wording;  lint.py  scenario checks
"""
from __future__ import annotations

from pbem.core import orders as O
from pbem.core.orders import OrderError
from pbem.core.ruleset import Ctx, Ruleset
from pbem.core.scenario import Scenario
from pbem.core.state import UnitState
from pbem.games.crete import events as E
from pbem.games.crete import reducer, words
from pbem.games.crete.airborne import check_plan, plan_name
from pbem.games.crete.board import gd
from pbem.games.crete.lint import scenario_errors
from pbem.games.crete.movement import owing_tracks
from pbem.games.crete.odds import RESULTS
from pbem.games.crete.schema import CreteData, CreteVictory
from pbem.games.crete.steps import FORMS, INTERRUPTS, STEPS, doctrine_order
from pbem.games.crete.state import CW, GERMAN, CreteState
from pbem.games.crete.terms import game_end
from pbem.games.crete.terms import places_held

class Crete(Ruleset):
    # set-up (1.2), airdrop (5.0), air landing (6.0), counterattack (10.5), losses (10.3), standing answers (10.5)
    verbs = frozenset({"place", "drop", "land", "counterattack", "lose", "doctrine"})
    scenario_schema = (CreteVictory, CreteData)          # [victory], [game_data] (pbem scenario lint)
    defaults_help = (                       # mailed to the players: what a missed deadline does
        "Deadline defaults. Drop plan: the scenario's default plan; set-up: the scenario's "
        "default deployment; Game-Turn 1 air landing: unveil the plan and drop it on the "
        "scenario's default targets; later air landings, movement and combat: nothing more "
        "(units in a track come out at their first entry hex, 7.1); Ca: retreat (first unit, "
        "first safe hex), or the first counterattack when no retreat exists; retreat: the "
        "first safe hex; Ee: the first loss set listed; advance: none.")
    game = "crete"
    ruleset_version = "2"
    result_codes = RESULTS
    state_type = CreteState
    steps = STEPS                 # the turn (3.0, crete/steps.py): the kernel's handle, awaiting, defaults
    interrupts = INTERRUPTS       # a fight's decisions (10.3-10.7)
    forms = FORMS                 # the order forms: HELP and the set-up choices (core/forms.py)
    sequence_rule = "3.0"          # the sequence of play: whose phase it is
    any_time = {"doctrine": doctrine_order}   # a standing answer (10.5): any time, by either side
    first_turn = 0                 # 1.x: the set-up steps come before turn 1

    # --- setting up ------------------------------------------------------------

    def new_state(self, sc: Scenario, game_id: str) -> CreteState:
        st = CreteState(game_id=game_id, scenario_id=sc.id, game=sc.game)
        for u in sc.units:
            # 1.2: the Commonwealth places every unit at the start; Germans arrive by air (5.0, 6.0).
            st.units[u.id] = UnitState(id=u.id, side=u.side, hex=None, strength=u.strength, ma=u.ma)
        st.score = {GERMAN: 0, CW: 0}
        return st

    # --- reducer ------------------------------------------------------------------

    reduce = staticmethod(reducer.reduce)      # Ruleset.reduce(st, ev, sc), one call less an event

    # --- sealed secrets: the drop plan (1.0) ----------------------------------------

    def check_sealed(self, ctx: Ctx, order: O.Secret | O.Unveil) -> None:
        check_plan(ctx, order)

    def known(self, k: CreteState, st: CreteState, sc: Scenario, viewer: str) -> None:
        """A check's view (core/known.py): whether a still sealed plan is valid is the German's to know."""
        if viewer != GERMAN and not k.crete.plan_open:
            k.crete.plan_error = ""

    # ends of phases (3.0) --------------------------------------------------------------------------

    def _end(self, ctx: Ctx, phase: str) -> None:
        st, sc = ctx.state, ctx.sc
        cd = st.crete
        if phase == "drop-plan":
            name = plan_name(sc)
            if f"{GERMAN}:{name}" not in st.secrets or not cd.plan_sealed:
                raise OrderError(f"seal the drop plan first: secret {name} "
                                 + " ".join(f"{m}=N" for m in gd(sc).get("maps", {})), "1.0")
            if cd.plan_error:
                raise OrderError(f"the sealed drop plan is not valid: {cd.plan_error}; unveil {name} and seal a "
                                 "valid one", "1.0")
        elif phase == "set-up":
            left = sorted(u.id for u in st.units.values() if u.side == CW and u.hex is None)
            if left:
                raise OrderError(f"every Commonwealth unit must be placed; still to place: {', '.join(left)}", "1.2")
        elif phase == "air-landing" and st.turn == 1:
            if not cd.plan_open:
                raise OrderError(f"unveil {plan_name(sc)} and make its drops first", "1.0")
            short = [f"{m}: {cd.t1.get(m, 0)} of {n}" for m, n in cd.plan.items() if cd.t1.get(m, 0) != n]
            if short:
                raise OrderError(f"the drops do not yet match the drop plan ({'; '.join(short)})", "1.0, 1.1")
        elif phase == "movement":
            owing = owing_tracks(st)
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
                game_end(ctx)      # 12.0: the game ends at the conclusion of Game-Turn 10
                return
            nxt, turn = first, turn + 1
        if nxt == first and turn == 0:
            turn = 1
        p = sc.sequence[nxt]
        ctx.emit(E.PhaseStarted(turn=turn, phase=nxt, side=p.side, name=p.name))

    # --- report wording and scenario checks --------------------------------------------------------

    def describe_event(self, ev: E.Event, sc: Scenario, origin: str | None = None) -> str | None:
        return words.describe(ev, sc, origin)

    def lint(self, sc: Scenario) -> list[str]:
        return scenario_errors(sc)

    def map_marks(self, state, sc: Scenario, viewer: str) -> dict:
        """12.2: the airfields and Suda score for the side holding them at the end (``side``: the
        side whose units alone stand there now); the score: 12.1 points so far.  No drop-zone
        areas: the drop plan is a count per map, sealed until turn 1 (1.0), and any hex but a
        Commonwealth-held or all-sea one may be a target (5.1)."""
        v, g = sc.victory, gd(sc)
        held = {p.hex: p.side for p in places_held(state, sc)}
        objs = [{"hex": h, "vp": int(v.get("airfield_points", 5)), "label": "airfield (12.2)", "side": held.get(h, "")}
                for h in g.get("airfields", [])]
        if g.get("suda"):
            objs.append({"hex": g["suda"], "vp": int(v.get("suda_points", 10)), "label": "Suda (12.2)",
                         "side": held.get(g["suda"], "")})
        score = ", ".join(f"{sc.side_name(s)} {state.score.get(s, 0)} VP" for s in (GERMAN, CW))
        if state.result is None:
            score += " (12.1; the places count at the end, 12.2)"
        return {"objectives": objs, "score": score}
