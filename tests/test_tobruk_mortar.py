"""Advanced Tobruk on-board indirect fire (19, 20): the 3-inch mortar's worked example
(14 FRAG halved to 7 on the '4' column, 19.22), range and LOS limits, registrations,
the BOT's second direct-hit roll, on-board smoke and its one-turn duration, smoke's
+4 HPN on lines of fire (20.31) - scripted dice."""
from __future__ import annotations

import pytest

from pbem.core.orders import OrderError
from pbem.games.advanced_tobruk.artillery import arty_words, indirect, mortar
from pbem.games.advanced_tobruk.fire import smoke
from pbem.games.advanced_tobruk.arty_events import DirectHitRolled, IndirectFired, SmokePlaced, VehicleStruck
from pbem.games.advanced_tobruk.fire_events import CasualtyAttack

from test_tobruk_artillery_kit import U, aworld, events

MORTAR = [U("C1", "british", "brit-crew", "0909"), U("M1", "british", "mortar-3in", "0909", holder="C1")]


def fire(ctx, text: str, smoke: bool = False):
    return mortar.fire(ctx, text.split(), smoke=smoke)


def test_76mm_mortar_example_half_frag_on_the_4_column():
    # 19.22: a miss on a truck: half of the 76 mm mortar's 14 FRAG = 7, read on the '4' column
    ctx = aworld(MORTAR + [U("T1", "german", "truck", "0505")], [6, 10, 10, 4])
    fire(ctx, "M1 at 0505")
    f, = events(ctx, IndirectFired)
    assert (f.frag, f.need, f.final, f.dh) == (14, 3, "0505", [1])
    dh, = events(ctx, DirectHitRolled)
    assert not dh.hit
    v, = events(ctx, VehicleStruck)
    assert (v.how, v.column) == ("soft-frag", "4")
    assert "Non-AFV table column 4, rolled 4" in arty_words.describe(v, ctx.sc)
    assert ctx.state.pieces["M1"].fired and ctx.state.pieces["C1"].fired       # 20.02 marked fired


def test_mortar_direct_hit_on_a_truck_kkills_it():
    # 19.22: any direct hit on a non-AFV vehicle is a K-KILL, the burn roll decides the wreck
    ctx = aworld(MORTAR + [U("T1", "german", "truck", "0505")], [6, 10, 2, 1])
    fire(ctx, "M1 at 0505")
    v, = events(ctx, VehicleStruck)
    assert v.how == "soft" and v.result == "direct hit: K-KILL, burning wreck"
    assert ctx.state.units["T1"].eliminated and ctx.state.pieces["T1"].wreck == "burning"


def test_mortar_miss_attacks_personnel_at_half_frag():
    # 19.14: MISS - actual cover, half FRAG (7 -> the '6' column)
    ctx = aworld(MORTAR + [U("G1", "german", "ger-squad", "0505")], [6, 10, 10, 10])
    fire(ctx, "M1 at 0505")
    a, = events(ctx, CasualtyAttack)
    assert (a.factors, a.column) == (7, 6) and a.parts == ["14 FRAG halved"]


def test_mortar_range_and_friendly_hexes():
    ctx = aworld(MORTAR + [U("G1", "german", "ger-squad", "0908"), U("B1", "british", "aus-squad", "0505")], [])
    with pytest.raises(OrderError, match=r"range is 32-3.*19\.05"):
        fire(ctx, "M1 at 0908")                                          # one hex: under the minimum
    with pytest.raises(OrderError, match="20.34"):
        fire(ctx, "M1 at 0505")
    with pytest.raises(OrderError, match="20.33"):
        fire(ctx, "M1 at 0606")                                          # an empty hex: HE needs a target
    assert ctx.events == []


def test_mortar_registration_adds_20_and_bot_a_second_roll():
    # 19.61 +20 on a registration; a direct hit (2 <= 3; its 14 FRAG roll 10: no effect) places the
    # BOT marker (13.461); 19.71 a second turn at the same hex: two direct-hit rolls
    ctx = aworld(MORTAR + [U("G1", "german", "ger-squad", "0505")], [4, 10, 2, 10, 4, 10, 10, 10, 10],
                 regs=["0909"])
    ctx.state.notes["british"].registrations["M1"] = ["0505"]
    fire(ctx, "M1 at 0505")
    f = events(ctx, IndirectFired)[0]
    assert f.drms == ["+20 registration (19.61)"] and f.total == 60 and f.final == "0505"
    ctx.state.turn = 2
    ctx.state.pieces["M1"].fired = ctx.state.pieces["C1"].fired = False
    fire(ctx, "M1 at 0505")
    assert events(ctx, IndirectFired)[-1].dh == [2] and len(events(ctx, DirectHitRolled)) == 3


def test_on_board_smoke_lasts_one_turn():
    # 20.35: a direct-hit roll on the smoke row (6); 20.363 '2' side up; 20.364 removed at the end of the turn
    ctx = aworld(MORTAR, [5])
    fire(ctx, "M1 at 0606", smoke=True)
    placed, = events(ctx, SmokePlaced)
    assert (placed.roll, placed.need, placed.shows) == (5, 6, 2) and ctx.state.smoke == {"0606": 2}
    indirect.end_of_turn(ctx)
    assert ctx.state.smoke == {}


