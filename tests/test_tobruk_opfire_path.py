"""Advanced Tobruk opportunity fire by email, ruleset 3 (6.6): a move pauses once,
at the first hex where a unit on ``ask`` may fire; the whole path ahead is shown
and the other side answers once for it - ``fire UNIT[+UNIT...] [at HEX]`` lines
(a shot each, taken as the mover leaves that hex or ends its move there, 6.64),
or ``pass``.  A shot that stops the mover (11.41) ends the move in that hex."""
from __future__ import annotations

from pbem.games.advanced_tobruk import events as E

from conftest import one, only
from test_tobruk_opfire import to_movement
from tobruk_kit import U, make


def two_posts(tmp_path, dice, extra=(), british=()):
    """A1 and A2 (Australian squads, range 4) in post 0705; G1 assaults up column 07 from 0710."""
    units = [U("A1", "british", "aus-squad", "0705"), U("A2", "british", "aus-squad", "0705"),
             U("G1", "german", "ger-squad", "0710"), *extra]
    t = make(tmp_path, units, dice=(2, 1, 2, 1) + tuple(dice) + (2, 1) * 6, setup=False)
    to_movement(t, british)
    return t


def kinds(evs):
    return [type(e).__name__ for e in evs]


def test_6_6_a_three_hex_move_pauses_once_and_shows_its_whole_path(tmp_path, fixed_clock):
    t = two_posts(tmp_path, dice=(10,))
    evs = t.ok("german", "assault G1 0709 0708 0707")
    p = one(evs, E.MovePaused)
    assert (p.hex, p.firers, p.remaining) == ("0709", ["A1", "A2"], ["0708", "0707"])
    told = t.awaiting()[0]["order"]
    assert "fire UNIT[+UNIT...] [at HEX]" in told and "the path ahead: 0708 0707" in told
    text = t.game.rules.describe_event(p, t.game.scenario)
    assert "the path ahead: 0708 0707" in text and "one answer for the whole path" in text
    evs = t.ok("british", "fire A1+A2 at 0707")             # one line, one mail: the whole move
    assert kinds(evs).count("Stepped") == 2 and not only(evs, E.MovePaused)
    a = one(evs, E.CasualtyAttack)
    assert (a.firers, a.hex, a.by) == (["A1", "A2"], "0707", "answer")
    assert kinds(evs).index("CasualtyAttack") > kinds(evs).index("Stepped")    # taken in 0707, not before
    assert t.hex_of("G1") == "0707" and t.state().pending is None


def test_6_6_shots_at_chosen_hexes_of_the_path_in_several_lines(tmp_path, fixed_clock):
    t = two_posts(tmp_path, dice=(10, 10))
    t.ok("german", "assault G1 0709 0708 0707")
    evs = t.ok("british", "fire A1 at 0708")                # A2 not named yet: the answer goes on
    assert kinds(evs) == ["OpportunityPlanned"] and t.state().pending.hex == "0709"
    assert "planned so far: A1 at 0708" in t.awaiting()[0]["order"]
    rules, sc = t.game.rules, t.game.scenario
    seen = rules.redact(evs[0], "german")                   # the mover learns of the shots when they come
    assert (seen.firers, seen.hex) == ([], "") and "plans opportunity fire at the mover" in \
        rules.describe_event(seen, sc)
    assert "A1" in rules.describe_event(rules.redact(evs[0], "british"), sc)
    from pbem.core.events import OrderGiven
    line = [en.event for en in t.game.entries() if isinstance(en.event, OrderGiven)][-1]
    assert line.text == "fire A1 at 0708" and rules.redact(line, "british").text == line.text
    assert rules.redact(line, "german").text == "fire (each shot shows as it comes)"   # nor its order line (HISTORY)
    evs = t.ok("british", "fire A2 at 0707")                # every unit asked named: the move goes on
    shots = [(a.firers, a.hex) for a in only(evs, E.CasualtyAttack)]
    assert shots == [(["A1"], "0708"), (["A2"], "0707")]
    k = kinds(evs)                                          # each as the mover leaves (or ends in) its hex
    assert k == ["Stepped", "CasualtyAttack", "Stepped", "CasualtyAttack", "MoveEnded", "Acted"] + k[6:]
    st = t.state()
    assert st.pieces["A1"].fired and st.pieces["A2"].fired and t.hex_of("G1") == "0707"


