"""Advanced Tobruk movement (6): personnel movement types, vehicles' facing,
reverse, pivots, terrain costs; the rulebook's worked examples with their numbers."""
from __future__ import annotations

import pytest

from pbem.games.advanced_tobruk import events as E
from pbem.games.advanced_tobruk.board.facing import SPINES, aspect, in_arc, spine_turns

from conftest import one, only
from tobruk_kit import MOVEMENT, U, make

# off the map (never entered): nobody can fire, so the Direct Fire Phase passes without a roll
FAR_GERMAN = U("G9", "german", "ger-squad", None)


def moved(evs, uid):
    return [e for e in only(evs, E.Stepped) if uid in e.units]


def at_movement(tmp_path, units, dice, **kw):
    """A game of ``units``, in turn 1's movement segment."""
    t = make(tmp_path, units, dice=dice, **kw)
    assert t.phase() == (1, MOVEMENT)
    return t


@pytest.fixture
def squad_game(tmp_path, fixed_clock):
    def mk(hex="0610", dice=(1, 2) * 10, **kw):
        return at_movement(tmp_path, [U("A1", "british", "aus-squad", hex), FAR_GERMAN], dice, **kw)
    return mk


# --- 6.05 example (L204): four MP needs running, and running winds ------------------------

def test_6_05_example_four_mp_with_scrub_needs_running_and_winds(squad_game):
    # 0610 -> 0510 open (1) -> 0509 open (1) -> 0409 scrub (2) = 4 MP
    t = squad_game()
    t.refuse("british", "assault A1 0510 0509 0409", rule="6.41", match="4 MP")
    evs = t.ok("british", "run A1 0510 0509 0409")
    assert [e.spent for e in moved(evs, "A1")] == ["1", "2", "4"]
    assert [e.cost for e in moved(evs, "A1")] == ["1", "1", "2"]
    p = t.state().pieces["A1"]
    assert p.winded == 1 and p.move == "run"
    assert t.hex_of("A1") == "0409"


def test_6_05_example_all_open_is_assault_movement_not_winded(squad_game):
    t = squad_game()
    evs = t.ok("british", "assault A1 0510 0509 0508")
    assert moved(evs, "A1")[-1].spent == "3"
    assert t.state().pieces["A1"].winded == 0


def test_6_413_no_running_on_two_consecutive_turns(squad_game):
    t = squad_game(turns=3)
    t.ok("british", "run A1 0510 0509 0508 0507")
    while t.phase() != (2, MOVEMENT):
        t.ok(t.state().step.to_act, "pass")
    if t.state().step.to_act != "british":
        t.ok("german", "pass")
    t.refuse("british", "run A1 0506", rule="6.413", match="winded")
    t.ok("british", "assault A1 0506")


def test_6_411_crawling_moves_one_hex_whatever_it_costs(squad_game):
    t = squad_game(hex="0510")
    t.refuse("british", "crawl A1 0509 0508", rule="6.411")
    evs = t.ok("british", "crawl A1 0409")          # scrub: 2 MP, but a crawl is one hex
    assert moved(evs, "A1")[0].cost == "2"
    assert t.hex_of("A1") == "0409"


def test_6_412_assault_movement_three_mp(squad_game):
    t = squad_game()
    t.refuse("british", "assault A1 0510 0509 0508 0507", rule="6.41")


def test_6_03_moves_go_hex_by_hex(squad_game):
    t = squad_game()
    t.refuse("british", "run A1 0508", match="not adjacent")


# --- vehicles: facing, front, reverse, pivots (6.52, 6.53) -----------------------------------

@pytest.fixture
def tank_game(tmp_path, fixed_clock):
    def mk(hex="0508", facing="NNE", dice=(1, 2) * 10, extra=(), turns=None):
        return at_movement(tmp_path, [U("Tk1", "british", "a13", hex, facing=facing), FAR_GERMAN, *extra], dice,
                           turns=turns)
    return mk


def test_6_523_vehicles_move_through_their_front(tank_game):
    # Tk1 in 0508 faces NNE: front hexsides N (0507) and NE (0607); rear S (0509) and SW (0409)
    t = tank_game()
    t.refuse("british", "cross Tk1 0509", rule="6.523", match="not in front")
    evs = t.ok("british", "cross Tk1 0507")
    assert moved(evs, "Tk1")[0].cost == "1"


