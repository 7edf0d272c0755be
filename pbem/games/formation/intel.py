"""Limited intelligence (5.3.4) as each side's view.

A side sees of an enemy stack only its top unit (an HQ is always on top, and
beneath an enemy HQ everything may be inspected); no enemy's current (reduced)
strength, only its printed strength; no enemy stack's composition in the log
(moves, reactions, order texts), no enemy standing orders and no remaining path
of a paused enemy move.  The attacker sees the defending stack once the attack
is declared; the defender sees the attacking stack once it has decided on
retreat before combat (combat.py's events say when).

The top unit of a stack without an HQ is our documented default for the owner's
free stacking order: its combat unit with the lowest id.
"""
from __future__ import annotations

import msgspec

from pbem.core.scenario import Scenario
from pbem.core.state import UnitState
from pbem.games.formation import events as E
from pbem.games.formation.board import is_hq, stack, top_first
from pbem.games.formation.combat_words import redact as redact_combat
from pbem.games.formation.state import FormationState


def top_unit(st: FormationState, sc: Scenario, h: str, side: str) -> str:
    here = top_first(sc, (u.id for u in stack(st, h) if u.side == side))
    return here[0] if here else ""


def _combat_reveal(st: FormationState, unit: UnitState, viewer: str) -> bool:
    cb = st.fm.combat
    if cb is None or unit.hex is None:
        return False
    if cb.side == viewer and unit.id in cb.defenders:
        return True                             # declared: the attacker examines the defending stack
    return cb.side != viewer and unit.id in cb.attackers and cb.stage not in ("rbc",)


def unit_row(st: FormationState, sc: Scenario, unit: UnitState, row: dict, viewer: str) -> dict | None:
    """An enemy unit as ``viewer`` sees it (None: hidden beneath the top of its stack)."""
    d = sc.unit_defs.get(unit.id)
    printed = d.strength if d else row.get("strength")
    if unit.hex is None:
        return None if not unit.eliminated else {**row, "strength": printed}
    top = top_unit(st, sc, unit.hex, unit.side)
    hq_top = is_hq(sc, top)
    if unit.id != top and not hq_top and not _combat_reveal(st, unit, viewer):
        return None
    out = dict(row)
    out["strength"] = printed                  # 5.3.4: reduced strength markers are never inspected
    out["status"] = [s for s in row.get("status", []) if s in ("disrupted",)]
    if unit.id == top and not hq_top:
        n = sum(1 for u in stack(st, unit.hex) if u.side == unit.side) - 1
        if n:
            out["beneath"] = n                  # the stack's height is in plain sight
            out["status"] = out["status"] + [f"{n} more beneath"]     # the report's and HELP's words
    return out


def awaiting_view(st: FormationState, sc: Scenario, items: list[dict], viewer: str) -> list[dict]:
    """Another side's pending items show what it must do, not its hidden units or plans."""
    out = []
    for it in items:
        it = dict(it)
        if it.get("kind") == "reaction" and it.get("side") == viewer:
            it.pop("rest", None)                # the mover's remaining path is its own secret
            if it.get("units"):
                it["units"] = it["units"][:1]
        elif it.get("side") != viewer:
            for k in ("rest", "units", "todo", "reinforcements", "bonus"):
                it.pop(k, None)
        out.append(it)
    return out


_STACK_EVENTS = (E.StackMoved, E.MoveStopped, E.MoveResumed)


def redact(ev: E.Event, viewer: str) -> E.Event:
    """Our events as ``viewer`` may read them (combat events: combat_words' redact)."""
    if isinstance(ev, E.DoctrineSet) and ev.side != viewer:
        return msgspec.structs.replace(ev, text="(standing order)")
    if isinstance(ev, (E.ReactionDeclined, E.ReactionAttempted)) and ev.side != viewer and ev.doctrine:
        return msgspec.structs.replace(ev, doctrine="(standing order)")
    if isinstance(ev, E.SnafuUsed) and ev.holder != viewer and ev.doctrine:
        return msgspec.structs.replace(ev, doctrine="(standing order)")
    if isinstance(ev, E.ReactionPaused):
        if ev.side == viewer:                   # the reacting side: not the mover's plan nor its stack
            return msgspec.structs.replace(ev, rest=[], mp_left="?", units=ev.units[:1])
        return ev
    if isinstance(ev, _STACK_EVENTS) and len(ev.units) > 1 and not _own(ev, viewer):
        return msgspec.structs.replace(ev, units=ev.units[:1])
    if isinstance(ev, E.ECRolled) and ev.side != viewer and ev.why != "combat" and not ev.eliminated:
        # a refit or a passed surrender check of a unit that may sit beneath its stack's top
        return msgspec.structs.replace(ev, unit="(a unit)", rating=0)
    if isinstance(ev, E.OrderGiven) and ev.side != viewer:
        return msgspec.structs.replace(ev, text=order_text(ev.text))
    if isinstance(ev, E.COMBAT_EVENTS):
        return redact_combat(ev, viewer)
    return ev


def _own(ev, viewer: str) -> bool:
    return getattr(ev, "side", "") == viewer


def order_text(text: str) -> str:
    """Another side's order line without what it hides: a stack's other units and its
    path (the moves themselves show where it went), an attack's participants, a
    standing order's text."""
    toks = text.split()
    if not toks:
        return text
    verb = toks[0].lower()
    if verb == "bonus" and len(toks) > 1:         # a Battle Victory bonus action: hidden as the action is
        return f"{toks[0]} {order_text(' '.join(toks[1:]))}"
    if verb == "doctrine":
        return " ".join(toks[:2] + ["(standing order)"])
    if verb in ("move", "screen") and len(toks) > 1:
        return f"{toks[0]} {toks[1].split('+')[0]} (path)"   # 6.5.1: no destination announced
    if verb == "refit":
        return "refit (a unit)"
    if verb == "attack" and "with" in [t.lower() for t in toks]:
        i = [t.lower() for t in toks].index("with")
        return " ".join(toks[:i + 1] + ["(units)"])
    return text
