"""Issue 26 item 4: board events declare how they move (``events.Motion``) and what they
attack (``Event.strike``); the core reducer gives a declared core motion its effect; the
map draws every game's moves and attacks from the declarations (report/render.py).

The state after every event of every example is unchanged by the move of the effects
into the core: tests/test_board_state.py."""
from __future__ import annotations

import re

import msgspec
import pytest

from pbem.core import events as E
from pbem.core.reduce import board_effect, reduce_core
from pbem.core.state import GameState, UnitState
from pbem.games import load_all_events
from pbem.games.advanced_tobruk import events as T
from pbem.games.formation import events as F
from pbem.report import render
from pbem.views import REFEREE

TRAIL = re.compile(r'<g class="move move-(\w+)" data-unit="([^"]*)"')
HIGHLIGHT = re.compile(r'<polygon class="highlight" data-hex="([^"]+)"')


def steps(game) -> list[tuple[int, int]]:
    """(since, last seq) of every step a player is told about: from an order to the next."""
    entries = game.entries()
    orders = [en.seq for en in entries if isinstance(en.event, E.OrderGiven)]
    return list(zip(orders, [s - 1 for s in orders[1:]] + [entries[-1].seq]))


def step_map(game, entries, since: int, last: int, viewer: str) -> str:
    st = game.state(last)
    return render.report_svg(game, viewer, st, entries[:last + 1], since, entries[last].hash)


def drawn(game, viewer: str = REFEREE) -> list[tuple[int, list[tuple[str, str]], list[str]]]:
    """For every step: (its order's seq, the trails (kind, unit), the highlighted hexes) of its map."""
    entries = game.entries()
    out = []
    for since, last in steps(game):
        svg = step_map(game, entries, since, last, viewer)
        out.append((since, TRAIL.findall(svg), HIGHLIGHT.findall(svg)))
    return out


# --- the declarations ---------------------------------------------------------------------------

def test_every_declared_motion_and_strike_names_fields_of_its_event():
    load_all_events()
    declared = 0
    for kind, t in E.BY_KIND.items():
        fields = set(t.__struct_fields__)
        if t.motion is not None:
            declared += 1
            m = t.motion
            assert m.kind in ("move", "retreat", "advance", "place", "off", "eliminated"), kind
            assert m.unit in fields, kind
            assert not (m.path and m.hex), kind
            assert (m.path or m.hex or m.kind in ("off", "eliminated")), f"{kind}: where to?"
            for f in (m.path, m.hex):
                assert not f or f in fields, kind
        if t.strike:
            assert t.strike in fields, kind
    assert declared >= 20          # the core's four and the games' own


def test_declarations_are_class_level_the_bodies_stay_as_they_are():
    ev = E.UnitMoved(unit="A", path=["0102", "0103"], mp=2, ma=4)
    assert msgspec.json.decode(msgspec.json.encode(ev)) == {"kind": "UnitMoved", "unit": "A", "path": ["0102", "0103"],
                                                            "mp": 2, "ma": 4}
    assert E.decode_body("UnitMoved", b'{"unit":"A","path":["0102"],"mp":1,"ma":4}').motion.core
    assert E.moved_units(ev) == ["A"] and E.moved_to(ev) == ["0102", "0103"]
    assert E.moved_where(E.UnitEliminated(unit="A", reason="", rule="")) == (["A"], None)
    assert E.struck_hexes(E.AttackDeclared(target="0304", attackers=["A"])) == ["0304"]


# --- the core effect --------------------------------------------------------------------------------

def _state() -> GameState:
    return GameState(game_id="g", scenario_id="s", game="x", units={
        "A": UnitState(id="A", side="a", hex="0101", strength=2, ma=4),
        "B": UnitState(id="B", side="a", hex="0101", strength=2, ma=4)})


def test_the_core_moves_retreats_advances_and_eliminates():
    st = _state()
    assert reduce_core(st, E.UnitMoved(unit="A", path=["0102", "0103"], mp=2, ma=4))
    assert (st.units["A"].hex, st.units["A"].moved) == ("0103", True)
    reduce_core(st, E.UnitRetreated(unit="B", path=["0201"], chosen_by="auto"))
    assert (st.units["B"].hex, st.units["B"].moved) == ("0201", False)      # a retreat is no move
    reduce_core(st, E.UnitAdvanced(unit="B", path=["0101"]))
    assert st.units["B"].hex == "0101"
    reduce_core(st, E.UnitEliminated(unit="A", reason="DE", rule="9.4"))
    assert (st.units["A"].hex, st.units["A"].eliminated) == (None, True)


def test_an_eliminated_unit_stays_in_its_hex_where_the_game_says_so():
    st = _state()
    reduce_core(st, E.UnitEliminated(unit="A", reason="K-KILL", rule="13.611"), eliminated_stay=True)
    assert (st.units["A"].hex, st.units["A"].eliminated) == ("0101", True)


def test_a_stack_move_of_a_game_gets_the_core_effect_from_its_declaration():
    st = _state()
    board_effect(st, F.StackMoved(side="a", units=["A", "B"], path=["0102", "0202"], mp="2", ma="4"))
    assert [(u.hex, u.moved) for u in st.units.values()] == [("0202", True), ("0202", True)]
    board_effect(st, F.StackMoved(side="a", units=["A", "B"], path=[], mp="0", ma="4"))   # an empty path: no move
    assert st.units["A"].hex == "0202"


def test_a_substitute_hq_is_placed_on_its_hex_or_off_the_map():
    # 9.4.4: the substitute HQ comes in where the formation's HQ enters ("" = not yet on the map)
    st = _state()
    board_effect(st, F.SubstituteHQ(formation="f", old="A", new="B", hex="1400", level=3))
    assert st.units["B"].hex == "1400" and not st.units["B"].moved
    board_effect(st, F.SubstituteHQ(formation="f", old="A", new="B", hex="", level=3))
    assert st.units["B"].hex is None


