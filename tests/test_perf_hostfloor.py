"""The shortcuts of an order mail's work besides its pictures (issue 29: the host's own
work, the report text, the journal and the outbox) give what the plain code gives
(correctness only: the figures come from ``tests/benchmark_host.py --no-picture``).

- the SITUATION rows of a report are written in Python (``render.situation_row``):
  the text report.txt.j2's Jinja row wrote, for every unit of every example, each
  viewer, and for odd rows (no hex, no type, no place name, formations);
- a viewer's ``state_view`` and counters' faces are read once for its report's text and map;
- the decisions a game awaits are kept per game and head hash for the deadlines' syncs
  (every tick): the plain reading's, also when another process moved the head;
- an incoming message's started record is written with the job's first write, and the
  spooled mails linked into the outbox, its folder fsync'd once per job: the journal and
  the mails of the plain code, with fewer writes, and a refusal crashed before its
  record is mailed once;
- ``mail.parse`` keeps the headers it parsed by name and value: every message of a
  corpus (and broken copies) is read as ``email.policy.default`` reads it;
- a mail reads every viewer's last report at once (``Game.last_reports``): each side's
  is the one ``last_report`` reads alone, whatever reported.json holds;
- a map's numbers (``mapsvg._f``) and label widths (``fontmetrics.text_width``) kept per
  value, and ``hex_corners``' angles computed once: the plain computation's;
- the legend keeps the rows it drew: a game's maps are those drawn with nothing kept;
- a mail's reports read the deadlines once for every viewer's template context;
- on the database, a state read from the cache reads the last line and its anchor in one
  query: the head, anchor and stamp read apart;
- a message's players are read once while it is dealt with: those read each time;
- the public half of the host's key is derived once per key object: the one derived anew.
"""
from __future__ import annotations

import re

import pytest

from test_perf_mailpath import _midgame

# report.txt.j2's SITUATION row before it was written in Python (the plain code)
PLAIN_ROW = ('{{ u.id.ljust(id_width) }} {{ "%-6s" | format(u.hex or "-") }} {{ u["values"] }}  '
             '{{ (u.type or "").ljust(type_width) }} {% if formation_width %}{{ (u.formation or "-").ljust('
             'formation_width) }} {% endif %}{{ u.status | join(", ") }}{% if u.hex %}{% set l = label(u.hex) %}'
             '{% if l != u.hex %}  {{ l[5:] }}{% endif %}{% endif %}')
EXAMPLES = ["kharkov", "mirages-compass", "tobruk-salient", "crete", "el-alamein", "eben-emael-12-2", "red-devils"]


def _plain_row(u: dict, id_width: int, type_width: int, formation_width: int, label) -> str:
    from pbem.report import render
    return render.env().from_string(PLAIN_ROW).render(u=u, id_width=id_width, type_width=type_width,
                                                      formation_width=formation_width, label=label)


@pytest.mark.parametrize("name", EXAMPLES)
def test_the_situation_rows_written_in_python_are_the_rows_the_template_wrote(tmp_path, name):
    from pbem.host.common import REFEREE
    from pbem.report import render
    game, _rest = _midgame(name, tmp_path / "g")
    st, head = game.state(), game.head()[1]
    label = game.scenario.board.label
    seen = 0
    for side in [*game.scenario.side_ids(), REFEREE]:
        ctx = render.report_context(game, side, st, [], 0, head)
        widths = ctx["id_width"], ctx["type_width"], ctx["formation_width"]
        for s, rows in ctx["units_by_side"].items():
            plain = "".join(f"    {_plain_row(u, *widths, label)}\n" for u in rows)
            assert ctx["situation"][s] == plain
            seen += len(rows)
            for u in rows[:3]:                      # odd rows: off the map, no type, no formation, a long status
                for odd in ({"hex": None}, {"type": None}, {"type": "a-very-long-type-name"},
                            {"formation": None, "status": ["eliminated", "disrupted"]}, {"hex": "9999"}):
                    v = dict(u, **odd)
                    for fw in ((0, 12) if "formation" in v else (0,)):   # no formation: both refuse
                        assert render.situation_row(v, widths[0], widths[1], fw, label) == \
                            _plain_row(v, widths[0], widths[1], fw, label)
    assert seen


