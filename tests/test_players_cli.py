"""Issue 16, players (command line and engine): `pbem order --check`, staged
orders (--stage / --final), press, a report without side effects, and no
order after the seed is revealed."""
from __future__ import annotations

import re

import json
import stat

import pytest
from click.testing import CliRunner

from pbem.cli import main
from pbem.engine import Game
from pbem import staging

CLOCK = "2026-01-01T00:00:00Z"
DICE = "5,3,2,4,1,6,3,3,2,5,4,1"


@pytest.fixture(autouse=True)
def fixed_clock(monkeypatch):
    monkeypatch.setenv("PBEM_CLOCK", CLOCK)


def run(*args, input=None):
    return CliRunner().invoke(main, [str(a) for a in args], input=input, catch_exceptions=False)


@pytest.fixture
def game(tmp_path):
    g = tmp_path / "g"
    assert run("new", g, "--scenario", "el-alamein", "--dice", DICE, "--id", "pl").exit_code == 0
    return g


def log(g) -> bytes:
    return (g / "log.jsonl").read_bytes()


def test_check_says_what_would_happen_and_writes_nothing(game):
    before = log(game)
    r = run("order", game, "--as", "axis", "--check", "-", input="move 8Pz 0612 0712\nmove 8Pz 0812\nend\n")
    assert r.exit_code == 1
    assert "would apply  line 1: move 8Pz 0612 0712" in r.output
    assert "8Pz moves via 0612 to 0712" in r.output
    assert "would REFUSE line 2: 8Pz has already moved this phase (rule 8.1(2))" in r.output
    assert "not applied  end" in r.output and "nothing was written" in r.output
    assert log(game) == before and not (game / "staged.json").exists()


def test_check_rolls_no_die_and_checks_past_it_with_every_outcome(game):
    before = log(game)
    r = run("order", game, "--as", "axis", "--check", "-",
            input="move 8Pz 0612 0712 0812\nend\nattack 0913 with 8Pz\nend\nmove 5Pz 0512\n")
    assert "would apply  line 3: attack 0913 with 8Pz" in r.output
    assert "needs dice   line 4: end" in r.output
    # issue 26 item 3: the move after the combat is checked with every outcome of its roll, and refused with each
    # (the game waits for a retreat, 9.5(1), or the movement phase is over, 5.0), as the real orders would be
    assert "would REFUSE line 5:" in r.output and "[move 5Pz 0512] - whatever the roll" in r.output
    assert r.exit_code == 1
    assert not re.search(r"\bdie \d", r.output)                 # no roll shown, before the roll or after it
    assert log(game) == before
    # the real dice are untouched: the same orders applied afterwards roll the script's first die
    r = run("order", game, "--as", "axis", "-", input="move 8Pz 0612 0712 0812\nend\nattack 0913 with 8Pz\nend\n")
    assert r.exit_code == 0 and "die 5" in r.output


def test_stage_replace_and_final(game):
    before = log(game)
    r = run("order", game, "--as", "axis", "--stage", "-", input="move 8Pz 0612\n")
    assert r.exit_code == 0 and "would apply  line 1: move 8Pz 0612" in r.output and "staged" in r.output
    r = run("order", game, "--as", "axis", "--stage", "-", input="move 8Pz 0612 0712\n")   # replaces
    assert log(game) == before                                     # not an event
    path = game / staging.STAGED_NAME
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert staging.staged(Game(game), "axis")["text"] == "move 8Pz 0612 0712\n"
    r = run("order", game, "--as", "axis", "--final")
    assert r.exit_code == 0 and "applied  line 1: move 8Pz 0612 0712" in r.output
    assert staging.staged(Game(game), "axis") is None
    assert Game(game).state().units["8Pz"].hex == "0712"
    r = run("order", game, "--as", "axis", "--final")
    assert r.exit_code == 1 and "no orders are staged" in r.stderr
    run("order", game, "--as", "axis", "--stage", "-", input="move 5Pz 0512\n")
    assert run("order", game, "--as", "axis", "-", input="move 104 0512\n").exit_code == 0
    assert staging.staged(Game(game), "axis") is None


def test_staged_orders_of_a_step_the_game_left_are_dropped(game):
    run("order", game, "--as", "axis", "--stage", "-", input="move 8Pz 0612\n")
    assert Game(game).submit("axis", "end\n").refused is None        # the movement phase is over (not via --as:
    # an order applied from the command line replaces what was staged)
    r = run("order", game, "--as", "axis", "--final")
    assert r.exit_code == 1 and "step the game has left" in r.stderr
    assert Game(game).state().units["8Pz"].hex != "0612"


def test_press_is_a_public_core_event(game):
    r = run("order", game, "--as", "axis", "-", input="press Good luck, General!\n")
    assert r.exit_code == 0
    g = Game(game)
    ev = g.entries()[-1].event
    assert type(ev).__name__ == "PressSent" and ev.side == "axis" and ev.text == "Good luck, General!"
    rows = [json.loads(x) for x in run("log", game, "--as", "british", "--json").output.splitlines()]
    assert rows[-1]["kind"] == "PressSent" and rows[-1]["body"]["text"] == "Good luck, General!"
    assert g.verify().ok
    assert run("order", game, "--as", "axis", "-", input="press\n").exit_code == 1


def test_report_has_no_side_effect_and_since_is_explicit(game):
    run("order", game, "--as", "axis", "-", input="move 8Pz 0612 0712 0812\nend\nattack 0913 with 8Pz\nend\n")
    first = run("report", game, "--as", "british").output
    again = run("report", game, "--as", "british").output
    assert first == again and "die 5" in first
    assert not (game / "reported.json").exists()
    seq = json.loads(run("state", game, "--json").output)["seq"]
    assert "Nothing new." in run("report", game, "--as", "british", "--since", seq).output


def test_reveal_before_the_end_needs_force_and_then_no_order_is_applied(tmp_path):
    g = tmp_path / "s"
    run("new", g, "--scenario", "el-alamein")
    before = log(g)
    r = run("reveal", g)
    assert r.exit_code == 1 and "--force" in r.stderr and "not over" in r.stderr
    assert log(g) == before
    assert run("reveal", g, "--force").exit_code == 0
    after = log(g)
    r = run("order", g, "--as", "axis", "-", input="move 8Pz 0612\n")
    assert r.exit_code == 1 and "seed of this game has been revealed" in r.stderr
    assert log(g) == after
    # the engine refuses it, whoever calls it (mail, deadlines, scripts)
    sub = Game(g).submit("british", "end\n")
    assert sub.refused is not None and "revealed" in sub.refused.message and not sub.applied
    assert log(g) == after


def test_help_and_setup_choices_have_neutral_defaults():
    """A game that declares no order forms gets the core verbs' (core/forms.py) and no choices."""
    from pbem.core.ruleset import Ruleset
    from pbem.core.scenario import load
    from pbem.core.turn import Turn
    from pbem.games import ruleset_for
    sc = load("el-alamein")
    rules = ruleset_for(sc.game)
    g_state = rules.new_state(sc, "x")
    lines = Turn(rules, sc, g_state).help("axis")
    assert any(x.startswith("move UNIT HEX") for x in lines) and any(x.startswith("press TEXT") for x in lines)
    assert Turn(Ruleset(), sc, g_state).setup("axis") == ()
