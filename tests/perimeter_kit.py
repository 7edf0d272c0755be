"""Small Advanced Tobruk games on a test map with the perimeter's ground (31.5-31.8, 33.4-33.8):
the shipped tobruk-r33 card's types and tables, the fire helpers' example types, a few more
(a Vickers MMG, an 88 mm gun), and this map instead of the card's:

    wire 0303 0403; an anti-tank trench 0305-0405-0505 (a chain); a bunker 0707; a weapon pit
    0502; scrub 0202, rock-strewn 0602; a hillock (+5) 0103 0104; a deir 1008 0909 1009 1109
    0910 1010 1110 (1009 deep inside, 0909 and 1008 at its lip: contours N, SW, NW of 0909 and
    N, NE, NW of 1008); a wadi 1202-1203-1204 down column 12, its end 1204.

Even columns sit half a hex lower.  ``hull_defilade`` and ``continued_fire`` are on unless a
test turns them off."""
from __future__ import annotations

import re

from pbem.core.ruleset import Ctx
from pbem.core.scenario import loads
from pbem.engine import Game
from pbem.games.advanced_tobruk.rules import AdvancedTobruk

from conftest import Table
from tobruk_fire_helpers import EXAMPLE_TYPES, Dice
from tobruk_kit import U, scenario_text  # noqa: F401 - U re-exported for the tests

MORE_TYPES = '''

[game_data.types.mg303]
cls = "weapon"
face = "weapon"
weight = "M"
kind = "MG"
gunfire = 8
range = 12
rof = 2

[game_data.types.flak88]
cls = "weapon"
face = "gun"
weight = "H"
kind = "AT"
rating = "A"
size = 88
pen = "2pdr"
rof = 1
he = 20
ap = true
turret = "360"

[game_data.types.brit-fo]
cls = "leader"
face = "infantry"
nation = "british"
fo = true
gunfire = 1
range = 1
morale = 8
melee = 1
sp = 1
reduced = { gunfire = 1, range = 1, morale = 6 }

[terrain.deir]
move_cost = 1
colour = "#e0cc98"
rule = "33.41"

[terrain.wadi]
move_cost = 2
colour = "#c8b27a"
rule = "33.72"

[terrain.rock-strewn]
move_cost = 2
colour = "#b8b0a0"
rule = "33.52"
'''

FEATURES = {"wire": ["0303", "0403"], "trench": ["0305", "0405", "0505"], "bunker": ["0707"], "pit": ["0502"],
            "hillock": ["0103", "0104"], "wadi-end": ["1204"]}
MAP = '''[map]
first_col = 1
last_col = 14
first_row = 1
last_row = 10
offset = "even-down"
legend = { "." = "open", "s" = "scrub", "r" = "rock-strewn", "D" = "deir", "W" = "wadi" }
rows = [
  "..............",
  ".s...r.....W..",
  "...........W..",
  "...........W..",
  "..............",
  "..............",
  "..............",
  ".........D....",
  "........DDD...",
  "........DDD...",
]

'''


def text(units: list[dict], flags: dict | None = None, features: dict | None = None) -> str:
    t = scenario_text(units)
    t = t[:t.index("[map]")] + MAP
    more = {k: list(v) for k, v in FEATURES.items()}
    for name, hexes in (features or {}).items():                  # more map features: {"hillock10": ["1006"]}
        more[name] = more.get(name, []) + list(hexes)
    for name, hexes in more.items():
        t += f'\n[map.features.{name}]\nhexes = {hexes!r}\n'.replace("'", '"')
    flags = {"hull_defilade": True, "continued_fire": True, **(flags or {})}
    extra = "".join(f"{k} = {str(v).lower() if isinstance(v, bool) else v}\n" for k, v in flags.items() if v)
    t = re.sub(r"(\[game_data\]\n)", r"\1" + extra, t, count=1)
    return t.replace("[crt]", EXAMPLE_TYPES + MORE_TYPES + "\n[crt]", 1)


def pworld(units: list[dict], dice=(), side: str = "german", turn: int = 1, flags: dict | None = None,
           features: dict | None = None) -> Ctx:
    """A Ctx on a fresh state of the perimeter test map with ``units`` placed and the dice scripted."""
    sc = loads(("# a test world (not a file: its own text, so no cached file scenario is taken)\n"
                + text(units, flags, features)).encode(), "test-perimeter")
    rules = AdvancedTobruk()
    st = rules.new_state(sc, "t")
    st.turn = turn
    return Ctx(rules, st, sc, side, Dice(dice))


def pmake(tmp_path, units: list[dict], dice=(), name: str = "g", flags: dict | None = None,
          setup: bool = True, features: dict | None = None) -> Table:
    p = tmp_path / f"{name}.toml"
    p.write_text(text(units, flags, features))
    t = Table(Game.create(tmp_path / name, str(p), {}, dice=list(dice), lint=False))    # rules positions (tobruk_kit)
    if setup:
        t.ok("british", "pass")
        t.ok("german", "pass")
    return t


def evs(ctx_or_list, kind: type) -> list:
    items = ctx_or_list.events if hasattr(ctx_or_list, "events") else ctx_or_list
    return [e for e in items if isinstance(e, kind)]
