"""Bunkers (31.5): concrete posts, map feature ``bunker``.

* Inside (under the counter) units are in FULL cover (31.53); on top, as on a weapon pit,
  in GOOD cover (31.51, 31.35).  Room inside: three stacking points of personnel, or one
  medium or heavy weapon and its crew (31.52, cover_moves.bunker_problem).
* Fire out (31.53): personnel inside fire their gunfire, and the machine-guns and anti-tank
  rifles they hold; no gun on the Hit Probability Table and no mortar fires from inside
  (our reading of 'only machine-guns and ATRs may fire from bunkers': it names the weapons,
  personnel's own gunfire still fires out).
* Fire in: +2 to the HPN except at one hex or less (31.58; the same +2 as FULL cover's,
  31.03, not both); AP may be fired at the occupants, +4 instead, each hit 8 FRAG on them
  as STATIONARY, misses nothing (31.56); gunfire has no effect on them (FULL cover).
* Destruction (31.54, 31.55): a direct hit of HE of 88 mm or more, direct or indirect:
  the bunker is gone, its occupants at STATIONARY, its weapons destroyed; the hit's FRAG
  then attacks the occupants (the hit's own attack, 16.11, 18.431).
* Same hex (31.571, 31.572): enemy units may infiltrate into the hex without a melee while
  every enemy there is inside; a melee begins only when the occupants infiltrate out.
  In the hex both sides see each other; the occupants are in GOOD cover to the fire of the
  enemies in their hex (casualty.cover), and those enemies get no cover from the bunker
  (our reading)."""
from __future__ import annotations

from pbem.core.ruleset import Ctx
from pbem.core.scenario import Scenario
from pbem.games.advanced_tobruk import data
from pbem.games.advanced_tobruk.board import ground
from pbem.games.advanced_tobruk.perimeter_events import ObstacleCleared
from pbem.games.advanced_tobruk.state import TobrukState, tk

FIRE_IN_DRM = 2                    # 31.58
AP_DRM = 4                         # 31.56
AP_FRAG = 8                        # 31.56: twice the 4 FRAG of an AP hit on personnel
DESTROY_SIZE = 88                  # 31.54


def fires_out(st: TobrukState, sc: Scenario, uid: str) -> bool:
    """31.53: personnel ``uid`` in FULL cover fire their gunfire because they are inside a bunker."""
    return ground.in_bunker(st, sc, uid)


def weapon_fires_out(st: TobrukState, sc: Scenario, w: str) -> bool:
    """31.53: a machine-gun or ATR held by a unit inside a bunker fires out of it."""
    h = st.pieces[w].holder
    return bool(h) and data.utype(sc, w).get("kind") in ("MG", "ATR") and ground.in_bunker(st, sc, h)


def occupants(st: TobrukState, sc: Scenario, h: str) -> list[str]:
    """The units inside the bunker in ``h`` (personnel under it and the weapons they hold)."""
    people = [u.id for u in st.units.values() if u.hex == h and not u.eliminated and ground.in_bunker(st, sc, u.id)]
    weapons = [w for w, q in st.pieces.items() if q.holder in people and not st.units[w].eliminated]
    return sorted(people + weapons)


def hpn_drm(st: TobrukState, sc: Scenario, target: str, rng: int, ammo: str) -> tuple[str, int] | None:
    """31.56, 31.58: the DRM of a hit attempt on a unit inside a bunker (None: it is not inside)."""
    if not ground.in_bunker(st, sc, target):
        return None
    if ammo == "AP":
        return "AP at a bunker's occupants (31.56)", AP_DRM
    return ("in a bunker (31.58)", FIRE_IN_DRM) if rng > 1 else ("in a bunker, one hex or less: no +2 (31.58)", 0)


def destroy(ctx: Ctx, h: str, size: int, why: str) -> bool:
    """31.54, 31.55: an HE direct hit of ``size`` mm in ``h``; True if it destroyed the bunker there."""
    st = tk(ctx.state)
    sc = ctx.sc
    if size < DESTROY_SIZE or not ground.has(st, sc, h, ground.BUNKER):
        return False
    inside = occupants(st, sc, h)
    people = [u for u in inside if data.is_personnel(sc, u)]
    ctx.emit(ObstacleCleared(hex=h, feature=ground.BUNKER, why=why, uncovered=people,
                             effects=[[w, "eliminated", ""] for w in inside if data.is_weapon(sc, w)], rule="31.54"))
    return True


def same_hex(st: TobrukState, sc: Scenario, firers: list[str], thex: str) -> bool:
    """31.572: fire inside one bunker hex, from inside at the enemies on top or from on top at the
    occupants (15.03 does not forbid it: the concrete is between them)."""
    if not ground.has(st, sc, thex, ground.BUNKER) or any(st.units[f].hex != thex for f in firers):
        return False
    inside = {ground.in_bunker(st, sc, f) for f in firers if data.is_personnel(sc, f)}
    side = st.units[firers[0]].side
    foes = [u.id for u in st.units.values() if u.hex == thex and u.side != side and not u.eliminated
            and data.is_personnel(sc, u.id)]
    return len(inside) == 1 and bool(foes) and all(ground.in_bunker(st, sc, u) != next(iter(inside)) for u in foes)
