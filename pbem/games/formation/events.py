"""The Formation Series events: the sequence of play, activations, reactions,
actions, SNAFU and victory points; the combat events come from
``combat_events.py`` and are registered here too.

A game module imports this as ``E``: the core events and these in one namespace.
Every event that rolled keeps its dice in ``rolls`` (re-rolls included)."""
from __future__ import annotations

from pbem.core.events import *  # noqa: F401,F403 - the core events too
from pbem.core.events import Event, Motion, register
from pbem.games.formation.combat_events import COMBAT_EVENTS
from pbem.games.formation.combat_events import *  # noqa: F401,F403 - the combat events too


# --- standing orders ---------------------------------------------------------

class DoctrineSet(Event, tag="FormationDoctrineSet"):
    """A side's standing answer for a decision the rules may put to it later (reaction 6.5, SNAFU 5.2)."""
    side: str
    topic: str                     # "reaction" | "snafu"
    text: str                      # as written after the topic ("never", "armour", "combat 9", ...)


# --- the sequence of play (4, 6, 9) ----------------------------------------------

class InitiativeDetermined(Event, tag="InitiativeDetermined"):
    """6.1: who is the Initiative player of an Ops Cycle, and why."""
    cycle: int
    winner: str
    reason: str                    # "roll" | "scenario" (first activation) | "in-row" (6.1.1) | "no-activations" (6.1.2)
    rolls: list[int] = []          # axis die(s) then allied die(s), re-rolls included
    axis: int = 0                  # modified results
    allied: int = 0
    drm_side: str = ""             # the marker after the determination (6.1 a/b)
    drm: int = 0


class InitiativeTransferred(Event, tag="InitiativeTransferred"):
    """6.2: the Initiative player gives the initiative to the other side, which must act."""
    side: str                      # who gives it
    to: str


class FormationActivated(Event, tag="FormationActivated"):
    """6.4 / 6.5.2: Action Points for an activating or reacting formation; its level drops."""
    formation: str
    side: str
    level: int                     # activation level used (column of the AP table)
    rolls: list[int]
    ap: int
    new_level: int
    in_supply: bool = True         # 6.4.3: out of supply -> level to 0
    schwerpunkt: bool = False      # 5.9: +1 AP, at least 3
    reaction: bool = False
    marker: int = -1               # optional rule 6.4.1: index of the AP marker drawn (the roll picks it from the cup)


class ActivationEnded(Event, tag="ActivationEnded"):
    """7.2 F: the formation's activation (or reaction) is over; unused APs are lost."""
    formation: str
    side: str
    reason: str                    # "end" | "no APs left" | "no unit can act"
    lost: int = 0


class OpsPhaseEnded(Event, tag="OpsPhaseEnded"):
    """6.3: the Ops Phase is over (ended by a player, or no side can activate)."""
    side: str                      # who ended it ("" when nobody could act)
    reason: str


class APSpent(Event, tag="APSpent"):
    """7.0: Action Points spent from the active formation's AP track (and/or its Battle Victory bonus)."""
    formation: str
    ap: int
    action: str                    # "move" | "refit" | "improved defense" | "seize" | "hasty attack" | ...
    bonus: int = 0                 # of ``ap``, how many were Battle Victory bonus APs (7.4.3)


# --- movement (7.3) and reaction (6.5) --------------------------------------------

class StackMoved(Event, tag="StackMoved"):
    """7.3: a unit or stack of one formation moved hex by hex (path excludes the start hex)."""
    motion = Motion("move", unit="units", path="path", core=True)
    side: str
    units: list[str]                # the top unit first (5.3.4: the only one other sides see)
    path: list[str]
    mp: str                        # movement points spent, exact (5.1: never rounded)
    ma: str                        # the stack's movement allowance this action
    screen: bool = False           # 7.3.4
    free: bool = False             # reinforcement free move (9.4.2) or retreat before combat
    ends: bool = True              # the Movement Action ends here (False: it goes on, hex by hex)


class ReactionPaused(Event, tag="ReactionPaused"):
    """6.5.1: a move reached a point that lets the Reaction player attempt a reaction, and no
    standing order answers it: the move waits for ``react FORMATION`` or ``pass``."""
    side: str                      # the reacting side
    units: list[str]
    at: str
    rest: list[str]                # the path still to move (the mover's side only)
    formations: list[str]
    leaving: bool = False
    mp_left: str = ""
    screen: bool = False


class ReactionDeclined(Event, tag="ReactionDeclined"):
    """The Reaction player passes for the rest of this Movement Action (6.5.1)."""
    side: str
    at: str
    doctrine: str = ""             # the standing order that answered, "" = the player's pass


class ReactionAttempted(Event, tag="ReactionAttempted"):
    """6.5.2: the reacting HQ's supply check, then a d10 against its reaction rating."""
    side: str
    formation: str
    at: str                        # where the moving stack stands
    rolls: list[int]
    rating: int
    success: bool
    doctrine: str = ""             # the standing order that declared it, "" = the player's answer


