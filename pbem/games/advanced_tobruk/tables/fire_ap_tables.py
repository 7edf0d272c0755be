"""Advanced Tobruk's fire tables as data (12-17, 21-23).

Almost every chart of the printed game is missing from the rulebook text.
Everything here except the two Hit Location tables (13.5221, 13.5222) is
RECONSTRUCTED: made up to be consistent with the numbers the text does give
(the 75 mm Grant gun hits on 9 or less at range 3; 75 mm HE = 14 FRAG; a
6-factor machine-gun led by a leader fires on the '8' column; 32 gunfire is
a column; half of 14 FRAG lands in the '4' column of the vehicle table;
grenades 15 FRAG), never the printed game's values.  An owner of the game can
correct them here without touching the rules code.
"""
from __future__ import annotations

RECONSTRUCTED = True

# --- 13.1-13.2 Hit Probability Table (reconstructed) ---------------------------
# Range bands up to 16 hexes; from 17 hexes the gun size column ('70' for guns
# of 70 mm or less, '75' for 75 mm and more, 13.12).  None = automatic miss '-'.
HPT_BANDS: tuple[tuple[int, int], ...] = ((1, 1), (2, 2), (3, 3), (4, 4), (5, 6), (7, 8), (9, 10), (11, 12),
                                          (13, 16))
HPT_LONG_BANDS: tuple[tuple[int, int], ...] = ((17, 24), (25, 32), (33, 40), (41, 60))
HPT: dict[str, list[int]] = {
    #     1   2   3   4  5-6 7-8 9-10 11-12 13-16
    "A": [12, 11, 10, 10, 9, 8, 7, 6, 5],
    "B": [11, 10, 9, 9, 8, 7, 6, 5, 4],      # 75 mm M2 of the Grant: 9 at range 3 (the 11.85 example)
    "C": [10, 9, 8, 8, 7, 6, 5, 4, 3],
    "D": [9, 8, 7, 6, 5, 4, 3, 2, 1],
}
HPT_LONG: dict[str, dict[str, list[int | None]]] = {
    #              17-24 25-32 33-40 41-60
    "A": {"70": [3, 2, 1, None], "75": [4, 3, 2, 1]},
    "B": {"70": [2, 1, None, None], "75": [3, 2, 1, None]},
    "C": {"70": [1, None, None, None], "75": [2, 1, None, None]},
    "D": {"70": [None, None, None, None], "75": [None, None, None, None]},
}

# --- HPN DRMs (13.4, 12.233, 8.512, 4.11) -- text values, size signs as decided ----------
# Plus is harder (the modifier is added to the die roll).  Target size (13.451 vs 8.331/8.341):
# the text calls the large 88 Flak both '+1' and '-1'; we follow 8.341 and the DRM convention:
# large -1, small +1, very small +2.
MOVING_DRM = 2            # 13.41, 7.42
FLANK_DRM = -1            # 13.453
BOT_DRM = -3              # 13.463
NON_CREW_DRM = 2          # 8.32
# HE direct fire at personnel (16.01 step 1) takes the target's cover as an HPN DRM: one per
# column shift (31.03: GOOD +1, FULL +2; ASSAULT -2, RUNNING -3 by the same count).

# --- 13.5 Hit Location (printed in the text) -------------------------------------
HIT_LOCATION_TURRETED = {1: "TUR", 2: "TUR", 3: "UH", 4: "UH", 5: "UH", 6: "UH", 7: "LH", 8: "LH", 9: "LH",
                         10: "TR"}
HIT_LOCATION_HULL = {1: "UH", 2: "UH", 3: "UH", 4: "UH", 5: "UH", 6: "LH", 7: "LH", 8: "LH", 9: "LH", 10: "TR"}

