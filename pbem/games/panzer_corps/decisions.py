"""The answers to the game's decisions, and how each decision reads in what the game waits for.

A mixin of ``PanzerCorps`` (family.py): retreats (9.5) and advances (9.6)
after combat, EX and stacking losses (9.4, 7.3), set-up and entry
placements, the naval bombardment and face-down reinforcements (through the
hooks ``setup_hexes``, ``setup_answered``, ``hidden_reinforcement``,
``describe_decision``).  The steps, the phases' rows and the deadline defaults are in steps.py.
"""
from __future__ import annotations

from pbem.core import orders as O
from pbem.core.orders import OrderError
from pbem.core.ruleset import Ctx
from pbem.core.scenario import Scenario
from pbem.core.state import Decision, GameState
from pbem.games.panzer_corps import events as E
from pbem.games.panzer_corps.common import verb, verb_args
from pbem.games.panzer_corps.params import GameParams

# Decision kinds outside combat that are answered with a game verb, with the order to write.
DECISION_ORDERS = {
    "ex-loss": "lose UNIT",
    "stack-loss": "lose UNIT [UNIT ...]",
    "set-up": "place UNIT HEX",
    "entry": "place UNIT HEX",
    "bombardment": "bombard UNIT ...",
    "reinforcement": "enter HEX [HEX ...] | delay",
}


