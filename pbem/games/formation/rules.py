"""Mirages '40 '41 on the Formation Series rules (mirages.txt: series rules 1-10,
game rules 13-15, scenarios 16).

The shape of a game: turn 1 starts in the Ops Phase (16); every later turn runs
the Admin Phase (9: recovery, Schwerpunkt, reinforcements), the Ops Phase (6: Ops
Cycles of initiative, act or transfer, formation activation and its actions, with
reactions of the other side) and the End of Turn Phase (8: victory points and
victory).  Orders:

    activate FORMATION | transfer | end          the Initiative player (6.2, 6.3)
    move UNIT[+UNIT] HEX ...  screen UNIT[+UNIT] HEX  refit UNIT  improve HEX  seize HEX
    attack HEX with UNIT ... [hasty|regular|prepared] [hold|withdraw]   (7.4, combat.py)
    end                                          end the activation (or the reaction)
    react FORMATION | pass                       answer to a paused move (6.5)
    schwerpunkt FORMATION  enter UNIT HEX [HEX ...]  end      Admin Phase (9.2, 9.4)
    doctrine reaction|snafu|rbc|combat TEXT      standing orders, any time

Modules: state (FormationState), events, reducer, sequence (Ops Phase), admin
(Admin and End of Turn Phases), actions, movement, reaction, snafu, supply,
command, effectiveness, terms (victory), intel (limited intelligence), words;
combat: combat*, resolve, losses, retreats, crt, chits; data: schema, lint.
"""
from __future__ import annotations

from pbem.core import orders as O
from pbem.core.orders import OrderError
from pbem.core.ruleset import Ctx, Ruleset
from pbem.core.scenario import Scenario
from pbem.core.state import UnitState
from pbem.games.formation import actions, bonus, intel, reducer, roster, sequence, terms, words
from pbem.games.formation import known as knowing
from pbem.games.formation import events as E
from pbem.games.formation.board import gd
from pbem.games.formation.combat import COMBAT_VERBS, handle_attack, parse_doctrine
from pbem.games.formation.lint import lint as scenario_lint
from pbem.games.formation.schema import FormationData, FormationVictory
from pbem.games.formation.snafu import parse as parse_snafu
from pbem.games.formation.state import ALLIED, AXIS, Formation, FormationState, other
from pbem.games.formation.steps import FORMS, INTERRUPTS

TOPICS = ("reaction", "snafu", "rbc", "combat")


