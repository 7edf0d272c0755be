"""Tests for pbem.hexgrid: hand-worked examples plus hypothesis properties.

Geometry is also checked against an independent pixel model: flat-top hex
centres at x = 1.5 * col, y = sqrt(3) * (row + 0.5 if the column is shifted
down), with y increasing southward.
"""

import math
from collections import deque

import pytest
from hypothesis import given, settings, strategies as st

from pbem.core.hexgrid import DIRECTIONS, Grid, format_hex, parse_hex

SQ3 = math.sqrt(3)
# Pixel displacement of each neighbour direction (y grows southward).
PIXEL_DIR = {
    "N": (0.0, -SQ3), "NE": (1.5, -SQ3 / 2), "SE": (1.5, SQ3 / 2),
    "S": (0.0, SQ3), "SW": (-1.5, SQ3 / 2), "NW": (-1.5, -SQ3 / 2),
}


def centre(h, offset):
    col, row = parse_hex(h)
    shifted = (col % 2 == 0) == (offset == "even-down")
    return 1.5 * col, SQ3 * (row + (0.5 if shifted else 0.0))


def close(p, q, tol=1e-9):
    return abs(p[0] - q[0]) < tol and abs(p[1] - q[1]) < tol


# -- strategies -------------------------------------------------------------
offsets = st.sampled_from(["even-down", "odd-down"])


@st.composite
def grids(draw):
    fc = draw(st.integers(0, 99))
    lc = draw(st.integers(fc, min(99, fc + 15)))
    fr = draw(st.integers(0, 99))
    lr = draw(st.integers(fr, min(99, fr + 15)))
    return Grid(fc, lc, fr, lr, draw(offsets))


def on_map(g):
    return st.builds(format_hex, st.integers(g.first_col, g.last_col),
                     st.integers(g.first_row, g.last_row))


any_hex = st.builds(format_hex, st.integers(0, 99), st.integers(0, 99))


@st.composite
def grid_and_hexes(draw, n):
    g = draw(grids())
    return (g, *[draw(on_map(g)) for _ in range(n)])


# -- parsing ---------------------------------------------------------------
def test_parse_and_format_examples():
    assert parse_hex("0512") == (5, 12)
    assert parse_hex("0000") == (0, 0)
    assert parse_hex("9999") == (99, 99)
    assert format_hex(5, 12) == "0512"
    assert format_hex(0, 7) == "0007"


@pytest.mark.parametrize("bad", ["12", "ab12", "12345", "", " 512", "05 2", "-512",
                                 "05.2", "\u0660\u0665\u0661\u0662", None, 512])
def test_parse_rejects_malformed(bad):
    with pytest.raises(ValueError):
        parse_hex(bad)


@pytest.mark.parametrize("col,row", [(-1, 5), (5, -1), (100, 5), (5, 100)])
def test_format_rejects_out_of_range(col, row):
    with pytest.raises(ValueError):
        format_hex(col, row)


@given(st.integers(0, 99), st.integers(0, 99))
def test_parse_format_round_trip(col, row):
    assert parse_hex(format_hex(col, row)) == (col, row)


# -- grid basics ------------------------------------------------------------
def test_grid_validation_and_contains():
    with pytest.raises(ValueError):
        Grid(1, 10, 1, 10, offset="even")
    with pytest.raises(ValueError):
        Grid(5, 4, 1, 10)
    g = Grid(1, 10, 1, 8)
    assert g.offset == "even-down"
    assert g.contains("0101") and g.contains("1008") and g.contains("0505")
    assert not g.contains("0001") and not g.contains("1101") and not g.contains("0509")
    for bad in ["12", "ab12", "12345", "", None, 505]:
        assert g.contains(bad) is False
    hexes = g.all_hexes()
    assert len(hexes) == 80 and hexes[:3] == ["0101", "0102", "0103"]
    assert hexes == sorted(hexes) and hexes[-1] == "1008"


def test_is_edge():
    g = Grid(1, 10, 1, 8)
    assert g.is_edge("0501", "north") and not g.is_edge("0502", "north")
    assert g.is_edge("0508", "south") and g.is_edge("0105", "west")
    assert g.is_edge("1005", "east") and not g.is_edge("0905", "east")
    with pytest.raises(ValueError):
        g.is_edge("0501", "up")


