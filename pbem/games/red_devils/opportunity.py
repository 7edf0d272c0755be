"""Opportunity fire (5.0-5.4): the sides' standing doctrines, who may fire, the
shot, and a move carried out hex by hex that pauses (MovePaused) where the
other side must answer: fire or pass (5.0, 5.1), or the railway bridge (11.0).

Opportunity fire is a decision of the non-phasing player taken in the middle
of the phasing player's move.  Each side may give a standing *doctrine*
(``doctrine always | never | ask | fire-at differential>=N``, per firing unit
exceptions ``doctrine UNIT ...``, cleared again with ``doctrine UNIT
default``), recorded as a DoctrineSet event and applied automatically; each
shot is an OpportunityFire event.  Where the doctrine says ``ask`` (the
default when none is given) the move pauses and resumes on the answer
``fire UNIT ...`` or ``pass`` (answers.py)."""
from __future__ import annotations

from pbem.core.orders import OrderError
from pbem.core.ruleset import Ctx, find_unit
from pbem.core.scenario import Scenario
from pbem.core.state import UnitState
from pbem.mechanics.movement import units_at
from pbem.games.red_devils import events as E
from pbem.games.red_devils.combat import column_index
from pbem.games.red_devils.state import Doctrine, Pending, RedDevilsState
from pbem.games.red_devils.terms import demolish
from pbem.games.red_devils.terrain import FERRY, entry_letter, gd, is_artillery, path_cost, rng, terrain
from pbem.mechanics.pathcost import ceil_mp, fmt, frac


# --- doctrine (5.0; 7.6 Dd; 11.0 the bridge) -------------------------------------------

def _doctrine_value(words: list[str]) -> str:
    w = [x.lower() for x in words]
    if w in (["always"], ["fire"], ["fire-at", "any"]):
        return "always"
    if w in (["never"], ["pass"]):
        return "never"
    if w == ["ask"]:
        return "ask"
    if len(w) == 2 and w[0] == "fire-at" and w[1].startswith("differential>="):
        n = w[1][len("differential>="):]
        try:
            return f"diff>={int(n)}"
        except ValueError:
            pass
    raise OrderError("a doctrine is: always | never | ask | fire-at differential>=N", "5.0")


def doctrine_words(value: str) -> str:
    """A stored doctrine value in the order's own words."""
    return f"fire-at differential>={value[6:]}" if value.startswith("diff>=") else value


def doctrine_order(ctx: Ctx, args: list[str]) -> None:
    """doctrine always|never|ask|fire-at differential>=N; doctrine UNIT ...; doctrine UNIT default
    (the unit follows the side's doctrine again); doctrine dd disrupt|ask; doctrine bridge demolish|spare|ask."""
    st: RedDevilsState = ctx.state
    sc = ctx.sc
    if not args:
        raise OrderError("doctrine needs a value: doctrine always | never | ask | fire-at differential>=N", "5.0")
    cur = st.doctrine.get(ctx.side, Doctrine())
    new = Doctrine(default=cur.default, units=dict(cur.units), retreat=cur.retreat, bridge=cur.bridge)
    head = args[0].lower()
    if head == "dd":
        if args[1:] not in (["disrupt"], ["ask"]):
            raise OrderError("doctrine dd disrupt | ask (the standing answer to a Dd result)", "7.6")
        new.retreat = "" if args[1] == "ask" else "disrupt"
    elif head == "bridge":
        if ctx.side != "german" or len(args) != 2 or args[1] not in ("demolish", "spare", "ask"):
            raise OrderError("doctrine bridge demolish | spare | ask (German only)", "11.0")
        new.bridge = "" if args[1] == "ask" else args[1]
    elif head in ("always", "never", "ask", "fire", "pass", "fire-at"):
        new.default = _doctrine_value(args)
    elif head == "default":
        raise OrderError("default clears one unit's exception: doctrine UNIT default; the side's own "
                         "doctrine is: always | never | ask | fire-at differential>=N", "5.0")
    elif [w.lower() for w in args[1:]] == ["default"]:
        u = find_unit(ctx, args[0], ctx.side, on_map=False, alive=False)
        if u.id not in new.units:
            raise OrderError(f"{u.id} has no doctrine exception to clear: it already follows the "
                             f"{sc.side_name(ctx.side)} doctrine ({doctrine_words(new.default)})", "5.0")
        del new.units[u.id]
        ctx.emit(E.DoctrineSet(side=ctx.side, default=new.default, units=new.units, retreat=new.retreat,
                               bridge=new.bridge, cleared=u.id))
        return
    else:
        u = find_unit(ctx, args[0], ctx.side, on_map=False)
        try:
            new.units[u.id] = _doctrine_value(args[1:])
        except OrderError:
            raise OrderError(f"doctrine {u.id} always | never | ask | fire-at differential>=N, or default "
                             f"(back to the side's doctrine)", "5.0") from None
    ctx.emit(E.DoctrineSet(side=ctx.side, default=new.default, units=new.units, retreat=new.retreat,
                           bridge=new.bridge))


