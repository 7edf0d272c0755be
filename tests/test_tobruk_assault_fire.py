"""Advanced Tobruk: personnel assault fire during their own move (15.52, 15.53, 8.223),
Continued Fire markers (15.93) and squads firing medium or heavy weapons (9.32), on the
perimeter test map (perimeter_kit.py).  Each test names its rule and scripts its dice."""
from __future__ import annotations

import pytest

from pbem.core.orders import GameVerb, OrderError
from pbem.games.advanced_tobruk.artillery import artillery
from pbem.games.advanced_tobruk.fire import continued_fire, eligible, fire_personnel, morale
from pbem.games.advanced_tobruk.fire_events import CasualtyAttack, MoraleChecked
from pbem.games.advanced_tobruk.perimeter_events import ContinuedFireCheck, ContinuedFireCleared, ContinuedFirePlaced

from perimeter_kit import U, evs, pmake, pworld
from tobruk_kit import DIRECT, MOVEMENT

PAD = [5] * 12
GPAD = [1, 2] * 10                  # a game's later first-fire rolls: never a tie (5.031)


def fire(ctx, text: str) -> None:
    fire_personnel.handle_fire(ctx, GameVerb(word="fire", args=text.split()))


def at_movement(tmp_path, units, dice=(), name="g", flags=None):
    """British first in the Direct Fire Phase and the Movement Segment (first rolls 1 v 2); both
    pass the fire; the Germans hold their opportunity fire (standing hold)."""
    t = pmake(tmp_path, units, dice=(1, 2, 1, 2, *dice, *GPAD), name=name, flags=flags, setup=False)
    t.ok("british", "pass")
    t.ok("german", "standing hold")
    t.ok("german", "pass")
    assert t.phase() == (1, DIRECT)
    t.ok("british", "pass")
    t.ok("german", "pass")
    assert t.phase() == (1, MOVEMENT) and t.state().step.to_act == "british"
    return t


SQUADS = [U("A", "british", "aus-squad", "0502"), U("G", "german", "ger-squad", "0507")]


# --- 15.52, 15.53 assault fire ----------------------------------------------------------------

def test_15_52_a_squad_moving_by_assault_movement_fires_half_its_gunfire_on_the_way(tmp_path):
    t = at_movement(tmp_path, SQUADS, dice=[10])
    out = t.ok("british", "assault A 0503 fire G 0504")
    (a,) = evs(out, CasualtyAttack)
    assert (a.firers, a.factors, a.by, a.rule) == (["A"], 3, "assault", "15.52")
    assert "A 6 halved = 3 (assault fire, 15.52)" in a.parts
    assert t.hex_of("A") == "0504" and t.state().pieces["A"].fired


def test_15_52_a_platoon_with_its_leader_fires_as_a_led_firegroup_before_moving(tmp_path):
    units = [*SQUADS, U("L", "british", "aus-leader", "0502")]
    t = at_movement(tmp_path, units, dice=[10])
    out = t.ok("british", "assault A+L fire G 0503")
    (a,) = evs(out, CasualtyAttack)
    assert a.factors == 1 and "led by L +1" in a.shifts                        # range 5: 3 halved again, 2.82


def test_15_53_running_units_may_not_fire_in_the_movement_segment(tmp_path):
    t = at_movement(tmp_path, SQUADS)
    t.refuse("british", "run A 0503 fire G", rule="15.53")
    ctx = pworld([U("A", "british", "aus-squad", "0502"), U("G", "german", "ger-squad", "0504")])
    ctx.state.pieces["A"].fired = True
    ctx.state.pieces["G"].moving = True
    assert eligible.desperation_firers(ctx.state, ctx.sc, "G") == ["A"]
    ctx.state.pieces["A"].move = "run"                                        # 15.53: no desperation fire either
    assert eligible.desperation_firers(ctx.state, ctx.sc, "G") == []


def test_15_52_a_unit_that_fired_this_turn_has_no_assault_fire_and_one_a_move(tmp_path):
    t = at_movement(tmp_path, SQUADS)
    t.refuse("british", "assault A fire G 0503 fire G", rule="15.52")
    t.refuse("british", "assault A 0503 fire 0601", rule="15.03", match="no enemy personnel")


def test_8_223_a_carried_medium_weapon_does_not_assault_fire(tmp_path):
    units = [*SQUADS, U("V", "british", "mg303", "0502", holder="A")]
    t = at_movement(tmp_path, units, dice=[10])
    out = t.ok("british", "assault A 0503 fire G")
    (a,) = evs(out, CasualtyAttack)
    assert a.firers == ["A"] and a.factors == 2                               # (6 - 2) halved (8.431, 8.223)


# --- 15.93 Continued Fire ----------------------------------------------------------------------

def test_15_931_six_factors_leave_a_continued_fire_marker_five_do_not():
    ctx = pworld([U("A", "british", "aus-squad", "0502"), U("G", "german", "ger-squad", "0504")], [10], side="british")
    fire(ctx, "A at 0504")
    (m,) = evs(ctx, ContinuedFirePlaced)
    assert (m.hex, m.factors) == ("0504", 6) and ctx.state.cfire == ["0504"]
    ctx = pworld([U("A", "british", "aus-squad", "0502"), U("G", "german", "ger-squad", "0504")], [10])
    fire(ctx, "G at 0502")
    assert not evs(ctx, ContinuedFirePlaced)


