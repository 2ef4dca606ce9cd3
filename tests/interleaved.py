"""A crfsuite tagger whose calls from two threads interleave, for the tests that one CRF
(restoration's or correction's) serves several threads."""
import threading
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor


def meet(barrier: threading.Barrier) -> None:
    """Wait (up to 0.5 s) at ``barrier`` for another thread; go on alone if it is not there
    (it waits its turn)."""
    try:
        barrier.wait(timeout=0.5)
    except threading.BrokenBarrierError:
        pass


class Interleaved:
    """A crfsuite tagger whose ``set`` waits (up to 0.5 s) for a second thread's ``set``, so
    that two threads' calls interleave as they may in a service on threads."""

    def __init__(self, crfsuite, barrier: threading.Barrier) -> None:
        self.crfsuite, self.barrier = crfsuite, barrier

    def set(self, xseq) -> None:
        self.crfsuite.set(xseq)
        meet(self.barrier)

    def __getattr__(self, name: str):
        return getattr(self.crfsuite, name)


def on_two_threads(crf, call: Callable, inputs: Sequence) -> list:
    """``call`` of each input on two threads at once, ``crf``'s tagger interleaving them."""
    crf.tagger.crfsuite = Interleaved(crf.tagger.crfsuite, threading.Barrier(2))
    try:
        with ThreadPoolExecutor(2) as pool:
            return list(pool.map(call, inputs))
    finally:
        crf.tagger.crfsuite = crf.tagger.crfsuite.crfsuite
