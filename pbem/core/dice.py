"""Seeded, verifiable dice.

The host keeps a secret 32-byte seed and publishes ``commitment(seed)`` =
``sha256(seed).hexdigest()`` when the game starts. After the game, revealing
the seed lets anyone re-derive every roll and check it with ``check_reveal``.

Exact derivation of roll ``k`` (0-based) of event ``n`` with ``s`` sides, for
auditors re-implementing it::

    msg0  = f"{game_id}:{n}:{k}".encode("utf-8")         # decimal integers
    msg_i = f"{game_id}:{n}:{k}:{i}".encode("utf-8")      # i = 1, 2, 3, ...
    block_i = HMAC-SHA256(key=seed, msg=msg_i)            # 32 bytes each
    limit = (2**32 // s) * s
    Read block_0, block_1, ... in order, each as eight 4-byte big-endian
    unsigned integers v. The first v < limit gives the roll  v % s + 1.

Values v >= limit are rejected because accepting them would make the low
faces slightly more likely (modulo bias). ``game_id`` may not contain ":"
so that messages of different (game, event, roll) triples never coincide.
A d10 returns 1..10; rulebooks that print 10 as "0" can relabel the face.
"""

from __future__ import annotations

import hashlib
import hmac
import os
import secrets
import stat
from pathlib import Path
from typing import Callable, Iterator, Protocol, runtime_checkable

__all__ = [
    "Dice",
    "DiceError",
    "EveryRoll",
    "TooManyRolls",
    "ScriptedDice",
    "SeededDice",
    "check_reveal",
    "commitment",
    "new_seed",
    "read_seed",
    "roll",
    "write_seed",
]

SEED_BYTES = 32
_CHUNK = 4  # bytes per candidate value
_SPACE = 2 ** (8 * _CHUNK)


class DiceError(Exception):
    """Dice cannot be rolled: bad arguments, seed problems, script exhausted."""


@runtime_checkable
class Dice(Protocol):
    """A dice source for one event."""

    def roll(self, sides: int) -> int: ...

    @property
    def rolls(self) -> list[tuple[int, int]]:
        """(sides, value) of every roll made so far, in order."""
        ...


def new_seed() -> bytes:
    return secrets.token_bytes(SEED_BYTES)


def commitment(seed: bytes) -> str:
    """Public commitment to the seed: sha256 hex digest."""
    return hashlib.sha256(seed).hexdigest()


def check_reveal(seed: bytes, commitment_hex: str) -> bool:
    """True if ``seed`` is the one committed to by ``commitment_hex``."""
    return hmac.compare_digest(commitment(seed), commitment_hex.strip().lower())


def _check_sides(sides: int) -> None:
    if not isinstance(sides, int) or isinstance(sides, bool):
        raise DiceError(f"sides must be an int, got {sides!r}")
    if not 1 <= sides <= _SPACE:
        raise DiceError(f"sides must be in 1..{_SPACE}, got {sides}")


def _blocks(seed: bytes, msg: str) -> Iterator[bytes]:
    """HMAC blocks for ``msg``: msg itself, then msg:1, msg:2, ..."""
    yield hmac.new(seed, msg.encode("utf-8"), hashlib.sha256).digest()
    i = 1
    while True:
        yield hmac.new(seed, f"{msg}:{i}".encode("utf-8"), hashlib.sha256).digest()
        i += 1