class MiragesRules(Ruleset):
    game = "mirages"
    ruleset_version = "2"          # 2: a winning defender's bonus actions (7.4.3), 7.6 removals logged
    state_type = FormationState
    interrupts = INTERRUPTS        # the turn (6, 7, 9; formation/steps.py), read from fm: the kernel's handle,
                                   # awaiting and deadline defaults
    forms = FORMS                  # the order forms: HELP and the Admin/Ops Phase choices (core/forms.py)
    any_time = {"doctrine": lambda ctx, order: doctrine(ctx, list(order.args))}   # standing orders, any time
    # 7.4.2: a result is hits on the attacker / the defender, each "*" when printed red (EC)
    result_codes = frozenset(f"{a}{x}/{d}{y}" for a in range(10) for d in range(10) for x in ("", "*") for y in ("", "*"))
    setup_stacking = True          # 16: fixed set-up stacks; the limits of 13.1.3 are checked by lint.py
    scenario_schema = (FormationVictory, FormationData)
    first_turn = 1
    order_example = "activate FORMATION  |  move UNIT HEX ...  |  attack HEX with UNIT ...  |  end"
    verbs = frozenset({"activate", "transfer", "screen", "refit", "improve", "seize", "react", "pass",
                       "schwerpunkt", "enter", "doctrine"}) | COMBAT_VERBS
    defaults_help = (
        "Deadline defaults. Initiative: end the Ops Phase when allowed, else transfer when allowed, else "
        "activate the first formation able to; actions: end the activation; a paused move: pass (no "
        "reaction); Admin Phase: the Schwerpunkt left unplaced, reinforcements on the first entry hex where "
        "they do not overstack; "
        "retreat before combat: no; escalation: hasty; Battle Victory bonus: unspent.")

    # --- the start -------------------------------------------------------------------------

    def new_state(self, sc: Scenario, game_id: str) -> FormationState:
        st = FormationState(game_id=game_id, scenario_id=sc.id, game=sc.game)
        for u in sc.units:
            st.units[u.id] = UnitState(id=u.id, side=u.side, hex=u.hex, strength=u.strength, ma=u.ma,
                                       waiting=f"turn {u.entry_turn}" if u.entry_turn else "")
        for f, row in gd(sc).formations.items():
            st.fm.formations[f] = Formation(side=row.side, level=row.start_level, support=row.support)
        st.fm.schwerpunkt = gd(sc).schwerpunkt.setup
        st.fm.snafu = gd(sc).snafu_first
        st.score = {AXIS: 0, ALLIED: 0}
        return st

    def initial_events(self, sc: Scenario) -> list[E.Event]:
        """16: every scenario begins with the Ops Phase of turn 1; the scenario gives the
        first activation's initiative (no roll)."""
        ops = next(i for i, p in enumerate(sc.sequence) if p.name == "ops")
        out: list[E.Event] = [E.PhaseStarted(turn=1, phase=ops, side=sc.sequence[ops].side, name="ops")]
        first = gd(sc).first_initiative
        out.append(E.InitiativeDetermined(cycle=1, winner=first, reason="scenario", drm_side=other(first),
                                          drm=gd(sc).initiative_track[0]))
        return out

    # Ruleset.reduce_before and .reduce (st, ev, sc): the reducer's own, one call less an event
    reduce_before = staticmethod(reducer.reduce_before)
    reduce = staticmethod(reducer.reduce_event)

    # --- orders -------------------------------------------------------------------------------

    def _action(self, ctx: Ctx, word: str, order: O.Order, args: list[str]) -> None:
        if ctx.state.fm.active.defender:
            actions.must_act(ctx)              # 7.4.3: only the winning defender acts now
        if word == "move":
            if order.off:
                raise OrderError("units leave the map only by retreating into an off-board area", "13.2.4")
            actions.move_order(ctx, order.unit, list(order.path))
        elif word == "screen":
            if len(args) < 2:
                raise OrderError("screen UNIT[+UNIT] HEX", "7.3.4")
            actions.move_order(ctx, args[0], [O._hex(a, "a hex") for a in args[1:]], screen=True)
        elif word == "refit":
            actions.refit(ctx, args)
        elif word == "improve":
            actions.improve(ctx, [O._hex(a, "a hex") for a in args])
        elif word == "seize":
            actions.seize_order(ctx, [O._hex(a, "a hex") for a in args])
        elif word == "attack":
            actions.must_act(ctx)
            handle_attack(ctx, order)
        elif word == "end":
            actions.must_act(ctx)
            sequence.end_activation(ctx)
        elif word == "bonus":
            bonus.answer(ctx, args)
        else:
            a = ctx.state.fm.active
            if a.defender:
                raise OrderError(f"the winners' Battle Victory bonus: {bonus.ORDERS}", "7.4.3")
            raise OrderError(f"{a.formation} is active ({a.ap} AP left): its actions are move | screen | refit | "
                             f"improve | seize | attack, or end to stop the activation", "7.1")

    # --- the step line (HELP and the choices: the order forms, steps.py) ---------------------------

    def phase_side(self, st: FormationState, sc: Scenario) -> str | None:
        """The Ops Phase belongs to both sides (6): headers name the Initiative player of the
        cycle; the Admin Phase names the side giving its orders (9.2, 9.4)."""
        fm = st.fm
        if fm.step == "admin" and fm.admin_side:
            return fm.admin_side
        if fm.step in ("ops-choose", "actions", "paused") and fm.initiative:
            return fm.initiative
        return super().phase_side(st, sc)

    # --- what sides see ------------------------------------------------------------------------

    def redact(self, ev: E.Event, viewer: str) -> E.Event:
        return intel.redact(ev, viewer)

    def unit_row(self, st: FormationState, sc: Scenario, unit: UnitState, row: dict, viewer: str) -> dict | None:
        return intel.unit_row(st, sc, unit, row, viewer)

    def unit_facts(self, st: FormationState, sc: Scenario, unit: UnitState) -> dict:
        """3.2 b: the formation printed on the counter (a static unit's: none, 3.2.1)."""
        return roster.unit_facts(st, sc, unit)

    def map_marks(self, st: FormationState, sc: Scenario, viewer: str) -> dict:
        """16: the victory locations (in-command value) or the hold objective, and the VP
        score against this turn's range; the formations, whose colours band the counters."""
        return {**terms.map_marks(st, sc), "formations": roster.legend(sc)}

    def awaiting_view(self, st: FormationState, sc: Scenario, items: list[dict], viewer: str) -> list[dict]:
        """Another side's items as intel lets it see them; the viewer's own activation lists
        the active formation's units and their AP costs (5.5.1, 7.0, 5.8.3)."""
        out = intel.awaiting_view(st, sc, items, viewer)
        for it in out:
            if it.get("side") == viewer and it.get("kind") in ("actions", "reaction actions", "battle victory bonus"):
                it["options"] = roster.waiting_options(st, sc)
        return out

    def known(self, k: FormationState, st: FormationState, sc: Scenario, viewer: str) -> None:
        knowing.known(k, st, sc, viewer)           # a check's view: no enemy plans, stacks or standing orders

    def check_stop(self, before, after, events, sc: Scenario, side: str, order: O.Order) -> str:
        return knowing.check_stop(before, after, events, sc, side, order)

    def describe_event(self, ev: E.Event, sc: Scenario, origin: str | None = None) -> str | None:
        return words.describe(ev, sc, origin)

    def lint(self, sc: Scenario) -> list[str]:
        return scenario_lint(sc)


def doctrine(ctx: Ctx, args: list[str]) -> None:
    """Standing orders (6.5 reaction, 5.2 SNAFU, 7.4 combat answers): any time, either side;
    ``doctrine TOPIC none`` clears one."""
    if not args or args[0].lower() not in TOPICS:
        raise OrderError(f"doctrine TOPIC TEXT; topics: {', '.join(TOPICS)}")
    topic, text = args[0].lower(), " ".join(args[1:]).strip()
    if not text:
        raise OrderError(f"doctrine {topic} needs its text (or 'none' to clear it)")
    if text.lower() != "none":
        if topic == "snafu":
            parse_snafu(text)
        elif topic in ("rbc", "combat"):
            parse_doctrine(topic, text)
        else:
            toks = text.split()
            known = {"never", "always", "ask", "armour", "armor"}
            st = ctx.state
            for t in toks:
                if t.lower() not in known and not any(t.lower() == f.lower() for f in st.fm.formations):
                    raise OrderError(f"doctrine reaction: {t!r} is neither never|always|ask|armour nor a formation",
                                     "6.5")
                if t in st.fm.formations and st.fm.formations[t].side != ctx.side:
                    raise OrderError(f"{t} is not one of your formations", "6.5")
    ctx.emit(E.DoctrineSet(side=ctx.side, topic=topic, text=text))
