"""Advanced Tobruk off-board artillery (18): battery contact and NO FIRE, the accuracy roll
with and without a registration, concentrations (7 hexes, 7 direct-hit rolls), barrages
(19 hexes, 20 rolls; the seven-hex string), refusals that contradict a side note, the FO's
sight, counter-battery timing and the words of the report - all with scripted dice."""
from __future__ import annotations

import copy

import pytest

from pbem.core.orders import OrderError
from pbem.games.advanced_tobruk.artillery import arty_words, artillery, indirect
from pbem.games.advanced_tobruk.arty_events import (BatteryLocated, ContactRolled, DirectHitRolled, IndirectFired,
                                                    IndirectTurnEnded)
from pbem.games.advanced_tobruk.arty_state import Battery
from pbem.games.advanced_tobruk.fire_events import CasualtyAttack

from test_tobruk_artillery_kit import FO, U, aworld, events

RING_0505 = ["0404", "0405", "0504", "0506", "0604", "0605"]


def call(ctx, text: str):
    return indirect.call(ctx, text.split())


def words(ctx, kind) -> list[str]:
    return [arty_words.describe(e, ctx.sc) for e in events(ctx, kind)]


def test_accuracy_without_registration_drifts():
    # 18.31: contact 3 <= 7 (British), accuracy dice 4,0 = 40: one hex off, towards S ((40-1) % 6 = 3)
    ctx = aworld([FO, U("G1", "german", "ger-squad", "0606")], [3, 4, 10, 10, 10], regs=["0909"])
    call(ctx, "BTY1 at 0606")
    fired, = events(ctx, IndirectFired)
    assert (fired.pct, fired.total, fired.off, fired.toward, fired.final) == (40, 40, 1, "S", "0607")
    assert fired.drms == [] and fired.ffe
    assert ctx.state.batteries["BTY1"].cff == "0607" and ctx.state.batteries["BTY1"].ffe
    assert ctx.state.batteries["BTY1"].used == 1
    assert "accuracy dice 4,0 = 40: 1 hex S, final hex 0607" in words(ctx, IndirectFired)[0]
    assert "FO1" in ctx.state.step.acted or ctx.state.pieces["FO1"].fired          # 18.864 marked


def test_accuracy_with_registration_is_on_target_and_says_plus_20():
    # 18.551: the same dice 4,0 with +20 = 60: on target; the report shows the +20 DRM
    ctx = aworld([FO, U("G1", "german", "ger-squad", "0505")], [3, 4, 10, 10, 10])
    call(ctx, "BTY1 at 0505")
    fired, = events(ctx, IndirectFired)
    assert fired.drms == ["+20 registration (18.551)"] and fired.total == 60 and fired.final == "0505"
    assert fired.registered == "reg-1"
    assert "= 40 +20 registration (18.551) = 60: on target" in words(ctx, IndirectFired)[0]


def test_concentration_seven_hexes_seven_rolls():
    # 18.61: the FFE hex and the six around it, one direct-hit roll each (units in all seven)
    units = [FO, U("G0", "german", "ger-squad", "0505")] + \
        [U(f"G{i + 1}", "german", "ger-squad", h) for i, h in enumerate(RING_0505)]
    ctx = aworld(units, [3, 6, 10] + [10] * 7 + [10] * 7)
    call(ctx, "BTY1 at 0505")
    fired, = events(ctx, IndirectFired)
    assert sorted(fired.hexes) == sorted(["0505", *RING_0505]) and fired.dh == [1] * 7
    dh = events(ctx, DirectHitRolled)
    assert len(dh) == 7 and sorted(e.hex for e in dh) == sorted(fired.hexes)
    assert all(e.need == 3 and not e.hit for e in dh)                  # a 25-pdr battery: light, 3 or less
    assert len(events(ctx, CasualtyAttack)) == 7                        # every hex attacked at full FRAG
    assert all(a.factors == 20 and a.result == 0 for a in events(ctx, CasualtyAttack))
    assert "7 hexes, 7 direct-hit rolls due" in words(ctx, IndirectFired)[0]


