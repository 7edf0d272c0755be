"""Issue 10, items 5-9: the game folder's secrecy, creating a game once, the
head anchor, the seed against its commitment, and concurrent report marks.

Tests run as root, which bypasses file permissions, so they check the mode
bits pbem sets and refuses, never whether a file can actually be opened."""
from __future__ import annotations

import json
import multiprocessing
import os
import shutil
import stat
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from pbem.core import dice as D
from pbem.cli import main
from pbem.engine import EngineError, Game
from pbem.log import EventLog

ROOT = Path(__file__).resolve().parent.parent
CLOCK = "2026-01-01T00:00:00Z"
MOVES = "move 8Pz 0612 0712 0812\nend\nattack 0913 with 8Pz\n"   # rolls nothing yet
ROLL = "end\n"                                                      # closes the declarations: rolls the die
FORK = multiprocessing.get_context("fork")


@pytest.fixture(autouse=True)
def fixed_clock(monkeypatch):
    monkeypatch.setenv("PBEM_CLOCK", CLOCK)


def run(*args, input=None):
    # catch_exceptions=False: a traceback fails the test instead of hiding in the result
    return CliRunner().invoke(main, [str(a) for a in args], input=input, catch_exceptions=False)


def mode(p: Path) -> int:
    return stat.S_IMODE(p.stat().st_mode)


def one_line_error(r, *words):
    assert r.exit_code == 1, r.output
    err = r.stderr.strip().splitlines()[-1]            # `reveal` may warn first
    assert err.startswith("pbem: ") and r.stderr.count("pbem: ") == 1, r.stderr
    for w in words:
        assert w in err, err


@pytest.fixture
def seeded(tmp_path):
    g = tmp_path / "g"
    assert run("new", g, "--scenario", "el-alamein", "--seed", "11" * 32).exit_code == 0
    return g


# --- 5. permissions ---------------------------------------------------------------

def test_a_new_game_folder_and_every_file_in_it_are_private(tmp_path):
    old = os.umask(0)                                   # the most permissive umask: pbem sets modes itself
    try:
        g = tmp_path / "g"
        assert run("new", g, "--scenario", "el-alamein").exit_code == 0
        assert run("order", g, "--as", "axis", "-", input=MOVES + ROLL).exit_code == 0
        assert run("state", g).exit_code == 0
        assert run("report", g, "--as", "british").exit_code == 0
        # staged orders (staged.json + its lock) are private too: stage for whichever side is awaited
        # (a line the rules take whatever the dice did: a draft with a refused line is not staged)
        for side in ("axis", "british"):
            run("order", g, "--as", side, "--stage", "-", input="press held\n")
    finally:
        os.umask(old)
    assert mode(g) == 0o700
    files = sorted(p.name for p in g.iterdir())
    assert {"log.jsonl", "log.head", "log.lock", "seed", "scenario.toml", ".state-cache",
            "staged.json", "staged.lock"} <= set(files)
    assert not [f for f in files if f.endswith(".tmp")]
    for name in files:
        assert mode(g / name) == 0o600, f"{name} is {mode(g / name):04o}"


def test_a_log_others_can_read_is_refused_for_writing(seeded):
    assert run("order", seeded, "--as", "axis", "-", input="move 8Pz 0612 0712 0812\n").exit_code == 0
    (seeded / "log.jsonl").chmod(0o644)
    before = (seeded / "log.jsonl").read_bytes()
    one_line_error(run("order", seeded, "--as", "axis", "-", input="end\n"), "0644", "chmod 600")
    one_line_error(run("reveal", seeded, "--force"), "0644", "chmod 600")
    assert (seeded / "log.jsonl").read_bytes() == before
    (seeded / "log.jsonl").chmod(0o600)
    assert run("order", seeded, "--as", "axis", "-", input="end\n").exit_code == 0


def test_read_only_commands_work_on_an_auditors_copy_without_the_seed(seeded, tmp_path):
    assert run("order", seeded, "--as", "axis", "-", input=MOVES + ROLL).exit_code == 0
    audit = tmp_path / "audit"
    audit.mkdir()
    for name in ("log.jsonl", "log.head", "scenario.toml"):
        shutil.copyfile(seeded / name, audit / name)
        (audit / name).chmod(0o644)
    assert run("state", audit).exit_code == 0
    assert run("log", audit, "--as", "axis").exit_code == 0
    r = run("verify", audit)
    # dice scheme 2: rolls of turns not over yet are taken as recorded until their seed is revealed
    assert r.exit_code == 0 and "taken as recorded" in r.output
    # writing is the host's business: the copy is refused for that
    one_line_error(run("order", audit, "--as", "british", "-", input="end\n"), "chmod 600")


def test_verify_in_the_hosts_folder_refuses_a_seed_others_can_read(seeded):
    (seeded / "seed").chmod(0o640)
    r = run("verify", seeded)
    assert r.exit_code == 1 and "0640" in r.stderr and "chmod 600" in r.stderr


