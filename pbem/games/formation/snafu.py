"""SNAFU/Schlachtenglueck (5.2) by standing order.

The holder may force one re-roll of any die roll of either side, handing the
marker to the opponent.  By email nobody can be asked between a roll and its
effect, so the marker is used only by the holder's standing order
(``doctrine snafu ...``); with none set it is simply not used (no pause).

Clauses of the doctrine (any number, e.g. ``doctrine snafu combat 9 initiative``):
``never``; ``PURPOSE`` re-roll an enemy roll of that purpose that favours the
enemy; ``combat N`` re-roll an enemy combat die of N or more; ``own PURPOSE``
re-roll an own roll of that purpose that does not favour us.  Purposes:
combat, rbc, initiative, reaction, activation, ec.
"""
from __future__ import annotations

from collections.abc import Callable

from pbem.core.orders import OrderError
from pbem.core.ruleset import Ctx
from pbem.games.formation import events as E
from pbem.games.formation.state import other

PURPOSES = ("combat", "rbc", "initiative", "reaction", "activation", "ec")


def parse(text: str) -> list[tuple[str, str, int]]:
    """Doctrine clauses as (whose, purpose, threshold): whose is 'enemy' or 'own'."""
    toks = text.lower().split()
    out: list[tuple[str, str, int]] = []
    i = 0
    if toks == ["never"]:
        return out
    while i < len(toks):
        whose = "enemy"
        if toks[i] == "own":
            whose, i = "own", i + 1
        if i >= len(toks) or toks[i] not in PURPOSES:
            raise OrderError(f"SNAFU doctrine: expected one of {', '.join(PURPOSES)} (optionally after 'own'), "
                             f"or 'never'; got {' '.join(toks[i:i + 1]) or 'nothing'}", "5.2")
        purpose, i = toks[i], i + 1
        n = 0
        if i < len(toks) and toks[i].isdigit():
            n, i = int(toks[i]), i + 1
            if not 1 <= n <= 10:
                raise OrderError("SNAFU doctrine: a die threshold is 1..10", "5.2")
        out.append((whose, purpose, n))
    return out


def _wants(text: str, holder: str, roller: str, purpose: str, value: int, good: bool) -> bool:
    for whose, p, n in parse(text):
        if p != purpose:
            continue
        if whose == "enemy" and roller != holder and (value >= n if n else good):
            return True
        if whose == "own" and roller == holder and not good and (value <= n if n else True):
            return True
    return False


def reroll(ctx: Ctx, roller: str, purpose: str, v: int, good: bool) -> list[int]:
    """The re-roll the SNAFU holder's doctrine forces on die ``v`` ([] when none).
    5.2: only one re-roll per die roll, so the new die stands."""
    fm = ctx.state.fm
    holder = fm.snafu
    text = fm.doctrines.get(holder, {}).get("snafu", "") if holder else ""
    if text and _wants(text, holder, roller, purpose, v, good):
        ctx.emit(E.SnafuUsed(holder=holder, purpose=purpose, roller=roller, old=v, doctrine=f"snafu {text}"))
        return [ctx.dice.roll(10)]
    return []


def d10(ctx: Ctx, roller: str, purpose: str, good: Callable[[int], bool]) -> tuple[int, list[int]]:
    """One d10 (0 reads as 10: ctx.dice gives 1..10) of ``roller``, re-rolled once when
    the SNAFU holder's doctrine asks for it.  Returns (the die that counts, every die rolled)."""
    v = ctx.dice.roll(10)
    again = reroll(ctx, roller, purpose, v, good(v))
    return (again[0], [v] + again) if again else (v, [v])


def passes_to(holder: str, used: bool) -> str:
    """5.2: an unused marker goes to the other player at the start of the next turn."""
    return holder if used or not holder else other(holder)
