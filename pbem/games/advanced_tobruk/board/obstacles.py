"""Obstacles of the perimeter: anti-tank trenches (31.7) and barbed wire (31.8).

* 31.73: no vehicle enters a trench hex (an overrun into one neither);
* 31.83: no wheeled vehicle enters a wire hex; a tracked or half-tracked one may, and rolls on
  the Immobilization Table as it enters (an M-KILL stops it there, no bail-out check: the
  roll is the terrain's, not a hit);
* 31.84: personnel enter a wire hex only by crawling or by infiltration; they leave it freely;
* 31.85: a direct hit of indirect HE of 149 mm or more removes the wire counter (artillery.py
  calls ``clear_wire`` where it clears minefields, 31.212).

A trench is also a hedgehog for personnel, light weapons and mortars (31.74): casualty.py and
cover_moves.py read it as one.  The Immobilization Table is not in the text: IMMOBILIZATION is
reconstructed, for wire only (soft sand, rock-strewn terrain, wadis and hedgehogs stay without
their rolls: see the README)."""
from __future__ import annotations

from pbem.core.orders import OrderError
from pbem.core.ruleset import Ctx
from pbem.core.scenario import Scenario
from pbem.games.advanced_tobruk import data
from pbem.games.advanced_tobruk.board import ground
from pbem.games.advanced_tobruk.perimeter_events import Immobilized, ObstacleCleared
from pbem.games.advanced_tobruk.state import TobrukState, tk

# RECONSTRUCTED Terrain Immobilization Table (the text names it, 31.83, 33.52, 33.72, 33.102, but
# prints no values): a d10 roll of this number or less on entering immobilizes the vehicle (M-KILL).
IMMOBILIZATION = {"wire": {"tracked": 1, "halftrack": 2}}
CLEAR_WIRE_SIZE = 149                       # 31.85


def plan_problem(st: TobrukState, sc: Scenario, unit: str, move: str, h: str) -> tuple[str, str] | None:
    """(why, rule) if ``unit`` may not enter ``h`` by ``move`` (31.73, 31.83, 31.84), else None."""
    if data.is_vehicle(sc, unit):
        if ground.has(st, sc, h, ground.TRENCH):
            return f"{h} holds an anti-tank trench: no vehicle may enter it (31.73)", "31.73"
        if ground.has(st, sc, h, ground.WIRE) and data.motion(sc, unit) not in ("tracked", "halftrack"):
            return f"{h} holds barbed wire: no wheeled vehicle may enter it (31.83)", "31.83"
        return None
    if data.is_personnel(sc, unit) and ground.has(st, sc, h, ground.WIRE) and move not in ("crawl", "infiltrate"):
        return f"{h} holds barbed wire: personnel enter it only by crawling or infiltration (31.84)", "31.84"
    return None


def check(st: TobrukState, sc: Scenario, unit: str, move: str, h: str) -> None:
    why = plan_problem(st, sc, unit, move, h)
    if why:
        raise OrderError(*why)


def on_enter(ctx: Ctx, movers: list[str], h: str) -> bool:
    """31.83: a tracked vehicle entering wire rolls on the Immobilization Table; True if the move stops."""
    st = tk(ctx.state)
    sc = ctx.sc
    if not ground.has(st, sc, h, ground.WIRE):
        return False
    stopped = False
    for u in movers:
        number = IMMOBILIZATION["wire"].get(data.motion(sc, u), 0)
        if not data.is_vehicle(sc, u) or not number or st.pieces[u].m_kill:
            continue
        r = ctx.dice.roll(10)
        ctx.emit(Immobilized(unit=u, hex=h, cause="wire", number=number, rolls=[r], mkill=r <= number, rule="31.83"))
        stopped = stopped or r <= number
    return stopped


def clear_wire(ctx: Ctx, h: str, size: int, why: str) -> None:
    """31.85: a direct hit of indirect-fire HE of 149 mm or more in ``h`` removes its wire."""
    st = tk(ctx.state)
    if size >= CLEAR_WIRE_SIZE and ground.has(st, ctx.sc, h, ground.WIRE):
        ctx.emit(ObstacleCleared(hex=h, feature=ground.WIRE, why=why, rule="31.85"))