def test_6_64_a_shot_ahead_is_limited_by_the_mp_spent_in_its_hex(tmp_path, fixed_clock, monkeypatch):
    from pbem.games.advanced_tobruk.turn import opportunity
    seen = []
    real = opportunity.opportunity_fire
    monkeypatch.setattr(opportunity, "opportunity_fire",
                        lambda ctx, f, tg, limit, by: (seen.append((f, ctx.state.units[tg].hex, limit)),
                                                       real(ctx, f, tg, limit, by))[1])
    t = two_posts(tmp_path, dice=(10, 10))
    t.ok("german", "assault G1 0709 0708 0707")
    t.ok("british", "fire A1 at 0708")
    t.ok("british", "fire A2 at 0707")
    assert seen == [(["A1"], "0708", 1), (["A2"], "0707", 0)]     # 1 MP in 0708; 0707 ends the move


def test_11_41_a_shot_that_pins_the_mover_ends_the_move_in_that_hex(tmp_path, fixed_clock):
    # dice: A1's attack in 0708 (1), G1's morale check (2): pinned down, the rest of the path not entered
    t = two_posts(tmp_path, dice=(1, 2))
    t.ok("german", "assault G1 0709 0708 0707")
    t.ok("british", "fire A1 at 0708")
    evs = t.ok("british", "fire A2 at 0707")
    assert [a.hex for a in only(evs, E.CasualtyAttack)] == ["0708"]     # A2's shot in 0707 never comes
    assert one(evs, E.MoveEnded).pinned and t.hex_of("G1") == "0708"
    st = t.state()
    assert st.pieces["G1"].pinned and not st.pieces["A2"].fired        # A2 may still fire later (6.65)
    assert not [e for e in evs if isinstance(e, E.Stepped) and e.hex == "0707"]


def test_6_6_pass_answers_the_whole_path(tmp_path, fixed_clock):
    t = two_posts(tmp_path, dice=())
    t.ok("german", "assault G1 0709 0708 0707")
    evs = t.ok("british", "pass")
    p = one(evs, E.OpportunityPassed)
    assert (p.firers, p.hex, p.by) == (["A1", "A2"], "0709", "answer")
    assert not only(evs, E.MovePaused) and not only(evs, E.CasualtyAttack) and t.hex_of("G1") == "0707"
    assert t.awaiting()[0]["kind"] == "movement"


def test_6_6_pass_after_planned_lines_takes_the_shots_planned(tmp_path, fixed_clock):
    t = two_posts(tmp_path, dice=(10,))
    t.ok("german", "assault G1 0709 0708 0707")
    t.ok("british", "fire A2 at 0708")
    evs = t.ok("british", "pass")                           # A1 holds; A2's planned shot is taken
    assert [(a.firers, a.hex) for a in only(evs, E.CasualtyAttack)] == [(["A2"], "0708")]
    assert one(evs, E.OpportunityPassed).firers == ["A1"]


def test_6_6_answer_refusals_name_the_path(tmp_path, fixed_clock):
    t = two_posts(tmp_path, dice=())
    t.ok("german", "assault G1 0709 0708 0707")
    before = t.log_bytes()
    t.refuse("british", "fire A1 at 0606", rule="6.6", match="not on the path of G1: 0709 (where it stands), then 0708 0707")
    t.refuse("british", "fire A1 at 0708 now", rule="6.6", match="a hex of the path")
    t.refuse("german", "pass", rule="6.6", match="not your turn: the game waits for British (opportunity-fire")
    assert t.log_bytes() == before
    t.ok("british", "fire A1 at G1")                        # the mover's name: where it stands
    assert t.state().pending.shots[0].hex == "0709"
    t.refuse("british", "fire A1 at 0707", rule="6.62", match="already fires in 0709")


def test_6_6_standing_orders_still_fire_at_every_hex_and_the_ask_unit_pauses_once(tmp_path, fixed_clock):
    # A1 fires by its standing order in 0709 (no effect, 10); A2, on ask, pauses the move once
    t = two_posts(tmp_path, dice=(10, 10), british=["standing A1 any"])
    evs = t.ok("german", "assault G1 0709 0708 0707")
    a = one(evs, E.CasualtyAttack)
    assert (a.firers, a.hex, a.by) == (["A1"], "0709", "standing order")
    assert one(evs, E.MovePaused).firers == ["A2"]
    evs = t.ok("british", "fire A2 at 0708")
    assert [(x.firers, x.hex, x.by) for x in only(evs, E.CasualtyAttack)] == [(["A2"], "0708", "answer")]
    assert t.hex_of("G1") == "0707" and not only(evs, E.MovePaused)


