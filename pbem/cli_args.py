"""Argument types shared by the command-line modules (they import no command module,
so each command module may use them at import time)."""
from __future__ import annotations

from pathlib import Path

import click


class GameArg(click.Path):
    """A game folder, or the id of a game in the database of the host found from the
    current folder ([store] url); anything else is the missing folder it names.  A
    command with ``--host`` takes the id as it is and looks it up on that host."""

    def __init__(self):
        super().__init__(file_okay=False)

    def convert(self, value, param, ctx):
        if not Path(value).exists():
            from pbem.store import StoreError, open_game
            try:
                found = open_game(value)
            except StoreError as e:
                self.fail(str(e), param, ctx)
            if isinstance(found, Path) and not any(p.name == "host_dir" for p in getattr(ctx, "command", None)
                                                   and ctx.command.params or ()):
                self.fail(f"Directory {click.format_filename(value)!r} does not exist.", param, ctx)
            return value                # a command with --host looks the id up on that host itself
        return super().convert(value, param, ctx)
