"""Advanced Tobruk: side notes in fire - APCR/HEAT allotments (17.2), the
command tank (24.01-24.05) and elite tank commanders (24.07).  Small worlds with
scripted dice for the numbers; one game through the engine for the notes, the
opened note and the refusals that leave the log unchanged."""
from __future__ import annotations

import pytest

from pbem.core import events as CE
from pbem.core.orders import OrderError
from pbem.engine import Game
from pbem.games.advanced_tobruk.fire import fire_ap, melee
from pbem.games.advanced_tobruk.mines import mines
from pbem.games.advanced_tobruk.notes import notes
from pbem.games.advanced_tobruk.tables import fire_ap_tables as T
from pbem.games.advanced_tobruk.fire_events import GunFired
from pbem.games.advanced_tobruk.mine_events import MineAttack
from pbem.games.advanced_tobruk.notes_state import Notes

from pbem.core.ruleset import Ctx
from pbem.core.scenario import loads
from pbem.games.advanced_tobruk.rules import AdvancedTobruk

from conftest import Table, one, only
from tobruk_fire_helpers import EXAMPLE_TYPES, Dice, U, events
from tobruk_kit import DIRECT, scenario_text

EDGE = 'friendly_edge = { british = ["north"], german = ["south"] }'
COMMAND = '\ncommand_control = ["german"]'


def world(units, dice=(), ssr: str = "") -> Ctx:
    """tobruk_fire_helpers.world with the scenario's SSR lines (a scenario of its own: no shared one changed)."""
    text = scenario_text(units).replace(EDGE, EDGE + ssr, 1) + EXAMPLE_TYPES
    sc = loads(text.encode(), "test-tobruk-notes-fire")
    rules = AdvancedTobruk()
    st = rules.new_state(sc, "t")
    st.turn = 1
    return Ctx(rules, st, sc, "german", Dice(dice))


def duel(dice=(), notes: Notes | None = None, command: bool = False, at: str = "0505"):
    ctx = world([U("P", "german", "pz3h", at, facing="NNE"), U("P2", "german", "pz3g", "0506", facing="NNE"),
                 U("G", "british", "grant", "0502", facing="SSE")], dice, COMMAND if command else "")   # 27.03
    if notes is not None:
        ctx.state.notes = {"german": notes}
    return ctx


# --- 17.2 APCR / HEAT -----------------------------------------------------------------------

def test_17_25_each_apcr_shot_uses_one_round_of_the_noted_allotment():
    # the note writes {"APCR": 2}; the 50 mm (ROF 2) fires two rounds: miss 10, miss 10 (need 9), then the
    # Suppression Table roll for an AFV fired on (30.02) 10: nothing; both rounds are spent
    ctx = duel([10, 10, 10])
    ctx.state.pieces["P"].ammo = {"APCR": 2}
    fire_ap.fire_gun(ctx, "P", "", "G", ammo="APCR")
    (ev,) = events(ctx, GunFired)
    assert ev.ammo == "APCR" and ["P", "ammo", "apcr 2"] in ev.effects
    assert ctx.state.pieces["P"].ammo == {"APCR": 0}


def test_17_25_a_unit_not_noted_may_not_fire_apcr():
    ctx = duel()
    with pytest.raises(OrderError, match="allotted no APCR") as e:
        fire_ap.fire_gun(ctx, "P", "", "G", ammo="APCR")
    assert e.value.rule == "17.25"


def test_17_23_alternate_ammunition_table_reconstructed():
    assert [T.ammo_table(r) for r in (1, 2, 4, 6, 8, 10)] == [0, 1, 2, 3, 4, 5]
    assert T.ammo_table(10, 2) == T.AMMO_MAX and T.ammo_table(2, -3) == 0
    ctx = duel()
    # the Germans face a Grant (17.23's note): +2 on the roll; the British face no such tank
    assert notes.ammo_modifier(ctx.sc, "german") == T.HEAVY_TANK_MODIFIER
    assert notes.ammo_modifier(ctx.sc, "british") == 0


# --- 24.07 elite commanders -----------------------------------------------------------------------

