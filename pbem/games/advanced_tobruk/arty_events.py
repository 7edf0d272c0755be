"""Indirect fire's events (18-20) and their reducers (ART_REDUCERS, merged by reducer.py).

Every roll and modifier is in the event (the words are arty_words.py): a contact
roll with its NO FIRE and supply DRMs, an accuracy roll with its DRMs and the
final hex, each direct-hit roll with the units' rolls, each vehicle's damage.
Casualty Table attacks are the fire package's CasualtyAttack."""
from __future__ import annotations

from collections.abc import Callable

from pbem.core.events import Event, register
from pbem.core.scenario import Scenario
from pbem.games.advanced_tobruk.arty_state import Battery, Indirect
from pbem.games.advanced_tobruk.fire_events import apply_effect


class ContactRolled(Event, tag="TobrukContactRolled"):
    """18.22 a battery contact roll (also 18.733 a rolling barrage's lift roll); ``rolls`` its one die."""
    battery: str
    side: str
    rolls: list[int]
    need: int                      # the nationality's contact number: the modified roll must not exceed it
    drms: list[str] = []           # "NO FIRE 2 turns +2", "high ammunition supply -1"
    ok: bool = False
    purpose: str = ""              # "" a new FFE | "move" a CFF moved more than three hexes | "lift"
    drop: bool = False             # 18.223 the battery's marker is removed (the roll failed)

    @property
    def roll(self) -> int:
        return self.rolls[0]


class IndirectFired(Event, tag="TobrukIndirectFired"):
    """One indirect fire mission: an off-board FFE, a mortar's or on-board gun's fire, smoke (18.3, 19, 20).
    ``rolls`` are the two accuracy dice (none: no accuracy roll, 18.32); ``total`` = percentile + DRMs."""
    strike = "hexes"
    side: str
    source: str                    # battery id or firing unit
    what: str                      # concentration | barrage | rolling | mortar | gun | smoke | cb
    aimed: str                     # the hex the fire was called on (the CFF hex)
    final: str = ""                # where it came down
    rolls: list[int] = []
    pct: int = 0
    drms: list[str] = []           # "+20 registration", "-4 LOS (wreck in the line)"
    total: int = 0
    off: int = 0                   # hexes of drift
    toward: str = ""               # the drift's direction
    hexes: list[str] = []          # every hex attacked (or smoked)
    ends: list[str] = []           # barrage limit markers (18.71)
    dh: list[int] = []             # direct-hit rolls due per hex of ``hexes`` (18.61, 18.71)
    frag: int = 0
    need: int = 0                  # direct-hit number (before the target's cover DRM)
    smoke: bool = False
    spotter: str = ""              # the FO / leader / mortar spotter who called it
    mark: list[str] = []           # units marked fired (the firer, an FO or leader who observed, 18.864)
    ffe: bool = False              # an FFE of the battery's allotment is used (18.12)
    registered: str = ""           # the registration note opened for this fire ("" none)
    stage: int = 0                 # 5.111 order inside the phase (arty_state.Indirect)
    range: int = 0
    rule: str = ""


class DirectHitRolled(Event, tag="TobrukDirectHitRolled"):
    """18.43, 19.11: one direct-hit roll in a hex; when it can hit, every unit there rolls and the
    highest (ties: all) takes it, each with its own cover DRM.  ``rolls``: the hex's die, then the
    units' dice in ``units`` order."""
    source: str
    hex: str
    rolls: list[int]
    need: int
    drm: int = 0                   # 20.03 an on-board gun's LOS HPN DRMs, added to the die
    units: list[list[str]] = []    # [unit, its roll, its cover DRM]
    hit: list[str] = []            # the units hit
    rule: str = ""

    @property
    def roll(self) -> int:
        return self.rolls[0]


class VehicleStruck(Event, tag="TobrukVehicleStruck"):
    """Indirect fire's effect on a vehicle or weapon (19.15-19.31, 30.02): a direct hit or a
    suppression check after a miss; every roll kept."""
    source: str
    unit: str
    how: str                       # afv | open | soft | weapon | suppression | soft-frag
    rolls: list[int] = []
    location: str = ""
    aspect: str = ""
    armour: int = 0
    pen: int = 0                   # HE penetration, halved for indirect fire (19.15)
    kill_number: int = 0
    burn_number: int = 0
    suppress_number: int = 0
    column: str = ""               # the Non-AFV table column (19.22)
    result: str = ""
    effects: list[list[str]] = []


