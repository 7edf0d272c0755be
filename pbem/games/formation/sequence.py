"""The Ops Phase (6): Ops Cycles of initiative determination (6.1), act or transfer
(6.2), formation activation with Action Points (6.4), the end of the Ops Phase
(6.3); and what runs after every order (``after_order``)."""
from __future__ import annotations

import difflib
from pbem.core.orders import OrderError
from pbem.core.ruleset import Ctx
from pbem.games.formation import events as E
from pbem.games.formation.board import gd, hq_unit, on_map
from pbem.games.formation.snafu import d10, reroll
from pbem.games.formation.state import ALLIED, AXIS, FormationState, other
from pbem.games.formation.supply import hq_in_supply
from pbem.games.formation.terms import automatic_victory


def can_activate(st: FormationState, sc, f: str) -> bool:
    """6.4.2: level above 0, HQ in play, at least one unit of the formation on the map."""
    fr = st.fm.formations.get(f)
    if fr is None or fr.removed or fr.level <= 0 or hq_unit(st, sc, f) is None:
        return False
    return on_map(st, sc, f)


def activations_left(st: FormationState, sc, side: str) -> list[str]:
    return sorted(f for f, fr in st.fm.formations.items() if fr.side == side and can_activate(st, sc, f))


def tie_winner(sc, turn: int) -> str:
    for t in gd(sc).initiative_ties:
        if t.from_turn <= turn <= t.to_turn:
            return t.side
    return gd(sc).first_initiative             # lint: the ties cover every turn


def next_cycle(ctx: Ctx) -> None:
    """6.1: a new Ops Cycle; the Initiative player is rolled for, given by the scenario,
    or forced by the limits (6.1.1, 6.1.2).  No side able to act ends the Ops Phase."""
    st, sc = ctx.state, ctx.sc
    fm = st.fm
    g = gd(sc)
    left = {s: activations_left(st, sc, s) for s in (AXIS, ALLIED)}
    cycle = fm.cycle + 1
    if not left[AXIS] and not left[ALLIED]:
        ctx.emit(E.OpsPhaseEnded(side="", reason="no formation can be activated (6.1.2)"))
        return
    most = g.max_initiatives_in_row
    for s in (AXIS, ALLIED):
        if not left[other(s)]:
            # 6.1.1 / 6.1.2: the other side has no activation left
            if fm.in_row_side == s and fm.in_row >= most:
                ctx.emit(E.OpsPhaseEnded(side="", reason=f"{sc.side_name(other(s))} has no activation left and "
                                                          f"{sc.side_name(s)} had its {most} in a row (6.1.1)"))
                return
            drm_side, drm = _marker(fm, s, sc)
            ctx.emit(E.InitiativeDetermined(cycle=cycle, winner=s, reason="no-activations", drm_side=drm_side, drm=drm))
            return
    if st.turn == 1 and fm.cycle == 0:
        s = g.first_initiative
        ctx.emit(E.InitiativeDetermined(cycle=cycle, winner=s, reason="scenario", drm_side=other(s), drm=2))
        return
    if fm.in_row_side and fm.in_row >= most:
        s = other(fm.in_row_side)               # 6.1.1: flip the marker to the new Reaction side, +2
        ctx.emit(E.InitiativeDetermined(cycle=cycle, winner=s, reason="in-row", drm_side=other(s), drm=2))
        return
    roll_initiative(ctx, cycle)


def _marker(fm, winner: str, sc) -> tuple[str, int]:
    """6.1 a/b: the marker moves one space on when it already shows the Reaction side, else
    flips to the Reaction side on +2 (the first space of the scenario's track)."""
    reaction = other(winner)
    track = gd(sc).initiative_track            # lint: its first space is +2
    if fm.init_drm_side == reaction and fm.init_drm > 0:
        later = [x for x in track if x > fm.init_drm]
        return reaction, later[0] if later else fm.init_drm
    return reaction, track[0]


