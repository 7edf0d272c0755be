"""The turn as the kernel sees it: the steps a game declares, what the game waits for, what
each side is offered, the kernel's handle, the step line (issue 26).

Every game declares its turn as ``Step`` objects (``Ruleset.steps``, ``Ruleset.interrupts``,
below): who acts, the order words offered and the handler of each, the rule, the rows of what
the game waits for, the deadline default as ``Order`` objects.  From them the kernel derives
``Ruleset.handle`` (``handle``: one gate and one refusal wording for every game),
``Ruleset.awaiting`` and ``Ruleset.default_orders``; from the game's order forms
(``Ruleset.forms``, core/forms.py) and the words each step names, HELP and the set-up
choices.  The view of the rows a side may read and the side a step belongs to are still the
hooks ``awaiting_view`` and ``phase_side``.  ``Turn`` reads all of it for one state and gives
the rest of the program typed objects:

* ``Wait``  - one row of what the game waits for (the keys ``pbem state --json``
  has always shown in ``awaiting``, typed, in the order the game gave them);
* ``Offer`` - what one side is offered now: the waits it may read, the order words
  the step offers, their rules, the deadline default as ``Order`` objects (never a
  display string), the HELP lines and the set-up choices;
* ``step_line`` - the one wording of "turn N, SIDE PHASE" (reports, maps, mail
  subjects, STATUS, the status board, the replay page, explain, ``pbem state``).

The views, HELP and STATUS, the deadlines, the letters and staging read a ``Turn``
instead of calling the hooks each on their own.  The pending decisions of the games are
not frames of a new stack in the state: each interrupt step is read from where its game
already keeps the decision (no state's bytes change); the step identity names it.
"""
from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping
from functools import cached_property
from typing import Any

import msgspec
from msgspec import UNSET, Struct, UnsetType

from pbem.core import forms as F
from pbem.core.orders import CORE_VERBS, Advance, End, GameVerb, Order, OrderError, order_line

REFEREE = "referee"


class Bonus(Struct, frozen=True):
    """A winning defender's bonus action points and the units that may spend them."""
    ap: int
    units: tuple[str, ...]


class Wait(Struct, frozen=True, omit_defaults=True):
    """One thing the game waits for: from which side, what (``kind``), under which
    rule, and how to answer (``order``, the syntax players read); the rest is what
    some steps add.  ``keys`` keeps the order the game gave them in, so that a
    ``pbem state --json`` row reads byte for byte as before (it goes with the hooks)."""
    side: str
    kind: str
    rule: str
    order: str
    units: tuple[str, ...] | UnsetType = UNSET         # the units the answer is about
    combat: str | UnsetType = UNSET                    # the attacked hex of the combat
    distance: int | UnsetType = UNSET                  # hexes a retreat must cover
    options: tuple[str, ...] | UnsetType = UNSET       # the legal answers, or notes on them
    at: str | UnsetType = UNSET                        # the hex a paused move stands in
    formations: tuple[str, ...] | UnsetType = UNSET    # formations that may act or react
    leaving: bool | UnsetType = UNSET                  # the paused mover leaves a zone of control
    rest: tuple[str, ...] | UnsetType = UNSET          # the rest of a paused move's path
    cycle: int | UnsetType = UNSET                     # the initiative cycle
    formation: str | UnsetType = UNSET                 # the formation acting
    ap: int | UnsetType = UNSET                        # its action points left
    bonus: Bonus | UnsetType = UNSET                   # a Battle Victory bonus
    todo: tuple[str, ...] | UnsetType = UNSET          # administration still to do
    reinforcements: tuple[str, ...] | UnsetType = UNSET    # reinforcements due
    plan: dict[str, str] | UnsetType = UNSET           # a drop plan's landings so far
    must_leave_tracks: dict[str, tuple[str, ...]] | UnsetType = UNSET   # units owing their entry hexes
    keys: tuple[str, ...] = ()

    @classmethod
    def of(cls, row: Mapping[str, Any]) -> "Wait":
        """A hook's row (a dict) as a Wait; a key no Wait knows is an error (add it here)."""
        unknown = [k for k in row if k not in _ROW_KEYS]
        if unknown:
            raise ValueError(f"what the game waits for has a key the kernel does not know: {', '.join(unknown)}")
        return msgspec.convert({**row, "keys": tuple(row)}, cls)

    def row(self) -> dict:
        """The row as ``pbem state --json`` shows it (plain lists and dicts, the game's key order)."""
        return {k: _plain(getattr(self, k)) for k in self.keys}


