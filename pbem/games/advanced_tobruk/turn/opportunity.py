"""Opportunity fire (6.6) by email: a move carried out step by step, with the
standing fire orders (standing.py) applied after each step, that pauses once
for the other side's answer for the whole path ahead.

After each step of a move (a hex entered, a pivot, a turret turn) every enemy
unit that may fire at the mover (eligible.eligible_firers) follows its
standing order: ``hold`` never fires, ``any [range N]`` fires at any mover
within N hexes (else its weapon's reach), ``afv [range N]`` only at AFVs. An
``ask`` order - the default when none is given - makes the move pause
(MovePaused) at the first hex where such a unit may fire; the pause shows the
path ahead, and its owner answers once for the rest of the move: one line a
shot, ``fire UNIT[+UNIT...] [at HEX]`` (the hex where the mover stands when no
hex is named, else any hex of the path ahead), until every unit asked is named
or ``pass`` ends the answer (the units not named hold their fire). The move
then goes on, within the order that completes the answer, without pausing
again for that side: each
planned shot is taken as the mover leaves the hex named, after all its MP
there are spent, or ends its move there (6.64: ROF no more than the MP spent in
the hex unless the move ends there). A planned shot whose firers can no longer
fire is lost (reported); a shot that stops the mover (11.41 pinned, broken,
M-KILL, gone) ends the move in that hex: the rest of the path is not entered
and the shots planned there are not taken (those units may still fire in Final
Opportunity Fire, 6.65). Units already marked fired may be named for
desperation fire (15.61).

Under limited intelligence (32) each step first meets hidden enemy units in the
hex ahead (hidden.on_enter: revealed, the step not taken), then a minefield in
the hex entered (mines.on_enter), then the 32.12 flips (fow.update); only
spotted movers are fired on, and hidden firers never pause a move.
"""
from __future__ import annotations

from fractions import Fraction

from pbem.core.orders import OrderError
from pbem.core.ruleset import Ctx, find_unit
from pbem.games.advanced_tobruk.fire import continued_fire
from pbem.games.advanced_tobruk.board import cover_moves, defilade, obstacles
from pbem.games.advanced_tobruk import data, events as E
from pbem.games.advanced_tobruk.fog import fow, hidden
from pbem.games.advanced_tobruk.fire.eligible import desperation_firers, eligible_firers
from pbem.games.advanced_tobruk.fire.fire_personnel import opportunity_fire
from pbem.games.advanced_tobruk.fire.melee import overrun
from pbem.games.advanced_tobruk.turn.movement import Plan, enter_cost, parse_steps, plan, step_words
from pbem.games.advanced_tobruk.turn.sequence import activated, other
from pbem.games.advanced_tobruk.turn.standing import asks, says, standing_shot
from pbem.games.advanced_tobruk.state import Answer, Shot, TobrukState
from pbem.mechanics.pathcost import fmt, frac
from pbem.games.advanced_tobruk.turn import assault_fire
from pbem.games.advanced_tobruk.mines import mines
from pbem.games.advanced_tobruk.turn.movement import check_movers
from pbem.games.advanced_tobruk.turn.movement import stationary


# --- the move ---------------------------------------------------------------------------

def _target(st: TobrukState, sc, movers: list[str]) -> str | None:
    """The mover fired at: the first still standing (the lead of a platoon)."""
    live = [u for u in movers if not st.units[u].eliminated and st.units[u].hex is not None]
    return live[0] if live else None


def _stopped(st: TobrukState, movers: list[str]) -> bool:
    """11.41 pinned down (unless a leader is with them), broken, surrendered or gone: the move stops."""
    live = [u for u in movers if not st.units[u].eliminated and st.units[u].hex is not None]
    if not live:
        return True
    if any(st.pieces[u].broken or st.pieces[u].surrendered or st.pieces[u].m_kill or st.pieces[u].bailed
           for u in live):
        return True                                      # 13.612 an M-KILL (or bail out) stops a vehicle too
    return any(st.pieces[u].pinned for u in live)


