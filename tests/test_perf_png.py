"""The map PNG's shortcuts of issue 29 give the picture the plain code gives:

- the PNG written a band of rows at a time (``pngbands``: each band compressed on its
  own, kept by its rows, the Adler-32 combined) is a PNG Pillow reads back to the same
  indices and palette, and a band found in the cache gives the bytes a fresh encode gives;
- a map quantised with its board's fixed palette, a tile's indices kept by the tile's
  SVG (``png._Palette``), looks as the plain path's picture (Pillow's octree of the whole
  picture, then Pillow's PNG) but for a few pixels, and is no more than 15 % bigger;
- a close-up is drawn and encoded once per map and rectangle;
- a close-up drawn as its block of tiles at its scale (``tiles.layout``'s ``window``)
  looks as the close-up drawn whole through its viewBox.
"""
from __future__ import annotations

import io
import math
import re
import random
import zlib

import pytest

from pbem.report import png, pngbands, tiles
from pbem.report.tilestore import TileStore


def test_adler32_combine_is_the_adler32_of_the_concatenation():
    rng = random.Random(29)
    for _ in range(300):
        a, b = rng.randbytes(rng.randrange(0, 3000)), rng.randbytes(rng.randrange(0, 70000))
        if rng.random() < 0.3:
            b = bytes(rng.randrange(3)) * len(b)                 # long runs: sums past the modulus
        assert pngbands.adler32_combine(zlib.adler32(a), zlib.adler32(b), len(b)) == zlib.adler32(a + b)


def test_a_png_written_band_by_band_reads_back_as_its_indices_and_palette():
    Image = pytest.importorskip("PIL.Image")
    rng = random.Random(7)
    w, h = 301, 290                                              # bands of 128, 128 and 34 rows
    indices = bytes(rng.choice((0, 0, 0, 1, 2, 5)) for _ in range(w * h))
    palette = bytes(rng.randrange(256) for _ in range(6 * 3))
    pngbands._bands.clear()
    cold = pngbands.encode(indices, w, h, palette, 6, 128, text={"pbem-viewbox": "1 2 3 4"})
    assert len(pngbands._bands) == 3
    warm = pngbands.encode(indices, w, h, palette, 6, 128, text={"pbem-viewbox": "1 2 3 4"})
    assert warm == cold and len(pngbands._bands) == 3            # every band found, the same bytes
    with Image.open(io.BytesIO(cold)) as im:
        im.load()
        assert im.mode == "P" and im.size == (w, h)
        assert im.tobytes() == indices and bytes(im.getpalette()[:18]) == palette
        assert im.text["pbem-viewbox"] == "1 2 3 4"
    # one band changed: only it is compressed again, and the file is still right
    other = bytearray(indices)
    other[200 * w + 17] = 4
    again = pngbands.encode(bytes(other), w, h, palette, 6, 128)
    assert len(pngbands._bands) == 4
    with Image.open(io.BytesIO(again)) as im:
        assert im.tobytes() == bytes(other)
    assert zlib.decompress(cold[cold.index(b"IDAT") + 4:-16]).count(b"\x00") >= h   # one zlib stream



def test_a_png_written_from_keyed_bands_reads_back_and_makes_only_the_rows_that_changed():
    Image = pytest.importorskip("PIL.Image")
    rng = random.Random(11)
    w, h = 203, 300                                              # bands of 128, 128 and 44 rows
    rows = [bytes([0]) + bytes(rng.choice((0, 0, 1, 3)) for _ in range(w)) for _ in range(h)]
    palette = bytes(rng.randrange(256) for _ in range(4 * 3))
    made = []

    def bands(rows, keys):
        def one(y0, key):
            def make():
                made.append(y0)
                return b"".join(rows[y0:min(h, y0 + 128)])
            return key, make
        return [one(y0, key) for y0, key in zip(range(0, h, 128), keys)]
    pngbands._bands.clear()
    cold = pngbands.encode_bands(bands(rows, "abc"), w, h, palette, 6, text={"pbem-viewbox": "1 2 3 4"})
    assert made == [0, 128, 256] and len(pngbands._bands) == 4 + 4 + 2   # 32 rows a piece
    with Image.open(io.BytesIO(cold)) as im:
        im.load()
        assert im.size == (w, h) and im.tobytes() == b"".join(r[1:] for r in rows)
        assert bytes(im.getpalette()[:12]) == palette and im.text["pbem-viewbox"] == "1 2 3 4"
    # the same picture through encode: the same pixels
    with Image.open(io.BytesIO(pngbands.encode(b"".join(rows), w, h, palette, 6, 128, filtered=True))) as im:
        assert im.tobytes() == b"".join(r[1:] for r in rows)
    # a band of a known key is not made again; a changed one recompresses only its changed rows
    made.clear()
    other = list(rows)
    other[140] = bytes([0]) + bytes([2]) * w
    pieces = len(pngbands._bands)
    again = pngbands.encode_bands(bands(other, "aXc"), w, h, palette, 6)
    assert made == [128] and len(pngbands._bands) == pieces + 1
    with Image.open(io.BytesIO(again)) as im:
        assert im.tobytes() == b"".join(r[1:] for r in other)