def _plain(x):
    """A field as JSON-ready builtins: tuples as lists, a Bonus as a dict."""
    if isinstance(x, tuple):
        return [_plain(y) for y in x]
    if isinstance(x, dict):
        return {k: _plain(y) for k, y in x.items()}
    if isinstance(x, Bonus):
        return {"ap": x.ap, "units": list(x.units)}
    return x


_ROW_KEYS = frozenset(Wait.__struct_fields__) - {"keys"}


class Offer(Struct, frozen=True):
    """What ``side`` is offered in this state (empty ``waits``: nothing is asked of it now)."""
    side: str
    waits: tuple[Wait, ...]        # what the game waits for from this side, as the side may read it
    verbs: tuple[str, ...]         # the order words those waits offer (read from their syntax), and the default's
    rule: str                      # the rules of those waits, as they cite them
    default: tuple[Order, ...]     # the deadline default: the orders applied when the side misses its deadline
    help: tuple[str, ...]          # HELP: the game's orders for this side, "SYNTAX    what it does"
    setup: tuple[str, ...]         # the legal set-up choices during a set-up step of the side

    def default_lines(self) -> list[str]:
        """The deadline default as the order lines the host applies and tells."""
        return [order_line(o) for o in self.default]


_WORD = re.compile(r"[a-z][a-z-]*")


