"""Red Devils 9.7: the Polish drop zones are a sealed British secret.  Everything the
German player can receive before the reveal on turn 9 is rendered and searched."""
from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from pbem.core import events as E
from pbem.report import render
from pbem.cli import main
from pbem.engine import Game
from pbem.core.orders import OrderError, Unveil
from pbem.core.ruleset import Ctx
from pbem.views import log_view, state_view

AT = "2026-01-01T00:00:00Z"
SEED = "5e" * 32
ZONES = "1716 2617"
SETUP = f"place 1Border 0906\nplace 7KOSB 1105\nplace Recce 0708\nsecret polish-dz {ZONES}\nend\n"


def drive(g: Game, stop) -> None:
    """Play every side's documented default until ``stop(state)`` is true."""
    for _ in range(2000):
        st = g.state()
        if stop(st) or st.result:
            return
        aw = g.rules.awaiting(st, g.scenario)
        side = aw[0]["side"]
        sub = g.submit(side, "\n".join(g.rules.default_orders(st, g.scenario, side)), at=AT, by="deadline")
        assert sub.refused is None, sub.refused
    raise AssertionError("did not stop")


def everything_german_sees(g: Game) -> tuple[str, str]:
    """(text outputs, the SVG map) the German side may receive."""
    entries = g.entries()
    st = g.state()
    head = entries[-1].hash
    eml = render.report_eml(g, "german", st, entries, 0, head)
    text = [
        json.dumps(log_view(entries, "german", g.rules)),
        json.dumps(state_view(g, st, "german", head)),
        render.report_text(g, "german", st, entries, 0, head),
        eml.get_body(("plain",)).get_content(),
        str(eml["Subject"]),
        CliRunner().invoke(main, ["log", str(g.dir), "--as", "german"]).output,
        CliRunner().invoke(main, ["log", str(g.dir), "--as", "german", "--json"]).output,
        CliRunner().invoke(main, ["report", str(g.dir), "--as", "german", "--since", "0"]).output,
        CliRunner().invoke(main, ["state", str(g.dir), "--as", "german", "--json"]).output,
    ]
    svg = render.report_svg(g, "german", st, entries, 0, head)
    return "\n".join(text), svg + bytes(eml).decode("utf-8", "replace")


@pytest.fixture
def game(tmp_path):
    g = Game.create(tmp_path / "g", "red-devils", seed_hex=SEED, game_id="rd-secret", at=AT)
    sub = g.submit("british", SETUP, at=AT)
    assert sub.refused is None, sub.refused
    return g


def test_polish_zones_never_reach_the_german_before_turn_9(game):
    # 9.7: seal before play; nothing the German side receives before the reveal names the zones
    rec = next(e.event for e in game.entries() if isinstance(e.event, E.SecretRecorded))
    checkpoints = [lambda st: True, lambda st: st.turn >= 5,
                   lambda st: st.turn == 9 and st.phase == 1]           # the turn-9 British movement phase
    for stop in checkpoints:
        drive(game, stop)
        text, pictures = everything_german_sees(game)
        for secret in (ZONES, rec.salt):
            assert secret not in text and secret not in pictures
        for h in ZONES.split():
            assert h not in text, f"{h} leaked"                 # the map prints every hex number, so text only
        assert rec.commitment in text                          # the commitment itself is public
    # the game now waits for the reveal
    aw = game.rules.awaiting(game.state(), game.scenario)[0]
    assert aw["side"] == "british" and "unveil polish-dz" in aw["order"]


def test_reveal_on_turn_9_is_checked_and_the_poles_land_in_one_zone(game):
    sub = game.submit("british", "unveil polish-dz", at=AT)
    assert sub.refused is not None and sub.refused.rule == "9.7"          # not before turn 9
    drive(game, lambda st: st.turn == 9 and st.phase == 1)
    sub = game.submit("british", "land 1Pol 1715", at=AT)
    assert sub.refused is not None and "unveil" in sub.refused.message    # 9.8: no landing, no delay, first the reveal
    assert game.submit("british", "unveil polish-dz", at=AT).refused is None
    text, _ = everything_german_sees(game)
    assert ZONES in text                                                  # revealed to everybody now
    assert game.submit("british", "land 1Pol 1715", at=AT).refused is None
    sub = game.submit("british", "land 2Pol 2616", at=AT)                 # the other zone: refused
    assert sub.refused is not None and sub.refused.rule == "9.7"
    assert game.verify().ok


def test_tampered_secret_record_fails_the_check(game):
    drive(game, lambda st: st.turn == 9 and st.phase == 1)
    st = game.state()
    rec = game.secret_records()["british:polish-dz"]
    forged = E.SecretRecorded(side="british", name="polish-dz", commitment=rec.commitment, salt=rec.salt,
                              payload="0708 0906")
    ctx = Ctx(game.rules, st, game.scenario, "british", dice=None)
    ctx.secret_records = {"british:polish-dz": forged}
    with pytest.raises(OrderError, match="commitment"):
        game.rules.check_sealed(ctx, Unveil(name="polish-dz"))


def test_zones_need_four_landing_hexes_and_are_sealed_before_play(tmp_path):
    g = Game.create(tmp_path / "g2", "red-devils", seed_hex=SEED, game_id="rd-secret2", at=AT)
    sc = g.scenario
    bad = next(h for h in sc.board.grid.all_hexes() if len(g.rules.landing_hexes(sc, h, ignore_units=True)) < 4)
    sub = g.submit("british", f"secret polish-dz {bad} 1716", at=AT)
    assert sub.refused is not None and sub.refused.rule == "9.7" and "four" in sub.refused.message
    sub = g.submit("british", "end", at=AT)
    assert sub.refused is not None and sub.refused.rule == "9.7"         # no play without the sealed zones
    assert g.submit("german", "secret polish-dz 1716 2617", at=AT).refused.rule == "9.7"
