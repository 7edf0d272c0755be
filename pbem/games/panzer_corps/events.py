"""Panzer Corps family events (El Alamein 4.2, Dunkerque, Khar'kov, Operation Compass).

A game module imports this as ``E``: the core events and its own in one namespace."""
from __future__ import annotations

from pbem.core.events import *  # noqa: F401,F403 - the core events too
from pbem.core.events import Event, Motion, register


class UnitBrokeOff(Event, tag="UnitBrokeOff"):
    motion = Motion("off", core=True)
    unit: str
    hex: str                       # the map-edge hex it left from
    edge: str


class HiddenDraw(Event, tag="HiddenDraw"):
    """A draw nobody may see (Dunkerque 3.0(4), 10.0(2)): the referee's copy
    holds the rolls and the units in slot order; every side's copy only the
    turn of each slot.  Each slot's unit is also sealed in a SecretRecorded
    (side "referee") and unveiled by SecretRevealed when it enters."""
    name: str
    slots: list[int]               # the turn of each slot, public
    rolls: list[int] = []          # referee only
    units: list[str] = []          # referee only: the unit in each slot


class UnitSetUp(Event, tag="UnitSetUp"):
    """A unit its owner put on the map during set-up (Khar'kov 3.0(4), Operation Compass 3.0(3), 3.2)."""
    motion = Motion("place", hex="hex", core=True)
    unit: str
    hex: str
    rule: str


class ReinforcementEntered(Event, tag="ReinforcementEntered"):
    motion = Motion("place", hex="hex", core=True)
    unit: str
    hex: str
    mp: int = 0                    # movement points already spent by entering
    pinned: bool = False           # placed in an enemy ZOC: may not move this turn
    rule: str = ""


class ReinforcementDelayed(Event, tag="ReinforcementDelayed"):
    units: list[str] = []          # empty for face-down units, whose identity stays hidden
    count: int = 0
    forced: bool = False           # no legal entry hex (Khar'kov 10.0(4)) rather than by choice
    rule: str = ""


class BombardmentRolled(Event, tag="BombardmentRolled"):
    rolls: list[int]
    count: int                     # how many units the die lets the bombarding side disrupt
    rule: str = ""


class UnitsDisrupted(Event, tag="UnitsDisrupted"):
    units: list[str]
    reason: str
    rule: str


class PointsScored(Event, tag="PointsScored"):
    side: str
    points: int                    # may be negative
    reason: str
    rule: str
    mark: str = ""                 # bookkeeping key (a city charged, a turn's railroad cut)


class HexControlled(Event, tag="HexControlled"):
    hex: str
    side: str
    rule: str
    marker: str = ""               # Khar'kov 4.2: "Charge & Control" or "Charged"


class CombatChosen(Event, tag="CombatChosen"):
    """The attacker names the declared combat to resolve next (9.1(5); Khar'kov and
    Compass 9.1(6)): ``resolve HEX``.  ``in_order``: the attacker's ``end`` after such a
    choice, this combat and then the rest in declaration order (the default)."""
    index: int
    target: str
    in_order: bool = False


class ConnectingLine(Event, tag="ConnectingLine"):
    """The result of tracing one connecting line at the end of a game."""
    subject: str                   # a unit id or a hex
    start: str
    traced: bool
    to: str = ""                   # where the line ends ("" if none)
    path: list[str] = []
    note: str = ""
    rule: str = ""


register(UnitBrokeOff, CombatChosen, HiddenDraw, UnitSetUp, ReinforcementEntered, ReinforcementDelayed, BombardmentRolled, UnitsDisrupted, PointsScored, HexControlled, ConnectingLine)
