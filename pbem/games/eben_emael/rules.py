"""Paratroop: Eben Emael (paratroop.txt, "Eben Emael" and its charts; the addenda).

A tactical game: single squads fire at range with line of sight (5.0, 6.0),
close-assault adjacent enemies (7.0), and the German sappers demolish the
Belgian fortifications (8.0) that are printed on the map (9.0).  Rule
numbers in this package are those of the Eben Emael section.

This module is the game's Ruleset: the contract's hooks, the order words of
each phase and what the game waits for.  The rules themselves:

    board.py      the scenario's data, fortifications, hexsides, stacking
    state.py      EbenEmaelState (the game's typed state) and its announced attacks
    reducer.py    the game's part of applying each event, one function per event type
    secrets.py    dummy cupolas (9.5) and minefields (11.0) sealed per hex, and their reveals
    fire.py       fire combat (5.0), sighting (6.0), fields of fire (9.3), minefield attacks
    movement.py   movement and bold movement (4.0), minefields on the way (11.0),
                  reinforcements (10.0), the German set-up (12.2)
    assault.py    close assault (7.0) and demolition (8.0)
    phases.py     the sequence of play (3.0), activation (9.4), resolving in order
    terms.py      victory (12.1, 12.2)
    words.py      the reports' sentences
    lint.py       pbem scenario lint
"""
from __future__ import annotations

from collections.abc import Callable

from pbem.core import orders as O
from pbem.core.forms import Form, core
from pbem.core.ruleset import Ctx, Ruleset
from pbem.core.scenario import Scenario
from pbem.core.state import GameState
from pbem.core.turn import Step, phase_steps
from pbem.games.eben_emael import assault, board, fire, lint, movement, phases, reducer, secrets, words
from pbem.games.eben_emael import events as E
from pbem.games.eben_emael.board import BELGIAN, FIRE_RESULTS, GERMAN, gd
from pbem.games.eben_emael.schema import EbenData, EbenVictory
from pbem.games.eben_emael.state import EbenEmaelState, initial_state
from pbem.games.eben_emael.terms import victory_rule

def _args(run: Callable[[Ctx, list[str]], None]) -> Callable[[Ctx, O.Order], None]:
    """A handler that reads the words of a game verb (``place UNIT HEX`` -> ["UNIT", "HEX"])."""
    return lambda ctx, order: run(ctx, order.args)


def _end(kind: str) -> Callable[[Ctx, O.Order], None]:
    return lambda ctx, order: phases.end(ctx, kind)


def _answer(ctx: Ctx, order: O.Order) -> None:
    assault.answer(ctx, order)           # 7.5, 7.6
    phases.resolve(ctx)


def _decision_rows(st: GameState, sc: Scenario) -> list[dict]:
    d = st.decision
    a = st.actions[d.combat]
    return [{"side": d.side, "kind": d.kind, "combat": a.target, "units": d.units, "rule": d.rule,
             "options": [" ".join(o) for o in d.options],
             "order": "lose UNIT" if d.kind == "lose" else "advance UNIT | no-advance"}]


def _belgian_setup_order(st: GameState, sc: Scenario) -> list[dict]:
    text = ("secret dummy-1 HEX, secret dummy-2 HEX"
            + (", secret mine-01 HEX .. mine-15 HEX" if gd(sc).get("minefields") else "") + ", then end")
    return [{"side": sc.sequence[st.phase].side, "kind": "set-up", "rule": "9.5, 11.0", "order": text}]


def _fire_waits(st: GameState, sc: Scenario) -> list[dict]:
    if st.declarations_closed:
        return []
    return [{"side": sc.sequence[st.phase].side, "kind": "fire", "rule": "5.2",
             "order": "fire UNIT TARGET (all fire attacks), then end"}]


def _clear_free(st: GameState, sc: Scenario) -> list[str]:
    """12.2: the clear hexes without a fortification or a unit."""
    used = {u.hex for u in st.units.values() if u.hex}
    return [h for h in sc.board.grid.all_hexes() if board.terrain(sc, h) == "clear"
            and h not in board.forts(sc) and h not in used]


