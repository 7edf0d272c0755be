"""The tiles a host has drawn (``tiles.layout``), kept by their SVG between its mails."""
from __future__ import annotations

from pbem.report.sprites import Kept

__all__ = ["TileStore", "Packed", "image", "pack"]


class Packed:
    """A kept tile whose pixels are packed: unpacked only when a picture needs them
    (``image``).  A map wants most of its tiles only for their palette indices, kept
    apart (``png._Palette``), or not at all when its band of rows was written before."""
    __slots__ = ("store", "key")

    def __init__(self, store: "TileStore", key):
        self.store, self.key = store, key

    def image(self):
        im = self.store.get(self.key)
        if im is None:                 # taken as the newest, so only after a map packed more than
            raise LookupError(f"tile {self.key!r} left the store")   # the store holds: drawn whole
        return im


def pack(im) -> tuple:
    """(size, packed pixels) of a tile's picture, as the store keeps an older one."""
    from zlib_ng import zlib_ng
    # zlib-ng level 3, measured on 1,500 of a poll's tiles (72.6 MB): compressed in 0.18 s
    # and read back in 0.10 s to 2.62 MB; zlib level 1 took 0.30 s and 0.18 s to 2.80 MB
    return im.size, zlib_ng.compress(im.tobytes(), 3)


def image(got):
    """The picture of what ``TileStore.take`` gave."""
    return got.image() if isinstance(got, Packed) else got


class TileStore:
    """The tiles drawn, by their SVG: the last ``hot`` as images, older ones as their
    pixels compressed (zlib-ng level 3: a 48 KB tile in 2 KB, typically) up to ``cold_bytes``, the
    least recently used forgotten first.  A host mails many games in turn, and each keeps
    the tiles of its map between its mails."""

    def __init__(self, hot: int = 3000, cold_bytes: int = 192 << 20):
        from collections import OrderedDict
        self.hot, self.cold_bytes = hot, cold_bytes
        self.images: OrderedDict = OrderedDict()
        self.packed: OrderedDict = OrderedDict()
        self.sprites = Kept()                          # sprites.Painter's pictures of items
        self.whole: set = set()                        # the grids whose whole board was drawn (close-ups)
        self.size = 0

    def __contains__(self, key: str) -> bool:
        return key in self.images or key in self.packed

    def __len__(self) -> int:
        return len(self.images) + len(self.packed)

    def clear(self) -> None:
        self.images.clear()
        self.packed.clear()
        self.sprites.clear()
        self.whole.clear()
        self.size = 0

    def get(self, key: str):
        """The tile's picture, or None: one look-up where ``in`` then ``[]`` take two (a key is
        a long tuple, hashed again each time)."""
        im = self.images.get(key)
        if im is not None:
            self.images.move_to_end(key)
            return im
        got = self.packed.pop(key, None)
        if got is None:
            return None
        from PIL import Image
        from zlib_ng import zlib_ng
        dims, data = got
        self.size -= len(data)
        im = Image.frombytes("RGB", dims, zlib_ng.decompress(data))
        self[key] = im
        return im

    def take(self, key):
        """The tile's picture when it is at hand, a ``Packed`` when its pixels are packed (made
        the newest of them, so it is not forgotten while the map is made), None when not kept."""
        im = self.images.get(key)
        if im is not None:
            self.images.move_to_end(key)
            return im
        if key in self.packed:
            self.packed.move_to_end(key)
            return Packed(self, key)
        return None

    def __getitem__(self, key: str):
        im = self.get(key)
        if im is None:
            raise KeyError(key)
        return im

    def __setitem__(self, key: str, im) -> None:
        self.images[key] = im
        self.images.move_to_end(key)
        while len(self.images) > self.hot:
            old, oim = self.images.popitem(last=False)
            self.packed[old] = packed = pack(oim)
            self.size += len(packed[1])
        while self.size > self.cold_bytes and self.packed:
            _old, (_dims, data) = self.packed.popitem(last=False)
            self.size -= len(data)
