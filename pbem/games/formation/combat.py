"""The Combat Action (7.4) from declaration to Battle Victory, and what the
game waits for meanwhile.

Order: ``attack HEX with UNIT ... [hasty|regular|prepared] [hold|withdraw]``
(7.4.1 A).  The optional words answer in advance the attacker's later choices:
the escalation after the retreat-before-combat decision (7.4.1 C) and what the
remaining hits become (7.4.2: ``hold`` takes them as step losses, ``withdraw``
converts the first into a retreat; default ``withdraw``).

Decisions, each an answer, a standing order or a wait (documented defaults):
- the defender's retreat before combat (7.4.1.1): ``doctrine rbc never|always``
  or the answer ``rbc HEX ...`` (the free move) / ``rbc no``; with ``always`` the
  free move is one hex chosen like a retreat; with neither, the game waits;
- the escalation: the inline word, else the game waits for ``escalate KIND``
  (hasty at once when no AP is left for more, or the stack is out of command);
- the defender's hits: ``doctrine combat hold|withdraw [armour tank|at|best]
  [bonus pass|refit|improve|ask]`` (default hold, best armour choice);
- the defender's Battle Victory bonus (7.4.3): any action with the winning units
  (bonus.py), or the doctrine's ``bonus``; with none the game waits.
"""
from __future__ import annotations

import re

from pbem.core import orders as O
from pbem.core.orders import OrderError
from pbem.core.ruleset import Ctx, find_unit
from pbem.games.formation import board as B
from pbem.games.formation import combat_events as CE
from pbem.games.formation import events as E
from pbem.games.formation.combat_math import rbc_blockers, rbc_drm
from pbem.games.formation.combat_state import Combat
from pbem.games.formation.command import in_command
from pbem.games.formation.effectiveness import ec
from pbem.games.formation.losses import first_loss, plan_rest, spread, victory
from pbem.games.formation.resolve import draw_chit, fighter, live, resolve
from pbem.games.formation.retreats import hq_alone, lose, retreat, retreat_search
from pbem.games.formation.snafu import d10
from pbem.games.formation.state import Activation, FormationState, other
from pbem.games.formation.movement import stack_ma, walk

KINDS = ("hasty", "regular", "prepared")
EXTRA = {"hasty": 0, "regular": 1, "prepared": 2}           # 7.1: escalation costs
CHOICES = ("hold", "withdraw")
COMBAT_VERBS = frozenset({"rbc", "escalate", "bonus"})
BONUS_USES = ("pass", "refit", "improve", "ask")            # doctrine combat ... bonus USE (7.4.3)


# --- standing orders ----------------------------------------------------------------

def parse_doctrine(topic: str, text: str) -> dict[str, str]:
    """``doctrine rbc never|always|ask`` and ``doctrine combat [hold|withdraw] [armour
    tank|at|best] [bonus pass|refit|improve|ask]``; raises OrderError on anything else."""
    toks = text.lower().split()
    if topic == "rbc":
        if toks not in (["never"], ["always"], ["ask"]):
            raise OrderError("doctrine rbc never|always|ask", "7.4.1.1")
        return {"rbc": toks[0]}
    out: dict[str, str] = {}
    i = 0
    while i < len(toks):
        t = toks[i]
        if t in CHOICES:
            out["hits"] = t
        elif t in ("armour", "armor") and i + 1 < len(toks) and toks[i + 1] in ("tank", "at", "best"):
            out["armour"], i = toks[i + 1], i + 1
        elif t == "bonus" and i + 1 < len(toks) and toks[i + 1] in BONUS_USES:
            out["bonus"], i = toks[i + 1], i + 1
        else:
            raise OrderError("doctrine combat [hold|withdraw] [armour tank|at|best] "
                             "[bonus pass|refit|improve|ask]", "7.4.2, 7.4.3")
        i += 1
    return out


def doctrine_of(st: FormationState, side: str, topic: str) -> dict[str, str]:
    text = st.fm.doctrines.get(side, {}).get(topic, "")
    try:
        return parse_doctrine(topic, text) if text else {}
    except OrderError:
        return {}


# --- A. the declaration ----------------------------------------------------------------

