#!/usr/bin/env python3
"""Write the four Mirages '40 '41 scenario files from one description.

The scenario loader reads one self-contained TOML file per scenario, but the
game has ONE map for its four scenarios (designer's notes, 17).  This script
holds that map, the shared charts and the four orders of battle, and writes
scenarios/mirages-{compass,brevity,skorpion,battleaxe}.toml.  Run it after any
change:  python scenarios/mirages_gen.py   (tests/test_formation_data.py
checks the files are what it writes).

What the rulebook text gives is marked "printed"; everything else is a
reconstruction (the map, every counter, the TEC, the Action Points Table, the
Formation Activation markers, the CRT of pbem/games/formation/crt.py) and is
marked "reconstructed" in the files.
"""
from __future__ import annotations

import sys
from functools import cache
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from pbem.core.hexgrid import Grid  # noqa: E402
from pbem.games.formation.crt import COLUMNS, DEFAULT_ODDS, DEFAULT_ROWS  # noqa: E402

# --- the map (reconstructed) ----------------------------------------------------------
# Columns run west to east, rows north to south; hexes the text names are placed
# exactly: 1703 Bardia, 2009 Sollum, 2011 Halfaya Pass, 1609 Ridotta Capuzzo,
# 3212 Buq Buq, 4308 Sidi Barrani, 1612 Point 206, 1410 Point 208, 1001 and 1400
# (Axis entry hexes on the north edge, toward Tobruk).
FIRST_COL, LAST_COL, FIRST_ROW, LAST_ROW = 8, 48, 0, 17
OFFSET = "even-down"
GRID = Grid(FIRST_COL, LAST_COL, FIRST_ROW, LAST_ROW, OFFSET)


def first_land(c: int) -> int:
    """The first land row of column c: the coastline of the Gulf of Sollum."""
    table = [(15, 0), (16, 1), (17, 3), (18, 4), (19, 7), (20, 9), (22, 10), (26, 11), (32, 12),
             (35, 11), (38, 10), (40, 9), (43, 8), (48, 7)]
    for last, row in table:
        if c <= last:
            return row
    return 7


def scarp(c: int) -> int:
    """The first row on top of the coastal escarpment east of Sollum (99: no escarpment)."""
    if c <= 19:
        return 0                   # the whole area west of Sollum is plateau
    table = [(20, 11), (21, 12), (22, 13), (24, 14), (27, 15), (31, 16), (35, 17)]
    for last, row in table:
        if c <= last:
            return row
    return 99


def cr(h: str) -> tuple[int, int]:
    return int(h[:2]), int(h[2:])


def land(h: str) -> bool:
    c, r = cr(h)
    return r >= first_land(c)


def plateau(h: str) -> bool:
    c, r = cr(h)
    return r >= scarp(c)


PLACES = {
    "1703": ("Bardia", "village"), "2009": ("Sollum", "village"), "3212": ("Buq Buq", "village"),
    "4308": ("Sidi Barrani", "village"),
    "2011": ("Halfaya Pass", "broken"), "1609": ("Ridotta Capuzzo", "point-of-interest"),
    "1612": ("Point 206", "hill"), "1410": ("Point 208", "hill"),
    "1808": ("Musaid", "point-of-interest"), "1515": ("Sidi Omar", "point-of-interest"),
    "1307": ("Sidi Aziez", "point-of-interest"), "2615": ("Sidi Suleiman", "point-of-interest"),
    "3016": ("Sofafi", "point-of-interest"), "3317": ("Rabia", "point-of-interest"),
    "3615": ("Bir Enba", "point-of-interest"), "3914": ("Nibeiwa", "point-of-interest"),
    "4012": ("Tummar West", "point-of-interest"), "4111": ("Tummar East", "point-of-interest"),
    "4607": ("Maktila", "point-of-interest"), "1311": ("Hafid Ridge", "hill"),
    "1001": ("Via Balbia to Tobruk", "clear"), "1400": ("coast road to Tobruk", "clear"),
    "4807": ("coast road to Mersa Matruh", "clear"), "4815": ("desert track to Bir Kenayis", "clear"),
}
# Roads and trails as waypoints; each leg is a straight hex line.
ROADS = {
    "road": [["1400", "1602", "1703", "1706", "1609"],              # Via Balbia, Bardia - Capuzzo
             ["1609", "1808", "1909", "2009"],                      # Capuzzo - Musaid - Sollum pass
             ["2009", "2110", "2411", "2712", "3212", "3611", "4010", "4308", "4607", "4807"]],  # coast road
    "trail": [["1001", "1307", "1609"],                             # Trigh Capuzzo
              ["2110", "2111", "2011", "1810", "1808"],             # Halfaya Pass up to Musaid
              ["1609", "1612", "1515"],                             # Capuzzo - Point 206 - Sidi Omar
              ["1609", "1410"],                                     # to Point 208 / Hafid Ridge
              ["1515", "2115", "2515", "2716", "2816", "2917", "3016", "3117", "3217", "3317"],             # along the top of the escarpment
              ["3212", "3016"],                                     # Buq Buq - Sofafi ascent
              ["3317", "3615", "3914", "4012", "4111", "4308"],     # Rabia - Enba gap - the camps
              ["4815", "4415", "3914"]],                            # the approach from the south-east
}
WADIS = [("1502", "1602"), ("1503", "1603"), ("1504", "1604"),          # Wadi el Ghereitat
         ("1605", "1606"), ("1705", "1706"), ("1805", "1806")]          # Wadi es Sehel
RIDGES_EXTRA = [("1309", "1409"), ("1310", "1410"), ("1311", "1411")]   # Hafid Ridge
BROKEN = {"1604", "1605", "1804", "1310", "2212", "2313", "2911", "3413", "3715", "4213", "1213",
          "1114", "1916", "2316", "4514", "4416", "3510", "2713", "1008", "1205"}
LEGEND = {".": "clear", "b": "broken", "h": "hill", "v": "village", "p": "point-of-interest", "~": "sea"}
CHAR = {v: k for k, v in LEGEND.items()}


def line_path(points: list[str]) -> list[str]:
    out: list[str] = []
    for a, b in zip(points, points[1:]):
        seg = GRID.line(a, b)
        out += seg if not out else seg[1:]
    return out


