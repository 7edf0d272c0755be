"""The Panzer Corps family's words for its own events (set-up, reinforcements,
points, connecting lines), with rule numbers; the shared wording
(pbem.games.words.classic) for the kernel's events."""
from __future__ import annotations

from pbem.core.scenario import Scenario
from pbem.games.panzer_corps import events as E
from pbem.games.words import classic


def describe(ev: E.Event, sc: Scenario, origin: str | None = None) -> str | None:
    own = own_words(ev, sc)
    return own if own is not None else classic(ev, sc, origin)


def own_words(ev: E.Event, sc: Scenario) -> str | None:
    """The family's sentence for one of its own events, or None."""
    lab = sc.board.label
    name = sc.side_name
    match ev:
        case E.UnitBrokeOff():
            return f"{ev.unit} breaks off the {ev.edge} map edge at {ev.hex} (4.2)."
        case E.HiddenDraw():
            per: dict[int, int] = {}
            for t in ev.slots:
                per[t] = per.get(t, 0) + 1
            text = (f"The {len(ev.slots)} {ev.name} reinforcements are shuffled face down onto the turn track: "
                    + ", ".join(f"{n} on turn {t}" for t, n in sorted(per.items()))
                    + "; which is which stays hidden until each enters (3.0(4), 10.0(2)).")
            if ev.units:
                text += " Referee only: " + "; ".join(f"turn {t} {u}" for t, u in zip(ev.slots, ev.units)) + "."
            return text
        case E.UnitSetUp():
            return f"{ev.unit} is set up in {lab(ev.hex)} ({ev.rule})."
        case E.ReinforcementEntered():
            notes = []
            if ev.mp:
                notes.append(f"{ev.mp} MP already spent")
            if ev.pinned:
                notes.append("in an enemy zone of control: it may not move this turn")
            tail = f"; {'; '.join(notes)}" if notes else ""
            return f"Reinforcement {ev.unit} enters at {lab(ev.hex)}{tail} ({ev.rule})."
        case E.ReinforcementDelayed():
            who = ", ".join(ev.units) if ev.units else f"{ev.count} face-down unit(s)"
            how = "cannot enter (no open entry hex) and wait" if ev.forced else "wait for a later turn"
            return f"Reinforcements {how}: {who} ({ev.rule})."
        case E.BombardmentRolled():
            return (f"Naval bombardment: die {', '.join(map(str, ev.rolls))}: {ev.count} Italian units "
                    f"may be disrupted ({ev.rule}).")
        case E.UnitsDisrupted():
            return f"Disrupted by {ev.reason}: {', '.join(ev.units)} ({ev.rule})."
        case E.PointsScored():
            if not ev.points:                  # a fact the scenario gives no points (its mark still counts)
                return f"{ev.reason[:1].upper()}{ev.reason[1:]}: no points for {name(ev.side)} ({ev.rule})."
            return f"{name(ev.side)} {ev.points:+d} point(s): {ev.reason} ({ev.rule})."
        case E.HexControlled():
            marker = f"; marker: {ev.marker}" if ev.marker else ""
            return f"{name(ev.side)} now controls {lab(ev.hex)}{marker} ({ev.rule})."
        case E.ConnectingLine():
            if ev.traced:
                via = f" via {' '.join(ev.path[1:-1])}" if len(ev.path) > 2 else ""
                note = f"; {ev.note}" if ev.note else ""
                return f"Connecting line of {ev.subject} ({ev.start}): traced to {ev.to}{via}{note} ({ev.rule})."
            note = f": {ev.note}" if ev.note else ""
            return f"Connecting line of {ev.subject} ({ev.start}): CUT{note} ({ev.rule})."
    return None
