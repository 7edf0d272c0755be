"""The command-line contract of issue 2: names, exit codes, precise errors,
and the log left byte-for-byte unchanged by anything refused."""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from pbem.cli import main

ROOT = Path(__file__).resolve().parent.parent
CLOCK = "2026-01-01T00:00:00Z"
TURN1_AXIS = """\
# turn 1, German-Italian
move 8Pz 0612 0712 0812
move 5Pz 0512 0612 0713
end
attack 0913 with 8Pz
attack 0813 with 5Pz retreat 0814 advance 5Pz
end
"""


@pytest.fixture(autouse=True)
def fixed_clock(monkeypatch):
    monkeypatch.setenv("PBEM_CLOCK", CLOCK)


def run(*args, input=None):
    return CliRunner().invoke(main, [str(a) for a in args], input=input, catch_exceptions=False)


@pytest.fixture
def game(tmp_path):
    g = tmp_path / "g"
    r = run("new", g, "--scenario", "el-alamein", "--player", "axis=a@example.org",
            "--player", "british=b@example.org", "--dice", "5,3,2,4,1,6,3,3,2,5,4,1", "--id", "cli-test")
    assert r.exit_code == 0, r.output
    return g


def log_bytes(g: Path) -> bytes:
    return (g / "log.jsonl").read_bytes()


def test_scenarios_lists_el_alamein():
    r = run("scenarios")
    assert r.exit_code == 0
    line = next(ln for ln in r.output.splitlines() if ln.startswith("el-alamein"))
    assert "4 turns" in line and "German-Italian" in line and "British Commonwealth" in line


def test_lint_ok_and_precise_errors(tmp_path):
    assert run("scenario", "lint", "el-alamein").exit_code == 0
    bad = (ROOT / "scenarios" / "el-alamein.toml").read_text()
    bad = bad.replace('hex = "0512"', 'hex = "0101"')          # 8Pz into the Mediterranean
    bad = bad.replace('1 = ["AR", "DR1",', '1 = ["XX", "DR1",')   # unknown CRT result
    p = tmp_path / "bad.toml"
    p.write_text(bad)
    r = run("scenario", "lint", p)
    assert r.exit_code == 1
    assert "units[8Pz]: set up in 0101, which is sea (impassable)" in r.output
    assert "crt.rows[1]: unknown result 'XX'" in r.output


def test_lint_reports_type_errors_with_their_place(tmp_path):
    bad = (ROOT / "scenarios" / "el-alamein.toml").read_text().replace("turns = 4", 'turns = "four"')
    p = tmp_path / "bad.toml"
    p.write_text(bad)
    r = run("scenario", "lint", p)
    assert r.exit_code == 1
    assert "$.turns" in r.stderr and "Traceback" not in r.output


def test_unknown_scenario_is_a_clear_error(tmp_path):
    r = run("new", tmp_path / "x", "--scenario", "stalingrad")
    assert r.exit_code == 1
    assert "unknown scenario 'stalingrad'" in r.stderr and "el-alamein" in r.stderr
    assert not (tmp_path / "x" / "log.jsonl").exists()


def test_new_seeded_game_keeps_seed_private(tmp_path):
    g = tmp_path / "g"
    r = run("new", g, "--scenario", "el-alamein")
    assert r.exit_code == 0
    mode = (g / "seed").stat().st_mode & 0o777
    assert mode == 0o600
    first = json.loads(log_bytes(g).splitlines()[0])
    seed = (g / "seed").read_text().strip()
    assert seed not in log_bytes(g).decode()
    import hashlib
    assert first["body"]["seed_commitment"] == hashlib.sha256(bytes.fromhex(seed)).hexdigest()
    assert first["body"]["dice_mode"] == "seeded"
    for key in ("scenario_id", "scenario_sha256", "engine_version", "ruleset_version", "players"):
        assert key in first["body"]


def test_new_refuses_existing_game(game):
    before = log_bytes(game)
    r = run("new", game, "--scenario", "el-alamein")
    assert r.exit_code == 1 and "already holds a game" in r.stderr
    assert log_bytes(game) == before


