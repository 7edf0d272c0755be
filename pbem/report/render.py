"""Reports for people: text (Jinja templates), the SVG map, and email.

Everything here formats what views.py lets a side see; nothing here decides.
"""
from __future__ import annotations

from email.message import EmailMessage
from email.utils import formatdate, make_msgid

from jinja2 import Environment, FileSystemLoader, StrictUndefined

from pbem.core import events as E
from pbem.engine import Entry, Game
from pbem.core.scenario import ROOT, Scenario
from pbem.core.state import GameState
from pbem.views import REFEREE, state_view, visible_event

TEMPLATES = ROOT / "templates"
_env: Environment | None = None


def env() -> Environment:
    global _env
    if _env is None:
        _env = Environment(loader=FileSystemLoader(str(TEMPLATES)), undefined=StrictUndefined,
                           trim_blocks=True, lstrip_blocks=True, keep_trailing_newline=True, autoescape=False)
    return _env


def describe(ev: E.Event, sc: Scenario, viewer: str, origin: str | None = None) -> str:
    """One line of plain English for an event as ``viewer`` may see it, with rule numbers.

    Every text a side receives about an event is made here, and the event is
    passed through the per-side view first (views.visible_event), so no caller
    can describe an event without redacting it.  ``origin`` is where the unit
    stood before the event, when the caller knows."""
    ev = visible_event(ev, viewer)
    lab = sc.board.label
    name = sc.side_name
    own = _game_describe(ev, sc)
    if own is not None:
        return own
    match ev:
        case E.PhaseStarted():
            return f"Turn {ev.turn}: {name(ev.side)} {ev.name} phase begins."
        case E.UnitMoved():
            via = f" via {' '.join(ev.path[:-1])}" if len(ev.path) > 1 else ""
            start = f" from {origin}" if origin else ""
            return f"{ev.unit} moves{start}{via} to {lab(ev.path[-1])} ({ev.cost or ev.mp} of {ev.ma} MP)."
        case E.UnitBrokeOff():
            return f"{ev.unit} breaks off the {ev.edge} map edge at {ev.hex} (4.2)."
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
        case E.UnitPlaced():
            return f"{ev.unit} is set up in {lab(ev.hex)} (1.2)."
        case E.AirDropped():
            if ev.result == "Ac":
                how = "lands on target"
            else:
                how = f"scatters {ev.direction}" + (f" into {lab(ev.hex)}" if ev.hex else " off the map")
            return (f"{ev.unit} drops on {lab(ev.target)} ({ev.column}); die {', '.join(map(str, ev.rolls))}: "
                    f"{how} (5.0).")
        case E.UnitLanded():
            return f"{ev.unit} air-lands on {lab(ev.hex)} (6.0)."
        case E.TrackEntered():
            via = f" via {' '.join(ev.path)}" if ev.path else ""
            return (f"{ev.unit} moves{via} into the {ev.track} transit track ({ev.cost} of {ev.ma} MP), "
                    f"bound for {ev.exit} (7.0).")
        case E.CombatOpened():
            air = f" with air {', '.join(ev.air)}" if ev.air else ""
            return (f"{name(ev.side)} {ev.mode}: {', '.join(ev.attackers)}{air} against {', '.join(ev.defenders)} "
                    f"in {', '.join(ev.hexes)} on the {ev.table} table (9.1, 10.5).")
        # --- Panzer Corps sister games: set-up, reinforcements, points, connecting lines ---
        case E.HiddenDraw():
            per: dict[int, int] = {}
            for t in ev.slots:
                per[t] = per.get(t, 0) + 1
            text = (f"The {len(ev.slots)} {ev.name} reinforcements are shuffled face down onto the turn track: "
                    + ", ".join(f"{n} on turn {t}" for t, n in sorted(per.items()))
                    + "; which is which stays hidden until each enters (3.0(4), 10.0(2)).")
            if ev.units:
                text += " Referee only: " + "; ".join(f"turn {t} {u}" for t, u in zip(ev.slots, ev.units)) + "."
            return text
        case E.UnitSetUp():
            return f"{ev.unit} is set up in {lab(ev.hex)} ({ev.rule})."
        case E.ReinforcementEntered():
            notes = []
            if ev.mp:
                notes.append(f"{ev.mp} MP already spent")
            if ev.pinned:
                notes.append("in an enemy zone of control: it may not move this turn")
            tail = f"; {'; '.join(notes)}" if notes else ""
            return f"Reinforcement {ev.unit} enters at {lab(ev.hex)}{tail} ({ev.rule})."
        case E.ReinforcementDelayed():
            who = ", ".join(ev.units) if ev.units else f"{ev.count} face-down unit(s)"
            how = "cannot enter (no open entry hex) and wait" if ev.forced else "wait for a later turn"
            return f"Reinforcements {how}: {who} ({ev.rule})."
        case E.BombardmentRolled():
            return (f"Naval bombardment: die {', '.join(map(str, ev.rolls))}: {ev.count} Italian units "
                    f"may be disrupted ({ev.rule}).")
        case E.UnitsDisrupted():
            return f"Disrupted by {ev.reason}: {', '.join(ev.units)} ({ev.rule})."
        case E.PointsScored():
            return f"{name(ev.side)} {ev.points:+d} point(s): {ev.reason} ({ev.rule})."
        case E.HexControlled():
            marker = f"; marker: {ev.marker}" if ev.marker else ""
            return f"{name(ev.side)} now controls {lab(ev.hex)}{marker} ({ev.rule})."
        case E.ConnectingLine():
            if ev.traced:
                via = f" via {' '.join(ev.path[1:-1])}" if len(ev.path) > 2 else ""
                note = f"; {ev.note}" if ev.note else ""
                return f"Connecting line of {ev.subject} ({ev.start}): traced to {ev.to}{via}{note} ({ev.rule})."
            note = f": {ev.note}" if ev.note else ""
            return f"Connecting line of {ev.subject} ({ev.start}): CUT{note} ({ev.rule})."
        case E.GameCreated():
            return f"Game {ev.game_id} created from scenario {ev.scenario_id}."
    return type(ev).__name__


