"""`pbem diff` (issue 15): two copies of one game, the first seq where they
part, both events in words and as JSON, each copy's chain, the head each
side's last report named (reported.json, Game.last_report)."""
from __future__ import annotations

import json

from click.testing import CliRunner

from pbem.cli import main
from pbem.referee.diff import compare, differing, report_rows, to_json
from test_audit import edit, lines_of, rewrite


def _diff(*args):
    return CliRunner().invoke(main, ["diff", *map(str, args)])


def test_identical_copies_exit_0(played_example, tmp_path):
    ex = played_example("el-alamein")
    copy = ex.copy(tmp_path / "copy")
    res = _diff(ex.dir, copy)
    assert res.exit_code == 0, res.output
    assert "the logs are identical (244 events)" in res.output
    assert res.output.count("chain intact; anchored by log.head") == 2
    data = json.loads(_diff(ex.dir, copy, "--json").stdout)
    assert data["identical"] and data["parted_at"] is None
    assert all(r["A"]["where"] == "common to both copies" for r in data["reports"])


def test_a_copy_with_one_order_more(played_example, tmp_path):
    ex = played_example("el-alamein")
    a, b = ex.copy(tmp_path / "a"), ex.copy(tmp_path / "b")
    lines = lines_of(ex.dir)                    # seq 8: axis orders "move 115 ...", seq 9 the move
    rewrite(a, lines[:8])
    rewrite(b, lines[:10])
    (a / "reported.json").write_text(json.dumps({"axis": 7}))
    (b / "reported.json").write_text(json.dumps({"axis": 7, "british": 9}))
    d = compare(a, b)
    assert d.parted_at == 8 and d.event(d.a) is None and d.event(d.b).kind == "OrderGiven"
    assert d.a.chain.intact and d.b.chain.intact and not d.a.chain.anchor_problem
    rows = {r["side"]: r for r in report_rows(d)}
    assert rows["axis"]["A"] == {"seq": 7, "head": d.a.chain.lines[7].hash, "where": "common to both copies"}
    assert rows["british"]["A"]["seq"] is None and rows["british"]["B"]["where"] == "only in B"
    res = _diff(a, b)
    assert res.exit_code == 1
    assert "the copies part at seq 8 (seq 0..7 are identical)" in res.output
    assert "(nothing: this copy ends at seq 7)" in res.output
    assert "B in words:" in res.output and "move 115 0612 0712 0811" in res.output
    assert "they differ in" not in res.output
    assert "A has 0 event(s) from seq 8 on" in res.output and "B has 2 event(s) from seq 8 on (to seq 9)" in res.output
    data = json.loads(_diff(a, b, "--json").stdout)
    assert data["events"]["A"] is None
    assert data["events"]["B"]["json"]["body"] == {"side": "axis", "text": "move 115 0612 0712 0811"}


def test_a_copy_with_an_altered_event(played_example, tmp_path):
    ex = played_example("el-alamein")
    b = ex.copy(tmp_path / "b")
    n = edit(b, "UnitMoved", b'"path":["0612","0712","0812"]', b'"path":["0612","0712","0813"]')   # re-chained
    d = compare(ex.dir, b)
    assert d.parted_at == n and differing(d) == ["body.path"]
    assert d.a.chain.intact and d.b.chain.intact
    res = _diff(ex.dir, b)
    assert res.exit_code == 1
    assert "* body.path" in res.output and "they differ in: body.path" in res.output
    assert '"path": ["0612", "0712", "0813"]' in res.output                     # B as JSON
    j = to_json(d)
    assert j["events"]["A"]["json"]["body"]["path"] == ["0612", "0712", "0812"]
    assert "0812" in j["events"]["A"]["words"] and "0813" in j["events"]["B"]["words"]


def test_a_broken_chain(played_example, tmp_path):
    ex = played_example("el-alamein")
    b = ex.copy(tmp_path / "b")
    n = edit(b, "UnitMoved", b'"path":["0612","0712","0812"]', b'"path":["0612","0712","0813"]', rechain=False)
    d = compare(ex.dir, b)
    assert d.parted_at == n
    assert d.a.chain.intact and not d.b.chain.intact and d.b.chain.broken_at == n + 1
    res = _diff(ex.dir, b, "--json")
    data = json.loads(res.stdout)
    assert res.exit_code == 1
    assert data["b"]["chain_intact"] is False and data["b"]["broken_at"] == n + 1
    assert "does not hash to the head recorded in log.head" in data["b"]["anchor_problem"]
    assert f"chain BROKEN: the chain breaks at seq {n + 1}" in _diff(ex.dir, b).output


def test_a_side_sees_no_sealed_text(played_example, tmp_path):
    """design.md, Decisions and secrets: the other side sees only the commitment."""
    ex = played_example("red-devils")
    b = ex.copy(tmp_path / "b")
    edit(b, "SecretRecorded", b'"payload":"1716 2617"', b'"payload":"1716 2618"')
    res = _diff(ex.dir, b, "--as", "german")
    assert res.exit_code == 1
    assert "2617" not in res.output and "2618" not in res.output
    assert "they differ in what german may not see" in res.output
    assert "2618" in _diff(ex.dir, b).output                              # the referee sees it


def test_usage_errors_exit_2(played_example, tmp_path):
    ex = played_example("el-alamein")
    (tmp_path / "empty").mkdir()
    res = _diff(ex.dir, tmp_path / "empty")
    assert res.exit_code == 2 and "not a pbem game folder" in res.output
    assert _diff(ex.dir, tmp_path / "nowhere").exit_code == 2
    assert _diff(ex.dir, ex.dir, "--as", "nobody").exit_code == 2
