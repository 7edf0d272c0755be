"""A check's view of Advanced Tobruk (core/known.py): the state as one side may
know it, and where a check of its orders stops.

What limited intelligence and the side notes keep secret (the card and the
unit ids are public, see views.py) is replaced, for every other side, by what
the checker could work out itself:

* its side notes (5.01): a sealed note is a name only; an opened one keeps its
  meaning (it is public), so the notes are rebuilt from the opened ones;
* what a sealed note put on a piece: a hidden unit's hex and facing (32.22,
  the unit is simply off the map), a dummy (32.24), a crew (9.12), APCR or
  HEAT rounds (17.25);
* its minefields (31.1): a hidden one is not there; a face-down one has no
  known density (0) and is no dummy, and names no note;
* its standing opportunity-fire orders (6.6): none, so the rules ask;
* which of its units a move paused for it waits for.

A check stops (``check_stop``) where the real order could show what these
stand-ins hide: a move, infiltration or search while the enemy holds a sealed
``hide-`` or ``mine-`` note (the names are public: a hidden unit or minefield
may be on the way, 31.15, 32.211); fire at a counter that may be the enemy's
dummy while its ``dummy-`` note is sealed (32.241: the fire shows it); a move
the rules pause for the enemy's opportunity fire (its standing orders decide,
6.6); an enemy unit turned over (32.12: it may be the dummy); a face-down
enemy minefield entered (its density, or that it is a dummy, 31.14, 31.191).
"""
from __future__ import annotations

import msgspec

from pbem.core.events import Event
from pbem.core.orders import GameVerb, Order
from pbem.core.scenario import Scenario
from pbem.games.advanced_tobruk.notes import notes
from pbem.games.advanced_tobruk.fog_events import DummyRemoved, Flipped, Revealed
from pbem.games.advanced_tobruk.mine_events import MineEntered
from pbem.games.advanced_tobruk.notes_state import Notes
from pbem.games.advanced_tobruk.reducer import markers
from pbem.games.advanced_tobruk.state import Piece, TobrukState

ON_THE_WAY = ("crawl", "assault", "run", "cross", "infiltrate", "search")   # orders that enter or search hexes
HIDING = ("hide-", "mine-")                                               # the note names of 32.22 and 31.15


def _sealed(st: TobrukState, side: str, name: str) -> bool:
    return f"{side}:{name}" in st.secrets


def known(k: TobrukState, st: TobrukState, sc: Scenario, viewer: str) -> None:
    """Advanced Tobruk's part of ``Ruleset.known``: ``k`` (a copy of ``st``) as ``viewer`` may know it."""
    for side in sc.side_ids():
        if side != viewer:
            _hide_notes(k, st, sc, side)
    k.minefields = {h: m for h, m in ((h, _minefield(k, m, viewer)) for h, m in k.minefields.items()) if m}
    k.orders = {s: o for s, o in k.orders.items() if s == viewer}
    if k.pending is not None and k.pending.side != viewer:
        k.pending = msgspec.structs.replace(k.pending, firers=[], shots=[])   # the answer's plan too (6.6)
    for uid, u in k.units.items():
        if u.side != viewer:
            u.marks = markers(k.pieces[uid], k.turn, u.eliminated)


def _hide_notes(k: TobrukState, st: TobrukState, sc: Scenario, side: str) -> None:
    """``side``'s notes: the opened ones' meaning rebuilt, the sealed ones' undone on its pieces."""
    names = notes.notes_of(st, side).names
    scratch = TobrukState(game_id="", scenario_id="", game="",
                          pieces={uid: Piece(type=p.type) for uid, p in st.pieces.items()})
    for name, text in names.items():
        if not _sealed(st, side, name):
            notes._apply(scratch, sc, side, name, text)          # the same meaning the reducer gave it
            continue
        w = text.split()
        kind, args = (w[0], w[1:]) if w else ("", [])
        if kind == "crew" and k.pieces[args[0]].holder == args[1]:
            k.pieces[args[0]].holder = ""
        elif kind in ("apcr", "heat"):
            p = k.pieces[args[0]]
            p.ammo = {a: n for a, n in p.ammo.items() if a != kind.upper()}
        elif kind == "hide":
            for uid in args[0].split("+"):
                p = k.pieces[uid]
                if p.hidden_at:
                    p.hidden_at, p.facing = "", -1
        elif kind == "dummy":
            k.pieces[args[0]].dummy = False
    fresh = scratch.notes.get(side) or Notes()
    fresh.names = {name: ("" if _sealed(st, side, name) else text) for name, text in names.items()}
    if names:
        k.notes = {**k.notes, side: fresh}


def _minefield(k: TobrukState, mf, viewer: str):
    """A minefield as ``viewer`` may know it: None if it may not know it is there."""
    if mf.side == viewer or not (mf.note and _sealed(k, mf.side, mf.note)):
        return mf
    if mf.hidden:
        return None
    if mf.known:
        return msgspec.structs.replace(mf, note="")
    return msgspec.structs.replace(mf, density=0, dummy=False, note="")


def _maybe_dummy(before: TobrukState, sc: Scenario, others: list[str], args: list[str]) -> str:
    """The target of ``fire ... at TARGET|HEX`` that may be a dummy: a counter the card lets another
    side make a dummy (32.24) while that side's ``dummy-`` note is sealed ("" if none)."""
    low = [a.lower() for a in args]
    if "at" not in low or low.index("at") + 1 >= len(args):
        return ""
    target = args[low.index("at") + 1]
    for s in others:
        if not any(k.startswith(f"{s}:dummy-") for k in before.secrets):
            continue
        counters = sc.game_data.get("dummies", {}).get(s, {}).get("counters", [])
        for uid in counters:
            u = before.units.get(uid)
            if u is not None and u.hex and (uid.lower() == target.lower() or u.hex == target):
                return uid
    return ""


def check_stop(before: TobrukState, after: TobrukState, events: list[Event], sc: Scenario, side: str,
               order: Order) -> str:
    """Where the real order could reveal what the known state hides (see the module's text)."""
    others = [s for s in sc.side_ids() if s != side]
    if isinstance(order, GameVerb) and order.word in ON_THE_WAY:
        for s in others:
            if any(k.startswith(f"{s}:") and k.split(":", 1)[1].startswith(HIDING) for k in before.secrets):
                return (f"the {sc.side_name(s)} side holds sealed notes of hidden units or minefields, and this "
                        "order enters or searches hexes where they may be (31.15, 32.211)")
    if isinstance(order, GameVerb) and order.word == "fire":
        maybe = _maybe_dummy(before, sc, others, order.args)
        if maybe:
            return f"{maybe} may be a dummy, which fire at it would show (32.24, 32.241)"
    for ev in events:
        turned = [ev.unit] if isinstance(ev, DummyRemoved) else ev.units if isinstance(ev, (Flipped, Revealed)) else []
        turned = [u for u in turned if before.units[u].side != side]
        if turned:
            return (f"{'+'.join(turned)} would be turned over: what it is, even whether it is a dummy, is hidden "
                    "(32.12, 32.24)")
        if isinstance(ev, MineEntered) and ev.side != side:
            mf = before.minefields.get(ev.hex)
            if mf is None or not mf.known:
                return (f"the minefield in {ev.hex} is face down: its density, even whether it is a dummy, "
                        "is hidden (31.14, 31.191)")
    pd = after.pending
    if pd is not None and pd.side != side:
        return (f"the move would stop for {sc.side_name(pd.side)}'s opportunity fire, which its private standing "
                "orders may answer (6.6)")
    return ""
