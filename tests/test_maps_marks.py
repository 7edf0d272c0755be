"""What decides the game, on the map (issue 16): objective hexes with their
VP badges, set-up areas and drop zones, turn, phase and score under the
title, a north arrow only where north is not up, eliminated units in a box.
Small maps built in the test; only the pieces looked at are rendered."""
from __future__ import annotations

import xml.etree.ElementTree as ET

import pytest

from conftest import U
from pbem.core import scenario
from pbem.report import render
from pbem.report.mapsvg import hex_centre, render_svg
from pbem.report.marks import info_line

NS = "{http://www.w3.org/2000/svg}"


@pytest.fixture(scope="module")
def sc(tmp_path_factory):
    from conftest import write_scenario
    d = tmp_path_factory.mktemp("marks")
    return scenario.load(str(write_scenario(d, [U("A1", "axis", 3, 4, "0404"), U("B1", "british", 2, 4, "0606")])))


def units(*rows):
    return [{"id": i, "side": s, "hex": h, "strength": 3, "ma": 4, "status": list(st), "nationality": "",
             "type": "infantry"} for i, s, h, st in rows]


def by_class(root, cls):
    return [e for e in root.iter() if cls in (e.get("class") or "").split()]


def test_objectives_outlined_with_their_values_above_the_counters(sc):
    marks = {"objectives": [{"hex": "0404", "vp": 5, "label": "airfield"}, {"hex": "0606", "vp": 0},
                            {"hex": "9999", "vp": 3}]}                  # off the map: not drawn
    svg = render_svg(sc, units(("A1", "axis", "0404", ())), marks=marks)
    root = ET.fromstring(svg)
    assert [p.get("data-hex") for p in by_class(root, "objective")] == ["0404", "0606"]
    badges = {b.get("data-hex"): [t.text for t in b.iter(NS + "text")] for b in by_class(root, "objective-badge")}
    assert badges == {"0404": ["5"], "0606": ["\u2605"]}
    # the badges come after the counters (drawn above them), left of where a counter sits
    assert svg.index('class="objective-badges"') > svg.index('class="counters"')
    cx, _cy = hex_centre(sc.board.grid, "0404")
    circle = next(by_class(root, "objective-badge")[0].iter(NS + "circle"))
    assert float(circle.get("cx")) + 7 <= cx - 19                      # clear of a lone counter's left edge
    legend = by_class(root, "legend")[0]
    assert "objective (VP)" in [t.text for t in legend.iter(NS + "text")]


def test_set_up_areas_are_tinted_and_named_in_the_legend(sc):
    marks = {"areas": [{"label": "Axis set-up", "hexes": ["0101", "0102"]},
                       {"label": "drop zone B", "hexes": ["0505"]}]}
    root = ET.fromstring(render_svg(sc, [], marks=marks))
    areas = by_class(root, "area")
    assert [a.get("data-label") for a in areas] == ["Axis set-up", "drop zone B"]
    assert [p.get("data-hex") for p in areas[0].iter(NS + "polygon")] == ["0101", "0102"]
    assert areas[0].get("fill") != areas[1].get("fill")
    texts = [t.text for t in by_class(root, "legend")[0].iter(NS + "text")]
    assert "Axis set-up" in texts and "drop zone B" in texts


def test_north_arrow_only_where_north_is_not_up(sc):
    assert "north-arrow" not in render_svg(sc, [], marks={"north": 0})
    root = ET.fromstring(render_svg(sc, [], marks={"north": 90}))
    [arrow] = by_class(root, "north-arrow")
    assert arrow.get("data-degrees") == "90"
    n = [t for t in arrow.iter(NS + "text")][0]
    circle = next(arrow.iter(NS + "circle"))
    assert n.text == "N" and float(n.get("x")) > float(circle.get("cx")) + 10     # points east on the page


def test_eliminated_units_are_boxed_under_the_map_with_their_values(sc):
    svg = render_svg(sc, units(("A1", "axis", "0404", ()), ("A2", "axis", None, ("eliminated",)),
                               ("B9", "british", "0606", ("eliminated",))))
    root = ET.fromstring(svg)
    [box] = by_class(root, "eliminated-box")
    ids = [c.get("data-unit") for c in by_class(box, "counter")]
    assert ids == ["A2", "B9"]
    assert [t.text for t in by_class(box, "unit-values")] == ["3-4", "3-4"]
    on_map = by_class(root, "counters")[0]
    assert [c.get("data-unit") for c in by_class(on_map, "counter")] == ["A1"]
    assert "eliminated-box" not in render_svg(sc, units(("A1", "axis", "0404", ())))


def test_turn_phase_and_score_under_the_title(make_game):
    t = make_game([U("A1", "axis", 3, 4, "0404"), U("B1", "british", 2, 4, "0606")])
    g = t.game
    st = g.state()
    st.score = {"axis": 3, "british": 1}
    entries = g.entries()
    svg = render.report_svg(g, "axis", st, entries, 0, entries[-1].hash)
    [info] = by_class(ET.fromstring(svg), "info")
    assert info.text.startswith(f"Turn 1 of {g.scenario.turns}")
    assert g.scenario.side_name("axis") + " movement" in info.text
    assert "Score: " in info.text and f"{g.scenario.side_name('axis')} 3" in info.text
    view = {"turn": 2, "turns": 5, "turn_label": "3 Sept", "phase": "combat", "phase_side": "british",
            "result": None}
    assert info_line(view, {"score": "Axis 12 VP"}, g.scenario) == (
        f"Turn 2 of 5 (3 Sept)  \u00b7  {g.scenario.side_name('british')} combat  \u00b7  Score: Axis 12 VP")


def test_a_shipped_game_marks_its_objectives_through_its_ruleset(tmp_path, monkeypatch):
    """Crete's airfields (5) and Suda (10) come from its Ruleset.map_marks, read from the scenario."""
    from pbem.engine import Game
    monkeypatch.setenv("PBEM_CLOCK", "2026-01-01T00:00:00Z")
    g = Game.create(tmp_path / "g", "crete", {}, dice=[1, 2, 3])
    entries, st = g.entries(), g.state()
    root = ET.fromstring(render.report_svg(g, g.scenario.side_ids()[0], st, entries, 0, entries[-1].hash))
    vps = sorted(b.get("data-vp") for b in by_class(root, "objective-badge"))
    assert vps == ["10", "5", "5", "5"]
