"""A host that says what went wrong, where the host is looking (issue 28): `host init`
on a loopback server, welcomes that wait instead of "mailed", `mail poll` and `serve
--once` printing what they did and what failed (exit 1), `host status` showing stuck
mail with its last error and the sides nobody plays.  Real mail: a real SMTP server on
loopback (aiosmtpd), real Maildirs."""
from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from mail_helpers import AXIS, BRITISH, CLOCK, HOST_ADDR, SmtpCapture, make_host, new_game
from pbem.cli import main
from pbem.host import Host


@pytest.fixture(autouse=True)
def env(monkeypatch):
    monkeypatch.setenv("PBEM_CLOCK", CLOCK)
    for k in ("PBEM_HOST", "PBEM_SMTP_PASSWORD", "PBEM_IMAP_PASSWORD"):
        monkeypatch.delenv(k, raising=False)


# the tests with a host made by make_host run on both stores (conftest's store_kind: files and PostgreSQL)
both_stores = pytest.mark.usefixtures("store_kind")


def run(*args, env=None):
    return CliRunner().invoke(main, [str(a) for a in args], env=env)


def test_host_init_on_a_loopback_server_needs_no_edit_to_send(tmp_path, monkeypatch):
    with SmtpCapture() as smtp:
        r = run("host", "init", tmp_path / "h", "--address", HOST_ADDR, "--smtp", f"127.0.0.1:{smtp.port}")
        assert r.exit_code == 0, r.output
        assert "(none, without a login)" in r.output and "PBEM_SMTP_PASSWORD" not in r.output
        cfg = (tmp_path / "h" / "pbem-host.toml").read_text()
        assert 'security = "none"' in cfg and 'user = ""' in cfg
        monkeypatch.chdir(tmp_path / "h")
        r = run("new", "games/g1", "--scenario", "el-alamein", "--id", "g1", "--dice", "3,4,5",
                "--player", f"axis={AXIS}", "--player", f"british={BRITISH}")
        assert r.exit_code == 0, r.output
        assert f"welcome mailed to axis <{AXIS}>, british <{BRITISH}>" in r.output
        assert sorted(rc[0] for _f, rc, _raw in smtp.messages) == sorted([AXIS, BRITISH, HOST_ADDR])
        r = run("mail", "poll")
        assert r.exit_code == 0 and "inbox empty" in r.output


def test_host_init_keeps_tls_and_a_login_for_a_remote_server(tmp_path):
    r = run("host", "init", tmp_path / "h", "--address", HOST_ADDR, "--smtp", "smtp.club.example:587")
    assert r.exit_code == 0, r.output
    cfg = (tmp_path / "h" / "pbem-host.toml").read_text()
    assert 'security = "starttls"' in cfg and f'user = "{HOST_ADDR}"' in cfg


@pytest.mark.parametrize("setting, error", [
    ('security = "starttls"', "STARTTLS extension not supported by server"),
    ('security = "none"\nuser = "referee"', "no password was found"),
])
@both_stores
def test_a_welcome_that_could_not_go_is_waiting_and_poll_fails_with_the_reason(tmp_path, monkeypatch,
                                                                               setting, error):
    with SmtpCapture() as smtp:
        host = make_host(tmp_path / "h", smtp_port=smtp.port)
        cfg = host.cfg.root / "pbem-host.toml"
        good = cfg.read_text()
        cfg.write_text(good.replace('security = "none"', setting, 1))
        monkeypatch.chdir(host.cfg.root)
        r = run("new", "games/g1", "--scenario", "el-alamein", "--id", "g1", "--dice", "3,4,5",
                "--player", f"axis={AXIS}", "--player", f"british={BRITISH}")
        assert r.exit_code == 0, r.output
        assert "welcome mailed" not in r.output
        assert f"the welcome to axis <{AXIS}> was NOT sent: it waits in the spool" in r.output
        assert error in r.output and smtp.messages == []

        r = run("mail", "poll")
        assert r.exit_code == 1
        assert "inbox empty" in r.output and error in r.output and "3 mail(s) wait in the spool" in r.output
        r = run("serve", "--once")
        assert r.exit_code == 1 and error in r.output

        r = run("host", "status")
        assert r.exit_code == 0
        assert "Mail not delivered (3):" in r.output
        assert f"welcome to {AXIS}: waiting in the spool, 3 tries since {CLOCK}" in r.output
        assert f"last error: SMTP 127.0.0.1:{smtp.port}: {error}" in r.output or error in r.output
        [row] = [json.loads(x) for x in run("host", "status", "--json").output.splitlines()]
        assert len(row["undelivered"]) == 3 and all(error in m["error"] for m in row["undelivered"])

        cfg.write_text(good)                       # the host's operator fixes it
        r = run("mail", "poll")
        assert r.exit_code == 0, r.output
        assert "sent 3 mail(s)" in r.output and len(smtp.messages) == 3
        assert "Mail not delivered" not in run("host", "status").output


