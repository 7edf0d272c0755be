"""Tools for referees and tournament auditors, above the engine: ``audit``
(many game folders at once), ``diff`` (two copies of one game), and the
others beside them in this package.

This module holds what audit and diff share: reading a game folder's log exactly as
stored, line by line, checking its hash chain and its ``log.head`` anchor
without stopping at the first bad line (an auditor wants to know where a log
breaks and what comes after), and decoding the events.  It reads and never
writes: a tournament folder, or an auditor's read-only copy, is left as it was.
"""
from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field
from pathlib import Path

import msgspec

from pbem import games  # noqa: F401 - the game registry: every game's events decode, every scenario checks
from pbem.log import GENESIS, EventLog, FileRefused, anchor_of, raw_envelope, read_regular, walk_chain

LOG_NAME = "log.jsonl"
# The most read of a game folder's files (a game's log is well under a megabyte: the longest
# example's is 0.2 MB); anything larger, or not a regular file, is a finding, not read.
MAX_LOG_BYTES = 64 << 20
MAX_FILE_BYTES = 16 << 20




@dataclass
class Line:
    """One stored line: its bytes, the envelope fields, its chain hash and the decoded event
    (None when the body is not a known event; ``error`` says why)."""
    index: int                     # 0-based line number: the seq it should carry
    raw: bytes
    hash: str                      # sha256(previous line's hash + raw), as the chain defines it
    seq: int = -1
    prev: str = ""
    kind: str = ""
    at: str = ""
    event: object = None
    error: str = ""

    def as_json(self) -> dict:
        """The line as JSON data (as stored; for reports and --json)."""
        try:
            return json.loads(self.raw)
        except ValueError:
            return {"raw": self.raw.decode("utf-8", "replace")}


@dataclass
class Chain:
    """A game folder's log, read as stored, with what is wrong with its chain and anchor."""
    dir: Path
    lines: list[Line] = field(default_factory=list)
    problem: str = ""              # the first chain problem ("" = intact), worded for a report
    broken_at: int | None = None   # the seq (line index) where the chain first fails
    torn: bool = False             # the file ends in a line without its newline
    anchor: tuple[int, str] | None = None
    anchor_problem: str = ""       # "" = log.head anchors the last line
    missing: str = ""              # the log cannot be read at all (why)

    @property
    def intact(self) -> bool:
        return not self.missing and not self.problem

    @property
    def head(self) -> str:
        return self.lines[-1].hash if self.lines else GENESIS

    @property
    def last_seq(self) -> int:
        return len(self.lines) - 1

    def hash_at(self, seq: int) -> str:
        return self.lines[seq].hash if 0 <= seq < len(self.lines) else ""


def read_chain(game_dir: Path, decode: bool = True) -> Chain:
    """Read ``game_dir/log.jsonl`` line by line: recompute every hash from the stored
    bytes, note the first line whose seq or ``prev`` does not fit (and go on reading),
    a torn last line, and whether ``log.head`` anchors the last line.  With ``decode``
    every body is decoded into its event type too."""
    from pbem.core import events as E
    game_dir = Path(game_dir)
    ch = Chain(game_dir)
    log = EventLog(game_dir / LOG_NAME)
    try:
        data = read_regular(log.path, MAX_LOG_BYTES)    # a FIFO, a device or a huge file: refused, not read
    except FileNotFoundError:
        ch.missing = f"{log.path} not found: not a pbem game folder"
        return ch
    except FileRefused as e:
        ch.missing = str(e)
        return ch
    except OSError as e:
        ch.missing = f"{log.path} cannot be read: {e.strerror}"
        return ch
    raws = data.split(b"\n")
    tail = raws.pop()
    if tail:                                         # a crash mid-write: never used
        ch.torn = True

    def envelope(n: int, raw: bytes):
        try:
            return raw_envelope.decode(raw)
        except msgspec.DecodeError as e:
            errors[n] = e
            _first(ch, n, f"line {n + 1} is not a log envelope ({e})")
            return None

    def broken(n: int, env, h: str) -> None:
        if env.seq != n:
            _first(ch, n, f"line {n + 1} carries seq {env.seq}, expected {n} (a line was removed, "
                          "inserted or renumbered)")
        else:
            _first(ch, n, f"the chain breaks at seq {n}: its prev does not match the hash of seq {n - 1} "
                          f"(seq {n - 1} or seq {n} was altered)" if n else
                          "the chain breaks at seq 0: its prev is not the genesis value")

    errors: dict[int, msgspec.DecodeError] = {}
    for n, raw, env, h in walk_chain(raws, envelope, broken):
        ln = Line(n, raw, h)
        if env is None:
            ln.error = f"not a log envelope ({errors.pop(n)})"
        else:
            ln.seq, ln.prev, ln.kind, ln.at = env.seq, env.prev, env.kind, env.at
            if decode:
                try:
                    ln.event = E.decode_body(env.kind, env.body)
                except (msgspec.DecodeError, msgspec.ValidationError, ValueError) as e:
                    ln.error = f"not a valid {env.kind} event ({e})"
                    _first(ch, n, f"seq {n}: not a valid {env.kind} event ({e})")
                if n and isinstance(ln.event, E.GameCreated):
                    _first(ch, n, f"a second GameCreated at seq {n}: two logs were joined, or two games "
                                  "were created in one folder")
        ch.lines.append(ln)
    if ch.torn:
        _first(ch, len(raws), f"the last line ({len(raws) + 1}) is incomplete (no newline): a crash during "
                              "a write; it was not used")
    if not ch.lines:
        ch.missing = ch.missing or f"{log.path} is empty"
        return ch
    _check_anchor(ch, log)
    return ch


