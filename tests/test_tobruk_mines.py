"""Advanced Tobruk minefields (31.1): forcing by movement type (31.17), lanes
(31.174), friendly minefields (31.161), hidden (31.15, 31.20) and dummy (31.19)
minefields, attacks (31.18), search (31.211) and clearance (31.212).  Small
worlds with scripted dice; the mover is put in the mine hex as the move's
Stepped would, then ``mines.on_enter`` is called as the move does."""
from __future__ import annotations

from pbem.games.advanced_tobruk.mines import mines
from pbem.games.advanced_tobruk.tables import fire_ap_tables as T
from pbem.games.advanced_tobruk.fire_events import CasualtyAttack, MoraleChecked
from pbem.games.advanced_tobruk.mine_events import MineAttack, MineCleared, MineEntered
from pbem.games.advanced_tobruk.mines.mine_words import describe
from pbem.games.advanced_tobruk.mines_state import Minefield

from tobruk_fire_helpers import U, events, world

MINE = "0505"


def mined(units, dice=(), **mf):
    """A world with a British minefield in 0505 (density 3 unless told) and the units."""
    ctx = world(units, dice)
    ctx.state.minefields = {MINE: Minefield(side="british", density=mf.pop("density", 3), note="mine-1", **mf)}
    return ctx


def enter(ctx, uid, move, hex=MINE):
    """The mover stands in ``hex`` moving by ``move`` (MoveBegan + Stepped), then the mines act."""
    p = ctx.state.pieces[uid]
    p.move, p.moving, p.moved = move, True, True
    ctx.state.units[uid].hex = hex
    return mines.on_enter(ctx, [uid], hex, move)


def tank(dice=(), **mf):
    return mined([U("P", "german", "pz3g", "0506", facing="NNE")], dice, **mf)


def squad(dice=(), **mf):
    return mined([U("S", "german", "ger-squad", "0506")], dice, **mf)


def entered(ctx) -> MineEntered:
    (ev,) = events(ctx, MineEntered)
    return ev


# --- 31.173-31.174 vehicles ----------------------------------------------------------------

def test_31_173_vehicle_assault_roll_greater_than_density_forces_and_lays_a_lane():
    ctx = tank([4])
    assert enter(ctx, "P", "assault") is False                    # it goes on with its move
    ev = entered(ctx)
    assert (ev.how, ev.rolls, ev.failed, ev.density, ev.lane) == ("forcing", [4], [], 3, True)
    mf = ctx.state.minefields[MINE]
    assert mf.lane and mf.known and not ctx.state.pieces["P"].m_kill
    assert "density is 3" in describe(ev, ctx.sc) and "lane marker placed (31.174)" in describe(ev, ctx.sc)


def test_31_18a_vehicle_roll_equal_to_density_fails_m_kill_and_bail_out_check():
    # 3 is not greater than 3: M-KILLed; bail-out roll 5 > 3 (M-KILL row): the crew stays
    ctx = tank([3, 5])
    assert enter(ctx, "P", "assault") is True                     # it stops in the minefield
    assert entered(ctx).failed == ["P"] and not ctx.state.minefields[MINE].lane
    (att,) = events(ctx, MineAttack)
    assert (att.bail_number, att.rolls) == (T.BAIL_OUT["M-KILL"], [5])
    p = ctx.state.pieces["P"]
    assert p.m_kill and not p.bailed and not ctx.state.units["P"].eliminated
    assert "M-KILLed" in describe(att, ctx.sc) and "bail-out roll 5 vs 3" in describe(att, ctx.sc)


def test_31_172_cross_country_vehicle_is_attacked_without_a_forcing_roll():
    ctx = tank([2])                                               # the one roll is the bail-out: 2 <= 3
    assert enter(ctx, "P", "cross") is True
    ev = entered(ctx)
    assert (ev.how, ev.rolls, ev.failed, ev.rule) == ("attacked", [], ["P"], "31.172")
    assert ctx.state.pieces["P"].m_kill and ctx.state.pieces["P"].bailed


def test_31_18b_a_truck_that_fails_is_a_burning_wreck_and_its_towed_gun_f_killed():
    ctx = mined([U("T", "german", "truck", "0506"), U("G", "german", "bofors", "0506")], [1])
    ctx.state.pieces["G"].towed_by = "T"
    ctx.state.units["G"].hex = MINE
    assert enter(ctx, "T", "assault") is True
    (att,) = events(ctx, MineAttack)
    assert att.effects == [["T", "kkill", "burning"], ["G", "fkill", "main"]]
    assert ctx.state.pieces["T"].wreck == "burning" and ctx.state.units["T"].eliminated
    assert ctx.state.pieces["G"].f_kill == ["main"]


