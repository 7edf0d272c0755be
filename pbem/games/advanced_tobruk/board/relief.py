"""Deirs and wadis (33.4, 33.7): who may fire at whom across them, and the cover
they give against direct fire.  Nothing here rolls; a card without deir or wadi
hexes is not touched (every function returns at once).

Deirs (33.41-33.43), read together with the example under 33.83:
* personnel at a deir's lip (the line of fire enters their hex across a contour
  hexside of it) are seen, and are in GOOD cover against non-adjacent fire from
  above (33.43); an AFV there is in hull defilade (defilade.py);
* personnel deeper in the deir (the line crossed the contour elsewhere) are out of
  the line of sight of a unit at level 0 or +5, unless that unit stands at the
  deir's edge looking down (its own hex has the contour the line crosses: squad
  '15' of the example sees all the deir), stands at +10 or more, or stands on a
  +5 hillock within five hexes of the deir's first hex (33.42), or the personnel
  run or move by assault movement.  The text of 33.42 names running and assault
  moving personnel as the ones out of sight; its example says the opposite ('it
  could NOT see 13 unless the latter was Running or using Assault Movement'):
  pbem follows the example, which also agrees with 33.43's GOOD cover;
* the same holds the other way round (33.42: 'the target OR firing unit');
  vehicles and heavy weapons in a deir are seen normally.

Wadis (33.71-33.751):
* a unit at a wadi's bottom (not up in a GOOD position) has a line of sight only
  to adjacent hexes, and only units in adjacent hexes to it (33.151, 33.751, and
  the example under 35.311); personnel there are in GOOD cover against direct fire
  (33.73: on the bottom as on top of a hedgehog, FULL as under it);
* a unit up in a GOOD position (``Piece.rim``, cover_moves.py) fires and is fired on
  only across the hexsides it looks over, in GOOD cover (AFVs: hull defilade);
* against indirect fire a wadi gives no cover and FULL cover in it counts as
  STATIONARY (33.73)."""
from __future__ import annotations

from pbem.core.hexgrid import DIRECTIONS
from pbem.core.scenario import Scenario
from pbem.games.advanced_tobruk import data
from pbem.games.advanced_tobruk.board import ground
from pbem.games.advanced_tobruk.state import TobrukState
from pbem.games.advanced_tobruk.board.cover_moves import rim_sides

SEE_DOWN = 10                      # 33.42: from +10 or more a unit sees into a deir
HILLOCK_REACH = 5                  # 33.42: from +5, within five hexes of the deir's first hex
GOOD_SHIFT = -1                    # GOOD cover: one column left (15.712113)


def in_use(sc: Scenario) -> bool:
    """Whether the map has a deir or a wadi (33): the map's alone, found once per scenario
    (fire and spotting ask it for every pair of units)."""
    known = sc.__dict__.get("_tobruk_relief")
    if known is None:
        terr = set(sc.board.terrain.values())
        known = sc.__dict__["_tobruk_relief"] = ground.DEIR in terr or ground.WADI in terr
    return known


def enter_sides(sc: Scenario, a: str, b: str) -> set[int]:
    """The hexsides of ``b`` (0..5, N..NW) through which the line from ``a`` enters it (both where
    the line runs along a hexside)."""
    grid = sc.board.grid
    if a == b:
        return set()
    pairs = grid.line_pairs(a, b)
    prev = pairs[-2] if len(pairs) >= 2 else (a, a)
    out = set()
    for x in set(prev):
        d = grid.direction(b, x)
        if d is not None:
            out.add(DIRECTIONS.index(d))
    return out


def _contour_sides(sc: Scenario, h: str, sides: set[int]) -> bool:
    """One of ``sides`` of ``h`` is a contour with ``h`` on its lower side."""
    grid = sc.board.grid
    for d in sides:
        n = grid.neighbour(h, DIRECTIONS[d])
        if n is not None and ground.contour(sc, h, n) and ground.level(sc, n) > ground.level(sc, h):
            return True
    return False


def at_lip(sc: Scenario, h: str, frm: str) -> bool:
    """33.43: fire from ``frm`` enters the deir hex ``h`` across one of its contour hexsides."""
    return ground.is_deir(sc, h) and _contour_sides(sc, h, enter_sides(sc, frm, h))


