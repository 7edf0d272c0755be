"""What the family's modules share beyond the generic mechanics (pbem.mechanics):
order words, the "between two enemy units" test of
10.0(4) and the evacuation flow of Dunkerque 4.2.  Pure functions.
"""
from __future__ import annotations

from pbem.core import orders as O
from pbem.core.scenario import Board


def verb(order: O.Order) -> str:
    """The order word: the struct tag, or for a game's own word (GameVerb) the word itself."""
    tag = order.__struct_config__.tag
    return getattr(order, "word", tag) if tag == "game-verb" else tag


def verb_args(order: O.Order) -> list[str]:
    return list(getattr(order, "args", []))


_OPPOSITE = (("N", "S"), ("NE", "SW"), ("SE", "NW"))


def between_enemies(board: Board, h: str, enemy_hexes: set[str]) -> bool:
    """True if enemy units stand on two opposite sides of ``h`` (a hex "sandwiched" between
    two enemy units, Dunkerque and Khar'kov 10.0(4))."""
    grid = board.grid
    for d1, d2 in _OPPOSITE:
        a, b = grid.neighbour(h, d1), grid.neighbour(h, d2)
        if a in enemy_hexes and b in enemy_hexes:
            return True
    return False


def max_flow(supply: dict[str, int], capacity: dict[str, int], links: dict[str, list[str]]) -> dict[str, dict[str, int]]:
    """How much of each source's ``supply`` goes to which sink (sinks hold ``capacity``),
    along ``links`` (source -> sinks), so that the total is as large as possible.

    Small bipartite problems only (evacuation through ports, Dunkerque 4.2); augmenting
    paths in a fixed order keep the answer deterministic."""
    flow: dict[str, dict[str, int]] = {s: {} for s in supply}
    used = {k: 0 for k in capacity}

    def sent(s: str) -> int:
        return sum(flow[s].values())

    def augment(s: str, seen: set[str]) -> tuple[int, list[tuple[str, str, int]]] | None:
        # find a path s -> sink with spare capacity, possibly re-routing other sources
        for k in links.get(s, []):
            if k in seen:
                continue
            seen.add(k)
            if used[k] < capacity[k]:
                return capacity[k] - used[k], [(s, k, +1)]
            for other in sorted(flow):
                if other != s and flow[other].get(k, 0) > 0:
                    sub = augment(other, seen)
                    if sub is not None:
                        amount, steps = sub
                        amount = min(amount, flow[other][k])
                        return amount, [(s, k, +1), (other, k, -1)] + steps
        return None

    for s in supply:
        while sent(s) < supply[s]:
            found = augment(s, set())
            if found is None:
                break
            amount, steps = found
            amount = min(amount, supply[s] - sent(s))
            for src, k, sign in steps:
                flow[src][k] = flow[src].get(k, 0) + sign * amount
                used[k] += sign * amount
                if flow[src][k] == 0:
                    del flow[src][k]
    return flow
