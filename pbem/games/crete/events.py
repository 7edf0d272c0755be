"""Crete's events: airdrops, transit tracks, combat chains, standing answers to Ca.

A game module imports this as ``E``: the core events and its own in one namespace."""
from __future__ import annotations

from pbem.core.events import *  # noqa: F401,F403 - the core events too
from pbem.core.events import Event, Motion, register
from pbem.games.paratroop import UnitLanded, UnitPlaced  # noqa: F401 - the family's own


class AirDropped(Event, tag="AirDropped"):
    """An airborne unit's drop: the Scatter Table die, then the scatter direction die (Crete 5.0)."""
    motion = Motion("place", hex="hex")   # the game's: a drop off the map ("") leaves the unit where it was (5.3)
    unit: str
    target: str
    column: str                    # Scatter Table column used
    rolls: list[int]
    result: str                    # "Ac" (accurate) | "Sc" (scatter)
    direction: str = ""            # scatter direction, when scattered
    hex: str = ""                  # where it came down; "" when off the map


class TrackEntered(Event, tag="TrackEntered"):
    """A unit left its map into a transit track (Crete 7.0)."""
    motion = Motion("move", path="path")  # the game's: the unit then has no hex, it is in the track (7.0)
    unit: str
    track: str
    path: list[str]                # hexes moved before entering the track (may be empty)
    cost: str                      # MP spent, track entry included
    ma: int
    exit: str                      # the road hex of the far map where it must come out


class CombatOpened(Event, tag="CombatOpened"):
    """One roll of a combat chain is about to be made (Crete 9.1, 10.5)."""
    strike = "hexes"
    index: int
    mode: str                      # "attack" | "counterattack" | "re-roll" | "scatter"
    side: str
    attackers: list[str]
    defenders: list[str]
    hexes: list[str]               # the attacked hexes
    table: str                     # "all-out" | "limited"
    air: list[str] = []
    lose: list[str] = []           # inline answer: attackers to lose on an Ee (10.3)
    advance: str = ""              # inline answer: unit to advance, "-" = none, "" = ask (10.7)
    advance_hex: str = ""


class StandingOrderSet(Event, tag="StandingOrderSet"):
    """A side's standing answer to a question the rules may put to it later (Crete 10.5: how its
    force answers a Ca), applied automatically when legal; otherwise the game still asks."""
    side: str
    topic: str                     # "ca" (the original defender's answer) | "re-roll" (the original attacker's)
    answer: str                    # as written: "retreat" | "counterattack all-out" | "limited" | "ask" | "default"
    scope: str = ""                # "" = every unit of the side; a unit id or a hex: an exception for it


class StandingOrderApplied(Event, tag="StandingOrderApplied"):
    """A decision answered by standing order(s) instead of by the player (reported, never silent)."""
    side: str
    orders: list[str]              # the standing orders that gave the answer, as written ("doctrine ca retreat")
    answer: str                    # the answer given, as the order the player would have written
    units: list[str] = []          # the force that had to answer
    combat: int = 0
    rule: str = ""


class PlaceScored(Event, tag="PlaceScored"):
    """Victory points for a place (an airfield or Suda) held at the end of the game (Crete 12.2)."""
    side: str
    hex: str
    place: str                     # "airfield" | "suda"
    points: int


register(AirDropped, TrackEntered, CombatOpened, StandingOrderSet, StandingOrderApplied, PlaceScored)
