"""Paratroop: Eben Emael (paratroop.txt, Eben Emael 3.0-12.2, its charts, the addenda).

Rules are exercised with scripted dice on a state placed by hand (pure calls
of the ruleset), and end to end through the shipped example games.
"""
from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from click.testing import CliRunner

from pbem.report import render
from pbem.cli import main
from pbem.core.dice import ScriptedWithSalt as _ScriptedWithSalt
from pbem.engine import Game
from pbem.core.orders import OrderError, parse_line
from pbem.core.ruleset import Ctx, dispatch, secret_commitment
from pbem.games.eben_emael.board import hexside_extra
from pbem.games.eben_emael.fire import in_field_of_fire
from pbem.games.eben_emael.rules import EbenEmael
from pbem.core.scenario import ROOT, load, lint
from pbem.views import log_view, state_view

AT = "2026-01-01T00:00:00Z"
S1, S2 = "eben-emael-12-1", "eben-emael-12-2"


def new_game(tmp_path, scen=S1, dummies=("0917", "1303"), mines=(), act=4, extra=()):
    """A game past the Belgian set-up; act is every activation die (9.4: 1-4 activates)."""
    g = Game.create(tmp_path / "g", scen, dice=[act] * 16 + list(extra) + [1] * 50, game_id="t", at=AT)
    lines = [f"secret dummy-1 {dummies[0]}", f"secret dummy-2 {dummies[1]}"]
    lines += [f"secret mine-{i:02d} {h}" for i, h in enumerate(mines, 1)]
    sub = g.submit("belgian", "\n".join(lines + ["end"]), at=AT)
    assert sub.refused is None, sub.refused
    return g


def ctx(g: Game, side: str, dice=(), phase: str | None = None, phase_side: str | None = None, **where) -> Ctx:
    st = g.state()
    sc = g.scenario
    if phase:
        st.phase = next(i for i, p in enumerate(sc.sequence) if p.name == phase and p.side == (phase_side or side))
    for uid, h in where.items():
        st.units[uid.replace("_", "/")].hex = h
    c = Ctx(g.rules, st, sc, side, _ScriptedWithSalt(list(dice), 0, "t", 999))
    c.secret_records = g.secret_records()
    return c


def run(c: Ctx, *lines: str) -> list:
    for ln in lines:
        dispatch(c.rules, c, parse_line(ln, c.rules.verbs))
    return c.events


def kinds(events) -> list[str]:
    return [type(e).__name__ for e in events]


# --- data ------------------------------------------------------------------------------


@pytest.mark.parametrize("scen", [S1, S2])
def test_scenarios_lint_clean(scen):
    sc = load(scen)
    assert lint(sc, set(EbenEmael.result_codes)) + EbenEmael().lint(sc) == []


def test_victory_hexes_12_1_and_12_2():
    # 12.1 lists eleven fortifications; 12.2 drops 0708.
    v1 = load(S1).game_data["victory_forts"]
    v2 = load(S2).game_data["victory_forts"]
    assert v1 == ["0413", "0611", "0708", "0715", "1009", "1113", "1406", "1409", "1412", "1416", "1505"]
    assert v2 == [h for h in v1 if h != "0708"]


def test_setups_from_the_text():
    sc = load(S1)
    want = {"Arendt": "0712", "Bel/1": "0703", "Bel/3": "1115", "Bel/2": "0902", "Bel/4": "1121",
            "Harlos": "1506", "Haug": "1118", "Heinemann": "1405", "Huebel": "1313", "Neidermeier": "0815",
            "Neuhaus": "1111", "Unger": "1314", "Wenzel": "1408"}     # 12.1 set-up tables, alphabetical
    for uid, h in want.items():
        assert sc.unit_defs[uid].hex == h
    assert all(u.ma == 4 for u in sc.units if u.type not in ("cupola", "casemate"))   # 4.0