def handle_attack(ctx: Ctx, order: O.Attack) -> None:
    """7.4.1 A: a Hasty Attack by units of one hex against one adjacent enemy hex."""
    st, sc = ctx.state, ctx.sc
    act = st.fm.active
    if order.retreat or order.attacker_retreat or order.advance or order.ex_loss:
        raise OrderError("a Formation Series attack takes: attack HEX with UNIT ... [hasty|regular|prepared] "
                         "[hold|withdraw] (the owner retreats his own units; there is no advance)", "7.4")
    words = [w.lower() for w in order.attackers]
    escalate = next((w for w in words if w in KINDS), "")
    choice = next((w for w in words if w in CHOICES), "withdraw")
    ids = [find_unit(ctx, w, ctx.side, on_map=True).id for w, low in zip(order.attackers, words)
           if low not in KINDS and low not in CHOICES]
    if not ids:
        raise OrderError("name the attacking units: attack HEX with UNIT ...", "7.4.1 A")
    if len(set(ids)) != len(ids):
        raise OrderError("a unit is named twice")
    hexes = {st.units[u].hex for u in ids}
    if len(hexes) != 1:
        raise OrderError("the attackers must be one unit or units of one hex", "7.4.1 A")
    here = hexes.pop()
    if order.target == here:
        raise OrderError(f"the attackers are in {here}: attack a hex next to it, held by the enemy", "7.4")
    if not sc.board.grid.adjacent(here, order.target):
        raise OrderError(f"{order.target} is not next to {here}", "7.4")
    defenders = [u.id for u in B.combat_units(st, sc, order.target) if u.side != ctx.side]
    if not defenders:
        raise OrderError(f"{order.target} holds no enemy combat unit", "7.4")
    for u in ids:
        if B.is_hq(sc, u) or B.is_static(sc, u):
            raise OrderError(f"{u} may not attack (HQs and static units never do)", "3.2.1, 3.3")
        if not B.may_act(st, sc, u):
            raise OrderError(f"{u} is not of {B.acting(st)}", "7.4.3" if act.defender else "5.5.1")
        if st.units[u].disrupted:
            raise OrderError(f"{u} is disrupted and may not attack", "5.6.3")
    ooc = any(not in_command(st, sc, u) for u in ids)
    cost = 2 if ooc else 1                                   # 5.8.3: double cost, hasty only
    if ooc and escalate in ("regular", "prepared"):
        raise OrderError("out-of-command units attack only hasty", "5.8.3")
    avail = _bonus_for(act, ids)
    bonus = min(avail, cost)
    if act.ap + avail < cost + EXTRA.get(escalate, 0):
        raise OrderError(f"{act.formation} has {act.ap} AP; this attack needs {cost + EXTRA.get(escalate, 0)}", "7.0")
    if here in st.fm.improved:
        ctx.emit(E.ImprovedDefense(hex=here, on=False, reason="a unit in the hex attacks"))
    ctx.emit(E.APSpent(formation=act.formation, ap=cost, action="hasty attack", bonus=bonus))
    ctx.emit(CE.CombatDeclared(side=ctx.side, formation=B.formation_of(sc, ids[0]), hex=here, target=order.target,
                               attackers=ids, defenders=defenders, escalate=escalate, loss=choice, ooc_cost=cost))
    proceed(ctx)


def _bonus_for(act, ids: list[str]) -> int:
    """7.4.3: Battle Victory bonus APs the units ``ids`` may spend (only the winners may)."""
    return act.bonus if act.bonus and all(u in act.bonus_units for u in ids) else 0


# --- B. retreat before combat --------------------------------------------------------------

def rbc_room(st, sc, cb: Combat) -> list[str]:
    """Hexes the defending stack could move into first (7.4.1.1: not next to the attacking stack)."""
    side = st.units[cb.defenders[0]].side
    kinds = {B.move_type(sc, u) for u in cb.defenders}
    return [n for n in sc.board.grid.neighbours(cb.target)
            if n != cb.hex and not sc.board.grid.adjacent(n, cb.hex) and not B.occupied_by(st, n, other(side))
            and not B.barrier(sc, cb.target, n) and B.step_cost(sc, kinds, cb.target, n, road_ok=False) is not None]


