"""Panzer Corps family (panzer-corps.txt): El Alamein and its sister games.

One engine, per-game parameters in ``GameParams`` and small hooks.  Rule
numbers refer to the section of the game named in the parameters.
"""
from __future__ import annotations

from msgspec import Struct

from .. import events as E
from .. import orders as O
from ..orders import OrderError
from ..scenario import Scenario
from ..state import Attack, Decision, GameState, Result, UnitState
from .base import Ctx, Ruleset, apply_secret
from .common import check_path, enemy_zoc, odds_column, retreat_paths, units_at


class GameParams(Struct, frozen=True):
    game: str
    stacking: dict[str, int]                 # side -> units per hex (7.0)
    result_codes: frozenset[str]
    first_turn_halved: str = ""              # side whose MA is halved on turn 1 (El Alamein 8.4)
    disrupted_attackable: bool = False       # 9.7(4): False in El Alamein; True in Operation Compass
    advance_units: int = 1                   # how many attackers may advance (9.6(1))
    best_odds: int = 6                       # 9.2(1)
    worst_odds: int = 2                      # 9.2(2): 1:3 or worse is not allowed


GAMES: dict[str, GameParams] = {
    "el-alamein": GameParams(
        game="el-alamein",
        stacking={"axis": 1, "british": 1},  # 7.0 no stacking
        result_codes=frozenset({"AE", "AR", "DR1", "DR2", "DR3", "DE"}),  # 9.4
        first_turn_halved="british",         # 8.4
    ),
}


def _attack_strength(u: UnitState) -> int:
    return u.strength


