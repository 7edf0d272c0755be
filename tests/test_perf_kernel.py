"""Replay's kernel shortcuts of issue 29 (third round) give what the plain code gives
(correctness only: the figures come from tests/benchmark.py --only games).

- ``log.walk_blocks`` checks the hash chain a span of lines at a time (each line's hash
  from its own prev, the prevs compared as lists) and falls back to ``walk_chain``'s
  loop, line by line, for a span with anything wrong: it yields the lines ``walk_chain``
  yields, with the same hashes, and calls ``broken`` for the same lines in the same order;
- ``reduce.STEPS``: the core's part of an event made once per event type (the dice count,
  the declared board motion's fields read once, the ``CORE`` reducer) does what the plain
  ``reduce_core`` (below, as it was) does, for every event of every example and for the
  board events' edge cases (empty paths, empty hexes, units named "");
- ``Game._replay_log`` inlines ``Ruleset.apply`` over ``walk_blocks``: the same state,
  head hash and sealed records as the plain replay (``walk_chain``, then ``apply`` line by
  line, below) at every example's end and part way, and the same error, on the same line,
  for a log that is broken, tampered with, or not one game.
"""
from __future__ import annotations

import hashlib
import shutil

import msgspec
import pytest

from conftest import EXAMPLES
from pbem import log as log_mod
from pbem.core import events as E
from pbem.core import reduce as R
from pbem.core.state import GameState, copy_state, encode_state
from pbem.engine import Game
from pbem.log import GENESIS, EventLog, LogError, raw_envelope, walk_chain

AT = "2024-05-01T12:00:00Z"


# --- the plain code, as it was before these shortcuts -----------------------------------------

def reduce_core_plain(st: GameState, ev: E.Event, eliminated_stay: bool = False) -> bool:
    n = R.dice_used(ev)
    if n:
        st.scripted_pos += n
    m = ev.motion
    if m is not None and m.core:
        R.board_effect(st, ev, eliminated_stay)
        return True
    core = R.CORE.get(type(ev))
    if core is None:
        return False
    core(st, ev)
    return True


def apply_plain(rules, st: GameState, ev: E.Event, sc) -> None:
    """Ruleset.apply with the plain core part (every game's apply is this, or Tobruk's
    reduce_core then its reducer, which its ``reduce`` is)."""
    if rules._reads_before:
        rules.reduce_before(st, ev, sc)
    reduce_core_plain(st, ev, rules.eliminated_stay)
    rules.reduce(st, ev, sc)


def replay_plain(g: Game, upto: int | None = None):
    """Game._replay_log as it was: walk_chain line by line, each line applied before the next."""
    st = g.new_state()
    sealed = {}
    lines = g.log.iter_lines()
    prev, n = GENESIS, -1
    for n, line, x, prev in walk_chain(lines, g._decoder(), g._check_link):
        if n:
            ev = x.body
            try:
                apply_plain(g.rules, st, ev, g.scenario)
            except Exception as e:
                raise g._unappliable(n, ev, e) from e
            if ev.__class__ is E.SecretRecorded:
                sealed[f"{ev.side}:{ev.name}"] = ev
        if upto is not None and n == upto:
            break
    st.seq = n
    return st, prev, sealed


# --- walk_blocks against walk_chain ---------------------------------------------------------

def _env(n, line):
    return log_mod._decoder.decode(line)


def _fast(line):
    return log_mod._decoder.decode(line)


def _plain_walk(lines, decode=_env):
    seen, out = [], []
    try:
        for n, _, x, h in walk_chain(lines, decode, lambda m, x, e: seen.append((m, e))):
            out.append((x.seq, x.prev, h))
    except Exception as e:                              # noqa: BLE001 - compared with the fast walk's
        out.append(type(e))
    return out, seen


def _block_walk(lines, decode=_env):
    seen, out = [], []
    try:
        for xs, h in log_mod.walk_blocks([lines], _fast, decode, lambda m, x, e: seen.append((m, e))):
            out += [(x.seq, x.prev, None) for x in xs]
            out[-1] = out[-1][:2] + (h,)                # a span gives the hash of its last line
    except Exception as e:                              # noqa: BLE001
        out.append(type(e))
    return out, seen


def _same(plain, fast):
    (p, ps), (f, fs) = plain, fast
    assert fs == ps
    assert len(f) == len(p)
    for a, b in zip(p, f):
        assert a == b if isinstance(b, type) or b[2] is not None else a[:2] == b[:2]


def _lines(tmp_path, n, key="i"):
    log = EventLog(tmp_path / "log.jsonl")
    log.append_many([("move", {key: i, "unit": f"u{i % 7}"}) for i in range(n)], AT)
    return list(log.iter_lines())