def test_printed_table_entries():
    sc = load(S1)
    gd, crt = sc.game_data, sc.crt
    assert gd["fire_rows"]["-1"] == ["2", "2", "3", "3", "2", "2"]                      # 5.9
    assert crt.rows["1"] == ["2"] * 6 and crt.rows["2"][:3] == ["1", "1", "1"]
    ca = gd["close_assault"]["rows"]
    assert ca["1"] == ["De"] * 6 and ca["3"][0] == "-" and ca["4"][:3] == ["Ae", "-", "-"]  # 7.9
    assert gd["demolition"] == {"normal": 3, "charge": 5}                                # 8.1


# --- movement (4.x) ----------------------------------------------------------------------


def test_hexside_costs():
    sc = load(S1)
    assert hexside_extra(sc, "0714", "0715") == 1 and hexside_extra(sc, "0715", "0714") == 0   # addenda, 4.9
    assert hexside_extra(sc, "0821", "0820") == 1 and hexside_extra(sc, "0820", "0821") == 0   # slope: upslope only
    assert hexside_extra(sc, "0505", "0506") == 1 == hexside_extra(sc, "0506", "0505")         # ridge
    assert hexside_extra(sc, "0210", "0310") == 1                                              # wall
    assert hexside_extra(sc, "0101", "0102") == 1                                              # stream
    assert hexside_extra(sc, "1705", "1805") is None                                           # cliff: P


def test_move_costs_and_bold_movement(tmp_path):
    g = new_game(tmp_path)
    c = ctx(g, "german", phase="movement", Neuhaus="1011")
    ev = run(c, "move Neuhaus 0911 0910")          # 1 + woods 2 (4.9)
    moved = [e for e in ev if type(e).__name__ == "UnitMoved"][0]
    assert moved.mp == 3 and "BoldMovement" in kinds(ev)                                  # 4.6
    c = ctx(g, "german", phase="movement")
    ev = run(c, "move Arendt 0713")
    assert "BoldMovement" not in kinds(ev)


@pytest.mark.parametrize("order,rule", [
    ("move Heinemann 1406", "4.8"),               # undestroyed fortification
    ("move Huebel 1314", "4.4"),                  # ends on a friend
    ("move Neuhaus 1112 1113", "4.8"),
    ("move Arendt 0612 0613 0614 0615 0616", "4.1"),
])
def test_movement_refusals(tmp_path, order, rule):
    g = new_game(tmp_path)
    c = ctx(g, "german", phase="movement")
    with pytest.raises(OrderError) as e:
        run(c, order)
    assert rule in e.value.rule


def test_pinned_units_do_not_move_and_enemy_hexes_are_closed(tmp_path):
    g = new_game(tmp_path)
    c = ctx(g, "german", phase="movement", Bel_3="1112", Wenzel="1707")
    c.state.units["Unger"].marks = ["pinned"]
    with pytest.raises(OrderError, match="pinned") as e:
        run(c, "move Unger 1315")
    assert e.value.rule == "4.7"
    with pytest.raises(OrderError) as e:
        run(c, "move Neuhaus 1112")
    assert e.value.rule == "4.3"
    with pytest.raises(OrderError) as e:
        run(c, "move Wenzel 1807")
    assert e.value.rule == "4.2"                   # canal


# --- sighting and fire (5.x, 6.x, 9.x) ------------------------------------------------------


def test_line_of_sight_is_symmetric_on_the_map():
    # 6.1 on the scenario map itself, for every pair of hexes within three of 0909.
    sc = load(S1)
    r = EbenEmael()
    grid = sc.board.grid
    hs = grid.within("0909", 3)
    for a in hs:
        for b in hs:
            assert bool(r.los(sc, a, b)) == bool(r.los(sc, b, a))


def test_sighting_cases():
    sc = load(S1)
    r = EbenEmael()
    assert r.los(sc, "0909", "0911")                  # woods 0910 between: blocked (6.2)
    assert not r.los(sc, "0909", "0910")              # into woods: clear
    assert not r.los(sc, "0505", "0506")              # adjacent across a ridge: only cliffs count (6.5)
    assert r.los(sc, "0505", "0507")                  # the ridge blocks at range 2
    assert not r.los(sc, "0715", "0913")              # a hilltop unit sees over slopes (6.3)


