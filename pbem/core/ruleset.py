"""What every ruleset offers the engine, and the context rules run in.

Rules are pure: they read the state and the scenario, roll through the dice
source they are given, and emit events.  ``Ctx.emit`` applies each event to
the working state at once, so later steps of the same order see its effects.
"""
from __future__ import annotations

from typing import Protocol

from pbem.core import events as E
from pbem.core.events import Event
from pbem.core.orders import Entropy, Order, OrderError, Press, Secret, Unveil, order_line
from pbem.core.scenario import GameTable, Scenario
from pbem.core.scenario import lint as core_lint
from pbem.core.reduce import no_reducer, reduce_core, secret_commitment  # noqa: F401 - games import it from here
from pbem.core.state import GameState, UnitState
from pbem.core import forms as F
from pbem.core import turn as T


class DiceSource(Protocol):
    def roll(self, sides: int) -> int: ...

    def salt(self) -> str: ...


def find_unit(ctx: "Ctx", uid: str, side: str | None = None, *, on_map: bool = False,
              alive: bool = True) -> UnitState:
    """The unit an order names (exact id, else case-insensitive), refused with
    a clear message when unknown, another side's, eliminated or off the map."""
    st = ctx.state
    u = st.units.get(uid)
    if u is None:
        low = {k.lower(): k for k in st.units}
        u = st.units.get(low.get(uid.lower(), ""))
    if u is None:
        raise OrderError(f"unknown unit {uid!r}")
    if side is not None and u.side != side:
        raise OrderError(f"{u.id} is not a {ctx.sc.side_name(side)} unit")
    if alive and u.eliminated:
        raise OrderError(f"{u.id} has been eliminated")
    if on_map and u.hex is None:
        raise OrderError(f"{u.id} is not on the map")
    return u


def dispatch(rules: "Ruleset", ctx: "Ctx", order: Order) -> None:
    """Run one order: sealed notes and press are handled here for every game, the rest by the rules."""
    st = ctx.state
    if isinstance(order, Press):
        ctx.emit(E.PressSent(side=ctx.side, text=order.text))
        return
    if isinstance(order, Entropy):
        from pbem.core.chain import handle_entropy
        return handle_entropy(ctx, order)
    if isinstance(order, (Secret, Unveil)):
        rules.check_sealed(ctx, order)      # a game may limit what, when and how a secret is sealed/opened
    if isinstance(order, Secret):
        key = f"{ctx.side}:{order.name}"
        if key in st.secrets:
            raise OrderError(f"a secret named {order.name!r} is already sealed; unveil it or choose another name")
        salt = ctx.dice.salt()
        ctx.emit(E.SecretRecorded(side=ctx.side, name=order.name, commitment=secret_commitment(salt, order.payload),
                                  salt=salt, payload=order.payload))
        return
    if isinstance(order, Unveil):
        key = f"{ctx.side}:{order.name}"
        rec = ctx.secret_records.get(key)
        if key not in st.secrets or rec is None:
            raise OrderError(f"{ctx.side} has no sealed secret named {order.name!r}")
        ctx.emit(E.SecretRevealed(side=ctx.side, name=order.name, salt=rec.salt, payload=rec.payload))
        return
    rules.handle(ctx, order)


class Ctx:
    """One order being handled: the working state, the dice and the events so far."""

    def __init__(self, rules: "Ruleset", state: GameState, sc: Scenario, side: str, dice: DiceSource):
        self.rules = rules
        self.state = state
        self.sc = sc
        self.side = side
        self.dice = dice
        self.events: list[Event] = []
        # Sealed secrets' payloads (host side only): filled by the engine from the log.
        self.secret_records: dict[str, E.SecretRecorded] = {}

    def emit(self, ev: Event) -> None:
        self.events.append(ev)
        self.rules.apply(self.state, ev, self.sc)

    def secret_roll(self, sides: int, owner: str | None = None) -> int:
        """A die rolled for a secret of ``owner`` (this side by default, or "referee"):
        under dice scheme 2 it comes from that owner's own chain, revealed only when
        its secrets are open (pbem/core/chain.py); otherwise it is ``dice.roll``."""
        f = getattr(self.dice, "secret_roll", None)
        return f(sides, owner or self.side) if f is not None else self.dice.roll(sides)

    def refuse(self, message: str, rule: str = "") -> None:
        raise OrderError(message, rule)


