"""What decides the game, drawn on the map: objective and victory-point hexes
with their values, set-up areas and drop zones, the turn, phase and running
score, a north arrow where north is not up, and the box of eliminated units.

The data is the game's: ``Ruleset.map_marks(state, sc, viewer)`` (a neutral
default: nothing), plus what every game's state holds (turn, phase, the
score by side).  Nothing here knows a game."""
from __future__ import annotations

import math

from pbem.core.turn import step_line
from pbem.report.fontmetrics import text_width
from pbem.report.mapsvg import _esc, _f, _pts, hex_corners   # mapsvg imports this module only when drawing

__all__ = ["marks_for", "objective_badge", "objectives_svg", "areas_svg", "north_arrow", "info_line",
           "AREA_COLOURS", "OBJECTIVE_COLOUR"]

OBJECTIVE_COLOUR = "#b8860b"
AREA_COLOURS = ("#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#8c564b", "#e377c2", "#17becf")


def marks_for(game, st, viewer: str) -> dict:
    """The game's marks for ``viewer``'s map (``Ruleset.map_marks``), with the
    score line made from the state's score by side when the game gives none."""
    sc = game.scenario
    marks = dict(game.rules.map_marks(st, sc, viewer) or {})
    if not marks.get("score") and st.score:
        from pbem.views import score_text
        marks["score"] = score_text(sc, st.score)
    return marks


def objective_badge(cx: float, cy: float, vp: int | str) -> list[str]:
    """A round gold badge with the value (a star when it has none)."""
    text = str(vp) if vp not in (0, "", None) else "\u2605"
    size = 8.0 if len(text) < 3 else 6.5
    return [f'<circle cx="{_f(cx)}" cy="{_f(cy)}" r="7" fill="{OBJECTIVE_COLOUR}" stroke="#ffffff" stroke-width="1.2"/>',
            f'<text x="{_f(cx)}" y="{_f(cy + size * 0.36)}" font-size="{_f(size)}" font-weight="bold" '
            f'text-anchor="middle" fill="#ffffff">{_esc(text)}</text>']


def objectives_svg(centre: dict, objectives: list[dict], r: float) -> tuple[list[str], list[str]]:
    """Objective hexes: a gold outline and, left of where a counter sits, the
    badge with the value; the badge layer goes above the counters."""
    outline, badges = ['<g class="objectives" fill="none" stroke-linejoin="round">'], ['<g class="objective-badges">']
    seen = set()
    for o in objectives:
        h = str(o.get("hex", ""))
        if h not in centre or h in seen:
            continue
        seen.add(h)
        cx, cy = centre[h]
        title = _esc(" ".join(str(x) for x in (o.get("label", ""), f"{o['vp']} VP" if o.get("vp") else "") if x))
        outline.append(f'<polygon class="objective" data-hex="{h}" points="{_pts(hex_corners(cx, cy, r - 4))}" '
                       f'stroke="{OBJECTIVE_COLOUR}" stroke-width="2.6" stroke-dasharray="7 3">'
                       f'<title>{title or "objective"}</title></polygon>')
        badges.append(f'<g class="objective-badge" data-hex="{h}" data-vp="{_esc(o.get("vp", 0))}">')
        badges += objective_badge(cx - r * 0.78, cy + 2, o.get("vp", 0))
        badges.append("</g>")
    return outline + ["</g>"], badges + ["</g>"]


def areas_svg(centre: dict, areas: list[dict], r: float) -> tuple[list[str], list[tuple[str, str]]]:
    """Set-up areas and drop zones: a tint and a dashed inner outline per hex,
    one colour per area; returns (svg, legend entries)."""
    out, legend = ['<g class="areas">'], []
    for i, a in enumerate(areas):
        colour = AREA_COLOURS[i % len(AREA_COLOURS)]
        label = str(a.get("label", "")) or f"area {i + 1}"
        hexes = [h for h in a.get("hexes", []) if h in centre]
        if not hexes:
            continue
        legend.append((label, colour))
        out.append(f'<g class="area" data-label="{_esc(label)}" fill="{colour}" fill-opacity="0.22" '
                   f'stroke="{colour}" stroke-width="1.8" stroke-dasharray="4 3">')
        for h in sorted(set(hexes)):
            cx, cy = centre[h]
            out.append(f'<polygon data-hex="{h}" points="{_pts(hex_corners(cx, cy, r - 2))}"/>')
        out.append("</g>")
    out.append("</g>")
    return out, legend


def north_arrow(x: float, y: float, degrees: float) -> list[str]:
    """A north arrow at (x, y): a needle and an N pointing to north, ``degrees``
    clockwise from the top of the map."""
    a = math.radians(degrees)
    dx, dy = math.sin(a), -math.cos(a)

    def p(t: float, side: float = 0.0) -> tuple[float, float]:
        return x + dx * t - dy * side, y + dy * t + dx * side

    def pts(*ps: tuple[float, float]) -> str:
        return " ".join(f"{_f(px)},{_f(py)}" for px, py in ps)
    nx, ny = p(12.5)
    return [f'<g class="north-arrow" data-degrees="{_f(degrees)}">',
            f'<circle cx="{_f(x)}" cy="{_f(y)}" r="20" fill="#ffffff" stroke="#333333"/>',
            f'<polygon points="{pts(p(7), p(-12, 5), p(-8), p(-12, -5))}" fill="#222222"/>',
            f'<text x="{_f(nx)}" y="{_f(ny + 3.6)}" font-size="10" font-weight="bold" text-anchor="middle" '
            f'fill="#c62828">N</text>',
            "</g>"]


def info_line(view: dict, marks: dict, sc) -> str:
    """Turn (of how many, and its date), phase, and the score, on one line."""
    parts = [f"Turn {view['turn']} of {view['turns']}" + (f" ({view['turn_label']})" if view.get("turn_label") else "")]
    if view.get("result"):
        parts.append(f"game over: {sc.side_name(view['result']['winner']) if view['result']['winner'] in sc.side_ids() else view['result']['winner']}")
    elif view.get("phase"):
        parts.append(step_line(sc, view, turn=False))
    if marks.get("score"):
        parts.append(f"Score: {marks['score']}")
    return "  \u00b7  ".join(parts)


def fit(text: str, size: float, width: float, bold: bool = False) -> float:
    """The largest font size up to ``size``, in half pixels, at which ``text`` fits ``width``.
    (Half pixels: a title that changes only at its end, map after map, keeps its size, so
    the pictures of its other words are kept: ``tiles._title_items``.)"""
    w = text_width(text, size, bold)
    return size if w <= width else max(5.0, math.floor(2 * size * width / w) / 2)