def _off_near(a, b, by: int = 24) -> float:
    """The share of pixels of ``a`` with no pixel of ``b`` within one pixel of it (the 3x3
    around it) closer than ``by`` in every channel: an edge that lands a pixel over (where
    a shape's edge passes exactly through pixels' centres, and the float rounding of two
    transforms decides on which side) does not count; anything else does."""
    from PIL import ImageChops
    w, h = a.size
    best = None
    for dx in (-1, 0, 1):
        for dy in (-1, 0, 1):
            moved = b.crop((dx, dy, dx + w, dy + h))             # b shifted; outside: black
            d = ImageChops.difference(a, moved).convert("L")
            best = d if best is None else ImageChops.darker(best, d)
    inner = best.crop((1, 1, w - 1, h - 1))                       # the border has no full 3x3
    return inner.point(lambda v: 255 if v > by else 0).histogram()[255] / (w * h)


def _off(a, b, by: int = 24) -> float:
    """The share of pixels of ``a`` and ``b`` (RGB) farther apart than ``by`` in a channel."""
    from PIL import ImageChops
    diff = ImageChops.difference(a, b).convert("L")
    return diff.point(lambda v: 255 if v > by else 0).histogram()[255] / (a.size[0] * a.size[1])


def _counting_quantise(monkeypatch) -> list:
    """The sizes of the pictures ``png._Palette.quantise`` quantises from now on."""
    quantised = []
    plain_q = png._Palette.quantise

    def count(self, im):
        quantised.append(im.size)
        return plain_q(self, im)
    monkeypatch.setattr(png._Palette, "quantise", count)
    return quantised


def test_a_map_on_its_boards_fixed_palette_looks_as_the_plain_picture(played_example, monkeypatch):
    Image = pytest.importorskip("PIL.Image")
    from pbem.report.render import report_svg
    g = played_example("el-alamein").game()
    entries = g.entries()
    tiles._kept.clear()
    png._palettes.clear()
    quantised = _counting_quantise(monkeypatch)
    for at in (120, 131):
        st = g.state(at)
        svg = report_svg(g, "axis", st, entries[:at + 1], at - 6, entries[at].hash)
        truth = tiles.picture(svg, png.MAP_WIDTH, lambda s, w: png._resvg(s, w, True))
        want = png._encode_palette(truth, png.MAP_COLOURS)     # the plain path: octree of the whole, Pillow's PNG
        quantised.clear()
        got = png._tiled_png(svg, png.MAP_WIDTH, png.MAP_COLOURS)
        with Image.open(io.BytesIO(want)) as a, Image.open(io.BytesIO(got)) as b:
            assert b.mode == "P" and a.size == b.size
            a, b = a.convert("RGB"), b.convert("RGB")
            # as near the drawn picture as the plain path's palette (its flat colours exact), and
            # it differs from the plain PNG in a few anti-aliased pixels only
            assert _off(b, truth) <= max(1.5 * _off(a, truth), 1 / 20000), at
            assert _off(b, a) < 1 / 400 and _off(b, a, 48) < 1 / 5000, at
        assert len(got) <= len(want) * 1.15, (len(got), len(want))
    # the second map (a few moves later) quantised only its new tiles and its title band
    parts = [q for q in quantised if q != (1, 1)]
    assert parts and sum(w * h for w, h in parts) < b.size[0] * b.size[1] / 3



