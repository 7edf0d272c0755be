"""Event types: every fact in a game's log is one of these msgspec Structs.

A log line is an envelope ``{seq, prev, kind, body, at}``; ``kind`` is the
struct's tag and ``body`` its fields.  Events are facts, never requests: an
order that the rules refuse produces no event at all.
"""
from __future__ import annotations

import msgspec
from msgspec import Struct

ENGINE_VERSION = "0.1.0"


class Event(Struct, tag_field="kind", forbid_unknown_fields=True, omit_defaults=True):
    """Base of all events."""


# --- game lifecycle -------------------------------------------------------

class GameCreated(Event, tag="GameCreated"):
    game_id: str
    scenario_id: str
    scenario_sha256: str
    game: str                      # rules module key, e.g. "el-alamein"
    engine_version: str
    ruleset_version: str
    players: dict[str, str]        # side -> email (may be "")
    dice_mode: str                 # "seeded" | "scripted"
    seed_commitment: str           # sha256(seed) hex; "" for scripted dice
    scripted_dice: list[int] = []  # the whole script, public by nature


class SeedRevealed(Event, tag="SeedRevealed"):
    seed: str                      # hex; checked against GameCreated.seed_commitment


class OrderGiven(Event, tag="OrderGiven"):
    """A player's order line as accepted; the events after it are its effects.

    Dice rolled while resolving it are roll k=0,1,.. of this event's seq."""
    side: str
    text: str
    by: str = ""                   # "" = the side itself; "deadline" = the host applied the documented default


class PhaseStarted(Event, tag="PhaseStarted"):
    turn: int
    phase: int                     # index into the scenario's sequence
    side: str
    name: str                      # "movement" | "combat" | ...


class GameEnded(Event, tag="GameEnded"):
    winner: str                    # side id, or "draw"
    reason: str
    rule: str


# --- movement ---------------------------------------------------------------

class UnitMoved(Event, tag="UnitMoved"):
    unit: str
    path: list[str]                # hexes entered, in order (start hex excluded)
    mp: int                        # movement points spent
    ma: int                        # movement allowance this phase
    cost: str = ""                 # exact MP spent when fractional ("2 1/3"); mp is then rounded up


class UnitBrokeOff(Event, tag="UnitBrokeOff"):
    unit: str
    hex: str                       # the map-edge hex it left from
    edge: str


# --- combat -------------------------------------------------------------------

class AttackDeclared(Event, tag="AttackDeclared"):
    target: str                    # defender hex
    attackers: list[str]
    retreat: list[str] = []        # inline answer: defender's retreat path (9.5(1))
    attacker_retreat: dict[str, list[str]] = {}   # inline answer for an AR, per unit
    advance: str = ""              # unit id, "" = ask, "-" = no advance
    advance_path: list[str] = []
    advance_more: list[list[str]] = []   # further advancing units, [unit, hex, ...] each (9.6(1) with stacking)
    ex_loss: str = ""              # inline answer: the attacker's own loss on an EX result


class DeclarationsClosed(Event, tag="DeclarationsClosed"):
    count: int


class CombatResolved(Event, tag="CombatResolved"):
    index: int                     # which declared attack
    target: str
    attackers: list[str]
    defenders: list[str]
    attack_strength: int
    defence_strength: int
    modifiers: list[str]           # human-readable reasons, each with its rule
    odds: str                      # CRT column, e.g. "2:1"
    rolls: list[int]
    result: str                    # "AE" | "AR" | "DR1" | ...


class DecisionRequired(Event, tag="DecisionRequired"):
    """The rules give ``side`` a choice and no answer was given in advance."""
    side: str
    decision: str                  # "retreat" | "advance"
    combat: int
    units: list[str] = []
    distance: int = 0
    options: list[list[str]] = []
    rule: str = ""


class UnitRetreated(Event, tag="UnitRetreated"):
    unit: str
    path: list[str]
    chosen_by: str                 # side that chose the path, or "auto" when only one existed


