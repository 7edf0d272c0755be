"""The outgoing spool's rows as the transport sees them (``PgStore.spool_items``), and the
bytes of the mails this process committed, kept to send without reading them back."""
from __future__ import annotations

from pathlib import Path

__all__ = ["PgItem", "Written"]


class Written(dict):
    """The bytes of the last mails this process committed to the spool, by (job, n), the
    oldest forgotten past ``KEEP`` bytes: the transport sends them from here rather than
    read each back (an order mail's three are some 100-300 KB each; a worker sends what it
    committed every two seconds, ``InboxMixin._send_meanwhile``)."""
    KEEP = 64 << 20

    def __init__(self):
        super().__init__()
        self.size = 0

    def keep(self, key: tuple[str, int], data: bytes) -> None:
        self[key] = data = bytes(data)
        self.size += len(data)
        while self.size > self.KEEP and len(self) > 1:
            self.size -= len(super().pop(next(iter(self))))

    def pop(self, key, default=None):
        got = super().pop(key, None)
        if got is None:
            return default
        self.size -= len(got)
        return got


class PgItem:
    """One mail of the spool, taken by the transport: sent (``done``) or set aside (``fail``)."""
    def __init__(self, id: int, job: str, name: str, data: bytes):
        self.id, self.job, self._data = id, job, bytes(data)
        self.name = f"{job}-{Path(name).stem}"
        self.label = f"{job}/{name}"
        self.state = ""

    def data(self) -> bytes:
        return self._data

    def done(self) -> None:
        self.state = "done"

    def fail(self, why: str = "") -> str:
        self.state, self.why = "failed", why or "undeliverable"
        return "the database (pbem_outgoing, failed)"
