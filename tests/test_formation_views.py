"""Mirages: formations everywhere and big boards that can be read (issue 27).

Every decision of the Ops Phase is "activate FORMATION, then act with its units"
(6.4, 7.2; only the active formation's units may act, 5.5.1): each unit's formation
(3.2 b, printed on the counter) is in ``pbem state --json``, the SITUATION table and
on the counter as a colour band with a legend, as far as limited intelligence lets a
side see the unit (5.3.4: an enemy stack's top unit only); HELP and WAITING FOR list
the active formation's units with their AP costs (7.0, doubled out of command, 5.8.3);
the report has a score line.  The 2,260-pixel Mirages board goes by mail as a readable
close-up of the step plus the whole board (report/closeup.py)."""
from __future__ import annotations

from pbem.core.turn import Turn

import io
import json
import re
from email import policy

import pytest
from click.testing import CliRunner

from formation_helpers import hq, make, unit
from pbem.cli import main
from pbem.engine import Game
from pbem.report import closeup, render
from pbem.views import state_view

CLOCK = "2026-01-01T00:00:00Z"


def units_():
    return [hq("A-HQ", "axis", "0203", formation="A"),
            unit("Apz", "axis", "0304", formation="A", category="tank", movement="mot", tank=3, afv=True, ma=8),
            unit("Zsecret", "axis", "0304", formation="A", category="mot-infantry", movement="mot", ma=8),
            unit("Afar", "axis", "0208", formation="A", ma=4),            # 5 hexes from its HQ: out of command
            unit("Fort", "axis", "0101", formation="", category="static", static=True, ma=0),
            hq("B-HQ", "allied", "0903", formation="B"),
            unit("B1", "allied", "0804", formation="B", category="infantry", at=1, ma=4),
            unit("B2", "allied", "0902", formation="B", category="tank", movement="mot", tank=2, afv=True, ma=8)]


@pytest.fixture
def game(tmp_path, fixed_clock):
    return make(tmp_path, units_(), dice=[9] * 12)


def rows(t, side):
    return {r["id"]: r for r in state_view(t.game, t.state(), side)["units"]}


def test_state_json_gives_each_unit_its_formation_as_far_as_the_side_may_see_it(game):
    t = game
    r = CliRunner().invoke(main, ["state", str(t.game.dir), "--as", "allied", "--json"])
    assert r.exit_code == 0, r.output
    allied = {u["id"]: u for u in json.loads(r.output)["units"]}
    assert allied["B1"]["formation"] == "B" and allied["B-HQ"]["formation"] == "B"       # its own, HQ included
    assert allied["Apz"]["formation"] == "A"                    # 5.3.4: the enemy stack's top unit is seen
    assert "Zsecret" not in allied                              # beneath it: nothing, not even its formation
    assert allied["Fort"]["formation"] == ""                    # 3.2.1: a static unit belongs to none
    ref = rows(t, "referee")
    assert ref["Zsecret"]["formation"] == "A" and ref["Afar"]["formation"] == "A"


def test_situation_has_a_formation_column_and_a_score_line(game):
    t = game
    g, st = t.game, t.state()
    entries = g.entries()
    text = render.report_text(g, "allied", st, entries, -1, entries[-1].hash)
    situation = text.split("SITUATION", 1)[1]
    assert "  Score: Commonwealth 0 VP (turn 1 range 0-10)" in situation       # 16: VPs against the turn's range
    line = next(ln for ln in situation.splitlines() if ln.strip().startswith("B1 "))
    assert re.search(r"infantry\s+B\b", line), line
    assert re.search(r"static\s+-", next(ln for ln in situation.splitlines() if ln.strip().startswith("Fort ")))
    assert "Zsecret" not in text


def test_help_lists_the_active_formations_units_with_their_ap_costs(game):
    t = game
    t.ok("axis", "doctrine reaction never")
    t.ok("allied", "doctrine reaction never")
    t.ok("axis", "activate A")
    g, st, sc = t.game, t.state(), t.game.scenario
    ap = st.fm.active.ap
    help_ = list(Turn(g.rules, sc, st).help("axis"))
    assert help_[0] == f"ACTIVE NOW: A is active with {ap} AP left. Only its units may act (5.5.1):"
    lines = {ln.split()[0]: ln for ln in help_[1:5]}
    assert set(lines) == {"A-HQ", "Apz", "Zsecret", "Afar"}
    assert "in command    move 1 AP, hasty attack 1 AP" in lines["Apz"]
    assert "OUT OF COMMAND (5.8.3)    move 2 AP, hasty attack 2 AP" in lines["Afar"]     # 5.8.3: double
    assert "move 1 AP (an HQ does not attack)" in lines["A-HQ"]
    assert help_[5].startswith("Action costs: move 1, hasty attack 1 (regular 2, prepared 3), refit 1")
    assert not any(ln.startswith("ACTIVE NOW") for ln in list(Turn(g.rules, sc, st).help("allied")))
    # the mail's HELP shows them, and the report's WAITING FOR lists the units to the active side only
    from pbem.host.mailcmd import help_lines
    assert any("Afar in 0208, OUT OF COMMAND" in ln for ln in help_lines(g, st, "axis"))
    mine = state_view(g, st, "axis")["awaiting"][0]
    assert mine["options"][0] == f"A has {ap} AP left; only its units may act (5.5.1):"
    assert "  Zsecret 0304: in command, move 1 AP, hasty attack 1 AP" in mine["options"]
    theirs = state_view(g, st, "allied")["awaiting"][0]
    assert "options" not in theirs and "Zsecret" not in json.dumps(theirs)


