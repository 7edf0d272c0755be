"""The map's picture drawn a tile at a time, each tile once (``picture``).

resvg's cost is per call, per pixel drawn and per text laid out, and one map differs
from the last of its game in a few hexes.  So the picture is cut into square tiles
(``TILE`` pixels); a tile is keyed by the SVG of every element whose box meets it, in
the map's own order, and its pixels are kept by that text: a tile whose elements did
not change is not drawn again, whichever map it belongs to.  A missing tile is laid
together from kept pictures: its board (everything up to the hex numbers) and, over
it, the picture of each of its items (``sprites``), each drawn only when no earlier
map had it.  A board that changed (a highlighted hex, an objective's holder, an area
of the phase: ``_OVERLAYS``) is the board as every map draws it with those painted
over it.  Boards no map drew yet are drawn in one block when they lie together (a
first map) and cut; a close-up's first board at its scale is the whole board at that
scale, so a later close-up anywhere draws no board (close-ups drift over a game).  The
title bar, which names the head, is a band of whole rows laid over the tiles the same way.  A text that runs on past a
tile's right edge is cut there (``_clip``), so the tile's key stays the same when only
the far end of a long line changed.

An element's box comes from its coordinates (points, x/y, circles, rectangles,
paths, text with a generous width), widened by ``MARGIN`` for strokes, arrowheads
and anti-aliasing: too big a box only costs a tile more.  What this cannot read
(a ``transform``, an element of no coordinates) covers every tile.  The map must
look as drawn whole: tests/test_perf_maps.py and test_perf_png.py compare the pixels."""
from __future__ import annotations

import math
import re
from itertools import accumulate

from pbem.report import tilegrid
from pbem.report.bystring import ByString
from pbem.report.sprites import SPRITE_MAX, Painter
from pbem.report.tilestore import TileStore, image

__all__ = ["picture", "layout", "Layout", "TILE"]

TILE = 128                 # px of the final picture
MARGIN = 14.0              # SVG units added around every element's box


_kept = TileStore()
_cells: dict[tuple, dict] = {}
_boxes: dict[str, tuple[float, float, float, float] | None] = {}

_NUM = r"-?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?"
_ATTR = re.compile(r'\s(x|y|cx|cy|x1|y1|x2|y2|width|height|r|rx|ry|font-size|textLength)="(' + _NUM + ')"')
_POINTS = re.compile(r'\spoints="([^"]*)"')
_PATH = re.compile(r'\sd="([^"]*)"')
_TOKENS = re.compile(r"[A-Za-z]|" + _NUM)
_TEXT = re.compile(r"<text\b([^>]*)>([^<]*)</text>")
_ELEMENT = re.compile(r"<(rect|circle|ellipse|line|polyline|polygon|path|text|use|image)\b([^>]*)>")
EVERYWHERE = (-math.inf, -math.inf, math.inf, math.inf)


def _path_points(d: str) -> tuple[list[tuple[float, float]], float] | None:
    """The points a path's commands pass through (absolute) and the largest arc radius."""
    out: list[tuple[float, float]] = []
    pad = 0.0
    x = y = sx = sy = 0.0
    cmd = ""
    nums: list[float] = []
    arity = {"M": 2, "L": 2, "T": 2, "H": 1, "V": 1, "C": 6, "S": 4, "Q": 4, "A": 7, "Z": 0}
    tokens = _TOKENS.findall(d)
    i = 0
    while i < len(tokens):
        t = tokens[i]
        if t.isalpha():
            cmd = t
            i += 1
            if cmd in "Zz":
                x, y = sx, sy
            continue
        c = cmd.upper()
        n = arity.get(c)
        if not n:
            return None
        nums = [float(v) for v in tokens[i:i + n]]
        if len(nums) < n:
            return None
        i += n
        rel = cmd.islower()
        if c == "H":
            x = x + nums[0] if rel else nums[0]
        elif c == "V":
            y = y + nums[0] if rel else nums[0]
        else:
            if c == "A":
                pad = max(pad, abs(nums[0]), abs(nums[1]))
                pts = [(nums[5], nums[6])]
            else:
                pts = [(nums[k], nums[k + 1]) for k in range(0, n, 2)]
            for px, py in pts:
                out.append((x + px, y + py) if rel else (px, py))
            x, y = out[-1]
        out.append((x, y))
        if c == "M":
            sx, sy = x, y
            cmd = "l" if rel else "L"              # later pairs of a moveto are linetos
    return out, pad


