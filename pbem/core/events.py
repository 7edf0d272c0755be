"""Event types: every fact in a game's log is one of these msgspec Structs.

A log line is an envelope ``{seq, prev, kind, body, at}``; ``kind`` is the
struct's tag and ``body`` its fields.  Events are facts, never requests: an
order that the rules refuse produces no event at all.
"""
from __future__ import annotations

from typing import Callable, ClassVar, NamedTuple

import msgspec
from msgspec import Struct

ENGINE_VERSION = "0.1.0"


DICE_FIELD = "rolls"
"""The one place an event keeps its dice: every die the rules rolled for it, in the order
rolled, as ``rolls: list[int]``.  Other fields may repeat a die for the words (a ``roll``
property, a table's roll inside a nested struct), but only this list counts: the
scripted-dice position (reduce.py), verify's recorded-dice replay and audits read it.
tests/test_kernel.py checks every game's events against it."""


def dice_of(ev: "Event") -> list[int]:
    """The dice ``ev`` recorded (DICE_FIELD); [] for an event that rolled none."""
    return list(getattr(ev, DICE_FIELD, None) or [])


class Motion(NamedTuple):
    """How an event moves units on the board, declared on its class (``Event.motion``).

    The fields name the event's own fields.  The map draws the moves of every game from
    it (``report/render.py``: ``moves_since``); with ``core`` set, the core reducer gives
    the event its effect too (``reduce.py``: ``board_effect``), and the game's reducer
    adds only what its rules add."""
    kind: str = "move"             # "move" | "retreat" | "advance": drawn so; "place": set down, not drawn;
                                   # "off": off the map; "eliminated": off the map, eliminated
    unit: str = "unit"             # the field naming the unit, or a list of units (a stack, its top unit first)
    path: str = ""                 # the field of the hexes entered, in order, the start excluded
    hex: str = ""                  # or the field of the one hex they stand in after ("" in it: off the map)
    core: bool = False             # the core reducer moves them (else the game's reducer does)
    step: bool = False             # one step of a longer move: the map joins a unit's steps into one trail


class Event(Struct, tag_field="kind", forbid_unknown_fields=True, omit_defaults=True, frozen=True):
    """Base of all events.  An event that rolled keeps its dice in ``rolls`` (DICE_FIELD).

    A board event declares ``motion`` (how it moves units, ``Motion``) and an attack
    ``strike``: the field of the hex, or list of hexes, it attacks (the map outlines them)."""
    motion: ClassVar[Motion | None] = None
    strike: ClassVar[str] = ""


def moved_units(ev: Event) -> list[str]:
    """The units ``ev`` moves (its declared ``motion``), [] for an event that moves none."""
    m = ev.motion
    if m is None:
        return []
    u = getattr(ev, m.unit, None)
    if isinstance(u, str):
        return [u] if u else []
    return [x for x in (u or []) if x]


def moved_to(ev: Event) -> list[str] | None:
    """The hexes ``ev`` moves its units through, in order, the start excluded: its path,
    or its one hex; [] when they leave the map (or the path is empty: they stay);
    None for an event that moves nothing."""
    m = ev.motion
    if m is None:
        return None
    if m.kind in ("off", "eliminated"):
        return []
    if m.path:
        return [h for h in getattr(ev, m.path, None) or [] if h]
    h = getattr(ev, m.hex, "") if m.hex else ""
    return [h] if h else []


def moved_where(ev: Event) -> tuple[list[str], str | None] | None:
    """Where ``ev`` leaves the units it moves: (units, their hex, None off the map); None
    when it moves none, or leaves them where they were (an empty path)."""
    m = ev.motion
    if m is None:
        return None
    hexes = moved_to(ev)
    if hexes:
        return moved_units(ev), hexes[-1]
    if m.kind in ("off", "eliminated") or m.hex:
        return moved_units(ev), None
    return None


def struck_hexes(ev: Event) -> list[str]:
    """The hexes ``ev`` attacks (its declared ``strike`` field), [] for none."""
    if not ev.strike:
        return []
    v = getattr(ev, ev.strike, None)
    if isinstance(v, str):
        return [v] if v else []
    return [h for h in (v or []) if isinstance(h, str) and h]


# --- game lifecycle -------------------------------------------------------

