"""Eben Emael's events: fort activation, fire, close assault, demolition.

A game module imports this as ``E``: the core events and its own in one namespace."""
from __future__ import annotations

from pbem.core.events import *  # noqa: F401,F403 - the core events too
from pbem.core.events import Event, Motion, register
from pbem.games.paratroop import UnitLanded, UnitPlaced  # noqa: F401 - the family's own


class FortActivation(Event, tag="FortActivation"):
    """A Belgian activation roll for one inactive fortification (9.4)."""
    fort: str                      # the fortification's hex
    rolls: list[int]
    active: bool


class BoldMovement(Event, tag="BoldMovement"):
    """A unit moved more than one hex and gets a Bold Movement marker (4.6)."""
    unit: str


class UnitEntered(Event, tag="UnitEntered"):
    """A reinforcement enters the map: at an edge hex (10.2) or on a fortification (10.3)."""
    motion = Motion("move", path="path", core=True)
    unit: str
    path: list[str]                # hexes entered, the first one on the map edge or the fortification
    mp: int
    ma: int
    via: str                       # "edge" | "fortification"


class FireDeclared(Event, tag="FireDeclared"):
    """A fire attack announced before any is resolved (5.2)."""
    firer: str                     # unit id, or a fortification's hex
    target: str                    # unit id
    second: bool = False           # Eben Emael 12.2: a fortification's second fire at strength 1


class FireResolved(Event, tag="FireResolved"):
    """One fire attack (5.0), or a minefield attack (11.0) when firer is "minefield"."""
    strike = "hex"
    firer: str
    target: str
    hex: str                       # the target's hex
    row: str                       # Fire CRT column used
    modifiers: list[str]
    rolls: list[int]               # the fire die, then the target's die when the result is a number
    total: int                     # the modified fire die
    result: str                    # "-" or the number added to the target's die
    score: int = 0                 # target's die + result
    rating: int = 0                # the target's Effectiveness Rating
    effect: str = ""               # "no effect" | "pinned" | "already pinned" | "eliminated"


class FireLapsed(Event, tag="FireLapsed"):
    firer: str
    target: str
    reason: str


class AssaultDeclared(Event, tag="AssaultDeclared"):
    """A close assault announced before any is resolved (7.1)."""
    strike = "target"
    target: str                    # the defender's hex
    attackers: list[str]
    lose: str = ""                 # inline answer: which attacker goes on an Ae result
    advance: str = ""              # inline answer: "" = ask, "-" = no advance, else the unit


class AssaultResolved(Event, tag="AssaultResolved"):
    index: int
    target: str
    defender: str
    attackers: list[str]
    differential: int
    modifiers: list[str]
    rolls: list[int]
    total: int
    result: str                    # "De" | "Ae" | "-"


class DemolitionDeclared(Event, tag="DemolitionDeclared"):
    """A demolition attempt announced before any is resolved (8.2)."""
    fort: str
    unit: str
    charge: bool = False           # the unit's one 110 lb charge (8.1)


class DemolitionResolved(Event, tag="DemolitionResolved"):
    fort: str
    unit: str
    rating: int
    modifiers: list[str]
    rolls: list[int]
    total: int
    destroyed: bool
    wasted: bool = False           # the fortification was already destroyed (8.2)


class UnitsReorganized(Event, tag="UnitsReorganized"):
    """Reorganization: pinned units flipped back, Bold Movement markers removed (3.0 steps 6, 11)."""
    side: str
    unpinned: list[str]
    unmarked: list[str]


register(FortActivation, BoldMovement, UnitEntered, FireDeclared, FireResolved, FireLapsed, AssaultDeclared, AssaultResolved, DemolitionDeclared, DemolitionResolved, UnitsReorganized)
