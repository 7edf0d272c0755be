"""Movement (6): personnel crawling, assault and running movement (6.41) and
platoon movement with a leader (6.42); vehicles with their two movement values
(6.51), facing a hex spine and moving only through the front (6.52), reverse at
double cost, pivots (6.53), turrets (12.232), continued movement (6.54); terrain
costs (6.31, 33) and exiting the map (2.46).

A move order's verb is its movement type:

    crawl UNIT HEX                         personnel, one hex (6.411)
    assault UNIT[+UNIT...] STEP ...        personnel up to 3 MP (6.412); vehicles at their assault value
    run UNIT[+UNIT...] STEP ...            personnel up to 6 MP, then winded (6.413)
    cross UNIT STEP ...                    vehicles at their cross-country value (6.511)
    pivot UNIT SPINE / turret UNIT SPINE   a stationary pivot or turret turn (6.532, 12.232)

where a STEP is a hex (entered forwards), ``back HEX`` (reverse, 6.523),
``face SPINE`` (pivot while moving, one MP per spine, 6.533), ``turret SPINE``
(one MP per hexside, 12.232), ``off`` (leave the map from an edge hex, 2.46),
``under`` / ``out`` / ``rim DIR`` / ``down`` (cover, cover_moves.py), ``fire TARGET``
(personnel assault fire, 15.52, assault_fire.py) and, last, ``continue`` (continued
movement, 6.54).  The move is checked whole
first, then carried out step by step (opportunity.walk), so that opportunity
fire can answer each step."""
from __future__ import annotations

from fractions import Fraction

from pbem.core.orders import OrderError
from pbem.core.ruleset import Ctx, find_unit
from pbem.core.scenario import Scenario
from pbem.core.hexgrid import DIRECTIONS
from pbem.games.advanced_tobruk.turn import broken
from pbem.games.advanced_tobruk.board import cover_moves, ground, obstacles
from pbem.games.advanced_tobruk import data
from pbem.games.advanced_tobruk.board.facing import front_dirs, rear_dirs, spine, spine_turns, SPINES
from pbem.games.advanced_tobruk.board.stacking import overstacked
from pbem.games.advanced_tobruk.state import TobrukState
from pbem.mechanics.pathcost import fmt, frac
from pbem.games.advanced_tobruk.turn import assault_fire
from pbem.games.advanced_tobruk.mines import mines

PERSONNEL_LIMIT = {"crawl": None, "assault": 3, "run": 6}      # 6.411-6.413 (crawl: one hex)
ROAD = Fraction(1, 2)                                          # 6.31 roads (all vehicles), tracks (tracked)


def enter_cost(sc: Scenario, a: str, b: str, vehicle: bool, tracked: bool) -> tuple[Fraction, str]:
    """MP to enter b from a, and the terrain that set it (6.31, 33.102, 33.113, 33.62)."""
    feats = sc.board.side_features(a, b)
    terr = data.terrain(sc, b)
    t = sc.terrain.get(terr)
    base = Fraction(t.move_cost if t is not None else 1)
    why = f"{terr} {fmt(base)}"
    if vehicle and ("road" in feats or ("track" in feats and tracked)):
        base, why = ROAD, ("road 1/2" if "road" in feats else "track 1/2")   # 6.31
    if ground.is_wadi_end(sc, b):
        base, why = Fraction(1), "wadi end 1"                                # 33.71, 33.72
    elif ground.is_wadi(sc, a) and not ground.is_wadi(sc, b) and not ground.is_wadi_end(sc, a) and base < 2:
        base, why = Fraction(2), why + ", out of the wadi 2"                 # 33.72: two MP to exit
    if ground.contour(sc, a, b) and ground.level(sc, b) > ground.level(sc, a):
        base, why = base + 1, why + ", up a contour +1"                      # 33.32, 33.41
    if "dune" in feats:
        base, why = base * 2, why + ", dune hexside x2"                      # 33.113
    return base, why


