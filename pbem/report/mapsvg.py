"""Render a scenario map with counters and move arrows as a standalone SVG.

``render_svg`` is a pure function: no I/O, stdlib only, and the same input
always gives the same string (no timestamps, no salted hashes, sets sorted).

Geometry follows pbem.hexgrid: flat-topped hexes in vertical columns, column
XX increasing eastward and row YY increasing southward; every other column
(``even-down`` or ``odd-down``) sits half a hex lower.  With hex radius ``R``
(centre to corner) centres are ``1.5 R`` apart horizontally and ``sqrt(3) R``
apart vertically, so every grid neighbour is exactly ``sqrt(3) R`` away.

Drawing order (bottom to top): title bar (with turn, phase and score, and a
north arrow where north is not up), terrain fills and borders, set-up areas
and drop zones, roads, battle positions, hexside features, highlighted
hexes, objective outlines, hex numbers, place names, hex markers' outlines,
move arrows, shot lines, counters (with a game's face: values, status chips,
wrecks), fronts and turrets, hex markers' chips, objective badges, then the box
of eliminated units and the legend below the map.  Helpers: ``symbols`` (unit
icons), ``fontmetrics`` (text widths), ``marks`` (what decides the game),
``faces`` (fronts, status markers, wrecks, hex markers, shots), ``legend``.
"""
from __future__ import annotations

import math
import re
import zlib
from collections.abc import Iterable
from xml.sax.saxutils import escape as _xml_escape

from pbem.core.hexgrid import Grid, parse_hex
from pbem.report.fontmetrics import FONT_FAMILY, text_width
from pbem.report.symbols import symbol

__all__ = ["render_svg", "hex_centre", "hex_corners", "HEX_R",
           "NATIONALITY_COLOURS", "SIDE_PALETTE", "MOVE_STYLES", "counter_colour"]

HEX_R = 36.0                     # centre-to-corner radius, px
SQ3 = math.sqrt(3.0)
MARGIN = 14.0
TITLE_H = 52.0                   # the title, and under it turn, phase and score

# Counter colours follow the rulebooks' own where they give one (French blue,
# Belgian beige, Soviet red in their unit tables); the rest are ours.
NATIONALITY_COLOURS: dict[str, str] = {
    "german": "#9a9a9a",
    "italian": "#b5d99c",
    "british": "#d9b38c",
    "french": "#9fbbe8",
    "belgian": "#e6dab4",
    "soviet": "#e08a7e",
    "australian": "#e8c87a",
    "newzealand": "#c3d9a0",
    "greek": "#a9d0ee",
    "polish": "#e4a6c8",
}

# Features drawn as lines from hex centre to hex centre: between adjacent
# hexes that both carry a hex feature, or across a hexside feature.
# name -> (colour, width, dash, legend label)
LINK_STYLES: dict[str, tuple[str, float, str, str]] = {
    "road": ("#8b5a2b", 5, "", "road"),
    "major_road": ("#8b5a2b", 5, "", "road"),
    "minor_road": ("#8b5a2b", 2.8, "", "minor road"),
    "railroad": ("#d2691e", 3.2, "7 3", "railroad"),
    "railroad_branch": ("#d4b106", 3.2, "7 3", "branch railroad"),
    "lane": ("#8b5a2b", 2, "5 3", "lane"),
    "track": ("#9c6b30", 2.6, "6 3", "track"),
}
# Hexside features drawn on the shared edge (rivers and cliffs have their own).
EDGE_STYLES: dict[str, tuple[str, float, str, str]] = {
    "wall": ("#3d3d3d", 3.5, "", "wall"),
    "ridge": ("#7a5a2a", 4, "2 3", "ridge"),
    "slope": ("#a8803f", 2.5, "6 3", "slope"),
    "stream": ("#5b9bd5", 2.5, "", "stream"),
    "sea": ("#2f6fd6", 2.5, "2 2", "all-sea hexside"),
    "ferry": ("#0b7285", 4, "1 3", "ferry"),
    "rail_bridge": ("#222222", 5, "", "railway bridge"),
    "dune": ("#c98a1b", 4.5, "1.5 2.5", "dune hexside"),
    "wadi": ("#6b4f2a", 3.5, "8 2 2 2", "wadi hexside"),
}
# Hex features drawn as a small mark in the hex: name -> (shape, colour, label)
MARK_STYLES: dict[str, tuple[str, str, str]] = {
    "foothold": ("star", "#c8a200", "foothold"),
    "british_entry": ("flag", "#6b3f1d", "British entry hex"),
    "town": ("dot", "#5a3d2b", "town"),
    "village": ("dot", "#5a3d2b", "village"),
    "bunker": ("star", "#6e6e6e", "bunker"),
    "trench": ("dot", "#7a4a1a", "anti-tank trench"),
    "wire": ("dot", "#3d3d3d", "barbed wire"),
}
# A formation's colour band on its counters' left edge (``Ruleset.unit_facts`` gives a unit
# its formation; ``map_marks``' ``formations`` their order, so a formation keeps its colour).
FORMATION_COLOURS: tuple[str, ...] = ("#1f4fd1", "#d62728", "#1b8a2e", "#8e3fc9", "#ee7f00", "#7b4a26", "#e0399e",
                                      "#0f9fb3", "#9a9a10", "#222222", "#5e6ec7", "#b3123f")
