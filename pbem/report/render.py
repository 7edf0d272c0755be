"""Reports for people: text (Jinja templates), the SVG map, and email.

Everything here formats what views.py lets a side see; nothing here decides.
"""
from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from pbem.core import events as E
from pbem.engine import Entry, Game
from pbem.core.scenario import ROOT, Scenario
from pbem.core.state import GameState
from pbem.core.turn import Turn, step_line
from pbem.games import ruleset_for
from pbem.report.words import core_words
from pbem.views import REFEREE, score_line, state_view, visible_event

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


DRAWN = ("move", "retreat", "advance")         # the motions the map draws (mapsvg.MOVE_STYLES)


def moves_since(entries: list[Entry], since: int, start: dict[str, str | None],
                see: Callable[[E.Event], E.Event] | None = None, shown: set[str] | None = None) -> list[dict]:
    """The trails moved, retreated or advanced after ``since``, for the map, from every
    event's declared motion (``events.Motion``; one code path for every game): one trail
    per event and start hex, ``{unit, units, path, kind}`` with the start hex first (a unit
    that enters the map: the hexes it entered, when more than one); a unit's steps of one move (``Motion.step``) join into one trail.  ``start`` is where
    the units stand before ``entries``; ``see`` gives an event as the viewer may see it
    (``views.visible_event``) and ``shown`` the units the viewer sees (None: every unit):
    a trail shows only those."""
    where = dict(start)
    out: list[dict] = []
    last: dict[str, dict] = {}                  # unit -> the step trail it may go on with
    for en in entries:
        ev = en.event
        m = ev.motion
        if m is None or isinstance(ev, E.GameCreated):
            continue
        units = E.moved_units(ev)
        hexes = E.moved_to(ev)
        if en.seq > since and m.kind in DRAWN and hexes:
            seen = set(E.moved_units(see(ev))) if see is not None else set(units)
            groups: dict[str, list[str]] = {}     # start hex -> the units that leave it, the top one first
            for u in units:
                if u in seen and (shown is None or u in shown):
                    groups.setdefault(where.get(u) or "", []).append(u)
            for frm, us in groups.items():
                t = last.get(us[0]) if m.step else None
                path = ([frm] if frm else []) + hexes  # from off the map: from the first hex entered
                if t is not None and t["kind"] == m.kind and t["units"] == us and t["path"][-1] == frm:
                    t["path"] += hexes
                elif len(set(path)) > 1:              # a pivot in place draws nothing
                    t = {"unit": us[0], "units": us, "path": path, "kind": m.kind}
                    out.append(t)
                else:
                    continue
                for u in us:
                    last[u] = t if m.step else None
        moved = E.moved_where(ev)
        if moved is not None:
            for u in moved[0]:
                where[u] = moved[1]
                if not (m.step and en.seq > since):
                    last.pop(u, None)
    return out


def attacks_since(entries: list[Entry], since: int, see: Callable[[E.Event], E.Event] | None = None) -> list[str]:
    """The hexes attacked after ``since`` (every event's declared ``strike``), in order, once
    each, as the viewer may see them (``see``)."""
    out: dict[str, None] = {}
    for en in entries:
        if en.seq > since and en.event.strike:
            for h in E.struck_hexes(see(en.event) if see is not None else en.event):
                out[h] = None
    return list(out)


