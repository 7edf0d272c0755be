"""The map and the unit data as the Formation Series rules read them: unit rows
of ``[game_data]``, stacks, zones of control (5.4), terrain costs (TEC), stacking
limits (Mirages 13.1.3).  Pure lookups; no events."""
from __future__ import annotations

from fractions import Fraction

from pbem.core.scenario import Scenario, once_per_scenario
from pbem.core.state import GameState, UnitState
from pbem.games.formation.schema import Formation, FormationData, Strongpoint, Terrain, UnitInfo
from pbem.mechanics.pathcost import frac
from pbem.games.formation.position import position
from pbem.games.formation.state import other

BARRIERS = ("ridge", "wadi")       # Mirages 13.2.2: hexsides blocking ZOC, RbC, retreat and (once) paths
ROADS = ("road", "trail")          # Mirages 13.2.1: a trail is a road with its own cost


def gd(sc: Scenario) -> FormationData:
    """The scenario's ``[game_data]``, typed by schema.py (each default is the schema's)."""
    return sc.tables.data


HQ_ROW = UnitInfo(er=0, er_disrupted=0)      # an HQ has no unit row: its ratings are its formation's (3.3)


def udata(sc: Scenario, uid: str) -> UnitInfo:
    """The unit's row of ``[game_data.units]`` (``HQ_ROW`` for an HQ)."""
    return gd(sc).units.get(uid, HQ_ROW)


def fdata(sc: Scenario, f: str) -> Formation | None:
    """The formation's row (its HQ counter and FA marker), None for '' (a static unit)."""
    return gd(sc).formations.get(f)


def hq_formation(sc: Scenario, uid: str) -> str:
    """The formation whose HQ (or substitute HQ, 9.4.4) ``uid`` is, '' when none."""
    return _hqs(gd(sc)).get(uid, "")


class OrderOfBattle:
    """Each unit's place in the scenario's order of battle, read once per scenario (the
    rules ask for it thousands of times an order): ``formation`` (``formation_of``),
    ``static`` (``is_static``), ``hqs`` (``is_hq``) for every unit of the
    scenario, its ``[game_data]`` rows and its HQ counters; ``members`` (a formation's
    units but its HQ, 3.3) and ``combat`` (a side's units but HQs and static units, 16),
    in the scenario's order; ``hq_counters`` (a formation's HQ counters in the order
    ``hq_unit`` looks for one in play).  A unit's formation, type and side never change
    in play."""

    __slots__ = ("formation", "static", "hqs", "members", "combat", "hq_counters")

    def __init__(self, sc: Scenario):
        data = gd(sc)
        self.hqs = hqs = frozenset(u for u, f in _hqs(data).items() if f)
        ids = [u.id for u in sc.units] + [u for u in data.units if u not in sc.unit_defs]
        ids += [u for u in _hqs(data) if u not in sc.unit_defs and u not in data.units]
        self.formation = {u: _formation_of(sc, u) for u in ids}
        self.static = frozenset(u for u in ids if _is_static(sc, u, u in hqs))
        self.members: dict[str, tuple[str, ...]] = {}
        self.combat: dict[str, tuple[str, ...]] = {}
        for u in sc.units:
            if u.id in hqs:
                continue
            f = self.formation[u.id]
            self.members[f] = self.members.get(f, ()) + (u.id,)
            if u.id not in self.static:
                self.combat[u.side] = self.combat.get(u.side, ()) + (u.id,)
        self.hq_counters = {f: tuple([row.substitute_hq] + [s.hq for s in data.substitutes if s.formation == f]
                                     + [row.hq]) for f, row in data.formations.items()}


_oobs: dict[int, tuple[Scenario, OrderOfBattle]] = {}


def oob(sc: Scenario) -> OrderOfBattle:
    """The scenario's ``OrderOfBattle``, made once."""
    return once_per_scenario(_oobs, sc, OrderOfBattle)


