import errno
import hashlib
import json
import os
import subprocess
import sys
import textwrap

import msgspec
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pbem import log as log_mod
from pbem.log import GENESIS, EventLog, LogError, Record, StaleHead, line_hash

AT = "2024-05-01T12:00:00Z"


def make_log(path, n, kind="move"):
    log = EventLog(path)
    log.append_many([(kind, {"i": i, "unit": f"u{i % 7}", "to": [i, i + 1]}) for i in range(n)], AT)
    return log


@pytest.fixture
def path(tmp_path):
    return tmp_path / "log.jsonl"


def test_missing_log_is_empty(path):
    log = EventLog(path)
    assert not log.exists()
    assert log.read() == []
    assert list(log.iter_lines()) == []
    assert log.head() == (-1, GENESIS)
    path.touch()
    assert log.read() == [] and log.head() == (-1, GENESIS)


def test_append_read_round_trip(path):
    log = EventLog(path)
    r0 = log.append("start", {"scenario": "kursk", "players": ["a", "b"]}, AT)
    assert log.exists()
    rs = log.append_many([("move", {"u": 1}), ("fire", {"u": 2, "at": [3, 4]})], "2024-05-02T00:00:00+00:00")
    assert [r.seq for r in [r0, *rs]] == [0, 1, 2]
    assert r0.prev == GENESIS and rs[0].prev == r0.hash and rs[1].prev == rs[0].hash
    assert log.read() == [r0, *rs]
    assert log.read(verify=False) == [r0, *rs]
    assert [r.body for r in log.read()] == [{"scenario": "kursk", "players": ["a", "b"]}, {"u": 1}, {"u": 2, "at": [3, 4]}]
    assert log.head() == (2, rs[1].hash)
    assert list(log.iter_lines()) == [r.line for r in (r0, *rs)]


def test_hash_chain_recomputed_independently(path):
    log = make_log(path, 5)
    log.append("note", {"text": "héllo\nworld"}, AT)
    records = log.read()
    raw = path.read_bytes()
    assert raw.endswith(b"\n")
    h = GENESIS
    for seq, (line, rec) in enumerate(zip(raw.split(b"\n")[:-1], records)):
        obj = json.loads(line)
        assert list(obj) == ["seq", "prev", "kind", "body", "at"]
        # Canonical compact form, keys in fixed order.
        assert line == json.dumps(obj, separators=(",", ":"), ensure_ascii=False).encode()
        assert obj["seq"] == seq and obj["prev"] == h and obj["at"] == AT
        h = hashlib.sha256(h.encode("ascii") + line).hexdigest()
        assert rec.hash == h == line_hash(obj["prev"], line)
        assert rec.line == line
    assert log.head() == (5, h)


def test_struct_body_and_bad_inputs(path):
    class Move(msgspec.Struct):
        unit: str
        hexes: list[int]

    log = EventLog(path)
    r = log.append("move", Move("u1", [1, 2]), AT)
    assert r.body == {"unit": "u1", "hexes": [1, 2]}
    assert log.read() == [r]
    before = path.read_bytes()
    with pytest.raises(TypeError):
        log.append("move", [1, 2], AT)  # not a JSON object
    with pytest.raises(TypeError):
        log.append("move", {"x": object()}, AT)
    with pytest.raises(ValueError):
        log.append("", {}, AT)
    with pytest.raises(ValueError):
        log.append("move", {}, "2024-05-01T12:00:00+02:00")
    with pytest.raises(ValueError):
        log.append("move", {}, "yesterday")
    with pytest.raises(ValueError):
        # A bad item late in a batch writes nothing.
        log.append_many([("ok", {}), ("", {})], AT)
    assert path.read_bytes() == before


def test_head_on_1000_line_log(path, monkeypatch):
    log = make_log(path, 1000)
    last = log.read()[-1]
    assert last.seq == 999
    assert log.head() == (999, last.hash)
    # Tiny chunks exercise the backwards scan across chunk boundaries.
    for chunk in (1, 2, 7, 100):
        monkeypatch.setattr(log_mod, "_TAIL_CHUNK", chunk)
        assert log.head() == (999, last.hash)


