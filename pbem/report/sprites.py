"""Pictures of a map's single items (a counter, a move, a label), each drawn once.

``tiles`` lays a tile together from kept pictures: the board under what changes, and
over it the pictures of the tile's items, in the map's order.  An item's picture is
kept by its SVG text, so a counter that did not move keeps it; only an item that moved
or changed is drawn, in its own few pixels.  Painting the items one by one over the
board is the same as drawing them in order over it (the same coverage and colours,
up to the rounding of eight-bit alpha).

resvg (through its binding) costs a few hundredths of a millisecond a call and about
35 ns a pixel, blank ones too (it hands back a PNG, encoded and decoded again: 22 ns
and 14 ns of it, measured on a 1,000 x 1,000 picture): so the pictures a map wants are
drawn together on sheets, each in its own cell, and each picture is only as big as its
item's box with the margin its strokes need.
"""
from __future__ import annotations

import io
import math
import re
from collections import OrderedDict

__all__ = ["Painter", "Kept", "SPRITE_MAX", "paste"]

SPRITE_MAX = 4 * 128 * 128       # px: a bigger item is drawn in the part of each tile it meets
SHEET_MAX = 2 * 128 * 128        # px: a bigger picture is drawn alone (the room beside it on a sheet costs)
GAP = 4                          # px between two pictures on a sheet (each box has its strokes' margin)
_NUM = r"-?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?"
_STROKE = re.compile(r'\sstroke-width="(' + _NUM + ')"')


class Kept(OrderedDict):
    """Pictures by key, the least recently used forgotten first past ``budget`` bytes of
    pixels (64 MiB: a host mails many games in turn, each keeping its pictures)."""

    def __init__(self, budget: int = 64 << 20):
        super().__init__()
        self.budget, self.size = budget, 0

    def keep(self, key, got) -> None:
        if key in self:
            self.size -= _bytes(self.pop(key))
        self[key] = got
        self.size += _bytes(got)
        while self.size > self.budget and len(self) > 1:
            self.size -= _bytes(self.popitem(last=False)[1])

    def clear(self) -> None:
        super().clear()
        self.size = 0


def _bytes(got) -> int:
    return got[2].width * got[2].height * 4


