"""The tree dynamic program over matrix trees (DESIGN §3, the paper's Algorithm 1).

A :class:`MatrixTree` is a projective tree whose every node w, spanning slots i..k, has J
weighted alternatives j, each a pair (left matrix L_{a(j)} acting in slot i, right matrix
R_{c(j)} acting in slot k) drawn from the node's A distinct left and C distinct right matrices
(:class:`Candidates`); slot i is a weighted automaton with start vector λᵢ and final vector ρᵢ.
With head word h and children c₁..c_p (left of h), c_{p+1}..c_q (right), in order::

    B(w)  = In(c₁)⋯In(c_p) · ρ_{h−1} λ_hᵀ · In(c_{p+1})⋯In(c_q)
    In(w) = ⊕_j weights_j · L_{a(j)} ⊗ B(w) ⊗ R_{c(j)}
    Z     = λ₀ᵀ ⊗ prefix ⊗ In(root) ⊗ ρₙ

**Grouping.** With P[a, c] = ⊕_{j: a(j)=a, c(j)=c} weights_j the node value factors as
``In = ⊕_a L_a ⊗ B ⊗ S_a`` with ``S_a = ⊕_c P[a, c] R_c`` (grouped by left matrix), or the mirror
image ``In = ⊕_c T_c ⊗ B ⊗ R_c`` with ``T_c = ⊕_a P[a, c] L_a`` (grouped by right), in both
semirings (max distributes over products of nonnegatives). Each node takes the cheaper one
(:func:`_group_by_right`; :class:`_ByLeft`, :class:`_ByRight`), at a cost of
O(A·C·N² + min(A, C)·N³) instead of O(J·N³); P is kept sparse where it is (:class:`_Grouped`).
Nodes whose two slots have one state each (most of them) are done in Python floats
(:class:`_Scalar`), and 1×1 matrices along products are Python floats throughout a chart.

The recursion (:func:`inside`) is written once against a :class:`~fstpunct.semiring.Semiring`.
Every In(w) and every partial product of B(w) is kept as a :class:`~fstpunct.semiring.Scaled`
matrix (largest entry 1, plus a log scale), so totals are returned as logs and never underflow.

- :func:`outside` is the reverse pass of the sum-product chart, written by hand. It propagates
  *scaled adjoints* ``Ḡ = exp(s) · ∂log Z/∂In`` for every scaled matrix ``exp(s)·M̃``; these obey
  ``Σ Ḡ ⊙ M̃ = 1`` at every node, so they stay O(1) however long the sentence. Gradients of the
  node matrices are per *distinct* matrix (accumulated over the candidates sharing it).
- :func:`viterbi` runs the max-product chart, then descends top-down by *local re-maximisation*
  (no stored back-pointers): it picks the best boundary states of the root, and at each node,
  given its boundary states (s, t), first the best (group, inner state on the grouped side),
  then the best partner matrix, then the best inner state on the other side, and finally the
  candidate j of the chosen (left, right) pair — the one with the largest weight if several
  candidates share the pair (ties: lowest j). Between consecutive factors of B(w) it picks the
  best states using the stored partial products of B(w). Other ties go to the first maximiser
  in C order.
- :func:`sample` is the same descent over the sum-product chart drawing instead of maximising
  (candidates sharing a pair are drawn proportionally to their weights): forward filtering,
  backward sampling of choices *and* boundary states, hence exact.
"""
from __future__ import annotations

import math
from collections.abc import Callable, Hashable, Sequence
from dataclasses import dataclass, field
from typing import Union

import numpy as np
from scipy.sparse import csr_array

from .errors import FstpunctError
from .semiring import MaxProduct, Scaled, Semiring, SumProduct, rescale
from .tree import bottom_up, children, spans

__all__ = [
    "Candidates", "MatrixTree", "Chart", "NodeChart", "Gradients", "MatrixTreeError",
    "ZeroWeightError", "inside", "log_partition", "outside", "posteriors", "viterbi", "sample",
]


class MatrixTreeError(FstpunctError):
    """A :class:`MatrixTree` whose tree or array shapes are inconsistent."""


class ZeroWeightError(FstpunctError):
    """The total weight Z is 0: no choice of candidates has a path through every slot."""


