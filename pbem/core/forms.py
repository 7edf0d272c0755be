"""Order forms: every order word a game offers, declared once (issue 26).

A game declares its forms next to its steps (``Ruleset.forms``, in the order HELP lists
them) and each ``Step`` names the words it offers (``Step.verbs``) and the words whose legal
choices it lists (``Step.choices``).  The kernel derives from them, in one place each:

* HELP (``help_lines``): every form the side may use in this game, in the game's order,
  one line each, ``"SYNTAX    what it does (RULE)"`` (the welcome and the HELP mail);
* the set-up choices (``choice_lines``): while a step waits for a side, the enumerated
  legal choices of the forms it names (set-up hexes, drop zones, landing hexes, the
  formations that may act), one line each, with orders ready to copy.

A ``Form``:

``word``     the order word (``place``); ``also``: more words the same line covers
             (``advance UNIT [HEX] | no-advance``)
``syntax``   how it is written; ``does``: what it does (either may be (st, sc, side) -> str,
             for an example or the scenario's names); ``rule``: the rule(s), cited at the
             end of the line
``sides``    the sides that may use it (None: every side)
``when``     (st, sc) -> whether the form is in the game now (a scenario's optional rules,
             the dice exchange)
``choices``  (st, sc, side) -> the legal choices as lines, where they can be enumerated
``text``     the whole HELP line(s) where the line is not "SYNTAX    does (RULE)":
             a str, or (st, sc, side) -> a line or lines

``note(text)`` is a line HELP shows among the forms that is no order (the active formation
and its units, what an order costs in mails); it has no word.

The core verbs' forms are ``CORE`` (``core(...)`` picks some, in the order given): a game
lists those it offers where it wants them.  A game that declares no forms gets every core
form and a line for each of its own words (``default_forms``).
"""
from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

from pbem.core.orders import Entropy, Press, Secret, Unveil

Lines = Callable[[Any, Any, str], "list[str]"]


class Form:
    """One order form a game offers (see the module's docstring)."""

    __slots__ = ("word", "also", "syntax", "does", "rule", "sides", "when", "choices", "text")

    def __init__(self, word: str, syntax: str | Callable = "", does: str | Callable = "", *, rule: str = "",
                 also: Iterable[str] = (), sides: Iterable[str] | None = None, when: Callable | None = None,
                 choices: Lines | None = None, text: str | Callable | None = None):
        self.word, self.also, self.syntax, self.does, self.rule = word, tuple(also), syntax, does, rule
        self.sides = None if sides is None else tuple(sides)
        self.when, self.choices, self.text = when, choices, text

    def __repr__(self) -> str:
        return f"Form({self.word or 'note'!r}, {self.syntax if isinstance(self.syntax, str) else '...'!r})"

    @property
    def words(self) -> tuple[str, ...]:
        """The order words the form covers (none for a note)."""
        return ((self.word,) if self.word else ()) + self.also

    def for_side(self, side: str) -> bool:
        return self.sides is None or side in self.sides

    def shown(self, st, sc) -> bool:
        return self.when is None or bool(self.when(st, sc))

    def lines(self, st, sc, side: str) -> list[str]:
        """The form's HELP line(s) for ``side`` in ``st``."""
        if self.text is not None:
            t = self.text(st, sc, side) if callable(self.text) else self.text
            return [t] if isinstance(t, str) else list(t)
        syntax = self.syntax(st, sc, side) if callable(self.syntax) else self.syntax
        does = self.does(st, sc, side) if callable(self.does) else self.does
        return [f"{syntax}    {does}" + (f" ({self.rule})" if self.rule else "")]


def note(text: str | Callable, *, sides: Iterable[str] | None = None, when: Callable | None = None) -> Form:
    """A HELP line among the forms that is no order (no word)."""
    return Form("", text=text, sides=sides, when=when)


# --- the core verbs' forms ----------------------------------------------------------------------

