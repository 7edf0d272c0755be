"""Advanced Tobruk's turn as steps (5; core/turn.py): each phase's orders for the side whose
activation it is (``TobrukState.step.to_act``, 5.03), and a move paused for opportunity fire
(6.6) as an interrupt read from ``TobrukState.pending``.  The kernel's handle gates every order
through them; the rows of ``awaiting`` and the deadline defaults (``defaults_help``) are theirs.
``standing`` (6.6), ``note`` and ``roll`` (the side notes) may be sent at any time
(``AdvancedTobruk.any_time``)."""
from __future__ import annotations

from pbem.core import orders as O
from pbem.core.orders import OrderError
from pbem.core.ruleset import Ctx
from pbem.core.scenario import Scenario
from pbem.core.forms import Form, core, note
from pbem.core.turn import Step, phase_steps
from pbem.games.advanced_tobruk.turn import broken, sequence
from pbem.games.advanced_tobruk.board import cover_moves
from pbem.games.advanced_tobruk import data, views
from pbem.games.advanced_tobruk.artillery import indirect
from pbem.games.advanced_tobruk.mines import mines
from pbem.games.advanced_tobruk.notes import notes, notes_setup, notes_words
from pbem.games.advanced_tobruk.board.facing import SPINES
from pbem.games.advanced_tobruk.fire.fire_personnel import handle_fire, handle_grenade
from pbem.games.advanced_tobruk.fire.melee import handle_assault
from pbem.games.advanced_tobruk.turn.opportunity import answer, move_order, pivot_order
from pbem.games.advanced_tobruk.state import TobrukState

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


def firers(ctx: Ctx, args: list[str]) -> list[str]:
    """The units an activation names first (UNIT[+UNIT...])."""
    st = ctx.state
    out = []
    for n in (args[0].split("+") if args else []):
        u = st.units.get(n) or next((x for x in st.units.values() if x.id.lower() == n.lower()), None)
        if u is not None:
            out.append(u.id)
    return out


def _pass(ctx: Ctx, order: O.GameVerb) -> None:
    if order.args:
        raise OrderError("pass takes nothing else", "5.131")
    if sequence.phase_name(ctx.state, ctx.sc) == "setup":
        notes.check_setup_done(ctx)                      # 5.01: the notes the rules require
    sequence.pass_phase(ctx)


def _fire(ctx: Ctx, order: O.GameVerb) -> None:
    handle_fire(ctx, order)
    sequence.activated(ctx, firers(ctx, order.args))


def _grenade(ctx: Ctx, order: O.GameVerb) -> None:
    handle_grenade(ctx, order)
    sequence.activated(ctx, firers(ctx, order.args), "grenade")


def _close_assault(ctx: Ctx, order: O.GameVerb) -> None:
    handle_assault(ctx, order)
    sequence.activated(ctx, firers(ctx, order.args))


def _indirect(ctx: Ctx, order: O.GameVerb) -> None:
    who = indirect.handle(ctx, order)
    if who:                                              # 'cease' is no activation (18.1153)
        sequence.activated(ctx, who)


def _search(ctx: Ctx, order: O.GameVerb) -> None:
    sequence.activated(ctx, mines.search_order(ctx, order.args))                     # 31.211


def _phase_rows(name: str):
    def rows(st: TobrukState, sc: Scenario) -> list[dict]:
        order = HELP[name]
        if name == "movement" and data.gd(sc).mines:
            order = order.replace(", or pass", ", search UNIT (31.211), or pass")
        if cover_moves.shown(sc):                          # 31.02, 31.254, 33.74, 15.52 on a perimeter card
            order = order.replace("infiltrate UNIT HEX", "infiltrate UNIT HEX|under|out").replace(
                "off, continue)", "off, continue, under, out, rim DIR, down, fire TARGET)")
        return [{"side": st.step.to_act, "kind": name, "rule": RULE[name], "order": order}]
    return rows


def _setup_default(st: TobrukState, sc: Scenario, side: str) -> list[O.Order]:
    """5.01: the secret rolls and the first legal choice of each required note, then pass."""
    return [*notes_setup.default_notes(st, sc, side), O.GameVerb(word="pass")]


