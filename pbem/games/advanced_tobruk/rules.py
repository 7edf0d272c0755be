"""Advanced Tobruk (advanced-tobruk.txt): company-scale tank battles in North
Africa, 1940-43.  This module is the game's Ruleset: its hooks, the orders of
each phase and what the game waits for.  The rules, by concern:

    state.py        TobrukState: every unit's Piece (identity, public face, facing, markers)
    reducer.py      what the engine's events do; the fire package's reducers merged in
    sequence.py     the sequence of play (5): phases, first-fire roll, alternation, passing
    movement.py     movement (6): personnel and vehicles, facing, pivots, reverse, terrain
    opportunity.py  opportunity fire (6.6): standing orders, the move paused for an answer
    stacking.py     stacking (4) and overstacking penalties;  facing.py  arcs and aspect
    fire_*.py, casualty.py, morale.py, melee.py, assault.py   fire, morale, close assault (10-17, 21-23)
    terms.py        victory (2.44-2.46);  words.py  report wording;  schema.py, lint.py  scenario
    views.py        map marks, set-up choices, the other side's standing orders hidden (6.6)
    map_face.py     the map's counters (values, fronts, turrets, status, wrecks), hex markers, shot lines
"""
from __future__ import annotations

from pbem.core import orders as O
from pbem.core.hexgrid import DIRECTIONS
from pbem.core.orders import OrderError
from pbem.core.ruleset import Ctx, Ruleset, core_help, find_unit
from pbem.core.scenario import Scenario
from pbem.core.state import UnitState
from pbem.games.advanced_tobruk import (arty_views, broken, continued_fire, cover_moves, data, events as E, fow, ground,
                                        hidden, indirect, mines, notes, notes_setup, notes_words, perimeter_words,
                                        reducer, sequence, views, words)
from pbem.games.advanced_tobruk import known as knowing
from pbem.games.advanced_tobruk.facing import SPINES, spine
from pbem.games.advanced_tobruk.movement import unit_and_spine
from pbem.games.advanced_tobruk.fire_personnel import handle_fire, handle_grenade
from pbem.games.advanced_tobruk.lint import lint as lint_scenario
from pbem.games.advanced_tobruk.melee import handle_assault
from pbem.games.advanced_tobruk.opportunity import answer, move_order, pivot_order
from pbem.games.advanced_tobruk.standing import standing_order
from pbem.games.advanced_tobruk.schema import TobrukData, TobrukVictory
from pbem.games.advanced_tobruk.state import Piece, TobrukState

GAME = "advanced-tobruk"
MOVES = ("crawl", "assault", "run", "cross")
HELP = {
    "setup": "pivot UNIT SPINE, turret UNIT SPINE, standing ..., then pass",
    "direct-fire": "fire UNIT[+UNIT...] at TARGET|HEX [with WEAPON,...] [...] (one unit or firegroup), or pass",
    "movement": "crawl|assault|run UNIT[+UNIT...] STEP ..., cross|assault VEHICLE STEP ... "
                "(STEP: HEX, back HEX, face SPINE, turret SPINE, overrun UNIT, off, continue), "
                "pivot|turret UNIT SPINE, or pass",
    "final-fire": "fire UNIT at TARGET (a unit marked as moved), or pass",
    "infiltration": "infiltrate UNIT HEX, grenade UNIT[+UNIT] at HEX, close-assault UNIT at VEHICLE, or pass",
    "register": "note register BATTERY|MORTAR HEX (sealed registrations, after all set-up), then pass",
    "indirect": indirect.HELP,
}
RULE = {"setup": "2.48", "direct-fire": "5.12", "movement": "5.2, 6", "final-fire": "6.65",
        "infiltration": "5.34, 22.1", "register": "18.51, 19.6", "indirect": indirect.RULE}


