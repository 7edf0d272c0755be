"""Mirages' turn as steps (6, 7, 9; core/turn.py).  The Ops Phase belongs to both sides, so
its steps follow the game's own state (``FormationState.fm``), not the sequence: each is an
interrupt step read from it, first pending first - a combat's answers (retreat before combat
7.4.1.1, escalation 7.4.1 C), a paused move's reaction (6.5), the Admin Phase (9.2, 9.4), the
Initiative player's choice (6.2), a winning defender's Battle Victory bonus (7.4.3) and the
active formation's actions (7).  No new state: ``fm.combat``, ``fm.step``, ``fm.paused`` and
``fm.active`` already hold the pending decision (so no event and no state's bytes change).

The kernel's handle gates every order through them; the rows of ``awaiting`` and the
deadline defaults (``MiragesRules.defaults_help``) are theirs.  After every order the game
runs on by itself (``sequence.after_order``: an activation without APs ends, a reaction hands
back, a new cycle, the Admin Phase ...)."""
from __future__ import annotations

from pbem.core import orders as O
from pbem.core.ruleset import Ctx
from pbem.core.scenario import Scenario
from pbem.core.forms import Form, core, note
from pbem.core.turn import Step
from pbem.games.formation import actions, admin, bonus, choices, reaction, roster, sequence
from pbem.games.formation.board import gd
from pbem.games.formation.combat import combat_awaiting, handle_combat
from pbem.games.formation.state import FormationState, other


def _args(order: O.Order) -> list[str]:
    return list(order.args) if isinstance(order, O.GameVerb) else []


def _then_on(run):
    """A handler: ``run(ctx, order)``, then what follows by itself (sequence.after_order)."""
    def handler(ctx: Ctx, order: O.Order) -> None:
        run(ctx, order)
        sequence.after_order(ctx)
    return handler


def _combat_stage(stage: str):
    return lambda st, sc: st.fm.combat is not None and st.fm.combat.stage == stage


# --- a combat's answers (7.4.1) -------------------------------------------------------------------

RBC = Step("retreat before combat", rule="7.4.1.1", pending=_combat_stage("rbc"),
           waits=combat_awaiting, verbs={"rbc": _then_on(handle_combat)},
           default=lambda st, sc, side: [O.GameVerb(word="rbc", args=["no"])])           # no retreat
ESCALATE = Step("attack escalation", rule="7.4.1 C", pending=_combat_stage("escalate"),
                waits=combat_awaiting, verbs={"escalate": _then_on(handle_combat)},
                default=lambda st, sc, side: [O.GameVerb(word="escalate", args=["hasty"])])   # a hasty attack
# any other stage of an open combat: being resolved, nothing is asked
RESOLVING = Step("combat", rule="7.4", pending=lambda st, sc: st.fm.combat is not None,
                 waits=lambda st, sc: [], verbs={})


OPS = "Ops Phase choices"          # what the Ops Phase's steps call their choices (6.0)


# --- a paused move: the other side may react (6.5) ----------------------------------------------

def _paused_rows(st: FormationState, sc: Scenario) -> list[dict]:
    p = st.fm.paused
    return [{"side": p.side, "kind": "reaction", "rule": "6.5", "at": p.at, "units": list(p.units),
             "formations": list(p.formations), "leaving": p.leaving, "rest": list(p.rest),
             "order": "react FORMATION | pass (or doctrine reaction ...)"}]


PAUSED = Step("reaction", rule="6.5.1", pending=lambda st, sc: st.fm.step == "paused",
              waits=lambda st, sc: _paused_rows(st, sc) if st.fm.paused is not None else [],
              sides=lambda st, sc: [st.fm.paused.side] if st.fm.paused is not None else [],
              verbs={w: _then_on(lambda ctx, o: reaction.answer(ctx, o.word, _args(o))) for w in ("react", "pass")},
              default=lambda st, sc, side: [O.GameVerb(word="pass")], choices=("react",), title=OPS)


# --- the Admin Phase (9) ---------------------------------------------------------------------------

def _admin_rows(st: FormationState, sc: Scenario) -> list[dict]:
    s = st.fm.admin_side
    if not s:
        return []
    return [{"side": s, "kind": "admin", "rule": "9.2, 9.4", "todo": admin.admin_todo(st, sc, s),
             "reinforcements": admin.due_reinforcements(st, sc, s),
             "order": "schwerpunkt FORMATION | enter UNIT HEX [HEX ...], then end"}]


