"""Scenario checks the whole family shares (``pbem scenario lint``): the map's
features and hexsides against the game's terrain rules (8.3, 9.3), the sides
(7.0).  A game adds its own checks in its ``lint_game`` hook."""
from __future__ import annotations

from pbem.core.scenario import Scenario
from pbem.games.panzer_corps.params import GameParams


def lint_family(p: GameParams, known_features: set[str], sc: Scenario) -> list[str]:
    """Every problem found, one line each with its key path."""
    game = p.game
    errs = []
    v = sc.victory
    for key in ("objective_hexes", "alam_halfa_positions"):       # El Alamein 4.1
        for h in v.get(key, []):
            if not sc.board.grid.contains(h):
                errs.append(f"victory.{key}: hex {h} is not on the map")
    for name in sc.map.features:
        if name not in known_features:
            errs.append(f"map.features.{name}: not a feature the {game} rules know")
    sides_known = set(p.hexside_costs) | p.doubling_hexsides | p.blocking_hexsides
    for i, hs in enumerate(sc.map.hexsides):
        if hs.feature not in sides_known:
            errs.append(f"map.hexsides[{i}]: {hs.feature!r} is not a hexside feature of {game} "
                        f"(known: {', '.join(sorted(sides_known)) or 'none'})")
    present = {hs.feature for hs in sc.map.hexsides}
    for feat in sorted(sides_known - present):
        errs.append(f"map.hexsides: no {feat} hexside, though {game}'s terrain has them (8.3)")
    for feat in sorted(p.line_features):
        if feat not in sc.map.features:
            errs.append(f"map.features.{feat}: missing; {game}'s map has them (8.3)")
    for name, t in sc.terrain.items():
        doubles = t.defence > 1
        if p.doubling_terrain and doubles != (name in p.doubling_terrain):
            want = "doubles" if name in p.doubling_terrain else "does not double"
            errs.append(f"terrain.{name}: defence {t.defence}, but in {game} it {want} a defender (9.3)")
    for u in sc.units:
        if u.side not in p.stacking:
            errs.append(f"units[{u.id}]: side {u.side!r} is not a side of {game}")
    return errs
