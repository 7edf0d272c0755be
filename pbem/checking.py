"""A check (CHECK, DRAFT, ``pbem order --check``/``--stage``): the orders tried, writing nothing.

Each line is tried in turn, as ``Game.submit`` would, on the game as the checker
may know it (core/known.py).  Up to the first line that rolls a die the check is
exact: each line would apply (its events are shown) or is refused.  A check rolls
no die (showing a roll would let a player try orders until the dice suit it), so
from the line that rolls on, the rules are run with *every outcome* of the rolls
instead (``dice.EveryRoll``), on every state those outcomes lead to: each later
line is then checked for all that does not depend on the roll (whose unit it is,
adjacency, path, stacking, the fewest action points the roll can give, ...) and
said to apply whatever the roll, to be refused whatever the roll, or to depend on
it (and how).  All of it is computed from the known state only, so it keeps the
promise of core/known.py: a check stops, as before, at the first point where the
real order could reveal something (``needs_reveal``), in any outcome, and nothing
of its answer depends on what the checker may not know, nor on the dice to come.

How far the outcomes are followed is bounded (``RUNS`` runs of the rules, ``BRANCHES``
different states between two lines); past the bound the rest is "not checked".
"""
from __future__ import annotations

import msgspec

from pbem.core import events as E
from pbem.core import known as K
from pbem.core import orders as O
from pbem.core.ruleset import Ctx, dispatch
from pbem.core.state import GameState, copy_state, state_bytes

RUNS = 1000             # the rules run at most this often for one check past its first roll
BRANCHES = 64           # and follow at most this many different states from one line to the next


class Applied(msgspec.Struct):
    line: int
    text: str
    events: list[E.Event]


class Checked(msgspec.Struct):
    """A line checked with every outcome of the rolls before it (and of its own)."""
    line: int
    text: str
    verdict: str                    # "apply" (whatever the roll), "depends" (on the roll), "refuse" (whatever the roll)
    refusals: list[str] = []        # the reasons it is refused with some (or every) outcome, each once, in order
    reached_by_all: bool = True     # False: with some outcomes an earlier line is refused, so it is not reached
    applies: bool = False           # it would apply with at least one outcome
    rolls: bool = False             # the line itself rolls a die (with some outcome)
    events: list[E.Event] | None = None   # its events, when every outcome gives the same


class Submission(msgspec.Struct):
    applied: list[Applied] = []                     # a new list for every Submission
    refused: O.OrderError | None = None
    not_applied: list[str] = []
    head: str = ""
    seq: int = -1
    # a check only (Game.check): the first line that rolls (needs_dice) and every line checked from it
    # with every outcome of the rolls (past_dice); the line where it stopped on what the game would reveal
    # (needs_reveal, why) or where the outcomes grew past the bound (too_many); the lines after it
    needs_dice: str = ""
    past_dice: list[Checked] = []
    needs_reveal: str = ""
    why: str = ""
    too_many: str = ""
    unchecked: list[str] = []
    internal: str = ""                              # the rules' error a check stopped on (tests; never shown)


class DiceNeeded(Exception):
    """A checked order rolls: its outcomes are tried instead, as its roll must stay unknown."""


class _CheckDice:
    """The dice of a check's exact part: no roll is ever made, an order that rolls ends that part."""

    def roll(self, sides: int) -> int:
        raise DiceNeeded()

    def salt(self) -> str:
        return "0" * 32                             # a check's seal is never shown to anyone else nor kept


class _Run(msgspec.Struct):
    kind: str                                       # "apply", "refuse", "dice", "stop", "many" (rolls)
    state: GameState | None = None
    events: list = []
    error: O.OrderError | None = None
    why: str = ""
    internal: str = ""


def _try(rules, sc, side: str, records: dict, work: GameState, ln, dice) -> _Run:
    """One line once on a copy of ``work``: applied, refused, stopped by a roll (the exact part's
    dice) or stopped where the real order could reveal something."""
    from pbem.core.dice import TooManyRolls     # here: reading a game loads no dice (engine.py)
    trial = copy_state(work)
    ctx = Ctx(rules, trial, sc, side, dice)
    ctx.secret_records = records
    stop = internal = ""
    try:
        ctx.emit(E.OrderGiven(side=side, text=ln.text))
        dispatch(rules, ctx, ln.order)
    except O.OrderError as e:
        e.line, e.text = ln.number, ln.text
        return _Run("refuse", error=e)
    except DiceNeeded:
        stop = "dice"
    except TooManyRolls:
        return _Run("many")
    except K.SecretNeeded as e:
        stop = K.stop_reason(e, sc)
    except Exception as e:                          # the known state's stand-ins went where the rules
        stop = "the rules need what only the game knows here"   # cannot follow: stop, never guess
        internal = f"{type(e).__name__}: {e}"
    why = rules.check_stop(work, trial, ctx.events[1:], sc, side, ln.order)
    if why or (stop and stop != "dice"):
        return _Run("stop", why=why or stop, internal="" if why else internal)
    if stop:
        return _Run("dice")
    trial.seq = work.seq + len(ctx.events)
    return _Run("apply", state=trial, events=ctx.events[1:])


