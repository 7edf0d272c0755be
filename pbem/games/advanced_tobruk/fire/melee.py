"""Close assault (22, 23): melee per hex in rounds on the Melee Table, and
personnel close assaulting vehicles, with the AFV's final fire (23.11).

Morale is checked first in every melee hex, attackers before defenders, with
only the units in the hex as modifiers (22.51); broken defenders are out
(22.53).  Rounds follow until one side is gone or the odds pass 1-2 or 4-1,
when the weaker side surrenders (12.232).  Each side's step losses go one at a
time to its unit with the most steps left (the owner's choice of 22.74, made
by this documented default)."""
from __future__ import annotations

from pbem.core.orders import GameVerb, OrderError
from pbem.core.ruleset import Ctx
from pbem.core.scenario import Scenario
from pbem.games.advanced_tobruk.fire import casualty, fire_ap, fire_personnel, morale
from pbem.games.advanced_tobruk import data
from pbem.games.advanced_tobruk.tables import fire_ap_tables as T
from pbem.games.advanced_tobruk.fire_events import (AssaultDeclared, CloseAssaulted, MeleeEnded, MeleeRound,
                                                    MoraleChecked, Overrun)
from pbem.games.advanced_tobruk.board.ground import in_bunker
from pbem.games.advanced_tobruk.state import TobrukState, tk
from pbem.games.advanced_tobruk.fire.weapons import vehicle_mgs

MAX_ROUNDS = 40
CRACK_MORALE = 7           # 23.351


def melee_value(st: TobrukState, sc: Scenario, uid: str) -> int:
    """A unit's melee factors: its ``melee`` value, once reduced the reduced side's ``melee`` (else
    its reduced gunfire), one less under a casualties marker; without a ``melee`` value its gunfire."""
    t = data.utype(sc, uid)
    gf = casualty.values(st, sc, uid)[0]
    reduced = st.pieces[uid].steps >= (2 if data.cls(sc, uid) == "squad" else 1)
    if "melee" in t:
        red = t.get("reduced", {})
        m = int(red.get("melee", red.get("gunfire", t["melee"])) if reduced else t["melee"])
        if data.cls(sc, uid) == "squad" and st.pieces[uid].steps in (1, 3):
            m -= 1
        return max(0, m)
    return gf


def odds(att: int, dfn: int) -> str:
    """22.61: the Melee Table column, rounded in the defender's favour; 'under' below 1-2, 'over' above 4-1."""
    if dfn <= 0:
        return "over"
    if att * 2 < dfn:
        return "under"
    if att > 4 * dfn:
        return "over"
    col = "1-2"
    for a, d in T.MELEE_ODDS:
        if att * d >= a * dfn:
            col = f"{a}-{d}"
    return col


def _side_units(st: TobrukState, sc: Scenario, h: str, side: str) -> list[str]:
    return [u for u in casualty.personnel_in(st, sc, h, side)
            if not st.pieces[u].surrendered and not in_bunker(st, sc, u)]          # 31.571


def _take(st: TobrukState, sc: Scenario, units: list[str], steps: int, fate: str = "") -> list[list[str]]:
    """Step losses one at a time to the unit with the most steps left (22.74 default)."""
    have = {u: st.pieces[u].steps for u in units}
    for _ in range(steps):
        alive = [u for u in units if have[u] < casualty.max_steps(sc, u)]
        if not alive:
            break
        u = max(alive, key=lambda x: (casualty.max_steps(sc, x) - have[x], x))
        have[u] += 1
    out = []
    for u in units:
        if have[u] != st.pieces[u].steps or fate:
            dead = have[u] >= casualty.max_steps(sc, u)
            out.append([u, str(have[u]), "eliminated" if dead else fate])
    return out


def resolve_melees(ctx: Ctx) -> None:
    """5.35, 22.75: every melee hex in the order begun, then the close assaults on vehicles."""
    st = tk(ctx.state)
    for h in list(st.melees):
        resolve_melee(ctx, h)
    for uid, veh in sorted(st.assaults.items()):
        close_assault(ctx, uid, veh)


