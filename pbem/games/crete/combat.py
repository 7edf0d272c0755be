"""Combat (8.0-11.0): one attack at a time, resolved at once (3.0 step three).

An attack is a *fight*: a chain of rolls (10.5) that ends with De, Ae, Ee, Ne or
a retreat.  Each choice on the way is a decision of the player it belongs to,
unless a standing order answers a Ca (standing.py); the answers to those
decisions are read in answers.py.
"""
from __future__ import annotations

import itertools

from pbem.core import orders as O
from pbem.core.orders import OrderError
from pbem.core.ruleset import Ctx, find_unit
from pbem.core.scenario import Scenario
from pbem.core.state import UnitState
from pbem.games.crete import events as E
from pbem.games.crete.board import (air_units, alive, enemies, friends, gd, hex_arg, land, printed, sea_side,
                                    stack_limit)
from pbem.games.crete.odds import TABLES, column, strengths, table
from pbem.games.crete.standing import standing_answer
from pbem.games.crete.state import GERMAN, CreteState, Fight, fight_of


# --- one roll -----------------------------------------------------------------------------

def roll(ctx: Ctx, mode: str, side: str, rollers: list[UnitState], targets: list[UnitState],
         hexes: list[str], table_name: str, air: list[str] | None = None, terrain: bool = True,
         **inline) -> None:
    """One roll of a fight on the table named before it (9.1), then what its result does (10.0)."""
    st, sc = ctx.state, ctx.sc
    cd = st.crete
    index = cd.fight.index if cd.fight is not None else cd.fights
    ctx.emit(E.CombatOpened(index=index, mode=mode, side=side, attackers=[u.id for u in rollers],
                            defenders=[u.id for u in targets], hexes=hexes, table=table_name, air=list(air or []),
                            **inline))
    att, dfn, mods = strengths(st, sc, rollers, targets, air or [], terrain)
    col = column(att, dfn)
    assert col is not None
    cols, rows, rule = table(sc, table_name)
    die = ctx.dice.roll(sc.die)
    result = rows[str(die)][cols.index(col)]
    ctx.emit(E.CombatResolved(index=index, target=hexes[0], attackers=[u.id for u in rollers],
                              defenders=[u.id for u in targets], attack_strength=att, defence_strength=dfn,
                              modifiers=[f"{table_name} table ({rule})"] + mods, odds=col, rolls=[die],
                              result=result))
    after_roll(ctx)


# --- the attack order (8.0, 9.1) ------------------------------------------------------------

def parse_attack(ctx: Ctx, order: O.Attack) -> tuple[list[str], list[str], str, list[str], list[str]]:
    """Split the words after 'with': units, then 'plus HEX ...', the table, 'air ...', 'lose ...'."""
    units: list[str] = []
    hexes = [order.target]
    tab = ""
    air: list[str] = []
    lose: list[str] = []
    bucket = units
    for w in order.attackers:
        lw = w.lower()
        if lw in TABLES:
            if tab:
                raise OrderError("name one table: all-out or limited", "9.1")
            tab = TABLES[lw]
            bucket = units
        elif lw == "plus":
            bucket = hexes
        elif lw == "air":
            bucket = air
        elif lw == "lose":
            bucket = lose
        elif bucket is hexes:
            hexes.append(hex_arg(ctx, w))
        else:
            bucket.append(w)
    return units, hexes, tab, air, lose


