"""The tree dynamic program over matrix trees (DESIGN §3, the paper's Algorithm 1).

A :class:`MatrixTree` is a projective tree whose every node w, spanning slots i..k, has J
weighted alternatives (a left matrix acting in slot i, a right matrix acting in slot k); slot i
is a weighted automaton with start vector λᵢ and final vector ρᵢ. With head word h and children
c₁..c_p (left of h), c_{p+1}..c_q (right), in order::

    B(w)  = In(c₁)⋯In(c_p) · ρ_{h−1} λ_hᵀ · In(c_{p+1})⋯In(c_q)
    In(w) = ⊕_j weights_j · left_j ⊗ B(w) ⊗ right_j
    Z     = λ₀ᵀ ⊗ prefix ⊗ In(root) ⊗ ρₙ

The recursion (:func:`inside`) is written once against a :class:`~fstpunct.semiring.Semiring`.
Every In(w) and every partial product of B(w) is kept as a :class:`~fstpunct.semiring.Scaled`
matrix (largest entry 1, plus a log scale), so totals are returned as logs and never underflow.

- :func:`outside` is the reverse pass of the sum-product chart, written by hand. It propagates
  *scaled adjoints* ``Ḡ = exp(s) · ∂log Z/∂In`` for every scaled matrix ``exp(s)·M̃``; these obey
  ``Σ Ḡ ⊙ M̃ = 1`` at every node, so they stay O(1) however long the sentence.
- :func:`viterbi` runs the max-product chart, then descends top-down by *local re-maximisation*
  (no stored back-pointers): it picks the best boundary states of the root, and at each node,
  given its boundary states, the best (candidate, inner states) and the best states between
  consecutive factors of B(w), using the stored partial products of B(w). Ties go to the first
  maximiser in C order.
- :func:`sample` is the same descent over the sum-product chart drawing instead of maximising:
  forward filtering, backward sampling of choices *and* boundary states, hence exact.
"""
from __future__ import annotations

from bisect import bisect_right
from collections.abc import Callable, Hashable, Sequence
from dataclasses import dataclass

import numpy as np

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
    """The alternatives at one tree node w spanning slots i..k."""

    weights: np.ndarray  # (J,) nonnegative, e.g. p_θ(l, r | w), possibly tilted
    left: Sequence[np.ndarray]  # J matrices (N_i, N_i): M_i(l_j)
    right: Sequence[np.ndarray]  # J matrices (N_k, N_k): M_k(r_j)


@dataclass
class MatrixTree:
    """A projective tree of candidate sets over slot automata (see the module docstring)."""

    heads: Sequence[int]  # n words; heads[k-1] = head of word k, 0 = root (exactly one)
    start: Sequence[np.ndarray]  # λ_i, (N_i,), i = 0..n
    final: Sequence[np.ndarray]  # ρ_i, (N_i,)
    prefix: np.ndarray  # (N_0, N_0): M_0(∘), applied in slot 0 before everything
    nodes: Sequence[Candidates]  # nodes[k-1] for word k; n = 0: one pseudo node with B = I


@dataclass(frozen=True)
class NodeChart:
    """Inside quantities at one node. ``B = links[0] ⋯ links[-1]``; ``prefixes[t]`` is the
    product of ``links[:t+1]``. ``items`` names the factors: a child's word number for its In,
    the node's own word number for its head link ρ_{h−1}λ_hᵀ."""

    span: tuple[int, int]  # slots i..k
    items: tuple[int, ...]
    links: list[Scaled]
    prefixes: list[Scaled]
    b: Scaled  # B(w); the identity for the n = 0 pseudo node
    weights: np.ndarray  # (J,)
    left: np.ndarray  # (J, N_i, N_i)
    right: np.ndarray  # (J, N_k, N_k)
    lb: np.ndarray  # (J, N_i, N_k): left_j ⊗ B̃
    lbr: np.ndarray  # (J, N_i, N_k): left_j ⊗ B̃ ⊗ right_j
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


@dataclass(frozen=True)
class Gradients:
    """Derivatives of log Z. Per-node entries are stacked over candidates:
    ``left[k-1][j] = ∂log Z/∂left_j`` at word k."""

    log_z: float
    weights: list[np.ndarray]  # (J,)
    left: list[np.ndarray]  # (J, N_i, N_i)
    right: list[np.ndarray]  # (J, N_k, N_k)
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


def _stack(mats: Sequence[np.ndarray], j: int, size: int, what: str, node: int) -> np.ndarray:
    if j == 0 == len(mats):
        return np.zeros((0, size, size))
    out = np.asarray(mats, dtype=float)
    if out.shape != (j, size, size):
        raise MatrixTreeError(f"node {node}: {what} matrices have shape {out.shape[1:]} "
                              f"(x{out.shape[0]}), expected ({size}, {size}) (x{j})")
    return out


