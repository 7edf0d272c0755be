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
from pbem.core.orders import OrderError
from pbem.core.ruleset import Ctx, Ruleset, core_help
from pbem.core.scenario import Scenario
from pbem.core.state import GameState
from pbem.games.eben_emael import assault, board, fire, lint, movement, phases, reducer, secrets, words
from pbem.games.eben_emael import events as E
from pbem.games.eben_emael.board import FIRE_RESULTS, GERMAN, gd
from pbem.games.eben_emael.schema import EbenData, EbenVictory
from pbem.games.eben_emael.state import EbenEmaelState, initial_state
from pbem.games.eben_emael.terms import victory_rule

# (phase kind, order word) -> what it does with the order's words; a move is movement.move (4.0)
ORDERS: dict[tuple[str, str], Callable[[Ctx, list[str]], None]] = {
    ("setup-german", "place"): movement.setup_place,          # 12.2
    ("movement", "enter"): movement.enter,                    # 10.2
    ("movement", "place"): movement.place_garrison,           # 10.3
    ("movement", "lose"): movement.lose_excess,               # 4.4
    ("fire", "fire"): fire.declare_fire,                      # 5.2
    ("assault", "assault"): assault.declare_assault,          # 7.1
    ("assault", "demolish"): assault.declare_demolition,      # 8.2
}
ALLOWED = {"setup-belgian": "secret dummy-N HEX / secret mine-NN HEX, end",
           "setup-german": "place UNIT HEX, end",
           "fire": "fire UNIT TARGET, end", "movement": "move, enter, place, lose, end",
           "assault": "assault HEX with UNIT ..., demolish FORT with UNIT [charge], end"}


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

    # ---- the game's start, the reducer, data ------------------------------------------

    def new_state(self, sc: Scenario, game_id: str) -> GameState:
        return initial_state(sc, game_id)

    def reduce(self, st: GameState, ev: E.Event, sc: Scenario) -> None:
        reducer.reduce(self.game, st, ev, sc)            # after the core reducer (Ruleset.apply)

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

    def _next_phase(self, ctx: Ctx) -> None:
        """Go on to the next phase (3.0), or end the game after the last one (12.1, 12.2)."""
        phases.next_phase(ctx)

    # ---- orders ---------------------------------------------------------------------------

    def check_sealed(self, ctx: Ctx, order: O.Secret | O.Unveil) -> None:
        secrets.check_sealed(ctx, order)         # 9.5, 11.0

    def handle(self, ctx: Ctx, order: O.Order) -> None:
        st, sc = ctx.state, ctx.sc
        if st.result is not None:
            raise OrderError(f"the game is over: {sc.side_name(st.result.winner)} won ({st.result.reason})")
        if st.decision is not None:
            assault.answer(ctx, order)           # 7.5, 7.6
            phases.resolve(ctx)
            return
        ph = sc.sequence[st.phase]
        if ctx.side != ph.side:
            raise OrderError(f"it is the {sc.side_name(ph.side)} {ph.name} phase of turn {st.turn}; "
                             f"the game waits for {sc.side_name(ph.side)}", "3.0")
        kind = phases.kind(ph.name)
        if isinstance(order, O.End):
            phases.end(ctx, kind)
            return
        if kind == "movement" and isinstance(order, O.Move):
            movement.move(ctx, order)
            return
        word = order.word if isinstance(order, O.GameVerb) else ""
        run = ORDERS.get((kind, word))
        if run is None:
            what = word or order.__struct_config__.tag
            raise OrderError(f"'{what}' is not an order of the {sc.side_name(ph.side)} {ph.name} phase; "
                             f"allowed: {ALLOWED.get(kind, 'end')}", "3.0")
        run(ctx, order.args)

    # ---- what the game waits for ---------------------------------------------------

    def awaiting(self, st: GameState, sc: Scenario) -> list[dict]:
        if st.result is not None or st.phase < 0:
            return []
        if st.decision is not None:
            d = st.decision
            a = st.actions[d.combat]
            item = {"side": d.side, "kind": d.kind, "combat": a.target, "units": d.units,
                    "rule": d.rule, "options": [" ".join(o) for o in d.options]}
            item["order"] = "lose UNIT" if d.kind == "lose" else "advance UNIT | no-advance"
            return [item]
        ph = sc.sequence[st.phase]
        kind = phases.kind(ph.name)
        orders = {
            "setup-belgian": ("set-up", "9.5, 11.0", "secret dummy-1 HEX, secret dummy-2 HEX"
                              + (", secret mine-01 HEX .. mine-15 HEX" if gd(sc).get("minefields") else "")
                              + ", then end"),
            "setup-german": ("set-up", "12.2", "place UNIT HEX for every German unit, then end"),
            "fire": ("fire", "5.2", "fire UNIT TARGET (all fire attacks), then end"),
            "movement": ("movement", "4.0", "move UNIT HEX ...; enter UNIT HEX ...; place UNIT HEX; then end"),
            "assault": ("assault", "7.1, 8.2",
                        "assault HEX with UNIT ... / demolish FORT with UNIT [charge] (all of them), then end"),
        }
        k, rule, text = orders.get(kind, (kind, "3.0", "end"))
        if kind == "fire" and st.declarations_closed:
            return []
        return [{"side": ph.side, "kind": k, "rule": rule, "order": text}]

    # ---- what players are told (HELP, the welcome) ------------------------------------

    def order_help(self, st: GameState, sc: Scenario, side: str) -> list[str]:
        if side == GERMAN:
            own = ["place UNIT HEX    set-up: a squad on a clear hex, no fortification, no stacking (12.2)",
                   "enter UNIT HEX ...    a reinforcement enters (10.2)",
                   "demolish FORT with UNIT [charge]    sappers demolish a fortification (8.2)"]
        else:
            own = ["secret dummy-N HEX    set-up: a dummy cupola (9.5)",
                   "secret mine-NN HEX    set-up: a minefield (11.0)",
                   "place UNIT HEX    a garrison squad appears (10.3)"]
        own += ["move UNIT HEX ...    movement (4.0)",
                "fire UNIT TARGET    a fire attack at range, with line of sight (5.2, 6.0)",
                "assault HEX with UNIT ...    a close assault on an adjacent hex (7.1)",
                "lose UNIT    answer a loss the game asks for (4.4, 7.5)"]
        keep = [x for x in core_help(st, sc, side) if x.split()[0] in ("advance", "end", "unveil", "press")]
        return own + keep

    def setup_choices(self, st: GameState, sc: Scenario, side: str) -> list[str]:
        """The set-up choices: the cupolas that may be dummies and the minefields (Belgian),
        the clear hexes open to the German squads."""
        if st.result is not None or st.decision is not None or not 0 <= st.phase < len(sc.sequence):
            return []
        ph = sc.sequence[st.phase]
        if ph.side != side:
            return []
        kind = phases.kind(ph.name)
        if kind == "setup-belgian":
            cups = [h for h, fid in sorted(board.forts(sc).items())
                    if sc.unit_defs[fid].type == "cupola" and h not in gd(sc).get("never_dummy", [])]
            out = [f"dummy cupolas (dummy-1, dummy-2) on one of these cupolas: {' '.join(cups)} (9.5)"]
            n = int(gd(sc).get("minefields", 0))
            if n:
                out.append(f"minefields mine-01 .. mine-{n:02d}: any hex without a fortification (11.0, 11.6)")
            return out
        if kind == "setup-german":
            used = {u.hex for u in st.units.values() if u.hex}
            free = [h for h in sc.board.grid.all_hexes() if board.terrain(sc, h) == "clear"
                    and h not in board.forts(sc) and h not in used]
            left = sorted(u.id for u in st.units.values() if u.side == GERMAN and u.hex is None and not u.eliminated)
            return [f"squads to place: {' '.join(left) or 'none'}",
                    f"clear hexes open to them ({len(free)}): {' '.join(free)}"]
        return []

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
            if ph == "setup-belgian":                                            # 9.5
                chosen = {k.split(":", 1)[1] for k in st.secrets if k.startswith("belgian:dummy-")}
                out = []
                cands = [h for h, fid in sorted(board.forts(sc).items())
                         if sc.unit_defs[fid].type == "cupola" and h not in gd(sc).get("never_dummy", [])]
                for name, h in zip([n for n in secrets.DUMMIES if n not in chosen], cands):
                    out.append(f"secret {name} {h}")
                return out + ["end"]
            if ph == "setup-german":                                             # 12.2
                used = {u.hex for u in st.units.values() if u.hex}
                free = [h for h in sc.board.grid.all_hexes() if board.terrain(sc, h) == "clear"
                        and h not in board.forts(sc) and h not in used]
                out = []
                for u in sorted(st.units.values(), key=lambda u: u.id):
                    if u.side == GERMAN and u.hex is None and not u.eliminated:
                        out.append(f"place {u.id} {free.pop(0)}")
                return out + ["end"]
            return ["end"]
        return []
