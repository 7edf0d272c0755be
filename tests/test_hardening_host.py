"""Issue 24, items 3, 8 and 11: ABSENT is capped per player per span of time and
STATUS says what is left (3); the host's configuration bounds every duration,
refuses a zero period and system folders, and every error is one line (8);
every `-o PATH` writes only to a regular file or a new path (11)."""
from __future__ import annotations

import os
import resource
import stat
import subprocess
import sys
from datetime import timedelta

import pytest
from click.testing import CliRunner

from mail_helpers import AXIS, CLOCK, deliver, game_arg, make_host, message, new_game, outbox, secret, text_of
from pbem.cli import main
from pbem.host import absence as A
from pbem.host.common import parse_time

DICE = [5, 3, 2, 4, 1, 6, 3, 3, 2, 5, 4, 1]


@pytest.fixture(autouse=True)
def fixed_clock(monkeypatch):
    monkeypatch.setenv("PBEM_CLOCK", CLOCK)
    monkeypatch.delenv("PBEM_HOST", raising=False)


# the tests with a host run on both stores (conftest's store_kind: files and PostgreSQL)
both_stores = pytest.mark.usefixtures("store_kind")


def run(*args, input=None):
    return CliRunner().invoke(main, [str(a) for a in args], input=input)


def edit(root, old: str, new: str) -> None:
    p = root / "pbem-host.toml"
    text = p.read_text()
    assert old in text, old
    p.write_text(text.replace(old, new, 1))


# --- 3. ABSENT within any span of time ------------------------------------------------------

def away(host, game, now, day: int, until_day: int, n: int) -> str:
    now[0] = parse_time(CLOCK) + timedelta(days=day)
    until = (parse_time(CLOCK) + timedelta(days=until_day)).strftime("%Y-%m-%d")
    deliver(host, message(AXIS, f"Token: {secret(game, 'axis')}\nABSENT until {until}\nSTATUS\n", mid=f"a{n}@x"))
    host.poll()
    [ans] = [m for _n, m in outbox(host) if str(m["In-Reply-To"]) == f"<a{n}@x>"]
    return " ".join(text_of(ans).split())


def worst_window(host, game, now) -> timedelta:
    dl = host._deadlines(game)
    items = A.spans(dl, "axis", parse_time(CLOCK) - timedelta(days=400), timedelta(days=30))
    return A._worst(items, timedelta(days=30)), sum((b - a for a, b in items), timedelta())


@both_stores
def test_absent_cannot_be_renewed_from_each_mail(tmp_path):
    now = [parse_time(CLOCK)]
    host = make_host(tmp_path / "h", now=lambda: now[0])
    game = new_game(host, dice=DICE)
    said = [away(host, game, now, day, day + 14, n) for n, day in enumerate((0, 13, 26, 39, 52, 65))]
    assert "You are marked absent until 2026-01-15T00:00:00Z" in said[0]
    assert "marked absent until 2026-01-15T00:00:00Z already" in said[1] and "nothing changed" in said[1]
    assert "away 14d within the last 30d already" in said[2] and "nothing changed" in said[2]
    worst, total = worst_window(host, game, now)
    assert worst <= timedelta(days=14)                  # in any 30 days, 14 days away at most
    assert total <= timedelta(days=42)                  # six mails held the game 81 days before
    assert "ABSENT: none is left now (this host allows 14d at most in any 30d)" in said[3]


@both_stores
def test_status_tells_how_much_absence_is_left(tmp_path):
    now = [parse_time(CLOCK)]
    host = make_host(tmp_path / "h", now=lambda: now[0])
    game = new_game(host, dice=DICE)
    t = away(host, game, now, 0, 5, 0)
    assert "ABSENT: 9d more is left: an ABSENT sent now could reach 2026-01-15T00:00:00Z (this host allows " \
           "14d at most in any 30d)." in t
    t = away(host, game, now, 3, 30, 1)                 # while away: only up to the 14 days
    assert "You are marked absent until 2026-01-15T00:00:00Z" in t and "none is left now" in t


@both_stores
def test_the_span_is_configurable(tmp_path):
    now = [parse_time(CLOCK)]
    root = tmp_path / "h"
    make_host(root)
    edit(root, 'absence_window = "30d"', 'absence_window = "60d"')
    from pbem.host import Host
    host = Host.open(root, now=lambda: now[0])
    game = new_game(host, dice=DICE)
    away(host, game, now, 0, 14, 0)
    assert "nothing changed" in away(host, game, now, 31, 45, 1)          # 14 days within these 60 already
    assert "marked absent until 2026-03-17" in away(host, game, now, 61, 75, 2)


# --- 8. the host's configuration -------------------------------------------------------------

