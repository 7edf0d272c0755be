"""Rules-fidelity review of Advanced Tobruk's indirect fire (18-20) and minefields (31.1):
each test failed before its fix.  Scripted dice, small worlds."""
from __future__ import annotations

import tomllib
from pathlib import Path

import pytest

from pbem.core.orders import OrderError
from pbem.games.advanced_tobruk.artillery import artillery, arty_words, indirect
from pbem.games.advanced_tobruk import data
from pbem.games.advanced_tobruk.mines import mines
from pbem.games.advanced_tobruk.arty_events import DirectHitRolled, VehicleStruck
from pbem.games.advanced_tobruk.mine_events import MineEntered
from pbem.games.advanced_tobruk.mines_state import Minefield

from test_tobruk_artillery_kit import FO, U, aworld, events
from tobruk_fire_helpers import world


def test_20_03_the_guns_los_drm_is_shown_beside_the_direct_hit_die():
    # 20.03: each +1 HPN along an on-board gun's line adds 1 to its direct-hit roll; the report
    # shows the die and the DRM, not only their sum
    ctx = aworld([U("GR", "british", "grant", "0101", facing="SSE"), U("G1", "german", "ger-squad", "1110")],
                 [1, 10])
    artillery.attack_hex(ctx, "GR", "1110", 14, 2, 1, size=75, mortar=True, frm="0101", drm=3, rule="20.03")
    dh, = events(ctx, DirectHitRolled)
    assert (dh.roll, dh.drm, dh.hit) == (1, 3, [])
    assert "direct-hit roll in 1110: 1 +3 LOS (20.03) = 4 against 2: miss" in arty_words.describe(dh, ctx.sc)


def test_31_03_a_single_units_cover_drm_is_shown_when_it_saves_it():
    # 19.17, 31.03: a 2 against 3 is a direct hit but for the FULL cover's +2; the words say why
    ctx = aworld([U("G1", "german", "ger-squad", "0505")], [2])
    ctx.state.pieces["G1"].full = True
    artillery.attack_hex(ctx, "BTY1", "0505", 20, 3, 1, size=88, mortar=False)
    dh, = events(ctx, DirectHitRolled)
    assert dh.hit == [] and dh.units == [["G1", "", "2"]]
    assert "2 against 3: cover G1 +2 (31.03); the cover saves it" in arty_words.describe(dh, ctx.sc)


def test_19_22_an_open_topped_afv_missed_is_read_on_the_non_afv_table(monkeypatch):
    # 19.2, 19.22: an open-topped AFV (the type's open_top, as melee reads it) missed by indirect
    # HE takes the FRAG on the Non-AFV table, like a direct hit treats it as open
    ctx = aworld([U("T", "german", "td", "0505", facing="NNE")], [9, 5])
    monkeypatch.setitem(data.types(ctx.sc)["td"], "open_top", True)      # the parsed card is shared
    artillery.attack_hex(ctx, "BTY1", "0505", 20, 3, 1, size=88, mortar=False)
    v, = events(ctx, VehicleStruck)
    assert v.how == "soft-frag" and v.column == "18"


def test_32_2_no_direct_hit_roll_betrays_a_hidden_minefield_or_hidden_units():
    # a roll made only because of hidden things would tell the firer they are there (31.15, 32.2)
    ctx = aworld([U("G0", "german", "ger-squad", None)], [5, 5, 5])
    ctx.state.pieces["G0"].hidden_at = "0606"
    ctx.state.minefields["0505"] = Minefield(side="german", density=3, hidden=True, note="mine-1")
    artillery.attack_hex(ctx, "BTY1", "0505", 20, 3, 1, size=88, mortar=False)
    artillery.attack_hex(ctx, "M1", "0606", 8, 2, 1, size=50, mortar=True)        # under 14 FRAG: no reveal
    assert events(ctx, DirectHitRolled) == [] and ctx.state.units["G0"].hex is None
    ctx.state.minefields["0707"] = Minefield(side="german", density=3, note="mine-2")   # on both maps
    artillery.attack_hex(ctx, "BTY1", "0707", 20, 3, 1, size=88, mortar=False)
    assert [e.hex for e in events(ctx, DirectHitRolled)] == ["0707"]


