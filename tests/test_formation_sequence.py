"""Formation Series sequence of play (Mirages '40 '41): initiative (6.1), act or transfer
(6.2), end of the Ops Phase (6.3), End of Turn (8) and Admin Phase (9), victory (16)."""
from __future__ import annotations

import pytest

from conftest import one, only
from formation_helpers import hq, make, quiet, skip_ops, unit
from pbem.games.formation import events as E


@pytest.fixture
def fm(tmp_path, fixed_clock):
    return lambda units=None, dice=(), **kw: make(tmp_path, units, dice, **kw)


def test_first_activation_by_scenario_marker_on_plus_two(fm):
    # 16.x: the scenario gives turn 1's first activation; the marker goes to +2 on the other side
    t = fm()
    fm_ = t.state().fm
    assert (fm_.initiative, fm_.init_drm_side, fm_.init_drm, fm_.in_row) == ("axis", "allied", 2, 1)
    assert t.awaiting()[0]["kind"] == "initiative" and t.awaiting()[0]["side"] == "axis"


def test_initiative_roll_with_the_drm_and_the_marker_flipping(fm):
    # 6.1: the side shown on the marker adds it; (b) the marker flips to the new Reaction side on +2
    t = fm(dice=[9, 7, 6])                  # AP; axis 7 vs allied 6 + 2 = 8 -> allied
    quiet(t)
    t.ok("axis", "activate A")
    ev = one(t.ok("axis", "end"), E.InitiativeDetermined)
    assert (ev.rolls, ev.axis, ev.allied, ev.winner) == ([7, 6], 7, 8, "allied")
    assert (ev.drm_side, ev.drm) == ("axis", 2)


def test_exact_tie(fm):
    t = fm(dice=[9, 8, 6])                  # axis 8 vs allied 6+2 = 8: tie -> Axis (scenario)
    quiet(t)
    t.ok("axis", "activate A")
    ev = one(t.ok("axis", "end"), E.InitiativeDetermined)
    assert (ev.axis, ev.allied, ev.winner) == (8, 8, "axis")
    assert (ev.drm_side, ev.drm) == ("allied", 3)                        # (a) moved on, not flipped


def test_maximum_initiatives_in_a_row(fm):
    # 6.1.1: after two in a row the other side gets it without a roll
    t = fm(dice=[9, 9, 1, 9])               # AP; axis 9 vs 1+2: axis (2 in a row); AP
    quiet(t)
    t.ok("axis", "activate A")
    t.ok("axis", "end")
    assert t.state().fm.in_row == 2
    t.ok("axis", "activate A")
    ev = one(t.ok("axis", "end"), E.InitiativeDetermined)
    assert ev.reason == "in-row" and ev.winner == "allied" and ev.rolls == []


def test_transfer_then_the_receiver_must_act_or_end(fm):
    # 6.2: no transfer back; 6.3: the receiver may end the Ops Phase
    t = fm(dice=[9] * 10)
    quiet(t)
    t.ok("axis", "transfer")
    t.refuse("allied", "transfer", rule="6.2")
    t.refuse("axis", "end", match="not your turn: the game waits for Commonwealth (initiative, 6.2)")   # the kernel's
    evs = t.ok("allied", "end")
    one(evs, E.OpsPhaseEnded)
    assert t.state().turn == 2                                          # End of Turn, then turn 2's Admin, Ops


def test_initiative_player_may_not_end_without_a_transfer(fm):
    t = fm()
    t.refuse("axis", "end", rule="6.3")


def test_transfers_in_a_row_limited(fm):
    # 6.2: at most one initiative transferred in a row to one side (scenario limit)
    t = fm(dice=[9, 9, 1, 9])
    quiet(t)
    t.ok("axis", "transfer")                # cycle 1: to the Allies
    t.ok("allied", "activate B")
    t.ok("allied", "end")                   # cycle 2: axis 9 vs allied 1 + 2: the Axis
    assert t.state().fm.initiative == "axis"
    t.refuse("axis", "transfer", rule="6.2", match="in a row")
    t.ok("axis", "activate A")