@dataclass
class Candidates:
    """The alternatives at one tree node w spanning slots i..k: candidate j weighs
    ``weights[j]`` and uses ``lefts[left_of[j]]`` in slot i and ``rights[right_of[j]]`` in
    slot k. Candidates may share matrices (that is what makes the node cheap); several
    candidates may even share both (see :func:`viterbi` and :func:`sample`)."""

    weights: np.ndarray  # (J,) nonnegative, e.g. p_θ(l, r | w), possibly tilted
    lefts: np.ndarray  # (A, N_i, N_i): the distinct left matrices M_i(l)
    rights: np.ndarray  # (C, N_k, N_k): the distinct right matrices M_k(r)
    left_of: np.ndarray  # (J,) int: index into lefts
    right_of: np.ndarray  # (J,) int: index into rights

    @classmethod
    def from_pairs(cls, weights: Sequence[float] | np.ndarray, left: Sequence[np.ndarray],
                   right: Sequence[np.ndarray]) -> Candidates:
        """Candidates from one (left, right) matrix pair per candidate, sharing a matrix among
        the candidates that pass the *same object* (``id()``; equal copies are not merged)."""
        lefts, left_of = _distinct(left)
        rights, right_of = _distinct(right)
        return cls(np.asarray(weights, dtype=float), lefts, rights, left_of, right_of)


def _distinct(mats: Sequence[np.ndarray]) -> tuple[np.ndarray, np.ndarray]:
    index: dict[int, int] = {}
    distinct: list[np.ndarray] = []
    of = np.empty(len(mats), dtype=np.intp)
    for j, m in enumerate(mats):
        k = index.setdefault(id(m), len(distinct))
        if k == len(distinct):
            distinct.append(m)
        of[j] = k
    return (np.asarray(distinct, dtype=float) if distinct else np.zeros((0, 0, 0))), of


@dataclass
class MatrixTree:
    """A projective tree of candidate sets over slot automata (see the module docstring)."""

    heads: Sequence[int]  # n words; heads[k-1] = head of word k, 0 = root (exactly one)
    start: Sequence[np.ndarray]  # λ_i, (N_i,), i = 0..n
    final: Sequence[np.ndarray]  # ρ_i, (N_i,)
    prefix: np.ndarray  # (N_0, N_0): M_0(∘), applied in slot 0 before everything
    nodes: Sequence[Candidates]  # nodes[k-1] for word k; n = 0: one pseudo node with B = I


Mat = Union[np.ndarray, float]  # a matrix in a chart; 1×1 matrices are Python floats


@dataclass(frozen=True)
class NodeChart:
    """Inside quantities at one node. ``B = links[0] ⋯ links[-1]``; ``prefixes[t]`` is the
    product of ``links[:t+1]``. ``items`` names the factors: a child's word number for its In,
    the node's own word number for its head link ρ_{h−1}λ_hᵀ. A ``mat`` of shape 1×1 is held
    as a Python float."""

    span: tuple[int, int]  # slots i..k
    items: tuple[int, ...]
    links: list[Scaled]
    prefixes: list[Scaled]
    b: Scaled  # B(w); the identity for the n = 0 pseudo node
    node: _Node  # the candidate combination (weights, matrices, grouped partial products)
    value: Scaled  # In(w)


@dataclass(frozen=True)
class Chart:
    """The inside pass: per-node charts (``nodes[k-1]`` for word k) and the total."""

    semiring: type[Semiring]
    nodes: list[NodeChart]
    order: list[int]  # node indices, children before parents
    root: int  # node index of the root
    entry: np.ndarray  # λ₀ᵀ ⊗ prefix, (N_0,)
    scaled_total: float  # Z / exp(root log scale)
    log_total: float  # log Z (the ⊕ over everything)
    start: list[np.ndarray] = field(repr=False)  # the tree's λ_i as float arrays
    final: list[np.ndarray] = field(repr=False)  # the tree's ρ_i as float arrays