def _last_map(played_example) -> tuple[str, bytes, str]:
    """El Alamein's last map for the axis, its PNG drawn with the map caches emptied first,
    and its head: (the map, the PNG, the head)."""
    from pbem.report.render import report_svg
    g = played_example("el-alamein").game()
    entries = g.entries()
    at = entries[-1].seq
    svg = report_svg(g, "axis", g.state(at), entries, at - 3, entries[at].hash)
    tiles._kept.clear()
    png._palettes.clear()
    return svg, png._tiled_png(svg, png.MAP_WIDTH, png.MAP_COLOURS), entries[at].hash


def _grown_taller(played_example):
    """El Alamein's last map drawn with the map caches emptied first, and the same map 90
    units taller with a new green circle: (the first PNG, the map, the taller one, its head)."""
    svg, first, head = _last_map(played_example)
    w, h = (int(v) for v in re.search(r'width="(\d+)" height="(\d+)"', svg).groups())
    taller = svg.replace(f'height="{h}" viewBox="0 0 {w} {h}"', f'height="{h + 90}" viewBox="0 0 {w} {h + 90}"', 1)
    assert taller != svg
    taller = taller.replace("</svg>", '<circle cx="200" cy="300" r="40" fill="#12ab34"/>\n</svg>')
    return first, svg, taller, head[:12]


def test_a_map_grown_taller_with_a_new_colour_keeps_its_palette_and_its_tiles_indices(played_example, monkeypatch):
    # Advanced Tobruk's map grows as units are lost, and an area or a marker brings a colour
    # the first map had not: the palette takes the colour in (exactly) instead of being made
    # again from the new picture, which quantised every tile again and changed every band
    Image = pytest.importorskip("PIL.Image")
    first, svg, taller, _head = _grown_taller(played_example)
    w, h = (int(v) for v in re.search(r'width="(\d+)" height="(\d+)"', svg).groups())
    quantised = _counting_quantise(monkeypatch)
    got = png._tiled_png(taller, png.MAP_WIDTH, png.MAP_COLOURS)
    quantised = list(quantised)                  # the taller map's, not the one drawn below
    assert len(png._palettes) == 1 and len(next(iter(png._palettes.values()))) == 1   # one palette
    # another board of the same width made its palette since: the colour still goes to this one
    own = next(iter(png._palettes.values()))[0]
    other = png._Palette(Image.new("RGB", (4, 4), (9, 9, 9)), frozenset({"#090909", "#0a0b0c"}), png.MAP_COLOURS)
    next(iter(png._palettes.values())).append(other)
    third = taller.replace("</svg>", '<circle cx="260" cy="300" r="20" fill="#34ab12"/>\n</svg>')
    png._tiled_png(third, png.MAP_WIDTH, png.MAP_COLOURS)
    assert "#34ab12" in own.svg_colours and "#34ab12" not in other.svg_colours
    assert 0 < sum(x * y for x, y in quantised) < 0.25 * w * h                    # the new tiles only
    truth = tiles.picture(taller, png.MAP_WIDTH, lambda s, w: png._resvg(s, w, True))
    with Image.open(io.BytesIO(got)) as b, Image.open(io.BytesIO(first)) as a:
        assert b.size == (truth.width, truth.height) and a.size[1] < b.size[1]
        assert b.convert("RGB").getpixel((200, 300)) == (0x12, 0xab, 0x34)           # the new colour, exact
        assert _off(b.convert("RGB"), truth) < 1 / 2000

def test_a_map_whose_tiles_were_packed_unpacks_only_those_whose_pixels_it_needs(played_example, monkeypatch):
    # a host mails many games in turn: a game's tiles are packed by the time its next mail comes,
    # and most of them are wanted only for their palette indices (kept apart) or not at all
    Image = pytest.importorskip("PIL.Image")
    from pbem.report.tilestore import Packed, pack
    svg, first, _head = _last_map(played_example)
    store = tiles._kept
    for key in list(store.images):               # every picture packed, as after other games' mails
        store.packed[key] = pack(store.images.pop(key))
    unpacked = []
    plain_get = type(store).get

    def counting_get(self, key):
        if key[0] != "band":                     # a tile's (the title band's few pieces are taken whole)
            unpacked.append(key)
        return plain_get(self, key)
    monkeypatch.setattr(type(store), "get", counting_get)
    lay = tiles.layout(svg, png.MAP_WIDTH, lambda s, w: png._resvg(s, w, True))
    assert lay.cells and all(isinstance(im, Packed) for _k, im in lay.cells.values())
    unpacked.clear()
    assert png._tiled_png(svg, png.MAP_WIDTH, png.MAP_COLOURS) == first      # the same PNG, byte for byte
    assert unpacked == []                                                 # every band written before
    # a palette's indices forgotten: those tiles, and those only, are unpacked, and look the same
    png._indices.clear()
    pngbands._keyed.clear()
    pngbands._bands.clear()
    again = png._tiled_png(svg, png.MAP_WIDTH, png.MAP_COLOURS)
    assert 0 < len(unpacked) <= len(lay.cells)
    with Image.open(io.BytesIO(again)) as a, Image.open(io.BytesIO(first)) as b:
        assert a.convert("RGB").tobytes() == b.convert("RGB").tobytes()


