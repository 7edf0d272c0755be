"""Advanced Tobruk: fire on the Hit Probability Table (12, 13, 16.1, 17.5, 30.02),
with the rulebook's worked examples and scripted dice.  Tables are the
reconstructed ones of fire_ap_tables.py."""
from __future__ import annotations

import pytest

from pbem.core.orders import OrderError
from pbem.games.advanced_tobruk.fire import fire_ap
from pbem.games.advanced_tobruk.tables import fire_ap_tables as T
from pbem.games.advanced_tobruk.fire_events import CasualtyAttack, GunFired, MoraleChecked
from pbem.games.advanced_tobruk.fire.fire_words import describe

from tobruk_fire_helpers import U, events, world


def tank_duel(dice, target_facing="SSE", turn=1, **extra):     # SSE: the sponson 75 bears on P (27.03)
    return world([U("P", "german", "pz3g", "0505", facing="NNE"),
                  U("G", "british", "grant", "0502", facing=target_facing, **extra)], dice, turn=turn)


# --- the numbers ---------------------------------------------------------------------

def test_hpt_grant_75_hits_on_9_at_range_3():
    # 11.85 example: the Grant's 75 mm needs 9 or less at range 3 (our rating B)
    assert fire_ap.hpt_number("B", 75, 3) == 9


def test_hpt_gun_size_column_from_17_hexes():
    # 13.12: from 17 hexes guns of 75 mm and more use the '75' column, smaller ones the '70'
    assert fire_ap.hpt_number("B", 75, 20) == 3
    assert fire_ap.hpt_number("B", 50, 20) == 2
    assert fire_ap.hpt_number("D", 50, 20) is None          # '-': may not fire (13.23)


def test_pivot_drms_fast_slow_turret_and_fixed_gun():
    # 12.233 and the 13.46 example: fast +1 per spine; slow (Pz IIf) +2 then +1
    assert [fire_ap.pivot_drm("fast", n) for n in (0, 1, 2)] == [0, 1, 2]
    assert [fire_ap.pivot_drm("slow", n) for n in (1, 2)] == [2, 3]
    # 8.512 and the 15.711 example: a tank destroyer +3 for the first spine, +1 after
    assert [fire_ap.pivot_drm("fixed", n) for n in (1, 2)] == [3, 4]


def test_hit_location_tables_as_printed():
    # 13.5221 / 13.5222
    assert [T.HIT_LOCATION_TURRETED[r] for r in (1, 2, 3, 6, 7, 9, 10)] == ["TUR", "TUR", "UH", "UH", "LH", "LH", "TR"]
    assert [T.HIT_LOCATION_HULL[r] for r in (1, 5, 6, 9, 10)] == ["UH", "UH", "LH", "LH", "TR"]


# --- AP against an AFV ------------------------------------------------------------------

def test_ap_hit_penetrates_and_brews_up():
    # hit 4 <= 9; location 5 = UH, front armour 11; 50 mm L42 at 3 hexes = 12: +1, K-KILL on less
    # than 4, burning on 2 or less: roll 2 = burning wreck; the second round is not fired
    ctx = tank_duel([4, 5, 2])
    fire_ap.fire_gun(ctx, "P", "", "G")
    (ev,) = events(ctx, GunFired)
    assert (ev.hpn, ev.need, ev.rof, ev.rolls) == (9, 9, 2, [4, 5, 2])
    rd = ev.rounds[0]
    assert (rd.location, rd.aspect, rd.armour, rd.pen, rd.kill_number, rd.burn_number) == ("UH", "front", 11, 12, 4, 2)
    assert ev.effects == [["G", "kkill", "burning"]]
    st = ctx.state
    assert st.units["G"].eliminated and st.pieces["G"].wreck == "burning"
    assert st.pieces["P"].fired and not ev.acquired
    text = describe(ev, ctx.sc)
    assert "HPN 9" in text and "penetration 12 vs armour 11" in text and "K-KILL roll 2 vs 4" in text


