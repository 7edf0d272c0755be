"""Deadlines as judges have them (issue 28): a clock and a days mask, a minimum and a
grace, lateness notices to everyone, then the default; per game and as host defaults;
each player's time zone (TIMEZONE, `pbem new --tz`); `pbem deadline --pause/--resume`
as a public event in the log; EXTEND agreed by every side.  Time through PBEM_CLOCK
only; the mail through a real SMTP server on loopback."""
from __future__ import annotations

import json
from datetime import datetime, time, timedelta, timezone

import pytest
from click.testing import CliRunner

from mail_helpers import (AXIS, BRITISH, CLOCK, HOST_ADDR, SmtpCapture, deliver, doc, folder_of, game_arg, message,
                          parse, reopen, secret, text_of, use_store)
from pbem.cli import main
from pbem.engine import Game
from pbem.host import Host, HostError
from pbem.host import clock as C

UTC = timezone.utc
DICE = "3,4,5,1,2,6,3,4,5,1,2,6"


def at(text: str) -> datetime:
    return datetime.fromisoformat(text.replace("Z", "+00:00"))


# --- the policy itself ----------------------------------------------------------------------

def test_the_clock_moves_a_deadline_to_the_next_allowed_time_of_day_in_its_zone():
    p = C.Policy(clock=time(23, 30), days=C.parse_days("-MTWTF-"), minimum=timedelta(hours=24),
                 zone="Europe/Berlin")
    # Friday 2 January 2026, 10:00 UTC: at least 24h is Saturday 10:00; the next 23:30 in Berlin on a
    # weekday is Monday 5 January, 23:30 CET = 22:30 UTC
    assert p.due(at("2026-01-02T10:00:00Z")) == at("2026-01-05T22:30:00Z")
    # Monday 10:00: 24h on is Tuesday 10:00, the same day's 23:30 CET
    assert p.due(at("2026-01-05T10:00:00Z")) == at("2026-01-06T22:30:00Z")
    # in summer time 23:30 in Berlin is 21:30 UTC
    assert p.due(at("2026-07-01T10:00:00Z")) == at("2026-07-02T21:30:00Z")
    # a period longer than the minimum counts from the start as well
    p72 = C.Policy(period=timedelta(hours=72), clock=time(23, 30), days="SMTWTFS", zone="UTC")
    assert p72.due(at("2026-01-01T00:00:00Z")) == at("2026-01-04T23:30:00Z")
    # days alone (no clock): moved on a whole day at a time, the time of day kept
    pd = C.Policy(period=timedelta(hours=24), days=C.parse_days("-MTWTF-"))
    assert pd.due(at("2026-01-02T10:00:00Z")) == at("2026-01-05T10:00:00Z")
    assert C.Policy().due(at(CLOCK)) is None and not C.Policy().on
    assert C.Policy(grace=timedelta(hours=12)).final(at(CLOCK)) == at("2026-01-01T12:00:00Z")


def test_the_settings_are_checked_in_one_line():
    assert C.parse_days("-mtwtf-") == "-MTWTF-" and C.parse_days("") == "SMTWTFS"
    assert C.parse_clock("9:05") == time(9, 5) and C.parse_clock("off") is None
    for bad in ("MTWTF", "-MTWTFX", "-------"):
        with pytest.raises(HostError):
            C.parse_days(bad)
    for bad in ("24:00", "23:60", "noon"):
        with pytest.raises(HostError):
            C.parse_clock(bad)
    with pytest.raises(HostError, match="not a time zone"):
        C.check_zone("Mars/Olympus_Mons")
    with pytest.raises(HostError, match="not a time zone"):
        C.check_zone("../../etc/passwd")
    assert C.show("2026-01-05T22:30:00Z", "Europe/Berlin") == \
        "2026-01-05T22:30:00Z (Monday 5 January, 23:30 CET in Europe/Berlin)"
    assert C.show("2026-01-05T22:30:00Z", "") == "2026-01-05T22:30:00Z"