def rbc_reasons(st, sc, cb: Combat) -> list[str]:
    why = rbc_blockers([fighter(st, sc, u) for u in cb.defenders])
    if not rbc_room(st, sc, cb):
        why.append("no hex to retreat into")
    return why


def _stack_units(st, sc, cb: Combat) -> list[str]:
    """Every unit of the defending hex on the defender's side (its HQ moves with it)."""
    side = st.units[cb.defenders[0]].side
    return [u.id for u in B.stack(st, cb.target) if u.side == side]


def _default_rbc_path(st, sc, cb: Combat) -> list[str]:
    """Our default free move for ``doctrine rbc always``: one hex, chosen like a retreat."""
    side = st.units[cb.defenders[0]].side
    room = set(rbc_room(st, sc, cb))
    ez = B.zoc_hexes(st, sc, other(side))
    path, _, _ = retreat_search(sc.board.grid, cb.target, cb.hex, 1, forced=False,
                                allowed=lambda a, b: b in room, ezoc=lambda h: h in ez, goal=lambda h: 0)
    return path or sorted(room)[:1]


def _check_rbc_path(ctx: Ctx, cb: Combat, path: list[str]) -> None:
    st, sc = ctx.state, ctx.sc
    units = [u for u in _stack_units(st, sc, cb) if not B.is_hq(sc, u)]
    here = cb.target
    for h in path:
        if sc.board.grid.adjacent(here, h) and B.barrier(sc, here, h):
            raise OrderError(f"no retreat before combat across the ridge or wadi between {here} and {h}", "13.2.2")
        here = h
        if h == cb.hex or sc.board.grid.adjacent(h, cb.hex):
            raise OrderError(f"the retreat before combat may not enter {h}, next to the attacking stack", "7.4.1.1")
    walk(st, sc, units, cb.target, path, stack_ma(st, sc, units))


def rbc_answer(ctx: Ctx, cb: Combat, path: list[str] | None, by: str) -> None:
    """The defender tries (``path`` given) or not (None)."""
    st, sc = ctx.state, ctx.sc
    dside = st.units[cb.defenders[0]].side
    if path is None:
        ctx.emit(CE.RbCDecided(side=dside, attempt=False, reason="declined", by=by))
        return
    _check_rbc_path(ctx, cb, path)
    ctx.emit(CE.RbCDecided(side=dside, attempt=True, by=by))
    atk = [fighter(st, sc, u) for u in cb.attackers]
    dfn = [fighter(st, sc, u) for u in cb.defenders]
    a_drm, a_unit = rbc_drm(atk, dfn, defending=False)
    d_drm, d_unit = rbc_drm(dfn, atk, defending=True)
    a, ar = d10(ctx, cb.side, "rbc", lambda v: v >= 6)
    d, dr = d10(ctx, dside, "rbc", lambda v: v + d_drm > a + a_drm)
    ok = d + d_drm > a + a_drm
    ctx.emit(CE.RbCRolled(side=dside, rolls=ar + dr, att_roll=a, def_roll=d, att_drm=a_drm, def_drm=d_drm,
                          att_unit=a_unit, def_unit=d_unit, success=ok))
    if ok:
        ctx.emit(CE.RbCMoved(units=_stack_units(st, sc, cb), path=path))
        ctx.emit(CE.CombatEnded(retreated=True))


# --- the flow ------------------------------------------------------------------------------------

def proceed(ctx: Ctx) -> None:
    """Carry the open combat as far as it goes without an answer."""
    st, sc = ctx.state, ctx.sc
    cb = st.fm.combat
    if cb is None:
        return
    if cb.stage == "rbc":
        why = rbc_reasons(st, sc, cb)
        dside = st.units[cb.defenders[0]].side
        if why:
            ctx.emit(CE.RbCDecided(side=dside, attempt=False, reason="; ".join(why), by="rules"))
        else:
            doc = doctrine_of(st, dside, "rbc").get("rbc", "ask")
            if doc == "ask":
                return                                       # the game waits for the defender
            rbc_answer(ctx, cb, _default_rbc_path(st, sc, cb) if doc == "always" else None, "doctrine")
        cb = st.fm.combat
        if cb is None:
            return
    if cb.stage == "escalate":
        act = st.fm.active
        if cb.escalate:
            return escalate(ctx, cb.escalate, "order")
        if cb.ooc_cost > 1 or act is None or act.ap + _bonus_for(act, cb.attackers) < 1:
            return escalate(ctx, "hasty", "rules")
        return                                               # the game waits for the attacker


