"""Issue 24, items 5, 6 and 10: press and the lines of orders.  Control characters
never reach the other side or a terminal (5); a line is one thing everywhere, so
a press line cannot hide an order (6); press is bounded per mail and per step,
and every mail the host sends stays under its configured size (10)."""
from __future__ import annotations

import re

import pytest
from click.testing import CliRunner

from mail_helpers import AXIS, BRITISH, CLOCK, deliver, make_host, message, new_game, outbox, parse, secret, \
    text_of
from pbem import staging
from pbem.cli import main
from pbem.engine import Game
from pbem.host import Host
from pbem.host import mail as M
from pbem.log import EventLog

DICE = [5, 3, 2, 4, 1, 6, 3, 3, 2, 5, 4, 1]
HOSTILE = "\x1b[2J\x1b]0;pwned\x07 back\x08\x08\x08 \u202eevil\u202c \x9b31m"
KEPT = "Achtung! Größe, naïve café, 日本語, Ελληνικά, עברית ✓"


@pytest.fixture(autouse=True)
def fixed_clock(monkeypatch):
    monkeypatch.setenv("PBEM_CLOCK", CLOCK)
    monkeypatch.delenv("PBEM_HOST", raising=False)


@pytest.fixture
def host(tmp_path) -> Host:
    return make_host(tmp_path / "host")


@pytest.fixture
def game(host) -> Game:
    return new_game(host, dice=DICE)


def mail(host, game, body, mid, side="axis"):
    deliver(host, message(AXIS if side == "axis" else BRITISH, f"Token: {secret(game, side)}\n{body}", mid=mid))
    return host.poll()


def run(*args, input=None):
    return CliRunner().invoke(main, [str(a) for a in args], input=input, catch_exceptions=False)


def kinds(g) -> list[str]:
    return [en.kind for en in Game(g.dir if hasattr(g, "dir") else g).entries()]


def order_texts(g) -> list[str]:
    return [en.event.text for en in Game(g.dir if hasattr(g, "dir") else g).entries() if en.kind == "OrderGiven"]


UNSEEN = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]")


# --- 6. one definition of a line ------------------------------------------------------------

@pytest.mark.parametrize("brk", ["\x1c", "\x1d", "\x1e", "\x85", "\u2028", "\u2029", "\x0b", "\x0c"])
def test_a_press_line_in_a_draft_mail_cannot_hide_an_end(host, game, brk):
    [oc] = mail(host, game, f"DRAFT\npress hello{brk}end\n", "d1@example.org")
    assert oc.status == "checked", oc                 # a DRAFT without orders: its press goes, nothing is held
    assert "end" not in order_texts(game) and kinds(game).count("PhaseStarted") == 1   # still the first phase
    said = [en.event.text for en in Game(game.dir).entries() if en.kind == "PressSent"]
    assert said == ["hello end"]                      # one press line, the break read as a space


def test_a_flowed_mail_is_split_at_line_breaks_only(host, game):
    raw = (f"From: {AXIS}\r\nTo: referee@club.example\r\nSubject: [pbem g1] orders\r\nMessage-ID: <f1@x>\r\n"
           "MIME-Version: 1.0\r\nContent-Type: text/plain; charset=utf-8; format=flowed\r\n"
           "Content-Transfer-Encoding: 8bit\r\n\r\n"
           f"Token: {secret(game, 'axis')}\r\npress see you\u2028end\r\n").encode()
    deliver(host, raw)
    [oc] = host.poll()
    assert oc.status == "accepted", oc
    assert order_texts(game) == ["press see you end"]


def test_the_cli_and_staging_read_the_same_lines(tmp_path):
    g = tmp_path / "g"
    assert run("new", g, "--scenario", "el-alamein", "--dice", "5,3,2,4,1,6", "--id", "ln").exit_code == 0
    r = run("order", g, "--as", "axis", "-", input="press one\u2028end\n")
    assert r.exit_code == 0 and order_texts(g) == ["press one end"]
    r = run("order", g, "--as", "axis", "--stage", "-", input="press two\x1cend\n")
    assert r.exit_code == 0 and "would apply  line 1: press two end" in r.output
    assert "end" not in r.output.replace("two end", "")          # the check saw no `end` line
    assert run("order", g, "--as", "axis", "--final").exit_code == 0
    assert order_texts(g) == ["press one end", "press two end"]
    assert Game(g).state().phase == 0 and staging.staged(Game(g), "axis") is None


# --- 5. control characters ----------------------------------------------------------------

