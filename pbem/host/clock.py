"""The deadline policy, as judges have it: when a decision the game waits for is due.
Pure functions of the settings and the time (no files, no clock of their own).

A decision that arises at ``start`` is due at ``start + max(period, minimum)``; with
a ``clock`` ("23:30") that moves on to the first such time of day, read in the
policy's ``zone``, on a day the ``days`` mask allows ("-MTWTF-": Monday to Friday;
Sunday first, as judges write it).  Without a clock the mask moves the deadline a
whole day at a time until it falls on an allowed day.  After the deadline come
``grace`` (the late side is named to everyone, its orders still taken), then the
host applies the default.

Times a player reads are written in UTC and, when the player set one (TIMEZONE),
in that player's zone (``show``).  Zones come from the system's zone database
through ``zoneinfo``, or from the ``tzdata`` package where the system has none."""
from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import datetime, time, timedelta, timezone
from functools import lru_cache

from pbem.host.common import HostError, fmt_duration, iso

DAY_LETTERS = "SMTWTFS"                 # the mask's positions: Sunday first
DAY_NAMES = ("Sunday", "Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday")
EVERY_DAY = DAY_LETTERS


@dataclass(frozen=True)
class Policy:
    """When a game's decisions are due (see the module's docstring)."""
    period: timedelta | None = None
    clock: time | None = None
    days: str = EVERY_DAY
    minimum: timedelta | None = None
    grace: timedelta | None = None
    zone: str = "UTC"

    @property
    def on(self) -> bool:
        """Do decisions get deadlines at all?"""
        return self.period is not None or self.clock is not None

    def due(self, start: datetime) -> datetime | None:
        """When a decision arising at ``start`` is due (None: no deadline)."""
        if not self.on:
            return None
        lead = max(self.period or timedelta(), self.minimum or timedelta())
        return self.align(start + lead)

    def align(self, at: datetime) -> datetime:
        """``at``, or the first moment after it the clock and the days allow."""
        tz = zone(self.zone)
        local = at.astimezone(tz)
        if self.clock is None:
            if self.days == EVERY_DAY:
                return at
            for _ in range(8):
                if _allowed(self.days, local):
                    return local.astimezone(timezone.utc)
                local = _wall(local.date() + timedelta(days=1), local.timetz().replace(tzinfo=None), tz)
            raise HostError(f"the days mask {self.days!r} allows no day")
        day = local.date()
        for _ in range(9):
            cand = _wall(day, self.clock, tz)
            if cand >= at and _allowed(self.days, cand):
                return cand.astimezone(timezone.utc)
            day += timedelta(days=1)
        raise HostError(f"the days mask {self.days!r} allows no day")

    def final(self, due: datetime) -> datetime:
        """When the default is applied to a decision due at ``due``: after the grace."""
        return due + (self.grace or timedelta())

    def describe(self) -> list[str]:
        """The policy in words, for STATUS, the welcome and every report."""
        if not self.on:
            return ["This game has no deadlines: it waits for each decision as long as needed."]
        lead = max(self.period or timedelta(), self.minimum or timedelta())
        if self.clock is None:
            text = f"Each decision the game waits for is due {fmt_duration(lead)} after it arises"
            if self.days != EVERY_DAY:
                text += f", moved on a day at a time to a day of {days_text(self.days)} ({self.zone})"
        else:
            text = (f"Each decision the game waits for is due at {self.clock.strftime('%H:%M')} {self.zone} "
                    f"on {days_text(self.days)}: the first such time at least {fmt_duration(lead)} after it "
                    "arises" if lead else
                    f"Each decision the game waits for is due at the next {self.clock.strftime('%H:%M')} "
                    f"{self.zone} on {days_text(self.days)} after it arises")
        out = [text + "."]
        if self.grace:
            out.append(f"A side that misses a deadline is named to everyone as late; its orders are still taken "
                       f"for {fmt_duration(self.grace)} of grace, then the host applies the default.")
        else:
            out.append("When a deadline passes, the host applies the default.")
        return out


