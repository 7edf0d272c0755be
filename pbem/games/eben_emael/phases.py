"""The sequence of play (3.0): ending a phase, the phases the game plays by
itself (fixed set-up 12.1, fortification activation 9.4, reorganization),
resolving the announced attacks in order (5.2, 7.1, 8.2) and the end of the
game (12.1, 12.2).
"""
from __future__ import annotations

from pbem.core.orders import OrderError
from pbem.core.ruleset import Ctx
from pbem.games.eben_emael import events as E
from pbem.games.eben_emael.assault import resolve_assault, resolve_demolition
from pbem.games.eben_emael.board import GERMAN, forts, gd, squads_at
from pbem.games.eben_emael.fire import resolve_fire
from pbem.games.eben_emael.movement import mines_at_setup
from pbem.games.eben_emael.secrets import dummies
from pbem.games.eben_emael.state import AssaultAction, DemolitionAction, FireAction
from pbem.games.eben_emael.terms import final_victory


def kind(name: str) -> str:
    """What a phase is for: both fire phases are fire phases (3.0)."""
    return "fire" if name in ("fire", "defensive-fire") else name


def end(ctx: Ctx, what: str) -> None:
    """``end``: the side is done with this phase (or, announcing, with its announcements)."""
    st, sc = ctx.state, ctx.sc
    if what == "setup-belgian":
        if len(dummies(ctx)) != 2:
            raise OrderError("seal both dummy cupolas first: secret dummy-1 HEX and secret dummy-2 HEX", "9.5")
    elif what == "setup-german":
        left = sorted(u.id for u in st.units.values() if u.side == GERMAN and u.hex is None and not u.eliminated)
        if left:
            raise OrderError(f"set up every German unit first: {', '.join(left)}", "12.2")
        mines_at_setup(ctx)
        if st.result is not None:
            return
    elif what == "movement":
        # Not stack_violations: it counts fortifications (never stacked, 9.0) and every side, 4.4 only the mover's.
        crowded = [(h, us) for h, us in sorted(squads_at(st, sc).items())
                   if len([u for u in us if u.side == ctx.side]) > 1]
        if crowded:
            h, us = crowded[0]
            raise OrderError(f"{h} holds {' and '.join(u.id for u in us)}: only one may stay; "
                             f"eliminate the excess with 'lose UNIT'", "4.4")
    elif what in ("fire", "assault"):
        if not st.declarations_closed:
            ctx.emit(E.DeclarationsClosed(count=len(st.actions)))
            resolve(ctx)
            return
    next_phase(ctx)


def next_phase(ctx: Ctx) -> None:
    """The next phase of the sequence (3.0); after the last phase of the last turn, the end (12.1, 12.2)."""
    st, sc = ctx.state, ctx.sc
    nxt, turn = st.phase + 1, st.turn
    if nxt >= len(sc.sequence):
        if turn >= sc.turns:
            final_victory(ctx)
            return
        nxt = next(i for i, p in enumerate(sc.sequence) if p.name == "activation")
        turn += 1
    p = sc.sequence[nxt]
    ctx.emit(E.PhaseStarted(turn=turn, phase=nxt, side=p.side, name=p.name))
    _auto_phase(ctx)


def _auto_phase(ctx: Ctx) -> None:
    st, sc = ctx.state, ctx.sc
    ph = sc.sequence[st.phase]
    if ph.name == "setup-german" and gd(sc).get("german_setup", "fixed") == "fixed":
        next_phase(ctx)                                          # 12.1: the set-up is printed
    elif ph.name == "activation":
        for h, fid in sorted(forts(sc).items()):                # 9.4, in hex order
            f = st.units[fid]
            if "inactive" in f.marks and "destroyed" not in f.marks:
                die = ctx.dice.roll(6)
                ctx.emit(E.FortActivation(fort=h, rolls=[die], active=die <= 4))
        next_phase(ctx)
    elif ph.name == "reorganization":                           # 3.0 steps 6, 11
        mine = [u for u in sorted(st.units.values(), key=lambda u: u.id) if u.side == ph.side]
        ctx.emit(E.UnitsReorganized(side=ph.side, unpinned=[u.id for u in mine if "pinned" in u.marks],
                                    unmarked=[u.id for u in mine if "bold" in u.marks]))
        next_phase(ctx)


def resolve(ctx: Ctx) -> None:
    """Resolve the announced attacks in order (5.2, 7.1, 8.2) until one waits for a
    decision or the game ends; then the next phase."""
    st = ctx.state
    while st.result is None and st.decision is None:
        i = st.current
        if i >= len(st.actions):
            next_phase(ctx)
            return
        a = st.actions[i]
        if isinstance(a, FireAction):
            resolve_fire(ctx, a)
        elif isinstance(a, DemolitionAction):
            resolve_demolition(ctx, a)
        elif isinstance(a, AssaultAction):
            resolve_assault(ctx, i, a)
