"""Fire combat (5.0): announcing and resolving fire attacks, the Fire Combat
Results Table (5.9), sighting (6.0) through the shared line-of-sight geometry
(pbem.mechanics.sight) with this game's obstructions, the fortifications'
fields of fire (9.2, 9.3) and the minefield attacks, made on the fire table (11.0).
"""
from __future__ import annotations

import math

from pbem.core.orders import OrderError
from pbem.core.ruleset import Ctx
from pbem.core.scenario import Scenario
from pbem.core.state import UnitState
from pbem.games.eben_emael import events as E
from pbem.games.eben_emael.board import (OBSTRUCTING_HEXES, OBSTRUCTING_SIDES, features, fort_info, forts, gd,
                                         is_fort, terrain, unit)
from pbem.games.eben_emael.secrets import dummies
from pbem.games.eben_emael.state import FireAction
from pbem.mechanics.sight import SightRules, blocked_by

# --- sighting (6.0) --------------------------------------------------------------------------


def sight_rules(sc: Scenario) -> SightRules:
    cached = sc.__dict__.get("_ee_sight")
    if cached is not None:
        return cached
    r = SightRules(
        hex_blocks=lambda h: terrain(sc, h) in OBSTRUCTING_HEXES,                     # 6.2, 6.5
        side_blocks=lambda x, y: bool(features(sc, x, y) & set(OBSTRUCTING_SIDES)),    # 6.2, 6.5
        adjacent_side_blocks=lambda x, y: "cliff" in features(sc, x, y),              # 6.5
        elevated=lambda h: terrain(sc, h) == "hilltop",                               # 6.3
        elevated_side_blocks=lambda x, y: "cliff" in features(sc, x, y),              # 6.3
    )
    sc.__dict__["_ee_sight"] = r
    return r


def los(sc: Scenario, a: str, b: str) -> str:
    """Why a cannot sight b ("" if it can); the same both ways (6.1)."""
    return blocked_by(sc.board.grid, a, b, sight_rules(sc))


def observation(ctx: Ctx) -> bool:
    """6.4: an active, undestroyed, real observation cupola remains."""
    st, sc = ctx.state, ctx.sc
    fake = dummies(ctx)
    for h, fid in forts(sc).items():
        f = st.units[fid]
        if (fort_info(sc, h).get("observation") and h not in fake
                and "inactive" not in f.marks and "destroyed" not in f.marks):
            return True
    return False


# --- fields of fire (9.2, 9.3) ------------------------------------------------------------------


def _pixel(grid, h: str) -> tuple[float, float]:
    x, _, z = grid.to_cube(h)
    return 1.5 * x, math.sqrt(3) * (z + x / 2)


def _step(grid, h: str, d: str) -> str:
    vec = {"N": (0, 1, -1), "NE": (1, 0, -1), "SE": (1, -1, 0), "S": (0, -1, 1),
           "SW": (-1, 0, 1), "NW": (-1, 1, 0)}[d]
    x, y, z = grid.to_cube(h)
    return grid.from_cube((x + vec[0], y + vec[1], z + vec[2]))


def in_field_of_fire(grid, fort: str, target: str, arrows: list[str]) -> bool:
    """9.3 (reconstructed geometry): each arrow covers the 60-degree wedge
    centred on one hexside direction, edges included; a field is the union of
    its arrows.  An empty list means all round (a cupola, 9.2)."""
    if not arrows:
        return True
    fx, fy = _pixel(grid, fort)
    tx, ty = _pixel(grid, target)
    vx, vy = tx - fx, ty - fy
    n = math.hypot(vx, vy)
    if n == 0:
        return False
    for d in arrows:
        nb = _step(grid, fort, d)
        ax, ay = _pixel(grid, nb)
        ax, ay = ax - fx, ay - fy
        cos = (vx * ax + vy * ay) / (n * math.hypot(ax, ay))
        if cos >= math.cos(math.radians(30)) - 1e-9:
            return True
    return False


# --- announcing fire (5.2) ------------------------------------------------------------------------


def declare_fire(ctx: Ctx, args: list[str]) -> None:
    st, sc = ctx.state, ctx.sc
    if st.declarations_closed:
        raise OrderError("the fire attacks of this phase are already announced and resolved", "5.2")
    if len(args) not in (2, 3):
        raise OrderError("write: fire UNIT TARGET (a fortification fires by its hex; in 12.2 a second "
                         "target may follow: fire FORT TARGET TARGET2)")
    firer = unit(ctx, args[0], ctx.side)
    fort = is_fort(sc, firer.id)
    targets = args[1:]
    if len(targets) == 2 and not (fort and gd(sc).get("second_fire")):
        raise OrderError("only fortifications fire twice, and only in scenario 12.2", "5.4, 12.2")
    shots = []
    for i, t in enumerate(targets):
        target = unit(ctx, t)
        second = i == 1
        _check_fire(ctx, firer, target, second)
        shots.append((target, second))
    for target, second in shots:
        ctx.emit(E.FireDeclared(firer=firer.hex if fort else firer.id, target=target.id, second=second))