BAND_W = 5.0                     # the band's width, px
ID_LEAST = 7.0                   # a counter's id is shrunk to this size at most, then condensed
# Fallback counter colours, picked per side by a stable checksum of its id.
SIDE_PALETTE: tuple[str, ...] = ("#a9c4e4", "#e8a9a9", "#e4d48f", "#c7b0e4",
                                 "#9fdccf", "#e8c39e")

# kind -> (stroke colour, dash pattern or "", legend label)
MOVE_STYLES: dict[str, tuple[str, str, str]] = {
    "move": ("#1c3d8f", "", "move"),
    "retreat": ("#c62828", "7 4", "retreat"),
    "advance": ("#1b6e2e", "", "advance after combat"),
}

ROAD_COLOUR = "#8b5a2b"
RIVER_COLOUR = "#2f6fd6"
RIVER_WIDTHS = {"major_river": "6", "minor_river": "3", "river": "5"}     # a river hexside's stroke
BP_COLOUR = "#7a1f1f"
HIGHLIGHT_COLOUR = "#ff8c00"
DISRUPTED_COLOUR = "#d01010"
UNKNOWN_TERRAIN = "#dddddd"

# -- small helpers -------------------------------------------------------------

_BAD_XML = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ufffe\uffff]")


def _esc(text: object) -> str:
    """Escape for element text and double-quoted attributes; drop non-XML chars."""
    return _xml_escape(_BAD_XML.sub("", str(text)), {'"': "&quot;"})


def _f(v: float) -> str:
    """Compact, deterministic number formatting (kept per value: a map writes the same
    coordinates over and over)."""
    if v.__class__ is not float and v.__class__ is not int:
        return _f_plain(v)
    got = _F.get(v)
    if got is None:
        got = _f_plain(v)
        if len(_F) >= 65536:
            _F.clear()
        _F[v] = got
    return got


_F: dict[float, str] = {}


def _f_plain(v: float) -> str:
    s = f"{v:.2f}".rstrip("0").rstrip(".")
    return "0" if s in ("", "-0") else s


def _pts(points: Iterable[tuple[float, float]]) -> str:
    return " ".join(f"{_f(x)},{_f(y)}" for x, y in points)


def _parse(h: object) -> tuple[int, int] | None:
    try:
        return parse_hex(h)  # type: ignore[arg-type]
    except (ValueError, TypeError):
        return None


# -- geometry ------------------------------------------------------------------

def _origin() -> tuple[float, float]:
    """Pixel centre of an unshifted hex in the first column and first row."""
    return MARGIN + HEX_R, MARGIN + TITLE_H + SQ3 / 2 * HEX_R


def hex_centre(grid: Grid, h: str, r: float = HEX_R,
               origin: tuple[float, float] | None = None) -> tuple[float, float]:
    """Pixel centre of hex ``h`` as drawn by render_svg (y grows southward).

    ``h`` need not be on the map; ValueError if it is not a hex number.
    ``r``/``origin`` default to the renderer's own; pass ``origin=(0, 0)`` for
    coordinates relative to the first column/row.
    """
    col, row = parse_hex(h)
    ox, oy = _origin() if origin is None else origin
    shifted = (col % 2 == 0) == (grid.offset == "even-down")
    x = ox + 1.5 * r * (col - grid.first_col)
    y = oy + SQ3 * r * (row - grid.first_row) + (SQ3 / 2 * r if shifted else 0.0)
    return x, y


def hex_corners(cx: float, cy: float, r: float = HEX_R) -> list[tuple[float, float]]:
    """The six corners of a flat-topped hex, starting east, clockwise on screen."""
    return [(cx + r * c, cy + r * s) for c, s in _CORNERS]


# cos and sin of 0, 60, ... 300 degrees, as hex_corners computed them at each call
_CORNERS = tuple((math.cos(math.radians(60 * i)), math.sin(math.radians(60 * i))) for i in range(6))


def _map_size(grid: Grid) -> tuple[float, float]:
    ncols = grid.last_col - grid.first_col + 1
    nrows = grid.last_row - grid.first_row + 1
    w = 1.5 * HEX_R * (ncols - 1) + 2 * HEX_R
    h = SQ3 * HEX_R * nrows + SQ3 / 2 * HEX_R
    return w, h


def _shared_edge(a: tuple[float, float], b: tuple[float, float]
                 ) -> tuple[tuple[float, float], tuple[float, float]]:
    """End points of the hexside between two adjacent hex centres."""
    mx, my = (a[0] + b[0]) / 2, (a[1] + b[1]) / 2
    dx, dy = b[0] - a[0], b[1] - a[1]
    d = math.hypot(dx, dy) or 1.0
    px, py = -dy / d * HEX_R / 2, dx / d * HEX_R / 2
    return (mx + px, my + py), (mx - px, my - py)


# -- colours -------------------------------------------------------------------

def counter_colour(nationality: str, side: str) -> str:
    """Counter fill: fixed per known nationality, else a stable colour per side."""
    c = NATIONALITY_COLOURS.get((nationality or "").lower())
    if c:
        return c
    return SIDE_PALETTE[zlib.crc32(str(side).encode("utf-8")) % len(SIDE_PALETTE)]


# -- pieces --------------------------------------------------------------------

