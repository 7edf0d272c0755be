"""Who could fire now (5.131, 6.62, 6.65, 15.61): the weapons of a vehicle or gun that bear on a
target, the personnel that may fire at it, and the units of the other side eligible to fire at
a target in a phase.  The sequence asks a side only while one of its units is eligible
(sequence.can_act); opportunity fire pauses a move for them (opportunity.py).  Nothing here
rolls or emits."""
from __future__ import annotations

from pbem.core.orders import OrderError
from pbem.core.scenario import Scenario
from pbem.games.advanced_tobruk.board import bunkers, crews, facing, relief, spotting
from pbem.games.advanced_tobruk.fire import casualty, fire_ap
from pbem.games.advanced_tobruk import data
from pbem.games.advanced_tobruk.fog import hidden
from pbem.games.advanced_tobruk.fire.weapons import (GUNFIRE_OPTICS, GUNFIRE_SUPPRESS, MG_ARC, _carried_penalty, _halve,
                                                        _holder_ok, vehicle_mgs)
from pbem.games.advanced_tobruk.state import TobrukState


def _may_turn(st: TobrukState, sc: Scenario, f: str, arc: str) -> bool:
    """12.233, 8.512: in the Combat Segment a turret turns (unless F-KILLed), a hull or gun pivots
    (unless the vehicle is M-KILLed)."""
    p = st.pieces[f]
    if arc == "turret":
        return "turret" not in p.f_kill
    return not (p.m_kill and data.is_vehicle(sc, f))


def _gun_can(st: TobrukState, sc: Scenario, f: str, g: dict, thex: str, tunit: str, turn: bool = False) -> bool:
    """Could gun ``g`` of ``f`` fire at the target (``turn``: turning or pivoting if need be)?"""
    p = st.pieces[f]
    if fire_ap.weapon_out(sc, f, p, str(g.get("mount", ""))):
        return False
    if tunit and data.is_personnel(sc, tunit):
        if not fire_ap.he_frag(g):
            return False
    elif not tunit:
        return False
    rng = sc.board.grid.distance(st.units[f].hex, thex)
    if g.get("max") and rng > int(g["max"]) or fire_ap.hpt_number(str(g.get("rating", "D")),
                                                                    int(g.get("size", 0)), rng) is None:
        return False
    arc = fire_ap.arc_kind(sc, f, g)
    now = fire_ap.current_arc(st, f, arc)
    if turn and arc != "all" and _may_turn(st, sc, f, arc):
        return True
    if not (arc == "all" or now < 0 or fire_ap.bears(sc, f, g, st.units[f].hex, now, thex)):
        return False
    hpn = fire_ap.hpt_number(str(g.get("rating", "D")), int(g.get("size", 0)), rng) or 0
    drms = fire_ap.hpn_drms(_View(st, sc), f, tunit, rng, personnel=data.is_personnel(sc, tunit),
                            opportunity=not turn)
    return rng == 0 or hpn - sum(v for _, v in drms) >= 1                      # 13.23


class _View:
    """What the DRM helpers read of a Ctx (state and scenario), for checks that roll nothing."""

    def __init__(self, st: TobrukState, sc: Scenario):
        self.state, self.sc = st, sc


def _mg_can(st: TobrukState, sc: Scenario, f: str, m: dict, thex: str, tunit: str, turn: bool = False) -> bool:
    p = st.pieces[f]
    mount = m.get("mount", "")
    if tunit and not data.is_personnel(sc, tunit) and data.cls(sc, tunit) not in ("apc", "truck"):
        return False
    if fire_ap.weapon_out(sc, f, p, mount) or (mount == "aa" and p.suppressed):
        return False
    rng = sc.board.grid.distance(st.units[f].hex, thex)
    if rng > m["range"] and (mount == "bow" and data.cls(sc, f) != "apc" or rng > 2 * m["range"]):
        return False
    if _halve(int(m.get("gunfire", 0)), rng, m["range"]) <= 0:
        return False
    side = st.units[f].side
    if any(st.units[u].side == side for u in casualty.personnel_in(st, sc, thex)):
        return False                                                                # 15.03
    arc = MG_ARC.get(mount, "all")
    now = fire_ap.current_arc(st, f, arc)
    if turn and arc != "all" and _may_turn(st, sc, f, arc):
        return True
    return arc == "all" or now < 0 or facing.in_arc(sc.board.grid, st.units[f].hex, now, thex)


