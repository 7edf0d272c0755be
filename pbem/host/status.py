"""The host's status board (`pbem host status`, and ``STATUS`` mailed by the
referee): one row per hosted game with its scenario, turn and phase, whose
move it is, the next deadline and the time left, the last mail in and out,
and how many of its messages wait in the quarantine.

It only reads: the games' logs (through their state cache), each game's
deadline.json, the journal (one record per job: an incoming message has its
Message-ID as key, the host's own jobs a key starting "host job "), the spool
and the quarantine's reasons.jsonl.  "Last out" is when the host last wrote
mail for the game (the job that made it); mail not yet delivered is counted
as waiting in the spool.
"""
from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field
from datetime import datetime, timedelta
from email import policy
from email.parser import BytesHeaderParser
from pathlib import Path

from pbem.host.common import fmt_duration, iso, parse_time


@dataclass
class Row:
    """One game on the board (times in ISO 8601 UTC, "" = none)."""
    game: str
    scenario: str
    turn: int
    phase: str                 # "axis movement", "game over", ...
    waiting_for: list[str]     # side names the game waits for
    deadline: str              # the earliest deadline of an awaited decision
    left: str                  # "1d4h", "overdue 2h", "" (no deadline)
    last_in: str
    last_out: str
    spooled: int               # mails written but not delivered yet
    quarantined: int
    problem: str = ""          # a game that cannot be read says why
    no_player: list[str] = field(default_factory=list)     # sides nobody plays (their steps go by deadline)
    undelivered: list[dict] = field(default_factory=list)  # mails stuck in the spool or set aside (SpoolMixin.stuck)
    pings_failing: list[dict] = field(default_factory=list)  # webhooks that failed (NotifyMixin.ping_failures)


def _journal(host) -> list[dict]:
    return host.store.jobs()


def _spooled(host) -> dict[str, int]:
    counts: dict[str, int] = {}
    if host.store.shared:                       # the database knows each mail's game
        return host.store.spool_counts()
    parser = BytesHeaderParser(policy=policy.default)
    for f in host.store.spool_files():
        try:
            gid = str(parser.parsebytes(f.read_bytes())["X-pbem-Game"] or "")
        except OSError:
            continue
        counts[gid] = counts.get(gid, 0) + 1
    return counts


def _quarantined(host) -> dict[str, int]:
    """Messages in the quarantine per game ("" = no game could be named)."""
    if host.store.shared:                       # several machines: each quarantines into its own folder
        counts: dict[str, int] = {}
        for r in host.store.jobs():
            if r.get("status") == "done" and r.get("filed") == "quarantine":
                counts[r.get("game") or ""] = counts.get(r.get("game") or "", 0) + 1
        return counts
    games: dict[str, str] = {}
    try:
        for line in (host.quarantine_dir / "reasons.jsonl").read_text().splitlines():
            try:
                r = json.loads(line)
                games[r["file"]] = r.get("game") or ""
            except (ValueError, KeyError, TypeError):
                continue
    except OSError:
        pass
    counts: dict[str, int] = {}
    for path, _at, _why in host.quarantined():
        gid = games.get(path.name, "")
        counts[gid] = counts.get(gid, 0) + 1
    return counts


def _left(due: datetime, now: datetime) -> str:
    """Time left (or overdue) in its two largest units, "3d4h", "5h20m", "45m":
    a board to glance at, not a stopwatch."""
    secs = int((due - now).total_seconds())
    text = fmt_duration(timedelta(seconds=_coarse(abs(secs))))
    return text if secs >= 0 else "overdue " + text


def _coarse(secs: int) -> int:
    for unit, below in ((86400, 3600), (3600, 60), (60, 1)):
        if secs >= unit:
            return secs - secs % below
    return secs


def _game_row(host, gid: str, path: Path, jobs: list[dict], spooled: dict, quarantined: dict,
              now: datetime) -> Row:
    from pbem.engine import Game
    mine = [r for r in jobs if r.get("game") == gid and r.get("at")]
    ins = [r["at"] for r in mine if not str(r.get("key", "")).startswith("host job ")]
    outs = [r["at"] for r in mine if r.get("status") == "done"]
    row = Row(gid, "", 0, "", [], "", "", max(ins, default=""), max(outs, default=""),
              spooled.get(gid, 0), quarantined.get(gid, 0))
    try:
        game = Game(path)
        st = game.state()
    except Exception as e:             # noqa: BLE001 - one broken game must not hide the others
        row.problem = f"cannot be read: {e}"
        return row
    sc = game.scenario
    row.scenario, row.turn = sc.id, st.turn
    row.no_player = host.unplayed(game)
    if st.result is not None:
        row.phase = "game over"
        row.waiting_for = []
    else:
        from pbem.views import turn_of
        turn = turn_of(game, st)                  # the side the step belongs to, as the game names it
        row.phase = turn.line(turn=False) if turn.phase is not None else f"phase {st.phase}"
        row.waiting_for = [sc.side_name(s) for s in turn.sides_waited()]
    dl = host._deadlines(game)                    # deadline.json is read in one place
    waits = dl.get("waits", {}) if isinstance(dl, dict) else {}
    dues = []
    for w in waits.values():
        try:
            dues.append(parse_time(w["due"]))
        except Exception:              # noqa: BLE001 - a hand-edited deadline file
            continue
    if dues and st.result is None:
        due = min(dues)
        row.deadline, row.left = iso(due), _left(due, now)
        if isinstance(dl, dict) and dl.get("paused"):
            row.left = "paused"
    return row