class Painter:
    """The pictures of one map's ``items`` ([(layer, text, box)], ``tiles._items``) in its
    picture at scale ``s`` (``width`` x ``height`` px).  ``layered(ks)``: the items' SVG;
    ``render(svg, width)``: resvg's PNG; ``store``: the pictures kept, by key, across maps;
    ``margin``: the SVG units an item's box has around what it draws."""

    def __init__(self, items, s: float, width: int, height: int, fam: str, always: list[str], layered, render,
                 store, margin: float):
        self.items, self.s, self.width, self.height = items, s, width, height
        self.fam, self.always, self.layered, self.render = fam, always, layered, render
        self.store, self.margin = store, margin
        self._rects: dict[int, tuple[int, int, int, int]] = {}     # item -> its pixels (``_pixels``)

    def request(self, k: int, tile: tuple[int, int, int, int], limit: int | None = SPRITE_MAX):
        """The picture item ``k`` wants where it meets ``tile`` (a pixel rectangle): (k, rect,
        whole) with ``whole`` True when the rectangle is the item's own box, False when it is
        the part of the tile (an item whose box is unknown, or bigger than ``limit``); None
        when it draws nothing there."""
        lay, text, b = self.items[k]
        if b is None:
            return None
        if not all(math.isfinite(v) for v in b):
            rect, whole = tile, False
        else:
            rect = self._rects.get(k)
            if rect is None:                         # (an item meets several tiles: asked once each)
                rect = self._rects[k] = self._pixels(lay, text, b)
            whole = True
            if limit is not None and (rect[2] - rect[0]) * (rect[3] - rect[1]) > limit:
                rect, whole = _meet(rect, tile), False
        if rect[2] <= rect[0] or rect[3] <= rect[1]:
            return None
        return k, rect, whole

    def _pixels(self, lay: str, text: str, b: tuple) -> tuple[int, int, int, int]:
        """The pixels an item's box covers, with the margin its strokes need rather than the
        box's (which also covers arrow heads, and is kept for an item that has them; for a
        move's arrow, around its head only: ``_arrow``)."""
        if "marker" in text and "filter" not in text and "filter" not in lay and "marker" not in lay:
            got = _arrow(text, self.margin)
            if got is not None:
                s = self.s
                return (max(0, math.floor(max(got[0], b[0]) * s)), max(0, math.floor(max(got[1], b[1]) * s)),
                        min(self.width, math.ceil(min(got[2], b[2]) * s)),
                        min(self.height, math.ceil(min(got[3], b[3]) * s)))
        if "marker" in text or "marker" in lay or "filter" in text or "filter" in lay:
            m = self.margin
        else:
            widths = [float(w) for w in _STROKE.findall(lay) + _STROKE.findall(text)]
            m = min(self.margin, 2.0 + max(widths + [1.0]) / 2)
        d, s = self.margin - m, self.s
        return (max(0, math.floor((b[0] + d) * s)), max(0, math.floor((b[1] + d) * s)),
                min(self.width, math.ceil((b[2] - d) * s)), min(self.height, math.ceil((b[3] - d) * s)))

    def _key(self, req) -> tuple:
        # the scale, the item and its pixels: not the map's size (its rectangle, cut at the
        # picture's edge, says all the size changes), so a map grown taller (more eliminated
        # units) keeps its items' pictures
        lay, text, _b = self.items[req[0]]
        return self.s, lay, text, req[1]

    def prepare(self, reqs) -> None:
        """Draw the pictures ``reqs`` want that are not kept, the small ones of whole items
        together on sheets: each moved into its own cell by whole pixels (so drawn exactly as
        where it belongs) and cut out.  An item's part of a tile is drawn alone, clipped."""
        todo = []
        for req in {r for r in reqs if r is not None}:
            k, (x0, y0, x1, y1), whole = req
            if whole and (x1 - x0) * (y1 - y0) <= SHEET_MAX and self._key(req) not in self.store:
                todo.append((y1 - y0, x1 - x0, k, x0, y0, req))
        if len(todo) < 2:
            return                                   # one alone: ``get`` draws it
        todo.sort(key=lambda t: t[:3], reverse=True)  # shelves, the tallest first
        sizes = [(w, h) for h, w, *_rest in todo]
        # resvg's cost is the sheet's pixels, blank ones too: the width whose shelves leave
        # the least room (a fixed 1,024 px filled three fifths of the sheets, measured)
        side = min(_widths(sizes), key=lambda side: _shelves(sizes, side)[0])
        cells = [(req, x0, y0, w, h, x, y) for (h, w, _k, x0, y0, req), (x, y) in zip(todo, _shelves(sizes, side)[1])]
        sw, sh, s = max(c[5] + c[3] for c in cells), max(c[6] + c[4] for c in cells), self.s
        body = []
        for req, x0, y0, _w, _h, cx, cy in cells:
            body += [f'<g transform="translate({(cx - x0) / s!r} {(cy - y0) / s!r})">', self.layered([req[0]]), "</g>"]
        sheet = self._draw(0, 0, sw, sh, body)
        if sheet is None:
            return
        for req, _x0, _y0, w, h, cx, cy in cells:
            self._keep(req, sheet.crop((cx, cy, cx + w, cy + h)))

    def get(self, req):
        """(x, y, RGBA picture) of a request (``request``), drawn alone when not kept; None
        when it cannot be drawn."""
        key = self._key(req)
        got = self.store.get(key)
        if got is not None:
            self.store.move_to_end(key)
            return got
        k, (x0, y0, x1, y1), _whole = req
        pic = self._draw(x0, y0, x1 - x0, y1 - y0, [self.layered([k])])
        return None if pic is None else self._keep(req, pic)

    def paint(self, base, tx: int, ty: int, reqs):
        """``base`` (an RGB picture of the map's picture at (tx, ty)) with the pictures of
        ``reqs`` painted over it in order; None when one cannot be had."""
        got = [self.get(r) for r in reqs if r is not None]
        if any(g is None for g in got):
            return None
        tile = base.copy()
        for x, y, im in got:                         # over an opaque picture: blended by the alpha
            if x < tx + tile.width and y < ty + tile.height and x + im.width > tx and y + im.height > ty:
                paste(tile, im, x - tx, y - ty, im)  # (Pillow clips what falls outside)
        return tile

    def _keep(self, req, pic):
        got = (req[1][0], req[1][1], pic)
        self.store.keep(self._key(req), got)
        return got

    def _draw(self, x0: int, y0: int, w: int, h: int, body: list[str]):
        """The RGBA picture of ``body`` in the pixels (x0, y0, w, h) of the map's picture: an
        SVG as big as the picture, in pixels, so resvg scales nothing, its viewBox the map's
        units there; None when resvg refuses."""
        s = self.s
        png = self.render("\n".join([f'<svg xmlns="http://www.w3.org/2000/svg" width="{w}" height="{h}"{self.fam} '
                                     f'viewBox="{x0 / s!r} {y0 / s!r} {w / s!r} {h / s!r}">', *self.always, *body,
                                     "</svg>"]), w)
        if png is None:
            return None
        from PIL import Image
        with Image.open(io.BytesIO(png)) as im:
            pic = im.convert("RGBA")
        return pic if pic.size == (w, h) else None