def resolve_melee(ctx: Ctx, h: str) -> None:
    st = tk(ctx.state)
    sc = ctx.sc
    att_side = st.melee_attacker.get(h, "")
    sides = {st.units[u].side for u in casualty.personnel_in(st, sc, h)}
    def_side = next((s for s in sorted(sides) if s != att_side), "")
    attackers = [u for u in _side_units(st, sc, h, att_side) if not st.pieces[u].broken]
    defenders = _side_units(st, sc, h, def_side)
    for d in defenders:
        if st.pieces[d].broken:                                                      # 11.121
            ctx.emit(MoraleChecked(unit=d, why="melee", morale=casualty.values(st, sc, d)[2], altered=0,
                                   result="eliminated", mods=["broken when the enemy came in (11.121)"],
                                   rule="11.121"))
    for u in sorted(attackers, key=lambda x: (-casualty.values(st, sc, x)[2], x)):   # 22.51 attackers first
        morale.check(ctx, u, "melee", only_hex=h, fail_as="broken", rule="22.51")      # 22.52 broken, not surrendered
    fighting_att = [u for u in attackers if not st.units[u].eliminated and not st.pieces[u].broken
                    and not st.pieces[u].surrendered]
    if not fighting_att:                                                             # 22.54
        ctx.emit(MeleeEnded(hex=h, winner=def_side, eliminated=[u for u in attackers if not st.units[u].eliminated]))
        return
    for u in sorted(_side_units(st, sc, h, def_side), key=lambda x: (-casualty.values(st, sc, x)[2], x)):
        morale.check(ctx, u, "melee", only_hex=h, fail_as="eliminated", rule="22.53")
    broken_att = [u for u in attackers if st.pieces[u].broken and not st.units[u].eliminated]
    for rnd in range(1, MAX_ROUNDS + 1):
        a_units = [u for u in _side_units(st, sc, h, att_side) if not st.pieces[u].broken]
        d_units = _side_units(st, sc, h, def_side)
        if not a_units or not d_units:
            break
        a = sum(melee_value(st, sc, u) for u in a_units)
        d = sum(melee_value(st, sc, u) for u in d_units)
        col = odds(a, d)
        if col in ("under", "over"):                                                 # 22.72, 12.232
            losers = a_units if col == "under" else d_units
            ctx.emit(MeleeRound(hex=h, round=rnd, attackers=a_units, defenders=d_units, attack=a, defence=d,
                                odds="worse than 1-2" if col == "under" else "over 4-1", rolls=[],
                                losses=_take(st, sc, losers, 0, "surrendered"),
                                outcome="defender" if col == "under" else "attacker"))
            break
        r = ctx.dice.roll(10)
        asteps, dsteps = T.MELEE[col][r - 1]
        losses = _take(st, sc, a_units, asteps) + _take(st, sc, d_units, dsteps)
        ctx.emit(MeleeRound(hex=h, round=rnd, attackers=a_units, defenders=d_units, attack=a, defence=d, odds=col,
                            rolls=[r], attacker_steps=asteps, defender_steps=dsteps, losses=losses))
    a_left = [u for u in _side_units(st, sc, h, att_side) if not st.pieces[u].broken]
    d_left = _side_units(st, sc, h, def_side)
    winner = att_side if a_left and not d_left else def_side if d_left and not a_left else ""
    broken_att = [u for u in broken_att if not st.units[u].eliminated]
    ctx.emit(MeleeEnded(hex=h, winner=winner, restored=broken_att if winner == att_side else [],
                        eliminated=broken_att if winner != att_side else []))


def handle_assault(ctx: Ctx, order: GameVerb) -> None:
    """23: ``close-assault UNIT[+LEADER] at VEHICLE`` in the Infiltration Phase: one unit (one leader may
    help) will close assault a vehicle in its hex in the Melee Phase."""
    st = tk(ctx.state)
    sc = ctx.sc
    args = list(order.args)
    low = [a.lower() for a in args]
    if "at" not in low or low.index("at") + 1 >= len(args):
        raise OrderError("close-assault UNIT[+LEADER] at VEHICLE (23)", "23.02")
    i = low.index("at")
    names = [n for a in args[:i] for n in a.split("+") if n]
    units = [fire_personnel._unit(ctx, n).id for n in names]
    veh = fire_personnel._unit(ctx, args[i + 1]).id
    leaders = [u for u in units if data.cls(sc, u) == "leader"]
    others = [u for u in units if u not in leaders]
    if len(others) > 1 or len(leaders) > 1 or not units:
        raise OrderError("one personnel unit, helped by at most one leader, assaults a vehicle (23.34)", "23.34")
    main = others[0] if others else leaders[0]
    for u in units:
        p = st.pieces[u]
        if st.units[u].side != ctx.side or not data.is_personnel(sc, u):
            raise OrderError(f"{u} is not one of your personnel units (23.02)", "23.02")
        if p.broken or p.surrendered:
            raise OrderError(f"{u} is broken or surrendered (22.01)", "22.01")
        if st.units[u].hex != st.units[veh].hex:
            raise OrderError(f"{u} must be in {veh}'s hex to close assault it (23.12)", "23.12")
        if u in st.assaults:
            raise OrderError(f"{u} already assaults {st.assaults[u]} this turn (23.02)", "23.02")
    if st.units[veh].side == ctx.side or not data.is_vehicle(sc, veh) or st.units[veh].eliminated:
        raise OrderError(f"{veh} is not an enemy vehicle (23.02)", "23.02")
    if st.pieces[main].overrun:
        raise OrderError(f"{main} is being overrun and may not assault the vehicle (23.13)", "23.13")
    ctx.emit(AssaultDeclared(unit=main, vehicle=veh, leader=leaders[0] if others and leaders else ""))


