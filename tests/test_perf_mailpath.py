"""The shortcuts of the host's mail path (issue 29, the part besides the map pictures)
give what the plain code gives (correctness only: the figures come from
tests/benchmark_host.py).

- ``host.mailout`` writes an outgoing mail's bytes directly: the very bytes of the
  standard library's EmailMessage (``mail.build``) for the host's own mails and for
  random ones, and the plain code writes every mail it does not take; its boundary is
  the generator's;
- ``FileHostStore.hosted`` finds one game as ``games().get`` does;
- the host key is read once per file, again when the file changes, its mode checked
  every time;
- one Turn for every viewer's report and one ``render.map_parts`` for a map's SVG and
  close-up give the plain calls' text, SVG, focus and attachments;
- ``staging.stage(..., trial=)`` stages what a plain stage does, and only while the
  head stays;
- ``players._addresses`` (memoised) gives the parse of the given addresses.
(``views._marked``, which now counts a block's newlines once, is checked against a
line-by-line scan in tests/test_perf_host.py.)
"""
from __future__ import annotations

import random
import string

import pytest

from pbem.host import mail as M
from pbem.host import mailout
from pbem.report.mailparts import Attachment

DATE_GMT = "Wed, 02 Dec 2026 05:38:03 GMT"
DATE = "Wed, 02 Dec 2026 05:38:03 +0000"
BOUNDARY = "===============1234567890123456789=="


def _plain(monkeypatch, *args, **kw) -> bytes:
    """The plain code's bytes: mail.build, the generator, with the date and boundary fixed."""
    monkeypatch.setattr(M, "formatdate", lambda **_k: DATE_GMT)
    msg = M.build(*args, **kw)
    if kw.get("attachments"):
        msg.set_boundary(BOUNDARY)
    return bytes(msg)


def _direct(*args, **kw):
    return mailout._direct(*args[:4], kw["message_id"], kw.get("attachments", ()), kw.get("in_reply_to", ""),
                           kw.get("references", ()), kw.get("headers") or {}, kw.get("auto", "auto-generated"),
                           kw.get("sender_name", ""), BOUNDARY, DATE)


def _random_text(rng: random.Random, pool: str, n: int) -> str:
    return "".join(rng.choice(pool) for _ in range(rng.randrange(n)))


def _mostly(rng: random.Random, plain, *odd):
    """``plain`` four times in five, else one of ``odd``."""
    return plain if not odd or rng.random() < 0.8 else rng.choice(odd)


@pytest.mark.parametrize("seed", range(12))
def test_a_mail_written_directly_is_the_mail_the_email_package_writes(monkeypatch, seed):
    rng = random.Random(seed)
    ascii_words = string.ascii_letters + string.digits + " " * 8 + "[]:;.,!?()<>@\"'=-_/"
    wide = ascii_words + "éü€\u202e\x85\x1b\t\r"
    taken = 0
    for _ in range(150):
        pool = wide if rng.random() < 0.1 else ascii_words
        subject = _random_text(rng, pool, 80) + _mostly(rng, "", "=?utf-8?q?x?=", " " * 3, "x" * 990)
        body_lines = [_random_text(rng, pool if rng.random() < 0.97 else wide, 100) for _ in range(rng.randrange(30))]
        if rng.random() < 0.1:
            body_lines.append("y" * rng.choice([997, 998, 999, 1200]))
        if rng.random() < 0.1:
            body_lines.append("--" + BOUNDARY)
        body = rng.choice(["\n", "\r\n", "\r"]).join(body_lines) + rng.choice(["", "\n", "\n\n"])
        atts = [Attachment(rng.randbytes(rng.choice([0, 1, 746, 747, 748, 5000])), "image",
                           rng.choice(["png", "svg+xml"]), rng.choice(["g-seq1-a.png", "map.svg", "a b.png", "é.png"]))
                for _ in range(rng.choice([0, 0, 1, 2]))]
        kw = dict(message_id=_mostly(rng, "pbem.000001-ab.0@club.example", "a:b@c", "x@y"),
                  attachments=atts, in_reply_to=_mostly(rng, rng.choice(["", "m1@players.example"]), "a=?b@c"),
                  references=rng.choice([[], ["<pbem.g.welcome.a@club.example>"], ["<r@x>", "<s@y>", "<r@x>"]]),
                  headers=_mostly(rng, {"X-pbem-Kind": "answer", "X-pbem-Side": "german", "X-pbem-Seq": "12"}, {},
                                  {"X-pbem-Side": "a  b"}, {"X-pbem-Outcome": "accepted é"}, {"Reply-To": "a@b.example"}, {"Keywords": "a, b"}),
                  auto=rng.choice(["auto-generated", "auto-replied"]),
                  sender_name=_mostly(rng, rng.choice(["", "Benchmark host"]), "J. Smith", "Host (club)", "Zoë"))
        args = ("host@club.example", rng.choice(["p@players.example", "P.Q+r@x-y.example"]), subject, body)
        want = _plain(monkeypatch, *args, **kw)
        got = _direct(*args, **kw)
        if got is not None:
            taken += 1
            assert got == want, (subject, body, kw)
    assert taken > 10                      # the direct path is taken for most plain mails


