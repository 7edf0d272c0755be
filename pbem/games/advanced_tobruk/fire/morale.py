"""Morale (10), broken units and surrender (11), rally at the end of the turn
(5.42, 11.5), intimidation (11.61), chain surrender (11.7), suppression removal
(13.1131) and weapon capture (11.8).

A check rolls one die: 1 always passes, 0 (ten) always fails unless a second
0 gives courage (10.241, 11.242); otherwise the roll plus the casualty level
must not exceed the altered morale (10.23)."""
from __future__ import annotations

from pbem.core.ruleset import Ctx
from pbem.core.scenario import Scenario
from pbem.games.advanced_tobruk import data
from pbem.games.advanced_tobruk.tables import fire_ap_tables as T
from pbem.games.advanced_tobruk.fire_events import MoraleChecked, SuppressionChecked, WeaponCaptured
from pbem.games.advanced_tobruk.fire.losses import emplacement, values
from pbem.games.advanced_tobruk.state import TobrukState, tk

SUPPORT_RANGE = 2          # 10.11
CHAIN_LOSS = 2             # 11.71


def nation(sc: Scenario, uid: str) -> str:
    return (data.utype(sc, uid).get("nation") or sc.unit_defs[uid].nationality or "").lower()


def _values(st: TobrukState, sc: Scenario, uid: str) -> tuple[int, int, int]:
    return values(st, sc, uid)


def _sp(st: TobrukState, sc: Scenario, uid: str) -> int:
    if data.cls(sc, uid) == "squad" and st.pieces[uid].steps >= 2:
        return 2
    return data.SP.get(data.cls(sc, uid), 0)


def leader_bonus(sc: Scenario, leader: str, uid: str) -> int:
    """10.111b: German leaders +2 to Germans and Italians; Italian leaders +1 to Italians only."""
    ln, un = nation(sc, leader), nation(sc, uid)
    if ln == "italian":
        return 1 if un == "italian" else 0
    if ln == "german":
        return 2 if un in ("german", "italian") else 0
    return 2 if ln == un else 0


