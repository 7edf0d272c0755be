"""The games' reducers made cheaper for replay (issue 29, target 3: replay <= 4x decode-only)
give the state the plain reducers give, after every event (correctness only: the figures come
from tests/benchmark.py --only games).

- every game's ``reduce`` (and Red Devils' and Mirages' ``reduce_before``) is the reducer
  module's own function (one call less an event; the Panzer Corps family's method looks the
  handler up itself), which finds each event type's handler once (``core.reduce.Handlers``:
  None for a core event, the ``no_reducer`` error for an unknown one);
- a phase's start clears a unit's moved / attacked / defended flags only where one is set
  (Crete 3.0, Red Devils 3.0, Panzer Corps 5.0, Eben Emael 3.0; Mirages' Admin Phase, moved
  only); a Panzer Corps attack (9.1) finds its defenders and marks them in one pass over the
  units; Crete's air drop (5.2) looks for an enemy in the hex in one pass,
  not through a map of every hex (``board.enemies``);
- Red Devils' move (4.6, 4.7, 11.0) reads the ferry and unbridged Neder Rijn hexsides from a
  table made once per scenario (``terrain.crossings``), and a move that touches none of their
  hexes is not walked at all;
- Advanced Tobruk's own ``apply`` is gone (replay runs the core's step and the game's reducer
  inline, as for every game); its reducers that walk every piece or unit to change a few
  (a holder's weapons dropped, 8.4 / 11.21; a melee's hex, 22.23 / 22.55) walk the plain dict
  and note the units they changed, so only those units' markers are derived again; a move's step,
  start and end, a side note, a casualty attack, a morale check, a gun's and indirect fire and a
  direct hit name the units they change themselves, and the batteries' and smoke's reducers run
  without the view (they change no piece and no unit).

The reference is the plain code, kept here: the old handlers, the old dispatch, and for Advanced
Tobruk every unit's markers derived again after every event (the reducer before issue 29).  Every
state is compared, encoded, after each event of each example's log, then of its events twice
more (as the benchmark's repeated logs run them).
"""
from __future__ import annotations

import msgspec
import pytest

from conftest import EXAMPLES
from pbem.core import events as CE
from pbem.core.reduce import CORE, Handlers, no_reducer, reduce_core
from pbem.core.state import Attack, encode_state
from pbem.games.advanced_tobruk import fire_events as TF, reducer as TR
from pbem.games.crete import events as CRE, reducer as CR
from pbem.games.eben_emael import events as EBE, reducer as EBR
from pbem.games.formation import events as FME, reducer as FMR
from pbem.games.panzer_corps import events as PCE, reducer as PCR
from pbem.games.crete.board import enemies, map_of
from pbem.games.red_devils import events as RDE, reducer as RD
from pbem.games.red_devils.terrain import FERRY, crossings, unbridged_rijn

TOBRUK = [n for n in EXAMPLES if n.startswith("tobruk")]
PANZER_CORPS = ("dunkerque", "el-alamein", "kharkov", "operation-compass")


# --- the plain code, as it was ---------------------------------------------------------------

def plain_dispatch(game: str, reducers: dict, st, ev, sc) -> None:
    fn = reducers.get(type(ev))
    if fn is None:
        no_reducer(game, ev)
        return
    fn(st, ev, sc)


def plain_crete_phase_started(st, ev, sc) -> None:
    cd = st.crete
    for u in st.units.values():
        u.moved = u.attacked = u.defended = False
    if ev.name == "air-landing":
        cd.air_used = []
    cd.from_track = sorted(k for k in cd.track if st.units[k].side == ev.side) if ev.name == "movement" else []


def plain_crete_air_dropped(st, ev, sc) -> None:
    cd = st.crete
    cd.dropped[ev.unit] = st.turn
    if st.turn == 1:
        m = map_of(sc, ev.target) or "?"
        cd.t1[m] = cd.t1.get(m, 0) + 1
    if ev.hex:
        st.units[ev.unit].hex = ev.hex
        if not enemies(st, ev.hex, "german"):
            CR.note_airfield(st, sc, ev.unit, ev.hex)


CRETE_PLAIN = {**CR.REDUCERS, CRE.PhaseStarted: plain_crete_phase_started, CRE.AirDropped: plain_crete_air_dropped}


