"""Benchmark (a script, not a test): python tests/benchmark.py [--events N]

Measures, on this machine:
  1. replay of a long synthetic El Alamein log: events/s of decode + reducer,
     next to the time just to decode the same lines;
  2. the cost of appending one order to a 10,000-event game (state cached by
     head hash, so it must not depend on the log's length), and the same with
     the cache deleted (a full replay) for comparison;
  3. `pbem --help` start-up time next to `python -c pass`.
Targets (issue 2): replay >= 20,000 events/s, append < 50 ms, start-up < 0.3 s.
"""
from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path


from pbem.core import events as E
from pbem.engine import Game, _env_dec
from pbem.log import EventLog

AT = "2026-01-01T00:00:00Z"


def synthetic_game(path: Path, n_events: int) -> Game:
    """A game whose log holds ~n_events: units shuffling between two hexes.

    The events are written directly (not through the rules): this measures
    decoding and the reducer, which is what replay is."""
    g = Game.create(path, "el-alamein", dice=[1] * 10, at=AT)
    log = EventLog(path / "log.jsonl")
    movers = [("Trieste", "0408", "0508"), ("Ariete", "0310", "0410"), ("Littorio", "0309", "0409")]
    batch, written = [], 2
    i = 0
    while written < n_events:
        uid, a, b = movers[i % len(movers)]
        dest = b if (i // len(movers)) % 2 == 0 else a
        batch.append(("OrderGiven", {"side": "axis", "text": f"move {uid} {dest}"}))
        batch.append(("UnitMoved", {"unit": uid, "path": [dest], "mp": 1, "ma": 5}))
        written += 2
        i += 1
        if len(batch) >= 5000:
            log.append_many(batch, at=AT)
            batch = []
    if batch:
        log.append_many(batch, at=AT)
    return Game(path)


def bench_replay(n: int) -> None:
    with tempfile.TemporaryDirectory() as d:
        g = synthetic_game(Path(d) / "g", n)
        lines = list(g.log.iter_lines())
        t0 = time.perf_counter()
        for line in lines:
            env = _env_dec.decode(line)
            E.decode_body(env.kind, env.body)
        decode = time.perf_counter() - t0
        t0 = time.perf_counter()
        entries = g.entries(verify=True)
        g.replay(entries)
        replay = time.perf_counter() - t0
        print(f"replay  {len(lines):>7} events: decode only {decode:.3f} s ({len(lines) / decode:,.0f} ev/s); "
              f"chain check + decode + reducer {replay:.3f} s ({len(lines) / replay:,.0f} ev/s)")


def bench_append() -> None:
    with tempfile.TemporaryDirectory() as d:
        g = synthetic_game(Path(d) / "g", 10_000)
        g.state()                                   # warm the cache once, as the host's first command would
        times = []
        # 15 legal one-line batches: each `end` closes a phase (4 turns x 4 phases),
        # going through lock, head, cached state, rules, fsync'd append and cache write.
        for _ in range(15):
            t0 = time.perf_counter()
            sub = g.submit("axis" if g.state().phase < 2 else "british", "end", at=AT)
            times.append(time.perf_counter() - t0)
            assert sub.refused is None, sub.refused
        cached = statistics.median(times)
        (Path(d) / "g" / ".state-cache").unlink()
        t0 = time.perf_counter()
        sub = g.submit("british", "end", at=AT)
        cold = time.perf_counter() - t0
        assert sub.refused is None, sub.refused
        print(f"append  one order to a {g.head()[0]:,}-event game: {cached * 1000:.1f} ms median with the state cache; "
              f"{cold * 1000:.0f} ms with the cache deleted (full replay)")


def bench_startup() -> None:
    def median_run(cmd: list[str], n: int = 7) -> float:
        ts = []
        for _ in range(n):
            t0 = time.perf_counter()
            subprocess.run(cmd, stdout=subprocess.DEVNULL, check=True)
            ts.append(time.perf_counter() - t0)
        return statistics.median(ts)
    py = median_run([sys.executable, "-c", "pass"])
    pbem = median_run([sys.executable, "-m", "pbem", "--help"])
    print(f"startup `pbem --help` {pbem * 1000:.0f} ms vs `python -c pass` {py * 1000:.0f} ms")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--events", type=int, default=50_000)
    args = ap.parse_args()
    os.environ.setdefault("PBEM_CLOCK", AT)
    bench_replay(args.events)
    bench_append()
    bench_startup()


if __name__ == "__main__":
    main()
