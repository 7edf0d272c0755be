"""Direct fire orders and fire on the Casualty Table (12.02, 13.10, 14.2, 15-17):
the ``fire`` verb, firegroups of personnel, machine-guns and APC guns, vehicle
machine-guns, semi-automatic guns, opportunity, final and desperation fire, and
grenades.  HPT fire is fire_ap.fire_gun; the Casualty Table is casualty.attack.

Order: ``fire UNIT[+UNIT...] at TARGET|HEX [with W[,W]] [ap|he|apcr|heat|semi]
[turret SPINE | face SPINE]``; more ``at ...`` groups fire a vehicle's other
weapons at other targets (13.101) or a machine-gun's further ROF (13.331).
Limited intelligence (fow.py): only spotted targets (32.251); firers flip first (32.2111)."""
from __future__ import annotations

from pbem.core.orders import GameVerb, OrderError
from pbem.core.ruleset import Ctx, find_unit
from pbem.core.scenario import Scenario
from pbem.games.advanced_tobruk.board import bunkers, cover_moves, crews, facing, relief, spotting, stacking
from pbem.games.advanced_tobruk.fire import casualty, duel, fire_ap, morale
from pbem.games.advanced_tobruk import data
from pbem.games.advanced_tobruk.fog import fow, hidden
from pbem.games.advanced_tobruk.tables import fire_ap_tables as T
from pbem.games.advanced_tobruk.fire.eligible import usable_weapons
from pbem.games.advanced_tobruk.fire_events import CasualtyAttack, GunFired, MoraleChecked, Round
from pbem.games.advanced_tobruk.state import TobrukState, tk
from pbem.games.advanced_tobruk.fire.smoke import smoke_shift
from pbem.games.advanced_tobruk.fire.weapons import (GUNFIRE_OPTICS, GUNFIRE_SUPPRESS, MG_ARC, _carried_penalty, _halve,
                                                        _holder_ok, vehicle_mgs)

AMMO_WORDS = ("ap", "he", "apcr", "heat", "semi")


class Group:
    """One ``at TARGET`` clause of a fire order."""

    def __init__(self, target: str):
        self.target = target
        self.weapons: list[str] = []
        self.ammo = ""
        self.turn = -1
        self.face = -1


def parse(args: list[str]) -> tuple[list[str], list[Group]]:
    """The firers and the target groups of a ``fire`` order."""
    words = [a for a in args]
    firers: list[str] = []
    while words and words[0].lower() != "at":
        firers += [w for w in words.pop(0).split("+") if w]
    if not firers:
        raise OrderError("fire: name the firing unit(s) first: fire UNIT[+UNIT] at TARGET", "12.02")
    groups: list[Group] = []
    while words:
        w = words.pop(0).lower()
        if w == "at":
            if not words:
                raise OrderError("fire: 'at' needs a target unit or hex", "12.02")
            groups.append(Group(words.pop(0)))
        elif not groups:
            raise OrderError(f"fire: unexpected {w!r} before 'at TARGET'", "12.02")
        elif w == "with" and words:
            groups[-1].weapons += [x for x in words.pop(0).split(",") if x]
        elif w in AMMO_WORDS:
            groups[-1].ammo = w
        elif w in ("turret", "face") and words:
            try:
                sp = facing.spine(words.pop(0))
            except ValueError as e:
                raise OrderError(str(e), "6.52") from None
            if w == "turret":
                groups[-1].turn = sp
            else:
                groups[-1].face = sp
        else:
            raise OrderError(f"fire: cannot read {w!r} (at TARGET [with W,W] [ap|he|apcr|heat|semi] "
                             f"[turret SPINE|face SPINE])", "12.02")
    if not groups:
        raise OrderError("fire: name a target: fire UNIT at TARGET", "12.02")
    return firers, groups


def _unit(ctx: Ctx, uid: str):
    """The unit an order names (exact id, else case-insensitive); eliminated ones too (the rules say why not)."""
    return find_unit(ctx, uid, alive=False)


def _target_hex(ctx: Ctx, target: str) -> tuple[str, str]:
    """(hex, unit or '') of a target given as a unit id or a hex number."""
    st = tk(ctx.state)
    if ctx.sc.board.grid.contains(target) and target not in st.units:
        return target, ""
    u = _unit(ctx, target)
    if u.side != ctx.side and hidden.is_hidden(st, u.id):
        spotting.require(st, ctx.sc, ctx.side, u.id)            # 32.251: named like any unspotted unit
    if u.hex is None or u.eliminated:
        raise OrderError(f"{u.id} is not on the map", "12")
    return u.hex, u.id