def plain_rd_phase(st, ev, sc) -> None:
    st.attacks, st.current = [], 0
    for u in st.units.values():
        u.moved = u.attacked = u.defended = False
    st.fired, st.hit, st.mode, st.pending = [], [], {}, None
    if ev.name == "movement":
        st.swim = False
    if ev.name == "movement" and ev.side == "british":
        st.landing = RD.landing_due(st, sc, ev.turn)


def plain_rd_crossed(st, ev, sc) -> None:
    u = st.units[ev.unit]
    trail = ([u.hex] if u.hex else []) + list(ev.path)
    for a, b in zip(trail, trail[1:]):
        if FERRY in sc.board.side_features(a, b):
            st.ferry_turn = st.turn
        elif unbridged_rijn(st, sc, a, b):
            st.swim = True


RD_PLAIN = {**RD.REDUCERS, RDE.PhaseStarted: plain_rd_phase}


def plain_tobruk_reduce(st, ev, sc) -> None:
    """Before issue 29: the handler on the plain dicts (``noting.walk`` is their items, ``touch``
    does nothing), then every unit's markers derived again.  (In a legal log: the benchmark's
    repeated log, whose turns go back to 1, leaves a winded marker that ``_phase`` never meets.)"""
    plain_dispatch("advanced-tobruk", TR.REDUCERS, st, ev, sc)
    for uid, u in st.units.items():
        u.marks = TR.markers(st.pieces[uid], st.turn, u.eliminated)


class OldAsked(TR._Asked):
    """The noting view as the handlers saw it before they walked the plain dicts: a walk of
    it (``noting.walk`` of anything but the view itself) notes every unit."""
    __slots__ = ()

    def __getitem__(self, k):
        self.asked.add(k)
        return self.d[k]

    def get(self, k, default=None):
        self.asked.add(k)
        return self.d.get(k, default)


OLD_NO_PIECES = {TR._nothing, TR._passed, TR._acted, TR._standing, TR._opp_passed, TR._vp,
                 TR.NOTE_REDUCERS[TR.E.SecretRevealed], TR.NOTE_REDUCERS[TR.E.NoteRolled]}   # as it was


def noting_tobruk_reduce(st, ev, sc) -> None:
    """The reducer before this round (its dispatch and view, verbatim but for OldAsked)."""
    fn = TR.REDUCERS.get(ev.__class__)
    if fn is None:
        no_reducer("advanced-tobruk", ev)
        return
    if fn in OLD_NO_PIECES:
        fn(st, ev, sc)
        return
    if fn in (TR._phase, TR._turn_ended):          # _SELF_MARKING as it was
        touched = fn(st, ev, sc)
    else:
        pieces, units = st.pieces, st.units
        touched = set()
        wp, wu = OldAsked(pieces, touched), OldAsked(units, touched)
        st.pieces, st.units = wp, wu
        try:
            fn(st, ev, sc)
        finally:
            if st.pieces is wp:
                st.pieces = pieces
            else:
                touched.add(TR._ALL)
            if st.units is wu:
                st.units = units
            else:
                touched.add(TR._ALL)
        if TR._ALL in touched:
            touched = st.units
    units, pieces, turn = st.units, st.pieces, st.turn
    for uid in touched:
        u = units.get(uid)
        if u is not None:
            marks = TR.markers(pieces[uid], turn, u.eliminated)
            if u.marks != marks:
                u.marks = marks


def plain_pc_phase(st, ev) -> None:
    st.attacks = []
    st.declarations_closed = False
    st.current = 0
    st.picking = False
    for u in st.units.values():
        u.moved = u.attacked = u.defended = False


def plain_eben_phase(st, ev, sc) -> None:
    st.actions, st.declarations_closed, st.current = [], False, 0
    st.fired, st.mine_hits = {}, {}
    if st.last_turn_placed != ev.turn:
        st.placed_forts, st.last_turn_placed = [], ev.turn
    for u in st.units.values():
        u.moved = u.attacked = u.defended = False


def plain_admin_begun(st, ev, sc) -> None:
    st.fm.snafu, st.fm.snafu_used = ev.snafu, False
    st.fm.sp_done = False
    st.fm.scored = []
    st.fm.cups = {}
    for u in st.units.values():
        u.moved = False