def test_6_6_hold_and_any_cost_no_mail_ask_costs_one_answer_a_move(tmp_path, fixed_clock):
    """The mail count: the defender's submissions for a three-hex move are one with ask (ruleset 2
    needed one a hex: three), none with hold."""
    t = two_posts(tmp_path, dice=())
    evs = t.ok("german", "assault G1 0709 0708 0707")
    answers = 0
    while t.state().pending is not None:
        t.ok("british", "pass")
        answers += 1
    assert answers == 1 and len(only(evs, E.MovePaused)) == 1 and t.hex_of("G1") == "0707"
    (tmp_path / "h").mkdir()
    t2 = two_posts(tmp_path / "h", dice=(), british=["standing hold"])
    evs = t2.ok("german", "assault G1 0709 0708 0707")
    assert t2.state().pending is None and t2.hex_of("G1") == "0707"
    (tmp_path / "a").mkdir()                     # any: the rules fire for the unit, no pause either
    t3 = two_posts(tmp_path / "a", dice=(10,) * 8, british=["standing any"])
    evs = t3.ok("german", "assault G1 0709 0708 0707")
    assert only(evs, E.CasualtyAttack) and not only(evs, E.MovePaused) and t3.state().pending is None


def test_6_6_a_hex_ahead_is_answered_only_for_units_on_ask(tmp_path, fixed_clock):
    # A2 holds its fire by a standing order; only A1 (ask) pauses the move: A2 may not be named ahead
    t = two_posts(tmp_path, dice=(), british=["standing A2 hold"])
    t.ok("german", "assault G1 0709 0708 0707")
    t.refuse("british", "fire A2 at 0708", rule="6.6", match="A2 fires by its standing order, not by an answer")
    t.ok("british", "fire A1 at 0707")


def test_6_532_a_pivot_in_place_is_answered_once_too(tmp_path, fixed_clock):
    t = two_posts(tmp_path, dice=(2, 1) * 2,
                  extra=[U("Tk1", "british", "a13", "0504", facing="SSE"),
                         U("P1", "german", "pz3g", "0709", facing="NNE")],
                  british=["standing hold", "standing Tk1 ask"])
    p = one(t.ok("german", "pivot P1 E"), E.MovePaused)
    assert (p.hex, p.firers, p.remaining) == ("0709", ["Tk1"], [])
    evs = t.ok("british", "pass")
    assert one(evs, E.MoveEnded).units == ["P1"] and t.state().pending is None


def test_the_r33_example_by_mail_needs_fewer_mails_and_one_answer_a_pause(tmp_path, monkeypatch):
    """`pbem mail demo examples/tobruk-r33`: 39 mails in, 123 out (ruleset 2: 79 and 243; ruleset 3
    without orders ahead: 70 and 216); each of its paused moves took one answer, the first a shot at
    a hex ahead (`fire A2 at 0806`)."""
    import re
    from pathlib import Path
    from pbem.engine import Game
    from pbem.host.mailplay import demo
    monkeypatch.setenv("PBEM_CLOCK", "2026-05-01T09:00:00Z")
    monkeypatch.delenv("PBEM_HOST", raising=False)
    ex = Path(__file__).resolve().parent.parent / "examples" / "tobruk-r33"
    summary = demo(ex, tmp_path / "m", echo=lambda s: None, maps=False)
    n_in, n_out = map(int, re.search(r"in (\d+) mails in, (\d+) mails out", summary).groups())
    assert n_in <= 79 // 2 and n_out <= 123 and n_in < 70 and n_out < 216     # THEN: mail.toml's ahead groups
    g = Game(tmp_path / "m" / "games" / "tobruk-r33-example")
    evs = [e.event for e in g.entries()]
    paused = [i for i, e in enumerate(evs) if isinstance(e, E.MovePaused)]
    assert len(paused) == 2
    for i in paused:                                        # the next order is the answer, and the last one
        nxt = [e for e in evs[i + 1:] if type(e).__name__ in ("OrderGiven", "MovePaused", "MoveEnded")]
        assert type(nxt[0]).__name__ == "OrderGiven" and nxt[0].side == "british"
        assert type(nxt[1]).__name__ == "MoveEnded"
    assert any(type(e).__name__ == "OrderGiven" and e.text == "fire A2 at 0806" for e in evs)
