"""Combat resolution on the board (7.4.1 D-G): the fighters of each side as the
state and the scenario give them, Combat Support hexes, the DRMs, the chits,
the odds column and the CRT result, emitted as one ``CombatResolved``."""
from __future__ import annotations

from pbem.core.ruleset import Ctx
from pbem.games.formation import board as B
from pbem.games.formation import chits, crt
from pbem.games.formation import combat_events as CE
from pbem.games.formation.combat_math import (Armor, Fighter, armor_superiority, battle_strength, ca_shift,
                                              clamp_drm, combined_arms, hq_support, modified_roll, support_drm)
from pbem.games.formation.combat_state import Combat
from pbem.games.formation.command import in_command
from pbem.games.formation.snafu import d10


def fighter(st, sc, uid: str) -> Fighter:
    u = st.units[uid]
    d = B.udata(sc, uid)
    f = d.formation
    fr = st.fm.formations.get(f)
    return Fighter(id=uid, sp=u.strength, er=d.er, er_disrupted=d.er_disrupted,
                   disrupted=u.disrupted, tank=d.tank, at=d.at,
                   category=d.category, formation=f, motorized=B.is_motorized(sc, uid),
                   static=B.is_static(sc, uid), oos=bool(fr and fr.oos), no_ca=d.no_ca)


def live(st, ids: list[str]) -> list[str]:
    return [u for u in ids if not st.units[u].eliminated and st.units[u].hex is not None]


def defence_kind(st, sc, cb: Combat) -> tuple[bool, bool]:
    """(improved, friendly strongpoint) of the defending hex (7.6, 3.1.3)."""
    side = st.units[cb.defenders[0]].side
    sp = B.functional_strongpoint(st, sc, cb.target) == side
    return cb.target in st.fm.improved or sp, sp


def _supporters(st, sc, side: str, into: str, exclude: set[str]) -> dict[str, list[str]]:
    """7.4.1.4 A: per hex next to ``into`` (not in ``exclude``): the units there that may
    support: they project a ZOC into ``into``, are in command, undisrupted, not static,
    and their formation's HQ is in supply (5.7.5)."""
    out: dict[str, list[str]] = {}
    for n in sc.board.grid.neighbours(into):
        if n in exclude:
            continue
        ok = []
        for u in B.combat_units(st, sc, n, side):
            f = B.formation_of(sc, u.id)
            fr = st.fm.formations.get(f)
            if (not B.is_static(sc, u.id) and not u.disrupted and B.projects_zoc(st, sc, u, into)
                    and in_command(st, sc, u.id) and not (fr and fr.oos)):
                ok.append(u.id)
        if ok:
            out[n] = ok
    return out


def lead_formation(st, sc, cb: Combat, kind: str) -> str:
    """7.4.1.4 A: a defending stack of several formations supports as its lead formation;
    our default for the defender's choice: the one giving the best support, then the most units."""
    forms = sorted({B.formation_of(sc, u) for u in cb.defenders})
    if len(forms) == 1:
        return forms[0]
    side = st.units[cb.defenders[0]].side
    sup = _supporters(st, sc, side, cb.hex, {cb.target})

    def score(f: str) -> tuple[int, int]:
        hexes = [any(B.formation_of(sc, u) == f for u in us) for us in sup.values()]
        return (support_drm(kind, hexes, attacking=False), -sum(1 for u in cb.defenders if B.formation_of(sc, u) == f))
    return min(forms, key=score)