# --- 6. creating a game exactly once ------------------------------------------------

def _create(barrier, path, q):
    barrier.wait()
    try:
        Game.create(path, "el-alamein", at=CLOCK)
        q.put("created")
    except EngineError as e:
        q.put(f"refused: {e}")
    except BaseException as e:                          # noqa: BLE001 - reported to the test
        q.put(f"crash: {e!r}")


def test_concurrent_new_creates_one_game_and_refuses_the_others(tmp_path):
    g, n = tmp_path / "g", 4
    barrier, q = FORK.Barrier(n), FORK.Queue()
    procs = [FORK.Process(target=_create, args=(barrier, g, q)) for _ in range(n)]
    for p in procs:
        p.start()
    got = sorted(q.get(timeout=120) for _ in procs)
    for p in procs:
        p.join(timeout=120)
    assert got[0] == "created" and len([x for x in got if x == "created"]) == 1, got
    assert all("already holds a game" in x for x in got[1:]), got
    kinds = [json.loads(ln)["kind"] for ln in (g / "log.jsonl").read_bytes().splitlines()]
    assert kinds.count("GameCreated") == 1
    game = Game(g)
    assert game.verify().ok
    D.read_seed(g / "seed", game.created.seed_commitment)    # the winner's seed, not a loser's


def test_concurrent_pbem_new_processes(tmp_path):
    env = dict(os.environ, PBEM_CLOCK=CLOCK, PYTHONPATH=str(ROOT))     # `pbem` of this checkout
    procs = [subprocess.Popen([sys.executable, "-m", "pbem", "new", "g", "--scenario", "el-alamein"],
                              cwd=tmp_path, env=env,
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True) for _ in range(3)]
    done = [(p.wait(timeout=120), p.stderr.read()) for p in procs]
    for p in procs:
        p.stdout.close()
        p.stderr.close()
    assert sorted(rc for rc, _ in done) == [0, 1, 1], done
    for rc, err in done:
        assert "Traceback" not in err
        if rc:
            assert "already holds a game" in err
    assert run("verify", tmp_path / "g").exit_code == 0


def test_a_log_with_two_game_created_events_gives_a_clear_error(tmp_path):
    g, other = tmp_path / "g", tmp_path / "other"
    Game.create(g, "el-alamein", at=CLOCK)
    Game.create(other, "el-alamein", at=CLOCK)
    # what two racing `pbem new` used to leave: a valid chain holding two games
    second = [json.loads(ln) for ln in (other / "log.jsonl").read_bytes().splitlines()]
    EventLog(g / "log.jsonl").append_many([(d["kind"], d["body"]) for d in second], at=CLOCK)
    for r in (run("state", g), run("order", g, "--as", "axis", "-", input="end\n"), run("reveal", g)):
        one_line_error(r, "line 3", "second GameCreated")
    r = run("verify", g)
    assert r.exit_code == 1 and "second GameCreated" in r.stderr


def test_any_event_the_reducer_cannot_apply_is_a_located_error(tmp_path):
    """The class behind the second GameCreated: a well-chained log the rules never
    wrote must stop replay with the line, not a traceback from inside a reducer."""
    g = tmp_path / "g"
    Game.create(g, "el-alamein", dice=[1], at=CLOCK)
    EventLog(g / "log.jsonl").append("UnitMoved", {"unit": "NOPE", "path": ["0101"], "mp": 1, "ma": 1}, CLOCK)
    for r in (run("state", g), run("order", g, "--as", "axis", "-", input="end\n")):
        one_line_error(r, "line 3", "UnitMoved cannot be applied")
    assert run("verify", g).exit_code == 1


# --- 7. the head anchor -------------------------------------------------------------

@pytest.fixture
def played(seeded):
    assert run("order", seeded, "--as", "axis", "-", input=MOVES + ROLL).exit_code == 0
    recs = EventLog(seeded / "log.jsonl").read()
    return seeded, recs


def edit_last_line(g: Path) -> None:
    """Change the last line in a way the chain and the rules cannot see."""
    data = (g / "log.jsonl").read_bytes()
    cut = data.rindex(b"\n", 0, len(data) - 1) + 1
    last = data[cut:].replace(CLOCK.encode(), b"2026-01-02T00:00:00Z")
    assert last != data[cut:]
    (g / "log.jsonl").write_bytes(data[:cut] + last)


def fails(g: Path, *words, head=None):
    r = run("verify", g, *(["--head", head] if head else []))
    assert r.exit_code == 1, r.output
    for w in words:
        assert w in r.stderr, r.stderr
    return r


def test_verify_passes_with_its_anchor_and_fails_an_edited_last_line(played):
    g, recs = played
    assert run("verify", g).exit_code == 0
    edit_last_line(g)
    fails(g, f"line {len(recs)}", "changed")


