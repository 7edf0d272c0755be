"""On-board indirect fire: mortars (19), AFVs and heavy weapons with a 75 mm+ HE gun
(20) and smoke shells (20.3); smoke's effect on lines of fire (20.31) is smoke.py's.

A mortar is a weapon whose type has ``kind = "MORTAR"`` (or "MTR"), its FRAG in
``he``, its range ``range = [max, min]`` (19.05; arty_tables.MORTAR_RANGE by
size otherwise).  An on-board gun fires indirectly when it is 75 mm or more with
HE (20.01); ``smoke = true`` on a mortar's type or a gun gives smoke shells (20.32).
Orders: ``fire UNIT at HEX [by SPOTTER]`` and ``smoke UNIT at HEX [by SPOTTER]``."""
from __future__ import annotations

from pbem.core.orders import OrderError
from pbem.core.ruleset import Ctx, find_unit
from pbem.core.scenario import Scenario
from pbem.games.advanced_tobruk.tables import arty_tables as A
from pbem.games.advanced_tobruk.artillery import artillery as R
from pbem.games.advanced_tobruk import data
from pbem.games.advanced_tobruk.fire import fire_ap
from pbem.games.advanced_tobruk.fog import fow
from pbem.games.advanced_tobruk.notes import notes
from pbem.games.advanced_tobruk.board import spotting
from pbem.games.advanced_tobruk.arty_events import IndirectFired, SmokePlaced
from pbem.games.advanced_tobruk.state import TobrukState, tk


# --- who fires indirectly -------------------------------------------------------------------------

def is_mortar(sc: Scenario, uid: str) -> bool:
    t = data.utype(sc, uid)
    return str(t.get("kind", "")).upper() in ("MORTAR", "MTR") or bool(t.get("mortar"))


def indirect_gun(sc: Scenario, uid: str) -> dict | None:
    """20.01: the unit's gun of 75 mm or more that fires HE or smoke (AFVs and heavy weapons)."""
    if not (data.is_afv(sc, uid) or data.is_heavy(sc, uid)):
        return None
    for g in fire_ap.guns(sc, uid):
        if int(g.get("size", 0)) >= A.GUN_MIN_SIZE and (int(g.get("he", 0)) > 0 or g.get("smoke")):
            return g
    return None


def capable(sc: Scenario, uid: str) -> bool:
    return is_mortar(sc, uid) or indirect_gun(sc, uid) is not None


def mortar_range(sc: Scenario, uid: str) -> tuple[int, int]:
    t = data.utype(sc, uid)
    r = t.get("range")
    if isinstance(r, list) and len(r) == 2:
        return int(r[0]), int(r[1])
    m = t.get("mortar")
    if isinstance(m, dict):
        return int(m.get("max", 0)), int(m.get("min", 0))
    size = int(t.get("size", 0))
    keys = [k for k in sorted(A.MORTAR_RANGE) if k <= size]
    return A.MORTAR_RANGE[keys[-1] if keys else min(A.MORTAR_RANGE)]


def unfit(st: TobrukState, sc: Scenario, uid: str) -> str:
    """Why ``uid`` may not fire indirectly now ('' if it may)."""
    u, p = st.units[uid], st.pieces[uid]
    if (u.hex is None and not p.hidden_at) or u.eliminated:
        return f"{uid} is not on the map"
    if p.fired or uid in st.step.acted:
        return f"{uid} has already fired this turn (20.02)"
    if p.f_kill and (data.is_weapon(sc, uid) or "main" in p.f_kill):
        return f"{uid}'s gun is F-KILLed (13.613)"
    if data.is_weapon(sc, uid):
        crew = fire_ap.crew_of(st, sc, uid)
        if not crew or st.pieces[crew[0]].broken or st.pieces[crew[0]].surrendered:
            return f"{uid} has no crew able to fire it (9.1)"
        if st.pieces[crew[0]].full and not is_mortar(sc, uid):
            return f"{uid}'s crew is in FULL cover: only mortars fire from there (19.41)"
    elif p.suppressed or p.bailed:
        return f"{uid} is {'suppressed' if p.suppressed else 'bailed out'} (13.11, 13.8)"
    return ""


