"""Advanced Tobruk, rules fidelity round 3 (issue 25, items 9-21): each test names the rule
it checks, scripts its dice and failed on the code before the fix."""
from __future__ import annotations

import pytest

from pbem.core.orders import GameVerb, OrderError
from pbem.games.advanced_tobruk.fire import eligible, fire_ap, fire_personnel, melee, morale
from pbem.games.advanced_tobruk import events as E
from pbem.games.advanced_tobruk.artillery import indirect, mortar
from pbem.games.advanced_tobruk.turn import movement
from pbem.games.advanced_tobruk.arty_events import BatteryLocated, ContactRolled, DirectHitRolled, IndirectFired
from pbem.games.advanced_tobruk.events import FirstRolled
from pbem.games.advanced_tobruk.fire_events import (CasualtyAttack, CloseAssaulted, GunFired, MeleeEnded, MoraleChecked,
                                                    Overrun)
from pbem.games.advanced_tobruk.mines_state import Minefield

from test_tobruk_artillery_engine import game as arty_game
from test_tobruk_artillery_kit import FO, aworld
from tobruk_fire_helpers import U, events, world
from tobruk_kit import DIRECT, INFILTRATION, MOVEMENT, make


# --- item 20: every die is kept in the event's ``rolls`` ---------------------------------------

def test_scripted_dice_after_a_contact_roll_and_a_direct_hit_roll_are_not_read_again(tmp_path):
    # core DICE_FIELD: the contact roll 3 and the direct-hit roll 10 of the call are the event's
    # ``rolls``, so the next order reads the dice after them: the locating roll 9 (18.1151), then
    # the Direct Fire Phase's first-fire roll 1 v 2 (5.031); before, both were read again
    t = arty_game(tmp_path, [6, 4, 1, 2, 3, 4, 10, 10, 10, 9, 1, 2])
    for side, text in (("british", "roll"), ("british", "note fo BTY1 FO1"), ("british", "pass"),
                       ("german", "roll"), ("german", "note fo GB1 GF"), ("german", "pass"),
                       ("british", "note register BTY1 0505"), ("british", "pass")):
        t.ok(side, text)
    evs = t.ok("british", "call BTY1 at 0505")
    assert [e.roll for e in evs if isinstance(e, (ContactRolled, DirectHitRolled))] == [3, 10]
    evs = t.ok("german", "pass")
    assert [e.roll for e in evs if isinstance(e, BatteryLocated)] == [9]
    first = next(e for e in evs if isinstance(e, FirstRolled))
    assert first.phase == "direct-fire" and first.rolls == [1, 2] and first.first == "british"
    assert t.state().scripted_pos == 12


# --- item 9: a turret turns for its coaxial machine-gun alone --------------------------------

def fire(ctx, text: str) -> None:
    fire_personnel.handle_fire(ctx, GameVerb(word="fire", args=text.split()))


def test_a_turret_turns_to_fire_only_its_coax_one_column_left_per_plus():
    # 12.233, 12.235, 16.445: the A13's 2pdr has no HE (17.72), so only the coax fires at the squad
    # east of it; the fast turret turns one spine (+1), one column left; the turret now faces E
    ctx = world([U("T", "british", "a13", "0505", facing="NNE"), U("A", "german", "ger-squad", "0605")],
                [10], side="british")
    fire(ctx, "T at A with coax turret E")
    (a,) = events(ctx, CasualtyAttack)
    assert a.factors == 5 and "coax: turret turned -1" in a.shifts and a.pivot == [-1, 1]
    assert ctx.state.pieces["T"].turret == 1 and ctx.state.pieces["T"].facing == 0 and ctx.state.pieces["T"].fired
    assert "turret turned 1 spine for the machine-guns" in a.parts


