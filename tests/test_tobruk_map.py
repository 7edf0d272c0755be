"""Advanced Tobruk's tactical state on the map (issue 27): every counter's front on the hex spine it
faces (6.52) and a turret mark where the turret is turned (12.2); the status markers the text
lists, drawn and in the legend (broken 11.1, casualties 15.82, suppressed 13.11, fired 13.102...);
wrecks left in their hex (13.7); the markers standing in hexes (FFE 18.21...); a line from firer
to target for each shot of the step, in the report map, its PNG and the replay page; every hexside
type in the legend; no strength-movement pair on a counter or in the SITUATION table.

The kernel draws what ``Ruleset.counter_face``, ``map_marks`` ("markers") and ``map_shots`` give;
the first tests look at that generic drawing with a made-up face, the rest at the examples."""
from __future__ import annotations

import io
import re

import pytest

from pbem.core.scenario import load
from pbem.referee.explain import Explainer
from pbem.report.mapsvg import hex_centre, render_svg
from pbem.report.render import report_svg, report_text

P1_AT_A1 = "fire P1 at A1"          # examples/tobruk-r33, step 10 of the replay (step 11 counting the opening 1)


def _step(game, viewer: str, order: str):
    """(state, entries, start, end) of the step whose order is ``order``."""
    entries = game.entries()
    x = Explainer(game, viewer, entries)
    for start, end in x.steps():
        if getattr(entries[start].event, "text", None) == order:
            return x.states([end])[end], entries, start, end
    raise AssertionError(f"no step {order!r}")


def _map(game, viewer: str, order: str) -> str:
    st, entries, start, end = _step(game, viewer, order)
    return report_svg(game, viewer, st, entries[:end + 1], start - 1, entries[end].hash)


def _group(svg: str, cls: str, unit: str) -> str:
    """The SVG of the ``<g class="CLS..." data-unit="UNIT"`` element, its nested groups included."""
    m = re.search(rf'<g class="{cls}[^"]*" data-unit="{re.escape(unit)}"', svg)
    assert m, f"no {cls} of {unit}"
    depth, i = 0, m.start()
    for t in re.finditer(r"<g[\s>]|</g>", svg[i:]):
        depth += -1 if t.group(0) == "</g>" else 1
        if depth == 0:
            return svg[i:i + t.end()]
    raise AssertionError("unbalanced")


@pytest.fixture(scope="module")
def r33(played_example):
    return played_example("tobruk-r33").game()


@pytest.fixture(scope="module")
def after_p1_fires(r33):
    return _map(r33, "british", P1_AT_A1)


# --- the kernel's drawing of a game's faces (no game named) ------------------------------------

def test_the_map_draws_a_face_front_turret_marks_and_a_wreck_where_the_game_gives_them():
    sc = load("tobruk-r33")
    face = {"values": "6|4|7", "front": 150.0, "front_label": "SSE", "turret": 30.0, "turret_label": "NNE",
            "marks": [{"key": "broken", "text": "Br", "colour": "#c62828", "label": "broken (11.1)"}]}
    units = [{"id": "X", "side": "british", "hex": "0705", "strength": 1, "ma": 0, "status": [], "type": "squad",
              "nationality": "british", "face": face},
             {"id": "W", "side": "german", "hex": "0609", "strength": 1, "ma": 8, "status": ["eliminated"],
              "type": "tank", "nationality": "german", "face": {"values": "wreck", "wreck": "burning wreck", "burning": True}},
             {"id": "Y", "side": "german", "hex": "0610", "strength": 1, "ma": 8, "status": ["eliminated"],
              "type": "tank", "nationality": "german", "face": {"values": "50mm"}}]
    shots = [{"firer": "X", "target": "W", "hex": "0609", "kind": "direct", "label": "X fires at W"}]
    marks = {"markers": [{"hex": "0805", "key": "ffe", "text": "FFE", "colour": "#b71c1c", "label": "fire for effect"}]}
    svg = render_svg(sc, units, marks=marks, shots=shots)
    x = _group(svg, "counter", "X")
    assert ">6|4|7<" in x and 'data-mark="broken"' in x and ">1-0<" not in x
    assert re.search(r'<g class="front" data-unit="X" data-bearing="150">', svg)
    assert re.search(r'<g class="turret" data-unit="X" data-bearing="30">', svg)
    # the wedge's tip is on the hex's SSE spine (the lower right corner of a flat-topped hex)
    tip = re.search(r'<g class="front" data-unit="X".*?<polygon points="([-\d.]+),([-\d.]+)', svg, re.S)
    cx, cy = hex_centre(sc.board.grid, "0705")
    assert abs(float(tip.group(1)) - (cx + 36 * 0.97 * 0.5)) < 0.1 and float(tip.group(2)) > cy + 25
    # the wreck stays in its hex, drawn as one, and only the other eliminated unit goes to the box
    box = svg[svg.index('class="eliminated-box"'):]
    assert 'data-unit="W"' not in box and 'data-unit="Y"' in box
    assert re.search(r'<g class="counter wreck" data-unit="W"[^>]*data-wreck="burning wreck"', svg)
    assert 'class="flame"' in _group(svg, "counter wreck", "W")
    assert re.search(r'<g class="shot shot-direct" data-firer="X" data-target="W" data-from="0705" data-to="0609"', svg)
    assert re.search(r'<g class="marker" data-hex="0805" data-mark="ffe">', svg)
    legend = svg[svg.index('<g class="legend"'):]
    for words in ("broken (11.1)", "front (facing spine)", "turret turned", "burning wreck", "fire for effect",
                  "shot (firer to target)"):
        assert f">{words}<" in legend, words


