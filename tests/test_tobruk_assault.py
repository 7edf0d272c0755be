"""Advanced Tobruk: melee (22) and close assault on vehicles (23), with scripted dice."""
from __future__ import annotations

import pytest

from pbem.core.orders import GameVerb, OrderError
from pbem.games.advanced_tobruk.fire import melee
from pbem.games.advanced_tobruk.tables import fire_ap_tables as T
from pbem.games.advanced_tobruk.fire_events import CasualtyAttack, CloseAssaulted, MeleeEnded, MeleeRound
from pbem.games.advanced_tobruk.fire.fire_words import describe

from tobruk_fire_helpers import U, events, world


def test_melee_odds_round_in_the_defenders_favour():
    # 22.61, 22.72
    assert [melee.odds(a, d) for a, d in ((5, 3), (7, 3), (6, 6), (3, 6), (12, 3))] == \
        ["3-2", "2-1", "1-1", "1-2", "4-1"]
    assert melee.odds(2, 5) == "under" and melee.odds(13, 3) == "over"


def test_melee_table_has_the_ac1_dc2_example_and_always_costs_someone():
    # 22.71 example 'AC1 | DC2'; every result costs a step, so melee ends
    assert (1, 2) in T.MELEE["1-1"]
    assert all(a + d > 0 for col in T.MELEE.values() for a, d in col)


def meleeing(dice, defender="de-squad6"):
    ctx = world([U("A", "british", "aus-squad", "0505"), U("D", "german", defender, "0505")], dice)
    st = ctx.state
    st.melees, st.melee_attacker = ["0505"], {"0505": "british"}
    st.pieces["A"].melee = st.pieces["A"].attacker = st.pieces["D"].melee = True
    return ctx


def test_melee_rounds_until_one_side_is_gone():
    # morale: attacker 7-1 roll 3, defender 8-1 roll 3; round 1 at 1-1 roll 2: AC1 | DC2;
    # round 2 at 5 against 3 = 3-2, roll 1: DC2 more: the defender is gone
    ctx = meleeing([3, 3, 2, 1])
    melee.resolve_melees(ctx)
    r1, r2 = events(ctx, MeleeRound)
    assert (r1.odds, r1.attacker_steps, r1.defender_steps) == ("1-1", 1, 2)
    assert (r2.attack, r2.defence, r2.odds) == (5, 3, "3-2")
    (end,) = events(ctx, MeleeEnded)
    st = ctx.state
    assert end.winner == "british" and st.units["D"].eliminated and st.pieces["A"].steps == 1
    assert st.melees == [] and not st.pieces["A"].melee
    assert "AC1 | DC2" in describe(r1, ctx.sc)


def test_attackers_all_broken_are_eliminated_and_defenders_do_not_check():
    # 22.54
    ctx = meleeing([10, 3])
    melee.resolve_melees(ctx)
    (end,) = events(ctx, MeleeEnded)
    assert end.winner == "german" and end.eliminated == ["A"] and ctx.state.units["A"].eliminated


def test_a_defender_that_breaks_is_removed():
    # 22.53
    ctx = meleeing([1, 10, 5])
    melee.resolve_melees(ctx)
    assert ctx.state.units["D"].eliminated and events(ctx, MeleeEnded)[0].winner == "british"


def test_odds_over_4_to_1_the_weaker_side_surrenders():
    # 22.72 with 12.232: the weaker unit surrenders rather than being eliminated
    ctx = meleeing([2, 2], defender="ger-leader")
    melee.resolve_melees(ctx)
    (r,) = events(ctx, MeleeRound)
    assert r.odds == "over 4-1" and r.rolls == [] and ctx.state.pieces["D"].surrendered


def assaulting(dice, vehicle="pz3g"):
    ctx = world([U("A", "british", "aus-squad", "0505"), U("AL", "british", "aus-leader", "0505"),
                 U("P", "german", vehicle, "0505", facing="NNE")], dice, side="british")
    melee.handle_assault(ctx, GameVerb(word="close-assault", args=["A+AL", "at", "P"]))
    return ctx


def test_close_assault_on_an_afv_after_its_final_fire():
    # 23.11 final fire: coax 5 + bow 6 at STATIONARY (roll 10: nothing); 23.21 morale 7+2-1 (roll 4);
    # 23.32 number: close assault value 3, squad+leader tally 4 (+1), morale 7 (+1) = 5;
    # 23.33 roll 2 < 5: K-KILL, and 2 is half of 5 (rounded down): burning
    ctx = assaulting([10, 4, 2])
    assert ctx.state.assaults == {"A": "P"}
    melee.resolve_melees(ctx)
    (ff,) = events(ctx, CasualtyAttack)
    assert ff.factors == 11 and ff.by == "final fire"
    (ca,) = events(ctx, CloseAssaulted)
    assert (ca.value, ca.result, ca.leader) == (5, "K-KILL, burning wreck", "AL")
    assert ctx.state.pieces["P"].wreck == "burning" and ctx.state.assaults == {}


