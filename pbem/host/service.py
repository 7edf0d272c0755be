"""The mail host: configuration, the ingest pipeline, idempotency records,
the outgoing spool, deadlines and the serve loop.

A host is a directory holding ``pbem-host.toml``::

    pbem-host.toml     configuration (pbem host init)
    credentials.toml   IMAP/SMTP passwords, mode 0600 (or PBEM_IMAP_PASSWORD / PBEM_SMTP_PASSWORD)
    inbox/             incoming Maildir (the embedded default; fetchmail/getmail deliver here)
    outbox/            outgoing .eml files (the embedded default)
    games/             the games (any game dir can be registered with `pbem host add`)
    mail/processed/    Maildir of messages dealt with
    mail/quarantine/   Maildir of messages that could not be read or authenticated;
                       reasons.jsonl says why
    state/             journal/ (one record per message or job), spool/, games.json, lock
    host.log           what the host did, one line per action

Exactly once.  Every unit of work (an incoming message, a deadline default,
a reminder, a welcome) is a *job* with a key (the Message-ID for mail) and a
journal record, written with fsync before anything else happens:

    started   -> the job has a number and a timestamp (reused if it is redone)
    applying  -> authenticated orders, with the log head they go on
    done      -> the answers are in the spool; the message may leave the inbox

Orders are appended to the game's log in one atomic write.  If the process
dies between that write and ``done``, the next run sees ``applying`` with a
head that moved, re-runs the same orders on a scratch copy of the log cut at
the recorded head (same seed, same timestamp, so byte-identical events),
confirms the real log holds exactly those lines, and rebuilds the answers
from that result instead of applying anything twice.  Outgoing mail is
written to ``state/spool/building/JOB`` and renamed to ``state/spool/ready``
in one step; a delivery removes each file only after the transport took it.
The inbox message is filed away last.
"""
from __future__ import annotations

import contextlib
import fcntl
import hashlib
import json
import os
import re
import secrets as _secrets
import shutil
import signal
import tempfile
import threading
import tomllib
from dataclasses import dataclass, field
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Callable, Iterator, Literal

import msgspec

from pbem.host import mail as M
from pbem.core.schema import schema_error

CONFIG_NAME = "pbem-host.toml"
CREDENTIALS_NAME = "credentials.toml"
SECRETS_NAME = "player-secrets.json"
CHANGES_NAME = "player-changes.json"      # addresses changed and secrets replaced since the game began
DEADLINE_NAME = "deadline.json"
REFEREE = "referee"


class HostError(Exception):
    """A host problem with a message meant for the user (no traceback)."""


class SimulatedCrash(BaseException):
    """Raised by tests at a checkpoint to stand for the process dying there."""


def checkpoint(name: str) -> None:
    """A named point in the pipeline; tests replace this to crash the host there."""


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


def parse_duration(text: str | None) -> timedelta | None:
    """'72h', '2d', '1d12h', '90m', '30s'; '', 'off', 'none' or '0' = no time limit."""
    t = (text or "").strip().lower()
    if t in ("", "off", "none", "0"):
        return None
    if not re.fullmatch(r"(\s*\d+\s*[dhms])+\s*", t):
        raise HostError(f"{text!r} is not a duration; write e.g. 72h, 2d, 1d12h or 90m")
    unit = {"d": "days", "h": "hours", "m": "minutes", "s": "seconds"}
    total = timedelta()
    for n, u in _DUR.findall(t):
        total += timedelta(**{unit[u]: int(n)})
    return total


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


# --- configuration -----------------------------------------------------------

@dataclass
class Config:
    root: Path
    address: str
    name: str = "pbem"
    referee: str = ""
    games_dir: Path = Path("games")
    max_bytes: int = 1_000_000
    map_png: bool = True
    map_svg: bool = True
    auth: str = "token-or-signature"
    incoming: dict = field(default_factory=dict)
    outgoing: dict = field(default_factory=dict)
    period: timedelta | None = None
    reminder: timedelta | None = None
    interval: int = 60

    @property
    def domain(self) -> str:
        return self.address.rsplit("@", 1)[-1] or "localhost"


def _toml_str(s: str) -> str:
    return json.dumps(str(s))            # a JSON string is a valid TOML basic string


def config_text(address: str, name: str, referee: str, games: str, incoming: dict, outgoing: dict,
                period: str, reminder: str, maps: bool = True) -> str:
    """The text of a new pbem-host.toml, with every setting explained."""
    def table(d: dict, commented: dict) -> str:
        out = []
        for k, v in d.items():
            out.append(f"{k} = {_toml_str(v) if isinstance(v, str) else json.dumps(v)}")
        for k, v in commented.items():
            if k not in d:
                out.append(f"# {k} = {_toml_str(v) if isinstance(v, str) else json.dumps(v)}")
        return "\n".join(out)

    inc_more = {"kind": "imap", "server": "imap.example.org", "port": 993, "security": "tls",
                "user": address, "folder": "INBOX", "processed_folder": "pbem-processed",
                "quarantine_folder": "pbem-quarantine"}
    out_more = {"kind": "smtp", "server": "smtp.example.org", "port": 587, "security": "starttls",
                "user": address}
    return f"""# pbem host configuration (written by `pbem host init`; edit freely).
# Passwords never go here: see credentials.toml (mode 0600) or the
# environment variables PBEM_IMAP_PASSWORD and PBEM_SMTP_PASSWORD.

address = {_toml_str(address)}        # players mail their orders here; every answer comes from here
name = {_toml_str(name)}              # display name on outgoing mail
referee = {_toml_str(referee)}        # gets the referee copy of every report ("" = nobody)
games = {_toml_str(games)}            # where new games live (relative to this file)
max_message_bytes = 1000000           # larger messages are refused unread
map_png = {json.dumps(maps)}                        # attach the map as PNG (most mail programs show it)
map_svg = {json.dumps(maps)}                        # attach the map as SVG too (sharp at any size)
auth = "token-or-signature"           # or "signature": refuse plain Token: lines

[incoming]                            # where orders arrive: a Maildir (default) or IMAP
{table(incoming, inc_more)}

[outgoing]                            # how answers leave: an outbox folder of .eml files (default) or SMTP
{table(outgoing, out_more)}
# security: "starttls" (port 587), "tls" (port 465) or "none" (loopback test servers only)

[deadlines]
period = {_toml_str(period)}          # time for each decision the game waits for ("off" = none)
reminder = {_toml_str(reminder)}      # the late side is reminded this long before the deadline

[serve]
interval = 60                         # seconds between two looks at the inbox
"""


def load_config(root: Path) -> Config:
    root = Path(root).resolve()
    path = root / CONFIG_NAME
    try:
        data = tomllib.loads(path.read_text())
    except FileNotFoundError:
        raise HostError(f"{path} not found: create a host with `pbem host init {root}`") from None
    except (OSError, UnicodeError) as e:
        raise HostError(f"cannot read {path}: {e}") from None
    except tomllib.TOMLDecodeError as e:
        raise HostError(f"{path}: {e}") from None
    return _config(data, root, path)


class _Incoming(msgspec.Struct, forbid_unknown_fields=True):
    kind: Literal["maildir", "imap"] = "maildir"
    maildir: str = "inbox"
    server: str = ""
    port: int = 993
    security: Literal["tls", "starttls", "none"] = "tls"
    user: str = ""
    folder: str = "INBOX"
    processed_folder: str = "pbem-processed"
    quarantine_folder: str = "pbem-quarantine"
    timeout: float = 60


class _Outgoing(msgspec.Struct, forbid_unknown_fields=True):
    kind: Literal["outbox", "smtp"] = "outbox"
    outbox: str = "outbox"
    server: str = ""
    port: int = 587
    security: Literal["tls", "starttls", "none"] = "starttls"
    user: str = ""
    timeout: float = 60


class _Deadlines(msgspec.Struct, forbid_unknown_fields=True):
    period: str = ""
    reminder: str = ""


class _Serve(msgspec.Struct, forbid_unknown_fields=True):
    interval: int = 60


class _HostFile(msgspec.Struct, forbid_unknown_fields=True):
    """The schema of pbem-host.toml: every key and every accepted value.  An
    unknown key or value is refused, never guessed: a typo in `security`
    must not send a password in clear."""
    address: str
    name: str = "pbem"
    referee: str | None = None
    games: str = "games"
    max_message_bytes: int = 1_000_000
    map_png: bool = True
    map_svg: bool = True
    auth: Literal["token-or-signature", "signature"] = "token-or-signature"
    incoming: _Incoming = msgspec.field(default_factory=_Incoming)
    outgoing: _Outgoing = msgspec.field(default_factory=_Outgoing)
    deadlines: _Deadlines = msgspec.field(default_factory=_Deadlines)
    serve: _Serve = msgspec.field(default_factory=_Serve)


