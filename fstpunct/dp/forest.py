"""Many matrix trees as flat arrays, and the compiled tree DP over them (:mod:`._forest`).

A :class:`Forest` holds what a list of :class:`~fstpunct.dp.treedp.MatrixTree` holds, flattened:
every sentence's heads, a slot-vector index per slot (its λ, ρ and, in slot 0, λ₀ᵀ ⊗ prefix)
and, per node, the stacks its left and right matrices come from and its candidates (weights,
left and right matrix indices). Stacks and slot vectors are shared: a model's slots are the same
for every sentence with the same surface string. :func:`viterbi` and :func:`log_partition` run
the compiled inside pass (and descent) over all sentences at once and give exactly the
reference's Viterbi choices (:func:`fstpunct.dp.treedp.viterbi`, ties included) and its log Z up to
the order of additions; :func:`viterbi_and_log_partition` runs both in one traversal (decode's:
the same values bit for bit, each matrix line read once for both). A sentence whose total is 0
or whose tree is malformed is handed to a ``reference`` callback, which runs
:mod:`fstpunct.dp.treedp` to raise the proper error.

:func:`outside` (posteriors and every gradient of log Z, :func:`fstpunct.dp.treedp.outside`) and
:func:`sample` (forward filtering, backward sampling: :func:`fstpunct.dp.treedp.sample`, drawing
the same numbers from the same generator, so the same samples up to rounding) run compiled
over a range of the forest's sentences.
"""
from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable, Sequence
from dataclasses import dataclass, fields
from typing import TYPE_CHECKING

import numpy as np

from ..errors import FstpunctError
from ..ud.tree import spans as tree_spans
from . import _forest
from .semiring import MaxProduct, Semiring, SumProduct
from .stacks import DenseStack, SparseStack

if TYPE_CHECKING:  # the readable tree DP, the tests' oracle: decode does not import it
    from .treedp import MatrixTree

__all__ = ["ChainStack", "Forest", "KernelSource", "Outside", "SlotVectors", "Terms", "from_trees",
           "log_partition", "outside", "sample", "viterbi", "viterbi_and_log_partition"]


@dataclass(frozen=True, eq=False)
class SlotVectors:
    """A slot automaton's start vector λ and final vector ρ; where the slot opens a sentence,
    also ``entry`` = λ₀ᵀ ⊗ prefix (else empty)."""

    start: np.ndarray
    final: np.ndarray
    entry: np.ndarray


@dataclass(frozen=True, eq=False)
class KernelStack:
    """A :class:`~fstpunct.dp.stacks.SparseStack` as the kernel reads it: CSR rows of the matrices
    (int32 row pointers, uint16 column indices, float values) and of their transposes (row
    indices uint16), whose entries are those of the rows in the order ``tperm`` (int32;
    :attr:`SparseStack.transposes
    <fstpunct.dp.stacks.SparseStack.transposes>`)."""

    size: int
    count: int
    ptr: np.ndarray
    col: np.ndarray
    val: np.ndarray
    tptr: np.ndarray
    tcol: np.ndarray
    tperm: np.ndarray

    @classmethod
    def of(cls, stack: SparseStack | DenseStack | KernelSource) -> KernelStack:
        """A sparse stack's, a dense one's (made sparse first), or a :class:`KernelSource`'s
        own (token chains': a :class:`ChainStack`); another type is refused (TypeError)."""
        if isinstance(stack, DenseStack):
            stack = SparseStack.of(stack.mats)
        elif isinstance(stack, KernelSource):
            return stack.kernel()
        elif not isinstance(stack, SparseStack):
            raise TypeError(f"KernelStack.of: a {type(stack).__name__}; a SparseStack, "
                            "DenseStack or KernelSource (TokenChains) is needed")
        rows = stack.rows
        return cls(stack.size, len(stack), rows.indptr, rows.indices, rows.data,
                   *stack.transposes)


class KernelSource(ABC):
    """The base of stacks with a kernel form of their own (:class:`~fstpunct.dp.chains.TokenChains`,
    whose :meth:`kernel` gives a :class:`ChainStack`)."""

    @abstractmethod
    def kernel(self) -> KernelStack:
        """The stack as the compiled tree DP reads it."""


