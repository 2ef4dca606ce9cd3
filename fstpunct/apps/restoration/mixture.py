"""Restoration by a punctuation model mixed with a CRF tagger, slot by slot.

Slot i's distribution is the mixture p(y) = w · p_model(y) + (1 − w) · p_crf(y) of the model's
exact slot distribution (:class:`~.exact.ExactPrior`) and the CRF's marginal probability of the
tag y at slot i (:meth:`~.crf.CrfModel.marginals`; the CRF's catch-all tag stands for no string
and is left out, its mass is the mixture's :attr:`~.exact.SlotDistribution.rest`), and the
exact decoders choose under it (:class:`~.exact.ExactRestorer`: each slot's least-risk string,
or the balanced combination). The weight w is a held-out choice: ``w = 1`` is the model alone,
``w = 0`` the CRF's minimum-Bayes-risk choice (not its Viterbi tags). The CRF's candidates are
its strings of probability at least the model's floor (:class:`~.exact.ExactPrior`), and ε.
A token of a string that
only the CRF proposes attaches to the word left of its slot (slot 0: word 1), as the CRF's own
restorations do.
"""
from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np

from ...errors import InputError
from ...model.punct import PunctModel
from ...ud.slots import SlotSentence
from .crf import CrfModel, crf_heads
from .exact import ExactRestorer, Marginals, SlotDistribution

__all__ = ["MixedRestorer", "crf_distributions", "mixture"]


def crf_distributions(crf: CrfModel, ss: SlotSentence, floor: float = 0.0
                      ) -> list[SlotDistribution]:
    """Every slot's CRF marginals as a :class:`SlotDistribution` (most probable first): the
    strings of probability ≥ ``floor`` and ε (the others' mass is the slot's ``rest``, as for
    the model's candidates below :class:`~.exact.ExactPrior`'s floor)."""
    out = []
    for i, probs in enumerate(crf.marginals(ss)):
        strings = sorted((y for y, p in probs.items() if p >= floor or not y),
                         key=lambda y: -probs[y])
        out.append(SlotDistribution(tuple(strings), tuple(crf_heads(i, y) for y in strings),
                                    np.array([probs[y] for y in strings])))
    return out


def mixture(a: SlotDistribution, b: SlotDistribution, weight: float) -> SlotDistribution:
    """``weight`` · a + (1 − ``weight``) · b over the strings of both (those of a part with
    weight 0 left out), most probable first; a string's heads are a's where a has it."""
    parts = [(d, w) for d, w in ((a, weight), (b, 1.0 - weight)) if w > 0.0]
    probs: dict[tuple[str, ...], float] = {}
    heads: dict[tuple[str, ...], tuple[int, ...]] = {}
    for d, w in parts:
        for y, h, p in zip(d.strings, d.heads, d.probs.tolist()):
            probs[y] = probs.get(y, 0.0) + w * p
            heads.setdefault(y, h)
    strings = sorted(probs, key=lambda y: -probs[y])
    return SlotDistribution(tuple(strings), tuple(heads[y] for y in strings),
                            np.array([probs[y] for y in strings]))


class MixedRestorer(ExactRestorer):
    """An :class:`ExactRestorer` whose slot distributions are the model's mixed with ``crf``'s
    marginals (:func:`mixture`, the model's share ``weight``; at ``weight`` 1 the model alone,
    the CRF not run); the model's candidates of a slot are skipped only where the mixture's
    p(ε) is certainly ≥ 1/2."""

    def __init__(self, model: PunctModel, crf: CrfModel, weight: float, decoder: str = "slot",
                 floor: float = 1e-3, prune: float = 3e-4) -> None:
        if not 0.0 <= weight <= 1.0:
            raise InputError(f"the mixture weight must be between 0 and 1, not {weight}")
        super().__init__(model, decoder, floor, prune)
        self.crf, self.weight = crf, weight

    def _settings(self) -> str:
        return (f"{super()._settings()}, model weight {self.weight:g} against the CRF "
                f"{self.crf.model_file.parent}")

    def distributions(self, trees: Sequence[tuple[SlotSentence, Marginals]]
                      ) -> Callable[[bool], list[SlotDistribution]]:
        """:meth:`ExactRestorer.distributions` mixed with the CRF's, whose marginals are
        computed once per sentence (as the model's slots computed in full)."""
        w = self.weight
        if w == 1.0:
            return super().distributions(trees)
        crf = crf_distributions(self.crf, trees[0][0], self.prior.floor)
        if w == 0.0:
            return lambda quick: crf
        empty = [(1.0 - w) * slot.prob(()) for slot in crf]
        done: dict[int, SlotDistribution] = {}  # the model's slots computed in full, kept

        def mixed(quick: bool) -> list[SlotDistribution]:
            own = self.prior.sentence(trees, (lambda i, p: w * p + empty[i] >= 0.5) if quick
                                      else False, done)
            return [mixture(a, b, w) for a, b in zip(own, crf)]
        return mixed