def test_head_with_last_line_longer_than_chunk(path, monkeypatch):
    monkeypatch.setattr(log_mod, "_TAIL_CHUNK", 64)
    log = EventLog(path)
    r = log.append("big", {"blob": "x" * 1000}, AT)
    assert log.head() == (0, r.hash)
    r = log.append("big", {"blob": "y" * 1000}, AT)
    assert log.head() == (1, r.hash)


def _replace_once(data: bytes, old: bytes, new: bytes) -> bytes:
    assert data.count(old) == 1
    return data.replace(old, new)


def test_tampered_body_reported_on_next_line(path):
    make_log(path, 10)
    # Line 4 (seq 3) stays valid JSON with the right prev; line 5's prev breaks.
    path.write_bytes(_replace_once(path.read_bytes(), b'{"i":3,', b'{"i":9,'))
    with pytest.raises(LogError) as ei:
        EventLog(path).read()
    assert ei.value.line == 5
    assert "line 5: hash chain broken (prev does not match line 4" in str(ei.value)
    assert len(EventLog(path).read(verify=False)) == 10


def test_tampered_prev_and_seq(path):
    log = make_log(path, 10)
    records = log.read()
    data = path.read_bytes()
    bad_prev = records[5].prev[:-1] + ("0" if records[5].prev[-1] != "0" else "1")
    path.write_bytes(_replace_once(data, records[5].prev.encode(), bad_prev.encode()))
    with pytest.raises(LogError) as ei:
        log.read()
    assert ei.value.line == 6 and "hash chain broken" in str(ei.value)

    path.write_bytes(_replace_once(data, b'{"seq":7,', b'{"seq":8,'))
    with pytest.raises(LogError, match="line 8: expected seq 7, found 8"):
        log.read()

    path.write_bytes(_replace_once(data, b'{"seq":2,', b'{"seq":"2",'))
    with pytest.raises(LogError, match="line 3: invalid record"):
        log.read()

    path.write_bytes(_replace_once(data, b'{"seq":0,', b'{"seq":0,"x":1,'))
    with pytest.raises(LogError, match="line 1: invalid record"):
        log.read()


@pytest.fixture(scope="module")
def pristine(tmp_path_factory):
    d = tmp_path_factory.mktemp("pristine")
    log = make_log(d / "log.jsonl", 6)
    log.append("note", {"text": "ünïcode ✓", "n": None, "f": 1.5}, AT)
    data = (d / "log.jsonl").read_bytes()
    return data, log.head(), tmp_path_factory.mktemp("tampered") / "log.jsonl"


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.data())
def test_any_single_byte_flip_is_detected(pristine, data):
    original, head, path = pristine
    pos = data.draw(st.integers(0, len(original) - 1), label="pos")
    xor = data.draw(st.integers(1, 255), label="xor")
    tampered = bytearray(original)
    tampered[pos] ^= xor
    path.write_bytes(bytes(tampered))
    log = EventLog(path)

    line_no = original.count(b"\n", 0, pos) + 1  # line holding pos (its newline included)
    n_lines = original.count(b"\n")
    if line_no < n_lines:
        with pytest.raises(LogError) as ei:
            log.read()
        assert ei.value.line in (line_no, line_no + 1), str(ei.value)
    else:
        # Nothing follows the last line to pin its hash: either it is
        # refused outright, or the head hash changes.
        try:
            log.read()
        except LogError as e:
            assert e.line == n_lines
        else:
            try:
                assert log.head() != head
            except LogError:
                pass


