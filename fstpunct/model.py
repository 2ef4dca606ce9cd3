"""The punctuation model p(x | T) = Σ_T′ p_θ(T′ | T) · Π_i p_φ(xᵢ | uᵢ(T′)) and its inference.

A :class:`PunctModel` joins the Attach model (θ), the channel (φ) and a **backoff** that gives
every sentence nonzero probability: at every node

    p(l, r | w) = (1 − β) · p_θ(l, r | w)  [(l, r) ∈ W_d]   +   β · q(l) · q(r),
    q(l) = (1 − s) · (s / |Σ|)^|l|,

a proper distribution over *all* pairs of token strings (Σ = the channel's tokens except ∘).
Its contribution to a node's matrix is β(1 − s)² · C_i · B · C_k with the closures
C_i = Σ_l (s/|Σ|)^|l| M_i(l) = (I − (s/|Σ|) Σ_υ M_i(υ))⁻¹ (:meth:`~fstpunct.lattice.Lattice.closure`),
so the infinite sum is exact. Since the channel keeps every window with nonzero probability,
any surface slot string can come from one constituent's puncteme, and no sentence has p = 0.

:class:`Inference` fixes θ and φ, caches lattices per distinct surface string, and turns a
sentence into a :class:`~fstpunct.treedp.MatrixTree` whose candidates are the pairs of W_d the
slot lattices allow, plus the backoff.
"""
from __future__ import annotations

from collections.abc import Sequence
from dataclasses import asdict, dataclass, field

import numpy as np

from .attach import AttachData, AttachModel, probabilities
from .channel import Channel
from .lattice import Lattice, LatticeBuilder
from .slots import BOUNDARY, SlotSentence
from .tree import spans
from .treedp import Candidates, MatrixTree, inside, outside, sample, viterbi
from .vocab import Puncteme, Vocab

__all__ = ["BACKOFF", "Batch", "Inference", "PunctModel", "Settings"]

BACKOFF = -1  # the label of the backoff candidate


@dataclass(frozen=True)
class Settings:
    """Hyperparameters, recorded with every trained model."""

    backoff: float = 1e-3       # β
    continuation: float = 0.5   # s
    xi: float = 2.0             # posterior-regularisation tilt on unmatched symmetric marks
    l2: float = 1.0             # on θ
    prior: float = 1.0          # Dirichlet pseudo-counts per window, centred on the initial φ

    def to_dict(self) -> dict[str, float]:
        return asdict(self)


@dataclass
class PunctModel:
    attach: AttachModel
    theta: np.ndarray
    channel: Channel
    settings: Settings = field(default_factory=Settings)

    @property
    def vocab(self) -> Vocab:
        return self.attach.vocab

    def prepare(self, sentences: Sequence[SlotSentence]) -> Batch:
        return Batch.build(self, sentences)


@dataclass(frozen=True, eq=False)
class Batch:
    """Sentences made ready for inference: surface slot strings in model symbols (∘ opening
    slot 0) and the featurised Attach rows."""

    sentences: tuple[SlotSentence, ...]
    surfaces: tuple[tuple[tuple[str, ...], ...], ...]
    data: AttachData

    @classmethod
    def build(cls, model: PunctModel, sentences: Sequence[SlotSentence]) -> Batch:
        vocab = model.vocab
        surfaces = tuple(
            tuple((BOUNDARY, *vocab.map_slot(slot)) if i == 0 else vocab.map_slot(slot)
                  for i, slot in enumerate(s.slots))
            for s in sentences)
        return cls(tuple(sentences), surfaces, AttachData.build(model.attach, sentences))

    def __len__(self) -> int:
        return len(self.sentences)

    def nodes(self, s: int) -> range:
        return range(self.data.sentence_offsets[s], self.data.sentence_offsets[s + 1])


@dataclass
class Expectations:
    """What the E-step needs from one sentence."""

    log_z: float
    rows: np.ndarray        # flat Attach rows with posterior mass
    posterior: np.ndarray   # their posterior probabilities
    arc_counts: np.ndarray  # expected count of every channel arc