def test_end_of_turn_scores_and_the_admin_phase_recovers(fm):
    # 8: a combat unit on a VP hex scores at the End of Turn; 9.1.1 recovery; 5.2 SNAFU passes
    units = [hq("A-HQ", "axis", "0101", formation="A"), unit("A1", "axis", "0102", formation="A"),
             hq("B-HQ", "allied", "0705", formation="B", level=3, recovery=2, max_level=4),
             unit("B1", "allied", "0606", formation="B")]
    t = fm(units, dice=[9] * 10)
    quiet(t)
    t.ok("axis", "transfer")
    t.ok("allied", "activate B")
    ev = one(t.ok("allied", "end"), E.InitiativeDetermined)     # axis 9 vs allied 9 + 2
    assert ev.winner == "allied"
    t.ok("allied", "transfer")
    evs = t.ok("axis", "end")
    vp = one(evs, E.VPScored)
    assert (vp.hex, vp.vp, vp.in_command) == ("0606", 3, True)
    rec = {e.formation: e.level for e in only(evs, E.FormationRecovered)}
    assert rec["B"] == 4                                                # 2 + 2, capped at the maximum 4
    assert one(evs, E.AdminBegun).snafu == "axis"                      # unused by the Allies: it passes
    assert t.state().turn == 2


def test_victory_range_ends_the_game(fm):
    # 16: above the turn's range: the scoring side wins at once
    units = [hq("A-HQ", "axis", "0101", formation="A"), unit("A1", "axis", "0102", formation="A"),
             hq("B-HQ", "allied", "0705", formation="B"), unit("B1", "allied", "0606", formation="B")]
    t = fm(units, dice=[9] * 10, victory={"kind": "points", "ranges": {"gt1": [0, 2], "gt2": [0, 9]},
                                           "hexes": [{"hex": "0606", "name": "X", "in_command": 3,
                                                      "out_of_command": 1}]}, turns=2)
    evs = skip_ops(t)
    end = one(evs, E.GameEnded)
    assert end.winner == "allied" and "above" in end.reason


def test_hold_victory_and_draw(fm):
    # 16.3: a side's combat unit in the hex on the listed turn wins; none by the last turn: draw
    units = [hq("A-HQ", "axis", "0101", formation="A"), unit("A1", "axis", "0102", formation="A"),
             hq("B-HQ", "allied", "0705", formation="B"), unit("B1", "allied", "0606", formation="B")]
    hold = {"kind": "hold", "hold": [{"turn": 1, "side": "axis", "hex": "0606", "command": "any", "result": "Axis win"}]}
    t = fm(units, dice=[9] * 10, victory=hold, turns=1)
    end = one(skip_ops(t), E.GameEnded)
    assert end.winner == "draw"


def test_automatic_victory_when_a_side_has_no_combat_unit(fm):
    # 16: every combat unit of a side eliminated: the game ends at once
    units = [hq("A-HQ", "axis", "0101", formation="A"), unit("A1", "axis", "0102", formation="A"),
             hq("B-HQ", "allied", "0705", formation="B"), unit("B1", "allied", None, formation="B", turn=3)]
    t = fm(units, dice=[9] * 10, game_data={"reinforcements": [{"turn": 3, "side": "allied", "units": ["B1"]}]})
    assert t.state().result is None                                     # reinforcements ignored, none eliminated


def _last_on_the_map_eliminated(t, *, back_from_off_map: str = ""):
    """A Ctx where B1, the Allies' only combat unit on the map, has just been eliminated."""
    from formation_helpers import direct
    from pbem.games.formation.terms import automatic_victory
    ctx = direct(t, "axis")
    b1 = ctx.state.units["B1"]
    b1.hex, b1.eliminated = None, True
    if back_from_off_map:                   # 13.2.4.1: on the turn track, back as a reinforcement
        u = ctx.state.units[back_from_off_map]
        u.hex, u.waiting = None, "turn 2"
        ctx.state.fm.off_map[u.id] = 2
    return automatic_victory(ctx), ctx.events


