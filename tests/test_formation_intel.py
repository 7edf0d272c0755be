"""Limited intelligence (5.3.4) in every view a side is given: state, log export,
report text and map — the enemy stack's top unit only (everything beneath an HQ),
printed strengths only, no enemy standing order, no paused mover's remaining path."""
from __future__ import annotations

import json

import pytest

from conftest import one
from formation_helpers import hq, unit
from pbem.games.formation import events as E
from pbem.games.formation.intel import order_text, unit_row
from pbem.report.render import report_svg, report_text
from pbem.views import log_view, state_view

RIDGE = [{"a": "0705", "b": "0804", "feature": "ridge"}]


def units_():
    return [hq("A-HQ", "axis", "0203", formation="A"),
            unit("Apz", "axis", "0304", formation="A", category="tank", movement="mot", tank=3, afv=True, ma=8),
            unit("Zsecret", "axis", "0304", formation="A", category="mot-infantry", movement="mot", ma=8),
            hq("B-HQ", "allied", "0903", formation="B"),
            unit("B1", "allied", "0804", formation="B", category="infantry", at=1, ma=4),
            unit("B2", "allied", "0902", formation="B", category="tank", movement="mot", tank=2, afv=True, ma=8)]


@pytest.fixture
def game(tmp_path, fixed_clock):
    from formation_helpers import make
    return make(tmp_path, units_(), dice=[9] * 6, hexsides=RIDGE)


def everything(t, side: str) -> str:
    g = t.game
    st = g.state()
    entries = g.entries()
    head = g.head()
    parts = [json.dumps(state_view(g, st, side, head)), json.dumps(log_view(entries, side, g.rules)),
             report_text(g, side, st, entries, -1, head), report_svg(g, side, st, entries, -1, head)]
    return "\n".join(parts)


def test_only_the_top_unit_of_an_enemy_stack_in_everything_a_side_receives(game):
    t = game
    t.ok("axis", "doctrine reaction never")
    t.ok("allied", "doctrine reaction ask")
    t.ok("axis", "activate A")
    evs = t.ok("axis", "move Apz+Zsecret 0404 0504 0604 0705 0706")
    p = one(evs, E.ReactionPaused)
    assert p.units == ["Apz", "Zsecret"] and p.rest == ["0706"]
    allied = everything(t, "allied")
    assert "Zsecret" not in allied                                    # beneath the top unit
    assert "Apz" in allied
    log = json.dumps(log_view(t.game.entries(), "allied", t.game.rules))
    assert "0706" not in log                                           # the paused mover's remaining path
    aw = state_view(t.game, t.state(), "allied")["awaiting"][0]
    assert "rest" not in aw and aw["units"] == ["Apz"]
    assert "reaction never" not in allied and "(standing order)" in allied
    t.ok("allied", "pass")
    allied = everything(t, "allied")
    assert "Zsecret" not in allied
    rows = {r["id"]: r for r in state_view(t.game, t.state(), "allied")["units"]}
    assert rows["Apz"]["beneath"] == 1 and "Zsecret" not in rows
    axis = everything(t, "axis")
    assert "Zsecret" in axis                                           # the owner sees its own stack


def test_beneath_an_hq_everything_and_printed_strength_only(game):
    t = game
    st, sc = t.state(), t.game.scenario
    st.units["Apz"].hex = st.units["Zsecret"].hex = "0203"             # under the HQ
    st.units["Apz"].strength = 1
    row = {"id": "Apz", "side": "axis", "hex": "0203", "strength": 1, "status": ["moved"]}
    seen = unit_row(st, sc, st.units["Apz"], row, "allied")
    assert seen["strength"] == 4 and seen["status"] == []               # the printed strength, no markers
    z = unit_row(st, sc, st.units["Zsecret"], dict(row, id="Zsecret"), "allied")
    assert z is not None                                                # an HQ on top: inspect beneath it


def test_order_texts_of_the_other_side_are_masked():
    assert order_text("move Apz+Zsecret 0404 0504") == "move Apz (path)"
    assert order_text("attack 0805 with Apz Zsecret regular") == "attack 0805 with (units)"
    assert order_text("doctrine snafu combat 9") == "doctrine snafu (standing order)"
    assert order_text("refit Zsecret") == "refit (a unit)"


# --- the example games: what each side receives, step by step ------------------------------

from pathlib import Path  # noqa: E402

import tomllib  # noqa: E402

from pbem.engine import Game  # noqa: E402
from pbem.games.formation.board import is_hq  # noqa: E402
from pbem.games.formation.intel import _combat_reveal, top_unit  # noqa: E402

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"
MIRAGES = sorted(p.name for p in EXAMPLES.glob("mirages-*") if (p / "playbook.toml").is_file())


def hidden_from(st, sc, viewer: str) -> set[str]:
    """Enemy units beneath the top of their stack (not under an HQ, not shown by a combat);
    the top unit of a moving stack, seen as it moves, is not hidden while its move waits."""
    moving = st.fm.paused.units[0] if st.fm.paused is not None else ""
    out = set()
    for u in st.units.values():
        if u.id == moving:
            continue
        if u.side == viewer or u.hex is None or u.eliminated:
            continue
        top = top_unit(st, sc, u.hex, u.side)
        if u.id != top and not is_hq(sc, top) and not _combat_reveal(st, u, viewer):
            out.add(u.id)
    return out


@pytest.mark.parametrize("example", MIRAGES)
def test_example_game_never_shows_a_hidden_unit(example, tmp_path, fixed_clock):
    # 5.3.4 over a whole example game: after every message, each side's state and map
    folder = EXAMPLES / example
    book = tomllib.loads((folder / "playbook.toml").read_text())
    g = Game.create(tmp_path / "g", book["scenario"], book.get("players", {}), seed_hex=book.get("seed"),
                    dice=book.get("dice"), game_id=book.get("id"))
    sides = g.scenario.side_ids()
    checked = 0
    for step in book["steps"]:
        side = next(s for s in sides if s in step)
        sub = g.submit(side, (folder / step).read_text())
        assert sub.refused is None, f"{step}: {sub.refused}"
        st, entries, head = g.state(), g.entries(), g.head()
        for viewer in sides:
            hidden = hidden_from(st, g.scenario, viewer)
            seen = json.dumps(state_view(g, st, viewer, head)) + report_svg(g, viewer, st, entries, st.seq - 1, head)
            leaked = [u for u in hidden if f'"{u}"' in seen or f">{u}<" in seen]
            assert not leaked, f"{step}: {viewer} sees {leaked}"
            checked += len(hidden)
    assert checked, "no unit was ever hidden: the check saw nothing"
    assert g.state().result is not None