def _movement_default(st: TobrukState, sc: Scenario, side: str) -> list[O.Order]:
    """11.131: a broken unit that must move first crawls one hex towards safety; else pass."""
    for uid in broken.must_move(st, sc, side):
        return [O.GameVerb(word="crawl", args=[uid, broken.safe_steps(st, sc, uid)[0]])]
    return [O.GameVerb(word="pass")]


# 6.0: no core "move" (nor "end"): a move is written by its movement type, a phase ends by passing
WHY = {"move": ("moves are written by their movement type (crawl, assault, run, cross)", "6.0"),
       "end": ("a side that has finished the phase passes (pass)", "5.131")}


def _setup_why(st: TobrukState, sc: Scenario, word: str):
    if word in WHY:
        return WHY[word]
    if notes.in_use(sc):
        return "the set-up's side notes too: roll, note KIND ... (HELP lists them)", RULE["setup"]
    return None


def _step(name: str, verbs: dict, default=None, choices: tuple[str, ...] = (), offered=None) -> Step:
    # ``sides``: the gate before every order reads the side whose activation it is, not the row
    return Step(name, rule=RULE[name], waits=_phase_rows(name), side=lambda st, sc: st.step.to_act,
                sides=lambda st, sc: [st.step.to_act],
                why=_setup_why if name == "setup" else WHY, choices=choices, offered=offered,
                verbs={**verbs, "pass": _pass}, default=default or (lambda st, sc, side: [O.GameVerb(word="pass")]))


def _movement_words(st: TobrukState, sc: Scenario, side: str) -> tuple[str, ...]:
    """31.211: ``search`` only on a card with minefields (the row and HELP offer it there alone)."""
    words = (*MOVES, "pivot", "turret", "search", "pass")
    return words if data.gd(sc).mines else tuple(w for w in words if w != "search")


def _setup_face(ctx: Ctx, order: O.GameVerb) -> None:
    ctx.rules._setup_face(ctx, order.word, order.args)


STEPS = phase_steps(
    _step("setup", {"pivot": _setup_face, "turret": _setup_face}, _setup_default,            # 2.48, 6.521
          choices=("pivot", "standing", "pass", "note")),
    _step("indirect", {w: _indirect for w in (*indirect.VERBS, "fire")}),                    # 18-20
    _step("movement", {**{w: (lambda ctx, o: move_order(ctx, o.word, o.args)) for w in MOVES},
                       "pivot": lambda ctx, o: pivot_order(ctx, o.word, o.args),
                       "turret": lambda ctx, o: pivot_order(ctx, o.word, o.args),
                       "search": _search},                                                   # 6, 31.211
          _movement_default, offered=_movement_words),
    _step("direct-fire", {"fire": _fire}),                                                    # 5.12
    _step("final-fire", {"fire": _fire}),                                                     # 6.65
    _step("infiltration", {"infiltrate": lambda ctx, o: ctx.rules._infiltrate(ctx, o.args),   # 22.11
                           "grenade": _grenade, "close-assault": _close_assault}),            # 22, 23
    _step("register", {}, choices=("note",)),                 # the registrations are notes (any time)
)


def _paused_rows(st: TobrukState, sc: Scenario) -> list[dict]:
    pd = st.pending
    planned = "; ".join(f"{'+'.join(x.firers)} at {x.hex}" for x in pd.shots)
    return [{"side": pd.side, "kind": "opportunity-fire", "units": list(pd.firers), "rule": "6.6",
             "order": f"fire UNIT[+UNIT...] [at HEX] (of {' '.join(pd.firers)}; one line a shot, any hex "
                      f"of the path) | pass  - the mover: {views.pause_words(pd)}"
                      + (f"; planned so far: {planned} (name the rest or pass)" if planned else "")}]


PAUSED = Step("opportunity-fire", rule="6.6", pending=lambda st, sc: st.pending is not None,
              side=lambda st, sc: st.pending.side, waits=_paused_rows, sides=lambda st, sc: [st.pending.side],
              verbs={w: (lambda ctx, o: answer(ctx, o.word, o.args)) for w in ("fire", "pass")},
              default=lambda st, sc, side: [O.GameVerb(word="pass")])
INTERRUPTS = (PAUSED,)


