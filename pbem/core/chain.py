"""Dice scheme 2: every turn's dice checkable when the turn is over, secret rolls
kept apart, and the players' contributions mixed into every roll.

The host's secret 32-byte seed ``m`` (the seed file; ``sha256(m)`` in
GameCreated as in scheme 1) gives, with ``P = "pbem-dice-2"`` and ``G`` the
game id (HMAC is HMAC-SHA256, H is SHA-256, texts UTF-8)::

    turn chain     s_T = HMAC(m, P:turns:G);          s_{t-1} = H(s_t)
    owner chains   o_T = HMAC(m, P:secret:G:OWNER);   o_{t-1} = H(o_t)     (every side, and "referee")
    salts          HMAC(HMAC(m, P:salt:G), G:n:salt:i), hex, first 32 digits

``T`` is GameCreated's ``dice_turns``; GameCreated commits to ``H(s_0)``
(``dice_chain``) and each ``H(o_0)`` (``dice_sides``).  Roll k of the order at
seq n, made in turn t, is scheme 1's derivation (pbem/core/dice.py) keyed with

    K = HMAC(s_t, P:key:C)      a roll anyone may see
    K = HMAC(o_t, P:key:C)      a roll for OWNER's secret (Ctx.secret_roll)

where C is the digest of the players' revealed contributions (``digest``;
the digest of none when the game holds no exchange).  When turn t is over
the kernel appends TurnDiceRevealed with s_t: H of it must give the seed
revealed before (or, hashed down, the head), so the seed cannot have been
changed, and every roll of turn t can be re-derived at once.  An owner's
o_t is revealed (in the same event) only once every secret that owner
sealed in turns up to t has been opened, or when the game ends; s_t says
nothing about o_t, so no revealed turn seed lets anyone compute a secret
roll.  Salts come from the seed itself, revealed with SeedRevealed.

Contributions (GameCreated ``entropy = "exchange"``): each side orders
``entropy commit H(r)`` (r: 32 random bytes, hex) or ``entropy none``; once
every side has, each that committed orders ``entropy reveal r`` (or ``none``:
the deadline default at both stages).  Until the exchange closes no die is
rolled.  The head was committed before any contribution existed and C after
the host's seed was fixed, so neither the host nor a player chose the dice.
"""
from __future__ import annotations

import hashlib
import hmac
from typing import Callable

from pbem.core import events as E
from pbem.core.dice import DiceError, roll as _roll
from pbem.core.orders import Entropy, OrderError
from pbem.core.state import ChainState, GameState

P = "pbem-dice-2"
REFEREE = "referee"
TURN = ""                          # the owner name of the turn chain in the key tables below
SPARE_TURNS = 3                    # chain turns past the scenario's last (a game may run on a little)


def _hmac(key: bytes, msg: str) -> bytes:
    return hmac.new(key, msg.encode("utf-8"), hashlib.sha256).digest()


def walk(seed: bytes, n: int) -> bytes:
    """``seed`` hashed ``n`` times: from turn t's seed to turn t-n's."""
    for _ in range(n):
        seed = hashlib.sha256(seed).digest()
    return seed


def root(master: bytes, game_id: str, owner: str = TURN) -> bytes:
    """The last seed of a chain: the turn chain's, or ``owner``'s secret-roll chain's."""
    return _hmac(master, f"{P}:turns:{game_id}" if owner == TURN else f"{P}:secret:{game_id}:{owner}")


def owners(sides: list[str]) -> list[str]:
    return list(sides) + [REFEREE]


def genesis(master: bytes, game_id: str, sides: list[str], turns: int) -> dict:
    """GameCreated's scheme-2 fields: the chain heads H(s_0), H(o_0) and the last turn."""
    def head(owner: str) -> str:
        return walk(root(master, game_id, owner), turns + 1).hex()
    return {"dice_scheme": 2, "dice_chain": head(TURN), "dice_turns": turns,
            "dice_sides": {o: head(o) for o in owners(sides)}}


def digest(values: dict[str, str]) -> str:
    """C: the revealed contributions (side -> hex), in side order."""
    text = f"{P}:entropy" + "".join(f"\n{s}={values[s].lower()}" for s in sorted(values) if values[s])
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def roll_key(seed: bytes, c: str) -> bytes:
    return _hmac(seed, f"{P}:key:{c}")


def new_chain(created: E.GameCreated) -> ChainState | None:
    if created.dice_scheme != 2:
        return None
    open_ = created.entropy == "exchange"
    return ChainState(head=created.dice_chain, turns=created.dice_turns, sides=dict(created.dice_sides),
                      entropy="commit" if open_ else "", digest="" if open_ else digest({}))


# --- the keys: from the seed (the host), or from what the log revealed (anyone) --------------

