"""The host's configuration: the schema of pbem-host.toml (every key and
value it accepts; anything else is refused), the text `pbem host init`
writes, reading and checking it, the server passwords (the environment or
credentials.toml, mode 0600) and finding the host folder."""
from __future__ import annotations

import difflib
import json
import os
import re
import tomllib
import typing
from dataclasses import dataclass, field
from datetime import time, timedelta
from pathlib import Path
from typing import Annotated, Literal

import msgspec

from pbem.core.schema import schema_error
from pbem.host import mail as M
from pbem.host.common import CONFIG_NAME, CREDENTIALS_NAME, HostError, parse_duration
from pbem.log import FileRefused, read_regular


@dataclass
class Config:
    """pbem-host.toml as read and checked (``load_config``)."""
    root: Path
    address: str
    name: str = "pbem"
    referee: str = ""
    games_dir: Path = Path("games")
    max_bytes: int = 1_000_000
    map_png: bool = True
    map_svg: bool | str = "final"          # True, False or "final" (only with the report of a finished game)
    map_width: int = 1400                  # the PNG's width at most, in pixels
    auth: str = "token-or-signature"
    orders_mode: str = "immediate"         # "staged": mailed orders wait for FINAL (or the deadline)
    incoming: dict = field(default_factory=dict)
    outgoing: dict = field(default_factory=dict)
    period: timedelta | None = None
    reminder: timedelta | None = None
    clock: time | None = None               # deadlines fall at this time of day (pbem.host.clock)
    days: str = "SMTWTFS"                   # ... on these days (Sunday first, "-" = none that day)
    minimum: timedelta | None = None        # ... never less than this after the decision arises
    grace: timedelta | None = None          # after a deadline: the late side is named, then the default
    zone: str = "UTC"                       # the zone the clock and the days are read in
    absence: timedelta | None = timedelta(days=14)
    absence_window: timedelta = timedelta(days=30)   # ABSENT: at most ``absence`` within any span this long
    press_per_mail: int = 10_000           # characters of press one mail may carry
    press_per_step: int = 30_000           # characters of press one side may send in one step of the game
    max_out: int = 1_000_000               # bytes: the largest mail the host sends (maps left out, text cut to fit)
    interval: int = 60
    notify_url: str = ""                   # [notify] url: every player's webhook ({game}, {side}) unless its own
    notify_format: str = "json"            # "json", "discord" or "slack"
    store_url: str = ""                    # [store] url: "" = the file store; "postgresql://..." = the database

    @property
    def domain(self) -> str:
        return self.address.rsplit("@", 1)[-1] or "localhost"


def _toml_str(s: str) -> str:
    return json.dumps(str(s))            # a JSON string is a valid TOML basic string


def config_text(address: str, name: str, referee: str, games: str, incoming: dict, outgoing: dict,
                period: str, reminder: str, maps: bool = True, clock: dict | None = None,
                store: str = "") -> str:
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
    ck = {"clock": "", "days": "SMTWTFS", "minimum": "off", "grace": "off", "zone": "UTC", **(clock or {})}
    return f"""# pbem host configuration (written by `pbem host init`; edit freely).
# Passwords never go here: see credentials.toml (mode 0600) or the
# environment variables PBEM_IMAP_PASSWORD and PBEM_SMTP_PASSWORD.

address = {_toml_str(address)}        # players mail their orders here; every answer comes from here
name = {_toml_str(name)}              # display name on outgoing mail
referee = {_toml_str(referee)}        # gets the referee copy of every report ("" = nobody)
games = {_toml_str(games)}            # where new games live (relative to this file)
max_message_bytes = 1000000           # larger messages are refused unread
map_png = {json.dumps(maps)}                        # attach the map as PNG (most mail programs show it)
map_svg = {'"final"' if maps else "false"}                     # the SVG too: true (every report), false, or "final" (the last report only)
map_width = 1400                      # the PNG's width at most, in pixels (320 to 4000)
auth = "token-or-signature"           # or "signature": refuse plain Token: lines

[orders]
mode = "immediate"                    # or "staged": mailed orders wait for FINAL (or the deadline)
press_per_mail = 10000                # characters of press one mail may carry (0 = no press by mail)
press_per_step = 30000                # characters of press one side may send in one step of the game

[incoming]                            # where orders arrive: a Maildir (default) or IMAP
{table(incoming, inc_more)}

[outgoing]                            # how answers leave: an outbox folder of .eml files (default) or SMTP
{table(outgoing, out_more)}
# security: "starttls" (port 587), "tls" (port 465) or "none" (loopback test servers only)
max_bytes = 1000000                   # the largest mail the host sends: maps are left out, then the text cut, to fit

[deadlines]
period = {_toml_str(period)}          # time for each decision the game waits for ("off" = none)
reminder = {_toml_str(reminder)}      # the late side is reminded this long before the deadline
clock = {_toml_str(ck["clock"])}                 # a time of day deadlines fall at, e.g. "23:30" ("" = any time)
days = {_toml_str(ck["days"])}          # the days they may fall on, Sunday first: "-MTWTF-" = Monday to Friday
minimum = {_toml_str(ck["minimum"])}             # never less than this after a decision arises (with a clock)
grace = {_toml_str(ck["grace"])}               # after a deadline: the late side is named to all, then the default
zone = {_toml_str(ck["zone"])}                # the time zone the clock and the days are read in
absence = "14d"                       # the longest a player may be ABSENT ("off" = not at all) ...
absence_window = "30d"                # ... in any span of this length, however many ABSENT mails

[serve]
interval = 60                         # seconds between two looks at the inbox (or a duration: "5m")

[notify]                              # "your turn" pings beyond mail (a player's own: pbem new --notify)
url = ""                              # every player's webhook, e.g. "https://relay.example/pbem/{{game}}/{{side}}"
format = "json"                       # or "discord" / "slack": those services' payloads

[store]                               # where the games, the mail journal and the spool live: files in this folder,
{f"url = {_toml_str(store)}" if store else '# url = "postgresql://USER@HOST/DB"'}    # or one database for many workers (pbem serve --workers N)
"""