def parse_steps(words: list[str]) -> list[str]:
    """Move steps as stored words: HEX, back:HEX, face:N, turret:N, off, continue."""
    out, i = [], 0
    while i < len(words):
        w = words[i].lower()
        if w in ("back", "face", "turret", "overrun", "rim", "fire"):
            if i + 1 >= len(words):
                need = {"back": "hex", "overrun": "unit", "rim": "hexside (N NE SE S SW NW)",
                        "fire": "target unit or hex"}.get(w, "spine")
                raise OrderError(f"'{w}' needs a {need}", {"overrun": "21", "rim": "33.74", "fire": "15.52"
                                                           }.get(w, "6.52"))
            arg = words[i + 1]
            if w in ("back", "overrun", "fire"):
                out.append(f"{w}:{arg}")
            elif w == "rim":
                if arg.upper() not in DIRECTIONS:
                    raise OrderError(f"{arg!r} is not a hexside direction ({' '.join(DIRECTIONS)})", "33.74")
                out.append(f"rim:{DIRECTIONS.index(arg.upper())}")
            else:
                try:
                    out.append(f"{w}:{spine(arg)}")
                except ValueError as e:
                    raise OrderError(str(e), "6.521") from None
            i += 2
            continue
        if w in ("off", "continue", *cover_moves.COVER_STEPS):
            out.append(w)
        elif len(w) == 4 and w.isdigit():
            out.append(w)
        else:
            raise OrderError(f"{words[i]!r} is not a move step: HEX, back HEX, face SPINE, turret SPINE, "
                             "overrun UNIT, under, out, rim DIR, down, fire TARGET, off, continue", "6.0")
        i += 1
    return out


def step_words(steps: list[str]) -> str:
    """Stored steps back in the order's words."""
    out = []
    for s in steps:
        if ":" in s:
            k, v = s.split(":", 1)
            out.append(f"{k} {v if k in ('back', 'overrun', 'fire') else DIRECTIONS[int(v)] if k == 'rim' else SPINES[int(v)]}")
        else:
            out.append(s)
    return " ".join(out)


class Plan:
    """A checked move: the units, their movement type and each step's cost."""

    def __init__(self, units: list[str], move: str, steps: list[str], costs: list[Fraction],
                 why: list[str], start_spent: Fraction, covers: list[str] | None = None):
        self.units, self.move, self.steps, self.costs, self.why = units, move, steps, costs, why
        self.start_spent = start_spent
        self.covers = covers or [""] * len(steps)     # each step's cover after it (cover_moves.py)


def _carried_medium(st: TobrukState, sc: Scenario, uid: str) -> bool:
    return any(p.holder == uid and data.utype(sc, w).get("weight") == "M"
               for w, p in st.pieces.items() if not st.units[w].eliminated)


def check_movers(ctx: Ctx, names: list[str], move: str) -> list[str]:
    """The moving units, refused unless they may move this way now."""
    st: TobrukState = ctx.state
    sc = ctx.sc
    ids = [find_unit(ctx, n, ctx.side, on_map=True).id for n in names]
    if len(set(ids)) != len(ids):
        raise OrderError("a unit is named twice", "6.03")
    kinds = {data.is_vehicle(sc, u) for u in ids}
    if len(kinds) > 1:
        raise OrderError("vehicles and personnel do not move together", "6.42, 6.56")
    vehicle = kinds.pop()
    for u in ids:
        p = st.pieces[u]
        if data.is_weapon(sc, u):
            raise OrderError(f"{u} is a weapon: weapons move only when carried or towed", "6.05, 8.41")
        if u in st.step.acted:
            raise OrderError(f"{u} has already moved in this Movement Segment", "6.03")
        if p.melee:
            raise OrderError(f"{u} is frozen in a melee", "5.33")
        _observed(st, u)
        if vehicle:
            if p.m_kill or p.bailed:
                raise OrderError(f"{u} may not move: {'M-KILL' if p.m_kill else 'crew bailed out'}", "13.612, 13.8")
            if move not in ("cross", "assault"):
                raise OrderError(f"{u} is a vehicle: it moves 'cross' (cross-country) or 'assault'", "6.511")
        else:
            if move not in PERSONNEL_LIMIT:
                raise OrderError(f"{u} is a personnel unit: it moves by crawl, assault or run", "6.41")
            if p.surrendered:
                raise OrderError(f"{u} has surrendered", "11.21")
            if p.broken and move == "run":
                raise OrderError(f"{u} is broken: it moves at most three hexes, by crawl or assault", "11.131")
            if p.broken and len(names) > 1:
                raise OrderError(f"{u} is broken: broken units move alone", "11.131, 6.421")
            if move == "run" and p.winded == st.turn - 1 and st.turn > 1:
                raise OrderError(f"{u} ran last turn (winded) and may not run again this turn", "6.413")
            if move == "run" and data.cls(sc, u) == "leader" and p.steps >= 1:
                raise OrderError(f"{u} is a wounded leader and may not run", "15.9111")
            if move == "run" and _carried_medium(st, sc, u):
                raise OrderError(f"{u} carries a medium weapon and may not run", "6.413, 8.221")
    if len(ids) > 1:
        if vehicle:
            raise OrderError("vehicle platoon movement is not part of this scenario: move vehicles one by one",
                             "6.56")
        hexes = {st.units[u].hex for u in ids}
        if len(hexes) > 1:
            raise OrderError("a platoon moves as one stack: its units start in one hex", "6.421")
        if not any(data.cls(sc, u) == "leader" and not st.pieces[u].broken for u in ids):
            raise OrderError("a platoon moves only with an unbroken leader in it", "6.421")
    return ids


