"""Formation Reaction (6.5) by standing order or paused answer, and SNAFU (5.2) by
standing order (Mirages '40 '41)."""
from __future__ import annotations

import pytest

from conftest import one, only
from formation_helpers import hq, make, unit
from pbem.games.formation import events as E


# B1 looks across a ridge (no ZOC across it, 13.2.2) at 0705: a stack may pass through 0705,
# next to an enemy combat unit, and so trigger a reaction mid-move (6.5.1: regardless of ZOCs).
RIDGE = [{"a": "0705", "b": "0804", "feature": "ridge"}]


def units_():
    return [hq("A-HQ", "axis", "0203", formation="A"),
            unit("A1", "axis", "0304", formation="A", category="tank", movement="mot", tank=3, afv=True, ma=8),
            unit("A2", "axis", "0305", formation="A", category="mot-infantry", movement="mot", at=1, ma=8),
            hq("B-HQ", "allied", "0903", formation="B"),
            unit("B1", "allied", "0804", formation="B", category="infantry", at=1, ma=4),
            unit("B2", "allied", "0902", formation="B", category="tank", movement="mot", tank=2, afv=True, ma=8)]


@pytest.fixture
def fm(tmp_path, fixed_clock):
    def build(units=None, dice=(), **kw):
        kw.setdefault("hexsides", RIDGE)
        return make(tmp_path, units if units is not None else units_(), dice, **kw)
    return build


PATH = "0405 0505 0605 0705 0706 0707"


def test_no_doctrine_pauses_the_move_and_pass_resumes_it(fm):
    # 6.5.1: entering a hex next to an undisrupted in-command enemy combat unit; with no
    # standing order the move waits for the Reaction player; a pass lets it go on
    t = fm(dice=[9])
    t.ok("axis", "activate A")
    evs = t.ok("axis", "move A2 " + PATH)
    p = one(evs, E.ReactionPaused)
    assert (p.side, p.at, p.rest, p.formations) == ("allied", "0705", ["0706", "0707"], ["B"])
    assert t.hex_of("A2") == "0705"
    a = t.awaiting()[0]
    assert a["kind"] == "reaction" and a["side"] == "allied"
    t.refuse("axis", "move A1 0404", match="waits for")
    evs = t.ok("allied", "pass")
    one(evs, E.ReactionDeclined)
    assert t.hex_of("A2") == "0707"
    assert not only(evs, E.ReactionPaused)                             # one attempt per Movement Action


def test_7_6_a_move_stopped_by_a_reaction_in_a_marked_hex_removes_the_marker(fm):
    # 6.5.3 with 7.6: the stopped move ends in 0705, where A1 dug in: another unit ended a
    # Movement Action in the hex, so its marker goes (the stopped unit's own marker would stay)
    units = units_()
    units[0] = hq("A-HQ", "axis", "0504", formation="A")                 # A1 in command there
    units[1] = unit("A1", "axis", "0705", formation="A", category="tank", movement="mot", tank=3, afv=True, ma=8)
    t = fm(units, dice=[9, 5, 6])
    t.ok("axis", "activate A")
    t.ok("axis", "improve 0705")
    t.ok("axis", "move A2 " + PATH)
    evs = t.ok("allied", "react B")
    stop = one(evs, E.MoveStopped)
    off = one(evs, E.ImprovedDefense)
    assert (off.hex, off.on) == ("0705", False) and evs.index(off) == evs.index(stop) + 1
    assert t.state().fm.improved == []


def test_successful_reaction_stops_the_mover_and_the_formation_reacts(fm):
    # 6.5.2: d10 <= reaction rating; red APs; level down; 6.5.3: the mover stops, its action
    # ends; after the reaction the Initiative player's activation resumes
    t = fm(dice=[9, 5, 6])
    t.ok("axis", "activate A")
    ap = t.state().fm.active.ap
    t.ok("axis", "move A2 " + PATH)
    evs = t.ok("allied", "react B")
    r = one(evs, E.ReactionAttempted)
    assert (r.rolls, r.rating, r.success) == ([5], 5, True)
    one(evs, E.MoveStopped)
    act = one(evs, E.FormationActivated)
    assert act.reaction and act.ap == t.game.scenario.game_data["ap_table"]["red"]["3"][5] and act.new_level == 2
    assert t.hex_of("A2") == "0705"
    fm_ = t.state().fm
    assert fm_.active.formation == "B" and fm_.suspended.formation == "A" and fm_.suspended.ap == ap - 1
    t.ok("allied", "end")
    assert t.state().fm.active.formation == "A"


def test_failed_reaction_lets_the_move_go_on(fm):
    # 6.5.4: no adverse effect; the level stays
    t = fm(dice=[9, 6])
    t.ok("axis", "activate A")
    t.ok("axis", "move A2 " + PATH)
    evs = t.ok("allied", "react B")
    assert one(evs, E.ReactionAttempted).success is False
    assert t.hex_of("A2") == "0707" and t.state().fm.formations["B"].level == 3


def test_standing_order_always_reacts_and_is_reported(fm):
    t = fm(dice=[9, 2, 5])
    t.ok("allied", "doctrine reaction always")
    t.ok("axis", "activate A")
    evs = t.ok("axis", "move A2 " + PATH)
    r = one(evs, E.ReactionAttempted)
    assert r.success and r.doctrine == "reaction always"
    assert t.hex_of("A2") == "0705" and t.state().fm.active.formation == "B"


