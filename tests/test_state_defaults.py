"""Issue 26 item 6: no string field of a game's state (its ``state_type`` and every typed
struct nested in it) has a non-empty default.  A state is stored with its defaults left
out (``omit_defaults``) and decoded with them filled in, so a cached or saved state that
predates a field, or a default changed later, silently gets the default's meaning: for a
string, "" (nothing) is the one safe default.

The fields that had a non-empty default when this test was written are listed in
KNOWN with what they hold; they are set when their struct is made (GameCreated's
dice mode, a combat's first stage), and changing them changes every stored state (the
board-state hashes, every cache).  The list may only shrink: a new non-empty default
fails, and so does a listed field that no longer has one (take it off the list)."""
from __future__ import annotations

import msgspec.inspect as mi
import pytest

from pbem.games import REGISTRY, ruleset_for

KNOWN = {
    "pbem.core.state.GameState.dice_mode": "seeded",                 # set from GameCreated in new_state
    "pbem.core.state.Attack.stage": "declared",
    "pbem.games.crete.state.Fight.stage": "open",
    "pbem.games.eben_emael.state.AssaultAction.stage": "declared",
    "pbem.games.formation.combat_state.Combat.stage": "rbc",
    "pbem.games.red_devils.state.Doctrine.default": "ask",
    "pbem.games.red_devils.state.Pending.context": "move",
    "pbem.games.red_devils.state.Pending.spent": "0",
    "pbem.games.red_devils.state.Pending.then": "step",
}


def _string_defaults(t, seen: set, out: dict) -> None:
    """Every str field with a non-empty default in the type ``t`` and the types in it."""
    if isinstance(t, mi.StructType):
        if t.cls in seen:
            return
        seen.add(t.cls)
        for f in t.fields:
            if isinstance(f.type, mi.StrType) and isinstance(f.default, str) and f.default:
                # a field inherited from a base names the base, where it is declared
                owner = next(c for c in reversed(t.cls.__mro__) if f.name in (c.__dict__.get("__annotations__") or {}))
                out[f"{owner.__module__}.{owner.__qualname__}.{f.name}"] = f.default
            _string_defaults(f.type, seen, out)
    elif isinstance(t, (mi.ListType, mi.SetType, mi.FrozenSetType, mi.VarTupleType)):
        _string_defaults(t.item_type, seen, out)
    elif isinstance(t, mi.TupleType):
        for x in t.item_types:
            _string_defaults(x, seen, out)
    elif isinstance(t, mi.DictType):
        _string_defaults(t.key_type, seen, out)
        _string_defaults(t.value_type, seen, out)
    elif isinstance(t, mi.UnionType):
        for x in t.types:
            _string_defaults(x, seen, out)


def _all_defaults() -> dict[str, str]:
    out: dict[str, str] = {}
    for game in REGISTRY:
        _string_defaults(mi.type_info(ruleset_for(game).state_type), set(), out)
    return out


@pytest.mark.parametrize("game", sorted(REGISTRY))
def test_no_new_non_empty_string_default_in_a_state(game):
    found: dict[str, str] = {}
    _string_defaults(mi.type_info(ruleset_for(game).state_type), set(), found)
    new = {k: v for k, v in found.items() if KNOWN.get(k) != v}
    assert not new, (f"{game}: a string field of the state has a non-empty default (an old state would "
                     f"silently take it); make it \"\" and set the value where the struct is made: {new}")


def test_the_known_list_only_shrinks():
    gone = set(KNOWN) - set(_all_defaults())
    assert not gone, f"no longer a non-empty default: take {sorted(gone)} off KNOWN"


def test_the_walk_finds_a_nested_default():
    """The walk reaches structs nested in lists and dicts (Red Devils' pending moves)."""
    found: dict[str, str] = {}
    _string_defaults(mi.type_info(ruleset_for("red-devils").state_type), set(), found)
    assert found["pbem.games.red_devils.state.Pending.then"] == "step"