@pytest.mark.parametrize("name", ["kharkov", "mirages-compass", "tobruk-salient", "crete"])
def test_one_view_for_a_reports_text_and_map_gives_the_plain_report(tmp_path, name):
    """A viewer's report reads its ``state_view`` and its counters' faces once for the text
    and the map (letters._report): the text and the map are those of the plain calls, which
    read their own, and the view and faces are left as they were (neither changes them)."""
    import copy

    from pbem import views
    from pbem.host.common import REFEREE
    from pbem.report import render
    game, _rest = _midgame(name, tmp_path / "g")
    st, head = game.state(), game.head()[1]
    for since in (0, max(0, st.seq - 25)):
        entries = views.report_entries(game, since)
        for side in [*game.scenario.side_ids(), REFEREE]:
            view = views.state_view(game, st, side, head)
            faced = render.faces(game, st, view["units"], side)
            kept = copy.deepcopy((view, faced))
            assert render.report_text(game, side, st, entries, since, head, view=view, faced=faced) == \
                render.report_text(game, side, st, entries, since, head)
            shared = render.map_attachments(game, side, st, entries, since, head, png=False, svg=True, view=view,
                                            faced=faced)
            plain = render.map_attachments(game, side, st, entries, since, head, png=False, svg=True)
            assert [(a.filename, a.data) for a in shared] == [(a.filename, a.data) for a in plain]
            assert (view, faced) == kept


def _hosted(tmp_path, name: str, period: str = "72h"):
    """A host (no maps) holding example ``name`` played to its middle; the rest of its steps."""
    from pbem.host import Host, init_host
    init_host(tmp_path / "host", "host@club.example", period=period, maps=False)
    host = Host.open(tmp_path / "host")
    game, rest = _midgame(name, tmp_path / "host" / "games" / "g")
    host.register(game)
    return host, game, rest


def _plain_awaited(game) -> dict:
    """The decisions the game awaits, read as the plain code read them at every sync."""
    from pbem.core.turn import Turn
    from pbem.host.common import REFEREE
    from pbem.host.deadlines import DeadlinesMixin
    st = game.state()
    items = [] if st.result is not None else Turn(game.rules, game.scenario, st).rows(REFEREE)
    return {DeadlinesMixin._await_key(st, item): item for item in items}


@pytest.mark.parametrize("name", ["el-alamein", "mirages-compass", "tobruk-salient"])
def test_the_awaited_decisions_kept_per_head_are_those_the_state_gives(tmp_path, name):
    """``_sync_deadlines`` keeps the decisions a game awaits per game and head hash (each tick
    read them again): kept or not, they are the plain reading's, also when the log is
    appended by another process (another Game object here) between two syncs, and the
    deadlines written are those a host without them writes."""
    from pbem.engine import Game
    from pbem.host import Host
    host, game, rest = _hosted(tmp_path, name)
    other = Host.open(host.cfg.root)
    for step in rest[:6]:
        for _ in range(2):                                  # read, then kept
            got = host._awaited(Game(game.dir))[1]
            assert got == _plain_awaited(Game(game.dir))
        dl = host._sync_deadlines(Game(game.dir))
        other.__dict__.pop("_awaited_at", None)             # the plain code: read every time
        assert other._sync_deadlines(Game(game.dir)) == dl
        side = next(s for s in game.scenario.side_ids() if step.rsplit(".", 1)[0].endswith("-" + s))
        writer = Game(game.dir)                             # another process moves the head
        from conftest import EXAMPLES_DIR
        assert writer.submit(side, (EXAMPLES_DIR / name / step).read_text(), at="2026-01-01T00:00:00Z").refused is None
    assert host._awaited(Game(game.dir))[1] == _plain_awaited(Game(game.dir))


TURN1 = "move 8Pz 0612 0712 0812\nend\nattack 0913 with 8Pz\nend\n"