def box(text: str, layer: str = "") -> tuple[float, float, float, float] | None:
    """The box (x0, y0, x1, y1) of everything an item of the map draws (in its layer's
    group, whose text attributes it inherits), widened by MARGIN; None when it draws
    nothing (a title); EVERYWHERE when it cannot be read."""
    got = _boxes.get((layer, text), False)
    if got is not False:
        return got
    got = _box(text, _text_style(layer))
    if len(_boxes) > 50_000:
        _boxes.clear()
    _boxes[layer, text] = got
    return got


_STYLE = re.compile(r'\s(font-size|font-weight|font-style|text-anchor)="([^"]*)"')


def _text_style(attrs: str) -> dict[str, str]:
    return dict(_STYLE.findall(attrs))


def _text_span(attrs: str, content: str, inherited: dict[str, str]) -> tuple[float, float, float, float] | None:
    """The box of one text element: its advance in the map's font (``fontmetrics``),
    widened by a quarter, placed by its anchor; None when it cannot be read."""
    from html import unescape

    from pbem.report.fontmetrics import text_width
    a = dict((k, float(v)) for k, v in _ATTR.findall(attrs))
    if "x" not in a or "y" not in a:
        return None
    st = {**inherited, **_text_style(attrs)}
    try:
        fs = float(a.get("font-size", st.get("font-size", 16.0)))
    except ValueError:
        return None
    w = a.get("textLength") or text_width(unescape(content), fs, bold=st.get("font-weight") == "bold",
                                          italic=st.get("font-style") == "italic")
    w = w * 1.25 + 2
    anchor = st.get("text-anchor", "start")
    x0 = {"middle": a["x"] - w / 2, "end": a["x"] - w}.get(anchor, a["x"])
    return (x0, a["y"] - fs * 1.2, x0 + w, a["y"] + fs * 0.5)


def _box(text: str, inherited: dict[str, str]) -> tuple[float, float, float, float] | None:
    if "transform" in text or "<use" in text or "<image" in text:
        return EVERYWHERE
    xs: list[float] = []
    ys: list[float] = []
    inner = _text_style(text.partition(">")[0]) if text.startswith("<g") else {}   # an item's own group
    for m in _TEXT.finditer(text):
        span = _text_span(m.group(1), m.group(2), {**inherited, **inner})
        if span is None:
            return EVERYWHERE
        xs += [span[0], span[2]]
        ys += [span[1], span[3]]
    for m in _ELEMENT.finditer(text):
        kind, attrs = m.group(1), m.group(2)
        if kind == "text":
            continue
        a = dict((k, float(v)) for k, v in _ATTR.findall(attrs))
        if kind == "rect":
            if "width" not in a or "height" not in a or '%"' in attrs:
                return EVERYWHERE
            xs += [a.get("x", 0.0), a.get("x", 0.0) + a["width"]]
            ys += [a.get("y", 0.0), a.get("y", 0.0) + a["height"]]
        elif kind in ("circle", "ellipse"):
            rx, ry = a.get("rx", a.get("r", 0.0)), a.get("ry", a.get("r", 0.0))
            xs += [a.get("cx", 0.0) - rx, a.get("cx", 0.0) + rx]
            ys += [a.get("cy", 0.0) - ry, a.get("cy", 0.0) + ry]
        elif kind == "line":
            xs += [a.get("x1", 0.0), a.get("x2", 0.0)]
            ys += [a.get("y1", 0.0), a.get("y2", 0.0)]
        elif kind in ("polyline", "polygon"):
            p = _POINTS.search(attrs)
            v = [float(t) for t in re.findall(_NUM, p.group(1))] if p else []
            if not v or len(v) % 2:
                return EVERYWHERE
            xs += v[0::2]
            ys += v[1::2]
        elif kind == "path":
            p = _PATH.search(attrs)
            got = _path_points(p.group(1)) if p else None
            if not got or not got[0]:
                return EVERYWHERE
            pts, pad = got
            xs += [min(q[0] for q in pts) - pad, max(q[0] for q in pts) + pad]
            ys += [min(q[1] for q in pts) - pad, max(q[1] for q in pts) + pad]
    if not xs:
        return None if "<title>" in text or not text.strip() else EVERYWHERE
    return (min(xs) - MARGIN, min(ys) - MARGIN, max(xs) + MARGIN, max(ys) + MARGIN)


_depths: dict[str, int] = {}


def _depth(line: str) -> int:
    got = _depths.get(line)
    if got is None:
        got = line.count("<g ") + line.count("<g>") + line.count("<defs") - line.count("</g>") - line.count("</defs>")
        if len(_depths) > 200_000:
            _depths.clear()
        _depths[line] = got
    return got


