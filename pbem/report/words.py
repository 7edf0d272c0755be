"""The core wording of events: what any game's report says of the core events
when the game has no words of its own.  No rule numbers: those are the game's."""
from __future__ import annotations

from pbem.core import events as E
from pbem.core.scenario import Scenario


def core_words(ev: E.Event, sc: Scenario, origin: str | None = None) -> str:
    lab, name = sc.board.label, sc.side_name
    match ev:
        case E.GameCreated():
            return f"Game {ev.game_id} created from scenario {ev.scenario_id}."
        case E.PhaseStarted():
            return f"Turn {ev.turn}: {name(ev.side)} {ev.name} phase begins."
        case E.UnitMoved():
            via = f" via {' '.join(ev.path[:-1])}" if len(ev.path) > 1 else ""
            start = f" from {origin}" if origin else ""
            return f"{ev.unit} moves{start}{via} to {lab(ev.path[-1])} ({ev.cost or ev.mp} of {ev.ma} MP)."
        case E.AttackDeclared():
            return f"Attack declared on {lab(ev.target)} by {', '.join(ev.attackers)}."
        case E.DeclarationsClosed():
            return f"{ev.count} attack(s) declared; declarations closed."
        case E.CombatResolved():
            return (f"Combat at {lab(ev.target)}: {'+'.join(ev.attackers)} against {'+'.join(ev.defenders)}, "
                    f"odds {ev.odds}, die {', '.join(map(str, ev.rolls))}: {ev.result}.")
        case E.DecisionRequired():
            among = f" for {', '.join(ev.units)}" if ev.units else ""
            return f"{name(ev.side)} must decide: {ev.decision}{among} ({ev.rule})."
        case E.UnitRetreated():
            return f"{ev.unit} retreats to {' '.join(ev.path)}."
        case E.UnitEliminated():
            return f"{ev.unit} is eliminated: {ev.reason} ({ev.rule})."
        case E.UnitAdvanced():
            return f"{ev.unit} advances into {lab(ev.path[-1])}."
        case E.AdvanceDeclined():
            return "No advance after combat."
        case E.CombatFinished():
            return ""
        case E.UnitsRecovered():
            return f"Recovered: {', '.join(ev.units)}."
        case E.GameEnded():
            if ev.winner == "draw":
                return f"GAME OVER - a draw: {ev.reason} ({ev.rule})."
            return f"GAME OVER - {name(ev.winner)} wins: {ev.reason} ({ev.rule})."
        case E.SeedRevealed():
            return f"The host revealed the dice seed {ev.seed}; anyone can now re-derive every roll."
        case E.OrderGiven():
            return f"{name(ev.side)} orders: {ev.text}"
        case E.DeadlinesChanged():
            who = "Every side agreed to" if ev.by == "sides" else "The host"
            what = {"paused": "paused the deadlines: none runs until they are resumed",
                    "resumed": "resumed the deadlines", "extended": "extend the running deadlines"}.get(ev.action,
                                                                                                     ev.action)
            if ev.by == "sides" and ev.action != "extended":
                who = "Every side"
            return f"{who} {what}{' ' + ev.text if ev.text else ''}."
        case E.SecretRecorded():
            return f"{name(ev.side)} recorded a secret ({ev.name}), commitment {ev.commitment[:16]}..."
        case E.SecretRevealed():
            return f"{name(ev.side)} revealed the secret {ev.name}: {ev.payload}"
        case E.PressSent():
            return f"{name(ev.side)} writes: {ev.text}"
        case E.KeyRegistered():
            from pbem.trust.sshsig import SigError, parse_public_key
            try:
                fp = parse_public_key(ev.key).fingerprint
            except SigError:
                fp = "(an unreadable key)"
            return f"{name(ev.side)} registered the SSH key {fp}: its orders are signed with it."
        case E.TurnDiceRevealed():
            more = "".join(f"; {name(s.owner) if s.owner != 'referee' else 'the referee'}'s secret rolls up to turn "
                           f"{s.turn} too" for s in ev.secret)
            # The reducer has refused a seed that does not hash to the committed chain, so that
            # much is checked here; the rolls themselves are re-derived by verify (the whole replay).
            return (f"Turn {ev.turn} is over: its dice seed {ev.seed[:16]}... is revealed and hashes to the chain "
                    f"committed at the start{more}; every roll of the turn can now be checked (pbem verify).")
        case E.EntropyCommitted():
            return (f"{name(ev.side)} commits to a contribution to the dice ({ev.commitment[:16]}...)." if ev.commitment
                    else f"{name(ev.side)} makes no contribution to the dice.")
        case E.EntropyRevealed():
            return (f"{name(ev.side)} reveals its contribution to the dice: {ev.value}." if ev.value
                    else f"{name(ev.side)} withdraws its contribution to the dice.")
        case E.EntropyStage():
            return ("Every commitment to the dice is in: now each side reveals its value." if ev.stage == "reveal"
                    else f"The dice are fixed: contributions digest {ev.digest[:16]}...")
    return type(ev).__name__