def usable_weapons(st: TobrukState, sc: Scenario, f: str, tunit: str, thex: str, turn: bool = False) -> list[str]:
    """The weapons of a vehicle or gun that may fire at the target (``turn``: allowing a turret turn
    or pivot, as in the Combat Segment): at a vehicle the main armament first, at personnel an HE
    gun and the machine-guns (13.101)."""
    out = [str(g.get("name")).lower() for g in fire_ap.guns(sc, f) if _gun_can(st, sc, f, g, thex, tunit, turn)]
    if tunit and not data.is_personnel(sc, tunit):
        out = out[:1]
    else:
        out = out[:1] + [str(m.get("name", m.get("mount"))).lower() for m in vehicle_mgs(sc, f)
                         if _mg_can(st, sc, f, m, thex, tunit, turn)]
    return out


def any_usable(st: TobrukState, sc: Scenario, f: str, tunit: str, thex: str, turn: bool = False) -> bool:
    """``bool(usable_weapons(...))``, stopped at the first weapon that may fire."""
    if any(_gun_can(st, sc, f, g, thex, tunit, turn) for g in fire_ap.guns(sc, f)):
        return True
    if tunit and not data.is_personnel(sc, tunit):
        return False
    return any(_mg_can(st, sc, f, m, thex, tunit, turn) for m in vehicle_mgs(sc, f))


def _personnel_can(st: TobrukState, sc: Scenario, f: str, thex: str, tunit: str) -> bool:
    if tunit and not data.is_personnel(sc, tunit) and data.cls(sc, tunit) not in ("apc", "truck"):
        return False
    return gunfire_of(st, sc, f, thex) > 0


def gunfire_of(st: TobrukState, sc: Scenario, f: str, thex: str) -> int:
    """The gunfire factors ``f`` brings to ``thex`` on its own (15.711, 15.7112, 16.51): a
    personnel unit's (less what its weapons cost it), an MG's or ATR's its holder fires, an APC's
    machine-guns; 0 if it cannot fire there."""
    rng = sc.board.grid.distance(st.units[f].hex, thex)
    if data.cls(sc, f) == "apc":
        return sum(_halve(int(m.get("gunfire", 0)), rng, m["range"]) for m in vehicle_mgs(sc, f)
                   if rng <= 2 * m["range"])
    if data.is_weapon(sc, f):
        t = data.utype(sc, f)
        if t.get("kind") not in ("MG", "ATR") or not _holder_ok(st, f, sc) or crews.squad_may_fire(st, sc, f):
            return 0
        gf, r = int(t.get("gunfire", 0)), int(t.get("max") or t.get("range", 0))
        if t.get("kind") == "ATR":
            return gf if rng <= r else 0
        return _halve(gf, rng, r) if rng <= 2 * r else 0
    p = st.pieces[f]
    if not data.is_personnel(sc, f) or p.broken or p.surrendered or p.full and not bunkers.fires_out(st, sc, f):
        return 0
    gf, r, _ = casualty.values(st, sc, f)
    lost, operates = _carried_penalty(st, sc, f)
    return 0 if operates or rng > 2 * r else _halve(max(0, gf - lost), rng, r)


