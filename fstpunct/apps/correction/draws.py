"""The learner model's exact draws of T_e′, per sentence from its own random stream: drawn
readings (:func:`.model.drawn`) and the readings diagnostic (:func:`.readings.readings`) draw
them alike, so that a sentence's draws do not depend on the other sentences of a call."""
from __future__ import annotations

from collections.abc import Sequence

from ...errors import check_stream_seed, refuse_count
from ...model.punct import Inference, PunctModel
from ...model.vocab import Puncteme
from ...ud.slots import SlotSentence

__all__ = ["learner_draws", "sentence_streams"]

Draws = list[list[list[tuple[Puncteme, Puncteme] | None]]]  # [sentence][draw][node]


def sentence_streams(seed: int, first: int, count: int) -> list[tuple[int, int]]:
    """The random streams of ``count`` sentences, the first of them sentence ``first`` of a
    longer input: sentence k's is (seed, first + k)."""
    return [(seed, first + k) for k in range(count)]


def learner_draws(learner: PunctModel, sentences: Sequence[SlotSentence], draws: int,
                  seed: int, first: int) -> tuple[Inference, Draws] | None:
    """``draws`` exact draws of T′ from p(T′ | T, x) under ``learner`` for every sentence,
    sentence k's from the stream (seed, first + k) (:func:`sentence_streams`), with the
    Inference they came from; None for no sentences (``draws`` ≥ 1 and ``seed`` from 0 to
    2**32 - 1 checked first, :func:`~fstpunct.errors.check_stream_seed`)."""
    refuse_count(1, **{"the draws of T′": draws})  # with nothing to draw too
    check_stream_seed(seed)
    if not sentences:
        return None
    inference = Inference(learner, learner.prepare(sentences))
    return inference, inference.sample_each(draws, sentence_streams(seed, first, len(sentences)))
