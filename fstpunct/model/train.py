"""EM training with posterior regularisation (DESIGN §4).

Each iteration:

* **E-step** — for every sentence, the tilted posterior over T′ (each node's pair weight times
  exp(−ξ·unmatched)) gives expected Attach pair counts and expected channel-arc counts (the
  compiled outside pass). It is a sum over sentences, so it runs on a
  :class:`~fstpunct.parallel.Pool` in chunks of sentences: the training batch is shared with the
  workers once, each iteration's θ and φ once per iteration; chunk results are added in order,
  so any pool gives exactly the serial result.
* **M-step** — channel: φ[a, b] ∝ expected edit counts + ``prior`` · φ₀[a, b] (Dirichlet
  pseudo-counts centred on the initial channel, structural zeros kept); Attach: L-BFGS on the
  expected log-likelihood with L2 (:func:`fstpunct.model.mstep.fit`), on as many threads as
  the E-step has workers.

The objective — Σ log Σ_T′ p(T′, x | T)·exp(−ξ·c(T′)) + Σ prior·φ₀·log φ − (l2/2)‖θ − θ₀‖² —
never decreases (generalised EM); :class:`History` records it per iteration.
"""
from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

import numpy as np

from ..errors import refuse_choice, refuse_count
from ..fst.channel import Channel
from ..fst.grammar import Grammar
from ..fst.lattice import LatticeBuilder
from ..parallel import Pool, make_pool, share_value, shared
from ..ud.slots import SlotSentence
from .attach import AttachModel
from .mstep import fit
from .punct import Batch, Inference, PunctModel, Settings, SlotCache
from .vocab import Vocab

__all__ = ["ATTACH_ITERATIONS", "CHUNK", "INITS", "Counts", "History", "check_iterations", "em",
           "expected_counts", "initial_model"]

CHUNK = 500  # sentences per E-step task: a second or so

ATTACH_ITERATIONS = 50  # L-BFGS iterations of each Attach M-step

INITS = ("nunberg", "random", "identity")


@dataclass
class History:
    """The objective after each E-step (the value for the parameters going into it)."""

    objective: list[float] = field(default_factory=list)
    log_likelihood: list[float] = field(default_factory=list)
    edit_counts: np.ndarray | None = None  # expected counts per φ[a, b, e] under the kept model
    scores: list[float] = field(default_factory=list)  # each iteration's model's (with a score)
    kept: int | None = None  # the iteration whose model is kept (with a score): the best scored


@dataclass
class Counts:
    """Sufficient statistics of one E-step."""

    log_z: float
    targets: np.ndarray     # expected count of every Attach row
    arc_counts: np.ndarray  # expected count of every channel arc


def initial_model(sentences: list[SlotSentence], grammar: Grammar, init: str = "nunberg",
                  direction: str | None = None, settings: Settings | None = None,
                  seed: int = 0, readings: Sequence[SlotSentence] = ()) -> PunctModel:
    """θ = θ₀ (the prior mean, :meth:`AttachModel.init_theta`) and φ from the grammar
    (``nunberg``), random (``random``) or KEEP (``identity``),
    over the vocabulary of ``sentences`` (tokens seen fewer than 5 times become UNK);
    ``readings``: more readings of ``sentences`` (the same words and slots, other contexts),
    whose contexts join θ's and nothing else (:meth:`AttachModel.build`)."""
    refuse_choice("init", init, INITS)
    settings = settings or Settings()
    vocab = Vocab.build(sentences)
    attach = AttachModel.build(vocab, grammar.pairs, sentences, settings.lexical, readings)
    # The channel's alphabet is the model's: marks the grammar declares but training never
    # shows (or shows rarely) are UNK to the model, so they need no states of their own.
    base = grammar.channel(extra_symbols=vocab.tokens, direction=direction)
    keep = [base.index(t) for t in vocab.tokens]
    symbols = [base.symbols[k] for k in keep]
    if init == "nunberg":
        channel = Channel(symbols, base.direction, base.phi[np.ix_(keep, keep)])
    elif init == "random":
        channel = Channel.random(symbols, base.direction, np.random.default_rng(seed))
    else:  # identity
        channel = Channel.identity(symbols, base.direction)
    return PunctModel(attach, attach.init_theta(settings.token_cost), channel, settings)


_BATCH, _PARAMS = "em-batch", "em-params"  # shared: (batch, attach, settings); (θ, φ)
_WORKER: dict[str, object] = {}  # a worker's Inference for the current parameters, its builder


def _worker_inference() -> Inference:
    """The Inference of the shared batch and parameters, made once per worker and iteration
    (slot lattices' shapes kept from one iteration to the next)."""
    batch, attach, settings = shared(_BATCH)
    params = shared(_PARAMS)
    cached = _WORKER.get("inference")
    if isinstance(cached, tuple) and cached[0] is params:
        return cached[1]
    model = PunctModel(attach, *params, settings)
    builder = _WORKER.get("builder")
    builder = builder.rebound(model.channel) if isinstance(builder, LatticeBuilder) else \
        LatticeBuilder(model.channel)
    inference = Inference(model, batch, tilt=settings.xi,  # every surface string stays cached
                          slots=SlotCache(model, builder, limit=None))
    _WORKER["builder"], _WORKER["inference"] = builder, (params, inference)
    return inference


def _estep_task(bounds: tuple[int, int]) -> tuple[float, np.ndarray, int, np.ndarray]:
    """Σ log Z, expected arc counts and the expected counts of the chunk's Attach rows (a
    contiguous range of them, from the returned first row) over sentences bounds[0]..[1]−1."""
    inference = _worker_inference()
    e = inference.expected_counts(range(*bounds))
    data = inference.batch.data
    lo, hi = data.node_offsets[data.sentence_offsets[list(bounds)]]
    targets = np.zeros(hi - lo)
    targets[e.rows - lo] = e.posterior  # each row once
    return e.log_z, e.arc_counts, int(lo), targets


