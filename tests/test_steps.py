"""The turn declared as steps, and the kernel's handle (issue 26, second stage; core/turn.py).

A ported game declares its steps (``Ruleset.steps``, ``Ruleset.interrupts``) and defines
no ``handle``, ``awaiting`` or ``default_orders``: the kernel's gate refuses, in one wording
for every game, an order from a side the step does not wait for and an order word the
step does not offer; the core verbs any side may send at any time still pass.  On every
state of the ported games' examples the refusals are the kernel's and each side's default
is made of offered words.  The list of games still defining ``handle`` can only shrink."""
from __future__ import annotations

import pytest

from pbem.core import orders as O
from pbem.core.dice import ScriptedWithSalt
from pbem.core.orders import OrderError, parse_line
from pbem.core.ruleset import Ctx, Ruleset, dispatch
from pbem.core.state import copy_state
from pbem.core.turn import Turn, current_step, verb_of
from pbem.games import REGISTRY, ruleset_for

# The games whose Ruleset still defines its own handle (not yet ported to steps).  Port one,
# take it off this list; the test fails if a game is added here or a ported game goes back.
NOT_PORTED: set[str] = set()
# example -> its game, for the ported games
PORTED_EXAMPLES = {"eben-emael-12-1": "eben-emael", "eben-emael-12-2": "eben-emael", "red-devils": "red-devils",
                   "crete": "crete", "el-alamein": "el-alamein", "dunkerque": "dunkerque",
                   "kharkov": "kharkov", "operation-compass": "operation-compass",
                   "mirages-compass": "mirages", "mirages-brevity": "mirages",
                   "tobruk-r33": "advanced-tobruk", "tobruk-perimeter": "advanced-tobruk"}


def _own(rules: Ruleset, name: str) -> bool:
    """Whether the game's classes (not the kernel's Ruleset) define ``name``."""
    return any(name in k.__dict__ for k in type(rules).__mro__ if k is not Ruleset and k is not object)


def test_games_defining_handle_only_shrink():
    defining = {g for g in REGISTRY if _own(ruleset_for(g), "handle")}
    assert defining == NOT_PORTED
    for g in set(REGISTRY) - NOT_PORTED:                 # ported: the turn is the steps'
        rules = ruleset_for(g)
        assert rules.steps or rules.interrupts, g
        assert not _own(rules, "awaiting") and not _own(rules, "default_orders"), g


def _ctx(g, st, side) -> Ctx:
    c = Ctx(g.rules, copy_state(st), g.scenario, side, ScriptedWithSalt([1] * 50, 0, "t", 999))
    c.secret_records = g.secret_records()
    return c


@pytest.mark.parametrize("name", sorted(PORTED_EXAMPLES))
def test_kernel_refuses_what_is_not_offered_on_every_state(name, played_example):
    """On every state of the example: a side the step does not wait for is told whose turn it
    is; the side waited for, sending a word the step does not offer, is told what is offered;
    a press passes for any side; the deadline default uses only offered words."""
    g = played_example(name).game()
    rules, sc = g.rules, g.scenario
    st = g.new_state()
    not_turn = not_offered = 0
    for en in g.iter_entries():
        if en.seq > 0:
            rules.apply(st, en.event, sc)
        st.seq = en.seq
        step = current_step(rules, st, sc)
        rows = rules.awaiting(st, sc)
        if st.result is not None or step is None or not rows:
            continue
        waited = {r["side"] for r in rows}
        assert step.waited(st, sc) == [r["side"] for r in step.rows(st, sc)], (name, en.seq)   # the gate's cheap sides
        for side in sc.side_ids():
            c = _ctx(g, st, side)
            dispatch(rules, c, O.Press(text="hello"))       # core verbs pass the gate, any time
            if side not in waited:
                with pytest.raises(OrderError, match=r"^not your turn: the game waits for ") as e:
                    dispatch(rules, _ctx(g, st, side), O.End())
                assert sc.side_name(rows[0]["side"]) in e.value.message
                assert e.value.rule == (step.cite(st, sc) if step.pending else rules.sequence_rule)
                not_turn += 1
                continue
            words = step.words(st, sc, side)
            for o in Turn(rules, sc, st).default(side):
                w = verb_of(o)
                assert w in words or w in ("secret", "unveil"), (name, en.seq, side, w)   # core verbs
            stray = next(v for v in ("attack", "retreat", "move", "no-advance", "end") if v not in words)
            line = {"attack": "attack 0101 with X", "retreat": "retreat X 0101", "move": "move X 0101",
                    "no-advance": "no-advance", "end": "end"}[stray]
            with pytest.raises(OrderError, match=rf"^'{stray}' is not an order of this step .*; offered now: ") as e:
                dispatch(rules, _ctx(g, st, side), parse_line(line, rules.verbs))
            assert f"offered now: {', '.join(words)}" in e.value.message
            assert e.value.rule == step.reason(st, sc, stray)[1]
            not_offered += 1
    assert not_turn and not_offered



def test_any_time_words_and_core_verbs_pass_the_gate_for_a_side_not_waited_for(played_example):
    """Red Devils 5.0: a standing order (``doctrine``) at any time, by either side; a sealed note
    (core ``secret``) likewise; a game word of a step is refused to the side not waited for."""
    g = played_example("red-devils").game()
    rules, sc = g.rules, g.scenario
    st = next(s for s in (g.state(n) for n in range(1, g.head()[0] + 1))
              if s.result is None and s.decision is None and current_step(rules, s, sc) is rules.steps["movement"]
              and sc.sequence[s.phase].side == "british")
    c = _ctx(g, st, "german")
    dispatch(rules, c, parse_line("doctrine never", rules.verbs))
    dispatch(rules, c, parse_line("secret plan hold the bridge", rules.verbs))
    assert [type(e).__name__ for e in c.events][-1] == "SecretRecorded" and len(c.events) >= 2
    with pytest.raises(OrderError, match="^not your turn: the game waits for British") as e:
        dispatch(rules, _ctx(g, st, "german"), parse_line("mode Flak foot", rules.verbs))
    assert e.value.rule == "3.0"                         # the sequence of play


def test_check_passes_the_same_gate_as_the_orders(tmp_path):
    """CHECK through the offers (issue 26): a checked line whose word the step does not offer
    is refused by the kernel's gate with the very words an order gets, before any rule runs,
    and a line after it is not reached; an offered line is checked by the rules."""
    import fuzz_games as F
    game = next(F.walk("el-alamein", tmp_path / "g"))
    st = game.state()
    (side,) = {w["side"] for w in game.rules.awaiting(st, game.scenario)}
    offered = Turn(game.rules, game.scenario, st).offer(side).verbs
    stray = next(w for w in ("retreat", "advance", "attack", "move") if w not in offered)
    sub = game.check(side, f"{stray} X 0101\nend")
    assert sub.refused is not None and sub.refused.line == 1
    assert f"'{stray}' is not an order of this step" in sub.refused.message
    assert "offered now: " + ", ".join(offered) in sub.refused.message
    assert not sub.applied
    assert game.check(side, "end").refused is None
