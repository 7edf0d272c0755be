"""Eben Emael's state: the core GameState and, in typed fields, what its rules add.

``EbenEmaelState`` is the game's ``Ruleset.state_type``.  The attacks of a
fire or assault phase are announced before any is resolved (5.2, 7.1, 8.2):
``actions`` lists them in order, the core ``current`` is the one being
resolved and the core ``declarations_closed`` says the announcing is over.
"""
from __future__ import annotations

from msgspec import Struct

from pbem.core.scenario import Scenario
from pbem.core.state import GameState, UnitState
from pbem.games.eben_emael.board import FORT_TYPES, gd


class FireAction(Struct, tag="fire", tag_field="kind", omit_defaults=True):
    """An announced fire attack (5.2); firer is a unit id or a fortification's hex."""
    firer: str
    target: str
    second: bool = False           # 12.2: a fortification's second fire at strength 1


class AssaultAction(Struct, tag="assault", tag_field="kind", omit_defaults=True):
    """An announced close assault (7.1) and how far its resolution has got."""
    target: str                    # the defender's hex
    attackers: list[str]
    lose: str = ""                 # inline answer: which attacker goes on an Ae result (7.5)
    advance: str = ""              # inline answer: "" = ask, "-" = no advance, else the unit (7.6)
    stage: str = "declared"        # declared | eliminate | lose | advance | done
    defender: str = ""
    result: str = ""               # "De" | "Ae" | "-" (7.9)


class DemolitionAction(Struct, tag="demolish", tag_field="kind", omit_defaults=True):
    """An announced demolition attempt (8.2)."""
    fort: str
    unit: str
    charge: bool = False           # the unit's one 110 lb charge (8.1)


Action = FireAction | AssaultAction | DemolitionAction


class EbenEmaelState(GameState, omit_defaults=True):
    actions: list[Action] = []     # this phase's announced attacks, in order (5.2, 7.1, 8.2)
    fired: dict[str, int] = {}     # firer (unit id or fortification hex) -> fires announced this phase (5.4, 9.2, 12.2)
    mine_hits: dict[str, list[str]] = {}   # unit -> minefield hexes that attacked it this phase (11.1)
    placed_forts: list[str] = []   # fortifications a garrison came out of this turn (10.3)
    last_turn_placed: int = 0      # the turn placed_forts belongs to


def initial_state(sc: Scenario, game_id: str) -> EbenEmaelState:
    st = EbenEmaelState(game_id=game_id, scenario_id=sc.id, game=sc.game)
    optional = set(gd(sc).get("optional_units", []))
    use_optional = bool(gd(sc).get("use_optional", False))
    for u in sc.units:
        if u.id in optional and not use_optional:
            continue
        us = UnitState(id=u.id, side=u.side, hex=u.hex, strength=u.strength, ma=u.ma)
        if u.type in FORT_TYPES:
            us.marks = ["inactive"]                      # 9.4, 12.1, 12.2
        st.units[u.id] = us
    return st
