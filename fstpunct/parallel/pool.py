"""Pools of workers: every parallel job behind one ``concurrent.futures.Executor``-style interface.

A :class:`Pool` runs tasks ``fn(item)`` and gives their results back in input order
(:meth:`Pool.imap`, with a bounded number of tasks in flight, so long inputs stream). What every
task needs and should not carry itself (a model, a training corpus, this iteration's
parameters) is *shared* once per worker with :meth:`Pool.share`: the ``loader`` runs once on each
worker (or, in a local pool, once in this process before the workers fork) and the task reads
the value with :func:`shared`. Three kinds:

* :class:`SerialPool` — in this process (``jobs`` = 1);
* :class:`LocalPool` — forked worker processes on this machine (the default for ``jobs`` > 1);
  shared values are inherited, never pickled;
* :class:`~fstpunct.parallel.cluster.DaskPool` — a ``dask.distributed`` cluster: an existing
  one (``scheduler`` = its address) or a ``LocalCluster`` of ``dask_workers`` processes started
  for the run. A shared value is a worker plugin: pickled once, sent once to every worker
  (also to workers that join later), loaded there once.

Tasks should be batched to take seconds each (a chunk of sentences), so that scheduling costs
little; results are exactly those of a serial run, as every task's result depends on its item
and the shared values only.
"""
from __future__ import annotations

import itertools
import os
import pickle
from collections import deque
from collections.abc import Callable, Iterable, Iterator
from functools import partial
from typing import TYPE_CHECKING, Any, TypeVar

from ..errors import InputError

if TYPE_CHECKING:  # imported when first used: multiprocessing, concurrent.futures (and logging
    import tempfile  # with it) are slow to import, and a serial run needs neither
    from concurrent.futures import Executor, Future, ProcessPoolExecutor

__all__ = ["LocalPool", "Pool", "SerialPool", "forget", "load", "share_value", "shared", "value"]

T = TypeVar("T")
R = TypeVar("R")

_SHARED: dict[str, Any] = {}  # this process's shared values (a worker's, or the parent's)


def shared(name: str) -> Any:
    """A value shared with :meth:`Pool.share` (inside a task)."""
    try:
        return _SHARED[name]
    except KeyError:
        raise LookupError(f"nothing shared under {name!r} in this worker") from None


def load(name: str, loader: Callable[[], Any]) -> None:
    """Load a shared value in this process (a pool's worker side)."""
    _SHARED[name] = loader()


def forget(name: str) -> None:
    """Drop a shared value from this process."""
    _SHARED.pop(name, None)


def value(x: T) -> T:
    """The loader of a value shared as it is: ``pool.share(name, partial(value, x))``."""
    return x


class Pool:
    """A ``concurrent.futures.Executor`` with shared values and ordered, bounded mapping."""

    workers: int = 1
    parallel = True  # whether tasks run elsewhere (False: in this process, one by one)

    def executor(self) -> Executor:
        raise NotImplementedError

    def share(self, name: str, loader: Callable[[], Any]) -> None:
        """Make ``loader()`` available to every task as ``shared(name)``."""
        raise NotImplementedError

    def submit(self, fn: Callable[..., R], *args: Any) -> Future[R]:
        return self.executor().submit(fn, *args)

    def map(self, fn: Callable[[T], R], items: Iterable[T]) -> Iterator[R]:
        """``fn(item)`` for every item, in order (as ``Executor.map``)."""
        return self.imap(fn, items)

    def imap(self, fn: Callable[[T], R], items: Iterable[T], ahead: int | None = None
             ) -> Iterator[R]:
        """``fn(item)`` for every item, in order, with at most ``ahead`` tasks in flight
        (default: twice the workers), so that a long input is read as results are used."""
        ahead = ahead or 2 * self.workers
        running: deque[Future[R]] = deque()
        for item in items:
            running.append(self.submit(fn, item))
            if len(running) >= ahead:
                yield running.popleft().result()
        while running:
            yield running.popleft().result()

    def close(self) -> None:
        """Stop the workers (and a cluster started for the run)."""

    def __enter__(self) -> Pool:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


