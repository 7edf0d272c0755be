"""Command line for trust: `pbem receipt check` (players), `pbem dice contribute|reveal`
(players), `pbem key register|show` (the host).  Parse, call pbem/trust, print."""
from __future__ import annotations

import os
import sys
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


def _fail(message: str, code: int = 1) -> None:
    click.echo(f"pbem: {message}", err=True)
    sys.exit(code)


def _read_key(text: str | None, path: str | None) -> str:
    if path:
        try:
            return Path(path).read_text().strip()
        except OSError as e:
            _fail(f"cannot read {path}: {e.strerror}", 2)
    if not text:
        _fail("give the host's public key: --host-key 'ssh-ed25519 AAAA...' or --host-key-file FILE "
              "(from the welcome mail, or `pbem host show`)", 2)
    return text


# --- pbem receipt ----------------------------------------------------------------------

@click.group("receipt")
def receipt_grp() -> None:
    """The host's signed receipts: check one you kept."""


@receipt_grp.command("check")
@click.argument("receipt", type=click.File("rb"), default="-")
@click.option("--host-key", "host_key", metavar="PUBKEY", help="The host's public key ('ssh-ed25519 AAAA...').")
@click.option("--host-key-file", type=click.Path(exists=True, dir_okay=False), help="A file holding it.")
@click.option("--game", "game_dir", type=click.Path(exists=True, file_okay=False),
              help="A copy of the game (its log and scenario): it must hold the receipt's head at its seq.")
@click.option("--orders", "orders", type=click.File("rb"), help="The order text you sent: it must be the one receipted.")
def receipt_check(receipt, host_key, host_key_file, game_dir, orders) -> None:
    """Check a RECEIPT (a file, or - for standard input: a whole answer mail will do)
    against the host's key; exit 1 if it does not hold."""
    from pbem.trust import receipt as R
    from pbem.trust.sshsig import SigError
    key = _read_key(host_key, host_key_file)
    try:
        rec = R.read(receipt.read().decode("utf-8", "replace"), key)
    except SigError as e:
        _fail(f"the receipt does not hold: {e}")
    click.echo(f"the host ({rec.signer.fingerprint}) signed: game {rec.game}, seq {rec.seq}, head {rec.head}")
    if orders is not None:
        text = orders.read().decode("utf-8", "replace")
        if R.order_hash(text) != rec.orders and R.order_hash(text.replace("\r\n", "\n")) != rec.orders:
            _fail("the receipt is for another order text than this one")
        click.echo("the order text is the one the host received")
    if game_dir:
        from pbem.engine import Game
        why = R.check_against(rec, Game(Path(game_dir)))
        if why:
            _fail(why)
        click.echo(f"the copy in {game_dir} holds that head at seq {rec.seq}")


# --- pbem dice -------------------------------------------------------------------------

@click.group("dice")
def dice_grp() -> None:
    """Your contribution to a game's dice (scheme 2): commit first, reveal later."""


@dice_grp.command("contribute")
@click.argument("value_file", type=click.Path(dir_okay=False))
def dice_contribute(value_file) -> None:
    """Make 32 random bytes, keep them in VALUE_FILE (mode 0600) and print the order
    that commits to them; send it in your orders."""
    import hashlib
    import secrets
    value = secrets.token_bytes(32)
    try:
        fd = os.open(value_file, os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o600)
    except FileExistsError:
        _fail(f"{value_file} already exists: it holds a contribution (reveal it with `pbem dice reveal {value_file}`)")
    with os.fdopen(fd, "w") as f:
        f.write(value.hex() + "\n")
    click.echo(f"entropy commit {hashlib.sha256(value).hexdigest()}")


@dice_grp.command("reveal")
@click.argument("value_file", type=click.Path(exists=True, dir_okay=False))
def dice_reveal(value_file) -> None:
    """Print the order that reveals the contribution kept in VALUE_FILE."""
    value = Path(value_file).read_text().strip()
    if len(value) != 64 or any(c not in "0123456789abcdef" for c in value.lower()):
        _fail(f"{value_file} does not hold a contribution (64 hex digits)")
    click.echo(f"entropy reveal {value.lower()}")


# --- pbem key --------------------------------------------------------------------------

@click.group("key")
def key_grp() -> None:
    """The SSH keys a game's sides sign their orders with."""


@key_grp.command("register")
@click.argument("game_dir", type=_game_arg())
@click.option("--as", "side", required=True, help="The side.")
@click.argument("key")
@click.option("--force", is_flag=True, help="Replace a key after the game began (a lost key; audits show the change).")
def key_register(game_dir, side, key, force) -> None:
    """Register KEY ('ssh-ed25519 AAAA...') for SIDE (host only): appends KeyRegistered."""
    from pbem.engine import EngineError, Game
    from pbem.views import side_id
    try:
        g = Game(_open(game_dir))
        side = side_id(g.scenario, side, referee=False)
        fp = g.register_key(side, key, force=force)
    except EngineError as e:
        _fail(str(e))
    click.echo(f"{side}: orders are signed with {fp} from now on")


@key_grp.command("show")
@click.argument("game_dir", type=_game_arg())
def key_show(game_dir) -> None:
    """Each side's registered key and whether signatures are required."""
    from pbem.engine import Game
    from pbem.trust.sshsig import parse_public_key
    g = Game(_open(game_dir))
    keys = g.state().keys
    for side in g.scenario.side_ids():
        k = keys.get(side)
        click.echo(f"{side:<12} {parse_public_key(k).fingerprint + '  ' + k if k else '(no key: orders unsigned)'}")
    click.echo("signatures: " + ("required" if g.created.signatures == "required" else "optional"))


def register(main: click.Group) -> None:
    for cmd in (receipt_grp, dice_grp, key_grp):
        main.add_command(cmd)
