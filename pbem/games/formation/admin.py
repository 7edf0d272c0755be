"""The Admin Phase (9) and the End of Turn Phase (8): recovery (9.1) with the
Italian surrender check (16.1), organization with the Schwerpunkt marker (9.2),
reinforcements with their free move (9.4, 14), substitute HQs (9.4.4)."""
from __future__ import annotations

from fractions import Fraction

from pbem.core import orders as O
from pbem.core.orders import OrderError
from pbem.core.ruleset import Ctx
from pbem.games.formation import events as E
from pbem.games.formation.board import (all_eliminated, alive, fdata, gd, hq_unit, is_hq, is_static, members, on_map,
                                        over_limit, stack, stacking_count, zoc_hexes)
from pbem.games.formation.command import in_command
from pbem.games.formation.effectiveness import ec
from pbem.games.formation.movement import walk
from pbem.games.formation.snafu import passes_to
from pbem.games.formation.state import AXIS, FormationState, other
from pbem.games.formation.supply import hq_in_supply, path_to_source
from pbem.games.formation.terms import end_of_turn_victory
from pbem.games.formation.sequence import find_formation


def end_of_turn(ctx: Ctx) -> None:
    """8: VP hexes, victory check, then the next turn's Admin Phase."""
    st, sc = ctx.state, ctx.sc
    eot = next(i for i, p in enumerate(sc.sequence) if p.name == "end-of-turn")
    if st.phase != eot:
        ctx.emit(E.PhaseStarted(turn=st.turn, phase=eot, side=AXIS, name="end-of-turn"))
    if end_of_turn_victory(ctx):
        return
    admin = next(i for i, p in enumerate(sc.sequence) if p.name == "admin")
    ctx.emit(E.PhaseStarted(turn=st.turn + 1, phase=admin, side=AXIS, name="admin"))
    recovery(ctx)


def recovery(ctx: Ctx) -> None:
    st, sc = ctx.state, ctx.sc
    fm = st.fm
    ctx.emit(E.AdminBegun(snafu=passes_to(fm.snafu, fm.snafu_used)))
    for f, fr in sorted(fm.formations.items()):
        if fr.removed:
            continue
        row = fdata(sc, f)
        supplied = hq_in_supply(st, sc, f)
        level = min(fr.level + row.recovery, row.max_level) if supplied else fr.level
        ctx.emit(E.FormationRecovered(formation=f, in_supply=supplied, level=level))
    back = sorted(u.id for u in st.units.values() if alive(u) and u.disrupted
                  and (is_static(sc, u.id) or in_command(st, sc, u.id)))
    if back:
        ctx.emit(E.DisruptionRecovered(units=back))
    nat = gd(sc).surrender
    if nat:
        for u in sorted(st.units.values(), key=lambda u: u.id):
            d = sc.unit_defs.get(u.id)
            if not alive(u) or is_hq(sc, u.id) or d is None or d.nationality != nat:
                continue
            if not path_to_source(st, sc, u.side, u.hex):
                ec(ctx, u.id, "surrender")       # 16.1: a failed EC surrenders the unit
    hq_removals(ctx)
    schwerpunkt_owner(ctx)
    substitutes(ctx)


def hq_removals(ctx: Ctx) -> None:
    """3.3: an HQ leaves play when every subordinate unit is eliminated (and none is still to come)."""
    st, sc = ctx.state, ctx.sc
    for f, fr in sorted(st.fm.formations.items()):
        if fr.removed or not all_eliminated(st, sc, f):
            continue
        hq = hq_unit(st, sc, f)
        if hq is not None and not _pending(st, sc, f):
            ctx.emit(E.UnitEliminated(unit=hq.id, reason="every subordinate unit eliminated", rule="3.3"))


def _pending(st: FormationState, sc, f: str) -> bool:
    """Units of f still to come as reinforcements."""
    return any(u.hex is None and not u.eliminated for u in members(st, sc, f))


def schwerpunkt_owner(ctx: Ctx) -> None:
    """9.2: the turn track says who owns the marker; a marker that changes owner or is
    removed leaves its formation (the owner places it with ``schwerpunkt F``); a
    marker that stays where its HQ is still supplied stays."""
    st, sc = ctx.state, ctx.sc
    owner = sp_owner(st, sc)
    cur = st.fm.schwerpunkt
    if cur and (owner != st.fm.formations[cur].side or not hq_in_supply(st, sc, cur)):
        ctx.emit(E.SchwerpunktPlaced(formation="", side=owner if owner != "none" else ""))


