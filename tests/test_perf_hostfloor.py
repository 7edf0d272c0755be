"""The shortcuts of an order mail's work besides its pictures (issue 29: the host's own
work, the report text, the journal and the outbox) give what the plain code gives
(correctness only: the figures come from ``tests/benchmark_host.py --no-picture``).

- the SITUATION rows of a report are written in Python (``render.situation_row``):
  the text report.txt.j2's Jinja row wrote, for every unit of every example, each
  viewer, and for odd rows (no hex, no type, no place name, formations);
- a viewer's ``state_view`` is read once for its report's text and map;
- the decisions a game awaits are kept per game and head hash for the deadlines' syncs
  (every tick): the plain reading's, also when another process moved the head;
"""
from __future__ import annotations

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
    """A viewer's report reads its ``state_view`` once for the text and the map (letters._report):
    the text and the map are those of the plain calls, which read their own, and the view
    is left as it was (neither changes it)."""
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
            kept = copy.deepcopy(view)
            assert render.report_text(game, side, st, entries, since, head, view=view) == \
                render.report_text(game, side, st, entries, since, head)
            shared = render.map_attachments(game, side, st, entries, since, head, png=False, svg=True, view=view)
            plain = render.map_attachments(game, side, st, entries, since, head, png=False, svg=True)
            assert [(a.filename, a.data) for a in shared] == [(a.filename, a.data) for a in plain]
            assert view == kept


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