def _examples(st, sc, side: str) -> tuple[str, str, str, str]:
    """(unit, a hex next to it, the unit of an attack example, an enemy hex next to that unit):
    one of ``side``'s units on the map, a free hex next to it, an enemy hex next to one of them."""
    mine = sorted((u for u in st.units.values() if u.side == side and u.hex and not u.eliminated), key=lambda u: u.id)
    unit, step, foe = "UNIT", "HEX", "HEX"
    attacker = unit
    if mine:
        u = mine[0]
        unit = attacker = u.id
        around = sc.board.grid.neighbours(u.hex)
        held = {x.hex: x for x in st.units.values() if x.hex and not x.eliminated}
        free = [h for h in around if h not in held]
        step = free[0] if free else (around[0] if around else u.hex)
        for m in mine:
            enemy = [h for h in sc.board.grid.neighbours(m.hex) if h in held and held[h].side != side]
            if enemy:
                attacker, foe = m.id, enemy[0]
                break
    return unit, step, attacker, foe


def _move_does(st, sc, side: str) -> str:
    unit, step, _, _ = _examples(st, sc, side)
    return f"move a unit along its whole path, hex by hex (e.g. move {unit} {step})"


def _attack_does(st, sc, side: str) -> str:
    unit, _, attacker, foe = _examples(st, sc, side)
    return f"declare an attack (e.g. attack {foe} with {attacker}); then end"


CORE: dict[str, Form] = {f.word: f for f in (
    Form("move", "move UNIT HEX HEX ...", _move_does),
    Form("attack", "attack HEX with UNIT ...", _attack_does),
    Form("retreat", "retreat UNIT HEX ...", "answer a retreat the game waits for"),
    Form("advance", "advance UNIT [HEX] | no-advance", "answer an advance after combat", also=("no-advance",)),
    Form("end", "end", "end this phase or step"),
    Form("secret", "secret NAME TEXT ...", "a sealed note: the others see only its fingerprint"),
    Form("unveil", "unveil NAME", "open a sealed note; the fingerprint proves it unchanged"),
    Form("press", "press TEXT ...", "a message to the other side (public, kept in the log)"),
    Form("entropy", "entropy commit HASH | reveal VALUE | none",
         "your contribution to the dice (pbem dice contribute)",
         when=lambda st, sc: st.chain is not None and st.chain.entropy),
)}
# words any side may send at any time, which no step offers: the orders ruleset.dispatch takes first
CORE_ANY_TIME = frozenset(c.__struct_config__.tag for c in (Secret, Unveil, Press, Entropy))


def core(*words: str) -> tuple[Form, ...]:
    """The core forms of ``words``, in that order (every core form when none is named)."""
    return tuple(CORE[w] for w in (words or CORE))


def default_forms(rules) -> tuple[Form, ...]:
    """The forms of a game that declares none: the core verbs', then a line for each own word."""
    return core() + tuple(Form(v, f"{v} ...", "an order of this game (see its rules)") for v in sorted(rules.verbs))


def forms_of(rules) -> tuple[Form, ...]:
    """The game's forms, in its HELP order."""
    return tuple(rules.forms) or default_forms(rules)


def help_lines(rules, st, sc, side: str) -> list[str]:
    """HELP: every form ``side`` may use in this game now, in the game's order, one line each."""
    out: list[str] = []
    for f in forms_of(rules):
        if f.for_side(side) and f.shown(st, sc):
            out += f.lines(st, sc, side)
    return out


def choice_lines(rules, step, st, sc, side: str) -> list[str]:
    """The legal choices ``step`` lists for ``side`` (``Step.choices``: the words whose forms'
    enumerated choices it lists, in that order), while it waits for ``side``; [] otherwise."""
    words = step.choice_words(st, sc, side) if step is not None else ()
    if not words or side not in step.waited(st, sc):
        return []
    forms = forms_of(rules)
    out: list[str] = []
    for w in words:
        for f in forms:
            if f.word == w and f.choices is not None and f.for_side(side) and f.shown(st, sc):
                out += f.choices(st, sc, side)
    return out


def form_words(rules, side: str | None = None, st=None, sc=None) -> set[str]:
    """The words the game's forms cover (for ``side``; shown in ``st`` when it is given)."""
    return {w for f in forms_of(rules)
            if (side is None or f.for_side(side)) and (st is None or f.shown(st, sc)) for w in f.words}
