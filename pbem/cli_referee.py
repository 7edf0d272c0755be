"""Command line for referees and tournament auditors: `pbem audit`, `pbem diff`
(and more referee commands below).  Parse, call pbem/referee/, print.

Registered on the main group by ``register`` (the last line of cli.py).  A new
command: define it in its own section below and add it to ``COMMANDS``.
"""
from __future__ import annotations

import json
import sys
import time
from pathlib import Path

import click


def _game_arg():
    """A game folder, or a game id of a database host."""
    from pbem.cli_args import GameArg
    return GameArg()


def _open(game_dir: str):
    """The game ``game_dir`` names: its folder, or its store in the host's database."""
    from pbem.store import open_game
    return open_game(game_dir)

# pbem.referee and the engine are imported inside the commands: `pbem --help` stays fast.

EXIT_OK, EXIT_FOUND, EXIT_USAGE = 0, 1, 2


def _fail(message: str, code: int = EXIT_FOUND) -> None:
    click.echo(f"pbem: {message}", err=True)
    sys.exit(code)


# --- pbem audit ------------------------------------------------------------------------------

class _Progress:
    """A progress bar on a terminal, a few plain lines (every tenth) otherwise, nothing with --quiet."""

    def __init__(self, quiet: bool):
        self.quiet, self.bar, self.done, self.step = quiet, None, 0, -1
        self.tty = sys.stderr.isatty()

    def __call__(self, done: int, total: int) -> None:
        if self.quiet or total == 0:
            return
        if self.tty:
            if self.bar is None:
                self.bar = click.progressbar(length=total, label="auditing", file=sys.stderr, show_pos=True)
                self.bar.__enter__()
            self.bar.update(done - self.done)
        else:
            step = done * 10 // total
            if step != self.step:
                self.step = step
                click.echo(f"audit: {done}/{total} games", err=True)
        self.done = done

    def close(self) -> None:
        if self.bar is not None:
            self.bar.__exit__(None, None, None)
            self.bar = None


def _result_text(g) -> str:
    if g.result is None:
        return "running" if g.game_id else "-"
    w = g.result["winner"]
    return ("draw" if w == "draw" else f"{w} wins") + f" ({g.result['rule']})"


def _turn_text(g) -> str:
    if g.turn is None:
        return "-"
    return f"{g.turn}/{g.turns}" if g.turns else str(g.turn)


def _print_rows(games) -> None:
    cols = [(g.game_id or "?", g.scenario or "?", _turn_text(g), _result_text(g), g.head[:12] or "-",
             ", ".join(f"{s}={a or '-'}" for s, a in g.players.items())) for g in games]
    head = ("GAME", "SCENARIO", "TURN", "RESULT", "HEAD", "PLAYERS")
    widths = [max(len(head[i]), *(len(c[i]) for c in cols)) for i in range(5)] if cols else [0] * 5
    click.echo("  ".join(h.ljust(w) for h, w in zip(head, widths)) + "  " + head[5])
    for g, c in zip(games, cols):
        click.echo("  ".join(x.ljust(w) for x, w in zip(c, widths)) + "  " + c[5])
        click.echo(f"    {'folder':<8} {g.path}")
        if g.waiting:
            click.echo(f"    {'waiting':<8} " + "; ".join(g.waiting))
        for f in g.findings:
            at = f" [seq {f.seq}]" if f.seq is not None else ""
            click.echo(f"    {f.severity:<8} {f.code}{at}: {f.text}")


