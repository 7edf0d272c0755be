"""Advanced Tobruk's sequence of play (5): set-up, the first-fire/first-move roll,
alternating activations, passing and completing, the end of the game."""
from __future__ import annotations

from pbem.games.advanced_tobruk import events as E

from conftest import one, only
from tobruk_kit import MOVEMENT, SETUP, U, make


def far_units():
    return [U("A1", "british", "aus-squad", "0210"), U("A2", "british", "aus-squad", "0310"),
            U("G1", "german", "ger-squad", "1201"), U("G2", "german", "ger-squad", "1301")]


def test_2_48_setup_defender_first_and_facing_is_free(tmp_path, fixed_clock):
    t = make(tmp_path, [*far_units(), U("Tk1", "british", "a13", "0508", facing="NNE")], setup=False)
    assert t.phase() == (1, SETUP)
    assert t.awaiting()[0]["side"] == "british"
    t.refuse("german", "pass", rule="5.03", match="waits for British")
    f = one(t.ok("british", "pivot Tk1 SSW"), E.Faced)
    assert f.setup and t.state().pieces["Tk1"].facing == 3
    assert not t.state().pieces["Tk1"].moved
    t.ok("british", "pass")
    assert t.awaiting()[0]["side"] == "german"


def test_5_031_lower_roll_goes_first_and_a_tie_is_rolled_again(tmp_path, fixed_clock):
    t = make(tmp_path, far_units(), dice=(4, 4, 6, 3))
    st = t.state()
    assert t.phase() == (1, MOVEMENT)
    assert st.step.first == "german" and st.step.to_act == "german"


def test_5_031_first_roll_is_in_the_log(tmp_path, fixed_clock):
    t = make(tmp_path, far_units(), dice=(4, 4, 6, 3), setup=False)
    t.ok("british", "pass")
    evs = t.ok("german", "pass")
    fr = one(evs, E.FirstRolled)
    assert fr.rolls == [4, 4, 6, 3] and fr.first == "german" and fr.phase == "movement"
    # nobody could fire: the Direct Fire Phase passed without a roll, the indirect one is a placeholder
    names = [e.name for e in only(evs, E.PhaseStarted)]
    assert names[:3] == ["indirect", "direct-fire", "movement"]


def test_5_21_alternate_one_unit_at_a_time(tmp_path, fixed_clock):
    t = make(tmp_path, far_units(), dice=(1, 2))
    assert t.state().step.to_act == "british"
    sub = t.game.submit("british", "assault A1 0209\nassault A2 0309")
    assert sub.refused is not None and "waits for German" in sub.refused.message
    assert sub.not_applied == ["assault A2 0309"]
    assert t.hex_of("A1") == "0209" and t.hex_of("A2") == "0310"
    assert t.state().step.to_act == "german"
    t.refuse("german", "assault A1 0208", match="not a German unit")


def test_5_22_a_side_that_passes_lets_the_other_complete(tmp_path, fixed_clock):
    t = make(tmp_path, far_units(), dice=(1, 2) * 5)
    t.ok("british", "assault A1 0209")
    t.ok("german", "pass")
    t.ok("british", "assault A2 0309\npass")                   # several activations in one mail
    assert t.phase()[1] != MOVEMENT
    t.refuse("british", "assault A2 0308", match="not your turn: the game waits for German")   # its activation


def test_6_03_a_unit_moves_once_per_segment(tmp_path, fixed_clock):
    t = make(tmp_path, far_units(), dice=(1, 2))
    t.ok("british", "assault A1 0209")
    t.ok("german", "pass")
    t.refuse("british", "assault A1 0208", rule="6.03")


def test_2_47_the_game_ends_after_the_last_turn_with_victory_points(tmp_path, fixed_clock):
    units = [U("A1", "british", "aus-squad", "0705"), U("G1", "german", "ger-squad", "1301")]
    t = make(tmp_path, units, dice=(1, 2) * 10, turns=1)
    while t.state().result is None:
        t.ok(t.state().step.to_act, "pass")
    st = t.state()
    assert st.result.winner == "british"
    assert st.vp == {"british": 9, "german": 0}            # 0705 (6) held, 0905 (3) held by default
    assert "victory points" in st.result.reason


def test_22_11_grenades_first_then_the_unit_may_still_infiltrate(tmp_path, fixed_clock):
    from tobruk_kit import INFILTRATION
    t = make(tmp_path, [U("A1", "british", "aus-squad", "0705"), U("G1", "german", "ger-squad", "0706"),
                        U("G9", "german", "ger-squad", None)],
             dice=(1, 2, 1, 2, 1, 2, 10) + (1, 2) * 20)        # first rolls; the grenades roll 10: no effect
    while t.phase()[1] != INFILTRATION:
        t.ok(t.state().step.to_act, "pass")
    if t.state().step.to_act == "german":
        t.ok("german", "pass")
    evs = t.ok("british", "grenade A1 at 0706")
    assert one(evs, E.Acted).what == "grenade"
    if t.state().step.to_act == "german":
        t.ok("german", "pass")
    evs = t.ok("british", "infiltrate A1 0706")
    assert one(evs, E.Infiltrated).melee
    # the Germans, frozen in the melee, have nothing left to do: the Melee Phase follows at once (5.35)
    assert [e for e in evs if type(e).__name__ in ("MeleeRound", "MeleeEnded")]
