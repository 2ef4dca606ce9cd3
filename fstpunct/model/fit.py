"""Training a model end to end: the initial model, EM, and the channel direction chosen on dev.

:func:`train` is what ``fstpunct train`` runs. With several candidate directions (the default
grammar assumes none) it trains one model per direction and keeps the one with the lowest
per-slot perplexity on the dev sentences.
"""
from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from ..errors import InputError, check_seed, refuse_count
from ..fst.grammar import Grammar
from ..parallel import Pool
from ..ud.slots import SlotSentence
from .punct import Inference, PunctModel, Settings
from .train import ATTACH_ITERATIONS, History, check_iterations, em, initial_model

__all__ = ["Trained", "check_directions", "check_patience", "perplexity", "train"]


def perplexity(model: PunctModel, sentences: Sequence[SlotSentence]) -> tuple[float, float, int]:
    """(log p, per-slot perplexity, slots) of ``sentences`` under ``model``; none skipped."""
    log_p = float(sum(Inference(model, model.prepare(sentences)).log_probs().tolist()))
    slots = sum(s.n + 1 for s in sentences)
    return log_p, math.exp(-log_p / max(slots, 1)), slots


@dataclass
class Trained:
    """The kept model, its EM history and each tried direction's dev perplexity."""

    model: PunctModel
    history: History
    dev_perplexity: dict[str, float] = field(default_factory=dict)


def check_patience(patience: int | None, dev: bool) -> None:
    """Refuse a negative ``patience``, or one without dev sentences to stop on (InputError)."""
    if patience is not None:
        refuse_count(0, patience=patience)
        if not dev:
            raise InputError("stopping EM by dev perplexity (patience) needs dev sentences: "
                             "give dev (--dev FILE)")


def check_directions(directions: Sequence[str], dev: bool) -> None:
    """Refuse to choose between several directions without dev sentences (InputError)."""
    if len(directions) > 1 and not dev:
        raise InputError("choosing the channel direction needs dev sentences: give dev "
                         "(--dev FILE) or direction (--direction ltr|rtl)")


def train(sentences: Sequence[SlotSentence], grammar: Grammar, directions: Sequence[str], *,
          dev: Sequence[SlotSentence] = (), init: str = "nunberg",
          settings: Settings | None = None, iterations: int = 10,
          attach_iterations: int = ATTACH_ITERATIONS, jobs: int = 1, seed: int = 0,
          pool: Pool | None = None, started: Callable[[str], None] | None = None,
          report: Callable[[int, float, float], None] | None = None,
          progress: Callable[[int], None] | None = None, patience: int | None = None
          ) -> Trained:
    """EM from ``grammar`` (``init`` as :func:`~fstpunct.model.train.initial_model`) once per
    direction; with more than one, the model with the lowest dev perplexity is kept (ties: the
    first). Every tried direction's dev perplexity is recorded when ``dev`` is given.
    ``started(direction)`` is called before each run; the E-steps run on ``pool`` (default:
    ``jobs`` local processes); each Attach M-step runs at most ``attach_iterations`` L-BFGS
    iterations. With ``patience`` (needs ``dev``), each run keeps the iteration of lowest dev
    perplexity and stops after ``patience`` iterations without a lower one
    (:func:`~fstpunct.model.train.em`'s ``score``)."""
    check_iterations(iterations, attach_iterations)
    seed = check_seed(seed)
    if not directions:
        raise ValueError("no direction to train")
    check_directions(directions, bool(dev))
    check_patience(patience, bool(dev))
    best: Trained | None = None
    scores: dict[str, float] = {}
    for direction in directions:
        if started:
            started(direction)
        model = initial_model(list(sentences), grammar, init, direction, settings, seed)
        model, history = em(model, model.prepare(sentences), iterations, jobs=jobs, pool=pool,
                            train_channel=init != "identity", report=report, progress=progress,
                            attach_iterations=attach_iterations, patience=patience or 0,
                            score=None if patience is None else
                            lambda m: perplexity(m, dev)[1])
        if dev:
            scores[direction] = perplexity(model, dev)[1] if history.kept is None \
                else history.scores[history.kept]
        if best is None or (dev and scores[direction] < scores[best.model.channel.direction]):
            best = Trained(model, history)
    assert best is not None
    best.dev_perplexity = scores
    return best
