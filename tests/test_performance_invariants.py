"""What the speed-ups of issue 18 must not change (correctness only; the figures
come from tests/benchmark.py, never from a timed test):

- the streamed replay (``state()``, ``state(at)``) gives the state the list
  replay (``replay(entries())``) gives, and the one-pass line decoder decodes
  exactly what the envelope + body decoders decode;
- the log is read in blocks, forwards and backwards, line for line as it is;
- the state cache (with the sealed secrets beside it) and the scenario cache
  are rebuilt when altered; ``verify`` trusts neither and rewrites a forged one;
- a report reads the log's tail (``views.report_entries``) and says exactly
  what it says when it reads the whole log;
- a single command loads only what it needs (no Jinja for `pbem state`).
"""
from __future__ import annotations

import hashlib
import subprocess
import sys
from pathlib import Path

import msgspec
import pytest

from conftest import EXAMPLES
from pbem import log as log_mod
from pbem.core import events as E
from pbem.core.state import state_bytes
from pbem.engine import Game
from pbem.log import raw_envelope
from pbem.log import EventLog, LogError
from pbem.report import render
from pbem.views import REFEREE, report_entries

AT = "2026-01-01T00:00:00Z"
PLAYED = ["el-alamein", "kharkov", "crete", "red-devils", "eben-emael-12-2"]


def _fresh(played_example, name: str, tmp_path: Path) -> Game:
    return Game(played_example(name).copy(tmp_path / name))


# --- streaming replay == list replay -------------------------------------------------------