def inside(tree: MatrixTree, semiring: type[Semiring] = SumProduct) -> Chart:
    """Run the recursion bottom-up in ``semiring``; raise :class:`ZeroWeightError` if Z = 0."""
    n = len(tree.heads)
    if len(tree.start) != n + 1 or len(tree.final) != n + 1 or len(tree.nodes) != max(n, 1):
        raise MatrixTreeError(f"{n} words need {n + 1} start and final vectors and {max(n, 1)} "
                              f"nodes; got {len(tree.start)}, {len(tree.final)}, "
                              f"{len(tree.nodes)}")
    sp, items, order, root = _structure(tree.heads)
    mm, add = semiring.matmul, semiring.sum
    charts: dict[int, NodeChart] = {}
    dead: int | None = None
    for v in order:
        (i, k), w, cand = sp[v], v + 1, tree.nodes[v]
        weights = np.asarray(cand.weights, dtype=float)
        left = _stack(cand.left, len(weights), len(tree.start[i]), "left", w)
        right = _stack(cand.right, len(weights), len(tree.start[k]), "right", w)
        links = [rescale(np.outer(tree.final[c - 1], tree.start[c])) if c == w
                 else charts[c - 1].value for c in items[v]]
        prefixes = links[:1]
        for x in links[1:]:
            p = prefixes[-1]
            prefixes.append(rescale(mm(p.mat, x.mat), p.log_scale + x.log_scale))
        b = prefixes[-1] if prefixes else Scaled(np.eye(len(tree.start[0])), 0.0)
        lb = mm(left, b.mat)
        lbr = mm(lb, right)
        value = rescale(add(weights[:, None, None] * lbr, 0), b.log_scale)
        if dead is None and not value.mat.any():
            dead = v
        charts[v] = NodeChart((i, k), items[v], links, prefixes, b, weights, left, right, lb,
                              lbr, value)
    nodes = [charts[v] for v in range(len(tree.nodes))]
    entry = mm(np.asarray(tree.start[0], dtype=float)[None, :], tree.prefix)[0]
    z = float(add(_root_table(nodes[root], entry, tree.final[n]), None))
    if not np.isfinite(z):
        raise MatrixTreeError(f"total weight is {z}: the inputs contain inf or nan")
    if z == 0.0:
        if dead is not None:
            i, k = sp[dead]
            raise ZeroWeightError(f"zero total weight: In(node {dead + 1}) = 0 (words {i + 1}-{k}"
                                  "): no candidate there has a path through its slots")
        raise ZeroWeightError("zero total weight: λ₀ᵀ·prefix·In(root)·ρₙ = 0 (the sentence "
                              "boundary slots admit no path)")
    log_total = float(np.log(z)) + nodes[root].value.log_scale
    return Chart(semiring, nodes, order, root, entry, z, log_total)


def log_partition(tree: MatrixTree) -> float:
    """log Z in the real semiring."""
    return inside(tree).log_total


def outside(tree: MatrixTree, chart: Chart) -> Gradients:
    """∂log Z/∂(every input) by reverse-mode differentiation of the sum-product ``chart``."""
    if chart.semiring is not SumProduct:
        raise ValueError(f"outside needs a SumProduct chart, not {chart.semiring.__name__}")
    n, nodes, z = len(tree.heads), chart.nodes, chart.scaled_total
    d_start = [np.zeros(len(s)) for s in tree.start]
    d_final = [np.zeros(len(f)) for f in tree.final]
    d_weights: list[np.ndarray] = [np.empty(0)] * len(nodes)
    d_left, d_right = list(d_weights), list(d_weights)
    top = nodes[chart.root].value.mat
    rho, lam = np.asarray(tree.final[n], dtype=float), np.asarray(tree.start[0], dtype=float)
    through = top @ rho
    d_start[0] = tree.prefix @ through / z
    d_prefix = np.outer(lam, through) / z
    d_final[n] = top.T @ chart.entry / z
    adjoint = {chart.root: np.outer(chart.entry, rho) / z}  # scaled: exp(s)·∂log Z/∂In
    for v in reversed(chart.order):
        nc, g = nodes[v], adjoint.pop(v)
        kappa = np.exp(nc.b.log_scale - nc.value.log_scale)
        d_weights[v] = kappa * np.einsum("jab,ab->j", nc.lbr, g)
        kw = (kappa * nc.weights)[:, None, None]
        d_left[v] = kw * (g @ (nc.b.mat @ nc.right).swapaxes(1, 2))
        d_right[v] = kw * (nc.lb.swapaxes(1, 2) @ g)
        g = (kw * (nc.left.swapaxes(1, 2) @ g @ nc.right.swapaxes(1, 2))).sum(0)
        for t in range(len(nc.items) - 1, -1, -1):
            x = nc.links[t]
            if t:  # P_t = P_{t-1} X_t, rescaled by exp(p_{t-1} + x_t - p_t)
                p = nc.prefixes[t - 1]
                step = np.exp(p.log_scale + x.log_scale - nc.prefixes[t].log_scale)
                g_x, g = step * (p.mat.T @ g), step * (g @ x.mat.T)
            else:
                g_x = g
            c = nc.items[t]
            if c != v + 1:
                adjoint[c - 1] = g_x
            else:  # the head link ρ_{c-1} λ_cᵀ
                g_x = g_x * np.exp(-x.log_scale)
                d_final[c - 1] = g_x @ tree.start[c]
                d_start[c] = g_x.T @ tree.final[c - 1]
    return Gradients(chart.log_total, d_weights, d_left, d_right, d_start, d_final, d_prefix)