def _print_summary(s: dict) -> None:
    click.echo("")
    click.echo(f"{s['games']} game(s): {s['clean']} clean, {s['with_errors']} with errors, "
               f"{s['with_warnings']} with warnings ({s['errors']} error(s), {s['warnings']} warning(s), "
               f"{s['notes']} note(s))")
    if s["standings"]:
        click.echo(f"standings ({s['finished_counted']} finished game(s) without errors, each game id once):")
        totals: dict[str, dict[str, int]] = {}
        for sc, table in s["standings"].items():
            click.echo(f"  {sc}")
            for who, r in table.items():
                click.echo(f"    {who:<36} {r['w']:>3} W {r['d']:>3} D {r['l']:>3} L")
                t = totals.setdefault(who, {"w": 0, "d": 0, "l": 0})
                for k in t:
                    t[k] += r[k]
        if len(s["standings"]) > 1:
            click.echo("  all scenarios")
            for who, r in sorted(totals.items(), key=lambda kv: (-kv[1]["w"], kv[1]["l"], kv[0])):
                click.echo(f"    {who:<36} {r['w']:>3} W {r['d']:>3} D {r['l']:>3} L")
    if s["left_out"]:
        click.echo("left out of the standings (errors): " + ", ".join(s["left_out"]))
    if s["running"]:
        click.echo("still running:")
        for r in s["running"]:
            turn = f"turn {r['turn']}/{r['turns']}" if r["turn"] is not None else "not started"
            wait = ("; waiting for " + "; ".join(r["waiting"])) if r["waiting"] else ""
            click.echo(f"  {r['game_id']}  {r['scenario']}  {turn}{wait}  ({r['path']})")


@click.command("audit")
@click.argument("paths", nargs=-1, required=True, type=click.Path(exists=True))
@click.option("-j", "--jobs", type=click.IntRange(min=1), metavar="N",
              help="Worker processes (default: one per core).")
@click.option("--json", "as_json", is_flag=True, help="One JSON object per game (JSON Lines), then a summary object.")
@click.option("--strict", is_flag=True, help="Exit 1 on warnings too, not only on errors.")
@click.option("-q", "--quiet", is_flag=True, help="No progress on standard error.")
def audit_cmd(paths, jobs, as_json, strict, quiet) -> None:
    """Audit every game folder under PATHS (a tournament, a host's games,
    several copies): hash chain and head anchor, a full re-run of the rules,
    scenario and ruleset, dice and seed reveal, sealed secrets, deadlines,
    the result, and game ids held twice with different logs.  Then the
    standings and the games still running.

    Each finding is an error, a warning or a note.  Exit 0 when no finding
    is an error (with --strict: nor a warning), 1 otherwise, 2 on usage
    errors (no game found)."""
    from pbem.referee.audit import audit_dirs, find_games
    dirs = find_games([Path(p) for p in paths])
    if not dirs:
        _fail(f"no game folder (one holding log.jsonl) under {', '.join(paths)}", EXIT_USAGE)
    progress = _Progress(quiet)
    started = time.monotonic()
    try:
        result = audit_dirs(dirs, jobs=jobs, progress=progress)
    finally:
        progress.close()
    if as_json:
        for g in result.games:
            click.echo(json.dumps(g.as_json(), ensure_ascii=False))
        click.echo(json.dumps(dict(result.summary, seconds=round(time.monotonic() - started, 2)), ensure_ascii=False))
    else:
        _print_rows(result.games)
        _print_summary(result.summary)
    if result.errors or (strict and result.warnings):
        sys.exit(EXIT_FOUND)


# --- pbem diff -------------------------------------------------------------------------------

@click.command("diff")
@click.argument("game_a", type=click.Path(exists=True, file_okay=False))
@click.argument("game_b", type=click.Path(exists=True, file_okay=False))
@click.option("--as", "side", help="Show the events as SIDE may see them (default: referee, everything).")
@click.option("--json", "as_json", is_flag=True, help="Machine-readable JSON.")
def diff_cmd(game_a, game_b, side, as_json) -> None:
    """Compare two copies of one game: the first seq where the logs part,
    both events side by side (in words and as JSON), whether each copy's
    hash chain and log.head hold, and the head each side's last report named.

    Exit 0 when the logs are identical, 1 when they differ, 2 on usage errors."""
    from pbem.referee.diff import REFEREE, NotAGame, compare, to_json, to_text
    try:
        d = compare(Path(game_a), Path(game_b), viewer=side or REFEREE)
    except NotAGame as e:
        _fail(str(e), EXIT_USAGE)
    if side and side != REFEREE:
        known = set(d.a.reports) | set(d.b.reports)
        if side not in known:
            _fail(f"unknown side {side!r}; choose one of: {', '.join(sorted(known))}", EXIT_USAGE)
    if as_json:
        click.echo(json.dumps(to_json(d), indent=2, ensure_ascii=False))
    else:
        for line in to_text(d):
            click.echo(line)
    if not d.identical:
        sys.exit(EXIT_FOUND)