def _defs(shots: bool = False) -> list[str]:
    out = ["<defs>"]
    for kind, (colour, _dash, _label) in MOVE_STYLES.items():
        out.append(
            f'<marker id="arrow-{kind}" viewBox="0 0 10 10" refX="8" refY="5" '
            f'markerUnits="userSpaceOnUse" markerWidth="13" markerHeight="13" orient="auto">'
            f'<path d="M0,0 L10,5 L0,10 L2.5,5 z" fill="{colour}"/></marker>')
    if shots:
        from pbem.report.faces import shot_defs
        out += shot_defs()
    out.append("</defs>")
    return out


def _cliff_path(p: tuple[float, float], q: tuple[float, float], teeth: int = 5,
                depth: float = 4.0) -> str:
    dx, dy = q[0] - p[0], q[1] - p[1]
    d = math.hypot(dx, dy) or 1.0
    nx, ny = -dy / d, dx / d
    pts = [p]
    for i in range(1, 2 * teeth):
        t = i / (2 * teeth)
        s = depth if i % 2 else -depth
        pts.append((p[0] + dx * t + nx * s, p[1] + dy * t + ny * s))
    pts.append(q)
    return _pts(pts)


def _link(style: tuple[str, float, str, str], a: tuple[float, float], b: tuple[float, float],
          feature: str) -> str:
    colour, width, dash, _label = style
    d = f' stroke-dasharray="{dash}"' if dash else ""
    return (f'<line class="link {_esc(feature)}" x1="{_f(a[0])}" y1="{_f(a[1])}" x2="{_f(b[0])}" '
            f'y2="{_f(b[1])}" stroke="{colour}" stroke-width="{_f(width)}" stroke-linecap="round"{d}/>')


def _line_edges(grid: Grid, hexes: list[str]) -> list[tuple[str, str]]:
    """Links between adjacent hexes of a line feature (railroad, lane).

    The scenario lists the hexes a line runs through, not its course; where
    three of them touch each other, linking every pair draws a small triangle.
    Drop one side of each such triangle: the one whose ends have the most
    other links (ties: the later pair), so the line reads as a line."""
    on = set(hexes)
    edges = {(h, n) for h in hexes for n in grid.neighbours(h) if n in on and h < n}
    nbrs: dict[str, set[str]] = {h: set() for h in hexes}
    for h, n in edges:
        nbrs[h].add(n)
        nbrs[n].add(h)
    for a in sorted(nbrs):
        for b in sorted(nbrs[a]):
            for c in sorted(nbrs[a] & nbrs[b]):
                if not a < b < c:
                    continue
                tri = [(a, b), (a, c), (b, c)]
                if not all(e in edges for e in tri):
                    continue
                drop = max(tri, key=lambda e: (len(nbrs[e[0]]) + len(nbrs[e[1]]), e))
                edges.discard(drop)
                nbrs[drop[0]].discard(drop[1])
                nbrs[drop[1]].discard(drop[0])
    return sorted(edges)


def _mark(shape: str, colour: str, cx: float, cy: float, feature: str) -> str:
    """A small symbol in the upper left of a hex, clear of the counter."""
    x, y = cx - HEX_R * 0.55, cy - HEX_R * 0.42
    if shape == "star":
        pts = [(x + (6 if i % 2 == 0 else 2.6) * math.sin(math.radians(36 * i)),
                y - (6 if i % 2 == 0 else 2.6) * math.cos(math.radians(36 * i))) for i in range(10)]
        body = f'<polygon points="{_pts(pts)}" fill="{colour}" stroke="#3a2e00" stroke-width="0.7"/>'
    elif shape == "flag":
        body = (f'<path d="M{_f(x - 3)},{_f(y + 6)} L{_f(x - 3)},{_f(y - 6)} L{_f(x + 6)},{_f(y - 3)} '
                f'L{_f(x - 3)},{_f(y)}" fill="{colour}" stroke="{colour}" stroke-width="1.2"/>')
    else:
        body = f'<rect x="{_f(x - 3.5)}" y="{_f(y - 3.5)}" width="7" height="7" fill="{colour}"/>'
    return f'<g class="mark {_esc(feature)}"><title>{_esc(feature)}</title>{body}</g>'


def _hexside_svg(feature: str, p: tuple[float, float], q: tuple[float, float]) -> str:
    if feature in LINK_STYLES:
        return ""                      # drawn as a link between the two hex centres, not on the edge
    if feature in EDGE_STYLES:
        colour, width, dash, _label = EDGE_STYLES[feature]
        d = f' stroke-dasharray="{dash}"' if dash else ""
        return (f'<line class="hexside {feature}" x1="{_f(p[0])}" y1="{_f(p[1])}" x2="{_f(q[0])}" '
                f'y2="{_f(q[1])}" stroke="{colour}" stroke-width="{_f(width)}" stroke-linecap="round"{d}>'
                f'<title>{feature}</title></line>')
    if feature in RIVER_WIDTHS:
        return (f'<line class="hexside {feature}" x1="{_f(p[0])}" y1="{_f(p[1])}" x2="{_f(q[0])}" '
                f'y2="{_f(q[1])}" stroke="{RIVER_COLOUR}" stroke-width="{RIVER_WIDTHS[feature]}" '
                f'stroke-linecap="round"/>')
    if feature == "cliff":
        return (f'<polyline class="hexside cliff" points="{_cliff_path(p, q)}" fill="none" '
                f'stroke="#1e1e1e" stroke-width="2.2" stroke-linejoin="miter"/>')
    return (f'<line class="hexside {_esc(feature)}" x1="{_f(p[0])}" y1="{_f(p[1])}" '
            f'x2="{_f(q[0])}" y2="{_f(q[1])}" stroke="#555555" stroke-width="4" '
            f'stroke-dasharray="4 2"><title>{_esc(feature)}</title></line>')


