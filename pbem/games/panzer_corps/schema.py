"""The schema of this game's [victory] and [game_data] tables in its scenario files:
every key the rules read, with its type; an unknown key is refused (pbem scenario lint).

Every value is the printed game's (or reconstructed in its place), so every key is
required: a file without one is refused at load instead of playing with a neutral
value.  The rules read these structs (``Family.vic`` / ``Family.data``), never the
raw tables; a value out of range (a negative VP, a port that evacuates nothing) is
refused here too."""
from __future__ import annotations

from typing import Annotated, Literal

from msgspec import Meta, Struct

from pbem.core.scenario import Edge, GameTable, Hex, UnitId

Count = Annotated[int, Meta(ge=0)]
Positive = Annotated[int, Meta(ge=1)]


class AlameinVictory(GameTable):       # El Alamein 4.1, 4.2
    objective_hexes: list[Hex]         # 4.1(1)
    alam_halfa_positions: list[Hex]    # 4.1(2)
    axis_check_after: str              # 4.1: the side whose combat phase ends with the Axis check
    break_side: str                    # 4.2: the side that may break off the map
    break_edge: Edge                   # 4.2: by this edge
    default_winner: str                # 4.2(4): the winner when no condition is met


class DunkerqueVictory(GameTable):     # 4.0, 4.2
    german_points_needed: Positive     # 4.0: the German points that win
    points_per_allied_cs: Count        # 4.0(1): per Combat Strength of an eliminated Allied unit (and
                                       # 4.2(2): of one over a port's capacity, "considered eliminated")
    points_per_german_cs: int          # 4.0(2): per Combat Strength of an eliminated German unit (minus)
    ports: list[str]                   # 4.2(1): the evacuation ports, by their map.places names
    port_capacity: Positive            # 4.2(2): Combat Strength each port may evacuate


class DunkerqueData(GameTable):        # 3.0(4); map edges as printed -> pbem's grid edges
    hidden_reinforcements: list[UnitId]
    hidden_slots: list[int]            # 3.0(4): the turn of each face-down slot, in slot order
    map_edges: dict[Edge, Edge]


class Area(Struct, forbid_unknown_fields=True):
    name: str
    hexes: list[Hex]
    units: list[str] = []


class KharkovVictory(GameTable):       # 4.x
    sudden_death: list[Hex]            # 4.5: a Soviet-controlled one ends the game
    city_vp: Count                     # 4.1(1): per city hex controlled at the end
    charge_vp: Count                   # 4.2(1): the Soviet first charge into a city hex
    elimination_vp: Count              # 4.3: per eliminated enemy unit
    tank_elimination_vp: Count         # 4.3: per German tank or mechanized unit, for the Soviets
    railroad_vp: dict[str, Count]      # 4.4: map feature -> the VP of a turn's cut
    tie_winner: str                    # 4.0: a side id, or "draw"


class KharkovData(GameTable):          # 10.0(3): entry areas
    areas: list[Area]


class CompassVictory(GameTable):       # 4.x
    british_losses_per_vp: Positive    # 4.2: the Italians score 1 VP per this many British units lost
    tie_winner: str                    # 4.0: a side id, or "draw"


class CompassData(GameTable):          # 3.0(3), 3.1, 4.1(1), 4.3(2)
    s_units: list[UnitId]
    footholds: dict[Hex, Count]
    supply: dict[Literal["british", "italian"], list[Hex]]
    bombardment: list[Count]           # 3.1(1): Italian units disrupted for a die roll of 1, 2, ... 6
    bombardment_reach: Positive        # 3.1(2): hexes from the coast a target may be
