"""Every read of a game checks the chain up to the head it uses (issue 28): a state
cache is trusted only for the very log file whose chain was checked when it was
written, and log.head must not contradict the last line.  A damaged copy with a
stale .state-cache gives the same "hash chain broken" as one without it."""
from __future__ import annotations

import shutil

import pytest
from click.testing import CliRunner

from pbem.cli import main
from pbem.cli_fast import fast
from pbem.engine import Game
from pbem.log import LogError


def _damage_a_middle_line(g: Game) -> None:
    """Line 4's text changed in place, the chain not re-hashed (what a careless edit or bit rot does)."""
    lines = g.log.path.read_bytes().split(b"\n")
    i = next(n for n, ln in enumerate(lines) if b'"OrderGiven"' in ln)
    lines[i] = lines[i].replace(b'"axis"', b'"xaxi"', 1)
    assert lines[i] != g.log.path.read_bytes().split(b"\n")[i]
    g.log.path.write_bytes(b"\n".join(lines))


@pytest.fixture
def game(played_example, tmp_path):
    g = Game(played_example("el-alamein").copy(tmp_path / "g"))
    g.state()                                   # a warm cache, as on the host's own folder
    assert (g.dir / ".state-cache").exists()
    return g


def test_a_damaged_copy_with_a_stale_state_cache_is_refused_as_without_it(game, tmp_path):
    copy = tmp_path / "copy"
    shutil.copytree(game.dir, copy)             # the cache comes along, naming the same head
    damaged = Game(copy)
    _damage_a_middle_line(damaged)
    with pytest.raises(LogError, match="hash chain broken"):
        Game(copy).state()
    # the commands say so and exit 1, as they do when there is no cache at all
    for args in (["state", str(copy)], ["report", str(copy), "--as", "axis"], ["log", str(copy)]):
        assert fast(args) is None               # the fast path leaves a broken game to click's words
        r = CliRunner().invoke(main, args)
        assert r.exit_code == 1 and "hash chain broken" in r.output, (args, r.output)
    (copy / ".state-cache").unlink(missing_ok=True)
    r = CliRunner().invoke(main, ["state", str(copy)])
    assert r.exit_code == 1 and "hash chain broken" in r.output


def test_an_edit_in_place_is_caught_too(game):
    _damage_a_middle_line(game)
    with pytest.raises(LogError, match="hash chain broken"):
        Game(game.dir).state()


def test_an_intact_copy_is_checked_once_then_read_from_its_cache(game, tmp_path, monkeypatch):
    copy = Game(shutil.copytree(game.dir, tmp_path / "copy"))
    replays = []
    real = Game._replay_log

    def counting(self, upto=None):
        replays.append(upto)
        return real(self, upto)
    monkeypatch.setattr(Game, "_replay_log", counting)
    want = game.state()
    assert replays == []                        # the host's own folder: the cache, no replay
    assert Game(copy.dir).state() == want and replays == [None]      # a copy: its chain checked once
    assert Game(copy.dir).state() == want and replays == [None]      # then its own cache again


def test_log_head_contradicting_the_last_line_is_refused_a_lagging_one_is_read(game):
    seq, head = game.head()
    anchor = game.dir / "log.head"
    anchor.write_text(f"{seq} {'0' * 64}\n")
    with pytest.raises(LogError, match="log.head"):
        Game(game.dir).state()
    anchor.write_text(f"{seq + 3} {head}\n")
    with pytest.raises(LogError, match="lines were removed"):
        Game(game.dir).state()
    entries = game.entries()
    anchor.write_text(f"{seq - 1} {entries[-2].hash}\n")      # an interrupted write: verify's finding
    assert Game(game.dir).state().seq == seq
    anchor.write_text(f"{seq} {head}\n")
    assert Game(game.dir).state().seq == seq
