"""The answers to the decisions of a fight: Ca (10.5), retreat (10.6), the losses of an
Ee (10.3) and the advance after combat (10.7); and how the game lists them (awaiting)."""
from __future__ import annotations

from pbem.core import orders as O
from pbem.core.orders import OrderError
from pbem.core.ruleset import Ctx, find_unit
from pbem.core.scenario import Scenario
from pbem.core.state import Decision
from pbem.games.crete import events as E
from pbem.games.crete.board import alive
from pbem.games.crete.combat import advance_options, counterattack, lose, retreats, safe_hexes
from pbem.games.crete.odds import TABLES
from pbem.games.crete.standing import standing_answer
from pbem.games.crete.state import CreteState, fight_of


def answer(ctx: Ctx, order: O.Order) -> None:
    """An order answering the decision the game waits for."""
    st, sc = ctx.state, ctx.sc
    d = st.decision
    assert d is not None
    f = fight_of(st)
    if ctx.side != d.side:
        raise OrderError(f"the game waits for {sc.side_name(d.side)} to answer a {d.kind} decision "
                         f"({', '.join(d.units)})", d.rule)
    word = order.word if isinstance(order, O.GameVerb) else order.__struct_config__.tag
    if d.kind in ("ca", "retreat") and isinstance(order, O.Retreat):
        if d.kind == "ca" and ["retreat"] not in d.options:
            raise OrderError("this force may not retreat; it must counterattack", "5.2")
        u = find_unit(ctx, order.unit, ctx.side)
        if u.id not in d.units:
            raise OrderError(f"{u.id} does not owe a retreat; the retreating force: {', '.join(d.units)}", "10.5")
        opts = safe_hexes(st, sc, u)
        if len(order.path) != 1 or order.path[0] not in opts:
            raise OrderError(f"{u.id} retreats one hex, to a safe hex: {', '.join(opts) or 'none'}", "10.6")
        ctx.emit(E.UnitRetreated(unit=u.id, path=list(order.path), chosen_by=ctx.side))
        retreats(ctx)
        return
    if d.kind == "ca" and word == "counterattack":
        args = [a.lower() if a.lower() in TABLES else a for a in order.args]
        args = [TABLES.get(a, a) for a in args]
        cands = [o for o in d.options if o[0] == "counterattack"]
        if not cands:
            raise OrderError("no counterattack of at least 1:3 is possible; the force must retreat", "10.5")
        if len(args) == 1 and len(cands[0]) == 3:
            hexes = sorted({o[1] for o in cands})
            if len(hexes) == 1:
                args = [hexes[0]] + args
        if ["counterattack"] + args not in cands:
            raise OrderError("choose one of: " + "; ".join(" ".join(o) for o in cands), "10.5")
        counterattack(ctx, ["counterattack"] + args)
        return
    if d.kind == "losses" and word == "lose":
        ids = [find_unit(ctx, x, ctx.side).id for x in order.args]
        if sorted(ids) not in [sorted(o) for o in d.options]:
            raise OrderError("lose one of these sets: " + "; ".join(" ".join(o) for o in d.options), "10.3")
        lose(ctx, ids)
        return
    if d.kind == "advance" and isinstance(order, O.Advance):
        if order.unit == "-":
            ctx.emit(E.AdvanceDeclined(index=f.index))
            ctx.emit(E.CombatFinished(index=f.index))
            return
        u = find_unit(ctx, order.unit, ctx.side)
        hexes = [o[1] for o in d.options if o[0] == u.id]
        h = order.path[0] if order.path else (hexes[0] if len(hexes) == 1 else "")
        if [u.id, h] not in d.options:
            raise OrderError("advance one of: " + "; ".join(" ".join(o) for o in d.options), "10.7")
        ctx.emit(E.UnitAdvanced(unit=u.id, path=[h]))
        f = fight_of(st)
        opts = advance_options(st, sc, f.victors, f.vacated)
        if opts:
            ctx.emit(E.DecisionRequired(side=d.side, decision="advance", combat=f.index,
                                        units=sorted({o[0] for o in opts}), options=opts, rule="10.7"))
        else:
            ctx.emit(E.CombatFinished(index=f.index))
        return
    wants = {"ca": "retreat UNIT HEX or counterattack [HEX] all-out|limited", "retreat": "retreat UNIT HEX",
             "losses": "lose UNIT ...", "advance": "advance UNIT [HEX] or no-advance"}[d.kind]
    raise OrderError(f"the game waits for {sc.side_name(d.side)}'s answer: {wants}", d.rule)


def decision_item(st: CreteState, sc: Scenario, d: Decision) -> dict:
    """What the game waits for while a decision is open (awaiting): the answers it takes."""
    item = {"side": d.side, "kind": d.kind, "units": list(d.units), "rule": d.rule}
    if d.kind == "ca":
        item["options"] = ca_lines(st, sc, d)
        item["order"] = "retreat UNIT HEX (the whole force retreats) | counterattack [HEX] all-out|limited"
        fight = st.crete.fight
        if fight is not None and alive(st, d.units):
            orders, pick, why = standing_answer(st, sc, fight, alive(st, d.units), d.options)
            said = ("standing orders " if len(orders) > 1 else "standing order ") + \
                " / ".join(f"'{o}'" for o in orders)
            if why:
                item["order"] += f" - {said} not applied: {why}"
            elif pick is not None:
                item["order"] += f" - {said} given after this Ca; it answers the next ones"
    elif d.kind == "retreat":
        item["options"] = [f"retreat {d.units[0]} {o[0]}" for o in d.options]
        item["order"] = "retreat UNIT HEX"
    elif d.kind == "losses":
        item["options"] = ["lose " + " ".join(o) for o in d.options]
        item["order"] = "lose UNIT ..."
    else:
        item["options"] = [f"advance {o[0]} {o[1]}" for o in d.options] + ["no-advance"]
        item["order"] = "advance UNIT HEX (one unit an order; again for more) | no-advance"
    return item


def ca_lines(st: CreteState, sc: Scenario, d: Decision) -> list[str]:
    """A Ca's choices as order lines: every safe retreat of every unit, and the counterattacks (10.5, 10.6)."""
    out = []
    for o in d.options:
        if o[0] == "retreat":
            for uid in d.units:
                u = st.units[uid]
                out += [f"retreat {uid} {h}" for h in safe_hexes(st, sc, u)]
        else:
            out.append(" ".join(o))
    return out
