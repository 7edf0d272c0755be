"""The Formation Series' sentences for its events (reports), with rule numbers."""
from __future__ import annotations

from pbem.core.scenario import Scenario
from pbem.games.formation import events as E
from pbem.games.formation.combat_words import describe as combat_describe
from pbem.games.formation.state import ALLIED, AXIS


def _units(units: list[str]) -> str:
    return "+".join(units)


def _by(doctrine: str) -> str:
    """' by standing order (its text)'; another side's standing order shows no text (intel.redact)."""
    if not doctrine:
        return ""
    return " by standing order" + ("" if doctrine.startswith("(") else f" ({doctrine})")


def describe(ev: E.Event, sc: Scenario, origin: str | None = None) -> str | None:
    n = sc.side_name
    lab = sc.board.label
    if isinstance(ev, E.PhaseStarted):
        name, rule = {"admin": ("Admin Phase", "9"), "ops": ("Ops Phase", "6"),
                      "end-of-turn": ("End of Turn Phase", "8")}.get(ev.name, (ev.name, "4"))
        return f"Game turn {ev.turn}: the {name} begins ({rule})."
    if isinstance(ev, E.DoctrineSet):
        return f"{n(ev.side)} sets a standing order: doctrine {ev.topic} {ev.text}."
    if isinstance(ev, E.InitiativeDetermined):
        why = {"roll": f"rolls {ev.rolls}: {n(AXIS)} {ev.axis}, {n(ALLIED)} {ev.allied}",
               "scenario": "the scenario gives the first activation", "in-row": "initiatives in a row exhausted "
               "(6.1.1)", "no-activations": "the other side has no activation left (6.1.2)"}.get(ev.reason, ev.reason)
        return (f"Ops Cycle {ev.cycle}: {n(ev.winner)} has the initiative ({why}); Initiative +DRM marker "
                f"+{ev.drm} for {n(ev.drm_side)} (6.1).")
    if isinstance(ev, E.InitiativeTransferred):
        return f"{n(ev.side)} transfers the initiative to {n(ev.to)}, who must act or end the Ops Phase (6.2)."
    if isinstance(ev, E.FormationActivated):
        what = "reacts" if ev.reaction else "is activated"
        extra = " (Schwerpunkt +1, at least 3)" if ev.schwerpunkt else ""
        sup = "" if ev.in_supply else " Its HQ is out of supply: level to 0 (6.4.3)."
        return (f"{ev.formation} {what}: level {ev.level}, d10 {ev.rolls} -> {ev.ap} AP{extra}; level now "
                f"{ev.new_level} (6.4{', 6.5.2' if ev.reaction else ''}).{sup}")
    if isinstance(ev, E.ActivationEnded):
        lost = f", {ev.lost} AP unused" if ev.lost else ""
        return f"{ev.formation}'s activation ends ({ev.reason}{lost}) (7.2 F)."
    if isinstance(ev, E.OpsPhaseEnded):
        return f"The Ops Phase ends: {ev.reason}."
    if isinstance(ev, E.APSpent):
        b = f" ({ev.bonus} of them Battle Victory bonus)" if ev.bonus else ""
        return f"{ev.formation} spends {ev.ap} AP on {ev.action}{b} (7.0)."
    if isinstance(ev, E.StackMoved):
        if not ev.path:
            return f"{_units(ev.units)}: screen movement not possible (7.3.4); the action is spent."
        how = " (screen movement, 7.3.4)" if ev.screen else " (free move)" if ev.free else ""
        return f"{_units(ev.units)} moves to {' '.join(lab(h) for h in ev.path)}{how}."
    if isinstance(ev, E.ReactionPaused):
        what = "announces leaving" if ev.leaving else "enters"
        return (f"The moving stack {what} {lab(ev.at)} next to {n(ev.side)} units: {n(ev.side)} may react with "
                f"{', '.join(ev.formations)} (react FORMATION | pass) (6.5.1).")
    if isinstance(ev, E.ReactionDeclined):
        by = _by(ev.doctrine)
        return f"{n(ev.side)} does not react at {lab(ev.at)}{by} (6.5.1)."
    if isinstance(ev, E.ReactionAttempted):
        by = _by(ev.doctrine)
        res = "succeeds" if ev.success else "fails"
        return (f"{ev.formation} attempts a reaction{by}: d10 {ev.rolls} against reaction rating {ev.rating}: "
                f"{res} (6.5.2).")
    if isinstance(ev, E.MoveResumed):
        return f"{_units(ev.units)} moves on from {lab(ev.at)} (6.5.4)."
    if isinstance(ev, E.MoveStopped):
        return f"{_units(ev.units)} must stop in {lab(ev.at)}; its action is over (6.5.3)."
    if isinstance(ev, E.HQDisplaced):
        where = lab(ev.to) if ev.to else "off the map"
        return (f"HQ {ev.hq} is displaced to {where} ({ev.reason}): support {ev.support}, {ev.formation} "
                f"level {ev.level} (5.3.3).")
    if isinstance(ev, E.ECRolled):
        res = "passes" if ev.passed else "fails"
        tail = []
        if ev.disrupts:
            tail.append("disrupted")
        if ev.recovers:
            tail.append("recovers from disruption")
        if ev.step_loss:
            tail.append("loses a strength point")
        if ev.eliminated:
            tail.append("surrenders" if ev.why == "surrender" else "is eliminated")
        t = f": {', '.join(tail)}" if tail else ""
        rule = "16.1" if ev.why == "surrender" else "7.5" if ev.why == "refit" else "5.6"
        vs = "its rating" if ev.unit.startswith("(") else ev.rating     # intel.redact hid the unit
        return f"{ev.unit} effectiveness check ({ev.why}): d10 {ev.rolls} vs {vs}, {res}{t} ({rule})."
    if isinstance(ev, E.ImprovedDefense):
        return f"Improved Defense in {lab(ev.hex)} {'placed' if ev.on else 'removed'} ({ev.reason}) (7.6)."
    if isinstance(ev, E.VPScored):
        how = "in command" if ev.in_command else "out of command"
        return f"{n(ev.side)} scores {ev.vp} VP for {lab(ev.hex)} ({how}); total {ev.total} VP (7.3.6, 8, 16)."
    if isinstance(ev, E.AdminBegun):
        return f"Admin Phase: initiative markers to 0; the SNAFU marker is with {n(ev.snafu)} (5.2, 9)."
    if isinstance(ev, E.FormationRecovered):
        s = "" if ev.in_supply else " (HQ out of supply: no recovery)"
        return f"{ev.formation} activation level {ev.level}{s} (9.1.1)."
    if isinstance(ev, E.DisruptionRecovered):
        return f"Recovered from disruption: {', '.join(ev.units)} (9.1.2)."
    if isinstance(ev, E.SchwerpunktPlaced):
        if not ev.formation:
            return "The Schwerpunkt marker leaves its formation (9.2)."
        return f"{n(ev.side)} places the Schwerpunkt marker with {ev.formation} (5.9, 9.2)."
    if isinstance(ev, E.ReinforcementEntered):
        return f"Reinforcement {ev.unit} enters at {lab(ev.hex)} (9.4, 14.1)."
    if isinstance(ev, E.SubstituteHQ):
        return (f"{ev.formation}: substitute HQ {ev.new} replaces {ev.old}"
                f"{' at ' + lab(ev.hex) if ev.hex else ''}; level {ev.level} (9.4.4).")
    if isinstance(ev, E.AdminSideDone):
        return f"{n(ev.side)} has finished its Admin Phase orders."
    if isinstance(ev, E.SnafuUsed):
        by = _by(ev.doctrine)
        return (f"{n(ev.holder)} plays the SNAFU marker{by}: {n(ev.roller)}'s {ev.purpose} die {ev.old} is "
                f"re-rolled; the marker goes to the other side (5.2).")
    return combat_describe(ev, sc)