def _hex_of(s: str) -> str | None:
    """The hex a move step enters (a hex or ``back HEX``), else None."""
    h = s[5:] if s.startswith("back:") else s
    return h if len(h) == 4 and h.isdigit() else None


def _leaves(rest: list[str]) -> bool:
    """Whether the next step of ``rest`` takes the mover out of its hex (or there is none: the move ends)."""
    nxt = [s for s in rest if s != "continue"][:1]
    return not nxt or nxt[0] == "off" or _hex_of(nxt[0]) is not None


def path_hexes(pd) -> list[str]:
    """The paused mover's hex, then the hexes its remaining steps enter."""
    return [pd.hex, *[h for h in (_hex_of(s) for s in pd.remaining) if h]]


def opportunity(ctx: Ctx, movers: list[str], here: str, spent_here: Fraction, last: bool,
                remaining: list[str], came_from: str = "", done: set[int] | None = None,
                answered: Answer | None = None) -> bool:
    """Standing orders fire at the mover, then the answered path's shots planned in ``here`` as the mover
    leaves it; True if the move may go on, False if it paused or stopped."""
    st: TobrukState = ctx.state
    sc = ctx.sc
    target = _target(st, sc, movers)
    if target is None:
        return False
    side = other(sc, st.units[target].side)
    ans = answered is not None and answered.side == side
    leaving = last or _leaves(remaining)
    if not last and int(spent_here) == 0:
        if ans and leaving:                              # 6.64: under one MP in the hex, no ROF to use
            return take_planned(ctx, movers, here, -1, set() if done is None else done, answered)
        return True
    limit = 0 if last else int(spent_here)               # 6.64 (0 = no limit), fractions rounded down (2.82)
    asked, passed = [], []
    able = eligible_firers(st, sc, target, "movement")
    shot = False                                         # no shot tried: the state is as ``able`` saw it
    for f in able:
        if st.units[f].side != side:
            continue
        say = says(st, sc, f, target)
        if hidden.is_hidden(st, f):
            # 32.2: a hidden unit fires only by a standing order that fires (any / afv); it never pauses
            # a move nor shows in the public 'did not fire' line, which would tell the mover it is there (see take_planned)
            if say == "fire":
                shot = True
                standing_shot(ctx, f, target, limit)
                if _stopped(st, movers):
                    return False
                target = _target(st, sc, movers)
            continue
        if say == "fire":
            shot = True
            if not standing_shot(ctx, f, target, limit):
                passed.append(f)
                continue
            if _stopped(st, movers):
                return False
            target = _target(st, sc, movers)
        elif say == "ask":
            if not ans:                                  # answered: its shot, if any, is planned
                asked.append(f)
        else:
            passed.append(f)
    if passed:
        ctx.emit(E.OpportunityPassed(side=side, firers=passed, target=target, hex=here, by="standing order"))
    if ans:
        return take_planned(ctx, movers, here, limit, set() if done is None else done, answered) \
            if leaving else True
    if shot:
        able = eligible_firers(st, sc, target, "movement")
    asked = [f for f in asked if f in able]
    if asked:
        ctx.emit(E.MovePaused(side=side, units=list(movers), hex=here, firers=asked, remaining=remaining,
                              spent_here=fmt(spent_here), came_from=came_from))
        return False
    return True


def take_planned(ctx: Ctx, movers: list[str], here: str, limit: int, done: set[int], ans: Answer | None) -> bool:
    """The answer's shots planned in ``here``, as the mover leaves it or ends its move there (6.6 by
    email); ``limit`` is the 6.64 ROF limit (0: none, the move ends here; -1: under one MP spent, no
    shot). False if a shot stopped the move."""
    st: TobrukState = ctx.state
    sc = ctx.sc
    for i, shot in enumerate(ans.shots if ans is not None else []):
        if shot.hex != here or i in done:
            continue
        done.add(i)
        target = _target(st, sc, movers)
        if target is None:
            return False
        why = "under one MP spent in the hex, no ROF to use (6.64)" if limit < 0 else \
            _cannot(st, sc, shot.firers, target)
        if not why:
            try:
                opportunity_fire(ctx, list(shot.firers), target, limit, "answer")
            except OrderError as e:
                why = str(e)
        if why:
            # 32.2: a hidden firer whose planned shot is lost stays unnamed (the line is public), as where a move pauses
            shown = [f for f in shot.firers if not hidden.is_hidden(st, f)]
            if shown:
                ctx.emit(E.OpportunityPassed(side=ans.side, firers=shown, target=target, hex=here,
                                             by=f"answer: {why}"))
            continue
        if _stopped(st, movers):
            return False
    return True


