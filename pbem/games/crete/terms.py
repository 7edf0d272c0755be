"""Victory (12.0): points for enemy strength eliminated (12.1, added by the reducer as
each unit goes), for the airfields and Suda held at the end (12.2, a PlaceScored event
each, added the same way), and the level of victory (12.3).  The state's score is thus
the game's score at every moment: the places count only at the end of the game."""
from __future__ import annotations

from pbem.core.ruleset import Ctx
from pbem.core.scenario import Scenario
from pbem.core.state import GameState
from pbem.games.crete import events as E
from pbem.games.crete.board import gd
from pbem.games.crete.state import CW, GERMAN
from pbem.mechanics.movement import units_at


def places_held(st: GameState, sc: Scenario) -> list[E.PlaceScored]:
    """12.2: each airfield and Suda occupied by one side's units only, with its points."""
    v = sc.victory
    g = gd(sc)
    places = [(h, "airfield", int(v.get("airfield_points", 5))) for h in g.get("airfields", [])]
    if g.get("suda"):
        places.append((g["suda"], "suda", int(v.get("suda_points", 10))))
    out = []
    for h, kind, n in places:
        sides = {u.side for u in units_at(st).get(h, [])}
        if len(sides) == 1:
            out.append(E.PlaceScored(side=sides.pop(), hex=h, place=kind, points=n))
    return out


def game_end(ctx: Ctx) -> None:
    """The end of Game-Turn 10: the places held score (12.2), then the side with more points
    wins, at the level of the difference (12.3)."""
    st, sc = ctx.state, ctx.sc
    held = places_held(st, sc)
    for ev in held:
        ctx.emit(ev)
    pts = {GERMAN: st.score.get(GERMAN, 0), CW: st.score.get(CW, 0)}
    notes = [f"{sc.board.label(p.hex)} {sc.side_name(p.side)} +{p.points}" for p in held]
    diff = abs(pts[GERMAN] - pts[CW])
    level = next((lv["level"] for lv in sc.victory.get("levels", []) if lv["from"] <= diff <= lv["to"]), "")
    winner = "draw" if diff == 0 else (GERMAN if pts[GERMAN] > pts[CW] else CW)
    what = "a draw" if winner == "draw" else f"{sc.side_name(winner)} {level} victory"
    ctx.emit(E.GameEnded(winner=winner, rule="12.3",
                         reason=f"{what}: German {pts[GERMAN]} VP, Commonwealth {pts[CW]} VP, difference {diff} "
                                f"(places held: {', '.join(notes) or 'none'})"))
