"""Movement orders (4.0-4.9): a move checked hex by hex in exact fractions of
an MP (4.1, 4.2), zones of control (4.4), stacking (4.3), leaving and
re-entering the map (4.5, 10.1-10.3), swimming the Neder Rijn (4.6), the
ferry (4.7), motorized infantry's declared mode (4.8).  A move that passes
is carried out by opportunity.walk, which pauses it for opportunity fire."""
from __future__ import annotations

from fractions import Fraction

from pbem.core import orders as O
from pbem.core.orders import OrderError
from pbem.core.ruleset import Ctx, find_unit
from pbem.core.scenario import Scenario
from pbem.core.state import UnitState
from pbem.mechanics.movement import units_at
from pbem.games.red_devils.opportunity import walk
from pbem.games.red_devils.state import Pending, RedDevilsState
from pbem.games.red_devils.terrain import (FERRY, MINOR, RIJN, closed_to_mech, entry_cost, entry_letter, ezoc,
                                           gd, in_ezoc, info, is_static, movement_mode, path_cost, rijn_between,
                                           terrain, unbridged_rijn, utype)
from pbem.mechanics.pathcost import fmt, frac


def mode_order(ctx: Ctx, args: list[str]) -> None:
    """4.8: ``mode UNIT mech|foot HEX ...`` moves motorized infantry the declared way."""
    sc = ctx.sc
    if len(args) < 3 or args[1] not in ("mech", "foot"):
        raise OrderError("mode UNIT mech|foot HEX ... [off]: a motorized infantry move, declared", "4.8")
    u = find_unit(ctx, args[0], ctx.side, on_map=False)
    if utype(sc, u.id) != "motorized infantry":
        raise OrderError(f"{u.id} is not motorized infantry; only they choose how to move", "4.8")
    off = args[-1].lower() == "off"
    path = args[2:-1] if off else args[2:]
    for h in path:
        if not O.HEX_RE.match(h):
            raise OrderError(f"{h!r} is not a hex number")
    if args[1] == "mech" and u.hex and closed_to_mech(sc, u.hex):
        raise OrderError(f"{u.id} starts in {terrain(sc, u.hex)}, closed to mechanized units: "
                         "it moves non-mechanized, if at all", "4.8")
    move_order(ctx, O.Move(unit=u.id, path=path, off=off), mech=args[1] == "mech")


def move_order(ctx: Ctx, order: O.Move, mech: bool | None = None) -> None:
    """4.0-4.9: the whole move checked first, then carried out (opportunity.walk)."""
    st: RedDevilsState = ctx.state
    sc = ctx.sc
    grid = sc.board.grid
    u = find_unit(ctx, order.unit, ctx.side, on_map=False)
    data = gd(sc)
    entering = u.hex is None
    if u.moved:
        raise OrderError(f"{u.id} has already moved this phase", "4.0")
    if u.disrupted:
        raise OrderError(f"{u.id} is disrupted and may not move", "8.1")
    if is_static(sc, u.id):
        raise OrderError(f"{u.id} is static and never moves", "4.8")
    if u.id in data.get("no_move_turn1", []) and st.turn == 1:
        raise OrderError(f"{u.id} may not move on game-turn 1", "4.8")
    if not order.path and not order.off:
        raise OrderError("a move needs at least one hex")
    if mech is None:
        mech = movement_mode(st, sc, u)
    ma = data.get("ma", 10)                               # 2.6
    if entering:
        _check_entry(ctx, u, order.path[0] if order.path else "")
    side = u.side
    here = u.hex
    spent = Fraction(0)
    swim = False
    occupied = units_at(st)
    zoc = ezoc(st, sc, side)                              # 4.4, disrupted units' ZOC included (8.3)
    live_zoc = ezoc(st, sc, side, disrupted_exert=False)  # 4.4: the ZOC of undisrupted units stops a move
    leave_penalty = here is not None and here in zoc
    costs: list[str] = []
    # not pbem.mechanics.movement.check_path: 4.4 charges +3 MP to leave an EZOC and lets a move go on
    # through the ZOC of disrupted units only; 4.6/4.7 swimming and the ferry; fractional MP (4.2)
    pc = path_cost(st, sc, u.id, mech)
    for i, h in enumerate(order.path):
        if not grid.contains(h):
            raise OrderError(f"{h} is not on the map; British units never leave it and German units "
                             "leave only from an entry hex ('off')", "4.5")
        if here is not None and not grid.adjacent(here, h):
            raise OrderError(f"{h} is not adjacent to {here}: a path goes hex by hex", "4.0")
        if any(o.side != side for o in occupied.get(h, [])):
            raise OrderError(f"{h} holds an enemy unit and may not be entered", "4.3")
        feats = sc.board.side_features(here, h) if here else set()
        cost = pc.step(here, h) if here is not None else entry_cost(sc, u.id, h, mech)
        if here is not None and FERRY in feats and RIJN in feats:
            cost = _ferry(st, sc, u, here, h, mech)
        if cost is None and here is not None and unbridged_rijn(st, sc, here, h):
            _check_swim(st, sc, u, order.path, here, h)
            swim, cost = True, Fraction(ma)
        if cost is None:
            why = "the Neder Rijn (unbridged)" if here and rijn_between(sc, here, h) else \
                f"{terrain(sc, h)}" + (" across a minor river" if here and MINOR in feats else "")
            raise OrderError(f"{u.id} ({'mechanized' if mech else 'non-mechanized'}) may not enter {h}: "
                             f"{why} is prohibited", "4.9")
        if leave_penalty:
            cost += 3                                     # 4.4: leaving an enemy ZOC
            if h in zoc:
                raise OrderError(f"{u.id} leaves an enemy zone of control and may not move directly into "
                                 f"another ({h})", "4.4")
        spent += cost
        costs.append(str(spent))
        if spent > ma:
            raise OrderError(f"entering {h} would spend {fmt(spent)} MP, more than the movement "
                             f"allowance of {ma}", "4.1")
        leave_penalty = False
        if h in zoc and i != len(order.path) - 1:
            if h not in live_zoc:
                leave_penalty = True                      # 4.4: ZOC of disrupted units only
            else:
                raise OrderError(f"{h} is in an enemy zone of control: the move must stop there", "4.4")
        here = h
    if order.off:
        _check_exit(sc, u, here, spent + 1, ma)
    elif order.path:
        end = order.path[-1]
        others = [o for o in occupied.get(end, []) if o.id != u.id]
        if others and not all(is_static(sc, o.id) for o in others):
            raise OrderError(f"{end} already holds {others[0].id}; no unit may end its move stacked", "4.3")
        if others and side != "german":
            raise OrderError(f"{end} already holds {others[0].id}", "4.3")
    mv = Pending(unit=u.id, hex=u.hex or "", question="", remaining=list(order.path), costs=costs, spent="0", ma=ma,
                 mode="mech" if mech else "foot", swim=swim, off=order.off, context="move")
    if u.hex is not None and any(o.side != side for n in grid.neighbours(u.hex) for o in occupied.get(n, [])):
        mv.context = "start"                              # 5.1: adjacent enemies fire before it leaves
    walk(ctx, mv, [], "start" if mv.context == "start" else "step")


