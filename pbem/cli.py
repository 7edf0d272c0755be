"""Command line: parse arguments, call the engine, print.  No rules here."""
from __future__ import annotations

import sys
from pathlib import Path

import click

from pbem.cli_fast import REPORT, STATE, click_params   # the two commands' options, declared once

# Heavy modules (the engine, the games, Jinja, email, json) are imported inside
# the commands that use them, so `pbem --help` and `pbem state` start fast.

EXIT_OK, EXIT_REFUSED, EXIT_USAGE = 0, 1, 2


def _fail(message: str, code: int = EXIT_REFUSED) -> None:
    click.echo(f"pbem: {message}", err=True)
    sys.exit(code)


def _known_errors():
    from pbem.core.dice import DiceError
    from pbem.engine import EngineError
    from pbem.log import LogError
    from pbem.host.mail import MailError
    from pbem.core.scenario import ScenarioError
    from pbem.store import StoreError
    # OSError last: a disk full, a permission denied or a missing file is reported, not traced.
    return (EngineError, LogError, ScenarioError, DiceError, MailError, StoreError, OSError)


class _Group(click.Group):
    """Turns the errors pbem expects (bad game dir, tampered log, ...) into one line, exit 1."""

    def invoke(self, ctx):
        try:
            return super().invoke(ctx)
        except _known_errors() as e:
            _fail(str(e))
        except KeyboardInterrupt:
            _fail("interrupted", 130)


def _game(path: str):
    from pbem.engine import Game
    from pbem.store import open_game
    return Game(open_game(path))


from pbem.cli_args import GameArg  # noqa: E402 - a game folder or a database host's game id


@click.group(cls=_Group, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="pbem")
def main() -> None:
    """pbem: play-by-email adjudicator for hex-and-counter wargames.

    Every order is an event appended to a hash-chained log; a seeded,
    deterministic reducer replays the log into the game's state.  A game is
    a directory: create one with `pbem new`, feed it orders with `pbem order`,
    read it with `pbem state` and `pbem report`, audit it with `pbem verify`.
    """


@main.command("scenarios")
def scenarios_cmd() -> None:
    """List the shipped scenarios (id, title, turns, sides)."""
    from pbem import games  # noqa: F401 - the registry checks each scenario against its game's schema
    from pbem.core import scenario as S
    for p in S.shipped():
        try:
            sc = S.load(p)
        except S.ScenarioError as e:
            click.echo(f"{p.stem:<18} (broken: {e})")
            continue
        sides = " vs ".join(s.name for s in sc.sides)
        click.echo(f"{sc.id:<18} {sc.turns:>2} turns  {sides:<40} {sc.title}")


@main.group("scenario")
def scenario_grp() -> None:
    """Scenario files: check them."""


@scenario_grp.command("lint")
@click.argument("ref")
def scenario_lint(ref: str) -> None:
    """Validate a scenario file (PATH or shipped ID); list every problem.

    Each problem is one line, ``FILE: key.path: what is wrong``; then exit 1."""
    from pbem.core import scenario as S
    from pbem.games import UnknownGame, ruleset_for
    try:
        sc = S.load(ref)
    except S.ScenarioError as e:
        if not e.problems:
            raise                                   # not found, not TOML: one line, as for any command
        for line in e.lines():
            click.echo(line)
        where = e.problems[0][0]
        _fail(f"{len(e.problems)} problem(s) in {e.name}; it does not fit the scenario schema"
              + (f" (first at ${'' if where.startswith('[') else '.'}{where})" if where else ""))
    try:
        rules = ruleset_for(sc.game)
    except UnknownGame as e:
        _fail(f"{sc.path}: {e}")
    problems = rules.scenario_problems(sc)
    if problems:
        for p in problems:
            click.echo(f"{sc.path}: {p}")
        _fail(f"{len(problems)} problem(s) in {sc.path}")
    click.echo(f"{sc.path}: ok ({len(sc.units)} units, {len(sc.board.terrain)} hexes, {sc.turns} turns)")