def test_close_assault_roll_equal_is_an_m_kill():
    ctx = assaulting([10, 4, 5])
    melee.resolve_melees(ctx)
    assert events(ctx, CloseAssaulted)[0].result == "M-KILL" and ctx.state.pieces["P"].m_kill


def test_unarmed_truck_is_captured():
    # 23.361
    ctx = assaulting([], vehicle="truck")
    melee.resolve_melees(ctx)
    assert events(ctx, CloseAssaulted)[0].result == "captured" and ctx.state.units["P"].side == "british"


def test_close_assault_needs_the_same_hex():
    ctx = world([U("A", "british", "aus-squad", "0504"), U("P", "german", "pz3g", "0505")], side="british")
    with pytest.raises(OrderError, match="hex"):
        melee.handle_assault(ctx, GameVerb(word="close-assault", args=["A", "at", "P"]))


# --- overrun (21) ------------------------------------------------------------------------

def overrunning(units, dice):
    ctx = world([U("P", "german", "pz3g", "0505", facing="NNE"), *units], dice)
    p = ctx.state.pieces["P"]
    p.move, p.moving = "assault", True
    return ctx


def test_overrun_costs_four_morale_and_a_failure_surrenders():
    # 21.12, 21.14, 12.232: morale 7 - 4 (replacing the AFV's -1) = 3; roll 5 fails: surrendered
    from pbem.games.advanced_tobruk.fire_events import MoraleChecked, Overrun
    ctx = overrunning([U("A", "british", "aus-squad", "0505")], [5])
    melee.overrun(ctx, "P", "A", "0506")
    (ov,) = events(ctx, Overrun)
    assert ov.morale_loss == 4 and ctx.state.pieces["A"].overrun == 4
    (mc,) = events(ctx, MoraleChecked)
    assert mc.altered == 3 and mc.result == "surrendered" and "overrun -4" in mc.mods


def test_final_defensive_fire_can_stop_the_overrun():
    # 21.21-21.23: the 2-pounder facing the AFV's entry fires once at one hex: HPN 12, moving +2;
    # hit 3, UH 4 front 9 against 12 (+3): K-KILL roll 2 < 6
    from pbem.games.advanced_tobruk.fire_events import GunFired, Overrun
    ctx = overrunning([U("Gun1", "british", "2pdr-gun", "0505", holder="C1", facing="SSE"),
                       U("C1", "british", "brit-crew", "0505")], [3, 4, 2])
    melee.overrun(ctx, "P", "C1", "0506")
    (g,) = events(ctx, GunFired)
    assert (g.by, g.range, g.need) == ("final defence", 1, 10)
    assert events(ctx, Overrun)[0].result.startswith("stopped") and ctx.state.units["P"].eliminated


def test_overrun_f_kills_the_gun_and_may_break_a_track():
    # 21.21: the gun faces away from the AFV's entry: no final fire; 21.15, 21.41: the gun is
    # F-KILLed, track roll 1: M-KILL; the crew checks at 8 - 4 = 4 and passes on 2
    from pbem.games.advanced_tobruk.fire_events import GunFired, Overrun
    ctx = overrunning([U("Gun1", "british", "2pdr-gun", "0505", holder="C1", facing="NNE"),
                       U("C1", "british", "brit-crew", "0505")], [1, 2])
    melee.overrun(ctx, "P", "C1", "0506")
    (ov,) = events(ctx, Overrun)
    assert ov.rolls == [1] and ctx.state.pieces["Gun1"].f_kill == ["main"] and ctx.state.pieces["P"].m_kill
    assert not ctx.state.pieces["C1"].surrendered and not events(ctx, GunFired)


def test_only_assault_movement_overruns():
    ctx = world([U("P", "german", "pz3g", "0505"), U("A", "british", "aus-squad", "0505")])
    with pytest.raises(OrderError, match="assault movement"):
        melee.overrun(ctx, "P", "A", "0506")


def test_a_half_squad_melees_with_its_reduced_factors():
    # 15.82 steps: the half-squad side's factors (reduced gunfire when the card gives no reduced melee)
    ctx = world([U("A", "british", "aus-squad", "0505")])
    p = ctx.state.pieces["A"]
    assert melee.melee_value(ctx.state, ctx.sc, "A") == 6
    p.steps = 1
    assert melee.melee_value(ctx.state, ctx.sc, "A") == 5
    p.steps = 2
    assert melee.melee_value(ctx.state, ctx.sc, "A") == 3
