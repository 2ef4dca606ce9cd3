"""fstpunct.model.threads.each: a phase's items on a pool of threads, one pool task per thread
(the M-step's phases and pair_scores')."""
import threading
import time
from concurrent.futures import ThreadPoolExecutor

import pytest

from fstpunct.model.threads import each


def _first_items_wait(barrier: threading.Barrier, work):
    """``work`` whose threads each wait at ``barrier`` at their first item (so all the pool's
    threads take items), and the threads that ran it."""
    started: set[int] = set()

    def run(k: int):
        if threading.get_ident() not in started:
            started.add(threading.get_ident())
            barrier.wait(timeout=30)
        return work(k)
    return run, started


def test_each_gives_every_item_once_in_order():
    """The M-step's phases on threads: each thread takes the next item; the results come back
    in the items' order (not the order they finish in), and a task's exception reaches the
    caller."""
    items = list(range(200))
    assert each(None, 1, lambda k: k * k, items) == [k * k for k in items]
    with ThreadPoolExecutor(3) as pool:
        done: list[int] = []  # the items in the order they finish

        def work(k: int) -> int:
            if k < 3:  # the first items finish last, item 0 after items 1 and 2
                time.sleep(0.02 * (3 - k))
            done.append(k)
            return -k

        run, started = _first_items_wait(threading.Barrier(3), work)
        assert each(pool, 3, run, items) == [-k for k in items]
        assert sorted(done) == items and len(started) == 3 and done.index(0) > done.index(3)
        with pytest.raises(ZeroDivisionError):
            each(pool, 3, lambda k: 1 / (k - 150), items)


def test_each_stops_taking_items_after_an_exception():
    """When an item raises, the other threads finish the item they have and take no other:
    with 3 threads, item 0 raising and every other item taking 10 ms, a few items run, not
    the 199 others."""
    ran: list[int] = []

    def work(k: int) -> None:
        if k == 0:
            raise ValueError("item 0")
        time.sleep(0.01)
        ran.append(k)

    with ThreadPoolExecutor(3) as pool:
        run, started = _first_items_wait(threading.Barrier(3), work)
        with pytest.raises(ValueError, match="item 0"):
            each(pool, 3, run, list(range(200)))
    assert len(started) == 3 and 2 <= len(ran) <= 20  # the pool has shut down: no more run