def _cannot(st: TobrukState, sc, firers: list[str], target: str) -> str:
    """Why the planned shot may not be taken now (6.62, 15.61), or ''."""
    gone = [f for f in firers if st.units[f].eliminated or (st.units[f].hex is None and not hidden.is_hidden(st, f))]
    if gone:
        return f"{', '.join(gone)} no longer on the map"
    if all(st.pieces[f].fired for f in firers):
        able = desperation_firers(st, sc, target)
        bad = [f for f in firers if f not in able]
        return f"{', '.join(bad)} may not use desperation fire here (15.61)" if bad else ""
    able = eligible_firers(st, sc, target, "movement")
    bad = [f for f in firers if f not in able]
    return f"{', '.join(bad)} may not fire at {target} here (6.62)" if bad else ""


def walk(ctx: Ctx, p: Plan, spent_here: Fraction = Fraction(0), came_from: str = "",
         done: set[int] | None = None, answered: Answer | None = None) -> None:
    """Carry out a checked move step by step, with opportunity fire after each (6.6); ``answered``:
    the answer to its pause, ``done``: its planned shots already taken (or lost)."""
    st: TobrukState = ctx.state
    done = set() if done is None else done
    sc = ctx.sc
    lead = p.units[0]
    continued = p.steps[-1:] == ["continue"]
    steps = [s for s in p.steps if s != "continue"]
    costs = p.costs[:len(steps)]
    why = p.why[:len(steps)]
    covers = p.covers[:len(steps)]
    spent = p.start_spent
    came_from = came_from or st.units[lead].hex
    for i, (s, c, w) in enumerate(zip(steps, costs, why)):
        if _stopped(st, p.units):
            break
        if s.startswith("fire:"):
            assault_fire.fire(ctx, p.units, s[5:])          # 15.52: no trigger of its own (6.61)
            continue
        lp = st.pieces[lead]
        here = st.units[lead].hex
        spent += c
        if s == "off":
            vp = any(sc.board.grid.is_edge(here, e) for e in data.exit_edges(sc, st.units[lead].side))
            if lp.dummy:                                 # 32.241: leaving the map shows what it is
                fow.remove_dummy(ctx, lead, "it left the map and had to flip")
                return _end(ctx, p.units, False, True)
            ctx.emit(E.UnitExited(unit=lead, hex=here, vp=vp))
            return _end(ctx, p.units, False, False)
        facing, turret = lp.facing, lp.turret
        what = "enter"
        if s.startswith("overrun:"):
            if c:                                        # 21.04: another overrun in the hex costs an MP,
                spent_here += c                          # and draws opportunity fire for it
                ctx.emit(E.Stepped(units=list(p.units), what="overrun", hex=here, cost=fmt(c), spent=fmt(spent),
                                   facing=facing, turret=turret, terrain=w))
                rest = steps[i:] + (["continue"] if continued else [])
                if not opportunity(ctx, p.units, here, spent_here, False, rest, came_from, done, answered):
                    if st.pending is not None:
                        return
                    return _end(ctx, p.units, False, True)
            overrun(ctx, lead, s[8:], came_from)
            continue
        if s.startswith("face:"):
            facing, what = int(s[5:]), "pivot"
            spent_here += c
        elif s.startswith("turret:"):
            turret, what = int(s[7:]), "turret"
            spent_here += c
        elif cover_moves.is_cover_step(s):
            what = "cover"                               # 31.02, 33.74: an MP spent in the hex, a trigger
            spent_here += c
        else:
            what = "reverse" if s.startswith("back:") else "enter"
            nxt = s[5:] if s.startswith("back:") else s
            if hidden.on_enter(ctx, p.units, nxt, fow.update):          # 32.211: hidden enemy found, the step not taken
                return _end(ctx, p.units, False, True)
            came_from = here
            here = nxt
            spent_here = c
        ctx.emit(E.Stepped(units=list(p.units), what=what, hex=here, cost=fmt(c), spent=fmt(spent),
                           facing=facing if data.is_vehicle(sc, lead) else -1,
                           turret=turret if data.is_vehicle(sc, lead) else -1, terrain=w, cover=covers[i]))
        if terrain_stops(ctx, p, what, here):
            fow.update(ctx)
            if not _stopped(st, p.units) and not opportunity(ctx, p.units, here, spent_here, True, [], came_from,
                                                             done, answered) and st.pending is not None:
                return
            return _end(ctx, p.units, False, True)
        if what in ("enter", "reverse") and _minefield(ctx, p.units, here, p.move):
            # 31.15-31.17: the move stops in the minefield hex; its opportunity fire is that of a last step (6.64)
            fow.update(ctx)
            if not _stopped(st, p.units) and not opportunity(ctx, p.units, here, spent_here, True, [], came_from,
                                                             done, answered) and st.pending is not None:
                return
            return _end(ctx, p.units, False, True)
        fow.update(ctx)                                  # 32.12: the step may bring units into sight
        rest = steps[i + 1:] + (["continue"] if continued else [])
        if not opportunity(ctx, p.units, here, spent_here, not steps[i + 1:], rest, came_from, done, answered):
            if st.pending is not None:
                return                                   # paused: resumed by the answer
            return _end(ctx, p.units, False, True)
    _end(ctx, p.units, continued and not _stopped(st, p.units), _stopped(st, p.units))