def _items(svg: str):
    """The map as (root tag, always, [(layer open line or "", item text, box)]): each
    top-level group's children one by one, the other top-level elements alone;
    ``always``: what every tile holds (the defs).  None when the SVG is not a map."""
    got = _parse(svg)
    return None if got is None else got[:3]


# ``_read``'s, kept for the last few maps: a mail's close-up and overview are one map, read once
# (``_read`` looked up at each call, so a test can watch it)
_parse = ByString(lambda svg: _read(svg))


def _read(svg: str):
    """``_items``, and [(start, layer)]: where each kept layer's list of items (``_layer``,
    the title bar's) begins in the items (``tilegrid.segments``)."""
    lines = svg.rstrip("\n").split("\n")
    if len(lines) < 3 or not lines[0].startswith("<svg") or lines[-1] != "</svg>":
        return None
    root, body = lines[0], lines[1:-1]
    always: list[str] = []
    items: list[tuple[str, str, tuple | None]] = []
    layers: list[tuple[int, list]] = []
    ds = list(map(_depths.get, body))               # each line's depth, and the depth after it
    if None in ds:
        ds = [_depth(line) if d is None else d for line, d in zip(body, ds)]
    level = list(accumulate(ds))
    i = 0
    while i < len(body):
        line = body[i]
        d = ds[i]
        if d <= 0:                                   # one line: an element of its own
            if line.startswith("<title>"):
                i += 1
                continue
            bar = _title_items(line, root) if line.startswith(TITLE_BAR) else None
            if bar:
                layers.append((len(items), bar))
            items += bar or [("", _paper(line), box(line))]
            i += 1
            continue
        base = level[i] - d                          # a block: to the line closing it
        try:
            j = level.index(base, i + 1) + 1
        except ValueError:
            return None
        if min(level[i:j]) < base:                   # closed further than it opened
            return None
        if line.startswith("<defs"):
            always += body[i:j]
        elif line.startswith("<g") and body[j - 1] == "</g>" and d == 1:
            layers.append((len(items), _layer(body, i, j)))
            items += layers[-1][1]
        else:
            text = "\n".join(body[i:j])
            items.append(("", _paper(text), box(text)))
        i = j
    return root, always, items, layers


def _paper(text: str) -> str:
    """``text`` with a size of "100%" (the paper) made as wide and as tall as any map: 100 %
    of a tile's picture would be the tile, and a map grown taller (more eliminated units)
    keeps the tiles of the one before."""
    return text.replace('width="100%" height="100%"', 'width="100000" height="100000"') if '100%"' in text else text


TITLE_BAR = '<g class="title-bar">'
_X = re.compile(r'\sx="[^"]*"')
_BAR_PART = re.compile(r"<rect\b[^>]*/>|<text\b([^>]*)>([^<]*)</text>")
_bars: dict[tuple[str, str], list | None] = {}


def _title_items(line: str, root: str) -> list | None:
    """The title bar (``mapsvg``: one line, a group of a rectangle and its texts) as the
    items of a layer of its own: its rectangle, and each text as its words (``glyphs.words``:
    each word exactly the glyphs the whole text draws there), so a title that changes at
    its end (the head, the step) draws only the words that changed.  Words lie apart (a
    space between them), so drawing them one by one is drawing them together.  None when
    it is not such a group, or its texts cannot be cut so."""
    key = (line, root)
    if key in _bars:
        return _bars[key]
    from html import escape

    from pbem.report import glyphs
    got: list | None = None
    inner = line[len(TITLE_BAR):-len("</g>")] if line.endswith("</g>") else None
    inherited = {k: v for k, v in glyphs._ATTR.findall(root) if k in glyphs._PLACE or k in glyphs._UNKNOWN_INHERITED}
    if inner is not None and not any(k in glyphs._UNKNOWN_INHERITED for k in inherited):
        parts = list(_BAR_PART.finditer(inner))
        if parts and "".join(m.group(0) for m in parts) == inner:
            got = []
            for m in parts:
                ws = glyphs.words(m.group(1), m.group(2), inherited) if m.group(0).startswith("<text") else None
                if ws is None:
                    got.append(m.group(0))
                    continue
                for x, w in ws:
                    attrs = _X.sub(f' x="{x!r}"', m.group(1), count=1)
                    got.append(f"<text{attrs}>{escape(w, quote=False)}</text>")
            got = [(TITLE_BAR, t, box(t, TITLE_BAR)) for t in got]
    if len(_bars) > 2_000:
        _bars.clear()
    _bars[key] = got
    return got


