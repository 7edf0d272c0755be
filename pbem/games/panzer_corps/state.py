"""The family's own state: the core GameState and what these games add to it.

Everything the family's rules keep between orders is a typed field here; the
state is built from the log by the reducer (reducer.py) and never written to it.
"""
from __future__ import annotations

from msgspec import Struct

from pbem.core.state import GameState


class Sealed(Struct):
    """The host's copy of a note the referee sealed (Dunkerque 10.0(2): which
    face-down unit is in a slot), kept until it is unveiled."""
    salt: str
    payload: str


class DrawSlot(Struct, array_like=True):
    """One slot of a hidden draw (Dunkerque 3.0(4)): its turn and the unit drawn for it."""
    turn: int
    unit: str


class PanzerCorpsState(GameState, omit_defaults=True):
    # Referee's sealed notes not yet unveiled, by name (Dunkerque 10.0(2)).
    sealed: dict[str, Sealed] = {}
    # Hidden draws made, by name: the slots in slot order.  A copy of the draw
    # without its units (never replayed by the engine) leaves [] - the draw is made.
    draws: dict[str, list[DrawSlot]] = {}
    # Points scored under a bookkeeping mark (PointsScored.mark): Khar'kov's first
    # charge into a city "charged:HEX" (4.2(1)) and a turn's railroad cut "rail:TURN" (4.4).
    point_marks: dict[str, int] = {}
    # The attacker names each combat of this phase in turn (``resolve HEX``, 9.1(5)) instead of
    # the default declaration order; cleared by ``end`` (the rest in order) and by a new phase.
    picking: bool = False