def _admin_default(st: FormationState, sc: Scenario, side: str) -> list[O.Order]:
    """9.4, 13.1.3: every due unit enters where it does not overstack (admin.default_entries); a
    side whose Admin orders are then all given is done by itself (admin_step), so "end" is only
    added while something is left (the Schwerpunkt, a unit with no room)."""
    entries, all_in = admin.default_entries(st, sc, side)
    out: list[O.Order] = list(entries)
    if not all_in or "schwerpunkt" in admin.admin_todo(st, sc, side) or not entries:
        out.append(O.End())
    return out


# ``sides``: the gate before every order reads the side a step waits for, not its row (the Admin
# Phase's to-do list and reinforcements, the formations able to activate)
ADMIN = Step("admin", rule="9", pending=lambda st, sc: st.fm.step == "admin", waits=_admin_rows,
             sides=lambda st, sc: [st.fm.admin_side] if st.fm.admin_side else [],
             verbs={"schwerpunkt": _then_on(lambda ctx, o: admin.place_schwerpunkt(ctx, _args(o))),
                    "enter": _then_on(lambda ctx, o: actions.enter(ctx, _args(o))),
                    "end": _then_on(lambda ctx, o: admin.admin_end(ctx))},
             default=_admin_default, choices=("schwerpunkt",), title="Admin Phase choices")


# --- the Initiative player's choice (6.2, 6.3) -----------------------------------------------------

def _choices(st: FormationState, sc: Scenario) -> list[str]:
    fm = st.fm
    s = fm.initiative
    opts = ["activate"]
    if not fm.by_transfer and sequence.activations_left(st, sc, other(s)) \
            and not (fm.transfer_side == other(s) and fm.transfers >= gd(sc).max_transfers_in_row):
        opts.append("transfer")             # 6.2: not past the scenario's transfers in a row
    if fm.by_transfer or not sequence.activations_left(st, sc, other(fm.initiative)):
        opts.append("end")
    return opts


def _initiative_rows(st: FormationState, sc: Scenario) -> list[dict]:
    fm = st.fm
    if not fm.initiative:
        return []
    left = sequence.activations_left(st, sc, fm.initiative)
    order = " | ".join("activate FORMATION" if w == "activate" else w for w in _choices(st, sc))
    return [{"side": fm.initiative, "kind": "initiative", "rule": "6.2", "cycle": fm.cycle, "formations": left,
             "options": [f"formations able to activate: {', '.join(left) or 'none'}"], "order": order}]


def _initiative_default(st: FormationState, sc: Scenario, side: str) -> list[O.Order]:
    """End the Ops Phase when allowed, else transfer when allowed, else activate the first formation able to."""
    opts = _choices(st, sc)
    if "end" in opts:
        return [O.End()]
    if "transfer" in opts:
        return [O.GameVerb(word="transfer")]
    left = sequence.activations_left(st, sc, side)
    return [O.GameVerb(word="activate", args=[left[0]])] if left else []


# The three words are offered; whether a transfer or an end is allowed now is for the rules to say
# (6.1.2, 6.2, 6.3, in sequence.py), as a move's legality is; the row and the default read _choices.
INITIATIVE = Step("initiative", rule="6.2", pending=lambda st, sc: st.fm.step == "ops-choose",
                  waits=_initiative_rows, sides=lambda st, sc: [st.fm.initiative] if st.fm.initiative else [],
                  verbs={"activate": _then_on(lambda ctx, o: sequence.activate_order(ctx, _args(o))),
                         "transfer": _then_on(lambda ctx, o: sequence.transfer(ctx)),
                         "end": _then_on(lambda ctx, o: sequence.end_ops(ctx))},
                  default=_initiative_default, choices=("activate",), title=OPS)


# --- the active formation's actions (7), a winning defender's bonus (7.4.3) ----------------------

ACTION_WORDS = ("move", "screen", "refit", "improve", "seize", "attack", "end")


def _action(ctx: Ctx, order: O.Order) -> None:
    ctx.rules._action(ctx, order.word if isinstance(order, O.GameVerb) else order.__struct_config__.tag,
                      order, _args(order))


