"""Combat multiplier chits (3.4, 7.4.1.2): one drawn per side and combat.

RECONSTRUCTED: the text shows one sample chit, split by its transcription
into an attack table (ratings 2-4) and a defence table (ratings 5-7); we read
both halves as one chit (chit 1 below) and fill in its missing cells.  The
nine other chits are ours: a better Effectiveness Rating, a Prepared Attack
or an Improved Defense give higher multipliers on average (7.4.1.2).

Each side draws from its own full pool of ``len(CHITS)`` chits (chits go
back after each combat, 7.4.1.2): the draw is one seeded roll of a
``len(CHITS)``-sided die, recorded as the chit's number.
"""
from __future__ import annotations

RECONSTRUCTED = True

ATTACK = ("hasty", "regular", "prepared")
DEFENCE = ("disrupted", "regular", "improved")

# One string per chit: six groups for Effectiveness Ratings 2..7, each "HRP/DRI":
# attack Hasty, Regular, Prepared / defence Disrupted, Regular, Improved (or friendly strongpoint).
CHITS: list[str] = [
    "123/212 311/211 232/233 221/112 222/233 333/122",  # chit 1
    "122/123 111/211 122/231 211/223 121/223 333/223",  # chit 2
    "122/111 112/111 331/222 132/122 333/313 131/322",  # chit 3
    "222/211 113/121 213/323 122/131 233/133 122/322",  # chit 4
    "112/121 111/223 222/121 222/113 133/221 223/222",  # chit 5
    "111/121 112/123 221/122 312/122 333/322 223/131",  # chit 6
    "211/111 233/122 213/112 133/331 213/132 222/333",  # chit 7
    "111/212 221/232 112/113 223/313 112/232 213/233",  # chit 8
    "111/122 222/112 122/111 313/222 322/222 333/133",  # chit 9
    "111/112 222/112 131/212 133/232 222/313 332/333",  # chit 10
]


def multiplier(chit: int, er: int, column: str, defending: bool) -> int:
    """The multiplier on chit ``chit`` (1-based) for rating ``er`` (below 2 reads 2, above 7
    reads 7) in ``column`` (attack: hasty/regular/prepared; defence: disrupted/regular/improved)."""
    group = CHITS[chit - 1].split()[max(2, min(7, er)) - 2]
    att, dfn = group.split("/")
    cols = DEFENCE if defending else ATTACK
    return int((dfn if defending else att)[cols.index(column)])


def draw(roll) -> int:
    """Draw a chit: ``roll(sides)`` is the side's seeded die; returns the chit number (1-based)."""
    return roll(len(CHITS))