def test_torn_last_line(path):
    log = make_log(path, 3)
    with open(path, "ab") as f:
        f.write(b'{"seq":3,"prev":"ab')
    before = path.read_bytes()
    for call in (log.read, lambda: log.read(verify=False), log.head, lambda: list(log.iter_lines())):
        with pytest.raises(LogError) as ei:
            call()
        assert ei.value.line == 4
        msg = str(ei.value)
        assert "line 4" in msg and "incomplete" in msg and "nothing was used" in msg
    with pytest.raises(LogError, match="incomplete"):
        log.append("move", {}, AT)
    assert path.read_bytes() == before


def test_torn_only_line(path):
    path.write_bytes(b'{"seq":0')
    with pytest.raises(LogError, match="line 1: last line is incomplete"):
        EventLog(path).head()


def test_head_rejects_garbage_last_line(path):
    make_log(path, 3)
    with open(path, "ab") as f:
        f.write(b"not json\n")
    with pytest.raises(LogError, match="line 4: not valid JSON"):
        EventLog(path).head()


def test_stale_expect_head(path):
    log = make_log(path, 3)
    _, h = log.head()
    log.append("move", {"x": 1}, AT, expect_head=h)  # fresh: accepted
    before = path.read_bytes()
    with pytest.raises(StaleHead) as ei:
        log.append_many([("a", {}), ("b", {})], AT, expect_head=h)
    assert isinstance(ei.value, LogError)
    assert path.read_bytes() == before
    with pytest.raises(StaleHead):
        EventLog(path.parent / "new.jsonl").append("a", {}, AT, expect_head=h)
    assert not (path.parent / "new.jsonl").exists()
    # GENESIS is the head of an empty log.
    EventLog(path.parent / "new.jsonl").append("a", {}, AT, expect_head=GENESIS)


def test_lock_read_decide_append(path):
    log = make_log(path, 2)
    with log.lock():
        seq, h = log.head()
        rs = log.append_many([("a", {"after": seq})], AT, expect_head=h, locked=True)
        r = log.append("b", {}, AT, locked=True)
        c = log.append("c", {}, AT)  # re-entrant: the lock is ours already, no second flock (no self-deadlock)
        with log.lock():             # nested (staging.final holds it around Game.submit)
            d = log.append("d", {}, AT, locked=True)
        assert log._held             # the inner block did not release the outer hold
    assert [x.seq for x in rs] == [2] and (r.seq, c.seq, d.seq) == (3, 4, 5) and not log._held
    with pytest.raises(RuntimeError):
        log.append("e", {}, AT, locked=True)  # lock not held
    assert len(log.read()) == 6


_WORKER = textwrap.dedent(
    """
    import sys
    from pathlib import Path
    from pbem.log import EventLog

    path, wid = Path(sys.argv[1]), int(sys.argv[2])
    log = EventLog(path)
    for i in range(50):
        if wid == 0:
            log.append("tick", {"w": wid, "i": i}, "2024-05-01T12:00:00Z")
        else:
            # read-decide-append under the lock
            with log.lock():
                seq, h = log.head()
                log.append("tick", {"w": wid, "i": i, "after": seq},
                           "2024-05-01T12:00:00Z", expect_head=h, locked=True)
    """
)


def test_concurrent_processes_append(path):
    procs = [
        subprocess.Popen([sys.executable, "-c", _WORKER, str(path), str(w)], stderr=subprocess.PIPE)
        for w in (0, 1)
    ]
    for p in procs:
        _, err = p.communicate(timeout=120)
        assert p.returncode == 0, err.decode()
    records = EventLog(path).read()  # verifies the chain
    assert [r.seq for r in records] == list(range(100))
    for w in (0, 1):
        assert [r.body["i"] for r in records if r.body["w"] == w] == list(range(50))
    for r in records:
        if r.body["w"] == 1:
            assert r.body["after"] == r.seq - 1