@dataclass(frozen=True)
class Gradients:
    """Derivatives of log Z. Per node (``[k-1]`` for word k): ``weights[k-1][j] = ∂log Z/∂
    weights_j``; ``left[k-1][a] = ∂log Z/∂lefts[a]`` and ``right[k-1][c] = ∂log Z/∂rights[c]``,
    per distinct matrix (summed over the candidates sharing it)."""

    log_z: float
    weights: list[np.ndarray]  # (J,)
    left: list[np.ndarray]  # (A, N_i, N_i)
    right: list[np.ndarray]  # (C, N_k, N_k)
    start: list[np.ndarray]
    final: list[np.ndarray]
    prefix: np.ndarray


def _structure(heads: Sequence[int]) -> tuple[list[tuple[int, int]], list[tuple[int, ...]],
                                              list[int], int]:
    """Spans, chain items and bottom-up order (node indices) of a tree, and its root index."""
    n = len(heads)
    if n == 0:
        return [(0, 0)], [()], [0], 0
    if any(not 0 <= h <= n or h == d for d, h in enumerate(heads, 1)):
        raise MatrixTreeError(f"heads {list(heads)}: a head is out of range or a self-loop")
    kids = children(heads)
    if len(kids[0]) != 1:
        raise MatrixTreeError(f"heads {list(heads)}: expected one root, found {len(kids[0])}")
    order = bottom_up(heads)
    if len(order) != n:
        raise MatrixTreeError(f"heads {list(heads)}: not a tree (cycle)")
    size = [1] * (n + 1)
    for k in order:
        size[heads[k - 1]] += size[k]
    sp = spans(heads)
    if any(hi - lo != size[k] for k, (lo, hi) in enumerate(sp, 1)):
        raise MatrixTreeError(f"heads {list(heads)}: not projective")
    items = [tuple(c for c in kids[w] if c < w) + (w,) + tuple(c for c in kids[w] if c > w)
             for w in range(1, n + 1)]
    return sp, items, [k - 1 for k in order], kids[0][0] - 1


# --- 1×1 matrices as floats ---------------------------------------------------------------------

_ZERO = Scaled(0.0, 0.0)


def _scaled(mat: Mat, log_scale: float) -> Scaled:
    """:func:`~fstpunct.semiring.rescale` that also takes (and keeps) floats."""
    if isinstance(mat, float):
        if mat == 0.0:
            return _ZERO
        return Scaled(mat / mat, log_scale + math.log(mat))  # inf and nan stay visible
    return rescale(mat, log_scale)


def _dot(a: Mat, b: Mat) -> Mat:
    """Real matrix product of chart matrices (a float is a 1×1 matrix)."""
    if isinstance(a, float) or isinstance(b, float):
        return a * b
    m = a @ b
    return float(m[0, 0]) if m.shape == (1, 1) else m


def _t(a: Mat) -> Mat:
    return a if isinstance(a, float) else a.T


def _is_zero(a: Mat) -> bool:
    return a == 0.0 if isinstance(a, float) else not a.any()


# --- one node's candidates -----------------------------------------------------------------------

Pick = Callable[..., tuple[int, ...]]  # pick(key, table_fn, *args) -> index into the table

_SPARSE_DENSITY = 0.25  # P is used as a sparse matrix below this density (candidates / A·C) ...
_SPARSE_WORK = 1 << 20  # ... when the dense product would cost more than this (A·C·N·N)


class _Node:
    """How one node combines its candidates with B̃ (the scaled B): ``raw`` is
    ⊕_j weights_j L_{a(j)} ⊗ B̃ ⊗ R_{c(j)} (a float for 1×1)."""

    __slots__ = ()
    raw: Mat

    def outside(self, g: Mat, kappa: float) -> tuple[np.ndarray, np.ndarray, np.ndarray, Mat]:
        """Given the scaled adjoint ``g`` of In and κ = exp(s_B − s_In): ∂log Z/∂weights, the
        gradients of the distinct left and right matrices, and the scaled adjoint of B."""
        raise NotImplementedError

    def descend(self, key: Hashable, pick: Pick, s: int, t: int) -> tuple[int, int, int]:
        """Given In's boundary states (s in slot i, t in slot k): the candidate j, the state
        after its left matrix and the state before its right matrix (B's boundary states)."""
        raise NotImplementedError


