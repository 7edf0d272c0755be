"""What the random-order fuzzer (tests/fuzz_games.py, issue 26) found, each on the example
position where it was found: a crash, or a deadline default the game refused."""
from __future__ import annotations

import pytest

import fuzz_games as F
from pbem.core import events as E
from pbem.core import orders as O
from pbem.core.ruleset import Ctx, dispatch
from pbem.core.orders import OrderError, parse_line
from pbem.core.state import copy_state


def _at(example: str, tmp_path, found):
    """The game of ``example`` (played one order line at a time) at the first state ``found(game, st)`` likes."""
    for game in F.walk(example, tmp_path / "game"):
        st = game.state()
        if found(game, st):
            return game, st
    raise AssertionError(f"{example}: no such state")


def _admin(side: str, least: int):
    def found(game, st):
        return any(w["side"] == side and w["kind"] == "admin" and len(w["reinforcements"]) >= least
                   for w in game.rules.awaiting(st, game.scenario))
    return found


def test_mirages_admin_default_enters_reinforcements_without_overstacking(tmp_path):
    """9.4, 13.1.3: Battleaxe's Axis reinforcements all list 1001 first; the default entered
    them all there and was refused as overstacked.  Now it spreads them and is applied whole."""
    from pbem.games.formation.board import overstacked
    game, st = _at("mirages-battleaxe", tmp_path, _admin("axis", 5))
    lines = game.rules.default_orders(st, game.scenario, "axis")
    sub = game.submit("axis", "\n".join(lines), by="deadline")
    assert sub.refused is None, sub.refused
    after = game.state()
    assert not any(u.side == "axis" and u.hex and overstacked(after, game.scenario, u.hex, "axis")
                   for u in after.units.values())
    assert not any(w["side"] == "axis" and w["kind"] == "admin" for w in game.rules.awaiting(after, game.scenario))


def test_mirages_admin_default_does_not_end_a_side_already_done(tmp_path):
    """9.4: a side whose reinforcements are all in is done by itself (the Admin Phase passes to
    the Allies); the default's trailing 'end' was then refused (14.1).  It is left out now."""
    game, st = _at("mirages-brevity", tmp_path, _admin("axis", 2))
    lines = game.rules.default_orders(st, game.scenario, "axis")
    assert lines[-1] != "end"
    sub = game.submit("axis", "\n".join(lines), by="deadline")
    assert sub.refused is None, sub.refused
    assert all(w["side"] != "axis" for w in game.rules.awaiting(game.state(), game.scenario))


def test_mirages_transfer_not_offered_past_the_scenarios_limit(tmp_path):
    """6.2 (16.3: one transfer in a row): with the one transfer already made to the Axis, the
    Allied Initiative player must act; 'transfer' was still offered, and was the default."""
    game, st = _at("mirages-skorpion", tmp_path,
                   lambda g, s: s.fm.step == "ops-choose" and s.fm.initiative == "allied" and not s.fm.by_transfer)
    st = copy_state(st)
    st.fm.transfer_side, st.fm.transfers = "axis", 1
    sc, rules = game.scenario, game.rules
    (item,) = rules.awaiting(st, sc)
    assert "transfer" not in item["order"]
    lines = rules.default_orders(st, sc, "allied")
    assert lines == [f"activate {item['formations'][0]}"]

    class Dice:
        def roll(self, sides):
            return 1

        def salt(self):
            return "0" * 32

    def run(text):
        ctx = Ctx(rules, copy_state(st), sc, "allied", Dice())
        dispatch(rules, ctx, parse_line(text, rules.verbs))
        return ctx.events
    with pytest.raises(OrderError) as e:
        run("transfer")
    assert e.value.rule == "6.2"
    assert run(lines[0])


def test_check_reads_the_notes_it_sealed_itself(tmp_path):
    """9.5: the Belgian set-up default seals both dummy cupolas, then ends; a check read the
    notes as they were before it, so it refused the 'end' that submit accepts."""
    game, st = _at("eben-emael-12-1", tmp_path, lambda g, s: bool(g.rules.default_orders(s, g.scenario, "belgian")))
    lines = game.rules.default_orders(st, game.scenario, "belgian")
    assert lines[-1] == "end" and sum(x.startswith("secret dummy-") for x in lines) == 2
    sub = game.check("belgian", "\n".join(lines))
    assert sub.refused is None, sub.refused
    assert [a.text for a in sub.applied] == lines[:2]       # 'end' is checked too: it stops at a roll or a reveal
    assert "end" in (sub.needs_dice + sub.needs_reveal)