def _fit_text(text: str, size: float, room: float, bold: bool = True, least: float = 5.0) -> tuple[float, str]:
    """(font size, extra attributes) so that ``text`` fits ``room`` pixels:
    shrunk by its measured width, and below ``least`` px condensed instead."""
    w = text_width(text, size, bold)
    if w <= room:
        return size, ""
    fs = max(least, size * room / w)
    if text_width(text, fs, bold) > room:
        return fs, f' textLength="{_f(room)}" lengthAdjust="spacingAndGlyphs"'
    return fs, ""


_counters: dict[tuple, list[str]] = {}


def _counter(u: dict, x0: float, y0: float, w: float, h: float, stacked: bool = False) -> list[str]:
    """``_draw_counter``, kept: from one map to the next (a replay page draws a map
    per order) most counters stand where they stood, as they were."""
    key = (str(u.get("id", "")), tuple(str(x) for x in (u.get("status") or [])), str(u.get("nationality", "")),
           str(u.get("side", "")), str(u.get("strength", "")), str(u.get("ma", "")), str(u.get("type", "")),
           str(u.get("formation", "")), str(u.get("band", "")), repr(u.get("face")), x0, y0, w, h, stacked)
    got = _counters.get(key)
    if got is None:
        if len(_counters) >= 4096:
            _counters.clear()
        got = _counters[key] = _draw_counter(u, x0, y0, w, h, stacked)
    return got


def _draw_counter(u: dict, x0: float, y0: float, w: float, h: float, stacked: bool = False) -> list[str]:
    """One counter.  Alone: its id on top, the symbol, its values below.  In a
    stack only a strip of each lower counter shows: the strip holds its id
    and its values side by side, so every unit's values stay readable."""
    uid = str(u.get("id", ""))
    status = [str(x) for x in (u.get("status") or [])]
    disrupted = "disrupted" in status
    face = u.get("face") or {}
    wreck = str(face.get("wreck") or "")
    fill = counter_colour(str(u.get("nationality", "")), str(u.get("side", "")))
    cx = x0 + w / 2
    cls = "counter disrupted" if disrupted else "counter wreck" if wreck else "counter"
    out = [f'<g class="{cls}" data-unit="{_esc(uid)}" data-side="{_esc(u.get("side", ""))}"'
           + (f' data-wreck="{_esc(wreck)}"' if wreck else "") + ">",
           f'<rect x="{_f(x0 + 1.5)}" y="{_f(y0 + 1.5)}" width="{_f(w)}" height="{_f(h)}" '
           f'rx="2" fill="#000000" fill-opacity="0.28"/>']
    ink = "#111111"
    if wreck:
        from pbem.report.faces import wreck_body
        out += wreck_body(x0, y0, w, h, bool(face.get("burning")))
        out.append(f"<title>{_esc(uid)}: {_esc(wreck)}</title>")
        ink = "#ffffff"
    elif disrupted:
        out.append(f'<rect class="disrupted-border" x="{_f(x0)}" y="{_f(y0)}" width="{_f(w)}" '
                   f'height="{_f(h)}" rx="2" fill="{fill}" stroke="{DISRUPTED_COLOUR}" '
                   f'stroke-width="2.4" stroke-dasharray="4 2.5"/>')
    else:
        out.append(f'<rect x="{_f(x0)}" y="{_f(y0)}" width="{_f(w)}" height="{_f(h)}" rx="2" '
                   f'fill="{fill}" stroke="#1a1a1a" stroke-width="1"/>')
    values = str(face["values"]) if "values" in face else f'{u.get("strength", "")}-{u.get("ma", "")}'
    marks = [] if wreck else list(face.get("marks") or [])
    band = str(u.get("band", ""))
    bw = BAND_W if band else 0.0
    if band:                                   # the formation's colour down the left edge
        out.append(f'<rect class="formation-band" data-formation="{_esc(u.get("formation", ""))}" x="{_f(x0 + 0.5)}" '
                   f'y="{_f(y0 + 0.5)}" width="{_f(bw)}" height="{_f(h - 1)}" fill="{_esc(band)}">'
                   f'<title>formation {_esc(u.get("formation", ""))}</title></rect>')
    if stacked:
        vs = 8.0
        vw = text_width(values, vs, True) if values else 0.0
        if marks:                                   # the markers take the strip's right end, the values give way
            from pbem.report.faces import counter_marks
            idw = min(text_width(uid, 8.0, True), w * 0.55)
            out_marks = counter_marks(marks, x0, y0, w, h, True, room=w - idw - 5 - bw)
            vw = 0.0
        fs, extra = _fit_text(uid, 8.0, w - vw - 7 - bw, least=ID_LEAST)
        out.append(f'<text class="unit-id" x="{_f(x0 + 2.5 + bw)}" y="{_f(y0 + 8.4)}" font-size="{_f(fs)}" '
                   f'font-weight="bold" fill="{ink}"{extra}>{_esc(uid)}</text>')
        if values and not marks:
            out.append(f'<text class="unit-values" x="{_f(x0 + w - 2.5)}" y="{_f(y0 + 8.4)}" font-size="{_f(vs)}" '
                       f'font-weight="bold" text-anchor="end" fill="{ink}">{_esc(values)}</text>')
        if not wreck:
            out += symbol(str(u.get("type", "")), cx, y0 + 10 + (h - 10) / 2, min(w * 0.5, 24), (h - 10) * 0.62, _f)
        if marks:
            out += out_marks
    else:
        fs, extra = _fit_text(uid, 9.0, w - 4 - bw, least=ID_LEAST)
        out.append(f'<text class="unit-id" x="{_f(cx + bw / 2)}" y="{_f(y0 + 10)}" font-size="{_f(fs)}" '
                   f'font-weight="bold" text-anchor="middle" fill="{ink}"{extra}>{_esc(uid)}</text>')
        if not wreck:
            out += symbol(str(u.get("type", "")), cx, y0 + h * (0.47 if values else 0.55), w * 0.46,
                          h * (0.27 if values else 0.33), _f)
        if values:
            vfs, vextra = _fit_text(values, 10.5, w - 3) if "values" in face else (10.5, "")
            out.append(f'<text class="unit-values" x="{_f(cx)}" y="{_f(y0 + h - 3.5)}" font-size="{_f(vfs)}" '
                       f'font-weight="bold" text-anchor="middle" fill="{ink}"{vextra}>{_esc(values)}</text>')
        if marks:
            from pbem.report.faces import counter_marks
            out += counter_marks(marks, x0, y0, w, h, False)
    if disrupted:
        bx, by = x0 + w - 1, y0 + 1
        out.append(f'<g class="disrupted-marker"><circle cx="{_f(bx)}" cy="{_f(by)}" r="6.5" '
                   f'fill="{DISRUPTED_COLOUR}" stroke="#ffffff" stroke-width="1"/>'
                   f'<text x="{_f(bx)}" y="{_f(by + 3.3)}" font-size="9" font-weight="bold" '
                   f'text-anchor="middle" fill="#ffffff">D</text></g>')
    out.append("</g>")
    return out