def assault_number(st: TobrukState, sc: Scenario, unit: str, leader: str, veh: str) -> tuple[int, list[str]]:
    """23.32-23.351 as we read them: an open-topped vehicle (or a loaded truck) takes the tally of
    stacking points doubled; any other AFV its Close Assault value, plus the tally's difference
    from a squad's 3; +1 for morale 7 or more; half against a vehicle in continued movement (23.04)."""
    t = data.utype(sc, veh)
    tally = 1 if data.cls(sc, unit) == "leader" else morale._sp(st, sc, unit)
    why = [f"{unit} {tally} SP"]
    if leader:
        tally += 1
        why.append(f"leader {leader} +1")
    if t.get("open_top") or data.cls(sc, veh) in ("apc", "truck"):
        n = 2 * tally
        why.append(f"open-topped: x2 = {n}")
    else:
        base = int(t.get("close_assault", 3))
        n = base + tally - 3
        why.append(f"AFV close assault value {base}, tally {tally - 3:+d}")
    if casualty.values(st, sc, unit)[2] >= CRACK_MORALE:
        n += 1
        why.append("morale 7+ +1")
    if st.pieces[veh].continued or st.pieces[veh].moving:
        n //= 2
        why.append("moving vehicle: halved")
    return n, why


def close_assault(ctx: Ctx, unit: str, veh: str) -> None:
    """23.1-23.33: the AFV's machine-gun final fire, the morale check, then one die."""
    st = tk(ctx.state)
    sc = ctx.sc
    leader = next((u for u in st.units if st.pieces[u].attacker and u != unit and data.cls(sc, u) == "leader"
                   and st.units[u].hex == st.units[unit].hex), "")
    if st.units[unit].eliminated or st.units[veh].eliminated or st.pieces[unit].broken:
        ctx.emit(CloseAssaulted(unit=unit, vehicle=veh, value=0, rolls=[], result="not made", leader=leader))
        return
    h = st.units[veh].hex
    foes = [u for u in casualty.personnel_in(st, sc, h) if st.units[u].side == st.units[veh].side
            and not st.pieces[u].surrendered]
    if foes:                                                                         # 23.03
        ctx.emit(CloseAssaulted(unit=unit, vehicle=veh, value=0, rolls=[], result="prevented by enemy personnel",
                                leader=leader, mods=["23.03"]))
        return
    if data.cls(sc, veh) == "truck" and not data.utype(sc, veh).get("mgs"):
        ctx.emit(CloseAssaulted(unit=unit, vehicle=veh, value=0, rolls=[], result="captured", leader=leader))
        return
    vp = st.pieces[veh]
    mgs = [m for m in vehicle_mgs(sc, veh)]
    if data.cls(sc, veh) == "afv" and mgs and not vp.moving and not vp.continued and not vp.bailed:
        total = sum(int(m.get("gunfire", 0)) for m in mgs)                          # 23.11 final fire
        casualty.attack(ctx, h, total, f"{veh} final fire at its assailants", firers=[veh],
                        parts=[f"{m.get('name', m.get('mount'))} {m.get('gunfire')}" for m in mgs],
                        as_stationary=True, mark_fired=False, by="final fire", rule="23.11",
                        targets=[u for u in (unit, leader) if u])
    if st.units[unit].eliminated:
        return
    res = morale.check(ctx, unit, "assault", only_hex=h, rule="23.21")
    if res in ("broken", "surrendered", "eliminated"):
        gone = [] if st.units[unit].eliminated else [[unit, "eliminated", "23.21"]]
        ctx.emit(CloseAssaulted(unit=unit, vehicle=veh, value=0, rolls=[], leader=leader, effects=gone,
                                result="not made: the assailant broke and is eliminated (23.21)"))
        return
    n, why = assault_number(st, sc, unit, leader, veh)
    r = ctx.dice.roll(10)
    effects: list[list[str]] = []
    if r < n:
        burning = r <= n // 2
        result = "K-KILL, burning wreck" if burning else "K-KILL, wreck"
        effects.append([veh, "kkill", "burning" if burning else "wreck"])
    elif r == n:
        result = "M-KILL"
        effects.append([veh, "mkill", ""])
    else:
        result = "no effect"
    ctx.emit(CloseAssaulted(unit=unit, vehicle=veh, value=n, rolls=[r], result=result, leader=leader, mods=why,
                            effects=effects))


