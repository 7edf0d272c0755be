"""A map's texts turned into the outlines of their glyphs before resvg draws it.

resvg spends most of a small picture's time laying out its texts: it finds the face,
shapes the string and extracts every glyph's outline on every call, and a map is drawn
in many small pictures (``tiles``).  Here each ``<text>`` becomes one ``<path>``: shaped
with HarfBuzz (uharfbuzz, the library resvg's own shaper is a port of, so the same
glyphs, kerning and ligatures), in the bundled face resvg picks (``png`` hands it the bundled fonts only, so every family
a map names is drawn in DejaVu Sans), each glyph's
outline read once.  The path keeps the text's paint (fill, stroke, paint order), is
drawn anti-aliased as resvg draws text, and lands where resvg puts the glyphs (the
tests compare the pixels).  A text this does not know how to place exactly (a
transform, spacing, a weight or slant the bundled fonts do not have, a character they
lack) is left as it is, for resvg to lay out; so is every text when uharfbuzz is not
installed.  The SVG a player receives is never changed: only resvg's copy is.
"""
from __future__ import annotations

import re
from html import unescape

__all__ = ["outline", "words"]

_TOKEN = re.compile(r"<(svg|g)\b([^>]*?)(/?)>|</g>|</svg>|<text\b([^>]*)>([^<]*)</text>")
_ATTR = re.compile(r'\s([A-Za-z_:][-A-Za-z0-9_:.]*)="([^"]*)"')
# inherited attributes that say where and in which face a text goes
_PLACE = ("font-size", "font-weight", "font-style", "text-anchor", "font-family")
# inherited attributes that change a text's layout in a way this does not follow
_UNKNOWN_INHERITED = ("letter-spacing", "word-spacing", "dominant-baseline", "alignment-baseline",
                      "baseline-shift", "writing-mode", "direction", "font-variant", "font-stretch",
                      "text-decoration", "style", "xml:space", "font", "font-kerning", "text-rendering",
                      "font-feature-settings", "unicode-bidi", "glyph-orientation-horizontal")
# a text's own attributes the path keeps (its paint); any other than these and _PLACE: left as text
_LENGTH = ("textLength", "lengthAdjust")
_PAINT = frozenset(("fill", "fill-opacity", "stroke", "stroke-width", "stroke-opacity", "stroke-linejoin",
                    "stroke-linecap", "stroke-dasharray", "stroke-dashoffset", "stroke-miterlimit",
                    "paint-order", "opacity", "class", "id"))
_SIZE = re.compile(r"^\s*(\d+(?:\.\d*)?|\.\d+)(?:px)?\s*$")
_FACES: dict[str, object] = {}
_done: dict[tuple, str | None] = {}
_hb = None


def outline(svg: str) -> str:
    """``svg`` with each text it can place exactly drawn as a path of its glyphs."""
    if "<text" not in svg or not _harfbuzz():
        return svg
    stack: list[tuple] = [()]

    def sub(m: re.Match) -> str:
        whole = m.group(0)
        if whole in ("</g>", "</svg>"):
            if len(stack) > 1:
                stack.pop()
            return whole
        if m.group(1):                                   # <svg ...> or <g ...>: what it passes on
            if m.group(3):                               # <g/>: nothing inside
                return whole
            got = stack[-1]
            attrs = m.group(2)
            if attrs.strip():
                mine = _ATTR.findall(attrs)
                if any(k in _UNKNOWN_INHERITED for k, _v in mine):
                    got = (("?", ""),)
                elif got != (("?", ""),):
                    got = tuple(sorted({**dict(got), **{k: v for k, v in mine if k in _PLACE}}.items()))
            stack.append(got)
            return whole
        key = (stack[-1], whole)
        got = _done.get(key, False)
        if got is False:
            got = _path(m.group(4), m.group(5), dict(stack[-1]))
            if len(_done) > 20_000:              # a path is a few KB: tens of MB at most
                _done.clear()
            _done[key] = got
        return whole if got is None else got
    return _TOKEN.sub(sub, svg)


def _harfbuzz() -> bool:
    global _hb
    if _hb is None:
        try:
            import uharfbuzz
            _hb = uharfbuzz
        except ImportError:                              # no shaper: resvg lays the texts out
            _hb = False
    return bool(_hb)


