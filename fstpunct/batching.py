"""Items in lists of a fixed size, read as they are needed: sentences a batch at a time,
without reading the whole input first."""
from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import TypeVar

__all__ = ["batches"]

T = TypeVar("T")


def batches(items: Iterable[T], size: int) -> Iterator[list[T]]:
    """``items`` in lists of ``size`` (the last one shorter), read as they are needed."""
    batch: list[T] = []
    for item in items:
        batch.append(item)
        if len(batch) == size:
            yield batch
            batch = []
    if batch:
        yield batch
