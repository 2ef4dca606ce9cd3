"""Re-ranking a CRF corrector's n-best corrections by a generative model (the issue's second
combination).

python-crfsuite decodes only the best label sequence, so :class:`Chain` reads a trained CRF's
weights (the model's dump: a weight per attribute and label, a weight per label bigram; crfsuite's
linear chain has no start or end weights; the dump prints 6 decimals) and :func:`kbest` finds the
k best label sequences of a sentence exactly (list Viterbi), with log p_crf = score − log Z
(:func:`log_partition`). Label sequences that write the same corrected punctuation (the keep
tag and the learner's own string) are one correction, their probabilities summed
(:class:`Nbest`). Each correction y among the first k sequences is scored

    log p_crf(y) + w · log p_gen(y)

where p_gen is the correction model's p(y | T, T_e′) (the corrector's inside pass over the
corrected sentence, its nodes carrying the learner's contexts, :func:`correction_log_probs`) or
a punctuation model's p(y | T) of correct English (:func:`english_log_probs`); the best is
written (:meth:`Nbest.choose`). k and w are chosen on held-out data (scripts/correction.py).
"""
from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace

import numpy as np
from scipy.special import logsumexp

from ...errors import InputError
from ...model.punct import PunctModel, log_probs
from ...ud.slots import SlotSentence, to_slots
from ...ud.treebank import Sentence
from ..restoration import Insertion, marks
from ..restoration.crf import slot_tags
from ..restoration.pipeline import has_words
from ..restoration.strip import insert
from .crf import CrfCorrector, features, tag_insertions
from .model import CorrectionModel

__all__ = ["Chain", "Nbest", "correction_log_probs", "english_log_probs", "kbest",
           "log_partition", "nbest"]

def kbest(state: np.ndarray, trans: np.ndarray, k: int) -> list[tuple[float, tuple[int, ...]]]:
    """The ``k`` best label sequences of a linear chain (score Σ_i state[i, y_i] +
    Σ_i trans[y_{i−1}, y_i]), best first, with their scores: list Viterbi, keeping the k best
    prefixes ending in each label (ties: the lower flat index, i.e. deterministic)."""
    n, labels = state.shape
    if n == 0 or k < 1:
        return []
    scores = np.full((labels, k), -np.inf)
    scores[:, 0] = state[0]
    back: list[np.ndarray] = []
    for i in range(1, n):
        cand = (scores[:, :, None] + trans[:, None, :]).reshape(labels * k, labels)
        order = np.argsort(-cand, axis=0, kind="stable")[:k]  # [k, labels]: flat (prev, rank)
        scores = np.take_along_axis(cand, order, axis=0).T + state[i][:, None]
        back.append(order.T)
    flat = scores.reshape(-1)
    out = []
    for j in np.argsort(-flat, kind="stable")[:k]:
        if not np.isfinite(flat[j]):
            break
        label, rank = divmod(int(j), k)
        path = [label]
        for b in reversed(back):
            label, rank = divmod(int(b[label, rank]), k)
            path.append(label)
        out.append((float(flat[j]), tuple(reversed(path))))
    return out


def log_partition(state: np.ndarray, trans: np.ndarray) -> float:
    """log Σ_y exp(score(y)) of the chain of :func:`kbest` (forward algorithm)."""
    alpha = state[0].copy()
    for i in range(1, len(state)):
        m = alpha.max()
        alpha = m + np.log(np.exp(alpha - m) @ np.exp(trans)) + state[i]
    m = alpha.max()
    return float(m + np.log(np.exp(alpha - m).sum()))


class Chain:
    """A CRF corrector's weights as arrays: its labels, the label-bigram matrix and each
    attribute's weight vector over labels."""

    def __init__(self, crf: CrfCorrector) -> None:
        dump = crf.tagger.crfsuite.info()
        self.crf = crf
        self.labels = sorted(dump.labels, key=lambda t: int(dump.labels[t]))
        index = {t: j for j, t in enumerate(self.labels)}
        self.trans = np.zeros((len(self.labels), len(self.labels)))
        for (a, b), w in dump.transitions.items():
            self.trans[index[a], index[b]] = w
        self.attributes: dict[str, np.ndarray] = {}
        for (attr, label), w in dump.state_features.items():
            self.attributes.setdefault(attr, np.zeros(len(self.labels)))[index[label]] = w

    def state(self, items: Sequence[Sequence[str]]) -> np.ndarray:
        """Per item (slot) and label, the summed weights of its attributes (each counted once
        per occurrence, as crfsuite does; unknown attributes weigh nothing)."""
        zero = np.zeros(len(self.labels))
        return np.array([sum((self.attributes.get(a, zero) for a in item), zero)
                         for item in items]).reshape(len(items), len(self.labels))


