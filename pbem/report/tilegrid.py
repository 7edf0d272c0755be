"""Which tiles a map's items meet, and the tiles' keys, each layer's share kept.

A map has a few thousand items (``tiles._items``), nine in ten of them the board's
layers (terrain, links, hexsides, hex numbers, places), which are the same list
objects map after map (``tiles._layer`` keeps a layer by its text).  Finding the tiles
of every item and writing every tile's key anew cost a big map 5-8 ms even when no
tile is drawn.  So each layer's share of a grid (tile side, columns, rows) is kept with
the layer: the tiles its items meet and, per tile, its part of the tile's key (its
items' layer and SVG there, texts cut at the tile's right edge, as ``tiles._key``
cuts them).  A map's tile keys are put together from those parts, in the map's order;
only a layer new to this grid (the counters, the moves) is gone through item by item.
"""
from __future__ import annotations

import math
from collections import OrderedDict

__all__ = ["Share", "share", "segments", "place", "Placed", "tiles_of"]

_KEEP = 512                      # layers' shares kept (a big board has about 16 layers, a grid each)


class Share:
    """One layer's part of a grid: ``per`` {(column, row): its items' indices in the
    layer}, ``token`` {(column, row): (layer, SVG, ...) of those items, texts cut at the
    tile's right edge}."""
    __slots__ = ("layer", "per", "token")

    def __init__(self, layer: list, per: dict, token: dict):
        self.layer, self.per, self.token = layer, per, token


_shares: OrderedDict = OrderedDict()
_met: OrderedDict = OrderedDict()          # layers met once on a grid (their share not made)


def _again(layer: list, ts: float, cols: int, rows: int) -> bool:
    """Whether ``layer`` was met on this grid before (a board layer, not this map's moves):
    only such a layer's share is made and kept."""
    key = (id(layer), ts, cols, rows)
    if key in _shares and _shares[key].layer is layer:
        return True
    if _met.get(key) is layer:
        del _met[key]
        return True
    _met[key] = layer
    while len(_met) > _KEEP:
        _met.popitem(last=False)
    return False


def share(layer: list, ts: float, cols: int, rows: int, cells: dict, clip) -> Share:
    """``layer``'s share of the grid of ``cols`` x ``rows`` tiles of ``ts`` SVG units
    (``cells``: a box's tiles on that grid, shared with ``tiles.layout``; ``clip(text,
    layer, right)``: ``tiles._clip``), kept by the layer object (held, so its id stays
    its own)."""
    key = (id(layer), ts, cols, rows)
    got = _shares.get(key)
    if got is not None and got.layer is layer:
        _shares.move_to_end(key)
        return got
    got = _make(layer, ts, cols, rows, cells, clip)
    _shares[key] = got
    while len(_shares) > _KEEP:
        _shares.popitem(last=False)
    return got


def _make(layer: list, ts: float, cols: int, rows: int, cells: dict, clip) -> Share:
    per = _assign(layer, range(len(layer)), ts, cols, rows, cells)
    return Share(layer, {cr: tuple(ks) for cr, ks in per.items()}, _tokens(layer, per, ts, clip))


def _assign(items: list, ks, ts: float, cols: int, rows: int, cells: dict) -> dict:
    """{tile: [the items of ``ks`` that meet it, in order]} (an item of no box meets none)."""
    per: dict[tuple[int, int], list[int]] = {}
    for k in ks:
        b = items[k][2]
        if b is None:
            continue
        for cr in tiles_of(b, ts, cols, rows, cells):
            got = per.get(cr)
            if got is None:
                per[cr] = [k]
            else:
                got.append(k)
    return per


def _tokens(items: list, per: dict, ts: float, clip) -> dict:
    """{tile: (layer, SVG, ...) of its items in ``per``, texts cut at the tile's right edge}."""
    token = {}
    for cr, ks in per.items():
        right = (cr[0] + 1) * ts
        out: list[str] = []
        for k in ks:
            lay, text, b = items[k]
            if b[2] > right and "<text" in text:
                text = clip(text, lay, right)
            out += (lay, text)
        token[cr] = tuple(out)
    return token


