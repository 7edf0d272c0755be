"""The Indirect Fire Phase (5.11, 18-20): its orders, who may still act, and the
work at its start (rolling barrages, 18.732), its end (locating batteries,
18.1151) and the End of Turn Segment (FFE back to CFF 5.41, smoke 20.364,
rolling barrages lifting 18.733).

The phase exists only in a scenario with batteries or on-board indirect-capable
units (``enabled``); elsewhere it stays the automatic empty phase.  After the
first-fire roll (5.031) the sides alternate one fire mission each.  The fire
inside the phase goes forward in the order of 5.111: smoke (20.33), off-board
artillery (19.03), mortars, on-board guns (20.02), counter-battery fire; once
a later kind has fired, an earlier one is refused.  A rolling barrage moves and
attacks by itself at the start of the phase, before any order (18.732).

Orders::

    call BATTERY at HEX [concentration | barrage [line DIR] | rolling | smoke] [by UNIT]
    fire MORTAR|GUN at HEX [by LEADER]        smoke UNIT at HEX [by LEADER]
    counter-battery BATTERY at ENEMY-BATTERY  cease BATTERY        pass
"""
from __future__ import annotations

from pbem.core import orders as O
from pbem.core.hexgrid import DIRECTIONS
from pbem.core.orders import OrderError
from pbem.core.ruleset import Ctx, find_unit
from pbem.core.scenario import Scenario
from pbem.games.advanced_tobruk.tables import arty_tables as A
from pbem.games.advanced_tobruk.artillery import artillery as R
from pbem.games.advanced_tobruk import data
from pbem.games.advanced_tobruk.artillery import mortar
from pbem.games.advanced_tobruk.notes import notes
from pbem.games.advanced_tobruk.board import spotting
from pbem.games.advanced_tobruk.arty_events import IndirectFired, IndirectTurnEnded
from pbem.games.advanced_tobruk.state import TobrukState, tk

VERBS: frozenset[str] = frozenset({"call", "smoke", "counter-battery", "cease"})
HELP = ("call BATTERY at HEX [concentration|barrage [line DIR]|rolling|smoke] [by UNIT], fire MORTAR|GUN at HEX "
        "[by LEADER], smoke UNIT at HEX, counter-battery BATTERY at ENEMY, cease BATTERY, or pass")
RULE = "5.11, 18-20"
KINDS = ("concentration", "barrage", "rolling", "smoke")


def enabled(sc: Scenario) -> bool:
    """The scenario has off-board batteries or on-board units able to fire indirectly (the
    scenario's alone: found once per scenario, the sequence asks at every phase)."""
    known = sc.__dict__.get("_tobruk_indirect")
    if known is None:
        known = sc.__dict__["_tobruk_indirect"] = bool(R.ssr(sc)) or any(mortar.capable(sc, u.id) for u in sc.units)
    return known


def handle(ctx: Ctx, order: O.GameVerb) -> list[str]:
    """One order of the Indirect Fire Phase; the units whose activation it was ([] for none: steps.py
    then moves the alternation on, 5.121)."""
    word, args = order.word, order.args
    if word == "call":
        who = call(ctx, args)
    elif word == "fire":
        who = mortar.fire(ctx, args)
    elif word == "smoke":
        who = mortar.fire(ctx, args, smoke=True)
    elif word == "counter-battery":
        who = R.counter_battery(ctx, args)
    elif word == "cease":
        if len(args) != 1:
            raise OrderError("cease BATTERY", "18.1153")
        bid = R.find(ctx, args[0], ctx.side)
        if not R.battery(ctx.state, bid).cb:
            raise OrderError(f"{bid} is not firing counter-battery", "18.1153")
        R.end_cb(ctx, bid)
        return []                                         # not an activation: the battery may still fire
    else:
        raise OrderError(f"in the Indirect Fire Phase: {HELP}", RULE)
    return [who]


# --- calling a battery ---------------------------------------------------------------------------

def _parse(args: list[str]) -> tuple[str, str, str, str, str]:
    if len(args) < 3 or args[1] != "at":
        raise OrderError("call BATTERY at HEX [concentration|barrage [line DIR]|rolling|smoke] [by UNIT]", "18.2")
    kind, along, by = "concentration", "", ""
    rest = list(args[3:])
    while rest:
        w = rest.pop(0).lower()
        if w in KINDS:
            kind = w
        elif w == "line" and rest and rest[0].upper() in DIRECTIONS:
            along = rest.pop(0).upper()
        elif w == "by" and rest:
            by = rest.pop(0)
        else:
            raise OrderError(f"unexpected {w!r}: call BATTERY at HEX [concentration|barrage [line N|NE|SE]|rolling|"
                             "smoke] [by UNIT]", "18.2")
    return args[0], args[2], kind, along, by