class _FailingOS:
    """Stand-in for the os module inside pbem.log with one failing call."""

    def __init__(self, fail: str):
        self.fail = fail

    def __getattr__(self, name):
        return getattr(os, name)

    def write(self, fd, data):
        if self.fail == "write":
            # Partial write, then the disk fills up.
            os.write(fd, bytes(data[: max(1, len(data) // 2)]))
            raise OSError(errno.ENOSPC, "No space left on device")
        return os.write(fd, data)

    def fsync(self, fd):
        if self.fail == "fsync":
            raise OSError(errno.EIO, "Input/output error")
        return os.fsync(fd)


@pytest.mark.parametrize("fail", ["write", "fsync"])
def test_failed_write_leaves_log_unchanged(path, monkeypatch, fail):
    log = make_log(path, 4)
    before = path.read_bytes()
    head = log.head()
    monkeypatch.setattr(log_mod, "os", _FailingOS(fail))
    with pytest.raises(OSError):
        log.append_many([("a", {"x": "y" * 500}), ("b", {})], AT)
    assert path.read_bytes() == before
    with pytest.raises(OSError):
        log.append("a", {}, AT)
    assert path.read_bytes() == before
    monkeypatch.undo()
    assert log.head() == head
    log.append("a", {}, AT)
    assert len(log.read()) == 5


@pytest.mark.parametrize("fail", ["write", "fsync"])
def test_failed_first_write_leaves_no_file(path, monkeypatch, fail):
    monkeypatch.setattr(log_mod, "os", _FailingOS(fail))
    with pytest.raises(OSError):
        EventLog(path).append("start", {}, AT)
    assert not path.exists()


def test_record_fields():
    assert set(Record.__struct_fields__) >= {"seq", "prev", "kind", "body", "at", "hash"}


# --- the one chain walker and the one anchor check (issue 26 item 6) ---------------------------

def _env(n, line):
    return log_mod._decoder.decode(line)


def test_walk_chain_forwards_and_backwards_name_the_same_break(path):
    log = make_log(path, 6)
    lines = list(log.iter_lines())
    recs = log.read()
    assert [(n, h) for n, _, _, h in log_mod.walk_chain(lines, _env, None)] == [(r.seq, r.hash) for r in recs]
    back = list(log_mod.walk_chain(reversed(lines), _env, None, last=5))
    assert [(n, h) for n, _, _, h in back] == [(r.seq, r.hash) for r in reversed(recs)]
    # line 3 altered (its body, its prev kept): line 4's prev no longer matches it
    bad = list(lines)
    bad[3] = bad[3].replace(b'"i":3', b'"i":9')
    seen = []
    for walk in (lambda: log_mod.walk_chain(bad, _env, lambda m, x, e: seen.append(("fwd", m, e))),
                 lambda: log_mod.walk_chain(reversed(bad), _env, lambda m, x, e: seen.append(("back", m, e)),
                                            last=5)):
        list(walk())
    h3 = line_hash(recs[2].hash, bad[3])
    # forwards the running hash goes on from the altered line, so line 5 breaks too
    assert seen[0] == ("fwd", 4, h3) and ("back", 4, h3) in seen and [s for s in seen if s[0] == "back"] == [
        ("back", 4, h3)]


def test_anchor_of_verdicts(path):
    log = make_log(path, 4)
    hashes = [r.hash for r in log.read()]
    at = hashes.__getitem__
    assert log_mod.anchor_of(log, 3, at)[:2] == ("ok", (3, hashes[3]))
    assert log_mod.anchor_of(log, 4, at)[0] == "lags"
    assert log_mod.anchor_of(log, 2, at)[0] == "removed"
    assert log_mod.anchor_of(log, 3, lambda s: "0" * 64)[0] == "changed"
    assert log_mod.anchor_of(log, 3, lambda s: None)[0] == "ok"          # not known here: not compared
    log.head_path.write_text("junk")
    verdict, anchor, err = log_mod.anchor_of(log, 3, at)
    assert (verdict, anchor) == ("unreadable", None) and isinstance(err, LogError)
    log.head_path.unlink()
    assert log_mod.anchor_of(log, 3, at) == ("none", None, None)