# --- overrun (21) ---------------------------------------------------------------------------

OVERRUN_LOSS = 4           # 21.12
OVERRUN_MAX = 8            # 21.13


def overrun(ctx: Ctx, afv: str, unit: str, from_hex: str) -> None:
    """21.1-21.4: the AFV (moving by assault movement, already in the hex) overruns ``unit``: the
    weapons overrun answer with one final defensive shot at one hex (21.2) if the AFV came in
    through their arc; if the AFV is still able, the unit's morale drops by 4 for the turn (at
    most 8) and it checks at once (a failure surrenders, 12.232); overrun weapons are F-KILLed
    (21.15) and each heavy one may break a track (21.41: a 1)."""
    st = tk(ctx.state)
    sc = ctx.sc
    a, p = st.units[afv], st.pieces[afv]
    if data.cls(sc, afv) != "afv" or p.m_kill or p.bailed:
        raise OrderError(f"{afv} may not overrun: only an AFV that can move (21.01)", "21.01")
    if fire_ap.is_command(st, sc, afv):
        raise OrderError(f"{afv} is the command tank: it may not overrun (24.03)", "24.03")
    mgs = vehicle_mgs(sc, afv)
    if not any(not fire_ap.weapon_out(sc, afv, p, str(m.get("mount", ""))) for m in mgs):
        raise OrderError(f"{afv} has no machine-gun able to fire: no overrun (21.01)", "21.01")
    if p.move != "assault":
        raise OrderError("overruns are made by assault movement only (21.02)", "21.02")
    u = st.units[unit]
    if u.hex != a.hex or u.side == a.side or u.eliminated:
        raise OrderError(f"{unit} is not an enemy unit in {afv}'s hex (21.03)", "21.03")
    weapons = [w for w, q in st.pieces.items() if q.holder == unit and not st.units[w].eliminated] \
        if data.is_personnel(sc, unit) else [unit]
    for w in weapons:                                                            # 21.2 final defence
        if not data.is_heavy(sc, w) or st.pieces[w].f_kill or not fire_ap.crew_of(st, sc, w):
            continue
        try:
            fire_ap.fire_gun(ctx, w, "", afv, by="final defence", max_shots=1, at_range=1, from_hex=from_hex)
        except OrderError:
            continue                                                             # not able: no shot
        if st.units[afv].eliminated or st.pieces[afv].m_kill:
            ctx.emit(Overrun(afv=afv, unit=unit, hex=a.hex, result="stopped by final defensive fire (21.23)"))
            return
    effects: list[list[str]] = []
    rolls: list[int] = []
    for w in weapons:                                                            # 21.15
        t = data.utype(sc, w)
        carried = t.get("weight") == "L" and (st.pieces[w].holder or casualty.emplacement(sc, a.hex))
        if carried or t.get("weight") == "M" and t.get("kind") == "MORTAR" and st.pieces[w].full:
            continue
        effects.append([w, "fkill", "main"])
        if data.is_heavy(sc, w):                                                 # 21.41
            r = ctx.dice.roll(10)
            rolls.append(r)
            if r == 1:
                effects.append([afv, "mkill", "21.41"])
    loss = 0
    if data.is_personnel(sc, unit):
        loss = min(OVERRUN_MAX, st.pieces[unit].overrun + OVERRUN_LOSS)
    ctx.emit(Overrun(afv=afv, unit=unit, hex=a.hex, morale_loss=loss, rolls=rolls, effects=effects,
                     result="overrun"))
    if loss and not st.pieces[unit].courage:                                     # 21.14
        morale.check(ctx, unit, "overrun", fail_as="surrendered", rule="21.14")
