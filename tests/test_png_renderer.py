"""The map's renderer (pbem.report.png._resvg, the resvg binding): its size, its
crisp shapes, its fonts, its refusals, its threads (issue 29's seventh round)."""
import io
import threading

import pytest

from pbem.report import glyphs, png

Image = pytest.importorskip("PIL.Image")
pytest.importorskip("resvg")


def _image(data: bytes):
    with Image.open(io.BytesIO(data)) as im:
        return im.convert("RGBA")


TRIANGLE = ('<svg xmlns="http://www.w3.org/2000/svg" width="300" height="201">'
            '<rect width="300" height="201" fill="#ffffff"/>'
            '<polygon points="10,190 290,10 290,190" fill="#1c3d8f"/></svg>')


def test_a_picture_drawn_narrower_keeps_its_proportions():
    im = _image(png._resvg(TRIANGLE, 100, False))
    assert im.size == (100, 67) == png.fit_width(300, 201, 100)[:2]      # 201 / 3 = 67 rows
    assert _image(png._resvg(TRIANGLE, None, False)).size == (300, 201)
    # the scale is the one resvg's own width option uses: the triangle's edge where it was
    assert im.getpixel((95, 60))[:3] == (0x1c, 0x3d, 0x8f) and im.getpixel((98, 60))[:3] == (255, 255, 255) and im.getpixel((2, 2))[:3] == (255, 255, 255)


def test_crisp_shapes_have_no_blended_edge_and_smooth_ones_do():
    def colours(crisp: bool) -> int:
        return len(_image(png._resvg(TRIANGLE, None, crisp)).convert("RGB").getcolors(1 << 16))
    assert colours(True) == 2                 # the paper and the triangle, nothing between
    assert colours(False) > 10                # its diagonal edge anti-aliased


def test_a_shape_rendering_the_svg_names_itself_is_kept():
    own = TRIANGLE.replace("<svg ", '<svg shape-rendering="geometricPrecision" ', 1)
    assert len(_image(png._resvg(own, None, True)).convert("RGB").getcolors(1 << 16)) > 10


def test_a_text_left_to_resvg_is_drawn_in_the_bundled_font_whatever_it_names():
    def text(family: str) -> bytes:
        return (f'<svg xmlns="http://www.w3.org/2000/svg" width="200" height="40"><rect width="200" height="40" '
                f'fill="#fff"/><text x="5" y="28" font-size="20" font-family="{family}" '
                f'transform="rotate(0.0001)">Kharkov</text></svg>')   # a transform: glyphs leaves it as text
    assert "<text" in glyphs.outline(text("DejaVu Sans"))                # resvg lays it out
    dejavu = _image(png._resvg(text("DejaVu Sans"), None, False))
    for other in ("No Such Face", "sans-serif", "Verdana, serif"):
        assert _image(png._resvg(text(other), None, False)).tobytes() == dejavu.tobytes(), other
    assert len(dejavu.getcolors(1 << 16)) > 2                             # and the text is there


def test_a_refused_svg_is_a_value_error_and_the_mail_goes_without_a_picture():
    with pytest.raises(ValueError, match="resvg refused"):
        png._resvg("<svg xmlns='http://www.w3.org/2000/svg' width='10' height='10'><rect", None, True)
    assert png.svg_to_png("<svg xmlns='http://www.w3.org/2000/svg' width='0' height='0'></svg>") is None


def test_another_thread_draws_with_its_own_options():
    got: list = []
    t = threading.Thread(target=lambda: got.append(png._resvg(TRIANGLE, 150, True)))
    t.start()
    t.join()
    assert _image(got[0]).tobytes() == _image(png._resvg(TRIANGLE, 150, True)).tobytes()
