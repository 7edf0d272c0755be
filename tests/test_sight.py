"""Line of sight (pbem/rules/sight.py): the shared geometry behind Paratroop
6.0 (Eben Emael) and the other tactical games."""
from __future__ import annotations

from hypothesis import given, settings, strategies as st

from pbem.core.hexgrid import DIRECTIONS, Grid
from pbem.mechanics.sight import SightRules, blocked_by, clear, side_key, trace

GRIDS = [Grid(1, 14, 1, 12, "even-down"), Grid(1, 14, 1, 12, "odd-down")]
grid_st = st.sampled_from(GRIDS)


def hexes_of(g: Grid):
    return st.sampled_from(g.all_hexes())


@st.composite
def board(draw):
    g = draw(grid_st)
    hs = g.all_hexes()
    a, b = draw(st.sampled_from(hs)), draw(st.sampled_from(hs))
    woods = draw(st.sets(st.sampled_from(hs), max_size=30))
    sides = set()
    for h in draw(st.lists(st.sampled_from(hs), max_size=30)):
        n = g.neighbours(h)
        sides.add(side_key(h, draw(st.sampled_from(n))))
    along = draw(st.sampled_from(["both", "either"]))
    elevated = draw(st.sets(st.sampled_from(hs), max_size=5))
    return g, a, b, woods, sides, along, elevated


def rules_for(woods, sides, along="both", elevated=()):
    return SightRules(hex_blocks=lambda h: h in woods, side_blocks=lambda x, y: side_key(x, y) in sides,
                      along=along, elevated=(lambda h: h in elevated) if elevated else None,
                      elevated_side_blocks=lambda x, y: False)


@settings(max_examples=300, deadline=None)
@given(board())
def test_symmetry(b):
    # 6.1: if A can sight B, B can sight A -- for any terrain.
    g, a, z, woods, sides, along, elevated = b
    r = rules_for(woods, sides, along, elevated)
    assert clear(g, a, z, r) == clear(g, z, a, r)


@settings(max_examples=200, deadline=None)
@given(grid_st.flatmap(lambda g: st.tuples(st.just(g), hexes_of(g), hexes_of(g))))
def test_a_clear_map_never_blocks(t):
    g, a, b = t
    assert clear(g, a, b, SightRules())


@settings(max_examples=200, deadline=None)
@given(grid_st.flatmap(lambda g: st.tuples(st.just(g), hexes_of(g), st.sampled_from(DIRECTIONS),
                                           st.integers(2, 6), st.data())))
def test_a_blocking_hex_between_blocks(t):
    # 6.2: the line may go into an obstructing hex but not through it.
    g, a, d, n, data = t
    line = [a]
    for _ in range(n):
        nxt = g.neighbour(line[-1], d)
        if nxt is None:
            break
        line.append(nxt)
    if len(line) < 3:
        return
    b = line[-1]
    mid = data.draw(st.sampled_from(line[1:-1]))
    assert not clear(g, a, b, rules_for({mid}, set()))
    assert clear(g, a, b, rules_for({a, b}, set()))          # into, not through: the ends never block
    s = data.draw(st.integers(0, len(line) - 2))
    assert not clear(g, a, b, rules_for(set(), {side_key(line[s], line[s + 1])}))


@settings(max_examples=200, deadline=None)
@given(board())
def test_the_trace_is_a_connected_chain(b):
    g, a, z, *_ = b
    p = trace(g, a, z)
    for tr in (p.left, p.right):
        assert tr.hexes[0] == a and tr.hexes[-1] == z
        for x, y in zip(tr.hexes, tr.hexes[1:]):
            assert x.startswith("?") or y.startswith("?") or g.adjacent(x, y)
        # every hex of the sampled line is met by the exact line
        assert set(g.line(a, z)) <= set(p.left.hexes) | set(p.right.hexes)


G = GRIDS[0]


def test_along_a_hexside():
    # 0606 -> 0806 runs along the hexside 0706|0707 (6.2).
    p = trace(G, "0606", "0806")
    assert p.along == (("0706", "0707"),)
    assert clear(G, "0606", "0806", rules_for({"0706"}, set()))             # slips past on the 0707 side
    assert not clear(G, "0606", "0806", rules_for({"0706"}, set(), along="either"))
    assert not clear(G, "0606", "0806", rules_for({"0706", "0707"}, set()))
    assert not clear(G, "0606", "0806", rules_for(set(), {("0706", "0707")}))  # along an obstructing hexside
    assert "runs along" in blocked_by(G, "0806", "0606", rules_for(set(), {("0706", "0707")}))


def test_corner_clips_count():
    # The exact line 0606-1202 clips 0804 and 1004, which the sampled line skips.
    p = trace(G, "0606", "1202")
    assert {"0804", "1004"} <= p.intermediate
    assert "0804" not in G.line("0606", "1202")
    assert not clear(G, "0606", "1202", rules_for({"0804"}, set()))


def test_adjacent_and_elevated_exceptions():
    cliff = {side_key("0606", "0607")}
    wall = {side_key("0606", "0706")}
    r = SightRules(side_blocks=lambda x, y: side_key(x, y) in cliff | wall,
                   adjacent_side_blocks=lambda x, y: side_key(x, y) in cliff)
    assert clear(G, "0606", "0706", r)           # only the cliff counts next door
    assert not clear(G, "0606", "0607", r)
    hill = SightRules(hex_blocks=lambda h: h == "0608", side_blocks=lambda x, y: True,
                      elevated=lambda h: h == "0606", elevated_side_blocks=lambda x, y: side_key(x, y) in cliff)
    assert clear(G, "0606", "0609".replace("9", "9"), SightRules(hex_blocks=lambda h: False))
    assert not clear(G, "0606", "0610", hill)    # the cliff at 0606|0607 still blocks
    hill2 = SightRules(hex_blocks=lambda h: h == "0608", elevated=lambda h: h == "0610")
    assert clear(G, "0606", "0610", hill2) and clear(G, "0610", "0606", hill2)
