"""The host's mail path of issue 29 reads the log's tail, not the whole log, and
gives the reports the whole log gives (correctness only: the figures come from
tests/benchmark_host.py).

- ``views._marked`` (the search for the lines before a report's tail that may hold
  a unit's last move) finds exactly the lines a line-by-line scan finds, whatever
  the block size and wherever a line straddles two blocks;
- an order mail's answer and reports read ``views.report_entries`` from the
  earliest of the viewers' last reports: a game whose log is padded with press
  between a unit's last move and the mail gets the reports the whole log gives.
"""
from __future__ import annotations

import random

import pytest

from pbem import views


def _naive(lines: list[bytes], marks) -> list[tuple[int, bytes]]:
    return [(k, ln) for k, ln in reversed(list(enumerate(lines))) if any(m in ln for m in marks)]


@pytest.mark.parametrize("chunk", [7, 64, 1000, 1 << 20])
def test_the_marked_lines_before_the_tail_are_those_a_line_by_line_scan_finds(tmp_path, chunk):
    rng = random.Random(chunk)
    words = [b'{"kind":"UnitMoved","unit":"A","path":["0101"]}', b'{"kind":"PressSent","text":"hi"}',
             b'{"text":"a \\\\"quote\\\\""}', b"x" * 150, b'{"path":[]}']
    lines = [rng.choice(words) + str(i).encode() for i in range(400)]
    path = tmp_path / "log.jsonl"
    path.write_bytes(b"".join(ln + b"\n" for ln in lines))
    marks = (b'"path"', b"\\")
    for cut in (len(lines), 250, 1, 0):
        end = sum(len(ln) + 1 for ln in lines[:cut])
        got = list(views._marked(path, end, cut - 1, marks, chunk=chunk))
        assert got == _naive(lines[:cut], marks)


def test_an_order_mail_reads_the_tail_and_reports_what_the_whole_log_gives(tmp_path, monkeypatch):
    import sys
    from pathlib import Path
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    import benchmark_host as BH
    from pbem.engine import Game
    from pbem.report import render
    monkeypatch.setenv("PBEM_CLOCK", BH.AT)
    host = BH.make_host(tmp_path / "host")
    cfg = (tmp_path / "host" / "pbem-host.toml").read_text().replace("map_png = true", "map_png = false")
    (tmp_path / "host" / "pbem-host.toml").write_text(cfg)
    host = type(host).open(tmp_path / "host")
    g = BH.new_game(host, "el-alamein", "g")
    host.welcome(g)
    steps = BH.book("el-alamein")["steps"]
    for step in steps[:4]:
        assert g.submit(BH.side_of(g, step), (BH.EXAMPLES / "el-alamein" / step).read_text(), at=BH.AT).refused is None
    BH.pad_press(g, "british", 3000)
    g = Game(g.dir)
    for s in g.scenario.side_ids():
        g.mark_reported(s, g.head()[0])
    read = []
    plain = Game.entries
    monkeypatch.setattr(Game, "entries", lambda self, *a, **k: read.append(1) or plain(self, *a, **k))
    texts = {}
    seen = render.report_text

    def keep(game, side, st, entries, since, head, **kw):           # kw: the mail's shared Turn
        texts[side] = (seen(game, side, st, entries, since, head, **kw),
                       seen(game, side, st, plain(game), since, head))
        return texts[side][0]
    monkeypatch.setattr(render, "report_text", keep)
    BH._deliver(host, BH.order_mail(g, "british", (BH.EXAMPLES / "el-alamein" / steps[4]).read_text(), "m@bench"))
    assert [o.status for o in host.poll()] == ["accepted"]
    assert read == [] and set(texts) >= {"british", "axis"}
    for side, (tail, whole) in texts.items():
        assert tail == whole, side
