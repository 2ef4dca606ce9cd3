"""Restoration with the punctuation model: m samples of (T′, x) given T, then MBR (paper §6.1).

Given several trees of the same words (``alternatives``: other parsers' trees), the m samples
are split evenly among the trees and pooled before MBR, so the choice averages over the trees
(an ensemble estimate of Σ_T p(T | words) p(x | T), where the paper conditions on one T).
"""
from __future__ import annotations

from collections.abc import Sequence

from ..model import PunctModel
from ..slots import to_slots
from ..treebank import Sentence
from . import Insertion
from .mbr import insertions, sentence_mbr, slot_mbr
from .sample import Draws, PriorSampler

__all__ = ["DECODERS", "ModelRestorer", "split"]

DECODERS = {"sentence": sentence_mbr, "slot": slot_mbr}


def split(samples: int, parts: int) -> list[int]:
    """``samples`` split into ``parts`` near-equal shares, the larger first."""
    return [samples // parts + (t < samples % parts) for t in range(parts)]


class ModelRestorer:
    """Restores a sentence's punctuation from its words and tree(s) with a :class:`PunctModel`
    (the Attach ablation is the same with an identity channel). Sentence k of a run draws from
    the random stream (seed, k), its t-th alternative tree from (seed, k, t), so output is
    reproducible; with one tree it is what :class:`PriorSampler` draws."""

    def __init__(self, model: PunctModel, samples: int = 1000, decoder: str = "sentence",
                 seed: int = 0) -> None:
        self.model, self.samples, self.seed = model, samples, seed
        self.decode = DECODERS[decoder]
        self._samplers: dict[tuple[int, int], PriorSampler] = {}
        self._count = 0

    def _sampler(self, samples: int, tree: int) -> PriorSampler:
        key = (samples, tree)
        if key not in self._samplers:
            self._samplers[key] = PriorSampler(self.model, samples, self.seed,
                                               stream=tree or None)
        return self._samplers[key]

    def restore(self, sent: Sentence, alternatives: Sequence[Sentence] = ()) -> list[Insertion]:
        trees = [sent, *alternatives]
        parts = [next(self._sampler(m, t).draws([to_slots(tree)], first=self._count))
                 for t, (tree, m) in enumerate(zip(trees, split(self.samples, len(trees))))
                 if m]
        self._count += 1
        draws = parts[0] if len(parts) == 1 else Draws.pool(parts)
        return insertions(draws, self.decode(draws))
