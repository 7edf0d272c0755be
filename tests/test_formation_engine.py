"""Formation Series engine (Mirages '40 '41): activation, actions, movement, command,
supply — on small scenarios built in the test (tests/formation_helpers.py), scripted d10s."""
from __future__ import annotations

from pbem.core.turn import Turn

import pytest

from conftest import one, only
from formation_helpers import direct, hq, make, unit
from pbem.games.formation import events as E
from pbem.games.formation.command import in_command
from pbem.games.formation.supply import hq_in_supply
from pbem.games.formation.actions import refit
from pbem.games.formation.effectiveness import ec


@pytest.fixture
def fm(tmp_path, fixed_clock):
    return lambda units=None, dice=(), **kw: make(tmp_path, units, dice, **kw)


def test_activation_ap_from_the_table_and_level_drops(fm):
    # 6.4.1 / 6.4.2: level 3, d10 5 -> the black value; the marker drops one space
    t = fm(dice=[5])
    ev = one(t.ok("axis", "activate A"), E.FormationActivated)
    sc = t.game.scenario
    assert ev.ap == sc.game_data["ap_table"]["black"]["3"][4] and ev.level == 3 and ev.new_level == 2
    assert t.state().fm.active.ap == ev.ap


def test_schwerpunkt_adds_one_ap_at_least_three(fm):
    # 5.9: +1 AP, at least 3 in all
    t = fm(dice=[1], game_data={"schwerpunkt": {"setup": "A"}})
    ev = one(t.ok("axis", "activate A"), E.FormationActivated)
    base = t.game.scenario.game_data["ap_table"]["black"]["3"][0]
    assert ev.schwerpunkt and ev.ap == max(base + 1, 3)


def test_out_of_supply_hq_activates_with_level_to_zero(fm):
    # 6.4.3 / 5.7.5: an unsupplied HQ rolls on its level, then the marker goes to 0; MA halved
    units = [hq("A-HQ", "axis", "0207", formation="A", hq_movement="leg"),   # not next to the road: no supply
             unit("A1", "axis", "0307", formation="A", ma=4),
             hq("B-HQ", "allied", "0903", formation="B"), unit("B1", "allied", "0804", formation="B")]
    t = fm(units, dice=[5])
    sc = t.game.scenario
    assert not hq_in_supply(t.state(), sc, "A")
    ev = one(t.ok("axis", "activate A"), E.FormationActivated)
    assert not ev.in_supply and ev.new_level == 0
    t.refuse("axis", "move A1 0308 0408 0508", match="MP")           # 4 MA halved: 2
    t.ok("axis", "move A1 0308 0408")


def test_road_rate_and_ezoc_stop(fm):
    # 7.3.3: road to road at the road rate; 5.4.1: entering an EZOC ends the move
    t = fm(dice=[9])
    t.ok("allied", "doctrine reaction never")
    t.ok("axis", "activate A")
    evs = t.ok("axis", "move A1 0404 0504 0604 0704")
    moved = only(evs, E.StackMoved)
    assert [m.mp for m in moved] == ["1/3", "1/3", "1/3", "1"]       # into the EZOC: no road rate
    t.refuse("axis", "move A2 0405 0505 0605 0705 0706", match="enemy ZOC")


def test_no_move_from_ezoc_to_ezoc_nor_into_enemy(fm):
    t = fm(dice=[9])
    t.ok("allied", "doctrine reaction never")
    t.ok("axis", "activate A")
    t.ok("axis", "move A1 0404 0504 0604 0704")
    t.refuse("axis", "move A1 0705", rule="5.4.1, 7.3.4")
    t.refuse("axis", "move A1 0804", match="enemy units")


