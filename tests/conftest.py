"""Fixtures and helpers for the El Alamein rules tests.

Small test scenarios
--------------------
``write_scenario`` writes a TOML scenario with the same structure as
``scenarios/el-alamein.toml`` (game = "el-alamein", the same sides, sequence,
terrain table, CRT and victory keys) but a small map and a unit list chosen by
each test, so that every test sets up exactly the position it needs.

Default map (8 columns x 8 rows, "even-down": even columns sit half a hex
lower; col 01 is the west edge, row 01 the north edge)::

         col 1 2 3 4 5 6 7 8
    row 01   ~ ~ ~ ~ ~ ~ ~ ~      sea (impassable, 8.3(6))
    row 02   c c c c c c c c      coast
    row 03   . . . . . . . .
    row 04   . . . . . . . .
    row 05   . . . . . . . .
    row 06   . . . . . ^ . .      0606 highlands
    row 07   . . . . . . v .      0707 village
    row 08   . . . . . ^ ^ .      0608, 0708 highlands

    battle positions (British): 0806 (desert) and 0708 (in highlands)
    victory: objective_hexes = ["0802"]  (stands for El Alamein / road east)
             alam_halfa_positions = ["0806"]

Neighbours on this grid: an odd column c, row r touches (c, r-1), (c, r+1),
(c+-1, r-1) and (c+-1, r); an even column touches (c, r-1), (c, r+1),
(c+-1, r) and (c+-1, r+1).  E.g. 0404 touches 0403 0504 0505 0405 0305 0304.

Fixed CRT
---------
The test scenario carries the shipped (reconstructed) table, so results are
predictable from the scripted die.  One line per odds column, the results for
die rolls 1 to 6 from left to right::

    1:2  AR   AR   AE   AE   AE   AE
    1:1  DR1  AR   AR   AR   AE   AE
    2:1  DR1  DR1  DR1  AR   AR   AE
    3:1  DR2  DR1  DR1  DR1  AR   AR
    4:1  DE   DR2  DR2  DR1  DR1  AR
    5:1  DE   DE   DR2  DR2  DR2  DR1
    6:1  DE   DE   DE   DE   DR2  DR2

Phases (index into the sequence): 0 axis movement, 1 axis combat,
2 british movement, 3 british combat.
"""
from __future__ import annotations

import fcntl
import json
import os
import shutil
from pathlib import Path

import pytest
from hypothesis import settings

# Property tests are about outcomes, not speed: no per-example deadline, so a
# busy CI machine cannot turn a slow example into a failure.
settings.register_profile("pbem", deadline=None)
settings.load_profile("pbem")

from pbem.core import events as E
from pbem.engine import Game, Submission
from pbem.core.orders import OrderError

CRT_COLUMNS = ["1:2"] + [f"{n}:1" for n in range(1, 7)]       # 9.2: 1:2 up to 6:1
CRT_ROWS = {
    1: ["AR", "DR1", "DR1", "DR2", "DE", "DE", "DE"],
    2: ["AR", "AR", "DR1", "DR1", "DR2", "DE", "DE"],
    3: ["AE", "AR", "DR1", "DR1", "DR2", "DR2", "DE"],
    4: ["AE", "AR", "AR", "DR1", "DR1", "DR2", "DE"],
    5: ["AE", "AE", "AR", "AR", "DR1", "DR2", "DR2"],
    6: ["AE", "AE", "AE", "AR", "AR", "DR1", "DR2"],
}


def crt(die: int, column: str) -> str:
    """The result the test CRT gives for a die roll on a column."""
    return CRT_ROWS[die][CRT_COLUMNS.index(column)]


DEFAULT_ROWS = [
    "~~~~~~~~",  # 01
    "cccccccc",  # 02
    "........",  # 03
    "........",  # 04
    "........",  # 05
    ".....^..",  # 06
    "......v.",  # 07
    ".....^^.",  # 08
]
DEFAULT_BATTLE_POSITIONS = ["0806", "0708"]
DEFAULT_OBJECTIVES = ["0802"]
DEFAULT_ALAM_HALFA = ["0806"]

