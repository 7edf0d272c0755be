"""Issue 26 item 3: CHECK through the dice.

A check rolls no die.  It used to stop at the first line that rolls ("needs dice") and
list every later line as "not checked", so a Mirages ``activate`` (a d10 for the APs,
6.4.1) left the whole activation unchecked.  Now the lines from the roll on are tried
with every outcome of the rolls (pbem/checking.py, ``dice.EveryRoll``) on the state the
checker may know, and each is said to apply whatever the roll, to be refused whatever
the roll, or to depend on it.  The secrecy of all this is proved with the other answers
in tests/test_check_secrecy.py (its pairs whose orders go past a roll).
"""
from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest

from pbem.core.dice import EveryRoll, TooManyRolls
from pbem.engine import Game
from pbem.host.mailcmd import check_lines

from test_check_secrecy import EXAMPLES, play


def told(g: Game, side: str, text: str) -> str:
    return "\n".join(check_lines(g, side, g.check(side, text)))


def by_line(sub) -> dict[int, object]:
    return {c.line: c for c in sub.past_dice}


# --- the dice a check tries every outcome with ------------------------------------------------------

def test_every_roll_visits_every_sequence_of_values_once():
    seen = []
    prefix = []
    while prefix is not None:
        d = EveryRoll(prefix)
        a = d.roll(2)
        b = d.roll(3) if a == 2 else 0          # the second die is rolled only after a 2
        seen.append((a, b))
        prefix = d.next_prefix()
    assert seen == [(1, 0), (2, 1), (2, 2), (2, 3)]
    with pytest.raises(TooManyRolls):           # rules that roll again on a 1 would never stop
        d = EveryRoll(most=3)
        while d.roll(6) == 1:
            pass


# --- Mirages: an activation (6.4.1) and the moves after it --------------------------------------------

ACTIVATE = """activate 7armdbg
move 11H 1817
move 11H 1816
move 2RB 2015
move 2RB 2014
move 11H 1817
end
"""


@pytest.fixture(scope="module")
def brevity(tmp_path_factory):
    """Mirages, Operation Brevity after the first Commonwealth activation: 7th Armoured Brigade Group,
    level 4 and the Schwerpunkt, may activate: its APs are the table's 3 to 6 for a d10, plus one and at
    least 3 with the Schwerpunkt (6.4.1, 5.9): 4 to 7."""
    return play("mirages-brevity", 1, tmp_path_factory.mktemp("brevity") / "g")


def test_moves_within_the_fewest_aps_of_an_activation_apply_whatever_the_roll(brevity):
    sub = brevity.check("allied", ACTIVATE)
    assert sub.needs_dice == "line 1: activate 7armdbg" and not sub.applied
    c = by_line(sub)
    assert [c[n].verdict for n in range(1, 6)] == ["apply"] * 5          # 4 moves: the fewest APs the d10 gives
    assert c[6].verdict == "depends" and c[6].applies                     # the 5th needs a roll giving 5 or more
    assert c[6].refusals and not sub.refused and not sub.unchecked
    text = told(brevity, "allied", ACTIVATE)
    assert "needs dice   line 1: activate 7armdbg: legal whatever the roll; a check rolls no die" in text
    assert "would apply  line 2: move 11H 1817 - whatever the roll\n" \
           "             7armdbg spends 1 AP on move (7.0).\n             11H moves to 1817." in text
    assert "would apply  line 5: move 2RB 2014 - whatever the roll" in text
    assert "depends      line 6: move 11H 1817 - on the roll: would apply with some outcomes; REFUSED with others" in text
    assert "not checked" not in text and not re.search(r"\bdie \d|rolls? \d", text)


def test_a_move_of_another_formation_is_refused_whatever_the_roll(brevity):
    sub = brevity.check("allied", "activate 7armdbg\nmove 11H 1817\nmove 4RTR 2012\nend\n")
    assert sub.refused is not None and sub.refused.rule == "5.5.1" and sub.refused.line == 3
    assert sub.not_applied == ["end"]
    text = told(brevity, "allied", "activate 7armdbg\nmove 11H 1817\nmove 4RTR 2012\nend\n")
    assert "would REFUSE line 3: 4RTR is not of the active formation 7armdbg (rule 5.5.1) [move 4RTR 2012] " \
           "- whatever the roll" in text
    assert "not applied  end" in text


def test_a_path_that_is_not_hex_by_hex_is_refused_whatever_the_roll(brevity):
    sub = brevity.check("allied", "activate 7armdbg\nmove 11H 1819\n")
    assert sub.refused is not None and sub.refused.rule == "7.3"


def test_a_check_past_the_dice_reads_no_seed(brevity, tmp_path):
    """The outcomes are tried, never rolled: without the host's seed the answer is the same."""
    here = tmp_path / "g"
    shutil.copytree(brevity.dir, here)
    before = told(Game(here), "allied", ACTIVATE)
    (here / "seed").unlink()
    g = Game(here)
    assert told(g, "allied", ACTIVATE) == before
    assert g.state().fm.active is None                                    # nothing was applied either


