"""The file store, the embedded default: one game is one folder, as it always
was (``log.jsonl`` with its ``log.head`` anchor and ``log.lock``, each document a
file of the folder, 0600, written by ``log.write_private``), and the host keeps
its journal, spool and registry in ``state/``.  Nothing here changes a byte of
what pbem wrote before the store existed; the tests compare."""
from __future__ import annotations

import contextlib
import json
import os
import shutil
from pathlib import Path
from typing import Iterator

from pbem.log import EventLog, private_lock, read_regular, write_private


class FileGame:
    """One game folder."""

    kind = "files"

    def __init__(self, path: Path):
        self.dir = Path(path)
        self.log = EventLog(self.dir / "log.jsonl")

    def __repr__(self) -> str:
        return f"FileGame({str(self.dir)!r})"

    @property
    def where(self) -> str:
        return str(self.dir)

    @property
    def cache_dir(self) -> Path:
        return self.dir

    def exists(self) -> bool:
        return self.log.exists()

    def default_id(self) -> str:
        return self.dir.resolve().name

    def know(self, rules, sides: list[str]) -> None:
        """The game's rules, for a store that keeps sealed lines apart; files keep every line together."""

    def path_of(self, name: str) -> Path:
        return self.dir / name

    def read(self, name: str, limit: int | None = None) -> bytes | None:
        """The document's bytes (None if there is none); with ``limit``, only a regular
        file of at most that many bytes is read (log.read_regular: FileRefused else)."""
        try:
            if limit is not None:
                return read_regular(self.dir / name, limit)
            return (self.dir / name).read_bytes()
        except FileNotFoundError:
            return None

    def mode(self, name: str) -> int | None:
        """The document's permission bits (None if it does not exist)."""
        try:
            return (self.dir / name).stat().st_mode & 0o777
        except FileNotFoundError:
            return None

    def write(self, name: str, data: bytes, sync: bool = True) -> None:
        write_private(self.dir / name, data, sync=sync)

    @contextlib.contextmanager
    def doc_lock(self, name: str) -> Iterator[None]:
        # staged.json -> staged.lock, reported.json -> reported.lock: the names they always had
        with private_lock(self.dir / f"{Path(name).stem}.lock"):
            yield

    def has_seed(self) -> bool:
        return (self.dir / "seed").exists()

    def read_seed(self, commitment: str | None) -> bytes:
        from pbem.core import dice as D
        return D.read_seed(self.dir / "seed", commitment)

    def write_seed(self, seed: bytes) -> None:
        from pbem.core import dice as D
        seed_file = self.dir / "seed"
        # No log yet, so a seed here is the leftover of an interrupted `new`.
        seed_file.unlink(missing_ok=True)
        D.write_seed(seed_file, seed)

    def prepare(self) -> None:
        """Make the game's folder (0700: it will hold the seed and the secrets)."""
        self.dir.parent.mkdir(parents=True, exist_ok=True)
        try:
            self.dir.mkdir(mode=0o700)
        except FileExistsError:
            pass                                    # a folder the user made: its mode is theirs