def _host_day(root, monkeypatch, plain: bool) -> tuple[list, list, int, int]:
    """A host's mails (the host at ``root`` made by ``_host_copy``): orders accepted, orders
    with a wrong token (quarantined), a bounce (set aside), a HELP.  ``plain``: every job's
    started record written at once, and each mail written again into the outbox, its folder
    fsync'd after every mail.
    Returns the journal records, the outbox (names and bytes), how many times a
    journal record was written and how many times the outbox folder was fsync'd."""
    import json
    import random

    from mail_helpers import AXIS, BRITISH, deliver, message
    from pbem.host import Host
    from pbem.host.journal import JournalMixin
    if plain:
        start = JournalMixin._start
        monkeypatch.setattr(JournalMixin, "_start", lambda self, key, write=True, **kw: start(self, key, True, **kw))
        from pbem.host.spool import SpoolMixin
        transport = SpoolMixin._transport
        monkeypatch.setattr(SpoolMixin, "_transport", lambda self, batch=False: transport(self, False))
        from pbem.host import mail as M
        monkeypatch.delattr(M.Outbox, "send_file")         # each mail written again into the outbox
    import pbem.log
    synced = []
    fsync_dir = pbem.log._fsync_dir
    monkeypatch.setattr(pbem.log, "_fsync_dir", lambda path: (synced.append(path), fsync_dir(path))[1])
    host = Host.open(root)
    sec = json.loads((root / "games" / "g1" / "player-secrets.json").read_text())
    writes = []
    put = host.store.job_put
    host.store.job_put = lambda key, rec: (writes.append(key), put(key, rec))[1]
    random.seed(29)                                     # the mails' boundaries
    deliver(host, message(AXIS, f"Token: {sec['axis']}\n{TURN1}", mid="m1@example.org"))
    deliver(host, message(BRITISH, "Token: not-the-secret\npass\n", mid="m2@example.org"))
    deliver(host, message(AXIS, "Delivery failed", mid="m3@example.org", extra={"Auto-Submitted": "auto-replied"}))
    host.poll()
    deliver(host, message(BRITISH, f"Token: {sec['british']}\nHELP\n", mid="m4@example.org"))
    host.poll()
    jobs = sorted((r.get("key", ""), sorted(r.items())) for r in host.store.jobs())
    out = [(f.name, re.sub(rb"(?m)^Date: .*$", b"Date: -", f.read_bytes()))     # the clock's
           for f in sorted(host.outbox_path.glob("*.eml"))]
    return jobs, out, len(writes), sum(1 for p in synced if p == host.outbox_path)


def _host_copy(tmp_path, monkeypatch) -> tuple:
    """One host with a game (its secrets and key made once), copied twice."""
    import json
    import shutil

    from mail_helpers import make_host, new_game
    monkeypatch.setenv("PBEM_CLOCK", "2026-01-01T00:00:00Z")
    host = make_host(tmp_path / "made")
    new_game(host, dice=[5, 3, 2, 4, 1, 6, 3, 3, 2, 5, 4, 1] * 4)
    copies = []
    for name in ("plain", "shortcut"):
        root = shutil.copytree(tmp_path / "made", tmp_path / name, symlinks=True)
        reg = root / "state" / "games.json"
        reg.write_text(json.dumps({"g1": str(root / "games" / "g1")}))
        copies.append(root)
    return copies


def test_a_mails_started_record_written_with_its_first_write_keeps_the_same_journal_and_mails(tmp_path, monkeypatch):
    """An incoming message's started record is written by the job's first write (its
    applying record, its done record, or before its mails are spooled), not on its own just
    before it; a spooled mail is linked into the outbox (not written again), the outbox
    folder fsync'd once per job, not once per mail.  The journal and the mails are those
    of the plain code, with fewer journal writes."""
    first, second = _host_copy(tmp_path, monkeypatch)
    with monkeypatch.context() as m:
        plain = _host_day(first, m, plain=True)
    lazy = _host_day(second, monkeypatch, plain=False)
    assert lazy[0] == plain[0] and len(lazy[0]) >= 5
    assert [n for n, _ in lazy[1]] == [n for n, _ in plain[1]] and lazy[1] == plain[1]
    assert lazy[2] < plain[2]                               # journal writes
    sent = [n for n, _ in lazy[1] if not n.startswith("000001-")]      # after the welcomes (job 1)
    assert plain[3] == len(sent) > lazy[3] == len({n.split("-")[0] for n in sent})   # outbox fsyncs: once a job


@pytest.mark.parametrize("point", ["started", "spool-written", "spooled"])
def test_a_refused_mail_crashed_before_its_record_is_answered_once(tmp_path, monkeypatch, point):
    """A refused mail's started record is written before its answer is spooled
    (``_keep_started``): a crash after that finds the job, and the refusal is mailed once."""
    from mail_helpers import BRITISH, answers, crash_once, deliver, message
    from pbem.host import Host, SimulatedCrash
    root, _ = _host_copy(tmp_path, monkeypatch)
    deliver(Host.open(root), message(BRITISH, "Token: not-the-secret\npass\n", mid="m2@example.org"))
    crash_once(monkeypatch, point)
    with pytest.raises(SimulatedCrash):
        Host.open(root).poll()
    again = Host.open(root)
    again.poll()
    again.poll()
    assert len(answers(again, "m2@example.org")) == 1


