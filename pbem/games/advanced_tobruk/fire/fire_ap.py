"""Fire on the Hit Probability Table (12, 13, 16.1, 17.2-17.6, 30.02): covered
arcs and pivots, the HPN and its DRMs, rate of fire and Burst on Target, hit
location by aspect, penetration against armour, K-, M- and F-KILLs, wrecks,
bail out and suppression; HE rounds at personnel go to the Casualty Table.

One call of ``fire_gun`` is one weapon firing at one target: it rolls every
round and emits one GunFired event holding every step (then Casualty Table
attacks for HE at personnel or a weapon's crew)."""
from __future__ import annotations

from pbem.core.orders import OrderError
from pbem.core.ruleset import Ctx
from pbem.core.scenario import Scenario
from pbem.games.advanced_tobruk.board import bunkers, cover_moves, defilade, facing, ground, relief, stacking
from pbem.games.advanced_tobruk.fire import casualty
from pbem.games.advanced_tobruk import data
from pbem.games.advanced_tobruk.notes import notes
from pbem.games.advanced_tobruk.tables import arty_tables as A, fire_ap_tables as T
from pbem.games.advanced_tobruk.fire_events import GunFired, Round
from pbem.games.advanced_tobruk.fire.smoke import smoke_hexes
from pbem.games.advanced_tobruk.fire.fire_command import (ammo_left, bail_out, command_lost,  # noqa: F401
                                                          command_refusal, is_command)
from pbem.games.advanced_tobruk.state import TobrukState, tk

ASPECTS = ("front", "flank", "rear")
LOC_KEY = {"TUR": "turret", "UH": "uh", "LH": "lh"}
FIXED_FIRST, FIXED_MORE = 3, 1         # 8.512 (and the 15.711 example): +3 then +1 per spine
SLOW_FIRST = 2                         # 12.233 dashed turret: +2 then +1
ELITE = ("elite commander", -1)        # 24.07


# --- the unit data ---------------------------------------------------------------

def guns(sc: Scenario, uid: str) -> list[dict]:
    """The HPT weapons of a unit: a vehicle's ``guns`` (first = main armament, 13.91) or the
    weapon unit itself (a heavy gun or an ATR)."""
    t = data.utype(sc, uid)
    if t.get("guns"):
        return [dict(g) for g in t["guns"]]
    if data.is_weapon(sc, uid) and t.get("rating"):
        return [{**t, "name": t.get("name") or sc.unit_defs[uid].type, "mount": "weapon"}]
    return []


def gun(sc: Scenario, uid: str, name: str = "") -> dict:
    gs = guns(sc, uid)
    if not gs:
        raise OrderError(f"{uid} has no gun that fires on the Hit Probability Table", "13.1")
    if not name or name.lower() in ("main", "ma"):
        return gs[0]
    for g in gs:
        if str(g.get("name", "")).lower() == name.lower():
            return g
    raise OrderError(f"{uid} has no gun {name!r} (it has {', '.join(str(g.get('name')) for g in gs)})", "13.1")


def part_of(mount: str) -> str:
    """Where a weapon sits for F-KILLs (13.613, 16.444): 'turret' (turret guns, coaxial and AA
    machine-guns) or 'hull' (hull and sponson guns, bow machine-guns)."""
    return "turret" if mount in ("turret", "coax", "aa") else "hull" if mount in ("hull", "sponson", "bow") else ""


def fkill_parts(sc: Scenario, uid: str, where: str) -> list[str]:
    """The F-KILL markers a hit on ``where`` gives (13.613): the part, and 'main' when the main
    armament (13.91: the first gun, else a turret machine-gun) is there; a weapon unit: 'main'."""
    if data.is_weapon(sc, uid):
        return ["main"]
    gs = guns(sc, uid)
    main = part_of(str(gs[0].get("mount", ""))) if gs else ("turret" if data.utype(sc, uid).get("turret") else "")
    return sorted({where, "main"} if main == where else {where})


def weapon_out(sc: Scenario, uid: str, p, mount: str) -> bool:
    """Is a weapon with this mount F-KILLed on this unit?"""
    if data.is_weapon(sc, uid):
        return bool(p.f_kill)
    return part_of(mount) in p.f_kill


# --- numbers -----------------------------------------------------------------------

def hpt_number(rating: str, size: int, rng: int) -> int | None:
    """13.22: the HPN for a gun rating at a range (the size column from 17 hexes, 13.12); None = '-'."""
    i = T.band_index(T.HPT_BANDS, max(rng, 1))
    if i is not None:
        return T.HPT[rating][i]
    j = T.band_index(T.HPT_LONG_BANDS, rng)
    if j is None:
        return None
    return T.HPT_LONG[rating]["75" if size >= 75 else "70"][j]


def pivot_drm(kind: str, spines: int) -> int:
    """12.233, 8.512: the HPN DRM of turning ``spines`` hex spines in the Combat Segment:
    fast turret +1 each; slow turret +2 then +1; a hull or fixed gun +3 then +1."""
    if spines <= 0:
        return 0
    if kind == "fast":
        return spines
    if kind == "slow":
        return SLOW_FIRST + spines - 1
    return FIXED_FIRST + FIXED_MORE * (spines - 1)


