"""The schema of this game's [victory] and [game_data] tables in its scenario files:
every key the rules read, with its type; an unknown key is refused (pbem scenario lint)."""
from __future__ import annotations

from typing import Literal

from msgspec import Struct

from pbem.core.scenario import Chart, GameTable, Hex


class Fort(Struct, forbid_unknown_fields=True):
    arrows: list[str] = []         # 9.3 field of fire
    observation: bool = False


class Reinforcement(Struct, forbid_unknown_fields=True):
    turn: int
    via: str
    units: list[str] = []


class EbenVictory(GameTable):
    required_forts: list[Hex] = []


class EbenData(GameTable):
    effectiveness: dict[str, int]  # nationality -> Effectiveness Rating
    demolition: dict[Literal["normal", "charge"], int]    # 8.1
    fire_rows: dict[str, list[str]]
    close_assault: Chart           # 7.0
    forts: dict[Hex, Fort]
    victory_forts: list[Hex]
    victory_rule: str = "12.1"
    never_dummy: list[Hex] = []    # 9.5
    minefields: int = 0
    second_fire: bool = False
    german_setup: str = "fixed"
    unit_range: int = 2
    optional_units: list[str] = []
    use_optional: bool = False
    reinforcements: list[Reinforcement] = []