def escalate(ctx: Ctx, kind: str, by: str) -> None:
    """7.4.1 C, then D-H."""
    st = ctx.state
    cb = st.fm.combat
    act = st.fm.active
    extra = EXTRA[kind]
    if extra:
        if cb.ooc_cost > 1:
            raise OrderError("out-of-command units attack only hasty", "5.8.3")
        bonus = _bonus_for(act, cb.attackers)
        if act.ap + bonus < extra:
            raise OrderError(f"{act.formation} has {act.ap + bonus} AP left; a {kind} attack needs {extra} more",
                             "7.1")
        ctx.emit(E.APSpent(formation=act.formation, ap=extra, action=f"{kind} attack", bonus=min(bonus, extra)))
    ctx.emit(CE.CombatEscalated(attack=kind, by=by))
    fight(ctx)


def fight(ctx: Ctx) -> None:
    """7.4.1 D-H: chits, resolution, hits (defender first), Battle Victory."""
    st, sc = ctx.state, ctx.sc
    cb = st.fm.combat
    dside = st.units[cb.defenders[0]].side
    doc = doctrine_of(st, dside, "combat")
    before = {u for u in cb.defenders if st.units[u].disrupted}
    res = resolve(ctx, cb, draw_chit(ctx), draw_chit(ctx), doc.get("armour", "best"))
    ev = next(e for e in reversed(ctx.events) if isinstance(e, CE.CombatResolved))
    left: list[str] = [cb.target, cb.hex]
    left += hits(ctx, cb, cb.defenders, res.deff, res.def_red, ev.def_as, attacker=False,
                 choice=doc.get("hits", "hold"), before=before)
    left += hits(ctx, cb, cb.attackers, res.att, res.att_red, ev.att_as, attacker=True, choice=cb.loss or "withdraw",
                 before=set())
    hq_alone(ctx, left)
    win = victory(res.att, res.deff, bool(live(st, cb.attackers)), bool(live(st, cb.defenders)))
    winners = live(st, cb.attackers if win == "attacker" else cb.defenders) if win else []
    units = [u for u in winners if in_command(st, sc, u) and not B.is_static(sc, u)]   # 7.4.3, 3.2.1
    bonus = 0
    if units:
        bonus = 2 if st.fm.schwerpunkt and any(B.formation_of(sc, u) == st.fm.schwerpunkt for u in units) else 1
    side = cb.side if win == "attacker" else dside
    ctx.emit(CE.CombatEnded(winner=side if bonus else "", bonus=bonus, units=units))
    if win == "defender" and bonus:
        from pbem.games.formation.bonus import standing       # bonus.py acts through actions.py, which imports us
        standing(ctx)                                          # 7.4.3: the defender spends it now