_layers: dict[str, list] = {}


def _layer(body: list[str], i: int, j: int) -> list:
    """The items of the layer ``body[i:j]`` (a top-level group: each child an item), kept by
    the layer's text: a map's board layers are those of the map before it."""
    whole = "\n".join(body[i:j])
    got = _layers.get(whole)
    if got is not None:
        return got
    tag, _, drawn = body[i].partition(">")
    line = tag + ">"
    got = []
    if drawn:                                        # the group's own frame, title: an item of it
        got.append((line, _paper(drawn), box(drawn, line)))
    k = i + 1
    while k < j - 1:
        m, depth = k + 1, _depth(body[k])
        while m < j - 1 and depth > 0:
            depth += _depth(body[m])
            m += 1
        text = "\n".join(body[k:m])
        got.append((line, _paper(text), box(text, line)))
        k = m
    if len(_layers) > 2_000:
        _layers.clear()
    _layers[whole] = got
    return got


_SIZE = re.compile(r'\swidth="(' + _NUM + r')"\s+height="(' + _NUM + r')"')


class Layout:
    """A map's picture as its tiles: ``cells`` {(column, row): (key, RGB image)} (the key:
    the tile's items, ``_key``), and ``bands`` [(x, y, key, RGB image)] pasted over them
    there (the title bar's); a cell's image may be a ``tilestore.Packed``, unpacked by
    ``tilestore.image`` when its pixels are wanted."""
    __slots__ = ("width", "height", "cells", "bands")

    def __init__(self, width: int, height: int, cells: dict):
        self.width, self.height, self.cells, self.bands = width, height, cells, []

    def rgb(self):
        """The picture as one RGB image."""
        from PIL import Image
        out = Image.new("RGB", (self.width, self.height), (255, 255, 255))
        for (c, r), (_key, im) in self.cells.items():
            out.paste(image(im), (c * TILE, r * TILE))
        for x, top, _key, im in self.bands:
            out.paste(im, (x, top))
        return out


def picture(svg: str, max_width: int, render):
    """The map as an RGB PIL image at most ``max_width`` pixels wide, drawn a tile at a
    time (``render(svg, width)``: resvg's PNG of an SVG at that width); None when the
    SVG is not one this module can cut (then draw it whole)."""
    got = layout(svg, max_width, render)
    return None if got is None else got.rgb()


