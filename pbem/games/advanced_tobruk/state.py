"""Advanced Tobruk's state: the core GameState with this game's typed fields
(``Ruleset.state_type``), changed only by the reducer (reducer.py and the
fire package's FIRE_REDUCERS).

Every unit keeps the core UnitState (id, side, hex, eliminated, ...) and a
``Piece`` beside it in ``TobrukState.pieces``: the piece holds the unit's
private identity (``type``, the key of its data in the scenario's
``[game_data.types]``) and its public face (``face``: what the opponent sees
of it under limited intelligence), its facing and every marker the rules put
on it.

Facings (6.52) are hex spines, numbered 0..5 clockwise from the spine
between the N and NE hexsides: 0 NNE, 1 E, 2 SSE, 3 SSW, 4 W, 5 NNW.  Facing
``k`` has the front hexsides DIRECTIONS[k] and DIRECTIONS[k+1] (facing.py).
"""
from __future__ import annotations

from msgspec import Struct, field

from pbem.core.state import GameState
from pbem.games.advanced_tobruk.arty_state import Battery, Indirect
from pbem.games.advanced_tobruk.mines_state import Minefield
from pbem.games.advanced_tobruk.notes_state import Notes


class Piece(Struct, omit_defaults=True):
    """One unit's Tobruk-specific state."""
    type: str                      # private identity: key of [game_data.types]
    face: str = ""                 # public face (32): "AFV", "vehicle", "gun", "infantry", "weapon"
    cls: str = ""                  # afv | apc | truck | squad | crew | leader | weapon (from the type)
    facing: int = -1               # vehicle / heavy weapon covered arc 0..5 (6.52, 12.12); -1 = none
    turret: int = -1               # turret covered arc when turned from the hull (12.2); -1 = straight
    # --- movement (6) -------------------------------------------------------------
    move: str = ""                 # this turn: crawl | assault | run (6.41) ; cross | assault (6.51)
    mp: str = ""                   # MP spent this Movement Segment (exact fraction text; "" = none)
    moved: bool = False            # movement arrow (6.04): moved or pivoted this turn
    moving: bool = False           # in the act of moving now (opportunity fire target, 6.63)
    continued: bool = False        # continued movement into the next turn (6.54)
    winded: int = 0                # turn it ran (6.413): may not run on the next turn
    reversed: bool = False         # used reverse movement this turn (6.523)
    path: list[str] = []           # hexes of its move this Movement Segment, start first (13.441)
    # --- fire (12-17), written by the fire package -------------------------------------
    fired: bool = False            # 'F' marker (5.121, 13.102)
    bot: str = ""                  # the target this firer has acquired (13.46)
    bot_turn: int = 0              # turn of that first hit (13.462)
    suppressed: bool = False       # 13.11, 30.02
    m_kill: bool = False           # 13.612
    f_kill: list[str] = []         # F-KILLed parts: "turret", "hull", and "main" with the main armament (13.613)
    wreck: str = ""                # K-KILL: "burning" | "wreck" (13.7); the unit is also eliminated
    bailed: bool = False           # crew bailed out (13.8)
    ammo: dict[str, int] = {}      # known APCR/HEAT rounds left per kind (17.2; secret next issue)
    # --- personnel (9-11, 15) -------------------------------------------------------------
    steps: int = 0                 # casualty steps taken (15.82): squad 1 = casualties marker,
                                   # 2 = half-squad, 3 = half-squad + marker; crew/leader 1 = reduced/wounded
    broken: bool = False           # 11.1
    surrendered: bool = False      # 11.2
    pinned: bool = False           # 11.41 pinned down this movement
    courage: bool = False          # 11.242 medal: immune to morale checks
    full: bool = False             # under an emplacement, FULL cover (15.712116)
    melee: bool = False            # frozen in a melee hex (5.33, 22.23)
    attacker: bool = False         # an ATTACKER in its melee hex (22.31)
    overrun: int = 0               # morale reduction from overruns this turn (21.12)
    overrun_by: list[str] = []     # the AFVs that overran it this turn: they count no -1 (21.12)
    # --- weapons (8) ----------------------------------------------------------------
    holder: str = ""               # weapon: the personnel unit operating / carrying it (8.4, 9.13)
    towed_by: str = ""             # heavy weapon: the vehicle towing it (7.1)
    gun_moved: bool = False        # 9.34: the gun has moved during the scenario
    # --- limited intelligence (32) and side notes; private: views.py shows them to the owner only --
    hidden_at: str = ""            # 32.22 set up hidden here (its side note): off the map until revealed
    flipped: bool = False          # 32.12 its FOW side turned over: the enemy sees its identity
    dummy: bool = False            # 32.24 a dummy counter (its side note): removed when flipped
    # --- the perimeter's terrain (31.5-31.8, 33.4-33.8): cover_moves.py, defilade.py ----------------
    rim: int = -1                  # 33.74 up in a wadi's GOOD cover position: the hexside it points to (0..5 N..NW)
    hd: str = ""                   # 33.8 a hull-defilade marker: rolled | contour | crest | pit | rim (defilade.py)


