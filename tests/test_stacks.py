"""Sparse matrix stacks against dense ones, in both semirings."""
import numpy as np
import pytest

from fstpunct.dp import _sparse
from fstpunct.dp.chains import ChainShape, strings
from fstpunct.dp.semiring import MaxProduct, SumProduct
from fstpunct.dp.stacks import STATES, DenseStack, SparseStack, merged


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
    assert sparse.dense().tobytes() == mats.tobytes()
    assert all(sparse.dense(a).tobytes() == mats[a:].tobytes() for a in range(8))
    for a in range(7):
        np.testing.assert_array_equal(sparse.matrix(a), mats[a])
        np.testing.assert_array_equal(sparse.row(a, n - 1), mats[a, n - 1])
        np.testing.assert_array_equal(sparse.column(a, 0), mats[a, :, 0])


@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("transposed", [False, True])
@pytest.mark.parametrize("flipped", [False, True])
def test_merged_stacks_hold_both_families_matrices(seed, transposed, flipped):
    """merged: each matrix is old's or new's (new has fewer matrices), the index arrays and
    every value as they were, in the rows and (carried over when old's were built, else built
    later) in the transposes; the values of every stack of the families follow, in the order
    the stacks are given (``flipped``: not their families' order)."""
    rng = np.random.default_rng(seed)
    n, count = int(rng.integers(1, 9)), 6
    mats = rng.uniform(0.1, 1.0, (2, count, n, n)) * (rng.random((2, count, n, n)) < 0.5)
    mine = rng.random(count) < 0.5  # the matrices new gives (0 in old)
    mine[count - 1] = False  # beyond new's matrices
    old = SparseStack.family(count, n, *_rows(np.where(mine[None, :, None, None], 0.0, mats)))
    new = SparseStack.family(count - 1, n,
                             *_rows(np.where(mine[None, :-1, None, None], mats[:, :-1], 0.0)))
    if transposed:
        old[1].columns  # noqa: B018 (builds the family's transposes)
    order = [1, 0] if flipped else [0, 1]
    both = merged([old[k] for k in order], [new[k] for k in order])
    wholes = SparseStack.family(count, n, *_rows(mats))  # stored as one family from the start
    for k, stack in zip(order, both):
        assert len(stack) == count
        whole = wholes[k]
        for a in range(count):
            np.testing.assert_array_equal(stack.matrix(a), mats[k, a])
        for mine_, theirs in ((stack.rows, whole.rows), (stack.columns, whole.columns)):
            for part in ("indptr", "indices", "data"):
                np.testing.assert_array_equal(getattr(mine_, part), getattr(theirs, part))
        for mine_, theirs in zip(stack.transposes, whole.transposes):  # the permutation too
            assert mine_.dtype == theirs.dtype and mine_.tolist() == theirs.tolist()
        x = rng.uniform(0, 1, n)
        for semiring in (SumProduct, MaxProduct):
            np.testing.assert_array_equal(stack.apply_t(x, semiring),
                                          whole.apply_t(x, semiring))


@pytest.mark.parametrize("rows", [False, True])
def test_merged_refuses_a_matrix_in_both(rows):
    """Whole matrices in both, or a matrix with some rows in one family and some in the other
    (its transposes' lines would not be the concatenation of theirs)."""
    mats = np.ones((1, 2, 3, 3))
    old, new = mats.copy(), mats.copy()
    if rows:
        old[:, :, 1:], new[:, :, :1] = 0.0, 0.0
    with pytest.raises(ValueError, match="nonzero in both"):
        merged(SparseStack.family(2, 3, *_rows(old)), SparseStack.family(2, 3, *_rows(new)))


