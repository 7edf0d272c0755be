"""The kernel and the games (issue 11): every game is a package behind the Ruleset
contract; the core knows no game; core events have one reducer."""
from __future__ import annotations

import re
from pathlib import Path

import pytest

from pbem.core import events as E
from pbem.core.orders import OrderError, parse
from pbem.core.reduce import CORE, reduce_core
from pbem.core.ruleset import Ruleset
from pbem.core.state import GameState
from pbem.games import REGISTRY, known_games, ruleset_for

from conftest import EXAMPLES

DICE = getattr(E, "DICE_FIELD", "rolls")

PBEM = Path(__file__).resolve().parent.parent / "pbem"
GAME_WORDS = re.compile(r"\b(el-alamein|alamein|dunkerque|kharkov|khar'kov|operation-compass|compass|crete|eben|"
                        r"red-devils|red_devils|panzer[ _-]?corps|paratroop|mirages|tobruk)\b", re.IGNORECASE)


def _code_lines(path: Path):
    """Lines of code (not comments, not docstrings) of a module."""
    text = path.read_text()
    text = re.sub(r'"""(?:.|\n)*?"""', lambda m: "\n" * m.group(0).count("\n"), text)
    for n, line in enumerate(text.splitlines(), start=1):
        code = line.split("#", 1)[0]
        if code.strip():
            yield n, code


def test_no_game_is_named_outside_its_package():
    """Not in code, not in a comment or docstring either: the kernel is written for any game."""
    found = []
    for path in PBEM.rglob("*.py"):
        if "games" in path.relative_to(PBEM).parts:
            continue
        for n, line in enumerate(path.read_text().splitlines(), start=1):
            if GAME_WORDS.search(line):
                found.append(f"{path.relative_to(PBEM)}:{n}: {line.strip()}")
    assert not found, "\n".join(found)


def test_a_game_imports_no_other_game():
    """A game builds on the kernel and the mechanics (and its family's shared module), never
    on another game's package."""
    found = []
    for pkg in (PBEM / "games").iterdir():
        if not pkg.is_dir() or pkg.name.startswith("_"):
            continue
        for path in pkg.rglob("*.py"):
            for n, code in _code_lines(path):
                m = re.search(r"pbem\.games\.(\w+)", code)
                if m and m.group(1) not in (pkg.name, "words", "paratroop"):
                    found.append(f"{path.relative_to(PBEM)}:{n}: {code.strip()}")
    assert not found, "\n".join(found)


def test_what_games_share_imports_no_game():
    """A module the games share (pbem/games/*.py) builds on the kernel alone: a game that
    uses it must not reach another game through it."""
    found = []
    for path in (PBEM / "games").glob("*.py"):
        for n, code in _code_lines(path):
            if re.search(r"pbem\.games\.\w+\.", code) or re.search(r"from pbem\.games\.\w+ import", code):
                found.append(f"{path.relative_to(PBEM)}:{n}: {code.strip()}")
    assert not found, "\n".join(found)


def test_no_module_outside_data_is_longer_than_800_lines():
    long = [f"{p.relative_to(PBEM)}: {n}" for p in PBEM.rglob("*.py")
            if (n := len(p.read_text().splitlines())) > 800]
    assert not long, long


def test_no_hook_is_looked_up_with_getattr():
    found = [f"{p.relative_to(PBEM)}:{n}" for p in PBEM.rglob("*.py") for n, code in _code_lines(p)
             if re.search(r"getattr\((self\.)?rules\b|getattr\(type\(\w+\.rules\)", code)]
    assert not found, found


@pytest.mark.parametrize("game", known_games())
def test_every_game_keeps_the_contract(game):
    rules = ruleset_for(game)
    assert isinstance(rules, Ruleset) and rules.game == game
    assert issubclass(rules.state_type, GameState)
    assert all(isinstance(v, str) and v for v in rules.verbs)
    assert not set(rules.verbs) & {"move", "attack", "retreat", "advance", "end", "secret", "unveil"}
    assert rules.defaults_help                                  # what the host mails players


def test_the_registry_names_every_game_once():
    assert sorted(REGISTRY) == known_games() and len(set(REGISTRY.values())) == len(REGISTRY)


def test_an_event_kind_names_one_type_for_good():
    class Clash(E.Event, tag="UnitMoved"):
        unit: str
    with pytest.raises(ValueError, match="already"):
        E.register(Clash)


def test_a_game_event_decodes_once_its_game_is_known():
    ev = E.decode_body("HiddenDraw", b'{"name":"x","slots":[2,3]}')
    assert type(ev).__name__ == "HiddenDraw" and ev.slots == [2, 3]
    with pytest.raises(ValueError, match="unknown event kind"):
        E.decode_body("NoSuchEvent", b"{}")


def test_core_events_are_reduced_once_for_every_game():
    st = GameState(game_id="g", scenario_id="s", game="x")
    reduce_core(st, E.PhaseStarted(turn=3, phase=1, side="a", name="movement"))
    assert (st.turn, st.phase, st.decision) == (3, 1, None)
    reduce_core(st, E.DecisionRequired(side="a", decision="retreat", combat=0, units=["u"], distance=2,
                                       options=[["0101"]], rule="9.5"))
    assert st.decision is not None and st.decision.distance == 2
    reduce_core(st, E.GameEnded(winner="a", reason="r", rule="1"))
    assert st.result.winner == "a" and st.decision is None
    assert {E.PhaseStarted, E.GameEnded, E.SeedRevealed, E.SecretRecorded, E.SecretRevealed,
            E.DecisionRequired, E.OrderGiven} <= set(CORE)