class PanzerCorps(Ruleset):
    ruleset_version = "1"

    def __init__(self, params: GameParams):
        self.p = params
        self.game = params.game
        self.result_codes = params.result_codes

    # --- setting up -----------------------------------------------------

    def new_state(self, sc: Scenario, game_id: str) -> GameState:
        st = GameState(game_id=game_id, scenario_id=sc.id, game=sc.game)
        for u in sc.units:
            st.units[u.id] = UnitState(id=u.id, side=u.side, hex=u.hex, strength=u.strength, ma=u.ma)
        return st

    def initial_events(self, sc: Scenario) -> list[E.Event]:
        first = sc.sequence[0]
        return [E.PhaseStarted(turn=1, phase=0, side=first.side, name=first.name)]

    def lint(self, sc: Scenario) -> list[str]:
        errs = []
        v = sc.victory
        for key in ("objective_hexes", "alam_halfa_positions"):
            for h in v.get(key, []):
                if not sc.board.grid.contains(h):
                    errs.append(f"victory.{key}: hex {h} is not on the map")
        for name in sc.map.features:
            if name not in ("road", "battle_position"):
                errs.append(f"map.features.{name}: not a feature the {self.game} rules know")
        for u in sc.units:
            if u.side not in self.p.stacking:
                errs.append(f"units[{u.id}]: side {u.side!r} is not a side of {self.game}")
        return errs

    # --- reducer ----------------------------------------------------------

    def apply(self, st: GameState, ev: E.Event, sc: Scenario) -> None:
        rolls = getattr(ev, "rolls", None)
        if rolls:
            st.scripted_pos += len(rolls)
        match ev:
            case E.PhaseStarted():
                st.turn, st.phase = ev.turn, ev.phase
                st.attacks = []
                st.declarations_closed = False
                st.current = 0
                st.decision = None
                for u in st.units.values():
                    u.moved = u.attacked = u.defended = False
            case E.UnitMoved():
                u = st.units[ev.unit]
                u.hex = ev.path[-1]
                u.moved = True
            case E.UnitBrokeOff():
                u = st.units[ev.unit]
                u.hex, u.gone, u.moved = None, "broke-off", True
            case E.AttackDeclared():
                st.attacks.append(Attack(target=ev.target, attackers=list(ev.attackers), retreat=list(ev.retreat),
                                         attacker_retreat=dict(ev.attacker_retreat), advance=ev.advance,
                                         advance_path=list(ev.advance_path)))
                for a in ev.attackers:
                    st.units[a].attacked = True
                for u in st.units.values():
                    if u.hex == ev.target and not u.eliminated:
                        u.defended = True
            case E.DeclarationsClosed():
                st.declarations_closed = True
            case E.CombatResolved():
                a = st.attacks[ev.index]
                a.result, a.defenders = ev.result, list(ev.defenders)
                if ev.result == "AR":
                    a.stage, a.to_retreat, a.distance = "attacker-retreat", list(ev.attackers), 1
                elif ev.result.startswith("DR"):
                    a.stage, a.to_retreat, a.distance = "retreat", list(ev.defenders), int(ev.result[2:])
                elif ev.result == "DE":
                    a.stage, a.to_retreat = "eliminate-defenders", list(ev.defenders)
                elif ev.result == "AE":
                    a.stage, a.to_retreat = "eliminate-attackers", list(ev.attackers)
                else:
                    a.stage = "done"
            case E.DecisionRequired():
                st.decision = Decision(side=ev.side, kind=ev.decision, combat=ev.combat, units=list(ev.units),
                                       distance=ev.distance, options=[list(o) for o in ev.options], rule=ev.rule)
            case E.UnitRetreated():
                u = st.units[ev.unit]
                u.hex = ev.path[-1]
                u.disrupted = True             # 9.5(4), 9.7(1)
                self._owed_done(st, ev.unit)
            case E.UnitEliminated():
                u = st.units[ev.unit]
                u.hex, u.eliminated, u.disrupted = None, True, False
                self._owed_done(st, ev.unit)
            case E.UnitAdvanced():
                st.units[ev.unit].hex = ev.path[-1]
                st.attacks[st.current].stage = "done"
                st.decision = None
            case E.AdvanceDeclined():
                st.attacks[ev.index].stage = "done"
                st.decision = None
            case E.CombatFinished():
                st.attacks[ev.index].stage = "finished"
                st.current = ev.index + 1
            case E.UnitsRecovered():
                for uid in ev.units:
                    st.units[uid].disrupted = False
            case E.GameEnded():
                st.result = Result(winner=ev.winner, reason=ev.reason, rule=ev.rule)
                st.decision = None
            case E.SeedRevealed():
                st.seed = ev.seed
            case E.SecretRecorded() | E.SecretRevealed():
                apply_secret(st, ev)
            case E.OrderGiven():
                pass
            case _:
                raise ValueError(f"{self.game}: no reducer for {type(ev).__name__}")

    @staticmethod
    def _owed_done(st: GameState, uid: str) -> None:
        if not st.attacks or st.current >= len(st.attacks):
            return
        a = st.attacks[st.current]
        if uid in a.to_retreat:
            a.to_retreat.remove(uid)
            if not a.to_retreat:
                a.stage = {"retreat": "advance", "eliminate-defenders": "advance"}.get(a.stage, "done")
        if st.decision and uid in st.decision.units:
            # The answer ends this decision; units still owing a retreat are
            # looked at afresh (their options may have changed).
            st.decision = None

    # --- what the game waits for -----------------------------------------

    def awaiting(self, st: GameState, sc: Scenario) -> list[dict]:
        if st.result is not None or st.phase < 0:
            return []
        if st.decision is not None:
            d = st.decision
            a = st.attacks[d.combat]
            item = {"side": d.side, "kind": d.kind, "combat": a.target, "units": d.units, "rule": d.rule}
            if d.kind == "retreat":
                # One hex more than the result when every end hex holds a friend (7.1, 9.5(2)).
                item["distance"] = len(d.options[0]) if d.options else d.distance
                item["options"] = [" ".join(o) for o in d.options]
                item["order"] = "retreat UNIT HEX ..."
            else:
                item["options"] = [" ".join(o) for o in d.options]
                item["order"] = "advance UNIT [HEX ...] | no-advance"
            return [item]
        ph = sc.sequence[st.phase]
        if ph.name == "movement":
            return [{"side": ph.side, "kind": "movement", "rule": "8.0",
                     "order": "move UNIT HEX ... (any number), then end"}]
        return [{"side": ph.side, "kind": "attack-declarations", "rule": "9.1(5)",
                 "order": "attack HEX with UNIT ... (all attacks), then end"}]

    def default_orders(self, st: GameState, sc: Scenario, side: str) -> list[str]:
        """Deadline defaults: no further moves or attacks this phase; a pending
        retreat takes the first legal path in the listed order; no advance."""
        for item in self.awaiting(st, sc):
            if item["side"] != side:
                continue
            if item["kind"] in ("movement", "attack-declarations"):
                return ["end"]
            if item["kind"] == "retreat":
                return [f"retreat {item['units'][0]} {item['options'][0]}"]
            if item["kind"] == "advance":
                return ["no-advance"]
        return []

    # --- orders ------------------------------------------------------------

    def handle(self, ctx: Ctx, order: O.Order) -> None:
        st, sc = ctx.state, ctx.sc
        if st.result is not None:
            raise OrderError(f"the game is over: {sc.side_name(st.result.winner)} won ({st.result.reason})")
        if st.decision is not None:
            self._answer(ctx, order)
            return
        ph = sc.sequence[st.phase]
        if ctx.side != ph.side:
            raise OrderError(f"it is the {sc.side_name(ph.side)} {ph.name} phase of turn {st.turn}; "
                             f"the game waits for {sc.side_name(ph.side)}", "5.0")
        if isinstance(order, (O.Retreat, O.Advance)):
            raise OrderError(f"no {order.__struct_config__.tag} is pending; the game waits for "
                             f"{sc.side_name(ph.side)} to play the {ph.name} phase")
        if ph.name == "movement":
            if isinstance(order, O.Move):
                self._move(ctx, order)
            elif isinstance(order, O.End):
                self._end_phase(ctx)
            else:
                raise OrderError("attacks are declared in the combat phase, after this movement phase ends ('end')", "5.0")
        else:
            if isinstance(order, O.Move):
                raise OrderError("units move only in their own movement phase", "8.1(3)")
            if st.declarations_closed:
                raise OrderError("the attacks of this phase are already declared", "9.1(5)")
            if isinstance(order, O.Attack):
                self._declare(ctx, order)
            elif isinstance(order, O.End):
                ctx.emit(E.DeclarationsClosed(count=len(st.attacks)))
                self._resolve(ctx)

    # movement ---------------------------------------------------------------

    def unit(self, ctx: Ctx, uid: str, side: str | None = None) -> UnitState:
        st = ctx.state
        u = st.units.get(uid)
        if u is None:
            low = {k.lower(): k for k in st.units}
            if uid.lower() in low:
                u = st.units[low[uid.lower()]]
        if u is None:
            raise OrderError(f"unknown unit {uid!r}")
        if side is not None and u.side != side:
            raise OrderError(f"{u.id} is not a {ctx.sc.side_name(side)} unit")
        if u.eliminated:
            raise OrderError(f"{u.id} has been eliminated")
        if u.hex is None:
            raise OrderError(f"{u.id} is not on the map")
        return u

    def movement_allowance(self, st: GameState, u: UnitState) -> int:
        if st.turn == 1 and u.side == self.p.first_turn_halved:
            return u.ma // 2                 # 8.4 (fractions dropped: our reading)
        return u.ma

    def step_cost(self, sc: Scenario, a: str, b: str) -> int | None:
        t = sc.terrain.get(sc.board.terrain.get(b, ""))
        if t is None or t.impassable:
            return None
        return t.move_cost                   # 8.3; roads cost the terrain under them (8.3(7))

    def room(self, st: GameState, side: str, h: str, moving: str = "") -> bool:
        here = [u for u in units_at(st).get(h, []) if u.side == side and u.id != moving]
        return len(here) < self.p.stacking[side]

    def _move(self, ctx: Ctx, order: O.Move) -> None:
        st, sc = ctx.state, ctx.sc
        u = self.unit(ctx, order.unit, ctx.side)
        if u.moved:
            raise OrderError(f"{u.id} has already moved this phase", "8.1(2)")
        if u.disrupted:
            raise OrderError(f"{u.id} is disrupted and may not move", "9.7(2)")
        ma = self.movement_allowance(st, u)
        ezoc = enemy_zoc(st, sc.board, u.side)

        def can_end(h: str) -> str | None:
            if not self.room(st, u.side, h, u.id):
                return f"{h} already holds a friendly unit; no stacking at the end of a move"
            return None

        # 7.1 / 4.2(2): a unit breaking off ends its move off the map, so the
        # edge hex it leaves from may hold a friendly unit (it only passes through).
        mp = check_path(st, sc, u, order.path, ma=ma, ezoc=ezoc,
                        step_cost=lambda a, b: self.step_cost(sc, a, b),
                        can_end=(lambda h: None) if order.off else can_end)
        if order.off:
            self._break_off(ctx, u, order.path, mp, ma, ezoc)
            return
        if not order.path:
            raise OrderError("a move needs at least one hex")
        ctx.emit(E.UnitMoved(unit=u.id, path=list(order.path), mp=mp, ma=ma))

    def _break_off(self, ctx: Ctx, u: UnitState, path: list[str], mp: int, ma: int, ezoc: set[str]) -> None:
        st, sc = ctx.state, ctx.sc
        v = sc.victory
        edge = v.get("break_edge", "")
        if not edge or u.side != v.get("break_side"):
            raise OrderError("units may not leave the map", "8.1(5)")
        last = path[-1] if path else u.hex
        if not sc.board.grid.is_edge(last, edge):
            raise OrderError(f"{last} is not on the {edge} map edge; only from there may a unit break off", "4.2(2)")
        if last in ezoc:
            raise OrderError(f"{last} is in an enemy zone of control: a unit there may not break off", "4.2(2)")
        if mp + 1 > ma:
            raise OrderError(f"breaking off costs 1 MP and {u.id} has {ma - mp} left", "4.2(2)")
        if path:
            ctx.emit(E.UnitMoved(unit=u.id, path=list(path), mp=mp, ma=ma))
        ctx.emit(E.UnitBrokeOff(unit=u.id, hex=last, edge=edge))
        ctx.emit(E.GameEnded(winner=u.side, reason=f"{u.id} broke off the {edge} map edge at {last}", rule="4.2(1)"))

    # combat -----------------------------------------------------------------

    def _declare(self, ctx: Ctx, order: O.Attack) -> None:
        st, sc = ctx.state, ctx.sc
        grid = sc.board.grid
        if not grid.contains(order.target):
            raise OrderError(f"{order.target} is not on the map")
        defenders = [u for u in units_at(st).get(order.target, []) if u.side != ctx.side]
        if not defenders:
            raise OrderError(f"{order.target} holds no enemy unit")
        if any(a.target == order.target for a in st.attacks):
            raise OrderError(f"{order.target} is already attacked this phase; each defender once", "9.1(3)")
        if not self.p.disrupted_attackable and any(d.disrupted for d in defenders):
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
            attackers.append(u)
        att, dfn, mods = self.strengths(st, sc, attackers, defenders, order.target)
        col = odds_column(att, dfn, self.p.best_odds, self.p.worst_odds)
        if col is None:
            raise OrderError(f"odds of {att}:{dfn} are 1:3 or worse; such an attack is not allowed", "9.2(2)")
        if order.advance not in ("", "-") and order.advance not in seen:
            u = self.unit(ctx, order.advance, ctx.side)
            if u.id not in seen:
                raise OrderError(f"only an attacking unit may advance; {u.id} is not in this attack", "9.6(1)")
        for uid in order.attacker_retreat:
            if self.unit(ctx, uid, ctx.side).id not in seen:
                raise OrderError(f"'ar' names {uid}, which is not in this attack")
        ctx.emit(E.AttackDeclared(target=order.target, attackers=[u.id for u in attackers], retreat=list(order.retreat),
                                  attacker_retreat={self.unit(ctx, k).id: list(v) for k, v in order.attacker_retreat.items()},
                                  advance=order.advance if order.advance in ("", "-") else self.unit(ctx, order.advance).id,
                                  advance_path=list(order.advance_path)))

    def strengths(self, st: GameState, sc: Scenario, attackers: list[UnitState], defenders: list[UnitState],
                  target: str) -> tuple[int, int, list[str]]:
        """Attack and defence strength with the reasons for any change (9.2, 9.3)."""
        att = sum(_attack_strength(u) for u in attackers)
        dfn = sum(u.strength for u in defenders)
        mods = []
        terr_name = sc.board.terrain.get(target, "")
        terr = sc.terrain.get(terr_name)
        doubled = []
        if terr is not None and terr.defence > 1:
            doubled.append(f"defender in {terr_name} (9.3)")
        bp = sc.map.features.get("battle_position")
        if bp and target in bp.hexes and defenders and all(d.side == bp.side for d in defenders):
            if terr is not None and terr.defence > 1:
                mods.append(f"battle position in {terr_name}: only the {terr_name} counts (9.3(3))")
            else:
                doubled.append("British defender in a battle position (9.3(1))")
        if doubled:
            dfn *= 2                          # doublings never compound (9.3(3))
            mods = [f"defence doubled: {doubled[0]}"] + mods
        return att, dfn, mods

    def _resolve(self, ctx: Ctx) -> None:
        """Resolve declared attacks in order until a decision is needed (9.2)."""
        st = ctx.state
        while st.result is None and st.decision is None:
            if st.current >= len(st.attacks):
                self._end_phase(ctx)
                return
            i = st.current
            a = st.attacks[i]
            if a.stage == "declared":
                self._roll(ctx, i, a)
            elif a.stage in ("eliminate-defenders", "eliminate-attackers"):
                rule = "9.4(4)" if a.stage == "eliminate-defenders" else "9.4(1)"
                for uid in list(a.to_retreat):
                    ctx.emit(E.UnitEliminated(unit=uid, reason=f"{a.result} in the attack on {a.target}", rule=rule))
            elif a.stage == "retreat":
                self._retreats(ctx, i, a, defender=True)
            elif a.stage == "attacker-retreat":
                self._retreats(ctx, i, a, defender=False)
            elif a.stage == "advance":
                self._advance(ctx, i, a)
            elif a.stage == "done":
                ctx.emit(E.CombatFinished(index=i))

    def _roll(self, ctx: Ctx, i: int, a: Attack) -> None:
        st, sc = ctx.state, ctx.sc
        attackers = [st.units[x] for x in a.attackers if not st.units[x].eliminated and st.units[x].hex]
        defenders = [u for u in units_at(st).get(a.target, []) if u.side != ctx.side]
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

    def _retreat_options(self, st: GameState, sc: Scenario, u: UnitState, a: Attack, defender: bool) -> list[list[str]]:
        ezoc = enemy_zoc(st, sc.board, u.side)
        return retreat_paths(st, sc, u, u.hex, a.target, a.distance, ezoc=ezoc,
                             passable=lambda h: self.step_cost(sc, u.hex, h) is not None,
                             room=lambda h: self.room(st, u.side, h, u.id))

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
                ctx.emit(E.UnitEliminated(unit=uid, reason=f"no legal retreat from {u.hex}", rule="9.5(3)"))
            elif given and given in options:
                ctx.emit(E.UnitRetreated(unit=uid, path=list(given), chosen_by=attacker_side))
            elif len(options) == 1:
                ctx.emit(E.UnitRetreated(unit=uid, path=options[0], chosen_by="auto"))
            else:
                ctx.emit(E.DecisionRequired(side=attacker_side, decision="retreat", combat=i, units=[uid],
                                            distance=a.distance, options=options, rule="9.5(1)"))
                return

    def advance_options(self, st: GameState, sc: Scenario, a: Attack) -> list[list[str]]:
        """Who may advance where: [unit, hex] pairs (9.6).  Advance ignores EZOC (6.2)."""
        if any(u.hex == a.target and not u.eliminated for u in st.units.values()):
            return []
        out = []
        for uid in a.attackers:
            u = st.units[uid]
            if u.eliminated or u.hex is None or u.disrupted or not sc.board.grid.adjacent(u.hex, a.target):
                continue
            out.append([uid, a.target])
        return out

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
            path = a.advance_path or [a.target]
            if [a.advance] + path in options:
                ctx.emit(E.UnitAdvanced(unit=a.advance, path=path))
                return
        side = st.units[a.attackers[0]].side
        ctx.emit(E.DecisionRequired(side=side, decision="advance", combat=i, units=[o[0] for o in options],
                                    options=options, rule="9.6(1)"))

    def _answer(self, ctx: Ctx, order: O.Order) -> None:
        st, sc = ctx.state, ctx.sc
        d = st.decision
        assert d is not None
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
        else:
            if not isinstance(order, O.Advance):
                raise OrderError(f"the game waits for {what}: advance UNIT [HEX ...] or no-advance", d.rule)
            if order.unit == "-":
                ctx.emit(E.AdvanceDeclined(index=d.combat))
            else:
                u = self.unit(ctx, order.unit, ctx.side)
                path = order.path or [a.target]
                if [u.id] + path not in d.options:
                    raise OrderError(f"{u.id} may not advance along {' '.join(path)}; options: "
                                     + "; ".join(" ".join(o) for o in d.options), "9.6")
                ctx.emit(E.UnitAdvanced(unit=u.id, path=path))
        self._resolve(ctx)

    # phases and victory -----------------------------------------------------

    def _end_phase(self, ctx: Ctx) -> None:
        st, sc = ctx.state, ctx.sc
        ph = sc.sequence[st.phase]
        if ph.name == "combat":
            back = sorted(u.id for u in st.units.values() if u.side == ph.side and u.disrupted and not u.eliminated)
            if back:
                ctx.emit(E.UnitsRecovered(units=back))        # 9.7(3)
            if self._victory_after_combat(ctx, ph.side):
                return
        nxt = st.phase + 1
        turn = st.turn
        if nxt >= len(sc.sequence):
            if turn >= sc.turns:
                v = sc.victory
                ctx.emit(E.GameEnded(winner=v.get("default_winner", ""),
                                     reason=f"turn {turn} ended without an Axis victory", rule="4.2(4)"))
                return
            nxt, turn = 0, turn + 1
        p = sc.sequence[nxt]
        ctx.emit(E.PhaseStarted(turn=turn, phase=nxt, side=p.side, name=p.name))

    def _victory_after_combat(self, ctx: Ctx, side: str) -> bool:
        st, sc = ctx.state, ctx.sc
        v = sc.victory
        if side != v.get("axis_check_after"):
            return False
        goal = set(v.get("objective_hexes", [])) | set(v.get("alam_halfa_positions", []))
        holders = sorted((u.hex, u.id) for u in st.units.values()
                         if u.side != side and u.hex in goal and not u.eliminated)
        if holders:
            h, uid = holders[0]
            rule = "4.1(2)" if h in v.get("alam_halfa_positions", []) else "4.1(1)"
            ctx.emit(E.GameEnded(winner=st.units[uid].side,
                                 reason=f"{uid} holds {sc.board.label(h)} at the end of the British combat phase",
                                 rule=rule))
            return True
        return False
