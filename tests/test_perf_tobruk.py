"""Advanced Tobruk's shortcuts of issue 29 (replay and verify speed) give what the plain code
gives (correctness only: the figures come from tests/benchmark.py --only games).

- ``data.utype`` / ``data.cls`` read a table made once per scenario (unit id -> its type),
  and ``indirect.enabled`` (the scenario's alone) is found once per scenario;
- intimidation (11.61), asked after every activation, is skipped for a position already
  found calm (``morale.intimidated_cached``: keyed by what ``altered`` reads), and for a unit
  that every modifier below zero that could apply leaves at zero or more (``_against``);
- ``sequence.can_act`` in a fire phase first asks whether any unit of the side could still
  fire at all (``_may_still_fire``) before it looks for a target, and stops at the first
  firer found (``eligible_firers(..., stop=)``);
- final fire by standing order (6.65) reads each target's eligible firers once until a shot, and
  opportunity fire at a mover's step (6.62) reads them again only after a shot was tried (both
  checked by the examples' golden logs, tests/test_golden.py: the same events as before);
- the hexes of the line between two hexes (``data.line_between``, for fire's and spotting's
  lines of sight: the grid's alone) are kept per scenario;
- the fog of war's flips (``fow.update``, 32.12, 32.22) are skipped for a position already
  found with nothing to be seen (``fow.sight_position``);
- the game has no ``apply`` of its own (replay inlines the core's step and the game's reducer,
  tests/test_perf_reducers.py);
- ``sequence.can_act`` in a fire phase asks first the target and firer it found the last time
  (``eligible_firers(..., only=)``), whatever they are now the plain search's answer;
- ``relief.in_use`` (a deir or wadi on the map, 33) is found once per scenario;
- ``eligible_firers`` finds the sides in the target's hex in its own loop and asks whether a
  side spotted the target (32.251) once a firer of it needs the answer; ``los_drm`` looks at
  no unit when no hex lies between; ``terms.wiped_side`` (asked after every order) is one pass;
- ``_gunfire_at_afv`` (5.131, 14.22) asks no line of sight of a unit that brings no gunfire, and
  ``any_usable`` (``bool(usable_weapons(...))``) stops at the first weapon that may fire;
- the steps give the gate their sides without their rows (``Step.sides``); ``_may_fire`` places a
  hidden firer in its noted hex itself (``hidden.placed`` written out).
Every state is that after each event of every Tobruk example.
"""
from __future__ import annotations

import pytest

from conftest import EXAMPLES
from pbem.core.ruleset import Ruleset
from pbem.games.advanced_tobruk import data
from pbem.games.advanced_tobruk.artillery import artillery, indirect, mortar
from pbem.games.advanced_tobruk.fire import morale
from pbem.games.advanced_tobruk.fire.eligible import eligible_firers
from pbem.games.advanced_tobruk.fire_events import MoraleChecked
from pbem.games.advanced_tobruk.fog import fow, hidden
from pbem.games.advanced_tobruk.turn import sequence
from pbem.games.advanced_tobruk.turn.standing import asks
from pbem.games.advanced_tobruk.rules import AdvancedTobruk

TOBRUK = [n for n in EXAMPLES if n.startswith("tobruk")]


def _states(g):
    """(event, state after it) for every event of the game's log."""
    st = g.state(0)
    for en in g.entries()[1:]:
        g.rules.apply(st, en.event, g.scenario)
        yield en, st


@pytest.mark.parametrize("name", TOBRUK)
def test_unit_types_and_indirect_fire_read_once_per_scenario_are_the_scenarios(played_example, name):
    sc = played_example(name).game().scenario
    for u in sc.units:
        plain = data.types(sc).get(sc.unit_defs[u.id].type, {})
        assert data.utype(sc, u.id) is plain and data.cls(sc, u.id) == plain.get("cls", "")
    with pytest.raises(KeyError):
        data.utype(sc, "no-such-unit")
    plain = bool(artillery.ssr(sc)) or any(mortar.capable(sc, u.id) for u in sc.units)
    assert indirect.enabled(sc) is plain and indirect.enabled(sc) is plain


def plain_intimidated(st, sc) -> list:
    """morale.intimidated as it was before issue 29: every personnel unit's altered morale."""
    out = []
    for uid in sorted(st.units):
        u, p = st.units[uid], st.pieces.get(uid)
        if p is None or u.eliminated or u.hex is None or not data.is_personnel(sc, uid) or p.surrendered:
            continue
        base, alt, mods = morale.altered(st, sc, uid)
        if alt < 0:
            out.append(MoraleChecked(unit=uid, why="intimidation", morale=base, altered=alt, result="surrendered",
                                     mods=mods, rule="11.61"))
    return out


