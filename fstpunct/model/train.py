"""EM training with posterior regularisation (DESIGN §4).

Each iteration:

* **E-step** — for every sentence, the tilted posterior over T′ (each node's pair weight times
  exp(−ξ·unmatched)) gives expected Attach pair counts and expected channel-arc counts. It is a
  sum over sentences, so it runs in ``jobs`` worker processes (forked, so the corpus and the
  current parameters are shared, not pickled).
* **M-step** — channel: φ[a, b] ∝ expected edit counts + ``prior`` · φ₀[a, b] (Dirichlet
  pseudo-counts centred on the initial channel, structural zeros kept); Attach: L-BFGS on the
  expected log-likelihood with L2 (:func:`fstpunct.model.attach.fit`).

The objective — Σ log Σ_T′ p(T′, x | T)·exp(−ξ·c(T′)) + Σ prior·φ₀·log φ − (l2/2)‖θ − θ₀‖² —
never decreases (generalised EM); :class:`History` records it per iteration.
"""
from __future__ import annotations

import multiprocessing as mp
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np

from ..fst.channel import Channel
from ..fst.grammar import Grammar
from ..fst.lattice import LatticeBuilder
from ..ud.slots import SlotSentence
from .attach import AttachModel, fit
from .punct import Batch, Inference, PunctModel, Settings, SlotCache
from .vocab import Vocab

__all__ = ["INITS", "Counts", "History", "em", "expected_counts", "initial_model"]

INITS = ("nunberg", "random", "identity")


@dataclass
class History:
    """The objective after each E-step (the value for the parameters going into it)."""

    objective: list[float] = field(default_factory=list)
    log_likelihood: list[float] = field(default_factory=list)
    edit_counts: np.ndarray | None = None  # expected counts per φ[a, b, e] under the final model


@dataclass
class Counts:
    """Sufficient statistics of one E-step."""

    log_z: float
    targets: np.ndarray     # expected count of every Attach row
    arc_counts: np.ndarray  # expected count of every channel arc


def initial_model(sentences: list[SlotSentence], grammar: Grammar, init: str = "nunberg",
                  direction: str | None = None, settings: Settings | None = None,
                  seed: int = 0) -> PunctModel:
    """θ = θ₀ (the prior mean, :meth:`AttachModel.init_theta`) and φ from the grammar
    (``nunberg``), random (``random``) or KEEP (``identity``),
    over the vocabulary of ``sentences`` (tokens seen fewer than 5 times become UNK)."""
    settings = settings or Settings()
    vocab = Vocab.build(sentences)
    attach = AttachModel.build(vocab, grammar.pairs, sentences, settings.lexical)
    # The channel's alphabet is the model's: marks the grammar declares but training never
    # shows (or shows rarely) are UNK to the model, so they need no states of their own.
    base = grammar.channel(extra_symbols=vocab.tokens, direction=direction)
    keep = [base.index(t) for t in vocab.tokens]
    symbols = [base.symbols[k] for k in keep]
    if init == "nunberg":
        channel = Channel(symbols, base.direction, base.phi[np.ix_(keep, keep)])
    elif init == "random":
        channel = Channel.random(symbols, base.direction, np.random.default_rng(seed))
    elif init == "identity":
        channel = Channel.identity(symbols, base.direction)
    else:
        raise ValueError(f"init must be one of {', '.join(INITS)}, not {init!r}")
    return PunctModel(attach, attach.init_theta(settings.token_cost), channel, settings)


_SHARED: dict[str, object] = {}  # what forked E-step workers read


def _estep_range(bounds: tuple[int, int]) -> tuple[float, np.ndarray, np.ndarray, np.ndarray]:
    inference = _SHARED["inference"]
    assert isinstance(inference, Inference)
    e = inference.expected_counts(range(*bounds))
    return e.log_z, e.arc_counts, e.rows, e.posterior


def expected_counts(inference: Inference, jobs: int = 1, chunk: int = 200,
                    progress: Callable[[int], None] | None = None) -> Counts:
    """The E-step over every sentence of ``inference.batch``, in ``jobs`` processes."""
    n = len(inference.batch)
    bounds = [(a, min(a + chunk, n)) for a in range(0, n, chunk)]
    _SHARED["inference"] = inference
    try:
        if jobs > 1 and len(bounds) > 1:
            with mp.get_context("fork").Pool(jobs) as pool:
                parts = []
                for part, (a, b) in zip(pool.imap(_estep_range, bounds), bounds):
                    parts.append(part)
                    if progress:
                        progress(b - a)
        else:
            parts = []
            for a, b in bounds:
                parts.append(_estep_range((a, b)))
                if progress:
                    progress(b - a)
    finally:
        _SHARED.clear()
    targets = np.zeros(len(inference.batch.data.pairs))
    counts = np.zeros(len(inference.weights))
    log_z = 0.0
    for lz, c, rows, post in parts:
        log_z += lz
        counts += c
        np.add.at(targets, rows, post)
    return Counts(log_z, targets, counts)


def _reestimate(channel: Channel, counts: np.ndarray, prior: np.ndarray) -> Channel:
    total = counts * channel.mask + prior
    sums = total.sum(axis=2, keepdims=True)
    phi = np.where(sums > 0, total / np.where(sums > 0, sums, 1.0), channel.phi)
    return Channel(channel.symbols, channel.direction, phi)


def em(model: PunctModel, batch: Batch, iterations: int, *, jobs: int = 1,
       train_channel: bool = True, attach_iterations: int = 50,
       report: Callable[[int, float, float], None] | None = None,
       progress: Callable[[int], None] | None = None) -> tuple[PunctModel, History]:
    """Run ``iterations`` EM iterations from ``model`` on ``batch``; returns the final model
    and the objective history. ``train_channel=False`` keeps φ fixed (the Attach ablation)."""
    settings = model.settings
    prior = settings.prior * model.channel.phi
    center = model.attach.init_theta(settings.token_cost)
    history = History()
    builder = LatticeBuilder(model.channel)
    for it in range(iterations + 1):
        inference = Inference(model, batch, tilt=settings.xi,  # every surface string stays cached
                              slots=SlotCache(model, builder, limit=None))
        counts = expected_counts(inference, jobs, progress=progress)
        phi = model.channel.phi
        offset = model.theta - center
        objective = (counts.log_z - 0.5 * settings.l2 * float(offset @ offset)
                     + float(np.sum(prior * np.log(np.where(phi > 0, phi, 1.0)))))
        history.objective.append(objective)
        history.log_likelihood.append(counts.log_z)
        if report:
            report(it, objective, counts.log_z)
        if it == iterations:
            history.edit_counts = inference.builder.edit_totals(counts.arc_counts)
            break
        channel = model.channel
        if train_channel:
            channel = _reestimate(channel, inference.builder.edit_totals(counts.arc_counts), prior)
        theta = fit(model.theta, batch.data, counts.targets, settings.l2, attach_iterations,
                    center)
        model = PunctModel(model.attach, theta, channel, settings)
        builder = builder.rebound(channel)  # the slot lattices keep their shapes
    return model, history