class _Scalar(_Node):
    """Both slots have one state: every matrix is a number, done in Python floats."""

    __slots__ = ("w", "l", "r", "ao", "co", "b", "terms", "total", "raw")

    def __init__(self, semiring: type[Semiring], w: list[float], l: list[float],
                 r: list[float], ao: list[int], co: list[int], b: float) -> None:
        self.w, self.l, self.r, self.ao, self.co, self.b = w, l, r, ao, co, b
        self.terms = [wj * l[a] * r[c] for wj, a, c in zip(w, ao, co)]
        self.total = max(self.terms, default=0.0) if semiring is MaxProduct else sum(self.terms)
        self.raw = b * self.total

    def outside(self, g: Mat, kappa: float) -> tuple[np.ndarray, np.ndarray, np.ndarray, Mat]:
        gk = kappa * g
        gb = gk * self.b
        l, r = self.l, self.r
        d_w, d_l, d_r = [], [0.0] * len(l), [0.0] * len(r)
        for wj, a, c in zip(self.w, self.ao, self.co):
            la, rc = l[a], r[c]
            d_w.append(gb * la * rc)
            d_l[a] += gb * wj * rc
            d_r[c] += gb * wj * la
        return (np.array(d_w), np.array(d_l).reshape(-1, 1, 1), np.array(d_r).reshape(-1, 1, 1),
                gk * self.total)

    def descend(self, key: Hashable, pick: Pick, s: int, t: int) -> tuple[int, int, int]:
        return (pick(key, np.asarray, self.terms)[0] if len(self.terms) > 1 else 0), 0, 0


class _Grouped(_Node):
    """A node with a matrix slot, its candidates combined through P[a, c] (the ⊕ of the weights
    of the candidates using left a and right c). Subclasses group by left or by right."""

    __slots__ = ("w", "ao", "co", "shape", "L", "R", "B", "P", "sparse_p", "raw", "_pairs")

    def __init__(self, semiring: type[Semiring], w: np.ndarray, lefts: np.ndarray,
                 rights: np.ndarray, ao: np.ndarray, co: np.ndarray, b: np.ndarray) -> None:
        a_n, c_n = len(lefts), len(rights)
        self.w, self.ao, self.co, self.shape = w, ao, co, (a_n, c_n)
        self.L, self.R, self.B = lefts, rights, b
        self.P = semiring.scatter(ao * c_n + co, w, a_n * c_n).reshape(a_n, c_n)
        # P as the operand of (P or Pᵀ) @ stacked matrices: sparse where that saves real work
        # (real nodes have J ≈ 6% of A·C); the max semiring skips P's zeros by itself.
        size = b.size * max(b.shape)
        sparse = (semiring is SumProduct and len(w) < _SPARSE_DENSITY * a_n * c_n
                  and a_n * c_n * size > _SPARSE_WORK)
        self.sparse_p = csr_array(self.P) if sparse else self.P
        self._pairs: tuple[np.ndarray, np.ndarray] | None = None

    def _candidate(self, key: Hashable, pick: Pick, a: int, c: int) -> int:
        """The candidate of pair (a, c); if several share it, picked by weight."""
        c_n = self.shape[1]
        if self._pairs is None:
            code = self.ao * c_n + self.co
            first = np.full(self.shape[0] * c_n, -1)
            first[code] = np.arange(len(code))
            self._pairs = first, np.bincount(code, minlength=len(first))
        first, count = self._pairs
        if count[a * c_n + c] == 1:
            return int(first[a * c_n + c])
        js = np.flatnonzero((self.ao == a) & (self.co == c))
        return int(js[pick((key, 3, a, c), _take, self.w, js)[0]])


