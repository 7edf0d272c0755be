"""What the reports say of Eben Emael's events, each with its rule number;
the rest in the wording the games share (pbem.games.words.classic)."""
from __future__ import annotations

from pbem.core.scenario import Scenario
from pbem.games.eben_emael import events as E
from pbem.games.words import classic


def describe(ev: E.Event, sc: Scenario, origin: str | None = None) -> str | None:
    own = own_words(ev, sc)
    return own if own is not None else classic(ev, sc, origin)


def own_words(ev: E.Event, sc: Scenario) -> str | None:
    """This game's words for its events and for the core events it words its own way."""
    lab = sc.board.label
    match ev:
        case E.FortActivation():
            return (f"Activation roll for the fortification in {ev.fort}: die {ev.rolls[0]}, "
                    f"{'activated' if ev.active else 'stays inactive'} (9.4).")
        case E.BoldMovement():
            return f"{ev.unit} moved more than one hex: Bold Movement marker (4.6)."
        case E.UnitEntered():
            via = f" and moves via {' '.join(ev.path[1:-1])} to {ev.path[-1]}" if len(ev.path) > 1 else ""
            return f"{ev.unit} enters the map at {lab(ev.path[0])}{via} ({ev.mp} of {ev.ma} MP) (10.1, 10.2)."
        case E.UnitPlaced():
            return f"{ev.unit} is placed in {lab(ev.hex)} (10.3, 12.2)."
        case E.FireDeclared():
            extra = " (second fire at strength 1, 12.2)" if ev.second else ""
            return f"Fire announced: {ev.firer} at {ev.target}{extra} (5.2)."
        case E.FireResolved():
            who = "A minefield" if ev.firer == "minefield" else ev.firer
            mods = f" ({'; '.join(ev.modifiers)})" if ev.modifiers else ""
            head = (f"{who} fires at {ev.target} in {lab(ev.hex)} on the {ev.row} row{mods}: "
                    f"die {ev.rolls[0]}, modified {ev.total}, result {ev.result}")
            if ev.result == "-":
                return head + ": no effect (5.0)."
            return (head + f"; {ev.target}'s die {ev.rolls[1]} + {ev.result} = {ev.score} against "
                    f"Effectiveness {ev.rating}: {ev.effect} (5.0, 5.7).")
        case E.FireLapsed():
            return f"The fire of {ev.firer} at {ev.target} lapses: {ev.reason}."
        case E.AssaultDeclared():
            return f"Close assault announced on {lab(ev.target)} by {', '.join(ev.attackers)} (7.1)."
        case E.AssaultResolved():
            mods = f" ({'; '.join(ev.modifiers)})" if ev.modifiers else ""
            return (f"Close assault on {ev.defender} in {lab(ev.target)} by {'+'.join(ev.attackers)}: "
                    f"differential +{ev.differential}{mods}, die {ev.rolls[0]} (modified {ev.total}): "
                    f"{ev.result} (7.5, 7.9).")
        case E.DemolitionDeclared():
            return (f"Demolition announced: {ev.unit} against the fortification in {ev.fort}"
                    f"{' with its 110 lb charge' if ev.charge else ''} (8.2).")
        case E.DemolitionResolved():
            if ev.wasted:
                return f"{ev.unit}'s demolition of {ev.fort} is wasted: it is already destroyed (8.2)."
            mods = f" ({'; '.join(ev.modifiers)})" if ev.modifiers else ""
            return (f"{ev.unit} demolishes {ev.fort}: rating {ev.rating}, die {ev.rolls[0]}{mods} = {ev.total}: "
                    f"{'DESTROYED' if ev.destroyed else 'no effect'} (8.0).")
        case E.UnitsReorganized():
            parts = []
            if ev.unpinned:
                parts.append(f"unpinned {', '.join(ev.unpinned)}")
            if ev.unmarked:
                parts.append(f"Bold Movement markers removed from {', '.join(ev.unmarked)}")
            return f"{sc.side_name(ev.side)} reorganization: {'; '.join(parts) or 'nothing to do'} (3.0)."
        case E.SecretRevealed() if ev.name.startswith("dummy-"):
            return f"The cupola in {ev.payload} was a dummy ({ev.name}, checked against its commitment) (9.5)."
        case E.SecretRevealed() if ev.name.startswith("mine-"):
            return f"{lab(ev.payload)} is a minefield ({ev.name}, checked against its commitment) (11.2)."
        case E.DecisionRequired() if ev.decision == "lose":
            return f"{sc.side_name(ev.side)} must choose which of {', '.join(ev.units)} is eliminated (7.5)."
        case E.UnitAdvanced():
            return f"{ev.unit} advances into {lab(ev.path[-1])} (7.6)."
        case E.DeclarationsClosed():
            return f"{ev.count} attack(s) announced; now resolved in order (5.2, 7.1, 8.2)."
    return None
