"""The schema of this game's [victory] and [game_data] tables in its scenario files:
every key the rules read, with its type; an unknown key is refused (pbem scenario lint)."""
from __future__ import annotations

from typing import Literal

from msgspec import Struct

from pbem.core.scenario import Edge, GameTable, Hex, UnitId


class AlameinVictory(GameTable):       # El Alamein 4.1, 4.2
    objective_hexes: list[Hex] = []
    alam_halfa_positions: list[Hex] = []
    axis_check_after: str = ""
    break_side: str = ""
    break_edge: Edge | Literal[""] = ""
    default_winner: str = ""


class DunkerqueVictory(GameTable):     # 4.0, 4.2
    german_points_needed: int = 0      # 4.0: the German points that win
    points_per_allied_cs: int = 0      # 4.0(1): per Combat Strength of an eliminated Allied unit
    points_per_german_cs: int = 0      # 4.0(2): per Combat Strength of an eliminated German unit
    ports: list[str] = []              # 4.2(1): the evacuation ports, by the name of their map.places
    port_capacity: int = 0             # 4.2(2): Combat Strength each port may evacuate


class DunkerqueData(GameTable):        # 3.0(4); map edges as printed -> pbem's grid edges
    hidden_reinforcements: list[str] = []
    hidden_slots: list[int] = []       # 3.0(4): the turn of each face-down slot, in slot order
    map_edges: dict[Edge, Edge] = {}


class Area(Struct, forbid_unknown_fields=True):
    name: str
    hexes: list[Hex]
    units: list[str] = []


class KharkovVictory(GameTable):       # 4.x
    sudden_death: list[Hex] = []       # 4.5: a Soviet-controlled one ends the game
    city_vp: int = 0                   # 4.1(1): per city hex controlled at the end
    charge_vp: int = 0                 # 4.2(1): the Soviet first charge into a city hex
    elimination_vp: int = 0            # 4.3: per eliminated enemy unit
    tank_elimination_vp: int = 0       # 4.3: per German tank or mechanized unit, for the Soviets
    railroad_vp: dict[str, int] = {}   # 4.4: map feature -> the VP of a turn's cut
    tie_winner: str = ""               # 4.0: a side id, or "draw"


class KharkovData(GameTable):          # 10.0(3): entry areas
    areas: list[Area] = []


class CompassVictory(GameTable):       # 4.x
    british_losses_per_vp: int = 0     # 4.2: the Italians score 1 VP per this many British units lost
    tie_winner: str = ""               # 4.0: a side id, or "draw"


class CompassData(GameTable):          # 3.0(3), 3.1, 4.1(1), 4.3(2)
    s_units: list[UnitId] = []
    footholds: dict[Hex, int] = {}
    supply: dict[Literal["british", "italian"], list[Hex]] = {}
    bombardment: list[int] = []        # 3.1(1): Italian units disrupted for a die roll of 1, 2, ... 6
    bombardment_reach: int = 0         # 3.1(2): hexes from the coast a target may be
