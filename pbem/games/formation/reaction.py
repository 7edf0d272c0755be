"""Formation Reaction (6.5) by standing order or by a paused react-or-pass answer.

A Movement Action of the Initiative player that enters, or announces leaving, a
hex next to an undisrupted in-command enemy combat unit lets the Reaction player
attempt one reaction per Movement Action (6.5.1).  By email the reacting side
answers in advance with ``doctrine reaction ...``:

    never              never react (every trigger is declined and reported)
    always             react with the first eligible formation (by id)
    armour             react only when the moving stack holds an AFV unit
    FORMATION ...      react only with these formations
    ask                pause the move and wait for ``react FORMATION`` | ``pass``

Several words combine (``armour 7Arm``).  Without a doctrine the game asks.
A ``pass`` (or a declining doctrine) holds for the rest of that Movement Action.
"""
from __future__ import annotations

from pbem.core.orders import OrderError
from pbem.core.ruleset import Ctx
from pbem.games.formation import events as E
from pbem.games.formation.board import fdata, formation_of, hq_unit, is_hq, udata
from pbem.games.formation.command import in_command
from pbem.games.formation.snafu import d10
from pbem.games.formation.state import FormationState, other
from pbem.games.formation.retreats import overstack
from pbem.games.formation.sequence import activate
from pbem.games.formation.sequence import find_formation


def eligible(st: FormationState, sc, h: str, side: str, barred: list[str]) -> list[str]:
    """6.5.1: formations of ``side`` with an undisrupted, in-command combat unit next to h
    (after the move into h), a level above 0 and an HQ in play; not those whose HQ this
    move displaced (7.3.5)."""
    near = set(sc.board.grid.around(h))
    out: set[str] = set()
    for u in st.units.values():                 # the combat units of ``side`` next to h
        if u.side != side or u.hex not in near or u.eliminated or u.disrupted or is_hq(sc, u.id):
            continue
        f = formation_of(sc, u.id)
        if not f or f in out or f in barred:
            continue
        fr = st.fm.formations.get(f)
        if fr is None or fr.level <= 0 or hq_unit(st, sc, f) is None:
            continue
        if in_command(st, sc, u.id):
            out.add(f)
    return sorted(out)


def doctrine_answer(st: FormationState, sc, side: str, units: list[str], cands: list[str]) -> tuple[str, str]:
    """The standing answer: ('react', F) | ('pass', '') | ('ask', ''), with the doctrine text."""
    text = st.fm.doctrines.get(side, {}).get("reaction", "")
    toks = text.split()
    if not toks or "ask" in toks:
        return "ask", ""
    if "never" in toks:
        return "pass", ""
    pool = cands
    named = [t for t in toks if t not in ("always", "armour", "armor")]
    if named:
        pool = [f for f in cands if f in named or f.lower() in [n.lower() for n in named]]
    if ("armour" in toks or "armor" in toks) and not any(udata(sc, u).afv for u in units):
        pool = []
    return ("react", pool[0]) if pool else ("pass", "")


def trigger(ctx: Ctx, units: list[str], at: str, rest: list[str], mp_left: str, *, leaving: bool,
            screen: bool, barred: list[str]) -> str:
    """A possible reaction at ``at``: 'go' (move on), 'stopped' (a reaction succeeded) or 'paused'."""
    st, sc = ctx.state, ctx.sc
    act = st.fm.active
    if act is None or act.reaction or act.defender or st.fm.reacted:
        return "go"                             # 6.5.3: no counter-reaction; one attempt per Movement Action;
                                                # 7.4.3: a winning defender's bonus moves trigger none
    side = other(act.side)
    cands = eligible(st, sc, at, side, barred)
    if not cands:
        return "go"
    kind, f = doctrine_answer(st, sc, side, units, cands)
    text = "reaction " + st.fm.doctrines.get(side, {}).get("reaction", "")
    if kind == "pass":
        ctx.emit(E.ReactionDeclined(side=side, at=at, doctrine=text))
        return "go"
    if kind == "ask":
        ctx.emit(E.ReactionPaused(side=side, units=units, at=at, rest=rest, formations=cands, leaving=leaving,
                                  mp_left=mp_left, screen=screen))
        return "paused"
    return "stopped" if attempt(ctx, f, units, at, doctrine=text, leaving=leaving) else "go"


def attempt(ctx: Ctx, f: str, units: list[str], at: str, doctrine: str = "", *, leaving: bool = False) -> bool:
    """6.5.2: a d10 not above the HQ's reaction rating succeeds: the mover stops (6.5.3)
    and the formation reacts with the AP table's red value (sequence.activate)."""
    from pbem.games.formation.actions import ended_in      # actions imports this module
    st, sc = ctx.state, ctx.sc
    fr = st.fm.formations[f]
    rating = fdata(sc, f).reaction
    v, rolls = d10(ctx, fr.side, "reaction", lambda x: x <= rating)
    ok = v <= rating
    ctx.emit(E.ReactionAttempted(side=fr.side, formation=f, at=at, rolls=rolls, rating=rating, success=ok,
                                 doctrine=doctrine))
    if ok:
        ctx.emit(E.MoveStopped(side=other(fr.side), units=units, at=at))
        if not leaving:            # 7.6: its move ends in a hex it entered (6.5.3: its own marker stays)
            ended_in(ctx, at)
        # 6.5.3 / 5.3.2: a stack stopped in a hex it only meant to pass suffers its overstacking
        overstack(ctx, at, other(fr.side), arrived=[])
        activate(ctx, f, reaction=True)
    return ok


def answer(ctx: Ctx, word: str, args: list[str]) -> None:
    """``react FORMATION`` | ``pass`` while a move waits (step 'paused')."""
    from pbem.games.formation.actions import continue_move  # here: actions imports this module (a cycle)
    st, sc = ctx.state, ctx.sc
    p = st.fm.paused
    if p is None:
        raise OrderError("no move waits for a reaction answer", "6.5.1")
    if ctx.side != p.side:
        raise OrderError(f"the game waits for {sc.side_name(p.side)}'s reaction answer", "6.5.1")
    if word == "pass":
        ctx.emit(E.ReactionDeclined(side=p.side, at=p.at))
    else:
        if len(args) != 1:
            raise OrderError("react needs one formation: react FORMATION", "6.5.2")
        f = find_formation(st, args[0], ctx.side)
        if f not in p.formations:
            raise OrderError(f"{f} may not react here; eligible: {', '.join(p.formations)}", "6.5.1")
        if attempt(ctx, f, p.units, p.at, leaving=p.leaving):
            return
    units, at, rest, left, screen = list(p.units), p.at, list(p.rest), p.mp_left, p.screen
    ctx.emit(E.MoveResumed(side=other(p.side), units=units, at=at))
    continue_move(ctx, units, at, rest, left, screen=screen)