def _parse_players(items: tuple[str, ...]) -> dict[str, str]:
    players = {}
    for it in items:
        side, sep, email = it.partition("=")
        if not sep or not side:
            raise click.BadParameter(f"{it!r}: write SIDE=EMAIL", param_hint="--player")
        players[side] = email
    return players


def _parse_keys(items: tuple[str, ...]) -> dict[str, str]:
    keys = {}
    for it in items:
        side, sep, key = it.partition("=")
        if not sep or not side.strip() or not key.strip():
            raise click.BadParameter(f"{it!r}: write SIDE=\"ssh-ed25519 AAAA...\"", param_hint="--key")
        keys[side.strip()] = key.strip()
    return keys


def _player_prefs(zones: tuple[str, ...], hooks: tuple[str, ...]) -> tuple[dict, dict] | None:
    """--tz SIDE=ZONE and --notify SIDE=URL, checked (the sides once the game exists)."""
    from pbem.host import clock as C
    from pbem.host import notify as N
    tz, urls = {}, {}
    for flag, items, out in (("--tz", zones, tz), ("--notify", hooks, urls)):
        for it in items:
            side, sep, value = it.partition("=")
            if not sep or not side or not value:
                raise click.BadParameter(f"{it!r}: write SIDE={'ZONE' if flag == '--tz' else 'URL'}", param_hint=flag)
            out[side] = C.check_zone(value) if flag == "--tz" else N.check_target(value)
    return (tz, urls) if tz or urls else None


def _by_id(sc, given: dict[str, str]) -> dict[str, str]:
    """SIDE=... options keyed by side id: a side's name as `pbem scenarios` prints it counts too."""
    return {sc.side_of(k) or k: v for k, v in given.items()}


def _parse_dice(text: str | None) -> list[int] | None:
    if text is None:
        return None
    try:
        vals = [int(x) for x in text.replace(" ", "").split(",") if x]
    except ValueError:
        raise click.BadParameter("write comma-separated die faces, e.g. 1,6,3", param_hint="--dice") from None
    if not vals:
        raise click.BadParameter("give at least one die face", param_hint="--dice")
    return vals


@main.command("new")
@click.argument("game_dir", type=click.Path(file_okay=False))
@click.option("--scenario", "scenario_ref", required=True, help="Shipped scenario id (see `pbem scenarios`) or a path.")
@click.option("--player", "players", multiple=True, metavar="SIDE=EMAIL", help="A side's player; repeat per side.")
@click.option("--seed", "seed_hex", metavar="HEX", help="Dice seed (64 hex digits); default: a fresh random seed.")
@click.option("--dice", "dice", metavar="1,6,3,...", help="Scripted dice instead of a seed (tests, teaching; flagged in every report).")
@click.option("--id", "game_id", help="Game id used in mail subjects and dice derivation (default: directory name).")
@click.option("--tz", "zones", multiple=True, metavar="SIDE=ZONE",
              help="The time zone a side's player reads times in, besides UTC (e.g. axis=Europe/Berlin); repeat per side.")
@click.option("--notify", "hooks", multiple=True, metavar="SIDE=URL",
              help="Post a 'your turn' JSON to URL when the game waits for SIDE (discord:URL, slack:URL for those "
                   "services' payloads); a host mails and pings.")
@click.option("--key", "keys", multiple=True, metavar="SIDE=PUBKEY",
              help="The SSH public key a side signs its orders with ('axis=ssh-ed25519 AAAA...'); repeat per side.")
@click.option("--require-signatures", is_flag=True, help="Every order must be signed with its side's key.")
@click.option("--dice-scheme", type=click.Choice(["1", "2"]), default="2", show_default=True,
              help="2: each turn's dice checkable when the turn is over; 1: one seed revealed at the end.")
@click.option("--contributions", is_flag=True,
              help="The players contribute to the dice first (scheme 2: entropy commit / reveal, before any roll).")