@dataclass(frozen=True, eq=False)
class ChainStack(KernelStack):
    """A :class:`~fstpunct.dp.chains.TokenChains` as the kernel reads it: its stored matrices as a
    :class:`KernelStack` (matrix ``base`` + b as its b-th), matrices a < ``base`` the token
    chains ``stok[soff[a]:soff[a+1]]`` over the token matrices' rows (``kptr``, ``kcol``,
    ``kval``: row υ·N + s is M(υ)[s, :]) and columns (``ktptr``, ``ktcol``, their entries
    those of the rows in the order ``ktperm``; typed as :class:`KernelStack`'s)."""

    base: int
    soff: np.ndarray
    stok: np.ndarray
    kptr: np.ndarray
    kcol: np.ndarray
    kval: np.ndarray
    ktptr: np.ndarray
    ktcol: np.ndarray
    ktperm: np.ndarray


@dataclass(frozen=True, eq=False)
class Forest:
    """Sentences s = 0..S−1 with n_s words, max(n_s, 1) nodes (the pseudo node when n_s = 0)
    and n_s + 1 slots each, flattened in order; the index arrays are intp, but the
    candidates' stack indices ``left_of`` and ``right_of``, int32 (a chunk holds ~250 k)."""

    word_offsets: np.ndarray  # (S + 1,): sentence s's heads are heads[word_offsets[s]:...]
    node_offsets: np.ndarray  # (S + 1,)
    heads: np.ndarray  # per word, 1-based within its sentence, 0 = root
    slot_vectors: np.ndarray  # per slot (word_offsets[s] + s + i for slot i): index into vectors
    node_left: np.ndarray  # per node: index into stacks (its left matrices, in slot i)
    node_right: np.ndarray  # per node: index into stacks (its right matrices, in slot k)
    candidate_offsets: np.ndarray  # (nodes + 1,)
    weights: np.ndarray  # per candidate
    left_of: np.ndarray  # per candidate: index into its node's left stack
    right_of: np.ndarray  # per candidate: index into its node's right stack
    stacks: Sequence[KernelStack]
    vectors: Sequence[SlotVectors]

    def __len__(self) -> int:
        return len(self.word_offsets) - 1

    def check(self) -> None:
        """Raise :class:`FstpunctError` unless every index is in range (the kernel trusts them)
        and ``left_of`` and ``right_of`` are int32 (the kernel's type for them)."""
        self.check_types()
        counts = np.array([m.count for m in self.stacks], dtype=np.intp)
        nodes = np.repeat(np.arange(len(self.node_left)), np.diff(self.candidate_offsets))
        ok = (np.all(self.slot_vectors < len(self.vectors)) and np.all(self.slot_vectors >= 0)
              and all(np.all(x >= 0) and np.all(x < len(self.stacks))
                      for x in (self.node_left, self.node_right))
              and np.all(self.left_of >= 0) and np.all(self.right_of >= 0)
              and np.all(self.left_of < counts[self.node_left[nodes]])
              and np.all(self.right_of < counts[self.node_right[nodes]]))
        if not ok:
            raise FstpunctError("forest: an index is out of range")

    def check_types(self) -> None:
        """Raise :class:`FstpunctError` unless ``left_of`` and ``right_of`` are int32 (checked
        before every kernel run: else Cython's bare "Buffer dtype mismatch")."""
        for name in ("left_of", "right_of"):
            if getattr(self, name).dtype != np.int32:
                raise FstpunctError(f"forest: {name} is {getattr(self, name).dtype}, not int32")


def _check(status: np.ndarray, reference: Callable[[int], object], first: int = 0) -> None:
    for s in np.flatnonzero(status != _forest.OK) + first:
        reference(int(s))  # raises the reference's error
        raise FstpunctError(f"sentence {s}: the compiled tree DP failed (status "
                            f"{status[s - first]}) where the reference did not")


def _run(forest: Forest, semiring: type[Semiring], choices: bool,
         reference: Callable[[int], object]) -> tuple[np.ndarray, np.ndarray]:
    forest.check_types()
    log_total, status, choice = _forest.run(forest, list(forest.stacks), list(forest.vectors),
                                            semiring is MaxProduct, choices)
    _check(status, reference)
    return log_total, choice