@cache
def build_map():
    """Terrain, features, ridges and wadis: the one map, built once for the four files."""
    terrain = {}
    for h in GRID.all_hexes():
        if not land(h):
            terrain[h] = "sea"
        elif h in PLACES:
            terrain[h] = PLACES[h][1]
        elif h in BROKEN:
            terrain[h] = "broken"
        elif plateau(h) and any(land(n) and not plateau(n) for n in GRID.neighbours(h)) and cr(h)[0] >= 20:
            terrain[h] = "broken"  # the lip of the escarpment
        else:
            terrain[h] = "clear"
    features: dict[str, list[str]] = {}
    for kind, lines in ROADS.items():
        hexes: list[str] = []
        for pts in lines:
            path = line_path(pts)
            for a, b in zip(path, path[1:]):
                assert GRID.adjacent(a, b), (kind, a, b)
            for h in path:
                assert land(h), f"{kind} through sea hex {h}"
                if h not in hexes:
                    hexes.append(h)
        features[kind] = sorted(hexes)
    ridges = []
    for h in GRID.all_hexes():
        for n in GRID.neighbours(h):
            if h < n and land(h) and land(n) and plateau(h) != plateau(n):
                ridges.append((h, n))
    for a, b in RIDGES_EXTRA:
        assert GRID.adjacent(a, b)
        ridges.append((a, b))
    for a, b in WADIS:
        assert GRID.adjacent(a, b), (a, b)
    return terrain, features, sorted(ridges), WADIS


# --- shared charts ---------------------------------------------------------------------

TEC = {   # reconstructed Terrain Effects Chart: MP leg / mot / HQ, ZOC, AT bonus, tank modifier
    "clear": dict(leg="1", mot="1", hq="1", zoc=True, at_bonus=0, tank_mod=0),
    "broken": dict(leg="2", mot="2", hq="2", zoc=True, at_bonus=1, tank_mod=-1),
    "hill": dict(leg="2", mot="3", hq="3", zoc=True, at_bonus=1, tank_mod=-1),
    "village": dict(leg="1", mot="1", hq="1", zoc=True, at_bonus=2, tank_mod=-2),
    "point-of-interest": dict(leg="1", mot="1", hq="1", zoc=True, at_bonus=1, tank_mod=0),
    "sea": dict(leg="1", mot="1", hq="1", zoc=False, at_bonus=0, tank_mod=0,
                prohibited_leg=True, prohibited_mot=True, prohibited_hq=True),
}
TERRAIN_COLOURS = {"clear": "#eedcae", "broken": "#cfb27a", "hill": "#b8935a", "village": "#d9c7a8",
                   "point-of-interest": "#e6c98f", "sea": "#9cc3dd"}


