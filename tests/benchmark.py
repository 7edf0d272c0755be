"""Benchmark (a script, not a test): the one place pbem's speed figures come from.

    python tests/benchmark.py                 everything (a few minutes; the 1M replay needs ~1 GB of disk in TMPDIR)
    python tests/benchmark.py --skip-1m       without the replay of 1,000,000 events
    python tests/benchmark.py --quick         small sizes only (a smoke run of the script itself)
    python tests/benchmark.py --cpu           the cli and verify rows in CPU time (a busy machine)

Every figure that depends on the machine is printed next to a reference measured
in the same run, so a busy machine shows in both (it has 2 cores, shared):

  replay       log -> state (``Game.state()`` with the state cache deleted) of logs
               made by repeating the El Alamein example's events (10k, 100k, 1M),
               next to the time msgspec alone takes to decode the same lines
               (envelope + typed body, nothing else), each the best of its runs,
               a replay and a decode in turn, and the peak RSS of the process that
               replayed (each size in a fresh process).
  submit       one order at 100 / 10k / 100k events: an Eben Emael `fire` (a game
               whose every order sees the host's sealed secrets) and an `unveil`,
               in legal logs padded with `secret` / `unveil` notes.
  cli          `pbem --help`, `pbem state` (warm cache) and `pbem report` (the
               side's last report ten events back) of the 100k game, next to
               `python -c pass`; `state` and `report` run as `python -m pbem`
               (pbem/__main__.py: without click, pbem/cli_fast.py), then again
               through click (PBEM_NO_FAST_PATH=1) for comparison.
  verify       `Game.verify()` of the eight examples of issue 18 (and, on a line of
               their own, of the examples added since), and `pbem verify` of each.
  games        (issue 29) every example: replay of its log repeated to 10k / 100k / 1M
               events next to decode-only, as `replay` does for El Alamein (best of
               5 / 3 / 2 of each, a replay and a decode in turn); the
               events per CPU second of `Game.verify()`; the CPU time of its replay
               page (`pbem replay`, the referee's).

Targets (issue 29): every game replays at >= 150k events/s and <= 4x decode-only at
10k / 100k / 1M events; `Game.verify()` >= 20k events/s for every example; the
replay page of any example in < 3 s CPU.  The host's figures: tests/benchmark_host.py.

Targets (issue 18): replay >= 150k events/s and <= 4x decode-only at every size;
peak RSS of the 1M replay <= 50 MiB; submit flat in the log's length; `pbem
--help` and `pbem state` <= 150 ms and <= 2.5x `python -c pass`; `pbem report`
<= 2x `pbem state`; verify of the examples 2x faster than before issue 18.

To compare with another checkout, run this script with PYTHONPATH pointing at
that checkout's root: every child process inherits it.
"""
from __future__ import annotations

import argparse
import hashlib
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
import tomllib
from pathlib import Path

import msgspec

from pbem.core import dice as D
from pbem.core import events as E
from pbem.core import orders as O
from pbem.engine import Game

AT = "2026-01-01T00:00:00Z"
EXAMPLES = Path(__file__).resolve().parent.parent / "examples"
GENESIS = "0" * 64


# --- building logs ------------------------------------------------------------------

def play_example(name: str, into: Path) -> Game:
    """An example game from its order files (no reports written)."""
    book = tomllib.loads((EXAMPLES / name / "playbook.toml").read_text())
    g = Game.create(into, book["scenario"], book.get("players", {}), seed_hex=book.get("seed"),
                    game_id=book.get("id"), at=AT)
    sides = g.scenario.side_ids()
    for step in book["steps"]:
        side = next(s for s in sides if Path(step).stem.endswith("-" + s))
        sub = g.submit(side, (EXAMPLES / name / step).read_text(), at=AT)
        assert sub.refused is None, f"{name}/{step}: {sub.refused}"
    return g


class _Line(msgspec.Struct):
    seq: int
    prev: str
    kind: str
    body: msgspec.Raw
    at: str


