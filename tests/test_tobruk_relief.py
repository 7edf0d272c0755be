"""Advanced Tobruk, deirs and wadis (33.4, 33.7) and hull defilade (31.35c, 31.36, 33.35,
33.43, 33.53, 33.63, 33.74, 33.8) on the perimeter test map (perimeter_kit.py); the example
under 33.83 as far as the text gives it.  Each test names its rule and scripts its dice."""
from __future__ import annotations

import pytest

from pbem.core.orders import GameVerb, OrderError
from pbem.games.advanced_tobruk.artillery import artillery
from pbem.games.advanced_tobruk.board import defilade, relief
from pbem.games.advanced_tobruk.fire import fire_personnel
from pbem.games.advanced_tobruk.turn import movement
from pbem.games.advanced_tobruk.fire_events import CasualtyAttack, GunFired
from pbem.games.advanced_tobruk.perimeter_events import HullDefilade

from perimeter_kit import U, evs, pmake, pworld
from tobruk_kit import MOVEMENT

PAD = [5] * 12
FAR_B = U("B9", "british", "aus-squad", None)


def fire(ctx, text: str) -> None:
    fire_personnel.handle_fire(ctx, GameVerb(word="fire", args=text.split()))


def plan(ctx, word: str, text: str):
    names, *steps = text.split()
    ids = movement.check_movers(ctx, names.split("+"), word)
    return movement.plan(ctx, ids, word, movement.parse_steps(steps))


# --- 33.42, 33.43 deirs: the example under 33.83 -------------------------------------------------

def deir(obs: str, tgt: str = "1009", features=None, **t):
    return pworld([U("T", "british", "aus-squad", tgt, **t), U("O", "german", "ger-squad", obs)], [1, *PAD],
                  features=features)


def test_33_42_a_squad_at_the_deirs_edge_sees_into_it_one_hex_back_it_does_not():
    # '15' beside the deir (1007, its S hexside the contour down to 1008) sees '13' deep in it
    # (1009); one hex back (1006) it cannot, and its fire there is refused (33.42 as the example reads)
    assert relief.blocked((c := deir("1007")).state, c.sc, "O", "1007", "T", "1009") == ""
    ctx = deir("1006")
    with pytest.raises(OrderError, match="deep in the deir") as e:
        fire(ctx, "O at 1009")
    assert e.value.rule == "33.42" and ctx.events == []


def test_33_42_unless_the_squad_in_the_deir_runs_or_moves_by_assault_movement():
    ctx = deir("1006")
    p = ctx.state.pieces["T"]
    p.move, p.moved = "assault", True
    fire(ctx, "O at 1009")
    assert evs(ctx, CasualtyAttack)[0].hex == "1009"
    p.move = "crawl"                                             # crawling is STATIONARY: unseen again
    assert relief.blocked(ctx.state, ctx.sc, "O", "1006", "T", "1009")


def test_33_42_from_level_ten_or_from_a_hillock_within_five_hexes_a_unit_sees_into_the_deir():
    assert not relief.blocked((c := deir("1006", features={"hillock10": ["1006"]})).state, c.sc, "O", "1006", "T", "1009")
    assert not relief.blocked((c := deir("1006", features={"hillock": ["1006"]})).state, c.sc, "O", "1006", "T", "1009")
    assert relief.blocked((c := deir("1002", features={"hillock": ["1002"]})).state, c.sc, "O", "1002", "T", "1009")


def test_33_42_works_both_ways_the_squad_deep_in_the_deir_cannot_fire_out():
    ctx = deir("1006")
    ctx.side = "british"
    with pytest.raises(OrderError, match="33.42"):
        fire(ctx, "T at 1006")


def test_33_43_personnel_at_the_lip_in_good_cover_against_non_adjacent_fire_only():
    # '21' at the lip (0909: its N hexside a contour) is in GOOD cover to '15' three hexes back (0906);
    # '15' adjacent (0908) denies it (STATIONARY)
    ctx = deir("0906", tgt="0909")
    fire(ctx, "O at 0909")
    assert "good (deir contour, 33.43) -1" in evs(ctx, CasualtyAttack)[0].shifts
    ctx = deir("0908", tgt="0909")
    fire(ctx, "O at 0909")
    assert evs(ctx, CasualtyAttack)[0].shifts == []


