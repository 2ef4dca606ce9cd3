"""The tree dynamic program over matrix trees (DESIGN §3, the paper's Algorithm 1).

A :class:`MatrixTree` is a projective tree whose every node w, spanning slots i..k, has J
weighted alternatives j, each a pair (left matrix L_{a(j)} acting in slot i, right matrix
R_{c(j)} acting in slot k) drawn from the node's A left and C right matrices
(:class:`Candidates`); slot i is a weighted automaton with start vector λᵢ and final vector ρᵢ.
With head word h and children c₁..c_p (left of h), c_{p+1}..c_q (right), in order::

    B(w)  = In(c₁)⋯In(c_p) · ρ_{h−1} λ_hᵀ · In(c_{p+1})⋯In(c_q)
    In(w) = ⊕_j weights_j · L_{a(j)} ⊗ B(w) ⊗ R_{c(j)}
    Z     = λ₀ᵀ ⊗ prefix ⊗ In(root) ⊗ ρₙ

**Vector form.** The head link ρ_{h−1} λ_hᵀ has rank one, so B(w) = u_w ⊗ v_wᵀ with
u_w = In(c₁)⋯In(c_p) ρ_{h−1} (a vector of slot i) and v_wᵀ = λ_hᵀ In(c_{p+1})⋯In(c_q) (of
slot k), and no In(w) is ever formed as a matrix: a left child only ever occurs applied to the
vector on its right (its younger siblings' product ending in ρ_{h−1}), a right child to the
vector on its left, and the root to ρₙ. Applied to a vector y on its right,

    In(w) ⊗ y = ⊕_a m_a · (L_a ⊗ u_w),   m_a = ⊕_{j: a(j)=a} weights_j · (v_w ⊗ R_{c(j)} ⊗ y),

and the mirror image on the left; so a node costs A + C matrix-vector products (its matrices
are a :class:`~fstpunct.dp.stacks.Stack`, which may be sparse) and O(J), in both semirings (max
distributes over products of nonnegatives). Each application is kept as an
:class:`Application`. Every vector is a :class:`~fstpunct.dp.semiring.Scaled` one (largest
entry 1, plus a log scale), so totals are returned as logs and never underflow. A sentence
without words has one pseudo node with B = I, done densely on its own (:class:`_Pseudo`).

- :func:`outside` is the reverse pass of the sum-product chart, written by hand. It propagates
  *scaled adjoints* ``ḡ = exp(s) · ∂log Z/∂x`` for every scaled vector ``exp(s)·x̃``; these
  obey ``ḡ · x̃ = 1``, so they stay O(1) however long the sentence. The adjoint of every In(w)
  has rank one as well, so the gradient of each left and right matrix is an outer product
  (:class:`Outer`), summed over the candidates sharing the matrix.
- :func:`viterbi` runs the max-product chart, then descends top-down by *local
  re-maximisation* (no stored back-pointers): the best state of slot 0 where In(root) starts,
  then at each application, given the state on its near side (where its chain enters it), the
  best candidate j, the best inner state after its near matrix, the best state where it meets
  the vector it was applied to (the next application's near state), and the best inner state
  before its far matrix. Candidates sharing a (left, right) pair compete by weight (ties:
  lowest j); other ties go to the first maximiser.
- :func:`sample` is the same descent over the sum-product chart drawing instead of maximising:
  forward filtering, backward sampling of choices *and* states, hence exact.

This module is the readable reference and the test oracle. :mod:`fstpunct.dp.forest` runs the
same inside pass, Viterbi descent, outside pass and sampler compiled, over many sentences per
call, with bitwise the same Viterbi choices and the same draws from the same generator; every
production path (decode, perplexity, the E-step, posteriors, sampling) uses the compiled twin,
and this module only names the error of a sentence the compiled pass rejects.
"""
from __future__ import annotations

import math
from collections.abc import Callable, Hashable, Sequence
from dataclasses import dataclass, field
from functools import lru_cache

import numpy as np

from ..errors import FstpunctError
from ..ud.tree import bottom_up, children, spans
from .semiring import MaxProduct, Scaled, Semiring, SumProduct, rescale
from .stacks import DenseStack, Stack