def attack(ctx: Ctx, order: O.Attack) -> None:
    st, sc = ctx.state, ctx.sc
    g = gd(sc)
    cd = st.crete
    side = ctx.side
    ids, hexes, tab, air, lose = parse_attack(ctx, order)
    if order.retreat or order.attacker_retreat:
        raise OrderError("the defender chooses its own retreat (10.6); 'retreat' and 'ar' have no use here", "10.5")
    if len(set(hexes)) != len(hexes):
        raise OrderError("a hex is named twice")
    defenders: list[UnitState] = []
    for h in hexes:
        hex_arg(ctx, h)
        here = enemies(st, h, side)
        if not here:
            raise OrderError(f"{h} holds no enemy unit")
        defenders += here              # 8.6: every unit in the hex defends together
    for d in defenders:
        if d.defended:
            raise OrderError(f"{d.id} has already been the object of a combat this phase", "8.2")
    if not ids:
        raise OrderError("name the attacking units: attack HEX with UNIT ... all-out|limited")
    attackers: list[UnitState] = []
    for uid in ids:
        u = find_unit(ctx, uid, side)
        if u in attackers:
            raise OrderError(f"{u.id} is listed twice")
        if u.hex is None:
            raise OrderError(f"{u.id} is not on the map")
        if u.attacked:
            raise OrderError(f"{u.id} has already attacked this phase", "8.2")
        if cd.dropped.get(u.id) == st.turn:
            raise OrderError(f"{u.id} dropped this Game-Turn and may not attack", "5.6")
        for h in hexes:
            if not sc.board.grid.adjacent(u.hex, h):
                raise OrderError(f"{u.id} in {u.hex} is not adjacent to {h}; every attacker must be adjacent "
                                 "to every defender", "8.4")
            if sea_side(sc, u.hex, h):
                raise OrderError(f"{u.id} would attack {h} across an all-sea hexside", "4.8")
        attackers.append(u)
    if not tab:
        raise OrderError("name the table before the roll: all-out or limited", "9.1")
    if air:
        au = air_units(sc)
        if side != GERMAN:
            raise OrderError("only the German player has air units", "11.0")
        if st.turn in g.get("no_air_turns", [1]):
            raise OrderError("air units are not used on Game-Turn One", "11.5")
        if len(air) > int(g.get("air_per_attack", 3)):
            raise OrderError(f"at most {g.get('air_per_attack', 3)} air units in one attack", "11.0")
        for a in air:
            if a not in au:
                raise OrderError(f"unknown air unit {a!r}; air units: {', '.join(au)}", "11.0")
            if a in cd.air_used or air.count(a) > 1:
                raise OrderError(f"air unit {a} has already been used this Game-Turn", "11.4")
    att, dfn, _ = strengths(st, sc, attackers, defenders, air)
    if column(att, dfn) is None:
        raise OrderError(f"odds of {att}:{dfn} are below 1:3; such an attack is not allowed", "9.4")
    names = {u.id for u in attackers}
    lose_ids = [find_unit(ctx, x, side).id for x in lose]
    if any(x not in names for x in lose_ids):
        raise OrderError("'lose' names a unit that is not in this attack", "10.3")
    adv, adv_hex = order.advance, (order.advance_path[0] if order.advance_path else "")
    if adv not in ("", "-"):
        adv = find_unit(ctx, adv, side).id
        if adv not in names:
            raise OrderError(f"only a unit of the attack may advance; {adv} is not in it", "10.7")
        if adv_hex and adv_hex not in hexes:
            raise OrderError(f"{adv_hex} is not an attacked hex", "10.7")
    roll(ctx, "attack", side, attackers, defenders, hexes, tab, air, lose=lose_ids, advance=adv, advance_hex=adv_hex)


def scatter_fight(ctx: Ctx, u: UnitState, h: str, cw: list[UnitState]) -> None:
    """5.2: a unit that scatters onto Commonwealth units attacks them at once on the All Out table,
    without air units (11.5); below 1:3 it is eliminated (9.4)."""
    st, sc = ctx.state, ctx.sc
    att, dfn, _ = strengths(st, sc, [u], cw, [])
    if column(att, dfn) is None:
        ctx.emit(E.UnitEliminated(unit=u.id, reason=f"scattered onto Commonwealth units in {h} at odds of "
                                                    f"{att}:{dfn}, below 1:3", rule="9.4"))
        return
    roll(ctx, "scatter", GERMAN, [u], cw, [h], "all-out")


# --- what a result does (10.0) --------------------------------------------------------------

def after_roll(ctx: Ctx) -> None:
    st = ctx.state
    f = fight_of(st)
    r = f.result
    rollers = alive(st, f.rollers)
    targets = alive(st, f.targets)
    if f.kind == "scatter" and r == "Ne":
        r = "Ca"          # 5.2: the exchange goes on until a unit is eliminated or the defender retreats
    if r == "De":
        for u in targets:
            ctx.emit(E.UnitEliminated(unit=u.id, reason=f"De in the combat at {f.target_hexes[0]}", rule="10.2"))
        advance_start(ctx, [u.id for u in rollers], f.target_hexes)
    elif r == "Ae":
        vacated = sorted({u.hex for u in rollers if u.hex})
        for u in rollers:
            ctx.emit(E.UnitEliminated(unit=u.id, reason=f"Ae in the combat at {f.target_hexes[0]}", rule="10.1"))
        advance_start(ctx, [u.id for u in targets], vacated)
    elif r == "Ee":
        for u in targets:
            ctx.emit(E.UnitEliminated(unit=u.id, reason=f"Ee in the combat at {f.target_hexes[0]}", rule="10.3"))
        losses(ctx)
    elif r == "Ne":
        ctx.emit(E.CombatFinished(index=f.index))                           # 10.4
    else:
        ca_choice(ctx)


