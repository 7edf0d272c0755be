"""Assault fire (15.5): personnel firing during their own move.

15.52: a personnel unit (or a platoon moving with its leader) that crawls or moves by
assault movement may fire once in the Movement Segment at half its gunfire: before its
first step, between steps or in the last hex it enters.  It is written as a step of the
move, ``fire TARGET`` (a unit or a hex):

    assault A1+L1 0605 fire G1 0606        # enter 0605, fire at G1's hex, go on to 0606
    crawl A2 fire 0707 0706                # fire first, then crawl

Every factor is halved, fractions down (2.82): the movers' gunfire (less what the weapons
they carry cost them, 8.431) and their light machine-guns and ATRs; a medium weapon carried
does not fire (8.223); a leader leads it (one column right, 15.43).  The firers are marked
fired (once a turn, 15.31); the fire is no trigger of its own (6.61).  15.53: a unit that
runs may not fire in that Movement Segment at all (assault fire, opportunity and desperation
fire: eligible.py)."""
from __future__ import annotations

from pbem.core.orders import OrderError
from pbem.core.ruleset import Ctx
from pbem.core.scenario import Scenario
from pbem.games.advanced_tobruk import data
from pbem.games.advanced_tobruk.state import TobrukState, tk
from pbem.core.state import copy_state
from pbem.games.advanced_tobruk.perimeter_events import apply_cover
from pbem.games.advanced_tobruk.turn.standing import _Checked, _TrialDice
from pbem.games.advanced_tobruk.fog import fow
from pbem.games.advanced_tobruk.fire import fire_personnel as FP


def plan_check(ctx: Ctx, ids: list[str], move: str, fired: bool, here: str, cover: str, target: str) -> None:
    """A ``fire`` step of a move, checked with the move before anything is done: the rules of
    15.52 and 15.53, then the fire itself tried on a copy of the state with the movers in ``here``
    (under ``cover``), up to its first die."""
    st = tk(ctx.state)
    sc = ctx.sc
    if any(data.is_vehicle(sc, u) for u in ids):
        raise OrderError("assault fire is for personnel; a vehicle's fire on the move is not built (16.432)", "15.52")
    if move == "run":
        raise OrderError("running units may not fire in the Movement Segment (15.53)", "15.53")
    if fired:
        raise OrderError("a unit fires once during its move (15.52, 15.31)", "15.52")
    for u in ids:
        p = st.pieces[u]
        if p.fired:
            raise OrderError(f"{u} has already fired this turn (15.31)", "15.31")
        if p.broken or p.surrendered:
            raise OrderError(f"{u} is broken or surrendered and may not fire (11.12)", "11.12")
    _trial(ctx, ids, move, here, cover, target)


def _trial(ctx: Ctx, ids: list[str], move: str, here: str, cover: str, target: str) -> None:
    trial = Ctx(ctx.rules, copy_state(ctx.state), ctx.sc, ctx.side, _TrialDice())
    trial.secret_records = ctx.secret_records
    st = tk(trial.state)
    for u in [*ids, *(w for w, q in st.pieces.items() if q.holder in ids)]:
        st.units[u].hex = here
    for u in ids:
        st.pieces[u].move, st.pieces[u].moving = move, True
        apply_cover(st.pieces[u], cover)
    try:
        fire(trial, ids, target)
    except _Checked:
        pass


def firers(st: TobrukState, sc: Scenario, movers: list[str]) -> list[str]:
    """The movers still standing and the light machine-guns and ATRs they carry (8.223)."""
    people = [u for u in movers if not st.units[u].eliminated and st.units[u].hex]
    weapons = sorted(w for w, q in st.pieces.items() if q.holder in people and not st.units[w].eliminated
                     and data.utype(sc, w).get("weight") == "L" and data.utype(sc, w).get("kind") in ("MG", "ATR"))
    return people + weapons


def fire(ctx: Ctx, movers: list[str], target: str) -> None:
    """15.52: the movers' assault fire at ``target`` (a unit id or a hex)."""
    st = tk(ctx.state)
    sc = ctx.sc
    group = firers(st, sc, movers)
    if not group:
        return
    thex, tunit = FP._target_hex(ctx, target)
    total, parts, shifts = FP.gunfire_total(ctx, group, thex, assault=True)
    if total <= 0:
        raise OrderError("no gunfire factors reach the target (15.52, 15.711)", "15.52")
    start = len(ctx.events)
    FP._shots_at(ctx, group, thex, tunit, total, parts, shifts, by="assault", opportunity=False, rule="15.52")
    fow.after_fire(ctx, start)
