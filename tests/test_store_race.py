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