def test_a_full_strip_of_a_stack_ends_in_a_chip_naming_the_rest():
    sc = load("tobruk-r33")
    marks = [{"key": k, "text": k[:2], "colour": "#333333", "label": f"{k} label"} for k in ("aa", "bb", "cc", "dd", "ee")]
    units = [{"id": "L", "side": "british", "hex": "0705", "strength": 1, "ma": 0, "status": [], "type": "squad",
              "face": {"values": "", "marks": marks}},
             {"id": "Z", "side": "british", "hex": "0705", "strength": 1, "ma": 0, "status": [], "type": "squad"}]
    top = _group(render_svg(sc, units), "counter", "L")
    more = re.search(r'<g class="status-mark more" data-mark="([^"]*)"><title>([^<]*)</title>', top)
    drawn = re.findall(r'<g class="status-mark" data-mark="([^"]*)"', top)
    assert more and drawn and drawn[0] == "aa"
    assert drawn + more.group(1).split() == ["aa", "bb", "cc", "dd", "ee"]
    assert more.group(2) == "; ".join(f"{k} label" for k in more.group(1).split())


def test_a_shot_from_a_firer_the_viewer_does_not_see_draws_no_line():
    sc = load("tobruk-r33")
    units = [{"id": "X", "side": "british", "hex": "0705", "strength": 1, "ma": 0, "status": [], "type": "squad"}]
    svg = render_svg(sc, units, shots=[{"firer": "Hidden", "target": "X", "hex": "0705", "kind": "direct"}])
    assert 'class="shot ' not in svg and "arrow-shot" not in svg


def test_every_hexside_type_drawn_is_in_the_legend():
    # the r33 card has track hexsides (column 08) and a dune hexside (0306/0307)
    for name, words in (("tobruk-r33", ("track", "dune hexside")),):
        sc = load(name)
        svg = render_svg(sc, [])
        legend = svg[svg.index('<g class="legend"'):]
        drawn = {f for feats in sc.board.hexsides.values() for f in feats}
        assert drawn
        for w in words:
            assert f">{w}<" in legend, (name, w)


# --- the r33 example -------------------------------------------------------------------------

def test_after_p1_fires_at_a1_a1_shows_broken_and_casualties_and_the_shot(after_p1_fires):
    svg = after_p1_fires
    a1 = _group(svg, "counter", "A1")
    assert 'data-mark="broken"' in a1                                              # 11.1, the weightiest first
    shown = {k for keys in re.findall(r'data-mark="([^"]*)"', a1) for k in keys.split()}
    assert {"broken", "casualties"} <= shown                                       # 15.82: drawn, or in the "+N" chip
    assert "casualties marker (15.82)" in a1
    assert re.search(r'<g class="shot shot-direct" data-firer="P1" data-target="A1" data-from="0609" data-to="0705"', svg)
    assert 'data-firer="Tk2"' not in svg            # the step before's shot is not this step's
    legend = svg[svg.index('<g class="legend"'):]
    for words in ("broken (11.1)", "casualties marker (15.82)", "fired ('F' marker, 13.102)", "suppressed (13.11)",
                  "front (facing spine)", "shot (firer to target)", "track", "dune hexside"):
        assert f">{words}<" in legend, words
    assert ">disrupted<" not in legend             # the core's marker: not this game's


