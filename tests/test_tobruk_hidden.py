"""Advanced Tobruk's hidden units (32.2, 31.31): set up on a side note, off the
map until a 32.211 trigger places them FOW side up, or their own fire unit
side up (32.2111); the note is opened when they are revealed."""
from __future__ import annotations

from pbem.core import events as CE
from pbem.games.advanced_tobruk import fog_events as FE
from pbem.games.advanced_tobruk.fog import hidden
from pbem.games.advanced_tobruk.board import spotting
from test_tobruk_fog_kit import DIRECT, FINAL, INFILTRATION, MOVEMENT, U, goto, make

SSR = 'limited_intelligence = true\nconditions = "dusk"\nhidden = { british = ["H1", "HC1"] }'
HIDE = ("note hide H1+HC1 0704 SSE", "standing hold", "pass")


def units(*more):
    return [U("H1", "british", "2pdr-gun", None, holder="HC1"), U("HC1", "british", "brit-crew", None),
            U("A1", "british", "aus-squad", "1301"), *more]


def game(tmp_path, more, dice=(2, 1) * 8, british=HIDE, name="g"):
    return make(tmp_path, units(*more), ssr=SSR, dice=dice, british=british, name=name)


def moving(t, side):
    """Turn 1's movement segment with ``side`` to move: the other side passes if it would move first."""
    goto(t, 1, MOVEMENT)
    if t.state().step.to_act != side:
        t.ok(t.state().step.to_act, "pass")


def kinds(evs):
    return [type(e).__name__ for e in evs]


def test_a_hidden_unit_is_off_the_map_at_its_noted_hex(tmp_path):
    t = game(tmp_path, [U("G1", "german", "ger-squad", "0707")])
    st = t.state()
    assert st.units["H1"].hex is None and st.pieces["H1"].hidden_at == "0704" and st.pieces["H1"].facing == 2
    assert hidden.hidden_in(st, "0704") == ["H1", "HC1"]
    assert hidden.hidden_in(st, "0705") == []


def test_an_enemy_entering_the_hex_reveals_it_fow_side_up_and_stops_short(tmp_path):
    t = game(tmp_path, [U("G1", "german", "ger-squad", "0706")])
    moving(t, "german")
    evs = t.ok("german", "assault G1 0705 0704")
    rev = [e for e in evs if isinstance(e, FE.Revealed)]
    assert [(e.units, e.hex, e.face_up, e.rule) for e in rev] == [(["H1", "HC1"], "0704", False, "32.211")]
    assert "G1 tried to enter" in rev[0].why
    opened = [e for e in evs if isinstance(e, CE.SecretRevealed)]
    assert [(e.side, e.payload) for e in opened] == [("british", "hide H1+HC1 0704 SSE")]
    st = t.state()
    assert st.units["G1"].hex == "0705"                          # the step into 0704 is not taken
    assert st.units["H1"].hex == "0704" and st.units["HC1"].hex == "0704" and not st.pieces["H1"].hidden_at
    assert st.pieces["H1"].flipped is False                      # scrub, unfired: still FOW (32.12)
    assert kinds(evs).index("Revealed") < kinds(evs).index("MoveEnded")


def test_fourteen_gunfire_factors_into_the_hex_reveal_it_thirteen_do_not(tmp_path):
    more = [U("A2", "british", "aus-squad", "0704"), U("G1", "german", "ger-squad", "0706"),
            U("G2", "german", "ger-squad", "0706"), U("G3", "german", "ger-squad", "0705"),
            U("GL", "german", "ger-leader", "0706")]
    t = game(tmp_path, more, dice=(2, 1) * 2 + (10,) + (2, 1) * 8)
    goto(t, 1, DIRECT)
    evs = t.ok("german", "fire G1+G2 at A2")                      # 10 factors: nothing revealed
    assert "Revealed" not in kinds(evs) and t.state().units["H1"].hex is None
    t2 = game(tmp_path, more, dice=(2, 1) * 2 + (10,) + (2, 1) * 8, name="h")
    goto(t2, 1, DIRECT)
    evs = t2.ok("german", "fire G1+G2+G3 at A2")                  # 15 factors (32.211: 14 or more)
    attack = next(e for e in evs if type(e).__name__ == "CasualtyAttack")
    assert attack.factors >= 14 and attack.hex == "0704"
    rev = [e for e in evs if isinstance(e, FE.Revealed)]
    assert [(e.units, e.face_up) for e in rev] == [(["H1", "HC1"], False)]
    assert "gunfire factors" in rev[0].why
    assert [x[0] for x in attack.losses] == ["A2"]              # the hidden units were not under that fire


