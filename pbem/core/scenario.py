"""Scenario files: load TOML into typed msgspec structs, and lint them.

A scenario holds everything printed on a game's map, counters and charts that
the rules need: the map (terrain per hex, hex features, hexside features,
named places), units, tables, turn track and victory data.  Values the
rulebook text does not give are marked ``reconstructed`` in the file.

Loading checks the file against a schema -- the structs below, which forbid
unknown keys, plus one schema per game for its ``[victory]`` and
``[game_data]`` tables -- and refuses it with every problem as a line naming
its key path (``map.rows[3]: Expected str, got int``).  ``lint`` then checks
what types cannot: hexes on the map, CRT rows complete, sides known.

The rules read ``[victory]`` and ``[game_data]`` typed (``Scenario.tables``):
converted once into the game's schema, so every key has one default -- the
schema's -- or is required.
"""
from __future__ import annotations

import hashlib
import re
from functools import cached_property
from pathlib import Path
from typing import Annotated, Callable, Literal, NamedTuple, get_args, get_origin

import msgspec
from msgspec import Meta, Struct

from pbem.core.hexgrid import Grid, parse_hex

ROOT = Path(__file__).resolve().parents[2]          # the project: scenarios/, templates/
SCENARIO_DIR = ROOT / "scenarios"


class ScenarioError(Exception):
    """A scenario that cannot be loaded; the message names the file and place.

    ``problems`` holds every problem found as ``(key path, message)``; the
    message itself is one line (the first problem, and how many more)."""

    def __init__(self, message: str, problems: list[tuple[str, str]] | None = None, name: str = ""):
        super().__init__(message)
        self.problems = problems or []
        self.name = name

    def lines(self) -> list[str]:
        """One readable line per problem: ``FILE: key.path: message``."""
        if not self.problems:
            return [str(self)]
        return [f"{self.name}: {where}: {msg}" if where else f"{self.name}: {msg}" for where, msg in self.problems]


# Hex numbers are four digits XXYY (hexgrid.parse_hex): two for the column, two for the row.
Hex = Annotated[str, Meta(pattern=r"^[0-9]{4}\Z")]
# A unit id the rules look up while a game is created: load refuses one naming no unit.
UnitId = Annotated[str, Meta(title="unit id")]
Edge = Literal["north", "south", "east", "west"]
Direction = Literal["N", "NE", "SE", "S", "SW", "NW"]
MAX_COORD = 99                     # the largest column or row a four-digit hex number can hold


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
    hexes: list[Hex]
    side: str = ""                 # owning side, for features such as battle positions
    defence: int = 1
    rule: str = ""


class Place(Struct, forbid_unknown_fields=True):
    name: str
    hexes: list[Hex]


class Hexside(Struct, forbid_unknown_fields=True):
    a: Hex
    b: Hex
    feature: str
    up: str = ""                   # for a slope: the higher of a and b ("" = no direction)


class MapData(Struct, forbid_unknown_fields=True):
    first_col: int
    last_col: int
    first_row: int
    last_row: int
    legend: dict[str, str]         # character -> terrain name
    rows: list[str]                # one string per row, one character per column
    offset: Literal["even-down", "odd-down"] = "even-down"
    features: dict[str, Feature] = {}
    places: list[Place] = []
    hexsides: list[Hexside] = []
    reconstructed: bool = False
    notes: str = ""

    def __post_init__(self) -> None:
        """Columns and rows must fit a four-digit hex number: 00..99, first <= last
        (row 00 exists on some printed maps, e.g. a top-edge entry hex)."""
        bad = []
        for what, lo, hi in (("columns", self.first_col, self.last_col), ("rows", self.first_row, self.last_row)):
            if not 0 <= lo <= hi <= MAX_COORD:
                bad.append(f"{what} {lo}..{hi}")
        if bad:
            raise ValueError(f"{' and '.join(bad)}: hex numbers are four digits XXYY, so columns and rows "
                             f"run from 00 to {MAX_COORD}, the first no larger than the last")


class UnitDef(Struct, forbid_unknown_fields=True):
    id: str
    side: str
    nationality: str
    type: str
    strength: int
    ma: int
    hex: Hex | None = None
    size: str = ""
    name: str = ""
    entry_turn: int | None = None


class CRT(Struct, forbid_unknown_fields=True):
    columns: list[str]
    rows: dict[str, list[str]]     # die roll (as text) -> result per column
    max_roll: int = 0              # the highest row: 0 = the die's faces; more for a table read with a modified roll
    reconstructed: bool = False
    rule: str = ""
    notes: str = ""


