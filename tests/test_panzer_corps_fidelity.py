"""Issue 17, the Panzer Corps family: the rules as printed where pbem had drifted.

- 7.1: the stacking limit applies at the end of the movement phase, not at the end
  of each move (swaps, passing through, ending on a friend that moves on);
- data, not code: every per-scenario value (hexes, points, slots, capacities) is
  read from the scenario file, and the lint reports a [victory] or [game_data]
  key the code does not read;
- 9.1(5) (Khar'kov and Compass 9.1(6)): the attacker resolves the declared
  combats in any order (``resolve HEX``); declaration order stays the default.

Small maps: ``make_game`` (El Alamein) and ``pz_game`` (the sister games; test CRT
1 DE, 2 DR1, 3 DR2, 4 AR, 5 AE, 6 C in Dunkerque, EX in Khar'kov and Compass).
"""
from __future__ import annotations


import ast
import re
from pathlib import Path

import pytest

from conftest import AXIS_COMBAT, U, one, only, pz_units
from pbem.core.scenario import SCENARIO_DIR as SCENARIOS
from pbem.core.scenario import ScenarioError, load, loads
from pbem.games import ruleset_for
from pbem.games.panzer_corps import events as E

FAMILY = Path(__file__).resolve().parent.parent / "pbem" / "games" / "panzer_corps"
GAMES = ["el-alamein", "dunkerque", "kharkov", "operation-compass"]
MODULES = {"el-alamein": "el_alamein", "dunkerque": "dunkerque", "kharkov": "kharkov",
           "operation-compass": "operation_compass"}
GER, ALL = pz_units("german"), pz_units("allied", "french")
SOV = pz_units("soviet")
BRI, ITA = pz_units("british"), pz_units("italian")
# Each sister game's moving side, its combat phase and its two sides' unit makers.
SISTERS = {"dunkerque": ("german", 0, 1, GER, ALL), "kharkov": ("soviet", 1, 2, SOV, GER),
           "operation-compass": ("british", 0, 1, BRI, ITA)}


# ============================================================================
# 7.1 stacking at the end of the movement phase, in every game
# ============================================================================

def _swap_game(game, make_game, pz_game):
    """Two hexes next to each other, each as full as 7.0 allows; A and B start in them."""
    if game == "el-alamein":
        return "axis", make_game([U("A", "axis", 4, 6, "0303"), U("B", "axis", 4, 6, "0403"),
                                  U("Z", "british", 4, 4, "0808")])
    side, _move, _combat, mine, theirs = SISTERS[game]
    units = [mine("A", 2, 4, "0303"), mine("B", 2, 4, "0403"), theirs("Z", 2, 4, "0808")]
    if ruleset_for(game).p.stacking[side] == 2:
        units += [mine("A2", 2, 4, "0303"), mine("B2", 2, 4, "0403")]
    t = pz_game(game, units)
    t.goto(1, SISTERS[game][1])
    return side, t


@pytest.mark.parametrize("game", GAMES)
def test_7_1_two_units_swap_hexes_in_every_game(game, make_game, pz_game):
    # 7.1: the limit (7.0: one unit a hex in El Alamein and Dunkerque, two for these sides in
    # Khar'kov and Compass) counts at the end of the movement phase: A and B trade full hexes.
    side, t = _swap_game(game, make_game, pz_game)
    t.ok(side, "move A 0403\nmove B 0303")
    evs = t.ok(side, "end")
    assert not only(evs, E.DecisionRequired) and not only(evs, E.UnitEliminated)
    assert (t.hex_of("A"), t.hex_of("B")) == ("0403", "0303")
    assert t.state().phase == (AXIS_COMBAT if game == "el-alamein" else SISTERS[game][2])


@pytest.mark.parametrize("game", GAMES)
def test_7_1_over_the_limit_at_the_end_refused_or_removed_as_7_3_says(game, make_game, pz_game):
    # 7.1 at the end of the phase: El Alamein and Dunkerque have no 7.3, so end is refused while a
    # unit can still be moved out; Khar'kov and Compass remove the excess (7.3), the owner choosing.
    side, t = _swap_game(game, make_game, pz_game)
    t.ok(side, "move A 0403")
    if ruleset_for(game).p.stack_removal:
        d = one(t.ok(side, "end"), E.DecisionRequired)
        assert (d.decision, d.rule, d.distance) == ("stack-loss", "7.3", 1)
    else:
        err = t.refuse(side, "end", rule="7.1", match="0403 holds A, B")
        assert "one unit a hex (7.0)" in err.message and "move B " in err.message


