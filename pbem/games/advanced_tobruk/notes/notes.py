"""Side notes (5.01): what the rules ask a player to write down where the
opponent may not see it until the rules say so.

Each note is a core sealed secret: ``note KIND ...`` emits ``SecretRecorded``
(the log keeps the commitment; the text reaches only its owner's views) and
the secret pre-game rolls (``roll``: FFEs per battery 18.12, APCR/HEAT rounds
17.23) are sealed the same way, their dice in a ``NoteRolled`` event that the
other side sees without its rolls.  The reducer copies each note's meaning into
the state (``st.notes[side]``, ``Piece.hidden_at``/``dummy``/``ammo``/``holder``,
``st.minefields``) so that the rules read it from there; every later use is
checked against it, and a note may never be changed (18.53).  The rules open a
note (``open_note``: ``SecretRevealed``, checked against its commitment by the
core reducer) exactly when the enemy learns it; at the game's end every note
still sealed is opened, so each side can check every commitment of the other.

Note names are neutral (``reg-2``, ``hide-1``, ``mine-3``): the name is public,
so it says nothing the opponent may not know.  The text is canonical, one of::

    register X HEX         18.51 battery / 19.6 mortar (``register`` phase), 18.54 on-board weapon
    fo BATTERY FO          18.82            op FO AFV         18.91 the FO rides in an AFV
    crew WEAPON CREW       9.12             apcr|heat UNIT N  17.25
    command AFV            24.01            elite AFV         24.07
    hide UNIT[+UNIT] HEX [SPINE]   32.22    dummy UNIT        32.24
    mine HEX DENSITY [hidden] | mine HEX dummy                31.14, 31.15, 31.19
    ffe BATTERY N roll R   18.12 (rolled)   ammo APCR|HEAT N base B roll R    17.24 (rolled)
"""
from __future__ import annotations

from collections.abc import Callable

from pbem.core import events as CE, orders as O
from pbem.core.orders import OrderError
from pbem.core.reduce import secret_commitment
from pbem.core.ruleset import Ctx
from pbem.core.scenario import Scenario
from pbem.games.advanced_tobruk import data
from pbem.games.advanced_tobruk.board import spotting
from pbem.games.advanced_tobruk.tables import fire_ap_tables as T
from pbem.games.advanced_tobruk.note_events import NoteRolled
from pbem.games.advanced_tobruk.schema import TobrukData
from pbem.games.advanced_tobruk.board.facing import SPINES, spine
from pbem.games.advanced_tobruk.mines_state import Minefield
from pbem.games.advanced_tobruk.notes_state import Notes
from pbem.games.advanced_tobruk.state import TobrukState
from pbem.games.advanced_tobruk.tables.fire_ap_tables import ammo_table

PREFIX = {"register": "reg", "fo": "fo", "op": "op", "crew": "crew", "apcr": "ammo", "heat": "ammo",
          "command": "command", "elite": "elite", "hide": "hide", "dummy": "dummy", "mine": "mine",
          "ffe": "roll", "ammo": "roll"}
RESERVED = tuple(sorted({f"{p}-" for p in PREFIX.values()} | {"command"}))
HIDE_TERRAIN = ("scrub", "rock", "rock-strewn", "palm", "palm-grove", "building")    # 32.21
EMPLACEMENT = ("pit", "hedgehog", "sangar", "bunker", "blockhouse", "trench", "wire")  # 31.13
SYNTAX = {
    "register": "note register BATTERY|MORTAR|WEAPON HEX",
    "fo": "note fo BATTERY FO", "op": "note op FO AFV", "crew": "note crew WEAPON CREW",
    "apcr": "note apcr UNIT ROUNDS", "heat": "note heat UNIT ROUNDS", "command": "note command AFV",
    "elite": "note elite AFV", "hide": "note hide UNIT[+UNIT...] HEX [SPINE]", "dummy": "note dummy UNIT",
    "mine": "note mine HEX DENSITY [hidden]  |  note mine HEX dummy",
}
RULES = {"register": "18.51, 18.54, 19.6", "fo": "18.82", "op": "18.91", "crew": "9.12", "apcr": "17.25",
         "heat": "17.25", "command": "24.01", "elite": "24.07", "hide": "32.22", "dummy": "32.24",
         "mine": "31.14, 31.15, 31.19"}
