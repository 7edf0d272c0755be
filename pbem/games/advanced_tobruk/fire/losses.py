"""A unit's steps and values and a hex's emplacement, as the Casualty Table reads them (15.11,
15.712, 15.82, 15.91): how many steps a unit has, what it is worth after its losses, which
emplacement or cover terrain a hex holds, and how a number of steps falls on a stack.  The
morale checks (morale.py) and Continued Fire (continued_fire.py) read them below the attack
that calls them (casualty.py, which re-exports these names)."""
from __future__ import annotations

from pbem.core.scenario import Scenario
from pbem.games.advanced_tobruk import data
from pbem.games.advanced_tobruk.state import TobrukState

SQUAD_STEPS = 4
OTHER_STEPS = 2
EMPLACEMENTS_GOOD = ("hedgehog", "pit", "sangar", "trench", "bunker")   # 15.712113 'or its equivalent'; on top
IMPROVED_TERRAIN = ("building", "blockhouse")                 # 15.712115 (inside a bunker is FULL, 31.53)


def max_steps(sc: Scenario, uid: str) -> int:
    return SQUAD_STEPS if data.cls(sc, uid) == "squad" else OTHER_STEPS


def values(st: TobrukState, sc: Scenario, uid: str) -> tuple[int, int, int]:
    """(gunfire, range, morale) as the unit stands: the reduced side after a step on a crew or
    leader or two on a squad, one less gunfire and morale under a casualties marker (15.91)."""
    t = data.utype(sc, uid)
    s = st.pieces[uid].steps
    full = (int(t.get("gunfire", 0)), int(t.get("range", 0)), int(t.get("morale", 0)))
    red = t.get("reduced", {})
    reduced = (int(red.get("gunfire", full[0])), int(red.get("range", full[1])), int(red.get("morale", full[2])))
    if data.cls(sc, uid) == "squad":
        base = reduced if s >= 2 else full
        marker = 1 if s in (1, 3) else 0
        return max(0, base[0] - marker), base[1], base[2] - marker
    return reduced if s >= 1 else full


def emplacement(sc: Scenario, h: str, st: TobrukState | None = None) -> str:
    """The emplacement or cover terrain of a hex ('' for none); with ``st``, one the game removed
    (wire cleared, a bunker destroyed: ground.py) is gone."""
    for name in (*EMPLACEMENTS_GOOD, *IMPROVED_TERRAIN):
        if sc.board.has(h, name) and (st is None or f"{h}:{name}" not in st.cleared) or data.terrain(sc, h) == name:
            return name
    return ""


def absorb(st: TobrukState, sc: Scenario, order: list[str], level: int) -> list[list[str]]:
    """15.11, 15.82: ``level`` steps taken by the units in ``order`` (poorest cover first), each
    to its last step before the rest passes on.  [unit, steps after, 'eliminated' | '']."""
    out: list[list[str]] = []
    left = level
    for uid in order:
        if left <= 0:
            break
        have = st.pieces[uid].steps
        room = max_steps(sc, uid) - have
        take = min(room, left)
        left -= take
        after = have + take
        out.append([uid, str(after), "eliminated" if after >= max_steps(sc, uid) else ""])
    return out