class GameCreated(Event, tag="GameCreated"):
    game_id: str
    scenario_id: str
    scenario_sha256: str
    game: str                      # the scenario's game key (pbem.games.REGISTRY)
    engine_version: str
    ruleset_version: str
    players: dict[str, str]        # side -> email (may be "")
    dice_mode: str                 # "seeded" | "scripted"
    seed_commitment: str           # sha256(seed) hex; "" for scripted dice
    scripted_dice: list[int] = []  # the whole script, public by nature
    # Trust (pbem/trust, pbem/core/chain.py); every default keeps an older log's bytes:
    keys: dict[str, str] = {}      # side -> the SSH public key ("TYPE BASE64") its orders are signed with
    signatures: str = ""           # "required": every order a side gives must be signed with its key
    dice_scheme: int = 1           # 1: HMAC(seed, ...) revealed at the end; 2: per-turn hash chains (chain.py)
    dice_chain: str = ""           # scheme 2: the head of the turn chain, sha256 of turn 0's seed
    dice_turns: int = 0            # scheme 2: the last turn the chains cover
    dice_sides: dict[str, str] = {}    # scheme 2: each owner's secret-roll chain head (the sides and "referee")
    entropy: str = ""              # scheme 2: "exchange" when the players contribute to the dice first


class SeedRevealed(Event, tag="SeedRevealed"):
    seed: str                      # hex; checked against GameCreated.seed_commitment


class DeadlinesChanged(Event, tag="DeadlinesChanged"):
    """The host paused or resumed the game's deadlines, or every side agreed to extend
    them (EXTEND): public, no effect on the game, written by the host (no order)."""
    action: str                    # "paused" | "resumed" | "extended"
    by: str = "host"               # "host", or "sides" (each side sent EXTEND)
    text: str = ""                 # what it was, in words ("by 2d")



class OrderGiven(Event, tag="OrderGiven"):
    """A player's order line as accepted; the events after it are its effects.

    Dice rolled while resolving it are roll k=0,1,.. of this event's seq."""
    side: str
    text: str
    by: str = ""                   # "" = the side itself; "deadline" = the host applied the documented default
    signed: str = ""               # the exact text the player signed (on the first order of a signed batch)
    signature: str = ""            # its SSH signature (armored, namespace "pbem")
    signed_in: int = 0             # a later order of a signed batch: seq of the OrderGiven holding the signature


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
    motion = Motion("move", path="path", core=True)
    unit: str
    path: list[str]                # hexes entered, in order (start hex excluded)
    mp: int                        # movement points spent
    ma: int                        # movement allowance this phase
    cost: str = ""                 # exact MP spent when fractional ("2 1/3"); mp is then rounded up


# --- combat -------------------------------------------------------------------

class AttackDeclared(Event, tag="AttackDeclared"):
    strike = "target"
    target: str                    # defender hex
    attackers: list[str]
    retreat: list[str] = []        # inline answer: the defender's retreat path
    attacker_retreat: dict[str, list[str]] = {}   # inline answer for an AR, per unit
    advance: str = ""              # unit id, "" = ask, "-" = no advance
    advance_path: list[str] = []
    advance_more: list[list[str]] = []   # further advancing units, [unit, hex, ...] each (when several may advance)
    ex_loss: str = ""              # inline answer: the attacker's own loss on an EX result


class DeclarationsClosed(Event, tag="DeclarationsClosed"):
    count: int


class CombatResolved(Event, tag="CombatResolved"):
    strike = "target"
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
    motion = Motion("retreat", path="path", core=True)
    unit: str
    path: list[str]
    chosen_by: str                 # side that chose the path, or "auto" when only one existed


class UnitEliminated(Event, tag="UnitEliminated"):
    motion = Motion("eliminated", core=True)
    unit: str
    reason: str
    rule: str


class UnitAdvanced(Event, tag="UnitAdvanced"):
    motion = Motion("advance", path="path", core=True)
    unit: str
    path: list[str]


class AdvanceDeclined(Event, tag="AdvanceDeclined"):
    index: int


class CombatFinished(Event, tag="CombatFinished"):
    index: int


class UnitsRecovered(Event, tag="UnitsRecovered"):
    units: list[str]


# --- secrets (every game may seal notes) ----------------------------------------

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


# --- trust: keys, the dice chains' reveals, the players' contributions (no order causes these) ----

class KeyRegistered(Event, tag="KeyRegistered"):
    """``side``'s orders are signed with ``key`` from now on (registered and confirmed by mail)."""
    side: str
    key: str                       # "TYPE BASE64" (pbem.trust.sshsig.PublicKey.line)


class SideSeed(Struct, forbid_unknown_fields=True, omit_defaults=True):
    owner: str                     # a side, or "referee"
    turn: int
    seed: str                      # hex: that owner's secret-roll chain at that turn


class TurnDiceRevealed(Event, tag="TurnDiceRevealed"):
    """Dice scheme 2: the kernel ends turn ``turn`` by revealing its seed (and the
    secret-roll seeds whose secrets are all open); sha256 of ``seed`` is the turn before's."""
    turn: int
    seed: str
    secret: list[SideSeed] = []


class EntropyCommitted(Event, tag="EntropyCommitted"):
    """A side's commitment to its contribution to the dice: sha256 of 32 random bytes."""
    side: str
    commitment: str


class EntropyRevealed(Event, tag="EntropyRevealed"):
    side: str
    value: str                     # hex; sha256 of it is the side's commitment


