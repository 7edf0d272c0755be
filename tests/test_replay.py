"""Replay determinism and the example game's audit (issue 2, design.md § The log).

Property: whatever sequence of orders players send (legal or not), the state
rebuilt from the log equals the state the engine kept, in this process and in
a fresh one, and two games fed the same orders and dice write the same events.
"""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import msgspec
from hypothesis import HealthCheck, given, settings, strategies as st

from pbem.engine import Game
from pbem.core.state import state_bytes

ROOT = Path(__file__).resolve().parent.parent
AT = "2026-01-01T00:00:00Z"

# A vocabulary of orders around the El Alamein start line: some legal, many not.
UNITS = ["8Pz", "5Pz", "115", "104", "155", "24Aus", "5NZ", "6NZ", "4LtArm", "7Mot", "Nobody"]
HEXES = ["0611", "0612", "0711", "0712", "0713", "0811", "0812", "0813", "0814", "0913", "0910", "0911", "1011", "0505", "0601"]
order = st.one_of(
    st.builds(lambda u, p: f"move {u} {' '.join(p)}", st.sampled_from(UNITS), st.lists(st.sampled_from(HEXES), min_size=1, max_size=4)),
    st.builds(lambda h, us: f"attack {h} with {' '.join(us)}", st.sampled_from(HEXES), st.lists(st.sampled_from(UNITS), min_size=1, max_size=3, unique=True)),
    st.builds(lambda u, p: f"retreat {u} {' '.join(p)}", st.sampled_from(UNITS), st.lists(st.sampled_from(HEXES), min_size=1, max_size=2)),
    st.sampled_from(["end", "end", "no-advance", "advance 8Pz", "advance 5Pz", "advance 115"]),
)
batch = st.tuples(st.sampled_from(["axis", "british"]), st.lists(order, min_size=1, max_size=6))


def entry_bodies(g: Game) -> list[bytes]:
    return [msgspec.json.encode(e.event) for e in g.entries()]


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(batches=st.lists(batch, min_size=1, max_size=12), dice=st.lists(st.integers(1, 6), min_size=30, max_size=30))
def test_replay_equals_live_state_and_twins_agree(tmp_path_factory, batches, dice):
    d = tmp_path_factory.mktemp("g")
    a = Game.create(d / "a", "el-alamein", dice=dice, game_id="twin", at=AT)
    b = Game.create(d / "b", "el-alamein", dice=dice, game_id="twin", at=AT)
    for side, lines in batches:
        text = "\n".join(lines)
        sa, sb = a.submit(side, text, at=AT), b.submit(side, text, at=AT)
        assert (sa.refused is None) == (sb.refused is None)
    live = state_bytes(a.state())                   # from the cache kept while submitting
    rebuilt = state_bytes(a.replay(a.entries()))    # from the log alone
    assert live == rebuilt
    assert entry_bodies(a) == entry_bodies(b)
    assert (d / "a" / "log.jsonl").read_bytes() == (d / "b" / "log.jsonl").read_bytes()
    assert a.verify().ok


def test_fresh_process_rebuilds_identical_state_bytes(tmp_path, played_example):
    g = played_example("el-alamein").copy(tmp_path / "ex")    # played once per run (conftest)
    (g / ".state-cache").unlink()
    here = state_bytes(Game(g).state())
    code = ("import sys; from pathlib import Path; from pbem.engine import Game; from pbem.core.state import state_bytes; "
            "sys.stdout.buffer.write(state_bytes(Game(Path(sys.argv[1])).replay(Game(Path(sys.argv[1])).entries())))")
    there = subprocess.run([sys.executable, "-c", code, str(g)], capture_output=True, check=True).stdout
    assert here == there


def test_example_game_is_decided_verified_and_every_byte_matters(tmp_path, played_example):
    """Issue 2, done-when: verify accepts the example log and rejects it after
    any single byte is changed (a spread of positions over every line)."""
    g = played_example("el-alamein").copy(tmp_path / "ex")    # played once per run (conftest)
    game = Game(g)
    st_ = game.state()
    assert st_.result is not None and st_.result.winner == "british" and st_.turn == 4
    assert game.verify().ok
    log = g / "log.jsonl"
    data = log.read_bytes()
    starts = [0] + [i + 1 for i, b in enumerate(data) if b == 0x0A][:-1]
    positions = set()
    for s in starts:                                   # one byte in every line, varying its place
        positions.add(s + (len(positions) * 37) % 60)
    positions |= {len(data) - 2, len(data) - 30, len(data) // 2}
    for pos in sorted(positions):
        changed = bytearray(data)
        changed[pos] = ord("7") if changed[pos] != ord("7") else ord("8")
        log.write_bytes(bytes(changed))
        try:
            ok = Game(g).verify().ok
        except Exception:                               # refusing to open the game counts as a rejection
            ok = False
        assert not ok, f"byte {pos} changed and the log still verified"
    log.write_bytes(data)
    assert Game(g).verify().ok


def test_a_state_cache_of_another_layout_is_never_read(tmp_path):
    """The cache names the head and the state's layout: after an upgrade that changes
    a game's state type, an old cache at the same head is recomputed, not decoded."""
    g = Game.create(tmp_path / "g", "el-alamein", seed_hex="ab" * 32, game_id="g", at=AT)
    assert g.submit("axis", "move 8Pz 0612 0712 0812", at=AT).refused is None
    want = state_bytes(g.replay(g.entries()))
    cache = g.dir / ".state-cache"
    key, _, body = cache.read_bytes().partition(b"\n")
    head = key.split()[0]
    cache.write_bytes(head + b" some.OtherState/1 1\n" + body[:-3] + b"\x00\x00\x00")
    assert state_bytes(Game(g.dir).state()) == want
    cache.write_bytes(head + body)                                   # the old format: head then state
    assert state_bytes(Game(g.dir).state()) == want
