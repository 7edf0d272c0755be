"""The Combat Results Table (7.4.1.2, 7.4.2): odds heading of each result
column per terrain, the result of a modified roll (1..20), red results.

RECONSTRUCTED: the rulebook text prints no CRT.  Its one datum (Combat
Sequence Example: Clear, 1:1, modified roll 4 -> 2/1, both numbers red) is
kept; everything else is our reconstruction, following the designer's notes
(higher rolls favour the attacker; each column has a band where black step
losses give way to red results).  The rules read a scenario's ``[crt]`` rows
and ``[game_data.crt_odds]`` only (lint: complete); these constants are our
reconstruction that scenarios/mirages_gen.py writes into the files.
"""
from __future__ import annotations

from fractions import Fraction

from msgspec import Struct

RECONSTRUCTED = True

# Result columns A..H; row = modified roll 1..20 (7.4.1.4: clamped to 1..20).
# "a/d": hits on the attacker / the defender; "*" = printed red: every unit of that side takes an EC.
DEFAULT_ROWS: dict[str, list[str]] = {
    "1": ["3/0", "3/0", "2*/1*", "2*/1*", "1*/1*", "1/2", "0/2", "0/3"],
    "2": ["3/0", "2/0", "2*/1*", "1*/1*", "1/2", "1/2", "0/3", "0/3"],
    "3": ["3/0", "2*/1*", "2*/1*", "1*/1*", "1/2", "0/2", "0/3", "0/3"],
    "4": ["2/0", "2*/1*", "1*/1*", "1/2", "1/2", "0/3", "0/3", "0/3*"],
    "5": ["2*/1*", "2*/1*", "1*/1*", "1/2", "0/2", "0/3", "0/3", "0/3*"],
    "6": ["2*/1*", "1*/1*", "1/2", "1/2", "0/3", "0/3", "0/3*", "0/3*"],
    "7": ["2*/1*", "1*/1*", "1/2", "0/2", "0/3", "0/3", "0/3*", "0/3*"],
    "8": ["1*/1*", "1/2", "1/2", "0/3", "0/3", "0/3*", "0/3*", "0/3*"],
    "9": ["1*/1*", "1/2", "0/2", "0/3", "0/3", "0/3*", "0/3*", "0/3*"],
    "10": ["1/2", "1/2", "0/3", "0/3", "0/3*", "0/3*", "0/3*", "0/4*"],
    "11": ["1/2", "0/2", "0/3", "0/3", "0/3*", "0/3*", "0/3*", "0/4*"],
    "12": ["1/2", "0/3", "0/3", "0/3*", "0/3*", "0/3*", "0/4*", "0/4*"],
    "13": ["0/2", "0/3", "0/3", "0/3*", "0/3*", "0/3*", "0/4*", "0/4*"],
    "14": ["0/3", "0/3", "0/3*", "0/3*", "0/3*", "0/4*", "0/4*", "0/4*"],
    "15": ["0/3", "0/3", "0/3*", "0/3*", "0/3*", "0/4*", "0/4*", "0/4*"],
    "16": ["0/3", "0/3*", "0/3*", "0/3*", "0/4*", "0/4*", "0/4*", "0/5*"],
    "17": ["0/3", "0/3*", "0/3*", "0/3*", "0/4*", "0/4*", "0/4*", "0/5*"],
    "18": ["0/3*", "0/3*", "0/3*", "0/4*", "0/4*", "0/4*", "0/5*", "0/5*"],
    "19": ["0/3*", "0/3*", "0/3*", "0/4*", "0/4*", "0/4*", "0/5*", "0/5*"],
    "20": ["0/3*", "0/3*", "0/4*", "0/4*", "0/4*", "0/5*", "0/5*", "0/5*"],
}
COLUMNS = ["A", "B", "C", "D", "E", "F", "G", "H"]

# The odds of the result columns (reconstructed): one ladder of ratios, from 1:2 up by whole
# ratios to 9:1; a terrain's row is the run of len(COLUMNS) headings that starts at its
# leftmost one.  The more obstructive the terrain, the further right its row starts, so the
# same column needs higher odds (1: obstructive terrain favours the defender).
LADDER: tuple[str, ...] = ("1:2", "1:1", "3:2") + tuple(f"{n}:1" for n in range(2, 10))
_CLEAR, _ROUGH, _HARD, _FORT = "1:2", "1:1", "3:2", "2:1"      # leftmost heading per terrain class
DEFAULT_ODDS: dict[str, str] = {
    "clear": _CLEAR, "desert": _CLEAR, "point-of-interest": _CLEAR,
    "broken": _ROUGH, "light-forest": _ROUGH, "marsh": _ROUGH, "rough": _ROUGH, "salt-marsh": _ROUGH,
    "village": _HARD, "hill": _HARD, "escarpment": _HARD, "town": _HARD,
    "dense-forest": _FORT, "minefield": _FORT, "box": _FORT, "minefield-box": _FORT, "fortress": _FORT,
}


def headings(leftmost: str, n: int = len(COLUMNS)) -> list[str]:
    """The ``n`` odds headings of a row starting at ``leftmost`` on the ladder (ValueError if
    ``leftmost`` is no rung, or the ladder ends first)."""
    i = LADDER.index(leftmost)
    if i + n > len(LADDER):
        raise ValueError(f"the odds ladder ends at {LADDER[-1]}: {n} columns cannot start at {leftmost}")
    return list(LADDER[i:i + n])
BELOW = "5/0"        # 7.4.1.2: odds under the terrain's leftmost column


class Result(Struct, frozen=True):
    """A CRT result: hits on each side and whether each number is red (EC, 7.4.2)."""
    text: str
    att: int
    deff: int
    att_red: bool
    def_red: bool


def parse_result(text: str) -> Result:
    a, d = text.split("/")
    return Result(text=text, att=int(a.rstrip("*")), deff=int(d.rstrip("*")),
                  att_red=a.endswith("*"), def_red=d.endswith("*"))


def _ratio(h: str) -> Fraction:
    a, d = h.split(":")
    return Fraction(int(a), int(d))


def odds_row(sc, terrain: str) -> list[str]:
    """The odds headings of ``terrain``'s row, from the leftmost heading the scenario's
    ``[game_data.crt_odds]`` gives it (lint: one per terrain a unit may stand in)."""
    return headings(sc.tables.data.crt_odds[terrain])


def column(attack: int, defence: int, headings: list[str]) -> int | None:
    """5.1, 7.4.1.2: the index of the column of ``attack``:``defence`` rounded down to a
    heading, capped at the rightmost; None below the leftmost (a "5/0" result)."""
    if defence <= 0:
        return len(headings) - 1
    r = Fraction(attack, defence)
    best = None
    for i, h in enumerate(headings):
        if r >= _ratio(h):
            best = i
    return best


def shift(col: int, shifts: int, headings: list[str]) -> int:
    """7.4.1.3: a column shift, kept inside the row (our reading: never off either edge)."""
    return max(0, min(len(headings) - 1, col + shifts))


def lookup(rows: dict[str, list[str]], col: int | None, modified: int) -> Result:
    """The result in column ``col`` of the CRT ``rows`` (the scenario's ``crt.rows``, lint:
    modified rolls 1..20) for a modified roll (None: the "5/0" below the table)."""
    if col is None:
        return parse_result(BELOW)
    return parse_result(rows[str(max(1, min(20, modified)))][col])