def ap_black(level: int, d: int) -> int:
    return min(7, max(1, (2 * level + d) // 3))     # 6.4.1: at most 7 (Schwerpunkt aside)


def ap_red(level: int, d: int) -> int:
    return (ap_black(level, d) + 1) // 2


AP_LEVELS = range(1, 7)
ACTION_COSTS = dict(move=1, refit=1, improve=1, hasty=1, regular=2, prepared=3, seize=1)   # printed 7.0, 7.3.6

# --- orders of battle (reconstructed counters) -------------------------------------------
# (id, side, nationality, category, size, SP, MA, ER, ER disrupted, tank, AT, formation, hex or turn, name, extra)
# formation "" = a static unit.  A turn number instead of a hex: a reinforcement.
F = dict   # formation rows: side, hq, name, reaction, command_range, support, hq_movement, recovery, max_level, start_level
#            (nat: the HQ counter's nationality when not the side's German or British default)
A, X = "allied", "axis"
SUPPLY = {"axis": ["1001", "1703"], "allied": ["4807", "4815"]}   # the same sources in the four scenarios


def unit(uid, side, nat, cat, size, sp, ma, er, erd, tank, at, fm, where, name, **extra):
    return dict(id=uid, side=side, nat=nat, cat=cat, size=size, sp=sp, ma=ma, er=er, erd=erd, tank=tank, at=at,
                fm=fm, where=where, name=name, extra=extra)


MOT = {"mot-infantry", "motorcycle", "recce", "armoured-car", "tank"}


def compass():
    forms = {
        "7armd": F(side=A, hq="7Armd-HQ", name="7th Armoured Division", reaction=6, command_range=5, support=4,
                   hq_movement="mot", recovery=2, max_level=5, start_level=5, hex="3817", ma=10),
        "4ind": F(side=A, hq="4Ind-HQ", name="4th Indian Division", reaction=5, command_range=4, support=5,
                  hq_movement="mot", recovery=2, max_level=4, start_level=4, hex="4316", ma=8,
                  substitute_hq="6Aus-HQ", nat="indian"),
        "selby": F(side=A, hq="Selby-HQ", name="Selby Force", reaction=4, command_range=3, support=2,
                   hq_movement="mot", recovery=1, max_level=3, start_level=3, hex="4808", ma=8),
        "xxi": F(side=X, hq="XXI-HQ", name="XXI Corpo d'Armata", reaction=3, command_range=5, support=3,
                 hq_movement="leg", recovery=1, max_level=3, start_level=3, hex="4210", ma=4,
                 nat="italian"),
        "xxiii": F(side=X, hq="XXIII-HQ", name="XXIII Corpo d'Armata", reaction=3, command_range=7, support=4,
                   hq_movement="leg", recovery=1, max_level=3, start_level=3, hex="2615", ma=4,
                   substitute_hq="XXIII-HQ2", nat="italian"),
    }
    units = [
        unit("7H", A, "british", "tank", "III", 3, 10, 5, 3, 3, 0, "7armd", "3816", "7th Hussars (light tanks)"),
        unit("2RTR", A, "british", "tank", "II", 4, 10, 5, 3, 4, 0, "7armd", "3716", "2nd Royal Tank Regiment (cruisers)"),
        unit("8H", A, "british", "tank", "III", 3, 10, 5, 3, 3, 0, "7armd", "3917", "8th Hussars (light tanks)"),
        unit("1KRRC", A, "british", "mot-infantry", "II", 3, 8, 6, 4, 0, 1, "7armd", "4017", "1st King's Royal Rifle Corps (Support Group)"),
        unit("11H", A, "british", "armoured-car", "III", 2, 12, 6, 4, 0, 1, "7armd", "3516", "11th Hussars (armoured cars)", afv=True),
        unit("5Ind", A, "indian", "infantry", "X", 4, 4, 5, 3, 0, 1, "4ind", "4215", "5th Indian Infantry Brigade"),
        unit("11Ind", A, "indian", "infantry", "X", 4, 4, 5, 3, 0, 1, "4ind", "4115", "11th Indian Infantry Brigade"),
        unit("16Bde", A, "british", "infantry", "X", 4, 4, 6, 4, 0, 1, "4ind", "4416", "16th British Infantry Brigade"),
        unit("7RTR", A, "british", "tank", "II", 4, 6, 6, 4, 6, 0, "4ind", "4116", "7th Royal Tank Regiment (Matilda II)",
             no_ca=True),
        unit("3CG", A, "british", "infantry", "II", 3, 4, 5, 3, 0, 1, "selby", "4707", "3rd Coldstream Guards"),
        unit("Selby", A, "british", "mot-infantry", "II", 2, 8, 4, 2, 0, 1, "selby", "4709", "Selby Force mobile column"),
        unit("16Aus", A, "australian", "infantry", "X", 4, 4, 6, 4, 0, 1, "4ind", 7, "16th Australian Infantry Brigade"),
        unit("17Aus", A, "australian", "infantry", "X", 4, 4, 6, 4, 0, 1, "4ind", 7, "17th Australian Infantry Brigade"),
        # Italian 10th Army: larger units than the British (designer's notes, 17)
        unit("1Lib", X, "italian", "infantry", "XX", 6, 3, 3, 2, 0, 1, "xxi", "4607", "1a Divisione Libica (Maktila)"),
        unit("2LibA", X, "italian", "infantry", "XX", 4, 3, 3, 2, 0, 1, "xxi", "4012", "2a Divisione Libica (Tummar West)",
             stack_letter="A"),
        unit("2LibB", X, "italian", "infantry", "XX", 4, 3, 3, 2, 0, 1, "xxi", "4111", "2a Divisione Libica (Tummar East)",
             stack_letter="B"),
        unit("Maletti", X, "italian", "mot-infantry", "X", 5, 6, 4, 2, 0, 1, "xxi", "3914", "Raggruppamento Maletti (Nibeiwa)"),
        unit("M11", X, "italian", "tank", "II", 2, 6, 3, 2, 2, 0, "xxi", "3913", "II Battaglione carri M11/39", no_ca=True),
        unit("3Gen", X, "italian", "infantry", "XX", 5, 3, 3, 2, 0, 1, "xxi", "4308", "4a Divisione CC.NN. '3 Gennaio' (Sidi Barrani)"),
        unit("Catanzaro", X, "italian", "infantry", "XX", 6, 3, 3, 2, 0, 1, "xxiii", "3212", "64a Divisione 'Catanzaro' (Buq Buq)"),
        unit("Cirene", X, "italian", "infantry", "XX", 6, 3, 3, 2, 0, 1, "xxiii", "3317", "63a Divisione 'Cirene' (Rabia)"),
        unit("Marmarica", X, "italian", "infantry", "XX", 6, 3, 3, 2, 0, 1, "xxiii", "3016", "62a Divisione 'Marmarica' (Sofafi)"),
        unit("28Ott", X, "italian", "infantry", "XX", 5, 3, 3, 2, 0, 1, "xxiii", "2011", "2a Divisione CC.NN. '28 Ottobre' (Halfaya)"),
        unit("23Mar", X, "italian", "infantry", "XX", 5, 3, 3, 2, 0, 1, "xxiii", "2009", "1a Divisione CC.NN. '23 Marzo' (Sollum)"),
        unit("GaF-Bardia", X, "italian", "static", "X", 4, 0, 4, 2, 0, 2, "", "1703", "Guardia alla Frontiera, Bardia", static=True),
        unit("GaF-Capuzzo", X, "italian", "static", "III", 2, 0, 3, 2, 0, 1, "", "1609", "Guardia alla Frontiera, Ridotta Capuzzo",
             static=True),
        unit("BCS-M13a", X, "italian", "tank", "II", 3, 8, 4, 2, 3, 0, "xxiii", 9, "Brigata Corazzata Speciale, M13/40 (Babini)",
             no_ca=True, stack_letter="A"),
        unit("BCS-M13b", X, "italian", "tank", "II", 3, 8, 4, 2, 3, 0, "xxiii", 9, "Brigata Corazzata Speciale, M13/40 (Babini)",
             no_ca=True, stack_letter="B"),
        unit("BCS-Bers", X, "italian", "mot-infantry", "II", 3, 8, 4, 2, 0, 1, "xxiii", 9, "Brigata Corazzata Speciale, bersaglieri"),
        unit("BCS-L3", X, "italian", "recce", "II", 2, 8, 3, 2, 1, 0, "xxiii", 9, "Brigata Corazzata Speciale, L3 tankettes",
             afv=True),
    ]
    hqs = [("6Aus-HQ", A, "australian", "6th Australian Division (substitute HQ)", 7, 4),
           ("XXIII-HQ2", X, "italian", "XXIII Corpo d'Armata (substitute HQ)", 9, 3)]
    extra = dict(
        strongpoints={"4607": ("axis", "Maktila camp"), "4012": ("axis", "Tummar West camp"),
                      "4111": ("axis", "Tummar East camp"), "3914": ("axis", "Nibeiwa camp"),
                      "3016": ("axis", "Sofafi camp"), "3317": ("axis", "Rabia camp"),
                      "1703": ("axis", "Bardia perimeter"), "1609": ("axis", "Ridotta Capuzzo")},
        reinforcements=[dict(turn=7, side=A, units=["16Aus", "17Aus"], entry=["4807", "4815"]),
                        dict(turn=9, side=X, units=["BCS-M13a", "BCS-M13b", "BCS-Bers", "BCS-L3"], entry=["1001"])],
        substitutes=[dict(turn=7, formation="4ind", hq="6Aus-HQ", level_change=-2),
                     dict(turn=9, formation="xxiii", hq="XXIII-HQ2", level_change=2, entry="1001")],
        schwerpunkt=dict(setup="4ind", turns={"6": "allied"}),
        snafu_first="axis", surrender="italian",
    )
    return forms, units, hqs, extra


def brevity():
    forms = {
        "7armdbg": F(side=A, hq="7ABG-HQ", name="7th Armoured Brigade Group", reaction=6, command_range=5, support=3,
                     hq_movement="mot", recovery=2, max_level=4, start_level=4, hex="2115", ma=10),
        "22gds": F(side=A, hq="22Gds-HQ", name="22nd Guards Brigade", reaction=5, command_range=4, support=4,
                   hq_movement="mot", recovery=2, max_level=4, start_level=4, hex="2213", ma=8),
        "coast": F(side=A, hq="Coast-HQ", name="Coast Force", reaction=4, command_range=3, support=3,
                   hq_movement="mot", recovery=1, max_level=3, start_level=3, hex="2412", ma=8),
        "herff": F(side=X, hq="Herff-HQ", name="Kampfgruppe von Herff", reaction=6, command_range=4, support=3,
                   hq_movement="mot", recovery=2, max_level=4, start_level=4, hex="1707", ma=10),
        "cramer": F(side=X, hq="Cramer-HQ", name="Kampfgruppe Cramer (15. Panzer-Division)", reaction=6,
                    command_range=4, support=2, hq_movement="mot", recovery=2, max_level=4, start_level=4, hex=None, ma=10,
                    turn=2),
    }
    units = [
        unit("2RTR", A, "british", "tank", "II", 4, 10, 5, 3, 4, 0, "7armdbg", "1914", "2nd Royal Tank Regiment (cruisers)"),
        unit("2RB", A, "british", "mot-infantry", "II", 3, 8, 5, 3, 0, 2, "7armdbg", "2014", "2nd Rifle Brigade (Support Group)"),
        unit("11H", A, "british", "armoured-car", "III", 2, 12, 6, 4, 0, 1, "7armdbg", "1816", "11th Hussars (armoured cars)", afv=True),
        unit("2SG", A, "british", "infantry", "II", 3, 4, 6, 4, 0, 1, "22gds", "2112", "2nd Scots Guards"),
        unit("1DLI", A, "british", "infantry", "II", 3, 4, 5, 3, 0, 1, "22gds", "2013", "1st Durham Light Infantry"),
        unit("4RTR", A, "british", "tank", "II", 4, 6, 6, 4, 6, 0, "22gds", "2012", "4th Royal Tank Regiment (Matilda II)", no_ca=True),
        unit("3CG", A, "british", "infantry", "II", 3, 4, 5, 3, 0, 1, "coast", "2111", "3rd Coldstream Guards"),
        unit("8Fd", A, "british", "mot-infantry", "II", 2, 8, 5, 3, 0, 2, "coast", "2311", "Coast Force carriers and 8th Field Regiment"),
        unit("IIPz5", X, "german", "tank", "II", 3, 10, 6, 4, 4, 0, "herff", "1609", "II./Panzer-Regiment 5 (two companies)"),
        unit("K15", X, "german", "motorcycle", "II", 3, 10, 6, 4, 0, 2, "herff", "1910", "Kradschützen-Bataillon 15"),
        unit("Trento", X, "italian", "infantry", "II", 3, 3, 4, 2, 0, 1, "herff", "2011", "Battaglione 'Trento' (Halfaya Pass)"),
        unit("AA33", X, "german", "recce", "II", 2, 12, 6, 4, 0, 1, "herff", "1612", "Aufklärungs-Abteilung 33", afv=True),
        unit("Sollum", X, "german", "mot-infantry", "II", 2, 8, 5, 3, 0, 2, "herff", "2009", "Sollum garrison (I./Schützen-Regiment 104)"),
        unit("Bardia", X, "italian", "static", "III", 3, 0, 4, 2, 0, 2, "", "1703", "Bardia garrison", static=True),
        unit("IPz8", X, "german", "tank", "II", 4, 10, 6, 4, 5, 0, "cramer", 2, "I./Panzer-Regiment 8"),
        unit("Flak33", X, "german", "mot-infantry", "II", 2, 8, 6, 4, 0, 3, "cramer", 2, "I./Flak-Regiment 33 (8.8 cm)"),
    ]
    hqs = []
    extra = dict(
        strongpoints={"2011": ("axis", "Halfaya Pass positions"), "1703": ("axis", "Bardia perimeter"),
                      "1609": ("axis", "Ridotta Capuzzo")},
        reinforcements=[dict(turn=2, side=X, units=["Cramer-HQ", "IPz8", "Flak33"], entry=["1001"])],
        substitutes=[],
        schwerpunkt=dict(setup="7armdbg", turns={"3": "axis"}),
        snafu_first="axis", surrender="",
    )
    return forms, units, hqs, extra


def skorpion():
    forms = {
        "herff": F(side=X, hq="Herff-HQ", name="Kampfgruppe von Herff", reaction=5, command_range=4, support=3,
                   hq_movement="mot", recovery=1, max_level=3, start_level=3, hex="1709", ma=6),
        "cramer": F(side=X, hq="Cramer-HQ", name="Kampfgruppe Cramer", reaction=5, command_range=4, support=2,
                    hq_movement="mot", recovery=1, max_level=3, start_level=3, hex="1512", ma=6),
        "22gds": F(side=A, hq="22Gds-HQ", name="22nd Guards Brigade", reaction=4, command_range=4, support=3,
                   hq_movement="mot", recovery=1, max_level=2, start_level=2, hex="2112", ma=8),
        "7armdbg": F(side=A, hq="7ABG-HQ", name="7th Armoured Brigade Group", reaction=3, command_range=5, support=2,
                     hq_movement="mot", recovery=1, max_level=2, start_level=2, hex="2614", ma=10),
    }
    units = [
        # "limited Movement Allowances and Activation Levels" (16.3): Axis fuel shortage
        unit("IIPz5", X, "german", "tank", "II", 3, 6, 6, 4, 4, 0, "herff", "1810", "II./Panzer-Regiment 5"),
        unit("K15", X, "german", "motorcycle", "II", 3, 6, 6, 4, 0, 2, "herff", "1911", "Kradschützen-Bataillon 15"),
        unit("AA33", X, "german", "recce", "II", 2, 8, 6, 4, 0, 1, "herff", "1808", "Aufklärungs-Abteilung 33", afv=True),
        unit("IPz8", X, "german", "tank", "II", 4, 6, 6, 4, 5, 0, "cramer", "1713", "I./Panzer-Regiment 8"),
        unit("IIPz8", X, "german", "tank", "II", 3, 6, 6, 4, 4, 0, "cramer", "1613", "II./Panzer-Regiment 8"),
        unit("3CG", A, "british", "infantry", "II", 3, 4, 5, 3, 0, 2, "22gds", "2011", "3rd Coldstream Guards (Halfaya Pass)"),
        unit("4RTRc", A, "british", "tank", "II", 2, 6, 5, 3, 5, 0, "22gds", "2012", "C Squadron, 4th Royal Tank Regiment (Matilda II)",
             no_ca=True),
        unit("2SG", A, "british", "infantry", "II", 3, 4, 5, 3, 0, 1, "22gds", "2111", "2nd Scots Guards"),
        unit("2RTR", A, "british", "tank", "II", 3, 10, 5, 3, 4, 0, "7armdbg", "2514", "2nd Royal Tank Regiment (cruisers)"),
        unit("11H", A, "british", "armoured-car", "III", 2, 12, 6, 4, 0, 1, "7armdbg", "2315", "11th Hussars (armoured cars)",
             afv=True),
    ]
    hqs = []
    extra = dict(
        strongpoints={"2011": ("allied", "Halfaya Pass positions")},
        reinforcements=[], substitutes=[],
        schwerpunkt=dict(setup="herff", turns={}),
        snafu_first="allied", surrender="",
    )
    return forms, units, hqs, extra


def battleaxe():
    forms = {
        "4ind": F(side=A, hq="4Ind-HQ", name="4th Indian Division (Coast Force)", reaction=5, command_range=4, support=5,
                  hq_movement="mot", recovery=2, max_level=4, start_level=4, hex="2313", ma=8),
        "22gds": F(side=A, hq="22Gds-HQ", name="22nd Guards Brigade", reaction=5, command_range=4, support=4,
                   hq_movement="mot", recovery=2, max_level=4, start_level=4, hex="2015", ma=8),
        "7armd": F(side=A, hq="7Armd-HQ", name="7th Armoured Division", reaction=6, command_range=5, support=4,
                   hq_movement="mot", recovery=2, max_level=5, start_level=5, hex="2116", ma=10),
        "15pz": F(side=X, hq="15Pz-HQ", name="15. Panzer-Division", reaction=7, command_range=5, support=5,
                  hq_movement="mot", recovery=2, max_level=5, start_level=5, hex="1708", ma=10, substitute_hq="15Pz-HQ2"),
        "5lei": F(side=X, hq="5Lei-HQ", name="5. leichte Division", reaction=7, command_range=5, support=4,
                  hq_movement="mot", recovery=2, max_level=5, start_level=5, hex=None, ma=10, turn=3),
    }
    units = [
        unit("11Ind", A, "indian", "infantry", "X", 4, 4, 6, 4, 0, 2, "4ind", "2111", "11th Indian Infantry Brigade"),
        unit("2Cam", A, "british", "infantry", "II", 3, 4, 6, 4, 0, 1, "4ind", "2211", "2nd Queen's Own Cameron Highlanders"),
        unit("4RTR", A, "british", "tank", "II", 4, 6, 6, 4, 6, 0, "4ind", "2111", "4th Royal Tank Regiment (Matilda II)", no_ca=True),
        unit("1Buffs", A, "british", "infantry", "II", 3, 4, 5, 3, 0, 1, "22gds", "1913", "1st Buffs"),
        unit("2SG", A, "british", "infantry", "II", 3, 4, 6, 4, 0, 1, "22gds", "1914", "2nd Scots Guards"),
        unit("7RTR", A, "british", "tank", "II", 4, 6, 6, 4, 6, 0, "22gds", "2014", "7th Royal Tank Regiment (Matilda II)", no_ca=True),
        unit("2RTR", A, "british", "tank", "II", 4, 10, 5, 3, 4, 0, "7armd", "1915", "2nd Royal Tank Regiment (cruisers)"),
        unit("6RTR", A, "british", "tank", "II", 4, 10, 5, 3, 5, 0, "7armd", "2016", "6th Royal Tank Regiment (Crusader)"),
        unit("1KRRC", A, "british", "mot-infantry", "II", 3, 8, 6, 4, 0, 2, "7armd", "1816", "1st King's Royal Rifle Corps"),
        unit("11H", A, "british", "armoured-car", "III", 2, 12, 6, 4, 0, 1, "7armd", "1717", "11th Hussars (armoured cars)", afv=True),
        unit("Bach", X, "german", "mot-infantry", "II", 3, 8, 7, 5, 0, 4, "15pz", "2011", "I./Schützen-Regiment 104 (Bach, Halfaya)"),
        unit("Trento", X, "italian", "infantry", "II", 3, 3, 4, 2, 0, 2, "15pz", "2009", "Battaglione 'Trento' (Sollum)"),
        unit("Pt208", X, "german", "static", "II", 2, 0, 6, 4, 0, 4, "", "1410", "Point 208 (8.8 cm Flak)", static=True),
        unit("Pt206", X, "german", "mot-infantry", "II", 2, 8, 6, 4, 0, 2, "15pz", "1612", "Kampfgruppe Point 206"),
        unit("IPz8", X, "german", "tank", "II", 4, 10, 6, 4, 5, 0, "15pz", "1508", "I./Panzer-Regiment 8"),
        unit("Capuzzo", X, "german", "mot-infantry", "II", 2, 8, 6, 4, 0, 2, "15pz", "1609", "Capuzzo garrison (II./Schützen-Regiment 104)"),
        unit("Bardia", X, "italian", "static", "III", 3, 0, 4, 2, 0, 2, "", "1703", "Bardia garrison", static=True),
        unit("IIPz8", X, "german", "tank", "II", 3, 10, 6, 4, 4, 0, "15pz", 3, "II./Panzer-Regiment 8"),
        unit("K15", X, "german", "motorcycle", "II", 3, 10, 6, 4, 0, 2, "15pz", 3, "Kradschützen-Bataillon 15"),
        unit("IPz5", X, "german", "tank", "II", 4, 10, 6, 4, 5, 0, "5lei", 3, "I./Panzer-Regiment 5"),
        unit("IIPz5", X, "german", "tank", "II", 4, 10, 6, 4, 5, 0, "5lei", 3, "II./Panzer-Regiment 5"),
        unit("AA3", X, "german", "recce", "II", 2, 12, 6, 4, 0, 1, "5lei", 3, "Aufklärungs-Abteilung 3", afv=True),
        unit("MG2", X, "german", "machinegun", "II", 3, 4, 6, 4, 0, 2, "5lei", 3, "Maschinengewehr-Bataillon 2"),
    ]
    hqs = [("15Pz-HQ2", X, "german", "15. Panzer-Division (substitute HQ)", 3, 10)]
    extra = dict(
        strongpoints={"2011": ("axis", "Halfaya Pass positions"), "1703": ("axis", "Bardia perimeter"),
                      "1410": ("axis", "Point 208"), "1609": ("axis", "Ridotta Capuzzo")},
        reinforcements=[dict(turn=3, side=X, units=["5Lei-HQ", "IPz5", "IIPz5", "AA3", "MG2"], entry=["1001"]),
                        dict(turn=3, side=X, units=["IIPz8", "K15"], entry=["1400"])],
        substitutes=[dict(turn=3, formation="15pz", hq="15Pz-HQ2", level_change=3, entry="1400")],
        schwerpunkt=dict(setup="7armd", turns={"3": "axis"}),
        snafu_first="axis", surrender="",
    )
    return forms, units, hqs, extra


# --- per-scenario printed data (16.1-16.4) -------------------------------------------------

SCENARIOS = {
    "compass": dict(
        title="Mirages: Operation Compass (December 1940)", turns=10, build=compass, rule="16.1",
        start="9 December 1940", first="allied", drm=2, ties=[(1, 10, "allied")], in_row=2, transfers=2,
        victory=dict(kind="points", hexes=[("1703", "Bardia", 0, 0, True), ("2009", "Sollum", 2, 1, False),
                                           ("1609", "Ridotta Capuzzo", 1, 0, False), ("3212", "Buq Buq", 1, 0, False),
                                           ("4308", "Sidi Barrani", 2, 1, False)],
                     ranges=dict(gt1=(0, 1), gt2=(0, 2), gt3=(2, 3), gt4=(2, 4), gt5=(4, 7), gt6=(6, 11), gt7=(7, 15), gt8=(10, 20), gt9=(14, 25), gt10=(20, 31))),
        blurb="the opening of the British offensive against the Italian camps around Sidi Barrani",
    ),
    "brevity": dict(
        title="Mirages: Operation Brevity (May 1941)", turns=6, build=brevity, rule="16.2", start="15 May 1941",
        first="allied", drm=2, ties=[(1, 6, "allied")], in_row=2, transfers=1,
        victory=dict(kind="points", hexes=[("1703", "Bardia", 12, 6, False), ("2009", "Sollum", 6, 3, False),
                                           ("2011", "Halfaya Pass", 4, 2, False), ("1609", "Ridotta Capuzzo", 2, 1, False)],
                     ranges=dict(gt1=(4, 11), gt2=(10, 19), gt3=(16, 27), gt4=(22, 33), gt5=(24, 36), gt6=(26, 39))),
        blurb="the limited British offensive against the Axis frontier positions",
    ),
    "skorpion": dict(
        title="Mirages: Unternehmen Skorpion (May 1941)", turns=4, build=skorpion, rule="16.3", start="26 May 1941",
        first="axis", drm=1, ties=[(1, 4, "axis")], in_row=2, transfers=1,
        victory=dict(kind="hold", hold=[(1, "axis", "2011", "any", "Axis major victory"),
                                        (2, "axis", "2011", "in", "Axis victory"),
                                        (3, "allied", "2011", "in", "Allied victory"),
                                        (4, "allied", "2011", "any", "Allied major victory")]),
        blurb="the Axis counter-attack that retook the Halfaya Pass (introductory scenario)",
    ),
    "battleaxe": dict(
        title="Mirages: Operation Battleaxe (June 1941)", turns=8, build=battleaxe, rule="16.4", start="15 June 1941",
        first="allied", drm=2, ties=[(1, 2, "allied"), (3, 8, "axis")], in_row=2, transfers=1,
        victory=dict(kind="points", hexes=[("1703", "Bardia", 12, 6, False), ("2009", "Sollum", 4, 2, False),
                                           ("2011", "Halfaya Pass", 6, 3, False), ("1609", "Ridotta Capuzzo", 2, 1, False),
                                           ("1612", "Point 206", 2, 1, False), ("1410", "Point 208", 2, 1, False)],
                     ranges=dict(gt1=(2, 8), gt2=(6, 12), gt3=(10, 18), gt4=(14, 22), gt5=(16, 26), gt6=(20, 30), gt7=(22, 32), gt8=(26, 34))),
        blurb="the British offensive to relieve Tobruk, the first German defensive battle of the war",
    ),
}
AP_MARKERS = {"axis": [1, 2, 2, 3, 3, 3, 4, 4, 5, 6], "allied": [1, 2, 2, 3, 3, 3, 4, 4, 5, 6]}

# --- TOML writing -------------------------------------------------------------------------


def q(v) -> str:
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, int):
        return str(v)
    if isinstance(v, str):
        return '"' + v.replace("\\", "\\\\").replace('"', '\\"') + '"'
    if isinstance(v, (list, tuple)):
        return "[" + ", ".join(q(x) for x in v) + "]"
    if isinstance(v, dict):
        return "{ " + ", ".join(f"{key_(k)} = {q(x)}" for k, x in v.items()) + " }"
    raise TypeError(v)


def key_(k: str) -> str:
    """A TOML key: bare when it can be, quoted otherwise."""
    return k if k.isidentifier() else q(k)


def write(key: str) -> str:
    s = SCENARIOS[key]
    forms, units, sub_hqs, extra = s["build"]()
    terrain, features, ridges, wadis = build_map()
    used = sorted(set(terrain.values()))
    out: list[str] = []
    w = out.append
    w(f"# Mirages '40 '41 (Formation Series), scenario {s['rule']}: {s['title'].split(': ', 1)[1]},")
    w(f"# {s['blurb']}.")
    w("#")
    w("# GENERATED by scenarios/mirages_gen.py (one map for all four scenarios): edit that")
    w("# script and run it, not this file.")
    w("#")
    w("# Printed in the rulebook text and copied exactly: the game length, the initiative")
    w("# rules of the scenario (first activation, turn-1 DRM, ties, maximum initiatives in a")
    w("# row and transfers in a row), the victory hexes and their values, the victory point")
    w("# ranges per game turn, the action costs (7.0, 7.3.6), the stacking limits (13.1.3),")
    w("# the Schwerpunkt DRM (7.4.1.4 D) and the hexes the text names.  Everything marked")
    w("# reconstructed below is NOT the printed game.")
    w("")
    w(f'id = "mirages-{key}"')
    w(f"title = {q(s['title'])}")
    w('game = "mirages"')
    w('family = "formation"')
    w(f"turns = {s['turns']}                      # {s['rule']}: printed game length")
    w("die = 10                       # 3.8: d10, 0 reads 10")
    w(f'source = "mirages.txt, series rules 1-10, game rules 13-15, scenario {s["rule"]}"')
    w("units_reconstructed = true")
    recon = [
        f"map: one {LAST_COL - FIRST_COL + 1} x {LAST_ROW - FIRST_ROW + 1} hex map (columns {FIRST_COL:02d}-{LAST_COL}, rows "
        f"{FIRST_ROW:02d}-{LAST_ROW}) for all four scenarios: coastline, the Sollum escarpment (ridge hexsides) with its "
        "passes at Sollum, Halfaya, Sofafi and Rabia, Hafid Ridge, the wadis at Bardia, roads, trails, terrain of every "
        "hex; the text gives only the hexes 1703, 2009, 2011, 1609, 3212, 4308, 1612, 1410, 1001 and 1400",
        "Terrain Effects Chart: movement costs, road and trail rates, ridge and wadi costs, ZOC, Anti-Tank bonus, "
        "tank modifier, attack across a ridge or wadi",
        "counters: every unit's strength, movement allowance, Effectiveness Ratings, Tank and Anti-Tank Points and "
        "set-up hex; every HQ's reaction rating, command range, attack support and movement allowance "
        "(from the history of the operation)",
        "Formation Activation markers: maximum level, recovery rating and starting level of every formation",
        "Action Points Table (black activation and red reaction values) for activation levels 1-6",
        "Initiative +DRM track beyond its first space (+2)",
        "combat results table (the text's one datum, Clear 1:1 modified 4 = 2/1 both red, is kept) and the odds "
        "heading of each column per terrain",
        "strongpoint markers (hexes, EC and Anti-Tank bonuses), supply sources other than Bardia, 1001 and 1400",
        "reinforcement entry hexes not named by the text, the Schwerpunkt marker's set-up and turn track, the first "
        "holder of the SNAFU marker, the optional Action Point markers",
    ]
    w("reconstructed = [")
    for r in recon:
        w(f"  {q(r)},")
    w("]")
    w("")
    w("sides = [")
    w('  { id = "axis", name = "Axis", nationalities = ["italian", "german"] },')
    w('  { id = "allied", name = "Commonwealth", nationalities = ["british", "indian", "australian"] },')
    w("]")
    w("")
    w("# 4: Admin Phase (skipped in turn 1), Ops Phase of Ops Cycles, End of Turn Phase")
    w("sequence = [")
    w('  { side = "axis", name = "admin", rule = "9" },')
    w('  { side = "axis", name = "ops", rule = "6" },')
    w('  { side = "axis", name = "end-of-turn", rule = "8" },')
    w("]")
    w("")
    w("turn_track = [")
    reinf = extra["reinforcements"]
    for t in range(1, s["turns"] + 1):
        bits = []
        for r in reinf:
            if r["turn"] == t:
                bits.append(f"{r['side']} reinforcements")
        for sub in extra["substitutes"]:
            if sub["turn"] == t:
                bits.append(f"substitute HQ {sub['hq']}")
        lab = f"Game turn {t}" + (" (no Admin Phase)" if t == 1 else "") + ("; " + ", ".join(bits) if bits else "")
        w(f"  {{ turn = {t}, label = {q(lab)} }},")
    w("]")
    w("")
    # units
    w("# Counters (reconstructed).  strength = Strength Points (one per hit, 7.4.2.1); for an HQ")
    w("# its Attack Support Points (3.3 g).  A unit with entry_turn is a reinforcement.")
    w("units = [")
    seen_hex: dict[str, str] = {}

    def place(uid, h):
        assert h is None or land(h), f"{key}: {uid} in sea hex {h}"
        if h is not None:
            assert h not in seen_hex or uid not in {f["hq"] for f in forms.values()}, f"{key}: HQ {uid} stacked"
            assert GRID.contains(h), (uid, h)
            seen_hex[h] = uid

    for fid, f in forms.items():
        side = f["side"]
        nat = f.get("nat") or ("german" if side == "axis" else "british")
        h = f.get("hex")
        place(f["hq"], h)
        where = f'hex = "{h}"' if h else f"entry_turn = {f['turn']}"
        w(f'  {{ id = "{f["hq"]}", side = "{side}", nationality = "{nat}", type = "hq", size = "HQ", '
          f'strength = {f["support"]}, ma = {f["ma"]}, {where}, name = {q(f["name"] + " HQ")} }},')
    for hid, side, nat, name, turn, ma in sub_hqs:
        fid = next(k for k, f in forms.items() if f.get("substitute_hq") == hid)
        w(f'  {{ id = "{hid}", side = "{side}", nationality = "{nat}", type = "hq", size = "HQ", '
          f'strength = {forms[fid]["support"]}, ma = {ma}, entry_turn = {turn}, name = {q(name)} }},')
    for u in units:
        h = u["where"] if isinstance(u["where"], str) else None
        place(u["id"], h)
        where = f'hex = "{h}"' if h else f"entry_turn = {u['where']}"
        w(f'  {{ id = "{u["id"]}", side = "{u["side"]}", nationality = "{u["nat"]}", type = "{u["cat"]}", '
          f'size = "{u["size"]}", strength = {u["sp"]}, ma = {u["ma"]}, {where}, name = {q(u["name"])} }},')
    w("]")
    w("")
    # victory
    v = s["victory"]
    w(f"[victory]                          # printed, {s['rule']}")
    w(f'kind = "{v["kind"]}"')
    if v["kind"] == "points":
        w("# 16: the per-turn range header is printed one cell to the right of its values (its")
        w("# first cell is empty and the row label 'VPs' sits under GT1); fixed here by reading")
        w("# the n-th range as game turn n.  Below the range: Axis victory; above: Allied victory.")
        w("ranges = { " + ", ".join(f"{k} = [{a}, {b}]" for k, (a, b) in v["ranges"].items()) + " }")
        for h, name, i, o, auto in v["hexes"]:
            w("[[victory.hexes]]")
            w(f'hex = "{h}"')
            w(f"name = {q(name)}")
            if auto:
                w("automatic = true                   # 16.1: an Allied combat unit here at End of Turn wins")
            else:
                w(f"in_command = {i}")
                w(f"out_of_command = {o}")
    else:
        for t, side, h, cmd, res in v["hold"]:
            w("[[victory.hold]]")
            w(f'turn = {t}')
            w(f'side = "{side}"')
            w(f'hex = "{h}"')
            w(f'command = "{cmd}"                    # "any": in or out of command; "in": in command')
            w(f"result = {q(res)}")
    w("")
    # game data
    w("[game_data]")
    w(f'scorer = "{"axis" if v["kind"] == "hold" else "allied"}"' + "                # 16: the side earning VPs"
      + (" (16.3 has no VPs: hold the objective)" if v["kind"] == "hold" else ""))
    w(f"max_initiatives_in_row = {s['in_row']}         # printed, {s['rule']}")
    w(f"max_transfers_in_row = {s['transfers']}           # printed, {s['rule']}")
    w(f'first_initiative = "{s["first"]}"        # printed: wins the first activation of turn 1')
    w(f"turn1_initiative_drm = {s['drm']}           # printed: that side's extra DRM in turn 1")
    w("initiative_ties = [" + ", ".join(f'{{ from_turn = {a}, to_turn = {b}, side = "{c}" }}' for a, b, c in s["ties"])
      + f"]   # printed, {s['rule']}")
    w("initiative_track = [2, 3, 4, 5, 6]   # 6.1: first space +2 printed; the further spaces reconstructed")
    w("schwerpunkt_drm = 2                # printed 7.4.1.4 D: always two")
    w("action_costs = " + q(ACTION_COSTS) + "   # printed 7.0, 7.3.6")
    w(f'snafu_first = "{extra["snafu_first"]}"              # reconstructed: the text does not say who starts with it')
    w(f'surrender = "{extra["surrender"]}"' + ("                # printed 16.1: Italian surrender" if extra["surrender"] else ""))
    w('bardia = ["1703"]                  # printed 15: lost as an Axis supply source once an Allied unit ends a move there')
    nr = ["1703"] + sorted(h for h in extra["strongpoints"] if h != "1703")
    w(f"no_reinforcement = {q(nr)}   # printed 14.1: Bardia and every strongpoint hex")
    w("ap_markers_on = false             # 6.4.1 optional rule, off by default")
    w("ap_markers = " + q(AP_MARKERS) + "   # reconstructed values")
    w('friendly_edges = { axis = "west", allied = "east" }   # printed 13.2.3')
    w(f"supply_sources = {q(SUPPLY)}   # 3.1.5: Bardia (15) printed; the others reconstructed")
    w("")
    w("[game_data.stacking]               # printed 13.1.3 (one HQ free on top)")
    w('allied = { total = 2, leg = 1 }    # two units, at most one of them leg infantry')
    w('axis = { inf = 1, other = 2 }      # one infantry unit and two panzer and/or recce units')
    w("")
    w("[game_data.ap_table]               # reconstructed 6.4.1: activation level -> d10 1..10")
    w("reconstructed = true")
    w("black = { " + ", ".join(f'"{L}" = {q([ap_black(L, d) for d in range(1, 11)])}' for L in AP_LEVELS) + " }")
    w("red = { " + ", ".join(f'"{L}" = {q([ap_red(L, d) for d in range(1, 11)])}' for L in AP_LEVELS) + " }")
    w("")
    w("[game_data.road]                   # reconstructed 7.3.3")
    w('leg = "1/2"\nmot = "1/3"\nhq = "1/3"\nreconstructed = true')
    w("[game_data.trail]                  # reconstructed 13.2.1: a road with its own cost")
    w('leg = "1/2"\nmot = "1/2"\nhq = "1/2"\nreconstructed = true')
    w("")
    w("[game_data.hexside_cost]           # reconstructed (13.2.2 printed: no ZOC, RbC or retreat across)")
    w('ridge = { leg = "2", prohibited_mot = true, prohibited_hq = true, column_shift = -1, reconstructed = true }')
    w('wadi = { leg = "1", mot = "2", hq = "2", column_shift = -1, reconstructed = true }')
    w("")
    w("[game_data.tec]                    # reconstructed Terrain Effects Chart")
    for t in used:
        row = dict(TEC[t])
        row["reconstructed"] = True
        w(f"{key_(t)} = {q(row)}")
    w("")
    w("[game_data.crt_odds]               # reconstructed: the odds of column A; B..H follow the ladder (crt.LADDER)")
    for t in used:
        if t != "sea":
            w(f"{key_(t)} = {q(DEFAULT_ODDS.get(t, DEFAULT_ODDS['clear']))}")
    w("")
    w("[game_data.schwerpunkt]            # reconstructed: set-up formation and turn-track changes (5.9, 9.2)")
    w(f'setup = "{extra["schwerpunkt"]["setup"]}"')
    w("turns = " + q({str(k): x for k, x in extra["schwerpunkt"]["turns"].items()}))
    w("reconstructed = true")
    w("")
    for r in extra["reinforcements"]:
        printed = (key == "compass" and r["turn"] == 9) or key == "battleaxe"
        w("[[game_data.reinforcements]]" + ("         # printed: turn and entry hex" if printed else "         # reconstructed"))
        w(f"turn = {r['turn']}\nside = \"{r['side']}\"\nunits = {q(r['units'])}\nentry = {q(r['entry'])}")
        if not printed:
            w("reconstructed = true")
    for sub in extra["substitutes"]:
        w("[[game_data.substitutes]]          # printed: turn, formation and FA marker move")
        w(f"turn = {sub['turn']}\nformation = \"{sub['formation']}\"\nhq = \"{sub['hq']}\"\nlevel_change = {sub['level_change']}")
        if sub.get("entry"):
            w(f'entry = "{sub["entry"]}"')
    w("")
    for h, (side, name) in extra["strongpoints"].items():
        w(f'[game_data.strongpoints."{h}"]      # reconstructed marker')
        w(f'side = "{side}"\nname = {q(name)}\nec_bonus = 1\nat_bonus = 2\nreconstructed = true')
    w("")
    for fid, f in forms.items():
        w(f"[game_data.formations.{fid}]          # reconstructed HQ counter and FA marker")
        row = {k: f[k] for k in ("side", "hq", "name", "reaction", "command_range", "support", "hq_movement", "recovery",
                                 "max_level", "start_level")}
        if f.get("substitute_hq"):
            row["substitute_hq"] = f["substitute_hq"]
        for k, x in row.items():
            w(f"{k} = {q(x)}")
        w("reconstructed = true")
    w("")
    w("[game_data.units]                  # reconstructed counters")
    for u in units:
        row = dict(formation=u["fm"], category=u["cat"], movement="mot" if u["cat"] in MOT else "leg",
                   er=u["er"], er_disrupted=u["erd"], tank=u["tank"], at=u["at"])
        if u["cat"] == "static":
            row["movement"] = "leg"
        for k in ("afv", "static", "stack_letter", "no_ca"):
            if k in u["extra"]:
                row[k] = u["extra"][k]
        if u["cat"] == "tank":
            row["afv"] = True
        row["reconstructed"] = True
        w(f"{key_(u['id'])} = {q(row)}")
    w("")
    # core tables
    w("[terrain]                          # movement in [game_data.tec]; colours for the map picture")
    for t in used:
        imp = ", impassable = true" if t == "sea" else ""
        w(f'{key_(t)} = {{ colour = "{TERRAIN_COLOURS[t]}"{imp}, reconstructed = true }}')
    w("")
    w("[crt]                              # reconstructed (pbem/games/formation/crt.py); rows = MODIFIED d10 roll 1..20")
    w("reconstructed = true")
    w('rule = "7.4.1.2, 7.4.2"')
    w('notes = "a/d hits on attacker/defender; * = printed red (every unit of that side takes an EC). Kept from the text: Clear 1:1, modified 4 = 2*/1*."')
    w(f"columns = {q(COLUMNS)}")
    w("max_roll = 20")                     # the kernel reads CRT rows up to the modified maximum
    w("[crt.rows]")
    for r in range(1, 21):
        w(f'"{r}" = {q(DEFAULT_ROWS[str(r)])}')
    w("")
    # map
    w("[map]                              # reconstructed: one map for the four scenarios")
    w(f"first_col = {FIRST_COL}\nlast_col = {LAST_COL}\nfirst_row = {FIRST_ROW}\nlast_row = {LAST_ROW}")
    w(f'offset = "{OFFSET}"\nreconstructed = true')
    w('notes = "Columns run west to east, rows north to south. The west edge is the Axis friendly edge, the east edge the Commonwealth one (13.2.3)."')
    w("legend = " + q(LEGEND))
    w("rows = [")
    for r in range(FIRST_ROW, LAST_ROW + 1):
        text = "".join(CHAR[terrain[f"{c:02d}{r:02d}"]] for c in range(FIRST_COL, LAST_COL + 1))
        w(f'  "{text}",   # row {r:02d}')
    w("]")
    for kind, hexes in features.items():
        w(f"[map.features.{kind}]")
        w(f'rule = "{"3.1.1" if kind == "road" else "13.2.1"}"')
        w(f"hexes = {q(hexes)}")
    for h, (name, _t) in sorted(PLACES.items()):
        w("[[map.places]]")
        w(f"name = {q(name)}\nhexes = [\"{h}\"]")
    for a, b in ridges:
        w("[[map.hexsides]]")
        w(f'a = "{a}"\nb = "{b}"\nfeature = "ridge"')
    for a, b in wadis:
        w("[[map.hexsides]]")
        w(f'a = "{a}"\nb = "{b}"\nfeature = "wadi"')
    return "\n".join(out) + "\n"


def main(check: bool = False) -> int:
    bad = 0
    for key in SCENARIOS:
        path = ROOT / "scenarios" / f"mirages-{key}.toml"
        text = write(key)
        if check:
            if not path.is_file() or path.read_text() != text:
                print(f"{path.name} is not what scenarios/mirages_gen.py writes")
                bad += 1
        else:
            path.write_text(text)
            print(f"wrote {path.relative_to(ROOT)}")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(check="--check" in sys.argv))
