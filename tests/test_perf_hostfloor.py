"""The shortcuts of an order mail's work besides its pictures (issue 29: the host's own
work, the report text, the journal and the outbox) give what the plain code gives
(correctness only: the figures come from ``tests/benchmark_host.py --no-picture``).

- the SITUATION rows of a report are written in Python (``render.situation_row``):
  the text report.txt.j2's Jinja row wrote, for every unit of every example, each
  viewer, and for odd rows (no hex, no type, no place name, formations);
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