def resolve(ctx: Ctx, cb: Combat, att_chit_roll: int, def_chit_roll: int, armour_mode: str) -> crt.Result:
    """7.4.1 D-G for the open combat: emits ChitsDrawn and CombatResolved; returns the result."""
    st, sc = ctx.state, ctx.sc
    ctx.emit(CE.ChitsDrawn(rolls=[att_chit_roll, def_chit_roll], att_chit=att_chit_roll, def_chit=def_chit_roll))
    atk = [fighter(st, sc, u) for u in live(st, cb.attackers)]
    dfn = [fighter(st, sc, u) for u in live(st, cb.defenders)]
    improved, sp_here = defence_kind(st, sc, cb)
    a_str, a_lines = battle_strength(atk, att_chit_roll, attack_kind=cb.kind)
    d_str, d_lines = battle_strength(dfn, def_chit_roll, improved=improved, strongpoint=sp_here)
    terr = B.terrain(sc, cb.target) or "clear"
    heads = crt.odds_row(sc, terr)
    col = crt.column(a_str, d_str, heads)
    shifts: list[str] = []
    if col is not None:
        n, shifts = ca_shift(combined_arms(atk), combined_arms(dfn))
        for feat in sorted(sc.board.side_features(cb.hex, cb.target)):
            row = B.gd(sc).hexside_cost.get(feat)
            k = row.column_shift if row is not None else 0
            if k:                  # the scenario's TEC: an attack across this hexside (reconstructed data)
                n += k
                shifts.append(f"attack across a {feat}: {k:+d} column(s) (TEC)")
        col = crt.shift(col, n, heads)
    else:
        shifts = ["odds below the terrain's leftmost column: a 5/0 result (7.4.1.2)"]
    drms, parts = [], []
    # A. Combat Support
    if cb.kind != "hasty":
        sup = _supporters(st, sc, cb.side, cb.target, {cb.hex})
        hexes = [any(B.formation_of(sc, u) == cb.formation for u in us) for us in sup.values()]
        v = support_drm(cb.kind, hexes, attacking=True)
        if v:
            parts.append(v)
            drms.append(f"attacker's combat support from {', '.join(sorted(sup))}: {v:+d} (7.4.1.4 A)")
    dside = st.units[cb.defenders[0]].side
    if dfn and not any(f.disrupted for f in dfn):
        kind = "improved" if improved else "regular"
        lead = lead_formation(st, sc, cb, kind)
        sup = _supporters(st, sc, dside, cb.hex, {cb.target})
        hexes = [any(B.formation_of(sc, u) == lead for u in us) for us in sup.values()]
        v = support_drm(kind, hexes, attacking=False)
        if v:
            parts.append(v)
            drms.append(f"defender's combat support from {', '.join(sorted(sup))}: {v:+d} (7.4.1.4 A)")
    # B. HQ Attack Support
    if cb.kind != "hasty" and all(in_command(st, sc, f.id) for f in atk):
        fr = st.fm.formations.get(cb.formation)
        v = hq_support(cb.kind, fr.support if fr else 0)
        if v:
            parts.append(v)
            drms.append(f"HQ attack support ({cb.kind}): {v:+d} (7.4.1.4 B)")
    # C. Armor Superiority
    t = B.tec(sc, cb.target)
    at_bonus = t.at_bonus
    spd = B.strongpoint(sc, cb.target)
    if spd is not None and (cb.target in st.fm.depleted or spd.side == dside):
        at_bonus += spd.at_bonus
    arm: Armor = armor_superiority(atk, dfn, tank_mod=t.tank_mod, at_bonus=at_bonus, mode=armour_mode)
    parts.append(arm.drm)
    drms.append(arm.text)
    # D. Schwerpunkt
    n = B.gd(sc).schwerpunkt_drm
    spf = st.fm.schwerpunkt
    if spf and any(f.formation == spf and in_command(st, sc, f.id) for f in atk):
        parts.append(n)
        drms.append(f"Schwerpunkt ({spf}): {n:+d} (7.4.1.4 D)")
    if spf and any(f.formation == spf and in_command(st, sc, f.id) for f in dfn):
        parts.append(-n)
        drms.append(f"Schwerpunkt ({spf}): {-n:+d} (7.4.1.4 D)")
    # E. failed retreat before combat
    if cb.rbc == "failed":
        parts.append(2)
        drms.append("failed retreat before combat: +2 (7.4.1.4 E)")
    drm = clamp_drm(parts)
    die, rolls = d10(ctx, cb.side, "combat", lambda v: v >= 6)
    mod = modified_roll(die, drm)
    res = crt.lookup(sc.crt.rows, col, mod)
    ctx.emit(CE.CombatResolved(target=cb.target, attackers=[f.id for f in atk], defenders=[f.id for f in dfn],
                               attack=cb.kind, att_detail=a_lines, def_detail=d_lines, attack_strength=a_str,
                               defence_strength=d_str, terrain=terr, odds=heads[col] if col is not None else "-",
                               shifts=shifts, drms=drms, drm=drm, rolls=rolls, modified=mod, result=res.text,
                               att_as=arm.att_unit, def_as=arm.def_unit))
    return res


def draw_chit(ctx: Ctx) -> int:
    return chits.draw(ctx.dice.roll)
