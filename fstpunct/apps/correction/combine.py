"""A CRF corrector and the correction model combined, per slot.

*The product* (:func:`combined`): every candidate y of a slot — the CRF corrector's strings and
the correction model's candidates — is scored by log p_crf(y) + w · log p_gen(y), both
probabilities floored at ``floor``, and the best string is written (w chosen on dev or by
cross-validation). A slot whose learner string the correction model cannot explain (below its
support, :func:`~.model.unexplained`) keeps it.

*Agreement* (for precision: an edit is made only where two correctors with different errors
both back it): :func:`agreed` makes an edit only where two decoded corrections write the same
string in the slot and it is not the learner's; :func:`joint` makes the edit y ≠ x_e of highest
p_crf(y) · p_gen(y) — the probability that the two models, each drawing independently, both
write y — only where that exceeds a threshold (chosen by cross-validation).
"""
from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np

from ..restoration import Insertion, marks
from ..restoration.crf import crf_heads
from ..restoration.exact import SlotDistribution
from .model import unexplained

__all__ = ["FLOOR", "agreed", "combined", "joint", "slot_candidates"]

FLOOR = 1e-4
Crf = Mapping[tuple[str, ...], float]  # one slot's CRF marginals over corrected strings


def slot_candidates(crf: Crf, gen: SlotDistribution, i: int, floor: float = FLOOR
                    ) -> tuple[list[tuple[str, ...]], list[tuple[int, ...]], np.ndarray]:
    """Slot ``i``'s candidates (the generative ones in their order, then the CRF's other
    strings, sorted), their heads (the generative candidate's; else the word left of the slot)
    and the matrix of (log p_crf, log p_gen) per candidate, floored at ``floor``."""
    strings = list(gen.strings) + sorted(set(crf) - set(gen.strings))
    heads = list(gen.heads) + [crf_heads(i, y) for y in strings[len(gen.strings):]]
    p_gen = dict(zip(gen.strings, (float(p) for p in gen.probs)))
    logs = np.log(np.maximum(np.array([[crf.get(y, 0.0), p_gen.get(y, 0.0)] for y in strings],
                                      dtype=float).reshape(len(strings), 2), floor))
    return strings, heads, logs


def combined(crf: Sequence[Crf], generative: Sequence[SlotDistribution], weight: float,
             floor: float = FLOOR, own: Sequence[Insertion] = (), support: float = 0.0
             ) -> list[Insertion]:
    """The product: per slot, the string of highest log p_crf(y) + ``weight`` · log p_gen(y)
    (ties: the greater string) with its heads (:func:`slot_candidates`); with the learner's
    punctuation ``own``, a slot whose learner string has p_gen below ``support`` keeps it."""
    out = []
    for i, (c, g) in enumerate(zip(crf, generative)):
        if own and unexplained(g, own[i], support):
            out.append(own[i])
            continue
        strings, heads, logs = slot_candidates(c, g, i, floor)
        score = logs[:, 0] + weight * logs[:, 1]
        best = max(range(len(strings)), key=lambda k: (score[k], strings[k]))
        out.append(tuple(zip(strings[best], heads[best])))
    return out


def agreed(first: Sequence[Insertion], second: Sequence[Insertion], own: Sequence[Insertion]
           ) -> list[Insertion]:
    """Per slot, ``first``'s insertion where ``second`` writes the same string and it is not
    the learner's (``own``); everywhere else the learner's own."""
    return [a if marks(a) == marks(b) != marks(o) else o
            for a, b, o in zip(first, second, own, strict=True)]


def joint(crf: Sequence[Crf], generative: Sequence[SlotDistribution], own: Sequence[Insertion],
          threshold: float, support: float = 0.0) -> list[Insertion]:
    """Per slot, the string y other than the learner's (``own``) of highest p_crf(y) ·
    p_gen(y) (ties: the greater string), with its heads (:func:`slot_candidates`), where that
    product exceeds ``threshold``; elsewhere, and where the learner's string is below the
    generative model's ``support``, the learner's own."""
    out = []
    for i, (c, g, o) in enumerate(zip(crf, generative, own, strict=True)):
        mine = marks(o)
        if unexplained(g, o, support):
            out.append(o)
            continue
        strings, heads, _ = slot_candidates(c, g, i)
        both = [c.get(y, 0.0) * g.prob(y) for y in strings]
        edits = [k for k, y in enumerate(strings) if y != mine]
        best = max(edits, key=lambda k: (both[k], strings[k]), default=None)
        out.append(o if best is None or both[best] <= threshold
                   else tuple(zip(strings[best], heads[best])))
    return out
