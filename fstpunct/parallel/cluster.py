"""A :class:`~fstpunct.parallel.pool.Pool` over a ``dask.distributed`` cluster (imported only
when asked for: dask is an optional dependency, ``pip install 'fstpunct[dask]'``)."""
from __future__ import annotations

import os
import signal
import sys
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import Executor
from contextlib import ExitStack
from multiprocessing import process
from typing import Any

import dask
from dask.utils import parse_timedelta
from distributed import Client, LocalCluster, WorkerPlugin
from distributed.scheduler import NoWorkerError

from ..errors import InputError, Refused
from .heap import ADAPTIVE, environment_thresholds, fixed_thresholds, mallopt
from .pool import Pool, R, T, forget, load

__all__ = ["DaskPool", "LOST_WORKER_TIMEOUT", "NO_WORKERS_TIMEOUT"]

LOST_WORKER_TIMEOUT = 600.0
"""Seconds a local cluster waits for a lost worker to join again before it closes its nanny
(at least: dask's ``distributed.deploy.lost-worker-timeout`` if longer)."""
NO_WORKERS_TIMEOUT = LOST_WORKER_TIMEOUT + 60
"""Seconds a local cluster's tasks wait while it has no running worker before they fail: past
:data:`LOST_WORKER_TIMEOUT`, so that restarts it waits for are waited for, and as much longer
as dask's ``distributed.deploy.lost-worker-timeout`` in force is (dask's
``distributed.scheduler.no-workers-timeout`` if longer still)."""


class DaskPool(Pool):
    """The cluster at ``scheduler`` (an address such as ``tcp://host:8786``), or else a
    ``LocalCluster`` of ``workers`` single-threaded processes started here and stopped by
    :meth:`close`. Every worker runs one task at a time; a shared value is a worker plugin,
    pickled once here and loaded once on every worker (workers that join later too). While the
    pool is open its workers allocate as a plain process does (:class:`_Malloc`); :meth:`close`
    removes the pool's plugins, and with them its shared values, from a cluster it did not
    start. Local workers are spawned processes, which run the main script again from its
    file: a script read from standard input is refused (InputError), as spawning would
    fail; they leave Ctrl-C to this process (:class:`_NoCtrlC`).

    A local worker that dies (killed, out of memory) is started again by its nanny. dask closes
    that nanny for good when no new worker has joined within ``lost-worker-timeout`` (15 s by
    default), which a restart on a loaded machine outlasts: a pool that lost every worker so
    waited for ever. While a pool of local workers is open, the process's
    ``lost-worker-timeout`` is at least :data:`LOST_WORKER_TIMEOUT` (dask reads it when a
    worker is lost; :class:`_KeepNannies`). A local cluster left without a running worker for
    :data:`NO_WORKERS_TIMEOUT` (all gone, or all paused for memory: dask counts a worker paused
    above ``distributed.worker.memory.pause`` as not running) fails its tasks, and
    :meth:`imap` raises an :class:`InputError` saying so instead of waiting."""

    def __init__(self, scheduler: str | None = None, workers: int = 2) -> None:
        self._cluster: LocalCluster | None = None
        self._keeps = False  # holds _keep_nannies (a local pool until it closes)
        self._plugins: set[str] = set()
        try:
            if scheduler is None:
                _check_main_script()  # (its refusal leaves nothing for close to close)
                _keep_nannies.enter()
                self._keeps = True
                with dask.config.set({_NO_WORKERS: _no_workers_timeout()}):
                    self._cluster = LocalCluster(n_workers=workers, threads_per_worker=1,
                                                 processes=True, host="127.0.0.1",
                                                 dashboard_address=":0")
            self.client = Client(self._cluster) if scheduler is None else _connected(scheduler)
            self.workers = max(1, sum(w["nthreads"] for w in
                                      self.client.scheduler_info()["workers"].values()))
            self._executor = self.client.get_executor(pure=False)
            self._register(_Malloc(), "fstpunct-malloc")
            if self._cluster is not None:
                self._register(_NoCtrlC(), "fstpunct-no-ctrl-c")
        except BaseException:
            self.close()
            raise

    def executor(self) -> Executor:
        return self._executor

    def share(self, name: str, loader: Callable[[], Any]) -> None:
        self._register(_Share(name, loader), f"fstpunct-{name}")

    def imap(self, fn: Callable[[T], R], items: Iterable[T], ahead: int | None = None
             ) -> Iterator[R]:
        try:
            yield from super().imap(fn, items, ahead)
        except NoWorkerError as error:
            raise InputError("the dask cluster has had no running worker for "
                             f"{error.timeout:.0f} s (all gone, or all paused for memory): "
                             "its tasks failed; see dask's log above") from None

    def _register(self, plugin: WorkerPlugin, name: str) -> None:
        self.client.register_plugin(plugin, name=name)
        self._plugins.add(name)

    def close(self) -> None:
        client: Client | None = getattr(self, "client", None)  # None: it failed to open first
        try:
            if client is not None:
                if self._cluster is None and client.status == "running":
                    for name in self._plugins:  # the cluster outlives the pool
                        client.unregister_worker_plugin(name)
                self._plugins.clear()
                client.close()
        finally:
            self._close_local()

    def _close_local(self) -> None:
        """The local cluster (if any) closed and, whatever that raises, the pool's hold on the
        lost-worker timeout let go (:class:`_KeepNannies`), once."""
        cluster, self._cluster = self._cluster, None
        keeps, self._keeps = self._keeps, False
        try:
            if cluster is not None:
                cluster.close()
        finally:
            if keeps:
                _keep_nannies.exit()


