"""The PostgreSQL store (``[store] url = "postgresql://..."``): many worker
processes on many machines share one database, and nothing is forked, lost or
done twice.

* **Appends** are one transaction: the head is read, the lines are made from it
  exactly as the file store makes them, then ``UPDATE pbem_heads ... WHERE
  hash = <the head read>`` (compare-and-set) and the rows go in.  A writer that
  lost the race updates no row and gets ``StaleHead``, the file store's "the log
  moved on"; (game, seq) is the primary key besides.  ``lock()`` is a
  transaction-level advisory lock on the game, so deciders wait for each other
  instead of losing, and it ends with the transaction: a killed worker holds
  nothing.
* **A job is a transaction.**  ``claim`` takes the message's journal row ``FOR
  UPDATE SKIP LOCKED`` (another worker skips it); everything the job writes
  (events, documents, the journal record, the outgoing mails) goes through the
  same connection and commits together, or not at all.  A worker killed at any
  point leaves the message as it was, to be taken again.  ``game_turn`` takes a
  game for its deadlines and reports the same way (``pg_try_advisory_xact_lock``).
* **Wake-ups**: a committed job sends ``NOTIFY pbem``; workers wait on ``LISTEN
  pbem`` between polls, and poll anyway, so a lost notification loses no work.
* **Secrets** (seeds, players' secrets, staged orders, sealed lines) live in
  ``pbem_secrets`` (see ``pg_schema``).

The state and scenario caches stay files, on each machine, under the host's
``cache/`` folder: they are keyed by the head hash, which fixes the whole chain.
"""
from __future__ import annotations

import contextlib
import contextvars
import hashlib
import os
import socket
import time
from pathlib import Path, PurePosixPath
from typing import Any, Iterator

import msgspec

from pbem.log import GENESIS, EventLog, LogError, Record, StaleHead, _check_at, _decoder, line_hash, walk_chain
from pbem.store import SECRET_DOCS, StoreError, pg_balance
from pbem.store import pg_schema as S
from pbem.store.affinity import Affinity
from pbem.store.pg_spool import PgItem, Written
from pbem.store.pg_tx import Tx as _Tx
from pbem.store.pg_tx import kept, lock_key, together as _together

_PAGE = 2000                                # lines read per query (memory stays flat in the log's length)
_current: contextvars.ContextVar["_Tx | None"] = contextvars.ContextVar("pbem_pg_tx", default=None)


def _driver():
    try:
        import psycopg
        import psycopg_pool
    except ImportError:
        raise StoreError("[store] url names a PostgreSQL database, but psycopg is not installed: "
                         "pip install 'pbem[postgres]' (psycopg 3 and psycopg-pool)") from None
    return psycopg, psycopg_pool


