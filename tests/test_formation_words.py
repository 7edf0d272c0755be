"""What a Mirages player reads: the scenario's side names in every sentence, refusals
that name the active formation and their rule, HELP's choices with orders to copy, and
the per-side words of a hidden Battle Victory refit (5.3.4)."""
from __future__ import annotations

from pbem.core.turn import Turn

import pytest

from conftest import one
from formation_helpers import hq, make, quiet, skip_ops, unit
from pbem.games.formation import events as E
from pbem.games.formation.intel import order_text, redact
from pbem.games.formation.words import describe


@pytest.fixture
def fm(tmp_path, fixed_clock):
    return lambda units=None, dice=(), **kw: make(tmp_path, units, dice, **kw)


def test_the_initiative_roll_names_the_sides_as_the_scenario_does(fm):
    t = fm(dice=[9, 7, 6])                  # AP; axis 7 vs allied 6 + 2 = 8
    quiet(t)
    t.ok("axis", "activate A")
    ev = one(t.ok("axis", "end"), E.InitiativeDetermined)
    text = describe(ev, t.game.scenario)
    assert "rolls [7, 6]: Axis 7, Commonwealth 8" in text and "Allied" not in text


def test_a_wrong_order_during_an_activation_names_the_formation_and_its_rule(fm):
    t = fm(dice=[9])
    quiet(t)
    t.ok("axis", "activate A")
    ap = t.state().fm.active.ap
    err = t.refuse("axis", "activate A", rule="7.1")
    assert f"A is active ({ap} AP left)" in str(err) and "end to stop the activation" in str(err)


def test_help_lists_the_formations_to_activate_and_the_active_formations_aps(fm):
    t = fm(dice=[9])
    quiet(t)
    rules, sc = t.game.rules, t.game.scenario
    assert list(Turn(rules, sc, t.state()).setup("allied")) == []          # not the Initiative player
    lines = list(Turn(rules, sc, t.state()).setup("axis"))
    assert len(lines) == 1 and lines[0].startswith("activate A ") and "activation level" in lines[0]
    a = t.awaiting()[0]
    assert a["options"] == ["formations able to activate: A"]
    t.ok("axis", "activate A")
    (line,) = list(Turn(rules, sc, t.state()).setup("axis"))
    assert line.startswith("A (") and f"has {t.state().fm.active.ap} AP" in line


def test_help_in_the_admin_phase_gives_schwerpunkt_and_entry_orders(fm):
    units = [hq("A-HQ", "axis", "0203", formation="A"), unit("A1", "axis", "0304", formation="A"),
             hq("C-HQ", "axis", "0205", formation="C"), unit("C1", "axis", "0306", formation="C"),
             unit("A9", "axis", None, formation="A", turn=2, ma=4),
             hq("B-HQ", "allied", "0903", formation="B"), unit("B1", "allied", "0804", formation="B")]
    t = fm(units, dice=[9] * 10, game_data={"schwerpunkt": {"setup": "A"}, "reinforcements": [
        {"turn": 2, "side": "axis", "units": ["A9"], "entry": ["0101"]}]})
    skip_ops(t)
    lines = list(Turn(t.game.rules, t.game.scenario, t.state()).setup("axis"))
    assert "Schwerpunkt (9.2): one of A, C; e.g. schwerpunkt A" in lines
    assert "reinforcement A9 (9.4): enters at 0101; e.g. enter A9 0101" in lines
    t.ok("axis", "schwerpunkt C")
    t.ok("axis", "enter A9 0101")                                      # the example order is legal


def test_a_hidden_bonus_refit_is_hidden_in_the_order_line_too(fm):
    # 5.3.4: the refit unit may sit beneath its stack's top; the order line must not name it
    assert order_text("bonus refit Sollum") == "bonus refit (a unit)"
    assert order_text("bonus pass") == "bonus pass"
    ev = E.ECRolled(unit="Sollum", side="axis", why="refit", rolls=[9], rating=3, passed=False)
    seen = redact(ev, "allied")
    sc = fm().game.scenario
    assert seen.unit == "(a unit)"
    assert "vs its rating" in describe(seen, sc) and "vs 0" not in describe(seen, sc)
    assert "Sollum effectiveness check (refit): d10 [9] vs 3, fails" in describe(ev, sc)
    assert redact(ev, "axis") == ev


def test_the_report_shows_how_many_counters_lie_beneath_an_enemy_top_unit(tmp_path, fixed_clock):
    # 5.3.4: the stack's height is in plain sight, its units are not
    from pbem.report.render import report_text
    units = [hq("A-HQ", "axis", "0203", formation="A"),
             unit("Apz", "axis", "0304", formation="A"),
             unit("Zsecret", "axis", "0304", formation="A", category="tank", movement="mot"),
             hq("B-HQ", "allied", "0903", formation="B"), unit("B1", "allied", "0804", formation="B")]
    t = make(tmp_path, units, [9])
    g = t.game
    text = report_text(g, "allied", g.state(), g.entries(), -1, g.head())
    line = next(x for x in text.splitlines() if x.strip().startswith("Apz "))
    assert "1 more beneath" in line and "Zsecret" not in text
    own = report_text(g, "axis", g.state(), g.entries(), -1, g.head())
    assert "more beneath" not in own and "Zsecret" in own


def test_headers_name_the_initiative_player_not_the_sequence_side(tmp_path):
    # 6: the Ops Phase is both sides'; the header names the side that holds the initiative
    from pbem.engine import Game
    from pbem.views import state_view
    g = Game.create(tmp_path / "g", "mirages-compass", {}, seed_hex="00" * 32)
    st = g.state()
    view = state_view(g, st, "referee")
    assert st.fm.initiative and view["phase"] == "ops"
    assert view["phase_side"] == st.fm.initiative == view["awaiting"][0]["side"]
    # with this seed the Commonwealth wins the first initiative, while the sequence gives the phase to the Axis
    assert st.fm.initiative == "allied" and g.scenario.sequence[st.phase].side == "axis"
