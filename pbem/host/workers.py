"""``pbem serve --workers N``: N worker processes on one database.

The supervisor starts N ``pbem serve`` processes (each a worker: its own
connections, its row in pbem_workers) and starts a worker again when one dies,
whatever killed it: what the dead one had in hand was rolled back with its
transaction and is taken again by whoever comes first.  The workers start their
first poll together (each waits, up to 30 s, for the N of them to be alive), so
that each takes its own games' mail (pbem.host.inbox) from the start.  SIGTERM
or Ctrl-C stops the workers (each finishes the message in hand) and then the
supervisor.  Run it on as many machines as you like, each against the same
``[store] url``: the workers coordinate through the database only.

With the file store one process works at a time (state/lock), so more than one
worker is refused."""
from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

from pbem.host.common import HostError


def supervise(root: Path, n: int, interval: float | None = None, echo=print, restart: bool = True) -> int:
    """Run ``n`` workers until stopped; returns how many times a worker was started again."""
    from pbem.host.config import load_config
    cfg = load_config(root)
    if not cfg.store_url and n > 1:
        raise HostError("--workers above 1 needs a database: the file store lets one process work at a time "
                        "(set [store] url = \"postgresql://...\" in pbem-host.toml)")
    cmd = [sys.executable, "-m", "pbem", "serve", "--host", str(root)]
    if interval is not None:
        cmd += ["--interval", str(interval)]
    stopping = []

    def start(i: int) -> subprocess.Popen:
        return subprocess.Popen(cmd, env=dict(os.environ, PBEM_WORKER_SLOT=str(i), PBEM_WORKERS=str(n)))

    def stop(_sig, _frame):
        stopping.append(True)
    old = {s: signal.signal(s, stop) for s in (signal.SIGTERM, signal.SIGINT)}
    procs = {i: start(i) for i in range(n)}
    echo(f"supervising {n} worker(s) of {root}: pids {', '.join(str(p.pid) for p in procs.values())}")
    restarts = 0
    try:
        while not stopping:
            time.sleep(0.2)
            for i, p in list(procs.items()):
                code = p.poll()
                if code is None or stopping:
                    continue
                if not restart:
                    procs.pop(i)
                    continue
                procs[i] = start(i)
                restarts += 1
                echo(f"worker {p.pid} ended ({_how(code)}); started worker {procs[i].pid} in its place")
            if not procs:
                break
    finally:
        for p in procs.values():
            code = p.poll()
            if code is None:
                p.send_signal(signal.SIGTERM)
            elif code != 0:                       # ended between the last look and the stop: say so too
                echo(f"worker {p.pid} ended ({_how(code)}) as the workers were stopped")
        for p in procs.values():
            try:
                p.wait(60)
            except subprocess.TimeoutExpired:
                p.kill()
        for s, h in old.items():
            signal.signal(s, h)
    echo(f"stopped {len(procs)} worker(s)")
    return restarts


def _how(code: int) -> str:
    if code < 0:
        try:
            return f"killed by {signal.Signals(-code).name}"
        except ValueError:
            return f"killed by signal {-code}"
    return f"exit {code}"
