"""`pbem serve --workers N` on one database and `pbem host status` showing every
worker, its machine and process, and the games whose lock it holds."""
from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time

import pytest
from click.testing import CliRunner

from mail_helpers import AXIS, BRITISH, CLOCK, make_host
from pbem.cli import main
from pbem.engine import Game
from pbem.host import Host


@pytest.fixture(autouse=True)
def fixed_clock(monkeypatch):
    monkeypatch.setenv("PBEM_CLOCK", CLOCK)
    monkeypatch.delenv("PBEM_HOST", raising=False)


@pytest.fixture
def db_host(tmp_path, pg_url):
    from pg_helpers import use_database
    root = tmp_path / "host"
    make_host(root)
    use_database(root, pg_url)
    host = Host.open(root)
    for gid in ("g1", "g2"):
        host.welcome(Game.create(host.store.game(gid), "el-alamein", {"axis": AXIS, "british": BRITISH},
                                 seed_hex="22" * 32, game_id=gid, at=CLOCK))
    return host


def test_status_shows_every_worker_and_the_games_it_holds(db_host):
    root = db_host.cfg.root
    sup = subprocess.Popen([sys.executable, "-m", "pbem", "serve", "--workers", "2", "--host", str(root),
                            "--interval", "1"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        for _ in range(300):
            alive = [w for w in db_host.store.workers() if w["alive"]]
            if len(alive) == 2:
                break
            time.sleep(0.1)
        assert len(alive) == 2 and all(w["pid"] != os.getpid() for w in alive)
        # this process as a third worker, holding g2's lock in a transaction
        store = db_host.store
        store.start_worker()
        with store.transaction():
            store.game_lock("g2")
            r = CliRunner().invoke(main, ["host", "status", "--host", str(root)])
            rj = CliRunner().invoke(main, ["host", "status", "--json", "--host", str(root)])
        store.stop_worker()
        assert r.exit_code == 0, r.output
        assert "3 worker(s) on the database:" in r.output
        mine = next(ln for ln in r.output.splitlines() if ln.startswith(store.worker + " "))
        assert mine.rstrip().endswith("g2")                            # what it holds, from pg_locks
        objs = [json.loads(ln) for ln in rj.output.splitlines()]
        assert [o["game"] for o in objs if "game" in o] == ["g1", "g2"]
        workers = {o["worker"]: o for o in objs if "worker" in o}
        assert workers[store.worker]["holds"] == ["g2"] and len(workers) == 3
    finally:
        sup.send_signal(signal.SIGTERM)
        sup.wait(60)
    assert [w for w in db_host.store.workers() if w["alive"]] == []
    assert db_host.store.workers() == []                              # each worker took its row away


def test_more_than_one_worker_needs_a_database(tmp_path):
    make_host(tmp_path / "h")
    r = CliRunner().invoke(main, ["serve", "--workers", "2", "--host", str(tmp_path / "h")])
    assert r.exit_code == 1 and "needs a database" in r.output and "Traceback" not in r.output


def test_the_command_line_on_a_database_host_takes_game_ids(db_host, monkeypatch):
    """`pbem new` in a database host puts the game in the database (and mails the
    welcomes); `pbem order`, `log` and `verify` then take its id."""
    root = db_host.cfg.root
    monkeypatch.chdir(root)
    run = CliRunner()
    r = run.invoke(main, ["new", "g3", "--scenario", "el-alamein", "--player", f"axis={AXIS}",
                          "--player", f"british={BRITISH}", "--seed", "33" * 32])
    assert r.exit_code == 0, r.output
    assert "game g3 in the PostgreSQL database" in r.output and "welcome mailed" in r.output
    assert not (root / "g3").exists() and "g3" in Host.open(root).games()
    r = run.invoke(main, ["order", "g3", "--as", "axis"], input="move 8Pz 0612 0712 0812\nend\n")
    assert r.exit_code == 0, r.output
    r = run.invoke(main, ["log", "g3", "--as", "british"])
    assert r.exit_code == 0 and "8Pz" in r.output
    r = run.invoke(main, ["verify", "g3"])
    assert r.exit_code == 0 and "ok" in r.output.lower(), r.output
    r = run.invoke(main, ["verify", "g9"])
    assert r.exit_code == 2 and "does not exist" in r.output            # neither a folder nor a hosted game
