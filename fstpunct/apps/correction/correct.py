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

from ...errors import InputError
from ...ud.slots import to_slots
from ...ud.treebank import Sentence, batches
from ..restoration import Insertion, mbr
from ..restoration import exact as exact_mbr
from ..restoration.generative import DECODERS
from ..restoration.pipeline import has_words
from ..restoration.sample import PriorSampler
from ..restoration.strip import insert, strip
from .model import CorrectionModel, with_learner

__all__ = ["corrected", "corrections"]


def corrections(model: CorrectionModel, sentences: Sequence[Sentence],
                decoder: str = "balanced", samples: int | None = None, mbr_decoder: str =
                "sentence", seed: int = 0, first: int = 0) -> list[list[Insertion]]:
    """The corrected punctuation of every sentence (all with words) as insertions into the
    stripped sentence; with ``samples``, sentence k draws from stream (seed, first + k)."""
    learner = with_learner(model.learner, [to_slots(s) for s in sentences])
    if samples is None:
        restorer = exact_mbr.ExactRestorer(model.corrector, decoder)
        marginals = restorer.prior.marginals(learner)
        return [exact_mbr.insertions(*restorer.decode([(ss, m)]))
                for ss, m in zip(learner, marginals)]
    decode = DECODERS[mbr_decoder]
    return [mbr.insertions(d, decode(d)) for d in
            PriorSampler(model.corrector, samples, seed).draws(learner, first)]


def corrected(sentences: Iterable[Sentence], model: CorrectionModel, decoder: str = "balanced",
              samples: int | None = None, mbr_decoder: str = "sentence", seed: int = 0,
              batch: int = 100) -> Iterator[Sentence]:
    """Every sentence with its punctuation corrected (module docstring); a sentence that is
    all punctuation is copied unchanged."""
    if decoder not in exact_mbr.EXACT_DECODERS:
        raise InputError(f"decoder must be one of {', '.join(sorted(exact_mbr.EXACT_DECODERS))}")
    if mbr_decoder not in DECODERS:
        raise InputError(f"mbr must be one of {', '.join(sorted(DECODERS))}")
    if samples is not None and samples < 1:
        raise InputError("samples must be at least 1")
    first = 0
    for group in batches(sentences, batch):
        words = [s for s in group if has_words(s)]
        out = iter(corrections(model, words, decoder, samples, mbr_decoder, seed, first))
        first += len(words)
        for sent in group:
            yield insert(strip(sent), next(out)) if has_words(sent) else sent
