"""Odds-ratio combat: the CRT column for an attack strength against a defence strength.

At or above 1:1 the ratio is rounded down (11:4 -> 2:1) and capped at
``best``:1; below 1:1 it is 1:n with n rounded up (2:3 -> 1:2).  A game
passes its own limits and cites its own rule numbers."""
from __future__ import annotations


def odds_column(attack: int, defence: int, best: int = 6, worst: int = 2) -> str | None:
    """The column, or None when the odds are worse than 1:``worst`` (not allowed)."""
    if defence <= 0:
        return f"{best}:1"
    if attack <= 0:
        return None
    if attack >= defence:
        return f"{min(attack // defence, best)}:1"
    n = -(-defence // attack)
    if n > worst:
        return None
    return f"1:{n}"
