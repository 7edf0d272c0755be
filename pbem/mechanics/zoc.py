"""Zones of control: the hexes next to a unit that its enemies must stop in.

A unit's zone of control (ZOC) is the six hexes around it, less those a game
says it does not reach (across a cliff, into a hex of a kind it may never
enter): ``blocked(a, b)`` is True when the ZOC of a unit in hex a does not
reach the adjacent hex b.  Pure: reads a state and a board, returns hexes.
"""
from __future__ import annotations

from collections.abc import Callable, Iterable

from pbem.core.scenario import Board
from pbem.core.state import GameState, UnitState

# A predicate saying whether a ZOC does NOT extend from hex a into adjacent hex b.
ZocBlock = Callable[[str, str], bool]


def exerts_zoc(u: UnitState, *, disrupted_exert: bool = False) -> bool:
    """Whether ``u`` has a ZOC now: on the map, alive, and (unless ``disrupted_exert``) not disrupted."""
    return u.hex is not None and not u.eliminated and (disrupted_exert or not u.disrupted)


def enemy_zoc(state: GameState, board: Board, side: str, blocked: ZocBlock | None = None,
              ignore: Iterable[str] = (), *, disrupted_exert: bool = False) -> set[str]:
    """Hexes in the zone of control of ``side``'s enemies.

    Disrupted units exert none unless ``disrupted_exert``.  ``ignore`` lists unit
    ids to leave out."""
    skip = set(ignore)
    out: set[str] = set()
    for u in state.units.values():
        if u.side == side or u.id in skip or not exerts_zoc(u, disrupted_exert=disrupted_exert):
            continue
        for n in board.grid.neighbours(u.hex):
            if blocked is None or not blocked(u.hex, n):
                out.add(n)
    return out


def hexsides_block(board: Board, features: Iterable[str]) -> ZocBlock | None:
    """A ZocBlock for hexside features no ZOC crosses (None when there are none)."""
    feats = frozenset(features)
    if not feats:
        return None
    return lambda a, b: bool(board.side_features(a, b) & feats)
