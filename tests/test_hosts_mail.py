"""Report mails sized for a mail box (issue 16): one palette PNG no wider than
the host's map_width (the PNG itself: test_map_png.py), the SVG only when asked for or with the last report,
refusals without a map, and `pbem report --format eml` built the same way."""
from __future__ import annotations

import io
from email import policy
from email.parser import BytesParser

import pytest
from click.testing import CliRunner

from mail_helpers import AXIS, CLOCK, SmtpCapture, deliver, game_arg, make_host, message, new_game, parse, secret
from pbem.cli import main
from pbem.report import render

Image = pytest.importorskip("PIL.Image")
pytestmark = pytest.mark.usefixtures("store_kind")         # every test on files and on PostgreSQL (conftest)


@pytest.fixture(autouse=True)
def fixed_clock(monkeypatch):
    monkeypatch.setenv("PBEM_CLOCK", CLOCK)
    monkeypatch.delenv("PBEM_HOST", raising=False)


def _attachments(msg) -> list[str]:
    return [p.get_content_type() for p in msg.iter_attachments()]


def test_report_eml_attaches_the_png_and_the_svg_only_at_the_end(tmp_path):
    host = make_host(tmp_path / "h")
    g = new_game(host, "g1", dice=[5, 3] * 8)
    out = tmp_path / "r.eml"
    r = CliRunner().invoke(main, ["report", game_arg(g), "--as", "axis", "--since", "0", "--format", "eml",
                                  "-o", str(out)])
    assert r.exit_code == 0, r.output
    msg = BytesParser(policy=policy.default).parsebytes(out.read_bytes())
    assert _attachments(msg) == ["image/png"]
    png = next(msg.iter_attachments()).get_content()
    assert png[:8] == b"\x89PNG\r\n\x1a\n"
    entries, st = g.entries(), g.state()
    asked = render.report_eml(g, "axis", st, entries, 0, entries[-1].hash, svg=True)
    assert _attachments(asked) == ["image/png", "image/svg+xml"]
    st.result = type("R", (), {"winner": "axis"})()                   # a finished game: the final report
    assert render.wants_svg("final", st) and not render.wants_svg(False, st)


def test_a_report_mail_by_smtp_is_small_and_a_refusal_has_no_map(tmp_path):
    with SmtpCapture() as smtp:
        host = make_host(tmp_path / "host", smtp_port=smtp.port, map_png=True)
        g = new_game(host, "g1", dice=[5, 3, 2, 4] * 8)
        deliver(host, message(AXIS, f"Token: {secret(g, 'axis')}\nmove 8Pz 0612 0712 0812\nend\n",
                              mid="m1@example.org"))
        deliver(host, message(AXIS, f"Token: {secret(g, 'axis')}\nmove 8Pz 0101\n", mid="m2@example.org"))
        host.poll()
        sent = [(raw, parse(raw)) for _f, _r, raw in smtp.messages]
    welcome = [(raw, m) for raw, m in sent if m["X-pbem-Kind"] == "welcome"]
    answers = {str(m["In-Reply-To"]): (raw, m) for raw, m in sent if m["X-pbem-Kind"] == "answer"}
    assert welcome and len(answers) == 2
    for raw, m in welcome + [answers["<m1@example.org>"]]:
        assert _attachments(m) == ["image/png"], _attachments(m)
        assert len(raw) < 160_000, len(raw)                        # today's mails were ~430 KB
        png = next(m.iter_attachments()).get_content()
        with Image.open(io.BytesIO(png)) as im:
            assert im.mode == "P" and im.size[0] <= host.cfg.map_width
    raw, refusal = answers["<m2@example.org>"]
    assert refusal["X-pbem-Outcome"] == "refused" and _attachments(refusal) == []
    assert "0101" in refusal.get_body(("plain",)).get_content()