def test_16_automatic_victory_ignores_a_reinforcement_still_to_come(fm):
    # 16: every combat unit of a side eliminated ends the game at once; "ignore any
    # reinforcements": B2, due on turn 2, does not keep the lost game going
    units = [hq("A-HQ", "axis", "0101", formation="A"), unit("A1", "axis", "0102", formation="A"),
             hq("B-HQ", "allied", "0705", formation="B"), unit("B1", "allied", "0706", formation="B"),
             unit("B2", "allied", None, formation="B", turn=2)]
    t = fm(units, game_data={"reinforcements": [{"turn": 2, "side": "allied", "units": ["B2"]}]})
    ended, evs = _last_on_the_map_eliminated(t)
    assert ended and (one(evs, E.GameEnded).winner, one(evs, E.GameEnded).rule) == ("axis", "16")


def test_16_automatic_victory_ignores_a_unit_back_on_the_turn_track(fm):
    # 16 with 13.2.4.1: a unit that retreated off the map waits as a reinforcement: ignored too
    units = [hq("A-HQ", "axis", "0101", formation="A"), unit("A1", "axis", "0102", formation="A"),
             hq("B-HQ", "allied", "0705", formation="B"), unit("B1", "allied", "0706", formation="B"),
             unit("B3", "allied", "1004", formation="B")]
    ended, evs = _last_on_the_map_eliminated(fm(units), back_from_off_map="B3")
    assert ended and one(evs, E.GameEnded).winner == "axis"


def test_16_no_automatic_victory_while_a_combat_unit_is_on_the_map(fm):
    units = [hq("A-HQ", "axis", "0101", formation="A"), unit("A1", "axis", "0102", formation="A"),
             hq("B-HQ", "allied", "0705", formation="B"), unit("B1", "allied", "0706", formation="B"),
             unit("B3", "allied", "1004", formation="B")]
    ended, evs = _last_on_the_map_eliminated(fm(units))
    assert not ended and not evs


def test_italian_surrender_in_the_recovery_segment(fm):
    # 16.1: no path to an Axis source: an EC; failing it the unit surrenders
    units = [hq("A-HQ", "axis", "0101", formation="A"),
             unit("A1", "axis", "0808", formation="A", nationality="italian", er=4),
             unit("A2", "axis", "0102", formation="A", nationality="italian", er=4),
             hq("B-HQ", "allied", "1004", formation="B"),
             unit("B1", "allied", "0708", formation="B"), unit("B2", "allied", "0807", formation="B"),
             unit("B3", "allied", "0907", formation="B")]
    t = fm(units, dice=[9] * 4, game_data={"surrender": "italian"})
    evs = skip_ops(t)
    ecs = only(evs, E.ECRolled)
    assert [e.unit for e in ecs] == ["A1"] and ecs[0].why == "surrender" and ecs[0].eliminated
    assert t.unit("A1").eliminated and not t.unit("A2").eliminated


def test_reinforcements_enter_with_a_free_move(fm):
    # 9.4 / 14.1: on a listed entry hex, a free move not into an EZOC, never postponed
    units = [hq("A-HQ", "axis", "0203", formation="A"), unit("A1", "axis", "0304", formation="A"),
             unit("A9", "axis", None, formation="A", turn=2, ma=4),
             hq("B-HQ", "allied", "0903", formation="B"), unit("B1", "allied", "0804", formation="B")]
    t = fm(units, dice=[9] * 10, game_data={"reinforcements": [{"turn": 2, "side": "axis", "units": ["A9"],
                                                                "entry": ["0101"]}]})
    skip_ops(t)
    a = t.awaiting()[0]
    assert a["kind"] == "admin" and a["side"] == "axis" and a["reinforcements"] == ["A9"]
    t.refuse("axis", "end", rule="9.4")
    t.refuse("axis", "enter A9 0102", match="may enter on: 0101")
    evs = t.ok("axis", "enter A9 0101 0102 0202")
    assert one(evs, E.ReinforcementEntered).hex == "0101"
    mv = one(evs, E.StackMoved)
    assert mv.free and mv.path == ["0102", "0202"]                   # 9.4.2: the free move from the entry hex
    assert t.hex_of("A9") == "0202"
    assert t.state().fm.step == "ops-choose"                          # nothing left to order: on to the Ops Phase


