"""Continued Fire markers (15.93), on a card that sets ``[game_data] continued_fire = true``
(a card without it plays as before).

* 15.931: an attack of 6 or more gunfire or FRAG factors into a hex leaves a Continued Fire
  marker there: direct fire (gunfire, machine-guns, HE hits and misses, assault fire) and
  mortars and on-board guns (19.01); not off-board FFE, not aircraft, not fire from a moving
  vehicle (casualty.attack's ``cfire``), not grenades, mines or melee (our reading: they are
  no fire into the hex).  One attack's factors count, not a segment's sum (our reading).
* 15.932: a personnel unit entering a marked hex (by movement or infiltration) checks morale
  at once; failing, it takes as many casualty steps as it failed by (the roll and the casualty
  DRM above its altered morale, at least one) and is broken (or surrendered) as by any failed
  check.  Units entering under cover (FULL, along a trench or wadi) do not check (our reading:
  the fire cannot reach them).
* The markers go in the End of Turn Segment (the text does not say when; we read them as the
  turn's fire, like F markers, 5.41)."""
from __future__ import annotations

from pbem.core.ruleset import Ctx
from pbem.core.scenario import Scenario
from pbem.games.advanced_tobruk import data
from pbem.games.advanced_tobruk.fire import morale
from pbem.games.advanced_tobruk.fire_events import CasualtyAttack, MoraleChecked
from pbem.games.advanced_tobruk.fire.losses import absorb
from pbem.games.advanced_tobruk.perimeter_events import ContinuedFireCheck, ContinuedFireCleared, ContinuedFirePlaced
from pbem.games.advanced_tobruk.state import tk

THRESHOLD = 6                      # 15.931


def active(sc: Scenario) -> bool:
    return data.gd(sc).continued_fire


def after_attack(ctx: Ctx, ev: CasualtyAttack) -> None:
    """15.931: the attack ``ev`` marks its hex."""
    st = tk(ctx.state)
    if active(ctx.sc) and ev.factors >= THRESHOLD and ev.hex not in st.cfire:
        ctx.emit(ContinuedFirePlaced(hex=ev.hex, factors=ev.factors, source=ev.source))


def on_enter(ctx: Ctx, movers: list[str], h: str) -> None:
    """15.932: every personnel mover entering a marked hex checks at once."""
    st = tk(ctx.state)
    if not active(ctx.sc) or h not in st.cfire:
        return
    for u in movers:
        if data.is_personnel(ctx.sc, u) and not st.units[u].eliminated and not st.pieces[u].full:
            check(ctx, u, h)


def check(ctx: Ctx, uid: str, h: str) -> None:
    """One Continued Fire morale check and the steps its failure costs (15.932)."""
    st = tk(ctx.state)
    n = len(ctx.events)
    morale.check_stack(ctx, [uid], "continued fire", 0, rule="15.932")   # a surrender chains (11.71)
    mc = next((e for e in ctx.events[n:] if isinstance(e, MoraleChecked) and e.unit == uid), None)
    if mc is None or mc.result not in ("broken", "surrendered", "eliminated"):
        return
    failed_by = max(1, mc.rolls[0] + mc.drm - mc.altered)
    if st.units[uid].eliminated:
        return
    ctx.emit(ContinuedFireCheck(unit=uid, hex=h, failed_by=failed_by,
                                losses=absorb(st, ctx.sc, [uid], failed_by)))


def end_of_turn(ctx: Ctx) -> None:
    st = tk(ctx.state)
    if st.cfire:
        ctx.emit(ContinuedFireCleared(hexes=list(st.cfire)))