def test_a_packed_tile_gone_before_it_is_wanted_draws_the_map_whole(played_example, monkeypatch):
    Image = pytest.importorskip("PIL.Image")
    from pbem.report.tilestore import Packed
    svg, first, _head = _last_map(played_example)
    for cache in (png._indices, pngbands._keyed, png._png_cache):
        cache.clear()
    monkeypatch.setattr(TileStore, "take", lambda self, key: Packed(self, ("gone",)))
    assert png._tiled_png(svg, png.MAP_WIDTH, png.MAP_COLOURS) is None       # not a wrong picture
    got = png.svg_to_png(svg)                                                # but the map, drawn whole
    with Image.open(io.BytesIO(got)) as a, Image.open(io.BytesIO(first)) as b:
        assert a.size == b.size and _off(a.convert("RGB"), b.convert("RGB")) < 1 / 400


def test_kept_pictures_of_any_size_are_packed_and_come_back_the_same():
    Image = pytest.importorskip("PIL.Image")
    rng = random.Random(3)
    kept = TileStore(hot=1)
    band = Image.frombytes("RGB", (301, 40), rng.randbytes(301 * 40 * 3))   # a title band, not a tile
    kept["band"] = band
    kept["tile"] = Image.new("RGB", (tiles.TILE, tiles.TILE))
    assert "band" in kept.packed and kept["band"].tobytes() == band.tobytes()



def test_a_closeup_is_drawn_once_per_map_and_rectangle_with_its_viewbox(monkeypatch):
    Image = pytest.importorskip("PIL.Image")
    from pbem.report import closeup
    closeup._drawn.clear()
    drawn = []
    plain = png._resvg
    monkeypatch.setattr(png, "_resvg", lambda *a: drawn.append(a[1]) or plain(*a))
    svg = ('<svg xmlns="http://www.w3.org/2000/svg" width="600" height="400" viewBox="0 0 600 400">\n'
           + "".join(f'<circle cx="{30 + i * 27}" cy="{50 + i * 13}" r="12" fill="#{i * 11:02x}6080"/>\n'
                     for i in range(20)) + "</svg>")
    a = closeup.closeup_png(svg, (100.0, 50.0, 200.0, 150.0), 2.0)
    b = closeup.closeup_png(svg, (100.0, 50.0, 200.0, 150.0), 2.0)
    assert a == b and drawn == [400]
    with Image.open(io.BytesIO(a)) as im:
        assert im.mode == "P" and im.size == (400, 300) and im.text["pbem-viewbox"] == "100 50 200 150"


def test_a_text_cut_past_a_tiles_right_edge_draws_the_tile_as_the_whole_text():
    Image = pytest.importorskip("PIL.Image")
    from PIL import ImageChops
    layer = '<g class="legend" font-size="11">'
    line = ('<text x="116" y="60" fill="#222222">burst on target: hit before, the firer doubles its rate of fire '
            '(13.46) &amp; more</text>')
    right = 256.0
    cut = tiles._clip(line, layer, right)
    assert len(cut) < len(line) and cut.startswith('<text x="116" y="60" fill="#222222">burst on')
    for kept in ('<text x="300" y="9" text-anchor="middle">a long centred label, laid out from its middle</text>',
                 '<text x="100" y="9" textLength="300">stretched to its length, every glyph moves</text>',
                 '<text x="100" y="9">\u0416\u0443\u043a\u043e\u0432 of unknown widths, measured as wide as M</text>'):
        assert tiles._clip(kept, layer, 150.0) == kept

    def tile(text: str):
        svg = (f'<svg xmlns="http://www.w3.org/2000/svg" width="128" height="128" font-family="DejaVu Sans" '
               f'viewBox="128 0 128 128">\n<rect x="0" y="0" width="1000" height="200" fill="#fbf8f0"/>\n'
               f'{layer}\n{text}\n</g>\n</svg>')
        with Image.open(io.BytesIO(png._resvg(svg, 128, True))) as im:
            return im.convert("RGB")
    assert ImageChops.difference(tile(line), tile(cut)).getbbox() is None


