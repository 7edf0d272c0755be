"""The turn as a kernel object, first stage (issue 26, core/turn.py): the adapter
reads the games' hooks once per state into typed objects (Wait, Offer) that every
consumer reads, and one step_line names the step everywhere.

The adapter must be exact: on every state of every example the ``awaiting`` rows
of the Turn are today's hook output byte for byte (key order too), as each side
and the referee read them, and each side's deadline default, held as Order objects,
gives back the very lines ``default_orders`` gives.  The step line names the side
the step belongs to: the Tobruk r33 example at seq 53 is the British movement (the
British won the first-move roll, 5.031), a Mirages Ops Phase is the Initiative
player's (6.2) in mail subjects and on the host's status board."""
from __future__ import annotations

import json
import shutil

import pytest

from conftest import EXAMPLES
from pbem.core import orders as O
from pbem.core.forms import help_lines
from pbem.core.turn import Offer, Turn, Wait, step_line
from pbem.views import REFEREE, state_view, turn_of


@pytest.mark.parametrize("name", EXAMPLES)
def test_adapter_gives_todays_rows_and_defaults_on_every_state(name, played_example):
    """The Turn's typed rows and orders read back as the kernel's rows and default lines, key
    order included, on every state (since every game declares steps, the kernel's ``awaiting``
    is the steps' too: that the rows are those of before the port, the golden reports' WAITING
    FOR sections at every step pin, tests/golden/*/log.json step_reports_sha256)."""
    g = played_example(name).game()
    rules, sc = g.rules, g.scenario
    st = g.new_state()
    sides = sc.side_ids()
    n = waited = 0
    for en in g.iter_entries():                     # one replay, a state after every event
        if en.seq > 0:
            rules.apply(st, en.event, sc)
        st.seq = en.seq
        turn = Turn(rules, sc, st)
        hook = rules.awaiting(st, sc)
        assert json.dumps(turn.rows(REFEREE)) == json.dumps(hook), (name, en.seq)
        assert all(isinstance(w, Wait) for w in turn.waits)
        for side in sides:                          # (the HELP and set-up parts of an offer: not here, CPU)
            seen = rules.awaiting_view(st, sc, [dict(r) for r in hook], side)
            assert json.dumps(turn.rows(side)) == json.dumps(seen), (name, en.seq, side)
            default = turn.default(side)
            assert all(isinstance(o, O.Order) for o in default)
            assert turn.default_lines(side) == rules.default_orders(st, sc, side), (name, en.seq, side)
            waited += any(w.side == side for w in turn.waits_for(side))
        n += 1
    assert n == g.head()[0] + 1 and waited       # every state walked; the game waited for someone


def test_offer_is_typed_and_frozen(played_example):
    g = played_example("el-alamein").game()
    st = g.state(3)
    turn = turn_of(g, st)
    side = turn.sides_waited()[0]
    offer = turn.offer(side)
    assert isinstance(offer, Offer) and offer.side == side and offer.waits and offer.rule
    assert set(offer.verbs) & {"move", "end", "attack"}
    assert offer.help == tuple(help_lines(g.rules, st, g.scenario, side))     # the forms (core/forms.py)
    with pytest.raises(AttributeError):
        offer.waits[0].side = "nobody"             # frozen: a consumer cannot change what the game waits for
    assert turn.offer(side) is offer              # built once per state and side
    with pytest.raises(ValueError, match="does not know: colour"):
        Wait.of({"side": "axis", "kind": "movement", "rule": "8.0", "order": "end", "colour": "red"})


def test_order_line_reads_back_as_the_same_order():
    for line in ("move 8Pz 0612 0712", "move 8Pz 0612 off", "break 7Mot", "end", "no-advance",
                 "advance 8Pz 0710 0811 I2 0710", "retreat 5NZ 1011 1112",
                 "attack 0710 with 8Pz 115 retreat 0811 0912 ar 8Pz 0511 advance 8Pz ex 115",
                 "attack 0710 with 8Pz no-advance", "entropy none", "secret plan go north", "unveil plan",
                 "press well met", "activate 7Armd"):
        o = O.parse_line(line, frozenset({"activate"}))
        assert O.order_line(o) == line
        assert O.parse_line(O.order_line(o), frozenset({"activate"})) == o


