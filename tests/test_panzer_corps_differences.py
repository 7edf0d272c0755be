"""The differences between the four Panzer Corps games that the rulebook's
closing "Translator's Redundancy" lists, one test each, plus 9.7(4) (a
disrupted unit may be attacked in Operation Compass only).

Every test plays the same situation under two (or four) games through the
real engine and checks that the outcome differs exactly as the rulebook says.
Small maps: ``make_game`` (El Alamein, conftest.py) and ``pz_game`` (the
sister games, whose test CRT gives 1 DE, 2 DR1, 3 DR2, 4 AR, 5 AE, 6 C/EX).
"""
from __future__ import annotations

import pytest

from conftest import AXIS_COMBAT, BRIT_MOVE, U, one, pz_units
from pbem.games.panzer_corps import events as E
from pbem.core import orders as O
from pbem.core.dice import ScriptedDice
from pbem.core.orders import OrderError
from pbem.core.ruleset import Ctx
from pbem.core.state import copy_state

GER, ALL = pz_units("german"), pz_units("allied", "french")
SOV = pz_units("soviet")
BRI, ITA = pz_units("british"), pz_units("italian")


# (1) Only El Alamein halves movement allowances, and only the British ones on turn 1 (8.4).

def test_1_ma_halved_on_turn_1_only_in_el_alamein(make_game, pz_game):
    # El Alamein 8.4: MA 4 -> 2 on turn 1, 4 again on turn 2.
    t = make_game([U("A", "axis", 4, 4, "0808"), U("B", "british", 4, 4, "0303")])
    t.goto(1, BRIT_MOVE)
    assert one(t.ok("british", "move B 0304 0305"), E.UnitMoved).ma == 2
    t.goto(2, BRIT_MOVE)
    assert one(t.ok("british", "move B 0306 0307 0308 0408"), E.UnitMoved).ma == 4
    # The sister games have no such rule: the second side moves its full MA on turn 1.
    for game, mover, unit, other in (("dunkerque", "allied", ALL, GER), ("kharkov", "german", pz_units("german"), SOV),
                                     ("operation-compass", "italian", ITA, BRI)):
        g = pz_game(game, [unit("X", 4, 4, "0303"), other("Y", 4, 4, "0808")], name=game)
        phase = {"dunkerque": 2, "kharkov": 4, "operation-compass": 2}[game]
        g.goto(1, phase)
        assert one(g.ok(mover, "move X 0304 0305 0306 0307"), E.UnitMoved).ma == 4, game


# (2) Terrain that doubles a defender differs: highlands (El Alamein yes, Dunkerque no), forest
# (Dunkerque no, Khar'kov yes), rivers (Dunkerque yes; Khar'kov's minor rivers no).

def test_2_highlands_double_in_el_alamein_not_in_dunkerque(make_game, pz_game):
    t = make_game([U("A", "axis", 6, 6, "0605"), U("B", "british", 3, 4, "0606")], dice=[4])   # 0606 highlands
    t.goto(1, AXIS_COMBAT)
    t.ok("axis", "attack 0606 with A")
    assert one(t.ok("axis", "end"), E.CombatResolved).defence_strength == 6                       # El Alamein 9.3
    rows = ["." * 8] * 8
    rows[4] = "....h..."                                                                          # 0505 highlands
    d = pz_game("dunkerque", [GER("A", 6, 4, "0404"), ALL("B", 3, 4, "0505")], rows=rows, dice=[6], name="d")
    d.goto(1, 1)
    d.ok("german", "attack 0505 with A")
    assert one(d.ok("german", "end"), E.CombatResolved).defence_strength == 3                     # Dunkerque 9.3


def test_2_forest_doubles_in_kharkov_not_in_dunkerque(pz_game):
    rows = ["." * 8] * 8
    rows[4] = "....f..."                                                                          # 0505 forest
    d = pz_game("dunkerque", [GER("A", 6, 4, "0404"), ALL("B", 3, 4, "0505")], rows=rows, dice=[6], name="d")
    d.goto(1, 1)
    d.ok("german", "attack 0505 with A")
    assert one(d.ok("german", "end"), E.CombatResolved).defence_strength == 3                     # Dunkerque 9.3
    k = pz_game("kharkov", [SOV("A", 6, 4, "0404"), pz_units("german")("B", 3, 4, "0505")], rows=rows, dice=[6],
                name="k")
    k.goto(1, 2)
    k.ok("soviet", "attack 0505 with A")
    assert one(k.ok("soviet", "end"), E.CombatResolved).defence_strength == 6                     # Khar'kov 9.3


