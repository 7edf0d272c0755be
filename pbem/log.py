"""Append-only, hash-chained event log (one game = one ``log.jsonl``).

Each line is the compact JSON of an envelope, keys in this fixed order::

    {"seq": 0, "prev": "<64 hex>", "kind": "...", "body": {...}, "at": "<ISO-8601 UTC>"}

``seq`` counts from 0. ``prev`` is the hash of the previous line (GENESIS for
seq 0). The chain is::

    h[-1] = GENESIS
    h[n]  = sha256(h[n-1].encode("ascii") + line_bytes[n]).hexdigest()

where ``line_bytes[n]`` are the bytes of line n exactly as stored, without the
trailing newline. Lines are never re-encoded for verification: re-encoding
could normalise away a tampered byte. Because every line carries ``prev``, the
last line alone yields the head hash, so ``head()`` only reads the file tail.

Writers hold an exclusive ``flock`` on the sibling ``<stem>.lock`` file;
readers (``read``, ``head``, ``iter_lines``) take no lock, so callers that need
a consistent read-decide-append must do it inside ``with log.lock():``.

Secrecy: the host's log holds sealed payloads and their salts, so every file
written here (log, lock, head anchor, and whatever callers write with
``write_private``) is created 0600. Taking the writer lock refuses a log that
group/other can access, the way ``dice.read_seed`` refuses such a seed: only
the host writes, so the check sits on the write path; reading (``read``,
``head``, verify, state) works on any copy, e.g. an auditor's.
"""

from __future__ import annotations

import contextlib
import fcntl
import hashlib
import os
import re
import stat
from pathlib import Path
from typing import Any, Callable, Iterable, Iterator

import msgspec

__all__ = [
    "GENESIS",
    "EventLog",
    "LogError",
    "RawEnvelope",
    "Record",
    "StaleHead",
    "anchor_of",
    "line_hash",
    "walk_chain",
    "private_lock",
    "read_regular",
    "FileRefused",
    "raw_envelope",
    "write_output",
    "write_private",
]

GENESIS = "0" * 64

# Bytes read per step when scanning backwards from EOF in head(); a module
# constant so tests can shrink it to exercise chunk boundaries.
_TAIL_CHUNK = 64 * 1024
# Bytes read per step by iter_lines and iter_lines_reversed (a constant, not
# the log's size, bounds their memory); small in tests of block boundaries.
_READ_CHUNK = 256 * 1024

_HEX64 = re.compile(r"[0-9a-f]{64}")
# The anchor file, exactly: a non-negative decimal seq, one space, the hash.
_ANCHOR = re.compile(rb"(0|[1-9][0-9]{0,17}) ([0-9a-f]{64})\n?")


class LogError(Exception):
    """The log file is unreadable, corrupt, tampered with or torn.

    ``.line`` is the 1-based line number of the offending line (or None),
    ``.path`` the log file, ``.reason`` the message without the location.
    """

    def __init__(self, reason: str, line: int | None = None, path: Path | None = None):
        self.reason = reason
        self.line = line
        self.path = path
        where = str(path) if path is not None else "event log"
        if line is not None:
            where += f" line {line}"
        super().__init__(f"{where}: {reason}")


class StaleHead(LogError):
    """The log moved on since the caller read it (``expect_head`` mismatch)."""


class Record(msgspec.Struct, frozen=True):
    """One decoded log line plus its chain hash and raw bytes (not stored)."""

    seq: int
    prev: str
    kind: str
    body: dict[str, Any]
    at: str
    hash: str
    line: bytes


class RawEnvelope(msgspec.Struct):
    """A log line with its body left undecoded (msgspec.Raw): the event is decoded
    later by its kind (pbem.core.events.decode_body)."""
    seq: int
    prev: str
    kind: str
    body: msgspec.Raw
    at: str


raw_envelope = msgspec.json.Decoder(RawEnvelope)


class _Envelope(msgspec.Struct, forbid_unknown_fields=True):
    # What a line must contain, exactly; unknown keys are refused so nothing
    # can ride along in a line without being part of the schema.
    seq: int
    prev: str
    kind: str
    body: dict[str, Any]
    at: str


_decoder = msgspec.json.Decoder(_Envelope)


