"""The map's texts drawn as their glyphs' outlines (pbem.report.glyphs, issue 29) look as
resvg lays the texts out itself (the plain path), and what it cannot place exactly is
left as text."""
import io

import pytest

from pbem.report import glyphs, png

Image = pytest.importorskip("PIL.Image")
pytest.importorskip("uharfbuzz")


def _draw(svg: str, opts):
    import resvg
    tree = resvg.usvg.Tree.from_str(svg, opts)
    with Image.open(io.BytesIO(bytes(resvg.render(tree, (1.0, 0.0, 0.0, 0.0, 1.0, 0.0))))) as im:
        return im.convert("RGB")


def _plain(svg: str):
    """resvg's own picture of ``svg``: its texts laid out by resvg, in the bundled fonts."""
    return _draw(svg, png._options())


def _outlined(svg: str):
    out = glyphs.outline(svg)
    assert "<text" not in out and "<path" in out
    import resvg
    return _draw(out, resvg.usvg.Options.default())   # no font handed over: the texts are paths now


def _far(a, b, by: int) -> int:
    from PIL import ImageChops
    return ImageChops.difference(a, b).convert("L").point(lambda v: 255 if v > by else 0).histogram()[255]


def _svg(body: str, group: str = 'font-size="14"') -> str:
    return ('<svg xmlns="http://www.w3.org/2000/svg" width="420" height="60" '
            'font-family="DejaVu Sans, Verdana, Arial, Helvetica, sans-serif">'
            f'<rect width="420" height="60" fill="#fbf8f0"/><g {group}>{body}</g></svg>')


LABELS = [
    # (the text element, its group's attributes): what the maps draw
    ('<text x="10" y="30">Khar\'kov &amp; Mérefa AVATAR 0325</text>', 'font-size="14" fill="#222222"'),
    ('<text x="210" y="30" text-anchor="middle" font-weight="bold">2/1MG 3-4</text>', 'font-size="16"'),
    ('<text x="410" y="30" text-anchor="end">Tobruk  perimeter </text>', 'font-size="12" fill="#4a4a4a"'),
    ('<text class="unit-id" x="60" y="30" font-size="8.21" font-weight="bold" text-anchor="middle" '
     'textLength="34" lengthAdjust="spacingAndGlyphs">Brescia</text>', 'fill="#111111"'),
    ('<text x="60" y="30" font-size="12" textLength="90" lengthAdjust="spacingAndGlyphs">wide</text>', ''),
    ('<text x="200" y="40" class="place">Akrotiri</text>',
     'font-size="19" font-style="italic" fill="#3b2410" text-anchor="middle" stroke="#ffffff" stroke-width="3" '
     'stroke-opacity="0.8" stroke-linejoin="round" paint-order="stroke"'),
]


@pytest.mark.parametrize("body,group", LABELS)
def test_a_text_drawn_as_its_glyphs_looks_as_resvg_lays_it_out(body, group):
    # the same glyphs (HarfBuzz shapes as resvg's own shaper does: kerning, the anchor, the
    # white space collapsed), at the same places: only anti-aliased edge pixels may differ
    # by a shade (resvg rounds the positions of the glyphs it lays out itself)
    svg = _svg(body, group)
    a, b = _plain(svg), _outlined(svg)
    assert a.size == b.size
    assert _far(a, b, 96) == 0 and _far(a, b, 40) <= 6
    box = lambda im: Image.eval(im.convert("L"), lambda v: 255 if v < 200 else 0).getbbox()   # noqa: E731
    ga, gb = box(a), box(b)
    assert ga is not None and all(abs(p - q) <= 1 for p, q in zip(ga, gb))


def test_a_wrong_place_would_be_seen():
    # the comparison above can fail: the same label a pixel and a half to the right
    svg = _svg(LABELS[0][0], LABELS[0][1])
    moved = _svg(LABELS[0][0].replace('x="10"', 'x="11.5"'), LABELS[0][1])
    assert _far(_plain(svg), _outlined(moved), 96) > 50


@pytest.mark.parametrize("body,group", [
    ('<text x="10" y="30" transform="rotate(10)">turned</text>', 'font-size="14"'),
    ('<text x="10" y="30">spaced</text>', 'font-size="14" letter-spacing="2"'),
    ('<text x="10" y="30" dominant-baseline="middle">centred</text>', 'font-size="14"'),
    ('<text x="10" y="30"><tspan>in parts</tspan></text>', 'font-size="14"'),
    ('<text x="10" y="30" font-weight="bold" font-style="italic">bold oblique</text>', 'font-size="14"'),
    ('<text x="10" y="30" font-weight="300">light</text>', 'font-size="14"'),
    ('<text x="10" y="30">\ue000 private</text>', 'font-size="14"'),
    ('<text x="10" y="30">no size</text>', 'fill="#000"'),
    ('<text x="10" y="30">em</text>', 'font-size="1.2em"'),
    ('<text x="10" y="30" textLength="90">spaced out</text>', 'font-size="14"'),
])
def test_a_text_it_cannot_place_exactly_is_left_for_resvg(body, group):
    svg = _svg(body, group)
    assert glyphs.outline(svg) == svg