_ELEMENT = re.compile(r"<([a-z]+)\b([^>]*)>")
_ATTRS = re.compile(r'\s(points|x1|y1|x2|y2|cx|cy|r|stroke-width|marker-start|marker-mid|marker-end)="([^"]*)"')
_NUMS = re.compile(_NUM)


_arrows: dict[tuple[str, float], tuple | None] = {}


def _arrow(text: str, margin: float) -> tuple[float, float, float, float] | None:
    """``_arrow_box``, kept by the item's text (a map's tiles ask for an arrow's box many times)."""
    key = (text, margin)
    if key not in _arrows:
        if len(_arrows) > 20_000:
            _arrows.clear()
        _arrows[key] = _arrow_box(text, margin)
    return _arrows[key]


def _arrow_box(text: str, margin: float) -> tuple[float, float, float, float] | None:
    """The box (SVG units) of an item drawn with lines, polylines and circles only (a move:
    its casing, its path with an arrowhead at its end, its starting dot), its strokes with
    their own margin and ``margin`` (what a box has for an arrowhead) about the points a
    marker stands on only; None for any other item."""
    if "transform" in text:
        return None
    xs: list[float] = []
    ys: list[float] = []

    def add(x: float, y: float, pad: float) -> None:
        xs.extend((x - pad, x + pad))
        ys.extend((y - pad, y + pad))
    for tag, attrs in _ELEMENT.findall(text):
        a = dict(_ATTRS.findall(attrs))
        try:
            pad = 2.0 + float(a.get("stroke-width", 1.0)) / 2
            if tag in ("polyline", "line"):
                if tag == "line":
                    pts = [(float(a["x1"]), float(a["y1"])), (float(a["x2"]), float(a["y2"]))]
                else:
                    v = [float(n) for n in _NUMS.findall(a["points"])]
                    pts = list(zip(v[0::2], v[1::2]))
                if not pts:
                    return None
                for i, (x, y) in enumerate(pts):
                    marked = ("marker-mid" in a or i == 0 and "marker-start" in a or
                              i == len(pts) - 1 and "marker-end" in a)
                    add(x, y, max(pad, margin) if marked else pad)
            elif tag == "circle":
                add(float(a["cx"]), float(a["cy"]), pad + float(a["r"]))
            elif tag != "g":
                return None
        except (KeyError, ValueError):
            return None
    return (min(xs), min(ys), max(xs), max(ys)) if xs else None


def paste(dst, src, x: int, y: int, mask=None) -> None:
    """``dst.paste(src, (x, y), mask)`` by Pillow's core: ``dst`` a picture of this module's own
    (made, copied or cropped here: loaded and writable), ``src`` of ``dst``'s mode, or RGBA
    over RGB.  A map lays some 600 small pictures over each other, and the checks of
    ``Image.paste`` (its argument forms, loading both pictures again) cost more than the
    copy of a small one."""
    box = (x, y, x + src.width, y + src.height)
    if mask is None:
        dst.im.paste(src.im, box)
    else:
        dst.im.paste(src.im, box, mask.im)


def _widths(sizes: list[tuple[int, int]]) -> set[int]:
    """Sheet widths worth trying for pictures of ``sizes``: the widest, and about the side of
    a square of their pixels, narrower and wider."""
    widest = max(w for w, _h in sizes)
    root = math.sqrt(sum((w + GAP) * (h + GAP) for w, h in sizes))
    return {widest} | {max(widest, int(root * f)) for f in (0.8, 1.0, 1.25, 1.6, 2.0)}


def _shelves(sizes: list[tuple[int, int]], side: int) -> tuple[int, list[tuple[int, int]]]:
    """Pictures of ``sizes`` (the tallest first) on shelves at most ``side`` px wide, GAP
    apart: the sheet's pixels and each picture's corner."""
    at, x, y, shelf, width = [], 0, 0, 0, 0
    for w, h in sizes:
        if x and x + w > side:
            x, y, shelf = 0, y + shelf + GAP, 0
        at.append((x, y))
        width, x, shelf = max(width, x + w), x + w + GAP, max(shelf, h)
    return width * (y + shelf), at


def _meet(a: tuple, b: tuple) -> tuple:
    return max(a[0], b[0]), max(a[1], b[1]), min(a[2], b[2]), min(a[3], b[3])
