"""Checks of an Advanced Tobruk scenario beyond its schema (pbem scenario lint):
every unit has a type with the data its class needs, set-up facings, holders,
and the special rules of side notes, artillery and limited intelligence
(``ssr``: batteries, registrations, hidden set-up, dummies, set-up areas,
minefields, command control, elite commanders, APCR, crews)."""
from __future__ import annotations

import re

from pbem.core.hexgrid import EDGES
from pbem.core.scenario import Scenario, problems_in
from pbem.games.advanced_tobruk.board import lint_perimeter
from pbem.games.advanced_tobruk.artillery.artillery import CALIBRES
from pbem.games.advanced_tobruk.board.facing import SPINES
from pbem.games.advanced_tobruk.tables.fire_ap_tables import HEAVY_TANK_MODIFIER, HEAVY_TANKS
from pbem.games.advanced_tobruk.notes.notes import HIDE_TERRAIN
from pbem.games.advanced_tobruk.schema import Gun
from pbem.games.advanced_tobruk.board.spotting import RANGES, SUP_FOW

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
        if "guns" in t:            # the fire package reads each gun's keys: a malformed one is refused here
            errs += [f"{where}: {msg}"
                     for where, msg in problems_in(t["guns"], list[Gun], f"game_data.types.{name}.guns")]
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
    errs += ssr(sc)
    errs += lint_perimeter.lint(sc)                  # 31.5-31.8, 33.7 the perimeter's ground
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


# --- scenario special rules (issue 14's [game_data] fields) -------------------------------------

FIRE_KINDS = ("concentration", "barrage", "rolling")    # 18.11, 18.731 the FFE kinds a battery may be given
SUPPLY = ("normal", "high", "low")                 # 18.224
VEHICLES = ("afv", "apc", "truck")


def ssr(sc: Scenario) -> list[str]:
    """The special-rule fields: every name they use exists, every count fits, every hex is on the map."""
    gd = sc.game_data
    errs = _artillery(sc, gd) + _registrations(sc, gd) + _hidden(sc, gd) + _dummies(sc, gd)
    errs += _areas(sc, gd) + _mines(sc, gd) + _afv_rules(sc, gd) + _crews(sc, gd)
    return errs


def _t(sc: Scenario, uid: str) -> dict:
    return sc.game_data.get("types", {}).get(sc.unit_defs[uid].type, {})


def _side_units(sc: Scenario, side: str, pred=lambda t: True) -> list[str]:
    return [u.id for u in sc.units if u.side == side and pred(_t(sc, u.id))]


def _bad_side(sc: Scenario, where: str, side: str) -> list[str]:
    return [] if side in sc.side_ids() else [f"{where}: {side!r} is not a side ({', '.join(sc.side_ids())})"]


def _hexes(sc: Scenario, where: str, hexes) -> list[str]:
    if not isinstance(hexes, list):
        return [f"{where}: a list of hexes"]
    errs = [f"{where}: {h!r} is not on the map" for h in hexes if not sc.board.grid.contains(str(h))]
    dup = sorted({h for h in hexes if hexes.count(h) > 1})
    return errs + ([f"{where}: {', '.join(dup)} listed twice"] if dup else [])


