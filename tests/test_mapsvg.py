"""Tests for pbem.mapsvg: SVG structure, counters, moves, geometry, escaping."""

import math
import xml.etree.ElementTree as ET

import pytest

from pbem.core import scenario
from pbem.core.hexgrid import Grid
from pbem.report.mapsvg import (HEX_R, MOVE_STYLES, NATIONALITY_COLOURS, SIDE_PALETTE,
                         counter_colour, hex_centre, render_svg)

NS = "{http://www.w3.org/2000/svg}"
SQ3 = math.sqrt(3)


@pytest.fixture(scope="module")
def sc():
    return scenario.load("el-alamein")


def setup_units(sc):
    return [{"id": u.id, "side": u.side, "hex": u.hex, "strength": u.strength, "ma": u.ma,
             "status": [], "nationality": u.nationality, "type": u.type} for u in sc.units]


def unit(uid, h, side="axis", nat="german", utype="infantry", status=(), strength=3, ma=4):
    return {"id": uid, "side": side, "hex": h, "strength": strength, "ma": ma,
            "status": list(status), "nationality": nat, "type": utype}


def parse(svg):
    return ET.fromstring(svg)


def classes(el):
    return el.get("class", "").split()


def find_class(root, cls, tag=None):
    return [e for e in root.iter() if cls in classes(e) and (tag is None or e.tag == NS + tag)]


def counter(root, uid):
    found = [g for g in find_class(root, "counter", "g") if g.get("data-unit") == uid]
    assert len(found) <= 1
    return found[0] if found else None


def polygon_points(el):
    return [tuple(map(float, p.split(","))) for p in el.get("points").split()]


def centroid(pts):
    return sum(p[0] for p in pts) / len(pts), sum(p[1] for p in pts) / len(pts)


# -- structure -----------------------------------------------------------------

def test_valid_xml_with_size_and_viewbox(sc):
    svg = render_svg(sc, setup_units(sc))
    root = parse(svg)
    assert root.tag == NS + "svg"
    w, h = float(root.get("width")), float(root.get("height"))
    assert root.get("viewBox") == f"0 0 {root.get('width')} {root.get('height')}"
    # readable at about 1200 px for the 20x14 map
    assert 1000 <= w <= 1300 and 800 <= h <= 1200
    # every map hex is drawn once, filled with its terrain colour
    hexes = {e.get("id"): e for e in root.iter(NS + "polygon") if (e.get("id") or "").startswith("hex-")}
    assert len(hexes) == 20 * 14
    for hx, t in sc.board.terrain.items():
        assert hexes[f"hex-{hx}"].get("fill") == sc.terrain[t].colour
    texts = [e.text for e in root.iter(NS + "text")]
    assert "0101" in texts and "2014" in texts          # hex numbers
    assert "El Alamein" in texts and "Alam Halfa Ridge" in texts   # place names, once each
    assert texts.count("Alam Halfa Ridge") == 1


def test_legend_lists_terrain_nationalities_and_move_kinds(sc):
    root = parse(render_svg(sc, setup_units(sc), highlight=["0910"]))
    legend = find_class(root, "legend", "g")[0]
    texts = {e.text for e in legend.iter(NS + "text")}
    for t in ("desert", "highlands", "village", "coast", "sea"):
        assert t in texts
    assert {"german", "italian", "british"} <= texts
    assert {"road", "battle position", "disrupted", "combat hex"} <= texts
    for _colour, _dash, label in MOVE_STYLES.values():
        assert label in texts


def test_title_defaults_to_scenario_title(sc):
    root = parse(render_svg(sc, []))
    bar = find_class(root, "title-bar", "g")[0]
    assert [e.text for e in bar.iter(NS + "text")] == [sc.title]


# -- counters ------------------------------------------------------------------

def test_every_placed_unit_drawn_and_unplaced_not(sc):
    units = setup_units(sc)
    units.append(unit("Ghost", None))
    units.append(unit("Gone", "0101", status=["eliminated"]))
    root = parse(render_svg(sc, units))
    on_map = find_class(root, "counters", "g")[0]
    ids = [e.text for e in find_class(on_map, "unit-id", "text")]
    assert sorted(ids) == sorted(u.id for u in sc.units)
    assert all(c.get("data-unit") != "Gone" for c in find_class(on_map, "counter", "g"))
    # an eliminated unit is shown in the box of eliminated units under the map, not on it
    box = find_class(root, "eliminated-box", "g")[0]
    assert [c.get("data-unit") for c in find_class(box, "counter", "g")] == ["Gone"]
    svg = render_svg(sc, units)
    assert "Ghost" not in svg


