"""The map as a PNG for mail clients that show no SVG.

resvg (through its binding ``resvg``) draws the SVG with the fonts bundled in
``pbem/report/fonts`` only, never the system's: the labels are placed with
DejaVu Sans's own widths (``fontmetrics``), so the picture must be drawn in
that font, and the same SVG gives the same picture on every machine,
whatever fonts it happens to have installed.
"""
from __future__ import annotations

import hashlib
import io
import math
import re
import struct
import threading
from collections import OrderedDict
from pathlib import Path

from pbem.report import pngbands
from pbem.report.bystring import ByString
from pbem.report.sprites import paste
from pbem.report.tilestore import image

__all__ = ["svg_to_png", "MAP_WIDTH", "MAP_COLOURS", "FONT_FILES"]

MAP_WIDTH = 1400          # px: wide enough to read a counter's values, narrow enough for a mail window
MAP_COLOURS = 64          # the map's flat colours (and its anti-aliased text) fit a 64-colour palette
_FONTS = Path(__file__).resolve().parent / "fonts"
FONT_FILES = tuple(str(_FONTS / n) for n in ("DejaVuSans.ttf", "DejaVuSans-Bold.ttf", "DejaVuSans-Oblique.ttf"))
_FAMILY = "DejaVu Sans"
# zlib level of the palette PNG.  Measured on the examples' maps (tests/benchmark_host.py,
# issue 29): level 6 encodes a 1126x1163 map in 15 ms (63 KB) and a 1342x2534 one in
# 28 ms (146 KB); ``optimize=True`` (level 9) took 76 / 169 ms for 6-8 % fewer bytes
# (59 / 135 KB), and levels 1-5 save a few ms for 25-50 % more bytes.
COMPRESS_LEVEL = 6

_png_cache: dict[tuple, bytes | None] = {}
# SHA-256 of a map's text (the PNG caches' key), kept for the last few maps: a mail's maps
# (its close-up, its overview, each viewer's) are often one string, 0.2-1 MB to encode and hash
digest = ByString(lambda svg: hashlib.sha256(svg.encode("utf-8")).digest())


def svg_to_png(svg: str, max_width: int = MAP_WIDTH, colours: int = MAP_COLOURS) -> bytes | None:
    """The map as a PNG sized for a mail client, or None when it cannot be made.

    Drawn at most ``max_width`` pixels wide (a smaller map keeps its own
    size).  With ``colours`` (the default) shapes are drawn without
    anti-aliasing (text keeps it), so the map's flat colours stay flat, and
    Pillow turns the picture into a palette image of that many colours
    (octree, no dithering) — kept only when it is smaller than the
    full-colour PNG, which a map's flat colours make it by far.  Without
    Pillow, or with ``colours=0``, the full-colour anti-aliased PNG goes.
    Cached by content and size, since every side often gets the same picture."""
    key = (max_width, colours, digest(svg))
    if key in _png_cache:
        return _png_cache[key]
    png: bytes | None = None
    if colours and _has_pillow():
        png = _tiled_png(svg, max_width, colours)
    if png is None:
        try:
            m = re.search(r'<svg[^>]*\swidth="([0-9.]+)"', svg[:2000])
            width = int(float(m.group(1))) if m else 0
            png = _resvg(svg, max_width if max_width and width > max_width else None, bool(colours and _has_pillow()))
        except Exception:                # noqa: BLE001 - no renderer, or it refused: send the SVG alone
            png = None
        if png and colours and _has_pillow():
            png = _palette_png(png, colours)
    if len(_png_cache) > 64:
        _png_cache.clear()
    _png_cache[key] = png
    return png


def _resvg(svg: str, width: int | None, crisp: bool) -> bytes:
    """resvg's PNG of ``svg`` at ``width`` pixels (its own size for None), in the bundled fonts;
    ValueError when resvg refuses the SVG."""
    import resvg

    from pbem.report.glyphs import outline
    svg = outline(svg)                   # the texts as their glyphs' outlines, where it can
    if "<text" in svg:                   # a text left for resvg: in the bundled face, whatever it names
        svg = _FAMILIES.sub(f'font-family="{_FAMILY}"', svg)   # (a face the options lack draws nothing)
    if crisp:                            # shapes unsmoothed: inherited by every element that names none
        svg = _ROOT_TAG.sub(r'\g<0> shape-rendering="crispEdges"', svg, count=1)
    try:
        tree = resvg.usvg.Tree.from_str(svg, _options())
    except BaseException as e:           # noqa: BLE001 - the binding turns a refusal into a Rust panic
        if not isinstance(e, Exception) and type(e).__name__ != "PanicException":
            raise                        # (a KeyboardInterrupt, a SystemExit)
        raise ValueError(f"resvg refused the SVG: {e}") from None
    w0, h0 = tree.int_size()
    w, h, sx, sy = fit_width(w0, h0, width)
    return bytes(resvg.render(tree, (sx, 0.0, 0.0, 0.0, sy, 0.0), bg_size=(w, h)))


