"""Unconstrained L-BFGS for the Attach M-step: scipy's L-BFGS-B without bounds, step for step,
with its own vector work cheaper (:func:`minimize`).

scipy's L-BFGS-B (its defaults: 10 pairs, Moré–Thuente line search with ftol 1e-3, gtol 0.9,
xtol 0.1, at most 20 evaluations per search, a first step of 1/‖d‖ and then 1; stop at a
projected gradient ≤ pgtol or a relative decrease ≤ factr · ε) makes, without bounds, the
quasi-Newton step d = −H g of the limited-memory inverse H built from the same pairs (s, y) and
scaling γ = sᵀy / yᵀy (Byrd, Nocedal and Schnabel 1994, the compact form): the same iterates in
exact arithmetic. It spends about 80 ms per iteration on a million weights, mostly in passes
over its 2 × 10 stored vectors and in copies of x; here each iteration makes two passes over
the stored vectors (their products with g and y, one matrix product; the new direction, one
more), and the 2m × 2m algebra is tiny. The line search is scipy's own (MINPACK-2's ``dcsrch``,
:class:`scipy.optimize._dcsrch.DCSRCH`), so its decisions are L-BFGS-B's; the iterates differ
from L-BFGS-B's in the last bits (the order of the sums)."""
from __future__ import annotations

from collections.abc import Callable
from typing import NamedTuple

import numpy as np

__all__ = ["Result", "minimize"]

_EPS = float(np.finfo(float).eps)
_STPMAX = 1e10  # L-BFGS-B's largest step without bounds


class Result(NamedTuple):
    """The last accepted point, its value and gradient, the iterations and evaluations made and
    why the search stopped."""

    x: np.ndarray
    fun: float
    jac: np.ndarray
    nit: int
    nfev: int
    message: str


class _Memory:
    """The last ``m`` pairs (s, y) as rows of S and Y (a ring: the oldest row is overwritten),
    with the products the compact inverse needs, in age order (oldest first):
    R[i, j] = sᵢᵀyⱼ (i ≤ j) and YᵀY."""

    def __init__(self, n: int, m: int) -> None:
        self.m, self.col, self.head = m, 0, 0
        self.s, self.y = np.zeros((m, n)), np.zeros((m, n))
        self.sy, self.yy = np.zeros((m, m)), np.zeros((m, m))
        self.gamma = 1.0

    def reset(self) -> None:
        self.col, self.head, self.gamma = 0, 0, 1.0

    @property
    def order(self) -> np.ndarray:
        """The rows of the stored pairs, oldest first."""
        return (self.head + np.arange(self.col)) % self.m

    def add(self, s: np.ndarray, y: np.ndarray, sy: float, yy: float) -> None:
        """Append a pair (dropping the oldest when full), ``sy`` = sᵀy and ``yy`` = yᵀy; its
        products with the older pairs' y are one pass over them."""
        m, k = self.m, self.col
        if k == m:  # drop the oldest
            self.sy[:-1, :-1], self.yy[:-1, :-1] = self.sy[1:, 1:], self.yy[1:, 1:]
            row, self.head, k = self.head, (self.head + 1) % m, k - 1
        else:
            row = k
        order = self.order[:k] if self.col == m else np.arange(k)
        self.sy[:k, k] = (self.s[:self.col] @ y)[order] if k else ()
        self.yy[:k, k] = self.yy[k, :k] = (self.y[:self.col] @ y)[order] if k else ()
        self.s[row], self.y[row] = s, y
        self.sy[k, k], self.yy[k, k] = sy, yy
        self.col, self.gamma = k + 1, sy / yy

    def direction(self, g: np.ndarray) -> np.ndarray:
        """−H g: H = γI + [S γY] N [Sᵀ; γYᵀ] with N from R, D = diag(R) and YᵀY."""
        k, gamma = self.col, self.gamma
        if k == 0:
            return -g
        from scipy.linalg import solve_triangular  # training only

        order, s, y = self.order, self.s[:k], self.y[:k]
        a, b = (s @ g)[order], (y @ g)[order]
        r = np.triu(self.sy[:k, :k])
        v = solve_triangular(r, a)
        p1 = solve_triangular(r, np.diag(r) * v + gamma * (self.yy[:k, :k] @ v) - gamma * b,
                              trans="T")
        cs, cy = np.empty(k), np.empty(k)
        cs[order], cy[order] = p1, -gamma * v
        d = cs @ s
        d += cy @ y
        d += gamma * g
        return np.negative(d, out=d)