def hits(ctx: Ctx, cb: Combat, ids: list[str], n: int, red: bool, as_unit: str, *, attacker: bool, choice: str,
         before: set[str]) -> list[str]:
    """7.4.2 for one side: the first step loss, ECs on a red result, the rest (plan_rest)."""
    st = ctx.state
    units = {u: st.units[u].strength for u in live(st, ids)}
    if n <= 0 or not units:
        return []
    taken: dict[str, int] = {}
    u1 = first_loss(units, as_unit)
    lose(ctx, u1, 1, "first hit", "7.4.2")
    taken[u1] = 1
    failed: set[str] = set()
    if red:
        for u in live(st, ids):
            if not ec(ctx, u, "combat", combat=True):
                failed.add(u)
    alive_now = {u: st.units[u].strength for u in live(st, ids)}
    statics = {u for u in alive_now if B.is_static(ctx.sc, u)}
    if statics and statics == set(alive_now):
        choice = "hold"                                      # 3.2.1: static units never retreat
    plan = plan_rest(n - 1, alive_now, attacker=attacker, red=red, failed=failed & set(alive_now),
                     disrupted_before=before, choice="hold" if choice == "hold" else "retreat", taken=taken)
    for u in plan.steps:
        lose(ctx, u, 1, "hit", "7.4.2.1")
        taken[u] = taken.get(u, 0) + 1
    left: list[str] = []
    ref = cb.target if attacker else cb.hex                   # each retreat hex farther from the enemy
    for g in plan.retreats:
        stay = [u for u in live(st, g.units) if u in statics]
        for u in stay:
            if g.forced:                                     # 3.2.1: a static unit forced to retreat is lost
                lose(ctx, u, st.units[u].strength, "static unit forced to retreat", "3.2.1")
        if stay and not g.forced:                            # 3.2.1: it takes the hits as step losses instead
            for u in spread(g.hexes, {u: st.units[u].strength for u in stay}, taken):
                lose(ctx, u, 1, "hit (static unit)", "3.2.1, 7.4.2.1")
        movers = [u for u in live(st, g.units) if u not in statics]
        gone, short = retreat(ctx, movers, ref, g.hexes, g.forced)
        left += gone
        if short:      # our reading: a voluntary retreat that cannot be made is taken as step losses
            for u in spread(short, {u: st.units[u].strength for u in live(st, movers)}, taken):
                lose(ctx, u, 1, "hit (no room to retreat)", "7.4.2, 7.4.2.1")
    return left


def handle_combat(ctx: Ctx, order: O.Order) -> None:
    """Answers while a combat is open: ``rbc``, ``escalate``."""
    st, sc = ctx.state, ctx.sc
    cb = st.fm.combat
    word = order.word if isinstance(order, O.GameVerb) else ""
    args = [a.lower() for a in getattr(order, "args", [])]
    dside = st.units[cb.defenders[0]].side
    if cb.stage == "rbc":
        if ctx.side != dside or word != "rbc":
            raise OrderError(f"the combat at {cb.target} waits for {sc.side_name(dside)}: rbc HEX ... | rbc no",
                             "7.4.1.1")
        if args in (["no"], ["pass"]):
            rbc_answer(ctx, cb, None, "answer")
        else:
            path = list(args)
            if not path or not all(re.fullmatch(r"[0-9]{4}", h) for h in path):
                raise OrderError("rbc HEX [HEX ...] (the free move) | rbc no", "7.4.1.1")
            rbc_answer(ctx, cb, path, "answer")
        return proceed(ctx)
    if cb.stage == "escalate":
        if ctx.side != cb.side or word != "escalate" or len(args) != 1 or args[0] not in KINDS:
            raise OrderError(f"the combat at {cb.target} waits for {sc.side_name(cb.side)}: "
                             "escalate hasty|regular|prepared", "7.4.1 C")
        return escalate(ctx, args[0], "answer")
    raise OrderError("the combat is being resolved")


# --- what the game waits for, deadline defaults ---------------------------------------------------

def combat_awaiting(st: FormationState, sc) -> list[dict]:
    cb = st.fm.combat
    if cb is None:
        return []
    dside = st.units[cb.defenders[0]].side
    if cb.stage == "rbc":
        return [{"side": dside, "kind": "retreat before combat", "rule": "7.4.1.1", "combat": cb.target,
                 "units": list(cb.defenders), "order": "rbc HEX [HEX ...] (the free move, not next to "
                 f"{cb.hex}) | rbc no; or doctrine rbc never|always"}]
    if cb.stage == "escalate":
        return [{"side": cb.side, "kind": "attack escalation", "rule": "7.4.1 C", "combat": cb.target,
                 "order": "escalate hasty|regular|prepared (+0/+1/+2 AP)"}]
    return []


def combat_defaults(st: FormationState, sc, side: str) -> list[str]:
    """Deadline defaults: no retreat before combat, a hasty attack."""
    for item in combat_awaiting(st, sc):
        if item["side"] == side:
            return {"retreat before combat": ["rbc no"], "attack escalation": ["escalate hasty"]}[item["kind"]]
    return []


# --- the reducers ---------------------------------------------------------------------------------