# --- personnel -----------------------------------------------------------------------------------

def test_31_175_personnel_crawling_force_but_lay_no_lane():
    ctx = squad([7])
    assert enter(ctx, "S", "crawl") is False
    ev = entered(ctx)
    assert (ev.how, ev.rolls, ev.failed, ev.lane) == ("forcing", [7], [], False)
    assert not ctx.state.minefields[MINE].lane


def test_31_18c_personnel_attack_is_density_x4_frag_as_stationary():
    # assault movement into a minefield is not allowed for forcing: attacked at once (31.172).
    # density 2 x 4 = 8 FRAG on the '8' column with no cover shift although the squad moves by
    # assault movement (+2 otherwise): roll 3 = C1; the morale check roll 1 always passes
    ctx = squad([3, 1], density=2)
    assert enter(ctx, "S", "assault") is True
    assert entered(ctx).how == "attacked"
    (att,) = events(ctx, CasualtyAttack)
    assert (att.factors, att.column, att.roll, att.result) == (8, 8, 3, 1)
    assert att.shifts == ["STATIONARY (31.18)"] and att.parts == ["density 2 x 4 FRAG"]
    assert ctx.state.pieces["S"].steps == 1
    (mc,) = events(ctx, MoraleChecked)
    assert mc.unit == "S" and mc.result == "passed"


def test_31_18c_personnel_failing_the_roll_take_density_x4_frag():
    # density 3: roll 2 fails; 12 FRAG, roll 8 on the '12' column: no effect, no morale check
    ctx = squad([2, 8])
    assert enter(ctx, "S", "crawl") is True
    (att,) = events(ctx, CasualtyAttack)
    assert (att.factors, att.column, att.result) == (12, 12, 0)
    assert not events(ctx, MoraleChecked) and ctx.state.pieces["S"].steps == 0


def test_31_173_each_unit_of_a_platoon_rolls_for_itself():
    ctx = mined([U("S", "german", "ger-squad", "0506"), U("L", "german", "ger-leader", "0506")], [5, 2, 9],
                density=3)
    for u in ("S", "L"):
        ctx.state.units[u].hex = MINE
    assert mines.on_enter(ctx, ["S", "L"], MINE, "crawl") is True
    ev = entered(ctx)
    assert ev.rolls == [5, 2] and ev.failed == ["L"]
    (att,) = events(ctx, CasualtyAttack)
    assert att.losses == [] and att.roll == 9                     # 12 FRAG, roll 9: no effect


# --- lanes and friendly minefields ----------------------------------------------------------------

def test_31_174_a_lane_lets_vehicles_assault_and_personnel_assault_through_without_a_roll():
    ctx = mined([U("P", "german", "pz3g", "0506", facing="NNE"), U("S", "german", "ger-squad", "0506")],
                lane=True, known=True)
    assert enter(ctx, "P", "assault") is False
    assert enter(ctx, "S", "assault") is False
    assert not events(ctx, MineEntered)                           # no roll, nothing to report


def test_31_174_running_personnel_still_roll_in_a_lane():
    ctx = squad([3, 10], lane=True, known=True)                   # roll 3 fails; 12 FRAG roll 10: nothing
    assert enter(ctx, "S", "run") is True
    ev = entered(ctx)
    assert (ev.how, ev.rolls, ev.failed, ev.rule) == ("forcing", [3], ["S"], "31.174")


def test_31_161_own_minefield_no_roll_unless_running_or_cross_country():
    ctx = mined([U("A", "british", "aus-squad", "0506"), U("B", "british", "a13", "0506", facing="NNE")], [6])
    assert enter(ctx, "A", "assault") is False
    assert not events(ctx, MineEntered)
    assert enter(ctx, "B", "cross") is False                      # 6 > 3: passes, and lays no lane
    ev = entered(ctx)
    assert (ev.how, ev.rolls, ev.lane, ev.rule) == ("forcing", [6], False, "31.161")
    assert not ctx.state.minefields[MINE].lane


# --- 31.15, 31.20 hidden minefields ----------------------------------------------------------------

def test_31_15_hidden_minefield_placed_and_personnel_assault_rolls_at_minus_one():
    # roll 4 - 1 = 3, not greater than 3: failed
    ctx = squad([4, 10], hidden=True)
    assert enter(ctx, "S", "assault") is True
    ev = entered(ctx)
    assert (ev.placed, ev.how, ev.drm, ev.rolls, ev.failed) == (True, "forcing", -1, [4], ["S"])
    assert not ctx.state.minefields[MINE].hidden and ctx.state.minefields[MINE].known
    assert "hidden" in describe(ev, ctx.sc) and "4 -1" in describe(ev, ctx.sc)