def test_the_hosts_own_mails_are_written_directly_and_as_the_email_package_writes_them(tmp_path, monkeypatch):
    """Every mail a host writes for a played game (welcome, answers, reports with their maps,
    a refusal) goes the direct way and is byte for byte the plain code's mail."""
    import sys
    from pathlib import Path
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    import benchmark_host as BH
    monkeypatch.setenv("PBEM_CLOCK", BH.AT)
    seen = []
    real = mailout.message_bytes

    def spy(*args, **kw):
        seen.append((args, dict(kw)))
        return real(*args, **kw)
    monkeypatch.setattr(mailout, "message_bytes", spy)
    host = BH.make_host(tmp_path / "host")
    g = BH.new_game(host, "tobruk-r33", "g")
    host.welcome(g)
    steps = BH.book("tobruk-r33")["steps"]
    for i, step in enumerate(steps[:3]):
        BH._deliver(host, BH.order_mail(g, BH.side_of(g, step), (BH.EXAMPLES / "tobruk-r33" / step).read_text(),
                                        f"m{i}@bench"))
        assert [o.status for o in host.poll()] == ["accepted"]
    BH._deliver(host, BH.order_mail(g, BH.side_of(g, steps[3]), "HELP\nnonsense order here", "bad@bench"))
    host.poll()
    assert len(seen) >= 10 and any(kw.get("attachments") for _a, kw in seen)
    for args, kw in seen:
        kw.pop("boundary", None), kw.pop("date", None)
        got = _direct(*args, **kw)
        assert got is not None, (args[:3], kw.get("headers"))
        assert got == _plain(monkeypatch, *args, **kw)


@pytest.mark.parametrize("lines", [[], ["--B"], ["--B", "--B.0--", "x--B"], ["--B--", " --B.1"], ["--B.0"]])
def test_the_boundary_is_the_one_the_generator_picks(monkeypatch, lines):
    """Made longer while a line of the text reads as it (email.generator._make_boundary)."""
    import email.generator as G
    token = 1234567890123456789
    b = "=" * 15 + "%019d" % token + "=="
    text = "\n".join(ln.replace("B", b) for ln in ["hello", *lines, "bye"]).encode()
    monkeypatch.setattr(random, "randrange", lambda _n: token)
    assert mailout._boundary(text) == G.BytesGenerator._make_boundary(text)


def test_one_hosted_game_is_the_one_the_whole_list_gives(tmp_path):
    """``FileHostStore.hosted(gid)`` reads the registry, and the games folder only for an id
    the registry does not give: the same folder as ``games().get(gid)``, whatever the case."""
    import shutil

    from pbem.engine import Game
    from pbem.host import Host, init_host
    init_host(tmp_path / "h", "host@club.example", period="off")
    host = Host.open(tmp_path / "h")
    gdir = host.cfg.games_dir
    made = {}
    for gid in ("reg", "loose", "gone"):
        made[gid] = Game.create(gdir / gid, "tobruk-r33", {}, seed_hex="00" * 32, game_id=gid)
    host.register(made["reg"])
    host.register(made["gone"])
    elsewhere = Game.create(tmp_path / "elsewhere", "tobruk-r33", {}, seed_hex="00" * 32, game_id="twin")
    host.register(elsewhere)
    Game.create(gdir / "twin-copy", "tobruk-r33", {}, seed_hex="00" * 32, game_id="twin")   # registered id wins
    (gdir / "gone" / "log.jsonl").unlink()                      # registered, its log lost
    for gid in ("reg", "loose", "gone", "twin", "nobody"):
        assert host.hosted(gid) == host.games().get(gid), gid
    assert host.hosted("twin") == tmp_path / "elsewhere" and host.hosted("loose") == gdir / "loose"
    (host.state_dir / "games.json").write_text("{")              # a broken registry: the folder scan
    assert host.hosted("reg") == host.games().get("reg") == gdir / "reg"
    shutil.rmtree(gdir / "loose")
    assert host.hosted("loose") is None


