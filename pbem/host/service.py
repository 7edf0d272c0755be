"""The Host: one host folder at work.  It knows the folders (inbox,
processed and quarantined mail, state/), writes host.log, holds the lock
(one host process at a time), keeps the registry of hosted games, polls the
inbox and files every message away, and runs the serve loop.  The work
itself is done by the parts it is made of, one module each: ingest,
deadlines, letters, players, the spool and the journal.

Also the entry points around it: ``init_host`` (`pbem host init`),
``after_new`` (`pbem new` with a host) and ``add_game`` (`pbem host add`)."""
from __future__ import annotations

import contextlib
import fcntl
import json
import os
import signal
import threading
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Callable, Iterator

from pbem.host import crash
from pbem.host import mail as M
from pbem.host.common import SECRETS_NAME, HostError, iso, utcnow
from pbem.host.config import Config, find_host, load_config, password, write_config
from pbem.host.deadlines import DeadlinesMixin
from pbem.host.heap import mail_heap
from pbem.host.inbox import InboxMixin
from pbem.host.ingest import IngestMixin, Outcome
from pbem.host.journal import JournalMixin
from pbem.host.letters import LettersMixin
from pbem.host.notify import NotifyMixin
from pbem.host.players import PlayersMixin
from pbem.host.schedule import ScheduleMixin
from pbem.host.spool import SpoolMixin


@dataclass
class PollReport:
    """One poll: the messages read, what else it did (reports, reminders, deadlines: one
    line each), how many mails went out, and what went wrong (inbox, delivery, a message
    the host could not handle): `pbem mail poll` prints it all and exits 1 on a problem."""
    outcomes: list[Outcome] = field(default_factory=list)
    did: list[str] = field(default_factory=list)
    sent: int = 0
    problems: list[str] = field(default_factory=list)