# --- on a host ------------------------------------------------------------------------------

@pytest.fixture(autouse=True)
def env(monkeypatch):
    monkeypatch.setenv("PBEM_CLOCK", CLOCK)
    monkeypatch.delenv("PBEM_HOST", raising=False)


@pytest.fixture
def smtp(store_kind):
    """The loopback SMTP server of a host test: each of them runs on both stores (conftest)."""
    with SmtpCapture() as s:
        yield s


def run(*args):
    return CliRunner().invoke(main, [str(a) for a in args])


def clock_host(tmp_path, smtp, *extra) -> Host:
    """A host on loopback SMTP made by `pbem host init` alone, deadlines at 23:30 Berlin time on
    weekdays, at least 24h, 12h of grace."""
    r = run("host", "init", tmp_path / "h", "--address", HOST_ADDR, "--smtp", f"127.0.0.1:{smtp.port}",
            "--deadline", "off", "--clock", "23:30", "--days", "-MTWTF-", "--minimum", "24h", "--grace", "12h",
            "--zone", "Europe/Berlin", *extra)
    assert r.exit_code == 0, r.output
    cfg = tmp_path / "h" / "pbem-host.toml"
    cfg.write_text(cfg.read_text().replace("map_png = true", "map_png = false"))   # a faster test, not needed
    use_store(tmp_path / "h")                          # files, or a fresh database (conftest's store_kind)
    return Host.open(tmp_path / "h")


def new(host: Host, *extra):
    r = run("new", host.cfg.games_dir / "g1", "--scenario", "el-alamein", "--id", "g1", "--dice", DICE,
            "--player", f"axis={AXIS}", "--player", f"british={BRITISH}", *extra)
    assert r.exit_code == 0, r.output
    return Game(host.games()["g1"])                   # games/g1, or game g1 in the host's database


def poll(host: Host, when: str, monkeypatch):
    monkeypatch.setenv("PBEM_CLOCK", when)
    return run("mail", "poll", "--host", host.cfg.root)


def mails(smtp, addr: str) -> list[str]:
    """The text of every mail to ``addr``, its lines joined (the mail wraps long ones)."""
    return [" ".join(text_of(m).split()) for m in smtp.to(addr)]


def test_a_clock_with_grace_names_the_late_side_to_all_then_applies_the_default(tmp_path, smtp, monkeypatch):
    host = clock_host(tmp_path, smtp)
    monkeypatch.setenv("PBEM_HOST", str(host.cfg.root))
    new(host)
    # created Thursday 1 January 00:00 UTC: 24h on is Friday 00:00, the next 23:30 CET is Friday's
    welcome = mails(smtp, AXIS)[0]
    assert "due at 23:30 Europe/Berlin on Monday to Friday: the first such time at least 1d after it arises" \
        in welcome
    assert "Deadline for your movement: due by 2026-01-02T22:30:00Z; grace until 2026-01-03T10:30:00Z" in welcome
    assert "12h of grace" in welcome
    r = poll(host, "2026-01-01T22:29:59Z", monkeypatch)
    assert r.output.splitlines() == ["inbox empty"]
    r = poll(host, "2026-01-01T22:30:00Z", monkeypatch)          # the reminder, 24h before
    assert r.output.splitlines()[1:] == ["game g1: reminded axis of the movement due 2026-01-02T22:30:00Z",
                                         "sent 1 mail(s)"]
    n = len(smtp.messages)
    r = poll(host, "2026-01-02T22:29:59Z", monkeypatch)
    assert r.output.splitlines() == ["inbox empty"] and len(smtp.messages) == n
    r = poll(host, "2026-01-02T22:30:00Z", monkeypatch)
    assert r.exit_code == 0, r.output
    assert "game g1: axis is late for the movement due 2026-01-02T22:30:00Z; everyone told; the default " \
           "applies at 2026-01-03T10:30:00Z" in r.output and "sent 3 mail(s)" in r.output
    late = {a: mails(smtp, a)[-1] for a in (AXIS, BRITISH, HOST_ADDR)}
    assert all("LATE: the deadline for German-Italian's movement passed at 2026-01-02T22:30:00Z" in t
               for t in late.values())
    assert "You are late: orders are still taken until 2026-01-03T10:30:00Z" in late[AXIS]
    assert "German-Italian is late" in late[BRITISH]
    assert "(Friday 2 January, 23:30 CET in Europe/Berlin)" in late[HOST_ADDR]   # the referee: the host's zone
    seq = game_seq(host)
    r = poll(host, "2026-01-03T10:29:59Z", monkeypatch)
    assert r.output.splitlines() == ["inbox empty"] and game_seq(host) == seq
    r = poll(host, "2026-01-03T10:30:00Z", monkeypatch)
    assert "game g1: deadline passed for axis; applied the default (1 order(s))" in r.output
    assert game_seq(host) > seq
    # the next decision (axis combat) arose on Saturday: due the next weekday's 23:30 after 24h
    assert "Deadline for your attack-declarations: due by 2026-01-05T22:30:00Z" in mails(smtp, AXIS)[-1]
    # the policy in words is in every report too, each in its reader's zone
    for addr in (AXIS, BRITISH, HOST_ADDR):
        assert "due at 23:30 Europe/Berlin on Monday to Friday" in mails(smtp, addr)[-1]
        assert "12h of grace" in mails(smtp, addr)[-1]


