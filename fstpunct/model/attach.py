"""The Attach model p_θ(l, r | w) (DESIGN §3): a log-linear distribution over W_d for each node.

θ is the matrix Θ[context feature, pair feature] of :mod:`fstpunct.model.features`, stored flat
(row-major, in two blocks: :class:`AttachModel`), so the score of pair p at node w is
Σ_{c ∈ ctx(w)} (Θ Gᵀ)[c, p].

A corpus is featurised once into :class:`AttachData`. Its public layout is flat: candidate rows
(node, pair) concatenated in node order (sentence by sentence, nodes 1..n, or the one pseudo node
of a sentence without words), ``node_offsets`` (the rows of node j are
``node_offsets[j]:node_offsets[j+1]``) and ``sentence_offsets`` (the nodes of sentence s).
For computation, nodes are grouped by candidate set: all nodes of a group share W, so their scores
are one sparse × dense product X_g · (Θ Gᵀ)[C_g, W] over the contexts C_g the group's nodes have
(few for a sentence, since lexical contexts are many) and the softmax is a row operation on a
dense block (no per-node Python loop). Θ Gᵀ is computed once per θ (:func:`pair_scores`;
``PunctModel.pair_scores`` keeps it). Nodes of a group with identical context features are merged —
their distributions are equal and their targets add up — which shrinks the work several-fold.
"""
from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from ..dp.sparse import Csr, ranges, unique_ids
from ..errors import UNREADABLE, ModelError, not_a_model
from ..files import NpzArchive, read_meta, read_npz, write_json
from ..ud.slots import SlotSentence
from ._attach import (
    fit_piece,
    gather,
    gathered_matmul,
    lexicographic,
    unpack_nonzeros,
)
from ._features import candidate_rows, distinct_rows, set_contexts
from ._punct import softmax_rows
from .features import (
    context_ids,
    is_lexical,
    is_side,
    lexical_contexts,
    node_contexts,
    pair_features,
)
from .threads import each
from .vocab import EMPTY, Vocab

if TYPE_CHECKING:  # pair_scores' threads, given by the M-step (:mod:`.mstep`)
    from concurrent.futures import Executor

__all__ = ["AttachModel", "AttachData", "candidate_rows_reference", "pair_scores",
           "probabilities", "probabilities_reference", "node_pairs", "row_chunks",
           "set_contexts_reference", "unpack_nonzeros_reference"]

# what a refusal of a damaged attach file says its folder is not: the attach model lives in a
# punctuation model's folder (README: "FOLDER: not a fstpunct model (FILE: why)")
_WHAT = "a fstpunct model"


