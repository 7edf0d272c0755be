"""Off-board artillery (18): the batteries of the scenario's SSR, battery contact
with its NO FIRE accumulation, the accuracy roll, concentrations, barrages and
rolling barrages, forward observers (in an OP tank too), leaders calling
barrages, counter-battery fire and locating; and the hex attack every kind of
indirect fire shares (direct hits, then the rest of the hex in its actual cover).

The SSR is ``[game_data.artillery.ID]``: side, nation, battery ("25pdr" or
"NNNmm"), fire = [concentration, barrage, rolling], barrage_turns, supply
(normal | high | low), smoke, and optionally frag, rolling = {along, toward,
turns, hexes}, locate_drm, quiet_extra, fo_hex (an off-board FO, 18.1031).
The secret parts come from the side notes (st.notes[side]: ffe, fo, op,
registrations); a note is opened when the rules say the enemy learns it."""
from __future__ import annotations

import re

from pbem.core.hexgrid import DIRECTIONS
from pbem.core.orders import OrderError
from pbem.core.ruleset import Ctx
from pbem.core.scenario import Scenario
from pbem.games.advanced_tobruk.tables import arty_tables as A
from pbem.games.advanced_tobruk.fire import casualty, fire_ap
from pbem.games.advanced_tobruk import data
from pbem.games.advanced_tobruk.board import facing
from pbem.games.advanced_tobruk.tables import fire_ap_tables as FT
from pbem.games.advanced_tobruk.board import bunkers, ground, obstacles, relief, spotting
from pbem.games.advanced_tobruk.fog import fow, hidden
from pbem.games.advanced_tobruk.notes import notes
from pbem.games.advanced_tobruk.arty_events import (BatteryLocated, ContactRolled, CounterBattery, DirectHitRolled,
                                                    SmokePlaced, VehicleStruck)
from pbem.games.advanced_tobruk.arty_state import Battery
from pbem.games.advanced_tobruk.mines.mines import clear
from pbem.games.advanced_tobruk.fire.smoke import smoke_drm
from pbem.games.advanced_tobruk.state import TobrukState, tk

CALIBRES = {"25pdr": 88, "18pdr": 84, "4.5in": 114, "5.5in": 140, "6in": 152}     # battery names -> mm


# --- the SSR ------------------------------------------------------------------------------------

def ssr(sc: Scenario) -> dict[str, dict]:
    return data.gd(sc).artillery


def calibre(spec: dict) -> int:
    name = str(spec.get("battery", ""))
    if name in CALIBRES:
        return CALIBRES[name]
    m = re.match(r"(\d+)", name)
    return int(m.group(1)) if m else 88


SSR_KEYS = {"side", "nation", "battery", "name", "fire", "barrage_turns", "supply", "smoke", "frag", "rolling",
            "locate_drm", "quiet_extra", "fo_hex"}


def ssr_problems(sc: Scenario) -> list[str]:
    """What is wrong with the scenario's [game_data.artillery] tables (for the scenario lint)."""
    out = []
    for bid, spec in sorted(ssr(sc).items()):
        where = f"[game_data.artillery.{bid}]"
        for k in sorted(set(spec) - SSR_KEYS):
            out.append(f"{where}: unknown key {k!r} (known: {', '.join(sorted(SSR_KEYS))})")
        if spec.get("side") not in sc.side_ids():
            out.append(f"{where}: side {spec.get('side')!r} is not a side of the scenario")
        if str(spec.get("battery", "")) not in CALIBRES and not re.match(r"\d+mm$", str(spec.get("battery", ""))):
            out.append(f"{where}: battery {spec.get('battery')!r}: one of {', '.join(CALIBRES)} or NNNmm")
        for k in spec.get("fire") or []:
            if k not in ("concentration", "barrage", "rolling"):
                out.append(f"{where}: fire {k!r}: concentration, barrage or rolling")
        if str(spec.get("supply", "normal")) not in ("normal", "high", "low"):
            out.append(f"{where}: supply {spec.get('supply')!r}: normal, high or low (18.224)")
        rs = spec.get("rolling")
        if "rolling" in (spec.get("fire") or []) and not (isinstance(rs, dict) and
                                                          str(rs.get("along", "")).upper() in DIRECTIONS and
                                                          str(rs.get("toward", "")).upper() in DIRECTIONS):
            out.append(f"{where}: a rolling barrage needs rolling = {{ along = DIR, toward = DIR, turns = N, "
                       f"hexes = N }} (18.732; DIR one of {' '.join(DIRECTIONS)})")
        if spec.get("fo_hex") and not sc.board.grid.contains(str(spec["fo_hex"])):
            out.append(f"{where}: fo_hex {spec['fo_hex']!r} is not a hex of the map")
    return out


