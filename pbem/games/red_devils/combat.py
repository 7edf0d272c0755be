"""Combat (6.0-7.8): the attack order, ranged attackers (6.6, 6.7), the
differential's column and its shifts (7.0-7.5), results (7.6): retreat or
disrupt (7.7, 8.2), the attackers' Ad and Ae, and advance after combat (7.8)."""
from __future__ import annotations

from pbem.core import orders as O
from pbem.core.orders import OrderError
from pbem.core.ruleset import Ctx, find_unit
from pbem.core.scenario import Scenario
from pbem.core.state import Attack, UnitState
from pbem.mechanics.movement import units_at
from pbem.mechanics.retreat import retreat_paths
from pbem.games.red_devils import events as E
from pbem.games.red_devils.state import Doctrine, RedDevilsState
from pbem.games.red_devils.terrain import (MINOR, RIJN, ezoc, gd, in_ezoc, is_artillery, is_mech, is_static, path_cost,
                                           rng, terrain, utype)


def column_index(diff: int) -> int:
    """The CRT column of a combat differential (7.2: beyond an edge, the edge column)."""
    if diff <= -3:
        return 0
    if diff <= -1:
        return 1
    if diff == 0:
        return 2
    if diff == 1:
        return 3
    if diff <= 3:
        return 4
    if diff <= 6:
        return 5
    if diff <= 9:
        return 6
    if diff <= 13:
        return 7
    return 8


def attack(ctx: Ctx, order: O.Attack) -> None:
    """6.0-6.8 who may attack; 7.0 the roll, resolved at once."""
    st: RedDevilsState = ctx.state
    sc = ctx.sc
    grid = sc.board.grid
    if order.retreat or order.attacker_retreat:
        raise OrderError("in Red Devils the owner retreats his own units; write no retreat in the attack", "7.7")
    if not grid.contains(order.target):
        raise OrderError(f"{order.target} is not on the map")
    defenders = [u for u in units_at(st).get(order.target, []) if u.side != ctx.side]
    if not defenders:
        raise OrderError(f"{order.target} holds no enemy unit")
    if any(d.defended for d in defenders):
        raise OrderError(f"{order.target} has already been attacked this phase", "6.4")
    attackers, seen = [], set()
    ranged = {"artillery": None, "range-2": None}
    for uid in order.attackers:
        u = find_unit(ctx, uid, ctx.side, on_map=True)
        if u.id in seen:
            raise OrderError(f"{u.id} is listed twice")
        seen.add(u.id)
        if u.attacked:
            raise OrderError(f"{u.id} has already attacked this phase", "6.3")
        if u.disrupted:
            raise OrderError(f"{u.id} is disrupted and may not attack", "8.1")
        dist = grid.distance(u.hex, order.target)
        if dist > 1:
            r = rng(sc, u.id)
            if dist > r:
                raise OrderError(f"{u.id} in {u.hex} is {dist} hexes from {order.target}; its range is {r}", "2.5")
            kind = "artillery" if r > 2 else "range-2"
            if ranged[kind]:
                raise OrderError(f"only one {kind} unit may join from a non-adjacent hex ({ranged[kind]} does)", "6.6")
            ranged[kind] = u.id
            if in_ezoc(st, sc, u.hex, u.side):
                raise OrderError(f"{u.id} is in an enemy-controlled hex and may not attack a non-adjacent unit", "6.7")
        if is_artillery(sc, u.id) and st.landed.get(u.id) == st.turn and u.side == "british":
            raise OrderError(f"{u.id} air-landed this turn: artillery may not attack in that player-turn", "9.6")
        attackers.append(u)
    if not any(grid.distance(u.hex, order.target) == 1 for u in attackers):
        raise OrderError("at least one attacking unit must be adjacent to the defender", "6.8")
    adv = order.advance
    if adv not in ("", "-"):
        adv = find_unit(ctx, adv, ctx.side, on_map=True).id
        if adv not in seen:
            raise OrderError(f"only a unit of this attack may advance; {adv} is not in it", "7.8")
    diff, col, shifts = combat_column(st, sc, attackers, defenders, order.target)
    ctx.emit(E.AttackDeclared(target=order.target, attackers=[u.id for u in attackers], advance=adv,
                              advance_path=list(order.advance_path)))
    idx = len(st.attacks) - 1
    die = ctx.dice.roll(sc.die)
    res = sc.crt.rows[str(die)][col]
    if res == "Dd" or (res == "De*" and terrain(sc, order.target) == "city"):
        if terrain(sc, order.target) == "city":
            shifts += [f"{d.id}, already disrupted in a city, is not affected (8.2)" for d in defenders if d.disrupted]
    ctx.emit(E.CombatResolved(index=idx, target=order.target, attackers=[u.id for u in attackers],
                              defenders=[d.id for d in defenders],
                              attack_strength=sum(u.strength for u in attackers),
                              defence_strength=sum(d.strength for d in defenders), modifiers=shifts,
                              odds=sc.crt.columns[col], rolls=[die], result=res))
    combat_continue(ctx)


