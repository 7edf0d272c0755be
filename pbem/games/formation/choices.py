"""What a side may choose now, with orders ready to copy (HELP's "Admin Phase choices" or "Ops
Phase choices" and the welcome): the enumerated choices of the order forms (steps.py ``FORMS``)
that each step names - the Admin Phase's Schwerpunkt and reinforcements, the Initiative player's
formations, the active formation's APs, the formations that may react.  Each runs only while
its step waits for ``side`` (core/forms.py)."""
from __future__ import annotations

from pbem.core.scenario import Scenario
from pbem.games.formation import admin, sequence
from pbem.games.formation.board import gd
from pbem.games.formation.state import FormationState


def _name(sc: Scenario, f: str) -> str:
    row = gd(sc).formations.get(f)
    return row.name or f if row is not None else f


def admin_choices(st: FormationState, sc: Scenario, side: str) -> list[str]:
    """9.2, 9.4: the Schwerpunkt still to place, each due reinforcement's entry hexes, then end."""
    out: list[str] = []
    todo = admin.admin_todo(st, sc, side)
    if "schwerpunkt" in todo:
        opts = admin._sp_choices(st, sc, side)
        out.append(f"Schwerpunkt (9.2): one of {', '.join(opts)}; e.g. schwerpunkt {opts[0]}")
    for u in admin.due_reinforcements(st, sc, side):
        hexes = admin.legal_entries(st, sc, u) or admin.entry_hexes(st, sc, u)
        if hexes:
            out.append(f"reinforcement {u} (9.4): enters at {', '.join(hexes)}; e.g. enter {u} {hexes[0]}")
    return out + ["then: end"]


def activate_choices(st: FormationState, sc: Scenario, side: str) -> list[str]:
    """6.4: the formations the Initiative player may still activate, with their levels."""
    return [f"activate {f}    {_name(sc, f)}, activation level {st.fm.formations[f].level} (6.4)"
            for f in sequence.activations_left(st, sc, side)]


def action_choices(st: FormationState, sc: Scenario, side: str) -> list[str]:
    """7.0: the active formation and its AP."""
    a = st.fm.active
    return [f"{a.formation} ({_name(sc, a.formation)}) has {a.ap} AP; each action costs its AP (7.0); "
            "end stops the activation"]


def react_choices(st: FormationState, sc: Scenario, side: str) -> list[str]:
    """6.5.2: the formations that may attempt a reaction to the paused move, or pass."""
    return [f"react {f}    {_name(sc, f)} attempts a reaction (6.5.2)" for f in st.fm.paused.formations] + \
        ["pass    no reaction"]