def layout(svg: str, max_width: int, render, window: tuple | None = None) -> Layout | None:
    """The map's tiles (``picture``), each drawn only when no earlier map had it.

    ``window`` (scale, column, row, columns, rows): only that block of the tiles of the map
    drawn at ``scale`` (a close-up, ``closeup.py``), the picture as big as the block (to the
    map's edge); ``max_width`` is then not used, and the title band is laid in the block's
    columns when it meets the block (each piece drawn alone: no block of bases at once)."""
    from PIL import Image
    import io
    parsed = _parse(svg)
    m = _SIZE.search(parsed[0]) if parsed else None
    if m is None:
        return None
    root, always, items, layers = parsed
    sw, sh = float(m.group(1)), float(m.group(2))
    if window is None:
        width = min(max_width, int(sw)) if max_width and sw > max_width else int(sw)
        s = width / sw
    else:
        s, wc0, wr0, wnc, wnr = window
        width = math.ceil(sw * s - 1e-9)             # the map's whole picture at the close-up's scale
    height = math.ceil(sh * s - 1e-9)
    ts = TILE / s                                   # a tile's side in SVG units
    cols, rows = math.ceil(width / TILE), math.ceil(height / TILE)
    # A wide, low element at the top level (the title bar, which names the head and so
    # changes with every map) is drawn in a band of whole rows with everything that meets
    # them, pasted over the tiles; the tiles leave it out, so they keep their pixels.  (The
    # legend, drawn as a band, costs more than its tiles: it changes with each view.)
    spans: list[tuple[set[int], int, int]] = []
    segs = tilegrid.segments(items, layers)
    loose = [k for st, en, obj in segs if obj is None or (obj and obj[0][0] == TITLE_BAR) for k in range(st, en)]
    title = [k for k in loose if not items[k][0] and (b := items[k][2]) and b != EVERYWHERE
             and b[2] - b[0] >= sw / 2 and b[3] - b[1] <= ts]
    bar = [k for k in loose if items[k][0] == TITLE_BAR and items[k][2] and items[k][2] != EVERYWHERE]
    if bar:                                          # the title bar, cut into its words
        x0, x1 = min(items[k][2][0] for k in bar), max(items[k][2][2] for k in bar)
        y0, y1 = min(items[k][2][1] for k in bar), max(items[k][2][3] for k in bar)
        if x1 - x0 >= sw / 2 and y1 - y0 <= ts:
            title = sorted(title + bar)
    if title:
        spans.append((set(title), max(0, math.floor(min(items[k][2][1] for k in title) * s)),
                      min(height, math.ceil(max(items[k][2][3] for k in title) * s))))
    spans = [sp for sp in spans if sp[2] > sp[1]]
    members = set().union(*(sp[0] for sp in spans)) if spans else set()
    cells = _cells.setdefault((ts, cols, rows), {})
    if len(cells) > 100_000:
        cells.clear()
    # the tiles each item meets and the tiles' keys, a board layer's share kept (``tilegrid``)
    placed = tilegrid.place(items, segs, members, spans, s, TILE, ts, cols, rows, cells, _clip)
    in_span, parts = placed.in_span, placed.parts
    for r in range(rows):                            # a row of tiles a band covers is not drawn
        if any(top <= r * TILE and min(height, (r + 1) * TILE) <= bottom for _m, top, bottom in spans):
            for c in range(cols):
                parts.pop((c, r), None)
    font = re.search(r'\sfont-family="[^"]*"', root)
    fam = font.group(0) if font else ""
    ox = oy = 0                                      # the picture's corner in the map's picture
    if window is not None:
        parts = {(c, r): p for (c, r), p in parts.items() if wc0 <= c < wc0 + wnc and wr0 <= r < wr0 + wnr}
        ox, oy = wc0 * TILE, wr0 * TILE
        wpx, hpx = min(wnc * TILE, width - ox), min(wnr * TILE, height - oy)
        if wpx <= 0 or hpx <= 0 or not parts:
            return None

    # a key names the part of its tile the picture shows: a tile cut from a picture drawn whole
    # is blank past the picture's edge, so a taller map (more eliminated units) draws it again;
    # then the tile's items, a run of them at a time (``tilegrid``: each run's layer and SVG)
    tiles = {(c, r): (s, c, r, min(TILE, height - r * TILE), *p) for (c, r), p in parts.items()}
    # taken now, kept while drawing; a packed tile is unpacked only if its picture is wanted
    have = {cr: im for cr, key in tiles.items() if (im := _kept.take(key)) is not None}
    missing = [cr for cr in tiles if cr not in have]
    per = {cr: placed.items_of(cr) for cr in missing}
    under = max((en for _st, en, obj in segs if obj and 'class="hex-numbers"' in obj[0][0]), default=0)
    # The boards the missing tiles lack (``_still``: the board as the first map drew it there),
    # when they lie close together (a map's first picture, a close-up's first board: the whole
    # board at its scale), drawn in one picture of the block of tiles they span and cut (a
    # tile alone costs about 2.5 times its share of a block, measured); the tiles are then
    # laid from them and their items' pictures as any other.
    over: dict[int, bool] = {}
    stills = {cr: _still(items, [k for k in per[cr] if k < under], over) for cr in missing}
    lack = {cr: key for cr, ks in stills.items() if ks
            for key in (_base_key(items, ks, s, cr, height, ts, "fixed"),) if key not in _kept}
    if window is not None and lack and (ts, cols, rows) not in _kept.whole:
        # a close-up's first board at this scale: the whole board, in one picture
        _kept.whole.add((ts, cols, rows))
        for cr in placed.parts:                      # every tile of the grid (a window has no band)
            if cr not in per:
                per[cr] = placed.items_of(cr)
                stills[cr] = _still(items, [k for k in per[cr] if k < under], over)
                key = _base_key(items, stills[cr], s, cr, height, ts, "fixed") if stills[cr] else None
                if key is not None and key not in _kept:
                    lack[cr] = key
    if len(lack) >= 3:
        c0, c1 = min(c for c, _r in lack), max(c for c, _r in lack)
        r0, r1 = min(r for _c, r in lack), max(r for _c, r in lack)
        if len(lack) >= 0.5 * (c1 - c0 + 1) * (r1 - r0 + 1):
            board_ks = sorted({k for cr in lack for k in stills[cr]})
            inside = set(board_ks)
            nc, nr = c1 - c0 + 1, r1 - r0 + 1
            # sized in the map's units and scaled by resvg to the width wanted, as a close-up
            # drawn whole is (the same transform: shapes drawn without anti-aliasing land on
            # the same pixels); resvg may round the height down a pixel: the tiles it cuts
            # then lack their last row, and are drawn alone
            png = render("\n".join([f'<svg xmlns="http://www.w3.org/2000/svg" width="{nc * ts!r}" height="{nr * ts!r}"'
                                    f'{fam} viewBox="{c0 * ts!r} {r0 * ts!r} {nc * ts!r} {nr * ts!r}">', *always,
                                    _layered(items, board_ks), "</svg>"]), nc * TILE)
            if png is None:
                return None
            with Image.open(io.BytesIO(png)) as im:
                board = im.convert("RGB")
            if board.size[0] != nc * TILE:
                return None
            lack = {(c, r): key for (c, r), key in lack.items() if (r - r0 + 1) * TILE <= board.size[1]}
            for (c, r), key in lack.items():
                # a tile's cut is its board only when the picture holds no other item meeting it
                # (one after a change on this tile that another tile's board has)
                if [k for k in per[c, r] if k in inside] == stills[c, r]:
                    _kept[key] = board.crop(((c - c0) * TILE, (r - r0) * TILE, (c - c0 + 1) * TILE, (r - r0 + 1) * TILE))
    head = f'<svg xmlns="http://www.w3.org/2000/svg" width="{ts!r}" height="{ts!r}"{fam}'
    # A tile is laid together from kept pictures: the board under its counters (everything up
    # to the hex numbers), which seldom changes where its counters do, kept by its SVG, and
    # over it each of its items' own pictures (``sprites``), also kept by their SVG, so only
    # an item that moved or changed is drawn, in its own few pixels (the same picture: each
    # element is painted over the ones before it, in order, either way).
    paint = Painter(items, s, width, height, fam, always, lambda ks: _layered(items, ks), render, _kept.sprites, MARGIN)

    def rect(c: int, r: int) -> tuple[int, int, int, int]:
        return c * TILE, r * TILE, (c + 1) * TILE, (r + 1) * TILE
    # what the missing tiles want painted: their items over the board, and on a board not
    # kept, what changes on it (highlights, objectives, areas) and the hex numbers
    boards, meets = {}, {}                          # (board key, its still part, what changed on it)
    for c, r in missing:
        low = [k for k in per[c, r] if k < under]
        key = _base_key(items, low, s, (c, r), height, ts, "under") if low else None
        still = _still(items, low, over) if key is not None and key not in _kept else low
        boards[c, r] = (key, still, low[len(still):])
        for k in low[len(still):] + [k for k in per[c, r] if k >= under]:
            meets[k] = meets.get(k, 0) + 1

    def requests(cr: tuple[int, int], ks: list[int]) -> list:
        # an item drawn whole when that costs no more pixels than its parts of the tiles that want it
        return [paint.request(k, rect(*cr), limit=max(SPRITE_MAX, meets[k] * TILE * TILE)) for k in ks]
    plan = {cr: (key, still, requests(cr, fix), requests(cr, [k for k in per[cr] if k >= under]))
            for cr, (key, still, fix) in boards.items()}
    paint.prepare([q for _k, _s, fix, over in plan.values() for q in fix + over])
    for c, r in missing:
        def draw(ks: list[int], rgb: bool = True):   # the tile's items ``ks`` drawn by resvg, alone
            png = render("\n".join([f'{head} viewBox="{c * ts!r} {r * ts!r} {ts!r} {ts!r}">', *always,
                                    _layered(items, ks, (c + 1) * ts), "</svg>"]), TILE)
            if png is None:
                return None
            with Image.open(io.BytesIO(png)) as im:
                return im.convert("RGB" if rgb else "RGBA")
        key, still, fix, over = plan[c, r]
        ks = per[c, r]
        low, high = [k for k in ks if k < under], [k for k in ks if k >= under]
        base = None
        if key is not None:
            base = _kept.get(key)
            if base is None:
                # the board as drawn on the first map (``_still``), what changes on it painted over
                if still:
                    key0 = _base_key(items, still, s, (c, r), height, ts, "fixed")
                    b0 = _kept.get(key0)
                    if b0 is None:
                        b0 = draw(still)
                    if b0 is None:
                        return None
                    _kept[key0] = b0
                    base = paint.paint(b0, c * TILE, r * TILE, fix) if fix else b0
                if base is None:
                    base = draw(low)
                if base is None:
                    return None
                _kept[key] = base
        if not high:
            tile = base if base is not None else draw(ks)
        elif base is None:
            tile = draw(ks)
        else:
            # over its board the pictures of its items, or, when one cannot be had, what lies
            # over the board drawn on a transparent tile
            tile = paint.paint(base, c * TILE, r * TILE, over)
            if tile is None:
                top = draw(high, rgb=False)
                if top is None:
                    return None
                tile = Image.alpha_composite(base.convert("RGBA"), top).convert("RGB")
        if tile is None:
            return None
        _kept[tiles[c, r]] = have[c, r] = tile
    if window is not None:
        out = Layout(wpx, hpx, {(c - wc0, r - wr0): (tiles[c, r], have[c, r]) for c, r in tiles})
        band_cols = range(wc0, min(cols, wc0 + wnc))   # a window's band: its columns, where it meets them
        spans_in = [(sp, ks) for sp, ks in zip(spans, in_span) if sp[1] < oy + hpx and sp[2] > oy]
    else:
        out = Layout(width, height, {cr: (tiles[cr], have[cr]) for cr in tiles})
        band_cols, spans_in = range(cols), list(zip(spans, in_span))
    for (mem, top, bottom), ks in spans_in:
        # the band a piece per column of tiles, each kept by its SVG (its texts cut at its
        # right edge: the title changes at its end, with the head).  A new piece is what lies
        # under the title (kept apart by its own SVG: it seldom changes) with the pictures of
        # the title's items and those after it painted over it (``sprites``); the pieces of
        # what lies under, most of them new, are drawn in one band and cut
        y0, h = top / s, (bottom - top) / s
        first = min(mem)
        pieces = _pieces(items, ks, s, ts, band_cols, top, bottom)
        new = [c for c, (key, _kc) in pieces.items() if key not in _kept]
        bases = {c: _key(items, [k for k in pieces[c][1] if k < first], (c + 1) * ts, ("band", s, c, top, bottom, "under"))
                 for c in new}
        lacking = [c for c in new if bases[c] not in _kept]
        if window is None and len(lacking) > cols / 2:
            png = render("\n".join([f'<svg xmlns="http://www.w3.org/2000/svg" width="{sw!r}" height="{h!r}"{fam} '
                                    f'viewBox="0 {y0!r} {sw!r} {h!r}">', *always,
                                    _layered(items, [k for k in ks if k < first]), "</svg>"]), width)
            if png is None:
                return None
            with Image.open(io.BytesIO(png)) as im:
                got = im.convert("RGB")
            for c in lacking:
                _kept[bases[c]] = got.crop((c * TILE, 0, (c + 1) * TILE, bottom - top))
        def draw_piece(c: int, ks: list[int]):    # column c's piece of the band, its items ``ks``
            png = render("\n".join([f'<svg xmlns="http://www.w3.org/2000/svg" width="{ts!r}" height="{h!r}"'
                                    f'{fam} viewBox="{c * ts!r} {y0!r} {ts!r} {h!r}">', *always,
                                    _layered(items, ks, (c + 1) * ts), "</svg>"]), TILE)
            if png is None:
                return None
            with Image.open(io.BytesIO(png)) as im:
                return im.convert("RGB").crop((0, 0, TILE, bottom - top))
        band = (0, top, width, bottom)
        paint.prepare([paint.request(k, band, limit=None) for k in sorted({k for c in new for k in pieces[c][1]})
                       if k >= first])                # the new pictures together, on sheets
        for c in new:
            below = [k for k in pieces[c][1] if k < first]
            piece = None
            if below:
                if bases[c] not in _kept:
                    base = draw_piece(c, below)
                    if base is None:
                        return None
                    _kept[bases[c]] = base
                band = (c * TILE, top, (c + 1) * TILE, bottom)
                piece = paint.paint(_kept[bases[c]], c * TILE, top,
                                    [paint.request(k, band, limit=None) for k in pieces[c][1] if k >= first])
            if piece is None:                        # drawn as it is
                piece = draw_piece(c, pieces[c][1])
                if piece is None:
                    return None
            _kept[pieces[c][0]] = piece
        for c, (key, _kc) in pieces.items():
            out.bands.append((c * TILE - ox, top - oy, key, _kept[key]))
    return out