MOVEMENT, COMBAT = "movement", "combat"
AXIS_MOVE, AXIS_COMBAT, BRIT_MOVE, BRIT_COMBAT = 0, 1, 2, 3


def U(uid: str, side: str, strength: int, ma: int, hex: str, nationality: str | None = None) -> dict:
    """A unit line for a test scenario."""
    nat = nationality or ("german" if side == "axis" else "british")
    return {"id": uid, "side": side, "nationality": nat, "type": "infantry", "size": "X",
            "strength": strength, "ma": ma, "hex": hex}


def _s(v: str) -> str:
    return json.dumps(v)          # a TOML basic string for plain ASCII text


def _list(xs) -> str:
    return "[" + ", ".join(_s(x) for x in xs) + "]"


def scenario_text(units: list[dict], *, rows: list[str] | None = None,
                  battle_positions: list[str] | None = None, objectives: list[str] | None = None,
                  alam_halfa: list[str] | None = None, turns: int = 4, scenario_id: str = "test-el-alamein",
                  roads: list[str] | None = None) -> str:
    rows = DEFAULT_ROWS if rows is None else rows
    bps = DEFAULT_BATTLE_POSITIONS if battle_positions is None else battle_positions
    objectives = DEFAULT_OBJECTIVES if objectives is None else objectives
    alam_halfa = DEFAULT_ALAM_HALFA if alam_halfa is None else alam_halfa
    unit_lines = []
    for u in units:
        unit_lines.append("  { " + ", ".join(
            f"{k} = {_s(v) if isinstance(v, str) else v}" for k, v in u.items()) + " },")
    track = "\n".join(f"  {{ turn = {t}, label = \"turn {t}\" }}," for t in range(1, turns + 1))
    road = ""
    if roads:
        road = f"\n[map.features.road]\nrule = \"8.3(7)\"\nhexes = {_list(roads)}\n"
    return f"""# Test scenario: el-alamein rules on a small map (tests/conftest.py).
id = {_s(scenario_id)}
title = "El Alamein rules test"
game = "el-alamein"
family = "panzer-corps"
turns = {turns}
die = 6
source = "tests"

sides = [
  {{ id = "axis", name = "German-Italian", nationalities = ["german", "italian"] }},
  {{ id = "british", name = "British Commonwealth", nationalities = ["british"] }},
]
sequence = [
  {{ side = "axis", name = "movement", rule = "5.0" }},
  {{ side = "axis", name = "combat", rule = "5.0" }},
  {{ side = "british", name = "movement", rule = "5.0" }},
  {{ side = "british", name = "combat", rule = "5.0" }},
]
turn_track = [
{track}
]
units = [
{chr(10).join(unit_lines)}
]

[victory]
objective_hexes = {_list(objectives)}
alam_halfa_positions = {_list(alam_halfa)}
axis_check_after = "british"
break_side = "british"
break_edge = "west"
default_winner = "british"

[terrain.desert]
move_cost = 1
[terrain.highlands]
move_cost = 2
defence = 2
[terrain.village]
move_cost = 1
defence = 2
[terrain.coast]
move_cost = 1
[terrain.sea]
impassable = true

[crt]
columns = {_list(CRT_COLUMNS)}
[crt.rows]
{chr(10).join(f"{d} = {_list(r)}" for d, r in CRT_ROWS.items())}

[map]
first_col = 1
last_col = {len(rows[0])}
first_row = 1
last_row = {len(rows)}
offset = "even-down"
legend = {{ "~" = "sea", "c" = "coast", "." = "desert", "^" = "highlands", "v" = "village" }}
rows = {_list(rows)}

[map.features.battle_position]
side = "british"
defence = 2
hexes = {_list(bps)}
{road}"""


def write_scenario(directory: Path, units: list[dict], name: str = "scenario.toml", **kw) -> Path:
    directory.mkdir(parents=True, exist_ok=True)
    path = directory / name
    path.write_text(scenario_text(units, **kw), encoding="utf-8")
    return path