def handle_fire(ctx: Ctx, order: GameVerb, by: str = "") -> None:
    """The ``fire`` verb of the Direct Fire Phase (one unit or one firegroup, 12.02)."""
    names, groups = parse(order.args)
    firers = [_unit(ctx, n).id for n in names]
    st = tk(ctx.state)
    for f in firers:
        if st.units[f].side != ctx.side:
            raise OrderError(f"{f} is not a {ctx.sc.side_name(ctx.side)} unit")
    if st.step.phase == "final-fire":                                               # 6.65
        by = by or "final"
        for f in firers:
            if st.pieces[f].moved:
                raise OrderError(f"{f} has moved: no final opportunity fire (6.65)", "6.65")
        for gr in groups:
            _, tunit = _target_hex(ctx, gr.target)
            if not tunit or not st.pieces[tunit].moved:
                raise OrderError(f"final opportunity fire is only at a unit marked as moved, not {gr.target} "
                                 f"(6.65)", "6.65")
    fire_groups(ctx, firers, groups, by=by)


def fire_groups(ctx: Ctx, firers: list[str], groups: list[Group], *, by: str = "", opportunity: bool = False,
                max_shots: int = 0) -> None:
    sc = ctx.sc
    st = tk(ctx.state)
    start = len(ctx.events)
    vehicle = len(firers) == 1 and (data.is_vehicle(sc, firers[0]) or data.is_heavy(sc, firers[0]))
    turned: dict[str, int] = {}
    side = st.units[firers[0]].side
    if spotting.active(sc) or any(st.pieces[f].dummy for f in firers):     # 32.251, 32.2111, 32.241
        fow.prepare(ctx, firers, [_target_hex(ctx, gr.target) for gr in groups])
    for i, gr in enumerate(groups):
        thex, tunit = _target_hex(ctx, gr.target)
        if fow.target_dummy(ctx, tunit, side):              # 32.241: fired on, the dummy is removed
            continue
        if vehicle:
            _vehicle_group(ctx, firers[0], gr, thex, tunit, turned, by, opportunity, max_shots)
        elif i == 0:
            gunfire_attack(ctx, firers, thex, tunit, by=by, opportunity=opportunity)
        else:
            mgs = [f for f in firers if _is_mg(sc, f) and not st.units[f].eliminated]
            if not mgs:
                raise OrderError("only machine-guns with a rate of fire above one fire again (13.331)", "13.331")
            leaders = [f for f in firers if data.cls(sc, f) == "leader"]
            gunfire_attack(ctx, mgs + leaders[:1], thex, tunit, by=by, opportunity=opportunity, extra_shot=i)
    fow.after_fire(ctx, start)                              # 32.211 hits and 14+ factors; 32.12


def _is_mg(sc: Scenario, uid: str) -> bool:
    t = data.utype(sc, uid)
    return data.is_weapon(sc, uid) and t.get("kind") == "MG"