def test_kill_roll_equal_on_front_uh_goes_to_m_kill_table():
    # 13.6321: roll = K number on a front UH hit -> M-KILL Table (UH, 50-65 mm: 5); 3 -> M-KILL,
    # 13.6322 hull weapons F-KILLed: the Grant's main armament is its sponson 75, so 13.6332 its
    # crew bails out (no roll); suppression 6 > 5.  13.462-13.463: the hit acquires the Grant: the
    # one round left is doubled and hits on 12 or less: two track hits (TR 10) without M-KILL (9 > 6)
    # nor suppression (9)
    ctx = tank_duel([4, 5, 4, 3, 6, 10, 10, 9, 9, 10, 10, 9, 9])
    fire_ap.fire_gun(ctx, "P", "", "G")
    (ev,) = events(ctx, GunFired)
    assert (ev.rof, ev.need, ev.need_after) == (3, 9, 12) and "rest of the ROF doubled" in ev.rof_notes[0]
    assert ev.rounds[0].table == "M-KILL UH" and ev.rounds[0].table_number == 5
    # the Grant's hull weapons include its sponson 75, the main armament (13.91)
    assert ev.effects == [["G", "mkill", ""], ["G", "fkill", "hull"], ["G", "fkill", "main"],
                          ["G", "bailed", "13.6332"]]
    p = ctx.state.pieces["G"]
    assert p.m_kill and p.f_kill == ["hull", "main"] and p.bailed and not p.suppressed
    assert ctx.state.pieces["P"].bot == "G" and ev.acquired          # 13.461 a hit acquires


def test_kill_roll_equal_failing_the_table_is_a_k_kill():
    # 13.6321: no M-KILL on the table roll -> K-KILL instead (non-burning: the K roll 4 > burn 2)
    ctx = tank_duel([4, 5, 4, 9])
    fire_ap.fire_gun(ctx, "P", "", "G")
    (ev,) = events(ctx, GunFired)
    assert ev.effects == [["G", "kkill", "wreck"]]


def test_turret_hit_without_kill_suppresses_automatically():
    # 13.112: a turret hit rolled on the K-KILL Table suppresses if it does not K-KILL (no roll)
    ctx = tank_duel([3, 1, 8, 10, 10, 9, 10, 10, 9])
    fire_ap.fire_gun(ctx, "P", "", "G")
    (ev,) = events(ctx, GunFired)
    assert ev.rounds[0].location == "TUR" and ev.rounds[0].suppress_roll == 0
    assert ctx.state.pieces["G"].suppressed


def test_no_penetration_then_the_30_02_suppression_roll():
    # 20 mm (5) against 11: no penetration; the AFV fired on by AP still rolls on the Suppression Table
    ctx = world([U("P", "german", "pz2c", "0505", facing="NNE"),
                 U("G", "british", "grant", "0502", facing="SSW")], [5, 4, 10, 4, 10, 4, 2])
    fire_ap.fire_gun(ctx, "P", "", "G")
    (ev,) = events(ctx, GunFired)
    assert ev.rounds[0].result == "no penetration" and ev.rounds[0].kill_roll == 0
    assert ev.rounds[-1].result.startswith("fired on") and ctx.state.pieces["G"].suppressed


def test_moving_and_flank_drms():
    # 13.41 target moved +2; 13.453 flank aspect -1: need 9 - 1 = 8; two misses and a suppression roll
    ctx = tank_duel([9, 9, 6], target_facing="E")
    ctx.state.pieces["G"].moved = True
    fire_ap.fire_gun(ctx, "P", "", "G")
    (ev,) = events(ctx, GunFired)
    assert ev.need == 8 and "target moving +2" in ev.drms and "flank aspect -1" in ev.drms
    assert [r.hit for r in ev.rounds[:2]] == [False, False]


def test_bot_from_an_earlier_turn_lets_a_rof_1_gun_fire_twice():
    # 13.462 / 13.463: the Grant's 75 has acquired the Pz III last turn: -3 and two rounds
    ctx = world([U("G", "british", "grant", "0505", facing="NNW"),
                 U("P", "german", "pz3g", "0502", facing="SSW")],
                [3, 7, 9, 8, 5, 8, 6, 10, 2, 9, 3], side="british", turn=2)
    ctx.state.pieces["G"].bot, ctx.state.pieces["G"].bot_turn = "P", 1
    fire_ap.fire_gun(ctx, "G", "75", "P")
    (ev,) = events(ctx, GunFired)
    assert ev.need == 12 and ev.rof == 2 and "burst on target -3" in ev.drms
    # round 1: LH front 9 vs 14 (+5), K roll 9 = number -> M-KILL Table TR column (75+: 8): M-KILL
    assert ev.rounds[0].table == "M-KILL TR" and ev.rounds[0].result == "M-KILL"
    # round 2: track hit, M-KILL again, suppression roll 3 <= 7
    assert ev.rounds[1].location == "TR" and ctx.state.pieces["P"].suppressed


