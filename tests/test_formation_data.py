"""The Mirages '40 '41 scenario data (Formation Series): the four files load and lint
clean, the values the rulebook text prints are exactly as printed, and the linter
catches what it must (every hex on the map, every unit in a formation with an HQ,
every reconstructed value marked)."""
from __future__ import annotations

import importlib.util
import re
from pathlib import Path

import pytest

from pbem.core import scenario as S
from pbem.games import ruleset_for
from pbem.games.formation import crt

ROOT = Path(__file__).resolve().parents[1]
KEYS = ("compass", "brevity", "skorpion", "battleaxe")
IDS = [f"mirages-{k}" for k in KEYS]


def _gen():
    spec = importlib.util.spec_from_file_location("mirages_gen", ROOT / "scenarios" / "mirages_gen.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def _lint(sc):
    rules = ruleset_for(sc.game)
    return S.lint(sc, set(rules.result_codes), stacking=rules.setup_stacking) + rules.lint(sc)


def _text(sid: str) -> str:
    return (ROOT / "scenarios" / f"{sid}.toml").read_text()


def test_files_are_what_the_generator_writes():
    """One map for all four scenarios (17): the files come from scenarios/mirages_gen.py."""
    gen = _gen()
    for key in KEYS:
        assert _text(f"mirages-{key}") == gen.write(key), f"run: python scenarios/mirages_gen.py ({key})"


@pytest.mark.parametrize("sid", IDS)
def test_scenario_loads_and_lints_clean(sid):
    sc = S.load(sid)
    assert sc.id == sid and sc.game == "mirages" and sc.die == 10
    assert _lint(sc) == []


def test_scenarios_share_one_map():
    maps = [S.load(s).map for s in IDS]
    assert all(m == maps[0] for m in maps[1:])


@pytest.mark.parametrize("sid,turns", list(zip(IDS, (10, 6, 4, 8))))
def test_game_lengths_as_printed(sid, turns):
    # 16.1-16.4: ten, six, four and eight game turns
    sc = S.load(sid)
    assert sc.turns == turns and [t.turn for t in sc.turn_track] == list(range(1, turns + 1))


@pytest.mark.parametrize("sid", IDS)
def test_action_costs_and_stacking_as_printed(sid):
    gd = S.load(sid).game_data
    # 7.0 Action Costs per Unit/Stack; 7.3.6 seizing a victory location: one AP
    assert gd["action_costs"] == dict(move=1, refit=1, improve=1, hasty=1, regular=2, prepared=3, seize=1)
    # 13.1.3: Commonwealth two units, one of them leg infantry at most; Axis one infantry, two panzer/recce
    assert gd["stacking"] == {"allied": {"total": 2, "leg": 1}, "axis": {"inf": 1, "other": 2}}
    assert gd["schwerpunkt_drm"] == 2          # 7.4.1.4 D
    assert gd["friendly_edges"] == {"axis": "west", "allied": "east"}   # 13.2.3
    assert gd["bardia"] == ["1703"]            # 15
    assert "1703" in gd["no_reinforcement"]    # 14.1
    assert all(h in gd["no_reinforcement"] for h in gd["strongpoints"])


@pytest.mark.parametrize("sid,first,drm,ties,in_row,transfers", [
    ("mirages-compass", "allied", 2, [(1, 10, "allied")], 2, 2),          # 16.1
    ("mirages-brevity", "allied", 2, [(1, 6, "allied")], 2, 1),           # 16.2
    ("mirages-skorpion", "axis", 1, [(1, 4, "axis")], 2, 1),              # 16.3
    ("mirages-battleaxe", "allied", 2, [(1, 2, "allied"), (3, 8, "axis")], 2, 1),   # 16.4
])
def test_initiative_rules_as_printed(sid, first, drm, ties, in_row, transfers):
    gd = S.load(sid).game_data
    assert gd["first_initiative"] == first and gd["turn1_initiative_drm"] == drm
    assert [(t["from_turn"], t["to_turn"], t["side"]) for t in gd["initiative_ties"]] == ties
    assert gd["max_initiatives_in_row"] == in_row and gd["max_transfers_in_row"] == transfers
    assert gd["initiative_track"][0] == 2      # 6.1: the marker goes to the +2 space


def _vp(sid):
    v = S.load(sid).victory
    return {h["hex"]: (h["name"], h.get("in_command", 0), h.get("out_of_command", 0), h.get("automatic", False))
            for h in v["hexes"]}, {k: tuple(r) for k, r in v["ranges"].items()}


def test_compass_victory_as_printed():
    hexes, ranges = _vp("mirages-compass")
    assert hexes == {"1703": ("Bardia", 0, 0, True), "2009": ("Sollum", 2, 1, False),
                     "1609": ("Ridotta Capuzzo", 1, 0, False), "3212": ("Buq Buq", 1, 0, False),
                     "4308": ("Sidi Barrani", 2, 1, False)}
    # the range header is printed one cell right of its values; GT1 reads the first range
    assert ranges == dict(gt1=(0, 1), gt2=(0, 2), gt3=(2, 3), gt4=(2, 4), gt5=(4, 7), gt6=(6, 11), gt7=(7, 15), gt8=(10, 20), gt9=(14, 25), gt10=(20, 31))
    lo, hi = ranges["gt3"]           # the reading notes' check: in GT3, 1 VP is an Axis win, 4 an Allied win
    assert 1 < lo and 4 > hi


@pytest.mark.parametrize("sid", ["mirages-compass", "mirages-brevity", "mirages-battleaxe"])
def test_the_range_header_fix_is_stated_in_the_file(sid):
    # 16: the range header is printed one cell right of its values; the file says how it is read
    text = _text(sid)
    assert "printed one cell to the right of its values" in text
    assert "reading\n# the n-th range as game turn n" in text


def test_brevity_victory_as_printed():
    hexes, ranges = _vp("mirages-brevity")
    assert hexes == {"1703": ("Bardia", 12, 6, False), "2009": ("Sollum", 6, 3, False),
                     "2011": ("Halfaya Pass", 4, 2, False), "1609": ("Ridotta Capuzzo", 2, 1, False)}
    assert ranges == dict(gt1=(4, 11), gt2=(10, 19), gt3=(16, 27), gt4=(22, 33), gt5=(24, 36), gt6=(26, 39))


def test_battleaxe_victory_as_printed():
    hexes, ranges = _vp("mirages-battleaxe")
    assert hexes == {"1703": ("Bardia", 12, 6, False), "2009": ("Sollum", 4, 2, False),
                     "2011": ("Halfaya Pass", 6, 3, False), "1609": ("Ridotta Capuzzo", 2, 1, False),
                     "1612": ("Point 206", 2, 1, False), "1410": ("Point 208", 2, 1, False)}
    assert ranges == dict(gt1=(2, 8), gt2=(6, 12), gt3=(10, 18), gt4=(14, 22), gt5=(16, 26), gt6=(20, 30), gt7=(22, 32), gt8=(26, 34))


def test_skorpion_victory_as_printed():
    v = S.load("mirages-skorpion").victory
    assert v["kind"] == "hold"
    assert [(h["turn"], h["side"], h["hex"], h["command"], h["result"]) for h in v["hold"]] == [
        (1, "axis", "2011", "any", "Axis major victory"), (2, "axis", "2011", "in", "Axis victory"),
        (3, "allied", "2011", "in", "Allied victory"), (4, "allied", "2011", "any", "Allied major victory")]


def test_scenario_hexes_as_printed():
    sc = S.load("mirages-battleaxe")
    places = {p.hexes[0]: p.name for p in sc.map.places}
    for h, name in {"1703": "Bardia", "2009": "Sollum", "2011": "Halfaya Pass", "1609": "Ridotta Capuzzo",
                    "3212": "Buq Buq", "4308": "Sidi Barrani", "1612": "Point 206", "1410": "Point 208"}.items():
        assert places[h] == name and sc.board.terrain[h] != "sea"
    gd = sc.game_data
    # 16.4: 5th Leichte via 1001, units of 15th Panzer via 1400 in turn 3; substitute HQ at 1400, +3
    assert [(r["turn"], r["entry"]) for r in gd["reinforcements"]] == [(3, ["1001"]), (3, ["1400"])]
    assert [(s["turn"], s["formation"], s["level_change"], s["entry"]) for s in gd["substitutes"]] == [
        (3, "15pz", 3, "1400")]
    c = S.load("mirages-compass").game_data
    # 16.1: Babini group (four combat units) via 1001 in turn 9; 4th Indian substitute HQ in turn 7, -2;
    # XXIII substitute HQ at 1001, +2; Italian surrender
    babini = [r for r in c["reinforcements"] if r["turn"] == 9]
    assert len(babini) == 1 and babini[0]["entry"] == ["1001"] and len(babini[0]["units"]) == 4
    assert [(s["turn"], s["formation"], s["level_change"], s.get("entry")) for s in c["substitutes"]] == [
        (7, "4ind", -2, None), (9, "xxiii", 2, "1001")]
    assert c["surrender"] == "italian"


def test_crt_keeps_the_printed_datum():
    # Combat Sequence Example: Clear, 1:1, modified roll 4 -> 2/1, both red
    sc = S.load("mirages-compass")
    col = crt.odds_row(sc, "clear").index("1:1")
    assert sc.crt.rows["4"][col] == "2*/1*"
    assert sorted(sc.crt.rows, key=int) == [str(d) for d in range(1, 21)]


def test_map_passes_and_escarpment():
    """Motorized units climb the escarpment only by road or trail: Sollum, Halfaya, Sofafi, Rabia."""
    sc = S.load("mirages-compass")
    b = sc.board
    rt = {h for f in ("road", "trail") for h in sc.map.features[f].hexes}
    ridges = [(hs.a, hs.b) for hs in sc.map.hexsides if hs.feature == "ridge"]
    passes = sorted((a, b2) for a, b2 in ridges if a in rt and b2 in rt)
    assert passes == [("1909", "2009"), ("2011", "2111"), ("3015", "3016"), ("3317", "3416")]
    assert b.terrain["2011"] != "sea" and ("2010", "2011") in ridges


def _reload(text: str) -> list[str]:
    return _lint(S.loads(text.encode(), "edited"))


def test_lint_finds_a_hex_off_the_map():
    text = _text("mirages-brevity").replace('supply_sources = { axis = ["1001", "1703"]',
                                             'supply_sources = { axis = ["1001", "0199"]')
    assert any("supply_sources.axis: hex 0199 is not on the map" in e for e in _reload(text))


def test_lint_finds_a_unit_without_formation_or_hq():
    text = _text("mirages-brevity")
    no_formation = re.sub(r'^K15 = \{ formation = "herff"', 'K15 = { formation = ""', text, flags=re.M)
    assert any("units[K15]: no formation" in e for e in _reload(no_formation))
    no_hq = text.replace('hq = "Herff-HQ"', 'hq = "IIPz5"')
    errs = _reload(no_hq)
    assert any("units[IIPz5]: the HQ of formation herff needs type" in e for e in errs)
    assert any("units[Herff-HQ]: an HQ no formation names" in e for e in errs)


def test_lint_finds_an_unmarked_reconstruction():
    text = _text("mirages-skorpion")
    unmarked = re.sub(r'^(K15 = \{.*), reconstructed = true \}$', r'\1 }', text, flags=re.M)
    assert unmarked != text
    assert any("game_data.units.K15: reconstructed counter not marked" in e for e in _reload(unmarked))
    table = text.replace("[game_data.ap_table]               # reconstructed 6.4.1: activation level -> d10 1..10\n"
                         "reconstructed = true\n", "[game_data.ap_table]\n")
    assert table != text
    assert any("game_data.ap_table: the text prints no Action Points Table" in e for e in _reload(table))


def test_lint_finds_an_incomplete_table():
    text = _text("mirages-skorpion")
    short = re.sub(r'"2" = \[(\d+, ){9}\d+\]', '"2" = [1, 2]', text, count=1)
    assert short != text
    assert any("ap_table.black[2]: 2 values" in e for e in _reload(short))
    ties = text.replace('initiative_ties = [{ from_turn = 1, to_turn = 4, side = "axis" }]',
                        'initiative_ties = [{ from_turn = 1, to_turn = 3, side = "axis" }]')
    assert ties != text
    assert any("initiative_ties: turn 4 is covered 0 times" in e for e in _reload(ties))


def test_lint_finds_an_overstacked_setup():
    # 13.1.3: the Commonwealth stacks two units, at most one of them leg infantry
    text = _text("mirages-brevity").replace('id = "1DLI", side = "allied", nationality = "british", type = "infantry", '
                                            'size = "II", strength = 3, ma = 4, hex = "2013"',
                                            'id = "1DLI", side = "allied", nationality = "british", type = "infantry", '
                                            'size = "II", strength = 3, ma = 4, hex = "2112"')
    assert text != _text("mirages-brevity")
    assert any("allied set-up stack in 2112 is over the stacking limit (leg 2 > 1" in e for e in _reload(text))


def test_roads_and_trails_link_every_supply_source_and_objective():
    """One network of roads and trails (3.1.1, 13.2.1) joins both sides' supply sources
    (5.7.2: leg HQs trace supply along it) and every victory hex of the four scenarios."""
    sc = S.load("mirages-battleaxe")
    grid = sc.board.grid
    net = {h for f in ("road", "trail") for h in sc.map.features[f].hexes}
    start = "1001"
    seen, todo = {start}, [start]
    while todo:
        h = todo.pop()
        for n in grid.neighbours(h):
            if n in net and n not in seen:
                seen.add(n)
                todo.append(n)
    wanted = {"1001", "1400", "1703", "1609", "2009", "2011", "3212", "4308", "1612", "1410", "4807", "4815"}
    assert wanted <= seen, sorted(wanted - seen)
    assert all(sc.board.terrain[h] != "sea" for h in net)
