"""pbem scenario lint for Eben Emael: the charts (5.9, 7.9), the fortifications
and their fields of fire (9.0-9.5), the map's hexsides and terrain (4.9) and
the reinforcements (10.0)."""
from __future__ import annotations

from pbem.core.hexgrid import DIRECTIONS
from pbem.core.scenario import Scenario
from pbem.games.eben_emael.board import (ASSAULT_RESULTS, BELGIAN, FIRE_RESULTS, FORT_TYPES, GERMAN,
                                         HEXSIDE_FEATURES, fort_info, forts, gd)


def lint(sc: Scenario) -> list[str]:
    """What is wrong with an Eben Emael scenario beyond its schema: tables, forts, hexsides."""
    errs: list[str] = []
    data = gd(sc)
    fs = forts(sc)
    for key in ("effectiveness", "demolition", "fire_rows", "close_assault", "forts", "victory_forts"):
        if key not in data:
            errs.append(f"game_data.{key}: missing")
    if errs:
        return errs
    for nat in ("german", "belgian"):
        if not isinstance(data["effectiveness"].get(nat), int):
            errs.append(f"game_data.effectiveness.{nat}: an Effectiveness Rating (integer) is needed")
    cols = sc.crt.columns
    for want in ("Cupola", "1", "2", "3", "German", "Belgian"):
        if want not in cols:
            errs.append(f"crt.columns: no column {want!r} (5.9)")
    for d in range(-1, 9):
        row = data["fire_rows"].get(str(d)) if str(d) not in sc.crt.rows else sc.crt.rows[str(d)]
        if row is None:
            errs.append(f"fire CRT: no row for modified die {d} (crt.rows or game_data.fire_rows)")
        elif len(row) != len(cols) or any(r not in FIRE_RESULTS for r in row):
            errs.append(f"fire CRT row {d}: needs {len(cols)} results from {sorted(FIRE_RESULTS)}")
    ca = data["close_assault"]
    if ca.get("columns") != ["0", "+1", "+2", "+3", "+4", "+5"]:
        errs.append("game_data.close_assault.columns: must be 0, +1 .. +5 (7.0)")
    for d in range(1, 9):
        row = ca.get("rows", {}).get(str(d))
        if row is None or len(row) != 6 or any(r not in ASSAULT_RESULTS for r in row):
            errs.append(f"game_data.close_assault.rows[{d}]: six results from De, Ae, -")
    for h, info in data["forts"].items():
        if h not in fs:
            errs.append(f"game_data.forts.{h}: no fortification unit in that hex")
        for d in info.get("arrows", []):
            if d not in DIRECTIONS:
                errs.append(f"game_data.forts.{h}.arrows: {d!r} is not a direction {DIRECTIONS}")
    for h, fid in fs.items():
        t = sc.unit_defs[fid].type
        if t == "casemate" and not fort_info(sc, h).get("arrows"):
            errs.append(f"units[{fid}]: a casemate needs its field of fire in game_data.forts.{h}.arrows (9.3)")
        if t == "casemate" and not 1 <= sc.unit_defs[fid].strength <= 3:
            errs.append(f"units[{fid}]: a casemate's strength is 1, 2 or 3 (9.1)")
    for h in data["victory_forts"] + data.get("never_dummy", []):
        if h not in fs:
            errs.append(f"game_data: {h} is not a fortification hex")
    cupolas = [h for h, fid in fs.items() if sc.unit_defs[fid].type == "cupola"]
    if len([h for h in cupolas if h not in data.get("never_dummy", [])]) < 2:
        errs.append("fewer than two cupolas may be dummies (9.5)")
    for i, hs in enumerate(sc.map.hexsides):
        if hs.feature not in HEXSIDE_FEATURES:
            errs.append(f"map.hexsides[{i}]: unknown feature {hs.feature!r}")
        if hs.feature == "slope" and hs.up not in (hs.a, hs.b):
            errs.append(f"map.hexsides[{i}]: a slope needs up = one of its two hexes")
    for name in sc.terrain:
        if name not in ("clear", "woods", "building", "hilltop", "canal"):
            errs.append(f"terrain.{name}: not a terrain of the Eben Emael chart (4.9)")
    for r in data.get("reinforcements", []):
        for uid in r.get("units", []):
            d = sc.unit_defs.get(uid)
            if d is None or d.side != BELGIAN or d.entry_turn != r.get("turn"):
                errs.append(f"game_data.reinforcements: {uid} is not a Belgian unit entering on turn {r.get('turn')}")
        if r.get("via") not in ("edge", "fortification"):
            errs.append("game_data.reinforcements: via must be edge or fortification (10.2, 10.3)")
    for u in sc.units:
        if u.type not in FORT_TYPES and u.hex is not None and u.hex in fs and u.side == GERMAN:
            errs.append(f"units[{u.id}]: German units may not start in a fortification (4.8)")
    return errs
