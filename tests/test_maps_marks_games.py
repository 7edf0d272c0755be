"""What each game's map marks (issue 16, ``Ruleset.map_marks``): its objective
and victory hexes with their values, its set-up, entry and landing areas only
while that step runs, its running score in its side names, and nothing a
side may not see.  The expected hexes come from the shipped scenario data read
by each rule's meaning (panzer-corps.txt, paratroop.txt), not from the code's
output; one rendered map per game shows the objective badges."""
from __future__ import annotations

import json
import xml.etree.ElementTree as ET

import pytest

from pbem.engine import Game
from pbem.report import render


@pytest.fixture
def new_game(tmp_path, fixed_clock):
    def make(scenario: str, dice: list[int]) -> Game:
        return Game.create(tmp_path / scenario, scenario, {}, dice=dice)
    return make


def marks(g: Game, viewer: str) -> dict:
    return g.rules.map_marks(g.state(), g.scenario, viewer)


def areas(g: Game, viewer: str) -> dict[str, list[str]]:
    return {a["label"]: sorted(a["hexes"]) for a in marks(g, viewer).get("areas", [])}


def play_defaults(g: Game, side: str) -> None:
    lines = g.rules.default_orders(g.state(), g.scenario, side)
    sub = g.submit(side, "\n".join(lines))
    assert sub.refused is None, sub.refused


def report_map(g: Game, side: str) -> str:
    """The map of ``side``'s report, as mailed (render.report_svg)."""
    entries = g.entries()
    return render.report_svg(g, side, g.state(), entries, 0, entries[-1].hash)


def badges(svg: str) -> dict[str, str]:
    """hex -> the value on its objective badge."""
    return {e.get("data-hex"): e.get("data-vp") for e in ET.fromstring(svg).iter()
            if "objective-badge" in (e.get("class") or "").split()}


def land(sc, hexes) -> list[str]:
    return sorted(h for h in hexes if not sc.terrain[sc.board.terrain[h]].impassable)


# ============================================================================
# Dunkerque
# ============================================================================

def test_dunkerque_ports_points_north_and_the_south_edge_while_r_units_enter(new_game):
    g = new_game("dunkerque", [1] * 6)                 # 3.0(4): the face-down draw's six rolls
    sc = g.scenario
    m = marks(g, "german")
    # 4.2(1): the five named ports evacuate 4.2(2) five CS each; they score nothing themselves (no VP)
    ports = sorted(h for p in sc.map.places if p.name in sc.victory["ports"] for h in p.hexes
                   if sc.board.terrain[h] == "port")
    assert len(ports) == 5 and sorted(o["hex"] for o in m["objectives"]) == ports
    assert all(o["vp"] == 0 and "5 CS" in o["label"] and "4.2" in o["label"] for o in m["objectives"])
    # the printed west edge is the grid's bottom edge: north points left, 270 degrees clockwise from up
    assert sc.game_data["map_edges"]["west"] == "south" and m["north"] == 270
    # 4.0: the German points against the 35 they need
    assert m["score"] == f"{sc.side_name('german')} 0 points (35 or more win at the end, 4.0)"
    assert "areas" not in m                                     # nothing enters on turn 1
    for _ in range(6):                                          # turn 1, and turn 2 to the Allied movement
        g.submit(sc.sequence[g.state().phase].side, "end")
    st = g.state()
    assert st.turn == 2 and st.decision.kind == "reinforcement"
    # 10.0(3): any hex of the printed south edge (the grid's east column), land only
    south = land(sc, [h for h in sc.board.grid.all_hexes() if sc.board.grid.is_edge(h, "east")])
    for side in ("german", "allied"):
        assert areas(g, side) == {f"{sc.side_name('allied')} reinforcements enter (10.0(3))": south}
        # 10.0: nobody knows which unit comes before it enters: no R unit's name on any map
        dump = json.dumps(marks(g, side))
        assert not [u for u in sc.game_data["hidden_reinforcements"] if u in dump]
    assert g.submit("allied", f"enter {south[0]}").refused is None
    assert "areas" not in marks(g, "allied")                    # entered: the edge is no longer marked


