"""Which worker of ``pbem serve`` on a database takes a game's mail first
(``PgStore.affinity`` builds it from the live workers, the hosted games and their
scenarios; ``host/inbox.py`` follows it)."""
from __future__ import annotations

import hashlib

__all__ = ["Affinity", "LEAST_GAIN"]

LEAST_GAIN = 0.05       # a rebalance moves a scenario when the busier worker's load falls by this much


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
    states stay warm in one process and its lock is rarely wanted by two workers at once.

    Equal shares of games are not equal work (a big board's mail costs several times
    a small one's): ``placed`` (game -> worker), a placement ``rebalanced`` made from
    what the games' mails cost and one worker wrote for all (``PgStore.affinity``),
    is followed instead; the games it does not place, or places on a worker gone (all
    of them when the workers started again), are shared out as above among the room
    the placed games leave."""

    def __init__(self, me: str, live: list[str], games: tuple[str, ...] = (), groups: dict[str, str] | None = None,
                 placed: dict[str, str] | None = None):
        self.me, self.live, self.games = me, sorted(set(live)), tuple(games)
        self.groups, self.placed = dict(groups or {}), dict(placed or {})
        self._owner: dict[str, str] = {}
        if self.live and self.games:
            hosted = set(self.games)
            share = -(-len(hosted) // len(self.live))
            held = dict.fromkeys(self.live, 0)
            rest = []
            for g in sorted(hosted):
                w = self.placed.get(g)
                if w in held:                       # placed on a live worker: there
                    self._owner[g] = w
                    held[w] += 1
                else:
                    rest.append(g)
            for g in sorted(rest, key=lambda g: (_digest(self._group(g)), _digest(g))):
                order = self._order(self._group(g))
                w = next((w for w in order if held[w] < share), order[0])
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

    def rebalanced(self, cost: dict[str, float], least: float = LEAST_GAIN) -> dict[str, str] | None:
        """A placement (every hosted game -> a live worker) that evens out the work, from
        ``cost`` (game -> what its mails cost lately; a game not named costs the mean of
        those named): the heaviest worker's games are moved to the lightest, a scenario's
        games on that worker together (its board and positions are drawn once, where they
        go), each move the one that leaves the two nearest even, while a move lowers the
        heavier of them by ``least`` of its load or more (a moved scenario is drawn cold
        once by its new worker: a small gain is not worth it); a game alone only from a
        worker that holds one scenario.  None when no move is worth it."""
        hosted = sorted(set(self.games))
        if len(self.live) < 2 or not hosted:
            return None
        known = [c for g in hosted if (c := cost.get(g) or 0.0) > 0]
        mean = sum(known) / len(known) if known else 1.0
        weight = {g: cost.get(g) or mean for g in hosted}
        owner = {g: self.owner(g) for g in hosted}
        moved = False
        for _ in range(len(hosted)):
            load = dict.fromkeys(self.live, 0.0)
            parts: dict[tuple[str, str], list[str]] = {}
            for g in hosted:
                load[owner[g]] += weight[g]
                parts.setdefault((self._group(g), owner[g]), []).append(g)
            heavy = max(self.live, key=lambda w: (load[w], w))
            light = min(self.live, key=lambda w: (load[w], w))
            # a scenario's games on the heavy worker together; one game alone only when the
            # heavy worker holds one scenario (its games are then shared out, each worker
            # drawing its board): games of one scenario often share positions, and so
            # pictures, which one moved alone would draw again
            whole = [gs for (_group, w), gs in sorted(parts.items()) if w == heavy]

            def gain(gs, heavy=heavy, light=light, load=load) -> float:
                p = sum(weight[g] for g in gs)          # how much the heavier of the two falls
                return load[heavy] - max(load[heavy] - p, load[light] + p)
            best = max(whole, key=gain, default=None)
            if len(whole) == 1 and (best is None or gain(best) < least * load[heavy]):
                best = max(([g] for g in whole[0]), key=gain)
            if best is None or gain(best) < least * load[heavy]:
                break
            for g in best:
                owner[g] = light
            moved = True
        return owner if moved else None


def _digest(text: str) -> bytes:
    return hashlib.sha256(text.encode("utf-8", "replace")).digest()
