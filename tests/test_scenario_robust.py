"""Scenario files that are broken in any way are refused with readable lines,
never a traceback (issue 10, item 12).

``mutants()`` is a deterministic mutation fuzzer: it takes every shipped
scenario and derives broken copies (keys deleted, values of the wrong type,
emptied lists and tables, negative and huge numbers, odd strings, hexes off
the map or of five digits, maps over 99 columns, duplicated ids, unknown keys
at every level, missing CRT rows...).  Each mutant must load, lint and create a
game, or be refused with ScenarioError/EngineError -- no other exception.
"""
from __future__ import annotations

import copy
import json
import math
import random
import tomllib
from pathlib import Path

import msgspec
import pytest
from click.testing import CliRunner

from pbem.core import scenario as S
from pbem.cli import main
from pbem.engine import EngineError, Game
from pbem.games import ruleset_for

SEED = 12
PER_SCENARIO = 12          # random mutants per shipped scenario, on top of the targeted ones


# --- a tiny TOML writer (every table inline: enough for round trips) -------------

def _toml(v) -> str:
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, int):
        return str(v)
    if isinstance(v, float):
        return "nan" if math.isnan(v) else ("inf" if v > 0 else "-inf") if math.isinf(v) else repr(v)
    if isinstance(v, str):
        return json.dumps(v)
    if isinstance(v, list):
        return "[" + ", ".join(_toml(x) for x in v) + "]"
    if isinstance(v, dict):
        return "{" + ", ".join(f"{json.dumps(k)} = {_toml(x)}" for k, x in v.items()) + "}"
    raise TypeError(type(v))


def dumps(data: dict) -> str:
    return "".join(f"{json.dumps(k)} = {_toml(v)}\n" for k, v in data.items())


# --- mutations ---------------------------------------------------------------------

WRONG_TYPE = [0, -1, 1.5, math.inf, True, "x", [], {}, ["0101"], {"bogus": 1}, [[]]]
ODD_STRINGS = ["", " ", "x", "\u00e9\u00e8", "\u00b2", "0101x", "01234", "99999", "-001", "9999", "0000", "0199",
               "9901", "\n", "N", "P", "1/0", "north", "up"]
ODD_INTS = [0, -1, -10**12, 10**12, 1, 7, 99, 100]


def _copy(data: dict) -> dict:
    """A deep copy (of parsed TOML, faster than copy.deepcopy)."""
    return msgspec.json.decode(msgspec.json.encode(data))


def paths(node, here=()):
    """Every (path, value) in a parsed TOML tree, the root excluded."""
    items = node.items() if isinstance(node, dict) else enumerate(node) if isinstance(node, list) else ()
    for k, v in items:
        yield here + (k,), v
        yield from paths(v, here + (k,))


def _parent(data, path):
    for k in path[:-1]:
        data = data[k]
    return data


def mutate(data: dict, rng: random.Random) -> tuple[str, dict]:
    """One random mutation of a deep copy of ``data``: (description, mutant).

    Most keep the value's type (so the mutant gets past the schema and on to
    lint and game creation); strings are often swapped for another string of
    the same file, which mixes up ids, hexes and names."""
    d = _copy(data)
    every = list(paths(d))
    strings = [v for _, v in every if isinstance(v, str)]
    path, value = rng.choice(every)
    parent, key = _parent(d, path), path[-1]
    kind = rng.choice(["delete", "type", "same", "same", "same", "same", "unknown", "duplicate"])
    if kind == "delete":
        del parent[key]
    elif kind == "type":
        parent[key] = copy.deepcopy(rng.choice(WRONG_TYPE))
    elif kind == "unknown" and isinstance(value, dict):
        value["bogus_key"] = 1
    elif kind == "duplicate" and isinstance(parent, list):
        parent.append(copy.deepcopy(value))
    elif isinstance(value, bool):
        parent[key] = not value
    elif isinstance(value, int):
        parent[key] = rng.choice(ODD_INTS)
    elif isinstance(value, str):
        parent[key] = rng.choice(ODD_STRINGS + [rng.choice(strings)] * 6)
    elif isinstance(value, list):
        parent[key] = rng.choice([[], value[::-1], value[1:], value + value[:1]])
    elif isinstance(value, dict):
        parent[key] = {} if rng.random() < 0.5 else dict(list(value.items())[1:])
    else:
        del parent[key]
    return f"{kind} {'.'.join(map(str, path))}", d