def line_hash(prev: str, line: bytes) -> str:
    """Chain hash of ``line`` (stored bytes, no newline) following ``prev``."""
    return hashlib.sha256(prev.encode("ascii") + line).hexdigest()


def walk_chain(lines: Iterable[bytes], decode: Callable[[int, bytes], Any],
               broken: Callable[[int, Any, str], None] | None = None,
               last: int | None = None) -> Iterator[tuple[int, bytes, Any, str]]:
    """The one walk of the hash chain: ``(n, line, x, h)`` for each line, ``x`` =
    ``decode(n, line)`` (anything with ``seq`` and ``prev``; None: undecodable, not
    checked) and ``h`` the chain hash of line n.

    Forwards (``last`` None) ``lines`` run from seq 0 and ``h`` is the running hash
    from GENESIS.  Backwards (``lines`` from the last, ``last`` its seq) ``h`` is
    the line's own hash (from its prev), which the line after must name.  Either
    way ``broken(m, x_m, expect)`` is called, before a line is yielded, for a line
    m whose seq is not m or whose prev is not ``expect`` (the hash of the line
    before, GENESIS for seq 0): it raises to stop the walk or returns to go on.
    Without ``broken`` nothing is checked.  Callers word the break their way."""
    if last is None:
        h = GENESIS
        sha = hashlib.sha256
        for n, line in enumerate(lines):
            x = decode(n, line)
            if broken is not None and x is not None and (x.seq != n or x.prev != h):
                broken(n, x, h)
            h = sha(h.encode("ascii") + line).hexdigest()      # line_hash, inline: replay's hot loop
            yield n, line, x, h
        return
    n, after, expect = last + 1, None, ""
    for line in lines:
        n -= 1
        x = decode(n, line)
        h = line_hash(x.prev, line)
        if broken is not None:
            if x.seq != n:
                broken(n, x, x.prev)
            if after is not None and h != expect:
                broken(n + 1, after, h)
            if n == 0 and x.prev != GENESIS:
                broken(0, x, GENESIS)
        after, expect = x, x.prev
        yield n, line, x, h


def walk_blocks(blocks: Iterable[list[bytes]], fast: Callable[[bytes], Any], decode: Callable[[int, bytes], Any],
                broken: Callable[[int, Any, str], None]) -> Iterator[tuple[list[Any], str]]:
    """``walk_chain`` forwards, a block of lines at a time (replay's hot loop): ``(xs, h)``
    for each block, ``xs`` its lines decoded and ``h`` the chain hash of its last line.

    Every line is checked exactly as ``walk_chain`` checks it (its seq, its prev against
    the hash of the line before, GENESIS first), with fewer Python steps a line: ``fast``
    decodes each line of the block, each line's hash is taken from its own ``prev``
    (``sha256(prev + line)``, the chain's definition once every prev is proven), and the
    block passes only if its first prev is the hash carried from the block before, every
    other prev the hash of the line before it, and its seqs count on.  A block that does
    not (``fast`` refuses a line, a link is broken, a prev is not ASCII) is walked again
    line by line by ``walk_chain``'s own loop (``decode``, ``broken``), one line a
    block, so that a caller applying each line before the next sees what it saw there:
    the lines before the break, then the break.  No line is yielded unchecked."""
    h = GENESIS
    n = 0
    sha = hashlib.sha256
    for lines in _spans(blocks):
        k = len(lines)
        try:
            xs = list(map(fast, lines))
            prevs = [x.prev for x in xs]
            hs = [sha(p.encode("ascii") + line).hexdigest() for p, line in zip(prevs, lines)]
            ok = prevs[0] == h and prevs[1:] == hs[:-1] and [x.seq for x in xs] == list(range(n, n + k))
        except Exception:                       # noqa: BLE001 - any refusal: the plain walk says what it is
            ok = False
        if ok:
            h = hs[-1]
            n += k
            yield xs, h
            continue
        for line in lines:                      # walk_chain's loop, line by line
            x = decode(n, line)
            if x is not None and (x.seq != n or x.prev != h):
                broken(n, x, h)
            h = sha(h.encode("ascii") + line).hexdigest()
            n += 1
            yield [x], h