class PgStore:
    """One database: the host store, and the maker of its game stores."""

    kind = "postgresql"
    shared = True
    _open: dict[tuple[int, str], "PgStore"] = {}

    def __init__(self, url: str, cache_root: Path | None = None, worker: str = ""):
        psycopg, pool = _driver()
        self.url = url
        self.errors = (psycopg.Error, pool.PoolTimeout)
        self.cache_root = Path(cache_root) if cache_root else Path(os.environ.get("TMPDIR", "/tmp")) / "pbem-cache"
        self.worker = worker or f"{socket.gethostname()}:{os.getpid()}"
        self._written = Written()              # the bytes of the mails this process spooled, to send
        self._existing: set[str] = set()       # games whose heads row this process saw committed
        self._affinity, self._placed, self._balance_due = None, None, 0.0   # the last look (``affinity``)
        import logging
        logging.getLogger("psycopg.pool").setLevel(logging.CRITICAL)   # its retries would print; one line is ours
        try:
            psycopg.connect(url, connect_timeout=15).close()           # fail at once, and say why
            self.pool = pool.ConnectionPool(url, min_size=1, max_size=int(os.environ.get("PBEM_PG_POOL", "4")),
                                            kwargs={"application_name": f"pbem {self.worker}"[:63]},
                                            open=True, timeout=30, name="pbem")
            self.pool.wait(timeout=30)
        except (psycopg.Error, pool.PoolTimeout) as e:
            raise StoreError(f"cannot connect to the database {_safe(url)}: {_brief(e)}") from None
        self.ensure_schema()

    @classmethod
    def opened(cls, url: str, cache_root: Path | None = None) -> "PgStore":
        """One store (one pool) per process and URL; a forked worker makes its own."""
        key = (os.getpid(), url)
        s = cls._open.get(key)
        if s is None:
            s = cls._open[key] = cls(url, cache_root)
        elif cache_root is not None:
            s.cache_root = Path(cache_root)
        return s

    def close(self) -> None:
        self._open.pop((os.getpid(), self.url), None)
        self.pool.close()

    def describe(self) -> str:
        return f"the PostgreSQL database {_safe(self.url)}"

    # --- the schema ------------------------------------------------------------------

    def ensure_schema(self) -> None:
        with self.pool.connection() as c:
            c.execute("SELECT pg_advisory_xact_lock(%s)", (S.SCHEMA_LOCK,))
            have = c.execute("SELECT to_regclass('pbem_meta') IS NOT NULL").fetchone()[0]
            if have:
                row = c.execute("SELECT value FROM pbem_meta WHERE key = 'schema'").fetchone()
                if row and int(row[0]) > S.VERSION:
                    raise StoreError(f"the database {_safe(self.url)} holds pbem schema {row[0]}; this pbem "
                                     f"knows schema {S.VERSION}: upgrade pbem")
                if row and int(row[0]) < S.VERSION:
                    for v in range(int(row[0]) + 1, S.VERSION + 1):
                        c.execute(S.MIGRATE[v])
                    c.execute("UPDATE pbem_meta SET value = %s WHERE key = 'schema'", (str(S.VERSION),))
                if row:
                    return
            c.execute(S.TABLES)
            c.execute("INSERT INTO pbem_meta VALUES ('schema', %s) ON CONFLICT (key) DO NOTHING", (str(S.VERSION),))
            for t in S.PRIVATE + S.READABLE:
                c.execute(f"REVOKE ALL ON {t} FROM PUBLIC")
            # a reader role for the public tables, when the host's role may make one (else the DBA can)
            try:
                with c.transaction():
                    c.execute("DO $$ BEGIN IF NOT EXISTS (SELECT FROM pg_roles WHERE rolname = 'pbem_reader') "
                              "THEN CREATE ROLE pbem_reader NOLOGIN; END IF; END $$")
                    for t in S.READABLE:
                        c.execute(f"GRANT SELECT ON {t} TO pbem_reader")
            except self.errors[0]:
                pass

    # --- transactions ----------------------------------------------------------------

    @contextlib.contextmanager
    def transaction(self) -> Iterator[_Tx]:
        """Join the transaction in progress, or run one: committed at the end of the
        block (then ``after_commit`` callbacks and the wake-up), rolled back on any
        exception (a SimulatedCrash included)."""
        tx = self._tx()
        if tx is not None:
            yield tx
            return
        with self.pool.connection() as conn:
            tx = _Tx(self, conn)
            token = _current.set(tx)
            try:
                yield tx
                if tx.notify:
                    conn.execute("SELECT pg_notify('pbem', %s)", (self.worker,))
            finally:
                _current.reset(token)
        for fn in tx.after:
            fn()

    def after_commit(self, fn) -> None:
        tx = self._tx()
        if tx is not None:
            tx.after.append(fn)
        else:
            fn()

    def atomic(self):
        """A savepoint inside the job's transaction: what fails inside is undone."""
        tx = self._tx()
        if tx is not None:
            return tx.savepoint()
        return contextlib.nullcontext()

    @contextlib.contextmanager
    def _conn(self):
        tx = self._tx()
        if tx is not None:
            yield tx.conn
        else:
            with self.pool.connection() as c:
                yield c

    # ``binary``: the rows in PostgreSQL's binary format, for a query of bytea (a mail, a
    # log line, a document): as text each byte comes as two hex digits, which the server
    # writes and the client reads back (a 300 KB mail: 1.0 ms of the client's CPU, 0.2 binary)
    def _one(self, sql: str, args: tuple = (), binary: bool = False):
        with self._conn() as c:
            return c.execute(sql, args, binary=binary).fetchone()

    def _all(self, sql: str, args: tuple = (), binary: bool = False) -> list:
        with self._conn() as c:
            return c.execute(sql, args, binary=binary).fetchall()

    def _run(self, sql: str, args: tuple = ()) -> int:
        with self._conn() as c:
            return c.execute(sql, args).rowcount

    @contextlib.contextmanager
    def claim(self, key: str, source: str = "", game: str = "", doing: str = "") -> Iterator[bool]:
        """A message's job, taken by one worker: its journal row is made (in its own
        short transaction, so a second worker never waits on the first one's insert)
        and then locked FOR UPDATE SKIP LOCKED for the job's transaction.  With
        ``game`` (the game the message names) the game's lock is taken too, if it is
        free: a poll passes over a game another worker is busy with, rather than wait
        for it with a connection and a process idle.  ``doing``: this worker's beat,
        said in the same short transaction as the row is made (one commit, not two)."""
        with self.pool.connection() as c, _together(c):     # begin, both, commit: sent together
            c.execute("INSERT INTO pbem_jobs (key, source) VALUES (%s, %s) ON CONFLICT (key) DO NOTHING",
                      (key, source))
            if doing:
                c.execute("UPDATE pbem_workers SET beat = now(), doing = %s WHERE worker = %s", (doing, self.worker))
            c.commit()
        with self.transaction() as tx:
            got = tx.conn.execute("SELECT 1 FROM pbem_jobs WHERE key = %s FOR UPDATE SKIP LOCKED",
                                  (key,)).fetchone() is not None
            if got and game:
                got = tx.try_lock(game)
            yield bool(got)

    @contextlib.contextmanager
    def game_turn(self, gid: str) -> Iterator[bool]:
        """A game's reports and deadlines, by one worker at a time: its lock if free, and
        its deadline row (FOR UPDATE SKIP LOCKED); else another worker has it now."""
        with self.transaction() as tx:
            got = tx.try_lock(gid)
            if got:
                got = tx.conn.execute("SELECT 1 FROM pbem_deadlines WHERE game = %s FOR UPDATE SKIP LOCKED",
                                      (gid,)).fetchone() is not None or not self._has_deadline_row(tx, gid)
            yield bool(got)

    @staticmethod
    def _has_deadline_row(tx: _Tx, gid: str) -> bool:
        return tx.conn.execute("SELECT 1 FROM pbem_deadlines WHERE game = %s", (gid,)).fetchone() is not None

    def game_lock(self, gid: str) -> None:
        """Inside a transaction: wait for the game's lock (held until it ends)."""
        tx = self._tx()
        assert tx is not None
        tx.lock(gid)

    def held(self, gid: str) -> "_Tx | None":
        """The transaction in progress when it holds ``gid``'s lock (``pg_tx``: what it
        reads of that game is kept to its end), else None."""
        tx = self._tx()
        return tx if tx is not None and tx.holds(gid) else None

    def _tx(self) -> "_Tx | None":                     # this store's transaction in progress, if any
        tx = _current.get()
        return tx if tx is not None and tx.store is self else None

    # --- the journal -----------------------------------------------------------------

    def job_get(self, key: str) -> dict | None:
        row = self._one("SELECT rec FROM pbem_jobs WHERE key = %s", (key,))
        return row[0] if row and row[0] is not None else None

    def job_put(self, key: str, rec: dict) -> None:
        from psycopg.types.json import Jsonb
        with self.transaction() as tx:
            tx.conn.execute(
                "INSERT INTO pbem_jobs (key, rec, game, status) VALUES (%s, %s, %s, %s) ON CONFLICT (key) DO "
                "UPDATE SET rec = EXCLUDED.rec, game = EXCLUDED.game, status = EXCLUDED.status, updated = now()",
                (key, Jsonb(rec), str(rec.get("game") or ""), str(rec.get("status") or "")))
            tx.notify = True

    def job_retire(self, key: str, job: str) -> None:
        self._run("UPDATE pbem_jobs SET key = key || ' #retried ' || %s, source = '' WHERE key = %s", (job, key))

    def busy(self, gid: str) -> bool:
        # a job's records commit with it, so "applying" is never seen by another worker; kept for the contract
        return self._one("SELECT 1 FROM pbem_jobs WHERE game = %s AND status = 'applying' LIMIT 1", (gid,)) is not None

    def job_number(self) -> int:
        return int(self._one("SELECT nextval('pbem_job_numbers')")[0])

    def jobs(self) -> list[dict]:
        return [r[0] for r in self._all("SELECT rec FROM pbem_jobs WHERE rec IS NOT NULL")]

    # --- the spool ---------------------------------------------------------------------

    def spool_has(self, job: str) -> bool:
        got = self._one("SELECT 1 FROM pbem_outgoing WHERE job = %s LIMIT 1", (job,)) is not None
        tx = self._tx()
        if tx is not None and not got:
            tx.unspooled.add(job)                   # none but this transaction spools it (pg_tx)
        return got

    def spool_put(self, job: str, mails: list[tuple[str, bytes]], game_id: str = "") -> bool:
        from pbem.host import crash
        with self.transaction() as tx:
            if job not in tx.unspooled and tx.conn.execute("SELECT 1 FROM pbem_outgoing WHERE job = %s LIMIT 1",
                                                           (job,)).fetchone():
                return False
            tx.unspooled.discard(job)
            with tx.conn.cursor() as cur:
                cur.executemany("INSERT INTO pbem_outgoing (job, n, game, name, data) VALUES (%s, %s, %s, %s, %s)",
                                [(job, n, game_id, name, data) for n, (name, data) in enumerate(mails)])
            crash.checkpoint("spool-written")
            tx.notify = True
            # this process sends its own mails soon after: their bytes kept, not read back (a
            # job's name is never used twice, so (job, n) names these bytes, once committed)
            for n, (_name, data) in enumerate(mails):
                tx.after.append(lambda n=n, data=data: self._written.keep((job, n), data))
        return True

    def spool_tried(self, error: str, at: str) -> None:
        """One more failed try of every mail waiting (the transport failed): the host
        status shows how many, since when, and the last error."""
        self._run("UPDATE pbem_outgoing SET tries = tries + 1, last_try = %s, error = %s, first_error = CASE WHEN "
                  "first_error = '' THEN %s ELSE first_error END WHERE failed IS NULL", (at, error[:500], at))

    def spool_pending(self) -> int:
        return int(self._one("SELECT count(*) FROM pbem_outgoing WHERE failed IS NULL")[0])

    def spool_counts(self) -> dict[str, int]:
        return {g: int(n) for g, n in self._all("SELECT game, count(*) FROM pbem_outgoing WHERE failed IS NULL "
                                                "GROUP BY game")}

    def spool_items(self) -> Iterator["PgItem"]:
        """The committed mails, in the order they were committed, one transaction each:
        the row is taken FOR UPDATE SKIP LOCKED (two workers never send one mail at
        once) and deleted once the transport took it."""
        skip: list[int] = []
        while True:
            # pipelined: the begin goes with the SELECT, the DELETE with the commit (two round trips a mail, not four)
            with self.pool.connection() as c, _together(c):
                row = c.execute("SELECT id, job, n, name FROM pbem_outgoing WHERE failed IS NULL AND "
                                "NOT (id = ANY(%s)) ORDER BY id LIMIT 1 FOR UPDATE SKIP LOCKED", (skip,)).fetchone()
                if row is None:
                    return
                data = self._written.pop((row[1], row[2]), None)
                if data is None:                    # another process's mail, or this one's from before
                    data = c.execute("SELECT data FROM pbem_outgoing WHERE id = %s", (row[0],),
                                     binary=True).fetchone()[0]
                item = PgItem(row[0], row[1], row[3], data)
                yield item
                if item.state == "done":
                    c.execute("DELETE FROM pbem_outgoing WHERE id = %s", (item.id,))
                elif item.state == "failed":
                    c.execute("UPDATE pbem_outgoing SET failed = %s WHERE id = %s", (item.why[:500], item.id))
                else:
                    skip.append(item.id)
                c.commit()

    def spool_files(self) -> list:
        return []

    def stuck(self) -> list[dict]:
        """Every mail not delivered (``SpoolMixin.stuck``): waiting, or set aside with why."""
        from email import policy
        from email.parser import BytesHeaderParser
        parser = BytesHeaderParser(policy=policy.default)
        out = []
        for job, name, data, failed, tries, first, last, error in self._all(
                "SELECT job, name, data, failed, tries, first_error, last_try, error FROM pbem_outgoing ORDER BY id"):
            h = parser.parsebytes(bytes(data))
            out.append({"mail": f"{job}/{name}", "state": "set aside" if failed else "waiting",
                        "game": str(h["X-pbem-Game"] or ""), "kind": str(h["X-pbem-Kind"] or ""),
                        "to": str(h["To"] or ""), "made": str(h["Date"] or ""),
                        "tries": int(tries) + (1 if failed else 0), "first_error": first, "last_try": last,
                        "error": failed or error})
        return out

    # --- the games ---------------------------------------------------------------------

    def game(self, gid: str) -> "PgGame":
        return PgGame(self, gid)

    def games(self) -> dict[str, "PgGame"]:
        return {g: PgGame(self, g) for (g,) in self._all("SELECT game FROM pbem_heads ORDER BY game")}

    def hosted(self, gid: str) -> "PgGame | None":
        """One hosted game by id (``games().get(gid)`` without listing every game)."""
        game = PgGame(self, gid)
        return game if game.exists() else None

    def register(self, game) -> None:
        from pbem.host.common import HostError
        if getattr(game.store, "kind", "") != self.kind:
            raise HostError(f"this host keeps its games in {self.describe()}; load the game folder "
                            f"{game.store.where} into it with `pbem host import` first")
        with self.transaction() as tx:
            tx.conn.execute("INSERT INTO pbem_deadlines (game, doc) VALUES (%s, '\\x7b7d') "
                            "ON CONFLICT (game) DO NOTHING", (game.game_id,))
            tx.docs.pop((game.game_id, "deadline.json"), None)

    # --- the workers ---------------------------------------------------------------------

    def start_worker(self) -> None:
        with self.pool.connection() as c:
            c.execute("INSERT INTO pbem_workers (worker, machine, pid) VALUES (%s, %s, %s) ON CONFLICT (worker) "
                      "DO UPDATE SET started = now(), beat = now(), doing = ''",
                      (self.worker, socket.gethostname(), os.getpid()))
            # the records of workers gone for a day (their sessions, and so their locks, are gone)
            c.execute("DELETE FROM pbem_workers WHERE beat < now() - interval '1 day'")

    def stop_worker(self) -> None:
        with self.pool.connection() as c:
            c.execute("DELETE FROM pbem_workers WHERE worker = %s", (self.worker,))

    def beat(self, doing: str = "") -> None:
        """What this worker does now (its own short transaction, seen at once)."""
        with self.pool.connection() as c, _together(c):
            c.execute("UPDATE pbem_workers SET beat = now(), doing = %s WHERE worker = %s", (doing, self.worker))
            c.commit()

    def workers(self) -> list[dict]:
        """Every worker with what it holds: the games whose advisory lock its sessions
        hold now, from the server's own lock table (pg_locks)."""
        from pbem.host.common import iso
        keys = {lock_key(g): g for g in self.games()}
        holds: dict[str, list[str]] = {}
        alive: set[str] = set()
        for app, classid, objid in self._all(
                "SELECT a.application_name, l.classid, l.objid FROM pg_stat_activity a LEFT JOIN pg_locks l "
                "ON l.pid = a.pid AND l.locktype = 'advisory' AND l.granted WHERE a.application_name LIKE 'pbem %%'"):
            w = app[5:]
            alive.add(w)
            if classid is not None:
                k = int.from_bytes(((int(classid) << 32) | int(objid)).to_bytes(8, "big"), "big", signed=True)
                if k in keys:
                    holds.setdefault(w, []).append(keys[k])
        out = []
        for w, machine, pid, started, beat, doing in self._all(
                "SELECT worker, machine, pid, started, beat, doing FROM pbem_workers ORDER BY machine, pid"):
            out.append({"worker": w, "machine": machine, "pid": pid, "started": iso(started), "beat": iso(beat),
                        "doing": doing if w in alive else "gone (no session)", "holds": sorted(holds.get(w, [])),
                        "alive": w in alive})
        return out

    def affinity(self) -> "Affinity | None":
        """The games this worker takes first (``Affinity``), among the workers alive now:
        those of pbem_workers with a session on this database (a killed worker's session
        ends with it), following the placement the last rebalance wrote (pbem_meta's
        'placement'), if one did.  None when this process is no worker (`pbem mail poll`)."""
        live = [w for (w,) in self._all(
            "SELECT w.worker FROM pbem_workers w WHERE EXISTS (SELECT 1 FROM pg_stat_activity a WHERE "
            "a.datname = current_database() AND a.application_name = left('pbem ' || w.worker, 63))")]
        if self.worker not in live:
            return None
        games = tuple(g for (g,) in self._all("SELECT game FROM pbem_heads ORDER BY game"))
        row = self._one("SELECT value FROM pbem_meta WHERE key = 'placement'")
        placed = row[0] if row else ""
        last = self._affinity
        if last is None or last.live != sorted(set(live)) or last.games != games or self._placed != placed:
            # each game's scenario, read again only when the games change (a new game)
            groups = last.groups if last is not None and last.games == games else self.scenario_groups()
            last = self._affinity = Affinity(self.worker, live, games, groups, pg_balance.owners(placed))
            if self._placed is not None and placed != self._placed:  # another's placement: measured first
                self._balance_due = time.monotonic() + pg_balance.HOLD
            self._placed = placed
        if len(last.live) > 1 and time.monotonic() >= self._balance_due:
            self._balance_due = time.monotonic() + pg_balance.EVERY
            got = pg_balance.rebalance(self, last, placed)       # now and then: the work evened out
            if got is not None:                                   # the next after its moves are measured
                (self._placed, last), self._balance_due = got, time.monotonic() + pg_balance.HOLD
                self._affinity = last
        return last

    def note_cost(self, game: str, ms: float) -> None:
        """What a job of ``game`` cost this worker (CPU ms), in the job's transaction."""
        self._run(pg_balance.NOTE_COST, (ms, game, S.COST_HALF_LIFE))

    def scenario_groups(self) -> dict[str, str]:
        """Each game's scenario, as a digest of its scenario.toml (``Affinity``'s groups)."""
        return dict(self._all("SELECT game, md5(data) FROM pbem_docs WHERE name = 'scenario.toml'"))

    def wait(self, timeout: float) -> bool:
        """Sleep until another worker commits a job (NOTIFY pbem) or ``timeout`` passes."""
        psycopg, _ = _driver()
        if getattr(self, "_listen", None) is None or self._listen.closed:
            self._listen = psycopg.connect(self.url, autocommit=True, application_name=f"pbem {self.worker}"[:63])
            self._listen.execute("LISTEN pbem")
        for n in self._listen.notifies(timeout=timeout):
            if n.payload != self.worker:
                return True
        return False


