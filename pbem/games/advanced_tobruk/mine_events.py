"""Minefield events (31.1): a minefield entered (placed, revealed, forced or
attacking), a search (31.211), a clearance (31.212) and a vehicle attacked by
mines (31.18a, b); the personnel attack (31.18c) is a CasualtyAttack.
MINE_REDUCERS is merged by reducer.py; the words are in mine_words.py.

An event the enemy receives carries a minefield's density only once the rules
turn its counter over (a forcing roll or an attack, 31.14) and its dummy
nature only once forced (31.191); a search places a counter, never its density."""
from __future__ import annotations

from collections.abc import Callable

from msgspec import structs

from pbem.core.events import Event, register
from pbem.core.scenario import Scenario
from pbem.games.advanced_tobruk.fire_events import apply_effect
from pbem.games.advanced_tobruk.state import TobrukState


class MineEntered(Event, tag="TobrukMineEntered"):
    """31.15-31.19: units enter a minefield hex: its counter placed if hidden, its face turned
    over, one forcing roll per unit (or an automatic attack), a lane marker."""
    hex: str
    side: str                      # the side that laid it
    units: list[str]               # the movers
    move: str                      # crawl | assault | run | cross
    how: str                       # forcing (31.173) | attacked (31.172, 31.201) | dummy (31.191)
    placed: bool = False           # a hidden minefield's counter is put on the map now (31.15, 31.201)
    density: int = 0               # the density now known to both sides (0: a dummy)
    dummy: bool = False            # revealed as a dummy (31.191)
    drm: int = 0                   # -1 entering a hidden minefield by a non-forcing movement (31.15)
    rolls: list[int] = []          # one forcing roll per unit, in ``units`` order
    failed: list[str] = []         # the units the mines attack (31.18)
    lane: bool = False             # a lane marker placed (31.174)
    rule: str = ""


class MineAttack(Event, tag="TobrukMineAttack"):
    """31.18a, b: the mines attack a vehicle: an AFV is M-KILLed and checks bail-out (13.8, 24.05),
    another vehicle is K-KILLed (a burning wreck) and a gun it tows F-KILLed."""
    unit: str
    hex: str
    effects: list[list[str]] = []  # [unit, kkill|mkill|fkill|bailed, detail] (fire_events.apply_effect)
    rolls: list[int] = []
    bail_number: int = 0           # the Bail Out Chart's number (13.81), with its DRMs
    bail_drms: list[str] = []      # "command tank lost +1" (24.05)


class MinesSearched(Event, tag="TobrukMinesSearched"):
    """31.211: a personnel unit spends its Movement Segment searching: the hidden minefields
    adjacent to it are placed on the map (density not revealed)."""
    unit: str
    hex: str
    found: list[str] = []          # the hexes whose hidden minefield is now on the map


class MineCleared(Event, tag="TobrukMineCleared"):
    """31.212: a direct hit of indirect HE of 149 mm or more removes the minefield counter."""
    hex: str
    why: str


MINE: tuple[type, ...] = (MineEntered, MineAttack, MinesSearched, MineCleared)
register(*MINE)


# --- reducers ---------------------------------------------------------------------------------

def _entered(st: TobrukState, ev: MineEntered, sc: Scenario) -> None:
    mf = st.minefields.get(ev.hex)
    if mf is None:
        return
    changes: dict = {}
    if ev.placed:
        changes["hidden"] = False
    changes["known"] = True                    # the counter is turned over (31.14, 31.191)
    if ev.lane:
        changes["lane"] = True
    st.minefields = {**st.minefields, ev.hex: structs.replace(mf, **changes)}


def _attack(st: TobrukState, ev: MineAttack, sc: Scenario) -> None:
    for uid, what, detail in ev.effects:
        apply_effect(st, uid, what, detail)


def _searched(st: TobrukState, ev: MinesSearched, sc: Scenario) -> None:
    p = st.pieces[ev.unit]
    p.moved, p.move = True, "crawl"            # 31.211 it counts as crawling
    found = {h: structs.replace(st.minefields[h], hidden=False) for h in ev.found if h in st.minefields}
    if found:
        st.minefields = {**st.minefields, **found}


def _cleared(st: TobrukState, ev: MineCleared, sc: Scenario) -> None:
    st.minefields = {h: m for h, m in st.minefields.items() if h != ev.hex}


MINE_REDUCERS: dict[type, Callable] = {MineEntered: _entered, MineAttack: _attack, MinesSearched: _searched,
                                       MineCleared: _cleared}
