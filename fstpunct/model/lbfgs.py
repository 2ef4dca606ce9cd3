"""Unconstrained L-BFGS for the Attach M-step: scipy's L-BFGS-B without bounds, step for step,
with its own vector work cheaper and shared by threads (:func:`minimize`).

scipy's L-BFGS-B (its defaults: 10 pairs, Moré–Thuente line search with ftol 1e-3, gtol 0.9,
xtol 0.1, at most 20 evaluations per search, a first step of 1/‖d‖ and then 1; stop at a
projected gradient ≤ pgtol or a relative decrease ≤ factr · ε) makes, without bounds, the
quasi-Newton step d = −H g of the limited-memory inverse H built from the same pairs (s, y) and
scaling γ = sᵀy / yᵀy (Byrd, Nocedal and Schnabel 1994, the compact form): the same iterates in
exact arithmetic. It spends about 80 ms per iteration on a million weights, mostly in passes
over its 2 × 10 stored vectors and in copies of x. Here an iteration makes two passes over the
stored vectors, compiled (:mod:`._lbfgs`): one stores the new pair and takes every stored
vector's products with the new y and g (and max |g|), the other makes the new direction (and
gᵀd); the 2m × 2m algebra is tiny. Each pass is cut into fixed chunks of the vectors, shared by
the threads given, and the chunks' partial sums are added in chunk order, so the iterates do
not depend on the number of threads. The line search is scipy's own (MINPACK-2's ``dcsrch``,
:class:`scipy.optimize._dcsrch.DCSRCH`), so its decisions are L-BFGS-B's; the iterates differ
from L-BFGS-B's in the last bits (the order of the sums)."""
from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, NamedTuple

import numpy as np

from . import _lbfgs

if TYPE_CHECKING:
    from concurrent.futures import Executor

__all__ = ["Result", "contiguous_ranges", "minimize"]

_EPS = float(np.finfo(float).eps)
_STPMAX = 1e10  # L-BFGS-B's largest step without bounds
CHUNK = 1 << 13  # entries of the vectors per partial sum (fixed: the sums' order)


class Result(NamedTuple):
    """The last accepted point, its value and gradient, the iterations and evaluations made and
    why the search stopped."""

    x: np.ndarray
    fun: float
    jac: np.ndarray
    nit: int
    nfev: int
    message: str