def test_a_slow_turret_turned_for_its_coax_alone_shifts_two_columns():
    # 12.233: a slow turret's first spine is +2, two columns left (12.235); no 20mm fire asked for
    ctx = world([U("P", "german", "pz2f", "0505", facing="NNE"), U("A", "british", "aus-squad", "0605")], [10])
    fire(ctx, "P at A with coax turret E")
    (a,) = events(ctx, CasualtyAttack)
    assert "coax: turret turned -2" in a.shifts and not events(ctx, GunFired)
    assert ctx.state.pieces["P"].turret == 1


def test_a_coax_outside_its_arc_without_a_turn_is_still_refused():
    ctx = world([U("T", "british", "a13", "0505", facing="NNE"), U("A", "german", "ger-squad", "0605")],
                [10], side="british")
    with pytest.raises(OrderError, match="turret SPINE"):
        fire(ctx, "T at A with coax")
    assert ctx.events == []


# --- item 10: gunfire at an AFV is a choice the side is asked for --------------------------------

def test_a_side_whose_only_fire_is_gunfire_at_an_afv_is_asked_in_the_direct_fire_phase(tmp_path):
    # 5.131 with 30.02: two Australian squads (6 + 6 = 12 factors, 8 or more) two hexes from a
    # Pz III: first-fire 2 v 1 (the Germans first); the Germans pass; the British are asked, not
    # passed for, and their firegroup's 12 factors call for a suppression roll (1 <= 2: suppressed)
    t = make(tmp_path, [U("A1", "british", "aus-squad", "0505"), U("A2", "british", "aus-squad", "0505"),
                        U("P", "german", "pz3g", "0503", facing="NNE")], dice=(2, 1, 1, 1, 2))
    assert (t.phase(), t.state().step.to_act) == ((1, DIRECT), "german")
    t.ok("german", "pass")
    assert (t.phase(), t.state().step.to_act) == ((1, DIRECT), "british")
    evs = t.ok("british", "fire A1+A2 at P")
    g = next(e for e in evs if isinstance(e, GunFired))
    assert g.ammo == "gunfire" and g.rounds[0].suppress_roll == 1 and t.state().pieces["P"].suppressed


def test_gunfire_that_could_not_harm_the_afv_is_no_choice(tmp_path):
    # 30.02: one squad's 6 factors at an AFV can do nothing (14.22 needs 36 at the front): passed for
    t = make(tmp_path, [U("A1", "british", "aus-squad", "0505"), U("P", "german", "pz3g", "0503", facing="NNE")],
             dice=(2, 1, 1, 2))
    t.ok("german", "pass")
    assert t.phase() == (1, MOVEMENT)
    ctx = world([U("A1", "british", "aus-squad", "0505"), U("A2", "british", "aus-squad", "0505"),
                 U("P", "german", "pz3g", "0503", facing="NNE")])
    assert eligible.eligible_firers(ctx.state, ctx.sc, "P", "direct-fire") == ["A1", "A2"]
    ctx.state.pieces["P"].suppressed = True                       # 30.02 no new suppression roll; the
    assert eligible.eligible_firers(ctx.state, ctx.sc, "P", "direct-fire") == []   # front needs 36
    assert eligible.eligible_firers(ctx.state, ctx.sc, "P", "movement") == []


# --- item 11: a BOT target moving straight at or away from the firer ---------------------------

def drms_at_grant(path: list[str], bot: bool = True) -> list[str]:
    ctx = world([U("P", "german", "pz3g", "0505", facing="NNE"), U("G", "british", "grant", path[0], facing="SSW")])
    ctx.emit(E.MoveBegan(units=["G"], move="cross"))
    for i, h in enumerate(path[1:], start=1):
        ctx.emit(E.Stepped(units=["G"], what="enter", hex=h, cost="1", spent=str(i)))
    if bot:
        ctx.state.pieces["P"].bot = "G"
    return [w for w, _ in fire_ap.hpn_drms(ctx, "P", "G", ctx.sc.board.grid.distance("0505", path[-1]))]


