"""Red Devils' state: the core GameState with this game's own typed fields
(``Ruleset.state_type``), changed only by the reducer (reducer.py).

Dicts whose order a later event shows (a side's per-unit doctrine exceptions,
written back into the next DoctrineSet) are kept sorted by key."""
from __future__ import annotations

from msgspec import Struct

from pbem.core.state import GameState


class Doctrine(Struct, omit_defaults=True):
    """A side's standing answers (5.0 opportunity fire, 7.6 Dd, 11.0 the bridge)."""
    default: str = "ask"                   # "ask" | "always" | "never" | "diff>=N"
    units: dict[str, str] = {}             # exceptions per firing unit, same values (sorted by unit id)
    retreat: str = ""                      # 7.6: "" = ask, "disrupt"
    bridge: str = ""                       # 11.0: "" = ask, "demolish", "spare"


class Pending(Struct, omit_defaults=True):
    """A move (or landing) paused for the non-phasing player's answer (5.0, 9.3, 11.0)."""
    unit: str
    hex: str
    question: str                          # "fire" | "bridge"
    firers: list[str] = []
    remaining: list[str] = []
    costs: list[str] = []                  # cumulative MP once each remaining hex is entered
    spent: str = "0"
    ma: int = 10
    mode: str = ""
    swim: bool = False
    off: bool = False
    context: str = "move"                  # "start" (5.1) | "move" | "landing" (9.3)
    then: str = "step"                     # where the walk resumes: "step" | "fire"


class Landing(Struct, omit_defaults=True):
    """This turn's air landing (9.0)."""
    units: list[str] = []                  # to land this turn (9.0)
    placed: list[str] = []                 # in the order placed
    resolved: list[str] = []               # Airlanding Table done (or eliminated first)
    polish: bool = False                   # 9.7: the Polish brigade lands


class RedDevilsState(GameState):
    doctrine: dict[str, Doctrine] = {}     # side -> its doctrine (5.0)
    fired: list[str] = []                  # "FIRER>TARGET" this phase (5.2)
    hit: list[str] = []                    # disrupted by opportunity fire this phase (5.3)
    pending: Pending | None = None         # the move waiting for an answer (5.0, 11.0)
    landing: Landing | None = None         # the air landing under way (9.0)
    landed: dict[str, int] = {}            # unit -> turn it air-landed (9.6)
    fire_disrupted: list[str] = []         # disrupted by fire while landing (9.3)
    dz: dict[str, str] = {}                # drop zone chosen at set-up (1.2)
    swim: bool = False                     # 4.6 used this player-turn
    ferry_turn: int = 0                    # 4.7 last game-turn the ferry carried a unit
    bridge: str = ""                       # 11.0: "" untouched, "destroyed", "intact"
    exited: dict[str, list[str]] = {}      # unit -> [turn, letter] (4.5)
    mode: dict[str, str] = {}              # 4.8 declared this phase
    polish_dz: list[str] = []              # revealed 9.7 zones
    vp: dict[str, int] = {}                # 12.0 the count at the end


def rd_of(st: GameState) -> RedDevilsState:
    """``st`` as the Red Devils state it is (for callers holding a plain GameState)."""
    assert isinstance(st, RedDevilsState), type(st).__name__
    return st