def report_context(game: Game, side: str, st: GameState, entries: list[Entry], since: int, head: str,
                   turn: Turn | None = None, view: dict | None = None, faced: list[dict] | None = None) -> dict:
    """What report.txt.j2 is given (``turn``: the state's Turn, when the caller has one;
    ``view``: ``state_view`` of these arguments and ``faced`` its units' ``faces``, when the
    caller has them: the map reads them too)."""
    sc = game.scenario
    view = state_view(game, st, side, head, turn=turn) if view is None else view
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
    faced = faces(game, st, view["units"], side) if faced is None else [dict(u) for u in faced]   # changed below
    given = any("values" in (u.get("face") or {}) for u in faced)
    width = max([len(str(u["face"]["values"])) for u in faced if "values" in (u.get("face") or {})] + [0])
    for u in faced:                 # the SITUATION table's values: the game's (aligned), else strength-MA
        f = u.get("face") or {}
        u["values"] = str(f["values"]).ljust(width) if given and "values" in f else (
            f"{u['strength']}-{u['ma']}".ljust(width) if given else f"{u['strength']}-{u['ma']}")
    id_width = max([9] + [len(u["id"]) for u in view["units"]])
    type_width = max([9] + [len(u.get("type") or "") for u in view["units"]])
    # a formation column when the game gives units one (Ruleset.unit_facts)
    formation_width = max([0] + [max(9, len(u["formation"] or "-")) for u in view["units"] if "formation" in u])
    situation = {}
    for s in sc.sides:
        rows = sorted((u for u in faced if u["side"] == s.id), key=lambda u: (u["hex"] is None, u["hex"] or "", u["id"]))
        by_side[s.id] = rows
        situation[s.id] = "".join(f"    {situation_row(u, id_width, type_width, formation_width, sc.board.label)}\n"
                                  for u in rows)
    return {"v": view, "sc": sc, "side": side, "side_name": sc.side_name(side) if side != REFEREE else "Referee",
            "happened": happened, "since": since, "units_by_side": by_side, "label": sc.board.label,
            "side_name_of": sc.side_name, "order_example": game.rules.order_example,
            "step": step_line(sc, view, long=True),
            "notes": game.rules.report_notes(st, sc, side),
            "score": score_line(game, st, side),
            # the SITUATION columns: at least 9 wide, wider when an id or a type is longer
            "formation_width": formation_width, "id_width": id_width, "type_width": type_width,
            "situation": situation}


def situation_row(u: dict, id_width: int, type_width: int, formation_width: int, label: Callable[[str], str]) -> str:
    """One unit's row of a report's SITUATION table (``u``: a row of ``report_context``'s
    ``units_by_side``): id, hex, values, type, formation (when ``formation_width``), status,
    and the place named by the hex's ``label``.  Written here rather than in report.txt.j2,
    a Jinja expression per column (a tenth of a big game's report); the same text
    (tests/test_perf_hostfloor.py renders the template's old row beside it)."""
    hx = u["hex"]
    out = f"{u['id'].ljust(id_width)} {'%-6s' % (hx or '-',)} {u['values']}  {(u['type'] or '').ljust(type_width)} "
    if formation_width:
        out += f"{(u['formation'] or '-').ljust(formation_width)} "
    out += ", ".join(map(str, u["status"]))
    if hx:
        where = label(hx)
        if where != hx:
            out += f"  {where[5:]}"
    return out


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


def report_text(game: Game, side: str, st: GameState, entries: list[Entry], since: int, head: str,
                turn: Turn | None = None, view: dict | None = None, faced: list[dict] | None = None) -> str:
    return env().get_template("report.txt.j2").render(**report_context(game, side, st, entries, since, head, turn,
                                                                      view, faced))


def board_moves(game: Game, side: str, st: GameState, view: dict, entries: list[Entry],
                since: int) -> tuple[list[dict], list[str]]:
    """What a map after ``since`` draws of the events, as ``side`` sees them: the trails
    (``moves_since``) and the hexes to outline: those attacked in what the map tells
    (``attacks_since``) and the attacks declared and not yet resolved (``st.attacks``)."""
    rules = game.rules

    def see(ev: E.Event) -> E.Event:
        return visible_event(ev, side, rules)
    shown = {u["id"] for u in view["units"]}
    highlight = list(dict.fromkeys(attacks_since(entries, since, see) + [a.target for a in st.attacks]))
    return moves_since(entries, since, {u.id: u.hex for u in game.scenario.units}, see, shown), highlight


def map_parts(game: Game, side: str, st: GameState, entries: list[Entry], since: int, head: str,
              turn: Turn | None = None, view: dict | None = None) -> tuple[dict, list[dict], list[str]]:
    """What ``report_svg`` and ``focus_points`` both read: the state as ``side`` sees it
    (``state_view``; ``view``: the caller's, when it has it) and the map's trails and
    outlined hexes (``board_moves``)."""
    view = state_view(game, st, side, head, turn=turn) if view is None else view
    moves, highlight = board_moves(game, side, st, view, entries, since)
    return view, moves, highlight


