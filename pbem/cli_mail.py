"""Command line for playing by mail: `pbem host`, `pbem mail`, `pbem orders`,
`pbem serve`, `pbem deadline`.  Parse, call host.py / mail.py, print."""
from __future__ import annotations

import os
import sys
from pathlib import Path

import click

# host.py and mail.py are imported inside the commands: `pbem --help` stays fast.


def _fail(message: str, code: int = 1) -> None:
    click.echo(f"pbem: {message}", err=True)
    sys.exit(code)


def _host_errors():
    from pbem.host import HostError
    from pbem.host.mail import MailError
    return (HostError, MailError)


class _MailGroup(click.Group):
    """Host and mail errors become one line on standard error, exit 1."""

    def invoke(self, ctx):
        try:
            return super().invoke(ctx)
        except _host_errors() as e:
            _fail(str(e))


def _host_root(given: str | None, start: Path | None = None) -> Path:
    from pbem.host import HostError, find_host
    if given:
        return Path(given)
    root = find_host(start)
    if root is None:
        raise HostError("no pbem host found: pass --host DIR, set PBEM_HOST, or create one with `pbem host init DIR`")
    return root


def _host(given: str | None, start: Path | None = None, echo=None):
    from pbem.host import Host
    return Host.open(_host_root(given, start), echo=echo)


def _game_arg():
    from pbem.cli_args import GameArg
    return GameArg()


def open_game(arg: str, root: Path | None = None):
    """The game folder or (a database host) game id ``arg``, on the host ``root``."""
    from pbem.store import open_game as found
    return found(arg, root)


host_option = click.option("--host", "host_dir", type=click.Path(file_okay=False),
                           help="The host folder (default: $PBEM_HOST, else the nearest folder above holding pbem-host.toml).")


def _server(text: str | None, default_port: int) -> tuple[str, int] | None:
    if not text:
        return None
    name, sep, port = text.rpartition(":")
    if sep and port.isdigit():
        return name, int(port)
    return text, default_port


# --- pbem host ---------------------------------------------------------------

@click.group("host", cls=_MailGroup)
def host_grp() -> None:
    """Set up and inspect a mail host (the referee's mailbox)."""


@host_grp.command("init")
@click.argument("host_dir", type=click.Path(file_okay=False), default=".")
@click.option("--address", required=True, help="The host's e-mail address: players send orders here.")
@click.option("--name", default="pbem referee", show_default=True, help="Display name on outgoing mail.")
@click.option("--referee", help="Where the referee copy of every report goes (default: the host address; '' = nobody).")
@click.option("--games", default="games", show_default=True, help="Folder for new games, relative to HOST_DIR.")
@click.option("--imap", metavar="SERVER[:PORT]", help="Read orders from this IMAP server instead of the Maildir HOST_DIR/inbox.")
@click.option("--imap-user", help="IMAP login (default: the host address).")
@click.option("--imap-security", type=click.Choice(["tls", "starttls", "none"]),
              help="Default: tls; \"none\" for a server on loopback (127.0.0.1, localhost).")
@click.option("--smtp", metavar="SERVER[:PORT]", help="Send mail through this SMTP server instead of writing .eml files to HOST_DIR/outbox.")
@click.option("--smtp-user", help="SMTP login (default: the host address; none for a server on loopback).")
@click.option("--smtp-security", type=click.Choice(["starttls", "tls", "none"]),
              help="Default: starttls; \"none\" for a server on loopback (127.0.0.1, localhost).")
@click.option("--ask-passwords", is_flag=True, help="Ask for the IMAP/SMTP passwords and keep them in credentials.toml (mode 0600).")
@click.option("--deadline", "period", default="72h", show_default=True, help="Time for each decision ('off' = no deadlines).")
@click.option("--reminder", default="24h", show_default=True, help="Remind the late side this long before a deadline.")
@click.option("--clock", metavar="HH:MM", help="Deadlines fall at this time of day (e.g. 23:30).")
@click.option("--days", metavar="MASK", help="...on these days, Sunday first, '-' for none: -MTWTF- is Monday to Friday.")
@click.option("--minimum", metavar="DURATION", help="A deadline is never less than this after the decision arises.")
@click.option("--grace", metavar="DURATION", help="After a deadline: the late side is named to all; the default after this.")
@click.option("--zone", metavar="ZONE", help="The time zone the clock and days are read in (default UTC), e.g. Europe/Berlin.")
@click.option("--store", "store_url", default="", metavar="postgresql://...",
              help="Keep the games, the mail journal and the spool in this PostgreSQL database (many workers).")
