"""The view through which Advanced Tobruk's reducers see the state's pieces and units while
``reducer.reduce`` runs: it notes every unit a reducer asked for, so that only their markers
are derived again (reducer.py).  A reducer that walks every piece to change a few walks the
plain dict (``walk``) and names the ones it changed (``touch``)."""
from __future__ import annotations


ALL = object()          # noted by an Asked that was walked: every unit's markers are derived again


class Asked:
    """A dict as a reducer sees it while ``reduce`` runs: every key it asks for is
    noted in ``asked`` (one set for the pieces and the units), and anything that walks
    the whole dict notes all of them (``every``).  The units whose piece or unit a
    reducer did not ask for are as they were, so their markers are too."""

    __slots__ = ("d", "asked")

    def __init__(self, d: dict, asked: set | None = None):
        self.d, self.asked = d, set() if asked is None else asked

    @property
    def every(self) -> bool:
        return ALL in self.asked

    def __getitem__(self, k):
        self.asked.add(k)
        return self.d[k]

    def get(self, k, default=None):
        self.asked.add(k)
        return self.d.get(k, default)

    def __setitem__(self, k, v):
        self.asked.add(k)
        self.d[k] = v

    def __contains__(self, k) -> bool:
        return k in self.d

    def __len__(self) -> int:
        return len(self.d)

    def __iter__(self):
        self.asked.add(ALL)
        return iter(self.d)

    def keys(self):
        self.asked.add(ALL)
        return self.d.keys()

    def values(self):
        self.asked.add(ALL)
        return self.d.values()

    def items(self):
        self.asked.add(ALL)
        return self.d.items()


def walk(d):
    """Every (key, value) of a dict of the state, the reducer's ``Asked`` or not, without
    asking for them all: a reducer that walks every piece to change a few asks for those
    (``touch``), so only their markers are derived again."""
    return (d.d if d.__class__ is Asked else d).items()


def touch(d, k) -> None:
    """Note unit ``k`` as changed (its markers derived again) when ``d`` is the noting view."""
    if isinstance(d, Asked):
        d.asked.add(k)
