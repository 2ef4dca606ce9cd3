"""Semirings over nonnegative reals, and scaled matrices for long products.

Both semirings share ordinary multiplication as ⊗; they differ in ⊕ (sum or max), which also
fixes the matrix product. A :class:`Semiring` is a class of static operations, passed around as a
type (as in torch-struct); the tree recursion in :mod:`fstpunct.treedp` is written once against it.

A :class:`Scaled` matrix stands for ``exp(log_scale) * mat`` with ``mat``'s largest entry 1, so a
product over a 250-word sentence neither underflows nor needs log-space arithmetic. The zero
matrix is kept as zeros with scale 0 (never ``-inf``), so scales stay finite.
"""
from __future__ import annotations

from typing import NamedTuple

import numpy as np

__all__ = ["Semiring", "SumProduct", "MaxProduct", "Scaled", "rescale"]


class Semiring:
    """⊕-reduction and ⊕/⊗ matrix product over nonnegative arrays (⊗ = ordinary ``*``)."""

    @staticmethod
    def sum(x: np.ndarray, axis: int | tuple[int, ...] | None) -> np.ndarray:
        raise NotImplementedError

    @staticmethod
    def matmul(a: np.ndarray, b: np.ndarray) -> np.ndarray:
        """Matrix product over the last two axes, broadcasting leading axes like ``np.matmul``."""
        raise NotImplementedError


class SumProduct(Semiring):
    """The real semiring (+, ×): totals and expectations."""

    @staticmethod
    def sum(x: np.ndarray, axis: int | tuple[int, ...] | None) -> np.ndarray:
        return np.sum(x, axis=axis)

    @staticmethod
    def matmul(a: np.ndarray, b: np.ndarray) -> np.ndarray:
        return np.matmul(a, b)


class MaxProduct(Semiring):
    """The Viterbi semiring (max, ×): best derivations."""

    @staticmethod
    def sum(x: np.ndarray, axis: int | tuple[int, ...] | None) -> np.ndarray:
        return np.max(x, axis=axis, initial=0.0)  # 0 is ⊕'s identity on nonnegative reals

    @staticmethod
    def matmul(a: np.ndarray, b: np.ndarray) -> np.ndarray:
        return (a[..., :, :, None] * b[..., None, :, :]).max(axis=-2)


class Scaled(NamedTuple):
    """The array ``exp(log_scale) * mat``; ``mat.max()`` is 1, or ``mat`` is all zeros."""

    mat: np.ndarray
    log_scale: float


def rescale(mat: np.ndarray, log_scale: float = 0.0) -> Scaled:
    """``exp(log_scale) * mat`` as a :class:`Scaled` (``mat`` nonnegative)."""
    top = float(mat.max()) if mat.size else 0.0
    if top == 0.0:
        return Scaled(np.zeros_like(mat), 0.0)
    return Scaled(mat / top, log_scale + float(np.log(top)))
