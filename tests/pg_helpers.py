"""A throw-away PostgreSQL cluster for the tests of the database store.

``Cluster`` runs Debian's ``initdb`` into a temporary folder and ``pg_ctl`` on a
Unix socket in it (no TCP port), as the user running the tests, or, when that is
root (the server refuses to run as root), as the ``postgres`` user the Debian
package makes (or a ``pbem-pg`` user made here), or as an ordinary user of a
user namespace where no other user may enter ``/``.  Each test gets a database of
its own (``new_database``).  Without PostgreSQL on the machine the tests that
need it are skipped with the reason; with ``PBEM_REQUIRE_POSTGRES=1`` (set by
``.ci/run``) they fail instead.
"""
from __future__ import annotations

import glob
import itertools
import os
import pwd
import shutil
import subprocess
import tempfile
from pathlib import Path

import pytest

_counter = itertools.count()


def pg_bin(name: str) -> str | None:
    """Debian keeps the server's programs in /usr/lib/postgresql/N/bin, off the PATH."""
    found = sorted(glob.glob(f"/usr/lib/postgresql/*/bin/{name}"), key=lambda p: int(p.split("/")[4]))
    return found[-1] if found else shutil.which(name)


def missing() -> str:
    """Why the database tests cannot run here ('' when they can)."""
    try:
        import psycopg  # noqa: F401
        import psycopg_pool  # noqa: F401
    except ImportError:
        return "psycopg / psycopg-pool are not installed (the test extras install them)"
    if not pg_bin("initdb") or not pg_bin("pg_ctl"):
        return "PostgreSQL is not installed (Debian: apt-get install postgresql); the database store's tests need it"
    return ""


def require() -> None:
    why = missing()
    if why:
        if os.environ.get("PBEM_REQUIRE_POSTGRES") == "1":
            pytest.fail(f"PBEM_REQUIRE_POSTGRES=1 but {why}")
        pytest.skip(why)


def _as_other_user() -> tuple[list[str], str | None]:
    """How to run the server's programs when this is root (the server refuses to run
    as root): ``runuser`` to the ``postgres`` user (or a ``pbem-pg`` user made here),
    or, where no other user may even enter ``/`` (a root folder of mode 0700), a user
    namespace in which this process is an ordinary user (``unshare --map-user``).
    Returns the command prefix and the user who must own the folders (None: this one)."""
    if os.getuid() != 0:
        return [], None
    name = "postgres"
    try:
        pwd.getpwnam(name)
    except KeyError:
        name = "pbem-pg"
        try:
            pwd.getpwnam(name)
        except KeyError:
            subprocess.run(["useradd", "--system", "--no-create-home", name], capture_output=True, check=False)
    probe = subprocess.run(["runuser", "-u", name, "--", pg_bin("initdb"), "--version"], capture_output=True,
                           check=False)
    if probe.returncode == 0:
        return ["runuser", "-u", name, "--"], name
    return ["unshare", "--user", "--map-user=1000", "--map-group=1000"], None


class Cluster:
    def __init__(self, settings: dict[str, str] | None = None):
        self.prefix, self.user = _as_other_user()
        self.dir = Path(tempfile.mkdtemp(prefix="pbem-pg-"))
        self.data = self.dir / "data"
        self.sock = self.dir / "sock"
        self.sock.mkdir()
        if self.user:
            pw = pwd.getpwnam(self.user)
            for p in (self.dir, self.sock):
                os.chown(p, pw.pw_uid, pw.pw_gid)
        self.port = 5432 + os.getpid() % 20000           # only names the socket file: no TCP
        self.made: list[str] = []                        # the databases new_database made, in order
        self.settings = {"listen_addresses": "''", "unix_socket_directories": f"'{self.sock}'",
                         "port": str(self.port), "max_connections": "200", **(settings or {})}

    def _run(self, *args: str) -> subprocess.CompletedProcess:
        cmd = self.prefix + list(args)
        return subprocess.run(cmd, capture_output=True, text=True, check=False)

    def start(self) -> "Cluster":
        r = self._run(pg_bin("initdb"), "-D", str(self.data), "-A", "trust", "-U", "pbem", "--no-sync",
                      "-E", "UTF8", "--locale=C")
        if r.returncode:
            raise RuntimeError(f"initdb failed: {r.stderr.strip()}")
        with open(self.data / "postgresql.conf", "a") as f:
            for k, v in self.settings.items():
                f.write(f"{k} = {v}\n")
        r = self._run(pg_bin("pg_ctl"), "-D", str(self.data), "-l", str(self.dir / "server.log"), "-w", "-t", "60",
                      "start")
        if r.returncode:
            log = (self.dir / "server.log").read_text() if (self.dir / "server.log").exists() else ""
            raise RuntimeError(f"pg_ctl start failed: {r.stderr.strip()} {log[-2000:]}")
        return self

    def server_cpu(self) -> float:
        """CPU seconds the server used so far (the postmaster and its ended backends)."""
        try:
            pid = int((self.data / "postmaster.pid").read_text().split()[0])
            fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
            return sum(int(x) for x in fields[11:15]) / os.sysconf("SC_CLK_TCK")
        except (OSError, ValueError, IndexError):
            return 0.0

    def stop(self) -> None:
        log = os.environ.get("PBEM_PG_CPU_LOG")           # the benchmark of the suite's database variant
        if log:
            with open(log, "a") as f:
                f.write(f"{self.server_cpu():.2f}\n")
        self._run(pg_bin("pg_ctl"), "-D", str(self.data), "-m", "immediate", "-w", "stop")
        shutil.rmtree(self.dir, ignore_errors=True)

    def url(self, db: str = "postgres") -> str:
        return f"postgresql://pbem@/{db}?host={self.sock}&port={self.port}"

    def new_database(self, schema: bool = False) -> str:
        """A fresh database; with ``schema`` already holding pbem's tables (a copy of a
        template made once per cluster: half the server's work of making them anew)."""
        import psycopg
        name = f"t{os.getpid()}_{next(_counter)}"
        template = f" TEMPLATE {self._template()}" if schema else ""
        with psycopg.connect(self.url(), autocommit=True) as c:
            c.execute(f"CREATE DATABASE {name}{template}")
        self.made.append(name)
        return self.url(name)

    def _template(self) -> str:
        if not getattr(self, "_has_template", False):
            import psycopg
            from pbem.store.pg import PgStore
            with psycopg.connect(self.url(), autocommit=True) as c:
                c.execute("CREATE DATABASE pbem_template")
            PgStore(self.url("pbem_template"), cache_root=self.dir / "cache").close()   # no session may stay
            self._has_template = True
        return "pbem_template"

    def drop_since(self, n: int) -> None:
        """Drop the databases made after the first ``n`` (a host test's), closing this
        process's pools on them first: a worker's cluster serves hundreds of tests."""
        import psycopg
        from pbem.store.pg import PgStore
        names, self.made[n:] = self.made[n:], []
        for key, store in list(PgStore._open.items()):
            if any(store.url == self.url(name) for name in names):
                store.close()
        with psycopg.connect(self.url(), autocommit=True) as c:
            for name in names:
                c.execute(f"DROP DATABASE IF EXISTS {name} WITH (FORCE)")


def use_database(root: Path, url: str) -> None:
    """Point the host folder ``root`` at the database ``url`` ([store] url)."""
    cfg = root / "pbem-host.toml"
    head, sep, store = cfg.read_text().partition("\n[store]")
    example = '# url = "postgresql://USER@HOST/DB"'
    assert sep and example in store
    cfg.write_text(head + sep + store.replace(example, f'url = "{url}"', 1))