def test_advanced_tobruk_keeps_its_wrecks_in_their_hex(tmp_path, fixed_clock):
    # 13.611, 13.7: a K-KILLed vehicle becomes a wreck in its hex; the core takes other games' units off
    from pbem.engine import Game
    g = Game.create(tmp_path / "t", "tobruk-r33", {}, dice=[1] * 40)
    st = g.state()
    uid, u = next((k, v) for k, v in st.units.items() if v.hex)
    g.rules.apply(st, E.UnitEliminated(unit=uid, reason="K-KILL", rule="13.611"), g.scenario)
    assert (st.units[uid].hex, st.units[uid].eliminated) == (u.hex, True)


# --- the maps --------------------------------------------------------------------------------------------

def test_mirages_compass_maps_draw_every_stack_move(played_example):
    g = played_example("mirages-compass").game()
    moves = sum(isinstance(en.event, F.StackMoved) for en in g.entries())
    assert moves == 51
    maps = drawn(g)
    trails = [t for _s, ts, _h in maps for t in ts]
    assert len(trails) >= moves                  # one per stack move (and the displaced HQ's), none before
    entries = g.entries()
    # the step with the most moves: one trail per stack move of it, each with its top unit
    since, last = max(steps(g), key=lambda s: sum(isinstance(en.event, F.StackMoved) and bool(en.event.path)
                                                   for en in entries[s[0]:s[1] + 1]))
    want = [en.event.units[0] for en in entries[since:last + 1] if isinstance(en.event, F.StackMoved) and en.event.path]
    svg = step_map(g, entries, since, last, REFEREE)
    assert [u for k, u in TRAIL.findall(svg) if k == "move"] == want and len(want) >= 5
    assert svg.count('class="move-path"') >= len(want)


def test_mirages_map_shows_another_side_only_the_top_unit_of_a_stack(played_example):
    # 5.3.4: other sides see the top unit of a stack; its trail names that one alone
    g = played_example("mirages-battleaxe").game()
    entries = g.entries()
    stacks = [en for en in entries if isinstance(en.event, F.StackMoved) and len(en.event.units) > 1 and en.event.path]
    assert stacks
    en = stacks[0]
    other = next(s for s in g.scenario.side_ids() if s != en.event.side)
    since = max(x.seq for x in entries[:en.seq] if isinstance(x.event, E.OrderGiven))
    svg = step_map(g, entries, since, en.seq, other)
    moves = svg[svg.index('<g class="moves">'):svg.index('<g class="counters">')]
    assert f'data-unit="{en.event.units[0]}"' in moves
    for hidden in en.event.units[1:]:
        assert f'"{hidden}"' not in moves


def test_mirages_combat_hex_is_highlighted(played_example):
    g = played_example("mirages-compass").game()
    target = next(en.event.target for en in g.entries() if isinstance(en.event, F.CombatDeclared))
    assert any(target in hl for _s, _t, hl in drawn(g))


def test_tobruk_maps_draw_the_moves_one_trail_per_move(played_example):
    g = played_example("tobruk-r33").game()
    entries = g.entries()
    maps = drawn(g)
    assert sum(len(ts) for _s, ts, _h in maps) >= 6
    # P2 enters 0908 then 0907 in one move (6.4): one trail from its start through both hexes
    since, last = next(s for s in steps(g) if any(isinstance(en.event, T.Stepped) and en.event.units == ["P2"]
                                                  for en in entries[s[0]:s[1] + 1]))
    svg = step_map(g, entries, since, last, REFEREE)
    assert [u for _k, u in TRAIL.findall(svg)] == ["P2"]
    moves = render.moves_since(entries[:last + 1], since, {u.id: u.hex for u in g.scenario.units})
    assert moves[0]["path"][-2:] == ["0908", "0907"] and len(moves[0]["path"]) == 3
    # the fire: hexes attacked are outlined
    assert sum(len(h) for _s, _t, h in maps) >= 10


@pytest.mark.parametrize("name,kinds", [("el-alamein", (E.UnitMoved, E.UnitRetreated, E.UnitAdvanced)),
                                        ("red-devils", (E.UnitMoved, E.UnitRetreated, E.UnitAdvanced))])
def test_old_games_still_draw_their_moves_and_attacks(played_example, name, kinds):
    g = played_example(name).game()
    entries = g.entries()
    maps = drawn(g)
    trails = sum(len(ts) for _s, ts, _h in maps)
    moved = sum(isinstance(en.event, kinds) for en in entries)
    assert trails == moved > 0                   # one trail each (a unit that enters: from its entry hex)
    attacked = {en.event.target for en in entries if isinstance(en.event, E.AttackDeclared)}
    lit = {h for _s, _t, hl in maps for h in hl}
    assert attacked and attacked <= lit


@pytest.mark.parametrize("name", ["mirages-compass", "tobruk-r33"])
def test_a_report_from_the_logs_tail_draws_the_trails_of_the_whole_log(played_example, name):
    # views.report_entries finds where each unit stood from the declared motions before ``since``
    from pbem.views import report_entries
    g = played_example(name).game()
    entries = g.entries()
    start = {u.id: u.hex for u in g.scenario.units}
    last = entries[-1].seq
    for since in sorted({0, last // 3, last // 2, (2 * last) // 3, last - 20, last - 3}):
        tail = report_entries(g, since)
        assert render.moves_since(tail, since, start) == render.moves_since(entries, since, start), since
        assert render.attacks_since(tail, since) == render.attacks_since(entries, since), since