class UnitEliminated(Event, tag="UnitEliminated"):
    unit: str
    reason: str
    rule: str


class UnitAdvanced(Event, tag="UnitAdvanced"):
    unit: str
    path: list[str]


class AdvanceDeclined(Event, tag="AdvanceDeclined"):
    index: int


class CombatFinished(Event, tag="CombatFinished"):
    index: int


class UnitsRecovered(Event, tag="UnitsRecovered"):
    units: list[str]


# --- secrets (shared by games with hidden information) -------------------------

class SecretRecorded(Event, tag="SecretRecorded"):
    """A secret visible only to ``side``; others see ``commitment`` alone."""
    side: str
    name: str
    commitment: str                # sha256(salt + payload) hex
    salt: str = ""
    payload: str = ""


class SecretRevealed(Event, tag="SecretRevealed"):
    side: str
    name: str
    salt: str
    payload: str


# --- Paratroop: Crete (airdrops, air landings, transit tracks, counterattack chains) ---

class UnitPlaced(Event, tag="UnitPlaced"):
    """A unit set up on the map before play (Crete 1.2)."""
    unit: str
    hex: str


class AirDropped(Event, tag="AirDropped"):
    """An airborne unit's drop: the Scatter Table die, then the scatter direction die (Crete 5.0)."""
    unit: str
    target: str
    column: str                    # Scatter Table column used
    rolls: list[int]
    result: str                    # "Ac" (accurate) | "Sc" (scatter)
    direction: str = ""            # scatter direction, when scattered
    hex: str = ""                  # where it came down; "" when off the map


class UnitLanded(Event, tag="UnitLanded"):
    """A unit air-landed on an airfield (Crete 6.0)."""
    unit: str
    hex: str


class TrackEntered(Event, tag="TrackEntered"):
    """A unit left its map into a transit track (Crete 7.0)."""
    unit: str
    track: str
    path: list[str]                # hexes moved before entering the track (may be empty)
    cost: str                      # MP spent, track entry included
    ma: int
    exit: str                      # the road hex of the far map where it must come out


class CombatOpened(Event, tag="CombatOpened"):
    """One roll of a combat chain is about to be made (Crete 9.1, 10.5)."""
    index: int
    mode: str                      # "attack" | "counterattack" | "re-roll" | "scatter"
    side: str
    attackers: list[str]
    defenders: list[str]
    hexes: list[str]               # the attacked hexes
    table: str                     # "all-out" | "limited"
    air: list[str] = []
    lose: list[str] = []           # inline answer: attackers to lose on an Ee (10.3)
    advance: str = ""              # inline answer: unit to advance, "-" = none, "" = ask (10.7)
    advance_hex: str = ""


EVENT_TYPES = (
    GameCreated, SeedRevealed, OrderGiven, PhaseStarted, GameEnded,
    UnitMoved, UnitBrokeOff, AttackDeclared, DeclarationsClosed, CombatResolved,
    DecisionRequired, UnitRetreated, UnitEliminated, UnitAdvanced, AdvanceDeclined,
    CombatFinished, UnitsRecovered, SecretRecorded, SecretRevealed,
    UnitPlaced, AirDropped, UnitLanded, TrackEntered, CombatOpened,
)
AnyEvent = (GameCreated | SeedRevealed | OrderGiven | PhaseStarted | GameEnded
            | UnitMoved | UnitBrokeOff | AttackDeclared | DeclarationsClosed
            | CombatResolved | DecisionRequired | UnitRetreated | UnitEliminated | UnitAdvanced
            | AdvanceDeclined | CombatFinished | UnitsRecovered | SecretRecorded
            | SecretRevealed | UnitPlaced | AirDropped | UnitLanded | TrackEntered | CombatOpened)
# --- Red Devils (paratroop.txt, Red Devils); placements use UnitPlaced/UnitLanded above ---

