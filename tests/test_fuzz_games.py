"""Every example position against random orders and the deadline defaults (issue 26).

``tests/fuzz_games.py`` is the fuzzer (its docstring says what it checks and how to run it
longer); here it runs briefly: every example, three start positions, a bounded number of
submissions each, fixed seeds.  And for every state of every example (played one order line
at a time) each side awaited has a deadline default that ``Game.check`` accepts (a check
stopping at a die or at a reveal counts as accepted), and a side not awaited has none."""
from __future__ import annotations

import random

import pytest

import fuzz_games as F
from conftest import EXAMPLES

STARTS = 3          # start positions per example
ORDERS = 70         # submissions per run


@pytest.mark.parametrize("example", EXAMPLES)
def test_random_orders_find_no_crash_dead_end_or_replay_difference(example, tmp_path):
    n = F.step_count(example)
    starts = sorted(random.Random(f"suite:{example}").sample(range(n), min(n, STARTS)))
    outs = F.run_example(example, starts, [1], ORDERS, tmp_path)
    failures = [f for o in outs for f in o.failures]
    assert not failures, "\n".join(str(f) for f in failures)
    assert sum(o.applied for o in outs) > 0, "no order was ever applied: the fuzzer tests nothing"


@pytest.mark.parametrize("example", EXAMPLES)
def test_every_state_offers_each_awaited_side_a_default_that_check_accepts(example, tmp_path):
    problems = []
    walked = 0
    for game in F.walk(example, tmp_path / "game"):
        walked += 1
        st = game.state()
        rules, sc = game.rules, game.scenario
        awaited = {w["side"] for w in rules.awaiting(st, sc)}
        if st.result is None and not awaited:
            problems.append(f"seq {st.seq}: no result and nothing awaited (a dead end)")
        for side in sc.side_ids():
            lines = F.host_default(game, st, side)
            if side not in awaited:
                if lines:
                    problems.append(f"seq {st.seq}: {side} is not awaited, yet has the default {lines}")
                continue
            if not lines:
                problems.append(f"seq {st.seq}: {side} is awaited and has no default")
                continue
            sub = game.check(side, "\n".join(lines))
            if sub.refused is not None:
                problems.append(f"seq {st.seq}: {side}'s default {lines} refused by check: {sub.refused}")
    assert walked > 1 and not problems, f"{example} ({walked} states):\n" + "\n".join(problems)