def load_config(root: Path) -> Config:
    root = Path(root).resolve()
    path = root / CONFIG_NAME
    try:
        data = tomllib.loads(read_regular(path, MAX_CONFIG_BYTES).decode("utf-8"))
    except FileNotFoundError:
        raise HostError(f"{path} not found: create a host with `pbem host init {root}`") from None
    except FileRefused as e:
        raise HostError(str(e)) from None
    except (OSError, UnicodeError) as e:
        raise HostError(f"cannot read {path}: {e.strerror if isinstance(e, OSError) and e.strerror else e}") from None
    except tomllib.TOMLDecodeError as e:
        raise HostError(f"{path}: {e}") from None
    except RecursionError:
        raise HostError(f"{path}: nested too deeply to be a host configuration") from None
    try:
        return _config(data, root, path)
    except RecursionError:
        raise HostError(f"{path}: nested too deeply to be a host configuration") from None


MAX_CONFIG_BYTES = 1 << 20                 # a host file, or credentials.toml, is a few kilobytes


Port = Annotated[int, msgspec.Meta(ge=1, le=65535)]
Seconds = Annotated[float, msgspec.Meta(gt=0, le=3600)]
Chars = Annotated[int, msgspec.Meta(ge=0, le=10_000_000)]


class _Incoming(msgspec.Struct, forbid_unknown_fields=True):
    kind: Literal["maildir", "imap"] = "maildir"
    maildir: str = "inbox"
    server: str = ""
    port: Port = 993
    security: Literal["tls", "starttls", "none"] = "tls"
    user: str = ""
    folder: str = "INBOX"
    processed_folder: str = "pbem-processed"
    quarantine_folder: str = "pbem-quarantine"
    timeout: Seconds = 60


class _Outgoing(msgspec.Struct, forbid_unknown_fields=True):
    kind: Literal["outbox", "smtp"] = "outbox"
    outbox: str = "outbox"
    server: str = ""
    port: Port = 587
    security: Literal["tls", "starttls", "none"] = "starttls"
    user: str = ""
    timeout: Seconds = 60
    max_bytes: int | str = 1_000_000


class _Deadlines(msgspec.Struct, forbid_unknown_fields=True):
    period: str = ""
    reminder: str = ""
    absence: str = "14d"
    absence_window: str = "30d"
    clock: str = ""
    days: str = "SMTWTFS"
    minimum: str = ""
    grace: str = ""
    zone: str = "UTC"


class _Orders(msgspec.Struct, forbid_unknown_fields=True):
    mode: Literal["immediate", "staged"] = "immediate"
    press_per_mail: Chars = 10_000
    press_per_step: Chars = 30_000


class _Notify(msgspec.Struct, forbid_unknown_fields=True):
    url: str = ""
    format: Literal["json", "discord", "slack"] = "json"


class _Serve(msgspec.Struct, forbid_unknown_fields=True):
    interval: Annotated[int, msgspec.Meta(ge=1, le=86_400)] | str = 60


class _Store(msgspec.Struct, forbid_unknown_fields=True):
    url: str = ""