def test_an_opened_secret_must_match_its_commitment_in_every_game():
    from pbem.core.reduce import secret_commitment
    st = GameState(game_id="g", scenario_id="s", game="x")
    reduce_core(st, E.SecretRecorded(side="a", name="n", commitment=secret_commitment("s1", "text")))
    with pytest.raises(ValueError, match="does not match"):
        reduce_core(st, E.SecretRevealed(side="a", name="n", salt="s1", payload="other"))


def test_a_game_reads_only_its_own_order_words():
    crete, alamein = ruleset_for("crete"), ruleset_for("el-alamein")
    assert parse("drop 1/FJR1 1002", crete.verbs)[0].order.word == "drop"
    with pytest.raises(OrderError, match="unknown order 'drop'"):
        parse("drop 1/FJR1 1002", alamein.verbs)


def test_rolls_advance_the_scripted_dice_in_the_core_reducer():
    st = GameState(game_id="g", scenario_id="s", game="x")
    reduce_core(st, E.CombatResolved(index=0, target="0101", attackers=["a"], defenders=["b"], attack_strength=2,
                                     defence_strength=1, modifiers=[], odds="2:1", rolls=[4, 2], result="DR1"))
    assert st.scripted_pos == 2


# --- dice: one convention for every event that rolls (events.DICE_FIELD) ----------------------

_DIE_NAME = re.compile(r"^(roll|die|dice)$|_(roll|die)$")          # scripted_dice is no die


def _die_fields(t, seen=()) -> list[str]:
    """Fields of struct type ``t`` (and of the structs it nests) whose name says they hold a die."""
    import typing

    import msgspec
    out = []
    for f in msgspec.structs.fields(t):
        if _DIE_NAME.search(f.name):
            out.append(f"{t.__name__}.{f.name}")
        for sub in [f.type, *typing.get_args(f.type)]:
            if isinstance(sub, type) and issubclass(sub, msgspec.Struct) and sub not in seen:
                out += _die_fields(sub, (*seen, t))
    return out


def test_every_event_that_rolls_keeps_its_dice_in_rolls():
    """events.DICE_FIELD: an event of any game with a field holding a die also has ``rolls:
    list[int]`` (the scripted-dice position and verify's recorded dice read only that list)."""
    import msgspec
    from pbem.games import load_all_events
    load_all_events()
    bad = []
    for kind, t in sorted(E.BY_KIND.items()):
        fields = {f.name: f.type for f in msgspec.structs.fields(t)}
        if DICE in fields and fields[DICE] != list[int]:
            bad.append(f"{kind}: {DICE} is {fields[DICE]}, not list[int]")
        dice = _die_fields(t)
        if dice and DICE not in fields:
            bad.append(f"{kind}: {', '.join(dice)} but no {DICE}")
    assert not bad, "\n".join(bad)


class _Counted:
    """Dice that pass every roll through and remember its value."""

    def __init__(self, inner):
        self.inner, self.values = inner, []

    def roll(self, sides: int) -> int:
        v = self.inner.roll(sides)
        self.values.append(v)
        return v

    def salt(self) -> str:
        return self.inner.salt()


@pytest.mark.parametrize("name", EXAMPLES)
def test_every_die_an_example_game_rolls_is_in_its_events_rolls(name, played_example, tmp_path, monkeypatch):
    """Re-running each example's orders (pbem verify, the seed revealed), the dice the rules roll
    for an order are exactly the ``rolls`` of the events it wrote, in order: none unrecorded
    (the next order would read it again with scripted dice) and none recorded twice."""
    from pbem.engine import Game
    made: dict[int, _Counted] = {}
    real = Game._dice

    def counted(self, st, seq, seed_of=None):
        made[seq] = _Counted(real(self, st, seq, seed_of))
        return made[seq]
    monkeypatch.setattr(Game, "_dice", counted)
    import shutil
    played = played_example(name).dir
    for f in played.iterdir():                  # the game's own files, not its reports
        if f.is_file():
            shutil.copy2(f, tmp_path / f.name)
    g = Game(tmp_path)
    assert g.verify().ok
    entries = g.entries()
    bad = []
    for i, en in enumerate(entries):
        if not isinstance(en.event, E.OrderGiven):
            continue
        group = []
        for later in entries[i + 1:]:
            if isinstance(later.event, (E.OrderGiven, E.SeedRevealed)):
                break
            group.append(later.event)
        recorded = [r for ev in group for r in getattr(ev, DICE, None) or []]
        if made[en.seq].values != recorded:
            kinds = sorted({type(ev).__name__ for ev in group})
            bad.append(f"seq {en.seq} {en.event.text!r}: rolled {made[en.seq].values}, recorded {recorded} ({kinds})")
    assert not bad, "\n".join(bad[:5])