def _acting(st: FormationState) -> bool:
    return st.fm.step == "actions" and st.fm.active is not None


def _actions_rows(st: FormationState, sc: Scenario) -> list[dict]:
    a = st.fm.active
    item = {"side": a.side, "kind": "reaction actions" if a.reaction else "actions", "rule": "7",
            "formation": a.formation, "ap": a.ap,
            "order": "move UNIT[+UNIT] HEX ... | screen UNIT HEX | refit UNIT | improve HEX | seize HEX | "
                     "attack HEX with UNIT ... [hasty|regular|prepared] | end"}
    if a.bonus:
        item["bonus"] = {"ap": a.bonus, "units": list(a.bonus_units)}
    return [item]


BONUS = Step("battle victory bonus", rule="7.4.3", pending=lambda st, sc: _acting(st) and st.fm.active.defender,
             waits=lambda st, sc: bonus.awaiting(st),
             verbs={w: _then_on(_action) for w in ACTION_WORDS + ("bonus",)},
             default=lambda st, sc, side: [O.GameVerb(word="bonus", args=["pass"])],   # the bonus unspent
             choices=("move",), title=OPS)
def _not_an_action(st: FormationState, sc: Scenario, word: str) -> tuple[str, str]:
    a = st.fm.active
    return (f"{a.formation} is active ({a.ap} AP left): its actions are move | screen | refit | improve | seize | "
            "attack, or end to stop the activation", "7.1")


ACTIONS = Step("actions", rule="7.1", pending=lambda st, sc: _acting(st), waits=_actions_rows,
               sides=lambda st, sc: [st.fm.active.side],
               verbs={w: _then_on(_action) for w in ACTION_WORDS}, why=_not_an_action, choices=("move",), title=OPS)
# the Ops Phase between two steps (a new cycle, the End of Turn): nothing is asked
IDLE = Step("ops", rule="6", pending=lambda st, sc: True, waits=lambda st, sc: [], verbs={})

INTERRUPTS = (RBC, ESCALATE, RESOLVING, PAUSED, ADMIN, INITIATIVE, BONUS, ACTIONS, IDLE)


# --- the order forms (HELP lists them in this order; core/forms.py) ------------------------------------
# First, during a side's activation, the active formation and its units' costs (roster.py, 5.5.1).
FORMS = (
    note(roster.activation_lines),
    Form("activate", "activate FORMATION | transfer | end", "the Initiative player: act, give the initiative, or "
         "(after a transfer) end the Ops Phase", rule="6.2, 6.3", also=("transfer", "end"),
         choices=choices.activate_choices),
    Form("move", rule="7.3", text="move UNIT[+UNIT...] HEX ...    a Movement Action of a unit or stack, hex by hex "
         "(1 AP, 7.3)", choices=choices.action_choices),
    Form("screen", "screen UNIT[+UNIT...] HEX", "screen movement from one EZOC into another", rule="7.3.4"),
    Form("refit", rule="7.5, 7.6, 7.3.6", also=("improve", "seize"),
         text="refit UNIT | improve HEX | seize HEX    refit (7.5), Improved Defense (7.6), victory location (7.3.6)"),
    Form("attack", "attack HEX with UNIT ... [hasty|regular|prepared] [hold|withdraw]", "a Combat Action",
         rule="7.4"),
    Form("rbc", "rbc HEX ... | rbc no | escalate KIND", "answers in a combat", rule="7.4.1.1, 7.4.1 C",
         also=("escalate",)),
    Form("bonus", "bonus pass | bonus refit UNIT | bonus improve", "a winning defender's bonus AP, or any action "
         "above with the units that won", rule="7.4.3"),
    Form("react", "react FORMATION | pass", "answer a move that may trigger your reaction", rule="6.5",
         also=("pass",), choices=choices.react_choices),
    Form("doctrine", "doctrine reaction|snafu|rbc|combat TEXT", "standing orders applied without asking",
         rule="6.5, 5.2, 7.4"),
    Form("schwerpunkt", "schwerpunkt FORMATION | enter UNIT HEX [HEX ...]", "Admin Phase", rule="9.2, 9.4",
         also=("enter",), choices=choices.admin_choices),
    Form("end", "end", "end the activation (or reaction), or your Admin Phase orders"),
    *core("secret", "unveil", "press"),
)