class _HostFile(msgspec.Struct, forbid_unknown_fields=True):
    """The schema of pbem-host.toml: every key and every accepted value.  An
    unknown key or value is refused, never guessed: a typo in `security`
    must not send a password in clear."""
    address: str
    name: str = "pbem"
    referee: str | None = None
    games: str = "games"
    max_message_bytes: int | str = 1_000_000
    map_png: bool = True
    map_svg: bool | Literal["final"] = "final"
    map_width: Annotated[int, msgspec.Meta(ge=320, le=4000)] = 1400
    auth: Literal["token-or-signature", "signature"] = "token-or-signature"
    incoming: _Incoming = msgspec.field(default_factory=_Incoming)
    outgoing: _Outgoing = msgspec.field(default_factory=_Outgoing)
    deadlines: _Deadlines = msgspec.field(default_factory=_Deadlines)
    orders: _Orders = msgspec.field(default_factory=_Orders)
    serve: _Serve = msgspec.field(default_factory=_Serve)
    notify: _Notify = msgspec.field(default_factory=_Notify)
    store: _Store = msgspec.field(default_factory=_Store)


# What a key accepts, said after a wrong value (msgspec names only the type).
_FORMS = {
    "address": 'an e-mail address in quotes, e.g. "referee@club.example"',
    "max_message_bytes": 'a number of bytes (1000000) or a size in quotes: "1MB", "500KB", "2MiB"',
    "map_png": "true or false",
    "map_svg": 'true, false or "final" (only the last report of a game)',
    "map_width": "a whole number of pixels from 320 to 4000, e.g. 1400",
    "incoming.port": "a whole number from 1 to 65535, e.g. 993",
    "outgoing.port": "a whole number from 1 to 65535, e.g. 587",
    "incoming.timeout": "a number of seconds above 0, at most 3600, e.g. 60",
    "outgoing.timeout": "a number of seconds above 0, at most 3600, e.g. 60",
    "outgoing.max_bytes": 'a number of bytes (1000000) or a size in quotes: "1MB", "2MiB"; at least 20KB',
    "orders.press_per_mail": "a whole number of characters from 0 to 10000000, e.g. 10000",
    "orders.press_per_step": "a whole number of characters from 0 to 10000000, e.g. 30000",
    "deadlines.period": 'a duration in quotes: "72h", "2d", "1d12h", "90m", or "off"',
    "deadlines.reminder": 'a duration in quotes: "24h", "12h", or "off"',
    "deadlines.absence": 'a duration in quotes: "14d", "7d", or "off"',
    "deadlines.absence_window": 'a duration in quotes, at least the absence: "30d", "60d"',
    "deadlines.clock": 'a time of day in quotes, "23:30", or "" for none',
    "deadlines.days": 'seven characters in quotes, Sunday first, "-" for a day without deadlines: "-MTWTF-"',
    "deadlines.minimum": 'a duration in quotes: "24h", "2d", or "off"',
    "deadlines.grace": 'a duration in quotes: "12h", "1d", or "off"',
    "deadlines.zone": 'a time zone in quotes: "UTC", "Europe/Berlin", "America/New_York"',
    "notify.url": 'an https:// address in quotes ({game} and {side} are filled in), or "" for none',
    "serve.interval": 'a number of seconds from 1 to 86400 (60) or a duration in quotes: "5m", "90s"',
    "store.url": '"" (the file store) or a PostgreSQL URL in quotes: "postgresql://pbem@db.club.example/pbem"',
}
for _k in ("name", "referee", "games"):
    _FORMS[_k] = "text in quotes"

_SIZE = re.compile(r"(\d+(?:\.\d+)?)\s*(b|kb|mb|gb|kib|mib|gib)?", re.IGNORECASE)
_UNIT = {"": 1, "b": 1, "kb": 1000, "mb": 1000 ** 2, "gb": 1000 ** 3, "kib": 1024, "mib": 1024 ** 2, "gib": 1024 ** 3}


def parse_size(value: int | str) -> int:
    """1000000, "1MB", "500 KB", "2MiB" -> bytes; HostError for anything else."""
    if isinstance(value, int):
        n = value
    else:
        m = _SIZE.fullmatch(value.strip())
        if not m:
            raise HostError(f"{value!r} is not a size")
        n = int(float(m.group(1)) * _UNIT[(m.group(2) or "").lower()])
    if n < 1000:
        raise HostError(f"{value!r} is below 1000 bytes: no mail would fit")
    return n


def _bad(path: Path, key: str, what: str) -> HostError:
    forms = _FORMS.get(key)
    return HostError(f"{path}: {key}: {what}" + (f"; accepted: {forms}" if forms else ""))