def test_a_missing_anchor_fails_unless_head_proves_the_tail(played):
    g, recs = played
    (g / "log.head").unlink()
    fails(g, "no log.head", "cannot be proven", "--head")
    r = run("verify", g, "--head", recs[-1].hash)
    assert r.exit_code == 0 and "proves every line" in r.output
    edit_last_line(g)
    fails(g, "no log.head")
    fails(g, "not the expected", head=recs[-1].hash)


@pytest.mark.parametrize("anchor", ["garbage\n", "", "12 zz\n", "1 2 3\n", "99999999999999999999999 {h}\n",
                                    "-999999 {h}\n", "-1 {h}\n", "+{n} {h}\n"])
def test_an_unreadable_anchor_is_a_finding_never_a_traceback(played, anchor):
    g, recs = played
    (g / "log.head").write_text(anchor.format(h=recs[-1].hash, n=recs[-1].seq))
    fails(g, "log.head", "cannot be proven")
    assert run("verify", g, "--head", recs[-1].hash).exit_code == 0
    edit_last_line(g)
    fails(g, "log.head")


def test_an_anchor_rolled_back_one_line_does_not_prove_the_last_line(played):
    g, recs = played
    edit_last_line(g)
    (g / "log.head").write_text(f"{recs[-2].seq} {recs[-2].hash}\n")
    fails(g, f"anchors seq {recs[-2].seq} only", f"seq {recs[-1].seq}..{recs[-1].seq} cannot be proven")
    fails(g, "not the expected", head=recs[-1].hash)


@pytest.mark.parametrize("past", [1, 10**6])
def test_an_anchor_past_the_end_says_lines_were_removed(played, past):
    g, recs = played
    (g / "log.head").write_text(f"{recs[-1].seq + past} {recs[-1].hash}\n")
    fails(g, "lines were removed")
    fails(g, "lines were removed", head=recs[-1].hash)   # a contradicting anchor is never excused


# --- 8. the seed against its commitment ---------------------------------------------

def test_a_swapped_seed_is_refused_by_verify_rolls_and_reveal(seeded):
    assert run("order", seeded, "--as", "axis", "-", input=MOVES).exit_code == 0
    (seeded / "seed").unlink()
    D.write_seed(seeded / "seed", bytes.fromhex("22" * 32))
    fails(seeded, "does not match the game's seed commitment")
    with pytest.raises(D.DiceError, match="does not match"):
        Game(seeded).seed()
    before = (seeded / "log.jsonl").read_bytes()
    r = run("order", seeded, "--as", "axis", "-", input=ROLL)
    assert r.exit_code == 1 and "does not match the game's seed commitment" in r.stderr
    one_line_error(run("reveal", seeded, "--force"), "does not match")
    assert (seeded / "log.jsonl").read_bytes() == before


# --- 9. reported.json under concurrent reports --------------------------------------

def _mark(barrier, path, side, n, q):
    try:
        g = Game(path)
        barrier.wait()
        for i in range(1, n + 1):
            g.mark_reported(side, i)
        q.put("ok")
    except BaseException as e:                          # noqa: BLE001 - reported to the test
        q.put(repr(e))


def test_concurrent_report_marks_lose_no_update(tmp_path):
    g = tmp_path / "g"
    Game.create(g, "el-alamein", dice=[1], at=CLOCK)
    n, rounds = 6, 40
    barrier, q = FORK.Barrier(n), FORK.Queue()
    procs = [FORK.Process(target=_mark, args=(barrier, g, f"s{k}", rounds, q)) for k in range(n)]
    for p in procs:
        p.start()
    got = [q.get(timeout=120) for _ in procs]
    for p in procs:
        p.join(timeout=120)
    assert got == ["ok"] * n
    assert json.loads((g / "reported.json").read_bytes()) == {f"s{k}": rounds for k in range(n)}
    assert not [p for p in g.iterdir() if p.name.endswith(".tmp")]


def _rewrite(barrier, path, k, q):
    from pbem.log import write_private
    try:
        barrier.wait()
        for i in range(50):
            write_private(path, bytes([65 + k]) * 200_000, sync=False)
        q.put("ok")
    except BaseException as e:                          # noqa: BLE001
        q.put(repr(e))


def test_private_rewrites_by_concurrent_writers_never_mix(tmp_path):
    """The class behind item 9: every rewritten file (anchor, state cache,
    reported.json) goes through write_private, whose temp names are unique."""
    path, n = tmp_path / "f", 4
    barrier, q = FORK.Barrier(n), FORK.Queue()
    procs = [FORK.Process(target=_rewrite, args=(barrier, path, k, q)) for k in range(n)]
    for p in procs:
        p.start()
    got = [q.get(timeout=120) for _ in procs]
    for p in procs:
        p.join(timeout=120)
    assert got == ["ok"] * n
    data = path.read_bytes()
    assert len(data) == 200_000 and len(set(data)) == 1 and mode(path) == 0o600
    assert [p.name for p in tmp_path.iterdir()] == ["f"]