class Turn:
    """One state's turn, read once from the game's hooks (the adapter of issue 26).

    Each hook runs at most once per Turn (per side where it takes one), when first
    needed.  Build one per state and hand it on; never keep one past a change of the state.

    ``sealed``: the host's sealed records of ``st`` by "side:name" (``Game.secret_records``),
    where the caller holds them (the host building the default it applies or mails): a
    step's default that reads notes then gets the side's own, never another side's (``notes``)."""

    def __init__(self, rules, sc, st, sealed: Mapping[str, Any] | None = None):
        self.rules, self.sc, self.st = rules, sc, st
        self._sealed = sealed
        self.turn = st.turn
        self.phase_index = st.phase
        ph = sc.sequence[st.phase] if 0 <= st.phase < len(sc.sequence) else None
        self.phase: str | None = ph.name if ph else None
        self.turns = sc.turns
        self.turn_label = next((t.label for t in sc.turn_track if t.turn == st.turn), "")
        self.result = None if st.result is None else {"winner": st.result.winner, "reason": st.result.reason,
                                                      "rule": st.result.rule}
        self._views: dict[str, tuple[Wait, ...]] = {}
        self._offers: dict[str, Offer] = {}
        self._parts: dict[tuple[str, str], Any] = {}

    @cached_property
    def phase_side(self) -> str | None:
        """The side the step belongs to as headers name it (``Ruleset.phase_side``)."""
        return self.rules.phase_side(self.st, self.sc) if self.phase is not None else None

    @cached_property
    def step_id(self) -> str:
        return step_id(self.st, self.rules, self.sc)

    @cached_property
    def _rows(self) -> list[dict]:
        return self.rules.awaiting(self.st, self.sc)

    @cached_property
    def waits(self) -> tuple[Wait, ...]:
        """Everything the game waits for (as the referee reads it)."""
        return tuple(Wait.of(r) for r in self._rows)

    def waits_for(self, viewer: str) -> tuple[Wait, ...]:
        """What the game waits for as ``viewer`` may read it (``Ruleset.awaiting_view``)."""
        if viewer == REFEREE:
            return self.waits
        got = self._views.get(viewer)
        if got is None:
            rows = self.rules.awaiting_view(self.st, self.sc, [dict(r) for r in self._rows], viewer)
            got = self._views[viewer] = tuple(Wait.of(r) for r in rows)
        return got

    def rows(self, viewer: str) -> list[dict]:
        """The ``awaiting`` rows of ``pbem state --json`` for ``viewer``."""
        return [w.row() for w in self.waits_for(viewer)]

    def sides_waited(self) -> list[str]:
        """The sides the game waits for, in the order it names them."""
        return list(dict.fromkeys(w.side for w in self.waits))

    def offer(self, side: str) -> Offer:
        """What ``side`` is offered now: its waits, verbs, rules, default, HELP and set-up choices."""
        got = self._offers.get(side)
        if got is None:
            got = self._offers[side] = self._offer(side)
        return got

    def _offer(self, side: str) -> Offer:
        mine = tuple(w for w in self.waits_for(side) if w.side == side)
        default = self.default(side)
        step = self.step
        if step is not None and mine and not (self.st.chain is not None and self.st.chain.entropy):
            said = list(step.words(self.st, self.sc, side))       # the step declares them
        else:
            known = set(CORE_VERBS) | set(self.rules.verbs) | {"entropy"}
            said = [t for w in mine for t in _WORD.findall(w.order) if t in known]
        said += [order_line(o).split()[0] for o in default]
        return Offer(side=side, waits=mine, verbs=tuple(dict.fromkeys(said)),
                     rule=", ".join(dict.fromkeys(w.rule for w in mine if w.rule)), default=default,
                     help=self.help(side), setup=self.setup(side))

    # One part of an offer, for a caller that needs no more (each hook still runs once per side).

    def default(self, side: str) -> tuple[Order, ...]:
        """``side``'s deadline default as orders, as the step builds them (never lines parsed back):
        the dice exchange's first (core/chain.py), else the step's, with the side's own notes."""
        return self._once("default", side, lambda: tuple(self._default_of(side)))

    def _default_of(self, side: str) -> list[Order]:
        rules, st, sc = self.rules, self.st, self.sc
        if st.chain is not None and st.chain.entropy:
            from pbem.core.chain import exchange_default     # here: chain loads the dice, which a state read never needs
            return list(exchange_default(st, sc.side_ids(), side))
        return step_default(rules, st, sc, side, self.notes(side))

    def notes(self, side: str) -> dict[str, str] | None:
        """``side``'s own sealed notes, name -> text, from the host's records (None: not given).
        Only the records keyed "SIDE:" for this very side: another side's never pass."""
        if self._sealed is None:
            return None
        return {k.partition(":")[2]: rec.payload for k, rec in sorted(self._sealed.items())
                if k.partition(":")[0] == side}

    def default_lines(self, side: str) -> list[str]:
        """The deadline default as the lines the host applies (``Offer.default_lines``)."""
        return [order_line(o) for o in self.default(side)]

    def help(self, side: str) -> tuple[str, ...]:
        """HELP: the game's order forms ``side`` may use, in the game's order (core/forms.py)."""
        return self._once("help", side, lambda: tuple(F.help_lines(self.rules, self.st, self.sc, side)))

    @cached_property
    def step(self) -> "Step | None":
        """The step the state is in (None: game over, not started, or a game that declares no steps)."""
        if not (self.rules.steps or self.rules.interrupts):
            return None
        return current_step(self.rules, self.st, self.sc)

    def setup(self, side: str) -> tuple[str, ...]:
        """The legal choices the step lists for ``side`` (its forms' enumerated choices, core/forms.py)."""
        return self._once("setup", side, lambda: tuple(F.choice_lines(self.rules, self.step, self.st, self.sc, side)))

    def setup_title(self, side: str) -> str:
        """What ``side``'s choices are called now (the step's ``title``: "set-up choices" by default)."""
        return self.step.heading(self.st, self.sc) if self.step is not None else "set-up choices"

    def _once(self, what: str, side: str, make):
        got = self._parts.get((what, side))
        if got is None:
            got = self._parts[what, side] = make()
        return got

    def head(self) -> dict:
        """What ``step_line`` reads: the fields of ``pbem state --json`` that name the step."""
        return {"turn": self.turn, "turns": self.turns, "turn_label": self.turn_label, "phase": self.phase,
                "phase_side": self.phase_side, "result": self.result}

    def line(self, *, long: bool = False, turn: bool = True) -> str:
        return step_line(self.sc, self.head(), long=long, turn=turn)