def test_order_exit_codes_and_output(game):
    r = run("order", game, "--as", "axis", "-", input=TURN1_AXIS)
    assert r.exit_code == 0, r.output
    assert "applied  line 2: move 8Pz 0612 0712 0812" in r.output
    assert "Combat at 0913: 8Pz (8) against 4LtArm (3); odds 2:1, die 5: AR" in r.output
    assert "head " in r.output
    # usage error: --as missing -> click's exit code 2
    assert run("order", game, "-", input="end\n").exit_code == 2


@pytest.mark.parametrize("text, needle, rule", [
    ("move Nobody 0611", "unknown unit 'Nobody'", None),
    ("move 8Pz 0511 0510 0509 0508 0507 0506 0505", "more than 8Pz's movement allowance of 6", "8.2(1)"),
    ("move 8Pz 0613", "0613 is not adjacent to 0512", "8.2(3)"),
    ("move 8Pz 0612 0712 0812 0912", "0812 is in an enemy zone of control", "6.1"),
    ("move 125 0603 0602 0601", "0601 (sea) may not be entered", "8.3"),
    ("move 24Aus 0905", "24Aus is not a German-Italian unit", None),
    ("movee 8Pz 0611", "unknown order 'movee'", None),
    ("move 8Pz 06x1", "'06x1' is not a hex number", None),
    ("attack 0913 with 8Pz", "attacks are declared in the combat phase", "5.0"),
])
def test_refused_orders_name_the_line_and_leave_the_log_unchanged(game, text, needle, rule):
    before = log_bytes(game)
    r = run("order", game, "--as", "axis", "-", input="# comment line\n" + text + "\n")
    assert r.exit_code == 1, r.output
    assert "line 2:" in r.stderr and needle in r.stderr, r.stderr
    if rule:
        assert f"rule {rule}" in r.stderr
    assert log_bytes(game) == before


def test_off_map_hex_refused(game):
    before = log_bytes(game)
    r = run("order", game, "--as", "axis", "-", input="move Littorio 0209 0109 0008\n")
    assert r.exit_code == 1
    assert "0008 is not on the map" in r.stderr and "rule 8.1(5)" in r.stderr
    assert log_bytes(game) == before


def test_wrong_side_is_told_whose_turn_it_is(game):
    before = log_bytes(game)
    r = run("order", game, "--as", "british", "-", input="move 5NZ 1009\n")
    assert r.exit_code == 1
    assert "not your turn: the game waits for German-Italian (movement, 8.0) (rule 5.0)" in r.stderr   # the kernel's
    assert log_bytes(game) == before


def test_batch_applies_up_to_the_first_refusal(game):
    r = run("order", game, "--as", "axis", "-", input="move 8Pz 0612 0712\nmove 8Pz 0812\nend\n")
    assert r.exit_code == 1
    assert "applied  line 1" in r.output
    assert "line 2: 8Pz has already moved this phase (rule 8.1(2))" in r.stderr
    assert "not applied: move 8Pz 0812 | end" in r.stderr
    st = json.loads(run("state", game, "--json").output)
    assert st["phase"] == "movement"
    assert next(u for u in st["units"] if u["id"] == "8Pz")["hex"] == "0712"


def test_stale_head_refused(game):
    before = log_bytes(game)
    r = run("order", game, "--as", "axis", "--head", "0" * 64, "-", input="end\n")
    assert r.exit_code == 1 and "resend" in r.stderr
    assert log_bytes(game) == before


def test_state_json_contract(game):
    run("order", game, "--as", "axis", "-", input=TURN1_AXIS)
    st = json.loads(run("state", game, "--json").output)
    for key in ("scenario", "turn", "phase", "awaiting", "units", "score", "result", "head", "seq"):
        assert key in st
    assert st["scenario"] == "el-alamein"
    u = next(u for u in st["units"] if u["id"] == "8Pz")
    assert set(u) >= {"id", "side", "hex", "strength", "status"}
    assert u["status"] == []                  # recovered after its own combat phase (9.7(3))
    assert st["awaiting"][0]["side"] == "british"
    gone = next(u for u in st["units"] if u["id"] == "7Mot")
    assert gone["hex"] == "0814" and "disrupted" in gone["status"]
    seq, head = (game / "log.head").read_text().split()
    assert st["head"] == head and st["seq"] == int(seq)
    # --at shows an earlier state
    early = json.loads(run("state", game, "--json", "--at", "1").output)
    assert early["seq"] == 1 and next(u for u in early["units"] if u["id"] == "8Pz")["hex"] == "0512"


