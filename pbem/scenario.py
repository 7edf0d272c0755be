"""Scenario files: load TOML into typed msgspec structs, and lint them.

A scenario holds everything printed on a game's map, counters and charts that
the rules need: the map (terrain per hex, hex features, hexside features,
named places), units, tables, turn track and victory data.  Values the
rulebook text does not give are marked ``reconstructed`` in the file.
"""
from __future__ import annotations

import hashlib
import tomllib
from functools import cached_property
from pathlib import Path

import msgspec
from msgspec import Struct

from .hexgrid import Grid, parse_hex

ROOT = Path(__file__).resolve().parent.parent
SCENARIO_DIR = ROOT / "scenarios"


class ScenarioError(Exception):
    """A scenario that cannot be loaded; the message names the file and place."""


class Side(Struct, forbid_unknown_fields=True):
    id: str
    name: str
    nationalities: list[str] = []


class Phase(Struct, forbid_unknown_fields=True):
    side: str
    name: str                      # "movement" | "combat" | "reinforcement" | ...
    rule: str = ""


class TurnBox(Struct, forbid_unknown_fields=True):
    turn: int
    label: str


class Terrain(Struct, forbid_unknown_fields=True):
    move_cost: int = 1
    impassable: bool = False
    defence: int = 1               # multiplier applied to a defender in this terrain
    colour: str = "#e8dcb0"
    rule: str = ""
    reconstructed: bool = False


class Feature(Struct, forbid_unknown_fields=True):
    """A hex feature (road, village, battle position) and the hexes it is in."""
    hexes: list[str]
    side: str = ""                 # owning side, for features such as battle positions
    defence: int = 1
    rule: str = ""


class Place(Struct, forbid_unknown_fields=True):
    name: str
    hexes: list[str]


class Hexside(Struct, forbid_unknown_fields=True):
    a: str
    b: str
    feature: str
    up: str = ""                   # for a slope: the higher of a and b ("" = no direction)


class MapData(Struct, forbid_unknown_fields=True):
    first_col: int
    last_col: int
    first_row: int
    last_row: int
    legend: dict[str, str]         # character -> terrain name
    rows: list[str]                # one string per row, one character per column
    offset: str = "even-down"
    features: dict[str, Feature] = {}
    places: list[Place] = []
    hexsides: list[Hexside] = []
    reconstructed: bool = False
    notes: str = ""


class UnitDef(Struct, forbid_unknown_fields=True):
    id: str
    side: str
    nationality: str
    type: str
    strength: int
    ma: int
    hex: str | None = None
    size: str = ""
    name: str = ""
    entry_turn: int | None = None


class CRT(Struct, forbid_unknown_fields=True):
    columns: list[str]
    rows: dict[str, list[str]]     # die roll (as text) -> result per column
    reconstructed: bool = False
    rule: str = ""
    notes: str = ""


class Scenario(Struct, forbid_unknown_fields=True, dict=True):
    id: str
    title: str
    game: str                      # rules module key
    family: str
    turns: int
    die: int
    sides: list[Side]
    sequence: list[Phase]
    turn_track: list[TurnBox]
    map: MapData
    terrain: dict[str, Terrain]
    units: list[UnitDef]
    crt: CRT
    victory: dict = {}
    game_data: dict = {}           # per-game data the rules module reads (e.g. Crete's maps, tracks, second CRT)
    source: str = ""
    units_reconstructed: bool = False
    reconstructed: list[str] = []  # summary of every reconstructed item, for the README
    sha256: str = ""               # of the file's bytes, filled in by load()
    path: str = ""

    @cached_property
    def board(self) -> "Board":
        return Board(self.map)

    @cached_property
    def unit_defs(self) -> dict[str, UnitDef]:
        return {u.id: u for u in self.units}

    def side_ids(self) -> list[str]:
        return [s.id for s in self.sides]

    def side_name(self, side: str) -> str:
        return next((s.name for s in self.sides if s.id == side), side)


class Board:
    """The map as lookup tables: terrain and features per hex, hexside features."""

    def __init__(self, m: MapData):
        self.grid = Grid(m.first_col, m.last_col, m.first_row, m.last_row, m.offset)
        self.terrain: dict[str, str] = {}
        for r, text in enumerate(m.rows):
            cells = text.replace(" ", "")
            for c, ch in enumerate(cells):
                col, row = m.first_col + c, m.first_row + r
                self.terrain[f"{col:02d}{row:02d}"] = m.legend.get(ch, f"?{ch}")
        self.features: dict[str, set[str]] = {}
        for name, feat in m.features.items():
            for h in feat.hexes:
                self.features.setdefault(h, set()).add(name)
        self.feature_defs = m.features
        self.hexsides: dict[tuple[str, str], set[str]] = {}
        for hs in m.hexsides:
            self.hexsides.setdefault(tuple(sorted((hs.a, hs.b))), set()).add(hs.feature)
        self.places: dict[str, str] = {}
        for p in m.places:
            for h in p.hexes:
                self.places[h] = p.name

    def has(self, h: str, feature: str) -> bool:
        return feature in self.features.get(h, ())

    def side_features(self, a: str, b: str) -> set[str]:
        return self.hexsides.get((a, b) if a < b else (b, a), set())

    def label(self, h: str) -> str:
        """'1403 (El Alamein)' where the hex has a name."""
        name = self.places.get(h)
        return f"{h} ({name})" if name else h


