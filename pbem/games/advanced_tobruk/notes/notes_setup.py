"""The set-up of side notes (5.01): what a side may still write in its set-up or registration
step, and the notes a missed set-up deadline writes."""
from __future__ import annotations

from pbem.core import orders as O
from pbem.core.scenario import Scenario
from pbem.games.advanced_tobruk import data
from pbem.games.advanced_tobruk.notes.notes import (HIDE_TERRAIN, PREGAME, RULES, _alt_units, _area, _crewless, _gd,
                                                    _unplaced_hidden, batteries, missing, notes_of, owner, reg_kind,
                                                    rolled)
from pbem.games.advanced_tobruk.state import TobrukState
from pbem.games.advanced_tobruk.notes.notes_words import dummies_left


# --- set-up choices and deadline defaults ------------------------------------------------------

def choices(st: TobrukState, sc: Scenario, side: str) -> list[str]:
    """During ``side``'s set-up or registration step: the notes it still owes or may write."""
    name = sc.sequence[st.phase].name if st.phase >= 0 else ""
    if st.result is not None or name not in PREGAME or st.step.to_act != side or side in st.step.passed:
        return []
    out = [f"required: {m}" for m in missing(st, sc, side)] if name == "setup" else []
    n = notes_of(st, side)
    for x, count in _gd(sc).registrations.items():
        if owner(sc, x) != side:
            continue
        kind = reg_kind(sc, x)
        if (kind == "weapon") == (name == "setup"):
            left = count - len(n.registrations.get(x, []))
            if left > 0:
                out.append(f"may: note register {x} HEX  ({left} left; {RULES['register']})")
    if name == "setup":
        for k, spec_key in (("elite", "elite"),):
            left = getattr(_gd(sc), spec_key).get(side, 0) - len(n.elite)
            if left > 0:
                out.append(f"may: note elite AFV  ({left} left, 24.07)")
        for k in ("APCR", "HEAT"):
            if k in n.ammo:
                given = sum(p.ammo.get(k, 0) for uid, p in st.pieces.items() if st.units[uid].side == side)
                if n.ammo[k] > given:
                    out.append(f"may: note {k.lower()} UNIT ROUNDS  ({n.ammo[k] - given} of {n.ammo[k]} left; "
                               f"{', '.join(_alt_units(sc, side, k))})")
        spec = _gd(sc).mines.get(side)
        if spec:
            mine = [m for m in st.minefields.values() if m.side == side]
            left = int(spec.get("factors", 0)) - sum(m.density for m in mine)
            out.append(f"may: note mine HEX DENSITY [hidden] | note mine HEX dummy  ({left} mine factors left, "
                       f"{int(spec.get('hidden', 0)) - sum(m.hidden for m in mine)} hidden, "
                       f"{dummies_left(spec, mine)})")
        d = _gd(sc).dummies.get(side)
        if d:
            out.append(f"may: note dummy UNIT  (one of {', '.join(d.get('counters', []))}; {d.get('count', 0)} in all)")
        area = _area(sc, side)
        if area and (_unplaced_hidden(st, sc, side) or spec):
            out.append(f"set-up area: {' '.join(area)}")
    return out


def _note(*args: str) -> O.GameVerb:
    return O.GameVerb(word="note", args=list(args))


def default_notes(st: TobrukState, sc: Scenario, side: str) -> list[O.GameVerb]:
    """A missed set-up deadline, as orders: the secret rolls, then the first legal choice of each
    required note (documented in ``defaults_help``), so the game goes on."""
    out: list[O.GameVerb] = []
    if not rolled(st, sc, side):
        out.append(O.GameVerb(word="roll"))
    n = notes_of(st, side)
    fos = [u.id for u in sc.units if u.side == side and data.utype(sc, u.id).get("fo")
           and u.id not in n.fo.values()]
    for b in batteries(sc, side):
        if b not in n.fo and fos and not _gd(sc).artillery[b].get("fo_hex"):
            out.append(_note("fo", b, fos.pop(0)))
    crews = [u.id for u in sc.units if u.side == side and data.cls(sc, u.id) == "crew"
             and not any(p.holder == u.id for p in st.pieces.values())]
    spec = _gd(sc).dummies.get(side, {})
    dummies = int(spec.get("count", 0)) - sum(1 for x, p in st.pieces.items() if p.dummy and st.units[x].side == side)
    def at(u: str) -> str:
        return st.units[u].hex or st.pieces[u].hidden_at or ""
    together: dict[str, str] = {}                   # a piece not placed yet -> where its partner is
    for w in _crewless(st, sc, side):
        wh = at(w)
        c = next((c for c in crews if at(c) in (wh, "")), None) or (crews[0] if crews and not wh else None)
        if c:                                       # 9.12: either not placed yet, or both in one hex
            crews.remove(c)
            out.append(_note("crew", w, c))
            if not wh or not at(c):
                together[w if not wh else c] = wh or at(c)
        elif dummies > 0 and w in spec.get("counters", []):
            dummies -= 1                            # 32.24: a weapon no crew is left for may be the dummy
            out.append(_note("dummy", w))
    area = _area(sc, side) or sorted(sc.board.terrain)
    spots = [h for h in area if data.terrain(sc, h) in HIDE_TERRAIN or sc.board.has(h, "pit")]
    for u in _unplaced_hidden(st, sc, side):
        if spots:
            faced = data.is_vehicle(sc, u) or data.is_heavy(sc, u)
            out.append(_note("hide", u, together.get(u) or spots[0], *(["NNE"] if faced else [])))
    if side in _gd(sc).command_control and not n.command:
        afv = next((u.id for u in sc.units if u.side == side and data.is_afv(sc, u.id)), None)
        if afv:
            out.append(_note("command", afv))
    return out
