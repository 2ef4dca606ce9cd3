"""The compiled Attach products of a candidate set (fstpunct/model/_attach.pyx), scores and the
M-step's fused softmax and gradient, against the numpy products they replace: bitwise the same,
on random sets and on en_ewt dev (the exponential bitwise where numpy's is libm's, as here; else
to a few units in the last place)."""
import itertools

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from libm_exp import same

from fstpunct.api import load
from fstpunct.dp.sparse import Csr
from fstpunct.model import _attach
from fstpunct.model.attach import _Group
from fstpunct.ud.release import split_source
from fstpunct.ud.slots import to_slots


def _check_group(group, scores, targets) -> None:
    """Every compiled product of ``group`` against its reference, bitwise."""
    assert group.scores(scores).tobytes() == group.scores_reference(scores).tobytes()
    x = group.contexts
    prefixed = np.empty((x.n_rows, len(group.candidates)))
    _attach.prefix_matmul(x.indptr, x.indices, x.data, *group.prefixes, group.used,
                          group.candidates, scores, prefixed)
    assert prefixed.tobytes() == group.scores_reference(scores).tobytes()
    mass = targets.sum(axis=1)
    compiled, reference = scores.copy(), scores.copy()
    value = group.fit_term(scores, targets, mass, compiled)
    same(value, group.fit_term_reference(scores, targets, mass, reference))
    same(compiled, reference)


@given(st.integers(0, 2**32 - 1), st.integers(1, 7), st.integers(1, 9), st.integers(1, 12))
def test_products_bitwise_equal_numpy(seed, rows, contexts, pairs):
    rng = np.random.default_rng(seed)
    scores = rng.normal(size=(contexts + 3, pairs)) * 10.0 ** rng.integers(-3, 4)
    used = np.sort(rng.choice(contexts + 3, size=contexts, replace=False)).astype(np.intp)
    candidates = np.sort(rng.choice(pairs, size=rng.integers(1, pairs + 1), replace=False))
    # rows sharing prefixes (and an empty row, and rows that are prefixes of others)
    dense = rng.random((rows, contexts)) < rng.choice([0.2, 0.5, 0.9])
    dense[rng.random(rows) < 0.3, :contexts // 2] = True
    x = Csr.of(rows, contexts, *np.nonzero(dense), rng.choice([1.0, 0.5, -2.0],
                                                              size=int(dense.sum())))
    group = _Group("k", candidates.astype(np.int64), np.arange(rows), used, x, np.arange(rows))
    targets = rng.random((rows, len(candidates))) * (rng.random((rows, 1)) < 0.8)
    _check_group(group, scores, targets)


def test_prefixes_share_common_first_entries():
    x = Csr.of(4, 4, np.array([0, 0, 0, 1, 1, 2, 2, 2]), np.array([0, 1, 2, 0, 1, 0, 1, 3]),
               np.ones(8))  # rows {0,1,2}, {0,1}, {0,1,3}, {}
    group = _Group("k", np.arange(2), np.arange(4), np.arange(4, dtype=np.intp), x, np.arange(4))
    order, shared = group.prefixes
    assert order.tolist() == [3, 1, 0, 2] and shared.tolist() == [0, 0, 2, 2]


@pytest.mark.parametrize("lang", ["en"])
def test_products_bitwise_on_dev(lang):
    model = load(lang).punct
    sentences = [to_slots(s) for s in itertools.islice(split_source(lang, "dev").sentences(),
                                                       600)]
    rng = np.random.default_rng(0)
    for group in model.prepare(sentences).data.groups:
        targets = rng.random((group.contexts.n_rows, len(group.candidates)))
        _check_group(group, model.pair_scores, targets)


@pytest.mark.parametrize("product", [_attach.gathered_matmul, _attach.prefix_matmul])
def test_products_refuse_a_block_of_another_shape(product):
    order = () if product is _attach.gathered_matmul else (np.zeros(1, dtype=np.intp),) * 2
    with pytest.raises(ValueError):
        product(np.array([0, 1], dtype=np.intp), np.zeros(1, dtype=np.int32), np.ones(1),
                *order, np.zeros(1, dtype=np.intp), np.zeros(2, dtype=np.intp), np.ones((1, 3)),
                np.zeros((1, 3)))


def test_softmax_gradient_refuses_mismatched_rows():
    one = np.ones((1, 2))
    with pytest.raises(ValueError):
        _attach.softmax_gradient(one, np.ones((2, 2)), np.ones(1), np.array([0, 1], np.intp),
                                 np.zeros(1, np.int32), np.ones(1), np.zeros(1, np.intp),
                                 np.arange(2, dtype=np.intp), np.zeros((1, 2)), np.empty(1),
                                 np.empty(1))