def _connected(scheduler: str) -> Client:
    """A client of the cluster whose scheduler is at ``scheduler``; a :class:`Refused` naming
    the address, and saying why in dask's words, if it is malformed (``missing port number``,
    ``unknown address scheme``) or no scheduler answers there (``Timed out trying to connect``,
    after dask's ``distributed.comm.timeouts.connect``)."""
    try:
        return Client(scheduler)
    except (ValueError, OSError) as error:
        raise Refused({"scheduler": scheduler}, "the address of a dask scheduler that answers",
                      str(error)) from error


def _check_main_script() -> None:
    """Refuse (InputError) to start local workers that could not start: dask spawns them, and
    a spawned process first runs the main script again from its file (multiprocessing's
    spawn), which a script read from standard input (``python -``: ``<stdin>``) has not."""
    main = sys.modules.get("__main__")
    path = getattr(main, "__file__", None)
    if path is None or getattr(main, "__spec__", None) is not None:  # python -c, -m, a REPL
        return
    start = getattr(process, "ORIGINAL_DIR", None) or ""  # spawn's (undocumented), else here
    if not os.path.isfile(os.path.join(start, path)):
        raise InputError(f"dask workers cannot start here: each runs the main script again "
                         f"from its file, and {path!r} is none (a script read from standard "
                         "input?); run it from a file, making the pool under "
                         "'if __name__ == \"__main__\":', or give a scheduler")


_NO_WORKERS = "distributed.scheduler.no-workers-timeout"  # read as a scheduler starts


def _at_least(key: str, seconds: float) -> float:
    """dask's setting ``key`` (a time, or None: unset) in seconds, or ``seconds`` if longer."""
    return max(parse_timedelta(dask.config.get(key)) or 0.0, seconds)


def _no_workers_timeout() -> float:
    """:data:`NO_WORKERS_TIMEOUT`, longer by as much as the lost-worker timeout in force is
    longer than :data:`LOST_WORKER_TIMEOUT` (a restart dask waits for is waited for), or
    dask's setting if longer still."""
    return _at_least(_NO_WORKERS, NO_WORKERS_TIMEOUT - LOST_WORKER_TIMEOUT
                     + _at_least(_KeepNannies.key, LOST_WORKER_TIMEOUT))


class _KeepNannies:
    """dask's ``distributed.deploy.lost-worker-timeout`` at least :data:`LOST_WORKER_TIMEOUT`
    from each :meth:`enter` (a local pool opening) until the last :meth:`exit`, which puts
    back the setting from before the first. dask offers it as configuration only, read when a
    worker is lost, so it is set for as long as a local cluster of the pools is open (a
    ``dask.config.set`` made later wins until the next pool opens); the count keeps pools
    closed in any order from putting it back while another is open. A pool opened inside a
    ``with dask.config.set`` of that key and closed after it puts back that block's value,
    which then stays: close it inside the block."""

    key = "distributed.deploy.lost-worker-timeout"

    def __init__(self) -> None:
        self.open = 0
        self._settings = ExitStack()  # each enter's, undone last first: the first's puts back

    def enter(self) -> None:
        self._settings.enter_context(
            dask.config.set({self.key: _at_least(self.key, LOST_WORKER_TIMEOUT)}))
        self.open += 1

    def exit(self) -> None:
        self.open -= 1
        if not self.open:
            self._settings.close()


_keep_nannies = _KeepNannies()


class _Share(WorkerPlugin):
    """Loads one shared value on every worker."""

    def __init__(self, name: str, loader: Callable[[], Any]) -> None:
        self.name, self.loader = name, loader

    def setup(self, worker: object) -> None:
        load(self.name, self.loader)

    def teardown(self, worker: object) -> None:
        forget(self.name)


class _NoCtrlC(WorkerPlugin):
    """SIGINT ignored on a local worker, this pool's or one its nanny starts again (a plugin is
    set up on every worker that joins): a terminal's Ctrl-C reaches its whole process group,
    and each idle worker printed its KeyboardInterrupt's traceback; the pool's process gets it,
    and closing the pool stops them. A worker is blind to it from its setup on (a Ctrl-C in
    the moment it starts still prints one); a cluster's workers elsewhere are left alone."""

    def setup(self, worker: object) -> None:
        signal.signal(signal.SIGINT, signal.SIG_IGN)  # in the worker's main thread (its loop)


class _Malloc(WorkerPlugin):
    """glibc's malloc on a worker as in a plain process, while the pool uses it.

    A dask nanny starts its worker with ``MALLOC_TRIM_THRESHOLD_=65536`` (dask's default
    ``distributed.nanny.pre-spawn-environ``). Setting a threshold turns off glibc's adaptive
    ones, which a plain process has: every block of 128 KiB or more (an E-step's slot stacks
    and count arrays) is then mapped afresh and returned to the system when freed, and every
    page of it faults again on first touch: on en_ewt train that costs a dask worker's E-step
    ~70 % more CPU time than a local worker's (RESULTS.md, "Dask's overhead"). Where the
    environment fixed the thresholds, :meth:`setup` sets them to the values glibc's adaptive
    thresholds reach (32 MiB mapped, 64 MiB trimmed) and :meth:`teardown` puts the
    environment's back; a worker with adaptive thresholds is left alone."""

    def setup(self, worker: object) -> None:
        if fixed_thresholds():
            mallopt(ADAPTIVE)

    def teardown(self, worker: object) -> None:
        if fixed_thresholds():
            mallopt(environment_thresholds())
