"""What a check may run on: the game as one side may know it.

A check (CHECK, DRAFT, ``pbem order --check``/``--stage``) commits nothing, so
it may tell a player only what that player could know without committing.  It
runs the rules on *the known state*: a copy of the host's state in which every
secret of another side is replaced by a stand-in that depends only on what the
checker may see, and with *the known records*: the checker's own sealed notes,
those already opened, and for each still sealed note of another side a
placeholder that stops the check when the rules read it.  Whatever the rules
then answer depends only on what the checker may know (non-interference: two
games that look the same to the checker give it the same answers), and so
does the point where a check stops: the first read of another side's sealed
note, and where the game says the real order could reveal something
(``Ruleset.check_stop``).  A check rolls no die: past the first roll it tries
every outcome on this same state (pbem/checking.py).

The core hides what every game shares: the payloads of other sides' sealed
notes, their commitments (public, but two games differing in a note differ in
them), and the units ``Ruleset.unit_row`` hides from the checker (taken off the
map) or shows at another strength.  A game hides what it keeps in its own state
(``Ruleset.known``): notes copied into the state, hidden units, minefields,
standing orders, a hidden draw.  Anything else that answers a side without
committing (what it is offered, whether an order is legal) belongs on this
same state, so that it keeps the same promise.
"""
from __future__ import annotations

from pbem.core import events as E
from pbem.core.scenario import Scenario
from pbem.core.state import GameState, UnitState, copy_state

SEALED = "sealed"                 # another side's commitment in the known state: present, unreadable


class SecretNeeded(Exception):
    """A check read another side's sealed note: it stops there (its payload stays unknown)."""

    def __init__(self, side: str, name: str):
        super().__init__(f"{side}:{name}")
        self.side, self.name = side, name


class Sealed:
    """Another side's sealed note as a check holds it: its side and name (public), and no payload."""

    __slots__ = ("side", "name")

    def __init__(self, side: str, name: str):
        self.side, self.name = side, name

    def _stop(self):
        raise SecretNeeded(self.side, self.name)

    payload = property(_stop)
    salt = property(_stop)
    commitment = property(_stop)


def base_row(sc: Scenario, u: UnitState) -> dict:
    """A unit's row as its own side sees it (``views.unit_rows``; ``Ruleset.unit_row`` filters it)."""
    d = sc.unit_defs.get(u.id)
    return {"id": u.id, "name": d.name if d else "", "side": u.side, "nationality": d.nationality if d else "",
            "type": d.type if d else "", "hex": u.hex, "strength": u.strength, "ma": u.ma, "status": u.status()}


def known_state(rules, st: GameState, sc: Scenario, viewer: str) -> GameState:
    """``st`` as ``viewer`` (a side) may know it: a new state, the true one unchanged."""
    rows = {u.id: rules.unit_row(st, sc, u, base_row(sc, u), viewer)
            for u in st.units.values() if u.side != viewer}
    known = copy_state(st)
    rules.known(known, st, sc, viewer)
    for uid, row in rows.items():
        u = known.units[uid]
        if row is None:                     # not on the checker's map: off the map, as printed
            d = sc.unit_defs.get(uid)
            known.units[uid] = UnitState(id=uid, side=u.side, hex=None, strength=d.strength if d else 0,
                                         ma=d.ma if d else 0)
        elif isinstance(row.get("strength"), int):
            u.strength = row["strength"]    # the strength the checker sees (a printed one, say)
    mine = viewer + ":"
    known.secrets = {k: (c if k.startswith(mine) else SEALED) for k, c in st.secrets.items()}
    return known


def known_records(sealed: dict[str, E.SecretRecorded], st: GameState, viewer: str) -> dict:
    """The sealed records a check may read, by "side:name": the viewer's own, every opened
    one (its payload is in the log for all to read), and a ``Sealed`` placeholder for each
    note of another side still sealed."""
    mine = viewer + ":"
    out: dict = {k: r for k, r in sealed.items() if k.startswith(mine) or k not in st.secrets}
    for k in st.secrets:
        if not k.startswith(mine):
            side, _, name = k.partition(":")
            out[k] = Sealed(side, name)
    return out


def stop_reason(e: SecretNeeded, sc: Scenario) -> str:
    """Why a check stopped at a sealed note, in words (the note's side and name are public)."""
    who = "the referee" if e.side == "referee" else sc.side_name(e.side)
    return f"it would read {who}'s sealed note {e.name}"