@pytest.mark.parametrize("name", TOBRUK)
def test_lines_kept_per_scenario_are_the_maps(played_example, name):
    sc = played_example(name).game().scenario
    hexes = sorted(sc.board.terrain)[::7]
    for a in hexes[:30]:
        for b in hexes[::5]:
            plain = [h for h in sc.board.grid.line(a, b) if h not in (a, b)]
            assert data.line_between(sc, a, b) == set(plain) and len(plain) == len(set(plain))
            assert data.line_between(sc, a, b) is data.line_between(sc, a, b)


@pytest.mark.parametrize("name", TOBRUK)
def test_intimidation_skipped_for_a_calm_position_gives_what_the_check_gives(played_example, name):
    g = played_example(name).game()
    sc = g.scenario
    sc.__dict__.pop("_tobruk_calm", None)
    hits = checked = 0
    for _, st in _states(g):
        plain = plain_intimidated(st, sc)
        assert morale.intimidated(st, sc) == plain
        key_known = morale._morale_position(st) in sc.__dict__.get("_tobruk_calm", ())
        assert morale.intimidated_cached(st, sc) == plain
        assert morale.intimidated_cached(st, sc) == plain          # the second time from the cache
        hits += key_known
        checked += 1
    assert checked > 200 and hits > checked // 4


@pytest.mark.parametrize("name", TOBRUK)
def test_intimidation_near_its_edge_is_the_plain_check(played_example, name):
    # every personnel unit's overrun reduction (21.12) from 0 to 8, every enemy unit moved into its hex: the
    # units that must surrender (11.61) are those the plain check finds, below and above the edge
    g = played_example(name).game()
    st, sc = g.state(), g.scenario
    found = 0
    for uid in [u for u in st.units if data.is_personnel(sc, u) and st.units[u].hex and not st.units[u].eliminated]:
        for foe in [f for f, x in st.units.items() if x.side != st.units[uid].side and x.hex]:
            st.units[foe].hex = st.units[uid].hex
        for ov in range(9):
            st.pieces[uid].overrun = ov
            plain = plain_intimidated(st, sc)
            assert morale.intimidated(st, sc) == plain, (uid, ov)
            found += bool(plain)
        st.pieces[uid].overrun = 0
    assert found


def test_a_position_that_changes_a_units_morale_is_another_position(played_example):
    g = played_example("tobruk-r33").game()
    st, sc = g.state(), g.scenario
    key = morale._morale_position(st)
    uid = next(u for u in st.units if data.is_personnel(sc, u))
    st.pieces[uid].steps += 1
    assert morale._morale_position(st) != key
    st.pieces[uid].steps -= 1
    st.pieces[uid].overrun_by = [*st.pieces[uid].overrun_by, "x"]
    assert morale._morale_position(st) != key


def plain_can_fire(st, sc, side: str, name: str, fresh: bool = False) -> bool:
    """sequence.can_act in a fire phase as it was before issue 29: every target's whole list of
    eligible firers, no first test of the side's units, no early stop."""
    acted = () if fresh else st.step.acted
    if hidden.waits(st, sc, side):
        return True
    targets = [u.id for u in st.units.values() if u.side != side and u.hex is not None and not u.eliminated
               and (name == "direct-fire" or st.pieces[u.id].moved)]
    return any(any(st.units[f].side == side and f not in acted and (name == "direct-fire" or asks(st, side, f))
                   for f in eligible_firers(st, sc, t, name)) for t in targets)


@pytest.mark.parametrize("name", TOBRUK)
def test_can_act_in_a_fire_phase_is_the_plain_search_for_a_firer(played_example, name):
    g = played_example(name).game()
    sc = g.scenario
    answers = []
    for _, st in _states(g):
        for side in sc.side_ids():
            for phase in ("direct-fire", "final-fire"):
                for fresh in (False, True):
                    got = sequence.can_act(st, sc, side, phase, fresh=fresh)
                    assert got == plain_can_fire(st, sc, side, phase, fresh), (side, phase, fresh)
                    answers.append(got)
                    if phase == "final-fire" and got:
                        t = next(u for u in st.units if st.units[u].side != side)
                        full = eligible_firers(st, sc, t, "direct-fire")
                        first = eligible_firers(st, sc, t, "direct-fire", stop=lambda f: True)
                        assert first == full[:1] == [] or (len(first) == 1 and first[0] in full)
    assert any(answers) and not all(answers)


