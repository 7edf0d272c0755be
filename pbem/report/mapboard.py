"""The layers of a map that only its scenario decides, drawn once per scenario
(``board_layers``): terrain, links, roads, marks, battle positions, hexsides and
hex numbers, with what the legend needs to know of them, and the spots each place
name may take.  ``mapsvg.render_svg`` puts the counters and the rest on them."""
from __future__ import annotations

from pbem.core.hexgrid import Grid
from pbem.core.scenario import once_per_scenario
from pbem.report.fontmetrics import text_width
from pbem.report.mapsvg import (HEX_R, LINK_STYLES, MARK_STYLES, ROAD_COLOUR, SQ3, UNKNOWN_TERRAIN,
                                _battle_position, _esc, _f, _hexside_svg, _line_edges, _link, _mark, _parse,
                                _pts, _shared_edge, hex_centre, hex_corners)


class _Board:
    """The layers of a map that only its scenario decides (terrain, links, roads,
    marks, battle positions, hexsides, hex numbers), drawn once per scenario:
    every report, mail and replay step of a game draws the same ones."""
    __slots__ = ("parts", "key", "hexes", "centre", "terrain", "features", "numbers", "terrain_order", "links_present",
                 "road_hexes", "marks_present", "side_feats", "battle_position", "places")


    def part(self, draw, inputs, *args):
        """``draw(*args)``, kept per board and ``inputs`` (what decides it besides the
        board): the legend, objectives and areas of a game change seldom."""
        key = (draw.__name__, repr(inputs))
        got = self.parts.get(key)
        if got is None:
            if len(self.parts) >= 256:
                self.parts.clear()
            got = self.parts[key] = draw(*args)
        return got


_boards: dict[int, tuple[object, _Board]] = {}
_serial = iter(range(1, 1 << 62))                    # a _Board's key: never the same for two scenarios


def board_layers(sc) -> _Board:
    return once_per_scenario(_boards, sc, _draw_board)


