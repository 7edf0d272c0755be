"""Issue 10 item 1: every text a side receives passes its view.

Every example game is played twice, through the two ways a side receives text:
by mail through a host (answers, reports, notices, deadlines) and by
`pbem order --as SIDE` (the CLI echo of applied events).  Every mail to a side
and every CLI output of a side is then searched for every secret of the other
sides and of the referee that was still sealed at that point: sealed payloads
(with their salts), Dunkerque's hidden draw, and the dice seed.
"""
from __future__ import annotations

import tomllib
from dataclasses import dataclass
from email import policy
from email.parser import BytesParser
from pathlib import Path

import pytest
from click.testing import CliRunner

from pbem.core import events as E
from pbem.games.panzer_corps.events import HiddenDraw
from pbem.cli import main
from pbem.engine import Game
from pbem.host.mailplay import demo

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"
ALL = sorted(p.name for p in EXAMPLES.iterdir() if (p / "playbook.toml").is_file())
NEVER = 1 << 60                     # "never revealed"


@dataclass
class Secret:
    owner: str                      # the side that may see it ("referee": nobody but the referee)
    texts: list[str]                # strings that would give it away
    until: int                      # seq of the event that makes it public (NEVER if none)


def secrets_of(game: Game) -> list[Secret]:
    """Every secret in a finished game's log, with what would betray it and when it became public."""
    entries = game.entries()
    revealed: dict[tuple[str, str], int] = {}
    seed_at = NEVER
    for en in entries:
        if isinstance(en.event, E.SecretRevealed):
            revealed.setdefault((en.event.side, en.event.name), en.seq)
        if isinstance(en.event, E.SeedRevealed):
            seed_at = en.seq
    out = []
    for en in entries:
        ev = en.event
        if isinstance(ev, E.SecretRecorded):
            texts = [ev.salt, f"{ev.name} {ev.payload}", f"{ev.name}: {ev.payload}"]
            if " " in ev.payload or len(ev.payload) >= 8:       # long enough not to occur by chance
                texts.append(ev.payload)
            out.append(Secret(ev.side, texts, revealed.get((ev.side, ev.name), NEVER)))
        elif isinstance(ev, HiddenDraw):                      # Dunkerque 10.0(2): the referee's alone
            texts = ["Referee only"] + [f"turn {t} {u}" for t, u in zip(ev.slots, ev.units)]
            out.append(Secret("referee", texts, NEVER))
    seed = (game.dir / "seed").read_text().strip() if (game.dir / "seed").exists() else ""
    if seed:
        out.append(Secret("referee", [seed], seed_at))
    return out


def leaks(secrets: list[Secret], side: str, seq: int, text: str) -> list[str]:
    """The secrets ``text`` (received by ``side`` when the game stood at ``seq``) gives away."""
    return [t for s in secrets if s.owner != side and seq < s.until for t in s.texts if t and t in text]


def _seq_of(head: str, game: Game) -> int:
    for en in game.entries():
        if en.hash == head:
            return en.seq
    return -1


@pytest.mark.parametrize("example", ALL)
def test_no_mail_to_a_side_gives_away_a_secret_of_another(example, tmp_path):
    demo(EXAMPLES / example, tmp_path / "host", echo=lambda *_: None, maps=False)
    [gdir] = [d for d in (tmp_path / "host" / "games").iterdir() if (d / "log.jsonl").is_file()]
    game = Game(gdir)
    secrets = secrets_of(game)
    checked = 0
    for f in sorted((tmp_path / "host" / "outbox").glob("*.eml")):
        msg = BytesParser(policy=policy.default).parsebytes(f.read_bytes())
        side = str(msg["X-pbem-Side"] or "")
        if side == "referee":
            continue
        head = str(msg["X-pbem-Head"] or "")
        seq = _seq_of(head, game) if head else -1
        found = leaks(secrets, side, seq, msg.as_string())
        assert not found, f"{f.name} to {side} at seq {seq} gives away {found}"
        checked += 1
    assert checked > 10


@pytest.mark.parametrize("example", ALL)
def test_no_cli_output_to_a_side_gives_away_a_secret_of_another(example, tmp_path):
    book = tomllib.loads((EXAMPLES / example / "playbook.toml").read_text())
    gdir = tmp_path / "g"
    args = ["new", str(gdir), "--scenario", book["scenario"], "--id", book.get("id", example)]
    for side, addr in book.get("players", {}).items():
        args += ["--player", f"{side}={addr}"]
    args += ["--seed", book["seed"]] if book.get("seed") else ["--dice", ",".join(map(str, book["dice"]))]
    args += ["--dice-scheme", str(book.get("dice_scheme", 1))]     # the examples' dice (playbook.py)
    r = CliRunner().invoke(main, args)
    assert r.exit_code == 0, r.output
    sides = Game(gdir).scenario.side_ids()
    outputs = []
    for step in book["steps"]:
        side = next(s for s in sides if Path(step).stem.endswith("-" + s))
        r = CliRunner().invoke(main, ["order", str(gdir), str(EXAMPLES / example / step),
                                          "--as", side])
        assert r.exit_code == 0, r.output                       # stdout and stderr together
        outputs.append((side, Game(gdir).head()[0], r.output))
        log = CliRunner().invoke(main, ["log", str(gdir), "--as", side]).output
        outputs.append((side, Game(gdir).head()[0], log))
    secrets = secrets_of(Game(gdir))
    for side, seq, text in outputs:
        found = leaks(secrets, side, seq, text)
        assert not found, f"{side}'s output at seq {seq} gives away {found}"