def _pieces(items, ks: list[int], s: float, ts: float, cols: range, top: int, bottom: int) -> dict:
    """A band's pieces in the columns of tiles ``cols``, a column wide: {column: (key, its
    items)}; the key names its items with their texts cut at its right edge (``_clip``)."""
    out = {}
    for c in cols:
        x0, x1 = c * ts, (c + 1) * ts
        kc = [k for k in ks if items[k][2][0] < x1 and items[k][2][2] > x0]
        out[c] = _key(items, kc, x1, ("band", s, c, top, bottom)), kc
    return out


def _base_key(items, ks: list[int], s: float, cr: tuple[int, int], height: int, ts: float, what: str) -> tuple:
    """The key of the picture of tile ``cr``'s items ``ks`` (its board: ``what`` says which part)."""
    c, r = cr
    return _key(items, ks, (c + 1) * ts, (s, c, r, min(TILE, height - r * TILE), what))


def _key(items, ks: list[int], right: float, head: tuple) -> tuple:
    """A picture's key: ``head`` (where it is) and its items ``ks``, each its layer and its
    SVG, with the texts that run past ``right`` cut there (``_clip``): the same key, the
    same pixels.  A tuple of the items' own strings (a layer kept by ``_layer`` is the
    same objects map after map, their hashes computed once)."""
    out = list(head)
    for k in ks:
        lay, text, b = items[k]
        if b[2] > right and "<text" in text:
            text = _clip(text, lay, right)
        out += (lay, text)
    return tuple(out)