def game_seq(host: Host) -> int:
    return Game(host.games()["g1"]).head()[0]


def test_a_game_sets_its_own_clock_over_the_hosts(tmp_path, smtp, monkeypatch):
    host = clock_host(tmp_path, smtp)
    monkeypatch.setenv("PBEM_HOST", str(host.cfg.root))
    g = new(host)
    assert "deadline clock: at 23:30 on Monday to Friday (Europe/Berlin); minimum 1d, grace 12h" in \
        run("host", "show").output
    r = run("deadline", game_arg(g), "--clock", "18:00", "--days", "SMTWTFS", "--grace", "off", "--zone", "UTC")
    assert r.exit_code == 0, r.output
    assert "for new decisions: Each decision the game waits for is due at 18:00 UTC on every day" in r.output
    r = run("deadline", game_arg(g), "--days", "S-----S")
    assert r.exit_code == 0 and "Sunday, Saturday" in r.output
    r = run("deadline", game_arg(g), "--clock", "25:00")
    assert r.exit_code == 1 and "--clock: '25:00' is not a time of day" in r.output
    r = run("deadline", game_arg(g), "--zone", "Nowhere/Land")
    assert r.exit_code == 1 and "not a time zone" in r.output
    r = run("host", "init", tmp_path / "h2", "--address", HOST_ADDR, "--days", "XMTWTF-")
    assert r.exit_code == 1 and "--days: 'XMTWTF-' is not a days mask" in r.output and not (tmp_path / "h2").exists()


def test_each_player_reads_times_in_utc_and_in_their_own_zone(tmp_path, smtp, monkeypatch):
    host = clock_host(tmp_path, smtp)
    monkeypatch.setenv("PBEM_HOST", str(host.cfg.root))
    g = new(host, "--tz", "british=America/New_York")
    assert "2026-01-02T22:30:00Z (Friday 2 January, 17:30 EST in America/New_York)" in mails(smtp, BRITISH)[0]
    assert "2026-01-02T22:30:00Z;" in mails(smtp, AXIS)[0] and "TIMEZONE Europe/Berlin" in mails(smtp, AXIS)[0]
    deliver(host, message(AXIS, f"Token: {secret(g, 'axis')}\nTIMEZONE Asia/Tokyo\nSTATUS\n"))
    r = poll(host, CLOCK, monkeypatch)
    assert r.exit_code == 0, r.output
    answer = mails(smtp, AXIS)[-1]
    assert "Your times are now in UTC and in Asia/Tokyo" in answer
    assert "Deadline for your movement: due by 2026-01-02T22:30:00Z (Saturday 3 January, 07:30 JST in " \
           "Asia/Tokyo)" in answer
    deliver(host, message(AXIS, f"Token: {secret(g, 'axis')}\nTIMEZONE Mars/Olympus\n", mid="m2@example.org"))
    poll(host, CLOCK, monkeypatch)
    assert "TIMEZONE: 'Mars/Olympus' is not a time zone this host knows" in mails(smtp, AXIS)[-1]
    r = run("new", tmp_path / "x", "--scenario", "el-alamein", "--tz", "axis=Mars/Olympus")
    assert r.exit_code == 2 and "not a time zone" in r.output and not (tmp_path / "x").exists()
    r = run("new", tmp_path / "x", "--scenario", "el-alamein", "--tz", "germans=UTC")
    assert r.exit_code == 2 and "no side 'germans'" in r.output and not (tmp_path / "x").exists()


