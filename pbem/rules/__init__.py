"""Rules of each supported game, looked up by the scenario's ``game`` key."""
from __future__ import annotations

from .base import Ctx, Ruleset


def ruleset_for(game: str) -> Ruleset:
    from . import panzer_corps
    table = panzer_corps.rulesets()       # El Alamein, Dunkerque, Khar'kov, Operation Compass
    if game == "crete":                      # Paratroop: Crete (pbem/rules/crete.py)
        from .crete import Crete
        return Crete()
    if game == "red-devils":                 # Paratroop: Red Devils (pbem/rules/red_devils.py)
        from .red_devils import RedDevils
        return RedDevils()
    if game == "eben-emael":                 # Paratroop: Eben Emael (pbem/rules/eben_emael.py)
        from .eben_emael import EbenEmael
        return EbenEmael()
    try:
        return table[game]
    except KeyError:
        raise KeyError(f"no rules for game {game!r}; known: {', '.join(sorted(table))}") from None


__all__ = ["Ctx", "Ruleset", "ruleset_for"]