def doctrine_says(st: RedDevilsState, side: str, firer: str, diff: int) -> str:
    """'fire', 'pass' or 'ask' for one firing unit at one differential (5.0)."""
    d = st.doctrine.get(side, Doctrine())
    v = d.units.get(firer, d.default)
    if v == "always":
        return "fire"
    if v == "never":
        return "pass"
    if v.startswith("diff>="):
        return "fire" if diff >= int(v[6:]) else "pass"
    return "ask"


# --- who fires, and the shot (5.0-5.4) ----------------------------------------------------

def city_between(sc: Scenario, a: str, b: str) -> bool:
    """5.4: a city hex, or a hexside of one, lies between two hexes two apart."""
    for p, m in sc.board.grid.line_pairs(a, b)[1:-1]:
        if terrain(sc, p) == "city" or terrain(sc, m) == "city":
            return True
    return False


def eligible_firers(st: RedDevilsState, sc: Scenario, target: UnitState, h: str, landing: bool = False,
                    adjacent_only: bool = False) -> list[str]:
    """Undisrupted non-artillery enemy units with ``h`` in range that have not yet fired at the target (5.0-5.4)."""
    if target.id in st.hit:
        return []
    grid = sc.board.grid
    out = []
    near = _within_two(grid, h)                           # a range above two is artillery's (6.6)
    for f in st.units.values():
        if f.hex not in near or f.side == target.side or f.eliminated or f.disrupted:
            continue
        if is_artillery(sc, f.id) or f"{f.id}>{target.id}" in st.fired:
            continue
        d = grid.distance(f.hex, h)
        if d > rng(sc, f.id) or (adjacent_only and d != 1):
            continue
        if terrain(sc, h) == "city" and d > 1:
            continue                                      # 5.4 into a city: adjacent firers only
        if d == 2 and city_between(sc, f.hex, h):
            continue                                      # 5.4 no range-2 fire through a city
        out.append(f.id)
    return sorted(out)


def _within_two(grid, h: str) -> frozenset[str]:
    """The hexes at most two from ``h`` (``grid.within``), once per grid and hex."""
    memo = grid.memo("red_devils.within2")
    got = memo.get(h)
    if got is None:
        got = frozenset(grid.within(h, 2))
        if grid.contains(h):
            memo[h] = got
    return got


def fire_round(ctx: Ctx, target: UnitState, h: str, firers: list[str], mult: int, swim: bool) -> list[str]:
    """Doctrine fires at once (in id order); returns the firers whose owner must be asked."""
    st: RedDevilsState = ctx.state
    side = st.units[firers[0]].side if firers else ""
    ask = []
    for f in firers:
        t = st.units[target.id]
        if t.eliminated or t.id in st.hit:
            return []
        diff = st.units[f].strength * mult - t.strength
        say = doctrine_says(st, side, f, diff)
        if say == "fire":
            shoot(ctx, f, target.id, h, mult, swim, by="doctrine")
        elif say == "ask":
            ask.append(f)
    t = st.units[target.id]
    if t.eliminated or t.id in st.hit:
        return []
    return ask