def _check_fire(ctx: Ctx, firer: UnitState, target: UnitState, second: bool) -> None:
    st, sc = ctx.state, ctx.sc
    fort = is_fort(sc, firer.id)
    key = firer.hex if fort else firer.id
    if target.side == firer.side or is_fort(sc, target.id):
        raise OrderError(f"{target.id} is not an enemy unit that may be fired on",
                         "5.8" if is_fort(sc, target.id) else "5.0")
    if target.hex is None:
        raise OrderError(f"{target.id} is not on the map")
    if fort:
        if "destroyed" in firer.marks:
            raise OrderError(f"the fortification in {firer.hex} is destroyed", "9.0")
        if "inactive" in firer.marks:
            raise OrderError(f"the fortification in {firer.hex} is inactive and may not fire", "9.4")
        if firer.hex in dummies(ctx):
            raise OrderError(f"{firer.hex} is a dummy cupola and cannot fire", "9.5")
        done = st.fired.get(key, 0)
        if done and not second:
            raise OrderError(f"the fortification in {firer.hex} has already fired this phase", "9.2")
        arrows = fort_info(sc, firer.hex).get("arrows", [])
        if not in_field_of_fire(sc.board.grid, firer.hex, target.hex, arrows):
            raise OrderError(f"{target.hex} is outside the field of fire of {firer.hex} "
                             f"({', '.join(arrows)})", "9.3")
        if second or not observation(ctx):                             # 6.4
            why = los(sc, firer.hex, target.hex)
            if why:
                extra = " (a second fire never uses the observation cupolas, 12.2)" if second else ""
                raise OrderError(f"{firer.hex} cannot sight {target.id} in {target.hex}: {why}{extra}", "6.0")
    else:
        if "pinned" in firer.marks:
            raise OrderError(f"{firer.id} is pinned and may not fire", "5.7")
        if firer.hex is None:
            raise OrderError(f"{firer.id} is not on the map")
        if st.fired.get(key):
            raise OrderError(f"{firer.id} has already fired this phase", "5.4")
        d = sc.board.grid.distance(firer.hex, target.hex)
        if d > int(gd(sc).get("unit_range", 2)):
            raise OrderError(f"{target.id} is {d} hexes away; a unit's range is two", "5.1")
        why = los(sc, firer.hex, target.hex)
        if why:
            raise OrderError(f"{firer.id} cannot sight {target.id}: the line from {firer.hex} to "
                             f"{target.hex} is blocked ({why})", "6.0")


# --- resolving fire (5.0, 5.9) --------------------------------------------------------------------


def _fire_row(sc: Scenario, firer: UnitState, second: bool) -> str:
    """The Fire CRT column (5.9): a cupola's, a casemate's strength (9.1), or the unit's nationality."""
    if is_fort(sc, firer.id):
        if second:
            return "1"                                              # 12.2
        d = sc.unit_defs[firer.id]
        return "Cupola" if d.type == "cupola" else str(d.strength)
    return sc.unit_defs[firer.id].nationality.capitalize()


def _fire_result(sc: Scenario, row: str, total: int) -> str:
    total = max(-1, min(8, total))
    rows = sc.crt.rows.get(str(total)) or gd(sc)["fire_rows"][str(total)]
    return rows[sc.crt.columns.index(row)]


def _roll_fire(ctx: Ctx, firer: str, target: UnitState, row: str, mods: list[tuple[str, str]],
               hex_: str | None = None) -> str:
    """5.0, 5.7: the fire die on the table; a number is added to the target's
    die against its Effectiveness Rating: above it pinned, four above eliminated."""
    sc = ctx.sc
    die = ctx.dice.roll(6)
    total = die + sum(int(m) for m, _ in mods)
    result = _fire_result(sc, row, total)
    rolls = [die]
    score = rating = 0
    effect = "no effect"
    if result != "-":
        second = ctx.dice.roll(6)
        rolls.append(second)
        score = second + int(result)
        rating = int(gd(sc)["effectiveness"][sc.unit_defs[target.id].nationality])
        if score >= rating + 4:
            effect = "eliminated"
        elif score > rating:
            effect = "already pinned" if "pinned" in target.marks else "pinned"
    ctx.emit(E.FireResolved(firer=firer, target=target.id, hex=hex_ or target.hex or "", row=row,
                            modifiers=[f"{m} {why}" for m, why in mods], rolls=rolls, total=total,
                            result=result, score=score, rating=rating, effect=effect))
    if effect == "eliminated":
        ctx.emit(E.UnitEliminated(unit=target.id, reason=f"fire from {firer}" if firer != "minefield"
                                  else f"minefield in {hex_}", rule="5.0" if firer != "minefield" else "11.0"))
    return effect


def _fire_mods(ctx: Ctx, target: UnitState) -> list[tuple[str, str]]:
    sc = ctx.sc
    mods = []
    terr = terrain(sc, target.hex)
    if terr in ("woods", "building"):
        mods.append(("+1", f"target in {terr} (5.6)"))
    if target.hex in forts(sc):
        mods.append(("+2", "target in a fortification hex (5.6)"))
    if "bold" in target.marks:
        mods.append(("-2", "target used bold movement (4.6)"))
    return mods


def resolve_fire(ctx: Ctx, a: FireAction) -> None:
    st, sc = ctx.state, ctx.sc
    firer = unit(ctx, forts(sc).get(a.firer, a.firer))
    target = st.units[a.target]
    if target.eliminated or target.hex is None:
        ctx.emit(E.FireLapsed(firer=a.firer, target=a.target, reason="the target is gone"))
        return
    row = _fire_row(sc, firer, a.second)
    _roll_fire(ctx, a.firer, target, row, _fire_mods(ctx, target))


def mine_attack(ctx: Ctx, u: UnitState, h: str) -> str:
    """11.0: the Belgian "3" fortification row, two subtracted; terrain ignored (11.5)."""
    return _roll_fire(ctx, "minefield", u, "3", [("-2", "minefield attack (11.0)")], hex_=h)
