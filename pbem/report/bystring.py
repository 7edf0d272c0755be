"""A function of a big string (a map's SVG, 0.2-1 MB) kept for the last few strings."""
from __future__ import annotations

from typing import Callable, Generic, TypeVar

__all__ = ["ByString"]

T = TypeVar("T")


class ByString(Generic[T]):
    """``make(text)`` for the last ``keep`` strings, found by the string itself, not by its
    text: no hash of a big string.  A mail hands one string to its close-up and its overview,
    and the viewers who see the same map share one (``mapsvg`` keeps what it drew); an equal
    text in another string is made again, to the same result."""

    def __init__(self, make: Callable[[str], T], keep: int = 4):
        self.make, self.keep = make, keep
        self.last: list[tuple[str, T]] = []

    def __call__(self, text: str) -> T:
        for seen, got in self.last:
            if seen is text:
                return got
        got = self.make(text)
        self.last.insert(0, (text, got))
        del self.last[self.keep:]
        return got

    def clear(self) -> None:
        self.last.clear()
