"""The CRF corrector and the correction model combined, per slot.

Every candidate y of a slot — the CRF corrector's strings and the correction model's
candidates — is scored by the two slot distributions, both floored at ``floor``, and whether it
is the learner's own string x_e:

    log q(y) = a · log p_crf(y) + b · log p_gen(y) + c · [y = x_e] − log Z.

*The product* (:func:`combined`) takes, per slot, the string of highest a · log p_crf + w ·
log p_gen (a = 1, c = 0, w chosen on dev). *The calibrated combination* (:class:`Combination`)
fits (a, b, c) by maximum likelihood of the corrected strings of held-out pairs (a conditional
logit over each slot's candidates, :func:`fit`; the held-out distributions come from
cross-validation over train pairs) and decodes q like the correction model
(:func:`~.correct.decided`: minimum expected token edit distance, marks balanced), so that it
edits where q says the edit is right more often than not — the condition under which an edit
lowers AED. Both keep a slot whose learner string the correction model cannot explain (below
its support, :func:`~.model.unexplained`).
"""
from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from ...errors import InputError
from ..restoration import Insertion
from ..restoration.exact import SlotDistribution
from .model import unexplained

__all__ = ["FLOOR", "Combination", "combined", "fit", "slot_candidates"]

FLOOR = 1e-4
Crf = Mapping[tuple[str, ...], float]  # one slot's CRF marginals over corrected strings


def slot_candidates(crf: Crf, gen: SlotDistribution, i: int, floor: float = FLOOR
                    ) -> tuple[list[tuple[str, ...]], list[tuple[int, ...]], np.ndarray]:
    """Slot ``i``'s candidates (the generative ones in their order, then the CRF's other
    strings, sorted), their heads (the generative candidate's; else the word left of the slot)
    and the matrix of (log p_crf, log p_gen) per candidate, floored at ``floor``."""
    strings = list(gen.strings) + sorted(set(crf) - set(gen.strings))
    heads = list(gen.heads) + [(max(i, 1),) * len(y) for y in strings[len(gen.strings):]]
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


@dataclass(frozen=True)
class Combination:
    """The calibrated combination's weights (module docstring): of log p_crf, of log p_gen
    and of keeping the learner's string."""

    crf: float = 1.0
    gen: float = 1.0
    keep: float = 0.0

    def slot(self, crf: Crf, gen: SlotDistribution, own: Insertion, i: int,
             floor: float = FLOOR) -> SlotDistribution:
        """Slot ``i``'s distribution q over its candidates and the learner's string."""
        strings, heads, logs = slot_candidates(crf, gen, i, floor)
        score = _features(strings, logs, tuple(t for t, _ in own), floor) @ self.weights
        if len(score) > len(strings):  # the learner's string was no candidate
            strings.append(tuple(t for t, _ in own))
            heads.append(tuple(h for _, h in own))
        q = np.exp(score - score.max())
        return SlotDistribution(tuple(strings), tuple(heads), q / q.sum())

    def sentence(self, crf: Sequence[Crf], generative: Sequence[SlotDistribution],
                 own: Sequence[Insertion], support: float, floor: float = FLOOR
                 ) -> list[SlotDistribution]:
        """A sentence's slot distributions q; a slot whose learner string has p_gen below
        ``support`` has that string alone."""
        return [SlotDistribution((tuple(t for t, _ in o),), (tuple(h for _, h in o),),
                                 np.ones(1)) if unexplained(g, o, support)
                else self.slot(c, g, o, i, floor)
                for i, (c, g, o) in enumerate(zip(crf, generative, own))]

    @property
    def weights(self) -> np.ndarray:
        return np.array([self.crf, self.gen, self.keep])


def _features(strings: Sequence[tuple[str, ...]], logs: np.ndarray, mine: tuple[str, ...],
              floor: float) -> np.ndarray:
    """(log p_crf, log p_gen, [y = x_e]) per candidate, and a last row for the learner's
    string when it is not among them (both probabilities at the floor)."""
    keep = np.array([[float(y == mine)] for y in strings]).reshape(len(strings), 1)
    out = np.hstack([logs, keep])
    if mine not in strings:
        out = np.vstack([out, [[math.log(floor), math.log(floor), 1.0]]])
    return out


def fit(slots: Sequence[tuple[Crf, SlotDistribution, Insertion, tuple[str, ...]]],
        floor: float = FLOOR, l2: float = 1e-3) -> tuple[Combination, int]:
    """The weights of highest log-likelihood of the gold strings (minus ``l2`` · |w|²) over
    held-out ``slots`` (CRF marginals, generative distribution, the learner's insertion, the
    corrected string), and how many slots were left out because their gold string is no
    candidate (slots with one candidate carry no information and count for nothing)."""
    from scipy.optimize import minimize
    blocks, golds, missed = [], [], 0
    for c, g, own, gold in slots:
        strings, _, logs = slot_candidates(c, g, 0, floor)
        mine = tuple(t for t, _ in own)
        feats = _features(strings, logs, mine, floor)
        names = strings + ([mine] if mine not in strings else [])
        if gold not in names:
            missed += 1
        elif len(names) > 1:
            blocks.append(feats)
            golds.append(names.index(gold))
    if not blocks:
        raise InputError("fitting the combination needs a slot with two candidates, one the "
                         "corrected string")
    feats = np.vstack(blocks)
    starts = np.cumsum([0] + [len(b) for b in blocks[:-1]])
    gold_rows = starts + np.array(golds)

    def objective(w: np.ndarray) -> tuple[float, np.ndarray]:
        score = feats @ w
        top = np.maximum.reduceat(score, starts)
        e = np.exp(score - np.repeat(top, [len(b) for b in blocks]))
        z = np.add.reduceat(e, starts)
        q = e / np.repeat(z, [len(b) for b in blocks])
        ll = float(score[gold_rows].sum() - (top + np.log(z)).sum())
        grad = feats[gold_rows].sum(axis=0) - q @ feats
        return -ll + l2 * float(w @ w), -grad + 2 * l2 * w

    result = minimize(objective, Combination().weights, jac=True, method="L-BFGS-B")
    a, b, c = (float(x) for x in result.x)
    if not all(math.isfinite(x) for x in (a, b, c)):
        raise InputError("fitting the combination diverged")
    return Combination(a, b, c), missed