@pytest.mark.parametrize("name", TOBRUK)
def test_can_act_with_any_firer_found_before_is_the_plain_search(played_example, name):
    # the target and firer can_act found the last time are asked first: whatever they are (stale,
    # eliminated, of the other side, not a firer), the answer is the plain search's
    g = played_example(name).game()
    sc = g.scenario
    hints = sc.__dict__.setdefault("_tobruk_fire_hint", {})
    tried = 0
    for i, (_, st) in enumerate(_states(g)):
        ids = sorted(st.units)
        for side in sc.side_ids():
            mine = [u for u in ids if st.units[u].side == side]
            theirs = [u for u in ids if st.units[u].side != side]
            for phase in ("direct-fire", "final-fire"):
                plain = plain_can_fire(st, sc, side, phase)
                for hint in ((theirs[i % len(theirs)], mine[i % len(mine)]), (mine[0], theirs[0]),
                             (theirs[-1], mine[-1]), ("no-such-unit", mine[0])):
                    hints[side, phase] = hint
                    assert sequence.can_act(st, sc, side, phase) == plain, (side, phase, hint)
                    tried += 1
    assert tried > 1000


def plain_eligible_firers(st, sc, target: str, phase: str) -> list[str]:
    """eligible_firers (without ``stop``) as it was before issue 29's last round: the sides with
    personnel in the target's hex from casualty.personnel_in, the spotting asked before the loop."""
    from pbem.games.advanced_tobruk.board import spotting
    from pbem.games.advanced_tobruk.fire import casualty
    from pbem.games.advanced_tobruk.fire.eligible import _gunfire_at_afv, _may_fire, desperation_firers
    tu = st.units.get(target)
    if tu is None or tu.eliminated or tu.hex is None:
        return []
    if phase == "desperation":
        return desperation_firers(st, sc, target)
    tp = st.pieces[target]
    if tp.surrendered or tp.wreck or phase == "final-fire" and not tp.moved:
        return []
    thex = tu.hex
    out, gunners = [], []
    own_in_hex = {st.units[u].side for u in casualty.personnel_in(st, sc, thex)}
    limited = spotting.active(sc)
    seen = {s: spotting.spotted(st, sc, s, target) for s in sc.side_ids() if s != tu.side} if limited else {}
    at_afv = phase == "direct-fire" and data.is_afv(sc, target)
    for f in sorted(st.units):
        u = st.units[f]
        if u.side == tu.side or u.eliminated or u.hex is None and not (limited and hidden.is_hidden(st, f)):
            continue
        p = st.pieces.get(f)
        if p is None or p.fired or p.bailed or p.wreck or phase != "direct-fire" and p.moved or p.dummy \
                or limited and not seen[u.side]:
            continue
        if _may_fire(st, sc, f, target, thex, phase, own_in_hex):
            out.append(f)
        elif at_afv:
            gunners.append(f)
    if gunners:
        out = sorted(out + _gunfire_at_afv(st, sc, target, gunners, own_in_hex))
    return out


@pytest.mark.parametrize("name", TOBRUK)
def test_eligible_firers_are_the_plain_lists(played_example, name):
    # the sides in the target's hex found in the loop, the spotting asked once a firer needs it
    g = played_example(name).game()
    sc = g.scenario
    found = 0
    for i, (_, st) in enumerate(_states(g)):
        ids = sorted(st.units)
        for t in ids[i % 5::5]:
            for phase in ("direct-fire", "final-fire", "movement", "desperation"):
                want = plain_eligible_firers(st, sc, t, phase)
                assert eligible_firers(st, sc, t, phase) == want, (t, phase)
                found += bool(want)
    assert found > 100


@pytest.mark.parametrize("name", TOBRUK)
def test_a_wiped_out_side_is_the_plain_search(played_example, name):
    from pbem.games.advanced_tobruk.turn.terms import wiped_side

    def plain(st, sc) -> str:
        for s in sc.side_ids():
            if not any(u.side == s and not u.eliminated and not u.gone and not st.pieces[u.id].surrendered
                       and not data.is_weapon(sc, u.id) for u in st.units.values()):
                return s
        return ""
    g = played_example(name).game()
    sc = g.scenario
    for _, st in _states(g):
        assert wiped_side(st, sc) == plain(st, sc) == ""
    st = g.state()
    for s in reversed(sc.side_ids()):                   # each side's units gone in turn: that side, the first
        for u in st.units.values():
            if u.side == s:
                u.eliminated = True
        assert wiped_side(st, sc) == plain(st, sc) == s


