"""The journal: one record per job (an incoming message, a welcome, a
reminder, a deadline default, ...), written with fsync before anything else
happens, which makes every job happen exactly once (see ``pbem.host``);
the job counter that orders the spool; and the in-flight markers that keep
the deadlines away from a game whose orders are half-way."""
from __future__ import annotations

import hashlib
import time

from pbem.host.common import iso


def job_key(kind: str, *parts: str) -> str:
    """The journal key of a job of the host's own (a welcome, a deadline, ...).

    Incoming messages are keyed by their Message-ID (never holding a space,
    see mail._MSGID) or ``sha256:...``; a host key starts with "host job " and
    so can never be named by a stranger's Message-ID."""
    return "host job " + ":".join([kind, *map(str, parts)])


class JournalMixin:
    """The Host's journal, kept by its store (``self.store``: pbem.store; the file
    store's state/journal/, state/inflight/ and state/counter).  Uses the Host's
    ``now``."""

    @property
    def journal_token(self) -> str:
        """This Host object's name in the journal's done records (``_done``)."""
        got = getattr(self, "_journal_token", None)
        if got is None:
            import secrets
            got = self._journal_token = secrets.token_hex(8)
        return got

    def journal_get(self, key: str) -> dict | None:
        return self.store.job_get(key)

    def busy(self, gid: str) -> bool:
        return self.store.busy(gid)

    def _start(self, key: str, write: bool = True, **extra) -> dict:
        """A new job: its number (for ordering the spool) and its time, recorded first.
        ``write=False`` (an incoming message): recorded by the first write of the job
        (``_keep_started`` before its mails are spooled, its "applying" record before its
        orders touch a log, or its "done" record), not twice in a row; a crash before
        then leaves nothing done and nothing recorded, and the message gets a new job."""
        n = self.store.job_number()
        self._job_cpu = (key, time.thread_time())    # what the job costs (``_done``: the store's balance)
        rec = {"status": "started", "job": f"{n:06d}-{hashlib.sha256(key.encode()).hexdigest()[:8]}",
               "at": iso(self.now()), **extra}
        if write:
            self.journal_put(key, rec)
        else:
            self._unwritten = key
        return rec

    def _keep_started(self, key: str, rec: dict) -> None:
        """The started record of a job begun with ``_start(write=False)``, written before
        anything of the job is kept (its mails spooled): a crash after that finds it."""
        if getattr(self, "_unwritten", None) == key:
            self.journal_put(key, rec)

    def journal_put(self, key: str, rec: dict) -> None:
        if getattr(self, "_unwritten", None) == key:
            self._unwritten = None
        self.store.job_put(key, dict(rec, key=key))

    def _done(self, key: str, rec: dict, **result) -> dict:
        rec = dict(rec, status="done", **result)
        if self.store.shared:                    # which worker did it (`pbem host status`, the tests of affinity)
            rec["worker"] = self.store.worker
            # and when, by which Host (two may share a process): ``_ingest`` leaves a message
            # just done by another to the one that is filing it
            rec["done_by"], rec["done_at"] = self.journal_token, round(time.time(), 3)
            began = getattr(self, "_job_cpu", None)
            if began is not None and began[0] == key and rec.get("game"):
                # its game's cost, in the job's transaction (the workers share out the games by it)
                self.store.note_cost(str(rec["game"]), round((time.thread_time() - began[1]) * 1000, 3))
        rec.pop("text", None)                    # the orders live in the game log (or were refused)
        self.journal_put(key, rec)
        return rec
