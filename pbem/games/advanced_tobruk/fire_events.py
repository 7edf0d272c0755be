"""Advanced Tobruk's fire, morale and close-assault events (10-17, 21-23), their
reducers (``FIRE_REDUCERS``, merged by reducer.py) and nothing else.

Every event that rolled keeps its dice in ``rolls`` and every step that led
from the dice to the result (DRMs, hit location, armour against penetration,
table numbers), so that a report settles a dispute on its own.  The words are
in fire_words.py."""
from __future__ import annotations

from msgspec import Struct

from pbem.core.events import Event, register
from pbem.core.scenario import Scenario
from pbem.games.advanced_tobruk.noting import touch, walk
from pbem.games.advanced_tobruk.state import TobrukState


class Round(Struct, omit_defaults=True):
    """One HPT shot (13.42) and, for a hit on an AFV, its location and damage (13.5-13.11)."""
    roll: int
    hit: bool = False
    location: str = ""             # TUR | UH | LH | TR (13.52); "" for non-AFV targets
    loc_roll: int = 0
    aspect: str = ""               # front | flank | rear of the part hit (13.51, 12.234)
    armour: int = 0
    pen: int = 0
    kill_number: int = 0           # K-KILL Table number for pen - armour (13.622)
    kill_roll: int = 0
    burn_number: int = 0           # 13.71
    table: str = ""                # "M-KILL TR" | "M-KILL UH" | "F-KILL" | "APC" | "truck" | "weapon"
    table_number: int = 0
    table_roll: int = 0
    suppress_number: int = 0       # 13.111
    suppress_roll: int = 0
    bail_number: int = 0           # 13.81
    bail_roll: int = 0
    bail_drms: list[str] = []      # "command tank T1 lost +1" (24.05): added to bail_number
    result: str = ""               # what this round did, in words ("K-KILL, burning wreck", "no penetration", ...)


class GunFired(Event, tag="TobrukGunFired"):
    """One weapon's HPT fire at one target (13, 16.1, 17.5, 17.6): the HPN, its DRMs and every round."""
    strike = "hex"
    firer: str
    weapon: str
    target: str
    hex: str
    range: int
    ammo: str                      # AP | HE | APCR | HEAT | MG
    hpn: int                       # the table's number (13.22)
    need: int                      # hit on this or less: hpn minus the DRMs (plus is harder)
    rof: int
    rounds: list[Round]
    rolls: list[int]
    drms: list[str] = []           # "target moved +2", "flank aspect -1", ...
    rof_notes: list[str] = []      # why the rate of fire differs from the printed one (9.21, 13.462, 17.91)
    need_after: int = 0            # the need once a hit acquired the target during this fire (13.463)
    effects: list[list[str]] = []  # [unit, effect, detail]: kkill|mkill|fkill|suppressed|bailed|exit|eliminated
    acquired: bool = False         # a BOT marker stands on the target for this firer after the fire (13.46)
    pivot: list[int] = []          # [facing, turret] the firer turned to for this fire (-1 unchanged)
    group: list[str] = []          # the other firers of a firegroup's gunfire at a vehicle (marked fired)
    by: str = ""                   # "" fire phase | "order" | "answer" | "final" | "duel" | "final defence"
    rule: str = ""


class CasualtyAttack(Event, tag="TobrukCasualtyAttack"):
    """One attack on the Casualty Table (15.7, 16.1, 22.12): factors, shifts, column, roll, losses."""
    strike = "hex"
    source: str                    # gunfire | HE hit | HE miss | grenade | AP collateral | ...
    hex: str
    factors: int
    column: int                    # 0 = shifted off the table, no effect
    roll: int
    result: int                    # n of 'Cn'; 0 = no effect
    rolls: list[int]
    firers: list[str] = []
    parts: list[str] = []          # how the factors add up
    shifts: list[str] = []         # "assault cover +2", "leader +1", ...
    losses: list[list[str]] = []   # [unit, steps after, "eliminated"|""]
    mark_fired: bool = True        # desperation fire / collateral attacks mark nobody
    pivot: list[int] = []          # [facing, turret] a vehicle's machine-guns turned to (12.235; -1 unchanged)
    by: str = ""
    rule: str = ""


