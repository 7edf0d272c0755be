"""The shortcuts of `pbem serve --workers` on the database (issue 29) give what the
plain code gives (correctness only: the figures come from tests/benchmark_host.py
--only workers):

- ``PgStore.hosted(gid)`` (one row looked up for a mail's game) is
  ``games().get(gid)`` (every game listed, as each mail did before);
- ``Affinity.owner`` (kept per game) of a game not hosted is the highest hash over
  the live workers, computed afresh.
"""
from __future__ import annotations

import hashlib

from mail_helpers import AXIS, BRITISH, CLOCK
from pbem.engine import Game
from pbem.store.affinity import Affinity
from pbem.store.pg import PgStore


def test_one_hosted_game_is_the_one_the_list_of_games_gives(pg_url, tmp_path):
    store = PgStore(pg_url, cache_root=tmp_path / "cache")
    try:
        for gid in ("g1", "g-2", "G1"):
            Game.create(store.game(gid), "el-alamein", {"axis": AXIS, "british": BRITISH},
                        seed_hex="22" * 32, game_id=gid, at=CLOCK)
        listed = store.games()
        for gid in ("g1", "g-2", "G1", "g2", "", "g1 ", "%", "g_"):
            got, want = store.hosted(gid), listed.get(gid)
            assert (got is None) == (want is None), gid
            assert got is None or got.game_id == want.game_id == gid
    finally:
        store.close()


def test_a_games_kept_owner_is_the_one_computed_afresh():
    live = [f"vm:{pid}" for pid in (101, 202, 303, 404)]
    aff = Affinity(live[0], live)
    for i in range(300):
        game = f"game-{i}"
        for _ in range(2):                                      # computed, then kept
            assert aff.owner(game) == max(live, key=lambda w: hashlib.sha256(f"{w}\n{game}".encode()).digest())
        assert aff.mine(game) == (aff.owner(game) == live[0])


def test_the_games_scenarios_are_their_groups(pg_url, tmp_path):
    # ``Affinity``'s groups: one digest for the games of one scenario, another for another's
    store = PgStore(pg_url, cache_root=tmp_path / "cache")
    try:
        for gid, sc in (("a1", "el-alamein"), ("a2", "el-alamein"), ("c1", "crete")):
            players = {"axis": AXIS, "british": BRITISH} if sc == "el-alamein" else None
            Game.create(store.game(gid), sc, players, seed_hex="22" * 32, game_id=gid, at=CLOCK)
        groups = store.scenario_groups()
        assert set(groups) == {"a1", "a2", "c1"}
        assert groups["a1"] == groups["a2"] != groups["c1"]
        assert groups["a1"] == hashlib.md5(store.game("a1").read("scenario.toml")).hexdigest()
    finally:
        store.close()