PREGAME = ("setup", "register")


# --- reading the notes ---------------------------------------------------------------------

def notes_of(st: TobrukState, side: str) -> Notes:
    return st.notes.get(side) or Notes()


def note_for(st: TobrukState, side: str, kind: str, *words: str) -> str | None:
    """The name of ``side``'s note of ``kind`` whose next words are ``words`` (None if none):
    ``note_for(st, "british", "register", "BTY1", "0604")``, ``note_for(st, s, "hide", "H1")``
    (a unit of a ``hide`` note with several), ``note_for(st, s, "mine", "0706")``."""
    for name, text in notes_of(st, side).names.items():
        w = text.split()
        if not w or w[0] != kind:
            continue
        args = w[1:]
        if kind == "hide" and words:
            if words[0] in args[0].split("+") and list(words[1:]) == args[1:1 + len(words) - 1]:
                return name
            continue
        if args[:len(words)] == list(words):
            return name
    return None


def is_open(st: TobrukState, side: str, name: str) -> bool:
    """Whether the note has been opened (or was never sealed)."""
    return f"{side}:{name}" not in st.secrets


def open_note(ctx: Ctx, side: str, name: str | None) -> None:
    """The enemy learns the note now: open it (once), its commitment checked by the core."""
    if not name:
        return
    key = f"{side}:{name}"
    rec = ctx.secret_records.get(key)
    if rec is None or key not in ctx.state.secrets:
        return
    ctx.emit(CE.SecretRevealed(side=side, name=name, salt=rec.salt, payload=rec.payload))


def open_all(ctx: Ctx) -> None:
    """At the game's end every note still sealed is opened: each side can check them all."""
    st: TobrukState = ctx.state
    for side in ctx.sc.side_ids():
        for name in list(notes_of(st, side).names):
            open_note(ctx, side, name)


# --- what may be written, and when ----------------------------------------------------------

def _gd(sc: Scenario) -> TobrukData:
    return data.gd(sc)


def batteries(sc: Scenario, side: str) -> list[str]:
    return sorted(b for b, spec in _gd(sc).artillery.items() if spec.get("side") == side)


def _is_mortar(sc: Scenario, uid: str) -> bool:
    t = data.utype(sc, uid)
    return str(t.get("kind", "")).upper() in ("MTR", "MORTAR") or bool(t.get("mortar"))


def reg_kind(sc: Scenario, x: str) -> str:
    """What a registration belongs to: "battery" (18.51), "mortar" (19.6) or "weapon" (18.54)."""
    if x in _gd(sc).artillery:
        return "battery"
    return "mortar" if x in sc.unit_defs and _is_mortar(sc, x) else "weapon"


def owner(sc: Scenario, x: str) -> str:
    if x in _gd(sc).artillery:
        return _gd(sc).artillery[x].get("side", "")
    return sc.unit_defs[x].side if x in sc.unit_defs else ""


def _alt_units(sc: Scenario, side: str, kind: str) -> list[str]:
    """17.24: the side's units able to fire APCR or HEAT."""
    out = []
    for u in sc.units:
        if u.side != side:
            continue
        guns = data.utype(sc, u.id).get("guns", [])
        if any(kind in [str(a).upper() for a in g.get("alt", [])] for g in guns):
            out.append(u.id)
    return out


def rolls_due(sc: Scenario, side: str) -> list[tuple[str, str]]:
    """The secret pre-game rolls of ``side``: ("ffe", battery) per battery (18.12) and
    ("ammo", "APCR"|"HEAT") per alternate ammunition its units carry (17.23) - only in a
    scenario with the issue's SSR tables (so older cards keep their event stream)."""
    if not (_gd(sc).artillery or _gd(sc).apcr):
        return []
    out = [("ffe", b) for b in batteries(sc, side)]
    out += [("ammo", k) for k in ("APCR", "HEAT") if _alt_units(sc, side, k)]
    return out


def in_use(sc: Scenario) -> bool:
    """The scenario has side notes (any of the issue's SSR tables)."""
    return any(getattr(_gd(sc), k) for k in ("artillery", "registrations", "hidden", "dummies", "mines",
                                         "command_control", "elite", "apcr", "limited_intelligence"))