def tiles_of(b: tuple, ts: float, cols: int, rows: int, cells: dict) -> tuple:
    """The tiles (column, row) a box meets on the grid, kept in ``cells`` by the box."""
    got = cells.get(b)
    if got is None:
        c0 = max(0, int(b[0] // ts)) if b[0] > -math.inf else 0
        c1 = min(cols - 1, int(b[2] // ts)) if b[2] < math.inf else cols - 1
        r0 = max(0, int(b[1] // ts)) if b[1] > -math.inf else 0
        r1 = min(rows - 1, int(b[3] // ts)) if b[3] < math.inf else rows - 1
        got = cells[b] = tuple((c, r) for c in range(c0, c1 + 1) for r in range(r0, r1 + 1))
    return got


def segments(items: list, layers: list) -> list:
    """The map's items as runs: [(start, end, layer object or None)], ``layers`` being
    [(start, layer object)] as ``tiles._parse`` added them (an item of no layer is a run
    of its own, with None)."""
    out, at = [], 0
    for start, obj in layers:
        out += [(k, k + 1, None) for k in range(at, start)]
        out.append((start, start + len(obj), obj))
        at = start + len(obj)
    out += [(k, k + 1, None) for k in range(at, len(items))]
    return out


class Placed:
    """A map's items on a grid (``place``): ``parts`` {tile: [each run's part of the tile's
    key, in the map's order]}, ``in_span`` [the items meeting each band, in order]."""
    __slots__ = ("parts", "in_span", "_kept", "_loose")

    def __init__(self, parts: dict, in_span: list, kept: list, loose: dict):
        self.parts, self.in_span, self._kept, self._loose = parts, in_span, kept, loose

    def items_of(self, cr: tuple[int, int]) -> list[int]:
        """The indices of the items meeting tile ``cr``, in the map's order."""
        ks = [st + j for st, sh in self._kept for j in sh.per.get(cr, ())]
        return sorted(ks + self._loose[cr]) if cr in self._loose else ks


def place(items: list, segs: list, members: set, spans: list, s: float, tile: int, ts: float,
          cols: int, rows: int, cells: dict, clip) -> Placed:
    """The items ``segs`` (``segments``) runs over on the grid: a kept layer's share taken
    whole (``share``), the other items one by one; ``members``: items drawn in a band, in
    no tile; ``spans`` [(members, top, bottom)]: the bands' pixel rows at scale ``s``."""
    parts: dict = {}
    loose: dict = {}
    kept: list = []
    in_span: list[list[int]] = [[] for _ in spans]
    near_rows = [range(max(0, top // tile), min(rows, (bottom - 1) // tile + 1)) for _m, top, bottom in spans]
    for st, en, obj in segs:
        if obj is not None and en > st and not any(st <= m < en for m in members) and _again(obj, ts, cols, rows):
            sh = share(obj, ts, cols, rows, cells, clip)
            kept.append((st, sh))
            for cr, tok in sh.token.items():
                got = parts.get(cr)
                if got is None:
                    parts[cr] = [tok]
                else:
                    got.append(tok)
            for i, (_m, top, bottom) in enumerate(spans):
                # a box meeting the band's rows of pixels meets a tile of those rows
                near = {j for r in near_rows[i] for c in range(cols) for j in sh.per.get((c, r), ())}
                in_span[i] += [st + j for j in sorted(near) if obj[j][2][1] * s < bottom and obj[j][2][3] * s > top]
            continue
        for k in range(st, en):
            b = items[k][2]
            if b is not None:
                for i, (_m, top, bottom) in enumerate(spans):
                    if b[1] * s < bottom and b[3] * s > top:
                        in_span[i].append(k)
        run = _assign(items, [k for k in range(st, en) if k not in members], ts, cols, rows, cells)
        for cr, tok in _tokens(items, run, ts, clip).items():
            got = parts.get(cr)
            if got is None:
                parts[cr] = [tok]
            else:
                got.append(tok)
            got = loose.get(cr)
            if got is None:
                loose[cr] = run[cr]
            else:
                got += run[cr]
    return Placed(parts, in_span, kept, loose)
