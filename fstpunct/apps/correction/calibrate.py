"""Choosing a correction model's decoding on held-out pairs (dev).

The corrector's exact slot distributions of the held-out learner sentences are computed once;
each edit cost of ``costs`` (with the learner's string kept below ``support``,
:class:`~.model.Decoding`) then decodes them, and the cost whose corrections have the least
average edit distance (AED) to the corrected sentences wins; ties go to the higher F0.5 of the
punctuation edits, then — on a parser's trees — to the cost nearest the gold trees' one (where
the parsed pairs cannot tell costs apart, the choice made on gold trees stands), then to the
lower cost. The chosen decoding, with the decoder that chose it, is stored in the model's
record for the held-out trees' source — gold, or a parser's: the errors of parsed trees change
which edits pay — (:meth:`~.model.CorrectionModel.decoded_with`), and ``fstpunct correct`` then
uses by default the one of its trees' source (``--parser``: the parsed one, if stored).
"""
from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from ...errors import InputError
from ...ud.treebank import Sentence
from ..restoration.metrics import EditScore, scores
from ..restoration.pipeline import has_words
from .correct import Prepared
from .model import SUPPORT, CorrectionModel, Decoding

__all__ = ["COSTS", "Trial", "best", "calibrated"]

COSTS = tuple(k / 20 for k in range(21))  # 0, 0.05, ..., 1: beyond 1 no single edit is made


@dataclass(frozen=True)
class Trial:
    """The scores of one edit cost on the held-out pairs."""

    edit_cost: float
    aed: float
    correct: int
    proposed: int
    gold: int
    f05: float

    @classmethod
    def of(cls, edit_cost: float, sources: Sequence[Sentence], golds: Sequence[Sentence],
           predicted: Sequence[Sentence]) -> Trial:
        """The scores of the corrections ``predicted`` (made with ``edit_cost``)."""
        aed, edits = scores(golds, predicted, sources)
        return cls.counted(edit_cost, aed.sentence_edits, edits)

    @classmethod
    def counted(cls, edit_cost: float, sentence_edits: Sequence[int], edits: EditScore
                ) -> Trial:
        """The scores from every sentence's token edits and edit counts."""
        return cls(edit_cost, sum(sentence_edits) / len(sentence_edits), sum(edits.correct),
                   sum(edits.proposed), sum(edits.gold), edits.scores()[2])


def nearness(cost: float, near: float) -> float:
    """How far ``cost`` is from ``near``, rounded so that floating point does not break a tie
    of the sweep's costs (0.1 and 0.4 are equally far from 0.25)."""
    return round(abs(cost - near), 9)


def best(trials: Sequence[Trial], near: float | None = None) -> Trial:
    """The trial of least AED; ties: the higher F0.5, then (given ``near``) the cost nearest
    to it (:func:`nearness`), then the lower cost (module docstring)."""
    return min(trials, key=lambda t: (t.aed, -t.f05,
                                      0.0 if near is None else nearness(t.edit_cost, near),
                                      t.edit_cost))


def calibrated(model: CorrectionModel, sources: Sequence[Sentence], golds: Sequence[Sentence],
               costs: Sequence[float] = COSTS, support: float = SUPPORT,
               decoder: str = "balanced", parsed: bool = False
               ) -> tuple[CorrectionModel, list[Trial]]:
    """``model`` with the decoding chosen on the pairs (``sources[k]`` the learner's sentence,
    ``golds[k]`` its correction; module docstring) stored for their trees' source (a parser's
    if ``parsed``, else gold), and every cost's scores."""
    if len(sources) != len(golds) or not sources or not costs:
        raise InputError("calibration needs as many corrected sentences as sources (>0) and "
                         "at least one cost")
    if not all(has_words(s) for s in sources):
        raise InputError("calibration: every source sentence must have words")
    prepared = Prepared.of(model, sources)
    trials = [Trial.of(cost, sources, golds,
                       prepared.corrected_with(Decoding(cost, support, decoder=decoder)))
              for cost in costs]
    won = best(trials, model.decoding.edit_cost if parsed else None)
    chosen = model.decoded_with(Decoding(won.edit_cost, support, decoder=decoder), parsed,
                                sentences=len(sources), aed=won.aed, f05=won.f05)
    return chosen, trials