def repeated_log(example: Path, into: Path, n: int) -> None:
    """A game folder whose log holds ``n`` events: the example's GameCreated, then
    its other events over and over, re-chained (not legal play: replay only)."""
    into.mkdir(mode=0o700)
    for name in ("scenario.toml", "seed"):
        if (example / name).exists():
            shutil.copy2(example / name, into / name)
    lines = (example / "log.jsonl").read_bytes().splitlines()
    dec = msgspec.json.Decoder(_Line)
    enc = msgspec.json.Encoder()
    parts = [dec.decode(x) for x in lines]
    first, rest = lines[0], [p for p in parts[1:] if p.kind not in ("SeedRevealed", "GameEnded")]
    h = hashlib.sha256(GENESIS.encode() + first).hexdigest()
    with open(into / "log.jsonl", "wb") as f:
        f.write(first + b"\n")
        buf = []
        for seq in range(1, n):
            p = rest[(seq - 1) % len(rest)]
            line = enc.encode(_Line(seq, h, p.kind, p.body, p.at))
            h = hashlib.sha256(h.encode() + line).hexdigest()
            buf.append(line)
            if len(buf) >= 10_000:
                f.write(b"\n".join(buf) + b"\n")
                buf = []
        if buf:
            f.write(b"\n".join(buf) + b"\n")
    (into / "log.head").write_bytes(f"{n - 1} {h}\n".encode())
    os.chmod(into / "log.jsonl", 0o600)


def pad(g: Game, side: str, n: int) -> None:
    """Append legal `secret` / `unveil` notes of ``side`` until the log holds about
    ``n`` events (four per pair), leaving the note `held` sealed at the end.
    Adjudicated in memory (the rules' own events, the seed's salts), appended in
    chunks: building a long log order by order would take far longer than using it."""
    seed = D.read_seed(g.dir / "seed")
    seq = g.head()[0]
    work = g.state()
    sealed = {}
    batch: list[E.Event] = []
    k = 0

    def order(text: str):
        nonlocal work, seq
        dice = D.LazySeeded(lambda: seed, g.game_id, seq + 1)
        trial, evs = g._adjudicate(work, E.OrderGiven(side=side, text=text), O.parse_line(text, g.rules.verbs),
                                   dice, sealed)
        for ev in evs:
            if isinstance(ev, E.SecretRecorded):
                sealed[f"{ev.side}:{ev.name}"] = ev
        seq += len(evs)
        trial.seq = seq
        work = trial
        batch.extend(evs)

    while seq + 4 < n - 2:
        order(f"secret note-{k % 8} padding note number {k}, sealed and opened again")
        order(f"unveil note-{k % 8}")
        k += 1
        if len(batch) >= 5000 or seq + 4 >= n - 2:
            g.log.append_many([(E.kind_of(e), E.body_of(e)) for e in batch], at=AT)
            batch = []
    order("secret held a note kept sealed until the benchmark unveils it")
    g.log.append_many([(E.kind_of(e), E.body_of(e)) for e in batch], at=AT)


def eben_game(into: Path, n: int) -> Game:
    """Eben Emael 12.1 after the Belgian set-up (the German fire phase next), padded to ~n events."""
    book = tomllib.loads((EXAMPLES / "eben-emael-12-1" / "playbook.toml").read_text())
    g = Game.create(into, book["scenario"], book.get("players", {}), seed_hex=book.get("seed"),
                    game_id=book.get("id"), at=AT)
    sub = g.submit("belgian", (EXAMPLES / "eben-emael-12-1" / "01-belgian.txt").read_text(), at=AT)
    assert sub.refused is None, sub.refused
    pad(g, "belgian", n)
    g = Game(into)
    g.state()                                       # the host's folder: its caches are warm
    return g


# --- replay in a fresh process ------------------------------------------------------------