# Lines decoded and checked at once by walk_blocks: few enough that a span's objects, alive
# together, stay under the garbage collector's first threshold (700 new objects).
_SPAN = 128


def _spans(blocks: Iterable[list[bytes]]) -> Iterator[list[bytes]]:
    for lines in blocks:
        if len(lines) <= _SPAN:
            yield lines
        else:
            for i in range(0, len(lines), _SPAN):
                yield lines[i:i + _SPAN]


def anchor_of(log: Any, last: int, hash_at: Callable[[int], str | None], known: Any = None
              ) -> tuple[str, tuple[int, str] | None, LogError | None]:
    """The one check of the head anchor (``log.recorded_head()``: log.head, or the
    database's heads row) against a log ending at seq ``last``, ``hash_at(seq)``
    giving the chain hash of a line (None: not known here, not compared).  Returns
    (verdict, anchor, error): verdict "ok" (the anchor names the last line and its
    hash), "none" (no anchor), "unreadable" (error says why), "removed" (it names a
    seq past the end), "changed" (its seq's line hashes otherwise) or "lags" (it
    anchors an earlier line only).  Callers word the verdict their way.  ``known``: the
    anchor as the caller read it with the last line (``(anchor,)``), else it is read here."""
    try:
        anchor = log.recorded_head() if known is None else known[0]
    except LogError as e:
        return "unreadable", None, e
    if anchor is None:
        return "none", None, None
    seq, h = anchor
    if seq > last:
        return "removed", anchor, None
    known = hash_at(seq)
    if known is not None and known != h:
        return "changed", anchor, None
    return ("ok" if seq == last else "lags"), anchor, None


def _check_at(at: str) -> None:
    from datetime import datetime, timedelta       # here: reading a log needs neither
    if not isinstance(at, str):
        raise TypeError(f"at must be an ISO-8601 UTC timestamp string, got {type(at).__name__}")
    try:
        ts = datetime.fromisoformat(at)
    except ValueError:
        raise ValueError(f"at={at!r} is not an ISO-8601 timestamp") from None
    if ts.utcoffset() != timedelta(0):
        raise ValueError(f"at={at!r} must be in UTC (suffix 'Z' or '+00:00')")


def _fsync_dir(path: Path) -> None:
    fd = os.open(path, os.O_RDONLY | os.O_DIRECTORY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def write_private(path: Path, data: bytes, sync: bool = True, sync_dir: bool = True) -> None:
    """Atomically replace ``path`` with ``data``, mode 0600.

    The temporary file has a unique name (``mkstemp``, itself 0600), so two
    writers never write into one file and a reader never sees a half-written
    one. ``sync`` makes it durable (fsync of the file and the directory);
    ``sync_dir=False``: the file's data only, the caller fsyncs the directory
    once for several files (the outbox)."""
    import tempfile                                 # here: reading a log needs no temporary file
    path = Path(path)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        try:
            view = memoryview(data)
            while view:
                view = view[os.write(fd, view) :]
            if sync:
                os.fsync(fd)
        finally:
            os.close(fd)
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise
    if sync and sync_dir:
        _fsync_dir(path.parent)


class FileRefused(OSError):
    """``read_regular`` would not read a file: not a regular file, or too large."""


def file_kind(mode: int) -> str:
    for test, name in ((stat.S_ISFIFO, "a FIFO (named pipe)"), (stat.S_ISCHR, "a character device"),
                       (stat.S_ISBLK, "a block device"), (stat.S_ISSOCK, "a socket"), (stat.S_ISDIR, "a folder")):
        if test(mode):
            return name
    return "not a regular file"


def open_regular(path: Path):
    """``path`` opened for reading as a binary file, if it is a regular file (a symbolic
    link to one will do); FileRefused (an OSError) for a FIFO, a device, a socket or a
    folder, which is never waited on nor read.  FileNotFoundError as ``open`` raises it."""
    fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_NOCTTY | getattr(os, "O_CLOEXEC", 0))
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            raise FileRefused(f"{path} is {file_kind(st.st_mode)}, not a regular file; it was not read")
        os.set_blocking(fd, True)
        return os.fdopen(fd, "rb")
    except BaseException:
        os.close(fd)
        raise


