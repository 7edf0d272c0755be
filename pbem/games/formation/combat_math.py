"""Combat arithmetic (7.4.1.1-7.4.1.4, 5.1): battle strengths from the chits,
combined arms, armor superiority, the DRMs and their clamp, retreat-before-
combat modifiers.  Pure functions over ``Fighter`` rows; no state, no dice."""
from __future__ import annotations

from fractions import Fraction
from math import ceil

from msgspec import Struct

from pbem.games.formation import chits

TANK = ("tank", "panzer")
# 7.4.1.3; armoured cars count as the recce units they were (our reading: the example's Blue
# stack, a tank and an armoured car, has the bonus)
CA_PARTNERS = ("mot-infantry", "recce", "motorcycle", "armoured-car", "armored-car")
RBC_HALF = ("recce", "armoured-car", "armored-car")        # 7.4.1.1


class Fighter(Struct, frozen=True):
    """What combat reads of one unit."""
    id: str
    sp: int                        # current strength points
    er: int                        # printed effectiveness rating (front)
    er_disrupted: int = 0          # the back's rating (5.6.3), 0 = same as ``er``
    disrupted: bool = False
    tank: int = 0
    at: int = 0
    category: str = "infantry"
    formation: str = ""
    motorized: bool = False
    static: bool = False
    oos: bool = False              # its formation's HQ is out of supply (5.7.5)
    no_ca: bool = False            # a tank marked as not qualifying for combined arms

    @property
    def rating(self) -> int:
        return (self.er_disrupted or self.er) if self.disrupted else self.er