def test_counter_shows_values_and_nationality_colour(sc):
    root = parse(render_svg(sc, setup_units(sc)))
    g = counter(root, "8Pz")
    assert [e.text for e in find_class(g, "unit-values", "text")] == ["8-6"]
    fills = {e.get("fill") for e in g.iter(NS + "rect")}
    assert NATIONALITY_COLOURS["german"] in fills
    assert NATIONALITY_COLOURS["italian"] in {e.get("fill") for e in counter(root, "Ariete").iter(NS + "rect")}
    assert NATIONALITY_COLOURS["british"] in {e.get("fill") for e in counter(root, "2Arm").iter(NS + "rect")}


def test_unknown_nationality_gets_stable_side_colour():
    c = counter_colour("ruritanian", "allies")
    assert c in SIDE_PALETTE and c == counter_colour("ruritanian", "allies")
    assert counter_colour("German", "x") == NATIONALITY_COLOURS["german"]


def test_disrupted_unit_is_marked(sc):
    units = [unit("A1", "0512", status=["disrupted"]), unit("A2", "0513")]
    root = parse(render_svg(sc, units))
    a1, a2 = counter(root, "A1"), counter(root, "A2")
    assert "disrupted" in classes(a1) and "disrupted" not in classes(a2)
    marker = find_class(a1, "disrupted-marker", "g")
    assert marker and [e.text for e in marker[0].iter(NS + "text")] == ["D"]
    border = find_class(a1, "disrupted-border", "rect")
    assert border and border[0].get("stroke-dasharray")
    assert not find_class(a2, "disrupted-marker") and not find_class(a2, "disrupted-border")


def test_stacked_units_are_offset_and_all_ids_shown(sc):
    units = [unit("S1", "0810"), unit("S2", "0810"), unit("S3", "0810")]
    root = parse(render_svg(sc, units))
    tops = []
    for uid in ("S1", "S2", "S3"):
        g = counter(root, uid)
        assert [e.text for e in find_class(g, "unit-id", "text")] == [uid]
        body = [r for r in g.iter(NS + "rect") if r.get("stroke")][0]
        tops.append((float(body.get("x")), float(body.get("y")), float(body.get("width")),
                     float(body.get("height"))))
    # each counter sits lower than the one behind it by more than its id text height
    assert tops[0][1] + 9 < tops[1][1] and tops[1][1] + 9 < tops[2][1]
    assert tops[0][0] < tops[1][0] < tops[2][0]
    # the stack stays roughly inside its hex
    cx, cy = hex_centre(sc.board.grid, "0810")
    assert abs((tops[0][0] + tops[2][0] + tops[2][2]) / 2 - cx) < 1
    assert tops[0][1] > cy - SQ3 / 2 * HEX_R and tops[2][1] + tops[2][3] < cy + SQ3 / 2 * HEX_R
    # every counter of the stack shows its values in the strip that stays visible
    for uid in ("S1", "S2", "S3"):
        assert [e.text for e in find_class(counter(root, uid), "unit-values", "text")] == ["3-4"]


def test_long_ids_are_shrunk(sc):
    root = parse(render_svg(sc, [unit("VeryLongUnitName", "0512"), unit("5", "0513")]))
    long_fs = float(find_class(counter(root, "VeryLongUnitName"), "unit-id", "text")[0].get("font-size"))
    short_fs = float(find_class(counter(root, "5"), "unit-id", "text")[0].get("font-size"))
    assert long_fs < short_fs


# -- moves and highlights ---------------------------------------------------------

MOVES = [
    {"unit": "8Pz", "path": ["0512", "0612", "0711", "0810"], "kind": "move"},
    {"unit": "5NZ", "path": ["0910", "1009"], "kind": "retreat"},
    {"unit": "Littorio", "path": ["0810", "0910"], "kind": "advance"},
]


