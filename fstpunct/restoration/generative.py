"""Restoration with the punctuation model: m samples of (T′, x) given T, then MBR (paper §6.1)."""
from __future__ import annotations

from ..model import PunctModel
from ..slots import to_slots
from ..treebank import Sentence
from . import Insertion
from .mbr import insertions, sentence_mbr, slot_mbr
from .sample import PriorSampler

__all__ = ["DECODERS", "ModelRestorer"]

DECODERS = {"sentence": sentence_mbr, "slot": slot_mbr}


class ModelRestorer:
    """Restores a sentence's punctuation from its words and tree with a :class:`PunctModel`
    (the Attach ablation is the same with an identity channel). Sentence k of a run uses the
    random stream (seed, k), so output is reproducible."""

    def __init__(self, model: PunctModel, samples: int = 1000, decoder: str = "sentence",
                 seed: int = 0) -> None:
        self.sampler = PriorSampler(model, samples, seed)
        self.decode = DECODERS[decoder]
        self._count = 0

    def restore(self, sent: Sentence) -> list[Insertion]:
        draws = next(self.sampler.draws([to_slots(sent)], first=self._count))
        self._count += 1
        return insertions(draws, self.decode(draws))
