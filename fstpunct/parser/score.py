"""Attachment scores as the CoNLL 2018 evaluation script computes them on gold tokenisation.

UAS = share of words with the gold head; LAS = gold head and gold universal relation (subtypes
after ``:`` ignored). Punctuation (gold UPOS ``PUNCT`` or relation ``punct``) can be scored
apart: :class:`Scores` keeps words, punctuation and all tokens, plus word UAS by sentence length
× punctuation-ratio band (Ma, Zhang & Zhu 2014, Table 2).
"""
from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field

from ..errors import InputError
from ..ud.treebank import Sentence, universal

__all__ = ["Counts", "Scores", "score", "band", "LENGTH_BANDS", "RATIO_BANDS"]

LENGTH_BANDS = ((1, 20), (21, 40), (41, 60), (61, 10**9))
RATIO_BANDS = ((0.0, 0.15), (0.15, 0.30), (0.30, 1.01))


@dataclass
class Counts:
    """Tokens scored, with the right head, and with the right head and relation."""

    total: int = 0
    heads: int = 0
    labelled: int = 0

    @property
    def uas(self) -> float:
        """Unlabelled attachment score: % of the tokens with the right head (0 if none)."""
        return 100.0 * self.heads / self.total if self.total else 0.0

    @property
    def las(self) -> float:
        """Labelled attachment score: % with the right head and universal relation."""
        return 100.0 * self.labelled / self.total if self.total else 0.0

    def add(self, head_ok: bool, label_ok: bool) -> None:
        """Count one token: whether its head is right, and its relation."""
        self.total += 1
        self.heads += head_ok
        self.labelled += head_ok and label_ok


@dataclass
class Scores:
    """Counts of words (punctuation excluded), punctuation and all tokens, the number of
    sentences, and word counts by :func:`band` (sentence length band, punctuation-ratio
    band)."""

    words: Counts = field(default_factory=Counts)
    punct: Counts = field(default_factory=Counts)
    tokens: Counts = field(default_factory=Counts)
    sentences: int = 0
    bands: dict[tuple[int, int], Counts] = field(default_factory=dict)


def band(length: int, ratio: float) -> tuple[int, int]:
    """(length band, ratio band) indices; length counts tokens, punctuation included."""
    lb = next(k for k, (lo, hi) in enumerate(LENGTH_BANDS) if lo <= length <= hi)
    rb = next(k for k, (lo, hi) in enumerate(RATIO_BANDS) if lo <= ratio < hi)
    return lb, rb


def score(gold: Iterable[Sentence], system: Iterable[Sentence]) -> Scores:
    """Compare two parses of the same tokens, sentence by sentence."""
    out = Scores()
    sys_iter = iter(system)
    for g in gold:
        s = next(sys_iter, None)
        if s is None:
            raise InputError(f"system output ends before gold sentence {g.name}")
        if [w.form for w in g.words] != [w.form for w in s.words]:
            raise g.error("system sentence has other words than the gold one")
        n_punct = sum(w.is_punct for w in g.words)
        cell = out.bands.setdefault(band(len(g.words), n_punct / len(g.words)), Counts())
        for gw, sw in zip(g.words, s.words):
            ok, lab = gw.head == sw.head, universal(gw.deprel) == universal(sw.deprel)
            out.tokens.add(ok, lab)
            (out.punct if gw.is_punct else out.words).add(ok, lab)
            if not gw.is_punct:
                cell.add(ok, lab)
        out.sentences += 1
    if next(sys_iter, None) is not None:
        raise InputError("system output has more sentences than the gold file")
    return out