def _declared(st: FormationState, ev: CE.CombatDeclared, sc) -> None:
    st.fm.combat = Combat(side=ev.side, formation=ev.formation, hex=ev.hex, target=ev.target,
                          attackers=list(ev.attackers), defenders=list(ev.defenders), escalate=ev.escalate,
                          loss=ev.loss, ooc_cost=ev.ooc_cost)


def _rbc_decided(st: FormationState, ev: CE.RbCDecided, sc) -> None:
    if not ev.attempt:
        st.fm.combat.stage = "escalate"


def _rbc_rolled(st: FormationState, ev: CE.RbCRolled, sc) -> None:
    cb = st.fm.combat
    cb.rbc = "succeeded" if ev.success else "failed"
    if not ev.success:
        cb.stage = "escalate"


def _rbc_leaving(st: FormationState, ev: CE.RbCMoved, sc) -> None:
    _unmark(st, [st.units[ev.units[0]].hex, ev.path[-1]])     # before the core moves the stack


def _escalated(st: FormationState, ev: CE.CombatEscalated, sc) -> None:
    st.fm.combat.kind = ev.attack
    st.fm.combat.stage = "fight"


def _step_lost(st: FormationState, ev: CE.StepLost, sc) -> None:
    st.units[ev.unit].strength = ev.strength


def _unmark(st: FormationState, hexes: list[str]) -> None:
    """7.6: the Improved Defense marker goes when a unit leaves or enters its hex."""
    for h in hexes:
        if h in st.fm.improved:
            st.fm.improved.remove(h)


def _retreated(st: FormationState, ev: CE.CombatRetreated, sc) -> None:
    start = st.units[ev.units[0]].hex
    if ev.off:                     # 13.2.4.1: back as a reinforcement next turn
        for u in ev.units:
            st.units[u].hex = None
            st.units[u].waiting = f"turn {st.turn + 1}"
            st.fm.off_map[u] = st.turn + 1
        _unmark(st, [start])
        return
    if not ev.path:
        return
    for u in ev.units:
        st.units[u].hex = ev.path[-1]
    _unmark(st, [start, ev.path[-1]])


def _disrupted(st: FormationState, ev: CE.OverstackDisrupted, sc) -> None:
    for u in ev.units:
        st.units[u].disrupted = True
    _unmark(st, [ev.hex])


def _displaced(st: FormationState, ev: CE.UnitDisplaced, sc) -> None:
    if ev.to:
        st.units[ev.unit].hex = ev.to
        _unmark(st, [ev.frm, ev.to])


def _ended(st: FormationState, ev: CE.CombatEnded, sc) -> None:
    fm = st.fm
    cb, act = fm.combat, fm.active
    fm.combat = None
    if not ev.bonus or cb is None or act is None:
        return
    if ev.winner == cb.side:
        act.bonus, act.bonus_units = ev.bonus, list(ev.units)     # 7.4.3: a new victory replaces an unspent bonus
        return
    # 7.4.3: the winning defender spends its bonus now, with the units that won: its own short
    # "activation" of bonus APs only, then the interrupted activation goes on
    fm.interrupted.append(act)
    fm.active = Activation(formation=B.formation_of(sc, ev.units[0]), side=ev.winner, ap=0, bonus=ev.bonus,
                           bonus_units=list(ev.units), defender=True)


def _bonus_ended(st: FormationState, ev: CE.BonusActionsEnded, sc) -> None:
    fm = st.fm
    fm.active = fm.interrupted.pop() if fm.interrupted else None


def _nothing(st, ev, sc) -> None:
    """Facts for the report only."""


COMBAT_BEFORE = {CE.RbCMoved: _rbc_leaving}
COMBAT_REDUCERS = {
    CE.CombatDeclared: _declared, CE.RbCDecided: _rbc_decided, CE.RbCRolled: _rbc_rolled, CE.RbCMoved: _nothing,
    CE.CombatEscalated: _escalated, CE.ChitsDrawn: _nothing, CE.CombatResolved: _nothing, CE.StepLost: _step_lost,
    CE.CombatRetreated: _retreated, CE.OverstackDisrupted: _disrupted, CE.UnitDisplaced: _displaced,
    CE.CombatEnded: _ended, CE.BonusActionsEnded: _bonus_ended,
}
