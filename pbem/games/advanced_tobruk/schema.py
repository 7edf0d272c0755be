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


class Gun(Struct, forbid_unknown_fields=True):
    """One HPT weapon of a vehicle's ``guns`` (13.1, 13.91: the first is the main armament),
    as the fire package reads it; lint.py checks every ``types.*.guns`` entry against it."""
    name: str
    rating: str                    # 13.22 the gun rating column (A, B, ...)
    size: int                      # calibre in mm (13.12, 16.11)
    mount: str                     # turret | hull | sponson | coax | aa | bow (13.613, 16.444)
    pen: str = ""                  # the penetration table row (17.1)
    rof: int = 1                   # 13.8
    he: int = 0                    # HE firepower, 0 = none (17.72)
    ap: bool = True                # fires AP
    alt: list[str] = []            # 17.24 alternate ammunition: APCR, HEAT
    bot: bool = True               # may double ROF on a BOT (13.46)
    semi: bool = False             # semi-automatic (16.2)
    smoke: bool = False            # 19: fires smoke
    max: int = 0                   # the longest range, 0 = the table's


class TobrukVictory(GameTable):
    destroyed: dict[str, int] = {}          # VP per unit class destroyed (2.45); captured double (11.86)
    exit_edge: dict[str, list[str]] = {}    # side -> map edges it exits by (2.46)
    hexes: list[Objective] = []
    tie: str = "draw"                       # the winner on equal points ("draw" or a side)
    notes: str = ""


class TobrukData(GameTable):
    types: dict[str, dict] = {}             # counters and AFV cards (checked by lint.py)
    units: dict[str, dict] = {}             # per-unit set-up: facing, turret, holder, ammo, full, rim
    friendly_edge: dict[str, list[str]] = {}   # 6.1
    tables: dict[str, dict] = {}            # the fire package's tables (fire_ap_tables.py reads them)
    # --- scenario special rules for side notes, artillery and limited intelligence (issue 14) ---
    artillery: dict[str, dict] = {}         # off-board battery id -> its SSR (18.11; artillery.py reads it)
    registrations: dict[str, int] = {}      # battery / mortar / on-board weapon id -> registrations it gets (18.52, 18.54, 19.6)
    limited_intelligence: bool = False      # 32 in force: FOW faces, spotting, hidden set-up
    conditions: str = ""                    # 32.253 the Spotting Ranges Table row ("" = optimal)
    hidden: dict[str, list[str]] = {}       # side -> units that may set up hidden (32.21, SSR)
    dummies: dict[str, dict] = {}           # side -> {counters = [...], count = N}: N of them may be noted dummies (32.24)
    setup_area: dict[str, list[str]] = {}   # side -> hexes its hidden units and minefields may set up in (2.48)
    mines: dict[str, dict] = {}             # side -> {factors, hidden (how many), dummies (how many), area} (31.14)
    command_control: list[str] = []         # sides using armour command control (24.01)
    elite: dict[str, int] = {}              # side -> elite tank commanders it may record (24.07)
    apcr: dict[str, int] = {}               # 17.23 the Alternate Ammunition table's modifier per side (SSR)
    # --- the perimeter's rules (issue 25): off unless the card sets them ---
    hull_defilade: bool = False             # 31.35c, 33.35-33.8 terrain-created hull defilade (defilade.py)
    continued_fire: bool = False            # 15.93 Continued Fire markers (continued_fire.py)
    notes: str = ""