def test_sponson_gun_cannot_fire_outside_the_hull_arc_without_pivoting():
    # 11.85 example: the 75 mm sponson gun may not fire at the leader behind the tank
    ctx = world([U("G", "british", "grant", "0505", facing="NNE"), U("L", "german", "ger-leader", "0508")],
                side="british")
    with pytest.raises(OrderError, match="outside"):
        fire_ap.fire_gun(ctx, "G", "75", "L")


def test_gun_with_no_he_may_not_engage_personnel():
    # 11.85 example, 17.72: the Grant's 37 mm turret gun has no HE
    ctx = world([U("G", "british", "grant", "0505", facing="NNE"), U("C", "german", "ger-squad", "0502")],
                side="british")
    with pytest.raises(OrderError, match="no HE"):
        fire_ap.fire_gun(ctx, "G", "37", "C")


def test_grant_75_he_at_the_crew_example():
    # 11.85 example: 75 HE at the crew, range 3, hit on 9 or less; 14 FRAG (the '75' HE row),
    # a roll of 7 is C1: the crew flips to its reduced side and checks morale (+1); the crew is in
    # the sponson's arc, three hexes NE (27.03)
    ctx = world([U("G", "british", "grant", "0505", facing="NNE"), U("C", "german", "it-crew", "0803")],
                [9, 7, 3], side="british")
    fire_ap.fire_gun(ctx, "G", "75", "C")
    (ev,) = events(ctx, GunFired)
    assert (ev.ammo, ev.hpn, ev.need, ev.rounds[0].hit) == ("HE", 9, 9, True)
    (ca,) = events(ctx, CasualtyAttack)
    assert (ca.factors, ca.column, ca.roll, ca.result) == (14, 14, 7, 1)
    assert ctx.state.pieces["C"].steps == 1
    (mc,) = events(ctx, MoraleChecked)
    assert mc.drm == 1 and mc.result == "passed"


def test_he_miss_attacks_with_half_frag():
    # 16.12: a miss still attacks, at half the FRAG factors, in the target's cover
    ctx = world([U("G", "british", "grant", "0505", facing="NNE"), U("C", "german", "it-crew", "0803")],
                [10, 10], side="british")
    fire_ap.fire_gun(ctx, "G", "75", "C")
    (ca,) = events(ctx, CasualtyAttack)
    assert (ca.factors, ca.column) == (7, 6) and "halved" in ca.parts[0]


def test_hit_on_a_gun_over_20mm_f_kills_it_and_eliminates_its_crew():
    # 9.33: the 2-pdr (small target: +1) is F-KILLed and its crew eliminated
    ctx = world([U("P", "german", "pz3g", "0806", facing="NNE"), U("Gun1", "british", "2pdr-gun", "0803",
                 holder="C1", facing="SSE"), U("C1", "british", "brit-crew", "0803")], [5])
    fire_ap.fire_gun(ctx, "P", "", "Gun1")
    (ev,) = events(ctx, GunFired)
    assert ev.need == 8 and "target size +1" in ev.drms
    assert ctx.state.pieces["Gun1"].f_kill == ["main"] and ctx.state.units["C1"].eliminated


def test_apcr_is_counted_per_gun():
    # 17.23-17.25 (a known count here): one APCR round left -> one shot, then none
    ctx = world([U("P", "german", "pz3h", "0505", facing="NNE"),
                 U("G", "british", "grant", "0502", facing="SSW")], [10, 9], turn=1)
    ctx.state.pieces["P"].ammo = {"apcr": 1}
    fire_ap.fire_gun(ctx, "P", "", "G", ammo="APCR")
    (ev,) = events(ctx, GunFired)
    assert ev.rof == 1 and ev.ammo == "APCR" and ctx.state.pieces["P"].ammo == {"apcr": 0}
    ctx.state.pieces["P"].fired = False
    with pytest.raises(OrderError, match="no APCR rounds left"):
        fire_ap.fire_gun(ctx, "P", "", "G", ammo="APCR")


