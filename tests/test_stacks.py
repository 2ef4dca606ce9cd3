"""Sparse matrix stacks against dense ones, in both semirings."""
import numpy as np
import pytest

from fstpunct.dp.semiring import MaxProduct, SumProduct
from fstpunct.dp.stacks import DenseStack, SparseStack


@pytest.mark.parametrize("semiring", [SumProduct, MaxProduct])
@pytest.mark.parametrize("seed", range(5))
def test_sparse_stack_equals_dense(semiring, seed):
    rng = np.random.default_rng(seed)
    n = int(rng.integers(1, 40))
    mats = rng.uniform(0.1, 1.0, (7, n, n)) * (rng.random((7, n, n)) < rng.uniform(0.02, 0.6))
    mats[0] = 0.0  # an empty matrix, and rows of every length up to n (long ones padded)
    x = rng.uniform(0.0, 1.0, n)
    dense, sparse = DenseStack(mats), SparseStack.of(mats)
    assert len(sparse) == 7 and sparse.size == n
    np.testing.assert_allclose(sparse.apply(x, semiring), dense.apply(x, semiring), rtol=1e-12)
    np.testing.assert_allclose(sparse.apply_t(x, semiring), dense.apply_t(x, semiring),
                               rtol=1e-12)
    np.testing.assert_array_equal(sparse.nonzero, mats.any(axis=(1, 2)))
    for a in range(7):
        np.testing.assert_array_equal(sparse.matrix(a), mats[a])
        np.testing.assert_array_equal(sparse.row(a, n - 1), mats[a, n - 1])
        np.testing.assert_array_equal(sparse.column(a, 0), mats[a, :, 0])
