"""`pbem host status` (issue 16): one row per hosted game, read from the
games, their deadlines, the journal, the spool and the quarantine, after
real mail went through a real Maildir and a real SMTP server."""
from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from mail_helpers import AXIS, CLOCK, SmtpCapture, deliver, make_host, message, new_game, secret
from pbem.cli import main
from pbem.host.status import board

TURN1 = "move 8Pz 0612 0712 0812\nend\n"

# the tests with a host run on both stores (conftest's store_kind: files and PostgreSQL)
both_stores = pytest.mark.usefixtures("store_kind")


@pytest.fixture(autouse=True)
def fixed_clock(monkeypatch):
    monkeypatch.setenv("PBEM_CLOCK", CLOCK)
    monkeypatch.delenv("PBEM_HOST", raising=False)


@both_stores
def test_status_board_one_row_per_game_with_deadline_mail_and_quarantine(tmp_path, monkeypatch):
    with SmtpCapture() as smtp:
        host = make_host(tmp_path / "host", smtp_port=smtp.port, period="72h")
        g1 = new_game(host, "g1", dice=[5, 3, 2, 4] * 8)
        new_game(host, "g2", dice=[5, 3, 2, 4] * 8)
        later = "2026-01-02T06:00:00Z"
        monkeypatch.setenv("PBEM_CLOCK", later)
        deliver(host, message(AXIS, f"Token: {secret(g1, 'axis')}\n{TURN1}", mid="m1@example.org"))
        deliver(host, message("stranger@nowhere.example", "move 8Pz 0612", subject="[pbem g1] hi",
                              mid="q1@example.org"))
        host.poll()
        assert smtp.messages                     # the answers really left by SMTP

    rows, text = board(host.cfg.root)
    by = {r["game"]: r for r in rows}
    assert sorted(by) == ["g1", "g2"]
    r1, r2 = by["g1"], by["g2"]
    assert r1["scenario"] == "el-alamein" and r1["turn"] == 1
    assert r1["waiting_for"] == ["German-Italian"] and r1["phase"] == "German-Italian combat"
    # the orders ended axis movement at 06:00 on day 2: the combat step's clock started then
    assert r1["deadline"] == "2026-01-05T06:00:00Z" and r1["left"] == "3d"
    assert r2["deadline"] == "2026-01-04T00:00:00Z" and r2["left"] == "1d18h"
    assert r1["last_in"] == later and r1["last_out"] == later
    assert r2["last_in"] == "" and r2["last_out"] == CLOCK          # only its welcome went out
    assert r1["quarantined"] == 1 and r2["quarantined"] == 0
    assert r1["spooled"] == 0
    assert "g1" in text and "el-alamein" in text and "1d18h" in text and "quarantined" in text

    monkeypatch.setenv("PBEM_CLOCK", "2026-01-05T00:00:00Z")
    rows, _ = board(host.cfg.root)
    assert {r["game"]: r["left"] for r in rows}["g2"] == "overdue 1d"


@both_stores
def test_host_status_command_table_and_json(tmp_path):
    host = make_host(tmp_path / "host")
    new_game(host, "g1", dice=[5, 3] * 8)
    r = CliRunner().invoke(main, ["host", "status", "--host", str(host.cfg.root)])
    assert r.exit_code == 0, r.output
    lines = r.output.splitlines()
    assert lines[0].startswith("Host status at 2026-01-01T00:00:00Z: 1 game(s)")
    assert lines[2].split()[:3] == ["game", "scenario", "turn"]
    assert lines[4].startswith("g1  ") and "el-alamein" in lines[4] and "none" in lines[4]   # period off
    r = CliRunner().invoke(main, ["host", "status", "--json", "--host", str(host.cfg.root)])
    row = json.loads(r.output.splitlines()[0])
    assert row["game"] == "g1" and row["deadline"] == "" and row["waiting_for"] == ["German-Italian"]


@both_stores
def test_a_broken_game_is_one_row_not_a_traceback(tmp_path):
    host = make_host(tmp_path / "host")
    g = new_game(host, "g1", dice=[5, 3] * 8)
    new_game(host, "g2", dice=[5, 3] * 8)
    g.store.write("scenario.toml", b"this is not toml [")
    (g.dir / "state.cache").unlink(missing_ok=True)             # the folder, or this machine's cache of the game
    rows, text = board(host)
    by = {r["game"]: r for r in rows}
    assert by["g2"]["scenario"] == "el-alamein"
    assert "g1" in by and (by["g1"]["problem"] or by["g1"]["scenario"])
    assert "Traceback" not in text


def test_time_left_is_shown_in_its_two_largest_units():
    from datetime import datetime, timedelta, timezone
    from pbem.host.status import _left
    now = datetime(2026, 1, 1, tzinfo=timezone.utc)
    assert _left(now + timedelta(days=9, hours=5, minutes=31, seconds=41), now) == "9d5h"
    assert _left(now + timedelta(hours=5, minutes=31, seconds=41), now) == "5h31m"
    assert _left(now + timedelta(minutes=3, seconds=41), now) == "3m41s"
    assert _left(now + timedelta(seconds=41), now) == "41s"
    assert _left(now - timedelta(hours=2, minutes=10, seconds=5), now) == "overdue 2h10m"