def test_every_faced_counter_shows_its_front_on_its_spine(r33, after_p1_fires):
    st = _step(r33, "british", P1_AT_A1)[0]
    spines = ("NNE", "E", "SSE", "SSW", "W", "NNW")
    faced = {uid: p.facing for uid, p in st.pieces.items() if p.facing >= 0 and not st.units[uid].eliminated}
    assert {"Tk1", "Tk2", "Gun1", "P1", "P2", "P3"} <= set(faced)
    for uid, k in faced.items():
        assert f'<g class="front" data-unit="{uid}" data-bearing="{30 + 60 * k}">' in after_p1_fires, (uid, spines[k])


def test_no_strength_movement_pair_on_the_counters_or_in_the_situation_table(r33, after_p1_fires):
    values = re.findall(r'class="unit-values"[^>]*>([^<]*)<', after_p1_fires)
    assert values and not [v for v in values if re.fullmatch(r"\d+-\d+", v)]
    assert "6|4|7" in values and "2pdr" in values and "L|MG" in values     # 10.01 gunfire|range|morale, 13.91, 8.11
    st = r33.state()
    text = report_text(r33, "british", st, r33.entries(), st.seq - 3, r33.log.head()[1])
    table = text[text.index("SITUATION"):text.index("=" * 72, text.index("SITUATION"))]
    assert not re.search(r"\s\d+-\d+\s", table)
    assert re.search(r"A1\s+0705\s+3\|4\|6\s+aus-squad\s+half-squad", table)   # the reduced side (15.82)
    assert re.search(r"P1\s+0609\s+wreck\s+pz3g", table)


def test_a_wreck_stays_in_its_hex_as_a_wreck(r33):
    svg = _map(r33, "british", "fire Tk1 at P1")
    assert re.search(r'<g class="counter wreck" data-unit="P1"[^>]*data-wreck="wreck \(13.7\)"', svg)
    assert 'class="eliminated-box"' not in svg or 'data-unit="P1"' not in svg[svg.index('class="eliminated-box"'):]
    x, y = map(float, re.search(r'data-unit="P1"[^>]*>\n?<rect x="([\d.]+)" y="([\d.]+)"', svg).groups())
    cx, cy = hex_centre(r33.scenario.board.grid, "0609")
    assert abs(x + 19 - 1.5 - cx) < 1 and abs(y + 16 - 1.5 - cy) < 1            # its shadow: drawn in 0609
    assert ">wreck (13.7)<" in svg[svg.index('<g class="legend"'):]
    assert re.search(r'data-firer="Tk1" data-target="P1"', svg)


def test_the_png_shows_the_shot_the_front_and_the_status(r33, after_p1_fires):
    pytest.importorskip("resvg")
    from PIL import Image

    from pbem.report.png import svg_to_png
    png = svg_to_png(after_p1_fires)
    im = Image.open(io.BytesIO(png)).convert("RGB")
    width = float(re.search(r'width="([\d.]+)"', after_p1_fires).group(1))
    k = im.width / width
    grid = r33.scenario.board.grid

    def near(x: float, y: float, colour: str, r: int = 3) -> bool:
        want = tuple(int(colour[i:i + 2], 16) for i in (1, 3, 5))
        return any(sum(abs(a - b) for a, b in zip(im.getpixel((int(x * k) + dx, int(y * k) + dy)), want)) < 60
                   for dx in range(-r, r + 1) for dy in range(-r, r + 1))
    (ax, ay), (bx, by) = hex_centre(grid, "0609"), hex_centre(grid, "0705")
    assert near((ax + bx) / 2, (ay + by) / 2, "#c2185b")                          # the shot line, half way
    tx, ty = hex_centre(grid, "0502")                                              # Tk1 faces SSE (150 degrees)
    assert near(tx + 36 * 0.85 * 0.5, ty + 36 * 0.85 * 0.866, "#111111")
    chip = re.search(r'data-unit="A1".*?data-mark="broken"><title>[^<]*</title><rect x="([\d.]+)" y="([\d.]+)"',
                     after_p1_fires, re.S)
    assert near(float(chip.group(1)) + 3, float(chip.group(2)) + 4, "#c62828", 1)  # the red "Br" chip on A1


def test_the_replay_page_shows_the_shot_and_the_status_of_its_step(r33):
    from pbem.referee.replay_page import page_data
    d = page_data(r33, "german")
    maps, prev = [], []
    for step in d["steps"]:
        cur = []
        for op in step["svg"]:
            cur += [d["lines"][op]] if isinstance(op, int) else prev[op[0]:op[0] + op[1]]
        maps.append("\n".join(cur))
        prev = cur
    n = next(s["n"] for s in d["steps"] if s["what"].endswith(P1_AT_A1) or P1_AT_A1 in s["what"])
    svg = maps[n]
    assert re.search(r'data-firer="P1" data-target="A1"', svg)
    assert 'data-mark="broken"' in _group(svg, "counter", "A1") and "casualties marker" in _group(svg, "counter", "A1")
    assert not re.search(r'data-firer="P1" data-target="A1"', maps[n + 1])       # the next step: its own shots