def _config(data: dict, root: Path, path: Path) -> Config:
    try:
        f = msgspec.convert(data, _HostFile)
    except msgspec.ValidationError as e:
        raise HostError(f"{path}: {schema_error(e, _HostFile)}") from None
    address = f.address.strip()
    if "@" not in address:
        raise HostError(f"{path}: address {address!r} is not an e-mail address")
    cfg = Config(
        root=root, address=address.lower(), name=f.name,
        referee=(address if f.referee is None else f.referee).strip().lower(),
        games_dir=(root / f.games).resolve(), max_bytes=f.max_message_bytes, map_png=f.map_png,
        map_svg=f.map_svg, auth=f.auth, incoming=msgspec.structs.asdict(f.incoming),
        outgoing=msgspec.structs.asdict(f.outgoing), interval=f.serve.interval,
    )
    try:
        cfg.period = parse_duration(f.deadlines.period)
        cfg.reminder = parse_duration(f.deadlines.reminder)
    except HostError as e:
        raise HostError(f"{path} [deadlines]: {e}") from None
    for section in ("incoming", "outgoing"):
        d = getattr(cfg, section)
        if d["kind"] in ("imap", "smtp") and not d["server"]:
            raise HostError(f"{path} [{section}]: kind = {d['kind']!r} needs a server")
        if d["kind"] in ("imap", "smtp") and d["security"] == "none" and d["server"] not in M.LOOPBACK:
            raise HostError(f"{path} [{section}]: security = \"none\" would send the password to {d['server']} "
                            "unencrypted; it is for loopback test servers only")
    return cfg


def init_host(root: Path, address: str, name: str = "pbem", referee: str | None = None, games: str = "games",
              incoming: dict | None = None, outgoing: dict | None = None, period: str = "72h",
              reminder: str = "24h", passwords: dict[str, str] | None = None, maps: bool = True) -> Config:
    root = Path(root)
    if (root / CONFIG_NAME).exists():
        raise HostError(f"{root / CONFIG_NAME} already exists; edit it instead")
    if "@" not in address:
        raise HostError(f"--address {address!r} is not an e-mail address")
    parse_duration(period)
    parse_duration(reminder)
    incoming = incoming or {"kind": "maildir", "maildir": "inbox"}
    outgoing = outgoing or {"kind": "outbox", "outbox": "outbox"}
    text = config_text(address, name, address if referee is None else referee, games, incoming, outgoing,
                       period, reminder, maps)
    _config(tomllib.loads(text), root.resolve(), root / CONFIG_NAME)      # refuse before writing anything
    root.mkdir(parents=True, exist_ok=True)
    os.chmod(root, 0o700)                      # the host's folder holds the players' secrets
    M.write_atomic(root / CONFIG_NAME, text.encode())
    if passwords:
        lines = ["# pbem host credentials: keep this file mode 0600.\n"]
        for section, pw in passwords.items():
            lines.append(f"[{section}]\npassword = {_toml_str(pw)}\n")
        M.write_atomic(root / CREDENTIALS_NAME, "\n".join(lines).encode(), mode=0o600)
        os.chmod(root / CREDENTIALS_NAME, 0o600)
    cfg = load_config(root)
    Host(cfg).prepare()
    return cfg


def password(cfg: Config, section: str) -> str | None:
    """A server password: the environment first, else credentials.toml
    (refused when others may read it)."""
    env = os.environ.get(f"PBEM_{section.upper()}_PASSWORD")
    if env:
        return env
    path = cfg.root / CREDENTIALS_NAME
    try:
        st = path.stat()
    except FileNotFoundError:
        return None
    if st.st_mode & 0o077:
        raise HostError(f"{path} can be read by others (mode {st.st_mode & 0o777:o}); run: chmod 600 {path}")
    try:
        data = tomllib.loads(path.read_text())
    except (OSError, tomllib.TOMLDecodeError) as e:
        raise HostError(f"cannot read {path}: {e}") from None
    pw = (data.get(section) or {}).get("password")
    return None if pw in (None, "") else str(pw)


def find_host(start: Path | None = None) -> Path | None:
    """The host directory: $PBEM_HOST, else the nearest folder above ``start``
    (default: the current one) holding pbem-host.toml."""
    env = os.environ.get("PBEM_HOST")
    if env:
        p = Path(env)
        if p.name == CONFIG_NAME:
            p = p.parent
        if not (p / CONFIG_NAME).is_file():
            raise HostError(f"PBEM_HOST={env}: no {CONFIG_NAME} there")
        return p.resolve()
    here = Path(start or Path.cwd()).resolve()
    for d in [here, *here.parents]:
        if (d / CONFIG_NAME).is_file():
            return d
    return None


# --- results ---------------------------------------------------------------

@dataclass
class Outcome:
    """What happened to one message (for the log and the command line)."""
    name: str
    status: str                  # accepted | partial | refused | duplicate | ignored | quarantined | error
    filed: str = "processed"     # processed | quarantine | left (still in the inbox)
    game: str = ""
    side: str = ""
    detail: str = ""

    def line(self) -> str:
        who = f" {self.game}/{self.side}" if self.game and self.side else (f" {self.game}" if self.game else "")
        det = f": {self.detail}" if self.detail else ""
        return f"{self.name}: {self.status}{who}{det}"


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


# --- the host ----------------------------------------------------------------

