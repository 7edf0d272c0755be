"""What a side may choose now, with orders ready to copy (HELP's "set-up choices" and the
welcome): the Admin Phase's Schwerpunkt and reinforcements, the Initiative player's
formations, the active formation's APs, the formations that may react."""
from __future__ import annotations

from pbem.core.scenario import Scenario
from pbem.games.formation import admin, sequence
from pbem.games.formation.board import gd
from pbem.games.formation.state import FormationState


def _name(sc: Scenario, f: str) -> str:
    row = gd(sc).formations.get(f)
    return row.name or f if row is not None else f


def setup_choices(st: FormationState, sc: Scenario, side: str) -> list[str]:
    """Lines for ``side``'s current decision ([] when the game waits for the other side)."""
    fm = st.fm
    if st.result is not None or fm.combat is not None:
        return []
    out: list[str] = []
    if fm.step == "admin" and fm.admin_side == side:
        todo = admin.admin_todo(st, sc, side)
        if "schwerpunkt" in todo:
            opts = admin._sp_choices(st, sc, side)
            out.append(f"Schwerpunkt (9.2): one of {', '.join(opts)}; e.g. schwerpunkt {opts[0]}")
        for u in admin.due_reinforcements(st, sc, side):
            hexes = admin.legal_entries(st, sc, u) or admin.entry_hexes(st, sc, u)
            if hexes:
                out.append(f"reinforcement {u} (9.4): enters at {', '.join(hexes)}; e.g. enter {u} {hexes[0]}")
        out.append("then: end")
    elif fm.step == "ops-choose" and fm.initiative == side:
        for f in sequence.activations_left(st, sc, side):
            out.append(f"activate {f}    {_name(sc, f)}, activation level {fm.formations[f].level} (6.4)")
    elif fm.step == "actions" and fm.active is not None and fm.active.side == side:
        a = fm.active
        out.append(f"{a.formation} ({_name(sc, a.formation)}) has {a.ap} AP; each action costs its AP (7.0); "
                   "end stops the activation")
    elif fm.step == "paused" and fm.paused is not None and fm.paused.side == side:
        for f in fm.paused.formations:
            out.append(f"react {f}    {_name(sc, f)} attempts a reaction (6.5.2)")
        out.append("pass    no reaction")
    return out