_CHILD = r"""
import os, resource, sys, time
from pathlib import Path
import msgspec
from pbem.engine import Game
from pbem.core import events as E
from pbem.games import load_all_events

def rss():
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
d, reps = Path(sys.argv[1]), int(sys.argv[2])
g = Game(d)
load_all_events()
base = rss()

class Env(msgspec.Struct):
    seq: int
    prev: str
    kind: str
    body: msgspec.Raw
    at: str
env = msgspec.json.Decoder(Env)
body = {k: msgspec.json.Decoder(t) for k, t in E.BY_KIND.items()}
best = dec = None
peak = base
for _ in range(reps):      # replay, then decode, in turn: a neighbour's load meets both alike
    (d / ".state-cache").unlink(missing_ok=True)
    t0 = time.perf_counter()
    st = g.state()
    t = time.perf_counter() - t0
    best = t if best is None else min(best, t)
    peak = max(peak, rss())
    t0 = time.perf_counter()
    with open(d / "log.jsonl", "rb") as f:
        for line in f:
            e = env.decode(line)
            body[e.kind].decode(e.body)
    t = time.perf_counter() - t0
    dec = t if dec is None else min(dec, t)
print(best, dec, base, peak, st.seq + 1)
"""


def bench_replay(sizes: list[int], work: Path, example: Path) -> list[tuple]:
    rows = []
    for n in sizes:
        d = work / f"replay-{n}"
        repeated_log(example, d, n)
        reps = 3 if n <= 100_000 else 1
        out = subprocess.run([sys.executable, "-c", _CHILD, str(d), str(reps)], capture_output=True, text=True)
        if out.returncode:
            print(out.stderr, file=sys.stderr)
            raise SystemExit(f"replay of {n} events failed")
        t, dec, base, peak, events = out.stdout.split()
        t, dec, base, peak, events = float(t), float(dec), float(base), float(peak), int(events)
        assert events == n, (events, n)
        rows.append((n, t, dec, base, peak))
        print(f"replay  {n:>9,} events: {t:7.3f} s = {n / t:>9,.0f} ev/s; decode only {dec:6.3f} s "
              f"({n / dec:>9,.0f} ev/s); replay / decode = {t / dec:4.2f}; "
              f"peak RSS {peak:5.1f} MiB ({base:.1f} after imports)", flush=True)
        shutil.rmtree(d)
    return rows


# --- submit ---------------------------------------------------------------------------

def bench_submit(sizes: list[int], work: Path, reps: int = 5) -> None:
    for n in sizes:
        tpl = work / f"eben-{n}"
        eben_game(tpl, n)
        events = Game(tpl).head()[0] + 1
        for side, text in (("german", "fire Unger Bel/3"), ("belgian", "unveil held")):
            ts = []
            for r in range(reps):
                d = work / f"eben-{n}-{r}"
                shutil.copytree(tpl, d)
                os.sync()                           # else the order's fsync would write out the whole copy
                g = Game(d)
                t0 = time.perf_counter()
                sub = g.submit(side, text, at=AT)
                ts.append(time.perf_counter() - t0)
                assert sub.refused is None, sub.refused
                shutil.rmtree(d)
            print(f"submit  {text!r:<20} at {events:>7,} events: {statistics.median(ts) * 1000:7.1f} ms median "
                  f"of {reps}", flush=True)
        if n != max(sizes):
            shutil.rmtree(tpl)


# --- the command line -------------------------------------------------------------------

# Commands run as installed: with Python's bytecode cache (__pycache__, which pip
# and the first run write), even if this shell sets PYTHONDONTWRITEBYTECODE.
CLI_ENV = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}


# --cpu: CPU time (user + system) instead of wall-clock time, for the command line and
# verify rows, so that a machine busy with other work skews them less.
CPU = False


def _children_cpu() -> float:
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


def clock() -> float:
    """This process's CPU time with --cpu, else wall-clock time."""
    return time.process_time() if CPU else time.perf_counter()


