"""Minefields (31.1): forcing (31.17), friendly lanes (31.161), minefield
attacks (31.18), dummy (31.19) and hidden minefields (31.15, 31.20), searching
(31.211) and artillery clearance (31.212).

Minefields come from their owner's side notes (``note mine HEX DENSITY
[hidden]``, ``note mine HEX dummy``: st.minefields).  A visible minefield is on
the map from the start, face down: the enemy sees a minefield, not its density
nor whether it is a dummy.  The counter is turned over - the note opened - when
an enemy unit first tries to force it or is attacked by it (31.14, 31.191), or
when it is cleared; a search (31.211) only puts hidden counters on the map.

Movement calls ``on_enter`` after each hex a move enters.  Our decisions where
the rules are silent or read two ways:

* 31.15 and 31.201 together: entering a hidden minefield by running or
  cross-country movement is an automatic attack; by personnel assault movement a
  forcing roll at -1 (31.15: any movement but crawling or vehicle assault); by
  crawling or vehicle assault movement a normal forcing roll (31.201).
* A unit that fails a forcing roll, is attacked, or discovers a hidden minefield
  stops in the minefield hex: the rest of its move was written before the
  mines were known (a failed vehicle is M-KILLed or burning anyway).  A unit
  that forces a visible minefield goes on with its move.
* Own minefields (31.161) and lanes (31.174): no roll for vehicles by assault
  movement and personnel crawling or by assault movement; running personnel and
  cross-country vehicles roll (and are attacked only if they fail).  A roll in
  one's own hidden minefield is seen by the enemy: the counter is placed.
* A revealed dummy still restricts movement (31.191): ``plan_problem`` refuses a
  prohibited movement type into it; an unrevealed dummy is revealed by any
  enemy entry, and a vehicle entering by assault movement lays a lane in it.
* 31.18 personnel: density x 4 FRAG on the Casualty Table, as STATIONARY (no
  cover shift at all, whatever the movement), against each failed unit alone.
"""
from __future__ import annotations

import msgspec

from pbem.core.orders import OrderError
from pbem.core.ruleset import Ctx, find_unit
from pbem.core.scenario import Scenario
from pbem.games.advanced_tobruk.fire import casualty, morale
from pbem.games.advanced_tobruk import data
from pbem.games.advanced_tobruk.notes import notes
from pbem.games.advanced_tobruk.tables import fire_ap_tables as T
from pbem.games.advanced_tobruk.fire.fire_ap import bail_out
from pbem.games.advanced_tobruk.fire_events import CasualtyAttack
from pbem.games.advanced_tobruk.mine_events import MineAttack, MineCleared, MineEntered, MinesSearched
from pbem.games.advanced_tobruk.mines_state import Minefield
from pbem.games.advanced_tobruk.state import TobrukState, tk

FORCING = {True: "assault", False: "crawl"}      # 31.172: vehicles by assault movement, personnel crawl
HIDDEN_DRM = -1                                  # 31.15
FRAG_PER_DENSITY = 4                             # 31.18c


def _free(vehicle: bool, move: str) -> bool:
    """31.161, 31.174: through a lane or one's own minefield without a roll."""
    return move == "assault" if vehicle else move in ("crawl", "assault")


def seen_by(mf: Minefield, viewer: str) -> bool:
    """Is the minefield on ``viewer``'s map?  Its owner's always; the enemy's once placed."""
    return viewer in (mf.side, "referee") or not mf.hidden


# --- entering a minefield hex --------------------------------------------------------------

def on_enter(ctx: Ctx, movers: list[str], hex: str, move: str) -> bool:
    """31.15-31.19: ``movers`` (one unit or a platoon, moving by ``move``) have just entered
    ``hex``; True if they must stop there (attacked, or a hidden minefield discovered)."""
    st = tk(ctx.state)
    sc = ctx.sc
    mf = st.minefields.get(hex)
    live = [u for u in movers if not st.units[u].eliminated]
    if mf is None or not live:
        return False
    side = st.units[live[0]].side
    vehicle = data.is_vehicle(sc, live[0])
    own = mf.side == side
    if own or (mf.lane and not mf.hidden):
        if _free(vehicle, move):
            return False                                         # no roll, no event
        return _force(ctx, mf, hex, live, move, "forcing", 0, "31.161" if own else "31.174")
    if mf.dummy:
        if mf.known:
            return False                                         # 31.191 only restricts movement
        lane = vehicle and move == FORCING[True]
        ctx.emit(MineEntered(hex=hex, side=mf.side, units=live, move=move, how="dummy", placed=mf.hidden,
                             dummy=True, lane=lane, rule="31.191"))
        notes.open_note(ctx, mf.side, mf.note)
        return False
    if mf.hidden:
        if move in ("run", "cross"):
            return _force(ctx, mf, hex, live, move, "attacked", 0, "31.201")
        drm = 0 if move == FORCING[vehicle] else HIDDEN_DRM
        return _force(ctx, mf, hex, live, move, "forcing", drm, "31.15, 31.201")
    if move != FORCING[vehicle]:
        return _force(ctx, mf, hex, live, move, "attacked", 0, "31.172")
    return _force(ctx, mf, hex, live, move, "forcing", 0, "31.173")