def test_standing_order_armour_only(fm):
    # 'armour': react only to a stack with an AFV
    t = fm(dice=[9, 2, 5])
    t.ok("allied", "doctrine reaction armour")
    t.ok("axis", "activate A")
    evs = t.ok("axis", "move A2 " + PATH)                 # motorized infantry: no AFV
    assert one(evs, E.ReactionDeclined).doctrine == "reaction armour"
    assert t.hex_of("A2") == "0707"
    evs = t.ok("axis", "move A1 0404 0504 0604 0704")                  # the tank next to B1: react
    assert one(evs, E.ReactionAttempted).success


def test_leaving_a_hex_next_to_the_enemy_triggers(fm):
    # 6.5.1: the announcement of leaving is enough; a success stops the stack where it is
    units = [hq("A-HQ", "axis", "0203", formation="A"),
             unit("A1", "axis", "0704", formation="A", category="tank", movement="mot", tank=3, afv=True, ma=8),
             hq("B-HQ", "allied", "0903", formation="B"), unit("B1", "allied", "0804", formation="B")]
    t = fm(units, dice=[9, 1, 5], hexsides=[])
    t.ok("axis", "activate A")
    evs = t.ok("axis", "move A1 0604 0504")
    p = one(evs, E.ReactionPaused)
    assert p.leaving and p.at == "0704" and p.rest == ["0604", "0504"]
    t.ok("allied", "react B")
    assert t.hex_of("A1") == "0704"


def test_no_counter_reaction_and_disrupted_units_do_not_trigger(fm):
    # 6.5.3: the reacting formation's moves trigger nothing; 6.5.1 a: disrupted units cannot
    t = fm(dice=[9, 1, 6])
    t.ok("axis", "activate A")
    t.ok("axis", "move A2 0405 0505 0605 0705")
    t.ok("allied", "react B")
    evs = t.ok("allied", "move B1 0805")                               # next to A2: no pause
    assert t.hex_of("B1") == "0805"
    assert not only(evs, E.ReactionPaused)


def test_snafu_doctrine_rerolls_an_enemy_reaction(fm):
    # 5.2: the holder's standing order re-rolls the enemy's successful reaction die once;
    # the marker passes to the other side; every die is in the event's rolls
    t = fm(dice=[9, 2, 8], game_data={"snafu_first": "axis"})
    t.ok("axis", "doctrine snafu reaction")
    t.ok("allied", "doctrine reaction always")
    t.ok("axis", "activate A")
    evs = t.ok("axis", "move A2 " + PATH)
    s = one(evs, E.SnafuUsed)
    assert (s.holder, s.purpose, s.old) == ("axis", "reaction", 2)
    r = one(evs, E.ReactionAttempted)
    assert r.rolls == [2, 8] and not r.success
    assert t.state().fm.snafu == "allied" and t.hex_of("A2") == "0707"


def test_snafu_without_doctrine_is_not_used(fm):
    t = fm(dice=[9, 2, 5], game_data={"snafu_first": "axis"})
    t.ok("allied", "doctrine reaction always")
    t.ok("axis", "activate A")
    evs = t.ok("axis", "move A2 " + PATH)
    assert not only(evs, E.SnafuUsed) and one(evs, E.ReactionAttempted).rolls == [2]


def test_bad_doctrines_are_refused(fm):
    t = fm()
    t.refuse("allied", "doctrine reaction sometimes", rule="6.5")
    t.refuse("allied", "doctrine reaction A", match="not one of your")
    t.refuse("axis", "doctrine snafu lucky", rule="5.2")


def test_a_stack_stopped_by_a_reaction_suffers_its_overstacking(fm):
    # 6.5.3 / 5.3.2: stopped in a hex it only meant to pass, the overstacked units disrupt and
    # the opponent displaces the surplus
    units = units_() + [unit("A3", "axis", "0705", formation="A", category="infantry", ma=4)]
    units[2] = unit("A2", "axis", "0605", formation="A", category="infantry", ma=4)
    t = fm(units, dice=[9, 1, 5])
    t.ok("allied", "doctrine reaction always")
    t.ok("axis", "activate A")
    evs = t.ok("axis", "move A2 0705 0706 0707")                         # two infantry in 0705: passing only
    one(evs, E.MoveStopped)
    assert t.unit("A2").disrupted and t.unit("A3").disrupted
    assert sorted(u for u in ("A2", "A3") if t.hex_of(u) == "0705") in (["A2"], ["A3"])


def test_snafu_doctrine_on_a_lost_initiative(fm):
    # 5.2: the holder, losing the initiative roll, re-rolls the opponent's die once
    t = fm(dice=[9, 5, 9, 2], game_data={"snafu_first": "axis"})
    t.ok("allied", "doctrine reaction never")
    t.ok("axis", "doctrine snafu initiative")
    t.ok("axis", "activate A")
    evs = t.ok("axis", "end")                       # axis 5 vs allied 9 + 2: re-roll the allied die -> 2
    s = one(evs, E.SnafuUsed)
    ev = one(evs, E.InitiativeDetermined)
    assert (s.roller, s.old) == ("allied", 9)
    assert ev.rolls == [5, 9, 2] and (ev.axis, ev.allied) == (5, 4) and ev.winner == "axis"
    assert t.state().fm.snafu == "allied"


def test_verify_replays_a_game_stopped_at_a_paused_move(fm):
    # the log alone rebuilds the state, byte for byte, also in the middle of a reaction pause
    t = fm(dice=[9, 5, 6])
    t.ok("axis", "doctrine snafu never")
    t.ok("axis", "activate A")
    t.ok("axis", "move A2 " + PATH)
    rep = t.game.verify()
    assert rep.ok, rep.problems
    t.ok("allied", "react B")
    rep = t.game.verify()
    assert rep.ok, rep.problems