def _vehicle_group(ctx: Ctx, firer: str, gr: Group, thex: str, tunit: str, turned: dict[str, int], by: str,
                   opportunity: bool, max_shots: int) -> None:
    """13.101: a vehicle's or gun's weapons at one target; guns on the HPT, MGs on the Casualty Table."""
    st = tk(ctx.state)
    sc = ctx.sc
    names = [w.lower() for w in gr.weapons]
    mgs = {str(m.get("name", m.get("mount"))).lower(): m for m in vehicle_mgs(sc, firer)}
    gnames = {str(g.get("name")).lower(): g for g in fire_ap.guns(sc, firer)}
    if not names and gr.ammo == "semi":
        names = list(gnames)[:1]
    if not names:
        names = usable_weapons(st, sc, firer, tunit, thex, turn=gr.turn >= 0 or gr.face >= 0)
        if not names and usable_weapons(st, sc, firer, tunit, thex, turn=True):
            raise OrderError(f"{gr.target} is outside the arcs of {firer}'s weapons: turn them with "
                             f"'turret SPINE' or 'face SPINE' (12.1)", "12.1")
        if not names:
            raise OrderError(f"no weapon of {firer} can fire at {gr.target} as it stands (12.1, 13.23)", "12.1")
    if gr.ammo == "semi":
        for n in names:
            g = gnames.get(n)
            if g is None:
                raise OrderError(f"{firer} has no gun {n!r}", "17.1")
            semi_attack(ctx, firer, g, thex, by=by, opportunity=opportunity, again=bool(turned.get("fired")))
            turned["fired"] = 1
        return
    unknown = [n for n in names if n not in gnames and n not in mgs]
    if unknown:                                                   # refused before anything rolls
        raise OrderError(f"{firer} has no weapon {unknown[0]!r} (guns: {', '.join(gnames) or 'none'}; "
                         f"machine-guns: {', '.join(mgs) or 'none'})", "13.10")
    if not tunit and any(n in gnames for n in names):
        raise OrderError(f"the {next(n for n in names if n in gnames)} fires at a unit on the Hit Probability "
                         f"Table: name the target unit", "13.2")
    used_mgs = []
    for n in names:
        if turned.get("fired") and _gone(st, sc, firer, thex, tunit):
            break                                            # the first weapon's fire ended the target
        if n in gnames:
            turn = gr.turn if gnames[n].get("mount") == "turret" or data.is_weapon(sc, firer) else gr.face
            if turn < 0:
                turn = gr.face if gr.face >= 0 else gr.turn
            answer = duel.answer_gun(ctx, tunit, firer) if not by and not turned.get("fired") and \
                duel.wants_duel(st, tunit) else None
            if answer is not None:                                                  # 17.3 gun duel
                duel.gun_duel(ctx, firer, gnames[n], tunit, answer, ammo=gr.ammo, turn_to=turn)
                turned["fired"] = 1
                continue
            ev = fire_ap.fire_gun(ctx, firer, n, tunit, ammo=gr.ammo, turn_to=turn, by=by, max_shots=max_shots,
                                  opportunity=opportunity, again=bool(turned.get("fired")))
            turned["fired"] = 1
            if ev.pivot:
                arc = "turret" if ev.pivot[1] >= 0 else "hull"
                turned[arc] = next((int(d.split()[-1]) for d in ev.drms if "turned" in d or "pivoted" in d), 0)
        else:
            used_mgs.append(mgs[n])
    if used_mgs and not (turned.get("fired") and _gone(st, sc, firer, thex, tunit)):
        vehicle_mg_attack(ctx, firer, used_mgs, thex, tunit, turned, by=by, opportunity=opportunity,
                          turn=gr.turn, face=gr.face)
        turned["fired"] = 1


def _gone(st: TobrukState, sc: Scenario, firer: str, thex: str, tunit: str) -> bool:
    """Nothing left to shoot at: the target unit is out, or no enemy personnel stand in the hex."""
    if tunit and (st.units[tunit].eliminated or st.pieces[tunit].surrendered):
        return True
    if tunit and data.is_vehicle(sc, tunit):
        return False
    side = st.units[firer].side
    return not [u for u in casualty.personnel_in(st, sc, thex)
                if st.units[u].side != side and not st.pieces[u].surrendered]


def _mg_turns(ctx: Ctx, firer: str, mgs: list[dict], thex: str, turned: dict[str, int], turn: int,
              face: int) -> tuple[list[int], dict[str, int], list[str]]:
    """12.233, 12.235, 16.445: machine-guns firing without a gun that turned first may turn the
    turret (``turret SPINE``, the coax) or pivot the vehicle (``face SPINE``, the bow MG) to bear:
    ([new facing, new turret] or [], each arc's spine after it, the turns' words).  Each + of the
    turn's HPN penalty is a column left for the MGs of that arc (``turned``)."""
    st = tk(ctx.state)
    p = st.pieces[firer]
    arcs = {MG_ARC.get(str(m.get("mount", "")), "all") for m in mgs}
    pivot, why = [-1, -1], []
    for arc, want in (("hull", face), ("turret", turn)):
        if arc not in arcs or want < 0 or turned.get(arc) or want == fire_ap.current_arc(st, firer, arc):
            continue
        drm, pv, words = fire_ap.turn_arc(ctx, firer, arc, thex, want)
        turned[arc] = drm
        pivot = [max(a, b) for a, b in zip(pivot, pv)]
        why.append(f"{words} for the machine-guns")
    fac = pivot[0] if pivot[0] >= 0 else p.facing
    tur = pivot[1] if pivot[1] >= 0 else p.turret
    now = {"hull": fac, "turret": tur if tur >= 0 else fac}
    return (pivot if pivot != [-1, -1] else []), now, why