class FireOrder(Struct, omit_defaults=True, frozen=True):
    """A standing opportunity-fire order (6.6 by email): ``mode`` is
    "ask" (pause the move for an answer), "hold" (never fire),
    "any" (fire at any spotted mover in the covered arc) or "afv" (only at AFVs);
    ``range`` limits "any"/"afv" to movers within that many hexes (0 = weapon range);
    ``duel`` answers direct fire with a gun duel (17.3, resolved by the fire package)."""
    mode: str = ""                 # "" = ask (no non-empty str defaults in state: see reducer.py)
    range: int = 0
    duel: bool = False             # 17.3: return fire (a gun duel) when fired on in the Direct Fire Phase
    drop: bool = False             # 15.22: personnel drop into FULL cover when fired on (cover_moves.py)


class StandingOrders(Struct, omit_defaults=True):
    """A side's standing opportunity-fire orders: its default and per-unit exceptions (sorted by id)."""
    default: FireOrder = FireOrder()
    units: dict[str, FireOrder] = {}


class Step(Struct, omit_defaults=True):
    """Where the alternation of the current phase stands (5.03, 5.13, 5.22)."""
    segment: str = ""              # combat | movement | close-assault | end
    phase: str = ""                # indirect | direct-fire | movement | final-fire | infiltration | melee | end
    first: str = ""                # side that won the first-fire/first-move roll (5.031)
    to_act: str = ""               # side whose activation it is
    passed: list[str] = []         # sides that have finished this phase (5.131, 5.22)
    acted: list[str] = []          # units that have acted (fired / moved) this phase
    last: str = ""                 # side of the last activation (6.65: who fires first in final fire)


class Shot(Struct, omit_defaults=True):
    """One shot of an answer to a paused move: these units fire at the mover in that hex of its path."""
    firers: list[str]
    hex: str


class Pending(Struct, omit_defaults=True):
    """A move paused for the other side's fire-or-pass answer (6.6)."""
    units: list[str]               # the moving unit(s) (a platoon moves together, 6.42, 6.56)
    hex: str                       # where the mover stands now (the hex just entered)
    firers: list[str] = []         # eligible firers whose owner must answer
    remaining: list[str] = []      # the rest of the move, as move steps (hexes or pivots)
    spent_here: str = ""           # MP spent in this hex (6.64 ROF limit)
    side: str = ""                 # the side that must answer
    final: bool = False            # final opportunity fire (6.65) rather than a move
    came_from: str = ""            # the hex the mover came from (21.21)
    shots: list[Shot] = []         # the answer so far: shots planned along the path (6.6 by email)


class Answer(Struct, omit_defaults=True):
    """A paused move answered for the rest of its path (6.6 by email): the shots planned, taken as
    the mover leaves (or ends its move in) each named hex; no further pause for this move.  Not kept
    in the state: the move goes on within the order that completes the answer."""
    side: str                      # the side that answered
    units: list[str]               # the movers
    shots: list[Shot] = []


class TobrukState(GameState):
    pieces: dict[str, Piece] = {}          # unit id -> its Tobruk state
    step: Step = field(default_factory=Step)   # the alternation of the current phase
    orders: dict[str, StandingOrders] = {}  # side -> standing opportunity-fire orders
    pending: Pending | None = None         # a move waiting for a fire-or-pass answer
    melees: list[str] = []                 # melee hexes in the order they began (22.75)
    melee_attacker: dict[str, str] = {}    # melee hex -> attacking side (22.31)
    assaults: dict[str, str] = {}          # personnel unit -> vehicle it close assaults in the Melee Phase (23)
    exited: list[str] = []                 # units exited by a victory exit edge (2.46)
    vp: dict[str, int] = {}                # side -> victory points so far
    notes: dict[str, Notes] = {}           # side -> its sealed side notes as the host knows them (private)
    batteries: dict[str, Battery] = {}     # off-board battery id -> its markers and status (18)
    smoke: dict[str, int] = {}             # hex -> the side its smoke counter shows, 1 or 2 (20.36)
    indirect: Indirect = field(default_factory=Indirect)   # the Indirect Fire Phase's stage, spotters (5.111, 18.102)
    minefields: dict[str, Minefield] = {}  # hex -> minefield (31.1), the host's truth; views filter it
    cleared: list[str] = []                # map emplacements removed: "HEX:wire" (31.85), "HEX:bunker" (31.54)
    cfire: list[str] = []                  # hexes with a Continued Fire marker this turn (15.931)


def tk(st: GameState) -> TobrukState:
    """``st`` as the Tobruk state it is."""
    assert isinstance(st, TobrukState), type(st).__name__
    return st
