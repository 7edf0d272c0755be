"""The Casualty Table and what it does to personnel (9.15, 15.1, 15.7-15.9, 16.1).

A squad has four steps (15.82): a casualties marker, the half-squad, the
half-squad with a marker, gone; crews, leaders and FOs two (reduced or
wounded, gone).  Casualties fall first on the unit in the poorest cover state
(15.11); every unit in the hex then checks morale (15.921, morale.py)."""
from __future__ import annotations

from pbem.core.ruleset import Ctx
from pbem.core.scenario import Scenario
from pbem.games.advanced_tobruk import data
from pbem.games.advanced_tobruk.board import ground, relief, spotting
from pbem.games.advanced_tobruk.tables import fire_ap_tables as T
from pbem.games.advanced_tobruk.fire import morale
from pbem.games.advanced_tobruk.fire_events import CasualtyAttack
from pbem.games.advanced_tobruk.state import TobrukState, tk
from pbem.games.advanced_tobruk.fire import continued_fire
from pbem.games.advanced_tobruk.fire.losses import (EMPLACEMENTS_GOOD, IMPROVED_TERRAIN, OTHER_STEPS,  # noqa: F401
                                                    SQUAD_STEPS, absorb, emplacement, max_steps, values)  # re-exported


def cover(st: TobrukState, sc: Scenario, uid: str, opportunity: bool = False, frm: str = ""
          ) -> tuple[str, int, list[str]]:
    """(state, column shift, why) of a personnel unit (15.712): shifts add up (15.712117).
    state is the poorest that applies: running, assault, stationary, good, improved, full.
    ``frm``: the firer's hex for direct fire ('' for indirect fire): same-hex fire into a bunker
    (31.572) and the cover of deirs and wadis (relief.py) depend on it."""
    p = st.pieces[uid]
    h = st.units[uid].hex or ""
    if p.full and not (frm and frm == h and ground.in_bunker(st, sc, uid)) and not (not frm and ground.is_wadi(sc, h)):
        return "full", 0, ["FULL cover"]
    if p.full and frm == h:
        return "good", T.COVER_SHIFT["good"], [f"good (in the bunker, an enemy in its hex, 31.572) "
                                               f"{T.COVER_SHIFT['good']}"]
    why: list[str] = []
    shift = 0
    state = "stationary"
    if p.move == "run" and p.moving and opportunity:
        state, shift = "running", T.COVER_SHIFT["running"]                   # 6.63, 15.712111
        why.append(f"running +{shift}")
    elif (p.moving or p.moved) and p.move in ("assault", "run"):
        state, shift = "assault", T.COVER_SHIFT["assault"]                   # 15.712112
        why.append(f"assault cover +{shift}")
    emp = emplacement(sc, h, st)
    if emp and _enemy_bunker(st, sc, uid, h, emp):
        emp = ""                                     # 31.572: no cover on an enemy's bunker (our reading)
    if not emp:
        tshift, twhy = relief.cover_from(st, sc, uid, frm)           # 33.43, 33.73, 33.74
        if tshift:
            shift += tshift
            why.append(f"{twhy} {tshift}")
            state = state if state != "stationary" else "good"
            return state, shift, why
    if emp in IMPROVED_TERRAIN:
        shift += T.COVER_SHIFT["improved"]
        why.append(f"improved ({emp}) {T.COVER_SHIFT['improved']}")
        state = state if state != "stationary" else "improved"
    elif emp or _operates_unmoved_gun(st, sc, uid):
        shift += T.COVER_SHIFT["good"]                                       # 15.712113, 9.34
        why.append(f"good ({emp or 'gun crew'}) {T.COVER_SHIFT['good']}")
        state = state if state != "stationary" else "good"
    return state, shift, why


def _enemy_bunker(st: TobrukState, sc: Scenario, uid: str, h: str, emp: str) -> bool:
    """31.572 (our reading): a unit on top of a bunker that enemy units occupy has no cover from it."""
    side = st.units[uid].side
    return emp == "bunker" and any(u.hex == h and u.side != side and not u.eliminated and st.pieces[u.id].full
                                   for u in st.units.values())