def test_fire_range_pin_and_eliminate(tmp_path):
    g = new_game(tmp_path)
    # German fire: Neuhaus (1111) at Bel/3 moved to 1113's neighbour 1112 -> adjacent.
    c = ctx(g, "german", dice=[1, 6], phase="fire", Bel_3="1112")
    ev = run(c, "fire Neuhaus Bel/3", "end")
    fr = [e for e in ev if type(e).__name__ == "FireResolved"][0]
    # die 1 on the German column: 2; second die 6 + 2 = 8 >= 3 + 4: eliminated (5.0)
    assert (fr.row, fr.result, fr.score, fr.rating, fr.effect) == ("German", "2", 8, 3, "eliminated")
    assert "UnitEliminated" in kinds(ev)
    c = ctx(g, "german", dice=[2, 3], phase="fire", Bel_3="1112")
    ev = run(c, "fire Neuhaus Bel/3", "end")
    fr = [e for e in ev if type(e).__name__ == "FireResolved"][0]
    assert (fr.result, fr.score, fr.effect) == ("1", 4, "pinned")                          # 4 > 3
    c = ctx(g, "german", phase="fire", Bel_3="1114")
    with pytest.raises(OrderError) as e:
        run(c, "fire Neuhaus Bel/3")                                                       # three hexes
    assert e.value.rule == "5.1"


def test_pinned_again_and_modifiers(tmp_path):
    g = new_game(tmp_path)
    c = ctx(g, "belgian", dice=[1, 6], phase="defensive-fire", Bel_3="1112")
    c.state.units["Neuhaus"].marks = ["bold", "pinned"]
    ev = run(c, "fire Bel/3 Neuhaus", "end")
    fr = [e for e in ev if type(e).__name__ == "FireResolved"][0]
    assert fr.total == -1 and any("bold" in m for m in fr.modifiers)                       # 4.6: -2
    assert fr.effect in ("already pinned", "eliminated")
    c = ctx(g, "belgian", dice=[3, 5], phase="defensive-fire", Bel_3="1112")
    c.state.units["Neuhaus"].marks = ["pinned"]
    ev = run(c, "fire Bel/3 Neuhaus", "end")
    fr = [e for e in ev if type(e).__name__ == "FireResolved"][0]
    assert fr.effect == "already pinned"                                                   # 5.7


def test_fortification_fire_rules(tmp_path):
    g = new_game(tmp_path, dummies=("0917", "1303"))
    c = ctx(g, "belgian", phase="defensive-fire")
    with pytest.raises(OrderError) as e:
        run(c, "fire 1409 Wenzel")                    # 1408 is north of 1409: outside NE and S
    assert e.value.rule == "9.3"
    with pytest.raises(OrderError) as e:
        run(c, "fire 0917 Haug")
    assert e.value.rule == "9.5"                      # a dummy cupola cannot fire
    with pytest.raises(OrderError) as e:
        run(c, "fire Bel/3 1113")
    assert "5.8" in e.value.rule or "5.0" in e.value.rule
    run(c, "fire 1412 Huebel")
    with pytest.raises(OrderError) as e:
        run(c, "fire 1412 Unger")
    assert e.value.rule == "9.2"                      # once per fire phase (12.1)
    g2 = new_game(tmp_path / "b", act=5)
    c = ctx(g2, "belgian", phase="defensive-fire")
    with pytest.raises(OrderError) as e:
        run(c, "fire 1412 Huebel")
    assert e.value.rule == "9.4"                      # inactive


def test_casemate_with_two_fields():
    sc = load(S1)
    grid = sc.board.grid
    arrows = sc.game_data["forts"]["1409"]["arrows"]       # 9.3 note: 1409 has two fields
    assert in_field_of_fire(grid, "1409", "1508", arrows) and in_field_of_fire(grid, "1409", "1411", arrows)
    assert not in_field_of_fire(grid, "1409", "1408", arrows)


