"""Who may fire a medium or heavy crew-served weapon besides its crew (9.31, 9.32).

9.32: a squad or half-squad fires a medium or heavy crew-served weapon only while an
unbroken, unsurrendered leader (not an FO, 18.83) of its side stands in its hex, and
then as a depleted crew: ROF 1.  Leaders themselves may crew a weapon (9.31)."""
from __future__ import annotations

from pbem.core.scenario import Scenario
from pbem.games.advanced_tobruk import data
from pbem.games.advanced_tobruk.state import TobrukState


def squad_operated(sc: Scenario, weapon: str, holder: str) -> bool:
    """9.32: ``holder``, a squad, operates the medium or heavy weapon ``weapon``."""
    return data.utype(sc, weapon).get("weight") in ("M", "H") and data.cls(sc, holder) == "squad"


def squad_may_fire(st: TobrukState, sc: Scenario, weapon: str) -> str:
    """Why a squad may not fire ``weapon`` now ('' if it may, or the holder is no squad)."""
    holder = st.pieces[weapon].holder
    if not holder or not squad_operated(sc, weapon, holder):
        return ""
    u = st.units[holder]
    for v in st.units.values():
        if v.hex == u.hex and v.side == u.side and not v.eliminated and data.cls(sc, v.id) == "leader" \
                and not data.is_fo(sc, v.id) and not st.pieces[v.id].broken and not st.pieces[v.id].surrendered:
            return ""
    return (f"{holder} is a squad: it fires the {data.utype(sc, weapon).get('weight')} weapon {weapon} only with an "
            f"unbroken leader (not an FO) in its hex (9.32)")