class PgGame:
    """One game in the database: the game store ``pbem.engine.Game`` works on."""

    kind = "postgresql"
    has_modes = False                           # ``mode`` is 0o600 for any document: the tables' grants guard them

    def __init__(self, store: PgStore, game_id: str):
        self.pg, self.game_id = store, game_id
        self.log = PgEventLog(self)
        self.sealer = None                      # set by Game: which lines are sealed (kept in pbem_secrets)

    def __repr__(self) -> str:
        return f"PgGame({self.game_id!r})"

    @property
    def where(self) -> str:
        return f"game {self.game_id} in {self.pg.describe()}"

    @property
    def cache_dir(self) -> Path:
        d = self.pg.cache_root / self.game_id
        if not d.is_dir():
            d.mkdir(parents=True, exist_ok=True, mode=0o700)
        return d

    def exists(self) -> bool:
        return self.log.exists()

    def default_id(self) -> str:
        return self.game_id

    def know(self, rules, sides: list[str]) -> None:
        """Which of this game's lines are sealed (pbem.store.sealer): kept in pbem_secrets."""
        from pbem.store import sealer
        self.sealer = sealer(rules, sides)

    def path_of(self, name: str) -> PurePosixPath:
        return PurePosixPath(f"postgresql:{self.game_id}") / name

    def prepare(self) -> None:
        pass

    # --- documents ---------------------------------------------------------------------

    def read(self, name: str, limit: int | None = None) -> bytes | None:
        def ask() -> bytes | None:
            if name == "deadline.json":
                row = self.pg._one("SELECT doc FROM pbem_deadlines WHERE game = %s", (self.game_id,))
            else:
                table = "pbem_secrets" if name in SECRET_DOCS else "pbem_docs"
                row = self.pg._one(f"SELECT data FROM {table} WHERE game = %s AND name = %s", (self.game_id, name),
                                   binary=True)
            return bytes(row[0]) if row else None
        data = kept(self.pg.held(self.game_id), "docs", (self.game_id, name), ask)    # once under the lock
        if data is not None and limit is not None and len(data) > limit:
            from pbem.log import FileRefused
            raise FileRefused(f"{self.path_of(name)} holds more than {limit:,} bytes, the most pbem reads of it")
        return data

    def mode(self, name: str) -> int | None:
        return None if self.read(name) is None else 0o600        # guarded by the table's grants, not a mode

    def write(self, name: str, data: bytes, sync: bool = True) -> None:
        if name == "deadline.json":
            self.pg._run("INSERT INTO pbem_deadlines (game, doc, next_due) VALUES (%s, %s, %s) ON CONFLICT (game) "
                         "DO UPDATE SET doc = EXCLUDED.doc, next_due = EXCLUDED.next_due",
                         (self.game_id, data, S.next_due(data)))
        else:
            table = "pbem_secrets" if name in SECRET_DOCS else "pbem_docs"
            self.pg._run(f"INSERT INTO {table} (game, name, data) VALUES (%s, %s, %s) ON CONFLICT (game, name) "
                         "DO UPDATE SET data = EXCLUDED.data", (self.game_id, name, data))
        tx = self.pg._tx()
        if tx is not None:                          # what the transaction reads next is what it wrote
            if tx.holds(self.game_id):
                tx.docs[self.game_id, name] = bytes(data)
            else:
                tx.docs.pop((self.game_id, name), None)

    @contextlib.contextmanager
    def doc_lock(self, name: str) -> Iterator[None]:
        # one lock per game for its log and its documents alike: two locks could be taken in two orders
        with self.log.lock():
            yield

    def has_seed(self) -> bool:
        return self.read("seed") is not None

    def read_seed(self, commitment: str | None) -> bytes:
        from pbem.core import dice as D
        raw = self.read("seed")
        if raw is None:
            raise D.DiceError(f"the seed of {self.where} is not there: only the host holding it can roll dice")
        try:
            seed = bytes.fromhex(raw.decode("ascii").strip())
        except (UnicodeError, ValueError):
            raise D.DiceError(f"the seed of {self.where} is not hexadecimal") from None
        if commitment is not None and not D.check_reveal(seed, commitment):
            raise D.DiceError(f"the seed of {self.where} is not the one the game committed to")
        return seed

    def write_seed(self, seed: bytes) -> None:
        self.write("seed", (seed.hex() + "\n").encode("ascii"))


