"""Eight workers on one database take one inbox (real processes of `pbem serve
--workers 8`, real SIGKILLs): every order is applied exactly once, in its own
game, no game forks, every chain verifies, every mail is answered once.

Sizes: the issue's run is 1,000 mails for 50 games, and 100 kills of a random
worker during it.  On the suite's two shared cores that is minutes, so the
suite runs 8 workers on 64 mails for 4 games (16 mails a game: the workers
meet on every game, about 7 s each on two cores) and 8 kills, each while mail
is waiting; the full run is the benchmark's
(`tests/benchmark_store.py --race`), or `PBEM_RACE_FULL=1 bash tests/run.sh
tests/test_store_race.py`."""
from __future__ import annotations

import os

import pytest

from race_helpers import build, check, serve

FULL = os.environ.get("PBEM_RACE_FULL") == "1"
MAILS, GAMES, KILLS = (1000, 50, 100) if FULL else (64, 4, 8)


@pytest.fixture(autouse=True)
def fixed_clock(monkeypatch):
    monkeypatch.setenv("PBEM_CLOCK", "2026-01-01T00:00:00Z")
    monkeypatch.delenv("PBEM_HOST", raising=False)


def test_eight_workers_apply_every_order_of_one_inbox_exactly_once(tmp_path, pg_url):
    plan = build(tmp_path / "host", pg_url, GAMES, MAILS)
    ran = serve(tmp_path / "host", workers=8, timeout=3000 if FULL else 400)
    assert ran["mails"] == MAILS
    assert check(tmp_path / "host", plan) == {"games": GAMES, "mails": MAILS}


def test_killing_random_workers_loses_and_doubles_nothing(tmp_path, pg_url):
    plan = build(tmp_path / "host", pg_url, GAMES, MAILS, seed=31)
    ran = serve(tmp_path / "host", workers=8, kills=KILLS, timeout=3000 if FULL else 400, seed=31)
    assert ran["killed"] == KILLS                                    # the kills happened while mail was waiting
    log = (tmp_path / "host" / "supervisor.log").read_text()
    assert log.count("killed by SIGKILL") == KILLS                    # ... and the supervisor restarted each
    assert check(tmp_path / "host", plan) == {"games": GAMES, "mails": MAILS}


def test_deadlines_are_taken_by_one_worker_at_a_time(tmp_path, pg_url):
    """Issue 30: deadlines as rows, taken by one worker at a time.  Six games whose first
    deadline has passed; four `pbem mail poll` processes on the database, released at one
    instant: each game's default is applied once and its deadline mail sent once."""
    import subprocess
    import sys
    import time
    from pg_helpers import use_database
    from mail_helpers import make_host
    from pbem.engine import Game
    from pbem.host import Host
    from mail_helpers import parse
    from race_helpers import AXIS, BRITISH, CLOCK, REPO
    root = tmp_path / "host"
    make_host(root, period="72h")
    use_database(root, pg_url)
    host = Host.open(root)
    gids = [f"d{i}" for i in range(6)]
    for i, gid in enumerate(gids):
        g = Game.create(host.store.game(gid), "el-alamein", {"axis": AXIS, "british": BRITISH},
                        seed_hex=f"{i + 1:064x}", game_id=gid, at=CLOCK)
        host.welcome(g)
    go = tmp_path / "go"
    code = ("import os, sys, time\n"
            "while not os.path.exists(sys.argv[1]): time.sleep(0.005)\n"
            "from pbem.cli import main\n"
            "main(['mail', 'poll', '--host', sys.argv[2]])\n")
    env = dict(os.environ, PBEM_CLOCK="2026-01-04T01:00:00Z", PYTHONPATH=str(REPO))   # 73 h on
    procs = [subprocess.Popen([sys.executable, "-c", code, str(go), str(root)], env=env,
                              stdout=subprocess.PIPE, stderr=subprocess.STDOUT) for _ in range(4)]
    time.sleep(1.0)                                       # every process imported and waiting
    go.touch()
    outs = [p.communicate(timeout=300)[0].decode() for p in procs]
    assert all(p.returncode == 0 for p in procs), outs
    said = "\n".join(outs)
    host = Host.open(root)
    for gid in gids:
        g = Game(host.games()[gid])
        assert g.verify().ok
        by_deadline = [en.event for en in g.entries() if en.kind == "OrderGiven" and en.event.by == "deadline"]
        assert [(ev.side, ev.text) for ev in by_deadline] == [("axis", "end")], (gid, by_deadline)
        assert said.count(f"game {gid}: deadline passed for axis; applied the default") == 1, said
    mails = [parse(f.read_bytes()) for f in host.outbox_path.glob("*.eml")]
    kinds = [(str(m["X-pbem-Kind"]), str(m["Subject"]), str(m["To"])) for m in mails]
    deadline = [k for k in kinds if k[0] == "deadline"]
    assert len(deadline) == len(set(deadline)) == 2 * len(gids), deadline     # each side of each game, once
