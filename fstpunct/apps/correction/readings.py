"""How the learner model reads each slot of a learner's sentence (a diagnostic of T_e′).

The corrector sees T_e′, the learner model's Viterbi analysis (:func:`.model.with_learner`). At
slot i the punctemes of a T′'s member nodes (:func:`~fstpunct.ud.slots.slot_members`) make an
underlying string u_i, which the learner channel rewrites into the learner's surface string.
The string u_i *stands for* is its likeliest rendering under that channel (the grammar's
absorptions applied: ``? .`` stands for ``?``). A slot is a *reading artifact* where T_e′'s
u_i stands for another string than the learner wrote (both in the model's symbols: a mark too
rare for its vocabulary is UNK on both sides): T_e′ explains the learner's string by a
less likely channel path (e.g. a final ``.`` read as an underlying ``?`` whose rendering lost
it), so that copying T_e′ through a like channel writes another string than the learner did.
Its *posterior* is the share of exact draws of T′ from p(T′ | T, x_e) whose u_i stands for the
same string as T_e′'s (a Monte Carlo estimate of how sure the learner model is of its
reading there).
"""
from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from ...model.punct import PunctModel
from ...model.vocab import Puncteme
from ...ud.slots import BOUNDARY, SlotSentence, slot_members, underlying_slot
from ..rephrase.underlying import Aligner
from .draws import learner_draws

__all__ = ["SlotReading", "readings", "stands_for"]


@dataclass(frozen=True)
class SlotReading:
    """T_e′ at one slot (module docstring): the string its u_i stands for (None where a member
    node's pair is the backoff, which has no string), whether that is not the learner's, and
    the share of the draws of T′ that read the slot as T_e′ does."""

    reading: tuple[str, ...] | None
    artifact: bool
    posterior: float


def stands_for(align: Aligner, ss: SlotSentence,
               pairs: Sequence[tuple[Puncteme, Puncteme] | None]) -> list[tuple[str, ...] | None]:
    """The string every slot's u_i under the (l, r) ``pairs`` of the nodes stands for (its
    likeliest rendering by ``align``'s channel,
    :meth:`~fstpunct.apps.rephrase.underlying.Aligner.best`, ∘ left out; None where a member's
    pair is the backoff)."""
    out: list[tuple[str, ...] | None] = []
    for i, members in enumerate(slot_members(ss)):
        if any(pairs[node] is None for node, _ in members):
            out.append(None)
            continue
        u, _ = underlying_slot(i, ss.n, ((node, pairs[node][side])  # type: ignore[index]
                                         for node, side in members))
        out.append(tuple(t for t in align.best(u) if t != BOUNDARY))
    return out


def readings(learner: PunctModel, sentences: Sequence[SlotSentence], draws: int = 200,
             seed: int = 0, first: int = 0) -> list[list[SlotReading]]:
    """Every slot's :class:`SlotReading` of every sentence (all with words) under ``learner``,
    its posterior from ``draws`` (≥ 1) exact draws of T′, sentence k's from the random stream
    (seed, first + k) (:func:`~.draws.learner_draws`), as drawn readings' are, so that a
    sentence's posteriors do not depend on the other sentences of the call (``draws`` and
    ``seed`` checked first)."""
    got = learner_draws(learner, sentences, draws, seed, first)
    if got is None:
        return []
    inference, sampled = got
    align = Aligner(learner.channel)
    out = []
    for ss, best, drawn in zip(sentences, inference.viterbi_all(), sampled):
        viterbi = stands_for(align, ss, best)
        agree = np.zeros(ss.n + 1)
        for pairs in drawn:
            agree += [m == v for m, v in zip(stands_for(align, ss, pairs), viterbi)]
        out.append([SlotReading(v, v != learner.vocab.map_slot(ss.slots[i]), float(a) / draws)
                    for i, (v, a) in enumerate(zip(viterbi, agree))])
    return out