def _artillery(sc: Scenario, gd: dict) -> list[str]:
    """18.11 each off-board battery's SSR; 18.82 one forward observer counter per battery."""
    errs: list[str] = []
    for bid, b in gd.get("artillery", {}).items():
        w = f"game_data.artillery.{bid}"
        if bid in sc.unit_defs:
            errs.append(f"{w}: a battery id must not be a unit id (a battery has no counter, 18.01)")
        side = b.get("side", "")
        errs += _bad_side(sc, f"{w}.side", side)
        if side in sc.side_ids():
            nats = next(s.nationalities for s in sc.sides if s.id == side)
            if b.get("nation") and nats and b["nation"] not in nats:
                errs.append(f"{w}.nation: {b['nation']!r} is not a nationality of {side} ({', '.join(nats)})")
        gun = str(b.get("battery", ""))
        if gun not in CALIBRES and not re.fullmatch(r"\d+mm", gun):
            errs.append(f"{w}.battery: {gun!r}: the battery's gun, one of {', '.join(CALIBRES)} or a calibre "
                        "such as \"105mm\" (the artillery tables read it)")
        fire = b.get("fire", ["concentration"])
        for k in fire:
            if k not in FIRE_KINDS:
                errs.append(f"{w}.fire: {k!r} is not one of {', '.join(FIRE_KINDS)}")
        if ("barrage" in fire or "rolling" in fire) and int(gd.get("registrations", {}).get(bid, 0)) < 1:
            errs.append(f"{w}.fire: a barrage needs a registration hex (18.722, 18.731) and "
                        f"game_data.registrations.{bid} gives none")
        if "rolling" in fire and not b.get("rolling"):
            errs.append(f"{w}.rolling: a rolling barrage needs its line, direction, turns and hexes a turn (18.732)")
        for t in b.get("barrage_turns", []):
            if not 1 <= int(t) <= sc.turns:
                errs.append(f"{w}.barrage_turns: {t} is not a turn of the game (1..{sc.turns})")
        if b.get("barrage_turns") and "barrage" not in fire and "rolling" not in fire:
            errs.append(f"{w}.barrage_turns: the battery fires no barrage (fire = {fire})")
        if b.get("supply", "normal") not in SUPPLY:
            errs.append(f"{w}.supply: {b['supply']!r} is not one of {', '.join(SUPPLY)}")
    for side in sc.side_ids():
        n = sum(1 for b in gd.get("artillery", {}).values() if b.get("side") == side)
        fos = _side_units(sc, side, lambda t: bool(t.get("fo")))
        if len(fos) < n:
            errs.append(f"units: {side} has {n} off-board batteries but {len(fos)} forward observers "
                        "(18.82: one FO counter per battery)")
    return errs


def _registrations(sc: Scenario, gd: dict) -> list[str]:
    """18.52 batteries and on-board mortars, 18.54 other on-board weapons: a count each."""
    errs: list[str] = []
    first = next((p.side for p in sc.sequence if p.name == "setup"), "")
    for rid, n in gd.get("registrations", {}).items():
        w = f"game_data.registrations.{rid}"
        if not isinstance(n, int) or n < 1:
            errs.append(f"{w}: {n!r} registrations: a count of 1 or more")
        if rid in gd.get("artillery", {}):
            continue
        if rid not in sc.unit_defs:
            errs.append(f"{w}: no off-board battery or unit of that id")
        elif _t(sc, rid).get("cls") not in ("weapon", "afv"):
            errs.append(f"{w}: {rid} is a {_t(sc, rid).get('cls') or 'unit'}; only batteries, "
                        "mortars and on-board weapons register hexes (18.52, 18.54)")
        elif str(_t(sc, rid).get("kind", "")).upper() not in ("MORTAR", "MTR") and first and \
                sc.unit_defs[rid].side != first:
            errs.append(f"{w}: {rid} is a {sc.unit_defs[rid].side} on-board weapon: its registrations are "
                        f"recorded before the opponent sets up (18.54), but {first} sets up first (2.48)")
    return errs


