"""Advanced Tobruk, the Salient example (examples/tobruk-salient): it shows what issue 14 asks of
an example game -- every kind of side note sealed before play, artillery brought down on a
registration hex with the +20 in the reports (18.551), the mortar's registration (19.61), a hidden
gun placed on the map by a trigger of 32.211 / 32.2111, a hidden minefield turned over when entered
(31.15), APCR fired (17.25), the secret notes opened at the end, and a result after turn 8."""
from __future__ import annotations

import pytest

from pbem.core import events as CE
from pbem.games.advanced_tobruk.arty_events import IndirectFired
from pbem.games.advanced_tobruk.fire_events import GunFired
from pbem.games.advanced_tobruk.fog_events import Revealed
from pbem.games.advanced_tobruk.mine_events import MineEntered
from pbem.report import render

NAME = "tobruk-salient"


@pytest.fixture(scope="module")
def example(played_example):
    ex = played_example(NAME)
    g = ex.game()
    return ex, g, [en.event for en in g.entries()]


def test_the_example_plays_eight_turns_to_a_result(example):
    ex, g, evs = example
    st = g.state()
    assert st.result is not None and st.result.rule == "2.44, 2.45"
    assert st.turn == 8 and "turn 8 of 8 is over" in st.result.reason
    assert any(isinstance(e, CE.GameEnded) for e in evs)
    assert g.verify().ok and "verified" in ex.summary


def test_every_kind_of_side_note_is_sealed_before_play_and_opened_by_the_end(example):
    _, g, evs = example
    sealed = {e.payload.split()[0]: e for e in evs if isinstance(e, CE.SecretRecorded)}
    for kind in ("ffe", "ammo", "fo", "register", "crew", "command", "elite", "apcr", "hide", "dummy", "mine"):
        assert kind in sealed, kind
    first_turn = next(i for i, e in enumerate(evs) if isinstance(e, CE.PhaseStarted) and e.name == "indirect")
    assert all(i < first_turn for i, e in enumerate(evs) if isinstance(e, CE.SecretRecorded))
    opened = {(e.side, e.name) for e in evs if isinstance(e, CE.SecretRevealed)}
    assert opened == {(e.side, e.name) for e in evs if isinstance(e, CE.SecretRecorded)}


def test_artillery_comes_down_on_a_registration_with_the_20_in_the_reports(example):
    # 18.551: +20 on the accuracy roll in a registration hex; the battery's registration note is opened
    _, g, evs = example
    on_reg = [e for e in evs if isinstance(e, IndirectFired) and e.registered
              and any(d.startswith("+20 registration") for d in e.drms)]
    assert {e.source for e in on_reg} >= {"RHA", "AR75", "W2"}      # both batteries and the mortar (19.61)
    assert any(e.what == "barrage" for e in on_reg)                   # 18.722 a barrage on a registration
    st = g.state()
    entries = g.entries()
    for side in ("british", "german"):
        text = render.report_text(g, side, st, entries, 0, entries[st.seq].hash)
        assert "+20 registration" in text, side


def test_a_hidden_gun_is_placed_by_a_trigger_of_32_211(example):
    _, g, evs = example
    guns = [e for e in evs if isinstance(e, Revealed) and any(u.startswith("H") for u in e.units)]
    assert guns and all(e.rule.startswith("32.211") for e in guns)
    assert any(e.face_up and e.rule == "32.2111" for e in guns)            # it fired: unit side up
    i = evs.index(guns[0])
    assert any(isinstance(e, CE.SecretRevealed) and e.name.startswith("hide-") for e in evs[i:i + 4])


def test_a_hidden_minefield_is_entered_and_apcr_is_fired(example):
    _, g, evs = example
    hidden = {e.payload.split()[1] for e in evs if isinstance(e, CE.SecretRecorded)
              and e.payload.startswith("mine ") and e.payload.endswith(" hidden")}
    assert any(isinstance(e, MineEntered) and e.hex in hidden for e in evs)
    assert any(isinstance(e, GunFired) and e.ammo == "APCR" for e in evs)


def test_a_battery_is_located_and_engaged_by_counter_battery_fire(example):
    # 18.1151 located on 1-2 after it fired; 18.1152 counter-battery declared on it
    from pbem.games.advanced_tobruk.arty_events import BatteryLocated, CounterBattery
    _, g, evs = example
    located = [e for e in evs if isinstance(e, BatteryLocated) and e.located]
    assert located
    assert any(isinstance(e, CounterBattery) and e.target == located[0].battery and not e.ended for e in evs)
