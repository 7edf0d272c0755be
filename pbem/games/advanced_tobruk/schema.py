"""The schema of Advanced Tobruk's [victory] and [game_data] tables: every key
the rules read, typed; an unknown key is refused (pbem scenario lint).  The unit
types (AFV cards, counters) and the fire tables are tables of their own, read by
data.py and the fire package."""
from __future__ import annotations

from msgspec import Struct

from pbem.core.scenario import GameTable, Hex


class Objective(Struct, forbid_unknown_fields=True):
    hex: Hex
    vp: int
    held_by: str = ""              # who holds it when nobody (or both) stands in it


class TobrukVictory(GameTable):
    destroyed: dict[str, int] = {}          # VP per unit class destroyed (2.45); captured double (11.86)
    exit_edge: dict[str, list[str]] = {}    # side -> map edges it exits by (2.46)
    hexes: list[Objective] = []
    tie: str = "draw"                       # the winner on equal points ("draw" or a side)
    notes: str = ""


class TobrukData(GameTable):
    types: dict[str, dict] = {}             # counters and AFV cards (checked by lint.py)
    units: dict[str, dict] = {}             # per-unit set-up: facing, turret, holder, ammo, full
    friendly_edge: dict[str, list[str]] = {}   # 6.1
    tables: dict[str, dict] = {}            # the fire package's tables (fire_ap_tables.py reads them)
    notes: str = ""
