"""Stacks of equally sized nonnegative square matrices, as the tree DP (:mod:`fstpunct.dp.treedp`)
uses them: every matrix times one vector, on either side, in a semiring.

- :class:`DenseStack` holds an (A, N, N) array.
- :class:`SparseStack` holds the rows of all matrices in one CSR matrix (row a·N + s is
  M_a[s, :], column indices ascending) and the rows of their transposes as a permutation of its
  entries (no second copy of the values), so a product is one compiled sparse matrix-vector
  product (for the real semiring, each row's terms added in order, as scipy's CSR product
  does). Stacks of one structure with other values (a slot's sum and max stacks) share their
  index arrays and their transposes' permutation, built when first needed
  (:meth:`SparseStack.family`).
"""
from __future__ import annotations

from collections.abc import Sequence
from functools import cached_property
from typing import Protocol

import numpy as np

from . import _sparse
from .semiring import MaxProduct, Semiring
from .sparse import Csr

__all__ = ["STATES", "DenseStack", "SparseStack", "Stack", "merged"]

STATES = _sparse.MAX_STATES
"""The most states a :class:`SparseStack`'s matrices may have: their column indices (and their
transposes' row indices) are uint16, 2 bytes an entry (an N×N dense closure of more states
would not fit in memory anyway)."""


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
               values: np.ndarray,
               transposes: tuple[np.ndarray, np.ndarray, np.ndarray] | None = None
               ) -> list[SparseStack]:
        """The stacks whose matrices' rows have nonzeros ``indptr``, ``indices`` (row a·N + s is
        M_a[s, :]) and values ``values[k]`` (one row per stack): they share those index arrays,
        and their transposes (:attr:`transposes`), built when first needed (or given)."""
        family = _Transposes(size, indptr, indices, values, transposes)
        stacks = [cls.__new__(cls) for _ in values]
        for k, stack in enumerate(stacks):
            stack._set(count, size, family, k)
        return stacks

    @cached_property
    def _cols(self) -> Csr:
        """The rows of the transposes with their values gathered (for the Python products),
        built when first needed."""
        tptr, tcol, perm = self.transposes
        return Csr(tptr, tcol, self._rows.data[perm], self._n)

    @property
    def rows(self) -> Csr:
        """The matrices' rows: row a·N + s is M_a[s, :]."""
        return self._rows

    @property
    def columns(self) -> Csr:
        """The transposes' rows: row a·N + t is M_a[:, t]."""
        return self._cols

    @property
    def transposes(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """The transposes' rows as row pointers, row indices and the permutation ``perm`` of
        the rows' entries (int32): row a·N + t holds entries ``rows.data[perm[q]]``, q in
        ``tptr[a·N + t] : tptr[a·N + t + 1]``, rows ascending; shared by the family."""
        return self._family.transposes()

    @classmethod
    def of(cls, mats: np.ndarray) -> SparseStack:
        """The stack of an (A, N, N) array."""
        a, r, c = np.nonzero(mats)
        return cls(len(mats), mats.shape[1], a, r, c, mats[a, r, c])

    @property
    def nonzero(self) -> np.ndarray:
        """Whether each matrix has a nonzero entry (matrix a's rows are a·N … a·N + N − 1, so
        its entries are those between their first and last row pointers)."""
        return np.diff(self._rows.indptr[::self._n]) > 0

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

    def dense(self, first: int = 0) -> np.ndarray:
        """The matrices from ``first`` on at once, as an (A − first, N, N) array (:meth:`matrix`
        of each, stacked: every stored entry as it was computed, 0 elsewhere)."""
        n, indptr = self._n, self._rows.indptr[first * self._n:]
        lo, hi = indptr[0], indptr[-1]
        out = np.zeros(((self.count - first) * n, n))
        out[np.repeat(np.arange(len(indptr) - 1), np.diff(indptr)), self._rows.indices[lo:hi]] = \
            self._rows.data[lo:hi]
        return out.reshape(self.count - first, n, n)


def merged(old: Sequence[SparseStack], new: Sequence[SparseStack]) -> list[SparseStack]:
    """One family of stacks (:meth:`SparseStack.family`) whose k-th holds the matrices of
    ``old[k]`` and of ``new[k]``: ``old`` and ``new`` are families of stacks of one size, each
    sharing its index arrays, and every matrix is 0 in one of them (``new`` may have fewer
    matrices: the others are 0). Every row is the row of one of them, stored exactly as it was
    (compiled: :func:`fstpunct.dp._sparse.concat_rows`), and so is every row of the transposes,
    which are carried over when ``old``'s are built (:func:`fstpunct.dp._sparse.concat_transposes`;
    else built when first needed)."""
    size, count = old[0].size, len(old[0])
    a, b = old[0]._family, new[0]._family
    a_sets, b_sets = ([x._k for x in stacks] for stacks in (old, new))  # their own value sets
    rows = count * size
    if np.any((np.diff(a.indptr[::size])[:(len(b.indptr) - 1) // size] > 0)
              & (np.diff(b.indptr[::size]) > 0)):
        raise ValueError("merged: a matrix is nonzero in both families")
    ptr, col, val = _sparse.concat_rows(rows, a.indptr, a.indices, _sets(a.values, a_sets),
                                        b.indptr, b.indices, _sets(b.values, b_sets))
    transposes = None
    if a.built:
        transposes = _sparse.concat_transposes(size, ptr, a.indptr, *a.transposes(), b.indptr,
                                               *b.transposes())
    return SparseStack.family(count, size, ptr, col, val, transposes)


def _sets(values: np.ndarray, sets: list[int]) -> np.ndarray:
    """Rows ``sets`` of ``values``, copied only if that is not all of them in order."""
    return values if sets == list(range(len(values))) else values[sets]


class _Transposes:
    """Stacked CSR rows of one structure with several sets of values (``values[k]``), and
    their transposes as a permutation of the entries (one for every set), built when first
    asked for (or given); row pointers int32, column indices and the transposes' row indices
    uint16 (:data:`STATES` at most: a slot cache keeps them for its whole run)."""

    def __init__(self, size: int, indptr: np.ndarray, indices: np.ndarray, values: np.ndarray,
                 transposes: tuple[np.ndarray, np.ndarray, np.ndarray] | None = None) -> None:
        if len(indices) >= 2 ** 31:
            raise ValueError("stack: more entries than int32 row pointers hold")
        _sparse.check_states(size, "stack")
        self.size, self.indices = size, indices.astype(np.uint16, copy=False)
        self.indptr = indptr.astype(np.int32, copy=False)
        self.values = np.ascontiguousarray(values, dtype=np.float64)
        self._transposes = transposes

    @property
    def built(self) -> bool:
        """Whether the transposes are built."""
        return self._transposes is not None

    def transposes(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Row pointers, row indices and the entries' permutation of the transposes' rows
        (:func:`fstpunct.dp._sparse.transpose`), built on the first call."""
        if self._transposes is None:
            self._transposes = _sparse.transpose(self.size, self.indptr, self.indices)
        return self._transposes
