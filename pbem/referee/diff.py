"""`pbem diff`: two copies of one game (the host's and a player's, a backup, a
copy sent for a dispute), compared line by line as stored.

What a referee needs to settle which copy is the game: the first seq where
the logs part, the two events there side by side (in words and as JSON,
field by field), whether each copy's hash chain and ``log.head`` anchor hold,
and the head each side's last report named (``reported.json``, the seq
``Game.last_report`` reads): a head both copies share is a state both agree
the player saw; a head only one copy has tells which copy the player's
reports came from.
"""
from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path

from pbem.log import read_regular
from pbem.referee import MAX_FILE_BYTES, Chain, Line, last_reports, parting, read_chain

REFEREE = "referee"
_CELL = 46                      # width of a value in the side-by-side table


@dataclass
class Side:
    """One copy: where, which game, its chain, and each side's last report."""
    label: str
    path: str
    chain: Chain
    game_id: str = ""
    scenario: object = None      # the copy's Scenario, when its scenario.toml loads
    reports: dict[str, int | None] = field(default_factory=dict)

    @property
    def chain_text(self) -> str:
        ch = self.chain
        if ch.missing:
            return ch.missing
        parts = ["chain intact" if not ch.problem else f"chain BROKEN: {ch.problem}"]
        parts.append("anchored by log.head" if not ch.anchor_problem else f"anchor: {ch.anchor_problem}")
        return "; ".join(parts)


@dataclass
class Diff:
    a: Side
    b: Side
    viewer: str
    parted_at: int | None        # None: the logs are identical

    @property
    def identical(self) -> bool:
        return self.parted_at is None

    def event(self, side: Side) -> Line | None:
        n = self.parted_at
        return side.chain.lines[n] if n is not None and n < len(side.chain.lines) else None


def _side(label: str, path: Path) -> Side:
    from pbem.core import events as E
    from pbem.core.scenario import loads
    ch = read_chain(path)
    s = Side(label, str(path), ch)
    created = ch.lines[0].event if ch.lines else None
    sides: list[str] = []
    if isinstance(created, E.GameCreated):
        s.game_id = created.game_id
        sides = list(created.players)
    try:
        s.scenario = loads(read_regular(path / "scenario.toml", MAX_FILE_BYTES), str(path / "scenario.toml"))
        sides = s.scenario.side_ids()
    except Exception:                   # noqa: BLE001 - a copy without a usable scenario is worded less
        s.scenario = None
    s.reports = last_reports(path, sides + [REFEREE])
    return s


class NotAGame(Exception):
    """A folder given to diff holds no readable log."""


def compare(a: Path, b: Path, viewer: str = REFEREE) -> Diff:
    """Compare two game folders (NotAGame when one holds no readable log)."""
    sa, sb = _side("A", Path(a)), _side("B", Path(b))
    for s in (sa, sb):
        if s.chain.missing and not s.chain.lines:
            raise NotAGame(s.chain.missing)
    return Diff(sa, sb, viewer, parting(sa.chain, sb.chain))


# --- wording -------------------------------------------------------------------------

def _visible(ln: Line, side: Side, viewer: str):
    """The line's event as ``viewer`` may see it (the referee sees everything);
    None when it cannot be redacted for a side (no event, or no scenario to say which game)."""
    if viewer == REFEREE:
        return ln.event
    if ln.event is None or side.scenario is None:
        return None
    from pbem.games import ruleset_for
    from pbem.views import visible_event
    try:
        return visible_event(ln.event, viewer, ruleset_for(side.scenario.game))
    except Exception:                   # noqa: BLE001 - unknown game: show nothing rather than a secret
        return None


def words(ln: Line | None, side: Side, viewer: str) -> str:
    if ln is None:
        return f"(nothing: this copy ends at seq {side.chain.last_seq})"
    if ln.event is None:
        return f"(unreadable line: {ln.error})"
    if side.scenario is not None:
        try:
            from pbem.report.render import describe
            return describe(ln.event, side.scenario, viewer) or ln.kind
        except Exception:               # noqa: BLE001 - a game this pbem lacks: the kind will do
            pass
    return ln.kind


def as_json(ln: Line | None, side: Side, viewer: str) -> dict | None:
    """The stored envelope as JSON; for a side's view, with the body as that side sees it."""
    if ln is None:
        return None
    data = ln.as_json()
    if viewer != REFEREE:
        # a side never sees a body that did not pass through its view: an unreadable
        # line, or one of a game this copy cannot name, shows none
        from pbem.core import events as E
        ev = _visible(ln, side, viewer)
        if "raw" in data:
            data["raw"] = "(hidden)"
        else:
            data["body"] = E.body_of(ev) if ev is not None else "(hidden)"
    return data


def _flat(d: dict | None) -> dict[str, str]:
    if d is None:
        return {}
    out = {}
    for k, v in d.items():
        if k == "body" and isinstance(v, dict):
            for bk, bv in v.items():
                out[f"body.{bk}"] = json.dumps(bv, ensure_ascii=False)
        else:
            out[k] = json.dumps(v, ensure_ascii=False)
    return out