def combat_column(st: RedDevilsState, sc: Scenario, attackers: list[UnitState], defenders: list[UnitState],
                  target: str) -> tuple[int, int, list[str]]:
    """7.0-7.5: differential, its column (clamped, 7.2) and the cumulative shifts."""
    grid = sc.board.grid
    diff = sum(u.strength for u in attackers) - sum(d.strength for d in defenders)
    col = column_index(diff)
    shifts = [f"differential {diff:+d}"]
    terr = terrain(sc, target)
    if terr in ("city", "rough"):
        col -= 2
        shifts.append(f"defender in {terr}: two columns left (7.3)")
    elif terr in ("town", "woods"):
        col -= 1
        shifts.append(f"defender in {terr}: one column left (7.3)")
    adj = [u for u in attackers if grid.distance(u.hex, target) == 1]
    sides = [sc.board.side_features(u.hex, target) for u in adj]
    if sides and all(RIJN in f for f in sides):
        col -= 2
        shifts.append("attacked only across the Neder Rijn: two columns left (7.3)")
    elif sides and all(MINOR in f for f in sides):
        col -= 1
        shifts.append("attacked only across a minor river: one column left (7.3)")
    armour = set(gd(sc).get("armour_types", []))
    at_types = set(gd(sc).get("anti_tank_types", []))
    if any(utype(sc, u.id) in armour for u in adj):
        dside = defenders[0].side
        covered = any(utype(sc, d.id) in at_types for d in defenders) or any(
            f.side == dside and not f.disrupted and f.hex and utype(sc, f.id) in at_types
            and grid.distance(f.hex, target) <= rng(sc, f.id) for f in st.units.values() if not f.eliminated)
        if covered:
            col -= 1
            shifts.append("armour attacks into anti-tank cover: one column left (7.4)")
    if terr != "city" and surrounded(st, sc, target, defenders[0].side):
        col += 1
        shifts.append("defender surrounded by enemy units and zones of control: one column right (7.5)")
    col = max(0, min(col, len(sc.crt.columns) - 1))
    return diff, col, shifts


def surrounded(st: RedDevilsState, sc: Scenario, h: str, side: str) -> bool:
    """7.5: every hex around ``h`` holds an enemy unit or lies in an enemy zone of control."""
    ns = sc.board.grid.neighbours(h)
    if len(ns) < 6:
        return False
    occ = units_at(st)
    zoc = ezoc(st, sc, side)
    for n in ns:
        if any(u.side != side for u in occ.get(n, [])):
            continue
        if n not in zoc:
            return False
    return True


def retreat_options(st: RedDevilsState, sc: Scenario, u: UnitState) -> list[list[str]]:
    """7.7: two hexes away, each vacant, enterable, outside enemy ZOC; never off the map or
    across an unbridged Neder Rijn hexside."""
    grid = sc.board.grid
    if is_static(sc, u.id):
        return []                                          # 4.8 the flak never retreats
    occ = units_at(st)
    mech = is_mech(sc, u.id) and utype(sc, u.id) != "motorized infantry"
    pc = path_cost(st, sc, u.id, mech)
    # 7.7: two hexes from the unit's own hex (so origin = combat_hex), every hex vacant, even of friends
    return retreat_paths(st, grid, u, u.hex, u.hex, 2, ezoc=ezoc(st, sc, u.side),
                         passable=lambda h: not occ.get(h), room=lambda h: True,
                         crossing=lambda a, b: pc.step(a, b) is not None)


def _defender_result(ctx: Ctx, i: int, a: Attack, kind: str) -> bool:
    """7.6 De, 7.7 Dd (retreat or disrupt), 8.2 a second disruption: True once the game waits."""
    st: RedDevilsState = ctx.state
    sc = ctx.sc
    uid = a.to_retreat[0]
    u = st.units[uid]
    if kind == "De":
        ctx.emit(E.UnitEliminated(unit=uid, reason=f"De in the attack on {a.target}", rule="7.6"))
        return False
    opts = retreat_options(st, sc, u)
    if is_static(sc, uid) and not u.disrupted:
        ctx.emit(E.UnitDisrupted(unit=uid, reason="Dd: the static flak may not retreat", rule="4.8"))
        return False
    if u.disrupted:
        if not opts:                               # 8.2 second disruption, no safe retreat
            ctx.emit(E.UnitEliminated(unit=uid, reason="already disrupted with no safe retreat", rule="8.2"))
        elif len(opts) == 1:
            ctx.emit(E.UnitRetreated(unit=uid, path=opts[0], chosen_by="auto"))
        else:
            ctx.emit(E.DecisionRequired(side=u.side, decision="retreat", combat=i, units=[uid],
                                        distance=2, options=opts, rule="8.2"))
        return False
    if not opts:
        ctx.emit(E.UnitDisrupted(unit=uid, reason=f"Dd on {a.target}: no safe retreat hex", rule="7.7"))
        return False
    if st.doctrine.get(u.side, Doctrine()).retreat == "disrupt":
        ctx.emit(E.UnitDisrupted(unit=uid, reason=f"Dd on {a.target}: disrupted in place (standing "
                                                  "doctrine)", rule="7.7"))
        return False
    ctx.emit(E.DecisionRequired(side=u.side, decision="retreat", combat=i, units=[uid], distance=0,
                                options=opts, rule="7.7"))
    return True


