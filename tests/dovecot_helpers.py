"""A real IMAP server for the tests: Debian's Dovecot (package dovecot-imapd), started on
loopback with its own configuration in a temporary folder, throw-away users in a
passwd-file, and no system service.  `.ci/run` installs the package when it is missing;
with PBEM_REQUIRE_DOVECOT=1 (CI) a test that needs it fails instead of being skipped.

As root (CI, this machine) Dovecot's mail processes may not run as root, and a user
other than root may not enter the machine's folders, so each mail user's home is
reached through a chroot (``home=ROOT/./USER``), entered while still root.  As
another user everything runs as that user, without a chroot.

``Proxy`` sits between the host and Dovecot on another loopback port: it sees the
client's commands (no IDLE is ever sent), can run a callback before forwarding one,
and can cut the connection in the middle of a FETCH answer."""
from __future__ import annotations

import contextlib
import imaplib
import os
import pwd
import shutil
import signal
import socket
import subprocess
import tempfile
import threading
import time
from pathlib import Path

import pytest

DOVECOT = "/usr/sbin/dovecot"
DOVEADM = "/usr/bin/doveadm"
PASSWORD = "throw-away-pw"
USERS = 40                     # throw-away users, one per test that asks (per test process)


def dovecot_or_skip() -> None:
    if os.path.exists(DOVECOT) and os.path.exists(DOVEADM):
        return
    why = f"Dovecot is not installed ({DOVECOT}; Debian: apt-get install dovecot-imapd)"
    if os.environ.get("PBEM_REQUIRE_DOVECOT"):
        pytest.fail(why + "; PBEM_REQUIRE_DOVECOT is set, so the IMAP tests must run")
    pytest.skip(why)


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Dovecot:
    """One Dovecot master on 127.0.0.1:``port`` with its own base folder."""

    def __init__(self):
        self.root = Path(tempfile.mkdtemp(prefix="pbem-dovecot-"))
        self.port = _free_port()
        self.conf = self.root / "dovecot.conf"
        self.passwd = self.root / "passwd"
        self.mail = self.root / "mail"
        self.mail.mkdir()
        # every user written before the start: Dovecot re-reads a changed passwd-file by its
        # mtime, which two changes within one second would not change
        self._free = [f"referee{n}@club.example" for n in range(1, USERS + 1)]
        self.passwd.write_text("".join(f"{u}:{{PLAIN}}{PASSWORD}::::::\n" for u in self._free))
        root = os.geteuid() == 0
        me = pwd.getpwuid(os.geteuid()).pw_name
        if root:
            mail_user = pwd.getpwnam("nobody")
            self.uid, self.gid = mail_user.pw_uid, mail_user.pw_gid
            home = f"{self.mail}/./%u"
            users = (f"first_valid_uid = {self.uid}\nvalid_chroot_dirs = {self.mail}\n"
                     "service auth {\n  user = root\n}\nservice auth-worker {\n  user = root\n}\n")
        else:
            self.uid, self.gid = os.geteuid(), os.getegid()
            home = f"{self.mail}/%u"
            users = (f"first_valid_uid = {self.uid}\ndefault_internal_user = {me}\ndefault_login_user = {me}\n"
                     "service anvil {\n  chroot =\n}\nservice imap-login {\n  chroot =\n}\n")
        os.chown(self.mail, self.uid, self.gid)
        self.conf.write_text(f"""# a throw-away Dovecot for pbem's tests: loopback only, no TLS, its own folders
protocols = imap
listen = 127.0.0.1
base_dir = {self.root}/run
state_dir = {self.root}/state
log_path = {self.root}/dovecot.log
ssl = no
disable_plaintext_auth = no
auth_mechanisms = plain login
auth_failure_delay = 0
mail_location = maildir:~/Maildir
passdb {{
  driver = passwd-file
  args = scheme=PLAIN {self.passwd}
}}
userdb {{
  driver = static
  args = uid={self.uid} gid={self.gid} home={home}
}}
service imap-login {{
  inet_listener imap {{
    address = 127.0.0.1
    port = {self.port}
  }}
}}
{users}""")
        os.chmod(self.root, 0o711)

    def start(self) -> "Dovecot":
        # the daemon keeps what it inherits open: no pipes, or run() would wait for it to exit
        with open(self.root / "start.log", "wb") as out:
            subprocess.run([DOVECOT, "-c", str(self.conf)], check=True, stdout=out, stderr=out,
                           stdin=subprocess.DEVNULL, timeout=30)
        deadline = time.monotonic() + 15
        while time.monotonic() < deadline:
            with contextlib.suppress(OSError):
                socket.create_connection(("127.0.0.1", self.port), timeout=1).close()
                return self
            time.sleep(0.05)
        raise RuntimeError(f"Dovecot did not start: {self.log()}")

    def stop(self) -> None:
        """The master (and with it every process it started) told to end, by its own pid."""
        try:
            pid = int((self.root / "run" / "master.pid").read_text().split()[0])
            os.kill(pid, signal.SIGTERM)
            deadline = time.monotonic() + 10
            while time.monotonic() < deadline:
                os.kill(pid, 0)
                time.sleep(0.02)
        except (OSError, ValueError, IndexError):
            pass                                    # gone (ProcessLookupError), or never started
        shutil.rmtree(self.root, ignore_errors=True)

    def log(self) -> str:
        try:
            return (self.root / "dovecot.log").read_text()
        except OSError:
            return ""

    def new_user(self) -> str:
        """A throw-away mail user (its address); its password is PASSWORD."""
        user = self._free.pop(0)
        home = self.mail / user
        home.mkdir()
        os.chown(home, self.uid, self.gid)
        return user

    def client(self, user: str) -> imaplib.IMAP4:
        c = imaplib.IMAP4("127.0.0.1", self.port, timeout=10)
        c.login(user, PASSWORD)
        return c

    def append(self, user: str, raw: bytes, folder: str = "INBOX") -> None:
        c = self.client(user)
        try:
            c.create(folder)
            typ, data = c.append(folder, None, None, raw)
            assert typ == "OK", data
        finally:
            c.logout()

    def raws(self, user: str, folder: str = "INBOX") -> list[bytes]:
        c = self.client(user)
        try:
            typ, _ = c.select(folder, readonly=True)
            if typ != "OK":
                return []
            _, data = c.uid("SEARCH", None, "ALL")
            out = []
            for uid in (data[0] or b"").split():
                _, parts = c.uid("FETCH", uid, "(BODY.PEEK[])")
                out += [p[1] for p in parts if isinstance(p, tuple)]
            return out
        finally:
            c.logout()

    def doveadm(self, *args: str) -> str:
        r = subprocess.run([DOVEADM, "-c", str(self.conf), *args], capture_output=True, text=True, timeout=30)
        assert r.returncode == 0, r.stderr
        return r.stdout