class Scenario(Struct, forbid_unknown_fields=True, dict=True):
    id: str
    title: str
    game: str                      # rules module key
    family: str
    turns: Annotated[int, Meta(ge=1, le=999)]
    die: Annotated[int, Meta(ge=1, le=100)]
    sides: Annotated[list[Side], Meta(min_length=1)]
    sequence: Annotated[list[Phase], Meta(min_length=1)]
    turn_track: list[TurnBox]
    map: MapData
    terrain: dict[str, Terrain]
    units: list[UnitDef]
    crt: CRT
    victory: dict = {}             # checked against the game's schema (Ruleset.scenario_schema)
    game_data: dict = {}           # per-game data the game reads (e.g. extra maps, tracks, a second CRT)
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

    @cached_property
    def tables(self) -> "Tables":
        """``[victory]`` and ``[game_data]`` as the game's schema types them (``Ruleset.scenario_schema``):
        converted once per scenario and kept, so the rules read every default from the schema."""
        vt, dt = _game_schema(self.game) or (GameTable, GameTable)
        return Tables(msgspec.convert(self.victory, vt), msgspec.convert(self.game_data, dt))

    def side_ids(self) -> list[str]:
        return [s.id for s in self.sides]

    def side_name(self, side: str) -> str:
        return next((s.name for s in self.sides if s.id == side), side)

    def side_of(self, name: str) -> str | None:
        """The side id ``name`` stands for: a side's id or its name as `pbem scenarios`
        prints it ("Commonwealth" for ``allied``), in any case; None for none."""
        low = (name or "").strip().lower()
        return next((s.id for s in self.sides if low in (s.id.lower(), s.name.lower())), None)


# --- a game's own [victory] and [game_data] -------------------------------------------
# Each game declares their schema (Ruleset.scenario_schema), checked here at load
# time: every key its rules read, typed, with its one default or required.  The
# rules read them through Scenario.tables.

class GameTable(Struct, forbid_unknown_fields=True, kw_only=True):
    """Base of the per-game tables: only keys the game's rules read."""
    reconstructed: bool = False


class Chart(Struct, forbid_unknown_fields=True, kw_only=True):
    """A die-roll table beside the CRT: columns, one row of results per die roll."""
    columns: list[str]
    rows: dict[str, list[str]]
    rule: str = ""
    reconstructed: bool = False
    notes: str = ""



class Tables(NamedTuple):
    """A scenario's own tables, typed by its game's schema."""
    victory: Struct
    data: Struct


class Printed(str):
    """A lint line about the scenario against the printed game, not about data its rules
    would misread: an order of battle or a place of the printed map that differs, a value
    the rulebook does not print left unmarked.  ``pbem scenario lint`` reports it like any
    problem (the shipped files have none); ``pbem new`` accepts such a variant with a note."""


# A game knows its tables; the core does not.  The game registry (pbem.games, above the
# core: the core imports nothing above it, tests/test_layers.py) sets this to the lookup of
# a game's (schema of [victory], schema of [game_data]), None for an unknown game.
schema_of: Callable[[str], tuple[type, type] | None] | None = None


def once_per_scenario(cache: dict, sc, make: Callable, cap: int = 16):
    """``make(sc)``, made once per scenario object and kept in ``cache`` by its id (the
    entry holds ``sc`` too, so an id reused by a later object is not mistaken for it); at
    most ``cap`` scenarios are kept (a process holds a handful)."""
    got = cache.get(id(sc))
    if got is not None and got[0] is sc:
        return got[1]
    if len(cache) >= cap:
        cache.clear()
    value = make(sc)
    cache[id(sc)] = (sc, value)
    return value


def _game_schema(game) -> tuple[type, type] | None:
    """The game's (schema of [victory], schema of [game_data]); None for an unknown game."""
    if not isinstance(game, str):
        return None
    if schema_of is None:
        raise RuntimeError("the game registry (pbem.games) is not loaded: no scenario can be checked")
    return schema_of(game)


# --- validation with key paths ----------------------------------------------------------

_IDENT = re.compile(r"[A-Za-z_][A-Za-z0-9_-]*\Z")


def _key(path: str, key: str | int) -> str:
    """``map`` + ``rows`` -> ``map.rows``; indexes and odd keys in brackets."""
    if isinstance(key, int):
        return f"{path}[{key}]"
    if _IDENT.match(key):
        return f"{path}.{key}" if path else key
    return f"{path}[{key}]" if key.isalnum() else f"{path}[{key!r}]"