def test_on_board_smoke_can_miss_and_one_counter_a_hex():
    ctx = aworld(MORTAR + [U("C2", "british", "brit-crew", "0909"),
                           U("M2", "british", "mortar-3in", "0909", holder="C2")], [7, 1])
    fire(ctx, "M1 at 0606", smoke=True)
    assert ctx.state.smoke == {} and events(ctx, SmokePlaced)[0].shows == 0
    fire(ctx, "M2 at 0606", smoke=True)
    assert ctx.state.smoke == {"0606": 2}
    ctx.state.pieces["M1"].fired = False
    with pytest.raises(OrderError, match="20.365"):
        fire(ctx, "M1 at 0606", smoke=True)


def test_smoke_on_lines_of_fire():
    # 20.31: +4 HPN for fire into or through a smoke hex, four columns left; two smoke hexes block
    ctx = aworld(MORTAR, [])
    st, sc = ctx.state, ctx.sc
    st.smoke = {"0705": 2}
    line = sc.board.grid.line("0905", "0505")
    assert "0705" in line
    assert smoke.smoke_drm(st, sc, "0905", "0505") == 4 and smoke.smoke_shift(st, sc, "0905", "0505") == -4
    assert smoke.smoke_drm(st, sc, "0909", "0808") == 0
    st.smoke = {"0705": 2, "0604": 1}
    with pytest.raises(OrderError, match="20.31"):
        smoke.smoke_drm(st, sc, "0905", "0505")


def test_on_board_gun_minimum_range_ten():
    grant = [U("GR", "british", "grant", "0101", facing="SSE")]
    ctx = aworld(grant + [U("G1", "german", "ger-squad", "0505")], [])
    with pytest.raises(OrderError, match="20.21"):
        fire(ctx, "GR at 0505")


def test_on_board_gun_fires_indirectly_beyond_ten_hexes():
    # 20.01-20.03: the Grant's 75 mm HE at 13 hexes, like a mortar; marked fired (20.02)
    ctx = aworld([U("GR", "british", "grant", "0101", facing="SSE"), U("G1", "german", "ger-squad", "1110")],
                 [6, 10, 10, 10, 10])
    assert ctx.sc.board.grid.distance("0101", "1110") >= 10
    fire(ctx, "GR at 1110")
    f, = events(ctx, IndirectFired)
    assert (f.what, f.frag, f.need, f.stage) == ("gun", 14, 2, 4) and ctx.state.pieces["GR"].fired
    with pytest.raises(OrderError, match="20.02"):
        fire(ctx, "GR at 1110")


def test_mortar_spotter_must_be_an_adjacent_leader():
    # 19.51: an adjacent leader or FO spots for the mortar and is marked fired
    ctx = aworld(MORTAR + [U("L1", "british", "aus-leader", "0908"), U("L2", "british", "aus-leader", "0505"),
                           U("G1", "german", "ger-squad", "0303")], [6, 10, 10, 10])
    with pytest.raises(OrderError, match="not adjacent"):
        fire(ctx, "M1 at 0303 by L2")
    fire(ctx, "M1 at 0303 by L1")
    assert events(ctx, IndirectFired)[0].spotter == "L1" and ctx.state.pieces["L1"].fired


def test_mortars_fire_after_off_board_artillery_not_before():
    # 19.03: once a mortar has fired, off-board artillery may not (the phase's order, 5.111)
    ctx = aworld(MORTAR + [U("FO1", "british", "fo-brit", "0808"), U("G1", "german", "ger-squad", "0505")],
                 [6, 10, 10, 10])
    fire(ctx, "M1 at 0505")
    with pytest.raises(OrderError, match="19.03"):
        indirect.call(ctx, "BTY1 at 0505".split())


def test_a_hidden_mortar_fires_and_is_revealed_unit_side_up():
    # 32.2111: a hidden unit that fires is placed on the map unit side up (with its crew)
    from pbem.games.advanced_tobruk.fog_events import Revealed
    ctx = aworld([U("C1", "british", "brit-crew", None), U("M1", "british", "mortar-3in", None, holder="C1"),
                  U("G1", "german", "ger-squad", "0505")], [6, 10, 10, 10], li=True)
    for u in ("C1", "M1"):
        ctx.state.pieces[u].hidden_at = "0909"
    assert indirect.can_act(ctx.state, ctx.sc, "british")
    fire(ctx, "M1 at 0505")
    rev, = events(ctx, Revealed)
    assert rev.units == ["C1", "M1"] and rev.face_up and ctx.state.units["M1"].hex == "0909"


def test_rock_strewn_terrain_shifts_indirect_he_one_column_right(monkeypatch):
    # 17.81: the miss's 7 FRAG ('6' column) is read one column right, on the '8'
    ctx = aworld(MORTAR + [U("G1", "german", "ger-squad", "0505")], [6, 10, 10, 10])
    monkeypatch.setitem(ctx.sc.board.terrain, "0505", "rock-strewn")      # the scenario is cached per process
    fire(ctx, "M1 at 0505")
    a, = events(ctx, CasualtyAttack)
    assert (a.factors, a.column) == (7, 8) and "rock-strewn terrain (17.81) +1" in a.shifts


def test_a_mortar_needs_a_line_of_sight_or_a_spotter(monkeypatch):
    # 19.13 / 19.51: a mortar fires along its own line of sight; terrain blocking it is refused before any roll
    from pbem.games.advanced_tobruk.board import spotting
    ctx = aworld(MORTAR + [U("G1", "german", "ger-squad", "0505")], [6, 10, 10, 10])
    monkeypatch.setattr(spotting, "los_clear", lambda st, sc, a, b: False)
    with pytest.raises(OrderError, match="no line of sight"):
        fire(ctx, "M1 at 0505")
    assert ctx.events == []