def test_33_43_an_afv_at_the_lip_is_in_hull_defilade_to_non_adjacent_fire():
    # the A13 in 0909 takes its position at once (a contour hexside in its hex); the Pz III's hit (1)
    # on the upper hull (location 4) from 0906 does nothing; the same hit from 0908 (adjacent) counts
    ctx = pworld([U("T", "british", "a13", "0909", facing="NNE"), U("P", "german", "pz3g", "0906", facing="SSE")],
                 [1, 4, 10, 10, *PAD])
    defilade.after_setup(ctx)
    (hd,) = evs(ctx, HullDefilade)
    assert (hd.unit, hd.position, hd.rolls) == ("T", "contour", [])
    fire(ctx, "P at T with 50mm")
    r = evs(ctx, GunFired)[0].rounds[0]
    assert r.hit and r.location == "UH" and "hull defilade" in r.result and r.kill_roll == 0
    ctx = pworld([U("T", "british", "a13", "0909", facing="NNE"), U("P", "german", "pz3g", "0908", facing="SSE")],
                 [1, 4, 10, 10, *PAD])
    defilade.after_setup(ctx)
    fire(ctx, "P at T with 50mm")
    assert "hull defilade" not in evs(ctx, GunFired)[0].rounds[0].result                 # 31.36


# --- 33.7 wadis ---------------------------------------------------------------------------------

def wadi(at: str, rim: int = -1, **more):
    units = [U("W", "british", "aus-squad", "1203"), U("G", "german", "ger-squad", at)]
    ctx = pworld(units, [1, *PAD], **more)
    ctx.state.pieces["W"].rim = rim
    return ctx


def test_33_751_a_unit_down_in_a_wadi_sees_and_is_seen_only_from_adjacent_hexes():
    ctx = wadi("1403")
    with pytest.raises(OrderError, match="down in the wadi") as e:
        fire(ctx, "G at 1203")
    assert e.value.rule == "33.751"
    ctx = wadi("1303")
    fire(ctx, "G at 1203")
    assert "good (wadi, 33.73) -1" in evs(ctx, CasualtyAttack)[0].shifts          # 33.73 as on a hedgehog


def test_33_74_up_in_a_good_position_a_unit_fires_across_its_hexsides_only():
    # W up facing NE (the wadi runs N-S through 1203): it looks over NE and SE, not over the west
    ctx = wadi("1403", rim=1)
    fire(ctx, "G at 1203")
    assert "good (wadi, 33.73) -1" in evs(ctx, CasualtyAttack)[0].shifts
    ctx = wadi("1003", rim=1)
    with pytest.raises(OrderError, match="looks over") as e:
        fire(ctx, "G at 1203")
    assert e.value.rule == "33.74"


def test_33_74_going_up_costs_four_mp_or_a_crawl_only_across_a_dry_hexside():
    ctx = wadi("0101")
    ctx.side = "british"
    assert plan(ctx, "crawl", "W rim NE").covers == ["rim:1"]
    with pytest.raises(OrderError, match="4 MP"):
        plan(ctx, "assault", "W rim NE")
    with pytest.raises(OrderError, match="crosses the N hexside") as e:
        plan(ctx, "crawl", "W rim N")
    assert e.value.rule == "33.74"


def test_33_741_from_its_good_position_a_unit_leaves_only_across_its_own_side():
    ctx = wadi("0101", rim=1)
    ctx.side = "british"
    with pytest.raises(OrderError, match="come down first") as e:
        plan(ctx, "assault", "W 1104")
    assert e.value.rule == "33.741"
    assert plan(ctx, "assault", "W 1303").steps == ["1303"]
    assert [str(c) for c in plan(ctx, "assault", "W down 1202").costs] == ["1", "2"]


