"""The journal: one record per job (an incoming message, a welcome, a
reminder, a deadline default, ...), written with fsync before anything else
happens, which makes every job happen exactly once (see ``pbem.host``);
the job counter that orders the spool; and the in-flight markers that keep
the deadlines away from a game whose orders are half-way."""
from __future__ import annotations

import contextlib
import hashlib
import json
from pathlib import Path

from pbem.host import mail as M
from pbem.host.common import iso


def job_key(kind: str, *parts: str) -> str:
    """The journal key of a job of the host's own (a welcome, a deadline, ...).

    Incoming messages are keyed by their Message-ID (never holding a space,
    see mail._MSGID) or ``sha256:...``; a host key starts with "host job " and
    so can never be named by a stranger's Message-ID."""
    return "host job " + ":".join([kind, *map(str, parts)])


class JournalMixin:
    """The Host's journal: state/journal/, state/inflight/ and state/counter.
    Uses the Host's ``state_dir``, ``journal_dir`` and ``now``."""

    def _jpath(self, key: str) -> Path:
        return self.journal_dir / (hashlib.sha256(key.encode("utf-8", "replace")).hexdigest()[:40] + ".json")

    def journal_get(self, key: str) -> dict | None:
        try:
            return json.loads(self._jpath(key).read_text())
        except (OSError, ValueError):
            return None

    def journal_put(self, key: str, rec: dict) -> None:
        rec = dict(rec, key=key)
        if rec.get("status") == "applying":
            # a marker per game: while orders are half-way, tick() leaves the game alone
            (self.state_dir / "inflight").mkdir(exist_ok=True)
            M.write_atomic(self._inflight(rec), rec["job"].encode(), 0o600)
        M.write_atomic(self._jpath(key), json.dumps(rec, sort_keys=True).encode(), 0o600)
        if rec.get("status") == "done" and rec.get("game"):
            with contextlib.suppress(OSError):
                self._inflight(rec).unlink()

    def _inflight(self, rec: dict) -> Path:
        return self.state_dir / "inflight" / f"{rec['game']}.{rec['job']}"

    def busy(self, gid: str) -> bool:
        d = self.state_dir / "inflight"
        return d.is_dir() and any(d.glob(f"{gid}.*"))

    def _start(self, key: str, **extra) -> dict:
        """A new job: its number (for ordering the spool) and its time, recorded first."""
        counter = self.state_dir / "counter"
        try:
            n = int(counter.read_text().strip() or 0) + 1
        except (OSError, ValueError):
            n = 1
        M.write_atomic(counter, f"{n}\n".encode(), 0o600)
        rec = {"status": "started", "job": f"{n:06d}-{hashlib.sha256(key.encode()).hexdigest()[:8]}",
               "at": iso(self.now()), **extra}
        self.journal_put(key, rec)
        return rec

    def _done(self, key: str, rec: dict, **result) -> dict:
        rec = dict(rec, status="done", **result)
        rec.pop("text", None)                    # the orders live in the game log (or were refused)
        self.journal_put(key, rec)
        return rec
