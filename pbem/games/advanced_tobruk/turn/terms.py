"""Victory from the scenario card (2.44-2.46, 11.86): victory points for enemy
units destroyed (K-KILLed, eliminated) or captured (surrendered: double), for
units exited off the map by the exit edge (as if destroyed, 2.46) and for
objective hexes held at the end; the game ends after the last turn, or at
once when a side has no unit left on the map."""
from __future__ import annotations

from pbem.core.ruleset import Ctx
from pbem.core.scenario import Scenario
from pbem.games.advanced_tobruk import data, events as E
from pbem.games.advanced_tobruk.notes import notes
from pbem.games.advanced_tobruk.state import TobrukState


def unit_value(sc: Scenario, uid: str) -> int:
    return data.vic(sc).destroyed.get(data.cls(sc, uid), 0)


def holder(st: TobrukState, sc: Scenario, h: str, default: str) -> str:
    """Who holds an objective hex: the only side with unbroken, unsurrendered units there (else ``default``)."""
    sides = {u.side for u in st.units.values() if u.hex == h and not u.eliminated
             and not st.pieces[u.id].broken and not st.pieces[u.id].surrendered and not st.pieces[u.id].wreck
             and (data.is_personnel(sc, u.id) or data.is_vehicle(sc, u.id))}
    return sides.pop() if len(sides) == 1 else default


def count(st: TobrukState, sc: Scenario) -> tuple[dict[str, int], list[str]]:
    """Each side's victory points now, with the items that make them."""
    vp = {s: 0 for s in sc.side_ids()}
    items: list[str] = []
    other = {a: b for a, b in zip(sc.side_ids(), reversed(sc.side_ids()))}
    for uid, u in sorted(st.units.items()):
        p = st.pieces[uid]
        v = unit_value(sc, uid)
        if not v:
            continue
        if uid in st.exited:
            vp[u.side] += v
            items.append(f"{uid} exited: {v} to {sc.side_name(u.side)} (2.46)")
        elif u.eliminated:
            vp[other[u.side]] += v
            items.append(f"{uid} destroyed: {v} to {sc.side_name(other[u.side])}")
        elif p.surrendered:
            vp[other[u.side]] += 2 * v
            items.append(f"{uid} captured: {2 * v} to {sc.side_name(other[u.side])} (11.86)")
    for obj in data.vic(sc).hexes:
        side = holder(st, sc, obj.hex, obj.held_by)
        if side:
            vp[side] += obj.vp
            items.append(f"{obj.hex} held by {sc.side_name(side)}: {obj.vp}")
    return vp, items


def _winner(sc: Scenario, vp: dict[str, int]) -> str:
    a, b = sc.side_ids()
    if vp[a] == vp[b]:
        return data.vic(sc).tie
    return a if vp[a] > vp[b] else b


def turn_over(ctx: Ctx) -> bool:
    """At the end of a turn: the last turn ends the game (2.47). True if the game ended."""
    st: TobrukState = ctx.state
    sc = ctx.sc
    if st.turn < sc.turns:
        return False
    return finish(ctx, f"turn {st.turn} of {sc.turns} is over")


def finish(ctx: Ctx, why: str) -> bool:
    st: TobrukState = ctx.state
    sc = ctx.sc
    notes.open_all(ctx)                       # every side note still sealed is opened at the end
    vp, items = count(st, sc)
    ctx.emit(E.VictoryCounted(vp=vp, items=items))
    w = _winner(sc, vp)
    tally = ", ".join(f"{sc.side_name(s)} {vp[s]}" for s in sc.side_ids())
    ctx.emit(E.GameEnded(winner=w, reason=f"{why}: victory points {tally}", rule="2.44, 2.45"))
    return True


def wiped_out(ctx: Ctx) -> bool:
    """A side with no unit left able to fight (all eliminated, surrendered or exited) ends the game at once."""
    s = wiped_side(ctx.state, ctx.sc)
    return finish(ctx, f"{ctx.sc.side_name(s)} has no unit left on the map") if s else False


def wiped_side(st: TobrukState, sc: Scenario) -> str:
    """The first side (in the scenario's order) with no unit left able to fight, or '': one pass
    over the units, stopped once every side has one (asked after every order)."""
    sides = sc.side_ids()
    fighting: set[str] = set()
    for u in st.units.values():
        if u.side not in fighting and not u.eliminated and not u.gone and not st.pieces[u.id].surrendered \
                and not data.is_weapon(sc, u.id):
            fighting.add(u.side)
            if fighting.issuperset(sides):
                return ""
    return next((s for s in sides if s not in fighting), "")