def test_one_arrowed_polyline_per_move(sc):
    root = parse(render_svg(sc, setup_units(sc), MOVES))
    groups = find_class(root, "move", "g")
    assert [g.get("data-unit") for g in groups] == ["8Pz", "5NZ", "Littorio"]
    grid = sc.board.grid
    for g, m in zip(groups, MOVES):
        lines = find_class(g, "move-path", "polyline")
        assert len(lines) == 1
        line = lines[0]
        pts = polygon_points(line)
        assert len(pts) == len(m["path"])
        # starts at the start hex centre, ends short of the last centre but along the last leg
        sx, sy = hex_centre(grid, m["path"][0])
        assert math.isclose(pts[0][0], sx, abs_tol=0.01) and math.isclose(pts[0][1], sy, abs_tol=0.01)
        ex, ey = hex_centre(grid, m["path"][-1])
        assert math.dist(pts[-1], (ex, ey)) < HEX_R
        colour, dash, _ = MOVE_STYLES[m["kind"]]
        assert line.get("stroke") == colour
        assert (line.get("stroke-dasharray") or "") == dash
        assert line.get("marker-end") == f"url(#arrow-{m['kind']})"
    assert find_class(groups[1], "move-path")[0].get("stroke-dasharray")   # retreat is dashed
    ids = {e.get("id") for e in root.iter(NS + "marker")}
    assert {"arrow-move", "arrow-retreat", "arrow-advance"} <= ids


def test_moves_are_drawn_under_counters(sc):
    root = parse(render_svg(sc, setup_units(sc), MOVES))
    order = [classes(e)[0] for e in root.iter(NS + "g") if classes(e) and classes(e)[0] in ("moves", "counters")]
    assert order == ["moves", "counters"]


def test_highlight_outlines_hexes(sc):
    root = parse(render_svg(sc, [], highlight=["0910", "1410", "0910"]))
    hl = find_class(root, "highlight", "polygon")
    assert [e.get("data-hex") for e in hl] == ["0910", "1410"]
    group = find_class(root, "highlights", "g")[0]
    assert group.get("stroke") == "#ff8c00" and float(group.get("stroke-width")) >= 3
    cx, cy = hex_centre(sc.board.grid, "0910")
    assert math.dist(centroid(polygon_points(hl[0])), (cx, cy)) < 0.05


# -- determinism and escaping --------------------------------------------------------

def test_deterministic(sc):
    a = render_svg(sc, setup_units(sc), MOVES, title="T", highlight=["0910"])
    b = render_svg(sc, setup_units(sc), [dict(m) for m in MOVES], title="T", highlight=["0910"])
    assert a == b
    assert render_svg(sc, []) == render_svg(sc, [])


def test_text_is_escaped(sc):
    title = 'Turn 1 <Axis> & "friends"'
    units = [unit("A&B<1>", "0512")]
    svg = render_svg(sc, units, [{"unit": "A&B<1>", "path": ["0412", "0512"], "kind": "move"}], title=title)
    assert "<Axis>" not in svg and "&lt;Axis&gt; &amp;" in svg
    root = parse(svg)
    bar = find_class(root, "title-bar", "g")[0]
    assert [e.text for e in bar.iter(NS + "text")] == [title]
    assert root.find(NS + "title").text == title
    assert counter(root, "A&B<1>") is not None
    assert find_class(root, "move", "g")[0].get("data-unit") == "A&B<1>"
    parse(render_svg(sc, [], title="<&>"))
    assert "&lt;&amp;&gt;" in render_svg(sc, [], title="<&>")


def test_control_characters_do_not_break_xml(sc):
    parse(render_svg(sc, [unit("x\x01y", "0512")], title="bad\x00title\x1b"))


# -- geometry ---------------------------------------------------------------------

