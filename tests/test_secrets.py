"""Sealed secrets (design.md § Decisions and secrets): one side's orders that
the other side sees only as a commitment until they are unveiled."""
from __future__ import annotations

import hashlib
import json

import pytest
from click.testing import CliRunner

from pbem.report import render
from pbem.cli import main
from pbem.engine import Game
from pbem.views import log_view, state_view

AT = "2026-01-01T00:00:00Z"
PAYLOAD = "zebra reserve waits behind the ridge"


@pytest.fixture(params=["scripted", "seeded"])
def game(request, tmp_path):
    if request.param == "scripted":
        g = Game.create(tmp_path / "g", "el-alamein", dice=[3] * 20, game_id="sec", at=AT)
    else:
        g = Game.create(tmp_path / "g", "el-alamein", game_id="sec", at=AT)
    sub = g.submit("british", f"secret plan {PAYLOAD}", at=AT)
    assert sub.refused is None
    return g


def everything_axis_sees(g: Game) -> str:
    entries = g.entries()
    st = g.state()
    head = entries[-1].hash
    parts = [
        json.dumps(log_view(entries, "axis", g.rules)),
        json.dumps(state_view(g, st, "axis", head)),
        render.report_text(g, "axis", st, entries, 0, head),
        render.report_svg(g, "axis", st, entries, 0, head),
        bytes(render.report_eml(g, "axis", st, entries, 0, head)).decode("utf-8", "replace"),
        CliRunner().invoke(main, ["log", str(g.dir), "--as", "axis"]).output,
        CliRunner().invoke(main, ["log", str(g.dir), "--as", "axis", "--json"]).output,
        CliRunner().invoke(main, ["report", str(g.dir), "--as", "axis", "--since", "0"]).output,
    ]
    return "\n".join(parts)


def test_other_side_sees_only_the_commitment(game):
    seen = everything_axis_sees(game)
    assert "zebra" not in seen.lower() and "behind the ridge" not in seen
    rec = next(e.event for e in game.entries() if e.kind == "SecretRecorded")
    assert rec.commitment in seen                      # the commitment itself is public
    assert rec.salt not in seen                        # the salt would let the axis test guesses


def test_own_side_and_referee_see_the_payload(game):
    for side in ("british", "referee"):
        rows = json.dumps(log_view(game.entries(), side, game.rules))
        assert PAYLOAD in rows


def test_unveil_proves_the_secret_was_not_changed(game):
    sub = game.submit("british", "unveil plan", at=AT)
    assert sub.refused is None
    rec = next(e.event for e in game.entries() if e.kind == "SecretRecorded")
    rev = next(e.event for e in game.entries() if e.kind == "SecretRevealed")
    assert rev.payload == PAYLOAD
    assert hashlib.sha256((rev.salt + rev.payload).encode()).hexdigest() == rec.commitment
    assert PAYLOAD in everything_axis_sees(game)        # once unveiled it is public
    assert game.verify().ok


def test_secret_refusals_leave_the_log_unchanged(game):
    before = (game.dir / "log.jsonl").read_bytes()
    for side, text, needle in [
        ("british", "secret plan again", "already sealed"),
        ("axis", "unveil plan", "no sealed secret"),
        ("british", "unveil other", "no sealed secret"),
        ("british", "secret", "secret needs a name"),
        ("british", "secret bad/name x", "secret needs a name"),
    ]:
        sub = game.submit(side, text, at=AT)
        assert sub.refused is not None and needle in str(sub.refused)
        assert (game.dir / "log.jsonl").read_bytes() == before


def test_verify_rechecks_secrets_without_the_seed(game):
    (game.dir / "seed").unlink(missing_ok=True)
    assert game.verify().ok


def test_verify_catches_a_swapped_payload(game):
    """Changing the payload (and re-chaining) breaks the commitment check."""
    from pbem.log import line_hash
    path = game.dir / "log.jsonl"
    out, prev = [], "0" * 64
    for ln in path.read_bytes().splitlines():
        d = json.loads(ln)
        if d["kind"] in ("SecretRecorded", "OrderGiven") and PAYLOAD in json.dumps(d):
            if d["kind"] == "SecretRecorded":
                d["body"]["payload"] = "attack at dawn"
            else:
                d["body"]["text"] = "secret plan attack at dawn"
        d["prev"] = prev
        b = json.dumps(d, separators=(",", ":")).encode()
        prev = line_hash(prev, b)
        out.append(b)
    path.write_bytes(b"\n".join(out) + b"\n")
    (game.dir / "log.head").write_text(f"{len(out) - 1} {prev}\n")
    (game.dir / ".state-cache").unlink(missing_ok=True)
    rep = Game(game.dir).verify()
    assert not rep.ok and "the rules give" in rep.problems[0]
