"""Answers to what the game waits for: opportunity fire or pass (5.0, 9.3),
the railway bridge (11.0), command-point recovery (8.5), retreat or disrupt
(7.6, 7.7, 8.2) and advance after combat (7.6, 7.8).  A paused move or air
landing resumes where it stopped."""
from __future__ import annotations

from pbem.core import orders as O
from pbem.core.orders import OrderError
from pbem.core.ruleset import Ctx, find_unit
from pbem.games.red_devils import events as E
from pbem.games.red_devils.airborne import landing_continue
from pbem.games.red_devils.combat import combat_continue, retreat_options
from pbem.games.red_devils.opportunity import shoot, walk
from pbem.games.red_devils.state import Pending, RedDevilsState
from pbem.games.red_devils.terms import demolish, next_phase


def answer(ctx: Ctx, order: O.Order) -> None:
    """The order answering ``st.decision``, from the side it waits for."""
    st: RedDevilsState = ctx.state
    sc = ctx.sc
    d = st.decision
    assert d is not None
    if ctx.side != d.side:
        raise OrderError(f"the game waits for {sc.side_name(d.side)} to answer ({d.kind}, rule {d.rule})", d.rule)
    word = order.word if isinstance(order, O.GameVerb) else order.__struct_config__.tag
    args = order.args if isinstance(order, O.GameVerb) else []
    if d.kind == "opportunity-fire":
        return _answer_fire(ctx, word, args)
    if d.kind == "bridge":
        if word not in ("demolish", "spare"):
            raise OrderError("the game waits for the German answer: demolish | spare", "11.0")
        mv = st.pending
        demolish(ctx, word == "demolish")
        return _resume(ctx, mv)
    if d.kind == "recover":
        if word != "recover":
            raise OrderError(f"the game waits for: recover UNIT ... (at most {d.distance})", "8.5")
        chosen = [find_unit(ctx, x, "british", on_map=True).id for x in args]
        if len(set(chosen)) != len(chosen) or len(chosen) > d.distance:
            raise OrderError(f"name at most {d.distance} different units (command points this turn)", "8.5")
        for c in chosen:
            if c not in d.units:
                raise OrderError(f"{c} is not disrupted", "8.5")
        ctx.emit(E.UnitsRecovered(units=sorted(chosen)))
        return next_phase(ctx)
    a = st.attacks[d.combat]
    if d.kind == "retreat":
        if word == "disrupt":
            if d.distance != 0:
                raise OrderError(f"{d.units[0]} is already disrupted: it must retreat", "8.2")
            ctx.emit(E.UnitDisrupted(unit=d.units[0], reason=f"chose disruption instead of retreat "
                                                              f"({a.result} on {a.target})", rule="7.7"))
            return combat_continue(ctx)
        if not isinstance(order, O.Retreat):
            raise OrderError("the game waits for: retreat UNIT HEX HEX" + (" | disrupt" if d.distance == 0 else ""), "7.7")
        u = find_unit(ctx, order.unit, on_map=True)
        if u.id not in d.units or order.path not in d.options:
            raise OrderError(f"not a safe retreat for {d.units[0]}; legal: "
                             + "; ".join(" ".join(o) for o in d.options), "7.7")
        ctx.emit(E.UnitRetreated(unit=u.id, path=list(order.path), chosen_by=ctx.side))
        return combat_continue(ctx)
    if d.kind == "ad":
        if word == "disrupt" and a.stage == "attacker":
            for uid in list(a.to_retreat):
                ctx.emit(E.UnitDisrupted(unit=uid, reason=f"Ad on {a.target}: the attackers disrupt instead of "
                                                          "retreating", rule="7.6"))
            return combat_continue(ctx)
        if not isinstance(order, O.Retreat):
            raise OrderError("the game waits for: retreat UNIT HEX HEX (each adjacent attacker) | disrupt", "7.6")
        u = find_unit(ctx, order.unit, on_map=True)
        opts = retreat_options(st, sc, u) if u.id in a.to_retreat else []
        if order.path not in opts:
            raise OrderError(f"not a safe retreat for {u.id}; legal: " + "; ".join(" ".join(o) for o in opts), "7.7")
        ctx.emit(E.UnitRetreated(unit=u.id, path=list(order.path), chosen_by=ctx.side))
        return combat_continue(ctx)
    if d.kind in ("advance", "defender-advance"):
        if not isinstance(order, O.Advance):
            raise OrderError("the game waits for: advance UNIT [HEX ...] | no-advance", d.rule)
        if order.unit == "-":
            ctx.emit(E.AdvanceDeclined(index=d.combat))
        else:
            u = find_unit(ctx, order.unit, ctx.side, on_map=True)
            path = order.path or [next((o[1] for o in d.options if o[0] == u.id), "")]
            if [u.id] + path not in d.options:
                raise OrderError(f"{u.id} may not advance along {' '.join(path)}; options: "
                                 + "; ".join(" ".join(o) for o in d.options), "7.8")
            ctx.emit(E.UnitAdvanced(unit=u.id, path=path))
        return combat_continue(ctx)
    raise OrderError(f"unexpected decision {d.kind}")


def _answer_fire(ctx: Ctx, word: str, args: list[str]) -> None:
    """5.0, 5.2, 9.3: ``fire UNIT ...`` (some of the units asked) or ``pass``."""
    st: RedDevilsState = ctx.state
    d = st.decision
    mv = st.pending
    asked = [o[0] for o in d.options]
    if word == "pass":
        if args:
            raise OrderError("pass takes no arguments (it passes every unit asked)", "5.0")
        ctx.emit(E.OpportunityFirePassed(firers=asked, target=mv.unit, hex=mv.hex, by="answer"))
    elif word == "fire":
        if not args:
            raise OrderError(f"fire UNIT ...: name the firing units, some of {' '.join(asked)}", "5.0")
        chosen = []
        for x in args:
            u = find_unit(ctx, x, ctx.side, on_map=True)
            if u.id not in asked:
                raise OrderError(f"{u.id} may not fire now; asked: {' '.join(asked)}", "5.2")
            if u.id in chosen:
                raise OrderError(f"{u.id} is named twice", "5.2")
            chosen.append(u.id)
        mult = 2 if mv.context == "landing" else 1
        for i, f in enumerate(chosen):
            t = st.units[mv.unit]
            if t.eliminated or t.id in st.hit:
                break
            shoot(ctx, f, mv.unit, mv.hex, mult, mv.swim, by="answer" if i == 0 else "answer+")
        rest = [f for f in asked if f not in chosen]
        t = st.units[mv.unit]
        if rest and not t.eliminated and t.id not in st.hit:
            ctx.emit(E.OpportunityFirePassed(firers=rest, target=mv.unit, hex=mv.hex, by="answer+"))
    else:
        raise OrderError(f"the game waits for the answer to opportunity fire at {mv.unit} in {mv.hex}: "
                         f"fire UNIT ... (some of {' '.join(asked)}) | pass", "5.0")
    _resume(ctx, mv)


def _resume(ctx: Ctx, mv: Pending) -> None:
    """Carry on the paused landing (9.3) or move (5.0, 5.1, 11.0), on a copy of what it had left."""
    if mv.context == "landing":
        return landing_continue(ctx, mv.unit)
    mv = Pending(**{f: getattr(mv, f) for f in mv.__struct_fields__})
    walk(ctx, mv, [], mv.then)
