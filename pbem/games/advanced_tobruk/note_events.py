"""The side notes' own event (notes.py): a secret pre-game roll."""
from __future__ import annotations

from pbem.core.events import Event, register


class NoteRolled(Event, tag="TobrukNoteRolled"):
    """A secret pre-game roll (18.12 FFEs, 17.23 APCR/HEAT): its die is kept here for the dice
    (the other side sees it without ``rolls``); the result is sealed in the note after it."""
    side: str
    what: str                      # "ffe BATTERY" | "ammo APCR" | "ammo HEAT"
    rolls: list[int] = []


register(NoteRolled)
