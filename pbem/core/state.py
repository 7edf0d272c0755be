"""Game state: what the reducer builds from the log.  Plain msgspec Structs,
so a state encodes to canonical bytes (replay determinism is checked on them)."""
from __future__ import annotations

import msgspec
from msgspec import Struct


class UnitState(Struct, omit_defaults=True):
    id: str
    side: str
    hex: str | None                # None while off the map
    strength: int
    ma: int
    disrupted: bool = False
    eliminated: bool = False
    gone: str = ""                 # "broke-off" when the unit left the map for good
    moved: bool = False            # moved this phase
    attacked: bool = False         # attacked this combat phase
    defended: bool = False         # was attacked this combat phase
    waiting: str = ""              # off the map until: "set-up", "turn 3", "face-down" (shown as status)
    entered_turn: int = 0          # turn it came on as a reinforcement
    pinned_turn: int = 0           # entered in an enemy ZOC: may not move in this turn's movement phase
    marks: list[str] = []          # game markers shown in reports ("pinned", "bold", "inactive", ...)

    def status(self) -> list[str]:
        s = list(self.marks)
        if self.eliminated:
            s.append("eliminated")
        if self.gone:
            s.append(self.gone)
        if self.disrupted:
            s.append("disrupted")
        if self.moved:
            s.append("moved")
        if self.attacked:
            s.append("attacked")
        if self.waiting and self.hex is None and not self.eliminated:
            s.append(self.waiting)
        return s


class Attack(Struct, omit_defaults=True):
    """A declared attack and how far its resolution has got."""
    target: str
    attackers: list[str]
    retreat: list[str] = []
    attacker_retreat: dict[str, list[str]] = {}
    advance: str = ""
    advance_path: list[str] = []
    advance_more: list[list[str]] = []
    ex_loss: str = ""
    result: str = ""
    defenders: list[str] = []
    stage: str = "declared"       # declared | retreat | attacker-retreat | ex-attacker | ex-defender | advance | done
    to_retreat: list[str] = []     # units still owing a retreat
    distance: int = 0


class Decision(Struct, omit_defaults=True):
    """Input the game waits for (design.md, Decisions and secrets)."""
    side: str
    kind: str                      # "retreat" | "advance" | "ex-loss" | "stack-loss" | "set-up" | ...
    combat: int                    # index of the attack, -1 outside combat
    units: list[str] = []
    distance: int = 0              # retreat: hexes; stack-loss / bombardment / reinforcement: how many
    options: list[list[str]] = []  # legal paths (retreat) or hexes (advance)
    rule: str = ""


class Result(Struct):
    winner: str
    reason: str
    rule: str


class ChainState(Struct, omit_defaults=True):
    """Dice scheme 2 (pbem/core/chain.py): the chains' heads and what is revealed of
    them, and the players' contributions.  None in a game of scheme 1."""
    head: str                      # sha256 of turn 0's seed (GameCreated.dice_chain)
    turns: int
    sides: dict[str, str]          # owner -> its secret-roll chain's head
    entropy: str = ""              # the exchange's open stage: "commit" | "reveal"; "" = none or closed
    digest: str = ""               # C, once the dice are fixed
    commits: dict[str, str] = {}   # side -> commitment ("" = no contribution)
    values: dict[str, str] = {}    # side -> revealed value ("" = withdrawn)
    revealed: int = -1             # the last turn whose seed is revealed
    turn_seed: str = ""            # that seed
    secret_turn: dict[str, int] = {}   # owner -> the last turn of its chain revealed
    secret_seed: dict[str, str] = {}
    sealed_turn: dict[str, int] = {}   # "side:name" -> the turn a still sealed secret was sealed in


class GameState(Struct, omit_defaults=True):
    game_id: str
    scenario_id: str
    game: str
    turn: int = 0
    phase: int = -1
    units: dict[str, UnitState] = {}
    attacks: list[Attack] = []
    declarations_closed: bool = False
    current: int = 0               # index of the attack being resolved
    decision: Decision | None = None
    result: Result | None = None
    players: dict[str, str] = {}
    dice_mode: str = "seeded"
    seed_commitment: str = ""
    seed: str = ""                 # set once SeedRevealed is in the log
    scripted_pos: int = 0
    seq: int = -1
    score: dict[str, int] = {}
    secrets: dict[str, str] = {}   # "side:name" -> commitment, for secrets not yet unveiled
    control: dict[str, str] = {}   # hex -> side controlling it (cities, footholds)
    keys: dict[str, str] = {}      # side -> the SSH key its orders are signed with (GameCreated, KeyRegistered)
    chain: ChainState | None = None    # dice scheme 2 only


# A game keeps its own state in a subclass of GameState (Ruleset.state_type) with
# typed fields; everything below works on the instance's own type.  STATE_FORMAT
# changes whenever a state's layout does, so a state cache of another layout is
# never decoded as this one (a missing field would silently take its default).
STATE_FORMAT = "2"

_enc = msgspec.msgpack.Encoder()
_decoders: dict[type, msgspec.msgpack.Decoder] = {}
_json = msgspec.json.Encoder(order="deterministic")


def _decoder(t: type[GameState]) -> msgspec.msgpack.Decoder:
    d = _decoders.get(t)
    if d is None:
        d = _decoders[t] = msgspec.msgpack.Decoder(t)
    return d


def copy_state(s: GameState) -> GameState:
    return _decoder(type(s)).decode(_enc.encode(s))


def state_bytes(s: GameState) -> bytes:
    """Canonical bytes of a state: equal states give equal bytes."""
    return _json.encode(s)


def encode_state(s: GameState) -> bytes:
    return _enc.encode(s)


def decode_state(b: bytes, t: type[GameState] = GameState) -> GameState:
    return _decoder(t).decode(b)


def layout(t: type[GameState]) -> str:
    """Names a state layout: the type and STATE_FORMAT (for caches)."""
    return f"{t.__module__}.{t.__qualname__}/{STATE_FORMAT}"