def members(st: GameState, sc: Scenario, f: str) -> list[UnitState]:
    """Formation f's units but its HQ (3.3), in the scenario's order."""
    units = st.units
    return [units[u] for u in oob(sc).members.get(f, ()) if u in units]


def on_map(st: GameState, sc: Scenario, f: str) -> bool:
    """A unit of formation f but its HQ is on the map (``any(alive(u) for u in members)``)."""
    units = st.units
    for uid in oob(sc).members.get(f, ()):
        u = units.get(uid)
        if u is not None and not u.eliminated and u.hex is not None:
            return True
    return False


def all_eliminated(st: GameState, sc: Scenario, f: str) -> bool:
    """Formation f has units but its HQ, and every one is eliminated (3.3)."""
    units = st.units
    some = False
    for uid in oob(sc).members.get(f, ()):
        u = units.get(uid)
        if u is not None:
            if not u.eliminated:
                return False
            some = True
    return some


_hq_tables: dict[int, tuple[FormationData, dict[str, str]]] = {}


def _hqs(data: FormationData) -> dict[str, str]:
    """Each HQ counter's formation, read once per scenario's data (the first row that names it)."""
    got = _hq_tables.get(id(data))
    if got is not None and got[0] is data:        # the entry holds ``data``: its id is not reused
        return got[1]
    out: dict[str, str] = {}
    for f, row in data.formations.items():
        for uid in (row.hq, row.substitute_hq):
            out.setdefault(uid, f)
    for s in data.substitutes:
        out.setdefault(s.hq, s.formation)
    if len(_hq_tables) >= 16:
        _hq_tables.clear()
    _hq_tables[id(data)] = (data, out)
    return out


def is_hq(sc: Scenario, uid: str) -> bool:
    return uid in oob(sc).hqs


def top_first(sc: Scenario, ids) -> list[str]:
    """Unit ids in stacking order, the top unit first (5.3.4): an HQ, then by id (our
    default for the owner's free stacking order)."""
    return sorted(ids, key=lambda u: (not is_hq(sc, u), u))


def formation_of(sc: Scenario, uid: str) -> str:
    got = oob(sc).formation.get(uid)
    return _formation_of(sc, uid) if got is None else got


def _formation_of(sc: Scenario, uid: str) -> str:
    return udata(sc, uid).formation or hq_formation(sc, uid)


def may_act(st, sc: Scenario, uid: str) -> bool:
    """The unit may take part in an Action now: one of the active formation's (5.5.1), or in a
    winning defender's bonus actions one of the units that won (7.4.3)."""
    act = st.fm.active
    if act is None:
        return False
    return uid in act.bonus_units if act.defender else formation_of(sc, uid) == act.formation


def acting(st) -> str:
    """Who acts, for refusals: the formation, or the winning defender's units (7.4.3)."""
    act = st.fm.active
    return f"the winners {', '.join(act.bonus_units)}" if act.defender else f"the active formation {act.formation}"


def is_static(sc: Scenario, uid: str) -> bool:
    t = oob(sc)
    return uid in t.static if uid in t.formation else _is_static(sc, uid, uid in t.hqs)


def _is_static(sc: Scenario, uid: str, hq: bool) -> bool:
    d = udata(sc, uid)
    return d.static or (not hq and not d.formation)


def is_motorized(sc: Scenario, uid: str) -> bool:
    if is_hq(sc, uid):
        return fdata(sc, hq_formation(sc, uid)).hq_movement != "leg"
    return udata(sc, uid).movement != "leg"


def hq_unit(st: GameState, sc: Scenario, f: str) -> UnitState | None:
    """The formation's HQ counter in play (the substitute once it replaced the original)."""
    ids = oob(sc).hq_counters.get(f)
    if ids is None:
        return None
    units = st.units
    for uid in ids:
        u = units.get(uid)
        if u is not None and not u.eliminated and u.hex is not None:
            return u
    return None