def median_run(cmd: list[str], n: int = 11, before=None, env: dict | None = None) -> float:
    env = dict(CLI_ENV, **(env or {}))
    subprocess.run(cmd, stdout=subprocess.DEVNULL, check=True, env=env)         # warm: bytecode, caches
    ts = []
    for _ in range(n):
        if before:
            before()
        t0 = _children_cpu() if CPU else time.perf_counter()
        subprocess.run(cmd, stdout=subprocess.DEVNULL, check=True, env=env)
        ts.append((_children_cpu() if CPU else time.perf_counter()) - t0)
    return statistics.median(ts)


def bench_cli(game: Path | None) -> None:
    py = median_run([sys.executable, "-c", "pass"])
    pbem = [sys.executable, "-m", "pbem"]
    hlp = median_run(pbem + ["--help"])
    print(f"cli     `python -c pass` {py * 1000:5.0f} ms", flush=True)
    print(f"cli     `pbem --help`    {hlp * 1000:5.0f} ms = {hlp / py:4.2f}x python", flush=True)
    if game is None:
        return
    events = Game(game).head()[0] + 1
    state = median_run(pbem + ["state", str(game)])
    print(f"cli     `pbem state` ({events:,} events, warm cache) {state * 1000:5.0f} ms = {state / py:4.2f}x python",
          flush=True)
    since = events - 11
    mark = lambda: (game / "reported.json").write_text(f'{{"german": {since}}}')      # noqa: E731
    rep = median_run(pbem + ["report", str(game), "--as", "german"], before=mark)
    print(f"cli     `pbem report --as german` ({events:,} events, last report 10 events back) "
          f"{rep * 1000:5.0f} ms = {rep / state:4.2f}x `pbem state`", flush=True)
    # The same two through click (pbem.cli), without the click-free path of pbem/cli_fast.py:
    slow = {"PBEM_NO_FAST_PATH": "1"}
    state_c = median_run(pbem + ["state", str(game)], env=slow)
    rep_c = median_run(pbem + ["report", str(game), "--as", "german"], before=mark, env=slow)
    print(f"cli     through click: `pbem state` {state_c * 1000:5.0f} ms = {state_c / py:4.2f}x python; "
          f"`pbem report` {rep_c * 1000:5.0f} ms = {rep_c / state_c:4.2f}x `pbem state` through click", flush=True)


# --- verify ---------------------------------------------------------------------------------

# The examples issue 18's verify figure is about (0.33 s before it); examples added
# since are timed on a line of their own.
ISSUE_18_EXAMPLES = ("crete", "dunkerque", "eben-emael-12-1", "eben-emael-12-2", "el-alamein", "kharkov",
                     "operation-compass", "red-devils")


def bench_verify(work: Path) -> Path:
    names = sorted(p.name for p in EXAMPLES.iterdir() if (p / "playbook.toml").is_file())
    el = None
    for group in (ISSUE_18_EXAMPLES, [n for n in names if n not in ISSUE_18_EXAMPLES]):
        total = cli = 0.0
        parts = []
        for name in group:
            d = work / f"ex-{name}"
            g = play_example(name, d)
            if name == "el-alamein":
                el = d
            ts = []
            for _ in range(3):
                g = Game(d)
                t0 = clock()
                rep = g.verify()
                ts.append(clock() - t0)
                assert rep.ok, rep.problems
            t = min(ts)
            total += t
            parts.append(f"{name} {t * 1000:.0f}")
            cli += median_run([sys.executable, "-m", "pbem", "verify", str(d)], n=3)
        if group:
            what = "examples of issue 18" if group is ISSUE_18_EXAMPLES else "examples added since"
            print(f"verify  the {len(group)} {what}: Game.verify() {total:.2f} s ({', '.join(parts)} ms); "
                  f"`pbem verify` of each {cli:.2f} s", flush=True)
    return el


# --- every game (issue 29) -----------------------------------------------------------------

def _examples() -> list[str]:
    return sorted(p.name for p in EXAMPLES.iterdir() if (p / "playbook.toml").is_file())


def _ok(good: bool) -> str:
    return "ok" if good else "MISSED"


