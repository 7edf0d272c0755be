"""Text widths in the map's font, from a bundled metrics table.

The map names "DejaVu Sans" first (the font resvg finds on the hosts and in
CI; Verdana and the rest are fall-backs a browser may use): so a label's
width is measured with DejaVu Sans's own advance widths, not guessed from
its number of characters.  The tables below are the advance widths, in
thousandths of an em, of DejaVu Sans Book, Bold and Oblique (version 2.37,
read once from the font files with Pillow's ImageFont) for printable ASCII
and the accented letters of the scenarios' place names; any other character
counts as wide as "M" (a label measured too wide only moves further away).
Kerning is ignored: DejaVu's kerning narrows a few pairs, never widens one.
"""
from __future__ import annotations

__all__ = ["text_width", "FONT_FAMILY"]

FONT_FAMILY = "DejaVu Sans, Verdana, Arial, Helvetica, sans-serif"

_CHARS = " !\"#$%&'()*+,-./0123456789:;<=>?@ABCDEFGHIJKLMNOPQRSTUVWXYZ[\\]^_`abcdefghijklmnopqrstuvwxyz{|}~\u00e0\u00e1\u00e2\u00e4\u00e7\u00e8\u00e9\u00ea\u00eb\u00ec\u00ed\u00ee\u00ef\u00f1\u00f2\u00f3\u00f4\u00f6\u00f9\u00fa\u00fb\u00fc\u00df\u00c0\u00c1\u00c2\u00c4\u00c7\u00c8\u00c9\u00ca\u00cb\u00ce\u00cf\u00d1\u00d2\u00d3\u00d4\u00d6\u00d9\u00da\u00db\u00dc\u2013\u2014\u2019\u2018\u201c\u201d\u2026\u00b7\u00b0"

_REGULAR = (
    318, 401, 460, 838, 636, 950, 780, 275, 390, 390, 500, 838, 318, 361, 318, 337, 636, 636, 636, 636,
    636, 636, 636, 636, 636, 636, 337, 337, 838, 838, 838, 531, 1000, 684, 686, 698, 770, 632, 575, 775,
    752, 295, 295, 656, 557, 863, 748, 787, 603, 787, 695, 635, 611, 732, 684, 989, 685, 611, 685, 390,
    337, 390, 838, 500, 500, 613, 635, 550, 635, 615, 352, 635, 634, 278, 278, 579, 278, 974, 634, 612,
    635, 635, 411, 521, 392, 634, 592, 818, 592, 592, 525, 636, 337, 636, 838, 613, 613, 613, 613, 550,
    615, 615, 615, 615, 278, 278, 278, 278, 634, 612, 612, 612, 612, 634, 634, 634, 634, 630, 684, 684,
    684, 684, 698, 632, 632, 632, 632, 295, 295, 748, 787, 787, 787, 787, 732, 732, 732, 732, 500, 1000,
    318, 318, 518, 518, 1000, 318, 500,
)
_BOLD = (
    348, 456, 521, 838, 696, 1002, 872, 306, 457, 457, 523, 838, 380, 415, 380, 365, 696, 696, 696, 696,
    696, 696, 696, 696, 696, 696, 400, 400, 838, 838, 838, 580, 1000, 774, 762, 734, 830, 683, 683, 821,
    837, 372, 372, 775, 637, 995, 837, 850, 733, 850, 770, 720, 682, 812, 774, 1103, 771, 724, 725, 457,
    365, 457, 838, 500, 500, 675, 716, 593, 716, 678, 435, 716, 712, 343, 343, 665, 343, 1042, 712, 687,
    716, 716, 493, 595, 478, 712, 652, 924, 645, 652, 582, 712, 365, 712, 838, 675, 675, 675, 675, 593,
    678, 678, 678, 678, 343, 343, 343, 343, 712, 687, 687, 687, 687, 712, 712, 712, 712, 719, 774, 774,
    774, 774, 734, 683, 683, 683, 683, 372, 372, 837, 850, 850, 850, 850, 812, 812, 812, 812, 500, 1000,
    380, 380, 657, 657, 1000, 380, 500,
)
_OBLIQUE = _REGULAR          # DejaVu Sans Oblique has the regular face's advance widths
_TABLES = {style: dict(zip(_CHARS, widths)) for style, widths in
           (("regular", _REGULAR), ("bold", _BOLD), ("oblique", _OBLIQUE))}


def text_width(text: str, size: float, bold: bool = False, italic: bool = False) -> float:
    """The advance width of ``text`` in pixels at font size ``size`` (kept per text and
    style: a map measures the same labels at every drawing)."""
    if text.__class__ is not str:
        return _text_width(text, size, bold, italic)
    key = (text, size, bold, italic)
    got = _WIDTHS.get(key)
    if got is None:
        got = _text_width(text, size, bold, italic)
        if len(_WIDTHS) >= 16384:
            _WIDTHS.clear()
        _WIDTHS[key] = got
    return got


_WIDTHS: dict[tuple, float] = {}


def _text_width(text: str, size: float, bold: bool = False, italic: bool = False) -> float:
    table = _TABLES["bold" if bold else "oblique" if italic else "regular"]
    wide = table["M"]
    return sum(table.get(c, wide) for c in str(text)) * size / 1000.0