# Ee (10.3) ------------------------------------------------------------------------------------

def loss_options(st: CreteState, sc: Scenario, f: Fight) -> list[list[str]]:
    """Sets of attacking units whose printed strengths reach the defenders' printed strength,
    none of them with a unit to spare (10.3)."""
    need = sum(printed(sc, t) for t in f.targets)
    pool = sorted(alive(st, f.rollers), key=lambda u: u.id)
    if sum(u.strength for u in pool) <= need:
        return [[u.id for u in pool]]
    out = []
    for n in range(1, len(pool) + 1):
        for combo in itertools.combinations(pool, n):
            s = sum(u.strength for u in combo)
            if s >= need and s - min(u.strength for u in combo) < need:
                out.append([u.id for u in combo])
    return out


def losses(ctx: Ctx) -> None:
    st, sc = ctx.state, ctx.sc
    f = fight_of(st)
    opts = loss_options(st, sc, f)
    choice = None
    if len(opts) == 1:
        choice = opts[0]
    elif f.roll_side == f.side and f.lose and sorted(f.lose) in [sorted(o) for o in opts]:
        choice = f.lose
    if choice is None:
        ctx.emit(E.DecisionRequired(side=f.roll_side, decision="losses", combat=f.index,
                                    units=[u.id for u in alive(st, f.rollers)], options=opts, rule="10.3"))
        return
    lose(ctx, choice)


def lose(ctx: Ctx, ids: list[str]) -> None:
    st = ctx.state
    f = fight_of(st)
    need = sum(printed(ctx.sc, t) for t in f.targets)
    for uid in ids:
        ctx.emit(E.UnitEliminated(unit=uid, reason=f"Ee: the attackers lose at least {need} strength points",
                                  rule="10.3"))
    f = fight_of(st)
    advance_start(ctx, [u.id for u in alive(st, f.rollers)], f.target_hexes)


# Ca (10.5) ------------------------------------------------------------------------------------

def safe_hexes(st: CreteState, sc: Scenario, u: UnitState) -> list[str]:
    """10.6: the adjacent hexes the unit could enter (4.8), free of enemy units, holding fewer than
    three friendly units.  Inside an enemy zone of control the case asks for fewer than three
    friendly units, none included (the same words in 5.4 cover empty hexes), so an empty hex in an
    enemy ZOC is safe; outside one the stacking limit (4.4) still applies."""
    if u.hex is None:
        return []
    out = []
    # Not mechanics.retreat.retreat_paths: 10.6 retreats one hex in any direction (not away from the
    # combat hex), may end in an EZOC, and never goes a hex further when no hex has room.
    for n in sc.board.grid.neighbours(u.hex):
        if not land(sc, n) or sea_side(sc, u.hex, n) or enemies(st, n, u.side):
            continue
        if friends(st, n, u.side, u.id) >= stack_limit(sc):
            continue
        out.append(n)
    return sorted(out)


def ca_options(st: CreteState, sc: Scenario, f: Fight) -> list[list[str]]:
    """The choices of the force that drew a Ca: ["retreat"] and ["counterattack", HEX, TABLE]
    (original defenders) or ["counterattack", TABLE] (original attackers: the original
    attack rolled again without air power)."""
    force = alive(st, f.targets)
    if not force:
        return []
    side = force[0].side
    opts: list[list[str]] = []
    scatter = f.kind == "scatter"
    if not (scatter and side == f.side) and any(safe_hexes(st, sc, u) for u in force):
        opts.append(["retreat"])
    tables = ["all-out"] if scatter else ["all-out", "limited"]
    if side != f.side:
        own = alive(st, f.defenders)
        for h in sorted({u.hex for u in alive(st, f.rollers) if u.hex}):
            tg = enemies(st, h, side)
            att, dfn, _ = strengths(st, sc, own, tg, [], terrain=not scatter)
            if tg and column(att, dfn) is not None:
                opts += [["counterattack", h, t] for t in tables]
    else:
        att, dfn, _ = strengths(st, sc, alive(st, f.attackers), alive(st, f.defenders), [])
        if column(att, dfn) is not None:
            opts += [["counterattack", t] for t in tables]
    return opts