def _message(err: str, tp, value) -> tuple[str, str]:
    """msgspec's ``Expected `int`, got `str` - at `$.x[0]``` -> (``.x[0]``, readable text)."""
    msg, _, where = err.partition(" - at `")
    where = where.rstrip("`").removeprefix("$")
    if "matching regex" in msg:        # the only patterns are Hex's
        try:
            parse_hex(value if not where else None)
        except ValueError as e:
            return where, str(e) if not where else "hex numbers must be exactly four digits XXYY"
    base = get_args(tp)[0] if get_origin(tp) is Annotated else tp
    if msg.startswith("Invalid enum value") and get_origin(base) is Literal:
        return where, f"must be one of {', '.join(map(repr, get_args(base)))}, got {value!r}"
    if msg == "Expected `array` of length >= 1":
        return where, "must not be empty"
    msg = msg.replace("`object`", "table").replace(" | null", "").replace("`", "")   # TOML words
    if not where and "got" not in msg and not isinstance(value, (dict, list)):
        msg += f", got {value!r}"
    return where, msg


def problems_in(value, tp, path: str = "") -> list[tuple[str, str]]:
    """Every place where ``value`` (parsed TOML) does not fit type ``tp``: (key path, message).

    msgspec stops at the first error; this walks into tables and arrays so that
    each wrong, missing or unknown key is reported on its own."""
    try:
        msgspec.convert(value, tp)
        return []
    except msgspec.ValidationError as e:
        err = str(e)
    base = get_args(tp)[0] if get_origin(tp) is Annotated else tp
    out: list[tuple[str, str]] = []
    if isinstance(base, type) and issubclass(base, Struct) and isinstance(value, dict):
        fields = {f.encode_name: f for f in msgspec.structs.fields(base)}
        for k, v in value.items():
            if k in fields:
                out += problems_in(v, fields[k].type, _key(path, k))
            else:
                out.append((_key(path, k), f"unknown key (known here: {', '.join(fields)})"))
        out += [(_key(path, n), "missing") for n, f in fields.items() if f.required and n not in value]
    elif get_origin(base) is list and isinstance(value, list):
        for i, v in enumerate(value):
            out += problems_in(v, get_args(base)[0], _key(path, i))
    elif get_origin(base) is dict and isinstance(value, dict):
        kt, vt = get_args(base)
        for k, v in value.items():
            out += [(_key(path, k), f"key {msg}") for _, msg in problems_in(k, kt)]
            out += problems_in(v, vt, _key(path, k))
    if not out:                    # a leaf, or a check on the whole value (length, __post_init__)
        where, msg = _message(err, tp, value)
        out.append((path + where, msg))
    return out


def _unit_ids(value, tp, path: str):
    """(key path, value) of every UnitId inside ``value``, which fits ``tp``."""
    if tp == UnitId:
        yield path, value
        return
    tp = get_args(tp)[0] if get_origin(tp) is Annotated else tp
    if isinstance(tp, type) and issubclass(tp, Struct):
        for f in msgspec.structs.fields(tp):
            if f.encode_name in value:
                yield from _unit_ids(value[f.encode_name], f.type, _key(path, f.encode_name))
    elif get_origin(tp) is list:
        for i, v in enumerate(value):
            yield from _unit_ids(v, get_args(tp)[0], _key(path, i))
    elif get_origin(tp) is dict:
        for k, v in value.items():
            yield from _unit_ids(v, get_args(tp)[1], _key(path, k))


def check_data(data: dict) -> list[tuple[str, str]]:
    """Schema problems of a parsed scenario file, including its game's tables."""
    out = problems_in(data, Scenario)
    schemas = _game_schema(data.get("game"))
    for key, tp in zip(("victory", "game_data"), schemas or ()):
        table = data.get(key, {})           # a table left out is empty: its required keys are missing
        if isinstance(table, dict):
            found = problems_in(table, tp, key)
            out += found
            if not found and not out:
                units = {u["id"] for u in data["units"]}
                out += [(where, f"no unit {uid!r} in [units]") for where, uid in _unit_ids(table, tp, key)
                        if uid not in units]
    return out