class AdvancedTobruk(Ruleset):
    game = GAME
    ruleset_version = "3"          # 3: one pause a move, answered for its whole path (6.6 by email)
    result_codes = frozenset({"TUR", "UH", "LH", "TR"})     # the scenario's [crt]: the Hit Location Tables (13.52)
    state_type = TobrukState
    setup_stacking = True          # 4: units stack; lint.py checks the limits of 4.21 and 4.31 at set-up
    eliminated_stay = True         # 13.611, 13.7: a K-KILLed vehicle stays in its hex as a wreck (LOS reads it, 12.42)
    scenario_schema = (TobrukVictory, TobrukData)
    order_example = "fire UNIT at TARGET  |  assault UNIT HEX ...  |  pass"
    verbs = frozenset({"fire", "pass", "standing", "pivot", "turret", "infiltrate", "grenade", "close-assault",
                       "note", "roll", "search", *MOVES, *indirect.VERBS})
    needs_secrets = True           # side notes: the rules read and open the sealed notes (notes.py)
    defaults_help = ("Deadline defaults: in the set-up the secret rolls and the side notes the rules require "
                     "(the first legal choice of each), then 'pass'; a phase's activation 'pass' (in the Movement "
                     "Segment a broken unit that must move first crawls one hex towards safety, 11.131); a "
                     "paused move's opportunity fire 'pass' (the shots already planned for its path are taken).")

    # --- the game's start, the reducer, the data ------------------------------------------

    def new_state(self, sc: Scenario, game_id: str) -> TobrukState:
        st = TobrukState(game_id=game_id, scenario_id=sc.id, game=sc.game)
        for u in sc.units:
            st.units[u.id] = UnitState(id=u.id, side=u.side, hex=u.hex, strength=u.strength, ma=u.ma)
            t = data.utype(sc, u.id)
            x = data.extra(sc, u.id)
            st.pieces[u.id] = Piece(type=u.type, face=t.get("face", ""), cls=t.get("cls", ""),
                                    facing=spine(x["facing"]) if "facing" in x else -1,
                                    turret=spine(x["turret"]) if "turret" in x else -1,
                                    holder=x.get("holder", ""), full=bool(x.get("full", False)),
                                    rim=DIRECTIONS.index(str(x["rim"]).upper()) if "rim" in x else -1,
                                    ammo=dict(x.get("ammo", {})))
        st.vp = {s: 0 for s in sc.side_ids()}
        for uid, u in st.units.items():             # the reducer derives them again for the units events touch
            u.marks = reducer.markers(st.pieces[uid], st.turn, u.eliminated)
        return st

    def reduce(self, st: TobrukState, ev: E.Event, sc: Scenario) -> None:
        reducer.reduce(st, ev, sc, self.game)

    def lint(self, sc: Scenario) -> list[str]:
        return lint_scenario(sc)

    def describe_event(self, ev: E.Event, sc: Scenario, origin: str | None = None) -> str | None:
        return notes_words.describe(ev, sc) or words.describe(ev, sc, origin)

    def check_sealed(self, ctx: Ctx, order) -> None:
        notes.check_sealed(ctx, order)                # side notes are written with `note`, opened by the rules

    def redact(self, ev: E.Event, viewer: str) -> E.Event:
        # the other side's side notes and secret rolls (5.01) and standing orders (6.6) are private
        return views.redact(notes_words.redact(ev, viewer), viewer)

    def awaiting_view(self, state: TobrukState, sc: Scenario, items: list[dict], viewer: str) -> list[dict]:
        return views.awaiting_view(state, sc, items, viewer)

    def phase_side(self, state: TobrukState, sc: Scenario) -> str | None:
        """The sides alternate one activation at a time in the set-up and in every phase the
        first-fire/first-move roll opens (5.031, 5.121, 5.21): headers name the side whose
        activation it is (the roll's winner at the start, 5.031), not the sequence's side.
        A move paused for opportunity fire stays the mover's (6.6)."""
        if state.step.to_act and state.step.phase == sequence.phase_name(state, sc):
            return state.step.to_act
        return super().phase_side(state, sc)

    def map_marks(self, state: TobrukState, sc: Scenario, viewer: str) -> dict:
        return views.map_marks(state, sc, viewer)

    def setup_choices(self, state: TobrukState, sc: Scenario, side: str) -> list[str]:
        return views.setup_choices(state, sc, side) + notes_setup.choices(state, sc, side)

    def report_notes(self, state: TobrukState, sc: Scenario, viewer: str) -> list[tuple[str, list[str]]]:
        out = notes_words.report_notes(state, sc, viewer)
        for title, lines in (("ARTILLERY AND SMOKE (18-20)", arty_views.report_lines(state, sc, viewer)),
                             ("MINEFIELDS (31.1)", mines.report_lines(state, sc, viewer)),
                             ("FIELD WORKS AND CONTINUED FIRE (31, 15.93)", perimeter_words.report_lines(state, sc))):
            if lines:
                out.append((title, lines))
        return out

    def counter_face(self, state: TobrukState, sc: Scenario, row: dict, viewer: str) -> dict:
        """The counter's values, front and turret, status markers and wreck (map_face.py)."""
        from pbem.games.advanced_tobruk.map_face import counter_face  # here: the map's code loads only when a map is drawn
        return counter_face(state, sc, row, viewer)

    def map_shots(self, state: TobrukState, sc: Scenario, events: list, viewer: str) -> list[dict]:
        """A line from firer to target for each shot of ``events`` (map_face.py)."""
        from pbem.games.advanced_tobruk.map_face import shots  # here: the map's code loads only when a map is drawn
        return shots(state, sc, events, viewer)

    def unit_row(self, state: TobrukState, sc: Scenario, unit: UnitState, row: dict, viewer: str) -> dict | None:
        """32: hidden units unseen, FOW faces, stacks and FULL cover as the rules let the enemy look."""
        return views.unit_row(state, sc, unit, row, viewer)

    def known(self, k: TobrukState, state: TobrukState, sc: Scenario, viewer: str) -> None:
        knowing.known(k, state, sc, viewer)        # a check's view: notes, hidden units, mines, standing orders

    def check_stop(self, before, after, events, sc: Scenario, side: str, order: O.Order) -> str:
        return knowing.check_stop(before, after, events, sc, side, order)

    # --- orders -------------------------------------------------------------------------------

    def handle(self, ctx: Ctx, order: O.Order) -> None:
        st: TobrukState = ctx.state
        sc = ctx.sc
        if st.result is not None:
            raise OrderError(f"the game is over: {st.result.reason}")
        if not isinstance(order, O.GameVerb):
            raise OrderError(f"Advanced Tobruk's orders: {', '.join(sorted(self.verbs))}; moves are written "
                             "by their movement type (crawl, assault, run, cross)", "6.0")
        word, args = order.word, order.args
        if word == "standing":
            return standing_order(ctx, args)                     # 6.6, at any time
        if word in ("note", "roll"):
            return notes.handle(ctx, word, args)                 # side notes and secret rolls, before play
        if st.pending is not None:
            pd = st.pending
            if ctx.side != pd.side:
                raise OrderError(f"a move is paused in {pd.hex}: the game waits for "
                                 f"{sc.side_name(pd.side)}'s opportunity fire (fire or pass)", "6.6")
            return answer(ctx, word, args)
        name = sequence.phase_name(st, sc)
        if ctx.side != st.step.to_act:
            raise OrderError(f"it is {sc.side_name(st.step.to_act)}'s activation in the {name} phase of "
                             f"turn {st.turn}; the game waits for {sc.side_name(st.step.to_act)}", "5.03")
        if word == "pass":
            if args:
                raise OrderError("pass takes nothing else", "5.131")
            if name == "setup":
                notes.check_setup_done(ctx)                      # 5.01: the notes the rules require
            return sequence.pass_phase(ctx)
        if name == "setup" and word in ("pivot", "turret"):
            return self._setup_face(ctx, word, args)
        if name == "indirect" and (word in indirect.VERBS or word == "fire"):
            return indirect.handle(ctx, order)                   # 18-20
        if name == "movement" and word == "search":
            return mines.search_order(ctx, args)                 # 31.211
        if name in ("direct-fire", "final-fire") and word == "fire":
            handle_fire(ctx, order)
            return sequence.activated(ctx, _firers(ctx, args))
        if name == "movement" and word in MOVES:
            return move_order(ctx, word, args)
        if name == "movement" and word in ("pivot", "turret"):
            return pivot_order(ctx, word, args)
        if name == "infiltration":
            if word == "infiltrate":
                return self._infiltrate(ctx, args)
            if word == "grenade":
                handle_grenade(ctx, order)
                return sequence.activated(ctx, _firers(ctx, args), "grenade")
            if word == "close-assault":
                handle_assault(ctx, order)
                return sequence.activated(ctx, _firers(ctx, args))
        what = HELP.get(name, "nothing to order")
        if name == "setup" and notes.in_use(sc):
            what = "roll, note KIND ... (the side notes: HELP lists them), " + what
        raise OrderError(f"in the {name} phase: {what}", RULE.get(name, "5"))

    def _setup_face(self, ctx: Ctx, word: str, args: list[str]) -> None:
        u, new = unit_and_spine(ctx, word, args, "6.521")
        p = ctx.state.pieces[u]
        if p.facing < 0:
            raise OrderError(f"{u} has no facing", "6.52, 12.11")
        if word == "turret":
            if not data.utype(ctx.sc, u).get("turret"):
                raise OrderError(f"{u} has no turret", "12.2")
            ctx.emit(E.Faced(unit=u, facing=-1, turret=new, setup=True))
        else:
            ctx.emit(E.Faced(unit=u, facing=new, turret=p.turret, setup=True))

    def _infiltrate(self, ctx: Ctx, args: list[str]) -> None:
        """5.34, 22.11: one personnel unit moves one hex; into enemy personnel it starts a melee (5.32)."""
        st: TobrukState = ctx.state
        sc = ctx.sc
        if len(args) != 2:
            raise OrderError("infiltrate UNIT HEX", "22.11")
        u = find_unit(ctx, args[0], ctx.side, on_map=True)
        p = st.pieces[u.id]
        h = args[1]
        if not data.is_personnel(sc, u.id):
            raise OrderError(f"{u.id} is not a personnel unit: only personnel infiltrate", "5.31")
        if p.broken or p.surrendered:
            raise OrderError(f"{u.id} is {'broken' if p.broken else 'surrendered'} and does not infiltrate",
                             "11.131, 5.31")
        if p.melee:
            raise OrderError(f"{u.id} is frozen in a melee", "5.33, 22.23")
        if u.id in st.step.acted:
            raise OrderError(f"{u.id} has already infiltrated or attacked this phase", "22.121")
        if h.lower() in ("under", "out"):                  # 31.254: into or out of cover in its hex
            melee = cover_moves.infiltrate_cover(ctx, u.id, h.lower())
            if melee:                                      # 31.571: out of a bunker among the enemy
                ctx.emit(E.Infiltrated(unit=u.id, hex=u.hex, melee=True))
            return sequence.activated(ctx, [u.id])
        if not sc.board.grid.contains(h) or not sc.board.grid.adjacent(u.hex, h):
            raise OrderError(f"{h} is not adjacent to {u.hex}: infiltration is one hex", "22.11")
        hidden.on_infiltrate(ctx, u.id, h)                 # 32.211 an enemy enters the hex: hidden units revealed
        enemy = [v for v in st.units.values() if v.hex == h and v.side != ctx.side and not v.eliminated
                 and data.is_personnel(sc, v.id) and not ground.in_bunker(st, sc, v.id)]        # 31.571
        keep = "full" if p.full and ground.same_cover(st, sc, u.hex, h) else ""           # 31.254, 31.256
        ctx.emit(E.Infiltrated(unit=u.id, hex=h, melee=bool(enemy), cover=keep))
        mines.on_enter(ctx, [u.id], h, "crawl")            # 31.171 forcing in the Infiltration Phase, as crawling
        continued_fire.on_enter(ctx, [u.id], h)            # 15.932
        fow.update(ctx)                                    # 32.12 the infiltrator may now spot FOW units
        sequence.activated(ctx, [u.id])

    # --- what the game waits for ------------------------------------------------------------

    def awaiting(self, st: TobrukState, sc: Scenario) -> list[dict]:
        if st.result is not None or st.phase < 0:
            return []
        pd = st.pending
        if pd is not None:
            planned = "; ".join(f"{'+'.join(x.firers)} at {x.hex}" for x in pd.shots)
            return [{"side": pd.side, "kind": "opportunity-fire", "units": list(pd.firers), "rule": "6.6",
                     "order": f"fire UNIT[+UNIT...] [at HEX] (of {' '.join(pd.firers)}; one line a shot, any hex "
                              f"of the path) | pass  - the mover: {views.pause_words(pd)}"
                              + (f"; planned so far: {planned} (name the rest or pass)" if planned else "")}]
        name = sequence.phase_name(st, sc)
        if name not in HELP:
            return []
        order = HELP[name]
        if name == "movement" and data.gd(sc).mines:
            order = order.replace(", or pass", ", search UNIT (31.211), or pass")
        if cover_moves.shown(sc):                          # 31.02, 31.254, 33.74, 15.52 on a perimeter card
            order = order.replace("infiltrate UNIT HEX", "infiltrate UNIT HEX|under|out").replace(
                "off, continue)", "off, continue, under, out, rim DIR, down, fire TARGET)")
        return [{"side": st.step.to_act, "kind": name, "rule": RULE[name], "order": order}]

    def order_help(self, st: TobrukState, sc: Scenario, side: str) -> list[str]:
        own = [
            "pass    this side has finished the phase; the other completes it (5.131, 5.22)",
            "pivot UNIT SPINE | turret UNIT SPINE    set-up facing; in the Movement Segment a free pivot (6.532)",
            "fire UNIT[+UNIT...] at TARGET|HEX [with W,...] [ap|he|apcr|heat]    one unit or firegroup (12-17)",
            "crawl UNIT HEX | assault UNIT[+UNIT...] STEP ... | run UNIT[+UNIT...] STEP ...    personnel (6.41)",
            "cross VEHICLE STEP ... | assault VEHICLE STEP ...    vehicles; STEP: HEX, back HEX, face SPINE, "
            "turret SPINE, overrun UNIT (an AFV by assault movement, 21), off, continue (6.5)",
            "standing [UNIT] ask | hold | any [range N] | afv [range N]    standing opportunity-fire orders (6.6)",
            "fire UNIT[+UNIT...] [at HEX] | pass    answer a move paused for your opportunity fire, once for its "
            "whole path: one line a shot, HEX any hex of the path ahead (none: where the mover stands); the move "
            "goes on when every unit asked is named, or at pass (the others hold); a shot that stops the mover "
            "ends its move there (6.6, 6.64, 11.41)",
            "fire UNIT[+UNIT...] [at HEX]    (units already marked fired) desperation fire in that answer: personnel, "
            "printed gunfire, mover within normal range, the attack's roll is their morale check (15.6)",
            views.MAIL_COSTS,
            "infiltrate UNIT HEX | grenade UNIT at HEX | close-assault UNIT at VEHICLE    Infiltration Phase (22, 23)",
            f"spines: {' '.join(SPINES)} (a vehicle facing NNE has its front hexsides N and NE)",
        ]
        keep = [x for x in core_help(st, sc, side) if x.split()[0] in ("secret", "unveil", "press")]
        if indirect.enabled(sc):
            own.append("call BATTERY at HEX [concentration|barrage [line DIR]|rolling|smoke] [by UNIT] | fire MORTAR "
                       "at HEX [by LEADER] | smoke UNIT at HEX | counter-battery BATTERY at ENEMY | cease BATTERY    "
                       "Indirect Fire Phase (18-20)")
        if data.gd(sc).mines:
            own.append("search UNIT    a personnel unit that has not moved spends the Movement Segment searching: "
                       "adjacent hidden enemy minefields are placed (31.211)")
        if cover_moves.shown(sc):
            own += ["move STEPs: under | out (FULL cover, 31.02) | rim DIR | down (a wadi's GOOD position, 33.74) | "
                    "fire TARGET (assault fire at half gunfire, crawl or assault only, 15.52)",
                    "infiltrate UNIT under | out    into or out of FULL cover in the Infiltration Phase (31.254, 31.571)",
                    "standing [UNIT] drop | nodrop    personnel drop into FULL cover when fired on (15.22)"]
        if notes.in_use(sc):
            own += notes_words.help_lines()
        return own + keep

    def default_orders(self, st: TobrukState, sc: Scenario, side: str) -> list[str]:
        items = [item for item in self.awaiting(st, sc) if item["side"] == side]
        if not items:
            return []
        if items[0]["kind"] == "setup":
            return notes_setup.default_lines(st, sc, side) + ["pass"]          # 5.01: the first legal choices
        if items[0]["kind"] == "movement":
            for uid in broken.must_move(st, sc, side):          # 11.131: the broken move first
                return [f"crawl {uid} {broken.safe_steps(st, sc, uid)[0]}"]
        return ["pass"]


def _firers(ctx: Ctx, args: list[str]) -> list[str]:
    """The units an activation names first (UNIT[+UNIT...])."""
    st = ctx.state
    out = []
    for n in (args[0].split("+") if args else []):
        u = st.units.get(n) or next((x for x in st.units.values() if x.id.lower() == n.lower()), None)
        if u is not None:
            out.append(u.id)
    return out