def roll_initiative(ctx: Ctx, cycle: int) -> None:
    st, sc = ctx.state, ctx.sc
    fm = st.fm
    g = gd(sc)
    drm = {AXIS: 0, ALLIED: 0}
    if fm.init_drm_side:
        drm[fm.init_drm_side] += fm.init_drm
    if st.turn == 1:
        drm[g.first_initiative] += g.turn1_initiative_drm
    tie = tie_winner(sc, st.turn)
    rolls: list[int] = []
    die = {}
    for s in (AXIS, ALLIED):
        die[s] = ctx.dice.roll(10)
        rolls.append(die[s])

    def wins(s: str) -> bool:
        a, b = die[s] + drm[s], die[other(s)] + drm[other(s)]
        return a > b or (a == b and tie == s)

    holder = fm.snafu
    if holder and not wins(holder):
        # 5.2 by doctrine: re-roll the opponent's die, or else the holder's own
        for s, good in ((other(holder), True), (holder, False)):
            again = reroll(ctx, s, "initiative", die[s], good)
            if again:
                die[s] = again[0]
                rolls += again
                break
    winner = AXIS if wins(AXIS) else ALLIED
    drm_side, new = _marker(fm, winner, sc)
    ctx.emit(E.InitiativeDetermined(cycle=cycle, winner=winner, reason="roll", rolls=rolls,
                                    axis=die[AXIS] + drm[AXIS], allied=die[ALLIED] + drm[ALLIED],
                                    drm_side=drm_side, drm=new))


# --- the Initiative player's options (6.2, 6.3) ------------------------------------------

def _must_be_initiative(ctx: Ctx) -> None:
    fm = ctx.state.fm
    if fm.step != "ops-choose" or not fm.initiative:
        raise OrderError("no Ops Cycle waits for an initiative choice now", "6.2")
    if ctx.side != fm.initiative:
        raise OrderError(f"{ctx.sc.side_name(fm.initiative)} holds the initiative in this Ops Cycle", "6.2")


def transfer(ctx: Ctx) -> None:
    """6.2: give the initiative to the opponent, who must act (or end the Ops Phase)."""
    _must_be_initiative(ctx)
    st, sc = ctx.state, ctx.sc
    fm = st.fm
    to = other(ctx.side)
    if fm.by_transfer:
        raise OrderError("the initiative was transferred to you: act or end the Ops Phase, never transfer it back",
                         "6.2")
    if not activations_left(st, sc, to):
        raise OrderError(f"{sc.side_name(to)} has no formation left to activate (6.1.2): act or end", "6.1.2")
    most = gd(sc).max_transfers_in_row
    if fm.transfer_side == to and fm.transfers >= most:
        raise OrderError(f"already {most} initiative(s) transferred in a row to {sc.side_name(to)} "
                         "(scenario limit): you must act", "6.2")
    ctx.emit(E.InitiativeTransferred(side=ctx.side, to=to))


def end_ops(ctx: Ctx) -> None:
    """6.3: a player who received the initiative by transfer, or whose opponent has no
    activation left, may end the Ops Phase (we read 'end the Ops Cycle' there as ending
    the Ops Phase: otherwise it never ends)."""
    _must_be_initiative(ctx)
    st, sc = ctx.state, ctx.sc
    if not st.fm.by_transfer and activations_left(st, sc, other(ctx.side)):
        raise OrderError("you may end the Ops Phase only after receiving the initiative by transfer, or when the "
                         "other side has no activation left; activate a formation or transfer", "6.3")
    ctx.emit(E.OpsPhaseEnded(side=ctx.side, reason="ended by the Initiative player (6.3)"))


def ap_value(sc, level: int, die: int, table: str) -> int:
    """6.4.1: the AP table (black: activation, red: reaction) for a level and a d10."""
    t = getattr(gd(sc).ap_table, table)
    levels = sorted(int(k) for k in t)         # lint: a column for every level up to the highest max_level
    key = str(min(max(level, levels[0]), levels[-1]))
    return t[key][die - 1]