def _move(m: dict, grid: Grid) -> list[str]:
    kind = str(m.get("kind", "move"))
    colour, dash, _label = MOVE_STYLES.get(kind, MOVE_STYLES["move"])
    style_kind = kind if kind in MOVE_STYLES else "move"
    pts: list[tuple[float, float]] = []
    last = None
    for h in m.get("path") or []:
        if _parse(h) is None or h == last:
            continue
        pts.append(hex_centre(grid, h))
        last = h
    out = [f'<g class="move move-{_esc(style_kind)}" data-unit="{_esc(m.get("unit", ""))}" '
           f'data-kind="{_esc(kind)}">']
    if not pts:
        out.append("</g>")
        return out
    sx, sy = pts[0]
    if len(pts) >= 2:
        # Stop short of the last centre so the arrowhead shows beside the counter.
        (ax, ay), (bx, by) = pts[-2], pts[-1]
        d = math.hypot(bx - ax, by - ay)
        cut = min(HEX_R * 0.55, d * 0.6)
        pts[-1] = (bx - (bx - ax) / d * cut, by - (by - ay) / d * cut)
        p = _pts(pts)
        out.append(f'<polyline class="move-casing" points="{p}" fill="none" stroke="#ffffff" '
                   f'stroke-opacity="0.75" stroke-width="6.5" stroke-linejoin="round" '
                   f'stroke-linecap="round"/>')
        dash_attr = f' stroke-dasharray="{dash}"' if dash else ""
        out.append(f'<polyline class="move-path" points="{p}" fill="none" stroke="{colour}" '
                   f'stroke-width="3.2" stroke-linejoin="round"{dash_attr} '
                   f'marker-end="url(#arrow-{style_kind})"/>')
    out.append(f'<circle class="move-start" cx="{_f(sx)}" cy="{_f(sy)}" r="4" fill="{colour}" '
               f'stroke="#ffffff" stroke-width="1.2"/>')
    out.append("</g>")
    return out


def _battle_position(cx: float, cy: float, scale: float = 1.0) -> list[str]:
    """Fortification symbol: two toothed brackets on the hex's slanted sides.

    The top and bottom of the hex stay clear for the hex number and place
    name; the brackets sit just outside a centred counter.
    """
    ring = hex_corners(cx, cy, HEX_R * 0.8 * scale)
    sw = _f(max(1.2, 2.4 * scale))
    tooth = max(2.5, 5.0 * scale)
    parts = [f'<polyline points="{_pts([ring[5], ring[0], ring[1]])}" fill="none"/>',
             f'<polyline points="{_pts([ring[2], ring[3], ring[4]])}" fill="none"/>']
    teeth = []
    for i in (5, 0, 2, 3):
        (ax, ay), (bx, by) = ring[i], ring[(i + 1) % 6]
        mx, my = (ax + bx) / 2, (ay + by) / 2
        vx, vy = mx - cx, my - cy
        d = math.hypot(vx, vy) or 1.0
        for t in (-0.25, 0.25):
            px, py = mx + (bx - ax) * t, my + (by - ay) * t
            teeth.append(f"M{_f(px)},{_f(py)} l{_f(vx / d * tooth)},{_f(vy / d * tooth)}")
    parts.append(f'<path d="{" ".join(teeth)}"/>')
    return [f'<g stroke="{BP_COLOUR}" stroke-width="{sw}" stroke-linejoin="round">'] + parts + ["</g>"]