class EntropyStage(Event, tag="EntropyStage"):
    """The exchange moves on: "reveal" (every commitment is in, or the deadline passed)
    or "closed" (the dice are fixed: ``digest`` of the revealed contributions)."""
    stage: str
    digest: str = ""


# --- press: players' messages to each other --------------------------------------

class PressSent(Event, tag="PressSent"):
    """A message from ``side`` to the other sides: public, no effect on the game."""
    side: str
    text: str


# --- the registry: core events here, each game's own from its package -----------

BY_KIND: dict[str, type[Event]] = {}
# Decoders are built on first use (a command that reads no log line builds none).
_body_decoders: dict[str, msgspec.json.Decoder] = {}
_line_decoder: tuple[int, msgspec.json.Decoder] | None = None


def register(*types: type[Event]) -> None:
    """Make event types known to the log (a game's events module calls this once).

    A tag names one type for good: logs store only the tag, so two types may
    never share one."""
    for t in types:
        tag = t.__struct_config__.tag
        if BY_KIND.get(tag, t) is not t:
            raise ValueError(f"event kind {tag!r} is already {BY_KIND[tag].__module__}.{BY_KIND[tag].__name__}")
        BY_KIND[tag] = t


register(GameCreated, SeedRevealed, OrderGiven, PhaseStarted, GameEnded, UnitMoved, AttackDeclared,
         DeclarationsClosed, CombatResolved, DecisionRequired, UnitRetreated, UnitEliminated, UnitAdvanced,
         AdvanceDeclined, CombatFinished, UnitsRecovered, SecretRecorded, SecretRevealed, PressSent, KeyRegistered,
         TurnDiceRevealed, EntropyCommitted, EntropyRevealed, EntropyStage, DeadlinesChanged)

# Events no order causes (the host appends them on its own), and events the kernel
# appends after an order's own effects: verify and explain cut the log at the first
# and leave the second out of what an order is re-run against.
STANDALONE: tuple[type[Event], ...] = (SeedRevealed, KeyRegistered, DeadlinesChanged)
KERNEL_AFTER: tuple[type[Event], ...] = (TurnDiceRevealed,)


# Games register their events when imported.  The game registry (pbem.games, above the
# core: the core imports nothing above it, tests/test_layers.py) sets this to the import
# of every game, so that a kind not registered yet loads them all before it is refused.
load_games: Callable[[], None] | None = None


def _event_type(kind: str) -> type[Event]:
    t = BY_KIND.get(kind)
    if t is None:
        if load_games is None:
            raise RuntimeError("the game registry (pbem.games) is not loaded: no game's events can be decoded")
        load_games()
        t = BY_KIND.get(kind)
    if t is None:
        raise ValueError(f"unknown event kind {kind!r}")
    return t


def kind_of(event: Event) -> str:
    return event.__struct_config__.tag


def body_of(event: Event) -> dict:
    """The event's fields as a plain dict (the envelope body), tag excluded."""
    d = msgspec.to_builtins(event)
    d.pop("kind", None)
    return d


def body_decoder(kind: str) -> msgspec.json.Decoder:
    """The JSON decoder of one kind's body (built on first use); ValueError for an unknown kind.

    A decoder for one concrete tagged type accepts a body without the tag."""
    d = _body_decoders.get(kind)
    if d is None:
        d = _body_decoders[kind] = msgspec.json.Decoder(_event_type(kind))
    return d


def line_decoder() -> msgspec.json.Decoder:
    """A decoder of a whole log line in one pass, for the kinds registered so far.

    It gives a Struct with ``seq``, ``prev``, ``body`` (the typed event) and
    ``at``; the envelope's ``kind`` picks the body's type (a tagged union of one
    envelope type per kind).  It decodes exactly what ``decode_body`` after an
    envelope decoder with a raw body decodes; a line it refuses (an unknown
    kind, a bad body) is for that slower path to explain.  Rebuilt when games
    register more kinds."""
    global _line_decoder
    if _line_decoder is None or _line_decoder[0] != len(BY_KIND):
        from typing import Union
        # gc=False: an envelope refers to its event and nothing refers back (no cycle), so the
        # collector need not track the one envelope a line that replay makes and drops.
        envelopes = tuple(msgspec.defstruct(f"Line{kind}", [("seq", int), ("prev", str), ("body", t), ("at", str)],
                                            tag_field="kind", tag=kind, gc=False) for kind, t in BY_KIND.items())
        _line_decoder = (len(BY_KIND), msgspec.json.Decoder(Union[envelopes]))
    return _line_decoder[1]


def decode_body(kind: str, body: bytes | dict) -> Event:
    """Rebuild an event from its envelope kind and body."""
    if isinstance(body, (bytes, bytearray, memoryview, msgspec.Raw)):
        return body_decoder(kind).decode(body)
    return msgspec.convert({"kind": kind, **body}, _event_type(kind))
