"""Issue 16, item 5: each game's own orders and its set-up choices, as HELP and the welcome
list them (Turn.help, Turn.setup: derived from the game's order forms, core/forms.py)."""
from __future__ import annotations

from pbem.core.turn import Turn

import pytest

from pbem.core.ruleset import Ruleset
from pbem.engine import Game


@pytest.fixture(autouse=True)
def fixed_clock(monkeypatch):
    monkeypatch.setenv("PBEM_CLOCK", "2026-01-01T00:00:00Z")


def game(tmp_path, scenario) -> Game:
    return Game.create(tmp_path / scenario, scenario, {}, dice=[1, 2, 3, 4, 5, 6])


def words(lines: list[str]) -> set[str]:
    return {ln.split()[0] for ln in lines}


def test_crete_lists_its_verbs_per_side_and_the_drop_plan_maps(tmp_path):
    g = game(tmp_path, "crete")
    st, sc = g.state(), g.scenario
    german = list(Turn(g.rules, sc, st).help("german"))
    assert {"drop", "land", "doctrine", "lose"} <= words(german) and "place" not in words(german)
    assert "place" in words(Turn(g.rules, sc, st).help("commonwealth"))
    assert any(x.startswith("secret drop-plan west=N centre=N east=N") for x in german)
    assert list(Turn(g.rules, sc, st).setup("german")) == ["the west map: columns 01-14",
                                                           "the centre map: columns 16-25",
                                                           "the east map: columns 27-36"]
    assert list(Turn(g.rules, sc, st).setup("commonwealth")) == []          # not its step


def test_crete_commonwealth_set_up_lists_the_area_and_the_units_left(tmp_path):
    g = game(tmp_path, "crete")
    sub = g.submit("german", "secret drop-plan west=3 centre=2 east=2\nend\n")
    assert sub.refused is None, sub.refused
    st = g.state()
    got = list(Turn(g.rules, g.scenario, st).setup("commonwealth"))
    assert got[0].startswith("place each unit on any land hex of the maps west (columns 01-14)")
    assert got[1].startswith("units still to place: ") and len(got[1].split(": ")[1].split()) == 43


def test_red_devils_set_up_lists_the_two_drop_zones(tmp_path):
    g = game(tmp_path, "red-devils")
    got = list(Turn(g.rules, g.scenario, g.state()).setup("british"))
    assert "place 1Border HEX: 0906 or 1105" in got
    assert any(x.startswith("secret polish-dz HEX HEX") for x in got)
    g.submit("british", "place 1Border 1105\n")
    assert not any(x.startswith("place 1Border") for x in list(Turn(g.rules, g.scenario, g.state()).setup("british")))


def test_eben_emael_set_up_lists_the_cupolas_that_may_be_dummies(tmp_path):
    g = game(tmp_path, "eben-emael-12-1")
    got = list(Turn(g.rules, g.scenario, g.state()).setup("belgian"))
    assert got[0].startswith("dummy cupolas (dummy-1, dummy-2) on one of these cupolas: 0611 ")
    assert {"fire", "assault"} <= words(Turn(g.rules, g.scenario, g.state()).help("belgian"))
    assert "demolish" in words(Turn(g.rules, g.scenario, g.state()).help("german"))


def test_panzer_corps_set_up_lists_each_units_legal_hexes(tmp_path):
    g = game(tmp_path, "kharkov")
    st = g.state()
    side = st.decision.side
    got = list(Turn(g.rules, g.scenario, st).setup(side))
    assert got and all(x.startswith("place ") and " HEX: " in x for x in got)
    assert len(got) == len(st.decision.units)
    assert {"resolve", "enter", "lose"} <= words(Turn(g.rules, g.scenario, st).help(side))


def test_the_defaults_are_neutral():
    class Bare(Ruleset):
        verbs = frozenset({"dig"})
    from pbem.core.scenario import load
    sc = load("el-alamein")
    from pbem.games import ruleset_for
    st = ruleset_for(sc.game).new_state(sc, "x")
    assert list(Turn(Bare(), sc, st).setup("axis")) == []
    lines = list(Turn(Bare(), sc, st).help("axis"))
    assert "move" in words(lines) and "dig" in words(lines)