class Host:
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
        """One host process at a time works on the inbox, the games and the spool."""
        if self._locked:
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

    @property
    def _registry_path(self) -> Path:
        return self.state_dir / "games.json"

    def games(self) -> dict[str, Path]:
        """Hosted games by id: the registry plus every game under the games folder."""
        from pbem.engine import Game
        found: dict[str, Path] = {}
        try:
            reg = json.loads(self._registry_path.read_text())
        except (OSError, ValueError):
            reg = {}
        for gid, p in reg.items():
            if (Path(p) / "log.jsonl").is_file():
                found[gid] = Path(p)
        if self.cfg.games_dir.is_dir():
            for d in sorted(self.cfg.games_dir.iterdir()):
                if (d / "log.jsonl").is_file() and d.resolve() not in {x.resolve() for x in found.values()}:
                    try:
                        found.setdefault(Game(d).game_id, d)
                    except Exception:          # noqa: BLE001 - a broken game is skipped, not fatal
                        continue
        return found

    def register(self, game) -> None:
        games = self.games()
        other = games.get(game.game_id)
        if other is not None and other.resolve() != game.dir.resolve():
            raise HostError(f"a game with id {game.game_id!r} is already hosted at {other}; choose another --id")
        try:
            reg = json.loads(self._registry_path.read_text())
        except (OSError, ValueError):
            reg = {}
        reg[game.game_id] = str(game.dir.resolve())
        M.write_atomic(self._registry_path, json.dumps(reg, indent=1, sort_keys=True).encode(), 0o600)

    def game(self, gid: str):
        from pbem.engine import Game
        p = self.games().get(gid)
        return None if p is None else Game(p)

    # --- player secrets (never in the log) -------------------------------------

    @staticmethod
    def secrets_of(game) -> dict[str, str]:
        path = game.dir / SECRETS_NAME
        try:
            st = path.stat()
        except FileNotFoundError:
            return {}
        if st.st_mode & 0o077:
            raise HostError(f"{path} can be read by others (mode {st.st_mode & 0o777:o}); run: chmod 600 {path}")
        try:
            return dict(json.loads(path.read_text()))
        except (OSError, ValueError) as e:
            raise HostError(f"cannot read {path}: {e}") from None

    def ensure_secrets(self, game) -> dict[str, str]:
        sec = self.secrets_of(game)
        changed = False
        for side in game.scenario.side_ids():
            if side not in sec:
                sec[side] = _secrets.token_hex(16)
                changed = True
        if changed:
            self._save_secrets(game, sec)
        return sec

    @staticmethod
    def _save_secrets(game, sec: dict[str, str]) -> None:
        M.write_atomic(game.dir / SECRETS_NAME, json.dumps(sec, indent=1).encode(), mode=0o600)
        os.chmod(game.dir / SECRETS_NAME, 0o600)

    # --- player changes: a side's new address, replaced secrets ------------------------
    #
    # The log's GameCreated keeps the addresses the game began with; the host
    # keeps later ones in player-changes.json (mode 0600), with a record of
    # every replaced secret (its sha256 only, never the secret) and every
    # address that no longer plays a side, so mail carrying either is refused
    # with a clear reason.

    @staticmethod
    def _changes(game) -> dict:
        path = game.dir / CHANGES_NAME
        try:
            data = json.loads(path.read_text())
        except FileNotFoundError:
            return {}
        except (OSError, ValueError) as e:
            raise HostError(f"cannot read {path}: {e}") from None
        return data if isinstance(data, dict) else {}

    def _retired(self, game, side: str | None = None) -> list[dict]:
        """The replacements of ``side`` (every side if None), oldest first."""
        return [r for r in self._changes(game).get("retired", []) if side is None or r.get("side") == side]

    def _known_sender(self, address: str) -> bool:
        """Does ``address`` play (or did it play) a side of a game on this host?"""
        from pbem.engine import Game
        for path in self.games().values():
            try:
                game = Game(path)
                if address in self._players(game).values() or \
                        any(r.get("address") == address for r in self._retired(game)):
                    return True
            except Exception:                  # noqa: BLE001 - a broken game knows nobody
                continue
        return False

    def _plays(self, game, address: str) -> bool:
        return address in self._players(game).values() or self._retired_address(game, address) is not None

    def _retired_address(self, game, address: str, side: str | None = None) -> dict | None:
        """The latest record of ``address`` leaving ``side`` (any side if None)
        while it plays that side no longer."""
        players = self._players(game)
        for r in reversed(self._retired(game, side)):
            if r.get("address") == address and players.get(r["side"]) != address:
                return r
        return None

    def rotate_secret(self, game, side: str, email: str | None = None) -> dict:
        """`pbem host rotate-secret`: give ``side`` a new secret (and, with
        ``email``, a new player address), mail it to the side's player only,
        tell a replaced address that it no longer plays the side and the
        referee that the secret changed.  From then on the old secret and the
        old address are refused.  The secret goes into player-secrets.json
        (mode 0600) and the player's mail, nowhere else."""
        from email.utils import parseaddr
        with self.locked():
            gid = game.game_id
            hosted = self.games().get(gid)
            if hosted is None or hosted.resolve() != game.dir.resolve():
                raise HostError(f"game {gid} ({game.dir}) is not hosted by {self.cfg.root}; "
                                "host it first with `pbem host add`")
            sc = game.scenario
            side = side.strip()
            if side not in sc.side_ids():
                raise HostError(f"game {gid} has no side {side!r}; its sides are {', '.join(sc.side_ids())}")
            old_addr = self._players(game).get(side, "")
            new_addr = old_addr
            if email is not None:
                new_addr = parseaddr(email.strip())[1].strip().lower()
                if "@" not in new_addr or any(c.isspace() for c in new_addr) or new_addr.startswith("@") \
                        or new_addr.endswith("@"):
                    raise HostError(f"--email {email!r} is not an e-mail address")
                if new_addr == self.cfg.address:
                    raise HostError(f"--email {new_addr} is the host's own address; give the player's address")
            if not new_addr:
                raise HostError(f"side {side} of game {gid} has no player address to mail the new secret to; "
                                "give one with --email ADDRESS")
            sec = self.secrets_of(game)                      # refuses a file others can read
            old_secret = sec.get(side, "")
            moved = new_addr != old_addr
            new_secret = _secrets.token_hex(16)
            now = iso(self.now())
            key = job_key("rotate", gid, side, now, _secrets.token_hex(4))
            rec = self._start(key, kind="rotate", game=gid, side=side)

            # the mails first: if one cannot be made, nothing has changed yet
            st = game.state()
            entries = game.entries()
            head = entries[-1].hash
            name = sc.side_name(side)
            ctx = self._context(game, side, st, head)
            text, atts = self._report(game, side, st, entries, head)
            body = self._tpl("secret", report=text, secret=new_secret, new_player=moved and bool(old_addr),
                             first_address=not old_addr, address=new_addr, **ctx)
            answers = [Answer(new_addr, side, "secret", f"[pbem {gid}] your new secret: you play {name} "
                              f"in {sc.title}", body, atts, head=head, seq=st.seq,
                              references=self._refs(game, side), slug=f"{side}-secret")]
            if moved and old_addr:
                note = (f"The host of game {gid} has given {name} (side \"{side}\") to another player, "
                        f"so {old_addr} no longer plays it. Mail from this address for that side is refused "
                        "from now on, and so is the side's old secret. Write to the host if this is a mistake.")
                answers.append(Answer(old_addr, side, "notice", f"[pbem {gid}] you no longer play {name}",
                                      self._tpl("notice", note=note, **ctx), references=self._refs(game, side),
                                      slug=f"{side}-replaced"))
            if self.cfg.referee:
                who = ""
                if moved:
                    who = f"; the side is now played from {new_addr}" + (f" instead of {old_addr}" if old_addr else "")
                note = (f"The host replaced the secret of {name} ({side}) on {now}{who}. The new secret went "
                        "to the side's player only; the old one is refused from now on.")
                answers.append(Answer(self.cfg.referee, REFEREE, "notice", f"[pbem {gid}] referee: new secret "
                                      f"for {name}", self._tpl("notice", note=note,
                                                               **self._context(game, REFEREE, st, head)),
                                      slug=f"referee-{side}-secret"))

            # the new secret in force: from here on the old one is refused
            sec[side] = new_secret
            self._save_secrets(game, sec)
            changes = self._changes(game)
            if moved:
                changes.setdefault("addresses", {})[side] = new_addr
            changes.setdefault("retired", []).append({
                "side": side, "at": now,
                "secret_sha256": _digest(old_secret) if old_secret else "",
                "address": old_addr if moved else ""})
            M.write_atomic(game.dir / CHANGES_NAME, json.dumps(changes, indent=1, sort_keys=True).encode(),
                           mode=0o600)
            os.chmod(game.dir / CHANGES_NAME, 0o600)
            checkpoint("rotated")
            self.commit(rec["job"], answers, gid)
            self._mark_reported(game, answers[:1])
            self._done(key, rec, outcome="rotated", moved=moved)
            self.log(f"game {gid}: new secret for {side} mailed to {new_addr}"
                     + (f" (the side's new address; {old_addr} no longer plays it)" if moved and old_addr else
                        " (the side's new address)" if moved else ""))
            self.flush()
        return {"game": gid, "side": side, "to": new_addr, "old": old_addr if moved else "",
                "file": game.dir / SECRETS_NAME}

    # --- journal ---------------------------------------------------------------

    def _jpath(self, key: str) -> Path:
        return self.journal_dir / (hashlib.sha256(key.encode("utf-8", "replace")).hexdigest()[:40] + ".json")

    def journal_get(self, key: str) -> dict | None:
        try:
            return json.loads(self._jpath(key).read_text())
        except (OSError, ValueError):
            return None

    def journal_put(self, key: str, rec: dict) -> None:
        rec = dict(rec, key=key)
        if rec.get("status") == "applying":
            # a marker per game: while orders are half-way, tick() leaves the game alone
            (self.state_dir / "inflight").mkdir(exist_ok=True)
            M.write_atomic(self._inflight(rec), rec["job"].encode(), 0o600)
        M.write_atomic(self._jpath(key), json.dumps(rec, sort_keys=True).encode(), 0o600)
        if rec.get("status") == "done" and rec.get("game"):
            with contextlib.suppress(OSError):
                self._inflight(rec).unlink()

    def _inflight(self, rec: dict) -> Path:
        return self.state_dir / "inflight" / f"{rec['game']}.{rec['job']}"

    def busy(self, gid: str) -> bool:
        d = self.state_dir / "inflight"
        return d.is_dir() and any(d.glob(f"{gid}.*"))

    def _start(self, key: str, **extra) -> dict:
        """A new job: its number (for ordering the spool) and its time, recorded first."""
        counter = self.state_dir / "counter"
        try:
            n = int(counter.read_text().strip() or 0) + 1
        except (OSError, ValueError):
            n = 1
        M.write_atomic(counter, f"{n}\n".encode(), 0o600)
        rec = {"status": "started", "job": f"{n:06d}-{hashlib.sha256(key.encode()).hexdigest()[:8]}",
               "at": iso(self.now()), **extra}
        self.journal_put(key, rec)
        return rec

    def _done(self, key: str, rec: dict, **result) -> dict:
        rec = dict(rec, status="done", **result)
        rec.pop("text", None)                    # the orders live in the game log (or were refused)
        self.journal_put(key, rec)
        return rec

    # --- the spool ----------------------------------------------------------------

    def _msgid(self, job: str, n: int) -> str:
        return f"pbem.{job}.{n}@{self.cfg.domain}"

    def commit(self, job: str, answers: list[Answer], game_id: str = "") -> bool:
        """Write a job's mails to the spool in one step; False if they already are."""
        final = self.spool_ready / job
        if final.exists():
            return False
        building = self.spool_building / job
        if building.exists():
            shutil.rmtree(building)
        building.mkdir(parents=True)
        for n, a in enumerate(answers):
            headers = {"X-pbem-Kind": a.kind, "X-pbem-Side": a.viewer}
            if game_id:
                headers["X-pbem-Game"] = game_id
            if a.head:
                headers["X-pbem-Head"] = a.head
                headers["X-pbem-Seq"] = str(a.seq)
            if a.outcome:
                headers["X-pbem-Outcome"] = a.outcome
            refs = list(a.references)
            msg = M.build(self.cfg.address, a.to, a.subject, a.body, message_id=a.message_id or self._msgid(job, n),
                          attachments=a.attachments, in_reply_to=a.in_reply_to, references=refs,
                          headers=headers, auto="auto-replied" if a.in_reply_to and a.kind == "answer" else "auto-generated",
                          sender_name=self.cfg.name)
            slug = re.sub(r"[^A-Za-z0-9_-]+", "-", a.slug or f"{a.viewer}-{a.kind}")
            M.write_atomic(building / f"{n:02d}-{slug}.eml", bytes(msg), 0o600)
        checkpoint("spool-written")
        os.rename(building, final)
        M._fsync_dir(final.parent)
        return True

    def _transport(self):
        out = self.cfg.outgoing
        if out.get("kind", "outbox") == "smtp":
            return M.SmtpSender(str(out["server"]), int(out.get("port", 587)), str(out.get("user", "")),
                                password(self.cfg, "smtp"), str(out.get("security", "starttls")),
                                envelope_from=self.cfg.address, timeout=float(out.get("timeout", 60)))
        return M.Outbox(self.outbox_path)

    def pending(self) -> int:
        return sum(1 for d in self.spool_ready.iterdir() for _ in d.glob("*.eml")) if self.spool_ready.is_dir() else 0

    def flush(self) -> int:
        """Deliver the spool, oldest job first; what cannot go now stays for the next try."""
        jobs = sorted(d for d in self.spool_ready.iterdir() if d.is_dir()) if self.spool_ready.is_dir() else []
        if not any(any(d.glob("*.eml")) for d in jobs):
            for d in jobs:
                with contextlib.suppress(OSError):
                    d.rmdir()
            return 0
        sent = 0
        try:
            with self._transport() as t:
                for d in jobs:
                    for f in sorted(d.glob("*.eml")):
                        try:
                            where = t.send(f"{d.name}-{f.stem}", f.read_bytes())
                        except M.Undeliverable as e:
                            self.spool_failed.mkdir(parents=True, exist_ok=True)
                            os.replace(f, self.spool_failed / f"{d.name}-{f.name}")
                            self.log(f"mail {d.name}/{f.name} cannot be delivered, set aside in "
                                     f"{self.spool_failed}: {e}")
                            continue
                        checkpoint("sent")
                        f.unlink()
                        sent += 1
                        self.log(f"sent {d.name}/{f.name} to {where}")
                    with contextlib.suppress(OSError):
                        d.rmdir()
        except M.MailError as e:
            self.log(f"delivery failed, {self.pending()} mail(s) wait in the spool: {e}")
        return sent

    # --- rendering --------------------------------------------------------------

    def _report(self, game, viewer: str, st, entries, head: str) -> tuple[str, list]:
        from pbem.report import render
        since = game.last_report(viewer)
        text = render.report_text(game, viewer, st, entries, since, head)
        atts = []
        if not (self.cfg.map_png or self.cfg.map_svg):
            return text, atts                    # no map wanted: not even drawn
        svg = render.report_svg(game, viewer, st, entries, since, head)
        name = f"{game.game_id}-seq{st.seq}-{viewer}"
        if self.cfg.map_png:
            png = M.svg_to_png(svg)
            if png:
                atts.append(M.Attachment(png, "image", "png", name + ".png"))
        if self.cfg.map_svg:
            atts.append(M.Attachment(svg.encode("utf-8"), "image", "svg+xml", name + ".svg"))
        return text, atts

    def _tpl(self, name: str, **ctx) -> str:
        from pbem.report import render
        return render.env().get_template(f"mail/{name}.txt.j2").render(**ctx)

    def _context(self, game, viewer: str, st, head: str) -> dict:
        sc = game.scenario
        return {"game_id": game.game_id, "title": sc.title, "side": viewer,
                "side_name": sc.side_name(viewer) if viewer != REFEREE else "Referee",
                "host": self.cfg.address, "head": head, "seq": st.seq, "turn": st.turn,
                "period": fmt_duration(self._period(game)), "has_period": self._period(game) is not None,
                "reminder": fmt_duration(self.cfg.reminder), "defaults": _defaults_text(game),
                "auth": self.cfg.auth, "sides": [(s.id, s.name) for s in sc.sides]}

    def _refs(self, game, side: str) -> list[str]:
        """Every mail to a side threads under its welcome message."""
        return [f"<pbem.{game.game_id}.welcome.{side}@{self.cfg.domain}>"]

    def _players(self, game) -> dict[str, str]:
        """Each side's player address: the one the game began with, or the
        one `pbem host rotate-secret --email` registered since."""
        from email.utils import parseaddr
        out = {}
        given = dict(game.created.players)
        given.update(self._changes(game).get("addresses", {}) or {})
        for side, addr in given.items():
            a = parseaddr(addr or "")[1].lower()
            if M.safe_address(a):                  # an address with a line break or a space gets no mail
                out[side] = a
        return out

    def _state_mails(self, game, headline: dict[str, str], skip: set[str] = frozenset(), kind: str = "report",
                     referee_note: str = "") -> list[Answer]:
        """Each side (and the referee) its own report of the new state."""
        st = game.state()
        entries = game.entries()
        head = entries[-1].hash
        out = []
        sc = game.scenario
        for side, addr in self._players(game).items():
            if side in skip:
                continue
            text, atts = self._report(game, side, st, entries, head)
            body = self._tpl("report", report=text, note=headline.get(side, headline.get("*", "")),
                             **self._context(game, side, st, head))
            subj = f"[pbem {game.game_id}] {sc.side_name(side)}: " + _when(game, st)
            out.append(Answer(addr, side, kind, subj, body, atts, references=self._refs(game, side), head=head,
                              seq=st.seq, slug=f"{side}-{kind}", in_reply_to=""))
        if self.cfg.referee:
            text, atts = self._report(game, REFEREE, st, entries, head)
            body = self._tpl("report", report=text, note=referee_note or headline.get("*", ""),
                             **self._context(game, REFEREE, st, head))
            out.append(Answer(self.cfg.referee, REFEREE, "referee", f"[pbem {game.game_id}] referee: " + _when(game, st),
                              body, atts, head=head, seq=st.seq, slug=f"referee-{kind}"))
        return out

    def _mark_reported(self, game, answers: list[Answer]) -> None:
        seq = game.head()[0]
        for a in answers:
            if a.head:
                game.mark_reported(a.viewer, seq)

    # --- inbox ------------------------------------------------------------------

    def poll(self) -> list[Outcome]:
        """Deal with every message waiting in the inbox, then deadlines, then deliver."""
        outcomes: list[Outcome] = []
        with self.locked():
            kind = self.cfg.incoming.get("kind", "maildir")
            if kind == "imap":
                outcomes += self._poll_imap()
            else:
                box = M.Maildir(self.inbox_path)
                for path in box.messages():
                    try:
                        raw = path.read_bytes()
                    except FileNotFoundError:
                        continue
                    oc = self.ingest(raw, path.name)
                    if oc.filed != "left":
                        try:
                            self._file(path, oc)
                        except OSError as e:           # done in the journal: the next poll files it again
                            self.log(f"{path.name}: could not be filed into {oc.filed} ({e.strerror}); "
                                     "it stays in the inbox")
                        checkpoint("filed")
                    outcomes.append(oc)
            self.tick()
            self.flush()
        return outcomes

    def _poll_imap(self) -> list[Outcome]:
        inc = self.cfg.incoming
        box = M.ImapInbox(str(inc["server"]), int(inc.get("port", 993)), str(inc.get("user", "")),
                          password(self.cfg, "imap"), str(inc.get("folder", "INBOX")),
                          str(inc.get("security", "tls")), str(inc.get("processed_folder", "pbem-processed")),
                          str(inc.get("quarantine_folder", "pbem-quarantine")), float(inc.get("timeout", 60)))
        outcomes = []
        try:
            with box:
                for uid, raw in box.messages():
                    name = f"imap-{uid}"
                    oc = self.ingest(raw, name)
                    if oc.filed != "left":
                        if oc.filed == "quarantine":
                            self._quarantine_copy(raw, name, oc)
                        box.file_into(uid, oc.filed)
                        checkpoint("filed")
                    outcomes.append(oc)
        except M.MailError as e:
            self.log(f"inbox: {e}")
        return outcomes

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
                oc = self.ingest(raw, Path(p).name, retry=True)
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

    def ingest(self, raw: bytes, name: str, retry: bool = False) -> Outcome:
        """One message, start to answer; never raises (but a SimulatedCrash).
        With ``retry`` a message quarantined before is looked at afresh (it
        changed nothing then); `pbem mail ingest` retries.

        When the host itself fails (a full or read-only disk, any OSError) the
        message stays in the inbox and is tried again on the next poll: it is
        not the message's fault.  Any other failure is the message's: before its
        orders were taken it goes to quarantine with the reason; after, it is
        retried MAX_ATTEMPTS times and then set aside, so one poisoned message
        can never stop the host, its deadlines or its other games."""
        try:
            oc = self._ingest(raw, name, retry)
        except OSError as e:
            oc = Outcome(name, "error", "left", detail=f"the host could not write ({e.strerror or e}); the message "
                         "stays in the inbox and is tried again on the next poll")
        except Exception as e:                     # noqa: BLE001 - one bad message must not stop the host
            oc = self._failed(raw, name, e)
        self.log(oc.line())
        return oc

    MAX_ATTEMPTS = 3

    def _failed(self, raw: bytes, name: str, e: Exception) -> Outcome:
        why = f"internal error ({type(e).__name__}: {e})"
        try:
            inc = M.parse(raw, self.cfg.max_bytes)
            rec = self.journal_get(inc.key) or {}
            if rec.get("status") != "applying":
                return Outcome(name, "error", "quarantine", detail=why)
            rec = dict(rec, attempts=int(rec.get("attempts", 0)) + 1)
            gid, side = rec.get("game", ""), rec.get("side", "")
            if rec["attempts"] < self.MAX_ATTEMPTS:
                self.journal_put(inc.key, rec)
                return Outcome(name, "error", "left", gid, side, f"{why} after the orders were taken; left in the "
                               f"inbox to finish on the next poll (attempt {rec['attempts']} of {self.MAX_ATTEMPTS})")
            # give up on this message: what the log holds stays; the next tick mails every side its report
            self._done(inc.key, rec, outcome="error", filed="quarantine", reason=why)
            return Outcome(name, "error", "quarantine", gid, side, f"{why} after the orders were taken, "
                           f"{self.MAX_ATTEMPTS} times; set aside (what was applied stays applied)")
        except OSError as e2:
            return Outcome(name, "error", "left", detail=f"{why}; the host could not record it either "
                           f"({e2.strerror or e2}); tried again on the next poll")

    def _ingest(self, raw: bytes, name: str, retry: bool = False) -> Outcome:
        inc = M.parse(raw, self.cfg.max_bytes)
        key = inc.key
        rec = self.journal_get(key)
        if retry and rec and rec.get("status") == "done" and rec.get("filed") == "quarantine" \
                and rec.get("digest") == inc.digest:
            old = self._jpath(key)
            os.replace(old, old.with_name(f"{old.stem}.{rec['job']}.retried"))   # kept, no longer in force
            rec = None
        if rec and rec.get("status") == "done":
            if rec.get("digest") == inc.digest:
                return Outcome(name, "duplicate", rec.get("filed", "processed"), rec.get("game", ""), rec.get("side", ""),
                               f"Message-ID {inc.message_id or '(none)'} was already dealt with ({rec.get('outcome', '')}); "
                               "not applied again")
            key = f"{key}#{inc.digest[:16]}"
            rec = self.journal_get(key)
            if rec and rec.get("status") == "done":
                return Outcome(name, "duplicate", rec.get("filed", "quarantine"), detail="already refused once")
            rec = rec or self._start(key, digest=inc.digest)
            return self._refuse(name, inc, key, rec,
                                f"this message reuses the Message-ID <{inc.message_id}> of an earlier message with "
                                "different content; a message is applied once, and a copied one is refused",
                                quarantine=True)
        if rec and rec.get("status") == "applying":
            return self._finish_orders(name, inc, key, rec)
        rec = rec or self._start(key, digest=inc.digest)
        checkpoint("started")
        if inc.own or (inc.sender and inc.sender == self.cfg.address):
            self._done(key, rec, outcome="ignored", filed="processed")
            return Outcome(name, "ignored", "processed", detail="pbem's own mail; nothing to do")
        if inc.automatic:
            self._done(key, rec, outcome="ignored", filed="quarantine")
            return Outcome(name, "quarantined", "quarantine", detail=f"{inc.automatic}; not answered")
        if not inc.sender:
            self._done(key, rec, outcome="quarantined", filed="quarantine")
            return Outcome(name, "quarantined", "quarantine", detail="no From address: nobody to answer")
        if inc.problem:
            return self._refuse(name, inc, key, rec, f"the host could not read your message: {inc.problem}.",
                                quarantine=True)
        # which game, which side, and is it really them?
        gid = inc.game
        if inc.fields.get("game") and inc.subject_game and inc.fields["game"] != inc.subject_game:
            return self._refuse(name, inc, key, rec, f"the subject names game {inc.subject_game} but the Game: line "
                                f"names {inc.fields['game']}; say which one", quarantine=True)
        if not gid:
            return self._refuse(name, inc, key, rec, "the message does not say which game it is for: put "
                                "[pbem GAME-ID] in the subject (replying to a pbem mail keeps it) or a line "
                                "'Game: GAME-ID' in the body", quarantine=True)
        game = self.game(gid)
        if game is None or not self._plays(game, inc.sender):
            # the same words whether the game exists or not: an answer never tells which ids exist
            return self._refuse(name, inc, key, rec, f"{inc.sender} plays no game {gid!r} on this host; check the "
                                "game id in your welcome mail", quarantine=True, game_id=gid if game else "")
        players = self._players(game)
        side = inc.fields.get("side", "").lower()
        if not side:
            mine = [s for s, a in players.items() if a == inc.sender]
            if len(mine) == 1:
                side = mine[0]
            elif len(mine) > 1:
                return self._refuse(name, inc, key, rec, f"you play {' and '.join(mine)} in game {gid}: add a "
                                    "line 'Side: SIDE' to say which side these orders are for",
                                    quarantine=True, game_id=gid)
        if not side:
            gone = self._retired_address(game, inc.sender)
            if gone:
                return self._refuse(name, inc, key, rec, _no_longer(game, inc.sender, gone), quarantine=True,
                                    game_id=gid)
        if side not in game.scenario.side_ids():
            what = f"side {side!r} is not a side of game {gid}" if side else \
                f"this address is not registered for any side of game {gid}"
            return self._refuse(name, inc, key, rec, f"{what}; nothing was applied", quarantine=True, game_id=gid)
        problem = self._authenticate(game, side, inc)
        if problem:
            return self._refuse(name, inc, key, rec, problem, quarantine=True, game_id=gid, side=side)
        # authenticated: record what will be applied, on which head, before touching the log
        seq, head = game.head()
        rec = dict(rec, status="applying", kind="orders", game=gid, side=side, seq_before=seq, head_before=head,
                   text=inc.orders, expect=inc.fields.get("head", "").lower(), by="")
        self.journal_put(key, rec)
        checkpoint("journaled")
        return self._finish_orders(name, inc, key, rec)

    def _authenticate(self, game, side: str, inc: M.Incoming) -> str:
        """'' when the message is from ``side``'s player; else why it is not."""
        players = self._players(game)
        registered = players.get(side, "")
        if not registered:
            return f"side {side} of game {game.game_id} has no player address registered; nothing was applied"
        if inc.sender != registered:
            gone = self._retired_address(game, inc.sender, side)
            if gone:
                return _no_longer(game, inc.sender, gone)
            return (f"this message comes from {inc.sender}, which is not the address registered for "
                    f"{game.scenario.side_name(side)} in game {game.game_id}; nothing was applied")
        secret = self.secrets_of(game).get(side)
        if not secret:
            return f"the host holds no secret for {side} in game {game.game_id}; ask the host to run `pbem host add`"
        sig, tok, head = inc.fields.get("signature", ""), inc.fields.get("token", ""), inc.fields.get("head", "")
        if sig:
            if not head:
                return "a signed message needs its 'Head:' line (the signature covers it); nothing was applied"
            want = M.signature(secret, game.game_id, side, head, inc.orders)
            if not _same(sig.lower(), want):
                replaced = self._retired(game, side)
                also = (f" (the host replaced {game.scenario.side_name(side)}'s secret on {replaced[-1]['at']}: "
                        "if you signed with the old one, sign again with the new one the host mailed you)"
                        if replaced else "")
                return ("the Signature: line does not match these orders: they were changed after signing, or "
                        f"signed for another game, side or head, or with another secret{also}; nothing was applied")
            return ""
        if self.cfg.auth == "signature":
            return ("this host accepts signed orders only: sign them with `pbem orders sign` and send its "
                    "output; nothing was applied")
        if tok:
            if not _same(tok.lower(), secret.lower()):
                d = _digest(tok)
                old = next((r for r in reversed(self._retired(game, side))
                            if r.get("secret_sha256") and _same(r["secret_sha256"], d)), None)
                if old:
                    return (f"the Token: line holds an old secret of {game.scenario.side_name(side)}: the host "
                            f"replaced it on {old['at']} and refuses it from now on; use the new secret the host "
                            "mailed to the side's player; nothing was applied")
                return f"the Token: line does not match {game.scenario.side_name(side)}'s secret; nothing was applied"
            return ""
        return ("the message carries neither a 'Token:' line nor a 'Signature:' line, so the host cannot tell it "
                "comes from you; add 'Token: YOUR-SECRET' (from the welcome mail) or sign the orders with "
                "`pbem orders sign`; nothing was applied")

    # --- answering ----------------------------------------------------------------

    def _reply_subject(self, inc: M.Incoming, gid: str) -> str:
        subj = inc.subject or "your message"
        if gid and f"[pbem {gid}]".lower() not in subj.lower():
            subj = f"[pbem {gid}] {subj}"
        return subj if subj.lower().startswith("re:") else f"Re: {subj}"

    def _refuse(self, name: str, inc: M.Incoming, key: str, rec: dict, reason: str, quarantine: bool,
                game_id: str = "", side: str = "") -> Outcome:
        """Answer a message that changes nothing, then record it as done."""
        answers = []
        stranger = bool(inc.sender) and not self._known_sender(inc.sender)
        if stranger:
            # no backscatter: a forged From would make the host mail a stranger, and an answer
            # would tell a prober which game ids exist; the host's operator sees it in quarantine
            reason += " (not answered: the sender plays no game on this host)"
        elif inc.sender and not inc.automatic and inc.sender != self.cfg.address:
            body = self._tpl("refused", reason=reason, host=self.cfg.address, game_id=game_id, side=side,
                             subject=inc.subject, message_id=inc.message_id)
            answers.append(Answer(inc.sender, side or "unknown", "answer", self._reply_subject(inc, game_id), body,
                                  in_reply_to=inc.message_id, references=inc.references, outcome="refused",
                                  slug="refused"))
        self.commit(rec["job"], answers, game_id)
        checkpoint("spooled")
        filed = "quarantine" if quarantine else "processed"
        self._done(key, rec, outcome="refused", filed=filed, reason=reason, game=game_id, side=side)
        return Outcome(name, "quarantined" if quarantine else "refused", filed, game_id, side, reason)

    def _finish_orders(self, name: str, inc: M.Incoming, key: str, rec: dict) -> Outcome:
        from pbem.engine import Game
        gid, side = rec["game"], rec["side"]
        path = self.games().get(gid)
        if path is None:
            raise HostError(f"game {gid} vanished from this host")
        game = Game(path)
        sub, stale = self._apply(game, rec)
        checkpoint("applied")
        st = game.state()
        head = game.head()[1]
        sc = game.scenario
        changed = bool(sub and sub.applied)
        if stale:
            outcome = "refused"
        elif sub.refused is not None:
            outcome = "partial" if sub.applied else "refused"
        else:
            outcome = "accepted"
        entries = game.entries()
        applied = []
        if sub:
            for a in sub.applied:
                from pbem.report import render
                effects = [t for t in (render.describe(ev, sc, side) for ev in a.events) if t]
                applied.append({"line": a.line, "text": a.text, "effects": effects})
        ctx = self._context(game, side, st, head)
        report, atts = self._report(game, side, st, entries, head)
        body = self._tpl("answer", outcome=outcome, stale=stale, applied=applied,
                         refused=str(sub.refused) if sub and sub.refused else "",
                         not_applied=(sub.not_applied if sub else []), report=report,
                         empty=bool(sub) and not sub.applied and sub.refused is None, **ctx)
        answers = [Answer(inc.sender or self._players(game).get(side, ""), side, "answer",
                          self._reply_subject(inc, gid), body, atts, in_reply_to=inc.message_id,
                          references=inc.references or self._refs(game, side), outcome=outcome, head=head,
                          seq=st.seq, slug=f"{side}-answer")]
        if changed:
            note = f"{sc.side_name(side)} sent orders; the game moved on."
            ref_note = (f"{sc.side_name(side)} ({inc.sender}) sent orders: {outcome}.\n" +
                        "\n".join(f"  applied line {a['line']}: {a['text']}" for a in applied) +
                        (f"\n  REFUSED {sub.refused}" if sub.refused else ""))
            answers += self._state_mails(game, {"*": note}, skip={side}, referee_note=ref_note)
        self.commit(rec["job"], answers, gid)
        checkpoint("spooled")
        self._mark_reported(game, answers)
        # no order text here: this goes to host.log, and an order may be a sealed secret
        detail = (f"{len(sub.applied) if sub else 0} order(s) applied" + (f"; {stale}" if stale else "") +
                  (f"; line {sub.refused.line} refused" if sub and sub.refused else ""))
        self._done(key, rec, outcome=outcome, filed="processed", applied=len(sub.applied) if sub else 0,
                   seq_after=st.seq)
        checkpoint("recorded")
        if changed:
            self._sync_deadlines(game)
        return Outcome(name, outcome, "processed", gid, side, detail)

    # --- applying, exactly once ----------------------------------------------------

    def _apply(self, game, rec: dict):
        """(Submission, '') or (None, why stale).  Redone after a crash, it
        returns the result of the first run instead of applying twice."""
        seq, head = game.head()
        if head != rec["head_before"]:
            sub = self._recover(game, rec)
            if sub is not None:
                self.log(f"recovered job {rec['job']}: its orders were already in the log (seq {rec['seq_before'] + 1}"
                         f"-{sub.seq}); answering without applying them again")
                return sub, ""
        return self._submit(game, rec)

    def _submit(self, game, rec: dict):
        from pbem.log import StaleHead
        seq, head = game.head()
        expect = rec.get("expect") or ""
        full = None
        if expect:
            if len(expect) < 12 or not re.fullmatch(r"[0-9a-f]+", expect):
                return None, ("the Head: line must hold the head hash from your latest report "
                              "(at least its first 12 hex digits)")
            if not head.startswith(expect):
                return None, (f"your orders were written against head {expect[:12]}..., but the game has moved on "
                              f"to head {head} (seq {seq}); read the report below and send them again")
            full = head
        try:
            sub = game.submit(rec["side"], rec["text"], expect_head=full, at=rec["at"], by=rec.get("by", ""))
        except StaleHead:
            seq, head = game.head()
            return None, (f"the game moved on while your orders were being applied; it is now at head {head} "
                          f"(seq {seq}); read the report below and send them again")
        return sub, ""

    def _recover(self, game, rec: dict):
        """The Submission this job's orders made, if the log already holds it."""
        from pbem.engine import EngineError, Game
        lines = list(game.log.iter_lines())
        n = int(rec["seq_before"])
        if len(lines) <= n + 1:
            return None
        with tempfile.TemporaryDirectory(dir=self.state_dir) as td:
            d = Path(td) / "g"
            d.mkdir()
            # a private scratch copy of the game as it was before the job (0600, as the game's own files)
            M.write_atomic(d / "scenario.toml", (game.dir / "scenario.toml").read_bytes())
            if (game.dir / "seed").exists():
                M.write_atomic(d / "seed", (game.dir / "seed").read_bytes())
            M.write_atomic(d / "log.jsonl", b"".join(ln + b"\n" for ln in lines[:n + 1]))
            M.write_atomic(d / "log.head", f"{n} {rec['head_before']}\n".encode())
            try:
                scratch = Game(d)
                if scratch.head()[1] != rec["head_before"]:
                    return None
                sub = scratch.submit(rec["side"], rec["text"], at=rec["at"], by=rec.get("by", ""))
            except EngineError:
                return None
            new = list(scratch.log.iter_lines())[n + 1:]
        if new and lines[n + 1:n + 1 + len(new)] == new:
            return sub
        return None

    # --- welcome ----------------------------------------------------------------------

    def welcome(self, game) -> list[str]:
        """Register a game, give every side a secret and mail each player a welcome."""
        with self.locked():
            self.register(game)
            sec = self.ensure_secrets(game)
            key = job_key("welcome", game.game_id)
            rec = self.journal_get(key)
            told = []
            if not rec or rec.get("status") != "done":
                rec = rec or self._start(key)
                st = game.state()
                entries = game.entries()
                head = entries[-1].hash
                answers = []
                for side, addr in self._players(game).items():
                    text, atts = self._report(game, side, st, entries, head)
                    ctx = self._context(game, side, st, head)
                    body = self._tpl("welcome", report=text, secret=sec[side],
                                     commitment=game.created.seed_commitment, dice_mode=game.created.dice_mode, **ctx)
                    answers.append(Answer(addr, side, "welcome",
                                          f"[pbem {game.game_id}] welcome: you play {game.scenario.side_name(side)} "
                                          f"in {game.scenario.title}", body, atts, head=head, seq=st.seq,
                                          slug=f"{side}-welcome", message_id=self._refs(game, side)[0][1:-1]))
                    told.append(f"{side} <{addr}>")
                if self.cfg.referee:
                    text, atts = self._report(game, REFEREE, st, entries, head)
                    body = self._tpl("report", report=text, note=f"Game {game.game_id} created; players: "
                                     + (", ".join(told) or "none with an address") + ".",
                                     **self._context(game, REFEREE, st, head))
                    answers.append(Answer(self.cfg.referee, REFEREE, "referee",
                                          f"[pbem {game.game_id}] referee: game created", body, atts, head=head,
                                          seq=st.seq, slug="referee-created"))
                # each welcome's Message-ID is the thread root of that side's later mail
                self.commit(rec["job"], answers, game.game_id)
                self._mark_reported(game, answers)
                self._done(key, rec, outcome="welcome", game=game.game_id)
                self._sync_deadlines(game)
            self.flush()
        return told

    # --- deadlines -----------------------------------------------------------------------

    def _period(self, game) -> timedelta | None:
        dl = self._deadlines(game)
        if "period" in dl:
            return parse_duration(dl["period"])
        return self.cfg.period

    @staticmethod
    def _deadlines(game) -> dict:
        try:
            return json.loads((game.dir / DEADLINE_NAME).read_text())
        except (OSError, ValueError):
            return {}

    @staticmethod
    def _save_deadlines(game, dl: dict) -> None:
        M.write_atomic(game.dir / DEADLINE_NAME, json.dumps(dl, indent=1, sort_keys=True).encode())

    @staticmethod
    def _await_key(st, item: dict) -> str:
        units = ",".join(item.get("units", []) or [])
        return f"t{st.turn}.p{st.phase}.{item['side']}.{item['kind']}.{item.get('combat', '')}.{units}"

    def _sync_deadlines(self, game) -> dict:
        """Start the clock for every decision newly awaited; forget answered ones."""
        dl = self._deadlines(game)
        period = self._period(game)
        st = game.state()
        waits = dict(dl.get("waits", {}))
        now = self.now()
        items = [] if st.result is not None else game.rules.awaiting(st, game.scenario)
        keys = {}
        for item in items:
            k = self._await_key(st, item)
            keys[k] = item
        new = {k: v for k, v in waits.items() if k in keys}
        for k, item in keys.items():
            if k not in new and period is not None:
                new[k] = {"side": item["side"], "kind": item["kind"], "since": iso(now), "due": iso(now + period),
                          "reminded": False}
        if new != waits or "waits" not in dl:
            dl["waits"] = new
            self._save_deadlines(game, dl)
        return dl

    def tick(self) -> list[str]:
        """Reminders and deadline defaults that are due, for every hosted game."""
        from pbem.engine import EngineError, Game
        from pbem.log import LogError
        done = []
        with self.locked():
            for gid, path in self.games().items():
                try:
                    game = Game(path)
                    dl = self._sync_deadlines(game)
                except (EngineError, LogError, OSError) as e:
                    self.log(f"game {gid}: skipped ({e})")
                    continue
                if self.busy(gid):
                    self.log(f"game {gid}: orders of a message are half-way; they are finished when that "
                             "message is polled again (deadlines wait until then)")
                    continue
                try:
                    done += self._tick_game(game, dl)
                except Exception as e:            # noqa: BLE001 - one game's trouble must not stop the others
                    self.log(f"game {gid}: reports and deadlines skipped this time: {type(e).__name__}: {e}")
        return done

    def _tick_game(self, game, dl: dict) -> list[str]:
        synced = self._sync_reports(game)
        if synced:
            return [synced]
        now = self.now()
        done = []
        for k, w in sorted(dl.get("waits", {}).items()):
            due = parse_time(w["due"])
            if now >= due:
                done.append(self._apply_default(game, k, w))
                break                   # the state changed; look again on the next tick
            if self.cfg.reminder and not w.get("reminded") and now >= due - self.cfg.reminder:
                done.append(self._remind(game, k, w))
        return done

    def _sync_reports(self, game) -> str:
        """The log moved on without the mail (the host used `pbem order`,
        `pbem reveal`, ...): every side still gets its report of the change."""
        seq, head = game.head()
        viewers = list(self._players(game)) + ([REFEREE] if self.cfg.referee else [])
        if not viewers or min(game.last_report(v) for v in viewers) >= seq:
            return ""
        key = job_key("sync", game.game_id, head)
        rec = self.journal_get(key)
        if rec and rec.get("status") == "done":
            return ""
        rec = rec or self._start(key)
        note = "The game moved on at the host (not by mail); here is where it stands."
        answers = [a for a in self._state_mails(game, {"*": note}, kind="report", referee_note=note)
                   if game.last_report(a.viewer) < seq]
        self.commit(rec["job"], answers, game.game_id)
        self._mark_reported(game, answers)
        self._done(key, rec, outcome="synced", game=game.game_id)
        self._sync_deadlines(game)
        msg = f"game {game.game_id}: changed at the host; reports mailed to {', '.join(a.viewer for a in answers)}"
        self.log(msg)
        return msg

    def _remind(self, game, akey: str, w: dict) -> str:
        key = job_key("reminder", game.game_id, akey, w["due"])
        rec = self.journal_get(key)
        addr = self._players(game).get(w["side"], "")
        if not rec or rec.get("status") != "done":
            rec = rec or self._start(key)
            st = game.state()
            head = game.head()[1]
            answers = []
            if addr:
                body = self._tpl("reminder", due=w["due"], kind=w["kind"],
                                 awaiting=[a for a in game.rules.awaiting(st, game.scenario) if a["side"] == w["side"]],
                                 default_lines=game.rules.default_orders(st, game.scenario, w["side"]),
                                 **self._context(game, w["side"], st, head))
                answers.append(Answer(addr, w["side"], "reminder",
                                      f"[pbem {game.game_id}] reminder: {game.scenario.side_name(w['side'])}, your "
                                      f"{w['kind']} is due by {w['due']}", body, head=head, seq=st.seq,
                                      references=self._refs(game, w["side"]), slug=f"{w['side']}-reminder"))
            self.commit(rec["job"], answers, game.game_id)
            self._done(key, rec, outcome="reminded", game=game.game_id, side=w["side"])
        dl = self._deadlines(game)
        if akey in dl.get("waits", {}):
            dl["waits"][akey]["reminded"] = True
            self._save_deadlines(game, dl)
        msg = f"game {game.game_id}: reminded {w['side']} of the {w['kind']} due {w['due']}"
        self.log(msg)
        return msg

    def _apply_default(self, game, akey: str, w: dict) -> str:
        from pbem.views import order_text
        side = w["side"]
        st = game.state()
        seq, head = game.head()
        key = job_key("deadline", game.game_id, akey, head[:16])
        rec = self.journal_get(key)
        if rec and rec.get("status") == "done":
            return f"game {game.game_id}: deadline for {side} already handled"
        lines = game.rules.default_orders(st, game.scenario, side)
        if not rec:
            if not lines:
                if not w.get("no_default"):
                    dl = self._deadlines(game)
                    dl["waits"][akey]["no_default"] = True
                    self._save_deadlines(game, dl)
                    self.log(f"game {game.game_id}: the deadline for {side}'s {w['kind']} passed, but the rules "
                             "define no default for it; still waiting")
                return f"game {game.game_id}: no default for {side}"
            rec = self._start(key)
            rec = dict(rec, status="applying", kind="deadline", game=game.game_id, side=side, seq_before=seq,
                       head_before=head, text="\n".join(lines), expect=head, by="deadline")
            self.journal_put(key, rec)
            checkpoint("journaled")
        sub, stale = self._apply(game, rec)
        checkpoint("applied")
        sc = game.scenario
        if stale or sub is None or not sub.applied:
            why = stale or (str(sub.refused) if sub and sub.refused else "nothing to apply")
            self._done(key, rec, outcome="refused", reason=why)
            msg = f"game {game.game_id}: the deadline default for {side} could not be applied: {why}"
            self.log(msg)
            return msg
        def note_for(viewer: str) -> str:
            # each reader sees the applied orders through its own view: a default may seal a secret
            text = ", ".join(order_text(side, a.text, viewer, game.rules) for a in sub.applied)
            note = (f"The deadline for {sc.side_name(side)}'s {w['kind']} passed at {w['due']}. The host applied "
                    f"the documented default for it: {text}.")
            return note + (f" (Refused: {sub.refused}.)" if sub.refused is not None else "")
        notes = {s: note_for(s) for s in sc.side_ids()}
        answers = self._state_mails(game, notes, kind="deadline", referee_note=note_for(REFEREE))
        text = ", ".join(order_text(side, a.text, REFEREE, game.rules) for a in sub.applied)
        self.commit(rec["job"], answers, game.game_id)
        checkpoint("spooled")
        self._mark_reported(game, answers)
        self._done(key, rec, outcome="deadline", applied=len(sub.applied), seq_after=sub.seq)
        self._sync_deadlines(game)
        msg = f"game {game.game_id}: deadline passed for {side}; applied the default: {text}"
        self.log(msg)
        return msg

    def deadline(self, game, extend: timedelta | None = None, period: str | None = None) -> list[str]:
        """`pbem deadline`: show, extend (and tell the players), or set the period."""
        out = []
        with self.locked():
            hosted = self.games().get(game.game_id)
            if hosted is None or hosted.resolve() != game.dir.resolve():
                raise HostError(f"game {game.game_id} ({game.dir}) is not hosted by {self.cfg.root}; "
                                "host it first with `pbem host add`")
            if period is not None:
                parse_duration(period)
                dl = self._deadlines(game)
                dl["period"] = period
                self._save_deadlines(game, dl)
                out.append(f"period for new decisions: {fmt_duration(parse_duration(period))}")
            dl = self._sync_deadlines(game)
            if extend is not None:
                waits = dl.get("waits", {})
                if not waits:
                    raise HostError(f"game {game.game_id} has no running deadline to extend")
                st = game.state()
                head = game.head()[1]
                for k, w in waits.items():
                    due = parse_time(w["due"]) + extend
                    w["due"] = iso(due)
                    w["reminded"] = bool(self.cfg.reminder) and w.get("reminded", False) and \
                        self.now() >= due - self.cfg.reminder
                    key = job_key("extend", game.game_id, k, w["due"])
                    rec = self.journal_get(key)
                    if rec and rec.get("status") == "done":
                        continue
                    rec = rec or self._start(key)
                    note = (f"The host extended the deadline for {game.scenario.side_name(w['side'])}'s "
                            f"{w['kind']} by {fmt_duration(extend)}: it is now due by {w['due']}.")
                    answers = []
                    for side, addr in self._players(game).items():
                        body = self._tpl("notice", note=note, **self._context(game, side, st, head))
                        answers.append(Answer(addr, side, "notice", f"[pbem {game.game_id}] deadline extended to "
                                              f"{w['due']}", body, references=self._refs(game, side),
                                              slug=f"{side}-notice"))
                    self.commit(rec["job"], answers, game.game_id)
                    self._done(key, rec, outcome="extended", game=game.game_id)
                    self.log(f"game {game.game_id}: {note}")
                self._save_deadlines(game, dl)
                self.flush()
            for k, w in self._deadlines(game).get("waits", {}).items():
                out.append(f"{w['side']}: {w['kind']} due by {w['due']}" + (" (reminded)" if w.get("reminded") else ""))
            if not self._deadlines(game).get("waits"):
                out.append("no deadline running" + ("" if self._period(game) else " (no deadline period set)"))
        return out

    # --- serve -------------------------------------------------------------------------

    def serve(self, interval: float | None = None, once: bool = False, stop: threading.Event | None = None) -> int:
        """Poll, handle deadlines and deliver, every ``interval`` seconds, until
        SIGTERM or SIGINT (the message in hand is finished first)."""
        stop = stop or threading.Event()
        interval = self.cfg.interval if interval is None else interval
        old = {}
        if threading.current_thread() is threading.main_thread():
            for sig in (signal.SIGTERM, signal.SIGINT):
                old[sig] = signal.signal(sig, lambda s, f: stop.set())
        self.log(f"serving {self.cfg.root} (inbox: {self.cfg.incoming.get('kind', 'maildir')}, "
                 f"outgoing: {self.cfg.outgoing.get('kind', 'outbox')}, every {interval:g}s)")
        cycles = 0
        try:
            while not stop.is_set():
                try:
                    outcomes = self.poll()
                    if outcomes:
                        self.log(f"poll: {len(outcomes)} message(s)")
                except (HostError, M.MailError, OSError) as e:
                    self.log(f"poll failed: {e}")
                except Exception as e:         # noqa: BLE001 - keep serving; the next poll retries
                    self.log(f"poll failed: internal error {type(e).__name__}: {e}")
                cycles += 1
                if once:
                    break
                stop.wait(interval)
        finally:
            for sig, h in old.items():
                signal.signal(sig, h)
        self.log("stopped")
        return cycles