def _first(path) -> bool:
    """Skip all but the first element of lists, and tables keyed by data (hexes, die rolls)."""
    return all(k == 0 if isinstance(k, int) else k.isidentifier() for k in path)


def targeted(data: dict) -> tuple[list, list]:
    """Hand-picked mutations as (description, change) pairs: the structural ones
    (map bounds, the CRT, dice, turns, ids), and unknown names or keys per table."""
    m = data["map"]
    wide = m["last_col"] - m["first_col"] + 1
    setter = lambda key, value: lambda d: d.update({key: value})          # noqa: E731
    on_map = lambda **kw: lambda d: d["map"].update(kw)                   # noqa: E731
    structural = [
        ("100 columns", lambda d: d["map"].update(last_col=m["first_col"] + 99, rows=[
            r.replace(" ", "") + "." * (100 - wide) for r in m["rows"]])),
        ("last_col 120", on_map(last_col=120)),
        ("last_row 150", on_map(last_row=150)),
        ("first_col > last_col", on_map(first_col=m["last_col"] + 1)),
        ("first_row 0", on_map(first_row=0)),
        ("negative first_col", on_map(first_col=-3)),
        ("offset", on_map(offset="sideways")),
        ("no rows", on_map(rows=[])),
        ("rows not strings", lambda d: d["map"]["rows"].__setitem__(0, 7)),
        ("crt row missing", lambda d: d["crt"]["rows"].pop(next(iter(d["crt"]["rows"])))),
        ("crt rows empty", lambda d: d["crt"].update(rows={})),
        ("crt row '\u00b2'", lambda d: d["crt"]["rows"].update({"\u00b2": d["crt"]["rows"]["1"]})),
        ("legend key of two characters", lambda d: d["map"]["legend"].update({"ab": "clear"})),
        ("crt columns empty", lambda d: d["crt"].update(columns=[])),
        ("die 0", setter("die", 0)),
        ("die huge", setter("die", 10**9)),
        ("turns negative", setter("turns", -1)),
        ("turns huge", setter("turns", 10**12)),
        ("no sequence", setter("sequence", [])),
        ("no sides", setter("sides", [])),
        ("no units", setter("units", [])),
        ("no terrain", setter("terrain", {})),
        ("duplicate unit", lambda d: d["units"].append(dict(d["units"][0]))),
        ("duplicate side", lambda d: d["sides"].append(dict(d["sides"][0]))),
        ("five-digit unit hex", lambda d: d["units"][0].update(hex="01234")),
        ("unit hex off map", lambda d: d["units"][0].update(hex="9999")),
        ("game_data empty", setter("game_data", {})),
        ("victory empty", setter("victory", {})),
    ]
    per_table = []
    for path, value in paths({k: data[k] for k in ("game_data", "victory") if k in data}):
        if isinstance(value, list) and all(isinstance(x, str) for x in value) and _first(path):
            per_table.append((f"unknown name in {'.'.join(map(str, path))}",
                              lambda d, path=path: _parent(d, path)[path[-1]].append("Nobody")))
    for path, value in [((), data), *paths(data)]:
        if isinstance(value, dict) and _first(path):
            per_table.append((f"unknown key in {'.'.join(map(str, path)) or 'top level'}",
                              lambda d, path=path: (_parent(d, path)[path[-1]] if path else d).update(bogus_key="?")))
    return structural, per_table


def mutants(per_scenario: int = PER_SCENARIO, per_table: int = 8):
    """(scenario stem, description, TOML text) for every mutant, deterministically.

    Each structural mutation is applied to two of the shipped scenarios, in turn;
    each scenario also gets ``per_table`` unknown names/keys and ``per_scenario``
    random mutations."""
    rng = random.Random(SEED)
    for n, p in enumerate(S.shipped()):
        data = tomllib.loads(p.read_text(encoding="utf-8"))
        structural, tables = targeted(data)
        chosen = [c for k, c in enumerate(structural) if k % 4 == n % 4]
        chosen += rng.sample(tables, min(per_table, len(tables)))
        seen: set[str] = set()
        for desc, d in [(desc, _changed(data, fn)) for desc, fn in chosen] + \
                [mutate(data, rng) for _ in range(per_scenario)]:
            text = dumps(d)
            if text not in seen:
                seen.add(text)
                yield p.stem, desc, text


