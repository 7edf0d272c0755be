"""Spotting (32.25, 32.26): who can see whom under limited intelligence.

The rulebook text names the Spotting Ranges Table's columns (V vehicles, P
personnel with their light and medium weapons, H heavy crew-served weapons)
and its rows (one per scenario condition, OPTIMAL when the card names none,
and a 'SUP | FOW' row) but prints no values: RANGES is reconstructed.
With ``[game_data] limited_intelligence`` off every unit on the map is
spotted and nothing here changes a rule."""
from __future__ import annotations

from pbem.core.orders import OrderError
from pbem.core.scenario import Scenario
from pbem.games.advanced_tobruk import data
from pbem.games.advanced_tobruk.state import TobrukState

# 32.25 Spotting Ranges Table, in hexes. RECONSTRUCTED: the text prints only the column key.
# Rows: the scenario's conditions (32.253; "" = optimal) and the SUP|FOW row for a suppressed
# observer or a target showing its FOW side (32.253).  Columns V / P / H (32.251).
RANGES: dict[str, dict[str, int]] = {            # reconstructed
    "optimal": {"V": 16, "P": 6, "H": 8},
    "haze": {"V": 10, "P": 4, "H": 5},
    "dawn": {"V": 8, "P": 4, "H": 5},
    "dusk": {"V": 8, "P": 4, "H": 5},
    "night": {"V": 2, "P": 1, "H": 1},
    "khamsin": {"V": 2, "P": 1, "H": 1},         # 34.42
    "sup|fow": {"V": 6, "P": 3, "H": 3},
}
SUP_FOW = "sup|fow"
# 32.261 / 33.3 map levels: a map feature or terrain with one of these names raises its hexes
# (a hillock's first contour is level +5, 33.32).  Reconstructed names for this project's maps.
LEVELS = {"hillock": 5, "hillock10": 10, "hillock20": 20}
HIDE_TERRAIN = ("scrub", "rock-strewn", "rocks", "palm-grove", "building")     # 32.21
PIT = "pit"                                                                     # weapon pit (31.31)


def hide_terrain(sc: Scenario, h: str | None) -> bool:
    """32.21: terrain a heavy weapon may set up hidden in."""
    return bool(h) and data.terrain(sc, h) in HIDE_TERRAIN


def active(sc: Scenario) -> bool:
    """32 is in force (the scenario's SSR)."""
    return data.gd(sc).limited_intelligence


def condition(sc: Scenario) -> str:
    return data.gd(sc).conditions or "optimal"


def range_for(sc: Scenario, letter: str, fow_or_sup: bool = False) -> int:
    """32.253: the table's range for a V/P/H target under the scenario's conditions; the
    SUP|FOW row when the observer is suppressed or the target shows its FOW side (never longer
    than the conditions' own row: a Khamsin stays a Khamsin)."""
    row = RANGES.get(condition(sc))
    if row is None:
        raise OrderError(f"unknown spotting conditions {condition(sc)!r} (32.253: one of "
                         f"{', '.join(k for k in RANGES if k != SUP_FOW)})", "32.253")
    r = row[letter]
    return min(r, RANGES[SUP_FOW][letter]) if fow_or_sup else r


def letter(sc: Scenario, uid: str) -> str:
    """32.251: V vehicles, H heavy crew-served weapons, P personnel and light/medium weapons."""
    if data.is_vehicle(sc, uid):
        return "V"
    if data.is_heavy(sc, uid):
        return "H"
    return "P"


def level(sc: Scenario, h: str | None) -> int:
    """33.11, 33.32: a hex's ground level (0 off any hillock)."""
    if not h:
        return 0
    best = LEVELS.get(data.terrain(sc, h), 0)
    for name in sc.board.features.get(h, ()):
        best = max(best, LEVELS.get(name, 0))
    return best


def where(st: TobrukState, uid: str) -> str | None:
    """The hex a unit sees from: on the map, or its hidden set-up hex (a hidden unit still looks out)."""
    u = st.units[uid]
    if u.eliminated or u.gone or uid in st.exited:
        return None
    return u.hex or st.pieces[uid].hidden_at or None


def fow_up(st: TobrukState, sc: Scenario, uid: str) -> bool:
    """32.11: a vehicle or heavy weapon not yet flipped shows its FOW side."""
    return active(sc) and (data.is_vehicle(sc, uid) or data.is_heavy(sc, uid)) and not st.pieces[uid].flipped


def spotting_range(st: TobrukState, sc: Scenario, observer: str, target: str) -> int:
    """32.25, 32.26: how far ``observer`` spots ``target``: the table plus the height advantage
    (32.261: the higher of the two levels above 0 adds, spotting being reciprocal)."""
    sup = st.pieces[observer].suppressed or fow_up(st, sc, target)
    base = range_for(sc, letter(sc, target), sup)
    return base + max(0, level(sc, where(st, observer)), level(sc, where(st, target)))


def los_clear(st: TobrukState, sc: Scenario, a: str, b: str) -> bool:
    """33.151-33.162 on this project's maps: the line is blocked by two burning wrecks (13.72),
    two smoke hexes (33.162) or an intervening hex higher than both ends (a hillock between two
    lower units; blind hexes, 33.161, are not modelled)."""
    between = data.line_between(sc, a, b)
    if not between:
        return True
    burning = sum(1 for u in st.units.values() if u.hex in between and st.pieces[u.id].wreck == "burning")
    smoke = sum(1 for h in between if h in st.smoke)
    if burning + smoke >= 2:
        return False
    top = max(level(sc, a), level(sc, b))
    return all(level(sc, h) <= top for h in between)


def can_spot(st: TobrukState, sc: Scenario, observer: str, target: str) -> bool:
    """``observer`` sees ``target`` (on the map or, for the 32.22 check of a hidden unit, in its noted
    hex).  Dummies, weapons on their own (their holders look), surrendered units and vehicles their
    crew bailed out of spot nothing."""
    a, b = where(st, observer), where(st, target)
    if not a or not b:
        return False
    op = st.pieces[observer]
    if op.dummy or op.surrendered or op.bailed or data.is_weapon(sc, observer) \
            or st.units[observer].side == st.units[target].side:
        return False
    if sc.board.grid.distance(a, b) > spotting_range(st, sc, observer, target):
        return False
    return los_clear(st, sc, a, b)


def spotted(st: TobrukState, sc: Scenario, side: str, target: str) -> bool:
    """32.251, 32.252: ``side`` may fire on ``target``: any of its units can spot it, or it is a
    vehicle / heavy weapon flipped for good.  Without limited intelligence every unit on the map is."""
    u = st.units[target]
    if not u.hex or u.eliminated:
        return False
    if not active(sc):
        return True
    p = st.pieces[target]
    if p.flipped and (data.is_vehicle(sc, target) or data.is_heavy(sc, target)):
        return True
    return any(o.side == side and can_spot(st, sc, o.id, target) for o in st.units.values())


def require(st: TobrukState, sc: Scenario, side: str, target: str) -> None:
    """The fire gate: refuse fire at a unit ``side`` has not spotted (32.251)."""
    if not spotted(st, sc, side, target):
        raise OrderError(f"{target} is not spotted by any {sc.side_name(side)} unit: no unit may be fired on "
                         f"unless it is spotted (32.251)", "32.251")