def test_observation_cupola_sees_everything(tmp_path):
    # 6.4: with an active real observation cupola a fortification ignores terrain.
    g = new_game(tmp_path)
    sc, r = g.scenario, g.rules
    target = next(h for h in sc.board.grid.all_hexes() if sc.board.terrain[h] == "clear"
                  and h not in r.forts(sc) and r.los(sc, "1113", h) and sc.board.grid.distance("1113", h) > 2)
    c = ctx(g, "belgian", phase="defensive-fire", Haug=target)
    run(c, "fire 1113 Haug")                          # 1406 and 0715 are active
    c = ctx(g, "belgian", phase="defensive-fire", Haug=target)
    for h in ("1406", "0715"):
        c.state.units[f"F{h}"].marks = ["inactive"]
    with pytest.raises(OrderError) as e:
        run(c, "fire 1113 Haug")
    assert e.value.rule == "6.0"


def test_second_fire_12_2(tmp_path):
    g = new_game(tmp_path, S2)
    st = g.state()
    assert st.phase == 1                                # German set-up
    c = ctx(g, "belgian", dice=[6, 6], phase="defensive-fire", Huebel="1313", Unger="1411")
    c.state.units["F1412"].marks = []                   # activated (9.4)
    ev = run(c, "fire 1412 Huebel Unger", "end")
    rows = [e.row for e in ev if type(e).__name__ == "FireResolved"]
    assert rows == ["Cupola", "1"]                     # 12.2: second fire at strength 1, consecutively


# --- close assault (7.x) and demolition (8.x) --------------------------------------------


def test_close_assault_de_and_advance(tmp_path):
    g = new_game(tmp_path)
    c = ctx(g, "german", dice=[2], phase="assault", Bel_3="1112", Unger="1212")
    ev = run(c, "assault 1112 with Neuhaus Unger advance Unger", "end")
    ar = [e for e in ev if type(e).__name__ == "AssaultResolved"][0]
    assert ar.differential == 1 and ar.result == "De"                                  # 7.0: 2 - 1
    assert c.state.units["Bel/3"].eliminated and c.state.units["Unger"].hex == "1112"  # 7.6


def test_close_assault_ae_asks_which_attacker(tmp_path):
    g = new_game(tmp_path)
    c = ctx(g, "german", dice=[6], phase="assault", Bel_3="1112", Unger="1212")
    ev = run(c, "assault 1112 with Neuhaus Unger", "end")
    assert ev[-1].decision == "lose" and ev[-1].units == ["Neuhaus", "Unger"]        # 7.5
    assert g.rules.awaiting(c.state, g.scenario)[0]["kind"] == "lose"
    run(c, "lose Unger")
    assert c.state.units["Unger"].eliminated and not c.state.units["Neuhaus"].eliminated


def test_assault_or_demolish_not_both(tmp_path):
    g = new_game(tmp_path)
    c = ctx(g, "german", phase="assault", Bel_3="1012", Neuhaus="1112")
    run(c, "demolish 1113 with Neuhaus charge")
    with pytest.raises(OrderError) as e:
        run(c, "assault 1012 with Neuhaus")
    assert "7.7" in e.value.rule
    with pytest.raises(OrderError) as e:
        run(c, "assault 1113 with Unger")
    assert "7.8" in e.value.rule                       # fortifications are never close assaulted


def test_demolition_ratings_and_waste(tmp_path):
    g = new_game(tmp_path)
    c = ctx(g, "german", dice=[5, 4], phase="assault", Heinemann="1405", Harlos="1506")
    run(c, "demolish 1406 with Heinemann charge", "demolish 1406 with Harlos", "end")
    res = [e for e in c.events if type(e).__name__ == "DemolitionResolved"]
    assert (res[0].rating, res[0].rolls, res[0].destroyed) == (5, [5], True)            # 8.1: die <= 5
    assert res[1].wasted and res[1].rolls == []                                          # 8.2
    assert "charge used" in c.state.units["Heinemann"].marks
    c = ctx(g, "german", dice=[3], phase="assault")
    c.state.units["Heinemann"].marks = ["charge used"]
    with pytest.raises(OrderError) as e:
        run(c, "demolish 1406 with Heinemann charge")
    assert e.value.rule == "8.1"


