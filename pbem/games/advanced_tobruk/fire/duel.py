"""Gun duels (17.3): an AFV or heavy weapon fired on by another in the Direct
Fire Phase returns fire, shot for shot.

Each exchange rolls both hit dice first: the lower fires first and its hit is
resolved before the other's (equal rolls are simultaneous, 17.33).  A unit
that had not acquired its attacker waits until half the attacker's rounds are
fired (17.34).  A gun that must turn or pivot to answer may not duel (17.31).
By email the answer is the target's standing order (``standing UNIT duel``)."""
from __future__ import annotations

from pbem.core.orders import OrderError
from pbem.core.ruleset import Ctx
from pbem.games.advanced_tobruk import data
from pbem.games.advanced_tobruk.fire import fire_ap
from pbem.games.advanced_tobruk.fog import fow
from pbem.games.advanced_tobruk.board import spotting
from pbem.games.advanced_tobruk.fire_events import GunFired, Round
from pbem.games.advanced_tobruk.state import TobrukState, tk


class _Preset:
    """The dice with this shot's hit die already rolled (the exchange's 'who fires first' roll)."""

    def __init__(self, inner, first: int):
        self.inner = inner
        self.first: list[int] = [first]

    def roll(self, sides: int) -> int:
        return self.first.pop() if self.first else self.inner.roll(sides)

    def salt(self) -> str:
        return self.inner.salt()


def wants_duel(st: TobrukState, uid: str) -> bool:
    """The target's standing order (its own, else its side's) asks for gun duels."""
    so = st.orders.get(st.units[uid].side)
    if so is None:
        return False
    return bool(so.units.get(uid, so.default).duel)


def answer_gun(ctx: Ctx, responder: str, instigator: str) -> dict | None:
    """17.31-17.32: the responder's main gun if it may answer now without turning."""
    st = tk(ctx.state)
    sc = ctx.sc
    if not (data.is_afv(sc, responder) or data.is_heavy(sc, responder)):
        return None
    if not (data.is_afv(sc, instigator) or data.is_heavy(sc, instigator)):
        return None
    gs = fire_ap.guns(sc, responder)
    if not gs or st.pieces[responder].dummy or not spotting.spotted(st, sc, st.units[responder].side, instigator):
        return None                                                            # 32.241, 32.251
    g = gs[0]
    try:
        fire_ap.check_firer(ctx, responder, g, "duel")
        fire_ap.choose_ammo(sc, g, instigator, "")
    except OrderError:
        return None
    arc = fire_ap.arc_kind(sc, responder, g)
    now = fire_ap.current_arc(st, responder, arc)
    if arc != "all" and now >= 0 and not fire_ap.bears(sc, responder, g, st.units[responder].hex, now,
                                                       st.units[instigator].hex):
        return None
    rng = sc.board.grid.distance(st.units[responder].hex, st.units[instigator].hex)
    if fire_ap.hpt_number(str(g.get("rating", "D")), int(g.get("size", 0)), rng) is None:
        return None
    return g


def _able(ctx: Ctx, uid: str, g: dict) -> bool:
    try:
        fire_ap.check_firer(ctx, uid, g, "duel", again=True)
    except OrderError:
        return False
    return True


def _shot(ctx: Ctx, firer: str, g: dict, target: str, pre: int | None, n: int, first: bool, **kw) -> None:
    inner = ctx.dice
    if pre is not None:
        ctx.dice = _Preset(inner, pre)
    try:
        fire_ap.fire_gun(ctx, firer, str(g.get("name")), target, by="duel", max_shots=n, again=not first, **kw)
    finally:
        ctx.dice = inner


def _lost_shot(ctx: Ctx, firer: str, g: dict, target: str, roll: int) -> None:
    """A duellist knocked out by the lower roll never fires: its die is still reported."""
    st = tk(ctx.state)
    ctx.emit(GunFired(firer=firer, weapon=str(g.get("name")), target=target, hex=st.units[target].hex or "",
                      range=ctx.sc.board.grid.distance(st.units[firer].hex, st.units[target].hex), ammo="AP",
                      hpn=0, need=0, rof=0, rounds=[Round(roll=roll, result="knocked out before it could fire")],
                      rolls=[roll], by="duel", rule="17.33"))


def gun_duel(ctx: Ctx, a: str, ga: dict, b: str, gb: dict, *, ammo: str = "", turn_to: int = -1) -> None:
    """17.32-17.35: ``a`` fires at ``b`` with ``ga``; ``b`` answers with ``gb``."""
    st = tk(ctx.state)
    rof_a, _ = fire_ap.rate_of_fire(ctx, a, ga, b)
    rof_b, _ = fire_ap.rate_of_fire(ctx, b, gb, a)
    fow.before_fire(ctx, [b])                                                  # 32.2111: the answer flips it
    done_a = done_b = 0
    if st.pieces[b].bot != a:                                                  # 17.34
        first = max(1, rof_a // 2)
        _shot(ctx, a, ga, b, None, first, True, ammo=ammo, turn_to=turn_to)
        done_a = first
    while True:
        left_a = rof_a - done_a if _able(ctx, a, ga) and not st.units[b].eliminated else 0
        left_b = rof_b - done_b if _able(ctx, b, gb) and not st.units[a].eliminated else 0
        if left_a <= 0 and left_b <= 0:
            return
        if left_a <= 0 or left_b <= 0:
            who, g, tgt, n, first = (a, ga, b, left_a, done_a == 0) if left_a > 0 else (b, gb, a, left_b, done_b == 0)
            more = {"ammo": ammo, "turn_to": turn_to if first else -1} if who == a else {}
            _shot(ctx, who, g, tgt, None, n, first, **more)
            return
        ra, rb = ctx.dice.roll(10), ctx.dice.roll(10)                          # 17.33: lowest fires first
        order = [(a, ga, b, ra, done_a == 0, {"ammo": ammo, "turn_to": turn_to if done_a == 0 else -1}),
                 (b, gb, a, rb, done_b == 0, {})]
        if rb < ra:
            order.reverse()
        tie = ra == rb
        was = {u: (st.pieces[u].bot, st.pieces[u].suppressed) for u in (a, b)}
        for who, g, tgt, roll, first, more in order:
            if not tie and (st.units[who].eliminated or not _able(ctx, who, g)):
                _lost_shot(ctx, who, g, tgt, roll)
                continue
            _shot(ctx, who, g, tgt, roll, 1, first, simultaneous=tie, was=was[who] if tie else None, **more)
        done_a += 1
        done_b += 1