def rolled(st: TobrukState, sc: Scenario, side: str) -> bool:
    n = notes_of(st, side)
    return all((b in n.ffe) if what == "ffe" else (b in n.ammo) for what, b in rolls_due(sc, side))


def _crewless(st: TobrukState, sc: Scenario, side: str) -> list[str]:
    """9.12: the side's medium and heavy crew-served weapons still without a crew."""
    out = []
    for u in sc.units:
        t = data.utype(sc, u.id)
        if u.side == side and t.get("cls") == "weapon" and t.get("weight") in ("M", "H") \
                and not st.pieces[u.id].holder and not st.units[u.id].eliminated and not st.pieces[u.id].dummy:
            out.append(u.id)
    return out


def _unplaced_hidden(st: TobrukState, sc: Scenario, side: str) -> list[str]:
    return [u for u in _gd(sc).hidden.get(side, [])
            if u in st.units and st.units[u].hex is None and not st.pieces[u].hidden_at
            and sc.unit_defs[u].entry_turn == 0]


def due_crew(sc: Scenario, side: str, w: str) -> str:
    """A crew note still due (9.12); a gun that may be the side's dummy needs none (32.24)."""
    may_dummy = data.gd(sc).dummies.get(side, {}).get("counters", [])
    dummy = f"; none if it is the dummy: note dummy {w}, 32.24" if w in may_dummy else ""
    return f"note crew {w} CREW (9.12{dummy})"


def due_hide(sc: Scenario, u: str) -> str:
    """A hidden set-up note still due (32.22): a gun or vehicle names its covered arc."""
    arc = " SPINE" if data.is_vehicle(sc, u) or data.is_heavy(sc, u) else " [SPINE]"
    return f"note hide {u}[+UNIT...] HEX{arc} (32.22)"


def missing(st: TobrukState, sc: Scenario, side: str) -> list[str]:
    """What ``side`` must still note before its set-up is done."""
    n = notes_of(st, side)
    out = []
    if not rolled(st, sc, side):
        out.append("roll (the secret pre-game rolls: 18.12, 17.23)")
    for b in batteries(sc, side):
        if b not in n.fo and not _gd(sc).artillery[b].get("fo_hex"):        # 18.1031 an off-board FO
            out.append(f"note fo {b} FO (18.82)")
    out += [due_crew(sc, side, w) for w in _crewless(st, sc, side)]
    out += [due_hide(sc, u) for u in _unplaced_hidden(st, sc, side)]
    if side in _gd(sc).command_control and not n.command:
        out.append("note command AFV (24.01)")
    return out


def can_register(st: TobrukState, sc: Scenario, side: str) -> bool:
    """In the ``register`` phase: the side still has a battery or mortar registration to record."""
    n = notes_of(st, side)
    for x, count in _gd(sc).registrations.items():
        if owner(sc, x) == side and reg_kind(sc, x) != "weapon" and len(n.registrations.get(x, [])) < count:
            return True
    return False


def check_setup_done(ctx: Ctx) -> None:
    """A side may not finish its set-up with a note the rules require still unwritten."""
    due = missing(ctx.state, ctx.sc, ctx.side)
    if due:
        raise OrderError("before passing, write: " + "; ".join(due), "5.01")


# --- the orders ------------------------------------------------------------------------------

def _phase(ctx: Ctx) -> str:
    st = ctx.state
    return ctx.sc.sequence[st.phase].name if st.phase >= 0 else ""


def _own_setup(ctx: Ctx, rule: str, what: str) -> None:
    st: TobrukState = ctx.state
    if st.result is not None:
        raise OrderError(f"the game is over: {st.result.reason}")
    name = _phase(ctx)
    if name not in PREGAME:
        raise OrderError(f"{what} is written before play begins (5.01), not in turn {st.turn}", rule)
    if st.step.to_act != ctx.side:
        step = "registration step" if name == "register" else "set-up"
        raise OrderError(f"it is {ctx.sc.side_name(st.step.to_act)}'s {step} now; "
                         f"{ctx.sc.side_name(ctx.side)} writes its notes in its own", rule)
    if name == "register" and not what.startswith("a register"):
        raise OrderError(f"{what} is written in your set-up step; the registration step records only "
                         "registrations (18.51)", rule)
    if ctx.side in st.step.passed:
        raise OrderError(f"{ctx.sc.side_name(ctx.side)} has finished this step", rule)


