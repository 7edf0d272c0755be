"""HELP and the set-up choices on every state of every example, as fingerprints (issue 26).

HELP and the set-up choices were the per-game hooks ``order_help`` and ``setup_choices``;
they are now derived from the games' order forms (``pbem/core/forms.py``).  Before the
hooks went, their lines were recorded here for every side on every state of every example
(``tests/golden_help.json``), and recorded once more from the forms for the deliberate
fixes ``tests/test_forms.py`` lists (no other line differs); that test checks the derived
lines stay byte-identical.  The file keeps, per example, ``[seq, fingerprint]`` only where the
fingerprint changes from the state before (the fingerprint: the first 16 hex digits of the
sha256 of every side's HELP, set-up choices and
their title at that state).

    .venv/bin/python tests/help_record.py DIR       record afresh (DIR: where to play the examples)

Record afresh only for a change of a line meant, and say which in the commit.
"""
from __future__ import annotations

import hashlib
import json
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
GOLDEN = HERE / "golden_help.json"


def lines_of(turn, sides) -> list:
    """What the fingerprint covers: each side's HELP, set-up choices and their title (read
    only above choices: no mail shows a title without them)."""
    out = []
    for s in sides:
        choices = list(turn.setup(s))
        out.append([s, list(turn.help(s)), choices, turn.setup_title(s) if choices else ""])
    return out


def fingerprint(turn, sides) -> str:
    return hashlib.sha256(json.dumps(lines_of(turn, sides)).encode()).hexdigest()[:16]


def walk(game):
    """(seq, Turn) for every state of ``game``, one replay."""
    from pbem.core.turn import Turn
    rules, sc = game.rules, game.scenario
    st = game.new_state()
    for en in game.iter_entries():
        if en.seq > 0:
            rules.apply(st, en.event, sc)
        st.seq = en.seq
        yield en.seq, Turn(rules, sc, st)


def runs(game) -> list[list]:
    """[seq, fingerprint] where the fingerprint changes, from the first state on."""
    sides = game.scenario.side_ids()
    out: list[list] = []
    for seq, turn in walk(game):
        fp = fingerprint(turn, sides)
        if not out or out[-1][1] != fp:
            out.append([seq, fp])
    return out


def main(where: str) -> None:
    sys.path.insert(0, str(HERE))
    from conftest import EXAMPLES, play_example
    from pbem.engine import Game
    got = {}
    for name in EXAMPLES:
        into = Path(where) / name
        if not into.exists():
            play_example(name, into)
        got[name] = runs(Game(into))
        print(name, len(got[name]), flush=True)
    GOLDEN.write_text(json.dumps(got, indent=0, sort_keys=True) + "\n")


if __name__ == "__main__":
    main(sys.argv[1])
