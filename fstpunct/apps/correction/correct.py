"""Correcting sentences: T_e′ under the learners' model, then restoration's decoders.

Every sentence keeps its words and tree; its punctuation is replaced by the minimum-Bayes-risk
choice under p(T_c′, x_c | T, T_e′) (the loss: token edit distance summed over slots), with
restoration's decoders: by default the exact ones of :mod:`fstpunct.apps.restoration.exact`
(``balanced`` or ``slot``, deterministic), or MBR over samples of :class:`PriorSampler`
(``samples``; sentence k of a run draws from the random stream (seed, k)). Each token written
attaches to the word whose puncteme produced it (:meth:`~fstpunct.fst.channel.Channel.align`
on the channel's most probable path); ``# text`` is rebuilt.
"""
from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence

import numpy as np

from ...errors import InputError
from ...ud.slots import to_slots
from ...ud.treebank import Sentence, batches
from ..restoration import Insertion, mbr
from ..restoration import exact as exact_mbr
from ..restoration.generative import DECODERS
from ..restoration.pipeline import has_words
from ..restoration.sample import PriorSampler
from ..restoration.strip import insert, insertions_of, strip
from .model import CorrectionModel, with_learner

__all__ = ["corrected", "corrections"]

def _keeping(slot: exact_mbr.SlotDistribution, own: Insertion, keep: float
             ) -> exact_mbr.SlotDistribution:
    """The slot's distribution mixed with a point mass ``keep`` on the learner's string."""
    y = tuple(t for t, _ in own)
    strings, heads = list(slot.strings), list(slot.heads)
    if y not in strings:
        strings.append(y)
        heads.append(tuple(h for _, h in own))
    probs = np.zeros(len(strings))
    probs[:len(slot.probs)] = (1.0 - keep) * slot.probs
    probs[strings.index(y)] += keep
    return exact_mbr.SlotDistribution(tuple(strings), tuple(heads), probs)


def corrections(model: CorrectionModel, sentences: Sequence[Sentence],
                decoder: str = "balanced", samples: int | None = None, mbr_decoder: str =
                "sentence", seed: int = 0, first: int = 0, keep: float = 0.0
                ) -> list[list[Insertion]]:
    """The corrected punctuation of every sentence (all with words) as insertions into the
    stripped sentence; with ``samples``, sentence k draws from stream (seed, first + k).
    ``keep`` (exact decoders only): each slot's distribution is mixed with a point mass of
    that weight on the learner's own string before MBR (a more conservative corrector)."""
    learner = with_learner(model.learner, [to_slots(s) for s in sentences])
    if samples is None:
        prior = exact_mbr.ExactPrior(model.corrector)
        pairs = model.corrector.attach.symmetric
        out = []
        for sent, ss, m in zip(sentences, learner, prior.marginals(learner)):
            slots = prior.sentence([(ss, m)])
            if keep:
                slots = [_keeping(s, own, keep) for s, own in zip(slots, insertions_of(sent))]
            choice = exact_mbr.slot_decoder(slots)
            if decoder == "balanced" and not exact_mbr.balanced(slots, choice, pairs):
                choice = exact_mbr.balanced_decoder(slots, pairs)
            out.append(exact_mbr.insertions(slots, choice))
        return out
    decode = DECODERS[mbr_decoder]
    return [mbr.insertions(d, decode(d)) for d in
            PriorSampler(model.corrector, samples, seed).draws(learner, first)]


def corrected(sentences: Iterable[Sentence], model: CorrectionModel, decoder: str = "balanced",
              samples: int | None = None, mbr_decoder: str = "sentence", seed: int = 0,
              batch: int = 100, keep: float = 0.0) -> Iterator[Sentence]:
    """Every sentence with its punctuation corrected (module docstring); a sentence that is
    all punctuation is copied unchanged."""
    if decoder not in exact_mbr.EXACT_DECODERS:
        raise InputError(f"decoder must be one of {', '.join(sorted(exact_mbr.EXACT_DECODERS))}")
    if mbr_decoder not in DECODERS:
        raise InputError(f"mbr must be one of {', '.join(sorted(DECODERS))}")
    if samples is not None and samples < 1:
        raise InputError("samples must be at least 1")
    if not 0.0 <= keep <= 1.0 or (keep and samples is not None):
        raise InputError("keep must be between 0 and 1, and is for the exact decoders only")
    first = 0
    for group in batches(sentences, batch):
        words = [s for s in group if has_words(s)]
        out = iter(corrections(model, words, decoder, samples, mbr_decoder, seed, first, keep))
        first += len(words)
        for sent in group:
            yield insert(strip(sent), next(out)) if has_words(sent) else sent
