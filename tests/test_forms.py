"""Order forms (issue 26, core/forms.py): HELP and the set-up choices derived from the forms
each game declares and the words each step names, no longer from per-game hooks.

* On every state of every example, every side's HELP, set-up choices and their title are
  the lines the hooks ``order_help``/``setup_choices``/``choices_title`` gave before they
  were removed (tests/golden_help.json, recorded from them by tests/help_record.py), but for
  deliberate fixes: the core ``move`` example (``move UNIT HEX``) named the unit of the
  attack example with a hex next to another unit (it now names a unit and a hex next to
  it); Crete's HELP lacked the advance answer the game waits for (10.7); Eben Emael's
  ``enter`` is the Belgians' (10.2: Belgian reinforcements enter along any map edge), not
  the Germans'.  (And the steps offer what the forms say: Eben Emael's movement no
  ``enter``/``place`` to the Germans, its assault no ``demolish`` to the Belgians (8.0);
  Tobruk's movement ``search`` only on a card with minefields, 31.211.)
* Every word a step offers has a form; every form is offered by some step or is a word any
  side may send at any time; a refusal's "offered now" list names only words with forms.
"""
from __future__ import annotations

import json
import re

import pytest

from conftest import EXAMPLES
from help_record import GOLDEN, runs, walk
from pbem.core import orders as O
from pbem.core import turn as T
from pbem.core.forms import CORE_ANY_TIME, Form, forms_of, form_words, help_lines
from pbem.core.events import OrderGiven
from pbem.core.orders import OrderError
from pbem.core.ruleset import Ctx, Ruleset
from pbem.core.scenario import load
from pbem.games import ruleset_for

SCENARIOS = ("eben-emael-12-1", "red-devils", "crete", "el-alamein", "dunkerque", "kharkov", "operation-compass",
             "mirages-compass", "tobruk-r33", "tobruk-perimeter")


@pytest.mark.parametrize("name", EXAMPLES)
def test_help_and_choices_are_the_hooks_lines_on_every_state(name, played_example):
    golden = json.loads(GOLDEN.read_text())[name]
    got = runs(played_example(name).game())
    first = next(((g, w) for g, w in zip(got + [None], golden + [None]) if g != w), None)
    assert first is None, f"{name}: the first state whose HELP or choices differ (got, recorded): {first}"


def test_the_move_example_names_a_hex_next_to_its_unit(played_example):
    """The core move form's example (core/forms.py): the unit and a hex next to it.  The old
    core_help named the attack example's unit with the hex next to the first unit."""
    g = played_example("el-alamein").game()
    sc, n = g.scenario, 0
    for seq, turn in walk(g):
        for side in sc.side_ids():
            line = next(x for x in turn.help(side) if x.startswith("move UNIT"))
            m = re.search(r"\(e\.g\. move (\S+) (\S+)\)", line)
            u = turn.st.units.get(m.group(1))
            if u is not None:
                assert m.group(2) in sc.board.grid.neighbours(u.hex), (seq, side, line)
                n += 1
    assert n


def _rules(name: str):
    sc = load(name)
    return ruleset_for(sc.game), sc


@pytest.mark.parametrize("name", SCENARIOS)
def test_every_word_a_step_offers_has_a_form_and_every_form_is_offered(name):
    rules, sc = _rules(name)
    steps = list(rules.steps.values()) + list(rules.interrupts)
    offered = {w for s in steps for w in s.verbs} | set(rules.any_time)
    words = form_words(rules)
    assert offered - words == set(), f"{name}: words offered with no form"
    orders = [f for f in forms_of(rules) if f.words]
    stray = {w for f in orders for w in f.words} - offered - CORE_ANY_TIME
    assert stray == set(), f"{name}: forms no step offers"
    for s in steps:                       # the choices a step lists are those of its forms
        named = s.choices if not callable(s.choices) else ()
        assert set(named) <= {f.word for f in forms_of(rules) if f.choices is not None}, (name, s.name)


@pytest.mark.parametrize("name", EXAMPLES)
def test_a_refusal_offers_only_words_with_forms(name, played_example):
    """On every state, a word no step offers is refused by the kernel's gate (core/turn.py
    ``handle``) with the words offered now: each is a form's the side may use; on every
    state an order came to (the states players see), a form HELP shows them now.  (Between
    two events of one order a step may offer words a scenario does not use: Tobruk r33 passes
    through the Indirect Fire Phase, with no battery or mortar, by itself.)"""
    g = played_example(name).game()
    rules, sc = g.rules, g.scenario
    entries = g.entries()
    seen = {e.seq - 1 for e in entries if isinstance(e.event, OrderGiven)} | {entries[-1].seq}
    n = 0
    for seq, turn in walk(g):
        st = turn.st
        step = T.current_step(rules, st, sc)
        if step is None:
            continue
        for side in step.waited(st, sc):
            with pytest.raises(OrderError) as e:
                T.handle(rules, Ctx(rules, st, sc, side, None), O.GameVerb(word="xyzzy"))
            said = re.search(r"offered now: (.*?)(?: - |; |$)", str(e.value))
            assert said, (seq, side, str(e.value))
            now = [] if said.group(1) == "nothing" else said.group(1).split(", ")
            assert now == list(step.words(st, sc, side)), (seq, side)
            assert set(now) <= form_words(rules, side), (name, seq, side, now)
            if seq in seen:
                assert set(now) <= form_words(rules, side, st, sc), (name, seq, side, now)
                n += 1
    assert n


def test_a_form_reads_as_one_help_line_and_cites_its_rule():
    f = Form("dig", "dig UNIT HEX", "an entrenchment", rule="9.1", also=("fill",), sides=("axis",))
    sc = load("el-alamein")
    st = ruleset_for(sc.game).new_state(sc, "x")
    assert f.lines(st, sc, "axis") == ["dig UNIT HEX    an entrenchment (9.1)"]
    assert f.words == ("dig", "fill") and f.for_side("axis") and not f.for_side("allied")

    class Dig(Ruleset):
        forms = (f, Form("end", "end", "done"))
    assert help_lines(Dig(), st, sc, "axis") == ["dig UNIT HEX    an entrenchment (9.1)", "end    done"]
    assert help_lines(Dig(), st, sc, "allied") == ["end    done"]       # a form of one side only


def test_a_step_lists_the_choices_of_the_forms_it_names_while_it_waits_for_the_side(played_example):
    """Kharkov starts with a set-up decision: its step names 'place', whose form lists each
    unit's legal hexes; the other side, not waited for, gets none."""
    g = played_example("kharkov").game()
    turn = next(t for _, t in walk(g) if t.st.decision is not None and t.st.decision.kind == "set-up")
    st = turn.st
    side = st.decision.side
    other = next(s for s in g.scenario.side_ids() if s != side)
    assert turn.step.choice_words(st, g.scenario, side) == ("place",)
    got = turn.setup(side)
    assert got and all(x.startswith("place ") and " HEX: " in x for x in got)
    assert turn.setup(other) == () and turn.setup_title(side) == "set-up choices"