@both_stores
def test_a_mail_no_server_takes_is_set_aside_and_shown_with_the_servers_words(tmp_path):
    with SmtpCapture(refuse=(BRITISH,)) as smtp:
        host = make_host(tmp_path / "h", smtp_port=smtp.port)
        new_game(host)
        assert len(smtp.messages) == 2
        assert any("cannot be delivered" in p for p in host.flush_problems)
        out = run("host", "status", "--host", host.cfg.root).output
        assert f"welcome to {BRITISH}: set aside (no server will take it), 1 try" in out
        assert "550 5.1.1 no such mailbox" in out


@both_stores
def test_mail_poll_says_what_it_did_reminders_deadlines_and_mails(tmp_path, monkeypatch):
    with SmtpCapture() as smtp:
        host = make_host(tmp_path / "h", smtp_port=smtp.port, period="72h", reminder="24h")
        new_game(host, dice=[3, 4, 5] * 8)
        before = len(smtp.messages)
        monkeypatch.setenv("PBEM_CLOCK", "2026-01-03T01:00:00Z")         # 49 h: inside the reminder's 24 h
        r = run("mail", "poll", "--host", host.cfg.root)
        assert r.exit_code == 0, r.output
        assert "game g1: reminded axis of the movement due 2026-01-04T00:00:00Z" in r.output
        assert "sent 1 mail(s)" in r.output and len(smtp.messages) == before + 1
        monkeypatch.setenv("PBEM_CLOCK", "2026-01-04T00:00:00Z")
        r = run("mail", "poll", "--host", host.cfg.root)
        assert r.exit_code == 0, r.output
        assert "game g1: deadline passed for axis; applied the default (1 order(s))" in r.output
        assert "sent 3 mail(s)" in r.output                # two sides and the referee
        r = run("mail", "poll", "--host", host.cfg.root)
        assert r.output.splitlines() == ["inbox empty"]


def test_a_side_with_no_player_is_warned_by_new_and_shown_by_status(tmp_path, monkeypatch, store_kind):
    host = make_host(tmp_path / "h", period="72h")
    monkeypatch.chdir(host.cfg.root)
    r = run("new", "games/g1", "--scenario", "el-alamein", "--id", "g1", "--dice", "3,4,5",
            "--player", f"axis={AXIS}")
    assert r.exit_code == 0, r.output
    assert "warning: side british (British Commonwealth) has no player: nobody gets its mail, and its steps run on the " \
           "deadline defaults" in r.output
    game = "games/g1" if store_kind == "files" else "g1"              # the folder, or the id in the database
    assert f"(`pbem host rotate-secret {game} british " \
           "--email ADDRESS` gives it one)" in r.output
    out = run("host", "status").output
    assert "Sides with no player" in out and "  g1  british" in out
    [row] = [json.loads(x) for x in run("host", "status", "--json").output.splitlines()]
    assert row["no_player"] == ["british"]
    # once the side has a player, nothing is said
    r = run("host", "rotate-secret", game, "british", "--email", BRITISH)
    assert r.exit_code == 0, r.output
    assert "Sides with no player" not in run("host", "status").output
    assert Host.open(host.cfg.root).unplayed(host.game("g1")) == []


def test_the_readmes_walk_through_runs_as_written(tmp_path, monkeypatch):
    """README, *Set up a host*: the commands of its first block, as written (the host
    folder and the test server's port aside; `pbem serve` once), give the output it shows."""
    import re
    import shlex
    from pathlib import Path
    readme = (Path(__file__).resolve().parent.parent / "README.md").read_text()
    section = readme.split("### Set up a host", 1)[1]
    commands, shown = re.findall(r"```sh\n(.*?)```\n\n```\n(.*?)```", section, re.S)[0]
    lines = [ln.split("#", 1)[0].strip() for ln in commands.replace("\\\n", " ").splitlines()]
    lines = [ln for ln in lines if ln]
    assert lines[0].startswith("python -m aiosmtpd -n -l 127.0.0.1:8025")
    home = tmp_path / "home"
    home.mkdir()
    with SmtpCapture() as smtp:
        out = []
        for ln in lines[1:]:
            words = [w.replace("~", str(home)).replace("127.0.0.1:8025", f"127.0.0.1:{smtp.port}")
                     for w in shlex.split(ln)]
            if words[0] == "cd":
                monkeypatch.chdir(words[1])
                continue
            assert words[0] == "pbem"
            if words[1] == "serve":
                words.append("--once")
            r = run(*words[1:])
            assert r.exit_code == 0, (ln, r.output)
            out.append(r.output)
        said = "".join(out).replace(f"127.0.0.1:{smtp.port}", "127.0.0.1:8025")
        for want in shown.splitlines():
            if want != "...":
                assert want.replace("/home/referee", str(home)) in said, (want, said)
        assert sorted(rc[0] for _f, rc, _raw in smtp.messages) == sorted(
            ["rommel@example.org", "monty@example.org", HOST_ADDR])