@pytest.mark.parametrize("name", EXAMPLES)
def test_streamed_replay_gives_the_list_replays_state_at_every_point(played_example, tmp_path, name):
    g = _fresh(played_example, name, tmp_path)
    entries = g.entries()
    (g.dir / ".state-cache").unlink()
    assert state_bytes(g.state()) == state_bytes(g.replay(entries))                 # streamed, no cache
    assert state_bytes(g.state()) == state_bytes(g.replay(entries))                 # from the cache it wrote
    assert state_bytes(g.replay(g.iter_entries())) == state_bytes(g.replay(entries))
    last = entries[-1].seq
    for at in sorted({0, 1, last // 3, last // 2, last - 1, last}):
        st, h = g.state_and_hash(at)
        assert state_bytes(st) == state_bytes(g.replay(entries, upto=at)), at
        assert st.seq == at and h == entries[at].hash


@pytest.mark.parametrize("name", EXAMPLES)
def test_the_one_pass_line_decoder_decodes_what_the_two_step_decoder_does(played_example, name):
    g = played_example(name).game()
    decode = E.line_decoder().decode
    for line in g.log.iter_lines():
        env = raw_envelope.decode(line)
        x = decode(line)
        assert (x.seq, x.prev, x.at) == (env.seq, env.prev, env.at)
        assert x.body == E.decode_body(env.kind, env.body) and E.kind_of(x.body) == env.kind


def test_a_bad_line_gives_the_same_error_streamed_and_listed(played_example, tmp_path):
    g = _fresh(played_example, "el-alamein", tmp_path)
    lines = g.log.path.read_bytes().split(b"\n")
    cases = {
        "unknown kind": lines[5].replace(b'"kind":"', b'"kind":"Nope', 1),
        "bad body": lines[5].replace(b'"body":{', b'"body":{"stray":1,', 1),
        "not json": lines[5][:-3],
    }
    for what, bad in cases.items():
        g.log.path.write_bytes(b"\n".join(lines[:5] + [bad] + lines[6:]))
        (g.dir / ".state-cache").unlink(missing_ok=True)
        with pytest.raises(LogError) as listed:
            g.entries()
        with pytest.raises(LogError) as streamed:
            g.replay(g.iter_entries())
        assert str(streamed.value) == str(listed.value), what
        assert listed.value.line == 6
        if what != "unknown kind":                  # an unknown kind in the last line is head()'s to refuse
            with pytest.raises(LogError) as replayed:
                Game(g.dir).state(at=7)
            assert str(replayed.value) == str(listed.value), what


def test_a_second_game_created_is_refused_streamed_and_listed(played_example, tmp_path):
    g = _fresh(played_example, "el-alamein", tmp_path)
    lines = g.log.path.read_bytes().split(b"\n")[:-1]
    # line 3 replaced by the first line, re-chained: a log of two joined games
    from pbem.log import GENESIS, line_hash
    env = msgspec.json.decode(lines[0])
    out, h = [], GENESIS
    for n, line in enumerate(lines[:2] + [lines[0]] + lines[3:]):
        d = msgspec.json.decode(line) if n != 2 else dict(env)
        d["seq"], d["prev"] = n, h
        line = msgspec.json.encode(d)
        out.append(line)
        h = line_hash(h, line)
    g.log.path.write_bytes(b"\n".join(out) + b"\n")
    (g.dir / ".state-cache").unlink()
    for call in (g.entries, g.state, lambda: g.state(at=5)):
        with pytest.raises(LogError, match="second GameCreated"):
            call()


# --- reading the log in blocks ---------------------------------------------------------------

@pytest.mark.parametrize("chunk", [1, 7, 64, 1 << 18])
def test_lines_read_in_blocks_forwards_and_backwards_are_the_lines(played_example, monkeypatch, chunk):
    log = played_example("el-alamein").game().log
    lines = log.path.read_bytes().split(b"\n")[:-1]
    monkeypatch.setattr(log_mod, "_READ_CHUNK", chunk)
    assert list(log.iter_lines()) == lines
    assert list(log.iter_lines_reversed()) == lines[::-1]
    assert log.first_line() == lines[0]


@pytest.mark.parametrize("chunk", [3, 1 << 18])
def test_a_torn_last_line_is_refused_forwards_and_backwards(tmp_path, monkeypatch, chunk):
    monkeypatch.setattr(log_mod, "_READ_CHUNK", chunk)
    log = EventLog(tmp_path / "log.jsonl")
    log.path.write_bytes(b'{"a":1}\n{"b":2}\n{"c":')
    got = []
    with pytest.raises(LogError, match="line 3"):
        for line in log.iter_lines():
            got.append(line)
    assert got == [b'{"a":1}', b'{"b":2}']
    with pytest.raises(LogError, match="line 3"):
        next(log.iter_lines_reversed())
    assert log.first_line() == b'{"a":1}'
    log.path.write_bytes(b'{"a":')
    with pytest.raises(LogError, match="line 1"):
        log.first_line()
    log.path.write_bytes(b"")
    assert log.first_line() is None and list(log.iter_lines()) == [] == list(log.iter_lines_reversed())


# --- the state cache -----------------------------------------------------------------------

def _cache_parts(g: Game) -> tuple[list[bytes], bytes]:
    key, _, body = (g.dir / ".state-cache").read_bytes().partition(b"\n")
    return key.split(b" "), body


def test_a_tampered_state_cache_is_rebuilt_from_the_log(played_example, tmp_path):
    g = _fresh(played_example, "el-alamein", tmp_path)
    want = state_bytes(g.replay(g.entries()))
    g.state()
    cache = g.dir / ".state-cache"
    parts, body = _cache_parts(g)
    assert parts[0].decode() == g.head()[1] and parts[3].decode() == hashlib.sha256(body).hexdigest()
    # a changed unit hex in the state's bytes, the header left as it was: the digest fails
    i = body.index(b"0")
    cache.write_bytes(b" ".join(parts) + b"\n" + body[:i] + b"9" + body[i + 1:])
    assert state_bytes(Game(g.dir).state()) == want
    assert _cache_parts(g) == (parts, body)                   # rewritten as it was
    for broken in (b"", b" ".join(parts), b" ".join(parts[:4]) + b"\n" + body,
                   b" ".join(parts[:4] + [b"99999999"]) + b"\n" + body, b" ".join(parts) + b"\n" + body[:-1]):
        cache.write_bytes(broken)
        assert state_bytes(Game(g.dir).state()) == want


def test_a_forged_state_cache_is_found_and_rewritten_by_verify(played_example, tmp_path):
    """The digest is no signature: a cache forged with a consistent digest is read by
    state (whoever can write the folder can rewrite the log too); verify trusts no
    cache, says so and rewrites it."""
    g = _fresh(played_example, "el-alamein", tmp_path)
    want = state_bytes(g.replay(g.entries()))
    forged = g.state()
    forged.turn += 1
    g._write_cache(g.head()[1], forged, {})
    assert Game(g.dir).state().turn == forged.turn
    rep = Game(g.dir).verify()
    assert rep.ok and any(".state-cache did not match the log" in n for n in rep.notes)
    assert state_bytes(Game(g.dir).state()) == want
    assert not any("state-cache" in n for n in Game(g.dir).verify().notes)


@pytest.mark.parametrize("name", ["eben-emael-12-1", "red-devils", "dunkerque"])
def test_the_sealed_secrets_beside_the_state_cache_are_the_logs(played_example, tmp_path, name):
    g = _fresh(played_example, name, tmp_path)
    from_log = g.secret_records(g.entries())
    assert from_log                                           # each of these games seals something
    assert g.secret_records() == from_log                     # from the cache
    (g.dir / ".state-cache").unlink()
    assert Game(g.dir).secret_records() == from_log           # from a streamed replay
    assert Game(g.dir).secret_records() == from_log           # from the cache it wrote


def test_unveil_and_hidden_secrets_work_from_the_cache_and_without_it(tmp_path):
    g = Game.create(tmp_path / "g", "eben-emael-12-1", seed_hex="11" * 32, game_id="g", at=AT)
    book = Path(__file__).resolve().parent.parent / "examples" / "eben-emael-12-1"
    assert g.submit("belgian", (book / "01-belgian.txt").read_text(), at=AT).refused is None
    sub = g.submit("german", "secret plan take the bridge\nsecret other b\nunveil plan\nsecret plan again", at=AT)
    assert sub.refused is None
    assert [type(e).__name__ for a in sub.applied for e in a.events] == [
        "SecretRecorded", "SecretRecorded", "SecretRevealed", "SecretRecorded"]
    assert g.secret_records()["german:plan"].payload == "again"
    (g.dir / ".state-cache").unlink()
    sub = g.submit("german", "unveil plan\nunveil other", at=AT)
    assert sub.refused is None
    assert [e.payload for a in sub.applied for e in a.events] == ["again", "b"]
    assert g.secret_records() == g.secret_records(g.entries())
    # the dummy cupolas (hidden, read by the rules from the sealed records) still work
    assert g.submit("german", "fire Unger Bel/3", at=AT).refused is None
    rep = g.verify()
    assert rep.ok, rep.problems


def test_the_state_cache_file_is_private_and_the_scenario_cache_too(played_example, tmp_path):
    g = _fresh(played_example, "crete", tmp_path)
    for name in (".state-cache", ".scenario-cache"):
        (g.dir / name).unlink(missing_ok=True)
    subprocess.run([sys.executable, "-m", "pbem", "state", str(g.dir)], check=True, capture_output=True)
    for name in (".state-cache", ".scenario-cache"):
        assert ((g.dir / name).stat().st_mode & 0o777) == 0o600, name


# --- the scenario cache ---------------------------------------------------------------------

def _load_in_fresh_process(d: Path) -> bytes:
    """The scenario a new process's Game(d) loads, as msgpack bytes (its ``path`` left out)."""
    code = ("import sys, msgspec; from pathlib import Path; from pbem.engine import Game; "
            "sc = msgspec.structs.replace(Game(Path(sys.argv[1])).scenario, path=''); "
            "sys.stdout.buffer.write(msgspec.msgpack.encode(sc))")
    return subprocess.run([sys.executable, "-c", code, str(d)], check=True, capture_output=True).stdout


def _toml_scenario(d: Path) -> bytes:
    """The scenario parsed from d/scenario.toml, as _load_in_fresh_process gives it."""
    from pbem.core import scenario as S
    sc = S.loads((d / "scenario.toml").read_bytes(), str(d / "scenario.toml"))
    return msgspec.msgpack.encode(msgspec.structs.replace(sc, path=""))


def test_the_scenario_cache_gives_the_scenario_the_toml_gives(played_example, tmp_path):
    g = _fresh(played_example, "red-devils", tmp_path)
    cache = g.dir / ".scenario-cache"
    cache.unlink(missing_ok=True)
    want = _toml_scenario(g.dir)
    assert _load_in_fresh_process(g.dir) == want              # parsed, and the cache written
    toml_sha = hashlib.sha256((g.dir / "scenario.toml").read_bytes()).hexdigest()
    assert cache.read_bytes().startswith(f"pbem-scenario {toml_sha} red-devils ".encode())
    assert _load_in_fresh_process(g.dir) == want              # from the cache
    head, _, body = cache.read_bytes().partition(b"\n")
    i = body.index(b"red")
    cache.write_bytes(head + b"\n" + body[:i] + b"blu" + body[i + 3:])    # altered: the digest fails
    assert _load_in_fresh_process(g.dir) == want
    cache.write_bytes(b"pbem-scenario 00 " + head.split(b" ", 2)[2] + b"\n" + body)   # another TOML's
    assert _load_in_fresh_process(g.dir) == want


def test_verify_parses_the_toml_and_rewrites_a_forged_scenario_cache(played_example, tmp_path):
    from pbem.core import scenario as S
    g = _fresh(played_example, "el-alamein", tmp_path)
    cache = g.dir / ".scenario-cache"
    _load_in_fresh_process(g.dir)
    head, _, body = cache.read_bytes().partition(b"\n")
    forged = msgspec.msgpack.decode(body, type=S.Scenario)
    forged.turns += 1
    body = msgspec.msgpack.encode(forged)
    parts = head.split(b" ")
    parts[4] = hashlib.sha256(body).hexdigest().encode()
    cache.write_bytes(b" ".join(parts) + b"\n" + body)
    code = ("import sys; from pathlib import Path; from pbem.engine import Game; g = Game(Path(sys.argv[1])); "
            "t = g.scenario.turns; r = g.verify(); print(t, g.scenario.turns, r.ok, *r.notes, sep='|')")
    out = subprocess.run([sys.executable, "-c", code, str(g.dir)], check=True, capture_output=True, text=True).stdout
    used, audited, ok, *notes = out.strip().split("|")
    assert int(used) == forged.turns and int(audited) == forged.turns - 1 and ok == "True"
    assert any(".scenario-cache did not match scenario.toml" in n for n in notes)
    assert _load_in_fresh_process(g.dir) == _toml_scenario(g.dir)


# --- reports read the tail -------------------------------------------------------------------

@pytest.mark.parametrize("name", PLAYED)
def test_a_report_from_the_logs_tail_says_what_it_says_from_the_whole_log(played_example, name):
    g = played_example(name).game()
    entries = g.entries()
    st, head = g.state_and_hash()
    assert head == entries[-1].hash
    last = entries[-1].seq
    sides = g.scenario.side_ids() + [REFEREE]
    for since in sorted({-1, 0, 1, last // 4, last // 2, last - 40, last - 7, last - 1, last, last + 3}):
        tail = report_entries(g, since)
        assert [en.seq for en in tail if en.seq > since] == list(range(max(since + 1, 0), last + 1))
        for side in sides:
            want = render.report_text(g, side, st, entries, since, head)
            assert render.report_text(g, side, st, tail, since, head) == want, (since, side)
        start = {u.id: u.hex for u in g.scenario.units}
        assert render.moves_since(tail, since, start) == render.moves_since(entries, since, start), since


def test_a_report_refuses_a_changed_line_in_the_tail(played_example, tmp_path):
    g = _fresh(played_example, "el-alamein", tmp_path)
    raw = g.log.path.read_bytes()
    lines = raw.split(b"\n")
    n = len(lines) - 5                                   # a line of the tail (the last four lines follow it)
    lines[n] = lines[n].replace(b'"side":"', b'"side":"x', 1) if b'"side":"' in lines[n] else lines[n] + b" "
    g.log.path.write_bytes(b"\n".join(lines))
    with pytest.raises(LogError, match="hash chain broken"):
        report_entries(g, n - 3)
    report_entries(g, n + 1)                             # the tail after it is intact


def test_the_report_command_tells_only_the_tail_since_the_last_mailed_report(played_example, tmp_path):
    from click.testing import CliRunner
    from pbem.cli import main
    g = _fresh(played_example, "kharkov", tmp_path)
    last = g.head()[0]
    g.mark_reported("german", last - 12)
    out = CliRunner().invoke(main, ["report", str(g.dir), "--as", "german"])
    assert out.exit_code == 0, out.output
    want = render.report_text(g, "german", g.state(), g.entries(), last - 12, g.head()[1])
    assert out.output == want
    assert g.last_report("german") == last - 12          # reading a report records nothing (issue 16)


# --- what a command loads -------------------------------------------------------------------

def _modules_after(code: str) -> set[str]:
    out = subprocess.run([sys.executable, "-c", code + "\nimport sys; print(' '.join(sys.modules))"],
                         check=True, capture_output=True, text=True).stdout
    return set(out.split())


def test_importing_pbem_loads_no_events_and_the_version_is_still_there():
    assert "msgspec" not in _modules_after("import pbem")
    import pbem
    assert pbem.__version__ == E.ENGINE_VERSION


def test_describing_an_event_loads_no_jinja_and_no_email():
    mods = _modules_after("from pbem.report.render import describe")
    assert "jinja2" not in mods and "email.message" not in mods


def test_pbem_state_loads_no_jinja_no_dice_and_decodes_no_line(played_example):
    d = played_example("eben-emael-12-1").dir
    Game(d).state()                                       # the cache is warm
    code = (f"from pbem.cli import main\ntry:\n    main(['state', {str(d)!r}])\nexcept SystemExit:\n    pass\n"
            "from pbem.core import events as E\nassert E._line_decoder is None, 'a line was decoded'\n"
            "assert list(E._body_decoders) == ['GameCreated'], E._body_decoders")
    mods = _modules_after(code)
    assert "jinja2" not in mods and "pbem.core.dice" not in mods


def test_event_decoders_are_built_on_first_use():
    code = ("from pbem.core import events as E; assert not E._body_decoders and E._line_decoder is None; "
            "E.decode_body('OrderGiven', b'{\"side\":\"a\",\"text\":\"end\"}'); assert list(E._body_decoders) == ['OrderGiven']")
    subprocess.run([sys.executable, "-c", code], check=True)
