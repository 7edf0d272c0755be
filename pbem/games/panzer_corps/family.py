"""Panzer Corps family (panzer-corps.txt): El Alamein, Dunkerque, Khar'kov and
Operation Compass.

One engine for the four games.  What the rulebook sets per game is a value in
``GameParams`` (stacking limits, result types, which terrain and which
hexsides double a defender, hexside costs, tank advances, the entry cost of
reinforcements, ...); what a game adds on top (set-up steps, hidden or timed
reinforcements, victory) is a small hook a game module overrides:

    el_alamein.py        break-off and objective hexes (4.1, 4.2)
    dunkerque.py         the face-down "R" draw, connecting lines, evacuation (4.x, 10.0)
    kharkov.py           Soviet set-up, reinforcement phases, city control, railroads (3.0, 4.x, 10.0)
    operation_compass.py Italian set-up, naval bombardment, British entry, footholds (3.x, 4.x)

Rule numbers refer to the section of the game named in the parameters; where
the games number a rule differently the number comes from the parameters.
"""
from __future__ import annotations

from msgspec import Struct

from pbem.games.panzer_corps import events as E
from pbem.core import orders as O
from pbem.core.orders import OrderError
from pbem.core.scenario import Scenario
from pbem.core.state import Attack, Decision, GameState, Result, UnitState
from pbem.core.reduce import no_reducer
from pbem.games.words import classic
from pbem.core.ruleset import Ctx, Ruleset, find_unit
from pbem.games.panzer_corps.common import (between_enemies, check_path, enemy_zoc, odds_column, retreat_paths, stack_violations,
                     units_at)


class GameParams(Struct, frozen=True):
    game: str
    stacking: dict[str, int]                 # side -> units per hex (7.0)
    result_codes: frozenset[str]             # 9.4
    result_rules: dict[str, str] = {}        # "AE" | "AR" | "C" | "EX" | "DR" | "DE" -> its rule number (9.4(n))
    first_turn_halved: str = ""              # side whose MA is halved on turn 1 (El Alamein 8.4)
    disrupted_attackable: bool = False       # 9.7(4): False except in Operation Compass
    advance_units: int = 1                   # how many attackers may advance; 0 = up to the stacking limit (9.6(1))
    tank_second_hex: bool = False            # 9.6(3)/(4): a tank may advance one hex more
    tank_types: frozenset[str] = frozenset()  # unit types that count as tanks for 9.6(3)
    doubling_terrain: frozenset[str] = frozenset()   # 9.3: terrain doubling a defender (the linter checks the scenario)
    battle_position_any_side: bool = False   # 9.3: a battle position doubles any defender (Compass), not only its owner
    hexside_costs: dict[str, int] = {}       # extra MP to cross a hexside feature (8.3)
    doubling_hexsides: frozenset[str] = frozenset()  # 9.3(1): doubles when every attacker attacks across one
    blocking_hexsides: frozenset[str] = frozenset()  # no move, no attack, no ZOC across (Compass cliffs)
    line_features: dict[str, int] = {}       # hex features a unit moves along at a fixed MP cost (Khar'kov railroads)
    lines_ignore_hexsides: bool = False      # moving along a line feature pays no hexside cost (Khar'kov 8.3(5))
    reinforcement_mp: int = 0                # MP a reinforcement has spent by entering (Dunkerque 10.0(5))
    declare_rule: str = "9.1(5)"             # where the rulebook says all attacks are declared first
    best_odds: int = 6                       # 9.2(1)
    worst_odds: int = 2                      # 9.2(2): 1:3 or worse is not allowed


def result_rules(*codes: str) -> dict[str, str]:
    return {c: f"9.4({i})" for i, c in enumerate(codes, start=1)}


def verb(order: O.Order) -> str:
    """The order word: the struct tag, or for a game's own word (GameVerb) the word itself."""
    tag = order.__struct_config__.tag
    return getattr(order, "word", tag) if tag == "game-verb" else tag


def verb_args(order: O.Order) -> list[str]:
    return list(getattr(order, "args", []))


