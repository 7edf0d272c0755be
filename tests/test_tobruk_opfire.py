"""Advanced Tobruk opportunity fire by email (6.6): standing fire orders applied
automatically, a move paused for a fire-or-pass answer, the ROF limit per MP (6.64)."""
from __future__ import annotations


from pbem.games.advanced_tobruk import events as E
from pbem.games.advanced_tobruk.turn import standing

from conftest import one, only
from tobruk_kit import MOVEMENT, U, make


def mover_game(tmp_path, dice=(2, 1), extra=()):
    """A British squad in post R33 (0705, a pit), a German squad moving north up column 07 (German first)."""
    t = make(tmp_path, [U("A1", "british", "aus-squad", "0705"), U("G1", "german", "ger-squad", "0710"),
                 *extra],
             dice=dice, setup=False)
    return t


def to_movement(t, british_orders=()):
    for o in british_orders:
        t.ok("british", o)
    t.ok("british", "pass")
    t.ok("german", "pass")
    while t.phase()[1] != MOVEMENT:
        t.ok(t.state().step.to_act, "pass")
    assert t.state().step.to_act == "german"


def fire_events(evs):
    return only(evs, E.CasualtyAttack) + only(evs, E.GunFired)


def test_6_6_hold_fire_standing_order_lets_the_mover_pass(tmp_path, fixed_clock):
    t = mover_game(tmp_path, dice=(2, 1, 2, 1))
    to_movement(t, ["standing hold"])
    evs = t.ok("german", "assault G1 0709 0708 0707")
    assert not fire_events(evs) and not only(evs, E.MovePaused)
    assert all(p.by == "standing order" for p in only(evs, E.OpportunityPassed))
    assert {p.firers[0] for p in only(evs, E.OpportunityPassed)} == {"A1"}
    assert t.hex_of("G1") == "0707"


def test_6_6_no_standing_order_pauses_the_move_for_an_answer(tmp_path, fixed_clock):
    t = mover_game(tmp_path, dice=(2, 1, 2, 1))
    to_movement(t)
    evs = t.ok("german", "assault G1 0709 0708 0707")
    p = one(evs, E.MovePaused)
    assert (p.side, p.hex, p.firers, p.remaining) == ("british", "0709", ["A1"], ["0708", "0707"])
    assert t.hex_of("G1") == "0709"
    assert t.awaiting()[0]["side"] == "british" and t.awaiting()[0]["kind"] == "opportunity-fire"
    t.refuse("german", "pass", rule="6.6", match="not your turn: the game waits for British (opportunity-fire")
    evs = t.ok("british", "pass")                           # one answer for the whole path (ruleset 3)
    assert one(evs, E.OpportunityPassed).by == "answer"
    assert not only(evs, E.MovePaused) and t.hex_of("G1") == "0707"    # no second pause in 0708


def test_6_6_answer_fire_resolves_the_shot_then_the_move_goes_on(tmp_path, fixed_clock):
    t = mover_game(tmp_path, dice=(2, 1, 2, 1) + (3, 8) * 10)
    to_movement(t)
    t.ok("german", "assault G1 0709 0708")
    evs = t.ok("british", "fire A1")
    shots = fire_events(evs)
    assert shots and all(s.by == "answer" for s in shots)
    assert t.state().pieces["A1"].fired
    assert t.state().pending is None or t.state().pending.hex == "0708"


def test_6_6_answer_names_only_asked_firers(tmp_path, fixed_clock):
    t = mover_game(tmp_path, dice=(2, 1, 2, 1), extra=[U("A3", "british", "aus-squad", "0101")])
    to_movement(t)
    t.ok("german", "assault G1 0709")
    t.refuse("british", "fire A3", rule="6.62")


def test_6_6_fire_at_any_mover_within_range_n(tmp_path, fixed_clock):
    t = mover_game(tmp_path, dice=(2, 1, 2, 1) + (3, 8) * 10)
    to_movement(t, ["standing A1 any range 2"])
    evs = t.ok("german", "assault G1 0709 0708 0707")
    passes = only(evs, E.OpportunityPassed)
    shots = fire_events(evs)
    assert passes and passes[0].hex == "0709"                 # range 4: beyond 2, held
    assert shots and all(s.by == "standing order" for s in shots)


def test_6_6_fire_only_at_afvs(tmp_path, fixed_clock):
    t = mover_game(tmp_path, dice=(2, 1, 2, 1))
    to_movement(t, ["standing afv"])
    evs = t.ok("german", "assault G1 0709 0708")
    assert not fire_events(evs) and not only(evs, E.MovePaused)


