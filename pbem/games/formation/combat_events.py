"""The Formation Series combat events (7.4): declaration, retreat before
combat, escalation, chits, the resolution, hits, retreats, displacement and
Battle Victory.  Registered by ``events.py`` (``COMBAT_EVENTS``).

Limited intelligence (5.3.4): ``CombatDeclared.attackers`` is the attacker's
secret until the defender has decided on retreat before combat; the words and
views show the defender only the top unit meanwhile."""
from __future__ import annotations

from pbem.core.events import Event, Motion


class CombatDeclared(Event, tag="CombatDeclared"):
    """7.4.1 A: a Hasty Attack from ``hex`` against ``target`` (1 AP, 2 out of command)."""
    strike = "target"
    side: str
    formation: str
    hex: str
    target: str
    attackers: list[str]           # the participants (the attacker's choice, 7.1)
    defenders: list[str]           # every unit in the target hex
    escalate: str = ""             # the attacker's answer given in advance ("" = ask)
    loss: str = ""                 # the attacker's standing answer to hits: "hold" | "retreat"
    ooc_cost: int = 1


class RbCDecided(Event, tag="RbCDecided"):
    """7.4.1.1: the defender's retreat-before-combat decision, or why none was possible."""
    side: str                      # the defender
    attempt: bool
    reason: str = ""               # why no attempt: "declined" or the condition not met
    by: str = ""                   # "answer" | "doctrine" | "rules"


class RbCRolled(Event, tag="RbCRolled"):
    """7.4.1.1: opposed d10s; the defender must be strictly higher."""
    side: str                      # the defender
    rolls: list[int]               # attacker's die then defender's (re-rolls included)
    att_roll: int
    def_roll: int
    att_drm: int = 0
    def_drm: int = 0
    att_unit: str = ""             # the unit whose rating gave the DRM
    def_unit: str = ""
    success: bool = False


class RbCMoved(Event, tag="RbCMoved"):
    """7.4.1.1: a successful retreat before combat: the stack's free move (path, start excluded)."""
    motion = Motion("retreat", unit="units", path="path", core=True)
    units: list[str]
    path: list[str]


class CombatEscalated(Event, tag="CombatEscalated"):
    """7.4.1 C: the attack becomes Regular or Prepared (or stays Hasty)."""
    attack: str                    # hasty | regular | prepared
    by: str = ""                   # "answer" | "order" | "rules" (not enough APs)


class ChitsDrawn(Event, tag="ChitsDrawn"):
    """7.4.1 D: one combat chit per side from its own full pool (returned afterwards)."""
    rolls: list[int]               # attacker's draw, defender's draw
    att_chit: int
    def_chit: int


class CombatResolved(Event, tag="FormationCombatResolved"):
    """7.4.1 E-G: strengths, odds, combined arms, DRMs, the roll and the CRT result."""
    target: str
    attackers: list[str]
    defenders: list[str]
    attack: str                    # hasty | regular | prepared
    att_detail: list[str]          # "UNIT SP x M" per unit (5.1: fractions kept, total rounded up)
    def_detail: list[str]
    attack_strength: int
    defence_strength: int
    terrain: str
    odds: str                      # the column heading used, "-" when below the row ("5/0")
    shifts: list[str]              # combined arms (7.4.1.3)
    drms: list[str]                # each DRM with its rule
    drm: int                       # the final DRM, clamped to +/-12
    rolls: list[int]
    modified: int                  # 1..20
    result: str                    # e.g. "2*/1*" (* = red: ECs)
    att_as: str = ""               # the units used for Armor Superiority (they take the first loss)
    def_as: str = ""


class StepLost(Event, tag="StepLost"):
    """7.4.2.1: strength points lost by one unit (eliminated at 0)."""
    unit: str
    sp: int
    strength: int                  # after the loss
    why: str                       # "hit" | "first hit" | "EZOC retreat" | "blocked retreat" | "overstack" ...
    rule: str = ""


class CombatRetreated(Event, tag="CombatRetreated"):
    """7.4.2.2-7.4.2.3: units retreat ``path`` (start excluded) away from the combat hex."""
    motion = Motion("retreat", unit="units", path="path")     # the game's: off the map it waits a turn (13.2.4.1)
    units: list[str]
    path: list[str]
    owed: int                      # hexes the hits asked for
    forced: bool
    ezoc: int = 0                  # EZOC hexes entered (forced retreat: 1 SP each per unit)
    blocked: int = 0               # hexes it could not enter (forced: 2 SP each per unit)
    off: bool = False              # left into the friendly off-board area (13.2.4.1): no more hexes owed


class OverstackDisrupted(Event, tag="OverstackDisrupted"):
    """5.3.2: units disrupted without an EC (an overstacked hex)."""
    units: list[str]
    hex: str
    why: str


class UnitDisplaced(Event, tag="UnitDisplaced"):
    """5.3.2: an overstacked combat unit displaced by the opposing player (``to`` "" = eliminated)."""
    motion = Motion("retreat", hex="to")   # the game's: with no hex it stays until UnitEliminated takes it (5.3.2)
    unit: str
    frm: str
    to: str
    by: str                        # the side that chose


class CombatEnded(Event, tag="CombatEnded"):
    """7.4.3: the combat is over; the Battle Victory bonus APs of the winner, if any."""
    winner: str = ""               # side, "" = none
    bonus: int = 0
    units: list[str] = []          # the units that may spend the bonus
    retreated: bool = False        # the defender left by retreat before combat


class BonusActionsEnded(Event, tag="BonusActionsEnded"):
    """7.4.3: a winning defender's bonus actions are over (the interrupted activation goes
    on); bonus APs not spent are lost."""
    side: str
    lost: int = 0
    reason: str = ""               # "spent" | "pass" | "end" | "standing order" | "no unit can act"


COMBAT_EVENTS = (CombatDeclared, RbCDecided, RbCRolled, RbCMoved, CombatEscalated, ChitsDrawn, CombatResolved,
                 StepLost, CombatRetreated, OverstackDisrupted, UnitDisplaced, CombatEnded,
                 BonusActionsEnded)