def _belgian_default(st: GameState, sc: Scenario, side: str, notes: dict[str, str] | None) -> list[O.Order]:
    """9.5: the two lowest-numbered cupolas that may be dummies, no minefields.  A dummy the
    Belgian already sealed keeps its cupola: the host gives the Belgian's own notes (``notes``),
    so the other dummy goes on another cupola (without them, only the names sealed are known)."""
    chosen = {k.split(":", 1)[1] for k in st.secrets if k.startswith("belgian:dummy-")}
    taken = {notes[n].strip() for n in secrets.DUMMIES if n in (notes or {})}
    cands = [h for h, fid in sorted(board.forts(sc).items())
             if sc.unit_defs[fid].type == "cupola" and h not in gd(sc).get("never_dummy", []) and h not in taken]
    out: list[O.Order] = [O.Secret(name=name, payload=h)
                          for name, h in zip([n for n in secrets.DUMMIES if n not in chosen], cands)]
    return out + [O.End()]


def _german_default(st: GameState, sc: Scenario, side: str) -> list[O.Order]:
    """12.2: each unplaced unit in the lowest-numbered free clear hex."""
    free = _clear_free(st, sc)
    out: list[O.Order] = []
    for u in sorted(st.units.values(), key=lambda u: u.id):
        if u.side == GERMAN and u.hex is None and not u.eliminated:
            out.append(O.GameVerb(word="place", args=[u.id, free.pop(0)]))
    return out + [O.End()]


def _pending(kind: str):
    return lambda st, sc: st.decision is not None and st.decision.kind == kind


def _dummy_choices(st: GameState, sc: Scenario, side: str) -> list[str]:
    """9.5: the cupolas that may be dummies; 11.0: the minefields, if the scenario has them."""
    cups = [h for h, fid in sorted(board.forts(sc).items())
            if sc.unit_defs[fid].type == "cupola" and h not in gd(sc).get("never_dummy", [])]
    out = [f"dummy cupolas (dummy-1, dummy-2) on one of these cupolas: {' '.join(cups)} (9.5)"]
    n = int(gd(sc).get("minefields", 0))
    if n:
        out.append(f"minefields mine-01 .. mine-{n:02d}: any hex without a fortification (11.0, 11.6)")
    return out


def _squad_choices(st: GameState, sc: Scenario, side: str) -> list[str]:
    """12.2: the German squads still to place and the clear hexes open to them."""
    free = _clear_free(st, sc)
    left = sorted(u.id for u in st.units.values() if u.side == GERMAN and u.hex is None and not u.eliminated)
    return [f"squads to place: {' '.join(left) or 'none'}",
            f"clear hexes open to them ({len(free)}): {' '.join(free)}"]


# The order forms (HELP lists them in this order, core/forms.py); the set-up steps list the choices
# of "place" (German) and of the sealed dummies and minefields (Belgian).
FORMS = (
    Form("place", "place UNIT HEX", "set-up: a squad on a clear hex, no fortification, no stacking", rule="12.2",
         sides=(GERMAN,), choices=_squad_choices),
    Form("demolish", "demolish FORT with UNIT [charge]", "sappers demolish a fortification", rule="8.2",
         sides=(GERMAN,)),
    Form("secret", "secret dummy-N HEX", "set-up: a dummy cupola", rule="9.5", sides=(BELGIAN,),
         choices=_dummy_choices),
    Form("secret", "secret mine-NN HEX", "set-up: a minefield", rule="11.0", sides=(BELGIAN,)),
    Form("enter", "enter UNIT HEX ...", "a reinforcement enters at a map edge", rule="10.2", sides=(BELGIAN,)),
    Form("place", "place UNIT HEX", "a garrison squad appears", rule="10.3", sides=(BELGIAN,)),
    Form("move", "move UNIT HEX ...", "movement", rule="4.0"),
    Form("fire", "fire UNIT TARGET", "a fire attack at range, with line of sight", rule="5.2, 6.0"),
    Form("assault", "assault HEX with UNIT ...", "a close assault on an adjacent hex", rule="7.1"),
    Form("lose", "lose UNIT", "answer a loss the game asks for", rule="4.4, 7.5"),
    *core("advance", "end", "unveil", "press"),
)