def test_2_rivers_double_in_dunkerque_minor_rivers_not_in_kharkov(pz_game):
    d = pz_game("dunkerque", [GER("A", 6, 4, "0404"), ALL("B", 3, 4, "0505")], dice=[6], name="d",
                hexsides=[("0404", "0505", "river")])
    d.goto(1, 1)
    d.ok("german", "attack 0505 with A")
    assert one(d.ok("german", "end"), E.CombatResolved).defence_strength == 6                     # Dunkerque 9.3(1)
    k = pz_game("kharkov", [SOV("A", 6, 4, "0404"), pz_units("german")("B", 3, 4, "0505")], dice=[6], name="k",
                hexsides=[("0404", "0505", "minor_river")])
    k.goto(1, 2)
    k.ok("soviet", "attack 0505 with A")
    assert one(k.ok("soviet", "end"), E.CombatResolved).defence_strength == 3                     # Khar'kov 9.3(3)


# (3) Entering costs a Dunkerque reinforcement 1 MP; a Khar'kov one enters for nothing.

def test_3_reinforcements_pay_1_mp_in_dunkerque_not_in_kharkov(pz_game):
    r = [f"R{i}" for i in range(1, 8)]
    d = pz_game("dunkerque", [GER("G", 4, 4, "0101")] + [ALL(u, 2, 4, entry_turn=0) for u in r],
                game_data={"hidden_reinforcements": r, "hidden_slots": [2, 3, 3, 4, 4, 5, 5]}, dice=[1] * 6, name="d")
    d.goto(2, 2)
    ent = one(d.ok("allied", "enter 0508"), E.ReinforcementEntered)
    assert ent.mp == 1                                                                            # Dunkerque 10.0(5)
    assert one(d.ok("allied", f"move {ent.unit} 0507 0506 0505"), E.UnitMoved).ma == 3
    k = pz_game("kharkov", [SOV("S", 2, 4, "0808"), pz_units("german")("R1", 4, 4, entry_turn=2)], name="k",
                game_data={"areas": [{"name": "A", "hexes": ["0101"], "units": ["R1"]}]})
    k.goto(2, 3)
    assert one(k.ok("german", "enter R1 0101"), E.ReinforcementEntered).mp == 0                  # Khar'kov 10.0(5)
    k.end()
    assert one(k.ok("german", "move R1 0102 0103 0104 0105"), E.UnitMoved).ma == 4


# (4) An enemy ZOC with a friendly unit in it: closed to Dunkerque's connecting lines, open to
# Operation Compass's.

CORRIDOR = ["~~~~~~~~", "~~~~~~~~", "~~~~.~~~", "........", "~~~~~~~~", "~~~~~~~~", "~~~~~~~~", "~~~~~~~."]


def test_4_a_friendly_unit_opens_an_ezoc_for_lines_in_compass_not_in_dunkerque(pz_game):
    # The only way from 0604 (Dunkerque unit) / 0404 (Compass foothold) runs along row 04 through
    # 0504, in the ZOC of the enemy unit in 0503; a friendly unit stands in 0504 in both games.
    d = pz_game("dunkerque", [ALL("A", 3, 4, "0404"), ALL("F", 3, 4, "0504"), GER("E", 2, 4, "0503")],
                rows=CORRIDOR, name="d", game_data={"map_edges": {"west": "east", "south": "north"}})
    st = d.state()
    assert d.game.rules.trace(st, d.game.scenario, st.units["A"]) is None                          # Dunkerque 4.1(3)
    c = pz_game("operation-compass", [BRI("B", 4, 4, "0404"), BRI("F", 4, 4, "0504"), ITA("E", 2, 4, "0503")],
                rows=CORRIDOR, name="c", features={"foothold": ["0404", "0808"]},
                game_data={"footholds": {"0404": 1, "0808": 1}, "supply": {"british": ["0804"], "italian": ["0104"]}})
    st = c.state()
    assert c.game.rules.line(st, c.game.scenario, "british", "0404") == ["0404", "0504", "0604", "0704", "0804"]
    st.units["F"].hex = None                                 # without the friendly unit: cut in Compass too
    assert c.game.rules.line(st, c.game.scenario, "british", "0404") is None