def test_a_direct_hit_in_the_hex_reveals_it(tmp_path):
    more = [U("Tk1", "british", "a13", "0704", facing="SSE"), U("P1", "german", "pz3g", "0707", facing="NNE")]
    dice = (2, 1) * 2 + (1, 5, 9, 9, 9, 9, 9, 9) + (2, 1) * 8
    t = game(tmp_path, more, dice=dice)
    goto(t, 1, DIRECT)
    assert t.state().step.to_act == "german"
    evs = t.ok("german", "fire P1 at Tk1")
    shot = next(e for e in evs if type(e).__name__ == "GunFired")
    assert shot.rounds[0].hit
    rev = [e for e in evs if isinstance(e, FE.Revealed)]
    assert rev and rev[0].why == "a direct hit in the hex" and rev[0].units == ["H1", "HC1"]


def test_the_owner_moving_or_pivoting_a_hidden_unit_reveals_it_first(tmp_path):
    t = game(tmp_path, [U("G1", "german", "ger-squad", "0310")])
    moving(t, "british")
    evs = t.ok("british", "pivot H1 NNE")
    assert kinds(evs)[:1] == ["Revealed"] and evs[0].why == "it pivoted" and evs[0].rule == "32.211"
    assert kinds(evs).index("Revealed") < kinds(evs).index("Faced")
    t2 = game(tmp_path, [U("G1", "german", "ger-squad", "0310")], name="m")
    moving(t2, "british")
    evs = t2.ok("british", "crawl HC1 0703")
    assert evs[0] == FE.Revealed(side="british", units=["H1", "HC1"], hex="0704", why="it moved", rule="32.211")
    assert t2.state().units["HC1"].hex == "0703"


def test_a_hidden_unit_firing_is_placed_unit_side_up(tmp_path):
    more = [U("P1", "german", "pz3g", "0707", facing="NNE")]
    t = game(tmp_path, more, dice=(1, 2) * 2 + (9, 9) + (2, 1) * 8)
    goto(t, 1, DIRECT)
    assert t.state().step.to_act == "british"
    evs = t.ok("british", "fire H1 at P1")
    rev = [e for e in evs if isinstance(e, FE.Revealed)]
    assert [(e.units, e.face_up, e.rule) for e in rev] == [(["H1"], True, "32.2111"), (["HC1"], False, "32.2111")]
    assert kinds(evs).index("Revealed") < kinds(evs).index("GunFired")
    st = t.state()
    assert st.pieces["H1"].flipped and st.units["H1"].hex == "0704" and st.pieces["H1"].fired


def test_a_hidden_unit_fires_at_a_mover_by_standing_order_and_never_pauses_a_move(tmp_path):
    more = [U("P1", "german", "pz3g", "0709", facing="NNE")]
    hide = ("note hide H1+HC1 0704 SSE", "standing hold", "standing H1 any", "pass")
    t = game(tmp_path, more, dice=(2, 1) * 4 + (9, 9) + (2, 1) * 8, british=hide)
    moving(t, "german")
    evs = t.ok("german", "cross P1 0708 0707")
    assert "MovePaused" not in kinds(evs)
    rev = [e for e in evs if isinstance(e, FE.Revealed)]
    assert rev and rev[0].units == ["H1"] and rev[0].face_up
    assert kinds(evs).index("Revealed") < kinds(evs).index("GunFired")
    # without a firing standing order the hidden gun stays hidden and the move is not paused
    t2 = game(tmp_path, more, dice=(2, 1) * 8, name="q")
    moving(t2, "german")
    evs = t2.ok("german", "cross P1 0708 0707")
    assert not {"MovePaused", "Revealed", "GunFired", "OpportunityPassed"} & set(kinds(evs))
    assert t2.state().units["H1"].hex is None


def test_a_weapon_pit_hidden_gun_outside_hide_terrain_is_placed_once_the_enemy_can_spot_it(tmp_path):
    # 32.22, 31.31: 0705 is a weapon pit in the open; dusk: a FOW heavy weapon is spotted at 3 hexes
    more = [U("P1", "german", "pz3g", "0710", facing="NNE")]
    hide = ("note hide H1+HC1 0705 SSE", "standing hold", "pass")
    t = game(tmp_path, more, british=hide)
    moving(t, "german")
    evs = t.ok("german", "cross P1 0709 0708")
    assert sum(1 for e in evs if isinstance(e, FE.Revealed)) == 1
    rev = next(e for e in evs if isinstance(e, FE.Revealed))
    assert (rev.units, rev.hex, rev.face_up, rev.rule) == (["H1", "HC1"], "0705", False, "32.22, 31.31")
    st = t.state()
    assert st.units["P1"].hex == "0708" and st.pieces["H1"].flipped is False      # the pit keeps it FOW (32.12)


