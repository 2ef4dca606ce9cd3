"""Stacks of equally sized nonnegative square matrices, as the tree DP (:mod:`fstpunct.dp.treedp`)
uses them: every matrix times one vector, on either side, in a semiring.

- :class:`DenseStack` holds an (A, N, N) array.
- :class:`SparseStack` holds the rows of all matrices in one CSR matrix (row a·N + s is
  M_a[s, :], column indices ascending) and the rows of their transposes in another, so a product
  is one compiled sparse matrix-vector product (for the real semiring, each row's terms added in
  order, as scipy's CSR product does). Stacks of one structure with other values (a slot's sum
  and max stacks) can share their index arrays and have their transposes built in one pass
  (:meth:`SparseStack.family`).
"""
from __future__ import annotations

from collections.abc import Sequence
from functools import cached_property
from typing import Protocol

import numpy as np

from . import _sparse
from .semiring import MaxProduct, Semiring
from .sparse import Csr, ranges

__all__ = ["DenseStack", "SparseStack", "Stack", "merged"]


class Stack(Protocol):
    """A sequence of A nonnegative N×N matrices M_a."""

    @property
    def size(self) -> int:
        """N."""

    def __len__(self) -> int:
        """A."""

    def apply(self, x: np.ndarray, semiring: type[Semiring]) -> np.ndarray:
        """(A, N): row a is M_a ⊗ x."""

    def apply_t(self, x: np.ndarray, semiring: type[Semiring]) -> np.ndarray:
        """(A, N): row a is x ⊗ M_a."""

    def row(self, a: int, s: int) -> np.ndarray:
        """M_a[s, :]."""

    def column(self, a: int, t: int) -> np.ndarray:
        """M_a[:, t]."""

    def matrix(self, a: int) -> np.ndarray:
        """M_a as a dense (N, N) array."""


class DenseStack:
    """A :class:`Stack` held as one (A, N, N) array."""

    def __init__(self, mats: np.ndarray) -> None:
        self.mats = mats

    @property
    def size(self) -> int:
        return self.mats.shape[1]

    def __len__(self) -> int:
        return len(self.mats)

    def apply(self, x: np.ndarray, semiring: type[Semiring]) -> np.ndarray:
        return semiring.matvec(self.mats, x)

    def apply_t(self, x: np.ndarray, semiring: type[Semiring]) -> np.ndarray:
        return semiring.vecmat(x, self.mats)

    def row(self, a: int, s: int) -> np.ndarray:
        return self.mats[a, s]

    def column(self, a: int, t: int) -> np.ndarray:
        return self.mats[a, :, t]

    def matrix(self, a: int) -> np.ndarray:
        return self.mats[a]