# -- main ----------------------------------------------------------------------

_drawn: dict[bytes, str] = {}


def render_svg(sc, units: list[dict], moves: list[dict] | None = None, title: str = "",
               highlight: list[str] | None = None, marks: dict | None = None, info: str = "",
               shots: list[dict] | None = None) -> str:
    """``_render_svg``, drawn once per position and view: the host mails the same map
    to every viewer who sees the same units (the answer, the other sides' reports,
    the referee's), so a map of the same inputs is the same string, kept (the last 32)."""
    import msgspec

    from pbem.report.mapboard import board_layers
    try:
        key = msgspec.json.encode([board_layers(sc).key, units, moves, title, highlight, marks, info, shots])
    except (TypeError, msgspec.EncodeError):          # an input JSON cannot say: drawn, not kept
        return _render_svg(sc, units, moves, title, highlight, marks, info, shots)
    got = _drawn.get(key)
    if got is None:
        if len(_drawn) >= 32:
            _drawn.clear()
        got = _drawn[key] = _render_svg(sc, units, moves, title, highlight, marks, info, shots)
    return got


def _render_svg(sc, units: list[dict], moves: list[dict] | None = None, title: str = "",
                highlight: list[str] | None = None, marks: dict | None = None, info: str = "",
                shots: list[dict] | None = None) -> str:
    """Render the map of ``sc`` with ``units``, ``moves`` and ``highlight`` as SVG text.

    units: dicts with id, side, hex (None = not drawn), strength, ma, status,
    nationality, type.  Eliminated units and units off the map are not drawn.
    moves: dicts with unit, path (hexes, start included) and kind
    (move | retreat | advance).  highlight: hexes to outline in orange.
    ``title`` defaults to the scenario's title; ``info`` (turn, phase, score)
    is the line under it.  ``marks``: what decides the game (``marks.py``:
    objectives, areas, north; ``markers`` standing in hexes, ``faces.markers_svg``).  Eliminated
    units go to a box under the map, but a wreck (``face["wreck"]``) stays in its hex.  A unit's
    ``face`` (``Ruleset.counter_face``) gives its values, front, turret and status markers;
    ``shots``: a line from firer to target each (``faces.shots_svg``).
    """
    from pbem.report.legend import legend
    from pbem.report.marks import areas_svg, fit, north_arrow, objectives_svg
    marks = dict(marks or {})
    board = sc.board
    grid: Grid = board.grid
    moves = list(moves or [])
    highlight = list(highlight or [])
    title = title or getattr(sc, "title", "") or ""

    map_w, map_h = _map_size(grid)
    width = map_w + 2 * MARGIN
    from pbem.report.mapboard import board_layers
    base = board_layers(sc)
    centre = base.centre
    terrain_order, links_present, road_hexes = base.terrain_order, base.links_present, base.road_hexes
    marks_present, side_feats = base.marks_present, base.side_feats

    body: list[str] = list(base.terrain)
    areas = list(marks.get("areas") or [])
    area_svg, area_legend = base.part(areas_svg, areas, centre, areas, HEX_R)
    body += area_svg
    body += base.features

    # highlighted hexes
    body.append(f'<g class="highlights" fill="none" stroke="{HIGHLIGHT_COLOUR}" stroke-width="4.5" '
                f'stroke-linejoin="round">')
    seen_hl: set[str] = set()
    for h in highlight:
        if _parse(h) is None or h in seen_hl:
            continue
        seen_hl.add(h)
        cx, cy = hex_centre(grid, h)
        body.append(f'<polygon class="highlight" data-hex="{h}" '
                    f'points="{_pts(hex_corners(cx, cy, HEX_R - 2.5))}"/>')
    body.append("</g>")

    objectives = list(marks.get("objectives") or [])
    outline, badges = base.part(objectives_svg, objectives, centre, objectives, HEX_R)
    body += outline

    body += base.numbers

    # counter layout (drawn last, but place names avoid them)
    bands = formation_bands(marks.get("formations") or [], units)
    stacks: dict[str, list[dict]] = {}
    gone: list[dict] = []
    wrecks: list[dict] = []
    for u in units:
        if u.get("formation") in bands:
            u = dict(u, band=bands[u["formation"]])
        h = u.get("hex")
        if (u.get("face") or {}).get("wreck") and h is not None and grid.contains(h):
            wrecks.append(u)                      # a wreck stays where it died, under the living
            continue
        if "eliminated" in (u.get("status") or []):
            gone.append(u)
            continue
        if h is None or not grid.contains(h):
            continue
        stacks.setdefault(h, []).append(u)
    for u in reversed(wrecks):
        stacks.setdefault(u["hex"], []).insert(0, u)
    layout: list[tuple[dict, float, float, float, float, bool]] = []
    for h in sorted(stacks):
        stack = stacks[h]
        cx, cy = centre[h]
        layout += [(u, *box) for u, box in zip(stack, _stack_boxes(cx, cy, len(stack)))]
    boxes = [(x0, y0, x0 + w, y0 + hh) for _u, x0, y0, w, hh, _st in layout]

    names_under, names_over = _place_names(base.places, boxes)
    body += names_under

    from pbem.report.faces import front_marks, markers_svg, shots_svg
    marker_under, marker_over, marker_legend = markers_svg(centre, list(marks.get("markers") or []))
    if len(marker_under) > 2:
        body += marker_under

    # moves and shots (under the counters)
    body.append('<g class="moves">')
    for m in moves:
        body += _move(m, grid)
    body.append("</g>")
    at = {str(u.get("id", "")): u["hex"] for us in stacks.values() for u in us}
    shot_svg, shot_kinds = shots_svg(centre, list(shots or []), at)
    if shot_kinds:
        body += shot_svg

    # counters, then what must stay readable above them: fronts and turrets, markers, badges
    body.append('<g class="counters">')
    for u, x0, y0, w, hh, stacked in layout:
        body += _counter(u, x0, y0, w, hh, stacked)
    body.append("</g>")
    faced = [(u, *centre[h]) for h in sorted(stacks) for u in stacks[h]
             if not (u.get("face") or {}).get("wreck")
             and ((u.get("face") or {}).get("front") is not None or (u.get("face") or {}).get("turret") is not None)]
    if faced:
        body += front_marks(faced)
    if len(marker_over) > 2:
        body += marker_over
    body += badges
    body += names_over

    # eliminated units, then the legend
    y = MARGIN + TITLE_H + map_h + 14
    if gone:
        box, box_h = _eliminated_box(gone, MARGIN + 4, y, width - 2 * MARGIN - 8)
        body += box
        y += box_h + 8
    nats: list[tuple[str, str]] = []
    seen_nat: set[str] = set()
    side_nats = [(n, sd.id) for sd in getattr(sc, "sides", []) for n in sd.nationalities]
    drawn = [u for us in stacks.values() for u in us]
    for nat, side in side_nats + [(str(u.get("nationality", "")), str(u.get("side", ""))) for u in drawn]:
        key = nat or f"side:{side}"
        if key in seen_nat:
            continue
        seen_nat.add(key)
        nats.append((nat or side, counter_colour(nat, side)))
    extras = {
        "road": bool(road_hexes) or "road" in links_present,
        "battle_position": base.battle_position,
        "river": bool(side_feats & {"river", "major_river", "minor_river"}),
        "cliff": "cliff" in side_feats,
        # one legend entry per label; "road" has its own entry above
        "links": [s for label in links_present if label != "road"
                  for s in [next(v for v in LINK_STYLES.values() if v[3] == label)]],
        "edges": [EDGE_STYLES[f] for f in sorted(side_feats) if f in EDGE_STYLES]
        + [("#555555", 4, "4 2", f.replace("_", " ")) for f in sorted(side_feats)
           if f not in EDGE_STYLES and f not in LINK_STYLES and f not in RIVER_WIDTHS and f != "cliff"],
        "marks": marks_present,
        "highlight": bool(seen_hl),
        "types": sorted({str(u.get("type", "")) for u in drawn + gone if u.get("type")}),
        "objective": len(badges) > 2,
        "areas": area_legend,
        "formations": [(f"{f['id']} {f['name']}" if f.get("name") and f["name"] != f["id"] else f["id"], bands[f["id"]])
                       for f in (marks.get("formations") or []) if f["id"] in {u.get("formation") for u in drawn}],
        "status": _status_legend(drawn),
        "front": any((u.get("face") or {}).get("front") is not None for u, *_c in faced),
        "turret": any((u.get("face") or {}).get("turret") is not None for u, *_c in faced),
        "wreck": sorted({(str(u["face"]["wreck"]), bool(u["face"].get("burning"))) for u in wrecks}),
        "markers": marker_legend,
        "shots": shot_kinds,
    }
    legend_y = y + 6
    legend_svg, legend_h = base.part(legend, (terrain_order, nats, extras, MARGIN + 4, legend_y, width - 2 * MARGIN - 8),
                                     sc, terrain_order, nats, extras, MARGIN + 4, legend_y, width - 2 * MARGIN - 8)
    height = legend_y + legend_h + MARGIN - 6

    # title bar: the title, and under it turn, phase and score
    room = width - 2 * MARGIN - 20 - (48 if marks.get("north") else 0)
    title_fs = fit(title, 16.0, room, bold=True)
    info_fs = fit(info, 12.0, room)
    bar_h = TITLE_H - 6
    head = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{_f(math.ceil(width))}" '
        f'height="{_f(math.ceil(height))}" viewBox="0 0 {_f(math.ceil(width))} {_f(math.ceil(height))}" '
        f'font-family="{FONT_FAMILY}">',
        f"<title>{_esc(title)}</title>",
    ]
    head += _defs(bool(shot_kinds))
    head.append('<rect x="0" y="0" width="100%" height="100%" fill="#fbf8f0"/>')
    head.append(f'<g class="title-bar"><rect x="{_f(MARGIN)}" y="{_f(MARGIN - 6)}" '
                f'width="{_f(width - 2 * MARGIN)}" height="{_f(bar_h)}" rx="3" fill="#2e2a24"/>'
                f'<text x="{_f(MARGIN + 10)}" y="{_f(MARGIN - 6 + 21)}" '
                f'font-size="{_f(title_fs)}" font-weight="bold" fill="#ffffff">{_esc(title)}</text>'
                + (f'<text class="info" x="{_f(MARGIN + 10)}" y="{_f(MARGIN - 6 + bar_h - 8)}" '
                   f'font-size="{_f(info_fs)}" fill="#f3e3b0">{_esc(info)}</text>' if info else "")
                + "</g>")
    if marks.get("north"):                      # right of the title, where no counter can be
        head += north_arrow(width - MARGIN - 26, MARGIN - 6 + bar_h / 2, float(marks["north"]))
    return "\n".join(head + body + legend_svg + ["</svg>"]) + "\n"