def _own_notes(records: dict, events: list, side: str) -> None:
    """The notes ``side`` sealed in a line it checks are read on by the lines after it, as submit does."""
    records.update({f"{ev.side}:{ev.name}": ev for ev in events if isinstance(ev, E.SecretRecorded) and ev.side == side})


def check(rules, sc, side: str, work: GameState, records: dict, lines: list, sub: Submission) -> Submission:
    """``lines`` checked for ``side`` on its known state ``work`` with the known ``records``."""
    for i, ln in enumerate(lines):
        run = _try(rules, sc, side, records, work, ln, _CheckDice())
        if run.kind == "refuse":
            sub.refused = run.error
            sub.not_applied = [x.text for x in lines[i:]]
        elif run.kind == "stop":
            sub.needs_reveal, sub.why, sub.internal = f"line {ln.number}: {ln.text}", run.why, run.internal
            sub.unchecked = [x.text for x in lines[i + 1:]]
        elif run.kind == "dice":
            sub.needs_dice = f"line {ln.number}: {ln.text}"
            return _past_dice(rules, sc, side, work, records, lines[i:], sub)
        else:
            work = run.state
            _own_notes(records, run.events, side)
            sub.applied.append(Applied(ln.number, ln.text, run.events))
            continue
        break
    return sub


def _past_dice(rules, sc, side: str, work: GameState, records: dict, lines: list, sub: Submission) -> Submission:
    """``lines`` (the first of them rolls) tried with every outcome of every roll, on every state they lead to."""
    from pbem.core.dice import EveryRoll        # here: reading a game loads no dice (engine.py)
    states = [work]
    lost = False                                    # some outcome was refused on an earlier line
    runs = 0
    for i, ln in enumerate(lines):
        nxt: dict[bytes, GameState] = {}
        refusals: dict[str, O.OrderError] = {}
        c = Checked(ln.number, ln.text, "apply")
        evs: list = []
        for st in states:
            prefix: list[int] | None = []
            while prefix is not None:
                runs += 1
                dice = EveryRoll(prefix)
                run = _try(rules, sc, side, records, st, ln, dice) if runs <= RUNS else _Run("many")
                # past the bound, or sure to go past it (a line's first run shows how many outcomes it has)
                if run.kind == "many" or len(nxt) > BRANCHES or (not prefix and _outcomes(dice.made) > RUNS - runs + 1):
                    sub.too_many = f"line {ln.number}: {ln.text}"
                    sub.unchecked = [x.text for x in lines[i + 1:]]
                    return sub
                c.rolls = c.rolls or bool(dice.made)
                prefix = dice.next_prefix()
                if run.kind == "stop":
                    sub.needs_reveal, sub.why, sub.internal = f"line {ln.number}: {ln.text}", run.why, run.internal
                    sub.unchecked = [x.text for x in lines[i + 1:]]
                    return sub
                if run.kind == "refuse":
                    refusals.setdefault(_reason(run.error), run.error)
                    continue
                c.applies = True
                evs.append(run.events)
                nxt.setdefault(state_bytes(run.state), run.state)
        c.refusals = list(refusals)
        c.reached_by_all = not lost
        c.events = evs[0] if evs and all(e == evs[0] for e in evs) else None
        if not refusals:
            c.verdict = "apply" if not lost else "depends"
        elif not c.applies and not lost:
            c.verdict = "refuse"
        else:
            c.verdict = "depends"
        sub.past_dice.append(c)
        if refusals:
            lost = True
        if not nxt:                                 # no outcome gets past this line
            if c.verdict == "refuse":
                sub.refused = next(iter(refusals.values()))
            sub.not_applied = [x.text for x in lines[i + 1:]]
            return sub
        states = list(nxt.values())
    return sub


def _outcomes(made: list[tuple[int, int]]) -> int:
    """How many outcomes the rolls of one run have (those of the other runs may differ)."""
    n = 1
    for sides, _ in made:
        n *= sides
        if n > RUNS:
            break
    return n


def _reason(e: O.OrderError) -> str:
    """A refusal in words, without its line (``str(e)`` names it)."""
    return str(O.OrderError(e.message, e.rule))