class _ByLeft(_Grouped):
    """``raw = ⊕_a (L_a ⊗ B̃) ⊗ S_a`` with ``S_a = ⊕_c P[a, c] R_c``."""

    __slots__ = ("LB", "S")

    def __init__(self, semiring: type[Semiring], *args: np.ndarray) -> None:
        super().__init__(semiring, *args)
        self.LB = semiring.matmul(self.L, self.B)  # (A, N_i, N_k)
        self.S = semiring.combine(self.sparse_p, self.R)  # (A, N_k, N_k)
        self.raw = semiring.contract(self.LB, self.S)

    def outside(self, g: Mat, kappa: float) -> tuple[np.ndarray, np.ndarray, np.ndarray, Mat]:
        lefts, rights, lb = self.L, self.R, self.LB
        (a_n, c_n), (ni, nk) = self.shape, self.B.shape
        gk = kappa * np.atleast_2d(g)
        gs = _bmm(gk, self.S.transpose(0, 2, 1))  # gk S_aᵀ, (A, N_i, N_k)
        d_l = _bmm(gs, self.B.T)  # gk S_aᵀ B̃ᵀ
        g_b = lefts.reshape(a_n * ni, ni).T @ gs.reshape(a_n * ni, nk)  # Σ_a L_aᵀ gk S_aᵀ
        d_s = _bmm(lb.transpose(0, 2, 1), gk).reshape(a_n, nk * nk)  # ∂/∂S_a = LB_aᵀ gk
        d_r = (self.sparse_p.T @ d_s).reshape(c_n, nk, nk)  # Σ_a P[a, c] ∂/∂S_a
        d_p = d_s @ rights.reshape(c_n, nk * nk).T  # ⟨∂/∂S_a, R_c⟩
        return d_p[self.ao, self.co], d_l, d_r, (float(g_b[0, 0]) if g_b.size == 1 else g_b)

    def descend(self, key: Hashable, pick: Pick, s: int, t: int) -> tuple[int, int, int]:
        # (a, y) by LB_a[s, y]·S_a[y, t]; then c by P[a, c]·R_c[y, t] and x by L_a[s, x]·B[x, y]
        a, y = pick((key, 0, s, t), _pair_table, self.LB[:, s, :], self.S[:, :, t])
        c = pick((key, 1, a, y, t), _pair_table, self.P[a], self.R[:, y, t])[0]
        x = pick((key, 2, a, s, y), _pair_table, self.L[a, s, :], self.B[:, y])[0]
        return self._candidate(key, pick, a, c), x, y


class _ByRight(_Grouped):
    """The mirror image: ``raw = ⊕_c (T_c ⊗ B̃) ⊗ R_c`` with ``T_c = ⊕_a P[a, c] L_a``."""

    __slots__ = ("T", "TB")

    def __init__(self, semiring: type[Semiring], *args: np.ndarray) -> None:
        super().__init__(semiring, *args)
        self.T = semiring.combine(self.sparse_p.T, self.L)  # (C, N_i, N_i)
        self.TB = semiring.matmul(self.T, self.B)  # (C, N_i, N_k)
        self.raw = semiring.contract(self.TB, self.R)

    def outside(self, g: Mat, kappa: float) -> tuple[np.ndarray, np.ndarray, np.ndarray, Mat]:
        lefts, t_, tb = self.L, self.T, self.TB
        (a_n, c_n), (ni, nk) = self.shape, self.B.shape
        gk = kappa * np.atleast_2d(g)
        gr = _bmm(gk, self.R.transpose(0, 2, 1))  # gk R_cᵀ, (C, N_i, N_k)
        d_t = _bmm(gr, self.B.T).reshape(c_n, ni * ni)  # ∂/∂T_c = gk R_cᵀ B̃ᵀ
        g_b = t_.reshape(c_n * ni, ni).T @ gr.reshape(c_n * ni, nk)  # Σ_c T_cᵀ gk R_cᵀ
        d_r = _bmm(tb.transpose(0, 2, 1), gk)  # TB_cᵀ gk
        d_l = (self.sparse_p @ d_t).reshape(a_n, ni, ni)  # Σ_c P[a, c] ∂/∂T_c
        d_p = lefts.reshape(a_n, ni * ni) @ d_t.T  # ⟨L_a, ∂/∂T_c⟩
        return d_p[self.ao, self.co], d_l, d_r, (float(g_b[0, 0]) if g_b.size == 1 else g_b)

    def descend(self, key: Hashable, pick: Pick, s: int, t: int) -> tuple[int, int, int]:
        # (c, y) by TB_c[s, y]·R_c[y, t]; then (a, x) by P[a, c]·L_a[s, x]·B[x, y]
        c, y = pick((key, 0, s, t), _pair_table, self.TB[:, s, :], self.R[:, :, t])
        a, x = pick((key, 1, c, s, y), _triple_table, self.P[:, c], self.L[:, s, :],
                    self.B[:, y])
        return self._candidate(key, pick, a, c), x, y