def test_a_bot_target_moving_directly_at_the_firer_has_no_moving_target_modifier():
    # 13.441: the Grant, already hit by P (BOT), drives 0501-0502-0503 straight at P in 0505: only
    # the BOT -3 (13.463), no +2; straight away from P the same
    assert "target moving" not in drms_at_grant(["0501", "0502", "0503"])
    assert "burst on target" in drms_at_grant(["0501", "0502", "0503"])
    assert "target moving" not in drms_at_grant(["0503", "0502", "0501"])


def test_the_moving_target_modifier_stays_for_other_paths_and_targets_not_yet_hit():
    # 13.441: across P's line of fire, or straight at P without a BOT marker: +2 (13.41)
    assert "target moving" in drms_at_grant(["0402", "0502", "0602"])
    assert "target moving" in drms_at_grant(["0501", "0502", "0503"], bot=False)
    assert "target moving" in drms_at_grant(["0402", "0503", "0504"])       # nearer, but off the line


# --- item 12: a forward observer gives no morale support ---------------------------------------

def test_a_forward_observer_is_no_leader_and_no_stacking_points_for_morale():
    # 18.83 over 10.111: the FO in A's hex adds neither the leader's +2 (b) nor its stacking point
    # to the crew's two (a: three would be +1); an Australian leader does add +2; for the German
    # squad the enemy crew's 2 SP with the FO are no multiple of three (10.112a)
    ctx = aworld([FO, U("A", "british", "aus-squad", "0909"), U("C", "british", "brit-crew", "0909"),
                  U("G", "german", "ger-squad", "0809")])
    base, alt, mods = morale.altered(ctx.state, ctx.sc, "A")
    assert alt == base - 1 and mods == ["enemy personnel 3 SP -1"]
    assert morale.altered(ctx.state, ctx.sc, "G")[2] == ["enemy personnel 5 SP -1"]
    ctx = aworld([FO, U("A", "british", "aus-squad", "0909"), U("L", "british", "aus-leader", "0909")])
    assert morale.altered(ctx.state, ctx.sc, "A")[2] == ["leader +2"]


def test_a_forward_observer_rallies_nobody():
    # 18.83 over 11.51: a broken squad with only the FO in its hex does not try to rally
    ctx = aworld([FO, U("A", "british", "aus-squad", "0909")])
    ctx.state.pieces["A"].broken = True
    assert not morale.can_rally(ctx.state, ctx.sc, "A")


# --- item 13: the Grant's sponson 75 mm has its own narrow arc ----------------------------------

def grant_example(dice=()):
    # the 11.85 example: the leader and the crew both three hexes off, in the hull's front arc
    return world([U("G", "british", "grant", "0505", facing="NNE"), U("L", "german", "ger-leader", "0502"),
                  U("C", "german", "it-crew", "0803")], dice, side="british")


def test_the_grant_sponson_75_may_not_fire_at_the_leader_but_at_the_crew():
    # 27.03 and the 11.85 example: the bow MG bears on both (the front two hexsides), the 75 only
    # between the facing spine and the right-front spine: not at the leader (straight ahead, left of
    # the facing spine), at the crew (along the front-right hexside's row): need 9, roll 9 hits
    ctx = grant_example([9, 10])
    assert {"bow", "coax"} <= set(eligible.usable_weapons(ctx.state, ctx.sc, "G", "L", "0502"))
    assert "75" not in eligible.usable_weapons(ctx.state, ctx.sc, "G", "L", "0502")
    with pytest.raises(OrderError, match="sponson arc"):
        fire_ap.fire_gun(ctx, "G", "75", "L")
    ev = fire_ap.fire_gun(ctx, "G", "75", "C")
    assert ev.need == 9 and ev.rounds[0].hit


def test_the_grant_pivots_to_bring_its_sponson_75_on_the_leader():
    # 27.03 'unless the vehicle is pivoted': one spine to NNW, +3 (8.512): need 9 - 3 = 6
    ctx = grant_example([6, 10])
    ev = fire_ap.fire_gun(ctx, "G", "75", "L", turn_to=5)
    assert ev.need == 6 and "pivoted 1 spine +3" in ev.drms and ctx.state.pieces["G"].facing == 5


# --- item 14: a squad infiltrates into an AFV's hex and close assaults it -----------------------

