"""Reports for people: text (Jinja templates), the SVG map, and email.

Everything here formats what views.py lets a side see; nothing here decides.
"""
from __future__ import annotations

from typing import TYPE_CHECKING

from pbem.core import events as E
from pbem.engine import Entry, Game
from pbem.core.scenario import ROOT, Scenario
from pbem.core.state import GameState
from pbem.games import ruleset_for
from pbem.report.words import core_words
from pbem.views import REFEREE, state_view, visible_event

if TYPE_CHECKING:
    from email.message import EmailMessage

    from jinja2 import Environment

# Jinja and email are imported where a report is rendered: describing an event
# (`pbem order`, `pbem log`) needs neither.
TEMPLATES = ROOT / "templates"
_env: Environment | None = None


def env() -> Environment:
    global _env
    if _env is None:
        from jinja2 import Environment, FileSystemBytecodeCache, FileSystemLoader, StrictUndefined
        # The compiled templates are cached in Jinja's per-user folder ($TMPDIR/_jinja2-cache-UID,
        # 0700, refused unless the user's own; keyed by the template's checksum): a report
        # command then skips compiling report.txt.j2 (~11 ms of every `pbem report`).
        _env = Environment(loader=FileSystemLoader(str(TEMPLATES)), undefined=StrictUndefined,
                           trim_blocks=True, lstrip_blocks=True, keep_trailing_newline=True, autoescape=False,
                           bytecode_cache=FileSystemBytecodeCache())
    return _env


def describe(ev: E.Event, sc: Scenario, viewer: str, origin: str | None = None) -> str:
    """One line of plain English for an event as ``viewer`` may see it.

    Every text a side receives about an event is made here, and the event is
    passed through the per-side view first (views.visible_event), so no caller
    can describe an event without redacting it.  The game words it
    (``Ruleset.describe_event``, with its rule numbers); else the core wording.
    ``origin`` is where the unit stood before the event, when the caller knows."""
    rules = ruleset_for(sc.game)
    ev = visible_event(ev, viewer, rules)
    text = rules.describe_event(ev, sc, origin)
    return text if text is not None else core_words(ev, sc, origin)


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
    faced = faces(game, st, view["units"], side)
    given = any("values" in (u.get("face") or {}) for u in faced)
    width = max([len(str(u["face"]["values"])) for u in faced if "values" in (u.get("face") or {})] + [0])
    for u in faced:                 # the SITUATION table's values: the game's (aligned), else strength-MA
        f = u.get("face") or {}
        u["values"] = str(f["values"]).ljust(width) if given and "values" in f else (
            f"{u['strength']}-{u['ma']}".ljust(width) if given else f"{u['strength']}-{u['ma']}")
    for s in sc.sides:
        rows = sorted((u for u in faced if u["side"] == s.id), key=lambda u: (u["hex"] is None, u["hex"] or "", u["id"]))
        by_side[s.id] = rows
    return {"v": view, "sc": sc, "side": side, "side_name": sc.side_name(side) if side != REFEREE else "Referee",
            "happened": happened, "since": since, "units_by_side": by_side, "label": sc.board.label,
            "side_name_of": sc.side_name, "order_example": game.rules.order_example,
            "notes": game.rules.report_notes(st, sc, side),
            # the SITUATION columns: at least 9 wide, wider when an id or a type is longer
            "id_width": max([9] + [len(u["id"]) for u in view["units"]]),
            "type_width": max([9] + [len(u.get("type") or "") for u in view["units"]])}


def faces(game: Game, st: GameState, rows: list[dict], viewer: str) -> list[dict]:
    """``rows`` (as ``viewer`` sees them) each with the game's ``face`` where it gives one
    (``Ruleset.counter_face``: values, front, turret, status markers, wreck); copies."""
    rules, sc = game.rules, game.scenario
    out = []
    for r in rows:
        f = rules.counter_face(st, sc, r, viewer)
        out.append(dict(r, face=f) if f else dict(r))
    return out


