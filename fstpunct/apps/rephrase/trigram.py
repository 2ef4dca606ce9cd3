"""A word-trigram language model with interpolated Kneser–Ney smoothing (Figure 6's yardstick).

The estimates are exactly those of ``nltk.lm.KneserNeyInterpolated(3, discount)`` (checked
against it in the tests), computed from count tables instead of nltk's per-query scans over all
n-grams, which take hours on a treebank. Sentences are padded ``<s> <s> … </s> </s>`` as
``nltk.lm.preprocessing.padded_everygram_pipeline`` pads them. For trigram (u, v, w):

    p3 = max(c(uvw) − d, 0) / c(uv•) + d · N₁₊(uv•) / c(uv•) · p2      (p2 alone if uv unseen)
    p2 = max(N₁₊(•vw) − d, 0) / N₁₊(•v•) + d · N₁₊(v•) / N₁₊(•v•) · p1  (p1 alone if v unseen)
    p1 = N₁₊(•w) / N₁₊(••)

A fixed ``vocabulary`` (nltk: ``Vocabulary(…, unk_cutoff=c)``, the words seen at least c times)
maps every other token to ``<UNK>``, in training and in queries, so ``<UNK>`` is estimated from
the rare training words; without one, every training token is in the vocabulary and an unseen
token has probability 0 (as in nltk). The Figure 6 script gives every method the vocabulary of
the original train split (words seen twice or more), so their models differ only in the data.
"""
from __future__ import annotations

import math
from collections import Counter
from collections.abc import Collection, Iterable, Sequence

__all__ = ["BOS", "EOS", "UNKNOWN", "KneserNeyTrigram"]

BOS, EOS, UNKNOWN = "<s>", "</s>", "<UNK>"


class KneserNeyTrigram:
    """Interpolated Kneser–Ney trigram model trained on tokenised sentences."""

    def __init__(self, sentences: Iterable[Sequence[str]], discount: float = 0.1,
                 vocabulary: Collection[str] | None = None) -> None:
        self.discount = discount
        self._known = None if vocabulary is None else frozenset({*vocabulary, BOS, EOS})
        c3: Counter[tuple[str, str, str]] = Counter()
        c2: set[tuple[str, str]] = set()
        vocab: set[str] = set()
        for sent in sentences:
            padded = [BOS, BOS, *self._lookup(sent), EOS, EOS]
            vocab.update(padded)
            c3.update(zip(padded, padded[1:], padded[2:]))
            c2.update(zip(padded, padded[1:]))
        self.vocab = frozenset(vocab)
        self._c3 = c3
        self._ctx3_total: Counter[tuple[str, str]] = Counter()
        self._ctx3_types: Counter[tuple[str, str]] = Counter()
        self._cont2: Counter[tuple[str, str]] = Counter()
        self._cont2_total: Counter[str] = Counter()
        for (u, v, w), c in c3.items():
            self._ctx3_total[u, v] += c
            self._ctx3_types[u, v] += 1
            self._cont2[v, w] += 1
            self._cont2_total[v] += 1
        self._ctx2_types: Counter[str] = Counter(v for v, _ in c2)
        self._cont1: Counter[str] = Counter(w for _, w in c2)
        self._cont1_total = len(c2)

    def _lookup(self, tokens: Iterable[str]) -> list[str]:
        known = self._known
        return list(tokens) if known is None else [t if t in known else UNKNOWN for t in tokens]

    def prob(self, w: str, context: Sequence[str]) -> float:
        """p(w | the last two tokens of ``context``), unseen tokens read as ``<UNK>``."""
        u, v, w = (t if t in self.vocab else UNKNOWN for t in self._lookup((*context[-2:], w)))
        d = self.discount
        p = self._cont1[w] / self._cont1_total
        if self._ctx2_types[v]:
            total = self._cont2_total[v]
            p = (max(self._cont2[v, w] - d, 0.0) + d * self._ctx2_types[v] * p) / total
        total = self._ctx3_total[u, v]
        if total:
            p = (max(self._c3[u, v, w] - d, 0.0) + d * self._ctx3_types[u, v] * p) / total
        return p

    def left_contexts(self, w: str) -> int:
        """N₁₊(•w): how many distinct tokens precede ``w`` in training (its continuation
        count, which the lower orders of Kneser–Ney smoothing are estimated from)."""
        return self._cont1[w if w in self.vocab else UNKNOWN]

    def seen_after(self, v: str, w: str) -> bool:
        """Whether ``w`` follows ``v`` somewhere in the training text (unseen tokens read as
        ``<UNK>``)."""
        v, w = (t if t in self.vocab else UNKNOWN for t in self._lookup((v, w)))
        return (v, w) in self._cont2

    def log_probs(self, sentence: Sequence[str]) -> list[float]:
        """ln p of each token of ``sentence`` and of the end of sentence, in order."""
        padded = [BOS, BOS, *sentence, EOS]
        return [math.log(self.prob(padded[i], padded[i - 2:i])) for i in range(2, len(padded))]
