"""Advanced Tobruk, the perimeter's field works (issue 25 item 22): anti-tank trenches (31.7),
barbed wire (31.8), going under cover and dropping into FULL cover (31.02, 31.25, 15.22) and
bunkers (31.5).  Each test names its rule, scripts its dice and failed on the code before."""
from __future__ import annotations

import pytest

from pbem.core.orders import GameVerb, OrderError
from pbem.games.advanced_tobruk.artillery import artillery
from pbem.games.advanced_tobruk.fire import fire_personnel
from pbem.games.advanced_tobruk.turn import movement
from pbem.games.advanced_tobruk.events import Infiltrated, Stepped
from pbem.games.advanced_tobruk.fire_events import CasualtyAttack, GunFired, MeleeRound
from pbem.games.advanced_tobruk.perimeter_events import CoverChanged, Immobilized, ObstacleCleared
from pbem.games.advanced_tobruk.state import FireOrder, StandingOrders

from perimeter_kit import U, evs, pmake, pworld
from tobruk_kit import INFILTRATION, MOVEMENT

FAR = U("G9", "german", "ger-squad", None)          # off the map: nobody fires, no first-fire roll
FAR_B = U("B9", "british", "aus-squad", None)


PAD = [5] * 12                                       # morale checks after a result


def to(t, turn: int, phase: int) -> None:
    """Pass until (turn, phase) is the current one."""
    while t.phase() != (turn, phase):
        t.ok(t.awaiting()[0]["side"], "pass")


def plan(ctx, word: str, text: str):
    names, *steps = text.split()
    ids = movement.check_movers(ctx, names.split("+"), word)
    return movement.plan(ctx, ids, word, movement.parse_steps(steps))


def fire(ctx, text: str) -> None:
    fire_personnel.handle_fire(ctx, GameVerb(word="fire", args=text.split()))


# --- 31.73 anti-tank trenches -------------------------------------------------------------

def test_31_73_no_vehicle_enters_an_anti_tank_trench_but_personnel_do():
    ctx = pworld([U("P", "german", "pz3g", "0304", facing="SSE"), U("A", "german", "ger-squad", "0304")])
    with pytest.raises(OrderError, match="anti-tank trench") as e:
        plan(ctx, "cross", "P 0305")
    assert e.value.rule == "31.73"
    with pytest.raises(OrderError, match="31.73"):
        plan(ctx, "assault", "P 0305 overrun X")
    assert plan(ctx, "assault", "A 0305").steps == ["0305"]


# --- 31.83, 31.84 barbed wire --------------------------------------------------------------

def test_31_83_no_wheeled_vehicle_enters_wire():
    ctx = pworld([U("T", "german", "truck", "0302", facing="SSE")])
    with pytest.raises(OrderError, match="wheeled") as e:
        plan(ctx, "cross", "T 0303")
    assert e.value.rule == "31.83"


@pytest.mark.parametrize("roll, where, mkill", [(1, "0303", True), (2, "0304", False)])
def test_31_83_a_tracked_vehicle_entering_wire_rolls_for_immobilization(tmp_path, roll, where, mkill):
    # the reconstructed table: a tracked vehicle is immobilized on 1; immobilized it stops in the wire
    t = pmake(tmp_path, [U("P", "german", "pz3g", "0302", facing="SSE"), FAR_B], dice=(2, 1, roll) + (1, 2) * 4)
    assert t.phase() == (1, MOVEMENT)
    out = t.ok("german", "cross P 0303 0304")
    (im,) = evs(out, Immobilized)
    assert (im.unit, im.hex, im.rolls, im.number, im.mkill) == ("P", "0303", [roll], 1, mkill)
    assert t.hex_of("P") == where and t.state().pieces["P"].m_kill is mkill


def test_31_84_personnel_enter_wire_only_by_crawling_and_leave_it_freely():
    ctx = pworld([U("A", "british", "aus-squad", "0302"), U("B", "british", "aus-squad", "0303")], side="british")
    for word in ("assault", "run"):
        with pytest.raises(OrderError, match="only by crawling") as e:
            plan(ctx, word, "A 0303")
        assert e.value.rule == "31.84"
    assert plan(ctx, "crawl", "A 0303").steps == ["0303"]
    assert plan(ctx, "assault", "B 0304 0305").steps == ["0304", "0305"]          # out of the wire freely


def test_31_84_infiltration_enters_wire(tmp_path):
    t = pmake(tmp_path, [U("A", "british", "aus-squad", "0302"), FAR], dice=(1, 2) * 3)
    to(t, 1, INFILTRATION)
    out = t.ok("british", "infiltrate A 0303")
    assert evs(out, Infiltrated)[0].hex == "0303"


@pytest.mark.parametrize("size, cleared", [(150, True), (105, False)])
def test_31_85_a_direct_hit_of_149mm_he_clears_the_wire(size, cleared):
    # an empty wire hex still gets its direct-hit roll (the wire is on both maps): 1 <= 3
    ctx = pworld([U("A", "british", "aus-squad", "0302")], dice=[1], side="german")
    artillery.attack_hex(ctx, "B1", "0303", 20, 3, 1, size=size, mortar=False, ffe="concentration")
    assert bool(evs(ctx, ObstacleCleared)) is cleared
    if cleared:
        ctx.side = "british"
        assert plan(ctx, "assault", "A 0303").steps == ["0303"]


