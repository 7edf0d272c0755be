"""Moving a host between the stores.

``export_host`` writes every game of a database as today's files (one folder
per game: ``log.jsonl`` with the very lines of the database, ``log.head``, and
every document), so ``pbem verify`` and ``pbem audit`` work on them offline, and
the mail journal as ``state/journal/`` records of the file store.
``import_host`` loads a file host (its games, journal and spool) into a
database.  Each game's chain is checked before it moves; lines are copied as
bytes, never re-encoded, so the chains stay byte for byte the same."""
from __future__ import annotations

import json
from pathlib import Path

from pbem.log import GENESIS, LogError, anchor_of, walk_chain, write_private
from pbem.store import DOCS


class MoveError(Exception):
    """A game that cannot move (its chain is broken, the target holds it already)."""


def _chain(lines: list[bytes], where: str) -> tuple[int, str]:
    """The head of ``lines``, each line's prev checked against the chain."""
    from pbem.log import _decoder

    def broken(n: int, env, h: str) -> None:
        raise MoveError(f"{where}: line {n + 1} breaks the hash chain; verify it (pbem verify) before moving it")
    seq, h = -1, GENESIS
    for seq, _, _, h in walk_chain(lines, lambda n, line: _decoder.decode(line), broken):
        pass
    return seq, h


def export_host(store, out: Path, echo=print) -> list[str]:
    """Every game of ``store`` (a PgStore) as a game folder under ``out``."""
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    done = []
    for gid, g in sorted(store.games().items()):
        lines = list(g.log.iter_lines())
        seq, head = _chain(lines, g.where)
        d = out / gid
        d.mkdir(mode=0o700, exist_ok=True)
        if (d / "log.jsonl").exists():
            raise MoveError(f"{d} holds a game already; export into an empty folder")
        for name in DOCS:
            data = g.read(name)
            if data is not None:
                write_private(d / name, data)
        write_private(d / "log.jsonl", b"".join(ln + b"\n" for ln in lines))
        write_private(d / "log.head", f"{seq} {head}\n".encode("ascii"))
        verdict, anchor, _ = anchor_of(g.log, seq, lambda s: head if s == seq else None)
        if verdict != "ok":
            echo(f"game {gid}: the database's head row {anchor} does not name the last line; "
                 "the exported log.head names the last line, and verify compares")
        done.append(gid)
        echo(f"game {gid}: {seq + 1} events, head {head} -> {d}")
    jdir = out / "state" / "journal"
    jdir.mkdir(parents=True, exist_ok=True)
    from pbem.store.files import FileHostStore
    files = FileHostStore.__new__(FileHostStore)
    files.journal_dir = jdir
    for rec in store.jobs():
        write_private(files._jpath(rec["key"]), json.dumps(rec, sort_keys=True).encode())
    return done


def import_host(store, host_root: Path, echo=print) -> list[str]:
    """The games, journal and spool of the file host at ``host_root`` into ``store``."""
    from pbem.engine import Game
    from pbem.store import sealer
    from pbem.host.config import load_config
    from pbem.store.files import FileHostStore
    cfg = load_config(host_root)
    if cfg.store_url:
        raise MoveError(f"{host_root} keeps its games in a database already; export them first")
    files = FileHostStore(cfg)
    done = []
    for gid, path in sorted(files.games().items()):
        game = Game(path)
        lines = list(game.log.iter_lines())
        seq, head = _chain(lines, str(path))
        verdict, anchor, e = anchor_of(game.log, seq, lambda s: head if s == seq else None)
        if verdict == "unreadable":
            raise e
        if verdict not in ("ok", "none"):
            raise MoveError(f"{path}: log.head names seq {anchor[0]}, the log ends at {seq}; verify it first")
        target = store.game(gid)
        target.sealer = sealer(game.rules, game.scenario.side_ids())
        with store.transaction():
            try:
                target.log.put_lines(lines)
            except LogError as e:
                raise MoveError(f"game {gid}: {e.reason}") from None
            for name in DOCS:
                data = game.store.read(name)
                if data is not None:
                    target.write(name, data)
            store.register(Game(target))
        done.append(gid)
        echo(f"game {gid}: {seq + 1} events, head {head} <- {path}")
    with store.transaction():
        for rec in files.jobs():
            if rec.get("key"):
                store.job_put(rec["key"], rec)
        n = max((int(str(r.get("job", "0")).split("-")[0] or 0) for r in files.jobs()), default=0)
        store._run("SELECT setval('pbem_job_numbers', greatest(%s, (SELECT last_value FROM pbem_job_numbers)))",
                   (max(n, 1),))
        jobs: dict[str, list] = {}
        for item in files.spool_items():               # mails not delivered yet go on from the database
            job, _, name = item.label.partition("/")
            jobs.setdefault(job, []).append((name, item.data()))
        for job, mails in jobs.items():
            store.spool_put(job, mails, _game_of(mails[0][1]))
    return done


def _game_of(data: bytes) -> str:
    from email import policy
    from email.parser import BytesHeaderParser
    return str(BytesHeaderParser(policy=policy.default).parsebytes(data)["X-pbem-Game"] or "")
