"""Air landings (9.0-9.9), the drop zones chosen at set-up (1.2) and the
Polish drop zones (9.7).

The Polish drop zones are a sealed secret ``secret polish-dz HEX HEX``
checked when sealed (two hexes, each with four valid landing hexes within
three) and opened with ``unveil polish-dz`` at the start of the British
movement phase of turn 9, where the opening is checked against the
commitment before the Polish units land."""
from __future__ import annotations

from pbem.core import orders as O
from pbem.core.orders import OrderError
from pbem.core.reduce import secret_commitment
from pbem.core.ruleset import Ctx, find_unit
from pbem.core.scenario import Scenario
from pbem.mechanics.movement import units_at
from pbem.games.red_devils import events as E
from pbem.games.red_devils.opportunity import eligible_firers, fire_round
from pbem.games.red_devils.state import Landing, RedDevilsState
from pbem.games.red_devils.terrain import MINOR, RIJN, gd, info, terrain

POLISH_SECRET = "polish-dz"
LOST = "lost"                      # ``land UNIT lost``: no legal hex is left for it (9.2, 9.8)
LOST_REASON = ("lost in the drop: no free clear or broken hex away from the cities is left within three "
               "hexes of its drop zone (9.0-9.2, 9.7), and its arrival may not be delayed")


def landing_hexes(sc: Scenario, dz: str, st: RedDevilsState | None = None, ignore_units: bool = False) -> list[str]:
    """9.1, 9.2: clear or broken hexes within three of ``dz``, not next to a city, not occupied."""
    valid = _landing_terrain(sc, dz)
    if ignore_units or st is None:
        return list(valid)
    occ = units_at(st)
    return [h for h in valid if h not in occ]


def _landing_terrain(sc: Scenario, dz: str) -> tuple[str, ...]:
    """9.1: the clear or broken hexes within three of ``dz`` not next to a city, sorted: the
    map's alone, so once per board and hex (the units are ``landing_hexes``')."""
    grid = sc.board.grid
    memo = grid.memo("red_devils.landing")
    got = memo.get(dz)
    if got is None:
        got = tuple(h for h in grid.within(dz, 3) if terrain(sc, h) in ("clear", "broken")
                    and not any(terrain(sc, n) == "city" for n in grid.neighbours(h)))
        if grid.contains(dz):                   # a hex of the map: the memo stays bounded
            memo[dz] = got
    return got


def landing_due(st: RedDevilsState, sc: Scenario, turn: int) -> Landing | None:
    """9.0: units scheduled to air-land at the start of this British movement phase."""
    polish = set(gd(sc).get("polish_units", []))
    due = [u.id for u in sc.units if u.side == "british" and u.entry_turn == turn and u.hex is None
           and not st.units[u.id].eliminated]
    if not due:
        return None
    return Landing(units=due, polish=bool(polish & set(due)))


def check_sealed(ctx: Ctx, order: O.Secret | O.Unveil) -> None:
    """9.7: the Polish drop zones are sealed at set-up and opened at the start of the
    British movement phase of turn 9; other sealed notes are free."""
    st: RedDevilsState = ctx.state
    sc = ctx.sc
    if order.name != POLISH_SECRET:
        return
    ph = sc.sequence[st.phase]
    if ctx.side != "british":
        raise OrderError("only the British player records the Polish drop zones", "9.7")
    if isinstance(order, O.Secret):
        if ph.name != "setup":
            raise OrderError("the Polish drop zones are chosen before play starts, in the set-up", "9.7")
        hs = order.payload.split()
        if len(hs) != 2 or hs[0] == hs[1]:
            raise OrderError(f"write two different hexes: secret {POLISH_SECRET} HEX HEX", "9.7")
        for h in hs:
            if not sc.board.grid.contains(h):
                raise OrderError(f"{h} is not a hex of the map", "9.7")
            n = len(landing_hexes(sc, h, ignore_units=True))
            if n < 4:
                raise OrderError(f"{h} has only {n} valid air landing hex(es) within three hexes; "
                                 "each Polish drop zone needs at least four", "9.7")
        return
    # unveil
    if not (ph.name == "movement" and ph.side == "british" and st.landing is not None and st.landing.polish):
        raise OrderError("the Polish drop zones are revealed at the start of the British movement phase "
                         f"of turn {gd(sc).get('polish_turn', 9)}", "9.7")
    key = f"british:{POLISH_SECRET}"
    rec = ctx.secret_records.get(key)
    if rec is None or key not in st.secrets:
        raise OrderError("no Polish drop zones were sealed", "9.7")
    if secret_commitment(rec.salt, rec.payload) != st.secrets[key]:
        raise OrderError("the recorded Polish drop zones do not match the commitment sealed at set-up", "9.7")


