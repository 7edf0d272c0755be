"""The schema of a Formation Series scenario's [victory] and [game_data] tables:
every key the rules read, with its type and its one default, or required; an unknown
key or a value out of range is refused (pbem scenario lint).  The rules read these
structs (board.gd, terms.victory), never the raw tables.

``reconstructed = true`` on a row or table marks values the rulebook text does not
print (lint.py insists on it wherever the text is silent)."""
from __future__ import annotations

from typing import Annotated, Literal

from msgspec import Meta, Struct, field

from pbem.core.scenario import GameTable, Hex, UnitId

SideId = Literal["axis", "allied"]
Movement = Literal["leg", "mot"]
# 3.2, 13.1.1: the unit types the counters show (machinegun and oasis count as leg
# infantry, motorcycle as motorized infantry); "static" for the white-stripe units (3.2.1)
Category = Literal["infantry", "mot-infantry", "motorcycle", "machinegun", "oasis", "recce",
                   "armoured-car", "tank", "static"]


class UnitInfo(Struct, forbid_unknown_fields=True):
    """One combat or static unit's printed ratings (3.2); the HQ's are in its formation."""
    er: Rating                     # Effectiveness Rating, undisrupted side (3.2 e)
    er_disrupted: Rating           # the lower rating printed on the disrupted side (5.6.3)
    formation: str = ""            # "" = a static unit, permanently independent (3.2.1)
    category: Category = "infantry"
    movement: Movement = "leg"     # white (leg) or red (motorized) MA hexagon (3.2 h)
    tank: Count = 0                # Tank Points (yellow box, 3.2 g)
    at: Count = 0                  # Anti-Tank Points (white box)
    afv: bool = False              # AFV type (armoured cars are AFVs with AT Points, 3.2 g)
    static: bool = False
    stack_letter: Literal["", "A", "B", "C"] = ""   # 13.1.1 stacking indicator
    no_ca: bool = False            # 13.1.1: no Combined Arms bonus symbol
    reconstructed: bool = False


Rating = Annotated[int, Meta(ge=0, le=10)]       # a d10 rating (0: never succeeds)
Count = Annotated[int, Meta(ge=0)]
Positive = Annotated[int, Meta(ge=1)]


class Formation(Struct, forbid_unknown_fields=True):
    """A formation: its HQ counter's ratings (3.3) and its Formation Activation marker (3.4),
    all printed on the counters, so all required."""
    side: SideId
    hq: UnitId
    reaction: Rating               # Reaction Rating (3.3 e)
    command_range: Count           # 3.3 f
    support: Count                 # Attack Support Points (3.3 g); the HQ unit's strength is the same
    recovery: Count                # Recovery Rating on the FA marker (9.1.1)
    max_level: Positive            # maximum Activation Level (9.1.1)
    start_level: Count             # where the FA marker starts (set-up)
    name: str = ""
    hq_movement: Movement = "mot"  # 3.3 a
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
    move: Positive
    refit: Positive
    improve: Positive
    hasty: Positive
    regular: Positive
    prepared: Positive
    seize: Positive


class FormationData(GameTable):
    scorer: SideId                                  # 16: the side earning Victory Points
    max_initiatives_in_row: Positive                # 6.1.1
    max_transfers_in_row: Count                     # 6.2
    first_initiative: SideId                        # wins the first activation of turn 1
    turn1_initiative_drm: int                       # that side's extra DRM in turn 1
    initiative_ties: list[InitiativeTie]
    initiative_track: Annotated[list[int], Meta(min_length=1)]   # 6.1: the Initiative +DRM spaces, first is +2
    schwerpunkt_drm: int                            # 5.9 "n", 7.4.1.4 D
    action_costs: ActionCosts
    stacking: dict[SideId, Stacking]                # 13.1.3 (lint: a row for each side)
    supply_sources: dict[SideId, list[Hex]]         # 3.1.5
    friendly_edges: dict[SideId, Literal["north", "south", "east", "west"]]   # 13.2.3
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
    in_command: Count = 0
    out_of_command: Count = 0
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
