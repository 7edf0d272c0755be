import hashlib
import hmac
import os
import stat
import struct
from collections import Counter

import pytest

from pbem.core import dice
from pbem.core.dice import (
    Dice,
    DiceError,
    ScriptedDice,
    SeededDice,
    check_reveal,
    commitment,
    new_seed,
    read_seed,
    roll,
    write_seed,
)

SEED = bytes(range(32))


def ref_roll(seed: bytes, game_id: str, event: int, k: int, sides: int) -> int:
    """Independent re-implementation of the documented derivation."""
    limit = (2**32 // sides) * sides
    i = 0
    while True:
        msg = f"{game_id}:{event}:{k}" if i == 0 else f"{game_id}:{event}:{k}:{i}"
        digest = hmac.new(seed, msg.encode("utf-8"), hashlib.sha256).digest()
        for (v,) in struct.iter_unpack(">I", digest):
            if v < limit:
                return v % sides + 1
        i += 1


def test_golden_value():
    expected = ref_roll(bytes(32), "g", 0, 0, 6)
    assert roll(bytes(32), "g", 0, 0, 6) == expected
    # Pinned so that a change to both implementations is still noticed.
    assert expected == 1


def test_matches_reference_across_inputs():
    for sides in (2, 3, 6, 10, 20, 100, 2**31 + 1, 2**32):
        for event in range(5):
            for k in range(5):
                assert roll(SEED, "game-1", event, k, sides) == ref_roll(SEED, "game-1", event, k, sides)


@pytest.mark.parametrize("sides", [1, 2, 4, 6, 8, 10, 12, 20, 100])
def test_values_in_range(sides):
    values = {roll(SEED, "g", e, k, sides) for e in range(40) for k in range(10)}
    assert values <= set(range(1, sides + 1))
    if sides <= 20:
        assert values == set(range(1, sides + 1))


def test_deterministic():
    a = [roll(SEED, "g", 3, k, 20) for k in range(50)]
    b = [roll(bytes(SEED), "g", 3, k, 20) for k in range(50)]
    assert a == b


def test_streams_differ_by_event_k_game_and_seed():
    def stream(seed=SEED, game="g", event=0, k0=0):
        return [roll(seed, game, event, k0 + k, 1000) for k in range(20)]

    base = stream()
    assert stream(event=1) != base
    assert stream(k0=1) != base
    assert stream(k0=1)[:-1] == base[1:]  # k indexes one stream
    assert stream(game="h") != base
    assert stream(seed=bytes(32)) != base


def test_roughly_uniform_d6():
    counts = Counter(roll(SEED, "g", e, k, 6) for e in range(10_000) for k in range(6))
    n = sum(counts.values())
    assert n == 60_000
    expected = n / 6
    chi2 = sum((counts[f] - expected) ** 2 / expected for f in range(1, 7))
    # df=5: p=0.001 at 20.5; a loose bound that a biased mapping would still fail.
    assert chi2 < 30, counts


def test_pick_rejects_values_at_or_above_limit():
    limit = (2**32 // 6) * 6  # 4294967292
    block = b"".join(struct.pack(">I", v) for v in [2**32 - 1, limit, limit - 1] + [0] * 5)
    assert dice._pick(block, 6) == (limit - 1) % 6 + 1
    assert dice._pick(struct.pack(">I", limit) * 8, 6) is None
    assert dice._pick(struct.pack(">I", 7) * 8, 6) == 2


def test_rejection_continues_into_next_block():
    # With sides = 2**31 + 1 about half of all chunks are rejected, so some
    # rolls reject all eight chunks of the first block.
    sides = 2**31 + 1
    whole_block_rejected = []
    for k in range(3000):
        first = hmac.new(SEED, f"g:0:{k}".encode(), hashlib.sha256).digest()
        if dice._pick(first, sides) is None:
            whole_block_rejected.append(k)
    assert whole_block_rejected, "expected at least one fully rejected block"
    for k in whole_block_rejected:
        assert roll(SEED, "g", 0, k, sides) == ref_roll(SEED, "g", 0, k, sides)


@pytest.mark.parametrize(
    "args",
    [
        ("g", 0, 0, 0),
        ("g", 0, 0, -6),
        ("g", 0, 0, 2**32 + 1),
        ("g", 0, 0, True),
        ("g", -1, 0, 6),
        ("g", 0, -1, 6),
        ("a:b", 0, 0, 6),
        ("", 0, 0, 6),
    ],
)
def test_bad_arguments(args):
    with pytest.raises(DiceError):
        roll(SEED, *args)


def test_commitment_and_reveal():
    seed = new_seed()
    assert len(seed) == 32 and seed != new_seed()
    c = commitment(seed)
    assert c == hashlib.sha256(seed).hexdigest()
    assert check_reveal(seed, c)
    assert check_reveal(seed, c.upper())
    assert not check_reveal(bytes(32), c)
    assert not check_reveal(seed, "0" * 64)


def test_seeded_dice_records_rolls():
    d = SeededDice(SEED, "g", 7)
    values = [d.roll(s) for s in (6, 6, 20, 10)]
    assert values == [roll(SEED, "g", 7, k, s) for k, s in enumerate((6, 6, 20, 10))]
    assert d.rolls == list(zip((6, 6, 20, 10), values))
    assert isinstance(d, Dice)


def test_scripted_dice():
    d = ScriptedDice([3, 6, 1])
    assert isinstance(d, Dice)
    assert [d.roll(6), d.roll(6)] == [3, 6]
    assert d.position == 2
    assert d.rolls == [(6, 3), (6, 6)]
    assert d.roll(20) == 1
    with pytest.raises(DiceError, match="exhausted after 3 rolls"):
        d.roll(6)


def test_scripted_dice_start_and_out_of_range():
    d = ScriptedDice([1, 2, 9], start=1)
    assert d.roll(6) == 2
    with pytest.raises(DiceError, match=r"9 .*outside 1\.\.6"):
        d.roll(6)
    assert d.position == 2  # a refused value is not consumed
    assert d.roll(10) == 9


def test_write_seed_mode_and_roundtrip(tmp_path):
    p = tmp_path / "seed"
    seed = new_seed()
    old = os.umask(0)  # the mode must not depend on the umask
    try:
        write_seed(p, seed)
    finally:
        os.umask(old)
    assert stat.S_IMODE(p.stat().st_mode) == 0o600
    assert p.read_text() == seed.hex() + "\n"
    assert read_seed(p) == seed


def test_write_seed_refuses_overwrite(tmp_path):
    p = tmp_path / "seed"
    write_seed(p, bytes(32))
    with pytest.raises(DiceError, match="refusing to overwrite"):
        write_seed(p, new_seed())
    assert read_seed(p) == bytes(32)


def test_read_seed_missing(tmp_path):
    with pytest.raises(DiceError, match="not found: only the host holding it can roll dice"):
        read_seed(tmp_path / "seed")


def test_read_seed_refuses_group_readable(tmp_path):
    p = tmp_path / "seed"
    p.write_text(bytes(32).hex() + "\n")
    p.chmod(0o644)
    with pytest.raises(DiceError) as ei:
        read_seed(p)
    msg = str(ei.value)
    assert "0644" in msg and "group/other" in msg and "chmod 600" in msg
    p.chmod(0o600)
    assert read_seed(p) == bytes(32)


@pytest.mark.parametrize("content", ["", "zz\n", "abcd\n", "00" * 31 + "\n", "00" * 33 + "\n"])
def test_read_seed_malformed(tmp_path, content):
    p = tmp_path / "seed"
    p.write_text(content)
    p.chmod(0o600)
    with pytest.raises(DiceError, match="malformed"):
        read_seed(p)


@pytest.mark.skipif(os.geteuid() == 0, reason="root can read any file")
def test_read_seed_unreadable(tmp_path):
    p = tmp_path / "seed"
    p.write_text(bytes(32).hex() + "\n")
    p.chmod(0o000)
    with pytest.raises(DiceError, match="unreadable"):
        read_seed(p)