def test_a_lone_squad_infiltrates_into_an_afv_hex_and_then_close_assaults_it(tmp_path):
    # 22.01, 22.22, 23.12: first-fire 1 v 2 (the British have nothing; the Germans pass), first-move
    # 1 v 2 (both pass), first infiltration 1 v 2: A infiltrates into P's hex and, its side's only
    # personnel unit, is still asked, so it declares the close assault.  Melee Phase: P's MG final
    # fire 10 (no effect, 23.11), A's morale 1 (passed), the assault 1 < 4: K-KILL, burning (23.3)
    t = make(tmp_path, [U("A", "british", "aus-squad", "0504"), U("P", "german", "pz3g", "0505", facing="NNE")],
             dice=(1, 2, 1, 2, 1, 2, 10, 1, 1) + (1, 2) * 6)
    t.ok("german", "pass")
    t.ok("british", "pass")
    t.ok("german", "pass")
    assert (t.phase(), t.state().step.to_act) == ((1, INFILTRATION), "british")
    t.ok("british", "infiltrate A 0505")
    assert (t.phase(), t.state().step.to_act) == ((1, INFILTRATION), "british")
    evs = t.ok("british", "close-assault A at P")
    ca = next(e for e in evs if isinstance(e, CloseAssaulted))
    assert (ca.value, ca.rolls, ca.result) == (4, [1], "K-KILL, burning wreck") and t.state().pieces["P"].wreck


def test_a_unit_with_no_vehicle_to_assault_is_passed_for_after_its_infiltration(tmp_path):
    # 22.11: one hex of infiltration, nothing more to declare: the side is passed for
    t = make(tmp_path, [U("A", "british", "aus-squad", "0503"), U("P", "german", "pz3g", "0505", facing="NNE")],
             dice=(1, 2, 1, 2, 1, 2) + (1, 2) * 6)
    t.ok("german", "pass")
    t.ok("british", "pass")
    t.ok("german", "pass")
    t.ok("british", "infiltrate A 0504")
    assert t.phase()[1] != INFILTRATION


# --- item 15: each overrunning AFV's -4 replaces its -1 ---------------------------------------

def test_two_overruns_give_minus_8_and_neither_afv_counts_its_minus_1():
    # 21.12, 21.13: T1 and T2 overran G this turn: -8 (at most), neither counts as an enemy AFV
    # nearby (10.112b); T3, two hexes off, did not overrun: -1
    ctx = world([U("G", "german", "ger-squad", "0505"), U("T1", "british", "a13", "0505", facing="NNE"),
                 U("T2", "british", "a13", "0504", facing="NNE"), U("T3", "british", "a13", "0503", facing="NNE")])
    ctx.emit(Overrun(afv="T1", unit="G", hex="0505", morale_loss=4, result="overrun"))
    ctx.emit(Overrun(afv="T2", unit="G", hex="0505", morale_loss=8, result="overrun"))
    base, alt, mods = morale.altered(ctx.state, ctx.sc, "G")
    assert mods == ["overrun -8", "enemy AFVs -1"] and alt == base - 9
    ctx.emit(E.TurnEnded(turn=1))                                 # 21.05: the overrun markers go
    assert morale.altered(ctx.state, ctx.sc, "G")[2] == ["enemy AFVs -3"]


# --- item 16: morale under FFE ------------------------------------------------------------------

def ffe_morale_check(call_text: str, dice) -> MoraleChecked:
    ctx = aworld([FO, U("G0", "german", "ger-squad", "0505")], dice)
    indirect.call(ctx, call_text.split())
    (mc,) = events(ctx, MoraleChecked)
    return mc


def test_personnel_under_a_concentration_check_morale_at_minus_1():
    # 10.113c: contact 3, accuracy 4,0 + 20 on target, direct-hit roll 10 (miss), the hex's 20 FRAG
    # roll 1: casualties, and G0's morale check has the concentration's -1
    mc = ffe_morale_check("BTY1 at 0505", [3, 4, 10, 10, 1, 5])
    assert "under a concentration FFE (10.113c) -1" in mc.mods and mc.altered == mc.morale - 1


