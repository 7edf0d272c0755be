"""Words for the fire, morale and close-assault events: every step of a
resolution (dice, DRMs, hit location, armour against penetration, tables,
result) in one sentence, so that a report settles a dispute on its own."""
from __future__ import annotations

import re

from pbem.core.scenario import Scenario
from pbem.games.advanced_tobruk import data
from pbem.games.advanced_tobruk import fire_events as F

LOS_VALUE = re.compile(r" [+]\d+( [-+]\d+)$")        # "wreck in the line +1 -1": the HPN value before the shift
EFFECT_WORDS = {"kkill": "K-KILLed", "mkill": "M-KILLed", "fkill": "F-KILLed", "suppressed": "suppressed",
                "bailed": "crew bailed out", "exit": "must leave the map", "eliminated": "eliminated",
                "ceasefire": "may not fire this turn", "ammo": "spends"}


def _rating(sc: Scenario, firer: str, weapon: str) -> str:
    """The Hit Probability Table entry an HPN comes from: the gun's rating (13.22)."""
    t = data.utype(sc, firer)
    g = next((g for g in t.get("guns", []) if g.get("name") == weapon), t if t.get("rating") else {})
    return f" (rating {g['rating']}, 13.22)" if g.get("rating") else ""


def _morale_roll(ev: F.MoraleChecked) -> str:
    """The die of a morale check against the altered morale: 1 always passes, 10 always fails and a
    second 10 is courage (10.241, 11.242); otherwise roll + casualty DRM against the altered value."""
    r = ev.rolls
    if r[0] == 1:
        return "roll 1 (always passes, 10.241)"
    if r[0] == 10:
        return f"roll 10 (always fails, 10.241), courage roll {r[1]} (10: courage, 11.242)"
    drm = f" +{ev.drm} for C{ev.drm} = {r[0] + ev.drm}" if ev.drm else ""
    return f"roll {r[0]}{drm} vs {ev.altered}"


def _round(i: int, rd: F.Round, need: int) -> str:
    if rd.roll == 0 and not rd.hit:
        parts = [rd.result]
        if rd.suppress_roll:
            parts.append(f"suppression roll {rd.suppress_roll} vs {rd.suppress_number}")
        return "; ".join(parts)
    head = f"round {i}: roll {rd.roll}" if rd.roll else f"round {i}: same hex, hit"
    if not rd.hit:
        return f"{head}, {rd.result or 'miss'}"
    bits = [f"{head}, hit" if rd.roll else head]
    if rd.location:
        bits.append(f"location roll {rd.loc_roll} = {rd.location} ({rd.aspect})")
    if rd.armour or rd.pen:
        bits.append(f"penetration {rd.pen} vs armour {rd.armour} ({rd.pen - rd.armour:+d})")
    if rd.kill_number:
        bits.append(f"K-KILL roll {rd.kill_roll} vs {rd.kill_number} (burn {rd.burn_number})")
    if rd.table:
        num = f" vs {rd.table_number}" if rd.table_number else ""
        bits.append(f"{rd.table} roll {rd.table_roll}{num}")
    if rd.bail_number:
        bits.append(f"bail-out roll {rd.bail_roll} vs {rd.bail_number}"
                    + (f" ({', '.join(rd.bail_drms)})" if rd.bail_drms else ""))
    if rd.suppress_number:
        bits.append(f"suppression roll {rd.suppress_roll} vs {rd.suppress_number}")
    bits.append(rd.result)
    return ", ".join(b for b in bits if b)


def _effects(effects: list[list[str]]) -> str:
    out = []
    for uid, what, detail in effects:
        w = EFFECT_WORDS.get(what, what)
        if what == "kkill":
            w += " (burning wreck)" if detail == "burning" else " (wreck)"
        elif what == "fkill":
            w += f" ({detail})"
        elif what == "ammo":
            kind, n = (detail.split() + ["", ""])[:2]
            w = f"spends {n} {kind.upper()} round{'' if n == '1' else 's'} (17.25)"
        out.append(f"{uid} {w}")
    return "; ".join(out)


SQUAD_STEP = {"1": "casualties marker", "2": "half-squad", "3": "half-squad with casualties marker"}


def _losses(losses: list[list[str]], sc: Scenario) -> str:
    out = []
    for uid, steps, fate in losses:
        c = data.cls(sc, uid) if uid in sc.unit_defs else ""
        if fate:
            out.append(f"{uid} {fate}")
        elif c == "squad":
            out.append(f"{uid} {SQUAD_STEP.get(steps, f'step {steps}')}")
        else:
            out.append(f"{uid} {'wounded' if c == 'leader' else 'reduced'}")
    return ", ".join(out)