def where(st: TobrukState, uid: str) -> str:
    """The unit's hex, or the hex of its hidden set-up (32.22)."""
    return st.units[uid].hex or st.pieces[uid].hidden_at or ""


def _spotter(ctx: Ctx, uid: str, args: list[str]) -> tuple[str, str]:
    """19.51: an adjacent leader or FO may spot for a mortar: (spotter, the hex whose LOS is used)."""
    st = tk(ctx.state)
    if not args:
        return "", where(st, uid)
    if len(args) != 2 or args[0] != "by":
        raise OrderError("... at HEX [by LEADER]", "19.51")
    s = find_unit(ctx, args[1], ctx.side, on_map=True)
    if data.cls(ctx.sc, s.id) != "leader":
        raise OrderError(f"{s.id} is not a leader or FO: only they spot for a mortar (19.51)", "19.51")
    if not is_mortar(ctx.sc, uid):
        raise OrderError("only mortars fire with a spotter's line of sight (19.51)", "19.51")
    if s.hex != where(st, uid) and not ctx.sc.board.grid.adjacent(s.hex, where(st, uid)):
        raise OrderError(f"{s.id} is not adjacent to {uid} (19.51)", "19.51")
    p = st.pieces[s.id]
    if p.fired or p.moved or p.broken or p.surrendered:
        raise OrderError(f"{s.id} has fired, moved or is broken: it may not spot this turn (19.51, 18.864)",
                         "19.51")
    return s.id, s.hex


def _target(ctx: Ctx, frm: str, h: str, limit_open: bool, smoke: bool) -> tuple[int, list[str]]:
    """The line to the target hex: its HPN DRM (refused beyond +8 / from +8 for mortars, 19.13, 20.03)."""
    st = tk(ctx.state)
    sc = ctx.sc
    if not sc.board.grid.contains(h):
        raise OrderError(f"{h} is not a hex of the map", "19.05")
    if not spotting.los_clear(st, sc, frm, h):
        raise OrderError(f"no line of sight from {frm} to {h}: an adjacent leader or FO may spot", "19.51")
    n, why = R.line_drm(st, sc, frm, h)
    if n >= A.LOS_LIMIT + (1 if limit_open else 0):
        raise OrderError(f"+{n} HPN along the line to {h} ({', '.join(why)}): too much to fire indirectly "
                         "(19.13, 20.03)", "19.13, 20.03")
    if not smoke:
        occupants = [u for u in st.units.values() if u.hex == h and not u.eliminated]
        if any(u.side == ctx.side for u in occupants):
            raise OrderError(f"{h} holds friendly units: only smoke may be fired there (20.34)", "20.34")
        if not any(spotting.spotted(st, sc, ctx.side, u.id) for u in occupants):
            raise OrderError(f"no spotted enemy unit in {h}: HE is fired at targets (20.33)", "20.33")
    return n, why