def test_6_523_example_reverse_costs_double(tank_game):
    # the Grant example (L234, L255): reverse into one of the two rear hexes at double cost
    t = tank_game()
    t.refuse("british", "cross Tk1 back 0507", rule="6.523", match="not behind")
    evs = t.ok("british", "cross Tk1 back 0509 back 0510")
    st = moved(evs, "Tk1")
    assert [e.cost for e in st] == ["2", "2"] and st[-1].spent == "4"
    assert all(e.what == "reverse" for e in st)
    assert t.state().pieces["Tk1"].facing == SPINES.index("NNE")      # reversing keeps the facing


def test_6_533_pivot_while_moving_costs_one_mp_per_spine(tank_game):
    t = tank_game()
    evs = t.ok("british", "cross Tk1 face SSE 0509")                  # NNE -> SSE: two spines
    st = moved(evs, "Tk1")
    assert (st[0].what, st[0].cost, st[1].cost, st[1].spent) == ("pivot", "2", "1", "3")
    assert t.state().pieces["Tk1"].facing == SPINES.index("SSE")


def test_6_511_assault_movement_value_caps_the_move(tank_game):
    # A13: 10 cross-country | 5 assault
    t = tank_game()
    t.refuse("british", "assault Tk1 0507 0506 0505 0504 0503 0502", rule="6.511")
    t.ok("british", "assault Tk1 0507 0506 0505 0504 0503")


def test_6_31_track_costs_tracked_vehicles_half(tank_game):
    t = tank_game(hex="0808")
    evs = t.ok("british", "cross Tk1 0807 0806")
    assert [e.cost for e in moved(evs, "Tk1")] == ["1/2", "1/2"]
    assert moved(evs, "Tk1")[-1].spent == "1"


def test_33_113_example_soft_sand_two_dune_hexside_doubles_to_four(tank_game):
    # L1155: a soft sand hex costs 2; crossing a sand dune hexside doubles it to 4
    t = tank_game(hex="0307", facing="NNE")
    evs = t.ok("british", "cross Tk1 0306")
    e = moved(evs, "Tk1")[0]
    assert e.cost == "4" and "dune" in e.terrain


def test_6_532_pivot_in_place_is_free_and_counts_as_movement(tank_game):
    t = tank_game()
    evs = t.ok("british", "pivot Tk1 W")
    f = one(evs, E.Faced)
    assert f.facing == SPINES.index("W") and not f.setup
    assert one(evs, E.MoveEnded).units == ["Tk1"] and not only(evs, E.Stepped)     # no MP spent
    assert t.state().pieces["Tk1"].facing == SPINES.index("W")


def test_12_232_turret_turns_one_mp_per_hexside_while_moving(tank_game):
    t = tank_game()
    evs = t.ok("british", "cross Tk1 0507 turret SSE")
    st = moved(evs, "Tk1")
    assert st[1].what == "turret" and st[1].cost == "2" and st[1].turret == SPINES.index("SSE")
    assert t.state().pieces["Tk1"].turret == SPINES.index("SSE")


def test_6_541_continued_movement_survives_the_end_of_turn(tank_game):
    t = tank_game(turns=1)
    evs = t.ok("british", "cross Tk1 0507 continue")
    assert one(evs, E.MoveEnded).continued
    while t.state().result is None:
        t.ok(t.state().step.to_act, "pass")
    p = t.state().pieces["Tk1"]
    assert p.continued and p.moved                         # 6.542 moving in the next Combat Segment


def test_4_02_may_pass_through_but_not_end_overstacked(tank_game):
    t = tank_game(extra=[U("Tk2", "british", "a13", "0506", facing="NNE")])
    t.refuse("british", "cross Tk1 0507 0506", rule="4.02")
    t.ok("british", "cross Tk1 0507 0506 0505")


def test_2_46_exit_off_a_friendly_edge_scores_nothing(tank_game):
    t = tank_game(hex="0501")
    ev = one(t.ok("british", "cross Tk1 off"), E.UnitExited)
    st = t.state()
    assert st.units["Tk1"].hex is None and st.units["Tk1"].gone == "exited"
    assert not ev.vp and "Tk1" not in st.exited               # the British have no exit edge to score by