def test_6_6_standing_order_syntax(tmp_path, fixed_clock):
    t = mover_game(tmp_path)
    t.refuse("british", "standing sometimes", rule="6.6")
    t.refuse("british", "standing any range 0", rule="6.6")
    t.refuse("british", "standing A1 clear", rule="6.6", match="no standing order")
    ev = one(t.ok("british", "standing A1 any range 3"), E.StandingOrderSet)
    assert (ev.unit, ev.mode, ev.range) == ("A1", "any", 3)
    st = t.state()
    assert st.orders["british"].units["A1"].range == 3
    t.ok("british", "standing A1 clear")
    assert "A1" not in t.state().orders["british"].units


def test_6_64_rof_limited_by_mp_spent_unless_the_move_ends_there(tmp_path, fixed_clock, monkeypatch):
    seen = []

    def fake(ctx, firers, target, rof_limit, by):
        seen.append((ctx.state.units[target].hex, rof_limit, by))
    monkeypatch.setattr(standing, "opportunity_fire", fake)
    t = mover_game(tmp_path, dice=(2, 1, 2, 1))
    to_movement(t, ["standing any"])
    t.ok("german", "assault G1 0709 0708")
    assert seen[0] == ("0709", 1, "standing order")            # one MP spent in 0709
    assert seen[-1][0:2] == ("0708", 0)                        # the move ends in 0708: no limit


def test_6_64_under_one_mp_in_a_hex_draws_no_fire(tmp_path, fixed_clock):
    # a tank on the El Adem track pays 1/2 MP a hex: only the hex where it stops can be fired at
    units = [U("Gun1", "british", "2pdr-gun", "0803", facing="SSE", holder="C1"),
             U("C1", "british", "brit-crew", "0803"),
             U("P1", "german", "pz3g", "0810", facing="NNE")]
    t = make(tmp_path, units, dice=(2, 1, 2, 1, 2, 1), setup=False)
    to_movement(t)
    evs = t.ok("german", "cross P1 0809 0808 0807")
    paused = only(evs, E.MovePaused)
    assert [p.hex for p in paused] == ["0807"]                  # only where it stops
    assert not [p for p in only(evs, E.OpportunityPassed) if p.hex in ("0809", "0808")]


def test_6_532_a_pivot_in_place_triggers_opportunity_fire(tmp_path, fixed_clock):
    units = [U("Tk1", "british", "a13", "0505", facing="NNE"), U("P1", "german", "pz3g", "0509", facing="NNE")]
    t = make(tmp_path, units, dice=(1, 2) * 10, setup=False)
    t.ok("british", "pass")
    t.ok("german", "pass")
    while t.phase()[1] != MOVEMENT:
        t.ok(t.state().step.to_act, "pass")
    if t.state().step.to_act == "german":
        t.ok("german", "pass")
    evs = t.ok("british", "pivot Tk1 SSE")
    p = one(evs, E.MovePaused)                              # the German P1 has no standing order: asked
    assert (p.side, p.units, p.hex, p.firers) == ("german", ["Tk1"], "0505", ["P1"])


def test_17_3_standing_duel_keeps_the_opportunity_order(tmp_path, fixed_clock):
    t = mover_game(tmp_path)
    t.ok("british", "standing A1 any range 3")
    ev = one(t.ok("british", "standing A1 duel"), E.StandingOrderSet)
    assert (ev.mode, ev.range, ev.duel) == ("any", 3, True)
    o = t.state().orders["british"].units["A1"]
    assert (o.mode, o.range, o.duel) == ("any", 3, True)
    t.ok("british", "standing A1 afv")
    assert t.state().orders["british"].units["A1"].duel                 # a new mode keeps the duel answer
    t.ok("british", "standing noduel")
    assert not t.state().orders["british"].default.duel


def test_6_65_final_opportunity_fire_by_standing_order(tmp_path, fixed_clock):
    t = mover_game(tmp_path, dice=(2, 1, 2, 1) + (3, 8) * 10)
    to_movement(t)
    t.ok("german", "assault G1 0709")                        # asked: the British pass in 0709
    t.ok("british", "pass")
    # an order given later counts from then on; the Germans have nothing left to move (passed by the rules)
    evs = t.ok("british", "standing A1 any\npass")
    names = [e.name for e in only(evs, E.PhaseStarted)]
    assert names[0] == "final-fire"
    shots = fire_events(evs)
    assert shots and shots[0].by == "standing order" and "A1" in (getattr(shots[0], "firers", None) or
                                                                  [getattr(shots[0], "firer", "")])
