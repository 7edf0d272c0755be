"""Issue 16, found in review as a player would: a CHECK of a mail with a
misspelt order lists every line it would not apply, greetings get no silly
"did you mean", long order syntax keeps its meaning readable, MAP SVG brings
the SVG map with an answer, orders cannot be staged while the game waits for
the other side only.  Mail goes through a real Maildir and a real SMTP server."""
from __future__ import annotations

import subprocess
import sys

import pytest

from mail_helpers import AXIS, BRITISH, CLOCK, SmtpCapture, deliver, make_host, message, new_game, parse, secret
from mail_helpers import text_of as _text_of
from pbem import staging
from pbem.engine import Game
from pbem.host import mailcmd

DICE = [5, 3, 2, 4, 1, 6, 3, 3, 2, 5, 4, 1]


def text_of(msg) -> str:
    return _text_of(msg).replace("\r\n", "\n")


@pytest.fixture(autouse=True)
def fixed_clock(monkeypatch):
    monkeypatch.setenv("PBEM_CLOCK", CLOCK)
    monkeypatch.delenv("PBEM_HOST", raising=False)


def _play(tmp_path, mails, map_png=False):
    """Each (side, body, subject) mailed through the inbox, one poll each; the answers in order."""
    with SmtpCapture() as smtp:
        host = make_host(tmp_path / "h", smtp_port=smtp.port, map_png=map_png)
        game = new_game(host, dice=DICE)
        for i, (side, body, subject) in enumerate(mails):
            sender = AXIS if side == "axis" else BRITISH
            deliver(host, message(sender, f"Token: {secret(game, side)}\n{body}", subject=subject,
                                  mid=f"r{i}@example.org"))
            host.poll()
        sent = [parse(raw) for _f, _r, raw in smtp.messages]
    got = {str(m["In-Reply-To"]): m for m in sent if m["X-pbem-Kind"] == "answer"}
    return game, [got[f"<r{i}@example.org>"] for i in range(len(mails))]


def _attachments(m) -> list[str]:
    return [p.get_content_type() for p in m.iter_attachments()]


def test_check_of_a_mail_with_a_misspelt_order_lists_every_line_not_applied(tmp_path):
    body = "Dear referee,\nmove 8Pz 0612 0712 0812\nmvoe 5Pz 0512 0612\nmove 104 0512 0611\nBest regards,\n"
    _game, [a] = _play(tmp_path, [("axis", body, "[pbem g1] CHECK")])
    t = text_of(a)
    assert a["X-pbem-Outcome"] == "checked"
    assert "would REFUSE line 4: unknown order 'mvoe'" in t
    # a line that is no order refuses the whole batch: the line before it is not applied either
    assert "not applied  move 8Pz 0612 0712 0812" in t
    assert "not applied  move 104 0512 0611" in t
    assert "not applied  mvoe" not in t                       # named once, as the refused line


def test_greetings_get_no_far_fetched_hint_but_near_misses_do(tmp_path):
    body = "Dear referee,\nBest regards,\nhere are my orders\nstatsu please\n"
    _game, [a] = _play(tmp_path, [("axis", body, "[pbem g1] orders")])
    ignored = {ln.split(":", 1)[1].strip() for ln in text_of(a).split("Ignored (not orders, not commands):\n")[1]
               .split("\n\n")[0].splitlines()}
    assert ignored == {"Dear referee,", "Best regards,", "here are my orders",
                       "statsu please    (did you mean STATUS?)"}


def test_a_long_order_syntax_puts_its_meaning_on_the_next_row():
    short = mailcmd.align("end    end this phase")
    long_ = mailcmd.align("doctrine ca|re-roll [UNIT|HEX] ANSWER    a standing answer to Ca choices (10.5)")
    assert short == [f"{'end':<34} end this phase"]
    assert long_ == ["doctrine ca|re-roll [UNIT|HEX] ANSWER", f"{'':<34} a standing answer to Ca choices (10.5)"]


def test_map_svg_line_or_subject_word_brings_the_svg_and_help_says_so(tmp_path):
    mails = [("axis", "HELP\n", "[pbem g1] orders"),
             ("axis", "MAP SVG\nSTATUS\n", "[pbem g1] orders"),
             ("axis", "move 8Pz 0612 0712\n", "[pbem g1] SVG orders"),
             ("axis", "map svg\nmove 8Pz 0101\n", "[pbem g1] orders")]
    _game, (plain, line, subject, refused) = _play(tmp_path, mails, map_png=True)
    assert "MAP SVG             this answer carries the map as SVG too" in text_of(plain)
    assert _attachments(plain) == ["image/png"]
    for a in (line, subject):
        assert a["X-pbem-Outcome"] == "accepted", text_of(a)
        assert _attachments(a) == ["image/png", "image/svg+xml"]
        assert "The map is attached as SVG too" in text_of(a)
    assert str(subject["Subject"]) == "ACCEPTED: Re: [pbem g1] orders"    # the reply does not ask again
    assert refused["X-pbem-Outcome"] == "refused" and _attachments(refused) == []
    assert "A refusal carries no map" in text_of(refused)


def test_draft_while_the_game_waits_for_the_other_side_is_not_held(tmp_path):
    game, [a] = _play(tmp_path, [("british", "DRAFT\nmove 4LtArm 1013 1012\n", "[pbem g1] orders")])
    t = text_of(a)
    assert a["X-pbem-Outcome"] != "staged" and "STAGED" not in t.split("\n")[0]
    assert "NOT STAGED: the game waits for German-Italian now" in " ".join(t.split())
    assert staging.staged(Game(game.dir), "british") is None


def test_cli_stage_while_the_game_waits_for_the_other_side_is_refused(tmp_path):
    gdir = tmp_path / "g"
    subprocess.run([sys.executable, "-m", "pbem", "new", str(gdir), "--scenario", "el-alamein"], check=True,
                   capture_output=True)
    r = subprocess.run([sys.executable, "-m", "pbem", "order", str(gdir), "--as", "british", "--stage", "-"],
                       input="move 4LtArm 1013 1012\n", text=True, capture_output=True)
    assert r.returncode == 1 and "NOT STAGED" in r.stderr and "staged:" not in r.stdout
    assert staging.staged(Game(gdir), "british") is None
    r = subprocess.run([sys.executable, "-m", "pbem", "order", str(gdir), "--as", "axis", "--stage", "-"],
                       input="move 8Pz 0612 0712\n", text=True, capture_output=True)
    assert r.returncode == 0 and staging.staged(Game(gdir), "axis") is not None
