"""The Panzer Corps family's turn as steps (5.0; core/turn.py): the movement (8.0), reinforcement
(10.0) and combat (9.1) phases, and a pending decision (retreat 9.5, advance 9.6, EX and stacking
losses 9.4 and 7.3, set-up and entry placements, the naval bombardment, face-down reinforcements)
as an interrupt read from the core ``GameState.decision``.  The kernel's handle gates every order
through them; the rows of ``awaiting`` (``Decisions._decision_item`` for a decision) and the
deadline defaults (``PanzerCorps.defaults_help``) are theirs.

Every handler first runs the game's ``before_order`` (Dunkerque's hidden draw at the first
accepted order, 10.0(2)), as the family's own handle did before the answer or the phase's order.
The steps are built per game (``steps_of``): the rows read the game's own parameters and hooks."""
from __future__ import annotations

from pbem.core import orders as O
from pbem.core.orders import OrderError
from pbem.core.ruleset import Ctx
from pbem.core.scenario import Scenario
from pbem.core.state import GameState, copy_state
from pbem.core.forms import Form, core
from pbem.core.turn import Step, phase_steps
from pbem.games.panzer_corps import events as E
from pbem.games.panzer_corps.common import verb_args
from pbem.mechanics.movement import units_at

# the words that answer each kind of decision
ANSWERS = {"retreat": ("retreat",), "advance": ("advance", "no-advance"), "ex-loss": ("lose",),
           "stack-loss": ("lose",), "set-up": ("place",), "entry": ("place",), "bombardment": ("bombard",),
           "reinforcement": ("enter", "delay")}


def _then(run):
    """A handler: the game's ``before_order``, then ``run(rules, ctx, order)``."""
    def handler(ctx: Ctx, order: O.Order) -> None:
        ctx.rules.before_order(ctx)
        run(ctx.rules, ctx, order)
    return handler


def _end_combat(rules, ctx: Ctx, order: O.Order) -> None:
    """``end`` in a combat phase: the declarations close and the combats are resolved (9.1); while
    the attacker names the next combat (9.1(5)), the rest go in declaration order."""
    st = ctx.state
    if st.declarations_closed:
        if st.picking:
            return rules._rest_in_order(ctx)
        raise OrderError("the attacks of this phase are already declared", rules.p.declare_rule)
    ctx.emit(E.DeclarationsClosed(count=len(st.attacks)))
    rules._resolve(ctx)


def _attack(rules, ctx: Ctx, order: O.Order) -> None:
    if ctx.state.declarations_closed:
        raise OrderError("the attacks of this phase are already declared", rules.p.declare_rule)
    rules._declare(ctx, order)


def _placements(rules, st: GameState, sc: Scenario, d) -> list[O.Order]:
    """Set-up and entry: each unit on the least crowded legal hex, first in the listed order on a
    tie (spreads units over entry hexes where stacking is ignored, Compass 3.2(1))."""
    work = copy_state(st)
    out: list[O.Order] = []
    for uid in d.units:
        hexes = rules.setup_hexes(work, sc, work.units[uid], d.kind)
        if not hexes:
            break
        at = units_at(work)
        best = min(hexes, key=lambda h: (len(at.get(h, [])), hexes.index(h)))
        out.append(O.GameVerb(word="place", args=[uid, best]))
        work.units[uid].hex = best
    return out


