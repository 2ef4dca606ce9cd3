"""The Platt map of the learner string's probability: its features, the mapped distribution,
its fit, and decoding with it."""
import numpy as np
import pytest

from fstpunct.apps.correction.correct import decided
from fstpunct.apps.correction.gate import FEATURES, objective
from fstpunct.apps.correction.model import CorrectionModel, Decoding
from fstpunct.apps.correction.platt import (
    CLASSES,
    FLOOR,
    PLATT_SIZE,
    examples,
    features,
    fitted,
    mapped,
    mark_class,
)
from fstpunct.apps.restoration.exact import SlotDistribution
from fstpunct.errors import InputError

# the learner wrote "," (p 0.3); the corrector prefers "." (0.6); 0.1 for nothing
SLOT = SlotDistribution(((".",), (",",), ()), ((1,), (1,), ()), np.array([0.6, 0.3, 0.1]))
COMMA = ((",", 1),)


def logit(p):
    return np.log(p / (1 - p))


def test_mark_classes():
    assert [CLASSES[mark_class(y)] for y in ((), (",",), (".",), (",", "."), ("?",),
                                              (".", "”"), ("(",))] == [
        "none", "comma or period", "comma or period", "comma or period", "other", "other",
        "other"]


def test_features_by_hand():
    assert np.allclose(features(0.3, (",",)), [1, 1, 0, 0, logit(0.3), 0])
    assert np.allclose(features(0.2, ("”",)), [1, 0, 1, 0, 0, logit(0.2)])
    assert np.allclose(features(0.9, ()), [1, 0, 0, logit(0.9), 0, 0])
    assert np.allclose(features(0.0, ()), [1, 0, 0, logit(FLOOR), 0, 0])  # floored
    assert len(features(0.3, (",",))) == PLATT_SIZE  # a Platt map's number of coefficients


def test_the_zero_map_is_the_identity():
    same = mapped(SLOT, COMMA, (0.0,) * 6)
    assert np.allclose(same.probs, SLOT.probs)
    assert mapped(SLOT, COMMA, ()) is SLOT


def test_mapped_by_hand():
    # comma-or-period class: logit p' = logit p + w0 + w1 + w4 · logit p
    w = (0.5, 0.25, 9.0, 9.0, -0.5, 9.0)
    q = 1 / (1 + np.exp(-(logit(0.3) + 0.75 - 0.5 * logit(0.3))))
    out = mapped(SLOT, COMMA, w)
    assert out.strings == SLOT.strings and out.heads == SLOT.heads
    assert out.prob((",",)) == pytest.approx(q)
    # the others share the rest in their old proportions
    assert out.prob((".",)) == pytest.approx(0.6 * (1 - q) / 0.7)
    assert out.prob(()) == pytest.approx(0.1 * (1 - q) / 0.7)
    assert out.probs.sum() == pytest.approx(1.0)
    assert np.allclose(SLOT.probs, [0.6, 0.3, 0.1])  # the slot given is not changed


def test_mapped_leaves_alone_what_it_cannot_change():
    w = (3.0,) * 6
    assert mapped(SLOT, COMMA, w, support=0.5) is SLOT  # below the support: kept anyway
    assert mapped(SLOT, ((";", 1),), w) is SLOT          # no candidate
    sure = SlotDistribution(((",",), ()), ((1,), ()), np.array([1 - FLOOR / 2, FLOOR / 2]))
    assert mapped(sure, COMMA, w) is sure
    doubted = SlotDistribution(((",",), ()), ((1,), ()), np.array([FLOOR / 2, 1 - FLOOR / 2]))
    for v in (w, (0.0,) * 6):  # below the floor: left alone, so the zero map is the identity
        assert mapped(doubted, COMMA, v) is doubted
    assert examples([doubted, sure], [COMMA, COMMA], [(",",), (",",)]) == ([], [], [])


def test_examples_label_whether_the_learner_string_was_kept():
    slots = [SLOT, SLOT, SLOT]
    own = [COMMA, ((";", 1),), ()]
    x, offset, y = examples(slots, own, [(".",), (",",), ()])
    assert len(x) == 2  # ";" is no candidate: left out
    assert np.allclose(x[0], features(0.3, (",",))) and y[0] == 0.0
    assert np.allclose(x[1], features(0.1, ())) and y[1] == 1.0
    assert offset == pytest.approx([logit(0.3), logit(0.1)])
    assert examples(slots, own, [(".",), (",",), ()], support=0.2)[2] == [0.0]
    with pytest.raises(ValueError):  # one gold string per slot
        examples(slots, own, [(".",)])


