"""Small Advanced Tobruk cards with limited intelligence (32) for the fog and hidden-unit tests:
the shipped card's map, types and tables with the test's own units and SSR lines.

Map facts (tobruk_kit): open but scrub 0402 1102 0204 0704 1304 1106 0607 0409, soft sand 0306 0406
1009 1109, weapon pits 0705 0905.  ``hillock`` lists hexes of a level +5 hillock (32.261)."""
from __future__ import annotations

import json
import re

from pbem.engine import Game

from conftest import Table
from tobruk_kit import SCENARIO, NATION

SETUP, INDIRECT, DIRECT, MOVEMENT, FINAL, INFILTRATION, MELEE, END = range(8)


def U(uid: str, side: str, type: str, hex: str | None, **extra) -> dict:
    return {"id": uid, "side": side, "nationality": NATION[side], "type": type, "hex": hex, "_extra": extra}


def card(units: list[dict], ssr: str = "", hillock: tuple[str, ...] = ()) -> str:
    lines, extras = [], []
    for u in units:
        u = dict(u)
        x = u.pop("_extra", {})
        if u.get("hex") is None:
            u.pop("hex")
            u["entry_turn"] = 0
        u.update(strength=1, ma=0)
        lines.append("  { " + ", ".join(f"{k} = {json.dumps(v)}" for k, v in u.items()) + " },")
        if x:
            extras.append(f'"{u["id"]}" = {{ ' + ", ".join(f"{k} = {json.dumps(v)}" for k, v in x.items()) + " }")
    text = SCENARIO.read_text().replace('id = "tobruk-r33"', 'id = "test-fog"', 1)
    text = re.sub(r"\nunits = \[\n.*?\n\]\n", "\nunits = [\n" + "\n".join(lines) + "\n]\n", text, count=1,
                  flags=re.S)
    text = re.sub(r"\[game_data.units\]\n.*?\n\n", "[game_data.units]\n" + "\n".join(extras) + "\n\n", text,
                  count=1, flags=re.S)
    text = text.replace('friendly_edge = { british = ["north"], german = ["south"] }',
                        'friendly_edge = { british = ["north"], german = ["south"] }\n' + ssr, 1)
    if hillock:
        text = text.replace("[map.features.pit]", f"[map.features.hillock]\nhexes = {json.dumps(list(hillock))}\n\n"
                                                  "[map.features.pit]", 1)
    return text


def make(tmp_path, units: list[dict], ssr: str = "limited_intelligence = true\nconditions = \"dusk\"",
         dice=(1, 2) * 8, british=("pass",), german=("pass",), hillock: tuple[str, ...] = (), name: str = "g") -> Table:
    """A game after its set-up: the British orders (notes) then the German ones."""
    p = tmp_path / f"{name}.toml"
    p.write_text(card(units, ssr, hillock))
    t = Table(Game.create(tmp_path / name, str(p), {}, dice=list(dice), lint=False))   # a position (tobruk_kit)
    for line in british:
        t.ok("british", line)
    for line in german:
        t.ok("german", line)
    return t


def goto(t: Table, turn: int, phase: int) -> None:
    """Pass activations until (turn, phase) is the current one."""
    while (t.state().turn, t.state().phase) < (turn, phase):
        t.ok(t.state().step.to_act, "pass")