def _corpus() -> list[bytes]:
    """Messages of every shape the host reads: plain, HTML, both, flowed, encoded words, odd
    charsets, bounces, machine mail, broken MIME, garbage."""
    from mail_helpers import AXIS, message
    html = "<html><body><p>Token:&nbsp;abc</p><div>move 8Pz 0612 <b>0712</b></div><blockquote>x</blockquote></body></html>"
    out = [message(AXIS, "Token: abc\nmove 8Pz 0612 0712\nend\n"), message(AXIS, None, html=html),
           message(AXIS, "end\n", html="<p>move 8Pz 0612</p>"),
           message("Müller <mueller@example.org>", "end\n", subject="=?utf-8?q?[pbem_g1]_Befehle_f=C3=BCr?= Achse"),
           message(AXIS, "end", extra={"Auto-Submitted": "auto-replied"}), message(AXIS, "end", extra={"Precedence": "bulk"}),
           message(AXIS, "end", extra={"X-Failed-Recipients": "x@y", "References": "<a:1@b> <c@d>",
                                       "In-Reply-To": "<pbem.1.0@club.example>"}),
           message("MAILER-DAEMON@x.org", "end"), message(AXIS, "end\n" + "#" * 3000),
           b"From: a@x.org\nSubject: [pbem g] o\nContent-Type: text/plain; charset=utf-8; format=flowed; delsp=yes\n\n"
           b"attack 0911 with 104 \n0810 ar 104\nend\n",
           b"From: a@x.org\nSubject: [pbem g] o\nContent-Type: text/plain; charset=klingon\n"
           b"Content-Transfer-Encoding: base64\n\nbW92ZSA4UHogMDYxMg==!!\n",
           b"From: a@x.org\nContent-Type: multipart/mixed; boundary=\"B\"\n\nno parts here\n",
           b"From: a@x.org\nContent-Type: image/png\n\n\x89PNG\n",
           b"From: a@x.org\nContent-Type: multipart/report; report-type=delivery-status; boundary=\"R\"\n\n--R\n"
           b"Content-Type: text/plain\n\nfailed\n--R--\n",
           b"", b"\x00\xff" * 100, b"From: <<<>>>\nSubject: =?bad?=\n\n", b"Content-Type: multipart/x\n\n--",
           b"From: \xe9t\xe9@x.org\nSubject: caf\xe9\nMessage-ID: <\xe9@x>\n\nend\n"]
    import random
    rng = random.Random(29)
    for raw in list(out):                                   # and each a little broken
        for _ in range(3):
            b = bytearray(raw)
            for _ in range(rng.randrange(1, 6)):
                if b:
                    b[rng.randrange(len(b))] = rng.choice(b":;<>=\"\n \xff-?")
            out.append(bytes(b))
    return out


def test_a_message_read_with_its_headers_kept_is_read_as_the_plain_policy_reads_it():
    """``mail.parse`` keeps each header it parsed by name and value (``READ_POLICY``): what
    it reads of every message is what ``email.policy.default`` reads, cold or warm."""
    import dataclasses
    from email import policy

    from pbem.host import mail as M
    corpus = _corpus()
    for warm in (False, True):
        for raw in corpus:
            if not warm:
                M._HEADERS.clear()
            for limit in (0, 1000):
                assert dataclasses.asdict(M.parse(raw, limit)) == \
                    dataclasses.asdict(M.parse(raw, limit, read_policy=policy.default)), raw[:200]


@pytest.mark.parametrize("doc", [None, b"{}", b'{"axis": 12, "british": 3}', b'{"axis": "7", "british": 2.0}',
                                 b'{"axis": "x", "british": 4}', b"[1, 2]", b"not json", b'{"axis": [1]}'])
def test_every_sides_last_report_read_at_once_is_each_sides_own(tmp_path, doc):
    """A mail reads reported.json once for every viewer (``Game.last_reports``): each side's
    seq is the one ``last_report`` read alone gave, a side with no (or no readable) record 0."""
    import msgspec

    from pbem.engine import Game
    game, _rest = _midgame("el-alamein", tmp_path / "g")
    if doc is not None:
        (tmp_path / "g" / "reported.json").write_bytes(doc)
    game = Game(tmp_path / "g")

    def plain(side):                                        # last_report as it read the file alone
        try:
            return int(msgspec.json.decode(game.store.read("reported.json") or b"{}").get(side, 0))
        except (OSError, msgspec.DecodeError, ValueError, AttributeError, TypeError):
            return 0
    got = game.last_reports()
    for side in ["axis", "british", "referee", "nobody"]:
        assert got.get(side, 0) == game.last_report(side) == plain(side)