def test_33_72_a_wadi_costs_two_to_enter_and_to_leave_its_end_one():
    ctx = pworld([U("A", "british", "aus-squad", "1102"), U("B", "british", "aus-squad", "1203")], side="british")
    assert [str(c) for c in plan(ctx, "run", "A 1202 1203 1204 1304").costs] == ["2", "2", "1", "1"]
    assert [str(c) for c in plan(ctx, "assault", "B 1303").costs] == ["2"]


def test_33_73_full_cover_in_a_wadi_counts_as_stationary_against_indirect_fire():
    ctx = pworld([U("W", "british", "aus-squad", "1203", full=True), U("T", "british", "aus-squad", "0405", full=True)])
    assert artillery.cover_drm(ctx.state, ctx.sc, "W") == 0 and artillery.cover_drm(ctx.state, ctx.sc, "T") == 2


# --- hull defilade by a roll: 33.53, 33.63, 33.35; 33.81, 33.83 --------------------------------------

@pytest.mark.parametrize("hex, roll, gained", [("0202", 1, True), ("0202", 2, False), ("0602", 2, True),
                                               ("0602", 3, False)])
def test_33_63_33_53_an_afv_rolls_for_hull_defilade_after_all_set_up(tmp_path, hex, roll, gained):
    # scrub 1, rock-strewn 2 or less (33.63, 33.53)
    t = pmake(tmp_path, [U("P", "german", "pz3g", hex, facing="NNE"), FAR_B], dice=(roll,) + (1, 2) * 4, setup=False)
    t.ok("british", "pass")
    (hd,) = evs(t.ok("german", "pass"), HullDefilade)
    assert (hd.rolls, hd.gained, hd.position) == ([roll], gained, "rolled")
    assert bool(t.state().pieces["P"].hd) is gained


def test_33_63_no_roll_on_a_card_without_hull_defilade(tmp_path):
    t = pmake(tmp_path, [U("P", "german", "pz3g", "0202", facing="NNE"), FAR_B], dice=(2, 1) * 4,
              flags={"hull_defilade": False})
    assert t.phase() == (1, MOVEMENT) and not t.state().pieces["P"].hd


def test_33_63_entering_scrub_by_assault_movement_rolls_cross_country_does_not(tmp_path):
    t = pmake(tmp_path, [U("P", "german", "pz3g", "0303", facing="NNW"), FAR_B], dice=(2, 1, 1) + (1, 2) * 6)
    out = t.ok("german", "assault P 0202")
    assert [(e.unit, e.rolls, e.gained) for e in evs(out, HullDefilade)] == [("P", [1], True)]
    t = pmake(tmp_path, [U("P", "german", "pz3g", "0303", facing="NNW"), FAR_B], dice=(2, 1) + (1, 2) * 6, name="h")
    assert not evs(t.ok("german", "cross P 0202"), HullDefilade)


def test_33_83_one_afv_a_hex_holds_a_hull_defilade_position():
    ctx = pworld([U("T", "british", "a13", "0202", facing="NNE"), U("P", "german", "pz3g", "0202", facing="SSE")])
    ctx.state.pieces["T"].hd = "rolled"
    defilade.take(ctx, "P", True)                                     # no roll: T holds the hex's position
    assert ctx.events == [] and not ctx.state.pieces["P"].hd


def test_33_81_an_afv_leaving_its_hex_loses_its_hull_defilade(tmp_path):
    t = pmake(tmp_path, [U("P", "german", "pz3g", "0202", facing="NNE"), FAR_B], dice=(1, 2, 1) + (1, 2) * 4)
    assert t.state().pieces["P"].hd == "rolled"
    t.ok("german", "cross P 0201")
    assert t.state().pieces["P"].hd == ""


def test_31_35c_a_turreted_afv_in_a_weapon_pit_shows_only_its_turret_beyond_one_hex():
    ctx = pworld([U("T", "british", "a13", "0502", facing="SSE"), U("P", "german", "pz3g", "0505", facing="NNE")],
                 [1, 8, 10, 10, *PAD])
    defilade.after_setup(ctx)
    assert ctx.state.pieces["T"].hd == "pit"
    fire(ctx, "P at T with 50mm")
    r = evs(ctx, GunFired)[0].rounds[0]
    assert r.location == "LH" and "hull defilade" in r.result


