"""Standing opportunity-fire orders (6.6 by email): set in advance per side and per
unit, applied automatically to movers (opportunity.py) and at the start of Final
Opportunity Fire (6.65); ``ask`` - the default - leaves the choice to its owner.

    standing [UNIT] ask | hold | any [range N] | afv [range N]
    standing [UNIT] duel | noduel    (answer direct fire with a gun duel, 17.3; keeps the above)
    standing [UNIT] drop | nodrop    (personnel drop into FULL cover when fired on, 15.22; keeps the above)
    standing UNIT clear              (the unit follows the side's order again)
"""
from __future__ import annotations

from pbem.core.orders import OrderError
from pbem.core.ruleset import Ctx, find_unit
from pbem.core.state import copy_state
from pbem.games.advanced_tobruk import data, events as E
from pbem.games.advanced_tobruk.fog import hidden
from pbem.games.advanced_tobruk.board import spotting
from pbem.games.advanced_tobruk.fire.eligible import eligible_firers
from pbem.games.advanced_tobruk.fire.fire_personnel import opportunity_fire
from pbem.games.advanced_tobruk.state import FireOrder, StandingOrders, TobrukState

MODES = ("ask", "hold", "any", "afv", "duel", "noduel", "drop", "nodrop")


# --- standing orders ----------------------------------------------------------------------

def standing_order(ctx: Ctx, args: list[str]) -> None:
    """standing [UNIT] ask|hold|any [range N]|afv [range N]; standing UNIT clear."""
    usage = ("standing [UNIT] ask | hold | any [range N] | afv [range N] | duel | noduel | drop | nodrop  "
             "(or: standing UNIT clear)")
    if not args:
        raise OrderError(usage, "6.6")
    unit = ""
    if len(args) == 1 and args[0].lower() not in MODES:
        raise OrderError(usage, "6.6")
    if args[0].lower() not in MODES:
        unit = find_unit(ctx, args[0], ctx.side, alive=True).id
        args = args[1:]
    if not args:
        raise OrderError(usage, "6.6")
    mode = args[0].lower()
    rng = 0
    cur = order_for(ctx.state, ctx.side, unit) if unit else ctx.state.orders.get(ctx.side, StandingOrders()).default
    if mode in ("duel", "noduel"):                           # 17.3: keeps the opportunity-fire order
        if len(args) != 1:
            raise OrderError(usage, "17.3")
        ctx.emit(E.StandingOrderSet(side=ctx.side, unit=unit, mode=cur.mode or "ask", range=cur.range,
                                    duel=mode == "duel", drop=cur.drop))
        return
    if mode in ("drop", "nodrop"):                           # 15.22: keeps the opportunity-fire order
        if len(args) != 1:
            raise OrderError(usage, "15.22")
        ctx.emit(E.StandingOrderSet(side=ctx.side, unit=unit, mode=cur.mode or "ask", range=cur.range,
                                    duel=cur.duel, drop=mode == "drop"))
        return
    if mode == "clear" and unit:
        if unit not in ctx.state.orders.get(ctx.side, StandingOrders()).units:
            raise OrderError(f"{unit} has no standing order of its own to clear", "6.6")
        if len(args) != 1:
            raise OrderError(usage, "6.6")
    elif mode not in MODES:
        raise OrderError(usage, "6.6")
    elif len(args) == 3 and args[1].lower() == "range" and mode in ("any", "afv"):
        try:
            rng = int(args[2])
        except ValueError:
            raise OrderError(f"range needs a number of hexes: {usage}", "6.6") from None
        if rng < 1:
            raise OrderError("range is at least one hex", "6.6")
    elif len(args) != 1:
        raise OrderError(usage, "6.6")
    ctx.emit(E.StandingOrderSet(side=ctx.side, unit=unit, mode=mode, range=rng, duel=cur.duel and mode != "clear",
                                drop=cur.drop and mode != "clear"))


def order_for(st: TobrukState, side: str, firer: str) -> FireOrder:
    so = st.orders.get(side, StandingOrders())
    return so.units.get(firer, so.default)


def says(st: TobrukState, sc, firer: str, target: str) -> str:
    """'fire', 'pass' or 'ask': what ``firer``'s standing order says about ``target`` (6.6)."""
    f = st.units[firer]
    o = order_for(st, f.side, firer)
    if o.mode == "hold":
        return "pass"
    if o.mode in ("", "ask"):
        return "ask"
    if o.mode == "afv" and not data.is_afv(sc, target):
        return "pass"
    if o.range and sc.board.grid.distance(spotting.where(st, firer), st.units[target].hex) > o.range:
        return "pass"
    return "fire"


def final_fire(ctx: Ctx, first: str, other_side: str) -> None:
    """6.65 by standing order: each unit whose order is ``any``/``afv`` fires at the nearest moved
    enemy unit it may fire at (an AFV for ``afv``; ties by id), the side that fires first first."""
    st: TobrukState = ctx.state
    sc = ctx.sc
    grid = sc.board.grid
    for side in (first, other_side):
        firers = sorted(u.id for u in st.units.values() if u.side == side and not u.eliminated
                        and (u.hex or hidden.is_hidden(st, u.id)) and order_for(st, side, u.id).mode in ("any", "afv"))
        able: dict[str, list[str]] = {}        # target -> its eligible firers, until a shot is tried
        for f in firers:
            targets = [t.id for t in st.units.values() if t.side != side and t.hex and not t.eliminated
                       and st.pieces[t.id].moved and says(st, sc, f, t.id) == "fire"
                       and f in (able[t.id] if t.id in able else
                                 able.setdefault(t.id, eligible_firers(st, sc, t.id, "final-fire")))]
            if targets:
                t = min(targets, key=lambda x: (grid.distance(spotting.where(st, f), st.units[x].hex), x))
                standing_shot(ctx, f, t, 0)
                able = {}


def standing_shot(ctx: Ctx, firer: str, target: str, limit: int) -> bool:
    """One shot by standing order; False if the fire rules refuse it after all (nothing is fired then:
    the fire package checks before it rolls or emits).  A hidden or FOW firer would be revealed by
    the attempt (32.2111), so its shot is first tried on a copy of the state: refused there, it stays
    as it is."""
    if spotting.active(ctx.sc) and (hidden.is_hidden(ctx.state, firer) or spotting.fow_up(ctx.state, ctx.sc, firer)) \
            and not _would_fire(ctx, firer, target, limit):
        return False
    try:
        opportunity_fire(ctx, [firer], target, limit, "standing order")
    except OrderError:
        return False
    return True


def asks(st: TobrukState, side: str, firer: str) -> bool:
    """The firer's owner is asked (no standing order that decides for it)."""
    return order_for(st, side, firer).mode in ("", "ask")


class _Checked(Exception):
    """The trial shot passed every check and came to its first die roll."""


class _TrialDice:
    def roll(self, sides: int) -> int:
        raise _Checked()

    def salt(self) -> str:
        return ""


def _would_fire(ctx: Ctx, firer: str, target: str, limit: int) -> bool:
    """The standing shot tried on a copy of the state up to its first die roll: True if no rule refuses it."""
    trial = Ctx(ctx.rules, copy_state(ctx.state), ctx.sc, ctx.side, _TrialDice())
    trial.secret_records = ctx.secret_records
    try:
        opportunity_fire(trial, [firer], target, limit, "standing order")
    except _Checked:
        return True
    except OrderError:
        return False
    return True