def test_the_host_key_is_read_again_when_its_file_changes(tmp_path):
    from pbem.trust import receipt as R
    from pbem.trust import sshsig
    k1 = R.host_key(tmp_path)
    assert R.host_key(tmp_path) is R.host_key(tmp_path)              # read once
    pub1 = R.public_line(k1)
    (tmp_path / R.KEY_NAME).unlink()
    k2 = R.host_key(tmp_path)                                        # a new key made
    assert R.public_line(R.host_key(tmp_path)) == R.public_line(k2) != pub1
    (tmp_path / R.KEY_NAME).chmod(0o644)
    with pytest.raises(sshsig.SigError):
        R.host_key(tmp_path)                                         # the mode is checked every time


def _midgame(name: str, into):
    """An example played to the middle of its playbook."""
    import tomllib

    from conftest import EXAMPLES_DIR
    from pbem.engine import Game
    folder = EXAMPLES_DIR / name
    book = tomllib.loads((folder / "playbook.toml").read_text())
    game = Game.create(into, book["scenario"], book.get("players", {}), seed_hex=book.get("seed"),
                       game_id=book.get("id"), at="2026-01-01T00:00:00Z")
    steps = book["steps"]
    for step in steps[:len(steps) // 2]:
        side = next(s for s in game.scenario.side_ids() if step.rsplit(".", 1)[0].endswith("-" + s))
        assert game.submit(side, (folder / step).read_text(), at="2026-01-01T00:00:00Z").refused is None
    return Game(into), steps[len(steps) // 2:]


@pytest.mark.parametrize("name", ["kharkov", "mirages-compass", "tobruk-salient", "crete", "eben-emael-12-2"])
def test_one_turn_and_one_map_reading_for_every_viewer_give_the_plain_reports(tmp_path, name):
    """A mail's reports read the state's Turn once for every viewer, and a map's view and
    trails once for its SVG and its close-up (``render.map_parts``): the text, the SVG, the
    close-up's focus and the attachments are those of the plain calls, which read their own."""
    from pbem import views
    from pbem.core.turn import Turn
    from pbem.host.common import REFEREE
    from pbem.report import render
    game, _rest = _midgame(name, tmp_path / "g")
    st, head = game.state(), game.head()[1]
    turn = Turn(game.rules, game.scenario, st)
    for since in (0, max(0, st.seq - 25)):
        entries = views.report_entries(game, since)
        for side in [*game.scenario.side_ids(), REFEREE]:
            assert render.report_text(game, side, st, entries, since, head, turn=turn) == \
                render.report_text(game, side, st, entries, since, head)
            parts = render.map_parts(game, side, st, entries, since, head, turn)
            assert render.report_svg(game, side, st, entries, since, head, parts=parts) == \
                render.report_svg(game, side, st, entries, since, head)
            assert render.focus_points(game, side, st, entries, since, parts) == \
                render.focus_points(game, side, st, entries, since)
            shared = render.map_attachments(game, side, st, entries, since, head, png=False, svg=True, turn=turn)
            plain = render.map_attachments(game, side, st, entries, since, head, png=False, svg=True)
            assert [(a.filename, a.data) for a in shared] == [(a.filename, a.data) for a in plain]


def test_a_draft_is_staged_with_its_check_only_while_the_head_stays(tmp_path):
    """``staging.stage(..., trial=check)`` (the host's DRAFT and `pbem order --stage` check once)
    stages what a plain ``stage`` stages and returns the same check; a check made at another
    head is not taken: the orders are checked again."""
    from pbem import staging
    game, rest = _midgame("el-alamein", tmp_path / "g")
    step = rest[0]
    side = next(s for s in game.scenario.side_ids() if step.rsplit(".", 1)[0].endswith("-" + s))
    from conftest import EXAMPLES_DIR
    text = (EXAMPLES_DIR / "el-alamein" / step).read_text()
    trial = game.check(side, text)
    got = staging.stage(game, side, text, at="2026-01-01T00:00:00Z", trial=trial)
    held = staging.staged(game, side)
    plain = staging.stage(game, side, text, at="2026-01-01T00:00:00Z")
    assert got is trial and staging.staged(game, side) == held
    assert (got.refused, got.seq, got.head, [a.text for a in got.applied]) == \
        (plain.refused, plain.seq, plain.head, [a.text for a in plain.applied])
    other = game.submit(next(s for s in game.scenario.side_ids() if s != side), "press hello", at="2026-01-01T00:00:00Z")
    assert other.refused is None
    again = staging.stage(game, side, text, at="2026-01-01T00:00:00Z", trial=trial)   # the head moved
    assert again is not trial and again.head == game.head()[1] != trial.head


def test_the_players_addresses_read_once_are_those_read_each_time():
    """``players._addresses`` (memoised) gives what parsing the given addresses gives."""
    from pbem.host import players as P
    cases = [(("axis", "Axis Player <AXIS@x.example>"), ("british", "b@y.example")),
             (("axis", "bad address"), ("british", "")), (("axis", None),), (("a", "x@y.example\nBcc: z@w"),)]
    for given in cases:
        assert P._addresses(given) == P._addresses.__wrapped__(given)
    assert P._addresses(cases[0]) == (("axis", "axis@x.example"), ("british", "b@y.example"))
    assert P._addresses(cases[1]) == ()


@pytest.mark.parametrize("name", ["el-alamein", "kharkov", "red-devils"])
def test_the_units_last_moves_kept_between_reports_are_those_the_log_gives(tmp_path, name):
    """``views.report_entries`` keeps each unit's last lines before a report's tail per log
    file (``views._moves_before``) and reads only the lines after what it read before: the
    entries are those of the plain backwards search, for a later ``since``, an earlier one
    (read again), and after the file was replaced by another."""
    import shutil

    from pbem import views
    game, rest = _midgame(name, tmp_path / "g")
    seqs = [0, 3, game.head()[0] // 3, game.head()[0] // 2, game.head()[0] - 2, game.head()[0] - 1]

    def plain(since):                                           # the search without what is kept
        kept, real = dict(views._MOVES), views._moves_before
        views._moves_before = lambda *a, **k: None
        try:
            return views.report_entries(game, since, keep=True)
        finally:
            views._moves_before = real
            views._MOVES.clear()
            views._MOVES.update(kept)
    for order in (seqs, list(reversed(seqs)), seqs[::2] + seqs[1::2]):
        views._MOVES.clear()
        for since in order:
            assert views.report_entries(game, since, keep=True) == plain(since), since
    assert views._MOVES                                         # kept, and used above
    views._MOVES.clear()
    assert views.report_entries(game, seqs[3]) == plain(seqs[3]) and not views._MOVES   # `pbem report`: nothing kept
    views.report_entries(game, seqs[3], keep=True)
    kept = dict(views._MOVES)
    shutil.copy(game.dir / "log.jsonl", tmp_path / "copy")       # another file at the same path
    (game.dir / "log.jsonl").unlink()
    shutil.copy(tmp_path / "copy", game.dir / "log.jsonl")
    views._MOVES.update(kept)
    assert views.report_entries(game, seqs[3], keep=True) == plain(seqs[3])


@pytest.mark.parametrize("chunk", [7, 64, 1000, 1 << 20])
def test_the_marked_lines_from_a_start_are_those_a_line_by_line_scan_finds(tmp_path, chunk):
    """``views._marked(..., start=)`` (what ``_moves_before`` reads after its last read) stops
    at ``start`` and numbers the lines as a line-by-line scan of that part does."""
    from pbem import views
    rng = random.Random(chunk)
    words = [b'{"kind":"UnitMoved","unit":"A","path":["0101"]}', b'{"kind":"PressSent","text":"hi"}', b"x" * 150]
    lines = [rng.choice(words) + str(i).encode() for i in range(300)]
    path = tmp_path / "log.jsonl"
    path.write_bytes(b"".join(ln + b"\n" for ln in lines))
    marks = (b'"path"',)
    for first, cut in ((0, 300), (120, 300), (120, 121), (299, 300), (50, 200), (200, 200)):
        start = sum(len(ln) + 1 for ln in lines[:first])
        end = sum(len(ln) + 1 for ln in lines[:cut])
        got = list(views._marked(path, end, cut - 1, marks, chunk=chunk, start=start))
        assert got == [(k, ln) for k, ln in reversed(list(enumerate(lines))) if first <= k < cut and b'"path"' in ln]