def _schema_line(e: msgspec.ValidationError) -> str:
    """schema_error's line, with the forms a key accepts and a guess at a misspelt key."""
    line = schema_error(e, _HostFile)
    key, _, what = line.partition(": ")
    if what.startswith("unknown key"):
        parent = key.rpartition(".")[0]
        tp = _HostFile if not parent else typing.get_type_hints(_HostFile).get(parent)
        known = list(getattr(tp, "__struct_fields__", ()))
        near = difflib.get_close_matches(key.rpartition(".")[2], known, n=1, cutoff=0.6)
        if near:
            line = f"{key}: unknown key (did you mean {near[0]!r}?); known: {', '.join(known)}"
    elif key in _FORMS and "accepted:" not in what:
        line += f"; accepted: {_FORMS[key]}"
    return line


def _config(data: dict, root: Path, path: Path) -> Config:
    try:
        f = msgspec.convert(data, _HostFile)
    except msgspec.ValidationError as e:
        raise HostError(f"{path}: {_schema_line(e)}") from None
    address = f.address.strip()
    if "@" not in address:
        raise _bad(path, "address", f"{address!r} is not an e-mail address")
    try:
        max_bytes = parse_size(f.max_message_bytes)
    except HostError as e:
        raise _bad(path, "max_message_bytes", str(e)) from None
    interval = f.serve.interval
    if isinstance(interval, str):
        try:
            td = parse_duration(interval)
        except HostError as e:
            raise _bad(path, "serve.interval", str(e)) from None
        interval = int(td.total_seconds()) if td else 0
    if not 1 <= interval <= 86_400:
        raise _bad(path, "serve.interval", f"{f.serve.interval!r} is not a time between two looks")
    cfg = Config(
        root=root, address=address.lower(), name=f.name,
        referee=(address if f.referee is None else f.referee).strip().lower(),
        games_dir=(root / f.games).resolve(), max_bytes=max_bytes, map_png=f.map_png,
        map_svg=f.map_svg, map_width=f.map_width, auth=f.auth, orders_mode=f.orders.mode,
        incoming=msgspec.structs.asdict(f.incoming), outgoing=msgspec.structs.asdict(f.outgoing),
        interval=interval, press_per_mail=f.orders.press_per_mail, press_per_step=f.orders.press_per_step,
    )
    url = f.store.url.strip()
    if url and not re.match(r"postgres(ql)?://", url):
        raise _bad(path, "store.url", f"{url!r} is not a PostgreSQL URL")
    cfg.store_url = url
    try:
        cfg.max_out = parse_size(f.outgoing.max_bytes)
    except HostError as e:
        raise _bad(path, "outgoing.max_bytes", str(e)) from None
    if cfg.max_out < MIN_OUT:
        raise _bad(path, "outgoing.max_bytes", f"{f.outgoing.max_bytes!r} is below 20KB: no report would fit")
    for key in ("period", "reminder", "absence", "absence_window"):
        try:
            # a zero period would make every deadline pass at once; "off" says none
            td = parse_duration(getattr(f.deadlines, key), zero=key == "reminder")
        except HostError as e:
            raise _bad(path, f"deadlines.{key}", str(e)) from None
        if key == "absence_window":
            if td is None:
                raise _bad(path, "deadlines.absence_window", "the span ABSENT is counted in cannot be off")
            if cfg.absence is not None and td < cfg.absence:
                raise _bad(path, "deadlines.absence_window", f"{f.deadlines.absence_window!r} is shorter than "
                           f"the absence ({f.deadlines.absence!r})")
        setattr(cfg, key, td)
    if f.notify.url:
        from pbem.host import notify as N
        try:
            N.check_target(f.notify.url.replace("{game}", "g").replace("{side}", "s"))
        except HostError as e:
            raise _bad(path, "notify.url", str(e)) from None
    cfg.notify_url, cfg.notify_format = f.notify.url, f.notify.format
    from pbem.host import clock as C
    for key, read in (("minimum", parse_duration), ("grace", parse_duration), ("clock", C.parse_clock),
                      ("days", C.parse_days), ("zone", C.check_zone)):
        try:
            setattr(cfg, key, read(getattr(f.deadlines, key)))
        except HostError as e:
            raise _bad(path, f"deadlines.{key}", str(e)) from None
    for key, where in _folders(cfg):
        problem = system_folder(where)
        if problem:
            raise _bad(path, key, f"{where} {problem}; name a folder of the host's own (e.g. inside {root})")
    for section in ("incoming", "outgoing"):
        d = getattr(cfg, section)
        if d["kind"] in ("imap", "smtp") and not d["server"]:
            raise HostError(f"{path}: {section}.server: kind = {d['kind']!r} needs a server")
        if d["kind"] in ("imap", "smtp"):
            try:                                # checked now, not at the first connection
                M.check_security(d["kind"].upper(), d["server"], d["security"])
            except M.MailError as e:
                raise HostError(f"{path}: {section}.security: {e}") from None
    return cfg