def test_demolition_through_a_slope(tmp_path):
    g = new_game(tmp_path)
    c = ctx(g, "german", dice=[3], phase="assault")
    run(c, "demolish 0715 with Neidermeier", "end")        # the addenda's slope around 0715
    res = [e for e in c.events if type(e).__name__ == "DemolitionResolved"][0]
    assert res.total == 4 and not res.destroyed                                          # 8.5: 3 + 1 > 3


def test_dummy_revealed_only_when_destroyed(tmp_path):
    g = new_game(tmp_path, dummies=("1113", "1303"))
    c = ctx(g, "german", dice=[1], phase="assault", Neuhaus="1112")
    ev = run(c, "demolish 1113 with Neuhaus", "end")
    rev = [e for e in ev if type(e).__name__ == "SecretRevealed"]
    assert [(r.name, r.payload) for r in rev] == [("dummy-1", "1113")]                  # 9.5
    rec = g.secret_records()["belgian:dummy-1"]
    assert secret_commitment(rev[0].salt, rev[0].payload) == rec.commitment
    assert "belgian:dummy-2" in c.state.secrets                                          # the other stays sealed


def test_dummy_rules_at_set_up(tmp_path):
    g = Game.create(tmp_path / "g", S1, dice=[1] * 40, game_id="t", at=AT)
    for text, rule in [("secret dummy-1 1420", "9.5"), ("secret dummy-1 1409", "9.5"),
                       ("end", "9.5"), ("secret mine-01 0505", "12.2")]:
        sub = g.submit("belgian", text, at=AT)
        assert sub.refused is not None and rule in sub.refused.rule, text
    assert g.submit("german", "secret dummy-1 0917", at=AT).refused is not None


# --- minefields (11.x, 12.2) -------------------------------------------------------------------


def mine_game(tmp_path, mines=("1007", "1306")):
    return new_game(tmp_path, S2, mines=mines)


def test_bold_move_into_a_minefield_is_attacked(tmp_path):
    g = mine_game(tmp_path)
    c = ctx(g, "german", dice=[6, 1], phase="movement", Neuhaus="1109")
    ev = run(c, "move Neuhaus 1008 1007 0907")
    assert kinds(ev)[:4] == ["BoldMovement", "UnitMoved", "SecretRevealed", "FireResolved"]
    fr = ev[3]
    assert fr.firer == "minefield" and fr.row == "3" and fr.total == 4                   # 11.0: 6 - 2
    assert c.state.units["Neuhaus"].hex == "0907"                                        # 11.3: unaffected goes on


def test_minefield_pins_and_stops(tmp_path):
    g = mine_game(tmp_path)
    c = ctx(g, "german", dice=[3, 5], phase="movement", Neuhaus="1109")
    run(c, "move Neuhaus 1008 1007 0907")
    assert c.state.units["Neuhaus"].hex == "1007" and "pinned" in c.state.units["Neuhaus"].marks   # 11.3


def test_one_hex_into_a_minefield_only_tells(tmp_path):
    g = mine_game(tmp_path)
    c = ctx(g, "german", phase="movement", Neuhaus="1008")
    ev = run(c, "move Neuhaus 1007")
    assert kinds(ev) == ["UnitMoved", "SecretRevealed"]                    # 11.2


def test_leaving_a_minefield_one_started_in(tmp_path):
    g = mine_game(tmp_path)
    c = ctx(g, "german", phase="movement", Neuhaus="1007")
    ev = run(c, "move Neuhaus 0907 0906")
    assert "FireResolved" not in kinds(ev)                                               # 11.4