def test_a_fog_games_maps_drawn_a_tile_at_a_time_look_as_drawn_whole(played_example):
    # Tobruk: each side's map, a large legend that moves with the eliminated units; the
    # second map draws its new tiles over the kept board, in strips or alone
    Image = pytest.importorskip("PIL.Image")
    from pbem.report.render import report_svg
    g = played_example("tobruk-salient").game()
    entries = g.entries()
    tiles._kept.clear()
    last = entries[-1].seq
    for at in (last - 20, last):                                 # the second map is taller
        st = g.state(at)
        svg = report_svg(g, "german", st, entries[:at + 1], at - 20, entries[at].hash)
        pic = tiles.picture(svg, png.MAP_WIDTH, lambda s, w: png._resvg(s, w, True))
        with Image.open(io.BytesIO(png._resvg(svg, None, True))) as whole:
            whole = whole.convert("RGB")
        assert pic.size == whole.size and _off(pic, whole) < 1 / 2000, at


def test_a_title_changed_at_its_end_draws_only_the_word_that_changed_over_its_kept_band(played_example):
    Image = pytest.importorskip("PIL.Image")
    from pbem.report.render import report_svg
    g = played_example("el-alamein").game()
    entries = g.entries()
    at = entries[-1].seq
    svg = report_svg(g, "axis", g.state(at), entries, at - 3, entries[at].hash)
    head = entries[at].hash[:12]
    assert svg.count(head) == 2                                  # <title> and the title bar
    other = svg.replace(head, "0123456789ab")                    # the next map's head, say
    tiles._kept.clear()
    drawn = []

    def render(s, w):
        drawn.append(s)
        return png._resvg(s, w, True)
    tiles.picture(svg, png.MAP_WIDTH, render)
    drawn.clear()
    pic = tiles.picture(other, png.MAP_WIDTH, render)
    # one picture: the new head alone (the title bar's word that changed), in its own box; the
    # bar's rectangle, its other words, the board under the band, the tiles and every other
    # item's picture are kept
    assert len(drawn) == 1 and 'class="title-bar"' in drawn[0]
    assert re.findall(r"<text[^>]*>([^<]*)</text>", drawn[0]) == ["0123456789ab"]
    assert "<rect" not in drawn[0] and "<polygon" not in drawn[0]
    with Image.open(io.BytesIO(png._resvg(other, None, True))) as whole:
        assert _off(pic, whole.convert("RGB")) < 1 / 5000


def _sized(plain):
    """``plain`` (png._resvg) that notes the size of each picture it draws, and the notes."""
    from PIL import Image
    sizes: list[tuple[int, int]] = []

    def count(svg, width, crisp):
        out = plain(svg, width, crisp)
        with Image.open(io.BytesIO(out)) as im:
            sizes.append(im.size)
        return out
    return count, sizes


