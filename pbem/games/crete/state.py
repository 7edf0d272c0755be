"""Crete's state: the core GameState and, in one typed field, what the Crete rules add.

``CreteState`` is the game's ``Ruleset.state_type``: the reducer works on its
``crete`` field in place (no encoding per event), and the engine copies,
caches and compares it as any state.
"""
from __future__ import annotations

import msgspec
from msgspec import Struct

from pbem.core.state import GameState

GERMAN, CW = "german", "commonwealth"


def other(side: str) -> str:
    return CW if side == GERMAN else GERMAN


class Fight(Struct, omit_defaults=True):
    """One attack and its chain of counterattacks (10.5)."""
    index: int
    kind: str                      # "attack" | "scatter" (5.2)
    side: str                      # side of the original attacker
    attackers: list[str]           # the original attacking force
    defenders: list[str]           # the original defending force
    hexes: list[str]               # hexes originally attacked
    air: list[str] = []
    lose: list[str] = []           # inline answers of the original attacker
    advance: str = ""
    advance_hex: str = ""
    roll_side: str = ""            # the roll last made: who rolled, with what, against whom
    rollers: list[str] = []
    targets: list[str] = []
    target_hexes: list[str] = []
    mode: str = ""
    result: str = ""
    stage: str = "open"            # open | ca | retreat | advance | done
    to_retreat: list[str] = []
    victors: list[str] = []
    vacated: list[str] = []
    auto: int = 0                  # Ca answers given by standing order in this fight (AUTO_LIMIT)


class CreteBook(Struct, omit_defaults=True):
    """What the Crete rules keep beyond the core state."""
    plan_sealed: bool = False
    plan_error: str = ""           # why the sealed plan is not a valid one (host state only)
    plan: dict[str, int] = {}      # the drop plan once unveiled (public from then on) (1.0)
    plan_open: bool = False
    t1: dict[str, int] = {}        # drops made on Game-Turn 1 per map (1.0)
    dropped: dict[str, int] = {}   # airborne unit -> turn it dropped (5.5-5.7)
    landed: dict[str, int] = {}    # mountain unit -> turn it landed (6.5)
    track: dict[str, str] = {}     # unit -> "TRACK>EXITHEX" while in a transit track (7.0)
    from_track: list[str] = []     # units that began this movement phase in a track (7.1, 7.7)
    air_used: list[str] = []       # air units used this Game-Turn (11.4)
    captured: list[str] = []       # airfields whose last ground occupant was German (6.0)
    fights: int = 0
    fight: Fight | None = None
    standing: dict[str, dict[str, str]] = {}   # "SIDE:TOPIC" -> scope ("" | unit | hex) -> standing answer (10.5)


class CreteState(GameState, omit_defaults=True):
    """The state of a Crete game (Crete.state_type)."""
    crete: CreteBook = msgspec.field(default_factory=CreteBook)


def fight_of(st: CreteState) -> Fight:
    """The fight being resolved (10.5)."""
    f = st.crete.fight
    assert f is not None
    return f
