"""Combat strength and odds (9.2, 9.4, 4.8, 11.0) and the two Combat Results Tables:
All Out (9.5) and Limited (9.6)."""
from __future__ import annotations

from pbem.core.scenario import Scenario
from pbem.core.state import GameState, UnitState
from pbem.games.crete.board import air_units, gd
from pbem.mechanics.odds import odds_column

RESULTS = frozenset({"Ae", "De", "Ee", "Ne", "Ca"})     # 10.0
TABLES = {"all-out": "all-out", "allout": "all-out", "limited": "limited"}    # 9.1: named before the roll


def strengths(st: GameState, sc: Scenario, rollers: list[UnitState], targets: list[UnitState],
              air: list[str], terrain: bool = True) -> tuple[int, int, list[str]]:
    """Attack and defence strength of one roll and what modified them: air units add their
    strength (11.0), a defender in doubling terrain counts double (4.8) unless ``terrain`` is
    off (5.2: the German unit of a scatter fight gets no terrain benefit)."""
    att = sum(u.strength for u in rollers)
    mods = []
    if air:
        au = air_units(sc)
        extra = sum(int(au[a]["strength"]) for a in air)
        att += extra
        mods.append(f"air {'+'.join(air)} adds {extra} (11.0)")
    dfn = 0
    for u in targets:
        t = sc.terrain.get(sc.board.terrain.get(u.hex or "", ""))
        k = t.defence if (t is not None and terrain) else 1
        if k > 1:
            mods.append(f"{u.id} doubled in {sc.board.terrain.get(u.hex or '')} (4.8)")
        dfn += u.strength * k
    if not terrain:
        mods.append("no terrain benefit for the German unit (5.2)")
    return att, dfn, mods


def column(att: int, dfn: int) -> str | None:
    """The odds column, 1:3 to 7:1; None below 1:3, where no attack is allowed (9.4)."""
    return odds_column(att, dfn, best=7, worst=3)


def table(sc: Scenario, name: str) -> tuple[list[str], dict[str, list[str]], str]:
    """The columns, rows and rule of the All Out (9.5) or the Limited (9.6) table."""
    if name == "limited":
        t = gd(sc)["limited"]
        return t["columns"], t["rows"], "9.6"
    return sc.crt.columns, sc.crt.rows, "9.5"