def _force(ctx: Ctx, mf: Minefield, hex: str, units: list[str], move: str, how: str, drm: int,
           rule: str) -> bool:
    """One forcing roll per unit (31.173: greater than the density) or an automatic attack; the
    counter placed and turned over, the note opened, the failed units attacked (31.18)."""
    st = tk(ctx.state)
    sc = ctx.sc
    rolls: list[int] = []
    failed: list[str] = []
    if how == "attacked":
        failed = list(units)
    else:
        for u in units:
            r = ctx.dice.roll(10)
            rolls.append(r)
            if r + drm <= mf.density:
                failed.append(u)
    side = st.units[units[0]].side
    # 31.174: a lane once any vehicle of the movers has forced it (one that failed does not undo it)
    forced = [u for u in units if u not in failed and data.is_vehicle(sc, u)]
    lane = bool(forced) and how == "forcing" and mf.side != side and not mf.lane
    placed = mf.hidden
    ctx.emit(MineEntered(hex=hex, side=mf.side, units=list(units), move=move, how=how, placed=placed,
                         density=mf.density, drm=drm, rolls=rolls, failed=failed, lane=lane, rule=rule))
    notes.open_note(ctx, mf.side, mf.note)
    for u in failed:
        attack(ctx, u, hex, mf.density)
    return bool(failed) or placed


def attack(ctx: Ctx, uid: str, hex: str, density: int) -> None:
    """31.18: the mines attack one unit."""
    st = tk(ctx.state)
    sc = ctx.sc
    if st.units[uid].eliminated:
        return
    if data.is_personnel(sc, uid):
        return _frag(ctx, uid, hex, density)
    effects: list[list[str]] = []
    if data.is_afv(sc, uid):                                     # 31.18a
        effects.append([uid, "mkill", "31.18"])
        number, drms, note = bail_out(ctx, uid, "M+F" if st.pieces[uid].f_kill else "M-KILL")
        r = ctx.dice.roll(10)
        if r <= number:
            effects.append([uid, "bailed", "13.81"])
        ctx.emit(MineAttack(unit=uid, hex=hex, effects=effects, rolls=[r], bail_number=number, bail_drms=drms))
        notes.open_note(ctx, st.units[uid].side, note)
        return
    effects.append([uid, "kkill", "burning"])                    # 31.18b
    for w, p in sorted(st.pieces.items()):
        if p.towed_by == uid and not st.units[w].eliminated:
            effects.append([w, "fkill", "main"])
    ctx.emit(MineAttack(unit=uid, hex=hex, effects=effects))


def _frag(ctx: Ctx, uid: str, hex: str, density: int) -> None:
    """31.18c: density x 4 FRAG on the Casualty Table, the unit STATIONARY (no cover shift)."""
    st = tk(ctx.state)
    sc = ctx.sc
    factors = density * FRAG_PER_DENSITY
    roll = ctx.dice.roll(10)
    col = T.casualty_column(factors, 0)
    result = T.CASUALTY[col][roll - 1] if col else 0
    losses = casualty.absorb(st, sc, [uid], result) if result else []
    ctx.emit(CasualtyAttack(source="minefield", hex=hex, factors=factors, column=col or 0, roll=roll,
                            result=result, rolls=[roll], parts=[f"density {density} x {FRAG_PER_DENSITY} FRAG"],
                            shifts=["STATIONARY (31.18)"], losses=losses, mark_fired=False, rule="31.18"))
    if result:
        morale.check_stack(ctx, [uid], "casualty", result)


# --- what movement may not do in a minefield the mover knows --------------------------------

def plan_problem(st: TobrukState, sc: Scenario, side: str, unit: str, move: str, hex: str,
                 pivot: bool = False) -> tuple[str, str] | None:
    """For movement.plan, per step into (or pivot in) ``hex``: (why the rules forbid it, rule), or None.
    A vehicle may not change its covered arc in an enemy minefield it knows (31.172; a lane or an
    own minefield is no forcing); a revealed dummy keeps the forcing movement types (31.191)."""
    mf = st.minefields.get(hex)
    if mf is None or not seen_by(mf, side) or mf.side == side:
        return None
    vehicle = data.is_vehicle(sc, unit)
    if pivot:
        if vehicle and not mf.lane:
            return f"{unit} may not change its covered arc in the minefield in {hex} (turrets may turn)", "31.172"
        return None
    if mf.dummy and mf.known and move != FORCING[vehicle] and not (mf.lane and _free(vehicle, move)):
        how = "by assault movement" if vehicle else "crawling"
        return f"the dummy minefield in {hex} still restricts movement: {unit} enters it {how}", "31.191"
    return None


