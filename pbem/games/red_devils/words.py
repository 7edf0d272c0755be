"""Red Devils' words for its events in the reports, with rule numbers; the
events it does not word here take the Paratroop games' shared wording
(pbem.games.words.classic)."""
from __future__ import annotations

from pbem.core.scenario import Scenario
from pbem.games.red_devils import events as E
from pbem.games.red_devils.airborne import POLISH_SECRET
from pbem.games.words import classic


def describe(ev: E.Event, sc: Scenario, origin: str | None = None) -> str | None:
    own = own_words(ev, sc)
    return own if own is not None else classic(ev, sc, origin)


def own_words(ev: E.Event, sc: Scenario) -> str | None:
    """This game's sentence for ``ev`` with its rule numbers, or None for the shared wording."""
    lab = sc.board.label
    name = sc.side_name
    match ev:
        case E.DoctrineSet():
            per = "; ".join(f"{k} {v}" for k, v in sorted(ev.units.items()))
            more = []
            if per:
                more.append(f"exceptions: {per}")
            if ev.retreat:
                more.append(f"Dd answered: {ev.retreat}")
            if ev.bridge:
                more.append(f"railway bridge: {ev.bridge}")
            tail = f" ({'; '.join(more)})" if more else ""
            if ev.cleared:
                return (f"{name(ev.side)} opportunity-fire doctrine: {ev.cleared}'s exception cleared, it follows "
                        f"the side's doctrine again: {ev.default}{tail} (5.0).")
            return f"{name(ev.side)} opportunity-fire doctrine: {ev.default}{tail} (5.0)."
        case E.OpportunityFire():
            how = "by standing doctrine" if ev.by == "doctrine" else "on the player's answer"
            sh = f"; {'; '.join(ev.shifts)}" if ev.shifts else ""
            return (f"Opportunity fire {how}: {ev.firer} ({ev.fire_strength}) at {ev.target} ({ev.target_strength}) "
                    f"in {lab(ev.hex)}, differential {ev.differential:+d}{sh}; column \"{ev.column}\", "
                    f"die {', '.join(map(str, ev.rolls))}: {ev.result} (5.0).")
        case E.OpportunityFirePassed():
            verb = "holds" if len(ev.firers) == 1 else "hold"
            return f"{', '.join(ev.firers)} {verb} fire at {ev.target} in {lab(ev.hex)} (5.0)."
        case E.MovePaused():
            if ev.question == "bridge":
                return (f"{ev.unit} enters {lab(ev.hex)}: {name(ev.side)} may try to blow the Oosterbeek railway "
                        f"bridge (11.0); the move waits.")
            return (f"{ev.unit} in {lab(ev.hex)} is in range of {', '.join(ev.firers)}: the move waits for "
                    f"{name(ev.side)}'s fire-or-pass answer ({ev.rule}).")
        case E.UnitDisrupted():
            return f"{ev.unit} is disrupted: {ev.reason} ({ev.rule})."
        case E.UnitPlaced():
            return f"{ev.unit} will air-land around drop zone {ev.hex} (1.2)."
        case E.UnitLanded():
            return f"{ev.unit} is placed for air landing in {lab(ev.hex)} (9.0)."
        case E.AirLandingResolved():
            if not ev.rolls:
                return f"{ev.unit}: no Air Landing Table roll, eliminated by opportunity fire (9.3)."
            mods = f" {'; '.join(ev.modifiers)}," if ev.modifiers else ""
            what = {"E": "eliminated", "D": "disrupted", "-": "lands safely"}.get(ev.result, ev.result)
            return f"Air landing of {ev.unit} in {lab(ev.hex)}: die {ev.rolls[0]},{mods} total {ev.total}: {what} (9.9)."
        case E.BridgeDemolition():
            if not ev.rolls:
                return f"The German player does not try to blow the railway bridge {ev.hexside} (11.0)."
            st = "DESTROYED: now an unbridged Neder Rijn hexside" if ev.destroyed else "still intact"
            return f"Demolition of the Oosterbeek railway bridge {ev.hexside}: die {ev.rolls[0]}: {st} (11.0)."
        case E.SecretRevealed() if ev.name == POLISH_SECRET:
            return (f"The British reveal the Polish drop zones {', '.join(ev.payload.split())}; they match the "
                    f"commitment sealed before play (9.7).")
        case E.UnitExited():
            return f"{ev.unit} leaves the map at {ev.hex} (entry letter {ev.letter}) (4.5)."
        case E.UnitRetreated():
            who = "no choice" if ev.chosen_by == "auto" else f"chosen by {name(ev.chosen_by)}"
            return f"{ev.unit} retreats to {' '.join(ev.path)} ({who}) (7.7)."
        case E.UnitAdvanced():
            return f"{ev.unit} advances into {' '.join(ev.path)} (7.8)."
        case E.UnitsRecovered():
            return f"No longer disrupted: {', '.join(ev.units)} (8.0)." if ev.units else ""
        case E.CombatResolved():
            mods = f" ({'; '.join(ev.modifiers)})" if ev.modifiers else ""
            return (f"Attack on {lab(ev.target)}: {'+'.join(ev.attackers)} ({ev.attack_strength}) against "
                    f"{'+'.join(ev.defenders)} ({ev.defence_strength}){mods}; column \"{ev.odds}\", "
                    f"die {', '.join(map(str, ev.rolls))}: {ev.result} (7.0, 7.6).")
        case E.AttackDeclared():
            return ""
        case E.DecisionRequired():
            what = {"retreat": "retreat or disruption", "ad": "how the attackers take an Ad",
                    "advance": "whether to advance", "defender-advance": "whether the defender advances",
                    "recover": f"which {ev.distance} units recover"}.get(ev.decision, ev.decision)
            return f"{name(ev.side)} must choose {what} for {', '.join(ev.units)} ({ev.rule})."
        case E.VictoryCounted():
            rows = [f"VICTORY POINTS (12.0): {ev.total} - {ev.level}"]
            for h, vp in ev.hexes.items():
                rows.append(f"      {lab(h)}: {vp} VP, line of communications {' '.join(ev.lines.get(h, []))}")
            rows.append(f"      German units eliminated: {ev.german_eliminated} VP (12.1)")
            rows.append(f"      British units on the map over nine: {ev.british_extra} VP (12.1)")
            return "\n".join(rows)
    return None