class DoctrineSet(Event, tag="DoctrineSet"):
    """A side's standing answers to opportunity-fire questions (Red Devils 5.0), applied automatically."""
    side: str
    default: str                   # "ask" | "always" | "never" | "diff>=N"
    units: dict[str, str] = {}     # exceptions per firing unit, same values
    retreat: str = ""              # standing answer to a Dd result: "" = ask, "disrupt"
    bridge: str = ""               # German answer to 11.0: "" = ask, "demolish", "spare"
    cleared: str = ""              # `doctrine UNIT default`: the unit whose exception this removed ("" = none)


class OpportunityFire(Event, tag="OpportunityFire"):
    firer: str
    target: str
    hex: str                       # where the target is when fired at
    fire_strength: int
    target_strength: int
    differential: int
    column: str
    shifts: list[str]
    rolls: list[int]
    result: str
    by: str                        # "doctrine" | "answer"


class MovePaused(Event, tag="MovePaused"):
    """A move or air landing waits for the other side's answer (Red Devils 5.0, 11.0); it holds
    what the move still has to do so that the answer can resume it."""
    side: str                      # who must answer
    unit: str
    hex: str
    question: str                  # "fire" | "bridge"
    firers: list[str] = []
    remaining: list[str] = []
    costs: list[str] = []          # MP spent in all once each remaining hex is entered (exact fractions)
    spent: str = "0"
    ma: int = 0
    mode: str = ""
    swim: bool = False
    off: bool = False
    context: str = "move"          # "start" | "move" | "landing"
    then: str = "step"
    rule: str = ""


class OpportunityFirePassed(Event, tag="OpportunityFirePassed"):
    firers: list[str]
    target: str
    hex: str
    by: str                        # "doctrine" | "answer"


class UnitDisrupted(Event, tag="UnitDisrupted"):
    unit: str
    reason: str
    rule: str


class AirLandingResolved(Event, tag="AirLandingResolved"):
    unit: str
    hex: str
    rolls: list[int]
    modifiers: list[str]
    total: int
    result: str                    # "E" | "D" | "-"


class BridgeDemolition(Event, tag="BridgeDemolition"):
    hexside: str
    rolls: list[int]
    destroyed: bool


class UnitExited(Event, tag="UnitExited"):
    unit: str
    hex: str
    letter: str


class VictoryCounted(Event, tag="VictoryCounted"):
    hexes: dict[str, int]          # VP hex -> points scored
    lines: dict[str, list[str]]    # VP hex -> the British line of communications that scored it
    german_eliminated: int
    british_extra: int
    total: int
    level: str


EVENT_TYPES = EVENT_TYPES + (DoctrineSet, OpportunityFire, MovePaused, OpportunityFirePassed, UnitDisrupted,
                             AirLandingResolved, BridgeDemolition, UnitExited, VictoryCounted)
AnyEvent = (AnyEvent | DoctrineSet | OpportunityFire | MovePaused | OpportunityFirePassed | UnitDisrupted
            | AirLandingResolved | BridgeDemolition | UnitExited | VictoryCounted)
# --- Paratroop: Eben Emael (fire with line of sight, close assault, demolition) ---

class FortActivation(Event, tag="FortActivation"):
    """A Belgian activation roll for one inactive fortification (9.4)."""
    fort: str                      # the fortification's hex
    rolls: list[int]
    active: bool


class BoldMovement(Event, tag="BoldMovement"):
    """A unit moved more than one hex and gets a Bold Movement marker (4.6)."""
    unit: str


class UnitEntered(Event, tag="UnitEntered"):
    """A reinforcement enters the map: at an edge hex (10.2) or on a fortification (10.3)."""
    unit: str
    path: list[str]                # hexes entered, the first one on the map edge or the fortification
    mp: int
    ma: int
    via: str                       # "edge" | "fortification"


class FireDeclared(Event, tag="FireDeclared"):
    """A fire attack announced before any is resolved (5.2)."""
    firer: str                     # unit id, or a fortification's hex
    target: str                    # unit id
    second: bool = False           # Eben Emael 12.2: a fortification's second fire at strength 1