# --- 31.02, 31.25, 31.74 going under cover, 31.256 moving under it -----------------------------

def test_31_02_going_under_costs_one_more_movement_point():
    ctx = pworld([U("A", "british", "aus-squad", "0304")], side="british")
    pl = plan(ctx, "assault", "A 0305 under 0405")
    assert [str(c) for c in pl.costs] == ["1", "1", "1"] and pl.covers == ["", "full", "full"]
    with pytest.raises(OrderError, match="4 MP"):
        plan(ctx, "assault", "A 0305 under 0405 0505 out 0506")
    with pytest.raises(OrderError, match="nothing to go under") as e:
        plan(ctx, "assault", "A 0204 under")
    assert e.value.rule == "31.02"
    assert plan(ctx, "crawl", "A 0305 under").covers == ["", "full"]            # 31.254 crawl in and under


def test_31_256_a_unit_under_cover_moves_along_the_trench_and_comes_out_leaving_it(tmp_path):
    t = pmake(tmp_path, [U("A", "british", "aus-squad", "0304"), FAR], dice=(1, 2) * 6)
    t.ok("british", "assault A 0305 under 0405")
    assert t.hex_of("A") == "0405" and t.state().pieces["A"].full
    to(t, 2, MOVEMENT)
    assert t.state().pieces["A"].full                                          # 31.253 it stays under
    out = t.ok("british", "assault A 0406")
    assert [s.cover for s in evs(out, Stepped)] == [""]
    assert not t.state().pieces["A"].full


# --- 15.22, 31.253 dropping into FULL cover when fired on ----------------------------------------

def drop_world(dice, drop=True, **a):
    ctx = pworld([U("A", "british", "aus-squad", "0305", **a), U("G", "german", "ger-squad", "0307")], dice)
    if drop:
        ctx.state.orders = {"british": StandingOrders(default=FireOrder(drop=True))}
    return ctx


def test_15_22_a_unit_in_a_trench_drops_into_full_cover_before_the_casualty_roll():
    # the Australians' standing order says drop: A goes under before the die; the gunfire then
    # has no effect on it (15.712116) although the roll is a 1, and G is marked fired (31.253)
    ctx = drop_world([1])
    fire(ctx, "G at 0305")
    (d,) = evs(ctx, CoverChanged)
    assert (d.units, d.cover, d.why) == (["A"], "full", "drop")
    (a,) = evs(ctx, CasualtyAttack)
    assert a.result == 0 and a.column == 0 and ctx.state.pieces["A"].full and ctx.state.pieces["G"].fired
    assert ctx.events.index(d) < ctx.events.index(a)


def test_15_22_without_the_order_or_after_firing_a_unit_does_not_drop():
    for ctx in (drop_world([1, *PAD], drop=False), drop_world([1, *PAD])):
        if ctx.state.orders:
            ctx.state.pieces["A"].fired = True                                # 15.22: not marked as fired
        fire(ctx, "G at 0305")
        assert not evs(ctx, CoverChanged) and evs(ctx, CasualtyAttack)[0].result > 0


def test_15_22_a_drop_before_he_fire_changes_the_hit_number():
    # 31.03: GOOD +1 on top of the trench, FULL +2 once dropped (the drop comes before the HPT die)
    ctx = pworld([U("A", "british", "aus-squad", "0305"), U("P", "german", "pz3g", "0308", facing="NNE")],
                 [10, 10])
    ctx.state.orders = {"british": StandingOrders(default=FireOrder(drop=True))}
    fire(ctx, "P at A with 50mm")
    g = evs(ctx, GunFired)[0]
    assert "target full cover +2" in g.drms and evs(ctx, CoverChanged)
    assert not evs(ctx, CasualtyAttack)                                      # 16.11: misses reach nobody


# --- 31.5 bunkers -----------------------------------------------------------------------------

def bunker_world(dice=(), inside=("A",), **more):
    units = [U("A", "british", "aus-squad", "0707", full="A" in inside),
             U("Br", "british", "bren", "0707", holder="A"), *more.get("units", [])]
    return pworld(units, dice, side=more.get("side", "german"))


def test_31_53_personnel_and_their_machine_gun_fire_out_of_a_bunker():
    ctx = bunker_world([1, *PAD], units=[U("G", "german", "ger-squad", "0709")], side="british")
    fire(ctx, "A+Br at 0709")
    (a,) = evs(ctx, CasualtyAttack)
    assert a.firers == ["A", "Br"] and a.factors == 6 - 1 + 4                 # 8.431 the Bren costs A one


def test_31_53_no_gun_fires_from_inside_a_bunker():
    ctx = pworld([U("C", "british", "brit-crew", "0707", full=True),
                  U("Gun", "british", "2pdr-gun", "0707", holder="C", facing="SSE"),
                  U("P", "german", "pz3g", "0709", facing="NNE")], side="british")
    with pytest.raises(OrderError, match="FULL cover"):
        fire(ctx, "Gun at P")


