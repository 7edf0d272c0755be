"""Small Advanced Tobruk games for the tests: the shipped scenario (map, unit
types, tables) with the test's own units, facings and holders.

Sides are listed british, german: a first-fire roll of (1, 2) puts the
British first, (2, 1) the Germans.  Phases (indices into the sequence):
0 setup, 1 indirect, 2 direct-fire, 3 movement, 4 final-fire,
5 infiltration, 6 melee, 7 end.  Map facts (even columns sit half a hex
lower): open everywhere but scrub 0402 1102 0204 0704 1304 1106 0607 0409 and
soft sand 0306 0406 1009 1109; the dune hexside 0306|0307; the El Adem track
along the hexsides of column 08; pits (posts) 0705 and 0905."""
from __future__ import annotations

import json
import re

from pbem.core.scenario import SCENARIO_DIR
from pbem.engine import Game

from conftest import Table

SCENARIO = SCENARIO_DIR / "tobruk-r33.toml"
SETUP, INDIRECT, DIRECT, MOVEMENT, FINAL, INFILTRATION, MELEE, END = range(8)
NATION = {"british": "british", "german": "german"}


def U(uid: str, side: str, type: str, hex: str | None, **extra) -> dict:
    return {"id": uid, "side": side, "nationality": NATION[side], "type": type, "strength": 1, "ma": 0,
            "hex": hex, "_extra": extra}


def scenario_text(units: list[dict], turns: int | None = None) -> str:
    lines, extras = [], []
    for u in units:
        u = dict(u)
        x = u.pop("_extra", {})
        if u.get("hex") is None:
            u.pop("hex", None)
        lines.append("  { " + ", ".join(f"{k} = {json.dumps(v)}" for k, v in u.items()) + " },")
        if x:
            extras.append(f'"{u["id"]}" = {{ ' + ", ".join(f"{k} = {json.dumps(v)}" for k, v in x.items()) + " }")
    text = re.sub(r"\nunits = \[\n.*?\n\]\n", "\nunits = [\n" + "\n".join(lines) + "\n]\n",
                  SCENARIO.read_text(), count=1, flags=re.S)
    text = re.sub(r"\[game_data.units\]\n.*?\n\n", "[game_data.units]\n" + "\n".join(extras) + "\n\n", text,
                  count=1, flags=re.S)
    if turns is not None:
        text = re.sub(r"\nturns = \d+", f"\nturns = {turns}", text, count=1)
    return text.replace('id = "tobruk-r33"', 'id = "test-tobruk"', 1)


def make(tmp_path, units: list[dict], dice=(), name: str = "g", turns: int | None = None,
         setup: bool = True) -> Table:
    p = tmp_path / f"{name}.toml"
    p.write_text(scenario_text(units, turns))
    # lint=False: the kit builds positions for rules tests (units kept off the map, a hidden
    # unit's crew in the file, set-ups over the limits), not scenarios `pbem new` would accept
    t = Table(Game.create(tmp_path / name, str(p), {}, dice=list(dice), lint=False))
    if setup:
        t.ok("british", "pass")
        t.ok("german", "pass")
    return t


def step(t: Table):
    return t.state().step
