"""What each side sees of Advanced Tobruk beyond the units: the map's marks
(objective hexes, the running score, set-up hexes), the set-up choices, and
the redaction of the other side's standing opportunity-fire orders.

Standing orders are private (6.6 by email).  At the table a player decides
on opportunity fire when the enemy moves and the mover learns only whether
shots come; a standing order is that decision written in advance, so the
opponent sees the shots (and that no shot came), never the order itself:
not the ``standing`` order lines, not the StandingOrderSet events, not
whether a unit fired or held its fire by standing order or by its owner's
answer, and not which of its units a paused move waits for.
Views only: no event and no roll changes.

Limited intelligence (32, the scenario's ``limited_intelligence``): the other
side's hidden units are not shown at all; a unit showing its FOW side shows
its face (32.11), no type, name or identity-revealing marker; units under the
top of a stack are shown as such unless 32.132 lets the enemy look (within
spotting range and moved or fired); personnel in FULL cover in an
emplacement likewise (32.131).  Side notes and secret rolls of the other side
read "note (sealed)" / "roll (sealed)"; minefields show as the enemy may see
them."""
from __future__ import annotations

import msgspec

from pbem.core.events import Event, OrderGiven
from pbem.core.scenario import Scenario
from pbem.core.state import UnitState
from pbem.games.advanced_tobruk import data, events as E, fire_events as F
from pbem.games.advanced_tobruk.fog import hidden
from pbem.games.advanced_tobruk.mines import mines
from pbem.games.advanced_tobruk.board import spotting
from pbem.games.advanced_tobruk.turn import terms
from pbem.games.advanced_tobruk.fire.casualty import EMPLACEMENTS_GOOD
from pbem.games.advanced_tobruk.board.facing import SPINES
from pbem.games.advanced_tobruk.turn.sequence import phase_name
from pbem.games.advanced_tobruk.turn.standing import order_for
from pbem.games.advanced_tobruk.state import StandingOrders, TobrukState
from pbem.games.advanced_tobruk.notes import notes
from pbem.games.advanced_tobruk.board.cover_moves import shown

OPPORTUNITY = ("standing order", "answer")
PRIVATE = "standing (its standing orders are private, 6.6)"


def map_marks(st: TobrukState, sc: Scenario, viewer: str) -> dict:
    """The card's objective hexes with their VP and who would score them now (2.45: the side alone
    there with unbroken units, else the card's holder), the victory points so far, and during the
    set-up the viewer's own set-up hexes (the card fixes them; the set-up only faces, 2.48)."""
    objs = []
    for o in data.vic(sc).hexes:
        h = o.hex
        side = terms.holder(st, sc, h, o.held_by)
        objs.append({"hex": h, "vp": o.vp, "side": side,
                     "label": f"{sc.board.label(h)}: {o.vp} VP to its holder at the end (2.45)"})
    vp, _ = terms.count(st, sc)
    score = "victory points " + ", ".join(f"{sc.side_name(s)} {vp[s]}" for s in sc.side_ids())
    if st.result is None:
        score += " (so far; the hexes count at the end, 2.45)"
    out: dict = {"objectives": objs, "score": score}
    if phase_name(st, sc) == "setup" and st.result is None:
        sides = sc.side_ids() if viewer not in sc.side_ids() else [viewer]
        out["areas"] = [{"label": f"{sc.side_name(s)} set-up hexes (the card's, 2.48)", "side": s,
                         "hexes": sorted({u.hex for u in st.units.values() if u.side == s and u.hex})}
                        for s in sides]
    areas = mines.marks(st, sc, viewer).get("areas", [])
    if areas:
        out["areas"] = out.get("areas", []) + areas
    from pbem.games.advanced_tobruk.map_face import hex_markers  # here: the map's code loads only when a map is drawn
    markers = hex_markers(st, sc, viewer)     # CFF, FFE, barrage limits, smoke, BOT, continued fire: each where it stands
    if markers:
        out["markers"] = markers
    return out


# --- limited intelligence (32) -------------------------------------------------------------

SECRET_MARKS = ("hidden", "dummy", "APCR", "HEAT", "apcr", "heat", "ammo", "command", "elite")
FOW_MARKS = ("turret", "with ")          # a FOW counter shows no turret nor the weapon it carries


def _masked(row: dict, face: str, label: str, keep: list[str]) -> dict:
    """The row with its identity replaced: ``face`` as the type (the map's symbol), ``label`` as the name."""
    return {**row, "name": label, "type": face, "nationality": "", "ma": 0, "status": keep}


