"""Hull defilade (31.35c, 31.36, 33.35, 33.43, 33.53, 33.63, 33.74, 33.8), on a card that
sets ``[game_data] hull_defilade = true`` (a card without it plays as before).

An AFV takes a Hull Defilade marker (``Piece.hd``, a HullDefilade event) as it sets up or
enters a hex:
* at once: in a weapon pit (31.35c, all round), in a deir hex with a contour hexside
  (``contour``: against fire entering the hex across a contour, from above, 33.43), on a
  hillock hex with a contour hexside down (``crest``: against fire from below entering
  across it, 33.35), up in a wadi's GOOD position (``rim``: across the hexsides it looks
  over, 33.74);
* by a roll, after all set-up or on entering by assault movement: scrub 1 (33.63), rock-
  strewn terrain 2 or less (33.53: ``rolled``, all round), up on a hillock away from its
  edge 1 (33.35: ``hill``, against fire from a lower level; our reading of 'across the
  lower, facing out, contour').
It keeps the marker until it leaves the hex (33.81, reducer.py); one AFV a hex holds one
(33.82, 33.83).  Effect: a direct-fire hit on the lower hull, upper hull or tracks of a
turreted AFV (lower hull or tracks of a non-turreted one) does nothing (31.35c); never at
one hex or less (31.36).  Indirect fire's direct hits are not direct fire: no effect."""
from __future__ import annotations

from pbem.core.ruleset import Ctx
from pbem.core.scenario import Scenario
from pbem.games.advanced_tobruk import data
from pbem.games.advanced_tobruk.board import ground, relief
from pbem.games.advanced_tobruk.perimeter_events import HullDefilade
from pbem.games.advanced_tobruk.state import TobrukState, tk
from pbem.games.advanced_tobruk.board.cover_moves import rim_sides
from pbem.core.hexgrid import DIRECTIONS

ROLLS = {"scrub": 1, "rock-strewn": 2, "rock": 2, "rocks": 2}      # 33.63, 33.53
HILL_ROLL = 1                                                      # 33.35
RULES = {"scrub": "33.63", "rock-strewn": "33.53", "rock": "33.53", "rocks": "33.53"}


def active(sc: Scenario) -> bool:
    return data.gd(sc).hull_defilade


def _held_in(st: TobrukState, h: str, but: str) -> bool:
    """33.83: another AFV in ``h`` holds a hull-defilade marker."""
    return any(u.hex == h and u.id != but and not u.eliminated and st.pieces[u.id].hd for u in st.units.values())


def _automatic(st: TobrukState, sc: Scenario, uid: str, h: str) -> tuple[str, str, str]:
    """(kind, terrain, rule) of a hull-defilade position the hex gives at once, or ('', '', '')."""
    grid = sc.board.grid
    if st.pieces[uid].rim >= 0 and ground.is_wadi(sc, h):
        return "rim", "wadi", "33.74"
    if ground.has(st, sc, h, ground.PIT) and not any(
            u.hex == h and u.id != uid and not u.eliminated and data.is_vehicle(sc, u.id) for u in st.units.values()):
        return "pit", "weapon pit", "31.35c"
    sides = [n for n in grid.neighbours(h) if ground.contour(sc, h, n)]
    if ground.is_deir(sc, h) and any(ground.level(sc, n) > ground.level(sc, h) for n in sides):
        return "contour", "deir", "33.43"
    if ground.level(sc, h) > 0 and any(ground.level(sc, n) < ground.level(sc, h) for n in sides):
        return "crest", "hillock", "33.35"
    return "", "", ""


def take(ctx: Ctx, uid: str, may_roll: bool) -> None:
    """An AFV in its hex after set-up (``may_roll``) or after entering it (``may_roll`` by assault movement)."""
    st = tk(ctx.state)
    sc = ctx.sc
    h = st.units[uid].hex
    p = st.pieces[uid]
    if not h or not data.is_afv(sc, uid) or p.hd or st.units[uid].eliminated or _held_in(st, h, uid):
        return
    kind, terr, rule = _automatic(st, sc, uid, h)
    if kind:
        ctx.emit(HullDefilade(unit=uid, hex=h, position=kind, terrain=terr, rule=rule))
        return
    t = data.terrain(sc, h)
    number = ROLLS.get(t, HILL_ROLL if ground.level(sc, h) > 0 else 0)
    if not may_roll or not number:
        return
    r = ctx.dice.roll(10)
    ctx.emit(HullDefilade(unit=uid, hex=h, position="rolled" if t in ROLLS else "hill", terrain=t if t in ROLLS else
                          "hillock", number=number, rolls=[r], gained=r <= number, rule=RULES.get(t, "33.35")))


def after_setup(ctx: Ctx) -> None:
    """33.35, 33.53, 33.63: after all set-up every AFV on the map takes its position (rolls where due)."""
    if not active(ctx.sc):
        return
    st = tk(ctx.state)
    for uid in sorted(st.units):
        if st.units[uid].hex:
            take(ctx, uid, True)


def after_step(ctx: Ctx, movers: list[str], what: str, here: str, move: str) -> None:
    """A moving AFV that entered a hex (a roll only by assault movement) or went up in a wadi."""
    if not active(ctx.sc):
        return
    if what in ("enter", "reverse") or what == "cover" and ctx.state.pieces[movers[0]].rim >= 0:
        for u in movers:
            take(ctx, u, move == "assault")


def protects(st: TobrukState, sc: Scenario, target: str, frm: str, location: str) -> str:
    """Why a direct-fire hit on ``location`` of ``target`` from ``frm`` does nothing ('' if it counts)."""
    p = st.pieces[target]
    h = st.units[target].hex
    if not p.hd or not h or sc.board.grid.distance(frm, h) <= 1:
        return ""                                                  # 31.36
    turreted = bool(data.utype(sc, target).get("turret"))
    if location not in (("UH", "LH", "TR") if turreted else ("LH", "TR")):
        return ""
    if not covers(st, sc, target, frm):
        return ""
    return f"hull defilade ({p.hd}): a hit on the {location} does nothing (31.35c, 33.8)"


def covers(st: TobrukState, sc: Scenario, target: str, frm: str) -> bool:
    """The target's hull-defilade marker faces fire from ``frm``."""
    p = st.pieces[target]
    h = st.units[target].hex
    sides = relief.enter_sides(sc, frm, h)
    if p.hd in ("pit", "rolled"):
        return True
    if p.hd == "hill":
        return ground.level(sc, frm) < ground.level(sc, h)
    if p.hd == "rim":
        return bool(sides & set(rim_sides(sc, h, p.rim)))
    if p.hd == "contour":
        return ground.level(sc, frm) > ground.level(sc, h) and relief.at_lip(sc, h, frm)
    if p.hd == "crest":
        grid = sc.board.grid
        return ground.level(sc, frm) < ground.level(sc, h) and any(
            (n := grid.neighbour(h, DIRECTIONS[d])) is not None and ground.level(sc, n) < ground.level(sc, h)
            for d in sides)
    return False
