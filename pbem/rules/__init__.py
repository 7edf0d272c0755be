"""Rules of each supported game, looked up by the scenario's ``game`` key."""
from __future__ import annotations

from functools import lru_cache
from importlib import import_module

from ..scenario import ScenarioError
from .base import Ctx, Ruleset

# game key -> (module under pbem.rules, class name); Panzer Corps games share one
# family engine built from per-game parameters (panzer_corps.rulesets()).
PARATROOP = {
    "crete": ("crete", "Crete"),
    "eben-emael": ("eben_emael", "EbenEmael"),
    "red-devils": ("red_devils", "RedDevils"),
}


class UnknownGame(ScenarioError):
    """A scenario names a game pbem has no rules for."""


def known_games() -> list[str]:
    from . import panzer_corps
    return sorted([*panzer_corps.rulesets(), *PARATROOP])


@lru_cache(maxsize=None)
def ruleset_for(game: str) -> Ruleset:
    """The rules for a scenario's ``game`` key (one shared instance per game)."""
    if game in PARATROOP:
        module, cls = PARATROOP[game]
        return getattr(import_module(f"{__name__}.{module}"), cls)()
    from . import panzer_corps
    table = panzer_corps.rulesets()       # El Alamein, Dunkerque, Khar'kov, Operation Compass
    if game in table:
        return table[game]
    raise UnknownGame(f"no rules for game {game!r}; known: {', '.join(known_games())}")


__all__ = ["Ctx", "Ruleset", "UnknownGame", "known_games", "ruleset_for"]
