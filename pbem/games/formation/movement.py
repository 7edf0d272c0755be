"""Movement (7.3): a unit or a stack of one formation moves hex by hex; road rate
(7.3.3), EZOCs stop a move (5.4.1), screen movement (7.3.4), enemy HQs displaced by
a unit moving next to them (7.3.5, 5.3.3), reinforcements' free move (9.4.2).
Reaction triggers are checked along the way (reaction.py)."""
from __future__ import annotations

from fractions import Fraction

from pbem.core.orders import OrderError
from pbem.core.ruleset import Ctx, find_unit
from pbem.games.formation import events as E
from pbem.games.formation.board import (acting, alive, combat_units, formation_of, is_hq, is_static, may_act, move_type,
                                        projects_zoc, stack, step_cost, top_first, udata, zoc_hexes)
from pbem.games.formation.state import FormationState, other
from pbem.mechanics.pathcost import fmt


def parse_stack(ctx: Ctx, token: str) -> list[str]:
    """``A+B+C`` -> unit ids of the side giving the order, all in one hex (7.3.1)."""
    ids = [find_unit(ctx, t, ctx.side, on_map=True).id for t in token.split("+") if t]
    if not ids:
        raise OrderError("name a unit or a stack (UNIT+UNIT...)")
    hexes = {ctx.state.units[u].hex for u in ids}
    if len(hexes) != 1:
        raise OrderError(f"a stack moves together from one hex; {', '.join(ids)} are in {', '.join(sorted(hexes))}",
                         "7.3.1")
    if len(set(ids)) != len(ids):
        raise OrderError("a unit is named twice")
    return top_first(ctx.sc, ids)


def stack_ma(st: FormationState, sc, units: list[str]) -> Fraction:
    """7.3.1: the slowest unit; halved when the formation's HQ is out of supply (5.7.5)."""
    ma = Fraction(min(st.units[u].ma for u in units))
    f = formation_of(sc, units[0])
    fr = st.fm.formations.get(f)
    return ma / 2 if fr is not None and fr.oos else ma


def walk(st: FormationState, sc, units: list[str], start: str, path: list[str], ma: Fraction, *,
         screen: bool = False, free: bool = False, spent: Fraction = Fraction(0)) -> list[Fraction]:
    """Check a whole path; returns the MP spent after each step (from ``spent`` on).
    Raises OrderError at the first bad step."""
    side = st.units[units[0]].side
    grid = sc.board.grid
    ezoc = zoc_hexes(st, sc, other(side))
    kinds = frozenset({move_type(sc, u) for u in units})
    only_hq = all(is_hq(sc, u) for u in units)
    cost = spent
    here = start
    out: list[Fraction] = []
    for i, h in enumerate(path):
        if not grid.contains(h):
            raise OrderError(f"{h} is not on the map", "7.3")
        if h == here:
            raise OrderError(f"the path enters {h}, where the {'units are' if len(units) > 1 else 'unit is'} "
                             "already: name only the hexes to enter, each next to the one before", "7.3")
        if not grid.adjacent(here, h):
            raise OrderError(f"{h} is not next to {here}: give the path hex by hex", "7.3")
        if any(u.side != side for u in stack(st, h)):
            raise OrderError(f"{h} holds enemy units; no unit may enter it", "7.1")
        from_ezoc, into_ezoc = here in ezoc, h in ezoc
        if free and into_ezoc:
            raise OrderError(f"a reinforcement's free move may not enter an EZOC ({h})", "9.4.2")
        if from_ezoc and into_ezoc and not screen:
            raise OrderError(f"{here} to {h}: no move from one EZOC directly into another, except screen movement",
                             "5.4.1, 7.3.4")
        if only_hq and into_ezoc and not any(u.side == side and not is_hq(sc, u.id) for u in stack(st, h)):
            raise OrderError(f"an HQ alone may not enter the EZOC hex {h} without a friendly combat unit there",
                             "3.3")
        c = step_cost(sc, kinds, here, h, road_ok=not (from_ezoc or into_ezoc))
        if c is None:
            raise OrderError(f"{h} is prohibited terrain for this stack", "7.3, TEC")
        if screen:
            c = ma                              # 7.3.4: the whole MA
        nxt = cost + c
        if nxt > ma and not (i == 0 and spent == 0):
            raise OrderError(f"the path costs more than the stack's {fmt(ma)} MP (at {h}: {fmt(nxt)})", "7.3.2")
        cost = nxt
        out.append(cost)
        if into_ezoc and i != len(path) - 1 and not screen:
            raise OrderError(f"{h} is in an enemy ZOC: the move must end there", "5.4.1")
        here = h
    return out


