"""`pbem replay`: one self-contained HTML page to step through a game.

The page needs no server and no network (it opens from a mail attachment):
the map after every step (the SVG of ``render.report_svg``), a slider and
step buttons (keyboard: left/right, home/end), the events of the step, the
explanation of the step (``explain.Explainer``) and the head hash after it.

A step is the opening of the game, then one order with every event it
produced, then the seed's reveal.  The maps of all steps share most of their
lines (the terrain), so the page stores every distinct SVG line once and each
step's map as runs of line numbers; the browser joins them back.

A side's page is built from that side's view only: every event through
``render.describe``/``views.visible_event``, the state through
``views.state_view``, the maps through ``report_svg`` for that side, the
explanations through an Explainer for that side.  Nothing of the referee's
is put in a side's page and hidden; it is never written.
"""
from __future__ import annotations

import json

from jinja2 import Environment, FileSystemLoader, StrictUndefined, select_autoescape

from pbem.core import events as E
from pbem.core.turn import step_line
from pbem.engine import Game
from pbem.referee.explain import Explainer, explain_text
from pbem.report.render import TEMPLATES, describe, report_svg
from pbem.views import REFEREE

_env: Environment | None = None


def _template():
    global _env
    if _env is None:
        _env = Environment(loader=FileSystemLoader(str(TEMPLATES)), undefined=StrictUndefined,
                           autoescape=select_autoescape(["html", "j2"], default_for_string=True,
                                                        default=True),
                           trim_blocks=True, lstrip_blocks=True)
    return _env.get_template("replay.html.j2")


class _Maps:
    """The maps of all steps, stored compactly: every distinct SVG line once,
    and each map as a delta against the map before it: a list of
    numbers (a line of ``lines``) and pairs ``[a, n]`` (n lines of the previous
    map from its line a).  The page rebuilds map k from map k-1."""

    def __init__(self):
        self.index: dict[str, int] = {}
        self.lines: list[str] = []
        self.prev: list[int] = []

    def add(self, svg: str) -> list:
        lines = svg.split("\n")
        cur = list(map(self.index.get, lines))
        for k, i in enumerate(cur):
            if i is None:
                line = lines[k]
                i = self.index.get(line)              # twice in this map
                if i is None:
                    i = self.index[line] = len(self.lines)
                    self.lines.append(line)
                cur[k] = i
        ops = _delta(self.prev, cur)
        self.prev = cur
        return ops


def _delta(prev: list[int], cur: list[int]) -> list:
    """``cur`` as runs of ``prev`` and single lines: a line starts a run where the
    last run ended if ``prev`` goes on with it there, else where ``prev`` first has
    it, and the run goes on as far as both agree (measured by comparing slices,
    doubling then halving); a line ``prev`` lacks goes alone.  A step changes a few
    lines of a map, so the runs are long; which runs are chosen changes only the
    size of the page, never the map the browser rebuilds."""
    first = dict(zip(reversed(prev), range(len(prev) - 1, -1, -1)))
    ops: list = []
    end, n_prev = 0, len(prev)                        # where the last run ended in prev
    j, m = 0, len(cur)
    while j < m:
        x = cur[j]
        a = end if end < n_prev and prev[end] == x else first.get(x)
        if a is None:
            ops.append(x)
            j += 1
            continue
        n = _agree(prev, a, cur, j)
        ops.append([a, n] if n > 1 else x)
        end = a + n
        j += n
    return ops


def _agree(a: list[int], i: int, b: list[int], j: int) -> int:
    """How many items ``a[i:]`` and ``b[j:]`` have in common from their start (>= 1)."""
    most = min(len(a) - i, len(b) - j)
    lo, step = 1, 1
    while lo + step <= most and a[i + lo:i + lo + step] == b[j + lo:j + lo + step]:
        lo += step
        step *= 2
    while step > 1:                                   # a[i:i+lo] == b[j:j+lo]; the next step did not hold
        step //= 2
        if lo + step <= most and a[i + lo:i + lo + step] == b[j + lo:j + lo + step]:
            lo += step
    return lo


def script_json(data) -> str:
    """JSON safe inside <script>: no '<', '>' or '&' can end the element or open a comment."""
    text = json.dumps(data, ensure_ascii=False, separators=(",", ":"))
    return (text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")
            .replace("\u2028", "\\u2028").replace("\u2029", "\\u2029"))


def _label(game: Game, view: dict) -> str:
    return step_line(game.scenario, view)


def page_data(game: Game, viewer: str = REFEREE) -> dict:
    """Everything the page shows, for ``viewer`` only."""
    sc = game.scenario
    entries = game.entries()
    x = Explainer(game, viewer, entries)
    steps = x.steps()
    x.states(range(-1, entries[-1].seq + 1))               # one replay pass for the whole page
    maps = _Maps()
    out = []
    for n, (start, end) in enumerate(steps):
        st = x.states([end])[end]
        head = entries[end].hash
        svg = report_svg(game, viewer, st, entries[:end + 1], start - 1 if start else end, head)
        view = x.view(end)
        given = entries[start].event
        if isinstance(given, E.OrderGiven):
            what = describe(given, sc, viewer)
        elif isinstance(given, E.SeedRevealed):
            what = "The host reveals the dice seed."
        elif isinstance(given, E.DeadlinesChanged):
            what = describe(given, sc, viewer)
        else:
            what = "The game begins."
        events = []
        for s in range(start, end + 1):
            text = describe(entries[s].event, sc, viewer, x.origin(s))
            if text:
                events.append([s, entries[s].kind, text])
        ex = x.explain_step(start, end)
        waiting = "; ".join(f"{sc.side_name(a['side'])}: {a['kind']} ({a['order']})" for a in view["awaiting"])
        out.append({"n": n, "from": start, "to": end, "head": head, "label": _label(game, view), "what": what,
                    "events": events, "explain": explain_text(ex, sc, events=False), "waiting": waiting,
                    "svg": maps.add(svg)})
    created = game.created
    return {"title": sc.title, "game_id": game.game_id, "scenario": sc.id, "viewer": viewer,
            "viewer_name": "Referee (everything)" if viewer == REFEREE else sc.side_name(viewer),
            "dice_mode": created.dice_mode, "commitment": created.seed_commitment,
            "last_seq": entries[-1].seq, "head": entries[-1].hash, "lines": maps.lines, "steps": out}


def render_page(data: dict) -> str:
    """The page for data made by ``page_data``."""
    return _template().render(d=data, data_json=script_json(data))


def replay_html(game: Game, viewer: str = REFEREE) -> str:
    """The self-contained page for ``viewer``."""
    return render_page(page_data(game, viewer))
