"""One look at the inbox: which messages this process takes, in which order.

With one process (the file store, or `pbem mail poll`) every message is taken in
the inbox's order.  A worker of ``pbem serve`` on a database takes first the
messages of its own games (``PgStore.affinity``: each game belongs to one live
worker, each worker holding its share of the games, the games of one scenario
together while a share has room), so that a game's maps, tiles and states, and its
scenario's board, are drawn and kept by one process and its lock is seldom wanted
by two; a message of a game whose worker died goes to a live one at once.  When it
has nothing of its own left it helps with the others' games, a whole game at a time
(one of a scenario it holds games of first, its board drawn here; else the one its
worker would reach last) when that worker has two games or more waiting, and only
with messages that have waited two of its intervals (four for a worker's only
game): a busy or stuck worker's mail is taken over, a fresh one is left to its worker.

Within one look a game's messages are taken in the inbox's order: once one is
passed over (another process has it, or, for a worker, holds the game's lock), the
game's later ones wait for the next look too.  A poll that is no worker waits for
a game's lock instead, so that it deals with every message waiting.  Nothing here decides what happens once: the
store's claim does (the journal row FOR UPDATE SKIP LOCKED)."""
from __future__ import annotations

import time
from typing import Callable, Hashable, Iterable

from pbem.host import mail as M

SEND_EVERY = 2.0            # s: a host on the database sends what it committed this often in a backlog


class InboxMixin:
    """The Host's pass over its inbox.  Uses ``store``, ``cfg`` and ``ingest_claimed``."""
    _pass_busy = False                              # set by each look (``_take_inbox``)

    def _take_inbox(self, listing: Callable[[], Iterable[Hashable]], read: Callable[[Hashable], bytes | None],
                    handle: Callable, outcomes: list | None = None) -> list:
        """Take the messages of ``listing()`` (refs, oldest first; ``read(ref)``: the raw
        message, None when it is gone) and ``handle(ref, raw, inc)`` each one taken: an
        Outcome, or None when another process has the message or its game in hand.
        Returns the outcomes, appended to ``outcomes`` when given (kept if a read fails).
        A worker says it is idle once, at the look's end, not after each message: the next
        message's claim says what it does then (``ingest_claimed``)."""
        self._in_look, self._idle_due = True, False
        try:
            return self._take_look(listing, read, handle, outcomes)
        finally:
            self._in_look = False
            if self._idle_due:
                self._idle_due = False
                try:
                    self.store.beat("")
                except self.store.errors:           # the database failed: the next look says so
                    pass

    def _take_look(self, listing, read, handle, outcomes) -> list:
        aff, aff_at = self.store.affinity(), time.monotonic()
        # a worker of `pbem serve` passes over a game whose lock another holds (the game's
        # worker will take it, or this one at its next look); a poll that is no worker
        # (`pbem mail poll`, a host's own poll) waits for the lock: it deals with every
        # message waiting, as its caller expects
        self._pass_busy = aff is not None
        self._sent_at = time.monotonic()
        seen = getattr(self, "_inbox_seen", None)
        if seen is None:
            seen = self._inbox_seen = {}            # ref -> (game, first seen): read once while it waits
        grace = 2 * float(getattr(self, "_interval", None) or self.cfg.interval)
        outcomes = [] if outcomes is None else outcomes
        done: set = set()                           # refs taken in this look (a message left in the inbox stays)
        passed: set[str] = set()                    # games whose later messages wait for the next look

        def take(ref, raw: bytes | None = None, inc=None) -> bool:
            done.add(ref)
            if raw is None:
                raw = read(ref)
                if raw is None:
                    return True                     # filed by another process meanwhile
                inc = None
            inc = inc or M.parse(raw, self.cfg.max_bytes)
            oc = handle(ref, raw, inc)
            if oc is None:
                if inc.game:
                    passed.add(inc.game)
                return False
            outcomes.append(oc)
            self._send_meanwhile()
            return True

        while True:
            refs = list(listing())
            now = time.monotonic()
            for ref in seen.keys() - set(refs):
                del seen[ref]
            theirs: dict[str, list] = {}            # another live worker's games: their waiting refs in order
            for ref in refs:
                if ref in done:
                    continue
                raw = inc = None
                if ref not in seen:
                    raw = read(ref)
                    if raw is None:
                        continue                    # another process filed it
                    inc = M.parse(raw, self.cfg.max_bytes)
                    seen[ref] = (inc.game, now)
                game, since = seen[ref]
                if game in passed:
                    continue
                if aff is not None and time.monotonic() - aff_at > 1.0:
                    # the workers alive now (one that started or died meanwhile moves games)
                    aff_at = time.monotonic()
                    try:
                        aff = self.store.affinity() or aff
                    except self.store.errors:
                        pass                        # the database failed: the claims say so
                if aff is not None and not aff.mine(game):
                    theirs.setdefault(game, []).append((ref, since))
                    continue
                take(ref, raw, inc)
            if aff is None:
                return outcomes
            # nothing of our own left: help a worker with two games or more waiting (one game's
            # mails go one after the other anyway) with the game it would reach last; a worker's
            # only game when its mail waited twice as long (that worker is stuck, or gone astray)
            now = time.monotonic()
            games_of: dict[str, int] = {}
            for g in theirs:
                games_of[aff.owner(g)] = games_of.get(aff.owner(g), 0) + 1
            due = [g for g, waiting in theirs.items() if g not in passed and now - waiting[0][1] >= grace and
                   (games_of[aff.owner(g)] >= 2 or now - waiting[0][1] >= 2 * grace)]
            if not due:
                return outcomes
            # of those, one of a scenario this worker holds games of (its board drawn here) first
            help_with = next((g for g in reversed(due) if aff.kin(g)), due[-1])
            for ref, _since in theirs[help_with]:
                if not take(ref):
                    break

    def _send_meanwhile(self) -> None:
        """A host on the database (a worker of ``pbem serve``) sends what it committed every
        SEND_EVERY seconds while it works through a backlog, not only when the look is done:
        its players' answers wait no longer, and the mails' bytes are still in its memory
        (``PgStore.spool_items``), not read back from the database."""
        if not self.store.shared or time.monotonic() - self._sent_at < SEND_EVERY:
            return
        report = self.last_poll
        report.sent += self.flush()
        report.problems += self.flush_problems
        # the transport failed: not tried again until the look's end (its own flush says why)
        self._sent_at = float("inf") if self.flush_problems else time.monotonic()