def _operates_unmoved_gun(st: TobrukState, sc: Scenario, uid: str) -> bool:
    """9.34: the crew of a gun that has not moved in the scenario is in GOOD cover."""
    return any(q.holder == uid and data.is_heavy(sc, w) and not q.gun_moved
               for w, q in st.pieces.items() if not st.units[w].eliminated)


def personnel_in(st: TobrukState, sc: Scenario, h: str, side: str | None = None) -> list[str]:
    return sorted(u.id for u in st.units.values()
                  if u.hex == h and not u.eliminated and data.is_personnel(sc, u.id)
                  and (side is None or u.side == side))


def attack(ctx: Ctx, h: str, factors: int, source: str, *, firers: list[str] = (), parts: list[str] = (),
           shifts: list[tuple[str, int]] = (), full_hit: bool = False, as_stationary: bool = False,
           opportunity: bool = False, mark_fired: bool = True, by: str = "", rule: str = "15.7",
           targets: list[str] | None = None, pivot: list[int] = (),
           morale_mods: list[tuple[str, int]] = (), cfire: bool = False) -> CasualtyAttack:
    """One Casualty Table attack on the personnel in ``h`` and its morale checks (15.7, 15.92).
    ``shifts`` are the firer's (leader, pivots, overstacking); the target's cover is added here.
    FULL cover units are untouched (15.712116) unless ``full_hit`` (an HE hit, 16.11: as STATIONARY);
    ``as_stationary`` ignores GOOD/FULL (grenades 22.122, final fire 23.11); ``morale_mods`` are the
    attack's own morale modifiers for the checks it causes (10.113c); ``cfire``: direct fire or a
    mortar's, that leaves a Continued Fire marker (15.931).  Units out of the firer's line of sight
    in a deir or wadi are not reached (relief.py)."""
    st = tk(ctx.state)
    sc = ctx.sc
    side = _target_side(st, sc, h, firers)
    frm = (spotting.where(st, firers[0]) or "") if firers else ""          # a hidden firer from its hex
    pool = targets if targets is not None else [u for u in personnel_in(st, sc, h, side)]
    if frm and relief.in_use(sc):
        pool = [u for u in pool if not relief.blocked(st, sc, firers[0], frm, u, h)]
    eligible = []
    for uid in pool:
        state, cs, why = cover(st, sc, uid, opportunity, frm)
        if as_stationary and state in ("good", "full", "improved"):
            state, cs, why = "stationary", 0, ["reduced to STATIONARY"]
        if state == "full" and not full_hit:
            continue
        eligible.append((-cs, uid, cs, why))
    eligible.sort()
    roll = ctx.dice.roll(10)
    all_shifts = [f"{w} {v:+d}" for w, v in shifts]
    shift = sum(v for _, v in shifts)
    if eligible:
        _, _, cs, why = eligible[0]
        shift += cs
        all_shifts += why
    col = T.casualty_column(factors, shift) if eligible else None
    result = T.CASUALTY[col][roll - 1] if col else 0
    losses = absorb(st, sc, [e[1] for e in eligible], result) if result else []
    ev = CasualtyAttack(source=source, hex=h, factors=factors, column=col or 0, roll=roll, result=result,
                        rolls=[roll], firers=list(firers), parts=list(parts), shifts=all_shifts, losses=losses,
                        mark_fired=mark_fired, pivot=list(pivot), by=by, rule=rule)
    ctx.emit(ev)
    if cfire:
        continued_fire.after_attack(ctx, ev)
    if result:
        checked = [e[1] for e in eligible] if targets is not None else \
            [u for u in personnel_in(st, sc, h, side) if not st.pieces[u].full or full_hit or as_stationary]
        morale.check_stack(ctx, checked, "casualty", result, opportunity=opportunity, extra=list(morale_mods))
    return ev


def _target_side(st: TobrukState, sc: Scenario, h: str, firers: list[str]) -> str | None:
    if firers:
        mine = st.units[firers[0]].side
        others = {st.units[u].side for u in personnel_in(st, sc, h)} - {mine}
        return sorted(others)[0] if others else None
    return None