def _assault_moving(st: TobrukState, uid: str) -> bool:
    p = st.pieces[uid]
    return p.move in ("run", "assault") and (p.moving or p.moved)


def _deep_unseen(st: TobrukState, sc: Scenario, obs: str, uid: str, h: str) -> bool:
    """33.42 (with the 33.83 example): personnel ``uid`` deep in the deir hex ``h`` unseen from ``obs``."""
    if not ground.is_deir(sc, h) or ground.level(sc, obs) <= ground.level(sc, h) or not data.is_personnel(sc, uid):
        return False
    if at_lip(sc, h, obs) or ground.level(sc, obs) >= SEE_DOWN or _assault_moving(st, uid):
        return False
    grid = sc.board.grid
    if any(ground.is_deir(sc, grid.neighbour(obs, DIRECTIONS[d])) for d in enter_sides(sc, h, obs)):
        return False                                     # the observer at the deir's edge, looking down
    if ground.level(sc, obs) >= 5:
        first = next((x for x in grid.line(obs, h) if ground.is_deir(sc, x)), h)
        if grid.distance(obs, first) <= HILLOCK_REACH:
            return False
    return True


def _wadi_blocks(st: TobrukState, sc: Scenario, uid: str, h: str, other: str) -> str:
    """33.74, 33.751: why a unit in the wadi hex ``h`` and ``other`` have no line of sight ('' if they have)."""
    if not ground.is_wadi(sc, h) or h == other:
        return ""
    rim = st.pieces[uid].rim if uid in st.pieces else -1
    if rim >= 0:
        if not enter_sides(sc, other, h) & set(rim_sides(sc, h, rim)):
            return f"{uid} in its GOOD position in {h} looks over the {DIRECTIONS[rim]} side only (33.74)"
        return ""
    if sc.board.grid.distance(h, other) > 1:
        return f"{uid} is down in the wadi in {h}: a line of sight only to adjacent hexes (33.751)"
    return ""


def blocked(st: TobrukState, sc: Scenario, a: str, a_hex: str, b: str, b_hex: str) -> str:
    """Why units ``a`` (in ``a_hex``) and ``b`` (in ``b_hex``) have no line of sight for direct fire
    ('' if they have one).  Either may be '' (a hex without a unit named)."""
    if not in_use(sc) or not a_hex or not b_hex:
        return ""
    for uid, h, other in ((a, a_hex, b_hex), (b, b_hex, a_hex)):
        why = _wadi_blocks(st, sc, uid, h, other) if uid else ""
        if why:
            return why
        if uid and _deep_unseen(st, sc, other, uid, h):
            return f"{uid} is deep in the deir in {h}: out of the line of sight from {other} (33.42)"
    return ""


def rule_of(why: str) -> str:
    """The rule number a ``blocked`` answer ends with."""
    return why.rsplit("(", 1)[-1].rstrip(")") if why.endswith(")") else "33"


def cover_from(st: TobrukState, sc: Scenario, uid: str, frm: str) -> tuple[int, str]:
    """(column shift, why) of the terrain cover personnel ``uid`` has against direct fire from
    ``frm``: GOOD at a deir's lip against non-adjacent fire from above (33.43), GOOD in a wadi
    (33.73, 33.74); (0, '') otherwise and against indirect fire (``frm`` '')."""
    h = st.units[uid].hex
    if not frm or not h or not in_use(sc):
        return 0, ""
    if ground.is_wadi(sc, h):
        return GOOD_SHIFT, "good (wadi, 33.73)"
    if ground.is_deir(sc, h) and sc.board.grid.distance(frm, h) > 1 and ground.level(sc, frm) > ground.level(sc, h) \
            and at_lip(sc, h, frm):
        return GOOD_SHIFT, "good (deir contour, 33.43)"
    return 0, ""


def full_vs_indirect(st: TobrukState, sc: Scenario, uid: str) -> bool:
    """33.73: FULL cover counts against indirect fire, except in a wadi (STATIONARY there)."""
    return st.pieces[uid].full and not ground.is_wadi(sc, st.units[uid].hex)
