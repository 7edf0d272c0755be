"""Who belongs to which formation, as players are shown it: every unit's formation in
its row (the SITUATION table, ``pbem state --json``, the counter's colour band), the
formations for the map's legend, and during an activation the active formation's
units with what each Action costs them (HELP, WAITING FOR).

Every decision of the Ops Phase is "activate FORMATION, then act with its units" (6.4,
7.2): only the active formation's units may act (5.5.1), so a player must see which
they are.  A unit's formation is printed on its counter (3.2 b), so an enemy unit a
side may see (the top of a stack, 5.3.4) shows it; units beneath stay hidden
(``intel.unit_row`` drops them whole).  Static units belong to no formation (3.2.1).
"""
from __future__ import annotations

from pbem.core.scenario import Scenario
from pbem.core.state import UnitState
from pbem.games.formation.board import action_cost, fdata, formation_of, gd, is_hq, is_static
from pbem.games.formation.command import in_command
from pbem.games.formation.state import FormationState


def unit_facts(st: FormationState, sc: Scenario, unit: UnitState) -> dict:
    """``Ruleset.unit_facts``: the unit's formation id ("" for a static unit, 3.2.1)."""
    return {"formation": "" if is_static(sc, unit.id) else formation_of(sc, unit.id)}


def legend(sc: Scenario) -> list[dict]:
    """Every formation of the scenario, in its order (the colours follow it, so a
    formation keeps its colour from map to map): id, name, side.  Public: the
    formations are printed on the counters and the FA track."""
    return [{"id": f, "name": row.name or f, "side": row.side} for f, row in gd(sc).formations.items()]


def costs(sc: Scenario) -> str:
    c = gd(sc).action_costs
    return (f"move {c.move}, hasty attack {c.hasty} (regular {c.regular}, prepared {c.prepared}), refit {c.refit}, "
            f"improve {c.improve}, seize {c.seize} AP (7.0)")


def active_units(st: FormationState, sc: Scenario) -> list[tuple[UnitState, str, int, int]]:
    """The active formation's units on the map, each with its command state and what a
    move and a hasty attack cost it (doubled out of command, 5.8.3); a winning
    defender's bonus actions: only the units that won (7.4.3)."""
    act = st.fm.active
    if act is None:
        return []
    if act.defender:
        units = [st.units[u] for u in act.bonus_units if u in st.units]
    else:
        units = [u for u in st.units.values() if formation_of(sc, u.id) == act.formation]
    out = []
    move, hasty = action_cost(sc, "move"), action_cost(sc, "hasty")
    for u in sorted(units, key=lambda u: (not is_hq(sc, u.id), u.id)):
        if u.eliminated or u.hex is None:
            continue
        if is_hq(sc, u.id):
            out.append((u, "HQ", move, 0))
            continue
        ic = in_command(st, sc, u.id)
        k = 1 if ic else 2
        out.append((u, "in command" if ic else "OUT OF COMMAND (5.8.3)", move * k, hasty * k))
    return out


def _unit_line(u: UnitState, state: str, move: int, hasty: int) -> str:
    dis = ", disrupted" if u.disrupted else ""
    what = f"move {move} AP" + (f", hasty attack {hasty} AP" if hasty else " (an HQ does not attack)")
    return f"{u.id} in {u.hex}, {state}{dis}    {what}"


def activation_lines(st: FormationState, sc: Scenario, side: str) -> list[str]:
    """HELP during ``side``'s activation: the active formation, its APs, and each of its
    units with its costs; other formations' units may not act (5.5.1).  [] otherwise."""
    act = st.fm.active
    if st.fm.step != "actions" or act is None or act.side != side or st.result is not None:
        return []
    row = fdata(sc, act.formation)
    name = f"{act.formation} ({row.name})" if row is not None and row.name else act.formation
    if act.defender:
        head = f"Battle Victory bonus: {act.bonus} AP for the units that won (7.4.3); they alone may act:"
    else:
        bonus = f" +{act.bonus} bonus AP for {', '.join(act.bonus_units)} (7.4.3)" if act.bonus else ""
        kind = "reacting" if act.reaction else "active"
        head = (f"ACTIVE NOW: {name} is {kind} with {act.ap} AP left{bonus}. Only its units may act (5.5.1):")
    lines = [head] + [_unit_line(*x) for x in active_units(st, sc)]
    lines.append(f"Action costs: {costs(sc)}; out of command, move and hasty attack cost double (5.8.3)")
    return lines


def waiting_options(st: FormationState, sc: Scenario) -> list[str]:
    """The active formation, then its units one a line, for the report's WAITING FOR."""
    act = st.fm.active
    if act is None:
        return []
    head = (f"the winners' bonus: {act.bonus} AP (7.4.3); only these units may act:" if act.defender else
            f"{act.formation} has {act.ap} AP left" + (f" (+{act.bonus} bonus)" if act.bonus else "")
            + "; only its units may act (5.5.1):")
    return [head] + [f"  {u.id} {u.hex}: {state}, move {m} AP" + (f", hasty attack {h} AP" if h else "")
            for u, state, m, h in active_units(st, sc)]
