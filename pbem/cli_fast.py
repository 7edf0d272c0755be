"""`pbem state` and `pbem report` without click: the same command lines, the same bytes out.

Importing click costs a read-only command about as much as starting Python
itself, so ``pbem/__main__.py`` first offers the command line to ``fast()``.
It answers only a plain ``pbem state GAME_DIR [--as SIDE] [--at SEQ] [--json]``
or ``pbem report GAME_DIR --as SIDE [--at SEQ] [--since SEQ] [--format text]``
(to standard output) that it can run to the end without a problem.  For
anything else (help, a usage error, an unknown side, an unreadable game,
another format, output click would write otherwise) it returns None, having
written nothing, and click runs the command as usual.

The commands' arguments and options are declared once, here (``STATE``,
``REPORT``): ``click_params`` gives the click command the same ones, and
``state_text`` / ``report_bytes`` are what both print.  tests/test_perf_cli.py
checks the click commands' parameters against these declarations, and the two
paths' bytes against each other on every example, viewer and option.
"""
from __future__ import annotations

import os
import sys


class Opt:
    """One option: its ``flag`` ("--as"), the command function's parameter ``dest``, its
    ``kind`` (str, int, bool for a flag, "choice" or "file" for an output path), and
    click's ``help``, ``required``, ``default``, ``metavar``, ``choices``, ``short`` flag."""
    __slots__ = ("flag", "dest", "kind", "help", "required", "default", "metavar", "choices", "short")

    def __init__(self, flag: str, dest: str, kind, help: str, *, required: bool = False, default=None,
                 metavar: str | None = None, choices: tuple[str, ...] = (), short: str | None = None):
        self.flag, self.dest, self.kind, self.help = flag, dest, kind, help
        self.required, self.default, self.metavar, self.choices, self.short = required, default, metavar, choices, short


class Command:
    """A command: its ``name``, its one ``argument`` (an existing directory), its ``options``, its ``help``."""
    __slots__ = ("name", "argument", "options", "help")

    def __init__(self, name: str, argument: str, options: tuple[Opt, ...], help: str):
        self.name, self.argument, self.options, self.help = name, argument, options, help


STATE = Command(
    name="state",
    argument="game_dir",
    options=(
        Opt("--as", "side", str, "View as this side (default: referee)."),
        Opt("--at", "at", int, "State after event SEQ."),
        Opt("--json", "as_json", bool, "Machine-readable JSON."),
    ),
    help="Show the game's state (at the head, or after event SEQ).",
)

REPORT = Command(
    name="report",
    argument="game_dir",
    options=(
        Opt("--as", "side", str, "A side id, or referee.", required=True),
        Opt("--at", "at", int, "Report the state after event SEQ."),
        Opt("--since", "since", int, "Tell what happened after event SEQ (default: since the last report "
            "the host mailed this side, else the start).", metavar="SEQ"),
        Opt("--format", "fmt", "choice", "", default="text", choices=("text", "svg", "eml")),
        Opt("--output", "output", "file", "Write to this file instead of standard output.", short="-o"),
    ),
    help="Render a side's turn report: text, SVG map, or a complete email (.eml).",
)

FAST = {"state": STATE, "report": REPORT}          # what fast() may run (pbem/__main__.py names them too)


def click_params(cmd: Command):
    """A decorator giving a click command ``cmd``'s argument and options (for pbem.cli)."""
    import click

    def apply(f):
        for o in reversed(cmd.options):
            names = [o.short, o.flag] if o.short else [o.flag]
            kw: dict = {"help": o.help or None}
            if o.kind is bool:
                kw["is_flag"] = True
            elif o.kind == "choice":
                kw.update(type=click.Choice(list(o.choices)), default=o.default, show_default=True)
            elif o.kind == "file":
                kw["type"] = click.Path(dir_okay=False, writable=True)
            else:
                kw["type"] = o.kind
            if o.required:
                kw["required"] = True
            if o.metavar:
                kw["metavar"] = o.metavar
            f = click.option(*names, o.dest, **kw)(f)
        from pbem.cli_args import GameArg
        return click.argument(cmd.argument, type=GameArg())(f)     # a folder, or a database host's game id
    return apply


def _game(game_dir: str, side: str | None):
    from pbem.engine import Game
    from pbem.store import open_game
    from pbem.views import viewer
    g = Game(open_game(game_dir))                   # a folder, or a game of the database host found from here
    return g, viewer(g, side)


def state_text(game_dir: str, side: str | None, at: int | None, as_json: bool) -> str:
    """What `pbem state` prints (every line ends with a newline)."""
    from pbem.core.turn import step_line
    from pbem.views import result_text, state_view
    g, side = _game(game_dir, side)
    st, head = g.state_and_hash(at)                 # at the head: the state cache, no log line read
    view = state_view(g, st, side, head)
    if as_json:
        import json
        return json.dumps(view, indent=2) + "\n"
    sc = g.scenario
    lines = []
    if view["result"]:
        lines.append(f"{sc.title}: game over - {result_text(sc, view['result'])}")
    else:
        lines.append(f"{sc.title}: {step_line(sc, view, long=True)}")
    for a in view["awaiting"]:
        lines.append(f"waiting for {sc.side_name(a['side'])}: {a['kind']} ({a['order']})")
    lines.append(f"seq {view['seq']}  head {view['head']}")
    return "".join(line + "\n" for line in lines)


