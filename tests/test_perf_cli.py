"""`pbem state` and `pbem report` without click (pbem.cli_fast) say exactly what the click
commands say (correctness only: the figures come from tests/benchmark.py):

- the click commands have exactly the parameters cli_fast declares (one declaration);
- the same bytes, through either path, on every example, every viewer, with every option
  the fast path takes; a command line it does not take is left to click, nothing written;
- `python -m pbem state` really runs without importing click.
"""
from __future__ import annotations

import io
import os
import subprocess
import sys

import click
import pytest
from click.testing import CliRunner

from conftest import EXAMPLES
from pbem.cli import main
from pbem.cli_fast import REPORT, STATE, click_params, fast


def _info(params) -> list:
    return [(p.to_info_dict(), getattr(p, "show_default", None), p.metavar) for p in params]


@pytest.mark.parametrize("spec", [STATE, REPORT], ids=lambda s: s.name)
def test_the_click_commands_have_the_declared_parameters(spec):
    @click.command(spec.name, help=spec.help)
    @click_params(spec)
    def declared(**kw):
        pass
    real = main.commands[spec.name]
    assert _info(real.params) == _info(declared.params)
    assert real.help == spec.help


class _Out(io.TextIOWrapper):
    def __init__(self):
        super().__init__(io.BytesIO(), encoding="utf-8")

    def data(self) -> bytes:
        self.flush()
        return self.buffer.getvalue()


def run_fast(argv: list[str]) -> tuple[int | None, bytes]:
    out, was = _Out(), sys.stdout
    sys.stdout = out
    try:
        code = fast(argv)
    finally:
        sys.stdout = was
    return code, out.data()


def run_click(argv: list[str]) -> tuple[int, bytes]:
    r = CliRunner().invoke(main, argv, catch_exceptions=False)
    return r.exit_code, r.stdout_bytes


@pytest.mark.parametrize("name", EXAMPLES)
def test_fast_and_click_give_the_same_bytes_on_every_example(played_example, tmp_path, monkeypatch, name):
    d = played_example(name).copy(tmp_path / name)
    g = str(d)
    from pbem.engine import Game
    game = Game(d)
    last = game.head()[0]
    viewers = [None, "referee"] + game.scenario.side_ids()
    lines = []
    for v in viewers:
        who = [] if v is None else ["--as", v]
        lines += [["state", g] + who, ["state", g, "--json"] + who, ["state", g, f"--at={last // 2}"] + who,
                  ["state", "--json", "--at", "3", g] + who]
        if v is not None:
            lines += [["report", g] + who, ["report", g, "--since", str(max(0, last - 12))] + who,
                      ["report", g, "--at", str(last // 3)] + who,
                      ["report", g, "--format", "text", "--since=0", f"--at={last // 2}"] + who]
    (d / "reported.json").write_text('{"%s": %d}' % (game.scenario.side_ids()[0], last - 5))
    lines += [["report", g, "--as", game.scenario.side_ids()[0]]]
    for argv in lines:
        code, data = run_fast(argv)
        assert code == 0, argv                       # the fast path took it
        assert run_click(argv) == (0, data), argv


@pytest.mark.parametrize("argv", [
    ["state"], ["state", "--help"], ["state", "-h"], ["state", "G", "--as"], ["state", "G", "--at", "x"],
    ["state", "G", "--at", "-1"], ["state", "G", "--at", "+1"], ["state", "G", "--as", "nobody"],
    ["state", "G", "--at", "99999"], ["state", "G", "--json", "--json"], ["state", "G", "--js"],
    ["state", "G", "--json=1"], ["state", "G", "--", "--json"], ["state", "G", "G"], ["state", "/no/such/dir"],
    ["state", "G", "--as", "--json"], ["report", "G"], ["report", "G", "--as", "referee", "--format", "svg"],
    ["report", "G", "--as", "referee", "--format", "pdf"], ["report", "G", "--as", "referee", "-o", "x.txt"],
    ["report", "G", "--as", "referee", "--output", "x.txt"], ["report", "G", "--as", "referee", "--since"],
    ["log", "G"], ["verify", "G"], ["--version"], [],
])
def test_a_command_line_the_fast_path_does_not_take_is_left_to_click(played_example, monkeypatch, argv):
    g = str(played_example("el-alamein").dir)
    argv = [g if a == "G" else a for a in argv]
    assert run_fast(argv) == (None, b"")


def test_the_fast_path_is_off_with_pbem_no_fast_path_and_without_a_binary_stdout(played_example, monkeypatch):
    g = str(played_example("el-alamein").dir)
    monkeypatch.setenv("PBEM_NO_FAST_PATH", "1")
    assert run_fast(["state", g]) == (None, b"")
    monkeypatch.delenv("PBEM_NO_FAST_PATH")
    monkeypatch.setattr(sys, "stdout", io.StringIO())     # no .buffer: click writes it
    assert fast(["state", g]) is None


def test_python_m_pbem_state_runs_without_click_and_prints_what_click_prints(played_example, tmp_path):
    g = str(played_example("crete").copy(tmp_path / "crete"))
    probe = ("import sys\nsys.argv = ['pbem'] + sys.argv[1:]\nfrom pbem.__main__ import run\n"
             "try:\n    run()\nexcept SystemExit as e:\n    code = e.code\n"
             "print('click' in sys.modules, code, file=sys.stderr)\n")
    env = {k: v for k, v in os.environ.items() if k != "PBEM_NO_FAST_PATH"}
    for argv in (["state", g], ["report", g, "--as", "german", "--since", "0"]):
        fast_run = subprocess.run([sys.executable, "-c", probe] + argv, capture_output=True, env=env)
        assert fast_run.stderr.decode().split() == ["False", "0"], fast_run.stderr
        slow = subprocess.run([sys.executable, "-m", "pbem"] + argv, capture_output=True,
                              env=dict(env, PBEM_NO_FAST_PATH="1"))
        assert slow.returncode == 0 and fast_run.stdout == slow.stdout and fast_run.stdout
    bad = subprocess.run([sys.executable, "-c", probe, "state", g, "--as", "nobody"], capture_output=True, env=env)
    assert b"unknown side 'nobody'" in bad.stderr and bad.stderr.split()[-2:] == [b"True", b"1"]


def test_python_m_pbem_offers_exactly_the_fast_commands_to_the_fast_path():
    import pbem.__main__ as entry
    from pbem import cli_fast
    assert sorted(entry.FAST) == sorted(cli_fast.FAST) == ["report", "state"]
