"""Advanced Tobruk's words for its events in the reports, with rule numbers; the
fire package words its own (fire_words.py); the core events keep the core wording."""
from __future__ import annotations

from pbem.core.scenario import Scenario
from pbem.games.advanced_tobruk.artillery import arty_words, indirect
from pbem.games.advanced_tobruk import events as E
from pbem.games.advanced_tobruk.fog import fog_words
from pbem.games.advanced_tobruk.mines import mine_words
from pbem.games.advanced_tobruk.board import perimeter_words
from pbem.games.advanced_tobruk.board.facing import SPINES
from pbem.games.advanced_tobruk.fire.fire_words import describe as fire_words

PHASES = {"setup": "set-up (2.48)", "register": "registrations, after all set-up (18.51, 19.6)", "indirect": "Indirect Fire Phase (5.11; no indirect fire in this scenario)",
          "direct-fire": "Direct Fire Phase (5.12)", "movement": "Movement Segment (5.2)",
          "final-fire": "Final Opportunity Fire (6.65)", "infiltration": "Infiltration Phase (5.34)",
          "melee": "Melee Phase (5.35)", "end": "End of Turn Segment (5.4)"}


def _sp(n: int) -> str:
    return SPINES[n] if 0 <= n < 6 else "-"


def describe(ev: E.Event, sc: Scenario, origin: str | None = None) -> str | None:
    for words in (own_words(ev, sc), arty_words.describe(ev, sc, origin), fog_words.describe(ev, sc, origin),
                  mine_words.describe(ev, sc, origin), perimeter_words.describe(ev, sc, origin)):
        if words is not None:
            return words
    return fire_words(ev, sc)