def plain_pc_declared(st, ev) -> None:
    declared = [u.id for u in st.units.values()
                if u.hex == ev.target and not u.eliminated and u.side != st.units[ev.attackers[0]].side]
    st.attacks.append(Attack(target=ev.target, attackers=list(ev.attackers), retreat=list(ev.retreat),
                             attacker_retreat=dict(ev.attacker_retreat), advance=ev.advance,
                             advance_path=list(ev.advance_path),
                             advance_more=[list(g) for g in ev.advance_more], ex_loss=ev.ex_loss,
                             defenders=declared))
    for a in ev.attackers:
        st.units[a].attacked = True
    for u in st.units.values():
        if u.hex == ev.target and not u.eliminated:
            u.defended = True


PC_PLAIN = {**PCR.REDUCERS, PCE.PhaseStarted: plain_pc_phase, PCE.AttackDeclared: plain_pc_declared}
EBEN_PLAIN = {**EBR.REDUCERS, EBE.PhaseStarted: plain_eben_phase}
FM_PLAIN = {**FMR.REDUCERS, FME.AdminBegun: plain_admin_begun}


def plain_apply(name: str, tobruk=noting_tobruk_reduce):
    """Ruleset.apply of the game, its own part the plain code."""
    def apply(st, ev, sc):
        if name.startswith("eben-emael"):
            reduce_core(st, ev)
            plain_dispatch("eben-emael", EBEN_PLAIN, st, ev, sc)
        elif name.startswith("mirages"):
            before = FMR.BEFORE.get(type(ev))
            if before is not None:
                before(st, ev, sc)
            reduce_core(st, ev)
            plain_dispatch("mirages", FM_PLAIN, st, ev, sc)
        elif name in PANZER_CORPS:
            reduce_core(st, ev)
            fn = PC_PLAIN.get(type(ev))
            if fn is None:
                no_reducer(name, ev)
            else:
                fn(st, ev)
        elif name == "red-devils":
            if type(ev) is RDE.UnitMoved:
                plain_rd_crossed(st, ev, sc)
            reduce_core(st, ev)
            plain_dispatch("red-devils", RD_PLAIN, st, ev, sc)
        elif name == "crete":
            reduce_core(st, ev)
            plain_dispatch("crete", CRETE_PLAIN, st, ev, sc)
        else:
            reduce_core(st, ev, True)
            tobruk(st, ev, sc)
    return apply


# --- every event of every example ------------------------------------------------------------

def _events(g, again: int = 2):
    """The example's events, then its events ``again`` times more (no seed revealed, no game
    ended), each decoded afresh (no event object is shared by the two replays compared)."""
    yield from (en.event for en in g.entries()[1:])
    for _ in range(again):
        yield from (en.event for en in g.entries()[1:] if not isinstance(en.event, (CE.SeedRevealed, CE.GameEnded)))


def _replay_both(g, apply_plain, again: int = 2):
    """(event index, plain state, state) after every event, the second through the game's rules."""
    sc = g.scenario
    want, got = g.state(0), g.state(0)
    assert want is not got
    for i, (a, b) in enumerate(zip(_events(g, again), _events(g, again))):
        apply_plain(want, a, sc)
        g.rules.apply(got, b, sc)
        yield i, a, want, got


def _same_after_every_event(g, apply_plain, again: int = 2) -> int:
    n = 0
    for i, ev, want, got in _replay_both(g, apply_plain, again):
        assert encode_state(got) == encode_state(want), (i, type(ev).__name__)
        n = i + 1
    return n


def test_every_example_is_compared():
    assert set(PANZER_CORPS) < set(EXAMPLES) and len(TOBRUK) == 3
    assert all(n in ("crete", "red-devils", *PANZER_CORPS, *TOBRUK) or n.startswith(("eben-emael", "mirages"))
               for n in EXAMPLES)


@pytest.mark.parametrize("name", EXAMPLES)
def test_the_reducers_give_the_plain_reducers_state_after_every_event(played_example, name):
    g = played_example(name).game()
    n = _same_after_every_event(g, plain_apply(name))
    assert n > 2 * g.head()[0]
    assert encode_state(g._replay_log()[0]) == encode_state(g.state())


@pytest.mark.parametrize("name", TOBRUK)
def test_tobruk_markers_are_every_units_markers_derived_again_after_every_event(played_example, name):
    g = played_example(name).game()
    assert _same_after_every_event(g, plain_apply(name, plain_tobruk_reduce), again=0) == g.head()[0]


