"""A Platt map of the corrector's doubt: how likely the learner's own string of a slot is right.

Cross-validation shows the corrector overconfident where it doubts the learner: of the marked
slots whose learner string it gives p < 0.5 (mean 0.21), the annotators kept 55 %; and its
edits of rare marks (quotes, brackets, ``?``, ``;``) are right about 1 time in 10 against
nearly 6 in 10 for commas and periods (RESULTS.md, issue 19). The map re-estimates the
probability of the learner's string ``own`` of every slot from the corrector's, in logit space
and per class of ``own`` (:data:`CLASSES`: no mark, commas and periods only, any other mark):

    logit p′(own) = logit p(own) + w · x,   x = (1, [cp], [other], z[none], z[cp], z[other])

with z = logit p(own) and [c] the class's indicator, so that w = 0 is the identity (the map
acts only where FLOOR ≤ p(own) ≤ 1 − FLOOR; :func:`features` floors p to that range); w is
fitted by the gate's penalised logistic regression (:func:`~fstpunct.apps.correction.gate.fit`,
L2 towards the identity on all but the bias) on held-out slots labelled by whether the
annotators kept ``own`` (:func:`examples`). The slot's other strings share 1 − p′(own) in their
old proportions (:func:`mapped`); the decoders then run as before (:mod:`.correct`). Slots
the map cannot change are left out of the fit and alone: ``own`` below the decoding's support
(kept anyway), or with p(own) outside [FLOOR, 1 − FLOOR] (no alternative, or no logit, worth
the name).
"""
from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from ..restoration import Insertion, marks
from ..restoration.exact import SlotDistribution
from .gate import fit

__all__ = ["CLASSES", "FLOOR", "PLAIN", "PLATT_SIZE", "examples", "features", "fitted", "mapped",
           "mark_class"]

CLASSES = ("none", "comma or period", "other")
PLATT_SIZE = 2 * len(CLASSES)  # the length of x (:func:`features`) and of w
PLAIN = frozenset({",", "."})
FLOOR = 1e-4  # the map changes p(own) only within [FLOOR, 1 - FLOOR] (features floor p to it)


def mark_class(own: tuple[str, ...]) -> int:
    """The class (index into :data:`CLASSES`) of a learner's slot string."""
    return 0 if not own else 1 if PLAIN.issuperset(own) else 2


def _logit(p: float) -> float:
    p = min(max(p, FLOOR), 1.0 - FLOOR)
    return float(np.log(p / (1.0 - p)))


def features(p: float, own: tuple[str, ...]) -> np.ndarray:
    """x of the module docstring for the learner's string ``own`` of probability ``p``."""
    c, z = mark_class(own), _logit(p)
    onehot = np.eye(len(CLASSES))[c]
    return np.concatenate([[1.0], onehot[1:], z * onehot])


def _changeable(p: float, support: float) -> bool:
    return p >= support and FLOOR <= p <= 1.0 - FLOOR


def mapped(slot: SlotDistribution, own: Insertion, w: Sequence[float], support: float = 0.0
           ) -> SlotDistribution:
    """The slot's distribution with the learner's string's probability Platt-mapped by ``w``
    and the other strings scaled to share the rest (unchanged where the map cannot act:
    module docstring)."""
    y = marks(own)
    p = slot.prob(y)
    if not w or not _changeable(p, support):
        return slot
    z = _logit(p) + float(np.dot(w, features(p, y)))
    q = 1.0 / (1.0 + np.exp(-z))
    probs = slot.probs * ((1.0 - q) / (1.0 - p))
    probs[slot.strings.index(y)] = q
    return SlotDistribution(slot.strings, slot.heads, probs)


def examples(slots: Sequence[SlotDistribution], own: Sequence[Insertion],
             gold: Sequence[tuple[str, ...]], support: float = 0.0
             ) -> tuple[list[np.ndarray], list[float], list[float]]:
    """One sentence's slots that the map can change: their features, offsets (logit p(own))
    and labels (1: the annotators kept the learner's string, the slot's ``gold``)."""
    x, offset, y = [], [], []
    for slot, o, g in zip(slots, own, gold, strict=True):
        mine = marks(o)
        p = slot.prob(mine)
        if _changeable(p, support):
            x.append(features(p, mine))
            offset.append(_logit(p))
            y.append(float(tuple(g) == mine))
    return x, offset, y


def fitted(x: Sequence[np.ndarray], offset: Sequence[float], y: Sequence[float]
           ) -> tuple[float, ...]:
    """The map's w fitted on :func:`examples` (pooled over sentences)."""
    return tuple(float(v) for v in fit(np.array(x), np.array(y), offset=np.array(offset)))