class Table:
    """A game under test with assertion helpers."""

    def __init__(self, game: Game):
        self.game = game

    # reading
    @property
    def log_path(self) -> Path:
        return self.game.log.path

    def log_bytes(self) -> bytes:
        return self.log_path.read_bytes()

    def state(self):
        return self.game.state()

    def unit(self, uid: str):
        return self.game.state().units[uid]

    def hex_of(self, uid: str) -> str | None:
        return self.unit(uid).hex

    def awaiting(self) -> list[dict]:
        return self.game.rules.awaiting(self.game.state(), self.game.scenario)

    def phase(self) -> tuple[int, int]:
        st = self.game.state()
        return st.turn, st.phase

    # writing
    def ok(self, side: str, text: str) -> list[E.Event]:
        """Submit orders that must all apply; return the events they produced (OrderGiven left out)."""
        sub = self.game.submit(side, text)
        assert sub.refused is None, f"refused: {sub.refused}"
        return events_of(sub)

    def refuse(self, side: str, text: str, rule: str | None = None, match: str | None = None) -> OrderError:
        """Submit one order that must be refused and leave the log byte-for-byte unchanged."""
        before = self.log_bytes()
        head = self.game.head()
        sub = self.game.submit(side, text)
        assert sub.refused is not None, f"expected a refusal, got {events_of(sub)}"
        assert sub.applied == []
        assert self.log_bytes() == before, "a refused order changed log.jsonl"
        assert (sub.seq, sub.head) == head
        err = sub.refused
        if rule is not None:
            assert err.rule == rule, f"rule {err.rule!r} != {rule!r}: {err}"
        if match is not None:
            assert match.lower() in err.message.lower(), f"{match!r} not in {err.message!r}"
        return err

    def end(self, side: str | None = None) -> list[E.Event]:
        """End the current phase (side: whose phase it is, by default)."""
        st = self.game.state()
        side = side or self.game.scenario.sequence[st.phase].side
        return self.ok(side, "end")

    def goto(self, turn: int, phase: int) -> list[E.Event]:
        """End phases until (turn, phase) is the current one."""
        evs: list[E.Event] = []
        while self.phase() != (turn, phase):
            st = self.game.state()
            assert st.result is None, f"the game ended before turn {turn} phase {phase}: {st.result}"
            assert st.decision is None, f"a decision is pending: {st.decision}"
            assert (st.turn, st.phase) < (turn, phase), f"already past turn {turn} phase {phase}"
            evs += self.end()
        return evs


def events_of(sub: Submission) -> list[E.Event]:
    return [e for a in sub.applied for e in a.events]


def only(events: list[E.Event], kind: type) -> list:
    return [e for e in events if isinstance(e, kind)]


def one(events: list[E.Event], kind: type):
    found = only(events, kind)
    assert len(found) == 1, f"expected one {kind.__name__}, got {found} in {events}"
    return found[0]


@pytest.fixture
def fixed_clock(monkeypatch):
    """Pin log timestamps so two games with the same orders have identical logs.

    Used by make_game and shipped_game only (not autouse: other test modules keep their clock)."""
    monkeypatch.setenv("PBEM_CLOCK", "2024-01-01T00:00:00Z")


@pytest.fixture
def make_game(tmp_path, fixed_clock):
    """make_game(units, dice=[...], name="g", game_id=None, seed_hex=None, **scenario options) -> Table.

    Scripted dice by default (an empty script if none is given: any roll is then refused);
    ``seed_hex`` makes a seeded game instead."""
    def make(units: list[dict], dice: list[int] | tuple[int, ...] = (), name: str = "g",
             game_id: str | None = None, seed_hex: str | None = None, **kw) -> Table:
        sc = write_scenario(tmp_path / f"{name}-scenario", units, **kw)
        game = Game.create(tmp_path / name, str(sc), {"axis": "axis@example.org", "british": "brit@example.org"},
                           dice=None if seed_hex else list(dice), seed_hex=seed_hex, game_id=game_id)
        return Table(game)
    return make