def step_id(st, rules=None, sc=None) -> str:
    """The step's identity, what staged orders are held for (pbem/staging.py): the turn and
    the phase of the sequence, "t3.p2", and while an interrupt is the step (a loss to choose,
    an opportunity fire, a paused move) its name too, "t3.p2.opportunity-fire": orders staged
    in the phase are not those of the interrupt, nor the other way round.  Without ``rules``
    (or for a game that declares no interrupt) the turn and phase only."""
    base = f"t{st.turn}.p{st.phase}"
    if rules is None or not rules.interrupts:
        return base
    step = current_step(rules, st, sc)
    if step is None or step.pending is None:
        return base
    return f"{base}.{re.sub(r'[^a-z0-9]+', '-', step.name.lower()).strip('-')}"


def step_line(sc, v: Mapping[str, Any], *, long: bool = False, turn: bool = True) -> str:
    """The step in words, everywhere the same: "turn 3, British movement"; ``long``:
    "Turn 3 of 10 (14 April), British movement phase"; ``turn=False``: "British movement".
    The side is the one the step belongs to (``Ruleset.phase_side``, the side acting
    where both share a phase), never the sequence's side read apart from it.
    A game over: "game over, British wins" / "game over, a draw"."""
    r = v.get("result")
    if r:
        if long:
            return f"Game over after turn {v['turn']} of {v['turns']}"
        return "game over, a draw" if r["winner"] == "draw" else f"game over, {sc.side_name(r['winner'])} wins"
    side = v.get("phase_side")
    who = sc.side_name(side) if side in sc.side_ids() else (side or "")
    words = f"{who} {v.get('phase') or ''}".strip()
    if not turn:
        return words
    if long:
        label = f" ({v['turn_label']})" if v.get("turn_label") else ""
        return f"Turn {v['turn']} of {v['turns']}{label}" + (f", {words} phase" if words else "")
    return f"turn {v['turn']}" + (f", {words}" if words else "")


# --- steps: a game's turn declared, and the kernel's handle (issue 26, second stage) ---------------
# A game that declares its steps (``Ruleset.steps``, ``Ruleset.interrupts``) defines
# no ``handle``, ``awaiting`` or ``default_orders``: the kernel reads the step the
# state is in and derives all three from it.
#
# * ``Step`` - one step of the turn: who acts, the order words it offers and the
#   handler of each, the rule it cites, what the game waits for in it (the rows of
#   ``pbem state --json``), and its deadline default as ``Order`` objects.
# * A phase step is found by its name (``Ruleset.step_name``: the phase's name by
#   default, a game may group phases under one step).  An interrupt step (a loss to
#   choose, an advance, an opportunity fire, a paused move) is declared with
#   ``pending``: it is the step while the state says the game waits for it, and the
#   step below it resumes when its handler has cleared that.  The pending decision
#   lives where the games already keep it (the core ``GameState.decision``, or a
#   game's own field), so no event, no log and no state's bytes change.
# * ``handle`` - the gate every order of a ported game passes: the game is over ->
#   is this side offered anything now -> is this order word offered -> the step's
#   handler.  The refusals are worded here, once, from the offers.
#
# The core verbs any side may send at any time (``secret``, ``unveil``, ``press``,
# ``entropy``) never reach ``handle``: ``ruleset.dispatch`` takes them first; a game's
# own such words (a standing order) are its ``Ruleset.any_time``.
# A step may list a core verb among its offered words (``unveil`` when the game waits
# for one): that tells the player what to send, and the verb never reaches the gate.

Handler = Callable[[Any, Order], None]          # (ctx, order): emits events or refuses