# -- hand-worked neighbours and distances ------------------------------------
EVEN_NEIGHBOURS = {
    "0505": ["0504", "0604", "0605", "0506", "0405", "0404"],
    "0605": ["0604", "0705", "0706", "0606", "0506", "0505"],
}
ODD_NEIGHBOURS = {  # mirrored: odd columns are now the low ones
    "0505": ["0504", "0605", "0606", "0506", "0406", "0405"],
    "0605": ["0604", "0704", "0705", "0606", "0505", "0504"],
}


@pytest.mark.parametrize("offset,table", [("even-down", EVEN_NEIGHBOURS),
                                          ("odd-down", ODD_NEIGHBOURS)])
def test_hand_worked_neighbours(offset, table):
    g = Grid(1, 10, 1, 10, offset)
    for h, expected in table.items():
        assert g.neighbours(h) == expected
        assert [g.neighbour(h, d) for d in DIRECTIONS] == expected
        for d, n in zip(DIRECTIONS, expected):
            assert g.direction(h, n) == d and g.adjacent(h, n)
            assert g.hexside(h, n) == g.hexside(n, h) == tuple(sorted((h, n)))


def test_off_map_neighbours():
    assert Grid(1, 10, 1, 10).neighbours("0101") == ["0201", "0102"]
    assert Grid(1, 10, 1, 10, "odd-down").neighbours("0101") == ["0201", "0202", "0102"]
    g = Grid(1, 10, 1, 10)
    assert g.neighbour("0101", "N") is None and g.neighbour("0101", "NW") is None
    assert Grid(0, 99, 0, 99).neighbour("0000", "NW") is None  # can't be numbered
    with pytest.raises(ValueError):
        g.neighbour("0505", "E")


def test_hand_worked_distances():
    g = Grid(1, 10, 1, 10)
    assert g.distance("0505", "0605") == 1
    assert g.distance("0505", "0507") == 2
    assert g.distance("0101", "0301") == 2
    assert g.distance("0101", "0202") == 2
    assert g.distance("0505", "0505") == 0
    assert g.distance("0101", "9999") > 0  # off-map numbers still measure
    o = Grid(1, 10, 1, 10, "odd-down")
    assert o.distance("0505", "0605") == 1 and o.distance("0505", "0507") == 2
    assert o.distance("0101", "0301") == 2 and o.distance("0101", "0202") == 1
    assert g.direction("0505", "0507") is None and not g.adjacent("0505", "0505")
    with pytest.raises(ValueError):
        g.hexside("0505", "0507")


def test_cube_examples_and_errors():
    g = Grid(1, 10, 1, 10)
    assert sum(g.to_cube("0512")) == 0
    assert g.from_cube(g.to_cube("0512")) == "0512"
    for bad in [(-1, 1, 0), (0, 1, -1), (100, -100, 0), (1, 1, 1)]:
        with pytest.raises(ValueError):
            g.from_cube(bad)


def test_ring_within_examples():
    g = Grid(1, 10, 1, 10)
    assert g.ring("0505", 0) == ["0505"]
    assert g.ring("0505", 1) == EVEN_NEIGHBOURS["0505"]
    assert len(g.ring("0505", 2)) == 12 and len(g.within("0505", 2)) == 19
    assert g.within("0101", 1) == ["0101", "0102", "0201"]
    with pytest.raises(ValueError):
        g.ring("0505", -1)


def test_line_examples():
    g = Grid(1, 10, 1, 10)
    assert g.line("0505", "0505") == ["0505"]
    assert g.line("0505", "0509") == ["0505", "0506", "0507", "0508", "0509"]
    # Along row 01 the line runs exactly along hexsides between odd/even columns.
    pairs = g.line_pairs("0101", "0501")
    assert pairs == [("0101", "0101"), ("0200", "0201"), ("0301", "0301"),
                     ("0400", "0401"), ("0501", "0501")]
    assert g.line("0101", "0501") == ["0101", "0201", "0301", "0401", "0501"]  # on-map side
    assert Grid(0, 5, 0, 5, "odd-down").line_pairs("0000", "0200")[1] == ("0100", "0100")