def _tampered(lines):
    """(what, lines) for each way a log can be wrong."""
    def at(k, new):
        out = list(lines)
        out[k] = new
        return out
    yield "intact", list(lines)
    yield "a body changed", at(9, lines[9].replace(b'"i":9', b'"i":99'))
    yield "lines swapped", lines[:5] + [lines[6], lines[5]] + lines[7:]
    yield "a line gone", lines[:12] + lines[13:]
    yield "a seq changed", at(20, lines[20].replace(b'"seq":20', b'"seq":21'))
    yield "a prev not ascii", at(17, lines[17][:19] + "é".encode() + lines[17][21:])
    yield "a prev escaped", at(17, lines[17][:19] + b"\\u0030" + lines[17][20:])
    yield "a prev lone surrogate", at(17, lines[17][:19] + b"\\ud800" + lines[17][20:])
    yield "not JSON", at(30, b"{not json")
    yield "the first prev", at(0, lines[0].replace(GENESIS.encode(), b"1" * 64))
    yield "the last line", at(len(lines) - 1, lines[-1].replace(b'"i":', b'"i":1'))


@pytest.mark.parametrize("span", [1, 3, 7, 128])
def test_walk_blocks_yields_the_lines_hashes_and_breaks_walk_chain_yields(tmp_path, monkeypatch, span):
    monkeypatch.setattr(log_mod, "_SPAN", span)
    lines = _lines(tmp_path, 40)
    for what, bad in _tampered(lines):
        plain, fast = _plain_walk(bad), _block_walk(bad)
        assert fast[0], what
        _same(plain, fast)
    assert _plain_walk(lines)[0][-1][2] == EventLog(tmp_path / "log.jsonl").head()[1]


def test_walk_blocks_checks_every_span_against_the_hash_carried_from_the_one_before(tmp_path, monkeypatch):
    """Two logs, each well chained, joined: the second's first line breaks the chain at a
    span's start; and a span whose lines are a well-chained log of their own (seq and prev
    consistent inside it) still has to follow the span before."""
    monkeypatch.setattr(log_mod, "_SPAN", 10)
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    a, b = _lines(tmp_path / "a", 20), _lines(tmp_path / "b", 20, key="j")     # b: other hashes
    joined = a[:10] + b[10:]
    plain, fast = _plain_walk(joined), _block_walk(joined)
    _same(plain, fast)
    assert plain[1] and plain[1][0][0] == 10


def test_walk_blocks_takes_spans_across_the_files_read_blocks(tmp_path, monkeypatch):
    monkeypatch.setattr(log_mod, "_READ_CHUNK", 333)
    monkeypatch.setattr(log_mod, "_SPAN", 4)
    lines = _lines(tmp_path, 60)
    log = EventLog(tmp_path / "log.jsonl")
    got = []
    for xs, h in log_mod.walk_blocks(log.iter_blocks(), _fast, _env, None):
        got.append((xs[-1].seq, h))
    plain = {n: h for n, _, _, h in walk_chain(lines, _env, None)}
    assert [s for s, _ in got][-1] == 59 and all(plain[s] == h for s, h in got)


# --- the core's steps against the plain reduce_core ------------------------------------------

def _variants(ev: E.Event):
    """The event, and for a board event of the core the edge cases of its declared fields."""
    yield ev
    m = ev.motion
    if m is None or not m.core:
        return
    rep = msgspec.structs.replace
    if m.path:
        path = list(getattr(ev, m.path) or [])
        yield rep(ev, **{m.path: []})
        yield rep(ev, **{m.path: path + [""]})
        yield rep(ev, **{m.path: [""] + path[:1]})
    if m.hex:
        yield rep(ev, **{m.hex: ""})
    v = getattr(ev, m.unit)
    if isinstance(v, list):
        yield rep(ev, **{m.unit: []})
        yield rep(ev, **{m.unit: v + [""]})
    else:
        yield rep(ev, **{m.unit: ""})


@pytest.mark.parametrize("name", EXAMPLES)
def test_core_steps_do_what_the_plain_core_reducer_does(played_example, name):
    g = played_example(name).game()
    entries = g.entries()
    st = g.state(0)
    kinds = set()
    for en in entries[1:]:
        ev = en.event
        for v in _variants(ev):
            for stay in (False, True):
                a, b = copy_state(st), copy_state(st)
                try:
                    want = reduce_core_plain(a, v, stay)
                except (KeyError, ValueError) as e:   # a variant naming no unit: the same refusal
                    with pytest.raises(type(e)):
                        R.reduce_core(b, v, stay)
                    continue
                assert R.reduce_core(b, v, stay) is want, (en.seq, type(v).__name__)
                assert encode_state(b) == encode_state(a), (en.seq, type(v).__name__, v)
        kinds.add(type(ev))
        apply_plain(g.rules, st, ev, g.scenario)
    assert len(kinds) > 5
    st.seq = entries[-1].seq
    assert encode_state(st) == encode_state(g.state())


