"""Indirect fire tables (18-20) as data.

The rulebook text prints none of these charts: the Battery Contact numbers, the
Indirect Fire Accuracy Diagram, the Indirect Fire Direct Hit Table, the
Off-Board Counter-Battery Matrix, the batteries' FRAG and the mortars' ranges
are all RECONSTRUCTED here, consistent with what the text does say
(concentration: 7 hexes and 7 direct-hit rolls, 18.61; barrage: 19 hexes and
20 rolls, 18.71; registrations and an existing CFF moved two hexes or less
+20, moved more than six -20, 18.33; the 76 mm mortar's 14 FRAG, halved to 7,
on the '4' column of the vehicle table, 19.22).  They are not the printed
game's values; an owner of the game corrects them here without touching the
rules code.
"""
from __future__ import annotations

from pbem.games.advanced_tobruk.tables import fire_ap_tables as FT

RECONSTRUCTED = True

# --- 18.221 Battery Contact numbers per nationality (reconstructed) -------------------
# A contact roll (d10) must be this or less; NO FIRE turns add to the roll (18.222), high
# ammunition supply subtracts one, low adds one (18.224).
CONTACT: dict[str, int] = {"british": 7, "australian": 7, "indian": 7, "polish": 7, "german": 6, "italian": 5}
CONTACT_DEFAULT = 6
AMMO_CONTACT_DRM: dict[str, int] = {"high": -1, "low": 1}          # 18.224 (text)

# --- 18.3 Indirect Fire Accuracy Diagram (reconstructed) ----------------------------------
# Two d10 read as a percentile (first die tens, second units, '0' = 0, 00 = 100), plus the
# DRMs (18.33: +20 registration or an existing CFF moved two hexes or less, -20 moved more
# than six; 19.13 on-board LOS DRMs subtracted).  The modified total gives how far the fire
# drifts from the aimed hex; the unmodified percentile gives the direction, so the diagram
# 'lies on the map' the same way for every player.
ACCURACY_BANDS: tuple[tuple[int, int], ...] = ((56, 0), (36, 1), (16, 2), (-999, 3))   # (at least, hexes off)
REGISTRATION_DRM = 20          # 18.332, 18.551, 19.61 (text)
CFF_NEAR_DRM = 20              # 18.332 (text): an existing CFF moved two hexes or less
CFF_NEAR = 2
CFF_FAR_DRM = -20              # 18.331 (text): moved more than six hexes
CFF_FAR = 6
ROLLING_DRM = 20               # 18.733 (text)


def percentile(tens: int, units: int) -> int:
    """Two d10 (1..10, 10 = '0') as 1..100."""
    p = (tens % 10) * 10 + units % 10
    return p or 100


def drift(total: int) -> int:
    """Hexes between the aimed hex and the final hex for a modified accuracy total."""
    return next(off for least, off in ACCURACY_BANDS if total >= least)


def direction(pct: int) -> int:
    """The direction of the drift (an index into the hex grid's DIRECTIONS, N first)."""
    return (pct - 1) % 6


# --- 18.4, 19.04 Indirect Fire Direct Hit Table (reconstructed) ------------------------------
# A direct-hit roll (d10) hits on this number or less, plus the target's cover DRM (31.03:
# +1 per left column shift, FULL +2, 19.17).  Off-board batteries by class, on-board fire by
# mortar size or gun; 'smoke' is the on-board smoke row (20.35: LOS DRMs added).
DIRECT_HIT: dict[str, int] = {"light": 3, "medium": 2, "heavy": 1,
                              "light mortar": 2, "medium mortar": 3, "gun": 2, "smoke": 6}
FULL_COVER_DRM = 2             # 19.17, 31.03 (text)


def battery_class(calibre: int) -> str:
    """Off-board batteries by calibre: light up to 100 mm, medium up to 148, heavy 149+ (31.212's line)."""
    return "light" if calibre <= 100 else "medium" if calibre < 149 else "heavy"


def mortar_class(size: int) -> str:
    return "light mortar" if size <= 60 else "medium mortar"


# --- 18.6, 18.7 FFE patterns (text) ---------------------------------------------------------
CONCENTRATION_RADIUS = 1       # the FFE hex and the six around it, one direct-hit roll each (18.61)
BARRAGE_RADIUS = 2             # the FFE hex and two rings: 19 hexes, two rolls in the FFE hex (18.71)
BARRAGE_CENTRE_ROLLS = 2

# --- FRAG of an off-board battery's FFE (reconstructed) ---------------------------------------
# The Off-Board Artillery Chart is missing: a battery attacks each hex with the HE FRAG of its
# calibre (the Casualty Table's HE row, fire_ap_tables.HE_FRAG) unless its SSR gives ``frag``.


def battery_frag(calibre: int) -> int:
    return FT.he_frag(calibre)


# --- 18.113 Off-Board Counter-Battery Matrix (reconstructed) -----------------------------------
# Which battery class may fire counter-battery at which (by their maximum ranges).
COUNTER_BATTERY: dict[str, tuple[str, ...]] = {
    "light": ("light",),
    "medium": ("light", "medium"),
    "heavy": ("light", "medium", "heavy"),
}
LOCATE_ON = 2                  # 18.1151 (text): a roll of 1-2 locates a battery that fired
CB_ACQUIRE = 2                 # 18.1152 (text): neutralized from the second turn after the declaration
CB_AFTER = 2                   # 18.1153 (text): two more turns after the fire ends

# --- 19.05 mortar ranges (reconstructed), maximum and minimum in hexes ------------------------
# Used when the weapon's type gives no ``range = [max, min]``.  The 76 mm (British 3-inch) row
# agrees with the Salient card's own reconstruction: about 1,600 yards at 50 yards a hex (3.01).
MORTAR_RANGE: dict[int, tuple[int, int]] = {50: (10, 1), 51: (10, 1), 60: (20, 2), 76: (32, 3), 81: (45, 3),
                                            82: (45, 3)}
GUN_MIN_RANGE = 10             # 20.21 (text)
GUN_MIN_SIZE = 75              # 20.01 (text)
LOS_LIMIT = 8                  # 18.861, 19.13, 20.03 (text): more than +8 HPN and it may not fire/observe
MORTAR_ROF = 1                 # 19.71 (text): doubled by a BOT marker in the target hex

# --- 20.3 smoke (text) -----------------------------------------------------------------------
SMOKE_HPN = 4                  # 20.31: +4 HPN for fire into or through a smoke hex
SMOKE_SHIFT = 4                # 20.31: four columns left on the Casualty Table
SMOKE_OFF_BOARD = 1            # 20.362: placed showing '1' (two turns)
SMOKE_ON_BOARD = 2             # 20.363: placed showing '2' (one turn)

# --- vehicles under indirect fire (reconstructed where noted) ----------------------------------
BURN_ON = 3                    # 19.22 a soft vehicle K-KILLed by a direct hit burns on this or less (reconstructed)
