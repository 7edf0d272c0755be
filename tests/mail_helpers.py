"""Shared parts of the mail tests: a real SMTP server on loopback (aiosmtpd),
hosts on real Maildirs, and message builders.

The host suite runs on both stores (conftest's ``store_kind`` fixture): on
``postgresql`` every ``make_host`` keeps its games, journal and spool in a fresh
database of the worker's throw-away cluster.  Tests reach a game through the
store-neutral helpers below (``game_store``, ``game_arg``, ``log_bytes``, ``doc``,
``secret``, ``reopen``), never through ``game.dir``, which on the database is only
this machine's cache folder."""
from __future__ import annotations

import json
import socket
import threading
from email import policy
from email.message import EmailMessage
from email.parser import BytesParser
from pathlib import Path

from pbem.host import mail as M
from pbem.engine import Game
from pbem.host import Host, init_host

CLOCK = "2026-01-01T00:00:00Z"
HOST_ADDR = "referee@club.example"
AXIS, BRITISH = "rommel@example.org", "auchinleck@example.org"
SEED = "dbcf34790826a38f229e9c0a6981efd72f99fe5578c7492e81c8f82cfc4edf89"
EXAMPLE = Path(__file__).resolve().parent.parent / "examples" / "el-alamein"


class SmtpCapture:
    """A real SMTP server (aiosmtpd) on 127.0.0.1 that keeps every message."""

    def __init__(self, refuse: tuple[str, ...] = ()):
        from aiosmtpd.controller import Controller
        self.messages: list[tuple[str, list[str], bytes]] = []
        self._lock = threading.Lock()
        capture = self

        class Handler:
            async def handle_RCPT(self, server, session, envelope, address, rcpt_options):
                if address.lower() in refuse:
                    return "550 5.1.1 no such mailbox"
                envelope.rcpt_tos.append(address)
                return "250 OK"

            async def handle_DATA(self, server, session, envelope):
                with capture._lock:
                    capture.messages.append((envelope.mail_from, list(envelope.rcpt_tos), bytes(envelope.content)))
                return "250 OK"

        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            self.port = s.getsockname()[1]
        self.controller = Controller(Handler(), hostname="127.0.0.1", port=self.port, ready_timeout=10)

    def __enter__(self):
        self.controller.start()
        return self

    def __exit__(self, *exc):
        self.controller.stop()
        return False

    def mailbox(self, address: str) -> list[tuple[str, bytes]]:
        with self._lock:
            return [(str(i), raw) for i, (_f, rcpt, raw) in enumerate(self.messages)
                    if address.lower() in (r.lower() for r in rcpt)]

    def to(self, address: str) -> list[EmailMessage]:
        return [parse(raw) for _k, raw in self.mailbox(address)]


def parse(raw: bytes) -> EmailMessage:
    return BytesParser(policy=policy.default).parsebytes(raw)


def text_of(msg: EmailMessage) -> str:
    part = msg.get_body(preferencelist=("plain",))
    return part.get_content() if part is not None else ""


# The store the host tests run on: set per test by conftest's ``store_kind`` fixture
# ("files" or "postgresql"; PG_CLUSTER is then the worker's throw-away cluster).
STORE = "files"
PG_CLUSTER = None


def on_database() -> bool:
    return STORE == "postgresql"


def make_host(root: Path, smtp_port: int | None = None, map_png: bool = False, period: str = "off",
              reminder: str = "24h", now=None) -> Host:
    outgoing = ({"kind": "smtp", "server": "127.0.0.1", "port": smtp_port, "security": "none"}
                if smtp_port else None)
    init_host(root, HOST_ADDR, name="Test referee", outgoing=outgoing, period=period, reminder=reminder)
    if not map_png:
        cfg = (root / "pbem-host.toml").read_text().replace("map_png = true", "map_png = false")
        (root / "pbem-host.toml").write_text(cfg)
    use_store(root)
    return Host.open(root, now=now)


