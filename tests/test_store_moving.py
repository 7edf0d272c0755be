"""Moving a host between the stores: `pbem host import` (a file host into
PostgreSQL) and `pbem host export` (every game as today's files); the chains
come back byte for byte, and verify and audit work on the exported folders.
What the database keeps apart: sealed lines and secrets only in pbem_secrets,
which the reader role may not read."""
from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from mail_helpers import AXIS, BRITISH, CLOCK, deliver, make_host, message
from pbem.cli import main
from pbem.engine import Game
from pbem.host import Host

TURN1 = "move 8Pz 0612 0712 0812\nend\nattack 0913 with 8Pz\nend\n"
SEED = "dbcf34790826a38f229e9c0a6981efd72f99fe5578c7492e81c8f82cfc4edf89"


@pytest.fixture(autouse=True)
def fixed_clock(monkeypatch):
    monkeypatch.setenv("PBEM_CLOCK", CLOCK)
    monkeypatch.delenv("PBEM_HOST", raising=False)


def _file_host(root):
    """A file host with two games played a little by mail, a sealed secret among the orders."""
    host = make_host(root, period="72h")
    for gid in ("g1", "g2"):
        g = Game.create(host.cfg.games_dir / gid, "el-alamein", {"axis": AXIS, "british": BRITISH}, seed_hex=SEED,
                        game_id=gid, at=CLOCK)
        host.welcome(g)
        tok = json.loads((g.dir / "player-secrets.json").read_text())["axis"]
        deliver(host, message(AXIS, f"Token: {tok}\n{TURN1}secret plan strike at dawn {gid}\n",
                              subject=f"[pbem {gid}] orders", mid=f"m-{gid}@example.org"))
    host.poll()
    return host


def test_import_then_export_round_trips_every_chain_byte_for_byte(tmp_path, pg_url):
    files = _file_host(tmp_path / "files")
    db_root = tmp_path / "db"
    make_host(db_root)
    from pg_helpers import use_database
    use_database(db_root, pg_url)
    run = CliRunner()
    r = run.invoke(main, ["host", "import", str(files.cfg.root), "--host", str(db_root)])
    assert r.exit_code == 0, r.output
    assert "imported 2 game(s)" in r.output
    db = Host.open(db_root)
    assert sorted(db.games()) == ["g1", "g2"]
    # the journal came along: the same mail again is a duplicate there too
    assert db.store.job_get("m-g1@example.org")["status"] == "done"
    r = run.invoke(main, ["host", "export", str(tmp_path / "out"), "--host", str(db_root)])
    assert r.exit_code == 0, r.output
    for gid in ("g1", "g2"):
        src, out = files.cfg.games_dir / gid, tmp_path / "out" / gid
        for name in ("log.jsonl", "log.head", "scenario.toml", "seed", "player-secrets.json", "deadline.json",
                     "reported.json"):
            assert (out / name).read_bytes() == (src / name).read_bytes(), name
        assert (out / "log.jsonl").stat().st_mode & 0o077 == 0
        assert Game(out).verify().ok
        r = run.invoke(main, ["verify", str(out)])
        assert r.exit_code == 0, r.output
    r = run.invoke(main, ["audit", str(tmp_path / "out" / "g1"), str(tmp_path / "out" / "g2")])
    assert r.exit_code == 0, r.output


def test_sealed_lines_and_secrets_stay_in_the_table_the_reader_role_cannot_read(tmp_path, pg_url):
    import psycopg
    files = _file_host(tmp_path / "files")
    db_root = tmp_path / "db"
    make_host(db_root)
    from pg_helpers import use_database
    use_database(db_root, pg_url)
    assert CliRunner().invoke(main, ["host", "import", str(files.cfg.root), "--host", str(db_root)]).exit_code == 0
    with psycopg.connect(pg_url, autocommit=True) as c:
        public = b"".join(bytes(r[0]) for r in c.execute("SELECT line FROM pbem_events WHERE line IS NOT NULL"))
        assert b"GameCreated" in public and b"strike at dawn" not in public          # the sealed payload
        sealed = [r[0] for r in c.execute("SELECT name FROM pbem_secrets WHERE name LIKE 'line:%%'")]
        assert sealed                                                               # the SecretRecorded lines
        names = {r[0] for r in c.execute("SELECT DISTINCT name FROM pbem_secrets WHERE name NOT LIKE 'line:%%'")}
        assert names == {"seed", "player-secrets.json"}
        role = "auditor_" + pg_url.split("@/", 1)[1].split("?")[0]
        c.execute(f"CREATE ROLE {role} LOGIN IN ROLE pbem_reader")
    reader = pg_url.replace("postgresql://pbem@", f"postgresql://{role}@")
    with psycopg.connect(reader, autocommit=True) as c:
        assert c.execute("SELECT count(*) FROM pbem_heads").fetchone()[0] == 2
        lines = [r[0] for r in c.execute("SELECT line FROM pbem_events ORDER BY game, seq")]
        assert any(ln is None for ln in lines) and b"strike at dawn" not in b"".join(ln for ln in lines if ln)
        for table in ("pbem_secrets", "pbem_jobs", "pbem_outgoing", "pbem_docs"):
            with pytest.raises(psycopg.errors.InsufficientPrivilege):
                c.execute(f"SELECT * FROM {table}")