def host_init(host_dir, address, name, referee, games, imap, imap_user, imap_security, smtp, smtp_user,
              smtp_security, ask_passwords, period, reminder, clock, days, minimum, grace, zone,
              store_url) -> None:
    """Create a host in HOST_DIR: pbem-host.toml, inbox Maildir, outbox, games folder.

    Passwords never go into pbem-host.toml: give them with --ask-passwords
    (kept in credentials.toml, mode 0600) or in the environment variables
    PBEM_IMAP_PASSWORD and PBEM_SMTP_PASSWORD."""
    from pbem.host import init_host
    from pbem.host.mail import LOOPBACK
    incoming = outgoing = None
    passwords = {}
    # a test server on loopback speaks no TLS and takes mail without a login: propose that
    local = {k: bool(v) and _server(v, 0)[0].strip("[]") in LOOPBACK for k, v in (("imap", imap), ("smtp", smtp))}
    imap_security = imap_security or ("none" if local["imap"] else "tls")
    smtp_security = smtp_security or ("none" if local["smtp"] else "starttls")
    if smtp_user is None and local["smtp"] and smtp_security == "none":
        smtp_user = ""
    srv = _server(imap, 993 if imap_security == "tls" else 143)
    if srv:
        incoming = {"kind": "imap", "server": srv[0], "port": srv[1], "security": imap_security,
                    "user": imap_user or address, "folder": "INBOX", "processed_folder": "pbem-processed",
                    "quarantine_folder": "pbem-quarantine"}
        if ask_passwords:
            passwords["imap"] = click.prompt(f"IMAP password for {imap_user or address}", hide_input=True)
    srv = _server(smtp, 465 if smtp_security == "tls" else 587)
    if srv:
        outgoing = {"kind": "smtp", "server": srv[0], "port": srv[1], "security": smtp_security,
                    "user": address if smtp_user is None else smtp_user}
        if ask_passwords and outgoing["user"]:
            passwords["smtp"] = click.prompt(f"SMTP password for {smtp_user or address}", hide_input=True)
    ck = {k: v for k, v in (("clock", clock), ("days", days), ("minimum", minimum), ("grace", grace),
                            ("zone", zone)) if v is not None}
    cfg = init_host(Path(host_dir), address, name=name, referee=referee, games=games, incoming=incoming,
                    outgoing=outgoing, period=period, reminder=reminder, passwords=passwords or None, clock=ck,
                    store=store_url)
    click.echo(f"host created in {cfg.root} for {cfg.address}")
    if cfg.store_url:
        from pbem.store import host_store
        click.echo(f"  games, journal and spool in {host_store(cfg).describe()} (schema made)")
    if cfg.incoming.get("kind") == "imap":
        click.echo(f"  orders come from IMAP {cfg.incoming['server']}:{cfg.incoming['port']} ({cfg.incoming['folder']})")
    else:
        click.echo(f"  orders come into the Maildir {cfg.root / cfg.incoming.get('maildir', 'inbox')} "
                   "(deliver there with getmail, fetchmail or your mail server)")
    if cfg.outgoing.get("kind") == "smtp":
        o = cfg.outgoing
        login = f"as {o['user']}" if o.get("user") else "without a login"
        click.echo(f"  mail goes out through SMTP {o['server']}:{o['port']} ({o['security']}, {login})")
    else:
        click.echo(f"  mail goes out as .eml files into {cfg.root / cfg.outgoing.get('outbox', 'outbox')}")
    if (imap or (smtp and cfg.outgoing.get("user"))) and not ask_passwords:
        click.echo("  passwords: set PBEM_IMAP_PASSWORD / PBEM_SMTP_PASSWORD, or put them in "
                   f"{cfg.root / 'credentials.toml'} (mode 0600, [imap] and [smtp] password = \"...\")")
    games = cfg.games_dir
    if games.is_relative_to(cfg.root):
        games = games.relative_to(cfg.root)
    click.echo(f"next: cd {cfg.root} && pbem new {games}/GAME --scenario ID --player SIDE=EMAIL ...")


