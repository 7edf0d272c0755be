"""Advanced Tobruk: morale (10), broken and surrendered units (11), casualty steps
(15.8), rally, intimidation, chain surrender and suppression removal, with
scripted dice."""
from __future__ import annotations

from pbem.games.advanced_tobruk.fire import casualty, morale
from pbem.games.advanced_tobruk.fire_events import MoraleChecked, SuppressionChecked, WeaponCaptured

from tobruk_fire_helpers import U, events, world


def test_three_crews_add_two_to_morale():
    # 10.111a example: three crews (6 stacking points) within two hexes: +2
    ctx = world([U("A", "british", "aus-squad", "0505"), U("C1", "british", "brit-crew", "0505"),
                 U("C2", "british", "brit-crew", "0506"), U("C3", "british", "brit-crew", "0604")])
    base, alt, mods = morale.altered(ctx.state, ctx.sc, "A")
    assert (base, alt) == (7, 9) and mods == ["friendly personnel 6 SP +2"]


def test_leader_bonus_by_nationality():
    # 10.111b: German leaders +2 to Germans and Italians; Italian leaders +1 to Italians only
    ctx = world([U("GL", "german", "ger-leader", "0505"), U("IL", "german", "it-leader", "0505"),
                 U("G", "german", "ger-squad", "0505"), U("I", "german", "it-squad", "0505")])
    sc = ctx.sc
    assert morale.leader_bonus(sc, "GL", "I") == 2 and morale.leader_bonus(sc, "GL", "G") == 2
    assert morale.leader_bonus(sc, "IL", "I") == 1 and morale.leader_bonus(sc, "IL", "G") == 0


def test_casualty_level_is_added_to_the_roll():
    # 10.21 example: after a C1 add 1: morale 7, roll 7 passes without it and breaks with it
    ctx = world([U("A", "british", "aus-squad", "0505")], [7, 7])
    assert morale.check(ctx, "A", "casualty", 0) == "passed"
    assert morale.check(ctx, "A", "casualty", 1) == "broken"
    assert ctx.state.pieces["A"].broken


def test_one_always_passes_zero_always_fails_two_zeros_is_courage():
    # 10.241, 11.242
    ctx = world([U("A", "british", "aus-squad", "0505"), U("B", "british", "aus-squad", "0505")], [1, 10, 3, 10, 10])
    assert morale.check(ctx, "A", "casualty", 9) == "passed"
    assert morale.check(ctx, "A", "casualty", 0) == "broken"
    assert morale.check(ctx, "B", "casualty", 0) == "courage" and ctx.state.pieces["B"].courage


def test_courage_spares_the_other_units_of_the_same_fire():
    # 11.242: the highest morale checks first (10.22); its courage ends the checks for that fire
    ctx = world([U("A", "british", "aus-squad", "0505"), U("L", "british", "aus-leader", "0505")], [10, 10])
    morale.check_stack(ctx, ["A", "L"], "casualty", 1)
    (mc,) = events(ctx, MoraleChecked)
    assert mc.unit == "L" and mc.result == "courage"


def test_break_near_the_enemy_is_surrender_and_a_surrendered_unit_failing_under_fire_dies():
    # 11.21, 11.132, 11.22
    ctx = world([U("A", "british", "aus-squad", "0505"), U("B", "british", "aus-squad", "0101"),
                 U("G", "german", "ger-squad", "0507")], [9, 9, 9, 9])
    assert morale.check(ctx, "A", "casualty", 1) == "surrendered"          # enemy two hexes away
    assert morale.check(ctx, "B", "casualty", 1) == "broken"
    assert morale.check(ctx, "B", "casualty", 1) == "surrendered"          # broken twice
    assert morale.check(ctx, "A", "casualty", 1) == "eliminated"
    assert ctx.state.units["A"].eliminated


def test_chain_surrender_costs_two_more_for_each_surrender():
    # 11.71: the first surrender makes its friends in the hex check at -2
    ctx = world([U("A", "british", "aus-squad", "0505"), U("B", "british", "aus-squad", "0505"),
                 U("G", "german", "ger-squad", "0506")], [9, 4, 3])
    morale.check_stack(ctx, ["A", "B"], "casualty", 1)
    a, b1 = events(ctx, MoraleChecked)[:2]
    assert a.result == "surrendered" and b1.why == "chain" and "chain surrender -2" in b1.mods
    assert b1.altered == 7 - 1 - 2 and b1.result == "passed"      # A, surrendered, no longer supports


def test_pinned_down_on_the_highest_passing_roll():
    # 11.41: a mover under opportunity fire passing on exactly its number stops, unless a leader is with it
    ctx = world([U("A", "british", "aus-squad", "0505"), U("B", "british", "aus-squad", "0101"),
                 U("L", "british", "aus-leader", "0101")], [6, 5])
    ctx.state.pieces["A"].moving = True
    assert morale.check(ctx, "A", "casualty", 1, opportunity=True) == "pinned"
    ctx.state.pieces["B"].moving = True
    assert morale.check(ctx, "B", "casualty", 1, opportunity=True) == "passed"     # 5 + 1 < 7 + 2


