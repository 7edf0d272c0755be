"""Stacking (4): one vehicle per side and hex, sixteen stacking points of
personnel, and the HPN / Casualty Table penalties of an overstacked hex (4.11)."""
from __future__ import annotations

from pbem.core.scenario import Scenario
from pbem.games.advanced_tobruk import data
from pbem.games.advanced_tobruk.state import TobrukState

VEHICLE_LIMIT = 1          # 4.21
PERSONNEL_LIMIT = 16       # 4.31


def stacking_points(st: TobrukState, sc: Scenario, uid: str) -> int:
    """4.31: figures on the counter; a reduced squad (half-squad) has two."""
    c = data.cls(sc, uid)
    if c == "squad" and st.pieces[uid].steps >= 2:
        return 2
    return data.SP.get(c, 0)


def _present(st: TobrukState, h: str, side: str) -> list[str]:
    return sorted(u.id for u in st.units.values()
                  if u.hex == h and u.side == side and not u.eliminated)


def count(st: TobrukState, sc: Scenario, h: str, side: str, extra: list[str] = ()) -> tuple[int, int]:
    """(vehicles, personnel stacking points) of ``side`` in ``h``, plus units ``extra`` about to enter.
    Towed or carried weapons and wrecks do not count (4.33)."""
    ids = set(_present(st, h, side)) | set(extra)
    veh = sum(1 for u in ids if data.is_vehicle(sc, u))
    sp = sum(stacking_points(st, sc, u) for u in ids if data.is_personnel(sc, u))
    return veh, sp


def overstacked(st: TobrukState, sc: Scenario, h: str, side: str, extra: list[str] = ()) -> str:
    """Why ``side`` would be overstacked in ``h`` ("" if it is not) (4.02)."""
    veh, sp = count(st, sc, h, side, extra)
    if veh > VEHICLE_LIMIT:
        return f"{veh} vehicles in {h} (one allowed, 4.21)"
    if sp > PERSONNEL_LIMIT:
        return f"{sp} personnel stacking points in {h} (sixteen allowed, 4.31)"
    return ""


def overstack_drm(st: TobrukState, sc: Scenario, h: str, side: str) -> tuple[int, int]:
    """4.11 penalties against targets of ``side`` in ``h``: (HPN DRM, Casualty Table column shifts
    right).  -1 per vehicle or heavy weapon beyond one; per personnel stacking point beyond sixteen
    a -1 HPN DRM or one column right (the firer uses the one its fire needs)."""
    ids = _present(st, h, side)
    big = sum(1 for u in ids if data.is_vehicle(sc, u) or data.is_heavy(sc, u))
    _, sp = count(st, sc, h, side)
    extra_sp = max(0, sp - PERSONNEL_LIMIT)
    return -(max(0, big - 1) + extra_sp), extra_sp
