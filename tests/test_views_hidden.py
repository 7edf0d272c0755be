"""The kernel's per-side unit and awaiting views: a game that hides units
(Ruleset.unit_row) or parts of what it waits for (Ruleset.awaiting_view) is
obeyed by every state a side is given; the referee and the owner see all."""
from __future__ import annotations

from pbem.views import state_view


def test_unit_row_hook_hides_and_masks_enemy_units_only(shipped_game, monkeypatch):
    t = shipped_game()
    g = t.game
    st = g.state()
    british = [u.id for u in st.units.values() if u.side == "british"]
    hidden, masked = british[0], british[1]

    def unit_row(state, sc, unit, row, viewer):
        if unit.id == hidden:
            return None
        if unit.id == masked:
            return {"id": "?", "side": row["side"], "hex": row["hex"]}
        return row
    monkeypatch.setattr(type(g.rules), "unit_row", lambda self, *a: unit_row(*a))

    axis = {r["id"]: r for r in state_view(g, st, "axis")["units"]}
    assert hidden not in axis and masked not in axis and "?" in axis
    assert "strength" not in axis["?"]
    for viewer in ("british", "referee"):
        rows = {r["id"]: r for r in state_view(g, st, viewer)["units"]}
        assert hidden in rows and masked in rows and rows[masked]["strength"] is not None


def test_awaiting_view_hook_filters_a_sides_view(shipped_game, monkeypatch):
    t = shipped_game()
    g = t.game
    st = g.state()
    full = g.rules.awaiting(st, g.scenario)
    assert full
    monkeypatch.setattr(type(g.rules), "awaiting_view", lambda self, state, sc, items, viewer: [])
    assert state_view(g, st, "axis")["awaiting"] == []
    assert state_view(g, st, "referee")["awaiting"] == full
