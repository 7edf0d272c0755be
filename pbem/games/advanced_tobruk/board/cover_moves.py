"""Going under cover and coming out (15.22, 15.712116, 31.02, 31.25, 31.5, 33.7).

Personnel in a hex with a hedgehog, a weapon pit, an anti-tank trench (31.74), a
bunker (inside it, 31.53) or a wadi (33.73) may be in FULL cover.  In a move they
write it as steps (movement.py):

    under        go under the cover in this hex: one more MP (31.02); a crawl may enter
                 a hex and go under (31.254); a bunker holds three stacking points or one
                 medium or heavy weapon and its crew, never with enemy units inside (31.52, 31.572)
    out          come out on top (GOOD cover): no MP (our decision; 15.712116 names no cost)
    rim DIR      up into a wadi's GOOD cover position, the LOS +10 marker pointing to the
                 hexside DIR (N NE SE S SW NW) that the wadi does not cross: four MP, or a
                 crawl (33.74); personnel, weapons and turreted AFVs only
    down         back down to the wadi's bottom: one MP (our decision; 33.741 names none)

A unit under cover that moves to an adjacent hex of the same cover stays under
(hedgehog to hedgehog or weapon pit, trench to trench, wadi to wadi: 31.256, 31.33,
33.73); into any other hex it comes out.  From a wadi's GOOD position a unit leaves
only across the hexsides the position looks over (33.741).  In the Infiltration Phase
``infiltrate UNIT under|out`` does the same (31.254); out of a bunker into enemy
units it starts a melee (31.571).

Drop (15.22, 31.253): when direct fire comes into a hex, before any die, each target
personnel unit there whose side's standing order says ``drop`` (standing.py) drops into
FULL cover if it may: not marked fired, not broken or surrendered, not moving, not in
melee, in a hex that offers FULL cover (a bunker: while there is room).  Its fire is
then made all the same (31.253: the firers are marked fired)."""
from __future__ import annotations

from fractions import Fraction

from pbem.core.hexgrid import DIRECTIONS
from pbem.core.orders import OrderError
from pbem.core.ruleset import Ctx
from pbem.core.scenario import Scenario
from pbem.games.advanced_tobruk import data
from pbem.games.advanced_tobruk.board import ground
from pbem.games.advanced_tobruk.perimeter_events import CoverChanged
from pbem.games.advanced_tobruk.state import StandingOrders, TobrukState, tk

COVER_STEPS = ("under", "out", "down")          # and "rim:N"
UNDER_COST = Fraction(1)                        # 31.02
OUT_COST = Fraction(0)                          # our decision
RIM_COST = Fraction(4)                          # 33.74
DOWN_COST = Fraction(1)                         # our decision
BUNKER_SP = 3                                   # 31.52


def shown(sc: Scenario) -> bool:
    """The help and set-up letters offer the cover steps and ``drop``: a card with a bunker, trench,
    hedgehog or wadi (weapon pits alone, as on the earlier cards, keep their letters as they were;
    the orders work there too)."""
    return any(fs & {ground.BUNKER, ground.TRENCH, ground.HEDGEHOG} for fs in sc.board.features.values()) or \
        ground.WADI in sc.board.terrain.values()


def is_cover_step(s: str) -> bool:
    return s in COVER_STEPS or s.startswith("rim:")


def start_cover(st: TobrukState, uid: str) -> str:
    p = st.pieces[uid]
    return "full" if p.full else f"rim:{p.rim}" if p.rim >= 0 else "top"


def rim_sides(sc: Scenario, h: str, rim: int) -> list[int]:
    """33.74: the hexsides a wadi GOOD position looks over: the one its marker points to and the
    hexsides next to it that the wadi does not cross, three at most."""
    wet = set(ground.wadi_dirs(sc, h))
    if rim in wet:
        return []
    out = [rim]
    for step in (1, -1):
        d = (rim + step) % 6
        if d not in wet:
            out.append(d)
    return sorted(out)


def _sp(st: TobrukState, sc: Scenario, uid: str) -> int:
    if data.cls(sc, uid) == "squad" and st.pieces[uid].steps >= 2:
        return 2
    return data.SP.get(data.cls(sc, uid), 0)


def bunker_problem(st: TobrukState, sc: Scenario, h: str, ids: list[str], side: str) -> str:
    """31.52, 31.572: why ``ids`` may not go inside the bunker in ``h`` ('' if they may)."""
    inside = [u.id for u in st.units.values() if u.hex == h and not u.eliminated and st.pieces[u.id].full]
    if any(st.units[u].side != side for u in inside):
        return f"enemy units are inside the bunker in {h}: it may not be entered (31.572)"
    people = [u for u in [*inside, *ids] if data.is_personnel(sc, u)]
    weapons = [w for w, q in st.pieces.items() if q.holder in people and not st.units[w].eliminated
               and data.utype(sc, w).get("weight") in ("M", "H")]
    if len(weapons) > 1:
        return f"a bunker holds one medium or heavy weapon with its crew, not {', '.join(weapons)} (31.52)"
    sp = sum(_sp(st, sc, u) for u in people)
    if sp > BUNKER_SP:
        return f"a bunker holds at most {BUNKER_SP} stacking points of personnel; {'+'.join(people)} are {sp} (31.52)"
    return ""