class FireResolved(Event, tag="FireResolved"):
    """One fire attack (5.0), or a minefield attack (11.0) when firer is "minefield"."""
    firer: str
    target: str
    hex: str                       # the target's hex
    row: str                       # Fire CRT column used
    modifiers: list[str]
    rolls: list[int]               # the fire die, then the target's die when the result is a number
    total: int                     # the modified fire die
    result: str                    # "-" or the number added to the target's die
    score: int = 0                 # target's die + result
    rating: int = 0                # the target's Effectiveness Rating
    effect: str = ""               # "no effect" | "pinned" | "already pinned" | "eliminated"


class FireLapsed(Event, tag="FireLapsed"):
    firer: str
    target: str
    reason: str


class AssaultDeclared(Event, tag="AssaultDeclared"):
    """A close assault announced before any is resolved (7.1)."""
    target: str                    # the defender's hex
    attackers: list[str]
    lose: str = ""                 # inline answer: which attacker goes on an Ae result
    advance: str = ""              # inline answer: "" = ask, "-" = no advance, else the unit


class AssaultResolved(Event, tag="AssaultResolved"):
    index: int
    target: str
    defender: str
    attackers: list[str]
    differential: int
    modifiers: list[str]
    rolls: list[int]
    total: int
    result: str                    # "De" | "Ae" | "-"


class DemolitionDeclared(Event, tag="DemolitionDeclared"):
    """A demolition attempt announced before any is resolved (8.2)."""
    fort: str
    unit: str
    charge: bool = False           # the unit's one 110 lb charge (8.1)


class DemolitionResolved(Event, tag="DemolitionResolved"):
    fort: str
    unit: str
    rating: int
    modifiers: list[str]
    rolls: list[int]
    total: int
    destroyed: bool
    wasted: bool = False           # the fortification was already destroyed (8.2)


class UnitsReorganized(Event, tag="UnitsReorganized"):
    """Reorganization: pinned units flipped back, Bold Movement markers removed (3.0 steps 6, 11)."""
    side: str
    unpinned: list[str]
    unmarked: list[str]


EVENT_TYPES = EVENT_TYPES + (FortActivation, BoldMovement, UnitEntered, FireDeclared, FireResolved, FireLapsed,
                             AssaultDeclared, AssaultResolved, DemolitionDeclared, DemolitionResolved,
                             UnitsReorganized)
AnyEvent = (AnyEvent | FortActivation | BoldMovement | UnitEntered | FireDeclared | FireResolved | FireLapsed
            | AssaultDeclared | AssaultResolved | DemolitionDeclared | DemolitionResolved | UnitsReorganized)
# --- set-up, reinforcements, victory points (Panzer Corps sister games) -----------

class HiddenDraw(Event, tag="HiddenDraw"):
    """A draw nobody may see (Dunkerque 3.0(4), 10.0(2)): the referee's copy
    holds the rolls and the units in slot order; every side's copy only the
    turn of each slot.  Each slot's unit is also sealed in a SecretRecorded
    (side "referee") and unveiled by SecretRevealed when it enters."""
    name: str
    slots: list[int]               # the turn of each slot, public
    rolls: list[int] = []          # referee only
    units: list[str] = []          # referee only: the unit in each slot


class UnitSetUp(Event, tag="UnitSetUp"):
    """A unit its owner put on the map during set-up (Khar'kov 3.0(4), Operation Compass 3.0(3), 3.2)."""
    unit: str
    hex: str
    rule: str


class ReinforcementEntered(Event, tag="ReinforcementEntered"):
    unit: str
    hex: str
    mp: int = 0                    # movement points already spent by entering
    pinned: bool = False           # placed in an enemy ZOC: may not move this turn
    rule: str = ""