def _pick(block: bytes, sides: int) -> int | None:
    """First unbiased face in ``block`` (1..sides), or None if all rejected."""
    limit = (_SPACE // sides) * sides
    for off in range(0, len(block), _CHUNK):
        v = int.from_bytes(block[off : off + _CHUNK], "big")
        if v < limit:
            return v % sides + 1
    return None


def roll(seed: bytes, game_id: str, event: int, k: int, sides: int) -> int:
    """Roll ``k`` (0-based) of event ``event``: a value in 1..sides."""
    _check_sides(sides)
    if not game_id or ":" in game_id:
        raise DiceError(f"game_id must be non-empty and contain no ':', got {game_id!r}")
    for name, n in (("event", event), ("k", k)):
        if not isinstance(n, int) or isinstance(n, bool) or n < 0:
            raise DiceError(f"{name} must be a non-negative int, got {n!r}")
    for block in _blocks(seed, f"{game_id}:{event}:{k}"):
        face = _pick(block, sides)
        if face is not None:
            return face
    raise AssertionError("unreachable")  # _blocks is infinite


class SeededDice:
    """Dice for one event: ``.roll(sides)`` returns rolls k = 0, 1, 2, ..."""

    def __init__(self, seed: bytes, game_id: str, event: int):
        self.seed = seed
        self.game_id = game_id
        self.event = event
        self._rolls: list[tuple[int, int]] = []

    @property
    def rolls(self) -> list[tuple[int, int]]:
        return list(self._rolls)

    def roll(self, sides: int) -> int:
        value = roll(self.seed, self.game_id, self.event, len(self._rolls), sides)
        self._rolls.append((sides, value))
        return value


class ScriptedDice:
    """Dice that return fixed values, for tests and teaching examples.

    ``start`` skips that many values; ``.position`` is the index of the next.
    """

    def __init__(self, values: list[int], start: int = 0):
        self._values = list(values)
        self.position = start
        self._rolls: list[tuple[int, int]] = []

    @property
    def rolls(self) -> list[tuple[int, int]]:
        return list(self._rolls)

    def roll(self, sides: int) -> int:
        _check_sides(sides)
        if self.position >= len(self._values):
            raise DiceError(
                f"scripted dice exhausted after {self.position} rolls (a d{sides} was asked for)"
            )
        value = self._values[self.position]
        if not 1 <= value <= sides:
            raise DiceError(
                f"scripted value {value} at position {self.position} is outside 1..{sides}"
            )
        self.position += 1
        self._rolls.append((sides, value))
        return value


def read_seed(path: Path, commitment_hex: str | None = None) -> bytes:
    """Read a seed file (hex + newline), refusing one others can read.

    With ``commitment_hex`` (the game's genesis commitment), also refuse a seed
    that is not the committed one: rolling with a swapped seed would give dice
    nobody can later audit against the commitment."""
    path = Path(path)
    try:
        # Without blocking: a FIFO in the seed's place is refused below, never waited on.
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_NOCTTY)
    except FileNotFoundError:
        raise DiceError(
            f"seed file {path} not found: only the host holding it can roll dice"
        ) from None
    except OSError as e:
        raise DiceError(f"seed file {path} is unreadable: {e.strerror}") from None
    try:
        # fstat the open descriptor so the checked file is the one we read.
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            raise DiceError(f"seed file {path} is not a regular file")
        mode = stat.S_IMODE(st.st_mode)
        if mode & 0o077:
            raise DiceError(
                f"seed file {path} has mode {mode:04o}, so group/other users can access "
                f"the secret seed; restrict it with: chmod 600 {path}"
            )
        try:
            raw = os.read(fd, 4096)  # a valid seed file is 65 bytes
        except OSError as e:
            raise DiceError(f"seed file {path} is unreadable: {e.strerror}") from None
    finally:
        os.close(fd)
    text = raw.decode("ascii", "replace").strip()
    try:
        seed = bytes.fromhex(text)
    except ValueError:
        seed = b""
    if len(seed) != SEED_BYTES:
        raise DiceError(
            f"seed file {path} is malformed: expected {2 * SEED_BYTES} hex digits and a newline"
        )
    if commitment_hex is not None and not check_reveal(seed, commitment_hex):
        raise DiceError(
            f"seed file {path} does not match the game's seed commitment "
            f"{commitment_hex[:12]}...: it is not this game's seed; restore the original"
        )
    return seed


def write_seed(path: Path, seed: bytes) -> None:
    """Create ``path`` (mode 0600) holding the hex seed; never overwrite."""
    path = Path(path)
    if len(seed) != SEED_BYTES:
        raise DiceError(f"seed must be {SEED_BYTES} bytes, got {len(seed)}")
    try:
        fd = os.open(path, os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o600)
    except FileExistsError:
        raise DiceError(f"seed file {path} already exists; refusing to overwrite it") from None
    try:
        os.fchmod(fd, 0o600)  # exact mode whatever the umask
        data = (seed.hex() + "\n").encode("ascii")
        view = memoryview(data)
        while view:
            view = view[os.write(fd, view) :]
        os.fsync(fd)
    except BaseException:
        os.close(fd)
        os.unlink(path)  # don't leave a half-written seed behind
        raise
    os.close(fd)
    dfd = os.open(path.parent, os.O_RDONLY | os.O_DIRECTORY)
    try:
        os.fsync(dfd)
    finally:
        os.close(dfd)


