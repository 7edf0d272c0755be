"""Labels measured with the font's real widths (issue 16): the bundled
DejaVu Sans table against the font itself, and place names that never run
under a counter, even when every hex of the place holds one."""
from __future__ import annotations

import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from conftest import U, write_scenario
from pbem.core import scenario
from pbem.report.fontmetrics import text_width
from pbem.report.mapsvg import render_svg
from pbem.report.png import FONT_FILES

NS = "{http://www.w3.org/2000/svg}"
# The fonts pbem bundles and hands to resvg (pbem/report/png.py), not the system's
# (issue 23: nothing in the suite depends on which fonts a machine has).
DEJAVU = Path(FONT_FILES[0]).parent


@pytest.mark.parametrize("text, bold, italic", [("21Pz/5", True, False), ("Oosterbeek railway bridge", False, True),
                                                ("MNBDO", True, False), ("Héraklion", False, False)])
def test_widths_are_the_fonts_own(text, bold, italic):
    ImageFont = pytest.importorskip("PIL.ImageFont")
    name = "DejaVuSans-Bold.ttf" if bold else "DejaVuSans-Oblique.ttf" if italic else "DejaVuSans.ttf"
    assert str(DEJAVU / name) in FONT_FILES            # the very file the map is drawn with
    real = ImageFont.truetype(str(DEJAVU / name), 100).getlength(text) / 10
    assert text_width(text, 10, bold, italic) == pytest.approx(real, rel=0.01)
    # not a character-count guess: "iii" and "WWW" differ by far
    assert text_width("WWW", 10) > 2.5 * text_width("iii", 10)


def _counters_and_places(svg: str):
    root = ET.fromstring(svg)
    boxes = []
    for g in root.iter(NS + "g"):
        if "counter" in (g.get("class") or "").split():
            r = [e for e in g.iter(NS + "rect") if e.get("stroke")][0]
            x, y = float(r.get("x")), float(r.get("y"))
            boxes.append((x, y, x + float(r.get("width")), y + float(r.get("height"))))
    places = []
    for grp in root.iter(NS + "g"):
        cls = (grp.get("class") or "").split()
        if "places" in cls:
            for t in grp.iter(NS + "text"):
                places.append((t.text, float(t.get("x")), float(t.get("y")), "places-over" in cls))
    return svg, boxes, places


def _under_a_counter(x, y, text, boxes) -> bool:
    half = text_width(text, 9.5, italic=True) / 2
    return any(x0 < x + half and x - half < x1 and y0 < y + 2.5 and y - 7.5 < y1 for x0, y0, x1, y1 in boxes)


def test_place_names_never_run_under_counters(tmp_path):
    # "Long Place Name" on 0404 and 0405, both hexes and every spot around them held
    held = ["0404", "0405", "0403", "0406", "0304", "0305", "0504", "0505", "0306", "0506"]
    units = [U(f"U{i}", "axis", 3, 4, h) for i, h in enumerate(held)]
    path = write_scenario(tmp_path, units)
    text = Path(path).read_text()
    text = text.replace("[map]", '[map]\nplaces = [{ name = "Long Place Name", hexes = ["0404", "0405"] }, '
                        '{ name = "Free", hexes = ["0101"] }]', 1)
    Path(path).write_text(text)
    sc = scenario.load(str(path))
    assert sc.board.places
    rows = [{"id": u["id"], "side": "axis", "hex": u["hex"], "strength": 3, "ma": 4, "status": [],
             "nationality": "german", "type": "infantry"} for u in units]
    svg, boxes, places = _counters_and_places(render_svg(sc, rows))
    assert places
    for name, x, y, over in places:
        # a label is either clear of every counter or drawn above them (after the counters)
        assert over or not _under_a_counter(x, y, name, boxes), name
    # every spot of "Long Place Name" is held: it goes above the counters, not under them
    assert [over for name, *_xy, over in places if name == "Long Place Name"] == [True]
    assert svg.index("places-over") > svg.index('class="counters"')
    free = [p for p in places if p[0] == "Free"]
    assert free and not free[0][3]
