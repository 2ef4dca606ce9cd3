"""The CRF corrector and the correction model combined per slot: hand-computed distributions,
and the fit against its likelihood on synthetic slots."""
import math

import numpy as np
import pytest

from fstpunct.apps.correction.combine import FLOOR, Combination, fit, slot_candidates
from fstpunct.apps.restoration.exact import SlotDistribution

GEN = SlotDistribution(((), (",",)), ((), (2,)), np.array([0.2, 0.8]))
CRF = {(): 0.5, (",",): 0.25, (".",): 0.25}


def test_slot_candidates_floor_and_heads():
    strings, heads, logs = slot_candidates(CRF, GEN, 3)
    assert strings == [(), (",",), (".",)] and heads == [(), (2,), (3,)]
    assert np.allclose(np.exp(logs), [[0.5, 0.2], [0.25, 0.8], [0.25, FLOOR]])


def test_combined_distribution_by_hand():
    own = ()  # the learner wrote nothing
    q = Combination(1.0, 1.0, 0.0).slot(CRF, GEN, own, 3)
    z = 0.5 * 0.2 + 0.25 * 0.8 + 0.25 * FLOOR
    assert q.strings == ((), (",",), (".",))
    assert np.allclose(q.probs, [0.1 / z, 0.2 / z, 0.25 * FLOOR / z])
    kept = Combination(1.0, 1.0, math.log(2.0)).slot(CRF, GEN, own, 3)  # keeping x2
    z = 0.2 + 0.2 + 0.25 * FLOOR
    assert np.allclose(kept.probs, [0.2 / z, 0.2 / z, 0.25 * FLOOR / z])
    # a learner string that is no candidate: both probabilities at the floor, heads its own
    odd = Combination(0.0, 0.0, math.log(3.0)).slot(CRF, GEN, ((";", 1),), 3)
    assert odd.strings[-1] == (";",) and odd.heads[-1] == (1,)
    assert np.allclose(odd.probs, [1 / 6, 1 / 6, 1 / 6, 3 / 6])


def test_sentence_keeps_what_the_correction_model_cannot_explain():
    quote = (("“", 1),)
    q = Combination().sentence([CRF, CRF], [GEN, GEN], [quote, ()], support=1e-3)
    assert q[0].strings == (("“",),) and q[0].heads == ((1,),) and q[0].probs.tolist() == [1.0]
    assert q[1].strings == ((), (",",), (".",))


def _log_likelihood(c: Combination, slots) -> float:
    total = 0.0
    for crf, gen, own, gold in slots:
        q = c.slot(crf, gen, own, 1)
        total += math.log(q.probs[q.strings.index(gold)])
    return total


def test_fit_finds_the_maximum_likelihood_weights():
    rng = np.random.default_rng(0)
    truth = Combination(1.5, 0.5, 1.0)
    strings = [(), (",",), (".",)]
    slots = []
    for _ in range(600):
        crf = dict(zip(strings, rng.dirichlet(np.ones(3))))
        gen = SlotDistribution(tuple(strings), ((), (1,), (1,)), rng.dirichlet(np.ones(3)))
        own = tuple((t, 1) for t in strings[rng.integers(3)])
        q = truth.slot(crf, gen, own, 1)
        slots.append((crf, gen, own, q.strings[rng.choice(len(q.probs), p=q.probs)]))
    slots.append((CRF, GEN, (), (";",)))  # no candidate: left out and counted
    fitted, missed = fit(slots, l2=0.0)
    assert missed == 1
    assert np.allclose(fitted.weights, truth.weights, atol=0.35)
    best = _log_likelihood(fitted, slots[:-1])
    for k in range(3):  # no nearby point is more likely (brute force around the optimum)
        for step in (-0.02, 0.02):
            w = fitted.weights.copy()
            w[k] += step
            assert _log_likelihood(Combination(*w), slots[:-1]) <= best + 1e-6
    with pytest.raises(Exception, match="two candidates"):
        fit([(CRF, GEN, (), (";",))])
