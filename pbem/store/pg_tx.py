"""One transaction of the PostgreSQL store, and what it learnt that cannot change
before it ends, so that a job asks the server each thing once.

Every statement is a round trip, and on this machine the server's CPU goes mostly on
the statements' passage, not their execution (issue 29: 0.6-0.9 s of 1.6-3.5 s for
200 order mails); over a network each costs its latency besides.  A job asked the same
things again and again: its game's lock four times, a staged-orders document six
times, the deadlines three.  What a transaction keeps here:

* ``locks``: the games' advisory locks it holds.  A lock is held to the end of the
  transaction, so asking for it again asks nothing.
* ``docs``, ``heads`` and ``lasts``: a game's documents, its heads row and its last
  line's (seq, hash), read or written while the transaction holds that game's lock
  (``kept``).  The host's jobs and game turns write a game only under its lock
  (``PgEventLog.lock``, ``PgStore.game_turn``), so nothing but this transaction
  changes them until it ends; an append that raced anyway is still refused by the
  head's compare-and-set.  (A document written without the lock, by a command
  beside running workers, could be overwritten by a job that read it before, with
  or without this.)  Without the lock nothing is kept: under READ COMMITTED a
  second read may see another's commit.
* ``unspooled``: the jobs found to have no mail in the spool.  A job's name is taken
  once, by the worker holding its journal row, so none gains mail but by this
  transaction.

A savepoint rolled back (``savepoint``) forgets all of it: what was written inside
is undone, and the locks taken inside are released with it.
"""
from __future__ import annotations

import contextlib
import functools
import hashlib
from typing import Iterator

__all__ = ["Tx", "kept", "lock_key", "together"]


@functools.lru_cache(maxsize=4096)                 # asked at every read under a lock
def lock_key(game: str) -> int:
    """The game's advisory lock: a signed 64-bit number from its id."""
    return int.from_bytes(hashlib.sha256(b"pbem game " + game.encode()).digest()[:8], "big", signed=True)


class Tx:
    def __init__(self, store, conn):
        self.store, self.conn = store, conn
        self.after: list = []              # run once committed
        self.notify = False                # NOTIFY pbem at the commit
        self.locks: set[int] = set()
        self.docs: dict[tuple[str, str], bytes | None] = {}
        self.heads: dict[str, tuple[int, str] | None] = {}     # pbem_heads (the anchor)
        self.lasts: dict[str, tuple[int, str]] = {}            # the last line's (seq, hash)
        self.unspooled: set[str] = set()

    def holds(self, game: str) -> bool:
        """Whether this transaction holds ``game``'s lock."""
        return lock_key(game) in self.locks

    def lock(self, game: str) -> None:
        """Wait for ``game``'s lock, unless this transaction holds it already."""
        key = lock_key(game)
        if key not in self.locks:
            self.conn.execute("SELECT pg_advisory_xact_lock(%s)", (key,))
            self.locks.add(key)

    def try_lock(self, game: str) -> bool:
        """``game``'s lock if it is free (or held here already)."""
        key = lock_key(game)
        if key not in self.locks:
            if not self.conn.execute("SELECT pg_try_advisory_xact_lock(%s)", (key,)).fetchone()[0]:
                return False
            self.locks.add(key)
        return True

    def forget(self) -> None:
        self.docs.clear()
        self.heads.clear()
        self.lasts.clear()
        self.unspooled.clear()

    @contextlib.contextmanager
    def savepoint(self) -> Iterator[None]:
        """A savepoint: on an exception its writes and its locks are undone, and what
        this transaction kept is forgotten (some of it may have been written inside)."""
        locks = set(self.locks)
        with self.conn.transaction():
            try:
                yield
            except BaseException:           # psycopg's Rollback too, which the savepoint swallows
                self.locks = locks
                self.forget()
                raise


def together(conn):
    """psycopg's pipeline mode (statements sent without waiting for each answer, a commit
    among them) where the client library has it (libpq 14 and later), else one at a time."""
    import psycopg
    return conn.pipeline() if psycopg.Pipeline.is_supported() else contextlib.nullcontext()


def kept(tx: Tx | None, kind: str, key, read):
    """``read()``, asked once in ``tx`` and kept in its ``kind`` (docs, heads, lasts) by
    ``key``; asked every time when ``tx`` is None (no transaction holding the game's lock)."""
    if tx is None:
        return read()
    got = getattr(tx, kind)
    if key not in got:
        got[key] = read()
    return got[key]
