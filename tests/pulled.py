"""Input that counts how much of it was read, for the tests that a method refuses before
reading, or reads no further than it must."""
from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import Generic, TypeVar

T = TypeVar("T")


class Pulled(Generic[T]):
    """The items of ``items`` handed out one by one by each iterator of it (a generator, as a
    method reading a stream sees it), ``count`` counting those pulled by all of them."""

    def __init__(self, items: Iterable[T]) -> None:
        self.items, self.count = list(items), 0

    def __iter__(self) -> Iterator[T]:
        for item in self.items:
            self.count += 1
            yield item
