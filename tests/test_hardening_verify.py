"""Issue 24 item 7, beyond the audit: `pbem verify`, `pbem diff`, `pbem state` and
`pbem report` on a game folder with a FIFO or a device in place of its log, seed or
scenario answer in one line and never wait on the FIFO nor read the device."""
from __future__ import annotations

import os
import subprocess
import sys

import pytest

CASES = [("log.jsonl", "fifo"), ("log.jsonl", "zero"), ("scenario.toml", "fifo"), ("scenario.toml", "zero")]


@pytest.fixture(scope="module")
def good(played_example):
    return played_example("el-alamein")


def _hostile(good, root, name, what):
    g = good.copy(root / f"{name}-{what}")
    (g / name).unlink(missing_ok=True)
    if what == "fifo":
        os.mkfifo(g / name)
    else:
        (g / name).symlink_to("/dev/zero")
    return g


def _run(*args):
    return subprocess.run([sys.executable, "-m", "pbem", *map(str, args)], capture_output=True, text=True, timeout=30)


@pytest.mark.parametrize("name, what", CASES)
def test_verify_state_report_and_diff_refuse_a_fifo_or_device_in_one_line(tmp_path, good, name, what):
    g = _hostile(good, tmp_path, name, what)
    for args in (("verify", g), ("state", g), ("report", g, "--as", "axis"), ("diff", g, good.dir)):
        r = _run(*args)
        err = r.stderr + r.stdout
        assert "Traceback" not in err, (args, err)
        if args[0] == "diff":
            continue                     # diff compares what it can read of each copy: it ended, that is the point
        assert r.returncode != 0 and "not a regular file" in err, (args, r.returncode, err)


def test_a_fifo_in_place_of_the_seed_is_refused_not_waited_on(tmp_path):
    from pbem.core.dice import DiceError, read_seed
    os.mkfifo(tmp_path / "seed", 0o600)
    with pytest.raises(DiceError, match="not a regular file"):
        read_seed(tmp_path / "seed")