def penetration(g: dict, ammo: str, rng: int) -> int:
    """The Gun Penetration Table (AP, APCR, HEAT) or the HE Penetration Table."""
    if ammo == "HE":
        return T.he_pen(int(g.get("size", 0)))
    row = T.PENETRATION.get(str(g.get("pen") or g.get("name")), {}).get(ammo)
    if row is None:
        raise OrderError(f"no {ammo} penetration for {g.get('name')}", "13.621")
    i = T.band_index(T.PEN_BANDS, rng)
    return row[i] if i is not None else 0


def kill_column(diff: int) -> int:
    return T.KKILL_DIFFS.index(min(diff, 5))


def moving(st: TobrukState, uid: str) -> bool:
    """13.41, 6.542: moved this turn, moving now or in continued movement."""
    p = st.pieces[uid]
    return p.moving or p.moved or p.continued


# --- arcs ----------------------------------------------------------------------------

def arc_kind(sc: Scenario, uid: str, g: dict) -> str:
    """'all' (360 degrees, never pivots: 12.11), 'turret' or 'hull' (12.12, 12.2, 8.5)."""
    t = data.utype(sc, uid)
    if data.is_weapon(sc, uid):
        if t.get("weight") in ("L", "M"):
            return "all"
        return "turret" if t.get("turret") in ("360", "fast", "slow") else "hull"
    return "turret" if g.get("mount") == "turret" and t.get("turret") else "hull"


def turn_kind(sc: Scenario, uid: str, arc: str) -> str:
    t = data.utype(sc, uid)
    if arc == "turret":
        return "slow" if t.get("turret") == "slow" else "fast"
    return "fixed"


def bears(sc: Scenario, uid: str, g: dict, at: str, spine: int, target_hex: str) -> bool:
    """The gun ``g`` of ``uid`` at ``at``, its arc facing ``spine``, bears on ``target_hex``
    (12.1, 12.2): the front arc, or a vehicle's sponson gun's narrower one (27.03).  An
    M11/39-like hull gun that fires through both front hexsides (27.05) is mounted 'hull'."""
    if g.get("mount") == "sponson" and data.is_vehicle(sc, uid):
        return facing.in_sponson_arc(sc.board.grid, at, spine, target_hex)
    return facing.in_arc(sc.board.grid, at, spine, target_hex)


def current_arc(st: TobrukState, uid: str, arc: str) -> int:
    p = st.pieces[uid]
    return p.turret if arc == "turret" and p.turret >= 0 else p.facing


def arc_check(ctx: Ctx, firer: str, g: dict, target_hex: str, turn_to: int = -1) -> tuple[int, list[int], str]:
    """12.1-12.3: (pivot DRM, [new facing, new turret], why) for firing at ``target_hex``; a pivot
    only when the order asks for it (``turn_to``); refused when the target stays out of the arc."""
    st = tk(ctx.state)
    sc = ctx.sc
    arc = arc_kind(sc, firer, g)
    at = st.units[firer].hex
    if arc == "all":
        return 0, [], ""
    now = current_arc(st, firer, arc)
    sponson = g.get("mount") == "sponson" and data.is_vehicle(sc, firer)
    if turn_to < 0:
        if now < 0 or bears(sc, firer, g, at, now, target_hex):
            return 0, [], ""
        what = "sponson arc (27.03)" if sponson else "turret" if arc == "turret" else "covered arc"
        raise OrderError(f"{target_hex} is outside {firer}'s {what} for its {g.get('name')} (12.1); "
                         f"turn it with 'turret SPINE' or 'face SPINE'", "12.1")
    return turn_arc(ctx, firer, arc, target_hex, turn_to, g)


def turn_arc(ctx: Ctx, firer: str, arc: str, target_hex: str, turn_to: int, g: dict | None = None
             ) -> tuple[int, list[int], str]:
    """12.233, 8.512: turning the ``arc`` ('turret' or 'hull') to spine ``turn_to`` in the Combat
    Segment so that it (gun ``g``, if one) bears on ``target_hex``: (HPN DRM, [new facing, new
    turret], why)."""
    st = tk(ctx.state)
    sc = ctx.sc
    at = st.units[firer].hex
    now = current_arc(st, firer, arc)
    p = st.pieces[firer]
    if not bears(sc, firer, g or {}, at, turn_to, target_hex):
        raise OrderError(f"{target_hex} is not in the arc of spine {facing.SPINES[turn_to]} either (12.1)", "12.1")
    if arc == "hull" and p.m_kill and data.is_vehicle(sc, firer):
        raise OrderError(f"{firer} is M-KILLed and may not pivot (13.612)", "13.612")
    if arc == "turret" and "turret" in p.f_kill:
        raise OrderError(f"{firer}'s turret is F-KILLed and may not turn (13.613)", "13.613")
    spines = facing.spine_turns(now, turn_to)
    kind = turn_kind(sc, firer, arc)
    drm = pivot_drm(kind, spines)
    label = {"fast": "turret turned", "slow": "slow turret turned"}.get(kind, "pivoted")
    pivot = [-1, turn_to] if arc == "turret" and data.is_vehicle(sc, firer) else [turn_to, -1]
    return drm, pivot, f"{label} {spines} spine{'s' if spines != 1 else ''}"


