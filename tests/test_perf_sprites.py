"""A tile laid from its board and its items' pictures (pbem.report.sprites, issue 29) looks
as the tile drawn whole by resvg (the plain path); the pictures are kept within a budget."""
import io
import random

import pytest

from pbem.report import png, sprites, tiles

Image = pytest.importorskip("PIL.Image")


def _near(a, b, by: int = 64) -> int:
    """Pixels of ``a`` with no pixel of ``b`` in the 3x3 around it closer than ``by``: an
    edge drawn without anti-aliasing through pixels' centres may land a pixel over."""
    from PIL import ImageChops
    w, h = a.size
    best = None
    for dx in (-1, 0, 1):
        for dy in (-1, 0, 1):
            d = ImageChops.difference(a, b.crop((dx, dy, dx + w, dy + h))).convert("L")
            best = d if best is None else ImageChops.darker(best, d)
    return best.crop((1, 1, w - 1, h - 1)).point(lambda v: 255 if v > by else 0).histogram()[255]


SVG = "\n".join([
    '<svg xmlns="http://www.w3.org/2000/svg" width="600" height="400" font-family="DejaVu Sans" viewBox="0 0 600 400">',
    '<defs>',
    '<marker id="arrow-move" viewBox="0 0 10 10" refX="8" refY="5" markerUnits="userSpaceOnUse" markerWidth="13" '
    'markerHeight="13" orient="auto"><path d="M0,0 L10,5 L0,10 L2.5,5 z" fill="#1c3d8f"/></marker>',
    '</defs>',
    '<rect x="0" y="0" width="100000" height="100000" fill="#fbf8f0"/>',
    '<g class="terrain" stroke="#8a8272" stroke-width="0.8">',
    '<polygon points="86,71.3 68,102.48 32,102.48 14,71.3 32,40.12 68,40.12" fill="#eef0e2"/>',
    '<polygon points="140,102.48 122,133.65 86,133.65 68,102.48 86,71.3 122,71.3" fill="#8fb27a"/>',
    '</g>',
    '<g class="hex-numbers" font-size="8" fill="#4a4a4a" text-anchor="middle">',
    '<text x="50" y="49.12">0101</text>',
    '<text x="104" y="80.3">0201</text>',
    '</g>',
    '<g class="moves">',
    '<g class="move move-move"><polyline points="50,71.3 104,102.48 158,133.65 212,164.83" fill="none" '
    'stroke="#1c3d8f" stroke-width="3" marker-end="url(#arrow-move)"/></g>',
    '</g>',
    '<g class="counters">',
    '<g class="counter"><rect x="85.5" y="83.25" width="38" height="38" rx="2" fill="#e08070" stroke="#1a1a1a" '
    'stroke-width="1"/><text x="104.5" y="97" font-size="9" font-weight="bold" text-anchor="middle">2/1MG</text>'
    '<text x="104.5" y="116" font-size="11" font-weight="bold" text-anchor="middle">3-4</text></g>',
    '<g class="counter"><rect x="100.5" y="90.25" width="38" height="38" rx="2" fill="#9a9a9a" fill-opacity="0.8" '
    'stroke="#1a1a1a" stroke-width="1"/></g>',
    '</g>',
    '<g class="places" font-size="9.5" font-style="italic" fill="#3b2410" text-anchor="middle" stroke="#ffffff" '
    'stroke-width="3" stroke-opacity="0.8" stroke-linejoin="round" paint-order="stroke">',
    '<text x="120" y="140">Akrotiri</text>',
    '</g>',
    '</svg>'])


@pytest.mark.parametrize("scale", [1.0, 0.704, 1.5])
def test_a_tile_laid_from_its_items_pictures_looks_as_drawn_whole(scale):
    # the plain path: the map drawn whole by resvg; the shortcut: the board drawn alone
    # and the items' pictures (two overlapping counters, a move with its arrow head, a
    # haloed label) painted over it in order, each drawn on a sheet or alone
    render = lambda s, w: png._resvg(s, w, True)                         # noqa: E731
    width = round(600 * scale)
    with Image.open(io.BytesIO(png._resvg(SVG, width, True))) as im:
        whole = im.convert("RGB")
    _root, always, items = tiles._items(SVG)
    under = max(k + 1 for k, it in enumerate(items) if 'class="hex-numbers"' in it[0])   # the board's end
    assert under and len(items) - under == 4
    height = whole.size[1]
    store = sprites.Kept()
    paint = sprites.Painter(items, scale, width, height, ' font-family="DejaVu Sans"', always,
                            lambda ks: tiles._layered(items, ks), render, store, tiles.MARGIN)
    board = "\n".join([_root, *always, tiles._layered(items, list(range(under))), "</svg>"])
    with Image.open(io.BytesIO(render(board, width))) as im:
        base = im.convert("RGB")
    full = (0, 0, width, height)
    reqs = [paint.request(k, full) for k in range(under, len(items))]
    paint.prepare(reqs)
    assert len(store) >= 2                                  # the small ones drawn together, on a sheet
    got = paint.paint(base, 0, 0, reqs)
    assert got.size == whole.size
    assert _near(got, whole) <= whole.size[0] * whole.size[1] // 5000
    # and the comparison can fail: the first counter's picture a pixel and a half off
    x, y, pic = store[paint._key(reqs[1])]
    store[paint._key(reqs[1])] = (x + 2, y + 1, pic)
    assert _near(paint.paint(base, 0, 0, reqs), whole) > 20