@pytest.fixture
def shipped_game(tmp_path, fixed_clock):
    """shipped_game(dice=[...]) -> Table on the shipped el-alamein scenario."""
    def make(dice: list[int] | tuple[int, ...] = (), name: str = "shipped") -> Table:
        return Table(Game.create(tmp_path / name, "el-alamein", {}, dice=list(dice)))
    return make


# ============================================================================
# Panzer Corps sister games (Dunkerque, Khar'kov, Operation Compass): small
# test scenarios built from a few parameters.
# ============================================================================
#
# ``pz_game(game, units, rows=..., hexsides=..., features=..., dice=[...])``
# writes a scenario for ``game`` ("dunkerque", "kharkov", "operation-compass")
# on a small map (default 8 x 8 of clear hexes, north-up, "even-down") and
# creates a game on it with scripted dice.  Map characters: "." clear,
# "C" city, "P" port, "t" town, "f" forest, "m" marsh, "h" highlands (Dunkerque)
# or hills (Compass), "c" coast, "~" sea.
#
# The test CRT does not depend on the odds column, so a die roll names its
# result directly: 1 DE, 2 DR1, 3 DR2, 4 AR, 5 AE, 6 = C (Dunkerque) or EX
# (Khar'kov, Operation Compass); ``crt6`` overrides row 6.

PZ_SIDES = {
    "dunkerque": [("german", "German", ["german"]), ("allied", "Allied", ["french", "british", "belgian"])],
    "kharkov": [("soviet", "Soviet", ["soviet"]), ("german", "German", ["german"])],
    "operation-compass": [("british", "British", ["british"]), ("italian", "Italian", ["italian"])],
}
PZ_SEQUENCE = {
    "dunkerque": [("german", "movement"), ("german", "combat"), ("allied", "movement"), ("allied", "combat")],
    "kharkov": [("soviet", "reinforcement"), ("soviet", "movement"), ("soviet", "combat"),
                ("german", "reinforcement"), ("german", "movement"), ("german", "combat")],
    "operation-compass": [("british", "movement"), ("british", "combat"), ("italian", "movement"),
                          ("italian", "combat")],
}
PZ_TERRAIN = {
    "dunkerque": {"clear": {"move_cost": 1}, "city": {"move_cost": 1, "defence": 2},
                  "port": {"move_cost": 1, "defence": 2}, "coast": {"move_cost": 1},
                  "forest": {"move_cost": 2}, "marsh": {"move_cost": 2}, "highlands": {"move_cost": 2},
                  "sea": {"impassable": True}},
    "kharkov": {"clear": {"move_cost": 1}, "city": {"move_cost": 1, "defence": 2}, "town": {"move_cost": 1},
                "forest": {"move_cost": 2, "defence": 2}, "marsh": {"move_cost": 2}},
    "operation-compass": {"clear": {"move_cost": 1}, "coast": {"move_cost": 1}, "hills": {"move_cost": 2, "defence": 2},
                          "sea": {"impassable": True}},
}
PZ_LEGEND = {".": "clear", "C": "city", "P": "port", "t": "town", "f": "forest", "m": "marsh", "h": "highlands",
             "c": "coast", "~": "sea"}
PZ_TURNS = {"dunkerque": 6, "kharkov": 8, "operation-compass": 5}
# Every [victory] and [game_data] key is required (panzer_corps/schema.py): a test scenario
# gets these neutral values (nothing scored, no port, no face-down unit, the edges as
# printed) under the ones the test gives.
PZ_VICTORY = {
    "dunkerque": {"german_points_needed": 35, "points_per_allied_cs": 0, "points_per_german_cs": 0, "ports": [],
                  "port_capacity": 5},
    "kharkov": {"sudden_death": [], "city_vp": 0, "charge_vp": 0, "elimination_vp": 0, "tank_elimination_vp": 0,
                "railroad_vp": {}, "tie_winner": "draw"},
    "operation-compass": {"british_losses_per_vp": 99, "tie_winner": "draw"},
}
PZ_DATA = {
    "dunkerque": {"hidden_reinforcements": [], "hidden_slots": [], "map_edges": {"west": "west", "south": "south"}},
    "kharkov": {"areas": []},
    "operation-compass": {"s_units": [], "footholds": {}, "supply": {"british": ["0808"], "italian": ["0101"]},
                          "bombardment": [0] * 6, "bombardment_reach": 1},
}
SHUFFLE = [1, 1, 1, 1, 1, 1]          # Dunkerque: six shuffle rolls (d7 ... d2) of the R draw


