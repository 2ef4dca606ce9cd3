"""The Attach model's M-step (DESIGN §3): θ fitted to expected pair counts by L-BFGS on threads.

Training only: decoding never imports this module (nor, through it, :mod:`logging`,
:mod:`concurrent.futures` and :mod:`.lbfgs`). :class:`_MStep` evaluates the objective over the
pieces of :class:`~.attach.AttachData`'s candidate sets (:attr:`~.attach._Group.pieces`);
:func:`objective` is one evaluation, :func:`fit` the M-step.
"""
from __future__ import annotations

import logging
from collections.abc import Callable, Iterator
from concurrent.futures import Executor, ThreadPoolExecutor
from contextlib import contextmanager
from typing import TYPE_CHECKING

import numpy as np

from ..dp.sparse import pointers
from ..errors import refuse_count
from ._attach import add_blocks, merge_rows, nonzero_rows
from .attach import AttachData, pair_scores, row_chunks
from .lbfgs import contiguous_ranges, minimize
from .threads import each

if TYPE_CHECKING:
    from .attach import _Piece

__all__ = ["objective", "fit"]

log = logging.getLogger(__name__)


class _MStep:
    """The M-step's objective Σ_rows targets · log p_θ − (l2/2)‖θ − center‖² (:func:`objective`)
    for fixed targets, prepared once: the targets merged per distinct context row and cut into
    each group's :attr:`~.attach._Group.pieces`. An evaluation runs the pieces as tasks (largest
    first) on ``threads`` and adds their terms and gradient blocks in a fixed order (piece by
    piece, group by group), so its value and gradient do not depend on the number of threads.
    The large arrays of an evaluation (Θ Gᵀ, its gradient, the pieces' gradient blocks) are
    allocated once and overwritten by each evaluation: fresh ones cost the kernel's page
    faults and zeroing, a fifth of an evaluation's time. ``threads``, a pool of ``workers``
    threads (:func:`~.threads.each`), runs the set-up (merging the targets, finding their
    nonzero rows) and every evaluation (:meth:`__call__`): it must stay open while they run."""

    def __init__(self, data: AttachData, targets: np.ndarray, l2: float,
                 center: np.ndarray | None = None, threads: Executor | None = None,
                 workers: int = 1) -> None:
        self.data, self.l2, self.center = data, l2, center
        self.threads, self.workers = threads, workers
        targets = np.ascontiguousarray(targets, dtype=np.float64)

        def merge(k: int) -> list[tuple[_Piece, np.ndarray, np.ndarray, int]]:
            g = data.groups[k]
            order = g.prefixes[0]  # the pieces' rows, one after the other
            position = np.empty(len(order), dtype=np.intp)
            position[order] = np.arange(len(order))
            merged = np.empty((len(order), len(g.candidates)))
            merge_rows(targets, data.node_offsets[g.nodes], position[g.inverse], merged)
            mass, first, tasks = merged.sum(axis=1), 0, []
            for piece in g.pieces:
                last = first + len(piece.rows)
                tasks.append((piece, merged[first:last], mass[first:last], k))
                first = last
            return tasks

        # on the threads: merging writes 120 MB of fresh pages on en_ewt train
        self.tasks = [task for tasks in each(threads, workers, merge, range(len(data.groups)))
                      for task in tasks]
        self.nonzero = each(threads, workers, lambda task: nonzero_rows(task[1]), self.tasks)
        self.largest_first = sorted(range(len(self.tasks)), key=lambda k: -self.tasks[k][0].work)
        self.gathered = [np.empty((len(g.used), len(g.candidates))) for g in data.groups]
        self.gather_order = sorted(range(len(data.groups)),
                                   key=lambda k: -self.gathered[k].size)
        model = data.model
        self.st = np.empty((len(model.contexts), model.pair_matrix.n_rows))
        self.d_st = np.empty_like(self.st)
        self.blocks = [np.empty((len(piece.used), len(piece.candidates)))
                       for piece, _, _, _ in self.tasks]
        self.columns = [piece.candidates for piece, _, _, _ in self.tasks]
        # the blocks' rows listed by their row of d(Θ Gᵀ), in task order: (pointers, task, row)
        used = np.concatenate([piece.used for piece, _, _, _ in self.tasks])
        order = np.argsort(used, kind="stable")
        tasks = np.repeat(np.arange(len(self.tasks), dtype=np.intp), [len(b) for b in self.blocks])
        rows = np.concatenate([np.arange(len(b), dtype=np.intp) for b in self.blocks])
        self.scatter = (pointers(used, len(self.st)), tasks[order], rows[order])
        # d(Θ Gᵀ) · G as d(Θ Gᵀ) · (Gᵀ)ᵀ: a compiled pass over four rows at a time, the bits of
        # Csr.rmatmul's (G's entries are finite: Csr.transpose), about a quarter of its time
        self.transposed = (model.pair_matrix.transpose(), model.side_matrix.transpose())
        self.offset, self.scaled = np.empty(model.size), np.empty(model.size)
        self.grad = np.empty(model.size)

    def free(self, theta0: np.ndarray) -> np.ndarray:
        """Which weights of θ can move from ``theta0`` (a mask): those the data give a gradient
        (:attr:`~.attach.AttachData.touched`) and those not at the prior's centre. Every other
        weight has gradient 0 at every θ that keeps it, so L-BFGS never moves it (its components
        of every step and gradient difference are 0)."""
        return self.data.touched | (theta0 != (0.0 if self.center is None else self.center))

    def __call__(self, theta: np.ndarray) -> tuple[float, np.ndarray]:
        """The objective and its gradient at ``theta`` (on the pool given at construction; the
        gradient's array is overwritten by the next call)."""
        model, threads, workers = self.data.model, self.threads, self.workers
        st, d_st = pair_scores(theta, model, threads, workers, self.st), self.d_st
        groups = self.data.groups
        each(threads, workers, lambda k: groups[k].gather(st, self.gathered[k]),
             self.gather_order)

        def task(k: int) -> float:
            piece, targets, mass, group = self.tasks[k]
            return piece.fit(self.gathered[group], targets, mass, self.blocks[k],
                             self.nonzero[k])[0]

        terms = dict(zip(self.largest_first, each(threads, workers, task, self.largest_first)))

        def reduce(rows: tuple[int, int]) -> None:  # every entry adds its terms in task order
            add_blocks(d_st, *rows, *self.scatter, self.blocks, self.columns)

        each(threads, workers, reduce, contiguous_ranges(len(st), workers))  # rows of d_st
        offset, grad = theta if self.center is None else self.offset, self.grad
        views = [model.blocks(a) for a in (grad, offset, self.scaled)]
        centred = None if self.center is None else [model.blocks(a) for a in (theta, self.center)]

        def gradient(rows: slice) -> None:  # and the prior's share, entry by entry
            lexical = rows.start >= model.n_base
            at = slice(rows.start - model.n_base, rows.stop - model.n_base) if lexical else rows
            g, o, scaled = (view[lexical][at] for view in views)
            self.transposed[lexical].rmatmul_t(d_st[rows], out=g)
            if centred is not None:  # o = θ − centre (else o is θ)
                t, c = (view[lexical][at] for view in centred)
                np.subtract(t, c, out=o)
            g -= np.multiply(o, self.l2, out=scaled)

        each(threads, workers, gradient, row_chunks(model))
        value = -0.5 * self.l2 * float(offset @ offset)
        for k in range(len(self.tasks)):
            value += terms[k]
        return value, grad