def test_counters_carry_a_formation_band_and_the_legend_names_the_formations(game):
    t = game
    g, st = t.game, t.state()
    entries = g.entries()
    svg = render.report_svg(g, "allied", st, entries, -1, entries[-1].hash)
    bands = dict(re.findall(r'data-unit="([^"]+)"[^>]*>\s*<rect[^>]*/>\s*<rect[^>]*/>\s*'
                            r'<rect class="formation-band" data-formation="([^"]*)"', svg))
    assert bands["Apz"] == "A" and bands["B1"] == "B" and bands["B-HQ"] == "B"
    assert "Zsecret" not in svg and "Fort" not in bands            # hidden; a static unit has no band
    colours = dict(re.findall(r'class="formation-band" data-formation="([^"]*)"[^>]*fill="([^"]+)"', svg))
    assert colours["A"] != colours["B"]
    legend = svg[svg.index('class="legend"'):]
    assert ">Formations</text>" in legend and ">A</text>" in legend and ">B</text>" in legend


# --- big boards ----------------------------------------------------------------------------------

def _pngs(atts):
    return [a for a in atts if a.subtype == "png"]


def test_a_mailed_mirages_map_shows_counter_labels_at_least_10_px_tall(tmp_path):
    """The whole 2,260-px board shrinks to 1,400 px (62 %): the close-up of the step is drawn at
    the scale where the smallest counter label is 10.5 px tall; measured as the SVG's font
    size of every unit id inside the close-up times the PNG's pixels per SVG unit."""
    from PIL import Image
    g = Game.create(tmp_path / "m", "mirages-brevity", {}, seed_hex="00" * 32, game_id="m", at=CLOCK)
    assert g.submit("allied", "activate 7armdbg", at=CLOCK).refused is None
    assert g.submit("allied", "move 2RTR 1913 1912", at=CLOCK).refused is None
    st, entries = g.state(), g.entries()
    head = entries[-1].hash
    drawing = render.report_svg(g, "allied", st, entries, 2, head)
    atts = render.map_attachments(g, "allied", st, entries, 2, head, width=1400)
    closeup_png, overview = _pngs(atts)
    assert closeup_png.filename.endswith("-closeup.png") and overview.filename.endswith("seq%d-allied.png" % st.seq)
    with Image.open(io.BytesIO(overview.data)) as im:
        assert im.size[0] == 1400                          # the whole board, as before
    with Image.open(io.BytesIO(closeup_png.data)) as im:
        x, y, w, h = map(float, im.text["pbem-viewbox"].split())
        scale = im.size[0] / w
        assert im.size[0] <= 1400 and im.size[1] <= closeup.CLOSEUP_HEIGHT
    labels = [(float(a), float(b), float(fs), t) for a, b, fs, t in
              re.findall(r'<text class="unit-id" x="([0-9.]+)" y="([0-9.]+)" font-size="([0-9.]+)"[^>]*>([^<]+)<',
                         drawing)]
    inside = [(fs, t) for a, b, fs, t in labels if x <= a <= x + w and y <= b <= y + h]
    assert len(inside) >= 8 and "2RTR" in {t for _, t in inside}          # the unit that moved is in it
    assert min(fs * scale for fs, _ in inside) >= 10, sorted(inside)[:3]
    # the overview alone would not do: its labels are under 7 px
    assert min(fs for *_, fs, _t in labels) * 1400 / closeup.svg_size(drawing)[0] < 7


def test_a_small_board_still_goes_as_one_picture(played_example):
    g = played_example("el-alamein").game()
    st, entries = g.state(), g.entries()
    atts = render.map_attachments(g, "axis", st, entries, st.seq - 3, entries[-1].hash, svg=False)
    assert [a.filename.endswith("-closeup.png") for a in atts] == [False]


def test_welcome_and_reports_of_a_big_board_say_map_svg_gives_the_sharp_map(tmp_path):
    from mail_helpers import deliver, make_host, message, new_game, outbox, secret
    host = make_host(tmp_path / "h", map_png=True)
    g = Game.create(host.cfg.games_dir / "g1", "mirages-brevity", {"axis": "a@example.org", "allied": "b@example.org"},
                    seed_hex="00" * 32, game_id="g1", at=CLOCK)
    host.welcome(g)
    deliver(host, message("b@example.org", f"Token: {secret(g, 'allied')}\nactivate 7armdbg\n"))
    host.poll()
    mails = [m for _n, m in outbox(host)]
    welcome = [m for m in mails if m["X-pbem-Kind"] == "welcome"]
    reports = [m for m in mails if m["X-pbem-Kind"] == "report"]
    assert len(welcome) == 2 and reports
    for m in welcome + reports:
        text = " ".join(m.get_body(("plain",)).get_content().split())
        assert "the first picture shows where this step happened" in text
        assert "Send MAP SVG for the whole map, sharp at any zoom." in text
        kinds = [(a.get_content_type(), a.get_filename()) for a in m.iter_attachments()]
        assert [k for k, _ in kinds] == ["image/png", "image/png"] and kinds[0][1].endswith("-closeup.png")
        assert len(m.as_bytes(policy=policy.SMTP)) < 600_000            # far under the host's 1 MB
    # a board that fits the PNG: one picture, no note
    new_game(host, "e1")
    small = [m for _n, m in outbox(host) if m["X-pbem-Kind"] == "welcome" and "e1" in str(m["Subject"])]
    assert small and all("MAP SVG for" not in m.get_body(("plain",)).get_content() for m in small)
    assert all(len(list(m.iter_attachments())) == 1 for m in small)
