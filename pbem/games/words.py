"""Wording the games of this folder share: the combat, decision and set-up
sentences of the Panzer Corps and Paratroop rules, with their rule numbers.

A game's ``describe_event`` returns its own sentence for an event, else
``classic(...)``; the core wording of pbem.report.words (no rule numbers) is
for games that say nothing.
"""
from __future__ import annotations

from pbem.core.scenario import Scenario
from pbem.games.crete import events as CE
from pbem.games.panzer_corps import events as PE


def classic(ev, sc: Scenario, origin: str | None = None) -> str | None:
    """One line of plain English with rule numbers, or None for an event this does not word."""
    lab = sc.board.label
    name = sc.side_name
    match ev:
        case PE.PhaseStarted():
            return f"Turn {ev.turn}: {name(ev.side)} {ev.name} phase begins."
        case PE.UnitMoved():
            via = f" via {' '.join(ev.path[:-1])}" if len(ev.path) > 1 else ""
            start = f" from {origin}" if origin else ""
            return f"{ev.unit} moves{start}{via} to {lab(ev.path[-1])} ({ev.cost or ev.mp} of {ev.ma} MP)."
        case PE.UnitBrokeOff():
            return f"{ev.unit} breaks off the {ev.edge} map edge at {ev.hex} (4.2)."
        case PE.AttackDeclared():
            extra = []
            if ev.retreat:
                extra.append(f"retreat {' '.join(ev.retreat)}")
            if ev.advance == "-":
                extra.append("no advance")
            elif ev.advance:
                extra.append(f"advance {ev.advance}")
            tail = f" [{'; '.join(extra)}]" if extra else ""
            return f"Attack declared on {lab(ev.target)} by {', '.join(ev.attackers)}{tail}."
        case PE.DeclarationsClosed():
            return f"{ev.count} attack(s) declared; declarations closed (9.1(5))."
        case PE.CombatResolved():
            mods = f" ({'; '.join(ev.modifiers)})" if ev.modifiers else ""
            return (f"Combat at {lab(ev.target)}: {'+'.join(ev.attackers)} ({ev.attack_strength}) against "
                    f"{'+'.join(ev.defenders)} ({ev.defence_strength}){mods}; odds {ev.odds}, "
                    f"die {', '.join(map(str, ev.rolls))}: {ev.result} (9.2, 9.4).")
        case PE.DecisionRequired():
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
        case PE.UnitRetreated():
            who = "no choice" if ev.chosen_by == "auto" else f"chosen by {name(ev.chosen_by)}"
            start = f" from {origin}" if origin else ""
            return f"{ev.unit} retreats{start} to {' '.join(ev.path)} ({who}) and is disrupted (9.5, 9.7(1))."
        case PE.UnitEliminated():
            return f"{ev.unit} is eliminated: {ev.reason} ({ev.rule})."
        case PE.UnitAdvanced():
            return f"{ev.unit} advances into {lab(ev.path[-1])} (9.6)."
        case PE.AdvanceDeclined():
            return "No advance after combat."
        case PE.CombatFinished():
            return ""
        case PE.UnitsRecovered():
            return f"Recovered from disruption: {', '.join(ev.units)} (9.7(3))."
        case PE.GameEnded():
            if ev.winner == "draw":
                return f"GAME OVER - a draw: {ev.reason} ({ev.rule})."
            return f"GAME OVER - {name(ev.winner)} wins: {ev.reason} ({ev.rule})."
        case PE.SeedRevealed():
            return f"The host revealed the dice seed {ev.seed}; anyone can now re-derive every roll."
        case PE.OrderGiven():
            return f"{name(ev.side)} orders: {ev.text}"
        case PE.SecretRecorded():
            return f"{name(ev.side)} recorded a secret ({ev.name}), commitment {ev.commitment[:16]}..."
        case PE.SecretRevealed():
            return f"{name(ev.side)} revealed the secret {ev.name}: {ev.payload}"
        case CE.UnitPlaced():
            return f"{ev.unit} is set up in {lab(ev.hex)} (1.2)."
        case CE.AirDropped():
            if ev.result == "Ac":
                how = "lands on target"
            else:
                how = f"scatters {ev.direction}" + (f" into {lab(ev.hex)}" if ev.hex else " off the map")
            return (f"{ev.unit} drops on {lab(ev.target)} ({ev.column}); die {', '.join(map(str, ev.rolls))}: "
                    f"{how} (5.0).")
        case CE.UnitLanded():
            return f"{ev.unit} air-lands on {lab(ev.hex)} (6.0)."
        case CE.TrackEntered():
            via = f" via {' '.join(ev.path)}" if ev.path else ""
            return (f"{ev.unit} moves{via} into the {ev.track} transit track ({ev.cost} of {ev.ma} MP), "
                    f"bound for {ev.exit} (7.0).")
        case CE.CombatOpened():
            air = f" with air {', '.join(ev.air)}" if ev.air else ""
            return (f"{name(ev.side)} {ev.mode}: {', '.join(ev.attackers)}{air} against {', '.join(ev.defenders)} "
                    f"in {', '.join(ev.hexes)} on the {ev.table} table (9.1, 10.5).")
        # --- Panzer Corps sister games: set-up, reinforcements, points, connecting lines ---
        case PE.HiddenDraw():
            per: dict[int, int] = {}
            for t in ev.slots:
                per[t] = per.get(t, 0) + 1
            text = (f"The {len(ev.slots)} {ev.name} reinforcements are shuffled face down onto the turn track: "
                    + ", ".join(f"{n} on turn {t}" for t, n in sorted(per.items()))
                    + "; which is which stays hidden until each enters (3.0(4), 10.0(2)).")
            if ev.units:
                text += " Referee only: " + "; ".join(f"turn {t} {u}" for t, u in zip(ev.slots, ev.units)) + "."
            return text
        case PE.UnitSetUp():
            return f"{ev.unit} is set up in {lab(ev.hex)} ({ev.rule})."
        case PE.ReinforcementEntered():
            notes = []
            if ev.mp:
                notes.append(f"{ev.mp} MP already spent")
            if ev.pinned:
                notes.append("in an enemy zone of control: it may not move this turn")
            tail = f"; {'; '.join(notes)}" if notes else ""
            return f"Reinforcement {ev.unit} enters at {lab(ev.hex)}{tail} ({ev.rule})."
        case PE.ReinforcementDelayed():
            who = ", ".join(ev.units) if ev.units else f"{ev.count} face-down unit(s)"
            how = "cannot enter (no open entry hex) and wait" if ev.forced else "wait for a later turn"
            return f"Reinforcements {how}: {who} ({ev.rule})."
        case PE.BombardmentRolled():
            return (f"Naval bombardment: die {', '.join(map(str, ev.rolls))}: {ev.count} Italian units "
                    f"may be disrupted ({ev.rule}).")
        case PE.UnitsDisrupted():
            return f"Disrupted by {ev.reason}: {', '.join(ev.units)} ({ev.rule})."
        case PE.PointsScored():
            return f"{name(ev.side)} {ev.points:+d} point(s): {ev.reason} ({ev.rule})."
        case PE.HexControlled():
            marker = f"; marker: {ev.marker}" if ev.marker else ""
            return f"{name(ev.side)} now controls {lab(ev.hex)}{marker} ({ev.rule})."
        case PE.ConnectingLine():
            if ev.traced:
                via = f" via {' '.join(ev.path[1:-1])}" if len(ev.path) > 2 else ""
                note = f"; {ev.note}" if ev.note else ""
                return f"Connecting line of {ev.subject} ({ev.start}): traced to {ev.to}{via}{note} ({ev.rule})."
            note = f": {ev.note}" if ev.note else ""
            return f"Connecting line of {ev.subject} ({ev.start}): CUT{note} ({ev.rule})."
            return None
