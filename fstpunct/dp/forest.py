"""Many matrix trees as flat arrays, and the compiled tree DP over them (:mod:`._forest`).

A :class:`Forest` holds what a list of :class:`~fstpunct.dp.treedp.MatrixTree` holds, flattened:
every sentence's heads, a slot-vector index per slot (its λ, ρ and, in slot 0, λ₀ᵀ ⊗ prefix)
and, per node, the stacks its left and right matrices come from and its candidates (weights,
left and right matrix indices). Stacks and slot vectors are shared: a model's slots are the same
for every sentence with the same surface string. :func:`viterbi` and :func:`log_partition` run
the compiled inside pass (and descent) over all sentences at once and give exactly the
reference's Viterbi choices (:func:`fstpunct.dp.treedp.viterbi`, ties included) and its log Z up to
the order of additions. A sentence whose total is 0 or whose tree is malformed is handed to a
``reference`` callback, which runs :mod:`fstpunct.dp.treedp` to raise the proper error.
"""
from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

from ..errors import FstpunctError
from ..ud.tree import spans as tree_spans
from . import _forest
from .semiring import MaxProduct, Semiring, SumProduct
from .stacks import SparseStack, Stack
from .treedp import MatrixTree

__all__ = ["Forest", "SlotVectors", "from_trees", "log_partition", "viterbi"]


@dataclass(frozen=True)
class SlotVectors:
    """A slot automaton's start vector λ and final vector ρ; where the slot opens a sentence,
    also ``entry`` = λ₀ᵀ ⊗ prefix (else empty)."""

    start: np.ndarray
    final: np.ndarray
    entry: np.ndarray


@dataclass(frozen=True)
class KernelStack:
    """A :class:`~fstpunct.dp.stacks.SparseStack` as the kernel reads it: CSR rows of the matrices
    and of their transposes (intp row pointers, int32 column indices, float values)."""

    size: int
    count: int
    ptr: np.ndarray
    col: np.ndarray
    val: np.ndarray
    tptr: np.ndarray
    tcol: np.ndarray
    tval: np.ndarray

    @classmethod
    def of(cls, stack: Stack) -> KernelStack:
        """Any stack (a dense one is made sparse first)."""
        if not isinstance(stack, SparseStack):
            size = stack.size
            stack = SparseStack.of(np.array([stack.matrix(a) for a in range(len(stack))])
                                   .reshape(-1, size, size))
        rows, cols = stack.rows, stack.columns
        return cls(stack.size, len(stack), rows.indptr, rows.indices, rows.data, cols.indptr,
                   cols.indices, cols.data)


@dataclass(frozen=True)
class Forest:
    """Sentences s = 0..S−1 with n_s words, max(n_s, 1) nodes (the pseudo node when n_s = 0)
    and n_s + 1 slots each, flattened in order; all index arrays are intp."""

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
        """Raise :class:`FstpunctError` unless every index is in range (the kernel trusts them)."""
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


def _run(forest: Forest, semiring: type[Semiring], choices: bool,
         reference: Callable[[int], object]) -> tuple[np.ndarray, np.ndarray]:
    log_total, status, choice = _forest.run(forest, list(forest.stacks), list(forest.vectors),
                                            semiring is MaxProduct, choices)
    for s in np.flatnonzero(status != _forest.OK):
        reference(int(s))  # raises the reference's error
        raise FstpunctError(f"sentence {s}: the compiled tree DP failed (status {status[s]}) "
                            "where the reference did not")
    return log_total, choice


def viterbi(forest: Forest, reference: Callable[[int], object]) -> tuple[np.ndarray, np.ndarray]:
    """Every node's best candidate (an index into its own candidates, flat over the forest's
    nodes) and every sentence's best log score, over max-product stacks."""
    log_total, choice = _run(forest, MaxProduct, True, reference)
    return choice, log_total


def log_partition(forest: Forest, reference: Callable[[int], object]) -> np.ndarray:
    """log Z of every sentence, over real-semiring stacks."""
    return _run(forest, SumProduct, False, reference)[0]


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

    def ints(x: Sequence[int] | list[np.ndarray], flat: bool = False) -> np.ndarray:
        return (np.concatenate(x) if flat and x else np.asarray(x)).astype(np.intp)

    forest = Forest(ints(words), ints(nodes), ints(heads), ints(slots), ints(left), ints(right),
                    ints(np.concatenate([[0], np.cumsum(sizes, dtype=np.intp)])),
                    np.concatenate(weights) if weights else np.zeros(0), ints(lefts, True),
                    ints(rights, True), stacks, vectors)
    forest.check()
    return forest