def test_a_gun_without_apcr_may_not_fire_it():
    ctx = tank_duel([])
    with pytest.raises(OrderError, match="no APCR"):
        fire_ap.fire_gun(ctx, "P", "", "G", ammo="APCR")


def test_two_burning_wrecks_block_the_line():
    # 13.72: +4 per burning wreck, two block the line of sight
    ctx = world([U("P", "german", "pz3g", "0505", facing="NNE"), U("G", "british", "grant", "0501", facing="SSW"),
                 U("W1", "british", "a13", "0504"), U("W2", "british", "a13", "0503")])
    for w in ("W1", "W2"):
        ctx.state.pieces[w].wreck, ctx.state.units[w].eliminated = "burning", True
    with pytest.raises(OrderError, match="block"):
        fire_ap.fire_gun(ctx, "P", "", "G")
    ctx.state.pieces["W2"].wreck = "wreck"
    assert fire_ap.los_drm(ctx.state, ctx.sc, "0505", "0501")[0] == 5


def test_fired_unit_may_not_fire_again():
    ctx = tank_duel([10, 10, 9])
    fire_ap.fire_gun(ctx, "P", "", "G")
    with pytest.raises(OrderError, match="already fired"):
        fire_ap.fire_gun(ctx, "P", "", "G")


# --- through the game ------------------------------------------------------------------

def test_direct_fire_through_the_game_replays_and_reports_every_step(tmp_path, fixed_clock):
    # first-fire roll (2, 1): the Germans fire first (5.031); then hit 4, UH 5, K-KILL roll 2
    from pbem.core.state import state_bytes
    from tobruk_kit import make

    t = make(tmp_path, [U("Tk1", "british", "a13", "0505", facing="SSW"), U("A1", "british", "aus-squad", "0101"),
                        U("P1", "german", "pz3g", "0508", facing="NNE")], dice=(2, 1, 4, 5, 2) + (1, 2) * 5)
    evs = t.ok("german", "fire P1 at Tk1")
    (ev,) = [e for e in evs if isinstance(e, GunFired)]
    assert ev.rolls == [4, 5, 2] and ev.effects == [["Tk1", "kkill", "burning"]]
    assert t.state().step.to_act == "british"                     # the alternation passes (5.121)
    line = t.game.rules.describe_event(ev, t.game.scenario)
    assert "HPN 9" in line and "penetration 12 vs armour 8" in line and "burning" in line
    replayed = t.game.replay(t.game.entries())
    assert state_bytes(replayed) == state_bytes(t.state())


def test_fire_order_errors_leave_the_log_unchanged(tmp_path, fixed_clock):
    from tobruk_kit import make

    t = make(tmp_path, [U("Tk1", "british", "a13", "0505", facing="SSW"),
                        U("P1", "german", "pz3g", "0508", facing="SSW")], dice=(2, 1))
    t.refuse("german", "fire P1 at Tk1", rule="12.1", match="outside")       # the turret must be turned
    assert t.state().step.to_act == "german"
    t.refuse("german", "fire P1 at Tk1 apcr turret SSW", rule="17.22")
    t.refuse("german", "fire P1 at Tk1 sideways", rule="12.02")


# --- gun duels (17.3) -------------------------------------------------------------------

def test_gun_duel_unacquired_target_waits_half_the_rof_then_lowest_roll_fires_first():
    # 17.34: the Grant had not acquired the Pz III: the Pz III fires one of its two rounds first
    # (miss 10, 30.02 suppression roll 8); then both roll: 6 and 3, the Grant fires first, hits,
    # turret front 8 against 14 (+6): K-KILL roll 4 < 9, burning; the Pz III's 6 is never fired
    from pbem.games.advanced_tobruk.fire import duel
    ctx = tank_duel([10, 8, 6, 3, 1, 4])
    ga, gb = fire_ap.gun(ctx.sc, "P"), fire_ap.gun(ctx.sc, "G", "75")
    assert duel.answer_gun(ctx, "G", "P") == gb
    duel.gun_duel(ctx, "P", ga, "G", gb)
    first, answer, lost = events(ctx, GunFired)
    assert (first.firer, first.rof, first.rolls) == ("P", 1, [10, 8])
    assert (answer.firer, answer.rolls, answer.effects) == ("G", [3, 1, 4], [["P", "kkill", "burning"]])
    assert (lost.firer, lost.rolls, lost.rof) == ("P", [6], 0)
    assert "knocked out first" in describe(lost, ctx.sc)
    assert ctx.state.pieces["G"].fired and ctx.state.units["P"].eliminated