def activate(ctx: Ctx, f: str, *, reaction: bool = False) -> None:
    """6.4: HQ supply check (5.7.1), APs from the table and a d10, +1 with the Schwerpunkt
    (at least 3, 5.9), the level drops one space, or to 0 when out of supply (6.4.3)."""
    st, sc = ctx.state, ctx.sc
    fm = st.fm
    fr = fm.formations[f]
    supplied = hq_in_supply(st, sc, f)
    marker = -1
    values = gd(sc).ap_markers.get(fr.side, [])
    if gd(sc).ap_markers_on and values and not reaction:
        # 6.4.1 optional: a marker drawn blind from the side's cup (a roll over what is left)
        cup = fm.cups.get(fr.side) or list(range(len(values)))
        v = ctx.dice.roll(len(cup))
        rolls, marker = [v], cup[v - 1]
        ap = int(values[marker])
    else:
        v, rolls = d10(ctx, fr.side, "reaction" if reaction else "activation", lambda x: x >= 6)
        ap = ap_value(sc, fr.level, v, "red" if reaction else "black")
    sp = fm.schwerpunkt == f
    if sp and not reaction:
        ap = max(ap + 1, 3)
    ctx.emit(E.FormationActivated(formation=f, side=fr.side, level=fr.level, rolls=rolls, ap=ap,
                                  new_level=max(fr.level - 1, 0) if supplied else 0, in_supply=supplied,
                                  schwerpunkt=sp and not reaction, reaction=reaction, marker=marker))


def activate_order(ctx: Ctx, args: list[str]) -> None:
    _must_be_initiative(ctx)
    st, sc = ctx.state, ctx.sc
    if len(args) != 1:
        raise OrderError("activate needs one formation: activate FORMATION", "6.4")
    f = find_formation(st, args[0], ctx.side)
    if st.fm.formations[f].side != ctx.side:
        raise OrderError(f"{f} is not a {sc.side_name(ctx.side)} formation", "5.5")
    if not can_activate(st, sc, f):
        raise OrderError(f"{f} cannot be activated (activation level {st.fm.formations[f].level}, "
                         "or no HQ / unit on the map)", "6.4.2")
    activate(ctx, f)


def find_formation(st: FormationState, name: str, side: str | None = None) -> str:
    """The formation ``name`` names (any case); refused with the asking ``side``'s own
    formations and a "did you mean" among them."""
    if name in st.fm.formations:
        return name
    low = {k.lower(): k for k in st.fm.formations}
    if name.lower() in low:
        return low[name.lower()]
    mine = sorted(k for k, f in st.fm.formations.items() if side is None or f.side == side)
    near = difflib.get_close_matches(name.lower(), [k.lower() for k in mine], n=1, cutoff=0.6)
    hint = f"did you mean {low[near[0]]}? " if near else ""
    raise OrderError(f"unknown formation {name!r}; {hint}your formations: {', '.join(mine) or 'none'}")


def end_activation(ctx: Ctx, reason: str = "end") -> None:
    act = ctx.state.fm.active
    if act is None:
        raise OrderError("no formation is active")
    if act.defender:               # 7.4.3: the winning defender's bonus is over; the interrupted one goes on
        ctx.emit(E.BonusActionsEnded(side=act.side, lost=act.bonus, reason=reason))
        return
    ctx.emit(E.ActivationEnded(formation=act.formation, side=act.side, reason=reason, lost=act.ap + act.bonus))


def units_can_act(st: FormationState, sc, f: str) -> bool:
    return on_map(st, sc, f)


def after_order(ctx: Ctx) -> None:
    """What follows by itself after an order: an activation without APs ends, a reaction
    hands back to the suspended activation, a new Ops Cycle begins, the Admin and End of
    Turn Phases run; the game may end."""
    from pbem.games.formation.admin import admin_step, end_of_turn, hq_removals   # admin imports this module
    from pbem.games.formation.bonus import can_act as bonus_can_act    # bonus imports this module
    st = ctx.state
    for _ in range(200):
        if st.result is not None:
            return
        if automatic_victory(ctx):
            return
        fm = st.fm
        if fm.combat is None:
            hq_removals(ctx)
        if fm.combat is not None or fm.step == "paused":
            return
        if fm.step == "actions" and fm.active is not None:
            act = fm.active
            if act.ap <= 0 and act.bonus <= 0:
                end_activation(ctx, "spent" if act.defender else "no APs left")
                continue
            if not (bonus_can_act(st) if act.defender else units_can_act(st, ctx.sc, act.formation)):
                end_activation(ctx, "no unit can act")
                continue
            return
        if fm.step == "ops-choose" and not fm.initiative:
            next_cycle(ctx)
            continue
        if fm.step == "end-of-turn":
            end_of_turn(ctx)
            continue
        if fm.step == "admin":
            if admin_step(ctx):
                continue
        return