def test_tobruk_r33_seq53_is_the_british_movement(played_example):
    """5.031: the British rolled lower and move first (the log: "Movement Segment (5.2);
    British first"); the sequence's side of the phase is German."""
    from pbem.cli_fast import state_text
    from pbem.report import render
    ex = played_example("tobruk-r33")
    g = ex.game()
    st, head = g.state_and_hash(53)
    assert g.scenario.sequence[st.phase].side == "german"
    assert str(g.entries()[53].event.side) == "british"
    view = state_view(g, st, "german", head)
    assert view["phase_side"] == "british"
    assert step_line(g.scenario, view) == "turn 1, British movement"
    assert "British movement phase" in state_text(str(ex.dir), None, 53, False).splitlines()[0]
    text = render.report_text(g, "german", st, g.entries()[:54], 52, head)
    assert "Turn 1 of 10 (05:40 first light), British movement phase" in text
    assert "German movement" not in text
    svg = render.report_svg(g, "german", st, g.entries()[:54], 52, head)     # the map title and its info line
    assert "turn 1, British movement - seq 53" in svg and "German movement" not in svg
    from pbem.referee.replay_page import _label
    assert _label(g, view) == "turn 1, British movement"
    # the alternation goes on: when the Germans' activation comes, the step line names them
    later = next(s for s in range(54, 120) if turn_of(g, g.state(s)).phase_side == "german")
    assert turn_of(g, g.state(later)).line() == "turn 1, German movement"


def test_mirages_subject_and_status_board_name_the_side_waited_for(tmp_path):
    """6.2: the Ops Phase belongs to both sides; the Initiative player (the Commonwealth
    first in Compass) acts, while the scenario's sequence gives the phase to the Axis."""
    from mail_helpers import CLOCK, make_host
    from pbem.engine import Game
    from pbem.host.status import board
    host = make_host(tmp_path / "host")
    g = Game.create(host.cfg.games_dir / "m1", "mirages-compass", {"allied": "oconnor@example.org",
                    "axis": "berti@example.org"}, game_id="m1", at=CLOCK)
    st = g.state()
    assert g.scenario.sequence[st.phase].side == "axis"
    assert turn_of(g, st).sides_waited() == ["allied"]
    subjects = [a.subject for a in host._state_mails(g, {})]
    assert subjects and all(s.endswith(f"turn 1, Commonwealth ops (seq {st.seq})") for s in subjects), subjects
    rows, text = board(host)
    row = next(r for r in rows if r["game"] == "m1")
    assert row["phase"] == "Commonwealth ops" and row["waiting_for"] == ["Commonwealth"]
    assert "Axis ops" not in text
    shutil.rmtree(host.cfg.games_dir / "m1")


def test_staging_step_identity_is_the_turns(played_example):
    from pbem import staging
    g = played_example("el-alamein").game()
    st = g.state(5)
    assert staging.step_of(g, st) == turn_of(g, st).step_id == f"t{st.turn}.p{st.phase}"


def test_step_identity_names_the_interrupt_and_keeps_orders_staged_beneath_it(tmp_path):
    """Staging's step identity is the turn, the phase and the interrupt on top (issue 26): in
    Red Devils an opportunity to fire (5.0) is its own step, "t1.p1.air-landing".  Orders a
    side staged for the phase are neither applied during an interrupt that asks it something
    (the gate would refuse them) nor dropped (the phase resumes): FINAL says so and keeps them."""
    import fuzz_games as F
    from pbem import staging
    from pbem.core.turn import current_step
    for g in F.walk("red-devils", tmp_path / "g"):
        st = g.state()
        step = current_step(g.rules, st, g.scenario)
        if step is not None and step.pending is not None:
            break
    else:
        raise AssertionError("red-devils: no interrupt")
    base = f"t{st.turn}.p{st.phase}"
    now = staging.step_of(g, st)
    assert now == turn_of(g, st).step_id == f"{base}.{step.name.replace(' ', '-')}"
    (asked,) = {w["side"] for w in g.rules.awaiting(st, g.scenario)}
    with staging._locked(g):
        staging._save(g, {asked: {"text": "end\n", "step": base, "turn": st.turn, "phase": st.phase,
                                  "head": g.head()[1], "at": "x"}})
    got, why = staging.final(g, asked, lambda text: pytest.fail("applied during the interrupt"))
    assert (got, why) == (None, staging.UNDER)
    assert staging.staged(g, asked)["text"] == "end\n"         # kept for the phase
    with staging._locked(g):
        staging._save(g, {asked: {**staging.staged(g, asked), "step": "t0.p9"}})
    got, why = staging.final(g, asked, lambda text: pytest.fail("applied for a step left"))
    assert got is None and "dropped" in why and staging.staged(g, asked) is None


def test_only_the_turn_calls_the_step_hooks():
    """Every consumer reads what the game waits for and offers through core/turn.py's Turn
    (issue 26): no module outside pbem/core calls the step hooks itself."""
    import re
    from pathlib import Path
    hooks = re.compile(r"\.(awaiting|awaiting_view|default_orders|phase_side)\(")
    root = Path(__file__).resolve().parent.parent / "pbem"
    found = []
    for path in root.rglob("*.py"):
        rel = path.relative_to(root).as_posix()
        if rel.startswith(("core/", "games/")):          # the kernel's Turn, and games calling their own hooks
            continue
        for n, line in enumerate(path.read_text().splitlines(), 1):
            if hooks.search(line) and not line.lstrip().startswith("#"):
                found.append(f"{rel}:{n}: {line.strip()}")
    assert not found, "\n".join(found)
