"""The schema of this game's [victory] and [game_data] tables in its scenario files:
every key the rules read, with its type; an unknown key is refused (pbem scenario lint)."""
from __future__ import annotations

from typing import Annotated, Union

import msgspec
from msgspec import Meta, Struct

from pbem.core.scenario import Chart, Direction, GameTable, Hex


class ScatterTable(Chart):         # Crete 5.9
    terrain: dict[str, str]        # terrain -> column


class CreteMap(Struct, forbid_unknown_fields=True):
    first_col: int
    last_col: int
    name: str = ""


class Track(Struct, forbid_unknown_fields=True):
    id: str
    a: Hex
    b: Hex


class AirUnit(Struct, forbid_unknown_fields=True):
    id: str
    strength: int
    type: str = ""


class Level(Struct, forbid_unknown_fields=True, rename={"from_": "from"}):
    from_: int
    to: int
    level: str


class CreteVictory(GameTable):         # 12.0
    airfield_points: int = 5
    suda_points: int = 10
    points_per_strength: int = 1
    levels: list[Level] = []


class CreteData(GameTable):
    maps: Annotated[dict[str, CreteMap], Meta(min_length=1)]      # 2.2
    tracks: list[Track]            # 7.0
    scatter_table: ScatterTable    # 5.9
    limited: Chart                 # 9.6
    air: list[AirUnit]             # 11.0
    airfields: list[Hex]           # 12.2
    suda: Hex                      # 12.2
    scatter_directions: list[Direction]
    stacking: int = 3
    road_cost: str = "1/3"
    track_entry_cost: int = 1
    drop_plan_secret: str = "drop-plan"
    first_turn_min_drops: int = 7
    air_per_attack: int = 3
    no_air_turns: list[int] = msgspec.field(default_factory=lambda: [1])
    airborne_type: str = "airborne"
    mountain_type: str = "mountain"
    sea_hexside: str = "sea"
    default_setup: dict[str, Hex] = {}
    default_drops: dict[str, Union[list[Hex], str]] = {}
