"""The caches and indexes that make `verify` fast give the answers the plain code gives
(correctness only: the figures come from tests/benchmark.py, never from a timed test).

- the grid's per-hex caches (neighbours, cube coordinates, edges, all hexes) and its
  ``memo`` dicts; what they hand out cannot be altered through a caller's copy;
- ``mechanics.zoc.ZocReach`` (a board-only ZOC block with the reach of each hex
  remembered) and ``enemy_zoc`` with it, against the unit-by-unit, neighbour-by-neighbour
  reference, on every example's states;
- ``mechanics.movement.units_at`` against its reference;
- the line-of-sight memo (``sight.trace``) against a fresh computation;
- the game-side shortcuts: Eben Emael's forts, the Panzer Corps family's reinforcement
  hexes and Dunkerque's connecting lines.
"""
from __future__ import annotations

import random

import pytest

from conftest import EXAMPLES
from pbem.core.hexgrid import EDGES, OFFSETS, Grid
from pbem.core.state import GameState, UnitState, copy_state
from pbem.mechanics import sight
from pbem.mechanics.movement import units_at
from pbem.mechanics.zoc import ZocReach, enemy_zoc, exerts_zoc, hexsides_block


# --- references: the code before the caches --------------------------------------------------

def ref_enemy_zoc(state, board, side, blocked=None, ignore=(), *, disrupted_exert=False) -> set[str]:
    skip = set(ignore)
    out: set[str] = set()
    for u in state.units.values():
        if u.side == side or u.id in skip or not exerts_zoc(u, disrupted_exert=disrupted_exert):
            continue
        for n in board.grid.neighbours(u.hex):
            if blocked is None or not blocked(u.hex, n):
                out.add(n)
    return out


def ref_units_at(state) -> dict[str, list[UnitState]]:
    where: dict[str, list[UnitState]] = {}
    for u in state.units.values():
        if u.hex is not None and not u.eliminated:
            where.setdefault(u.hex, []).append(u)
    return where