def test_los_drm_is_the_plain_count(played_example):
    from pbem.core.orders import OrderError
    from pbem.games.advanced_tobruk.board import ground
    from pbem.games.advanced_tobruk.fire import fire_ap

    def plain(st, sc, a, b):
        between = data.line_between(sc, a, b)
        burning = wrecks = vehicles = 0
        for u in st.units.values():
            p = st.pieces.get(u.id)
            if p is None or u.hex not in between:
                continue
            if p.wreck == "burning":
                burning += 1
            elif p.wreck and not (ground.is_deir(sc, u.hex) and min(ground.level(sc, a), ground.level(sc, b)) >= 0):
                wrecks += 1
            elif not u.eliminated and data.is_vehicle(sc, u.id):
                vehicles += 1
        return burning, wrecks, vehicles

    for name in TOBRUK:
        g = played_example(name).game()
        sc = g.scenario
        for st in [g.state(g.head()[0] * k // 4) for k in range(1, 5)]:
            hexes = sorted({u.hex for u in st.units.values() if u.hex})
            for a in hexes:
                for b in hexes:
                    burning, wrecks, vehicles = plain(st, sc, a, b)
                    try:
                        got = fire_ap.los_drm(st, sc, a, b)[0]
                    except OrderError:
                        assert burning >= 2 or burning + len(fire_ap._smoke_hexes(st, sc, a, b)) >= 2
                        continue
                    assert got == 4 * burning + wrecks + vehicles


def plain_gunfire_at_afv(st, sc, target, units, own_in_hex):
    """eligible._gunfire_at_afv before issue 29's last round: every unit's line looked at."""
    from pbem.core.orders import OrderError
    from pbem.games.advanced_tobruk.board import facing, relief
    from pbem.games.advanced_tobruk.fire import fire_ap
    from pbem.games.advanced_tobruk.fire.eligible import GUNFIRE_OPTICS, GUNFIRE_SUPPRESS, gunfire_of
    tu, tp = st.units[target], st.pieces[target]
    able = []
    for f in units:
        u = st.units[f]
        if u.side in own_in_hex and data.cls(sc, f) != "apc":
            continue
        with hidden.placed(st, f):
            if u.hex is None:
                continue
            n = gunfire_of(st, sc, f, tu.hex)
            try:
                fire_ap.los_drm(st, sc, u.hex, tu.hex)
            except OrderError:
                n = 0
            if relief.blocked(st, sc, f, u.hex, target, tu.hex):
                n = 0
            front = tp.facing < 0 or facing.aspect(sc.board.grid, tu.hex, tp.facing, u.hex,
                                                   fire_ap.moving(st, target)) == "front"
        if n > 0:
            able.append((f, n, front))
    if not tp.suppressed and sum(n for _, n, _ in able) >= GUNFIRE_SUPPRESS:
        return [f for f, _, _ in able]
    if sum(n for f, n, front in able if front) >= GUNFIRE_OPTICS:
        return [f for f, n, front in able if front]
    return []


@pytest.mark.parametrize("name", TOBRUK)
def test_gunfire_at_an_afv_and_usable_weapons_are_the_plain_answers(played_example, name):
    # _gunfire_at_afv asks no line of a unit that brings no gunfire; any_usable stops at the first
    # weapon that may fire: the answers are the plain ones, at every AFV and from every vehicle
    from pbem.games.advanced_tobruk.fire.eligible import _gunfire_at_afv, any_usable, usable_weapons
    g = played_example(name).game()
    sc = g.scenario
    groups = usable = 0
    for i, (_, st) in enumerate(_states(g)):
        if i % 3:
            continue
        live = [u for u in sorted(st.units) if st.units[u].hex and not st.units[u].eliminated]
        for t in live:
            if data.is_afv(sc, t):
                side = st.units[t].side
                units = [f for f in sorted(st.units) if st.units[f].side != side]
                own = {st.units[u].side for u in live if st.units[u].hex == st.units[t].hex
                       and data.is_personnel(sc, u)}
                want = plain_gunfire_at_afv(st, sc, t, units, own)
                assert _gunfire_at_afv(st, sc, t, units, own) == want, t
                groups += bool(want)
        for f in live[i % 4::4]:
            if data.cls(sc, f) in ("afv", "apc") or data.is_heavy(sc, f):
                for t in live:
                    if st.units[t].side != st.units[f].side:
                        for turn in (False, True):
                            want = bool(usable_weapons(st, sc, f, t, st.units[t].hex, turn))
                            assert any_usable(st, sc, f, t, st.units[t].hex, turn) is want, (f, t, turn)
                            usable += want
    assert usable


@pytest.mark.parametrize("name", TOBRUK)
def test_the_steps_sides_are_their_rows_sides(played_example, name):
    # the kernel's gate before every order reads Step.sides (the side whose activation it is, the
    # paused mover's enemy), not the rows with their help text: the same sides on every state
    from pbem.core.turn import current_step
    g = played_example(name).game()
    rules, sc = g.rules, g.scenario
    asked = set()
    for _, st in _states(g):
        step = current_step(rules, st, sc)
        if step is None or st.result is not None:
            continue
        assert step.sides is not None
        assert step.waited(st, sc) == [r["side"] for r in step.waits(st, sc)], step.name
        asked.add(step.name)
    assert {"direct-fire", "movement", "infiltration"} <= asked


@pytest.mark.parametrize("name", TOBRUK)
def test_a_hidden_firer_is_looked_at_from_its_noted_hex_as_hidden_placed_does(played_example, name):
    # _may_fire places a hidden unit in its noted hex itself (hidden.placed written out): the answer
    # is that of the check inside hidden.placed, and the unit is off the map again after it
    from pbem.games.advanced_tobruk.fire.eligible import _may_fire
    g = played_example(name).game()
    sc = g.scenario
    asked = 0
    for i, (_, st) in enumerate(_states(g)):
        off = [f for f in sorted(st.units) if st.units[f].hex is None and not st.units[f].eliminated]
        for f in off[i % 3::3]:
            for t in [u for u in sorted(st.units) if st.units[u].hex and st.units[u].side != st.units[f].side][:4]:
                for phase in ("direct-fire", "movement"):
                    with hidden.placed(st, f):
                        want = st.units[f].hex is not None and _may_fire(st, sc, f, t, st.units[t].hex, phase,
                                                                           set())
                    assert _may_fire(st, sc, f, t, st.units[t].hex, phase, set()) is want
                    assert st.units[f].hex is None
                    asked += hidden.is_hidden(st, f)
    if name == "tobruk-salient":                          # the example with hidden units (32.2)
        assert asked


def test_relief_in_use_is_the_maps_deir_or_wadi(played_example):
    from pbem.games.advanced_tobruk.board import ground, relief
    for name in [*TOBRUK, "tobruk-r33"]:
        sc = played_example(name).game().scenario
        sc.__dict__.pop("_tobruk_relief", None)
        terr = set(sc.board.terrain.values())
        plain = ground.DEIR in terr or ground.WADI in terr
        assert relief.in_use(sc) is plain and relief.in_use(sc) is plain
    assert any(relief.in_use(played_example(n).game().scenario) for n in TOBRUK)


@pytest.mark.parametrize("name", TOBRUK)
def test_a_position_where_nothing_was_to_be_seen_has_nothing_to_be_seen(played_example, name):
    # fow.update skips a position (fow.sight_position) where no hidden unit was seen and no FOW unit
    # or dummy had to flip (32.22, 32.12, 32.241): every state with the key of such a position is one
    g = played_example(name).game()
    sc = g.scenario
    quiet: dict[tuple, int] = {}
    again = 0
    for en, st in _states(g):
        key = fow.sight_position(st)
        nothing = not fow.seen_hidden(st, sc) and fow.to_flip(st, sc) == ([], [])
        if key in quiet:
            assert nothing, (en.seq, quiet[key])
            again += 1
        elif nothing:
            quiet[key] = en.seq
    assert again > 50


def test_a_position_where_a_unit_moved_or_fired_is_another_position(played_example):
    g = played_example("tobruk-salient").game()
    st = g.state()
    key = fow.sight_position(st)
    uid = next(u for u, x in st.units.items() if x.hex and not x.eliminated)
    st.pieces[uid].fired = not st.pieces[uid].fired
    assert fow.sight_position(st) != key
    st.pieces[uid].fired = not st.pieces[uid].fired
    st.smoke = {**st.smoke, "0101": 1}
    assert fow.sight_position(st) != key


def test_the_reducers_run_without_the_noting_view_change_no_piece():
    # reducer._NO_PIECES holds the side notes' reducer of SecretRevealed and NoteRolled by identity:
    # valid while it is the one that does nothing (a reducer that changed a piece would need the view)
    from pbem.games.advanced_tobruk import events as E, reducer
    for kind in (E.SecretRevealed, E.NoteRolled):
        fn = reducer.NOTE_REDUCERS[kind]
        assert fn in reducer._NO_PIECES and fn.__code__.co_code == reducer._nothing.__code__.co_code


def test_the_games_apply_is_the_rulesets_apply():
    # no apply of the game's own: Ruleset.apply, whose reduce_before the game does not have
    assert AdvancedTobruk.apply is Ruleset.apply
    assert AdvancedTobruk.reduce_before is Ruleset.reduce_before
    assert AdvancedTobruk.eliminated_stay
