"""Report words for indirect fire's events (18-20): every roll with its modifiers."""
from __future__ import annotations

from pbem.core.scenario import Scenario
from pbem.games.advanced_tobruk import arty_events as X

WHAT = {"concentration": "a concentration (7 hexes, 18.6)", "barrage": "a barrage (18.7)",
        "rolling": "a rolling barrage (18.73)", "smoke": "smoke", "mortar": "mortar fire (19)",
        "gun": "on-board indirect fire (20)"}


def _acc(ev: X.IndirectFired, lab) -> str:
    if not ev.rolls:
        return f"no accuracy roll: it continues in or next to its hex (18.32), down in {lab(ev.final)}"
    drm = " " + " ".join(ev.drms)
    where = "on target" if not ev.off else f"{ev.off} hex{'es' if ev.off > 1 else ''} {ev.toward}"
    total = f"{drm} = {ev.total}" if ev.drms else ""
    return (f"accuracy dice {ev.rolls[0] % 10},{ev.rolls[1] % 10} = {ev.pct}{total}: {where}, "
            f"final hex {lab(ev.final)}")


def describe(ev, sc: Scenario, origin: str | None = None) -> str | None:
    lab = sc.board.label
    name = sc.side_name
    match ev:
        case X.ContactRolled():
            drm = (" " + " ".join(ev.drms)) if ev.drms else ""
            total = ev.roll + sum(int(d.split()[0]) for d in ev.drms)
            if ev.purpose == "lift":
                return (f"{ev.battery}'s rolling barrage, due to lift: contact roll {ev.roll}{drm} = {total} against "
                        f"{ev.need}: {'lifted' if ev.ok else 'it goes on into the next turn'} (18.733).")
            res = "contact made (18.221)" if ev.ok else "NO FIRE (18.221)" + \
                (", its CFF marker removed (18.223)" if ev.drop else "")
            roll = f"{ev.roll}{drm} = {total}" if ev.drms else f"{ev.roll}"
            return f"{ev.battery} battery contact roll {roll} against {ev.need}: {res}."
        case X.IndirectFired() if ev.what == "smoke" and ev.source in sc.unit_defs:
            by = f" spotted by {ev.spotter}" if ev.spotter else ""
            return f"{ev.source} fires smoke at {lab(ev.aimed)}{by}, {ev.range} hexes (20.35)."
        case X.IndirectFired():
            by = f", called by {ev.spotter}" if ev.spotter else ""
            rng = f" ({ev.range} hexes)" if ev.range else ""
            what = WHAT.get(ev.what, ev.what)
            if ev.smoke:
                what = "smoke shells (20.36)"
            ffe = " (one FFE of its allotment)" if ev.ffe else ""
            line = f"{ev.source}: {what} at {lab(ev.aimed)}{rng}{by}{ffe}; {_acc(ev, lab)}"
            if not ev.smoke:
                rolls = sum(ev.dh)
                line += (f"; {len(ev.hexes)} hex{'es' if len(ev.hexes) > 1 else ''}, {rolls} direct-hit roll"
                         f"{'s' if rolls > 1 else ''} due (made where units or a known minefield are), hit on "
                         f"{ev.need} or less, {ev.frag} FRAG")
            if ev.ends:
                line += f"; barrage limits {lab(ev.ends[0])} and {lab(ev.ends[1])}"
            return line + f" ({ev.rule})."
        case X.DirectHitRolled():
            total = ev.roll + ev.drm
            roll = f"{ev.roll} {ev.drm:+d} LOS (20.03) = {total}" if ev.drm else f"{ev.roll}"
            if not ev.units:
                res = "no unit it could hit" if total <= ev.need else "miss"
            else:
                rolls = ", ".join(f"{u} {r}" + (f" (cover +{d})" if d not in ("", "0") else "")
                                  for u, r, d in ev.units if r) if len(ev.units) > 1 else ""
                who = f"units roll {rolls}; " if rolls else ""
                covers = [f"{u} +{d}" for u, r, d in ev.units if d not in ("", "0")]
                if covers and not rolls:
                    who = f"cover {', '.join(covers)} (31.03); "                # the cover DRM shown
                if ev.hit:
                    res = f"{who}direct hit on {', '.join(ev.hit)}"
                else:
                    res = f"{who}the cover saves it" if total <= ev.need else "miss"
            return f"{ev.source} direct-hit roll in {lab(ev.hex)}: {roll} against {ev.need}: {res} ({ev.rule})."
        case X.VehicleStruck():
            bits = []
            if ev.location:
                bits.append(f"location {ev.location}, roll {ev.rolls[0]}")
            if ev.aspect:
                bits.append(f"{ev.aspect} armour {ev.armour} against HE penetration {ev.pen}, halved per 19.15")
            if ev.kill_number:
                bits.append(f"K-KILL on less than {ev.kill_number}, rolled {ev.rolls[1]}" +
                            (f", burning on {ev.burn_number} or less" if ev.result.startswith("K-KILL") else ""))
            if ev.burn_number and ev.how in ("open", "soft"):
                bits.append(f"burns on {ev.burn_number} or less, rolled {ev.rolls[0]}")
            if ev.suppress_number:
                bits.append(f"suppression on {ev.suppress_number} or less, rolled {ev.rolls[-1]}")
            if ev.column:
                bits.append(f"Non-AFV table column {ev.column}, rolled {ev.rolls[0]}")
            how, rule = {"afv": ("direct hit", ""), "open": ("direct hit on an open-topped AFV", "19.21"),
                         "soft": ("direct hit on a vehicle", "19.22"), "weapon": ("direct hit on a weapon", "19.31"),
                         "suppression": ("HE fire: suppression check", "19.15, 30.02"),
                         "soft-frag": ("FRAG on a vehicle", "19.22")}.get(ev.how, (ev.how, ""))
            detail = f" ({'; '.join(bits + [rule] if rule else bits)})" if bits or rule else ""
            res = ev.result
            if how.startswith("direct hit") and res.startswith("direct hit: "):
                res = res[len("direct hit: "):]             # not "direct hit on a weapon (19.31): direct hit: F-KILL"
            return f"{ev.source} on {ev.unit}: {how}{detail}: {res}."
        case X.SmokePlaced():
            if ev.roll:
                drm = (" " + " ".join(ev.drms)) if ev.drms else ""
                res = f"smoke counter '{ev.shows}' placed (one turn, 20.363)" if ev.shows else "no smoke placed"
                return f"{ev.source} smoke direct-hit roll {ev.roll}{drm} against {ev.need} in {lab(ev.hex)}: {res} (20.35)."
            return f"{ev.source} smoke in {lab(ev.hex)}: counter showing '{ev.shows}' (two turns, 20.362)."
        case X.BatteryLocated():
            res = "located for the rest of the game" if ev.located else "not located"
            return f"{name(ev.by)} tries to locate {ev.battery}: roll {ev.roll} against {ev.need}: {res} (18.1151)."
        case X.CounterBattery() if ev.ended:
            until = f"; {ev.target} stays neutralized through turn {ev.until}" if ev.until else ""
            return f"{ev.battery} ends its counter-battery fire on {ev.target}{until} (18.1153)."
        case X.CounterBattery():
            return (f"{ev.battery} opens counter-battery fire on {ev.target}: neutralized from turn "
                    f"{ev.start + 2} as long as it is kept up (18.1152).")
        case X.IndirectTurnEnded():
            bits = []
            if ev.flipped:
                bits.append(f"FFE back to CFF: {', '.join(ev.flipped)} (5.41)")
            if ev.cleared:
                bits.append(f"barrage markers removed: {', '.join(ev.cleared)}")
            if ev.lifted:
                bits.append(f"rolling barrage lifted: {', '.join(ev.lifted)} (18.733)")
            if ev.smoke_gone:
                bits.append(f"smoke '2' removed in {', '.join(lab(h) for h in ev.smoke_gone)}")
            if ev.smoke_aged:
                bits.append(f"smoke turned to '2' in {', '.join(lab(h) for h in ev.smoke_aged)} (20.364)")
            return ("End of turn, indirect fire: " + "; ".join(bits) + ".") if bits else ""   # nothing to say
    return None