def test_fire_missions_are_drawn_where_they_stand(played_example):
    g = played_example("tobruk-salient").game()
    entries = g.entries()
    x = Explainer(g, "british", entries)
    fired = [(start, end) for start, end in x.steps() if getattr(entries[start].event, "text", "") == "call AR75 at 0805"
             and any(entries[i].kind == "TobrukIndirectFired" for i in range(start, end + 1))]
    assert fired                                   # the first call only rolled for contact (18.22)
    start, end = fired[0]
    svg = report_svg(g, "british", x.states([end])[end], entries[:end + 1], start - 1, entries[end].hash)
    assert re.search(r'<g class="marker" data-hex="0805" data-mark="ffe">', svg)             # 18.21
    assert re.search(r'<g class="shot shot-indirect" data-firer="GF"[^>]*data-to="0805"', svg)  # spotter to impact
    legend = svg[svg.index('<g class="legend"'):]
    assert ">fire for effect marker (18.21)<" in legend and ">indirect fire (spotter to impact)<" in legend


def test_tobruks_face_of_a_row_reads_only_the_row():
    # map_face.counter_face: the row's markers (reducer.markers' words) become the face; a FOW face
    # (32.11: its type is the face, "AFV") carries no values; a wreck keeps its hex (13.7)
    from pbem.games.advanced_tobruk.map_face import counter_face
    from pbem.games import ruleset_for
    sc = load("tobruk-r33")
    st = ruleset_for(sc.game).new_state(sc, "x")
    row = {"id": "Tk1", "type": "a13", "hex": "0502", "status": ["facing SSE", "turret NNE", "F", "casualties", "broken"]}
    face = counter_face(st, sc, row, "german")
    assert (face["values"], face["front"], face["turret"]) == ("2pdr", 150.0, 30.0)     # 13.91; spines 6.52, 12.2
    assert [m["key"] for m in face["marks"]] == ["broken", "casualties", "fired"]        # the weightiest first
    assert "turret" not in counter_face(st, sc, dict(row, status=["facing SSE", "turret SSE"]), "german")
    assert counter_face(st, sc, {"id": "Tk1", "type": "AFV", "hex": "0502", "status": ["facing SSE"]}, "german")["values"] == ""
    half = counter_face(st, sc, {"id": "A2", "type": "aus-squad", "hex": "0905", "status": ["half-squad"]}, "german")
    assert half["values"] == "3|4|6"                                                     # the reduced side (15.82)
    wreck = counter_face(st, sc, {"id": "P1", "type": "pz3g", "hex": "0609",
                                  "status": ["facing NNE", "burning wreck", "eliminated"]}, "british")
    assert wreck["wreck"] == "burning wreck (13.7)" and wreck["burning"] and "front" not in wreck


def test_every_kind_of_marker_on_the_map_is_drawn_where_it_stands():
    # map_face.hex_markers: CFF (18.21), FFE, barrage limits (18.71), smoke with its side (20.36),
    # a burst on target in a hex (13.461, 19.71), continued fire (15.931); all public
    from pbem.games import ruleset_for
    from pbem.games.advanced_tobruk.arty_state import Battery
    from pbem.report.marks import marks_for
    sc = load("tobruk-r33")
    rules = ruleset_for(sc.game)
    st = rules.new_state(sc, "x")
    st.batteries = {"B1": Battery(side="british", cff="0404"), "B2": Battery(side="german", cff="0606", ffe=True,
                                                                             ends=["0506", "0706"])}
    st.smoke = {"0909": 2}
    st.cfire = ["1003"]
    st.pieces["P1"].bot = "1105"

    class G:
        scenario = sc
    G.rules = rules
    marks = marks_for(G, st, "british")
    got = sorted((m["hex"], m["key"], m["text"]) for m in marks["markers"])
    assert got == [("0404", "cff", "CFF"), ("0506", "barrage", "BAR"), ("0606", "ffe", "FFE"),
                   ("0706", "barrage", "BAR"), ("0909", "smoke2", "SM2"), ("1003", "cfire", "CF"),
                   ("1105", "bot-hex", "BOT")]
    svg = render_svg(sc, [], marks=marks)
    legend = svg[svg.index('<g class="legend"'):]
    for m in marks["markers"]:
        assert f'<g class="marker" data-hex="{m["hex"]}" data-mark="{m["key"]}">' in svg
        assert f'>{m["label"]}<' in legend