class _Face:
    """One bundled font file: HarfBuzz's font and each glyph's outline, read once, as
    relative path commands in thousandths of the font size from the glyph's first point."""
    __slots__ = ("font", "upem", "glyphs")

    def __init__(self, path: str):
        face = _hb.Face(_hb.Blob.from_file_path(path))
        self.font = _hb.Font(face)
        self.upem = face.upem
        self.glyphs: dict[tuple[int, float, float], tuple[float, float, str] | None] = {}

    def glyph(self, gid: int, kx: float, ky: float) -> tuple[float, float, str] | None:
        """Glyph ``gid`` at ``kx`` (across) and ``ky`` (up) SVG units per font unit: (x, y) of
        its first point from its origin (SVG's y downwards) and the path from there,
        relative; None when empty."""
        key = (gid, kx, ky)
        if key in self.glyphs:
            return self.glyphs[key]
        ops: list[tuple[str, tuple]] = []

        class Pen:                                       # uharfbuzz's pen protocol (fontTools')
            def moveTo(self, p):
                ops.append(("m", (p,)))

            def lineTo(self, p):
                ops.append(("l", (p,)))

            def qCurveTo(self, *ps):
                ops.append(("q", ps))

            def curveTo(self, *ps):
                ops.append(("c", ps))

            def closePath(self):
                ops.append(("z", ()))

            def endPath(self):
                pass
        self.font.draw_glyph_with_pen(gid, Pen())
        if not ops:
            self.glyphs[key] = None
            return None
        # each point rounded where it lies (from the glyph's origin) and written as the step
        # from the point before: the steps add up to the rounded points, with no drift
        pts = [(round(x * kx, 3), round(-y * ky, 3)) for _op, ps in ops for x, y in ps]
        x0, y0 = pts[0]
        out: list[str] = []
        cx, cy = x0, y0                                  # the current point
        sx, sy = x0, y0                                  # the current contour's start
        i = 0
        first = True
        for op, ps in ops:
            if op == "z":
                out.append("z")
                cx, cy = sx, sy
                continue
            here = pts[i:i + len(ps)]
            i += len(ps)
            if op == "m":
                if first:
                    first = False
                    sx, sy = cx, cy = here[0]
                    continue
                out.append(f"m{_n(here[0][0] - cx)},{_n(here[0][1] - cy)}")
                sx, sy = cx, cy = here[0]
                continue
            if op == "q" and len(ps) > 2:                # several off-curve points: implied on-curve between
                return None
            out.append(op + " ".join(f"{_n(x - cx)},{_n(y - cy)}" for x, y in here))
            cx, cy = here[-1]
        got = (x0, y0, "".join(out))
        if len(self.glyphs) > 50_000:                # squeezed labels make a size of their own each
            self.glyphs.clear()
        self.glyphs[key] = got
        return got


def _n(v: float) -> str:
    s = f"{v:.3f}".rstrip("0").rstrip(".")
    return "0" if s in ("", "-0") else s


def _face(style: str) -> _Face:
    got = _FACES.get(style)
    if got is None:
        from pbem.report.png import FONT_FILES
        got = _FACES[style] = _Face(FONT_FILES[("regular", "bold", "oblique").index(style)])
    return got