# -- properties --------------------------------------------------------------
@settings(max_examples=60)
@given(grids())
def test_neighbours_match_pixel_geometry(g):
    """Every neighbour sits at the right pixel offset, and nothing else does."""
    hexes = g.all_hexes()
    centres = {h: centre(h, g.offset) for h in hexes}
    for h in hexes[:40]:
        cx, cy = centres[h]
        for d in DIRECTIONS:
            dx, dy = PIXEL_DIR[d]
            want = [k for k, c in centres.items() if close(c, (cx + dx, cy + dy))]
            n = g.neighbour(h, d)
            assert want == ([] if n is None else [n])


@given(grid_and_hexes(2))
def test_neighbour_symmetry_and_distance(args):
    g, a, b = args
    assert (b in g.neighbours(a)) == (a in g.neighbours(b))
    for n in g.neighbours(a):
        assert g.distance(a, n) == 1 and g.adjacent(a, n) and g.contains(n)


@given(offsets, any_hex, any_hex, any_hex)
def test_distance_is_metric(offset, a, b, c):
    g = Grid(0, 99, 0, 99, offset)
    assert g.distance(a, b) == g.distance(b, a) >= 0
    assert (g.distance(a, b) == 0) == (a == b)
    assert g.distance(a, c) <= g.distance(a, b) + g.distance(b, c)


@settings(max_examples=30)
@given(grid_and_hexes(1))
def test_distance_matches_bfs(args):
    g, a = args
    seen, todo = {a: 0}, deque([a])
    while todo:
        h = todo.popleft()
        for n in g.neighbours(h):
            if n not in seen:
                seen[n] = seen[h] + 1
                todo.append(n)
    assert seen == {h: g.distance(a, h) for h in g.all_hexes()}


@given(offsets, any_hex)
def test_cube_round_trip(offset, h):
    g = Grid(0, 99, 0, 99, offset)
    c = g.to_cube(h)
    assert sum(c) == 0 and g.from_cube(c) == h


@given(grid_and_hexes(2))
def test_line_properties(args):
    g, a, b = args
    line = g.line(a, b)
    assert len(line) == g.distance(a, b) + 1
    assert line[0] == a and line[-1] == b
    assert all(g.adjacent(p, q) for p, q in zip(line, line[1:]))
    assert all(g.contains(h) for h in line)
    assert g.line(b, a) == line[::-1]
    # Each hex contains its sample point on the centre line (nearest centre).
    (ax, ay), (bx, by) = centre(a, g.offset), centre(b, g.offset)
    n = len(line) - 1
    for i, h in enumerate(line):
        t = i / n if n else 0.0
        px, py = ax + (bx - ax) * t, ay + (by - ay) * t
        hx, hy = centre(h, g.offset)
        d0 = math.hypot(px - hx, py - hy)
        assert all(d0 <= math.hypot(px - hx - dx, py - hy - dy) + 1e-9
                   for dx, dy in PIXEL_DIR.values())


@given(grid_and_hexes(2))
def test_line_pairs_properties(args):
    g, a, b = args
    pairs = g.line_pairs(a, b)
    line = g.line(a, b)
    assert len(pairs) == len(line) and pairs[0] == (a, a) and pairs[-1] == (b, b)
    for (p, m), h in zip(pairs, line):
        assert h in (p, m) and (p == m or g.adjacent(p, m))
    for seq in ([p for p, _ in pairs], [m for _, m in pairs]):
        assert all(g.adjacent(p, q) for p, q in zip(seq, seq[1:]))
    if all(p == m for p, m in pairs):
        assert line == [p for p, _ in pairs]
    back = g.line_pairs(b, a)
    assert {frozenset(x) for x in pairs} == {frozenset(x) for x in back}


@given(grid_and_hexes(1), st.integers(0, 6))
def test_ring_and_within(args, r):
    g, h = args
    ring = g.ring(h, r)
    assert all(g.distance(h, x) == r and g.contains(x) for x in ring)
    assert len(set(ring)) == len(ring)
    expected = sorted(x for x in g.all_hexes() if g.distance(h, x) <= r)
    within = g.within(h, r)
    assert within == expected and h in within
    assert sorted(x for k in range(r + 1) for x in g.ring(h, k)) == within
