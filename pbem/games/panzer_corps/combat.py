"""Combat (9.x) of the family: declarations, strengths and odds, the CRT, the
results, retreats, exchanges and advances after combat, and the stacking
limit after them (7.3).

A mixin of ``PanzerCorps`` (family.py): it calls the hooks declared there
(``entry_forbidden``, ``zoc_blocked``, ``on_entered``, ``on_eliminated``) and
the phase's end (``_end_phase``).  The retreat search is pbem.mechanics.retreat.
"""
from __future__ import annotations

from pbem.core import orders as O
from pbem.core.orders import HEX_RE, OrderError
from pbem.core.ruleset import Ctx
from pbem.core.scenario import Scenario
from pbem.core.state import Attack, GameState, UnitState
from pbem.games.panzer_corps import events as E
from pbem.mechanics.odds import odds_column
from pbem.games.panzer_corps.params import GameParams
from pbem.mechanics.movement import stack_violations, units_at
from pbem.mechanics.retreat import retreat_paths


class Combat:
    p: GameParams

    # --- combat: declaration -----------------------------------------------------

    def _declare(self, ctx: Ctx, order: O.Attack) -> None:
        st, sc = ctx.state, ctx.sc
        grid = sc.board.grid
        if not grid.contains(order.target):
            raise OrderError(f"{order.target} is not on the map")
        enemies = [u for u in units_at(st).get(order.target, []) if u.side != ctx.side]
        if not enemies:
            raise OrderError(f"{order.target} holds no enemy unit")
        if any(a.target == order.target for a in st.attacks):
            raise OrderError(f"{order.target} is already attacked this phase; each defender once", "9.1(3)")
        defenders = enemies if self.p.disrupted_attackable else [d for d in enemies if not d.disrupted]
        if not defenders:
            raise OrderError(f"{order.target} holds a disrupted unit, which may not be attacked", "9.7(4)")
        seen = set()
        attackers = []
        for uid in order.attackers:
            u = self.unit(ctx, uid, ctx.side)
            if u.id in seen:
                raise OrderError(f"{u.id} is listed twice")
            seen.add(u.id)
            if u.attacked:
                raise OrderError(f"{u.id} has already been committed to an attack this phase", "9.1(3)")
            if u.disrupted:
                raise OrderError(f"{u.id} is disrupted and may not attack", "9.7(2)")
            if not grid.adjacent(u.hex, order.target):
                raise OrderError(f"{u.id} in {u.hex} is not adjacent to {order.target}", "9.0")
            blocked = sc.board.side_features(u.hex, order.target) & self.p.blocking_hexsides
            if blocked:
                raise OrderError(f"{u.id} in {u.hex} may not attack across the {sorted(blocked)[0]} "
                                 f"into {order.target}", "9.3")
            no_zoc = self.zoc_blocked(sc, ctx.side)
            if no_zoc is not None and no_zoc(u.hex, order.target):
                raise OrderError(f"{u.id}'s zone of control does not reach {order.target}, so it may not attack "
                                 f"there (6.2; a British entry hex, 3.2(3))", "6.2")
            attackers.append(u)
        att, dfn, mods = self.strengths(st, sc, attackers, defenders, order.target)
        col = odds_column(att, dfn, self.p.best_odds, self.p.worst_odds)
        if col is None:
            raise OrderError(f"odds of {att}:{dfn} are 1:3 or worse; such an attack is not allowed", "9.2(2)")
        if order.advance not in ("", "-") and order.advance not in seen:
            u = self.unit(ctx, order.advance, ctx.side)
            if u.id not in seen:
                raise OrderError(f"only an attacking unit may advance; {u.id} is not in this attack", "9.6(1)")
        more = []
        for g in order.advance_more:
            u = self.unit(ctx, g[0], ctx.side)
            if u.id not in seen:
                raise OrderError(f"only an attacking unit may advance; {u.id} is not in this attack", "9.6(1)")
            more.append([u.id] + list(g[1:]))
        for uid in order.attacker_retreat:
            if self.unit(ctx, uid, ctx.side).id not in seen:
                raise OrderError(f"'ar' names {uid}, which is not in this attack")
        ex_loss = ""
        if order.ex_loss:
            if "EX" not in self.p.result_codes:
                raise OrderError(f"{self.game} has no EX result; 'ex' does not apply", "9.4")
            ex_loss = self.unit(ctx, order.ex_loss, ctx.side).id
            if ex_loss not in seen:
                raise OrderError(f"'ex' names {ex_loss}, which is not in this attack", self.p.result_rules["EX"])
        ctx.emit(E.AttackDeclared(target=order.target, attackers=[u.id for u in attackers], retreat=list(order.retreat),
                                  attacker_retreat={self.unit(ctx, k).id: list(v) for k, v in order.attacker_retreat.items()},
                                  advance=order.advance if order.advance in ("", "-") else self.unit(ctx, order.advance).id,
                                  advance_path=list(order.advance_path), advance_more=more, ex_loss=ex_loss))

    def strengths(self, st: GameState, sc: Scenario, attackers: list[UnitState], defenders: list[UnitState],
                  target: str) -> tuple[int, int, list[str]]:
        """Attack and defence strength with the reasons for any change (9.2, 9.3)."""
        att = sum(u.strength for u in attackers)
        dfn = sum(u.strength for u in defenders)
        mods = []
        terr_name = sc.board.terrain.get(target, "")
        terr = sc.terrain.get(terr_name)
        doubled = []
        terrain_doubles = terr is not None and terr.defence > 1
        if terrain_doubles:
            doubled.append(f"defender in {terr_name} (9.3)")
        bp = sc.map.features.get("battle_position")
        if bp and target in bp.hexes and defenders:
            if self.p.battle_position_any_side:
                doubled.append("defender in a battle position (9.3)")
            elif all(d.side == bp.side for d in defenders):
                if terrain_doubles:
                    mods.append(f"battle position in {terr_name}: only the {terr_name} counts (9.3(3))")
                else:
                    doubled.append("British defender in a battle position (9.3(1))")
        if self.p.doubling_hexsides and attackers:
            crossed = [sorted(sc.board.side_features(u.hex, target) & self.p.doubling_hexsides) for u in attackers]
            if all(crossed):
                doubled.append(f"every attacker attacks across a {crossed[0][0].replace('_', ' ')} (9.3(1))")
        if doubled:
            dfn *= 2                          # doublings never compound (9.3(3); 9.3(2) in Dunkerque, Khar'kov)
            mods = [f"defence doubled: {doubled[0]}"] + mods
            once = "9.3(2)" if self.p.doubling_hexsides else "9.3"
            for extra in doubled[1:]:
                mods.append(f"also {extra}, but the defence is doubled only once ({once})")
        return att, dfn, mods

    # --- combat: the order of resolution (9.1(5)) -------------------------------------

    def _choose(self, ctx: Ctx, args: list[str]) -> None:
        """``resolve HEX``: the attacker names the declared combat to resolve next (9.1(5):
        any order).  The first one closes the declarations; after it the game waits for the
        next ``resolve HEX``, or ``end`` for the rest in declaration order."""
        st = ctx.state
        rule = self.p.declare_rule
        if len(args) != 1 or not HEX_RE.match(args[0]):
            raise OrderError("write: resolve HEX, the target of a declared attack", rule)
        h = args[0]
        left = [a.target for a in st.attacks if a.stage == "declared"]
        i = next((k for k, a in enumerate(st.attacks) if a.target == h), None)
        if i is None:
            raise OrderError(f"no attack on {h} is declared this phase; still to resolve: "
                             f"{', '.join(left) or 'none'}", rule)
        if st.attacks[i].stage != "declared":
            raise OrderError(f"the attack on {h} is already resolved; still to resolve: "
                             f"{', '.join(left) or 'none'}", rule)
        if not st.declarations_closed:
            ctx.emit(E.DeclarationsClosed(count=len(st.attacks)))      # no attack may be added now
        ctx.emit(E.CombatChosen(index=i, target=h))
        self._resolve(ctx)

    def _rest_in_order(self, ctx: Ctx) -> None:
        """``end`` after the attacker named combats: the rest in declaration order (9.1(5))."""
        st = ctx.state
        i = st.current
        ctx.emit(E.CombatChosen(index=i, target=st.attacks[i].target, in_order=True))
        self._resolve(ctx)

    # --- combat: resolution --------------------------------------------------------

    def _resolve(self, ctx: Ctx) -> None:
        """Resolve the declared attacks until a decision is needed (9.2): in declaration
        order by default; while the attacker names them (``resolve HEX``, 9.1(5)) only the
        one named, then the game waits for the next name."""
        st = ctx.state
        while st.result is None and st.decision is None:
            if st.current >= len(st.attacks):
                self._end_phase(ctx)
                return
            i = st.current
            a = st.attacks[i]
            if a.stage == "declared" and st.picking:
                return                                  # the attacker names the next combat
            if a.stage in ("declared", "chosen"):
                self._roll(ctx, i, a)
            elif a.stage in ("eliminate-defenders", "eliminate-attackers"):
                rule = self.p.result_rules["DE" if a.stage == "eliminate-defenders" else "AE"]
                for uid in list(a.to_retreat):
                    self._eliminate(ctx, uid, f"{a.result} in the attack on {a.target}", rule)
            elif a.stage == "retreat":
                self._retreats(ctx, i, a, defender=True)
            elif a.stage == "attacker-retreat":
                self._retreats(ctx, i, a, defender=False)
            elif a.stage in ("ex-attacker", "ex-defender"):
                self._exchange(ctx, i, a)
            elif a.stage == "advance":
                self._advance(ctx, i, a)
            elif a.stage == "done":
                if self._stack_check(ctx, i):
                    return
                ctx.emit(E.CombatFinished(index=i))

    def _roll(self, ctx: Ctx, i: int, a: Attack) -> None:
        st, sc = ctx.state, ctx.sc
        attackers = [st.units[x] for x in a.attackers if not st.units[x].eliminated and st.units[x].hex]
        defenders = [u for u in units_at(st).get(a.target, []) if u.side != ctx.side and u.id in a.defenders
                     and (self.p.disrupted_attackable or not u.disrupted)]
        if not attackers or not defenders:
            # An earlier combat changed the picture (e.g. the defender was eliminated).
            ctx.emit(E.CombatFinished(index=i))
            return
        att, dfn, mods = self.strengths(st, sc, attackers, defenders, a.target)
        col = odds_column(att, dfn, self.p.best_odds, self.p.worst_odds)
        if col is None:
            ctx.emit(E.CombatFinished(index=i))
            return
        die = ctx.dice.roll(sc.die)
        result = sc.crt.rows[str(die)][sc.crt.columns.index(col)]
        ctx.emit(E.CombatResolved(index=i, target=a.target, attackers=[u.id for u in attackers],
                                  defenders=[u.id for u in defenders], attack_strength=att, defence_strength=dfn,
                                  modifiers=mods, odds=col, rolls=[die], result=result))

    # --- combat: retreats (9.5) ------------------------------------------------------

    def _retreat_options(self, st: GameState, sc: Scenario, u: UnitState, a: Attack, defender: bool) -> list[list[str]]:
        """The legal retreats of ``u`` (9.5): each step one hex farther from the combat hex, so
        that it ends ``distance`` hexes away (our reading of 9.5(2)); no EZOC, no enemy, nothing
        it could not enter (9.5(3)), not across a blocking hexside (8.3(3)); an end hex with room,
        else one hex further (7.1, 9.5(2)); an empty end hex where stacking allows more than one
        unit and one exists (9.5(2))."""
        ezoc = self.zoc_against(st, sc, u.side)
        group = set(a.defenders if defender else a.attackers)
        at = units_at(st)

        def empty(h: str) -> bool:
            return all(o.id == u.id or o.id in group for o in at.get(h, []))

        return retreat_paths(st, sc.board.grid, u, u.hex, a.target, a.distance, ezoc=ezoc,
                             passable=lambda h: self.step_cost(sc, u.hex, h) is not None
                             and self.entry_forbidden(st, sc, u, h) is None,
                             room=lambda h: self.room(st, u.side, h, u.id),
                             crossing=(lambda x, y: not (sc.board.side_features(x, y) & self.p.blocking_hexsides))
                             if self.p.blocking_hexsides else None,
                             empty=empty if self.p.stacking[u.side] > 1 else None)

    def _retreats(self, ctx: Ctx, i: int, a: Attack, defender: bool) -> None:
        """Retreat the owing units one by one; stop at the first real choice.

        Units go in the order the result lists them, each seeing where the
        previous ones went.  A unit with no legal retreat is eliminated
        (9.5(3)); one with a single legal path takes it; otherwise the
        attacker's inline answer is used if legal, else the attacker is asked."""
        st, sc = ctx.state, ctx.sc
        attacker_side = ctx.state.units[a.attackers[0]].side
        for uid in list(a.to_retreat):
            u = st.units[uid]
            options = self._retreat_options(st, sc, u, a, defender)
            given = a.retreat if defender else a.attacker_retreat.get(uid, [])
            if not options:
                self._eliminate(ctx, uid, f"no legal retreat from {u.hex}", "9.5(3)")
            elif given and given in options:
                ctx.emit(E.UnitRetreated(unit=uid, path=list(given), chosen_by=attacker_side))
                self.on_entered(ctx, u, list(given), "retreat")
            elif len(options) == 1:
                ctx.emit(E.UnitRetreated(unit=uid, path=options[0], chosen_by="auto"))
                self.on_entered(ctx, u, list(options[0]), "retreat")
            else:
                ctx.emit(E.DecisionRequired(side=attacker_side, decision="retreat", combat=i, units=[uid],
                                            distance=a.distance, options=options, rule="9.5(1)"))
                return
            if st.result is not None:
                return

    # --- combat: exchanges (9.4) and advances (9.6) ------------------------------------

    def _exchange(self, ctx: Ctx, i: int, a: Attack) -> None:
        """EX: each side removes one unit that took part; no retreat, no advance (9.4)."""
        st = ctx.state
        rule = self.p.result_rules["EX"]
        attacking = a.stage == "ex-attacker"
        pool = [uid for uid in (a.attackers if attacking else a.defenders) if not st.units[uid].eliminated]
        if not pool:
            a.stage = "ex-defender" if attacking else "done"     # nothing left to remove on this side
            return
        side = st.units[pool[0]].side
        who = "attacker" if attacking else "defender"
        if len(pool) == 1:
            self._eliminate(ctx, pool[0], f"EX in the attack on {a.target}: the {who}'s only unit", rule)
        elif attacking and a.ex_loss in pool:
            self._eliminate(ctx, a.ex_loss, f"EX in the attack on {a.target}: chosen by {ctx.sc.side_name(side)}",
                            rule)
        else:
            ctx.emit(E.DecisionRequired(side=side, decision="ex-loss", combat=i, units=pool,
                                        options=[[uid] for uid in pool], rule=rule))

    def _advance_limit(self, st: GameState, side: str) -> int:
        return self.p.advance_units or self.p.stacking[side]

    def advance_options(self, st: GameState, sc: Scenario, a: Attack) -> list[list[str]]:
        """Who may advance where: [unit, hex] (and [unit, hex, hex] for a tank's
        second hex) (9.6).  Advance ignores EZOC (6.2)."""
        if any(u.hex == a.target and not u.eliminated for u in st.units.values()):
            return []
        if a.result == "EX":
            return []                                   # 9.6(1): no advance after an exchange
        out = []
        second: list[str] | None = None
        for uid in a.attackers:
            u = st.units[uid]
            if u.eliminated or u.hex is None or u.disrupted or not sc.board.grid.adjacent(u.hex, a.target):
                continue
            if not self.can_step(st, sc, u, u.hex, a.target):
                continue
            out.append([uid, a.target])
            if self.p.tank_second_hex and self.is_tank(sc, uid):
                if second is None:
                    second = self._second_hexes(st, sc, u, a.target)
                out += [[uid, a.target, h] for h in second if self.entry_forbidden(st, sc, u, h) is None]
        return out

    def _second_hexes(self, st: GameState, sc: Scenario, u: UnitState, first: str) -> list[str]:
        """Where a tank may go on from the vacated hex (9.6(3)); none if that hex is in an EZOC (9.6(4))."""
        if first in self.zoc_against(st, sc, u.side):
            return []
        at = units_at(st)
        out = []
        for h in sc.board.grid.neighbours(first):
            if h == u.hex or any(o.side != u.side for o in at.get(h, [])):
                continue
            if self.step_cost(sc, first, h) is None or sc.board.side_features(first, h) & self.p.blocking_hexsides:
                continue
            out.append(h)
        return out

    def _advance_problem(self, st: GameState, a: Attack, groups: list[list[str]], options: list[list[str]]) -> str | None:
        """Why a set of advances is not allowed (None if it is)."""
        side = st.units[a.attackers[0]].side
        limit = self._advance_limit(st, side)
        if len(groups) > limit:
            return f"at most {limit} unit(s) may advance (9.6(1))"
        ids = [g[0] for g in groups]
        if len(set(ids)) != len(ids):
            return "a unit is named twice"
        ends: dict[str, int] = {}
        for g in groups:
            if g not in options:
                return f"{g[0]} may not advance along {' '.join(g[1:])}"
            ends[g[-1]] = ends.get(g[-1], 0) + 1
        for h, n in ends.items():
            there = sum(1 for u in st.units.values() if u.hex == h and u.side == side and u.id not in ids)
            if there + n > self.p.stacking[side]:
                return f"{h} would hold more than {self.p.stacking[side]} unit(s) (7.0)"
        return None

    def _advance(self, ctx: Ctx, i: int, a: Attack) -> None:
        st, sc = ctx.state, ctx.sc
        options = self.advance_options(st, sc, a)
        if not options:
            ctx.emit(E.CombatFinished(index=i))
            return
        if a.advance == "-":
            ctx.emit(E.AdvanceDeclined(index=i))
            return
        if a.advance:
            groups = [[a.advance] + (a.advance_path or [a.target])] + \
                     [[g[0]] + (g[1:] or [a.target]) for g in a.advance_more]
            if self._advance_problem(st, a, groups, options) is None:
                self._do_advance(ctx, groups)
                return
        side = st.units[a.attackers[0]].side
        ctx.emit(E.DecisionRequired(side=side, decision="advance", combat=i,
                                    units=list(dict.fromkeys(o[0] for o in options)),
                                    options=options, rule="9.6(1)"))

    def _do_advance(self, ctx: Ctx, groups: list[list[str]]) -> None:
        st = ctx.state
        for g in groups:
            ctx.emit(E.UnitAdvanced(unit=g[0], path=list(g[1:])))
            self.on_entered(ctx, st.units[g[0]], list(g[1:]), "advance")
            if st.result is not None:
                return

    # --- losses -----------------------------------------------------------------------

    def _eliminate(self, ctx: Ctx, uid: str, reason: str, rule: str) -> None:
        """``uid`` is eliminated, then the game's points for it (``on_eliminated``)."""
        ctx.emit(E.UnitEliminated(unit=uid, reason=reason, rule=rule))
        self.on_eliminated(ctx, ctx.state.units[uid], rule)

    # --- stacking limits (7.1, 7.3) ---------------------------------------------------

    def _stack_check(self, ctx: Ctx, combat: int) -> bool:
        """Ask for removals where a hex holds more units than the limit; True if asked."""
        st = ctx.state
        for h, side, us in stack_violations(st, self.p.stacking):
            excess = len(us) - self.p.stacking[side]
            ctx.emit(E.DecisionRequired(side=side, decision="stack-loss", combat=combat,
                                        units=sorted(u.id for u in us), distance=excess, rule="7.3"))
            return True
        return False