def formation_bands(formations: list[dict], units: list[dict]) -> dict[str, str]:
    """Each formation's band colour: by its place in ``formations`` (the game's order, the
    same on every map), else (a formation the game did not list) by a checksum of its id."""
    out = {f["id"]: FORMATION_COLOURS[i % len(FORMATION_COLOURS)] for i, f in enumerate(formations)}
    for u in units:
        f = u.get("formation")
        if f and f not in out:
            out[f] = FORMATION_COLOURS[zlib.crc32(str(f).encode("utf-8")) % len(FORMATION_COLOURS)]
    return out


def _status_legend(units: list[dict]) -> list[tuple[str, str, str]]:
    """(label, text, colour) of every status marker on the counters drawn, once each."""
    out: list[tuple[str, str, str]] = []
    for u in units:
        for m in (u.get("face") or {}).get("marks") or []:
            entry = (str(m.get("label", "")) or str(m.get("key", "")), str(m.get("text", "")), str(m.get("colour", "#333333")))
            if entry not in out:
                out.append(entry)
    return out


def _stack_boxes(cx: float, cy: float, n: int) -> list[tuple[float, float, float, float, bool]]:
    """(x, y, width, height, stacked) of each counter of a stack of ``n`` in the
    hex centred at (cx, cy): one square counter alone; a stack cascades down
    by at least a strip (id and values) per counter, kept between the hex
    number and the bottom of the hex."""
    if n == 1:
        return [(cx - 19, cy - 16, 38.0, 38.0, False)]
    w, h = 46.0, 30.0 if n <= 3 else 26.0
    top, bottom = cy - 20.5, cy + 29.0
    dy = min(11.0, (bottom - top - h) / (n - 1))
    dx = 1.5
    x0 = cx - (w + dx * (n - 1)) / 2
    y0 = max(top, cy + 4 - (h + dy * (n - 1)) / 2)
    return [(x0 + dx * i, y0 + dy * i, w, h, True) for i in range(n)]