def board(host) -> tuple[list[dict], str]:
    """The status board of ``host`` (a Host, or a host folder): one dict per
    game (the fields of ``Row``) and the same as a plain-text table."""
    from pbem.host.service import Host
    if not isinstance(host, Host):
        host = Host.open(Path(host))
    now = host.now()
    jobs = _journal(host)
    spooled, quarantined = _spooled(host), _quarantined(host)
    rows = [_game_row(host, gid, path, jobs, spooled, quarantined, now) for gid, path in sorted(host.games().items())]
    stuck = host.stuck()
    pings = host.ping_failures()
    for r in rows:
        r.undelivered = [m for m in stuck if m["game"] == r.game]
        r.pings_failing = [p for p in pings if p["game"] == r.game]
    others = [m for m in stuck if m["game"] not in {r.game for r in rows}]
    out = text(rows, now, quarantined.get("", 0), others)
    if host.store.shared:
        out += workers_text(host.store.workers(), now)
    return [asdict(r) for r in rows], out


def workers_text(workers: list[dict], now: datetime) -> str:
    """The workers on a database (``pbem serve --workers N`` on any machine): each
    with its machine and process, when it was last seen, what it is doing and the
    games whose lock it holds (read from the server's own lock table)."""
    head = ["worker", "machine", "pid", "started", "last seen", "doing", "holds"]
    body = []
    for w in workers:
        seen = w.get("beat", "")
        try:
            ago = fmt_duration(timedelta(seconds=_coarse(max(0, int((now - parse_time(seen)).total_seconds())))))
        except Exception:              # noqa: BLE001
            ago = "?"
        body.append([w["worker"], w.get("machine", ""), str(w.get("pid", "")), w.get("started", ""),
                     f"{seen} ({ago} ago)" if seen else "-", w.get("doing") or "idle",
                     ", ".join(w.get("holds", [])) or "-"])
    lines = ["", f"{len(workers)} worker(s) on the database" + (":" if workers else "."), ""]
    if workers:
        widths = [max(len(x[i]) for x in [head] + body) for i in range(len(head))]
        for cells in [head, ["-" * w for w in widths]] + body:
            lines.append("  ".join(c.ljust(w) for c, w in zip(cells, widths)).rstrip())
    return "\n".join(lines) + "\n"


def _undelivered_line(m: dict) -> str:
    tried = (f"{m['tries']} tr{'y' if m['tries'] == 1 else 'ies'} since {m['first_error']}, the last at "
             f"{m['last_try']}; last error: {m['error']}" if m["tries"] else "not tried yet")
    where = "set aside (no server will take it)" if m["state"] == "set aside" else "waiting in the spool"
    return f"  {m['game'] or '-'}  {m['kind'] or 'mail'} to {m['to']}: {where}, {tried}  [{m['mail']}]"


def text(rows: list[Row], now: datetime, unnamed: int = 0, others: list[dict] = ()) -> str:
    """The board as a table a mail client shows well (fixed width, no tabs)."""
    head = ["game", "scenario", "turn", "phase", "waiting for", "deadline", "left", "last in", "last out",
            "quarantined"]
    body = []
    for r in rows:
        if r.problem:
            body.append([r.game, r.problem] + [""] * 8)
            continue
        out = r.last_out + (f" (+{r.spooled} in spool)" if r.spooled else "")
        body.append([r.game, r.scenario, str(r.turn), r.phase, ", ".join(r.waiting_for) or "-",
                     r.deadline or "none", r.left or "-", r.last_in or "-", out or "-", str(r.quarantined)])
    widths = [max(len(x[i]) for x in [head] + body) for i in range(len(head))]
    lines = [f"Host status at {iso(now)}: {len(rows)} game(s)", ""]
    for cells in [head, ["-" * w for w in widths]] + body:
        lines.append("  ".join(c.ljust(w) for c, w in zip(cells, widths)).rstrip())
    if unnamed:
        lines += ["", f"{unnamed} quarantined message(s) name no hosted game (pbem mail quarantine lists them)."]
    alone = [(r, s) for r in rows for s in r.no_player]
    if alone:
        lines += ["", "Sides with no player (nobody gets their mail; their steps wait for the deadline defaults):"]
        lines += [f"  {r.game}  {s}" for r, s in alone]
    stuck = [m for r in rows for m in r.undelivered] + list(others)
    if stuck:
        lines += ["", f"Mail not delivered ({len(stuck)}):"] + [_undelivered_line(m) for m in stuck]
    pings = [p for r in rows for p in r.pings_failing]
    if pings:
        lines += ["", f"Webhooks failing ({len(pings)}):"]
        lines += [f"  {p['game']}  {p['side']} {p['webhook']}: {p['tries']} failed tr"
                  f"{'y' if p['tries'] == 1 else 'ies'}, the last at {p['last_try']}: {p['error']}; "
                  + (f"next try at {p['next_try']}" if p["state"] == "retrying" else "set aside, no more tries")
                  for p in pings]
    return "\n".join(lines) + "\n"


def board_text(host) -> str:
    """The board as text only (what a ``STATUS`` mailed by the referee answers)."""
    return board(host)[1]