def shots_since(game: Game, st: GameState, entries: list[Entry], since: int, viewer: str) -> list[dict]:
    """The shots of the events after ``since`` up to the state's, as ``viewer`` sees them (``Ruleset.map_shots``)."""
    rules = game.rules
    events = [visible_event(en.event, viewer, rules) for en in entries if since < en.seq <= st.seq]
    return rules.map_shots(st, game.scenario, events, viewer) if events else []


def report_text(game: Game, side: str, st: GameState, entries: list[Entry], since: int, head: str) -> str:
    return env().get_template("report.txt.j2").render(**report_context(game, side, st, entries, since, head))


def report_svg(game: Game, side: str, st: GameState, entries: list[Entry], since: int, head: str) -> str:
    """The map as ``side`` may see it: units, this report's moves, the hexes
    under attack, and what decides the game (``marks.marks_for``: objectives,
    areas, score; turn and phase under the title; eliminated units boxed)."""
    from pbem.report.mapsvg import render_svg
    from pbem.report.marks import info_line, marks_for
    view = state_view(game, st, side, head)
    sc = game.scenario
    if st.result is not None:
        when = f"game over, {sc.side_name(st.result.winner)} wins"
    else:
        when = f"turn {st.turn}, {sc.side_name(view['phase_side'])} {view['phase']}"
    title = f"{sc.title} - {when} - seq {st.seq} - head {head[:12]}"
    highlight = [a.target for a in st.attacks] if st.attacks else []
    marks = marks_for(game, st, side)
    return render_svg(game.scenario, faces(game, st, view["units"], side),
                      moves=moves_since(entries, since, {u.id: u.hex for u in game.scenario.units}),
                      title=title, highlight=highlight, marks=marks, info=info_line(view, marks, sc),
                      shots=shots_since(game, st, entries, since, side))


def wants_svg(svg: bool | str, st: GameState) -> bool:
    """Whether the SVG goes along: ``True``, ``False`` or ``"final"`` (only
    once the game is over, the report a player keeps)."""
    return svg is True or (svg == "final" and st.result is not None)


def map_attachments(game: Game, side: str, st: GameState, entries: list[Entry], since: int, head: str, *,
                    png: bool = True, svg: bool | str = "final", width: int | None = None) -> list:
    """The map as a report mail carries it: one PNG sized for a mail client
    (``pbem.report.png.svg_to_png``) and the SVG only when ``svg`` asks for it
    (see ``wants_svg``).  The map is not even drawn when neither goes."""
    from pbem.host import mail as M
    from pbem.report.png import MAP_WIDTH, svg_to_png
    with_svg = wants_svg(svg, st)
    if not (png or with_svg):
        return []
    drawing = report_svg(game, side, st, entries, since, head)
    name = f"{game.game_id}-seq{st.seq}-{side}"
    out = []
    if png:
        data = svg_to_png(drawing, width or MAP_WIDTH)
        if data:
            out.append(M.Attachment(data, "image", "png", name + ".png"))
    if with_svg or (png and not out):             # no PNG could be made: the SVG is the only map
        out.append(M.Attachment(drawing.encode("utf-8"), "image", "svg+xml", name + ".svg"))
    return out


def report_eml(game: Game, side: str, st: GameState, entries: list[Entry], since: int, head: str,
               sender: str = "pbem@localhost", to: str | None = None, svg: bool | str = "final") -> EmailMessage:
    """A complete email as the host's report mails are: the text report as
    the body, the map as one PNG, the SVG as ``svg`` says (``map_attachments``)."""
    from email.message import EmailMessage
    from email.utils import formatdate, make_msgid
    text = report_text(game, side, st, entries, since, head)
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
    for a in map_attachments(game, side, st, entries, since, head, svg=svg):
        msg.add_attachment(a.data, maintype=a.maintype, subtype=a.subtype, filename=a.filename)
    return msg