def share_batch(pool: Pool, batch: Batch, model: PunctModel) -> None:
    """Send the training batch (and the Attach model's structure) to the pool's workers."""
    share_value(pool, _BATCH, (batch, model.attach, model.settings))


def expected_counts(pool: Pool, model: PunctModel, batch: Batch, chunk: int = CHUNK,
                    progress: Callable[[int], None] | None = None) -> Counts:
    """The E-step over ``batch`` (shared with the pool's workers by :func:`share_batch`) under
    ``model``'s θ and φ, in tasks of ``chunk`` sentences."""
    share_value(pool, _PARAMS, (model.theta, model.channel))
    n = len(batch)
    bounds = [(a, min(a + chunk, n)) for a in range(0, n, chunk)]
    targets = np.zeros(len(batch.data.pairs))
    counts: np.ndarray | None = None
    log_z = 0.0
    for (a, b), (lz, c, first, part) in zip(bounds, pool.imap(_estep_task, bounds)):
        log_z += lz
        counts = c if counts is None else counts + c
        targets[first:first + len(part)] += part
        if progress:
            progress(b - a)
    assert counts is not None, "an E-step needs sentences"
    return Counts(log_z, targets, counts)


def _reestimate(channel: Channel, counts: np.ndarray, prior: np.ndarray) -> Channel:
    total = counts * channel.mask + prior
    sums = total.sum(axis=2, keepdims=True)
    phi = np.where(sums > 0, total / np.where(sums > 0, sums, 1.0), channel.phi)
    return Channel(channel.symbols, channel.direction, phi)


def check_iterations(iterations: int, attach_iterations: int) -> None:
    """Refuse fewer than 0 EM iterations or 1 L-BFGS iteration per M-step (InputError)."""
    refuse_count(0, iterations=iterations)
    refuse_count(1, attach_iterations=attach_iterations)


def em(model: PunctModel, batch: Batch, iterations: int, *, jobs: int = 1,
       pool: Pool | None = None, train_channel: bool = True,
       attach_iterations: int = ATTACH_ITERATIONS,
       report: Callable[[int, float, float], None] | None = None,
       progress: Callable[[int], None] | None = None,
       center: np.ndarray | None = None, threads: int | None = None,
       score: Callable[[PunctModel], float] | None = None, patience: int = 0
       ) -> tuple[PunctModel, History]:
    """Run ``iterations`` EM iterations from ``model`` on ``batch``; returns the final model
    and the objective history. The E-step runs on ``pool`` (default: ``jobs`` local
    processes), each M-step of at most ``attach_iterations`` L-BFGS iterations on ``threads``
    threads (default: as many as the pool has workers, at most this machine's cores; the
    result is the same for any number). ``train_channel=False`` keeps φ fixed (the Attach
    ablation). ``center``: the mean of θ's L2 prior (default
    :meth:`~.attach.AttachModel.init_theta` of the token cost). With ``score`` (lower is
    better: a dev perplexity), the model of every iteration, the initial one included, is
    scored, EM stops when ``patience`` iterations in a row have not bettered the best score
    (0: at the first), and the best scored model is returned (ties: the earlier), as EM with
    that many iterations returns it; :attr:`History.kept` names it."""
    check_iterations(iterations, attach_iterations)
    refuse_count(0, patience=patience)
    own = pool is None
    pool = make_pool(jobs) if pool is None else pool
    if threads is None:
        threads = max(1, min(pool.workers, os.cpu_count() or 1))
    try:
        return _em(model, batch, iterations, pool, train_channel, attach_iterations, report,
                   progress, center, threads, score, patience)
    finally:
        if own:
            pool.close()


def _em(model: PunctModel, batch: Batch, iterations: int, pool: Pool, train_channel: bool,
        attach_iterations: int, report: Callable[[int, float, float], None] | None,
        progress: Callable[[int], None] | None, center: np.ndarray | None, threads: int,
        score: Callable[[PunctModel], float] | None, patience: int
        ) -> tuple[PunctModel, History]:
    settings = model.settings
    prior = settings.prior * model.channel.phi
    if center is None:
        center = model.attach.init_theta(settings.token_cost)
    history = History()
    builder = LatticeBuilder(model.channel)
    share_batch(pool, batch, model)
    best = model  # the model to return: the best scored so far, else the last
    for it in range(iterations + 1):
        counts = expected_counts(pool, model, batch, progress=progress)
        phi = model.channel.phi
        offset = model.theta - center
        objective = (counts.log_z - 0.5 * settings.l2 * float(offset @ offset)
                     + float(np.sum(prior * np.log(np.where(phi > 0, phi, 1.0)))))
        history.objective.append(objective)
        history.log_likelihood.append(counts.log_z)
        if report:
            report(it, objective, counts.log_z)
        edits = builder.edit_totals(counts.arc_counts)
        if score is None:
            keep = stop = it == iterations
        else:
            history.scores.append(score(model))
            keep = history.kept is None or history.scores[-1] < history.scores[history.kept]
            if keep:
                history.kept = it
            stop = it == iterations or not keep and it - history.kept >= patience
        if keep:
            best, history.edit_counts = model, edits
        if stop:
            break
        channel = model.channel
        if train_channel:
            channel = _reestimate(channel, edits, prior)
        theta = fit(model.theta, batch.data, counts.targets, settings.l2, attach_iterations,
                    center, threads)
        model = PunctModel(model.attach, theta, channel, settings)
    return best, history