def states_of(g, n: int = 6) -> list[GameState]:
    """A few states along a played game, the last included."""
    last = g.head()[0]
    return [g.state_and_hash(at)[0] for at in sorted({last * k // n for k in range(1, n + 1)})]


def shuffled(st: GameState, rng: random.Random) -> GameState:
    """A copy with units moved, disrupted and eliminated at random (hexes of the map, or off it)."""
    st = copy_state(st)
    hexes = sorted({u.hex for u in st.units.values() if u.hex} | {"0101"})
    for u in st.units.values():
        if rng.random() < 0.5:
            u.hex = rng.choice(hexes + [None])
        u.disrupted = rng.random() < 0.3
        u.eliminated = rng.random() < 0.1
    return st


# --- the grid ----------------------------------------------------------------------------------

@pytest.mark.parametrize("offset", OFFSETS)
def test_grid_caches_answer_as_computed_and_hand_out_copies(offset):
    g = Grid(1, 9, 2, 8, offset)
    fresh = Grid(1, 9, 2, 8, offset)
    everything = [f"{c:02d}{r:02d}" for c in range(0, 11) for r in range(0, 11)]
    for h in everything:
        assert g.around(h) == tuple(fresh.neighbours(h))
        assert g.around(h) is g.around(h)                 # computed once
        got = g.neighbours(h)
        got.append("9999")                                # a caller's list is its own
        assert "9999" not in g.neighbours(h)
        col, row = int(h[:2]), int(h[2:])
        z = row - (col // 2 if offset == "odd-down" else (col + 1) // 2)
        assert g.to_cube(h) == (col, -col - z, z) == g.to_cube(h)
    hexes = g.all_hexes()
    assert hexes == sorted(hexes) and len(hexes) == 9 * 7
    hexes.clear()
    assert len(g.all_hexes()) == 63
    for e in EDGES:
        assert list(g.edge_hexes(e)) == [h for h in fresh.all_hexes() if fresh.is_edge(h, e)]
    with pytest.raises(ValueError):
        g.edge_hexes("up")
    for bad in ("12345", "12a4", None, ["0101"], 101):
        with pytest.raises(ValueError):
            g.to_cube(bad)
    assert g.memo("x") is g.memo("x") and g.memo("x") is not g.memo("y") and g.memo("x") is not fresh.memo("x")


def test_sight_traces_are_remembered_per_grid_and_equal_a_fresh_trace():
    rng = random.Random(7)
    for offset in OFFSETS:
        g = Grid(1, 12, 1, 12, offset)
        hexes = g.all_hexes()
        for _ in range(300):
            a, b = rng.choice(hexes), rng.choice(hexes)
            first = sight.trace(g, a, b)
            assert first == sight._trace_line(g, a, b) if a != b else first.left.hexes == (a,)
            assert sight.trace(g, a, b) is first or a == b
            back = sight.trace(g, b, a)                   # symmetric, under its own key
            assert back.left.hexes == first.left.hexes[::-1] and back.along == first.along


# --- zones of control and who stands where ------------------------------------------------------

@pytest.mark.parametrize("name", EXAMPLES)
def test_enemy_zoc_with_a_zoc_reach_is_the_reference_zoc(played_example, name):
    g = played_example(name).game()
    sc = g.scenario
    board = sc.board
    feats = sorted({f for fs in board.hexsides.values() for f in fs})
    plain = (lambda a, b: bool(board.side_features(a, b) & set(feats[:1]))) if feats else (lambda a, b: False)
    reach = ZocReach(board, plain)
    rng = random.Random(name)
    states = states_of(g)
    states += [shuffled(s, rng) for s in states]
    sides = sc.side_ids()
    for st in states:
        assert units_at(st) == ref_units_at(st)
        ids = sorted(st.units)
        for side in sides:
            for ex in (False, True):
                ignore = rng.sample(ids, min(2, len(ids)))
                want = ref_enemy_zoc(st, board, side, plain, disrupted_exert=ex)
                assert enemy_zoc(st, board, side, reach, disrupted_exert=ex) == want
                assert enemy_zoc(st, board, side, plain, disrupted_exert=ex) == want
                assert enemy_zoc(st, board, side, None, disrupted_exert=ex) == ref_enemy_zoc(st, board, side,
                                                                                              disrupted_exert=ex)
                assert (enemy_zoc(st, board, side, reach, iter(ignore), disrupted_exert=ex)
                        == ref_enemy_zoc(st, board, side, plain, ignore, disrupted_exert=ex))
    for h in board.grid.all_hexes()[:200]:
        for n in board.grid.neighbours(h):
            assert reach(h, n) == plain(h, n)


def test_hexsides_block_is_one_zoc_reach_per_board_and_features(played_example):
    g = played_example("red-devils").game()
    board = g.scenario.board
    feats = sorted({f for fs in board.hexsides.values() for f in fs})
    assert feats and hexsides_block(board, []) is None
    one = hexsides_block(board, feats[:1])
    assert isinstance(one, ZocReach) and hexsides_block(board, list(feats[:1])) is one
    assert hexsides_block(board, feats) is not one
    for (a, b), fs in board.hexsides.items():
        assert one(a, b) == one(b, a) == bool(fs & set(feats[:1]))
        assert (b in one.reach(a)) == (not bool(fs & set(feats[:1]))) or b not in board.grid.neighbours(a)


# --- the games' shortcuts ------------------------------------------------------------------------

def test_eben_emael_forts_are_built_once_and_handed_out_as_copies(played_example):
    from pbem.games.eben_emael import board as B
    sc = played_example("eben-emael-12-1").game().scenario
    want = {u.hex: u.id for u in sc.units if u.type in B.FORT_TYPES and u.hex}
    got = B.forts(sc)
    assert got == want and got
    got.clear()
    assert B.forts(sc) == want


@pytest.mark.parametrize("name", ["kharkov", "dunkerque"])
def test_reinforcement_hexes_are_those_each_hex_check_allows(played_example, name):
    g = played_example(name).game()
    rules, sc = g.rules, g.scenario
    rng = random.Random(name)
    for st in states_of(g, 4):
        for st2 in (st, shuffled(st, rng)):
            for u in sorted(st2.units.values(), key=lambda x: x.id)[:12]:
                open_to = rules.entry_hexes_open(st2, sc, u)
                for h in sc.board.grid.all_hexes()[::7]:
                    assert open_to(h) == _ref_entry_hex_open(rules, st2, sc, u, h), (u.id, h)


def _ref_entry_hex_open(rules, st, sc, u, h) -> bool:
    from pbem.games.panzer_corps.common import between_enemies
    t = sc.terrain.get(sc.board.terrain.get(h, ""))
    if t is None or t.impassable:
        return False
    occupied = ref_units_at(st)
    if any(o.side != u.side for o in occupied.get(h, [])):
        return False
    if not rules.room(st, u.side, h, u.id):
        return False
    enemies = {x for x, us in occupied.items() if any(o.side != u.side for o in us)}
    return not between_enemies(sc.board, h, enemies)


def test_dunkerque_lines_with_the_open_hexes_given_are_the_lines_found_alone(played_example):
    g = played_example("dunkerque").game()
    rules, sc = g.rules, g.scenario
    for st in states_of(g, 4):
        open_hex = rules.line_open(st, sc)
        grid = sc.board.grid
        edges = (rules.edge(sc, "west"), rules.edge(sc, "south"))
        goals = {h for h in grid.all_hexes() if any(grid.is_edge(h, e) for e in edges) and open_hex(h)}
        from pbem.mechanics.movement import trace_line
        for u in rules.on_map(st, "allied"):
            want = trace_line(sc.board, [u.hex], goals, open_hex=open_hex)
            assert rules.trace(st, sc, u) == want == rules.trace(st, sc, u, open_hex)
