"""What a counter shows beyond its id and symbol, and the tactical marks of the map:
the front (facing) and a turned turret on the hex spines, status markers on the counter,
wrecks left in their hex, markers standing in a hex (smoke, fire missions...) and a
line from firer to target for each shot of the step.

The data is the game's (``Ruleset.counter_face``, ``Ruleset.map_marks`` "markers",
``Ruleset.map_shots``); every colour and word comes with it.  Nothing here knows a game.
Bearings are degrees clockwise from the map's up: with flat-topped hexes the spines are
at 30, 90, 150, 210, 270 and 330, the hexsides at 0, 60, ... 300."""
from __future__ import annotations

import math

from pbem.report.fontmetrics import text_width
from pbem.report.mapsvg import HEX_R, _esc, _f, _pts, hex_corners

__all__ = ["chip", "counter_marks", "front_marks", "wreck_body", "markers_svg", "shots_svg",
           "FRONT_COLOUR", "TURRET_COLOUR", "SHOT_STYLES", "WRECK_FILL", "BURNING_COLOUR"]

FRONT_COLOUR = "#111111"
TURRET_COLOUR = "#1f5fbf"
WRECK_FILL = "#5c5c5c"
BURNING_COLOUR = "#e8590c"
CHIP_H = 9.0
CHIP_FS = 7.0
# kind -> (colour, dash, legend label)
SHOT_STYLES: dict[str, tuple[str, str, str]] = {
    "direct": ("#c2185b", "", "shot (firer to target)"),
    "indirect": ("#e65100", "2 3", "indirect fire (spotter to impact)"),
}


def _point(cx: float, cy: float, bearing: float, r: float) -> tuple[float, float]:
    a = math.radians(bearing)
    return cx + r * math.sin(a), cy - r * math.cos(a)


def chip(x: float, y: float, text: str, colour: str, anchor: str = "start") -> tuple[str, float]:
    """A small marker chip (a rounded label) with its top left at (x, y), or its top right
    with ``anchor="end"``; returns (svg, width)."""
    w = max(CHIP_H, text_width(text, CHIP_FS, True) + 3.5)
    if anchor == "end":
        x -= w
    return (f'<rect x="{_f(x)}" y="{_f(y)}" width="{_f(w)}" height="{_f(CHIP_H)}" rx="2" fill="{_esc(colour)}" '
            f'stroke="#ffffff" stroke-width="0.8"/>'
            f'<text x="{_f(x + w / 2)}" y="{_f(y + CHIP_H - 2)}" font-size="{_f(CHIP_FS)}" font-weight="bold" '
            f'text-anchor="middle" fill="#ffffff">{_esc(text)}</text>'), w


def counter_marks(marks: list[dict], x0: float, y0: float, w: float, h: float, stacked: bool,
                  room: float = 0.0) -> list[str]:
    """The status markers of a counter: alone, a column of chips over its right edge (then its
    left edge); in a stack, a row of chips right-aligned in its visible strip (``room``: the
    width left of the strip's text)."""
    out = []
    if stacked:
        x, left = x0 + w - 1.5, x0 + w - room
        for i, m in enumerate(marks):
            svg, cw = chip(x, y0 + 1, str(m.get("text", "")), str(m.get("colour", "#333333")), "end")
            rest = marks[i + 1:]
            more_w = chip(0, 0, f"+{len(rest)}", "#333333")[1] + 1 if rest else 0.0
            if x - cw - more_w < left:                  # the strip is full: "+N", the rest named in its title
                rest = marks[i:]
                more, _w = chip(x, y0 + 1, f"+{len(rest)}", "#333333", "end")
                names = "; ".join(str(r.get("label", "")) for r in rest)
                out.append(f'<g class="status-mark more" data-mark="{" ".join(_esc(r.get("key", "")) for r in rest)}">'
                           f'<title>{_esc(names)}</title>{more}</g>')
                break
            out.append(f'<g class="status-mark" data-mark="{_esc(m.get("key", ""))}"><title>{_esc(m.get("label", ""))}</title>{svg}</g>')
            x -= cw + 1
        return out
    for i, m in enumerate(marks[:8]):
        col, row = divmod(i, 4)
        y = y0 + 1 + row * (CHIP_H + 1)
        if col == 0:
            svg, _cw = chip(x0 + w + 6, y, str(m.get("text", "")), str(m.get("colour", "#333333")), "end")
        else:
            svg, _cw = chip(x0 - 6, y, str(m.get("text", "")), str(m.get("colour", "#333333")))
        out.append(f'<g class="status-mark" data-mark="{_esc(m.get("key", ""))}"><title>{_esc(m.get("label", ""))}</title>{svg}</g>')
    return out