def _changed(data: dict, fn) -> dict:
    d = _copy(data)
    fn(d)
    return d


def exercise(path: Path, game_dir: Path) -> str:
    """Load, lint and create a game from ``path``: 'refused' at load, 'lint' (refused by
    `pbem new` for what lint finds), 'variant' (created: lint finds only differences from
    the printed game) or 'ok'.  A game never starts from data its rules would misread."""
    try:
        sc = S.load(path)
    except S.ScenarioError as e:
        assert str(e) and "Traceback" not in str(e)
        return "refused"
    problems = ruleset_for(sc.game).scenario_problems(sc)
    misread = [p for p in problems if not isinstance(p, S.Printed)]
    try:
        Game.create(game_dir, str(path), seed_hex="11" * 32)
    except EngineError as e:
        assert str(e) and "Traceback" not in str(e)
        assert misread and misread[0] in str(e), str(e)       # refused for what lint says, in its words
        return "lint"
    assert not misread, misread
    return "variant" if problems else "ok"


# --- the fuzzer as a test -------------------------------------------------------------

def test_shipped_scenarios_load_and_lint_clean():
    for p in S.shipped():
        sc = S.load(p)
        rules = ruleset_for(sc.game)
        assert rules.scenario_problems(sc) == [], p.name


def test_mutated_scenarios_are_refused_in_words_never_with_a_traceback(tmp_path):
    outcomes: dict[str, int] = {}
    for i, (stem, desc, text) in enumerate(mutants()):
        p = tmp_path / f"{stem}-{i}.toml"
        p.write_text(text, encoding="utf-8")
        try:
            got = exercise(p, tmp_path / f"g{i}")
        except Exception as e:                              # pragma: no cover - the failure report
            pytest.fail(f"{stem}, {desc}: {type(e).__name__}: {e}")
        outcomes[got] = outcomes.get(got, 0) + 1
    # The mutants reach every stage: refused at load, refused by lint at `pbem new`, and played.
    assert outcomes.get("refused", 0) > 100 and outcomes.get("lint", 0) > 20 and outcomes.get("ok", 0) > 5, outcomes


# --- readable problems ------------------------------------------------------------------

ROOT = Path(__file__).resolve().parent.parent


def run(*args):
    return CliRunner().invoke(main, [str(a) for a in args], catch_exceptions=False)


def shipped(name: str = "el-alamein") -> dict:
    return tomllib.loads((ROOT / "scenarios" / f"{name}.toml").read_text(encoding="utf-8"))


def write(tmp_path: Path, data: dict, name: str = "bad.toml") -> Path:
    p = tmp_path / name
    p.write_text(dumps(data), encoding="utf-8")
    return p


def test_lint_lists_every_schema_problem_with_its_key_path(tmp_path):
    d = shipped()
    d["map"]["rows"][3] = 7
    d["units"][0]["hex"] = "01234"
    d["units"][1]["colour"] = "red"
    d["crt"].pop("columns")
    d["victory"]["objective_hexes"] = "0802"
    d["victory"]["bogus"] = 1
    p = write(tmp_path, d)
    r = run("scenario", "lint", p)
    assert r.exit_code == 1 and "Traceback" not in r.output
    lines = r.stdout.splitlines()
    assert f"{p}: map.rows[3]: Expected str, got int" in lines
    assert f"{p}: units[0].hex: hex number '01234' has 5 digits; it must have exactly four, XXYY " \
           "(column 00-99, row 00-99)" in lines
    assert any(ln.startswith(f"{p}: units[1].colour: unknown key (known here: id, side,") for ln in lines)
    assert f"{p}: crt.columns: missing" in lines
    assert f"{p}: victory.objective_hexes: Expected array, got str" in lines
    assert any(ln.startswith(f"{p}: victory.bogus: unknown key") for ln in lines)
    assert len(lines) == 6
    assert "6 problem(s) in" in r.stderr