def bclass(spec: dict) -> str:
    return A.battery_class(calibre(spec))


def frag(spec: dict) -> int:
    return int(spec.get("frag") or A.battery_frag(calibre(spec)))


def battery(st: TobrukState, bid: str) -> Battery:
    return st.batteries.get(bid) or Battery()


def find(ctx: Ctx, name: str, side: str | None = None) -> str:
    for bid, spec in ssr(ctx.sc).items():
        if bid.lower() == name.lower():
            if side is not None and spec.get("side") != side:
                raise OrderError(f"{bid} is not one of your batteries", "18.11")
            return bid
    raise OrderError(f"no off-board battery {name!r} in this scenario (its SSR lists "
                     f"{', '.join(sorted(ssr(ctx.sc))) or 'none'})", "18.11")


def neutralized(st: TobrukState, bid: str) -> int:
    """18.1152-18.1153: the turn through which ``bid`` may not fire (0 = it may fire now)."""
    for other in st.batteries.values():
        if other.cb == bid and st.turn >= other.cb_from + A.CB_ACQUIRE:
            return st.turn
    q = battery(st, bid).quiet_until
    return q if q >= st.turn else 0


def fo_of(st: TobrukState, side: str, bid: str) -> str:
    return notes.notes_of(st, side).fo.get(bid, "")


def fo_hex(st: TobrukState, sc: Scenario, side: str, fo: str) -> str | None:
    """Where an FO observes from: its hex, or its OP tank's (18.91)."""
    afv = notes.notes_of(st, side).op.get(fo, "")
    if afv:
        return st.units[afv].hex if afv in st.units and not st.units[afv].eliminated else None
    u = st.units.get(fo)
    if u is None or u.eliminated:
        return None
    return u.hex or st.pieces[fo].hidden_at or None      # 18.864 a hidden FO observes from its noted hex


def fo_gone(st: TobrukState, side: str, fo: str) -> bool:
    """18.863, 18.92: the FO is eliminated (with its OP tank K-KILLed)."""
    afv = notes.notes_of(st, side).op.get(fo, "")
    if afv and afv in st.units and st.units[afv].eliminated and st.pieces[afv].wreck:
        return True
    return fo in st.units and st.units[fo].eliminated


def line_drm(st: TobrukState, sc: Scenario, a: str, b: str) -> tuple[int, list[str]]:
    """HPN DRMs of the line a -> b (wrecks, vehicles 13.72; smoke 20.31); blocked lines raise."""
    n, why = fire_ap.los_drm(st, sc, a, b)
    s = smoke_drm(st, sc, a, b)
    if s:
        n += s
        why = [*why, f"smoke +{s}"]
    return n, why


