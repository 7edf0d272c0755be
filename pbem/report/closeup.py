"""Big boards by mail: a readable close-up of where the step happened, and the board.

A mail client shows a PNG at its own size, and the mailed PNG is at most
``map_width`` pixels wide (1,400 by default).  A board whose map is wider is
shrunk to fit, and its counters' labels with it: the 2,260-pixel board of a
large scenario shrinks to 62 %, a 7-pixel counter id to 4 pixels, which no one
can read.  A board that fits ``map_width`` at its own size goes as one PNG at that
size.  A wider one (``big_board``) goes as two: first the close-up, the area where
this step happened (the moves, the hexes fought over; else the viewer's own units)
at the scale at which the smallest counter label is ``READABLE`` pixels tall, at
most ``map_width`` by ``CLOSEUP_HEIGHT`` pixels; then the whole board shrunk to
``map_width`` (the overview, as before).  The text says that ``MAP SVG`` brings
the whole map, sharp at any zoom (``note``).

The close-up is the same SVG drawn through another viewport (its ``viewBox``),
so it shows exactly what the whole map shows there; the PNG says which part in a
``pbem-viewbox`` text chunk ("x y width height" in the SVG's units).  It is a block
of whole tiles of the map drawn at its scale (``tiles.layout``'s ``window``), so a
tile that an earlier close-up of the game (another viewer's, an earlier position's)
drew is not drawn again: a close-up costs its changed tiles.
"""
from __future__ import annotations

import math
import re

__all__ = ["READABLE", "CLOSEUP_HEIGHT", "label_scale", "svg_size", "focus_rect", "closeup_svg", "closeup_png", "big_board", "note"]

READABLE = 10.5            # px: a counter label's height in the mailed picture, at least
CLOSEUP_HEIGHT = 900       # px: the close-up's height

_ID_FONT = re.compile(r'class="unit-id"[^>]*?font-size="([0-9.]+)"')
_ROOT = re.compile(r'<svg\b[^>]*>')


def svg_size(svg: str) -> tuple[float, float]:
    """The map's (width, height) in its own units (pixels at scale 1)."""
    root = _ROOT.search(svg[:2000])
    w = re.search(r'\swidth="([0-9.]+)"', root.group(0)) if root else None
    h = re.search(r'\sheight="([0-9.]+)"', root.group(0)) if root else None
    return (float(w.group(1)) if w else 0.0), (float(h.group(1)) if h else 0.0)


def label_scale(svg: str) -> float:
    """The scale at which the smallest counter label of ``svg`` is ``READABLE`` px tall (at least 1)."""
    sizes = [float(x) for x in _ID_FONT.findall(svg)]
    return max(1.0, READABLE / min(sizes)) if sizes else 1.0