# --- Gun Penetration Table (reconstructed) ----------------------------------------
# Penetration numbers are on the armour factor scale (about 5 mm of plate per
# point).  Range bands in hexes:
PEN_BANDS: tuple[tuple[int, int], ...] = ((0, 4), (5, 8), (9, 12), (13, 16), (17, 24), (25, 32), (33, 40),
                                          (41, 60))
PENETRATION: dict[str, dict[str, list[int]]] = {
    "2pdr": {"AP": [12, 11, 10, 9, 8, 6, 5, 3]},
    "37mm-M6": {"AP": [12, 11, 10, 9, 8, 6, 5, 3]},
    "75mm-M2": {"AP": [14, 13, 12, 12, 11, 10, 9, 8]},
    "50mm-L42": {"AP": [12, 11, 10, 9, 8, 6, 5, 4], "APCR": [18, 16, 13, 10, 7, 5, 3, 1]},
    "75mm-L24": {"AP": [9, 9, 8, 8, 8, 7, 7, 6], "HEAT": [15, 15, 15, 15, 15, 15, 15, 15]},
    "47/32": {"AP": [10, 9, 8, 7, 6, 4, 3, 2]},
    "37mm-PaK36": {"AP": [8, 7, 6, 5, 4, 3, 2, 1], "APCR": [14, 12, 9, 6, 3, 1, 0, 0]},
    "20mm": {"AP": [5, 4, 3, 2, 1, 0, 0, 0]},
    "40mm-Bofors": {"AP": [9, 8, 7, 6, 5, 3, 2, 1]},
    "boys-atr": {"AP": [5, 4, 3, 0, 0, 0, 0, 0]},
    "pzb39-atr": {"AP": [5, 4, 3, 0, 0, 0, 0, 0]},
}
# HE Penetration Table (reconstructed): HE penetration number by gun size, any range.
HE_PEN: dict[int, int] = {20: 1, 37: 2, 47: 3, 50: 3, 65: 4, 75: 5, 88: 6, 105: 7}

# --- K-KILL Table (reconstructed): by penetration minus armour factor -1 .. +5 or more ---------
# 13.6311: roll < number K-KILL; roll = number F- or M-KILL instead; roll > number no kill.
# 13.71: the same roll <= BURN makes a burning wreck (1 less on the roll for rear hits).
KKILL_DIFFS = (-1, 0, 1, 2, 3, 4, 5)
KKILL: dict[str, list[int]] = {
    "AP": [2, 3, 4, 5, 6, 7, 9],
    "HE": [1, 2, 3, 4, 5, 6, 7],
    "BURN": [1, 2, 2, 3, 3, 4, 5],
}

# Gun-size rows shared by the M-KILL, F-KILL and Suppression tables (reconstructed).
SIZE_ROWS: tuple[tuple[int, str], ...] = ((20, "<=20"), (47, "25-47"), (65, "50-65"), (999, "75+"))
MKILL: dict[str, dict[str, int]] = {     # 13.6321: roll <= number M-KILL
    "TR": {"<=20": 3, "25-47": 5, "50-65": 6, "75+": 8},
    "UH": {"<=20": 8, "25-47": 6, "50-65": 5, "75+": 4},
}
FKILL: dict[str, int] = {"<=20": 8, "25-47": 6, "50-65": 5, "75+": 4, "36+gunfire": 2}   # 13.6331, 14.22
SUPPRESSION: dict[str, int] = {"<=20": 2, "25-47": 4, "50-65": 5, "75+": 7}           # 13.111
SUPPRESSION_MORALE: dict[str, int] = {"german": 7, "british": 7, "italian": 6}      # 13.1131 (text)

# AFV Bail Out Chart (13.8), reconstructed: roll <= number and the crew bails out.
BAIL_OUT: dict[str, int] = {"M-KILL": 3, "F-KILL": 2, "M+F": 6}