def _shaped(attrs: str, content: str, inherited: dict[str, str]):
    """A text shaped as ``_path`` draws it: (own attributes, face, glyph infos, positions,
    x scale, y scale, the first glyph's pen, y), "" when it draws nothing, None when it is
    left as a text."""
    if "?" in inherited:
        return None
    own = dict(_ATTR.findall(attrs))
    if any(k not in _PAINT and k not in _PLACE and k not in ("x", "y") and k not in _LENGTH for k in own):
        return None
    if "textLength" in own and own.get("lengthAdjust") != "spacingAndGlyphs":
        return None                                       # spacing alone: left for resvg
    st = {**inherited, **{k: v for k, v in own.items() if k in _PLACE}}
    try:
        x, y = float(own["x"]), float(own["y"])
        size = float(_SIZE.match(st["font-size"]).group(1))
    except (KeyError, ValueError, AttributeError):
        return None
    weight, style = st.get("font-weight", "normal"), st.get("font-style", "normal")
    if weight not in ("normal", "400", "bold", "700") or style not in ("normal", "italic", "oblique"):
        return None
    bold, slanted = weight in ("bold", "700"), style != "normal"
    if bold and slanted:                                 # no bold oblique face is bundled
        return None
    text = _spaced(content)
    if not text:
        return ""
    face = _face("bold" if bold else "oblique" if slanted else "regular")
    infos, places = _shape(face, text)
    if any(g.codepoint == 0 for g in infos):             # a character the face lacks
        return None
    k = size / face.upem
    advance = sum(p.x_advance for p in places) * k
    kx = k
    if "textLength" in own:                               # squeezed (or stretched) to that length, glyphs too
        try:
            length = float(own["textLength"])
        except ValueError:
            return None
        if length <= 0 or advance <= 0:
            return None
        kx, advance = k * length / advance, length
    anchor = st.get("text-anchor", "start")
    if anchor not in ("start", "middle", "end"):
        return None
    pen = x - {"start": 0.0, "middle": advance / 2, "end": advance}[anchor]
    return own, st, face, text, infos, places, kx, k, pen, y


def _spaced(content: str) -> str:
    """A text's characters as SVG's default white space lays them out: new lines dropped,
    tabs as spaces, the ends trimmed, runs of spaces as one."""
    return re.sub(" +", " ", unescape(content).replace("\n", "").replace("\t", " ")).strip(" ")


def _shape(face, text: str):
    buf = _hb.Buffer()
    buf.add_str(text)
    buf.guess_segment_properties()
    _hb.shape(face.font, buf)
    return buf.glyph_infos, buf.glyph_positions


def _path(attrs: str, content: str, inherited: dict[str, str]) -> str | None:
    """The path of one text's glyphs ("" when it draws nothing), None to leave it a text."""
    got = _shaped(attrs, content, inherited)
    if not got:
        return got
    own, _st, face, _text, infos, places, kx, k, pen, y = got
    d: list[str] = []
    for g, p in zip(infos, places):
        got = face.glyph(g.codepoint, kx, k)
        if got is not None:
            gx, gy, rel = got
            d.append(f"M{pen + p.x_offset * kx + gx:.3f},{y - p.y_offset * k + gy:.3f}{rel}")
        pen += p.x_advance * kx
    if not d:
        return ""
    paint = "".join(f' {n}="{v}"' for n, v in own.items() if n in _PAINT)
    return f'<path{paint} d="{"".join(d)}" fill-rule="nonzero" shape-rendering="geometricPrecision"/>'


def words(attrs: str, content: str, inherited: dict[str, str]) -> list[tuple[float, str]] | None:
    """A text (laid from its start) as its words: [(x, word)], each word a text of its own at
    x drawing exactly the glyphs, at exactly the places, that the whole text's path draws
    for it (``_path``: the same pen, added up the same way, so the same numbers); None when
    that cannot be said (no shaper, another anchor, a squeezed text, a word that shapes
    otherwise alone)."""
    if not _harfbuzz() or "textLength" in attrs:
        return None
    got = _shaped(attrs, content, inherited)
    if not got or got[1].get("text-anchor", "start") != "start":
        return None
    _own, _st, face, text, infos, places, kx, _k, pen, _y = got
    starts, at = [], 0                                   # each word's first character
    for w in text.split(" "):
        starts.append((at, w))
        at += len(w) + 1
    out, i = [], 0
    for first, w in starts:
        if not w:
            return None
        while i < len(infos) and infos[i].cluster < first:
            pen += places[i].x_advance * kx
            i += 1
        j = i
        while j < len(infos) and infos[j].cluster < first + len(w):
            j += 1
        alone_i, alone_p = _shape(face, w)               # shaped alone: the same glyphs and places
        if ([g.codepoint for g in alone_i] != [g.codepoint for g in infos[i:j]]
                or [(p.x_advance, p.x_offset, p.y_offset) for p in alone_p]
                != [(p.x_advance, p.x_offset, p.y_offset) for p in places[i:j]]):
            return None
        out.append((pen, w))
    return out