def new_cmd(game_dir, scenario_ref, players, seed_hex, dice, game_id, keys, require_signatures, dice_scheme,
            contributions, zones, hooks) -> None:
    """Create a game in GAME_DIR from a scenario."""
    from pbem.engine import Game
    from pbem.host import HostError
    try:
        prefs = _player_prefs(zones, hooks)
    except HostError as e:
        raise click.BadParameter(str(e)) from None
    from pbem.core.scenario import ScenarioError, load
    try:
        sc = load(scenario_ref)
    except ScenarioError:
        sc = None                               # Game.create says what is wrong with it
    players, keys = _parse_players(players), _parse_keys(keys)
    if sc is not None:                          # a side by its id or its name ("Commonwealth" for allied)
        players, keys = (_by_id(sc, d) for d in (players, keys))
        prefs = prefs and (_by_id(sc, prefs[0]), _by_id(sc, prefs[1]))
    if prefs:                                   # a side the scenario lacks: refused before anything is made
        sides = sc.side_ids() if sc is not None else None
        bad = [s for s in [*prefs[0], *prefs[1]] if sides is not None and s not in sides]
        if bad:
            raise click.BadParameter(f"{bad[0]}=...: the scenario has no side {bad[0]!r}; sides: {', '.join(sides)}")
    from pbem.store import new_game_target
    where = new_game_target(Path(game_dir), game_id)     # the folder, or the host's database
    g = Game.create(where, scenario_ref, players, seed_hex=seed_hex,
                    dice=_parse_dice(dice), game_id=game_id, dice_scheme=int(dice_scheme),
                    keys=keys, require_signatures=require_signatures, contributions=contributions)
    if prefs:
        from pbem.host.deadlines import set_preferences
        set_preferences(g, *prefs)
    seq, head = g.head()
    click.echo(f"created game {g.game_id} ({g.scenario.title}) in {g.store.where if g.store.kind != 'files' else game_dir}")
    if g.variant:
        click.echo(f"note: a variant: {len(g.variant)} difference(s) from the printed game "
                   f"(`pbem scenario lint {scenario_ref}` lists them)")
    if g.created.dice_mode == "seeded":
        seed_at = Path(game_dir) / 'seed' if g.store.kind == "files" else "the database (pbem_secrets)"
        click.echo(f"dice: seeded; the seed is in {seed_at} (mode 0600, keep it secret); "
                   f"commitment {g.created.seed_commitment}")
        if g.created.dice_scheme == 2:
            click.echo(f"dice scheme 2: each turn's seed is revealed when the turn is over; chain head "
                       f"{g.created.dice_chain}" + ("; no die is rolled before the players' contributions are in "
                                                    "(entropy commit / reveal)" if g.created.entropy else ""))
    else:
        click.echo("dice: SCRIPTED (tests/teaching) - every report will say so")
    click.echo(f"head {head} (seq {seq})")
    from pbem.host.service import after_new  # with a mail host configured: register, welcome the players
    after_new(g, echo=click.echo)