# --- helpers ------------------------------------------------------------------------

def job_key(kind: str, *parts: str) -> str:
    """The journal key of a job of the host's own (a welcome, a deadline, ...).

    Incoming messages are keyed by their Message-ID (never holding a space,
    see mail._MSGID) or ``sha256:...``; a host key starts with "host job " and
    so can never be named by a stranger's Message-ID."""
    return "host job " + ":".join([kind, *map(str, parts)])


def _same(given: str, expected: str) -> bool:
    """Constant-time comparison of a value from a mail (any text at all) with
    the host's own: compared as UTF-8 bytes, so non-ASCII input is simply unequal."""
    import hmac
    return hmac.compare_digest(given.encode("utf-8", "replace"), expected.encode("utf-8", "replace"))


def _digest(secret: str) -> str:
    """What the host keeps of a replaced secret: enough to recognise it, not to use it."""
    return hashlib.sha256(secret.strip().lower().encode("utf-8", "replace")).hexdigest()


def _no_longer(game, address: str, gone: dict) -> str:
    return (f"{address} no longer plays {game.scenario.side_name(gone['side'])} in game {game.game_id}: "
            f"on {gone['at']} the host registered another player's address for that side; nothing was applied")


def _when(game, st) -> str:
    sc = game.scenario
    if st.result is not None:
        return f"game over, {sc.side_name(st.result.winner)} wins (seq {st.seq})"
    ph = sc.sequence[st.phase] if 0 <= st.phase < len(sc.sequence) else None
    where = f", {sc.side_name(ph.side)} {ph.name}" if ph else ""
    return f"turn {st.turn}{where} (seq {st.seq})"


def _defaults_text(game) -> str:
    return game.rules.defaults_help or "the rules of this game define no default; the game waits"


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
    where = host.outbox_path if host.cfg.outgoing.get("kind", "outbox") == "outbox" else host.cfg.outgoing.get("server")
    if told:
        echo(f"host {root}: welcome mailed to {', '.join(told)} (via {where})")
        echo(f"player secrets: {game.dir / SECRETS_NAME} (mode 0600)")
    else:
        echo(f"host {root}: game registered; no player has an address, so no welcome was sent")
    left = host.pending()
    if left:
        echo(f"{left} mail(s) wait in the spool; `pbem mail poll` retries (see {host.logfile})")


def add_game(root: Path, game_dir: Path, echo: Callable[[str], None] = print) -> None:
    from pbem.engine import Game
    host = Host.open(root)
    game = Game(Path(game_dir))
    told = host.welcome(game)
    echo(f"game {game.game_id} hosted from {game.dir}; welcome mailed to: {', '.join(told) or 'nobody'}")