def alive(u: UnitState) -> bool:
    return not u.eliminated and u.hex is not None


def stack(st: GameState, h: str) -> list[UnitState]:
    """Every unit in hex ``h``."""
    return [u for u in st.units.values() if u.hex == h and not u.eliminated]


def combat_units(st: GameState, sc: Scenario, h: str, side: str | None = None) -> list[UnitState]:
    return [u for u in stack(st, h) if not is_hq(sc, u.id) and (side is None or u.side == side)]


def occupied_by(st: GameState, h: str, side: str) -> bool:
    return any(u.side == side for u in stack(st, h))


def terrain(sc: Scenario, h: str) -> str:
    return sc.board.terrain.get(h, "")


def tec(sc: Scenario, h: str) -> Terrain:
    """The TEC row of the hex's terrain (lint: every terrain has one; the sea's is never entered)."""
    return gd(sc).tec.get(terrain(sc, h), NO_TEC)


NO_TEC = Terrain(prohibited_leg=True, prohibited_mot=True, prohibited_hq=True, zoc=False)   # off the TEC


def barrier(sc: Scenario, a: str, b: str) -> bool:
    """A ridge or wadi hexside between a and b (13.2.2)."""
    return ((a, b) if a < b else (b, a)) in _barrier_sides(sc.board)


_barriers: dict[int, tuple[object, frozenset]] = {}


def _barrier_sides(board) -> frozenset:
    """The board's ridge and wadi hexsides (the pairs as ``hexsides`` keys them), once per board:
    command, supply and ZOC tracing ask for every hexside they cross."""
    got = _barriers.get(id(board))
    if got is not None and got[0] is board:       # the entry holds ``board``: its id is not reused
        return got[1]
    sides = frozenset(k for k, feats in board.hexsides.items() if any(f in BARRIERS for f in feats))
    if len(_barriers) >= 16:
        _barriers.clear()
    _barriers[id(board)] = (board, sides)
    return sides


class _PerHex(dict):
    """A table of one board filled as its hexes are asked for (``table[h]``)."""

    __slots__ = ("make",)

    def __init__(self, make):
        super().__init__()
        self.make = make

    def __missing__(self, h: str):
        got = self[h] = self.make(h)
        return got


def links(sc: Scenario) -> dict[str, tuple[tuple[str, bool, bool, bool], ...]]:
    """Each hex's neighbours for the searches of command and supply, each as (hex,
    crossing, sea, road): the hexside is a ridge or wadi not on a road (13.2.2: a path
    crosses one), the hex is impassable (the sea: no path enters it, 5.7.4 / 5.8.2),
    both are on one road or trail (3.1.1, 13.2.1); made once per board, a hex at a time."""
    grid = sc.board.grid
    memo = grid.memo("formation.board")
    got = memo.get("links")
    if got is None:
        got = memo["links"] = _PerHex(
            lambda h: tuple((n, barrier(sc, h, n) and not road_link(sc, h, n), impassable(sc, n),
                             bool(road_link(sc, h, n))) for n in grid.around(h)))
    return got


def zoc_into(sc: Scenario) -> dict[str, tuple[str, ...]]:
    """Each hex's neighbours a combat unit there projects a ZOC into as far as the map
    goes (5.4: not across a ridge or wadi, 13.2.2, not into terrain whose TEC says
    so); a functional enemy strongpoint (3.1.3) is the state's; once per board."""
    grid = sc.board.grid
    memo = grid.memo("formation.board")
    got = memo.get("zoc_into")
    if got is None:
        got = memo["zoc_into"] = _PerHex(
            lambda h: tuple(n for n in grid.around(h) if not barrier(sc, h, n) and tec(sc, n).zoc))
    return got


def road_link(sc: Scenario, a: str, b: str) -> str:
    """'road' or 'trail' when a and b are both on that road type (3.1.1, 13.2.1), else ''."""
    for r in ROADS:
        if sc.board.has(a, r) and sc.board.has(b, r):
            return r
    return ""


