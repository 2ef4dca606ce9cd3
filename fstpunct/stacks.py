"""Stacks of equally sized nonnegative square matrices, as the tree DP (:mod:`fstpunct.treedp`)
uses them: every matrix times one vector, on either side, in a semiring.

- :class:`DenseStack` holds an (A, N, N) array.
- :class:`SparseStack` holds the rows of all matrices in one CSR matrix (row a·N + s is
  M_a[s, :], column indices ascending) and the rows of their transposes in another, so a product
  is one sparse product: for the real semiring a ``bincount`` that adds each row's terms in
  order (as scipy's CSR product does); for ⊕ = max, rows are grouped by their number of nonzeros
  rounded up to a power of two k into dense (k, rows) blocks (padded with zeros), reduced down
  their columns. That is vectorised over rows, which is what matters for products of slot
  lattice matrices: nearly all their rows have 1–4 nonzeros. Stacks of one structure with other
  values (a slot's sum and max stacks) can share their index arrays and have their transposes
  built in one pass (:meth:`SparseStack.family`).
"""
from __future__ import annotations

from functools import cached_property
from typing import Protocol

import numpy as np

from . import _sparse
from .semiring import Semiring, SumProduct
from .sparse import Csr

__all__ = ["DenseStack", "SparseStack", "Stack"]


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
        self._rows = _SparseRows(Csr(family.indptr, family.indices, family.values[k], size))

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
    def _cols(self) -> _SparseRows:
        """The rows of the transposes, built when first needed."""
        return _SparseRows(self._family.transposed(self._k))

    @property
    def rows(self) -> Csr:
        """The matrices' rows: row a·N + s is M_a[s, :]."""
        return self._rows.m

    @property
    def columns(self) -> Csr:
        """The transposes' rows: row a·N + t is M_a[:, t]."""
        return self._cols.m

    @classmethod
    def of(cls, mats: np.ndarray) -> SparseStack:
        """The stack of an (A, N, N) array."""
        a, r, c = np.nonzero(mats)
        return cls(len(mats), mats.shape[1], a, r, c, mats[a, r, c])

    @property
    def nonzero(self) -> np.ndarray:
        """Whether each matrix has a nonzero entry."""
        return np.diff(self._rows.m.indptr).reshape(self.count, self._n).any(axis=1)

    @property
    def size(self) -> int:
        return self._n

    def __len__(self) -> int:
        return self.count

    def apply(self, x: np.ndarray, semiring: type[Semiring]) -> np.ndarray:
        return self._rows.apply(x, semiring).reshape(self.count, self._n)

    def apply_t(self, x: np.ndarray, semiring: type[Semiring]) -> np.ndarray:
        return self._cols.apply(x, semiring).reshape(self.count, self._n)

    def row(self, a: int, s: int) -> np.ndarray:
        return self._rows.row(a * self._n + s)

    def column(self, a: int, t: int) -> np.ndarray:
        return self._cols.row(a * self._n + t)

    def matrix(self, a: int) -> np.ndarray:
        return np.array([self.row(a, s) for s in range(self._n)]).reshape(self._n, self._n)


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


class _SparseRows:
    """A CSR matrix and its products with vectors in either semiring."""

    def __init__(self, m: Csr) -> None:
        self.m = m

    @cached_property
    def _row_of_entry(self) -> np.ndarray:
        return np.repeat(np.arange(self.m.n_rows), np.diff(self.m.indptr))

    @cached_property
    def _blocks(self) -> list[tuple[np.ndarray, np.ndarray, np.ndarray]]:
        """(rows, values, columns) with the values and columns as (k, rows) blocks."""
        m = self.m
        length = np.diff(m.indptr)
        width = 2 ** np.ceil(np.log2(np.maximum(length, 1)))
        blocks = []
        for k in np.unique(width[length > 0]).astype(int):
            rows = np.flatnonzero((width == k) & (length > 0))
            at = m.indptr[rows] + np.arange(k)[:, None]
            real = at < m.indptr[rows + 1]
            at = np.where(real, at, 0)
            blocks.append((rows, np.where(real, m.data[at], 0.0), m.indices[at]))
        return blocks

    def row(self, r: int) -> np.ndarray:
        """Row r as a dense vector."""
        m = self.m
        lo, hi = m.indptr[r], m.indptr[r + 1]
        out = np.zeros(m.n_cols)
        out[m.indices[lo:hi]] = m.data[lo:hi]
        return out

    def apply(self, x: np.ndarray, semiring: type[Semiring]) -> np.ndarray:
        """m ⊗ x."""
        m = self.m
        if semiring is SumProduct:
            return np.bincount(self._row_of_entry, weights=m.data * x[m.indices],
                               minlength=m.n_rows)
        out = np.zeros(m.n_rows)
        for rows, block, cols in self._blocks:
            out[rows] = (block * x[cols]).max(axis=0)
        return out
