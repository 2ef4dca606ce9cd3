"""Stacks whose matrices are products of token matrices that are never built: the vector path of
a slot string few nodes use (results/speed-history.md, "Decode's slot stage: session
2026-11-29 01:04–04:04").

A :class:`TokenChains` holds a lattice's token matrices M(υ) (sparse, in one semiring), the
token strings l of its first matrices, M_a = M(l₁)⋯M(lₘ) (M(ε) = I), and a
:class:`~fstpunct.dp.stacks.SparseStack` of stored matrices after them (a slot's closure). It is
a :class:`~fstpunct.dp.stacks.Stack`: applying M_a to a vector applies its token matrices one
after the other, which for a handful of vectors costs far less than building M_a (a product per
state). The compiled tree DP reads it as a :class:`~fstpunct.dp.forest.ChainStack`
(:func:`fstpunct.dp._forest._chain`); the methods here are the readable reference (dense token
matrices). Applied this way the products are associated otherwise than in a built stack (M(l₁)
(M(l₂) x) against (M(l₁) M(l₂)) x), so sums and max-products may differ in the last bits.
"""
from __future__ import annotations

from collections.abc import Sequence
from functools import cached_property

import numpy as np

from . import _forest, _sparse
from .forest import ChainStack, KernelSource, KernelStack
from .semiring import MaxProduct, Semiring, SumProduct
from .sparse import pointers
from .stacks import SparseStack

__all__ = ["ChainShape", "TokenChains", "strings"]


class ChainShape:
    """What the token chains of one lattice share in every semiring: N, the token matrices'
    entries (M(token[e])[src[e], dst[e]], sorted by (token, src, dst), no two alike) as
    stacked rows (row υ·N + s is M(υ)[s, :]) and columns (row υ·N + t is M(υ)[:, t], entry
    ``order[f]`` of the rows), and the token strings (:func:`strings`)."""

    def __init__(self, size: int, token: np.ndarray, src: np.ndarray, dst: np.ndarray,
                 strings: tuple[np.ndarray, np.ndarray]) -> None:
        _sparse.check_states(size, "token chains")
        self.size, self.strings = size, strings
        # kept as given (a lattice's uint16 arrays, which its slot keeps anyway: no copies)
        tok, src, dst = (np.asarray(x) for x in (token, src, dst))
        wide = tok.astype(np.intp)
        self.tokens = 1 + int(max(wide.max(initial=-1), strings[1].max(initial=-1)))
        self.ptr = pointers(wide * size + src, self.tokens * size, np.int32)
        self.col = np.ascontiguousarray(dst, dtype=np.uint16)
        # the columns: by token and target, then source (a stack's transposes)
        self.tptr, self.tcol, self.order = _sparse.transpose(size, self.ptr, self.col)
        self._arcs = tok, src, dst

    @cached_property
    def nonzero(self) -> np.ndarray:
        """Whether each token chain has an entry: some path of its tokens through the arcs,
        whatever their weights (what the entries of a built product are; compiled)."""
        return _forest.chain_nonzero(self.size, self.ptr, self.col, *self.strings).astype(bool)

    def token_matrix(self, token: int, weight: np.ndarray) -> np.ndarray:
        """M(token) as a dense array, under the arcs' weights ``weight``."""
        tok, src, dst = self._arcs
        out = np.zeros((self.size, self.size))
        these = tok == token
        out[src[these], dst[these]] = weight[these]
        return out


def strings(punctemes: Sequence[tuple[int, ...]]) -> tuple[np.ndarray, np.ndarray]:
    """Token strings as the offsets of each and their tokens, one after the other."""
    lengths = np.array([len(s) for s in punctemes], dtype=np.intp)
    offsets = np.concatenate([[0], np.cumsum(lengths)]).astype(np.intp)
    return offsets, np.fromiter((t for s in punctemes for t in s), dtype=np.intp,
                                count=int(offsets[-1]))