def _bmm(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """``np.matmul``, with inner dimension 1 (outer products) done by broadcasting: numpy's
    matmul does those without BLAS, slowly."""
    return x * y if x.shape[-1] == 1 else np.matmul(x, y)


def _pair_table(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    return x * y


def _triple_table(p: np.ndarray, l: np.ndarray, b: np.ndarray) -> np.ndarray:
    return p[:, None] * l * b[None, :]


def _take(w: np.ndarray, js: np.ndarray) -> np.ndarray:
    return w[js]


def _group_by_right(a: int, c: int, ni: int, nk: int) -> bool:
    """Whether grouping by right matrix is cheaper: the inside flop counts of the two
    factorisations (combining P with the partner matrices, then min(A, C) sandwiches)."""
    return a * c * ni * ni + c * ni * nk * (ni + nk) < a * c * nk * nk + a * ni * nk * (ni + nk)


def _matrices(mats: np.ndarray | Sequence[np.ndarray], size: int, what: str,
              node: int) -> np.ndarray:
    out = np.asarray(mats, dtype=float)
    if len(out) == 0:
        return np.zeros((0, size, size))
    if out.ndim != 3 or out.shape[1:] != (size, size):
        raise MatrixTreeError(f"node {node}: {what} matrices have shape {out.shape[1:]} "
                              f"(x{out.shape[0]}), expected ({size}, {size})")
    return out


def _node(semiring: type[Semiring], cand: Candidates, b: Mat, ni: int, nk: int,
          word: int) -> _Node:
    w = np.asarray(cand.weights, dtype=float)
    ao = np.asarray(cand.left_of, dtype=np.intp)
    co = np.asarray(cand.right_of, dtype=np.intp)
    lefts = _matrices(cand.lefts, ni, "left", word)
    rights = _matrices(cand.rights, nk, "right", word)
    j, a_n, c_n = len(w), len(lefts), len(rights)
    if w.shape != (j,) or ao.shape != (j,) or co.shape != (j,):
        raise MatrixTreeError(f"node {word}: weights, left_of and right_of have shapes "
                              f"{w.shape}, {ao.shape}, {co.shape}; expected one (J,) each")
    if ni == nk == 1:
        aol, col = ao.tolist(), co.tolist()
        if j and (min(aol) < 0 or max(aol) >= a_n or min(col) < 0 or max(col) >= c_n):
            raise MatrixTreeError(f"node {word}: left_of or right_of out of range")
        return _Scalar(semiring, w.tolist(), lefts.reshape(-1).tolist(),
                       rights.reshape(-1).tolist(), aol, col, float(b))
    if j and (ao.min() < 0 or ao.max() >= a_n or co.min() < 0 or co.max() >= c_n):
        raise MatrixTreeError(f"node {word}: left_of or right_of out of range")
    kind = _ByRight if _group_by_right(a_n, c_n, ni, nk) else _ByLeft
    return kind(semiring, w, lefts, rights, ao, co, np.atleast_2d(b))


# --- inside and outside --------------------------------------------------------------------------

def inside(tree: MatrixTree, semiring: type[Semiring] = SumProduct) -> Chart:
    """Run the recursion bottom-up in ``semiring``; raise :class:`ZeroWeightError` if Z = 0."""
    n = len(tree.heads)
    if len(tree.start) != n + 1 or len(tree.final) != n + 1 or len(tree.nodes) != max(n, 1):
        raise MatrixTreeError(f"{n} words need {n + 1} start and final vectors and {max(n, 1)} "
                              f"nodes; got {len(tree.start)}, {len(tree.final)}, "
                              f"{len(tree.nodes)}")
    sp, items, order, root = _structure(tree.heads)
    start = [np.asarray(x, dtype=float) for x in tree.start]
    final = [np.asarray(x, dtype=float) for x in tree.final]
    size = [len(x) for x in start]
    mm, add = semiring.matmul, semiring.sum
    charts: list[NodeChart | None] = [None] * len(tree.nodes)
    dead: int | None = None
    for v in order:
        (i, k), w = sp[v], v + 1
        links = [_head_link(final[c - 1], start[c]) if c == w else charts[c - 1].value
                 for c in items[v]]
        prefixes = links[:1]
        for x in links[1:]:
            p = prefixes[-1]
            if isinstance(p.mat, float) or isinstance(x.mat, float):
                m = p.mat * x.mat
            else:
                m = mm(p.mat, x.mat)
                if m.shape == (1, 1):
                    m = float(m[0, 0])
            prefixes.append(_scaled(m, p.log_scale + x.log_scale))
        if prefixes:
            b = prefixes[-1]
        else:
            b = Scaled(1.0 if size[0] == 1 else np.eye(size[0]), 0.0)
        node = _node(semiring, tree.nodes[v], b.mat, size[i], size[k], w)
        value = _scaled(node.raw, b.log_scale)
        if dead is None and _is_zero(value.mat):
            dead = v
        charts[v] = NodeChart((i, k), items[v], links, prefixes, b, node, value)
    nodes: list[NodeChart] = charts  # type: ignore[assignment]
    entry = mm(start[0][None, :], np.asarray(tree.prefix, dtype=float))[0]
    z = float(add(_root_table(nodes[root], entry, final[n]), None))
    if not np.isfinite(z):
        raise MatrixTreeError(f"total weight is {z}: the inputs contain inf or nan")
    if z == 0.0:
        if dead is not None:
            i, k = sp[dead]
            raise ZeroWeightError(f"zero total weight: In(node {dead + 1}) = 0 (words {i + 1}-{k}"
                                  "): no candidate there has a path through its slots")
        raise ZeroWeightError("zero total weight: λ₀ᵀ·prefix·In(root)·ρₙ = 0 (the sentence "
                              "boundary slots admit no path)")
    log_total = math.log(z) + nodes[root].value.log_scale
    return Chart(semiring, nodes, order, root, entry, z, log_total, start, final)


def _head_link(final: np.ndarray, start: np.ndarray) -> Scaled:
    if len(final) == 1 and len(start) == 1:
        return _scaled(float(final[0]) * float(start[0]), 0.0)
    return rescale(np.outer(final, start))


def log_partition(tree: MatrixTree) -> float:
    """log Z in the real semiring."""
    return inside(tree).log_total


def outside(tree: MatrixTree, chart: Chart) -> Gradients:
    """∂log Z/∂(every input) by reverse-mode differentiation of the sum-product ``chart``."""
    if chart.semiring is not SumProduct:
        raise ValueError(f"outside needs a SumProduct chart, not {chart.semiring.__name__}")
    n, nodes, z = len(tree.heads), chart.nodes, chart.scaled_total
    start, final = chart.start, chart.final
    d_start = [np.zeros(len(s)) for s in start]
    d_final = [np.zeros(len(f)) for f in final]
    d_weights: list[np.ndarray] = [np.empty(0)] * len(nodes)
    d_left, d_right = list(d_weights), list(d_weights)
    top = np.atleast_2d(nodes[chart.root].value.mat)
    rho, lam = final[n], start[0]
    through = top @ rho
    d_start[0] = np.asarray(tree.prefix, dtype=float) @ through / z
    d_prefix = np.outer(lam, through) / z
    d_final[n] = top.T @ chart.entry / z
    g_root = np.outer(chart.entry, rho) / z
    adjoint: dict[int, Mat] = {  # scaled: exp(s)·∂log Z/∂In
        chart.root: float(g_root[0, 0]) if g_root.shape == (1, 1) else g_root}
    for v in reversed(chart.order):
        nc, g = nodes[v], adjoint.pop(v)
        kappa = math.exp(nc.b.log_scale - nc.value.log_scale)
        d_weights[v], d_left[v], d_right[v], g = nc.node.outside(g, kappa)
        for t in range(len(nc.items) - 1, -1, -1):
            x = nc.links[t]
            if t:  # P_t = P_{t-1} X_t, rescaled by exp(p_{t-1} + x_t - p_t)
                p = nc.prefixes[t - 1]
                step = math.exp(p.log_scale + x.log_scale - nc.prefixes[t].log_scale)
                g_x, g = step * _dot(_t(p.mat), g), step * _dot(g, _t(x.mat))
            else:
                g_x = g
            c = nc.items[t]
            if c != v + 1:
                adjoint[c - 1] = g_x
            else:  # the head link ρ_{c-1} λ_cᵀ
                g_x = g_x * math.exp(-x.log_scale)
                if isinstance(g_x, float):
                    d_final[c - 1] = g_x * start[c]
                    d_start[c] = g_x * final[c - 1]
                else:
                    d_final[c - 1] = g_x @ start[c]
                    d_start[c] = g_x.T @ final[c - 1]
    return Gradients(chart.log_total, d_weights, d_left, d_right, d_start, d_final, d_prefix)


def posteriors(tree: MatrixTree) -> list[np.ndarray]:
    """Posterior of each candidate at each node (``[k-1][j]`` for word k), each summing to 1."""
    grads = outside(tree, inside(tree))
    return [np.asarray(c.weights, dtype=float) * g for c, g in zip(tree.nodes, grads.weights)]


# --- top-down descent: Viterbi and sampling -----------------------------------------------------

def _root_table(nc: NodeChart, entry: np.ndarray, final: np.ndarray) -> np.ndarray:
    """Weights of the root's boundary states (a in slot 0, b in slot n)."""
    return entry[:, None] * nc.value.mat * final[None, :]


def _link_table(p: np.ndarray, x: np.ndarray, c: int, d: int) -> np.ndarray:
    """Weights of the state between factors t-1 and t of B, given B's boundary states c, d."""
    return p[c, :] * x[:, d]


def _descend(chart: Chart, pick: Pick) -> list[int]:
    """Choose a candidate per node top-down, choosing boundary states along the way."""
    nodes = chart.nodes
    choice = [0] * len(nodes)
    stack = [(chart.root, *pick((), _root_table, nodes[chart.root], chart.entry,
                                 chart.final[-1]))]
    while stack:
        v, a, b = stack.pop()
        nc = nodes[v]
        choice[v], c, d = nc.node.descend(v, pick, a, b)
        for t in range(len(nc.items) - 1, -1, -1):
            if t:
                p, x = nc.prefixes[t - 1].mat, nc.links[t].mat
                s = 0 if isinstance(p, float) or isinstance(x, float) else \
                    pick((v, -1, t, c, d), _link_table, p, x, c, d)[0]
            else:
                s = c
            if nc.items[t] != v + 1:
                stack.append((nc.items[t] - 1, s, d))
            d = s
    return choice


def _argmax(key: Hashable, table_fn: Callable[..., np.ndarray], *args: object) -> tuple[int, ...]:
    table = table_fn(*args)
    return tuple(int(i) for i in np.unravel_index(int(np.argmax(table)), table.shape))


class _Sampler:
    """Draws table entries proportionally to their weight, caching each table's support and CDF
    (most tables have a single nonzero entry and need no random number)."""

    def __init__(self, rng: np.random.Generator) -> None:
        self.rng = rng
        self.cache: dict[Hashable, tuple[np.ndarray, np.ndarray, tuple[int, ...]]] = {}

    def __call__(self, key: Hashable, table_fn: Callable[..., np.ndarray],
                 *args: object) -> tuple[int, ...]:
        entry = self.cache.get(key)
        if entry is None:
            table = np.asarray(table_fn(*args))
            support = np.flatnonzero(table)
            entry = self.cache[key] = (np.cumsum(table.ravel()[support]), support, table.shape)
        cdf, support, shape = entry
        if len(support) == 1:
            flat = int(support[0])
        else:
            at = int(np.searchsorted(cdf, self.rng.random() * cdf[-1], side="right"))
            flat = int(support[min(at, len(support) - 1)])
        return tuple(int(i) for i in np.unravel_index(flat, shape))


def viterbi(tree: MatrixTree) -> tuple[list[int], float]:
    """Best candidate per node jointly with the best slot paths, and its log score.

    ``tree`` should hold max-product (best-path) matrices; the recursion is maximised as given.
    Where several candidates share a (left, right) pair, the one with the largest weight is
    returned (ties: the lowest index).
    """
    chart = inside(tree, MaxProduct)
    return _descend(chart, _argmax), chart.log_total


def sample(tree: MatrixTree, rng: np.random.Generator, size: int) -> list[list[int]]:
    """``size`` exact posterior draws of the candidate per node (``[s][k-1]`` for word k);
    candidates sharing a (left, right) pair are drawn proportionally to their weights."""
    chart, pick = inside(tree), _Sampler(rng)
    return [_descend(chart, pick) for _ in range(size)]