def _check_swim(st: RedDevilsState, sc: Scenario, u: UnitState, path: list[str], a: str, b: str) -> None:
    """4.6: one unmoved infantry unit per player-turn, its whole allowance, no enemy ZOC either side."""
    if utype(sc, u.id) not in gd(sc).get("swim_types", []):
        raise OrderError(f"{u.id} may not cross an unbridged Neder Rijn hexside: only infantry may", "4.6")
    if len(path) != 1:
        raise OrderError("crossing the Neder Rijn uses all the unit's movement points: the move is that one hex",
                         "4.6")
    if st.swim:
        raise OrderError("only one unit per player-turn may cross the Neder Rijn this way", "4.6")
    if in_ezoc(st, sc, a, u.side) or in_ezoc(st, sc, b, u.side):
        raise OrderError("the crossing may not start in or end in an enemy zone of control", "4.6")


def _ferry(st: RedDevilsState, sc: Scenario, u: UnitState, a: str, b: str, mech: bool) -> Fraction:
    """4.7: German only, 1112/1113 not enemy-controlled, one unit per game-turn; crossing costs
    the ferry_cost of the scenario plus the hex entered (reconstructed)."""
    if u.side != "german":
        raise OrderError("only the German player may use the ferry", "4.7")
    for h in (a, b):
        if in_ezoc(st, sc, h, "german"):
            raise OrderError(f"{h} is controlled by a British unit: the ferry may not be used", "4.7")
    if st.ferry_turn == st.turn:
        raise OrderError("the ferry has already carried a unit this game-turn", "4.7")
    moves = gd(sc)["move_costs"]
    cost = moves.get(terrain(sc, b), ["P", "P"])[0 if mech else 1]
    if cost == "P":
        cost = moves[terrain(sc, b)][1]
    return frac(cost) + int(gd(sc).get("ferry_cost", 5))


def _check_entry(ctx: Ctx, u: UnitState, first: str) -> None:
    """10.1-10.3 German reinforcements; 4.5 re-entry by letter after a full game-turn."""
    st: RedDevilsState = ctx.state
    sc = ctx.sc
    if u.side != "german":
        raise OrderError(f"{u.id} is not on the map; British units arrive by air landing", "9.0")
    letter = entry_letter(sc, first)
    if not letter:
        raise OrderError(f"{first} is not a German entry hex", "10.1")
    if u.id in st.exited:
        turn, let = int(st.exited[u.id][0]), st.exited[u.id][1]
        if st.turn < turn + 2:
            raise OrderError(f"{u.id} left the map on turn {turn}; it may come back from turn {turn + 2}", "4.5")
        if letter != let:
            raise OrderError(f"{u.id} left through an '{let}' hex and must return through one", "4.5")
    else:
        d = sc.unit_defs[u.id]
        if d.entry_turn is None or st.turn < d.entry_turn:
            raise OrderError(f"{u.id} arrives on turn {d.entry_turn}", "10.0")
        ent = info(sc, u.id).get("entry", "")
        letters = gd(sc).get("entry_hexes", {})
        sched_letter = ent if ent in letters else entry_letter(sc, ent)
        if st.turn == d.entry_turn and ent not in letters and first != ent:
            raise OrderError(f"on its arrival turn {u.id} enters at {ent} only", "10.1")
        if letter != sched_letter:
            raise OrderError(f"{u.id} enters through '{sched_letter}' hexes", "10.2")
    if any(o.side != u.side for o in units_at(st).get(first, [])):
        raise OrderError(f"{first} is occupied by the enemy: the unit is delayed", "10.1")


def _check_exit(sc: Scenario, u: UnitState, here: str | None, spent: Fraction, ma: int) -> None:
    """4.5: German units leave the map from an entry hex, for 1 MP."""
    if u.side != "german":
        raise OrderError("British units may not leave the map", "4.5")
    if here is None or not entry_letter(sc, here):
        raise OrderError(f"{here} is not a German entry hex; units leave the map only from one", "4.5")
    if spent > ma:
        raise OrderError(f"leaving the map costs 1 MP; {u.id} would spend {fmt(spent)}", "4.5")
