"""The combat being resolved (7.4): what the state keeps between the orders
of one Combat Action (a decision may stop it until a side answers)."""
from __future__ import annotations

from msgspec import Struct


class Combat(Struct, omit_defaults=True):
    """One Combat Action from its declaration to its last hit (7.4.1 A-H).

    ``stage`` says what the combat waits for:
    ``rbc``      the defender: try Retreat before Combat or not (7.4.1.1)
    ``escalate`` the attacker: hasty, regular or prepared (7.4.1 C)
    ``fight``    chits, resolution and hits (within one order)
    ``done``     resolved (the reducer then clears ``fm.combat``)."""
    side: str                      # the attacker
    formation: str                 # the attacking (activated or reacting) formation
    hex: str                       # the attacking hex
    target: str                    # the defending hex
    attackers: list[str]           # participants chosen by the attacker (secret until the RbC decision, 5.3.4)
    defenders: list[str]           # every unit of the defending hex (7.1)
    stage: str = "rbc"
    kind: str = ""                 # hasty | regular | prepared (7.1), set by CombatEscalated
    # No non-empty string default for a value copied from an event (pbem/games/README.md):
    # msgspec omits a default by identity, so "withdraw" built by the rules and "withdraw"
    # decoded from the log would encode differently and `pbem verify` would see two states.
    escalate: str = ""             # the attacker's inline answer: "" = ask, else hasty/regular/prepared
    loss: str = ""                 # the attacker's answer for remaining hits: hold | withdraw (7.4.2)
    ooc_cost: int = 1              # AP multiplier: 2 when the attacking stack is out of command (5.8.3)
    rbc: str = ""                  # "" not tried | "failed" | "succeeded" | "not-allowed"