# Direct Hit Results for APC and Non-AFV Vehicles (17.6), reconstructed: columns by gunfire/FRAG
# factors (a factor uses the highest column not above it; half of 14 FRAG = 7 -> the '4' column,
# 19.22), and 'hit' for a direct hit of a 20 mm or smaller weapon.  'xM'/'xK' per 17.62.
NONAFV_COLUMNS = (1, 2, 4, 8, 12, 18)
NONAFV: dict[str, dict[str, str]] = {
    "apc": {"1": "-", "2": "1M", "4": "2M", "8": "3M/1K", "12": "4M/2K", "18": "5M/3K", "hit": "5M/3K"},
    "truck": {"1": "1M", "2": "2M", "4": "3M/1K", "8": "4M/2K", "12": "5M/3K", "18": "M/5K", "hit": "M/6K"},
}

# Direct Hits On Crew-Served Weapons <= 20 mm (17.53), reconstructed: roll <= number F-KILLs the weapon.
SMALL_HIT_ON_WEAPON_FKILL = 4
AP_COLLATERAL_FRAG = 4      # 7.55, 17.54 (text)

# --- Casualty Table (reconstructed) ------------------------------------------------
# Columns are gunfire/FRAG totals; a total uses the highest column not above it.
# Each column lists the result for die rolls 1..10 ('0' = 10): 0 = no effect, n = Cn.
CASUALTY_COLUMNS = (1, 2, 3, 4, 5, 6, 8, 10, 12, 14, 16, 20, 24, 28, 32, 36, 42, 50, 60)


def _column(c1: int, c2: int = 0, c3: int = 0, c4: int = 0, c5: int = 0) -> list[int]:
    """Die rolls 1..10: the first c5 rolls give C5, the first c4 C4 ... the first c1 C1."""
    return [sum(1 for n in (c1, c2, c3, c4, c5) if roll <= n) for roll in range(1, 11)]


CASUALTY: dict[int, list[int]] = {
    1: _column(1), 2: _column(2), 3: _column(3), 4: _column(3, 1), 5: _column(4, 1), 6: _column(4, 1),
    8: _column(5, 2), 10: _column(5, 2, 1), 12: _column(6, 2, 1),
    14: _column(7, 3, 1),          # 75 mm HE, roll 7 = C1 (11.85 example)
    16: _column(7, 3, 1), 20: _column(8, 4, 2), 24: _column(8, 4, 2, 1), 28: _column(9, 5, 2, 1),
    32: _column(9, 5, 3, 1), 36: _column(9, 6, 3, 2, 1), 42: _column(10, 6, 4, 2, 1),
    50: _column(10, 7, 4, 3, 1), 60: _column(10, 8, 5, 3, 2),
}

# HE row of the Casualty Table: FRAG factors by gun size (16.01 step 2), reconstructed
# except 75 mm = 14 (16.01) and the 76 mm mortar = 14 (19.22).
HE_FRAG: dict[int, int] = {20: 2, 37: 4, 40: 4, 47: 6, 50: 8, 57: 9, 65: 11, 75: 14, 76: 14, 81: 16, 88: 20,
                           105: 24, 150: 36}
GRENADE_FRAG_PER_SP = 5     # 22.122 (text)

# Cover State Effects (15.712): column shifts, + right (worse for the target), - left.
# Text: IMPROVED two left (15.712115); GOOD one left (hedgehog, 15.712117). ASSAULT is two right
# as the hedgehog example of 15.712117 computes it (7.54's 'one column' for riders is read as
# this same state); RUNNING one more than ASSAULT (reconstructed).  FULL: gunfire has no effect.
COVER_SHIFT: dict[str, int] = {"running": 3, "assault": 2, "stationary": 0, "good": -1, "improved": -2}
LEADER_SHIFT = 1            # 15.43 (text)