def contiguous_ranges(n: int, parts: int) -> list[tuple[int, int]]:
    """0..n split into ``parts`` contiguous, nearly equal ranges (a, b), in order (bounds
    i·n // parts; ranges may be empty when n < parts): one per thread, or a jackknife's folds
    (:func:`fstpunct.parser.tagger.jackknifed`)."""
    return [(i * n // parts, (i + 1) * n // parts) for i in range(parts)]


class _Passes:
    """The chunks of vectors of ``n`` entries (:data:`CHUNK` each) split into one contiguous
    range per thread; :meth:`run` runs a compiled pass over every range on ``threads``."""

    def __init__(self, n: int, threads: Executor | None, workers: int) -> None:
        self.n_chunks = -(-n // CHUNK)
        self.threads = threads
        self.ranges = [(a, b) for a, b in contiguous_ranges(self.n_chunks, max(workers, 1))
                       if b > a]

    def run(self, kernel: Callable[..., None], *args: object) -> None:
        def part(bounds: tuple[int, int]) -> None:
            kernel(*args, CHUNK, *bounds)

        if self.threads is None or len(self.ranges) < 2:
            for bounds in self.ranges:
                part(bounds)
        else:
            list(self.threads.map(part, self.ranges))

    def dot(self, u: np.ndarray, v: np.ndarray) -> float:
        """u · v (chunk by chunk, then the chunks in order)."""
        out = np.empty(self.n_chunks)
        self.run(_lbfgs.dot, u, v, out)
        return float(out.sum())


class _Memory:
    """The last ``m`` pairs (s, y) as rows of one array (a ring: pair r's s in row r, its y in
    row m + r; the oldest pair is overwritten), with the products the compact inverse needs, in
    age order (oldest first): R[i, j] = sᵢᵀyⱼ (i ≤ j), YᵀY, and Sᵀg, Yᵀg for the current g."""

    def __init__(self, n: int, m: int, passes: _Passes) -> None:
        self.m, self.col, self.head, self.passes = m, 0, 0, passes
        self.rows = np.zeros((2 * m, n))
        self.sy, self.yy = np.zeros((m, m)), np.zeros((m, m))
        self.sg, self.yg = np.zeros(m), np.zeros(m)
        self.gamma = 1.0

    def reset(self) -> None:
        self.col, self.head, self.gamma = 0, 0, 1.0

    @property
    def order(self) -> np.ndarray:
        """The stored pairs' ring slots, oldest first."""
        return (self.head + np.arange(self.col)) % self.m

    @property
    def which(self) -> np.ndarray:
        """The rows of the stored pairs' s, then of their y, oldest first."""
        order = self.order
        return np.concatenate([order, self.m + order]).astype(np.intp)

    def update(self, g: np.ndarray, g_old: np.ndarray, d: np.ndarray, stp: float,
               sy: float | None) -> float:
        """The new gradient ``g``: if ``sy`` (= sᵀy) is given, first append the pair s = stp · d,
        y = g − g_old (dropping the oldest when full); one pass then takes the stored vectors'
        products with y and g. Returns max |g|."""
        m, k = self.m, self.col
        y_row = s_row = -1
        if sy is not None:
            if k == m:  # drop the oldest
                self.sy[:-1, :-1], self.yy[:-1, :-1] = self.sy[1:, 1:], self.yy[1:, 1:]
                s_row, self.head, k = self.head, (self.head + 1) % m, k - 1
            else:
                s_row = k
            self.col, y_row = k + 1, m + s_row
        which = self.which
        passes = self.passes
        out, top = np.empty((passes.n_chunks, len(which), 2)), np.empty(passes.n_chunks)
        passes.run(_lbfgs.update, self.rows, which, s_row, y_row, d, stp, g, g_old, out, top)
        products = out.sum(axis=0)
        col = self.col
        if sy is not None:  # the new pair is the last (column k): sᵀy as L-BFGS-B takes it
            self.sy[:k, k] = products[:k, 1]
            self.yy[:k, k] = self.yy[k, :k] = products[col:col + k, 1]
            self.sy[k, k], self.yy[k, k] = sy, products[col + k, 1]
            self.gamma = sy / self.yy[k, k]
        self.sg[:col], self.yg[:col] = products[:col, 0], products[col:, 0]
        return float(top.max(initial=0.0))

    def direction(self, g: np.ndarray, d: np.ndarray) -> tuple[float, float]:
        """d = −H g: H = γI + [S γY] N [Sᵀ; γYᵀ] with N from R, D = diag(R) and YᵀY (Sᵀg and Yᵀg
        from the last :meth:`update`); returns (gᵀd, dᵀd)."""
        k, gamma = self.col, self.gamma
        coef = np.empty(2 * k)
        if k:
            from scipy.linalg import solve_triangular  # training only

            r = np.triu(self.sy[:k, :k])
            v = solve_triangular(r, self.sg[:k])
            coef[:k] = solve_triangular(
                r, np.diag(r) * v + gamma * (self.yy[:k, :k] @ v) - gamma * self.yg[:k],
                trans="T")
            coef[k:] = -gamma * v
        out = np.empty((self.passes.n_chunks, 2))
        self.passes.run(_lbfgs.direction, self.rows, self.which, coef, gamma, g, d, out)
        gd, dd = out.sum(axis=0)
        return float(gd), float(dd)


def minimize(fun: Callable[[np.ndarray], tuple[float, np.ndarray]], x0: np.ndarray,
             maxiter: int, m: int = 10, maxls: int = 20, pgtol: float = 1e-5,
             factr: float = 1e7, threads: Executor | None = None, workers: int = 1) -> Result:
    """Minimise ``fun`` (returning the value and the gradient) from ``x0`` by at most
    ``maxiter`` L-BFGS iterations, as scipy's ``minimize(method="L-BFGS-B")`` without bounds
    does with the same options (module docstring); the passes over the vectors run on
    ``threads`` (an executor of ``workers`` threads), if given: the same iterates for any
    number. ``fun`` must not keep its argument (the array is reused). Where scipy's line search
    is not where scipy 1.12–1.17 keep it (a private module), scipy's L-BFGS-B itself runs
    instead."""
    try:
        from scipy.optimize._dcsrch import DCSRCH  # training only; MINPACK-2's dcsrch
    except ImportError:
        DCSRCH = None
    if not hasattr(DCSRCH, "_iterate"):  # moved or gone (None has no _iterate either)
        return _scipy_lbfgsb(fun, x0, maxiter, m, maxls, pgtol, factr)

    x = np.array(x0, dtype=np.float64)
    f, g = fun(x)
    nfev, nit = 1, 0
    passes = _Passes(len(x), threads, workers)
    memory = _Memory(len(x), m, passes)
    if np.max(np.abs(g), initial=0.0) <= pgtol:
        return Result(x, f, g, 0, nfev, "converged: projected gradient <= pgtol")
    d, xs = np.empty_like(x), np.empty_like(x)
    while nit < maxiter:
        gd0, dd = memory.direction(g, d)
        if gd0 >= 0.0:  # not a descent direction: L-BFGS-B starts again from −g
            if memory.col == 0:
                return Result(x, f, g, nit, nfev, "abnormal: no descent direction")
            memory.reset()
            continue
        search = DCSRCH(None, None, 1e-3, 0.9, 0.1, 0.0, _STPMAX)
        stp = min(1.0 / float(np.sqrt(dd)), _STPMAX) if nit == 0 else 1.0
        stp, fs, gds, task = search._iterate(stp, f, gd0, b"START")
        tries = 0
        while task[:2] == b"FG" and tries < maxls:
            passes.run(_lbfgs.step, x, d, stp, xs)
            fs, gs = fun(xs)
            nfev, tries = nfev + 1, tries + 1
            gds = passes.dot(gs, d)
            stp, fs, gds, task = search._iterate(stp, fs, gds, task)
        if task[:4] not in (b"CONV", b"WARN"):  # failed: start again from −g at x
            if memory.col == 0:
                return Result(x, f, g, nit, nfev, f"abnormal line search: {task.decode()}")
            memory.reset()
            continue
        nit += 1
        sy, scale = (gds - gd0, -gd0) if stp == 1.0 else ((gds - gd0) * stp, -gd0 * stp)
        fold, f = f, fs
        x, xs = xs, x
        top = memory.update(gs, g, d, stp, sy if sy > _EPS * scale else None)  # else L-BFGS-B
        g = gs                                                                 # skips the pair
        if top <= pgtol:
            return Result(x, f, g, nit, nfev, "converged: projected gradient <= pgtol")
        if fold - f <= factr * _EPS * max(abs(fold), abs(f), 1.0):
            return Result(x, f, g, nit, nfev, "converged: relative reduction <= factr * eps")
    return Result(x, f, g, nit, nfev, "iterations reached maxiter")


def _scipy_lbfgsb(fun: Callable[[np.ndarray], tuple[float, np.ndarray]], x0: np.ndarray,
                  maxiter: int, m: int, maxls: int, pgtol: float, factr: float) -> Result:
    """:func:`minimize` by scipy's own L-BFGS-B (public API) with the same options."""
    from scipy.optimize import minimize as lbfgsb

    r = lbfgsb(fun, np.array(x0, dtype=np.float64), jac=True, method="L-BFGS-B",
               options={"maxiter": maxiter, "maxcor": m, "maxls": maxls, "gtol": pgtol,
                        "ftol": factr * _EPS})
    return Result(r.x, float(r.fun), r.jac, int(r.nit), int(r.nfev), str(r.message))