def place(ctx: Ctx, args: list[str]) -> None:
    """1.2: a turn-1 unit printed with two drop zones is given one at set-up."""
    sc = ctx.sc
    if len(args) != 2:
        raise OrderError("place UNIT HEX: the drop zone of a unit printed with two", "1.2")
    u = find_unit(ctx, args[0], "british", on_map=False)
    dzs = info(sc, u.id).get("drop_zones", [])
    if sc.unit_defs[u.id].entry_turn != 1 or len(dzs) < 2:
        raise OrderError(f"{u.id} has one drop zone; only the turn-1 units printed with two hexes choose", "1.2")
    if args[1] not in dzs:
        raise OrderError(f"{u.id} may be placed in {' or '.join(dzs)} only", "1.2")
    ctx.emit(E.UnitPlaced(unit=u.id, hex=args[1]))


def zones_for(st: RedDevilsState, sc: Scenario, uid: str) -> list[str]:
    """The drop zones a unit lands around: the Poles' revealed two (9.7), the one chosen (1.2), or its own."""
    if uid in gd(sc).get("polish_units", []):
        return list(st.polish_dz)
    if uid in st.dz:
        return [st.dz[uid]]
    return list(info(sc, uid).get("drop_zones", []))[:1]


def _polish_ok(st: RedDevilsState, sc: Scenario, uid: str, h: str) -> bool:
    """9.7: all four Polish units land around the same one of the two zones."""
    polish = gd(sc).get("polish_units", [])
    if uid not in polish:
        return True
    grid = sc.board.grid
    placed = [st.units[x].hex for x in (st.landing.placed if st.landing else []) if x in polish
              and st.units[x].hex]
    return any(all(grid.distance(z, p) <= 3 for p in placed + [h]) for z in st.polish_dz)


def _open_zones(st: RedDevilsState, sc: Scenario, uid: str, down: list[str] | tuple[str, ...] = ()) -> list[str]:
    """The zones ``uid`` may still land around: a Pole's only those within three of every Pole down (9.7)."""
    zones = zones_for(st, sc, uid)
    polish = gd(sc).get("polish_units", [])
    if uid not in polish:
        return zones
    done = [st.units[x].hex for x in (st.landing.placed if st.landing else []) if x in polish
            and st.units[x].hex] + list(down)
    return [z for z in zones if all(sc.board.grid.distance(z, p) <= 3 for p in done)]


def legal_hexes(st: RedDevilsState, sc: Scenario, uid: str, taken: set[str] | frozenset[str] = frozenset(),
                down: list[str] | tuple[str, ...] = ()) -> list[str]:
    """Where ``uid`` may air-land now (9.0-9.2, 9.7): the free valid hexes around its zones; a Pole only
    around a zone that keeps every Pole already down (and the hexes ``down``) within three; ``taken`` are
    hexes the caller has already given away."""
    out: list[str] = []
    for z in _open_zones(st, sc, uid, down):
        out += [h for h in landing_hexes(sc, z, st) if h not in taken and h not in out]
    return out


def _lost(ctx: Ctx, uid: str) -> None:
    """Our ruling: a unit with no legal hex left is lost in the drop (eliminated).  9.8 forbids
    delaying its arrival and 9.2 forbids placing it on another unit, so it cannot wait or share."""
    st: RedDevilsState = ctx.state
    free = legal_hexes(st, ctx.sc, uid)
    if free:
        raise OrderError(f"{uid} can still air-land (e.g. {', '.join(free[:3])}); its arrival may not be "
                         "delayed", "9.8")
    ctx.emit(E.UnitEliminated(unit=uid, reason=LOST_REASON, rule="9.8, 9.2"))
    if st.landing is not None and st.landing.units and len(st.landing.placed) == len(st.landing.units):
        landing_continue(ctx, None)


def land(ctx: Ctx, args: list[str]) -> None:
    """9.0-9.2, 9.7: ``land UNIT HEX``; once every unit is down, 9.3 fire and the 9.9 rolls."""
    st: RedDevilsState = ctx.state
    sc = ctx.sc
    landing = st.landing
    assert landing is not None
    if landing.polish and not st.polish_dz:
        raise OrderError(f"reveal the Polish drop zones first: unveil {POLISH_SECRET}", "9.7")
    if len(args) != 2:
        raise OrderError(f"land UNIT HEX (or land UNIT {LOST} when no legal hex is left for it)", "9.0")
    u = find_unit(ctx, args[0], "british", on_map=False)
    h = args[1]
    if u.id not in landing.units or u.id in landing.placed:
        raise OrderError(f"{u.id} is not waiting to air-land this turn; waiting: "
                         f"{', '.join(x for x in landing.units if x not in landing.placed)}", "9.0")
    if h == LOST:
        return _lost(ctx, u.id)
    if not sc.board.grid.contains(h):
        raise OrderError(f"{h} is not a hex of the map", "9.0")
    zones = zones_for(st, sc, u.id)
    if not any(sc.board.grid.distance(z, h) <= 3 for z in zones):
        raise OrderError(f"{h} is more than three hexes from {u.id}'s drop zone {' / '.join(zones)}", "9.0")
    if terrain(sc, h) not in ("clear", "broken"):
        raise OrderError(f"{h} is {terrain(sc, h)}; units air-land on clear or broken hexes only", "9.1")
    if any(terrain(sc, n) == "city" for n in sc.board.grid.neighbours(h)):
        raise OrderError(f"{h} is next to a city hex", "9.1")
    if units_at(st).get(h):
        hint = f"; no legal hex is left for {u.id}: land {u.id} {LOST}" if not legal_hexes(st, sc, u.id) else ""
        raise OrderError(f"{h} is occupied; air-landing units may not share a hex{hint}", "9.2")
    if not _polish_ok(st, sc, u.id, h):
        raise OrderError("the four Polish units land around one and the same drop zone", "9.7")
    ctx.emit(E.UnitLanded(unit=u.id, hex=h))
    if st.landing is not None and len(st.landing.placed) == len(st.landing.units):
        landing_continue(ctx, None)


