"""The compiled Attach products of a candidate set (fstpunct/model/_attach.pyx), scores and
gradient, against the gathered products they replace: bitwise the same, on random sets and on
en_ewt dev."""
import itertools

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from fstpunct.api import load
from fstpunct.dp.sparse import Csr
from fstpunct.model import _attach
from fstpunct.model.attach import _Group
from fstpunct.ud.release import split_source
from fstpunct.ud.slots import to_slots


@given(st.integers(0, 2**32 - 1), st.integers(0, 6), st.integers(1, 9), st.integers(1, 12))
def test_scores_bitwise_equal_the_gathered_product(seed, rows, contexts, pairs):
    rng = np.random.default_rng(seed)
    scores = rng.normal(size=(contexts + 3, pairs)) * 10.0 ** rng.integers(-3, 4)
    used = np.sort(rng.choice(contexts + 3, size=contexts, replace=False)).astype(np.intp)
    candidates = np.sort(rng.choice(pairs, size=rng.integers(1, pairs + 1), replace=False))
    dense = rng.random((rows, contexts)) < 0.5
    x = Csr.of(rows, contexts, *np.nonzero(dense), np.ones(int(dense.sum())))
    group = _Group("k", candidates.astype(np.int64), np.arange(rows), used, x, np.arange(rows))
    assert group.scores(scores).tobytes() == group.scores_reference(scores).tobytes()
    p = rng.normal(size=(rows, len(candidates))) * 10.0 ** rng.integers(-3, 4)
    compiled, reference = scores.copy(), scores.copy()
    group.add_gradient(p, compiled)
    group.add_gradient_reference(p, reference)
    assert compiled.tobytes() == reference.tobytes()


@pytest.mark.parametrize("lang", ["en"])
def test_scores_bitwise_on_dev(lang):
    model = load(lang).punct
    sentences = [to_slots(s) for s in itertools.islice(split_source(lang, "dev").sentences(),
                                                       600)]
    compiled, reference = np.zeros_like(model.pair_scores), np.zeros_like(model.pair_scores)
    for group in model.prepare(sentences).data.groups:
        scores = group.scores(model.pair_scores)
        assert scores.tobytes() == group.scores_reference(model.pair_scores).tobytes()
        group.add_gradient(scores, compiled)  # the scores as a stand-in gradient: any will do
        group.add_gradient_reference(scores, reference)
        assert compiled.tobytes() == reference.tobytes()


@pytest.mark.parametrize("product", [_attach.gathered_matmul, _attach.scattered_matmul_t])
def test_products_refuse_a_block_of_another_shape(product):
    with pytest.raises(ValueError):
        product(np.array([0, 1], dtype=np.intp), np.zeros(1, dtype=np.int32), np.ones(1),
                np.zeros(1, dtype=np.intp), np.zeros(2, dtype=np.intp), np.ones((1, 3)),
                np.zeros((1, 3)))
