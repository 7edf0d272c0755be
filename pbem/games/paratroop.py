"""What the three Paratroop games share: units placed before play and air-landed."""
from __future__ import annotations

from pbem.core.events import Event, register


class UnitPlaced(Event, tag="UnitPlaced"):
    """A unit set up on the map before play (Crete 1.2)."""
    unit: str
    hex: str


class UnitLanded(Event, tag="UnitLanded"):
    """A unit air-landed on an airfield (Crete 6.0)."""
    unit: str
    hex: str


register(UnitPlaced, UnitLanded)