def sp_owner(st: FormationState, sc) -> str:
    """The side owning the Schwerpunkt this turn ('none' when removed)."""
    spec = gd(sc).schwerpunkt
    owner = gd(sc).formations[spec.setup].side if spec.setup else ""    # lint: setup names a formation
    for t in sorted(spec.turns, key=int):
        if int(t) <= st.turn:
            owner = spec.turns[t]
    return owner or "none"


def substitutes(ctx: Ctx) -> None:
    """9.4.4 / 16.1 / 16.4: substitute HQs from their turn on, when the old HQ is in supply
    (same hex) or out of play (placed on the entry hex)."""
    st, sc = ctx.state, ctx.sc
    for sub in gd(sc).substitutes:
        f = sub.formation
        fr = st.fm.formations.get(f)
        if fr is None or fr.substituted or st.turn < sub.turn:
            continue
        old = st.units.get(fdata(sc, f).hq)
        new = sub.hq
        if old is None or new not in st.units:
            continue
        if old.hex is not None:
            if not hq_in_supply(st, sc, f):
                continue                        # 9.4.4: checked again next turn
            where = old.hex
        elif fr.removed or old.eliminated:
            if not _pending(st, sc, f) and not on_map(st, sc, f):
                continue
            where = sub.entry or ""
        else:
            continue
        level = min(max(fr.level + sub.level_change, 0), fdata(sc, f).max_level)
        ctx.emit(E.SubstituteHQ(formation=f, old=old.id, new=new, hex=where, level=level))


# --- the sides' admin orders (9.2, 9.4) -----------------------------------------------

def due_reinforcements(st: FormationState, sc, side: str) -> list[str]:
    """Units of ``side`` that must enter this turn (9.4: never postponed)."""
    out = []
    for r in gd(sc).reinforcements:
        if r.side == side and r.turn <= st.turn:
            out += [u for u in r.units if u in st.units and st.units[u].hex is None
                    and not st.units[u].eliminated]
    out += [u for u, t in st.fm.off_map.items() if t <= st.turn and st.units[u].side == side]
    return sorted(set(out))


def entry_hexes(st: FormationState, sc, uid: str) -> list[str]:
    """9.4.1 / 14.1: the scenario's entry hexes of the unit, else the side's supply sources on
    a map edge (units back from an off-board area, 13.2.4.1)."""
    for r in gd(sc).reinforcements:
        if uid in r.units and r.entry:
            return list(r.entry)
    side = st.units[uid].side
    grid = sc.board.grid
    return [h for h in gd(sc).supply_sources.get(side, [])
            if any(grid.is_edge(h, e) for e in ("north", "south", "east", "west"))]


def legal_entries(st: FormationState, sc, uid: str) -> list[str]:
    """9.4.1 / 14.1: entry hexes not blocked, not in an EZOC, free of enemies, not Bardia or a
    strongpoint; with none, any hex of the friendly map edge not next to an enemy unit."""
    side = st.units[uid].side
    ez = zoc_hexes(st, sc, other(side))
    banned = set(gd(sc).no_reinforcement) | set(st.fm.blocked)

    def free(h: str) -> bool:
        return h not in banned and h not in ez and not any(u.side != side for u in stack(st, h))
    ok = [h for h in entry_hexes(st, sc, uid) if free(h)]
    if ok:
        return ok
    grid = sc.board.grid
    edge = gd(sc).friendly_edges.get(side, "")
    if not edge:
        return []
    return [h for h in grid.all_hexes() if grid.is_edge(h, edge) and free(h)
            and not any(u.side != side for n in grid.neighbours(h) for u in stack(st, n))]


