"""Advanced Tobruk, rules fidelity round 3 (issue 25, items 9-21): each test names the rule
it checks, scripts its dice and failed on the code before the fix."""
from __future__ import annotations

from pbem.games.advanced_tobruk.arty_events import BatteryLocated, ContactRolled, DirectHitRolled
from pbem.games.advanced_tobruk.events import FirstRolled

from test_tobruk_artillery_engine import game as arty_game


# --- item 20: every die is kept in the event's ``rolls`` ---------------------------------------

def test_scripted_dice_after_a_contact_roll_and_a_direct_hit_roll_are_not_read_again(tmp_path):
    # core DICE_FIELD: the contact roll 3 and the direct-hit roll 10 of the call are the event's
    # ``rolls``, so the next order reads the dice after them: the locating roll 9 (18.1151), then
    # the Direct Fire Phase's first-fire roll 1 v 2 (5.031); before, both were read again
    t = arty_game(tmp_path, [6, 4, 1, 2, 3, 4, 10, 10, 10, 9, 1, 2])
    for side, text in (("british", "roll"), ("british", "note fo BTY1 FO1"), ("british", "pass"),
                       ("german", "roll"), ("german", "note fo GB1 GF"), ("german", "pass"),
                       ("british", "note register BTY1 0505"), ("british", "pass")):
        t.ok(side, text)
    evs = t.ok("british", "call BTY1 at 0505")
    assert [e.roll for e in evs if isinstance(e, (ContactRolled, DirectHitRolled))] == [3, 10]
    evs = t.ok("german", "pass")
    assert [e.roll for e in evs if isinstance(e, BatteryLocated)] == [9]
    first = next(e for e in evs if isinstance(e, FirstRolled))
    assert first.phase == "direct-fire" and first.rolls == [1, 2] and first.first == "british"
    assert t.state().scripted_pos == 12
