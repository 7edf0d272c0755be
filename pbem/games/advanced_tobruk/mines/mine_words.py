"""Words for the minefield events (31.1), with their rule numbers; the personnel
attack is a CasualtyAttack, worded by fire_words.py."""
from __future__ import annotations

from pbem.core.scenario import Scenario
from pbem.games.advanced_tobruk.mine_events import MineAttack, MineCleared, MineEntered, MinesSearched

MOVES = {"crawl": "crawling", "assault": "by assault movement", "run": "running", "cross": "cross-country"}
EFFECTS = {"mkill": "{u} M-KILLed", "kkill": "{u} K-KILLed", "fkill": "{u} F-KILLed", "bailed": "{u}'s crew bails out"}


def describe(ev, sc: Scenario, origin: str | None = None) -> str | None:
    lab = sc.board.label
    match ev:
        case MineEntered():
            who = "+".join(ev.units)
            head = f"{who} enter{'s' if len(ev.units) == 1 else ''} {lab(ev.hex)} {MOVES.get(ev.move, ev.move)}"
            bits = []
            if ev.placed:
                bits.append(f"a hidden {sc.side_name(ev.side)} minefield is there: its counter is placed "
                            "(31.15, 31.201)")
            if ev.how == "dummy":
                bits.append("the minefield is revealed as a DUMMY: no mines; it still restricts movement (31.191)")
                if ev.lane:
                    bits.append("a lane marker is placed (31.191, 31.174)")
                return f"{head}: " + "; ".join(bits) + "."
            bits.append(f"the minefield's density is {ev.density} (counter turned over, 31.14)")
            if ev.how == "attacked":
                why = {"31.201": "entered by running or cross-country movement",
                       }.get(ev.rule, "a movement type not allowed for forcing (personnel crawl, vehicles assault)")
                bits.append(f"{why}: attacked by the mines ({ev.rule})")
            else:
                drm = f" {ev.drm:+d} (entered without crawling, 31.15)" if ev.drm else ""
                rolls = ", ".join(f"{u} {r}{drm}" for u, r in zip(ev.units, ev.rolls))
                res = "forced" if not ev.failed else f"{', '.join(ev.failed)} failed: attacked"
                rules = ", ".join(dict.fromkeys([ev.rule, "31.173"] + (["31.18"] if ev.failed else [])))
                bits.append(f"forcing roll{'s' if len(ev.rolls) > 1 else ''} {rolls} must be greater than "
                            f"{ev.density}: {res} ({rules})")
            if ev.lane:
                bits.append("a vehicle forced it: lane marker placed (31.174)")
            return f"{head}: " + "; ".join(bits) + "."
        case MineAttack():
            eff = "; ".join(EFFECTS.get(w, "{u} " + w).format(u=u) + (" (burning wreck)" if d == "burning" else "")
                            for u, w, d in ev.effects)
            bail = ""
            if ev.bail_number:
                drms = f" ({', '.join(ev.bail_drms)})" if ev.bail_drms else ""
                bail = f"; bail-out roll {ev.rolls[0]} vs {ev.bail_number}{drms} (13.81)"
            return f"Mines in {lab(ev.hex)} attack {ev.unit}: {eff}{bail} (31.18)."
        case MinesSearched():
            found = (f"hidden minefield{'s' if len(ev.found) > 1 else ''} found and placed in "
                     f"{', '.join(lab(h) for h in ev.found)} (density unknown)") if ev.found else "nothing found"
            return f"{ev.unit} spends the Movement Segment searching around {lab(ev.hex)} for mines: {found} (31.211)."
        case MineCleared():
            return f"The minefield in {lab(ev.hex)} is cleared by {ev.why} (31.212)."
    return None