def unit_row(st: TobrukState, sc: Scenario, unit: UnitState, row: dict, viewer: str) -> dict | None:
    """``unit`` (of the other side) as ``viewer`` may see it (32.1, 32.2): nothing without limited
    intelligence; hidden units not at all; FOW faces; the top of a stack only (32.132); FULL cover
    in an emplacement (32.131)."""
    uid = unit.id
    p = st.pieces[uid]
    if p.holder and _sealed(st, unit.side, "crew", uid):            # 9.12: the crew assignment is a sealed note
        row = {**row, "status": [m for m in row.get("status", []) if not m.startswith("with ")]}
    if not spotting.active(sc):
        return row
    if hidden.is_hidden(st, uid) or unit.hex is None and not unit.eliminated and not unit.gone \
            and uid in data.gd(sc).hidden.get(unit.side, []):
        return None                         # hidden, or still to be set up hidden (32.22): not there for the enemy
    status = [m for m in row.get("status", []) if not m.startswith(SECRET_MARKS)]
    if unit.gone == "dummy":
        return _masked(row, "dummy", "dummy", ["removed from play: a dummy (32.241)"])
    if unit.hex and p.full and data.is_personnel(sc, uid) and any(sc.board.has(unit.hex, f) for f in EMPLACEMENTS_GOOD):
        return _masked(row, "unit", "unit in FULL cover in an emplacement (32.131)", [])
    if unit.hex and _under_stack(st, sc, uid, viewer):
        return _masked(row, "unit", "unit under the top of the stack (32.132)", [])
    if spotting.fow_up(st, sc, uid):
        face = p.face or "unit"
        return _masked(row, face, f"{face} (FOW side, 32.11)", [m for m in status if not m.startswith(FOW_MARKS)])
    return {**row, "status": status}


def _sealed(st: TobrukState, side: str, kind: str, *words: str) -> bool:
    """``side`` has a note of ``kind`` on ``words`` still sealed."""
    name = notes.note_for(st, side, kind, *words)
    return bool(name) and not notes.is_open(st, side, name)


def _under_stack(st: TobrukState, sc: Scenario, uid: str, viewer: str) -> bool:
    """32.132: ``uid`` is under another unit of its side in its hex (the top: the first in the
    order of battle, a FULL-cover unit never) and the viewer may not look at it: not within a
    viewer unit's spotting range, or neither moved nor fired."""
    u = st.units[uid]
    if u.eliminated:
        return False            # the enemy saw it die; a wreck is public (13.7)
    stack = [o.id for o in st.units.values() if o.hex == u.hex and o.side == u.side and not o.eliminated
             and not (st.pieces[o.id].full and data.is_personnel(sc, o.id))]
    if not stack or stack[0] == uid:
        return False
    p = st.pieces[uid]
    if p.moved or p.moving or p.fired:
        return not any(o.side == viewer and spotting.can_spot(st, sc, o.id, uid) for o in st.units.values())
    return True


# The set-up step's choices (2.48), each that of an order form (steps.py FORMS): each unit with a
# facing or a turret and what it may turn to, the standing orders now, and ``pass`` to finish.
# The hexes are the card's.  They run while the set-up step waits for ``side`` (core/forms.py).

def facing_choices(st: TobrukState, sc: Scenario, side: str) -> list[str]:
    """6.52, 12.2: ``side``'s units with a facing (and a turret), and what they face now."""
    spines = " ".join(SPINES)
    out = []
    for uid, u in sorted(st.units.items()):
        p = st.pieces[uid]
        if u.side != side or not u.hex or u.eliminated or p.facing < 0:
            continue
        line = f"{uid} in {sc.board.label(u.hex)}, facing {SPINES[p.facing]}: pivot {uid} SPINE"
        if data.utype(sc, uid).get("turret"):
            line += f"; turret {uid} SPINE (now {SPINES[p.turret] if p.turret >= 0 else 'with the hull'})"
        out.append(f"{line}  (SPINE: {spines}; 6.52, 12.2)")
    return out


def standing_choices(st: TobrukState, sc: Scenario, side: str) -> list[str]:
    """6.6: the standing orders ``side`` may give, its orders now, and what each costs in mails."""
    so = st.orders.get(side, StandingOrders())
    own = ", ".join(f"{uid} {_order_words(order_for(st, side, uid))}" for uid in sorted(so.units)) or "none"
    return [f"standing [UNIT] ask | hold | any [range N] | afv [range N] | duel | noduel{_drop_words(sc)}  (6.6; "
            f"side default now: {_order_words(so.default)}; units of their own: {own})", MAIL_COSTS]


def pass_choices(st: TobrukState, sc: Scenario, side: str) -> list[str]:
    """2.48, 5.01: ``pass`` ends the side's set-up, once what the rules require is written."""
    if notes.in_use(sc):
        return ["pass  when the facings, standing orders and the side notes marked 'required' below are written "
                "(the set-up hexes are the card's, 2.48; 5.01)"]
    return ["pass  when the facings and standing orders are set (the set-up hexes are the card's, 2.48)"]


MAIL_COSTS = ("what each standing order costs in mails: ask (the default) - an enemy move that comes into the "
              "sight of a unit on ask pauses once, at the first hex where one may fire, and waits for one "
              "answer mail from you for its whole path (fire UNIT at HEX lines, or pass); hold, any, afv - "
              "no mail: the rules fire or hold for you at every hex (6.6)")