def test_the_maps_numbers_and_widths_kept_are_those_computed_each_time():
    """``mapsvg._f`` and ``fontmetrics.text_width`` keep what they computed per value (a map
    writes the same coordinates and measures the same labels at every drawing), and
    ``hex_corners`` its six angles: the plain computation's strings and floats, for every
    kind of value, kept or not."""
    import math
    import random

    from pbem.report import fontmetrics, mapsvg
    rng = random.Random(29)
    values = [0, 0.0, -0.0, 1, 1.0, True, False, -1e-9, 1e-9, 0.004999, 0.005, -0.005, 2.675, 1e21, -3.14159,
              float("inf"), float("-inf"), float("nan")] + [rng.uniform(-2000, 2000) for _ in range(3000)] + \
        [round(rng.uniform(-100, 100), rng.randrange(4)) for _ in range(3000)] + [rng.randrange(-5000, 5000) for _ in range(500)]

    def plain_f(v):
        s = f"{v:.2f}".rstrip("0").rstrip(".")
        return "0" if s in ("", "-0") else s
    for _ in range(2):                                      # computed, then kept
        for v in values:
            assert mapsvg._f(v) == plain_f(v), v
    texts = ["", "Tobruk", "El Adem", "Sidi Rezegh", "Müller's ridge", "x" * 40, "✠ κ", 12, 3.5, True]
    for _ in range(2):
        for t in texts:
            for size in (9.5, 11.0, 16.0, 12):
                for bold, italic in ((False, False), (True, False), (False, True)):
                    table = fontmetrics._TABLES["bold" if bold else "oblique" if italic else "regular"]
                    plain = sum(table.get(c, table["M"]) for c in str(t)) * size / 1000.0
                    assert fontmetrics.text_width(t, size, bold, italic) == plain
    for _ in range(200):
        cx, cy, r = rng.uniform(-500, 3000), rng.uniform(-500, 3000), rng.choice([mapsvg.HEX_R, 9, 27.5, 1.4])
        assert mapsvg.hex_corners(cx, cy, r) == [(cx + r * math.cos(math.radians(60 * i)),
                                                  cy + r * math.sin(math.radians(60 * i))) for i in range(6)]


@pytest.mark.parametrize("name", ["tobruk-salient", "mirages-compass", "kharkov"])
def test_a_legend_drawn_a_row_at_a_time_is_the_legend_drawn_whole(tmp_path, name):
    """The legend keeps each row it drew by heading, entries and place (``legend._rows``):
    the maps of a game's steps, every viewer, are the maps drawn with nothing kept."""
    from conftest import EXAMPLES_DIR
    from pbem import views
    from pbem.engine import Game
    from pbem.host.common import REFEREE
    from pbem.report import legend, mapsvg, render
    from pbem.report.mapboard import board_layers
    game, rest = _midgame(name, tmp_path / "g")
    for step in rest[:4]:
        game = Game(tmp_path / "g")
        st, head = game.state(), game.head()[1]
        entries = views.report_entries(game, max(0, st.seq - 20))
        for side in [*game.scenario.side_ids(), REFEREE]:
            mapsvg._drawn.clear()
            kept = render.report_svg(game, side, st, entries, max(0, st.seq - 20), head)
            mapsvg._drawn.clear()
            legend._rows.clear()
            board_layers(game.scenario).parts.clear()
            assert render.report_svg(game, side, st, entries, max(0, st.seq - 20), head) == kept
        who = next(s for s in game.scenario.side_ids() if step.rsplit(".", 1)[0].endswith("-" + s))
        assert game.submit(who, (EXAMPLES_DIR / name / step).read_text(), at="2026-01-01T00:00:00Z").refused is None


@pytest.mark.parametrize("name", ["el-alamein", "tobruk-salient"])
def test_a_mails_deadlines_read_once_for_every_viewer_give_each_viewers_context(tmp_path, name):
    """The reports of a mail read the game's deadlines once for every viewer's template
    context (``_context(..., dl=)``): each context is the one that reads them itself, and the
    deadlines are left as they were."""
    import copy

    from pbem.core.turn import Turn
    from pbem.engine import Game
    from pbem.host.common import REFEREE
    host, game, _rest = _hosted(tmp_path, name)
    game = Game(game.dir)
    host._sync_deadlines(game)
    st, head = game.state_and_hash()
    turn = Turn(game.rules, game.scenario, st)
    dl = host._deadlines(game)
    assert dl.get("waits")
    kept = copy.deepcopy(dl)
    for viewer in [*game.scenario.side_ids(), REFEREE]:
        assert host._context(game, viewer, st, head, turn, dl) == host._context(game, viewer, st, head, turn)
    assert dl == kept