def test_pause_and_resume_are_public_events_and_keep_the_time_left(tmp_path, smtp, monkeypatch):
    host = clock_host(tmp_path, smtp)
    monkeypatch.setenv("PBEM_HOST", str(host.cfg.root))
    g = new(host)
    r = run("deadline", game_arg(g), "--period", "72h", "--clock", "off", "--days", "SMTWTFS", "--minimum", "off")
    assert r.exit_code == 0, r.output
    assert host._deadlines(g)["waits"]                 # the movement's deadline, from the host's clock
    monkeypatch.setenv("PBEM_CLOCK", "2026-01-02T00:00:00Z")
    r = run("deadline", game_arg(g), "--pause")
    assert r.exit_code == 0 and "deadlines paused; the players were told" in r.output, r.output
    ev = reopen(g).entries()[-1].event
    assert type(ev).__name__ == "DeadlinesChanged" and ev.action == "paused" and ev.by == "host"
    assert "The host paused the deadlines" in mails(smtp, AXIS)[-1] and "paused the deadlines" in mails(smtp, BRITISH)[-1]
    assert run("deadline", game_arg(g), "--pause").exit_code == 1
    # past the deadline and its grace while paused: nothing happens
    seq = game_seq(host)
    r = poll(host, "2026-01-10T00:00:00Z", monkeypatch)
    assert game_seq(host) == seq and "late" not in r.output
    [row] = [json.loads(x) for x in run("host", "status", "--json").output.splitlines()]
    assert row["left"] == "paused"
    r = run("deadline", game_arg(g), "--resume")
    assert r.exit_code == 0 and "deadlines resumed" in r.output
    # the movement had 1d + 22.5h left of its first deadline (2026-01-02T22:30Z) when paused at 00:00
    assert "axis: movement due by 2026-01-10T22:30:00Z, grace until 2026-01-11T10:30:00Z" in r.output
    rep = reopen(g).verify()
    assert rep.ok, rep.problems
    r = run("explain", game_arg(g), str(game_seq(host)))
    assert r.exit_code == 0 and "no order" in r.output and "resumed the deadlines" in r.output


