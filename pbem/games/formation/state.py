"""The Formation Series state: the core GameState plus, in one typed field
(``fm``), what the series rules keep (formations, initiative, activations,
reactions, SNAFU, doctrines, victory points).

Static unit data (formation, effectiveness rating, tank/AT points, movement
type) stays in the scenario's ``[game_data]``; the state holds only what
changes.  A unit's current strength points are ``UnitState.strength``;
disruption is ``UnitState.disrupted``.
"""
from __future__ import annotations

import msgspec
from msgspec import Struct

from pbem.core.state import GameState
from pbem.games.formation.combat_state import Combat

AXIS, ALLIED = "axis", "allied"


def other(side: str) -> str:
    return ALLIED if side == AXIS else AXIS


class Formation(Struct, omit_defaults=True):
    """One formation's track and its HQ's status."""
    side: str
    level: int                     # Formation Activation level (6.4.2)
    support: int                   # HQ's current Attack Support Points (3.3 g, 5.3.3)
    oos: bool = False              # HQ found Out of Supply at its last check (5.7.5)
    removed: bool = False          # HQ removed: every subordinate unit eliminated (3.3)
    substituted: bool = False      # substitute HQ in play (9.4.4)


class Activation(Struct, omit_defaults=True):
    """The formation spending Action Points now (6.4) or reacting (6.5)."""
    formation: str
    side: str
    ap: int                        # APs left on the AP track
    reaction: bool = False         # a Formation Reaction (6.5.2): no counter-reaction
    moves: int = 0                 # Movement Actions begun so far (one reaction attempt per move, 6.5.1)
    bonus: int = 0                 # Battle Victory bonus APs still to spend (7.4.3)
    bonus_units: list[str] = []    # the only units that may spend them
    defender: bool = False         # a winning defender's bonus actions (7.4.3): bonus APs only, no reaction


class Paused(Struct, omit_defaults=True):
    """A Movement Action stopped where it may trigger a reaction (6.5.1), waiting
    for the Reaction player's answer (``react FORMATION`` | ``pass``)."""
    side: str                      # the reacting side (who must answer)
    units: list[str]               # the moving stack
    at: str                        # hex the stack stands in now
    rest: list[str]                # the path still to move (hidden from the reacting side)
    formations: list[str]          # formations that may attempt the reaction
    leaving: bool = False          # triggered by announcing to leave ``at``
    screen: bool = False
    mp_left: str = ""              # movement points still available (exact, 5.1)


class Book(Struct, omit_defaults=True):
    """What the Formation Series rules keep beyond the core state."""
    step: str = ""                 # admin | ops-choose | actions | paused | end-of-turn ("" before the first phase)
    admin_side: str = ""           # the side giving admin orders (Schwerpunkt, reinforcements; 9.2, 9.4)
    formations: dict[str, Formation] = {}
    schwerpunkt: str = ""          # formation holding the Schwerpunkt marker (5.9); "" none
    sp_done: bool = False          # its owner placed it in this Organization Segment (9.2)
    init_drm: int = 0              # Initiative +DRM marker value (6.1); 0 = on the 0 space
    init_drm_side: str = ""        # side whose symbol shows (the side that adds it)
    in_row: int = 0                # initiatives in a row (6.1.1)
    in_row_side: str = ""
    transfers: int = 0             # initiatives transferred in a row to ``transfer_side`` (6.2)
    transfer_side: str = ""
    cycle: int = 0                 # Ops Cycles begun this turn
    initiative: str = ""           # the Initiative player of this cycle
    by_transfer: bool = False      # ``initiative`` received it by transfer: must act or end (6.2, 6.3)
    active: Activation | None = None        # the activation spending APs
    suspended: Activation | None = None     # the Initiative player's activation while a reaction runs (6.5.3)
    interrupted: list[Activation] = []      # activations a winning defender's bonus actions interrupt (7.4.3)
    paused: Paused | None = None
    reacted: bool = False          # a reaction attempt was made in the current Movement Action (6.5.1)
    snafu: str = ""                # side holding the SNAFU/Schlachtenglueck marker (5.2)
    snafu_used: bool = False       # used since the start of this turn
    doctrines: dict[str, dict[str, str]] = {}   # side -> topic ("reaction" | "snafu") -> standing order text
    vp: int = 0                    # Victory Points of the scoring side
    scored: list[str] = []         # VP hexes scored this turn (16: once per turn)
    improved: list[str] = []       # hexes with an Improved Defense marker (7.6)
    blocked: list[str] = []        # supply sources with a Supply Blocked marker (5.7.3)
    depleted: list[str] = []       # depleted strongpoints (3.1.3)
    off_map: dict[str, int] = {}   # unit -> turn it returns from a friendly off-board area (13.2.4.1)
    cups: dict[str, list[int]] = {}   # optional AP markers (6.4.1): side -> indexes still in its cup
    combat: Combat | None = None   # the combat being resolved (combat_state.py, 7.4)


class FormationState(GameState, omit_defaults=True):
    """The state of a Formation Series game (MiragesRules.state_type)."""
    fm: Book = msgspec.field(default_factory=Book)