def test_barrage_nineteen_hexes_twenty_rolls_no_contact():
    # 18.71, 18.721: no contact roll, +20 for the registration, 19 hexes, 2 rolls in the FFE hex
    ctx = aworld([FO, U("G0", "german", "ger-squad", "0505")], [4, 10, 10, 10, 10])
    call(ctx, "BTY1 at 0505 barrage")
    assert not events(ctx, ContactRolled)
    fired, = events(ctx, IndirectFired)
    assert len(fired.hexes) == 19 and sum(fired.dh) == 20 and fired.dh[0] == 2 and fired.final == "0505"
    assert [e.hex for e in events(ctx, DirectHitRolled)] == ["0505", "0505"]
    assert "19 hexes, 20 direct-hit rolls due" in words(ctx, IndirectFired)[0]


def test_seven_hex_barrage_with_limit_markers():
    ctx = aworld([FO, U("G0", "german", "ger-squad", "0505")], [6, 10, 10, 10, 10])
    call(ctx, "BTY1 at 0505 barrage line N")
    fired, = events(ctx, IndirectFired)
    assert sorted(fired.hexes) == ["0502", "0503", "0504", "0505", "0506", "0507", "0508"]
    assert sum(fired.dh) == 8 and fired.ends == ["0502", "0508"]
    assert ctx.state.batteries["BTY1"].ends == ["0502", "0508"]


def test_barrage_off_registration_is_refused_and_changes_nothing():
    ctx = aworld([FO, U("G0", "german", "ger-squad", "0606")], [])
    with pytest.raises(OrderError, match=r"registration.*18\.722"):
        call(ctx, "BTY1 at 0606 barrage")
    assert ctx.events == [] and "BTY1" not in ctx.state.batteries


def test_other_contradictions_of_the_notes_are_refused():
    units = [FO, U("L1", "british", "aus-leader", "0909"), U("G0", "german", "ger-squad", "0606")]
    ctx = aworld(units, [])
    with pytest.raises(OrderError, match=r"not BTY1's forward observer.*18\.82"):
        call(ctx, "BTY1 at 0606 by L1")                                 # a leader calls barrages only
    ctx = aworld(units, [], ffe=1)
    ctx.state.batteries["BTY1"] = Battery(side="british", used=1)
    with pytest.raises(OrderError, match=r"all 1 FFEs.*18\.12"):
        call(ctx, "BTY1 at 0606")
    assert ctx.events == []


def test_leader_calls_a_barrage_on_the_first_registration():
    # 18.101: no FO needed; the leader is marked fired; only the registration recorded first
    units = [U("L1", "british", "aus-leader", "0909"), U("G0", "german", "ger-squad", "0505")]
    ctx = aworld(units, [6, 10, 10, 10, 10], regs=["0505", "0707"])
    with pytest.raises(OrderError, match="18.101"):
        call(ctx, "BTY1 at 0707 barrage by L1")
    call(ctx, "BTY1 at 0505 barrage by L1")
    assert events(ctx, IndirectFired)[0].spotter == "L1" and ctx.state.pieces["L1"].fired


def test_fo_out_of_sight_range_is_refused():
    # 18.861: double the spotting range; at night (2 hexes for vehicles, reconstructed) the FO sees 4
    ctx = aworld([FO, U("G0", "german", "ger-squad", "0505")], [], conditions="night")
    with pytest.raises(OrderError, match=r"at most 4 hexes.*18\.861"):
        call(ctx, "BTY1 at 0505")
    assert ctx.events == []


def test_fo_eliminated_silences_the_battery():
    ctx = aworld([FO, U("G0", "german", "ger-squad", "0505")], [])
    ctx.state.units["FO1"].eliminated = True
    with pytest.raises(OrderError, match="18.863"):
        call(ctx, "BTY1 at 0505")


def test_contact_failure_accumulates_no_fire():
    # 18.221-18.222: 9 > 7 NO FIRE; next turn 7 +1 = 8 fails; then 5 +2 = 7 succeeds, the +2 kept
    ctx = aworld([FO, U("G0", "german", "ger-squad", "0505")], [9, 7, 5, 6, 10, 10, 10])
    call(ctx, "BTY1 at 0505")
    assert ctx.state.batteries["BTY1"].no_fire == 1 and not events(ctx, IndirectFired)
    ctx.state.turn = 2
    call(ctx, "BTY1 at 0505")
    c = events(ctx, ContactRolled)[-1]
    assert (c.roll, c.drms, c.ok) == (7, ["+1 NO FIRE (1 turn, 18.222)"], False)
    assert ctx.state.batteries["BTY1"].no_fire == 2
    ctx.state.turn = 3
    call(ctx, "BTY1 at 0505")
    assert events(ctx, ContactRolled)[-1].ok and ctx.state.batteries["BTY1"].no_fire == 2
    assert "contact roll 5 +2 NO FIRE (2 turns, 18.222) = 7 against 7: contact made" in words(ctx, ContactRolled)[-1]
    assert events(ctx, IndirectFired)


