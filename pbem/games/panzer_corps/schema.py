"""The schema of this game's [victory] and [game_data] tables in its scenario files:
every key the rules read, with its type; an unknown key is refused (pbem scenario lint)."""
from __future__ import annotations

from typing import Annotated, Literal, Union  # noqa: F401

import msgspec  # noqa: F401
from msgspec import Meta, Struct  # noqa: F401

from pbem.core.scenario import Chart, Direction, Edge, GameTable, Hex, UnitId  # noqa: F401

class AlameinVictory(GameTable):       # El Alamein 4.1, 4.2
    objective_hexes: list[Hex] = []
    alam_halfa_positions: list[Hex] = []
    axis_check_after: str = ""
    break_side: str = ""
    break_edge: Edge | Literal[""] = ""
    default_winner: str = ""


class DunkerqueVictory(GameTable):     # 4.0
    german_points_needed: int = 35


class DunkerqueData(GameTable):        # 3.0(4); map edges as printed -> pbem's grid edges
    hidden_reinforcements: list[str] = []
    map_edges: dict[Edge, Edge] = {}


class Area(Struct, forbid_unknown_fields=True):
    name: str
    hexes: list[Hex]
    units: list[str] = []


class KharkovVictory(GameTable):
    sudden_death: list[Hex] = []


class KharkovData(GameTable):          # 10.0(3): entry areas
    areas: list[Area] = []


class CompassData(GameTable):          # 3.0(3), 4.1(1), 4.3(2)
    s_units: list[UnitId] = []
    footholds: dict[Hex, int] = {}
    supply: dict[Literal["british", "italian"], list[Hex]] = {}
