"""Sparse matrices in compressed rows (CSR), in numpy: what the model needs of scipy.sparse at
inference, without importing it (scipy is only imported where training needs it).

Products add each row's terms one by one in the order of its entries, starting from 0, which is
what scipy's CSR product does: the results are bitwise scipy's.
"""
from __future__ import annotations

from typing import TYPE_CHECKING, NamedTuple

import numpy as np

from . import _sparse

if TYPE_CHECKING:
    import scipy.sparse as sp

__all__ = ["Csr", "pointers", "ranges", "unique_ids"]


def pointers(rows_of: np.ndarray, rows: int, dtype: type = np.intp) -> np.ndarray:
    """CSR row pointers (``rows`` + 1) of entries in rows ``rows_of`` (once listed by row)."""
    ptr = np.zeros(rows + 1, dtype=dtype)
    np.cumsum(np.bincount(rows_of, minlength=rows), out=ptr[1:])
    return ptr


def ranges(starts: np.ndarray, lengths: np.ndarray) -> np.ndarray:
    """The concatenation of ``arange(start, start + length)`` for every pair (as for gathering
    or scattering CSR rows of the given lengths at the given starts)."""
    firsts = np.cumsum(lengths) - lengths
    return np.repeat(starts - firsts, lengths) + np.arange(lengths.sum())



def unique_ids(values: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``np.unique(values, return_inverse=True)`` of a 1-D integer array (the same arrays and
    types): for nonnegative values no larger than a few times their number, by marking them in
    a table (no sort), else by ``np.unique``."""
    bound = int(values.max(initial=-1)) + 1
    if bound > 4 * len(values) + 1024 or int(values.min(initial=0)) < 0:
        return np.unique(values, return_inverse=True)
    seen = np.zeros(bound, dtype=bool)
    seen[values] = True
    rank = np.cumsum(seen, dtype=np.intp) - 1
    return np.flatnonzero(seen).astype(values.dtype, copy=False), rank[values]

class Csr(NamedTuple):
    """An ``n_rows × n_cols`` sparse matrix: row r's entries are ``data[indptr[r]:indptr[r+1]]``
    in columns ``indices[...]``, ascending."""

    indptr: np.ndarray  # (n_rows + 1,) intp; int32 in a stack's rows (matvec, rmatmul_t, row)
    indices: np.ndarray  # int32; uint16 in a stack's rows and transposes (matvec, rmatmul_t, row)
    data: np.ndarray  # float
    n_cols: int

    @classmethod
    def of(cls, n_rows: int, n_cols: int, rows: np.ndarray, cols: np.ndarray,
           vals: np.ndarray) -> Csr:
        """The matrix with entries ``vals`` at (``rows``, ``cols``), duplicates added up."""
        key = np.asarray(rows, dtype=np.intp) * n_cols + np.asarray(cols, dtype=np.intp)
        order = np.argsort(key, kind="stable")
        key, vals = key[order], np.asarray(vals, dtype=float)[order]
        first = np.flatnonzero(np.diff(key, prepend=-1))
        if len(first) < len(key):
            key, vals = key[first], np.add.reduceat(vals, first)
        row, col = np.divmod(key, n_cols)
        return cls(np.searchsorted(row, np.arange(n_rows + 1)), col.astype(np.int32), vals,
                   n_cols)

    @property
    def n_rows(self) -> int:
        return len(self.indptr) - 1

    def row(self, r: int) -> np.ndarray:
        """Row r as a dense vector."""
        lo, hi = self.indptr[r], self.indptr[r + 1]
        out = np.zeros(self.n_cols)
        out[self.indices[lo:hi]] = self.data[lo:hi]
        return out

    def matvec(self, x: np.ndarray, maximum: bool = False) -> np.ndarray:
        """This matrix times a vector, in the real semiring (bitwise scipy's product) or, with
        ``maximum``, the max-times one."""
        out = np.empty(self.n_rows)
        _sparse.csr_matvec(self.indptr, self.indices, self.data,
                           np.ascontiguousarray(x, dtype=float), out, maximum)
        return out

    def matmul(self, dense: np.ndarray) -> np.ndarray:
        """This matrix times a 2-D array (bitwise scipy's product)."""
        out = np.zeros((self.n_rows, dense.shape[1]))
        _sparse.csr_matmul(self.indptr, self.indices, self.data,
                           np.ascontiguousarray(dense, dtype=float), out)
        return out

    def transpose(self) -> Csr:
        """Aᵀ: row j holds column j's entries in the order of A's rows, so
        ``A.transpose().rmatmul_t(dense)`` adds the terms of each entry of ``dense · A`` in the
        order :meth:`rmatmul` does; with finite entries, the same bits (:meth:`rmatmul` skips
        the zeros of ``dense``: their products are ±0, which change no sum started at +0)."""
        rows = np.repeat(np.arange(self.n_rows), np.diff(self.indptr))
        return Csr.of(self.n_cols, self.n_rows, self.indices, rows, self.data)

    def columns(self, keep: np.ndarray) -> Csr:
        """The matrix of the columns ``keep`` (ascending), renumbered 0..len(keep)−1."""
        new = np.full(self.n_cols, -1, dtype=np.int64)
        new[keep] = np.arange(len(keep))
        cols = new[self.indices]
        rows = np.repeat(np.arange(self.n_rows), np.diff(self.indptr))
        mask = cols >= 0
        return Csr.of(self.n_rows, len(keep), rows[mask], cols[mask], self.data[mask])

    def rmatmul_t(self, dense: np.ndarray, out: np.ndarray | None = None) -> np.ndarray:
        """A 2-D array times this matrix transposed, ``dense · Aᵀ`` (entry (c, i) adds row i's
        terms as :meth:`matmul` does), without transposing ``dense``; written into ``out`` (C
        contiguous) if given. Raises ValueError if the shapes do not fit (the compiled pass does
        not check its bounds)."""
        shape = (dense.shape[0], self.n_rows)
        if out is None:
            out = np.empty(shape)
        if dense.ndim != 2 or dense.shape[1] != self.n_cols or out.shape != shape:
            raise ValueError(f"dense · Aᵀ with A {self.n_rows}×{self.n_cols}: dense "
                             f"{dense.shape}, out {out.shape} (want (n, {self.n_cols}) and "
                             f"(n, {self.n_rows}))")
        _sparse.dense_csr_t(np.ascontiguousarray(dense, dtype=float), self.indptr, self.indices,
                            self.data, out)
        return out

    def rmatmul(self, dense: np.ndarray, out: np.ndarray | None = None) -> np.ndarray:
        """A 2-D array times this matrix, ``dense · A``; written into ``out`` (C contiguous,
        overwritten) if given."""
        if out is None:
            out = np.zeros((dense.shape[0], self.n_cols))
        else:
            out[...] = 0.0
        _sparse.dense_csr(np.ascontiguousarray(dense, dtype=float), self.indptr, self.indices,
                          self.data, out)
        return out

    def scipy(self) -> sp.csr_matrix:
        """The same matrix for scipy (imported here: it is slow to import)."""
        import scipy.sparse as sp

        return sp.csr_matrix((self.data, self.indices, self.indptr),
                             shape=(self.n_rows, self.n_cols))
