"""Semirings over nonnegative reals, and scaled matrices for long products.

Both semirings share ordinary multiplication as ⊗; they differ in ⊕ (sum or max), which also
fixes the matrix product. A :class:`Semiring` is a class of static operations, passed around as a
type (as in torch-struct); the tree recursion in :mod:`.treedp` is written once against it.

A :class:`Scaled` matrix stands for ``exp(log_scale) * mat`` with ``mat``'s largest entry 1, so a
product over a 250-word sentence neither underflows nor needs log-space arithmetic. The zero
matrix is kept as zeros with scale 0 (never ``-inf``), so scales stay finite.
"""
from __future__ import annotations

import math
from typing import NamedTuple

import numpy as np

__all__ = ["Semiring", "SumProduct", "MaxProduct", "Scaled", "rescale"]

# MaxProduct.matmul materialises the (..., L, M, N) product tensor up to this many entries, and
# loops over the inner dimension M beyond it (memory O(L·N) instead of O(L·M·N)).
_BROADCAST_LIMIT = 1 << 15


class Semiring:
    """⊕-reduction and ⊕/⊗ matrix product over nonnegative arrays (⊗ = ordinary ``*``)."""

    @staticmethod
    def sum(x: np.ndarray, axis: int | tuple[int, ...] | None) -> np.ndarray:
        raise NotImplementedError

    @staticmethod
    def matmul(a: np.ndarray, b: np.ndarray) -> np.ndarray:
        """Matrix product over the last two axes, broadcasting leading axes like ``np.matmul``."""
        raise NotImplementedError

    @staticmethod
    def scatter(index: np.ndarray, weights: np.ndarray, size: int) -> np.ndarray:
        """``out[t] = ⊕ {weights[j] : index[j] = t}`` for t < ``size`` (0 where there is none)."""
        raise NotImplementedError

    @staticmethod
    def matvec(m: np.ndarray, x: np.ndarray) -> np.ndarray:
        """``out[..., s] = ⊕_t m[..., s, t] ⊗ x[t]``: matrices (or rows) times a vector."""
        raise NotImplementedError

    @staticmethod
    def vecmat(x: np.ndarray, m: np.ndarray) -> np.ndarray:
        """``out[..., t] = ⊕_s x[s] ⊗ m[..., s, t]``: a vector times matrices (or rows)."""
        raise NotImplementedError


class SumProduct(Semiring):
    """The real semiring (+, ×): totals and expectations."""

    @staticmethod
    def sum(x: np.ndarray, axis: int | tuple[int, ...] | None) -> np.ndarray:
        return np.sum(x, axis=axis)

    @staticmethod
    def matmul(a: np.ndarray, b: np.ndarray) -> np.ndarray:
        return np.matmul(a, b)

    @staticmethod
    def scatter(index: np.ndarray, weights: np.ndarray, size: int) -> np.ndarray:
        return np.bincount(index, weights=weights, minlength=size).astype(float, copy=False)

    @staticmethod
    def matvec(m: np.ndarray, x: np.ndarray) -> np.ndarray:
        return m @ x

    @staticmethod
    def vecmat(x: np.ndarray, m: np.ndarray) -> np.ndarray:
        return x @ m


class MaxProduct(Semiring):
    """The Viterbi semiring (max, ×): best derivations."""

    @staticmethod
    def sum(x: np.ndarray, axis: int | tuple[int, ...] | None) -> np.ndarray:
        return np.max(x, axis=axis, initial=0.0)  # 0 is ⊕'s identity on nonnegative reals

    @staticmethod
    def matmul(a: np.ndarray, b: np.ndarray) -> np.ndarray:
        inner = a.shape[-1]
        shape = np.broadcast_shapes(a.shape[:-2], b.shape[:-2]) + (a.shape[-2], b.shape[-1])
        if inner * int(np.prod(shape)) <= _BROADCAST_LIMIT:
            return (a[..., :, :, None] * b[..., None, :, :]).max(axis=-2, initial=0.0)
        out, term = np.zeros(shape), np.empty(shape)
        for t in range(inner):
            np.multiply(a[..., :, t, None], b[..., None, t, :], out=term)
            np.maximum(out, term, out=out)
        return out

    @staticmethod
    def scatter(index: np.ndarray, weights: np.ndarray, size: int) -> np.ndarray:
        out = np.zeros(size)
        np.maximum.at(out, index, weights)
        return out

    @staticmethod
    def matvec(m: np.ndarray, x: np.ndarray) -> np.ndarray:
        return np.max(m * x, axis=-1, initial=0.0)

    @staticmethod
    def vecmat(x: np.ndarray, m: np.ndarray) -> np.ndarray:
        return np.max(x[:, None] * m, axis=-2, initial=0.0)


class Scaled(NamedTuple):
    """The array ``exp(log_scale) * mat``; ``mat.max()`` is 1, or ``mat`` is all zeros."""

    mat: np.ndarray
    log_scale: float


def rescale(mat: np.ndarray, log_scale: float = 0.0) -> Scaled:
    """``exp(log_scale) * mat`` as a :class:`Scaled` (``mat`` nonnegative)."""
    top = float(mat.max()) if mat.size else 0.0
    if top == 0.0:
        return Scaled(np.zeros_like(mat), 0.0)
    if top == 1.0:
        return Scaled(mat, log_scale)
    return Scaled(mat / top, log_scale + math.log(top))