def desperation_firers(st: TobrukState, sc: Scenario, target: str) -> list[str]:
    """15.61: personnel already marked fired that may shoot desperation fire at a moving target
    within their normal range (not broken, surrendered or in FULL cover; never into their own hex's
    friends, 15.03)."""
    tu = st.units[target]
    if not st.pieces[target].moving or st.pieces[target].surrendered:
        return []
    own_in_hex = {st.units[u].side for u in casualty.personnel_in(st, sc, tu.hex)}
    out = []
    for f in sorted(st.units):
        u, p = st.units[f], st.pieces.get(f)
        if p is None or u.side == tu.side or u.eliminated or u.hex is None or not data.is_personnel(sc, f):
            continue
        if not p.fired or p.broken or p.surrendered or p.full or u.side in own_in_hex or p.move == "run":
            continue                                                   # 15.53: no fire after running
        gf, r, _ = casualty.values(st, sc, f)
        if gf > 0 and sc.board.grid.distance(u.hex, tu.hex) <= r:
            out.append(f)
    return out


def eligible_firers(st: TobrukState, sc: Scenario, target: str, phase: str, stop=None, only=None) -> list[str]:
    """Units of the other side that could fire at ``target`` now (sorted ids): in the Direct Fire
    Phase any that has not fired; at a mover (6.62) or in final fire (6.65, the target marked as
    moved) any that has neither fired nor moved ("desperation": fired personnel, 15.61).  Only
    weapons bearing on the target as they face count (no pivots outside the Direct Fire Phase);
    personnel at personnel and soft vehicles, and in the Direct Fire Phase at an AFV their
    gunfire could suppress or blind (_gunfire_at_afv); never into a hex with their own
    personnel (15.03); two burning wrecks between block the line (13.72).  ``stop``: a test of a
    firer, for a caller that asks only whether an eligible firer passes it (sequence.can_act): the
    first one found is returned alone, else []; the others are looked at only as they may add
    to a gunfire at an AFV.  ``only``: those units alone are looked at (sequence.can_act's
    firer found the last time: one found so is found among them all, the gunfire at an AFV
    of more units being no less)."""
    tu = st.units.get(target)
    if tu is None or tu.eliminated or tu.hex is None:
        return []
    if phase == "desperation":
        return desperation_firers(st, sc, target)
    tp = st.pieces[target]
    if tp.surrendered or tp.wreck or phase == "final-fire" and not tp.moved:
        return []
    thex = tu.hex
    out: list[str] = []
    gunners: list[str] = []                 # personnel that might fire at an AFV together (_gunfire_at_afv)
    units, pieces = st.units, st.pieces
    # the sides with personnel in the target's hex (casualty.personnel_in's units, 15.03)
    own_in_hex = {u.side for u in units.values() if u.hex == thex and not u.eliminated
                  and data.is_personnel(sc, u.id)}
    limited = spotting.active(sc)
    seen: dict[str, bool] = {}              # side -> it has spotted the target (32.251), asked when needed
    at_afv = phase == "direct-fire" and data.is_afv(sc, target)          # _gunfire_at_afv's gunners count
    for f in sorted(units) if only is None else only:
        u = units[f]
        if u.side == tu.side or u.eliminated or u.hex is None and not (limited and hidden.is_hidden(st, f)):
            continue
        p = pieces.get(f)
        if p is None or p.fired or p.bailed or p.wreck or phase != "direct-fire" and p.moved or p.dummy:
            continue
        if limited:                                                                 # 32.251, 32.241
            sees = seen.get(u.side)
            if sees is None:
                sees = seen[u.side] = spotting.spotted(st, sc, u.side, target)
            if not sees:
                continue
        if stop is not None and not at_afv and not stop(f):
            continue
        if _may_fire(st, sc, f, target, thex, phase, own_in_hex):
            if stop is not None and stop(f):
                return [f]
            out.append(f)
        elif at_afv:
            gunners.append(f)
    if gunners:
        out = sorted(out + _gunfire_at_afv(st, sc, target, gunners, own_in_hex))
    if stop is not None:
        return [f for f in out if stop(f)][:1]
    return out


