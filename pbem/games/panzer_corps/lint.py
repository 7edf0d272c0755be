"""Scenario checks the whole family shares (``pbem scenario lint``): the map's
features and hexsides against the game's terrain rules (8.3, 9.3), the sides
(7.0), the set-up stacks (7.0).  The schema has checked the [victory] and [game_data]
keys.  A game adds its own checks in its ``lint_game`` hook; a map feature of the printed
map missing from a small test map is ``Printed`` (a variant ``pbem new`` accepts)."""
from __future__ import annotations

from pbem.core.scenario import Printed, Scenario
from pbem.games.panzer_corps.params import GameParams


def lint_family(p: GameParams, known_features: set[str], sc: Scenario) -> list[str]:
    """Every problem found, one line each with its key path."""
    game = p.game
    errs: list[str] = []
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
        errs.append(Printed(f"map.hexsides: no {feat} hexside, though {game}'s terrain has them (8.3)"))
    for feat in sorted(p.line_features):
        if feat not in sc.map.features:
            errs.append(Printed(f"map.features.{feat}: missing; {game}'s map has them (8.3)"))
    for name, t in sc.terrain.items():
        doubles = t.defence > 1
        if p.doubling_terrain and doubles != (name in p.doubling_terrain):
            want = "doubles" if name in p.doubling_terrain else "does not double"
            errs.append(f"terrain.{name}: defence {t.defence}, but in {game} it {want} a defender (9.3)")
    for u in sc.units:
        if u.side not in p.stacking:
            errs.append(f"units[{u.id}]: side {u.side!r} is not a side of {game}")
    errs += _setup_stacks(p, sc)
    return errs


def _setup_stacks(p: GameParams, sc: Scenario) -> list[str]:
    """7.0 at set-up: no more units in a hex than the side's stacking limit, never two sides
    (the core lint checks a hex holds one unit where the limit is one everywhere)."""
    here: dict[str, list] = {}
    for u in sc.units:
        if u.hex is not None:
            here.setdefault(u.hex, []).append(u)
    errs = []
    for h, us in sorted(here.items()):
        sides = sorted({u.side for u in us})
        if len(sides) > 1:
            errs.append(f"units: {' and '.join(sides)} units set up together in {h}")
        elif len(us) > p.stacking.get(sides[0], 1) > 1:
            errs.append(f"units: {len(us)} {sides[0]} units set up in {h}, {p.stacking[sides[0]]} allowed (7.0)")
    return errs