def vehicle_mg_attack(ctx: Ctx, firer: str, mgs: list[dict], thex: str, tunit: str, turned: dict[str, int], *,
                      by: str = "", opportunity: bool = False, turn: int = -1, face: int = -1) -> None:
    """16.4, 16.433: a vehicle's machine-guns combined at one hex; each pivot DRM is a column
    left (12.235, 16.445), also when they turn to fire alone (_mg_turns); long range halves
    (16.51), bow MGs never beyond 6 hexes (16.42)."""
    st = tk(ctx.state)
    sc = ctx.sc
    p = st.pieces[firer]
    fu = st.units[firer]
    rng = sc.board.grid.distance(fu.hex, thex)
    why = fire_ap.command_refusal(st, sc, firer, by)
    if why:
        raise OrderError(why, "24.03")
    if p.fired and not turned.get("fired") and by != "final defence":
        raise OrderError(f"{firer} has already fired this turn (13.102)", "13.102")
    pivot, arcs_now, turn_words = _mg_turns(ctx, firer, mgs, thex, turned, turn, face)
    total, parts, shifts = 0, [], []
    for m in mgs:
        mount = m.get("mount", "")
        name = str(m.get("name", mount))
        if p.bailed or fire_ap.weapon_out(sc, firer, p, mount):
            raise OrderError(f"{firer}'s {name} may not fire (13.613, 16.444)", "16.444")
        if mount == "aa" and p.suppressed:
            raise OrderError(f"{firer} is suppressed: its AA machine-gun may not fire (16.41)", "16.41")
        arc = MG_ARC.get(mount, "all")
        if arc != "all":
            now = arcs_now[arc]
            if now >= 0 and not facing.in_arc(sc.board.grid, fu.hex, now, thex):
                raise OrderError(f"{thex} is outside the arc of {firer}'s {name}: turn it with "
                                 f"'{'turret' if arc == 'turret' else 'face'} SPINE' (16.41, 12.235)", "16.41")
        gf = int(m.get("gunfire", 0))
        if rng > m["range"]:
            if mount == "bow" and data.cls(sc, firer) != "apc" or rng > 2 * m["range"]:
                raise OrderError(f"{thex} is beyond the range of {firer}'s {name} (16.42, 16.51)", "16.51")
            gf //= 2
            parts.append(f"{name} {m.get('gunfire')} halved = {gf}")
        else:
            parts.append(f"{name} {gf}")
        total += gf
        if turned.get(arc):
            shifts.append((f"{name}: {arc} turned", -turned[arc]))
    _shots_at(ctx, [firer], thex, tunit, total, parts + turn_words, shifts, by=by, opportunity=opportunity,
              rule="16.4", pivot=pivot)


def semi_attack(ctx: Ctx, firer: str, g: dict, thex: str, *, by: str = "", opportunity: bool = False,
                again: bool = False) -> None:
    """17.1-17.12: an AA gun of 40 mm or less or a gun of 20 mm or less fires its FRAG times its ROF
    on the Casualty Table without a hit roll, using all its ROF."""
    size = int(g.get("size", 0))
    if not (g.get("semi") or size <= 20):
        raise OrderError(f"the {g.get('name')} is not a semi-automatic gun (17.1)", "17.1")
    fire_ap.check_firer(ctx, firer, g, by, again)
    frag = fire_ap.he_frag(g) or T.he_frag(size)
    rof = int(g.get("rof", 1))
    _shots_at(ctx, [firer], thex, "", frag * rof, [f"{g.get('name')} {frag} FRAG x ROF {rof}"], [], by=by,
              opportunity=opportunity, rule="17.12")


def _shots_at(ctx: Ctx, firers: list[str], thex: str, tunit: str, total: int, parts: list[str],
              shifts: list[tuple[str, int]], *, by: str, opportunity: bool, rule: str,
              desperation: bool = False, pivot: list[int] = ()) -> CasualtyAttack | None:
    """Gunfire at a hex's personnel (Casualty Table) or at a vehicle (17.6, 14.22, 30.02);
    ``pivot``: the [facing, turret] a vehicle's machine-guns turned to for it (_mg_turns)."""
    st = tk(ctx.state)
    sc = ctx.sc
    if tunit and data.is_vehicle(sc, tunit):
        _line_of_sight(st, sc, firers, thex, [tunit])                          # 33.751 a vehicle down in a wadi
        gunfire_at_vehicle(ctx, firers, tunit, total, parts, by=by, pivot=pivot)
        return None
    side = st.units[firers[0]].side
    foes = [u for u in casualty.personnel_in(st, sc, thex) if st.units[u].side != side]
    if not [u for u in foes if not st.pieces[u].surrendered]:
        raise OrderError(f"no enemy personnel to fire at in {thex} (15.03)", "15.03")
    if [u for u in casualty.personnel_in(st, sc, thex) if st.units[u].side == side] and \
            not bunkers.same_hex(st, sc, firers, thex):
        raise OrderError(f"friendly personnel are in {thex}: no fire into it (15.03)", "15.03")
    _line_of_sight(st, sc, firers, thex, foes)
    _, over = stacking.overstack_drm(st, sc, thex, st.units[foes[0]].side)
    if over:
        shifts = [*shifts, ("target hex overstacked", over)]
    los = [fire_ap.los_drm(st, sc, h, thex) for h in sorted({st.units[f].hex for f in firers})]
    worst = max(los, key=lambda x: x[0])
    if worst[0]:
        shifts = [*shifts, (" and ".join(worst[1]), -worst[0])]                  # 12.42: as columns left
    if st.smoke:                                                                # 20.31: four left per smoke hex
        smoke = min(smoke_shift(st, sc, h, thex) for h in sorted({st.units[f].hex for f in firers}))
        shifts = [*shifts, ("smoke in the line", smoke)] if smoke else shifts
    cover_moves.drop(ctx, thex, side)                                           # 15.22, before the die
    return casualty.attack(ctx, thex, total, "gunfire", firers=firers, parts=parts, shifts=shifts,
                           opportunity=opportunity, mark_fired=not desperation, by=by, rule=rule, pivot=pivot,
                           cfire=not any(data.is_vehicle(sc, f) and fire_ap.moving(st, f) for f in firers))