def terrain_stops(ctx: Ctx, p: Plan, what: str, here: str) -> bool:
    """The perimeter's ground as a step is taken: wire's immobilization roll (31.83), a Continued Fire
    check (15.932), hull defilade (33.35-33.8); True if the move must stop in ``here``."""
    if what in ("enter", "reverse"):
        stop = obstacles.on_enter(ctx, p.units, here)
        continued_fire.on_enter(ctx, p.units, here)
    else:
        stop = False
    defilade.after_step(ctx, p.units, what, here, p.move)
    return stop


def _minefield(ctx: Ctx, movers: list[str], here: str, move: str) -> bool:
    """31.15-31.17: a minefield in the hex entered attacks or stops the movers (mines.py).  True if
    the move must stop.  No minefield in the scenario: nothing is asked."""
    if ctx.state.minefields.get(here) is None:
        return False
    return mines.on_enter(ctx, movers, here, move)


def _end(ctx: Ctx, units: list[str], continued: bool, stopped: bool) -> None:
    st: TobrukState = ctx.state
    pinned = stopped and any(st.pieces[u].pinned for u in units)
    ctx.emit(E.MoveEnded(units=list(units), continued=continued, pinned=pinned))
    activated(ctx, units)


def resume(ctx: Ctx, pd, shots: list[Shot]) -> None:
    """Go on with a paused move once its answer is complete: the shots planned in the hex of the pause
    first if the mover leaves it next (or stays: the move ends there), then the rest of the path,
    without another pause for this side (6.6 by email)."""
    st: TobrukState = ctx.state
    movers = list(pd.units)
    mover_ctx = Ctx(ctx.rules, st, ctx.sc, st.units[movers[0]].side, ctx.dice)
    mover_ctx.events = ctx.events                        # one order: one list of events
    mover_ctx.secret_records = ctx.secret_records
    rest = [s for s in pd.remaining if s != "continue"]
    done: set[int] = set()
    answered = Answer(side=ctx.side, units=movers, shots=list(shots))
    if not _stopped(st, movers) and _leaves(rest):
        spent = frac(pd.spent_here or "0")
        take_planned(mover_ctx, movers, pd.hex, 0 if not rest else int(spent) if int(spent) else -1, done, answered)
    named = {f for s in shots for f in s.firers}
    unnamed = [f for f in pd.firers if f not in named]
    st.decision = None
    if unnamed:                                          # the units asked and not named hold their fire
        ctx.emit(E.OpportunityPassed(side=ctx.side, firers=unnamed, target=_target(st, ctx.sc, movers) or movers[0],
                                     hex=pd.hex, by="answer"))
    if _stopped(st, movers) or not rest:
        return _end(mover_ctx, movers, pd.remaining == ["continue"] and not _stopped(st, movers),
                    _stopped(st, movers))
    pl = plan(mover_ctx, movers, st.pieces[movers[0]].move, list(pd.remaining))
    walk(mover_ctx, pl, frac(pd.spent_here or "0"), pd.came_from, done, answered)