def test_an_item_too_big_for_a_picture_is_drawn_in_the_part_of_the_tile_it_meets():
    _root, always, items = tiles._items(SVG)
    paint = sprites.Painter(items, 1.0, 600, 400, "", always, lambda ks: tiles._layered(items, ks),
                            lambda s, w: png._resvg(s, w, True), sprites.Kept(), tiles.MARGIN)
    move = next(k for k, it in enumerate(items) if 'class="move' in it[1])
    k, rect, whole = paint.request(move, (128, 128, 256, 256))
    assert whole and rect[0] < 128                          # small enough: its own box
    k, rect, whole = paint.request(move, (128, 128, 256, 256), limit=100)
    assert not whole and rect[0] >= 128 and rect[1] >= 128 and rect[2] <= 256   # the tile's part
    assert paint.request(0, (0, 0, 128, 128), limit=100)[1] == (0, 0, 128, 128)   # the paper: its part


def test_kept_pictures_stay_within_their_budget_the_least_recently_used_forgotten():
    rng = random.Random(5)
    kept = sprites.Kept(budget=3 * 40 * 40 * 4)
    for n in range(5):
        kept.keep(n, (0, 0, Image.frombytes("RGBA", (40, 40), rng.randbytes(40 * 40 * 4))))
    assert list(kept) == [2, 3, 4] and kept.size == 3 * 40 * 40 * 4
    kept.move_to_end(2)
    kept.keep(5, (0, 0, Image.new("RGBA", (40, 40))))
    assert list(kept) == [4, 2, 5]
    kept.clear()
    assert kept.size == 0 and not kept


def test_pictures_on_a_sheet_lie_apart_on_the_sheet_whose_shelves_leave_least_room():
    # resvg's cost is the sheet's pixels, blank ones too: of the widths tried, the one whose
    # shelves leave the least room; every picture inside it, GAP from any other
    rng = random.Random(29)
    sizes = sorted(((rng.randint(20, 140), rng.randint(12, 40)) for _ in range(80)),
                   key=lambda wh: (wh[1], wh[0]), reverse=True)                    # the tallest first
    widths = sprites._widths(sizes)
    side = min(widths, key=lambda w: sprites._shelves(sizes, w)[0])
    area, at = sprites._shelves(sizes, side)
    boxes = [(x, y, x + w, y + h) for (w, h), (x, y) in zip(sizes, at)]
    assert max(b[2] for b in boxes) * max(b[3] for b in boxes) == area
    g = sprites.GAP
    for i, a in enumerate(boxes):
        for b in boxes[i + 1:]:
            assert a[2] + g <= b[0] or b[2] + g <= a[0] or a[3] + g <= b[1] or b[3] + g <= a[1], (a, b)
    pixels = sum(w * h for w, h in sizes)
    assert pixels / area > 0.7 and area < sprites._shelves(sizes, 1024)[0]     # a fixed 1,024 px: more room
    assert max(w for w, _h in sizes) in widths


def test_a_moves_picture_is_its_line_and_strokes_with_room_for_the_arrowhead_at_its_end_only():
    # the polyline runs from (50, 71.3) to (212, 164.83), stroke 3, its arrowhead at the end:
    # the picture keeps the box's whole margin (14) about the end, the stroke's (3.5) elsewhere
    _root, always, items = tiles._items(SVG)
    paint = sprites.Painter(items, 1.0, 600, 400, "", always, lambda ks: tiles._layered(items, ks),
                            lambda s, w: png._resvg(s, w, True), sprites.Kept(), tiles.MARGIN)
    move = next(k for k, it in enumerate(items) if 'class="move' in it[1])
    _lay, _text, box = items[move]
    assert box[0] <= 50 - tiles.MARGIN                              # the box: 14 about every point
    _k, rect, whole = paint.request(move, (0, 0, 600, 400))
    assert whole and rect == (46, 67, 226, 179)                     # 50 - 3.5 ... 212 + 14, 164.83 + 14
    assert sprites._arrow_box('<g><rect x="1" y="1" width="5" height="5"/></g>', 14.0) is None   # not lines
    # its marker at the start instead: the margin there, the stroke's at the end
    plain = sprites._arrow_box('<polyline points="50,71.3 212,164.83" stroke-width="3" marker-start="url(#a)"/>', 14.0)
    assert plain == (50 - 14, 71.3 - 14, 212 + 3.5, 164.83 + 3.5)
