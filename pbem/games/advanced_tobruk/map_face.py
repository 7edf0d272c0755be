"""Advanced Tobruk on the map: what each counter carries and shows (``counter_face``), the
markers standing in hexes (``hex_markers``: fire missions, barrage limits, smoke, bursts on
target, continued fire) and a line from firer to target for each shot (``shots``).
Views only: no event and no roll changes.

A counter's face is read from its row as the viewer sees it (views.unit_row applied): the
markers the text report lists (reducer.markers) become the marks drawn, so the map shows
nothing the SITUATION table does not; a FOW face (32.11) carries no values.  The values are
those the counters print: personnel gunfire|range|morale (10.01; the reduced side's for a
half-squad, a reduced crew or a wounded leader, 9.01, 15.82), a light or medium weapon's
weight and kind ("L|MG", 8.11; "H|AT" a heavy weapon) and a vehicle's main armament (13.91,
its AFV card holds the rest); no strength or movement pair of the core."""
from __future__ import annotations

from pbem.core.scenario import Scenario
from pbem.games.advanced_tobruk import data
from pbem.games.advanced_tobruk.board.facing import SPINES
from pbem.games.advanced_tobruk.state import TobrukState
from pbem.games.advanced_tobruk.artillery import arty_views
from pbem.games.advanced_tobruk import arty_events as A, fire_events as F

# status word (reducer.markers) -> (key, chip text, colour, legend label)
STATUS_MARKS: dict[str, tuple[str, str, str, str]] = {
    "broken": ("broken", "Br", "#c62828", "broken (11.1)"),
    "casualties": ("casualties", "C", "#7b1fa2", "casualties marker (15.82)"),
    "half-squad": ("half-squad", "\u00bd", "#6d4c41", "half-squad: the reduced side (15.82)"),
    "half-squad, casualties": ("half-squad-casualties", "\u00bdC", "#4a148c", "half-squad with a casualties marker (15.82)"),
    "reduced": ("reduced", "R", "#6d4c41", "reduced side (9.01, 15.82)"),
    "wounded": ("wounded", "Wd", "#6d4c41", "wounded leader (15.82)"),
    "pinned": ("pinned", "Pn", "#ef6c00", "pinned (11.41)"),
    "suppressed": ("suppressed", "Sp", "#b8860b", "suppressed (13.11)"),
    "winded": ("winded", "Wn", "#00838f", "winded: ran last turn, may not run (6.413)"),
    "F": ("fired", "F", "#212121", "fired ('F' marker, 13.102)"),
    "bailed out": ("bailed", "BO", "#37474f", "crew bailed out (13.8)"),
    "M-KILL": ("m-kill", "M", "#455a64", "M-KILL: immobilised (13.612)"),
    "surrendered": ("surrendered", "Su", "#000000", "surrendered (11.2)"),
    "melee": ("melee", "Ml", "#ad1457", "in melee (22)"),
    "FULL cover": ("full", "FC", "#2e7d32", "in FULL cover (15.71)"),
    "hull defilade": ("hd", "HD", "#558b2f", "hull defilade (33.8)"),
    "courage": ("courage", "\u2605", "#f9a825", "courage: immune to morale checks (11.242)"),
    "continued movement": ("continued", "CM", "#1565c0", "continued movement (6.54)"),
}
BOT_MARK = {"key": "bot", "text": "BOT", "colour": "#0d47a1",
            "label": "burst on target: hit before, the firer doubles its rate of fire (13.46)"}
RANK = ("surrendered", "broken", "pinned", "suppressed", "bailed", "m-kill", "f-kill", "casualties",
        "half-squad-casualties", "half-squad", "reduced", "wounded", "melee", "bot", "fired", "winded", "full", "hd",
        "courage", "continued")
REDUCED = ("half-squad", "half-squad, casualties", "reduced", "wounded")


def _bearing(spine: str) -> float | None:
    """A spine's bearing on the map: spine k (0 NNE .. 5 NNW) is 30 + 60 k degrees from up (6.52)."""
    return 30.0 + 60.0 * SPINES.index(spine) if spine in SPINES else None


def values(sc: Scenario, row: dict) -> str:
    """What the counter prints (the module's docstring); "" for a face or a type the card lacks."""
    t = data.types(sc).get(str(row.get("type", "")))
    if not t:
        return ""
    c = t.get("cls", "")
    if c in data.PERSONNEL:
        v = t.get("reduced", t) if any(s in REDUCED for s in row.get("status", [])) else t
        return "|".join(str(v.get(k, t.get(k, "?"))) for k in ("gunfire", "range", "morale"))
    if c == "weapon":
        return "|".join(str(x) for x in (t.get("weight", ""), t.get("kind", "")) if x)
    if c in data.VEHICLES:
        guns = t.get("guns") or []
        return str(guns[0].get("name", "")) if guns else ""
    return ""