def _observed(st: TobrukState, u: str) -> None:
    """18.864, 18.93: an FO (or its OP tank, or a mortar's spotter) that observed in this turn's
    Indirect Fire Phase stays where it is in the Movement Segment; infiltration is left to 18.871.
    A broken one still makes its move towards safety (11.131: no choice of its owner's)."""
    if st.indirect.turn == st.turn and u in st.indirect.observers and not st.pieces[u].broken:
        raise OrderError(f"{u} observed for indirect fire this turn and may not move until the next (18.864)",
                         "18.864")


def plan(ctx: Ctx, ids: list[str], move: str, steps: list[str]) -> Plan:
    """Check a whole move and cost every step (6.3-6.5); refused at the first illegal step."""
    st: TobrukState = ctx.state
    sc = ctx.sc
    grid = sc.board.grid
    lead = ids[0]
    vehicle = data.is_vehicle(sc, lead)
    tracked = data.motion(sc, lead) in ("tracked", "halftrack")
    p = st.pieces[lead]
    here = st.units[lead].hex
    facing, turret = p.facing, p.turret
    spent = frac(p.mp or "0")
    start = spent
    if vehicle:
        cc, asl = data.mp_values(sc, lead)
        limit: Fraction | None = Fraction(cc if move == "cross" else asl)
    else:
        lim = PERSONNEL_LIMIT[move]
        limit = None if lim is None else Fraction(lim)
        if p.broken:
            limit = None                                       # 11.131: three hexes, whatever they cost
    costs, why, covers = [], [], []
    cov = cover_moves.start_cover(st, lead)              # the movers' cover as the move goes (cover_moves.py)
    fired = False
    entered = 0
    overrun_here: list[str] = []
    steps = list(steps)
    enemy = {u.hex for u in st.units.values() if u.side != ctx.side and u.hex and not u.eliminated
             and not (u.id in st.pieces and st.pieces[u.id].wreck)}
    for i, s in enumerate(steps):
        step_cover = ""
        if s == "continue":
            if not vehicle or i != len(steps) - 1:
                raise OrderError("'continue' ends a vehicle's move (continued movement)", "6.541")
            costs.append(Fraction(0))
            why.append("continued movement")
            covers.append("")
            continue
        if s == "off":
            if i != len(steps) - 1 and steps[i + 1:] != ["continue"]:
                raise OrderError("'off' is the last step of a move", "2.46")
            edges = data.exit_edges(sc, ctx.side) + data.friendly_edges(sc, ctx.side)
            if not any(grid.is_edge(here, e) for e in edges):
                raise OrderError(f"{here} is not on an edge this side may leave by", "2.46, 6.1")
            c, w = Fraction(1), "off the map 1"
        elif s.startswith("overrun:"):
            target = s[8:]
            t = next((u for u in st.units.values() if u.id.lower() == target.lower()), None)
            if not vehicle or not data.is_afv(sc, lead) or move != "assault":
                raise OrderError("only an AFV moving by assault movement overruns", "21.01, 21.02")
            if t is None or t.hex != here or t.side == ctx.side or t.eliminated:
                raise OrderError(f"{target} is not an enemy unit in {here}, where {lead} would be", "21.03")
            if t.id in overrun_here:
                raise OrderError(f"{t.id} is overrun once in a hex", "21.03")
            c = Fraction(0) if not overrun_here else Fraction(1)          # 21.04: one MP for each more
            w = "overrun" if not overrun_here else "overrun, one more MP"
            overrun_here.append(t.id)
            steps[i] = f"overrun:{t.id}"
        elif cover_moves.is_cover_step(s):
            c, w, cov = cover_moves.plan_cover_step(st, sc, ids, ctx.side, here, s, cov)
            step_cover = cov
        elif s.startswith("fire:"):
            assault_fire.plan_check(ctx, ids, move, fired, here, cov, s[5:])   # 15.52, 15.53
            fired = True
            c, w = Fraction(0), "assault fire (15.52)"
        elif s.startswith("face:") or s.startswith("turret:"):
            k, v = s.split(":")
            new = int(v)
            if k == "face":
                if not vehicle:
                    raise OrderError("only vehicles (and heavy weapons) have a facing", "6.52")
                _mine_problem(st, sc, ctx.side, lead, move, here, pivot=True)      # 31.172
                n = spine_turns(facing, new)
                facing = new
                c, w = Fraction(n), f"pivot {n} spine{'s' if n != 1 else ''}"
            else:
                if not data.utype(sc, lead).get("turret"):
                    raise OrderError(f"{lead} has no turret", "12.2")
                if "turret" in p.f_kill:
                    raise OrderError(f"{lead}'s turret is F-KILLed and may not turn", "13.613")
                cur = facing if turret < 0 else turret
                n = spine_turns(cur, new)
                turret = -1 if new == facing else new
                c, w = Fraction(n), f"turret {n} hexside{'s' if n != 1 else ''}"
        else:
            back = s.startswith("back:")
            h = s[5:] if back else s
            if not grid.contains(h):
                raise OrderError(f"{h} is not on the map", "6.03")
            d = grid.direction(here, h)
            if d is None:
                raise OrderError(f"{h} is not adjacent to {here}: a move goes hex by hex", "6.03")
            if move == "crawl" and entered >= 1:
                raise OrderError("crawling moves one hex", "6.411")
            if vehicle:
                if back and d not in rear_dirs(facing):
                    raise OrderError(f"{h} is not behind {lead} (facing {SPINES[facing]}): reverse only "
                                     "through the two rear hexsides", "6.523")
                if not back and d not in front_dirs(facing):
                    raise OrderError(f"{h} is not in front of {lead} (facing {SPINES[facing]}): pivot first "
                                     "(face SPINE) or reverse (back HEX)", "6.523")
            elif back:
                raise OrderError("only vehicles move in reverse", "6.523")
            _mine_problem(st, sc, ctx.side, lead, move, h)                      # 31.172
            for u in ids:
                obstacles.check(st, sc, u, move, h)                            # 31.73, 31.83, 31.84
            step_cover = cover_moves.plan_enter(st, sc, ids, move, here, h, cov)  # 31.256, 33.741
            cov = "full" if step_cover else "top"
            if h in enemy and not (i + 1 < len(steps) and steps[i + 1].startswith("overrun:")):
                raise OrderError(f"{h} holds enemy units: personnel enter them only by infiltration (5.34), "
                                 "an AFV by assault movement to overrun (HEX overrun UNIT, 21)", "5.34, 21")
            overrun_here = []
            c, w = enter_cost(sc, here, h, vehicle, tracked)
            w += "".join(f", {name}" for f, name in ((ground.WIRE, "wire"), (ground.TRENCH, "anti-tank trench"))
                         if ground.has(st, sc, h, f))                           # 31.7, 31.8: on the way
            if back:
                c, w = c * 2, w + ", reverse x2"                  # 6.523
            if data.is_personnel(sc, lead) and move == "crawl":
                w += " (crawl: one hex whatever it costs)"      # 6.411
            here = h
            entered += 1
        spent += c
        _over_limit(spent, limit, move, lead, vehicle)
        costs.append(c)
        why.append(w)
        covers.append(step_cover)
    if not steps:
        raise OrderError("a move needs at least one step", "6.03")
    if "off" not in steps:
        why_over = overstacked(st, sc, here, ctx.side, [u for u in ids if st.units[u].hex != here])
        if why_over:
            raise OrderError(f"the move would end overstacked: {why_over}", "4.02")
    if p.broken and not vehicle:
        why_not = broken.check_move(st, sc, lead, move, here, entered)
        if why_not:
            raise OrderError(why_not, "11.131")
    return Plan(ids, move, steps, costs, why, start, covers)


