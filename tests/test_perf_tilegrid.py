"""The tile grid's kept layer shares (``tilegrid``, issue 29) give what the plain walk over
every item gives: the same items in each tile, the same items in each band, and tile keys
that hold exactly the plain key's layers and SVG texts, so two tiles share a key exactly
when their plain keys are equal."""
from __future__ import annotations

import math

import pytest

from pbem.report import tilegrid, tiles


def _plain(items, members, spans, s, ts, cols, rows):
    """Issue 29's first walk: every item's box to its tiles, one by one; the flat keys."""
    per, in_span = {}, [[] for _ in spans]
    for k, (_lay, _text, b) in enumerate(items):
        if b is None:
            continue
        for i, (_m, top, bottom) in enumerate(spans):
            if b[1] * s < bottom and b[3] * s > top:
                in_span[i].append(k)
        if k in members:
            continue
        c0 = max(0, int(b[0] // ts)) if b[0] > -math.inf else 0
        c1 = min(cols - 1, int(b[2] // ts)) if b[2] < math.inf else cols - 1
        r0 = max(0, int(b[1] // ts)) if b[1] > -math.inf else 0
        r1 = min(rows - 1, int(b[3] // ts)) if b[3] < math.inf else rows - 1
        for c in range(c0, c1 + 1):
            for r in range(r0, r1 + 1):
                per.setdefault((c, r), []).append(k)
    keys = {cr: tiles._key(items, ks, (cr[0] + 1) * ts, ()) for cr, ks in per.items()}
    return per, in_span, keys


def _maps(played_example):
    from pbem.report.render import report_svg
    g = played_example("el-alamein").game()
    entries = g.entries()
    out = []
    for at in (60, 61, 131):
        st = g.state(at)
        for side in ("axis", "allied"):
            out.append(report_svg(g, side, st, entries[:at + 1], at - 6, entries[at].hash))
    return out


@pytest.mark.parametrize("s", [0.62, 1.0, 1.5])
def test_kept_layer_shares_place_the_items_as_the_walk_over_every_item(played_example, s):
    tilegrid._shares.clear()
    tilegrid._met.clear()
    seen: dict = {}
    for svg in [*_maps(played_example)[:1], *_maps(played_example)]:
        root, always, items, layers = tiles._parse(svg)
        w, h = (float(v) for v in tiles._SIZE.search(root).groups())
        ts = tiles.TILE / s
        cols, rows = math.ceil(w * s / tiles.TILE), math.ceil(h * s / tiles.TILE)
        segs = tilegrid.segments(items, layers)
        assert [k for st, en, _o in segs for k in range(st, en)] == list(range(len(items)))
        bar = [k for k, it in enumerate(items) if it[0] == tiles.TITLE_BAR]
        members = set(bar)
        spans = [(members, 0, round(60 * s))]
        placed = tilegrid.place(items, segs, members, spans, s, tiles.TILE, ts, cols, rows, {}, tiles._clip)
        per, in_span, keys = _plain(items, members, spans, s, ts, cols, rows)
        assert placed.in_span == in_span
        assert set(placed.parts) == set(per)
        for cr, ks in per.items():
            assert placed.items_of(cr) == ks
            flat = tuple(x for part in placed.parts[cr] for x in part)
            assert flat == keys[cr]                     # the plain key's texts, in its order
            seen.setdefault(tuple(placed.parts[cr]), set()).add(keys[cr])
    # a key stands for one plain key (the runs cut the same texts the same way), whether a
    # layer's part was made from its kept share (the first map met again) or item by item
    assert all(len(v) == 1 for v in seen.values())
    assert len(set().union(*seen.values())) == len(seen)
    assert tilegrid._shares                             # and the board's layers were kept


def test_a_kept_share_is_taken_only_for_its_own_layer_object():
    a = [("<g>", '<rect x="0" y="0" width="10" height="10"/>', (0.0, 0.0, 10.0, 10.0))]
    b = [("<g>", '<rect x="200" y="0" width="10" height="10"/>', (200.0, 0.0, 210.0, 10.0))]
    got = tilegrid.share(a, 128.0, 4, 2, {}, tiles._clip)
    assert got.per == {(0, 0): (0,)}
    # a share filed under another list's id (a list freed and its id taken again) is not used
    tilegrid._shares[(id(b), 128.0, 4, 2)] = got
    assert tilegrid.share(b, 128.0, 4, 2, {}, tiles._clip).per == {(1, 0): (0,)}
