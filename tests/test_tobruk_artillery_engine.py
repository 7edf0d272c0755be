"""Advanced Tobruk's Indirect Fire Phase through the engine (5.11, 18): side notes written
before play (FFE roll, FO, registration), the phase's first-fire roll, a registered
concentration whose +20 opens the registration note, orders contradicting a note refused
with the log unchanged, and the phase ending with the locating roll (18.1151)."""
from __future__ import annotations

from pbem.engine import Game
from pbem.games.advanced_tobruk.arty_events import BatteryLocated, IndirectFired
from pbem.games.advanced_tobruk.events import FirstRolled, PhaseStarted, SecretRevealed

from conftest import Table
from tobruk_kit import scenario_text
from test_tobruk_artillery_kit import ARTY, U

REGISTER = '  { side = "british", name = "register", rule = "18.51" },\n'


def game(tmp_path, dice) -> Table:
    units = [U("FO1", "british", "fo-brit", "0909"), U("A1", "british", "aus-squad", "0909"),
             U("G1", "german", "ger-squad", "0505"), U("GF", "german", "fo-brit", "0101")]
    text = scenario_text(units) + ARTY
    text = text.replace('{ side = "british", name = "setup", rule = "2.48" },\n',
                        '{ side = "british", name = "setup", rule = "2.48" },\n' + REGISTER, 1)
    text = text.replace("[game_data]\n", '[game_data]\nregistrations = { BTY1 = 1 }\n', 1)
    p = tmp_path / "arty.toml"
    p.write_text(text)
    return Table(Game.create(tmp_path / "g", str(p), {}, dice=list(dice)))


def test_indirect_phase_through_the_engine(tmp_path):
    # pre-game: British FFE roll 6 -> 3, German 4 -> 2; turn 1: first-fire 1 v 2 (British first);
    # contact 3, accuracy 4,0 + 20 = 60 on target, direct-hit 10, casualty 10; locating 9;
    # the Direct Fire Phase's first-fire roll 1 v 2
    t = game(tmp_path, [6, 4, 1, 2, 3, 4, 10, 10, 10, 9, 1, 2])
    t.ok("british", "roll")
    t.ok("british", "note fo BTY1 FO1")
    t.ok("british", "pass")
    t.ok("german", "roll")
    t.ok("german", "note fo GB1 GF")
    t.ok("german", "pass")
    t.ok("british", "note register BTY1 0505")
    evs = t.ok("british", "pass")                        # the Germans have no registration: passed for them
    assert any(isinstance(e, FirstRolled) and e.phase == "indirect" for e in evs)
    assert any(isinstance(e, PhaseStarted) and e.name == "indirect" for e in evs)
    assert t.state().step.to_act == "british"
    t.refuse("british", "call BTY1 at 0606 barrage", rule="18.722")
    t.refuse("british", "call BTY1 at 0505 by A1", rule="18.82, 18.101")
    evs = t.ok("british", "call BTY1 at 0505")
    fired = next(e for e in evs if isinstance(e, IndirectFired))
    assert fired.drms == ["+20 registration (18.551)"] and fired.final == "0505"
    opened = [e.name for e in evs if isinstance(e, SecretRevealed)]
    assert len(opened) == 2                                    # the registration and the FO's battery note
    evs = t.ok("german", "pass")                         # BTY1 has fired: the British have nothing left
    assert [e.located for e in evs if isinstance(e, BatteryLocated)] == [False]
    assert any(isinstance(e, PhaseStarted) and e.name == "direct-fire" for e in evs)
