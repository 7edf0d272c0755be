"""Words for the perimeter's events (perimeter_events.py), with their rule numbers."""
from __future__ import annotations

from pbem.core.scenario import Scenario
from pbem.games.advanced_tobruk.perimeter_events import (ContinuedFireCheck, ContinuedFireCleared, ContinuedFirePlaced,
                                                         CoverChanged, HullDefilade, Immobilized, ObstacleCleared)

POSITIONS = {"rolled": "all round", "hill": "against fire from below", "contour": "against fire from above across "
             "the deir's contour", "crest": "against fire from below across the hillock's contour",
             "rim": "across the hexsides its wadi position looks over", "pit": "all round, in the weapon pit"}


def _steps(losses: list[list[str]]) -> str:
    return "; ".join(f"{u} {'eliminated' if fate == 'eliminated' else f'{n} step(s) taken'}" for u, n, fate in losses)


def describe(ev, sc: Scenario, origin: str | None = None) -> str | None:
    lab = sc.board.label
    match ev:
        case Immobilized():
            res = "M-KILL: immobilized, its move ends" if ev.mkill else "passes"
            return (f"{ev.unit} enters the {ev.cause} in {lab(ev.hex)}: Immobilization roll {ev.rolls[0]}, "
                    f"immobilized on {ev.number} or less: {res} ({ev.rule}).")
        case ObstacleCleared() if ev.feature == "bunker":
            out = f"; {', '.join(ev.uncovered)} now in STATIONARY cover" if ev.uncovered else ""
            gone = f"; {', '.join(u for u, _, _ in ev.effects)} destroyed with it (31.55)" if ev.effects else ""
            return f"The bunker in {lab(ev.hex)} is destroyed by {ev.why} (31.54){out}{gone}."
        case ObstacleCleared():
            return f"The {ev.feature} in {lab(ev.hex)} is removed by {ev.why} ({ev.rule})."
        case CoverChanged():
            who = "+".join(ev.units)
            if ev.why == "drop":
                return (f"{who} drop{'s' if len(ev.units) == 1 else ''} into FULL cover in {lab(ev.hex)} as the fire "
                        f"comes in (standing order; 15.22, 31.253).")
            where = "under cover (FULL)" if ev.cover == "full" else "out on top"
            return f"{who} {'goes' if len(ev.units) == 1 else 'go'} {where} in {lab(ev.hex)} ({ev.rule})."
        case HullDefilade():
            what = POSITIONS.get(ev.position, ev.position)
            if ev.rolls:
                res = "hull defilade" if ev.gained else "no hull defilade"
                return (f"{ev.unit} in {lab(ev.hex)} ({ev.terrain}) rolls for hull defilade: {ev.rolls[0]}, needs "
                        f"{ev.number} or less: {res}{f' ({what})' if ev.gained else ''} ({ev.rule}).")
            return f"{ev.unit} is in hull defilade in {lab(ev.hex)} ({ev.terrain}: {what}; {ev.rule})."
        case ContinuedFirePlaced():
            return f"Continued Fire marker in {lab(ev.hex)}: {ev.factors} factors came in ({ev.source}; 15.931)."
        case ContinuedFireCheck():
            return (f"{ev.unit} failed its Continued Fire check in {lab(ev.hex)} by {ev.failed_by}: "
                    f"{_steps(ev.losses) or 'no steps left to lose'} (15.932).")
        case ContinuedFireCleared():
            return f"Continued Fire markers removed from {', '.join(lab(h) for h in ev.hexes)} (end of turn; 15.93)."
    return None


def report_lines(st, sc: Scenario) -> list[str]:
    """The report's lines on the perimeter's markers, public to both sides: Continued Fire markers
    (15.931) and the field works the game removed (31.54, 31.85)."""
    lab = sc.board.label
    out = []
    if st.cfire:
        out.append(f"Continued Fire markers (15.931; a personnel unit entering checks morale, 15.932): "
                   f"{', '.join(lab(h) for h in st.cfire)}")
    for item in st.cleared:
        h, feature = item.split(":")
        out.append(f"{'destroyed' if feature == 'bunker' else 'removed'}: the {feature} in {lab(h)} "
                   f"({'31.54' if feature == 'bunker' else '31.85'})")
    return out
