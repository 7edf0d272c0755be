"""Crete's words for its events in the reports, with rule numbers; the shared
classic wording (pbem.games.words) for the rest."""
from __future__ import annotations

from pbem.core.scenario import Scenario
from pbem.games.crete import events as E
from pbem.games.words import classic


def describe(ev: E.Event, sc: Scenario, origin: str | None = None) -> str | None:
    own = own_words(ev, sc)
    return own if own is not None else classic(ev, sc, origin)


def own_words(ev: E.Event, sc: Scenario) -> str | None:
    name = sc.side_name
    lab = sc.board.label
    match ev:
        case E.StandingOrderSet():
            text = " ".join(["doctrine", ev.topic] + ([ev.scope] if ev.scope else []) + [ev.answer])
            who = (f"its units in {lab(ev.scope)}" if ev.scope and ev.scope.isdigit() else ev.scope) \
                or "any of its forces"
            when = f"a Ca in an attack on {who}" if ev.topic == "ca" else f"a Ca in a counterattack on {who}"
            tab = ev.answer.split()[-1]
            what = {"retreat": "is answered by a retreat of the whole force",
                    "ask": "is put to the player",
                    "default": "follows the side's standing order again (the exception is cleared)",
                    }.get(ev.answer, f"is answered by a counterattack on the {tab} table, against the enemy hex "
                                     "giving the best odds" if ev.topic == "ca" else
                          f"is answered by rolling the original attack again on the {tab} table")
            return f"{name(ev.side)} standing order '{text}': {when} {what} (10.5)."
        case E.StandingOrderApplied():
            many = "s" if len(ev.orders) > 1 else ""
            what, rule = f"{ev.answer}", "10.5"
            if ev.answer == "retreat":
                what, rule = "retreat, the whole force", "10.5, 10.6"
            elif len(ev.answer.split()) == 2:
                what = f"{ev.answer}, the original attack rolled again without air units"
            return (f"{name(ev.side)} answers the Ca of {', '.join(ev.units)} by standing order{many} "
                    f"'{' / '.join(ev.orders)}': {what} ({rule}).")
        case E.CombatResolved():
            mods = f" ({'; '.join(ev.modifiers)})" if ev.modifiers else ""
            return (f"Combat at {lab(ev.target)}: {'+'.join(ev.attackers)} ({ev.attack_strength}) against "
                    f"{'+'.join(ev.defenders)} ({ev.defence_strength}){mods}; odds {ev.odds}, die "
                    f"{', '.join(map(str, ev.rolls))}: {ev.result} (9.2, 9.4, 10.0).")
        case E.UnitRetreated():
            who = "no choice" if ev.chosen_by == "auto" else f"chosen by {name(ev.chosen_by)}"
            return f"{ev.unit} retreats to {lab(ev.path[-1])} ({who}) (10.5, 10.6)."
        case E.UnitAdvanced():
            return f"{ev.unit} advances into {lab(ev.path[-1])} (10.7)."
        case E.UnitEliminated():
            d = sc.unit_defs.get(ev.unit)
            if d is None:
                return None
            gain = next((s for s in sc.side_ids() if s != d.side), "")
            return f"{ev.unit} is eliminated: {ev.reason} ({ev.rule}); {name(gain)} +{d.strength} VP (12.1)."
        case E.PlaceScored():
            what = "airfield" if ev.place == "airfield" else "town"
            return f"{name(ev.side)} holds the {what} {lab(ev.hex)} at the end: +{ev.points} VP (12.2)."
        case E.GameEnded():
            return f"GAME OVER - {ev.reason} ({ev.rule})."
        case E.UnitPlaced():
            return f"{ev.unit} is set up in {lab(ev.hex)} (1.2)."
        case E.AirDropped():
            if ev.result == "Ac":
                how = "lands on target"
            else:
                how = f"scatters {ev.direction}" + (f" into {lab(ev.hex)}" if ev.hex else " off the map")
            return (f"{ev.unit} drops on {lab(ev.target)} ({ev.column}); die {', '.join(map(str, ev.rolls))}: "
                    f"{how} (5.0).")
        case E.UnitLanded():
            return f"{ev.unit} air-lands on {lab(ev.hex)} (6.0)."
        case E.TrackEntered():
            via = f" via {' '.join(ev.path)}" if ev.path else ""
            return (f"{ev.unit} moves{via} into the {ev.track} transit track ({ev.cost} of {ev.ma} MP), "
                    f"bound for {ev.exit} (7.0).")
        case E.CombatOpened():
            air = f" with air {', '.join(ev.air)}" if ev.air else ""
            return (f"{name(ev.side)} {ev.mode}: {', '.join(ev.attackers)}{air} against {', '.join(ev.defenders)} "
                    f"in {', '.join(ev.hexes)} on the {ev.table} table (9.1, 10.5).")
    return None
