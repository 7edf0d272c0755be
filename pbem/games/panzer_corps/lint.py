"""Scenario checks the whole family shares (``pbem scenario lint``): the map's
features and hexsides against the game's terrain rules (8.3, 9.3), the sides
(7.0), the [victory] and [game_data] keys against those the code reads.  A game
adds its own checks in its ``lint_game`` hook."""
from __future__ import annotations

from collections.abc import Mapping

from pbem.core.scenario import Scenario
from pbem.games.panzer_corps.params import GameParams


def lint_tables(game: str, reads: Mapping[str, frozenset[str]], sc: Scenario) -> list[str]:
    """The [victory] and [game_data] keys against those the game's code reads: a key it does
    not read is reported (data nobody uses, or a value the code still hard-wires), and so is
    a key it reads that the file lacks (the code would fall back on a neutral value)."""
    errs = []
    for table, have in (("victory", sc.victory), ("game_data", sc.game_data)):
        read = reads.get(table, frozenset())
        for key in sorted(have):
            if key != "reconstructed" and key not in read:
                errs.append(f"{table}.{key}: the {game} rules do not read this key")
        for key in sorted(read - set(have)):
            errs.append(f"{table}.{key}: missing; the {game} rules read it")
    return errs


def lint_family(p: GameParams, known_features: set[str], reads: Mapping[str, frozenset[str]],
                sc: Scenario) -> list[str]:
    """Every problem found, one line each with its key path."""
    game = p.game
    errs = lint_tables(game, reads, sc)
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