def test_a_type_the_core_leaves_alone_has_no_step_and_a_core_type_one():
    class Note(E.Event, tag="TestPerfKernelNote"):
        text: str

    class Rolled(E.Event, tag="TestPerfKernelRolled"):
        rolls: list[int] = []

    assert R.STEPS[Note] is None and R.STEPS[E.PhaseStarted] is not None
    st = GameState(game_id="g", scenario_id="s", game="x")
    assert R.reduce_core(st, Note(text="x")) is False
    assert R.reduce_core(st, Rolled(rolls=[3, 4])) is False and st.scripted_pos == 2
    assert R.reduce_core(st, E.PhaseStarted(turn=2, phase=1, side="a", name="x")) is True and st.turn == 2


# --- the engine's replay against the plain replay --------------------------------------------

def _same_replay(g: Game, upto: int | None = None):
    want_st, want_h, want_sealed = replay_plain(g, upto)
    st, h, sealed = g._replay_log(upto)
    assert (st.seq, h) == (want_st.seq, want_h)
    assert encode_state(st) == encode_state(want_st)
    assert msgspec.msgpack.encode(sealed) == msgspec.msgpack.encode(want_sealed)


@pytest.mark.parametrize("name", EXAMPLES)
def test_replay_gives_the_plain_replays_state_hash_and_sealed_records(played_example, name, monkeypatch):
    g = played_example(name).game()
    last = g.head()[0]
    _same_replay(g)
    assert g._replay_log()[1] == g.head()[1]
    monkeypatch.setattr(log_mod, "_SPAN", 5)            # spans end everywhere
    for upto in sorted({0, 1, 2, last // 3, last // 2, last - 1, last}):
        _same_replay(g, upto)


def _rechained(lines: list[bytes]) -> list[bytes]:
    """The lines with their seq and prev made right again (the bytes re-encoded)."""
    out, h = [], GENESIS
    enc = msgspec.json.Encoder()
    for n, line in enumerate(lines):
        env = raw_envelope.decode(line)
        env.seq, env.prev = n, h
        line = enc.encode(env)
        h = hashlib.sha256(h.encode() + line).hexdigest()
        out.append(line)
    return out


def _write(d, lines):
    (d / "log.jsonl").write_bytes(b"".join(ln + b"\n" for ln in lines))
    (d / "log.head").unlink(missing_ok=True)
    (d / ".state-cache").unlink(missing_ok=True)


def _broken_logs(lines: list[bytes]):
    k = len(lines) // 2
    yield "a body changed", lines[:k] + [lines[k].replace(b'"', b'"', 1) + b" "] + lines[k + 1:]
    yield "a line gone", lines[:k] + lines[k + 1:]
    yield "a second GameCreated", _rechained(lines[:k] + [lines[0]] + lines[k:])
    yield "an unknown kind", _rechained(lines[:k] + [lines[k].replace(b'"kind":"', b'"kind":"Nope', 1)] + lines[k:])
    yield "an event out of place", _rechained(lines[:2] + [lines[k]] + lines[2:])
    yield "a bad body", _rechained(lines[:k] + [lines[k].replace(b'"body":{', b'"body":{"zz":1,', 1)] + lines[k:])
    yield "a torn end", lines + [b'{"seq":']


def _error(f):
    try:
        f()
    except LogError as e:
        return str(e)
    return None


@pytest.mark.parametrize("name", ["el-alamein", "crete", "tobruk-r33", "red-devils"])
def test_a_broken_log_stops_replay_with_the_plain_replays_error(played_example, name, tmp_path, monkeypatch):
    d = played_example(name).copy(tmp_path / "g")
    lines = (d / "log.jsonl").read_bytes().splitlines()
    for span in (128, 3):
        monkeypatch.setattr(log_mod, "_SPAN", span)
        for what, bad in _broken_logs(lines):
            if what == "a torn end":
                (d / "log.jsonl").write_bytes(b"".join(ln + b"\n" for ln in lines) + bad[-1])
            else:
                _write(d, bad)
            g = Game(d)
            plain = _error(lambda: replay_plain(g))
            assert plain is not None or what == "an event out of place", what
            assert _error(lambda: g._replay_log()) == plain, what
    shutil.rmtree(d)
