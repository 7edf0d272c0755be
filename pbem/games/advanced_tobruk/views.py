"""What each side sees of Advanced Tobruk beyond the units: the map's marks
(objective hexes, the running score, set-up hexes), the set-up choices, and
the redaction of the other side's standing opportunity-fire orders.

Standing orders are private (6.6 by email).  At the table a player decides
on opportunity fire when the enemy moves and the mover learns only whether
shots come; a standing order is that decision written in advance, so the
opponent sees the shots (and that no shot came), never the order itself:
not the ``standing`` order lines, not the StandingOrderSet events, not
whether a unit fired or held its fire by standing order or by its owner's
answer, and not which of its units a paused move waits for.
Views only: no event and no roll changes."""
from __future__ import annotations

import msgspec

from pbem.core.events import Event, OrderGiven
from pbem.core.scenario import Scenario
from pbem.games.advanced_tobruk import data, events as E, fire_events as F, terms
from pbem.games.advanced_tobruk.facing import SPINES
from pbem.games.advanced_tobruk.sequence import phase_name
from pbem.games.advanced_tobruk.standing import order_for
from pbem.games.advanced_tobruk.state import StandingOrders, TobrukState

OPPORTUNITY = ("standing order", "answer")
PRIVATE = "standing (its standing orders are private, 6.6)"


def map_marks(st: TobrukState, sc: Scenario, viewer: str) -> dict:
    """The card's objective hexes with their VP and who would score them now (2.45: the side alone
    there with unbroken units, else the card's holder), the victory points so far, and during the
    set-up the viewer's own set-up hexes (the card fixes them; the set-up only faces, 2.48)."""
    objs = []
    for o in sc.victory.get("hexes", []):
        h, default = o["hex"], o.get("held_by", "")
        side = terms.holder(st, sc, h, default)
        objs.append({"hex": h, "vp": int(o["vp"]), "side": side,
                     "label": f"{sc.board.label(h)}: {o['vp']} VP to its holder at the end (2.45)"})
    vp, _ = terms.count(st, sc)
    score = "victory points " + ", ".join(f"{sc.side_name(s)} {vp[s]}" for s in sc.side_ids())
    if st.result is None:
        score += " (so far; the hexes count at the end, 2.45)"
    out: dict = {"objectives": objs, "score": score}
    if phase_name(st, sc) == "setup" and st.result is None:
        sides = sc.side_ids() if viewer not in sc.side_ids() else [viewer]
        out["areas"] = [{"label": f"{sc.side_name(s)} set-up hexes (the card's, 2.48)", "side": s,
                         "hexes": sorted({u.hex for u in st.units.values() if u.side == s and u.hex})}
                        for s in sides]
    return out


def setup_choices(st: TobrukState, sc: Scenario, side: str) -> list[str]:
    """During ``side``'s set-up step (2.48): each unit with a facing or a turret and what it may
    turn to, the standing orders now, and ``pass`` to finish.  The hexes are the card's."""
    if st.result is not None or phase_name(st, sc) != "setup" or st.step.to_act != side or st.pending:
        return []
    spines = " ".join(SPINES)
    out = []
    for uid, u in sorted(st.units.items()):
        p = st.pieces[uid]
        if u.side != side or not u.hex or u.eliminated or p.facing < 0:
            continue
        line = f"{uid} in {sc.board.label(u.hex)}, facing {SPINES[p.facing]}: pivot {uid} SPINE"
        if data.utype(sc, uid).get("turret"):
            line += f"; turret {uid} SPINE (now {SPINES[p.turret] if p.turret >= 0 else 'with the hull'})"
        out.append(f"{line}  (SPINE: {spines}; 6.52, 12.2)")
    so = st.orders.get(side, StandingOrders())
    own = ", ".join(f"{uid} {_order_words(order_for(st, side, uid))}" for uid in sorted(so.units)) or "none"
    out.append(f"standing [UNIT] ask | hold | any [range N] | afv [range N] | duel | noduel  (6.6; side default "
               f"now: {_order_words(so.default)}; units of their own: {own})")
    out.append("pass  when the facings and standing orders are set (the set-up hexes are the card's, 2.48)")
    return out


def _order_words(o) -> str:
    words = o.mode or "ask"
    if o.range:
        words += f" range {o.range}"
    return words + (" duel" if o.duel else "")


def redact(ev: Event, viewer: str) -> Event:
    """The other side's standing orders hidden from ``viewer`` (a side)."""
    if isinstance(ev, OrderGiven) and ev.side != viewer and ev.text.lower().split(None, 1)[:1] == ["standing"]:
        return OrderGiven(side=ev.side, text=PRIVATE, by=ev.by)
    if isinstance(ev, E.StandingOrderSet) and ev.side != viewer:
        return E.StandingOrderSet(side=ev.side, unit="", mode="")
    if isinstance(ev, E.OpportunityPassed) and ev.side != viewer:
        return E.OpportunityPassed(side=ev.side, firers=ev.firers, target=ev.target, hex=ev.hex, by="")
    if isinstance(ev, E.MovePaused) and ev.side != viewer:          # which units are left to 'ask'
        return msgspec.structs.replace(ev, firers=[])
    if isinstance(ev, (F.GunFired, F.CasualtyAttack)) and ev.by in OPPORTUNITY:
        # the event does not name the firer's side: every side reads "opportunity fire" (the owner
        # knows its own orders; the referee's report keeps the distinction)
        return msgspec.structs.replace(ev, by="opportunity")
    return ev


def awaiting_view(st: TobrukState, sc: Scenario, items: list[dict], viewer: str) -> list[dict]:
    """A paused move as the mover reads it: the answering side, not which of its units may fire."""
    out = []
    for it in items:
        if it.get("kind") == "opportunity-fire" and it.get("side") != viewer:
            pd = st.pending
            it = {k: v for k, v in it.items() if k != "units"}
            it["order"] = ("fire UNIT[+UNIT...] | pass  - the mover: "
                           + (f"{'+'.join(pd.units)} in {pd.hex}, {pd.spent_here} MP spent there" if pd else "?"))
        out.append(it)
    return out