class Keys:
    """Chain seeds by (owner, turn): derived from the host's seed when ``master_of``
    gives it, else from the seeds the log revealed (``known``: (owner, turn) -> seed,
    owner "" for the turn chain), hashed down to earlier turns; None when unknown."""

    def __init__(self, game_id: str, turns: int, master_of: Callable[[], bytes] | None = None,
                 known: dict[tuple[str, int], bytes] | None = None):
        self.game_id, self.turns, self.master_of = game_id, turns, master_of
        self.known = dict(known or {})
        self._master: bytes | None = None

    def master(self) -> bytes | None:
        if self._master is None and self.master_of is not None:
            self._master = self.master_of()
        return self._master

    def seed(self, owner: str, turn: int) -> bytes | None:
        if not 0 <= turn <= self.turns:
            raise DiceError(f"the dice chains cover turns 0 to {self.turns}; turn {turn} has no seed")
        m = self.master()
        if m is not None:
            return walk(root(m, self.game_id, owner), self.turns - turn)
        later = [t for (o, t) in self.known if o == owner and t >= turn]
        if not later:
            return None
        t = min(later)
        return walk(self.known[(owner, t)], t - turn)

    def salt_key(self) -> bytes | None:
        m = self.master()
        return None if m is None else _hmac(m, f"{P}:salt:{self.game_id}")


def revealed_keys(entries) -> dict[tuple[str, int], bytes]:
    """Every chain seed a log revealed (TurnDiceRevealed), by (owner, turn)."""
    out: dict[tuple[str, int], bytes] = {}
    for en in entries:
        ev = en.event
        if isinstance(ev, E.TurnDiceRevealed):
            try:
                out[(TURN, ev.turn)] = bytes.fromhex(ev.seed)
                for s in ev.secret:
                    out[(s.owner, s.turn)] = bytes.fromhex(s.seed)
            except ValueError:
                continue                    # a damaged seed: the reducer says so where it stands
    return out


class ChainDice:
    """Scheme 2's dice for the order at seq ``event``.  The engine binds it to the
    order's working state (``bind``): a roll reads the turn and the contributions'
    digest there.  A roll whose seed is unknown (verify before its reveal) replays
    the ``recorded`` value at its position; so does a salt without the seed."""

    def __init__(self, keys: Keys, game_id: str, event: int, recorded: list[int] | None = None,
                 salts: list[str] | None = None):
        self.keys, self.game_id, self.event = keys, game_id, event
        self.recorded, self.salts = recorded, list(salts or [])
        self.state: GameState | None = None
        self.pos = 0
        self.nsalt = 0
        self.used: list[tuple[str, int, bool]] = []      # (owner, turn, derived from a known seed)

    def bind(self, state: GameState) -> None:
        self.state = state

    def roll(self, sides: int) -> int:
        return self._roll(sides, TURN)

    def secret_roll(self, sides: int, owner: str) -> int:
        return self._roll(sides, owner)

    def _roll(self, sides: int, owner: str) -> int:
        st = self.state
        ch = st.chain
        if ch.entropy:
            raise DiceError("no die is rolled before the players' contributions to the dice are in "
                            "(entropy commit / reveal / none; the deadline default is none)")
        k = self.pos
        self.pos += 1
        seed = self.keys.seed(owner, st.turn)
        self.used.append((owner, st.turn, seed is not None))
        if seed is None:
            if self.recorded is None:
                raise DiceError("the dice seed is not available here: only the host holding it can roll")
            if k >= len(self.recorded):
                raise DiceError("the rules needed more dice than the log recorded")
            return self.recorded[k]
        return _roll(roll_key(seed, ch.digest), self.game_id, self.event, k, sides)

    def salt(self) -> str:
        key = self.keys.salt_key()
        if key is None:
            if not self.salts:
                raise DiceError("the rules needed a salt the log did not record")
            return self.salts.pop(0)
        msg = f"{self.game_id}:{self.event}:salt:{self.nsalt}"
        self.nsalt += 1
        return hmac.new(key, msg.encode("utf-8"), hashlib.sha256).hexdigest()[:32]


# --- the reveals the kernel appends after an order ------------------------------------------------

def reveal_plan(before_turn: int, st: GameState) -> list[tuple[int, dict[str, int]]]:
    """The TurnDiceRevealed events due after an order: (turn, {owner: turn of its
    seed}) for each turn now over, the owners' seeds on the last one."""
    ch = st.chain
    if ch is None:
        return []
    end = st.turn + 1 if st.result is not None else st.turn        # turns < end are over
    turns = list(range(max(ch.revealed + 1, before_turn), end))
    if not turns:
        return []
    last = turns[-1]
    sec: dict[str, int] = {}
    for owner in ch.sides:
        sealed = [t for key, t in ch.sealed_turn.items() if key.split(":", 1)[0] == owner]
        upto = last if st.result is not None or not sealed else min(min(sealed) - 1, last)
        if upto > ch.secret_turn.get(owner, -1):
            sec[owner] = upto
    return [(t, sec if t == last else {}) for t in turns]