class SparseStack:
    """A :class:`Stack` held as sparse rows (see the module docstring), built from the nonzeros
    of every matrix: entry k is ``M_{mats[k]}[rows[k], cols[k]] = vals[k]``."""

    def __init__(self, count: int, size: int, mats: np.ndarray, rows: np.ndarray,
                 cols: np.ndarray, vals: np.ndarray) -> None:
        m = Csr.of(count * size, size, mats * size + rows, cols, vals)
        self._set(count, size, _Transposes(size, m.indptr, m.indices, m.data[None]), 0)

    def _set(self, count: int, size: int, family: _Transposes, k: int) -> None:
        """Become value set k of ``family``."""
        self.count, self._n, self._family, self._k = count, size, family, k
        self._rows = Csr(family.indptr, family.indices, family.values[k], size)

    @classmethod
    def family(cls, count: int, size: int, indptr: np.ndarray, indices: np.ndarray,
               values: np.ndarray) -> list[SparseStack]:
        """The stacks whose matrices' rows have nonzeros ``indptr``, ``indices`` (row a·N + s is
        M_a[s, :]) and values ``values[k]`` (one row per stack): they share those index arrays,
        and their transposes are built together, when the first is needed."""
        family = _Transposes(size, indptr, indices, values)
        stacks = [cls.__new__(cls) for _ in values]
        for k, stack in enumerate(stacks):
            stack._set(count, size, family, k)
        return stacks

    @cached_property
    def _cols(self) -> Csr:
        """The rows of the transposes, built when first needed."""
        return self._family.transposed(self._k)

    @property
    def rows(self) -> Csr:
        """The matrices' rows: row a·N + s is M_a[s, :]."""
        return self._rows

    @property
    def columns(self) -> Csr:
        """The transposes' rows: row a·N + t is M_a[:, t]."""
        return self._cols

    @classmethod
    def of(cls, mats: np.ndarray) -> SparseStack:
        """The stack of an (A, N, N) array."""
        a, r, c = np.nonzero(mats)
        return cls(len(mats), mats.shape[1], a, r, c, mats[a, r, c])

    @property
    def nonzero(self) -> np.ndarray:
        """Whether each matrix has a nonzero entry."""
        return np.diff(self._rows.indptr).reshape(self.count, self._n).any(axis=1)

    @property
    def size(self) -> int:
        return self._n

    def __len__(self) -> int:
        return self.count

    def apply(self, x: np.ndarray, semiring: type[Semiring]) -> np.ndarray:
        return self._rows.matvec(x, semiring is MaxProduct).reshape(self.count, self._n)

    def apply_t(self, x: np.ndarray, semiring: type[Semiring]) -> np.ndarray:
        return self._cols.matvec(x, semiring is MaxProduct).reshape(self.count, self._n)

    def row(self, a: int, s: int) -> np.ndarray:
        return self._rows.row(a * self._n + s)

    def column(self, a: int, t: int) -> np.ndarray:
        return self._cols.row(a * self._n + t)

    def matrix(self, a: int) -> np.ndarray:
        return np.array([self.row(a, s) for s in range(self._n)]).reshape(self._n, self._n)


def merged(old: Sequence[SparseStack], new: Sequence[SparseStack]) -> list[SparseStack]:
    """One family of stacks (:meth:`SparseStack.family`) whose k-th holds, in every row, the
    entries of ``old[k]`` then those of ``new[k]`` (``old`` and ``new`` are families of stacks
    of one size, each sharing its index arrays; ``new`` may have fewer matrices: the others
    are 0). Where one of two matrices is 0, the other is stored exactly as it was."""
    size, count = old[0].size, len(old[0])
    a_ptr, a_ind = old[0].rows.indptr, old[0].rows.indices
    b_ptr, b_ind = new[0].rows.indptr, new[0].rows.indices
    a_val, b_val = (np.array([stack.rows.data for stack in x]) for x in (old, new))
    a_len, b_len, rows = np.diff(a_ptr), np.zeros(count * size, dtype=np.intp), len(b_ptr) - 1
    b_len[:rows] = np.diff(b_ptr)
    ptr = np.zeros(count * size + 1, dtype=np.intp)
    np.cumsum(a_len + b_len, out=ptr[1:])
    indices = np.empty(ptr[-1], dtype=np.int32)
    values = np.empty((len(a_val), ptr[-1]))
    for (src_ptr, src_ind, src_val), starts in (((a_ptr, a_ind, a_val), ptr[:-1]),
                                                ((b_ptr, b_ind, b_val), ptr[:rows] + a_len[:rows])):
        at = ranges(starts, np.diff(src_ptr))
        indices[at], values[:, at] = src_ind, src_val
    return SparseStack.family(count, size, ptr, indices, values)


class _Transposes:
    """Stacked CSR rows of one structure with several sets of values (``values[k]``), and
    their transposes, built in one pass when first asked for."""

    def __init__(self, size: int, indptr: np.ndarray, indices: np.ndarray,
                 values: np.ndarray) -> None:
        self.size, self.indptr, self.indices, self.values = size, indptr, indices, values

    @cached_property
    def _all(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        values = np.ascontiguousarray(self.values, dtype=np.float64)
        return _sparse.transpose(self.size, self.indptr, self.indices, values)

    def transposed(self, k: int) -> Csr:
        """The rows of the transposes of value set k: row a·N + t is M_a[:, t]."""
        tptr, tcol, tval = self._all
        return Csr(tptr, tcol, tval[k], self.size)
