"""`pbem help` and `pbem status`: what the mail's HELP and STATUS answer, for a player at
the command line.  The text is the mail's (pbem.host.mailcmd); here it is only printed."""
from __future__ import annotations

import click


def _open(game_dir: str, side: str):
    from pbem.cli import _game
    from pbem.views import side_id
    g = _game(game_dir)
    return g, side_id(g.scenario, side, referee=False)


def mail_host(g):
    """The mail host that runs game ``g`` (found as `pbem new` finds it), or None."""
    from pbem.host import HostError
    from pbem.host.config import find_host
    try:
        root = find_host(g.dir if g.store.kind == "files" else None)
        if root is None:
            return None
        from pbem.host import Host
        host = Host.open(root)
        return host if host.game(g.game_id) is not None else None
    except (HostError, OSError):
        return None


@click.command("help")
@click.argument("game_dir")
@click.option("--as", "side", required=True, help="The side (its id, or its name as `pbem scenarios` prints it).")
def help_cmd(game_dir, side) -> None:
    """The orders of this game and step for SIDE, with examples, what the game waits for,
    the set-up choices now, and the mail commands (as the mail's HELP)."""
    from pbem.host.mailcmd import help_lines
    g, side = _open(game_dir, side)
    for line in help_lines(g, g.state(), side):
        click.echo(line)


@click.command("status")
@click.argument("game_dir")
@click.option("--as", "side", required=True, help="The side (its id, or its name as `pbem scenarios` prints it).")
def status_cmd(game_dir, side) -> None:
    """Whose move, what the game waits for, the score, SIDE's deadlines and staged orders
    (as the mail's STATUS)."""
    from pbem.host.mailcmd import status_lines
    g, side = _open(game_dir, side)
    st, head = g.state_and_hash()
    for line in status_lines(mail_host(g), g, st, side, head):
        click.echo(line)


def register(main: click.Group) -> None:
    for cmd in (help_cmd, status_cmd):
        main.add_command(cmd)
