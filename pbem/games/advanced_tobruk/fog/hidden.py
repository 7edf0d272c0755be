"""Hidden units (32.2, 31.31): a unit recorded on a ``hide`` side note stands
off the map (its hex None, ``Piece.hidden_at`` the noted hex) until a 32.211
trigger places it, FOW side up, or its own fire places it unit side up
(32.2111).  Revealing opens the side note so the enemy can check it.

Decisions: a reveal places every unit hidden in that hex by the same side
(the note records one position; its opened payload would name them anyway);
only the units that fired are placed unit side up."""
from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager

from pbem.core.ruleset import Ctx
from pbem.core.scenario import Scenario
from pbem.games.advanced_tobruk.fog_events import Revealed
from pbem.games.advanced_tobruk.state import TobrukState, tk
from pbem.games.advanced_tobruk.notes import notes
from pbem.games.advanced_tobruk.board import spotting


def hidden_in(st: TobrukState, hex: str) -> list[str]:
    """The units hidden in ``hex`` (on a side note, not yet revealed), sorted."""
    return sorted(uid for uid, p in st.pieces.items()
                  if p.hidden_at == hex and st.units[uid].hex is None and not st.units[uid].eliminated)


def is_hidden(st: TobrukState, uid: str) -> bool:
    p = st.pieces.get(uid)
    return bool(p and p.hidden_at and st.units[uid].hex is None and not st.units[uid].eliminated)


@contextmanager
def placed(st: TobrukState, uid: str) -> Iterator[None]:
    """A hidden unit looked at in its noted hex for a check that changes nothing (can it fire from
    there?): its hex set for the duration, then None again."""
    u = st.units[uid]
    if not is_hidden(st, uid):
        yield
        return
    u.hex = st.pieces[uid].hidden_at
    try:
        yield
    finally:
        u.hex = None


def _open_notes(ctx: Ctx, side: str, units: list[str]) -> None:
    """The revealed units' side notes, opened for the enemy to check (32.22)."""
    st = tk(ctx.state)
    seen: list[str] = []
    for uid in units:
        name = notes.note_for(st, side, "hide", uid)
        if name and name not in seen:
            seen.append(name)
            notes.open_note(ctx, side, name)


def reveal(ctx: Ctx, units: list[str], why: str, rule: str, face_up: bool = False, *,
           update: Callable[[Ctx], None] | None = None) -> None:
    """Place hidden units on the map in their noted hex(es) with the units hidden there with them:
    FOW side up (32.211) or, for ``units`` themselves when they fired, unit side up (32.2111).
    Units no longer hidden are skipped; then, if any was placed, the 32.12 flips: ``update``, the
    caller's (fow.update; fow.py reads this module, so the follow-up is handed down)."""
    st = tk(ctx.state)
    named = [u for u in units if is_hidden(st, u)]
    spots = sorted({(st.units[u].side, st.pieces[u].hidden_at) for u in named})
    for side, h in spots:
        everyone = [u for u in hidden_in(st, h) if st.units[u].side == side]
        up = [u for u in everyone if u in named] if face_up else []
        rest = [u for u in everyone if u not in up]
        for group, face in ((up, True), (rest, False)):
            if group:
                said = f"with {'+'.join(up)}, which {why.removeprefix('it ')}" if up and not face else why
                ctx.emit(Revealed(side=side, units=group, hex=h, why=said, rule=rule, face_up=face))
        _open_notes(ctx, side, everyone)
    if spots and update:
        update(ctx)


def reveal_in_hex(ctx: Ctx, hex: str, why: str, rule: str, face_up: bool = False, *,
                  update: Callable[[Ctx], None] | None = None) -> list[str]:
    """Every unit hidden in ``hex`` revealed (14+ gunfire factors or a direct hit in the hex, 32.211)."""
    units = hidden_in(tk(ctx.state), hex)
    reveal(ctx, units, why, rule, face_up, update=update)
    return units


def on_enter(ctx: Ctx, movers: list[str], hex: str, update: Callable[[Ctx], None] | None = None) -> bool:
    """32.211: an enemy unit enters (or tries to enter) a hex holding hidden units.  The hidden
    units are revealed FOW side up and the movers stop where they are, the step not taken: the
    mover finds the enemy as it comes up to the hex, and entering an enemy-held hex is then the
    owner's choice again (infiltration 22.11, overrun 21), not a side effect of a move order
    written before the enemy was known.  True if the move must stop."""
    st = tk(ctx.state)
    if not movers:
        return False
    side = st.units[movers[0]].side
    enemy = [uid for uid in hidden_in(st, hex) if st.units[uid].side != side]
    if not enemy:
        return False
    reveal(ctx, enemy, f"{'+'.join(movers)} tried to enter the hex", "32.211", update=update)
    return True


def on_infiltrate(ctx: Ctx, unit: str, hex: str, update: Callable[[Ctx], None] | None = None) -> list[str]:
    """32.211: a unit infiltrating into a hex holding enemy hidden units reveals them (FOW side up);
    the infiltration goes on (a melee when enemy personnel are there, 5.32).  The units revealed."""
    st = tk(ctx.state)
    side = st.units[unit].side
    enemy = [uid for uid in hidden_in(st, hex) if st.units[uid].side != side]
    reveal(ctx, enemy, f"{unit} infiltrated into the hex", "32.211", update=update)
    return enemy


def own_use(ctx: Ctx, units: list[str], why: str, update: Callable[[Ctx], None] | None = None) -> None:
    """The owner moves or pivots hidden units: they are spotted doing it (32.211) and placed FOW
    side up before the move, so that the move's events name units on the map."""
    st = tk(ctx.state)
    hid = [u for u in units if is_hidden(st, u)]
    if hid:
        reveal(ctx, hid, why, "32.211", update=update)


def waits(st: TobrukState, sc: Scenario, side: str) -> bool:
    """With limited intelligence, ``side`` still holds unfired hidden units and the enemy has units a
    fire phase could fire at (on the map; in final fire, marked as moved): the phase waits for its
    pass instead of passing it by the rules, whether or not a hidden unit has a target, so that
    waiting never tells the enemy that one has (all of this is public but the hidden units)."""
    if not spotting.active(sc) or not any(is_hidden(st, u.id) and u.side == side and not st.pieces[u.id].fired
                                          and not st.pieces[u.id].dummy for u in st.units.values()):
        return False
    final = 0 <= st.phase < len(sc.sequence) and sc.sequence[st.phase].name == "final-fire"
    return any(u.side != side and u.hex and not u.eliminated and (not final or st.pieces[u.id].moved)
               for u in st.units.values())