def test_verify_accepts_then_rejects_any_changed_byte(game):
    run("order", game, "--as", "axis", "-", input=TURN1_AXIS)
    assert run("verify", game).exit_code == 0
    data = bytearray(log_bytes(game))
    positions = [0, 10, len(data) // 3, len(data) // 2, len(data) - 20, len(data) - 2]
    for pos in positions:
        changed = bytearray(data)
        changed[pos] = (changed[pos] + 1) % 256 if changed[pos] != ord("\n") - 1 else ord("x")
        (game / "log.jsonl").write_bytes(bytes(changed))
        r = run("verify", game)
        assert r.exit_code != 0, f"byte {pos} changed and verify still passed"
        assert "Traceback" not in r.output
    (game / "log.jsonl").write_bytes(bytes(data))
    assert run("verify", game).exit_code == 0


def test_torn_last_line_reported_with_line_number(game):
    with open(game / "log.jsonl", "ab") as f:
        f.write(b'{"seq":2,"prev":"ab')
    r = run("state", game)
    assert r.exit_code == 1
    assert "line 3" in r.stderr and "Traceback" not in r.output


def test_missing_seed_file_refuses_dice_but_not_moves(tmp_path):
    g = tmp_path / "g"
    run("new", g, "--scenario", "el-alamein")
    (g / "seed").unlink()
    r = run("order", g, "--as", "axis", "-", input="move 8Pz 0612 0712 0812\nend\n")
    assert r.exit_code == 0                    # no die rolled yet
    assert run("order", g, "--as", "axis", "-", input="attack 0913 with 8Pz\n").exit_code == 0
    before = log_bytes(g)
    r = run("order", g, "--as", "axis", "-", input="end\n")   # closing declarations rolls the die
    assert r.exit_code == 1
    assert "seed file" in r.stderr and "not found" in r.stderr
    assert log_bytes(g) == before


def test_reveal_then_verify_checks_dice(tmp_path):
    g = tmp_path / "g"
    run("new", g, "--scenario", "el-alamein")
    run("order", g, "--as", "axis", "-", input="move 8Pz 0612 0712 0812\nend\nattack 0913 with 8Pz\nend\n")
    r = run("reveal", g, "--force")
    assert r.exit_code == 0 and "warning" in r.stderr
    seed = (g / "seed").read_text().strip()
    assert seed in log_bytes(g).decode()
    (g / "seed").unlink()                      # an auditor has only the log
    r = run("verify", g)
    assert r.exit_code == 0 and "dice checked against the revealed seed" in r.output
    assert run("reveal", g).exit_code == 1


def test_verify_detects_forged_die_after_reveal(tmp_path):
    """An event rewritten with a different die (and the chain recomputed) fails."""
    g = tmp_path / "g"
    run("new", g, "--scenario", "el-alamein")
    run("order", g, "--as", "axis", "-", input="move 8Pz 0612 0712 0812\nend\nattack 0913 with 8Pz\nend\n")
    run("reveal", g, "--force")
    from pbem.log import line_hash
    lines = log_bytes(g).splitlines()
    out, prev = [], "0" * 64
    for ln in lines:
        d = json.loads(ln)
        if d["kind"] == "CombatResolved":
            d["body"]["rolls"] = [d["body"]["rolls"][0] % 6 + 1]
        d["prev"] = prev
        b = json.dumps(d, separators=(",", ":")).encode()
        prev = line_hash(prev, b)
        out.append(b)
    (g / "log.jsonl").write_bytes(b"\n".join(out) + b"\n")
    (g / "log.head").write_text(f"{len(out) - 1} {prev}\n")    # the forger re-anchors too
    (g / ".state-cache").unlink()
    r = run("verify", g)
    assert r.exit_code == 1 and "the rules give" in r.stderr


def test_log_json_and_redaction(game):
    run("order", game, "--as", "axis", "-", input=TURN1_AXIS)
    rows = [json.loads(x) for x in run("log", game, "--as", "british", "--json").output.splitlines()]
    assert rows[0]["kind"] == "GameCreated" and rows[0]["seq"] == 0
    assert any(r["kind"] == "CombatResolved" for r in rows)
    assert run("log", game, "--as", "nobody").exit_code == 1


def test_report_formats(game, tmp_path):
    run("order", game, "--as", "axis", "-", input=TURN1_AXIS)
    r = run("report", game, "--as", "british")
    assert r.exit_code == 0
    assert "Report for British Commonwealth" in r.output and "DICE: SCRIPTED" in r.output
    assert "odds 2:1, die 5: AR" in r.output
    # reading a report changes nothing; --since SEQ tells only what happened after SEQ
    again = run("report", game, "--as", "british")
    assert again.output == r.output
    seq = json.loads(run("state", game, "--json").output)["seq"]
    assert "Nothing new." in run("report", game, "--as", "british", "--since", str(seq)).output
    svg = tmp_path / "m.svg"
    assert run("report", game, "--as", "axis", "--format", "svg", "-o", svg).exit_code == 0
    assert svg.read_text().startswith("<svg") or "<svg" in svg.read_text()[:200]
    eml = tmp_path / "r.eml"
    assert run("report", game, "--as", "axis", "--format", "eml", "-o", eml).exit_code == 0
    import email
    from email import policy
    msg = email.message_from_bytes(eml.read_bytes(), policy=policy.default)
    assert msg["To"] == "a@example.org" and "[pbem cli-test]" in msg["Subject"]
    parts = [p.get_content_type() for p in msg.walk()]
    assert "text/plain" in parts and "image/png" in parts     # the map as the host mails it
    assert "image/svg+xml" not in parts                           # the SVG comes with the final report only


def test_golden_report(game):
    """The rendered text report is stable; regenerate with PBEM_UPDATE_GOLDEN=1."""
    run("order", game, "--as", "axis", "-", input=TURN1_AXIS)
    text = run("report", game, "--as", "axis", "--since", "0").output
    golden = Path(__file__).parent / "golden" / "el-alamein-turn1-axis.txt"
    if os.environ.get("PBEM_UPDATE_GOLDEN"):
        golden.write_text(text)
    assert text == golden.read_text()


def test_no_traceback_from_a_real_process(tmp_path):
    """End to end in a real process: a corrupted log gives one line, exit 1."""
    g = tmp_path / "g"
    env = dict(os.environ, PBEM_CLOCK=CLOCK)
    subprocess.run([sys.executable, "-m", "pbem", "new", str(g), "--scenario", "el-alamein"], check=True,
                   capture_output=True, env=env)
    (g / "log.jsonl").write_bytes(b"garbage\n")
    p = subprocess.run([sys.executable, "-m", "pbem", "state", str(g)], capture_output=True, text=True, env=env)
    assert p.returncode == 1
    assert "Traceback" not in p.stderr and "line 1" in p.stderr


def test_scenario_naming_an_unknown_game_is_a_clear_error(tmp_path):
    bad = (ROOT / "scenarios" / "el-alamein.toml").read_text().replace('game = "el-alamein"', 'game = "stalingrad"')
    p = tmp_path / "bad.toml"
    p.write_text(bad)
    r = run("new", tmp_path / "g", "--scenario", p)
    assert r.exit_code == 1 and "no rules for game 'stalingrad'" in r.stderr and "red-devils" in r.stderr
    assert not (tmp_path / "g").exists()
    r = run("scenario", "lint", p)
    assert r.exit_code == 1 and "no rules for game" in r.stderr


def test_orders_that_are_not_text_are_refused_whole(game, tmp_path):
    before = log_bytes(game)
    blob = tmp_path / "orders.bin"
    blob.write_bytes(b"\x91\xff move 8Pz 0611\n")
    r = run("order", game, "--as", "axis", blob)
    assert r.exit_code == 1 and "not UTF-8" in r.stderr and "nothing was applied" in r.stderr
    assert log_bytes(game) == before


def test_state_at_beyond_the_head_is_refused(game):
    r = run("state", game, "--at", "999")
    assert r.exit_code == 1 and "the log ends at seq 1" in r.stderr