_FAMILIES = re.compile(r'font-family="[^"]*"')
_ROOT_TAG = re.compile(r"<svg\b(?![^>]*\sshape-rendering=)")
_local = threading.local()


def _options():
    """resvg's options, the bundled fonts loaded once (per thread: the binding's objects stay
    in the thread that made them)."""
    opts = getattr(_local, "options", None)
    if opts is None:
        from resvg import usvg
        opts = usvg.Options.default()
        for f in FONT_FILES:
            opts.load_font_file(f)
        opts.font_family = _FAMILY       # a text whose families are all unknown: the bundled face
        opts.font_size = 16.0            # (CSS's medium, for a text that gives no size)
        _local.options = opts
    return opts


def _f32(v: float) -> float:
    return struct.unpack("f", struct.pack("f", v))[0]


def fit_width(w0: int, h0: int, width: int | None) -> tuple[int, int, float, float]:
    """(width, height, x scale, y scale) of a ``w0`` x ``h0`` picture drawn ``width`` px wide
    (its own size for None), reckoned in 32-bit floats as resvg's own command does (tiny-skia's
    ``IntSize::scale_to_width`` and the scale from one size to the other), so a picture is
    exactly as wide and high, and drawn at exactly the scale, as resvg's width option gives."""
    if not width or width == w0:
        return w0, h0, 1.0, 1.0
    h = max(1, math.ceil(_f32(_f32(float(width) * float(h0)) / w0)))
    return width, h, _f32(width / w0), _f32(h / h0)


def _tiled_png(svg: str, max_width: int, colours: int) -> bytes | None:
    """The palette PNG of a map drawn a tile at a time (``tiles.layout``: a tile already
    drawn for an earlier map of the same elements is not drawn again), each tile's palette
    indices made once (``_Palette``), the image's rows compressed a band at a time
    (``pngbands``: a band of rows already written is not compressed again); None when the
    SVG cannot be cut (then it is drawn whole)."""
    from pbem.report import tiles

    def render(part: str, width: int) -> bytes | None:
        try:
            return _resvg(part, width, True)
        except Exception:                # noqa: BLE001 - refused: the caller draws the map whole
            return None
    try:
        lay = tiles.layout(svg, max_width, render)
    except Exception:                    # noqa: BLE001 - a map this cannot cut: drawn whole
        lay = None
    if lay is None:
        return None
    try:
        pal = _palette_for(svg, lay, colours)
        return pngbands.encode_bands(pal.bands(lay), lay.width, lay.height, pal.rgb, COMPRESS_LEVEL)
    except LookupError:                  # a packed tile forgotten before it was wanted: drawn whole
        return None


_COLOUR = re.compile(r"#[0-9a-fA-F]{6}\b")
_HEIGHT = re.compile(r'\s(?:height|viewBox)="[^"]*"')
_EXTEND = 16                             # colours a palette takes in at once (an area's, a marker's)