def test_objective_with_an_offset_by_hand():
    rng = np.random.default_rng(3)
    x, y, offset = rng.normal(size=(20, 3)), (rng.random(20) < 0.5) * 1.0, rng.normal(size=20)
    w = rng.normal(size=3)
    value, grad = objective(w, x, y, 0.5, offset)
    p = 1 / (1 + np.exp(-(x @ w + offset)))
    assert value == pytest.approx(-np.sum(y * np.log(p) + (1 - y) * np.log(1 - p))
                                  + 0.25 * np.sum(w[1:] ** 2))
    eps = 1e-6
    numeric = [(objective(w + eps * e, x, y, 0.5, offset)[0]
                - objective(w - eps * e, x, y, 0.5, offset)[0]) / (2 * eps) for e in np.eye(3)]
    assert np.allclose(grad, numeric, rtol=1e-5, atol=1e-6)


def test_fitted_recovers_an_overconfident_class():
    """Slots whose learner string is "other" are kept far more often than p says (the true
    map: logit p' = 0.3 logit p + 2); comma slots are calibrated (identity)."""
    rng = np.random.default_rng(7)
    x, offset, y = [], [], []
    for own, true in (((",",), lambda z: z), (("”",), lambda z: 0.3 * z + 2.0)):
        for p in rng.uniform(0.02, 0.98, size=4000):
            z = logit(p)
            x.append(features(p, own))
            offset.append(z)
            y.append(float(rng.random() < 1 / (1 + np.exp(-true(z)))))
    x.append(features(0.5, ()))  # (one empty slot: the class's parameters stay near 0)
    offset.append(0.0)
    y.append(1.0)
    w = fitted(x, offset, y)
    assert len(w) == 6
    comma = SlotDistribution(((",",), (".",)), ((1,), (1,)), np.array([0.2, 0.8]))
    quote = SlotDistribution((("”",), ()), ((1,), ()), np.array([0.2, 0.8]))
    assert mapped(comma, COMMA, w).prob((",",)) == pytest.approx(0.2, abs=0.04)
    expected = 1 / (1 + np.exp(-(0.3 * logit(0.2) + 2.0)))  # 0.79
    assert mapped(quote, (("”", 1),), w).prob(("”",)) == pytest.approx(expected, abs=0.05)
    with pytest.raises(InputError):
        fitted([], [], [])


def test_decoding_with_a_map_keeps_the_learner_string(hand_corrector):
    # plain MBR edits "," to "."; a map that trusts commas (p' near 1) keeps it
    slots, own = [SLOT], [COMMA]
    assert decided(hand_corrector, slots, own, Decoding(decoder="slot")) == [((".", 1),)]
    trusting = (0.0, 6.0, 0.0, 0.0, 0.0, 0.0)
    assert decided(hand_corrector, slots, own, Decoding(platt=trusting, decoder="slot")) == [COMMA]
    # below the support the learner string is kept whatever the map says
    doubting = (0.0, -6.0, 0.0, 0.0, 0.0, 0.0)
    assert decided(hand_corrector, slots, own,
                   Decoding(0.0, 0.5, platt=doubting, decoder="slot")) == [COMMA]
    assert decided(hand_corrector, slots, own,
                   Decoding(0.0, 0.0, platt=doubting, decoder="slot")) == [((".", 1),)]


def test_the_map_is_stored_with_the_decoding(hand_corrector, tmp_path):
    w = (0.1, 0.2, 0.3, 0.4, 0.5, 0.6)
    hand_corrector.decoded_with(Decoding(0.25, 0.001, platt=w)).save(tmp_path / "m")
    loaded = CorrectionModel.load(tmp_path / "m")
    assert loaded.decoding == Decoding(0.25, 0.001, platt=w)
    assert loaded.decoding_for(parsed=True).platt == w  # the gold trees' one
    with pytest.raises(InputError,
                       match=rf"^a Platt map must have {PLATT_SIZE} coefficients, not 5$"):
        Decoding(platt=(1.0,) * 5)
    with pytest.raises(InputError, match="a gate or a Platt map, not both"):
        Decoding(gate=(0.0,) * len(FEATURES), platt=w)

