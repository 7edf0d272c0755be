"""Where games and the host keep what they write: the storage interface and
its two implementations.

One game's storage (a *game store*) is what ``pbem.engine.Game`` reads and
writes, and nothing else:

    log              the event log: ``head()``, ``iter_blocks()`` / ``iter_lines()``
                     (every line from seq 0), ``iter_lines_reversed()``,
                     ``first_line()``, ``append_many(items, at, expect_head)`` (the
                     append with an expected head: ``StaleHead``, "the log moved on",
                     when another writer got there first), ``lock()`` (read, decide
                     and append as one step) and ``recorded_head()`` (the anchor)
    read / write     the game's documents by name: scenario.toml, seed,
                     player-secrets.json, player-changes.json, staged.json,
                     reported.json, deadline.json, pending-keys.json, notify.json
    doc_lock(name)   a read-modify-write of one document
    read_seed        the dice seed, refused unless it is the committed one
    cache_dir        a local folder for derived caches (the state and scenario
                     caches, keyed by what they derive from)

The host's storage (a *host store*, ``pbem.store.files.FileHostStore`` or
``pbem.store.pg.PgStore``) holds the mail journal (one record per job, keyed by
the Message-ID, IMAP UIDVALIDITY/UID or a host job's name), the outgoing spool,
the registry of hosted games and, with PostgreSQL, the workers.

Two implementations: ``files`` (the embedded default, today's layout byte for
byte: ``log.jsonl``, ``log.head``, the documents as files of the game folder,
``state/`` of the host folder) and ``postgresql`` (``[store] url =
"postgresql://..."`` in pbem-host.toml; pbem's own schema in ``pg_schema.py``,
psycopg 3 with psycopg-pool, the ``postgres`` extra).  ``open_game`` finds a
game by folder or, on a host with a database, by id.
"""
from __future__ import annotations

from pathlib import Path

# The documents of a game that hold a secret: with PostgreSQL they live in the
# table only the host's role may read (pbem_secrets); as files they are 0600.
SECRET_DOCS = ("seed", "player-secrets.json", "staged.json", "pending-keys.json", "notify.json")
DOCS = ("scenario.toml", "seed", "player-secrets.json", "player-changes.json", "staged.json",
        "reported.json", "deadline.json", "pending-keys.json", "notify.json")


class StoreError(Exception):
    """The store cannot be used (no server, no driver, a bad URL): one line for the user."""


def open_game(arg: str | Path, root: Path | None = None):
    """The game named by ``arg``: a game folder (``log.jsonl`` inside), or the id
    of a game hosted in the database of the host ``root`` (a command's ``--host``),
    else of the host found from the current folder (``PBEM_HOST``).  Returns a Path
    or a game store."""
    p = Path(arg)
    if (p / "log.jsonl").exists() or p.is_dir() or "/" in str(arg):
        return p
    from pbem.host.config import find_host, load_config
    root = root or find_host(Path.cwd())
    if root is None:
        return p
    cfg = load_config(root)
    if not cfg.store_url:
        return p
    store = host_store(cfg)
    g = store.games().get(str(arg))
    return g if g is not None else p


def host_store(cfg):
    """The host store ``cfg`` names (``[store] url``), files by default."""
    if getattr(cfg, "store_url", ""):
        from pbem.store import pg
        return pg.PgStore.opened(cfg.store_url, cache_root=cfg.root / "cache")
    from pbem.store.files import FileHostStore
    return FileHostStore(cfg)


def new_game_target(game_dir: Path, game_id: str | None):
    """Where ``pbem new GAME_DIR`` creates the game: the folder, unless it lies in a
    host (or PBEM_HOST names one) whose games live in a database."""
    import os
    from pbem.host.config import find_host, load_config
    root = find_host(game_dir)
    if root is None or not os.environ.get("PBEM_HOST") and not _inside(game_dir, root):
        return game_dir
    cfg = load_config(root)
    if not cfg.store_url:
        return game_dir
    import re
    gid = re.sub(r"[^A-Za-z0-9._-]+", "-", game_id or Path(game_dir).resolve().name).strip("-") or "game"
    return host_store(cfg).game(gid)


def _inside(path: Path, root: Path) -> bool:
    try:
        Path(path).resolve().relative_to(Path(root).resolve())
        return True
    except ValueError:
        return False


def sealer(rules, sides: list[str]):
    """Which events are sealed: those some side may not read as they are (its view,
    ``views.visible_event``, differs).  A store that keeps secrets apart (the
    database's pbem_secrets) keeps those lines there."""
    import msgspec

    from pbem.core import events as E
    from pbem.views import visible_event

    def sealed(kind: str, body: dict) -> bool:
        try:
            ev = E.decode_body(kind, msgspec.json.encode(body))
        except (msgspec.DecodeError, ValueError):
            return True                             # not an event pbem knows: kept apart, to be safe
        return any(visible_event(ev, side, rules) != ev for side in sides)
    return sealed