def sight(st: TobrukState, sc: Scenario, frm: str, target: str, who: str) -> None:
    """18.861: within double the spotting range, no more than +8 HPN along the line."""
    reach = 2 * spotting.range_for(sc, "V")
    d = sc.board.grid.distance(frm, target)
    if d > reach:
        raise OrderError(f"{target} is {d} hexes from {who} in {frm}: an FO sees at most {reach} hexes (double "
                         f"the spotting range, 18.861)", "18.861")
    if not spotting.los_clear(st, sc, frm, target):                # 18.861 "(or terrain block LOS)"
        raise OrderError(f"{who} in {frm} has no line of sight to {target}: higher ground (or smoke and burning "
                         "wrecks) block it (18.861)", "18.861")
    n, why = line_drm(st, sc, frm, target)
    if n > A.LOS_LIMIT:
        raise OrderError(f"{who} cannot see {target}: +{n} HPN along the line ({', '.join(why)}), more than +8 "
                         "(18.861)", "18.861")


# --- the accuracy roll (18.3) ---------------------------------------------------------------------

def accuracy(ctx: Ctx, aimed: str, drms: list[tuple[str, int]]) -> dict:
    """Two d10 as a percentile plus the DRMs: the drift and the final hex (on the map)."""
    grid = ctx.sc.board.grid
    a, b = ctx.dice.roll(10), ctx.dice.roll(10)
    pct = A.percentile(a, b)
    total = pct + sum(v for _, v in drms)
    off = A.drift(total)
    toward = DIRECTIONS[A.direction(pct)]
    final = aimed
    for _ in range(off):
        nxt = grid.neighbour(final, toward)
        if nxt is None:
            break                                        # the fire stays on the map's edge (our decision)
        final = nxt
    return {"rolls": [a, b], "pct": pct, "drms": [f"{v:+d} {w}" for w, v in drms], "total": total, "off": off,
            "toward": toward if off else "", "final": final}


def string_hexes(sc: Scenario, h: str, along: str) -> tuple[list[str], list[str]]:
    """18.71 the seven-hex string: ``h`` and three hexes each way along a grid direction (fewer at
    the map's edge), and its two end hexes (the barrage limit markers)."""
    grid = sc.board.grid
    back = DIRECTIONS[(DIRECTIONS.index(along) + 3) % 6]
    out, ends = [h], []
    for d in (along, back):
        cur = h
        for _ in range(3):
            nxt = grid.neighbour(cur, d)
            if nxt is None:
                break
            cur = nxt
            out.append(cur)
        ends.append(cur)
    return out, ends


# --- the hex attack every indirect fire shares ------------------------------------------------------

def _units(st: TobrukState, h: str) -> list[str]:
    return sorted(u.id for u in st.units.values() if u.hex == h and not u.eliminated)


def _moving_vehicle(st: TobrukState, sc: Scenario, uid: str) -> bool:
    p = st.pieces[uid]
    return data.is_vehicle(sc, uid) and (p.moving or p.continued)                     # 18.434


def cover_drm(st: TobrukState, sc: Scenario, uid: str) -> int:
    """31.03, 19.17: +1 per left column shift of the unit's cover, FULL +2."""
    if relief.full_vs_indirect(st, sc, uid):                      # 33.73: not in a wadi
        return A.FULL_COVER_DRM
    if not data.is_personnel(sc, uid):
        return 0
    _, shift, _ = casualty.cover(st, sc, uid)
    return max(0, -shift)


FFE_MORALE = {"concentration": -1, "barrage": -2, "rolling": -2}     # 10.113c (a rolling barrage is a barrage)


def ffe_morale(kind: str) -> list[tuple[str, int]]:
    """10.113c: the morale modifier of personnel checking under an off-board FFE of ``kind``."""
    v = FFE_MORALE.get(kind, 0)
    return [(f"under {'a barrage' if v < -1 else 'a concentration'} FFE (10.113c)", v)] if v else []