def test_maps_over_99_columns_or_rows_are_refused_clearly(tmp_path):
    d = shipped()
    d["map"]["last_col"] = 100
    d["map"]["rows"] = [r + "." * 80 for r in d["map"]["rows"]]
    r = run("scenario", "lint", write(tmp_path, d))
    assert r.exit_code == 1 and "Traceback" not in r.output
    assert "map: columns 1..100: hex numbers are four digits XXYY, so columns and rows run from 00 to 99" in r.stdout
    d["map"]["last_col"], d["map"]["first_row"] = 20, 15          # first row after the last
    r = run("scenario", "lint", write(tmp_path, d))
    assert "map: rows 15..14: hex numbers are four digits" in r.stdout


def test_lint_goes_on_after_each_semantic_problem(tmp_path):
    d = shipped()
    d["units"][0]["hex"] = "9999"
    d["units"][1]["side"] = "martians"
    d["units"].append(dict(d["units"][2]))
    d["crt"]["rows"].pop("3")
    d["map"]["hexsides"] = [{"a": "0101", "b": "0505", "feature": "river", "up": "0102"}]
    r = run("scenario", "lint", write(tmp_path, d))
    assert r.exit_code == 1 and "Traceback" not in r.output
    for want in ("units[8Pz]: hex 9999 is not on the map", "unknown side 'martians'", "duplicate unit id",
                 "crt.rows: no row for die roll 3", "map.hexsides[0]: 0101 and 0505 are not adjacent",
                 "map.hexsides[0].up: '0102' is neither a (0101) nor b (0505)"):
        assert want in r.stdout


def test_game_data_is_checked_against_the_games_schema(tmp_path):
    d = shipped("operation-compass")
    d["game_data"]["s_units"].append("Nobody")
    r = run("scenario", "lint", write(tmp_path, d))
    assert r.exit_code == 1 and "game_data.s_units[4]: no unit 'Nobody' in [units]" in r.stdout
    d = shipped("crete")
    d["game_data"]["maps"]["west"]["first_col"] = "one"
    d["game_data"]["scatter_directions"][0] = "up"
    r = run("scenario", "lint", write(tmp_path, d))
    assert "game_data.maps.west.first_col: Expected int, got str" in r.stdout
    assert "game_data.scatter_directions[0]: must be one of 'N', 'NE', 'SE', 'S', 'SW', 'NW', got 'up'" in r.stdout


def test_new_with_a_broken_scenario_is_one_clear_line(tmp_path):
    d = shipped()
    d["turns"] = "four"
    d["units"][0]["hex"] = "01234"
    r = run("new", tmp_path / "g", "--scenario", write(tmp_path, d))
    assert r.exit_code == 1 and "Traceback" not in r.output
    assert r.stderr.count("\n") == 1
    assert r.stderr.startswith(f"pbem: {tmp_path / 'bad.toml'}: turns: Expected int, got str (and 1 more problem(s)")
    assert not (tmp_path / "g").exists()
    d = shipped()
    d["map"]["last_col"] = 120
    r = run("new", tmp_path / "g", "--scenario", write(tmp_path, d))
    assert r.exit_code == 1 and r.stderr.count("\n") == 1 and "run from 00 to 99" in r.stderr


def test_not_toml_and_missing_files_are_one_line(tmp_path):
    p = tmp_path / "bad.toml"
    p.write_text("id = \n")
    for args in (("scenario", "lint", p), ("new", tmp_path / "g", "--scenario", p),
                 ("scenario", "lint", tmp_path / "nothing.toml")):
        r = run(*args)
        assert r.exit_code == 1 and r.stderr.count("\n") == 1 and "Traceback" not in r.output


def test_parse_hex_refuses_five_digits_in_words():
    from pbem.core.hexgrid import parse_hex
    with pytest.raises(ValueError, match=r"hex number '01234' has 5 digits; it must have exactly four, XXYY"):
        parse_hex("01234")


@pytest.mark.parametrize("tok", ["0512\n", "٠٥١٢", "05123", "512"])
def test_an_order_hex_is_exactly_four_ascii_digits(tok):
    # 12: the same hex rule as scenario files, for orders (non-ASCII digits, a trailing newline refused)
    from pbem.core.orders import HEX_RE
    assert HEX_RE.match(tok) is None
    assert HEX_RE.match("0512") is not None