def differing(d: Diff) -> list[str]:
    """The envelope and body fields where the two parting events differ."""
    fa, fb = _flat(as_json(d.event(d.a), d.a, d.viewer)), _flat(as_json(d.event(d.b), d.b, d.viewer))
    keys = list(fa) + [k for k in fb if k not in fa]
    return [k for k in keys if fa.get(k) != fb.get(k)]


def report_rows(d: Diff) -> list[dict]:
    """Per side (and the referee): the seq and head of its last report in each copy, and whether
    that head is one both copies share."""
    rows = []
    names = list(d.a.reports) + [k for k in d.b.reports if k not in d.a.reports]
    for name in names:
        row = {"side": name}
        for s, other in ((d.a, d.b), (d.b, d.a)):
            seq = s.reports.get(name)
            head = s.chain.hash_at(seq) if seq is not None else ""
            if seq is None:
                where = "never reported"
            elif not head:
                where = f"beyond the end of this copy (it ends at seq {s.chain.last_seq}): events the player saw are missing"
            elif other.chain.hash_at(seq) == head:
                where = "common to both copies"
            else:
                where = f"only in {s.label}"
            row[s.label] = {"seq": seq, "head": head, "where": where}
        rows.append(row)
    return rows


def to_json(d: Diff) -> dict:
    def copy(s: Side) -> dict:
        ch = s.chain
        return {"path": s.path, "game_id": s.game_id, "events": len(ch.lines), "head": ch.head,
                "last_seq": ch.last_seq, "chain_intact": ch.intact, "chain_problem": ch.problem or ch.missing,
                "broken_at": ch.broken_at, "anchor_problem": ch.anchor_problem}
    out = {"identical": d.identical, "parted_at": d.parted_at, "viewer": d.viewer, "a": copy(d.a), "b": copy(d.b)}
    if not d.identical:
        out["events"] = {s.label: None if d.event(s) is None else
                         {"seq": d.parted_at, "kind": d.event(s).kind, "words": words(d.event(s), s, d.viewer),
                          "json": as_json(d.event(s), s, d.viewer)} for s in (d.a, d.b)}
        out["differing_fields"] = differing(d)
    out["reports"] = report_rows(d)
    return out


def _cell(text: str) -> str:
    return text if len(text) <= _CELL else text[:_CELL - 3] + "..."


def to_text(d: Diff) -> list[str]:
    lines = []
    for s in (d.a, d.b):
        ch = s.chain
        lines.append(f"{s.label}  {s.path}: game {s.game_id or '?'}, {len(ch.lines)} events, "
                     f"head {ch.head[:16]} (seq {ch.last_seq}); {s.chain_text}")
    if d.identical:
        lines.append(f"the logs are identical ({len(d.a.chain.lines)} events)")
    else:
        n = d.parted_at
        lines.append(f"the copies part at seq {n}" + (f" (seq 0..{n - 1} are identical)" if n else
                                                       " (their very first lines differ: two different games?)"))
        ea, eb = d.event(d.a), d.event(d.b)
        fa = _flat(as_json(ea, d.a, d.viewer))
        fb = _flat(as_json(eb, d.b, d.viewer))
        diff = set(differing(d))
        wa, wb = words(ea, d.a, d.viewer), words(eb, d.b, d.viewer)
        keys = list(fa) + [k for k in fb if k not in fa]
        w = max([5] + [len(k) for k in keys])
        lines.append("")
        lines.append(f"  {'':<{w}}  {'A':<{_CELL}}   B")
        lines.append(f"  {'words':<{w}}  {_cell(wa):<{_CELL}}   {_cell(wb)}")
        for k in keys:
            mark = "*" if k in diff else " "
            lines.append(f"{mark} {k:<{w}}  {_cell(fa.get(k, '-')):<{_CELL}}   {_cell(fb.get(k, '-'))}")
        lines.append("")
        lines.append(f"  A in words: {wa}")
        lines.append(f"  B in words: {wb}")
        for label, e, s in (("A", ea, d.a), ("B", eb, d.b)):
            j = as_json(e, s, d.viewer)
            lines.append(f"  {label} as JSON: " + (json.dumps(j, ensure_ascii=False) if j is not None else "(none)"))
        if ea is None or eb is None:
            pass
        elif diff:
            lines.append(f"  they differ in: {', '.join(k for k in keys if k in diff)}")
        else:
            lines.append(f"  they differ in what {d.viewer} may not see (the lines differ; the referee's view shows how)")
        for s in (d.a, d.b):
            more = len(s.chain.lines) - n
            lines.append(f"  {s.label} has {more} event(s) from seq {n} on" + (f" (to seq {s.chain.last_seq})" if more else ""))
    rows = report_rows(d)
    if rows:
        lines.append("")
        lines.append("last reports (reported.json):")
        for r in rows:
            cells = []
            for label in ("A", "B"):
                x = r[label]
                cells.append(f"{label}: never" if x["seq"] is None else
                             f"{label}: seq {x['seq']} head {x['head'][:12] or '-'} ({x['where']})")
            lines.append(f"  {r['side']:<12} " + "   ".join(cells))
    return lines