# The steps of the turn (3.0); the phase steps by what the phase is for (phases.kind: both fire
# phases are fire phases).  "end" closes a set-up, a movement, or the announcements of a fire or an
# assault phase (which then resolves them in order, 5.2, 7.1, 8.2).
STEPS = phase_steps(
    Step("setup-belgian", kind="set-up", rule="9.5, 11.0", waits=_belgian_setup_order,
         verbs={"end": _end("setup-belgian")}, default=_belgian_default, notes=True,   # the sealing: secret (core)
         choices=("secret",)),
    Step("setup-german", kind="set-up", rule="12.2", order="place UNIT HEX for every German unit, then end",
         verbs={"place": _args(movement.setup_place), "end": _end("setup-german")}, default=_german_default,
         choices=("place",)),
    Step("movement", rule="4.0", order="move UNIT HEX ...; enter UNIT HEX ...; place UNIT HEX; then end",
         verbs={"move": movement.move,                                        # 4.0
                "enter": _args(movement.enter),                               # 10.2
                "place": _args(movement.place_garrison),                      # 10.3
                "lose": _args(movement.lose_excess),                          # 4.4
                "end": _end("movement")},
         offered=lambda st, sc, side: ("move", "enter", "place", "lose", "end") if side == BELGIAN
         else ("move", "lose", "end")),              # 10.2, 10.3: the reinforcements are all Belgian
    Step("fire", rule="5.2", waits=_fire_waits,
         verbs={"fire": _args(fire.declare_fire), "end": _end("fire")}),     # 5.2
    Step("assault", rule="7.1, 8.2",
         order="assault HEX with UNIT ... / demolish FORT with UNIT [charge] (all of them), then end",
         verbs={"assault": _args(assault.declare_assault),                    # 7.1
                "demolish": _args(assault.declare_demolition),                # 8.2
                "end": _end("assault")},
         offered=lambda st, sc, side: ("assault", "demolish", "end") if side == GERMAN
         else ("assault", "end")),                   # 8.0: the fortifications are the German sappers' to demolish
    # played by the game itself (9.4, 3.0 step 6): a state never rests in them, "end" goes on
    Step("activation", rule="3.0", order="end", verbs={"end": _end("activation")}),
    Step("reorganization", rule="3.0", order="end", verbs={"end": _end("reorganization")}),
)
# The attacker's choices in a close assault's resolution (7.5, 7.6), read from the core decision.
INTERRUPTS = (
    Step("lose", rule="7.5", waits=_decision_rows, pending=_pending("lose"), verbs={"lose": _answer},
         side=lambda st, sc: st.decision.side,
         default=lambda st, sc, side: [O.GameVerb(word="lose", args=[st.decision.units[0]])]),
    Step("advance", rule="7.6", waits=_decision_rows, pending=_pending("advance"),
         verbs={"advance": _answer, "no-advance": _answer}, side=lambda st, sc: st.decision.side,
         default=lambda st, sc, side: [O.Advance(unit="-")]),
)