@dataclass
class Nbest:
    """One sentence's k best label sequences as corrections: each sequence's log p_crf
    (best first) and the index of the correction it writes, among the distinct ``corrections``
    in order of first appearance."""

    log_probs: np.ndarray
    which: list[int]
    corrections: list[list[Insertion]]

    def merged(self, k: int) -> tuple[list[int], np.ndarray]:
        """The corrections written by the first ``k`` sequences and their log p_crf (the
        probabilities of the sequences writing each summed)."""
        ids = list(dict.fromkeys(self.which[:k]))
        logs = [np.logaddexp.reduce([lp for lp, c in zip(self.log_probs[:k], self.which[:k])
                                     if c == j]) for j in ids]
        return ids, np.array(logs)

    def best(self, gen: Sequence[float], weight: float, k: int) -> int:
        """Among the first ``k`` sequences' corrections, the index of the one of highest
        log p_crf + ``weight`` · log p_gen (``gen``: per correction; ties to the earlier; a
        correction of zero generative probability only where every one has it)."""
        ids, logs = self.merged(k)
        g = np.array([gen[j] for j in ids], dtype=float)
        if weight and np.isfinite(g).any():
            logs = np.where(np.isfinite(g), logs + weight * g, -np.inf)
        return ids[int(np.argmax(logs))]

    def choose(self, gen: Sequence[float], weight: float, k: int) -> list[Insertion]:
        """The correction of :meth:`best`."""
        return self.corrections[self.best(gen, weight, k)]


def nbest(chain: Chain, ss: SlotSentence, k: int, extra: Sequence[Sequence[str]] = ()
          ) -> Nbest:
    """The ``k`` best label sequences of ``ss`` under the chain's CRF corrector, as
    :class:`Nbest` (``extra``: the corrector's extra features per slot)."""
    state = chain.state(features(ss, chain.crf.tree, extra))
    log_z = log_partition(state, chain.trans)
    own = slot_tags(ss)
    index: dict[tuple, int] = {}
    corrections: list[list[Insertion]] = []
    logs, which = [], []
    for score, path in kbest(state, chain.trans, k):
        ins = tag_insertions(own, [chain.labels[y] for y in path])
        key = tuple(marks(slot) for slot in ins)
        if key not in index:
            index[key] = len(corrections)
            corrections.append(ins)
        logs.append(score - log_z)
        which.append(index[key])
    return Nbest(np.array(logs), which, corrections)


def _candidates(stripped: Sequence[Sentence], lists: Sequence[Nbest]) -> list[SlotSentence]:
    return [to_slots(insert(t, c)) for t, nb in zip(stripped, lists) for c in nb.corrections]


def _split(values: np.ndarray, lists: Sequence[Nbest]) -> list[list[float]]:
    bounds = np.cumsum([0] + [len(nb.corrections) for nb in lists])
    return [values[a:b].tolist() for a, b in zip(bounds[:-1], bounds[1:])]


def correction_log_probs(model: CorrectionModel, sources: Sequence[Sentence],
                         stripped: Sequence[Sentence], lists: Sequence[Nbest]
                         ) -> list[list[float]]:
    """Per sentence and correction of its :class:`Nbest`, log p(y | T, T_e′) under the
    corrector: the corrected sentence (``stripped`` with the correction inserted) with the
    contexts of the learner's sentence ``sources[k]`` (its T_e′ under the model's learner
    model and the learner's surface strings, :func:`~.model.with_learner`); for a model
    trained on D drawn readings, log (1/D) Σ_d p(y | T, T_e′(d)) over the D readings that
    decoding mixes (:meth:`~.model.CorrectionModel.readings_of`: sentence k from stream
    (S, k), as decoding reads the same list). Every source must have words (InputError)."""
    bare = next((s for s in sources if not has_words(s)), None)
    if bare is not None:  # decoding's lists refuse it too (strip): the same positions
        raise InputError(f"{bare.place}: the sentence is all punctuation: no correction to score")
    readings = model.readings_of([to_slots(s) for s in sources])
    cands = _candidates(stripped, lists)
    logs = []
    for learner in readings:
        contexts = [ss.contexts for ss, nb in zip(learner, lists) for _ in nb.corrections]
        logs.append(log_probs(model.corrector, [replace(c, contexts=x)
                                                 for c, x in zip(cands, contexts)]))
    mixed = logs[0] if len(logs) == 1 else logsumexp(logs, axis=0) - np.log(len(logs))
    return _split(mixed, lists)


def english_log_probs(model: PunctModel, stripped: Sequence[Sentence], lists: Sequence[Nbest]
                      ) -> list[list[float]]:
    """Per sentence and correction of its :class:`Nbest`, log p(y | T) under a punctuation
    model of correct English."""
    return _split(log_probs(model, _candidates(stripped, lists)), lists)