class MoraleChecked(Event, tag="TobrukMoraleChecked"):
    """A morale check (10.2), rally (11.5), intimidation (11.61) or chain surrender (11.7)."""
    unit: str
    why: str                       # casualty | chain | desperation | overrun | melee | assault | rally | intimidation
    morale: int                    # the unit's morale as it stands (casualty markers included)
    altered: int                   # after the modifiers of 10.1 (what the roll is compared with)
    result: str                    # passed | pinned | courage | broken | surrendered | eliminated | rallied | failed
    rolls: list[int] = []
    drm: int = 0                   # the casualty level (10.21)
    mods: list[str] = []
    rule: str = ""


class SuppressionChecked(Event, tag="TobrukSuppressionChecked"):
    """13.1131: end-of-turn check to remove a Suppressed marker."""
    unit: str
    morale: int
    rolls: list[int]
    removed: bool


class AssaultDeclared(Event, tag="TobrukAssaultDeclared"):
    """23: a personnel unit (with at most one leader) will close assault a vehicle in its hex."""
    unit: str
    vehicle: str
    leader: str = ""


class MeleeRound(Event, tag="TobrukMeleeRound"):
    """One round of melee in a hex (22.6-22.7)."""
    strike = "hex"
    hex: str
    round: int
    attackers: list[str]
    defenders: list[str]
    attack: int
    defence: int
    odds: str                      # the Melee Table column, or "worse than 1-2" / "over 4-1"
    rolls: list[int]
    attacker_steps: int = 0
    defender_steps: int = 0
    losses: list[list[str]] = []   # [unit, steps after, "eliminated"|"surrendered"|""]
    outcome: str = ""              # "" (another round follows) | attacker | defender | both out


class MeleeEnded(Event, tag="TobrukMeleeEnded"):
    """The melee in a hex is over (22.55): markers off, the winners' broken attackers restored."""
    hex: str
    winner: str                    # side, or "" if nobody is left
    restored: list[str] = []       # broken attackers of a winning attacker (22.55, 23.21)
    eliminated: list[str] = []     # broken attackers of a losing attacker (22.55, 23.21)


class CloseAssaulted(Event, tag="TobrukCloseAssaulted"):
    """23.3: a close assault on a vehicle."""
    unit: str
    vehicle: str
    value: int
    rolls: list[int]
    result: str                    # K-KILL | M-KILL | no effect | captured
    leader: str = ""
    mods: list[str] = []
    effects: list[list[str]] = []


class WeaponCaptured(Event, tag="TobrukWeaponCaptured"):
    """11.82-11.84: a weapon or vehicle changes side at the end of the turn."""
    unit: str
    side: str
    by: str


class Overrun(Event, tag="TobrukOverrun"):
    """21: an AFV in assault movement overruns one personnel unit (and its weapons) or one weapon."""
    strike = "hex"
    afv: str
    unit: str
    hex: str
    morale_loss: int = 0           # the unit's overrun reduction this turn after this overrun (21.12-21.13)
    rolls: list[int] = []          # track breakage rolls (21.41)
    effects: list[list[str]] = []
    result: str = ""



FIRE_EVENTS = (GunFired, CasualtyAttack, MoraleChecked, SuppressionChecked, AssaultDeclared, MeleeRound,
               MeleeEnded, CloseAssaulted, WeaponCaptured, Overrun)
register(*FIRE_EVENTS)


# --- reducers ---------------------------------------------------------------------

def _clear_bots_on(st: TobrukState, uid: str) -> None:
    """13.461: a unit that is K-KILLed, F-KILLed, newly suppressed or broken loses what it had acquired."""
    p = st.pieces.get(uid)
    if p is not None:
        p.bot, p.bot_turn = "", 0