def _allowed(days: str, local: datetime) -> bool:
    return days[(local.weekday() + 1) % 7] != "-"


def _wall(day, at: time, tz) -> datetime:
    """The moment the wall clock in ``tz`` shows ``at`` on ``day`` (a time a change to summer
    time skips is read with the offset before the change, as zoneinfo does)."""
    return datetime.combine(day, at, tzinfo=tz)


def days_text(days: str) -> str:
    """'-MTWTF-' -> 'Monday to Friday'; 'SMTWTFS' -> 'every day'; else the days listed."""
    on = [i for i, c in enumerate(days) if c != "-"]
    if len(on) == 7:
        return "every day"
    if len(on) > 2 and on == list(range(on[0], on[-1] + 1)):
        return f"{DAY_NAMES[on[0]]} to {DAY_NAMES[on[-1]]}"
    return ", ".join(DAY_NAMES[i] for i in on)


# --- parsing the settings -----------------------------------------------------------

def parse_clock(text: str | None) -> time | None:
    """'23:30' (or '2330', '9:05') -> a time of day; '', 'off' -> None."""
    t = (text or "").strip().lower()
    if t in ("", "off", "none"):
        return None
    m = re.fullmatch(r"([01]?\d|2[0-3]):?([0-5]\d)", t)
    if not m:
        raise HostError(f"{text!r} is not a time of day; write e.g. 23:30")
    return time(int(m[1]), int(m[2]))


def parse_days(text: str | None) -> str:
    """A days mask of 7 characters, Sunday first, '-' for a day without deadlines
    ('-MTWTF-'); '', 'all' -> every day.  A letter must be that position's day."""
    t = (text or "").strip()
    if t.lower() in ("", "all", "every day"):
        return EVERY_DAY
    if len(t) != 7 or any(c != "-" and c.upper() != DAY_LETTERS[i] for i, c in enumerate(t)):
        raise HostError(f"{text!r} is not a days mask; write 7 characters from Sunday to Saturday, '-' for a day "
                        "without deadlines: -MTWTF- (Monday to Friday), SMTWTFS (every day)")
    if set(t) == {"-"}:
        raise HostError(f"{text!r} allows no day at all")
    return "".join("-" if c == "-" else DAY_LETTERS[i] for i, c in enumerate(t))


@lru_cache(maxsize=64)
def zone(name: str):
    """The time zone ``name`` ('Europe/Berlin', 'UTC'); HostError when there is none such."""
    if name in ("", "UTC", "Z"):
        return timezone.utc
    from zoneinfo import ZoneInfo, ZoneInfoNotFoundError
    if not re.fullmatch(r"[A-Za-z0-9_+\-]+(/[A-Za-z0-9_+\-]+)*", name) or len(name) > 64:
        raise HostError(f"{name!r} is not a time zone; write one such as Europe/Berlin or America/New_York")
    try:
        return ZoneInfo(name)
    except (ZoneInfoNotFoundError, ValueError, OSError):
        raise HostError(f"{name!r} is not a time zone this host knows; write one such as Europe/Berlin, "
                        "America/New_York or UTC") from None


def check_zone(name: str) -> str:
    """``name`` when it is a time zone (HostError if not), 'UTC' for ''."""
    name = (name or "").strip()
    zone(name or "UTC")
    return name or "UTC"


def show(at: datetime | str, tz: str | None = None) -> str:
    """A time as a player reads it: ISO 8601 UTC, and in the player's zone when one is set:
    '2026-01-05T22:30:00Z (Monday 5 January, 23:30 CET in Europe/Berlin)'."""
    if isinstance(at, str):
        from pbem.host.common import parse_time
        at = parse_time(at)
    text = iso(at)
    if tz and tz not in ("UTC", "Z"):
        local = at.astimezone(zone(tz))
        text += f" ({DAY_NAMES[(local.weekday() + 1) % 7]} {local.day} {local.strftime('%B')}, " \
                f"{local.strftime('%H:%M')} {local.tzname()} in {tz})"
    return text
