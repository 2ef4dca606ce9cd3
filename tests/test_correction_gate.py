"""The gate of the correction model's edits: its regression and what it undoes."""
import numpy as np
import pytest

from fstpunct.apps.correction.gate import (
    FEATURES,
    FLOOR,
    THRESHOLD,
    edit_features,
    examples,
    fit,
    gated,
    objective,
    probability,
)
from fstpunct.apps.correction.model import Decoding
from fstpunct.apps.restoration.exact import SlotDistribution
from fstpunct.errors import InputError

SLOT = SlotDistribution(((), (",",), (".",)), ((), (1,), (1,)), np.array([0.5, 0.3, 0.2]))


def test_edit_features_by_hand():
    f = edit_features(SLOT, (), (",",), final=False)
    assert f.shape == (len(FEATURES),)
    assert np.allclose(f, [1, np.log(0.3) - np.log(0.5), np.log(0.5), 1, 0, 0])
    f = edit_features(SLOT, (";",), (), final=True)  # the learner's string is no candidate
    assert np.allclose(f, [1, np.log(0.5) - np.log(FLOOR), np.log(FLOOR), 0, 1, 1])


def test_objective_gradient_matches_finite_differences():
    rng = np.random.default_rng(0)
    x = np.c_[np.ones(30), rng.normal(size=(30, 5))]
    y = (rng.random(30) < 0.4).astype(float)
    w = rng.normal(size=6)
    value, grad = objective(w, x, y, 0.7)
    eps = 1e-6
    numeric = [(objective(w + eps * e, x, y, 0.7)[0] - objective(w - eps * e, x, y, 0.7)[0])
               / (2 * eps) for e in np.eye(6)]
    assert np.allclose(grad, numeric, rtol=1e-5, atol=1e-6)
    # the readable definition: −Σ log p(label) + ½ λ |w without the bias|²
    p = 1 / (1 + np.exp(-(x @ w)))
    readable = -np.sum(y * np.log(p) + (1 - y) * np.log(1 - p)) + 0.35 * np.sum(w[1:] ** 2)
    assert value == pytest.approx(readable)


def test_fit_is_the_minimum_and_learns_the_direction():
    rng = np.random.default_rng(1)
    gain = rng.normal(size=200)
    x = np.c_[np.ones(200), gain, rng.normal(size=(200, 4))]
    y = (rng.random(200) < 1 / (1 + np.exp(-2 * gain))).astype(float)
    w = fit(x, y)
    assert np.abs(objective(w, x, y)[1]).max() < 1e-6
    assert w[1] > 1.0 and np.abs(w[2:]).max() < 0.5
    for k in range(6):  # no coordinate move lowers the objective
        for d in (1e-3, -1e-3):
            assert objective(w + d * np.eye(6)[k], x, y)[0] >= objective(w, x, y)[0]
    # all labels alike: finite coefficients, P(right) near the share
    w0 = fit(x, np.zeros(200))
    assert np.isfinite(w0).all() and probability(w0, x[0]) < 0.05
    with pytest.raises(InputError):
        fit(x[:0], y[:0])


def test_gated_undoes_the_unlikely_edits_and_keeps_pairs_whole():
    w = np.zeros(len(FEATURES))
    w[1] = 1.0  # P(right) = σ(log p(edit) − log p(learner))
    slots = [SlotDistribution(((), (",",)), ((), (1,)), np.array([0.2, 0.8])),
             SlotDistribution(((), (".",)), ((), (2,)), np.array([0.6, 0.4])),
             SlotDistribution(((), ("“",)), ((), (3,)), np.array([0.1, 0.9])),
             SlotDistribution(((), ("”",)), ((), (3,)), np.array([0.7, 0.3])),
             SlotDistribution(((), (".",)), ((), (4,)), np.array([0.1, 0.9]))]
    own = [(), (), (), (), ((".", 4),)]
    proposed = [((",", 1),), ((".", 2),), (("“", 3),), (("”", 3),), ((".", 5),)]
    out = gated(slots, own, proposed, w, [("“", "”")])
    # slot 0: σ(log 4) = 0.8 kept; slot 1: σ(log 2/3) = 0.4 undone; slots 2 and 3 pair:
    # the least, σ(log 3/7) = 0.3, undoes both; slot 4 is no edit (its heads stay proposed)
    assert out == [((",", 1),), (), (), (), ((".", 5),)]
    assert probability(w, edit_features(slots[0], (), (",",), False)) > THRESHOLD
    assert gated(slots, own, proposed, w, []) == [((",", 1),), (), (("“", 3),), (), ((".", 5),)]


def test_decoding_checks_the_gate():
    assert Decoding(0.0, 1e-3, tuple(range(len(FEATURES)))).gate[1] == 1
    with pytest.raises(InputError, match="coefficients"):
        Decoding(0.0, 0.0, (1.0, 2.0))


def test_examples_are_the_proposed_edits_labelled_by_gold():
    slots = [SLOT, SLOT, SLOT]
    own = [(), ((",", 1),), ()]
    proposed = [((",", 1),), ((".", 2),), ()]
    x, y = examples(slots, own, proposed, [(",",), (",",), (".",)])
    assert y == [1.0, 0.0]
    assert np.allclose(x[0], edit_features(SLOT, (), (",",), False))
    assert np.allclose(x[1], edit_features(SLOT, (",",), (".",), False))
