"""The game's terms: the sequence of play (3.0) with disruption removal and
command points (8.0, 8.5), the Oosterbeek railway bridge (11.0), and victory
by lines of communication (12.0-12.6)."""
from __future__ import annotations

from collections import deque

from pbem.core.ruleset import Ctx
from pbem.core.scenario import Scenario
from pbem.mechanics.movement import units_at
from pbem.games.red_devils import events as E
from pbem.games.red_devils.state import RedDevilsState
from pbem.games.red_devils.terrain import ezoc, gd, rijn_sides

# 12.6 levels of victory: (lowest British VP total, level)
LEVELS = [(33, "British Decisive Victory"), (27, "British Median Victory"), (21, "British Marginal Victory"),
          (16, "German Marginal Victory"), (6, "German Median Victory"), (-10**6, "German Decisive Victory")]


# --- phases (3.0) and disruption removal (8.x) ------------------------------------------------

def next_phase(ctx: Ctx) -> None:
    """3.0: the next phase; 8.0 German units recover at once, 8.5 British ones as command points allow."""
    st, sc = ctx.state, ctx.sc
    while True:
        nxt, turn = st.phase + 1, st.turn
        if nxt >= len(sc.sequence):
            if turn >= sc.turns:
                victory(ctx)                              # 12.0 after the tenth game-turn
                return
            nxt, turn = 1, turn + 1                       # index 0 is the set-up, played once
        p = sc.sequence[nxt]
        ctx.emit(E.PhaseStarted(turn=turn, phase=nxt, side=p.side, name=p.name))
        if p.name != "disruption-removal":
            return
        mine = sorted(u.id for u in st.units.values() if u.side == p.side and u.disrupted and not u.eliminated)
        if p.side == "german":
            if mine:
                ctx.emit(E.UnitsRecovered(units=mine))    # 8.0 all German units
            continue
        cps = gd(sc)["command_points"]
        cp = int(cps[turn - 1]) if turn - 1 < len(cps) else 0
        if len(mine) <= cp:
            if mine:
                ctx.emit(E.UnitsRecovered(units=mine))
            continue
        ctx.emit(E.DecisionRequired(side="british", decision="recover", combat=-1, units=mine, distance=cp,
                                    rule="8.5"))
        return


# --- the railway bridge (11.0) --------------------------------------------------------------

def demolish(ctx: Ctx, attempt: bool) -> None:
    """11.0: one German roll the first time a British unit enters 1512 or 1513; 1-5 destroys."""
    hs = "-".join(gd(ctx.sc).get("rail_bridge", []))
    if not attempt:
        ctx.emit(E.BridgeDemolition(hexside=hs, rolls=[], destroyed=False))
        return
    die = ctx.dice.roll(ctx.sc.die)
    ctx.emit(E.BridgeDemolition(hexside=hs, rolls=[die], destroyed=die <= 5))


# --- victory (12.x) ------------------------------------------------------------------------------

def lines_of_communication(st: RedDevilsState, sc: Scenario, side: str) -> dict[str, list[str]]:
    """12.2: the shortest path (in hexes) from any unit of ``side`` to every hex it can reach
    without crossing an unbridged Neder Rijn hexside (the ferry is no bridge) or entering an
    enemy-occupied or enemy-controlled hex; own units cancel enemy ZOC in their hex."""
    prev = _reached(st, sc, side)
    out: dict[str, list[str]] = {}
    for h, p in prev.items():                  # in the search's order: a hex's predecessor came first
        out[h] = [h] if p is None else out[p] + [h]
    return out


def _reached(st: RedDevilsState, sc: Scenario, side: str) -> dict[str, str | None]:
    """lines_of_communication's search: every hex reached -> the hex it was reached from (None for
    a hex of ``side``'s units); ``_line`` reads one line from it."""
    grid = sc.board.grid
    occ = units_at(st)
    mine = {h for h, us in occ.items() if any(u.side == side for u in us)}
    enemy = {h for h, us in occ.items() if any(u.side != side for u in us)}
    closed = enemy | (ezoc(st, sc, side) - mine)          # own units cancel enemy ZOC in their hex
    rijn = rijn_sides(sc)                                 # unbridged_rijn, read from its table
    destroyed = st.bridge == "destroyed"
    prev: dict[str, str | None] = {}
    q: deque[str] = deque()
    for h in sorted(mine):
        prev[h] = None
        q.append(h)
    around = grid.around
    while q:
        h = q.popleft()
        for n in around(h):
            if n in prev or n in closed:
                continue
            kind = rijn.get((h, n) if h < n else (n, h))
            if kind is not None and (kind == "unbridged" or destroyed):
                continue
            prev[n] = h
            q.append(n)
    return prev


def _line(prev: dict[str, str | None], h: str) -> list[str]:
    """The line of communication to ``h`` (a hex reached), as lines_of_communication gives it."""
    path = [h]
    while prev[path[-1]] is not None:
        path.append(prev[path[-1]])
    return path[::-1]


def count_victory(st: RedDevilsState, sc: Scenario) -> E.VictoryCounted:
    """12.1-12.6: the British victory points and the level of victory (the lines of the VP hexes
    alone are read from the searches)."""
    data = gd(sc)
    brit = _reached(st, sc, "british")
    germ = _reached(st, sc, "german")
    special = set(data.get("vp_special", []))
    worthless = set(data.get("rail_bridge_vp", [])) if st.bridge == "destroyed" else set()   # 12.4
    hexes, lines = {}, {}
    for h in sorted(set(data.get("vp_hexes", [])) | special):
        if h not in brit or h in worthless:
            continue
        line = _line(brit, h)
        if h in germ and len(_line(germ, h)) <= len(line):
            continue                                      # 12.2 a shorter British line is needed
        hexes[h] = 2 if h in special else 1
        lines[h] = line
    pair = data.get("bridge_pair", [])
    if pair and all(h in hexes for h in pair):
        for h in pair:
            hexes[h] = 4                                  # 12.3: eight for the two together
    gone = sum(1 for u in st.units.values() if u.side == "german" and u.eliminated)
    alive = sum(1 for u in st.units.values() if u.side == "british" and not u.eliminated and u.hex is not None)
    extra = max(0, alive - 9)
    total = sum(hexes.values()) + gone + extra
    level = next(name for low, name in LEVELS if total >= low)
    return E.VictoryCounted(hexes=hexes, lines=lines, german_eliminated=gone, british_extra=extra,
                            total=total, level=level)


def victory(ctx: Ctx) -> None:
    """12.0: the count after the last game-turn, and the game's end (12.6)."""
    ev = count_victory(ctx.state, ctx.sc)
    ctx.emit(ev)
    winner = "british" if ev.level.startswith("British") else "german"
    lab = ctx.sc.board.label
    rows = [f"{ev.level}: {ev.total} British victory points (12.1-12.6)"]
    rows += [f"    {lab(h)}: {vp} VP, line of communications {' '.join(ev.lines.get(h, []))}"
             for h, vp in ev.hexes.items()]
    rows.append(f"    German units eliminated: {ev.german_eliminated} VP; British units on the map over nine: "
                f"{ev.british_extra} VP")
    ctx.emit(E.GameEnded(winner=winner, reason="\n".join(rows), rule="12.6"))
