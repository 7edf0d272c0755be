"""The Assault Phase: close assault (7.0) and demolition (8.0), both announced
before any is resolved (7.1, 8.2), and the attacker's choices they ask for:
which attacker an Ae result eliminates (7.5) and who advances (7.6).
"""
from __future__ import annotations

from pbem.core import orders as O
from pbem.core.orders import OrderError
from pbem.core.ruleset import Ctx
from pbem.core.scenario import Scenario
from pbem.core.state import UnitState
from pbem.games.eben_emael import events as E
from pbem.games.eben_emael.board import (GERMAN, features, forts, gd, sides, squads_at, terrain, undestroyed_fort,
                                         unit)
from pbem.games.eben_emael.secrets import dummies, open_secret
from pbem.games.eben_emael.state import AssaultAction, DemolitionAction, EbenEmaelState
from pbem.games.eben_emael.terms import check_decided
from pbem.mechanics.sight import side_key

# --- announcing -------------------------------------------------------------------------------


def _acting(u: UnitState) -> None:
    if "pinned" in u.marks:
        raise OrderError(f"{u.id} is pinned", "7.0, 8.0")
    if u.attacked:
        raise OrderError(f"{u.id} already assaults or demolishes this phase", "7.3, 7.7, 8.3")
    if u.hex is None:
        raise OrderError(f"{u.id} is not on the map")


def declare_assault(ctx: Ctx, args: list[str]) -> None:
    st, sc = ctx.state, ctx.sc
    usage = "write: assault HEX with UNIT [UNIT ...] [lose UNIT] [advance UNIT | no-advance]"
    if st.declarations_closed:
        raise OrderError("the attacks of this phase are already announced and resolved", "7.1")
    if len(args) < 3 or args[1].lower() != "with":
        raise OrderError(usage)
    target = args[0]
    rest = args[2:]
    attackers, lose, advance = [], "", ""
    i = 0
    while i < len(rest):
        w = rest[i].lower()
        if w == "lose" and i + 1 < len(rest):
            lose, i = rest[i + 1], i + 2
        elif w == "advance" and i + 1 < len(rest):
            advance, i = rest[i + 1], i + 2
        elif w == "no-advance":
            advance, i = "-", i + 1
        else:
            attackers.append(rest[i])
            i += 1
    if not attackers:
        raise OrderError(usage)
    defenders = [u for u in squads_at(st, sc).get(target, []) if u.side != ctx.side]
    if not defenders:
        what = " (fortifications are never close assaulted)" if target in forts(sc) else ""
        raise OrderError(f"{target} holds no enemy unit{what}", "7.8")
    if any(isinstance(x, AssaultAction) and x.target == target for x in st.actions):
        raise OrderError(f"{target} is already assaulted this phase", "7.4")
    units = []
    for uid in attackers:
        u = unit(ctx, uid, ctx.side)
        _acting(u)
        if u in units:
            raise OrderError(f"{u.id} is listed twice", "7.3")
        if not sc.board.grid.adjacent(u.hex, target):
            raise OrderError(f"{u.id} in {u.hex} is not adjacent to {target}", "7.0")
        if "cliff" in features(sc, u.hex, target):
            raise OrderError(f"{u.id} would assault across the cliff {u.hex}-{target}", "7.8")
        units.append(u)
    ids = [u.id for u in units]
    if lose and lose not in ids:
        raise OrderError(f"lose {lose}: not one of the assaulting units", "7.5")
    if advance not in ("", "-") and advance not in ids:
        raise OrderError(f"advance {advance}: not one of the assaulting units", "7.6")
    ctx.emit(E.AssaultDeclared(target=target, attackers=ids, lose=lose, advance=advance))


def declare_demolition(ctx: Ctx, args: list[str]) -> None:
    st, sc = ctx.state, ctx.sc
    usage = "write: demolish FORT-HEX with UNIT [charge]"
    if st.declarations_closed:
        raise OrderError("the attacks of this phase are already announced and resolved", "8.2")
    if ctx.side != GERMAN:
        raise OrderError("only German units demolish fortifications", "8.0")
    words = [w for w in args if w.lower() != "with"]
    charge = bool(words) and words[-1].lower() == "charge"
    if charge:
        words = words[:-1]
    if len(words) != 2:
        raise OrderError(usage)
    h, uid = words
    if h not in forts(sc):
        raise OrderError(f"{h} is not a fortification hex", "8.0")
    if undestroyed_fort(st, sc, h) is None:
        raise OrderError(f"the fortification in {h} is already destroyed", "8.0")
    u = unit(ctx, uid, GERMAN)
    _acting(u)
    if not sc.board.grid.adjacent(u.hex, h):
        raise OrderError(f"{u.id} in {u.hex} is not adjacent to {h}", "8.0")
    if charge and "charge used" in u.marks:
        raise OrderError(f"{u.id} has already used its 110 lb charge", "8.1")
    ctx.emit(E.DemolitionDeclared(fort=h, unit=u.id, charge=charge))


# --- close assault (7.0) --------------------------------------------------------------------------