def _drop_words(sc) -> str:
    """15.22: the drop order, on a card where personnel may go under cover (cover_moves.py)."""
    return " | drop | nodrop" if shown(sc) else ""


def _order_words(o) -> str:
    words = o.mode or "ask"
    if o.range:
        words += f" range {o.range}"
    return words + (" duel" if o.duel else "") + (" drop" if o.drop else "")


def redact(ev: Event, viewer: str) -> Event:
    """The other side's standing orders, side notes and secret rolls hidden from ``viewer`` (a side)."""
    word = ev.text.lower().split(None, 1)[:1] if isinstance(ev, OrderGiven) else []
    if word == ["standing"] and ev.side != viewer:
        return OrderGiven(side=ev.side, text=PRIVATE, by=ev.by)
    if word == ["fire"] and ev.side != viewer:
        # an answer to a paused move plans its shots, some for hexes ahead and perhaps by a hidden unit
        # (6.6, 32.2): the other side learns of each shot by its fire events, as it comes
        return OrderGiven(side=ev.side, text="fire (each shot shows as it comes)", by=ev.by)
    if word in (["note"], ["roll"]) and ev.side != viewer:
        return OrderGiven(side=ev.side, text=f"{word[0]} (sealed)", by=ev.by)
    if isinstance(ev, E.StandingOrderSet) and ev.side != viewer:
        return E.StandingOrderSet(side=ev.side, unit="", mode="")
    if isinstance(ev, E.OpportunityPassed) and ev.side != viewer:
        return E.OpportunityPassed(side=ev.side, firers=ev.firers, target=ev.target, hex=ev.hex, by="")
    if isinstance(ev, E.OpportunityPlanned) and ev.side != viewer:  # the shots come when they come
        return msgspec.structs.replace(ev, firers=[], hex="")
    if isinstance(ev, E.MovePaused) and ev.side != viewer:          # which units are left to 'ask'
        return msgspec.structs.replace(ev, firers=[])
    if isinstance(ev, (F.GunFired, F.CasualtyAttack)) and ev.by in OPPORTUNITY:
        # the event does not name the firer's side: every side reads "opportunity fire" (the owner
        # knows its own orders; the referee's report keeps the distinction)
        return msgspec.structs.replace(ev, by="opportunity")
    return ev


def _pregame_order(st: TobrukState, sc: Scenario, it: dict, viewer: str) -> str:
    """5.01: the set-up and registration steps of a scenario with side notes, as ``viewer`` reads
    them: the acting side its notes still due (or registrations left), the other side the steps."""
    side = it.get("side", "")
    if it["kind"] == "setup":
        if viewer != side:
            return ("its secret rolls and side notes (sealed), facings (pivot|turret UNIT SPINE), standing orders, "
                    "then pass")
        due = notes.missing(st, sc, side)
        todo = f"still due: {'; '.join(due)}" if due else "every required note is written"
        return (f"roll, note KIND ... (your sealed side notes; HELP lists them all), pivot|turret UNIT SPINE, "
                f"standing ..., then pass ({todo})")
    if viewer != side:
        return "its battery and mortar registrations (sealed notes, after all set-up), then pass"
    n = notes.notes_of(st, side)
    left = []
    for x, count in data.gd(sc).registrations.items():
        if notes.owner(sc, x) == side and notes.reg_kind(sc, x) != "weapon":
            k = count - len(n.registrations.get(x, []))
            if k > 0:
                left.append(f"note register {x} HEX ({k} left)")
    return ("; ".join(left) or "no registration left to record") + (
        " - sealed, after all set-up: +20 on the accuracy roll when fire comes down there (18.51, 18.551, 19.6); "
        "then pass")


def pause_words(pd) -> str:
    """A paused move as the awaiting line tells it: the mover, where it stands, the path ahead (6.6, 6.64)."""
    ahead = [h for h in (s[5:] if s.startswith("back:") else s for s in pd.remaining) if len(h) == 4 and h.isdigit()]
    return (f"{'+'.join(pd.units)} in {pd.hex}, {pd.spent_here} MP spent there; the path ahead: "
            f"{' '.join(ahead) or 'none, the move ends there'}")


def awaiting_view(st: TobrukState, sc: Scenario, items: list[dict], viewer: str) -> list[dict]:
    """A paused move as the mover reads it: the answering side, not which of its units may fire;
    the set-up and registration steps with the side notes still to write (5.01)."""
    out = []
    for it in items:
        if it.get("kind") in ("setup", "register") and notes.in_use(sc):
            it = {**it, "order": _pregame_order(st, sc, it, viewer)}
        if it.get("kind") == "opportunity-fire" and it.get("side") != viewer:
            pd = st.pending
            it = {k: v for k, v in it.items() if k != "units"}
            it["order"] = ("fire UNIT[+UNIT...] [at HEX] (one line a shot) | pass  - the mover: "
                           + (pause_words(pd) if pd else "?"))
        out.append(it)
    return out