def _first(ch: Chain, n: int, text: str) -> None:
    if not ch.problem:
        ch.problem, ch.broken_at = text, n


def _check_anchor(ch: Chain, log: EventLog) -> None:
    """log.head must name the last line's seq and hash (see Game._check_head)."""
    last = ch.last_seq
    verdict, ch.anchor, e = anchor_of(log, last, ch.hash_at)
    if verdict == "unreadable":
        ch.anchor_problem = f"log.head is unusable ({e.reason}): the tail of the log cannot be proven unaltered"
        return
    if verdict == "none":
        ch.anchor_problem = ("there is no log.head anchor: the last lines cannot be proven unaltered "
                             "(compare the head with a player's latest report)")
        return
    seq, h = ch.anchor
    if verdict == "removed":
        ch.anchor_problem = (f"log.head records seq {seq} but the log ends at seq {last}: lines were removed "
                             "(or log.head belongs to another log)")
    elif verdict == "changed":
        ch.anchor_problem = (f"seq {seq} does not hash to the head recorded in log.head "
                             f"({h[:16]}...): the log was changed after it was written")
    elif verdict == "lags":
        ch.anchor_problem = (f"log.head anchors seq {seq} only, the log ends at seq {last}: seq {seq + 1}..{last} "
                             "cannot be proven unaltered (an interrupted write, or a changed tail)")


def parting(a: Chain, b: Chain) -> int | None:
    """The first seq where two logs differ (a line in one and not the other counts); None if identical."""
    for n, (x, y) in enumerate(zip(a.lines, b.lines)):
        if x.raw != y.raw:
            return n
    if len(a.lines) != len(b.lines) or a.torn != b.torn:
        return min(len(a.lines), len(b.lines))
    return None


def last_reports(game_dir: Path, sides: list[str]) -> dict[str, int | None]:
    """The seq each side's last report covered (reported.json; see Game.last_report), None for a side
    never reported to.  Read directly, so that it works on a folder the engine refuses to open."""
    try:
        data = json.loads(read_regular(Path(game_dir) / "reported.json", MAX_FILE_BYTES))
    except (OSError, ValueError):
        data = {}
    if not isinstance(data, dict):
        data = {}
    out: dict[str, int | None] = {}
    for side in list(sides) + [k for k in data if k not in sides]:
        v = data.get(side)
        out[side] = v if isinstance(v, int) and not isinstance(v, bool) else None
    return out


def sha256_file(path: Path, limit: int = MAX_LOG_BYTES) -> str | None:
    """sha256 of a regular file of at most ``limit`` bytes; None for anything else."""
    try:
        return hashlib.sha256(read_regular(Path(path), limit)).hexdigest()
    except OSError:
        return None


__all__ = ["Chain", "Line", "LOG_NAME", "MAX_FILE_BYTES", "MAX_LOG_BYTES", "last_reports", "parting", "read_chain",
           "sha256_file"]
