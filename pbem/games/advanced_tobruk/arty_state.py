"""An off-board battery's markers and status (18) and the Indirect Fire Phase's own
state (the stage its fire has reached, 5.111); artillery.py and mortar.py change them
only through arty_events.py's reducers."""
from __future__ import annotations

from msgspec import Struct


class Battery(Struct, omit_defaults=True):
    side: str = ""
    cff: str = ""                  # hex of its CFF (or FFE) marker, "" = none on the map (18.21)
    ffe: bool = False              # flipped to its FFE side this turn (18.21)
    used: int = 0                  # FFEs placed so far (18.12 limits them)
    no_fire: int = 0               # 18.222 turns of NO FIRE: added to its battery contact rolls
    kind: str = ""                 # what its marker is: concentration | barrage | rolling (18.6, 18.7, 18.73)
    hexes: list[str] = []          # the hexes its FFE covers now (the seven-hex string, 18.71)
    ends: list[str] = []           # the barrage limit markers (18.71)
    fired: int = 0                 # the turn it last placed an FFE (18.1151: it may be located that turn)
    located: bool = False          # 18.1151 located by the enemy, for the rest of the game
    cb: str = ""                   # 18.1152 the enemy battery it keeps under counter-battery fire
    cb_from: int = 0               # the turn it declared that counter-battery fire
    quiet_until: int = 0           # 18.1153 neutralized through this turn after the fire on it ended
    roll_left: int = 0             # 18.732 turns a rolling barrage still moves forward
    lift: bool = False             # 18.733 a rolling barrage due to lift: a contact roll each End of Turn


class Indirect(Struct, omit_defaults=True):
    """The Indirect Fire Phase of the current turn (5.111): how far its fire has gone."""
    turn: int = 0                  # the turn ``stage`` belongs to
    stage: int = 0                 # 0 none yet, 1 smoke, 2 off-board, 3 mortars, 4 on-board guns, 5 counter-battery
    leaders: list[str] = []        # 18.102 leaders that called a barrage this turn
    observers: list[str] = []      # 18.864, 18.93 FOs (their OP tanks) and mortar spotters that observed this turn