def check_movers(ctx: Ctx, units: list[str]) -> None:
    """7.1, 7.3.1: units of the active formation, not disrupted, not static."""
    st, sc = ctx.state, ctx.sc
    act = st.fm.active
    for u in units:
        if not may_act(st, sc, u):
            raise OrderError(f"{u} is not of {acting(st)}", "7.4.3" if act.defender else "5.5.1")
        if is_static(sc, u):
            raise OrderError(f"{u} is a static unit and never moves", "3.2.1")
        if st.units[u].disrupted:
            raise OrderError(f"{u} is disrupted: its only action is a refit", "5.6.3")


def displace_adjacent_hqs(ctx: Ctx, units: list[str], h: str) -> list[str]:
    """7.3.5: an enemy HQ alone in a hex next to a moving combat unit is displaced.
    Returns the displaced formations (they may not react to this move)."""
    st, sc = ctx.state, ctx.sc
    if all(is_hq(sc, u) for u in units):
        return []
    side = st.units[units[0]].side
    out = []
    at = _stacks(st)
    for n in sc.board.grid.neighbours(h):
        here = at.get(n, ())
        if len(here) == 1 and here[0].side != side and is_hq(sc, here[0].id) and n != h:
            f = formation_of(sc, here[0].id)
            displace_hq(ctx, f, "an enemy unit moved next to it (7.3.5)")
            out.append(f)
            at = _stacks(st)                    # the HQ went elsewhere
    return out


def _stacks(st: FormationState) -> dict[str, list]:
    """``stack`` of every hex at once: its units in the state's order."""
    at: dict[str, list] = {}
    for u in st.units.values():
        if u.hex is not None and not u.eliminated:
            at.setdefault(u.hex, []).append(u)
    return at


def displace_hq(ctx: Ctx, f: str, reason: str) -> None:
    """5.3.3: the HQ goes onto the nearest friendly combat unit of its formation not
    stacked with another HQ (ties: the lowest hex number, our documented default for the
    owner's choice); -1 support point and one space down the activation track."""
    st, sc = ctx.state, ctx.sc
    fr = st.fm.formations[f]
    hq = next(u for u in st.units.values() if is_hq(sc, u.id) and formation_of(sc, u.id) == f and alive(u))
    grid = sc.board.grid
    mine = [u for u in st.units.values() if alive(u) and formation_of(sc, u.id) == f and not is_hq(sc, u.id)
            and u.hex != hq.hex]
    free = [u for u in mine if not any(is_hq(sc, o.id) for o in stack(st, u.hex))]
    pool = free or mine
    to = min(pool, key=lambda u: (grid.distance(hq.hex, u.hex), u.hex)).hex if pool else ""
    ctx.emit(E.HQDisplaced(hq=hq.id, formation=f, to=to, support=max(fr.support - 1, 0),
                           level=max(fr.level - 1, 0), reason=reason))


def screen_allowed(st: FormationState, sc, h: str, side: str) -> tuple[bool, int, int]:
    """7.3.4: tank points in the hex (undisrupted) at least twice the printed tank + AT
    points of the undisrupted enemy units exerting a ZOC into it."""
    mine = sum(udata(sc, u.id).tank for u in combat_units(st, sc, h, side) if not u.disrupted)
    theirs = 0
    for u in st.units.values():
        if u.side != side and alive(u) and projects_zoc(st, sc, u, h):
            d = udata(sc, u.id)
            theirs += d.tank + d.at
    return mine > 0 and mine >= 2 * theirs, mine, theirs