def test_continuing_fire_next_turn_needs_no_accuracy_roll():
    # 18.32: the CFF stays or moves one hex: no accuracy roll (a contact roll for the new FFE, 18.223)
    ctx = aworld([FO, U("G0", "german", "ger-squad", "0505")], [3, 6, 10, 10, 10, 2, 10, 10])
    call(ctx, "BTY1 at 0505")
    indirect.end_of_turn(ctx)
    assert ctx.state.batteries["BTY1"].cff == "0505" and not ctx.state.batteries["BTY1"].ffe
    ctx.state.turn, ctx.state.pieces["FO1"].fired = 2, False            # 5.41 the F marker goes
    call(ctx, "BTY1 at 0505")
    fired = events(ctx, IndirectFired)[-1]
    assert fired.rolls == [] and fired.final == "0505" and ctx.state.batteries["BTY1"].used == 2


def test_direct_hit_falls_on_the_highest_roller():
    # 18.431: direct-hit roll 1 <= 3; the units roll 3 and 8: G2 takes the hit as STATIONARY;
    # 18.432: G1 is attacked in its actual cover
    units = [FO, U("G1", "german", "ger-squad", "0505"), U("G2", "german", "ger-squad", "0505")]
    ctx = aworld(units, [3, 6, 10, 1, 3, 8, 10, 10])
    call(ctx, "BTY1 at 0505")
    dh, = events(ctx, DirectHitRolled)
    assert dh.hit == ["G2"] and dh.units == [["G1", "3", "0"], ["G2", "8", "0"]]
    hit, rest = events(ctx, CasualtyAttack)
    assert "direct hit on G2" in hit.source and rest.losses == [] and rest.source == "BTY1: FRAG"
    assert "units roll G1 3, G2 8; direct hit on G2" in words(ctx, DirectHitRolled)[0]


def test_counter_battery_timing():
    # 18.1152: declared turn 1, neutralized from turn 3; 18.1153: ended turn 4, quiet through turn 6
    ctx = aworld([FO], [])
    st = ctx.state
    with pytest.raises(OrderError, match="18.1151"):
        artillery.counter_battery(ctx, ["BTY1", "at", "GB1"])
    st.batteries["GB1"] = Battery(side="german", located=True)
    with pytest.raises(OrderError, match="18.113"):                     # a light battery vs a heavy one
        artillery.counter_battery(ctx, ["BTY1", "at", "GB1"])


def test_counter_battery_neutralizes_on_the_second_turn_and_two_turns_after():
    ctx = aworld([FO], [], side="german")
    st = ctx.state
    st.batteries["BTY1"] = Battery(side="british", located=True)
    artillery.counter_battery(ctx, ["GB1", "at", "BTY1"])
    assert [artillery.neutralized(st, "BTY1") for st.turn in (1, 2)] == [0, 0]
    st.turn = 3
    assert artillery.neutralized(st, "BTY1") == 3
    ctx.side = "british"
    with pytest.raises(OrderError, match="18.1153"):
        call(ctx, "BTY1 at 0505")
    st.turn = 4
    artillery.end_cb(ctx, "GB1")
    assert [artillery.neutralized(st, "BTY1") for st.turn in (5, 6, 7)] == [6, 6, 0]


def test_locating_a_battery_that_fired():
    ctx = aworld([FO, U("G0", "german", "ger-squad", "0505")], [3, 6, 10, 10, 10, 2])
    call(ctx, "BTY1 at 0505")
    indirect.phase_end(ctx)
    loc, = events(ctx, BatteryLocated)
    assert (loc.battery, loc.by, loc.roll, loc.located) == ("BTY1", "german", 2, True)
    assert ctx.state.batteries["BTY1"].located


