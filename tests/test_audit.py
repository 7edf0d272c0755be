"""`pbem audit` (issue 15): a tournament folder of every example game, played
once per run (conftest.played_example), plus damaged copies, each damage
found with its severity and explanation; exit codes; --json lines.

design.md, "The log" and "Dice": the hash chain and its anchor, the seed
commitment in GameCreated, scripted dice flagged by every audit; "Decisions
and secrets": an unveiled secret is checked against its commitment.
"""
from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner

from conftest import EXAMPLES
from pbem.cli import main
from pbem.engine import Game
from pbem.log import GENESIS, line_hash
from pbem.referee.audit import ERROR, NOTE, WARNING, audit, audit_game, find_games

_PREV = re.compile(rb'"prev":"[0-9a-f]{64}"')


# --- damaging a game folder ----------------------------------------------------------------

def lines_of(game: Path) -> list[bytes]:
    return (game / "log.jsonl").read_bytes().split(b"\n")[:-1]


def rewrite(game: Path, lines: list[bytes], rechain: bool = True) -> None:
    """Write ``lines`` as the log; with ``rechain`` the way a forger would: every prev
    recomputed and log.head re-anchored, so only the rules (or the commitments) can tell."""
    if rechain:
        h, out = GENESIS, []
        for ln in lines:
            ln = _PREV.sub(f'"prev":"{h}"'.encode(), ln, count=1)
            out.append(ln)
            h = line_hash(h, ln)
        lines = out
        (game / "log.head").write_text(f"{len(lines) - 1} {h}\n")
    (game / "log.jsonl").write_bytes(b"".join(ln + b"\n" for ln in lines))
    (game / ".state-cache").unlink(missing_ok=True)


def edit(game: Path, kind: str, old: bytes, new: bytes, rechain: bool = True, which: int = 0) -> int:
    """Replace ``old`` by ``new`` in the ``which``-th line of ``kind``; return its seq."""
    lines = lines_of(game)
    hits = [n for n, ln in enumerate(lines) if f'"kind":"{kind}"'.encode() in ln and old in ln]
    n = hits[which]
    lines[n] = lines[n].replace(old, new, 1)
    rewrite(game, lines, rechain)
    return n


def seq_of(game: Path, kind: str, which: int = 0) -> int:
    return [n for n, ln in enumerate(lines_of(game)) if f'"kind":"{kind}"'.encode() in ln][which]


def findings(row, code: str, severity: str | None = None):
    return [f for f in row.findings if f.code == code and (severity is None or f.severity == severity)]


# --- the tournament ---------------------------------------------------------------------------

