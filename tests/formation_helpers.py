"""Small Formation Series (Mirages) scenarios for the engine tests: a 10 x 8 clear
map with a road along row 04, one Axis and one Allied formation by default."""
from __future__ import annotations

import json
from pathlib import Path

from conftest import Table, _toml_value
from pbem.engine import Game
from pbem.games.formation.crt import DEFAULT_ROWS

AP_BLACK = {str(lv): [max(1, lv - 1 + (d + 1) // 3) for d in range(10)] for lv in range(1, 7)}
AP_RED = {str(lv): [max(1, (lv + d // 4) // 2) for d in range(10)] for lv in range(1, 7)}


def unit(uid, side, hex=None, *, formation, strength=4, ma=6, category="infantry", movement="leg", er=5,
         er_disrupted=3, tank=0, at=0, afv=False, turn=None, nationality=None, **extra):
    core = {"id": uid, "side": side, "nationality": nationality or ("german" if side == "axis" else "british"),
            "type": category, "strength": strength, "ma": ma}
    if hex:
        core["hex"] = hex
    if turn:
        core["entry_turn"] = turn
    info = {"formation": formation, "er": er, "er_disrupted": er_disrupted, "category": category,
            "movement": movement, "tank": tank, "at": at, "afv": afv, **extra}
    return core, info


def hq(uid, side, hex, *, formation, support=4, ma=8, reaction=5, command_range=4, level=3, max_level=5,
       recovery=1, hq_movement="mot", turn=None):
    core = {"id": uid, "side": side, "nationality": "german" if side == "axis" else "british", "type": "hq",
            "strength": support, "ma": ma}
    if hex:
        core["hex"] = hex
    if turn:
        core["entry_turn"] = turn
    row = {"side": side, "hq": uid, "reaction": reaction, "command_range": command_range, "support": support,
           "hq_movement": hq_movement, "recovery": recovery, "max_level": max_level, "start_level": level}
    return core, (formation, row)


def default_units():
    return [
        hq("A-HQ", "axis", "0203", formation="A"),
        unit("A1", "axis", "0304", formation="A", category="tank", movement="mot", tank=3, afv=True, ma=8),
        unit("A2", "axis", "0305", formation="A", category="mot-infantry", movement="mot", at=1, ma=8),
        hq("B-HQ", "allied", "0903", formation="B"),
        unit("B1", "allied", "0804", formation="B", category="infantry", at=1, ma=4),
        unit("B2", "allied", "0805", formation="B", category="tank", movement="mot", tank=2, afv=True, ma=8),
    ]


def scenario_text(units=None, *, game_data=None, victory=None, turns=4, rows=None, hexsides=(),
                  features=None, places=()) -> str:
    units = default_units() if units is None else units
    core_units, infos, forms = [], {}, {}
    for core, info in units:
        core_units.append(core)
        if isinstance(info, tuple):
            forms[info[0]] = info[1]
        else:
            infos[core["id"]] = info
    gd = {
        "scorer": "allied", "max_initiatives_in_row": 2, "max_transfers_in_row": 1, "first_initiative": "axis",
        "turn1_initiative_drm": 0, "initiative_ties": [{"from_turn": 1, "to_turn": 99, "side": "axis"}],
        "initiative_track": [2, 3, 4, 5, 6], "schwerpunkt_drm": 2,
        "action_costs": {"move": 1, "refit": 1, "improve": 1, "hasty": 1, "regular": 2, "prepared": 3, "seize": 1},
        "stacking": {"allied": {"total": 2, "leg": 1}, "axis": {"inf": 1, "other": 2}},
        "supply_sources": {"axis": ["0104"], "allied": ["1004"]},
        "friendly_edges": {"axis": "west", "allied": "east"},
        "ap_table": {"black": AP_BLACK, "red": AP_RED},
        "formations": forms, "units": infos,
        "tec": {"clear": {"leg": "1", "mot": "1", "hq": "1"}, "sea": {"zoc": False},
                "broken": {"leg": "2", "mot": "2", "hq": "2", "at_bonus": 1}},
        "road": {"leg": "1/2", "mot": "1/3", "hq": "1/3"}, "trail": {"leg": "1/2", "mot": "1/2", "hq": "1/2"},
        "snafu_first": "allied",
        "crt_odds": {"clear": "1:2", "broken": "1:1"},
        "hexside_cost": {"ridge": {}, "wadi": {}},       # no extra cost: a test crosses a ridge as clear
    }
    gd.update(game_data or {})
    vic = victory if victory is not None else {
        "kind": "points", "hexes": [{"hex": "0606", "name": "Objective", "in_command": 3, "out_of_command": 1}],
        "ranges": {f"gt{n}": [0, 10] for n in range(1, turns + 1)}}
    data = {
        "id": "test-mirages", "title": "test", "game": "mirages", "family": "formation", "turns": turns, "die": 10,
        "sides": [{"id": "axis", "name": "Axis"}, {"id": "allied", "name": "Commonwealth"}],
        "sequence": [{"side": "axis", "name": "admin"}, {"side": "axis", "name": "ops"},
                     {"side": "axis", "name": "end-of-turn"}],
        "turn_track": [{"turn": t, "label": f"GT{t}"} for t in range(1, turns + 1)],
        "units": core_units,
    }
    out = [f"{k} = {_toml_value(v)}" for k, v in data.items()]
    out.append("\n[victory]")
    out += [f"{json.dumps(k)} = {_toml_value(v)}" for k, v in vic.items()]
    out.append("\n[game_data]")
    out += [f"{json.dumps(k)} = {_toml_value(v)}" for k, v in gd.items()]
    out.append('\n[terrain]\nclear = { colour = "#eedcae" }\nbroken = { colour = "#cfb27a" }\n'
               'sea = { colour = "#9cc3dd", impassable = true }')
    out.append("\n[crt]")
    out.append('columns = ["A", "B", "C", "D", "E", "F", "G", "H"]\nmax_roll = 20')
    out.append("[crt.rows]")
    out += [f"{json.dumps(k)} = {_toml_value(v)}" for k, v in DEFAULT_ROWS.items()]
    rows = rows or ["." * 10] * 8
    m = {"first_col": 1, "last_col": 10, "first_row": 1, "last_row": 8, "legend": {".": "clear", "b": "broken", "s": "sea"},
         "rows": rows,
         "features": features or {"road": {"hexes": [f"{c:02d}04" for c in range(1, 11)]}},
         "places": list(places), "hexsides": list(hexsides)}
    out.append("\n[map]")
    out += [f"{k} = {_toml_value(v)}" for k, v in m.items()]
    return "\n".join(out) + "\n"


def make(tmp_path: Path, units=None, dice=(), name="g", **kw) -> Table:
    p = tmp_path / f"{name}.toml"
    p.write_text(scenario_text(units, **kw), encoding="utf-8")
    return Table(Game.create(tmp_path / name, str(p), {}, dice=list(dice)))


def quiet(t: Table) -> None:
    """Both sides' standing order: never react (6.5), so a test's moves run uninterrupted."""
    for s in ("axis", "allied"):
        t.ok(s, "doctrine reaction never")


def skip_ops(t: Table) -> list:
    """Turn 1 with no activation: quiet, the Axis transfers the initiative and the Allies end
    the Ops Phase (6.2, 6.3), so End of Turn (8) and the next Admin Phase (9) run; their events."""
    quiet(t)
    t.ok("axis", "transfer")
    return t.ok("allied", "end")


class Dice:
    """Scripted d10s for rules called directly (not through the log)."""

    def __init__(self, rolls):
        self.rolls = list(rolls)

    def roll(self, sides: int) -> int:
        return self.rolls.pop(0)

    def salt(self) -> str:
        return "00"


def direct(t: Table, side: str, dice=()):
    """A Ctx on a copy of the game's state: call rules functions directly, inspect ctx.events."""
    from pbem.core.ruleset import Ctx
    from pbem.core.state import copy_state
    return Ctx(t.game.rules, copy_state(t.state()), t.game.scenario, side, Dice(dice))