def _game_describe(ev: E.Event, sc: Scenario) -> str | None:
    """A game's own wording for an event, if its rules offer describe_event (None: use the default)."""
    from pbem.games import UnknownGame, ruleset_for
    try:
        rules = ruleset_for(sc.game)
    except UnknownGame:
        return None
    hook = getattr(rules, "describe_event", None)
    return hook(ev, sc) if hook is not None else None


def moves_since(entries: list[Entry], since: int, start: dict[str, str | None]) -> list[dict]:
    """Paths (start hex included) moved, retreated or advanced after ``since``, for the map."""
    where = dict(start)
    out = []
    for en in entries:
        ev = en.event
        if isinstance(ev, E.GameCreated):
            continue
        path = getattr(ev, "path", None)
        unit = getattr(ev, "unit", None)
        if en.seq > since and path and unit and unit in where and where[unit]:
            kind = {"UnitMoved": "move", "UnitRetreated": "retreat", "UnitAdvanced": "advance"}.get(en.kind)
            if kind:
                out.append({"unit": unit, "path": [where[unit]] + list(path), "kind": kind})
        if path and unit:
            where[unit] = path[-1]
    return out


def report_context(game: Game, side: str, st: GameState, entries: list[Entry], since: int, head: str) -> dict:
    sc = game.scenario
    view = state_view(game, st, side, head)
    happened = []
    where = {u.id: u.hex for u in sc.units}
    for en in entries:
        unit, path = getattr(en.event, "unit", None), getattr(en.event, "path", None)
        origin = where.get(unit) if unit else None
        if unit and path:
            where[unit] = path[-1]
        if en.seq <= since or en.seq > st.seq:
            continue
        if isinstance(en.event, E.OrderGiven) and side != REFEREE:
            continue                              # the effects say it better; referee sees orders too
        text = describe(en.event, sc, side, origin)
        if text:
            happened.append({"seq": en.seq, "kind": en.kind, "text": text})
    by_side = {}
    for s in sc.sides:
        rows = sorted((u for u in view["units"] if u["side"] == s.id), key=lambda u: (u["hex"] is None, u["hex"] or "", u["id"]))
        by_side[s.id] = rows
    return {"v": view, "sc": sc, "side": side, "side_name": sc.side_name(side) if side != REFEREE else "Referee",
            "happened": happened, "since": since, "units_by_side": by_side, "label": sc.board.label,
            "side_name_of": sc.side_name}


def report_text(game: Game, side: str, st: GameState, entries: list[Entry], since: int, head: str) -> str:
    return env().get_template("report.txt.j2").render(**report_context(game, side, st, entries, since, head))


def report_svg(game: Game, side: str, st: GameState, entries: list[Entry], since: int, head: str) -> str:
    from pbem.report.mapsvg import render_svg
    view = state_view(game, st, side, head)
    sc = game.scenario
    if st.result is not None:
        when = f"game over, {sc.side_name(st.result.winner)} wins"
    else:
        when = f"turn {st.turn}, {sc.side_name(view['phase_side'])} {view['phase']}"
    title = f"{sc.title} - {when} - seq {st.seq} - head {head[:12]}"
    highlight = [a.target for a in st.attacks] if st.attacks else []
    return render_svg(game.scenario, view["units"], moves=moves_since(entries, since, {u.id: u.hex for u in game.scenario.units}), title=title, highlight=highlight)


def report_eml(game: Game, side: str, st: GameState, entries: list[Entry], since: int, head: str,
               sender: str = "pbem@localhost", to: str | None = None) -> EmailMessage:
    """A complete email: the text report as the body, the map as an attachment."""
    text = report_text(game, side, st, entries, since, head)
    svg = report_svg(game, side, st, entries, since, head)
    from pbem.host.mail import Undeliverable, clean_header, safe_address
    msg = EmailMessage()
    who = game.scenario.side_name(side) if side != REFEREE else "Referee"
    to = to or (st.players.get(side) or sender)
    if not (safe_address(to) and safe_address(sender)):
        raise Undeliverable(f"refusing to write a mail to {to!r} from {sender!r}: not a plain e-mail address")
    msg["Subject"] = clean_header(f"[pbem {game.game_id}] turn {st.turn} report for {who}")
    msg["From"] = sender
    msg["To"] = to
    msg["Date"] = formatdate(localtime=False, usegmt=True)
    msg["Message-ID"] = make_msgid(domain=sender.split("@")[-1] or "localhost")
    msg["X-pbem-Game"] = game.game_id
    msg["X-pbem-Head"] = head
    msg.set_content(text)
    msg.add_attachment(svg.encode("utf-8"), maintype="image", subtype="svg+xml",
                       filename=f"{game.game_id}-seq{st.seq}-{side}.svg")
    return msg
