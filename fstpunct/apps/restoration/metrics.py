"""Scoring restored punctuation against gold (paper §6.1), sentence by sentence.

Sentences are aligned by their words (DESIGN §7): each predicted sentence must have the gold
sentence's words once punctuation is removed. A gold sentence that is all punctuation has no
words to restore around; the prediction may leave it out, and it is then scored against empty
slot 0. Slot strings come from :func:`~fstpunct.ud.slots.to_slots` (directional quotes) without
``<abbv>``. Per sentence, the edit distance is the sum over slots of the token-level Levenshtein
distance; per mark class and slot, the matches are the multiset intersection of the predicted and
gold tokens of that class (precision = matches / predicted, recall = matches / gold). Marks are
compared exactly: ``，`` against ``,`` is an error (a restorer that writes the wrong width is
wrong); of the edits, those that differ in width only are counted too (the edit distance less
that of the slot strings with every token half-width, :func:`~fstpunct.ud.width.half`: ``，`` as
``,``, ``。`` as ``.``).
:func:`sign_flip_p` tests whether two systems' per-sentence edit distances differ.

Correction (paper §6.2) is also scored by the F0.5 of punctuation *edits*, as the CoNLL-2014
M2 scorer defines it, with one edit per slot: against the uncorrected source, slot i has a gold
edit when the gold string differs from the source's, and a system edit when the prediction's
does; a system edit is correct when the gold has an edit at that slot to the same string
(:func:`edit_score`; :func:`has_edit`: whether one pair has a gold edit). P = correct / system
edits (1 when there are none), R = correct / gold edits (1 when there are none), F_β = (1 + β²)
P R / (β² P + R). :func:`f_randomisation_p` tests two systems' F0.5 by approximate
randomisation over sentences.
"""
from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field

import numpy as np

from ...ud.slots import ABBV, SlotSentence, to_slots
from ...ud.treebank import Sentence
from ...ud.width import half

__all__ = ["CLASSES", "EditScore", "MarkCounts", "RestorationScore", "edit_score",
           "f_randomisation_p", "has_edit", "levenshtein", "score", "scores", "sign_flip_p",
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
    width_only: int = 0  # of the edits, those that differ in width only (module docstring)

    @property
    def sentences(self) -> int:
        return len(self.sentence_edits)

    @property
    def edits(self) -> int:
        return sum(self.sentence_edits)

    @property
    def average_edit_distance(self) -> float:
        return self._per_sentence(self.edits)

    @property
    def width_blind_edits(self) -> int:
        """The edit distance with either width read as one (module docstring)."""
        return self.edits - self.width_only

    @property
    def average_width_blind_edit_distance(self) -> float:
        return self._per_sentence(self.width_blind_edits)

    def _per_sentence(self, edits: int) -> float:
        return edits / self.sentences if self.sentences else 0.0

    def add(self, gold: Sequence[Sequence[str]], pred: Sequence[Sequence[str]]) -> None:
        """Count one sentence, given its gold and predicted slot strings."""
        self.slots += len(gold)
        self.sentence_edits.append(0)
        for g, p in zip(gold, pred, strict=True):
            edits = levenshtein(p, g)
            self.sentence_edits[-1] += edits
            if edits:  # those that differ in width only (module docstring)
                hp, hg = tuple(map(half, p)), tuple(map(half, g))
                if hp != tuple(p) or hg != tuple(g):
                    self.width_only += edits - levenshtein(hp, hg)
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
                "width_only_edits": self.width_only,
                "width_blind_edit_distance": self.width_blind_edits,
                "average_width_blind_edit_distance": self.average_width_blind_edit_distance,
                "marks": {k: {"gold": c.gold, "predicted": c.predicted, "matched": c.matched,
                              "precision": c.precision, "recall": c.recall, "f1": c.f1}
                          for k, c in self.marks.items()}}