@pytest.mark.parametrize("offset", ["even-down", "odd-down"])
@pytest.mark.parametrize("first_col", [1, 2])
def test_neighbour_centres_are_geometric_neighbours(offset, first_col):
    grid = Grid(first_col, first_col + 7, 1, 6, offset)
    spacing = SQ3 * HEX_R
    for h in grid.all_hexes():
        c = hex_centre(grid, h)
        nbrs = set(grid.neighbours(h))
        for n in nbrs:
            assert math.isclose(math.dist(c, hex_centre(grid, n)), spacing, rel_tol=1e-9), (h, n)
        for o in grid.all_hexes():
            if o != h and o not in nbrs:
                # the nearest non-neighbours are 3R away (two hexes along a column offset)
                assert math.dist(c, hex_centre(grid, o)) >= 3 * HEX_R - 1e-9, (h, o)


def test_offset_shifts_the_right_columns():
    even = Grid(1, 4, 1, 3, "even-down")
    odd = Grid(1, 4, 1, 3, "odd-down")
    # even-down: column 02 sits half a hex lower than column 01
    assert hex_centre(even, "0201")[1] - hex_centre(even, "0101")[1] == pytest.approx(SQ3 / 2 * HEX_R)
    assert hex_centre(odd, "0101")[1] - hex_centre(odd, "0201")[1] == pytest.approx(SQ3 / 2 * HEX_R)
    assert hex_centre(even, "0201")[0] - hex_centre(even, "0101")[0] == pytest.approx(1.5 * HEX_R)
    # rows grow southward (down the page)
    assert hex_centre(even, "0102")[1] > hex_centre(even, "0101")[1]


def test_drawn_hexes_tile_with_grid_neighbours(sc):
    """Drawn polygons sit on hex_centre and grid neighbours share exactly one edge."""
    root = parse(render_svg(sc, []))
    grid = sc.board.grid
    polys = {e.get("id")[4:]: polygon_points(e) for e in root.iter(NS + "polygon")
             if (e.get("id") or "").startswith("hex-")}

    def key(p):
        return (round(p[0], 1), round(p[1], 1))

    for h in ("0512", "0609", "0910", "1001", "2014", "0101", "1906"):
        assert math.dist(centroid(polys[h]), hex_centre(grid, h)) < 0.05
        corners = {key(p) for p in polys[h]}
        for n in grid.neighbours(h):
            assert len(corners & {key(p) for p in polys[n]}) == 2, (h, n)
        for o in grid.within(h, 2):
            if o != h and o not in grid.neighbours(h):
                assert len(corners & {key(p) for p in polys[o]}) == 0, (h, o)


def test_roads_join_adjacent_road_hexes(sc):
    root = parse(render_svg(sc, []))
    grid = sc.board.grid
    roads = find_class(root, "roads", "g")[0]
    segs = {(round(float(e.get("x1")), 1), round(float(e.get("y1")), 1),
             round(float(e.get("x2")), 1), round(float(e.get("y2")), 1)) for e in roads.iter(NS + "line")}
    a, b = hex_centre(grid, "0904"), hex_centre(grid, "1004")
    assert (round(a[0], 1), round(a[1], 1), round(b[0], 1), round(b[1], 1)) in segs
    bp = find_class(root, "battle_position", "g")
    assert sorted(g.get("data-hex") for g in bp) == sorted(sc.map.features["battle_position"].hexes)


def test_hexside_features_on_shared_edge(sc):
    raw = open(sc.path, "rb").read() + (
        b'\n[[map.hexsides]]\na = "0512"\nb = "0513"\nfeature = "river"\n'
        b'\n[[map.hexsides]]\na = "0612"\nb = "0512"\nfeature = "cliff"\n')
    sc2 = scenario.loads(raw, "hexsides-test")
    assert not scenario.lint(sc2)
    root = parse(render_svg(sc2, []))
    polys = {e.get("id")[4:]: polygon_points(e) for e in root.iter(NS + "polygon")
             if (e.get("id") or "").startswith("hex-")}

    def shared(a, b):
        ka = {(round(p[0], 1), round(p[1], 1)) for p in polys[a]}
        return ka & {(round(p[0], 1), round(p[1], 1)) for p in polys[b]}

    river = find_class(root, "river", "line")
    assert len(river) == 1 and river[0].get("stroke") == "#2f6fd6"
    ends = {(round(float(river[0].get("x1")), 1), round(float(river[0].get("y1")), 1)),
            (round(float(river[0].get("x2")), 1), round(float(river[0].get("y2")), 1))}
    assert ends == shared("0512", "0513")
    cliff = find_class(root, "cliff", "polyline")
    assert len(cliff) == 1
    pts = polygon_points(cliff[0])
    assert {(round(pts[0][0], 1), round(pts[0][1], 1)),
            (round(pts[-1][0], 1), round(pts[-1][1], 1))} == shared("0512", "0612")
    legend = find_class(root, "legend", "g")[0]
    assert {"river", "cliff"} <= {e.text for e in legend.iter(NS + "text")}