def handle(ctx: Ctx, word: str, args: list[str]) -> None:
    if word == "roll":
        return _roll(ctx, args)
    if not args or args[0].lower() not in SYNTAX:
        raise OrderError("a side note: " + "; ".join(SYNTAX.values()), "5.01")
    kind = args[0].lower()
    _own_setup(ctx, RULES[kind], f"a {kind} note")
    text = CHECKS[kind](ctx, args[1:])
    _seal(ctx, kind, text)


def _seal(ctx: Ctx, kind: str, text: str) -> None:
    st: TobrukState = ctx.state
    prefix = PREFIX[kind]
    if prefix == "command":
        name = "command"
    else:
        used = [n for n in notes_of(st, ctx.side).names if n.startswith(prefix + "-")]
        name = f"{prefix}-{len(used) + 1}"
    salt = ctx.dice.salt()
    ctx.emit(CE.SecretRecorded(side=ctx.side, name=name, commitment=secret_commitment(salt, text),
                               salt=salt, payload=text))


def ammo_modifier(sc: Scenario, side: str) -> int:
    """17.23: the Alternate Ammunition table's modifier for ``side``: the scenario's SSR
    ([game_data.apcr]) plus the note's bonus when the enemy fields a Grant or a Matilda
    (a unit type whose key or name says so; reconstructed)."""
    mod = data.gd(sc).apcr.get(side, 0)
    for u in sc.units:
        names = f"{u.type} {data.utype(sc, u.id).get('name', '')}".lower()
        if u.side != side and any(t in names for t in T.HEAVY_TANKS):
            return mod + T.HEAVY_TANK_MODIFIER
    return mod