def _attacker_result(ctx: Ctx, i: int, a: Attack, kind: str) -> bool:
    """7.6 Ae, Ad (all retreat or all disrupt): True once the game waits."""
    st: RedDevilsState = ctx.state
    sc = ctx.sc
    if kind == "Ae":
        for uid in list(a.to_retreat):
            ctx.emit(E.UnitEliminated(unit=uid, reason=f"Ae in the attack on {a.target}", rule="7.6"))
        return False
    opts = {uid: retreat_options(st, sc, st.units[uid]) for uid in a.to_retreat}
    if a.stage == "attacker" and not all(opts.values()):
        for uid in list(a.to_retreat):
            ctx.emit(E.UnitDisrupted(unit=uid, reason=f"Ad on {a.target}: not every attacker can "
                                                      "retreat safely, so all disrupt", rule="7.6"))
        return False
    if a.stage == "attacker-retreat":
        uid = a.to_retreat[0]
        if not opts[uid]:
            ctx.emit(E.UnitDisrupted(unit=uid, reason="no safe retreat left", rule="7.7"))
            return False
        if len(opts[uid]) == 1:
            ctx.emit(E.UnitRetreated(unit=uid, path=opts[uid][0], chosen_by="auto"))
            return False
    side = st.units[a.to_retreat[0]].side
    flat = [[uid] + p for uid, ps in opts.items() for p in ps]
    ctx.emit(E.DecisionRequired(side=side, decision="ad", combat=i, units=list(a.to_retreat),
                                distance=2, options=flat, rule="7.6"))
    return True


def combat_continue(ctx: Ctx) -> None:
    """Carry the current attack's result out until the game waits for a side or the attack is over."""
    st = ctx.state
    while st.decision is None and st.attacks and st.current < len(st.attacks):
        i = st.current
        a = st.attacks[i]
        if a.stage == "finished":
            return
        if a.stage == "done":
            ctx.emit(E.CombatFinished(index=i))
            return
        kind = a.attacker_retreat.get("kind", [""])[0]
        if a.stage == "defender":
            if _defender_result(ctx, i, a, kind):
                return
            continue
        if a.stage in ("attacker", "attacker-retreat"):
            if _attacker_result(ctx, i, a, kind):
                return
            continue
        if a.stage == "advance":
            _advance(ctx, i, a, kind)
            return


def _advance(ctx: Ctx, i: int, a: Attack, kind: str) -> None:
    """7.8 after a defender left; 7.6 the defender's option after Ae or a retreating Ad."""
    st: RedDevilsState = ctx.state
    sc = ctx.sc
    grid = sc.board.grid
    occ = units_at(st)
    if kind in ("Dd", "De", "De*"):
        if occ.get(a.target):
            ctx.emit(E.CombatFinished(index=i))
            return
        opts = []
        for uid in a.attackers:
            u = st.units[uid]
            if u.eliminated or u.hex is None or u.disrupted or grid.distance(u.hex, a.target) != 1:
                continue
            opts.append([uid, a.target])
            if a.retreat and not occ.get(a.retreat[0]):
                opts.append([uid, a.target, a.retreat[0]])
        if not opts:
            ctx.emit(E.CombatFinished(index=i))
            return
        if a.advance == "-":
            ctx.emit(E.AdvanceDeclined(index=i))
            return
        if a.advance:
            path = a.advance_path or [a.target]
            if [a.advance] + path in opts:
                ctx.emit(E.UnitAdvanced(unit=a.advance, path=path))
                return
        ctx.emit(E.DecisionRequired(side=st.units[a.attackers[0]].side, decision="advance", combat=i,
                                    units=sorted({o[0] for o in opts}), options=opts, rule="7.8"))
        return
    # Ae / Ad: the defender may take one vacated attacker hex (7.6)
    defs = [st.units[d] for d in a.defenders if not st.units[d].eliminated and st.units[d].hex == a.target
            and not st.units[d].disrupted and not is_static(sc, d)]
    vac = sorted({h for h in a.attacker_retreat.get("hexes", []) if not occ.get(h)})
    opts = [[d.id, h] for d in defs for h in vac]
    if not opts:
        ctx.emit(E.CombatFinished(index=i))
        return
    ctx.emit(E.DecisionRequired(side=defs[0].side, decision="defender-advance", combat=i,
                                units=[d.id for d in defs], options=opts, rule="7.6"))
