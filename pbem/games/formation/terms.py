"""Victory (16, Mirages scenarios): victory locations seized with an AP (7.3.6) or at
the End of Turn Phase (8), victory ranges per game turn, the Skorpion hold
conditions, automatic victory (every enemy combat unit eliminated, or the
scenario's automatic hex)."""
from __future__ import annotations

from pbem.core.ruleset import Ctx
from pbem.games.formation import events as E
from pbem.games.formation.board import alive, combat_units, gd, oob
from pbem.games.formation.command import in_command
from pbem.games.formation.schema import FormationVictory, VictoryHex
from pbem.games.formation.state import ALLIED, AXIS, FormationState, other


def victory(sc) -> FormationVictory:
    """The scenario's ``[victory]``, typed by schema.py."""
    return sc.tables.victory


def vp_hex(sc, h: str) -> VictoryHex | None:
    return next((r for r in victory(sc).hexes if r.hex == h), None)


def scorer(sc) -> str:
    return gd(sc).scorer


def seize(ctx: Ctx, h: str, unit: str, *, during: str) -> None:
    """Score a VP hex held by ``unit`` (once per turn, 16)."""
    st, sc = ctx.state, ctx.sc
    row = vp_hex(sc, h)
    if row is None or row.automatic or h in st.fm.scored:
        return
    ic = in_command(st, sc, unit)
    vp = row.in_command if ic or during == "ops" else row.out_of_command
    ctx.emit(E.VPScored(hex=h, side=st.units[unit].side, vp=vp, in_command=ic or during == "ops", unit=unit,
                        total=st.fm.vp + vp))


def automatic_victory(ctx: Ctx) -> bool:
    """16: the game ends at once when every combat unit of one side is eliminated.  Units
    not in play are ignored as the text says of reinforcements: those still to come and
    those back on the turn track after a retreat off the map (13.2.4.1), so a side whose
    every combat unit on the map has been eliminated has lost (it must have lost one)."""
    st, sc = ctx.state, ctx.sc
    if st.result is not None or st.phase < 0:
        return False
    for side in (AXIS, ALLIED):
        if _all_lost(st, sc, side):
            ctx.emit(E.GameEnded(winner=other(side), reason=f"automatic victory: every {sc.side_name(side)} "
                                                            "combat unit is eliminated", rule="16"))
            return True
    return False


def _all_lost(st: FormationState, sc, side: str) -> bool:
    """Some combat unit of ``side`` is eliminated and none is alive (on the map)."""
    units = st.units
    gone = False
    for uid in oob(sc).combat.get(side, ()):
        u = units.get(uid)
        if u is None:
            continue
        if u.eliminated:
            gone = True
        elif u.hex is not None:
            return False
    return gone


def end_of_turn_victory(ctx: Ctx) -> bool:
    """8 / 16: seize held VP hexes, then check the turn's victory conditions; True when the game ended."""
    st, sc = ctx.state, ctx.sc
    v = victory(sc)
    side = scorer(sc)
    if v.kind == "hold":
        return _hold(ctx, v)
    for row in v.hexes:
        h = row.hex
        held = [u for u in combat_units(st, sc, h, side) if alive(u)]
        if not held:
            continue
        if row.automatic:
            ctx.emit(E.GameEnded(winner=side, reason=f"automatic victory: {sc.side_name(side)} combat unit in "
                                                     f"{sc.board.label(h)} at the End of Turn Phase", rule="16"))
            return True
        best = max(held, key=lambda u: in_command(st, sc, u.id))
        seize(ctx, h, best.id, during="end")
    rng = v.ranges.get(f"gt{st.turn}")      # lint: one range per game turn
    if rng:
        lo, hi = rng
        vp = st.fm.vp
        if vp < lo:
            ctx.emit(E.GameEnded(winner=other(side), reason=f"{vp} VP is below the game turn {st.turn} range "
                                                            f"{lo}-{hi}", rule="16"))
            return True
        if vp > hi:
            ctx.emit(E.GameEnded(winner=side, reason=f"{vp} VP is above the game turn {st.turn} range {lo}-{hi}",
                                 rule="16"))
            return True
    if st.turn >= sc.turns:
        ctx.emit(E.GameEnded(winner="draw", reason=f"{st.fm.vp} VP is within the last turn's range", rule="16"))
        return True
    return False


def _hold(ctx: Ctx, v: FormationVictory) -> bool:
    """16.3: a side's combat unit in the hex on a given turn wins (in command or any)."""
    st, sc = ctx.state, ctx.sc
    for row in v.hold:
        if row.turn != st.turn:
            continue
        units = [u for u in combat_units(st, sc, row.hex, row.side) if alive(u)]
        if row.command == "in":
            units = [u for u in units if in_command(st, sc, u.id)]
        if units:
            ctx.emit(E.GameEnded(winner=row.side, reason=f"{row.result}: "
                                 f"{sc.side_name(row.side)} combat unit in {sc.board.label(row.hex)} on game "
                                 f"turn {st.turn}", rule="16"))
            return True
    if st.turn >= sc.turns:
        ctx.emit(E.GameEnded(winner="draw", reason="no side met its victory condition by the last turn", rule="16"))
        return True
    return False



def map_marks(st: FormationState, sc) -> dict:
    """What decides the game, for the map (Ruleset.map_marks)."""
    v = victory(sc)
    if v.kind == "hold":
        objs = [{"hex": r.hex, "vp": 0, "label": f"turn {r.turn}: {r.result} (16)"} for r in v.hold]
        now = [r for r in v.hold if r.turn == st.turn]
        score = "no victory points (16.3)" + "".join(
            f"; turn {r.turn}: {r.result} if a {sc.side_name(r.side)} combat unit"
            f"{' in command' if r.command == 'in' else ''} holds {sc.board.label(r.hex)} at its end" for r in now)
        return {"objectives": objs, "score": score}
    objs = [{"hex": r.hex, "vp": 0 if r.automatic else r.in_command,
             "label": f"{r.name}: " + ("automatic victory" if r.automatic
                                       else f"{r.in_command}/{r.out_of_command} VP")}
            for r in v.hexes]
    rng = v.ranges.get(f"gt{st.turn}")
    score = f"{sc.side_name(scorer(sc))} {st.fm.vp} VP" + (f" (turn {st.turn} range {rng[0]}-{rng[1]})" if rng else "")
    return {"objectives": objs, "score": score}