def _over_limit(spent: Fraction, limit: Fraction | None, move: str, lead: str, vehicle: bool) -> None:
    if limit is not None and spent > limit and not (move == "crawl"):
        raise OrderError(f"the move needs {fmt(spent)} MP; {lead} has {fmt(limit)} by {move} movement",
                         "6.41" if not vehicle else "6.511")


def _mine_problem(st: TobrukState, sc: Scenario, side: str, unit: str, move: str, h: str,
                  pivot: bool = False) -> None:
    """31.172 and friends: a step the minefields known to the mover forbid (mines.py), refused."""
    if st.minefields:
        why = mines.plan_problem(st, sc, side, unit, move, h, pivot=pivot)
        if why:
            raise OrderError(*why)


def unit_and_spine(ctx: Ctx, word: str, args: list[str], usage_rule: str) -> tuple[str, int]:
    """The ``UNIT SPINE`` of a pivot or turret order: one of the side's units on the map and
    a hex spine (6.521); a wrong count of words is refused citing ``usage_rule``."""
    if len(args) != 2:
        raise OrderError(f"{word} UNIT SPINE (a spine: {' '.join(SPINES)})", usage_rule)
    u = find_unit(ctx, args[0], ctx.side, on_map=True).id
    try:
        return u, spine(args[1])
    except ValueError as e:
        raise OrderError(str(e), "6.521") from None