USAGE = "fire UNIT[+UNIT...] [at HEX] (one line a shot, any hex of the path ahead) or pass"


def answer(ctx: Ctx, word: str, args: list[str]) -> None:
    """The answer to a paused move, once for its whole path (6.6 by email): lines ``fire
    UNIT[+UNIT...] [at HEX]`` plan a shot each (no hex: the hex of the pause; ``at MOVER`` too); the
    answer is complete when every unit asked is named, or at ``pass`` (the rest hold their fire).
    Units already marked fired may be named for desperation fire (15.61)."""
    st: TobrukState = ctx.state
    pd = st.pending
    if word == "pass":
        if args:
            raise OrderError("pass takes nothing else", "6.6")
        return resume(ctx, pd, list(pd.shots))
    path = " ".join(path_hexes(pd)[1:]) or "none: the move ends there"
    if word != "fire" or not args:
        raise OrderError(f"a move is paused in {pd.hex} (the path ahead: {path}) for your opportunity fire: "
                         f"{USAGE} (the units asked: {' '.join(pd.firers)})", "6.6")
    where = pd.hex
    if args[1:]:
        if len(args) != 3 or args[1].lower() != "at":
            raise OrderError(f"an answer names the firers and a hex of the path: {USAGE}", "6.6")
        where = _path_hex(pd, args[2])
    firers = [find_unit(ctx, u, ctx.side).id for u in args[0].split("+") if u]
    for f in firers:
        if (st.units[f].hex is None or st.units[f].eliminated) and not hidden.is_hidden(st, f):
            raise OrderError(f"{f} is not on the map")
    if where != pd.hex and any(hidden.is_hidden(st, f) for f in firers):
        raise OrderError(f"a hidden unit answers only for the hex where the mover stands, {pd.hex}: planned for a "
                         "hex ahead, the answer would show it before it fires (32.2)", "32.2")
    named = {f for s in pd.shots for f in s.firers}
    again = [f for f in firers if f in named]
    if again:
        planned = {f: s.hex for s in pd.shots for f in s.firers}
        raise OrderError(f"{', '.join(again)} already fire{'s' if len(again) == 1 else ''} in "
                         f"{planned[again[0]]} in this answer: a unit fires once (6.62)", "6.62")
    target = _target(st, ctx.sc, pd.units)
    if any(st.pieces[f].fired for f in firers):
        _check_desperation(st, ctx.sc, firers, target, where == pd.hex)
    elif where == pd.hex:
        # a hidden unit able to fire may join the answer (32.2111: placed unit side up by its fire)
        able = eligible_firers(st, ctx.sc, target, "movement")
        bad = [f for f in firers if f not in pd.firers and not (hidden.is_hidden(st, f) and f in able)]
        if bad:
            raise OrderError(f"{', '.join(bad)} may not fire here; the firers asked are {' '.join(pd.firers)} "
                             f"(or name a hex of the path ahead: {path})", "6.62")
    else:
        # 6.6: a hex ahead may be answered for a unit not asked yet (it may come into sight there), but
        # only one whose owner is asked: a standing hold, any or afv decides for the unit by itself
        decided = [f for f in firers if not asks(st, ctx.side, f)]
        if decided:
            raise OrderError(f"{', '.join(decided)} fire{'s' if len(decided) == 1 else ''} by {'its' if len(decided) == 1 else 'their'} "
                             "standing order, not by an answer: only units on ask are named for a hex ahead", "6.6")
    shots = [*pd.shots, Shot(firers=firers, hex=where)]
    if all(f in named | set(firers) for f in pd.firers):
        return resume(ctx, pd, shots)                    # every unit asked is answered: the move goes on
    ctx.emit(E.OpportunityPlanned(side=ctx.side, firers=firers, hex=where))     # more lines to come