def use_store(root: Path) -> None:
    """Point a host folder made by ``init_host`` at the test's store (a fresh database on postgresql)."""
    if on_database():
        from pg_helpers import use_database
        use_database(root, PG_CLUSTER.new_database(schema=True))


def game_store(host: Host, gid: str = "g1"):
    """Where a new game of ``host`` goes: its games folder, or a game store in its database."""
    return host.store.game(gid) if host.store.shared else host.cfg.games_dir / gid


def new_game(host: Host, gid: str = "g1", dice: list[int] | None = None, seed: str | None = SEED) -> Game:
    g = Game.create(game_store(host, gid), "el-alamein", {"axis": AXIS, "british": BRITISH},
                    seed_hex=None if dice else seed, dice=dice, game_id=gid, at=CLOCK)
    host.welcome(g)
    return g


def reopen(game: Game) -> Game:
    """The game read afresh from its store (the folder or the database)."""
    return Game(game.store)


def game_arg(game: Game) -> str:
    """The game as the command line takes it: its folder, or (database) its id, the
    host found through PBEM_HOST (conftest's ``store_kind`` restores it after the test)."""
    if game.store.kind == "files":
        return str(game.dir)
    import os
    os.environ["PBEM_HOST"] = str(game.store.pg.cache_root.parent)   # the host's cache/ is ROOT/cache
    return game.store.game_id


def folder_of(game: Game, where: Path) -> Path:
    """The game as a folder, for the offline tools (audit, verify): the folder itself, or
    the database's game exported by ``pbem host export`` into ``where``."""
    if game.store.kind == "files":
        return game.dir
    from pbem.store.moving import export_host
    export_host(game.store.pg, where, echo=lambda *a: None)
    return where / game.store.game_id


def log_bytes(game: Game) -> bytes:
    """The log's bytes: log.jsonl, or the database's lines joined as the file store writes them."""
    if game.store.kind == "files":
        return game.store.log.path.read_bytes()
    return b"".join(line + b"\n" for line in game.store.log.iter_lines())


def doc(game: Game, name: str) -> bytes | None:
    """One of the game's documents (player-secrets.json, deadline.json, ...) from its store."""
    return game.store.read(name)


def secret(game: Game, side: str) -> str:
    return json.loads(doc(game, "player-secrets.json"))[side]


def message(sender: str, body: str, subject: str = "[pbem g1] orders", mid: str = "m1@example.org",
            extra: dict[str, str] | None = None, html: str | None = None) -> bytes:
    msg = EmailMessage()
    msg["From"] = sender
    msg["To"] = HOST_ADDR
    msg["Subject"] = subject
    if mid:
        msg["Message-ID"] = f"<{mid}>"
    for k, v in (extra or {}).items():
        msg[k] = v
    if html is not None and body is None:
        msg.set_content(html, subtype="html")
    else:
        msg.set_content(body)
        if html is not None:
            msg.add_alternative(html, subtype="html")
    return bytes(msg)


def outbox(host: Host) -> list[tuple[str, EmailMessage]]:
    return [(f.name, parse(f.read_bytes())) for f in sorted(host.outbox_path.glob("*.eml"))]


def answers(host: Host, mid: str) -> list[EmailMessage]:
    return [m for _n, m in outbox(host) if str(m["In-Reply-To"] or "") == f"<{mid}>"]


def deliver(host: Host, raw: bytes) -> Path:
    return M.Maildir(host.inbox_path).deliver(raw)


