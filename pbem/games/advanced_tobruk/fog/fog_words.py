"""Words for the limited-intelligence events (32) in the reports."""
from __future__ import annotations

from pbem.core.events import Event
from pbem.core.scenario import Scenario
from pbem.games.advanced_tobruk.fog_events import DummyRemoved, Flipped, Revealed


def describe(ev: Event, sc: Scenario, origin: str | None = None) -> str | None:
    """The report line of a fog event (None: not one of these)."""
    match ev:
        case Revealed():
            who = "+".join(ev.units)
            side = "unit side up" if ev.face_up else "FOW side up"
            return (f"Hidden {sc.side_name(ev.side)} {who} revealed in {sc.board.label(ev.hex)}, {side}: "
                    f"{ev.why} ({ev.rule}); its side note is opened.")
        case Flipped():
            return f"{', '.join(ev.units)} flipped to the unit side: {ev.why} ({ev.rule})."
        case DummyRemoved():
            where = f" in {sc.board.label(ev.hex)}" if ev.hex else ""
            return f"{ev.unit}{where} was a dummy: {ev.why}; removed from play (32.241)."
    return None
