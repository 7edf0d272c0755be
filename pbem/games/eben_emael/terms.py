"""Victory (12.1, 12.2): the German player wins by destroying every listed
fortification; the Belgian player wins if one still stands when the last
Game-Turn is over.  Nothing rebuilds a fortification, so the German win is
declared as soon as it is certain.
"""
from __future__ import annotations

from pbem.core.ruleset import Ctx
from pbem.core.scenario import Scenario
from pbem.games.eben_emael import events as E
from pbem.games.eben_emael.board import BELGIAN, GERMAN, gd, undestroyed_fort


def victory_rule(sc: Scenario) -> str:
    """The scenario's victory rule: 12.1 or 12.2."""
    return gd(sc).get("victory_rule", "12.1")


def check_decided(ctx: Ctx) -> bool:
    """12.1/12.2: every listed fortification destroyed decides the game (nothing rebuilds one)."""
    st, sc = ctx.state, ctx.sc
    need = gd(sc)["victory_forts"]
    if all(undestroyed_fort(st, sc, h) is None for h in need):
        ctx.emit(E.GameEnded(winner=GERMAN, reason=f"every required fortification ({', '.join(need)}) is "
                             "destroyed; none can be rebuilt, so the result is decided", rule=victory_rule(sc)))
        return True
    return False


def final_victory(ctx: Ctx) -> None:
    """The last Game-Turn is over (12.1, 12.2)."""
    st, sc = ctx.state, ctx.sc
    if check_decided(ctx):
        return
    left = [h for h in gd(sc)["victory_forts"] if undestroyed_fort(st, sc, h) is not None]
    ctx.emit(E.GameEnded(winner=BELGIAN, reason=f"turn {st.turn} is over and fortifications "
                         f"{', '.join(left)} still stand", rule=victory_rule(sc)))