@main.command("order")
@click.argument("game_dir", type=GameArg())
@click.argument("orders", type=click.File("rb"), required=False)
@click.option("--as", "side", required=True, help="The side giving the orders.")
@click.option("--head", "expect_head", metavar="HASH", help="Refuse unless the log's head is still HASH.")
@click.option("--check", "mode", flag_value="check", help="Only check: say what would be applied and refused; write nothing.")
@click.option("--stage", "mode", flag_value="stage", help="Check and hold the orders for this step (replacing any held); apply them with --final.")
@click.option("--final", "mode", flag_value="final", help="Apply the held orders (or, given ORDERS, these at once).")
@click.option("--unstage", "mode", flag_value="unstage", help="Drop the held orders of this side (no ORDERS read).")
def order_cmd(game_dir, orders, side, expect_head, mode) -> None:
    """Apply text orders from ORDERS (a file, or - / nothing for standard input).

    Read as a mail is: lines that are no order (a greeting, a sign-off) are
    listed as ignored; HELP, STATUS, HISTORY [N] and UNDO lines are answered.
    Exit 0 when every order was applied, 1 when one was refused (the orders
    before it stay applied; the refused one and the rest are not), 2 on usage
    errors.  --check and --stage write nothing to the log (exit 1 when a line
    would be refused; a refused --stage keeps what was held); --final applies
    what --stage held; --unstage drops it."""
    g = _game(game_dir)
    from pbem.log import StaleHead
    from pbem import staging
    from pbem.host import mailcmd
    from pbem.views import side_id
    side = side_id(g.scenario, side, referee=False)
    if mode == "unstage":
        for line in mailcmd.undo_lines(g, side):
            click.echo(line)
        return
    text, later = "", []
    if orders is not None or mode != "final":
        raw = (orders or sys.stdin.buffer).read()          # click.get_binary_stream goes in Click 9
        try:
            text = raw.decode("utf-8-sig")
        except UnicodeDecodeError as e:
            _fail(f"the orders are not UTF-8 text (byte {e.start}); nothing was applied")
        text, mode, later = _read_as_mail(g, side, text, mode)
    if later and (mode in ("check", "stage") or not text.strip()):
        click.echo(f"THEN: {len(later)} block(s) after THEN not held: they are held only with orders applied now"
                   + (" (each is checked when its time comes)" if mode == "check" else ""))
        later = []
    if mode in ("check", "stage"):
        trial = g.check(side, text)
        if mode == "stage" and trial.refused is not None and not staging.not_your_step(g, side, text):
            # not held: what was held before stays
            _print_check(g, side, trial)
            held = staging.staged(g, side)
            _fail("REFUSED: a line would be refused, so these orders were not staged; " +
                  (f"the orders staged at {held.get('at', '?')} are kept as they were" if held
                   else "nothing is staged"))
        try:
            sub = staging.stage(g, side, text, trial=trial) if mode == "stage" else trial
        except staging.NotYourStep as e:
            _print_check(g, side, trial)                 # the head has not moved: the same check
            _fail(str(e))
        _print_check(g, side, sub)
        if mode == "stage":
            click.echo("staged: nothing is applied until `pbem order GAME --as SIDE --final` (or the deadline)"
                       if text.strip() else "nothing staged (no orders)")
        sys.exit(EXIT_REFUSED if sub.refused is not None else EXIT_OK)
    try:
        if mode == "final" and not text.strip():
            # taken and applied as one step under the log's lock: exactly once (staging.final)
            sub, note = staging.final(g, side, lambda held: g.submit(side, held, expect_head=expect_head))
            if note == staging.ALREADY:
                seq, head = g.head()
                click.echo("the staged orders were in the log already (applied before an interruption); "
                           f"not applied again\nhead {head} (seq {seq})")
                return
            if note == staging.UNDER:
                _fail(note)
            if note:
                click.echo(note, err=True)
            if sub is None:
                _fail("no orders are staged for this side's current step; nothing was applied")
        else:
            if text.strip():
                staging.discard(g, side)            # orders applied now replace what was staged
            sub = g.submit(side, text, expect_head=expect_head)
    except StaleHead as e:
        _fail(str(e))
    _run_ahead(g, side, sub, text, later)
    for a in sub.applied:
        click.echo(f"applied  line {a.line}: {a.text}")
        from pbem.report.render import describe
        for ev in a.events:
            text = describe(ev, g.scenario, side)
            if text:
                click.echo(f"         {text}")
    if sub.refused is not None:
        click.echo(f"REFUSED  {sub.refused}", err=True)
        if sub.not_applied:
            click.echo("not applied: " + " | ".join(sub.not_applied), err=True)
        click.echo(f"head {sub.head} (seq {sub.seq})")
        sys.exit(EXIT_REFUSED)
    if not sub.applied:
        click.echo("no orders in the input")
    click.echo(f"head {sub.head} (seq {sub.seq})")