def _draw_board(sc) -> _Board:
    board = sc.board
    grid: Grid = board.grid
    hexes = grid.all_hexes()
    centre = {h: hex_centre(grid, h) for h in hexes}

    body: list[str] = []

    # terrain
    body.append('<g class="terrain" stroke="#8a8272" stroke-width="0.8">')     # said once, not per hex
    present: list[str] = []
    for h in hexes:
        t = board.terrain.get(h, "")
        if t and t not in present:
            present.append(t)
        colour = sc.terrain[t].colour if t in sc.terrain else UNKNOWN_TERRAIN
        cx, cy = centre[h]
        body.append(f'<polygon id="hex-{h}" data-terrain="{_esc(t)}" '
                    f'points="{_pts(hex_corners(cx, cy))}" fill="{_esc(colour)}"/>')
    body.append("</g>")
    terrain_order = [t for t in sc.terrain if t in present] + [t for t in present if t not in sc.terrain]
    terrain, body = body, []

    # roads, railroads, lanes: hex features linking adjacent hexes, and hexside links
    def has(h: str, feat: str) -> bool:
        return feat in board.features.get(h, ())

    links_present: list[str] = []
    body.append('<g class="links" stroke-opacity="0.9">')
    for feat in (f for f in LINK_STYLES if f != "road"):
        fh = sorted(h for h in board.features if has(h, feat) and grid.contains(h))
        for h, n in _line_edges(grid, fh):
            body.append(_link(LINK_STYLES[feat], centre[h], centre[n], feat))
        if fh and LINK_STYLES[feat][3] not in links_present:
            links_present.append(LINK_STYLES[feat][3])
    for (a, b) in sorted(board.hexsides):
        for feat in sorted(board.hexsides[(a, b)]):
            if feat in LINK_STYLES and _parse(a) and _parse(b):
                body.append(_link(LINK_STYLES[feat], hex_centre(grid, a), hex_centre(grid, b), feat))
                if LINK_STYLES[feat][3] not in links_present:
                    links_present.append(LINK_STYLES[feat][3])
    body.append("</g>")

    road_hexes = sorted(h for h in board.features if has(h, "road") and grid.contains(h))
    body.append(f'<g class="roads" stroke="{ROAD_COLOUR}" stroke-width="5" stroke-linecap="round" '
                f'stroke-opacity="0.9">')
    for h in road_hexes:
        cx, cy = centre[h]
        links = [n for n in grid.neighbours(h) if has(n, "road")]
        for n in links:
            if n > h:
                nx, ny = centre[n]
                body.append(f'<line x1="{_f(cx)}" y1="{_f(cy)}" x2="{_f(nx)}" y2="{_f(ny)}"/>')
        edge = any(grid.is_edge(h, e) for e in ("north", "south", "east", "west"))
        if not links:
            body.append(f'<circle cx="{_f(cx)}" cy="{_f(cy)}" r="4" fill="{ROAD_COLOUR}" stroke="none"/>')
        elif edge and len(links) == 1:
            # A road ending at the map edge runs on off the map.
            nx, ny = centre[links[0]]
            ex, ey = cx + (cx - nx) * 0.5, cy + (cy - ny) * 0.5
            body.append(f'<line x1="{_f(cx)}" y1="{_f(cy)}" x2="{_f(ex)}" y2="{_f(ey)}"/>')
    body.append("</g>")

    # marks: footholds, entry hexes, towns
    marks_present: list[tuple[str, str, str]] = []
    body.append('<g class="marks">')
    for h in sorted(board.features):
        if not grid.contains(h):
            continue
        for feat in sorted(board.features[h]):
            if feat in MARK_STYLES:
                shape, colour, label = MARK_STYLES[feat]
                body.append(_mark(shape, colour, *centre[h], feat))
                if MARK_STYLES[feat] not in marks_present:
                    marks_present.append(MARK_STYLES[feat])
    body.append("</g>")

    # battle positions
    body.append('<g class="battle-positions">')
    for h in sorted(board.features):
        if has(h, "battle_position") and grid.contains(h):
            body.append(f'<g class="battle_position" data-hex="{h}">')
            body += _battle_position(*centre[h])
            body.append("</g>")
    body.append("</g>")

    # hexside features
    side_feats: set[str] = set()
    body.append('<g class="hexsides">')
    for (a, b) in sorted(board.hexsides):
        if _parse(a) is None or _parse(b) is None:
            continue
        p, q = _shared_edge(hex_centre(grid, a), hex_centre(grid, b))
        for feat in sorted(board.hexsides[(a, b)]):
            side_feats.add(feat)
            body.append(_hexside_svg(feat, p, q))
    body.append("</g>")

    numbers = ['<g class="hex-numbers" font-size="8" fill="#4a4a4a" text-anchor="middle">']
    for h in hexes:
        cx, cy = centre[h]
        numbers.append(f'<text x="{_f(cx)}" y="{_f(cy - SQ3 / 2 * HEX_R + 9)}">{h}</text>')
    numbers.append("</g>")
    b = _Board()
    b.key, b.parts = next(_serial), {}
    b.hexes, b.centre, b.terrain, b.features, b.numbers = hexes, centre, terrain, body, numbers
    b.terrain_order, b.links_present, b.road_hexes = terrain_order, links_present, road_hexes
    b.marks_present, b.side_feats = marks_present, side_feats
    b.battle_position = any(has(h, "battle_position") for h in board.features)
    b.places = _place_spots(board, grid, centre)
    return b


def _place_spots(board, grid: Grid, centre: dict) -> list[tuple[str, float, list[tuple[float, float]]]]:
    """Each place's name, its half width and the spots its label may take, best
    first: along the bottom of one of its hexes (middle hex first), else of a
    neighbouring hex, else along the top (the board's, drawn once: ``_Board``)."""
    groups: dict[str, list[str]] = {}
    for h, name in board.places.items():
        if grid.contains(h):
            groups.setdefault(name, []).append(h)
    out = []
    for name in sorted(groups):
        hs = sorted(groups[name], key=lambda h: centre[h])
        mid = (len(hs) - 1) // 2
        half = text_width(name, 9.5, italic=True) / 2 + 1
        order = [hs[i] for i in sorted(range(len(hs)), key=lambda i: (abs(i - mid), i))]
        near = [n for h in order for n in grid.neighbours(h) if grid.contains(n) and n not in hs]
        spots = [(centre[h][0], centre[h][1] + SQ3 / 2 * HEX_R - 2.2) for h in order]
        spots += [(centre[h][0], centre[h][1] - SQ3 / 2 * HEX_R + 18) for h in order]
        spots += [(centre[n][0], centre[n][1] + SQ3 / 2 * HEX_R - 2.2) for n in dict.fromkeys(near)]
        out.append((name, half, spots))
    return out