def test_the_check_still_stops_where_a_move_could_bring_a_reaction(brevity):
    """6.5.1, 5.3.4: a move next to an enemy stack may meet a reaction by standing orders the checker cannot
    see: past the roll too the check stops there, as before."""
    sub = brevity.check("allied", "activate 7armdbg\nmove 2RTR 1913 1912 1811 1711 1610\nend\n")
    assert sub.needs_reveal.startswith("line 2:") and "reaction" in sub.why and sub.unchecked == ["end"]


# --- the Panzer Corps family: an attack, and the orders after it -------------------------------------

ALAMEIN = (EXAMPLES / "el-alamein" / "01-axis.txt").read_text()


@pytest.fixture(scope="module")
def alamein(tmp_path_factory):
    return play("el-alamein", 0, tmp_path_factory.mktemp("alamein") / "g")


def test_a_move_after_the_combats_is_refused_whatever_their_rolls(alamein):
    """El Alamein 9.0: the combats are resolved at the end of the combat phase (the roll); a move then is
    refused with every outcome (the game waits for a retreat or advance, 9.5, 9.6, or the movement phase is
    over, 5.0)."""
    sub = alamein.check("axis", ALAMEIN + "move 8Pz 0813\n")
    assert sub.needs_dice.startswith("line 10: end")
    assert [a.line for a in sub.applied] == [2, 3, 4, 5, 6, 7, 8, 9]
    assert sub.refused is not None and sub.refused.line == 11
    assert by_line(sub)[10].verdict == "apply"
    assert "needs dice   line 10: end: legal whatever the roll" in told(alamein, "axis", ALAMEIN)
    assert "[move 8Pz 0813] - whatever the roll" in told(alamein, "axis", ALAMEIN + "move 8Pz 0813\n")


def test_a_retreat_answer_after_the_combats_depends_on_their_rolls(alamein):
    sub = alamein.check("axis", ALAMEIN + "retreat 7Mot 0814\nadvance 5Pz\n")
    c = by_line(sub)
    assert c[11].verdict == "depends" and c[11].applies
    assert any("does not owe a retreat" in r for r in c[11].refusals)
    assert c[12].verdict == "depends" and not c[12].reached_by_all
    text = told(alamein, "axis", ALAMEIN + "retreat 7Mot 0814\nadvance 5Pz\n")
    assert "depends      line 11: retreat 7Mot 0814 - on the roll: would apply with some outcomes" in text
    assert not re.search(r"\bdie \d", text)


def test_too_many_outcomes_stop_the_check_and_say_so(alamein, monkeypatch):
    from pbem import checking
    monkeypatch.setattr(checking, "RUNS", 5)     # three combats' d6s: 216 outcomes
    sub = alamein.check("axis", ALAMEIN + "retreat 7Mot 0814\n")
    assert sub.too_many.startswith("line 10: end") and sub.unchecked == ["retreat 7Mot 0814"]
    text = told(alamein, "axis", ALAMEIN + "retreat 7Mot 0814\n")
    assert "not checked  line 10: end: it and the rolls before it have too many outcomes" in text
    assert "not checked  retreat 7Mot 0814 (too many outcomes before it)" in text


def test_the_checked_lines_past_the_dice_are_the_same_by_cli(alamein, tmp_path):
    from click.testing import CliRunner
    from pbem.cli import main
    orders = tmp_path / "o.txt"
    orders.write_text(ALAMEIN + "retreat 7Mot 0814\n")
    r = CliRunner().invoke(main, ["order", str(alamein.dir), str(orders), "--as", "axis", "--check"])
    assert r.exit_code == 0
    assert r.output.rstrip("\n") == told(alamein, "axis", ALAMEIN + "retreat 7Mot 0814\n")


def test_the_example_orders_are_never_refused_past_the_dice():
    """Each example's order files played in turn: a check of the next one, made before it is applied, never
    refuses it whatever the roll (the real dice took one of the outcomes, and the orders were applied)."""
    import tempfile
    import tomllib
    for example in ("mirages-brevity", "el-alamein"):
        book = tomllib.loads((EXAMPLES / example / "playbook.toml").read_text())
        g = play(example, 0, Path(tempfile.mkdtemp()) / "g")
        sides = g.scenario.side_ids()
        for step in book["steps"][:12]:
            side = next(s for s in sides if Path(step).stem.endswith("-" + s))
            text = (EXAMPLES / example / step).read_text()
            sub = g.check(side, text)
            assert sub.refused is None, f"{example} {step}: {sub.refused}"
            assert all(c.applies for c in sub.past_dice), f"{example} {step}: {sub.past_dice}"
            assert g.submit(side, text).refused is None