# (5) Unlike most wargames, the side that attacked picks the path of the defender's retreat, in all
# four games (9.5(1)).

@pytest.mark.parametrize("game, att, dfn, attacker_side, combat_phase", [
    ("dunkerque", GER, ALL, "german", 1),
    ("kharkov", SOV, pz_units("german"), "soviet", 2),
    ("operation-compass", BRI, ITA, "british", 1),
])
def test_5_the_attacker_chooses_the_defenders_retreat(pz_game, game, att, dfn, attacker_side, combat_phase):
    t = pz_game(game, [att("A", 8, 4, "0404"), dfn("D", 2, 4, "0505")], dice=[2])
    t.goto(1, combat_phase)
    t.ok(attacker_side, "attack 0505 with A no-advance")
    evs = t.ok(attacker_side, "end")
    d = one(evs, E.DecisionRequired)
    assert (d.side, d.decision, d.rule) == (attacker_side, "retreat", "9.5(1)")
    defender_side = t.state().units["D"].side
    t.refuse(defender_side, "retreat D 0506", match="waits for")
    evs = t.ok(attacker_side, "retreat D 0506")
    assert one(evs, E.UnitRetreated).chosen_by == attacker_side


def test_5_the_attacker_chooses_in_el_alamein_too(make_game):
    t = make_game([U("A", "axis", 8, 6, "0404"), U("B", "british", 4, 4, "0505")], dice=[1])
    t.goto(1, AXIS_COMBAT)
    t.ok("axis", "attack 0505 with A no-advance")
    assert one(t.ok("axis", "end"), E.DecisionRequired).side == "axis"
    t.refuse("british", "retreat B 0506", match="waits for German-Italian")


# 9.7(4): a disrupted unit is safe from attack in El Alamein, Dunkerque and Khar'kov; in Operation
# Compass it may be attacked, at its full strength.  In play a Compass unit meets
# this on the first British turn, after the naval bombardment (test_operation_compass.py); here the
# same position is set up in each game on a copy of the state (a defender disrupted in the
# attacker's combat phase), since legal play rarely produces it in the other three.

def _crafted_attack(t, side: str, order: str, disrupt: str):
    st = copy_state(t.state())
    st.units[disrupt].disrupted = True
    ctx = Ctx(t.game.rules, st, t.game.scenario, side, ScriptedDice([]))
    t.game.rules.handle(ctx, O.parse_line(order, t.game.rules.verbs))
    return ctx.events


@pytest.mark.parametrize("game, att, dfn, side, combat_phase, attackable", [
    ("el-alamein", None, None, "axis", 1, False),
    ("dunkerque", GER, ALL, "german", 1, False),
    ("kharkov", SOV, pz_units("german"), "soviet", 2, False),
    ("operation-compass", BRI, ITA, "british", 1, True),
])
def test_9_7_4_only_compass_attacks_disrupted_units(make_game, pz_game, game, att, dfn, side, combat_phase,
                                                     attackable):
    if game == "el-alamein":
        t = make_game([U("A", "axis", 8, 6, "0404"), U("D", "british", 2, 4, "0505")])
    else:
        t = pz_game(game, [att("A", 8, 4, "0404"), dfn("D", 2, 4, "0505")], name="p")
    t.goto(1, combat_phase)
    if attackable:
        evs = _crafted_attack(t, side, "attack 0505 with A", "D")
        assert isinstance(evs[-1], E.AttackDeclared) and evs[-1].target == "0505"
    else:
        with pytest.raises(OrderError) as ei:
            _crafted_attack(t, side, "attack 0505 with A", "D")
        assert ei.value.rule == "9.7(4)"
