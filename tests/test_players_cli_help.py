"""Issue 27 at the command line: `pbem help` and `pbem status` say what the mail's HELP
and STATUS say; `pbem order FILE` reads a file as the mail reads a mail (free text listed
as ignored, not a refusal of the whole file); a --stage with a refused line keeps what was
held, --unstage drops it; `pbem report` in a set-up lists the set-up choices; sides by
their names as `pbem scenarios` prints them; "did you mean" for scenario ids, sides and
formations (the asking side's only); a move into the hex a unit is in says so."""
from __future__ import annotations

import pytest
from click.testing import CliRunner

from pbem import staging
from pbem.cli import main
from pbem.engine import Game

CLOCK = "2026-01-01T00:00:00Z"
DICE = "5,3,2,4,1,6,3,3,2,5,4,1"
SEED = "ab" * 32


@pytest.fixture(autouse=True)
def fixed_clock(monkeypatch):
    monkeypatch.setenv("PBEM_CLOCK", CLOCK)
    monkeypatch.delenv("PBEM_HOST", raising=False)


def run(*args, input=None):
    return CliRunner().invoke(main, [str(a) for a in args], input=input, catch_exceptions=False)


def new(tmp_path, scenario="el-alamein", name="g", **kw):
    g = tmp_path / name
    r = run("new", g, "--scenario", scenario, *(["--dice", DICE] if scenario == "el-alamein" else ["--seed", SEED]),
            "--id", name)
    assert r.exit_code == 0, r.output
    return g


def log(g) -> bytes:
    return (g / "log.jsonl").read_bytes()


def test_help_and_status_say_what_the_mail_says(tmp_path):
    from pbem.host.mailcmd import help_lines, status_lines
    g = new(tmp_path)
    game = Game(g)
    r = run("help", g, "--as", "axis")
    assert r.exit_code == 0
    assert r.output.splitlines() == help_lines(game, game.state(), "axis")
    assert "The game waits for you now:" in r.output and "  UNDO " in r.output
    r = run("status", g, "--as", "British Commonwealth")          # the name `pbem scenarios` prints
    assert r.exit_code == 0
    st, head = game.state_and_hash()
    assert r.output.splitlines() == status_lines(None, game, st, "british", head)
    assert "you play British Commonwealth" in r.output and "Waiting for German-Italian: movement" in r.output
    r = run("status", g, "--as", "britsh")
    assert r.exit_code == 1 and "unknown side 'britsh'; did you mean British Commonwealth (british)?" in r.stderr


def test_status_of_a_hosted_game_names_the_deadline(tmp_path):
    import sys
    sys.path.insert(0, str(__import__("pathlib").Path(__file__).parent))
    from mail_helpers import make_host, new_game
    host = make_host(tmp_path / "h", period="48h")
    game = new_game(host, dice=[5, 3, 2, 4])
    r = run("status", game.dir, "--as", "axis")
    assert r.exit_code == 0 and "Deadline for your movement: due by 2026-01-03T00:00:00Z." in r.output


def test_an_orders_file_reads_as_a_mail(tmp_path):
    g = new(tmp_path)
    r = run("order", g, "--as", "axis", "-",
            input="Dear opponent,\nmove 8Pz 0612 0712\nHELP\nBest regards, Erwin\n")
    assert r.exit_code == 0, r.output
    assert "ignored  line 1: Dear opponent," in r.output and "ignored  line 4: Best regards, Erwin" in r.output
    assert "applied  line 2: move 8Pz 0612 0712" in r.output and "HELP\n  Orders of this game" in r.output
    assert Game(g).state().units["8Pz"].hex == "0712"
    # a misspelt order is still refused with its reason, as by mail
    r = run("order", g, "--as", "axis", "-", input="mvoe 5Pz 0512\n")
    assert r.exit_code == 1 and "REFUSED  line 1" in r.stderr


def test_a_refused_stage_keeps_the_held_orders_and_unstage_drops_them(tmp_path):
    g = new(tmp_path)
    before = log(g)
    assert run("order", g, "--as", "axis", "--stage", "-", input="move 8Pz 0612 0712\n").exit_code == 0
    held = staging.staged(Game(g), "axis")
    r = run("order", g, "--as", "axis", "--stage", "-", input="move 5Pz 0512\nmove 5Pz 0412\n")
    assert r.exit_code == 1 and "would REFUSE line 2" in r.output
    assert "these orders were not staged; the orders staged at 2026-01-01T00:00:00Z are kept as they were" in r.stderr
    assert staging.staged(Game(g), "axis") == held
    r = run("order", g, "--as", "axis", "--unstage")
    assert r.exit_code == 0 and "were dropped; nothing is staged now" in r.output
    assert staging.staged(Game(g), "axis") is None and log(g) == before
    r = run("order", g, "--as", "axis", "--unstage")
    assert "You had no orders staged" in r.output


def test_report_in_a_set_up_lists_the_set_up_choices(tmp_path):
    g = new(tmp_path, "red-devils", "rd")
    r = run("report", g, "--as", "british")
    assert r.exit_code == 0
    assert "YOUR SET-UP CHOICES NOW" in r.output and "place 1Border HEX: 0906 or 1105" in r.output
    r = run("report", g, "--as", "german")
    assert "place 1Border" not in r.output


def test_mirages_choices_are_not_set_up_choices_and_formations_are_the_asking_sides(tmp_path):
    g = new(tmp_path, "mirages-skorpion", "m1")
    r = run("help", g, "--as", "axis")
    assert "Your Ops Phase choices now:" in r.output and "set-up" not in r.output.lower()
    r = run("report", g, "--as", "Axis")
    assert "YOUR OPS PHASE CHOICES NOW" in r.output and "activate cramer" in r.output
    r = run("order", g, "--as", "axis", "--check", "-", input="activate herf\n")
    assert "unknown formation 'herf'; did you mean herff? your formations: cramer, herff" in r.output
    r = run("order", g, "--as", "axis", "-", input="activate cramer\n")
    assert r.exit_code == 0
    r = run("order", g, "--as", "axis", "--check", "-", input="move IPz8 1713\n")     # IPz8 is in 1713
    assert "the path enters 1713, where the unit is already" in r.output and "not next to 1713" not in r.output
    r = run("status", g, "--as", "Commonwealth")
    assert r.exit_code == 0 and "you play Commonwealth" in r.output


def test_did_you_mean_a_scenario(tmp_path):
    r = run("new", tmp_path / "x", "--scenario", "mirages-skorpio")
    assert r.exit_code == 1 and "unknown scenario 'mirages-skorpio'; did you mean mirages-skorpion?" in r.stderr


def test_new_takes_sides_by_name(tmp_path):
    g = tmp_path / "m"
    r = run("new", g, "--scenario", "mirages-skorpion", "--seed", SEED, "--player", "Commonwealth=c@example.org",
            "--player", "axis=a@example.org", "--tz", "Commonwealth=Europe/London")
    assert r.exit_code == 0, r.output
    assert Game(g).created.players == {"allied": "c@example.org", "axis": "a@example.org"}
