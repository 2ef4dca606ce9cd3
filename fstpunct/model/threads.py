"""Work on a pool of threads, one pool task per thread (the M-step's phases, :mod:`.mstep`,
and :func:`.attach.pair_scores`). Imports no thread module: the caller gives the pool."""
from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, TypeVar

if TYPE_CHECKING:
    from concurrent.futures import Executor

__all__ = ["each"]

T, R = TypeVar("T"), TypeVar("R")


def each(threads: Executor | None, workers: int, work: Callable[[T], R], items: Sequence[T]
         ) -> list[R]:
    """``work`` of every item, in the items' order, on ``threads`` (of ``workers`` threads) if
    given: each thread takes the next item not yet taken until none is left — one pool task
    per thread, not one per item (a pool task costs a future and two wake-ups). If an item
    raises, its thread empties the shared queue, so the other threads take no further item
    (each finishes the one it has), and the exception reaches the caller."""
    if threads is None:
        return [work(item) for item in items]
    results: list[R] = [None] * len(items)  # type: ignore[list-item]
    todo = iter(range(len(items)))  # shared: next() on it is atomic under the GIL

    def loop(_: int) -> None:
        try:
            for k in todo:
                results[k] = work(items[k])
        except BaseException:
            for _ in todo:  # no thread takes another item
                pass
            raise

    list(threads.map(loop, range(min(workers, len(items)))))  # no idle task
    return results
