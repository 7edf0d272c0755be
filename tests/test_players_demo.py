"""Issue 16, item 8: the El Alamein by-mail demo uses CHECK, a staged turn
made FINAL, HELP, STATUS and press, and still plays the command-line game
event for event (the press comes after the last step, so no die moves)."""
from __future__ import annotations

import email
import re
from email import policy

import pytest

from mail_helpers import CLOCK, EXAMPLE
from pbem.engine import Game
from pbem.host.mailplay import demo
from pbem.playbook import play


@pytest.fixture(autouse=True)
def fixed_clock(monkeypatch):
    monkeypatch.setenv("PBEM_CLOCK", CLOCK)
    monkeypatch.delenv("PBEM_HOST", raising=False)


def bodies(outbox) -> list[str]:
    out = []
    for f in sorted(outbox.glob("*.eml")):
        msg = email.message_from_bytes(f.read_bytes(), policy=policy.default)
        out.append(msg.get_body(preferencelist=("plain",)).get_content().replace("\r\n", "\n"))
    return out


def test_mail_demo_uses_the_players_commands_and_plays_the_same_game(tmp_path):
    summary = demo(EXAMPLE, tmp_path / "mail", echo=lambda s: None, maps=False)
    assert "British Commonwealth wins" in summary
    play(EXAMPLE, tmp_path / "cli", echo=lambda s: None, maps=False)
    by_mail = (tmp_path / "mail" / "games" / "el-alamein-example" / "log.jsonl").read_bytes().splitlines()
    direct = (tmp_path / "cli" / "log.jsonl").read_bytes().splitlines()
    # the same game, line for line, up to the reveal; the mail game adds the players' two press lines
    assert by_mail[:len(direct) - 1] == direct[:-1]
    import json
    tail = [json.loads(ln)["kind"] for ln in by_mail[len(direct) - 1:]]
    assert tail == ["OrderGiven", "PressSent", "OrderGiven", "PressSent", "SeedRevealed"]
    g = Game(tmp_path / "mail" / "games" / "el-alamein-example")
    assert g.verify().ok
    texts = bodies(tmp_path / "mail" / "outbox")
    assert any(t.startswith("CHECKED: nothing was applied") and "needs dice" in t for t in texts)
    assert any(t.startswith("STAGED: your orders are held") for t in texts)
    assert any("FINAL: your staged orders were applied" in t for t in texts)
    assert any("\nHELP\n" in t and "\nSTATUS\n" in t and re.search(r"line \d+: Good morning, referee\.", t) for t in texts)
    assert any("German-Italian writes: Well played" in t for t in texts)