def find(ref: str) -> Path:
    """A scenario id of a shipped scenario, or a path to a scenario file."""
    p = Path(ref)
    if p.suffix == ".toml" or p.exists():
        if not p.is_file():
            raise ScenarioError(f"scenario file {ref} not found")
        return p
    candidate = SCENARIO_DIR / f"{ref}.toml"
    if candidate.is_file():
        return candidate
    known = ", ".join(sorted(x.stem for x in SCENARIO_DIR.glob("*.toml")))
    raise ScenarioError(f"unknown scenario {ref!r}; shipped scenarios: {known}")


def load(ref: str | Path) -> Scenario:
    path = find(str(ref))
    raw = path.read_bytes()
    return loads(raw, str(path))


_cache: dict[str, Scenario] = {}


def loads(raw: bytes, name: str = "<scenario>") -> Scenario:
    digest = hashlib.sha256(raw).hexdigest()
    if digest in _cache:
        return _cache[digest]
    try:
        data = tomllib.loads(raw.decode("utf-8"))
    except UnicodeDecodeError as e:
        raise ScenarioError(f"{name}: not UTF-8 text ({e})") from None
    except tomllib.TOMLDecodeError as e:
        raise ScenarioError(f"{name}: TOML syntax error: {e}") from None
    try:
        sc = msgspec.convert(data, Scenario)
    except msgspec.ValidationError as e:
        raise ScenarioError(f"{name}: {e}") from None
    sc.sha256 = digest
    sc.path = name
    _cache[digest] = sc
    return sc


def shipped() -> list[Path]:
    return sorted(SCENARIO_DIR.glob("*.toml"))


def lint(sc: Scenario, result_codes: set[str] | None = None) -> list[str]:
    """Semantic checks beyond the types; returns problems as readable lines."""
    errs: list[str] = []
    m = sc.map
    board = sc.board
    grid = board.grid
    ncols = m.last_col - m.first_col + 1
    nrows = m.last_row - m.first_row + 1
    if len(m.rows) != nrows:
        errs.append(f"map.rows: {len(m.rows)} rows given, map spans {nrows} (rows {m.first_row}..{m.last_row})")
    for i, text in enumerate(m.rows):
        cells = text.replace(" ", "")
        if len(cells) != ncols:
            errs.append(f"map.rows[{i}] (row {m.first_row + i:02d}): {len(cells)} hexes, expected {ncols}")
        for ch in set(cells) - set(m.legend):
            errs.append(f"map.rows[{i}] (row {m.first_row + i:02d}): character {ch!r} is not in map.legend")
    for ch, t in m.legend.items():
        if t not in sc.terrain:
            errs.append(f"map.legend[{ch!r}]: terrain {t!r} is not defined in [terrain]")

    def check_hex(where: str, h: str | None) -> bool:
        if h is None:
            return False
        try:
            parse_hex(h)
        except ValueError as e:
            errs.append(f"{where}: {e}")
            return False
        if not grid.contains(h):
            errs.append(f"{where}: hex {h} is not on the map")
            return False
        return True

    for name, feat in m.features.items():
        for h in feat.hexes:
            check_hex(f"map.features.{name}", h)
        if feat.side and feat.side not in sc.side_ids():
            errs.append(f"map.features.{name}: unknown side {feat.side!r}")
    for p in m.places:
        for h in p.hexes:
            check_hex(f"map.places[{p.name}]", h)
    for i, hs in enumerate(m.hexsides):
        if check_hex(f"map.hexsides[{i}].a", hs.a) and check_hex(f"map.hexsides[{i}].b", hs.b):
            if not grid.adjacent(hs.a, hs.b):
                errs.append(f"map.hexsides[{i}]: {hs.a} and {hs.b} are not adjacent")

    sides = set(sc.side_ids())
    for ph in sc.sequence:
        if ph.side not in sides:
            errs.append(f"sequence: phase {ph.name!r} names unknown side {ph.side!r}")
    turns = {t.turn for t in sc.turn_track}
    for t in range(1, sc.turns + 1):
        if t not in turns:
            errs.append(f"turn_track: no box for turn {t}")

    seen: dict[str, str] = {}
    occupied: dict[str, str] = {}
    for u in sc.units:
        where = f"units[{u.id}]"
        if u.id in seen:
            errs.append(f"{where}: duplicate unit id")
        seen[u.id] = u.side
        if u.side not in sides:
            errs.append(f"{where}: unknown side {u.side!r}")
        if u.strength < 0 or u.ma < 0:
            errs.append(f"{where}: strength and movement allowance must not be negative")
        if u.hex is None and u.entry_turn is None:
            errs.append(f"{where}: needs a set-up hex or an entry turn")
        if check_hex(where, u.hex):
            terr = board.terrain.get(u.hex, "")
            if terr in sc.terrain and sc.terrain[terr].impassable:
                errs.append(f"{where}: set up in {u.hex}, which is {terr} (impassable)")
            if u.hex in occupied:
                errs.append(f"{where}: set up in {u.hex}, already holding {occupied[u.hex]}")
            occupied[u.hex] = u.id

    crt = sc.crt
    for d in range(1, sc.die + 1):
        row = crt.rows.get(str(d))
        if row is None:
            errs.append(f"crt.rows: no row for die roll {d}")
        elif len(row) != len(crt.columns):
            errs.append(f"crt.rows[{d}]: {len(row)} results for {len(crt.columns)} columns")
        elif result_codes is not None:
            for r in row:
                if r not in result_codes:
                    errs.append(f"crt.rows[{d}]: unknown result {r!r} (known: {', '.join(sorted(result_codes))})")
    for k in crt.rows:
        if not k.isdigit() or not 1 <= int(k) <= sc.die:
            errs.append(f"crt.rows: row {k!r} is not a die roll 1..{sc.die}")
    return errs