def _path_hex(pd, word: str) -> str:
    """``at HEX`` of an answer: a hex of the mover's path from where it stands (or the mover's name: here)."""
    if word.lower() in [u.lower() for u in pd.units]:
        return pd.hex
    hexes = path_hexes(pd)
    if word not in hexes:
        raise OrderError(f"{word} is not on the path of {'+'.join(pd.units)}: {pd.hex} (where it stands), then "
                         f"{' '.join(hexes[1:]) or 'nothing: the move ends there'}", "6.6")
    return word


def _check_desperation(st: TobrukState, sc, firers: list[str], target: str, here: bool = True) -> None:
    """15.61: an answer naming units already marked fired is desperation fire; all of them must be
    entitled to it (personnel already fired, in good order, the mover within normal range)."""
    unfired = [f for f in firers if not st.pieces[f].fired]
    if unfired:
        raise OrderError(f"desperation fire is by units already marked fired only: answer with "
                         f"{'+'.join(f for f in firers if f not in unfired)} or {'+'.join(unfired)}, "
                         f"not both (15.61)", "15.61")
    if not here:
        return                                           # checked where the mover will be (take_planned)
    able = desperation_firers(st, sc, target)
    bad = [f for f in firers if f not in able]
    if bad:
        raise OrderError(f"{', '.join(bad)} may not use desperation fire at {target}: only personnel already "
                         f"marked fired, not broken, surrendered or in FULL cover, with the moving unit within "
                         f"their normal range (15.61)", "15.61")


def move_order(ctx: Ctx, word: str, args: list[str]) -> None:
    """crawl | assault | run | cross UNIT[+UNIT...] STEP ... (movement.py)."""
    if len(args) < 2:
        raise OrderError(f"{word} UNIT[+UNIT...] STEP ... (a step: HEX, back HEX, face SPINE, turret SPINE, off, "
                         "continue)", "6.0")
    names = [u for u in args[0].split("+") if u]
    hidden.own_use(ctx, [find_unit(ctx, n, ctx.side).id for n in names], "it moved", fow.update)      # 32.211
    ids = check_movers(ctx, names, word)
    steps = parse_steps(args[1:])
    pl = plan(ctx, ids, word, steps)
    ctx.emit(E.MoveBegan(units=ids, move=word))
    walk(ctx, pl)


def pivot_order(ctx: Ctx, word: str, args: list[str]) -> None:
    """pivot UNIT SPINE / turret UNIT SPINE in place (6.532, 12.232): free, still movement, still a trigger."""
    if args:
        why = "it pivoted" if word == "pivot" else "it turned its turret"
        hidden.own_use(ctx, [find_unit(ctx, args[0], ctx.side).id], why, fow.update)                 # 32.211
    u, new = stationary(ctx, word, args)
    p = ctx.state.pieces[u]
    if word == "pivot":
        ctx.emit(E.Faced(unit=u, facing=new, turret=p.turret if p.turret >= 0 else -1))
    else:
        ctx.emit(E.Faced(unit=u, facing=-1, turret=new))
    fow.update(ctx)
    st: TobrukState = ctx.state
    ctx.emit(E.MoveBegan(units=[u], move="pivot"))
    if not opportunity(ctx, [u], st.units[u].hex, Fraction(1), True, []):
        if st.pending is not None:
            return
    _end(ctx, [u], False, _stopped(st, [u]))


__all__ = ["answer", "enter_cost", "move_order", "pivot_order", "step_words"]