def test_place_names_avoid_counters_when_they_can(sc):
    """Alam Halfa Ridge's middle hex 1510 has 131 next door; the label moves to a clear hex."""
    from pbem.report.fontmetrics import text_width
    root = parse(render_svg(sc, setup_units(sc)))
    rects = []
    for g in find_class(root, "counter", "g"):
        body = [r for r in g.iter(NS + "rect") if r.get("stroke")][0]
        x, y = float(body.get("x")), float(body.get("y"))
        rects.append((x, y, x + float(body.get("width")), y + float(body.get("height"))))
    for t in find_class(root, "place", "text"):
        x, y, half = float(t.get("x")), float(t.get("y")), text_width(t.text, 9.5) / 2
        for x0, y0, x1, y1 in rects:
            assert not (x0 < x + half and x - half < x1 and y0 < y and y - 6.8 < y1), t.text


def test_other_games_features_are_drawn_and_in_the_legend():
    """Railroads (Khar'kov 8.3), road hexsides (Crete 4.x), footholds and entry
    hexes (Compass 3.2, 4.1), walls/ridges/slopes (Eben Emael 4.x) each get a
    drawing and a legend entry."""
    from pbem.core.scenario import load
    cases = {
        "kharkov": ['class="link railroad"', 'class="link railroad_branch"', ">railroad<", ">branch railroad<"],
        "crete": ['class="link road"', ">road<"],
        "operation-compass": ['class="mark foothold"', 'class="mark british_entry"', ">foothold<", ">lane<"],
        "eben-emael-12-1": ['class="hexside wall"', 'class="hexside ridge"', 'class="hexside slope"', ">wall<"],
    }
    for sid, needles in cases.items():
        svg = render_svg(load(sid), [])
        parse(svg)
        for n in needles:
            assert n in svg, (sid, n)


def test_line_features_through_touching_hexes_draw_no_triangles():
    """Three mutually adjacent railroad hexes are linked as a line, not a triangle."""
    from pbem.core.hexgrid import Grid
    from pbem.report.mapsvg import _line_edges
    g = Grid(1, 6, 1, 6, "even-down")
    # 0203, 0303 and 0204... pick a real triangle: a hex and two of its neighbours that touch each other
    a = "0303"
    n = g.neighbours(a)
    b, c = n[0], n[1]                     # N and NE of a are adjacent to each other
    assert g.adjacent(b, c)
    edges = _line_edges(g, sorted([a, b, c]))
    assert len(edges) == 2                # a path through the three, not three sides
    # a straight line stays whole
    straight = ["0301", "0302", "0303", "0304"]
    assert _line_edges(g, straight) == [("0301", "0302"), ("0302", "0303"), ("0303", "0304")]


def test_a_title_changed_only_at_its_end_keeps_its_font_size_and_still_fits():
    # the title bar's size is in half pixels: map after map, a title whose head (the end)
    # changes mostly keeps its size, so its other words keep their pictures (tiles._title_items)
    import random
    from collections import Counter

    from pbem.report.fontmetrics import text_width
    from pbem.report.marks import fit
    rng = random.Random(29)
    base = "Tobruk: Operation Battleaxe, the salient at El Adem, June 1941 - turn 3, German indirect fire - seq 349 - head "
    sizes = Counter()
    for _ in range(40):
        title = base + "".join(rng.choice("0123456789abcdef") for _ in range(12))
        size = fit(title, 16.0, 760, bold=True)
        assert text_width(title, size, True) <= 760 and size * 2 == int(size * 2)
        sizes[size] += 1
    assert len(sizes) <= 2 and sizes.most_common(1)[0][1] >= 30 and max(sizes) < 16.0
    assert fit("short", 16.0, 760, bold=True) == 16.0