def _named_none(fn):
    def none(st, ev, sc):
        fn(st, ev, sc)
        return []
    return none


@pytest.mark.parametrize("plain", [plain_tobruk_reduce, noting_tobruk_reduce])
@pytest.mark.parametrize("how", ["the view notes nothing", "a handler names no unit"])
def test_a_tobruk_reducer_that_noted_no_unit_it_changed_is_caught(played_example, monkeypatch, plain, how):
    # the comparisons above see a unit whose markers were not derived again (a weapon whose
    # holder was eliminated or surrendered, "with X" left; a unit hit, moved, noted) -> a state apart
    if how == "the view notes nothing":
        monkeypatch.setattr(TF, "touch", lambda d, k: None)
        monkeypatch.setattr(TR._Asked, "__getitem__", lambda self, k: self.d[k])
        monkeypatch.setattr(TR._Asked, "get", lambda self, k, default=None: self.d.get(k, default))
    else:
        for cls, got in list(TR._HANDLERS.items()):
            if got is not None and got[1] == 1:
                monkeypatch.setitem(TR._HANDLERS, cls, (_named_none(got[0]), 1))
    found = []
    for name in TOBRUK:
        g = played_example(name).game()
        try:
            _same_after_every_event(g, plain_apply(name, plain), again=0)
        except AssertionError:
            found.append(name)
    assert found


# --- the pieces of it -------------------------------------------------------------------------

def _one_of_each(played_example) -> list:
    """One event of each type met in any example's log (real instances)."""
    seen = {}
    for name in EXAMPLES:
        for en in played_example(name).game().entries():
            seen.setdefault(type(en.event), en.event)
    return list(seen.values())


def test_handlers_find_each_types_reducer_and_raise_as_no_reducer_does(played_example):
    evs = _one_of_each(played_example)
    assert any(type(e) in CORE for e in evs) and any(type(e).motion is not None for e in evs)
    for game, reducers in (("crete", CR.REDUCERS), ("red-devils", RD.REDUCERS), ("advanced-tobruk", TR.REDUCERS),
                           ("eben-emael", EBR.REDUCERS), ("mirages", FMR.REDUCERS), ("kharkov", PCR.REDUCERS)):
        table = Handlers(game, reducers)
        for ev in evs:
            cls = type(ev)
            if cls in reducers:
                assert table[cls] is reducers[cls]
                continue
            try:
                no_reducer(game, ev)
            except ValueError as e:
                with pytest.raises(ValueError) as got:
                    table[cls]
                assert str(got.value) == str(e)
                assert cls not in table
            else:
                assert table[cls] is None and cls in table


def test_the_games_reduce_is_the_reducer_modules_own():
    from pbem.core.ruleset import Ruleset
    from pbem.games.advanced_tobruk.rules import AdvancedTobruk
    from pbem.games.crete.rules import Crete
    from pbem.games.red_devils.rules import RedDevils
    assert Crete.reduce is CR.reduce and RedDevils.reduce is RD.reduce and AdvancedTobruk.reduce is TR.reduce
    assert RedDevils.reduce_before is RD.reduce_before and RedDevils._reads_before
    assert AdvancedTobruk.apply is Ruleset.apply and not AdvancedTobruk._reads_before
    from pbem.games.eben_emael.rules import EbenEmael
    from pbem.games.formation.rules import MiragesRules
    from pbem.games.panzer_corps.kharkov import Kharkov
    assert EbenEmael.reduce is EBR.reduce and MiragesRules.reduce is FMR.reduce_event
    assert MiragesRules.reduce_before is FMR.reduce_before and MiragesRules._reads_before
    k = Kharkov()
    assert k._handlers.game == "kharkov" and dict(k._handlers) == PCR.REDUCERS


def test_an_enemy_in_a_crete_hex_is_the_one_board_enemies_finds(played_example):
    g = played_example("crete").game()
    for _, _, st, _ in _replay_both(g, plain_apply("crete")):
        hexes = {u.hex for u in st.units.values() if u.hex} | {"0101", "9999"}
        for h in hexes:
            for side in ("german", "commonwealth"):
                assert CR._enemy_in(st, h, side) is bool(enemies(st, h, side)), (h, side)


