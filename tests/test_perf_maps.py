"""The map caches of issue 29 give the maps the plain code gives (correctness only:
the figures come from tests/benchmark_host.py and tests/benchmark.py):

- a board's static layers (terrain, links, roads, marks, battle positions, hexsides,
  hex numbers) are drawn once per scenario, and every map built on them is the map
  drawn from scratch, byte for byte;
- a map is drawn once per position and view: every viewer who sees the same units
  gets the same string, and a viewer who sees other units gets another map;
- the replay page stores each step's map as runs of the map before it, and the
  browser's rebuild of every step gives that step's map (``replay_page._delta``);
- the palette PNG is encoded at the measured zlib level, not with ``optimize``.
"""
from __future__ import annotations

import io

import pytest

from pbem.report import mapboard, mapsvg, png
from pbem.report.render import report_svg
from pbem.report.tilestore import Packed, TileStore


def _fresh(sc, *args, **kw) -> str:
    """The map drawn with every cache emptied first (the board drawn anew)."""
    mapboard._boards.clear()
    mapsvg._drawn.clear()
    mapsvg._counters.clear()
    return mapsvg._render_svg(sc, *args, **kw)


@pytest.mark.parametrize("name", ["el-alamein", "tobruk-salient", "mirages-compass"])
def test_maps_on_the_cached_board_are_the_maps_drawn_from_scratch(played_example, name):
    g = played_example(name).game()
    st, entries = g.state(), g.entries()
    head = entries[-1].hash
    for side in g.scenario.side_ids():
        for since in (0, st.seq // 2, st.seq - 5):
            got = report_svg(g, side, st, entries, since, head)
            again = report_svg(g, side, st, entries, since, head)
            assert again is got                           # drawn once for this position and view
            from pbem.report.marks import info_line, marks_for
            from pbem.report.render import board_moves, faces, shots_since
            from pbem.views import state_view
            view = state_view(g, st, side, head)
            marks = marks_for(g, st, side)
            title = got.split("<title>", 1)[1].split("</title>", 1)[0]
            moves, highlight = board_moves(g, side, st, view, entries, since)
            plain = _fresh(g.scenario, faces(g, st, view["units"], side), moves=moves, title=title,
                           highlight=highlight, marks=marks, info=info_line(view, marks, g.scenario),
                           shots=shots_since(g, st, entries, since, side))
            assert got == plain, (side, since)


def test_a_map_is_drawn_once_per_position_and_view_and_another_view_is_drawn_again(played_example, monkeypatch):
    drawn = []
    plain = mapsvg._render_svg
    monkeypatch.setattr(mapsvg, "_render_svg", lambda *a, **k: drawn.append(a[1]) or plain(*a, **k))
    mapsvg._drawn.clear()
    # El Alamein hides nothing: both sides and the referee see the same units, one drawing
    g = played_example("el-alamein").game()
    st, entries = g.state(), g.entries()
    head = entries[-1].hash
    maps = {side: report_svg(g, side, st, entries, st.seq - 3, head) for side in (*g.scenario.side_ids(), "referee")}
    assert len(drawn) == 1 and len(set(maps.values())) == 1
    # Tobruk's limited intelligence: each side sees its own units only, so each view is drawn
    drawn.clear()
    t = played_example("tobruk-salient").game()
    st, entries = t.state(), t.entries()
    sides = t.scenario.side_ids()
    maps = [report_svg(t, s, st, entries, st.seq - 3, entries[-1].hash) for s in sides]
    assert len(drawn) == len(sides) and len(set(maps)) == len(sides)
    # the same board drawn for another scenario never hands out the first one's map
    assert report_svg(g, "axis", g.state(), g.entries(), 0, head) != maps[0]


def test_the_palette_png_is_encoded_at_the_measured_level_not_optimized(monkeypatch):
    Image = pytest.importorskip("PIL.Image")
    saved = []
    plain = Image.Image.save

    def save(self, fp, format=None, **params):
        saved.append(params)
        return plain(self, fp, format, **params)
    monkeypatch.setattr(Image.Image, "save", save)
    png._png_cache.clear()
    svg = ('<svg xmlns="http://www.w3.org/2000/svg" width="300" height="200"><rect width="300" height="200" '
           'fill="#e8dcb0"/>' + "".join(f'<circle cx="{20 + i * 13}" cy="{40 + i * 7}" r="9" fill="#{i * 11:02x}6080"/>'
                                        for i in range(20)) + "</svg>")
    out = png.svg_to_png(svg)
    with Image.open(io.BytesIO(out)) as im:
        assert im.mode == "P"
    assert saved == [{"compress_level": png.COMPRESS_LEVEL}]


def _rebuild(prev: list[int], ops: list) -> list[int]:
    """What the page's script does with a step's ops (templates/replay.html.j2)."""
    out: list[int] = []
    for op in ops:
        out += prev[op[0]:op[0] + op[1]] if isinstance(op, list) else [op]
    return out


def test_each_replay_step_rebuilds_to_its_map_from_the_map_before():
    import random
    from pbem.referee.replay_page import _delta
    rng = random.Random(29)
    for _ in range(2000):
        prev = [rng.randrange(30) for _ in range(rng.randrange(0, 60))]     # repeated lines too ("</g>")
        cur = list(prev)
        for _ in range(rng.randrange(0, 8)):
            k = rng.randrange(len(cur) + 1)
            if rng.random() < 0.5 and cur:
                del cur[min(k, len(cur) - 1)]
            else:
                cur.insert(k, rng.randrange(40))
        ops = _delta(prev, cur)
        assert _rebuild(prev, ops) == cur
        if cur == prev and prev:
            assert len(ops) <= len(set(prev))                   # an unchanged map is a few runs, not its lines


def test_a_replay_page_stores_every_steps_map(played_example):
    from pbem.referee.replay_page import page_data
    from pbem.report.render import report_svg as plain_svg
    g = played_example("el-alamein").game()
    data = page_data(g, "axis")
    entries = g.entries()
    prev: list[int] = []
    for step in data["steps"]:
        prev = _rebuild(prev, step["svg"])
        if step["n"] % 9 == 0:
            st = g.state(step["to"])
            want = plain_svg(g, "axis", st, entries[:step["to"] + 1], step["from"] - 1 if step["from"] else step["to"],
                             entries[step["to"]].hash)
            assert "\n".join(data["lines"][i] for i in prev) == want


def test_a_map_drawn_a_tile_at_a_time_looks_as_the_map_drawn_whole(played_example):
    # The first map's board is drawn whole and cut into tiles, its items over it; the next
    # one (a few moves later) draws only the items that changed.  Both look as drawn whole: at most a
    # few anti-aliased pixels differ where a tile's edge cuts a glyph.
    Image = pytest.importorskip("PIL.Image")
    from PIL import ImageChops

    from pbem.report import tiles
    g = played_example("el-alamein").game()
    entries = g.entries()
    tiles._kept.clear()
    drawn = []

    def render(svg, width):
        out = png._resvg(svg, width, True)
        with Image.open(io.BytesIO(out)) as im:
            drawn.append((len(pics), im.size))
        return out
    pics = []
    for at in (120, 131):
        st = g.state(at)
        svg = report_svg(g, "axis", st, entries[:at + 1], at - 6, entries[at].hash)
        pic = tiles.picture(svg, png.MAP_WIDTH, render)
        with Image.open(io.BytesIO(png._resvg(svg, None, True))) as whole:
            whole = whole.convert("RGB")
        assert pic.size == whole.size
        diff = ImageChops.difference(pic, whole).convert("L").point(lambda v: 255 if v > 24 else 0)
        assert diff.histogram()[255] < pic.size[0] * pic.size[1] // 2000, at
        pics.append(pic)
    # the first map: its board drawn in one block of whole tiles, then its items' pictures
    # (on sheets); the second: only the pictures of what changed, a small part of the map
    cols, rows = (-(-pic.size[0] // tiles.TILE), -(-pic.size[1] // tiles.TILE))
    first = [size for n, size in drawn if n == 0]
    second = [size for n, size in drawn if n == 1]
    assert first[0] == (cols * tiles.TILE, rows * tiles.TILE)
    assert second and sum(w * h for w, h in second) < pic.size[0] * pic.size[1] // 4
    assert sum(w * h for w, h in second) < sum(w * h for w, h in first) // 4


def test_kept_tiles_move_from_images_to_packed_pixels_and_come_back_the_same():
    Image = pytest.importorskip("PIL.Image")
    from pbem.report import tiles
    import random

    from pbem.report.tilestore import pack
    rng = random.Random(29)
    ims = {f"t{i}": Image.frombytes("RGB", (tiles.TILE, tiles.TILE), rng.randbytes(tiles.TILE * tiles.TILE * 3))
           for i in range(6)}
    one = len(pack(ims["t0"])[1])
    kept = TileStore(hot=2, cold_bytes=one * 5 // 2)                  # two packed tiles fit
    for key, im in ims.items():
        kept[key] = im
    assert list(kept.images) == ["t4", "t5"] and list(kept.packed) == ["t2", "t3"]
    assert kept.size <= one * 5 // 2 and "t0" not in kept and "t1" not in kept   # the oldest forgotten
    last = max(kept.packed, key=lambda k: int(k[1:]))
    assert kept[last].tobytes() == ims[last].tobytes() and last in kept.images
    # ``get``: one look-up, None for a tile not kept, a packed one unpacked
    assert kept.get("t0") is None and "t2" in kept.packed
    assert kept.get("t2").tobytes() == ims["t2"].tobytes() and "t2" in kept.images
    # ``take``: a packed tile handed over packed (made the newest of them), unpacked when wanted
    kept = TileStore(hot=2)
    for key in ("t0", "t1", "t2", "t3"):
        kept[key] = ims[key]
    assert list(kept.packed) == ["t0", "t1"] and list(kept.images) == ["t2", "t3"]
    got = kept.take("t0")
    assert isinstance(got, Packed) and list(kept.packed) == ["t1", "t0"]          # not unpacked
    assert kept.take("t2") is kept.images["t2"] and list(kept.images) == ["t3", "t2"]
    assert tiles.image(got).tobytes() == ims["t0"].tobytes() and "t0" in kept.images
    assert kept.take("t9") is None