def wreck_body(x0: float, y0: float, w: float, h: float, burning: bool) -> list[str]:
    """A wreck: a dark counter crossed out, with flames when it burns."""
    out = [f'<rect class="wreck-body" x="{_f(x0)}" y="{_f(y0)}" width="{_f(w)}" height="{_f(h)}" rx="2" '
           f'fill="{WRECK_FILL}" stroke="#1a1a1a" stroke-width="1"/>',
           f'<path d="M{_f(x0 + 4)},{_f(y0 + 4)} L{_f(x0 + w - 4)},{_f(y0 + h - 4)} M{_f(x0 + w - 4)},{_f(y0 + 4)} '
           f'L{_f(x0 + 4)},{_f(y0 + h - 4)}" stroke="#2a2a2a" stroke-width="2.2" stroke-opacity="0.7"/>']
    if burning:
        out.append(flame(x0 + w - 7, y0 + h - 3, min(w, h) * 0.42))
    return out


def flame(cx: float, base: float, size: float) -> str:
    """A flame of height ``size`` standing on (cx, base)."""
    s = size
    return (f'<path class="flame" d="M{_f(cx)},{_f(base)} C{_f(cx - s * 0.55)},{_f(base)} {_f(cx - s * 0.5)},'
            f'{_f(base - s * 0.55)} {_f(cx - s * 0.12)},{_f(base - s)} C{_f(cx - s * 0.05)},{_f(base - s * 0.6)} '
            f'{_f(cx + s * 0.25)},{_f(base - s * 0.7)} {_f(cx + s * 0.3)},{_f(base - s * 0.85)} '
            f'C{_f(cx + s * 0.55)},{_f(base - s * 0.45)} {_f(cx + s * 0.45)},{_f(base)} {_f(cx)},{_f(base)} z" '
            f'fill="{BURNING_COLOUR}" stroke="#7a1f00" stroke-width="0.8"/>')


def front_wedge(cx: float, cy: float, bearing: float, fill: str, size: float = 1.0) -> str:
    """The front marker: a dark wedge on the hex spine (or hexside) at ``bearing``, pointing out."""
    tip = _point(cx, cy, bearing, HEX_R * 0.97)
    base = _point(cx, cy, bearing, HEX_R * (0.97 - 0.36 * size))
    left, right = _point(*base, bearing - 90, 6.5 * size), _point(*base, bearing + 90, 6.5 * size)
    return f'<polygon points="{_pts([tip, left, right])}" fill="{_esc(fill)}" stroke="#ffffff" stroke-width="1"/>'


def turret_mark(cx: float, cy: float, bearing: float) -> str:
    """The turret marker: a ring with a gun barrel on the spine the turret faces."""
    ring = _point(cx, cy, bearing, HEX_R * 0.62)
    muzzle = _point(cx, cy, bearing, HEX_R * 0.98)
    return (f'<line x1="{_f(ring[0])}" y1="{_f(ring[1])}" x2="{_f(muzzle[0])}" y2="{_f(muzzle[1])}" '
            f'stroke="{TURRET_COLOUR}" stroke-width="3" stroke-linecap="round"/>'
            f'<circle cx="{_f(ring[0])}" cy="{_f(ring[1])}" r="4.2" fill="#ffffff" stroke="{TURRET_COLOUR}" '
            f'stroke-width="2"/>')


def front_marks(faced: list[tuple[dict, float, float]]) -> list[str]:
    """The fronts and turned turrets of the units (row, hex centre) that have one."""
    out = ['<g class="facings">']
    for u, cx, cy in faced:
        face = u.get("face") or {}
        uid = _esc(u.get("id", ""))
        front = face.get("front")
        if front is not None:
            out.append(f'<g class="front" data-unit="{uid}" data-bearing="{_f(float(front))}">'
                       f'<title>{uid} faces {_esc(face.get("front_label", ""))}</title>'
                       f'{front_wedge(cx, cy, float(front), FRONT_COLOUR)}</g>')
        turret = face.get("turret")
        if turret is not None:
            out.append(f'<g class="turret" data-unit="{uid}" data-bearing="{_f(float(turret))}">'
                       f'<title>{uid} turret {_esc(face.get("turret_label", ""))}</title>'
                       f'{turret_mark(cx, cy, float(turret))}</g>')
    out.append("</g>")
    return out