def test_31_201_hidden_minefield_crawling_rolls_without_the_drm_and_stops():
    ctx = squad([4], hidden=True)
    assert enter(ctx, "S", "crawl") is True                       # discovered: the move stops (our decision)
    ev = entered(ctx)
    assert (ev.placed, ev.drm, ev.failed) == (True, 0, [])


def test_31_201_hidden_minefield_vehicle_assault_rolls_cross_country_is_attacked():
    ctx = tank([4], hidden=True)
    assert enter(ctx, "P", "assault") is True
    assert entered(ctx).drm == 0 and entered(ctx).lane            # forced: a lane all the same
    ctx = tank([9], hidden=True)
    assert enter(ctx, "P", "cross") is True
    ev = entered(ctx)
    assert (ev.how, ev.rule, ev.rolls) == ("attacked", "31.201", [])
    assert ctx.state.pieces["P"].m_kill


def test_own_hidden_minefield_is_crossed_silently():
    ctx = mined([U("A", "british", "aus-squad", "0506")], hidden=True)
    assert enter(ctx, "A", "crawl") is False
    assert not events(ctx, MineEntered) and ctx.state.minefields[MINE].hidden


# --- 31.19 dummies -----------------------------------------------------------------------------------

def test_31_191_dummy_revealed_when_forced_lane_placed_no_roll():
    ctx = tank([], density=0, dummy=True)
    assert enter(ctx, "P", "assault") is False
    ev = entered(ctx)
    assert (ev.how, ev.dummy, ev.rolls, ev.lane) == ("dummy", True, [], True)
    mf = ctx.state.minefields[MINE]
    assert mf.known and mf.lane and MINE in ctx.state.minefields  # the counter stays on the map
    assert "DUMMY" in describe(ev, ctx.sc)


def test_31_191_a_revealed_dummy_still_restricts_movement():
    ctx = squad([], density=0, dummy=True, known=True)
    st, sc = ctx.state, ctx.sc
    assert enter(ctx, "S", "crawl") is False and not events(ctx, MineEntered)
    why = mines.plan_problem(st, sc, "german", "S", "run", MINE)
    assert why is not None and why[1] == "31.191"
    assert mines.plan_problem(st, sc, "german", "S", "crawl", MINE) is None
    assert mines.plan_problem(st, sc, "british", "S", "run", MINE) is None      # its owner's


def test_31_172_no_pivot_in_an_enemy_minefield_the_side_sees():
    ctx = tank()
    st, sc = ctx.state, ctx.sc
    assert mines.plan_problem(st, sc, "german", "P", "assault", MINE, pivot=True)[1] == "31.172"
    st.minefields[MINE].hidden = True                             # not on the German map: nothing said
    assert mines.plan_problem(st, sc, "german", "P", "assault", MINE, pivot=True) is None


# --- what each side sees -------------------------------------------------------------------------------

def test_views_the_enemy_sees_a_face_down_minefield_and_no_hidden_one():
    ctx = tank()
    st, sc = ctx.state, ctx.sc
    st.minefields["0707"] = Minefield(side="british", density=4, hidden=True, note="mine-2")
    st.minefields["0708"] = Minefield(side="british", dummy=True, note="dummy-1")
    german = mines.report_lines(st, sc, "german")
    assert german == ["0505 (British): minefield, density unknown", "0708 (British): minefield, density unknown"]
    british = " ".join(mines.report_lines(st, sc, "british"))
    assert "density 3" in british and "density 4 (hidden" in british and "dummy" in british
    assert mines.marks(st, sc, "german")["areas"] == [
        {"label": "British minefield, density unknown (31.1)", "hexes": ["0505", "0708"], "side": "british"}]
    assert sorted(h for a in mines.marks(st, sc, "british")["areas"] for h in a["hexes"]) == ["0505", "0707", "0708"]


# --- 31.212 clearance -------------------------------------------------------------------------------

def test_31_212_clear_removes_the_minefield():
    ctx = tank()
    mines.clear(ctx, MINE, "a 150 mm direct hit")
    (ev,) = events(ctx, MineCleared)
    assert MINE not in ctx.state.minefields and "cleared" in describe(ev, ctx.sc)
    mines.clear(ctx, "0909", "nothing there")                     # no minefield: nothing happens
    assert len(events(ctx, MineCleared)) == 1