def focus_rect(svg: str, points: list[tuple[float, float]], pad: float, scale: float,
               max_width: int, max_height: int = CLOSEUP_HEIGHT) -> tuple[float, float, float, float]:
    """(x, y, width, height) in SVG units: what ``max_width`` x ``max_height`` pixels show
    at ``scale`` (the whole map where it is smaller), centred on the box of ``points``
    widened by ``pad`` (on the last point when that box is larger), kept inside the map.
    The rectangle is a block of whole tiles of the map drawn at ``scale`` (``tiles.TILE``
    pixels a side: its corner on their grid, as many as fit, the last ones to the map's
    edge), placed so that the widened box stays inside when it fits."""
    from pbem.report.tiles import TILE
    W, H = svg_size(svg)
    ts = TILE / scale                                # a tile's side in SVG units
    if not points:
        points = [(W / 2, H / 2)]
    xs, ys = [p[0] for p in points], [p[1] for p in points]
    if min(max_width, max_height) < TILE:            # smaller than a tile: anywhere (drawn whole)
        x0, x1, y0, y1 = min(xs) - pad, max(xs) + pad, min(ys) - pad, max(ys) + pad
        cap_w, cap_h = max_width / scale, max_height / scale
        w, h = float(math.floor(min(cap_w, W))), float(math.floor(min(cap_h, H)))
        cx = (x0 + x1) / 2 if x1 - x0 <= cap_w else points[-1][0]
        cy = (y0 + y1) / 2 if y1 - y0 <= cap_h else points[-1][1]
        return (round(min(max(0.0, cx - w / 2), W - w), 1), round(min(max(0.0, cy - h / 2), H - h), 1), w, h)

    def place(lo: float, hi: float, last: float, size: float, cap: int) -> tuple[float, float]:
        n = max(1, cap // TILE)
        if n * ts >= size:                           # the whole map this way
            return 0.0, size
        span = n * ts
        centre = (lo + hi) / 2 if hi - lo <= span else last
        most = math.ceil(size / ts - 1e-9) - n       # the block to the map's edge, its last tile cut there
        k = min(max(0, round((centre - span / 2) / ts)), most)
        if hi - lo <= span:                          # the box inside, when it fits
            k = min(max(k, math.ceil((hi - span) / ts - 1e-9)), math.floor(lo / ts + 1e-9), most)
            k = max(k, 0)
        return k * ts, min(span, size - k * ts)
    x, w = place(min(xs) - pad, max(xs) + pad, points[-1][0], W, max_width)
    y, h = place(min(ys) - pad, max(ys) + pad, points[-1][1], H, max_height)
    return x, y, w, h


def closeup_svg(svg: str, rect: tuple[float, float, float, float]) -> str:
    """``svg`` seen through ``rect``: the root's size and viewBox replaced, the paper under it."""
    root = _ROOT.search(svg)
    tag = root.group(0)
    x, y, w, h = (f"{v:.12g}" for v in rect)        # a tile's edge is a third of a unit, say: exact
    tag = re.sub(r'\swidth="[0-9.]+"', f' width="{w}"', tag, count=1)
    tag = re.sub(r'\sheight="[0-9.]+"', f' height="{h}"', tag, count=1)
    tag = re.sub(r'\sviewBox="[^"]*"', f' viewBox="{x} {y} {w} {h}"', tag, count=1)
    paper = f'<rect x="{x}" y="{y}" width="{w}" height="{h}" fill="#fbf8f0"/>'
    return svg[:root.start()] + tag + "\n" + paper + svg[root.end():]


_drawn: dict[tuple, bytes | None] = {}


def closeup_png(svg: str, rect: tuple[float, float, float, float], scale: float) -> bytes | None:
    """The PNG of ``rect`` of ``svg`` at ``scale`` (None when it cannot be drawn), its
    viewBox in a ``pbem-viewbox`` text chunk; kept by its inputs (the viewers of one
    position often share it); one palette encode (``pngbands``)."""
    from pbem.report.png import COMPRESS_LEVEL, MAP_COLOURS, _has_pillow, _resvg, digest
    key = (digest(svg), rect, scale)
    if key in _drawn:
        return _drawn[key]
    data = _tiled(svg, rect, scale) if _has_pillow() else None
    if data is not None:
        if len(_drawn) >= 32:
            _drawn.clear()
        _drawn[key] = data
        return data
    try:
        data = _resvg(closeup_svg(svg, rect), max(1, math.floor(rect[2] * scale)), _has_pillow())
    except Exception:                    # noqa: BLE001 - no renderer: the overview (or the SVG) goes alone
        return None
    if _has_pillow():
        import io

        from PIL import Image

        from pbem.report import pngbands
        with Image.open(io.BytesIO(data)) as im:
            q = im.convert("RGB").quantize(colors=MAP_COLOURS, method=Image.Quantize.FASTOCTREE,
                                           dither=Image.Dither.NONE)
        n = max(i for _c, i in q.getcolors(MAP_COLOURS)) + 1
        data = pngbands.encode(q.tobytes(), q.width, q.height, bytes(q.getpalette()[:3 * n]), COMPRESS_LEVEL,
                               text={"pbem-viewbox": " ".join(f"{v:g}" for v in rect)})
    if len(_drawn) >= 32:
        _drawn.clear()
    _drawn[key] = data
    return data


def _tiled(svg: str, rect: tuple[float, float, float, float], scale: float) -> bytes | None:
    """The close-up drawn as its block of tiles (``tiles.layout``'s ``window``), quantised
    with the board's palette for close-ups (``png._Palette``), encoded a band at a time;
    None when ``rect`` is not such a block or the SVG cannot be cut (then it is drawn whole)."""
    from pbem.report import png, pngbands, tiles
    W, H = svg_size(svg)
    ts = tiles.TILE / scale
    x, y, w, h = rect
    c0, r0, nc, nr = round(x / ts), round(y / ts), math.ceil(w / ts - 1e-6), math.ceil(h / ts - 1e-6)
    if (abs(c0 * ts - x) > 1e-6 or abs(r0 * ts - y) > 1e-6 or abs(min(nc * ts, W - x) - w) > 1e-6
            or abs(min(nr * ts, H - y) - h) > 1e-6):
        return None

    def render(part: str, width: int) -> bytes | None:
        try:
            return png._resvg(part, width, True)
        except Exception:                # noqa: BLE001 - refused: drawn whole
            return None
    try:
        lay = tiles.layout(svg, 0, render, window=(scale, c0, r0, nc, nr))
    except Exception:                    # noqa: BLE001 - a map the tiles cannot cut: drawn whole
        lay = None
    if lay is None or (lay.width, lay.height) != (max(1, math.ceil(w * scale - 1e-6)), max(1, math.ceil(h * scale - 1e-6))):
        return None
    try:
        pal = png._palette_for(svg, lay, png.MAP_COLOURS)
        return pngbands.encode_bands(pal.bands(lay), lay.width, lay.height, pal.rgb, png.COMPRESS_LEVEL,
                                     text={"pbem-viewbox": " ".join(f"{v:g}" for v in rect)})
    except LookupError:                  # a packed tile forgotten before it was wanted: drawn whole
        return None


def big_board(sc, max_width: int) -> bool:
    """Whether ``sc``'s map is wider than ``max_width`` pixels (its mails carry the close-up)."""
    from pbem.report.mapsvg import MARGIN, _map_size
    return math.ceil(_map_size(sc.board.grid)[0] + 2 * MARGIN) > max_width


def note() -> list[str]:
    """What the text of a mail with a big board's two pictures says of them."""
    return ["The board is large: the first picture shows where this step happened, at a size",
            "whose counters can be read; the second the whole board, small. Send MAP SVG for",
            "the whole map, sharp at any zoom."]