def on_road(sc: Scenario, h: str) -> bool:
    return any(sc.board.has(h, r) for r in ROADS)


def strongpoint(sc: Scenario, h: str) -> Strongpoint | None:
    return gd(sc).strongpoints.get(h)


def functional_strongpoint(st, sc: Scenario, h: str) -> str:
    """The owning side of a functional (not depleted) strongpoint in h, '' when none (3.1.3)."""
    sp = strongpoint(sc, h)
    if sp is not None and h not in st.fm.depleted:
        return sp.side
    return ""


def projects_zoc(st, sc: Scenario, u: UnitState, h: str) -> bool:
    """5.4: an undisrupted combat unit projects a ZOC into its own hex and the adjacent
    hexes, not across a ridge or wadi (13.2.2), not into terrain whose TEC says so, not
    into a functional enemy strongpoint (3.1.3)."""
    if not alive(u) or u.disrupted or is_hq(sc, u.id):
        return False
    if u.hex == h:
        return True
    if not sc.board.grid.adjacent(u.hex, h) or barrier(sc, u.hex, h):
        return False
    if not tec(sc, h).zoc:
        return False
    sp = functional_strongpoint(st, sc, h)
    return not (sp and sp != u.side)


def zoc_hexes(st, sc: Scenario, side: str) -> set[str]:
    """Every hex into which ``side`` projects a ZOC (5.4): worked out once per position
    (``position``), a new set for the caller."""
    pos = position(st, sc)
    got = pos.ezoc.get(side)
    if got is None:
        got = pos.ezoc[side] = frozenset(_zoc_hexes(st, sc, side))
    return set(got)


def _zoc_hexes(st, sc: Scenario, side: str) -> set[str]:
    """``projects_zoc`` of each unit into its hex and its neighbours, read from ``zoc_into``."""
    out: set[str] = set()
    into = zoc_into(sc)
    hqs = oob(sc).hqs
    points = gd(sc).strongpoints
    depleted = st.fm.depleted
    for u in st.units.values():
        h = u.hex
        if u.side != side or h is None or u.eliminated or u.disrupted or u.id in hqs:
            continue
        out.add(h)
        for n in into[h]:
            sp = points.get(n) if points else None
            if sp is not None and sp.side and sp.side != side and n not in depleted:
                continue                            # 3.1.3: a functional enemy strongpoint
            out.add(n)
    return out


def closed(st, sc: Scenario, side: str) -> frozenset[str]:
    """The hexes but the sea (``links`` marks it) no command or supply path of ``side``
    enters (``path_open`` false with the enemy's ZOC, 5.7.4 / 5.8.2): a hex with an enemy
    unit, an EZOC without a friendly unit.  Once per position."""
    pos = position(st, sc)
    got = pos.shut.get(side)
    if got is None:
        ezoc = zoc_hexes(st, sc, other(side))
        at = pos.at
        shut = {h for h in ezoc if h not in at}
        shut.update(h for h, here in at.items() if len(here) > 1 or side not in here)
        got = pos.shut[side] = frozenset(shut)
    return got


def impassable(sc: Scenario, h: str) -> bool:
    t = sc.terrain.get(terrain(sc, h))
    return t is not None and t.impassable


def path_open(st, sc: Scenario, side: str, h: str, ezoc: set[str]) -> bool:
    """5.7.4 / 5.8.2: a command or supply path may pass through h: not impassable terrain
    (the sea), no enemy unit there, and no EZOC unless a friendly unit is present."""
    if impassable(sc, h):
        return False
    here = stack(st, h)
    if any(u.side != side for u in here):
        return False
    return h not in ezoc or any(u.side == side for u in here)


def move_type(sc: Scenario, uid: str) -> str:
    if is_hq(sc, uid):
        return "hq"
    return "mot" if is_motorized(sc, uid) else "leg"