def default_entries(st: FormationState, sc, side: str) -> tuple[list[O.GameVerb], bool]:
    """The deadline default's ``enter`` orders (9.4), and whether every due unit got one: each
    unit on the first legal entry hex where it does not overstack (13.1.3) with the units there
    and those the default entered before it, else one free-move hex on (9.4.2) where it fits."""
    lim = gd(sc).stacking.get(side)
    planned: dict[str, list] = {}

    def room(h: str, u) -> bool:
        here = [x for x in stack(st, h) if x.side == side] + planned.get(h, []) + [u]
        return sum(1 for x in here if is_hq(sc, x.id)) <= 1 and not over_limit(stacking_count(sc, here), lim)
    out: list[O.GameVerb] = []
    all_in = True
    for uid in due_reinforcements(st, sc, side):
        u, entries = st.units[uid], legal_entries(st, sc, uid)
        path = next(([h] for h in entries if room(h, u)), None)      # the entry hex, then the hex moved to
        if path is None:
            for h in entries:
                for n in sc.board.grid.neighbours(h):
                    try:
                        walk(st, sc, [uid], h, [n], Fraction(u.ma), free=True)
                    except OrderError:
                        continue
                    if room(n, u):
                        path = [h, n]
                        break
                if path is not None:
                    break
        if path is not None:
            planned.setdefault(path[-1], []).append(u)
            out.append(O.GameVerb(word="enter", args=[uid, *path]))
        else:
            all_in = False
    return out, all_in


def admin_todo(st: FormationState, sc, side: str) -> list[str]:
    todo = []
    choices = _sp_choices(st, sc, side)
    if sp_owner(st, sc) == side and choices and (not st.fm.schwerpunkt or choices != [st.fm.schwerpunkt]) \
            and not st.fm.sp_done:
        todo.append("schwerpunkt")             # 9.2: the owner places it freely (end: it stays)
    if due_reinforcements(st, sc, side):
        todo.append("reinforcements")
    return todo


def _sp_choices(st: FormationState, sc, side: str) -> list[str]:
    return sorted(f for f, fr in st.fm.formations.items() if fr.side == side and not fr.removed
                  and hq_unit(st, sc, f) is not None and hq_in_supply(st, sc, f))


def admin_step(ctx: Ctx) -> bool:
    """A side with nothing to order in the Admin Phase is done by itself; after both,
    the Ops Phase begins.  True when something happened."""
    st, sc = ctx.state, ctx.sc
    side = st.fm.admin_side
    if side and not admin_todo(st, sc, side):
        ctx.emit(E.AdminSideDone(side=side))
        return True
    if not st.fm.admin_side:
        ops = next(i for i, p in enumerate(sc.sequence) if p.name == "ops")
        ctx.emit(E.PhaseStarted(turn=st.turn, phase=ops, side=AXIS, name="ops"))
        return True
    return False


def place_schwerpunkt(ctx: Ctx, args: list[str]) -> None:
    st, sc = ctx.state, ctx.sc
    _admin_side(ctx)
    if sp_owner(st, sc) != ctx.side:
        raise OrderError(f"the Schwerpunkt marker is not {sc.side_name(ctx.side)}'s this turn", "9.2")
    if len(args) != 1:
        raise OrderError("schwerpunkt needs one formation: schwerpunkt FORMATION", "9.2")
    f = find_formation(st, args[0], ctx.side)
    if f not in _sp_choices(st, sc, ctx.side):
        raise OrderError(f"{f} cannot take the Schwerpunkt: it must be one of yours with its HQ in supply "
                         f"({', '.join(_sp_choices(st, sc, ctx.side)) or 'none'})", "5.9")
    ctx.emit(E.SchwerpunktPlaced(formation=f, side=ctx.side, organized=True))


def _admin_side(ctx: Ctx) -> None:
    st = ctx.state
    if st.fm.step != "admin":
        raise OrderError("this order belongs to the Admin Phase", "9")
    if st.fm.admin_side != ctx.side:
        raise OrderError(f"the Admin Phase waits for {ctx.sc.side_name(st.fm.admin_side)} (Axis first, 14.1)", "14.1")


def admin_end(ctx: Ctx) -> None:
    st, sc = ctx.state, ctx.sc
    _admin_side(ctx)
    left = due_reinforcements(st, sc, ctx.side)
    can = [u for u in left if legal_entries(st, sc, u)]
    if can:
        raise OrderError(f"reinforcements must enter this turn (9.4): {', '.join(can)}; "
                         "enter UNIT HEX [HEX ...]", "9.4")
    for u in left:                              # 9.4.1: no entry hex at all: out of the game
        ctx.emit(E.UnitEliminated(unit=u, reason="no legal entry hex: removed, not counted as eliminated",
                                  rule="9.4.1"))
    ctx.emit(E.AdminSideDone(side=ctx.side))