def _smoke_hexes(st: TobrukState, sc: Scenario, a: str, b: str) -> list[str]:
    """20.31: the smoke hexes the fire passes into or through (smoke.py; none without smoke)."""
    if not st.smoke:
        return []
    return smoke_hexes(st, sc, a, b)


def los_drm(st: TobrukState, sc: Scenario, a: str, b: str) -> tuple[int, list[str]]:
    """12.42, 13.72: +4 per burning wreck, +1 per other wreck and (reconstructed) +1 per vehicle
    between firer and target; two burning wrecks block the line (refused: OrderError)."""
    between = data.line_between(sc, a, b)
    burning = wrecks = vehicles = 0
    pieces = st.pieces
    for u in st.units.values() if between else ():
        if u.hex not in between:
            continue
        p = pieces.get(u.id)
        if p is None:
            continue
        if p.wreck == "burning":
            burning += 1
        elif p.wreck and not (ground.is_deir(sc, u.hex) and min(ground.level(sc, a), ground.level(sc, b)) >= 0):
            wrecks += 1                                 # 33.43: a wreck down in a deir is below the line
        elif not u.eliminated and data.is_vehicle(sc, u.id):
            vehicles += 1
    if burning >= 2:
        raise OrderError(f"two burning wrecks block the line of sight from {a} to {b} (13.72)", "13.72")
    smoke = len(_smoke_hexes(st, sc, a, b))
    if burning + smoke >= 2:
        raise OrderError(f"smoke and burning wrecks ({smoke} smoke, {burning} burning) block the line of sight from "
                         f"{a} to {b} (20.31, 13.72)", "13.72")
    out, why = 0, []
    for n, each, what in ((burning, 4, "burning wreck"), (wrecks, 1, "wreck"), (vehicles, 1, "vehicle")):
        if n:
            out += n * each
            why.append(f"{what}{'s' if n > 1 else ''} in the line +{n * each}")
    return out, why


# --- the shot -------------------------------------------------------------------------

def crew_of(st: TobrukState, sc: Scenario, weapon: str) -> list[str]:
    """The personnel operating a weapon (9.13): its holder."""
    h = st.pieces[weapon].holder
    return [h] if h and not st.units[h].eliminated else []


REGISTERED_BOT = "burst on target: a registered hex (18.54)"


def registered(st: TobrukState, sc: Scenario, firer: str, target: str) -> bool:
    """18.54: the target stands in a hex the firer registered before the enemy set up: a
    permanent Burst on Target marker there for that weapon alone."""
    h = st.units[target].hex
    side = st.units[firer].side
    return bool(h) and notes.reg_kind(sc, firer) == "weapon" and \
        h in notes.notes_of(st, side).registrations.get(firer, [])


def straight_at(sc: Scenario, frm: str, path: list[str]) -> bool:
    """13.441: a move made directly at or away from the hex ``frm``: every hex entered one nearer
    (or every one farther) and every hex of the path on the straight line from ``frm`` through its
    far end (either hex where the line runs along a hexside).  Our reading of 'directly'."""
    grid = sc.board.grid
    if len(path) < 2 or frm in path:
        return False
    steps = {grid.distance(frm, b) - grid.distance(frm, a) for a, b in zip(path, path[1:])}
    if steps not in ({-1}, {1}):
        return False
    far = path[0] if steps == {-1} else path[-1]
    line = {h for pair in grid.line_pairs(frm, far) for h in pair}
    return all(h in line for h in path)


def hpn_drms(ctx: Ctx, firer: str, target: str, rng: int, *, personnel: bool = False,
             opportunity: bool = False, was: tuple[str, bool] | None = None, ammo: str = "") -> list[tuple[str, int]]:
    """13.4-13.46, 4.11, 8.32, 30.03, 16.01: the DRMs of a direct hit attempt (plus is harder);
    ``was``: the firer's (acquired target, suppressed) before a simultaneous duel shot (17.33)."""
    st = tk(ctx.state)
    sc = ctx.sc
    fp, tp = st.pieces[firer], st.pieces[target]
    fu, tu = st.units[firer], st.units[target]
    out: list[tuple[str, int]] = []
    bot, suppressed = was if was is not None else (fp.bot, fp.suppressed)
    if personnel:
        state, shift, _ = casualty.cover(st, sc, target, opportunity, fu.hex or "")
        d = 2 if state == "full" else -shift                      # 16.01, 31.03: one per column shift
        bunker = bunkers.hpn_drm(st, sc, target, rng, ammo) if state == "full" else None
        if bunker is not None:
            out.append(bunker)                                     # 31.56, 31.58 instead of FULL's +2
        elif d:
            out.append((f"target {state} cover", d))
    elif moving(st, target) and not (bot == target and straight_at(sc, fu.hex, tp.path)):
        out.append(("target moving", T.MOVING_DRM))                # 13.41, 13.441
    if data.is_vehicle(sc, target) and fu.hex != tu.hex:
        asp = facing.aspect(sc.board.grid, tu.hex, tp.facing, fu.hex, moving(st, target)) if tp.facing >= 0 \
            else "front"
        if asp == "flank":
            out.append(("flank aspect", T.FLANK_DRM))              # 13.453
    size = int(data.utype(sc, target).get("target_size", 0))
    if size and rng > 1:
        out.append(("target size", size))                          # 13.451, 13.452
    if bot == target:
        out.append(("burst on target", T.BOT_DRM))                 # 13.463
    elif registered(st, sc, firer, target):
        out.append((REGISTERED_BOT, T.BOT_DRM))                    # 18.54 as if acquired
    if data.is_heavy(sc, firer):
        crew = crew_of(st, sc, firer)
        if not crew or data.cls(sc, crew[0]) not in ("crew", "leader"):
            out.append(("not fired by a crew", T.NON_CREW_DRM))    # 8.32
    if suppressed:
        out.append(("firer suppressed", 2))                        # 30.03
    if firer in notes.notes_of(st, fu.side).elite and data.is_afv(sc, firer):
        out.append(ELITE)                                          # 24.07
    over, _ = stacking.overstack_drm(st, sc, tu.hex, tu.side)
    if over:
        out.append(("target hex overstacked", over))               # 4.11
    los, why = los_drm(st, sc, fu.hex, tu.hex)
    if los:
        out.append((" and ".join(why), los))
    smoke = len(_smoke_hexes(st, sc, fu.hex, tu.hex))
    if smoke:
        out.append((f"smoke in the line{' x' + str(smoke) if smoke > 1 else ''}", smoke * A.SMOKE_HPN))  # 20.31
    return out