def reveals(plan: list[tuple[int, dict[str, int]]], keys: Keys) -> list[E.TurnDiceRevealed]:
    out = []
    for turn, sec in plan:
        secret = [E.SideSeed(owner=o, turn=t, seed=keys.seed(o, t).hex()) for o, t in sec.items()]
        out.append(E.TurnDiceRevealed(turn=turn, seed=keys.seed(TURN, turn).hex(), secret=secret))
    return out


def plan_of(events: list[E.TurnDiceRevealed]) -> list[tuple[int, dict[str, int]]]:
    return [(ev.turn, {s.owner: s.turn for s in ev.secret}) for ev in events]


# --- the reducer's part ---------------------------------------------------------------------------

def _step(seed_hex: str, turn: int, last_turn: int, last_seed: str, what: str) -> None:
    try:
        seed = bytes.fromhex(seed_hex)
    except ValueError:
        raise ValueError(f"the revealed {what} seed of turn {turn} is not hexadecimal") from None
    if turn <= last_turn or len(seed) != 32 or walk(seed, turn - last_turn).hex() != last_seed:
        raise ValueError(f"the revealed {what} seed of turn {turn} does not hash to the chain GameCreated committed to")


def apply_reveal(ch: ChainState, ev: E.TurnDiceRevealed) -> None:
    """Check a reveal against the chain (the seed revealed before, or the head) and record it."""
    _step(ev.seed, ev.turn, ch.revealed, ch.turn_seed or ch.head, "turn")
    ch.revealed, ch.turn_seed = ev.turn, ev.seed
    for s in ev.secret:
        if s.owner not in ch.sides:
            raise ValueError(f"a secret-roll seed of {s.owner!r}, who has no chain")
        _step(s.seed, s.turn, ch.secret_turn.get(s.owner, -1), ch.secret_seed.get(s.owner) or ch.sides[s.owner],
              f"{s.owner} secret-roll")
        ch.secret_turn[s.owner], ch.secret_seed[s.owner] = s.turn, s.seed


def apply_entropy(ch: ChainState, ev: E.Event) -> None:
    if isinstance(ev, E.EntropyCommitted):
        ch.commits[ev.side] = ev.commitment
    elif isinstance(ev, E.EntropyRevealed):
        ch.values[ev.side] = ev.value
    elif isinstance(ev, E.EntropyStage):
        ch.entropy = "" if ev.stage == "closed" else ev.stage
        if ev.stage == "closed":
            ch.digest = ev.digest


# --- the exchange: orders every game takes ------------------------------------------------------

def handle_entropy(ctx, order: Entropy) -> None:
    st, side = ctx.state, ctx.side
    ch = st.chain
    if ch is None or (not ch.entropy and not ch.commits):
        raise OrderError("this game holds no exchange of contributions to the dice")
    if not ch.entropy:
        raise OrderError("the dice are fixed: the exchange of contributions is over")
    sides = ctx.sc.side_ids()
    if ch.entropy == "commit":
        if side in ch.commits:
            raise OrderError("your side has already answered the commitment stage")
        if order.action == "reveal":
            raise OrderError("reveal your contribution once every side has committed (entropy commit HASH first)")
        ctx.emit(E.EntropyCommitted(side=side, commitment=order.value if order.action == "commit" else ""))
        if all(s in ch.commits for s in sides):
            if any(ch.commits.values()):
                ctx.emit(E.EntropyStage(stage="reveal"))
            else:
                ctx.emit(E.EntropyStage(stage="closed", digest=digest({})))
        return
    if order.action == "commit":
        raise OrderError("the commitments are closed; now reveal the value you committed to (entropy reveal VALUE)")
    if not ch.commits.get(side) or side in ch.values:
        raise OrderError("your side has nothing to reveal")
    if order.action == "reveal" and hashlib.sha256(bytes.fromhex(order.value)).hexdigest() != ch.commits[side]:
        raise OrderError("that value does not hash to your side's commitment (sha256 of the 32 bytes)")
    ctx.emit(E.EntropyRevealed(side=side, value=order.value if order.action == "reveal" else ""))
    if all(s in ch.values for s, c in ch.commits.items() if c):
        ctx.emit(E.EntropyStage(stage="closed", digest=digest(ch.values)))


def exchange_waits(st: GameState, sides: list[str]) -> list[dict]:
    """While the exchange is open, the game waits for it (awaiting) before anything else."""
    ch = st.chain
    if ch is None or not ch.entropy or st.result is not None:
        return []
    if ch.entropy == "commit":
        return [{"side": s, "kind": "dice contribution", "rule": "",
                 "order": "entropy commit SHA256-OF-32-RANDOM-BYTES | entropy none (pbem dice contribute)"}
                for s in sides if s not in ch.commits]
    return [{"side": s, "kind": "dice contribution", "rule": "", "order": "entropy reveal VALUE | entropy none"}
            for s, c in ch.commits.items() if c and s not in ch.values]


def exchange_default(st: GameState, sides: list[str], side: str) -> list[Entropy]:
    """A missed deadline in the exchange contributes nothing (``entropy none``), as an order."""
    return [Entropy(action="none")] if any(w["side"] == side for w in exchange_waits(st, sides)) else []