@pytest.fixture(scope="module")
def tournament(played_example, tmp_path_factory):
    """root/clean/<every example> and root/damaged/<one damage each> and root/running/<two games>;
    audited once with two worker processes."""
    root = tmp_path_factory.mktemp("tournament")
    for name in EXAMPLES:
        played_example(name).copy(root / "clean" / name)
    d = root / "damaged"
    info = {}

    def twin(example: str, name: str) -> Path:
        return played_example(example).copy(d / name)

    g = twin("operation-compass", "scenario-edited")
    with open(g / "scenario.toml", "ab") as f:
        f.write(b"\n# a line added after the game began\n")
    g = twin("kharkov", "line-edited")                      # edited by hand: the chain breaks after it
    info["line-edited"] = edit(g, "UnitMoved", b'"at":"2026-01-01T00:00:00Z"', b'"at":"2026-01-01T00:00:01Z"',
                               rechain=False)
    g = twin("el-alamein", "line-forged")                   # edited and re-chained: only the rules can tell
    seq = seq_of(g, "CombatResolved")
    old = re.search(rb'"rolls":\[(\d)\]', lines_of(g)[seq])
    info["line-forged"] = edit(g, "CombatResolved", old[0], b'"rolls":[%d]' % (int(old[1]) % 6 + 1))
    g = twin("eben-emael-12-1", "result-forged")
    info["result-forged"] = edit(g, "GameEnded", b'"winner":"german"', b'"winner":"belgian"')
    g = twin("dunkerque", "wrong-reveal")
    lines = lines_of(g)
    info["wrong-reveal"] = n = seq_of(g, "SeedRevealed")
    lines[n] = re.sub(rb'"seed":"[0-9a-f]{64}"', b'"seed":"' + b"7" * 64 + b'"', lines[n])
    rewrite(g, lines)
    (g / "seed").unlink()                                   # an auditor's copy: no host seed file
    g = twin("red-devils", "secret-mismatch")
    info["secret-mismatch"] = edit(g, "SecretRevealed", b'"payload":"1716', b'"payload":"1717')
    g = twin("eben-emael-12-2", "old-ruleset")
    edit(g, "GameCreated", b'"ruleset_version":"', b'"ruleset_version":"0-')
    g = twin("crete", "forked")                             # the last order again, at another time
    lines = lines_of(g)
    last = max(n for n, ln in enumerate(lines) if b'"kind":"OrderGiven"' in ln)
    order = json.loads(lines[last])["body"]
    rewrite(g, lines[:last])
    sub = Game(g).submit(order["side"], order["text"], at="2026-02-01T00:00:00Z")
    assert sub.refused is None
    info["forked"] = last

    r = root / "running"
    late = Game.create(r / "late", "el-alamein", {"axis": "a@example.org", "british": "b@example.org"},
                       game_id="late", at="2026-03-01T00:00:00Z")
    (late.dir / "deadline.json").write_text(json.dumps({"period": "24h", "waits": {"t1.p0.axis.movement..": {
        "side": "axis", "kind": "movement", "since": "2026-03-01T00:00:00Z", "due": "2026-03-02T00:00:00Z",
        "reminded": True}}}))
    late.submit("axis", "move 8Pz 0612 0712 0812", at="2026-03-01T12:00:00Z")
    info["late"] = late.submit("axis", "end", at="2026-03-03T00:00:00Z").seq - 1
    Game.create(r / "scripted", "el-alamein", {"axis": "a@example.org", "british": "b@example.org"},
                dice=[3, 4, 5], game_id="scripted")
    result = audit([root], jobs=2)
    rows = {Path(g.path).relative_to(root).as_posix(): g for g in result.games}
    return root, result, rows, info


def test_every_game_folder_is_found_once(tournament):
    root, result, rows, _ = tournament
    assert len(rows) == len(EXAMPLES) + 8 + 2
    assert find_games([root, root / "clean", root / "clean" / "kharkov"]) == find_games([root])
    assert not any("reports" in p for p in rows)           # a game's own subfolders are not searched


def test_the_clean_examples_have_no_finding_of_their_own(tournament):
    _root, _res, rows, _ = tournament
    for name in EXAMPLES:
        row = rows[f"clean/{name}"]
        assert row.finished and row.rules_checked and row.dice_checked == "revealed seed", name
        own = [f for f in row.findings if f.code != "duplicate"]
        assert all(f.severity == NOTE for f in own), (name, own)


def test_edited_scenario_is_an_error_with_both_sha256s(tournament):
    root, _res, rows, _ = tournament
    row = rows["damaged/scenario-edited"]
    (f,) = findings(row, "scenario", ERROR)
    g = root / "damaged" / "scenario-edited"
    import hashlib
    now = hashlib.sha256((g / "scenario.toml").read_bytes()).hexdigest()
    shipped = hashlib.sha256(Path("scenarios/operation-compass.toml").read_bytes()).hexdigest() \
        if Path("scenarios/operation-compass.toml").exists() else None
    assert now in f.text and "not the file the game was created from" in f.text
    if shipped:
        assert shipped in f.text and "re-run with the shipped file" in f.text
        assert row.rules_checked and not findings(row, "rules")   # the shipped file is the recorded one


def test_a_line_edited_by_hand_breaks_the_chain(tournament):
    _root, _res, rows, info = tournament
    row = rows["damaged/line-edited"]
    n = info["line-edited"]
    (chain,) = findings(row, "chain", ERROR)
    assert chain.seq == n + 1 and f"seq {n} or seq {n + 1} was altered" in chain.text
    assert findings(row, "anchor", ERROR)                    # log.head no longer names the head
    assert "not re-run" in findings(row, "rules", NOTE)[0].text


def test_a_forged_line_is_caught_by_the_rule_re_run_at_its_seq(tournament):
    _root, _res, rows, info = tournament
    row = rows["damaged/line-forged"]
    assert not findings(row, "chain") and not findings(row, "anchor")
    (f,) = findings(row, "rules", ERROR)
    assert f.seq == info["line-forged"] and f"disagrees with the log at seq {f.seq}" in f.text
    assert "CombatResolved" in f.text and not row.rules_checked


