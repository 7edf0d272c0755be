"""Report words for the combat events (7.4) and what the defender may see of a
declaration (5.3.4: the attacking stack only after the retreat-before-combat
decision; until then its top unit alone, which the map already shows)."""
from __future__ import annotations

from pbem.games.formation import combat_events as CE


def redact(ev, viewer: str):
    """The event as ``viewer`` (a side) may see it."""
    if isinstance(ev, CE.CombatDeclared) and viewer != ev.side:
        return CE.CombatDeclared(side=ev.side, formation=ev.formation, hex=ev.hex, target=ev.target, attackers=[],
                                 defenders=ev.defenders, ooc_cost=ev.ooc_cost)
    return ev


def _units(ids: list[str]) -> str:
    return ", ".join(ids) if ids else "units not yet revealed"


def describe(ev, sc) -> str | None:
    """One sentence with its rule numbers; None for events not of combat."""
    if isinstance(ev, CE.CombatDeclared):
        cost = "2 AP, out of command (5.8.3)" if ev.ooc_cost > 1 else "1 AP"
        return (f"{sc.side_name(ev.side)} declares a hasty attack from {ev.hex} on {ev.target} ({cost}) with "
                f"{_units(ev.attackers)} against {', '.join(ev.defenders)} (7.4.1 A)")
    if isinstance(ev, CE.RbCDecided):
        if ev.attempt:
            return f"{sc.side_name(ev.side)} tries to retreat before combat (7.4.1.1)"
        if ev.by == "rules":
            return f"no retreat before combat: {ev.reason} (7.4.1.1)"
        how = " by standing order" if ev.by == "doctrine" else ""
        return f"{sc.side_name(ev.side)} stands and fights{how}: no retreat before combat (7.4.1.1)"
    if isinstance(ev, CE.RbCRolled):
        a = f"{ev.att_roll}" + (f" +{ev.att_drm} for {ev.att_unit}" if ev.att_drm else "")
        d = f"{ev.def_roll}" + (f" +{ev.def_drm} for {ev.def_unit}" if ev.def_drm else "")
        out = "succeeds" if ev.success else "fails: the attacker gets +2 (7.4.1.4 E)"
        return f"retreat before combat: attacker {a} = {ev.att_roll + ev.att_drm}, defender {d} = " \
               f"{ev.def_roll + ev.def_drm}; it {out} (7.4.1.1)"
    if isinstance(ev, CE.RbCMoved):
        return f"{', '.join(ev.units)} retreat before combat to {ev.path[-1]} (free move, no Battle Victory, 7.4.1.1)"
    if isinstance(ev, CE.CombatEscalated):
        return f"the attack is {ev.attack} (7.1, 7.4.1 C)"
    if isinstance(ev, CE.ChitsDrawn):
        return f"combat chits drawn: attacker chit {ev.att_chit}, defender chit {ev.def_chit} (7.4.1 D)"
    if isinstance(ev, CE.CombatResolved):
        res = ev.result.replace("*", " red")
        shifts = ("; " + "; ".join(ev.shifts)) if ev.shifts else ""
        return (f"{ev.attack} attack on {ev.target} ({ev.terrain}): attack {' + '.join(ev.att_detail)} = "
                f"{ev.attack_strength}, defence {' + '.join(ev.def_detail)} = {ev.defence_strength} (5.1); "
                f"odds {ev.odds}{shifts}; DRM {ev.drm:+d} ({'; '.join(ev.drms)}); roll {ev.rolls[-1]} -> "
                f"{ev.modified}: {res} (7.4.1.4, 7.4.2)")
    if isinstance(ev, CE.StepLost):
        gone = ", eliminated" if ev.strength <= 0 else f", {ev.strength} left"
        return f"{ev.unit} loses {ev.sp} SP ({ev.why}{gone}; {ev.rule})"
    if isinstance(ev, CE.CombatRetreated):
        kind = "forced retreat" if ev.forced else "retreat"
        where = f"to {ev.path[-1]}" if ev.path else "nowhere"
        extra = ""
        if ev.ezoc:
            extra += f"; {ev.ezoc} EZOC hex(es) entered"
        if ev.blocked:
            extra += f"; {ev.blocked} hex(es) could not be entered"
        return f"{', '.join(ev.units)}: {kind} of {ev.owed} hex(es) {where}{extra} (7.4.2.2, 7.4.2.3)"
    if isinstance(ev, CE.OverstackDisrupted):
        return f"{', '.join(ev.units)} disrupted: {ev.hex} is overstacked (5.3.2)"
    if isinstance(ev, CE.UnitDisplaced):
        to = f"to {ev.to}" if ev.to else "nowhere: eliminated"
        return f"{ev.unit} displaced from {ev.frm} {to} by {sc.side_name(ev.by)} (5.3.2)"
    if isinstance(ev, CE.CombatEnded):
        if ev.retreated:
            return "the combat is over: the defender left (no Battle Victory, 7.4.1.1)"
        if ev.bonus:
            return (f"Battle Victory for {sc.side_name(ev.winner)}: {ev.bonus} bonus AP for "
                    f"{', '.join(ev.units)} (7.4.3)")
        return "the combat is over (7.4.3)"
    if isinstance(ev, CE.BonusActionsEnded):
        how = {"spent": "spent", "pass": "passed", "end": "ended", "standing order": "passed by standing order",
               "no unit can act": "over: no winning unit can act"}.get(ev.reason, ev.reason)
        lost = f"; {ev.lost} bonus AP lost" if ev.lost else ""
        return f"{sc.side_name(ev.side)}'s Battle Victory bonus {how}{lost}: the activation goes on (7.4.3)"
    return None
