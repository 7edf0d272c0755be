"""Issue 24, item 2: staged orders are applied exactly once, by concurrent
`pbem order --final` processes, after a SIGKILL at either dangerous point, and
with a FINAL mail and the command line at once.  Real processes, real kill -9
(the PBEM_TEST_PAUSE hook stops a process at a named point for the kill)."""
from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time

import pytest

from pbem import staging
from pbem.engine import Game

DICE = "5,3,2,4,1,6,3,3,2,5,4,1"
STAGED = "press attack at dawn\nmove 8Pz 0612 0712\n"

# A `pbem` process that loads everything, then waits for the GO file: every racer
# enters `--final` at the same moment.
RACER = """
import os, sys, time
from pbem.cli import main
import pbem.engine, pbem.staging
go = sys.argv[1]
while not os.path.exists(go):
    pass
sys.argv = ["pbem", *sys.argv[2:]]
main()
"""


def pbem(*args, env=None, **kw):
    return subprocess.run([sys.executable, "-m", "pbem", *map(str, args)], capture_output=True, text=True,
                          env={**os.environ, **(env or {})}, timeout=60, **kw)


def presses(g) -> list[str]:
    return [en.event.text for en in Game(g).entries() if en.kind == "PressSent"]


@pytest.fixture
def game(tmp_path):
    g = tmp_path / "g"
    assert pbem("new", g, "--scenario", "el-alamein", "--dice", DICE, "--id", "fx").returncode == 0
    return g


def stage(g, text=STAGED):
    r = pbem("order", g, "--as", "axis", "--stage", "-", input=text)
    assert r.returncode == 0, r.stderr


def test_three_concurrent_finals_apply_the_staged_orders_once(game, tmp_path):
    for rnd in range(3):
        stage(game, f"press round {rnd}\n")
        go = tmp_path / f"go{rnd}"
        procs = [subprocess.Popen([sys.executable, "-c", RACER, str(go), "order", str(game), "--as", "axis",
                                   "--final"], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
                 for _ in range(3)]
        time.sleep(0.4)                                    # all three loaded and waiting
        go.write_text("")
        outs = [p.communicate(timeout=60) for p in procs]
        codes = sorted(p.returncode for p in procs)
        assert codes == [0, 1, 1], outs                    # one applied; two found nothing staged
        assert sum("no orders are staged" in err for _o, err in outs) == 2
        assert presses(game) == [f"round {n}" for n in range(rnd + 1)]
        assert staging.staged(Game(game), "axis") is None


def killed_at(game, tmp_path, point: str):
    """A `--final` stopped by SIGKILL at ``point``."""
    flag = tmp_path / f"at-{point}"
    p = subprocess.Popen([sys.executable, "-m", "pbem", "order", str(game), "--as", "axis", "--final"],
                         env={**os.environ, "PBEM_TEST_PAUSE": f"{point}:{flag}"},
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    deadline = time.monotonic() + 30
    while not flag.exists() and p.poll() is None and time.monotonic() < deadline:
        time.sleep(0.01)
    reached = flag.exists()
    p.send_signal(signal.SIGKILL)
    p.communicate()
    assert reached, f"the process never stopped at {point!r}"
    assert p.returncode == -signal.SIGKILL


def test_kill_9_after_marking_loses_nothing(game, tmp_path):
    stage(game)
    killed_at(game, tmp_path, "final-marked")
    assert presses(game) == []                             # nothing in the log yet...
    held = staging.staged(Game(game), "axis")
    assert held is not None and held["applying"]["seq"] == Game(game).head()[0]    # ...and nothing lost
    r = pbem("order", game, "--as", "axis", "--final")
    assert r.returncode == 0 and "applied  line 1: press attack at dawn" in r.stdout, r.stderr
    assert presses(game) == ["attack at dawn"]
    assert Game(game).state().units["8Pz"].hex == "0712"
    assert staging.staged(Game(game), "axis") is None


def test_kill_9_after_applying_never_applies_twice(game, tmp_path):
    stage(game)
    killed_at(game, tmp_path, "final-applied")
    assert presses(game) == ["attack at dawn"]             # in the log, the entry still there
    assert staging.staged(Game(game), "axis") is not None
    # another side's press moves the head first: the check keys on the marked head, not the last one
    assert pbem("order", game, "--as", "british", "-", input="press hello\n").returncode == 0
    r = pbem("order", game, "--as", "axis", "--final")
    assert r.returncode == 0 and "not applied again" in r.stdout, (r.stdout, r.stderr)
    assert presses(game) == ["attack at dawn", "hello"]
    assert staging.staged(Game(game), "axis") is None
    r = pbem("order", game, "--as", "axis", "--final")
    assert r.returncode == 1 and "no orders are staged" in r.stderr


def test_a_restaged_set_after_a_crash_is_applied_not_taken_for_the_old_one(game, tmp_path):
    stage(game)
    killed_at(game, tmp_path, "final-applied")
    r = pbem("order", game, "--as", "axis", "--stage", "-", input="press and again\n")
    assert r.returncode == 0, r.stderr
    assert "applying" not in staging.staged(Game(game), "axis")
    assert pbem("order", game, "--as", "axis", "--final").returncode == 0
    assert presses(game) == ["attack at dawn", "and again"]


# --- a FINAL mail and the command line ---------------------------------------------------------

def test_a_final_mail_crashed_after_applying_and_a_cli_final_apply_once(tmp_path, monkeypatch):
    from mail_helpers import AXIS, CLOCK, deliver, make_host, message, new_game, secret
    from pbem.host import crash
    monkeypatch.setenv("PBEM_CLOCK", CLOCK)
    monkeypatch.delenv("PBEM_HOST", raising=False)
    host = make_host(tmp_path / "h")
    g = new_game(host, dice=[int(x) for x in DICE.split(",")])
    staging.stage(Game(g.dir), "axis", STAGED)
    deliver(host, message(AXIS, f"Token: {secret(g, 'axis')}\nFINAL\n", mid="f1@example.org"))

    def die(point):                                             # the host dies with the orders in the log
        if point == "final-applied":
            raise crash.SimulatedCrash(point)
    monkeypatch.setattr(staging, "pause", die)
    with pytest.raises(crash.SimulatedCrash):
        host.poll()
    monkeypatch.setattr(staging, "pause", lambda point: None)
    assert presses(g.dir) == ["attack at dawn"]
    r = pbem("order", g.dir, "--as", "axis", "--final")         # the host's operator, before the host recovers
    assert r.returncode == 0 and "not applied again" in r.stdout, (r.stdout, r.stderr)
    [oc] = host.poll()                                          # the host finishes its job from the journal
    assert oc.status == "accepted", oc
    assert presses(g.dir) == ["attack at dawn"]
    assert [json.loads(x)["kind"] for x in (g.dir / "log.jsonl").read_bytes().splitlines()].count("UnitMoved") == 1