def test_intimidation_below_zero_surrenders_without_a_roll():
    # 11.61 with an overrun's -4 twice (21.12-21.13)
    ctx = world([U("A", "british", "aus-squad", "0505"), U("P", "german", "pz3g", "0505")])
    ctx.state.pieces["A"].overrun, ctx.state.pieces["A"].overrun_by = 8, ["P"]      # P among its overrunners
    morale.check_intimidation(ctx)
    (mc,) = events(ctx, MoraleChecked)
    assert mc.result == "surrendered" and mc.altered == -1 and mc.rolls == []
    assert ctx.state.pieces["A"].surrendered


def test_rally_at_end_of_turn_with_a_leader():
    # 5.42, 11.53: broken with an unbroken leader, not adjacent to the enemy; 13.1131 suppression
    ctx = world([U("A", "british", "aus-squad", "0505"), U("L", "british", "aus-leader", "0505"),
                 U("P", "german", "pz3g", "0101"), U("T", "german", "td", "0103")], [9, 7, 7])
    st = ctx.state
    st.pieces["A"].broken = True
    st.pieces["P"].suppressed = st.pieces["T"].suppressed = True
    morale.end_of_turn(ctx)
    mc = events(ctx, MoraleChecked)[0]
    assert mc.why == "rally" and mc.altered == 9 and mc.result == "rallied" and not st.pieces["A"].broken
    s1, s2 = events(ctx, SuppressionChecked)
    assert (s1.unit, s1.morale, s1.removed) == ("P", 7, True)
    assert (s2.unit, s2.morale, s2.removed) == ("T", 6, False)            # Italian AFVs check on 6


def test_no_rally_next_to_the_enemy_nor_by_an_italian_leader_for_germans():
    # 11.52, 11.53
    ctx = world([U("A", "british", "aus-squad", "0505"), U("L", "british", "aus-leader", "0505"),
                 U("G", "german", "ger-squad", "0506"), U("G2", "german", "ger-squad", "0101"),
                 U("IL", "german", "it-leader", "0101")])
    st = ctx.state
    st.pieces["A"].broken = st.pieces["G2"].broken = True
    assert not morale.can_rally(st, ctx.sc, "A") and not morale.can_rally(st, ctx.sc, "G2")


def test_squad_steps_example():
    # 15.82: C1 marker, C1 half-squad, C1 marker, C1 gone; C4 takes a squad; C8 two; C2 a crew
    ctx = world([U("A", "british", "aus-squad", "0505"), U("B", "british", "aus-squad", "0505"),
                 U("C", "british", "brit-crew", "0505")])
    st, sc = ctx.state, ctx.sc
    assert casualty.absorb(st, sc, ["A"], 1) == [["A", "1", ""]]
    st.pieces["A"].steps = 1
    assert casualty.values(st, sc, "A") == (5, 4, 6)                       # 15.91 marker: -1 and -1
    st.pieces["A"].steps = 2
    assert casualty.values(st, sc, "A") == (3, 4, 6)                       # the half-squad's side
    assert casualty.absorb(st, sc, ["A"], 2) == [["A", "4", "eliminated"]]
    st.pieces["A"].steps = 0
    assert casualty.absorb(st, sc, ["A", "B"], 8) == [["A", "4", "eliminated"], ["B", "4", "eliminated"]]
    assert casualty.absorb(st, sc, ["C"], 2) == [["C", "2", "eliminated"]]


def test_casualties_fall_on_the_poorest_cover_first():
    # 15.11: the moved (assault cover) squad takes the C1, then both check morale
    ctx = world([U("G", "german", "ger-squad", "0503"), U("A", "british", "aus-squad", "0505"),
                 U("B", "british", "aus-squad", "0505")], [3, 2, 2])
    st = ctx.state
    st.pieces["B"].moved, st.pieces["B"].move = True, "assault"
    casualty.attack(ctx, "0505", 5, "gunfire", firers=["G"])
    assert st.pieces["B"].steps == 1 and st.pieces["A"].steps == 0
    assert len(events(ctx, MoraleChecked)) == 2


def test_lone_weapon_with_the_enemy_is_captured():
    # 11.82
    ctx = world([U("W", "british", "bren", "0505"), U("G", "german", "ger-squad", "0505")])
    morale.end_of_turn(ctx)
    (ev,) = events(ctx, WeaponCaptured)
    assert ctx.state.units["W"].side == "german" and ev.by == "G"


def test_truck_and_abandoned_afv_are_captured_at_the_end_of_the_turn():
    # 11.83 trucks with unbroken enemy personnel; 11.84 only an abandoned (bailed out) AFV
    ctx = world([U("T", "german", "truck", "0505"), U("P", "german", "pz3g", "0605"),
                 U("A", "british", "aus-squad", "0505"), U("B", "british", "aus-squad", "0605")])
    morale.end_of_turn(ctx)
    assert [e.unit for e in events(ctx, WeaponCaptured)] == ["T"]
    ctx.state.pieces["P"].bailed = True
    morale.end_of_turn(ctx)
    assert ctx.state.units["P"].side == "british"
