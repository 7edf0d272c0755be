"""Python's garbage collector while a host handles mail (issue 29).

A mail allocates a few hundred thousand objects (the map's items, its tiles' keys, the
reports), nearly all freed at once by reference counting; the cyclic collector's
default (a pass over the youngest objects every 700 allocations more than frees,
older generations every tenth of those) ran about 2,000 passes over 1,000 mails
(`tests/benchmark_host.py`'s poll), 1.6 s of 61 s of CPU, mostly walking the host's
caches of pictures and tiles.  Every 50,000: 45 passes (4 of the middle generation, no
full one), 0.3-0.4 s.
"""
from __future__ import annotations

import gc
from contextlib import contextmanager

__all__ = ["YOUNG", "mail_heap"]

YOUNG = 50_000      # allocations (more than frees) between two passes over the youngest objects


@contextmanager
def mail_heap():
    """The collector passes over young objects every ``YOUNG`` allocations while the block
    runs (never more often than it did), as before after it."""
    old = gc.get_threshold()
    gc.set_threshold(max(old[0], YOUNG), *old[1:])
    try:
        yield
    finally:
        gc.set_threshold(*old)
