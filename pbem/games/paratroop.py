"""What the three Paratroop games share: units placed before play and air-landed."""
from __future__ import annotations

from pbem.core.events import Event, Motion, register


class UnitPlaced(Event, tag="UnitPlaced"):
    """A unit set up on the map before play (Crete 1.2)."""
    # set down on its hex; not the core's to apply: in Red Devils it is the drop zone chosen (1.2), the
    # unit comes down where UnitLanded says
    motion = Motion("place", hex="hex")
    unit: str
    hex: str


class UnitLanded(Event, tag="UnitLanded"):
    """A unit air-landed on an airfield (Crete 6.0)."""
    motion = Motion("place", hex="hex", core=True)
    unit: str
    hex: str


register(UnitPlaced, UnitLanded)