# --- Melee Table (reconstructed) ----------------------------------------------------
# Odds attacker:defender rounded down in the defender's favour (22.61); worse than 1-2 or
# better than 4-1 and the weaker side is out (22.72).  Results (attacker steps, defender steps).
MELEE_ODDS: tuple[tuple[int, int], ...] = ((1, 2), (1, 1), (3, 2), (2, 1), (3, 1), (4, 1))
MELEE: dict[str, list[tuple[int, int]]] = {
    "1-2": [(0, 1), (1, 1), (1, 1), (1, 0), (1, 0), (2, 0), (1, 0), (2, 1), (2, 0), (2, 0)],
    "1-1": [(0, 2), (1, 2), (1, 1), (1, 1), (0, 1), (1, 0), (1, 1), (2, 1), (1, 0), (2, 0)],
    "3-2": [(0, 2), (1, 2), (0, 1), (1, 1), (1, 1), (0, 1), (1, 0), (1, 1), (1, 0), (2, 1)],
    "2-1": [(0, 3), (1, 2), (0, 2), (1, 2), (0, 1), (1, 1), (1, 1), (0, 1), (1, 0), (1, 1)],
    "3-1": [(0, 3), (0, 3), (1, 2), (0, 2), (1, 2), (0, 1), (1, 1), (0, 1), (1, 1), (1, 0)],
    "4-1": [(0, 4), (0, 3), (1, 3), (0, 2), (0, 2), (1, 2), (0, 1), (1, 1), (0, 1), (1, 1)],
}

def size_row(size: int) -> str:
    """The gun-size row of the M-KILL, F-KILL and Suppression tables."""
    return next(row for top, row in SIZE_ROWS if size <= top)


def he_frag(size: int) -> int:
    """FRAG factors of an HE round of ``size`` mm: the nearest size row at or below it."""
    keys = [k for k in sorted(HE_FRAG) if k <= size]
    return HE_FRAG[keys[-1]] if keys else 1


def band_index(bands: tuple[tuple[int, int], ...], rng: int) -> int | None:
    return next((i for i, (lo, hi) in enumerate(bands) if lo <= rng <= hi), None)


def he_pen(size: int) -> int:
    keys = [k for k in sorted(HE_PEN) if k <= size]
    return HE_PEN[keys[-1]] if keys else 0


def casualty_column(factors: int, shift: int = 0) -> int | None:
    """The Casualty Table column for ``factors`` shifted ``shift`` columns (+ right); None below the table."""
    if factors <= 0:
        return None
    base = max(i for i, c in enumerate(CASUALTY_COLUMNS) if c <= factors)
    i = base + shift
    if i < 0:
        return None
    return CASUALTY_COLUMNS[min(i, len(CASUALTY_COLUMNS) - 1)]


def nonafv_column(factors: int) -> str | None:
    cols = [c for c in NONAFV_COLUMNS if c <= factors]
    return str(cols[-1]) if cols else None


# --- Alternate Ammunition Availability Table (17.23-17.24), reconstructed -----------------
# A secret d10 roll plus the scenario's modifier ([game_data.apcr] per side, 17.23: the SSR
# gives more where the Allied order of battle holds heavily armoured tanks such as the Grant
# or the Matilda) reads the rounds added to the base (half the side's capable units, 17.24).
# Each row: (highest modified roll, rounds).  Not the printed table.
AMMO_ROWS: tuple[tuple[int, int], ...] = ((1, 0), (3, 1), (5, 2), (7, 3), (9, 4), (10, 5))
AMMO_MAX = 6                # a modified roll above 10
HEAVY_TANKS = ("grant", "matilda")   # 17.23's note: these in the enemy order of battle ...
HEAVY_TANK_MODIFIER = 2              # ... add this to the roll (reconstructed)


def ammo_table(roll: int, modifier: int = 0) -> int:
    """17.23: APCR/HEAT rounds the table gives for a d10 ``roll`` (10 for a 0) plus ``modifier``
    (reconstructed)."""
    m = roll + modifier
    return next((n for top, n in AMMO_ROWS if m <= top), AMMO_MAX)