def test_31_35c_a_non_turreted_afv_in_a_pit_is_hit_on_its_upper_hull():
    ctx = pworld([U("T", "british", "td", "0502", facing="SSE"), U("P", "german", "pz3g", "0505", facing="NNE")],
                 [1, 3, 10, 10, *PAD])
    defilade.after_setup(ctx)
    fire(ctx, "P at T with 50mm")
    r = evs(ctx, GunFired)[0].rounds[0]
    assert r.location == "UH" and "hull defilade" not in r.result


def test_33_35_an_afv_on_a_hillocks_crest_in_hull_defilade_to_fire_from_below_across_the_contour():
    # 0103 (+5) has contour hexsides down to 0102, 0202, 0203: fire from 0402 comes across one;
    # fire from 0105 comes along the hillock (through 0104, +5): no defilade
    for frm, face, covered in (("0402", "W", True), ("0105", "NNW", False)):
        ctx = pworld([U("T", "british", "a13", "0103", facing="SSE"), U("P", "german", "pz3g", frm, facing=face)],
                     [1, 4, 10, 10, *PAD])
        defilade.after_setup(ctx)
        assert ctx.state.pieces["T"].hd == "crest"
        fire(ctx, "P at T with 50mm")
        assert ("hull defilade" in evs(ctx, GunFired)[0].rounds[0].result) is covered


def test_33_43_a_wreck_down_in_a_deir_does_not_touch_a_line_between_level_ground():
    from pbem.games.advanced_tobruk.fire import fire_ap
    ctx = pworld([U("W", "german", "pz3g", "1008", facing="NNE"), U("X", "german", "pz3g", "0907", facing="NNE")])
    ctx.state.pieces["W"].wreck = ctx.state.pieces["X"].wreck = "wreck"
    ctx.state.units["W"].eliminated = ctx.state.units["X"].eliminated = True
    assert fire_ap.los_drm(ctx.state, ctx.sc, "0106", "1208") == (0, [])        # through 1008, down in the deir
    assert fire_ap.los_drm(ctx.state, ctx.sc, "0906", "0908")[0] == 1           # 0907 on the plain: +1


def test_33_74_an_afv_up_in_a_wadi_position_is_in_hull_defilade_until_it_comes_down(tmp_path):
    far = U("G9", "german", "ger-squad", None)
    t = pmake(tmp_path, [U("T", "british", "a13", "1203", facing="NNE"), far], dice=(1, 2) * 6)
    assert t.phase() == (1, MOVEMENT)
    out = t.ok("british", "cross T rim NE")
    assert [(e.unit, e.position) for e in evs(out, HullDefilade)] == [("T", "rim")]
    assert t.state().pieces["T"].rim == 1 and t.state().pieces["T"].hd == "rim"
    ctx = pworld([U("T", "british", "a13", "1203", facing="NNE", rim="NE")])
    defilade.after_setup(ctx)
    assert ctx.state.pieces["T"].hd == "rim"
    assert defilade.covers(ctx.state, ctx.sc, "T", "1403") and not defilade.covers(ctx.state, ctx.sc, "T", "1003")
    from pbem.games.advanced_tobruk.perimeter_events import apply_cover
    apply_cover(ctx.state.pieces["T"], "top")
    assert ctx.state.pieces["T"].hd == ""


def test_33_751_gunfire_at_an_afv_down_in_a_wadi_needs_an_adjacent_firer():
    # twelve factors could call for a suppression roll (30.02), but not from two hexes off the wadi
    units = [U("T", "german", "pz3g", "1203", facing="NNE"), U("A", "british", "aus-squad", "1403"),
             U("B", "british", "aus-squad", "1403")]
    ctx = pworld(units, [1], side="british")
    from pbem.games.advanced_tobruk.fire import eligible
    assert eligible.eligible_firers(ctx.state, ctx.sc, "T", "direct-fire") == []
    with pytest.raises(OrderError, match="down in the wadi"):
        fire(ctx, "A+B at T")