# Decision kinds outside combat that are answered with a game verb, with the order to write.
DECISION_ORDERS = {
    "ex-loss": "lose UNIT",
    "stack-loss": "lose UNIT [UNIT ...]",
    "set-up": "place UNIT HEX",
    "entry": "place UNIT HEX",
    "bombardment": "bombard UNIT ...",
    "reinforcement": "enter HEX [HEX ...] | delay",
}


class PanzerCorps(Ruleset):
    """The family engine; each game is a subclass that sets ``params`` (its values
    of the shared rules) and overrides the hooks below for what it adds."""
    verbs = frozenset({"place", "enter", "delay", "lose", "bombard"})   # set-up (place), reinforcements (enter | delay), EX and stacking losses (lose), naval bombardment (bombard)
    defaults_help = (                       # mailed to the players: what a missed deadline does
        "no further moves or attacks this phase; a pending retreat takes the first legal path "
        "in the listed order; no advance; an EX or stacking loss takes the weakest unit(s); "
        "set-up places each unit in its first legal hex; the bombardment takes the strongest "
        "targets; face-down and timed reinforcements wait (10.0).")
    ruleset_version = "1"
    params: GameParams

    def __init__(self):
        self.p = type(self).params
        self.game = self.p.game
        self.result_codes = self.p.result_codes

    # ===================================================================
    # Hooks: a game module overrides what its rules add.
    # ===================================================================

    def setup_events(self, st: GameState, sc: Scenario) -> list[E.Event]:
        """Events after the first PhaseStarted at game creation (e.g. the first set-up decision)."""
        return []

    def waiting_label(self, sc: Scenario, uid: str) -> str:
        """Status of a unit that starts off the map."""
        return ""

    def initial_control(self, sc: Scenario) -> dict[str, str]:
        return {}

    def before_order(self, ctx: Ctx) -> None:
        """Runs before every rules order (Dunkerque's hidden draw at the first one)."""

    def on_phase_started(self, ctx: Ctx) -> None:
        """Runs after a PhaseStarted (reinforcement decisions, empty phases skipped)."""

    def on_entered(self, ctx: Ctx, u: UnitState, hexes: list[str], how: str) -> None:
        """A unit entered ``hexes`` (how: move, retreat, advance, reinforcement, set-up)."""

    def on_eliminated(self, ctx: Ctx, u: UnitState, rule: str) -> None:
        """A unit was eliminated (points)."""

    def victory_after_combat(self, ctx: Ctx, side: str) -> bool:
        """Checked at the end of ``side``'s combat phase; True if the game ended."""
        return False

    def game_over(self, ctx: Ctx) -> None:
        """The last turn is over: emit the victory determination and GameEnded."""
        raise NotImplementedError

    def entry_forbidden(self, st: GameState, sc: Scenario, u: UnitState, h: str) -> tuple[str, str] | None:
        """A hex ``u`` may never enter, with the reason and rule (Compass 3.2(3))."""
        return None

    def zoc_blocked(self, sc: Scenario, owner_side: str):
        """Predicate (a, b) -> True if the ZOC of ``owner_side``'s unit in a does not reach b."""
        if not self.p.blocking_hexsides:
            return None
        board = sc.board
        blocking = self.p.blocking_hexsides
        return lambda a, b: bool(board.side_features(a, b) & blocking)

    def setup_hexes(self, st: GameState, sc: Scenario, u: UnitState, kind: str) -> list[str]:
        """Legal set-up hexes for ``u`` in set-up step ``kind``."""
        return []

    def setup_answered(self, ctx: Ctx, kind: str) -> None:
        """A set-up step is complete: start the next one (or let play begin)."""

    def reinforcement_hexes(self, st: GameState, sc: Scenario, u: UnitState) -> list[str]:
        """Where a reinforcement may be placed now (10.0(3)/(4))."""
        return []

    def due_reinforcements(self, st: GameState, sc: Scenario) -> list[str]:
        """Units that may enter in this reinforcement phase."""
        return []

    def hidden_reinforcement(self, ctx: Ctx, order: O.Order) -> None:
        raise OrderError("this game has no face-down reinforcements")

    def lint_game(self, sc: Scenario) -> list[str]:
        return []

    def known_features(self) -> set[str]:
        return {"road", "battle_position"}

    def describe_decision(self, kind: str) -> str:
        return {"ex-loss": "which of its units to remove for the EX result",
                "stack-loss": "which units to remove to meet the stacking limit",
                "set-up": "where to set up its units", "entry": "where its units enter",
                "bombardment": "the targets of the naval bombardment",
                "reinforcement": "where its face-down reinforcements enter"}.get(kind, kind)

    # ===================================================================
    # Setting up
    # ===================================================================

    def new_state(self, sc: Scenario, game_id: str) -> GameState:
        st = GameState(game_id=game_id, scenario_id=sc.id, game=sc.game)
        for u in sc.units:
            st.units[u.id] = UnitState(id=u.id, side=u.side, hex=u.hex, strength=u.strength, ma=u.ma)
            if u.hex is None:
                st.units[u.id].waiting = self.waiting_label(sc, u.id)
        st.control = self.initial_control(sc)
        return st

    def initial_events(self, sc: Scenario) -> list[E.Event]:
        evs = super().initial_events(sc)
        st = self.new_state(sc, "")
        for ev in evs:
            self.apply(st, ev, sc)
        return evs + self.setup_events(st, sc)

    def lint(self, sc: Scenario) -> list[str]:
        errs = []
        v = sc.victory
        for key in ("objective_hexes", "alam_halfa_positions"):
            for h in v.get(key, []):
                if not sc.board.grid.contains(h):
                    errs.append(f"victory.{key}: hex {h} is not on the map")
        known = self.known_features()
        for name in sc.map.features:
            if name not in known:
                errs.append(f"map.features.{name}: not a feature the {self.game} rules know")
        sides_known = set(self.p.hexside_costs) | self.p.doubling_hexsides | self.p.blocking_hexsides
        for i, hs in enumerate(sc.map.hexsides):
            if hs.feature not in sides_known:
                errs.append(f"map.hexsides[{i}]: {hs.feature!r} is not a hexside feature of {self.game} "
                            f"(known: {', '.join(sorted(sides_known)) or 'none'})")
        present = {hs.feature for hs in sc.map.hexsides}
        for feat in sorted(sides_known - present):
            errs.append(f"map.hexsides: no {feat} hexside, though {self.game}'s terrain has them (8.3)")
        for feat in sorted(self.p.line_features):
            if feat not in sc.map.features:
                errs.append(f"map.features.{feat}: missing; {self.game}'s map has them (8.3)")
        for name, t in sc.terrain.items():
            doubles = t.defence > 1
            if self.p.doubling_terrain and doubles != (name in self.p.doubling_terrain):
                want = "doubles" if name in self.p.doubling_terrain else "does not double"
                errs.append(f"terrain.{name}: defence {t.defence}, but in {self.game} it {want} a defender (9.3)")
        for u in sc.units:
            if u.side not in self.p.stacking:
                errs.append(f"units[{u.id}]: side {u.side!r} is not a side of {self.game}")
        return errs + self.lint_game(sc)

    # ===================================================================
    # Reducer
    # ===================================================================

    def reduce(self, st: GameState, ev: E.Event, sc: Scenario) -> None:
        # after the core reducer (pbem.core.reduce): only what this family adds
        match ev:
            case E.PhaseStarted():
                st.attacks = []
                st.declarations_closed = False
                st.current = 0
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
                declared = [u.id for u in st.units.values()
                            if u.hex == ev.target and not u.eliminated and u.side != st.units[ev.attackers[0]].side]
                st.attacks.append(Attack(target=ev.target, attackers=list(ev.attackers), retreat=list(ev.retreat),
                                         attacker_retreat=dict(ev.attacker_retreat), advance=ev.advance,
                                         advance_path=list(ev.advance_path),
                                         advance_more=[list(g) for g in ev.advance_more], ex_loss=ev.ex_loss,
                                         defenders=declared))
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
                elif ev.result == "EX":
                    a.stage = "ex-attacker"
                else:                                          # C (contact): nothing happens
                    a.stage = "done"
            case E.UnitRetreated():
                u = st.units[ev.unit]
                u.hex = ev.path[-1]
                u.disrupted = True             # 9.5(4), 9.7(1)
                self._owed_done(st, ev.unit)
            case E.UnitEliminated():
                u = st.units[ev.unit]
                u.hex, u.eliminated, u.disrupted = None, True, False
                self._ex_done(st, ev.unit)
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
            case E.SecretRecorded():
                if ev.side == "referee":
                    st.extra[f"sealed:{ev.name}"] = f"{ev.salt} {ev.payload}"
            case E.SecretRevealed():
                st.extra.pop(f"sealed:{ev.name}", None)
            case E.HiddenDraw():
                # The host's copy names the units; a copy without them (never replayed by the
                # engine) still marks the draw as made.
                st.extra[f"draw:{ev.name}"] = " ".join(f"{t}:{u}" for t, u in zip(ev.slots, ev.units)) or "?"
            case E.UnitSetUp():
                u = st.units[ev.unit]
                u.hex, u.waiting = ev.hex, ""
                d = st.decision
                if d is not None and ev.unit in d.units:
                    d.units.remove(ev.unit)
                    if not d.units:
                        st.decision = None
            case E.ReinforcementEntered():
                u = st.units[ev.unit]
                u.hex, u.waiting, u.entered_turn = ev.hex, "", st.turn
                if ev.pinned:
                    u.pinned_turn = st.turn
                d = st.decision
                if d is not None and d.kind == "reinforcement":
                    d.distance -= 1
                    if d.distance <= 0:
                        st.decision = None
            case E.ReinforcementDelayed():
                if st.decision is not None and st.decision.kind == "reinforcement":
                    st.decision = None
            case E.BombardmentRolled():
                pass
            case E.UnitsDisrupted():
                for uid in ev.units:
                    st.units[uid].disrupted = True
                if st.decision is not None and st.decision.kind == "bombardment":
                    st.decision = None
            case E.PointsScored():
                st.score[ev.side] = st.score.get(ev.side, 0) + ev.points
                if ev.mark:
                    st.extra[ev.mark] = str(int(st.extra.get(ev.mark, "0")) + ev.points)
            case E.HexControlled():
                st.control[ev.hex] = ev.side
            case E.ConnectingLine():
                u = st.units.get(ev.subject)
                if u is not None:               # a unit's line (Dunkerque 4.1): shown with its status
                    u.marks = list(u.marks) + [f"line to {ev.to}" if ev.traced else "cut off"]
            case _:
                no_reducer(self.game, ev)

    @staticmethod
    def _owed_done(st: GameState, uid: str) -> None:
        if st.decision and uid in st.decision.units and st.decision.combat < 0:
            st.decision = None
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

    @staticmethod
    def _ex_done(st: GameState, uid: str) -> None:
        if not st.attacks or st.current >= len(st.attacks):
            return
        a = st.attacks[st.current]
        if a.stage == "ex-attacker" and uid in a.attackers:
            a.stage = "ex-defender"
        elif a.stage == "ex-defender" and uid in a.defenders:
            a.stage = "done"

    # ===================================================================
    # What the game waits for
    # ===================================================================

    def awaiting(self, st: GameState, sc: Scenario) -> list[dict]:
        if st.result is not None or st.phase < 0:
            return []
        if st.decision is not None:
            return [self._decision_item(st, sc, st.decision)]
        ph = sc.sequence[st.phase]
        if ph.name == "movement":
            return [{"side": ph.side, "kind": "movement", "rule": "8.0",
                     "order": "move UNIT HEX ... (any number), then end"}]
        if ph.name == "reinforcement":
            due = self.due_reinforcements(st, sc)
            opts = []
            for uid in due:
                hexes = self.reinforcement_hexes(st, sc, st.units[uid])
                opts.append(f"{uid}: {' '.join(hexes) if hexes else 'no legal hex now (forced delay, 10.0(4))'}")
            item = {"side": ph.side, "kind": "reinforcement", "rule": "10.0",
                    "order": "enter UNIT HEX (any number), then end; units not entered wait (10.0(2))"}
            if due:
                item["units"] = due
                item["options"] = opts
            return [item]
        return [{"side": ph.side, "kind": "attack-declarations", "rule": self.p.declare_rule,
                 "order": "attack HEX with UNIT ... (all attacks), then end"}]

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

    def default_orders(self, st: GameState, sc: Scenario, side: str) -> list[str]:
        """The deadline defaults of ``defaults_help``."""
        for item in self.awaiting(st, sc):
            if item["side"] != side:
                continue
            kind = item["kind"]
            if kind in ("movement", "attack-declarations", "reinforcement"):
                return ["end"]
            if kind == "retreat":
                return [f"retreat {item['units'][0]} {item['options'][0]}"]
            if kind == "advance":
                return ["no-advance"]
            d = st.decision
            if d is None:
                return []
            if d.kind in ("ex-loss", "stack-loss"):
                weakest = sorted(d.units, key=lambda uid: (st.units[uid].strength, uid))
                return ["lose " + " ".join(weakest[:max(1, d.distance)])]
            if d.kind in ("set-up", "entry"):
                return self._default_placement(st, sc, d)
            if d.kind == "bombardment":
                strongest = sorted(d.units, key=lambda uid: (-st.units[uid].strength, uid))
                return ["bombard " + " ".join(strongest[:d.distance])]
            if d.kind == "reinforcement":
                return ["delay"]
        return []

    def _default_placement(self, st: GameState, sc: Scenario, d: Decision) -> list[str]:
        from pbem.core.state import copy_state
        work = copy_state(st)
        out = []
        for uid in d.units:
            hexes = self.setup_hexes(work, sc, work.units[uid], d.kind)
            if not hexes:
                break
            # the least crowded legal hex, first in the listed order on a tie (spreads units
            # over entry hexes where stacking is ignored, Compass 3.2(1))
            at = units_at(work)
            best = min(hexes, key=lambda h: (len(at.get(h, [])), hexes.index(h)))
            out.append(f"place {uid} {best}")
            work.units[uid].hex = best
        return out

    # ===================================================================
    # Orders
    # ===================================================================

    def describe_event(self, ev: E.Event, sc: Scenario, origin: str | None = None) -> str | None:
        return classic(ev, sc, origin)

    def redact(self, ev: E.Event, viewer: str) -> E.Event:
        if isinstance(ev, E.HiddenDraw):          # only the referee sees rolls and units (Dunkerque 10.0(2))
            return E.HiddenDraw(name=ev.name, slots=ev.slots)
        return ev

    def handle(self, ctx: Ctx, order: O.Order) -> None:
        st, sc = ctx.state, ctx.sc
        if st.result is not None:
            raise OrderError(f"the game is over: {sc.side_name(st.result.winner)} won ({st.result.reason})")
        self.before_order(ctx)
        if st.decision is not None:
            self._answer(ctx, order)
            return
        ph = sc.sequence[st.phase]
        if ctx.side != ph.side:
            raise OrderError(f"it is the {sc.side_name(ph.side)} {ph.name} phase of turn {st.turn}; "
                             f"the game waits for {sc.side_name(ph.side)}", "5.0")
        word = verb(order)
        if isinstance(order, (O.Retreat, O.Advance)) or word in ("lose", "place", "bombard", "delay"):
            raise OrderError(f"no {word} is pending; the game waits for "
                             f"{sc.side_name(ph.side)} to play the {ph.name} phase")
        if ph.name == "movement":
            if isinstance(order, O.Move):
                self._move(ctx, order)
            elif isinstance(order, O.End):
                self._end_phase(ctx)
            elif word == "enter":
                raise OrderError("no reinforcement may enter now; reinforcements enter when the game asks for "
                                 "them (10.0)", "10.0")
            else:
                raise OrderError("attacks are declared in the combat phase, after this movement phase ends ('end')", "5.0")
        elif ph.name == "reinforcement":
            if word == "enter":
                self._enter(ctx, order)
            elif isinstance(order, O.End):
                self._end_phase(ctx)
            else:
                raise OrderError("this is the reinforcement phase: enter UNIT HEX for each unit that comes in, "
                                 "then end", "5.0")
        else:
            if isinstance(order, O.Move):
                raise OrderError("units move only in their own movement phase", "8.1(3)")
            if st.declarations_closed:
                raise OrderError("the attacks of this phase are already declared", self.p.declare_rule)
            if isinstance(order, O.Attack):
                self._declare(ctx, order)
            elif isinstance(order, O.End):
                ctx.emit(E.DeclarationsClosed(count=len(st.attacks)))
                self._resolve(ctx)
            else:
                raise OrderError(f"the combat phase takes attack and end orders, not {word}", self.p.declare_rule)

    # --- units, terrain, stacking --------------------------------------------

    def unit(self, ctx: Ctx, uid: str, side: str | None = None, on_map: bool = True) -> UnitState:
        return find_unit(ctx, uid, side, on_map=on_map)

    def is_tank(self, sc: Scenario, uid: str) -> bool:
        d = sc.unit_defs.get(uid)
        return d is not None and d.type in self.p.tank_types

    def movement_allowance(self, st: GameState, u: UnitState) -> int:
        if st.turn == 1 and u.side == self.p.first_turn_halved:
            return u.ma // 2                 # 8.4 (fractions dropped: our reading)
        if self.p.reinforcement_mp and u.entered_turn == st.turn:
            return max(0, u.ma - self.p.reinforcement_mp)   # Dunkerque 10.0(5)
        return u.ma

    def step_cost(self, sc: Scenario, a: str, b: str) -> int | None:
        """MP to step from a into adjacent b; None if b's terrain may not be entered (8.3)."""
        t = sc.terrain.get(sc.board.terrain.get(b, ""))
        if t is None or t.impassable:
            return None
        board = sc.board
        for feat, cost in self.p.line_features.items():
            if board.has(a, feat) and board.has(b, feat):
                if self.p.lines_ignore_hexsides:
                    return cost              # Khar'kov 8.3(5): along a railroad, whatever the terrain or river
                return cost + self._hexside_cost(sc, a, b)
        return t.move_cost + self._hexside_cost(sc, a, b)   # El Alamein: roads cost the terrain under them (8.3(7))

    def _hexside_cost(self, sc: Scenario, a: str, b: str) -> int:
        if not self.p.hexside_costs:
            return 0
        return sum(self.p.hexside_costs.get(f, 0) for f in sc.board.side_features(a, b))

    def crossing_block(self, st: GameState, sc: Scenario, u: UnitState, a: str, b: str) -> tuple[str, str] | None:
        """Why ``u`` may not step from a into b (beyond terrain and enemies), or None."""
        if self.p.blocking_hexsides:
            feats = sc.board.side_features(a, b) & self.p.blocking_hexsides
            if feats:
                return f"{u.id} may not cross the {sorted(feats)[0]} between {a} and {b}", "8.3(3)"
        return self.entry_forbidden(st, sc, u, b)

    def can_step(self, st: GameState, sc: Scenario, u: UnitState, a: str, b: str) -> bool:
        return self.step_cost(sc, a, b) is not None and self.crossing_block(st, sc, u, a, b) is None

    def room(self, st: GameState, side: str, h: str, moving: str = "") -> bool:
        here = [u for u in units_at(st).get(h, []) if u.side == side and u.id != moving]
        return len(here) < self.p.stacking[side]

    def zoc_against(self, st: GameState, sc: Scenario, side: str) -> set[str]:
        """Hexes in an enemy ZOC for ``side``'s units (6.0, 6.3, 6.4)."""
        enemy = next((s for s in self.p.stacking if s != side), "")
        return enemy_zoc(st, sc.board, side, blocked=self.zoc_blocked(sc, enemy))

    def _full_message(self, st: GameState, side: str, h: str) -> str:
        limit = self.p.stacking[side]
        if limit == 1:
            return f"{h} already holds a friendly unit; no stacking at the end of a move"
        return f"{h} already holds {limit} friendly units, the stacking limit (7.0)"

    def _eliminate(self, ctx: Ctx, uid: str, reason: str, rule: str) -> None:
        ctx.emit(E.UnitEliminated(unit=uid, reason=reason, rule=rule))
        self.on_eliminated(ctx, ctx.state.units[uid], rule)

    # --- movement --------------------------------------------------------------

    def _move(self, ctx: Ctx, order: O.Move) -> None:
        st, sc = ctx.state, ctx.sc
        u = self.unit(ctx, order.unit, ctx.side)
        if u.moved:
            raise OrderError(f"{u.id} has already moved this phase", "8.1(2)")
        if u.disrupted:
            raise OrderError(f"{u.id} is disrupted and may not move", "9.7(2)")
        if u.pinned_turn == st.turn:
            raise OrderError(f"{u.id} entered in an enemy zone of control this turn and may not move", "10.0(4)")
        ma = self.movement_allowance(st, u)
        ezoc = self.zoc_against(st, sc, u.side)

        def can_end(h: str) -> str | None:
            if not self.room(st, u.side, h, u.id):
                return self._full_message(st, u.side, h)
            return None

        def cost(a: str, b: str) -> int | None:
            c = self.step_cost(sc, a, b)
            if c is None:
                return None
            why = self.crossing_block(st, sc, u, a, b)
            if why:
                raise OrderError(*why)
            return c

        # 7.1 / 4.2(2): a unit breaking off ends its move off the map, so the
        # edge hex it leaves from may hold a friendly unit (it only passes through).
        mp = check_path(st, sc, u, order.path, ma=ma, ezoc=ezoc, step_cost=cost,
                        can_end=(lambda h: None) if order.off else can_end)
        if order.off:
            self._break_off(ctx, u, order.path, mp, ma, ezoc)
            return
        if not order.path:
            raise OrderError("a move needs at least one hex")
        ctx.emit(E.UnitMoved(unit=u.id, path=list(order.path), mp=mp, ma=ma))
        self.on_entered(ctx, u, list(order.path), "move")

    def _break_off(self, ctx: Ctx, u: UnitState, path: list[str], mp: int, ma: int, ezoc: set[str]) -> None:
        raise OrderError("units may not leave the map", "8.1(5)")

    # --- reinforcements (Khar'kov reinforcement phase) ---------------------------

    def _enter(self, ctx: Ctx, order: O.Order) -> None:
        st, sc = ctx.state, ctx.sc
        args = verb_args(order)
        if len(args) != 2:
            raise OrderError("write: enter UNIT HEX", "10.0(3)")
        u = self.unit(ctx, args[0], ctx.side, on_map=False)
        h = args[1]
        if u.hex is not None:
            raise OrderError(f"{u.id} is already on the map")
        if u.id not in self.due_reinforcements(st, sc):
            d = sc.unit_defs[u.id]
            when = f"turn {d.entry_turn}" if d.entry_turn else "set-up"
            raise OrderError(f"{u.id} is not a reinforcement of this turn (it is due on {when})", "10.0(1)")
        legal = self.reinforcement_hexes(st, sc, u)
        if h not in legal:
            raise OrderError(self._entry_refusal(st, sc, u, h) + (f"; legal now: {' '.join(legal)}" if legal
                                                                  else "; no hex is open to it now"), "10.0(4)")
        self._place_reinforcement(ctx, u, h, "10.0(3)")

    def _entry_refusal(self, st: GameState, sc: Scenario, u: UnitState, h: str) -> str:
        if not sc.board.grid.contains(h):
            return f"{h} is not on the map"
        occupied = units_at(st).get(h, [])
        if any(o.side != u.side for o in occupied):
            return f"{h} holds an enemy unit"
        if not self.room(st, u.side, h, u.id):
            return f"{h} is full: stacking limits apply to reinforcements (10.0(4))"
        enemies = {x for x, us in units_at(st).items() if any(o.side != u.side for o in us)}
        if between_enemies(sc.board, h, enemies):
            return f"{h} lies between two enemy units (10.0(4))"
        return f"{h} is not an entry hex of {u.id}"

    def entry_hex_open(self, st: GameState, sc: Scenario, u: UnitState, h: str) -> bool:
        """Stacking applies, no enemy in it, not between two enemy units (10.0(4))."""
        t = sc.terrain.get(sc.board.terrain.get(h, ""))
        if t is None or t.impassable:
            return False
        occupied = units_at(st)
        if any(o.side != u.side for o in occupied.get(h, [])):
            return False
        if not self.room(st, u.side, h, u.id):
            return False
        enemies = {x for x, us in occupied.items() if any(o.side != u.side for o in us)}
        return not between_enemies(sc.board, h, enemies)

    def _place_reinforcement(self, ctx: Ctx, u: UnitState, h: str, rule: str) -> None:
        st, sc = ctx.state, ctx.sc
        pinned = h in self.zoc_against(st, sc, u.side)
        ctx.emit(E.ReinforcementEntered(unit=u.id, hex=h, mp=self.p.reinforcement_mp, pinned=pinned, rule=rule))
        self.on_entered(ctx, u, [h], "reinforcement")

    def _close_reinforcements(self, ctx: Ctx) -> None:
        st, sc = ctx.state, ctx.sc
        due = self.due_reinforcements(st, sc)
        forced = [uid for uid in due if not self.reinforcement_hexes(st, sc, st.units[uid])]
        chosen = [uid for uid in due if uid not in forced]
        if chosen:
            ctx.emit(E.ReinforcementDelayed(units=chosen, count=len(chosen), rule="10.0(2)"))
        if forced:
            ctx.emit(E.ReinforcementDelayed(units=forced, count=len(forced), forced=True, rule="10.0(4)"))

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

    # --- combat: resolution --------------------------------------------------------

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

    def _retreat_options(self, st: GameState, sc: Scenario, u: UnitState, a: Attack, defender: bool) -> list[list[str]]:
        ezoc = self.zoc_against(st, sc, u.side)
        group = set(a.defenders if defender else a.attackers)
        at = units_at(st)

        def empty(h: str) -> bool:
            return all(o.id == u.id or o.id in group for o in at.get(h, []))

        return retreat_paths(st, sc, u, u.hex, a.target, a.distance, ezoc=ezoc,
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
                self._end_phase(ctx)
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

    # --- phases ----------------------------------------------------------------------

    def _end_phase(self, ctx: Ctx) -> None:
        st, sc = ctx.state, ctx.sc
        ph = sc.sequence[st.phase]
        if ph.name == "movement" and self._stack_check(ctx, -1):
            return
        if ph.name == "reinforcement":
            self._close_reinforcements(ctx)
        if ph.name == "combat":
            back = sorted(u.id for u in st.units.values() if u.side == ph.side and u.disrupted and not u.eliminated)
            if back:
                ctx.emit(E.UnitsRecovered(units=back))        # 9.7(3)
            if self.victory_after_combat(ctx, ph.side):
                return
        nxt = st.phase + 1
        turn = st.turn
        if nxt >= len(sc.sequence):
            if turn >= sc.turns:
                self.game_over(ctx)
                return
            nxt, turn = 0, turn + 1
        p = sc.sequence[nxt]
        ctx.emit(E.PhaseStarted(turn=turn, phase=nxt, side=p.side, name=p.name))
        self.on_phase_started(ctx)

    # --- victory helpers ------------------------------------------------------------------

    @staticmethod
    def eliminated(st: GameState, side: str) -> list[UnitState]:
        return [u for u in st.units.values() if u.side == side and u.eliminated]

    @staticmethod
    def on_map(st: GameState, side: str) -> list[UnitState]:
        return [u for u in st.units.values() if u.side == side and u.hex is not None and not u.eliminated]

