"""The lock files agree with pyproject.toml (issue 23): .ci/lockcheck.py, which
.ci/install runs before every install, passes on the shipped files and refuses
a lock that misses, contradicts or outlives a dependency."""
from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
LOCKS = ("requirements.lock", "requirements-test.lock")


def _check(folder: Path, lock: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, str(ROOT / ".ci" / "lockcheck.py"), lock], cwd=folder,
                          capture_output=True, text=True)


def _copy(tmp_path: Path) -> Path:
    for name in ("pyproject.toml",) + LOCKS:
        shutil.copy(ROOT / name, tmp_path / name)
    return tmp_path


@pytest.mark.parametrize("lock", LOCKS)
def test_the_shipped_locks_agree_with_pyproject(lock):
    r = _check(ROOT, lock)
    assert r.returncode == 0, r.stderr


def test_every_pin_has_its_hashes():
    for lock in LOCKS:
        text = (ROOT / lock).read_text()
        pins = [ln for ln in text.splitlines() if "==" in ln and not ln.lstrip().startswith("#")]
        assert pins and all(ln.rstrip().endswith("\\") for ln in pins), lock      # each pin is followed by --hash lines
        assert text.count("--hash=sha256:") >= len(pins)


@pytest.mark.parametrize("edit, lock, said", [
    (('"click>=8.2"', '"click>=99"'), "requirements.lock", "click: requirements.lock pins 8."),
    (('"msgspec>=0.23",', '"msgspec>=0.23", "tomli-w>=1",'), "requirements.lock",
     "tomli-w: asked for by pyproject.toml, not pinned"),
    (('    "pillow>=10",', '   '), "requirements.lock", "pillow: pinned in requirements.lock for pbem, no longer asked"),
    (('"aiosmtpd>=1.4",', ''), "requirements-test.lock", "aiosmtpd: pinned in requirements-test.lock for pbem"),
])
def test_a_lock_that_disagrees_with_pyproject_is_refused(tmp_path, edit, lock, said):
    folder = _copy(tmp_path)
    text = (folder / "pyproject.toml").read_text()
    assert edit[0] in text
    (folder / "pyproject.toml").write_text(text.replace(edit[0], edit[1]))
    r = _check(folder, lock)
    assert r.returncode == 1 and said in r.stderr and "bash .ci/lock" in r.stderr, r.stderr


def _fake_venv(folder: Path) -> Path:
    """A .venv whose python only records how it was called (no real install)."""
    (folder / ".ci").mkdir()
    shutil.copy(ROOT / ".ci" / "install", folder / ".ci" / "install")
    bin_ = folder / ".venv" / "bin"
    bin_.mkdir(parents=True)
    calls = folder / "calls.txt"
    (bin_ / "python").write_text(f'#!/bin/sh\necho "$*" >> {calls}\n')
    (bin_ / "python").chmod(0o755)
    return calls


def _install(folder: Path, lock: str) -> str:
    r = subprocess.run(["bash", ".ci/install", lock], cwd=folder, capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    return r.stderr


def test_install_says_so_in_one_line_and_only_when_the_lock_or_pyproject_changed(tmp_path):
    # issue 23 item 3: play.sh and tests/run.sh install only when needed, and say so in one line
    folder = _copy(tmp_path)
    calls = _fake_venv(folder)
    said = _install(folder, "requirements.lock")
    assert said.splitlines() == ["pbem: installing the versions of requirements.lock into .venv (first run with it) ..."]
    done = calls.read_text()
    assert ".ci/lockcheck.py requirements.lock" in done and "--require-hashes --no-deps -r requirements.lock" in done
    assert _install(folder, "requirements.lock") == "" and calls.read_text() == done      # nothing again
    said = _install(folder, "requirements-test.lock")                                     # the test tools
    assert said.splitlines() == ["pbem: installing the versions of requirements-test.lock into .venv (first run with it) ..."]
    done = calls.read_text()
    assert _install(folder, "requirements.lock") == "" and calls.read_text() == done      # the test lock holds it
    with (folder / "pyproject.toml").open("a") as f:
        f.write("# edited\n")
    said = _install(folder, "requirements-test.lock")
    assert said.splitlines() == ["pbem: requirements-test.lock or pyproject.toml changed: installing the locked "
                                 "versions into .venv ..."]
    assert _install(folder, "requirements-test.lock") == ""