# The layers drawn over the board that change from map to map (``mapsvg``): the areas of
# the phase, the hexes of the last step, the objectives' holders
_OVERLAYS = ('class="areas"', 'class="highlights"', 'class="objectives"', 'class="title-bar"')


def _still(items, ks: list[int], seen: dict | None = None) -> list[int]:
    """The first of a tile's items ``ks`` up to the first of a layer that changes from map to
    map (``_OVERLAYS``): the board as every map of the scenario draws it there.  ``seen``:
    what is known of the items, by index (a layout's tiles share most of theirs)."""
    if seen is None:
        seen = {}
    for i, k in enumerate(ks):
        got = seen.get(k)
        if got is None:
            lay, text, _b = items[k]
            got = seen[k] = any(o in lay or text.startswith("<g " + o) for o in _OVERLAYS)
        if got:
            return ks[:i]
    return ks


_clipped: dict[tuple[str, str, float], str] = {}
_CHARS = None


def _clip(text: str, layer: str, right: float) -> str:
    """``text`` (an item of ``layer``) with each of its texts that starts at its x (and is
    not stretched to a length) cut after the last character that may reach ``right``: the
    characters kept are drawn where the whole text draws them (a text is laid out from its
    start), and the ones cut would fall right of ``right``.  A character starts at least at
    three quarters of the advance ``fontmetrics`` gives the characters before it (kerning
    narrows a pair by far less), and its glyph reaches at most a font size past its start."""
    got = _clipped.get((text, layer, right))
    if got is not None:
        return got
    from html import escape, unescape

    from pbem.report import fontmetrics
    global _CHARS
    if _CHARS is None:
        _CHARS = frozenset(fontmetrics._TABLES["regular"])
    inherited = {**_text_style(layer), **(_text_style(text.partition(">")[0]) if text.startswith("<g") else {})}

    def cut(m: re.Match) -> str:
        attrs, content = m.group(1), m.group(2)
        st = {**inherited, **_text_style(attrs)}
        a = dict(_ATTR.findall(attrs))
        if st.get("text-anchor", "start") != "start" or "textLength" in a or "x" not in a or "dx=" in attrs:
            return m.group(0)
        chars = unescape(content)
        if not set(chars) <= _CHARS:
            return m.group(0)
        try:
            fs, x = float(a.get("font-size", st.get("font-size", 16.0))), float(a["x"])
        except ValueError:
            return m.group(0)
        bold, italic = st.get("font-weight") == "bold", st.get("font-style") == "italic"
        w = 0.0
        for k, ch in enumerate(chars):
            if x + 0.75 * w > right + fs:
                return f"<text{attrs}>{escape(chars[:k], quote=False)}</text>"
            w += fontmetrics.text_width(ch, fs, bold=bold, italic=italic)
        return m.group(0)
    got = _TEXT.sub(cut, text)
    if len(_clipped) > 50_000:
        _clipped.clear()
    _clipped[text, layer, right] = got
    return got


def _layered(items, ks: list[int], right: float | None = None) -> str:
    """The items ``ks`` (in the map's order) as SVG, each inside its layer's group; with
    ``right``, their texts cut where they pass it (``_clip``)."""
    out, layer = [], ""
    for k in ks:
        lay, text, b = items[k]
        if right is not None and b[2] > right and "<text" in text:
            text = _clip(text, lay, right)
        if lay != layer:
            if layer:
                out.append("</g>")
            if lay:
                out.append(lay)
            layer = lay
        out.append(text)
    if layer:
        out.append("</g>")
    return "\n".join(out)