@host_grp.command("show")
@host_option
def host_show(host_dir) -> None:
    """Show the host's configuration (never a password) and its games."""
    from pbem.host import fmt_duration, password
    from pbem.host.clock import days_text
    h = _host(host_dir)
    c = h.cfg
    click.echo(f"host {c.root}\n  address {c.address}\n  referee copies to {c.referee or '(nobody)'}")
    for section in ("incoming", "outgoing"):
        d = getattr(c, section)
        desc = ", ".join(f"{k}={v}" for k, v in d.items())
        click.echo(f"  {section}: {desc}")
        if d.get("kind") in ("imap", "smtp") and d.get("user"):
            which = d["kind"]
            src = ("environment" if os.environ.get(f"PBEM_{which.upper()}_PASSWORD")
                   else "credentials.toml" if password(c, which) else "MISSING")
            click.echo(f"    password: {src}")
    click.echo(f"  deadlines: {fmt_duration(c.period)}, reminder {fmt_duration(c.reminder)} before, "
               f"absences up to {fmt_duration(c.absence) + ' in any ' + fmt_duration(c.absence_window) if c.absence else 'none'}")
    clock = (f"at {c.clock.strftime('%H:%M')} " if c.clock else "") + f"on {days_text(c.days)} ({c.zone})"
    click.echo(f"  deadline clock: {clock}; minimum {fmt_duration(c.minimum)}, grace {fmt_duration(c.grace)}")
    if c.notify_url:
        from pbem.host.notify import shown
        click.echo(f"  webhooks: every player's at {shown(c.notify_url)} ({c.notify_format})")
    svg = {True: "every report", False: "never", "final": "the final report only"}[c.map_svg]
    click.echo(f"  maps: PNG {'at most ' + str(c.map_width) + ' px wide' if c.map_png else 'off'}; SVG {svg}")
    click.echo(f"  orders by mail: {c.orders_mode}; messages up to {c.max_bytes:,} bytes; press up to "
               f"{c.press_per_mail:,} characters a mail, {c.press_per_step:,} a side and step")
    click.echo(f"  mail out: at most {c.max_out:,} bytes a mail (maps left out, then the text cut, to fit)")
    for gid, p in sorted(h.games().items()):
        click.echo(f"  game {gid}: {p}")
    if h.pending():
        click.echo(f"  {h.pending()} mail(s) wait in the spool")


@host_grp.command("status")
@host_option
@click.option("--json", "as_json", is_flag=True, help="One JSON object per game instead of the table.")
def host_status(host_dir, as_json) -> None:
    """One row per hosted game: scenario, turn and phase, whose move, deadline
    and time left, last mail in and out, quarantined messages (reads only)."""
    import json
    from pbem.host.status import board
    h = _host(host_dir)
    rows, text = board(h)
    if as_json:
        for r in rows:
            click.echo(json.dumps(r, sort_keys=True))
        for w in h.store.workers():                 # a database's workers: one object each, after the games
            click.echo(json.dumps(w, sort_keys=True))
    else:
        click.echo(text, nl=False)


@host_grp.command("add")
@click.argument("game_dir", type=click.Path(exists=True, file_okay=False))
@host_option
def host_add(game_dir, host_dir) -> None:
    """Host an existing game: register it, make the players' secrets, mail the welcomes."""
    from pbem.host import add_game
    from pbem.engine import EngineError
    try:
        add_game(_host_root(host_dir, Path(game_dir)), Path(game_dir), echo=click.echo)
    except EngineError as e:
        _fail(str(e))


@host_grp.command("rotate-secret")
@click.argument("game_dir", type=_game_arg())
@click.argument("side")
@click.option("--email", "new_address", metavar="NEW_ADDRESS",
              help="Register this address as the side's player (a new player): the old address is refused from now on.")