def test_dunkerque_map_draws_the_port_badges_and_the_north_arrow(new_game):
    g = new_game("dunkerque", [1] * 6)
    svg = report_map(g, "allied")
    b = badges(svg)
    assert len(b) == 5 and set(b.values()) == {"0"}             # a star: a port has no VP value
    assert 'class="north-arrow" data-degrees="270"' in svg


# ============================================================================
# Khar'kov
# ============================================================================

def test_kharkov_cities_sudden_death_set_up_areas_and_score(new_game):
    g = new_game("kharkov", [1])
    sc, st = g.scenario, g.state()
    m = marks(g, "german")
    cities = sorted(h for h, t in sc.board.terrain.items() if t == "city")
    objs = {o["hex"]: o for o in m["objectives"]}
    # 4.1(1): 2 VP per city hex at the end, Khar'kov's four hexes each; 4.1(3): all German at the start
    assert sorted(objs) == cities and {o["vp"] for o in objs.values()} == {2}
    kh = next(p.hexes for p in sc.map.places if p.name == "Khar'kov")
    assert len(kh) == 4 and set(kh) <= set(objs)
    assert {o["side"] for o in objs.values()} == {"german"}
    # 4.5: Poltava 0634 and Dnepro Petrovsk 1732 win at once; 4.2(1): a first charge still pays
    assert [h for h, o in objs.items() if "4.5" in o["label"]] == ["0634", "1732"]
    assert all("4.2" in o["label"] for o in objs.values())
    assert m["north"] == 270                                    # columns run north to south, left to right
    soviet, german = sc.side_name("soviet"), sc.side_name("german")
    assert m["score"] == (f"{soviet} 0 VP, {german} 0 VP (city hexes held, 2 VP each at the end: "
                          f"{soviet} 0, {german} {len(cities)})")
    # 3.0(4): the areas printed with "6", "1GD" and "Ppv", shown to both sides while the Soviets set up
    want = {f"{soviet} set-up area {a['name']} (3.0(4))": sorted(a["hexes"])
            for a in sc.game_data["areas"] if a["name"] in ("6", "1GD", "Ppv")}
    assert st.decision.kind == "set-up" and areas(g, "soviet") == areas(g, "german") == want
    play_defaults(g, "soviet")
    assert g.state().decision is None and "areas" not in marks(g, "german")   # set up: gone


def test_kharkov_marks_follow_control_and_the_charges(new_game):
    # 4.1(2), 4.2(1)-(3): a city taken by the Soviets is theirs on the map and its charge is spent
    g = new_game("kharkov", [1])
    st, sc = g.state(), g.scenario
    st.control["0634"] = "soviet"
    st.point_marks["charged:0634"] = 1
    st.score = {"soviet": 1}
    m = g.rules.map_marks(st, sc, "german")
    poltava = next(o for o in m["objectives"] if o["hex"] == "0634")
    assert poltava["side"] == "soviet" and "4.2" not in poltava["label"]
    assert m["score"].startswith(f"{sc.side_name('soviet')} 1 VP, {sc.side_name('german')} 0 VP")
    assert f"{sc.side_name('soviet')} 1," in m["score"]         # one city hex held


def test_kharkov_map_draws_a_two_vp_badge_on_every_city(new_game):
    g = new_game("kharkov", [1])
    cities = sorted(h for h, t in g.scenario.board.terrain.items() if t == "city")
    assert badges(report_map(g, "german")) == {h: "2" for h in cities}


# ============================================================================
# Operation Compass
# ============================================================================