class SmokePlaced(Event, tag="TobrukSmokePlaced"):
    """20.3 a smoke counter in a hex, showing '1' (off-board, two turns) or '2' (on-board, one turn);
    an on-board attempt records its direct-hit roll in ``rolls`` (20.35) and may fail (``shows`` 0)."""
    source: str
    hex: str
    shows: int = 0
    rolls: list[int] = []
    need: int = 0
    drms: list[str] = []

    @property
    def roll(self) -> int:
        return self.rolls[0] if self.rolls else 0


class BatteryLocated(Event, tag="TobrukBatteryLocated"):
    """18.1151 a locating attempt on an enemy battery that fired this turn."""
    battery: str
    by: str                        # the locating side
    rolls: list[int]
    need: int
    located: bool

    @property
    def roll(self) -> int:
        return self.rolls[0]


class CounterBattery(Event, tag="TobrukCounterBattery"):
    """18.1152 counter-battery fire declared (or 18.1153 ended: ``target`` neutralized through ``until``)."""
    battery: str
    target: str
    start: int = 0                 # the turn declared
    ended: bool = False
    until: int = 0


class IndirectTurnEnded(Event, tag="TobrukIndirectTurnEnded"):
    """5.41, 20.364, 18.732: FFEs back to CFFs, smoke ageing, rolling barrages moved on their track."""
    turn: int
    flipped: list[str] = []        # batteries whose FFE is a CFF again
    smoke_gone: list[str] = []
    smoke_aged: list[str] = []
    lifted: list[str] = []         # rolling barrages removed (18.733)
    cleared: list[str] = []        # barrage markers removed at the end of their turn (our decision)


EVENTS = (ContactRolled, IndirectFired, DirectHitRolled, VehicleStruck, SmokePlaced, BatteryLocated, CounterBattery,
          IndirectTurnEnded)
register(*EVENTS)


# --- reducers ------------------------------------------------------------------------------

def _battery(st, bid: str) -> Battery:
    b = st.batteries.get(bid)
    if b is None:
        b = st.batteries[bid] = Battery()
    return b


def _contact(st, ev: ContactRolled, sc: Scenario) -> None:
    b = _battery(st, ev.battery)
    b.side = ev.side
    if not ev.ok and ev.purpose != "lift":
        b.no_fire += 1                                   # 18.222 retained for later attempts
    if ev.drop:
        b.cff, b.ffe, b.kind, b.hexes, b.ends = "", False, "", [], []


def _stage(st, stage: int) -> None:
    cur = st.indirect
    now = cur.turn == st.turn
    st.indirect = Indirect(turn=st.turn, stage=max(stage, cur.stage if now else 0),
                           leaders=list(cur.leaders) if now else [], observers=list(cur.observers) if now else [])


def _observers(st, ev: IndirectFired, sc: Scenario) -> list[str]:
    """18.864, 18.93, 19.51: who observed this fire (and so may not move this turn): a battery's FO
    (and the OP tank it observes from), a mortar's or gun's spotter.  A leader calling a barrage on
    its registration observes nothing (18.101: no line of sight).  A hidden caller is not named in
    the event: a concentration or smoke is then its FO's (only an FO calls them); a hidden
    caller's barrage is not tracked (our decision: the unit cannot move while hidden anyway)."""
    notes = st.notes.get(ev.side)
    if ev.source not in (sc.game_data.get("artillery") or {}):
        return [ev.spotter] if ev.spotter else []
    fo = notes.fo.get(ev.source, "") if notes is not None else ""
    if not fo or not (ev.spotter == fo or not ev.spotter and ev.what in ("concentration", "smoke")):
        return []
    op = notes.op.get(fo, "")
    return [fo, op] if op else [fo]