class _Palette:
    """A fixed palette for the maps of one board and size: ``colours`` colours found
    (octree, as Pillow quantises a picture) in the first picture drawn with these SVG
    colours, every flat colour of the SVG among them exactly.  Every later map whose SVG
    names no other colour is quantised with it, so a tile's palette indices depend on the
    tile alone and are kept by its SVG text (``tiles.layout``'s keys)."""
    __slots__ = ("serial", "svg_colours", "image", "rgb", "blank")

    def __init__(self, picture, svg_colours: frozenset, colours: int):
        from PIL import Image
        q = picture.quantize(colors=colours, method=Image.Quantize.FASTOCTREE, dither=Image.Dither.NONE)
        got = q.getpalette()
        entries = [tuple(got[3 * i:3 * i + 3]) for i in sorted(i for _n, i in q.getcolors(colours))]
        for c in sorted(svg_colours):     # and the SVG's own colours, exactly
            rgb = tuple(int(c[k:k + 2], 16) for k in (1, 3, 5))
            if rgb not in entries and len(entries) < 256:
                entries.append(rgb)
        self.rgb = bytes(v for e in entries for v in e)
        self.image = Image.new("P", (1, 1))
        self.image.putpalette(self.rgb + self.rgb[-3:] * (256 - len(entries)))   # the rest: a copy of the last
        self.blank = self.quantise(Image.new("RGB", (1, 1), (255, 255, 255))).getpixel((0, 0))
        self.svg_colours = svg_colours
        self.serial = next(_serials)

    def extend(self, named: frozenset) -> bool:
        """Add the SVG colours ``named`` that it lacks, exactly, after its own (when there is
        room): the indices of the tiles quantised before stay right (no entry moves), so the
        tiles are not quantised again; False when there is no room."""
        entries = [tuple(self.rgb[i:i + 3]) for i in range(0, len(self.rgb), 3)]
        new = []
        for c in sorted(named - self.svg_colours):
            rgb = tuple(int(c[k:k + 2], 16) for k in (1, 3, 5))
            if rgb not in entries and rgb not in new:
                new.append(rgb)
        if len(new) > _EXTEND or len(entries) + len(new) > 256:
            return False                          # another board, most likely: its own palette
        entries += new
        self.rgb = bytes(v for e in entries for v in e)
        self.image.putpalette(self.rgb + self.rgb[-3:] * (256 - len(entries)))
        self.svg_colours = self.svg_colours | named
        return True

    def quantise(self, im):
        from PIL import Image
        return im.quantize(palette=self.image, dither=Image.Dither.NONE)

    def tile(self, key, im):
        """The palette indices of a tile's picture ``im`` (kept by its ``key``; a
        ``tilestore.Packed`` is unpacked only when they are not)."""
        t = _indices.get((self.serial, key))
        if t is None:
            t = _indices[self.serial, key] = self.quantise(image(im))
            while len(_indices) > _KEPT_INDICES:
                _indices.popitem(last=False)
        else:
            _indices.move_to_end((self.serial, key))
        return t

    def bands(self, lay) -> list:
        """``lay``'s picture as ``pngbands.encode_bands`` wants it: a band per row of tiles, its
        key the palette and the keys of what is laid there (the same key, the same rows)."""
        from PIL import Image

        from pbem.report.tiles import TILE
        rows: dict[int, list] = {}
        for (c, r), (key, im) in lay.cells.items():
            rows.setdefault(r, []).append((c * TILE, r * TILE, key, im))
        out = []
        for r in range((lay.height + TILE - 1) // TILE):
            y0, y1 = r * TILE, min(lay.height, (r + 1) * TILE)
            laid = sorted(rows.get(r, []), key=lambda t: t[0])
            laid += [b for b in lay.bands if b[1] < y1 and b[1] + b[3].height > y0]   # pasted over, in order
            key = (self.serial, lay.width, y0, y1, tuple((x, y, k) for x, y, k, _im in laid))

            def make(y0=y0, y1=y1, laid=laid) -> bytes:
                band = Image.new("P", (lay.width + 1, y1 - y0), self.blank)
                band.paste(0, (0, 0, 1, y1 - y0))
                for x, y, k, im in laid:
                    paste(band, self.tile(k, im), 1 + x, y - y0)
                return band.tobytes()
            out.append((key, make))
        return out


_KEPT_INDICES = 6000                     # tiles' palette indices kept, 16 KiB each, all palettes together
_indices: OrderedDict = OrderedDict()    # (palette serial, tile key) -> its indices, least recently used first
_serials = iter(range(1, 1 << 62))
# (the SVG's root element, width) -> [_Palette]: a host holding many games keeps each board's
# (a palette forgotten is made again from the next picture, and every tile quantised again)
_palettes: OrderedDict = OrderedDict()
_PALETTES = 256


def _palette_for(svg: str, lay, colours: int) -> _Palette:
    """The board's palette that has every colour ``svg`` names; a new one made from this
    picture when none has."""
    # the board and the width: a map grown taller (more eliminated units) keeps its palette
    root = _HEIGHT.sub("", svg[:svg.find(">") + 1])
    key = (root, lay.width, colours)
    named = frozenset(c.lower() for c in set(_COLOUR.findall(svg)))
    got = _palettes.get(key, [])
    for pal in got:
        if named <= pal.svg_colours:
            _palettes.move_to_end(key)
            return pal
    # a colour new to the game (an area, a marker): taken in by the palette of the board
    # that shares most of its colours (boards of one width share the key)
    near = max(got, key=lambda p: len(named & p.svg_colours), default=None)
    if near is not None and near.extend(named):
        _palettes.move_to_end(key)
        return near
    pal = _Palette(lay.rgb(), named, colours)
    _palettes[key] = [*got[-3:], pal]
    while len(_palettes) > _PALETTES:
        _palettes.popitem(last=False)
    return pal


def _encode_palette(im, colours: int) -> bytes:
    from PIL import Image
    q = im.quantize(colors=colours, method=Image.Quantize.FASTOCTREE, dither=Image.Dither.NONE)
    out = io.BytesIO()
    q.save(out, "PNG", compress_level=COMPRESS_LEVEL)
    return out.getvalue()


def _has_pillow() -> bool:
    try:
        import PIL.Image  # noqa: F401
    except ImportError:
        return False
    return True


def _palette_png(png: bytes, colours: int) -> bytes:
    """``png`` as a palette image of ``colours`` colours, or ``png`` itself
    when the palette image would not be smaller (a photograph-like picture)."""
    from PIL import Image
    with Image.open(io.BytesIO(png)) as im:
        q = im.convert("RGB").quantize(colors=colours, method=Image.Quantize.FASTOCTREE, dither=Image.Dither.NONE)
    out = io.BytesIO()
    q.save(out, "PNG", compress_level=COMPRESS_LEVEL)
    return out.getvalue() if out.tell() < len(png) else png