def _line_of_sight(st: TobrukState, sc: Scenario, firers: list[str], thex: str, foes: list[str]) -> None:
    """33.42, 33.751: at least one enemy in ``thex`` is in every firer's line of sight (relief.py)."""
    if not relief.in_use(sc):
        return
    for f in firers:
        why = [relief.blocked(st, sc, f, st.units[f].hex, u, thex) for u in foes]
        if all(why):
            raise OrderError(f"no line of sight from {f}: {why[0]}", relief.rule_of(why[0]))


def gunfire_at_vehicle(ctx: Ctx, firers: list[str], target: str, total: int, parts: list[str], *,
                       by: str = "", pivot: list[int] = ()) -> None:
    """17.6: gunfire on an APC or truck uses the Direct Hit Results table; on an AFV, 36 or more
    factors at its front may F-KILL its optics (14.22) and 8 or more call for a suppression roll (30.02)."""
    st = tk(ctx.state)
    sc = ctx.sc
    c = data.cls(sc, target)
    rec = fire_ap._Recorder(ctx.dice)
    inner, ctx.dice = ctx.dice, rec
    effects: list[list[str]] = []
    rounds: list[Round] = []
    try:
        if c in ("apc", "truck"):
            col = T.nonafv_column(total)
            entry = T.NONAFV[c][col] if col else "-"
            rd = Round(roll=ctx.dice.roll(10), hit=True, table=c)
            res = fire_ap.vehicle_result(entry, rd.roll)
            rd.result = f"column {col or '-'}: {entry}: {res or 'no effect'}"
            if res:
                effects.append([target, "kkill" if res == "K-KILL" else "mkill", "wreck" if res == "K-KILL" else ""])
            rounds.append(rd)
        else:
            tu, tp = st.units[target], st.pieces[target]
            fu = st.units[firers[0]]
            asp = facing.aspect(sc.board.grid, tu.hex, tp.facing, fu.hex, fire_ap.moving(st, target)) \
                if tp.facing >= 0 else "front"
            if total >= GUNFIRE_OPTICS and asp == "front":
                rd = Round(roll=0, hit=True, table="F-KILL", table_number=T.FKILL["36+gunfire"], aspect=asp)
                rd.table_roll = ctx.dice.roll(10)
                ok = rd.table_roll <= rd.table_number
                rd.result = "optics destroyed: turret weapons F-KILLed" if ok else "optics hold"
                if ok:
                    where = "turret" if data.utype(sc, target).get("turret") else "hull"
                    effects += [[target, "fkill", x] for x in fire_ap.fkill_parts(sc, target, where)]
                rounds.append(rd)
            if total >= GUNFIRE_SUPPRESS and not tp.suppressed:
                rd = Round(roll=0, table="suppression", suppress_number=T.SUPPRESSION["<=20"])
                rd.suppress_roll = ctx.dice.roll(10)
                rd.result = "suppressed" if rd.suppress_roll <= rd.suppress_number else "not suppressed"
                if rd.suppress_roll <= rd.suppress_number:
                    effects.append([target, "suppressed", "30.02"])
                rounds.append(rd)
            if not rounds:
                raise OrderError(f"{total} gunfire factors cannot harm the AFV {target} (14.22, 30.02)", "14.2")
    finally:
        ctx.dice = inner
    ev = GunFired(firer=firers[0], weapon="+".join(firers) + " gunfire", target=target, hex=st.units[target].hex,
                  range=sc.board.grid.distance(st.units[firers[0]].hex, st.units[target].hex), ammo="gunfire",
                  hpn=0, need=0, rof=1, rounds=rounds, rolls=rec.rolls, drms=[f"{total} factors: " + ", ".join(parts)],
                  effects=effects, group=firers[1:], pivot=list(pivot), by=by, rule="17.6" if c != "afv" else "14.2")
    ctx.emit(ev)


