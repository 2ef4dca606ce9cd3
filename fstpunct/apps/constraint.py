"""Punctuation as a constraint on parsing (Jones 1994), with the generative model as the judge.

Jones parses with and without punctuation rules and finds that the punctuated grammar rules out
many analyses. Here a parser that never sees punctuation (``removed`` mode) proposes its k best
trees of the words, and the punctuation model scores how well each tree explains the marks that
were actually written, log p(x | T) (the quantity of the perplexity tables). The tree with the
highest ``parser score + weight · log p(x | T)`` is kept; weight 0 is the parser alone.
"""
from __future__ import annotations

from collections.abc import Iterable, Iterator

import numpy as np

from ..batching import batches
from ..errors import InputError, refuse_below
from ..model.punct import Inference, PunctModel, SlotCache
from ..parser import Model as ParserModel
from ..parser import kbest
from ..ud.slots import to_slots
from ..ud.treebank import Sentence

__all__ = ["Candidates", "candidates", "check_constraint", "choose", "constrained"]

Candidates = tuple[list[Sentence], np.ndarray, np.ndarray]  # trees, parser scores, log p(x | T)


def candidates(parser: ParserModel, model: PunctModel, sentences: Iterable[Sentence],
               beam: int | None, chunk: int = 200) -> Iterator[Candidates]:
    """For every sentence, the parser's k best trees (``beam``: ``None`` for the parser's
    own) with their parser scores and log p(x | T) under the punctuation model."""
    cache = SlotCache(model)  # the trees of a sentence share its slots: built once
    for batch in batches(sentences, chunk):
        lists = [kbest(parser, sent, beam) for sent in batch]
        trees = [t for k_best in lists for _, t in k_best]
        log_px = Inference(model, model.prepare([to_slots(t) for t in trees]),
                           slots=cache).log_probs()
        start = 0
        for k_best in lists:
            end = start + len(k_best)
            yield ([t for _, t in k_best], np.array([s for s, _ in k_best]),
                   np.asarray(log_px[start:end], dtype=float))
            start = end


def choose(scores: np.ndarray, log_px: np.ndarray, weight: float) -> int:
    """The index of the tree with the best combined score (the parser's first on a tie)."""
    return int(np.argmax(scores + weight * log_px))


def constrained(parser: ParserModel, model: PunctModel, sentences: Iterable[Sentence],
                beam: int | None, weight: float) -> Iterator[Sentence]:
    """Every sentence parsed, the tree chosen among the parser's k best by :func:`choose`;
    :func:`check_constraint` first, before any sentence is read."""
    check_constraint(parser, beam, weight)
    return (trees[choose(scores, log_px, weight)]
            for trees, scores, log_px in candidates(parser, model, sentences, beam))


def check_constraint(parser: ParserModel, beam: int | None, weight: float) -> None:
    """An :class:`~fstpunct.errors.InputError` unless ``weight`` is a finite number ≥ 0,
    ``beam`` (or the parser's own) at least 2 and the parser of ``removed`` mode."""
    parser.expect_mode("removed", "choosing a tree by its punctuation (--punct-model)")
    refuse_below(0, required=True, punct_weight=weight)  # NaN or inf: trees would score alike
    if parser.beam_width(beam) < 2:  # one tree: nothing to choose, the parser's tree
        raise InputError("choosing a tree by its punctuation needs a beam of at least 2 "
                         f"(the parser's k best), not {parser.beam_width(beam)}")