def test_belgians_never_bold_into_their_minefields(tmp_path):
    g = mine_game(tmp_path)
    c = ctx(g, "belgian", phase="movement", Bel_3="1108")
    with pytest.raises(OrderError) as e:
        run(c, "move Bel/3 1008 1007")
    assert e.value.rule == "11.8"


def test_minefields_not_in_fortifications(tmp_path):
    g = Game.create(tmp_path / "g", S2, dice=[1] * 40, game_id="t", at=AT)
    sub = g.submit("belgian", "secret mine-01 1406", at=AT)
    assert sub.refused is not None and sub.refused.rule == "11.6"


def test_set_up_in_a_minefield_is_attacked(tmp_path):
    g = Game.create(tmp_path / "g", S2, dice=[1, 6] + [4] * 60, game_id="t", at=AT)
    g.submit("belgian", "secret dummy-1 0917\nsecret dummy-2 1303\nsecret mine-01 1214\nend", at=AT)
    setup = {"Arendt": "0712", "Harlos": "1506", "Haug": "1214", "Heinemann": "1405", "Huebel": "1313",
             "Neidermeier": "0815", "Neuhaus": "1111", "Unger": "1315", "Wenzel": "1408"}
    bad = g.submit("german", "place Haug 0910", at=AT)
    assert bad.refused is not None and bad.refused.rule == "12.2"                        # clear hexes only
    sub = g.submit("german", "\n".join(f"place {u} {h}" for u, h in setup.items()) + "\nend", at=AT)
    assert sub.refused is None
    evs = [e.event for e in g.entries()]
    assert any(type(e).__name__ == "SecretRevealed" and e.payload == "1214" for e in evs)
    assert g.state().units["Haug"].eliminated                                            # die 1-2 = -1: 3; 6+3


# --- reinforcements (10.x) -------------------------------------------------------------------


def test_reinforcements(tmp_path):
    g = new_game(tmp_path, S2, dummies=("0917", "1303"))
    c = ctx(g, "belgian", phase="movement")
    c.state.turn = 3
    run(c, "enter Bel/5 0601 0602")                        # 10.2: edge hex first, terrain cost
    assert c.state.units["Bel/5"].hex == "0602"
    run(c, "place Bel/9 1113")                              # 10.3
    with pytest.raises(OrderError, match="dummy") as e:
        run(c, "place Bel/10 0917")
    assert e.value.rule == "10.3"
    with pytest.raises(OrderError) as e:
        run(c, "place Bel/10 1113")                         # one per fortification per turn
    assert e.value.rule == "10.3"
    with pytest.raises(OrderError) as e:
        run(c, "enter Bel/12 0601")                         # a fort-garrison unit
    with pytest.raises(OrderError) as e:
        run(c, "enter Bel/14 0601")                         # turn 6
    assert e.value.rule == "10.0"
    with pytest.raises(OrderError) as e:
        run(c, "enter Bel/6 0505")
    assert e.value.rule == "10.2"


# --- sequence and victory ---------------------------------------------------------------------


def test_turn_sequence_and_activation(tmp_path):
    g = Game.create(tmp_path / "g", S1, dice=[4, 5] * 8 + [1] * 40, game_id="t", at=AT)
    g.submit("belgian", "secret dummy-1 0917\nsecret dummy-2 1303\nend", at=AT)
    acts = [e.event for e in g.entries() if type(e.event).__name__ == "FortActivation"]
    assert [a.active for a in acts] == [True, False] * 8                                 # 9.4: 1-4
    names = []
    for side in ["german", "german", "belgian", "german", "belgian", "belgian", "german", "belgian"]:
        names.append(g.rules.kind(g.scenario.sequence[g.state().phase].name))
        assert g.submit(side, "end", at=AT).refused is None
    assert names == ["fire", "movement", "fire", "assault", "fire", "movement", "fire", "assault"]
    st = g.state()
    assert st.turn == 2 and g.scenario.sequence[st.phase].name == "fire"                 # 3.0


