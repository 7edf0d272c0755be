"""Issue 24, items 7 and 12: `pbem audit` on hostile folders (a FIFO, a link to
/dev/zero or a huge file in place of a game's files) reports them and never hangs
nor reads without bound (7); a tampered copy beside the original does not fail
the original: the audit says which copies verify and keeps the verified one in
the standings (12)."""
from __future__ import annotations

import json
import os
import re
import resource
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from pbem.cli import main
from pbem.log import GENESIS, line_hash
from pbem.referee.audit import ERROR, NOTE, WARNING, audit

_PREV = re.compile(rb'"prev":"[0-9a-f]{64}"')


def _limited():
    resource.setrlimit(resource.RLIMIT_AS, (2 << 30, 2 << 30))   # reading /dev/zero ends in a MemoryError


def findings(row: dict, code: str, severity: str | None = None) -> list[str]:
    return [f["text"] for f in row["findings"] if f["code"] == code and severity in (None, f["severity"])]


# --- 7. hostile folders ---------------------------------------------------------------------

HOSTILE = {                      # folder: (file, what is put in its place)
    "log-fifo": ("log.jsonl", "fifo"), "log-zero": ("log.jsonl", "zero"), "log-huge": ("log.jsonl", "huge"),
    "seed-fifo": ("seed", "fifo"), "scenario-fifo": ("scenario.toml", "fifo"),
    "scenario-zero": ("scenario.toml", "zero"), "head-fifo": ("log.head", "fifo"),
    "cache-zero": (".state-cache", "zero"), "deadline-fifo": ("deadline.json", "fifo"),
}


@pytest.fixture(scope="module")
def hostile(played_example, tmp_path_factory):
    root = tmp_path_factory.mktemp("hostile")
    for folder, (name, what) in HOSTILE.items():
        g = played_example("el-alamein").copy(root / folder)
        (g / name).unlink(missing_ok=True)
        if what == "fifo":
            os.mkfifo(g / name)
        elif what == "zero":
            (g / name).symlink_to("/dev/zero")
        else:
            with open(g / name, "wb") as f:
                f.truncate(3 << 30)                      # 3 GiB, sparse: nothing to read but zeros
    r = subprocess.run([sys.executable, "-m", "pbem", "audit", "--json", "-q", "-j", "1", str(root)],
                       capture_output=True, text=True, timeout=60, preexec_fn=_limited)
    rows = [json.loads(x) for x in r.stdout.splitlines()]
    return r, {Path(x["path"]).name: x for x in rows if x["type"] == "game"}


# folder: the finding's code, severity and words; the rules still re-run (on a private copy) unless the log is it
EXPECTED = {
    "log-fifo": ("log", ERROR, "log.jsonl is a FIFO (named pipe), not a regular file; it was not read"),
    "log-zero": ("log", ERROR, "log.jsonl is a character device, not a regular file"),
    "log-huge": ("log", ERROR, "log.jsonl holds more than 67,108,864 bytes"),
    "seed-fifo": ("file", ERROR, "seed is a FIFO (named pipe), not a regular file: it was not read"),
    "cache-zero": ("file", ERROR, ".state-cache is a character device, not a regular file: it was not read"),
    "scenario-fifo": ("scenario", ERROR, "it cannot be read ("),
    "scenario-zero": ("scenario", ERROR, "is a character device"),
    "head-fifo": ("anchor", ERROR, "log.head is unusable"),
    "deadline-fifo": ("deadline", WARNING, "deadline.json cannot be read"),
}


def test_hostile_files_are_findings_and_the_audit_ends(hostile):
    r, rows = hostile
    assert r.returncode == 1 and "Traceback" not in r.stderr, r.stderr[-2000:]
    assert set(rows) == set(HOSTILE)
    for folder, (code, severity, says) in EXPECTED.items():
        row = rows[folder]
        assert not any("the audit of this folder failed" in t for t in findings(row, "log")), row["findings"]
        assert any(says in t for t in findings(row, code, severity)), (folder, row["findings"])
        if code != "log":
            assert row["rules_checked"], (folder, row["findings"])


# --- 12. one bad copy must not fail the good one --------------------------------------------

def _forge(game: Path, kind: str, pattern: bytes, which: int = 0) -> None:
    """Change a die roll in the ``which``-th line of ``kind`` and re-chain the log as a forger would."""
    lines = (game / "log.jsonl").read_bytes().split(b"\n")[:-1]
    n = [i for i, ln in enumerate(lines) if f'"kind":"{kind}"'.encode() in ln and re.search(pattern, ln)][which]
    lines[n] = re.sub(pattern, lambda m: b'"rolls":[%d]' % (int(m[1]) % 6 + 1), lines[n], count=1)
    h, out = GENESIS, []
    for ln in lines:
        ln = _PREV.sub(f'"prev":"{h}"'.encode(), ln, count=1)
        out.append(ln)
        h = line_hash(h, ln)
    (game / "log.jsonl").write_bytes(b"".join(ln + b"\n" for ln in out))
    (game / "log.head").write_text(f"{len(out) - 1} {h}\n")
    (game / ".state-cache").unlink(missing_ok=True)


def test_of_three_copies_the_one_that_verifies_is_named_and_counted(played_example, tmp_path):
    original = played_example("el-alamein").copy(tmp_path / "t" / "original")
    for name, which in (("tampered-1", 0), ("tampered-2", 1)):
        _forge(played_example("el-alamein").copy(tmp_path / "t" / name), "CombatResolved", rb'"rolls":\[(\d)\]', which)
    res = audit([tmp_path / "t"], jobs=1)
    rows = {Path(g.path).name: g for g in res.games}
    good = rows["original"]
    assert not good.count(ERROR), [f.text for f in good.findings if f.severity == ERROR]
    said = [f.text for f in good.findings if f.code == "duplicate"]
    assert f"of 3 copies of game 'el-alamein-example', only {original} verifies" in said
    assert sum("that copy does not verify, this one does" in t for t in said) == 2
    for name in ("tampered-1", "tampered-2"):
        bad = rows[name]
        assert any(f.code == "rules" and f.severity == ERROR for f in bad.findings)
        assert any(f.code == "duplicate" and f.severity == ERROR for f in bad.findings)
        assert any(f.severity == NOTE and f.text.endswith(f"only {original} verifies") for f in bad.findings)
    assert res.summary["standings"]["el-alamein"]["auchinleck@example.org"] == {"w": 1, "d": 0, "l": 0}
    assert res.summary["left_out"] == []                      # counted once, from the copy that verifies
    out = CliRunner().invoke(main, ["audit", "-q", "-j", "1", str(tmp_path / "t")]).output
    assert f"only {original} verifies" in out and "standings" in out and "auchinleck@example.org" in out
