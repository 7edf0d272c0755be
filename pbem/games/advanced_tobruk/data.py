"""The scenario's unit data and terrain as the rules read them.

Types live in ``[game_data.types.<type>]`` (the AFV cards and counters, all
reconstructed), per-unit set-up extras in ``[game_data.units.<id>]`` and the
terrain in ``[terrain.*]`` plus map features ("track", "road") and hexside
features ("dune", "contour" with its ``up`` hex)."""
from __future__ import annotations

from pbem.core.scenario import Scenario
from pbem.games.advanced_tobruk.schema import TobrukData, TobrukVictory

VEHICLES = ("afv", "apc", "truck")
PERSONNEL = ("squad", "crew", "leader")
SP = {"squad": 3, "crew": 2, "leader": 1}          # 4.31 stacking points (a half-squad is 2)


def gd(sc: Scenario) -> TobrukData:
    """The scenario's ``[game_data]``, typed by schema.py (each default is the schema's)."""
    return sc.tables.data


def vic(sc: Scenario) -> TobrukVictory:
    """The scenario's ``[victory]``, typed by schema.py."""
    return sc.tables.victory


def types(sc: Scenario) -> dict:
    return gd(sc).types


def utype(sc: Scenario, uid: str) -> dict:
    """The type table (counter / AFV card) of a unit (read through ``_by_unit``: the rules ask
    for it thousands of times an order)."""
    try:
        return sc.__dict__["_tobruk_utype"][uid]
    except KeyError:                              # the table not made yet, or no such unit (KeyError)
        t = _by_unit(sc).get(uid)
        return t if t is not None else types(sc).get(sc.unit_defs[uid].type, {})


def _by_unit(sc: Scenario) -> dict[str, dict]:
    """unit id -> its type table, once per scenario (the tables themselves, not copies)."""
    known = sc.__dict__.get("_tobruk_utype")
    if known is None:
        tt = types(sc)
        known = sc.__dict__["_tobruk_utype"] = {u.id: tt.get(u.type, {}) for u in sc.units}
    return known


def _cls_by_unit(sc: Scenario) -> dict[str, str]:
    """unit id -> its class (``cls``), once per scenario."""
    known = sc.__dict__.get("_tobruk_cls")
    if known is None:
        known = sc.__dict__["_tobruk_cls"] = {uid: t.get("cls", "") for uid, t in _by_unit(sc).items()}
    return known


def extra(sc: Scenario, uid: str) -> dict:
    """The unit's own set-up data ([game_data.units.<id>])."""
    return gd(sc).units.get(uid, {})


def cls(sc: Scenario, uid: str) -> str:
    try:
        return sc.__dict__["_tobruk_cls"][uid]
    except KeyError:
        c = _cls_by_unit(sc).get(uid)
        return c if c is not None else utype(sc, uid).get("cls", "")


def is_vehicle(sc: Scenario, uid: str) -> bool:
    try:
        return sc.__dict__["_tobruk_cls"][uid] in VEHICLES
    except KeyError:
        return cls(sc, uid) in VEHICLES


def is_afv(sc: Scenario, uid: str) -> bool:
    return cls(sc, uid) == "afv"


def is_personnel(sc: Scenario, uid: str) -> bool:
    try:
        return sc.__dict__["_tobruk_cls"][uid] in PERSONNEL
    except KeyError:
        return cls(sc, uid) in PERSONNEL


def is_fo(sc: Scenario, uid: str) -> bool:
    """18.83: a forward observer (a leader counter with the FO triangle: its type's ``fo``)."""
    return bool(utype(sc, uid).get("fo"))


def is_weapon(sc: Scenario, uid: str) -> bool:
    return cls(sc, uid) == "weapon"


def is_heavy(sc: Scenario, uid: str) -> bool:
    t = utype(sc, uid)
    return t.get("cls") == "weapon" and t.get("weight") == "H"


def mp_values(sc: Scenario, uid: str) -> tuple[int, int]:
    """A vehicle's cross-country and assault movement values (6.511)."""
    mp = utype(sc, uid).get("mp", [0, 0])
    return int(mp[0]), int(mp[1])


def motion(sc: Scenario, uid: str) -> str:
    return utype(sc, uid).get("motion", "")


def line_between(sc: Scenario, a: str, b: str) -> frozenset[str]:
    """The hexes of the line from ``a`` to ``b`` but its ends (the map's alone: kept per scenario,
    at most 20,000 lines; lines of sight and fire ask for the same ones again and again)."""
    known = sc.__dict__.get("_tobruk_between")
    if known is None:
        known = sc.__dict__["_tobruk_between"] = {}
    hexes = known.get((a, b))
    if hexes is None:
        if len(known) >= 20_000:
            known.clear()
        hexes = known[(a, b)] = frozenset(h for h in sc.board.grid.line(a, b) if h not in (a, b))
    return hexes


def terrain(sc: Scenario, h: str) -> str:
    return sc.board.terrain.get(h, "open")


def friendly_edges(sc: Scenario, side: str) -> list[str]:
    """6.1: the side's friendly map edges (from the scenario card)."""
    return list(gd(sc).friendly_edge.get(side, []))


def exit_edges(sc: Scenario, side: str) -> list[str]:
    """2.46: the map edges a side may exit units from for victory points."""
    return list(vic(sc).exit_edge.get(side, []))