def test_extend_moves_the_deadlines_once_every_side_asked(tmp_path, smtp, monkeypatch):
    host = clock_host(tmp_path, smtp)
    monkeypatch.setenv("PBEM_HOST", str(host.cfg.root))
    g = new(host)
    due = host._deadlines(g)["waits"]
    before = {k: w["due"] for k, w in due.items()}
    deliver(host, message(AXIS, f"Token: {secret(g, 'axis')}\nEXTEND 2d\n"))
    poll(host, CLOCK, monkeypatch)
    assert "Your EXTEND 2d is noted. The deadlines move when British Commonwealth also send EXTEND 2d" \
        in " ".join(mails(smtp, AXIS)[-1].split())
    assert "German-Italian asks to extend the running deadlines by 2d" in " ".join(mails(smtp, BRITISH)[-1].split())
    assert {k: w["due"] for k, w in host._deadlines(g)["waits"].items()} == before
    # the same mail again (a re-delivery) counts once; another duration starts a new offer
    deliver(host, message(BRITISH, f"Token: {secret(g, 'british')}\nEXTEND 1d\n", mid="b1@example.org"))
    poll(host, CLOCK, monkeypatch)
    assert "The deadlines move when German-Italian also send EXTEND 1d" in " ".join(mails(smtp, BRITISH)[-1].split())
    deliver(host, message(BRITISH, f"Token: {secret(g, 'british')}\nEXTEND 1d\n", mid="b1@example.org"))
    poll(host, CLOCK, monkeypatch)
    deliver(host, message(AXIS, f"Token: {secret(g, 'axis')}\nEXTEND 1d\n", mid="m3@example.org"))
    r = poll(host, CLOCK, monkeypatch)
    assert r.exit_code == 0, r.output
    assert "Every side asked for it: the 1 running deadline(s) are now 1d later" in mails(smtp, AXIS)[-2] + \
        mails(smtp, AXIS)[-1]
    after = {k: w["due"] for k, w in host._deadlines(g)["waits"].items()}
    assert after == {k: (at(v) + timedelta(days=1)).strftime("%Y-%m-%dT%H:%M:%SZ") for k, v in before.items()}
    ev = reopen(g).entries()[-1].event
    assert type(ev).__name__ == "DeadlinesChanged" and (ev.action, ev.by, ev.text) == ("extended", "sides", "by 1d")
    assert reopen(g).verify().ok


def test_zones_come_from_the_tzdata_package_where_the_system_has_no_zone_database(tmp_path):
    import os
    import subprocess
    import sys
    env = dict(os.environ, PYTHONTZPATH=str(tmp_path))      # an empty folder: no system zone database
    code = ("import zoneinfo; from pbem.host import clock as C; assert zoneinfo.TZPATH == (%r,); "
            "print(C.show('2026-01-05T22:30:00Z', 'Europe/Berlin'))" % str(tmp_path))
    r = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=60)
    assert r.returncode == 0, r.stderr
    assert r.stdout.strip() == "2026-01-05T22:30:00Z (Monday 5 January, 23:30 CET in Europe/Berlin)"


def test_an_order_taken_during_the_grace_is_no_late_order_to_the_audit(tmp_path, smtp, monkeypatch):
    # The host keeps each running deadline's grace in deadline.json, which is all an audit
    # sees of the host: an order in the grace is a note there, one after it a warning.
    from pbem.referee.audit import NOTE, WARNING, audit
    host = clock_host(tmp_path, smtp)
    monkeypatch.setenv("PBEM_HOST", str(host.cfg.root))
    g = new(host)
    poll(host, "2026-01-02T23:00:00Z", monkeypatch)               # late: the deadline was 22:30
    dl = json.loads(doc(g, "deadline.json"))
    assert [w.get("grace") for w in dl["waits"].values()] == ["12h"]
    monkeypatch.setenv("PBEM_CLOCK", "2026-01-03T09:00:00Z")      # within the grace
    assert g.submit("axis", "move 8Pz 0612 0712", at="2026-01-03T09:00:00Z").refused is None
    (row,) = audit([folder_of(g, tmp_path / "export1")]).games
    late = [(f.severity, f.text) for f in row.findings if f.code == "deadline" and "applied at" in f.text]
    assert late == [(NOTE, "order 'move 8Pz 0612 0712' of axis was applied at 2026-01-03T09:00:00Z, after the "
                           "deadline of its movement (2026-01-02T22:30:00Z) but within its 12h of grace")]
    assert g.submit("axis", "move 115 0613", at="2026-01-03T11:00:00Z").refused is None
    (row,) = audit([folder_of(g, tmp_path / "export2")]).games
    late = [(f.severity, f.text) for f in row.findings if f.code == "deadline" and "applied at" in f.text]
    assert sorted(late)[1] == (WARNING, "order 'move 115 0613' of axis was applied at 2026-01-03T11:00:00Z, after the "
                                "deadline of its movement (2026-01-02T22:30:00Z and its 12h of grace)")