def counter_face(st: TobrukState, sc: Scenario, row: dict, viewer: str) -> dict:
    """The face of ``row`` (as ``viewer`` sees it): values, front and turned turret (6.52, 12.2),
    the status markers, the BOT marker on an acquired target (13.461: public, on the map) and a
    wreck left in its hex (13.7)."""
    status = [str(s) for s in row.get("status") or []]
    face: dict = {"values": values(sc, row)}
    front = turret = ""
    marks = []
    for s in status:
        if s.startswith("facing "):
            front = s[7:]
        elif s.startswith("turret "):
            turret = s[7:]
        elif s in STATUS_MARKS:
            key, text, colour, label = STATUS_MARKS[s]
            marks.append({"key": key, "text": text, "colour": colour, "label": label})
        elif s.startswith("F-KILL"):
            marks.append({"key": "f-kill", "text": "FK", "colour": "#455a64",
                          "label": "F-KILL: a weapon or the turret knocked out (13.613)"})
    if "eliminated" in status and ("wreck" in status or "burning wreck" in status):
        burning = "burning wreck" in status
        face["wreck"] = "burning wreck (13.7)" if burning else "wreck (13.7)"
        face["values"] = "burning" if burning else "wreck"
        if burning:
            face["burning"] = True
        return face
    uid = str(row.get("id", ""))
    if row.get("hex") and any(p.bot == uid for p in st.pieces.values()):
        marks.append(dict(BOT_MARK))
    b = _bearing(front)
    if b is not None:
        face["front"], face["front_label"] = b, f"{front} (6.52)"
    t = _bearing(turret)
    if t is not None and turret != front:
        face["turret"], face["turret_label"] = t, f"{turret} (12.2)"
    if marks:                                           # the weightiest first: a full strip keeps them
        face["marks"] = sorted(marks, key=lambda m: RANK.index(m["key"]) if m["key"] in RANK else len(RANK))
    return face


ARTY = {"cff": ("CFF", "#c62828", "5 3", False, "call for fire marker (18.21)"),
        "ffe": ("FFE", "#b71c1c", "", True, "fire for effect marker (18.21)"),
        "barrage": ("BAR", "#6a1b9a", "2 2", False, "barrage limit marker (18.71)")}


def hex_markers(st: TobrukState, sc: Scenario, viewer: str) -> list[dict]:
    """The markers on the map that are no unit, all public: CFF, FFE and barrage limits (18.21,
    18.71), smoke with its side '1' or '2' (20.36), BOT markers mortars and guns leave in a hex
    (13.461, 19.71) and the Continued Fire markers of this turn (15.931)."""
    out = []
    for key, hexes in sorted(arty_views.marks(st, sc, viewer).items()):
        if key == "smoke":
            continue
        text, colour, dash, fill, label = ARTY[key]
        out += [{"hex": h, "key": key, "text": text, "colour": colour, "dash": dash or "1 0", "fill": fill,
                 "label": label} for h in hexes]
    for h, side in sorted(st.smoke.items()):
        out.append({"hex": h, "key": f"smoke{side}", "text": f"SM{side}", "colour": "#616161", "fill": True,
                    "dash": "3 2", "label": f"smoke, its '{side}' side (20.36)"})
    for h in sorted({p.bot for p in st.pieces.values() if p.bot and p.bot not in st.units}):
        if sc.board.grid.contains(h):
            out.append({"hex": h, "key": "bot-hex", "text": "BOT", "colour": "#0d47a1", "dash": "2 2",
                        "label": "burst on target in a hex (13.461, 19.71)"})
    for h in sorted(set(st.cfire)):
        out.append({"hex": h, "key": "cfire", "text": "CF", "colour": "#00695c", "dash": "4 2",
                    "label": "continued fire marker (15.931)"})
    return out


def shots(st: TobrukState, sc: Scenario, events: list, viewer: str) -> list[dict]:
    """A line for each shot: gunfire at a unit (13), the firegroup's other firers, casualty
    attacks by named firers (15), and indirect fire from its spotter to where it came down (18)."""
    out = []
    for ev in events:
        if isinstance(ev, F.GunFired):
            hits = sum(1 for r in ev.rounds if r.hit)
            label = (f"{ev.firer} fires {ev.weapon} {ev.ammo} at {ev.target} in {ev.hex}, range {ev.range}: "
                     f"{hits} hit(s) of {len(ev.rounds)} (13)")
            for firer in [ev.firer] + list(ev.group):
                out.append({"firer": firer, "target": ev.target, "hex": ev.hex, "kind": "direct", "label": label})
        elif isinstance(ev, F.CasualtyAttack) and ev.firers:
            label = f"{'+'.join(ev.firers)}: {ev.source} on {ev.hex}, {ev.factors} factors, C{ev.result} (15)"
            for firer in ev.firers:
                out.append({"firer": firer, "target": "", "hex": ev.hex, "kind": "direct", "label": label})
        elif isinstance(ev, A.IndirectFired) and ev.spotter and (ev.final or ev.aimed):
            h = ev.final or ev.aimed
            out.append({"firer": ev.spotter, "target": "", "hex": h, "kind": "indirect",
                        "label": f"{ev.source}: {ev.what} called by {ev.spotter}, down in {h} (18)"})
    return out