def test_7_1_dunkerque_reinforcements_still_observe_the_limit_when_placed(pz_game):
    # 10.0(4): the limit applies to a reinforcement when it is placed, not at the end of the phase.
    r = [f"R{i}" for i in range(1, 8)]
    t = pz_game("dunkerque", [GER("G", 4, 4, "0101"), ALL("A", 2, 4, "0508")] + [ALL(u, 2, 4, entry_turn=0) for u in r],
                game_data={"hidden_reinforcements": r, "hidden_slots": [2, 3, 3, 4, 4, 5, 5]}, dice=[1] * 6)
    t.goto(2, 2)
    t.refuse("allied", "enter 0508", rule="10.0(4)", match="full")


# ============================================================================
# Per-scenario values come from the scenario file
# ============================================================================

def _code_strings(path: Path) -> list[str]:
    """Every string constant of a module's code (docstrings left out)."""
    tree = ast.parse(path.read_text())
    docs = {id(n.body[0].value) for n in ast.walk(tree)
            if isinstance(n, (ast.Module, ast.ClassDef, ast.FunctionDef)) and n.body
            and isinstance(n.body[0], ast.Expr) and isinstance(n.body[0].value, ast.Constant)}
    return [n.value for n in ast.walk(tree)
            if isinstance(n, ast.Constant) and isinstance(n.value, str) and id(n) not in docs]


def test_no_hex_number_is_written_in_the_family_code():
    # Hexes are map data: every hex the rules name (objectives, sudden death, footholds, supply,
    # entry areas, Leuven) is in the scenario file, never in the code.
    found = [f"{p.name}: {s!r}" for p in sorted(FAMILY.glob("*.py")) for s in _code_strings(p)
             if re.fullmatch(r"\d{4}", s)]
    assert not found, found


def _code_names(path) -> set[str]:
    """Attribute names and string constants of a module's code (what it may read a key by)."""
    tree = ast.parse(path.read_text())
    return {n.attr for n in ast.walk(tree) if isinstance(n, ast.Attribute)} | set(_code_strings(path))


@pytest.mark.parametrize("game", GAMES)
def test_the_code_reads_every_key_the_schema_declares(game):
    # The schema is the one declaration of the [victory] and [game_data] keys (each required
    # there): a key it holds that the game's module never names would be data that does nothing.
    victory, data = ruleset_for(game).scenario_schema
    fields = (set(victory.__struct_fields__) | set(data.__struct_fields__)) - {"reconstructed"}
    assert fields <= _code_names(FAMILY / f"{MODULES[game]}.py")
    sc = load(game)
    assert type(ruleset_for(game).vic(sc)) is victory and type(ruleset_for(game).data(sc)) is data


def test_a_missing_or_unknown_victory_key_is_refused_at_load():
    # issue 25 item 5: a Khar'kov file without a key its rules read played with 0 VP for it;
    # a key no rule reads did nothing.  Both are refused with their key path.
    text = (SCENARIOS / "kharkov.toml").read_text()
    short = text.replace("charge_vp = 1 ", "", 1)
    with pytest.raises(ScenarioError) as e:
        loads(short.encode())
    assert ("victory.charge_vp", "missing") in e.value.problems
    stray = text.replace("[victory]\n", "[victory]\nstray = 1\n", 1)
    with pytest.raises(ScenarioError) as e:
        loads(stray.encode())
    assert e.value.problems[0][0] == "victory.stray" and "unknown key" in e.value.problems[0][1]