def attack_hex(ctx: Ctx, source: str, h: str, frag_: int, need: int, rolls: int, *, size: int, mortar: bool,
               frm: str | None = None, drm: int = 0, rule: str = "18.43", ffe: str = "") -> None:
    """One hex under indirect HE: ``rolls`` direct-hit rolls (each unit rolls, the highest takes the
    hit, 18.431), then every unit not hit in its actual cover (18.432): personnel on the Casualty
    Table (a mortar's miss at half FRAG, 19.14), AFVs a suppression check (19.15, 30.02), other
    vehicles the Non-AFV table.  ``drm`` adds to every direct-hit roll (20.03 on-board guns' LOS);
    ``ffe``, an off-board FFE's kind, worsens the morale checks its attacks cause (10.113c)."""
    st = tk(ctx.state)
    sc = ctx.sc
    if frag_ >= 14:
        hidden.reveal_in_hex(ctx, h, f"{frag_} FRAG fired into the hex", "32.211", update=fow.update)
    mined = h in st.minefields
    # Our decision (18.61, 18.71): direct-hit rolls are made only in hexes where one could matter and
    # whose contents both sides know: on-map units, or a minefield on both maps.  A roll made because
    # of hidden units or a hidden minefield would tell the firer they are there (32.2, 31.15); such a
    # hex is rolled for only when it also holds known units (a hit then reveals or clears as usual).
    public_mines = mined and not st.minefields[h].hidden
    wire = size >= obstacles.CLEAR_WIRE_SIZE and ground.has(st, sc, h, ground.WIRE)      # 31.85: on both maps
    hits: dict[str, int] = {}
    for _ in range(rolls):
        cands = [u for u in _units(st, h) if not _moving_vehicle(st, sc, u)]
        if not cands and not public_mines and not wire:
            break                                        # nothing there a direct hit could touch
        die = ctx.dice.roll(10)
        r = die + drm                                    # 20.03 the on-board gun's LOS DRM
        drms = {u: cover_drm(st, sc, u) for u in cands}
        rolled: list[list[str]] = []
        hit: list[str] = []
        ur: dict[str, int] = {}
        if cands and r + min(drms.values()) <= need:
            if len(cands) > 1:
                ur = {u: ctx.dice.roll(10) for u in cands}
                top = max(ur.values())
                rolled = [[u, str(ur[u]), str(drms[u])] for u in cands]
                chosen = [u for u in cands if ur[u] == top]
            else:
                rolled = [[cands[0], "", str(drms[cands[0]])]]
                chosen = cands
            hit = [u for u in chosen if r + drms[u] <= need]
        elif cands and r <= need:
            rolled = [[u, "", str(drms[u])] for u in cands]            # their cover saves them all (31.03)
        ctx.emit(DirectHitRolled(source=source, hex=h, rolls=[die, *ur.values()], drm=drm, need=need, units=rolled, hit=hit,
                                 rule=rule))
        if r <= need:
            hidden.reveal_in_hex(ctx, h, "a direct hit in the hex", "32.211", update=fow.update)
            if mined and size >= 149:
                _clear_mines(ctx, h, f"a direct hit by {size} mm HE")
            obstacles.clear_wire(ctx, h, size, f"a direct hit by {size} mm HE")           # 31.85
            bunkers.destroy(ctx, h, size, f"a direct hit by {size} mm HE")                # 31.54
        for u in hit:
            hits[u] = hits.get(u, 0) + 1
            _direct_hit(ctx, source, u, frag_, size, mortar, frm, ffe)
    _rest(ctx, source, h, frag_, size, mortar, [u for u in hits], ffe)


ROCK = ("rock", "rock-strewn", "rocks")


def rock_shift(sc: Scenario, h: str) -> list[tuple[str, int]]:
    """17.81: personnel in rock-strewn terrain are one column worse off under indirect HE."""
    return [("rock-strewn terrain (17.81)", 1)] if data.terrain(sc, h) in ROCK else []


def _clear_mines(ctx: Ctx, h: str, why: str) -> None:
    clear(ctx, h, why)                                  # MINES' 31.212 clearance


def open_topped(sc: Scenario, u: str) -> bool:
    """19.2: an open-topped AFV (its type's ``open_top``, as melee.py reads it, or ``open``)."""
    t = data.utype(sc, u)
    return bool(t.get("open_top") or t.get("open"))