def test_schwerpunkt_owner_places_it_in_the_organization_segment(fm):
    # 5.9 / 9.2: the owner may move the marker to any formation whose HQ is in supply; end: it stays
    units = [hq("A-HQ", "axis", "0203", formation="A"), unit("A1", "axis", "0304", formation="A"),
             hq("C-HQ", "axis", "0205", formation="C"), unit("C1", "axis", "0306", formation="C"),
             hq("B-HQ", "allied", "0903", formation="B"), unit("B1", "allied", "0804", formation="B")]
    t = fm(units, dice=[9] * 10, game_data={"schwerpunkt": {"setup": "A"}})
    skip_ops(t)
    a = t.awaiting()[0]
    assert a["kind"] == "admin" and a["side"] == "axis" and a["todo"] == ["schwerpunkt"]
    t.refuse("axis", "schwerpunkt B", match="cannot take")
    evs = t.ok("axis", "schwerpunkt C")
    assert one(evs, E.SchwerpunktPlaced).formation == "C" and t.state().fm.schwerpunkt == "C"
    assert t.state().fm.step == "ops-choose"


def test_an_hq_leaves_with_its_last_unit(fm):
    # 3.3: HQs are removed from play when all their subordinate units are eliminated
    from formation_helpers import direct
    from pbem.games.formation.admin import hq_removals
    t = fm()
    ctx = direct(t, "axis")
    for u in ("B1", "B2"):
        ctx.state.units[u].eliminated, ctx.state.units[u].hex = True, None
    hq_removals(ctx)
    assert one(ctx.events, E.UnitEliminated).unit == "B-HQ"
    assert ctx.state.fm.formations["B"].removed


def test_surrender_paths_do_not_cross_the_sea(fm):
    # 16.1: a coastal unit ringed on land has no path by sea to an Axis supply source
    units = [hq("A-HQ", "axis", "0101", formation="A"),
             unit("A1", "axis", "0508", formation="A", nationality="italian", er=4),
             hq("B-HQ", "allied", "1004", formation="B"),
             unit("B1", "allied", "0407", formation="B"), unit("B2", "allied", "0607", formation="B")]
    rows = ["." * 10] * 7 + ["ssss.sssss"]
    t = fm(units, dice=[9] * 4, game_data={"surrender": "italian"}, rows=rows)
    evs = skip_ops(t)
    assert one(evs, E.ECRolled).unit == "A1" and t.unit("A1").eliminated


@pytest.mark.parametrize("scenario", ["mirages-compass", "mirages-brevity", "mirages-skorpion", "mirages-battleaxe"])
def test_each_shipped_scenario_plays_to_its_end_on_deadline_defaults(scenario, tmp_path, fixed_clock):
    # the whole sequence (4, 6, 8, 9) on the shipped data: every wait answered by the documented
    # deadline default until the game ends (16); the log replays to the same state
    from pbem.engine import Game
    g = Game.create(tmp_path / "g", scenario, {}, seed_hex="ab" * 32)
    for _ in range(400):
        st = g.state()
        if st.result is not None:
            break
        items = g.rules.awaiting(st, g.scenario)
        assert items, st.fm.step
        side = items[0]["side"]
        sub = g.submit(side, "\n".join(g.rules.default_orders(st, g.scenario, side)))
        assert sub.refused is None, sub.refused
    assert g.state().result is not None
    assert g.verify().ok


def test_a_new_reinforcing_formation_starts_on_its_maximum_level(fm):
    # 9.4.3 / 14.2: its HQ enters with it; the Formation Activation marker goes to the maximum
    units = [hq("A-HQ", "axis", "0203", formation="A"), unit("A1", "axis", "0304", formation="A"),
             hq("C-HQ", "axis", None, formation="C", level=0, max_level=4, turn=2),
             unit("C1", "axis", None, formation="C", turn=2),
             hq("B-HQ", "allied", "0903", formation="B"), unit("B1", "allied", "0804", formation="B")]
    t = fm(units, dice=[9] * 10, game_data={"reinforcements": [{"turn": 2, "side": "axis", "units": ["C-HQ", "C1"],
                                                                "entry": ["0101", "0102"]}]})
    skip_ops(t)
    t.ok("axis", "enter C-HQ 0101\nenter C1 0102")
    assert t.state().fm.formations["C"].level == 4
