"""The schema of this game's [victory] and [game_data] tables in its scenario files:
every key the rules read, with its type; an unknown key is refused (pbem scenario lint)."""
from __future__ import annotations

from msgspec import Struct

from pbem.core.scenario import GameTable, Hex


class UnitInfo(Struct, forbid_unknown_fields=True):
    range: int = 1                 # 2.5
    entry: str = ""                # an entry letter or hex (10.1)
    drop_zones: list[Hex] = []     # 9.0


class RedDevilsData(GameTable):
    move_costs: dict[str, list[str]]       # 4.9: [mechanized, non-mechanized]
    road_costs: dict[str, list[str]]
    command_points: list[int]              # 8.5
    airlanding_table: list[str]            # 9.9
    units: dict[str, UnitInfo] = {}
    entry_hexes: dict[str, list[Hex]] = {}
    vp_hexes: list[Hex] = []
    vp_special: list[Hex] = []
    mechanized_types: list[str] = []
    swim_types: list[str] = []
    armour_types: list[str] = []
    anti_tank_types: list[str] = []
    static_types: list[str] = []
    polish_units: list[str] = []
    polish_turn: int = 9
    no_move_turn1: list[str] = []
    rail_bridge: list[Hex] = []
    rail_bridge_vp: list[Hex] = []
    bridge_pair: list[Hex] = []
    ferry_cost: int = 5
    ma: int = 10