def _rows(mats: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """CSR rows (row a·N + s is M_a[s, :]) of stacks (K, A, N, N) of one structure: the union
    of their nonzeros, an explicit 0 where one of them has none."""
    k, a, n, _ = mats.shape
    flat = mats.reshape(k, a * n, n)
    r, c = np.nonzero(flat.any(axis=0))
    ptr = np.searchsorted(r, np.arange(a * n + 1))
    return ptr.astype(np.intp), c.astype(np.int32), flat[:, r, c]


@pytest.mark.parametrize("seed", range(8))
def test_transposes_are_the_matrices_transposed_row_by_row(seed):
    """_sparse.transpose against numpy: row a·n + t holds M_a[:, t]'s nonzeros, rows ascending,
    as a permutation of the rows' entries that gives every value set of the family its
    transposes (empty matrices, rows and columns included; one state; no entry at all)."""
    rng = np.random.default_rng(seed)
    count, n = int(rng.integers(1, 6)), [1, 1, 2][seed] if seed < 3 else int(rng.integers(1, 30))
    mats = rng.uniform(0.1, 1.0, (count, n, n)) * (rng.random((count, n, n)) < 0.2)
    mats[0] = 0.0
    if seed == 0:
        mats[:] = 0.0
    rows = SparseStack.of(mats).rows
    values = np.vstack([rows.data, -rows.data])
    tptr, tcol, perm = _sparse.transpose(n, rows.indptr, rows.indices)
    a, t, s = np.nonzero(mats.transpose(0, 2, 1))  # in order of (a, t, s)
    assert tptr.tolist() == np.searchsorted(a * n + t, np.arange(count * n + 1)).tolist()
    assert tcol.dtype == np.uint16 and perm.dtype == np.int32 and tcol.tolist() == s.tolist()
    assert sorted(perm.tolist()) == list(range(len(rows.data)))  # a permutation
    assert values[:, perm].tobytes() == np.vstack([mats[a, s, t], -mats[a, s, t]]).tobytes()
    for k in range(count):
        np.testing.assert_array_equal(  # column by column, as the dense transposes
            [SparseStack.of(mats).column(k, c) for c in range(n)], mats[k].T)


def test_stacks_hold_states_as_uint16_up_to_their_limit():
    """A stack's column indices and its transposes' row indices are uint16: N = STATES works
    to its last state (products and transposes, in both semirings); more states are refused
    by the stacks, the string products, the lattices' arcs and the token chains."""
    n, last = STATES, STATES - 1
    stack = SparseStack(2, n, np.array([0, 0, 1]), np.array([last, 0, last]),
                        np.array([last, 3, 0]), np.array([2.0, 3.0, 5.0]))
    tptr, tcol, perm = stack.transposes
    assert stack.rows.indices.dtype == tcol.dtype == np.uint16
    assert stack.rows.indices.tolist() == [3, last, 0] and tcol.tolist() == [0, last, last]
    x = np.zeros(n)
    x[[0, 3, last]] = 7.0, 11.0, 13.0
    for semiring in (SumProduct, MaxProduct):
        out, out_t = stack.apply(x, semiring), stack.apply_t(x, semiring)
        assert out[0, last] == 26.0 and out[0, 0] == 33.0 and out[1, last] == 35.0
        assert out_t[0, last] == 26.0 and out_t[0, 3] == 21.0 and out_t[1, 0] == 65.0
        assert np.count_nonzero(out) == np.count_nonzero(out_t) == 3
    assert _sparse.check_states(n, "x") == 0
    with pytest.raises(ValueError, match=f"x: {n + 1} states; at most {n} "):
        _sparse.check_states(n + 1, "x")
    with pytest.raises(ValueError, match="states"):
        SparseStack(1, n + 1, np.array([0]), np.array([0]), np.array([n]), np.array([1.0]))
    with pytest.raises(ValueError, match="states"):
        _sparse.string_products(n + 1, np.zeros(1, dtype=np.intp), np.zeros(0, dtype=np.intp),
                                np.zeros((1, 0)), np.array([0, 1]), np.zeros(1, dtype=np.intp),
                                np.zeros(1, dtype=np.intp), np.zeros(0, dtype=np.intp),
                                np.zeros(1, dtype=np.uint8), np.zeros(0, dtype=np.intp), 0,
                                np.zeros((0, 1, 0, 0)))
    one = np.zeros(1, dtype=np.intp)
    with pytest.raises(ValueError, match="states"):
        _sparse.combine_arcs(n + 1, one, one, one, np.ones(1), np.zeros(1, dtype=np.uint8))
    with pytest.raises(ValueError, match="token"):
        _sparse.combine_arcs(2, one + STATES, one, one, np.ones(1), np.zeros(1, dtype=np.uint8))
    for src, dst in ((one, one + 2), (one - 1, one), (one + 2, one)):  # states outside 0..n-1
        with pytest.raises(ValueError, match="arc 0 from"):
            _sparse.combine_arcs(2, one, src, dst, np.ones(1), np.zeros(1, dtype=np.uint8))
    with pytest.raises(ValueError, match="states"):
        ChainShape(n + 1, one, one, one, strings([(0,)]))