def test_15_931_no_marker_without_the_cards_rule():
    ctx = pworld([U("A", "british", "aus-squad", "0502"), U("G", "german", "ger-squad", "0504")], [10], side="british",
                 flags={"continued_fire": False})
    fire(ctx, "A at 0504")
    assert not evs(ctx, ContinuedFirePlaced) and ctx.state.cfire == []


@pytest.mark.parametrize("ffe, marked", [("concentration", False), ("", True)])
def test_15_931_an_ffe_leaves_no_marker_a_mortar_does(ffe, marked):
    ctx = pworld([U("A", "british", "aus-squad", "0505")], [10, 10, *PAD])
    artillery.attack_hex(ctx, "M", "0505", 14, 1, 1, size=81, mortar=not ffe, ffe=ffe)
    assert bool(evs(ctx, ContinuedFirePlaced)) is marked


def test_15_932_a_unit_entering_a_marked_hex_fails_its_check_and_loses_steps_as_it_failed_by():
    ctx = pworld([U("A", "british", "aus-squad", "0505")], [9], side="british")
    ctx.state.cfire = ["0505"]
    _, alt, _ = morale.altered(ctx.state, ctx.sc, "A")
    continued_fire.on_enter(ctx, ["A"], "0505")
    (mc,) = evs(ctx, MoraleChecked)
    (cf,) = evs(ctx, ContinuedFireCheck)
    assert (mc.result, mc.rule) == ("broken", "15.932") and cf.failed_by == 9 - alt
    assert cf.losses == [["A", str(9 - alt), ""]] and ctx.state.pieces["A"].steps == 9 - alt


def test_15_932_passing_the_check_costs_nothing():
    ctx = pworld([U("A", "british", "aus-squad", "0505")], [3], side="british")
    ctx.state.cfire = ["0505"]
    continued_fire.on_enter(ctx, ["A"], "0505")
    assert evs(ctx, MoraleChecked)[0].result == "passed" and not evs(ctx, ContinuedFireCheck)


def test_15_93_a_move_into_a_marked_hex_checks_and_the_markers_go_at_the_end_of_the_turn(tmp_path):
    # direct fire: A1 and A2 (12 factors) at G in 0505 (a 10: no effect) mark it; in the Movement
    # Segment the German G2 crawls into it and checks morale (9: fails); the marker goes at the end
    units = [U("A1", "british", "aus-squad", "0502"), U("A2", "british", "aus-squad", "0502"),
             U("G", "german", "ger-squad", "0505"), U("G2", "german", "ger-squad", "0605")]
    t = pmake(tmp_path, units, dice=(1, 2, 10, 2, 1, 9, *GPAD), setup=False)
    t.ok("british", "standing hold")
    t.ok("british", "pass")
    t.ok("german", "pass")
    out = t.ok("british", "fire A1+A2 at 0505")
    assert evs(out, ContinuedFirePlaced)[0].hex == "0505"
    t.ok("german", "pass")
    assert t.phase() == (1, MOVEMENT) and t.state().step.to_act == "german"
    out = t.ok("german", "crawl G2 0505")
    assert evs(out, MoraleChecked)[0].why == "continued fire"
    while t.phase()[0] == 1:
        out = t.ok(t.awaiting()[0]["side"], "pass")
    assert evs(out, ContinuedFireCleared)[0].hexes == ["0505"] and t.state().cfire == []


# --- 9.32 squads firing medium and heavy weapons ------------------------------------------------

def mmg(*more, dice=(10,)):
    return pworld([U("A", "british", "aus-squad", "0502"), U("V", "british", "mg303", "0502", holder="A"),
                   U("G", "german", "ger-squad", "0506"), *more], [*dice, *PAD], side="british")


def test_9_32_a_squad_fires_a_medium_machine_gun_only_with_a_leader_in_its_hex():
    ctx = mmg()
    with pytest.raises(OrderError, match="only with an unbroken leader") as e:
        fire(ctx, "A+V at 0506")
    assert e.value.rule == "9.32" and ctx.events == []
    ctx = mmg(U("L", "british", "aus-leader", "0502"))
    fire(ctx, "A+V at 0506")
    assert evs(ctx, CasualtyAttack)[0].firers == ["A", "V"]


def test_9_32_an_fo_is_no_such_leader_and_a_broken_leader_neither():
    with pytest.raises(OrderError, match="9.32"):
        fire(mmg(U("F", "british", "brit-fo", "0502")), "A+V at 0506")
    ctx = mmg(U("L", "british", "aus-leader", "0502"))
    ctx.state.pieces["L"].broken = True
    with pytest.raises(OrderError, match="9.32"):
        fire(ctx, "A+V at 0506")


def test_9_32_the_squad_fires_it_as_a_depleted_crew_rof_one():
    ctx = mmg(U("L", "british", "aus-leader", "0502"), dice=(10, 10))
    with pytest.raises(OrderError, match="no ROF left") as e:
        fire(ctx, "A+V at 0506 at 0506")
    assert e.value.rule == "13.331"
    ctx = pworld([U("C", "british", "brit-crew", "0502"), U("V", "british", "mg303", "0502", holder="C"),
                  U("G", "german", "ger-squad", "0506")], [10, 10, *PAD], side="british")
    fire(ctx, "V at 0506 at 0506")                                   # its own crew: ROF 2
    assert len(evs(ctx, CasualtyAttack)) == 2