def read_regular(path: Path, limit: int) -> bytes:
    """The bytes of ``path`` when it is a regular file (a symbolic link to one will do)
    of at most ``limit`` bytes; else FileRefused (an OSError) saying what it is.  The
    file is opened without blocking (a FIFO does not hang the reader) and checked on
    the open descriptor, so it cannot be swapped between the check and the read;
    never more than ``limit`` bytes are read (a file that grows is refused too)."""
    fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_NOCTTY | getattr(os, "O_CLOEXEC", 0))
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            raise FileRefused(f"{path} is {file_kind(st.st_mode)}, not a regular file; it was not read")
        too_big = FileRefused(f"{path} holds more than {limit:,} bytes, the most pbem reads of it; it was not read")
        if st.st_size > limit:
            raise too_big
        chunks, n = [], 0
        while chunk := os.read(fd, min(1 << 20, limit + 1 - n)):
            chunks.append(chunk)
            n += len(chunk)
            if n > limit:
                raise too_big
        return b"".join(chunks)
    finally:
        os.close(fd)


def write_output(path: Path, data: bytes) -> None:
    """Write a file a user named (``-o PATH``): a new path, or a regular file, replaced
    in one rename (mode 0600).  Anything else is refused with FileRefused and left as
    it is: a device (``/dev/full``), a FIFO, a socket or a folder, and a symbolic link
    (never silently replaced by a plain file, nor written through: name the file itself)."""
    check_output(path)
    write_private(Path(path), data, sync=False)


def check_output(path: Path) -> None:
    """FileRefused when ``write_output`` would refuse ``path`` (see there)."""
    try:
        st = os.lstat(path)
    except FileNotFoundError:
        return
    else:
        if stat.S_ISLNK(st.st_mode):
            raise FileRefused(f"{path} is a symbolic link; pbem neither replaces nor follows it: "
                              "name the file itself (nothing was written)")
        if not stat.S_ISREG(st.st_mode):
            raise FileRefused(f"{path} is {file_kind(st.st_mode)}; pbem writes only to a regular file or a new "
                              "path (nothing was written)")


@contextlib.contextmanager
def private_lock(path: Path) -> Iterator[None]:
    """Hold an exclusive ``flock`` on ``path`` (created 0600, left in place)."""
    fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o600)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        yield
    finally:
        os.close(fd)  # closing releases the flock


