"""Checks of a Formation Series scenario's data beyond its schema (pbem scenario lint):
every hex named is on the map, every unit belongs to a formation with an HQ (or is
static, 3.2.1), every table is complete (Action Points Table 6.4.1, TEC, CRT 7.4.1.2,
initiative ties 6.1, victory ranges 16), and every value the rulebook text does not
print carries its ``reconstructed`` mark (a missing mark is a difference from the printed
game, ``Printed``: ``pbem new`` accepts it).  The schema has typed every key already."""
from __future__ import annotations

import re

from pbem.core.scenario import Printed, Scenario
from pbem.games.formation.crt import LADDER, headings
from pbem.core.state import UnitState
from pbem.games.formation.board import over_limit, stacking_count

SIDES = ("axis", "allied")
HEXSIDE_FEATURES = ("ridge", "wadi")       # 3.1.2 / 13.2.2 as this game uses them
HEX_FEATURES = ("road", "trail")           # 3.1.1 / 13.2.1
_RESULT = re.compile(r"^[0-9]+\*?/[0-9]+\*?\Z")


def lint(sc: Scenario) -> list[str]:
    errs: list[str] = []
    gd, vic = sc.tables.data, sc.tables.victory
    on = sc.board.grid.contains
    defs = sc.unit_defs

    def hexes(where: str, hs) -> None:
        for h in hs:
            if not on(h):
                errs.append(f"{where}: hex {h} is not on the map")

    # --- hexes named by the data -------------------------------------------------------
    for side, hs in gd.supply_sources.items():
        hexes(f"game_data.supply_sources.{side}", hs)
    hexes("game_data.bardia", gd.bardia)
    hexes("game_data.no_reinforcement", gd.no_reinforcement)
    hexes("game_data.strongpoints", gd.strongpoints)
    for i, r in enumerate(gd.reinforcements):
        hexes(f"game_data.reinforcements[{i}].entry", r.entry)
    for i, s in enumerate(gd.substitutes):
        if s.entry:
            hexes(f"game_data.substitutes[{i}].entry", [s.entry])
    for i, v in enumerate(vic.hexes):
        hexes(f"victory.hexes[{i}]", [v.hex])
    for i, v in enumerate(vic.hold):
        hexes(f"victory.hold[{i}]", [v.hex])
    for key in ("stacking", "supply_sources", "friendly_edges"):     # 13.1.3, 3.1.5, 13.2.3
        for side in SIDES:
            if side not in getattr(gd, key):
                errs.append(f"game_data.{key}.{side}: missing (the rules read it for each side)")

    # --- formations and units (3.2, 3.3, 5.5) ---------------------------------------------
    forms = gd.formations
    rows = gd.units
    hq_ids: dict[str, str] = {}
    for fid, f in forms.items():
        for key in ("hq", "substitute_hq"):
            hid = getattr(f, key)
            if not hid:
                continue
            u = defs.get(hid)
            if u is None:
                errs.append(f"game_data.formations.{fid}.{key}: no unit {hid!r}")
                continue
            if u.type != "hq":
                errs.append(f"units[{hid}]: the HQ of formation {fid} needs type = \"hq\"")
            if u.side != f.side:
                errs.append(f"units[{hid}]: side {u.side}, its formation {fid} is {f.side}")
            if u.strength != f.support:
                errs.append(f"units[{hid}]: strength {u.strength} is not the formation's support {f.support} (3.3 g)")
            hq_ids[hid] = fid
        if not f.start_level <= f.max_level:
            errs.append(f"game_data.formations.{fid}: start_level must lie between 0 and max_level (9.1.1)")
        if not f.reconstructed:
            errs.append(Printed(f"game_data.formations.{fid}: the text prints no HQ counter or FA marker: "
                                "mark it reconstructed"))
    members: dict[str, int] = {}
    for u in sc.units:
        where = f"units[{u.id}]"
        if u.id in hq_ids:
            continue
        if u.type == "hq":
            errs.append(f"{where}: an HQ no formation names as its hq or substitute_hq")
            continue
        row = rows.get(u.id)
        if row is None:
            errs.append(f"{where}: no [game_data.units.{u.id}] row (formation, ratings)")
            continue
        fid = row.formation
        static = row.static or row.category == "static"
        if not fid:
            if not static:
                errs.append(f"{where}: no formation; only a static unit has none (3.2.1)")
        elif fid not in forms:
            errs.append(f"{where}: formation {fid!r} is not in [game_data.formations]")
        else:
            members[fid] = members.get(fid, 0) + 1
            if forms[fid].side != u.side:
                errs.append(f"{where}: side {u.side}, its formation {fid} is {forms[fid].side}")
            if static:
                errs.append(f"{where}: a static unit belongs to no formation (3.2.1)")
        if u.type != row.category:
            errs.append(f"{where}: type {u.type!r} differs from its category {row.category!r}")
        if not row.er_disrupted < row.er:
            errs.append(f"{where}: the disrupted Effectiveness Rating must be lower (5.6.3)")
        if row.tank and row.at and row.category != "armoured-car":
            errs.append(f"{where}: Tank Points or Anti-Tank Points, not both (3.2 g)")
        if sc.units_reconstructed and not row.reconstructed:
            errs.append(Printed(f"game_data.units.{u.id}: reconstructed counter not marked reconstructed"))
    errs += _setup_stacks(sc, hq_ids)
    for uid in rows:
        if uid not in defs:
            errs.append(f"game_data.units.{uid}: no such unit")
        elif uid in hq_ids:
            errs.append(f"game_data.units.{uid}: an HQ's ratings belong in its formation row")
    for fid in forms:
        if not members.get(fid):
            errs.append(f"game_data.formations.{fid}: no combat unit belongs to it")

    # --- reinforcements and substitutes (9.4, 14) ---------------------------------------------
    listed: dict[str, int] = {}
    for i, r in enumerate(gd.reinforcements):
        for uid in r.units:
            listed[uid] = r.turn
            u = defs.get(uid)
            if u is not None and (u.entry_turn != r.turn or u.side != r.side):
                errs.append(f"game_data.reinforcements[{i}]: {uid} has entry_turn {u.entry_turn}, side {u.side}")
            if set(r.entry) & set(gd.no_reinforcement):
                errs.append(f"game_data.reinforcements[{i}].entry: a hex no reinforcement may use (14.1)")
    subs = {s.hq: s for s in gd.substitutes}
    for i, s in enumerate(gd.substitutes):
        f = forms.get(s.formation)
        if f is None:
            errs.append(f"game_data.substitutes[{i}]: no formation {s.formation!r}")
        elif f.substitute_hq != s.hq:
            errs.append(f"game_data.substitutes[{i}]: formation {s.formation} names substitute_hq "
                        f"{f.substitute_hq!r}, not {s.hq!r}")
    for u in sc.units:
        if u.hex is None and u.id not in listed and u.id not in subs:
            errs.append(f"units[{u.id}]: enters on turn {u.entry_turn} but no [[game_data.reinforcements]] lists it")

    # --- tables -----------------------------------------------------------------------
    ap = gd.ap_table
    top = max((f.max_level for f in forms.values()), default=0)   # 9.1.1: never above it
    for colour in ("black", "red"):
        table = getattr(ap, colour)
        for level in range(1, top + 1):
            vals = table.get(str(level))
            if vals is None:
                errs.append(f"game_data.ap_table.{colour}: no column for activation level {level} (6.4.1)")
            elif len(vals) != 10:
                errs.append(f"game_data.ap_table.{colour}[{level}]: {len(vals)} values, one per d10 result needed")
            elif colour == "black" and not all(1 <= v <= 7 for v in vals):
                errs.append(f"game_data.ap_table.black[{level}]: values lie between 1 and 7 (6.4.1)")
            elif colour == "red" and any(r > b for r, b in zip(vals, ap.black.get(str(level), vals))):
                errs.append(f"game_data.ap_table.red[{level}]: a reaction gets no more APs than an activation")
    if not ap.reconstructed:
        errs.append(Printed("game_data.ap_table: the text prints no Action Points Table: mark it reconstructed"))
    tec = gd.tec
    for t in sc.terrain:
        if t not in tec:
            errs.append(f"game_data.tec: no row for terrain {t!r}")
        elif not tec[t].reconstructed:
            errs.append(Printed(f"game_data.tec.{t}: the text prints no TEC: mark it reconstructed"))
        if not sc.terrain[t].impassable and t not in gd.crt_odds:
            errs.append(f"game_data.crt_odds: no odds headings for terrain {t!r}")
    ncol = len(sc.crt.columns)
    for t, first in gd.crt_odds.items():
        if t not in sc.terrain:
            errs.append(f"game_data.crt_odds.{t}: not a terrain of [terrain]")
        try:
            headings(first, ncol)
        except ValueError as e:
            errs.append(f"game_data.crt_odds.{t}: {first!r}: {e if first in LADDER else 'not a ratio of ' + ', '.join(LADDER)}")
    for d in range(1, 21):       # 7.4.1.4: modified rolls run 1..20
        row = sc.crt.rows.get(str(d))
        if row is None:
            errs.append(f"crt.rows: no row for modified roll {d} (7.4.1.4)")
            continue
        for r in row:
            if not _RESULT.match(r):
                errs.append(f"crt.rows[{d}]: result {r!r} is not hits/hits with * for red")
    if not sc.crt.reconstructed:
        errs.append(Printed("crt: the text prints one CRT result only: mark the table reconstructed"))
    for key in ("road", "trail"):
        if not getattr(gd, key).reconstructed:
            errs.append(Printed(f"game_data.{key}: the text prints no road rates: mark it reconstructed"))
    used = {hs.feature for hs in sc.map.hexsides}
    for feat in used:
        if feat not in HEXSIDE_FEATURES:
            errs.append(f"map.hexsides: unknown feature {feat!r} (known: {', '.join(HEXSIDE_FEATURES)})")
        elif feat not in gd.hexside_cost:
            errs.append(f"game_data.hexside_cost: no costs for {feat!r}")
    for name, row in gd.hexside_cost.items():
        if not row.reconstructed:
            errs.append(Printed(f"game_data.hexside_cost.{name}: mark it reconstructed"))
    for name in sc.map.features:
        if name not in HEX_FEATURES:
            errs.append(f"map.features.{name}: not a feature these rules know ({', '.join(HEX_FEATURES)})")
    for h, sp in gd.strongpoints.items():
        if not sp.reconstructed:
            errs.append(Printed(f"game_data.strongpoints.{h}: the text places no strongpoint: mark it reconstructed"))
    if not sc.map.reconstructed:
        errs.append(Printed("map: the text prints no map: mark it reconstructed"))
    for t, row in sc.terrain.items():
        if not row.reconstructed:
            errs.append(Printed(f"terrain.{t}: mark it reconstructed"))
    sp_setup = gd.schwerpunkt.setup
    if sp_setup and not gd.schwerpunkt.reconstructed:
        errs.append(Printed("game_data.schwerpunkt: the text gives no set-up chart: mark it reconstructed"))
    if sp_setup and sp_setup not in forms:
        errs.append(f"game_data.schwerpunkt.setup: no formation {sp_setup!r}")
    for t, owner in gd.schwerpunkt.turns.items():
        if not t.isdigit() or owner not in (*SIDES, "none"):
            errs.append(f"game_data.schwerpunkt.turns[{t}]: a turn number owned by axis, allied or none (9.2)")
    if not sc.reconstructed:
        errs.append(Printed("reconstructed: list every reconstructed item for the README"))

    # --- initiative and victory (6.1, 16) ---------------------------------------------------
    covered = [0] * (sc.turns + 1)
    for tie in gd.initiative_ties:
        for t in range(tie.from_turn, tie.to_turn + 1):
            if 1 <= t <= sc.turns:
                covered[t] += 1
    for t in range(1, sc.turns + 1):
        if covered[t] != 1:
            errs.append(f"game_data.initiative_ties: turn {t} is covered {covered[t]} times, once is needed")
    if gd.initiative_track[0] != 2:
        errs.append("game_data.initiative_track: its first space is +2 (6.1)")
    if vic.kind == "points":
        ranges = vic.ranges
        want = [f"gt{n}" for n in range(1, sc.turns + 1)]
        if sorted(ranges) != sorted(want):
            errs.append(f"victory.ranges: one range per game turn, keyed {want[0]}..{want[-1]}")
        for key, r in ranges.items():
            if len(r) != 2 or r[0] > r[1]:
                errs.append(f"victory.ranges.{key}: [low, high] with low <= high")
        if not vic.hexes:
            errs.append("victory.hexes: no victory hexes")
    else:
        for i, h in enumerate(vic.hold):
            if not 1 <= h.turn <= sc.turns:
                errs.append(f"victory.hold[{i}]: turn {h.turn} is not a game turn")
    return errs


def _setup_stacks(sc: Scenario, hq_ids: dict[str, str]) -> list[str]:
    """5.3.1 / 13.1.3 at set-up: stacking limits per side, one HQ per hex."""
    gd = sc.tables.data
    by_hex: dict[tuple[str, str], list[UnitState]] = {}
    for u in sc.units:
        if u.hex is not None:
            by_hex.setdefault((u.hex, u.side), []).append(UnitState(id=u.id, side=u.side, hex=u.hex, strength=u.strength, ma=u.ma))
    errs = []
    for (h, side), units in sorted(by_hex.items()):
        if sum(1 for u in units if u.id in hq_ids) > 1:
            errs.append(f"units: two HQs set up in {h} (5.3.3)")
        over = over_limit(stacking_count(sc, units), gd.stacking.get(side))
        if over:
            errs.append(f"units: the {side} set-up stack in {h} is over the stacking limit ({', '.join(over)}; 13.1.3)")
    return errs

