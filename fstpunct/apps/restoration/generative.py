"""Restoration with the punctuation model: m samples of (T′, x) given T, then MBR (paper §6.1).

Given several trees of the same words (``alternatives``: other parsers' trees), the m samples
are split evenly among the trees and pooled before MBR, so the choice averages over the trees
(an ensemble estimate of Σ_T p(T | words) p(x | T), where the paper conditions on one T).
"""
from __future__ import annotations

import copy
from collections.abc import Iterator, Mapping, Sequence

from ...errors import check_stream_seed, refuse_choice, refuse_count, refuse_unused
from ...model.punct import PunctModel
from ...ud.slots import SlotSentence, to_slots
from ...ud.treebank import Sentence
from . import Insertion
from .mbr import insertions, sentence_mbr, slot_mbr
from .sample import Draws, PriorSampler

__all__ = ["DECODERS", "ModelRestorer", "check_sampling", "pooled_draws", "split"]

DECODERS = {"sentence": sentence_mbr, "slot": slot_mbr}


def check_sampling(samples: int | None, exact: Mapping[str, object], mbr: str | None,
                   seed: int | None) -> tuple[str, int]:
    """``mbr`` and ``seed`` settled (``sentence`` and 0 when None; ``mbr`` one of
    :data:`DECODERS`) after an :class:`~fstpunct.errors.InputError` for an option the choice
    between exact decoding and MBR over ``samples`` (None: exact; else at least 1) would
    ignore: one of ``exact`` (the exact decoders' options by name, None when not given) with
    samples, or ``mbr`` or ``seed`` without, or a seed not from 0 to 2**32 - 1
    (:func:`~fstpunct.errors.check_stream_seed`); restoration and correction share it."""
    if samples is not None:
        refuse_count(1, samples=samples)
        refuse_unused({name: value is not None for name, value in exact.items()},
                      "for the exact decoders only, not with samples (--samples)")
    refuse_unused({"mbr": samples is None and mbr is not None,
                   "seed": samples is None and seed is not None},
                  "only with samples (--samples: MBR over samples)")
    check_stream_seed(seed)  # as PriorSampler will (made per sentence), before any is read
    mbr = "sentence" if mbr is None else mbr
    refuse_choice("mbr", mbr, sorted(DECODERS))
    return mbr, seed or 0


def split(samples: int, parts: int) -> list[int]:
    """``samples`` split into ``parts`` near-equal shares, the larger first."""
    return [samples // parts + (t < samples % parts) for t in range(parts)]


def pooled_draws(model: PunctModel, trees: Sequence[Sequence[SlotSentence]], samples: int,
                 seed: int = 0, first: int = 0) -> Iterator[Draws]:
    """:class:`Draws` of every sentence k from its trees ``trees[t][k]`` (one list per tree
    source): the ``samples`` are :func:`split` among the trees, tree t's drawn from the random
    stream (seed, first + k, t) ((seed, first + k) for t = 0, as :class:`PriorSampler` alone),
    and pooled."""
    streams = [PriorSampler(model, m, seed, stream=t or None).draws(ts, first)
               for t, (ts, m) in enumerate(zip(trees, split(samples, len(trees)))) if m]
    for parts in zip(*streams):
        yield parts[0] if len(parts) == 1 else Draws.pool(parts)


class ModelRestorer:
    """Restores a sentence's punctuation from its words and tree(s) with a :class:`PunctModel`
    (the Attach ablation is the same with an identity channel). Sentence k of a run draws from
    the random stream (seed, k), its t-th alternative tree from (seed, k, t), so output is
    reproducible; with one tree it is what :class:`PriorSampler` draws."""

    def __init__(self, model: PunctModel, samples: int = 1000, decoder: str = "sentence",
                 seed: int = 0) -> None:
        self.model, self.samples, self.seed = model, samples, seed
        self.mbr, self.decode = decoder, DECODERS[decoder]
        self._count = 0

    def __repr__(self) -> str:
        return f"<ModelRestorer: {self.samples} samples, mbr {self.mbr}, seed {self.seed}>"

    def starting_at(self, k: int) -> ModelRestorer:
        """This restorer as it is after ``k`` sentences (for a chunk of a parallel run)."""
        out = copy.copy(self)
        out._count = k
        return out

    def restore(self, sent: Sentence, alternatives: Sequence[Sentence] = ()) -> list[Insertion]:
        trees = [[to_slots(tree)] for tree in (sent, *alternatives)]
        draws = next(pooled_draws(self.model, trees, self.samples, self.seed, self._count))
        self._count += 1
        return insertions(draws, self.decode(draws))
