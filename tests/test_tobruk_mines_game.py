"""Advanced Tobruk minefields through the engine: the British owner's side notes
(31.14, 31.15, 31.19), a German move into them (the move carries out the forcing,
31.17), the note opened when the density is turned over, a search (31.211)."""
from __future__ import annotations

from pbem.core import events as CE
from pbem.engine import Game
from pbem.games.advanced_tobruk import events as E
from pbem.games.advanced_tobruk.mines import mines
from pbem.games.advanced_tobruk.fire_events import CasualtyAttack
from pbem.games.advanced_tobruk.mine_events import MineEntered, MinesSearched

from conftest import Table, one, only
from tobruk_kit import MOVEMENT, U, scenario_text

EDGE = 'friendly_edge = { british = ["north"], german = ["south"] }'
SSR = '\n[game_data.mines.british]\nfactors = 10\nhidden = 1\ndummies = 1\narea = ["0505", "0506", "0605", "0705"]\n'


def game(tmp_path, dice, notes) -> Table:
    units = [U("B9", "british", "aus-squad", None), U("S", "german", "ger-squad", "0507")]
    text = scenario_text(units) + SSR
    p = tmp_path / "mines.toml"
    p.write_text(text)
    t = Table(Game.create(tmp_path / "g", str(p), {}, dice=[2, 1, *dice, *[2, 1] * 6], lint=False))   # first rolls: the Germans
    t.ok("british", "\n".join([*notes, "pass"]))
    t.ok("german", "pass")
    assert t.phase() == (1, MOVEMENT) and t.state().step.to_act == "german"
    return t


def test_31_15_a_german_squad_finds_a_hidden_minefield_and_the_note_opens(tmp_path):
    # 0506 holds nothing; 0505 a hidden British minefield of density 2: the squad running 0506 0505 0504
    # is attacked there (31.201) and stops; 8 FRAG, roll 6: no effect
    t = game(tmp_path, [6], ["note mine 0505 2 hidden", "note mine 0605 3"])
    mf = t.state().minefields
    assert mf["0505"].hidden and not mf["0605"].hidden
    assert [a["hexes"] for a in mines.marks(t.state(), t.game.scenario, "german")["areas"]] == [["0605"]]
    evs = t.ok("german", "run S 0506 0505 0504")
    ev = one(evs, MineEntered)
    assert (ev.hex, ev.placed, ev.how, ev.density, ev.rule) == ("0505", True, "attacked", 2, "31.201")
    att = one(evs, CasualtyAttack)
    assert (att.factors, att.roll, att.result) == (8, 6, 0)
    opened = one(evs, CE.SecretRevealed)
    assert (opened.side, opened.payload) == ("british", "mine 0505 2 hidden")
    assert t.hex_of("S") == "0505"                                # the rest of the run is dropped
    assert one(evs, E.MoveEnded).units == ["S"]
    assert not t.state().minefields["0505"].hidden and t.state().minefields["0505"].known


def test_31_191_a_dummy_minefield_is_revealed_when_a_squad_crawls_in(tmp_path):
    t = game(tmp_path, [], ["note mine 0506 dummy"])
    assert mines.report_lines(t.state(), t.game.scenario, "german") == ["0506 (British): minefield, density unknown"]
    evs = t.ok("german", "crawl S 0506")
    ev = one(evs, MineEntered)
    assert (ev.how, ev.dummy, ev.rolls, ev.lane) == ("dummy", True, [], False)
    assert one(evs, CE.SecretRevealed).payload == "mine 0506 dummy"
    st = t.state()
    assert st.minefields["0506"].dummy and st.minefields["0506"].known
    assert mines.report_lines(st, t.game.scenario, "german") == ["0506 (British): dummy minefield"]


def test_31_211_search_places_adjacent_hidden_minefields_without_their_density(tmp_path):
    t = game(tmp_path, [], ["note mine 0506 2 hidden"])
    t.refuse("german", "search S S", rule="31.211")
    evs = t.ok("german", "search S")
    ev = one(evs, MinesSearched)
    assert (ev.unit, ev.hex, ev.found) == ("S", "0507", ["0506"])
    assert not only(evs, CE.SecretRevealed)                       # the density stays sealed
    mf = t.state().minefields["0506"]
    assert not mf.hidden and not mf.known
    assert mines.report_lines(t.state(), t.game.scenario, "german") == ["0506 (British): minefield, density unknown"]
    assert one(evs, E.Acted).units == ["S"]


def test_31_174_a_tank_forcing_a_visible_minefield_lays_a_lane_and_moves_on(tmp_path):
    # 0505 density 2, face down to the Germans; the Pz III by assault movement: roll 5 > 2, forced
    units = [U("B9", "british", "aus-squad", None), U("P", "german", "pz3g", "0507", facing="NNE")]
    p = tmp_path / "lane.toml"
    p.write_text(scenario_text(units) + SSR)
    t = Table(Game.create(tmp_path / "g", str(p), {}, dice=[2, 1, 5, *[2, 1] * 6], lint=False))
    t.ok("british", "note mine 0505 2\npass")
    t.ok("german", "pass")
    evs = t.ok("german", "assault P 0506 0505 0504")
    ev = one(evs, MineEntered)
    assert (ev.how, ev.rolls, ev.failed, ev.lane, ev.density) == ("forcing", [5], [], True, 2)
    assert one(evs, CE.SecretRevealed).payload == "mine 0505 2"
    assert t.hex_of("P") == "0504"                                # it went on
    mf = t.state().minefields["0505"]
    assert mf.lane and mf.known
    assert mines.report_lines(t.state(), t.game.scenario, "german") == ["0505 (British): minefield, density 2, lane"]


def test_31_172_a_pivot_in_a_visible_enemy_minefield_is_refused_when_the_move_is_written(tmp_path):
    units = [U("B9", "british", "aus-squad", None), U("P", "german", "pz3g", "0507", facing="NNE")]
    p = tmp_path / "pivot.toml"
    p.write_text(scenario_text(units) + SSR)
    t = Table(Game.create(tmp_path / "g", str(p), {}, dice=[2, 1, *[2, 1] * 6], lint=False))
    t.ok("british", "note mine 0505 2\npass")
    t.ok("german", "pass")
    t.refuse("german", "assault P 0506 0505 face NNW", rule="31.172", match="covered arc")