def test_shipped_scenarios_hold_the_printed_values():
    # The values the rulebook prints, now in the scenario files.
    kh = load("kharkov").victory
    assert kh["sudden_death"] == ["0634", "1732"]                                  # 4.5
    assert (kh["city_vp"], kh["charge_vp"], kh["elimination_vp"], kh["tank_elimination_vp"]) == (2, 1, 1, 2)
    assert kh["railroad_vp"] == {"railroad": 2, "railroad_branch": 1} and kh["tie_winner"] == "draw"   # 4.4, 4.0
    dk = load("dunkerque")
    assert dk.game_data["hidden_slots"] == [2, 3, 3, 4, 4, 5, 5]                  # 3.0(4)
    assert (dk.victory["german_points_needed"], dk.victory["points_per_allied_cs"],
            dk.victory["points_per_german_cs"], dk.victory["port_capacity"]) == (35, 1, -2, 5)   # 4.0, 4.2(2)
    assert dk.victory["ports"] == ["Boulogne", "Calais", "Dunkerque", "Ostende", "Antwerpen"]   # 4.2(1)
    assert dk.board.places["0607"] == "Leuven" and dk.board.terrain["0607"] == "city"           # errata
    oc = load("operation-compass")
    assert oc.game_data["footholds"] == {"1702": 1, "0904": 1, "0107": 2, "0115": 2}         # 4.1(1)
    assert oc.game_data["bombardment"] == [3, 3, 3, 4, 4, 4] and oc.game_data["bombardment_reach"] == 2   # 3.1
    assert (oc.victory["british_losses_per_vp"], oc.victory["tie_winner"]) == (2, "italian")  # 4.2, 4.0


def test_4_5_kharkov_sudden_death_hexes_come_from_the_scenario(pz_game):
    # 4.5: the hexes are the scenario's victory.sudden_death; another city does not end the game.
    rows = ["." * 8] * 8
    rows[4] = "....C..."                                                           # 0505
    rows[5] = ".....C.."                                                           # 0606
    t = pz_game("kharkov", [SOV("S", 2, 4, "0404"), SOV("T", 2, 4, "0607"), GER("G", 2, 4, "0101")], rows=rows,
                victory={"sudden_death": ["0505"]})
    t.ok("soviet", "move T 0606")
    assert t.state().result is None and t.state().control["0606"] == "soviet"
    end = one(t.ok("soviet", "move S 0505"), E.GameEnded)
    assert (end.winner, end.rule) == ("soviet", "4.5")
    t2 = pz_game("kharkov", [SOV("S", 2, 4, "0404"), GER("G", 2, 4, "0101")], rows=rows, name="none")
    t2.ok("soviet", "move S 0505")
    assert t2.state().result is None                                               # no victory.sudden_death


# ============================================================================
# 9.1(5) / 9.1(6): the attacker resolves the declared combats in any order
# ============================================================================

def _three_attacks(pz_game, game="dunkerque", dice=(6, 6, 6)):
    """Three attacks declared, on 0205, 0405 and 0605 (declaration order); the test CRT's 6 is
    a C in Dunkerque (nothing happens), an EX in Khar'kov (``ex`` names the attacker's loss)."""
    side, _move, combat, mine, theirs = SISTERS[game]
    units = [mine(f"A{i}", 4, 4, f"0{2 * i}04") for i in (1, 2, 3)] + \
            [theirs(f"D{i}", 4, 4, f"0{2 * i}05") for i in (1, 2, 3)] + [theirs("X", 2, 4, "0808")]
    t = pz_game(game, units, dice=list(dice))
    t.goto(1, combat)
    t.ok(side, "\n".join(f"attack 0{2 * i}05 with A{i} no-advance" for i in (1, 2, 3)))
    return side, t


def test_9_1_5_default_is_declaration_order(pz_game):
    # 9.1(5) as pbem reads it: end closes the declarations and resolves them in the order declared.
    side, t = _three_attacks(pz_game)
    evs = t.ok(side, "end")
    assert [c.target for c in only(evs, E.CombatResolved)] == ["0205", "0405", "0605"]
    assert not only(evs, E.CombatChosen)
    assert t.phase() == (1, 2)


