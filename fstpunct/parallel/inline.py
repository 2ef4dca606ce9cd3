"""The executor of a :class:`~.pool.SerialPool`: each task runs when it is submitted. In its own
module, imported when first used, so that a serial run that never submits (``imap`` is
``map``) does not import :mod:`concurrent.futures` and, with it, :mod:`logging`."""
from __future__ import annotations

from collections.abc import Callable
from concurrent.futures import Executor, Future
from typing import Any, TypeVar

__all__ = ["Inline"]

R = TypeVar("R")


class Inline(Executor):
    """Runs each task when it is submitted."""

    def submit(self, fn: Callable[..., R], /, *args: Any, **kwargs: Any) -> Future[R]:
        future: Future[R] = Future()
        try:
            future.set_result(fn(*args, **kwargs))
        except BaseException as error:  # the caller gets it from result()
            future.set_exception(error)
        return future
