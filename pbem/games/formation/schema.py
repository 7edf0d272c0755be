"""The schema of a Formation Series scenario's [victory] and [game_data] tables:
every key the rules read, with its type; an unknown key is refused (pbem scenario lint).

``reconstructed = true`` on a row or table marks values the rulebook text does not
print (lint.py insists on it wherever the text is silent)."""
from __future__ import annotations

from typing import Literal

from msgspec import Struct, field

from pbem.core.scenario import GameTable, Hex, UnitId

SideId = Literal["axis", "allied"]
Movement = Literal["leg", "mot"]
# 3.2, 13.1.1: the unit types the counters show (machinegun and oasis count as leg
# infantry, motorcycle as motorized infantry); "static" for the white-stripe units (3.2.1)
Category = Literal["infantry", "mot-infantry", "motorcycle", "machinegun", "oasis", "recce",
                   "armoured-car", "tank", "static"]


class UnitInfo(Struct, forbid_unknown_fields=True):
    """One combat or static unit's printed ratings (3.2); the HQ's are in its formation."""
    er: int                        # Effectiveness Rating, undisrupted side (3.2 e)
    er_disrupted: int              # the lower rating printed on the disrupted side (5.6.3)
    formation: str = ""            # "" = a static unit, permanently independent (3.2.1)
    category: Category = "infantry"
    movement: Movement = "leg"     # white (leg) or red (motorized) MA hexagon (3.2 h)
    tank: int = 0                  # Tank Points (yellow box, 3.2 g)
    at: int = 0                    # Anti-Tank Points (white box)
    afv: bool = False              # AFV type (armoured cars are AFVs with AT Points, 3.2 g)
    static: bool = False
    stack_letter: Literal["", "A", "B", "C"] = ""   # 13.1.1 stacking indicator
    no_ca: bool = False            # 13.1.1: no Combined Arms bonus symbol
    reconstructed: bool = False


class Formation(Struct, forbid_unknown_fields=True):
    """A formation: its HQ counter's ratings (3.3) and its Formation Activation marker (3.4)."""
    side: SideId
    hq: UnitId
    name: str = ""
    reaction: int = 5              # Reaction Rating (3.3 e)
    command_range: int = 4         # 3.3 f
    support: int = 0               # Attack Support Points (3.3 g); the HQ unit's strength is the same
    hq_movement: Movement = "mot"  # 3.3 a
    recovery: int = 1              # Recovery Rating on the FA marker (9.1.1)
    max_level: int = 5             # maximum Activation Level (9.1.1)
    start_level: int = 5           # where the FA marker starts (set-up)
    substitute_hq: str = ""        # 9.4.4: the substitute HQ counter, if the scenario has one
    reconstructed: bool = False


class Terrain(Struct, forbid_unknown_fields=True):
    """One terrain's row of the Terrain Effects Chart (3.1.1, 5.4, 7.4.1.4 C)."""
    leg: str = "1"                 # MP to enter, as a fraction ("1", "3/2")
    mot: str = "1"
    hq: str = "1"
    zoc: bool = True               # ZOC column: may a ZOC be projected into it
    at_bonus: int = 0              # added to defending Anti-Tank Points
    tank_mod: int = 0              # added to the attacker's Tank Points against a defender here
    prohibited_leg: bool = False
    prohibited_mot: bool = False
    prohibited_hq: bool = False
    reconstructed: bool = False


class RoadRate(Struct, forbid_unknown_fields=True):
    """Road movement rate (7.3.3) of the road and of the trail (13.2.1)."""
    leg: str
    mot: str
    hq: str
    reconstructed: bool = False


class HexsideCost(Struct, forbid_unknown_fields=True):
    """Extra MP (or prohibition) for crossing a hexside feature (3.1.2)."""
    leg: str = "0"
    mot: str = "0"
    hq: str = "0"
    prohibited: bool = False
    prohibited_leg: bool = False
    prohibited_mot: bool = False
    prohibited_hq: bool = False
    column_shift: int = 0          # columns for an attack across it (negative: left)
    reconstructed: bool = False


class Strongpoint(Struct, forbid_unknown_fields=True):
    """3.1.3: a strongpoint marker at set-up."""
    side: SideId
    name: str = ""
    ec_bonus: int = 1              # 5.6.1
    at_bonus: int = 2              # 7.4.1.4 C
    reconstructed: bool = False


class ApTable(Struct, forbid_unknown_fields=True):
    """6.4.1 / 6.5.2 Action Points Table: activation level -> ten values for d10 1..10."""
    black: dict[str, list[int]]    # Formation Activation
    red: dict[str, list[int]]      # Formation Reaction (red underlined)
    reconstructed: bool = False