class MoveResumed(Event, tag="MoveResumed"):
    """The paused move goes on after a pass or a failed reaction (6.5.4)."""
    side: str
    units: list[str]
    at: str


class MoveStopped(Event, tag="MoveStopped"):
    """6.5.3: a successful reaction stops the mover where it stands; its action ends."""
    side: str
    units: list[str]
    at: str


class HQDisplaced(Event, tag="HQDisplaced"):
    """5.3.3: an HQ alone in a hex with an enemy moving adjacent (or overstacked) is displaced."""
    motion = Motion("retreat", unit="hq", hex="to", core=True)
    hq: str
    formation: str
    to: str                        # "" = no hex: the HQ goes off map with its units
    support: int                   # attack support points after the loss
    level: int                     # activation level after dropping one space
    reason: str = ""


# --- other actions (7.5, 7.6, 7.3.6) and effectiveness checks (5.6) ------------------

class ECRolled(Event, tag="ECRolled"):
    """5.6.1: an effectiveness check; a failure disrupts (5.6.2), except on a Refit."""
    unit: str
    side: str                      # the unit's side (5.3.4: others see the unit only in combat or when it goes)
    why: str                       # "refit" | "combat" | "surrender" | "overstack" ...
    rolls: list[int]
    rating: int
    passed: bool
    disrupts: bool = False         # the unit becomes disrupted
    step_loss: bool = False        # already disrupted, disrupted again by combat: one SP lost (5.6.2)
    recovers: bool = False         # refit passed: the unit is no longer disrupted (7.5)
    eliminated: bool = False       # surrender (16.1) or the step loss took its last SP


class ImprovedDefense(Event, tag="ImprovedDefense"):
    """7.6: an Improved Defense marker is placed (on) or removed (off) in a hex."""
    hex: str
    on: bool
    reason: str = ""


class VPScored(Event, tag="VPScored"):
    """7.3.6 / 8: a victory location seized in an Ops Cycle (1 AP) or at the End of Turn Phase."""
    hex: str
    side: str
    vp: int
    in_command: bool
    unit: str = ""
    total: int = 0                 # the scoring side's VP after this


# --- the Admin Phase (9) -----------------------------------------------------------

class AdminBegun(Event, tag="AdminBegun"):
    """9: the initiative markers go to 0; the SNAFU marker passes if it went unused (5.2)."""
    snafu: str                     # holder for this turn


class FormationRecovered(Event, tag="FormationRecovered"):
    """9.1.1: recovery of the activation level (not when the HQ is out of supply)."""
    formation: str
    in_supply: bool
    level: int


class DisruptionRecovered(Event, tag="DisruptionRecovered"):
    """9.1.2: disrupted units in command recover; static units always."""
    units: list[str]


class SchwerpunktPlaced(Event, tag="SchwerpunktPlaced"):
    """5.9 / 9.2: the Schwerpunkt marker goes to a formation ("" = removed or not available)."""
    formation: str
    side: str = ""
    organized: bool = False        # placed by its owner in this Organization Segment


class ReinforcementEntered(Event, tag="FormationReinforcement"):
    """9.4 / 14.1: a reinforcement placed on an entry hex (its free move is a StackMoved)."""
    motion = Motion("place", hex="hex", core=True)
    unit: str
    hex: str


class SubstituteHQ(Event, tag="SubstituteHQ"):
    """9.4.4: a formation's HQ replaced by its substitute; the activation marker moves."""
    motion = Motion("place", unit="new", hex="hex", core=True)
    formation: str
    old: str
    new: str
    hex: str
    level: int


class AdminSideDone(Event, tag="AdminSideDone"):
    """The side's organization and reinforcement orders are done (9.2, 9.4)."""
    side: str


# --- SNAFU (5.2) --------------------------------------------------------------------

class SnafuUsed(Event, tag="SnafuUsed"):
    """5.2: the holder hands the marker over to force a re-roll (the new die is in the
    rolls of the event that used the roll)."""
    holder: str
    purpose: str                   # "combat" | "initiative" | "reaction" ...
    roller: str                    # side whose roll is re-rolled
    old: int
    doctrine: str = ""


register(DoctrineSet, InitiativeDetermined, InitiativeTransferred, FormationActivated, ActivationEnded,
         OpsPhaseEnded, APSpent, StackMoved, ReactionPaused, ReactionDeclined, ReactionAttempted, MoveResumed,
         MoveStopped, HQDisplaced, ECRolled, ImprovedDefense, VPScored, AdminBegun, FormationRecovered,
         DisruptionRecovered, SchwerpunktPlaced, ReinforcementEntered, SubstituteHQ, AdminSideDone, SnafuUsed,
         *COMBAT_EVENTS)