class Step:
    """One step of a game's turn (a phase, a part of one, or an interrupt).

    ``verbs``   order word -> handler(ctx, order); the words offered in this step
    ``rule``    the rule the step cites (refusals, the wait row); or (st, sc) -> it (a decision's own)
    ``kind``    what the game waits for, as the wait row names it (default: ``name``)
    ``order``   the answer's syntax players read in the wait row
    ``side``    (st, sc) -> who acts (default: the side of the current phase of the sequence)
    ``waits``   (st, sc) -> the wait rows when the step needs more than side/kind/rule/order
                (a combat, units, options ...); [] when nothing is asked now
    ``default`` (st, sc, side) -> the deadline default as orders (default: ``end`` where offered);
                with ``notes=True``: (st, sc, side, notes), ``notes`` the side's own sealed notes,
                name -> text, where the host gives them (it builds the default it applies), else
                None (a default shown without the host's records, ``Ruleset.default_orders``)
    ``pending`` (st, sc) -> True while this interrupt is the step (interrupts only)
    ``sides``   (st, sc) -> the sides waited for, where ``waits`` costs more than the gate
                needs (it runs before every order; the rows only when a refusal names them)
    ``offered`` (st, sc, side) -> the words offered to ``side`` when not all of ``verbs`` are
    ``why``     word -> (reason, rule): why a word this step does not offer is refused, where a
                rule says more than "not now" (units move only in their own movement phase);
                the refusal adds the reason and cites that rule; or (st, sc, word) -> (reason, rule)
                or None, where the reason depends on the state
    ``choices`` the words whose forms' enumerated legal choices the step lists while it waits
                for a side (core/forms.py: set-up hexes, drop zones ...), in that order; or
                (st, sc, side) -> them
    ``title``   what those choices are called ("set-up choices"), or (st, sc) -> it
    """

    __slots__ = ("name", "verbs", "rule", "kind", "order", "side", "waits", "default", "pending", "offered", "why",
                 "sides", "choices", "title", "notes")

    def __init__(self, name: str, *, verbs: Mapping[str, Handler], rule: str = "", kind: str = "",
                 order: str = "", side: Callable | None = None, waits: Callable | None = None,
                 default: Callable | None = None, pending: Callable | None = None,
                 offered: Callable | None = None, why: Mapping[str, tuple[str, str]] | Callable | None = None,
                 sides: Callable | None = None, choices: Iterable[str] | Callable = (),
                 title: str | Callable = "set-up choices", notes: bool = False):
        self.name, self.verbs, self.rule = name, dict(verbs), rule
        self.why = why if callable(why) else dict(why or {})
        self.kind, self.order = kind or name, order
        self.side, self.waits, self.default = side, waits, default
        self.pending, self.offered, self.sides, self.notes = pending, offered, sides, notes
        self.choices = choices if callable(choices) else tuple(choices)
        self.title = title

    def __repr__(self) -> str:
        return f"Step({self.name!r}, verbs={list(self.verbs)})"

    def cite(self, st, sc) -> str:
        """The rule the step cites now."""
        return self.rule(st, sc) if callable(self.rule) else self.rule

    def acting(self, st, sc) -> str | None:
        if self.side is not None:
            return self.side(st, sc)
        return sc.sequence[st.phase].side if 0 <= st.phase < len(sc.sequence) else None

    def rows(self, st, sc) -> list[dict]:
        """What the game waits for in this step (the ``awaiting`` rows)."""
        if self.waits is not None:
            return self.waits(st, sc)
        who = self.acting(st, sc)
        return [{"side": who, "kind": self.kind, "rule": self.cite(st, sc), "order": self.order}] if who else []

    def waited(self, st, sc) -> list[str]:
        """The sides this step waits for now (what the gate asks before every order)."""
        if self.sides is not None:
            return list(self.sides(st, sc))
        if self.waits is None:
            who = self.acting(st, sc)
            return [who] if who else []
        return [r["side"] for r in self.waits(st, sc)]

    def reason(self, st, sc, word: str) -> tuple[str, str]:
        """Why ``word`` is refused in this step: (reason, rule); ("", the step's rule) by default."""
        got = self.why(st, sc, word) if callable(self.why) else self.why.get(word)
        return got or ("", self.cite(st, sc))

    def words(self, st, sc, side: str) -> tuple[str, ...]:
        """The order words ``side`` is offered in this step."""
        if self.offered is not None:
            return tuple(self.offered(st, sc, side))
        return tuple(self.verbs)

    def choice_words(self, st, sc, side: str) -> tuple[str, ...]:
        """The words whose forms' choices this step lists for ``side``."""
        return tuple(self.choices(st, sc, side)) if callable(self.choices) else self.choices

    def heading(self, st, sc) -> str:
        """What the step's choices are called now."""
        return self.title(st, sc) if callable(self.title) else self.title

    def defaults(self, st, sc, side: str, notes: Mapping[str, str] | None = None) -> list[Order]:
        """``side``'s deadline default in this step; ``notes``: its own sealed notes (``Turn.notes``)."""
        if not any(r["side"] == side for r in self.rows(st, sc)):
            return []
        if self.default is not None:
            if self.notes:
                return list(self.default(st, sc, side, notes))
            return list(self.default(st, sc, side))
        return [End()] if "end" in self.words(st, sc, side) else []


