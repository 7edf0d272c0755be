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
    skip = set(ignore) if ignore else ()
    grid = board.grid
    if blocked is None:
        reach = grid.around
    elif isinstance(blocked, ZocReach) and blocked.board is board:
        reach = blocked.reach
    else:
        def reach(h: str) -> list[str]:
            return [n for n in grid.around(h) if not blocked(h, n)]
    out: set[str] = set()
    for u in state.units.values():
        # exerts_zoc(), inlined: this loop is the hot path of every move check
        if (u.side == side or u.hex is None or u.eliminated or (u.disrupted and not disrupted_exert)
                or u.id in skip):
            continue
        out.update(reach(u.hex))
    return out


class ZocReach:
    """A ZocBlock that depends on the board alone (hexside features, terrain), with
    the hexes a ZOC reaches from each hex remembered: ``enemy_zoc`` then looks
    them up instead of asking ``blocked`` for every neighbour of every unit.
    Use it only for a predicate whose answers never change during a game."""

    __slots__ = ("board", "blocked", "_reach")

    def __init__(self, board: Board, blocked: ZocBlock):
        self.board, self.blocked = board, blocked
        self._reach: dict[str, tuple[str, ...]] = {}

    def __call__(self, a: str, b: str) -> bool:
        return self.blocked(a, b)

    def reach(self, h: str) -> tuple[str, ...]:
        """The hexes next to h that a ZOC exerted from h reaches."""
        r = self._reach.get(h)
        if r is None:
            r = self._reach[h] = tuple(n for n in self.board.grid.around(h) if not self.blocked(h, n))
        return r


def hexsides_block(board: Board, features: Iterable[str]) -> ZocBlock | None:
    """A ZocBlock for hexside features no ZOC crosses (None when there are none);
    one per board and set of features, so what it learns is kept."""
    feats = frozenset(features)
    if not feats:
        return None
    memo = board.grid.memo("zoc.hexsides_block")
    r = memo.get(feats)
    if r is None or r.board is not board:
        r = memo[feats] = ZocReach(board, lambda a, b: bool(board.side_features(a, b) & feats))
    return r
