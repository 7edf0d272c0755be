"""What every part of the host shares: its error, the names of its files,
the clock and how times and durations are written, and ``Answer`` (one mail
to write), which letters, ingest and deadlines make and the spool sends."""
from __future__ import annotations

import os
import re
from dataclasses import dataclass, field
from datetime import datetime, timedelta, timezone

CONFIG_NAME = "pbem-host.toml"
CREDENTIALS_NAME = "credentials.toml"
SECRETS_NAME = "player-secrets.json"
CHANGES_NAME = "player-changes.json"      # addresses changed and secrets replaced since the game began
DEADLINE_NAME = "deadline.json"
REFEREE = "referee"


class HostError(Exception):
    """A host problem with a message meant for the user (no traceback)."""


# --- time ------------------------------------------------------------------

def utcnow() -> datetime:
    fixed = os.environ.get("PBEM_CLOCK")
    if fixed:
        return parse_time(fixed)
    return datetime.now(timezone.utc).replace(microsecond=0)


def iso(dt: datetime) -> str:
    return dt.astimezone(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


def parse_time(text: str) -> datetime:
    try:
        dt = datetime.fromisoformat(text.strip().replace("Z", "+00:00"))
    except ValueError:
        raise HostError(f"{text!r} is not a time; write e.g. 2026-03-01T18:00:00Z") from None
    if dt.tzinfo is None:
        dt = dt.replace(tzinfo=timezone.utc)
    return dt.astimezone(timezone.utc)


_DUR = re.compile(r"(\d+)\s*([dhms])")
_SECONDS = {"d": 86400, "h": 3600, "m": 60, "s": 1}
MAX_DURATION = timedelta(days=365)        # the longest duration anything of the host may be


def parse_duration(text: str | None, zero: bool = True) -> timedelta | None:
    """'72h', '2d', '1d12h', '90m', '30s'; '', 'off', 'none' or '0' = no time limit.
    Never longer than MAX_DURATION (a year: a longer one is a typo, and would
    overflow the calendar); ``zero=False`` refuses a duration of no time ('0h')."""
    t = (text or "").strip().lower()
    if t in ("", "off", "none", "0"):
        return None
    if not re.fullmatch(r"(\s*\d+\s*[dhms])+\s*", t):
        raise HostError(f"{text!r} is not a duration; write e.g. 72h, 2d, 1d12h or 90m")
    limit = int(MAX_DURATION.total_seconds())
    total = 0
    for n, u in _DUR.findall(t):
        if len(n.lstrip("0")) > 12:             # int() of thousands of digits is slow, and far too long anyway
            total = limit + 1
            break
        total += int(n) * _SECONDS[u]
    if total > limit:
        raise HostError(f"{text!r} is longer than {MAX_DURATION.days} days, the longest duration the host takes")
    if total == 0 and not zero:
        raise HostError(f"{text!r} is no time at all; write \"off\" for none")
    return timedelta(seconds=total)


def fmt_duration(td: timedelta | None) -> str:
    if td is None:
        return "none"
    s = int(td.total_seconds())
    parts = []
    for size, u in ((86400, "d"), (3600, "h"), (60, "m"), (1, "s")):
        if s >= size:
            parts.append(f"{s // size}{u}")
            s %= size
    return "".join(parts) or "0s"


# --- mail to write ---------------------------------------------------------

@dataclass
class Answer:
    """One mail to write: to whom, as which viewer, with what."""
    to: str
    viewer: str
    kind: str
    subject: str
    body: str
    attachments: list = field(default_factory=list)
    in_reply_to: str = ""
    references: list = field(default_factory=list)
    outcome: str = ""
    head: str = ""
    seq: int = -1
    slug: str = ""
    message_id: str = ""         # "" = numbered within the job