class SerialPool(Pool):
    """Every task in this process, one after the other."""

    parallel = False

    def __init__(self) -> None:
        self._inline: Executor | None = None

    def executor(self) -> Executor:
        if self._inline is None:
            from .inline import Inline
            self._inline = Inline()
        return self._inline

    def share(self, name: str, loader: Callable[[], Any]) -> None:
        load(name, loader)

    def imap(self, fn: Callable[[T], R], items: Iterable[T], ahead: int | None = None
             ) -> Iterator[R]:
        return map(fn, items)


class LocalPool(Pool):
    """``workers`` forked processes on this machine, kept for the pool's life (and with them
    whatever a task caches in its worker, such as slot lattices from one EM iteration to the
    next). A shared value is loaded here, so workers forked later inherit it; once workers
    exist, a new value is pickled once to a temporary file that each worker loads before its
    next task (every task carries the versions of the values it may read)."""

    def __init__(self, workers: int) -> None:
        self.workers = workers
        self._pool: ProcessPoolExecutor | None = None
        self._folder: tempfile.TemporaryDirectory[str] | None = None
        self._versions: dict[str, tuple[int, str | None]] = {}  # name: (version, pickle file)
        self._pending: set[Future[Any]] = set()

    def executor(self) -> Executor:
        if self._pool is None:
            import multiprocessing as mp
            from concurrent.futures import ProcessPoolExecutor
            self._pool = ProcessPoolExecutor(self.workers, mp_context=mp.get_context("fork"))
        return self._pool

    def submit(self, fn: Callable[..., R], *args: Any) -> Future[R]:
        future = self.executor().submit(_with_versions, dict(self._versions), fn, *args)
        self._pending.add(future)
        future.add_done_callback(self._pending.discard)
        return future

    def imap(self, fn: Callable[[T], R], items: Iterable[T], ahead: int | None = None
             ) -> Iterator[R]:
        """As :meth:`Pool.imap`; a worker that dies (killed, out of memory, crashed) stops it
        with an :class:`~fstpunct.errors.InputError` saying so, not concurrent.futures'
        BrokenProcessPool (a command's traceback). The broken workers are dropped: the pool's
        next task forks new ones."""
        from concurrent.futures.process import BrokenProcessPool
        try:
            yield from super().imap(fn, items, ahead)
        except BrokenProcessPool:
            self._stop_workers(wait=False)  # broken: nothing left to wait for
            raise InputError("a worker process ended abruptly (killed, out of memory or "
                             "crashed), and its task with it: the run stopped; if memory ran "
                             "out, fewer jobs need less") from None

    def share(self, name: str, loader: Callable[[], Any]) -> None:
        version = next(_VERSION_NUMBERS)
        load(name, loader)
        _LOADED[name] = version  # forked after this: inherited
        path = None
        if self._pool is not None:  # running workers load it from a file, once each
            if self._folder is None:
                import tempfile
                self._folder = tempfile.TemporaryDirectory(prefix="fstpunct-pool-")
            path = os.path.join(self._folder.name, f"{version}.pickle")
            with open(path, "wb") as f:
                pickle.dump(loader, f, protocol=pickle.HIGHEST_PROTOCOL)
            old = self._versions.get(name, (0, None))[1]
            if old is not None and not self._pending:  # else kept until close: tasks sent
                os.remove(old)                          # before may still read it
        self._versions[name] = (version, path)

    def close(self) -> None:
        self._stop_workers()
        if self._folder is not None:
            self._folder.cleanup()
            self._folder = None
        self._versions.clear()

    def _stop_workers(self, wait: bool = True) -> None:
        """Shut the workers down (``wait``: for their tasks to end); the next task forks new
        ones."""
        if self._pool is not None:
            self._pool.shutdown(wait=wait)
            self._pool = None


_VERSION_NUMBERS = itertools.count(1)
_LOADED: dict[str, int] = {}  # the version of each shared value this process holds


def _with_versions(versions: dict[str, tuple[int, str | None]], fn: Callable[..., R],
                   *args: Any) -> R:
    """(In a local worker.) Load every shared value newer than this worker's, then run the
    task."""
    for name, (version, path) in versions.items():
        if _LOADED.get(name) != version:
            if path is None:
                raise LookupError(f"shared value {name!r} (version {version}) did not reach "
                                  "this worker")
            with open(path, "rb") as f:
                load(name, pickle.load(f))
            _LOADED[name] = version
    return fn(*args)


def share_value(pool: Pool, name: str, x: Any) -> None:
    """Share ``x`` itself (pickled once per worker on a cluster)."""
    pool.share(name, partial(value, x))