class InitiativeTie(Struct, forbid_unknown_fields=True):
    from_turn: int
    to_turn: int
    side: SideId


class Schwerpunkt(Struct, forbid_unknown_fields=True):
    """5.9: the formation it starts on and the turn track's ownership changes (9.2)."""
    setup: str = ""                # formation id, "" = no Schwerpunkt at set-up
    turns: dict[str, str] = {}     # turn -> "axis" | "allied" | "none" from that turn on
    reconstructed: bool = False


class Reinforcement(Struct, forbid_unknown_fields=True):
    """9.4, 14.1: units entering in a turn's Reinforcement Segment."""
    turn: int
    side: SideId
    units: list[UnitId]
    entry: list[Hex] = []          # the entry hexes; [] = any friendly supply source on the map edge
    reconstructed: bool = False


class Substitute(Struct, forbid_unknown_fields=True):
    """9.4.4, 16.1, 16.4: a substitute HQ and the move of the formation's FA marker."""
    turn: int
    formation: str
    hq: UnitId
    level_change: int
    entry: Hex | None = None       # 16.1, 16.4: where it enters as a reinforcement when the
                                   # old HQ left play (all its subordinate units eliminated)


class Stacking(Struct, forbid_unknown_fields=True):
    """13.1.3 limits (keys as board.stacking_count counts them)."""
    total: int | None = None
    leg: int | None = None
    inf: int | None = None
    other: int | None = None


class ActionCosts(Struct, forbid_unknown_fields=True):
    """7.0 Action Costs per unit/stack; 7.3.6 seizing a victory location."""
    move: int
    refit: int
    improve: int
    hasty: int
    regular: int
    prepared: int
    seize: int


class FormationData(GameTable):
    scorer: SideId                                  # 16: the side earning Victory Points
    max_initiatives_in_row: int                     # 6.1.1
    max_transfers_in_row: int                       # 6.2
    first_initiative: SideId                        # wins the first activation of turn 1
    turn1_initiative_drm: int                       # that side's extra DRM in turn 1
    initiative_ties: list[InitiativeTie]
    initiative_track: list[int]                     # 6.1: the Initiative +DRM spaces, first is +2
    schwerpunkt_drm: int                            # 5.9 "n", 7.4.1.4 D
    action_costs: ActionCosts
    stacking: dict[str, Stacking]
    supply_sources: dict[str, list[Hex]]            # 3.1.5
    friendly_edges: dict[str, str]                  # 13.2.3
    ap_table: ApTable
    formations: dict[str, Formation]
    units: dict[str, UnitInfo]
    tec: dict[str, Terrain]
    road: RoadRate
    trail: RoadRate
    hexside_cost: dict[str, HexsideCost] = {}
    crt_odds: dict[str, str] = {}                   # per terrain: the odds heading of its leftmost CRT column
    strongpoints: dict[str, Strongpoint] = {}       # keyed by hex
    schwerpunkt: Schwerpunkt = field(default_factory=Schwerpunkt)
    reinforcements: list[Reinforcement] = []
    substitutes: list[Substitute] = []
    surrender: str = ""                             # 16.1: the nationality that checks surrender
    bardia: list[Hex] = []                          # 15: supply sources lost for good once entered
    no_reinforcement: list[Hex] = []                # 14.1: hexes no reinforcement may be placed in
    ap_markers: dict[str, list[int]] = {}           # 6.4.1 optional AP markers, ten per side
    ap_markers_on: bool = False
    snafu_first: SideId = "allied"                  # 5.2: who holds the marker at the start
    notes: str = ""


class VictoryHex(Struct, forbid_unknown_fields=True):
    """13.3.1: a victory hex marker: VPs in command / out of command."""
    hex: Hex
    name: str
    in_command: int = 0
    out_of_command: int = 0
    automatic: bool = False        # 16.1: Bardia, an automatic victory


class Hold(Struct, forbid_unknown_fields=True):
    """16.3: who must hold the objective in which turn, and what it wins."""
    turn: int
    side: SideId
    hex: Hex
    command: Literal["any", "in"]
    result: str


class FormationVictory(GameTable):
    kind: Literal["points", "hold"] = "points"
    hexes: list[VictoryHex] = []
    ranges: dict[str, list[int]] = {}   # "gtN" -> game turn N's [low, high] (16, header shift fixed)
    hold: list[Hold] = []
    notes: str = ""
