"""The map's legend: terrain, lines and marks present on this map, counter
colours, the unit symbols in play, what decides the game (objectives, areas)
and the arrows; laid out in labelled rows that wrap, every label measured
with the font's own widths (``fontmetrics``)."""
from __future__ import annotations

from pbem.report.fontmetrics import text_width
from pbem.report.mapsvg import (DISRUPTED_COLOUR, HEX_R, HIGHLIGHT_COLOUR, MOVE_STYLES, RIVER_COLOUR, ROAD_COLOUR,
                                UNKNOWN_TERRAIN, _battle_position, _cliff_path, _esc, _f, _link, _mark, _pts, hex_corners)
from pbem.report.marks import objective_badge
from pbem.report.symbols import symbol
from pbem.report.faces import FRONT_COLOUR, SHOT_STYLES, TURRET_COLOUR, chip, wreck_body


def _legend_front(sx: float, sy: float) -> str:
    """A small hex with the front wedge on its upper right spine."""
    import math
    tip = (sx + 9 * math.sin(math.radians(30)), sy - 9 * math.cos(math.radians(30)))
    return (f'<polygon points="{_pts([tip, (tip[0] - 6.5, tip[1] + 1.2), (tip[0] - 1.5, tip[1] + 6.8)])}" '
            f'fill="{FRONT_COLOUR}" stroke="#ffffff" stroke-width="0.8"/>')

def legend(sc, terrains: list[str], nationalities: list[tuple[str, str]],
            extras: dict[str, bool], x0: float, y0: float, width: float
            ) -> tuple[list[str], float]:
    """Legend rows laid out left to right, wrapping; returns (svg, height)."""
    fs = 11.0
    rows: list[tuple[str, list]] = []                       # (heading, [(label, (kind, arg))])
    items = []
    for t in terrains:
        colour = sc.terrain[t].colour if t in sc.terrain else UNKNOWN_TERRAIN
        items.append((t, ("hex", colour)))
    if extras.get("road"):
        items.append(("road", ("road", "")))
    for style in extras.get("links", []) + extras.get("edges", []):
        items.append((style[3], ("line", style)))
    for shape, colour, label in extras.get("marks", []):
        items.append((label, ("mark", (shape, colour))))
    if extras.get("battle_position"):
        items.append(("battle position", ("bp", "")))
    if extras.get("river"):
        items.append(("river", ("river", "")))
    if extras.get("cliff"):
        items.append(("cliff", ("cliff", "")))
    rows.append(("Map", items))
    items = [(name, ("counter", colour)) for name, colour in nationalities]
    if not extras.get("status") and not extras.get("front"):
        items.append(("disrupted", ("disrupted", "")))      # the core's marker (a game with its own shows those)
    if extras.get("front"):
        items.append(("front (facing spine)", ("front", "")))
    if extras.get("turret"):
        items.append(("turret turned", ("turret", "")))
    for label, burning in extras.get("wreck", []):
        items.append((label, ("wreck", burning)))
    rows.append(("Counters", items))
    if extras.get("formations"):
        rows.append(("Formations", [(label, ("band", colour)) for label, colour in extras["formations"]]))
    if extras.get("status"):
        rows.append(("Status", [(label, ("chip", (text, colour))) for label, text, colour in extras["status"]]))
    if extras.get("markers"):
        rows.append(("Markers", [(label, ("marker", (text, colour))) for label, text, colour in extras["markers"]]))
    if extras.get("types"):
        rows.append(("Units", [(t, ("symbol", t)) for t in extras["types"]]))
    items = []
    if extras.get("objective"):
        items.append(("objective (VP)", ("objective", "")))
    for label, colour in extras.get("areas", []):
        items.append((label, ("area", colour)))
    if items:
        rows.append(("Game", items))
    items = [(label, ("move", kind)) for kind, (_c, _d, label) in MOVE_STYLES.items()]
    for kind in extras.get("shots", []):
        items.append((SHOT_STYLES[kind][2], ("shot", kind)))
    if extras.get("highlight"):
        items.append(("combat hex", ("highlight", "")))
    rows.append(("Arrows", items))

    out = [f'<g class="legend" font-size="{_f(fs)}">']
    y = y0
    for heading, entries in rows:
        key = repr((heading, entries, x0, y, width))
        got = _rows.get(key)
        if got is None:
            if len(_rows) >= 1024:
                _rows.clear()
            got = _rows[key] = _row(heading, entries, x0, y, width)
        out += got[0]
        y = got[1]
    out.append("</g>")
    return out, y - y0


# a row of the legend drawn, by its heading, entries and place: a map's legend changes a
# row at a time (a status, a shot, the combat hexes), its other rows are drawn as before
_rows: dict[str, tuple[list[str], float]] = {}