def call(ctx: Ctx, args: list[str]) -> str:
    """18.2-18.10: every check first (a refusal changes nothing), then contact, accuracy, the FFE."""
    st = tk(ctx.state)
    sc = ctx.sc
    name, h, kind, along, by = _parse(args)
    bid = R.find(ctx, name, ctx.side)
    spec = R.ssr(sc)[bid]
    side = ctx.side
    b = R.battery(st, bid)
    if not sc.board.grid.contains(h):
        raise OrderError(f"{h} is not a hex of the map", "18.31")
    if bid in st.step.acted:
        raise OrderError(f"{bid} has already fired this phase", "18.02")
    fires = list(spec.get("fire") or ["concentration"])
    if kind == "smoke" and not spec.get("smoke"):
        raise OrderError(f"{bid} has no smoke capability in its SSR (20.32)", "20.32")
    if kind != "smoke" and kind not in fires:
        raise OrderError(f"{bid} fires {' or '.join(fires)} only (its SSR, 18.11)", "18.11")
    if along and kind != "barrage":
        raise OrderError("only a barrage takes the seven-hex line (18.71)", "18.71")
    barrage = kind in ("barrage", "rolling")
    stage = 1 if kind == "smoke" else 2
    R.check_stage(st, stage)
    if barrage and "barrage_turns" in spec and st.turn not in spec["barrage_turns"]:
        raise OrderError(f"{bid}'s barrage is available on turns {spec['barrage_turns']} only (18.721)", "18.721")
    q = R.neutralized(st, bid)
    if q:
        raise OrderError(f"{bid} is neutralized by counter-battery fire through turn {q} (18.1152, 18.1153)",
                         "18.1153")
    nt = notes.notes_of(st, side)
    allot = nt.ffe.get(bid)
    if allot is None:
        raise OrderError(f"no FFE allotment recorded for {bid}: it is rolled before play (roll, 18.12)", "18.12")
    if b.used >= allot:
        raise OrderError(f"{bid} has placed all {allot} FFEs its side note allows (18.12)", "18.12")
    regs = nt.registrations.get(bid, [])
    spotter, mark, frm = _observer(ctx, bid, spec, h, kind, by, regs, b.cff)
    if spotter and st.units[spotter].hex is None and st.pieces[spotter].hidden_at:
        spotter = ""                                      # a hidden observer is not named (32.22)
    if barrage and h not in regs:
        raise OrderError(f"a barrage must be placed on a registration hex of {bid}; {h} is not one of its "
                         "registrations (its side note, 18.722)", "18.722")
    if kind != "smoke" and any(u.hex == h and u.side == side and not u.eliminated for u in st.units.values()):
        raise OrderError(f"{h} holds friendly units: only smoke may be fired there (20.34)", "20.34")
    # --- the order is valid: from here on dice are rolled ---
    R.end_cb(ctx, bid)                                    # 18.1153: it stops its counter-battery fire
    if not barrage and not R.contact(ctx, bid, drop=bool(b.cff)):
        return bid                                        # 18.221 NO FIRE: the activation is used
    drms: list[tuple[str, int]] = []
    reg = h in regs
    near = b.cff and sc.board.grid.distance(b.cff, h)
    if barrage:
        drms.append(("registration (18.721)" if kind == "barrage" else "rolling barrage (18.733)",
                     A.REGISTRATION_DRM))
    elif reg or (b.cff and near <= A.CFF_NEAR):
        drms.append(("registration (18.551)" if reg else f"existing CFF moved {near} hex{'es' if near != 1 else ''}"
                     " (18.332)", A.REGISTRATION_DRM if reg else A.CFF_NEAR_DRM))   # not cumulative (18.332)
    if not barrage and b.cff and near > A.CFF_FAR:
        drms.append((f"CFF moved {near} hexes (18.331)", A.CFF_FAR_DRM))
    if not barrage and b.cff and near <= 1:
        acc = {"rolls": [], "pct": 0, "drms": [], "total": 0, "off": 0, "toward": "", "final": h}    # 18.32
        reg = False
    else:
        acc = R.accuracy(ctx, h, drms)
    final = acc["final"]
    hexes, dh, ends = pattern(sc, spec, kind, final, along)
    reg_note = notes.note_for(st, side, "register", bid, h) if reg or barrage else None
    ctx.emit(IndirectFired(side=side, source=bid, what=kind, aimed=h, final=final, rolls=acc["rolls"], pct=acc["pct"],
                           drms=acc["drms"], total=acc["total"], off=acc["off"], toward=acc["toward"], hexes=hexes,
                           ends=ends, dh=dh, frag=R.frag(spec), need=A.DIRECT_HIT[R.bclass(spec)],
                           smoke=kind == "smoke", spotter=spotter, mark=mark, ffe=True, registered=reg_note or "",
                           stage=stage, rule="18.6" if kind in ("concentration", "smoke") else "18.7"))
    notes.open_note(ctx, side, reg_note)                  # the +20 shows the registration
    if spotter and spotter == R.fo_of(st, side, bid):
        notes.open_note(ctx, side, notes.note_for(st, side, "fo", bid))          # its first call shows it
    strike(ctx, bid, spec, kind, hexes, dh)
    return bid