def rate_of_fire(ctx: Ctx, firer: str, g: dict, target: str) -> tuple[int, list[str]]:
    """13.3, 13.462, 9.21, 17.91: rounds this weapon fires at this target."""
    st = tk(ctx.state)
    sc = ctx.sc
    p = st.pieces[firer]
    rof = int(g.get("rof", 1))
    why: list[str] = []
    halved = False
    if data.is_weapon(sc, firer):
        crew = crew_of(st, sc, firer)
        reduced = not crew or st.pieces[crew[0]].steps >= 1 or data.cls(sc, crew[0]) != "crew"
        if reduced and rof > 1:
            rof, halved = max(1, rof // 2), True
            why.append("reduced or no crew: ROF halved (9.21, 9.32)")
        if int(g.get("size", 0)) >= 65 and not casualty.emplacement(sc, st.units[firer].hex) and \
                data.is_heavy(sc, firer) and not halved:
            rof, halved = max(1, rof // 2), True
            why.append("dust: ROF halved outside a pit (17.91)")
    if (p.bot == target or registered(st, sc, firer, target)) and g.get("bot", True) and not halved:   # 18.54
        if rof > 1:
            rof *= 2
            why.append("burst on target: ROF doubled (13.462)")
        elif p.bot_turn < st.turn:
            rof = 2
            why.append("burst on target from an earlier turn: fires twice (13.462)")
    return rof, why


def _location(ctx: Ctx, sc: Scenario, target: str) -> tuple[str, int]:
    r = ctx.dice.roll(10)
    table = T.HIT_LOCATION_TURRETED if data.utype(sc, target).get("turret") else T.HIT_LOCATION_HULL
    return table[r], r


def afv_round(ctx: Ctx, rd: Round, g: dict, ammo: str, rng: int, firer: str, target: str,
              effects: list[list[str]], state: dict) -> None:
    """13.5-13.11 for one hit on an AFV: location, armour, penetration, damage, bail out, suppression."""
    st = tk(ctx.state)
    sc = ctx.sc
    grid = sc.board.grid
    tu, tp = st.units[target], st.pieces[target]
    fu = st.units[firer]
    t = data.utype(sc, target)
    turreted = bool(t.get("turret"))
    size_row = T.size_row(int(g.get("size", 0)))
    rd.location, rd.loc_roll = _location(ctx, sc, target)
    face = tp.turret if rd.location == "TUR" and tp.turret >= 0 else tp.facing
    rd.aspect = facing.aspect(grid, tu.hex, face, fu.hex, moving(st, target)) if face >= 0 and tu.hex != fu.hex \
        else "front"
    rd.result = defilade.protects(st, sc, target, fu.hex, rd.location)          # 31.35c, 33.8
    if rd.result:
        return
    mkill = fkill = False
    if rd.location == "TR":                                         # 13.6321: tracks go to the M-KILL Table
        rd.table, rd.table_number = "M-KILL TR", T.MKILL["TR"][size_row]
        rd.table_roll = ctx.dice.roll(10)
        mkill = rd.table_roll <= rd.table_number
        rd.result = "track hit: M-KILL" if mkill else "track hit, no damage"
    else:
        rd.armour = int(t.get("armour", {}).get(LOC_KEY[rd.location], [0, 0, 0])[ASPECTS.index(rd.aspect)])
        rd.pen = penetration(g, ammo, rng)
        diff = rd.pen - rd.armour
        if diff < -1:
            rd.result = "no penetration"
            return
        col = kill_column(diff)
        rd.kill_number = T.KKILL["HE" if ammo == "HE" else "AP"][col]
        rd.burn_number = T.KKILL["BURN"][col]
        rd.kill_roll = kr = ctx.dice.roll(10)
        kkill = kr < rd.kill_number
        if kr == rd.kill_number:
            kind = _equal_table(rd.location, rd.aspect, turreted)
            rd.table = kind
            rd.table_number = T.MKILL[kind[-2:]][size_row] if kind.startswith("M") else T.FKILL[size_row]
            rd.table_roll = ctx.dice.roll(10)
            if rd.table_roll <= rd.table_number:
                mkill, fkill = kind.startswith("M"), kind == "F-KILL"
            else:
                kkill = True                                         # 13.6321, 13.6331 otherwise K-KILL
        if kkill:
            burning = kr - (1 if rd.aspect == "rear" else 0) <= rd.burn_number      # 13.71
            rd.result = "K-KILL, burning wreck" if burning else "K-KILL, wreck"
            effects.append([target, "kkill", "burning" if burning else "wreck"])
            state["dead"] = True
            return
        rd.result = "M-KILL" if mkill else "F-KILL" if fkill else "no kill"
    parts = fkill_parts(sc, target, "turret" if rd.location == "TUR" else "hull") if fkill else []
    if mkill:
        effects.append([target, "mkill", ""])
        if rd.location == "UH" and rd.aspect == "front":
            parts = fkill_parts(sc, target, "hull")                                  # 13.6322
    effects += [[target, "fkill", x] for x in parts]
    fk_what = "main" if "main" in parts else ""
    if mkill or fkill:
        was_m = tp.m_kill or state.get("mkill", False)
        was_f = bool(tp.f_kill) or state.get("fkill", False)
        state["mkill"] = state.get("mkill", False) or mkill
        state["fkill"] = state.get("fkill", False) or fkill
        if tp.bailed or state.get("bailed"):
            pass
        elif fk_what == "main" and (was_m or mkill):
            effects.append([target, "bailed", "13.6332"])                          # F-KILLed MA, M-KILLed
            state["bailed"] = True
        else:
            both = (mkill or was_m) and (fkill or was_f)
            rd.bail_number, rd.bail_drms, _ = bail_out(ctx, target, "M+F" if both else "M-KILL" if mkill else "F-KILL")
            rd.bail_roll = ctx.dice.roll(10)
            if rd.bail_roll <= rd.bail_number:
                effects.append([target, "bailed", "13.81"])
                state["bailed"] = True
            elif fk_what == "main":
                effects.append([target, "exit", "13.6332"])
    if tp.suppressed or state.get("suppressed"):
        return
    if rd.location == "TUR":
        effects.append([target, "suppressed", "13.112"])                           # 13.112
        state["suppressed"] = True
        rd.result += "; suppressed (turret hit)"
        return
    rd.suppress_number = T.SUPPRESSION[size_row]
    rd.suppress_roll = ctx.dice.roll(10)
    if rd.suppress_roll <= rd.suppress_number:
        effects.append([target, "suppressed", "13.111"])
        state["suppressed"] = True
        rd.result += "; suppressed"


def _equal_table(location: str, aspect: str, turreted: bool) -> str:
    """Which table a K-KILL roll equal to the number goes to (13.6321, 13.6331).  The text names
    the UH front/rear (M-KILL, UH column) and the front turret or, on a non-turreted AFV, the front
    UH (F-KILL); for the other parts we use the M-KILL Table's TR column for the hull and the F-KILL
    Table for the turret (our decision)."""
    if location == "TUR":
        return "F-KILL"
    if location == "UH" and aspect == "front" and not turreted:
        return "F-KILL"
    if location == "UH" and aspect in ("front", "rear"):
        return "M-KILL UH"
    return "M-KILL TR"


class _Recorder:
    """The dice as seen by one fire: every roll is kept for the event's ``rolls``."""

    def __init__(self, inner):
        self.inner = inner
        self.rolls: list[int] = []

    def roll(self, sides: int) -> int:
        r = self.inner.roll(sides)
        self.rolls.append(r)
        return r

    def salt(self) -> str:
        return self.inner.salt()


def he_frag(g: dict) -> int:
    """16.01 step 2: the gun's FRAG factors (0 = it has no HE, 17.72)."""
    return int(g.get("he", 0))


def check_firer(ctx: Ctx, firer: str, g: dict, by: str, again: bool = False, simultaneous: bool = False) -> None:
    """May ``firer`` fire ``g`` now?  ``again``: another weapon of the same activation (13.101);
    ``simultaneous``: a gun duel's tied shot, fired even by a unit the other shot has just hit (17.33)."""
    st = tk(ctx.state)
    sc = ctx.sc
    u, p = st.units[firer], st.pieces[firer]
    if simultaneous and u.hex is not None:
        return
    if u.eliminated or u.hex is None:
        raise OrderError(f"{firer} cannot fire: it is not on the map", "12")
    if p.fired and not again and by not in ("final defence",):
        raise OrderError(f"{firer} has already fired this turn (13.102)", "13.102")
    if p.bailed:
        raise OrderError(f"{firer}'s crew has bailed out (13.81)", "13.81")
    why = command_refusal(st, sc, firer, by)
    if why:
        raise OrderError(why, "24.03")
    if weapon_out(sc, firer, p, str(g.get("mount", ""))):
        raise OrderError(f"{firer}'s {g.get('name')} is F-KILLed (13.613, 13.6322)", "13.613")
    if data.is_weapon(sc, firer):
        crew = crew_of(st, sc, firer)
        if not crew:
            raise OrderError(f"nobody operates {firer} (9.13)", "9.13")
        cp = st.pieces[crew[0]]
        if cp.broken or cp.surrendered or cp.full:
            raise OrderError(f"{crew[0]} operating {firer} is broken, surrendered or in FULL cover (11.12, 15.712116)",
                             "11.12")


def choose_ammo(sc: Scenario, g: dict, target: str, ammo: str, st: TobrukState | None = None) -> str:
    personnel = data.is_personnel(sc, target)
    ammo = ammo.upper()
    if personnel and ammo == "AP" and st is not None and ground.in_bunker(st, sc, target) and g.get("ap", True):
        return "AP"                                                          # 31.56: AP at a bunker's occupants
    if personnel:
        if ammo and ammo != "HE":
            raise OrderError("AP may not be fired at personnel (11.85 example, 17.51)", "17.51")
        if not he_frag(g):
            raise OrderError(f"the {g.get('name')} has no HE: it may not engage personnel (17.72)", "17.72")
        return "HE"
    if not ammo:
        return "AP" if g.get("ap", True) else "HE"
    if ammo in ("APCR", "HEAT") and ammo not in [str(a).upper() for a in g.get("alt", [])]:
        raise OrderError(f"the {g.get('name')} has no {ammo} (17.22)", "17.22")
    if ammo == "HE" and not he_frag(g):
        raise OrderError(f"the {g.get('name')} has no HE (17.72)", "17.72")
    if ammo == "AP" and not g.get("ap", True):
        raise OrderError(f"the {g.get('name')} fires no AP (17.71)", "17.71")
    return ammo


def fire_gun(ctx: Ctx, firer: str, gname: str, target: str, *, ammo: str = "", turn_to: int = -1, by: str = "",
             max_shots: int = 0, opportunity: bool = False, again: bool = False,
             simultaneous: bool = False, was: tuple[str, bool] | None = None,
             at_range: int | None = None, from_hex: str = "") -> GunFired:
    """One weapon's HPT fire at one target (13.01-13.12, 16.1, 17.5, 17.6); emits GunFired and, for
    HE at personnel or hits on a small gun's crew, the Casualty Table attacks that follow."""
    st = tk(ctx.state)
    sc = ctx.sc
    g = gun(sc, firer, gname)
    check_firer(ctx, firer, g, by, again, simultaneous)
    tu = st.units.get(target)
    if tu is None or tu.eliminated or tu.hex is None:
        raise OrderError(f"{target} is not a target on the map", "12")
    if tu.side == st.units[firer].side:
        raise OrderError(f"{target} is on {firer}'s own side", "12")
    if st.pieces[target].surrendered:
        raise OrderError(f"{target} has surrendered and may not be fired at (11.21)", "11.21")
    ammo = choose_ammo(sc, g, target, ammo, st)
    fhex, thex = st.units[firer].hex, tu.hex
    why = relief.blocked(st, sc, firer, fhex, target, thex)
    if why:
        raise OrderError(f"no line of sight: {why}", relief.rule_of(why))              # 33.42, 33.751
    rng = sc.board.grid.distance(fhex, thex) if at_range is None else at_range   # 21.23 final defence: 1
    if g.get("max") and rng > int(g["max"]):
        raise OrderError(f"{target} is beyond the {g.get('name')}'s range of {g['max']} (14.31)", "14.31")
    hpn = hpt_number(str(g.get("rating", "D")), int(g.get("size", 0)), rng)
    if hpn is None:
        raise OrderError(f"{target} at range {rng} is an automatic miss for the {g.get('name')} (13.23)", "13.23")
    pdrm, pivot, pwhy = arc_check(ctx, firer, g, from_hex or thex, turn_to)
    people = data.is_personnel(sc, target)
    drms = ([(pwhy, pdrm)] if pdrm else []) + hpn_drms(ctx, firer, target, rng, personnel=people, opportunity=opportunity,
                                                       was=was, ammo=ammo)
    need = hpn - sum(v for _, v in drms)
    if need < 1 and rng > 0:
        raise OrderError(f"{firer} would need {need} or less to hit {target}: no fire (13.23, 16.13)", "13.23")
    if people and cover_moves.drop(ctx, thex, st.units[firer].side):            # 15.22: before the first die
        drms = ([(pwhy, pdrm)] if pdrm else []) + hpn_drms(ctx, firer, target, rng, personnel=people,
                                                           opportunity=opportunity, was=was, ammo=ammo)
        need = hpn - sum(v for _, v in drms)
    rof, rof_why = rate_of_fire(ctx, firer, g, target)
    if max_shots:
        rof = min(rof, max_shots)                                                   # 6.64
    effects: list[list[str]] = []
    cap = max_shots or 99
    if ammo in ("APCR", "HEAT"):
        left = ammo_left(st.pieces[firer], ammo)
        if left is None:
            raise OrderError(f"{firer} was allotted no {ammo} rounds: only the units its side noted carry them "
                             "(17.25)", "17.25")
        if left <= 0:
            raise OrderError(f"{firer} has no {ammo} rounds left: each round is one shot (17.25)", "17.25")
        rof, cap = min(rof, left), min(cap, left)
    had_bot = (was[0] if was is not None else st.pieces[firer].bot) == target or registered(st, sc, firer, target)
    double_ok = g.get("bot", True) and int(g.get("rof", 1)) > 1 and not rof_why and not had_bot
    rec = _Recorder(ctx.dice)
    inner, ctx.dice = ctx.dice, rec
    try:
        rounds, acquired, total, need_after = _rounds(ctx, firer, g, target, ammo, rng, need, rof, effects,
                                                       cap=cap, double_ok=double_ok, had_bot=had_bot)
    finally:
        ctx.dice = inner
    if need_after:
        rof_why = [*rof_why, "hit: burst on target, -3 for the next rounds" +
                   (" and the rest of the ROF doubled" if total > rof else "") + " (13.462, 13.463)"]
    if ammo in ("APCR", "HEAT"):
        effects.insert(0, [firer, "ammo", f"{ammo.lower()} {sum(1 for r in rounds if r.roll or r.hit)}"])
    ev = GunFired(firer=firer, weapon=str(g.get("name")), target=target, hex=thex, range=rng, ammo=ammo, hpn=hpn,
                  need=need, rof=total, rounds=rounds, rolls=rec.rolls, drms=[f"{w} {v:+d}" for w, v in drms],
                  rof_notes=rof_why, need_after=need_after, effects=effects, acquired=acquired, pivot=pivot, by=by,
                  rule="16.1" if ammo == "HE" and data.is_personnel(sc, target) else "13")
    ctx.emit(ev)
    _open_notes(ctx, ev, drms)
    _after(ctx, ev, g, opportunity)
    return ev


def _open_notes(ctx: Ctx, ev: GunFired, drms: list[tuple[str, int]]) -> None:
    """24.07: an elite commander's note opens the first time it modifies a shot; 24.05: the
    command tank's when its loss first modifies a bail-out check."""
    st = tk(ctx.state)
    if ELITE in drms:
        side = st.units[ev.firer].side
        notes.open_note(ctx, side, notes.note_for(st, side, "elite", ev.firer))
    if any(w == REGISTERED_BOT for w, _ in drms):                 # 18.54: the enemy learns the registration
        side = st.units[ev.firer].side
        notes.open_note(ctx, side, notes.note_for(st, side, "register", ev.firer, ev.hex))
    if any(r.bail_drms for r in ev.rounds):
        notes.open_note(ctx, st.units[ev.target].side, "command")


def _rounds(ctx: Ctx, firer: str, g: dict, target: str, ammo: str, rng: int, need: int, rof: int,
            effects: list[list[str]], *, cap: int, double_ok: bool, had_bot: bool
            ) -> tuple[list[Round], bool, int, int]:
    """Every round: (rounds, acquired, rounds available in the end, the need once acquired or 0).
    A first hit acquires the target at once: -3 for the next rounds and, for a gun with a ROF
    above one, its remaining ROF doubled (13.462, 13.463)."""
    st = tk(ctx.state)
    sc = ctx.sc
    size = int(g.get("size", 0))
    rounds: list[Round] = []
    state: dict = {}
    c = data.cls(sc, target)
    total, need_after, i = rof, 0, 0
    while i < total:
        if state.get("dead"):
            break
        roll = ctx.dice.roll(10) if rng > 0 else 0                                 # 13.531 same hex: hits
        rd = Round(roll=roll, hit=rng == 0 or roll <= (need_after or need))
        rounds.append(rd)
        i += 1
        if not rd.hit:
            rd.result = "miss"
            continue
        if c == "afv":
            afv_round(ctx, rd, g, ammo, rng, firer, target, effects, state)
        elif c in ("apc", "truck"):
            _soft_vehicle(ctx, rd, size, c, target, effects, state)
        elif c == "weapon":
            _weapon_hit(ctx, rd, size, target, effects, state)
        else:
            rd.result = "on target"
        if not had_bot and not need_after and not state.get("dead") and c != "weapon":
            need_after = need - T.BOT_DRM
            if double_ok:
                total = min(cap, i + 2 * (total - i))
    if c == "afv" and not state and ammo in ("AP", "HE", "APCR", "HEAT") and not st.pieces[target].suppressed:
        rd = Round(roll=0, result="fired on: Suppression Table (30.02)")
        rd.suppress_number = T.SUPPRESSION[T.size_row(size)]
        rd.suppress_roll = ctx.dice.roll(10)
        if rd.suppress_roll <= rd.suppress_number:
            effects.append([target, "suppressed", "30.02"])
            rd.result += ": suppressed"
        rounds.append(rd)
    hit = any(r.hit for r in rounds)
    acquired = not state.get("dead") and (hit or st.pieces[firer].bot == target) and c != "weapon"
    return rounds, acquired, total, need_after


def _soft_vehicle(ctx: Ctx, rd: Round, size: int, c: str, target: str, effects: list[list[str]],
                  state: dict) -> None:
    """17.61-17.63: hits of more than 20 mm K-KILL APCs and trucks; smaller ones use the table."""
    if size > 20:
        rd.burn_number = T.KKILL["BURN"][-1]
        rd.table, rd.table_roll = "burn", ctx.dice.roll(10)
        burning = rd.table_roll <= rd.burn_number
        rd.result = "K-KILL, burning wreck" if burning else "K-KILL, wreck"
        effects.append([target, "kkill", "burning" if burning else "wreck"])
        state["dead"] = True
        return
    entry = T.NONAFV[c]["hit"]
    rd.table, rd.table_roll = c, ctx.dice.roll(10)
    res = vehicle_result(entry, rd.table_roll)
    rd.result = f"{entry}: {res or 'no effect'}"
    if res == "K-KILL":
        effects.append([target, "kkill", "wreck"])
        state["dead"] = True
    elif res == "M-KILL":
        effects.append([target, "mkill", ""])


def vehicle_result(entry: str, roll: int) -> str:
    """17.62: 'M', 'K', 'xM', 'xK' (several joined by '/'): K-KILL beats M-KILL."""
    out = ""
    for part in entry.split("/"):
        if part in ("-", ""):
            continue
        kind = "K-KILL" if part[-1] == "K" else "M-KILL"
        x = part[:-1]
        if not x or roll <= int(x):
            if kind == "K-KILL" or not out:
                out = kind
    return out


def _weapon_hit(ctx: Ctx, rd: Round, size: int, target: str, effects: list[list[str]], state: dict) -> None:
    """9.33, 17.55: more than 20 mm F-KILLs the weapon and eliminates its crew; 17.53 otherwise."""
    st = tk(ctx.state)
    crew = crew_of(st, ctx.sc, target)
    if size > 20:
        rd.result = "F-KILL, crew eliminated" if crew else "F-KILL"
        effects.append([target, "fkill", "main"])
        for c in crew:
            effects.append([c, "eliminated", "9.33"])
        state["dead"] = True
        return
    rd.table, rd.table_number = "weapon", T.SMALL_HIT_ON_WEAPON_FKILL
    rd.table_roll = ctx.dice.roll(10)
    if rd.table_roll <= rd.table_number:
        rd.result = "F-KILL"
        effects.append([target, "fkill", "main"])
        state["dead"] = True
    else:
        rd.result = "no damage: cease fire this turn"
        effects.append([target, "ceasefire", "17.53"])
    state.setdefault("crew_hits", 0)
    state["crew_hits"] += 1


def _after(ctx: Ctx, ev: GunFired, g: dict, opportunity: bool) -> None:
    """16.1: every HE round at personnel, hit or miss, attacks on the Casualty Table;
    17.54: each small-calibre hit on a weapon attacks its crew."""
    st = tk(ctx.state)
    sc = ctx.sc
    frag = he_frag(g)
    if ev.ammo == "AP" and data.is_personnel(sc, ev.target):                     # 31.56 AP into a bunker
        for i, rd in ((i, r) for i, r in enumerate(ev.rounds) if r.hit):
            casualty.attack(ctx, ev.hex, bunkers.AP_FRAG, f"{g.get('name')} AP hit in the bunker (round {i + 1})",
                            firers=[ev.firer], targets=bunkers.occupants(st, sc, ev.hex), full_hit=True,
                            parts=[f"{bunkers.AP_FRAG} FRAG (31.56)"], mark_fired=False, by=ev.by, rule="31.56",
                            cfire=not moving(st, ev.firer))
    elif ev.ammo == "HE" and data.is_personnel(sc, ev.target):
        side = st.units[ev.target].side
        for i, rd in enumerate(r for r in ev.rounds if r.roll or r.hit):
            f = frag if rd.hit else frag // 2
            if f <= 0:
                continue
            if rd.hit and ground.in_bunker(st, sc, ev.target):
                bunkers.destroy(ctx, ev.hex, int(g.get("size", 0)), f"a {g.get('name')} HE hit")     # 31.54
            if not rd.hit and all(st.pieces[u].full for u in casualty.personnel_in(st, sc, ev.hex, side)):
                continue                                # 16.11: a miss reaches nobody in FULL cover: no roll
            casualty.attack(ctx, ev.hex, f, f"{g.get('name')} HE {'hit' if rd.hit else 'miss'} (round {i + 1})",
                            firers=[ev.firer], parts=[f"{frag} FRAG" + ("" if rd.hit else " halved")],
                            full_hit=rd.hit, opportunity=opportunity, mark_fired=False, by=ev.by, rule="16.1",
                            cfire=not moving(st, ev.firer) or not data.is_vehicle(sc, ev.firer))
    elif data.is_weapon(sc, ev.target) and int(g.get("size", 0)) <= 20:
        crew = crew_of(st, sc, ev.target)
        for rd in ev.rounds:
            if rd.hit and crew and not st.units[crew[0]].eliminated:
                f = frag if ev.ammo == "HE" else T.AP_COLLATERAL_FRAG
                casualty.attack(ctx, ev.hex, f, f"{g.get('name')} hit on {ev.target}: its crew", firers=[ev.firer],
                                targets=crew, mark_fired=False, by=ev.by, rule="17.54")