def apply_effect(st: TobrukState, uid: str, what: str, detail: str = "") -> list[str]:
    """One damage effect on a unit (13.6-13.8, 9.33, 17.6); the other units it changed (the
    weapons an eliminated unit held)."""
    p = st.pieces[uid]
    u = st.units[uid]
    if what == "kkill":
        p.wreck = detail or "wreck"
        u.eliminated = True
        _clear_bots_on(st, uid)
    elif what == "mkill":
        p.m_kill = True
    elif what == "fkill":
        if detail not in p.f_kill:
            p.f_kill = sorted([*p.f_kill, detail])
        _clear_bots_on(st, uid)
    elif what == "suppressed":
        if not p.suppressed:
            _clear_bots_on(st, uid)
        p.suppressed = True
    elif what == "bailed":
        p.bailed = True
        _clear_bots_on(st, uid)
    elif what == "eliminated":
        u.eliminated = True
        return _drop_held(st, uid)
    elif what == "ceasefire":
        p.fired = True                       # 17.53: may not fire this turn
    elif what == "ammo":                     # 17.25: one round a shot (the key as the note or card wrote it)
        kind, _, n = detail.partition(" ")
        key = next((k for k in p.ammo if k.upper() == kind.upper()), kind)
        p.ammo = {**p.ammo, key: max(0, p.ammo.get(key, 0) - int(n))}
    elif what == "steps":
        p.steps = int(detail)
    return []


def _drop_held(st: TobrukState, uid: str) -> list[str]:
    """The weapons ``uid`` held are nobody's now (8.4, 11.21): every piece looked at, the ones
    changed noted (``noting.touch``) and returned, not every unit's markers derived again."""
    pieces = st.pieces
    dropped = []
    for w, q in walk(pieces):
        if q.holder == uid:
            q.holder = ""
            touch(pieces, w)
            dropped.append(w)
    return dropped


def _pivoted(p, pivot: list[int]) -> None:
    """A firer turned for its fire: [facing, turret], -1 unchanged (12.233, 8.512)."""
    if pivot:
        if pivot[0] >= 0:
            p.facing = pivot[0]
        if len(pivot) > 1 and pivot[1] >= 0:
            p.turret = pivot[1] if pivot[1] != p.facing else -1


def _gun_fired(st: TobrukState, ev: GunFired, sc: Scenario) -> list[str]:
    """The firer, its firegroup and what it hit; it names them (reducer.py, ``_SELF_MARKING``)."""
    p = st.pieces[ev.firer]
    p.fired = True                                      # 13.102 F marker
    touched = [ev.firer, *ev.group]
    for f in ev.group:
        st.pieces[f].fired = True
    _pivoted(p, ev.pivot)
    if ev.acquired:
        if p.bot != ev.target:
            p.bot_turn = st.turn
        p.bot = ev.target
    elif p.bot != ev.target:
        p.bot, p.bot_turn = "", 0                       # 13.461 switched targets
    for uid, what, detail in ev.effects:
        touched.append(uid)
        touched += apply_effect(st, uid, what, detail)
    return touched


def _losses(st: TobrukState, losses: list[list[str]]) -> list[str]:
    """Casualty steps (15.8) and their fates; the units changed."""
    touched = []
    for uid, steps, fate in losses:
        p = st.pieces[uid]
        p.steps = int(steps)
        touched.append(uid)
        if fate == "eliminated":
            touched += apply_effect(st, uid, "eliminated")
        elif fate == "surrendered":
            p.surrendered, p.broken = True, False
    return touched


