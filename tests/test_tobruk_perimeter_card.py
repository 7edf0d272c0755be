"""Advanced Tobruk: the Wire at Post R33 card (scenarios/tobruk-perimeter.toml), the lint of the
perimeter's ground (lint_perimeter.py), and its example game (examples/tobruk-perimeter), which
must keep showing every rule it was made for.  Each lint test breaks the card in one place; the
shipped card lints clean."""
from __future__ import annotations

import pytest
from click.testing import CliRunner

from pbem.cli import main
from pbem.core import scenario as S
from pbem.core.scenario import SCENARIO_DIR
from pbem.games import ruleset_for

CARD = (SCENARIO_DIR / "tobruk-perimeter.toml").read_text()


def problems(text: str) -> list[str]:
    assert text != CARD
    sc = S.loads(text.encode(), "test-perimeter-card.toml")
    rules = ruleset_for(sc.game)
    return S.lint(sc, set(rules.result_codes), stacking=rules.setup_stacking) + rules.lint(sc)


def broken(old: str, new: str) -> list[str]:
    assert old in CARD, f"{old!r} is not in the card"
    return problems(CARD.replace(old, new, 1))


def has(errs: list[str], *parts: str) -> bool:
    return any(all(p in e for p in parts) for e in errs)


def test_the_shipped_card_lints_clean():
    r = CliRunner().invoke(main, ["scenario", "lint", "tobruk-perimeter"])
    assert r.exit_code == 0 and "ok (16 units" in r.output


@pytest.mark.parametrize("old, new, parts", [
    # 31.72, 31.82: one field emplacement to a hex
    ('hexes = ["0703"]\nrule = "31.3"', 'hexes = ["0703", "0107"]\nrule = "31.3"', ("0107 holds pit and trench", "31.72")),
    # 31.73: no vehicle sets up in the ditch
    ('hex = "1209", name = "Pz Kpfw III G, Panzer Regiment 5" }', 'hex = "1207", name = "Pz Kpfw III G" }',
     ("units.P2", "anti-tank trench in 1207", "31.73")),
    # 31.53: only personnel under cover; 31.52: a bunker holds three stacking points
    ('P1 = { facing = "NNW" }', 'P1 = { full = true, facing = "NNW" }', ("game_data.units.P1.full", "only personnel")),
    ('A1 = { full = true }', 'A1 = { full = true }\nAL = { full = true }', ("the bunker in 0605", "31.52")),
    # 33.71: a wadi's end on a wadi hex
    ('hexes = ["0804"]\nrule = "33.71"', 'hexes = ["0805"]\nrule = "33.71"', ("wadi-end", "0805 is no wadi hex")),
])
def test_lint_names_the_key_and_the_rule(old, new, parts):
    assert has(broken(old, new), *parts)


def test_lint_refuses_a_wheeled_vehicle_in_wire_and_personnel_under_cover_in_the_open():
    text = CARD.replace('hex = "1209", name = "Pz Kpfw III G, Panzer Regiment 5" }',
                        'hex = "1208", name = "Pz Kpfw III G" }', 1)
    text = text.replace('motion = "tracked"\nmp = [8, 4]', 'motion = "wheeled"\nmp = [8, 4]', 1)
    assert has(problems(text), "units.P2", "wheeled vehicle may not set up in the wire in 1208", "31.83")
    assert has(broken('MG1 = { holder = "G1" }', 'MG1 = { holder = "G1" }\nG3 = { full = true }'),
               "game_data.units.G3.full", "1010 has no hedgehog")


@pytest.mark.parametrize("rim, parts", [("N", ("the wadi crosses the N hexside", "33.74")),
                                        ("XX", ("not a hexside direction",))])
def test_lint_checks_a_wadi_good_position(rim, parts):
    text = CARD.replace('{ id = "A3", side = "british", nationality = "australian", type = "aus-squad", strength = 1, '
                        'ma = 0, hex = "1205"', '{ id = "A3", side = "british", nationality = "australian", type = '
                        '"aus-squad", strength = 1, ma = 0, hex = "0803"', 1)
    text = text.replace('A3 = { full = true }', f'A3 = {{ rim = "{rim}" }}', 1).replace('K1 = { holder = "A3" }', "", 1)
    text = text.replace('{ id = "K1", side = "british", nationality = "australian", type = "boys", strength = 1, ma = 0, '
                        'hex = "1205"', '{ id = "K1", side = "british", nationality = "australian", type = "boys", '
                        'strength = 1, ma = 0, hex = "0803"', 1)
    assert has(problems(text), "game_data.units.A3.rim", *parts)
    assert not [e for e in problems(text.replace(f'rim = "{rim}"', 'rim = "NE"')) if "rim" in e]


# --- the example game keeps showing what it was made for ------------------------------------------

@pytest.fixture(scope="module")
def played(played_example):
    return played_example("tobruk-perimeter")


def test_the_example_plays_to_a_british_win_and_shows_every_perimeter_rule(played):
    assert "British wins" in played.summary
    log = (played.dir / "log.jsonl").read_text()
    for kind in ("TobrukHullDefilade", "TobrukImmobilized", "TobrukCoverChanged", "TobrukContinuedFirePlaced",
                 "TobrukContinuedFireCheck", "TobrukContinuedFireCleared"):
        assert kind in log, kind
    for words in ('"cover":"full"', '"why":"drop"', '"rule":"15.52"', '"rule":"31.56"', "(9.32)", "in a bunker (31.58)",
                  "hull defilade (contour)", '"position":"rolled"', "wadi end 1", "grenades", '"rule":"15.932"'):
        assert words in log, words