def test_tobruk_setup_default_makes_the_crewless_weapon_the_dummy(tmp_path):
    """9.12, 32.24: in the Salient set-up the British have three crews for four weapons; the
    default noted no crew for the fourth, so its 'pass' was refused (5.01).  The weapon no crew
    is left for becomes the dummy counter the scenario allows."""
    game, st = _at("tobruk-salient", tmp_path,
                   lambda g, s: any(x.startswith("note crew") for x in g.rules.default_orders(s, g.scenario, "british")))
    lines = game.rules.default_orders(st, game.scenario, "british")
    dummies = [x.split()[-1] for x in lines if x.startswith("note dummy ")]
    assert dummies
    sub = game.submit("british", "\n".join(lines), by="deadline")
    assert sub.refused is None, sub.refused
    assert all(game.state().pieces[w].dummy for w in dummies)


def test_tobruk_grenade_from_off_the_map_or_at_no_hex_is_refused(tmp_path):
    """22.121, 22.122: a grenade thrown by a unit not on the map (a crew carried or hidden) or at
    a word that is no hex raised ValueError inside the engine; both are refusals now."""
    (where,) = F.positions("tobruk-salient", [46], tmp_path).values()
    from pbem.engine import Game
    from pbem.games.advanced_tobruk import data
    game = Game(where)
    st = game.state()
    side = "british"
    off = next(u.id for u in st.units.values() if u.side == side and not u.hex and not u.eliminated
               and data.is_personnel(game.scenario, u.id))
    on = next(u.id for u in st.units.values() if u.side == side and u.hex and not u.eliminated
              and data.is_personnel(game.scenario, u.id))
    head = game.head()
    for text, rule in ((f"grenade {off} at {st.units[on].hex}", "22.121"), (f"grenade {on} at nowhere", "22.122")):
        sub = game.submit(side, text)
        assert sub.refused is not None and sub.refused.rule == rule, (text, sub.refused)
    assert game.head() == head


def test_tobruk_setup_default_gives_a_hidden_crew_to_the_weapon_not_placed_yet(tmp_path):
    """9.12, 32.22: with Cr2 already hidden in 0805 and H1 the dummy, the default paired crews
    only with weapons in the same hex or with crews not placed, so H3 got none and 'pass' was
    refused (5.01).  A weapon not placed yet takes any free crew, and hides where it is."""
    (where,) = F.positions("tobruk-salient", [0], tmp_path).values()
    from pbem.engine import Game
    game = Game(where)
    assert game.submit("british", "note hide Cr2 0805\nnote dummy H1").refused is None
    st = game.state()
    lines = game.rules.default_orders(st, game.scenario, "british")
    assert "note crew H3 Cr2" in lines
    sub = game.submit("british", "\n".join(lines), by="deadline")
    assert sub.refused is None, sub.refused
    assert game.state().pieces["H3"].holder == "Cr2"


# --- a default built by the host with the side's own sealed notes (9.5) ---------------------------

def _one_dummy_sealed(path, hexes=("0611",)):
    """Eben Emael 12-1 at the Belgian set-up with dummy-1 (and more) sealed on ``hexes``."""
    from pbem.engine import Game
    game = Game.create(path, "eben-emael-12-1", seed_hex="00" * 32, game_id="ee", at=F.CLOCK)
    for i, h in enumerate(hexes, 1):
        assert game.submit("belgian", f"secret dummy-{i} {h}").refused is None
    return game


def test_eben_emael_default_puts_the_other_dummy_on_another_cupola(tmp_path):
    """9.5 (fuzz_games.py --start 0 --seeds 50-75): the Belgian sealed dummy-1 on 0611, the
    lowest-numbered cupola that may be a dummy, and missed the deadline.  The default saw only
    that dummy-1 was sealed, not where, and sealed dummy-2 on 0611 too: refused ('0611 is
    already a dummy'), so the game waited for ever.  The host builds the default with the
    Belgian's own sealed notes; dummy-2 goes on the next cupola and the set-up ends."""
    from pbem.core.turn import Turn
    game = _one_dummy_sealed(tmp_path / "g")
    st, sc, rules = game.state(), game.scenario, game.rules
    blind = Turn(rules, sc, st).default_lines("belgian")        # without the host's records
    assert blind == ["secret dummy-2 0611", "end"]               # what was applied before
    lines = Turn(rules, sc, st, sealed=game.secret_records()).default_lines("belgian")
    assert lines == ["secret dummy-2 0715", "end"]
    assert game.check("belgian", "\n".join(lines)).refused is None
    sub = game.submit("belgian", "\n".join(lines), by="deadline")
    assert sub.refused is None, sub.refused
    assert sorted(rec.payload for k, rec in game.secret_records().items() if k.startswith("belgian:dummy-")) \
        == ["0611", "0715"]
    assert [w["side"] for w in rules.awaiting(game.state(), sc)] == ["german"]     # the German set-up (12.2)