def test_personnel_under_a_barrage_check_morale_at_minus_2():
    # 10.113c: a barrage (no contact roll, 18.721), two direct-hit rolls in its FFE hex, then -2
    mc = ffe_morale_check("BTY1 at 0505 barrage", [4, 10, 10, 10, 1, 5])
    assert "under a barrage FFE (10.113c) -2" in mc.mods and mc.altered == mc.morale - 2


# --- item 17: an FO that observed stays put ------------------------------------------------------

def test_an_fo_that_observed_in_the_indirect_fire_phase_may_not_move_that_turn():
    # 18.864: FO1 calls BTY1's concentration (contact 3, accuracy 4,0 + 20, direct hit 10, FRAG 10);
    # in the Movement Segment it may neither move nor pivot; the squad with it may; next turn FO1 may
    ctx = aworld([FO, U("A1", "british", "aus-squad", "0909"), U("G0", "german", "ger-squad", "0505")],
                 [3, 4, 10, 10, 10])
    indirect.call(ctx, "BTY1 at 0505".split())
    with pytest.raises(OrderError, match="18.864"):
        movement.check_movers(ctx, ["FO1"], "assault")
    assert ctx.state.indirect.observers == ["FO1"]
    assert movement.check_movers(ctx, ["A1"], "assault") == ["A1"]
    ctx.state.turn = 2
    assert movement.check_movers(ctx, ["FO1"], "assault") == ["FO1"]


def test_a_leader_calling_a_barrage_on_its_registration_observes_nothing_and_may_move():
    # 18.101: no line of sight, no observation: the leader moves freely (our reading of 18.864)
    ctx = aworld([FO, U("L1", "british", "aus-leader", "0909"), U("G0", "german", "ger-squad", "0505")],
                 [4, 10, 10, 10, 10])
    indirect.call(ctx, "BTY1 at 0505 barrage by L1".split())
    assert ctx.state.indirect.observers == [] and movement.check_movers(ctx, ["L1"], "assault") == ["L1"]


# --- item 18: a mortar's BOT needs a direct hit ----------------------------------------------------

MORTAR = [U("C1", "british", "brit-crew", "0909"), U("M1", "british", "mortar-3in", "0909", holder="C1")]


def test_a_mortar_that_missed_last_turn_has_no_second_direct_hit_roll():
    # 19.71 with 13.461: turn 1 the mortar misses (accuracy 4,0 + 20; direct hit 10; half FRAG 10):
    # no BOT marker; turn 2 at the same hex one direct-hit roll, not two
    ctx = aworld(MORTAR + [U("G1", "german", "ger-squad", "0505")], [4, 10, 10, 10, 4, 10, 10, 10], regs=["0909"])
    ctx.state.notes["british"].registrations["M1"] = ["0505"]
    mortar.fire(ctx, "M1 at 0505".split())
    assert ctx.state.pieces["M1"].bot == ""
    ctx.state.turn = 2
    ctx.state.pieces["M1"].fired = ctx.state.pieces["C1"].fired = False
    mortar.fire(ctx, "M1 at 0505".split())
    assert events(ctx, IndirectFired)[-1].dh == [1] and len(events(ctx, DirectHitRolled)) == 2


def test_a_mortar_hit_places_its_bot_and_another_target_removes_it():
    # 13.461: a direct hit 2 <= 3 (14 FRAG roll 10) places the BOT in 0505; firing at 0506 next takes it off
    ctx = aworld(MORTAR + [U("G1", "german", "ger-squad", "0505"), U("G2", "german", "ger-squad", "0506")],
                 [4, 10, 2, 10, 4, 10, 10, 10], regs=["0909"])
    ctx.state.notes["british"].registrations["M1"] = ["0505", "0506"]
    mortar.fire(ctx, "M1 at 0505".split())
    assert (ctx.state.pieces["M1"].bot, ctx.state.pieces["M1"].bot_turn) == ("0505", 1)
    ctx.state.turn = 2
    ctx.state.pieces["M1"].fired = ctx.state.pieces["C1"].fired = False
    mortar.fire(ctx, "M1 at 0506".split())
    assert ctx.state.pieces["M1"].bot == ""