class FileHostStore:
    """The host's own records as files under ``state/`` (see ``pbem.host``):
    ``journal/`` (one JSON file per job), ``counter`` (job numbers),
    ``inflight/`` (a marker per game while orders are half-way), ``spool/``
    (``building/`` -> ``ready/`` in one rename, ``failed/``) and ``games.json``
    plus every game folder under the games folder.  One host process works at a
    time (``state/lock``): the journal's records make every job happen once."""

    kind = "files"
    shared = False                  # one process at a time (state/lock)
    errors = ()                     # the store's own failures (a database's); files fail with OSError

    def __init__(self, cfg):
        self.cfg = cfg
        self.state_dir = cfg.root / "state"
        self.journal_dir = self.state_dir / "journal"
        self.spool_building = self.state_dir / "spool" / "building"
        self.spool_ready = self.state_dir / "spool" / "ready"
        self.spool_failed = self.state_dir / "spool" / "failed"

    def describe(self) -> str:
        return f"files in {self.state_dir} and the game folders"

    # --- transactions: the journal makes a job happen once; nothing to open here ---

    @contextlib.contextmanager
    def claim(self, key: str, source: str = "", game: str = "", doing: str = "") -> Iterator[bool]:
        yield True

    @staticmethod
    def affinity() -> None:
        return None                 # one process takes every message

    @contextlib.contextmanager
    def transaction(self) -> Iterator[None]:
        yield

    def atomic(self):
        return contextlib.nullcontext()

    @contextlib.contextmanager
    def game_turn(self, gid: str) -> Iterator[bool]:
        yield True

    def beat(self, doing: str = "") -> None:
        pass

    @staticmethod
    def after_commit(fn) -> None:
        fn()

    # --- the journal -----------------------------------------------------------------

    def _jpath(self, key: str) -> Path:
        import hashlib
        return self.journal_dir / (hashlib.sha256(key.encode("utf-8", "replace")).hexdigest()[:40] + ".json")

    def job_get(self, key: str) -> dict | None:
        try:
            return json.loads(self._jpath(key).read_text())
        except (OSError, ValueError):
            return None

    def job_put(self, key: str, rec: dict) -> None:
        from pbem.host import mail as M
        if rec.get("status") == "applying":
            # a marker per game: while orders are half-way, tick() leaves the game alone (``busy``
            # reads its name only: the name is made durable, the folder fsync'd; the job it holds
            # is in the name too)
            (self.state_dir / "inflight").mkdir(exist_ok=True)
            marker = self._inflight(rec)
            fd = os.open(marker, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
            try:
                os.write(fd, rec["job"].encode())
            finally:
                os.close(fd)
            M._fsync_dir(marker.parent)
        M.write_atomic(self._jpath(key), json.dumps(rec, sort_keys=True).encode(), 0o600)
        if rec.get("status") == "done" and rec.get("game"):
            with contextlib.suppress(OSError):
                self._inflight(rec).unlink()

    def job_retire(self, key: str, job: str) -> None:
        """A record no longer in force (a quarantined message tried again): kept aside."""
        old = self._jpath(key)
        os.replace(old, old.with_name(f"{old.stem}.{job}.retried"))

    def _inflight(self, rec: dict) -> Path:
        return self.state_dir / "inflight" / f"{rec['game']}.{rec['job']}"

    def busy(self, gid: str) -> bool:
        d = self.state_dir / "inflight"
        return d.is_dir() and any(d.glob(f"{gid}.*"))

    def job_number(self) -> int:
        from pbem.host import mail as M
        counter = self.state_dir / "counter"
        try:
            n = int(counter.read_text().strip() or 0) + 1
        except (OSError, ValueError):
            n = 1
        M.write_atomic(counter, f"{n}\n".encode(), 0o600)
        return n

    def jobs(self) -> list[dict]:
        out = []
        d = self.journal_dir
        if not d.is_dir():
            return out
        for p in d.glob("*.json"):
            try:
                out.append(json.loads(p.read_text()))
            except (OSError, ValueError):
                continue
        return out

    # --- the spool ---------------------------------------------------------------------

    def spool_put(self, job: str, mails: list[tuple[str, bytes]], game_id: str = "") -> bool:
        """A job's mails in the spool in one step (building/JOB renamed to ready/JOB);
        False if they are there already."""
        from pbem.host import crash
        from pbem.host import mail as M
        final = self.spool_ready / job
        if final.exists():
            return False
        building = self.spool_building / job
        if building.exists():
            shutil.rmtree(building)
        building.mkdir(parents=True)
        for name, data in mails:
            _write_synced(building / name, data)
        M._fsync_dir(building)                      # the job's files, once for all of them
        crash.checkpoint("spool-written")
        os.rename(building, final)
        M._fsync_dir(final.parent)
        return True

    def spool_has(self, job: str) -> bool:
        return (self.spool_ready / job).exists()

    def spool_pending(self) -> int:
        return sum(1 for d in self.spool_ready.iterdir() for _ in d.glob("*.eml")) if self.spool_ready.is_dir() else 0

    def spool_files(self) -> list[Path]:
        return sorted(self.spool_ready.glob("*/*.eml")) if self.spool_ready.is_dir() else []

    def spool_items(self) -> Iterator["SpoolItem"]:
        """The mails waiting, oldest job first; each is removed once ``done()``."""
        jobs = sorted(d for d in self.spool_ready.iterdir() if d.is_dir()) if self.spool_ready.is_dir() else []
        for d in jobs:
            for f in sorted(d.glob("*.eml")):
                yield _FileItem(self, d, f)
            with contextlib.suppress(OSError):
                d.rmdir()

    # --- the games ---------------------------------------------------------------------

    @property
    def _registry_path(self) -> Path:
        return self.state_dir / "games.json"

    def games(self) -> dict[str, Path]:
        """Hosted games by id: the registry plus every game under the games folder."""
        from pbem.engine import Game
        found: dict[str, Path] = {}
        try:
            reg = json.loads(self._registry_path.read_text())
        except (OSError, ValueError):
            reg = {}
        for gid, p in reg.items():
            if (Path(p) / "log.jsonl").is_file():
                found[gid] = Path(p)
        gdir = self.cfg.games_dir
        if gdir.is_dir():
            registered = {x.resolve() for x in found.values()}
            for d in sorted(gdir.iterdir()):
                if (d / "log.jsonl").is_file() and d.resolve() not in registered:
                    try:
                        found.setdefault(Game(d).game_id, d)
                        registered.add(d.resolve())
                    except Exception:          # noqa: BLE001 - a broken game is skipped, not fatal
                        continue
        return found

    def hosted(self, gid: str) -> Path | None:
        """``games().get(gid)`` without reading every other game's folder: a registered game
        is the one ``games`` gives (the registry comes first there); only an id the registry
        does not hold (or whose folder lost its log) looks through the games folder."""
        try:
            p = json.loads(self._registry_path.read_text()).get(gid)
        except (OSError, ValueError, AttributeError):
            p = None
        if isinstance(p, str) and (Path(p) / "log.jsonl").is_file():
            return Path(p)
        return self.games().get(gid)

    def register(self, game) -> None:
        from pbem.host import mail as M
        from pbem.host.common import HostError
        other = self.games().get(game.game_id)
        if other is not None and not same_game(other, game):
            raise HostError(f"a game with id {game.game_id!r} is already hosted at {other}; choose another --id")
        try:
            reg = json.loads(self._registry_path.read_text())
        except (OSError, ValueError):
            reg = {}
        reg[game.game_id] = str(game.dir.resolve())
        M.write_atomic(self._registry_path, json.dumps(reg, indent=1, sort_keys=True).encode(), 0o600)

    def workers(self) -> list[dict]:
        return []


class _FileItem:
    def __init__(self, store: FileHostStore, d: Path, f: Path):
        self.store, self.d, self.f = store, d, f
        self.name = f"{d.name}-{f.stem}"
        self.label = f"{d.name}/{f.name}"

    def data(self) -> bytes:
        return self.f.read_bytes()

    def done(self) -> None:
        self.f.unlink()

    def fail(self, why: str = "") -> str:
        self.store.spool_failed.mkdir(parents=True, exist_ok=True)
        os.replace(self.f, self.store.spool_failed / f"{self.d.name}-{self.f.name}")
        return str(self.store.spool_failed)


def same_game(hosted, game) -> bool:
    """Whether the hosted entry ``hosted`` (a folder, or a game store) is ``game``."""
    store = getattr(game, "store", None)
    if isinstance(hosted, Path):
        return store is not None and store.kind == "files" and hosted.resolve() == game.dir.resolve()
    return store is not None and getattr(hosted, "game_id", None) == game.game_id and hosted.kind == store.kind


def _write_synced(path: Path, data: bytes) -> None:
    """A new file of the spool's building folder, its data fsync'd (0600); the folder is
    fsync'd once for the job's files (``spool_put``), not once per file."""
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    try:
        view = memoryview(data)
        while view:
            view = view[os.write(fd, view):]
        os.fsync(fd)
    finally:
        os.close(fd)