def markers_svg(centre: dict, markers: list[dict]) -> tuple[list[str], list[str], list[tuple[str, str, str]]]:
    """Markers standing in a hex (smoke, a fire mission...): an inner outline (a tint with
    ``fill``) under the counters, and a chip at the hex's lower right above them, one above
    the other; returns (under, over, legend entries (label, text, colour))."""
    under, over, legend = ['<g class="hex-markers">'], ['<g class="hex-marker-chips">'], []
    count: dict[str, int] = {}
    for m in markers:
        h = str(m.get("hex", ""))
        if h not in centre:
            continue
        cx, cy = centre[h]
        colour, text = str(m.get("colour", "#333333")), str(m.get("text", ""))
        label = str(m.get("label", "")) or text
        fill = f'fill="{_esc(colour)}" fill-opacity="0.28"' if m.get("fill") else 'fill="none"'
        under.append(f'<polygon class="hex-marker" data-hex="{h}" data-mark="{_esc(m.get("key", ""))}" '
                     f'points="{_pts(hex_corners(cx, cy, HEX_R - 6 - 3 * count.get(h, 0)))}" {fill} '
                     f'stroke="{_esc(colour)}" stroke-width="2" stroke-dasharray="{_esc(m.get("dash", "5 2"))}"/>')
        svg, _w = chip(cx + HEX_R * 0.78, cy + HEX_R * 0.62 - CHIP_H - count.get(h, 0) * (CHIP_H + 1), text, colour, "end")
        over.append(f'<g class="marker" data-hex="{h}" data-mark="{_esc(m.get("key", ""))}"><title>{_esc(label)}</title>'
                    f'{svg}</g>')
        count[h] = count.get(h, 0) + 1
        if (label, text, colour) not in legend:
            legend.append((label, text, colour))
    return under + ["</g>"], over + ["</g>"], legend


def shots_svg(centre: dict, shots: list[dict], at: dict[str, str]) -> tuple[list[str], list[str]]:
    """A line from firer to target for each shot (``at``: the hex of each unit the viewer sees;
    a firer it does not see draws no line); returns (svg, the kinds drawn)."""
    out, kinds = ['<g class="shots">'], []
    seen = set()
    for s in shots:
        a = at.get(str(s.get("firer", ""))) or ""
        b = at.get(str(s.get("target", ""))) or str(s.get("hex", ""))
        if a not in centre or b not in centre or a == b:
            continue
        kind = s.get("kind", "direct") if s.get("kind") in SHOT_STYLES else "direct"
        key = (a, b, kind)
        if key in seen:
            continue
        seen.add(key)
        colour, dash, _label = SHOT_STYLES[kind]
        (ax, ay), (bx, by) = centre[a], centre[b]
        d = math.hypot(bx - ax, by - ay) or 1.0
        cut = min(HEX_R * 0.5, d * 0.4)
        ex, ey = bx - (bx - ax) / d * cut, by - (by - ay) / d * cut
        dash_attr = f' stroke-dasharray="{dash}"' if dash else ""
        out.append(f'<g class="shot shot-{kind}" data-firer="{_esc(s.get("firer", ""))}" '
                   f'data-target="{_esc(s.get("target", "") or b)}" data-from="{a}" data-to="{b}">'
                   f'<title>{_esc(s.get("label", ""))}</title>'
                   f'<line x1="{_f(ax)}" y1="{_f(ay)}" x2="{_f(ex)}" y2="{_f(ey)}" stroke="#ffffff" '
                   f'stroke-opacity="0.8" stroke-width="5" stroke-linecap="round"/>'
                   f'<line class="shot-line" x1="{_f(ax)}" y1="{_f(ay)}" x2="{_f(ex)}" y2="{_f(ey)}" '
                   f'stroke="{colour}" stroke-width="2.4"{dash_attr} marker-end="url(#arrow-shot-{kind})"/></g>')
        if kind not in kinds:
            kinds.append(kind)
    out.append("</g>")
    return out, kinds


def shot_defs() -> list[str]:
    """The shots' arrowheads (a burst: a star-like head)."""
    return [f'<marker id="arrow-shot-{kind}" viewBox="0 0 10 10" refX="8" refY="5" markerUnits="userSpaceOnUse" '
            f'markerWidth="12" markerHeight="12" orient="auto"><path d="M0,0 L10,5 L0,10 L3,5 z" fill="{colour}"/>'
            f'</marker>' for kind, (colour, _d, _l) in SHOT_STYLES.items()]