def test_stacks_move_together_and_stacking_limits(fm):
    # 7.3.1 stacks of one formation from one hex; 13.1.3 Axis: one infantry, two panzer/recce
    units = [hq("A-HQ", "axis", "0203", formation="A"),
             unit("A1", "axis", "0304", formation="A", category="tank", movement="mot", ma=8),
             unit("A2", "axis", "0305", formation="A", category="mot-infantry", movement="mot", ma=6),
             unit("A3", "axis", "0306", formation="A", category="infantry", ma=4),
             hq("B-HQ", "allied", "0903", formation="B"), unit("B1", "allied", "0904", formation="B")]
    t = fm(units, dice=[9])
    t.ok("axis", "activate A")
    t.ok("axis", "move A2 0304")
    t.refuse("axis", "move A3 0305 0304", match="overstacked")     # two infantry
    evs = t.ok("axis", "move A1+A2 0404 0504")
    assert one(evs, E.APSpent).ap == 1
    assert t.hex_of("A1") == t.hex_of("A2") == "0504"
    assert only(evs, E.StackMoved)[0].ma == "6"                        # the slowest unit


def test_out_of_command_move_costs_two(fm):
    # 5.8.3: out of command: movement costs double
    units = [hq("A-HQ", "axis", "0101", formation="A", command_range=2),
             unit("A1", "axis", "0601", formation="A", ma=4),
             hq("B-HQ", "allied", "0908", formation="B"), unit("B1", "allied", "0808", formation="B")]
    t = fm(units, dice=[9])
    assert not in_command(t.state(), t.game.scenario, "A1")
    t.ok("axis", "activate A")
    assert one(t.ok("axis", "move A1 0501"), E.APSpent).ap == 2


def test_command_path_blocked_by_ezoc(fm):
    # 5.8.2: traced into but not through an EZOC without a friendly unit
    units = [hq("A-HQ", "axis", "0101", formation="A", command_range=2),
             unit("A1", "axis", "0301", formation="A"),
             hq("B-HQ", "allied", "0908", formation="B"), unit("B1", "allied", "0202", formation="B"),
             unit("B2", "allied", "0302", formation="B")]
    t = fm(units)
    st, sc = t.state(), t.game.scenario
    assert not in_command(st, sc, "A1")
    st.units["B1"].disrupted = st.units["B2"].disrupted = True        # disrupted units project no ZOC
    assert in_command(st, sc, "A1")


def test_refit_is_an_ec(fm):
    # 7.5: a disrupted unit in command rolls an EC; pass -> recovers; fail -> stays, no SP lost
    t = fm(dice=[9])
    t.ok("allied", "doctrine reaction never")
    t.ok("axis", "activate A")
    t.refuse("axis", "refit A1", match="not disrupted")
    ctx = direct(t, "axis", [7, 2])
    ctx.state.units["A1"].disrupted = True
    refit(ctx, ["A1"])
    ec = one(ctx.events, E.ECRolled)
    assert (ec.rolls, ec.rating, ec.passed, ec.step_loss) == ([7], 3, False, False)   # 5.6.3: disrupted rating
    assert ctx.state.units["A1"].disrupted and ctx.state.units["A1"].strength == 4
    refit(ctx, ["A1"])
    assert ctx.events[-1].passed and ctx.events[-1].recovers and not ctx.state.units["A1"].disrupted
    assert ctx.state.fm.active.ap == t.state().fm.active.ap - 2


def test_ec_in_combat_of_a_disrupted_unit_costs_a_step(fm):
    # 5.6.2: already disrupted, failing again in combat: one more SP lost
    t = fm()
    ctx = direct(t, "axis", [9])
    ctx.state.units["B1"].disrupted = True
    assert not ec(ctx, "B1", "combat", combat=True)
    assert ctx.events[-1].step_loss and ctx.state.units["B1"].strength == 3


def test_improved_defense_and_its_removal(fm):
    # 7.6: all units of the formation, in command, undisrupted; removed when a unit leaves
    t = fm(dice=[9])
    t.ok("allied", "doctrine reaction never")
    t.ok("axis", "activate A")
    t.ok("axis", "improve 0304")
    assert t.state().fm.improved == ["0304"]
    t.refuse("axis", "improve 0304", match="already")
    evs = t.ok("axis", "move A1 0404")
    assert t.state().fm.improved == []
    assert one(evs, E.ImprovedDefense).on is False