def own_words(ev: E.Event, sc: Scenario) -> str | None:
    lab = sc.board.label
    name = sc.side_name
    match ev:
        case E.PhaseStarted():
            if ev.name == "indirect" and indirect.enabled(sc):
                return f"Turn {ev.turn}: Indirect Fire Phase (5.11); {name(ev.side)} first."
            if ev.name in PHASES:
                return f"Turn {ev.turn}: {PHASES[ev.name]}; {name(ev.side)} first."
            return None
        case E.FirstRolled():
            pairs = [ev.rolls[i:i + 2] for i in range(0, len(ev.rolls), 2)]
            txt = "; ".join(", ".join(f"{name(s)} {r}" for s, r in zip(ev.sides, p)) for p in pairs)
            tie = " (ties rolled again)" if len(pairs) > 1 else ""
            return f"First-{'move' if ev.phase == 'movement' else 'fire'} roll for the {ev.phase} phase: {txt}{tie}; " \
                   f"{name(ev.first)} rolled lower and goes first (5.031)."
        case E.Passed():
            why = " (nothing left it could do)" if ev.auto else ""
            return f"{name(ev.side)} has finished the {ev.phase} phase{why} (5.131, 5.22)."
        case E.Acted():
            tail = " (grenades: they may still infiltrate, 22.11)" if ev.what == "grenade" else ""
            return f"{name(ev.side)} activation done: {', '.join(ev.units)}{tail}."
        case E.Faced():
            bits = []
            if ev.facing >= 0:
                bits.append(f"faces {_sp(ev.facing)}")
            if ev.turret >= 0:
                bits.append(f"turret {_sp(ev.turret)}")
            how = "at set-up (6.522)" if ev.setup else "in place, free (6.532, 12.232)"
            return f"{ev.unit} {' and '.join(bits) or 'turret straight'} {how}."
        case E.MoveBegan():
            return f"{'+'.join(ev.units)} begin{'s' if len(ev.units) == 1 else ''} {ev.move} movement (6.41, 6.51)."
        case E.Stepped():
            who = "+".join(ev.units)
            f = f", facing {_sp(ev.facing)}" if ev.facing >= 0 else ""
            t = f", turret {_sp(ev.turret)}" if ev.turret >= 0 and ev.turret != ev.facing else ""
            if ev.what == "pivot":
                act = f"pivot{'s' if len(ev.units) == 1 else ''} in {lab(ev.hex)}"
            elif ev.what == "turret":
                act = f"turns its turret in {lab(ev.hex)}"
            elif ev.what == "overrun":
                act = f"stays in {lab(ev.hex)} to overrun another unit"
            elif ev.what == "reverse":
                act = f"reverses into {lab(ev.hex)}"
            elif ev.what == "cover":
                one = len(ev.units) == 1
                act = {"full": f"go{'es' if one else ''} under cover", "top": f"come{'s' if one else ''} out"
                       }.get(ev.cover, f"go{'es' if one else ''} up to a GOOD position") + f" in {lab(ev.hex)}"
            else:
                act = f"enter{'s' if len(ev.units) == 1 else ''} {lab(ev.hex)}"
                act += ", still under cover (31.256)" if ev.cover == "full" else ""
            return f"{who} {act} ({ev.terrain}: {ev.cost} MP, {ev.spent} spent{f}{t}) (6.31, 6.52)."
        case E.MoveEnded():
            tail = ", continued movement declared (6.54)" if ev.continued else ""
            pin = ", pinned down (11.41)" if ev.pinned else ""
            return f"{'+'.join(ev.units)} end{'s' if len(ev.units) == 1 else ''} the move{tail}{pin}."
        case E.UnitExited():
            how = ", by an exit edge of the victory conditions: it scores as if destroyed" if ev.vp else ""
            return f"{ev.unit} leaves the map from {lab(ev.hex)}{how} (2.46, 6.1)."
        case E.StandingOrderSet() if not ev.mode:          # another side's order, redacted (views.py)
            return f"{name(ev.side)} sets a standing opportunity-fire order (private to its side, 6.6)."
        case E.StandingOrderSet():
            who = ev.unit or f"{name(ev.side)} (side default)"
            rng = f" within {ev.range} hexes" if ev.range else ""
            what = {"ask": "ask before firing", "hold": "hold fire", "any": f"fire at any mover{rng}",
                     "afv": f"fire at moving AFVs only{rng}", "clear": "follows the side's order again"
                     }.get(ev.mode, "ask before firing")
            duel = "; answers direct fire with a gun duel (17.3)" if ev.duel else ""
            duel += "; drops into FULL cover when fired on (15.22)" if ev.drop else ""
            return f"Standing opportunity-fire order: {who}: {what}{duel} (6.6)."
        case E.MovePaused():
            who = "+".join(ev.units) + (" stops" if len(ev.units) == 1 else " stop")
            with_ = f" with {', '.join(ev.firers)}" if ev.firers else ""      # no firers: redacted (views.py)
            ahead = [h for h in (x[5:] if x.startswith("back:") else x for x in ev.remaining)
                     if len(h) == 4 and h.isdigit()]
            path = f"; the path ahead: {' '.join(lab(h) for h in ahead)}" if ahead else "; the move ends there"
            return (f"{who} in {lab(ev.hex)} ({ev.spent_here} MP spent there{path}): {name(ev.side)} may fire"
                    f"{with_} there or in a hex ahead, one answer for the whole path, or pass (6.6, 6.64).")
        case E.OpportunityPlanned() if not ev.firers:        # the other side's plan, redacted (views.py)
            return f"{name(ev.side)} plans opportunity fire at the mover; the answer goes on (6.6)."
        case E.OpportunityPlanned():
            return (f"{name(ev.side)} plans {'+'.join(ev.firers)}'s opportunity fire at the mover in {lab(ev.hex)}; "
                    f"the answer goes on (6.6).")
        case E.OpportunityPassed():
            return f"{', '.join(ev.firers)} hold{'s' if len(ev.firers) == 1 else ''} fire at {ev.target} in " \
                   f"{lab(ev.hex)}{f' ({ev.by})' if ev.by else ''}."
        case E.Infiltrated():
            m = ": melee marker, it attacks (5.32, 22.31)" if ev.melee else ""
            return f"{ev.unit} infiltrates into {lab(ev.hex)}{m} (5.34)."
        case E.TurnEnded():
            return f"End of turn {ev.turn}: F, movement (not continued), melee and pinned markers removed (5.41)."
        case E.VictoryCounted():
            tally = ", ".join(f"{name(s)} {v}" for s, v in ev.vp.items())
            return f"Victory points: {tally}" + (f" ({'; '.join(ev.items)})" if ev.items else "") + " (2.45)."
    return None
