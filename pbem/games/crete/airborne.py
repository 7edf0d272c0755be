"""The German arrival by air: the sealed drop plan (1.0, 1.1), airdrops and
scatter (5.0-5.9) and the air landing of mountain units on airfields (6.0-6.5)."""
from __future__ import annotations

from pbem.core import orders as O
from pbem.core.orders import OrderError
from pbem.core.ruleset import Ctx, find_unit
from pbem.core.scenario import Scenario
from pbem.games.crete import events as E
from pbem.games.crete.board import args_of, enemies, friends, gd, hex_arg, map_of, stack_limit, utype
from pbem.games.crete.combat import scatter_fight
from pbem.games.crete.state import GERMAN


# --- the drop plan (1.0, 1.1) -------------------------------------------------------------

def parse_plan(payload: str, maps: list[str], minimum: int, most: int) -> tuple[dict[str, int], str]:
    """'west=4 centre=3 east=2' -> counts per map, or an error text (1.0, 1.1)."""
    plan: dict[str, int] = {m: 0 for m in maps}
    for tok in payload.split():
        k, sep, v = tok.partition("=")
        if not sep or k not in plan or not v.isdigit():
            return {}, f"write the plan as MAP=N for the maps {', '.join(maps)} (e.g. {maps[0]}=4); {tok!r} is not"
        plan[k] = int(v)
    total = sum(plan.values())
    if total < minimum:
        return {}, f"the plan lands {total} airborne units on Game-Turn 1; at least {minimum} must land (1.1)"
    if total > most:
        return {}, f"the plan lands {total} airborne units; there are only {most} (1.1)"
    return plan, ""


def plan_name(sc: Scenario) -> str:
    """The name of the sealed drop plan (1.0)."""
    return gd(sc).get("drop_plan_secret", "drop-plan")


def read_plan(sc: Scenario, payload: str) -> tuple[dict[str, int], str]:
    """A drop plan checked against this scenario's maps and airborne units (1.1)."""
    g = gd(sc)
    most = sum(1 for u in sc.units if u.type == g.get("airborne_type", "airborne"))
    return parse_plan(payload, list(g.get("maps", {})), int(g.get("first_turn_min_drops", 7)), most)


def check_plan(ctx: Ctx, order: O.Secret | O.Unveil) -> None:
    """1.0: only the German player seals the drop plan, in the drop-plan step, and opens it in the
    Game-Turn 1 air landing phase; a plan that is not a valid one is refused when sealed (1.1)."""
    st, sc = ctx.state, ctx.sc
    name = plan_name(sc)
    if order.name != name:
        return
    ph = sc.sequence[st.phase] if st.phase >= 0 else None
    if ctx.side != GERMAN:
        raise OrderError(f"only the German player has a {name}", "1.0")
    if isinstance(order, O.Secret):
        if ph is None or ph.name != "drop-plan":
            raise OrderError("the drop plan is written before the Commonwealth set-up, in the drop-plan step", "1.0")
        _, err = read_plan(sc, order.payload)
        if err:
            raise OrderError(err, "1.1")
    elif not (st.turn == 1 and ph is not None and ph.name == "air-landing"):
        raise OrderError("the drop plan is opened when the drops begin, in the Game-Turn 1 air landing phase", "1.0")


# --- airdrops (5.0) -----------------------------------------------------------------------