class PgEventLog:
    """A game's log in pbem_events, with the file log's interface (pbem.log.EventLog)."""

    def __init__(self, game: PgGame):
        self.game = game
        self.pg = game.pg
        self.path = game.path_of("log.jsonl")

    def __repr__(self) -> str:
        return f"PgEventLog({self.game.game_id!r})"

    def exists(self) -> bool:
        gid = self.game.game_id
        if gid in self.pg._existing:                # a heads row is never deleted
            return True
        got = self.pg._one("SELECT 1 FROM pbem_heads WHERE game = %s", (gid,)) is not None
        if got and self.pg._tx() is None:           # committed (a transaction's own may yet roll back)
            self.pg._existing.add(gid)
        return got

    _LINE = ("SELECT e.seq, e.prev, coalesce(e.line, s.data) FROM pbem_events e LEFT JOIN pbem_secrets s "
             "ON e.line IS NULL AND s.game = e.game AND s.name = 'line:' || e.seq WHERE e.game = %s ")

    def _page(self, where: str, args: tuple, order: str = "ASC", n: int = _PAGE) -> list[tuple[int, str, bytes]]:
        rows = self.pg._all(self._LINE + where + f" ORDER BY e.seq {order} LIMIT {n}", (self.game.game_id, *args),
                            binary=True)
        out = []
        for seq, prev, line in rows:
            if line is None:
                raise LogError("a sealed line is missing from pbem_secrets (this role may not read it, or it was "
                               "deleted)", seq + 1, self.path)
            out.append((seq, prev, bytes(line)))
        return out

    def iter_blocks(self) -> Iterator[list[bytes]]:
        after = -1
        while True:
            page = self._page("AND e.seq > %s", (after,))
            if not page:
                return
            yield [ln for _, _, ln in page]
            after = page[-1][0]

    def iter_lines(self) -> Iterator[bytes]:
        for lines in self.iter_blocks():
            yield from lines

    def iter_lines_reversed(self) -> Iterator[bytes]:
        before, n = 1 << 62, 64                     # a reader of the tail mostly stops within a few lines:
        while True:                                 # pages grow from 64 to _PAGE, not 2,000 rows at once
            page = self._page("AND e.seq < %s", (before,), "DESC", n)
            if not page:
                return
            for _, _, ln in page:
                yield ln
            before, n = page[-1][0], min(_PAGE, 4 * n)

    def first_line(self) -> bytes | None:
        page = self._page("AND e.seq = 0", ())
        return page[0][2] if page else None

    def read(self, verify: bool = True) -> list[Record]:
        def broken(i: int, env, h: str) -> None:
            raise LogError(f"hash chain broken at seq {i}", i + 1, self.path)
        return [Record(env.seq, env.prev, env.kind, env.body, env.at, h, line)
                for _, line, env, h in walk_chain(self.iter_lines(), lambda i, line: _decoder.decode(line),
                                                  broken if verify else None)]

    def head(self) -> tuple[int, str]:
        """(seq, hash) of the last line, computed from its bytes as the file store does."""
        def ask() -> tuple[int, str]:
            page = self._page("", (), "DESC", 1)
            return (page[0][0], line_hash(page[0][1], page[0][2])) if page else (-1, GENESIS)
        return kept(self.pg.held(self.game.game_id), "lasts", self.game.game_id, ask)    # once under the lock

    def head_anchored(self) -> tuple[int, str, tuple[int, str] | None]:
        """``head()`` and ``recorded_head()`` in one query (one snapshot): a state read from
        the cache reads both (``Game._at_head``)."""
        gid = self.game.game_id
        tx = self.pg.held(gid)                      # under the game's lock: read once a transaction (pg_tx)
        if tx is not None and gid in tx.lasts and gid in tx.heads:
            return (*tx.lasts[gid], tx.heads[gid])
        rows = self.pg._all(self._LINE[:7] + "(SELECT seq FROM pbem_heads WHERE game = e.game), (SELECT hash FROM "
                            "pbem_heads WHERE game = e.game), " + self._LINE[7:] + " ORDER BY e.seq DESC LIMIT 1",
                            (gid,))
        if not rows:
            return -1, GENESIS, self.recorded_head()
        aseq, ahash, seq, prev, line = rows[0]
        if line is None:                                # as ``_page`` says it
            raise LogError("a sealed line is missing from pbem_secrets (this role may not read it, or it was "
                           "deleted)", seq + 1, self.path)
        got = seq, line_hash(prev, bytes(line)), (None if aseq is None else (int(aseq), ahash))
        if tx is not None:
            tx.lasts[gid], tx.heads[gid] = got[:2], got[2]
        return got

    def recorded_head(self) -> tuple[int, str] | None:
        """The anchor: the heads row every append compares and sets."""
        def ask() -> tuple[int, str] | None:
            row = self.pg._one("SELECT seq, hash FROM pbem_heads WHERE game = %s", (self.game.game_id,))
            return (int(row[0]), row[1]) if row else None
        return kept(self.pg.held(self.game.game_id), "heads", self.game.game_id, ask)    # once under the lock

    check_anchor = EventLog.check_anchor          # the heads row must not contradict the last line

    def stamp(self, anchor: Any = ()) -> str:
        """What the state cache is keyed by besides the head (the file store's stamp of
        the file): this database and the game's heads row, which every append changes
        (``anchor``: that row, when the caller read it)."""
        anchor = self.recorded_head() if anchor == () else anchor
        where = hashlib.sha256(self.pg.url.encode()).hexdigest()[:12]
        return f"pg.{where}.{anchor[0]}.{anchor[1][:16]}" if anchor else "-"

    @contextlib.contextmanager
    def lock(self) -> Iterator[None]:
        """The game's lock for a read-decide-append: in the transaction in progress (a
        job's), or in one of its own committed at the end of the block."""
        with self.pg.transaction():
            self.pg.game_lock(self.game.game_id)
            yield

    def append(self, kind: str, body, at: str, expect_head: str | None = None, locked: bool = False) -> Record:
        return self.append_many([(kind, body)], at, expect_head, locked=locked)[0]

    def append_many(self, items: list[tuple[str, Any]], at: str, expect_head: str | None = None,
                    locked: bool = False) -> list[Record]:
        """The file store's lines, byte for byte, appended with compare-and-set on the
        game's head: StaleHead if ``expect_head`` is not the head, or if another writer
        moved the head after it was read here."""
        _check_at(at)
        gid = self.game.game_id
        with self.pg.transaction() as tx:
            c = tx.conn
            row = self.recorded_head()
            seq, h = row if row else (-1, GENESIS)
            if expect_head is not None and expect_head != h:
                raise self._stale(expect_head, seq, h)
            start, old = seq, h
            records, rows, sealed = [], [], []
            for kind, body in items:
                if not isinstance(kind, str) or not kind:
                    raise ValueError(f"kind must be a non-empty string, got {kind!r}")
                seq += 1
                line = msgspec.json.encode({"seq": seq, "prev": h, "kind": kind, "body": body, "at": at})
                try:
                    env = _decoder.decode(line)
                except msgspec.ValidationError as e:
                    raise TypeError(f"body of {kind!r} must encode to a JSON object: {e}") from None
                secret = self.game.sealer is not None and self.game.sealer(kind, env.body)
                rows.append((gid, seq, h, line_hash(h, line), kind, at, None if secret else line))
                if secret:
                    sealed.append((gid, f"line:{seq}", line))
                h = line_hash(h, line)
                records.append(Record(env.seq, env.prev, env.kind, env.body, env.at, h, line))
            if not records:
                return records
            if start < 0:
                n = c.execute("INSERT INTO pbem_heads (game, seq, hash) VALUES (%s, %s, %s) ON CONFLICT (game) "
                              "DO NOTHING", (gid, seq, h)).rowcount
            else:
                n = c.execute("UPDATE pbem_heads SET seq = %s, hash = %s WHERE game = %s AND hash = %s",
                              (seq, h, gid, old)).rowcount
            if n != 1:                              # another writer moved the head since it was read
                tx.heads.pop(gid, None)
                tx.lasts.pop(gid, None)
                now = c.execute("SELECT seq, hash FROM pbem_heads WHERE game = %s", (gid,)).fetchone()
                raise self._stale(old, *(now or (-1, GENESIS)))
            if tx.holds(gid):
                tx.heads[gid] = tx.lasts[gid] = (seq, h)
                tx.docs.update(((gid, name), line) for _g, name, line in sealed)
            with c.cursor() as cur:
                cur.executemany("INSERT INTO pbem_events (game, seq, prev, hash, kind, at, line) VALUES "
                                "(%s, %s, %s, %s, %s, %s, %s)", rows)
                if sealed:
                    cur.executemany("INSERT INTO pbem_secrets (game, name, data) VALUES (%s, %s, %s)", sealed)
            tx.notify = True
        return records

    def put_lines(self, lines: list[bytes]) -> None:
        """A whole log as it is (``pbem host import``): the lines as bytes, the chain
        already checked by the caller; refused if the game exists."""
        from pbem.log import _decoder
        gid = self.game.game_id
        with self.pg.transaction() as tx:
            rows, sealed, h = [], [], GENESIS
            for line in lines:
                env = _decoder.decode(line)
                secret = self.game.sealer is not None and self.game.sealer(env.kind, env.body)
                rows.append((gid, env.seq, env.prev, line_hash(h, line), env.kind, env.at, None if secret else line))
                if secret:
                    sealed.append((gid, f"line:{env.seq}", line))
                h = line_hash(h, line)
            n = tx.conn.execute("INSERT INTO pbem_heads (game, seq, hash) VALUES (%s, %s, %s) ON CONFLICT (game) "
                                "DO NOTHING", (gid, len(lines) - 1, h)).rowcount
            if n != 1:
                raise LogError("the database holds a game of this id already", None, self.path)
            with tx.conn.cursor() as cur:
                cur.executemany("INSERT INTO pbem_events (game, seq, prev, hash, kind, at, line) VALUES "
                                "(%s, %s, %s, %s, %s, %s, %s)", rows)
                if sealed:
                    cur.executemany("INSERT INTO pbem_secrets (game, name, data) VALUES (%s, %s, %s)", sealed)

    def _stale(self, expected: str, seq: int, h: str) -> StaleHead:
        return StaleHead(f"log changed since it was read: expected head {expected[:12]}..., found {h[:12]}... at "
                         f"seq {seq}; re-read and decide again", None, self.path)


def _safe(url: str) -> str:
    """The URL without its password (for messages)."""
    import re
    return re.sub(r"(//[^:/@]*):[^@/]*@", r"\1:***@", url)


def _brief(e: Exception) -> str:
    return " ".join(str(e).split())[:300] or type(e).__name__