def viterbi(forest: Forest, reference: Callable[[int], object]) -> tuple[np.ndarray, np.ndarray]:
    """Every node's best candidate (an index into its own candidates, flat over the forest's
    nodes) and every sentence's best log score, over max-product stacks."""
    log_total, choice = _run(forest, MaxProduct, True, reference)
    return choice, log_total


def log_partition(forest: Forest, reference: Callable[[int], object]) -> np.ndarray:
    """log Z of every sentence, over real-semiring stacks."""
    return _run(forest, SumProduct, False, reference)[0]


def viterbi_and_log_partition(forest: Forest, best: Forest, reference: Callable[[int], object],
                              best_reference: Callable[[int], object]
                              ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """:func:`viterbi` over ``best`` (max-product stacks) and :func:`log_partition` over
    ``forest`` (real-semiring stacks of the same sentences, nodes and candidates) in one
    compiled traversal, bitwise the same values: (choice, best log score, log Z)."""
    layout = [f.name for f in fields(Forest) if f.name not in ("stacks", "vectors")]
    if len(forest.stacks) != len(best.stacks) or not all(
            getattr(forest, k) is getattr(best, k) or np.array_equal(getattr(forest, k),
                                                                     getattr(best, k))
            for k in layout):
        raise ValueError("viterbi_and_log_partition: the two forests differ beyond their stacks")
    forest.check_types()
    best.check_types()
    log_z, status, score, best_status, choice = _forest.run_pair(
        forest, list(forest.stacks), list(forest.vectors), list(best.stacks), list(best.vectors))
    _check(best_status, best_reference)
    _check(status, reference)
    return choice, score, log_z


@dataclass(frozen=True, eq=False)
class Terms:
    """Gradients of log Z with respect to the matrices, as rank-one terms: term r lives in
    forest slot ``slot[r]`` and adds ``coef · p qᵀ`` to ∂log Z/∂M_a for each of its entries
    (a = ``matrix[coef_at[r]:coef_at[r+1]]`` in stack ``stack[r]``, coef = ``coef[...]``), with
    ``p, q = vec[vec_at[r]:vec_at[r+1]]`` split in halves."""

    slot: np.ndarray
    stack: np.ndarray
    vec_at: np.ndarray
    vec: np.ndarray
    coef_at: np.ndarray
    matrix: np.ndarray
    coef: np.ndarray

    def __len__(self) -> int:
        return len(self.slot)

    def vectors(self, r: int) -> tuple[np.ndarray, np.ndarray]:
        """p and q of term r."""
        x = self.vec[self.vec_at[r]:self.vec_at[r + 1]]
        return x[:len(x) // 2], x[len(x) // 2:]


@dataclass(frozen=True, eq=False)
class Outside:
    """:func:`outside` over sentences ``first``.. of a forest: log Z per sentence, ∂log Z/∂weight
    per candidate of the range, ∂log Z/∂λ and ∂log Z/∂ρ per slot of the range (slot at
    ``slot_at``, local to the range; in slot 0 of each sentence ``start`` is ∂log Z/∂e for the
    entry vector e = λ₀ᵀ ⊗ prefix: ∂/∂λ₀ = prefix · ∂/∂e, ∂/∂prefix = λ₀ ⊗ ∂/∂e) and the
    matrices' gradients (:class:`Terms`)."""

    first: int  # the range's first sentence
    first_slot: int  # and its first slot (a forest slot index)
    log_z: np.ndarray
    weights: np.ndarray
    slot_at: np.ndarray
    start: np.ndarray
    final: np.ndarray
    terms: Terms

    def slot_vector(self, values: np.ndarray, slot: int) -> np.ndarray:
        """The part of ``start`` or ``final`` for a forest slot."""
        local = slot - self.first_slot
        return values[self.slot_at[local]:self.slot_at[local + 1]]


def _part(forest: Forest, part: range | None) -> tuple[int, int]:
    if part is None:
        return 0, len(forest)
    if part.step != 1 or not 0 <= part.start <= part.stop <= len(forest):
        raise ValueError(f"sentence range {part} is not a range of the forest's {len(forest)}")
    return part.start, part.stop


def outside(forest: Forest, reference: Callable[[int], object],
            part: range | None = None) -> Outside:
    """The inside and outside passes over the sentences ``part`` (default: all) of a forest of
    real-semiring stacks; ``reference(s)`` is called for a sentence the compiled pass rejects."""
    lo, hi = _part(forest, part)
    slots = forest.slot_vectors[forest.word_offsets[lo] + lo:forest.word_offsets[hi] + hi]
    sizes = np.array([len(v.start) for v in forest.vectors], dtype=np.intp)[slots]
    slot_at = np.concatenate([[0], np.cumsum(sizes)]).astype(np.intp)
    log_z, status, weights, start, final, *terms = _forest.outside(
        forest, list(forest.stacks), list(forest.vectors), lo, hi, slot_at)
    _check(status, reference, lo)
    return Outside(lo, int(forest.word_offsets[lo] + lo), log_z, weights, slot_at, start, final,
                   Terms(*terms))


def sample(forest: Forest, rng: np.random.Generator, size: int,
           reference: Callable[[int], object], part: range | None = None) -> np.ndarray:
    """``size`` exact posterior draws of every node's candidate (index into its candidates) for
    the sentences ``part`` (default: all) of a forest of real-semiring stacks: (size, nodes of
    the range); the same draws as :func:`fstpunct.dp.treedp.sample` with the same generator,
    sentence after sentence (up to last-bit differences in the sums the draws compare)."""
    lo, hi = _part(forest, part)
    _, status, choice = _forest.sample(forest, list(forest.stacks), list(forest.vectors), lo, hi,
                                       size, rng)
    _check(status, reference, lo)
    return choice


def from_trees(trees: Sequence[MatrixTree], semiring: type[Semiring] = SumProduct) -> Forest:
    """The forest of matrix trees for a run in ``semiring``, each slot and each node with stacks
    of its own (what the tests compare with the reference)."""
    stacks: list[KernelStack] = []
    vectors: list[SlotVectors] = []
    heads, slots, left, right, sizes, weights, lefts, rights = ([] for _ in range(8))
    words, nodes = [0], [0]
    for tree in trees:
        start = [np.asarray(x, dtype=float) for x in tree.start]
        final = [np.asarray(x, dtype=float) for x in tree.final]
        entry = semiring.vecmat(start[0], np.asarray(tree.prefix, dtype=float))
        heads.extend(tree.heads)
        words.append(words[-1] + len(tree.heads))
        nodes.append(nodes[-1] + len(tree.nodes))
        for i, (lam, rho) in enumerate(zip(start, final)):
            slots.append(len(vectors))
            vectors.append(SlotVectors(lam, rho, entry if i == 0 else np.zeros(0)))
        spans = tree_spans(tree.heads) if tree.heads else [(0, 0)]
        for node, (i, k) in zip(tree.nodes, spans):
            for mats, size, to in ((node.lefts, len(start[i]), left),
                                   (node.rights, len(start[k]), right)):
                if isinstance(mats, (np.ndarray, list, tuple)):
                    mats = np.asarray(mats, dtype=float)
                    mats = SparseStack.of(mats if len(mats) else np.zeros((0, size, size)))
                to.append(len(stacks))
                stacks.append(KernelStack.of(mats))
            sizes.append(len(node.weights))
            weights.append(np.asarray(node.weights, dtype=float))
            lefts.append(np.asarray(node.left_of, dtype=np.intp))
            rights.append(np.asarray(node.right_of, dtype=np.intp))

    def ints(x: Sequence[int] | list[np.ndarray], flat: bool = False,
             dtype: type = np.intp) -> np.ndarray:
        values = np.concatenate(x) if flat and x else np.asarray(x, dtype=np.intp)
        bounds = np.iinfo(dtype)
        if values.size and (values.min() < bounds.min or values.max() > bounds.max):
            raise FstpunctError(f"forest: an index beyond {bounds.dtype}'s range")
        return values.astype(dtype)

    forest = Forest(ints(words), ints(nodes), ints(heads), ints(slots), ints(left), ints(right),
                    ints(np.concatenate([[0], np.cumsum(sizes, dtype=np.intp)])),
                    np.concatenate(weights) if weights else np.zeros(0),
                    ints(lefts, True, np.int32), ints(rights, True, np.int32), stacks, vectors)
    forest.check()
    return forest