def ceil_frac(x: Fraction) -> int:
    return -((-x.numerator) // x.denominator)


# --- 7.4.1.2 strength -----------------------------------------------------------------

def defence_column(f: Fighter, improved: bool, strongpoint: bool) -> str:
    """5.6.3, 7.4.1.2: disrupted uses the left column, except in a friendly functional
    strongpoint (the right one); Improved Defense the right one."""
    if strongpoint:
        return "improved"
    if f.disrupted:
        return "disrupted"
    return "improved" if improved else "regular"


def battle_strength(fs: list[Fighter], chit: int, *, attack_kind: str = "", improved: bool = False,
                    strongpoint: bool = False) -> tuple[int, list[str]]:
    """A side's final battle strength (5.1: fractions kept per unit, the side's total
    rounded up) and a line per unit.  ``attack_kind`` set: attacking (an out-of-supply
    formation's units halved, 5.7.5); empty: defending."""
    total = Fraction(0)
    lines = []
    for f in fs:
        if attack_kind:
            m = chits.multiplier(chit, f.rating, attack_kind, False)
        else:
            m = chits.multiplier(chit, f.rating, defence_column(f, improved, strongpoint), True)
        s = Fraction(f.sp * m)
        note = ""
        if attack_kind and f.oos:
            s /= 2
            note = " halved (out of supply, 5.7.5)"
        total += s
        lines.append(f"{f.id} {f.sp}x{m}={s}{note}")
    return ceil_frac(total), lines


def combined_arms(fs: list[Fighter]) -> bool:
    """7.4.1.3: an undisrupted tank unit with an undisrupted motorized infantry, recce or
    motorcycle unit of the same formation in the same stack."""
    ok = [f for f in fs if not f.disrupted]
    return any(t.category in TANK and not t.no_ca and any(p.category in CA_PARTNERS and p.formation == t.formation
                                                          for p in ok if p.id != t.id)
               for t in ok)


def ca_shift(att: bool, dfn: bool) -> tuple[int, list[str]]:
    """Net column shift of both sides' combined-arms bonus (both: they cancel, as the
    Combat Sequence Example shows)."""
    if att and dfn:
        return 0, ["both sides have combined arms: no shift (7.4.1.3)"]
    if att:
        return 1, ["attacker's combined arms: one column right (7.4.1.3)"]
    if dfn:
        return -1, ["defender's combined arms: one column left (7.4.1.3)"]
    return 0, []


# --- 7.4.1.4 DRMs -------------------------------------------------------------------------

def _pick(fs: list[Fighter], key: str) -> Fighter | None:
    """The unit with the most Tank (AT) points; ties: the higher strength, then the first."""
    best = None
    for f in fs:
        if best is None or (getattr(f, key), f.sp) > (getattr(best, key), best.sp):
            best = f
    return best


class Armor(Struct, frozen=True):
    drm: int
    att_unit: str = ""             # the attacker's unit used (takes the first loss)
    def_unit: str = ""
    mode: str = ""                 # the defender's choice: "tank" | "at" | ""
    text: str = ""


def armor_superiority(att: list[Fighter], dfn: list[Fighter], *, tank_mod: int = 0, at_bonus: int = 0,
                      mode: str = "best") -> Armor:
    """7.4.1.4 C.  ``tank_mod``: the TEC's effect on the attacker's Tank Points in the
    defender's terrain; ``at_bonus``: terrain plus strongpoint bonus to defending AT
    points.  ``mode``: the defender's choice "tank", "at", or "best" (our default: the
    lower DRM; on a tie Tank Points)."""
    a_tanks = [f for f in att if f.tank > 0]
    d_tanks = [f for f in dfn if f.tank > 0]
    if not a_tanks:
        if not d_tanks:
            return Armor(0, text="no Tank Points on either side: no armor superiority")
        d = _pick(d_tanks, "tank")
        return Armor(-d.tank, def_unit=d.id, mode="tank",
                     text=f"attacker has no Tank Points: {d.id}'s {d.tank} TP, {-d.tank:+d} (7.4.1.4 C)")
    a = _pick(a_tanks, "tank")
    av = max(0, a.tank + tank_mod)
    options = []
    if d_tanks:
        d = _pick(d_tanks, "tank")
        options.append(("tank", av - d.tank, d, d.tank))
    if dfn:
        d = _pick(dfn, "at")
        dv = d.at + at_bonus
        options.append(("at", max(0, av - dv), d, dv))
    if not options:
        return Armor(av, att_unit=a.id, text=f"{a.id} {av} TP, no defender: {av:+d}")
    if mode in ("tank", "at"):
        chosen = next((o for o in options if o[0] == mode), options[0])
    else:
        chosen = min(options, key=lambda o: (o[1], o[0] != "tank"))
    m, drm, d, dv = chosen
    what = "TP" if m == "tank" else "AT"
    return Armor(drm, att_unit=a.id, def_unit=d.id, mode=m,
                 text=f"{a.id} {av} TP against {d.id} {dv} {what}: {drm:+d} (7.4.1.4 C)")


def support_drm(kind: str, hexes: list[bool], *, attacking: bool) -> int:
    """7.4.1.4 A: Combat Support.  ``hexes``: one entry per qualifying supporting hex,
    True when it holds a unit of the same (lead) formation.  ``kind`` for the attacker:
    hasty | regular | prepared; for the defender: regular | improved | disrupted."""
    if attacking:
        if kind == "regular":
            return sum(1 for same in hexes if same)
        if kind == "prepared":
            return sum(2 if same else 1 for same in hexes)
        return 0
    if kind == "regular":
        return -sum(1 for same in hexes if same)
    if kind == "improved":
        return -sum(2 if same else 1 for same in hexes)
    return 0


def hq_support(kind: str, points: int) -> int:
    """7.4.1.4 B: half the HQ's current points (rounded up) in a Regular Attack, all in a Prepared one."""
    if kind == "regular":
        return ceil(points / 2)
    if kind == "prepared":
        return points
    return 0


def clamp_drm(parts: list[int]) -> int:
    """7.4.1.4: positives added, negatives subtracted, the total kept within +/-12."""
    return max(-12, min(12, sum(parts)))


def modified_roll(die: int, drm: int) -> int:
    """7.4.1.4: the modified roll, below 1 read as 1, above 20 as 20."""
    return max(1, min(20, die + drm))


# --- 7.4.1.1 retreat before combat -------------------------------------------------------

def rbc_blockers(dfn: list[Fighter]) -> list[str]:
    """Why the defending stack may not try retreat before combat (7.4.1.1); [] = it may
    (the retreat hex is checked by the caller)."""
    why = []
    if any(f.disrupted for f in dfn):
        why.append("a defender is disrupted")
    if not any(f.motorized for f in dfn):
        why.append("no defender is motorized or mechanized")
    if len({f.formation for f in dfn}) > 1:
        why.append("the defenders belong to more than one formation")
    if any(f.static for f in dfn):
        why.append("a defender is a static unit")
    return why


def rbc_drm(own: list[Fighter], other: list[Fighter], *, defending: bool) -> tuple[int, str]:
    """7.4.1.1: half (rounded up, 5.1) the printed rating of one undisrupted armoured car
    or recce unit; the defender against an all-leg attacking stack may instead add the
    full rating of a motorized unit.  The best choice is taken."""
    best, unit = 0, ""
    for f in own:
        if f.category in RBC_HALF and not f.disrupted and ceil(f.er / 2) > best:
            best, unit = ceil(f.er / 2), f.id
    if defending and other and not any(o.motorized for o in other):
        for f in own:
            if f.motorized and f.er > best:
                best, unit = f.er, f.id
    return best, unit