def pz_units(side: str, nationality: str | None = None):
    """U-like helper: PU(id, strength, ma, hex, type="infantry", **extra)."""
    def make(uid: str, strength: int, ma: int, hex: str | None = None, type: str = "infantry", **extra) -> dict:
        d = {"id": uid, "side": side, "nationality": nationality or side, "type": type, "size": "XX",
             "strength": strength, "ma": ma}
        if hex is not None:
            d["hex"] = hex
        d.update(extra)
        return d
    return make


def _toml_value(v) -> str:
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, (int, float)):
        return str(v)
    if isinstance(v, str):
        return json.dumps(v)
    if isinstance(v, (list, tuple)):
        return "[" + ", ".join(_toml_value(x) for x in v) + "]"
    if isinstance(v, dict):
        return "{ " + ", ".join(f"{json.dumps(str(k))} = {_toml_value(x)}" for k, x in v.items()) + " }"
    raise TypeError(v)


def pz_scenario_data(game: str, units: list[dict], *, rows: list[str] | None = None, hexsides=(),
                     features: dict | None = None, places=(), game_data: dict | None = None,
                     victory: dict | None = None, turns: int | None = None, crt6: str | None = None,
                     offset: str = "even-down") -> dict:
    rows = rows or ["." * 8] * 8
    legend = {ch: name for ch, name in PZ_LEGEND.items() if any(ch in r for r in rows)}
    terrain = {}
    for name in legend.values():
        t = dict(PZ_TERRAIN[game].get(name, {"move_cost": 1}))
        if game == "operation-compass" and name == "highlands":
            t = dict(PZ_TERRAIN[game]["hills"])
        terrain[name] = t
    if game == "operation-compass":
        legend = {ch: ("hills" if n == "highlands" else n) for ch, n in legend.items()}
        terrain = {("hills" if k == "highlands" else k): v for k, v in terrain.items()}
    six = crt6 or {"dunkerque": "C"}.get(game, "EX")
    row_of = {1: "DE", 2: "DR1", 3: "DR2", 4: "AR", 5: "AE", 6: six}
    columns = ["1:2"] + [f"{n}:1" for n in range(1, 7)]
    nturns = turns or PZ_TURNS[game]
    return {
        "id": f"test-{game}", "title": f"{game} rules test", "game": game, "family": "panzer-corps",
        "turns": nturns, "die": 6, "source": "tests",
        "sides": [{"id": i, "name": n, "nationalities": nat} for i, n, nat in PZ_SIDES[game]],
        "sequence": [{"side": s, "name": n, "rule": "5.0"} for s, n in PZ_SEQUENCE[game]],
        "turn_track": [{"turn": t, "label": f"turn {t}"} for t in range(1, nturns + 1)],
        "units": units,
        "victory": {**PZ_VICTORY[game], **(victory or {})},
        "game_data": {**PZ_DATA[game], **(game_data or {})},
        "terrain": terrain,
        "crt": {"columns": columns, "rows": {str(d): [r] * len(columns) for d, r in row_of.items()}},
        "map": {"first_col": 1, "last_col": len(rows[0]), "first_row": 1, "last_row": len(rows),
                "offset": offset, "legend": legend, "rows": rows,
                "features": {k: ({"hexes": v} if isinstance(v, list) else v) for k, v in (features or {}).items()},
                "places": [{"name": n, "hexes": hs} for n, hs in places],
                "hexsides": [{"a": a, "b": b, "feature": f} for a, b, f in hexsides]},
    }