def plan_cover_step(st: TobrukState, sc: Scenario, ids: list[str], side: str, here: str, s: str, cur: str,
                    infiltration: bool = False) -> tuple[Fraction, str, str]:
    """(MP, words, cover after) of a cover step of a move (or of an infiltration), refused if the
    units may not take it."""
    vehicle = data.is_vehicle(sc, ids[0])
    kind = ground.full_kind(st, sc, here)
    if s == "under":
        if vehicle or not all(data.is_personnel(sc, u) for u in ids):
            raise OrderError("only personnel go under cover (31.02, 31.261)", "31.261")
        if cur == "full":
            raise OrderError(f"{'+'.join(ids)} are already under cover", "31.02")
        if cur.startswith("rim:"):
            raise OrderError("from a wadi's GOOD position first come down into the wadi ('down')", "33.741")
        if not kind:
            what = "a sangar gives GOOD cover only (31.42)" if ground.has(st, sc, here, ground.SANGAR) else \
                "no hedgehog, weapon pit, trench, bunker or wadi"
            raise OrderError(f"{here} has {what}: nothing to go under", "31.02")
        if kind == ground.BUNKER:
            why = bunker_problem(st, sc, here, ids, side)
            if why:
                raise OrderError(why, "31.52")
        return UNDER_COST, f"under the {kind} +1 (31.02)", "full"
    if s == "out":
        if cur != "full":
            raise OrderError(f"{'+'.join(ids)} are not under cover", "15.712116")
        if kind == ground.BUNKER and not infiltration and any(u.hex == here and u.side != side and not u.eliminated
                                                              for u in st.units.values()):
            raise OrderError(f"enemy units are in {here}: come out of the bunker only by infiltrating out "
                             f"(a melee, 31.571)", "31.571")
        return OUT_COST, "out on top (15.712116)", "top"
    if s == "down":
        if not cur.startswith("rim:"):
            raise OrderError(f"{'+'.join(ids)} are not up in a wadi's GOOD position", "33.741")
        return DOWN_COST, "down into the wadi 1 (33.741)", "top"
    rim = int(s[4:])
    if not ground.is_wadi(sc, here):
        raise OrderError(f"{here} is not a wadi hex: no GOOD position to go up to (33.74)", "33.74")
    if cur != "top":
        raise OrderError("a wadi's GOOD position is reached from the wadi's bottom (33.74, 33.741)", "33.74")
    if not rim_sides(sc, here, rim):
        raise OrderError(f"the wadi crosses the {DIRECTIONS[rim]} hexside of {here}: point the marker to a "
                         f"hexside it does not cross (33.74)", "33.74")
    for u in ids:
        if data.is_vehicle(sc, u) and not (data.is_afv(sc, u) and data.utype(sc, u).get("turret")):
            raise OrderError(f"{u}: only turreted AFVs among vehicles take a wadi's GOOD position (33.74)", "33.74")
    return RIM_COST, f"up to a GOOD position facing {DIRECTIONS[rim]} 4 (33.74)", f"rim:{rim}"


def plan_enter(st: TobrukState, sc: Scenario, ids: list[str], move: str, here: str, h: str, cur: str) -> str:
    """The cover of movers entering ``h`` from ``here`` ('full' if they stay under, 31.256; '' if
    they come out); refused from a wadi GOOD position across a hexside it does not look over (33.741)."""
    if cur.startswith("rim:"):
        d = DIRECTIONS.index(sc.board.grid.direction(here, h))
        if d not in rim_sides(sc, here, int(cur[4:])):
            raise OrderError(f"from its GOOD position in {here} a unit leaves only across the hexsides it looks "
                             f"over; come down first ('down') to move along the wadi (33.741)", "33.741")
    if cur == "full" and move != "run" and ground.same_cover(st, sc, here, h):
        return "full"
    return ""


def infiltrate_cover(ctx: Ctx, uid: str, word: str) -> bool:
    """31.254: ``infiltrate UNIT under|out`` in the Infiltration Phase; True if it starts a melee
    (coming out of a bunker among enemy units, 31.571)."""
    st = tk(ctx.state)
    sc = ctx.sc
    h = st.units[uid].hex
    side = st.units[uid].side
    _, _, new = plan_cover_step(st, sc, [uid], side, h, word, start_cover(st, uid), infiltration=True)
    ctx.emit(CoverChanged(units=[uid], hex=h, cover=new, why="infiltration", rule="31.254"))
    return word == "out" and ground.has(st, sc, h, ground.BUNKER) and any(
        u.hex == h and u.side != side and not u.eliminated and data.is_personnel(sc, u.id) for u in st.units.values())


def wants_drop(st: TobrukState, side: str, uid: str) -> bool:
    so = st.orders.get(side, StandingOrders())
    return so.units.get(uid, so.default).drop


def drop(ctx: Ctx, h: str, firer_side: str) -> list[str]:
    """15.22, 31.253: the target personnel in ``h`` whose standing order says so drop into FULL cover
    before the fire's first die; returns those that did."""
    st = tk(ctx.state)
    sc = ctx.sc
    kind = ground.full_kind(st, sc, h)
    if not kind or not st.orders:
        return []
    cand = []
    for u in sorted(st.units.values(), key=lambda x: x.id):
        p = st.pieces[u.id]
        if u.hex != h or u.eliminated or u.side == firer_side or not data.is_personnel(sc, u.id):
            continue
        if p.full or p.fired or p.broken or p.surrendered or p.moving or p.melee or p.rim >= 0:
            continue
        if not wants_drop(st, u.side, u.id):
            continue
        if kind == ground.BUNKER and bunker_problem(st, sc, h, [*cand, u.id], u.side):
            continue
        cand.append(u.id)
    if cand:
        ctx.emit(CoverChanged(units=cand, hex=h, cover="full", why="drop", rule="15.22"))
    return cand