def slot_strings(ss: SlotSentence) -> list[tuple[str, ...]]:
    """The slot strings that are scored: ``<abbv>`` tokens left out."""
    return [tuple(t for t in slot if t != ABBV) for slot in ss.slots]


def _check_words(gold: Sentence, g: SlotSentence, pred: Sentence, p: SlotSentence) -> None:
    if p.words == g.words:
        return
    where = f"gold {gold.path}:{gold.lineno}" + (f" (sent_id {gold.sent_id})" if gold.sent_id
                                                 else f" (sentence {gold.name})")
    if p.n != g.n:
        raise pred.error(f"{p.n} words without punctuation, but {where} has {g.n}")
    k = next(k for k, (a, b) in enumerate(zip(p.words, g.words)) if a != b)
    raise pred.error(f"word {k + 1} is {p.words[k]!r}, but in {where} it is {g.words[k]!r}")


def score(gold: Iterable[Sentence], pred: Iterable[Sentence]) -> RestorationScore:
    """Score predicted sentences against gold ones (see the module docstring); a word mismatch
    or a missing or extra sentence raises :class:`~fstpunct.errors.ConlluError`."""
    return scores(gold, pred)[0]


def scores(gold: Iterable[Sentence], pred: Iterable[Sentence],
           source: Iterable[Sentence] | None = None) -> tuple[RestorationScore, EditScore]:
    """:func:`score` and, with ``source``, :func:`edit_score` (else an empty
    :class:`EditScore`), in one pass over the files, so that any of them may be a stream
    (stdin)."""
    restoration, edits = RestorationScore(), EditScore()
    others = {"the prediction": pred} | ({"the source": source} if source is not None else {})
    for g, p, *s in _aligned(gold, others):
        restoration.add(g, p)
        if s:
            edits.add(s[0], g, p)
    return restoration, edits


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


@dataclass
class EditScore:
    """Per sentence, the correct, system and gold punctuation edits (module docstring)."""

    correct: list[int] = field(default_factory=list)
    proposed: list[int] = field(default_factory=list)
    gold: list[int] = field(default_factory=list)

    def add(self, source: Sequence[Sequence[str]], gold: Sequence[Sequence[str]],
            pred: Sequence[Sequence[str]]) -> None:
        """Count one sentence from its slot strings."""
        ok = proposed = wanted = 0
        for s, g, p in zip(source, gold, pred, strict=True):
            s, g, p = tuple(s), tuple(g), tuple(p)
            proposed += p != s
            wanted += g != s
            ok += p != s and p == g
        self.correct.append(ok)
        self.proposed.append(proposed)
        self.gold.append(wanted)

    @staticmethod
    def prf(correct: float, proposed: float, gold: float, beta: float = 0.5
            ) -> tuple[float, float, float]:
        """(P, R, F_β) in percent from totals, with the M2 scorer's conventions."""
        p = correct / proposed if proposed else 1.0
        r = correct / gold if gold else 1.0
        f = (1 + beta ** 2) * p * r / (beta ** 2 * p + r) if p + r else 0.0
        return 100.0 * p, 100.0 * r, 100.0 * f

    def scores(self, beta: float = 0.5) -> tuple[float, float, float]:
        """Corpus (P, R, F_β) in percent."""
        return self.prf(sum(self.correct), sum(self.proposed), sum(self.gold), beta)

    def to_dict(self) -> dict[str, object]:
        p, r, f = self.scores()
        return {"correct": sum(self.correct), "proposed": sum(self.proposed),
                "gold": sum(self.gold), "precision": p, "recall": r, "f0.5": f}


