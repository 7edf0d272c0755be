"""Benchmark of `pbem audit` (a script, not a test; issue 15).

    python tests/benchmark_audit.py                      1,000 copies of the El Alamein example, every core
    python tests/benchmark_audit.py --games 200 --jobs 1 --example kharkov
    python tests/benchmark_audit.py --example mix      1,000 games, every example in turn

Plays one example game (as `pbem play` does, without maps), copies the
finished game folder N times into a tournament folder (the files an auditor
gets: log.jsonl, log.head, scenario.toml, reported.json; the seed is revealed
in the log), then times `pbem audit` on it as a user runs it, in a fresh
process (`pbem audit --json -q DIR`: start-up, the search, every game verified
with its rules re-run, the duplicate check and the summary): the wall-clock
time, and the CPU time of the audit's processes (which a busy machine does
not inflate; the load average is printed too).  For reference it also times
`Game.verify()` of one copy in this process, the part of the work that is the
engine's.  Target: 1,000 games under 60 s on 2 cores; with ``--example mix`` (every
example in turn, issue 29) under 30 s on 2 cores.
"""
from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
AUDIT_FILES = ("log.jsonl", "log.head", "scenario.toml", "reported.json")


def examples() -> list[str]:
    return sorted(p.name for p in (ROOT / "examples").iterdir() if (p / "playbook.toml").is_file())


def tournament(into: Path, games: int, example: str = "el-alamein") -> Path:
    """One played example (``mix``: every example, in turn), copied ``games`` times under
    ``into/tournament``."""
    from pbem.playbook import play
    os.environ["PBEM_CLOCK"] = "2026-01-01T00:00:00Z"
    names = examples() if example == "mix" else [example]
    sources = []
    for name in names:
        sources.append(into / f"played-{name}")
        play(ROOT / "examples" / name, sources[-1], echo=lambda *a: None, maps=False)
    del os.environ["PBEM_CLOCK"]
    root = into / "tournament"
    for n in range(games):
        game = root / f"round-{n // 50:02d}" / f"game-{n:04d}"
        game.mkdir(parents=True)
        for name in AUDIT_FILES:
            shutil.copyfile(sources[n % len(sources)] / name, game / name)
    return root


def bench_audit(games: int = 1000, jobs: int | None = None, example: str = "el-alamein") -> dict:
    """Time `pbem audit` of ``games`` copies of ``example``; returns the figures (and prints them)."""
    from pbem.engine import Game
    with tempfile.TemporaryDirectory(prefix="pbem-bench-audit-") as tmp:
        root = tournament(Path(tmp), games, example)
        one = next(root.glob("*/*"))
        t = time.perf_counter()
        rep = Game(one).verify()
        verify_one = time.perf_counter() - t
        assert rep.ok, rep.problems
        cmd = [sys.executable, "-m", "pbem", "audit", "--json", "-q", str(root)] + (["--jobs", str(jobs)] if jobs else [])
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        t = time.perf_counter()
        out = subprocess.run(cmd, capture_output=True, text=True, cwd=ROOT)
        seconds = time.perf_counter() - t
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
        lines = out.stdout.splitlines()
        summary = json.loads(lines[-1])
        assert out.returncode == 0, out.stderr
        assert summary["games"] == games and summary["with_errors"] == 0, summary
    cores = jobs or len(os.sched_getaffinity(0))
    figures = {"games": games, "example": example, "events_per_game": rep.events, "jobs": cores,
               "seconds": round(seconds, 2), "games_per_second": round(games / seconds, 1),
               "ms_per_game_per_core": round(1000 * seconds * cores / games, 1),
               "cpu_seconds": round(cpu, 2), "cpu_ms_per_game": round(1000 * cpu / games, 1),
               "verify_one_ms": round(1000 * verify_one, 1), "load_average": os.getloadavg()[0]}
    print(f"pbem audit: {games} finished {example} games ({rep.events} events in the first) with {cores} "
          f"process(es): {seconds:.1f} s ({games / seconds:.0f} games/s); CPU {cpu:.1f} s "
          f"({1000 * cpu / games:.0f} ms per game, all processes; Game.verify() of one alone: "
          f"{1000 * verify_one:.0f} ms); load average {os.getloadavg()[0]:.1f}; "
          + ("target (mix): 1,000 games < 30 s on 2 cores" if example == "mix" else "target: 1,000 games < 60 s on 2 cores"))
    return figures


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--games", type=int, default=1000)
    ap.add_argument("--jobs", type=int, default=None)
    ap.add_argument("--example", default="el-alamein")
    a = ap.parse_args()
    bench_audit(a.games, a.jobs, a.example)


if __name__ == "__main__":
    main()