def _direct_hit(ctx: Ctx, source: str, u: str, frag_: int, size: int, mortar: bool, frm: str | None,
                ffe: str = "") -> None:
    st = tk(ctx.state)
    sc = ctx.sc
    if st.units[u].eliminated:
        return
    h = st.units[u].hex or ""
    if data.is_personnel(sc, u):
        casualty.attack(ctx, h, frag_, f"{source}: direct hit on {u}", targets=[u], as_stationary=True,
                        full_hit=True, mark_fired=False, parts=[f"{frag_} FRAG"], shifts=rock_shift(sc, h),
                        morale_mods=ffe_morale(ffe), rule="18.431, 19.14", cfire=not ffe)
        return
    if data.is_weapon(sc, u):                             # 19.31 F-KILL
        ctx.emit(VehicleStruck(source=source, unit=u, how="weapon", result="direct hit: F-KILL",
                               effects=[[u, "fkill", "main"]]))
        return
    if not data.is_afv(sc, u) or open_topped(sc, u):
        r = ctx.dice.roll(10)                             # 19.21, 19.22 K-KILL, burning or not
        burning = r <= A.BURN_ON
        ctx.emit(VehicleStruck(source=source, unit=u, how="open" if data.is_afv(sc, u) else "soft", rolls=[r],
                               burn_number=A.BURN_ON, result="direct hit: K-KILL, " +
                               ("burning wreck" if burning else "wreck"),
                               effects=[[u, "kkill", "burning" if burning else "wreck"]]))
        return
    _afv_hit(ctx, source, u, size, frm)


def _afv_hit(ctx: Ctx, source: str, u: str, size: int, frm: str | None) -> None:
    """19.15: location and aspect, HE penetration halved, the K-KILL Table's HE row; a hit that does
    not K-KILL goes to the Suppression Table.  Track hits are ignored."""
    st = tk(ctx.state)
    sc = ctx.sc
    t = data.utype(sc, u)
    p = st.pieces[u]
    r = ctx.dice.roll(10)
    table = FT.HIT_LOCATION_TURRETED if t.get("turret") else FT.HIT_LOCATION_HULL
    loc = table[r]
    # the fields gathered, then the event made once (events are frozen)
    ev = dict(source=source, unit=u, how="afv", location=loc, rolls=[r], result="", effects=[])
    if loc == "TR":
        ev["result"] = "track hit, ignored (19.15)"
    else:
        face = p.turret if loc == "TUR" and p.turret >= 0 else p.facing
        h = st.units[u].hex or ""
        # off-board fire has no firing hex: it strikes the flank aspect (our decision)
        ev["aspect"] = facing.aspect(sc.board.grid, h, face, frm) if frm and frm != h and face >= 0 else "flank"
        ev["armour"] = int(t.get("armour", {}).get(fire_ap.LOC_KEY[loc], [0, 0, 0])[fire_ap.ASPECTS.index(ev["aspect"])])
        ev["pen"] = FT.he_pen(size) // 2                     # 19.15 halved for indirect fire
        diff = ev["pen"] - ev["armour"]
        if diff < -1:
            ev["result"] = "no penetration"
        else:
            col = fire_ap.kill_column(diff)
            ev["kill_number"], ev["burn_number"] = FT.KKILL["HE"][col], FT.KKILL["BURN"][col]
            kr = ctx.dice.roll(10)
            ev["rolls"] = [*ev["rolls"], kr]
            if kr < ev["kill_number"]:
                burning = kr <= ev["burn_number"]
                ev["result"] = "K-KILL, " + ("burning wreck" if burning else "wreck")
                ev["effects"] = [[u, "kkill", "burning" if burning else "wreck"]]
            else:
                ev["result"] = "no kill"
    if not ev["effects"] and not p.suppressed:
        _suppression(ctx, ev, size)
    ctx.emit(VehicleStruck(**ev))