class AttachModel:
    """Vocabularies, symmetric marks and the feature index; θ is kept separately (flat array).

    ``contexts`` lists the unlexicalised context features first, then the lexical ones
    (:func:`~.features.is_lexical`). θ has two blocks, flat one after the other: Θ over
    (unlexicalised context, pair feature), then Θ_lex over (lexical context, *side* feature: the
    ``L=``, ``R=`` and ``M`` pair features), so a word votes for each puncteme of a pair but not
    for every pair of the table."""

    def __init__(self, vocab: Vocab, symmetric: Sequence[tuple[str, str]],
                 contexts: Sequence[str]) -> None:
        self.vocab = vocab
        self.symmetric = tuple((a, b) for a, b in symmetric)
        self.contexts = tuple(contexts)
        self.context_index = {c: k for k, c in enumerate(self.contexts)}
        lexical = [is_lexical(c) for c in self.contexts]
        self.n_base = lexical.index(True) if any(lexical) else len(lexical)
        if not all(lexical[self.n_base:]):
            raise ModelError("lexical context features must come after all the others")
        self.lexical = self.n_base < len(self.contexts)
        self.pair_feature_names, self.pair_matrix = pair_features(vocab, self.symmetric)
        self.side = np.array([k for k, f in enumerate(self.pair_feature_names) if is_side(f)],
                             dtype=np.intp)
        self.side_matrix = self.pair_matrix.columns(self.side)

    @classmethod
    def build(cls, vocab: Vocab, symmetric: Sequence[tuple[str, str]],
              sentences: Sequence[SlotSentence], lexical: int = 0,
              readings: Sequence[SlotSentence] = ()) -> AttachModel:
        """Index every context feature that occurs in the (training) sentences or in
        ``readings`` (more readings of them: the same words, other contexts), and the lexical
        ones (:func:`~fstpunct.model.features.lexical_contexts`) of the sentences' ``lexical``
        most frequent lowercased words (ties broken alphabetically)."""
        contexts = {c for s in (*sentences, *readings) for node in node_contexts(s) for c in node}
        words: set[str] = set()
        if lexical:
            counts = Counter(w.lower() for s in sentences for w in s.words)
            top = sorted(counts, key=lambda w: (-counts[w], w))[:lexical]
            keep = {f"={w}" for w in top}
            words = {c for s in sentences for node in lexical_contexts(s) for c in node
                     if c[c.index("="):] in keep}
        return cls(vocab, symmetric, sorted(contexts) + sorted(words))

    @property
    def shapes(self) -> tuple[tuple[int, int], tuple[int, int]]:
        """The shapes of θ's two blocks: (unlexicalised contexts × pair features), (lexical
        contexts × side features)."""
        return ((self.n_base, len(self.pair_feature_names)),
                (len(self.contexts) - self.n_base, len(self.side)))

    @property
    def size(self) -> int:
        """The number of weights in θ."""
        return sum(r * c for r, c in self.shapes)

    def blocks(self, theta: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """θ's two blocks as matrices (views of flat ``theta``)."""
        (r0, c0), (r1, c1) = self.shapes
        return theta[:r0 * c0].reshape(r0, c0), theta[r0 * c0:].reshape(r1, c1)

    def init_theta(self, token_cost: float = 0.0) -> np.ndarray:
        """The prior mean θ₀ (flat): every pair (l, r) scores −token_cost · (|l| + |r|) through
        the ``bias`` feature, so where the data say nothing fewer underlying marks win; with
        ``token_cost`` 0 it is θ = 0, the uniform distribution over every W_d."""
        theta = np.zeros(self.size)
        bias = self.context_index.get("bias")
        if token_cost and bias is not None:
            sizes = np.array([len(p) for p in self.vocab.punctemes])
            lr = np.asarray(self.vocab.pairs, dtype=np.int64).reshape(-1, 2)
            self.blocks(theta)[0][bias, :len(lr)] = -token_cost * (sizes[lr[:, 0]] +
                                                                   sizes[lr[:, 1]])
        return theta

    def save(self, path: str | Path, theta: np.ndarray) -> None:
        """Write ``<path>.json`` (vocabularies, symmetric pairs, feature names) and
        ``<path>.npz`` (θ's blocks: ``theta``, contexts × pair features, and, with lexical
        contexts, ``lexical``, lexical contexts × side features; each as :func:`_stored`):
        the two appear together as part of a model folder (:func:`~.store.save_model`)."""
        meta = {"vocab": self.vocab.to_dict(), "symmetric": [list(p) for p in self.symmetric],
                "contexts": list(self.contexts), "pair_features": self.pair_feature_names}
        write_json(f"{path}.json", meta, atomic=False)
        base, lexical = self.blocks(np.asarray(theta, dtype=np.float64))
        np.savez(f"{path}.npz", **_stored("theta", base),
                 **(_stored("lexical", lexical) if self.lexical else {}))

    @classmethod
    def load(cls, path: str | Path) -> tuple[AttachModel, np.ndarray]:
        """Read what :meth:`save` wrote (or, from older models, θ's blocks whole and
        zip-compressed): the model and flat θ. A damaged file (a member whose CRC fails, a
        stream that does not inflate, a truncated zip) is a ModelError like any other
        unreadable model, naming the folder and the file: ``m: not a fstpunct model
        (attach.json: why)``."""
        meta = read_meta(Path(f"{path}.json"), None, _WHAT,
                         {"vocab": dict, "symmetric": list, "contexts": list,
                          "pair_features": list})
        try:
            model = cls(Vocab.from_dict(meta["vocab"]), meta["symmetric"], meta["contexts"])
        except (*UNREADABLE, TypeError) as e:  # a field of the wrong shape
            if isinstance(e, KeyError):  # read_meta's wording of a missing field
                e = ValueError(f"{e.args[0]!r} missing")
            raise not_a_model(Path(path).parent, _WHAT, e, file=f"{Path(path).name}.json") from e
        theta = np.empty(model.size)
        with read_npz(Path(f"{path}.npz"), _WHAT) as npz:
            fits = model.pair_feature_names == meta["pair_features"] and all(
                _read_block(npz, name, block)
                for name, block in zip(("theta", "lexical"), model.blocks(theta)))
        if not fits:
            raise ModelError(f"{Path(path).parent}: not {_WHAT} ({Path(path).name}.npz: its "
                             "weights do not match the feature index)")
        return model, theta


def _stored(name: str, block: np.ndarray) -> dict[str, np.ndarray]:
    """A block of θ as saved: its shape, which entries are nonzero (bits) and their values, not
    compressed: loading copies them instead of inflating a zip stream (about 5 times faster;
    the file is about as large, θ being a third zeros). Bitwise exact (−0.0 is a value)."""
    flat = np.ascontiguousarray(block, dtype=np.float64).ravel()
    nonzero = flat.view(np.uint64) != 0
    return {f"{name}_shape": np.array(block.shape, dtype=np.int64),
            f"{name}_nonzero": np.packbits(nonzero), f"{name}_values": flat[nonzero]}


def _read_block(npz: NpzArchive, name: str, block: np.ndarray) -> bool:
    """Fill ``block`` (a view of θ) with block ``name`` of an open ``.npz``, as :func:`_stored`
    wrote it or whole (older models); absent, it must be empty. False if the stored block has
    another shape; arrays that are not numbers, or bits and values that do not pair up, are
    the archive's error."""
    if name in npz:
        stored = npz.numbers(name)
        if stored.shape != block.shape:
            return False
        block[...] = stored
        return True
    if f"{name}_shape" not in npz:
        return block.size == 0
    if tuple(npz.numbers(f"{name}_shape", 1).tolist()) != block.shape:
        return False
    bits, values = npz.numbers(f"{name}_nonzero", 1), npz.numbers(f"{name}_values", 1)
    try:  # row-major, as stored (a view: θ's blocks are contiguous)
        unpack_nonzeros(bits, values, block.reshape(-1))
    except ValueError as e:  # values that do not pair up with the bits, or of another type
        raise npz.error(e) from e
    return True


def unpack_nonzeros_reference(bits: np.ndarray, values: np.ndarray, out: np.ndarray) -> None:
    """:func:`~._attach.unpack_nonzeros` by a boolean mask of every entry (the tests'
    oracle)."""
    nonzero = np.unpackbits(bits, count=out.size).view(bool)
    out[...] = 0.0
    out[nonzero] = values


PIECE = 1 << 17  # (context row × candidate) entries of an M-step task: a few ms


@dataclass(frozen=True, eq=False)
class _Piece:
    """Some distinct context rows of a group (:attr:`_Group.pieces`), one task of the M-step."""

    candidates: np.ndarray  # the group's W (intp)
    used: np.ndarray        # the context features the rows have (ascending ids)
    at: np.ndarray          # their rows in the group's :meth:`~_Group.gather`-ed block (intp)
    contexts: Csr           # the rows, over ``used``, in the group's prefix order
    shared: np.ndarray      # how many first entries each row shares with the one before
    rows: np.ndarray        # their rows in the group's ``contexts``

    @property
    def work(self) -> int:
        return len(self.contexts.indices) * len(self.candidates)

    def fit(self, block: np.ndarray, targets: np.ndarray, mass: np.ndarray,
            gradient: np.ndarray | None = None,
            nonzero: tuple[np.ndarray, np.ndarray] | None = None) -> tuple[float, np.ndarray]:
        """The rows' term of the M-step's objective and its gradient block (``used`` ×
        candidates) in Θ Gᵀ, written into ``gradient`` if given, compiled
        (:func:`~._attach.fit_piece`); ``block``: the group's :meth:`~_Group.gather` of Θ Gᵀ;
        ``targets``, ``mass``: the rows' merged targets and their sums; ``nonzero``: where the
        targets are not 0 (:func:`~._attach.nonzero_rows`), if known (the same bits, faster)."""
        x = self.contexts
        if gradient is None:
            gradient = np.empty((len(self.used), len(self.candidates)))
        value = fit_piece(x.indptr, x.indices, x.data, self.shared, self.at, block, targets,
                          mass, gradient, True, *(nonzero or (None, None)))
        return value, gradient


@dataclass(frozen=True, eq=False)
class _Group:
    """Nodes sharing one candidate set W (key from :meth:`Vocab.relation_key`)."""

    key: str
    candidates: np.ndarray    # W: pair indices
    nodes: np.ndarray         # node ids
    used: np.ndarray          # the context features the group's nodes have (ascending ids)
    contexts: Csr             # distinct context rows (U × len(used)), binary, over ``used``
    inverse: np.ndarray       # node -> its row in ``contexts``

    def scores(self, st: np.ndarray) -> np.ndarray:
        """The score of every candidate at every distinct context row (U × |W|), from the
        :func:`pair_scores` ``st`` (C-ordered): only the entries of the contexts used and the
        candidates are read, compiled (:meth:`scores_reference`'s product, bitwise)."""
        out = np.empty((self.contexts.n_rows, len(self.candidates)))
        x = self.contexts
        gathered_matmul(x.indptr, x.indices, x.data, self.used, self.candidates,
                        np.ascontiguousarray(st), out)
        return out

    def gather(self, st: np.ndarray, out: np.ndarray | None = None) -> np.ndarray:
        """The block of ``st`` (C-ordered contexts × pairs) that the group reads: its used
        contexts × its candidates (compiled; written into ``out`` if given)."""
        if out is None:
            out = np.empty((len(self.used), len(self.candidates)))
        gather(st, self.used.astype(np.intp, copy=False),
               self.candidates.astype(np.intp, copy=False), out)
        return out

    def scores_reference(self, st: np.ndarray) -> np.ndarray:
        """:meth:`scores` by gathering the block of ``st`` first (the tests' oracle)."""
        return self.contexts.matmul(st[np.ix_(self.used, self.candidates)])

    @cached_property
    def prefixes(self) -> tuple[np.ndarray, np.ndarray]:
        """The distinct context rows in lexicographic order of their entries (column, value),
        and how many first entries each shares with the row before it (for :attr:`pieces`):
        compiled (:func:`~._attach.lexicographic`), :meth:`prefixes_reference`'s arrays."""
        x = self.contexts
        return lexicographic(x.indptr.astype(np.intp, copy=False), x.indices, x.data)

    def prefixes_reference(self) -> tuple[np.ndarray, np.ndarray]:
        """:attr:`prefixes` by numpy's ``lexsort`` over every entry's column and value (the
        tests' oracle)."""
        x = self.contexts
        lengths = np.diff(x.indptr)
        width = int(lengths.max(initial=0))
        if width == 0:
            return np.arange(x.n_rows, dtype=np.intp), np.zeros(x.n_rows, dtype=np.intp)
        columns = np.full((x.n_rows, width), -1, dtype=np.int64)  # −1: shorter rows sort first
        values = np.zeros((x.n_rows, width))
        rows = np.repeat(np.arange(x.n_rows), lengths)
        at = (rows, np.arange(len(x.indices)) - x.indptr[rows])
        columns[at], values[at] = x.indices, x.data
        # lexsort's last key sorts first: the first entry's column, its value, the second's, …
        order = np.lexsort([key[:, c] for c in reversed(range(width)) for key in (values, columns)])
        columns, values = columns[order], values[order]
        same = ((columns[1:] == columns[:-1]) & (values[1:].view(np.int64) ==
                                                 values[:-1].view(np.int64)) & (columns[1:] >= 0))
        shared = np.concatenate([[0], np.cumprod(same, axis=1).sum(axis=1)])
        return order.astype(np.intp), shared.astype(np.intp)

    @cached_property
    def pieces(self) -> tuple[_Piece, ...]:
        """The M-step's tasks: :meth:`cut` into pieces of :data:`PIECE` entries."""
        return self.cut(PIECE)

    def cut(self, size: int) -> tuple[_Piece, ...]:
        """The distinct context rows in :attr:`prefixes` order, cut into pieces of at most
        ``size`` (row × candidate) entries (at least one row each)."""
        order, shared = self.prefixes
        x = self.contexts
        step = max(1, size // max(len(self.candidates), 1))
        pieces = []
        for start in range(0, x.n_rows, step):
            rows = order[start:start + step]
            lengths = x.indptr[rows + 1] - x.indptr[rows]
            flat = ranges(x.indptr[rows], lengths)
            used, local = unique_ids(x.indices[flat])
            indptr = np.concatenate([[0], np.cumsum(lengths)]).astype(np.intp)
            common = shared[start:start + step].copy()
            common[0] = 0
            pieces.append(_Piece(self.candidates.astype(np.intp), self.used[used],
                                 used.astype(np.intp),
                                 Csr(indptr, local.astype(np.int32), x.data[flat], len(used)),
                                 common, rows))
        return tuple(pieces)

    def fit_term_reference(self, st: np.ndarray, targets: np.ndarray, mass: np.ndarray,
                           d_st: np.ndarray) -> float:
        """The group's term of the M-step's objective, Σ targets · log p_θ over its distinct
        context rows (``targets``: U × |W|; ``mass``: their row sums), adding its gradient in
        Θ Gᵀ into ``d_st``; in numpy and scipy (the tests' oracle for its :attr:`pieces`)."""
        scores = self.scores_reference(st)
        fit_term = np.vdot(targets, scores)  # before the softmax overwrites the scores
        log_z, p = _softmax(scores)
        p *= -mass[:, None]
        p += targets
        d_st[np.ix_(self.used, self.candidates)] += self.contexts.scipy().T @ p
        return float(fit_term - mass @ log_z)


@dataclass(frozen=True, eq=False)
class AttachData:
    """A featurised corpus (see module docstring); ``pairs`` holds each row's pair index."""

    model: AttachModel
    pairs: np.ndarray
    node_offsets: np.ndarray
    sentence_offsets: np.ndarray
    groups: tuple[_Group, ...]

    @classmethod
    def build(cls, model: AttachModel, sentences: Sequence[SlotSentence]) -> AttachData:
        """Featurise ``sentences`` (context features unknown to the model are dropped)."""
        vocab = model.vocab
        ptr, ids, sentence_offsets = context_ids(sentences, model.context_index, model.lexical)
        deprels = [d for s in sentences for d in (s.deprels if s.n else (EMPTY,))]
        keys = {d: vocab.relation_key(d) for d in set(deprels)}  # relation → its candidate set
        sets = sorted(set(keys.values()))
        number = {key: k for k, key in enumerate(sets)}
        code = {d: number[key] for d, key in keys.items()}
        group = np.fromiter(map(code.__getitem__, deprels), dtype=np.intp, count=len(deprels))
        # per candidate set: its nodes, its distinct context rows (each by its first node)
        inverse, first = distinct_rows(ptr, ids, group)
        built = tuple(_Group(key, vocab.candidates(key), nodes, used,
                             Csr(indptr, local, np.ones(len(local)), len(used)),
                             inverse[nodes].astype(np.int64))
                      for key, (nodes, indptr, used, local) in
                      zip(sets, set_contexts(ptr, ids, group, first.view(np.uint8), len(sets))))
        candidates = [g.candidates for g in built]
        sizes = np.array([len(c) for c in candidates], dtype=np.int64)[group]
        node_offsets = np.concatenate([[0], np.cumsum(sizes)])
        return cls(model, candidate_rows(node_offsets, group, candidates), node_offsets,
                   np.asarray(sentence_offsets, dtype=np.int64), built)

    @property
    def n_nodes(self) -> int:
        return len(self.node_offsets) - 1

    @cached_property
    def touched(self) -> np.ndarray:
        """Which weights of θ the data give a gradient (a mask): a context and a pair feature
        that meet in some candidate set's block (the same for every M-step on these data)."""
        model = self.model
        touched = np.zeros((len(model.contexts), model.pair_matrix.n_rows))
        for g in self.groups:
            touched[np.ix_(g.used, g.candidates)] = 1.0
        return np.concatenate([
            _absolute(model.pair_matrix).rmatmul(touched[:model.n_base]).ravel(),
            _absolute(model.side_matrix).rmatmul(touched[model.n_base:]).ravel()]) > 0.0

    def rows(self, group: _Group) -> np.ndarray:
        """Flat row indices of a group's candidates (nodes × |W|)."""
        return self.node_offsets[group.nodes][:, None] + np.arange(len(group.candidates))


def node_pairs(data: AttachData, node: int) -> np.ndarray:
    """The candidate pair indices (W) of ``node``, aligned with its rows."""
    return data.pairs[data.node_offsets[node]:data.node_offsets[node + 1]]


def set_contexts_reference(ptr: np.ndarray, ids: np.ndarray, group: np.ndarray,
                           first: np.ndarray, sets: int
                           ) -> list[tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]]:
    """:func:`._features.set_contexts` by numpy passes (the tests' oracle): per candidate set,
    its nodes, and its nodes' ``first`` rows as a CSR over the contexts the set uses (row
    pointers, the contexts used, each entry's column among them)."""
    by_set = np.argsort(group, kind="stable").astype(np.int64)
    bounds = np.searchsorted(group[by_set], np.arange(sets + 1))
    row_lengths = np.diff(ptr)
    out = []
    for k in range(sets):
        nodes = by_set[bounds[k]:bounds[k + 1]]
        firsts = nodes[first[nodes]]
        lengths = row_lengths[firsts]
        flat = ids[ranges(ptr[firsts], lengths)]
        used, local = unique_ids(flat)
        out.append((nodes, np.concatenate([[0], np.cumsum(lengths)]).astype(np.intp), used,
                    local.astype(np.int32)))
    return out


def candidate_rows_reference(node_offsets: np.ndarray, group: np.ndarray,
                             candidates: Sequence[np.ndarray]) -> np.ndarray:
    """:func:`._features.candidate_rows` by a numpy scatter per set (the tests' oracle)."""
    pairs = np.empty(node_offsets[-1], dtype=np.int32)
    for k, c in enumerate(candidates):
        starts = node_offsets[np.flatnonzero(group == k)]
        pairs[starts[:, None] + np.arange(len(c))] = c
    return pairs


def pair_scores(theta: np.ndarray, model: AttachModel, threads: Executor | None = None,
                workers: int = 1, out: np.ndarray | None = None) -> np.ndarray:
    """Θ Gᵀ: the score every context feature gives every pair (contexts × pairs), block by
    block (lexical contexts through the side features only; rows in :func:`row_chunks` on
    ``threads``, a pool of ``workers`` threads, if given: rows are independent, so the result
    is the same), written into ``out`` if given."""
    base, lexical = model.blocks(theta)
    if out is None:
        out = np.empty((len(model.contexts), model.pair_matrix.n_rows))

    def chunk(rows: slice) -> None:
        if rows.start < model.n_base:
            model.pair_matrix.rmatmul_t(base[rows], out=out[rows])
        else:
            lex = slice(rows.start - model.n_base, rows.stop - model.n_base)
            model.side_matrix.rmatmul_t(lexical[lex], out=out[rows])

    each(threads, workers, chunk, row_chunks(model))
    return out


def row_chunks(model: AttachModel, rows: int = 256) -> list[slice]:
    """The rows of Θ Gᵀ (contexts) in chunks of at most ``rows``, none across θ's blocks."""
    n = len(model.contexts)
    return [slice(a, min(a + rows, model.n_base if a < model.n_base else n))
            for start, stop in ((0, model.n_base), (model.n_base, n))
            for a in range(start, stop, rows)]


def _softmax(scores: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Row-wise log-partition and probabilities, the latter computed in place of ``scores``."""
    top = scores.max(axis=1, keepdims=True)
    p = np.exp(np.subtract(scores, top, out=scores), out=scores)
    total = p.sum(axis=1, keepdims=True)
    p /= total
    return (top + np.log(total))[:, 0], p


def probabilities(theta: np.ndarray, data: AttachData,
                  scores: np.ndarray | None = None, libm: bool = True) -> np.ndarray:
    """p_θ(l, r | w) for every candidate row (flat; sums to 1 over each node's rows);
    ``scores``: :func:`pair_scores` of θ, where already known. Each candidate set's softmax is
    written to its nodes' rows compiled. ``libm`` chooses its exponential: libm's (then
    :func:`probabilities_reference`'s values, bitwise, where numpy's exponential is libm's), else
    the M-step's (:func:`fstpunct.dp._sparse.exponentials`, the same bits on every machine and
    several times cheaper): each probability within 1e-14 (relative) of libm's path's."""
    st = pair_scores(theta, data.model) if scores is None else scores
    out = np.empty(len(data.pairs))
    for g in data.groups:
        softmax_rows(g.scores(st), g.inverse, data.node_offsets[g.nodes], out, libm)
    return out


def probabilities_reference(theta: np.ndarray, data: AttachData,
                            scores: np.ndarray | None = None) -> np.ndarray:
    """:func:`probabilities` by numpy passes and a fancy-indexed scatter (the tests' oracle)."""
    st = pair_scores(theta, data.model) if scores is None else scores
    out = np.empty(len(data.pairs))
    for g in data.groups:
        _, p = _softmax(g.scores(st))
        out[data.rows(g)] = p[g.inverse]
    return out


def _absolute(matrix: Csr) -> Csr:
    """The matrix of the absolute values (its products add no terms that cancel)."""
    return matrix._replace(data=np.abs(matrix.data))