def test_7_6_another_unit_ending_its_move_in_the_hex_removes_the_marker_in_the_log(fm):
    # 7.6: "another unit ends a Movement Action ... in the hex": the marker goes, and the log
    # and the report say so (the reducer took it off silently)
    t = fm(dice=[9])
    t.ok("allied", "doctrine reaction never")
    t.ok("axis", "activate A")
    t.ok("axis", "improve 0304")
    evs = t.ok("axis", "move A2 0304")
    off = one(evs, E.ImprovedDefense)
    assert (off.hex, off.on, off.reason) == ("0304", False, "another unit ends its move in the hex")
    assert evs.index(off) == evs.index(one(evs, E.StackMoved)) + 1 and t.state().fm.improved == []
    words = t.game.rules.describe_event(off, t.game.scenario)
    assert words == "Improved Defense in 0304 removed (another unit ends its move in the hex) (7.6)."


def test_seize_a_victory_location_for_one_ap(fm):
    # 7.3.6 / 13.3.1: one AP, the in-command value, once per turn
    units = [hq("A-HQ", "axis", "0101", formation="A"), unit("A1", "axis", "0102", formation="A"),
             hq("B-HQ", "allied", "0705", formation="B"), unit("B1", "allied", "0606", formation="B")]
    t = fm(units, dice=[9, 9, 9], game_data={"first_initiative": "allied"})
    t.ok("allied", "activate B")
    evs = t.ok("allied", "seize 0606")
    assert one(evs, E.VPScored).vp == 3 and t.state().fm.vp == 3
    t.refuse("allied", "seize 0606", match="already")


def test_hq_alone_displaced_by_a_unit_moving_next_to_it(fm):
    # 7.3.5 / 5.3.3: onto the nearest unit of its formation, -1 support, one level down
    units = [hq("A-HQ", "axis", "0203", formation="A"),
             unit("A1", "axis", "0304", formation="A", category="tank", movement="mot", ma=8),
             hq("B-HQ", "allied", "0603", formation="B"), unit("B1", "allied", "0908", formation="B")]
    t = fm(units, dice=[9], game_data={"first_initiative": "axis"})
    t.ok("axis", "activate A")
    evs = t.ok("axis", "move A1 0404 0504")
    d = one(evs, E.HQDisplaced)
    assert (d.hq, d.to, d.support, d.level) == ("B-HQ", "0908", 3, 2)
    assert t.hex_of("B-HQ") == "0908"


def test_leg_hq_supply_along_the_road_broken_by_an_enemy(fm):
    # 5.7.2 / 5.7.4: a leg HQ next to the road, the road to its source, no enemy on it
    units = [hq("A-HQ", "axis", "0303", formation="A", hq_movement="leg"), unit("A1", "axis", "0304", formation="A"),
             hq("B-HQ", "allied", "0908", formation="B"), unit("B1", "allied", "0908", formation="B")]
    t = fm(units)
    st, sc = t.state(), t.game.scenario
    assert hq_in_supply(st, sc, "A")
    st.units["B1"].hex = "0204"                                         # an enemy on the road
    assert not hq_in_supply(st, sc, "A")


def test_optional_ap_markers_drawn_without_replacement(fm):
    # 6.4.1 optional: the roll picks a marker from what is left in the cup; drawn ones stay out
    t = fm(dice=[10, 9, 1], game_data={"ap_markers_on": True,
                                      "ap_markers": {"axis": [1, 2, 2, 3, 3, 3, 4, 4, 5, 6],
                                                     "allied": [1, 2, 2, 3, 3, 3, 4, 4, 5, 6]}})
    t.ok("allied", "doctrine reaction never")
    ev = one(t.ok("axis", "activate A"), E.FormationActivated)
    assert (ev.marker, ev.ap) == (9, 6)
    assert t.state().fm.cups["axis"] == list(range(9))


def test_deadline_defaults_and_order_help(fm):
    t = fm()
    g = t.game
    st, sc = g.state(), g.scenario
    assert g.rules.default_orders(st, sc, "axis") == ["transfer"]
    assert g.rules.default_orders(st, sc, "allied") == []
    words = {x.split()[0] for x in list(Turn(g.rules, sc, st).help("axis"))}
    assert {"activate", "move", "screen", "refit", "react", "doctrine", "schwerpunkt", "attack"} <= words