def test_24_07_elite_commander_is_minus_one_hpn_drm_shown_in_the_report():
    # range 6: HPN 8; elite: 9 or less; rolls 10, 10 miss, suppression roll 10: nothing
    plain = duel([10, 10, 10], at="0508")
    fire_ap.fire_gun(plain, "P", "", "G")
    elite = duel([10, 10, 10], Notes(elite=["P"]), at="0508")
    fire_ap.fire_gun(elite, "P", "", "G")
    (a,), (b,) = events(plain, GunFired), events(elite, GunFired)
    assert "elite commander -1" in b.drms and "elite commander -1" not in a.drms
    assert b.need == a.need + 1                                   # minus is easier: one more to hit


# --- 24.03-24.05 armour command control --------------------------------------------------------------

def test_24_03_the_command_tank_may_not_initiate_fire_but_may_duel_back():
    ctx = duel([10, 10, 10], Notes(command="P"), command=True)
    with pytest.raises(OrderError, match="command tank") as e:
        fire_ap.fire_gun(ctx, "P", "", "G")
    assert e.value.rule == "24.03" and not ctx.events
    fire_ap.fire_gun(ctx, "P", "", "G", by="duel")                # 24.03: a gun duel answers fire
    assert events(ctx, GunFired)[0].by == "duel"


def test_24_03_without_command_control_in_force_the_note_changes_nothing():
    ctx = duel([10, 10, 10], Notes(command="P"))
    fire_ap.fire_gun(ctx, "P", "", "G")
    assert events(ctx, GunFired)


def test_24_03_the_command_tank_may_not_overrun():
    ctx = world([U("P", "german", "pz3g", "0505", facing="NNE"), U("A", "british", "aus-squad", "0505")],
                ssr=COMMAND)
    ctx.state.notes = {"german": Notes(command="P")}
    ctx.state.pieces["P"].move = "assault"
    with pytest.raises(OrderError, match="may not overrun") as e:
        melee.overrun(ctx, "P", "A", "0506")
    assert e.value.rule == "24.03"


def test_24_05_command_tank_lost_adds_one_to_the_others_bail_out():
    # the command tank P2 is M-KILLed: P failing a minefield checks bail-out on 3 + 1 = 4; roll 4 bails out
    ctx = duel([4], Notes(command="P2"), command=True)
    ctx.state.pieces["P2"].m_kill = True
    mines.attack(ctx, "P", "0505", 3)
    (att,) = events(ctx, MineAttack)
    assert att.bail_number == T.BAIL_OUT["M-KILL"] + 1 and att.bail_drms == ["command tank P2 lost +1 (24.05)"]
    assert ctx.state.pieces["P"].bailed
    # the command tank itself takes no such DRM
    number, drms, _ = fire_ap.bail_out(ctx, "P2", "M-KILL")
    assert (number, drms) == (T.BAIL_OUT["M-KILL"], [])


# --- the notes through the engine ------------------------------------------------------------------

SSR = '\ncommand_control = ["german"]\nelite = { german = 1 }\napcr = { german = 0 }'


def notes_game(tmp_path, dice) -> Table:
    units = [U("P1", "german", "pz3g", "0505", facing="NNE"), U("P2", "german", "pz3g", "0506", facing="NNE"),
             U("T1", "british", "a13", "0502", facing="SSW")]
    text = scenario_text(units).replace('friendly_edge = { british = ["north"], german = ["south"] }',
                                        'friendly_edge = { british = ["north"], german = ["south"] }' + SSR, 1)
    text = text.replace('he = 8, ap = true } ]', 'he = 8, ap = true, alt = ["APCR"] } ]', 1)
    assert SSR in text and 'alt = ["APCR"]' in text
    p = tmp_path / "nf.toml"
    p.write_text(text)
    t = Table(Game.create(tmp_path / "g", str(p), {}, dice=list(dice)))
    t.ok("british", "pass")
    t.ok("german", "roll")             # 17.24: half of two capable tanks = 1, table roll 1: + 0 -> one round
    t.ok("german", "note apcr P1 1\nnote command P2\nnote elite P1\npass")
    return t


