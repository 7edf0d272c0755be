"""Scenario checks for the perimeter's ground (pbem scenario lint; lint.py calls ``lint``):
field emplacements one to a hex and never two kinds together (31.22-31.23, 31.32, 31.72,
31.82), no vehicle set up in an anti-tank trench nor a wheeled one in wire (31.73, 31.83),
units set up under cover only where there is cover and a bunker not overfilled (31.52,
31.53), wadi positions (33.74) and wadi ends (33.71) where the wadi is."""
from __future__ import annotations

from pbem.core.hexgrid import DIRECTIONS
from pbem.core.scenario import Scenario
from pbem.games.advanced_tobruk.board import ground

EMPLACEMENTS = ("pit", "hedgehog", "sangar", "bunker", "blockhouse", "trench", "wire")   # 31.2-31.8
VEHICLES = ("afv", "apc", "truck")
SP = {"squad": 3, "crew": 2, "leader": 1}


def lint(sc: Scenario) -> list[str]:
    errs: list[str] = []
    gd = sc.game_data
    types = gd.get("types", {})
    extras = gd.get("units", {})
    for h, fs in sorted(sc.board.features.items()):
        kinds = sorted(set(fs) & set(EMPLACEMENTS))
        if len(kinds) > 1:
            errs.append(f"map.features: {h} holds {' and '.join(kinds)}: one field emplacement to a hex, never two "
                        f"kinds together (31.23, 31.32, 31.72, 31.82)")
        if ground.WADI_END in fs and sc.board.terrain.get(h) != ground.WADI:
            errs.append(f"map.features.wadi-end: {h} is no wadi hex (33.71: the end of a wadi)")
    inside: dict[str, list[str]] = {}
    for u in sc.units:
        t = types.get(u.type, {})
        c, x = t.get("cls", ""), extras.get(u.id, {})
        if not u.hex:
            continue
        feats = sc.board.features.get(u.hex, set())
        if c in VEHICLES and "trench" in feats:
            errs.append(f"units.{u.id}: a vehicle may not set up in the anti-tank trench in {u.hex} (31.73)")
        if c in VEHICLES and "wire" in feats and t.get("motion") not in ("tracked", "halftrack"):
            errs.append(f"units.{u.id}: a wheeled vehicle may not set up in the wire in {u.hex} (31.83)")
        if x.get("full"):
            kinds = set(feats) & {"bunker", "trench", "hedgehog", "pit"}
            if c not in SP:
                errs.append(f"game_data.units.{u.id}.full: only personnel set up under cover (31.02, 31.261)")
            elif not kinds and sc.board.terrain.get(u.hex) != ground.WADI:
                errs.append(f"game_data.units.{u.id}.full: {u.hex} has no hedgehog, weapon pit, trench, bunker or "
                            f"wadi to be under (31.25, 31.34, 31.53, 31.74, 33.73)")
            elif "bunker" in kinds:
                inside.setdefault(u.hex, []).append(u.id)
        if "rim" in x:
            errs += _rim(sc, u.id, u.hex, str(x["rim"]).upper(), t)
    for h, ids in sorted(inside.items()):
        sp = sum(SP[types[sc.unit_defs[i].type]["cls"]] for i in ids)
        held = [w for w, x in extras.items() if x.get("holder") in ids
                and types.get(sc.unit_defs[w].type, {}).get("weight") in ("M", "H")]
        if sp > 3 or len(held) > 1:
            errs.append(f"game_data.units: the bunker in {h} holds {'+'.join(ids)} ({sp} stacking points) and "
                        f"{len(held)} medium or heavy weapons: three stacking points or one such weapon and its "
                        f"crew (31.52)")
    return errs


def _rim(sc: Scenario, uid: str, h: str, d: str, t: dict) -> list[str]:
    """33.74: a set-up in a wadi's GOOD position."""
    w = f"game_data.units.{uid}.rim"
    if sc.board.terrain.get(h) != ground.WADI:
        return [f"{w}: {h} is no wadi hex (33.74)"]
    if d not in DIRECTIONS:
        return [f"{w}: {d!r} is not a hexside direction ({' '.join(DIRECTIONS)})"]
    if DIRECTIONS.index(d) in ground.wadi_dirs(sc, h):
        return [f"{w}: the wadi crosses the {d} hexside of {h}: the marker points to a dry hexside (33.74)"]
    if t.get("cls") in VEHICLES and not (t.get("cls") == "afv" and t.get("turret")):
        return [f"{w}: only turreted AFVs among vehicles take a wadi's GOOD position (33.74)"]
    return []
