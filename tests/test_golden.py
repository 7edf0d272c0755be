"""Golden logs and reports of every example game (issue 11): the safety net
for changes to the kernel that must not change what a game writes.

Every folder under examples/ with a playbook.toml is played from its order
files as `pbem play` does (conftest.played_example: text reports after each
step, the seed revealed at the end, the log verified; the clock pinned to
2026-01-01T00:00:00Z, so the bytes do not depend on when the test runs), and
compared byte for byte with tests/golden/EXAMPLE/:

    log.json             sha256, size and event count of log.jsonl, and the
                         sha256 of all the text reports play() wrote after
                         each step (reports/*.txt)
    events.txt           one line per log line: seq, kind, sha256 of the line
                         (12 hex digits); the log lines are hash-chained, so the
                         first differing line is where the games part
    report-VIEWER.txt    the final report of each side and of the referee, the
                         text `pbem report GAME --as VIEWER --since 0` prints
                         at the end of the game (everything that side saw)

Regenerate the goldens deliberately, only after a change that is meant to
change what the games write, and review the diff before committing it:

    PBEM_UPDATE_GOLDEN=1 bash tests/run.sh tests/test_golden.py
    git diff --stat tests/golden/
"""
from __future__ import annotations

import difflib
import hashlib
import json
import os
from pathlib import Path

import pytest

from conftest import EXAMPLES
from pbem.report import render
from pbem.views import REFEREE

GOLDEN = Path(__file__).resolve().parent / "golden"
UPDATE = bool(os.environ.get("PBEM_UPDATE_GOLDEN"))


def log_lines(log: bytes) -> list[str]:
    out = []
    for seq, line in enumerate(log.splitlines()):
        kind = json.loads(line)["kind"]
        out.append(f"{seq:5d} {kind} {hashlib.sha256(line).hexdigest()[:12]}")
    return out


def step_reports_sha256(reports: Path) -> str:
    h = hashlib.sha256()
    for p in sorted(reports.glob("*.txt")):
        data = p.read_bytes()
        h.update(f"{p.name}\0{len(data)}\0".encode())
        h.update(data)
    return h.hexdigest()


def final_reports(game) -> dict[str, str]:
    """VIEWER -> the text `pbem report --as VIEWER --since 0` gives at the game's head."""
    entries = game.entries()
    st = game.state()
    head = entries[st.seq].hash
    return {v: render.report_text(game, v, st, entries, 0, head) for v in game.scenario.side_ids() + [REFEREE]}


def first_difference(want: str, got: str, context: int = 3, limit: int = 60) -> str:
    diff = list(difflib.unified_diff(want.splitlines(), got.splitlines(), "golden", "now", n=context, lineterm=""))
    return "\n".join(diff[:limit]) + ("\n..." if len(diff) > limit else "")


def write(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8", newline="")


def read(path: Path) -> str:
    if not path.exists():
        pytest.fail(f"{path} is missing; create it with PBEM_UPDATE_GOLDEN=1 (see the top of {Path(__file__).name})")
    return path.read_bytes().decode("utf-8")


@pytest.mark.parametrize("example", EXAMPLES)
def test_log_is_byte_for_byte_the_golden_one(example, played_example):
    ex = played_example(example)
    log = (ex.dir / "log.jsonl").read_bytes()
    lines = "\n".join(log_lines(log)) + "\n"
    summary = {"sha256": hashlib.sha256(log).hexdigest(), "bytes": len(log), "events": log.count(b"\n"),
               "step_reports_sha256": step_reports_sha256(ex.dir / "reports")}
    here = GOLDEN / example
    if UPDATE:
        write(here / "events.txt", lines)
        write(here / "log.json", json.dumps(summary, indent=2) + "\n")
    want = json.loads(read(here / "log.json"))
    # the event list first: a readable first difference
    want_lines = read(here / "events.txt")
    if lines != want_lines:           # (pytest.fail: pytest's own diff of two long texts is slow)
        pytest.fail(f"{example}: the log differs from the golden one (seq kind sha256-of-line)\n"
                    + first_difference(want_lines, lines), pytrace=False)
    assert {k: summary[k] for k in ("sha256", "bytes", "events")} == \
        {k: want[k] for k in ("sha256", "bytes", "events")}
    assert summary["step_reports_sha256"] == want["step_reports_sha256"], \
        f"{example}: the text reports written after each step differ (reports/*.txt of a `pbem play`)"


@pytest.mark.parametrize("example", EXAMPLES)
def test_final_reports_are_the_golden_ones(example, played_example):
    game = played_example(example).game()
    reports = final_reports(game)
    here = GOLDEN / example
    if UPDATE:
        for old in here.glob("report-*.txt"):
            if old.stem.removeprefix("report-") not in reports:
                old.unlink()
        for viewer, text in reports.items():
            write(here / f"report-{viewer}.txt", text)
    stored = {p.stem.removeprefix("report-") for p in here.glob("report-*.txt")}
    assert stored == set(reports), f"{example}: golden reports for {sorted(stored)}, viewers {sorted(reports)}"
    for viewer, text in reports.items():
        want = read(here / f"report-{viewer}.txt")
        if text != want:
            pytest.fail(f"{example}: the final report for {viewer} differs from the golden one\n"
                        + first_difference(want, text), pytrace=False)


def test_every_example_has_goldens_and_every_golden_an_example():
    if UPDATE:
        pytest.skip("writing the goldens (the other tests of this file do)")
    folders = {p.name for p in GOLDEN.iterdir() if p.is_dir()}
    assert folders == set(EXAMPLES), "tests/golden/ and examples/ disagree; PBEM_UPDATE_GOLDEN=1 writes new ones " \
                                     "(remove the folders of deleted examples by hand)"