def _hidden(sc: Scenario, gd: dict) -> list[str]:
    """32.2: hidden units are placed by their owner's side note, so the file gives them no hex."""
    errs: list[str] = []
    listed: set[str] = set()
    for side, ids in gd.get("hidden", {}).items():
        w = f"game_data.hidden.{side}"
        errs += _bad_side(sc, w, side)
        for uid in ids:
            if uid not in sc.unit_defs:
                errs.append(f"{w}: {uid!r} is no unit")
                continue
            u = sc.unit_defs[uid]
            listed.add(uid)
            if u.side != side:
                errs.append(f"{w}: {uid} is a {u.side} unit")
            if u.hex is not None or u.entry_turn != 0:
                errs.append(f"units[{uid}]: a hidden unit has no hex and entry_turn = 0 "
                            "(its set-up hex is its owner's side note, 32.22)")
            if "facing" in gd.get("units", {}).get(uid, {}) or "holder" in gd.get("units", {}).get(uid, {}):
                errs.append(f"game_data.units.{uid}: a hidden unit's facing and crew are side notes "
                            "(32.22, 9.12), not public data")
    cond = gd.get("conditions", "")
    if cond and (cond not in RANGES or cond == SUP_FOW):
        errs.append(f"game_data.conditions: {cond!r} is not a row of the Spotting Ranges Table (32.253: "
                    f"{', '.join(k for k in RANGES if k != SUP_FOW)})")
    if gd.get("hidden") and not gd.get("limited_intelligence"):
        errs.append("game_data.hidden: hidden set-up needs limited_intelligence = true (32)")
    for side, ids in gd.get("hidden", {}).items():
        area = gd.get("setup_area", {}).get(side) or sorted(sc.board.terrain)
        if ids and not any(sc.board.terrain.get(h) in HIDE_TERRAIN or sc.board.has(h, "pit") for h in area):
            errs.append(f"game_data.hidden.{side}: no hex of its set-up area hides a unit (scrub, rock-strewn, "
                        "palm grove, building or a weapon pit, 32.21, 31.31)")
    for u in sc.units:
        if u.hex is None and u.entry_turn == 0 and u.id not in listed:
            errs.append(f"units[{u.id}]: no hex at set-up but not in game_data.hidden (32.21)")
    return errs


def _dummies(sc: Scenario, gd: dict) -> list[str]:
    """32.24: the counters among which a side notes its dummies, and how many; nothing in the file may
    tell them apart (one type and one name)."""
    errs: list[str] = []
    for side, d in gd.get("dummies", {}).items():
        w = f"game_data.dummies.{side}"
        errs += _bad_side(sc, w, side)
        ids, n = d.get("counters", []), d.get("count", 0)
        if set(d) - {"counters", "count"}:
            errs.append(f"{w}: unknown key(s) {', '.join(sorted(set(d) - {'counters', 'count'}))} "
                        "(counters, count)")
        known = [u for u in ids if u in sc.unit_defs]
        errs += [f"{w}.counters: {u!r} is no unit" for u in ids if u not in sc.unit_defs]
        for u in known:
            if sc.unit_defs[u].side != side:
                errs.append(f"{w}.counters: {u} is a {sc.unit_defs[u].side} unit")
            t = _t(sc, u)
            if not (t.get("cls") in VEHICLES or (t.get("cls") == "weapon" and t.get("weight") == "H")):
                errs.append(f"{w}.counters: {u} is neither a heavy weapon nor a vehicle (32.241)")
        if not isinstance(n, int) or not 1 <= n <= len(ids):
            errs.append(f"{w}.count: {n!r}: 1 to {len(ids)} of the listed counters may be dummies")
        if len({sc.unit_defs[u].type for u in known}) > 1 or len({sc.unit_defs[u].name for u in known}) > 1:
            errs.append(f"{w}.counters: give them one type and one name, or the scenario file tells "
                        "the dummy apart")
    return errs


def _areas(sc: Scenario, gd: dict) -> list[str]:
    errs: list[str] = []
    for side, hexes in gd.get("setup_area", {}).items():
        errs += _bad_side(sc, f"game_data.setup_area.{side}", side)
        errs += _hexes(sc, f"game_data.setup_area.{side}", hexes)
    return errs


MINE_KEYS = ("factors", "hidden", "dummies", "area")
EMPLACEMENTS = set(lint_perimeter.EMPLACEMENTS)                # 31.2-31.8


