"""Wording the games of this folder share for the kernel's events (pbem.core.events):
the movement, combat, decision and secret sentences, with the Panzer Corps rule
numbers where a game does not word an event its own way.

A game's ``describe_event`` returns its own sentence for an event (its own
events included: each game words them in its ``words`` module), else
``classic(...)``; the core wording of pbem.report.words (no rule numbers) is
for games that say nothing. This module imports no game's package.
"""
from __future__ import annotations

from pbem.core import events as E
from pbem.core.scenario import Scenario


def classic(ev, sc: Scenario, origin: str | None = None) -> str | None:
    """One line of plain English with rule numbers, or None for an event this does not word."""
    lab = sc.board.label
    name = sc.side_name
    match ev:
        case E.PhaseStarted():
            return f"Turn {ev.turn}: {name(ev.side)} {ev.name} phase begins."
        case E.UnitMoved():
            via = f" via {' '.join(ev.path[:-1])}" if len(ev.path) > 1 else ""
            start = f" from {origin}" if origin else ""
            return f"{ev.unit} moves{start}{via} to {lab(ev.path[-1])} ({ev.cost or ev.mp} of {ev.ma} MP)."
        case E.AttackDeclared():
            extra = []
            if ev.retreat:
                extra.append(f"retreat {' '.join(ev.retreat)}")
            if ev.advance == "-":
                extra.append("no advance")
            elif ev.advance:
                extra.append(f"advance {ev.advance}")
            tail = f" [{'; '.join(extra)}]" if extra else ""
            return f"Attack declared on {lab(ev.target)} by {', '.join(ev.attackers)}{tail}."
        case E.DeclarationsClosed():
            return f"{ev.count} attack(s) declared; declarations closed (9.1(5))."
        case E.CombatResolved():
            mods = f" ({'; '.join(ev.modifiers)})" if ev.modifiers else ""
            return (f"Combat at {lab(ev.target)}: {'+'.join(ev.attackers)} ({ev.attack_strength}) against "
                    f"{'+'.join(ev.defenders)} ({ev.defence_strength}){mods}; odds {ev.odds}, "
                    f"die {', '.join(map(str, ev.rolls))}: {ev.result} (9.2, 9.4).")
        case E.DecisionRequired():
            what = {"retreat": "a retreat path", "ca": "to retreat or counterattack (10.5)",
                    "losses": "which attacking units to lose (10.3)",
                    # Panzer Corps sister games
                    "ex-loss": "which of its units to remove for the EX result",
                    "stack-loss": f"{ev.distance} unit(s) to remove over the stacking limit",
                    "set-up": "where to set up", "entry": "where to place its entering units",
                    "bombardment": f"{ev.distance} unit(s) to disrupt by naval bombardment",
                    "reinforcement": f"where its {ev.distance} face-down reinforcement(s) enter, or to delay them",
                    }.get(ev.decision, "whether to advance")
            among = f" for {', '.join(ev.units)}" if ev.units else ""
            return f"{name(ev.side)} must choose {what}{among} ({ev.rule})."
        case E.UnitRetreated():
            who = "no choice" if ev.chosen_by == "auto" else f"chosen by {name(ev.chosen_by)}"
            start = f" from {origin}" if origin else ""
            return f"{ev.unit} retreats{start} to {' '.join(ev.path)} ({who}) and is disrupted (9.5, 9.7(1))."
        case E.UnitEliminated():
            return f"{ev.unit} is eliminated: {ev.reason} ({ev.rule})."
        case E.UnitAdvanced():
            return f"{ev.unit} advances into {lab(ev.path[-1])} (9.6)."
        case E.AdvanceDeclined():
            return "No advance after combat."
        case E.CombatFinished():
            return ""
        case E.UnitsRecovered():
            return f"Recovered from disruption: {', '.join(ev.units)} (9.7(3))."
        case E.GameEnded():
            if ev.winner == "draw":
                return f"GAME OVER - a draw: {ev.reason} ({ev.rule})."
            return f"GAME OVER - {name(ev.winner)} wins: {ev.reason} ({ev.rule})."
        case E.SeedRevealed():
            return f"The host revealed the dice seed {ev.seed}; anyone can now re-derive every roll."
        case E.OrderGiven():
            return f"{name(ev.side)} orders: {ev.text}"
        case E.SecretRecorded():
            return f"{name(ev.side)} recorded a secret ({ev.name}), commitment {ev.commitment[:16]}..."
        case E.SecretRevealed():
            return f"{name(ev.side)} revealed the secret {ev.name}: {ev.payload}"