# --- the order forms (HELP lists them in this order; core/forms.py) ---------------------------------
# The set-up step lists the choices of pivot, standing, pass and note (views.py, notes_setup.py).

def _notes_on(st: TobrukState, sc: Scenario) -> bool:
    return notes.in_use(sc)


FORMS = (
    Form("pass", "pass", "this side has finished the phase; the other completes it", rule="5.131, 5.22",
         choices=views.pass_choices),
    Form("pivot", "pivot UNIT SPINE | turret UNIT SPINE", "set-up facing; in the Movement Segment a free pivot",
         rule="6.532", also=("turret",), choices=views.facing_choices),
    Form("fire", "fire UNIT[+UNIT...] at TARGET|HEX [with W,...] [ap|he|apcr|heat]", "one unit or firegroup",
         rule="12-17"),
    Form("crawl", "crawl UNIT HEX | assault UNIT[+UNIT...] STEP ... | run UNIT[+UNIT...] STEP ...", "personnel",
         rule="6.41", also=("assault", "run")),
    Form("cross", "cross VEHICLE STEP ... | assault VEHICLE STEP ...", "vehicles; STEP: HEX, back HEX, face SPINE, "
         "turret SPINE, overrun UNIT (an AFV by assault movement, 21), off, continue", rule="6.5", also=("assault",)),
    Form("standing", "standing [UNIT] ask | hold | any [range N] | afv [range N]", "standing opportunity-fire orders",
         rule="6.6", choices=views.standing_choices),
    Form("fire", "fire UNIT[+UNIT...] [at HEX] | pass", "answer a move paused for your opportunity fire, once for its "
         "whole path: one line a shot, HEX any hex of the path ahead (none: where the mover stands); the move "
         "goes on when every unit asked is named, or at pass (the others hold); a shot that stops the mover "
         "ends its move there", rule="6.6, 6.64, 11.41", also=("pass",)),
    Form("fire", "fire UNIT[+UNIT...] [at HEX]", "(units already marked fired) desperation fire in that answer: "
         "personnel, printed gunfire, mover within normal range, the attack's roll is their morale check",
         rule="15.6"),
    note(views.MAIL_COSTS),
    Form("infiltrate", "infiltrate UNIT HEX | grenade UNIT at HEX | close-assault UNIT at VEHICLE",
         "Infiltration Phase", rule="22, 23", also=("grenade", "close-assault")),
    note(f"spines: {' '.join(SPINES)} (a vehicle facing NNE has its front hexsides N and NE)"),
    Form("call", "call BATTERY at HEX [concentration|barrage [line DIR]|rolling|smoke] [by UNIT] | fire MORTAR "
         "at HEX [by LEADER] | smoke UNIT at HEX | counter-battery BATTERY at ENEMY | cease BATTERY",
         "Indirect Fire Phase", rule="18-20", also=("fire", "smoke", "counter-battery", "cease"),
         when=lambda st, sc: indirect.enabled(sc)),
    Form("search", "search UNIT", "a personnel unit that has not moved spends the Movement Segment searching: "
         "adjacent hidden enemy minefields are placed", rule="31.211", when=lambda st, sc: bool(data.gd(sc).mines)),
    note("move STEPs: under | out (FULL cover, 31.02) | rim DIR | down (a wadi's GOOD position, 33.74) | "
         "fire TARGET (assault fire at half gunfire, crawl or assault only, 15.52)",
         when=lambda st, sc: cover_moves.shown(sc)),
    Form("infiltrate", "infiltrate UNIT under | out", "into or out of FULL cover in the Infiltration Phase",
         rule="31.254, 31.571", when=lambda st, sc: cover_moves.shown(sc)),
    Form("standing", "standing [UNIT] drop | nodrop", "personnel drop into FULL cover when fired on", rule="15.22",
         when=lambda st, sc: cover_moves.shown(sc)),
    # the side notes (5.01): when they are written, each note with what it records, the secret rolls
    Form("note", also=("roll",), rule="5.01", text=lambda st, sc, side: notes_words.help_lines(), when=_notes_on,
         choices=notes_setup.choices),                         # the notes still owed or open now
    *core("secret", "unveil", "press"),
)
