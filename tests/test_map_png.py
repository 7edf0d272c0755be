"""The mailed map picture (pbem/report/png.py): a palette PNG no wider than
asked and never larger than the full-colour one, drawn with the bundled
DejaVu fonts only, so the same SVG is the same picture on every machine
(issue 23: the old test compared bytes that depended on the system's fonts)."""
from __future__ import annotations

import io

import pytest

from pbem.report.fontmetrics import FONT_FAMILY
from pbem.report.png import FONT_FILES, _palette_png, svg_to_png

Image = pytest.importorskip("PIL.Image")

# Flat colours on shapes that are not pixel-aligned, as on a map: anti-aliasing
# makes thousands of edge colours, the palette keeps the few flat ones.
MAPLIKE = ('<svg xmlns="http://www.w3.org/2000/svg" width="2000" height="500">'
           '<rect width="2000" height="500" fill="#e8dcb0"/>'
           + "".join(f'<circle cx="{37 + i * 41.3}" cy="{60 + (i * 53) % 380}" r="{18.5 + i % 7}" '
                     f'fill="#{(i * 37) % 256:02x}{(i * 91) % 256:02x}80" stroke="#222" stroke-width="1.5"/>'
                     for i in range(48))
           + '<text x="10" y="250" font-size="40">0512</text></svg>')


def _pixels(png: bytes) -> tuple[tuple[int, int], bytes]:
    with Image.open(io.BytesIO(png)) as im:
        return im.size, im.convert("RGBA").tobytes()


def test_the_map_png_is_a_palette_image_no_wider_than_asked_and_smaller_than_full_colour():
    png = svg_to_png(MAPLIKE, max_width=1000)
    with Image.open(io.BytesIO(png)) as im:
        assert im.size == (1000, 250) and im.mode == "P"
    full = svg_to_png(MAPLIKE, max_width=4000, colours=0)             # asked for: the plain resvg PNG
    with Image.open(io.BytesIO(full)) as im:
        assert im.size == (2000, 500) and im.mode in ("RGBA", "RGB")
    palette = svg_to_png(MAPLIKE, max_width=4000)
    with Image.open(io.BytesIO(palette)) as im:
        assert im.mode == "P" and len(im.getcolors(256)) <= 64
    assert len(palette) < len(full)


@pytest.mark.parametrize("colours", [2, 64])
def test_the_palette_png_is_never_larger_than_the_picture_it_replaces(colours):
    # A picture already as small as a palette can make it: the original is kept.
    buf = io.BytesIO()
    Image.new("1", (300, 100), 1).save(buf, "PNG", optimize=True)
    tiny = buf.getvalue()
    assert _palette_png(tiny, colours) == tiny
    # A noisy picture: whatever the palette gives, it is never larger.
    noisy = Image.frombytes("RGB", (200, 200), bytes((i * 7919 + (i >> 3) * 104729) % 251 for i in range(120000)))
    buf = io.BytesIO()
    noisy.save(buf, "PNG")
    assert len(_palette_png(buf.getvalue(), colours)) <= len(buf.getvalue())


def _label(family: str) -> str:
    return ('<svg xmlns="http://www.w3.org/2000/svg" width="200" height="40">'
            '<rect width="200" height="40" fill="#fff"/>'
            f'<text x="4" y="30" font-size="24" font-weight="bold" font-family="{family}">4Ind-HQ</text></svg>')


def test_the_map_is_drawn_in_the_bundled_font_whatever_the_system_has():
    # Fonts a machine may or may not have (Liberation comes with Chromium) are never
    # used: a font list ending in the generic family, as the map's does, is drawn in
    # the bundled DejaVu Sans, the font the map measured its labels with (fontmetrics).
    assert all(io.open(f, "rb").read(4) in (b"\x00\x01\x00\x00", b"OTTO") for f in FONT_FILES)
    dejavu = _pixels(svg_to_png(_label("DejaVu Sans"), colours=0))
    for family in ("Liberation Sans, sans-serif", "Arial, Helvetica, sans-serif", "sans-serif", FONT_FAMILY):
        assert _pixels(svg_to_png(_label(family), colours=0)) == dejavu, family
    size, px = dejavu
    assert size == (200, 40) and len(set(px[i:i + 4] for i in range(0, len(px), 4))) > 8   # the text is drawn


def test_a_real_png_or_none():
    png = svg_to_png('<svg xmlns="http://www.w3.org/2000/svg" width="40" height="20">'
                     '<rect width="40" height="20" fill="#c00"/><text x="2" y="15">0512</text></svg>')
    assert png is not None and png[:8] == b"\x89PNG\r\n\x1a\n"
    assert svg_to_png("not svg at all") is None                 # refused: the mail goes with the SVG alone