@host_option
def host_rotate_secret(game_dir, side, new_address, host_dir) -> None:
    """Give SIDE of the game in GAME_DIR a new secret (a token leaked, a new
    player takes the side) and mail it to the side's player only.  The old
    secret, and with --email the old address, are refused from then on; the
    old address is told it no longer plays the side (without the secret)."""
    from pbem.engine import EngineError, Game
    try:
        h = _host(host_dir, Path(game_dir))
        game = Game(open_game(game_dir, h.cfg.root))
        done = h.rotate_secret(game, side, new_address)
    except EngineError as e:
        _fail(str(e))
    where = h.outbox_path if h.cfg.outgoing.get("kind", "outbox") == "outbox" else h.cfg.outgoing.get("server")
    click.echo(f"game {done['game']}: new secret for {done['side']} mailed to {done['to']} (via {where})")
    if done["old"]:
        click.echo(f"  {done['old']} was told it no longer plays {done['side']}; its mail is refused from now on")
    click.echo(f"  the old secret is refused from now on; the new one is in {done['file']} (mode 0600)")
    if h.pending():
        click.echo(f"{h.pending()} mail(s) wait in the spool; `pbem mail poll` retries (see {h.logfile})")


# --- pbem mail ----------------------------------------------------------------

@click.group("mail", cls=_MailGroup)
def mail_grp() -> None:
    """Take in order mail: single files, or everything waiting in the inbox."""


def _print_outcomes(outcomes) -> None:
    for oc in outcomes:
        click.echo(oc.line())


@mail_grp.command("ingest")
@click.argument("files", nargs=-1, required=True, type=click.Path(exists=True, dir_okay=False))
@host_option
def mail_ingest(files, host_dir) -> None:
    """Process message files (.eml): check, apply, answer.  The files stay
    where they are; a copy goes to mail/processed or mail/quarantine.  A
    message quarantined before is looked at again (it changed nothing then),
    e.g. after `pbem host add` registered its game."""
    h = _host(host_dir)
    outcomes = h.ingest_files([Path(f) for f in files])
    _print_outcomes(outcomes)
    for line in h.flush_problems:
        click.echo(f"pbem: {line}", err=True)
    if h.pending():
        click.echo(f"{h.pending()} mail(s) wait in the spool: `pbem host status` shows why (and {h.logfile})")
    if any(oc.status == "error" for oc in outcomes) or h.flush_problems:
        sys.exit(1)


@mail_grp.command("poll")
@host_option
def mail_poll(host_dir) -> None:
    """Process everything waiting in the inbox once, apply due deadlines, send the answers."""
    h = _host(host_dir)
    outcomes = h.poll()
    _print_outcomes(outcomes)
    if not _poll_said(h, outcomes):
        sys.exit(1)


def _poll_said(h, outcomes) -> bool:
    """What a poll did besides reading mail, and what went wrong (on standard error);
    False when something did (so cron, which mails a failing job's output, notices)."""
    rep = h.last_poll
    if not outcomes and not any(p.startswith("inbox:") for p in rep.problems):
        click.echo("inbox empty")
    for line in rep.did:
        click.echo(line)
    if rep.sent:
        click.echo(f"sent {rep.sent} mail(s)")
    for line in rep.problems:
        click.echo(f"pbem: {line}", err=True)
    if h.pending():
        click.echo(f"{h.pending()} mail(s) wait in the spool: `pbem host status` shows why (and {h.logfile})",
                   err=bool(rep.problems))
    return not rep.problems


@mail_grp.command("quarantine")
@host_option
def mail_quarantine(host_dir) -> None:
    """List quarantined messages and why (re-process one with `pbem mail ingest FILE`)."""
    h = _host(host_dir)
    rows = h.quarantined()
    if not rows:
        click.echo("quarantine empty")
    for path, at, reason in rows:
        click.echo(f"{at or '?'} {path}\n    {reason or '(no reason recorded)'}")


@mail_grp.command("demo")
@click.argument("script", type=click.Path(exists=True, file_okay=False))
@click.option("--into", "into", required=True, type=click.Path(file_okay=False), help="New folder for the host, the game and all mail.")
def mail_demo(script, into) -> None:
    """Play an example game (an examples/ folder) entirely by e-mail: a host
    on the embedded defaults (Maildir in, .eml outbox out) and two scripted
    players who read their mail and answer it."""
    from pbem.host.mailplay import MailPlayError, demo
    try:
        summary = demo(Path(script), Path(into), echo=click.echo)
    except MailPlayError as e:
        _fail(str(e))
    click.echo(summary)