def gunfire_total(ctx: Ctx, firers: list[str], thex: str, *, extra_shot: int = 0, desperation: bool = False,
                  by: str = "", assault: bool = False) -> tuple[int, list[str], list[tuple[str, int]]]:
    """15.711, 15.4, 17.04: the gunfire of a firegroup at ``thex`` and the leader's shift;
    ``assault``: assault fire in the Movement Segment, every factor halved (15.52, 8.223)."""
    st = tk(ctx.state)
    sc = ctx.sc
    grid = sc.board.grid
    members = [f for f in firers if data.cls(sc, f) != "leader"]
    leaders = [f for f in firers if data.cls(sc, f) == "leader"]
    lead = leaders[0] if members and leaders else ""
    total, parts, shifts = 0, [], []
    hexes = set()
    nations = set()
    for f in firers:
        u, p, c = st.units[f], st.pieces[f], data.cls(sc, f)
        if u.eliminated or u.hex is None:
            raise OrderError(f"{f} is not on the map", "15")
        hexes.add(u.hex)
        if c == "afv" and len(firers) > 1:
            raise OrderError(f"{f}: an AFV's fire may not join a firegroup with personnel (17.04)", "17.04")
        if data.is_heavy(sc, f) or data.utype(sc, f).get("kind") in ("AT", "MORTAR"):
            raise OrderError(f"{f} fires on the Hit Probability Table or indirectly: not in a firegroup (15.42)",
                             "15.42")
        if p.fired and not desperation and not extra_shot and by != "final defence":
            raise OrderError(f"{f} has already fired this turn (15.31)", "15.31")
        if c in data.PERSONNEL:
            if p.broken or p.surrendered:
                raise OrderError(f"{f} is broken or surrendered and may not fire (11.12, 11.21)", "11.12")
            if p.full and not bunkers.fires_out(st, sc, f):
                raise OrderError(f"{f} is in FULL cover and may not fire (15.712116)", "15.712116")
            nations.add(morale.nation(sc, f))
        rng = grid.distance(u.hex, thex)
        if f == lead:
            shifts.append((f"led by {f}", T.LEADER_SHIFT))                             # 15.43
            continue
        if c in data.PERSONNEL:
            if extra_shot:
                continue
            gf, r, _ = casualty.values(st, sc, f)
            lost, operates = (0, False) if desperation else _carried_penalty(st, sc, f)
            if operates:
                parts.append(f"{f} operates a weapon: 0 (9.16)")
                continue
            gf = max(0, gf - lost)
            if assault:
                gf = _assault_half(parts, f"{f} {gf + lost}-{lost}" if lost else f"{f} {gf}", gf, rng, r)
            else:
                parts.append(_ranged(f, gf, rng, r, lost))
            total += _halve(gf, rng, r)
        elif data.is_weapon(sc, f):
            if desperation:
                raise OrderError("desperation fire uses the units' printed gunfire only (15.61)", "15.61")
            holder = _holder_ok(st, f, sc)
            if not holder:
                raise OrderError(f"nobody fit to fire operates {f} (9.13)", "9.13")
            t = data.utype(sc, f)
            if assault and t.get("weight") != "L":
                raise OrderError(f"{f} is a medium weapon: it may not fire by assault fire (8.223)", "8.223")
            why_not = crews.squad_may_fire(st, sc, f)
            if why_not:
                raise OrderError(why_not, "9.32")
            rof = int(t.get("rof", 1))
            crew = st.pieces[holder]
            if crews.squad_operated(sc, f, holder):
                rof = 1                                                                 # 9.32: as a depleted crew
            elif crew.steps >= 1:
                rof = max(1, rof // 2)                                                  # 9.22
            if extra_shot >= rof:
                raise OrderError(f"{f} has no ROF left for another attack (13.331)", "13.331")
            gf, r = int(t.get("gunfire", 0)), int(t.get("max") or t.get("range", 0))
            if assault:
                gf = _assault_half(parts, f"{f} {gf}", gf, rng, r)
                total += _halve(gf, rng, r) if t.get("kind") != "ATR" else gf
            elif t.get("kind") == "ATR":
                if rng > r:
                    raise OrderError(f"{thex} is beyond {f}'s range of {r} (14.31)", "14.31")
                parts.append(f"{f} {gf}")
                total += gf
            else:
                parts.append(_ranged(f, gf, rng, r, 0))
                total += _halve(gf, rng, r)
            if crews.squad_operated(sc, f, holder):
                parts.append(f"{f} fired by the squad {holder}, a leader in its hex: ROF 1 (9.32)")
            if t.get("weight") == "M" and data.cls(sc, holder) not in ("crew",) and not leaders:
                shifts.append((f"{f} not fired by a crew", -1))                         # 8.22
        elif c == "apc":
            for m in vehicle_mgs(sc, f):
                gf = int(m.get("gunfire", 0))
                parts.append(_ranged(f"{f} {m.get('name', m.get('mount'))}", gf, rng, m["range"], 0))
                total += _halve(gf, rng, m["range"])
        else:
            raise OrderError(f"{f} cannot fire on the Casualty Table", "15")
    if len(hexes) > 1 and not _connected(grid, hexes):
        raise OrderError("a firegroup's units must stand in one hex or a chain of adjacent hexes (15.41, 17.04)",
                         "15.41")
    if {"german", "italian"} <= nations and not any(
            morale.nation(sc, ld) == "german" for ld in leaders):
        raise OrderError("German and Italian units firegroup only with a German leader (15.42)", "15.42")
    return total, parts, shifts


def _assault_half(parts: list[str], base: str, gf: int, rng: int, normal: int) -> int:
    """15.52: assault fire halves every factor (then long range halves again, 15.7112)."""
    half = gf // 2
    _ranged(base, half, rng, normal, 0)                           # refused beyond twice the range
    far = f", halved again = {half // 2} (range {rng})" if rng > normal else ""
    parts.append(f"{base} halved = {half} (assault fire, 15.52){far}")
    return half


def _ranged(name: str, gf: int, rng: int, normal: int, lost: int) -> str:
    base = f"{name} {gf + lost}-{lost}" if lost else f"{name} {gf}"
    if rng > 2 * normal:
        raise OrderError(f"{name.split()[0]} is out of range: {rng} hexes, at most {2 * normal} (15.7112)", "15.7112")
    if rng > normal:
        return f"{base} halved = {gf // 2} (range {rng})"
    return base


def _connected(grid, hexes: set[str]) -> bool:
    todo = [next(iter(hexes))]
    seen = {todo[0]}
    while todo:
        h = todo.pop()
        for o in hexes:
            if o not in seen and grid.distance(h, o) <= 1:
                seen.add(o)
                todo.append(o)
    return seen == hexes


def gunfire_attack(ctx: Ctx, firers: list[str], thex: str, tunit: str = "", *, by: str = "",
                   opportunity: bool = False, extra_shot: int = 0, desperation: bool = False
                   ) -> CasualtyAttack | None:
    """15.7: one firegroup's (or one unit's) attack on the Casualty Table."""
    total, parts, shifts = gunfire_total(ctx, firers, thex, extra_shot=extra_shot, desperation=desperation, by=by)
    if total <= 0:
        raise OrderError("no gunfire factors reach the target (15.711)", "15.711")
    ev = _shots_at(ctx, firers, thex, tunit, total, parts, shifts, by=by, opportunity=opportunity,
                   rule="15.6" if desperation else "15.7", desperation=desperation)
    if desperation and ev is not None:
        _desperation_checks(ctx, firers, ev.roll)
    return ev


def _desperation_checks(ctx: Ctx, firers: list[str], roll: int) -> None:
    """15.61: the attack's die roll is also the firers' morale check."""
    st = tk(ctx.state)
    sc = ctx.sc
    for f in firers:
        if data.cls(sc, f) not in data.PERSONNEL or st.units[f].eliminated:
            continue
        base, alt, mods = morale.altered(st, sc, f)
        ok = roll == 1 or (roll != 10 and roll <= alt)
        p = st.pieces[f]
        res = "passed" if ok else "surrendered" if p.broken or morale.enemy_near(st, sc, f) else "broken"
        ctx.emit(MoraleChecked(unit=f, why="desperation", morale=base, altered=alt, result=res,
                               mods=mods + [f"the attack's roll {roll}"], rule="15.61"))


def opportunity_fire(ctx: Ctx, firers: list[str], target: str, rof_limit: int = 0, by: str = "order") -> None:
    """6.6: fire at a moving unit (or 6.65 final fire at a moved one): a vehicle or gun with its
    weapons, personnel as a firegroup, already-fired personnel as desperation fire (15.6)."""
    st = tk(ctx.state)
    sc = ctx.sc
    tu = st.units[target]
    if len(firers) == 1 and (data.is_vehicle(sc, firers[0]) or data.is_heavy(sc, firers[0])):
        fire_groups(ctx, firers, [Group(target)], by=by, opportunity=True, max_shots=rof_limit)
        return
    start = len(ctx.events)
    fow.prepare(ctx, firers, [(tu.hex, target)])
    if fow.target_dummy(ctx, target, st.units[firers[0]].side):
        return
    _personnel_opportunity(ctx, firers, target, rof_limit, by)
    fow.after_fire(ctx, start)


def _personnel_opportunity(ctx: Ctx, firers: list[str], target: str, rof_limit: int, by: str) -> None:
    """opportunity_fire by personnel and their weapons (a firegroup) or desperation fire."""
    st = tk(ctx.state)
    sc = ctx.sc
    tu = st.units[target]
    desperation = all(st.pieces[f].fired for f in firers)
    if desperation:
        for f in firers:
            gf, r, _ = casualty.values(st, sc, f)
            if sc.board.grid.distance(st.units[f].hex, tu.hex) > r:
                raise OrderError(f"desperation fire only within normal range: {f} (15.61)", "15.61")
    gunfire_attack(ctx, firers, tu.hex, target, by=by, opportunity=True, desperation=desperation)
    if desperation:
        return
    mgs = [f for f in firers if _is_mg(sc, f)]
    shots = 1
    while mgs and (not rof_limit or shots < rof_limit) and not st.units[target].eliminated:
        able = [m for m in mgs if int(data.utype(sc, m).get("rof", 1)) > shots and _holder_ok(st, m, sc)]
        if not able or tu.hex is None:
            break
        leaders = [f for f in firers if data.cls(sc, f) == "leader"]
        try:                                                       # checked before anything rolls
            total, _, _ = gunfire_total(ctx, able + leaders[:1], tu.hex, extra_shot=shots, by=by)
        except OrderError:
            break
        if total <= 0:
            break
        gunfire_attack(ctx, able + leaders[:1], tu.hex, target, by=by, opportunity=True, extra_shot=shots)
        shots += 1


def handle_grenade(ctx: Ctx, order: GameVerb) -> None:
    """22.12: ``grenade UNIT[+UNIT] at HEX``: five FRAG per stacking point not carrying a weapon,
    at an adjacent hex, GOOD and FULL cover counting as STATIONARY."""
    st = tk(ctx.state)
    sc = ctx.sc
    args = list(order.args)
    if "at" not in [a.lower() for a in args]:
        raise OrderError("grenade UNIT[+UNIT] at HEX (22.122)", "22.122")
    i = [a.lower() for a in args].index("at")
    units = [_unit(ctx, n).id for a in args[:i] for n in a.split("+") if n]
    if i + 1 >= len(args):
        raise OrderError("grenade: name the adjacent hex (22.122)", "22.122")
    thex = args[i + 1]
    if not units:
        raise OrderError("grenade: name the throwing unit(s) (22.122)", "22.122")
    here = {st.units[u].hex for u in units}
    if len(here) != 1:
        raise OrderError("units combining a grenade attack stand in one hex (22.122)", "22.122")
    at = here.pop()
    if at is None:                                  # 22.121: a unit off the map (hidden, carried, gone) throws nothing
        raise OrderError(f"{units[0]} is not on the map: no grenades (22.121)", "22.121")
    if not sc.board.grid.contains(thex):
        raise OrderError(f"grenade: {thex!r} is not a hex of the map (22.122)", "22.122")
    if sc.board.grid.distance(at, thex) != 1:
        raise OrderError(f"grenades reach only an adjacent hex; {thex} is not adjacent to {at} (22.121)", "22.121")
    total, parts = 0, []
    for u in units:
        p = st.pieces[u]
        if st.units[u].side != ctx.side or not data.is_personnel(sc, u):
            raise OrderError(f"{u} is not one of your personnel units (22.121)", "22.121")
        if p.fired or p.broken or p.surrendered:
            raise OrderError(f"{u} has fired or is broken or surrendered: no grenades (22.121)", "22.121")
        sp = morale._sp(st, sc, u)
        lost, _ = _carried_penalty(st, sc, u)
        f = max(0, sp - lost) * T.GRENADE_FRAG_PER_SP
        parts.append(f"{u} {sp - lost} SP x {T.GRENADE_FRAG_PER_SP} = {f}")
        total += f
    if total <= 0:
        raise OrderError("no hands free to throw grenades (22.122)", "22.122")
    side = ctx.side
    if not [v for v in casualty.personnel_in(st, sc, thex) if st.units[v].side != side]:
        raise OrderError(f"no enemy personnel in {thex} (22.121)", "22.121")
    fow.gate(st, sc, side, thex, "")
    start = len(ctx.events)
    casualty.attack(ctx, thex, total, "grenades", firers=units, parts=parts, as_stationary=True, by="grenade",
                    rule="22.12")
    fow.after_fire(ctx, start)
