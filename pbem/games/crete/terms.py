"""Victory (12.0): points for enemy strength eliminated (12.1, kept by the reducer),
for the airfields and Suda held at the end (12.2), and the level of victory (12.3)."""
from __future__ import annotations

from pbem.core.ruleset import Ctx
from pbem.core.scenario import Scenario
from pbem.core.state import GameState
from pbem.games.crete import events as E
from pbem.games.crete.board import gd
from pbem.games.crete.state import CW, GERMAN
from pbem.mechanics.movement import units_at


def final_points(st: GameState, sc: Scenario) -> tuple[dict[str, int], list[str]]:
    """Victory Points at the end (12.1, 12.2) and the reasons for the place points."""
    v = sc.victory
    g = gd(sc)
    pts = {GERMAN: st.score.get(GERMAN, 0), CW: st.score.get(CW, 0)}
    notes = []
    held = [(h, int(v.get("airfield_points", 5)), sc.board.label(h)) for h in g.get("airfields", [])]
    if g.get("suda"):
        held.append((g["suda"], int(v.get("suda_points", 10)), sc.board.label(g["suda"])))
    for h, n, lab in held:
        sides = {u.side for u in units_at(st).get(h, [])}
        if len(sides) == 1:
            s = sides.pop()
            pts[s] += n
            notes.append(f"{lab} {sc.side_name(s)} +{n}")
    return pts, notes


def game_end(ctx: Ctx) -> None:
    """The end of Game-Turn 10: the side with more points wins, at the level of the difference (12.3)."""
    st, sc = ctx.state, ctx.sc
    pts, notes = final_points(st, sc)
    diff = abs(pts[GERMAN] - pts[CW])
    level = next((lv["level"] for lv in sc.victory.get("levels", []) if lv["from"] <= diff <= lv["to"]), "")
    winner = "draw" if diff == 0 else (GERMAN if pts[GERMAN] > pts[CW] else CW)
    what = "a draw" if winner == "draw" else f"{sc.side_name(winner)} {level} victory"
    ctx.emit(E.GameEnded(winner=winner, rule="12.3",
                         reason=f"{what}: German {pts[GERMAN]} VP, Commonwealth {pts[CW]} VP, difference {diff} "
                                f"(places held: {', '.join(notes) or 'none'})"))