def test_compass_footholds_set_up_steps_and_score(new_game):
    g = new_game("operation-compass", [5])
    sc = g.scenario
    m = marks(g, "british")
    # 4.1(1): 1702 and 0904 1 VP, 0107 and 0115 2 VP; 4.1(3): Italian at the start
    assert {o["hex"]: o["vp"] for o in m["objectives"]} == {"1702": 1, "0904": 1, "0107": 2, "0115": 2}
    assert {o["side"] for o in m["objectives"]} == {"italian"}
    brit, ital = sc.side_name("british"), sc.side_name("italian")
    assert m["score"] == f"footholds held: {brit} 0 VP, {ital} 6 VP; 0 {brit} units lost ({ital} +0 VP, 4.2)"
    # 3.0(3): the S battalions go to footholds, towns or battle positions holding no Italian unit
    feats = sc.map.features
    held = {u.hex for u in sc.units if u.side == "italian" and u.hex}
    s_area = sorted((set(feats["foothold"].hexes) | set(feats["town"].hexes) | set(feats["battle_position"].hexes))
                    - held)
    assert areas(g, "british") == areas(g, "italian") == {f"{ital} S battalions set up (3.0(3))": s_area}
    play_defaults(g, "italian")
    assert g.state().decision.kind == "bombardment" and "areas" not in marks(g, "british")   # 3.1: no area
    play_defaults(g, "british")
    # 3.2(1): the six British entry hexes while the British units enter
    assert areas(g, "italian") == {f"{brit} entry hexes (3.2(1))": sorted(feats["british_entry"].hexes)}
    play_defaults(g, "british")
    assert g.state().decision is None
    assert "areas" not in marks(g, "italian")


def test_compass_map_draws_the_foothold_values(new_game):
    g = new_game("operation-compass", [5])
    assert badges(report_map(g, "italian")) == {"1702": "1", "0904": "1", "0107": "2", "0115": "2"}


# ============================================================================
# Eben Emael
# ============================================================================

LIST_12_1 = ["0413", "0611", "0708", "0715", "1009", "1113", "1406", "1409", "1412", "1416", "1505"]


@pytest.mark.parametrize("scenario, forts", [("eben-emael-12-1", LIST_12_1),
                                             ("eben-emael-12-2", [h for h in LIST_12_1 if h != "0708"])])
def test_eben_emael_fortifications_to_destroy_and_their_count(new_game, scenario, forts):
    # 12.1: these eleven must all be destroyed; 12.2: the same except 0708
    g = new_game(scenario, [6])
    sc = g.scenario
    m = marks(g, "belgian")
    assert [o["hex"] for o in m["objectives"]] == forts
    assert {o["side"] for o in m["objectives"]} == {"belgian"}
    rule = scenario[-4:].replace("-", ".")
    assert m["score"] == f"{sc.side_name('german')} 0 of {len(forts)} fortifications destroyed ({rule})"
    st = g.state()
    fid = next(u.id for u in sc.units if u.hex == forts[0])
    st.units[fid].marks = ["destroyed"]
    m = g.rules.map_marks(st, sc, "belgian")
    assert m["objectives"][0]["side"] == "german" and "destroyed" in m["objectives"][0]["label"]
    assert m["score"].startswith(f"{sc.side_name('german')} 1 of {len(forts)}")


def test_eben_emael_12_1_has_no_landing_area(new_game):
    # 12.1: the German squads stand on printed hexes; nothing to choose, nothing to tint
    g = new_game("eben-emael-12-1", [6])
    assert "areas" not in marks(g, "german") and "areas" not in marks(g, "belgian")