class ImapServer:
    """A small IMAP4rev1 server on 127.0.0.1 speaking the part of the protocol
    the host uses (LOGIN, SELECT, UID SEARCH/FETCH/MOVE/COPY/STORE, EXPUNGE,
    CREATE), so the host's real imaplib client is tested over a real socket."""

    def __init__(self, user="referee@club.example", password="pw", move=True):
        import socketserver
        self.user, self.password, self.move = user, password, move
        self.folders: dict[str, list[list]] = {"INBOX": []}     # [uid, raw, deleted]
        self.next_uid = 1
        self.lock = threading.Lock()
        server = self

        class Handler(socketserver.StreamRequestHandler):
            def handle(self):
                server._session(self.rfile, self.wfile)

        class TCP(socketserver.ThreadingTCPServer):
            allow_reuse_address = True
            daemon_threads = True

        self.tcp = TCP(("127.0.0.1", 0), Handler)
        self.port = self.tcp.server_address[1]

    def __enter__(self):
        self.thread = threading.Thread(target=self.tcp.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
        self.thread.start()
        return self

    def __exit__(self, *exc):
        self.tcp.shutdown()
        self.tcp.server_close()
        return False

    def append(self, raw: bytes, folder="INBOX") -> None:
        with self.lock:
            self.folders.setdefault(folder, []).append([self.next_uid, raw, False])
            self.next_uid += 1

    def raws(self, folder: str) -> list[bytes]:
        with self.lock:
            return [m[1] for m in self.folders.get(folder, [])]

    def _session(self, rfile, wfile):
        import shlex

        def send(line: str | bytes):
            wfile.write(line if isinstance(line, bytes) else line.encode() + b"\r\n")
            wfile.flush()

        send("* OK test IMAP ready")
        selected = None
        for _ in range(10_000):                               # bounded: a session is short
            line = rfile.readline()
            if not line:
                return
            parts = shlex.split(line.decode().strip())
            if len(parts) < 2:
                continue
            tag, cmd, args = parts[0], parts[1].upper(), parts[2:]
            with self.lock:
                if cmd == "CAPABILITY":
                    send("* CAPABILITY IMAP4rev1" + (" MOVE" if self.move else ""))
                elif cmd == "LOGIN":
                    if args != [self.user, self.password]:
                        send(f"{tag} NO [AUTHENTICATIONFAILED] bad login")
                        continue
                elif cmd == "SELECT":
                    selected = args[0]
                    send(f"* {len(self.folders.get(selected, []))} EXISTS")
                    send(f"{tag} OK [READ-WRITE] SELECT done")
                    continue
                elif cmd == "CREATE":
                    self.folders.setdefault(args[0], [])
                elif cmd == "UID":
                    sub, rest = args[0].upper(), args[1:]
                    box = self.folders[selected]
                    if sub == "SEARCH":
                        send("* SEARCH " + " ".join(str(m[0]) for m in box if not m[2]))
                    elif sub == "FETCH":
                        for i, m in enumerate(box):
                            if str(m[0]) == rest[0]:
                                send(f"* {i + 1} FETCH (UID {m[0]} BODY[] {{{len(m[1])}}}".encode() + b"\r\n"
                                     + m[1] + b")\r\n")
                    elif sub in ("MOVE", "COPY"):
                        if rest[1] not in self.folders:
                            send(f"{tag} NO [TRYCREATE] no such folder")
                            continue
                        for m in list(box):
                            if str(m[0]) == rest[0]:
                                self.folders[rest[1]].append([m[0], m[1], False])
                                if sub == "MOVE":
                                    box.remove(m)
                    elif sub == "STORE":
                        for m in box:
                            if str(m[0]) == rest[0] and "Deleted" in " ".join(rest[2:]):
                                m[2] = True
                elif cmd == "EXPUNGE":
                    self.folders[selected] = [m for m in self.folders[selected] if not m[2]]
                elif cmd == "CLOSE":
                    selected = None
                elif cmd == "LOGOUT":
                    send("* BYE")
                    send(f"{tag} OK bye")
                    return
                send(f"{tag} OK {cmd} done")


def crash_once(monkeypatch, point: str) -> list[str]:
    """The next pass of the host's crash checkpoint ``point`` raises ``SimulatedCrash``
    (once); returns the list the points that fired are added to."""
    from pbem.host import SimulatedCrash, crash
    fired: list[str] = []

    def boom(name):
        if name == point and not fired:
            fired.append(name)
            raise SimulatedCrash(name)
    monkeypatch.setattr(crash, "checkpoint", boom)
    return fired
