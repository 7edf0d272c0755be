"""A minefield hex (31.1): the host's truth; views.py shows the enemy only what 31.x reveals."""
from __future__ import annotations

from msgspec import Struct


class Minefield(Struct, omit_defaults=True):
    side: str = ""                 # the side that laid it
    density: int = 0               # 31.14 a forcing roll must be greater (0 for a dummy)
    dummy: bool = False            # 31.19
    hidden: bool = False           # 31.15, 31.20: its counter is not on the map yet
    known: bool = False            # its density (or dummy nature) is revealed to the enemy
    lane: bool = False             # 31.174 a vehicle forced it: a lane marker
    note: str = ""                 # the side note that recorded it