class ReinforcementDelayed(Event, tag="ReinforcementDelayed"):
    units: list[str] = []          # empty for face-down units, whose identity stays hidden
    count: int = 0
    forced: bool = False           # no legal entry hex (Khar'kov 10.0(4)) rather than by choice
    rule: str = ""


class BombardmentRolled(Event, tag="BombardmentRolled"):
    rolls: list[int]
    count: int                     # how many units the die lets the bombarding side disrupt
    rule: str = ""


class UnitsDisrupted(Event, tag="UnitsDisrupted"):
    units: list[str]
    reason: str
    rule: str


class PointsScored(Event, tag="PointsScored"):
    side: str
    points: int                    # may be negative
    reason: str
    rule: str
    mark: str = ""                 # bookkeeping key (a city charged, a turn's railroad cut)


class HexControlled(Event, tag="HexControlled"):
    hex: str
    side: str
    rule: str
    marker: str = ""               # Khar'kov 4.2: "Charge & Control" or "Charged"


class ConnectingLine(Event, tag="ConnectingLine"):
    """The result of tracing one connecting line at the end of a game."""
    subject: str                   # a unit id or a hex
    start: str
    traced: bool
    to: str = ""                   # where the line ends ("" if none)
    path: list[str] = []
    note: str = ""
    rule: str = ""


EVENT_TYPES = EVENT_TYPES + (HiddenDraw, UnitSetUp, ReinforcementEntered, ReinforcementDelayed, BombardmentRolled,
                             UnitsDisrupted, PointsScored, HexControlled, ConnectingLine)
AnyEvent = (AnyEvent | HiddenDraw | UnitSetUp | ReinforcementEntered | ReinforcementDelayed | BombardmentRolled
            | UnitsDisrupted | PointsScored | HexControlled | ConnectingLine)
# --- standing orders: a decision answered in advance (Crete 10.5 Ca answers) ---------

class StandingOrderSet(Event, tag="StandingOrderSet"):
    """A side's standing answer to a question the rules may put to it later (Crete 10.5: how its
    force answers a Ca), applied automatically when legal; otherwise the game still asks."""
    side: str
    topic: str                     # "ca" (the original defender's answer) | "re-roll" (the original attacker's)
    answer: str                    # as written: "retreat" | "counterattack all-out" | "limited" | "ask" | "default"
    scope: str = ""                # "" = every unit of the side; a unit id or a hex: an exception for it


class StandingOrderApplied(Event, tag="StandingOrderApplied"):
    """A decision answered by standing order(s) instead of by the player (reported, never silent)."""
    side: str
    orders: list[str]              # the standing orders that gave the answer, as written ("doctrine ca retreat")
    answer: str                    # the answer given, as the order the player would have written
    units: list[str] = []          # the force that had to answer
    combat: int = 0
    rule: str = ""


EVENT_TYPES = EVENT_TYPES + (StandingOrderSet, StandingOrderApplied)
AnyEvent = AnyEvent | StandingOrderSet | StandingOrderApplied
BY_KIND: dict[str, type[Event]] = {t.__struct_config__.tag: t for t in EVENT_TYPES}

_body_decoders = {k: msgspec.json.Decoder(t) for k, t in BY_KIND.items()}
_encoder = msgspec.json.Encoder()


def kind_of(event: Event) -> str:
    return event.__struct_config__.tag


def body_of(event: Event) -> dict:
    """The event's fields as a plain dict (the envelope body), tag excluded."""
    d = msgspec.to_builtins(event)
    d.pop("kind", None)
    return d


def decode_body(kind: str, body: bytes | dict) -> Event:
    """Rebuild an event from its envelope kind and body."""
    try:
        t = BY_KIND[kind]
    except KeyError:
        raise ValueError(f"unknown event kind {kind!r}") from None
    if isinstance(body, (bytes, bytearray, memoryview, msgspec.Raw)):
        # A decoder for one concrete tagged type accepts a body without the tag.
        return _body_decoders[kind].decode(body)
    return msgspec.convert({"kind": kind, **body}, t)
