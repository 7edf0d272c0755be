"""Which worker of ``pbem serve`` on a database takes a game's mail first
(``PgStore.affinity`` builds it from the live workers, the hosted games and their
scenarios; ``host/inbox.py`` follows it)."""
from __future__ import annotations

import hashlib

__all__ = ["Affinity"]


class Affinity:
    """Which worker a game's mail goes to first.  Each game has an order of the live
    workers, by ``sha256(worker, group)`` (rendezvous hashing), and goes to the first
    of them that has fewer than its share of the hosted ``games`` (the games taken
    in the order of their group's hash, then their own), so the workers hold as many
    games each, give or take one.  A game's group is its scenario (``groups``: game ->
    a digest of its scenario.toml; a game not named there is a group of its own): the
    games of one scenario go to one worker while its share has room, so a board, its
    pictures and the counters where every game of the scenario starts are drawn and
    kept by one process, not by each.  Every worker computes the same owners from the
    same lists; when a worker dies or joins, its games move and few others.  A game
    not hosted (yet) goes to the first of its order.  So a game's maps, tiles and
    states stay warm in one process and its lock is rarely wanted by two workers at once."""

    def __init__(self, me: str, live: list[str], games: tuple[str, ...] = (), groups: dict[str, str] | None = None):
        self.me, self.live, self.games = me, sorted(set(live)), tuple(games)
        self.groups = dict(groups or {})
        self._owner: dict[str, str] = {}
        if self.live and self.games:
            share = -(-len(set(self.games)) // len(self.live))
            held = dict.fromkeys(self.live, 0)
            for g in sorted(set(self.games), key=lambda g: (_digest(self._group(g)), _digest(g))):
                w = next(w for w in self._order(self._group(g)) if held[w] < share)
                self._owner[g] = w
                held[w] += 1
        # the groups of the hosted games this worker holds (``kin``)
        self._kin = {self._group(g) for g, w in self._owner.items() if w == me}

    def _group(self, game: str) -> str:
        got = self.groups.get(game)
        return game if got is None else "scenario " + got

    def _order(self, group: str) -> list[str]:
        return sorted(self.live, key=lambda w: _digest(f"{w}\n{group}"), reverse=True)

    def owner(self, game: str) -> str:
        w = self._owner.get(game)
        if w is None:
            w = self._owner[game] = self._order(self._group(game))[0]
        return w

    def kin(self, game: str) -> bool:
        """Another worker's game whose scenario this worker holds games of (its board and
        pictures already drawn here): the one to help with first."""
        return self._group(game) in self._kin

    def mine(self, game: str) -> bool:
        """This worker's game (a message naming no game is everybody's)."""
        return not game or self.owner(game) == self.me


def _digest(text: str) -> bytes:
    return hashlib.sha256(text.encode("utf-8", "replace")).digest()
