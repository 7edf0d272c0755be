"""Workers of one database prefer their own games (issue 29: `pbem serve --workers 2`
scales when each game's maps stay warm in one process and its lock is wanted by one
worker): a game's mails are answered by one worker while it lives, by another at once
when it dies, and by another after four intervals when it is alive but stuck."""
from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time

import pytest

from mail_helpers import AXIS, BRITISH, CLOCK, make_host, message
from pbem.engine import Game
from pbem.host import Host
from pbem.host import mail as M
from pbem.store.affinity import Affinity

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def test_each_game_has_one_owner_and_only_a_gone_workers_games_move():
    games = tuple(f"g{i:03d}" for i in range(400))
    names = ["a:1", "b:2", "c:3"]
    three = {w: Affinity(w, names, games) for w in names}
    for g in games:
        assert sum(a.mine(g) for a in three.values()) == 1            # every worker agrees on one owner
    owner = {g: three["a:1"].owner(g) for g in games}
    assert max(list(owner.values()).count(w) for w in names) <= -(-len(games) // 3)   # a share each at most
    two = Affinity("a:1", ["a:1", "c:3"], games)                       # b:2 died
    moved = [g for g in games if two.owner(g) != owner[g]]
    assert all(g in moved for g in games if owner[g] == "b:2")         # its games moved
    assert sum(owner[g] != "b:2" for g in moved) <= len(games) // 20   # and hardly any other
    added = Affinity("a:1", names, games + ("new",))
    assert sum(added.owner(g) != owner[g] for g in games) <= len(games) // 20   # a new game moves few others
    assert Affinity("a:1", ["a:1"]).mine("g001") and Affinity("a:1", ["b:2"]).mine("")   # no game: anyone's
    small = [Affinity(w, ["vm:11", "vm:12"], games[:20]) for w in ("vm:11", "vm:12")]
    assert [sum(a.mine(g) for g in games[:20]) for a in small] == [10, 10]


def test_the_games_of_one_scenario_go_to_one_worker_while_its_share_has_room():
    # 30 games of six scenarios, five each, on two workers: each scenario's games on one
    # worker (a board and its pictures drawn by one process) but where a share fills up
    games = tuple(f"g{i:02d}" for i in range(30))
    groups = {g: f"scenario-{i % 6}" for i, g in enumerate(games)}
    names = ["a:1", "b:2"]
    two = {w: Affinity(w, names, games, groups) for w in names}
    owner = {g: two["a:1"].owner(g) for g in games}
    assert all(two["b:2"].owner(g) == owner[g] for g in games)           # both agree
    assert sorted(list(owner.values()).count(w) for w in names) == [15, 15]
    split = [sc for sc in set(groups.values()) if len({owner[g] for g in games if groups[g] == sc}) > 1]
    assert len(split) <= 1, split                                        # at most the scenario that fills a share
    plain = Affinity("a:1", names, games)                                # no groups: each game on its own
    spread = [sc for sc in set(groups.values()) if len({plain.owner(g) for g in games if groups[g] == sc}) > 1]
    assert len(spread) > 1                                               # (what the groups are for)
    one = Affinity("a:1", ["a:1"], games, groups)                        # b:2 died: every game to a:1
    assert all(one.owner(g) == "a:1" for g in games)
    three = Affinity("a:1", names + ["c:3"], games, groups)              # a third: shares of ten
    assert sorted([three.owner(g) for g in games].count(w) for w in names + ["c:3"]) == [10, 10, 10]
    assert Affinity("a:1", names, games, {}).owner("g01") == plain.owner("g01")   # no scenario known: as before
    # a worker helps first with the other's games of a scenario it holds games of (its board
    # drawn there): seven scenarios, one of them split between the two shares of fifteen
    groups = {g: f"scenario-{i % 7}" for i, g in enumerate(games)}
    two = {w: Affinity(w, names, games, groups) for w in names}
    owner = {g: two["a:1"].owner(g) for g in games}
    kin = {w: [g for g in games if owner[g] != w and two[w].kin(g)] for w in names}
    for w in names:
        held = {groups[g] for g in games if owner[g] == w}
        assert kin[w] == [g for g in games if owner[g] != w and groups[g] in held]
    assert kin["a:1"] and kin["b:2"]
    assert not two["a:1"].kin("not-hosted")                               # a group of its own, held by none



def _loads(aff: Affinity, owners: dict[str, str], cost: dict[str, float]) -> dict[str, float]:
    out = dict.fromkeys(aff.live, 0.0)
    for g, w in owners.items():
        out[w] += cost[g]
    return out


def test_a_rebalance_evens_out_the_work_moving_whole_scenarios_and_every_worker_follows_it():
    # 20 games of five scenarios on two workers; equal shares of games put the three dear
    # scenarios' games (40 ms a mail) and the cheap ones (10 ms) unevenly
    games = tuple(f"g{i:02d}" for i in range(20))
    groups = {g: f"scenario-{i % 5}" for i, g in enumerate(games)}
    cost = {g: 40.0 if groups[g] in ("scenario-0", "scenario-1", "scenario-2") else 10.0 for g in games}
    names = ["a:1", "b:2"]
    for worker_b in ("b:2", "x:7", "q:3", "z:0"):                 # several hash orders
        names = ["a:1", worker_b]
        two = Affinity("a:1", names, games, groups)
        before = _loads(two, {g: two.owner(g) for g in games}, cost)
        owners = two.rebalanced(cost)
        if max(before.values()) - min(before.values()) < 0.1 * max(before.values()):
            continue                                               # this order happened to be even
        assert owners is not None and set(owners) == set(games) and set(owners.values()) <= set(names)
        after = _loads(two, owners, cost)
        assert max(after.values()) < max(before.values())
        assert max(after.values()) - min(after.values()) <= 40.0 * 4 / 2   # within half the dearest scenario
        moved = {groups[g] for g in games if owners[g] != two.owner(g)}
        for sc in moved:                                            # a scenario moves whole
            assert len({owners[g] for g in games if groups[g] == sc}) == 1
        # every worker follows the written placement, the other worker's Affinity too
        follow = {w: Affinity(w, names, games, groups, owners) for w in names}
        assert all(follow[w].owner(g) == owners[g] for w in names for g in games)
        assert sum(follow[w].mine(g) for w in names for g in games) == len(games)
        assert follow["a:1"].rebalanced(cost) is None               # even now: nothing worth a move
        # a worker gone: its placed games go to the live one
        alone = Affinity("a:1", ["a:1"], games, groups, owners)
        assert all(alone.owner(g) == "a:1" for g in games)
        # the workers started again (new names): the placement names none of them, and the
        # games are shared out as if there were none
        again = Affinity("c:5", ["c:5", "d:6"], games, groups, owners)
        fresh = Affinity("c:5", ["c:5", "d:6"], games, groups)
        assert all(again.owner(g) == fresh.owner(g) for g in games)
        # one of two gone and a third started: the live one keeps its placed games, the rest
        # are shared out within the shares (ten each)
        mixed = Affinity("a:1", ["a:1", "e:9"], games, groups, owners)
        assert all(mixed.owner(g) == "a:1" for g in games if owners[g] == "a:1")
        held = sum(owners[g] == "a:1" for g in games)
        assert sum(mixed.owner(g) == "e:9" for g in games) == len(games) - max(held, 10)
        break
    else:
        raise AssertionError("every order was even: the test proves nothing")
    # a gain below LEAST_GAIN of the busier worker's load is not worth a move
    even = {g: 10.0 for g in games}
    two = Affinity("a:1", ["a:1", "b:2"], games)                    # ten games each
    assert two.rebalanced(even) is None
    lop = dict(even, **{next(g for g in games if two.owner(g) == "a:1"): 10.9})
    assert two.rebalanced(lop) is None                              # 0.9 ms more on one side
    assert two.rebalanced({g: 30.0 if two.owner(g) == "a:1" else 10.0 for g in games}) is not None
    assert Affinity("a:1", ["a:1"], games).rebalanced(cost) is None  # one worker: nothing to even


def test_the_workers_write_one_placement_by_the_costs_their_jobs_noted(pg_url, tmp_path):
    """Two workers on one database: the costs their jobs note (pbem_costs), a placement
    written once (compare and set) and read by both; nothing moved before enough mails."""
    from pbem.store import pg_balance
    from pbem.store.pg import PgStore
    stores = [PgStore(pg_url, cache_root=tmp_path / n, worker=n) for n in ("a:1", "b:2")]
    try:
        for s in stores:
            s.start_worker()
        games = [f"g{i:02d}" for i in range(10)]
        for g in games:
            Game.create(stores[0].game(g), "el-alamein", {}, seed_hex=f"{int(g[1:]) + 1:064x}", game_id=g, at=CLOCK)
        a, b = (s.affinity() for s in stores)
        assert a.placed == {} and all(a.owner(g) == b.owner(g) for g in games)
        heavy = [g for g in games if a.owner(g) == "a:1"]
        assert heavy and len(heavy) < len(games)
        for g in games[:4]:
            stores[0].note_cost(g, 5.0)
        for s in stores:
            s._balance_due = 0.0
        assert stores[0].affinity().placed == {}                  # 4 mails of 10 games: too little to go by
        for _ in range(3):
            for g in games:
                (stores[0] if g in heavy else stores[1]).note_cost(g, 50.0 if g in heavy else 5.0)
        assert stores[0]._one("SELECT round(cpu), mails FROM pbem_costs WHERE game = %s", (heavy[0],)) in (
            (150, 3), (155, 4))
        stores[0]._balance_due = 0.0
        first = stores[0].affinity()
        assert first.placed and sum(first.owner(g) == "b:2" for g in heavy) >= 1      # work moved to b:2
        # no next placement before its moves are measured (pg_balance.HOLD), by either worker
        assert stores[0]._balance_due > time.monotonic() + pg_balance.HOLD - 10
        stores[1]._balance_due = 0.0
        second = stores[1].affinity()                              # the other reads it at its next look
        assert second.placed == first.placed and all(second.owner(g) == first.owner(g) for g in games)
        assert stores[1]._balance_due > time.monotonic() + pg_balance.HOLD - 10
        # a placement written on a stale read is refused (another worker wrote first)
        text = stores[0]._one("SELECT value FROM pbem_meta WHERE key = 'placement'")[0]
        assert json.loads(text)["epoch"] == 1
        stale = Affinity("b:2", ["a:1", "b:2"], tuple(games), first.groups)
        assert pg_balance.rebalance(stores[1], stale, '{"epoch": 0, "owners": {}}') is None
        assert stores[0]._one("SELECT value FROM pbem_meta WHERE key = 'placement'")[0] == text
    finally:
        for s in stores:
            s.stop_worker()
            s.close()

@pytest.fixture
def two_workers(tmp_path, pg_url, monkeypatch):
    """A database host with four games and two `pbem serve` processes (each a worker of
    its own, no supervisor: a killed one stays dead)."""
    from pg_helpers import use_database
    monkeypatch.setenv("PBEM_CLOCK", CLOCK)
    monkeypatch.delenv("PBEM_HOST", raising=False)
    root = tmp_path / "host"
    make_host(root)
    use_database(root, pg_url)
    host = Host.open(root)
    tokens = {}
    for i in range(4):
        gid = f"g{i}"
        g = Game.create(host.store.game(gid), "el-alamein", {"axis": AXIS, "british": BRITISH},
                        seed_hex=f"{i + 1:064x}", game_id=gid, at=CLOCK)
        host.welcome(g)
        tokens[gid] = json.loads(g.store.read("player-secrets.json"))
    env = dict(os.environ, PBEM_CLOCK=CLOCK, PYTHONPATH=REPO)
    # two-second polls: a worker takes over another's only game after four (8 s), which even
    # a loaded machine leaves its own worker time enough to take first
    procs = [subprocess.Popen([sys.executable, "-m", "pbem", "serve", "--host", str(root), "--interval", "2"],
                              env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL) for _ in range(2)]
    try:
        for _ in range(600):
            alive = {w["pid"]: w["worker"] for w in host.store.workers() if w["alive"]}
            if len(alive) == 2:
                break
            time.sleep(0.1)
        assert sorted(alive) == sorted(p.pid for p in procs)
        quiet, end = 0, time.monotonic() + 120
        while quiet < 5 and time.monotonic() < end:      # their first deadlines' turn over (cold, it is slow)
            quiet = 0 if any(w["holds"] for w in host.store.workers()) else quiet + 1
            time.sleep(0.2)
        yield host, tokens, {p.pid: p for p in procs}, alive
    finally:
        for p in procs:
            if p.poll() is None:
                p.send_signal(signal.SIGCONT)
                p.send_signal(signal.SIGTERM)
        for p in procs:
            try:
                p.wait(60)
            except subprocess.TimeoutExpired:
                p.kill()


def _mail(host, tokens, gid: str, n: int) -> str:
    """An order mail (a press line) for ``gid``, delivered; returns its key in the journal."""
    mid = f"aff-{gid}-{n}@example.org"
    body = f"Token: {tokens[gid]['axis']}\npress note {n}\n"
    M.Maildir(host.inbox_path).deliver(message(AXIS, body, subject=f"[pbem {gid}] orders", mid=mid))
    return f"<{mid}>"


def _done_by(host, key: str, timeout: float = 60) -> str:
    """The worker that did the job ``key`` (waits for it)."""
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        rec = host.store.job_get(key) or host.store.job_get(key.strip("<>"))
        if rec and rec.get("status") == "done":
            assert rec["outcome"] == "accepted", rec
            return rec["worker"]
        time.sleep(0.05)
    raise AssertionError(f"{key} was not answered in {timeout} s")


def test_a_games_mails_go_to_one_worker_and_to_another_when_it_is_gone(two_workers):
    host, tokens, procs, alive = two_workers
    owner = Affinity("", list(alive.values()), tuple(host.games()), host.store.scenario_groups()).owner
    # A first mail for each game, not counted: a worker draws its first map cold, which on a
    # loaded machine once took the owner past the four intervals the other waits (a flake).
    for gid in tokens:
        _done_by(host, _mail(host, tokens, gid, 0))
    by: dict[str, set[str]] = {}
    for n in range(1, 4):                     # one mail at a time, each game in turn
        for gid in tokens:
            by.setdefault(gid, set()).add(_done_by(host, _mail(host, tokens, gid, n)))
    assert by == {gid: {owner(gid)} for gid in tokens}, (by, alive)
    # its worker is killed: the game's next mail is answered by the other one, at once
    gid = "g0"
    dead = next(pid for pid, w in alive.items() if w == owner(gid))
    procs[dead].kill()
    procs[dead].wait(30)
    other = next(w for pid, w in alive.items() if pid != dead)
    start = time.monotonic()
    assert _done_by(host, _mail(host, tokens, gid, 10)) == other
    assert time.monotonic() - start < 30


def test_a_stuck_workers_game_is_taken_over_after_four_intervals(two_workers):
    host, tokens, procs, alive = two_workers
    owner = Affinity("", list(alive.values()), tuple(host.games()), host.store.scenario_groups()).owner
    gid = "g1"
    stuck = next(pid for pid, w in alive.items() if w == owner(gid))
    other = next(w for pid, w in alive.items() if pid != stuck)
    end = time.monotonic() + 120
    while time.monotonic() < end:             # alive (its session stays) but doing nothing, and
        os.kill(stuck, signal.SIGSTOP)        # stopped holding no game's lock (as in its deadlines' turn,
        time.sleep(0.05)                      # which takes a while the first time on a loaded machine)
        if not next(w for w in host.store.workers() if w["pid"] == stuck)["holds"]:
            break
        os.kill(stuck, signal.SIGCONT)
        time.sleep(0.3)
    with open(f"/proc/{stuck}/stat") as f:
        assert f.read().rsplit(")", 1)[1].split()[0] == "T"                 # stopped
    try:
        start = time.monotonic()
        by = _done_by(host, _mail(host, tokens, gid, 20))
        assert by == other, (by, other, alive)
        assert time.monotonic() - start >= 8.0          # its only game: left to it for four intervals first
    finally:
        os.kill(stuck, signal.SIGCONT)


def test_a_placement_that_is_not_one_is_ignored():
    """pbem_meta's placement edited by hand into something else: the games are shared out as
    without one (a worker never stops on it), and the next placement written replaces it."""
    from pbem.store import pg_balance
    assert pg_balance.owners("") is None and pg_balance.owners("not json") is None
    assert pg_balance.owners('{"epoch": 3}') is None and pg_balance.owners('{"owners": [1, 2]}') is None
    assert pg_balance.owners('{"epoch": 3, "owners": {"g1": "a:1"}}') == {"g1": "a:1"}
    assert pg_balance._read("garbage") == (0, None) and pg_balance._read('{"epoch": 7, "owners": {}}') == (7, {})
    assert pg_balance._read("[1, 2]") == (0, None)


def test_a_rebalance_among_three_workers_lowers_the_busiest_and_keeps_scenarios_whole():
    # 30 games of ten scenarios, three each, on three workers; a game of scenarios 0-2
    # costs five times one of the others
    games = tuple(f"g{i:02d}" for i in range(30))
    groups = {g: f"scenario-{i % 10}" for i, g in enumerate(games)}
    cost = {g: 50.0 if groups[g] in ("scenario-0", "scenario-1", "scenario-2") else 10.0 for g in games}
    names = ["a:1", "b:2", "c:3"]
    tried = 0
    for extra in range(12):                                        # several hash orders
        names = ["a:1", "b:2", f"c:{extra}"]
        three = Affinity("a:1", names, games, groups)
        before = _loads(three, {g: three.owner(g) for g in games}, cost)
        owners = three.rebalanced(cost)
        if owners is None:
            continue
        tried += 1
        after = _loads(three, owners, cost)
        assert max(after.values()) < max(before.values()) and set(owners.values()) <= set(names)
        split_before = {sc for sc in set(groups.values()) if len({three.owner(g) for g in games if groups[g] == sc}) > 1}
        split_after = {sc for sc in set(groups.values()) if len({owners[g] for g in games if groups[g] == sc}) > 1}
        assert split_after <= split_before                          # no scenario newly cut in two
    assert tried >= 3