def landing_continue(ctx: Ctx, fired_on: str | None) -> None:
    """9.3 then 9.9 for each placed unit in placement order; ``fired_on`` = the unit whose
    opportunity fire was just answered."""
    st: RedDevilsState = ctx.state
    sc = ctx.sc
    while True:
        if st.landing is None:
            return
        todo = [x for x in st.landing.placed if x not in st.landing.resolved]
        if not todo:
            return
        uid = todo[0]
        u = st.units[uid]
        if not u.eliminated and fired_on != uid:
            firers = eligible_firers(st, sc, u, u.hex, landing=True)
            ask = fire_round(ctx, u, u.hex, firers, mult=2, swim=False)
            if ask and not st.units[uid].eliminated and uid not in st.hit:
                ctx.emit(E.MovePaused(side="german", unit=uid, hex=u.hex, question="fire", firers=ask,
                                      context="landing", rule="9.3"))
                return
        fired_on = None
        _airlanding_roll(ctx, uid)


def _airlanding_roll(ctx: Ctx, uid: str) -> None:
    """9.9 the Air Landing Table; 9.3 a unit disrupted by fire and again by the table is eliminated."""
    st, sc = ctx.state, ctx.sc
    u = st.units[uid]
    if u.eliminated:
        ctx.emit(E.AirLandingResolved(unit=uid, hex="", rolls=[], modifiers=["eliminated by opportunity fire"],
                                      total=0, result="E"))
        return
    h = u.hex
    grid = sc.board.grid
    mods = []
    die = ctx.dice.roll(sc.die)
    total = die
    if terrain(sc, h) == "broken":
        total -= 1
        mods.append("-1 broken terrain (9.9)")
    near = any(terrain(sc, n) in ("woods", "town", "rough") for n in grid.neighbours(h))
    river = any(sc.board.side_features(h, n) & {RIJN, MINOR} for n in grid.neighbours(h))   # its own hexsides
    if near or river:
        total -= 1
        mods.append("-1 next to woods, town, rough or river (9.9)")
    table = gd(sc)["airlanding_table"]                     # results for modified rolls -1 .. 6
    res = table[max(min(total, 6), -1) + 1]
    ctx.emit(E.AirLandingResolved(unit=uid, hex=h, rolls=[die], modifiers=mods, total=total, result=res))
    if res == "E":
        ctx.emit(E.UnitEliminated(unit=uid, reason=f"Air Landing Table {total}: E", rule="9.9"))
    elif res == "D":
        if u.disrupted:
            ctx.emit(E.UnitEliminated(unit=uid, reason="disrupted by fire while landing and again by the "
                                                       "Air Landing Table", rule="9.3"))
        else:
            ctx.emit(E.UnitDisrupted(unit=uid, reason=f"Air Landing Table {total}: D", rule="9.9"))


def default_landings(st: RedDevilsState, sc: Scenario, left: list[str]) -> list[O.GameVerb]:
    """The deadline default, as ``land`` orders: each unit on the lowest-numbered free valid hex of
    its drop zone; the Poles around the first of their two zones that takes every Pole still to land
    (else the one with the most room); a unit with no legal hex left is lost (``land UNIT lost``,
    9.8, 9.2)."""
    taken: set[str] = set()
    polish = set(gd(sc).get("polish_units", []))
    pol_down: list[str] = []
    pref: str | None = None
    out: list[O.GameVerb] = []
    for uid in left:
        if uid in polish and pref is None:
            todo = sum(1 for x in left if x in polish)
            room = {z: len([h for h in landing_hexes(sc, z, st) if h not in taken])
                    for z in _open_zones(st, sc, uid)}
            fits = [z for z in room if room[z] >= todo]
            pref = fits[0] if fits else max(room, key=lambda z: room[z], default=None)
        hs = legal_hexes(st, sc, uid, taken, pol_down)
        if uid in polish and pref is not None:
            first = [h for h in landing_hexes(sc, pref, st) if h in hs]
            hs = first + [h for h in hs if h not in first]
        if not hs:
            out.append(O.GameVerb(word="land", args=[uid, LOST]))
            continue
        taken.add(hs[0])
        if uid in polish:
            pol_down.append(hs[0])
        out.append(O.GameVerb(word="land", args=[uid, hs[0]]))
    return out