def describe(ev: F.Event, sc: Scenario) -> str | None:
    lab = sc.board.label
    match ev:
        case F.GunFired() if ev.ammo == "gunfire":
            rounds = "; ".join(_round(i + 1, r, 0) for i, r in enumerate(ev.rounds))
            eff = f" Result: {_effects(ev.effects)}." if ev.effects else ""
            return f"{ev.weapon} at {ev.target} in {lab(ev.hex)} ({'; '.join(ev.drms)}): {rounds} ({ev.rule}).{eff}"
        case F.GunFired() if ev.rof == 0:
            return (f"{ev.firer}'s {ev.weapon} never fires at {ev.target}: its duel roll {ev.rolls[0]} was the "
                    f"higher and it was knocked out first ({ev.rule}).")
        case F.GunFired():
            how = {"standing order": " by standing order", "answer": " on the player's answer",
                   "final": " (final fire)", "duel": " (gun duel)",
                   "final defence": " (final defensive fire)", "opportunity": " as opportunity fire"}.get(ev.by, "")
            drms = f", DRMs {', '.join(ev.drms)}" if ev.drms else ""
            rounds = "; ".join(_round(i + 1, r, ev.need) for i, r in enumerate(ev.rounds))
            eff = f" Result: {_effects(ev.effects)}." if ev.effects else ""
            bot = " Burst on target placed." if ev.acquired else ""
            hits = [i for i, r in enumerate(ev.rounds) if r.hit]
            more = bool(hits) and any(r.roll for r in ev.rounds[hits[0] + 1:])   # rounds after the first hit
            notes = [n for n in ev.rof_notes if more or not n.startswith("hit: burst on target")]
            rof = f" ({'; '.join(notes)})" if notes else ""
            after = f" ({ev.need_after} or less once hit)" if ev.need_after and more else ""
            return (f"{ev.firer} fires its {ev.weapon} ({ev.ammo}){how} at {ev.target} in {lab(ev.hex)}, range "
                    f"{ev.range}: HPN {ev.hpn}{_rating(sc, ev.firer, ev.weapon)}{drms}: hits on {ev.need} or less{after}, {ev.rof} round"
                    f"{'s' if ev.rof != 1 else ''}{rof}: {rounds} ({ev.rule}).{eff}{bot}")
        case F.CasualtyAttack():
            who = f"{'+'.join(ev.firers)} " if ev.firers else ""
            parts = f" ({', '.join(ev.parts)})" if ev.parts else ""
            # a line-of-sight label keeps its HPN value ("wreck in the line +1"); as a shift only the columns count
            sh = ", shifts " + ", ".join(LOS_VALUE.sub(r"\1", x) for x in ev.shifts) if ev.shifts else ""
            col = f"column {ev.column}" if ev.column else "off the table"
            res = f"C{ev.result}" if ev.result else "no effect"
            loss = f": {_losses(ev.losses, sc)}" if ev.losses else ""
            how = {"standing order": "opportunity fire by standing order: ", "answer":
                   "opportunity fire on the player's answer: ", "final": "final opportunity fire: ",
                   "opportunity": "opportunity fire: "}.get(ev.by, "")
            return (f"{how}{who}{ev.source} at {lab(ev.hex)}: {ev.factors} factors{parts}{sh}; {col}, roll "
                    f"{ev.roll}: {res}{loss} ({ev.rule}).")
        case F.MoraleChecked():
            if not ev.rolls:
                mods = f" ({', '.join(ev.mods)})" if ev.mods else ""
                return f"{ev.unit}: morale {ev.morale}, altered {ev.altered}{mods}: {ev.result} ({ev.rule})."
            mods = f", {', '.join(ev.mods)}" if ev.mods else ""
            alt = f"{mods} = {ev.altered}" if ev.mods else ""
            return (f"{ev.unit} checks morale ({ev.why}): morale {ev.morale}{alt}; "
                    f"{_morale_roll(ev)}: {ev.result} ({ev.rule}).")
        case F.SuppressionChecked():
            return (f"{ev.unit} tries to remove its Suppressed marker: roll {ev.rolls[0]} vs {ev.morale}: "
                    f"{'removed' if ev.removed else 'stays'} (13.1131).")
        case F.AssaultDeclared():
            lead = f" with {ev.leader}" if ev.leader else ""
            return f"{ev.unit}{lead} will close assault {ev.vehicle} (23)."
        case F.MeleeRound():
            if not ev.rolls:
                return (f"Melee in {lab(ev.hex)}, round {ev.round}: {ev.attack} against {ev.defence} is "
                        f"{ev.odds}: {_losses(ev.losses, sc)} (22.72, 12.232).")
            loss = f": {_losses(ev.losses, sc)}" if ev.losses else ""
            return (f"Melee in {lab(ev.hex)}, round {ev.round}: attackers {'+'.join(ev.attackers)} {ev.attack} "
                    f"against defenders {'+'.join(ev.defenders)} {ev.defence}, odds {ev.odds}, roll {ev.rolls[0]}: "
                    f"AC{ev.attacker_steps} | DC{ev.defender_steps}{loss} (22.7).")
        case F.MeleeEnded():
            who = sc.side_name(ev.winner) if ev.winner else "nobody"
            more = ""
            if ev.restored:
                more += f"; {', '.join(ev.restored)} rally"
            if ev.eliminated:
                more += f"; {', '.join(ev.eliminated)} eliminated"
            where = f" in {lab(ev.hex)}" if ev.hex else ""
            return f"The melee{where} is over: {who} holds{more} (22.55)."
        case F.CloseAssaulted():
            if not ev.rolls:
                eff = f": {_effects(ev.effects)}" if ev.effects else ""
                return f"{ev.unit}'s close assault on {ev.vehicle}: {ev.result}{eff} (23)."
            return (f"{ev.unit} close assaults {ev.vehicle}: number {ev.value} ({', '.join(ev.mods)}), roll "
                    f"{ev.rolls[0]}: {ev.result} (23.33).")
        case F.Overrun():
            bits = [f"{ev.afv} overruns {ev.unit} in {lab(ev.hex)}: {ev.result}"]
            if ev.morale_loss:
                bits.append(f"its morale is {ev.morale_loss} lower this turn")
            if ev.rolls:
                bits.append(f"track roll {', '.join(map(str, ev.rolls))}")
            if ev.effects:
                bits.append(_effects(ev.effects))
            return "; ".join(bits) + " (21)."
        case F.WeaponCaptured():
            return f"{ev.unit} is captured by {ev.by} ({sc.side_name(ev.side)}) (11.82)."
    return None