class Host(InboxMixin, NotifyMixin, IngestMixin, ScheduleMixin, DeadlinesMixin, LettersMixin, PlayersMixin, SpoolMixin, JournalMixin):
    """A host folder at work (see ``pbem.host`` for its layout)."""

    def __init__(self, cfg: Config, now: Callable[[], datetime] | None = None,
                 echo: Callable[[str], None] | None = None):
        self.cfg = cfg
        self.now = now or utcnow
        self.echo = echo
        r = cfg.root
        self.state_dir = r / "state"
        self.journal_dir = self.state_dir / "journal"
        self.spool_building = self.state_dir / "spool" / "building"
        self.spool_ready = self.state_dir / "spool" / "ready"
        self.spool_failed = self.state_dir / "spool" / "failed"
        self.quarantine_dir = r / "mail" / "quarantine"
        self.logfile = r / "host.log"
        self._locked = False
        self.flush_problems: list[str] = []     # what the last flush could not deliver (spool)
        self.last_poll = PollReport()
        from pbem.store import host_store
        self.store = host_store(cfg)                # files (state/), or the database ([store] url)

    @classmethod
    def open(cls, root: Path, **kw) -> "Host":
        h = cls(load_config(root), **kw)
        h.prepare()
        return h

    def prepare(self) -> None:
        """Create the folders a host needs (idempotent).  Every folder that holds a
        secret (the journal and spool, filed mail with players' tokens, the outbox
        with welcome mails, the games) is made 0700, also on a host made before."""
        self.state_dir.mkdir(parents=True, exist_ok=True)
        for d in (self.journal_dir, self.spool_building, self.spool_ready, self.spool_failed, self.cfg.games_dir):
            d.mkdir(parents=True, exist_ok=True)
        M.Maildir(self.cfg.root / "mail" / "processed")
        M.Maildir(self.quarantine_dir)
        private = [self.state_dir, self.cfg.root / "mail", self.cfg.games_dir]
        if self.cfg.incoming.get("kind", "maildir") == "maildir":
            M.Maildir(self.inbox_path)
        if self.cfg.outgoing.get("kind", "outbox") == "outbox":
            M.Outbox(self.outbox_path)
            private.append(self.outbox_path)
        for d in private:
            os.chmod(d, 0o700)

    @property
    def processed(self) -> M.Maildir:
        return M.Maildir(self.cfg.root / "mail" / "processed")

    @property
    def inbox_path(self) -> Path:
        return self.cfg.root / str(self.cfg.incoming.get("maildir", "inbox"))

    @property
    def outbox_path(self) -> Path:
        return self.cfg.root / str(self.cfg.outgoing.get("outbox", "outbox"))

    # --- log and lock -----------------------------------------------------

    def log(self, text: str) -> None:
        line = f"{iso(datetime.now(timezone.utc))} {text}"
        try:
            fd = os.open(self.logfile, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600)
            try:
                os.write(fd, (line + "\n").encode("utf-8", "replace"))
            finally:
                os.close(fd)
        except OSError as e:                       # a full disk must not stop the host: say it where we can
            import sys
            print(f"pbem host: cannot write {self.logfile} ({e.strerror}): {text}", file=sys.stderr)
        if self.echo:
            self.echo(text)

    @contextlib.contextmanager
    def locked(self) -> Iterator[None]:
        """One host process at a time works on the inbox, the games and the spool (the
        file store).  With a database, many do: each job is a transaction that
        claims its message or game there instead."""
        if self._locked or self.store.shared:
            yield
            return
        self.state_dir.mkdir(parents=True, exist_ok=True)
        fd = os.open(self.state_dir / "lock", os.O_RDWR | os.O_CREAT, 0o600)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX)
            self._locked = True
            try:
                yield
            finally:
                self._locked = False
        finally:
            os.close(fd)

    # --- games --------------------------------------------------------------

    def games(self) -> dict:
        """Hosted games by id: a folder each (files), or a game store (the database)."""
        return self.store.games()

    def register(self, game) -> None:
        self.store.register(game)

    def hosted(self, gid: str):
        """``games().get(gid)``: one game's folder (or store), not every game's."""
        find = getattr(self.store, "hosted", None)
        return find(gid) if find is not None else self.games().get(gid)

    def game(self, gid: str):
        from pbem.engine import Game
        p = self.hosted(gid)
        return None if p is None else Game(p)

    # --- inbox ------------------------------------------------------------------

    def poll(self) -> list[Outcome]:
        """Deal with every message waiting in the inbox, then deadlines, then deliver.
        What it did besides reading mail, and what went wrong, is in ``last_poll``."""
        outcomes: list[Outcome] = []
        self.last_poll = report = PollReport()
        with self.locked(), mail_heap():
            kind = self.cfg.incoming.get("kind", "maildir")
            if kind == "imap":
                outcomes += self._poll_imap()
            else:
                outcomes += self._take_inbox(M.Maildir(self.inbox_path).messages, _read_file, self._take_file)
            report.did = self.tick()
            report.sent += self.flush()             # (and what a worker sent meanwhile: ``_send_meanwhile``)
            report.problems += self.flush_problems
        report.outcomes = outcomes
        report.problems += [oc.line() for oc in outcomes if oc.status == "error"]
        return outcomes

    def _take_file(self, path: Path, raw: bytes, inc: M.Incoming) -> Outcome | None:
        """One message of the Maildir inbox: its job, then filed (None: another worker has it)."""
        oc = self.ingest_claimed(raw, path.name, inc=inc, pass_busy=self._pass_busy)
        if oc is None or oc.filed == "left":
            return oc
        try:
            self._file(path, oc)
        except FileNotFoundError:
            pass                                   # another worker filed it (done in the journal)
        except OSError as e:                       # done in the journal: the next poll files it again
            self.log(f"{path.name}: could not be filed into {oc.filed} ({e.strerror}); it stays in the inbox")
        crash.checkpoint("filed")
        return oc

    def _poll_imap(self) -> list[Outcome]:
        inc = self.cfg.incoming
        box = M.ImapInbox(str(inc["server"]), int(inc.get("port", 993)), str(inc.get("user", "")),
                          password(self.cfg, "imap"), str(inc.get("folder", "INBOX")),
                          str(inc.get("security", "tls")), str(inc.get("processed_folder", "pbem-processed")),
                          str(inc.get("quarantine_folder", "pbem-quarantine")), float(inc.get("timeout", 60)))
        outcomes = []
        try:
            with box:
                self._uidvalidity(box)

                def take(ref: tuple[str, str], raw: bytes, inc: M.Incoming) -> Outcome | None:
                    uid = ref[1]
                    name = f"imap-{uid}"
                    oc = self.ingest_claimed(raw, name, source=f"imap:{box.uidvalidity}:{uid}", inc=inc,
                                             pass_busy=self._pass_busy)
                    if oc is not None and oc.filed != "left":
                        if oc.filed == "quarantine":
                            self._quarantine_copy(raw, name, oc)
                        box.file_into(uid, oc.filed)
                        crash.checkpoint("filed")
                    return oc
                self._take_inbox(lambda: [(box.uidvalidity, u) for u in box.uids()],
                                 lambda ref: box.fetch(ref[1]), take, outcomes)
        except M.MailError as e:
            self.last_poll.problems.append(f"inbox: {e}")
            self.log(f"inbox: {e}")
        for uid in box.skipped:
            self.log(f"inbox: message {uid} was deleted by another client before it could be fetched")
        return outcomes

    def _uidvalidity(self, box) -> None:
        """Say when the IMAP folder's UIDVALIDITY changed (its UIDs were renumbered): harmless
        here, since the host knows messages by Message-ID, but worth a line in host.log."""
        path = self.state_dir / "imap.json"
        try:
            seen = json.loads(path.read_text())
        except (OSError, ValueError):
            seen = {}
        where = f"{box.user}@{box.server}:{box.port}/{box.folder}"
        old = seen.get(where)
        if box.uidvalidity and old and old != box.uidvalidity:
            self.log(f"inbox: the UIDVALIDITY of {box.folder} changed from {old} to {box.uidvalidity} (the server "
                     "renumbered its messages); messages are known by Message-ID, none is applied twice")
        if box.uidvalidity and old != box.uidvalidity:
            seen[where] = box.uidvalidity
            M.write_atomic(path, json.dumps(seen, indent=1, sort_keys=True).encode(), 0o600)

    def ingest_files(self, paths: list[Path]) -> list[Outcome]:
        """`pbem mail ingest`: deal with message files given by hand; each is
        copied into mail/processed or mail/quarantine, the original stays."""
        outcomes = []
        with self.locked():
            for p in paths:
                try:
                    raw = Path(p).read_bytes()
                except OSError as e:
                    outcomes.append(Outcome(str(p), "error", "left", detail=f"cannot read: {e.strerror}"))
                    continue
                oc = self.ingest_claimed(raw, Path(p).name, retry=True)
                if oc is None:
                    oc = Outcome(str(p), "error", "left", detail="another worker has this message in hand; "
                                 "try again in a moment")
                if oc.filed != "left":
                    self._file(Path(p), oc, keep_original=True)
                outcomes.append(oc)
            self.flush()
        return outcomes

    def _file(self, path: Path, oc: Outcome, keep_original: bool = False) -> None:
        if oc.filed == "quarantine":
            dest = M.Maildir(self.quarantine_dir).file_here(path, keep_original)
            self._reason(dest.name, oc)
        else:
            self.processed.file_here(path, keep_original)

    def _quarantine_copy(self, raw: bytes, name: str, oc: Outcome) -> None:
        dest = M.Maildir(self.quarantine_dir).deliver(raw)
        self._reason(dest.name, oc)

    def quarantined(self) -> list[tuple[Path, str, str]]:
        """(file, when, why) of every message in the quarantine, oldest first.  The
        files are the truth: one whose reason could not be written is listed too."""
        reasons: dict[str, dict] = {}
        try:
            for line in (self.quarantine_dir / "reasons.jsonl").read_text().splitlines():
                with contextlib.suppress(ValueError):
                    r = json.loads(line)
                    reasons[r["file"]] = r
        except OSError:
            pass
        rows = []
        for path in M.Maildir(self.quarantine_dir).messages():
            r = reasons.get(path.name, {})
            rows.append((path, r.get("at", ""), r.get("reason", "")))
        return rows

    def _reason(self, name: str, oc: Outcome) -> None:
        line = json.dumps({"file": name, "at": iso(self.now()), "status": oc.status, "game": oc.game,
                           "reason": oc.detail}) + "\n"
        with open(self.quarantine_dir / "reasons.jsonl", "a", encoding="utf-8") as f:
            f.write(line)
            f.flush()
            os.fsync(f.fileno())

    # --- serve -------------------------------------------------------------------------

    def serve(self, interval: float | None = None, once: bool = False, stop: threading.Event | None = None) -> int:
        """Poll, handle deadlines and deliver, every ``interval`` seconds, until
        SIGTERM or SIGINT (the message in hand is finished first)."""
        stop = stop or threading.Event()
        interval = self.cfg.interval if interval is None else interval
        self._interval = interval                  # a worker takes over another's mail after two of them
        old = {}
        if threading.current_thread() is threading.main_thread():
            for sig in (signal.SIGTERM, signal.SIGINT):
                old[sig] = signal.signal(sig, lambda s, f: stop.set())
        self.log(f"serving {self.cfg.root} (inbox: {self.cfg.incoming.get('kind', 'maildir')}, "
                 f"outgoing: {self.cfg.outgoing.get('kind', 'outbox')}, every {interval:g}s"
                 + (f", worker {self.store.worker} on {self.store.describe()})" if self.store.shared else ")"))
        cycles = 0
        if self.store.shared:
            self.store.start_worker()
            self._await_siblings(stop)
        try:
            while not stop.is_set():
                try:
                    outcomes = self.poll()
                    if outcomes:
                        self.log(f"poll: {len(outcomes)} message(s)")
                except (HostError, M.MailError, OSError) as e:
                    self.last_poll = PollReport(problems=[f"poll failed: {e}"])
                    self.log(f"poll failed: {e}")
                except Exception as e:         # noqa: BLE001 - keep serving; the next poll retries
                    self.last_poll = PollReport(problems=[f"poll failed: internal error {type(e).__name__}: {e}"])
                    self.log(self.last_poll.problems[0])
                cycles += 1
                if once:
                    break
                self._until_next_poll(stop, interval)
        finally:
            for sig, h in old.items():
                signal.signal(sig, h)
            if self.store.shared:
                with contextlib.suppress(*self.store.errors):
                    self.store.stop_worker()
        self.log("stopped")
        return cycles

    def _await_siblings(self, stop: threading.Event, timeout: float = 30.0) -> None:
        """A worker of `pbem serve --workers N` waits (up to ``timeout``) for the other
        workers its supervisor started before its first poll: a worker that polled
        alone would take every game's mail until the others showed up."""
        import time
        want = int(os.environ.get("PBEM_WORKERS", "1") or 1)
        end = time.monotonic() + timeout
        while want > 1 and not stop.is_set() and time.monotonic() < end:
            try:
                aff = self.store.affinity()
            except self.store.errors:
                return
            if aff is None or len(aff.live) >= want:
                return
            stop.wait(0.1)


    def _until_next_poll(self, stop: threading.Event, interval: float) -> None:
        """Until the next poll: ``interval`` seconds, or (a database) until another worker
        commits a job (LISTEN pbem), but never less than a second; polling goes on
        regardless, so a lost notification only delays work."""
        if not self.store.shared:
            stop.wait(interval)
            return
        import time
        start = time.monotonic()
        while not stop.is_set():
            left = interval - (time.monotonic() - start)
            if left <= 0:
                return
            try:
                woken = self.store.wait(min(left, 1.0))
            except self.store.errors:
                woken = False
                stop.wait(min(left, 1.0))
            if woken and time.monotonic() - start >= min(1.0, interval):
                return