def report_svg(game: Game, side: str, st: GameState, entries: list[Entry], since: int, head: str,
               turn: Turn | None = None, parts: tuple | None = None, faced: list[dict] | None = None) -> str:
    """The map as ``side`` may see it: units, this report's moves, the hexes
    under attack, and what decides the game (``marks.marks_for``: objectives,
    areas, score; turn and phase under the title; eliminated units boxed).
    ``parts``: ``map_parts`` of these arguments, ``faced``: ``faces`` of its view's units,
    when the caller has them (neither is changed)."""
    from pbem.report.mapsvg import render_svg
    from pbem.report.marks import info_line, marks_for
    view, moves, highlight = parts or map_parts(game, side, st, entries, since, head, turn)
    sc = game.scenario
    title = f"{sc.title} - {step_line(sc, view)} - seq {st.seq} - head {head[:12]}"
    marks = marks_for(game, st, side)
    faced = faces(game, st, view["units"], side) if faced is None else faced
    return render_svg(sc, faced, moves=moves, title=title, highlight=highlight,
                      marks=marks, info=info_line(view, marks, sc), shots=shots_since(game, st, entries, since, side))


def focus_points(game: Game, side: str, st: GameState, entries: list[Entry], since: int,
                 parts: tuple | None = None) -> list[tuple[float, float]]:
    """Where the step after ``since`` happened on ``side``'s map, as points of the drawing:
    the moves the map draws, the hexes under attack, and the hexes the step's events name as
    ``side`` may read them; when none, ``side``'s own units (every unit it sees for the
    referee).  The last point is the latest.  ``parts``: ``map_parts`` of the map, when the
    caller has them (the map's view and trails: the same whatever head it names)."""
    from pbem.report.mapsvg import hex_centre
    sc = game.scenario
    grid = sc.board.grid
    hexes: list[str] = []
    for en in entries:
        if en.seq <= since or en.seq > st.seq:
            continue
        ev = visible_event(en.event, side, game.rules)
        for key in ("hex", "target", "at"):
            h = getattr(ev, key, None)
            if isinstance(h, str):
                hexes.append(h)
    view, moves, highlight = parts or map_parts(game, side, st, entries, since, "")   # as the map draws them
    for m in moves:
        hexes += list(m["path"])
    hexes += highlight
    if not hexes:
        rows = view["units"]
        hexes = [u["hex"] for u in rows if u.get("hex") and (side == REFEREE or u["side"] == side)]
    return [hex_centre(grid, h) for h in hexes if isinstance(h, str) and grid.contains(h)]


def wants_svg(svg: bool | str, st: GameState) -> bool:
    """Whether the SVG goes along: ``True``, ``False`` or ``"final"`` (only
    once the game is over, the report a player keeps)."""
    return svg is True or (svg == "final" and st.result is not None)


def map_attachments(game: Game, side: str, st: GameState, entries: list[Entry], since: int, head: str, *,
                    png: bool = True, svg: bool | str = "final", width: int | None = None,
                    turn: Turn | None = None, view: dict | None = None, faced: list[dict] | None = None) -> list:
    """The map as a report mail carries it: one PNG sized for a mail client
    (``pbem.report.png.svg_to_png``) and the SVG only when ``svg`` asks for it
    (see ``wants_svg``).  The map is not even drawn when neither goes.  ``turn``:
    the state's Turn, ``view`` the ``state_view`` and ``faced`` its units' ``faces``, when the
    caller has them."""
    from pbem.report import mailparts as M
    from pbem.report.mapsvg import HEX_R
    from pbem.report.png import MAP_WIDTH, svg_to_png
    with_svg = wants_svg(svg, st)
    if not (png or with_svg):
        return []
    parts = map_parts(game, side, st, entries, since, head, turn, view)     # the SVG's and the close-up's
    drawing = report_svg(game, side, st, entries, since, head, parts=parts, faced=faced)
    name = f"{game.game_id}-seq{st.seq}-{side}"
    out = []
    if png:
        from pbem.report import closeup
        width = width or MAP_WIDTH
        if closeup.svg_size(drawing)[0] > width:          # a big board: first where the step happened, readable
            scale = closeup.label_scale(drawing)
            rect = closeup.focus_rect(drawing, focus_points(game, side, st, entries, since, parts), 1.4 * HEX_R, scale,
                                      width)
            data = closeup.closeup_png(drawing, rect, scale)
            if data:
                out.append(M.Attachment(data, "image", "png", name + "-closeup.png"))
        data = svg_to_png(drawing, width)
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
    from pbem.report.mailparts import Undeliverable, clean_header, safe_address
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