def test_18_861_terrain_blocks_the_fos_line_of_sight(monkeypatch):
    # 18.861: the FO sees its target unless smoke, wrecks or terrain block the line
    ctx = aworld([FO, U("G1", "german", "ger-squad", "0505")], [3, 6, 10, 10, 10, 10, 10, 10, 10, 10])
    mid = [h for h in ctx.sc.board.grid.line("0909", "0505") if h not in ("0909", "0505")][1]
    monkeypatch.setitem(ctx.sc.board.terrain, mid, "hillock")           # the parsed map is shared
    with pytest.raises(OrderError, match=r"no line of sight.*18\.861"):
        indirect.call(ctx, "BTY1 at 0505".split())
    assert ctx.events == []


def test_31_174_a_vehicle_that_forces_lays_the_lane_even_if_another_fails():
    # two panzers enter together by assault movement: P1 rolls 3 (not > 3, M-KILLed), P2 rolls 4
    ctx = world([U("P1", "german", "pz3g", "0505", facing="NNE"), U("P2", "german", "pz3g", "0505", facing="NNE")],
                [3, 4, 9])
    ctx.state.minefields = {"0505": Minefield(side="british", density=3, note="mine-1")}
    for u in ("P1", "P2"):
        p = ctx.state.pieces[u]
        p.move, p.moving, p.moved = "assault", True, True
    mines.on_enter(ctx, ["P1", "P2"], "0505", "assault")
    ev, = events(ctx, MineEntered)
    assert ev.failed == ["P1"] and ev.lane and ctx.state.minefields["0505"].lane


def test_19_15_an_afv_k_killed_by_indirect_fire_shows_its_burn_number():
    # the K-KILL's wreck burns or not by the K-KILL Table's burn number: the words give it
    ctx = aworld([FO, U("P2", "german", "pz2f", "0505", facing="SSE")], [3, 6, 10, 1, 2, 1])
    indirect.call(ctx, "BTY1 at 0505".split())
    v, = events(ctx, VehicleStruck)
    assert v.result.startswith("K-KILL") and v.burn_number
    assert (f"K-KILL on less than 2, rolled 1, burning on {v.burn_number} or less"
            in arty_words.describe(v, ctx.sc))


def test_18_02_a_battery_that_fired_this_phase_may_not_also_open_counter_battery_fire():
    # one fire mission per battery a phase: GB1 has placed its FFE (activated), so no counter-battery
    from pbem.games.advanced_tobruk.arty_state import Battery
    ctx = aworld([FO], [], side="german")
    ctx.state.batteries["BTY1"] = Battery(side="british", located=True)
    ctx.state.step.acted = ["GB1"]
    with pytest.raises(OrderError, match=r"already fired this phase.*18\.02"):
        artillery.counter_battery(ctx, ["GB1", "at", "BTY1"])
    assert ctx.events == []


def test_18_61_the_report_says_where_the_seven_rolls_are_made():
    # 18.61 speaks of seven rolls; an empty hex gets none (our decision): the words say so
    ctx = aworld([FO, U("G1", "german", "ger-squad", "0505")], [3, 4, 10, 10, 10])
    indirect.call(ctx, "BTY1 at 0505".split())
    from pbem.games.advanced_tobruk.arty_events import IndirectFired
    fired, = events(ctx, IndirectFired)
    assert "7 direct-hit rolls due (made where units or a known minefield are)" in arty_words.describe(fired, ctx.sc)
    assert len(events(ctx, DirectHitRolled)) == 1


def test_19_05_the_reconstructed_3_inch_mortar_range_agrees_with_the_salient_card(monkeypatch):
    # two reconstructions of the same weapon must not disagree: 32-3 hexes on the card and in the table
    from pbem.games.advanced_tobruk.artillery import mortar
    ctx = aworld([U("C1", "british", "brit-crew", "0909"), U("M1", "british", "mortar-3in", "0909", holder="C1")])
    card = data.types(ctx.sc)["mortar-3in"]
    monkeypatch.delitem(card, "range")
    salient = tomllib.loads((Path(__file__).parents[1] / "scenarios" / "tobruk-salient.toml").read_text())
    assert mortar.mortar_range(ctx.sc, "M1") == (32, 3) == tuple(salient["game_data"]["types"]["mortar-3in"]["range"])