def _gunfire_at_afv(st: TobrukState, sc: Scenario, target: str, units: list[str], own_in_hex: set[str]
                    ) -> list[str]:
    """5.131 with 14.22 and 30.02: gunfire at an AFV is a real choice in the Direct Fire Phase when
    the side's able units together bring 8 factors to an AFV that is not yet suppressed, or 36 to
    its front (our reading: the sum of what each could bring, firegroups being the player's to
    form); those units are then eligible."""
    tp = st.pieces[target]
    able: list[tuple[str, int, bool]] = []
    for f in units:
        u = st.units[f]
        if u.side in own_in_hex and data.cls(sc, f) != "apc":
            continue                                                                # 15.03
        if u.hex is None:
            with hidden.placed(st, f):
                if u.hex is not None:
                    _gunner(st, sc, f, target, able)
        else:
            _gunner(st, sc, f, target, able)
    if not tp.suppressed and sum(n for _, n, _ in able) >= GUNFIRE_SUPPRESS:
        return [f for f, _, _ in able]
    at_front = [f for f, n, front in able if front]
    if sum(n for f, n, front in able if front) >= GUNFIRE_OPTICS:
        return at_front
    return []


def _gunner(st: TobrukState, sc: Scenario, f: str, target: str, able: list[tuple[str, int, bool]]) -> None:
    """_gunfire_at_afv's look at one unit on the map: (unit, gunfire, at the front) appended when
    it brings gunfire to the target along a line of sight (no line is asked of a unit without)."""
    tu, tp = st.units[target], st.pieces[target]
    h = st.units[f].hex
    n = gunfire_of(st, sc, f, tu.hex)
    if n <= 0:
        return
    try:
        fire_ap.los_drm(st, sc, h, tu.hex)
    except OrderError:
        return
    if relief.blocked(st, sc, f, h, target, tu.hex):
        return                                                                      # 33.751
    front = tp.facing < 0 or facing.aspect(sc.board.grid, tu.hex, tp.facing, h, fire_ap.moving(st, target)) \
        == "front"
    able.append((f, n, front))


def _may_fire(st: TobrukState, sc: Scenario, f: str, target: str, thex: str, phase: str,
              own_in_hex: set[str]) -> bool:
    """eligible_firers' check of one unit (a hidden one from its noted hex, 32.2111)."""
    u = st.units[f]
    if u.hex is None:                       # hidden.placed, written out (asked for every hidden firer)
        if not hidden.is_hidden(st, f):
            return False
        u.hex = st.pieces[f].hidden_at
        try:
            return _may_fire(st, sc, f, target, thex, phase, own_in_hex)
        finally:
            u.hex = None
    c = data.cls(sc, f)
    if phase != "direct-fire" and fire_ap.command_refusal(st, sc, f, "answer"):
        return False                                        # 24.03: the command tank does not initiate fire
    try:
        if c in ("afv", "apc") or data.is_heavy(sc, f):
            if data.is_heavy(sc, f) and not _holder_ok(st, f):
                return False
            ok = any_usable(st, sc, f, target, thex, turn=phase == "direct-fire")
        elif c in data.PERSONNEL or data.is_weapon(sc, f):
            ok = u.side not in own_in_hex and _personnel_can(st, sc, f, thex, target)
            if ok and st.pieces[target].full and data.is_personnel(sc, target) and u.hex != thex:
                ok = False                  # 15.712116: gunfire cannot touch a unit in FULL cover: no choice
            if ok and c in data.PERSONNEL and data.is_personnel(sc, target) is False and \
                    data.cls(sc, target) not in ("apc", "truck"):
                ok = False
        else:
            ok = False
        if ok:
            fire_ap.los_drm(st, sc, u.hex, thex)
            ok = not relief.blocked(st, sc, f, u.hex, target, thex)                  # 33.42, 33.751
    except OrderError:
        ok = False
    return ok
