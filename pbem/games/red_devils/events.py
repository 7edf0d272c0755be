"""Red Devils' events: opportunity fire, doctrine, air landings, the bridge, victory.

A game module imports this as ``E``: the core events and its own in one namespace."""
from __future__ import annotations

from pbem.core.events import *  # noqa: F401,F403 - the core events too
from pbem.core.events import Event, Motion, register
from pbem.games.paratroop import UnitLanded, UnitPlaced  # noqa: F401 - the family's own


class DoctrineSet(Event, tag="DoctrineSet"):
    """A side's standing answers to opportunity-fire questions (Red Devils 5.0), applied automatically."""
    side: str
    default: str                   # "ask" | "always" | "never" | "diff>=N"
    units: dict[str, str] = {}     # exceptions per firing unit, same values
    retreat: str = ""              # standing answer to a Dd result: "" = ask, "disrupt"
    bridge: str = ""               # German answer to 11.0: "" = ask, "demolish", "spare"
    cleared: str = ""              # `doctrine UNIT default`: the unit whose exception this removed ("" = none)


class OpportunityFire(Event, tag="OpportunityFire"):
    strike = "hex"
    firer: str
    target: str
    hex: str                       # where the target is when fired at
    fire_strength: int
    target_strength: int
    differential: int
    column: str
    shifts: list[str]
    rolls: list[int]
    result: str
    by: str                        # "doctrine" | "answer"


class MovePaused(Event, tag="MovePaused"):
    """A move or air landing waits for the other side's answer (Red Devils 5.0, 11.0); it holds
    what the move still has to do so that the answer can resume it."""
    side: str                      # who must answer
    unit: str
    hex: str
    question: str                  # "fire" | "bridge"
    firers: list[str] = []
    remaining: list[str] = []
    costs: list[str] = []          # MP spent in all once each remaining hex is entered (exact fractions)
    spent: str = "0"
    ma: int = 0
    mode: str = ""
    swim: bool = False
    off: bool = False
    context: str = "move"          # "start" | "move" | "landing"
    then: str = "step"
    rule: str = ""


class OpportunityFirePassed(Event, tag="OpportunityFirePassed"):
    firers: list[str]
    target: str
    hex: str
    by: str                        # "doctrine" | "answer"


class UnitDisrupted(Event, tag="UnitDisrupted"):
    unit: str
    reason: str
    rule: str


class AirLandingResolved(Event, tag="AirLandingResolved"):
    unit: str
    hex: str
    rolls: list[int]
    modifiers: list[str]
    total: int
    result: str                    # "E" | "D" | "-"


class BridgeDemolition(Event, tag="BridgeDemolition"):
    hexside: str
    rolls: list[int]
    destroyed: bool


class UnitExited(Event, tag="UnitExited"):
    motion = Motion("off", core=True)
    unit: str
    hex: str
    letter: str


class VictoryCounted(Event, tag="VictoryCounted"):
    hexes: dict[str, int]          # VP hex -> points scored
    lines: dict[str, list[str]]    # VP hex -> the British line of communications that scored it
    german_eliminated: int
    british_extra: int
    total: int
    level: str


register(DoctrineSet, OpportunityFire, MovePaused, OpportunityFirePassed, UnitDisrupted, AirLandingResolved, BridgeDemolition, UnitExited, VictoryCounted)