def fire(ctx: Ctx, args: list[str], smoke: bool = False) -> str:
    """``fire UNIT at HEX [by SPOTTER]`` (19, 20) or ``smoke UNIT at HEX [by SPOTTER]`` (20.35)."""
    st = tk(ctx.state)
    sc = ctx.sc
    word = "smoke" if smoke else "fire"
    if len(args) < 3 or args[1] != "at":
        raise OrderError(f"{word} UNIT at HEX [by LEADER]", "19, 20")
    u = find_unit(ctx, args[0], ctx.side)
    uid, h = u.id, args[2]
    mortar = is_mortar(sc, uid)
    g = None if mortar else indirect_gun(sc, uid)
    if not mortar and g is None:
        raise OrderError(f"{uid} does not fire indirectly: a mortar, or a 75 mm+ gun with HE or smoke (19.01, 20.01)",
                         "20.01")
    why = unfit(st, sc, uid)
    if why:
        raise OrderError(why, "20.02")
    if smoke and not (data.utype(sc, uid).get("smoke") or (g or {}).get("smoke")):
        raise OrderError(f"{uid} has no smoke ammunition (its card or the Gun & Mortar Ammo Table, 20.32)", "20.32")
    if not smoke and not (int((g or data.utype(sc, uid)).get("he", 0)) > 0):
        raise OrderError(f"{uid} has no HE (17.72)", "17.72")
    spotter, frm = _spotter(ctx, uid, args[3:])
    at = where(st, uid)
    d = sc.board.grid.distance(at, h) if sc.board.grid.contains(h) and at else 0
    if mortar:
        hi, lo = mortar_range(sc, uid)
        if not lo <= d <= hi:
            raise OrderError(f"{h} is {d} hexes from {uid}: its range is {hi}-{lo} (maximum-minimum, 19.05)", "19.05")
    elif d < A.GUN_MIN_RANGE:
        raise OrderError(f"{h} is {d} hexes away: indirect fire from a gun needs at least {A.GUN_MIN_RANGE} (20.21)",
                         "20.21")
    los, los_why = _target(ctx, frm, h, not mortar, smoke)
    stage = 1 if smoke else 3 if mortar else 4
    R.check_stage(st, stage)
    if smoke and h in st.smoke:
        raise OrderError(f"{h} already has a smoke counter: one a hex (20.365)", "20.365")
    crew = fire_ap.crew_of(st, sc, uid) if data.is_weapon(sc, uid) else []
    mark = [uid, *crew] + ([spotter] if spotter and not st.pieces[spotter].full else [])
    size = int((g or data.utype(sc, uid)).get("size", 0))
    fow.before_fire(ctx, [uid, *crew])       # 32.241 a dummy may not; 32.2111 a hidden firer shows itself, FOW flips
    fow.update(ctx)
    if smoke:
        _smoke(ctx, uid, h, los, los_why, mark, d, spotter)
        return uid
    drms: list[tuple[str, int]] = []
    reg = notes.note_for(st, ctx.side, "register", uid, h)
    if h in notes.notes_of(st, ctx.side).registrations.get(uid, []):
        drms.append(("registration (19.61)", A.REGISTRATION_DRM))
    if mortar and los:
        drms.append((f"LOS ({', '.join(los_why)}) subtracted (19.13)", -los))
    acc = R.accuracy(ctx, h, drms)
    final = acc["final"]
    frag = int((g or data.utype(sc, uid)).get("he", 0))
    kind = A.mortar_class(size) if mortar else "gun"
    need = A.DIRECT_HIT[kind]
    bot = st.pieces[uid].bot == final and st.pieces[uid].bot_turn < st.turn
    rolls = A.MORTAR_ROF * (2 if bot else 1)                                           # 19.71
    ctx.emit(IndirectFired(side=ctx.side, source=uid, what="mortar" if mortar else "gun", aimed=h, final=final,
                           rolls=acc["rolls"], pct=acc["pct"], drms=acc["drms"], total=acc["total"], off=acc["off"],
                           toward=acc["toward"], hexes=[final], dh=[rolls], frag=frag, need=need,
                           spotter=spotter, mark=mark, registered=reg or "", stage=stage, range=d,
                           rule="19" if mortar else "20"))
    if reg:
        notes.open_note(ctx, ctx.side, reg)                                            # the +20 shows it
    R.attack_hex(ctx, uid, final, frag, need, rolls, size=size, mortar=True, frm=at,
                 drm=0 if mortar else los, rule="19.11" if mortar else "20.03")
    return uid


def _smoke(ctx: Ctx, uid: str, h: str, los: int, los_why: list[str], mark: list[str], d: int, spotter: str) -> None:
    """20.35: a direct-hit roll on the smoke row, the LOS DRMs added; '2' side up (20.363)."""
    need = A.DIRECT_HIT["smoke"]
    ctx.emit(IndirectFired(side=ctx.side, source=uid, what="smoke", aimed=h, final=h, hexes=[h], need=need,
                           smoke=True, spotter=spotter, mark=mark, stage=1, range=d, rule="20.35"))
    r = ctx.dice.roll(10)
    ok = r + los <= need
    ctx.emit(SmokePlaced(source=uid, hex=h, shows=A.SMOKE_ON_BOARD if ok else 0, rolls=[r], need=need,
                         drms=[f"+{los} LOS ({', '.join(los_why)})"] if los else []))