# --- item 19: morale in a minefield hex ------------------------------------------------------------

def morale_mods_in_minefield(**mf) -> list[str]:
    ctx = world([U("S", "german", "ger-squad", "0505"), U("A", "british", "aus-squad", "0505")])
    ctx.state.minefields = {"0505": Minefield(side="british", note="mine-1", **{"density": 3, **mf})}
    return [m for uid in ("S", "A") for m in morale.altered(ctx.state, ctx.sc, uid)[2] if "minefield" in m]


def test_a_unit_in_a_minefield_hex_checks_morale_at_minus_1():
    # 10.113b: any unit, the mine-layer's own as well (a face-down dummy counts: nothing is told)
    assert morale_mods_in_minefield() == ["minefield hex -1", "minefield hex -1"]
    assert morale_mods_in_minefield(dummy=True, density=0) == ["minefield hex -1", "minefield hex -1"]


def test_a_hidden_minefield_or_a_revealed_dummy_changes_no_morale():
    # 31.15: a hidden minefield's -1 would show it; a dummy turned over holds no mines (31.191)
    assert morale_mods_in_minefield(hidden=True) == []
    assert morale_mods_in_minefield(dummy=True, density=0, known=True) == []


# --- item 21: an attacker that fails its melee check is broken; a miss on FULL cover rolls nothing

def test_an_attacker_failing_its_melee_morale_check_is_broken_and_restored_when_its_side_wins():
    # 22.52: A1 rolls 9 > 7: broken, not surrendered; A2 passes (3), the leader D passes (2); A2's 6
    # against D's 1 is over 4-1: D surrenders (12.232), the attackers win and A1 is restored (22.55)
    ctx = world([U("A1", "british", "aus-squad", "0505"), U("A2", "british", "aus-squad", "0505"),
                 U("D", "german", "ger-leader", "0505")], [9, 3, 2])
    st = ctx.state
    st.melees, st.melee_attacker = ["0505"], {"0505": "british"}
    for u in ("A1", "A2", "D"):
        st.pieces[u].melee = True
    st.pieces["A1"].attacker = st.pieces["A2"].attacker = True
    melee.resolve_melees(ctx)
    assert [(m.unit, m.result) for m in events(ctx, MoraleChecked)] == [("A1", "broken"), ("A2", "passed"),
                                                                        ("D", "passed")]
    (end,) = events(ctx, MeleeEnded)
    assert end.winner == "british" and end.restored == ["A1"]
    assert not st.pieces["A1"].broken and not st.pieces["A1"].surrendered


def test_an_he_miss_on_a_hex_whose_units_are_all_in_full_cover_rolls_no_casualty_die():
    # 16.11: the miss's FRAG is not applied to units in FULL cover: no Casualty Table roll at all
    # (FULL cover +2: need 9 - 2 = 7, roll 9 misses)
    ctx = world([U("G", "british", "grant", "0505", facing="NNE"), U("C", "german", "it-crew", "0803")],
                [9], side="british")
    ctx.state.pieces["C"].full = True
    ev = fire_ap.fire_gun(ctx, "G", "75", "C")
    assert ev.need == 7 and not ev.rounds[0].hit and events(ctx, CasualtyAttack) == []


def test_a_broken_fo_that_observed_still_makes_its_move_towards_safety():
    # 11.131 over 18.864: the forced move of a broken unit is no choice, so it is not held back
    ctx = aworld([FO, U("G0", "german", "ger-squad", "0505")], [3, 4, 10, 10, 10])
    indirect.call(ctx, "BTY1 at 0505".split())
    ctx.state.pieces["FO1"].broken = True
    assert movement.check_movers(ctx, ["FO1"], "assault") == ["FO1"]
