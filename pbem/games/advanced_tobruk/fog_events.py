"""Events of limited intelligence (32): hidden units revealed, FOW faces flipped, dummies
removed.  Registered with the core; FOG_REDUCERS is merged by reducer.py."""
from __future__ import annotations

from collections.abc import Callable

from pbem.core.events import Event, Motion, register
from pbem.core.scenario import Scenario


class Revealed(Event, tag="TobrukRevealed"):
    """32.211 / 32.2111 / 32.22: hidden units placed on the map in their side-note hex,
    FOW side up (``face_up`` False) or unit side up (they fired)."""
    motion = Motion("place", unit="units", hex="hex")   # the game's: out of hiding (32.211)
    side: str
    units: list[str]
    hex: str
    why: str
    rule: str
    face_up: bool = False


class Flipped(Event, tag="TobrukFlipped"):
    """32.12, 32.2111: FOW units turned to their unit side (the enemy now sees what they are)."""
    units: list[str]
    why: str
    rule: str


class DummyRemoved(Event, tag="TobrukDummyRemoved"):
    """32.241: a dummy forced to flip is removed from play; the event says it was a dummy."""
    motion = Motion("off")         # the game's: removed from play (32.241)
    unit: str
    hex: str
    why: str


MINE: tuple[type, ...] = (Revealed, Flipped, DummyRemoved)
register(*MINE)


def _revealed(st, ev: Revealed, sc: Scenario) -> None:
    for uid in ev.units:
        st.units[uid].hex = ev.hex
        p = st.pieces[uid]
        p.hidden_at = ""
        if ev.face_up:
            p.flipped = True


def _flipped(st, ev: Flipped, sc: Scenario) -> None:
    for uid in ev.units:
        st.pieces[uid].flipped = True


def _dummy_removed(st, ev: DummyRemoved, sc: Scenario) -> None:
    u = st.units[ev.unit]
    u.hex = None
    u.gone = "dummy"
    st.pieces[ev.unit].flipped = True
    st.pieces[ev.unit].hidden_at = ""


FOG_REDUCERS: dict[type, Callable] = {Revealed: _revealed, Flipped: _flipped, DummyRemoved: _dummy_removed}