_CELL = 64.0          # the side of a cell of the counters' index in _place_names (px)


def _place_names(spots_of: list[tuple[str, float, list[tuple[float, float]]]],
                 boxes: list[tuple[float, float, float, float]]) -> tuple[list[str], list[str]]:
    """Place names, once per place, where they run under no counter (the first spot
    of ``mapboard._place_spots`` clear of every counter); measured with the font's widths.  A
    name with no clear spot at all is drawn above the counters (the second list),
    never under one."""
    cells: dict[tuple[int, int], list[tuple[float, float, float, float]]] = {}
    for b in boxes:                                   # each counter under every cell it touches
        for i in range(int(b[0] // _CELL), int(b[2] // _CELL) + 1):
            for j in range(int(b[1] // _CELL), int(b[3] // _CELL) + 1):
                cells.setdefault((i, j), []).append(b)
    style = ('font-size="9.5" font-style="italic" fill="#3b2410" text-anchor="middle" stroke="#ffffff" '
             'stroke-width="3" stroke-opacity="0.8" stroke-linejoin="round" paint-order="stroke"')
    under = [f'<g class="places" {style}>']
    over = [f'<g class="places places-over" {style}>']
    for name, half, spots in spots_of:
        clear = None
        for x, y in spots:
            lx, hx, ly, hy = x - half, x + half, y - 7.5, y + 2.5
            near = {b for i in range(int(lx // _CELL), int(hx // _CELL) + 1)
                    for j in range(int(ly // _CELL), int(hy // _CELL) + 1) for b in cells.get((i, j), ())}
            if not any(bx0 < hx and lx < bx1 and by0 < hy and ly < by1 for bx0, by0, bx1, by1 in near):
                clear = (x, y)
                break
        x, y = clear or spots[0]
        (under if clear else over).append(f'<text class="place" x="{_f(x)}" y="{_f(y)}">{_esc(name)}</text>')
    return under + ["</g>"], (over + ["</g>"] if len(over) > 1 else [])


def _eliminated_box(units: list[dict], x0: float, y0: float, width: float) -> tuple[list[str], float]:
    """A framed box of small counters for the eliminated units, side by side."""
    s, gap, head = 34.0, 6.0, 84.0
    per_row = max(1, int((width - head - 8) // (s + gap)))
    rows = (len(units) + per_row - 1) // per_row
    h = rows * (s + gap) + gap
    out = [f'<g class="eliminated-box"><rect x="{_f(x0)}" y="{_f(y0)}" width="{_f(width)}" height="{_f(h)}" '
           f'rx="3" fill="#efe9dc" stroke="#8a8272"/>',
           f'<text x="{_f(x0 + 8)}" y="{_f(y0 + 17)}" font-size="11" font-weight="bold" fill="#333333">'
           f'Eliminated</text>']
    for i, u in enumerate(sorted(units, key=lambda u: (str(u.get("side", "")), str(u.get("id", ""))))):
        r, c = divmod(i, per_row)
        face = {k: v for k, v in (u.get("face") or {}).items() if k == "values"}    # no markers, no front: gone
        out += _counter(dict(u, status=[], face=face), x0 + head + c * (s + gap), y0 + gap + r * (s + gap), s, s)
    out.append("</g>")
    return out, h