def _read_file(path: Path) -> bytes | None:
    try:
        return path.read_bytes()
    except FileNotFoundError:
        return None                                # another worker filed it


def init_host(root: Path, address: str, name: str = "pbem", referee: str | None = None, games: str = "games",
              incoming: dict | None = None, outgoing: dict | None = None, period: str = "72h",
              reminder: str = "24h", passwords: dict[str, str] | None = None, maps: bool = True,
              clock: dict | None = None, store: str = "") -> Config:
    """`pbem host init`: write pbem-host.toml (and credentials.toml), then make the host's folders."""
    cfg = write_config(root, address, name, referee, games, incoming, outgoing, period, reminder, passwords, maps,
                       clock, store)
    Host(cfg).prepare()
    return cfg


def after_new(game, echo: Callable[[str], None] = print) -> None:
    """`pbem new` hook: when a host is configured (PBEM_HOST, or the game lies
    inside a host folder), register the game and mail the welcomes."""
    from pbem.engine import EngineError
    try:
        root = find_host(game.dir)
        if root is None:
            return
        host = Host.open(root)
        told = host.welcome(game)
    except (HostError, M.MailError, OSError) as e:
        raise EngineError(f"game created, but the host could not welcome the players: {e}") from None
    tell_welcomes(host, game, told, echo, f"host {root}: ")