def test_the_host_applies_that_default_at_the_belgian_deadline(tmp_path):
    """The same through the host: its deadline applies 'secret dummy-2 0715' and 'end', where
    it applied 'secret dummy-2 0611', was refused and logged that the default could not be applied."""
    from datetime import timedelta
    from mail_helpers import game_store, make_host, reopen
    from pbem.host import parse_time
    now = [parse_time(F.CLOCK)]
    host = make_host(tmp_path / "h", period="24h", reminder="off", now=lambda: now[0])
    from pbem.engine import Game
    game = Game.create(game_store(host, "ee"), "eben-emael-12-1",
                       {"belgian": "b@club.example", "german": "g@club.example"}, seed_hex="00" * 32,
                       game_id="ee", at=F.CLOCK)
    host.welcome(game)
    assert reopen(game).submit("belgian", "secret dummy-1 0611").refused is None
    host.poll()
    now[0] += timedelta(hours=25)
    host.poll()
    given = [(e.text, e.by) for e in (en.event for en in reopen(game).entries()) if isinstance(e, E.OrderGiven)]
    assert given == [("secret dummy-1 0611", ""), ("secret dummy-2 0715", "deadline"), ("end", "deadline")]
    g = reopen(game)
    assert [w["side"] for w in g.rules.awaiting(g.state(), g.scenario)] == ["german"]


def test_a_default_reads_only_its_own_sides_sealed_notes(tmp_path, monkeypatch):
    """The host hands a step's default the notes of the side it is for, never another side's
    (nor the referee's): at the Belgian set-up the Belgian default gets the Belgian dummies and
    not the German's note; in the German fire phase after it (12.1 has no German set-up) the
    German default gets the German's note and never a Belgian dummy."""
    from pbem.core.turn import Turn
    from pbem.games.eben_emael import rules as R
    game = _one_dummy_sealed(tmp_path / "g")
    assert game.submit("german", "secret plan north first").refused is None
    umpire = E.SecretRecorded(side="referee", name="umpire", commitment="x", salt="s", payload="0715")
    sealed = dict(game.secret_records(), **{"referee:umpire": umpire})
    assert {k.split(":")[0] for k in sealed} == {"belgian", "german", "referee"}
    seen: list[tuple[str, str, object]] = []

    def spying(step):
        real, reads = step.default, step.notes

        def spy(st, sc, side, notes):
            seen.append((step.name, side, notes))
            if real is None:
                return [O.End()]
            return real(st, sc, side, notes) if reads else real(st, sc, side)
        return spy
    for step in R.STEPS.values():                   # every step's default reads notes now
        monkeypatch.setattr(step, "default", spying(step))
        monkeypatch.setattr(step, "notes", True)
    st, sc, rules = game.state(), game.scenario, game.rules
    turn = Turn(rules, sc, st, sealed=sealed)
    assert turn.default_lines("belgian") == ["secret dummy-2 0715", "end"]
    assert turn.default_lines("german") == []       # not awaited: its default is not even asked
    assert seen == [("setup-belgian", "belgian", {"dummy-1": "0611"})]
    assert game.submit("belgian", "secret dummy-2 0715\nend").refused is None
    st = game.state()
    sealed = dict(game.secret_records(), **{"referee:umpire": umpire})
    assert Turn(rules, sc, st, sealed=sealed).default_lines("german") == ["end"]
    assert seen[1:] == [("fire", "german", {"plan": "north first"})]
    assert Turn(rules, sc, st, sealed=sealed).notes("belgian") == {"dummy-1": "0611", "dummy-2": "0715"}
    assert Turn(rules, sc, st).notes("german") is None           # no records given: none read