def test_notes_in_fire_through_the_engine(tmp_path):
    # dice: the APCR roll 1; first-fire roll british 2, german 1 (the Germans first); P1's APCR shot: hit 5
    # (need 9 + 1 elite = 10), location 10 = tracks, M-KILL table 10: no damage, suppression 10: no;
    # then first rolls (2, 1) for every phase that needs one
    t = notes_game(tmp_path, [1, 2, 1, 5, 10, 10, 10] + [2, 1] * 12)
    assert t.state().pieces["P1"].ammo == {"APCR": 1}
    assert t.phase() == (1, DIRECT)
    assert t.state().step.to_act == "german"
    t.refuse("german", "fire P2 at T1", rule="24.03", match="command tank")
    evs = t.ok("german", "fire P1 at T1 apcr")
    shot = one(evs, GunFired)
    assert shot.ammo == "APCR" and "elite commander -1" in shot.drms and shot.need == 10
    opened = only(evs, CE.SecretRevealed)
    assert [(o.side, o.payload) for o in opened] == [("german", "elite P1")]
    assert evs.index(opened[0]) > evs.index(shot)                 # opened once it has modified a shot
    assert t.state().pieces["P1"].ammo == {"APCR": 0}
    while t.phase() != (2, DIRECT):
        t.ok(t.state().step.to_act, "pass")
    assert t.state().step.to_act == "german"
    t.refuse("german", "fire P1 at T1 apcr", rule="17.25", match="no APCR rounds left")


def test_24_05_in_fire_the_bail_out_number_shows_the_lost_command_tank():
    # the Grant's 75 mm at P (range 3, need 9): roll 1 hits, location 10 = tracks, M-KILL table 1 <= 8: M-KILL;
    # bail-out 4 vs 3 + 1: the crew bails out; the suppression roll 10: nothing
    ctx = duel([1, 10, 1, 4, 10], Notes(command="P2"), command=True)
    ctx.state.pieces["P2"].wreck, ctx.state.units["P2"].eliminated = "burning", True       # K-KILLed
    fire_ap.fire_gun(ctx, "G", "75", "P")
    (ev,) = events(ctx, GunFired)
    rd = ev.rounds[0]
    assert (rd.location, rd.bail_number, rd.bail_roll) == ("TR", T.BAIL_OUT["M-KILL"] + 1, 4)
    assert rd.bail_drms == ["command tank P2 lost +1 (24.05)"]
    assert ctx.state.pieces["P"].m_kill and ctx.state.pieces["P"].bailed


# --- 20.31 smoke in the line of HPT fire (the HPN DRM lives in fire_ap.hpn_drms) ---------------------

def test_20_31_smoke_adds_four_to_the_hpn_and_two_such_hexes_block():
    ctx = duel([10, 10, 10, 10])
    ctx.state.smoke = {"0504": 1}
    fire_ap.fire_gun(ctx, "P", "", "G")
    (ev,) = events(ctx, GunFired)
    assert "smoke in the line +4" in ev.drms and ev.need == 9 - 4
    ctx = duel()
    ctx.state.smoke = {"0504": 1, "0503": 2}
    with pytest.raises(OrderError, match="block") as e:
        fire_ap.fire_gun(ctx, "P", "", "G")
    assert e.value.rule == "13.72"
    ctx = world([U("P", "german", "pz3h", "0505", facing="NNE"), U("G", "british", "grant", "0502", facing="SSW"),
                 U("W", "british", "a13", "0503")])                # one smoke hex and one burning wreck
    ctx.state.smoke = {"0504": 1}
    ctx.state.pieces["W"].wreck, ctx.state.units["W"].eliminated = "burning", True
    with pytest.raises(OrderError, match="smoke and burning wrecks"):
        fire_ap.fire_gun(ctx, "P", "", "G")


# --- 18.54 an on-board weapon's registration ------------------------------------------------------

def test_18_54_a_registered_hex_is_a_permanent_burst_on_target_for_that_weapon():
    # P (50 mm, ROF 2) registered 0502 before the British set up: a shot at the Grant there is made as
    # if P had acquired it (13.462-13.463: -3 and the ROF doubled); another weapon gets nothing of it
    ssr = '\nregistrations = { P = 1 }'
    reg = Notes(registrations={"P": ["0502"]}, names={"reg-1": "register P 0502"})

    def shot(notes):
        ctx = world([U("P", "german", "pz3h", "0508", facing="NNE"), U("P2", "german", "pz3g", "0506", facing="NNE"),
                     U("G", "british", "grant", "0502", facing="SSW")], [10] * 30, ssr)
        ctx.state.notes = {"german": notes}
        return fire_ap.fire_gun(ctx, "P", "", "G"), fire_ap.fire_gun(ctx, "P2", "", "G")

    (plain, _), (done, other) = shot(Notes()), shot(reg)
    assert "burst on target: a registered hex (18.54) -3" in done.drms
    assert done.need == plain.need + 3 and done.rof == 2 * plain.rof
    assert not any("18.54" in d for d in other.drms)
