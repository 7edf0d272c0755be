"""What command (5.8) and supply (5.7) tracing read of a position, worked out once
per position: the units in each hex, each side's ZOC (5.4), and the answers
already found (a unit in command, an HQ in supply, a path to a source).

A position is what those answers depend on: each unit's side, hex, elimination
and disruption, the depleted strongpoints (3.1.3), the blocked sources (5.7.3)
and the removed formations (3.3).  Its key is built from exactly these, so any
event that changes one of them (a move, a retreat, a loss, a disruption, a
recovery, a depletion, a Supply Blocked marker) makes a new position and the
old answers are never used for it; an order that changes none (an AP spent, a
chit drawn) keeps them.  The last 128 positions are kept, of any scenario (every
position of the four Mirages examples: an audit of many games verifies each
example's in turn)."""
from __future__ import annotations

from pbem.core.scenario import once_per_scenario

__all__ = ["Position", "position"]


class Position:
    """One position of one scenario: ``at`` (hex -> the sides of its units, not eliminated),
    ``ezoc`` (side -> the hexes it projects a ZOC into) and the answers found."""

    __slots__ = ("sea", "at", "ezoc", "shut", "command", "reach", "supply", "to_source", "source_area", "road_area")

    def open(self, sc, side: str, h: str, ezoc) -> bool:
        """``board.path_open`` on this position: not impassable, no enemy unit, no EZOC
        without a friendly unit (5.7.4 / 5.8.2)."""
        if h in self.sea:
            return False
        here = self.at.get(h)
        if here is None:
            return h not in ezoc
        if len(here) > 1 or side not in here:
            return False
        return True

    def __init__(self, st, sc):
        self.sea = _impassable(sc)
        at: dict[str, set[str]] = {}
        for u in st.units.values():
            if u.hex is not None and not u.eliminated:
                at.setdefault(u.hex, set()).add(u.side)
        self.at = at
        self.ezoc: dict[str, frozenset[str]] = {}
        self.shut: dict[str, frozenset[str]] = {}
        self.command: dict[str, bool] = {}
        self.reach: dict[tuple, frozenset[str]] = {}
        self.supply: dict[str, bool] = {}
        self.to_source: dict[tuple[str, str], bool] = {}
        self.source_area: dict[str, frozenset[str]] = {}
        self.road_area: dict[str, frozenset[str]] = {}


_kept: dict[tuple, tuple[object, Position]] = {}
_seas: dict[int, tuple[object, frozenset[str]]] = {}


def _impassable(sc) -> frozenset[str]:
    """The hexes no path enters (``board.impassable``: the sea), once per scenario."""
    return once_per_scenario(_seas, sc, _sea)


def _sea(sc) -> frozenset[str]:
    from pbem.games.formation.board import impassable  # here: board imports this module (a cycle)
    return frozenset(h for h in sc.board.grid.all_hexes() if impassable(sc, h))


def key(st) -> tuple:
    fm = st.fm
    return (tuple([(u.id, u.side, u.hex, u.eliminated, u.disrupted) for u in st.units.values()]),
            tuple(fm.depleted), tuple(fm.blocked), tuple([(f, x.removed) for f, x in fm.formations.items()]))


_last: list = [None, None, None]                    # the last position asked: sc, key, Position


def position(st, sc) -> Position:
    """The position of ``st`` (a new one when any of what it is made of changed).  The last one
    asked is compared first (the rules ask for the same position many times an order): a key
    compared equal costs less than its hash."""
    k = key(st)
    last = _last
    if last[0] is sc and last[1] == k:
        return last[2]
    kk = (id(sc), k)
    got = _kept.get(kk)
    if got is not None and got[0] is sc:            # the entry holds ``sc``: its id is not reused
        pos = got[1]
    else:
        if len(_kept) >= 128:
            _kept.clear()
        pos = Position(st, sc)
        _kept[kk] = (sc, pos)
    last[0], last[1], last[2] = sc, k, pos
    return pos