def _kernel_awaiting(f):
    def awaiting(self, state, sc):
        if state.chain is not None and state.chain.entropy:
            from pbem.core.chain import exchange_waits
            return exchange_waits(state, sc.side_ids())
        return f(self, state, sc)
    awaiting.__doc__, awaiting.__wrapped__, awaiting.kernel_wrapped = f.__doc__, f, True
    return awaiting


def _kernel_defaults(f):
    def default_orders(self, state, sc, side):
        if state.chain is not None and state.chain.entropy:
            from pbem.core.chain import exchange_default
            return [order_line(o) for o in exchange_default(state, sc.side_ids(), side)]
        return f(self, state, sc, side)
    default_orders.__doc__, default_orders.__wrapped__, default_orders.kernel_wrapped = f.__doc__, f, True
    return default_orders


class Ruleset:
    """What every game offers the engine: each hook declared here, with a neutral default.

    A game subclasses this in its package; the engine, the views, the reports
    and the host call only these methods.  A game declares its turn as steps
    (``steps``, ``interrupts``, core/turn.py ``Step``); ``handle``, ``awaiting`` and
    ``default_orders`` are the kernel's, read from them.  The turn hooks
    (``awaiting``, ``awaiting_view``, ``default_orders``, ``phase_side``) are read once
    per state by ``core/turn.py`` (``Turn``), never by the consumers themselves; HELP
    and the set-up choices are derived from the game's order ``forms`` (core/forms.py)
    and the words its steps name."""

    game = ""                      # the scenario files' ``game`` key
    ruleset_version = "1"          # bump whenever the game's event stream changes (golden logs)
    result_codes: frozenset[str] = frozenset()
    first_turn = 1                 # the turn the first phase of the sequence belongs to
    verbs: frozenset[str] = frozenset()   # the game's own order words (read by handle() as GameVerb)
    needs_secrets = False          # True: every order gets the host's sealed payloads (ctx.secret_records)
    defaults_help = ""             # what the host mails players about deadline defaults ("" = none)
    state_type: type[GameState] = GameState   # the game's own state: a GameState subclass with typed fields
    scenario_schema: tuple[type, type] = (GameTable, GameTable)   # its [victory] and [game_data] tables
    order_example = "move UNIT HEX HEX ...  |  attack HEX with UNIT ...  |  end"   # the report footer's hint
    setup_stacking = False         # True: several units may set up in one hex (the game's lint checks its limits)
    # The turn declared as steps (core/turn.py, Step): a game that declares them defines no
    # handle, awaiting or default_orders; the kernel derives them from the step the state is in.
    steps: dict[str, T.Step] = {}          # phase steps by name (Ruleset.step_name)
    interrupts: tuple[T.Step, ...] = ()    # steps that interrupt a phase while pending, first pending first
    any_time: dict[str, T.Handler] = {}    # the game's words any side may send at any time (game over: none)
    forms: tuple[F.Form, ...] = ()         # the order forms, in HELP's order (core/forms.py; none: the core's)
    sequence_rule = ""                     # the sequence of play's rule: "not your turn" cites it in a phase

    def __init_subclass__(cls, **kw):
        """The kernel's waits come first: while the players exchange their contributions
        to the dice (scheme 2, pbem/core/chain.py), a game waits for that alone, and a
        missed deadline contributes nothing.  No game needs to know."""
        super().__init_subclass__(**kw)
        for name, wrap in (("awaiting", _kernel_awaiting), ("default_orders", _kernel_defaults)):
            # the game's own hook, or one it takes from a mixin before Ruleset (the Panzer
            # Corps family's Decisions): wrapped once, wherever it is defined
            f = getattr(cls, name)
            if not getattr(f, "kernel_wrapped", False):
                setattr(cls, name, wrap(f))

    # --- the game's start -------------------------------------------------------

    def new_state(self, sc: Scenario, game_id: str) -> GameState:
        raise NotImplementedError

    def initial_events(self, sc: Scenario) -> list[Event]:
        """The events after GameCreated: by default the first phase of the sequence begins."""
        first = sc.sequence[0]
        return [E.PhaseStarted(turn=self.first_turn, phase=0, side=first.side, name=first.name)]

    # --- the reducer --------------------------------------------------------------

    # The core takes an eliminated unit off the map (reduce.board_effect); a game whose
    # eliminated units stay in their hex sets this, with the rule that says so.
    eliminated_stay: bool = False
    _reads_before: bool = False                 # whether the class has its own ``reduce_before``

    def apply(self, state: GameState, ev: Event, sc: Scenario) -> None:
        """Apply one event: the game's part that reads the board before the core moves
        anything (``reduce_before``), the core part (reduce.reduce_core) for every game,
        then the game's."""
        if self._reads_before:
            self.reduce_before(state, ev, sc)
        reduce_core(state, ev, self.eliminated_stay)
        self.reduce(state, ev, sc)

    def __init_subclass__(cls, **kw):
        super().__init_subclass__(**kw)
        # replay's hot loop skips the empty default (most games have no reduce_before)
        cls._reads_before = cls.reduce_before is not Ruleset.reduce_before

    def reduce_before(self, state: GameState, ev: Event, sc: Scenario) -> None:
        """The game's part of applying ``ev`` that reads where units stood before the core
        part moves them (a marker on the hex a unit leaves, a river its move crosses).
        Default: nothing; most games need none."""

    def reduce(self, state: GameState, ev: Event, sc: Scenario) -> None:
        """The game's part of applying ``ev`` (after the core part); unknown game events raise."""
        no_reducer(self.game, ev)

    # --- orders and decisions -------------------------------------------------------

    def step_name(self, state: GameState, sc: Scenario) -> str:
        """The name of the phase step the state is in (``steps``): the phase's name by default;
        a game whose phases share a step (two fire phases) names the step."""
        return sc.sequence[state.phase].name

    def handle(self, ctx: Ctx, order: Order) -> None:
        """The kernel's gate and the step's handler (core/turn.py, ``handle``) for a game that
        declares its steps; a game not yet ported overrides this (issue 26)."""
        if not self.steps and not self.interrupts:
            raise NotImplementedError
        T.handle(self, ctx, order)

    def check_sealed(self, ctx: Ctx, order: Secret | Unveil) -> None:
        """Refuse a ``secret``/``unveil`` the game's rules do not allow (default: any is fine)."""

    def awaiting(self, state: GameState, sc: Scenario) -> list[dict]:
        """What the game waits for: the rows of the step the state is in (core/turn.py)."""
        if not self.steps and not self.interrupts:
            raise NotImplementedError
        return T.step_waits(self, state, sc)

    def default_orders(self, state: GameState, sc: Scenario, side: str) -> list[str]:
        """The documented default applied when ``side`` misses a deadline:
        order lines answering what the game waits for from ``side`` ([] if nothing).
        ``defaults_help`` says the same to players.  A game that declares its steps gives
        them there, as orders (this reads them as lines), here without the host's sealed
        notes; the host builds the default it applies with the side's own (core/turn.py ``Turn``)."""
        return [order_line(o) for o in T.step_default(self, state, sc, side)]

    # --- what sides see ---------------------------------------------------------------

    def redact(self, ev: Event, viewer: str) -> Event:
        """The game's own events as ``viewer`` (a side, not the referee) may see them."""
        return ev

    def describe_event(self, ev: Event, sc: Scenario, origin: str | None = None) -> str | None:
        """The game's words for an event (None: the core wording)."""
        return None

    def unit_row(self, state: GameState, sc: Scenario, unit: UnitState, row: dict, viewer: str) -> dict | None:
        """A unit's row of the state as ``viewer`` (a side, not the referee) may see it:
        ``row`` unchanged by default; a game with hidden units or limited
        intelligence returns a public face (fewer or other keys) or None to hide it."""
        return row

    def unit_facts(self, state: GameState, sc: Scenario, unit: UnitState) -> dict:
        """What the game adds to every unit's row before ``unit_row`` filters it for another
        side: keys its counters print that the core row lacks (a formation, say, as
        ``{"formation": "7armdbg"}``; the SITUATION table, the map and ``pbem state --json``
        show a ``formation``).  Default: nothing."""
        return {}

    def phase_side(self, state: GameState, sc: Scenario) -> str | None:
        """The side the current phase belongs to, as headers and status lines name it: by
        default the scenario's sequence says; a phase both sides share (an initiative
        cycle, an admin step) may name the side acting now."""
        ph = sc.sequence[state.phase] if 0 <= state.phase < len(sc.sequence) else None
        return ph.side if ph else None

    def map_marks(self, state: GameState, sc: Scenario, viewer: str) -> dict:
        """What decides the game, drawn on ``viewer``'s map (every key optional):
        ``objectives``: [{"hex": "0904", "vp": 2, "label": "...", "side": ""}] hexes that win or
        score (``vp`` 0 = no value printed; ``side`` = who holds it now, "" = nobody/unknown);
        ``areas``: [{"label": "...", "hexes": [...], "side": "..."}] set-up areas and drop zones
        while they matter (nothing the viewer may not see); ``score``: one line, the running
        score; ``north``: degrees clockwise from the map's up to north (0: no arrow);
        ``markers``: [{"hex", "key", "text", "colour", "label", "fill": bool}] markers standing in a
        hex (smoke, a fire mission), each a chip in the hex and an entry of the legend.
        Default: {} (the map shows units and terrain only)."""
        return {}

    def counter_face(self, state: GameState, sc: Scenario, row: dict, viewer: str) -> dict:
        """How the map and the report's SITUATION table show ``row``: a unit as ``viewer`` sees it
        (``unit_row`` applied), decided from the row and what every side sees (a marker on the
        map), so nothing the viewer may not see shows.
        Every key optional: ``values``: the text on the counter and in the table (default
        "STRENGTH-MA"; "" = none); ``front``: the bearing the counter faces, degrees clockwise
        from the map's up (a flat-topped hex's spines are at 30, 90, ... 330), with
        ``front_label``; ``turret``: a second front (a turret turned from the hull), with
        ``turret_label``; ``marks``: status markers [{"key", "text", "colour", "label"}], each
        drawn on the counter and explained by its label in the legend; ``wreck``: a label
        ("wreck"): an eliminated unit left in its hex, drawn there as a wreck (``burning``: True
        adds flames).  Default: {} (the core's counter: strength-MA and "disrupted")."""
        return {}

    def map_shots(self, state: GameState, sc: Scenario, events: list[Event], viewer: str) -> list[dict]:
        """The shots among ``events`` (one step's or one report's, as ``viewer`` may see them), for a
        line from firer to target on the map: [{"firer": unit, "target": unit or "", "hex": the
        target hex, "kind": "direct" | "indirect", "label": words}].  The map draws a line only from
        a firer it shows.  Default: none."""
        return []

    def report_notes(self, state: GameState, sc: Scenario, viewer: str) -> list[tuple[str, list[str]]]:
        """Sections the report adds for ``viewer`` (a side or "referee") after SITUATION, as
        (TITLE, lines): a side's own sealed notes, markers on the map that are no unit (artillery
        fire, smoke, minefields).  Nothing the viewer may not see.  Default: none."""
        return []

    def awaiting_view(self, state: GameState, sc: Scenario, items: list[dict], viewer: str) -> list[dict]:
        """What the game waits for (``awaiting``) as ``viewer`` (a side) may read it (default: all of it)."""
        return items

    # --- checks: what a side may learn without committing (core/known.py) ---------------------

    def known(self, known: GameState, state: GameState, sc: Scenario, viewer: str) -> None:
        """Make ``known`` (a copy of the true ``state``) what ``viewer`` (a side) may know of it,
        in place: every secret of another side that the game keeps in its own state (a note's
        meaning, a hidden unit's hex, a standing order, a hidden draw) replaced by a stand-in
        that depends only on what ``viewer`` may see.  A check runs the rules on it.  The core
        has already been done (sealed payloads, commitments, the units ``unit_row`` hides).
        Default: nothing more (a game whose secrets are only sealed notes)."""

    def check_stop(self, before: GameState, after: GameState, events: list[Event], sc: Scenario,
                   side: str, order: Order) -> str:
        """Why the real ``order`` of ``side`` could reveal hidden information, in a few words
        ("" if it cannot): a check stops there ("would need the game to reveal something").
        Decide it from the known states only (``before`` the order, ``after`` it as far as the
        check got, and the events it gave), never from the true state: the stop must not
        depend on a secret.  Past a roll it is asked for every outcome of the roll (pbem/checking.py).
        Default: never (a check still stops at the first read of another side's sealed note)."""
        return ""

    # --- data ---------------------------------------------------------------------------

    def lint(self, sc: Scenario) -> list[str]:
        """The game's own scenario checks beyond its schema: problems as lines with their key path."""
        return []

    def scenario_problems(self, sc: Scenario) -> list[str]:
        """Everything ``pbem scenario lint`` reports of ``sc``: the core checks, then the game's.
        ``pbem new`` refuses a scenario with any (a game never starts from data its rules misread)."""
        return core_lint(sc, set(self.result_codes), stacking=self.setup_stacking) + self.lint(sc)


Ruleset.awaiting = _kernel_awaiting(Ruleset.awaiting)
Ruleset.default_orders = _kernel_defaults(Ruleset.default_orders)
