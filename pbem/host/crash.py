"""Crash points: where a test may stop the host as if the process died.

Every step of the pipeline that a crash could cut short calls
``crash.checkpoint(NAME)``, always through this module (``from pbem.host
import crash``), so the name is looked up at call time and one
``monkeypatch.setattr(crash, "checkpoint", ...)`` reaches the journal, the
spool, ingest, deadlines and the inbox alike.  The points: started,
journaled, applied, spool-written, spooled, recorded, filed, sent, rotated.
"""
from __future__ import annotations


class SimulatedCrash(BaseException):
    """Raised by tests at a checkpoint to stand for the process dying there."""


def checkpoint(name: str) -> None:
    """A named point in the pipeline; tests replace this to crash the host there."""