def test_2_46_exit_by_the_victory_exit_edge_scores(tmp_path, fixed_clock):
    t = make(tmp_path, [U("P1", "german", "pz3g", "0501", facing="NNE"), U("A9", "british", "aus-squad", None)],
             dice=(2, 1) * 10)
    while t.phase()[1] != MOVEMENT:
        t.ok(t.state().step.to_act, "pass")
    ev = one(t.ok("german", "cross P1 off"), E.UnitExited)
    assert ev.vp and "P1" in t.state().exited                # the card's German exit edge is the north


def test_6_42_platoon_moves_with_a_leader_and_carries_its_weapons(tmp_path, fixed_clock):
    t = make(tmp_path, [U("A1", "british", "aus-squad", "0610"), U("AL", "british", "aus-leader", "0610"),
                        U("A2", "british", "aus-squad", "0610"),
                        U("Bren1", "british", "bren", "0610", holder="A1"), FAR_GERMAN], dice=(1, 2) * 5)
    t.refuse("british", "assault A1+A2 0510", rule="6.421", match="leader")
    evs = t.ok("british", "assault AL+A1+A2 0510 0509")
    assert moved(evs, "A1")[0].units == ["AL", "A1", "A2"]
    assert {t.hex_of(u) for u in ("AL", "A1", "A2", "Bren1")} == {"0509"}


def test_6_05_weapons_do_not_move_alone(tmp_path, fixed_clock):
    t = make(tmp_path, [U("A1", "british", "aus-squad", "0610"),
                        U("Bren1", "british", "bren", "0610", holder="A1"), FAR_GERMAN], dice=(1, 2))
    t.refuse("british", "assault Bren1 0510", rule="6.05, 8.41")


# --- geometry (6.52, 12.12, 13.51) ------------------------------------------------------------

def test_covered_arc_and_aspect_geometry(tmp_path, fixed_clock):
    t = make(tmp_path, [FAR_GERMAN], setup=False)
    g = t.game.scenario.board.grid
    # facing NNE from 0508: the wedge between the N and NE hexsides
    assert in_arc(g, "0508", 0, "0505") and in_arc(g, "0508", 0, "0607") and not in_arc(g, "0508", 0, "0509")
    assert aspect(g, "0508", 0, "0503") == "front"
    assert aspect(g, "0508", 0, "0512") == "rear"
    nw2 = g.neighbour(g.neighbour("0508", "NW"), "NW")
    assert aspect(g, "0508", 0, nw2) == "flank"
    spine_hex = g.neighbour(g.neighbour("0508", "NW"), "N")
    assert aspect(g, "0508", 0, spine_hex) == "front"                 # along a spine: front (13.512)
    assert spine_turns(0, 3) == 3 and spine_turns(5, 1) == 2


def test_6_532_a_unit_that_fired_may_move_but_not_pivot_for_free(tmp_path, fixed_clock):
    t = make(tmp_path, [U("Tk1", "british", "a13", "0505", facing="SSE"),
                        U("P1", "german", "pz3g", "0509", facing="NNE"), FAR_GERMAN], dice=(1, 2) * 20)
    assert t.phase()[1] == 2 and t.state().step.to_act == "british"          # Direct Fire Phase
    t.ok("british", "fire Tk1 at P1")
    assert t.state().pieces["Tk1"].fired
    while t.phase()[1] != MOVEMENT:
        t.ok(t.state().step.to_act, "pass")
    if t.state().step.to_act == "german":
        t.ok("german", "pass")
    t.refuse("british", "pivot Tk1 NNE", rule="6.532, 6.533")
    t.ok("british", "cross Tk1 face E")


def test_13_461_a_firer_that_moves_loses_its_burst_on_target(tank_game):
    t = tank_game()
    st = t.game.state()
    assert st.pieces["Tk1"].bot == ""
    from pbem.games.advanced_tobruk.reducer import reduce
    st.pieces["Tk1"].bot, st.pieces["Tk1"].bot_turn = "P9", 1
    reduce(st, E.Stepped(units=["Tk1"], what="turret", hex="0508", cost="1", spent="1", turret=2),
           t.game.scenario, "advanced-tobruk")
    assert st.pieces["Tk1"].bot == "P9"                        # a turret turn keeps it
    reduce(st, E.Stepped(units=["Tk1"], what="enter", hex="0507", cost="1", spent="2", facing=0),
           t.game.scenario, "advanced-tobruk")
    assert st.pieces["Tk1"].bot == "" and st.pieces["Tk1"].bot_turn == 0


