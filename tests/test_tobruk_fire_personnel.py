"""Advanced Tobruk: fire on the Casualty Table (14-17, 22.12): firegroups, machine-guns,
vehicle machine-guns after pivots, semi-automatic guns, desperation fire, grenades
and cover states, with the rulebook's worked examples and scripted dice."""
from __future__ import annotations

import pytest

from pbem.core.orders import GameVerb, OrderError
from pbem.games.advanced_tobruk.fire import casualty, eligible, fire_personnel
from pbem.games.advanced_tobruk.tables import fire_ap_tables as T
from pbem.games.advanced_tobruk.fire_events import CasualtyAttack, GunFired, MoraleChecked
from pbem.games.advanced_tobruk.fire.fire_words import describe

from tobruk_fire_helpers import U, events, world


def fire(ctx, text: str) -> None:
    fire_personnel.handle_fire(ctx, GameVerb(word="fire", args=text.split()))


def test_casualty_columns_from_the_text():
    # 13.12 example: 6 factors with a leader's shift = the '8' column; 15.711 example: a '32' column;
    # 16.01: 75 mm HE = 14 FRAG; 19.22: half of a 76 mm mortar's 14 FRAG uses the '4' vehicle column
    assert T.casualty_column(6, 1) == 8
    assert T.casualty_column(32) == 32
    assert T.he_frag(75) == 14 and T.he_frag(76) == 14
    assert T.nonafv_column(T.he_frag(76) // 2) == "4"
    assert T.casualty_column(3, -3) is None                       # shifted off the table: no effect


def test_fiat_mmg_firegroup_example():
    # 13.12 example: the crew operating the Fiat MMG adds nothing (9.16), the leader adds no factor
    # but a column right (15.43): the '8' column, twice (ROF 2), never one 12-factor attack
    ctx = world([U("IC", "german", "it-crew", "0505"), U("IL", "german", "it-leader", "0505"),
                 U("FIAT", "german", "fiat-mmg", "0505", holder="IC"), U("A", "british", "aus-squad", "0502")],
                [10, 10])
    fire(ctx, "FIAT+IC+IL at 0502 at 0502")
    a, b = events(ctx, CasualtyAttack)
    assert (a.factors, a.column, b.factors, b.column) == (6, 8, 6, 8)
    assert any("operates" in p for p in a.parts) and "led by IL +1" in a.shifts
    assert all(ctx.state.pieces[u].fired for u in ("FIAT", "IC", "IL"))
    assert "column 8, roll 10: no effect" in describe(a, ctx.sc)


def test_mmg_has_no_third_attack():
    ctx = world([U("IC", "german", "it-crew", "0505"), U("FIAT", "german", "fiat-mmg", "0505", holder="IC"),
                 U("A", "british", "aus-squad", "0502")], [10, 10])
    with pytest.raises(OrderError, match="ROF"):
        fire(ctx, "FIAT+IC at 0502 at 0502 at 0502")


def axis_firegroup(leader: bool = True):
    units = [U("S15", "german", "de-squad6", "0505"), U("S1", "german", "it-squad", "0505"),
             U("S10", "german", "de-squad6", "0505"), U("ATRC", "german", "pzb39", "0505", holder="S10"),
             U("S9", "german", "de-squad6", "0506"), U("MGB", "german", "mg34", "0506", holder="S9"),
             U("SDB", "german", "sd250", "0506"), U("A", "british", "aus-squad", "0502")]
    if leader:
        units.append(U("L7", "german", "ger-leader", "0505"))
    return world(units, [10])


def test_axis_firegroup_example_32_factors():
    # 15.711 example: 6 + 5 + (6-1) + ATR 1 + (6-1) + MG 34 5 + Sd 250 5 = 32; the German leader
    # lets the Italians join and shifts one column right
    ctx = axis_firegroup()
    fire(ctx, "L7+S15+S1+S10+ATRC+S9+MGB+SDB at A")
    (a,) = events(ctx, CasualtyAttack)
    assert a.factors == 32 and a.column == 36


def test_german_and_italian_need_a_german_leader():
    ctx = axis_firegroup(leader=False)
    with pytest.raises(OrderError, match="German leader"):
        fire(ctx, "S15+S1 at A")


def test_long_range_halves_after_the_weapon_deduction():
    # 15.711 example: squad 10 at six hexes fires (6 - 1) / 2 = 2 (FRD) and the ATR its 1: 3
    ctx = world([U("S10", "german", "de-squad6", "0509"), U("ATRC", "german", "pzb39", "0509", holder="S10"),
                 U("A", "british", "aus-squad", "0503")], [10])
    fire(ctx, "S10+ATRC at 0503")
    (a,) = events(ctx, CasualtyAttack)
    assert a.factors == 3


def test_grant_machine_guns_combine_13_factors():
    # 11.85 example: coaxial 5 + bow 8 combined = 13: the '12' column
    ctx = world([U("G", "british", "grant", "0505", facing="NNE"), U("C", "german", "it-crew", "0502")],
                [10], side="british")
    fire(ctx, "G at C with coax,bow")
    (a,) = events(ctx, CasualtyAttack)
    assert (a.factors, a.column) == (13, 12)


def test_tank_destroyer_pivot_example():
    # 15.711 example: pivoting one spine to fire: +3 HPN for the gun and three columns left for the
    # bow machine-gun (4 factors: the '4' column shifted to nothing)
    ctx = world([U("TD", "german", "td", "0505", facing="NNE"), U("A", "british", "aus-squad", "0605")],
                [2, 10, 10])
    fire(ctx, "TD at A with 47,bow face E")
    (g,) = events(ctx, GunFired)
    assert "pivoted 1 spine +3" in g.drms and g.need == 10 - 3 and ctx.state.pieces["TD"].facing == 1
    he, mg = events(ctx, CasualtyAttack)
    assert he.factors == 6 and "bow: hull turned -3" in mg.shifts and mg.column == 1


def test_slow_turret_turn_shifts_the_coax_two_columns():
    # 13.46 example: a Pz IIf's first turret spine is +2 HPN and two columns left for the coax
    ctx = world([U("P", "german", "pz2f", "0505", facing="NNE"), U("A", "british", "aus-squad", "0605")],
                [10] * 7)
    fire(ctx, "P at A with 20mm,coax turret E")
    (g,) = events(ctx, GunFired)
    assert "slow turret turned 1 spine +2" in g.drms and ctx.state.pieces["P"].turret == 1
    mg = events(ctx, CasualtyAttack)[-1]
    assert "coax: turret turned -2" in mg.shifts


def test_hedgehog_example_assault_on_an_emplacement_is_one_right():
    # 15.712117: one left for the emplacement, two right for assault movement: net one right
    ctx = world([U("A", "british", "aus-squad", "0705")])
    p = ctx.state.pieces["A"]
    assert casualty.cover(ctx.state, ctx.sc, "A")[:2] == ("good", -1)
    p.moved, p.move = True, "assault"
    state, shift, why = casualty.cover(ctx.state, ctx.sc, "A")
    assert (state, shift) == ("assault", 1)


def test_running_cover_only_under_opportunity_fire():
    # 6.63, 15.712111
    ctx = world([U("A", "british", "aus-squad", "0505")])
    p = ctx.state.pieces["A"]
    p.moving, p.move = True, "run"
    assert casualty.cover(ctx.state, ctx.sc, "A", opportunity=True)[:2] == ("running", 3)
    assert casualty.cover(ctx.state, ctx.sc, "A")[:2] == ("assault", 2)


def test_semi_automatic_bofors_fires_frag_times_rof():
    # 17.12 with the Bofors' ROF of 3 (35.44): 4 FRAG x 3 = 12 on the Casualty Table
    ctx = world([U("BF", "german", "bofors", "0505", holder="BC", facing="NNE"), U("BC", "german", "ger-squad", "0505"),
                 U("A", "british", "aus-squad", "0502")], [10])
    fire(ctx, "BF at 0502 semi")
    (a,) = events(ctx, CasualtyAttack)
    assert (a.factors, a.column) == (12, 12)


def test_desperation_fire_roll_is_the_firers_morale_check():
    # 15.61: a fired squad fires its printed gunfire at a mover; the same roll checks its morale
    ctx = world([U("G1", "german", "ger-squad", "0505"), U("A", "british", "aus-squad", "0504")], [9])
    ctx.state.pieces["G1"].fired = True
    a = ctx.state.pieces["A"]
    a.moving, a.move = True, "assault"
    fire_personnel.opportunity_fire(ctx, ["G1"], "A", 0, "answer")
    (ca,) = events(ctx, CasualtyAttack)
    assert ca.factors == 5 and ca.column == 8 and not ca.mark_fired           # 5 + assault two right
    (mc,) = events(ctx, MoraleChecked)
    assert mc.why == "desperation" and mc.result == "surrendered" and mc.rolls == []


def test_no_fire_into_a_hex_with_friendly_personnel():
    # 15.03
    ctx = world([U("G1", "german", "ger-squad", "0505"), U("G2", "german", "ger-squad", "0502"),
                 U("A", "british", "aus-squad", "0502")])
    with pytest.raises(OrderError, match="friendly"):
        fire(ctx, "G1 at 0502")


def test_grenades_15_frag_and_full_cover_counts_as_stationary():
    # 22.122: a squad's grenades are 3 SP x 5 = 15 FRAG; FULL cover is reduced to STATIONARY
    ctx = world([U("G1", "german", "ger-squad", "0505"), U("A", "british", "aus-squad", "0504", full=True)],
                [4, 2])
    fire_personnel.handle_grenade(ctx, GameVerb(word="grenade", args=["G1", "at", "0504"]))
    (ca,) = events(ctx, CasualtyAttack)
    assert (ca.factors, ca.column, ca.result) == (15, 14, 1) and ca.losses == [["A", "1", ""]]
    assert events(ctx, MoraleChecked)[0].drm == 1


def test_full_cover_ignores_gunfire():
    # 15.712116: gunfire has no effect on units in FULL cover
    ctx = world([U("G1", "german", "ger-squad", "0505"), U("A", "british", "aus-squad", "0504", full=True),
                 U("B", "british", "aus-squad", "0504")], [2, 5])
    fire(ctx, "G1 at 0504")
    (ca,) = events(ctx, CasualtyAttack)
    assert ca.result == 1 and ca.losses == [["B", "1", ""]]
    assert [m.unit for m in events(ctx, MoraleChecked)] == ["B"]


def test_gunfire_at_a_truck_uses_the_vehicle_table():
    # 17.6: 6 factors -> the '4' column: 3M/1K; roll 1 K-KILLs
    ctx = world([U("A", "british", "aus-squad", "0505"), U("T", "german", "truck", "0503")], [1], side="british")
    fire(ctx, "A at T")
    (g,) = events(ctx, GunFired)
    assert g.ammo == "gunfire" and ctx.state.units["T"].eliminated


def test_eligible_firers_by_phase():
    # 6.62 / 6.65: who may fire at a target now
    ctx = world([U("P", "german", "pz3g", "0505", facing="NNE"), U("G1", "german", "ger-squad", "0503"),
                 U("G", "british", "grant", "0502", facing="SSW")])
    st, sc = ctx.state, ctx.sc
    assert eligible.eligible_firers(st, sc, "G", "direct-fire") == ["P"]     # squads not at AFVs
    assert eligible.eligible_firers(st, sc, "G", "final-fire") == []         # G has not moved
    st.pieces["G"].moved = True
    assert eligible.eligible_firers(st, sc, "G", "final-fire") == ["P"]
    st.pieces["P"].moved = True
    assert eligible.eligible_firers(st, sc, "G", "movement") == []


def test_final_fire_only_at_moved_units_by_unmoved_firers():
    # 6.65
    ctx = world([U("G1", "german", "ger-squad", "0505"), U("A", "british", "aus-squad", "0503"),
                 U("G2", "german", "ger-squad", "0506")], [10])
    st = ctx.state
    st.step.phase = "final-fire"
    with pytest.raises(OrderError, match="marked as moved"):
        fire(ctx, "G1 at A")
    st.pieces["A"].moved, st.pieces["A"].move = True, "assault"
    st.pieces["G2"].moved = True
    with pytest.raises(OrderError, match="has moved"):
        fire(ctx, "G2 at A")
    fire(ctx, "G1 at A")
    (ca,) = events(ctx, CasualtyAttack)
    assert ca.by == "final" and "assault cover +2" in ca.shifts and ca.column == 8


def test_desperation_firers_are_fired_personnel_in_normal_range():
    # 15.61
    ctx = world([U("G1", "german", "ger-squad", "0505"), U("G2", "german", "ger-squad", "0510"),
                 U("A", "british", "aus-squad", "0504")])
    st = ctx.state
    st.pieces["G1"].fired = st.pieces["G2"].fired = True
    assert eligible.eligible_firers(st, ctx.sc, "A", "desperation") == []        # not moving
    st.pieces["A"].moving = True
    assert eligible.eligible_firers(st, ctx.sc, "A", "desperation") == ["G1"]    # G2 is 6 hexes off
    assert eligible.eligible_firers(st, ctx.sc, "A", "movement") == []


@pytest.mark.parametrize("phase", ["movement", "final-fire"])
def test_every_eligible_firer_fires_without_a_refusal(phase):
    # the engine fires standing orders at whatever eligible_firers names (6.62, 6.65): every such
    # fire must go through; random small worlds with scripted dice (Python's random: test only)
    import random
    british = ["aus-squad", "aus-leader", "brit-crew", "a13", "grant", "truck"]
    german = ["ger-squad", "ger-leader", "pz3g", "pz2c", "td", "sd250", "de-squad6", "it-squad"]
    fired = 0
    for seed in range(120):
        rnd = random.Random(seed)
        units = []
        for i in range(rnd.randint(2, 6)):
            side = rnd.choice(["british", "german"])
            units.append(U(f"U{i}", side, rnd.choice(british if side == "british" else german),
                           f"{rnd.randint(3, 9):02d}{rnd.randint(3, 8):02d}", facing=rnd.choice(["NNE", "E", "SSE",
                                                                                                 "SSW", "W", "NNW"])))
        ctx = world(units, [rnd.randint(1, 10) for _ in range(500)])
        st = ctx.state
        for p in st.pieces.values():
            if rnd.random() < 0.5:
                p.moving = phase == "movement"
                p.moved = True
                p.move = rnd.choice(["assault", "run", "cross"])
            p.fired = rnd.random() < 0.2
        for target in sorted(st.units):
            for f in eligible.eligible_firers(st, ctx.sc, target, phase):
                if f in eligible.eligible_firers(st, ctx.sc, target, phase):
                    fire_personnel.opportunity_fire(ctx, [f], target, rnd.choice([0, 1, 2]), "standing order")
                    fired += 1
    assert fired > 30


def test_an_unknown_weapon_is_refused_before_anything_fires():
    ctx = world([U("G", "british", "grant", "0505", facing="NNE"), U("C", "german", "it-crew", "0502")],
                side="british")
    with pytest.raises(OrderError, match="no weapon 'mortar'"):
        fire(ctx, "G at C with 75,mortar")
    assert ctx.events == [] and not ctx.state.pieces["G"].fired
