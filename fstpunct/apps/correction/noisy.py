"""A Bayesian noisy-channel corrector (issue 19, goal (a); RESULTS, helper "noisy19").

The prior is a punctuation model of correct English, M (the shipped ``en`` model): log p_M(x | T)
of a whole punctuated sentence given its depunctuated tree. The learners' errors are a small
error model p_err(x | y) counted on training pairs (:class:`ErrorModel`): n(y→x) slots whose
corrected string is y and learner string x (the scorer's slot strings,
:func:`~fstpunct.apps.restoration.metrics.slot_strings`),

    p_err(x | y) = (n(y→x) + 0.5) / (n(y) + 0.5·K),   K = distinct learner strings + 1.

Slot i of a learner sentence x is decided given the learner's other slots
(:func:`slot_scores`, :func:`decisions`): among C_i = {x_i} ∪ {y : n(y→x_i) ≥ 1},

    score(y) = λ·[log p_M(x with slot i set to y | T) − log p_M(x | T)] + log p_err(x_i | y),

the best written, ties to x_i (then to the earlier candidate; λ = 0 drops the prior term, so
0·(−∞) never arises). Every slot is decided with the others at the learner's strings, and a
sentence's decisions are then applied together: an approximation of the joint argmax. Where the
learner's marks of the model's symmetric pairs (quotes, brackets) balance and the decisions'
do not, every changed slot holding such a mark keeps the learner's string
(:func:`balanced_or_kept`; the learner decoder's rule, :mod:`.correct`).
"""
from __future__ import annotations

import math
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace
from functools import cached_property

import numpy as np

from ...errors import InputError
from ...model.punct import PunctModel, log_probs
from ...ud.slots import ABBV, SlotSentence, absorbs
from ...ud.treebank import Sentence
from ..restoration import HIDDEN, Insertion
from ..restoration.exact import balanced_strings
from ..restoration.metrics import slot_strings
from ..restoration.strip import insert, insertions_of, strip

__all__ = ["ErrorModel", "SlotScores", "as_written", "balanced_or_kept", "best", "corrected",
           "decisions", "insertions", "slot_scores", "with_slot"]

Strings = tuple[str, ...]
ADD = 0.5  # the error model's additive smoothing


@dataclass(frozen=True)
class ErrorModel:
    """p_err(x | y) from counts n(y→x) of (corrected y, learner x) slot strings (module
    docstring)."""

    counts: dict[Strings, Counter[Strings]]  # y -> x -> n(y→x)
    k: int  # distinct learner strings + 1

    @classmethod
    def counted(cls, pairs: Iterable[tuple[SlotSentence, SlotSentence]]) -> ErrorModel:
        """Counted on (learner, corrected) slot sentences of the same words."""
        counts: dict[Strings, Counter[Strings]] = {}
        learner: set[Strings] = set()
        for x, y in pairs:
            xs, ys = slot_strings(x), slot_strings(y)
            if len(xs) != len(ys):
                raise ValueError(f"{x.place}: {len(xs)} slots, its correction {len(ys)}")
            for a, b in zip(xs, ys):
                counts.setdefault(b, Counter())[a] += 1
                learner.add(a)
        return cls(counts, len(learner) + 1)

    @cached_property
    def _totals(self) -> dict[Strings, int]:
        """y -> n(y), summed once."""
        return {y: sum(row.values()) for y, row in self.counts.items()}

    @cached_property
    def _corrections(self) -> dict[Strings, list[Strings]]:
        """x -> every y ≠ x with n(y→x) ≥ 1 (sorted), gathered once."""
        found: dict[Strings, list[Strings]] = {}
        for y, row in self.counts.items():
            for x, n in row.items():
                if n and y != x:
                    found.setdefault(x, []).append(y)
        return {x: sorted(ys) for x, ys in found.items()}

    def log_p(self, x: Strings, y: Strings) -> float:
        """log p_err(x | y)."""
        n = self.counts[y][x] if y in self.counts else 0
        return math.log((n + ADD) / (self._totals.get(y, 0) + ADD * self.k))

    def candidates(self, x: Strings) -> list[Strings]:
        """C = x first, then every y with n(y→x) ≥ 1 (sorted)."""
        return [x] + self._corrections.get(x, [])


def as_written(after_abbv: bool, y: Strings) -> Strings:
    """What the writer (:func:`~fstpunct.apps.restoration.strip.insert`) writes of the slot
    string ``y``: without the :data:`~fstpunct.apps.restoration.HIDDEN` tokens it leaves out,
    and the first of the rest absorbed if it is a full stop after a word that ends in an
    abbreviation's dot (``after_abbv``: the slot holds :data:`ABBV`;
    :func:`~fstpunct.ud.slots.absorbs`). ``after_abbv`` is the slot view's, by the word's form;
    the writer reads the token's surface: the two differ only at a multiword token whose
    surface and last word disagree about a final dot (en_esl has no multiword token)."""
    shown = tuple(t for t in y if t not in HIDDEN)
    return shown[1:] if absorbs(after_abbv, shown) else shown


def with_slot(ss: SlotSentence, i: int, y: Strings) -> SlotSentence:
    """``ss`` with slot ``i``'s scored string set to ``y`` as the writer writes it
    (:func:`as_written`; its :data:`ABBV` tokens kept in front, where
    :func:`~fstpunct.ud.slots.to_slots` puts them)."""
    return _placed(ss, i, as_written(ABBV in ss.slots[i], y))