def test_gun_duel_equal_rolls_are_simultaneous():
    # 17.33: both roll 5: both shots count, even the one of the tank the other has just knocked out
    from pbem.games.advanced_tobruk.fire import duel
    ctx = tank_duel([5, 5, 5, 2, 7, 1])
    ctx.state.pieces["G"].bot = "P"
    duel.gun_duel(ctx, "P", fire_ap.gun(ctx.sc, "P"), "G", fire_ap.gun(ctx.sc, "G", "75"))
    a, b = events(ctx, GunFired)
    assert a.firer == "P" and b.firer == "G" and "burst on target -3" in b.drms
    assert ctx.state.units["P"].eliminated and ctx.state.units["G"].eliminated


def test_a_gun_that_must_turn_may_not_duel():
    # 17.31: the Grant's sponson 75 faces away from the Pz III
    from pbem.games.advanced_tobruk.fire import duel
    ctx = tank_duel([], target_facing="NNE")
    assert duel.answer_gun(ctx, "G", "P") is None


def test_vehicles_between_add_to_the_hpn_and_shift_gunfire_left():
    # 12.41-12.42: personnel in between are no obstacle; a vehicle adds +1 (reconstructed value)
    ctx = world([U("P", "german", "pz3g", "0505", facing="NNE"), U("G", "british", "grant", "0501", facing="SSW"),
                 U("V", "german", "truck", "0503"), U("S", "german", "ger-squad", "0504")])
    assert fire_ap.los_drm(ctx.state, ctx.sc, "0505", "0501") == (1, ["vehicle in the line +1"])


def test_f_kill_parts_follow_where_the_main_armament_sits():
    # 13.613, 13.91, 16.444: a turret F-KILL silences the Grant's 37 and coax, not its sponson 75
    ctx = world([U("G", "british", "grant", "0505"), U("P", "german", "pz3g", "0502"),
                 U("TD", "german", "td", "0503")])
    sc = ctx.sc
    assert fire_ap.fkill_parts(sc, "G", "turret") == ["turret"]
    assert fire_ap.fkill_parts(sc, "G", "hull") == ["hull", "main"]
    assert fire_ap.fkill_parts(sc, "P", "turret") == ["main", "turret"]
    p = ctx.state.pieces["G"]
    p.f_kill = ["turret"]
    assert fire_ap.weapon_out(sc, "G", p, "coax") and not fire_ap.weapon_out(sc, "G", p, "sponson")


def test_gun_duel_by_standing_order_through_the_game(tmp_path, fixed_clock):
    # 17.3 by e-mail: the British A13 stands on 'duel'; the Pz III fires one round first (10, miss;
    # 30.02 roll 9), then the duel rolls 7 (Pz III) and 3 (A13): the A13 fires first and hits,
    # UH 5 front 9 against 12 (+3), K-KILL roll 2 < 6, burning: the Pz III's shot never comes
    from tobruk_kit import make

    t = make(tmp_path, [U("Tk1", "british", "a13", "0505", facing="SSW"), U("A1", "british", "aus-squad", "0101"),
                        U("P1", "german", "pz3g", "0508", facing="NNE"), U("G1", "german", "ger-squad", "0610")],
             dice=(2, 1, 10, 9, 7, 3, 5, 2) + (1, 2) * 5)
    t.ok("british", "standing Tk1 duel")
    evs = [e for e in t.ok("german", "fire P1 at Tk1") if isinstance(e, GunFired)]
    assert [(e.firer, e.by, e.rolls) for e in evs] == [("P1", "duel", [10, 9]), ("Tk1", "duel", [3, 5, 2]),
                                                      ("P1", "duel", [7])]
    assert t.state().units["P1"].eliminated and t.state().pieces["Tk1"].fired
