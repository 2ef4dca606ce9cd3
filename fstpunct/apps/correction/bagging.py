"""A bagged correction model: B correctors, each trained on a bootstrap resample of the training
pairs, and an edit made only where a majority of them makes it.

The hypothesis it was built to test: many of the correction model's wrong edits are unstable,
so that refitting on another sample of the same pairs moves them (a rare learner mark
rewritten on the strength of a few training pairs), while the well-supported ones (comma
splices) stay. The pre-registered test on the TLE pairs found most wrong edits stable instead
(RESULTS.md, "Session 2026-11-30 03:42–06:42: a bagged correction model"). Bagging (Breiman
1996) trains B correctors on resamples of the pairs drawn with replacement (:func:`resampled`,
one random stream per fold and bag) with the learner model unchanged, decodes each as the
single model is decoded, and votes (:func:`voted`): a slot takes the string that more than
half of the B correctors write there, else keeps the learner's. The slots where the learner or
a corrector writes a mark that pairs (quotes, brackets) vote together, as one tuple of
strings, so a pair is never half edited.
"""
from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from ...errors import check_stream_seed
from ...ud.treebank import Sentence
from ..restoration import Insertion, marks
from ..restoration.strip import insert
from .correct import Prepared, decided
from .model import Decoding

__all__ = ["PURPOSE", "Bagged", "resampled", "voted"]

PURPOSE = 0x62616773  # 'bags': the last word of every stream, so no other stream is a bag's


def resampled(n: int, seed: int, fold: int, bag: int) -> list[int]:
    """A bootstrap resample of ``n`` items: ``n`` indices drawn uniformly with replacement from
    the random stream (``seed``, ``fold``, ``bag``, a fixed purpose word), sorted; ``seed``
    from 0 to 2**32 - 1 (:func:`~fstpunct.errors.check_stream_seed`)."""
    if n < 1:
        raise ValueError("a bootstrap resample needs at least one item")
    check_stream_seed(seed, "the bag seed")
    rng = np.random.default_rng([seed, fold, bag, PURPOSE])
    return sorted(int(i) for i in rng.integers(0, n, size=n))


def _majority(written: Sequence[tuple]) -> tuple | None:
    """The value that more than half of ``written``'s entries have, or None."""
    best, count = Counter(written).most_common(1)[0]
    return best if 2 * count > len(written) else None


def voted(own: Sequence[Insertion], proposals: Sequence[Sequence[Insertion]],
          pairs: Sequence[tuple[str, str]]) -> list[Insertion]:
    """One sentence's punctuation by majority (module docstring): ``own`` the learner's
    insertions per slot, ``proposals`` each corrector's; the marks of ``pairs`` (open, close)
    make their slots vote together. A slot (or the paired slots together) takes the string
    that more than half of the proposals write, else the learner's, and the insertions (heads
    included) of the first proposal that writes it there (the learner's if none does)."""
    if not proposals:
        raise ValueError("a vote needs at least one proposal")
    paired = {m for pair in pairs for m in pair}
    group = [i for i, o in enumerate(own)
             if paired & {*marks(o), *(m for p in proposals for m in marks(p[i]))}]
    out = list(own)

    def take(slots: list[int]) -> None:
        key = [tuple(marks(p[i]) for i in slots) for p in proposals]
        won = _majority(key) or tuple(marks(own[i]) for i in slots)
        if won in key:
            first = proposals[key.index(won)]
            for i in slots:
                out[i] = first[i]
    if group:
        take(group)
    for i in range(len(own)):
        if i not in group:
            take([i])
    return out


@dataclass
class Bagged:
    """The same learner sentences :class:`Prepared` for each of B bagged correctors (``bags``,
    in bag order); corrected like one :class:`Prepared`, by vote."""

    bags: list[Prepared]

    def corrected_with(self, decoding: Decoding) -> list[Sentence]:
        """The sentences corrected under ``decoding`` by every bag (:func:`decided`), then
        :func:`voted` (the paired marks: the first bag's corrector's)."""
        first = self.bags[0]
        pairs = first.model.corrector.attach.symmetric
        each = [[decided(p.model, d, o, decoding) for d, o in zip(p.dists, p.own)]
                for p in self.bags]
        return [insert(t, voted(o, [proposals[j] for proposals in each], pairs))
                for j, (t, o) in enumerate(zip(first.stripped, first.own))]