__all__ = [
    "Application", "Candidates", "Chart", "Gradients", "MatrixTree", "MatrixTreeError",
    "NodeChart", "Outer", "ZeroWeightError", "inside",
    "log_partition", "outside", "posteriors", "sample", "viterbi",
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
    candidates may even share both (see :func:`viterbi` and :func:`sample`). The matrices are
    an (A, N, N) array or any :class:`~fstpunct.dp.stacks.Stack`."""

    weights: np.ndarray  # (J,) nonnegative, e.g. p_θ(l, r | w), possibly tilted
    lefts: np.ndarray | Stack  # A matrices M_i(l), (N_i, N_i) each
    rights: np.ndarray | Stack  # C matrices M_k(r), (N_k, N_k) each
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


@dataclass(frozen=True)
class Outer:
    """Gradients of a node's A matrices as outer products: ``grad[a] = coef[a] · p[a] q[a]ᵀ``,
    where ``p`` and ``q`` are either one (N,) vector for every a or one row per a, (A, N)."""

    coef: np.ndarray
    p: np.ndarray
    q: np.ndarray

    def dense(self) -> np.ndarray:
        """The gradients as one (A, N, N) array."""
        outer = self.p[..., :, None] * self.q[..., None, :]
        return self.coef[:, None, None] * outer


# --- a node's candidates, checked --------------------------------------------------------------

@dataclass(frozen=True, eq=False)
class _Cands:
    w: np.ndarray
    lefts: Stack
    rights: Stack
    ao: np.ndarray
    co: np.ndarray


def _stack(mats: np.ndarray | Stack, size: int, what: str, word: int) -> Stack:
    if isinstance(mats, (np.ndarray, list, tuple)):
        arr = np.asarray(mats, dtype=float)
        if len(arr) == 0:
            arr = np.zeros((0, size, size))
        elif arr.ndim != 3 or arr.shape[1:] != (size, size):
            raise MatrixTreeError(f"node {word}: {what} matrices have shape {arr.shape[1:]} "
                                  f"(x{arr.shape[0]}), expected ({size}, {size})")
        return DenseStack(arr)
    if len(mats) and mats.size != size:
        raise MatrixTreeError(f"node {word}: {what} matrices have size {mats.size}, "
                              f"expected {size}")
    return mats


def _cands(cand: Candidates, ni: int, nk: int, word: int) -> _Cands:
    w = np.asarray(cand.weights, dtype=float)
    ao = np.asarray(cand.left_of, dtype=np.intp)
    co = np.asarray(cand.right_of, dtype=np.intp)
    lefts = _stack(cand.lefts, ni, "left", word)
    rights = _stack(cand.rights, nk, "right", word)
    j = len(w)
    if w.shape != (j,) or ao.shape != (j,) or co.shape != (j,):
        raise MatrixTreeError(f"node {word}: weights, left_of and right_of have shapes "
                              f"{w.shape}, {ao.shape}, {co.shape}; expected one (J,) each")
    # as unsigned, a negative index is out of range too
    if j and (ao.view(np.uintp).max() >= len(lefts) or co.view(np.uintp).max() >= len(rights)):
        raise MatrixTreeError(f"node {word}: left_of or right_of out of range")
    return _Cands(w, lefts, rights, ao, co)


# --- charts --------------------------------------------------------------------------------------

@dataclass(frozen=True, eq=False)
class Application:
    """In(w) applied to the vector ``ctx`` on one side. Leftward (a left child, the root):
    ``out = In(w) ⊗ ctx`` with ctx in slot k; the *near* side is the left one (matrices L,
    inner vector u_w), the *far* side the right one (R, v_w). Rightward (a right child):
    ``out = ctx ⊗ In(w)`` with ctx in slot i, near = right, far = left."""

    rightward: bool
    ctx: Scaled
    far_ctx: np.ndarray  # (F, N_far): each far matrix applied to ctx
    far_val: np.ndarray  # (F,): far_ctx ⊕-dotted with the far inner vector
    near_w: np.ndarray  # (Nn,): ⊕_{j: near(j) = n} weights_j ⊗ far_val[far(j)]
    near_vec: np.ndarray  # (Nn, N_near): each near matrix applied to the near inner vector
    out: Scaled


@dataclass(eq=False)
class NodeChart:
    """Inside quantities at one node: ``B = u ⊗ vᵀ``; ``rho``/``lam`` are the head link's ρ_{h−1}
    and λ_h (scaled); ``app`` is In(w) applied where its parent (or the top) uses it."""

    span: tuple[int, int]  # slots i..k
    left_kids: tuple[int, ...]  # node indices, outermost first
    right_kids: tuple[int, ...]  # node indices, innermost first
    cands: _Cands
    u: Scaled
    v: Scaled
    rho: Scaled
    lam: Scaled
    app: Application | None = None


@dataclass(frozen=True, eq=False)
class _Pseudo:
    """The pseudo node of a sentence without words (B = I), done densely over the matrices its
    candidates use: Z = ⊕_j w_j · (e ⊗ L_a) ⊕· (R_c ⊗ ρ₀)."""

    cands: _Cands
    left_used: np.ndarray  # the left matrices used, and each candidate's index among them
    left_of: np.ndarray
    right_used: np.ndarray
    right_of: np.ndarray
    lefts: np.ndarray  # dense (A′, N, N)
    rights: np.ndarray  # dense (C′, N, N)
    el: np.ndarray  # (A′, N): e ⊗ L_a
    rf: np.ndarray  # (C′, N): R_c ⊗ ρ₀
    values: np.ndarray  # (J,): el[a(j)] ⊕· rf[c(j)]

    @property
    def terms(self) -> np.ndarray:
        return self.cands.w * self.values


@dataclass(frozen=True)
class Chart:
    """The inside pass: per-node charts (``nodes[k-1]`` for word k) and the total."""

    semiring: type[Semiring]
    nodes: list[NodeChart]
    order: list[int]  # node indices, children before parents
    root: int  # node index of the root
    entry: np.ndarray  # e = λ₀ᵀ ⊗ prefix, (N_0,)
    scaled_total: float  # Z / exp(log scale of the root's application)
    log_total: float  # log Z (the ⊕ over everything)
    start: list[np.ndarray] = field(repr=False)  # the tree's λ_i as float arrays
    final: list[np.ndarray] = field(repr=False)  # the tree's ρ_i as float arrays
    pseudo: _Pseudo | None = None  # the n = 0 pseudo node


@dataclass(frozen=True)
class Gradients:
    """Derivatives of log Z. Per node (``[k-1]`` for word k): ``weights[k-1][j] = ∂log Z/∂
    weights_j``; ``left_outer[k-1]`` and ``right_outer[k-1]`` give ∂log Z/∂lefts[a] and
    ∂log Z/∂rights[c] per matrix (summed over the candidates sharing it) as outer products;
    :attr:`left` and :attr:`right` are the same as dense (A, N, N) arrays."""

    log_z: float
    weights: list[np.ndarray]  # (J,)
    left_outer: list[Outer]
    right_outer: list[Outer]
    start: list[np.ndarray]
    final: list[np.ndarray]
    prefix: np.ndarray

    @property
    def left(self) -> list[np.ndarray]:
        return [g.dense() for g in self.left_outer]

    @property
    def right(self) -> list[np.ndarray]:
        return [g.dense() for g in self.right_outer]


@lru_cache(maxsize=4096)
def _structure(heads: tuple[int, ...]) -> tuple[list[tuple[int, int]], list[list[int]],
                                               list[int], int]:
    """Spans, children (word numbers, in order) and bottom-up order (node indices) of a tree,
    and its root index (cached: corpora repeat tree shapes, and every pass needs them)."""
    n = len(heads)
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
    return sp, kids, [k - 1 for k in order], kids[0][0] - 1


def _vector(x: np.ndarray) -> Scaled:
    return rescale(np.asarray(x, dtype=float))


# --- one application -----------------------------------------------------------------------------

def _sides(nc: NodeChart, rightward: bool) -> tuple[Stack, np.ndarray, Scaled, Stack, np.ndarray,
                                                    Scaled]:
    """(near matrices, near index per candidate, near inner vector) and the same for far."""
    c = nc.cands
    if rightward:
        return c.rights, c.co, nc.v, c.lefts, c.ao, nc.u
    return c.lefts, c.ao, nc.u, c.rights, c.co, nc.v


def _apply(semiring: type[Semiring], nc: NodeChart, ctx: Scaled, rightward: bool) -> Application:
    """In(w) ⊗ ctx (leftward) or ctx ⊗ In(w) (rightward)."""
    near, near_of, near_in, far, far_of, far_in = _sides(nc, rightward)
    if rightward:
        far_ctx = far.apply_t(ctx.mat, semiring)
        near_vec = near.apply_t(near_in.mat, semiring)
    else:
        far_ctx = far.apply(ctx.mat, semiring)
        near_vec = near.apply(near_in.mat, semiring)
    far_val = semiring.matvec(far_ctx, far_in.mat)
    near_w = semiring.scatter(near_of, nc.cands.w * far_val[far_of], len(near))
    raw = semiring.vecmat(near_w, near_vec)
    out = rescale(raw, ctx.log_scale + near_in.log_scale + far_in.log_scale)
    return Application(rightward, ctx, far_ctx, far_val, near_w, near_vec, out)


@dataclass(frozen=True, eq=False)
class _Adjoints:
    """The reverse of one application: ∂log Z/∂weights, the matrices' gradients, and the scaled
    adjoints of u_w, v_w and the vector the node was applied to."""

    weights: np.ndarray
    left: Outer
    right: Outer
    u: np.ndarray
    v: np.ndarray
    ctx: np.ndarray


def _reverse(nc: NodeChart, g: np.ndarray) -> _Adjoints:
    """Back through ``nc.app`` given the scaled adjoint ``g`` of its output."""
    app = nc.app
    assert app is not None
    right = app.rightward
    near, near_of, near_in, far, far_of, far_in = _sides(nc, right)
    kappa = math.exp(app.ctx.log_scale + near_in.log_scale + far_in.log_scale
                     - app.out.log_scale)
    gk = kappa * g
    d_near = app.near_vec @ gk
    d_weights = d_near[near_of] * app.far_val[far_of]
    d_far = np.bincount(far_of, weights=nc.cands.w * d_near[near_of], minlength=len(far))
    if right:
        g_near = app.near_w @ near.apply(gk, SumProduct)
        g_ctx = d_far @ far.apply(far_in.mat, SumProduct)
        near_grad = Outer(app.near_w, near_in.mat, gk)
        far_grad = Outer(d_far, app.ctx.mat, far_in.mat)
    else:
        g_near = app.near_w @ near.apply_t(gk, SumProduct)
        g_ctx = d_far @ far.apply_t(far_in.mat, SumProduct)
        near_grad = Outer(app.near_w, gk, near_in.mat)
        far_grad = Outer(d_far, far_in.mat, app.ctx.mat)
    g_far = d_far @ app.far_ctx
    if right:
        return _Adjoints(d_weights, far_grad, near_grad, g_far, g_near, g_ctx)
    return _Adjoints(d_weights, near_grad, far_grad, g_near, g_far, g_ctx)


# --- inside and outside --------------------------------------------------------------------------

def inside(tree: MatrixTree, semiring: type[Semiring] = SumProduct) -> Chart:
    """Run the recursion bottom-up in ``semiring``; raise :class:`ZeroWeightError` if Z = 0."""
    n = len(tree.heads)
    if len(tree.start) != n + 1 or len(tree.final) != n + 1 or len(tree.nodes) != max(n, 1):
        raise MatrixTreeError(f"{n} words need {n + 1} start and final vectors and {max(n, 1)} "
                              f"nodes; got {len(tree.start)}, {len(tree.final)}, "
                              f"{len(tree.nodes)}")
    start = [np.asarray(x, dtype=float) for x in tree.start]
    final = [np.asarray(x, dtype=float) for x in tree.final]
    entry = semiring.vecmat(start[0], np.asarray(tree.prefix, dtype=float))
    if n == 0:
        return _inside_pseudo(tree, semiring, entry, start, final)
    sp, kids, order, root = _structure(tuple(tree.heads))
    size = [len(x) for x in start]
    nodes: list[NodeChart] = [None] * n  # type: ignore[list-item]
    for v in order:
        (i, k), h = sp[v], v + 1
        cands = _cands(tree.nodes[v], size[i], size[k], h)
        left = tuple(c - 1 for c in kids[h] if c < h)
        right = tuple(c - 1 for c in kids[h] if c > h)
        rho, lam = _vector(final[h - 1]), _vector(start[h])
        u = rho
        for c in reversed(left):
            nodes[c].app = _apply(semiring, nodes[c], u, False)
            u = nodes[c].app.out
        vec = lam
        for c in right:
            nodes[c].app = _apply(semiring, nodes[c], vec, True)
            vec = nodes[c].app.out
        nodes[v] = NodeChart((i, k), left, right, cands, u, vec, rho, lam)
    top = nodes[root].app = _apply(semiring, nodes[root], _vector(final[n]), False)
    z = float(semiring.sum(entry * top.out.mat, None))
    _check_total(z, nodes, order, sp, semiring)
    return Chart(semiring, nodes, order, root, entry, z, math.log(z) + top.out.log_scale,
                 start, final)


def _inside_pseudo(tree: MatrixTree, semiring: type[Semiring], entry: np.ndarray,
                   start: list[np.ndarray], final: list[np.ndarray]) -> Chart:
    size = len(start[0])
    cands = _cands(tree.nodes[0], size, size, 1)
    left_used, left_of = np.unique(cands.ao, return_inverse=True)
    right_used, right_of = np.unique(cands.co, return_inverse=True)
    lefts, rights = _dense(cands.lefts, left_used, size), _dense(cands.rights, right_used, size)
    el = semiring.vecmat(entry, lefts)
    rf = semiring.matvec(rights, final[0])
    values = semiring.sum(el[left_of] * rf[right_of], -1)
    pseudo = _Pseudo(cands, left_used, left_of, right_used, right_of, lefts, rights, el, rf,
                     values)
    z = float(semiring.sum(pseudo.terms, None))
    if not np.isfinite(z):
        raise MatrixTreeError(f"total weight is {z}: the inputs contain inf or nan")
    if z == 0.0:
        inner = sum((w * lefts[a] @ rights[c] for w, a, c in zip(cands.w, left_of, right_of)),
                    np.zeros((size, size)))
        raise ZeroWeightError(_DEAD.format(node=1, words="1-0") if not inner.any() else _BOUNDARY)
    return Chart(semiring, [], [], 0, entry, z, math.log(z), start, final, pseudo)


def _dense(stack: Stack, used: np.ndarray, size: int) -> np.ndarray:
    return np.array([stack.matrix(int(a)) for a in used]).reshape(-1, size, size)


_DEAD = ("zero total weight: In(node {node}) = 0 (words {words}): no candidate there has a path "
         "through its slots")
_BOUNDARY = ("zero total weight: λ₀ᵀ·prefix·In(root)·ρₙ = 0 (the sentence boundary slots admit "
             "no path)")


def _check_total(z: float, nodes: list[NodeChart], order: list[int],
                 sp: list[tuple[int, int]], semiring: type[Semiring]) -> None:
    if not np.isfinite(z):
        raise MatrixTreeError(f"total weight is {z}: the inputs contain inf or nan")
    if z != 0.0:
        return
    for v in order:  # the first In(w) that is 0 as a matrix, children before parents
        if _is_dead(nodes[v], semiring):
            i, k = sp[v]
            raise ZeroWeightError(_DEAD.format(node=v + 1, words=f"{i + 1}-{k}"))
    raise ZeroWeightError(_BOUNDARY)


def _is_dead(nc: NodeChart, semiring: type[Semiring]) -> bool:
    """Whether In(w) = Σ_j w_j (L_a u)(v R_c)ᵀ is the zero matrix."""
    c = nc.cands
    lu = c.lefts.apply(nc.u.mat, semiring).any(axis=1)
    vr = c.rights.apply_t(nc.v.mat, semiring).any(axis=1)
    return not np.any((c.w > 0) & lu[c.ao] & vr[c.co])


def log_partition(tree: MatrixTree) -> float:
    """log Z in the real semiring."""
    return inside(tree).log_total


def outside(tree: MatrixTree, chart: Chart) -> Gradients:
    """∂log Z/∂(every input) by reverse-mode differentiation of the sum-product ``chart``."""
    if chart.semiring is not SumProduct:
        raise ValueError(f"outside needs a SumProduct chart, not {chart.semiring.__name__}")
    if chart.pseudo is not None:
        return _outside_pseudo(tree, chart, chart.pseudo)
    nodes, z, n = chart.nodes, chart.scaled_total, len(tree.heads)
    start, final = chart.start, chart.final
    d_start = [np.zeros(len(s)) for s in start]
    d_final = [np.zeros(len(f)) for f in final]
    d_weights: list[np.ndarray] = [np.empty(0)] * n
    d_left: list[Outer] = [None] * n  # type: ignore[list-item]
    d_right: list[Outer] = [None] * n  # type: ignore[list-item]
    top = nodes[chart.root].app
    assert top is not None
    d_entry = top.out.mat / z
    d_start[0] = np.asarray(tree.prefix, dtype=float) @ d_entry
    d_prefix = np.outer(start[0], d_entry)
    u_adj: dict[int, np.ndarray] = {}
    v_adj: dict[int, np.ndarray] = {}

    def reverse(c: int, g: np.ndarray) -> np.ndarray:
        adj = _reverse(nodes[c], g)
        d_weights[c], d_left[c], d_right[c] = adj.weights, adj.left, adj.right
        u_adj[c], v_adj[c] = adj.u, adj.v
        return adj.ctx

    g_rho = reverse(chart.root, chart.entry / z)
    d_final[n] = g_rho * math.exp(-top.ctx.log_scale)
    for v in reversed(chart.order):
        nc, h = nodes[v], v + 1
        g = u_adj.pop(v)
        for c in nc.left_kids:
            g = reverse(c, g)
        d_final[h - 1] = g * math.exp(-nc.rho.log_scale)
        g = v_adj.pop(v)
        for c in reversed(nc.right_kids):
            g = reverse(c, g)
        d_start[h] = g * math.exp(-nc.lam.log_scale)
    return Gradients(chart.log_total, d_weights, d_left, d_right, d_start, d_final, d_prefix)


def _outside_pseudo(tree: MatrixTree, chart: Chart, ps: _Pseudo) -> Gradients:
    c, z = ps.cands, chart.scaled_total
    a_n, c_n = len(ps.lefts), len(ps.rights)
    pair = np.bincount(ps.left_of * c_n + ps.right_of, weights=c.w,
                       minlength=a_n * c_n).reshape(a_n, c_n)
    d_el = pair @ ps.rf / z  # ∂log Z/∂(e ⊗ L_a)
    d_rf = pair.T @ ps.el / z  # ∂log Z/∂(R_c ⊗ ρ₀)
    d_entry = np.einsum("ast,at->s", ps.lefts, d_el)
    d_start = [np.asarray(tree.prefix, dtype=float) @ d_entry]
    d_final = [np.einsum("cst,cs->t", ps.rights, d_rf)]
    left_coef, left_rows = _scatter_rows(ps.left_used, d_el, len(c.lefts))
    right_coef, right_rows = _scatter_rows(ps.right_used, d_rf, len(c.rights))
    return Gradients(chart.log_total, [ps.values / z],
                     [Outer(left_coef, chart.entry, left_rows)],
                     [Outer(right_coef, right_rows, chart.final[0])], d_start, d_final,
                     np.outer(chart.start[0], d_entry))


def _scatter_rows(used: np.ndarray, rows: np.ndarray, count: int) -> tuple[np.ndarray,
                                                                           np.ndarray]:
    """Rows of the used matrices placed among all ``count`` (zero elsewhere), and a coefficient
    of 1 for the used ones."""
    coef, full = np.zeros(count), np.zeros((count, rows.shape[1]))
    coef[used], full[used] = 1.0, rows
    return coef, full


def posteriors(tree: MatrixTree) -> list[np.ndarray]:
    """Posterior of each candidate at each node (``[k-1][j]`` for word k), each summing to 1."""
    grads = outside(tree, inside(tree))
    return [np.asarray(c.weights, dtype=float) * g for c, g in zip(tree.nodes, grads.weights)]


# --- top-down descent: Viterbi and sampling -----------------------------------------------------

Pick = Callable[..., int]  # pick(key, *factors) -> an index into the product of the factors


def _descend_app(nc: NodeChart, key: Hashable, pick: Pick, s: int) -> tuple[int, int, int, int]:
    """Given the state ``s`` where the application is entered on its near side: the candidate,
    the near inner state (in u_w or v_w), the state where it meets its context vector, and the
    far inner state. The far inner state y comes before the meeting state t: y by
    far_inner[y] ⊗ (far matrix ⊗ ctx)[y], then t by far matrix[y, t] ⊗ ctx[t]."""
    app = nc.app
    assert app is not None
    near, near_of, near_in, far, far_of, far_in = _sides(nc, app.rightward)
    j = pick((key, 0, s), nc.cands.w, app.near_vec[near_of, s], app.far_val[far_of])
    a, c, right = int(near_of[j]), int(far_of[j]), app.rightward
    x = pick((key, 1, j, s), _line(near, a, s, right), near_in.mat)
    y = pick((key, 2, j), far_in.mat, app.far_ctx[c])
    t = pick((key, 3, j, y), _line(far, c, y, right), app.ctx.mat)
    return j, x, t, y


def _line(stack: Stack, a: int, k: int, rightward: bool) -> np.ndarray:
    """Line k of matrix a in an application's reading direction: row k, or column k for a
    rightward one."""
    return stack.column(a, k) if rightward else stack.row(a, k)


def _descend(chart: Chart, pick: Pick) -> list[int]:
    """Choose a candidate per node top-down, choosing states along the way."""
    if chart.pseudo is not None:
        return [pick((), chart.pseudo.terms)]
    nodes = chart.nodes
    choice = [0] * len(nodes)
    root = nodes[chart.root]
    assert root.app is not None
    s = pick((), chart.entry, root.app.out.mat)
    choice[chart.root], x, _, y = _descend_app(root, chart.root, pick, s)
    stack = [(chart.root, x, y)]
    while stack:
        v, s_u, s_v = stack.pop()
        nc = nodes[v]
        s = s_u
        for c in nc.left_kids:
            choice[c], x, s, y = _descend_app(nodes[c], c, pick, s)
            stack.append((c, x, y))
        s = s_v
        for c in reversed(nc.right_kids):
            choice[c], y, s, x = _descend_app(nodes[c], c, pick, s)
            stack.append((c, x, y))
    return choice


def _argmax(key: Hashable, *factors: np.ndarray) -> int:
    return int(np.argmax(_product(factors)))


def _product(factors: Sequence[np.ndarray]) -> np.ndarray:
    out = factors[0]
    for f in factors[1:]:
        out = out * f
    return out


class _Sampler:
    """Draws an index proportionally to the product of the factors, caching each table's
    support and CDF (most tables have a single nonzero entry and need no random number)."""

    def __init__(self, rng: np.random.Generator) -> None:
        self.rng = rng
        self.cache: dict[Hashable, tuple[np.ndarray, np.ndarray]] = {}

    def __call__(self, key: Hashable, *factors: np.ndarray) -> int:
        entry = self.cache.get(key)
        if entry is None:
            table = _product(factors)
            support = np.flatnonzero(table)
            entry = self.cache[key] = (np.cumsum(table[support]), support)
        cdf, support = entry
        if len(support) == 1:
            return int(support[0])
        at = int(np.searchsorted(cdf, self.rng.random() * cdf[-1], side="right"))
        return int(support[min(at, len(support) - 1)])


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
