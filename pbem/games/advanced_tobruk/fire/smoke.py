"""Smoke on lines of fire (20.31): the smoke hexes a line passes into or through, the HPN DRM
they add to fire that uses the HPT and the column shift of fire that does not.  Smoke is
placed by mortars and guns (mortar.py) and by batteries (artillery.py); direct fire reads it
(fire_ap.py, fire_personnel.py), so it lies below them all."""
from __future__ import annotations

from pbem.core.orders import OrderError
from pbem.core.scenario import Scenario
from pbem.games.advanced_tobruk.tables import arty_tables as A
from pbem.games.advanced_tobruk.state import TobrukState


def smoke_hexes(st: TobrukState, sc: Scenario, from_hex: str, to_hex: str) -> list[str]:
    """Smoke hexes the line from ``from_hex`` to ``to_hex`` passes through, the target hex included
    (20.31 'into or through'; the firer's own hex is not counted)."""
    if not st.smoke or from_hex == to_hex:
        return []
    return [h for h in sc.board.grid.line(from_hex, to_hex) if h != from_hex and h in st.smoke]


def smoke_drm(st: TobrukState, sc: Scenario, from_hex: str, to_hex: str) -> int:
    """20.31: +4 HPN per smoke hex into or through which the fire passes; two such hexes (smoke or
    burning wrecks, 13.72) block the line: OrderError."""
    n = len(smoke_hexes(st, sc, from_hex, to_hex))
    if n >= 2:
        raise OrderError(f"two smoke hexes block the line from {from_hex} to {to_hex} (20.31, 13.72)", "13.72")
    return n * A.SMOKE_HPN


def smoke_shift(st: TobrukState, sc: Scenario, from_hex: str, to_hex: str) -> int:
    """20.31: fire that does not use the HPT shifts four columns LEFT per smoke hex (returned negative)."""
    return -A.SMOKE_SHIFT * len(smoke_hexes(st, sc, from_hex, to_hex))