class Board:
    """The map as lookup tables: terrain and features per hex, hexside features."""

    def __init__(self, m: MapData):
        self.grid = Grid(m.first_col, m.last_col, m.first_row, m.last_row, m.offset)
        self.terrain: dict[str, str] = {}
        for r, text in enumerate(m.rows[:m.last_row - m.first_row + 1]):    # extra rows/cells: lint says so
            cells = text.replace(" ", "")
            for c, ch in enumerate(cells[:m.last_col - m.first_col + 1]):
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
        """'1403 (Name)' where the hex has a place name."""
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
    import difflib
    ids = sorted(x.stem for x in SCENARIO_DIR.glob("*.toml"))
    near = difflib.get_close_matches(ref.lower(), ids, n=1, cutoff=0.6)
    hint = f"did you mean {near[0]}? " if near else ""
    raise ScenarioError(f"unknown scenario {ref!r}; {hint}shipped scenarios: {', '.join(ids)}")


def load(ref: str | Path) -> Scenario:
    path = find(str(ref))
    raw = path.read_bytes()
    return loads(raw, str(path))


_cache: dict[str, Scenario] = {}          # parsed from TOML in this process, by the file's sha256
_from_files: dict[str, Scenario] = {}     # read from a cache file in this process, by the same key


# --- the parsed scenario cached in a file (a game folder's .scenario-cache) -----------------
#
#     pbem-scenario <sha256 of the TOML> <game> <sha256 of the code's layout> <sha256 of the body>\n<body>
#
# The body is the Scenario's msgpack.  It is used only when every field matches: the TOML
# it came from (by its sha256), the code that checked and typed it (this module and the
# game's schema module, by their bytes: an upgrade that changes a struct or a check
# rebuilds it), and its own digest (a torn or edited file is rebuilt).  Anyone who can
# write the folder can still forge a consistent file: an audit parses the TOML (verify).

_CACHE_MAGIC = "pbem-scenario"
_code_digests: dict[str, str] = {}


def _code_digest(game: str) -> str | None:
    """sha256 of the code that gives a scenario of ``game`` its checks and types; None if unknown."""
    d = _code_digests.get(game)
    if d is None:
        import sys
        schema = _game_schema(game)
        if schema is None:
            return None
        h = hashlib.sha256()
        files = {__file__} | {sys.modules[t.__module__].__file__ for t in schema}
        for f in sorted(files):
            h.update(Path(f).read_bytes())
        d = _code_digests[game] = h.hexdigest()
    return d


def _read_cached(cache: Path, digest: str, name: str) -> Scenario | None:
    try:
        raw = cache.read_bytes()
    except OSError:
        return None
    head, _, body = raw.partition(b"\n")
    parts = head.decode("ascii", "replace").split(" ")
    if len(parts) != 5 or parts[0] != _CACHE_MAGIC or parts[1] != digest:
        return None
    if parts[3] != _code_digest(parts[2]) or hashlib.sha256(body).hexdigest() != parts[4]:
        return None
    try:
        sc = msgspec.msgpack.decode(body, type=Scenario)
    except msgspec.DecodeError:
        return None
    if sc.game != parts[2]:
        return None
    sc.sha256, sc.path = digest, name
    return sc


def _write_cached(cache: Path, sc: Scenario) -> None:
    code = _code_digest(sc.game)
    if code is None:
        return
    try:
        body = msgspec.msgpack.encode(sc)
        if msgspec.msgpack.decode(body, type=Scenario) != sc:
            return                      # a value msgpack does not give back as it was (a TOML date): no cache
    except (msgspec.EncodeError, msgspec.DecodeError, OverflowError):
        return
    from pbem.log import write_private
    head = f"{_CACHE_MAGIC} {sc.sha256} {sc.game} {code} {hashlib.sha256(body).hexdigest()}\n"
    try:
        write_private(cache, head.encode("ascii") + body, sync=False)
    except OSError:
        pass                            # a cache only


def rewrite_cache(cache: Path, sc: Scenario) -> None:
    """Replace a cache file with ``sc`` (parsed from the TOML), e.g. after an audit found it altered."""
    _from_files.pop(sc.sha256, None)
    _write_cached(Path(cache), sc)

SCENARIO_LIMIT = 16 << 20     # bytes read of a game's scenario.toml at most (a real one is far smaller)