# --- pbem orders ----------------------------------------------------------------

@click.group("orders", cls=_MailGroup)
def orders_grp() -> None:
    """Help for players: sign orders for an e-mail."""


@orders_grp.command("sign")
@click.argument("orders", type=click.File("rb"), default="-")
@click.option("--game", "game_id", help="The game id (as in [pbem GAME-ID]).")
@click.option("--side", help="Your side.")
@click.option("--head", help="The head hash of your latest report.")
@click.option("--secret-file", type=click.Path(exists=True, dir_okay=False), help="File holding your secret (else $PBEM_SECRET).")
@click.option("--key", "key_path", type=click.Path(exists=True, dir_okay=False),
              help="Sign with your SSH private key instead (namespace pbem): alone, the signature of FILE exactly "
                   "as `ssh-keygen -Y sign -n pbem FILE` writes it; with --game/--side/--head, a whole mail body.")
def orders_sign(orders, game_id, side, head, secret_file, key_path) -> None:
    """Print a mail body: your orders (FILE or - for standard input) with
    Game/Side/Head lines and a Signature: line.  The secret itself is not
    in it; the host checks the signature with its copy.  With --key: an SSH
    signature instead (see --key)."""
    if key_path:
        return _ssh_sign(orders.read(), key_path, game_id, side, head)
    if not (game_id and side and head):
        _fail("give --game, --side and --head (or --key PATH to sign with your SSH key)", 2)
    from pbem.host.mail import signed_body
    if secret_file:
        secret = _utf8(Path(secret_file).read_bytes(), f"the secret file {secret_file}").strip()
    else:
        secret = os.environ.get("PBEM_SECRET", "").strip()
    if not secret:
        _fail("no secret: give --secret-file FILE or set PBEM_SECRET", 2)
    head = head.strip().lower()
    if len(head) < 12 or any(c not in "0123456789abcdef" for c in head):
        _fail("--head must be the head hash from your report (at least 12 hex digits)", 2)
    text = _utf8(orders.read(), "the orders")
    click.echo(signed_body(secret, game_id, side, head, text), nl=False)


def _ssh_sign(data: bytes, key_path: str, game_id, side, head) -> None:
    """``pbem orders sign --key``: the SSH signature of the orders (pbem.trust)."""
    from pbem.trust import signed, sshsig
    try:
        key = Path(key_path).read_bytes()
        if not (game_id or side or head):
            click.echo(sshsig.sign(data, key, signed.NAMESPACE), nl=False)   # ssh-keygen's .sig, byte for byte
            return
        if not (game_id and side and head):
            _fail("with --key give all of --game, --side and --head, or none (the signature of FILE alone)", 2)
        text = f"Game: {game_id}\nSide: {side}\nHead: {head.strip().lower()}\n\n" + _utf8(data, "the orders").strip() + "\n"
        click.echo(text + sshsig.sign(text.encode("utf-8"), key, signed.NAMESPACE), nl=False)
    except sshsig.SigError as e:
        _fail(str(e))
    except OSError as e:
        _fail(f"cannot read {key_path}: {e.strerror}")


def _utf8(data: bytes, what: str) -> str:
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as e:
        _fail(f"{what}: not UTF-8 text (byte {e.start}); save as UTF-8 and try again", 2)


# --- pbem serve, pbem deadline -------------------------------------------------------

@click.command("serve")
@host_option
@click.option("--interval", type=float, help="Seconds between polls (default: [serve] interval in pbem-host.toml).")
@click.option("--once", is_flag=True, help="Poll once and stop.")
@click.option("--workers", type=click.IntRange(1, 256), default=1, show_default=True,
              help="Worker processes on the host's database ([store] url); each is started again if it dies.")
def serve_cmd(host_dir, interval, once, workers) -> None:
    """Run the host: poll the inbox, answer, apply deadlines, deliver mail;
    stops cleanly on SIGTERM or Ctrl-C after the message in hand."""
    from pbem.host import HostError
    from pbem.host.mail import MailError
    from pbem.store import StoreError
    try:
        if workers > 1:
            from pbem.host.workers import supervise
            supervise(_host_root(host_dir), workers, interval, echo=lambda s: click.echo(s, err=True))
            return
        h = _host(host_dir, echo=lambda s: click.echo(s, err=True))
        h.serve(interval=interval, once=once)
    except (HostError, MailError, StoreError) as e:
        _fail(str(e))
    if once:                                    # as `pbem mail poll`: a problem is exit 1
        for line in h.last_poll.problems:
            click.echo(f"pbem: {line}", err=True)
        if h.last_poll.problems:
            sys.exit(1)