def _row(heading: str, entries: list, x0: float, y: float, width: float) -> tuple[list[str], float]:
    """One labelled row of the legend at ``y``, wrapping; returns (svg, the next row's y)."""
    fs = 11.0
    row_h = 22.0
    head_w = 72.0

    def hexagon(colour: str) -> str:
        return ('<polygon points="{P}" fill="' + _esc(colour) + '" stroke="#6b6455" '
                'stroke-width="0.8"/>')
    out: list[str] = []
    out.append(f'<text x="{_f(x0)}" y="{_f(y + 4)}" font-weight="bold" fill="#333333">'
               f'{_esc(heading)}</text>')
    x = x0 + head_w
    for label, (kind, arg) in entries:
        w = 26 + text_width(label, fs) + 16
        if x + w > x0 + width and x > x0 + head_w:
            y += row_h
            x = x0 + head_w
        sx, sy = x + 10, y   # swatch centre
        hex_pts = _pts(hex_corners(sx, sy, 9))
        if kind == "hex":
            out.append(hexagon(arg).replace("{P}", hex_pts))
        elif kind == "line":
            out.append(_link(arg, (sx - 10, sy), (sx + 10, sy), "legend"))
        elif kind == "mark":
            out.append(_mark(arg[0], arg[1], sx + HEX_R * 0.55, sy + HEX_R * 0.42, "legend"))
        elif kind in ("road", "river"):
            colour = ROAD_COLOUR if kind == "road" else RIVER_COLOUR
            out.append(f'<line x1="{_f(sx - 10)}" y1="{_f(sy)}" x2="{_f(sx + 10)}" y2="{_f(sy)}" '
                       f'stroke="{colour}" stroke-width="5" stroke-linecap="round"/>')
        elif kind == "bp":
            out.append(hexagon("#eedfb4").replace("{P}", hex_pts))
            out += _battle_position(sx, sy, 0.3)
        elif kind == "cliff":
            out.append(f'<polyline points="{_cliff_path((sx - 10, sy), (sx + 10, sy), 3, 3.5)}" '
                       f'fill="none" stroke="#1e1e1e" stroke-width="2"/>')
        elif kind == "counter":
            out.append(f'<rect x="{_f(sx - 8)}" y="{_f(sy - 8)}" width="16" height="16" rx="2" '
                       f'fill="{_esc(arg)}" stroke="#1a1a1a" stroke-width="1"/>')
        elif kind == "band":
            out.append(f'<rect x="{_f(sx - 8)}" y="{_f(sy - 8)}" width="16" height="16" rx="2" '
                       f'fill="#eeeeee" stroke="#1a1a1a" stroke-width="1"/>'
                       f'<rect x="{_f(sx - 7.5)}" y="{_f(sy - 7.5)}" width="5" height="15" fill="{_esc(arg)}"/>')
        elif kind == "disrupted":
            out.append(f'<rect x="{_f(sx - 8)}" y="{_f(sy - 8)}" width="16" height="16" rx="2" '
                       f'fill="#dddddd" stroke="{DISRUPTED_COLOUR}" stroke-width="2" '
                       f'stroke-dasharray="3 2"/>'
                       f'<circle cx="{_f(sx + 8)}" cy="{_f(sy - 7)}" r="5" fill="{DISRUPTED_COLOUR}"/>'
                       f'<text x="{_f(sx + 8)}" y="{_f(sy - 4.3)}" font-size="7.5" '
                       f'font-weight="bold" text-anchor="middle" fill="#ffffff">D</text>')
        elif kind == "move":
            colour, dash, _ = MOVE_STYLES[arg]
            dash_attr = f' stroke-dasharray="{dash}"' if dash else ""
            out.append(f'<line x1="{_f(sx - 11)}" y1="{_f(sy)}" x2="{_f(sx + 9)}" y2="{_f(sy)}" '
                       f'stroke="{colour}" stroke-width="3"{dash_attr} '
                       f'marker-end="url(#arrow-{arg})"/>')
        elif kind in ("chip", "marker"):
            svg, cw = chip(sx - 9, sy - 4.5, arg[0], arg[1])
            if kind == "marker":
                out.append(f'<polygon points="{hex_pts}" fill="none" stroke="{_esc(arg[1])}" stroke-width="1.6" '
                           f'stroke-dasharray="3 2"/>')
            out.append(svg)
        elif kind == "front":
            out.append(hexagon("#eeeeee").replace("{P}", hex_pts))
            out.append(_legend_front(sx, sy))
        elif kind == "turret":
            out.append(hexagon("#eeeeee").replace("{P}", hex_pts))
            out.append(f'<line x1="{_f(sx)}" y1="{_f(sy)}" x2="{_f(sx + 8)}" y2="{_f(sy)}" stroke="{TURRET_COLOUR}" '
                       f'stroke-width="2.4" stroke-linecap="round"/><circle cx="{_f(sx)}" cy="{_f(sy)}" r="3.6" '
                       f'fill="#ffffff" stroke="{TURRET_COLOUR}" stroke-width="1.8"/>')
        elif kind == "wreck":
            out += wreck_body(sx - 8, sy - 8, 16, 16, arg)
        elif kind == "shot":
            colour, dash, _l = SHOT_STYLES[arg]
            dash_attr = f' stroke-dasharray="{dash}"' if dash else ""
            out.append(f'<line x1="{_f(sx - 11)}" y1="{_f(sy)}" x2="{_f(sx + 9)}" y2="{_f(sy)}" '
                       f'stroke="{colour}" stroke-width="2.4"{dash_attr} marker-end="url(#arrow-shot-{arg})"/>')
        elif kind == "symbol":
            out += symbol(arg, sx, sy, 20, 13)
        elif kind == "objective":
            out.append(f'<polygon points="{hex_pts}" fill="none" stroke="#b8860b" '
                       f'stroke-width="2.2"/>')
            out += objective_badge(sx, sy, 2)
        elif kind == "area":
            out.append(f'<polygon points="{hex_pts}" fill="{arg}" fill-opacity="0.3" '
                       f'stroke="{arg}" stroke-width="1.6" stroke-dasharray="3 2"/>')
        elif kind == "highlight":
            out.append(f'<polygon points="{hex_pts}" fill="none" '
                       f'stroke="{HIGHLIGHT_COLOUR}" stroke-width="3"/>')
        out.append(f'<text x="{_f(x + 26)}" y="{_f(y + 4)}" fill="#222222">{_esc(label)}</text>')
        x += w
    y += row_h
    return out, y