def objective(theta: np.ndarray, data: AttachData, targets: np.ndarray, l2: float,
              center: np.ndarray | None = None, threads: int = 1) -> tuple[float, np.ndarray]:
    """Σ_rows targets · log p_θ − (l2/2)‖θ − center‖² (center: 0 unless given, e.g.
    :meth:`~.attach.AttachModel.init_theta`) and its gradient in θ, computed on ``threads``
    threads (the same value and gradient for any number)."""
    with _threads(threads) as pool:
        return _MStep(data, targets, l2, center, pool, threads)(theta)


def fit(theta0: np.ndarray, data: AttachData, targets: np.ndarray, l2: float,
        maxiter: int = 50, center: np.ndarray | None = None, threads: int = 1,
        evaluated: Callable[[float], None] | None = None) -> np.ndarray:
    """M-step: maximise :func:`objective` from ``theta0`` with L-BFGS (at most ``maxiter``
    iterations) on ``threads`` threads (θ the same for any number); ``targets`` are expected
    pair counts aligned with the rows of ``data``; ``evaluated(value)`` is called after each
    evaluation of the objective. L-BFGS (:func:`~.lbfgs.minimize`: scipy's L-BFGS-B step for step,
    with cheaper vector work, on the same threads) runs over the weights that can move
    (:meth:`_MStep.free`; the others keep ``theta0``'s values, as they would in L-BFGS over all
    of θ): its own work per iteration is proportional to their number."""
    refuse_count(1, attach_iterations=maxiter)
    with _threads(threads) as pool:
        problem = _MStep(data, targets, l2, center, pool, threads)
        theta = np.array(theta0, dtype=np.float64)
        free = np.flatnonzero(problem.free(theta))  # indices: copies 2–3 times faster than a mask
        parts = [slice(a, b) for a, b in contiguous_ranges(len(free), threads)]  # each thread's

        def loss(x: np.ndarray) -> tuple[float, np.ndarray]:
            each(pool, threads, lambda part: theta.__setitem__(free[part], x[part]), parts)
            value, grad = problem(theta)
            if evaluated:
                evaluated(value)
            moving = np.empty(len(free))

            def take(part: slice) -> None:
                np.negative(grad.take(free[part]), out=moving[part])

            each(pool, threads, take, parts)
            return -value, moving

        result = minimize(loss, theta[free], maxiter, threads=pool, workers=threads)
    log.debug("attach M-step: %d iterations, %d evaluations, objective %.6g (%s)", result.nit,
              result.nfev, -result.fun, result.message)
    theta[free] = result.x
    return theta


@contextmanager
def _threads(threads: int) -> Iterator[Executor | None]:
    """A pool of ``threads`` threads (None for one: the work runs in this thread)."""
    refuse_count(1, threads=threads)
    if threads == 1:
        yield None
        return
    with ThreadPoolExecutor(threads) as pool:
        yield pool
