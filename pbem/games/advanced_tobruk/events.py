"""Advanced Tobruk's events: the sequence (5), movement (6), standing fire orders
and paused moves (6.6), infiltration and melee markers (5.3, 22), the end of
turn (5.4) and victory; the fire package's events (fire_events.py) too.

A game module imports this as ``E``: the core events and the game's in one namespace."""
from __future__ import annotations

from pbem.core.events import *  # noqa: F401,F403 - the core events too
from pbem.core.events import Event, Motion, register
from pbem.games.advanced_tobruk.fire_events import *  # noqa: F401,F403 - the fire package's events
from pbem.games.advanced_tobruk.arty_events import *  # noqa: F401,F403 - indirect fire (18-20)
from pbem.games.advanced_tobruk.fog_events import *  # noqa: F401,F403 - limited intelligence (32)
from pbem.games.advanced_tobruk.mine_events import *  # noqa: F401,F403 - minefields (31.1)
from pbem.games.advanced_tobruk.note_events import *  # noqa: F401,F403 - secret pre-game rolls
from pbem.games.advanced_tobruk.perimeter_events import *  # noqa: F401,F403 - wire, bunkers, cover, defilade (31, 33)


class FirstRolled(Event, tag="TobrukFirstRolled"):
    """5.031 / 6.21: each side rolls a die at the start of a phase; the lowest goes first
    (ties rolled again: ``rolls`` holds every pair in ``sides`` order)."""
    phase: str
    sides: list[str]
    rolls: list[int]
    first: str


class Passed(Event, tag="TobrukPassed"):
    """A side has finished acting in this phase (5.131, 5.22); the other completes."""
    side: str
    phase: str
    auto: bool = False             # nothing left that it could do: passed by the rules, not by an order


class Acted(Event, tag="TobrukActed"):
    """One activation done (a unit, platoon or firegroup fired or moved): the other side's turn
    unless it has finished the phase (5.121, 5.21)."""
    side: str
    units: list[str]
    what: str = ""                 # "grenade": a final-fire grenade attack, the units may still infiltrate (22.11)


class Faced(Event, tag="TobrukFaced"):
    """A facing set without moving: at set-up, or a stationary pivot (6.532) / turret turn (12.232)."""
    unit: str
    facing: int = -1
    turret: int = -1
    setup: bool = False


class MoveBegan(Event, tag="TobrukMoveBegan"):
    """Units start a move together (one unit, or a platoon 6.42 / 6.56) with a movement type (6.41, 6.51)."""
    units: list[str]
    move: str                      # crawl | assault | run | cross


class Stepped(Event, tag="TobrukStepped"):
    """One step of a move: a hex entered (forward or in reverse), a pivot or a turret turn."""
    motion = Motion("move", unit="units", hex="hex", step=True)   # the game's: held weapons go along (8.4)
    units: list[str]
    what: str                      # enter | reverse | pivot | turret | pickup
    hex: str                       # the hex the units stand in after the step
    cost: str                      # MP of this step (exact fraction text)
    spent: str                     # MP spent so far this Movement Segment
    facing: int = -1               # the lead vehicle's facing after the step
    turret: int = -1
    terrain: str = ""              # how the cost arose (6.31)
    cover: str = ""                # the movers' cover after the step (perimeter_events.apply_cover): full | top |
                                   # rim:N; "" = a new hex leaves FULL cover and a wadi's GOOD position behind


class MoveEnded(Event, tag="TobrukMoveEnded"):
    units: list[str]
    continued: bool = False        # 6.54 continued movement declared
    pinned: bool = False           # 11.41 stopped, pinned down


class UnitExited(Event, tag="TobrukUnitExited"):
    """2.46: a unit moved off the map (one MP from a map-edge hex)."""
    motion = Motion("off")         # the game's: held weapons leave with it (8.4), gone "exited"
    unit: str
    hex: str
    vp: bool = False               # by an exit edge of the victory conditions: it scores as if destroyed


class StandingOrderSet(Event, tag="TobrukStandingOrderSet"):
    """A standing opportunity-fire order, applied automatically (6.6 by email)."""
    side: str
    unit: str                      # "" = the side's default
    mode: str                      # ask | hold | any | afv | clear (the unit follows the default again)
    range: int = 0
    duel: bool = False             # 17.3 gun duels answered
    drop: bool = False             # 15.22 personnel drop into FULL cover when fired on


class MovePaused(Event, tag="TobrukMovePaused"):
    """A move stops for the other side's fire-or-pass answer (6.6); it holds what is left."""
    side: str                      # who must answer
    units: list[str]               # the movers
    hex: str
    firers: list[str]
    remaining: list[str] = []      # the rest of the move's steps, as order words
    spent_here: str = ""
    final: bool = False            # final opportunity fire (6.65)
    came_from: str = ""            # the hex the mover entered this one from (21.21 final defensive fire)


class OpportunityPlanned(Event, tag="TobrukOpportunityPlanned"):
    """A line of an answer to a paused move that does not complete it (units asked still unnamed):
    ``firers`` will fire at the mover in ``hex`` of its path (6.6 by email; taken as the mover leaves
    that hex or ends its move there).  The line that completes the answer needs no event: the move
    goes on at once with every shot planned."""
    side: str
    firers: list[str]
    hex: str


class OpportunityPassed(Event, tag="TobrukOpportunityPassed"):
    """Eligible firers did not fire at a mover: by standing order or by answer."""
    side: str
    firers: list[str]
    target: str
    hex: str
    by: str                        # "standing order" | "answer"


class Infiltrated(Event, tag="TobrukInfiltrated"):
    """5.34 / 22.1: a personnel unit moves one hex in the Infiltration Phase."""
    motion = Motion("move", hex="hex")     # the game's: held weapons go along (8.4), melee markers (22.31)
    unit: str
    hex: str
    melee: bool = False            # it entered an enemy hex: melee marker (5.32)
    cover: str = ""                # "full": it stays under cover into the next trench or wadi hex (31.254, 31.256)


class TurnEnded(Event, tag="TobrukTurnEnded"):
    """5.41: end-of-turn markers removed (F, movement arrows but continued movers, melee, pinned)."""
    turn: int


class VictoryCounted(Event, tag="TobrukVictoryCounted"):
    """The scenario's victory points as they stand (2.45)."""
    vp: dict[str, int]
    items: list[str] = []


MINE = (FirstRolled, Passed, Acted, Faced, MoveBegan, Stepped, MoveEnded, UnitExited, StandingOrderSet, MovePaused,
        OpportunityPlanned, OpportunityPassed, Infiltrated, TurnEnded, VictoryCounted)
register(*MINE)          # the fire events register themselves (fire_events.py)