def test_off_board_smoke_lasts_two_turns():
    # 20.362, 20.364: '1' side up, turned to '2' at the end of the turn, removed the next
    ctx = aworld([FO], [3, 6, 10])
    call(ctx, "BTY1 at 0505 smoke")
    assert ctx.state.smoke == {h: 1 for h in ["0505", *RING_0505]}
    indirect.end_of_turn(ctx)
    assert set(ctx.state.smoke.values()) == {2}
    indirect.end_of_turn(ctx)
    assert ctx.state.smoke == {}
    assert "smoke '2' removed" in words(ctx, IndirectTurnEnded)[-1]


def test_stage_order_smoke_before_artillery():
    ctx = aworld([FO, U("G0", "german", "ger-squad", "0505")], [3, 6, 10, 10, 10])
    call(ctx, "BTY1 at 0505")
    ctx.state.step.acted = []
    with pytest.raises(OrderError, match="20.33"):
        call(ctx, "BTY1 at 0808 smoke")


def test_op_tank_fo_and_its_suppression():
    # 18.91: the FO rides in T1 (its side note); 18.93 not from a suppressed AFV; K-KILLed: FO gone (18.92)
    units = [U("FO1", "british", "fo-brit", None), U("T1", "british", "grant", "0909", facing="NNE"),
             U("G0", "german", "ger-squad", "0505")]
    ctx = aworld(units, [3, 6, 10, 10, 10])
    ctx.state.notes["british"].op["FO1"] = "T1"
    call(ctx, "BTY1 at 0505")
    assert events(ctx, IndirectFired)[0].spotter == "FO1" and not ctx.state.pieces["T1"].fired
    ctx = aworld(units, [])
    ctx.state.notes["british"].op["FO1"] = "T1"
    ctx.state.pieces["T1"].suppressed = True
    with pytest.raises(OrderError, match="18.93"):
        call(ctx, "BTY1 at 0505")
    ctx.state.units["T1"].eliminated, ctx.state.pieces["T1"].wreck = True, "wreck"
    with pytest.raises(OrderError, match="18.863"):
        call(ctx, "BTY1 at 0505")


def test_rolling_barrage_moves_first_and_lifts():
    # 18.731-18.733: placed as a seven-hex string (N-S), next turn it moves one hex SE and attacks
    # (+20), then, due to lift, a contact roll at the End of Turn removes it
    ctx = aworld([FO, U("G0", "german", "ger-squad", "0505")], [6, 10, 10, 10, 10, 4, 10, 2])
    call(ctx, "BTY1 at 0505 rolling")
    first, = events(ctx, IndirectFired)
    assert first.what == "rolling" and len(first.hexes) == 7 and first.ends == ["0502", "0508"]
    indirect.end_of_turn(ctx)                           # not due to lift yet: stays, never flips to CFF
    b = ctx.state.batteries["BTY1"]
    assert b.cff == "0505" and b.roll_left == 1 and not b.lift
    ctx.state.turn = 2
    indirect.phase_start(ctx)
    moved = events(ctx, IndirectFired)[-1]
    assert (moved.aimed, moved.drms, moved.ffe) == ("0605", ["+20 rolling barrage (18.733)"], False)
    assert ctx.state.batteries["BTY1"].lift and ctx.state.batteries["BTY1"].used == 1
    indirect.end_of_turn(ctx)
    lift = events(ctx, ContactRolled)[-1]
    assert lift.purpose == "lift" and lift.ok and ctx.state.batteries["BTY1"].cff == ""
    assert "lifted" in words(ctx, ContactRolled)[-1]


def test_frag_14_reveals_hidden_units_before_the_attack():
    # 32.211: 14+ FRAG fired into the hex places its hidden units, which are then attacked
    units = [FO, U("G0", "german", "ger-squad", None)]
    ctx = aworld(units, [3, 6, 10, 10, 10])
    ctx.state.pieces["G0"].hidden_at = "0505"
    call(ctx, "BTY1 at 0505")
    from pbem.games.advanced_tobruk.fog_events import Revealed
    rev, = events(ctx, Revealed)
    assert rev.units == ["G0"] and rev.rule == "32.211" and ctx.state.units["G0"].hex == "0505"
    assert events(ctx, CasualtyAttack)[0].hex == "0505"