def _roll(ctx: Ctx, args: list[str]) -> None:
    """18.12, 17.23-17.24: the side's secret pre-game rolls, each sealed as it is made."""
    st: TobrukState = ctx.state
    sc = ctx.sc
    if args:
        raise OrderError("roll takes nothing else: it makes all of your side's secret pre-game rolls", "18.12")
    _own_setup(ctx, "18.12, 17.23", "the secret pre-game roll")
    due = rolls_due(sc, ctx.side)
    if not due:
        raise OrderError(f"{sc.side_name(ctx.side)} has no secret pre-game roll in this scenario", "18.12, 17.23")
    if rolled(st, sc, ctx.side):
        raise OrderError("your secret pre-game rolls are made; they may not be rolled again", "18.12")
    for what, x in due:
        r = ctx.secret_roll(10)                                      # the side's own chain (dice scheme 2)
        ctx.emit(NoteRolled(side=ctx.side, what=f"{what} {x}", rolls=[r]))
        if what == "ffe":
            spec = _gd(sc).artillery[x]
            supply = {"high": 1, "low": -1}.get(str(spec.get("supply", "")), 0)
            n = max(1, r // 2) + supply                              # 18.12 halved, min 1, then +/-1
            _seal(ctx, "ffe", f"ffe {x} {max(1, n)} roll {r}")
        else:
            base = len(_alt_units(sc, ctx.side, x)) // 2               # 17.24 half the capable units
            more = ammo_table(r, ammo_modifier(sc, ctx.side))          # SSR and the Grant/Matilda note
            _seal(ctx, "ammo", f"ammo {x} {base + more} base {base} roll {r}")


def _unit(ctx: Ctx, uid: str, rule: str):
    st = ctx.state
    u = st.units.get(uid) or next((x for x in st.units.values() if x.id.lower() == uid.lower()), None)
    if u is None:
        raise OrderError(f"unknown unit {uid!r}", rule)
    if u.side != ctx.side:
        raise OrderError(f"{u.id} is not a {ctx.sc.side_name(ctx.side)} unit", rule)
    return u


def _hex(ctx: Ctx, h: str, rule: str) -> str:
    if not ctx.sc.board.grid.contains(h):
        raise OrderError(f"{h} is not a hex of the map", rule)
    return h


def _argc(args: list[str], n: int, kind: str) -> None:
    if len(args) != n:
        raise OrderError(f"write: {SYNTAX[kind]}", RULES[kind])


def _taken(ctx: Ctx, kind: str, *words: str) -> str | None:
    return note_for(ctx.state, ctx.side, kind, *words)


def _register(ctx: Ctx, args: list[str]) -> str:
    st: TobrukState = ctx.state
    sc = ctx.sc
    _argc(args, 2, "register")
    x = next((k for k in (*_gd(sc).artillery, *st.units) if k.lower() == args[0].lower()), args[0])
    allowed = _gd(sc).registrations.get(x, 0)
    if not allowed or owner(sc, x) != ctx.side:
        mine = [k for k in _gd(sc).registrations if owner(sc, k) == ctx.side]
        raise OrderError(f"{x} has no registration in this scenario" +
                         (f"; yours: {', '.join(mine)}" if mine else ""), "18.52")
    h = _hex(ctx, args[1], "18.51")
    kind = reg_kind(sc, x)
    phase = _phase(ctx)
    if kind == "weapon":
        other = next(s for s in sc.side_ids() if s != ctx.side)
        if phase != "setup" or other in st.step.passed:
            raise OrderError(f"{x}'s registrations are recorded before the opponent sets up", "18.54")
    elif phase != "register":
        raise OrderError(f"{x}'s registrations are recorded after all set-up, in the registration step", "18.51")
    have = notes_of(st, ctx.side).registrations.get(x, [])
    if h in have:
        raise OrderError(f"{h} is already a registration of {x}", "18.53")
    if len(have) >= allowed:
        raise OrderError(f"{x} has {allowed} registration(s), all recorded; they may not be changed", "18.53")
    return f"register {x} {h}"


def _fo(ctx: Ctx, args: list[str]) -> str:
    sc = ctx.sc
    _argc(args, 2, "fo")
    b = next((k for k in batteries(sc, ctx.side) if k.lower() == args[0].lower()), "")
    if not b:
        raise OrderError(f"{args[0]} is not one of your batteries ({', '.join(batteries(sc, ctx.side)) or 'none'})",
                         "18.82")
    u = _unit(ctx, args[1], "18.82")
    if not data.utype(sc, u.id).get("fo"):
        raise OrderError(f"{u.id} is not a forward observer counter", "18.83")
    if b in notes_of(ctx.state, ctx.side).fo:
        raise OrderError(f"{b} has its forward observer; the assignment is permanent", "18.82")
    if u.id in notes_of(ctx.state, ctx.side).fo.values():
        raise OrderError(f"{u.id} already observes for another battery", "18.82")
    return f"fo {b} {u.id}"


def _op(ctx: Ctx, args: list[str]) -> str:
    sc = ctx.sc
    _argc(args, 2, "op")
    f, v = _unit(ctx, args[0], "18.91"), _unit(ctx, args[1], "18.91")
    if not data.utype(sc, f.id).get("fo"):
        raise OrderError(f"{f.id} is not a forward observer", "18.91")
    if not data.is_afv(sc, v.id):
        raise OrderError(f"{v.id} is not an AFV", "18.91")
    if _taken(ctx, "op", f.id):
        raise OrderError(f"{f.id} already rides in an AFV", "18.91")
    if ctx.side in _gd(sc).command_control and notes_of(ctx.state, ctx.side).command != v.id:
        raise OrderError("with armour command control an FO with the tanks rides in the command tank: "
                         "note command AFV first, then note op FO with that AFV", "24.04")
    return f"op {f.id} {v.id}"


def _crew(ctx: Ctx, args: list[str]) -> str:
    st: TobrukState = ctx.state
    sc = ctx.sc
    _argc(args, 2, "crew")
    w, c = _unit(ctx, args[0], "9.12"), _unit(ctx, args[1], "9.12")
    if w.id not in _crewless(st, sc, ctx.side):
        raise OrderError(f"{w.id} is not a medium or heavy crew-served weapon without a crew", "9.12")
    if data.cls(sc, c.id) != "crew":
        raise OrderError(f"{c.id} is not a crew counter", "9.12")
    if any(p.holder == c.id for p in st.pieces.values()):
        raise OrderError(f"{c.id} already serves a weapon", "9.12")
    where = (w.hex or st.pieces[w.id].hidden_at, c.hex or st.pieces[c.id].hidden_at)
    if all(where) and where[0] != where[1]:
        raise OrderError(f"{c.id} ({where[1]}) is not with {w.id} ({where[0]})", "9.12")
    return f"crew {w.id} {c.id}"


def _ammo(kind: str) -> Callable[[Ctx, list[str]], str]:
    def check(ctx: Ctx, args: list[str]) -> str:
        st: TobrukState = ctx.state
        sc = ctx.sc
        _argc(args, 2, kind)
        k = kind.upper()
        total = notes_of(st, ctx.side).ammo.get(k)
        if total is None:
            raise OrderError(f"roll first: your {k} rounds come from a secret roll", "17.23")
        u = _unit(ctx, args[0], "17.25")
        if u.id not in _alt_units(sc, ctx.side, k):
            raise OrderError(f"{u.id} cannot fire {k}", "17.22")
        if not args[1].isdigit() or int(args[1]) < 1:
            raise OrderError(f"the rounds are a whole number, 1 or more: {SYNTAX[kind]}", "17.25")
        if _taken(ctx, kind, u.id):
            raise OrderError(f"{u.id}'s {k} rounds are noted; they may not be changed", "17.25")
        given = sum(p.ammo.get(k, 0) for uid, p in st.pieces.items() if st.units[uid].side == ctx.side)
        if given + int(args[1]) > total:
            raise OrderError(f"your side has {total} {k} round(s), {total - given} not yet given out", "17.24")
        return f"{kind} {u.id} {int(args[1])}"
    return check


def _afv_note(kind: str) -> Callable[[Ctx, list[str]], str]:
    def check(ctx: Ctx, args: list[str]) -> str:
        st: TobrukState = ctx.state
        sc = ctx.sc
        _argc(args, 1, kind)
        u = _unit(ctx, args[0], RULES[kind])
        if not data.is_afv(sc, u.id):
            raise OrderError(f"{u.id} is not an AFV", RULES[kind])
        n = notes_of(st, ctx.side)
        if kind == "command":
            if ctx.side not in _gd(sc).command_control:
                raise OrderError("armour command control is not in force for your side in this scenario", "24.01")
            if n.command:
                raise OrderError("your command tank is noted; it may not be changed", "24.01")
        else:
            allowed = _gd(sc).elite.get(ctx.side, 0)
            if u.id in n.elite:
                raise OrderError(f"{u.id} already carries an elite commander", "24.07")
            if len(n.elite) >= allowed:
                raise OrderError(f"your side has {allowed} elite tank commander(s) in this scenario", "24.07")
        return f"{kind} {u.id}"
    return check


def _area(sc: Scenario, side: str, key: str = "") -> list[str]:
    if key:
        a = _gd(sc).mines.get(side, {}).get("area")
        if a:
            return list(a)
    return list(_gd(sc).setup_area.get(side, []))


def may_hide(st: TobrukState, sc: Scenario, side: str, units: list[str], hex: str) -> str:
    """Whether ``units`` may set up hidden in ``hex`` (32.21, 31.31, SSR ``[game_data] hidden``):
    "" if so, else why not (with the rule), for the ``hide`` side note."""
    if not spotting.active(sc):
        return "this scenario has no limited intelligence: no hidden set-up (32)"
    allowed = data.gd(sc).hidden.get(side)
    for uid in units:
        if uid not in st.units or st.units[uid].side != side:
            return f"{uid} is not a {sc.side_name(side)} unit"
        if allowed is not None and uid not in allowed:
            return f"{uid} may not set up hidden: the scenario allows {', '.join(allowed) or 'none'} (32.21 SSR)"
        if allowed is None and not data.is_heavy(sc, uid) and not any(
                st.pieces[w].holder == uid and data.is_heavy(sc, w) for w in units if w in st.pieces):
            return f"{uid} is not a heavy crew-served weapon or its crew (32.21)"
    if spotting.hide_terrain(sc, hex):
        return ""
    if sc.board.has(hex, spotting.PIT):
        for uid in units:
            seen = [o.id for o in st.units.values() if o.side != side and o.hex
                    and sc.board.grid.distance(o.hex, hex) <= spotting.range_for(sc, spotting.letter(sc, uid), True)]
            if seen:
                return f"{hex} is a weapon pit within the spotting range of {seen[0]} (31.31, 32.21)"
        return ""
    return f"{hex} is {data.terrain(sc, hex)}: hidden set-up only in scrub, rock-strewn, palm grove, building or " \
           f"a weapon pit out of enemy spotting range (32.21, 31.31)"


def _hide(ctx: Ctx, args: list[str]) -> str:
    st: TobrukState = ctx.state
    sc = ctx.sc
    if len(args) not in (2, 3):
        raise OrderError(f"write: {SYNTAX['hide']}", "32.22")
    allowed = _gd(sc).hidden.get(ctx.side, [])
    units = [_unit(ctx, n, "32.22").id for n in args[0].split("+")]
    for u in units:
        if u not in allowed:
            raise OrderError(f"{u} may not set up hidden in this scenario" +
                             (f" (yours: {', '.join(allowed)})" if allowed else ""), "32.21")
        if st.units[u].hex is not None or st.pieces[u].hidden_at:
            raise OrderError(f"{u} is already set up", "32.22")
    h = _hex(ctx, args[1], "32.22")
    why = may_hide(st, sc, ctx.side, units, h)
    if why:
        raise OrderError(why, "32.21")
    area = _area(sc, ctx.side)
    if area and h not in area:
        raise OrderError(f"{h} is outside your set-up area", "2.48")
    faced = [u for u in units if data.is_vehicle(sc, u) or data.is_heavy(sc, u)]
    if faced and len(args) != 3:
        raise OrderError(f"{', '.join(faced)} needs its covered arc: {SYNTAX['hide']}", "32.22")
    if len(args) == 3:
        if not faced:
            raise OrderError("only vehicles and heavy weapons have a covered arc", "32.22")
        if args[2].upper() not in SPINES:
            raise OrderError(f"a covered arc is one of {' '.join(SPINES)}", "6.52")
        return f"hide {'+'.join(units)} {h} {args[2].upper()}"
    return f"hide {'+'.join(units)} {h}"


def _dummy(ctx: Ctx, args: list[str]) -> str:
    st: TobrukState = ctx.state
    sc = ctx.sc
    _argc(args, 1, "dummy")
    spec = _gd(sc).dummies.get(ctx.side, {})
    u = _unit(ctx, args[0], "32.24")
    if u.id not in spec.get("counters", []):
        raise OrderError(f"{u.id} may not be a dummy in this scenario", "32.24")
    have = [x for x, p in st.pieces.items() if p.dummy and st.units[x].side == ctx.side]
    if len(have) >= int(spec.get("count", 0)):
        raise OrderError(f"your side has {spec.get('count', 0)} dummy counter(s), all noted", "32.24")
    return f"dummy {u.id}"


def _mine(ctx: Ctx, args: list[str]) -> str:
    st: TobrukState = ctx.state
    sc = ctx.sc
    spec = _gd(sc).mines.get(ctx.side)
    if not spec:
        raise OrderError("your side has no minefields in this scenario", "31.14")
    if len(args) not in (2, 3):
        raise OrderError(f"write: {SYNTAX['mine']}", "31.14")
    h = _hex(ctx, args[0], "31.14")
    area = _area(sc, ctx.side, "mines")
    if area and h not in area:
        raise OrderError(f"{h} is outside the area your minefields may be laid in", "31.14")
    if h in st.minefields:
        raise OrderError(f"{h} has a minefield already: one a hex", "31.12")
    if data.terrain(sc, h) == "building" or any(sc.board.has(h, e) for e in EMPLACEMENT):
        raise OrderError(f"{h} has another field emplacement or a building", "31.13")
    mine = [m for m in st.minefields.values() if m.side == ctx.side]
    if args[1].lower() == "dummy":
        if len(args) == 3:
            raise OrderError("a dummy minefield may not be hidden", "31.201")
        if sum(m.dummy for m in mine) >= int(spec.get("dummies", 0)):
            raise OrderError(f"your side has {spec.get('dummies', 0)} dummy minefield(s)", "31.191")
        return f"mine {h} dummy"
    if not args[1].isdigit() or not 1 <= int(args[1]) <= 9:
        raise OrderError("a minefield's density is a number 1-9 (the forcing roll must beat it)", "31.14")
    d = int(args[1])
    factors = int(spec.get("factors", 0))
    used = sum(m.density for m in mine if not m.dummy)
    if used + d > factors:
        raise OrderError(f"your side has {factors} mine factors, {factors - used} left", "31.14")
    if len(args) == 3:
        if args[2].lower() != "hidden":
            raise OrderError(f"write: {SYNTAX['mine']}", "31.15")
        if sum(m.hidden for m in mine) >= int(spec.get("hidden", 0)):
            raise OrderError(f"your side may hide {spec.get('hidden', 0)} minefield(s)", "31.15")
        return f"mine {h} {d} hidden"
    return f"mine {h} {d}"


CHECKS: dict[str, Callable[[Ctx, list[str]], str]] = {
    "register": _register, "fo": _fo, "op": _op, "crew": _crew, "apcr": _ammo("apcr"), "heat": _ammo("heat"),
    "command": _afv_note("command"), "elite": _afv_note("elite"), "hide": _hide, "dummy": _dummy, "mine": _mine,
}


def check_sealed(ctx: Ctx, order: O.Secret | O.Unveil) -> None:
    """The generic ``secret``/``unveil`` may not touch a side note: notes are written with
    ``note`` and opened by the rules when the enemy learns them."""
    if order.name.startswith(RESERVED) or order.name == "command":
        if isinstance(order, O.Secret):
            raise OrderError(f"{order.name!r} is a side note's name: write side notes with `note` "
                             f"({'; '.join(SYNTAX.values())})", "5.01")
        raise OrderError(f"{order.name} is a side note: the rules open it when the enemy learns it "
                         "(a registration when fire comes down on it 18.5, a hidden unit on the triggers of "
                         "32.211, a minefield when it is entered 31.15, ...), and every note at the end", "5.01")


# --- the reducer -----------------------------------------------------------------------------

def _apply(st: TobrukState, sc: Scenario, side: str, name: str, text: str) -> list[str]:
    """A side note's meaning in the state; the units whose piece it changed (their markers:
    reducer.py, ``_SELF_MARKING``)."""
    touched: list[str] = []
    n = st.notes.get(side) or Notes()
    n.names = {**n.names, name: text}
    w = text.split()
    kind, args = w[0], w[1:]
    if kind == "register":
        n.registrations = {**n.registrations, args[0]: [*n.registrations.get(args[0], []), args[1]]}
    elif kind == "fo":
        n.fo = {**n.fo, args[0]: args[1]}
    elif kind == "op":
        n.op = {**n.op, args[0]: args[1]}
    elif kind == "crew":
        st.pieces[args[0]].holder = args[1]
        touched.append(args[0])
    elif kind in ("apcr", "heat"):
        p = st.pieces[args[0]]
        p.ammo = {**p.ammo, kind.upper(): int(args[1])}
        touched.append(args[0])
    elif kind == "command":
        n.command = args[0]
    elif kind == "elite":
        n.elite = [*n.elite, args[0]]
    elif kind == "hide":
        for u in args[0].split("+"):
            p = st.pieces[u]
            touched.append(u)
            p.hidden_at = args[1]
            if len(args) > 2 and (data.is_vehicle(sc, u) or data.is_heavy(sc, u)):
                p.facing = spine(args[2])
    elif kind == "dummy":
        st.pieces[args[0]].dummy = True
        touched.append(args[0])
    elif kind == "mine":
        dummy = args[1] == "dummy"
        st.minefields = {**st.minefields, args[0]: Minefield(
            side=side, density=0 if dummy else int(args[1]), dummy=dummy,
            hidden=len(args) > 2 and args[2] == "hidden", note=name)}
    elif kind == "ffe":
        n.ffe = {**n.ffe, args[0]: int(args[1])}
    elif kind == "ammo":
        n.ammo = {**n.ammo, args[0]: int(args[1])}
    st.notes = {**st.notes, side: n}
    return touched


def _recorded(st: TobrukState, ev: CE.SecretRecorded, sc: Scenario) -> list[str]:
    # Only the host's copy carries the payload; a side note's meaning enters the state here.
    if ev.payload and (ev.name.startswith(RESERVED) or ev.name == "command"):
        return _apply(st, sc, ev.side, ev.name, ev.payload)
    return []


def _nothing(st: TobrukState, ev, sc: Scenario) -> None:
    """The roll is kept for the dice (its ``rolls``); the sealed note after it holds the result."""


NOTE_REDUCERS: dict[type, Callable] = {CE.SecretRecorded: _recorded, CE.SecretRevealed: _nothing,
                                       NoteRolled: _nothing}