def posteriors(tree: MatrixTree) -> list[np.ndarray]:
    """Posterior of each candidate at each node (``[k-1][j]`` for word k), each summing to 1."""
    grads = outside(tree, inside(tree))
    return [np.asarray(c.weights, dtype=float) * g for c, g in zip(tree.nodes, grads.weights)]


# --- top-down descent: Viterbi and sampling -----------------------------------------------------

def _root_table(nc: NodeChart, entry: np.ndarray, final: np.ndarray) -> np.ndarray:
    """Weights of the root's boundary states (a in slot 0, b in slot n)."""
    return entry[:, None] * nc.value.mat * np.asarray(final, dtype=float)[None, :]


def _node_table(nc: NodeChart, a: int, b: int) -> np.ndarray:
    """Weights of (candidate j, state c after left_j, state d before right_j) given In[a, b]."""
    return (nc.weights[:, None, None] * nc.left[:, a, :, None] * nc.b.mat[None]
            * nc.right[:, None, :, b])


def _link_table(nc: NodeChart, t: int, c: int, d: int) -> np.ndarray:
    """Weights of the state between factors t-1 and t of B, given B's boundary states c, d."""
    return nc.prefixes[t - 1].mat[c, :] * nc.links[t].mat[:, d]


Pick = Callable[..., tuple[int, ...]]  # pick(key, table_fn, *args) -> index into the table


def _descend(tree: MatrixTree, chart: Chart, pick: Pick) -> list[int]:
    """Choose a candidate per node top-down, choosing boundary states along the way."""
    choice = [0] * len(chart.nodes)
    stack = [(chart.root, *pick((), _root_table, chart.nodes[chart.root], chart.entry,
                                 tree.final[len(tree.heads)]))]
    while stack:
        v, a, b = stack.pop()
        nc = chart.nodes[v]
        choice[v], c, d = pick((v, a, b), _node_table, nc, a, b)
        for t in range(len(nc.items) - 1, -1, -1):
            s = pick((v, t, c, d), _link_table, nc, t, c, d)[0] if t else c
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
        self.cache: dict[Hashable, tuple[list[float], list[tuple[int, ...]]]] = {}

    def __call__(self, key: Hashable, table_fn: Callable[..., np.ndarray],
                 *args: object) -> tuple[int, ...]:
        if key not in self.cache:
            table = table_fn(*args)
            support = np.flatnonzero(table)
            self.cache[key] = (np.cumsum(table.ravel()[support]).tolist(),
                               [tuple(int(x) for x in np.unravel_index(i, table.shape))
                                for i in support])
        cdf, entries = self.cache[key]
        if len(entries) == 1:
            return entries[0]
        return entries[min(bisect_right(cdf, self.rng.random() * cdf[-1]), len(cdf) - 1)]


def viterbi(tree: MatrixTree) -> tuple[list[int], float]:
    """Best candidate per node jointly with the best slot paths, and its log score.

    ``tree`` should hold max-product (best-path) matrices; the recursion is maximised as given.
    """
    chart = inside(tree, MaxProduct)
    return _descend(tree, chart, _argmax), chart.log_total


def sample(tree: MatrixTree, rng: np.random.Generator, size: int) -> list[list[int]]:
    """``size`` exact posterior draws of the candidate per node (``[s][k-1]`` for word k)."""
    chart, pick = inside(tree), _Sampler(rng)
    return [_descend(tree, chart, pick) for _ in range(size)]