def stationary(ctx: Ctx, word: str, args: list[str]) -> tuple[str, int]:
    """pivot UNIT SPINE / turret UNIT SPINE without leaving the hex (6.532, 12.232): (unit, spine)."""
    st: TobrukState = ctx.state
    sc = ctx.sc
    u, new = unit_and_spine(ctx, word, args, "6.532")
    p = st.pieces[u]
    if u in st.step.acted:
        raise OrderError(f"{u} has already moved in this Movement Segment", "6.03")
    if p.facing < 0:
        raise OrderError(f"{u} has no facing to change", "6.52, 12.11")
    _observed(st, u)
    if p.fired:
        raise OrderError(f"{u} fired this turn: a free pivot is for units that have not fired; pivot as a "
                         f"move instead (cross|assault {u} face SPINE, one MP a spine)", "6.532, 6.533")
    if word == "pivot" and (p.m_kill or p.bailed):
        raise OrderError(f"{u} may not pivot", "13.612")
    if word == "pivot":
        _mine_problem(st, sc, ctx.side, u, "pivot", st.units[u].hex, pivot=True)      # 31.172
    if word == "turret" and not data.utype(sc, u).get("turret"):
        raise OrderError(f"{u} has no turret", "12.2")
    if word == "turret" and "turret" in p.f_kill:
        raise OrderError(f"{u}'s turret is F-KILLed and may not turn", "13.613")
    if data.is_heavy(sc, u) and not any(q.hex == st.units[u].hex and data.is_personnel(sc, q.id)
                                         and q.side == ctx.side and not q.eliminated
                                         for q in st.units.values()):
        raise OrderError(f"{u} is pivoted by personnel in its hex", "8.51")
    return u, new
