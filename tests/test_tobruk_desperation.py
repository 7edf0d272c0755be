"""Advanced Tobruk desperation fire (15.6) in the answer to a move paused for
opportunity fire: personnel already marked fired may be named, ``fire UNIT [at
HEX]``; the attack's roll is also their morale check (15.61).  Ruleset 3: one
answer for the whole path (6.6 by email), so the unit fired by an earlier move's
answer."""
from __future__ import annotations

from pbem.games.advanced_tobruk import events as E

from conftest import one, only
from tobruk_kit import MOVEMENT, U, make


def fired_then_paused(tmp_path, dice, extra=()):
    """A1 and A2 (Australian squads, range 4) in post 0705; G1 and G2 in 0710.  G1 assaults into 0709:
    the British answer with A1's fire (no effect) and pass for A2; G2's move up column 07 then pauses
    in 0709 for A2 alone (A1 has fired, 6.62)."""
    units = [U("A1", "british", "aus-squad", "0705"), U("A2", "british", "aus-squad", "0705"),
             U("G1", "german", "ger-squad", "0710"), U("G2", "german", "ger-squad", "0710"), *extra]
    t = make(tmp_path, units, dice=dice, setup=False)
    t.ok("british", "pass")
    t.ok("german", "pass")
    while t.phase()[1] != MOVEMENT:
        t.ok(t.state().step.to_act, "pass")
    assert t.state().step.to_act == "german"
    assert one(t.ok("german", "assault G1 0709"), E.MovePaused).firers == ["A1", "A2"]
    assert only(t.ok("british", "fire A1"), E.OpportunityPlanned)          # A2 not named yet
    evs = t.ok("british", "pass")
    assert [a.firers for a in only(evs, E.CasualtyAttack)] == [["A1"]] and t.state().pieces["A1"].fired
    t.ok("british", "pass")                                                 # the British do not move
    p = one(t.ok("german", "assault G2 0709 0708 0707"), E.MovePaused)
    assert (p.hex, p.firers) == ("0709", ["A2"])                            # A1 has fired: not asked
    return t


def test_15_61_a_fired_unit_answers_the_pause_with_desperation_fire(tmp_path, fixed_clock):
    # dice: first-fire rolls, A1's opportunity fire in 0709 (10: nothing), its desperation fire in 0708 (9)
    t = fired_then_paused(tmp_path, dice=(2, 1, 2, 1, 10, 9) + (2, 1) * 4)
    log_before = t.log_bytes()
    assert only(t.ok("british", "fire A1 at 0708"), E.OpportunityPlanned)  # A2 still to name or pass
    evs = t.ok("british", "pass")
    a = one(evs, E.CasualtyAttack)
    assert (a.firers, a.hex, a.roll, a.factors, a.by, a.rule, a.mark_fired) == \
        (["A1"], "0708", 9, 6, "answer", "15.6", False)          # printed gunfire, nobody newly marked
    m = one(evs, E.MoraleChecked)
    assert (m.unit, m.why, m.result, m.rule) == ("A1", "desperation", "passed", "15.61")
    assert "the attack's roll 9" in m.mods and m.altered == 9   # the attack's roll is the morale check
    assert one(evs, E.OpportunityPassed).firers == ["A2"]        # the pass: A2 holds
    assert not only(evs, E.MovePaused) and t.hex_of("G2") == "0707"    # one pause for the whole path
    assert t.log_bytes().startswith(log_before)


def test_15_61_a_failed_desperation_check_breaks_the_firer(tmp_path, fixed_clock):
    t = fired_then_paused(tmp_path, dice=(2, 1, 2, 1, 10, 10) + (2, 1) * 4)
    t.ok("british", "fire A1 at 0708")
    evs = t.ok("british", "pass")
    assert one(evs, E.MoraleChecked).result == "broken"          # a 10 always fails (11.2)
    assert t.state().pieces["A1"].broken


def test_15_61_refusals_cite_the_rule_and_leave_the_log_unchanged(tmp_path, fixed_clock):
    t = fired_then_paused(tmp_path, dice=(2, 1, 2, 1, 10, 10, 10) + (2, 1) * 4)
    before = t.log_bytes()
    t.refuse("british", "fire A1+A2", rule="15.61", match="already marked fired only")
    t.refuse("british", "fire A2 at 0606", rule="6.6", match="not on the path")
    assert t.log_bytes() == before
    t.ok("british", "fire A1 at 0708")
    t.refuse("british", "fire A1 at 0707", rule="6.62", match="already fires in 0708")   # a unit fires once
    evs = t.ok("british", "fire A2")                             # every unit asked named: the move goes on
    assert [(a.firers, a.hex, a.rule) for a in only(evs, E.CasualtyAttack)] == \
        [(["A2"], "0709", "15.7"), (["A1"], "0708", "15.6")]     # each where it was planned, in path order
    assert t.state().pieces["A1"].broken and t.state().pending is None