# --- the dice an order is adjudicated with -------------------------------------------

class RecordedDice:
    """Dice that replay the rolls a log recorded: lets anyone check the rules
    were followed even before the seed is revealed."""

    def __init__(self, values: list[int], salts: list[str] | None = None):
        self.values = values
        self.pos = 0
        self.salts = list(salts or [])

    def salt(self) -> str:
        if not self.salts:
            raise DiceError("the rules needed a salt the log did not record")
        return self.salts.pop(0)

    def roll(self, sides: int) -> int:
        if self.pos >= len(self.values):
            raise DiceError("the rules needed more dice than the log recorded")
        v = self.values[self.pos]
        self.pos += 1
        return v


class LazySeeded:
    """Seeded dice that get the seed (``seed_of()``: read the seed file and check
    it against its commitment) only when a die is actually rolled, so orders
    that roll nothing work without it."""

    def __init__(self, seed_of: Callable[[], bytes], game_id: str, event: int, seed: bytes | None = None):
        self.seed_of, self.game_id, self.event, self.inner, self._seed = seed_of, game_id, event, None, seed
        self.salts = 0

    def _key(self) -> bytes:
        if self._seed is None:
            self._seed = self.seed_of()
        return self._seed

    def roll(self, sides: int) -> int:
        if self.inner is None:
            self.inner = SeededDice(self._key(), self.game_id, self.event)
        return self.inner.roll(sides)

    def salt(self) -> str:
        """Salt for a sealed secret: HMAC(seed, "GAME:n:salt:i"), unguessable
        without the seed, re-derivable by the host and, after the reveal, by anyone."""
        msg = f"{self.game_id}:{self.event}:salt:{self.salts}".encode()
        self.salts += 1
        return hmac.new(self._key(), msg, hashlib.sha256).hexdigest()[:32]


class ScriptedWithSalt(ScriptedDice):
    """Scripted dice plus a deterministic (and so guessable) salt: test games only."""

    def __init__(self, values: list[int], start: int, game_id: str, event: int):
        super().__init__(values, start=start)
        self.label = f"scripted:{game_id}:{event}"
        self.salts = 0

    def salt(self) -> str:
        self.salts += 1
        return hashlib.sha256(f"{self.label}:{self.salts}".encode()).hexdigest()[:32]


class TooManyRolls(DiceError):
    """An order rolled more dice than ``EveryRoll`` follows (all their outcomes could not be tried)."""


class EveryRoll:
    """The dice of a check past its first roll: no die is rolled, every outcome is tried.

    One run of an order takes the values of ``prefix`` for its first rolls and 1 for
    the rest; ``next_prefix()`` then names the next run, depth first, until every
    sequence of values the order's rolls can take was tried (``None``).  A run that
    rolls nothing has one outcome.  Nothing here reads a seed: what a check learns
    this way is what the rules make of every roll, never what the game will roll."""

    def __init__(self, prefix: list[int] | tuple[int, ...] = (), most: int = 12):
        self.prefix = list(prefix)
        self.most = most                # rolls in one run (rules that roll until a die is not 1 would never stop)
        self.made: list[tuple[int, int]] = []

    @property
    def rolls(self) -> list[tuple[int, int]]:
        return list(self.made)

    def roll(self, sides: int) -> int:
        _check_sides(sides)
        k = len(self.made)
        if k >= self.most:
            raise TooManyRolls(f"more than {self.most} rolls in one order")
        v = self.prefix[k] if k < len(self.prefix) else 1
        self.made.append((sides, v))
        return v

    def salt(self) -> str:
        return "0" * 32                 # a check's seal is never shown to anyone else nor kept

    def next_prefix(self) -> list[int] | None:
        """The values of the next run's first rolls, or None when this run was the last."""
        for k in range(len(self.made) - 1, -1, -1):
            sides, v = self.made[k]
            if v < sides:
                return [x for _, x in self.made[:k]] + [v + 1]
        return None
