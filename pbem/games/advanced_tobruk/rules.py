"""Advanced Tobruk (advanced-tobruk.txt): company-scale tank battles in North
Africa, 1940-43.  This module is the game's Ruleset: its hooks, the orders of
each phase and what the game waits for.  The rules, by concern:

    state.py        TobrukState: every unit's Piece (identity, public face, facing, markers)
    reducer.py      what the engine's events do; the fire package's reducers merged in
    turn/           sequence.py the sequence of play (5): phases, first-fire roll, alternation,
                    passing; movement.py (6), opportunity.py opportunity fire (6.6), standing.py
                    standing orders, assault_fire.py, broken.py (11.13), terms.py victory (2.44-2.46)
    board/          stacking (4), facing, spotting and line of sight (32.25), the ground and the
                    perimeter (31, 33)
    fire/           fire_*.py, casualty.py, morale.py, melee.py: fire, morale, close assault (10-17, 21-23)
    notes/, fog/, mines/, artillery/   side notes (5.01), limited intelligence (32), minefields (31.1),
                    indirect fire (18-20);  tables/  the printed tables
    words.py        report wording;  schema.py, lint.py  scenario
    views.py        map marks, set-up choices, the other side's standing orders hidden (6.6)
    steps.py        the turn as steps (5) and the order forms: HELP and the set-up choices
    map_face.py     the map's counters (values, fronts, turrets, status, wrecks), hex markers, shot lines
"""
from __future__ import annotations

from pbem.core import orders as O
from pbem.core.hexgrid import DIRECTIONS
from pbem.core.orders import OrderError
from pbem.core.ruleset import Ctx, Ruleset, find_unit
from pbem.core.scenario import Scenario
from pbem.core.state import UnitState
from pbem.games.advanced_tobruk.artillery import arty_views, indirect
from pbem.games.advanced_tobruk.fire import continued_fire
from pbem.games.advanced_tobruk.board import cover_moves, ground, perimeter_words
from pbem.games.advanced_tobruk import data, events as E, reducer, views, words
from pbem.games.advanced_tobruk.fog import fow, hidden
from pbem.games.advanced_tobruk.mines import mines
from pbem.games.advanced_tobruk.notes import notes, notes_words
from pbem.games.advanced_tobruk.turn import sequence
from pbem.games.advanced_tobruk.fog import known as knowing
from pbem.games.advanced_tobruk.board.facing import spine
from pbem.games.advanced_tobruk.turn.movement import unit_and_spine
from pbem.games.advanced_tobruk.lint import lint as lint_scenario
from pbem.games.advanced_tobruk.turn.standing import standing_order
from pbem.games.advanced_tobruk.schema import TobrukData, TobrukVictory
from pbem.games.advanced_tobruk.state import Piece, TobrukState
from pbem.games.advanced_tobruk.steps import FORMS, INTERRUPTS, MOVES, STEPS

GAME = reducer.GAME                # "advanced-tobruk"
class AdvancedTobruk(Ruleset):
    game = GAME
    ruleset_version = "3"          # 3: one pause a move, answered for its whole path (6.6 by email)
    result_codes = frozenset({"TUR", "UH", "LH", "TR"})     # the scenario's [crt]: the Hit Location Tables (13.52)
    state_type = TobrukState
    steps = STEPS                  # the turn (5, steps.py): the kernel's handle, awaiting and defaults read them
    interrupts = INTERRUPTS        # a move paused for opportunity fire (6.6)
    forms = FORMS                  # the order forms: HELP and the set-up choices (steps.py, core/forms.py)
    sequence_rule = "5.03"         # the side whose activation it is
    any_time = {"standing": lambda ctx, o: standing_order(ctx, o.args),            # 6.6, at any time
                "note": lambda ctx, o: notes.handle(ctx, o.word, o.args),          # side notes and secret rolls
                "roll": lambda ctx, o: notes.handle(ctx, o.word, o.args)}

    def step_name(self, st: TobrukState, sc: Scenario) -> str:
        return sequence.phase_name(st, sc)
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

    # Ruleset.reduce(st, ev, sc): the reducer's own, one call less an event (and no ``apply`` of
    # the game's: replay runs the core's step and this inline, as for every game)
    reduce = staticmethod(reducer.reduce)

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
        hidden.on_infiltrate(ctx, u.id, h, fow.update)                 # 32.211 an enemy enters the hex: hidden units revealed
        enemy = [v for v in st.units.values() if v.hex == h and v.side != ctx.side and not v.eliminated
                 and data.is_personnel(sc, v.id) and not ground.in_bunker(st, sc, v.id)]        # 31.571
        keep = "full" if p.full and ground.same_cover(st, sc, u.hex, h) else ""           # 31.254, 31.256
        ctx.emit(E.Infiltrated(unit=u.id, hex=h, melee=bool(enemy), cover=keep))
        mines.on_enter(ctx, [u.id], h, "crawl")            # 31.171 forcing in the Infiltration Phase, as crawling
        continued_fire.on_enter(ctx, [u.id], h)            # 15.932
        fow.update(ctx)                                    # 32.12 the infiltrator may now spot FOW units
        sequence.activated(ctx, [u.id])