def _run_ahead(g, side: str, sub, text: str, later: list[str]) -> None:
    """Orders ahead (pbem.ahead): orders applied from ORDERS replace what this side held,
    by the blocks after its THEN lines; then every held block whose time came is applied."""
    from pbem import ahead
    if not sub.applied:
        return
    if text.strip():
        if later and sub.refused is not None:
            click.echo("THEN: the orders after THEN were not held, as a line before them was refused")
        ahead.hold(g, side, later if sub.refused is None else [], "", g.state().turn)
    for r in (ahead.run(g, side) if ahead.moved(sub) else []):
        own = r["side"] == side or r["status"] == "applied"      # another side's unapplied orders stay private
        click.echo(f"held     {g.scenario.side_name(r['side'])}: {r['status']}"
                   + (f": {ahead.shown([r['text']])}" if own else "")
                   + (f" ({r['why']}; dropped with the rest)" if r["why"] and own else ""))
    for line in ahead.lines_for(g, side):
        click.echo(line)


def _read_as_mail(g, side: str, text: str, mode):
    """The orders of ``text`` read as the mail reads them (pbem.host.mailcmd.read): the
    ignored lines listed, HELP / STATUS / HISTORY / UNDO answered, CHECK / DRAFT / FINAL
    taken as --check / --stage / --final when no option says; the orders (and press) in
    their line positions, and the mode."""
    from pbem.host import mailcmd
    req = mailcmd.read(text, "", g)
    for i in req.ignored:
        click.echo(f"ignored  line {i['line']}: {i['text']}" + (f"    ({i['hint']})" if i["hint"] else ""))
    st, head = g.state_and_hash()
    for name, arg in req.commands:
        if name in ("help", "status", "history", "undo"):
            from pbem.cli_play import mail_host
            lines = {"help": lambda: mailcmd.help_lines(g, st, side),
                     "status": lambda: mailcmd.status_lines(mail_host(g), g, st, side, head),
                     "history": lambda: mailcmd.history_lines(g, side, arg),
                     "undo": lambda: mailcmd.undo_lines(g, side)}[name]()
            click.echo(f"{name.upper()} {arg}".rstrip())
            for line in lines:
                click.echo(f"  {line}")
        else:
            click.echo(f"ignored  {' '.join([name.upper(), *([arg] if arg else [])])}: a mail command; "
                       "send it by mail to the host")
    if mode is None and req.mode:
        mode = {"check": "check", "draft": "stage", "final": "final"}[req.mode]
    kept = mailcmd.merge(req.orders, req.press)
    return (kept + ("\n" if text.endswith("\n") and kept.strip() and not kept.endswith("\n") else ""), mode,
            req.ahead)


def _print_check(g, side: str, sub) -> None:
    """What a check found, line by line: nothing of it was written."""
    from pbem.host.mailcmd import check_lines
    for line in check_lines(g, side, sub):
        click.echo(line)


@main.command(STATE.name, help=STATE.help)
@click_params(STATE)
def state_cmd(game_dir, side, at, as_json) -> None:
    from pbem.cli_fast import state_text
    click.echo(state_text(game_dir, side, at, as_json), nl=False)


@main.command(REPORT.name, help=REPORT.help)
@click_params(REPORT)
def report_cmd(game_dir, side, at, since, fmt, output) -> None:
    from pbem.cli_fast import report_bytes
    data = report_bytes(game_dir, side, at, since, fmt)
    if output:
        from pbem.log import write_output
        write_output(Path(output), data)            # a regular file or a new path, never a device or a link
        click.echo(f"wrote {output}")
    else:
        sys.stdout.buffer.write(data)
        sys.stdout.flush()
    # Reading a report records nothing: "since the last report" is the host's mail bookkeeping.


