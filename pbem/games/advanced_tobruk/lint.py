"""Checks of an Advanced Tobruk scenario beyond its schema (pbem scenario lint):
every unit has a type with the data its class needs, set-up facings, holders."""
from __future__ import annotations

from pbem.core.hexgrid import EDGES
from pbem.core.scenario import Scenario
from pbem.games.advanced_tobruk.facing import SPINES

NEEDS = {"afv": ("mp", "armour", "guns"), "apc": ("mp",), "truck": ("mp",),
         "squad": ("gunfire", "range", "morale"), "crew": ("gunfire", "range", "morale"),
         "leader": ("gunfire", "range", "morale"), "weapon": ("weight",)}


def lint(sc: Scenario) -> list[str]:
    errs: list[str] = []
    gd = sc.game_data
    types = gd.get("types", {})
    for name, t in types.items():
        c = t.get("cls", "")
        if c not in NEEDS:
            errs.append(f"game_data.types.{name}.cls: {c!r} is not one of {', '.join(NEEDS)}")
            continue
        for k in NEEDS[c]:
            if k not in t:
                errs.append(f"game_data.types.{name}.{k}: missing (a {c} needs it)")
    ids = set(sc.unit_defs)
    for u in sc.units:
        if u.type not in types:
            errs.append(f"units.{u.id}.type: {u.type!r} has no [game_data.types] entry")
    for uid, x in gd.get("units", {}).items():
        if uid not in ids:
            errs.append(f"game_data.units.{uid}: no such unit")
            continue
        for k in ("facing", "turret"):
            if k in x and str(x[k]).upper() not in SPINES:
                errs.append(f"game_data.units.{uid}.{k}: {x[k]!r} is not a spine ({' '.join(SPINES)})")
        h = x.get("holder")
        if h is not None and (h not in ids or sc.unit_defs[h].hex != sc.unit_defs[uid].hex):
            errs.append(f"game_data.units.{uid}.holder: {h!r} is not a unit in the same hex")
    for u in sc.units:
        c = types.get(u.type, {}).get("cls")
        if c in ("afv", "apc", "truck") and "facing" not in gd.get("units", {}).get(u.id, {}) and u.hex:
            errs.append(f"game_data.units.{u.id}.facing: a vehicle sets up facing a hex spine (6.522)")
    for what, table in (("victory.exit_edge", sc.victory.get("exit_edge", {})),
                        ("game_data.friendly_edge", gd.get("friendly_edge", {}))):
        for side, edges in table.items():
            if side not in sc.side_ids():
                errs.append(f"{what}.{side}: no such side")
            for e in edges:
                if e not in EDGES:
                    errs.append(f"{what}.{side}: {e!r} is not a map edge ({', '.join(EDGES)})")
    for i, obj in enumerate(sc.victory.get("hexes", [])):
        if not sc.board.grid.contains(obj.get("hex", "")):
            errs.append(f"victory.hexes[{i}].hex: not on the map")
    errs += _stacking(sc, types)
    if len(sc.side_ids()) != 2:
        errs.append("sides: Advanced Tobruk is a two-sided game")
    return errs


def _stacking(sc: Scenario, types: dict) -> list[str]:
    """4.02, 4.21, 4.31: no side sets up with two vehicles or more than sixteen personnel stacking points in a hex."""
    errs = []
    per: dict[tuple[str, str], list[str]] = {}
    for u in sc.units:
        if u.hex:
            per.setdefault((u.hex, u.side), []).append(u.id)
    for (h, side), ids in sorted(per.items()):
        cls = [types.get(sc.unit_defs[i].type, {}).get("cls", "") for i in ids]
        if sum(c in ("afv", "apc", "truck") for c in cls) > 1:
            errs.append(f"units: {side} sets up two vehicles in {h} (one allowed, 4.21)")
        sp = sum(int(types.get(sc.unit_defs[i].type, {}).get("sp", 0)) for i in ids)
        if sp > 16:
            errs.append(f"units: {side} sets up {sp} personnel stacking points in {h} (sixteen allowed, 4.31)")
    return errs
