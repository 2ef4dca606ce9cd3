"""A :class:`~fstpunct.parallel.pool.Pool` over a ``dask.distributed`` cluster (imported only
when asked for: dask is an optional dependency, ``pip install 'fstpunct[dask]'``)."""
from __future__ import annotations

from collections.abc import Callable
from concurrent.futures import Executor
from typing import Any

from distributed import Client, LocalCluster, WorkerPlugin

from .pool import Pool, forget, load

__all__ = ["DaskPool"]


class DaskPool(Pool):
    """The cluster at ``scheduler`` (an address such as ``tcp://host:8786``), or else a
    ``LocalCluster`` of ``workers`` single-threaded processes started here and stopped by
    :meth:`close`. Every worker runs one task at a time; a shared value is a worker plugin,
    pickled once here and loaded once on every worker (workers that join later too)."""

    def __init__(self, scheduler: str | None = None, workers: int = 2) -> None:
        self._cluster = None
        if scheduler is None:
            self._cluster = LocalCluster(n_workers=workers, threads_per_worker=1,
                                         processes=True, host="127.0.0.1",
                                         dashboard_address=":0")
            self.client = Client(self._cluster)
        else:
            self.client = Client(scheduler)
        self.workers = max(1, sum(w["nthreads"] for w in
                                  self.client.scheduler_info()["workers"].values()))
        self._executor = self.client.get_executor(pure=False)

    def executor(self) -> Executor:
        return self._executor

    def share(self, name: str, loader: Callable[[], Any]) -> None:
        self.client.register_plugin(_Share(name, loader), name=f"fstpunct-{name}")

    def close(self) -> None:
        self.client.close()
        if self._cluster is not None:
            self._cluster.close()


class _Share(WorkerPlugin):
    """Loads one shared value on every worker."""

    def __init__(self, name: str, loader: Callable[[], Any]) -> None:
        self.name, self.loader = name, loader

    def setup(self, worker: object) -> None:
        load(self.name, self.loader)

    def teardown(self, worker: object) -> None:
        forget(self.name)