def _suppression(ctx: Ctx, ev: dict, size: int) -> None:
    """30.02: the suppression check, into the fields of the VehicleStruck to be made (``ev``)."""
    ev["suppress_number"] = FT.SUPPRESSION[FT.size_row(size)]
    r = ctx.dice.roll(10)
    ev["rolls"] = [*ev["rolls"], r]
    if r <= ev["suppress_number"]:
        ev["effects"] = [*ev["effects"], [ev["unit"], "suppressed", "30.02"]]
        ev["result"] = (ev["result"] + "; " if ev["result"] else "") + "suppressed"
    else:
        ev["result"] = (ev["result"] + "; " if ev["result"] else "") + "not suppressed"


def _rest(ctx: Ctx, source: str, h: str, frag_: int, size: int, mortar: bool, hit: list[str], ffe: str = "") -> None:
    """18.432, 19.14-19.22: the units not hit, in their actual cover."""
    st = tk(ctx.state)
    sc = ctx.sc
    f = frag_ // 2 if mortar else frag_
    units = [u for u in _units(st, h) if u not in hit]
    people = [u for u in units if data.is_personnel(sc, u) and not relief.full_vs_indirect(st, sc, u)]  # 18.433
    if people and f > 0:
        casualty.attack(ctx, h, f, f"{source}: {'miss, half FRAG' if mortar else 'FRAG'}", targets=people,
                        mark_fired=False, shifts=rock_shift(sc, h), parts=[f"{frag_} FRAG" + (" halved" if mortar else "")],
                        morale_mods=ffe_morale(ffe), rule="19.14" if mortar else "18.432", cfire=not ffe)
    for u in units:
        if st.units[u].eliminated or not data.is_vehicle(sc, u):
            continue
        if data.is_afv(sc, u) and not open_topped(sc, u):
            if not st.pieces[u].suppressed:
                ev = dict(source=source, unit=u, how="suppression", rolls=[], result="", effects=[])
                _suppression(ctx, ev, size)
                ctx.emit(VehicleStruck(**ev))
            continue
        col = FT.nonafv_column(f)                         # 19.22 the Non-AFV table with the FRAG
        c = "apc" if data.cls(sc, u) in ("apc", "afv") else "truck"
        if col is None:
            continue
        entry = FT.NONAFV[c][col]
        r = ctx.dice.roll(10)
        res = fire_ap.vehicle_result(entry, r)
        eff = [[u, "kkill", "wreck"]] if res == "K-KILL" else [[u, "mkill", ""]] if res == "M-KILL" else []
        ctx.emit(VehicleStruck(source=source, unit=u, how="soft-frag", rolls=[r], column=col,
                               result=f"{entry}: {res or 'no effect'}", effects=eff))


# --- locating and counter-battery (18.11) -------------------------------------------------------------

def locate(ctx: Ctx) -> None:
    """18.1151 at the end of the phase: each enemy battery that fired this turn, not yet located."""
    st = tk(ctx.state)
    for bid, spec in sorted(ssr(ctx.sc).items()):
        b = battery(st, bid)
        if b.fired != st.turn or b.located or b.kind == "cb":
            continue
        by = next((s for s in ctx.sc.side_ids() if s != spec.get("side")), "")
        need = A.LOCATE_ON - int(spec.get("locate_drm", 0))
        r = ctx.dice.roll(10)
        ctx.emit(BatteryLocated(battery=bid, by=by, rolls=[r], need=need, located=r <= need))