def _placed(ss: SlotSentence, i: int, shown: Strings) -> SlotSentence:
    """``ss`` with slot ``i``'s scored string set to ``shown``, a string as written (not put
    through :func:`as_written` again: it is not idempotent), its :data:`ABBV` tokens in front."""
    abbv = tuple(t for t in ss.slots[i] if t == ABBV)
    return replace(ss, slots=ss.slots[:i] + (abbv + shown,) + ss.slots[i + 1:])


@dataclass
class SlotScores:
    """One learner sentence's slots: the learner's strings, each slot's candidates y (the
    learner's first) as the error model has them and as they are written (:func:`as_written`:
    after an abbreviation's dot, ``.`` and nothing write the same, so two candidates may), their
    prior gains log p_M(x with slot i set to y as written) − log p_M(x) and their
    log p_err(x_i | y)."""

    learner: list[Strings]
    candidates: list[list[Strings]]
    written: list[list[Strings]]
    gains: list[np.ndarray]
    errors: list[np.ndarray]


def slot_scores(model: PunctModel, errors: ErrorModel, sentences: Sequence[SlotSentence]
                ) -> list[SlotScores]:
    """Every sentence's :class:`SlotScores` (each distinct sentence scored once by the
    prior). A learner sentence of probability 0 under the prior is refused (InputError)."""
    variants: dict[tuple[int, tuple[Strings, ...]], int] = {}
    todo: list[SlotSentence] = []

    def index(j: int, ss: SlotSentence) -> int:
        key = (j, ss.slots)
        if key not in variants:
            variants[key] = len(todo)
            todo.append(ss)
        return variants[key]
    plan: list[tuple[list[Strings], list[list[Strings]], list[list[Strings]], int,
                     list[list[int]]]] = []
    for j, ss in enumerate(sentences):
        xs = slot_strings(ss)
        cands = [errors.candidates(x) for x in xs]
        written = [[as_written(ABBV in ss.slots[i], y) for y in c] for i, c in enumerate(cands)]
        plan.append((xs, cands, written, index(j, ss),
                     [[index(j, _placed(ss, i, w)) for w in ws] for i, ws in enumerate(written)]))
    logs = log_probs(model, todo)
    for ss, (_, _, _, base, _) in zip(sentences, plan):
        if not np.isfinite(logs[base]):
            raise InputError(f"{ss.place}: the learner's sentence has probability 0 under the "
                             f"prior: no gain of its slots is defined")
    return [SlotScores(xs, cands, written, [logs[v] - logs[base] for v in ids],
                       [np.array([errors.log_p(x, y) for y in c]) for x, c in zip(xs, cands)])
            for xs, cands, written, base, ids in plan]


def best(s: SlotScores, weight: float) -> list[int]:
    """Each slot's best candidate at λ = ``weight`` (module docstring; ties to the learner's
    string, then to the earlier candidate), by its index in the slot's candidates."""
    return [int(np.argmax(err + weight * gain if weight else err))
            for gain, err in zip(s.gains, s.errors)]


def decisions(s: SlotScores, weight: float) -> list[Strings]:
    """Each slot's :func:`best` candidate as it is written: the string the written sentence
    has there."""
    return [ws[k] for ws, k in zip(s.written, best(s, weight))]


def balanced_or_kept(learner: Sequence[Strings], chosen: Sequence[Strings],
                     pairs: Sequence[tuple[str, str]]) -> tuple[list[Strings], bool]:
    """``chosen``, or where the learner's marks of ``pairs`` balance and the chosen ones do
    not, ``chosen`` with every changed slot that holds a mark of ``pairs`` (on either side)
    given the learner's string back; and whether that happened."""
    if balanced_strings(chosen, pairs) or not balanced_strings(learner, pairs):
        return list(chosen), False
    paired = {m for p in pairs for m in p}
    return [x if y != x and paired & (set(x) | set(y)) else y
            for x, y in zip(learner, chosen)], True


def insertions(own: Sequence[Insertion], learner: Sequence[Strings],
               chosen: Sequence[Strings]) -> list[Insertion]:
    """The insertions writing ``chosen``: the learner's own (``own``, with their heads) where
    a slot keeps its string; a changed slot i's tokens attach to the word before it (word 1
    for slot 0), an arc that crosses none."""
    return [o if y == x else tuple((t, max(i, 1)) for t in y)
            for i, (o, x, y) in enumerate(zip(own, learner, chosen))]


def corrected(sources: Sequence[Sentence], scores: Sequence[SlotScores],
              weights: Sequence[float], pairs: Sequence[tuple[str, str]]
              ) -> tuple[dict[float, list[Sentence]], dict[float, int]]:
    """The corrector's sentences at each λ of ``weights``: each learner sentence's :func:`best`
    candidates, made :func:`balanced_or_kept` for ``pairs`` (the prior's symmetric marks),
    written into the sentence without its punctuation (stripped once for every λ) as they were
    scored: the candidates themselves go to the writer, which applies the absorption after an
    abbreviation's dot that :func:`as_written` applied for the score (once: it is not
    idempotent);
    and, per λ, how many sentences had paired marks given back. A λ given twice is refused
    (ValueError): its sentences and counts would be doubled."""
    if len(set(weights)) != len(weights):
        raise ValueError(f"corrected: a λ is given more than once in {list(weights)}")
    out: dict[float, list[Sentence]] = {w: [] for w in weights}
    kept = dict.fromkeys(weights, 0)
    for source, s in zip(sources, scores, strict=True):
        bare, own = strip(source), insertions_of(source)
        for w in weights:
            ys = [cs[k] for cs, k in zip(s.candidates, best(s, w))]
            chosen, fixed = balanced_or_kept(s.learner, ys, pairs)
            kept[w] += fixed
            out[w].append(insert(bare, insertions(own, s.learner, chosen)))
    return out, kept