def test_the_databases_head_and_anchor_read_at_once_are_those_read_apart(pg_url, tmp_path):
    """On the database a state read from the cache reads the last line and the heads row in
    one query (``PgEventLog.head_anchored``): the head, the anchor and the stamp are those
    ``head()``, ``recorded_head()`` and ``stamp()`` read apart, at every step, with sealed
    lines, and the state is the one replayed from the log."""
    from conftest import EXAMPLES_DIR
    from pbem.core.state import state_bytes
    from pbem.engine import Game
    from pbem.store.pg import PgStore
    import tomllib
    store = PgStore(pg_url, cache_root=tmp_path / "cache")
    name = "tobruk-salient"                                 # sealed lines (hidden units, notes)
    book = tomllib.loads((EXAMPLES_DIR / name / "playbook.toml").read_text())
    gid = book["id"]                                        # the example's dice follow its id
    game = Game.create(store.game(gid), book["scenario"], book.get("players", {}), seed_hex=book.get("seed"),
                       game_id=gid, at="2026-01-01T00:00:00Z")
    for step in book["steps"][:8]:
        log = game.log
        seq, head, anchor = log.head_anchored()
        assert (seq, head) == log.head() and anchor == log.recorded_head()
        assert log.stamp(anchor) == log.stamp()
        assert state_bytes(Game(store.game(gid)).state()) == state_bytes(game.replay(game.iter_entries()))
        side = next(s for s in game.scenario.side_ids() if step.rsplit(".", 1)[0].endswith("-" + s))
        assert game.submit(side, (EXAMPLES_DIR / name / step).read_text(), at="2026-01-01T00:00:00Z").refused is None
    store.close()


def test_a_messages_players_read_once_are_those_read_each_time(tmp_path, monkeypatch):
    """While a message is dealt with (``ingest``), a game's players are read once
    (``_players_read``): they are the players read each time, before and after a new address
    (`pbem host rotate-secret --email`, which reads them anew), and nothing is kept after."""
    from mail_helpers import BRITISH, deliver, message
    from pbem.engine import Game
    from pbem.host import Host
    root, _ = _host_copy(tmp_path, monkeypatch)
    host = Host.open(root)
    game = Game(root / "games" / "g1")
    plain = host._players(game)
    host._players_read = {}
    assert host._players(game) == plain and host._players(game) == plain
    host.rotate_secret(game, "british", email="montgomery@example.org")
    assert host._players(game) == dict(plain, british="montgomery@example.org")
    host._players_read = None
    assert host._players(game) == dict(plain, british="montgomery@example.org")
    deliver(host, message(BRITISH, "Token: x\npass\n", mid="m9@example.org"))
    host.poll()
    assert host._players_read is None


def test_a_keys_public_half_kept_is_the_one_derived_each_time(tmp_path):
    """``sshsig._public_of`` keeps the public half of each private key object it derived
    (the host signs every receipt and head with one key): it is the one derived anew, for
    every kind of key, and the signatures made with it check."""
    from cryptography.hazmat.primitives.asymmetric import ec, ed25519, rsa
    from cryptography.hazmat.primitives.serialization import Encoding, PublicFormat

    from pbem.trust import receipt as R
    from pbem.trust import sshsig
    keys = [ed25519.Ed25519PrivateKey.generate(), ed25519.Ed25519PrivateKey.generate(),
            ec.generate_private_key(ec.SECP256R1()), rsa.generate_private_key(public_exponent=65537, key_size=2048)]
    for _ in range(2):
        for k in keys:
            plain = sshsig.parse_public_key(k.public_key().public_bytes(Encoding.OpenSSH, PublicFormat.OpenSSH).decode())
            got = sshsig._public_of(k)
            assert (got.type, got.blob, got.line) == (plain.type, plain.blob, plain.line)
    host = R.host_key(tmp_path)
    text = R.sign(host, "g1", 12, "ab" * 32, "move 1 0101")
    assert R.read(text, R.public_line(host)).seq == 12
