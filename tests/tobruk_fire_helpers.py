"""Small Advanced Tobruk worlds for the fire, morale and assault tests: the
shipped scenario's map and types (tests/tobruk_kit.py) plus the worked
examples' units (Grant, Fiat MMG, Sd Kfz 250, ...; values reconstructed for
these tests), a typed state, and a Ctx whose dice are scripted."""
from __future__ import annotations

from pbem.core.ruleset import Ctx
from pbem.core.scenario import loads
from pbem.games.advanced_tobruk.rules import AdvancedTobruk
from pbem.games.advanced_tobruk.state import TobrukState

from tobruk_kit import U, scenario_text  # noqa: F401 - U re-exported for the tests

EXAMPLE_TYPES = '''

[game_data.types.grant]
cls = "afv"
nation = "british"
motion = "tracked"
mp = [8, 4]
turret = "fast"
close_assault = 2
armour = { turret = [11, 11, 11], uh = [11, 8, 8], lh = [10, 8, 8] }
guns = [ { name = "75", pen = "75mm-M2", rating = "B", size = 75, rof = 1, mount = "sponson", he = 14, ap = true },
         { name = "37", pen = "37mm-M6", rating = "B", size = 37, rof = 2, mount = "turret", he = 0, ap = true } ]
mgs = [ { name = "coax", mount = "coax", gunfire = 5 }, { name = "bow", mount = "bow", gunfire = 8 } ]

[game_data.types.pz2f]
cls = "afv"
nation = "german"
motion = "tracked"
mp = [8, 4]
turret = "slow"
close_assault = 5
armour = { turret = [6, 3, 3], uh = [7, 3, 3], lh = [7, 3, 3] }
guns = [ { name = "20mm", pen = "20mm", rating = "C", size = 20, rof = 3, mount = "turret", he = 2, ap = true, semi = true } ]
mgs = [ { name = "coax", mount = "coax", gunfire = 5 } ]

[game_data.types.td]
cls = "afv"
nation = "italian"
motion = "tracked"
mp = [6, 3]
turret = ""
close_assault = 4
armour = { turret = [0, 0, 0], uh = [8, 5, 5], lh = [8, 5, 5] }
guns = [ { name = "47", pen = "47/32", rating = "C", size = 47, rof = 1, mount = "hull", he = 6, ap = true } ]
mgs = [ { name = "bow", mount = "bow", gunfire = 4 } ]

[game_data.types.truck]
cls = "truck"
motion = "wheeled"
mp = [12, 6]

[game_data.types.sd250]
cls = "apc"
nation = "german"
motion = "halftrack"
mp = [10, 5]
mgs = [ { name = "mg", mount = "bow", gunfire = 5 } ]

[game_data.types.it-squad]
cls = "squad"
nation = "italian"
gunfire = 5
range = 4
morale = 6
sp = 3
reduced = { gunfire = 2, range = 3, morale = 5 }

[game_data.types.de-squad6]
cls = "squad"
nation = "german"
gunfire = 6
range = 5
morale = 8
sp = 3
reduced = { gunfire = 3, range = 4, morale = 7 }

[game_data.types.it-crew]
cls = "crew"
nation = "italian"
gunfire = 2
range = 3
morale = 8
sp = 2
reduced = { gunfire = 1, range = 2, morale = 7 }

[game_data.types.it-leader]
cls = "leader"
nation = "italian"
gunfire = 1
range = 1
morale = 7
sp = 1
reduced = { gunfire = 0, range = 1, morale = 6 }

[game_data.types.fiat-mmg]
cls = "weapon"
weight = "M"
kind = "MG"
gunfire = 6
range = 12
rof = 2

[game_data.types.pzb39]
cls = "weapon"
weight = "L"
kind = "ATR"
rating = "D"
size = 8
pen = "pzb39-atr"
gunfire = 1
range = 16
max = 16
rof = 1
he = 0

[game_data.types.bofors]
cls = "weapon"
weight = "H"
kind = "AT"
rating = "B"
size = 40
pen = "40mm-Bofors"
rof = 3
he = 4
semi = true
turret = "360"
'''


class Dice:
    """Scripted d10s; a test fails loudly if it rolls more than it scripted."""

    def __init__(self, rolls):
        self.rolls = list(rolls)
        self.used: list[int] = []

    def roll(self, sides: int) -> int:
        assert self.rolls, f"unscripted roll after {self.used}"
        r = self.rolls.pop(0)
        self.used.append(r)
        return r

    def salt(self) -> str:
        return "salt"


def world(units: list[dict], dice=(), side: str = "german", turn: int = 1) -> Ctx:
    """A Ctx on a fresh state with ``units`` placed and the dice scripted."""
    sc = loads((scenario_text(units) + EXAMPLE_TYPES).encode(), "test-tobruk-fire")
    rules = AdvancedTobruk()
    st = rules.new_state(sc, "t")
    st.turn = turn
    return Ctx(rules, st, sc, side, Dice(dice))


def st(ctx: Ctx) -> TobrukState:
    return ctx.state


def events(ctx: Ctx, kind: type) -> list:
    return [e for e in ctx.events if isinstance(e, kind)]


PZ3H = '''

[game_data.types.pz3h]
cls = "afv"
nation = "german"
motion = "tracked"
mp = [8, 4]
turret = "fast"
close_assault = 3
armour = { turret = [6, 6, 6], uh = [12, 6, 10], lh = [12, 6, 10] }
guns = [ { name = "50mm", pen = "50mm-L42", rating = "B", size = 50, rof = 2, mount = "turret", he = 8, ap = true, alt = ["APCR"] } ]
mgs = [ { name = "coax", mount = "coax", gunfire = 5 } ]
'''
EXAMPLE_TYPES += PZ3H