def _pz_toml(data: dict) -> str:
    out = []
    top = {k: v for k, v in data.items() if k not in ("victory", "game_data", "terrain", "crt", "map")}
    for k, v in top.items():
        out.append(f"{k} = {_toml_value(v)}")
    for sec in ("victory", "game_data"):
        out.append(f"\n[{sec}]")
        for k, v in data[sec].items():
            out.append(f"{json.dumps(k)} = {_toml_value(v)}")
    for name, t in data["terrain"].items():
        out.append(f"\n[terrain.{name}]")
        out += [f"{k} = {_toml_value(v)}" for k, v in t.items()]
    out.append("\n[crt]")
    out.append(f"columns = {_toml_value(data['crt']['columns'])}")
    out.append("[crt.rows]")
    out += [f"{json.dumps(k)} = {_toml_value(v)}" for k, v in data["crt"]["rows"].items()]
    out.append("\n[map]")
    out += [f"{k} = {_toml_value(v)}" for k, v in data["map"].items()]
    return "\n".join(out) + "\n"


@pytest.fixture
def pz_game(tmp_path, fixed_clock):
    """pz_game(game, units, dice=[...], name="g", **scenario options) -> Table (scripted dice)."""
    def make(game: str, units: list[dict], dice=(), name: str = "g", seed_hex: str | None = None, **kw) -> Table:
        d = tmp_path / f"{name}-scenario"
        d.mkdir(parents=True, exist_ok=True)
        path = d / "scenario.toml"
        path.write_text(_pz_toml(pz_scenario_data(game, units, **kw)), encoding="utf-8")
        sides = [s for s, _n, _x in PZ_SIDES[game]]
        game_ = Game.create(tmp_path / name, str(path), {s: f"{s}@example.org" for s in sides},
                            dice=None if seed_hex else list(dice), seed_hex=seed_hex)
        return Table(game_)
    return make


def replay_example(folder: Path, into: Path) -> Game:
    """Play an example folder's playbook without writing reports (fast); the same
    submissions `pbem play` makes, one message file at a time."""
    import tomllib
    book = tomllib.loads((folder / "playbook.toml").read_text())
    game = Game.create(into, book["scenario"], book.get("players", {}), seed_hex=book.get("seed"),
                       game_id=book.get("id"), at="2026-01-01T00:00:00Z")
    sides = game.scenario.side_ids()
    for step in book["steps"]:
        side = next(s for s in sides if Path(step).stem.endswith("-" + s))
        sub = game.submit(side, (folder / step).read_text(), at="2026-01-01T00:00:00Z")
        assert sub.refused is None, f"{step}: {sub.refused}"
    return game


# ============================================================================
# The example games, each played once per test run
# ============================================================================
#
# ``played_example(name, maps=False)`` plays ``examples/NAME`` the way
# ``pbem play`` does (pbem.playbook.play: text reports after every step, the
# seed revealed, the log verified) with the clock pinned to EXAMPLE_CLOCK, so
# every play of an example writes the same bytes.  ``maps=True`` also renders
# every SVG map and the final e-mails (slow: only for tests that look at them).
#
# The game is played once per test run and shared: by every test of the
# session and, under pytest-xdist, by every worker (a file lock in the run's
# common temporary directory; the first worker to ask plays, the others wait
# and reuse).  The directory is shared, so treat it as read-only: a test that
# changes the game (its log, its state cache) works on ``.copy(tmp_path / "x")``.

EXAMPLES_DIR = Path(__file__).resolve().parent.parent / "examples"
EXAMPLE_CLOCK = "2026-01-01T00:00:00Z"
EXAMPLES = sorted(p.name for p in EXAMPLES_DIR.iterdir() if (p / "playbook.toml").is_file())


class PlayedExample:
    """An example game played by pbem.playbook.play into ``dir``; ``summary`` is what play() returned."""

    def __init__(self, name: str, dir: Path, summary: str):
        self.name, self.dir, self.summary = name, dir, summary

    def game(self) -> Game:
        return Game(self.dir)

    def copy(self, dest: Path) -> Path:
        """A private copy of the played game (with its reports) at ``dest``, to change freely."""
        shutil.copytree(self.dir, dest, symlinks=True)
        return dest

    def __repr__(self) -> str:
        return f"PlayedExample({self.name!r}, {str(self.dir)!r})"