def test_150mm_direct_hit_clears_a_minefield():
    # 31.212: a direct hit of 149 mm+ HE in a minefield hex removes it (a heavy battery: 1 or less)
    from pbem.games.advanced_tobruk.mine_events import MineCleared
    from pbem.games.advanced_tobruk.mines_state import Minefield
    ctx = aworld([U("GF", "german", "fo-brit", "0101")], [2, 6, 10, 1], side="german")
    ctx.state.notes["german"].fo["GB1"] = "GF"
    ctx.state.minefields["0505"] = Minefield(side="british", density=3)
    call(ctx, "GB1 at 0505")
    dh, = events(ctx, DirectHitRolled)
    assert (dh.roll, dh.need) == (1, 1)
    assert events(ctx, MineCleared)[0].hex == "0505" and "0505" not in ctx.state.minefields


def test_direct_hit_on_an_afv_uses_halved_he_penetration():
    # 19.15: off-board fire strikes the flank; 25-pdr HE penetration 6 halved = 3 against the
    # Pz II's turret flank 3: K-KILL on less than 2, rolled 3; then the Suppression Table (4 <= 7)
    ctx = aworld([FO, U("P2", "german", "pz2f", "0505", facing="SSE")], [3, 6, 10, 1, 2, 3, 4])
    call(ctx, "BTY1 at 0505")
    from pbem.games.advanced_tobruk.arty_events import VehicleStruck
    v, = events(ctx, VehicleStruck)
    assert (v.how, v.location, v.aspect, v.pen) == ("afv", "TUR", "flank", 3)
    assert (v.armour, v.kill_number, v.rolls) == (3, 2, [2, 3, 4])
    assert v.result == "no kill; suppressed" and ctx.state.pieces["P2"].suppressed
    assert "K-KILL on less than 2, rolled 3; suppression on 7 or less, rolled 4" in \
        arty_words.describe(v, ctx.sc)


def test_views_show_markers_and_own_ffes_only():
    from pbem.games.advanced_tobruk.artillery import arty_views
    ctx = aworld([FO, U("G0", "german", "ger-squad", "0505")], [3, 6, 10, 10, 10])
    call(ctx, "BTY1 at 0505")
    st, sc = ctx.state, ctx.sc
    assert arty_views.marks(st, sc, "german")["ffe"] == ["0505"]
    mine = arty_views.report_lines(st, sc, "british")[0]
    theirs = arty_views.report_lines(st, sc, "german")[0]
    assert "2 of 3 FFEs left" in mine and "FFEs" not in theirs and "FFE in 0505" in theirs


def test_a_hidden_fo_observes_unnamed_and_unmarked():
    # 18.864: a hidden FO observes from its noted hex; it is not marked, and the event does not name it
    ctx = aworld([U("FO1", "british", "fo-brit", None), U("G0", "german", "ger-squad", "0505")], [3, 6, 10, 10, 10])
    ctx.state.pieces["FO1"].hidden_at = "0909"
    call(ctx, "BTY1 at 0505")
    fired, = events(ctx, IndirectFired)
    assert fired.spotter == "" and fired.mark == [] and not ctx.state.pieces["FO1"].fired
    assert all("FO1" not in (arty_words.describe(e, ctx.sc) or "") for e in ctx.events)


def test_a_leader_calls_one_battery_a_turn():
    # 18.102: after calling BTY1's barrage, the leader may not call another battery this turn
    units = [U("L1", "british", "aus-leader", "0909"), U("G0", "german", "ger-squad", "0505")]
    ctx = aworld(units, [6, 10, 10, 10, 10])
    call(ctx, "BTY1 at 0505 barrage by L1")
    ctx.state.pieces["L1"].fired = False                  # as if in FULL cover: no F marker (18.101)
    ctx.state.batteries["BTY1"].used = 0
    ctx.state.step.acted = []
    with pytest.raises(OrderError, match="18.102"):
        call(ctx, "BTY1 at 0505 barrage by L1")


def test_the_ssr_tables_are_checked():
    ctx = aworld([FO], [])
    assert artillery.ssr_problems(ctx.sc) == []
    sc = copy.deepcopy(ctx.sc)            # loads() shares one parsed scenario per text: never edit that one
    sc.tables.data.artillery["BAD"] = {"side": "french", "battery": "big", "fire": ["napalm"], "supply": "lots",
                                       "colour": "red"}         # the rules read the typed table (Scenario.tables)
    probs = "\n".join(artillery.ssr_problems(sc))
    for word in ("'colour'", "'french'", "'big'", "'napalm'", "'lots'"):
        assert word in probs
