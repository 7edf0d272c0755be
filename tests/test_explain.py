"""`pbem explain` (issue 15): why one event happened, and what a side may see of it.

The explanation of an event names the order that caused it (the OrderGiven
before it) and its author, the rules and table lookups its events record, every
die roll with its derivation from the seed (roll k of order n is
HMAC-SHA256(seed, "GAME:n:k") read by rejection sampling, design.md "Dice"), and
the difference it made to the state.  With --as SIDE only that side's view
(pbem/views.py): Dunkerque's hidden draw (3.0(4), 10.0(2)) and another side's
sealed secret (design.md "Decisions and secrets") stay hidden.
"""
from __future__ import annotations

import hashlib
import hmac
import json
import shutil
import tomllib
from pathlib import Path

import pytest
from click.testing import CliRunner

from pbem.cli import main
from pbem.core import dice as D
from pbem.core import events as E
from pbem.engine import Game
from pbem.referee.explain import Explainer, derive_roll, explain_text

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"


def first(game: Game, kind: type | str, after: int = 0):
    """The first event of a kind (a core event type, or a game event's kind name)."""
    return next(en for en in game.entries()
                if (en.kind == kind if isinstance(kind, str) else isinstance(en.event, kind)) and en.seq > after)


def cut_before_reveal(src: Path, dest: Path) -> Path:
    """A copy of a played example as it stood before `pbem reveal` (its last line)."""
    shutil.copytree(src, dest)
    lines = (dest / "log.jsonl").read_bytes().splitlines(keepends=True)
    assert b'"SeedRevealed"' in lines[-1]
    (dest / "log.jsonl").write_bytes(b"".join(lines[:-1]))
    (dest / ".state-cache").unlink(missing_ok=True)
    last = Game(dest).entries()[-1]
    (dest / "log.head").write_text(f"{last.seq} {last.hash}\n")
    return dest


def start_example(name: str, into: Path, steps: int) -> Game:
    """The first ``steps`` message files of an example, played with its seed."""
    book = tomllib.loads((EXAMPLES / name / "playbook.toml").read_text())
    g = Game.create(into, book["scenario"], book.get("players", {}), seed_hex=book["seed"], game_id=book["id"],
                    at="2026-01-01T00:00:00Z")
    for step in book["steps"][:steps]:
        side = next(s for s in g.scenario.side_ids() if Path(step).stem.endswith("-" + s))
        sub = g.submit(side, (EXAMPLES / name / step).read_text(), at="2026-01-01T00:00:00Z")
        assert sub.refused is None, sub.refused
    return g


def run(*args) -> tuple[int, str]:
    r = CliRunner().invoke(main, [str(a) for a in args])
    return r.exit_code, r.output


# --- a combat with dice (El Alamein 9.2, 9.4) ------------------------------------------------

def test_combat_names_its_order_rules_table_and_derives_the_die(played_example):
    g = played_example("el-alamein").game()          # played once per run, seed revealed at the end
    combat = first(g, E.CombatResolved)
    order = [en for en in g.entries()[:combat.seq] if isinstance(en.event, E.OrderGiven)][-1]
    x = Explainer(g).explain(combat.seq)

    assert x["order"]["seq"] == order.seq and x["order"]["side"] == order.event.side
    assert x["order"]["text"] == order.event.text
    assert x["order"]["head_before"] == g.entries()[order.seq - 1].hash
    assert x["hash"] == combat.hash
    # the CRT lookup the event records, and the scenario's own cell for it (9.2)
    look = x["lookups"][0]
    assert look["fields"]["odds"] == combat.event.odds and look["fields"]["result"] == combat.event.result
    assert look["crt"]["cell"] == combat.event.result and look["crt"]["matches"]
    assert any("9.2" in r["rule"] for r in x["rules"])
    # roll k of order n: HMAC-SHA256(seed, "GAME:n:k"), first 4 bytes < limit, v % 6 + 1
    d = x["dice"]
    assert d["source"] == "revealed"
    (roll,) = d["rolls"]
    seed = bytes.fromhex(first(g, E.SeedRevealed).event.seed)
    msg = f"{g.game_id}:{order.seq}:{roll['k']}"
    block = hmac.new(seed, msg.encode(), hashlib.sha256).digest()
    v = int.from_bytes(block[:4], "big")
    assert roll["message"] == msg and roll["sides"] == 6 and roll["value"] == combat.event.rolls[0]
    assert roll["derivation"]["steps"][0] == {"message": msg, "block": block.hex(), "offset": 0, "v": v,
                                              "accepted": True}
    assert v % 6 + 1 == roll["value"] and roll["checked"] is True