@pytest.mark.parametrize("at, drm", [("0710", "in a bunker (31.58) +2"), ("0708", "in a bunker, one hex or less: no +2 (31.58) +0")])
def test_31_58_two_on_the_hit_number_except_at_one_hex(at, drm):
    ctx = bunker_world([10, 10, *PAD], units=[U("P", "german", "pz3g", at, facing="NNE")])
    fire(ctx, "P at A with 50mm")
    g = evs(ctx, GunFired)[0]
    assert drm in g.drms and not any("full cover" in d for d in g.drms)


def test_31_56_ap_at_a_bunkers_occupants_plus_four_each_hit_eight_frag_as_stationary():
    # +4: a hit (3); acquired (13.462, 13.463) the ROF doubles to three rounds, then two misses (10, 10)
    ctx = bunker_world([3, 10, 10, *PAD], units=[U("P", "german", "pz3g", "0709", facing="NNE")])
    fire(ctx, "P at A with 50mm ap")
    g = evs(ctx, GunFired)[0]
    assert g.ammo == "AP" and "AP at a bunker's occupants (31.56) +4" in g.drms
    assert [r.hit for r in g.rounds] == [True, False, False]
    (a,) = evs(ctx, CasualtyAttack)
    assert a.factors == 8 and a.rule == "31.56" and a.shifts == ["FULL cover"]  # as STATIONARY: no shift
    assert not evs(ctx, ObstacleCleared)                                       # 31.56: AP never destroys it


def test_31_54_an_88mm_he_hit_destroys_the_bunker_its_weapons_and_attacks_the_occupants_stationary():
    ctx = bunker_world([1, 5, *PAD], units=[U("Fk", "german", "flak88", "0710", holder="Cr", facing="NNE"),
                                      U("Cr", "german", "brit-crew", "0710")])
    fire(ctx, "Fk at A")
    (c,) = evs(ctx, ObstacleCleared)
    assert (c.feature, c.uncovered, c.effects) == ("bunker", ["A"], [["Br", "eliminated", ""]])
    st = ctx.state
    assert "0707:bunker" in st.cleared and not st.pieces["A"].full and st.units["Br"].eliminated
    (a,) = evs(ctx, CasualtyAttack)
    assert a.factors == 20 and a.shifts == []


def test_31_54_a_50mm_he_hit_leaves_the_bunker():
    ctx = bunker_world([1, 5, *PAD], units=[U("P", "german", "pz3g", "0709", facing="NNE")])
    fire(ctx, "P at A with 50mm")
    assert not evs(ctx, ObstacleCleared) and ctx.state.pieces["A"].full


def test_31_52_a_bunker_holds_three_stacking_points():
    ctx = pworld([U("A", "british", "aus-squad", "0706"), U("L", "british", "aus-leader", "0706")], side="british")
    with pytest.raises(OrderError, match="at most 3 stacking points") as e:
        plan(ctx, "assault", "A+L 0707 under")
    assert e.value.rule == "31.52"
    assert plan(ctx, "assault", "A 0707 under").covers == ["", "full"]


def test_31_571_infiltrating_into_a_bunker_hex_held_inside_starts_no_melee(tmp_path):
    t = pmake(tmp_path, [U("A", "british", "aus-squad", "0707", full=True), U("G", "german", "ger-squad", "0706")],
              dice=(1, 2) * 6)
    to(t, 1, INFILTRATION)
    while t.state().step.to_act != "german":
        t.ok("british", "pass")
    out = t.ok("german", "infiltrate G 0707")
    assert evs(out, Infiltrated)[0].melee is False and t.state().melees == []
    assert not t.state().pieces["A"].melee


def test_31_572_same_hex_fire_occupants_in_good_cover_the_enemy_on_top_in_none():
    ctx = pworld([U("A", "british", "aus-squad", "0707", full=True), U("G", "german", "ger-squad", "0707")], [1, *PAD, 1, *PAD])
    fire(ctx, "G at 0707")
    (a,) = evs(ctx, CasualtyAttack)
    assert any("31.572" in s for s in a.shifts) and a.result > 0
    ctx.side = "british"
    fire(ctx, "A at 0707")
    b = evs(ctx, CasualtyAttack)[1]
    assert b.shifts == [] and b.firers == ["A"]


def test_31_571_infiltrating_out_of_the_bunker_starts_the_melee(tmp_path):
    t = pmake(tmp_path, [U("A", "british", "aus-squad", "0707", full=True), U("G", "german", "ger-squad", "0707")],
              dice=(1, 2) * 8)
    to(t, 1, INFILTRATION)
    if t.state().step.to_act != "british":
        t.ok("german", "pass")
    out = t.ok("british", "infiltrate A out")
    assert [e.cover for e in evs(out, CoverChanged)] == ["top"] and evs(out, Infiltrated)[0].melee
    rounds = evs(out, MeleeRound)                                               # the phase ends: the melee now
    assert rounds and rounds[0].attackers == ["A"] and rounds[0].defenders == ["G"]