def test_a_text_that_is_only_white_space_draws_nothing():
    svg = _svg('<text x="10" y="30">  \n </text><text x="10" y="50">kept</text>')
    out = glyphs.outline(svg)
    assert "<text" not in out and out.count("<path") == 1


def test_the_same_text_elsewhere_is_the_same_outline_moved():
    import re
    start = re.compile(r"M(-?[0-9.]+),(-?[0-9.]+)")
    one = glyphs.outline(_svg('<text x="10" y="30">0325</text>'))
    two = glyphs.outline(_svg('<text x="110" y="40">0325</text>'))
    m1, m2 = start.findall(one), start.findall(two)
    assert len(m1) == len(m2) == 4                           # a glyph each, each from its first point
    for (x1, y1), (x2, y2) in zip(m1, m2):
        assert abs(float(x2) - float(x1) - 100) < 1e-6 and abs(float(y2) - float(y1) - 10) < 1e-6
    assert start.sub("M", one) == start.sub("M", two)        # the rest relative: the same


def test_without_harfbuzz_the_texts_are_left_for_resvg(monkeypatch):
    svg = _svg(LABELS[0][0], LABELS[0][1])
    monkeypatch.setattr(glyphs, "_hb", False)
    assert glyphs.outline(svg) == svg
    # and the map is drawn all the same, resvg laying its texts out
    assert png._resvg(svg, None, True)[:8] == b"\x89PNG\r\n\x1a\n"


def test_a_map_png_is_drawn_with_no_text_left_for_resvg(played_example, monkeypatch):
    # every text of a played map (hex numbers, place names, counters, legend, title) is one
    # the outlines place: resvg is handed no font to lay out at all
    from pbem.report.render import report_svg
    g = played_example("el-alamein").game()
    entries = g.entries()
    at = entries[-1].seq
    svg = report_svg(g, "axis", g.state(at), entries, at - 3, entries[at].hash)
    assert svg.count("<text") > 50
    assert "<text" not in glyphs.outline(svg)


TITLES = [
    # (a title bar's text, the attributes the SVG root passes on): what ``mapsvg`` writes
    ('<text x="24" y="29" font-size="16" font-weight="bold" fill="#ffffff">Khar&#x27;kov: winter offensive and '
     'counterstroke, January - March 1943 - turn 5, Soviet movement - seq 460 - head 959d490776fc</text>', {}),
    ('<text class="info" x="24" y="46" font-size="12" fill="#f3e3b0">Turn 5 of 8 (16-22 February)  ·  '
     'Soviet movement  ·  Score: Soviet 10 VP, German 4 VP</text>', {}),
    ('<text x="24.5" y="29" font-size="14.66" font-weight="bold" fill="#ffffff"> Mérefa  AVATAR, Tobruk 1941 '
     '</text>', {"font-size": "12"}),
]


@pytest.mark.parametrize("text,inherited", TITLES)
def test_a_text_cut_into_its_words_draws_exactly_the_whole_texts_glyphs(text, inherited):
    # each word a text of its own at the pen the whole text reaches there: its outline is,
    # number for number, the whole text's outline of those glyphs (tiles draws a title bar
    # a word at a time, so a new head redraws only the head)
    import re
    m = re.match(r"<text([^>]*)>([^<]*)</text>", text)
    got = glyphs.words(m.group(1), m.group(2), inherited)
    assert got is not None and [w for _x, w in got] == glyphs._spaced(m.group(2)).split(" ")
    whole = glyphs._path(m.group(1), m.group(2), inherited)
    parts = [glyphs._path(re.sub(r'\sx="[^"]*"', f' x="{x!r}"', m.group(1)), w, inherited) for x, w in got]
    d = re.search(r' d="([^"]*)"', whole).group(1)
    assert "".join(re.search(r' d="([^"]*)"', p).group(1) for p in parts) == d
    assert all(p.replace(re.search(r' d="[^"]*"', p).group(0), "") ==
               whole.replace(re.search(r' d="[^"]*"', whole).group(0), "") for p in parts)   # the same paint


def test_a_text_not_laid_from_its_start_is_not_cut_into_words():
    assert glyphs.words(' x="10" y="30" text-anchor="middle" font-size="12"', "two words", {}) is None
    assert glyphs.words(' x="10" y="30" font-size="12" textLength="90" lengthAdjust="spacingAndGlyphs"',
                        "two words", {}) is None
    assert glyphs.words(' x="10" y="30" font-size="12"', "two words", {"text-anchor": "end"}) is None
    assert glyphs.words(' x="10" y="30" font-size="12"', "two words", {"?": ""}) is None