def report_bytes(game_dir: str, side: str, at: int | None, since: int | None, fmt: str) -> bytes:
    """The report `pbem report` writes: text, SVG or a whole email (.eml)."""
    from pbem.report import render
    from pbem.views import report_entries
    g, side = _game(game_dir, side)
    if since is None:
        since = g.last_report(side) if at is None else 0
    if at is None:
        # The state cache, and the log's lines after `since` read from its end.
        st, head = g.state_and_hash()
        entries = report_entries(g, since)
    else:
        entries = g.entries()
        st = g.state(at)
        head = entries[st.seq].hash
    if fmt == "text":                               # for a terminal: no control character acts (an old log)
        from pbem.core.orders import visible
        text = render.report_text(g, side, st, entries, since, head)
        if at is None and side in g.scenario.side_ids():    # a set-up step: the choices the welcome lists
            from pbem.views import turn_of
            choices = turn_of(g, st).setup(side)
            if choices:
                title = turn_of(g, st).setup_title(side).upper()
                text = text.rstrip("\n") + f"\n\nYOUR {title} NOW\n" + "".join(f"  {c}\n" for c in choices)
        return visible(text).encode()
    if fmt == "svg":
        return render.report_svg(g, side, st, entries, since, head).encode()
    return bytes(render.report_eml(g, side, st, entries, since, head))


def parse(cmd: Command, args: list[str]) -> dict | None:
    """The values of a plain command line of ``cmd`` (``args`` after the command name), or None
    when click should judge it: anything but the argument once and each option at most once,
    spelled out in full (``--as SIDE`` or ``--as=SIDE``), with a value that is not option-like
    (a number: digits only; a choice: one of them), every required option given."""
    kinds = {o.flag: o for o in cmd.options}
    values: dict = {o.dest: (False if o.kind is bool else o.default) for o in cmd.options}
    seen: set[str] = set()
    positional: list[str] = []
    i = 0
    while i < len(args):
        a = args[i]
        i += 1
        if not a.startswith("-") or a == "-":
            positional.append(a)
            continue
        flag, eq, value = a.partition("=")
        o = kinds.get(flag)
        if o is None or flag in seen:
            return None                             # --help, -h, -o, --, a typo, an abbreviation, a repeat
        seen.add(flag)
        if o.kind is bool:
            if eq:
                return None
            values[o.dest] = True
            continue
        if not eq:
            if i >= len(args):
                return None
            value = args[i]
            i += 1
        if not value or value.startswith("-"):
            return None
        if o.kind is int:
            if not (value.isascii() and value.isdigit()):
                return None
            values[o.dest] = int(value)
        elif o.kind == "choice" and value not in o.choices:
            return None
        else:
            values[o.dest] = value
    if any(o.required and o.flag not in seen for o in cmd.options):
        return None
    if len(positional) != 1 or not os.path.isdir(positional[0]):
        return None
    values[cmd.argument] = positional[0]
    return values


def fast(argv: list[str]) -> int | None:
    """Run ``argv`` (without the program name) here if it is a plain `pbem state` or text
    `pbem report`; the exit status, or None when nothing was done and click must run it."""
    if os.environ.get("PBEM_NO_FAST_PATH") or not argv or argv[0] not in FAST:
        return None
    cmd = FAST[argv[0]]
    values = parse(cmd, argv[1:])
    if values is None or (cmd is REPORT and (values["fmt"] != "text" or values["output"] is not None)):
        return None                                 # a map, an email or a file: click writes them
    out = sys.stdout
    if getattr(out, "buffer", None) is None:
        return None
    try:
        if cmd is STATE:
            if (getattr(out, "encoding", "") or "").lower().replace("-", "") != "utf8":
                return None                         # click.echo may re-encode: let it
            text = state_text(**values)
            if "\x1b" in text:
                return None                         # click.echo strips ANSI codes off a terminal
            data = text.encode()
        else:
            del values["output"]                    # None: to standard output
            data = report_bytes(**values)
    except KeyboardInterrupt:
        print("pbem: interrupted", file=sys.stderr)   # as pbem.cli says it
        return 130
    except Exception:                               # click says it, in its words and with its exit status
        return None
    try:
        out.flush()
        out.buffer.write(data)
        out.buffer.flush()
    except BrokenPipeError as e:                    # the reader went away: as pbem.cli says it
        os.dup2(os.open(os.devnull, os.O_WRONLY), out.fileno())
        print(f"pbem: {e}", file=sys.stderr)
        return 1
    return 0
