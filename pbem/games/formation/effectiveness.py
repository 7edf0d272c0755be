"""Effectiveness checks, disruption and recovery (5.6)."""
from __future__ import annotations

from pbem.core.ruleset import Ctx
from pbem.games.formation import events as E
from pbem.games.formation.board import is_hq, strongpoint, udata
from pbem.games.formation.snafu import d10


def rating(ctx_or_st, sc, uid: str) -> int:
    """5.6.1: the (disrupted) effectiveness rating plus a strongpoint's EC bonus; a
    functional strongpoint helps its owner, a depleted one both sides (3.1.3)."""
    st = ctx_or_st.state if isinstance(ctx_or_st, Ctx) else ctx_or_st
    u = st.units[uid]
    d = udata(sc, uid)
    er = d.er_disrupted if u.disrupted else d.er
    sp = strongpoint(sc, u.hex) if u.hex else None
    if sp is not None and (u.hex in st.fm.depleted or sp.side == u.side):
        er += sp.ec_bonus
    return er


def ec(ctx: Ctx, uid: str, why: str, *, combat: bool = False) -> bool:
    """5.6: roll a d10 against the unit's rating; pass when not greater.  A failure
    disrupts (not on a refit, 5.6.2); a unit already disrupted that fails in combat
    loses a strength point.  Emits ECRolled; True when passed."""
    st, sc = ctx.state, ctx.sc
    u = st.units[uid]
    if is_hq(sc, uid):
        return True                              # 5.6: HQs never check
    r = rating(ctx, sc, uid)
    v, rolls = d10(ctx, u.side, "ec", lambda x: x <= r)
    passed = v <= r
    refit = why == "refit"
    surrender = why == "surrender"
    step = not passed and combat and u.disrupted
    ctx.emit(E.ECRolled(unit=uid, side=u.side, why=why, rolls=rolls, rating=r, passed=passed,
                        disrupts=not passed and not refit and not surrender and not u.disrupted,
                        step_loss=step, recovers=passed and refit and u.disrupted,
                        eliminated=(not passed and surrender) or (step and u.strength <= 1)))
    return passed