def test_a_closeup_drawn_as_its_block_of_tiles_looks_as_drawn_whole(played_example):
    # Crete: a board wider than the mail's 1,400 px; the close-up is a block of whole tiles of
    # the map at the labels' scale (its corner on their grid, the step inside it); the first
    # (the position before, the same place) is drawn as its board in one block and its items'
    # pictures over it, the last step's draws only what changed, and both look as the close-up
    # drawn whole through its viewBox (the plain path), their PNG too
    Image = pytest.importorskip("PIL.Image")
    from pbem.report import closeup
    from pbem.report.render import focus_points, report_svg
    g = played_example("crete").game()
    entries = g.entries()
    tiles._kept.clear()
    png._palettes.clear()
    closeup._drawn.clear()
    last = entries[-1].seq
    plain = png._resvg
    count, sizes = _sized(plain)
    side = g.scenario.side_ids()[0]
    st = g.state(last)
    points = focus_points(g, side, st, entries, last - 3)
    for at in (last - 1, last):
        st = g.state(at)
        svg = report_svg(g, side, st, entries[:at + 1], at - 3, entries[at].hash)
        assert closeup.svg_size(svg)[0] > png.MAP_WIDTH
        scale = closeup.label_scale(svg)
        rect = closeup.focus_rect(svg, points, 30.0, scale, png.MAP_WIDTH)
        x, y, w, h = rect
        ts = tiles.TILE / scale
        assert abs(x / ts - round(x / ts)) < 1e-9 and abs(y / ts - round(y / ts)) < 1e-9
        assert w * scale <= png.MAP_WIDTH + 1e-6 and h * scale <= closeup.CLOSEUP_HEIGHT + 1e-6
        assert x <= points[-1][0] <= x + w and y <= points[-1][1] <= y + h          # the latest point inside
        W, H = closeup.svg_size(svg)
        assert x + w <= W + 1e-6 and y + h <= H + 1e-6
        size = (round(w * scale), round(h * scale))
        with Image.open(io.BytesIO(plain(closeup.closeup_svg(svg, rect), size[0], True))) as im:
            truth = im.convert("RGB")
        assert truth.size == size
        sizes.clear()
        png._resvg = count
        try:
            got = closeup.closeup_png(svg, rect, scale)
        finally:
            png._resvg = plain
        pixels = sum(w * h for w, h in sizes)
        want = png._encode_palette(truth, png.MAP_COLOURS)
        with Image.open(io.BytesIO(got)) as b, Image.open(io.BytesIO(want)) as a:
            assert b.mode == "P" and b.size == size and b.text["pbem-viewbox"] == " ".join(f"{v:g}" for v in rect)
            a, b = a.convert("RGB"), b.convert("RGB")
            if at < last:
                # the first: its board drawn as one block, its items' pictures over it; where an
                # edge passes exactly through pixels' centres it may land a pixel over (the items
                # are drawn at their own viewBoxes), nowhere else
                # (a glyph's anti-aliased edge may be a shade off for the same reason)
                assert _off_near(b, truth, 64) < 1 / 5000 and _off(b, truth) < 1 / 40, at
                assert _off_near(b, a, 64) < 1 / 5000, at
            else:
                # its changed row (the title bar's) drawn at its own viewBox: resvg places the glyphs
                # a shade differently there (it does so for the overview's tiles too), their edges
                # a few levels off; the rest as drawn whole
                assert _off_near(b, truth, 64) < 1 / 5000 and _off(b, truth) < 1 / 40, at
        assert len(got) <= len(want) * 1.15, (len(got), len(want))
    # the second close-up drew only the pictures of what changed, a small part of its pixels
    assert 0 < pixels < size[0] * size[1] / 4, sizes


def test_a_closeup_under_the_title_bar_draws_only_the_titles_changed_words(played_example):
    # The title bar names the head, so it changes with every map; a close-up whose block
    # meets it lays it as a band over its tiles (as the overview does), so its tiles keep
    # their pictures and only the title's changed pieces are drawn; the picture is the
    # close-up drawn whole through its viewBox (the plain path)
    Image = pytest.importorskip("PIL.Image")
    from pbem.report import closeup
    from pbem.report.render import report_svg
    g = played_example("crete").game()
    entries = g.entries()
    last = entries[-1].seq
    side = g.scenario.side_ids()[0]
    svg = report_svg(g, side, g.state(last), entries[:last + 1], last - 3, entries[last].hash)
    scale = closeup.label_scale(svg)
    rect = closeup.focus_rect(svg, [(300.0, 120.0)], 30.0, scale, png.MAP_WIDTH)
    assert rect[1] == 0.0                                       # the block's top row: the title bar's
    head = entries[last].hash[:12]
    assert f"head {head}" in svg
    other = svg.replace(f"head {head}", "head 0123456789ab")
    tiles._kept.clear()
    png._palettes.clear()
    closeup._drawn.clear()
    plain = png._resvg
    count, sizes = _sized(plain)
    png._resvg = count
    try:
        closeup.closeup_png(svg, rect, scale)
        sizes.clear()
        got = closeup.closeup_png(other, rect, scale)
    finally:
        png._resvg = plain
    assert sizes and all(h < tiles.TILE for _w, h in sizes), sizes   # the band's pieces, no tile
    assert len(sizes) <= 3, sizes                               # the pieces the head's digits cross
    ts = tiles.TILE / scale
    window = (scale, round(rect[0] / ts), 0, math.ceil(rect[2] / ts - 1e-6), math.ceil(rect[3] / ts - 1e-6))
    a, b = (tiles.layout(m, 0, lambda part, width: plain(part, width, True), window=window) for m in (svg, other))
    assert a.cells.keys() == b.cells.keys() and all(a.cells[cr][0] == b.cells[cr][0] for cr in a.cells)
    assert a.bands and [k for _x, _y, k, _im in a.bands] != [k for _x, _y, k, _im in b.bands]
    size = (round(rect[2] * scale), round(rect[3] * scale))
    with Image.open(io.BytesIO(plain(closeup.closeup_svg(other, rect), size[0], True))) as im:
        truth = im.convert("RGB")
    with Image.open(io.BytesIO(got)) as b:
        b = b.convert("RGB")
    assert b.size == truth.size == size
    assert _off_near(b, truth, 64) < 1 / 5000 and _off(b, truth) < 1 / 40