def test_9_1_5_the_attacker_names_each_combat_after_seeing_the_last(pz_game):
    # 9.1(5): "resolve HEX" closes the declarations and resolves that combat only; the game then
    # waits for the attacker's next choice, and ends the phase after the last one (9.2).
    side, t = _three_attacks(pz_game, dice=[1, 6, 6])
    t.refuse(side, "resolve 0707", rule="9.1(5)", match="no attack on 0707")
    evs = t.ok(side, "resolve 0605")
    assert one(evs, E.DeclarationsClosed).count == 3
    assert one(evs, E.CombatChosen) == E.CombatChosen(index=2, target="0605")
    c = one(evs, E.CombatResolved)
    assert (c.target, c.result) == ("0605", "DE") and t.unit("D3").eliminated
    [item] = t.awaiting()
    assert (item["side"], item["kind"], item["rule"]) == (side, "combat-order", "9.1(5)")
    assert item["options"] == ["0205: A1", "0405: A2"]
    assert t.game.rules.default_orders(t.state(), t.game.scenario, side) == ["end"]
    t.refuse(side, "attack 0808 with A3", rule="9.1(5)", match="already declared")    # nothing added later
    t.refuse(side, "resolve 0605", rule="9.1(5)", match="already resolved")
    assert one(t.ok(side, "resolve 0405"), E.CombatResolved).target == "0405"
    evs = t.ok(side, "resolve 0205")
    assert one(evs, E.CombatResolved).target == "0205"
    assert only(evs, E.PhaseStarted)[0].name == "movement" and t.phase() == (1, 2)   # all resolved: the phase ends
    assert t.game.verify().ok


def test_9_1_5_end_after_a_choice_resolves_the_rest_in_declaration_order(pz_game):
    side, t = _three_attacks(pz_game)
    t.ok(side, "resolve 0405")
    evs = t.ok(side, "end")
    assert [c.target for c in only(evs, E.CombatResolved)] == ["0205", "0605"]
    assert one(evs, E.CombatChosen) == E.CombatChosen(index=0, target="0205", in_order=True)
    text = t.game.rules.describe_event(one(evs, E.CombatChosen), t.game.scenario)
    assert "declaration order" in text and "9.1(5)" in text
    assert t.phase() == (1, 2)


def test_9_1_5_a_decision_in_a_chosen_combat_then_the_next_choice(pz_game):
    # The chosen combat's own decisions come first (a retreat the attacker picks, 9.5(1)); then
    # the game waits for the next combat to be named, not for the next in declaration order.
    side, t = _three_attacks(pz_game, dice=[2, 6, 6])
    evs = t.ok(side, "resolve 0405")
    d = one(evs, E.DecisionRequired)
    assert (d.decision, d.units) == ("retreat", ["D2"])
    t.ok(side, f"retreat D2 {d.options[0][0]}")
    assert t.awaiting()[0]["kind"] == "combat-order"
    assert [c.target for c in t.game.state().attacks if c.stage == "declared"] == ["0205", "0605"]


def test_9_1_6_kharkov_numbers_the_rule_9_1_6_and_resolve_belongs_to_combat(pz_game):
    side, t = _three_attacks(pz_game, "kharkov", dice=[6, 6, 6])
    t.refuse(side, "resolve 0405 0605", rule="9.1(6)", match="resolve HEX")
    evs = t.ok(side, "resolve 0605")
    assert one(evs, E.CombatResolved).result == "EX"
    assert t.awaiting()[0]["rule"] == "9.1(6)"
    m = pz_game("kharkov", [SOV("S", 2, 4, "0404"), GER("G", 2, 4, "0808")], name="move")
    m.refuse("soviet", "resolve 0405", rule="9.1(6)", match="combat phase")


def test_9_1_5_el_alamein_order_of_resolution(make_game):
    # El Alamein 9.1(5): the same order in the first game of the family.
    t = make_game([U("A", "axis", 4, 6, "0303"), U("B", "axis", 4, 6, "0503"), U("X", "british", 1, 4, "0304"),
                   U("Y", "british", 1, 4, "0504")], dice=[1, 1])
    t.goto(1, AXIS_COMBAT)
    t.ok("axis", "attack 0304 with A no-advance\nattack 0504 with B no-advance")
    assert one(t.ok("axis", "resolve 0504"), E.CombatResolved).target == "0504"
    assert one(t.ok("axis", "resolve 0304"), E.CombatResolved).target == "0304"
    assert t.game.verify().ok
