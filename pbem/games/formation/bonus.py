"""A winning defender's Battle Victory bonus (7.4.3).

The side with fewer hits wins the battle; its units that fought, in command and not
static, get one bonus AP (two with the Schwerpunkt) to spend at once on any Action
(7.0): a move or a screen move, a refit, an Improved Defense, seizing a victory
location, an attack (the second AP may also escalate it, or pay a second Action).  A
winning attacker spends them within its activation (actions.pay).  A winning defender
gets a short activation of its own (``Activation.defender``) that interrupts the
attacker's: bonus APs only, only the winners, and its moves trigger no reaction (the
text allows a reaction to the attacker's bonus only).  When the APs are spent or
passed, or no winner can act, ``BonusActionsEnded`` hands back to the interrupted
activation.

Orders meanwhile: the actions themselves, ``bonus pass`` or ``end`` (the rest is lost),
``bonus refit UNIT`` and ``bonus improve`` (the winners' hex).  Standing order:
``doctrine combat ... bonus pass|refit|improve|ask``: pass; refit the disrupted winners,
then dig in with an AP left (our default use); dig in; or wait for the answer (ask, the
default).  Deadline default: ``bonus pass``.
"""
from __future__ import annotations

from pbem.core.orders import OrderError
from pbem.core.ruleset import Ctx, find_unit
from pbem.games.formation import actions
from pbem.games.formation.board import alive
from pbem.games.formation.combat import doctrine_of
from pbem.games.formation.sequence import end_activation
from pbem.games.formation.state import FormationState

ORDERS = ("move UNIT[+UNIT] HEX ... | screen UNIT HEX | refit UNIT | improve HEX | seize HEX | "
          "attack HEX with UNIT ... | bonus pass")


def standing(ctx: Ctx) -> None:
    """Right after the defender's Battle Victory: its standing order spends the bonus, or
    the game waits for its answer."""
    st = ctx.state
    act = st.fm.active
    use = doctrine_of(st, act.side, "combat").get("bonus", "ask")
    if use == "ask":
        return
    if use == "refit":
        for u in [u for u in act.bonus_units if st.units[u].disrupted and alive(st.units[u])]:
            if act.bonus > 0:
                _try(ctx, actions.refit_unit, u)
    if use in ("refit", "improve") and act.bonus > 0:
        _try(ctx, actions.dig_in, _winners_hex(st))
    if st.fm.active is act and act.bonus > 0:
        end_activation(ctx, "standing order")


def _try(ctx: Ctx, action, arg) -> None:
    """A standing order's action where the rules allow it, else nothing (the AP stays)."""
    try:
        action(ctx, arg)
    except OrderError:
        pass


def _winners_hex(st: FormationState) -> str:
    act = st.fm.active
    return next((st.units[u].hex for u in act.bonus_units if alive(st.units[u])), "")


def answer(ctx: Ctx, args: list[str]) -> None:
    """``bonus pass | bonus refit UNIT | bonus improve`` during a winning defender's bonus."""
    actions.must_act(ctx)
    st = ctx.state
    if not st.fm.active.defender:
        raise OrderError("a bonus order answers a winning defender's Battle Victory; an attacker spends its bonus "
                         "APs with its formation's actions", "7.4.3")
    word = args[0].lower() if args else ""
    if word == "pass" and len(args) == 1:
        end_activation(ctx, "pass")
    elif word == "refit" and len(args) == 2:
        actions.refit_unit(ctx, find_unit(ctx, args[1], ctx.side, on_map=True).id)
    elif word == "improve" and len(args) == 1:
        actions.dig_in(ctx, _winners_hex(st))
    else:
        raise OrderError(f"the winners' bonus: {ORDERS} | bonus refit UNIT | bonus improve", "7.4.3")


def can_act(st: FormationState) -> bool:
    return any(alive(st.units[u]) for u in st.fm.active.bonus_units)


def awaiting(st: FormationState) -> list[dict]:
    a = st.fm.active
    return [{"side": a.side, "kind": "battle victory bonus", "rule": "7.4.3", "formation": a.formation, "ap": 0,
             "units": list(a.bonus_units), "bonus": {"ap": a.bonus, "units": list(a.bonus_units)},
             "order": f"{ORDERS} (only {', '.join(a.bonus_units)}: {a.bonus} bonus AP, at once; no reaction)"}]
