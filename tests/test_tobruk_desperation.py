"""Advanced Tobruk desperation fire (15.6) as the answer to a move paused for
opportunity fire: personnel already marked fired may answer ``fire UNIT``; the
attack's roll is also their morale check (15.61).  No new pause is made."""
from __future__ import annotations

from pbem.games.advanced_tobruk import events as E

from conftest import one, only
from tobruk_kit import MOVEMENT, U, make


def paused_twice(tmp_path, dice, extra=()):
    """A1 and A2 (Australian squads, range 4) in post 0705; G1 assaults up column 07 from 0710.
    The British answer the pause in 0709 with A1's fire; the move pauses again in 0708 for A2."""
    units = [U("A1", "british", "aus-squad", "0705"), U("A2", "british", "aus-squad", "0705"),
             U("G1", "german", "ger-squad", "0710"), *extra]
    t = make(tmp_path, units, dice=dice, setup=False)
    t.ok("british", "pass")
    t.ok("german", "pass")
    while t.phase()[1] != MOVEMENT:
        t.ok(t.state().step.to_act, "pass")
    assert t.state().step.to_act == "german"
    assert one(t.ok("german", "assault G1 0709 0708 0707"), E.MovePaused).firers == ["A1", "A2"]
    evs = t.ok("british", "fire A1")
    assert [a.firers for a in only(evs, E.CasualtyAttack)] == [["A1"]] and t.state().pieces["A1"].fired
    p = one(evs, E.MovePaused)
    assert (p.hex, p.firers) == ("0708", ["A2"])                 # A1 has fired: not asked again
    return t


def test_15_61_a_fired_unit_answers_the_pause_with_desperation_fire(tmp_path, fixed_clock):
    # dice: first-fire rolls, A1's opportunity fire in 0709 (10: nothing), its desperation fire in 0708 (9)
    t = paused_twice(tmp_path, dice=(2, 1, 2, 1, 10, 9))
    log_before = t.log_bytes()
    evs = t.ok("british", "fire A1")
    a = one(evs, E.CasualtyAttack)
    assert (a.firers, a.hex, a.roll, a.factors, a.by, a.rule, a.mark_fired) == \
        (["A1"], "0708", 9, 6, "answer", "15.6", False)          # printed gunfire, nobody newly marked
    m = one(evs, E.MoraleChecked)
    assert (m.unit, m.why, m.result, m.rule) == ("A1", "desperation", "passed", "15.61")
    assert "the attack's roll 9" in m.mods and m.altered == 9   # the attack's roll is the morale check
    assert one(evs, E.OpportunityPassed).firers == ["A2"]        # one answer per pause: A2 passes
    p = one(evs, E.MovePaused)                                   # the move goes on; no pause for A1
    assert (p.hex, p.firers) == ("0707", ["A2"])
    assert t.log_bytes().startswith(log_before)


def test_15_61_a_failed_desperation_check_breaks_the_firer(tmp_path, fixed_clock):
    t = paused_twice(tmp_path, dice=(2, 1, 2, 1, 10, 10))
    evs = t.ok("british", "fire A1")
    assert one(evs, E.MoraleChecked).result == "broken"          # a 10 always fails (11.2)
    assert t.state().pieces["A1"].broken


def test_15_61_refusals_cite_the_rule_and_leave_the_log_unchanged(tmp_path, fixed_clock):
    t = paused_twice(tmp_path, dice=(2, 1, 2, 1, 10, 10, 10))
    t.refuse("british", "fire A1+A2", rule="15.61", match="already marked fired only")
    t.ok("british", "fire A1")                                   # roll 10: A1 breaks
    assert t.state().pending.hex == "0707"
    t.refuse("british", "fire A1", rule="15.61", match="may not use desperation fire")   # broken now
    evs = t.ok("british", "fire A2")                             # the unfired unit still answers normally
    assert one(evs, E.CasualtyAttack).rule == "15.7"
