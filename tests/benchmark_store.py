"""The database store's figures (a script, not a test; the README's *Performance*).

    .venv/bin/python tests/benchmark_store.py            # appends, then mails/s with 1, 2 and 4 workers
    .venv/bin/python tests/benchmark_store.py --race     # the issue's full run: 8 workers, 1,000 mails for
                                                         # 50 games, then again with 100 kills of a worker
    .venv/bin/python tests/benchmark_store.py --quick    # small sizes: does the script still run?

It starts its own throw-away cluster (tests/pg_helpers.py) with the server's
default durability (fsync and synchronous commit on: the file store fsyncs
every append too).  One append: a press event appended with its expected head,
alone (``log.append``: one write and fsync, or one transaction), on a game of
a few events.  Mails per second: order mails (a press line and a sealed secret
each, with a token) for 20 games, taken from one Maildir by ``pbem serve
--workers N``, from the first poll until the inbox and the spool are empty,
including each mail's answer and the other side's report (no map pictures).
"""
from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
os.environ.setdefault("PBEM_CLOCK", "2026-01-01T00:00:00Z")

import pg_helpers  # noqa: E402
from race_helpers import build, check, serve  # noqa: E402

CLOCK = "2026-01-01T00:00:00Z"


def append_cost(cluster, n: int) -> tuple[float, float]:
    """Median seconds of one append on the file store and on the database."""
    from pbem.engine import Game
    from pbem.store.pg import PgStore
    out = []
    with tempfile.TemporaryDirectory() as d:
        store = PgStore(cluster.new_database(), cache_root=Path(d) / "cache")
        for where in (Path(d) / "files", store.game("g1")):
            g = Game.create(where, "el-alamein", {}, seed_hex="11" * 32, game_id="g1", at=CLOCK)
            times = []
            for i in range(n):
                head = g.log.head()[1]
                t = time.perf_counter()
                g.log.append("PressSent", {"side": "axis", "text": f"press {i}"}, at=CLOCK, expect_head=head)
                times.append(time.perf_counter() - t)
            out.append(statistics.median(times))
        store.close()
    return out[0], out[1]


def mails_per_second(cluster, workers: int, mails: int, games: int) -> tuple[float, float]:
    """Order mails per second of wall time, and CPU seconds (the workers' and the
    server's own are not both counted: the workers' only) per mail."""
    import resource
    with tempfile.TemporaryDirectory() as d:
        root = Path(d) / "host"
        plan = build(root, cluster.new_database(), games, mails)
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        ran = serve(root, workers, timeout=3600)
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        check(root, plan)
        cpu = (after.ru_utime + after.ru_stime) - (before.ru_utime + before.ru_stime)
        return mails / ran["seconds"], cpu / mails


def race(cluster, mails: int, games: int, kills: int) -> None:
    for k in (0, kills):
        with tempfile.TemporaryDirectory() as d:
            root = Path(d) / "host"
            plan = build(root, cluster.new_database(), games, mails)
            ran = serve(root, 8, kills=k, timeout=7200)
            got = check(root, plan)
            print(f"race: 8 workers, {mails} mails for {games} games, {ran['killed']} SIGKILLs: every order once, "
                  f"no fork, {got['games']} chains verified, every mail answered once ({ran['seconds']:.1f} s)")


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--race", action="store_true")
    a = ap.parse_args()
    why = pg_helpers.missing()
    if why:
        sys.exit(f"benchmark_store: {why}")
    cluster = pg_helpers.Cluster(settings={"fsync": "on", "synchronous_commit": "on"}).start()
    try:
        if a.race:
            race(cluster, *((60, 4, 6) if a.quick else (1000, 50, 100)))
            return
        f, p = append_cost(cluster, 20 if a.quick else 300)
        print(f"one append: file store {f * 1e3:.2f} ms, PostgreSQL {p * 1e3:.2f} ms ({p / f:.1f}x)")
        mails = 40 if a.quick else 400
        base = None
        print(f"machine: {os.cpu_count()} cores, load average {os.getloadavg()[0]:.1f} at the start")
        for w in (1, 2, 4):
            rate, cpu = mails_per_second(cluster, w, mails, 20)
            base = base or rate
            print(f"{w} worker(s): {rate:.1f} order mails/s ({rate / base:.2f}x one worker), {mails} mails, "
                  f"{cpu * 1e3:.0f} ms of the workers' CPU a mail")
    finally:
        cluster.stop()


if __name__ == "__main__":
    main()