def test_15_9111_a_wounded_leader_may_not_run(tmp_path, fixed_clock):
    from pbem.core.orders import OrderError
    from pbem.core.ruleset import Ctx
    from pbem.games.advanced_tobruk.turn.movement import check_movers
    t = make(tmp_path, [U("AL", "british", "aus-leader", "0610"), FAR_GERMAN], dice=(1, 2) * 5)
    st = t.game.state()
    ctx = Ctx(t.game.rules, st, t.game.scenario, "british", None)
    assert check_movers(ctx, ["AL"], "run") == ["AL"]
    st.pieces["AL"].steps = 1                                  # wounded (15.82)
    with pytest.raises(OrderError) as e:
        check_movers(ctx, ["AL"], "run")
    assert e.value.rule == "15.9111"
    assert check_movers(ctx, ["AL"], "assault") == ["AL"]


def test_21_overrun_by_an_afv_in_assault_movement(tmp_path, fixed_clock):
    t = make(tmp_path, [U("P1", "german", "pz3g", "0709", facing="NNE"), U("A1", "british", "aus-squad", "0708"),
                        U("A3", "british", "aus-squad", None)], dice=(2, 1) * 20, turns=2)
    while t.phase()[1] != MOVEMENT:
        t.ok(t.state().step.to_act, "pass")
    if t.state().step.to_act == "british":
        t.ok("british", "pass")
    t.refuse("german", "assault P1 0708", rule="5.34, 21")                   # into an enemy hex: only to overrun
    t.refuse("german", "cross P1 0708 overrun A1", rule="21.01, 21.02")
    t.refuse("german", "assault P1 0708 overrun A3", rule="21.03")
    evs = t.ok("german", "assault P1 0708 overrun A1")
    from pbem.games.advanced_tobruk.fire_events import Overrun
    ov = one(evs, Overrun)
    assert (ov.afv, ov.unit, ov.hex) == ("P1", "A1", "0708")
    assert t.hex_of("P1") == "0708"


def _broken_game(tmp_path, german_hex):
    t = make(tmp_path, [U("A1", "british", "aus-squad", "0702"), U("G1", "german", "ger-squad", german_hex)],
             dice=(2, 1) * 20, name=f"b{german_hex}")
    while t.phase()[1] != MOVEMENT:
        t.ok(t.state().step.to_act, "pass")
    if t.state().step.to_act == "british":
        t.ok("british", "pass")
    st = t.game.state()
    return t, st


def test_11_131_a_broken_unit_must_move_towards_safety_before_its_side_passes(tmp_path, fixed_clock):
    from pbem.core.orders import OrderError
    from pbem.core.ruleset import Ctx
    from pbem.games.advanced_tobruk.turn import broken, sequence
    t, st = _broken_game(tmp_path, "0709")
    sc = t.game.scenario
    st.pieces["G1"].broken = True                  # as a failed morale check would (the fire package's event)
    assert broken.safety_distance(sc, "german", "0709") == 1          # the south edge, one hex away
    assert broken.must_move(st, sc, "german") == ["G1"]
    ctx = Ctx(t.game.rules, st, sc, "german", None)
    with pytest.raises(OrderError) as e:
        sequence.pass_phase(ctx)
    assert e.value.rule == "11.131"
    assert broken.check_move(st, sc, "G1", "assault", "0708", 1) != ""            # towards the enemy
    assert broken.check_move(st, sc, "G1", "assault", "0710", 1) == ""
    assert t.game.rules.default_orders(st, sc, "german") == ["crawl G1 0710"]


def test_11_131_with_no_way_to_safety_a_broken_unit_may_crawl_anywhere_or_stay(tmp_path, fixed_clock):
    from pbem.games.advanced_tobruk.turn import broken
    t, st = _broken_game(tmp_path, "0707")
    sc = t.game.scenario
    st.pieces["G1"].broken = True
    # post R33 (0705) is two hexes off but towards the British; the south edge is three hexes off
    assert broken.safe_steps(st, sc, "G1") == [] and broken.must_move(st, sc, "german") == []
    assert broken.check_move(st, sc, "G1", "crawl", "0807", 1) == ""
    assert "towards" in broken.check_move(st, sc, "G1", "assault", "0807", 1)
