"""Checks of a Crete scenario beyond its schema (pbem scenario lint): the maps and the
offmap columns between them (2.1), the transit tracks on roads (2.2, 7.0), the airfields
and Suda (12.2), the Scatter Table (5.9), the two Combat Results Tables (9.4-9.6), the
air units (11.0), the forces (1.2, 5.0, 6.0) and the default set-up and drops."""
from __future__ import annotations

from pbem.core.scenario import Scenario
from pbem.games.crete.airborne import read_plan
from pbem.games.crete.board import gd, land, map_of, stack_limit
from pbem.games.crete.odds import RESULTS
from pbem.games.crete.state import CW, GERMAN


def scenario_errors(sc: Scenario) -> list[str]:
    """Every problem of the scenario's Crete data, a line each."""
    errs: list[str] = []
    g = gd(sc)
    grid = sc.board.grid
    for key in ("maps", "tracks", "scatter_table", "limited", "air", "airfields", "suda", "scatter_directions"):
        if key not in g:
            errs.append(f"game_data.{key}: missing")
    if errs:
        return errs
    maps = g["maps"]
    ranges = sorted((m["first_col"], m["last_col"], k) for k, m in maps.items())
    for (a0, a1, ka), (b0, b1, kb) in zip(ranges, ranges[1:]):
        if b0 <= a1 + 1:
            errs.append(f"game_data.maps: {ka} and {kb} need at least one offmap column between them")
    for h in grid.all_hexes():
        col = int(h[:2])
        inside = any(m["first_col"] <= col <= m["last_col"] for m in maps.values())
        off = sc.board.terrain.get(h) == "offmap"
        if inside == off:
            errs.append(f"map: hex {h} is {'offmap inside a map' if off else 'outside every map but not offmap'}")
            break
    for i, t in enumerate(g["tracks"]):
        ma, mb = map_of(sc, t.get("a")), map_of(sc, t.get("b"))
        if ma is None or mb is None or ma == mb:
            errs.append(f"game_data.tracks[{i}]: a and b must be hexes of two different maps")
            continue
        for end in (t["a"], t["b"]):
            if not any("road" in sc.board.side_features(end, n) for n in grid.neighbours(end)):
                errs.append(f"game_data.tracks[{i}]: {end} is not on a road (7.0)")
    for h in g["airfields"]:
        if sc.board.terrain.get(h) != "airfield":
            errs.append(f"game_data.airfields: {h} is not an airfield hex")
    if sc.board.terrain.get(g["suda"]) != "town":
        errs.append(f"game_data.suda: {g['suda']} is not a town hex")
    st = g["scatter_table"]
    for d in range(1, sc.die + 1):
        row = st["rows"].get(str(d))
        if row is None or len(row) != len(st["columns"]) or any(r not in ("Ac", "Sc") for r in row):
            errs.append(f"game_data.scatter_table.rows[{d}]: needs {len(st['columns'])} of Ac/Sc")
    for t, c in st["terrain"].items():
        if c not in st["columns"]:
            errs.append(f"game_data.scatter_table.terrain.{t}: unknown column {c!r}")
    for t, tt in sc.terrain.items():
        if not tt.impassable and t not in st["terrain"]:
            errs.append(f"game_data.scatter_table.terrain: no column for terrain {t!r}")
    dirs = g["scatter_directions"]
    if sorted(dirs) != sorted(["N", "NE", "SE", "S", "SW", "NW"]):
        errs.append("game_data.scatter_directions: six directions N NE SE S SW NW, one per die roll")
    lim = g["limited"]
    if lim.get("columns") != sc.crt.columns:
        errs.append("game_data.limited.columns: must match crt.columns (1:3 ... 7:1)")
    for d in range(1, sc.die + 1):
        row = lim["rows"].get(str(d))
        if row is None or len(row) != len(sc.crt.columns) or any(r not in RESULTS for r in row):
            errs.append(f"game_data.limited.rows[{d}]: needs {len(sc.crt.columns)} results of {sorted(RESULTS)}")
    if sc.crt.columns != ["1:3", "1:2", "1:1"] + [f"{n}:1" for n in range(2, 8)]:
        errs.append("crt.columns: must be 1:3, 1:2, 1:1, 2:1 ... 7:1 (9.4)")
    air = g["air"]
    if len(air) != 7 or len({a["id"] for a in air}) != 7:
        errs.append("game_data.air: seven air units with distinct ids (11.0)")
    kinds = {"airborne": 0, "mountain": 0}
    ncw = 0
    for u in sc.units:
        if u.side not in (GERMAN, CW):
            errs.append(f"units[{u.id}]: side must be german or commonwealth")
        if u.side == GERMAN:
            if u.type not in kinds:
                errs.append(f"units[{u.id}]: German units are airborne or mountain")
            else:
                kinds[u.type] += 1
        else:
            ncw += 1
    if kinds["airborne"] != 13:
        errs.append(f"units: {kinds['airborne']} airborne units, 5.0 gives 13")
    if kinds["mountain"] != 12:
        errs.append(f"units: {kinds['mountain']} mountain units, 6.0 gives 12")
    if ncw != 43:
        errs.append(f"units: {ncw} Commonwealth units, 1.2 gives 43")
    setup = g.get("default_setup", {})
    count: dict[str, int] = {}
    for uid, h in setup.items():
        if uid not in sc.unit_defs or sc.unit_defs[uid].side != CW:
            errs.append(f"game_data.default_setup.{uid}: not a Commonwealth unit")
        elif not land(sc, h):
            errs.append(f"game_data.default_setup.{uid}: {h} is not a land hex of a map")
        count[h] = count.get(h, 0) + 1
        if count[h] > stack_limit(sc):
            errs.append(f"game_data.default_setup: more than {stack_limit(sc)} units in {h}")
    for m, hs in g.get("default_drops", {}).items():
        if m == "default_plan":
            _, err = read_plan(sc, hs) if isinstance(hs, str) else ({}, "write the plan as text")
            if err:
                errs.append(f"game_data.default_drops.default_plan: {err}")
            continue
        if m not in maps or isinstance(hs, str):
            errs.append(f"game_data.default_drops.{m}: a list of hexes for one of the maps {', '.join(maps)}")
            continue
        for h in hs:
            if map_of(sc, h) != m or not land(sc, h):
                errs.append(f"game_data.default_drops.{m}: {h} is not a land hex of that map")
    for hs in sc.map.hexsides:
        if hs.feature not in ("road", g.get("sea_hexside", "sea")):
            errs.append(f"map.hexsides: feature {hs.feature!r} is not one the Crete rules know")
    return errs