def _observer(ctx: Ctx, bid: str, spec: dict, h: str, kind: str, by: str, regs: list[str],
              cff: str) -> tuple[str, list[str], str]:
    """18.8-18.10: who calls the fire: (spotter, units to mark fired, the hex it observes from)."""
    st = tk(ctx.state)
    sc = ctx.sc
    side = ctx.side
    fo = R.fo_of(st, side, bid)
    if by:
        u = find_unit(ctx, by, side)
        by = u.id
    if by and by != fo:
        if kind not in ("barrage", "rolling") or data.cls(sc, by) != "leader":
            raise OrderError(f"{by} is not {bid}'s forward observer (its side note names another, 18.82); "
                             "a leader may only call a barrage (18.101)", "18.82, 18.101")
        first = regs[0] if regs else ""
        if h != first:
            raise OrderError(f"a leader calls {bid}'s barrage only on its registration recorded first (18.101)",
                             "18.101")
        lu, lp = st.units[by], st.pieces[by]
        if lu.eliminated or (lu.hex is None and not lp.hidden_at) or lp.broken or lp.surrendered:
            raise OrderError(f"{by} is not on the map or is broken: it may not call a barrage (18.101)", "18.101")
        if lp.fired or (st.indirect.turn == st.turn and by in st.indirect.leaders):
            raise OrderError(f"{by} has already fired or called fire this turn: one battery a turn (18.102)",
                             "18.102")
        return by, _mark(st, by), ""
    if spec.get("fo_hex") and not by:
        frm = str(spec["fo_hex"])                         # 18.1031 the off-board FO, never eliminated
        if not (cff and h == cff):
            R.sight(st, sc, frm, h, f"{bid}'s off-board FO")
        return "", [], frm
    if not fo:
        raise OrderError(f"{bid} has no forward observer: assign one with a side note (note fo {bid} FO, 18.82)",
                         "18.82")
    if R.fo_gone(st, side, fo):
        raise OrderError(f"{bid}'s forward observer {fo} is eliminated: the battery may not fire again (18.863)",
                         "18.863")
    frm = R.fo_hex(st, sc, side, fo)
    if frm is None:
        raise OrderError(f"{bid}'s forward observer {fo} is not on the map (18.85)", "18.85")
    afv = notes.notes_of(st, side).op.get(fo, "")
    watcher = afv or fo
    p = st.pieces[watcher]
    if p.moved or p.moving:
        raise OrderError(f"{fo} must be stationary to observe (18.864, 18.93)", "18.864")
    if fo in st.indirect.leaders and st.indirect.turn == st.turn or st.pieces[fo].fired:
        raise OrderError(f"{fo} has already observed or fired this turn (18.864)", "18.864")
    if afv and p.suppressed:
        raise OrderError(f"{fo} may not adjust fire from the suppressed {afv} (18.93)", "18.93")
    if st.pieces[fo].broken or st.pieces[fo].surrendered:
        raise OrderError(f"{fo} is broken or surrendered", "11.1")
    if not (cff and h == cff):                            # 18.862 fire may stay in its hex unseen
        R.sight(st, sc, frm, h, f"{bid}'s FO {fo}")
    return fo, ([] if afv else _mark(st, fo)), frm


def _mark(st: TobrukState, uid: str) -> list[str]:
    """18.864, 18.101: an F marker, unless in FULL cover or hidden (a side note instead)."""
    p = st.pieces[uid]
    return [] if p.full or p.hidden_at and st.units[uid].hex is None else [uid]


def pattern(sc: Scenario, spec: dict, kind: str, final: str, along: str) -> tuple[list[str], list[int], list[str]]:
    """The hexes an FFE attacks, the direct-hit rolls each and the barrage limit hexes: concentration
    7/7 (18.61), barrage 19/20 (18.71), the seven-hex string 7/8 and a rolling barrage's (18.731)."""
    grid = sc.board.grid
    if kind == "rolling":
        along = str((spec.get("rolling") or {}).get("along", "N")).upper()
    ends: list[str] = []
    if kind in ("concentration", "smoke"):
        hexes = [final, *sorted(h for h in grid.within(final, A.CONCENTRATION_RADIUS) if h != final)]
        return hexes, [1] * len(hexes), ends
    if along:
        hexes, ends = R.string_hexes(sc, final, along)
    else:
        hexes = [final, *sorted(h for h in grid.within(final, A.BARRAGE_RADIUS) if h != final)]
    return hexes, [A.BARRAGE_CENTRE_ROLLS] + [1] * (len(hexes) - 1), ends


