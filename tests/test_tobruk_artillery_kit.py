"""Small Advanced Tobruk worlds for the indirect fire tests (18-20): the fire tests'
world (tobruk_fire_helpers) plus two off-board batteries, an FO, a 3-inch mortar
and a truck, with the British side notes set in the state as notes.py would
(FFE allotment, FO, registrations)."""
from __future__ import annotations

import re

from pbem.core.ruleset import Ctx
from pbem.core.scenario import loads
from pbem.games.advanced_tobruk.notes_state import Notes
from pbem.games.advanced_tobruk.rules import AdvancedTobruk

from tobruk_fire_helpers import EXAMPLE_TYPES, Dice, U, events, scenario_text  # noqa: F401

ARTY = '''

[game_data.artillery.BTY1]
side = "british"
nation = "british"
battery = "25pdr"
fire = ["concentration", "barrage", "rolling"]
smoke = true
rolling = { along = "N", toward = "SE", turns = 1, hexes = 1 }

[game_data.artillery.GB1]
side = "german"
nation = "german"
battery = "150mm"
fire = ["concentration"]

[game_data.types.fo-brit]
cls = "leader"
nation = "british"
fo = true
gunfire = 1
range = 1
morale = 8
sp = 1
reduced = { gunfire = 1, range = 1, morale = 6 }

[game_data.types.mortar-3in]
cls = "weapon"
weight = "M"
kind = "MORTAR"
size = 76
he = 14
range = [32, 3]
rof = 1
smoke = true
'''

FO = U("FO1", "british", "fo-brit", "0909")


def aworld(units: list[dict], dice=(), side: str = "british", turn: int = 1, conditions: str = "",
           ffe: int = 3, regs: list[str] = ("0505",), li: bool = False) -> Ctx:
    text = scenario_text(units) + EXAMPLE_TYPES + ARTY
    if li:                                                    # limited intelligence (32) in force
        text = re.sub(r"\n\[game_data\]\n", "\n[game_data]\nlimited_intelligence = true\n", text, count=1)
    if conditions:
        text = re.sub(r"\n\[game_data\]\n", f"\n[game_data]\nconditions = \"{conditions}\"\n", text, count=1)
    sc = loads(text.encode(), "test-tobruk-arty")
    rules = AdvancedTobruk()
    st = rules.new_state(sc, "t")
    st.turn = turn
    st.notes = {"british": Notes(ffe={"BTY1": ffe}, fo={"BTY1": "FO1"}, registrations={"BTY1": list(regs)},
                                 names={"reg-1": f"register BTY1 {regs[0]}" if regs else "", "fo-1": "fo BTY1 FO1"}),
                "german": Notes(ffe={"GB1": 2})}
    return Ctx(rules, st, sc, side, Dice(dice))