class EbenEmael(Ruleset):
    # set-up (12.2), fire (5.0), close assault (7.0), demolition (8.0), entry (10.2, 10.3), losses (4.4, 7.5)
    verbs = frozenset({"place", "fire", "assault", "demolish", "enter", "lose"})
    scenario_schema = (EbenVictory, EbenData)          # [victory], [game_data] (pbem scenario lint)
    state_type = EbenEmaelState
    defaults_help = (                       # mailed to the players: what a missed deadline does
        "Belgian set-up -- the two lowest-numbered cupolas that may be dummies, no "
        "minefields; German set-up (12.2) -- each unplaced unit in the lowest-numbered free "
        "clear hex; any other phase -- no further action (\"end\"); a loss after Ae -- the "
        "first attacker listed; an advance -- none.")
    game = "eben-emael"
    ruleset_version = "1"
    result_codes = FIRE_RESULTS
    needs_secrets = True          # the engine hands the host's sealed payloads to every order
    steps = STEPS                 # the turn (3.0): the kernel's handle, awaiting and defaults read them
    interrupts = INTERRUPTS
    forms = FORMS                 # the order forms: HELP and the set-up choices (core/forms.py)
    sequence_rule = "3.0"          # the sequence of play: whose phase it is

    # ---- the game's start, the reducer, data ------------------------------------------

    def new_state(self, sc: Scenario, game_id: str) -> GameState:
        return initial_state(sc, game_id)

    reduce = staticmethod(reducer.reduce)          # after the core reducer (Ruleset.apply)

    def lint(self, sc: Scenario) -> list[str]:
        return lint.lint(sc)

    def describe_event(self, ev: E.Event, sc: Scenario, origin: str | None = None) -> str | None:
        return words.describe(ev, sc, origin)

    def map_marks(self, state, sc: Scenario, viewer: str) -> dict:
        """12.1/12.2: the fortifications the German player must destroy (held by the Belgians
        until destroyed) and how many are down; 12.2: the glider landing area (clear hexes
        without a fortification or a unit) during the two set-up steps.  The sealed dummies
        and minefields are not in the state, so no side's map can show them."""
        rule = victory_rule(sc)
        need = list(gd(sc).get("victory_forts", []))
        objs, down = [], 0
        for h in need:
            fid = board.forts(sc).get(h, "")
            gone = board.undestroyed_fort(state, sc, h) is None
            down += gone
            name = sc.unit_defs[fid].name if fid in sc.unit_defs else h
            objs.append({"hex": h, "vp": 0, "side": GERMAN if gone else board.BELGIAN,
                         "label": f"{name} {h}: " + ("destroyed" if gone else "to destroy") + f" ({rule})"})
        marks: dict = {"objectives": objs,
                       "score": f"{sc.side_name(GERMAN)} {down} of {len(need)} fortifications destroyed ({rule})"}
        setup = 0 <= state.phase < len(sc.sequence) and sc.sequence[state.phase].name in ("setup-belgian",
                                                                                          "setup-german")
        if state.result is None and setup and gd(sc).get("german_setup") == "free-clear":
            used = {u.hex for u in state.units.values() if u.hex}
            forts = board.forts(sc)
            land = [h for h in sc.board.grid.all_hexes() if board.terrain(sc, h) == "clear"
                    and h not in forts and h not in used]
            marks["areas"] = [{"label": f"{sc.side_name(GERMAN)} glider landing: clear hexes (12.2)",
                               "hexes": land, "side": GERMAN}]
        return marks

    # ---- the rules' own helpers, for tests and tools ------------------------------------

    def forts(self, sc: Scenario) -> dict[str, str]:
        """hex -> fort unit id (9.0)."""
        return board.forts(sc)

    def los(self, sc: Scenario, a: str, b: str) -> str:
        """Why a cannot sight b ("" if it can) (6.0)."""
        return fire.los(sc, a, b)

    @staticmethod
    def kind(name: str) -> str:
        """What a phase is for: both fire phases are fire phases (3.0)."""
        return phases.kind(name)

    def step_name(self, st: GameState, sc: Scenario) -> str:
        return phases.kind(sc.sequence[st.phase].name)

    def _next_phase(self, ctx: Ctx) -> None:
        """Go on to the next phase (3.0), or end the game after the last one (12.1, 12.2)."""
        phases.next_phase(ctx)

    # ---- orders ---------------------------------------------------------------------------

    def check_sealed(self, ctx: Ctx, order: O.Secret | O.Unveil) -> None:
        secrets.check_sealed(ctx, order)         # 9.5, 11.0