def loads(raw: bytes, name: str = "<scenario>", cache: Path | None = None) -> Scenario:
    """Parse and check a scenario file's bytes; ScenarioError lists every schema problem.

    With ``cache`` (a file beside the game), the parsed scenario is read from it when
    it was made from these very bytes by this very code, and written to it otherwise."""
    digest = hashlib.sha256(raw).hexdigest()
    if digest in _cache:
        return _cache[digest]
    if cache is not None:
        sc = _from_files.get(digest)
        if sc is None:
            sc = _read_cached(Path(cache), digest, name)
            if sc is not None:
                _from_files[digest] = sc
        if sc is not None:
            return sc
    import tomllib                      # here: a game read through its scenario cache parses no TOML
    try:
        data = tomllib.loads(raw.decode("utf-8"))
    except UnicodeDecodeError as e:
        raise ScenarioError(f"{name}: not UTF-8 text ({e})") from None
    except tomllib.TOMLDecodeError as e:
        raise ScenarioError(f"{name}: TOML syntax error: {e}") from None
    problems = check_data(data)
    if problems:
        where, msg = problems[0]
        more = f" (and {len(problems) - 1} more problem(s): `pbem scenario lint` lists them)" if len(problems) > 1 else ""
        raise ScenarioError(f"{name}: {where + ': ' if where else ''}{msg}{more}", problems, name)
    sc = msgspec.convert(data, Scenario)
    sc.sha256 = digest
    sc.path = name
    _cache[digest] = sc
    if cache is not None:
        _write_cached(Path(cache), sc)
    return sc


def shipped() -> list[Path]:
    return sorted(SCENARIO_DIR.glob("*.toml"))


def lint(sc: Scenario, result_codes: set[str] | None = None, stacking: bool = False) -> list[str]:
    """Semantic checks beyond the schema; returns problems as readable lines.

    ``stacking``: the game allows several units in a set-up hex (it checks its
    own stacking limits in its lint), so two units set up in one hex are fine.

    ``load`` has checked the types, so every check here can assume them; each
    problem is reported and the checks go on with the rest."""
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
        for ch in sorted(set(cells) - set(m.legend)):
            errs.append(f"map.rows[{i}] (row {m.first_row + i:02d}): character {ch!r} is not in map.legend")
    for ch, t in m.legend.items():
        if len(ch) != 1:
            errs.append(f"map.legend[{ch!r}]: a legend key is one character")
        if t not in sc.terrain:
            errs.append(f"map.legend[{ch!r}]: terrain {t!r} is not defined in [terrain]")
    for name, t in sc.terrain.items():
        if t.move_cost < 0 or t.defence < 1:
            errs.append(f"terrain.{name}: move_cost must not be negative and defence must be at least 1")

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

    sides = set(sc.side_ids())
    for name, feat in m.features.items():
        for h in feat.hexes:
            check_hex(f"map.features.{name}", h)
        if feat.side and feat.side not in sides:
            errs.append(f"map.features.{name}: unknown side {feat.side!r}")
        if feat.defence < 1:
            errs.append(f"map.features.{name}: defence must be at least 1")
    for p in m.places:
        for h in p.hexes:
            check_hex(f"map.places[{p.name}]", h)
    for i, hs in enumerate(m.hexsides):
        if check_hex(f"map.hexsides[{i}].a", hs.a) and check_hex(f"map.hexsides[{i}].b", hs.b):
            if not grid.adjacent(hs.a, hs.b):
                errs.append(f"map.hexsides[{i}]: {hs.a} and {hs.b} are not adjacent")
        if hs.up and hs.up not in (hs.a, hs.b):
            errs.append(f"map.hexsides[{i}].up: {hs.up!r} is neither a ({hs.a}) nor b ({hs.b})")

    if len(sides) != len(sc.sides):
        errs.append("sides: two sides have the same id")
    for i, ph in enumerate(sc.sequence):
        if ph.side not in sides:
            errs.append(f"sequence[{i}]: phase {ph.name!r} names unknown side {ph.side!r}")
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
        if u.entry_turn is not None and not 0 <= u.entry_turn <= sc.turns:     # 0: placed at set-up
            errs.append(f"{where}: entry_turn {u.entry_turn} is not 0 (set-up) or a turn of the game (1..{sc.turns})")
        if check_hex(where, u.hex):
            terr = board.terrain.get(u.hex, "")
            if terr in sc.terrain and sc.terrain[terr].impassable:
                errs.append(f"{where}: set up in {u.hex}, which is {terr} (impassable)")
            if u.hex in occupied and not stacking:
                errs.append(f"{where}: set up in {u.hex}, already holding {occupied[u.hex]}")
            occupied[u.hex] = u.id

    crt = sc.crt
    if not crt.columns:
        errs.append("crt.columns: no columns")
    top = crt.max_roll or sc.die
    for d in range(1, top + 1):
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
        if not (k.isascii() and k.isdigit()) or not 1 <= int(k) <= top:
            errs.append(f"crt.rows: row {k!r} is not a die roll 1..{top}")
    return errs