def strike(ctx: Ctx, bid: str, spec: dict, kind: str, hexes: list[str], dh: list[int]) -> None:
    if kind == "smoke":
        R.place_smoke(ctx, bid, hexes)
        return
    for h, n in zip(hexes, dh):
        R.attack_hex(ctx, bid, h, R.frag(spec), A.DIRECT_HIT[R.bclass(spec)], n, size=R.calibre(spec),
                     mortar=False, ffe=kind)


# --- the phase's start, end, and the end of the turn ------------------------------------------------------

def phase_start(ctx: Ctx) -> None:
    """18.732: each rolling barrage still in play moves on its track and attacks, accuracy +20 (18.733)."""
    st = tk(ctx.state)
    sc = ctx.sc
    for bid, spec in sorted(R.ssr(sc).items()):
        b = R.battery(st, bid)
        if b.kind != "rolling" or not b.cff or b.fired >= st.turn:
            continue
        rs = spec.get("rolling") or {}
        # 18.733: until lifted it goes on moving and attacking, also past its scheduled turns
        toward, steps = str(rs.get("toward", "N")).upper(), int(rs.get("hexes", 1))
        aim = b.cff
        for _ in range(steps):
            aim = sc.board.grid.neighbour(aim, toward) or aim
        acc = R.accuracy(ctx, aim, [("rolling barrage (18.733)", A.ROLLING_DRM)])
        hexes, dh, ends = pattern(sc, spec, "rolling", acc["final"], "")
        ctx.emit(IndirectFired(side=str(spec.get("side", "")), source=bid, what="rolling", aimed=aim,
                               final=acc["final"], rolls=acc["rolls"], pct=acc["pct"], drms=acc["drms"],
                               total=acc["total"], off=acc["off"], toward=acc["toward"], hexes=hexes,
                               ends=ends, dh=dh, frag=R.frag(spec),
                               need=A.DIRECT_HIT[R.bclass(spec)], rule="18.732"))
        strike(ctx, bid, spec, "rolling", hexes, dh)


def phase_end(ctx: Ctx) -> None:
    R.locate(ctx)                                         # 18.1151


def end_of_turn(ctx: Ctx) -> None:
    """5.41 FFEs flip to CFFs (barrage markers go), 20.364 smoke ages, 18.733 rolling barrages due to lift roll."""
    st = tk(ctx.state)
    flipped, cleared, lifted = [], [], []
    for bid in sorted(st.batteries):
        b = st.batteries[bid]
        if b.kind == "rolling" and b.cff:
            if b.lift and R.contact(ctx, bid, purpose="lift"):
                lifted.append(bid)
        elif b.kind == "barrage" and b.cff:
            cleared.append(bid)
        elif b.ffe:
            flipped.append(bid)
    gone = sorted(h for h, v in st.smoke.items() if v >= 2)
    aged = sorted(h for h, v in st.smoke.items() if v < 2)
    ctx.emit(IndirectTurnEnded(turn=st.turn, flipped=flipped, smoke_gone=gone, smoke_aged=aged, lifted=lifted,
                               cleared=cleared))


def can_act(st: TobrukState, sc: Scenario, side: str, fresh: bool = False) -> bool:
    """Whether ``side`` has a battery or on-board unit that could still fire this phase."""
    acted = () if fresh else st.step.acted
    nt = notes.notes_of(st, side)
    for bid, spec in R.ssr(sc).items():
        if spec.get("side") != side or bid in acted or R.neutralized(st, bid):
            continue
        b = R.battery(st, bid)
        if b.used < nt.ffe.get(bid, 0):
            fo = R.fo_of(st, side, bid)
            if spec.get("fo_hex") or (fo and not R.fo_gone(st, side, fo)) or \
                    {"barrage", "rolling"} & set(spec.get("fire") or []):
                return True
        if not b.cb and any(o.located and o.side != side for o in st.batteries.values()):
            return True
    for u in st.units.values():
        if u.side != side or u.id in acted or not mortar.capable(sc, u.id) or mortar.unfit(st, sc, u.id):
            continue
        if _target_in_reach(st, sc, u.id):
            return True
    return False


def _target_in_reach(st: TobrukState, sc: Scenario, uid: str) -> bool:
    grid = sc.board.grid
    at = mortar.where(st, uid)
    hi, lo = mortar.mortar_range(sc, uid) if mortar.is_mortar(sc, uid) else (10 ** 6, A.GUN_MIN_RANGE)
    side = st.units[uid].side
    return any(v.side != side and v.hex is not None and not v.eliminated and lo <= grid.distance(at, v.hex) <= hi
               and spotting.spotted(st, sc, side, v.id) for v in st.units.values())
