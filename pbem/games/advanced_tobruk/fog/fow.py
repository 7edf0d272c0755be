"""Fog of war (32.1): vehicles and heavy weapons show their FOW side (``Piece.face``)
until flipped.  After every step that can change what is seen (a move step, a pivot,
a fire, a reveal) ``update`` flips each FOW unit within an enemy unit's spotting
range unless it has not fired and stands in terrain a unit may hide in (32.12); a
dummy forced to flip is removed from play (32.241).  A unit that fires is flipped
first (32.2111: a hidden one is placed unit side up), so no event shows a FOW
unit's identity before the event that flips it.  All of it only with the scenario's
``limited_intelligence``."""
from __future__ import annotations

from pbem.core.orders import OrderError
from pbem.core.ruleset import Ctx
from pbem.core.scenario import Scenario
from pbem.games.advanced_tobruk.fog import hidden
from pbem.games.advanced_tobruk.board import spotting
from pbem.games.advanced_tobruk.fire_events import CasualtyAttack, GunFired
from pbem.games.advanced_tobruk.fog_events import DummyRemoved, Flipped
from pbem.games.advanced_tobruk.state import TobrukState, tk
from pbem.games.advanced_tobruk.notes import notes
from pbem.games.advanced_tobruk.board.spotting import PIT, hide_terrain

REVEAL_FACTORS = 14                                                             # 32.211


def fow_cover(sc: Scenario, h: str | None) -> bool:
    """32.12: terrain that keeps an unfired FOW unit unflipped within spotting range (hide terrain
    or a weapon pit)."""
    return hide_terrain(sc, h) or bool(h) and sc.board.has(h, PIT)


def enemy_sees(st: TobrukState, sc: Scenario, uid: str) -> bool:
    """Some enemy unit on the map has ``uid`` within its spotting range and line of sight (32.12, 32.22).
    A hidden unit looks out too (it may fire at what its side spots), but it flips nobody: a flip it
    caused would tell the enemy that a hidden unit is near."""
    side = st.units[uid].side
    return any(o.side != side and o.hex and spotting.can_spot(st, sc, o.id, uid) for o in st.units.values())


def seen_hidden(st: TobrukState, sc: Scenario) -> list[str]:
    """32.22: the hidden units (not dummies) outside hiding terrain that an enemy unit spots."""
    return [uid for uid in sorted(st.units) if hidden.is_hidden(st, uid) and not st.pieces[uid].dummy
            and not hide_terrain(sc, st.pieces[uid].hidden_at) and enemy_sees(st, sc, uid)]


def to_flip(st: TobrukState, sc: Scenario) -> tuple[list[str], list[str]]:
    """32.12, 32.241: the FOW units an enemy unit spots (unless unfired in FOW cover): (units, dummies)."""
    flip, dummies = [], []
    for uid in sorted(st.units):
        u, p = st.units[uid], st.pieces[uid]
        if not u.hex or u.eliminated or not spotting.fow_up(st, sc, uid):
            continue
        if (not p.fired and fow_cover(sc, u.hex)) or not enemy_sees(st, sc, uid):
            continue
        (dummies if p.dummy else flip).append(uid)
    return flip, dummies


def sight_position(st: TobrukState) -> tuple:
    """Everything ``seen_hidden`` and ``to_flip`` read of a state (spotting.can_spot with them): each
    unit's side, hex, elimination and exit, its piece's hidden hex, dummy, fired, flipped, suppressed,
    surrendered, bailed-out and wreck markers; the exited units and the smoke hexes."""
    pieces = st.pieces
    return (tuple((uid, u.side, u.hex, u.eliminated, u.gone) if (p := pieces.get(uid)) is None else
                  (uid, u.side, u.hex, u.eliminated, u.gone, p.hidden_at, p.dummy, p.fired, p.flipped, p.suppressed,
                   p.surrendered, p.bailed, p.wreck) for uid, u in st.units.items()),
            tuple(st.exited), tuple(st.smoke))


def update(ctx: Ctx) -> None:
    """32.22 pit-hidden guns outside hide terrain seen by the enemy are placed (FOW up); 32.12 FOW
    units seen by the enemy flip unless unfired in FOW cover; 32.241 dummies that must flip go."""
    sc = ctx.sc
    if not spotting.active(sc):
        return
    st = tk(ctx.state)
    quiet = sc.__dict__.get("_tobruk_fow_quiet")         # positions where nothing was to be seen
    if quiet is None:
        quiet = sc.__dict__["_tobruk_fow_quiet"] = set()
    key = sight_position(st)
    if key in quiet:
        return
    seen = seen_hidden(st, sc)
    if seen:
        hidden.reveal(ctx, seen, "within an enemy unit's spotting range outside hiding terrain", "32.22, 31.31")
    flip, dummies = to_flip(st, sc)
    if not (seen or flip or dummies):
        if len(quiet) >= 256:                # recent positions: the next steps repeat them
            quiet.clear()
        quiet.add(key)
    if flip:
        ctx.emit(Flipped(units=flip, why="within an enemy unit's spotting range", rule="32.12"))
    for uid in dummies:
        remove_dummy(ctx, uid, "it came within an enemy unit's spotting range and had to flip")