def shoot(ctx: Ctx, firer: str, target: str, h: str, mult: int, swim: bool, by: str) -> None:
    """One shot (5.2): the differential's column, terrain shifts (5.4), the result (5.3)."""
    st, sc = ctx.state, ctx.sc
    f, t = st.units[firer], st.units[target]
    fs = f.strength * mult
    diff = fs - t.strength
    col = column_index(max(diff, -3))                     # 5.2: below -3 use -3
    shifts = []
    terr = terrain(sc, h)
    if swim:
        shifts.append("no terrain benefit while swimming the Neder Rijn (4.6)")
    elif terr in ("city", "rough"):
        col -= 2
        shifts.append(f"target in {terr}: two columns left (5.4)")
    elif terr in ("town", "woods"):
        col -= 1
        shifts.append(f"target in {terr}: one column left (5.4)")
    col = max(0, min(col, len(sc.crt.columns) - 1))
    if mult == 2:
        shifts.insert(0, f"{f.id} fires at double strength at a landing unit (9.3)")
    die = ctx.dice.roll(sc.die)
    res = sc.crt.rows[str(die)][col]
    ctx.emit(E.OpportunityFire(firer=firer, target=target, hex=h, fire_strength=fs, target_strength=t.strength,
                               differential=diff, column=sc.crt.columns[col], shifts=shifts, rolls=[die],
                               result=res, by=by))
    if res == "De*":
        res = "Dd" if terr == "city" else "De"
    if res == "De":
        ctx.emit(E.UnitEliminated(unit=target, reason=f"opportunity fire by {firer}: De", rule="5.0"))
    elif res == "Dd":
        stacked = [u for u in units_at(st).get(h, []) if u.id != target]
        if swim:
            ctx.emit(E.UnitEliminated(unit=target, reason="disrupted while swimming the Neder Rijn", rule="4.6"))
        elif stacked:
            ctx.emit(E.UnitEliminated(unit=target, reason=f"disrupted by fire while stacked with "
                                                          f"{stacked[0].id}", rule="5.3"))
        else:
            rule = "9.3" if mult == 2 else "5.3"
            ctx.emit(E.UnitDisrupted(unit=target, reason=f"opportunity fire by {firer}", rule=rule))


# --- a move carried out, paused for answers (5.0, 5.1, 11.0) ---------------------------------

def _flush(ctx: Ctx, mv: Pending, done: list[str]) -> None:
    if done:
        sp = frac(mv.spent)
        ctx.emit(E.UnitMoved(unit=mv.unit, path=list(done), mp=ceil_mp(sp), ma=mv.ma, cost=fmt(sp)))
        done.clear()


def _pause(ctx: Ctx, side: str, mv: Pending, here: str, question: str, firers: list[str], context: str,
           then: str, rule: str) -> None:
    ctx.emit(E.MovePaused(side=side, unit=mv.unit, hex=here, question=question, firers=firers,
                          remaining=mv.remaining, costs=mv.costs, spent=mv.spent, ma=mv.ma, mode=mv.mode,
                          swim=mv.swim, off=mv.off, context=context, then=then, rule=rule))


def walk(ctx: Ctx, mv: Pending, done: list[str], stage: str) -> None:
    """Carry a validated move out hex by hex: 11.0 at the railway bridge, opportunity fire
    (5.1 before leaving, 5.0 on each hex entered), pausing where an answer is needed."""
    st: RedDevilsState = ctx.state
    sc = ctx.sc
    u = st.units[mv.unit]
    other = "german" if u.side == "british" else "british"
    here = done[-1] if done else (mv.hex or None)
    pc = path_cost(st, sc, u.id, mv.mode == "mech")
    while True:
        if u.eliminated or u.id in st.hit:
            _flush(ctx, mv, done)
            return
        if stage == "start":
            firers = eligible_firers(st, sc, u, here, adjacent_only=True)   # 5.1
            ask = fire_round(ctx, u, here, firers, 1, False)
            if ask:
                _pause(ctx, other, mv, here, "fire", ask, "start", "step", "5.1")
                return
            stage = "step"
            continue
        if stage == "step":
            if not mv.remaining:
                if mv.off:
                    _flush(ctx, mv, done)
                    ctx.emit(E.UnitExited(unit=u.id, hex=here, letter=entry_letter(sc, here)))
                    return
                _flush(ctx, mv, done)
                return
            h = mv.remaining[0]
            if here is not None and not mv.swim and pc.step(here, h) is None \
                    and not (FERRY in sc.board.side_features(here, h)):
                _flush(ctx, mv, done)                     # 11.0: the bridge went down under it
                return
            mv.spent = mv.costs[0]
            mv.remaining, mv.costs = mv.remaining[1:], mv.costs[1:]
            done.append(h)
            here = h
            stage = "bridge"
            continue
        if stage == "bridge":
            stage = "fire"
            if u.side == "british" and here in gd(sc).get("rail_bridge", []) and st.bridge == "":
                say = st.doctrine.get("german", Doctrine()).bridge
                _flush(ctx, mv, done)
                if say == "":
                    _pause(ctx, "german", mv, here, "bridge", [], "move", "fire", "11.0")
                    return
                demolish(ctx, say == "demolish")
            continue
        if stage == "fire":
            firers = eligible_firers(st, sc, u, here)
            if firers and any(doctrine_says(st, other, f, st.units[f].strength - u.strength) != "pass"
                              for f in firers):
                _flush(ctx, mv, done)
                ask = fire_round(ctx, u, here, firers, 1, mv.swim)
                if ask:
                    _pause(ctx, other, mv, here, "fire", ask, "move", "step", "5.0")
                    return
            stage = "step"
            continue