def tell_welcomes(host: "Host", game, told: list[str], echo: Callable[[str], None], prefix: str = "") -> None:
    """Say which welcomes went out and which wait in the spool (with the reason), and
    warn of a side nobody plays: `pbem new` and `pbem host add`."""
    where = host.outbox_path if host.cfg.outgoing.get("kind", "outbox") == "outbox" else host.cfg.outgoing.get("server")
    waiting = {m["to"].lower(): m for m in host.stuck() if m["game"] == game.game_id and m["kind"] == "welcome"}
    sent = [t for t in told if t.rsplit("<", 1)[-1].rstrip(">").lower() not in waiting]
    if sent:
        echo(f"{prefix}welcome mailed to {', '.join(sent)} (via {where})")
    for t in told:
        m = waiting.get(t.rsplit("<", 1)[-1].rstrip(">").lower())
        if m:
            state = "could not be delivered and was set aside" if m["state"] == "set aside" else \
                "was NOT sent: it waits in the spool"
            echo(f"{prefix}the welcome to {t} {state} ({m['error'] or 'not tried yet'}); "
                 "`pbem mail poll` retries, `pbem host status` shows it")
    if told:
        echo(f"player secrets: {game.store.path_of(SECRETS_NAME)} (mode 0600)")
    else:
        echo(f"{prefix}game registered; no player has an address, so no welcome was sent")
    ref = game.dir if game.store.kind == "files" else game.game_id      # as the command line takes it
    for side in host.unplayed(game):
        echo(f"warning: side {side} ({game.scenario.side_name(side)}) has no player: nobody gets its mail, and "
             + ("its steps run on the deadline defaults" if host.deadlines_on(game) else
                "with no deadlines the game waits for it for ever") + f" (`pbem host rotate-secret {ref} "
             f"{side} --email ADDRESS` gives it one)")


def add_game(root: Path, game_dir: Path, echo: Callable[[str], None] = print) -> None:
    from pbem.engine import Game
    host = Host.open(root)
    game = Game(Path(game_dir))
    told = host.welcome(game)
    echo(f"game {game.game_id} hosted from {game.dir}")
    tell_welcomes(host, game, told, echo)
