"""The games pbem plays: one registry from a scenario's ``game`` key to its rules.

A game is a package (or module) of this folder; adding one means adding its
package, one line here, and its scenario file.  Nothing outside ``pbem/games``
names a game.
"""
from __future__ import annotations

from functools import lru_cache
from importlib import import_module

from pbem.core import events as _events
from pbem.core import scenario as _scenario
from pbem.core.ruleset import Ctx, Ruleset
from pbem.core.scenario import ScenarioError

# game key -> "module:Class" under pbem.games
REGISTRY = {
    "el-alamein": "panzer_corps.el_alamein:ElAlamein",
    "dunkerque": "panzer_corps.dunkerque:Dunkerque",
    "kharkov": "panzer_corps.kharkov:Kharkov",
    "operation-compass": "panzer_corps.operation_compass:OperationCompass",
    "crete": "crete.rules:Crete",
    "eben-emael": "eben_emael.rules:EbenEmael",
    "red-devils": "red_devils.rules:RedDevils",
    "advanced-tobruk": "advanced_tobruk.rules:AdvancedTobruk",
    "mirages": "formation.rules:MiragesRules",
}


def load_all_events() -> None:
    """Import every game, so that each registers its events (for decoding any log)."""
    for entry in REGISTRY.values():
        import_module(f"{__name__}.{entry.split(':')[0]}")


class UnknownGame(ScenarioError):
    """A scenario names a game pbem has no rules for."""


def known_games() -> list[str]:
    return sorted(REGISTRY)


@lru_cache(maxsize=None)
def ruleset_for(game: str) -> Ruleset:
    """The rules for a scenario's ``game`` key (one shared instance per game)."""
    try:
        module, cls = REGISTRY[game].split(":")
    except KeyError:
        raise UnknownGame(f"no rules for game {game!r}; known: {', '.join(known_games())}") from None
    return getattr(import_module(f"{__name__}.{module}"), cls)()


def _schema_of(game: str) -> tuple[type, type] | None:
    try:
        return ruleset_for(game).scenario_schema
    except UnknownGame:
        return None


# The core asks the registry, never imports it (tests/test_layers.py): a log's event of a
# game not imported yet loads every game; a scenario is checked against its game's schema.
_events.load_games = load_all_events
_scenario.schema_of = _schema_of

__all__ = ["Ctx", "REGISTRY", "Ruleset", "UnknownGame", "known_games", "load_all_events", "ruleset_for"]
