"""A side's sealed side notes as the host knows them (notes.py seals and reads them).

Each note is a core sealed secret (``SecretRecorded``): the log keeps its
commitment, its text reaches only its owner's views and mail, and the rules
open it (``SecretRevealed``) exactly when the rules say the enemy learns it.
The reducer copies each note's meaning here so that the rules read it from the
state; views.py never shows this to the other side."""
from __future__ import annotations

from msgspec import Struct


class Notes(Struct, omit_defaults=True):
    ffe: dict[str, int] = {}                     # 18.12 battery -> FFEs it may place this scenario
    ammo: dict[str, int] = {}                    # 17.24 "APCR" / "HEAT" -> rounds for the whole side
    fo: dict[str, str] = {}                      # 18.82 battery -> its forward observer
    registrations: dict[str, list[str]] = {}     # 18.51, 18.54, 19.6 battery / mortar / weapon -> hexes
    op: dict[str, str] = {}                      # 18.91 FO -> the AFV it observes from
    command: str = ""                            # 24.01 the command tank
    elite: list[str] = []                        # 24.07 AFVs carrying an elite commander
    names: dict[str, str] = {}                   # note name -> its payload (what the owner wrote)