class EventLog:
    """Event store for one game, backed by an append-only JSON-lines file.

    Not thread-safe: use one EventLog object per thread (processes are
    serialised by the file lock).
    """

    def __init__(self, path: Path):
        self.path = Path(path)
        self.lock_path = self.path.with_suffix(".lock")
        self._held = False

    def __repr__(self) -> str:
        return f"EventLog({str(self.path)!r})"

    def exists(self) -> bool:
        return self.path.exists()

    # -- errors ------------------------------------------------------------

    def _error(self, reason: str, line: int | None = None) -> LogError:
        return LogError(reason, line, self.path)

    def _torn(self, line: int) -> LogError:
        return self._error(
            "last line is incomplete (no trailing newline), probably a crash "
            "during a write; nothing was used from it. To recover, inspect it "
            "and truncate the file just after the last newline",
            line,
        )

    def _decode(self, line: bytes, lineno: int | None) -> _Envelope:
        try:
            return _decoder.decode(line)
        except msgspec.DecodeError as e:
            raise self._decode_error(e, lineno) from None

    def _decode_error(self, e: msgspec.DecodeError, lineno: int | None) -> LogError:
        if isinstance(e, msgspec.ValidationError):  # JSON fine, schema not
            return self._error(f"invalid record: {e}", lineno)
        return self._error(f"not valid JSON: {e}", lineno)

    def _count_newlines(self) -> int:
        # Only used to put a line number on errors found by head().
        n = 0
        with open_regular(self.path) as f:
            while chunk := f.read(1 << 20):
                n += chunk.count(b"\n")
        return n

    # -- reading -----------------------------------------------------------

    def iter_lines(self) -> Iterator[bytes]:
        """Yield raw lines (without newline); raise LogError on a torn last line."""
        for lines in self.iter_blocks():
            yield from lines

    def iter_blocks(self) -> Iterator[list[bytes]]:
        """The lines (without newline) in lists, about ``_READ_CHUNK`` bytes at a
        time: memory stays constant in the log's length, and a caller looping
        over each list saves a generator step per line.  Raises LogError on a torn
        last line, after the lines before it."""
        try:
            f = open_regular(self.path)
        except FileNotFoundError:
            return
        with f:
            n = 0
            rest = b""
            while block := f.read(_READ_CHUNK):
                lines = (rest + block if rest else block).split(b"\n")
                rest = lines.pop()              # the incomplete line after the last newline
                if lines:
                    n += len(lines)
                    yield lines
            if rest:
                raise self._torn(n + 1)

    def first_line(self) -> bytes | None:
        """The first line (without newline), reading no further than it; None
        if the log is missing or empty.  Raises LogError if it is torn."""
        try:
            f = open_regular(self.path)
        except FileNotFoundError:
            return None
        with f:
            parts = []
            while chunk := f.read(8192):
                cut = chunk.find(b"\n")
                if cut >= 0:
                    parts.append(chunk[:cut])
                    return b"".join(parts)
                parts.append(chunk)
        if parts:
            raise self._torn(1)
        return None

    def iter_lines_reversed(self) -> Iterator[bytes]:
        """Yield raw lines (without newline) from the last to the first, reading
        blocks from the end of the file: a caller that stops early reads only the
        tail.  Raises LogError on a torn last line, before yielding anything."""
        try:
            f = open_regular(self.path)
        except FileNotFoundError:
            return
        with f:
            pos = f.seek(0, os.SEEK_END)
            if pos == 0:
                return
            f.seek(pos - 1)
            if f.read(1) != b"\n":
                raise self._torn(self._count_newlines() + 1)
            pos -= 1                            # the final newline ends the last line
            rest = b""
            while pos > 0:
                start = max(0, pos - _READ_CHUNK)
                f.seek(start)
                block = f.read(pos - start) + rest
                pos = start
                lines = block.split(b"\n")
                rest = lines[0]                 # may continue in the block before
                for line in reversed(lines[1:]):
                    yield line
            yield rest

    def read(self, verify: bool = True) -> list[Record]:
        """Decode the whole log; a missing file is an empty log.

        Every line must be a valid envelope and the file must end with a
        newline. With ``verify``, seq continuity and the prev chain are
        checked too. Raises LogError naming the first bad line.
        """
        try:
            with open_regular(self.path) as f:
                data = f.read()
        except FileNotFoundError:
            return []
        lines = data.split(b"\n")
        tail = lines.pop()  # b"" when the file ends with a newline
        records: list[Record] = []
        for i, line, env, h in walk_chain(lines, lambda i, line: self._decode(line, i + 1),
                                          self._broken if verify else None):
            # The running hash is the definition of the chain; with verify it
            # equals env.prev chained, without verify it ignores a bad prev.
            records.append(Record(env.seq, env.prev, env.kind, env.body, env.at, h, line))
        if tail:
            raise self._torn(len(lines) + 1)
        return records

    def _broken(self, i: int, env: _Envelope, h: str) -> None:
        if env.seq != i:
            raise self._error(f"expected seq {i}, found {env.seq}", i + 1)
        if i == 0:
            reason = "hash chain broken (first record's prev must be GENESIS)"
        else:
            reason = (
                f"hash chain broken (prev does not match line {i}; "
                f"line {i} or this line was altered)"
            )
        raise self._error(reason, i + 1)

    def head(self) -> tuple[int, str]:
        """(seq, hash) of the last record, or (-1, GENESIS) if empty/missing.

        Reads only the tail of the file. Does not verify the chain (use
        ``read()``); does refuse a torn or undecodable last line.
        """
        try:
            f = open_regular(self.path)
        except FileNotFoundError:
            return -1, GENESIS
        with f:
            end = f.seek(0, os.SEEK_END)
            if end == 0:
                return -1, GENESIS
            f.seek(end - 1)
            if f.read(1) != b"\n":
                raise self._torn(self._count_newlines() + 1)
            # Scan backwards from just before the final newline for the
            # newline that precedes the last line.
            parts: list[bytes] = []
            pos = end - 1
            while pos > 0:
                start = max(0, pos - _TAIL_CHUNK)
                f.seek(start)
                chunk = f.read(pos - start)
                pos = start
                cut = chunk.rfind(b"\n")
                if cut >= 0:
                    parts.append(chunk[cut + 1 :])
                    break
                parts.append(chunk)
            line = b"".join(reversed(parts))
        # Line numbers cost a full scan, so they are computed on errors only.
        try:
            env = _decoder.decode(line)
        except msgspec.DecodeError as e:
            raise self._decode_error(e, self._count_newlines()) from None
        if not _HEX64.fullmatch(env.prev):
            raise self._error("prev is not a 64-digit lowercase hex hash", self._count_newlines())
        return env.seq, line_hash(env.prev, line)

    # -- writing -----------------------------------------------------------

    @contextlib.contextmanager
    def lock(self) -> Iterator[None]:
        """Hold the exclusive writer lock (``flock`` on the sibling lock file).

        Re-entrant within this EventLog object: a caller that holds it (staged
        orders taken and applied as one step, ``pbem.staging.final``) may call
        code that takes it again.  Inside it, pass ``locked=True`` to
        append/append_many::

            with log.lock():
                seq, h = log.head()
                ...decide...
                log.append_many(items, at, expect_head=h, locked=True)
        """
        if self._held:
            yield                                   # already ours: flock on a second descriptor would deadlock
            return
        with private_lock(self.lock_path):
            self._check_private()
            self._held = True
            try:
                yield
            finally:
                self._held = False

    def _check_private(self) -> None:
        """Refuse to write a log that group/other can access (see module doc)."""
        try:
            mode = stat.S_IMODE(os.stat(self.path).st_mode)
        except FileNotFoundError:
            return
        if mode & 0o077:
            raise self._error(
                f"mode {mode:04o} lets group/other users read the sealed secrets and salts "
                f"in the log; restrict it with: chmod 600 {self.path}"
            )

    def append(
        self,
        kind: str,
        body: dict | msgspec.Struct,
        at: str,
        expect_head: str | None = None,
        locked: bool = False,
    ) -> Record:
        """Append one event; see ``append_many``."""
        return self.append_many([(kind, body)], at, expect_head, locked=locked)[0]

    def append_many(
        self,
        items: list[tuple[str, dict | msgspec.Struct]],
        at: str,
        expect_head: str | None = None,
        locked: bool = False,
    ) -> list[Record]:
        """Atomically append events ``(kind, body)`` all stamped ``at``.

        All lines go out in one write, then fsync; on any failure the file is
        restored to its previous bytes (or removed if this call created it).
        If ``expect_head`` is given and is not the current head hash, raise
        StaleHead and write nothing. ``locked=True`` means the caller already
        holds ``self.lock()``; otherwise the lock is taken here. Creates the
        file (parent directory must exist). Returns the new records.
        """
        if locked:
            if not self._held:
                raise RuntimeError("append_many(locked=True) called without holding log.lock()")
            return self._append_locked(items, at, expect_head)
        with self.lock():
            return self._append_locked(items, at, expect_head)

    def _append_locked(
        self, items: list[tuple[str, Any]], at: str, expect_head: str | None
    ) -> list[Record]:
        _check_at(at)
        seq, h = self.head()
        if expect_head is not None and expect_head != h:
            raise StaleHead(
                f"log changed since it was read: expected head {expect_head[:12]}..., "
                f"found {h[:12]}... at seq {seq}; re-read and decide again",
                None,
                self.path,
            )
        records: list[Record] = []
        chunks: list[bytes] = []
        for kind, body in items:
            if not isinstance(kind, str) or not kind:
                raise ValueError(f"kind must be a non-empty string, got {kind!r}")
            seq += 1
            line = msgspec.json.encode({"seq": seq, "prev": h, "kind": kind, "body": body, "at": at})
            # Decode what we are about to store so the returned Record equals
            # what read() will return (e.g. Struct bodies become dicts), and
            # refuse bodies that do not encode to a JSON object.
            try:
                env = _decoder.decode(line)
            except msgspec.ValidationError as e:
                raise TypeError(f"body of {kind!r} must encode to a JSON object: {e}") from None
            h = line_hash(h, line)
            records.append(Record(env.seq, env.prev, env.kind, env.body, env.at, h, line))
            chunks += (line, b"\n")
        if chunks:
            self._write(b"".join(chunks))
            self._write_head(seq, h)
        return records

    @property
    def head_path(self) -> Path:
        return self.path.with_suffix(".head")

    def _write_head(self, seq: int, h: str) -> None:
        """Anchor the head in a sidecar file: the last line's hash depends only
        on that line, so without an anchor a changed last line (or a dropped
        tail) would still form a valid chain."""
        try:
            write_private(self.head_path, f"{seq} {h}\n".encode("ascii"))
        except OSError:
            # The log itself is written and must not be rolled back; verify
            # reports the lagging anchor and the next append re-anchors.
            pass

    def recorded_head(self) -> tuple[int, str] | None:
        """(seq, hash) from the anchor file, None if there is no anchor file.

        Raises LogError if it exists but cannot be read or is not exactly
        ``<seq> <64 hex>`` with a non-negative seq."""
        try:
            raw = read_regular(self.head_path, 4096)   # a FIFO or a device in its place is refused, never read
        except FileNotFoundError:
            return None
        except OSError as e:
            raise LogError(f"unreadable: {e.strerror or e}", None, self.head_path) from None
        m = _ANCHOR.fullmatch(raw)
        if m is None:
            raise LogError("not an anchor (expected '<seq> <64 hex digits>')", None, self.head_path)
        return int(m[1]), m[2].decode("ascii")

    def check_anchor(self, seq: int, head: str, known: Any = None) -> None:
        """The cheap half of trusting a head: log.head must not contradict the last line (name
        a later seq, or this seq with another hash).  One that lags (an interrupted write) or
        is missing leaves the tail unproven, which `pbem verify` says; reading goes on.
        ``known``: the anchor read with the last line (``(anchor,)``: the database's)."""
        verdict, anchor, _ = anchor_of(self, seq, lambda s: head if s == seq else None, known)
        # unreadable, missing or lagging: verify's finding, not a reader's
        if verdict == "removed":
            raise LogError(f"log.head records seq {anchor[0]} but the log ends at seq {seq}: lines were removed "
                           "(or log.head is not this log's); `pbem verify` tells more", seq + 1, self.path)
        if verdict == "changed":
            raise LogError("the last line does not hash to the head recorded in log.head: it was changed; "
                           "`pbem verify` tells more", seq + 1, self.path)

    def stamp(self) -> str:
        """The identity of the file as it is now (device, inode, size, mtime and ctime): any
        write to it, and any copy of it, gives another stamp; the ctime no user can set."""
        try:
            s = os.stat(self.path)
        except OSError:
            return "-"
        return f"{s.st_dev:x}.{s.st_ino:x}.{s.st_size}.{s.st_mtime_ns}.{s.st_ctime_ns}"

    def _write(self, data: bytes) -> None:
        flags = os.O_WRONLY | os.O_APPEND
        try:
            fd = os.open(self.path, flags | os.O_CREAT | os.O_EXCL, 0o600)
            created = True
        except FileExistsError:
            fd = os.open(self.path, flags)
            created = False
        try:
            size = os.fstat(fd).st_size
            try:
                view = memoryview(data)
                while view:  # os.write may write less than asked
                    view = view[os.write(fd, view) :]
                os.fsync(fd)
                if created:
                    _fsync_dir(self.path.parent)
            except BaseException as exc:
                # Including KeyboardInterrupt: a failed append must leave the
                # log byte-for-byte as it was, never with a partial line.
                try:
                    if created:
                        os.unlink(self.path)
                    else:
                        os.ftruncate(fd, size)
                except OSError as undo:
                    exc.add_note(
                        f"rolling back {self.path} to {size} bytes also failed ({undo}); "
                        "it may end with a partial line"
                    )
                else:
                    with contextlib.suppress(OSError):
                        # Best effort: if the disk is failing this may fail too,
                        # but the truncation is already visible to readers.
                        os.fsync(fd)
                raise
        finally:
            os.close(fd)
