"""Issue 26: a deadline default is made of ``Order`` objects by its step, never of display
lines parsed back into orders.  Building them as orders must change no default: every
example is replayed event by event and, at every state, each side's deadline default is
taken as the host takes it (``Turn(..., sealed=the host's records).default_lines``, with the
side's own sealed notes); the lines are compared with tests/defaults_record.json, recorded
by the code that still made them as text (runs of states with the same default folded into
one row: "FIRST-LAST SIDE: LINE | LINE").

Regenerate deliberately (only after a change meant to change a default):
    PBEM_UPDATE_DEFAULTS=1 bash tests/run.sh tests/test_defaults_record.py
"""
from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from conftest import EXAMPLES
from pbem.core import events as E
from pbem.core.turn import Turn

RECORD = Path(__file__).resolve().parent / "defaults_record.json"


def host_defaults(game) -> list[tuple[int, str, str]]:
    """(seq, side, the default's lines joined by " | ") at every state where a side has one."""
    rules, sc = game.rules, game.scenario
    st = game.new_state()
    sealed: dict[str, E.SecretRecorded] = {}          # the host's records up to the state
    out = []
    for en in game.iter_entries():
        if en.seq > 0:
            rules.apply(st, en.event, sc)
        if isinstance(en.event, E.SecretRecorded):
            sealed[f"{en.event.side}:{en.event.name}"] = en.event
        st.seq = en.seq
        turn = Turn(rules, sc, st, sealed=dict(sealed))
        for side in sc.side_ids():
            lines = turn.default_lines(side)
            if lines:
                out.append((en.seq, side, " | ".join(lines)))
    return out


def folded(rows: list[tuple[int, str, str]]) -> list[str]:
    """Runs of consecutive states where a side's default is the same, one row each."""
    runs: dict[str, list] = {}                       # side -> [first, last, text] of its open run
    out: list[list] = []
    for seq, side, text in rows:
        r = runs.get(side)
        if r is not None and r[1] == seq - 1 and r[2] == text:
            r[1] = seq
            continue
        runs[side] = r = [seq, seq, text, side]
        out.append(r)
    return [f"{a}-{b} {side}: {text}" for a, b, text, side in out]


@pytest.mark.parametrize("name", EXAMPLES)
def test_every_default_of_every_example_is_the_recorded_one(name, played_example):
    got = folded(host_defaults(played_example(name).game()))
    want = json.loads(RECORD.read_text()) if RECORD.exists() else {}
    if os.environ.get("PBEM_UPDATE_DEFAULTS"):
        want[name] = got
        RECORD.write_text(json.dumps(dict(sorted(want.items())), indent=0) + "\n")
        return
    assert name in want, f"{name}: not recorded (PBEM_UPDATE_DEFAULTS=1)"
    diff = [f"recorded {a!r}\n     now {b!r}" for a, b in zip(want[name], got) if a != b]
    assert got == want[name], f"{name}: a deadline default differs from the record:\n" + "\n".join(diff[:5])