def test_a_closeup_rectangle_is_whole_tiles_at_its_scale_inside_the_map():
    from pbem.report import closeup
    svg = '<svg xmlns="http://www.w3.org/2000/svg" width="1990" height="913" viewBox="0 0 1990 913">\n</svg>'
    ts = tiles.TILE / 1.5
    for pts in ([(30.0, 30.0)], [(1980.0, 900.0)], [(700.0, 400.0), (900.0, 420.0)], []):
        x, y, w, h = closeup.focus_rect(svg, pts, 20.0, 1.5, 1400)
        # 1,280 x 896 px, as many tiles as fit; the last ones cut at the map's edge
        assert w == 10 * ts or (w < 10 * ts and x + w == 1990), (x, w)
        assert h == 7 * ts or (h < 7 * ts and y + h == 913), (y, h)
        assert x == round(x / ts) * ts and y == round(y / ts) * ts
        assert 0 <= x and x + w <= 1990 and 0 <= y and y + h <= 913
        for px, py in pts:
            assert x <= max(0, px - 20) and min(1990, px + 20) <= x + w      # the widened box, in the map
            assert y <= max(0, py - 20) and min(913, py + 20) <= y + h
    # a map lower than the block: its whole height; a window narrower than a tile: as before
    assert closeup.focus_rect(svg.replace('913', '300'), [(50.0, 50.0)], 20.0, 1.5, 1400)[1::2] == (0.0, 300.0)
    assert closeup.focus_rect(svg, [(50.0, 50.0)], 20.0, 1.5, 100)[2] == 66.0


def test_a_closeups_first_board_at_its_scale_is_the_whole_board_and_a_closeup_elsewhere_draws_none(played_example):
    # Crete: the first close-up at the labels' scale draws the board under every tile of the
    # map at that scale, in one picture; a later close-up of another corner of the board then
    # draws no board at all, only its items' pictures, and looks as drawn whole (the plain path)
    Image = pytest.importorskip("PIL.Image")
    from pbem.report import closeup
    from pbem.report.render import report_svg
    g = played_example("crete").game()
    entries = g.entries()
    tiles._kept.clear()
    closeup._drawn.clear()
    at = entries[-1].seq
    side = g.scenario.side_ids()[0]
    svg = report_svg(g, side, g.state(at), entries[:at + 1], at - 3, entries[at].hash)
    scale = closeup.label_scale(svg)
    W, H = closeup.svg_size(svg)
    plain = png._resvg
    count, calls = _sized(plain)
    png._resvg = count
    try:
        first = closeup.focus_rect(svg, [(0.0, 0.0)], 30.0, scale, png.MAP_WIDTH, 400)
        closeup.closeup_png(svg, first, scale)
        whole = (math.ceil(W * scale - 1e-9), math.ceil(H * scale - 1e-9))
        assert any(w >= whole[0] - tiles.TILE and h >= whole[1] - tiles.TILE for w, h in calls), calls
        calls.clear()
        far = closeup.focus_rect(svg, [(W, H)], 30.0, scale, png.MAP_WIDTH, 400)
        assert far[0] > first[0] + first[2] or far[1] > first[1] + first[3]      # elsewhere
        got = closeup.closeup_png(svg, far, scale)
    finally:
        png._resvg = plain
    size = (round(far[2] * scale), round(far[3] * scale))
    # its items' pictures only (the legend's row, as wide as the map, among them): the board
    # under the close-up alone would be as big as the close-up
    assert sum(w * h for w, h in calls) < size[0] * size[1], calls
    with Image.open(io.BytesIO(plain(closeup.closeup_svg(svg, far), size[0], True))) as im:
        truth = im.convert("RGB")
    with Image.open(io.BytesIO(got)) as b:
        assert b.size == size
        assert _off_near(b.convert("RGB"), truth, 64) < 1 / 5000