def test_belgian_win_after_turn_ten(tmp_path):
    g = new_game(tmp_path, act=5)
    c = ctx(g, "belgian", phase="reorganization", phase_side="belgian")
    c.state.turn = 10
    g.rules._next_phase(c)
    assert c.state.result.winner == "belgian"


# --- the example games and secrecy ----------------------------------------------------------------


@pytest.fixture(scope="module")
def played(played_example):
    # played once per run (conftest); 12.2 with its maps and e-mails, which the secrecy test reads
    return {S1: played_example(S1).game(), S2: played_example(S2, maps=True).game()}


def test_example_12_1_german_win(played):
    g = played[S1]
    st = g.state()
    assert st.result.winner == "german" and g.verify().ok


def test_example_12_2_belgian_win(played):
    g = played[S2]
    st = g.state()
    assert st.result.winner == "belgian" and st.result.rule == "12.2" and g.verify().ok


def test_german_never_sees_a_sealed_dummy_or_minefield(played):
    """9.5, 11.2: render every report, map, e-mail and log export the German
    side received during the example 12.2 game; a dummy or minefield hex is
    named as such only from the event that reveals it."""
    g = played[S2]
    entries = g.entries()
    records = {k: r for k, r in g.secret_records(entries).items() if k.startswith("belgian:")}
    revealed_at = {f"{e.event.side}:{e.event.name}": e.seq for e in entries if type(e.event).__name__ == "SecretRevealed"}
    assert any(k.startswith("belgian:mine-") for k in revealed_at)          # the game did reveal some
    assert any(k.startswith("belgian:mine-") for k in records if k not in revealed_at)   # and kept others

    def leaks(text: str, seq: int) -> list[str]:
        found = []
        for key, rec in records.items():
            name, h = key.split(":", 1)[1], rec.payload
            if revealed_at.get(key, 10**9) <= seq:
                continue                                  # opened by its rule: public from here on
            if rec.salt in text:
                found.append(f"salt of {name} at seq {seq}")
            what = "dummy" if name.startswith("dummy") else "minefield"
            # The hex as a whole token: a 4-digit run inside a hash or id is not a hex.
            token = re.compile(rf"(?<![0-9A-Za-z]){re.escape(h)}(?![0-9A-Za-z])")
            for line in text.splitlines():
                if token.search(line) and (what in line.lower() or name in line):
                    found.append(f"{name} ({h}) at seq {seq}: {line.strip()[:120]}")
        return found

    reports = sorted((g.dir / "reports").glob("*-german.*"))
    assert len(reports) > 100
    problems = []
    for p in reports:
        text = p.read_text(errors="replace")
        m = re.search(r"\(seq (\d+)\)", text) or re.search(r"seq (\d+)", text)
        seq = int(m.group(1)) if m else 10**9
        problems += leaks(text, seq)
    st = g.state()
    head = entries[-1].hash
    for upto in sorted({0, *revealed_at.values(), st.seq}):
        part = [e for e in entries if e.seq <= upto]
        stu = g.state(at=upto)
        problems += leaks(json.dumps(log_view(part, "german", g.rules), indent=1), upto)
        problems += leaks(json.dumps(state_view(g, stu, "german", head), indent=1), upto)
        problems += leaks(render.report_text(g, "german", stu, part, 0, head), upto)
        problems += leaks(render.report_svg(g, "german", stu, part, 0, head), upto)
        problems += leaks(bytes(render.report_eml(g, "german", stu, part, 0, head)).decode("utf-8", "replace"), upto)
    runner = CliRunner()
    for args in (["log", str(g.dir), "--as", "german"], ["log", str(g.dir), "--as", "german", "--json"],
                 ["report", str(g.dir), "--as", "german", "--since", "0"]):
        problems += leaks(runner.invoke(main, args).output, st.seq)
    assert problems == []
    # The Belgian and the referee do see them, and every opening matches its commitment.
    assert "secret dummy-2" in json.dumps(log_view(entries, "belgian", g.rules))
    for key, seq in revealed_at.items():
        ev = entries[seq].event
        assert secret_commitment(ev.salt, ev.payload) == records[key].commitment