def _mines(sc: Scenario, gd: dict) -> list[str]:
    """31.14 total density factors, 31.15/31.20 how many may be hidden, 31.191 dummies, the set-up area
    (31.13: no minefield in a hex with another field emplacement)."""
    errs: list[str] = []
    held = {h for h, fs in sc.board.features.items() if fs & EMPLACEMENTS}
    for side, m in gd.get("mines", {}).items():
        w = f"game_data.mines.{side}"
        errs += _bad_side(sc, w, side)
        errs += [f"{w}.{k}: unknown key ({', '.join(MINE_KEYS)})" for k in m if k not in MINE_KEYS]
        f, h, d = m.get("factors", 0), m.get("hidden", 0), m.get("dummies", 0)
        if not isinstance(f, int) or f < 1:
            errs.append(f"{w}.factors: {f!r}: the side's total of minefield density factors, 1 or more (31.14)")
        elif not isinstance(h, int) or not 0 <= h <= f:
            errs.append(f"{w}.hidden: {h!r} hidden minefields: 0 to {f} (each holds a factor or more, 31.15)")
        if not isinstance(d, int) or d < 0:
            errs.append(f"{w}.dummies: {d!r}: a count of dummy minefields, 0 or more (31.191)")
        area = m.get("area", [])
        if not area:
            errs.append(f"{w}.area: the hexes its minefields may be laid in are missing")
        errs += _hexes(sc, f"{w}.area", area)
        for hx in area:
            if hx in held:
                errs.append(f"{w}.area: {hx} holds a {'/'.join(sorted(sc.board.features[hx] & EMPLACEMENTS))}; a minefield may not share a hex with "
                            "another field emplacement (31.13)")
    return errs


def _afv_rules(sc: Scenario, gd: dict) -> list[str]:
    """24.01 command control and 24.07 elite commanders need the side's AFVs; 17.23 APCR modifiers."""
    errs: list[str] = []
    afvs = {s: _side_units(sc, s, lambda t: t.get("cls") == "afv") for s in sc.side_ids()}
    for i, side in enumerate(gd.get("command_control", [])):
        errs += _bad_side(sc, f"game_data.command_control[{i}]", side)
        if side in afvs and not afvs[side]:
            errs.append(f"game_data.command_control[{i}]: {side} has no AFV to command from (24.01)")
    for side, n in gd.get("elite", {}).items():
        errs += _bad_side(sc, f"game_data.elite.{side}", side)
        if side in afvs and not 1 <= n <= len(afvs[side]):
            errs.append(f"game_data.elite.{side}: {n} elite commanders for {len(afvs[side])} AFVs (24.07)")
    for side, mod in gd.get("apcr", {}).items():
        errs += _bad_side(sc, f"game_data.apcr.{side}", side)
        if side not in sc.side_ids():
            continue
        if not _side_units(sc, side, lambda t: any(g.get("alt") for g in t.get("guns", []))):
            errs.append(f"game_data.apcr.{side}: no {side} unit fires APCR or HEAT (17.22: alt on a gun)")
        heavy = [u.id for u in sc.units if u.side != side and any(
            k in f"{u.type} {u.name}".lower() for k in HEAVY_TANKS)]
        if heavy and mod < HEAVY_TANK_MODIFIER:
            errs.append(f"game_data.apcr.{side}: the enemy order of battle holds {', '.join(heavy)} "
                        f"(a Grant or Matilda): 17.23's modifier, +{HEAVY_TANK_MODIFIER} in our "
                        f"reconstructed table, and the card gives {mod:+d}")
    return errs


def _crews(sc: Scenario, gd: dict) -> list[str]:
    """9.12: before play every medium and heavy crew-served weapon gets a crew (by side note when the
    file gives it no holder), so the side needs a crew for each (dummies excepted)."""
    errs: list[str] = []
    held = {x.get("holder") for x in gd.get("units", {}).values() if x.get("holder")}
    for side in sc.side_ids():
        weapons = [u for u in _side_units(sc, side, lambda t: t.get("cls") == "weapon"
                                          and t.get("weight") in ("M", "H"))
                   if "holder" not in gd.get("units", {}).get(u, {})]
        crews = [u for u in _side_units(sc, side, lambda t: t.get("cls") == "crew") if u not in held]
        dummies = int(gd.get("dummies", {}).get(side, {}).get("count", 0) or 0)
        if len(crews) < len(weapons) - dummies:
            errs.append(f"units: {side} has {len(weapons)} crew-served weapons without a holder "
                        f"({', '.join(weapons)}) but {len(crews)} free crews (9.12)")
    return errs