class TokenChains(KernelSource):
    """A :class:`~fstpunct.dp.stacks.Stack` of N×N matrices: M_a = M(l₁)⋯M(lₘ) for the token
    strings of ``shape`` (a < their number), then the matrices of ``stored``; the token matrices'
    arcs weigh ``weight`` (in ``shape``'s order), in the max-product semiring if ``maximum``
    (which :meth:`matrix` multiplies them in), else in the real one."""

    def __init__(self, shape: ChainShape, weight: np.ndarray, stored: SparseStack,
                 maximum: bool = False) -> None:
        if stored.size != shape.size:
            raise ValueError("token chains: the stored matrices are not N×N")
        self.shape, self.stored, self.maximum = shape, stored, maximum
        self.weight = np.ascontiguousarray(weight, dtype=np.float64)
        self._n, self._chains = shape.size, len(shape.strings[0]) - 1
        self._dense: dict[int, np.ndarray] = {}

    @cached_property
    def strings(self) -> list[tuple[int, ...]]:
        """The token strings of the chains."""
        offsets, tokens = self.shape.strings
        return [tuple(tokens[a:b].tolist()) for a, b in zip(offsets, offsets[1:])]

    @property
    def size(self) -> int:
        return self._n

    def __len__(self) -> int:
        return self._chains + len(self.stored)

    def token_matrix(self, token: int) -> np.ndarray:
        """M(token) as a dense array (cached)."""
        out = self._dense.get(token)
        if out is None:
            out = self._dense[token] = self.shape.token_matrix(token, self.weight)
        return out

    def apply(self, x: np.ndarray, semiring: type[Semiring]) -> np.ndarray:
        rows = []
        for s in self.strings:
            y = np.asarray(x, dtype=float)
            for token in reversed(s):
                y = semiring.matvec(self.token_matrix(token), y)
            rows.append(y)
        return np.concatenate([np.reshape(rows, (-1, self._n)), self.stored.apply(x, semiring)])

    def apply_t(self, x: np.ndarray, semiring: type[Semiring]) -> np.ndarray:
        rows = []
        for s in self.strings:
            y = np.asarray(x, dtype=float)
            for token in s:
                y = semiring.vecmat(y, self.token_matrix(token))
            rows.append(y)
        return np.concatenate([np.reshape(rows, (-1, self._n)),
                               self.stored.apply_t(x, semiring)])

    def matrix(self, a: int) -> np.ndarray:
        """M_a as a dense array (a token chain multiplied out in the weights' semiring)."""
        if a >= self._chains:
            return self.stored.matrix(a - self._chains)
        semiring = MaxProduct if self.maximum else SumProduct
        out = np.eye(self._n)
        for token in self.strings[a]:
            out = semiring.matmul(out, self.token_matrix(token))
        return out

    def row(self, a: int, s: int) -> np.ndarray:
        return self.matrix(a)[s]

    def column(self, a: int, t: int) -> np.ndarray:
        return self.matrix(a)[:, t]

    @property
    def nonzero(self) -> np.ndarray:
        """Whether each matrix has an entry (:attr:`ChainShape.nonzero`, then the stored
        matrices'; :meth:`nonzero_reference`)."""
        return np.concatenate([self.shape.nonzero, self.stored.nonzero])

    def nonzero_reference(self) -> np.ndarray:
        """:attr:`nonzero` by dense products of the token matrices (positive weights)."""
        return np.array([self.matrix(a).any() for a in range(len(self))], dtype=bool)

    def kernel(self) -> KernelStack:
        """The stack as the compiled tree DP reads it."""
        stored, shape = KernelStack.of(self.stored), self.shape
        return ChainStack(self._n, len(self), stored.ptr, stored.col, stored.val, stored.tptr,
                          stored.tcol, stored.tperm, self._chains, *shape.strings,
                          shape.ptr, shape.col, self.weight, shape.tptr, shape.tcol,
                          shape.order)
