"""Checks of a Red Devils scenario's data beyond its schema (pbem scenario lint):
costs (4.9), entry hexes (10.1), drop zones (9.0, 9.1), the set-up (1.1, 1.2),
the Polish brigade (9.7), command points (8.5), the Air Landing Table (9.9)."""
from __future__ import annotations

from pbem.core.scenario import Printed, Scenario
from pbem.games.red_devils.airborne import landing_hexes
from pbem.games.red_devils.terrain import FERRY, MINOR, RAIL_BRIDGE, RIJN, ROADS, entry_letter, gd, info
from pbem.mechanics.pathcost import is_mp


def lint(sc: Scenario) -> list[str]:
    errs: list[str] = []
    data = gd(sc)
    on = sc.board.grid.contains

    def hexes(where: str, hs) -> None:
        for h in hs:
            if not on(h):
                errs.append(f"game_data.{where}: hex {h} is not on the map")

    for key in ("move_costs", "road_costs", "units", "entry_hexes", "command_points", "vp_hexes",
                "vp_special", "mechanized_types"):
        if key not in data:
            errs.append(f"game_data.{key}: missing")
    for t in sc.terrain:
        if t not in data.get("move_costs", {}):
            errs.append(f"game_data.move_costs: no costs for terrain {t!r} (4.9)")
    for t, pair in {**data.get("move_costs", {}), **data.get("road_costs", {})}.items():
        if len(pair) != 2 or any(c != "P" and not is_mp(c) for c in pair):
            errs.append(f"game_data costs for {t!r}: need [mechanized, non-mechanized] as fractions or 'P'")
    for letter, hs in data.get("entry_hexes", {}).items():
        hexes(f"entry_hexes.{letter}", hs)
    hexes("vp_hexes", data.get("vp_hexes", []))
    hexes("vp_special", data.get("vp_special", []))
    if len(data.get("airlanding_table", [])) != 8:
        errs.append("game_data.airlanding_table: eight results, for modified rolls -1 up to 6 (9.9)")
    cps = data.get("command_points", [])
    if len(cps) < sc.turns:
        errs.append(f"game_data.command_points: {len(cps)} entries for {sc.turns} turns (8.5)")
    ids = set(sc.unit_defs)
    for uid, unit in data.get("units", {}).items():
        if uid not in ids:
            errs.append(f"game_data.units.{uid}: no such unit")
            continue
        hexes(f"units.{uid}.drop_zones", unit.get("drop_zones", []))
        ent = unit.get("entry", "")
        if ent and not (ent in data.get("entry_hexes", {}) or entry_letter(sc, ent)):
            errs.append(f"game_data.units.{uid}.entry: {ent!r} is neither an entry letter nor an entry hex (10.1)")
    for u in sc.units:
        unit = info(sc, u.id)
        if u.side == "british" and u.hex is None and u.id not in data.get("polish_units", []):
            dzs = unit.get("drop_zones", [])
            if not dzs:
                errs.append(f"units[{u.id}]: a British reinforcement needs drop_zones (9.0)")
            for dz in dzs:
                if on(dz) and len(landing_hexes(sc, dz, ignore_units=True)) < 1:
                    errs.append(f"units[{u.id}]: drop zone {dz} has no valid landing hex within three (9.1)")
        if u.side == "german" and u.hex is None and not unit.get("entry"):
            errs.append(f"units[{u.id}]: a German reinforcement needs an entry hex or letter (10.0)")
    # the printed order of battle: a variant may differ (Printed, a note at `pbem new`)
    first = [u for u in sc.units if u.side == "british" and u.entry_turn == 1]
    if len(first) != 14:
        errs.append(Printed(f"units: {len(first)} British units land on turn 1; 1.2 gives fourteen"))
    start = [u for u in sc.units if u.side == "german" and u.hex is not None]
    if len(start) != 4:
        errs.append(Printed(f"units: {len(start)} German units start on the map; 1.1 gives four"))
    if len(data.get("polish_units", [])) != 4:
        errs.append(Printed("game_data.polish_units: 9.7 gives four Polish units"))
    for name in sc.map.features:
        if name not in ("road",):
            errs.append(f"map.features.{name}: not a feature the Red Devils rules know")
    known = {RIJN, MINOR, RAIL_BRIDGE, FERRY, *ROADS}
    for i, hs in enumerate(sc.map.hexsides):
        if hs.feature not in known:
            errs.append(f"map.hexsides[{i}]: unknown feature {hs.feature!r}")
    return errs
