"""Stage 0, pools of workers (a bottom module: every stage may use it): one
``concurrent.futures.Executor``-style interface for every parallel job — this process, forked
local processes, or a ``dask.distributed`` cluster (:mod:`.cluster`, optional)."""
from __future__ import annotations

from ..errors import InputError, refuse_count
from .pool import LocalPool, Pool, SerialPool, share_value, shared, value

__all__ = ["LocalPool", "Pool", "SerialPool", "make_pool", "share_value", "shared", "value"]


def make_pool(jobs: int = 1, scheduler: str | None = None,
              dask_workers: int | None = None) -> Pool:
    """The pool a command's options ask for: a dask cluster with ``scheduler`` or
    ``dask_workers``, else ``jobs`` local processes (1: this process)."""
    refuse_count(1, jobs=jobs, dask_workers=dask_workers)
    if scheduler is not None or dask_workers is not None:
        try:
            from .cluster import DaskPool
        except ImportError as error:
            raise InputError("--scheduler and --dask-workers need dask.distributed: "
                             "pip install 'fstpunct[dask]'") from error
        return DaskPool(scheduler, 2 if dask_workers is None else dask_workers)
    return LocalPool(jobs) if jobs > 1 else SerialPool()