def resolve_assault(ctx: Ctx, i: int, a: AssaultAction) -> None:
    """One step of the close assault a (index i): the roll, then its losses and the advance."""
    st, sc = ctx.state, ctx.sc
    stage = a.stage
    if stage == "declared":
        attackers = [st.units[x] for x in a.attackers if not st.units[x].eliminated]
        defenders = [u for u in squads_at(st, sc).get(a.target, []) if u.side != ctx.side]
        if not attackers or not defenders:
            ctx.emit(E.CombatFinished(index=i))
            return
        d = defenders[0]
        diff = max(0, min(5, len(attackers) - 1))                       # 7.0
        mods = []
        terr = terrain(sc, a.target)
        if terr in ("woods", "building"):
            mods.append(f"+1 defender in {terr} (7.8)")
        kinds = []
        for u in attackers:
            f = set()
            for hs in sides(sc).get(side_key(u.hex, a.target), []):
                if hs.feature in ("ridge", "stream") or (hs.feature == "slope" and hs.up in ("", a.target)):
                    f.add(hs.feature)
            kinds.append(f)
        if kinds and all(kinds):
            mods.append("+1 every attacker across a ridge, stream or up a slope (7.8)")
        die = ctx.dice.roll(6)
        total = max(1, min(8, die + len(mods)))
        result = gd(sc)["close_assault"]["rows"][str(total)][diff]      # 7.9
        ctx.emit(E.AssaultResolved(index=i, target=a.target, defender=d.id, attackers=[u.id for u in attackers],
                                   differential=diff, modifiers=mods, rolls=[die], total=total, result=result))
    elif stage == "eliminate":
        ctx.emit(E.UnitEliminated(unit=a.defender, reason=f"close assault on {a.target}", rule="7.5"))
    elif stage == "lose":
        alive = [x for x in a.attackers if not st.units[x].eliminated]
        if a.lose in alive:
            pick = a.lose
        elif len(alive) == 1:
            pick = alive[0]
        else:
            ctx.emit(E.DecisionRequired(side=ctx.side, decision="lose", combat=i, units=alive,
                                        options=[[x] for x in alive], rule="7.5"))
            return
        ctx.emit(E.UnitEliminated(unit=pick, reason=f"Ae in the close assault on {a.target}", rule="7.5"))
    elif stage == "advance":
        options = advance_options(st, sc, a)
        if not options:
            ctx.emit(E.CombatFinished(index=i))
        elif a.advance == "-":
            ctx.emit(E.AdvanceDeclined(index=i))
        elif a.advance in options:
            ctx.emit(E.UnitAdvanced(unit=a.advance, path=[a.target]))
        else:
            ctx.emit(E.DecisionRequired(side=ctx.side, decision="advance", combat=i, units=options,
                                        options=[[x] for x in options], rule="7.6"))
    else:
        ctx.emit(E.CombatFinished(index=i))


def advance_options(st: EbenEmaelState, sc: Scenario, a: AssaultAction) -> list[str]:
    """7.6: one victorious attacker may move into the vacated hex, never a German
    into an undestroyed fortification (4.8)."""
    h = a.target
    if squads_at(st, sc).get(h):
        return []
    out = []
    for uid in a.attackers:
        u = st.units[uid]
        if u.eliminated or u.hex is None:
            continue
        if u.side == GERMAN and undestroyed_fort(st, sc, h) is not None:
            continue
        out.append(uid)
    return out


def answer(ctx: Ctx, order: O.Order) -> None:
    """The attacker's answer to the decision the game waits for: lose (7.5) or advance (7.6)."""
    st, sc = ctx.state, ctx.sc
    d = st.decision
    assert d is not None
    if ctx.side != d.side:
        raise OrderError(f"the game waits for {sc.side_name(d.side)} to choose ({d.kind})", d.rule)
    a = st.actions[d.combat]
    if d.kind == "lose":
        if not (isinstance(order, O.GameVerb) and order.word == "lose" and len(order.args) == 1):
            raise OrderError(f"the game waits for the unit to lose: lose UNIT, one of {', '.join(d.units)}", d.rule)
        u = unit(ctx, order.args[0], ctx.side)
        if u.id not in d.units:
            raise OrderError(f"{u.id} did not take part; choose one of {', '.join(d.units)}", d.rule)
        ctx.emit(E.UnitEliminated(unit=u.id, reason=f"Ae in the close assault on {a.target}", rule="7.5"))
    else:
        if not isinstance(order, O.Advance):
            raise OrderError(f"the game waits for an advance: advance UNIT (one of {', '.join(d.units)}) "
                             "or no-advance", d.rule)
        if order.unit == "-":
            ctx.emit(E.AdvanceDeclined(index=d.combat))
        else:
            u = unit(ctx, order.unit, ctx.side)
            if u.id not in d.units:
                raise OrderError(f"{u.id} may not advance; choose one of {', '.join(d.units)}", d.rule)
            ctx.emit(E.UnitAdvanced(unit=u.id, path=[a.target]))


# --- demolition (8.0) -------------------------------------------------------------------------------


def resolve_demolition(ctx: Ctx, a: DemolitionAction) -> None:
    st, sc = ctx.state, ctx.sc
    h, u = a.fort, st.units[a.unit]
    dem = gd(sc)["demolition"]
    rating = int(dem["charge"] if a.charge else dem["normal"])               # 8.1
    if undestroyed_fort(st, sc, h) is None:
        ctx.emit(E.DemolitionResolved(fort=h, unit=u.id, rating=rating, modifiers=[], rolls=[], total=0,
                                      destroyed=False, wasted=True))          # 8.2
        return
    mods = []
    if u.hex and features(sc, u.hex, h) & {"ridge", "slope"}:
        mods.append("+1 through a ridge or slope hexside (8.5)")
    die = ctx.dice.roll(6)
    total = die + len(mods)
    ok = total <= rating
    ctx.emit(E.DemolitionResolved(fort=h, unit=u.id, rating=rating, modifiers=mods, rolls=[die], total=total,
                                  destroyed=ok))
    if ok:
        fake = dummies(ctx)
        if h in fake:
            open_secret(ctx, fake[h])                                          # 9.5
        check_decided(ctx)
