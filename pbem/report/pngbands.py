"""A palette PNG written a band of rows at a time, each band's compressed bytes kept.

A map differs from the last of its game in a few tiles, so most bands of rows
(``tiles.TILE`` rows each) of its palette image are the bytes of a band already
written.  The image data of a PNG is one zlib stream; here it is made of raw
deflate pieces, one per band, each compressed on its own (a fresh compressor,
ended by a sync flush, so it stops on a byte boundary with no final block), put
one after the other, ended by an empty final block; the Adler-32 of the whole is
combined from the bands' own (zlib's ``adler32_combine``).  A band whose rows
(filter byte 0, then the palette indices) were compressed before is not
compressed again: it is found by a digest of its rows.  Each row starts with
filter type 0 (None), as Pillow writes a palette image.  A piece may refer
only to its own rows, which costs a few bytes where a band starts.
tests/test_perf_png.py checks the file against Pillow's reading of it.
"""
from __future__ import annotations

import hashlib
import struct
from collections import OrderedDict

# zlib-ng: zlib's API and format, its compressor 1.8 times as fast at level 6 on the poll's
# bands (0.27 s against 0.48 s for 30.8 MB of rows), and its output 2 % smaller
from zlib_ng import zlib_ng as zlib

__all__ = ["encode", "encode_bands", "adler32_combine", "SUB"]

_BASE = 65521
_SIGNATURE = b"\x89PNG\r\n\x1a\n"


def adler32_combine(a1: int, a2: int, len2: int) -> int:
    """The Adler-32 of A + B from A's (``a1``), B's (``a2``) and B's length (zlib's formula)."""
    rem = len2 % _BASE
    sum1 = a1 & 0xFFFF
    sum2 = (rem * sum1) % _BASE
    sum1 += (a2 & 0xFFFF) + _BASE - 1
    sum2 += (a1 >> 16) + (a2 >> 16) + _BASE - rem
    if sum1 >= _BASE:
        sum1 -= _BASE
    if sum1 >= _BASE:
        sum1 -= _BASE
    if sum2 >= _BASE << 1:
        sum2 -= _BASE << 1
    if sum2 >= _BASE:
        sum2 -= _BASE
    return sum1 | (sum2 << 16)


class _Bands:
    """Compressed bands by the digest of their rows and the level, least recently used
    forgotten first past ``max_bytes``."""

    def __init__(self, max_bytes: int = 48 << 20):
        self.max_bytes, self.size = max_bytes, 0
        self.got: OrderedDict = OrderedDict()

    def clear(self) -> None:
        self.got.clear()
        self.size = 0
        _keyed.clear()

    def __len__(self) -> int:
        return len(self.got)

    def piece(self, raw: bytes, level: int) -> tuple[bytes, int]:
        """(raw deflate of ``raw`` ending on a byte boundary, Adler-32 of ``raw``)."""
        key = (hashlib.sha1(raw).digest(), len(raw), level)
        hit = self.got.get(key)
        if hit is not None:
            self.got.move_to_end(key)
            return hit
        c = zlib.compressobj(level, zlib.DEFLATED, -15)
        hit = (c.compress(raw) + c.flush(zlib.Z_SYNC_FLUSH), zlib.adler32(raw))
        self.got[key] = hit
        self.size += len(hit[0])
        while self.size > self.max_bytes and self.got:
            _k, old = self.got.popitem(last=False)
            self.size -= len(old[0])
        return hit


_bands = _Bands()
SUB = 32                 # rows a piece of a keyed band (``encode_bands``): a small change recompresses few
_keyed: OrderedDict = OrderedDict()      # a band's key -> its pieces ((deflate, Adler-32, length), ...)
_KEYED = 2048                            # bands (of about 10-20 KB each)


def _chunk(kind: bytes, data: bytes) -> bytes:
    return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(data, zlib.crc32(kind)))


def _stream(pieces: list[tuple[bytes, int, int]], level: int) -> bytes:
    """The zlib stream of the raw deflate ``pieces`` ((deflate, Adler-32 of its data, its data's
    length), in order): a header for the default window and the level, an empty final fixed
    block, the Adler-32 of the whole."""
    adler = 1
    for _comp, a, n in pieces:
        adler = adler32_combine(adler, a, n)
    flevel = 0 if level < 2 else 1 if level < 6 else 2 if level == 6 else 3
    cmf, flg = 0x78, flevel << 6
    flg += 31 - ((cmf << 8) + flg) % 31
    return bytes((cmf, flg)) + b"".join(p[0] for p in pieces) + b"\x03\x00" + struct.pack(">I", adler)


def _png(width: int, height: int, palette: bytes, stream: bytes, text: dict[str, str] | None) -> bytes:
    out = [_SIGNATURE, _chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, 8, 3, 0, 0, 0)),
           _chunk(b"PLTE", palette)]
    for k, v in (text or {}).items():
        out.append(_chunk(b"tEXt", k.encode("latin-1") + b"\0" + v.encode("latin-1")))
    out += [_chunk(b"IDAT", stream), _chunk(b"IEND", b"")]
    return b"".join(out)


def encode_bands(bands, width: int, height: int, palette: bytes, level: int = 6,
                 text: dict[str, str] | None = None) -> bytes:
    """``encode`` of a picture given as its bands of rows, top to bottom: ``bands`` [(key,
    rows)], ``rows()`` the band's filtered rows (each led by its filter byte 0).  A band whose
    key was met before (its tiles the same) is neither made nor looked at; a new one is
    compressed ``SUB`` rows at a time, each piece found by its digest when those rows were
    compressed before (a change in a few rows recompresses only theirs)."""
    stride = width + 1
    pieces: list[tuple[bytes, int, int]] = []
    rows_seen = 0
    for key, rows in bands:
        full = (key, stride, level)
        got = _keyed.get(full)
        if got is None:
            raw = rows()
            assert len(raw) % stride == 0
            step = SUB * stride
            got = tuple((*_bands.piece(part, level), len(part))
                        for part in (raw[i:i + step] for i in range(0, len(raw), step)))
            _keyed[full] = got
            while len(_keyed) > _KEYED:
                _keyed.popitem(last=False)
        else:
            _keyed.move_to_end(full)
        pieces += got
        rows_seen += sum(n for _c, _a, n in got) // stride
    assert rows_seen == height and 0 < len(palette) <= 768 and len(palette) % 3 == 0
    return _png(width, height, palette, _stream(pieces, level), text)


def encode(indices: bytes, width: int, height: int, palette: bytes, level: int = 6, band: int = 128,
           text: dict[str, str] | None = None, filtered: bool = False) -> bytes:
    """The PNG (8-bit palette, no interlace) of ``indices`` (``width`` x ``height`` bytes, row
    after row; with ``filtered``, each row already led by its filter byte 0) with ``palette``
    (RGB triples), its rows compressed ``band`` rows at a time; ``text``: tEXt chunks."""
    stride = width + 1
    if not filtered:
        indices = b"".join(b"\x00" + indices[y * width:(y + 1) * width] for y in range(height))
    assert len(indices) == stride * height and 0 < len(palette) <= 768 and len(palette) % 3 == 0
    pieces: list[tuple[bytes, int, int]] = []
    for y0 in range(0, height, band):
        raw = indices[y0 * stride:min(height, y0 + band) * stride]
        pieces.append((*_bands.piece(raw, level), len(raw)))
    return _png(width, height, palette, _stream(pieces, level), text)