def test_press_control_characters_never_reach_the_other_side(host, game):
    [oc] = mail(host, game, f"press {HOSTILE} {KEPT}\n", "p1@example.org")
    assert oc.status == "accepted", oc
    [said] = [en.event.text for en in Game(game.dir).entries() if en.kind == "PressSent"]
    assert not UNSEEN.search(said) and KEPT in said and "[2J" in said      # defused, visible, kept
    to_british = [m for _n, m in outbox(host) if str(m["To"]) == BRITISH]
    assert to_british and all(not UNSEEN.search(text_of(m)) for m in to_british)
    assert KEPT in text_of(to_british[-1])
    for _n, m in outbox(host):                                    # nobody gets them, the sender neither
        assert not UNSEEN.search(text_of(m))


def test_report_and_log_escape_control_characters_of_an_old_log(tmp_path):
    g = tmp_path / "g"
    assert run("new", g, "--scenario", "el-alamein", "--dice", "5,3,2,4,1,6", "--id", "old").exit_code == 0
    # as a pbem before the fix wrote it: the raw text in OrderGiven and PressSent
    log = EventLog(g / "log.jsonl")
    log.append_many([("OrderGiven", {"side": "axis", "text": f"press {HOSTILE}"}),
                     ("PressSent", {"side": "axis", "text": HOSTILE})], at=CLOCK)
    for args in (("log", g), ("report", g, "--as", "british", "--since", "0")):
        r = run(*args)
        assert r.exit_code == 0, r.output
        assert not UNSEEN.search(r.output), args
        assert "\\x1b[2J" in r.output and "\\u202eevil" in r.output


# --- 10. press size and mail size ---------------------------------------------------------

def test_press_is_bounded_per_mail(host, game):
    before = (game.dir / "log.jsonl").read_bytes()
    n_british = sum(str(m["To"]) == BRITISH for _n, m in outbox(host))
    body = "".join(f"press {'x' * 1990} {i}\n" for i in range(15))       # 15 press lines, ~30,000 characters
    [oc] = mail(host, game, body, "big@example.org")
    assert oc.status == "refused" and "at most 10,000 a mail" in oc.detail, oc
    assert (game.dir / "log.jsonl").read_bytes() == before
    assert sum(str(m["To"]) == BRITISH for _n, m in outbox(host)) == n_british   # nothing went to the other side


def test_press_is_bounded_per_side_and_step(host, game):
    eight = "".join(f"press {c * 2000}\n" for c in "abcd")           # 8,000 characters: under the mail's bound
    for i in range(3):
        [oc] = mail(host, game, eight, f"s{i}@example.org")
        assert oc.status == "accepted", oc
    [oc] = mail(host, game, eight, "s3@example.org")
    assert oc.status == "refused" and "at most 30,000 a side and step" in oc.detail, oc
    [oc] = mail(host, game, "press a short one\n", "s4@example.org")       # what is left still goes
    assert oc.status == "accepted"
    [oc] = mail(host, game, eight, "b1@example.org", side="british")       # the other side has its own
    assert oc.status == "accepted"
    # a new step starts the count again
    [oc] = mail(host, game, "end\n", "s5@example.org")
    [oc] = mail(host, game, eight, "s6@example.org")
    assert oc.status == "accepted", oc


def test_every_outgoing_mail_stays_under_the_configured_size(tmp_path):
    root = tmp_path / "h"
    make_host(root, map_png=True)
    cfg = (root / "pbem-host.toml").read_text().replace('map_svg = "final"', "map_svg = true")
    (root / "pbem-host.toml").write_text(cfg.replace("max_bytes = 1000000", 'max_bytes = "40KB"'))
    host = Host.open(root)
    game = new_game(host, dice=DICE)
    mail(host, game, "move 8Pz 0612 0712 0812\nend\n", "o1@example.org")
    files = sorted(host.outbox_path.glob("*.eml"))
    assert files and all(len(f.read_bytes()) <= 40_000 for f in files)
    said = [text_of(parse(f.read_bytes())) for f in files]
    assert any("left out" in t and "to keep this mail under 40,000 bytes" in t for t in said)


def test_a_long_text_is_cut_to_fit_and_says_so():
    def make(body, atts):
        return M.build("h@x.example", "p@x.example", "s", body, message_id="m@x", attachments=atts)
    atts = [M.Attachment(b"\x89PNG" + b"\x00" * 50_000, "image", "png", "map.png")]
    from pbem.host.spool import within
    data = within(30_000, make, "report line\n" * 20_000, atts)
    msg = parse(data)
    assert len(data) <= 30_000
    body = msg.get_body(("plain",)).get_content()
    assert body.startswith("report line\n") and "left out map.png and cut the last" in body
    assert not list(msg.iter_attachments())
