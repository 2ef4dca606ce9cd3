"""The Attach probabilities compiled (fstpunct/model/_punct.pyx ``softmax_rows``) against the
numpy softmax and scatter they replace (``probabilities_reference``): bitwise the same on random
candidate sets (rows of fewer and more than 8 candidates, numpy's two ways of summing) and on
en_ewt dev with the bundled model (bitwise where numpy's exponential is libm's; else, as on
this machine, to 1e-13: tests/libm_exp.py)."""
import itertools

import numpy as np
import pytest
from conftest import treebank
from fstpunct.dp._sparse import exponentials
from fstpunct.model._punct import softmax_rows
from hypothesis import given
from hypothesis import strategies as st
from libm_exp import same

from fstpunct.api import load
from fstpunct.model.attach import _softmax, probabilities, probabilities_reference
from fstpunct.ud.slots import to_slots


@given(st.integers(0, 2**32 - 1), st.integers(1, 6), st.integers(1, 300), st.integers(0, 9))
def test_softmax_rows_bitwise_numpy(seed, rows, width, nodes):
    rng = np.random.default_rng(seed)
    scores = rng.normal(size=(rows, width)) * 10.0 ** rng.integers(-3, 4)
    scores[rng.random((rows, width)) < 0.2] = 0.0  # ties at the maximum, zeros
    inverse = rng.integers(0, rows, size=nodes).astype(np.intp)
    starts = rng.permutation(nodes).astype(np.intp) * width  # nodes' rows in any order
    out = np.full(nodes * width, np.nan)
    _, p = _softmax(scores.copy())
    softmax_rows(scores, inverse, starts, out)
    same(scores, p)  # in place
    expect = np.full_like(out, np.nan)
    for j in range(nodes):
        expect[starts[j]:starts[j] + width] = p[inverse[j]]
    same(out, expect)


@given(st.integers(0, 2**32 - 1), st.integers(1, 6), st.integers(1, 300), st.integers(0, 9))
def test_softmax_rows_through_the_m_steps_exponential(seed, rows, width, nodes):
    """Without ``libm`` (decode's): each row bitwise exp(S − max) by the M-step's exponential
    (:func:`~fstpunct.dp._sparse.exponentials`) over numpy's sum of it, and within 1e-14
    (relative) of numpy's softmax and of the libm path's."""
    rng = np.random.default_rng(seed)
    scores = rng.normal(size=(rows, width)) * 10.0 ** rng.integers(-3, 4)
    scores[rng.random((rows, width)) < 0.2] = 0.0
    inverse = rng.integers(0, rows, size=nodes).astype(np.intp)
    starts = rng.permutation(nodes).astype(np.intp) * width
    out = np.full(nodes * width, np.nan)
    expect = np.empty_like(scores)
    for row, terms in zip(scores, expect):
        exponentials(row - row.max(), terms)
        terms /= terms.sum()
    _, p = _softmax(scores.copy())
    with_libm = scores.copy()
    softmax_rows(with_libm, inverse, starts, np.empty_like(out))
    softmax_rows(scores, inverse, starts, out, libm=False)
    assert scores.tobytes() == expect.tobytes()
    np.testing.assert_allclose(scores, p, rtol=1e-14, atol=1e-300)
    np.testing.assert_allclose(scores, with_libm, rtol=1e-14, atol=1e-300)
    assert all(out[a:a + width].tobytes() == expect[i].tobytes()
               for i, a in zip(inverse, starts))


def test_softmax_rows_refuses_indices_out_of_range():
    scores = np.zeros((2, 3))
    for inverse, starts in ([2], [0]), ([0], [4]), ([0], [-1]), ([0, 1], [0]):
        with pytest.raises(ValueError):
            softmax_rows(scores, np.array(inverse, dtype=np.intp),
                         np.array(starts, dtype=np.intp), np.zeros(6))


def test_probabilities_bitwise_reference_on_dev():
    model = load("en").punct
    sentences = [to_slots(s) for s in itertools.islice(treebank("en", "dev").sentences(),
                                                       800)]
    data = model.prepare(sentences).data
    compiled = probabilities(model.theta, data, model.pair_scores)
    same(compiled, probabilities_reference(model.theta, data, model.pair_scores))
    assert np.allclose(np.add.reduceat(compiled, data.node_offsets[:-1]), 1.0)