def counter_battery(ctx: Ctx, args: list[str]) -> str:
    """``counter-battery BATTERY at ENEMY`` (18.1152): the enemy must be located; the matrix limits."""
    st = tk(ctx.state)
    sc = ctx.sc
    if len(args) != 3 or args[1] != "at":
        raise OrderError("counter-battery BATTERY at ENEMY-BATTERY", "18.1152")
    bid = find(ctx, args[0], ctx.side)
    target = find(ctx, args[2])
    if bid in st.step.acted:
        raise OrderError(f"{bid} has already fired this phase: counter-battery fire is its fire mission for "
                         "the phase (18.02, 18.1153)", "18.02")
    if ssr(sc)[target].get("side") == ctx.side:
        raise OrderError(f"{target} is one of your own batteries", "18.112")
    if not battery(st, target).located:
        raise OrderError(f"{target} has not been located: only a located battery may be engaged (18.1151)",
                         "18.1151")
    mine, theirs = bclass(ssr(sc)[bid]), bclass(ssr(sc)[target])
    if theirs not in A.COUNTER_BATTERY[mine]:
        raise OrderError(f"a {mine} battery may not fire counter-battery at a {theirs} one (the Off-Board "
                         "Counter-Battery Matrix, 18.113)", "18.113")
    if neutralized(st, bid):
        raise OrderError(f"{bid} is neutralized by counter-battery fire (18.1153)", "18.1153")
    if battery(st, bid).cb == target:
        raise OrderError(f"{bid} already keeps {target} under counter-battery fire (18.1152)", "18.1152")
    check_stage(st, 5)
    end_cb(ctx, bid)
    ctx.emit(CounterBattery(battery=bid, target=target, start=st.turn))
    return bid


def end_cb(ctx: Ctx, bid: str) -> None:
    """18.1153: a battery that stops counter-battery fire frees its target two turns later."""
    st = tk(ctx.state)
    b = battery(st, bid)
    if not b.cb:
        return
    was = st.turn >= b.cb_from + A.CB_ACQUIRE
    extra = int(ssr(ctx.sc).get(b.cb, {}).get("quiet_extra", 0))                     # 18.11532
    ctx.emit(CounterBattery(battery=bid, target=b.cb, ended=True, until=st.turn + A.CB_AFTER + extra if was else 0))


STAGE_RULE = {1: "all smoke is fired before any other indirect fire (20.33)",
              2: "off-board artillery fires before the mortars (19.03)",
              3: "mortars fire before on-board guns (20.02)",
              4: "on-board guns fire before counter-battery fire (5.111)"}


def check_stage(st: TobrukState, stage: int) -> None:
    """5.111, 20.33, 19.03, 20.02: the phase's fire goes smoke, off-board, mortars, on-board guns,
    counter-battery; once a later kind has fired, an earlier one may not."""
    cur = st.indirect.stage if st.indirect.turn == st.turn else 0
    if stage < cur:
        raise OrderError(f"too late in the Indirect Fire Phase: {STAGE_RULE[stage]}", "5.111")


def place_smoke(ctx: Ctx, source: str, hexes: list[str]) -> None:
    for h in hexes:
        ctx.emit(SmokePlaced(source=source, hex=h, shows=A.SMOKE_OFF_BOARD))             # 20.362


def contact(ctx: Ctx, bid: str, purpose: str = "", drop: bool = False) -> bool:
    """18.22: d10 plus NO FIRE turns plus the supply DRM, at most the nationality's number."""
    st = tk(ctx.state)
    spec = ssr(ctx.sc)[bid]
    need = A.CONTACT.get(str(spec.get("nation", "")), A.CONTACT_DEFAULT)
    b = battery(st, bid)
    drms: list[str] = []
    mod = 0
    if b.no_fire and purpose != "lift":
        mod += b.no_fire
        drms.append(f"+{b.no_fire} NO FIRE ({b.no_fire} turn{'s' if b.no_fire > 1 else ''}, 18.222)")
    sup = A.AMMO_CONTACT_DRM.get(str(spec.get("supply", "")), 0)
    if sup:
        mod += sup
        drms.append(f"{sup:+d} {spec.get('supply')} ammunition supply (18.224)")
    r = ctx.dice.roll(10)
    ok = r + mod <= need
    ctx.emit(ContactRolled(battery=bid, side=str(spec.get("side", "")), rolls=[r], need=need, drms=drms, ok=ok,
                           purpose=purpose, drop=drop and not ok))
    return ok