def test_a_forged_result_does_not_match_the_recomputed_one(tournament):
    _root, result, rows, info = tournament
    row = rows["damaged/result-forged"]
    (f,) = findings(row, "result", ERROR)
    assert f.seq == info["result-forged"]
    assert "the log records a win for belgian" in f.text and "gives a win for german" in f.text
    # no standings from it: the game counts once, from its clean copy, with the result the rules give
    table = result.summary["standings"]["eben-emael-12-1"]
    assert sum(r["w"] for r in table.values()) == 1 and "eben-emael-12-1-example" not in result.summary["left_out"]
    winner = next(a for a, r in table.items() if r["w"])
    assert rows["clean/eben-emael-12-1"].players["german"] == winner


def test_a_wrong_reveal_does_not_match_the_genesis_commitment(tournament):
    _root, _res, rows, info = tournament
    row = rows["damaged/wrong-reveal"]
    (f,) = findings(row, "seed", ERROR)
    assert f.seq == info["wrong-reveal"] and "does not match the genesis commitment" in f.text
    assert row.dice_checked == "recorded rolls only"
    assert not findings(row, "rules")                        # the rules still agree with the recorded rolls


def test_an_unveiled_secret_must_match_its_commitment(tournament):
    _root, _res, rows, info = tournament
    row = rows["damaged/secret-mismatch"]
    (f,) = findings(row, "secret", ERROR)
    n = info["secret-mismatch"]
    assert f.seq == n and "'polish-dz' of british does not match its commitment" in f.text
    assert findings(row, "rules", ERROR)[0].seq == n         # the rules open the sealed text, not this one


def test_secrets_never_unveiled_are_a_note(tournament):
    _root, _res, rows, _ = tournament
    (f,) = findings(rows["clean/eben-emael-12-2"], "secret")
    assert f.severity == NOTE and "of belgian never unveiled by the end of the game" in f.text


def test_another_ruleset_version_is_a_warning_and_nothing_is_re_run(tournament):
    _root, _res, rows, _ = tournament
    row = rows["damaged/old-ruleset"]
    (f,) = findings(row, "ruleset", WARNING)
    assert "ruleset version 0-" in f.text and "were not re-run" in f.text
    assert not row.rules_checked and not findings(row, "chain")


def test_the_same_game_id_with_different_logs(tournament):
    _root, _res, rows, info = tournament
    n = info["forked"]
    for name, other in (("damaged/forked", "clean/crete"), ("clean/crete", "damaged/forked")):
        row = rows[name]
        assert row.rules_checked and row.finished                      # each copy is valid on its own
        (f,) = findings(row, "duplicate", ERROR)
        assert f.seq == n and f"they part at seq {n}" in f.text and other in f.text
    # a different GameCreated under the same id: two games, not two copies
    (f,) = findings(rows["damaged/old-ruleset"], "duplicate", ERROR)
    assert "a different game" in f.text and "clean/eben-emael-12-2" in f.text


def test_an_order_after_its_running_deadline(tournament):
    _root, _res, rows, info = tournament
    row = rows["running/late"]
    (f,) = findings(row, "deadline", WARNING)
    assert f.seq == info["late"] and "after the deadline of its movement (2026-03-02T00:00:00Z)" in f.text
    (n,) = findings(row, "deadline", NOTE)                   # the earlier ones cannot be told
    assert "cannot be told" in n.text and "1 order(s) came more than the period (1d)" in n.text
    assert any("not revealed yet" in f.text for f in findings(row, "seed", NOTE))
    assert not row.finished and row.waiting


def test_scripted_dice_are_flagged(tournament):
    _root, _res, rows, _ = tournament
    row = rows["running/scripted"]
    (f,) = findings(row, "dice", WARNING)
    assert "scripted dice" in f.text


def test_scripted_dice_in_a_game_that_claims_to_be_seeded(tournament, tmp_path):
    root, _res, _rows, _ = tournament
    g = tmp_path / "claims-seeded"
    shutil.copytree(root / "running" / "scripted", g)
    edit(g, "GameCreated", b'"dice_mode":"scripted"', b'"dice_mode":"seeded"')
    assert find_games([g / "log.jsonl"]) == [g]         # a log named directly stands for its folder
    row = audit_game(g)
    texts = [f.text for f in findings(row, "dice", ERROR)]
    assert any("claims to be seeded but GameCreated carries 3 scripted dice values" in t for t in texts)
    assert any("seed commitment '' is not a sha256" in t for t in texts)