def steps_of(rules) -> tuple[dict[str, Step], tuple[Step, ...]]:
    """The steps of ``rules`` (a PanzerCorps game): its phase steps by name, its interrupts."""

    def side(st, sc):
        return sc.sequence[st.phase].side

    def movement_rows(st, sc):
        item = {"side": side(st, sc), "kind": "movement", "rule": "8.0",
                "order": "move UNIT HEX ... (any number), then end"}
        notes = rules.stack_notes(st)
        if notes:                                   # 7.1: over-full hexes so far this phase
            item["options"] = notes
        return [item]

    def movement_default(st, sc, who):
        """7.1 (no 7.3): the moves that bring an over-full hex within the limit; end."""
        fixes = [] if rules.p.stack_removal else rules.stack_fixes(st, sc)[0]
        return [O.Move(unit=uid, path=list(path)) for uid, path in fixes] + [O.End()]

    def reinforcement_rows(st, sc):
        due = rules.due_reinforcements(st, sc)
        opts = []
        for uid in due:
            hexes = rules.reinforcement_hexes(st, sc, st.units[uid])
            opts.append(f"{uid}: {' '.join(hexes) if hexes else 'no legal hex now (forced delay, 10.0(4))'}")
        item = {"side": side(st, sc), "kind": "reinforcement", "rule": "10.0",
                "order": "enter UNIT HEX (any number), then end; units not entered wait (10.0(2))"}
        if due:
            item["units"] = due
            item["options"] = opts
        return [item]

    def combat_rows(st, sc):
        if st.picking:                              # 9.1(5): the attacker names the next combat
            left = [a for a in st.attacks if a.stage == "declared"]
            return [{"side": side(st, sc), "kind": "combat-order", "rule": rules.p.declare_rule,
                     "options": [f"{a.target}: {', '.join(a.attackers)}" for a in left],
                     "order": "resolve HEX (the combat to resolve next) | end (the rest in declaration order)"}]
        return [{"side": side(st, sc), "kind": "attack-declarations", "rule": rules.p.declare_rule,
                 "order": "attack HEX with UNIT ... (all attacks), then end"}]

    def decision_default(st, sc, who):
        d = st.decision
        if d.kind == "retreat":                     # 9.5: the first legal path
            return [O.Retreat(unit=d.units[0], path=list(d.options[0]))]
        if d.kind == "advance":                     # 9.6: none
            return [O.Advance(unit="-")]
        if d.kind in ("ex-loss", "stack-loss"):     # 9.4, 7.3: the weakest
            weakest = sorted(d.units, key=lambda uid: (st.units[uid].strength, uid))
            return [O.GameVerb(word="lose", args=weakest[:max(1, d.distance)])]
        if d.kind in ("set-up", "entry"):
            return _placements(rules, st, sc, d)
        if d.kind == "bombardment":                 # the strongest targets
            strongest = sorted(d.units, key=lambda uid: (-st.units[uid].strength, uid))
            return [O.GameVerb(word="bombard", args=strongest[:d.distance])]
        if d.kind == "reinforcement":               # 10.0: face-down units wait
            return [O.GameVerb(word="delay")]
        return []

    resolve_why = "resolve names the next combat to resolve, in a combat phase after the attacks are declared"
    steps = phase_steps(
        Step("movement", rule="8.0", waits=movement_rows, default=movement_default,
             sides=lambda st, sc: [side(st, sc)],     # the rows' stacking notes only when shown
             why={"attack": ("attacks are declared in the combat phase, after this movement phase ends ('end')",
                             "5.0"),
                  "enter": ("reinforcements enter when the game asks for them (10.0)", "10.0"),
                  "resolve": (resolve_why, rules.p.declare_rule)},
             verbs={"move": _then(lambda r, c, o: r._move(c, o)),
                    "end": _then(lambda r, c, o: r._end_phase(c))}),
        Step("reinforcement", rule="10.0", waits=reinforcement_rows, sides=lambda st, sc: [side(st, sc)],
             why={"resolve": (resolve_why, rules.p.declare_rule)},
             verbs={"enter": _then(lambda r, c, o: r._enter(c, o)),
                    "end": _then(lambda r, c, o: r._end_phase(c))}),
        Step("combat", rule=rules.p.declare_rule, waits=combat_rows,
             verbs={"attack": _then(_attack), "end": _then(_end_combat),
                    "resolve": _then(lambda r, c, o: r._choose(c, verb_args(o)))},
             offered=lambda st, sc, who: ("resolve", "end") if st.picking else ("attack", "resolve", "end"),
             why={"move": ("units move only in their own movement phase", "8.1(3)"),
                  "attack": ("the attacks of this phase are already declared", rules.p.declare_rule)}),
    )
    answer = _then(lambda r, c, o: r._answer(c, o))
    decision = Step("decision", rule=lambda st, sc: st.decision.rule, pending=lambda st, sc: st.decision is not None,
                    side=lambda st, sc: st.decision.side,
                    waits=lambda st, sc: [rules._decision_item(st, sc, st.decision)],
                    # the gate before every order: the decision's side, without its row (a set-up's
                    # row lists every unit's legal hexes)
                    sides=lambda st, sc: [st.decision.side],
                    verbs={w: answer for ws in ANSWERS.values() for w in ws},
                    offered=lambda st, sc, who: ANSWERS.get(st.decision.kind, ()),
                    choices=lambda st, sc, who: ANSWERS.get(st.decision.kind, ()),   # a placement's hexes
                    default=decision_default)
    return steps, (decision,)


def forms_of(rules) -> tuple[Form, ...]:
    """The order forms of ``rules`` (a PanzerCorps game), in HELP's order: the core verbs', then the
    family's own, each used when the game asks for it; a placement lists each unit's legal hexes."""

    def place_choices(st, sc, who):
        d = st.decision
        return [f"place {uid} HEX: {' '.join(rules.setup_hexes(st, sc, st.units[uid], d.kind)) or 'no legal hex now'}"
                for uid in d.units]

    return core() + (
        Form("place", "place UNIT HEX", "set-up or entry: a unit in one of its legal hexes (the game lists them)",
             choices=place_choices),
        Form("enter", "enter UNIT HEX", "reinforcement phase: a reinforcement comes in", rule="10.0"),
        Form("enter", "enter HEX [HEX ...] | delay", "face-down reinforcements: where they come in, or wait",
             rule="10.0", also=("delay",)),
        Form("resolve", "resolve HEX", "combat phase: the declared attack to resolve next", rule="9.1"),
        Form("lose", "lose UNIT [UNIT ...]", "an EX or stacking loss the game asks for"),
        Form("bombard", "bombard UNIT ...", "the targets of a naval bombardment, when the game asks"),
    )


def step_name(st: GameState, sc: Scenario) -> str:
    """Movement and reinforcement phases by name; any other phase is a combat phase (5.0)."""
    name = sc.sequence[st.phase].name
    return name if name in ("movement", "reinforcement") else "combat"