MIN_OUT = 20_000
_SYSTEM = ("/", "/bin", "/boot", "/dev", "/etc", "/home", "/lib", "/lib32", "/lib64", "/libx32", "/media", "/mnt",
           "/opt", "/proc", "/root", "/run", "/sbin", "/srv", "/sys", "/tmp", "/usr", "/var", "/var/tmp",
           "/var/lib", "/var/log", "/var/spool", "/var/mail", "/dev/shm", "/run/user")
_SYSTEM_TREES = ("/bin", "/boot", "/etc", "/lib", "/lib32", "/lib64", "/libx32", "/proc", "/sbin", "/sys", "/usr")


def _folders(cfg: Config) -> list[tuple[str, Path]]:
    """The folders the host writes into, by their keys."""
    out = [("games", cfg.games_dir)]
    if cfg.incoming.get("kind") == "maildir":
        out.append(("incoming.maildir", (cfg.root / cfg.incoming["maildir"]).resolve()))
    if cfg.outgoing.get("kind") == "outbox":
        out.append(("outgoing.outbox", (cfg.root / cfg.outgoing["outbox"]).resolve()))
    return out


def system_folder(path: Path) -> str:
    """Why the host must not write into ``path`` ('' when it may): a system folder itself
    (/etc, /tmp, /home, ...), or anything inside one of the system's own trees (/etc, /usr,
    /proc, /dev but /dev/shm ...)."""
    p = os.path.realpath(path)
    if p in _SYSTEM:
        return "is a system folder"
    if p.startswith("/dev/") and not p.startswith("/dev/shm/"):
        return "is inside /dev"
    for top in _SYSTEM_TREES:
        if p.startswith(top + "/"):
            return f"is inside {top}, a system folder"
    return ""


def write_config(root: Path, address: str, name: str = "pbem", referee: str | None = None, games: str = "games",
                 incoming: dict | None = None, outgoing: dict | None = None, period: str = "72h",
                 reminder: str = "24h", passwords: dict[str, str] | None = None, maps: bool = True,
                 clock: dict | None = None, store: str = "") -> Config:
    """Write a new pbem-host.toml (and credentials.toml with ``passwords``),
    checked before anything is written, and read it back; the host's folders
    are made by ``init_host``.  ``clock``: the deadline clock's keys (clock, days,
    minimum, grace, zone) as `pbem host init` was given them."""
    root = Path(root)
    if (root / CONFIG_NAME).exists():
        raise HostError(f"{root / CONFIG_NAME} already exists; edit it instead")
    if "@" not in address:
        raise HostError(f"--address {address!r} is not an e-mail address")
    parse_duration(period, zero=False)
    parse_duration(reminder)
    incoming = incoming or {"kind": "maildir", "maildir": "inbox"}
    outgoing = outgoing or {"kind": "outbox", "outbox": "outbox"}
    text = config_text(address, name, address if referee is None else referee, games, incoming, outgoing,
                       period, reminder, maps, clock, store)
    try:
        _config(tomllib.loads(text), root.resolve(), root / CONFIG_NAME)      # refuse before writing anything
    except HostError as e:                     # name the option, not the file that was not written
        raise HostError(str(e).replace(f"{root / CONFIG_NAME}: deadlines.", "--")) from None
    root.mkdir(parents=True, exist_ok=True)
    os.chmod(root, 0o700)                      # the host's folder holds the players' secrets
    M.write_atomic(root / CONFIG_NAME, text.encode())
    if passwords:
        lines = ["# pbem host credentials: keep this file mode 0600.\n"]
        for section, pw in passwords.items():
            lines.append(f"[{section}]\npassword = {_toml_str(pw)}\n")
        M.write_atomic(root / CREDENTIALS_NAME, "\n".join(lines).encode(), mode=0o600)
    return load_config(root)


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
        data = tomllib.loads(read_regular(path, MAX_CONFIG_BYTES).decode("utf-8"))
    except (OSError, UnicodeError, tomllib.TOMLDecodeError, RecursionError) as e:
        raise HostError(f"cannot read {path}: {e if not isinstance(e, RecursionError) else 'nested too deeply'}") \
            from None
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