def _casualty(st: TobrukState, ev: CasualtyAttack, sc: Scenario) -> list[str]:
    """The firers marked, the losses; it names the units it changed (reducer.py, ``_SELF_MARKING``)."""
    pieces = st.pieces
    touched = []
    if ev.mark_fired:
        for f in ev.firers:
            pieces[f].fired = True
        touched += ev.firers
    if ev.pivot and ev.firers:
        _pivoted(pieces[ev.firers[0]], ev.pivot)
        touched.append(ev.firers[0])
    return touched + _losses(st, ev.losses)


def _morale(st: TobrukState, ev: MoraleChecked, sc: Scenario) -> list[str]:
    """The unit checked (and the weapons it drops); it names them (reducer.py, ``_SELF_MARKING``)."""
    p = st.pieces[ev.unit]
    if ev.result == "broken":
        p.broken = True
        _clear_bots_on(st, ev.unit)
    elif ev.result in ("surrendered", "intimidated"):
        p.broken, p.surrendered = False, True
        return [ev.unit, *_drop_held(st, ev.unit)]   # 11.21 surrendered units drop their weapons
    elif ev.result == "eliminated":
        return [ev.unit, *apply_effect(st, ev.unit, "eliminated")]
    elif ev.result == "courage":
        p.courage = True
    elif ev.result == "pinned":
        p.pinned = True
    elif ev.result == "rallied":
        p.broken = p.surrendered = False
    return [ev.unit]


def _suppression(st: TobrukState, ev: SuppressionChecked, sc: Scenario) -> None:
    if ev.removed:
        st.pieces[ev.unit].suppressed = False


def _assault_declared(st: TobrukState, ev: AssaultDeclared, sc: Scenario) -> None:
    st.pieces[ev.unit].attacker = True
    if ev.leader:
        st.pieces[ev.leader].attacker = True
    st.assaults = {**st.assaults, ev.unit: ev.vehicle}


def _melee_round(st: TobrukState, ev: MeleeRound, sc: Scenario) -> None:
    _losses(st, ev.losses)


def _melee_ended(st: TobrukState, ev: MeleeEnded, sc: Scenario) -> None:
    for uid in ev.restored:
        st.pieces[uid].broken = False
    for uid in ev.eliminated:
        apply_effect(st, uid, "eliminated")
    for _, u in walk(st.units):               # the pieces in the hex are asked for
        if u.hex == ev.hex:
            p = st.pieces[u.id]
            p.melee = p.attacker = False
    if ev.hex in st.melees:
        st.melees = [h for h in st.melees if h != ev.hex]
    st.melee_attacker.pop(ev.hex, None)


def _close_assaulted(st: TobrukState, ev: CloseAssaulted, sc: Scenario) -> None:
    st.pieces[ev.unit].attacker = False
    if ev.leader:
        st.pieces[ev.leader].attacker = False
    st.assaults = {k: v for k, v in st.assaults.items() if k != ev.unit}
    for uid, what, detail in ev.effects:
        apply_effect(st, uid, what, detail)
    if ev.result == "captured":
        st.units[ev.vehicle].side = st.units[ev.unit].side


def _captured(st: TobrukState, ev: WeaponCaptured, sc: Scenario) -> None:
    st.units[ev.unit].side = ev.side
    st.pieces[ev.unit].holder = ""


def _overrun(st: TobrukState, ev: Overrun, sc: Scenario) -> None:
    if ev.morale_loss:
        p = st.pieces[ev.unit]
        p.overrun = ev.morale_loss
        if ev.afv not in p.overrun_by:
            p.overrun_by = [*p.overrun_by, ev.afv]
    for uid, what, detail in ev.effects:
        apply_effect(st, uid, what, detail)


FIRE_REDUCERS = {
    GunFired: _gun_fired, CasualtyAttack: _casualty, MoraleChecked: _morale,
    SuppressionChecked: _suppression, AssaultDeclared: _assault_declared, MeleeRound: _melee_round,
    MeleeEnded: _melee_ended, CloseAssaulted: _close_assaulted, WeaponCaptured: _captured, Overrun: _overrun,
}

