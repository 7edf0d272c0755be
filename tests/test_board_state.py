"""Issue 26 item 4: the core reducer gives the board events their effect (position,
off the map, eliminated) and each game keeps only what it adds.  Moving that code
must change no state: every example is replayed event by event and the canonical
bytes of the state after every event are hashed (one sha256 per example), compared
with tests/board_state_hashes.json, made by the code before the move.

Regenerate deliberately (only after a change meant to change a state):
    PBEM_UPDATE_STATE_HASHES=1 bash tests/run.sh tests/test_board_state.py
"""
from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path

import pytest

from conftest import EXAMPLES
from pbem.core.state import state_bytes

HASHES = Path(__file__).resolve().parent / "board_state_hashes.json"


def states_sha256(game) -> str:
    """sha256 over the state after every event of the game's log (the replay, reducer only)."""
    h = hashlib.sha256()
    st = game.new_state()
    apply, sc = game.rules.apply, game.scenario
    for en in game.entries():
        if en.seq > 0:
            apply(st, en.event, sc)
        st.seq = en.seq
        b = state_bytes(st)
        h.update(len(b).to_bytes(8, "big"))
        h.update(b)
    return h.hexdigest()


@pytest.mark.parametrize("name", EXAMPLES)
def test_every_state_of_every_example_is_unchanged(name, played_example):
    got = states_sha256(played_example(name).game())
    want = json.loads(HASHES.read_text()) if HASHES.exists() else {}
    if os.environ.get("PBEM_UPDATE_STATE_HASHES"):
        want[name] = got
        HASHES.write_text(json.dumps(dict(sorted(want.items())), indent=1) + "\n")
        return
    assert want.get(name) == got, f"{name}: a state after some event differs from the code before"