def bench_games(work: Path, sizes: list[int], names: list[str]) -> None:
    """Replay (CPU of a fresh process), verify and the replay page of every example."""
    from pbem.referee.replay_page import replay_html
    for name in names:
        d = work / f"ex-{name}"
        if not d.exists():
            play_example(name, d)
        parts = []
        good = True
        for n in sizes:
            r = work / f"replay-{name}-{n}"
            repeated_log(d, r, n)
            reps = 5 if n <= 10_000 else 3 if n <= 100_000 else 2
            out = subprocess.run([sys.executable, "-c", _CHILD_CPU, str(r), str(reps)], capture_output=True, text=True)
            if out.returncode:
                print(out.stderr, file=sys.stderr)
                raise SystemExit(f"replay of {name} at {n} events failed")
            t, dec = (float(x) for x in out.stdout.split()[:2])
            good = good and n / t >= 150_000 and t / dec <= 4
            parts.append(f"{n:,} {n / t / 1000:5.0f}k ev/s = {t / dec:4.2f}x decode")
            shutil.rmtree(r)
        print(f"games   {name:<18} replay {'; '.join(parts)} [target >= 150k ev/s, <= 4x: {_ok(good)}]",
              flush=True)
        g = Game(d)
        events = g.head()[0] + 1
        ts = []
        for _ in range(5):
            g = Game(d)
            t0 = time.process_time()
            rep = g.verify()
            ts.append(time.process_time() - t0)
            assert rep.ok, rep.problems
        v = min(ts)
        ts = []
        for _ in range(2):
            t0 = time.process_time()
            replay_html(Game(d))
            ts.append(time.process_time() - t0)
        page = min(ts)
        print(f"games   {name:<18} verify {events:,} events {v * 1000:6.1f} ms = {events / v / 1000:5.1f}k ev/s "
              f"[target >= 20k: {_ok(events / v >= 20_000)}]; replay page {page:5.2f} s CPU "
              f"[target < 3 s: {_ok(page < 3)}]", flush=True)


# The replay child of bench_replay, timed in CPU (this process's), the figures only.
_CHILD_CPU = _CHILD.replace("time.perf_counter()", "time.process_time()")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--skip-1m", action="store_true", help="skip the replay of 1,000,000 events")
    ap.add_argument("--quick", action="store_true", help="small sizes only: check that the script runs")
    ap.add_argument("--only", choices=["replay", "submit", "cli", "verify", "games"], action="append",
                    help="run only these parts (repeatable)")
    ap.add_argument("--cpu", action="store_true",
                    help="time the cli and verify rows in CPU time (user + system), not wall-clock time")
    ap.add_argument("--example", action="append", help="the games part for these examples only")
    args = ap.parse_args()
    global CPU
    CPU = args.cpu
    os.environ.setdefault("PBEM_CLOCK", AT)
    parts = set(args.only or ["replay", "submit", "cli", "verify", "games"])
    replay_sizes = [1_000, 5_000] if args.quick else [10_000, 100_000] + ([] if args.skip_1m else [1_000_000])
    submit_sizes = [100, 1_000] if args.quick else [100, 10_000, 100_000]
    with tempfile.TemporaryDirectory(prefix="pbem-bench-") as tmp:
        work = Path(tmp)
        print(f"pbem from {Path(sys.modules['pbem'].__file__).parent}; python {sys.version.split()[0]}; "
              f"cli and verify in {'CPU' if CPU else 'wall-clock'} time", flush=True)
        el = None
        if "verify" in parts or "replay" in parts:
            if "verify" in parts:
                el = bench_verify(work)
            else:
                el = work / "ex-el-alamein"
                play_example("el-alamein", el)
        if "replay" in parts:
            bench_replay(replay_sizes, work, el)
        if "submit" in parts or "cli" in parts:
            bench_submit(submit_sizes, work, reps=3 if args.quick else 5)
        if "cli" in parts:
            bench_cli(work / f"eben-{max(submit_sizes)}")
        if "games" in parts:
            bench_games(work, replay_sizes, args.example or _examples())


if __name__ == "__main__":
    main()