def remove_dummy(ctx: Ctx, uid: str, why: str) -> None:
    """32.241: a dummy forced to flip leaves play; its side note opens (the enemy has seen what it is)."""
    st = tk(ctx.state)
    side = st.units[uid].side
    ctx.emit(DummyRemoved(unit=uid, hex=st.units[uid].hex or "", why=why))
    notes.open_note(ctx, side, notes.note_for(st, side, "dummy", uid))


def before_fire(ctx: Ctx, firers: list[str]) -> None:
    """A unit about to fire: a dummy may not (it has no weapons); a hidden one is placed unit side up
    (32.2111) and a FOW one flipped, before any event of the fire names its weapons."""
    sc = ctx.sc
    st = tk(ctx.state)
    for f in firers:
        if st.pieces[f].dummy:
            raise OrderError(f"{f} is a dummy: it has no weapons and may not fire (32.241)", "32.241")
    if not spotting.active(sc):
        return
    hid = [f for f in firers if hidden.is_hidden(st, f)]
    if hid:
        hidden.reveal(ctx, hid, "it fired", "32.2111", face_up=True)
    fow = [f for f in firers if st.units[f].hex and spotting.fow_up(st, sc, f)]
    if fow:
        ctx.emit(Flipped(units=fow, why="it fired", rule="32.2111, 32.12"))


def prepare(ctx: Ctx, firers: list[str], targets: list[tuple[str, str]]) -> None:
    """Before a fire: every (hex, unit) target spotted by the firers' side (32.251), then the firers
    flipped or placed (before_fire).  Nothing is emitted if a target is refused."""
    st = tk(ctx.state)
    for thex, tunit in targets:
        gate(st, ctx.sc, st.units[firers[0]].side, thex, tunit)
    before_fire(ctx, firers)


def target_dummy(ctx: Ctx, target: str, firer_side: str) -> bool:
    """32.241: fire at a dummy forces it to flip: removed from play, the fire not made.  True then."""
    st = tk(ctx.state)
    if not target or not st.pieces[target].dummy or st.units[target].hex is None:
        return False
    remove_dummy(ctx, target, f"{ctx.sc.side_name(firer_side)} fired on it and it had to flip")
    return True


def gate(st: TobrukState, sc: Scenario, side: str, thex: str, tunit: str) -> None:
    """32.251: the target unit (or, for fire at a hex, some enemy unit in it) must be spotted by ``side``;
    refused with the rule otherwise.  A hidden unit is named like any unspotted one."""
    if not spotting.active(sc):
        return
    if tunit:
        spotting.require(st, sc, side, tunit)
        return
    foes = [u.id for u in st.units.values() if u.hex == thex and u.side != side and not u.eliminated]
    if foes and not any(spotting.spotted(st, sc, side, f) for f in foes):
        raise OrderError(f"no unit in {thex} is spotted by any {sc.side_name(side)} unit: no unit may be "
                         f"fired on unless it is spotted (32.251)", "32.251")


def after_fire(ctx: Ctx, start: int) -> None:
    """32.211 after a fire: any direct hit in a hex, or 14+ gunfire (FRAG) factors fired into it, reveals
    the units hidden there (FOW side up; they were not on the map when the fire was resolved); then the
    32.12 flips."""
    if not spotting.active(ctx.sc):
        return
    hexes: dict[str, str] = {}
    for ev in ctx.events[start:]:
        if isinstance(ev, GunFired) and any(r.hit for r in ev.rounds) and ev.hex:
            hexes.setdefault(ev.hex, "a direct hit in the hex")
        elif isinstance(ev, CasualtyAttack) and ev.factors >= REVEAL_FACTORS:
            hexes.setdefault(ev.hex, f"{ev.factors} gunfire factors fired into the hex")
    for h, why in sorted(hexes.items()):
        hidden.reveal_in_hex(ctx, h, why, "32.211", update=update)
    update(ctx)


def after_setup(ctx: Ctx) -> None:
    """After all set-up (32.22): hidden guns in weapon pits outside hiding terrain that an enemy unit
    can spot are placed, FOW side up; FOW units in the open within spotting range flip (32.12)."""
    update(ctx)