# --- search and clearance -----------------------------------------------------------------------

def search_order(ctx: Ctx, args: list[str]) -> list[str]:
    """``search UNIT``: a personnel unit spends its whole Movement Segment in its hex; the enemy's
    hidden minefields adjacent to it are placed on the map, their density still unknown (31.211).
    No MP are spent hex by hex, so no opportunity fire is drawn (our reading).  The unit that acted
    (steps.py then moves the alternation on)."""
    st = tk(ctx.state)
    sc = ctx.sc
    if len(args) != 1:
        raise OrderError("search UNIT (a personnel unit searching the hexes around it for mines)", "31.211")
    u = find_unit(ctx, args[0], ctx.side, on_map=True)
    p = st.pieces[u.id]
    if not data.is_personnel(sc, u.id):
        raise OrderError(f"{u.id} is not a personnel unit: only personnel search for mines", "31.211")
    if u.id in st.step.acted or p.mp:
        raise OrderError(f"{u.id} has already moved this Movement Segment: a search takes all of it", "31.211")
    if p.broken or p.surrendered or p.melee:
        state = "broken" if p.broken else "surrendered" if p.surrendered else "frozen in a melee"
        raise OrderError(f"{u.id} is {state} and does not search", "11.131, 31.211")
    found = sorted(h for h, mf in st.minefields.items()
                   if mf.hidden and mf.side != ctx.side and sc.board.grid.adjacent(u.hex, h))
    ctx.emit(MinesSearched(unit=u.id, hex=u.hex, found=found))
    return [u.id]


def clear(ctx: Ctx, hex: str, why: str) -> None:
    """31.212: a direct hit of indirect HE of 149 mm or more in ``hex`` removes its minefield; the
    note is opened (the enemy may check what was there)."""
    st = tk(ctx.state)
    mf = st.minefields.get(hex)
    if mf is None:
        return
    ctx.emit(MineCleared(hex=hex, why=why))
    notes.open_note(ctx, mf.side, mf.note)


# --- what each side sees ---------------------------------------------------------------------------

def face(mf: Minefield, viewer: str) -> str:
    """The minefield as ``viewer`` reads it ('' if it is not on viewer's map)."""
    if not seen_by(mf, viewer):
        return ""
    lane = ", lane" if mf.lane else ""
    if viewer in (mf.side, "referee"):
        what = "dummy minefield" if mf.dummy else f"minefield, density {mf.density}"
        status = " (hidden: not on the enemy's map)" if mf.hidden else \
            "" if mf.known else " (face down to the enemy)"
        return f"{what}{lane}{status}"
    if not mf.known:
        return f"minefield, density unknown{lane}"
    return f"{'dummy minefield' if mf.dummy else f'minefield, density {mf.density}'}{lane}"


def _shown(st: TobrukState, mf: Minefield) -> Minefield:
    """A minefield whose side note is opened (at the end, or when forced) is public in full."""
    if mf.note in notes.notes_of(st, mf.side).names and notes.is_open(st, mf.side, mf.note) \
            and (mf.hidden or not mf.known):
        return msgspec.structs.replace(mf, hidden=False, known=True)
    return mf


def marks(st: TobrukState, sc: Scenario, viewer: str) -> dict:
    """Map marks as ``viewer`` may see them: {"areas": [{label, hexes, side}]}, one area per
    minefield face ("British minefield, density unknown": the hexes showing it); merge the list
    into the map's other areas."""
    faces: dict[tuple[str, str], list[str]] = {}
    for h, mf in sorted(st.minefields.items()):
        mf = _shown(st, mf)
        if seen_by(mf, viewer):
            faces.setdefault((mf.side, face(mf, viewer)), []).append(h)
    areas = [{"label": f"{sc.side_name(side)} {what} (31.1)", "hexes": hexes, "side": side}
             for (side, what), hexes in sorted(faces.items())]
    return {"areas": areas} if areas else {}


def report_lines(st: TobrukState, sc: Scenario, viewer: str) -> list[str]:
    """One line per minefield ``viewer`` may see (the report's map notes)."""
    shown = [(h, _shown(st, mf)) for h, mf in sorted(st.minefields.items())]
    return [f"{sc.board.label(h)} ({sc.side_name(mf.side)}): {face(mf, viewer)}" for h, mf in shown if seen_by(mf, viewer)]