class Proxy:
    """127.0.0.1:``port`` -> Dovecot, one connection at a time, recording the client's commands.
    ``before(command_line)`` runs before a client line is forwarded; ``cut_fetch`` (a count)
    closes the connection after that many bytes of the next FETCH answer's literal."""

    def __init__(self, target_port: int):
        self.target = target_port
        self.commands: list[str] = []
        self.before = None
        self.cut_fetch: int | None = None
        self.cuts = 0
        self.sock = socket.socket()
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen(8)
        self.port = self.sock.getsockname()[1]
        threading.Thread(target=self._serve, daemon=True).start()

    def _serve(self):
        while True:
            try:
                client, _ = self.sock.accept()
            except OSError:
                return
            threading.Thread(target=self._session, args=(client,), daemon=True).start()

    def _session(self, client: socket.socket):
        server = socket.create_connection(("127.0.0.1", self.target))
        done = threading.Event()

        def up():
            buf = b""
            try:
                while not done.is_set():
                    data = client.recv(65536)
                    if not data:
                        break
                    buf += data
                    while b"\r\n" in buf:
                        line, buf = buf.split(b"\r\n", 1)
                        text = line.decode("utf-8", "replace")
                        self.commands.append(text)
                        if self.before:
                            self.before(text)
                        server.sendall(line + b"\r\n")
            except OSError:
                pass
            finally:
                done.set()

        def down():
            try:
                while not done.is_set():
                    data = server.recv(65536)
                    if not data:
                        break
                    if self.cut_fetch is not None and b" FETCH (" in data and b"BODY[]" in data:
                        start = data.index(b"}\r\n") + 3 if b"}\r\n" in data else 0
                        client.sendall(data[:start + self.cut_fetch])
                        self.cut_fetch = None
                        self.cuts += 1
                        break                       # the connection drops in the middle of the message
                    client.sendall(data)
            except OSError:
                pass
            finally:
                done.set()
                for s in (client, server):
                    with contextlib.suppress(OSError):
                        s.shutdown(socket.SHUT_RDWR)
                    s.close()
        threading.Thread(target=up, daemon=True).start()
        down()

    def close(self):
        self.sock.close()