def _aligned(gold: Iterable[Sentence], others: dict[str, Iterable[Sentence]]
             ) -> Iterator[tuple[list[tuple[str, ...]], ...]]:
    """Per gold sentence, the scored slot strings (:func:`slot_strings`) of gold and of each
    other file (named in messages: ``the prediction``), with their words checked against
    gold's. A gold sentence that is all punctuation may be left out of another file: that
    file's slot strings are then ``[()]`` (an empty slot 0)."""
    iters = {name: ((s, to_slots(s)) for s in o) for name, o in others.items()}
    pending = {name: next(it, None) for name, it in iters.items()}
    for g_sent in gold:
        g = to_slots(g_sent)
        row = [slot_strings(g)]
        for name, it in iters.items():
            o = pending[name]
            if g.n == 0 and (o is None or o[1].n > 0):
                row.append([()])
                continue
            if o is None:
                raise g_sent.error(f"{name} has no sentence for this gold sentence")
            _check_words(g_sent, g, *o)
            row.append(slot_strings(o[1]))
            pending[name] = next(it, None)
        yield tuple(row)
    for name, o in pending.items():
        if o is not None:
            raise o[0].error(f"{name} has more sentences than the gold file")


def edit_score(source: Iterable[Sentence], gold: Iterable[Sentence],
               pred: Iterable[Sentence]) -> EditScore:
    """The punctuation edits of ``pred`` against ``gold``, both relative to ``source`` (the
    uncorrected input); all three must have the same words once punctuation is removed."""
    return scores(gold, pred, source)[1]


def has_edit(source: Sentence, gold: Sentence) -> bool:
    """Whether ``gold`` (``source`` corrected) makes at least one punctuation edit, as
    :func:`edit_score` counts gold edits: whether any slot's scored string differs between
    the two, aligned as :func:`scores` aligns them (:func:`_aligned`: the words checked, an
    all-punctuation sentence, ``<abbv>`` left out, quotes directional)."""
    (g, s), = _aligned([gold], {"the source": [source]})
    return g != s


def f_randomisation_p(a: EditScore, b: EditScore, beta: float = 0.5, rounds: int = 20_000,
                      seed: int = 1, one_sided: bool = False) -> float:
    """Two-sided p-value of approximate randomisation: the share of ``rounds`` random swaps of
    the two systems' counts, sentence by sentence, whose F_β difference is at least the
    observed one (the observed one counted, so never 0). Both must score the same sentences.
    ``one_sided``: against the alternative that b is better, the share whose F_β(b) − F_β(a)
    is at least the observed one."""
    if len(a.gold) != len(b.gold):
        raise ValueError("the two systems score different numbers of sentences")
    ca, pa = np.asarray(a.correct, float), np.asarray(a.proposed, float)
    cb, pb = np.asarray(b.correct, float), np.asarray(b.proposed, float)
    gold = float(sum(a.gold))

    def f(correct: np.ndarray, proposed: np.ndarray) -> np.ndarray:
        p = np.where(proposed > 0, correct / np.where(proposed > 0, proposed, 1), 1.0)
        r = correct / gold if gold else np.ones_like(correct)
        den = beta ** 2 * p + r
        return np.where(den > 0, (1 + beta ** 2) * p * r / np.where(den > 0, den, 1), 0.0)

    def stat(diff: np.ndarray) -> np.ndarray:
        """One-sided: the difference b − a; two-sided: |a − b|."""
        return -diff if one_sided else np.abs(diff)

    observed = stat(f(ca.sum(), pa.sum()) - f(cb.sum(), pb.sum()))
    rng = np.random.default_rng(seed)
    hits = 0
    for start in range(0, rounds, 1000):
        swap = rng.integers(0, 2, size=(min(1000, rounds - start), len(ca))).astype(bool)
        c1 = np.where(swap, cb, ca).sum(axis=1)
        p1 = np.where(swap, pb, pa).sum(axis=1)
        c2 = np.where(swap, ca, cb).sum(axis=1)
        p2 = np.where(swap, pa, pb).sum(axis=1)
        hits += int((stat(f(c1, p1) - f(c2, p2)) >= observed - 1e-12).sum())
    return (hits + 1) / (rounds + 1)