@main.command("log")
@click.argument("game_dir", type=GameArg())
@click.option("--as", "side", help="Redact for this side (default: referee, everything).")
@click.option("--json", "as_json", is_flag=True, help="One JSON object per line.")
def log_cmd(game_dir, side, as_json) -> None:
    """Print the event log, redacted for SIDE."""
    from pbem.report.render import describe
    from pbem.views import log_view, viewer
    g = _game(game_dir)
    side = viewer(g, side)
    entries = g.entries()
    if as_json:
        import json
        for row in log_view(entries, side, g.rules):
            click.echo(json.dumps(row))
        return
    from pbem.core.orders import visible             # a log written before orders were cleaned may hold ESC
    for en in entries:
        click.echo(visible(f"{en.seq:>5} {en.hash[:12]} {en.at} {en.kind:<18} {describe(en.event, g.scenario, side)}"))


@main.command("verify")
@click.argument("game_dir", type=GameArg())
@click.option("--head", "expect_head", metavar="HASH",
              help="Also require this head (e.g. from your latest report); proves the tail without log.head.")
def verify_cmd(game_dir, expect_head) -> None:
    """Check the hash chain and re-run every order through the rules.

    Exit 0 only if the chain holds, its head is anchored (by log.head or
    --head HASH: a missing, unreadable or lagging log.head fails unless
    --head matches), every logged event follows from the orders, the
    scenario and the dice, and a seed file present matches the commitment."""
    g = _game(game_dir)
    bar = None
    total_seen = [0]

    def progress(i, total):
        nonlocal bar
        if total < 2000 or not sys.stderr.isatty():
            return
        if bar is None:
            bar = click.progressbar(length=total, label="replaying", file=sys.stderr)
            bar.__enter__()
        bar.update(i - total_seen[0])
        total_seen[0] = i

    rep = g.verify(progress=progress, expect_head=expect_head)
    if bar is not None:
        bar.__exit__(None, None, None)
    for n in rep.notes:
        click.echo(f"note: {n}")
    if rep.ok:
        click.echo(f"ok: {rep.events} events, hash chain intact, every event follows from the rules; head {rep.head}")
        return
    for p in rep.problems:
        click.echo(f"FAIL: {p}", err=True)
    sys.exit(EXIT_REFUSED)


@main.command("reveal")
@click.argument("game_dir", type=GameArg())
@click.option("--force", is_flag=True, help="Reveal although the game is not over (it then takes no more orders).")
def reveal_cmd(game_dir, force) -> None:
    """Append SeedRevealed (host only): ends the secrecy of the dice.

    Before the game is over it refuses unless --force: once the seed is out
    every future roll is known, so no order is applied after a reveal."""
    g = _game(game_dir)
    if g.state().result is None:
        if not force:
            _fail("the game is not over: revealing the seed now would let everyone predict every future roll, "
                  "and the game would take no more orders; add --force to reveal anyway")
        click.echo("warning: the game is not over; from now on no order can be applied to it", err=True)
    seed = g.reveal()
    click.echo(f"revealed seed {seed}; `pbem verify` now checks every roll")


@main.command("play")
@click.argument("script", type=click.Path(exists=True, dir_okay=True))
@click.option("--into", "into", required=True, type=click.Path(file_okay=False), help="Directory for the new game and its reports.")
@click.option("--no-reveal", is_flag=True, help="Keep the seed secret at the end (the game can go on).")
def play_cmd(script, into, no_reveal) -> None:
    """Play a scripted game (an examples/ folder) from scratch into INTO,
    writing every side's report and map after each step."""
    from pbem.playbook import PlaybookError, play
    try:
        summary = play(Path(script), Path(into), echo=click.echo, reveal=not no_reveal)
    except PlaybookError as e:
        _fail(str(e))
    click.echo(summary)


from pbem.cli_mail import register as _register_mail  # noqa: E402 - pbem host|mail|orders|serve|deadline
_register_mail(main)
from pbem.cli_referee import register as _register_referee; _register_referee(main)
from pbem.cli_trust import register as _register_trust; _register_trust(main)  # noqa: E402,E702 - receipt|dice|key
from pbem.cli_play import register as _register_play; _register_play(main)  # noqa: E402,E702 - help|status