class Decisions:
    p: GameParams

    def _decision_item(self, st: GameState, sc: Scenario, d: Decision) -> dict:
        if d.kind in ("retreat", "advance"):
            a = st.attacks[d.combat]
            item = {"side": d.side, "kind": d.kind, "combat": a.target, "units": d.units, "rule": d.rule}
            if d.kind == "retreat":
                # One hex more than the result when every end hex holds a friend (7.1, 9.5(2)).
                item["distance"] = len(d.options[0]) if d.options else d.distance
                item["options"] = [" ".join(o) for o in d.options]
                item["order"] = "retreat UNIT HEX ..."
            else:
                item["options"] = [" ".join(o) for o in d.options]
                if self._advance_limit(st, d.side) > 1:
                    item["order"] = (f"advance UNIT [HEX [HEX]] [UNIT ...] (up to {self._advance_limit(st, d.side)} "
                                     f"units) | no-advance")
                else:
                    item["order"] = "advance UNIT [HEX ...] | no-advance"
            return item
        item = {"side": d.side, "kind": d.kind, "rule": d.rule, "order": DECISION_ORDERS.get(d.kind, "")}
        if d.combat >= 0 and d.combat < len(st.attacks):
            item["combat"] = st.attacks[d.combat].target
        if d.kind == "ex-loss":
            item["units"] = d.units
            item["options"] = list(d.units)
        elif d.kind == "stack-loss":
            h = st.units[d.units[0]].hex
            item["kind"] = f"stack-loss of {d.distance} unit(s) in {h}"
            item["units"] = d.units
            item["options"] = list(d.units)
        elif d.kind in ("set-up", "entry"):
            item["units"] = d.units
            item["options"] = [f"{uid}: {' '.join(self.setup_hexes(st, sc, st.units[uid], d.kind))}"
                               for uid in d.units]
        elif d.kind == "bombardment":
            item["kind"] = f"bombardment of {d.distance} unit(s)"
            item["options"] = list(d.units)
        elif d.kind == "reinforcement":
            item["kind"] = f"reinforcement of {d.distance} face-down unit(s)"
            item["options"] = [o[0] for o in d.options]
        return item

    # --- answers to decisions ---------------------------------------------------------

    def _answer(self, ctx: Ctx, order: O.Order) -> None:
        st, sc = ctx.state, ctx.sc
        d = st.decision
        assert d is not None
        if d.kind not in ("retreat", "advance"):
            self._answer_other(ctx, order, d)
            return
        a = st.attacks[d.combat]
        what = f"{sc.side_name(d.side)} to choose a {d.kind} after the attack on {a.target}"
        if ctx.side != d.side:
            raise OrderError(f"the game waits for {what}", d.rule)
        if d.kind == "retreat":
            if not isinstance(order, O.Retreat):
                raise OrderError(f"the game waits for {what}: retreat UNIT HEX ...", d.rule)
            u = self.unit(ctx, order.unit)
            if u.id not in d.units:
                raise OrderError(f"{u.id} does not owe a retreat; waiting for: {', '.join(d.units)}", d.rule)
            options = self._retreat_options(st, sc, u, a, u.side != d.side)
            if order.path not in options:
                shown = "; ".join(" ".join(o) for o in options)
                raise OrderError(f"{' '.join(order.path)} is not a legal retreat for {u.id} "
                                 f"({a.distance} hex(es) away from {a.target}, no EZOC, no enemy, an empty end hex "
                                 f"where possible); legal: {shown}", "9.5")
            ctx.emit(E.UnitRetreated(unit=u.id, path=list(order.path), chosen_by=ctx.side))
            self.on_entered(ctx, u, list(order.path), "retreat")
        else:
            if not isinstance(order, O.Advance):
                raise OrderError(f"the game waits for {what}: advance UNIT [HEX ...] or no-advance", d.rule)
            if order.unit == "-":
                ctx.emit(E.AdvanceDeclined(index=d.combat))
            else:
                groups = []
                for g in [[order.unit] + list(order.path)] + [list(x) for x in order.also]:
                    u = self.unit(ctx, g[0], ctx.side)
                    groups.append([u.id] + (g[1:] or [a.target]))
                why = self._advance_problem(st, a, groups, d.options)
                if why:
                    if len(groups) == 1 and why.startswith(f"{groups[0][0]} may not advance"):
                        why = f"{groups[0][0]} may not advance along {' '.join(groups[0][1:])}"
                    raise OrderError(f"{why}; options: " + "; ".join(" ".join(o) for o in d.options), "9.6")
                self._do_advance(ctx, groups)
        if st.result is None:
            self._resolve(ctx)

    def _answer_other(self, ctx: Ctx, order: O.Order, d: Decision) -> None:
        st, sc = ctx.state, ctx.sc
        what = f"{sc.side_name(d.side)} to choose {self.describe_decision(d.kind)}"
        usage = DECISION_ORDERS.get(d.kind, "")
        if ctx.side != d.side:
            raise OrderError(f"the game waits for {what}", d.rule)
        word, args = verb(order), verb_args(order)
        if d.kind in ("ex-loss", "stack-loss"):
            if word != "lose":
                raise OrderError(f"the game waits for {what}: {usage}", d.rule)
            want = 1 if d.kind == "ex-loss" else d.distance
            ids = [self.unit(ctx, x, ctx.side).id for x in args]
            if len(ids) != want or len(set(ids)) != len(ids):
                raise OrderError(f"name exactly {want} unit(s) among {', '.join(d.units)}", d.rule)
            for uid in ids:
                if uid not in d.units:
                    raise OrderError(f"{uid} is not among {', '.join(d.units)}", d.rule)
            if d.kind == "ex-loss":
                a = st.attacks[d.combat]
                self._eliminate(ctx, ids[0], f"EX in the attack on {a.target}: chosen by {sc.side_name(ctx.side)}",
                                d.rule)
            else:
                h = st.units[ids[0]].hex
                for uid in ids:
                    self._eliminate(ctx, uid, f"over the stacking limit in {h}", d.rule)
            if st.result is not None:
                return
            if d.combat >= 0:
                self._resolve(ctx)
            else:
                self._end_phase(ctx, refuse=False)
            return
        if d.kind in ("set-up", "entry"):
            if word != "place" or len(args) != 2:
                raise OrderError(f"the game waits for {what}: {usage}", d.rule)
            u = self.unit(ctx, args[0], ctx.side, on_map=False)
            if u.id not in d.units:
                raise OrderError(f"{u.id} is not to be placed now; still to place: {', '.join(d.units)}", d.rule)
            legal = self.setup_hexes(st, sc, u, d.kind)
            if args[1] not in legal:
                raise OrderError(f"{u.id} may not be set up in {args[1]}; legal: {' '.join(legal) or 'none'}", d.rule)
            ctx.emit(E.UnitSetUp(unit=u.id, hex=args[1], rule=d.rule))
            self.on_entered(ctx, u, [args[1]], "set-up")
            if st.decision is None and st.result is None:
                self.setup_answered(ctx, d.kind)
            return
        if d.kind == "bombardment":
            if word != "bombard":
                raise OrderError(f"the game waits for {what}: {usage}", d.rule)
            ids = [self.unit(ctx, x).id for x in args]
            if len(ids) != d.distance or len(set(ids)) != len(ids):
                raise OrderError(f"name exactly {d.distance} different Italian units within reach of the "
                                 f"bombardment: {', '.join(d.units)}", d.rule)
            for uid in ids:
                if uid not in d.units:
                    raise OrderError(f"{uid} may not be bombarded: only Italian units within two hexes of the "
                                     f"coast may (3.1(2)); eligible: {', '.join(d.units)}", "3.1(2)")
            ctx.emit(E.UnitsDisrupted(units=ids, reason="naval bombardment", rule=d.rule))
            self.setup_answered(ctx, d.kind)
            return
        if d.kind == "reinforcement":
            self.hidden_reinforcement(ctx, order)
            return
        raise OrderError(f"the game waits for {what}", d.rule)

