"""ABSENT, capped per player per span of time: within any ``window`` (the host's
``[deadlines] absence_window``, 30 days by default) a side is away at most
``cap`` (``[deadlines] absence``), however many ABSENT mails it sends.  A mail
sent while away cannot renew the absence from its own date.

The spans granted are kept per side in the game's deadline.json (``absences``:
``[[from, until], ...]``, merged, those that ended more than a window ago
forgotten).  Pure functions of those spans and the time."""
from __future__ import annotations

from datetime import datetime, timedelta

from pbem.host.common import iso, parse_time

Span = tuple[datetime, datetime]


def spans(dl: dict, side: str, now: datetime, window: timedelta) -> list[Span]:
    """``side``'s granted spans from deadline.json, merged, without those over before ``now - window``."""
    out = []
    for pair in (dl.get("absences", {}) or {}).get(side, []) if isinstance(dl.get("absences"), dict) else []:
        try:
            a, b = parse_time(pair[0]), parse_time(pair[1])
        except Exception:                   # noqa: BLE001 - a hand-edited entry: not counted
            continue
        if b > a and b > now - window:
            out.append((a, b))
    return _merge(out)


def _merge(items: list[Span]) -> list[Span]:
    out: list[Span] = []
    for a, b in sorted(items):
        if out and a <= out[-1][1]:
            out[-1] = (out[-1][0], max(out[-1][1], b))
        else:
            out.append((a, b))
    return out


def _worst(items: list[Span], window: timedelta) -> timedelta:
    """The most absent time inside any span of ``window`` (it is greatest for a span that
    starts where an absence starts, or ends where one ends)."""
    best = timedelta()
    for t in [a for a, _ in items] + [b - window for _, b in items]:
        got = sum((min(b, t + window) - max(a, t) for a, b in items if a < t + window and b > t), timedelta())
        best = max(best, got)
    return best


def longest(items: list[Span], now: datetime, until: datetime, cap: timedelta, window: timedelta) -> datetime:
    """The latest end, at most ``until``, of an absence from ``now`` that keeps every span of
    ``window`` within ``cap`` of absence (``now`` itself: none is left)."""
    def fits(end: datetime) -> bool:
        return _worst(_merge(items + [(now, end)]), window) <= cap
    if fits(until):
        return until
    lo, hi = 0, int((until - now).total_seconds())     # fits(now + lo) holds or lo is 0; fits(now + hi) fails
    if not fits(now):
        return now
    while hi - lo > 1:
        mid = (lo + hi) // 2
        lo, hi = (mid, hi) if fits(now + timedelta(seconds=mid)) else (lo, mid)
    return now + timedelta(seconds=lo)


def granted(dl: dict, side: str, now: datetime, end: datetime, window: timedelta) -> None:
    """Record the span [now, end] for ``side`` in ``dl`` (merged, old spans forgotten)."""
    items = _merge(spans(dl, side, now, window) + [(now, end)])
    dl.setdefault("absences", {})[side] = [[iso(a), iso(b)] for a, b in items]


def latest(dl: dict, side: str, now: datetime, cap: timedelta, window: timedelta) -> datetime:
    """For STATUS: the latest date an ABSENT sent now could reach."""
    return longest(spans(dl, side, now, window), now, now + window, cap, window)