def test_a_map_grown_taller_keeps_its_items_pictures(played_example, monkeypatch):
    # Advanced Tobruk's map grows as units are lost, and its title names the new head: the
    # title bar's band and the tiles of the last and new rows are laid again from their items'
    # pictures kept (a picture's key is the scale, the item and its pixels, not the map's
    # size), so only the new head's word and the new item are drawn
    Image = pytest.importorskip("PIL.Image")
    from pbem.report import sprites
    _first, _svg, taller, head = _grown_taller(played_example)
    assert taller.count(head) >= 1
    taller = taller.replace(head, "0123456789ab")       # and the next head: the title bar's band anew
    drawn: list[str] = []
    plain = sprites.Painter._draw
    monkeypatch.setattr(sprites.Painter, "_draw", lambda self, x0, y0, w_, h_, body: drawn.append("".join(body))
                        or plain(self, x0, y0, w_, h_, body))
    got = png._tiled_png(taller, png.MAP_WIDTH, png.MAP_COLOURS)
    assert any("0123456789ab" in d for d in drawn)        # the new head's word
    old = [d for d in drawn if 'fill="#12ab34"' not in d and "0123456789ab" not in d]
    assert not old, [d[:160] for d in old]
    truth = tiles.picture(taller, png.MAP_WIDTH, lambda s, w_: png._resvg(s, w_, True))
    with Image.open(io.BytesIO(got)) as b:
        assert b.size == (truth.width, truth.height)
        assert _off(b.convert("RGB"), truth) < 1 / 2000


def test_a_big_boards_closeup_and_overview_read_the_map_once(played_example, monkeypatch):
    # a mail of a big board lays the same map twice (the close-up's block of tiles, then the
    # overview): the map is read into its items once, found again by the string itself; an
    # equal text in another string is read anew (no hash of a big string) to the same items
    from pbem.report import closeup
    from pbem.report.render import map_attachments
    g = played_example("crete").game()
    entries = g.entries()
    at = entries[-1].seq
    side = g.scenario.side_ids()[0]
    reads = []
    plain = tiles._read
    monkeypatch.setattr(tiles, "_read", lambda svg: reads.append(svg) or plain(svg))
    tiles._kept.clear()
    tiles._parse.clear()
    closeup._drawn.clear()
    png._png_cache.clear()
    got = map_attachments(g, side, g.state(at), entries[:at + 1], at - 3, entries[at].hash, svg=False)
    assert [a.filename.rsplit("-", 1)[-1] for a in got] == ["closeup.png", f"{side}.png"]
    assert len(reads) == 1
    svg = reads[0]
    again = "".join([svg[:10], svg[10:]])
    assert again == svg and again is not svg
    assert tiles._parse(again) == tiles._parse(svg) and len(reads) == 2


def test_a_maps_digest_is_its_texts_made_once_per_string(monkeypatch):
    # the PNG caches are keyed by the map's text (its SHA-256); a mail hands the same string
    # to the close-up and the overview, and the viewers who see the same map share it: the
    # digest is made once per string, and an equal text in another string has the same one
    import hashlib
    svg = ('<svg xmlns="http://www.w3.org/2000/svg" width="60" height="40" viewBox="0 0 60 40">\n'
           '<circle cx="30" cy="20" r="12" fill="#336699"/>\n</svg>')
    png.digest.clear()
    made = []
    real = hashlib.sha256
    monkeypatch.setattr(png.hashlib, "sha256", lambda b: made.append(len(b)) or real(b))
    d = png.digest(svg)
    assert d == real(svg.encode()).digest() and png.digest(svg) == d and len(made) == 1
    copy = "".join([svg[:5], svg[5:]])
    assert copy == svg and copy is not svg
    assert png.digest(copy) == d and len(made) == 2
    assert png.digest(svg.replace("#336699", "#336690")) != d
    png._png_cache.clear()
    first = png.svg_to_png(svg)
    drawn = []
    monkeypatch.setattr(png, "_resvg", lambda *a: drawn.append(a) or b"")
    assert png.svg_to_png(copy) == first and not drawn          # the equal text: the kept picture