def test_eben_emael_12_2_glider_landing_area_hides_the_minefields(new_game):
    # 12.2: German squads land on any clear hex (no fortification, no stacking) during the set-up;
    # 11.0: the Belgian minefields are sealed, so sealing them changes nobody's map
    g = new_game("eben-emael-12-2", [6] * 40)
    sc = g.scenario
    forts = {u.hex for u in sc.units if u.type in ("casemate", "cupola") and u.hex}     # 9.0
    used = {u.hex for u in g.state().units.values() if u.hex}
    clear = sorted(h for h, t in sc.board.terrain.items() if t == "clear" and h not in forts and h not in used)
    label = f"{sc.side_name('german')} glider landing: clear hexes (12.2)"
    before = {side: areas(g, side) for side in ("german", "belgian")}
    assert before["german"] == before["belgian"] == {label: clear}
    mines = clear[:3]
    orders = ["secret dummy-1 0611", "secret dummy-2 1113"] + [f"secret mine-{i:02d} {h}"
                                                               for i, h in enumerate(mines, start=1)]
    assert g.submit("belgian", "\n".join(orders)).refused is None
    assert {side: areas(g, side) for side in ("german", "belgian")} == before
    assert "dummy" not in json.dumps(marks(g, "german")).lower()          # 9.5: nor which cupolas are dummies
    assert g.submit("belgian", "end").refused is None
    assert sc.sequence[g.state().phase].name == "setup-german" and areas(g, "german") == before["german"]
    play_defaults(g, "german")
    assert sc.sequence[g.state().phase].name != "setup-german"
    assert "areas" not in marks(g, "german") and "areas" not in marks(g, "belgian")


def test_eben_emael_map_draws_a_badge_on_every_fortification_to_destroy(new_game):
    g = new_game("eben-emael-12-1", [6])
    assert badges(report_map(g, "german")) == {h: "0" for h in LIST_12_1}


# ============================================================================
# Red Devils and Crete (extended with areas and score)
# ============================================================================

def test_red_devils_drop_zones_during_set_up_and_landing_never_the_polish_ones(new_game):
    g = new_game("red-devils", [6] * 60)
    sc = g.scenario
    brit = sc.side_name("british")
    # 1.2, 9.0: the turn-1 units' printed drop zones (one or two each)
    zones = sorted({z for d in sc.units if d.side == "british" and d.entry_turn == 1
                    for z in sc.game_data["units"].get(d.id, {}).get("drop_zones", [])})
    assert zones == ["0708", "0906", "1105"]

    def drop(side):
        return {k: v for k, v in areas(g, side).items() if "drop zone" in k}
    at_setup = drop("german")
    assert sorted(at_setup) == [f"{brit} drop zone {z} (1.2, 9.0)" for z in zones]
    grid = sc.board.grid
    for z in zones:                      # 9.1: clear or broken, within three, not next to a city
        for h in at_setup[f"{brit} drop zone {z} (1.2, 9.0)"]:
            assert grid.distance(z, h) <= 3 and sc.board.terrain[h] in ("clear", "broken")
            assert all(sc.board.terrain.get(n) != "city" for n in grid.neighbours(h))
    # 9.7: the Polish zones are sealed; neither side's map shows them
    assert g.submit("british", "secret polish-dz 0101 0102").refused is None
    assert drop("german") == drop("british") == at_setup
    assert not any("0101" in k or "0102" in k for k in areas(g, "german"))
    assert g.submit("british", "end").refused is None
    st = g.state()
    assert st.landing is not None
    assert sorted(drop("german")) == [f"{brit} drop zone {z} (9.0)" for z in zones]
    play_defaults(g, "british")                                 # every turn-1 unit lands
    assert g.state().landing is None and drop("german") == {}
    m = marks(g, "german")
    assert m["score"] == f"{brit} 0 VP (21 or more at the end: a {brit} victory, 12.6)"


def test_crete_score_in_side_names_and_who_holds_the_places(new_game):
    g = new_game("crete", [1])
    sc = g.scenario
    m = marks(g, "commonwealth")
    assert m["score"] == (f"{sc.side_name('german')} 0 VP, {sc.side_name('commonwealth')} 0 VP "
                          "(12.1; the places count at the end, 12.2)")
    assert "areas" not in m                # the drop plan is a sealed count per map (1.0), not hexes
    st = g.state()
    st.score = {"german": 7, "commonwealth": 3}
    air = sc.game_data["airfields"][0]
    para = next(u for u in st.units.values() if u.side == "german")
    para.hex = air
    m = g.rules.map_marks(st, sc, "commonwealth")
    assert m["score"].startswith(f"{sc.side_name('german')} 7 VP, {sc.side_name('commonwealth')} 3 VP")
    assert next(o for o in m["objectives"] if o["hex"] == air)["side"] == "german"      # 12.2