def drop(ctx: Ctx, order: O.GameVerb) -> None:
    """drop UNIT HEX: an airborne unit's one airdrop (5.0, 5.7), scattered by the Scatter Table (5.9)."""
    st, sc = ctx.state, ctx.sc
    g = gd(sc)
    cd = st.crete
    uid, target = args_of(order, 2, "drop UNIT HEX")
    u = find_unit(ctx, uid, GERMAN)
    if utype(sc, u.id) != g.get("airborne_type", "airborne"):
        raise OrderError(f"{u.id} is not an airborne unit; mountain units land on airfields (land UNIT HEX)", "5.0")
    if u.id in cd.dropped or u.hex is not None:
        raise OrderError(f"{u.id} has already made its one airdrop", "5.7")
    target = hex_arg(ctx, target)
    m = map_of(sc, target)
    if m is None:
        raise OrderError(f"{target} is not on any of the three maps (a transit track or the gap between maps "
                         "is never a target)", "5.8")
    if sc.board.terrain.get(target) == "sea":
        raise OrderError(f"{target} is an all-sea hex and may not be a target hex", "5.1")
    if enemies(st, target, GERMAN):
        raise OrderError(f"{target} holds Commonwealth units and may not be a target hex", "5.1")
    if st.turn == 1:
        name = plan_name(sc)
        if not cd.plan_open:
            raise OrderError(f"open the sealed drop plan before the first drop: unveil {name}", "1.0")
        if cd.plan_error:
            raise OrderError(f"the sealed drop plan is not valid ({cd.plan_error}); no drop can match it", "1.0")
        if cd.t1.get(m, 0) >= cd.plan.get(m, 0):
            raise OrderError(f"the drop plan lands {cd.plan.get(m, 0)} airborne unit(s) on the {m} map on "
                             f"Game-Turn 1 and {cd.t1.get(m, 0)} have dropped there", "1.0")
    terr = sc.board.terrain.get(target, "")
    table = g["scatter_table"]
    column = table["terrain"].get(terr, table["columns"][0])
    d1 = ctx.dice.roll(sc.die)
    result = table["rows"][str(d1)][table["columns"].index(column)]
    rolls = [d1]
    where: str | None = target
    direction = ""
    if result == "Sc":
        d2 = ctx.dice.roll(sc.die)
        rolls.append(d2)
        direction = g["scatter_directions"][d2 - 1]
        where = sc.board.grid.neighbour(target, direction)
        if where is not None and map_of(sc, where) != m:
            where = None                                  # into the gap between maps: off the map
    ctx.emit(E.AirDropped(unit=u.id, target=target, column=column, rolls=rolls, result=result,
                          direction=direction, hex=where or ""))
    if where is None:
        ctx.emit(E.UnitEliminated(unit=u.id, reason="scattered off the map", rule="5.3"))
        return
    if sc.board.terrain.get(where) == "sea":
        ctx.emit(E.UnitEliminated(unit=u.id, reason=f"scattered into the all-sea hex {where}", rule="5.3"))
        return
    if friends(st, where, GERMAN, u.id) >= stack_limit(sc):
        ctx.emit(E.UnitEliminated(unit=u.id, reason=f"landed in {where}, which already holds three German units",
                                  rule="5.4"))
        return
    cw = enemies(st, where, GERMAN)
    if cw:
        scatter_fight(ctx, u, where, cw)


# --- air landing (6.0) --------------------------------------------------------------------

def air_land(ctx: Ctx, order: O.GameVerb) -> None:
    """land UNIT HEX: a mountain unit lands once (6.5) on a captured airfield (6.0) free of
    Commonwealth units (6.1), at most three German units there (6.2)."""
    st, sc = ctx.state, ctx.sc
    g = gd(sc)
    cd = st.crete
    uid, h = args_of(order, 2, "land UNIT HEX")
    u = find_unit(ctx, uid, GERMAN)
    if utype(sc, u.id) != g.get("mountain_type", "mountain"):
        raise OrderError(f"{u.id} is not a mountain unit; airborne units drop (drop UNIT HEX)", "6.0")
    if u.id in cd.landed or u.hex is not None:
        raise OrderError(f"{u.id} has already landed once", "6.5")
    h = hex_arg(ctx, h)
    if h not in g.get("airfields", []):
        raise OrderError(f"{h} is not an airfield hex; mountain units land only on airfields", "6.0")
    if enemies(st, h, GERMAN):
        raise OrderError(f"the airfield {sc.board.label(h)} is occupied by Commonwealth units", "6.1")
    if h not in cd.captured:
        raise OrderError(f"the airfield {sc.board.label(h)} has not been captured: a German unit must occupy "
                         "it first (our reading of 6.0)", "6.0")
    if friends(st, h, GERMAN) >= 3:
        raise OrderError(f"{h} already holds {friends(st, h, GERMAN)} German units; at most three per "
                         "airfield, landing units included", "6.2")
    ctx.emit(E.UnitLanded(unit=u.id, hex=h))
