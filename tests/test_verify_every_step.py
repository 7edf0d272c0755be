"""`pbem verify` never accuses an honest game (issue 24 item 4): the state the
rules build while an order is applied and the state replayed from the logged
events are the same bytes after every order of every example game, not only
at the end, so a game verified after any step passes.

Verify compares the two (``state_bytes``) once, at the head; this walks each
example's log order by order and makes that comparison after each one.  A
state field whose default is a non-empty string breaks it (msgspec omits a
default by identity: a string built at run time is written, the same string
decoded from the log, or a literal, is not), see pbem/games/README.md."""
from __future__ import annotations

import json
import tomllib
from pathlib import Path

import pytest

from conftest import EXAMPLES, EXAMPLES_DIR
from pbem.core import events as E
from pbem.core import orders as O
from pbem.core.state import state_bytes
from pbem.engine import Game


def _differences(a: bytes, b: bytes, path: str = "") -> list[str]:
    """Key paths where two encoded states differ (for a readable failure)."""
    def walk(x, y, p):
        if isinstance(x, dict) and isinstance(y, dict):
            for k in sorted(set(x) | set(y)):
                yield from walk(x.get(k, "<absent>"), y.get(k, "<absent>"), f"{p}.{k}")
        elif x != y:
            yield f"{p}: rules {str(x)[:80]} / replay {str(y)[:80]}"
    return list(walk(json.loads(a), json.loads(b), path))[:8]


def state_mismatches(game: Game) -> list[str]:
    """Every order of the log where the rules' state and the replayed state differ."""
    entries = game.entries()
    rules, sc = game.rules, game.scenario
    seed = next((bytes.fromhex(en.event.seed) for en in entries if isinstance(en.event, E.SeedRevealed)), None)
    start = [game.created] + rules.initial_events(sc)
    live = game.new_state()
    for ev in start[1:]:
        rules.apply(live, ev, sc)
    replayed = game.replay(entries[:len(start)])
    sealed: dict[str, E.SecretRecorded] = {}
    out: list[str] = []
    i = len(start)
    while i < len(entries):
        en = entries[i]
        if isinstance(en.event, E.SeedRevealed):
            rules.apply(live, en.event, sc)
            rules.apply(replayed, en.event, sc)
            i += 1
            continue
        j = i + 1
        while j < len(entries) and not isinstance(entries[j].event, (E.OrderGiven, E.SeedRevealed)):
            j += 1
        logged = [x.event for x in entries[i:j]]
        dice = game._dice(live, en.seq, lambda: seed)
        live, produced = game._adjudicate(live, en.event, O.parse_line(en.event.text, rules.verbs), dice, sealed,
                                          copy=False)
        assert produced == logged, f"seq {en.seq}: the rules no longer give the logged events"
        for x in logged:
            rules.apply(replayed, x, sc)
            if isinstance(x, E.SecretRecorded):
                sealed[f"{x.side}:{x.name}"] = x
        live.seq = replayed.seq = entries[j - 1].seq
        a, b = state_bytes(live), state_bytes(replayed)
        if a != b:
            out.append(f"after seq {en.seq} ({en.event.side}: {en.event.text!r}): " + "; ".join(_differences(a, b)))
        i = j
    return out


@pytest.mark.parametrize("name", EXAMPLES)
def test_rules_state_equals_replayed_state_after_every_order(played_example, name):
    bad = state_mismatches(played_example(name).game())
    assert not bad, f"{len(bad)} order(s) of {name} leave different states:\n" + "\n".join(bad[:5])


def test_verify_passes_brevity_after_steps_4_6_7(tmp_path):
    # the reported false alarm: a combat open after these steps (the attacker's
    # standing answer to hits, 7.4.2, and the kind of attack, 7.4.1 C)
    folder = EXAMPLES_DIR / "mirages-brevity"
    book = tomllib.loads((folder / "playbook.toml").read_text())
    game = Game.create(tmp_path / "g", book["scenario"], book["players"], seed_hex=book["seed"],
                       game_id=book["id"])
    for n, step in enumerate(book["steps"][:7], start=1):
        side = Path(step).stem.split("-", 1)[1]
        assert game.submit(side, (folder / step).read_text()).refused is None
        if n in (4, 6, 7):
            rep = Game(tmp_path / "g").verify()
            assert rep.ok, (n, rep.problems)