def _fired(st, ev: IndirectFired, sc: Scenario) -> list[str]:
    """The battery or weapon that fired and the units marked; it names the units it changed
    (reducer.py, ``_SELF_MARKING``)."""
    touched = []
    _stage(st, ev.stage)
    if ev.spotter:
        st.indirect.leaders = [*st.indirect.leaders, ev.spotter]      # 18.102 one battery a turn
    seen = [u for u in _observers(st, ev, sc) if u not in st.indirect.observers]
    if seen:
        st.indirect.observers = [*st.indirect.observers, *seen]
    for u in ev.mark:
        if u in st.pieces:
            st.pieces[u].fired = True                    # 18.864, 18.101, 20.02 F marker
            touched.append(u)
    if ev.what in ("mortar", "gun") and ev.source in st.pieces:
        p = st.pieces[ev.source]
        touched.append(ev.source)
        if p.bot != ev.final:
            p.bot, p.bot_turn = "", 0                    # 13.461 another target: its BOT marker goes
    ssr = sc.tables.data.artillery
    if ev.source not in ssr:
        return touched
    b = _battery(st, ev.source)
    b.side = ev.side
    b.cff, b.ffe, b.kind = ev.final, True, ev.what
    b.hexes, b.ends = list(ev.hexes), list(ev.ends)
    b.fired = st.turn
    if ev.ffe:
        b.used += 1
    if ev.what == "rolling":                             # 18.732 turns it still moves; then it is due to lift
        b.roll_left = int((ssr[ev.source].get("rolling") or {}).get("turns", 0)) if ev.ffe else \
            max(0, b.roll_left - 1)
        b.lift = b.roll_left == 0
    return touched


def _direct_hit(st, ev: DirectHitRolled, sc: Scenario) -> list[str]:
    """19.71, 13.461: a direct hit by a mortar or an on-board gun places its BOT marker in the hex
    (it names the firer: reducer.py, ``_SELF_MARKING``)."""
    p = st.pieces.get(ev.source)
    if ev.hit and p is not None and p.bot != ev.hex:
        p.bot, p.bot_turn = ev.hex, st.turn
    return [ev.source]


def _struck(st, ev: VehicleStruck, sc: Scenario) -> None:
    for uid, what, detail in ev.effects:
        apply_effect(st, uid, what, detail)


def _smoke(st, ev: SmokePlaced, sc: Scenario) -> None:
    if ev.shows:
        st.smoke = {**st.smoke, ev.hex: min(ev.shows, st.smoke.get(ev.hex, ev.shows))}


def _located(st, ev: BatteryLocated, sc: Scenario) -> None:
    if ev.located:
        _battery(st, ev.battery).located = True


def _cb(st, ev: CounterBattery, sc: Scenario) -> None:
    _stage(st, 5)
    b = _battery(st, ev.battery)
    if ev.ended:
        b.cb, b.cb_from = "", 0
        if ev.until:
            t = _battery(st, ev.target)
            t.quiet_until = max(t.quiet_until, ev.until)
    else:
        b.cb, b.cb_from = ev.target, ev.start
        b.cff, b.ffe, b.kind, b.hexes, b.ends = "", False, "", [], []


def _turn_ended(st, ev: IndirectTurnEnded, sc: Scenario) -> None:
    for bid in ev.flipped:
        st.batteries[bid].ffe = False
    for bid in [*ev.lifted, *ev.cleared]:
        b = st.batteries[bid]
        b.cff, b.ffe, b.kind, b.hexes, b.ends, b.roll_left, b.lift = "", False, "", [], [], 0, False
    smoke = {h: v for h, v in st.smoke.items() if h not in ev.smoke_gone}
    for h in ev.smoke_aged:
        smoke[h] = 2
    st.smoke = smoke


# the reducers that name the units they change, and those that change no piece and no unit (the
# batteries, smoke and the phase's stage only): reducer.py's _SELF_MARKING and _NO_PIECES
ART_NAMING = (_fired, _direct_hit)
ART_NO_PIECES = (_contact, _smoke, _located, _cb, _turn_ended)

ART_REDUCERS: dict[type, Callable] = {
    ContactRolled: _contact, IndirectFired: _fired, DirectHitRolled: _direct_hit, VehicleStruck: _struck,
    SmokePlaced: _smoke, BatteryLocated: _located, CounterBattery: _cb, IndirectTurnEnded: _turn_ended,
}