class Inference:
    """θ and φ fixed: lattices cached per surface string, one sentence at a time."""

    def __init__(self, model: PunctModel, batch: Batch, probs: np.ndarray | None = None,
                 tilt: float = 0.0) -> None:
        self.model, self.batch = model, batch
        channel = model.channel
        self.probs = probabilities(model.theta, batch.data) if probs is None else probs
        vocab = model.vocab
        self._puncteme_ids = [tuple(channel.index(t) for t in p) for p in vocab.punctemes]
        self._pairs = np.asarray(vocab.pairs, dtype=np.int64).reshape(-1, 2)
        unmatched = vocab.unmatched_mask(model.attach.symmetric)
        self._tilt = np.where(unmatched[batch.data.pairs], np.exp(-tilt), 1.0)
        self.builder = LatticeBuilder(channel)
        self.weights = self.builder.arc_weights()
        self._boundary = channel.index(BOUNDARY)
        settings = model.settings
        self._rate = settings.continuation / (len(channel.symbols) - 1)
        self._backoff = settings.backoff * (1 - settings.continuation) ** 2
        self._lattices: dict[tuple[tuple[str, ...], bool], Lattice] = {}
        self._closures: dict[tuple[tuple[str, ...], bool], np.ndarray] = {}
        self._possible_cache: dict[tuple[str, ...], np.ndarray] = {}

    def lattice(self, surface: tuple[str, ...], maximum: bool = False) -> Lattice:
        key = (surface, maximum)
        lat = self._lattices.get(key)
        if lat is None:
            lat = self._lattices[key] = self.builder.lattice(surface, self.weights, maximum)
        return lat

    def _closure(self, surface: tuple[str, ...], maximum: bool) -> np.ndarray:
        key = (surface, maximum)
        c = self._closures.get(key)
        if c is None:
            c = self._closures[key] = self.lattice(surface, maximum).closure(self._rate,
                                                                             self._boundary)
        return c

    def _possible(self, surface: tuple[str, ...]) -> np.ndarray:
        """Which punctemes of V have a nonzero matrix in the lattice of ``surface`` (bool)."""
        mask = self._possible_cache.get(surface)
        if mask is None:
            lat = self.lattice(surface)
            mask = np.array([bool(lat.matrix(p).any()) for p in self._puncteme_ids])
            self._possible_cache[surface] = mask
        return mask

    def tree(self, s: int, maximum: bool = False) -> tuple[MatrixTree, list[np.ndarray]]:
        """Sentence ``s`` as a matrix tree, and each node's candidate labels (flat Attach rows,
        :data:`BACKOFF` for the backoff)."""
        tree, labels, _ = self._tree(s, maximum)
        return tree, labels

    def _tree(self, s: int, maximum: bool) -> tuple[MatrixTree, list[np.ndarray],
                                                     list[tuple[list[int], list[int]]]]:
        """:meth:`tree`, plus each node's puncteme ids of its distinct left and right matrices
        (the closure is the last matrix on each side, after these)."""
        batch, data = self.batch, self.batch.data
        sent, surface = batch.sentences[s], batch.surfaces[s]
        lats = [self.lattice(x, maximum) for x in surface]
        nodes, labels, ids = [], [], []
        keep = 1.0 - self.model.settings.backoff
        for node, (i, k) in zip(batch.nodes(s), _node_spans(sent)):
            lo, hi = data.node_offsets[node], data.node_offsets[node + 1]
            lr = self._pairs[data.pairs[lo:hi]]
            ok = self._possible(surface[i])[lr[:, 0]] & self._possible(surface[k])[lr[:, 1]]
            rows = lo + np.flatnonzero(ok)
            l_ids, left_of = self._distinct(lr[ok, 0])
            r_ids, right_of = self._distinct(lr[ok, 1])
            lefts = [lats[i].matrix(self._puncteme_ids[l]) for l in l_ids]
            rights = [lats[k].matrix(self._puncteme_ids[r]) for r in r_ids]
            lefts.append(self._closure(surface[i], maximum))  # the backoff: its own matrices
            rights.append(self._closure(surface[k], maximum))
            weights = np.append(keep * self.probs[rows] * self._tilt[rows], self._backoff)
            nodes.append(Candidates(weights, np.array(lefts), np.array(rights),
                                    np.array(left_of), np.array(right_of)))
            labels.append(np.append(rows, BACKOFF))
            ids.append((l_ids, r_ids))
        prefix = lats[0].matrix((self._boundary,))
        tree = MatrixTree(sent.heads, [lat.start for lat in lats], [lat.final for lat in lats],
                          prefix, nodes)
        return tree, labels, ids

    @staticmethod
    def _distinct(ids: np.ndarray) -> tuple[list[int], list[int]]:
        """The distinct puncteme ids in ``ids`` (in order of appearance), and each entry's index
        among them, with one more index (the closure's, after them) appended."""
        index: dict[int, int] = {}
        of = [index.setdefault(x, len(index)) for x in ids.tolist()]
        of.append(len(index))
        return list(index), of

    def log_prob(self, s: int) -> float:
        """log p(x | T) of sentence ``s`` (tilt included if the Inference has one)."""
        tree, _ = self.tree(s)
        return inside(tree).log_total

    def expectations(self, s: int) -> Expectations:
        """log Z, pair posteriors and expected channel-arc counts of sentence ``s``."""
        tree, labels, ids = self._tree(s, False)
        chart = inside(tree)
        grads = outside(tree, chart)
        surface = self.batch.surfaces[s]
        lats = [self.lattice(x) for x in surface]
        token_grads: list[dict[int, np.ndarray]] = [{} for _ in surface]
        lats[0].matrix_grad((self._boundary,), grads.prefix, token_grads[0])
        rows, post = [], []
        # ∂log Z/∂M_i(l) and ∂/∂closure_i summed over nodes first: both maps to token
        # gradients are linear, so each runs once per distinct (slot, puncteme) and slot.
        matrix_grads: dict[tuple[int, int], np.ndarray] = {}
        closure_grads: dict[int, np.ndarray] = {}
        for (i, k), cand, lab, (l_ids, r_ids), gw, gl, gr in zip(
                _node_spans(self.batch.sentences[s]), tree.nodes, labels, ids, grads.weights,
                grads.left, grads.right):
            p = cand.weights * gw
            rows.append(lab[:-1])
            post.append(p[:-1])
            for slot, pids, g in ((i, l_ids, gl), (k, r_ids, gr)):
                if not surface[slot]:  # no tokens: nothing to count
                    continue
                for a, pid in enumerate(pids):
                    key = (slot, pid)
                    matrix_grads[key] = matrix_grads[key] + g[a] if key in matrix_grads else g[a]
                closure_grads[slot] = closure_grads[slot] + g[-1] if slot in closure_grads \
                    else g[-1]
        for (slot, pid), g in matrix_grads.items():
            lats[slot].matrix_grad(self._puncteme_ids[pid], g, token_grads[slot])
        for slot, g in closure_grads.items():
            lats[slot].closure_grad(self._rate, self._boundary, g, token_grads[slot])
        counts = np.zeros(len(self.weights))
        for x, tg, gs, gf in zip(surface, token_grads, grads.start, grads.final):
            if x:
                counts += self.builder.edit_counts(x, self.weights, tg, gf, gs)
        return Expectations(chart.log_total, np.concatenate(rows), np.concatenate(post), counts)

    def _pairs_of(self, labels: list[np.ndarray], choice: Sequence[int]) -> list[tuple[Puncteme,
                                                                                     Puncteme] | None]:
        vocab = self.model.vocab
        out: list[tuple[Puncteme, Puncteme] | None] = []
        for lab, j in zip(labels, choice):
            row = lab[j]
            out.append(None if row == BACKOFF else vocab.pair_strings(self.batch.data.pairs[row]))
        return out

    def viterbi(self, s: int) -> tuple[list[tuple[Puncteme, Puncteme] | None], float]:
        """The best T′ jointly with the channel's edit paths: a (l, r) pair per node (None where
        the backoff wins), and its log score."""
        tree, labels = self.tree(s, maximum=True)
        choice, score = viterbi(tree)
        return self._pairs_of(labels, choice), score

    def sample(self, s: int, rng: np.random.Generator,
               size: int) -> list[list[tuple[Puncteme, Puncteme] | None]]:
        """Exact samples of T′ from p(T′ | T, x)."""
        tree, labels = self.tree(s)
        return [self._pairs_of(labels, c) for c in sample(tree, rng, size)]


def _node_spans(sent: SlotSentence) -> list[tuple[int, int]]:
    """Slot span of every node; the pseudo node of a sentence without words spans slot 0..0."""
    return spans(sent.heads) if sent.n else [(0, 0)]