@pytest.mark.parametrize("old, new, says", [
    ('period = "off"', 'period = "999999999d"', "deadlines.period: '999999999d' is longer than 365 days"),
    ('period = "off"', 'period = "' + "9" * 5000 + 'd"', "deadlines.period: "),
    ('period = "off"', 'period = "0h"', "deadlines.period: '0h' is no time at all"),
    ('absence = "14d"', 'absence = "999999999d"', "deadlines.absence: '999999999d' is longer than 365 days"),
    ('reminder = "24h"', 'reminder = "99999999999d"', "deadlines.reminder: "),
    ('absence_window = "30d"', 'absence_window = "7d"', "deadlines.absence_window: '7d' is shorter than"),
    ("interval = 60", "interval = 1000000000000", "serve.interval: "),
    ('outbox = "outbox"', 'outbox = "/etc"', "outgoing.outbox: /etc is a system folder"),
    ('maildir = "inbox"', 'maildir = "/usr/share"', "incoming.maildir: /usr/share is inside /usr"),
    ('games = "games"', 'games = "/"', "games: / is a system folder"),
    ('max_bytes = 1000000', 'max_bytes = 5000', "outgoing.max_bytes: 5000 is below 20KB"),
])
@pytest.mark.parametrize("command", [("host", "show"), ("host", "status"), ("mail", "poll")])
def test_a_bad_duration_or_folder_is_one_line(tmp_path, old, new, says, command):
    root = tmp_path / "h"
    make_host(root)
    edit(root, old, new)
    r = run(*command, "--host", root)
    assert isinstance(r.exception, SystemExit) and r.exit_code == 1, r.exception
    out = r.output.strip()
    assert len(out.splitlines()) == 1 and "Traceback" not in out and says in out, out


@both_stores
def test_deadline_extend_and_period_are_bounded(tmp_path):
    root = tmp_path / "h"
    host = make_host(root, period="72h")
    game = new_game(host, dice=DICE)
    for args, says in ((("--extend", "999999999d"), "longer than 365 days"), (("--period", "0h"), "no time at all"),
                       (("--extend", "0h"), "no time at all")):
        r = run("deadline", game_arg(game), "--host", root, *args)
        assert isinstance(r.exception, SystemExit) and r.exit_code == 1, r.exception
        assert len(r.output.strip().splitlines()) == 1 and says in r.output, r.output


def _limited():
    resource.setrlimit(resource.RLIMIT_AS, (1 << 30, 1 << 30))    # the old reader of /dev/zero: a MemoryError


@pytest.mark.parametrize("what", ["deep", "zero", "fifo", "folder"])
def test_a_hostile_config_file_is_one_line_and_never_hangs(tmp_path, what):
    root = tmp_path / "h"
    make_host(root)
    cfg = root / "pbem-host.toml"
    cfg.unlink()
    if what == "deep":
        cfg.write_text("a = " + "[" * 3000 + "]" * 3000 + "\n")
    elif what == "zero":
        cfg.symlink_to("/dev/zero")
    elif what == "fifo":
        os.mkfifo(cfg)
    else:
        cfg.mkdir()
    r = subprocess.run([sys.executable, "-m", "pbem", "host", "show", "--host", str(root)], capture_output=True,
                       text=True, timeout=30, preexec_fn=_limited)
    assert r.returncode == 1, r.stderr[-500:]
    assert len(r.stderr.strip().splitlines()) == 1 and "Traceback" not in r.stderr, r.stderr[-500:]
    assert str(cfg) in r.stderr


# --- 11. -o PATH -------------------------------------------------------------------------------

@pytest.fixture
def game_dir(tmp_path):
    g = tmp_path / "g"
    assert run("new", g, "--scenario", "el-alamein", "--dice", "5,3,2,4,1,6", "--id", "o").exit_code == 0
    return g


@pytest.mark.parametrize("cmd", [("replay",), ("report", "--as", "axis")])
def test_output_through_a_symbolic_link_is_refused_and_the_link_kept(game_dir, tmp_path, cmd):
    target = tmp_path / "precious.txt"
    target.write_text("keep me")
    link = tmp_path / "out.html"
    link.symlink_to(target)
    r = run(cmd[0], game_dir, *cmd[1:], "-o", link)
    assert r.exit_code == 1 and "is a symbolic link" in r.output and "nothing was written" in r.output, r.output
    assert link.is_symlink() and os.readlink(link) == str(target) and target.read_text() == "keep me"


@pytest.mark.parametrize("cmd", [("replay",), ("report", "--as", "axis")])
def test_output_to_a_fifo_is_refused_and_the_fifo_kept(game_dir, tmp_path, cmd):
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    reader = os.open(fifo, os.O_RDONLY | os.O_NONBLOCK)      # a reader: a writer that opens it does not hang
    try:
        r = run(cmd[0], game_dir, *cmd[1:], "-o", fifo)
    finally:
        os.close(reader)
    assert r.exit_code == 1 and "FIFO" in r.output and "nothing was written" in r.output, r.output
    assert stat.S_ISFIFO(os.lstat(fifo).st_mode)


def test_report_to_a_device_is_refused(game_dir):
    r = run("report", game_dir, "--as", "axis", "-o", "/dev/null")
    assert r.exit_code == 1 and "/dev/null is a character device" in r.output, r.output
    assert stat.S_ISCHR(os.lstat("/dev/null").st_mode)


def test_output_to_a_regular_file_or_a_new_path_is_written(game_dir, tmp_path):
    old = tmp_path / "page.html"
    old.write_text("old")
    assert run("replay", game_dir, "-o", old).exit_code == 0
    assert old.read_text().startswith("<!DOCTYPE html") and stat.S_IMODE(old.stat().st_mode) == 0o600
    new = tmp_path / "report.txt"
    assert run("report", game_dir, "--as", "axis", "-o", new).exit_code == 0 and "WAITING FOR" in new.read_text()
