"""Scoring restored punctuation against gold (paper §6.1), sentence by sentence.

Sentences are aligned by their words (DESIGN §7): each predicted sentence must have the gold
sentence's words once punctuation is removed. A gold sentence that is all punctuation has no
words to restore around; the prediction may leave it out, and it is then scored against empty
slot 0. Slot strings come from :func:`~fstpunct.ud.slots.to_slots` (directional quotes) without
``<abbv>``. Per sentence, the edit distance is the sum over slots of the token-level Levenshtein
distance; per mark class and slot, the matches are the multiset intersection of the predicted and
gold tokens of that class (precision = matches / predicted, recall = matches / gold).
:func:`sign_flip_p` tests whether two systems' per-sentence edit distances differ.
"""
from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

import numpy as np

from ...ud.slots import ABBV, SlotSentence, to_slots
from ...ud.treebank import Sentence

__all__ = ["CLASSES", "MarkCounts", "RestorationScore", "levenshtein", "score", "sign_flip_p",
           "slot_strings"]

# Mark classes, each a set of one-character tokens; None = every punctuation token.
CLASSES: dict[str, frozenset[str] | None] = {
    "comma": frozenset(",،，、"),
    "period": frozenset(".。।۔．"),
    "quotes": frozenset("“”‘’«»„‚‹›「」『』\"'＂＇"),
    "brackets": frozenset("()[]{}（）【】《》［］｛｝〈〉〔〕"),
    "all": None,
}


def levenshtein(a: Sequence[str], b: Sequence[str]) -> int:
    """Edit distance between token sequences (insertions, deletions, substitutions cost 1)."""
    row = list(range(len(b) + 1))
    for i, x in enumerate(a, 1):
        prev, row[0] = row[0], i
        for j, y in enumerate(b, 1):
            prev, row[j] = row[j], min(row[j] + 1, row[j - 1] + 1, prev + (x != y))
    return row[-1]


@dataclass
class MarkCounts:
    """Matched, predicted and gold tokens of one mark class; scores in percent."""

    matched: int = 0
    predicted: int = 0
    gold: int = 0

    @property
    def precision(self) -> float:
        return 100.0 * self.matched / self.predicted if self.predicted else 0.0

    @property
    def recall(self) -> float:
        return 100.0 * self.matched / self.gold if self.gold else 0.0

    @property
    def f1(self) -> float:
        p, r = self.precision, self.recall
        return 2 * p * r / (p + r) if p + r else 0.0


@dataclass
class RestorationScore:
    """Corpus totals: sentences, slots, summed edit distance and per-class token counts, and
    each sentence's edit distance (for significance tests)."""

    slots: int = 0
    sentence_edits: list[int] = field(default_factory=list)
    marks: dict[str, MarkCounts] = field(default_factory=lambda: {k: MarkCounts()
                                                                  for k in CLASSES})

    @property
    def sentences(self) -> int:
        return len(self.sentence_edits)

    @property
    def edits(self) -> int:
        return sum(self.sentence_edits)

    @property
    def average_edit_distance(self) -> float:
        return self.edits / self.sentences if self.sentences else 0.0

    def add(self, gold: Sequence[Sequence[str]], pred: Sequence[Sequence[str]]) -> None:
        """Count one sentence, given its gold and predicted slot strings."""
        self.slots += len(gold)
        self.sentence_edits.append(0)
        for g, p in zip(gold, pred, strict=True):
            self.sentence_edits[-1] += levenshtein(p, g)
            for name, marks in CLASSES.items():
                gc = Counter(t for t in g if marks is None or t in marks)
                pc = Counter(t for t in p if marks is None or t in marks)
                c = self.marks[name]
                c.matched += sum((gc & pc).values())
                c.predicted += sum(pc.values())
                c.gold += sum(gc.values())

    def to_dict(self) -> dict[str, object]:
        return {"sentences": self.sentences, "slots": self.slots, "edit_distance": self.edits,
                "sentence_edits": self.sentence_edits,
                "average_edit_distance": self.average_edit_distance,
                "marks": {k: {"gold": c.gold, "predicted": c.predicted, "matched": c.matched,
                              "precision": c.precision, "recall": c.recall, "f1": c.f1}
                          for k, c in self.marks.items()}}


def slot_strings(ss: SlotSentence) -> list[tuple[str, ...]]:
    """The slot strings that are scored: ``<abbv>`` tokens left out."""
    return [tuple(t for t in slot if t != ABBV) for slot in ss.slots]


def _check_words(gold: Sentence, g: SlotSentence, pred: Sentence, p: SlotSentence) -> None:
    if p.words == g.words:
        return
    where = f"gold {gold.path}:{gold.lineno}" + (f" (sent_id {gold.sent_id})"
                                                 if gold.sent_id else "")
    if p.n != g.n:
        raise pred.error(f"{p.n} words without punctuation, but {where} has {g.n}")
    k = next(k for k, (a, b) in enumerate(zip(p.words, g.words)) if a != b)
    raise pred.error(f"word {k + 1} is {p.words[k]!r}, but in {where} it is {g.words[k]!r}")


def score(gold: Iterable[Sentence], pred: Iterable[Sentence]) -> RestorationScore:
    """Score predicted sentences against gold ones (see the module docstring); a word mismatch
    or a missing or extra sentence raises :class:`~fstpunct.errors.ConlluError`."""
    out = RestorationScore()
    preds = ((s, to_slots(s)) for s in pred)
    pending = next(preds, None)
    for g_sent in gold:
        g = to_slots(g_sent)
        if g.n == 0 and (pending is None or pending[1].n > 0):
            out.add(slot_strings(g), [()])
            continue
        if pending is None:
            raise g_sent.error("the prediction has no sentence for this gold sentence")
        _check_words(g_sent, g, *pending)
        out.add(slot_strings(g), slot_strings(pending[1]))
        pending = next(preds, None)
    if pending is not None:
        raise pending[0].error("the prediction has more sentences than the gold file")
    return out


def sign_flip_p(a: Sequence[float], b: Sequence[float], rounds: int = 20_000,
                seed: int = 1) -> float:
    """Two-sided p-value of a paired sign-flip (approximate randomisation) test that systems
    with per-sentence losses ``a`` and ``b`` are equally good: the share of ``rounds`` random
    sign flips of the per-sentence differences whose total is at least as far from 0 as the
    observed one (counting the observed one, so never 0)."""
    d = np.asarray(a, dtype=float) - np.asarray(b, dtype=float)
    d = d[d != 0]
    observed = abs(d.sum())
    rng = np.random.default_rng(seed)
    hits = 0
    for start in range(0, rounds, 1000):
        signs = rng.integers(0, 2, size=(min(1000, rounds - start), d.size)) * 2 - 1
        hits += int((np.abs(signs @ d) >= observed - 1e-9).sum())
    return (hits + 1) / (rounds + 1)