def play_example(name: str, into: Path, maps: bool = False) -> str:
    """Play examples/NAME into ``into`` as `pbem play` does, the clock pinned; return play()'s summary."""
    from pbem.playbook import play
    old = os.environ.get("PBEM_CLOCK")
    os.environ["PBEM_CLOCK"] = EXAMPLE_CLOCK
    try:
        return play(EXAMPLES_DIR / name, into, echo=lambda *a: None, maps=maps)
    finally:
        if old is None:
            del os.environ["PBEM_CLOCK"]
        else:
            os.environ["PBEM_CLOCK"] = old


def _played_once(root: Path, name: str, maps: bool) -> PlayedExample:
    tag = f"{name}-maps" if maps else name
    where, done = root / tag, root / f"{tag}.summary"
    with open(root / f"{tag}.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)          # another worker may be playing it right now
        if not done.exists():
            if where.exists():                    # a play that failed half-way: start again
                shutil.rmtree(where)
            summary = play_example(name, where, maps=maps)
            tmp = root / f"{tag}.summary.tmp"
            tmp.write_text(summary)
            tmp.replace(done)
    return PlayedExample(name, where, done.read_text())


@pytest.fixture(scope="session")
def played_example(tmp_path_factory):
    """played_example(name, maps=False) -> PlayedExample, played once per run (see above)."""
    base = tmp_path_factory.getbasetemp()
    if os.environ.get("PYTEST_XDIST_WORKER"):
        base = base.parent                        # common to the workers of this run, and only this run
    root = base / "played-examples"
    root.mkdir(exist_ok=True)
    memo: dict[tuple[str, bool], PlayedExample] = {}

    def get(name: str, maps: bool = False) -> PlayedExample:
        if (name, maps) not in memo:
            memo[name, maps] = _played_once(root, name, maps)
        return memo[name, maps]
    return get


# --- the database store's throw-away cluster (tests/pg_helpers.py) ---------------------

@pytest.fixture(scope="session")
def pg_cluster():
    """One PostgreSQL cluster per test process, started on first use."""
    import pg_helpers
    pg_helpers.require()
    c = pg_helpers.Cluster().start()
    yield c
    c.stop()


@pytest.fixture
def pg_url(pg_cluster):
    """A fresh database of its own for one test."""
    return pg_cluster.new_database()


# --- the host suite on both stores ------------------------------------------------------
#
# A host test module says ``pytestmark = pytest.mark.usefixtures("store_kind")``: each
# of its tests then runs on the file store and on PostgreSQL (``make_host`` points the
# host at a fresh database of the worker's one cluster; skipped with the reason without
# PostgreSQL, failing under PBEM_REQUIRE_POSTGRES=1, as the store tests do).  A test
# about files by nature says ``@pytest.mark.files_only("why")`` and runs on files only.

STORE_KINDS = ("files", "postgresql")


def pytest_configure(config):
    config.addinivalue_line("markers", "files_only(reason): a host test about files by nature (a Maildir, a "
                                       "folder's mode, a log file's bytes): runs on the file store only")


def pytest_generate_tests(metafunc):
    if "store_kind" in metafunc.fixturenames:
        only = metafunc.definition.get_closest_marker("files_only")
        metafunc.parametrize("store_kind", ["files"] if only else list(STORE_KINDS), indirect=True)


@pytest.fixture
def store_kind(request, monkeypatch):
    """"files" or "postgresql": the store every ``make_host`` of this test uses."""
    import mail_helpers
    kind = getattr(request, "param", "files")
    monkeypatch.setattr(mail_helpers, "STORE", kind)
    monkeypatch.setenv("PBEM_HOST", "")            # game_arg sets it: restored after the test
    monkeypatch.delenv("PBEM_HOST")
    if kind == "postgresql":
        cluster = request.getfixturevalue("pg_cluster")
        monkeypatch.setattr(mail_helpers, "PG_CLUSTER", cluster)
        made = len(cluster.made)
        yield kind
        cluster.drop_since(made)
        return
    yield kind