def minimize(fun: Callable[[np.ndarray], tuple[float, np.ndarray]], x0: np.ndarray,
             maxiter: int, m: int = 10, maxls: int = 20, pgtol: float = 1e-5,
             factr: float = 1e7) -> Result:
    """Minimise ``fun`` (returning the value and the gradient) from ``x0`` by at most
    ``maxiter`` L-BFGS iterations, as scipy's ``minimize(method="L-BFGS-B")`` without bounds
    does with the same options (module docstring). Where scipy's line search is not where
    scipy 1.12–1.17 keep it (a private module), scipy's L-BFGS-B itself runs instead."""
    try:
        from scipy.optimize._dcsrch import DCSRCH  # training only; MINPACK-2's dcsrch
    except ImportError:
        DCSRCH = None
    if not hasattr(DCSRCH, "_iterate"):  # moved or gone (None has no _iterate either)
        return _scipy_lbfgsb(fun, x0, maxiter, m, maxls, pgtol, factr)

    x = np.array(x0, dtype=np.float64)
    f, g = fun(x)
    nfev, nit = 1, 0
    memory = _Memory(len(x), m)
    if np.max(np.abs(g), initial=0.0) <= pgtol:
        return Result(x, f, g, 0, nfev, "converged: projected gradient <= pgtol")
    while nit < maxiter:
        d = memory.direction(g)
        gd0 = float(g @ d)
        if gd0 >= 0.0:  # not a descent direction: L-BFGS-B starts again from −g
            if memory.col == 0:
                return Result(x, f, g, nit, nfev, "abnormal: no descent direction")
            memory.reset()
            continue
        search = DCSRCH(None, None, 1e-3, 0.9, 0.1, 0.0, _STPMAX)
        stp = min(1.0 / float(np.sqrt(d @ d)), _STPMAX) if nit == 0 else 1.0
        stp, fs, gds, task = search._iterate(stp, f, gd0, b"START")
        tries = 0
        while task[:2] == b"FG" and tries < maxls:
            xs = x + d if stp == 1.0 else x + stp * d
            fs, gs = fun(xs)
            nfev, tries = nfev + 1, tries + 1
            gds = float(gs @ d)
            stp, fs, gds, task = search._iterate(stp, fs, gds, task)
        if task[:4] not in (b"CONV", b"WARN"):  # failed: start again from −g at x
            if memory.col == 0:
                return Result(x, f, g, nit, nfev, f"abnormal line search: {task.decode()}")
            memory.reset()
            continue
        nit += 1
        y = gs - g
        s = d if stp == 1.0 else d * stp
        sy, scale = (gds - gd0, -gd0) if stp == 1.0 else ((gds - gd0) * stp, -gd0 * stp)
        fold, x, f, g = f, xs, fs, gs
        if np.max(np.abs(g)) <= pgtol:
            return Result(x, f, g, nit, nfev, "converged: projected gradient <= pgtol")
        if fold - f <= factr * _EPS * max(abs(fold), abs(f), 1.0):
            return Result(x, f, g, nit, nfev, "converged: relative reduction <= factr * eps")
        if sy > _EPS * scale:  # else L-BFGS-B skips the pair
            memory.add(s, y, sy, float(y @ y))
    return Result(x, f, g, nit, nfev, "iterations reached maxiter")


def _scipy_lbfgsb(fun: Callable[[np.ndarray], tuple[float, np.ndarray]], x0: np.ndarray,
                  maxiter: int, m: int, maxls: int, pgtol: float, factr: float) -> Result:
    """:func:`minimize` by scipy's own L-BFGS-B (public API) with the same options."""
    from scipy.optimize import minimize as lbfgsb

    r = lbfgsb(fun, np.array(x0, dtype=np.float64), jac=True, method="L-BFGS-B",
               options={"maxiter": maxiter, "maxcor": m, "maxls": maxls, "gtol": pgtol,
                        "ftol": factr * _EPS})
    return Result(r.x, float(r.fun), r.jac, int(r.nit), int(r.nfev), str(r.message))
