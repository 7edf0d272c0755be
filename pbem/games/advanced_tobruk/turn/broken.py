"""The movement of broken units (11.131): a personnel unit that begins the
Movement Segment broken, and not already where it is safe, must move towards
the nearest safety - a friendly map edge (6.1), an emplacement (a hedgehog,
weapon pit, AT trench) or a building, whichever is closest - at most three
hexes, never closer to the enemy.  Where no such step exists it may crawl one
hex in any direction, or stay.

By e-mail: the owner moves it (``assault UNIT HEX ...`` or ``crawl UNIT HEX``);
the move is refused unless it ends nearer safety, and a side may not pass the
Movement Segment while one of its broken units still could and has not moved."""
from __future__ import annotations

from pbem.core.scenario import Scenario
from pbem.games.advanced_tobruk import data
from pbem.games.advanced_tobruk.fire.casualty import emplacement
from pbem.games.advanced_tobruk.state import TobrukState

MAX_HEXES = 3


def _edge_distance(sc: Scenario, h: str, edge: str) -> int:
    g = sc.board.grid
    col, row = int(h[:2]), int(h[2:])
    return {"north": row - g.first_row, "south": g.last_row - row,
            "west": col - g.first_col, "east": g.last_col - col}[edge]


def safety_distance(sc: Scenario, side: str, h: str) -> int:
    """Hexes from ``h`` to the nearest safety (0: it is safe there)."""
    g = sc.board.grid
    best = min((_edge_distance(sc, h, e) for e in data.friendly_edges(sc, side)), default=99)
    for x in _safe_hexes(sc):
        best = min(best, g.distance(h, x))
    return best


def _safe_hexes(sc: Scenario) -> list[str]:
    cached = sc.__dict__.get("_tobruk_safe")
    if cached is None:
        cached = [h for h in sc.board.grid.all_hexes()
                  if emplacement(sc, h) or data.terrain(sc, h) == "building"]
        sc.__dict__["_tobruk_safe"] = cached
    return cached


def nearest_enemy(st: TobrukState, sc: Scenario, h: str, side: str) -> int:
    g = sc.board.grid
    return min((g.distance(h, u.hex) for u in st.units.values()
                if u.side != side and u.hex and not u.eliminated and not st.pieces[u.id].wreck), default=99)


def safe_steps(st: TobrukState, sc: Scenario, uid: str) -> list[str]:
    """Adjacent hexes a broken unit may step into towards safety (11.131)."""
    u = st.units[uid]
    g = sc.board.grid
    enemy = {v.hex for v in st.units.values() if v.side != u.side and v.hex and not v.eliminated
             and not st.pieces[v.id].wreck}
    here_safe = safety_distance(sc, u.side, u.hex)
    here_enemy = nearest_enemy(st, sc, u.hex, u.side)
    return [n for n in g.neighbours(u.hex) if n not in enemy
            and safety_distance(sc, u.side, n) < here_safe and nearest_enemy(st, sc, n, u.side) >= here_enemy]


def must_move(st: TobrukState, sc: Scenario, side: str) -> list[str]:
    """Broken units of ``side`` that have not moved this segment and could still step towards safety."""
    out = []
    for uid, u in sorted(st.units.items()):
        p = st.pieces[uid]
        if u.side != side or u.hex is None or u.eliminated or not p.broken or p.surrendered or p.melee:
            continue
        if uid in st.step.acted or p.full or safety_distance(sc, side, u.hex) == 0:
            continue
        if safe_steps(st, sc, uid):
            out.append(uid)
    return out


def check_move(st: TobrukState, sc: Scenario, uid: str, move: str, end: str, hexes: int) -> str:
    """Why a broken unit's move breaks 11.131 ("" if it does not)."""
    u = st.units[uid]
    if hexes > MAX_HEXES:
        return f"{uid} is broken: it moves at most three hexes"
    if nearest_enemy(st, sc, end, u.side) < nearest_enemy(st, sc, u.hex, u.side):
        return f"{uid} is broken and may not move closer to the enemy"
    if safety_distance(sc, u.side, end) < safety_distance(sc, u.side, u.hex):
        return ""
    if move == "crawl" and not safe_steps(st, sc, uid):
        return ""                                     # no way towards safety: one hex, any direction
    return f"{uid} is broken: it must move towards the nearest friendly map edge, emplacement or building"