def test_summary_standings_and_running_games(tournament):
    _root, result, rows, _ = tournament
    s = result.summary
    assert s["games"] == len(rows)
    # el-alamein's clean copy has forged twins (errors of their own): the copy that verifies counts
    assert s["standings"]["el-alamein"]["auchinleck@example.org"] == {"w": 1, "d": 0, "l": 0}
    clean = rows["clean/el-alamein"]
    assert not clean.count(ERROR), [f.text for f in clean.findings if f.severity == ERROR]
    assert any(f.text.endswith(f"only {clean.path} verifies") for f in findings(clean, "duplicate", NOTE))
    running = {r["game_id"] for r in s["running"]}
    assert running == {"late", "scripted"}
    for sc, table in s["standings"].items():
        assert sum(r["w"] for r in table.values()) == sum(r["l"] for r in table.values()), sc


def test_audit_game_never_raises(tmp_path):
    (tmp_path / "log.jsonl").write_bytes(b"not json\n")
    row = audit_game(tmp_path)
    assert row.findings and row.findings[-1].severity == ERROR


# --- the command --------------------------------------------------------------------------

def test_cli_clean_games_exit_0(tournament):
    root, _res, _rows, _ = tournament
    res = CliRunner().invoke(main, ["audit", "-j", "1", str(root / "clean" / "el-alamein"),
                                    str(root / "clean" / "kharkov")])
    assert res.exit_code == 0, res.output
    assert "el-alamein-example" in res.output and "auchinleck@example.org" in res.output
    assert "standings" in res.output and "2 game(s): 2 clean" in res.output


def test_cli_json_lines_and_exit_1(tournament):
    root, _res, _rows, info = tournament
    res = CliRunner().invoke(main, ["audit", "--json", "-q", "-j", "2", str(root / "clean" / "el-alamein"),
                                    str(root / "damaged" / "line-forged")])
    assert res.exit_code == 1
    rows = [json.loads(x) for x in res.stdout.splitlines()]
    assert [r["type"] for r in rows] == ["game", "game", "summary"]
    forged = next(r for r in rows[:2] if r["path"].endswith("line-forged"))
    assert forged["game_id"] == "el-alamein-example" and forged["head"] and forged["result"]["winner"] == "british"
    assert any(f["code"] == "rules" and f["severity"] == "error" and f["seq"] == info["line-forged"]
               for f in forged["findings"])
    clean = next(r for r in rows[:2] if r is not forged)
    assert forged["errors"] and not clean["errors"]          # the forgery casts no doubt on the copy that verifies
    assert any(f["severity"] == "warning" and "that copy does not verify, this one does" in f["text"]
               for f in clean["findings"])
    assert rows[-1]["with_errors"] == 1 and rows[-1]["standings"]["el-alamein"]


def test_cli_strict_fails_on_warnings(tournament):
    root, _res, _rows, _ = tournament
    game = str(root / "running" / "scripted")
    assert CliRunner().invoke(main, ["audit", "-q", game]).exit_code == 0
    res = CliRunner().invoke(main, ["audit", "-q", "--strict", game])
    assert res.exit_code == 1 and "scripted dice" in res.output


def test_cli_usage_errors_exit_2(tmp_path):
    res = CliRunner().invoke(main, ["audit", str(tmp_path)])
    assert res.exit_code == 2 and "no game folder" in res.output
    assert CliRunner().invoke(main, ["audit", str(tmp_path / "nowhere")]).exit_code == 2
    assert CliRunner().invoke(main, ["audit"]).exit_code == 2
    assert CliRunner().invoke(main, ["audit", "--jobs", "0", str(tmp_path)]).exit_code == 2


def test_cli_progress_as_plain_lines_when_not_a_terminal(tournament):
    root, _res, _rows, _ = tournament
    res = CliRunner().invoke(main, ["audit", "-j", "1", str(root / "running")])
    assert "audit: 2/2 games" in res.stderr


def test_copies_of_one_game_are_noted_not_counted_twice(played_example, tmp_path):
    for n in range(3):
        played_example("el-alamein").copy(tmp_path / f"copy{n}")
    shutil.rmtree(tmp_path / "copy2" / "reports")
    result = audit([tmp_path], jobs=1)
    assert all(findings(g, "duplicate", NOTE) and not g.count(ERROR) for g in result.games)
    assert result.summary["standings"]["el-alamein"]["auchinleck@example.org"] == {"w": 1, "d": 0, "l": 0}
