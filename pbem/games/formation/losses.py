"""Combat hit distribution (7.4.2, 7.4.2.1): the first step loss, then, after
any ECs, what the remaining hits become (step losses, voluntary or forced
retreats: cases A, B and C).  Pure: the caller rolls the ECs and applies the
plan (combat.py, retreats.py)."""
from __future__ import annotations

from msgspec import Struct


class Group(Struct):
    """Units retreating together ``hexes`` hexes."""
    units: list[str]
    hexes: int
    forced: bool


class Plan(Struct):
    steps: list[str] = []          # one entry per strength point lost to a hit, in order
    retreats: list[Group] = []
    case: str = ""                 # "black" | "A" | "B" | "C" (7.4.2)
    note: str = ""


def first_loss(units: dict[str, int], as_unit: str, order: list[str] = ()) -> str:
    """7.4.2: the first step loss falls on the unit used for Armor Superiority; with
    none, the owner's choice (``order``), else our default: the strongest unit."""
    if as_unit in units:
        return as_unit
    for u in order:
        if u in units:
            return u
    return max(units, key=lambda u: (units[u], -list(units).index(u)))


def spread(n: int, units: dict[str, int], taken: dict[str, int], order: list[str] = ()) -> list[str]:
    """7.4.2.1: ``n`` step losses spread evenly over ``units`` (uid -> current SP), no unit
    taking a second before each has taken one (``taken`` counts this combat's losses so
    far).  Among equals: the owner's ``order``, else our default, the strongest unit first
    (the one least likely to be eliminated).  A unit reduced to 0 takes no more."""
    sp = dict(units)
    tk = {u: taken.get(u, 0) for u in units}
    rank = {u: i for i, u in enumerate(order)}
    out: list[str] = []
    for _ in range(n):
        live = [u for u in sp if sp[u] > 0]
        if not live:
            break
        u = min(live, key=lambda x: (tk[x], rank.get(x, len(rank)), -sp[x], list(units).index(x)))
        out.append(u)
        sp[u] -= 1
        tk[u] += 1
    return out


def plan_rest(rest: int, units: dict[str, int], *, attacker: bool, red: bool, failed: set[str],
              disrupted_before: set[str], choice: str, taken: dict[str, int],
              order: list[str] = ()) -> Plan:
    """What the ``rest`` hits left after the first step loss become (7.4.2).

    ``units``: the side's surviving units (uid -> SP); ``failed``: those that failed
    the red result's EC; ``disrupted_before``: defenders disrupted before the combat;
    ``choice``: the owner's "hold" or "retreat" (in case C "retreat" = follow the
    disrupted units)."""
    ids = list(units)
    if rest <= 0 or not ids:
        return Plan(case="black" if not red else "A")
    if red and failed and all(u in failed for u in ids):
        # Case B: all failed: the first remaining hit is a forced retreat of everyone
        if attacker:
            return Plan(case="B", retreats=[Group(ids, 1, True)], steps=spread(rest - 1, units, taken, order))
        return Plan(case="B", retreats=[Group(ids, rest, True)])
    if red and failed:
        # Case C: the disrupted units retreat one hex; the others hold or follow
        goers = [u for u in ids if u in failed or (not attacker and u in disrupted_before)]
        stay = {u: units[u] for u in ids if u not in goers}
        if choice == "hold":
            return Plan(case="C", retreats=[Group(goers, 1, True)], steps=spread(rest, stay, taken, order),
                        note="the units that passed hold")
        if attacker:
            return Plan(case="C", retreats=[Group(ids, 1, True)], steps=spread(rest - 1, units, taken, order),
                        note="the whole stack follows the forced retreat")
        return Plan(case="C", retreats=[Group(ids, rest, True)], note="the whole stack follows the forced retreat")
    case = "A" if red else "black"
    if choice == "hold":
        # a. Hold: every remaining hit a step loss; defenders already disrupted retreat one hex
        goers = [u for u in ids if not attacker and u in disrupted_before]
        stay = {u: units[u] for u in ids if u not in goers}
        return Plan(case=case, steps=spread(rest, stay or units, taken, order),
                    retreats=[Group(goers, 1, True)] if goers and stay else [])
    if attacker:
        # c. the first remaining hit (only) becomes a voluntary retreat
        return Plan(case=case, retreats=[Group(ids, 1, False)], steps=spread(rest - 1, units, taken, order))
    return Plan(case=case, retreats=[Group(ids, rest, False)])    # b. every hit a hex of retreat


def victory(att_hits: int, def_hits: int, att_alive: bool, def_alive: bool) -> str:
    """7.4.3: the side with fewer hits wins unless all its units in the combat are gone;
    returns "attacker", "defender" or ""."""
    if att_hits < def_hits and att_alive:
        return "attacker"
    if def_hits < att_hits and def_alive:
        return "defender"
    return ""
