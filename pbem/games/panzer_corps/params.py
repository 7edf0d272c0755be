"""What the rulebook sets per game of the family: one ``GameParams`` value per
game module (stacking limits, result types, which terrain and which hexsides
double a defender, hexside costs, tank advances, the entry cost of
reinforcements, ...).  Rule numbers are those of panzer-corps.txt."""
from __future__ import annotations

from msgspec import Struct


class GameParams(Struct, frozen=True):
    game: str
    stacking: dict[str, int]                 # side -> units per hex (7.0)
    result_codes: frozenset[str]             # 9.4
    stack_removal: bool = False              # 7.3: excess units are removed (Khar'kov, Compass); else `end` is refused (7.1)
    result_rules: dict[str, str] = {}        # "AE" | "AR" | "C" | "EX" | "DR" | "DE" -> its rule number (9.4(n))
    first_turn_halved: str = ""              # side whose MA is halved on turn 1 (El Alamein 8.4)
    disrupted_attackable: bool = False       # 9.7(4): False except in Operation Compass
    advance_units: int = 1                   # how many attackers may advance; 0 = up to the stacking limit (9.6(1))
    tank_second_hex: bool = False            # 9.6(3)/(4): a tank may advance one hex more
    tank_types: frozenset[str] = frozenset()  # unit types that count as tanks for 9.6(3)
    doubling_terrain: frozenset[str] = frozenset()   # 9.3: terrain doubling a defender (the linter checks the scenario)
    battle_position_any_side: bool = False   # 9.3: a battle position doubles any defender (Compass), not only its owner
    hexside_costs: dict[str, int] = {}       # extra MP to cross a hexside feature (8.3)
    doubling_hexsides: frozenset[str] = frozenset()  # 9.3(1): doubles when every attacker attacks across one
    blocking_hexsides: frozenset[str] = frozenset()  # no move, no attack, no ZOC across (Compass cliffs)
    line_features: dict[str, int] = {}       # hex features a unit moves along at a fixed MP cost (Khar'kov railroads)
    lines_ignore_hexsides: bool = False      # moving along a line feature pays no hexside cost (Khar'kov 8.3(5))
    reinforcement_mp: int = 0                # MP a reinforcement has spent by entering (Dunkerque 10.0(5))
    declare_rule: str = "9.1(5)"             # where the rulebook says all attacks are declared first
    best_odds: int = 6                       # 9.2(1)
    worst_odds: int = 2                      # 9.2(2): 1:3 or worse is not allowed


def result_rules(*codes: str) -> dict[str, str]:
    """The rule number of each result type, numbered in the order the game's 9.4 lists them."""
    return {c: f"9.4({i})" for i, c in enumerate(codes, start=1)}
