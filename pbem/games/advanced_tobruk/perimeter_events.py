"""Events of the perimeter's rules: obstacles (31.7, 31.8), bunkers (31.5), cover
states taken or dropped into (15.22, 31.25, 33.7), hull defilade (33.35-33.8) and
Continued Fire markers (15.93); their reducers (PERIMETER_REDUCERS, merged by
reducer.py).  The words are in perimeter_words.py."""
from __future__ import annotations

from collections.abc import Callable

from pbem.core.events import Event, register
from pbem.core.scenario import Scenario
from pbem.games.advanced_tobruk.fire_events import _losses, apply_effect
from pbem.games.advanced_tobruk.state import TobrukState


class Immobilized(Event, tag="TobrukImmobilized"):
    """31.83: a vehicle entering a hex rolls on the Immobilization Table (reconstructed, obstacles.py)."""
    unit: str
    hex: str
    cause: str                     # wire
    number: int                    # M-KILL on this or less
    rolls: list[int]
    mkill: bool = False
    rule: str = ""


class ObstacleCleared(Event, tag="TobrukObstacleCleared"):
    """31.85 wire removed; 31.54, 31.55 a bunker destroyed: its occupants out of FULL cover, its
    weapons destroyed (``effects``)."""
    hex: str
    feature: str                   # wire | bunker
    why: str
    uncovered: list[str] = []      # units inside, reduced to STATIONARY cover (31.54)
    effects: list[list[str]] = []  # [unit, eliminated, ""]: weapons inside (31.55)
    rule: str = ""


class CoverChanged(Event, tag="TobrukCoverChanged"):
    """15.22, 31.253: personnel drop into FULL cover as fire comes in; 31.254, 31.571: they go under
    or come out in the Infiltration Phase.  ``cover``: full | top (cover_moves.apply)."""
    units: list[str]
    hex: str
    cover: str
    why: str = ""                  # drop | infiltration
    rule: str = ""


class HullDefilade(Event, tag="TobrukHullDefilade"):
    """33.35-33.83, 31.35c: an AFV takes a hull-defilade position: by a roll (scrub 1, rock-strewn
    2 or less, up on a hillock 1), or at once (a deir's contour, a hillock's crest, a wadi's GOOD
    position, a weapon pit)."""
    unit: str
    hex: str
    position: str                  # rolled | hill | contour | crest | rim | pit
    terrain: str = ""              # what gives it: scrub, rock-strewn, hillock, deir, wadi, weapon pit
    number: int = 0                # a roll: hull defilade on this or less
    rolls: list[int] = []
    gained: bool = True
    rule: str = ""


class ContinuedFirePlaced(Event, tag="TobrukContinuedFirePlaced"):
    """15.931: a hex that received 6 or more gunfire or FRAG factors gets a Continued Fire marker."""
    hex: str
    factors: int
    source: str


class ContinuedFireCheck(Event, tag="TobrukContinuedFireCheck"):
    """15.932: a personnel unit that entered a Continued Fire hex and failed its morale check takes
    as many casualty steps as it failed by (the check is its MoraleChecked)."""
    unit: str
    hex: str
    failed_by: int
    losses: list[list[str]] = []   # [unit, steps after, "eliminated" | ""]


class ContinuedFireCleared(Event, tag="TobrukContinuedFireCleared"):
    """The Continued Fire markers go in the End of Turn Segment (our reading of 15.93 with 5.41)."""
    hexes: list[str]


PERIMETER_EVENTS = (Immobilized, ObstacleCleared, CoverChanged, HullDefilade, ContinuedFirePlaced,
                    ContinuedFireCheck, ContinuedFireCleared)
register(*PERIMETER_EVENTS)


# --- reducers ---------------------------------------------------------------------------------

def apply_cover(p, cover: str) -> None:
    """A unit's cover state after a cover step: 'full' under cover; 'top' on top (or at a wadi's
    bottom); 'rim:N' up in a wadi's GOOD position pointing to hexside N (33.74)."""
    p.full = cover == "full"
    p.rim = int(cover[4:]) if cover.startswith("rim:") else -1
    if p.rim < 0 and p.hd == "rim":
        p.hd = ""                                   # down from the wadi's GOOD position: no hull defilade


def _immobilized(st: TobrukState, ev: Immobilized, sc: Scenario) -> None:
    if ev.mkill:
        st.pieces[ev.unit].m_kill = True


def _cleared(st: TobrukState, ev: ObstacleCleared, sc: Scenario) -> None:
    st.cleared = [*st.cleared, f"{ev.hex}:{ev.feature}"]
    for u in ev.uncovered:
        st.pieces[u].full = False
    for uid, what, detail in ev.effects:
        apply_effect(st, uid, what, detail)


def _cover(st: TobrukState, ev: CoverChanged, sc: Scenario) -> None:
    for u in ev.units:
        apply_cover(st.pieces[u], ev.cover)


def _defilade(st: TobrukState, ev: HullDefilade, sc: Scenario) -> None:
    if ev.gained:
        st.pieces[ev.unit].hd = ev.position


def _cf_placed(st: TobrukState, ev: ContinuedFirePlaced, sc: Scenario) -> None:
    if ev.hex not in st.cfire:
        st.cfire = sorted([*st.cfire, ev.hex])


def _cf_check(st: TobrukState, ev: ContinuedFireCheck, sc: Scenario) -> None:
    _losses(st, ev.losses)


def _cf_cleared(st: TobrukState, ev: ContinuedFireCleared, sc: Scenario) -> None:
    st.cfire = [h for h in st.cfire if h not in ev.hexes]


PERIMETER_REDUCERS: dict[type, Callable] = {
    Immobilized: _immobilized, ObstacleCleared: _cleared, CoverChanged: _cover, HullDefilade: _defilade,
    ContinuedFirePlaced: _cf_placed, ContinuedFireCheck: _cf_check, ContinuedFireCleared: _cf_cleared,
}