def phase_steps(*steps: Step) -> dict[str, Step]:
    """A game's phase steps by name (``Ruleset.steps``)."""
    return {s.name: s for s in steps}


def current_step(rules, st, sc) -> Step | None:
    """The step the state is in: the first pending interrupt, else the phase's step
    (None: the game is over, not started, or the game declares no step for the phase)."""
    if st.result is not None or not 0 <= st.phase < len(sc.sequence):
        return None
    for s in rules.interrupts:
        if s.pending(st, sc):
            return s
    return rules.steps.get(rules.step_name(st, sc))


def step_waits(rules, st, sc) -> list[dict]:
    step = current_step(rules, st, sc)
    return step.rows(st, sc) if step is not None else []


def step_default(rules, st, sc, side: str, notes: Mapping[str, str] | None = None) -> list[Order]:
    step = current_step(rules, st, sc)
    return step.defaults(st, sc, side, notes) if step is not None else []


def verb_of(order: Order) -> str:
    """The order word a step offers: a game's own word, ``no-advance``, else the order's kind
    (``break UNIT`` is a ``move``: a move off the map)."""
    if isinstance(order, GameVerb):
        return order.word
    if isinstance(order, Advance) and order.unit == "-":
        return "no-advance"
    return order.__struct_config__.tag


def _said(sc, rows: Iterable[dict]) -> str:
    parts = []
    for r in rows:
        what = ", ".join(x for x in (r.get("kind", ""), r.get("rule", "")) if x)
        parts.append(f"{sc.side_name(r['side'])}" + (f" ({what})" if what else ""))
    return " and ".join(dict.fromkeys(parts))


def handle(rules, ctx, order: Order) -> None:
    """The kernel's gate for a game that declares its steps, then the step's handler.

    Refusals, the same words in every game: "the game is over: British won (REASON)";
    "not your turn: the game waits for British (movement, 5.1)" (citing the game's sequence of
    play, ``Ruleset.sequence_rule``, in a phase; an interrupt's own rule in an interrupt);
    "'attack' is not an order of this step (British (movement, 8.0)); offered now: move, end -
    SYNTAX" (the step's rule, or the reason and rule it gives for that word)."""
    st, sc = ctx.state, ctx.sc
    if st.result is not None:
        r = st.result
        who = "a draw" if r.winner == "draw" else f"{sc.side_name(r.winner)} won"
        raise OrderError(f"the game is over: {who} ({r.reason})")
    word = verb_of(order)
    if word in rules.any_time:                  # a word any side may send at any time (a standing order)
        return rules.any_time[word](ctx, order)
    step = current_step(rules, st, sc)
    waited = step.waited(st, sc) if step is not None else []
    if not waited:
        raise OrderError("the game waits for no order now", step.cite(st, sc) if step else "")
    if ctx.side not in waited:
        rule = step.cite(st, sc) if step.pending is not None else (rules.sequence_rule or step.cite(st, sc))
        raise OrderError(f"not your turn: the game waits for {_said(sc, step.rows(st, sc))}", rule)
    offered = step.words(st, sc, ctx.side)
    if word not in offered:
        rows = step.rows(st, sc)
        syntax = "; ".join(dict.fromkeys(r["order"] for r in rows if r["side"] == ctx.side and r.get("order")))
        reason, rule = step.reason(st, sc, word)
        raise OrderError(f"'{word}' is not an order of this step ({_said(sc, rows)}); "
                         f"offered now: {', '.join(offered) or 'nothing'}" + (f" - {syntax}" if syntax else "")
                         + (f"; {reason}" if reason else ""), rule)
    step.verbs[word](ctx, order)