def step_cost(sc: Scenario, kinds: set[str] | frozenset[str], a: str, b: str, *, road_ok: bool) -> Fraction | None:
    """MP to move from a into adjacent b for a stack of these movement kinds (TEC);
    None when prohibited.  The road rate applies along a road/trail (7.3.3).  Worked
    out once per board (``_step_cost``: the map and the scenario's tables alone)."""
    memo = sc.board.grid.memo("formation.step_cost")
    k = (a, b, road_ok, kinds if type(kinds) is frozenset else frozenset(kinds))
    got = memo.get(k, memo)
    if got is memo:
        got = memo[k] = _step_cost(sc, kinds, a, b, road_ok=road_ok)
    return got


def _step_cost(sc: Scenario, kinds: set[str] | frozenset[str], a: str, b: str, *, road_ok: bool) -> Fraction | None:
    link = road_link(sc, a, b) if road_ok else ""
    if link:
        table = getattr(gd(sc), link)
        return max(frac(getattr(table, k)) for k in kinds)
    t = tec(sc, b)
    if sc.terrain.get(terrain(sc, b)) is not None and sc.terrain[terrain(sc, b)].impassable:
        return None
    cost = Fraction(0)
    for k in kinds:
        if getattr(t, f"prohibited_{k}"):
            return None
        c = frac(getattr(t, k))
        for feat in sc.board.side_features(a, b):
            extra = gd(sc).hexside_cost.get(feat)
            if extra is None:
                continue                    # lint: every hexside feature of the map has its costs
            if getattr(extra, f"prohibited_{k}") or extra.prohibited:
                return None
            c += frac(getattr(extra, k))
        cost = max(cost, c)
    return cost


# --- stacking (5.3.1, Mirages 13.1.3) ------------------------------------------------

INFANTRY = ("infantry", "mot-infantry", "motorcycle", "machinegun", "oasis", "static")


def stacking_count(sc: Scenario, units: list[UnitState]) -> dict[str, int]:
    """How the combat units of one side in a hex count (13.1.3): 'inf' (any infantry
    type), 'leg' (leg infantry), 'other' (tanks, recce, ...), 'total'.  Units of one
    formation marked A/B/C count as one (13.1.1)."""
    seen: set[str] = set()
    n = {"inf": 0, "leg": 0, "other": 0, "total": 0}
    for u in units:
        if is_hq(sc, u.id):
            continue
        d = udata(sc, u.id)
        if d.stack_letter:
            if d.formation in seen:
                continue
            seen.add(d.formation)
        if d.category in INFANTRY:
            n["inf"] += 1
            if d.movement == "leg":
                n["leg"] += 1
        else:
            n["other"] += 1
        n["total"] += 1
    return n


def overstacked(st, sc: Scenario, h: str, side: str) -> bool:
    """13.1.3: Commonwealth two units, at most one leg infantry; Axis one infantry and two
    panzer/recce; one HQ free (5.3.3: two HQs overstack): the limits are the scenario's
    ``[game_data.stacking.SIDE]`` (keys inf, leg, other, total; lint: one row per side)."""
    here = [u for u in stack(st, h) if u.side == side]
    if sum(1 for u in here if is_hq(sc, u.id)) > 1:
        return True
    return over_limit(stacking_count(sc, here), gd(sc).stacking.get(side)) != []


def over_limit(n: dict[str, int], lim) -> list[str]:
    """The limits of a ``Stacking`` row that the counts ``n`` exceed, as 'KEY N > LIMIT'."""
    if lim is None:
        return []
    return [f"{k} {n[k]} > {v}" for k in ("total", "leg", "inf", "other")
            if (v := getattr(lim, k)) is not None and n[k] > v]


def action_cost(sc: Scenario, action: str) -> int:
    """7.0 Action Costs (and 7.3.6 seizing), from the scenario's ``action_costs``."""
    return getattr(gd(sc).action_costs, action)