@host_grp.command("export")
@click.argument("out_dir", type=click.Path(file_okay=False))
@host_option
def host_export(out_dir, host_dir) -> None:
    """Write every game of the host's database into OUT_DIR as today's game
    folders (log.jsonl, log.head and the documents; pbem verify and pbem audit
    work on them offline), and the mail journal as state/journal/."""
    from pbem.store.moving import MoveError, export_host
    h = _host(host_dir)
    if not h.store.shared:
        raise _host_errors()[0](f"{h.cfg.root} keeps its games as files already ({h.cfg.games_dir})")
    try:
        done = export_host(h.store, Path(out_dir), echo=click.echo)
    except MoveError as e:
        _fail(str(e))
    click.echo(f"exported {len(done)} game(s) into {out_dir}")


@host_grp.command("import")
@click.argument("from_host", type=click.Path(exists=True, file_okay=False))
@host_option
def host_import(from_host, host_dir) -> None:
    """Load the file host FROM_HOST (its games, mail journal and spool) into this
    host's database; every chain is checked first and copied byte for byte."""
    from pbem.store.moving import MoveError, import_host
    h = _host(host_dir)
    if not h.store.shared:
        raise _host_errors()[0](f"{h.cfg.root} has no database: set [store] url in its pbem-host.toml first")
    try:
        done = import_host(h.store, Path(from_host), echo=click.echo)
    except MoveError as e:
        _fail(str(e))
    click.echo(f"imported {len(done)} game(s) from {from_host} into {h.store.describe()}")


@click.command("deadline")
@click.argument("game_dir", type=_game_arg())
@click.option("--extend", metavar="DURATION", help="Push the running deadline(s) back, e.g. 24h, and tell the players.")
@click.option("--period", metavar="DURATION", help="Time for each later decision of this game ('off' = none).")
@click.option("--clock", metavar="HH:MM", help="This game's deadlines fall at this time of day ('off' = any time).")
@click.option("--days", metavar="MASK", help="...on these days, Sunday first, '-' for none: -MTWTF-.")
@click.option("--minimum", metavar="DURATION", help="Never less than this after a decision arises ('off').")
@click.option("--grace", metavar="DURATION", help="After a deadline: the late side named to all, then the default ('off').")
@click.option("--zone", metavar="ZONE", help="The time zone of the clock and the days (e.g. Europe/Berlin).")
@click.option("--pause", "pause", flag_value=True, default=None,
              help="Stop every deadline of this game (a public event in its log; the players are told).")
@click.option("--resume", "pause", flag_value=False, default=None, help="Start them again, each with the time it had left.")
@host_option
def deadline_cmd(game_dir, extend, period, clock, days, minimum, grace, zone, pause, host_dir) -> None:
    """Show a game's deadlines; the host can extend them, pause and resume them, or set
    this game's own period, clock, days, minimum, grace and zone (over the host's)."""
    from pbem.engine import EngineError, Game
    from pbem.host import HostError, parse_duration
    from pbem.host.mail import MailError
    try:
        h = _host(host_dir, Path(game_dir))
        delta = parse_duration(extend, zero=False) if extend else None
        if extend and delta is None:
            raise HostError("--extend needs a positive duration, e.g. 24h")
        settings = {k: v for k, v in (("clock", clock), ("days", days), ("minimum", minimum), ("grace", grace),
                                      ("zone", zone)) if v is not None}
        for line in h.deadline(Game(open_game(game_dir, h.cfg.root)), extend=delta, period=period, settings=settings, pause=pause):
            click.echo(line)
    except (HostError, MailError, EngineError) as e:
        _fail(str(e))


def register(main: click.Group) -> None:
    for cmd in (host_grp, mail_grp, orders_grp, serve_cmd, deadline_cmd):
        main.add_command(cmd)
