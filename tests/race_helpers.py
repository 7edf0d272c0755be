"""Many workers on one inbox (tests/test_store_race.py and tests/benchmark_store.py).

``build`` makes a database host with G games and M order mails in its Maildir
(each mail: a press line and a sealed secret, both named after the mail, so
that a mail applied twice or lost shows in the logs); ``serve`` runs ``pbem
serve --workers N`` on it until the inbox is done, killing a random worker with
SIGKILL K times on the way; ``check`` reads back what happened."""
from __future__ import annotations

import json
import os
import random
import signal
import subprocess
import sys
import time
from pathlib import Path

from mail_helpers import AXIS, BRITISH, CLOCK, make_host, message
from pbem.engine import Game
from pbem.host import Host
from pbem.host import mail as M

REPO = Path(__file__).resolve().parent.parent


def build(root: Path, url: str, games: int, mails: int, seed: int = 30) -> dict[str, tuple[str, str, str]]:
    """The host and its inbox; returns {Message-ID: (game, side, tag)}."""
    from pg_helpers import use_database
    make_host(root, period="off")
    use_database(root, url)
    cfg = root / "pbem-host.toml"
    cfg.write_text(cfg.read_text().replace('map_svg = "final"', "map_svg = false").replace(
        'referee = "referee@club.example"', 'referee = ""'))
    host = Host.open(root)
    tokens = {}
    for i in range(games):
        gid = f"g{i:02d}"
        g = Game.create(host.store.game(gid), "el-alamein", {"axis": AXIS, "british": BRITISH},
                        seed_hex=f"{i:064x}", game_id=gid, at=CLOCK)
        host.welcome(g)
        tokens[gid] = json.loads(g.store.read("player-secrets.json"))
    rnd = random.Random(seed)
    plan = {}
    box = M.Maildir(host.inbox_path)
    for n in range(mails):
        gid, side = f"g{rnd.randrange(games):02d}", rnd.choice(["axis", "british"])
        mid, tag = f"race-{n}@example.org", f"m{n:05d}"
        body = f"Token: {tokens[gid][side]}\npress order mail {tag}\nsecret {tag} sealed {tag}\n"
        box.deliver(message({"axis": AXIS, "british": BRITISH}[side], body, subject=f"[pbem {gid}] orders",
                            mid=mid))
        plan[mid] = (gid, side, tag)
    return plan


def _children(pid: int) -> list[int]:
    """The live children of ``pid``: a killed one stays listed until its parent reaps it
    (a zombie), and killing it again would count a kill that killed nothing."""
    try:
        with open(f"/proc/{pid}/task/{pid}/children") as f:
            kids = [int(x) for x in f.read().split()]
    except OSError:
        return []
    live = []
    for k in kids:
        try:
            with open(f"/proc/{k}/stat") as f:
                if f.read().rsplit(")", 1)[1].split()[0] not in ("Z", "X"):
                    live.append(k)
        except (OSError, IndexError):
            continue
    return live


def serve(root: Path, workers: int, kills: int = 0, timeout: float = 600, seed: int = 30) -> dict:
    """``pbem serve --workers N`` until the inbox and the spool are empty; SIGKILL a
    random worker ``kills`` times while it works.  Returns timings and counts."""
    host = Host.open(root)
    inbox = M.Maildir(host.inbox_path)
    total = len(inbox.messages())
    env = dict(os.environ, PBEM_CLOCK=CLOCK, PYTHONPATH=str(REPO))
    log = open(root / "supervisor.log", "wb")
    sup = subprocess.Popen([sys.executable, "-m", "pbem", "serve", "--workers", str(workers), "--host", str(root),
                            "--interval", "1"], env=env, stdout=log, stderr=subprocess.STDOUT)
    rnd = random.Random(seed)
    start = time.monotonic()
    killed = 0
    sched: dict[int, tuple[float, float]] = {}      # worker pid -> (CPU s, s waiting for a core), last seen
    try:
        while time.monotonic() - start < timeout:
            for kid in _children(sup.pid) if workers > 1 else [sup.pid]:     # one worker: serve itself
                sched[kid] = _schedstat(kid) or sched.get(kid, (0.0, 0.0))
            left = len(inbox.messages())
            if left == 0 and host.pending() == 0:
                break
            if killed < kills and left > 0:
                # spread the kills over the run: about one per mail-batch the workers take
                time.sleep(rnd.uniform(0.05, 0.4))
                kids = _children(sup.pid)
                if kids:
                    os.kill(rnd.choice(kids), signal.SIGKILL)
                    killed += 1
                continue
            time.sleep(0.2)
        else:
            raise AssertionError(f"the workers did not finish in {timeout}s: {len(inbox.messages())} of {total} "
                                 f"mails left, {host.pending()} mails in the spool; see {root / 'supervisor.log'}")
        took = time.monotonic() - start
    finally:
        sup.send_signal(signal.SIGTERM)
        try:
            sup.wait(120)
        except subprocess.TimeoutExpired:
            sup.kill()
            for k in _children(sup.pid):
                os.kill(k, signal.SIGKILL)
        log.close()
    return {"mails": total, "seconds": took, "killed": killed, "sched": sched}


def _schedstat(pid: int) -> tuple[float, float] | None:
    """(CPU seconds, seconds runnable but waiting for a core) of a process so far
    (/proc/PID/schedstat, all its threads), None when it is gone."""
    try:
        cpu = wait = 0
        for task in os.listdir(f"/proc/{pid}/task"):
            with open(f"/proc/{pid}/task/{task}/schedstat") as f:
                a, b, _ = f.read().split()
            cpu, wait = cpu + int(a), wait + int(b)
        return cpu / 1e9, wait / 1e9
    except (OSError, ValueError):
        return None


def check(root: Path, plan: dict[str, tuple[str, str, str]]) -> dict:
    """Every mail's orders in its game's log once, every chain verified, every mail
    answered once; raises AssertionError saying what is wrong."""
    from pbem.host.mail import parse
    host = Host.open(root)
    games = host.games()
    seen: dict[str, list[str]] = {}
    for gid, ref in games.items():
        g = Game(ref)
        rep = g.verify()
        assert rep.ok, (gid, rep.problems)
        anchor = g.log.recorded_head()
        assert anchor == g.head(), (gid, anchor, g.head())                  # the heads row names the last line
        for en in g.entries():
            if en.kind == "PressSent" and en.event.text.startswith("order mail "):
                seen.setdefault(en.event.text[len("order mail "):], []).append(f"{gid}/{en.event.side}")
            if en.kind == "SecretRecorded":
                seen.setdefault("sealed " + en.event.name, []).append(f"{gid}/{en.event.side}")
    problems = []
    for mid, (gid, side, tag) in plan.items():
        for key in (tag, "sealed " + tag):
            if seen.get(key) != [f"{gid}/{side}"]:
                problems.append(f"{mid}: {key} in {seen.get(key, [])}, expected once in {gid}/{side}")
    answered: dict[str, int] = {}
    for f in host.outbox_path.glob("*.eml"):
        irt = parse(f.read_bytes()).in_reply_to
        if irt:
            answered[irt] = answered.get(irt, 0) + 1
    for mid in plan:
        if answered.get(mid) != 1:
            problems.append(f"{mid}: answered {answered.get(mid, 0)} times")
    assert not problems, problems[:10] + [f"... {len(problems)} problems in all"]
    assert M.Maildir(host.inbox_path).messages() == []
    return {"games": len(games), "mails": len(plan)}