def ca_choice(ctx: Ctx) -> None:
    st, sc = ctx.state, ctx.sc
    f = fight_of(st)
    force = alive(st, f.targets)
    if not force:
        ctx.emit(E.CombatFinished(index=f.index))
        return
    opts = ca_options(st, sc, f)
    if not opts:
        for u in force:
            ctx.emit(E.UnitEliminated(unit=u.id, reason="Ca with no safe retreat and no counterattack of "
                                                        "at least 1:3", rule="10.5"))
        f = fight_of(st)
        advance_start(ctx, [u.id for u in alive(st, f.rollers)], f.target_hexes)
        return
    if opts == [["retreat"]]:
        retreats(ctx)                  # no counterattack possible: the force retreats (10.5)
        return
    if len(opts) == 1:                 # 5.2: the German unit must counterattack on the All Out table
        counterattack(ctx, opts[0])
        return
    orders, pick, _ = standing_answer(st, sc, f, force, opts)
    if pick is not None:
        ctx.emit(E.StandingOrderApplied(side=force[0].side, orders=orders, answer=" ".join(pick),
                                        units=[u.id for u in force], combat=f.index, rule="10.5"))
        if pick == ["retreat"]:
            retreats(ctx)
        else:
            counterattack(ctx, pick)
        return
    ctx.emit(E.DecisionRequired(side=force[0].side, decision="ca", combat=f.index, units=[u.id for u in force],
                                options=opts, rule="10.5"))


def counterattack(ctx: Ctx, opt: list[str]) -> None:
    """10.5: the original defenders counterattack an attacking hex, or the original attackers roll
    the original attack again without air units."""
    st = ctx.state
    f = fight_of(st)
    side = alive(st, f.targets)[0].side
    if side != f.side:
        h, tab = opt[1], opt[2]
        own = alive(st, f.defenders)
        roll(ctx, "counterattack", side, own, enemies(st, h, side), [h], tab, terrain=f.kind != "scatter")
    else:
        defs = alive(st, f.defenders)
        hexes = [h for h in f.hexes if any(d.hex == h for d in defs)]
        roll(ctx, "re-roll", side, alive(st, f.attackers), defs, hexes, opt[1])


def retreats(ctx: Ctx) -> None:
    """Retreat the force one unit at a time (10.5, 10.6); stop at the first real choice."""
    st, sc = ctx.state, ctx.sc
    while True:
        f = fight_of(st)
        owing = f.to_retreat if f.stage == "retreat" else f.targets
        force = alive(st, owing)
        if not force:
            break
        u = force[0]
        opts = safe_hexes(st, sc, u)
        if not opts:
            ctx.emit(E.UnitEliminated(unit=u.id, reason=f"no safe hex to retreat to from {u.hex}", rule="10.6"))
        elif len(opts) == 1:
            ctx.emit(E.UnitRetreated(unit=u.id, path=opts, chosen_by="auto"))
        else:
            ctx.emit(E.DecisionRequired(side=u.side, decision="retreat", combat=f.index, units=[u.id],
                                        options=[[h] for h in opts], rule="10.6"))
            return
    f = fight_of(st)
    advance_start(ctx, [u.id for u in alive(st, f.rollers)], f.target_hexes)


# advance (10.7) -------------------------------------------------------------------------------

def advance_options(st: CreteState, sc: Scenario, victors: list[str], vacated: list[str]) -> list[list[str]]:
    out = []
    for u in alive(st, victors):
        for h in vacated:
            if (enemies(st, h, u.side) or u.hex == h or not sc.board.grid.adjacent(u.hex, h)
                    or sea_side(sc, u.hex, h) or not land(sc, h)
                    or friends(st, h, u.side, u.id) >= stack_limit(sc)):
                continue
            out.append([u.id, h])
    return out


def advance_start(ctx: Ctx, victors: list[str], vacated: list[str]) -> None:
    st, sc = ctx.state, ctx.sc
    f = fight_of(st)
    opts = [] if f.kind == "scatter" else advance_options(st, sc, victors, vacated)
    if not opts:
        ctx.emit(E.CombatFinished(index=f.index))
        return
    side = st.units[opts[0][0]].side
    if side == f.side and f.advance:
        if f.advance == "-":
            ctx.emit(E.AdvanceDeclined(index=f.index))
            ctx.emit(E.CombatFinished(index=f.index))
            return
        pick = next((o for o in opts if o[0] == f.advance and (not f.advance_hex or o[1] == f.advance_hex)), None)
        if pick is not None:
            ctx.emit(E.UnitAdvanced(unit=pick[0], path=[pick[1]]))
            ctx.emit(E.CombatFinished(index=f.index))
            return
    ctx.emit(E.DecisionRequired(side=side, decision="advance", combat=f.index,
                                units=sorted({o[0] for o in opts}), options=opts, rule="10.7"))