def test_map_marks_show_the_victory_locations_and_the_score(fm):
    # 16: victory locations with their in-command value; the VP against this turn's range
    t = fm()
    m = t.game.rules.map_marks(t.state(), t.game.scenario, "axis")
    assert m["objectives"] == [{"hex": "0606", "vp": 3, "label": "Objective: 3/1 VP"}]
    assert m["score"] == "Commonwealth 0 VP (turn 1 range 0-10)"


def test_screen_movement_needs_twice_the_enemy_tank_and_at_points(fm):
    # 7.3.4: from one EZOC directly into another for the whole MA, with at least twice the
    # tank + AT points of the enemies exerting a ZOC into the start hex; else the AP is spent
    units = [hq("A-HQ", "axis", "0503", formation="A"),
             unit("A1", "axis", "0604", formation="A", category="tank", movement="mot", tank=4, afv=True, ma=8),
             unit("A2", "axis", "0605", formation="A", category="infantry", ma=4),
             hq("B-HQ", "allied", "0908", formation="B"),
             unit("B1", "allied", "0704", formation="B", category="infantry", at=2),
             unit("B2", "allied", "0706", formation="B", category="infantry", at=1)]
    t = fm(units, dice=[9])
    t.ok("allied", "doctrine reaction never")
    t.ok("axis", "activate A")
    evs = t.ok("axis", "screen A2 0705")                               # no tank points in 0605: spent, no move
    assert t.hex_of("A2") == "0605" and one(evs, E.StackMoved).path == [] and one(evs, E.APSpent).ap == 1
    t.refuse("axis", "move A1 0605", rule="5.4.1, 7.3.4")             # EZOC to EZOC
    evs = t.ok("axis", "screen A1 0605")                               # 4 >= 2 x 2 (B1's AT)
    assert t.hex_of("A1") == "0605" and only(evs, E.StackMoved)[0].screen


def test_an_hq_alone_may_not_enter_an_ezoc(fm):
    # 3.3: not without a friendly combat unit there or moving with it
    units = [hq("A-HQ", "axis", "0604", formation="A"), unit("A1", "axis", "0504", formation="A"),
             hq("B-HQ", "allied", "0908", formation="B"), unit("B1", "allied", "0804", formation="B")]
    t = fm(units, dice=[9])
    t.ok("allied", "doctrine reaction never")
    t.ok("axis", "activate A")
    t.refuse("axis", "move A-HQ 0704", rule="3.3")
    t.ok("axis", "move A1 0604")
    t.ok("axis", "move A-HQ+A1 0704")                                  # with a combat unit: allowed


def test_supply_source_blocked_by_an_enemy_ending_its_move_there(fm):
    # 5.7.3: an enemy ending a Movement Action on it blocks it; passing through does not
    units = [hq("A-HQ", "axis", "0703", formation="A"),
             unit("A1", "axis", "0704", formation="A", category="tank", movement="mot", ma=8),
             hq("B-HQ", "allied", "0101", formation="B"), unit("B1", "allied", "0108", formation="B")]
    t = fm(units, dice=[9], game_data={"supply_sources": {"axis": ["0104"], "allied": ["1004", "1005"]}})
    t.ok("allied", "doctrine reaction never")
    t.ok("axis", "activate A")
    t.ok("axis", "move A1 0804 0904 1004 1005")
    assert t.state().fm.blocked == ["1005"]


def test_16_the_state_score_is_the_victory_points_at_every_moment(played_example):
    # `pbem state --json` shows st.score: after each VPScored it holds the scorer's running total
    # (it stayed 0/0 while the VPs accrued)
    from click.testing import CliRunner
    import json
    from pbem.cli import main
    ex = played_example("mirages-brevity")
    g = ex.game()
    scored = [en for en in g.entries() if isinstance(en.event, E.VPScored)]
    assert len(scored) >= 2
    for en in (scored[0], scored[-1]):
        out = CliRunner().invoke(main, ["state", str(ex.dir), "--json", "--at", str(en.seq)])
        assert out.exit_code == 0, out.output
        score = json.loads(out.output)["score"]
        assert score[en.event.side] == en.event.total and sum(score.values()) == en.event.total