# --- more referee commands go here (each in its own section), then into COMMANDS ------------

# --- pbem explain ----------------------------------------------------------------------------

@click.command("explain")
@click.argument("game_dir", type=_game_arg())
@click.argument("seq", type=int)
@click.option("--as", "side", help="Only what SIDE may see (default: referee, everything).")
@click.option("--json", "as_json", is_flag=True, help="Machine-readable JSON.")
def explain_cmd(game_dir, seq, side, as_json) -> None:
    """Explain the event at SEQ: the order that caused it and who gave it,
    the rule sections and table lookups the events record, every die roll
    with its derivation (roll k of order n is HMAC-SHA256(seed,
    "GAME_ID:n:k") read by rejection sampling, shown step by step once the
    seed is revealed, or to the referee from the host's seed file), and
    what it changed in the state.  For an order (an OrderGiven) the same
    for the whole order and every event it produced.

    With --as SIDE only what that side may see: its view of the events and
    of the state; sealed secrets of others show only their commitment.

    Exit 0, 1 on errors, 2 when the log has no event SEQ."""
    from pbem.engine import Game
    from pbem.referee.explain import Explainer, explain_text
    from pbem.views import REFEREE
    g = Game(_open(game_dir))
    x = Explainer(g, side or REFEREE)
    last = x.entries[-1].seq
    if not 0 <= seq <= last:
        _fail(f"no event {seq}: the log of {game_dir} runs from seq 0 to {last}", EXIT_USAGE)
    data = x.explain(seq)
    if as_json:
        click.echo(json.dumps(data, indent=2, ensure_ascii=False))
    else:
        click.echo(explain_text(data, g.scenario), nl=False)


# --- pbem replay -----------------------------------------------------------------------------

@click.command("replay")
@click.argument("game_dir", type=_game_arg())
@click.option("--as", "side", help="Build the page from SIDE's view only (default: referee, everything).")
@click.option("-o", "--output", required=True, type=click.Path(dir_okay=False),
              help="The HTML file to write (mode 0600).")
def replay_cmd(game_dir, side, output) -> None:
    """Write one self-contained HTML page to step through the game: the map
    after every order, a slider and step buttons (keys: left/right,
    Home/End), the events of each step with their explanation, and the
    head hash after each step.  No server, no network: it opens from a
    mail attachment.

    With --as SIDE the page is built from that side's view alone: nothing
    the side may not see is in the file at all."""
    from pbem.engine import Game
    from pbem.log import write_output
    from pbem.referee.replay_page import page_data, render_page
    from pbem.views import REFEREE, check_viewer
    from pbem.log import check_output
    check_output(Path(output))                      # refused before the page is built
    g = Game(_open(game_dir))
    viewer = check_viewer(g, side or REFEREE)
    data = page_data(g, viewer)
    html = render_page(data).encode("utf-8")
    write_output(Path(output), html)                # a regular file or a new path, never a device or a link
    click.echo(f"wrote {output}: {len(data['steps'])} steps (seq 0..{data['last_seq']}, head "
               f"{data['head'][:12]}...) as {data['viewer_name']}, {len(html) // 1024} KB")




COMMANDS = [audit_cmd, diff_cmd, explain_cmd, replay_cmd]


def register(main: click.Group) -> None:
    for cmd in COMMANDS:
        main.add_command(cmd)