def test_explain_text_and_json_from_the_command_line(played_example):
    ex = played_example("el-alamein")
    g = ex.game()
    combat = first(g, E.CombatResolved)
    code, out = run("explain", ex.dir, combat.seq)
    assert code == 0, out
    assert f'HMAC-SHA256(seed, "{g.game_id}:' in out and "mod 6 + 1 =" in out and "matches the log" in out
    assert "order: seq" in out and "given by German-Italian" in out
    assert f"column {combat.event.odds}, die {combat.event.rolls[0]} -> {combat.event.result}" in out
    code, out = run("explain", ex.dir, combat.seq, "--json")
    assert code == 0 and json.loads(out)["dice"]["rolls"][0]["checked"] is True
    code, out = run("explain", ex.dir, 99999)
    assert code == 2 and "runs from seq 0 to" in out
    code, out = run("explain", ex.dir, 3, "--as", "nobody")
    assert code == 1 and "unknown side" in out


def test_rejection_sampling_steps_match_the_dice_module():
    """A d7 has limit 4294967292: the derivation shows every candidate until one is below it."""
    seed = bytes(range(32))
    for n in range(40):
        d = derive_roll(seed, "g", n, 0, 7)
        assert d["face"] == D.roll(seed, "g", n, 0, 7)
        assert d["limit"] == (2 ** 32 // 7) * 7
        assert d["steps"][-1]["accepted"] and not any(s["accepted"] for s in d["steps"][:-1])


def test_dice_before_the_reveal(played_example, tmp_path):
    """The host's seed file lets the referee check; a side, or a copy without the seed, cannot."""
    g = Game(cut_before_reveal(played_example("el-alamein").dir, tmp_path / "g"))
    seq = first(g, E.CombatResolved).seq
    ref = Explainer(g).explain(seq)["dice"]
    assert ref["source"] == "seed-file" and ref["rolls"][0]["checked"] is True
    side = Explainer(g, "british").explain(seq)
    assert side["dice"]["source"] == "secret" and "not checkable before the reveal" in side["dice"]["note"]
    assert side["dice"]["rolls"][0]["checked"] is None and "derivation" not in side["dice"]["rolls"][0]
    assert "not checkable before the reveal" in explain_text(side, g.scenario)
    (g.dir / "seed").unlink()                          # an auditor's copy of the log
    ref = Explainer(Game(g.dir)).explain(seq)["dice"]
    assert ref["source"] == "secret" and "no seed file is readable" in ref["note"]
    assert ref["rolls"][0]["value"] == first(g, E.CombatResolved).event.rolls[0]


def test_state_difference_of_a_move_and_of_a_whole_order(played_example):
    g = played_example("el-alamein").game()
    mv = first(g, E.UnitMoved)
    x = Explainer(g, "british").explain(mv.seq)
    start = next(u.hex for u in g.scenario.units if u.id == mv.event.unit)
    assert f"{mv.event.unit}: {start} -> {mv.event.path[-1]}; now moved" in x["state"]["changes"]
    assert x["text"].startswith(f"{mv.event.unit} moves")
    # an OrderGiven explains the whole order: every event it produced, the state before and after
    ret = first(g, E.UnitRetreated)
    span = Explainer(g).span(ret.seq)
    x = Explainer(g).explain(span[0])
    assert [e["seq"] for e in x["order"]["events"]] == list(range(span[0], span[1] + 1))
    assert x["state"]["from"] == span[0] - 1 and x["state"]["to"] == span[1]
    assert any(c.startswith(f"{ret.event.unit}: ") for c in x["state"]["changes"])


def test_opening_events_and_the_reveal_have_no_order(played_example):
    g = played_example("el-alamein").game()
    assert Explainer(g).explain(0)["order"] is None
    x = Explainer(g).explain(first(g, E.SeedRevealed).seq)
    assert x["order"] is None and "revealed the dice seed" in x["cause"]


# --- what a side may not see ------------------------------------------------------------------

def test_dunkerque_hidden_draw_is_not_shown_to_a_side(tmp_path):
    """Dunkerque 3.0(4), 10.0(2): the draw's rolls and order of units are the referee's."""
    g = start_example("dunkerque", tmp_path / "d", 1)
    draw = first(g, "HiddenDraw")
    sealed = [en.event for en in g.entries() if isinstance(en.event, E.SecretRecorded)]
    assert draw.event.units and len(sealed) == len(draw.event.units)
    order = max(en.seq for en in g.entries()[:draw.seq] if isinstance(en.event, E.OrderGiven))
    for side in g.scenario.side_ids():
        x = Explainer(g, side)
        for seq in [order, draw.seq] + [draw.seq + 1 + i for i in range(len(sealed))]:
            out = x.explain(seq)
            dumped = json.dumps(out) + explain_text(out, g.scenario)
            for unit in draw.event.units:
                assert unit not in dumped, (side, seq, unit)
            for s in sealed:
                assert s.salt not in dumped
            assert out["dice"]["rolls"] == []
        assert "rolls" not in x.explain(draw.seq)["event"] and "units" not in x.explain(draw.seq)["event"]
        assert x.explain(draw.seq)["dice"]["hidden"] is True
    # the referee sees the draw and can check it against the seed file: d7, d6, ... d2 (a shuffle)
    ref = Explainer(g).explain(draw.seq)
    assert ref["event"]["units"] == draw.event.units
    assert [r["sides"] for r in ref["dice"]["rolls"]] == list(range(len(draw.event.units), 1, -1))
    assert all(r["checked"] for r in ref["dice"]["rolls"])


def test_a_sealed_secret_of_the_other_side_shows_only_its_commitment(tmp_path, monkeypatch):
    monkeypatch.setenv("PBEM_CLOCK", "2026-01-01T00:00:00Z")
    g = Game.create(tmp_path / "g", "el-alamein", seed_hex="11" * 32, game_id="sealed")
    assert g.submit("axis", "secret plan Rommel strikes 0913 at dawn").refused is None
    rec = first(g, E.SecretRecorded)
    order = rec.seq - 1
    for seq in (order, rec.seq):
        x = Explainer(g, "british").explain(seq)
        dumped = json.dumps(x) + explain_text(x, g.scenario)
        assert rec.event.salt not in dumped and "Rommel strikes" not in dumped
        assert rec.event.commitment[:16] in dumped
        assert x["order"]["text"] == "secret plan (sealed)"
    assert Explainer(g, "british").explain(rec.seq)["event"] == {"side": "axis", "name": "plan",
                                                                 "commitment": rec.event.commitment}
    for viewer in ("axis", "referee"):
        assert "Rommel strikes" in json.dumps(Explainer(g, viewer).explain(rec.seq))
    # once unveiled, anyone checks the payload against the commitment sealed before
    assert g.submit("axis", "unveil plan").refused is None
    opened = first(g, E.SecretRevealed)
    x = Explainer(g, "british").explain(opened.seq)
    assert x["secret"] == {"name": "plan", "commitment": rec.event.commitment, "sealed_at": rec.seq,
                           "matches": True}
    code, out = run("explain", g.dir, rec.seq, "--as", "british")
    assert code == 0 and rec.event.salt not in out and "Rommel" not in out and rec.event.commitment[:16] in out


@pytest.mark.parametrize("side", ["german", "allied"])
def test_explain_as_a_side_from_the_command_line_hides_the_draw(tmp_path, side):
    g = start_example("dunkerque", tmp_path / "d", 1)
    draw = first(g, "HiddenDraw")
    code, out = run("explain", g.dir, draw.seq, "--as", side, "--json")
    assert code == 0
    assert not any(u in out for u in draw.event.units)
    code, out = run("explain", g.dir, draw.seq)
    assert code == 0 and all(u in out for u in draw.event.units)