def test_the_crossings_are_the_ferry_and_the_unbridged_rijn_of_every_hexside(played_example):
    g = played_example("red-devils").game()
    sc = g.scenario
    st = g.state()
    sides, ends = crossings(sc)
    assert "ferry" in sides.values() and "unbridged" in sides.values() and "rail" in sides.values()
    assert ends == {h for k in sides for h in k}
    grid = sc.board.grid
    for bridge in ("", "intact", "destroyed"):
        st.bridge = bridge
        for a in grid.all_hexes():
            for b in grid.neighbours(a):
                kind = sides.get((a, b) if a < b else (b, a))
                if FERRY in sc.board.side_features(a, b):
                    assert kind == "ferry"
                else:
                    plain = unbridged_rijn(st, sc, a, b)
                    assert plain is (kind == "unbridged" or (kind == "rail" and bridge == "destroyed")), (a, b)
                    assert kind in (None, "rail", "unbridged")


def test_a_red_devils_move_over_the_rijn_or_the_ferry_is_the_plain_walk(played_example):
    """Every crossing hexside, crossed from either side, at the start, the middle and the end of a
    path, with the railway bridge intact and destroyed: swim (4.6) and the ferry (4.7) as before."""
    g = played_example("red-devils").game()
    sc = g.scenario
    uid = sorted(g.state().units)[0]
    sides, _ = crossings(sc)
    grid = sc.board.grid
    tried = 0
    for (a, b) in sides:
        for x, y in ((a, b), (b, a)):
            far = next(n for n in grid.neighbours(y) if n != x)
            for start, path in ((x, [y]), (x, [y, far]), (far, [x, y]), (None, [x, y])):
                for bridge in ("", "destroyed"):
                    want, got = g.state(), g.state()
                    for st in (want, got):
                        st.units[uid].hex, st.bridge, st.swim, st.ferry_turn, st.turn = start, bridge, False, 0, 3
                    ev = RDE.UnitMoved(unit=uid, path=path, mp=1, ma=4)
                    plain_rd_crossed(want, ev, sc)
                    RD.reduce_before(got, ev, sc)
                    assert (got.swim, got.ferry_turn) == (want.swim, want.ferry_turn), (start, path, bridge)
                    tried += want.swim or bool(want.ferry_turn)
    assert tried
    st = g.state()
    st.units[uid].hex = None
    st.swim = False
    far = [h for h in grid.all_hexes() if all(grid.distance(h, e) > 2 for k in sides for e in k)][:3]
    RD.reduce_before(st, RDE.UnitMoved(unit=uid, path=far, mp=1, ma=4), sc)
    assert not st.swim and st.ferry_turn == 0


def test_the_events_are_decoded_afresh_for_each_replay(played_example):
    g = played_example("crete").game()
    a, b = next(_events(g)), next(_events(g))
    assert a is not b and msgspec.json.encode(a) == msgspec.json.encode(b)


@pytest.mark.parametrize("name", TOBRUK)
def test_tobruk_reducers_without_the_view_ask_for_no_unit_or_only_those_they_name(played_example, name):
    """Run under the noting view, every reducer of ``_NO_PIECES`` asks for no piece and no unit,
    and every one that names its units (``_SELF_MARKING``, but for the two that walk them all)
    asks for no unit it does not name."""
    g = played_example(name).game()
    sc = g.scenario
    st = g.state(0)
    seen = set()
    for ev in _events(g, again=0):
        fn = TR.REDUCERS.get(type(ev))
        if fn is None or fn in (TR._phase, TR._turn_ended) or not (fn in TR._NO_PIECES or fn in TR._SELF_MARKING):
            g.rules.apply(st, ev, sc)
            continue
        reduce_core(st, ev, True)
        pieces, units = st.pieces, st.units
        asked = set()
        st.pieces, st.units = TR._Asked(pieces, asked), TR._Asked(units, asked)
        named = fn(st, ev, sc)
        assert st.pieces.d is pieces and st.units.d is units
        st.pieces, st.units = pieces, units
        if fn in TR._NO_PIECES:
            assert not asked, (type(ev).__name__, asked)
        else:
            assert TR._ALL not in asked and asked <= set(named), (type(ev).__name__, asked, named)
        for uid in named or []:                      # the markers, as reduce derives them
            u = st.units.get(uid)
            if u is not None:
                u.marks = TR.markers(st.pieces[uid], st.turn, u.eliminated)
        seen.add(fn)
    assert seen