def test_orders_contradicting_the_note_or_naming_an_unspotted_hidden_unit_are_refused(tmp_path):
    t = game(tmp_path, [U("A2", "british", "aus-squad", "0705"), U("P1", "german", "pz3g", "0707", facing="NNE")])
    goto(t, 1, DIRECT)
    if t.state().step.to_act == "british":
        t.ok("british", "pass")
    t.refuse("german", "fire P1 at H1", rule="32.251", match="not spotted")    # the log is unchanged (refuse)
    t.ok("german", "pass") if t.state().step.to_act == "german" else None
    moving(t, "british")
    t.refuse("british", "crawl HC1 0902", match="not adjacent to 0704")         # HC1 is noted in 0704
    st = t.state()
    assert st.units["HC1"].hex is None and st.pieces["HC1"].hidden_at == "0704"
    assert not [en for en in t.game.entries() if isinstance(en.event, FE.Revealed)]


def test_infiltrating_into_the_hex_reveals_it_and_starts_the_melee(tmp_path):
    t = game(tmp_path, [U("G1", "german", "ger-squad", "0705")])
    goto(t, 1, INFILTRATION)
    if t.state().step.to_act == "british":
        t.ok("british", "pass")
    evs = t.ok("german", "infiltrate G1 0704")
    assert kinds(evs).index("Revealed") < kinds(evs).index("Infiltrated")
    inf = next(e for e in evs if type(e).__name__ == "Infiltrated")
    assert inf.melee and t.state().units["HC1"].hex == "0704"              # the hidden crew is met (5.32)


def test_a_hidden_unit_flips_nobody_but_its_side_may_fire_at_what_it_spots(tmp_path):
    # a FOW tank in the open 2 hexes from the hidden gun, every other British unit far away
    t = game(tmp_path, [U("P1", "german", "pz3g", "0707", facing="NNE")], british=HIDE)
    moving(t, "german")
    evs = t.ok("german", "cross P1 0706")
    assert "Flipped" not in kinds(evs) and not t.state().pieces["P1"].flipped
    sc = t.game.scenario
    assert spotting.spotted(t.state(), sc, "british", "P1")                 # H1 sees it from 0704


def test_a_hidden_unit_may_join_the_answer_to_a_move_paused_by_a_visible_one(tmp_path):
    more = [U("Tk1", "british", "a13", "0504", facing="SSE"), U("P1", "german", "pz3g", "0709", facing="NNE")]
    hide = ("note hide H1+HC1 0704 SSE", "standing hold", "standing Tk1 ask", "pass")
    t = game(tmp_path, more, dice=(2, 1) * 4 + (9, 9) + (2, 1) * 8, british=hide)
    moving(t, "german")
    evs = t.ok("german", "cross P1 0708 0707")
    paused = [e for e in evs if type(e).__name__ == "MovePaused"]
    assert paused and paused[0].firers == ["Tk1"]                            # the hidden gun is never asked
    t.refuse("british", "fire HC1", rule="6.62")                             # may not fire at the tank
    t.refuse("british", "fire H1 at 0707", rule="32.2", match="only for the hex where the mover stands")
    evs = t.ok("british", "fire H1")                  # Tk1, asked, is not named yet: the answer goes on
    assert kinds(evs) == ["OpportunityPlanned"] and t.state().pending.shots[0].firers == ["H1"]
    evs = t.ok("british", "pass")                      # Tk1 holds; the move goes on, H1's shot taken (6.6)
    rev = [e for e in evs if isinstance(e, FE.Revealed)]
    assert rev[0].units == ["H1"] and rev[0].face_up
    assert kinds(evs).index("Revealed") < kinds(evs).index("GunFired")


def test_a_refused_standing_shot_reveals_nothing(tmp_path):
    from pbem.core.ruleset import Ctx
    from pbem.core.state import copy_state
    from pbem.games.advanced_tobruk.turn import standing
    t = game(tmp_path, [U("G1", "german", "ger-squad", "0706")])
    st = copy_state(t.state())
    ctx = Ctx(t.game.rules, st, t.game.scenario, "british", None)
    assert standing.standing_shot(ctx, "H1", "G1", 0) is False               # no HE: it may not fire at a squad
    assert ctx.events == [] and hidden.is_hidden(st, "H1")


def test_a_side_with_unfired_hidden_units_waits_in_a_fire_phase(tmp_path):
    from pbem.core.state import copy_state
    t = game(tmp_path, [U("G1", "german", "ger-squad", "0310")])
    st, sc = copy_state(t.state()), t.game.scenario
    st.phase = DIRECT
    assert hidden.waits(st, sc, "british") and not hidden.waits(st, sc, "german")
    st.phase = FINAL                                        # final fire: only when an enemy unit has moved
    assert not hidden.waits(st, sc, "british")
    st.pieces["G1"].moved = True
    assert hidden.waits(st, sc, "british")
    goto(t, 1, DIRECT)                 # nobody can fire: the Germans are passed by the rules, the British asked
    now = t.state()
    assert (now.phase, now.step.to_act, now.step.passed) == (DIRECT, "british", ["german"])