def altered(st: TobrukState, sc: Scenario, uid: str, *, only_hex: str = "", extra: list[tuple[str, int]] = ()
            ) -> tuple[int, int, list[str]]:
    """(morale, altered morale, modifiers) of a personnel unit (10.1); ``only_hex`` counts only the
    units in that hex (melee, 22.51)."""
    me = st.units[uid]
    base = _values(st, sc, uid)[2]
    mods: list[tuple[str, int]] = []
    grid = sc.board.grid
    friends_sp = foes_sp = 0
    best_leader = 0
    f_afv = e_afv = 0
    for u in st.units.values():
        if u.id == uid or u.eliminated or u.hex is None or me.hex is None:
            continue
        if only_hex and u.hex != only_hex:
            continue
        if not only_hex and grid.distance(u.hex, me.hex) > SUPPORT_RANGE:
            continue
        p = st.pieces[u.id]
        c = data.cls(sc, u.id)
        if data.is_fo(sc, u.id):
            continue                                    # 18.83: an FO affects no unit's morale
        if c in data.PERSONNEL and not p.surrendered:
            if u.side == me.side:
                friends_sp += _sp(st, sc, u.id)
                if c == "leader" and not p.broken:
                    best_leader = max(best_leader, leader_bonus(sc, u.id, uid))
            else:
                foes_sp += _sp(st, sc, u.id)
        elif c == "afv" and not p.bailed:
            if u.side == me.side:
                f_afv += 1
            elif u.id not in st.pieces[uid].overrun_by:                     # 21.12: its -4 replaces the -1
                e_afv += 1
    if friends_sp // 3:
        mods.append((f"friendly personnel {friends_sp} SP", friends_sp // 3))     # 10.111a
    if best_leader:
        mods.append(("leader", best_leader))                                     # 10.111b
    if f_afv:
        mods.append(("friendly AFVs", f_afv))                                    # 10.111c
    if foes_sp // 3:
        mods.append((f"enemy personnel {foes_sp} SP", -(foes_sp // 3)))          # 10.112a
    p = st.pieces[uid]
    if p.overrun:
        mods.append(("overrun", -min(p.overrun, 8)))                             # 21.12, 21.13
    if e_afv:
        mods.append(("enemy AFVs", -e_afv))                                      # 10.112b
    if me.hex and emplacement(sc, me.hex) and not only_hex:
        mods.append(("emplacement", 1))                                          # 10.113a
    if me.hex and _minefield_here(st, me.hex):
        mods.append(("minefield hex", -1))                                       # 10.113b
    mods += list(extra)
    return base, base + sum(v for _, v in mods), [f"{w} {v:+d}" for w, v in mods]


def _minefield_here(st: TobrukState, h: str) -> bool:
    """10.113b: a minefield counter on the map in ``h``, for any unit there, either side's: not a
    hidden one (the -1 would give it away, 31.15), not a dummy once turned over (no mines).  An
    unrevealed dummy counts, for its owner's units too, so that the modifier tells nothing."""
    mf = st.minefields.get(h)
    return mf is not None and not mf.hidden and not (mf.dummy and mf.known)


def enemy_near(st: TobrukState, sc: Scenario, uid: str) -> bool:
    """11.21: an enemy unit within the two-hex morale support range."""
    me = st.units[uid]
    grid = sc.board.grid
    return any(u.side != me.side and not u.eliminated and u.hex is not None and me.hex is not None
               and grid.distance(u.hex, me.hex) <= SUPPORT_RANGE and not st.pieces[u.id].surrendered
               and not st.pieces[u.id].wreck
               for u in st.units.values())


def _roll(ctx: Ctx) -> tuple[list[int], str]:
    """One check's dice: [roll] or [0-roll, second roll]; 'pass' | 'fail' | 'courage' | '' (compare)."""
    r = ctx.dice.roll(10)
    if r == 1:
        return [r], "pass"                       # 10.241
    if r == 10:
        r2 = ctx.dice.roll(10)
        return [r, r2], "courage" if r2 == 10 else "fail"                        # 11.242
    return [r], ""


def check(ctx: Ctx, uid: str, why: str, drm: int = 0, *, extra: list[tuple[str, int]] = (),
          opportunity: bool = False, only_hex: str = "", fail_as: str = "", rule: str = "10.2") -> str:
    """One morale check; emits MoraleChecked and returns its result.  ``fail_as`` forces the
    result of a failure (melee defenders are eliminated, 22.53)."""
    st = tk(ctx.state)
    sc = ctx.sc
    p = st.pieces[uid]
    base, alt, mods = altered(st, sc, uid, only_hex=only_hex, extra=extra)
    rolls, auto = _roll(ctx)
    passed = auto == "pass" or (auto == "" and rolls[0] + drm <= alt)
    if why == "rally" and (passed or auto == "courage"):
        result = "rallied"                                                       # 11.53, 11.54
    elif auto == "courage":
        result = "courage"
    elif passed:
        result = "passed"
        # 11.41: a mover passing on the highest roll it could is pinned down unless a leader is with it
        if opportunity and p.moving and auto == "" and rolls[0] + drm == alt and not _leader_with(st, sc, uid):
            result = "pinned"
    elif fail_as:
        result = fail_as
    elif p.surrendered:
        result = "eliminated" if why != "rally" else "failed"                   # 11.22
    elif why == "rally":
        result = "failed"                                                        # 11.55
    elif p.broken or enemy_near(st, sc, uid):
        result = "surrendered"                                                   # 11.21, 11.132
    else:
        result = "broken"                                                        # 11.11
    ctx.emit(MoraleChecked(unit=uid, why=why, morale=base, altered=alt, result=result, rolls=rolls, drm=drm,
                           mods=mods, rule=rule))
    return result


def _leader_with(st: TobrukState, sc: Scenario, uid: str) -> bool:
    h = st.units[uid].hex
    return any(u.hex == h and u.id != uid and not u.eliminated and data.cls(sc, u.id) == "leader"
               and not data.is_fo(sc, u.id)                                      # 18.83
               and u.side == st.units[uid].side and not st.pieces[u.id].broken for u in st.units.values())


def check_stack(ctx: Ctx, units: list[str], why: str, drm: int, opportunity: bool = False,
                extra: list[tuple[str, int]] = (), rule: str = "") -> None:
    """15.921, 10.22: every surviving unit checks, highest morale first; courage spares the rest
    (11.242); each surrender makes the others in the hex check again, 2 worse each (11.7).
    ``extra``: the situation's own modifiers (10.113c), for the chain checks too."""
    st = tk(ctx.state)
    sc = ctx.sc
    alive = [u for u in units if not st.units[u].eliminated and not st.pieces[u].courage]
    alive.sort(key=lambda u: (-_values(st, sc, u)[2], u))
    surrendered = 0
    chained: set[str] = set()
    for uid in alive:
        if st.units[uid].eliminated:
            continue
        was = st.pieces[uid].surrendered
        res = check(ctx, uid, why, drm, opportunity=opportunity, extra=extra,
                    rule=rule or ("15.921" if why == "casualty" else "10.2"))
        if res == "courage":
            return
        if res == "surrendered" and not was:
            surrendered += 1
            surrendered += _chain(ctx, uid, surrendered, chained, extra)


def _chain(ctx: Ctx, uid: str, count: int, chained: set[str], extra: list[tuple[str, int]] = ()) -> int:
    """11.71-11.72: the friends in the hex of a newly surrendered unit check without casualties."""
    st = tk(ctx.state)
    sc = ctx.sc
    me = st.units[uid]
    more = 0
    for u in sorted(st.units.values(), key=lambda x: x.id):
        if (u.hex != me.hex or u.side != me.side or u.id == uid or u.eliminated or u.id in chained
                or not data.is_personnel(sc, u.id) or st.pieces[u.id].surrendered or st.pieces[u.id].courage):
            continue
        chained.add(u.id)
        res = check(ctx, u.id, "chain", 0, extra=[("chain surrender", -CHAIN_LOSS * (count + more)), *extra],
                    fail_as="surrendered", rule="11.7")
        if res == "surrendered":
            more += 1
    return more


def check_intimidation(ctx: Ctx) -> None:
    """11.61: a personnel unit whose altered morale falls below zero surrenders at once."""
    for ev in intimidated_cached(tk(ctx.state), ctx.sc):
        ctx.emit(ev)


def intimidated(st: TobrukState, sc: Scenario) -> list[MoraleChecked]:
    """11.61: the surrenders of the personnel units whose altered morale is below zero (sorted by id)."""
    out = []
    grid = sc.board.grid
    against = _against(st, sc)
    for uid in sorted(st.units):
        u = st.units[uid]
        p = st.pieces.get(uid)
        if p is None or u.eliminated or u.hex is None or not data.is_personnel(sc, uid) or p.surrendered:
            continue
        if against is not None:
            sp = afvs = 0
            for (side, h), (n, a) in against.items():
                if side != u.side and grid.distance(h, u.hex) <= SUPPORT_RANGE:
                    sp, afvs = sp + n, afvs + a
            if _values(st, sc, uid)[2] - sp // 3 - min(p.overrun, 8) - afvs - _minefield_here(st, u.hex) >= 0:
                continue        # every modifier below zero that could apply (10.112, 10.113b, 21.12) leaves it >= 0
        base, alt, mods = altered(st, sc, uid)
        if alt < 0:
            out.append(MoraleChecked(unit=uid, why="intimidation", morale=base, altered=alt, result="surrendered",
                                     mods=mods, rule="11.61"))
    return out


def _against(st: TobrukState, sc: Scenario) -> dict[tuple[str, str], list[int]] | None:
    """(side, hex) -> [personnel SP, AFVs] of that side's units there, as ``altered`` counts them
    against an enemy unit within range (10.112a-b; the AFVs whatever they overran: at most that
    many); None if a unit has no piece (``altered`` then says so)."""
    out: dict[tuple[str, str], list[int]] = {}
    for u in st.units.values():
        if u.eliminated or u.hex is None:
            continue
        p = st.pieces.get(u.id)
        if p is None:
            return None
        if data.is_fo(sc, u.id):
            continue                                    # 18.83
        c = data.cls(sc, u.id)
        if c in data.PERSONNEL and not p.surrendered:
            out.setdefault((u.side, u.hex), [0, 0])[0] += _sp(st, sc, u.id)
        elif c == "afv" and not p.bailed:
            out.setdefault((u.side, u.hex), [0, 0])[1] += 1
    return out


def _morale_position(st: TobrukState) -> tuple:
    """Everything ``altered`` reads of a state (besides the scenario): each unit's side, hex and
    elimination, its piece's steps, surrender, break, bail-out and overruns, the minefields."""
    pieces = st.pieces
    return (tuple((uid, u.side, u.hex, u.eliminated) if (p := pieces.get(uid)) is None else
                  (uid, u.side, u.hex, u.eliminated, p.steps, p.surrendered, p.broken, p.bailed, p.overrun,
                   tuple(p.overrun_by)) for uid, u in st.units.items()),
            tuple((h, m.hidden, m.dummy, m.known) for h, m in st.minefields.items()))


def intimidated_cached(st: TobrukState, sc: Scenario) -> list[MoraleChecked]:
    """``intimidated``, skipped for a position (``_morale_position``) already found calm: every
    activation asks (11.61) and most change no unit's morale.  tests/test_perf_tobruk.py compares."""
    calm = sc.__dict__.get("_tobruk_calm")
    if calm is None:
        calm = sc.__dict__["_tobruk_calm"] = set()
    key = _morale_position(st)
    if key in calm:
        return []
    out = intimidated(st, sc)
    if not out:
        if len(calm) >= 256:                 # recent positions: the next activations repeat them
            calm.clear()
        calm.add(key)
    return out


def _adjacent_enemy(st: TobrukState, sc: Scenario, uid: str) -> bool:
    me = st.units[uid]
    return any(u.side != me.side and not u.eliminated and u.hex is not None
               and sc.board.grid.distance(u.hex, me.hex) <= 1 and not st.pieces[u.id].surrendered
               and not st.pieces[u.id].wreck for u in st.units.values())


def can_rally(st: TobrukState, sc: Scenario, uid: str) -> bool:
    """11.51-11.54: broken units with an unbroken leader who may lead them (German leaders rally
    Italians, not the other way round); surrendered units with any unbroken friendly personnel (or
    a vehicle that is not K- or M-KILLed); never adjacent to an enemy.  An FO rallies nobody (18.83)."""
    me = st.units[uid]
    p = st.pieces[uid]
    if me.hex is None or _adjacent_enemy(st, sc, uid):
        return False
    mine = nation(sc, uid)
    for u in st.units.values():
        if u.id == uid or u.hex != me.hex or u.side != me.side or u.eliminated:
            continue
        q = st.pieces[u.id]
        c = data.cls(sc, u.id)
        theirs = nation(sc, u.id)
        friendly = theirs == mine or theirs == "german" and mine == "italian" or mine not in ("german", "italian")
        if data.is_fo(sc, u.id):
            continue                                                             # 18.83: an FO rallies nobody
        if p.surrendered:
            if c in data.PERSONNEL and not q.broken and not q.surrendered and friendly:
                return True
            if c in data.VEHICLES and not q.m_kill and not q.wreck:
                return True
        elif c == "leader" and not q.broken and not q.surrendered and friendly:
            return True
    return False


def end_of_turn(ctx: Ctx) -> None:
    """5.42: rally attempts (broken leaders first, 11.51), then suppression removal (13.1131)
    and the capture of lone weapons (11.82)."""
    st = tk(ctx.state)
    sc = ctx.sc
    cands = [uid for uid in sorted(st.units) if not st.units[uid].eliminated and uid in st.pieces
             and (st.pieces[uid].broken or st.pieces[uid].surrendered) and data.is_personnel(sc, uid)]
    cands.sort(key=lambda u: (data.cls(sc, u) != "leader", u))
    for uid in cands:
        if can_rally(st, sc, uid):
            check(ctx, uid, "rally", rule="11.5")
    for uid in sorted(st.units):
        p = st.pieces.get(uid)
        if p is None or st.units[uid].eliminated or not p.suppressed or p.bailed:
            continue
        m = T.SUPPRESSION_MORALE.get(nation(sc, uid), 7)
        r = ctx.dice.roll(10)
        ctx.emit(SuppressionChecked(unit=uid, morale=m, rolls=[r], removed=r <= m))
    _captures(ctx)


def _captures(ctx: Ctx) -> None:
    """11.82-11.84: a weapon or an abandoned AFV alone in a hex with unbroken enemy personnel, an
    unarmed truck with non-moving enemy vehicles or unbroken enemy personnel, is captured."""
    st = tk(ctx.state)
    sc = ctx.sc
    for uid in sorted(st.units):
        u = st.units[uid]
        p = st.pieces.get(uid)
        if p is None or u.eliminated or u.hex is None or p.wreck:
            continue
        c = data.cls(sc, uid)
        if c == "truck" and not data.utype(sc, uid).get("mgs"):
            takers = [v for v in st.units.values() if v.hex == u.hex and v.side != u.side and not v.eliminated
                      and (data.cls(sc, v.id) in ("afv", "apc") and not st.pieces[v.id].moved
                           or data.is_personnel(sc, v.id) and not st.pieces[v.id].broken
                           and not st.pieces[v.id].surrendered)]
            if takers:
                ctx.emit(WeaponCaptured(unit=uid, side=takers[0].side, by=takers[0].id))
            continue
        if not (data.is_weapon(sc, uid) and not p.f_kill or c == "afv" and p.bailed):
            continue
        here = [v for v in st.units.values() if v.hex == u.hex and not v.eliminated and v.id != uid
                and data.is_personnel(sc, v.id)]
        own = [v for v in here if v.side == u.side and not st.pieces[v.id].broken
               and not st.pieces[v.id].surrendered]
        foes = [v for v in here if v.side != u.side and not st.pieces[v.id].broken
                and not st.pieces[v.id].surrendered]
        if foes and not own:
            ctx.emit(WeaponCaptured(unit=uid, side=foes[0].side, by=foes[0].id))
