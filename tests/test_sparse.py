"""sparse.Csr against scipy.sparse: the same matrices, and bitwise the same products; the
M-step's exponential against libm's and the exact value."""
import math

import numpy as np
import pytest
import scipy.sparse as sp

from fstpunct.dp import _sparse
from fstpunct.dp.sparse import Csr, unique_ids


@pytest.mark.parametrize("seed", range(5))
def test_matmul_is_bitwise_scipys(seed):
    rng = np.random.default_rng(seed)
    rows, cols = 40, 30
    dense = np.where(rng.random((rows, cols)) < 0.2, rng.choice([1.0, rng.normal()], (rows, cols)),
                     0.0)
    dense[3] = 0.0  # an empty row
    r, c = np.nonzero(dense)
    m = Csr.of(rows, cols, r, c, dense[r, c])
    other = rng.normal(size=(cols, 7)) * 10.0 ** rng.integers(-8, 8, (cols, 7))
    expected = sp.csr_matrix(dense) @ other
    assert np.array_equal(m.matmul(other), expected)
    assert np.array_equal(m.matmul(np.asfortranarray(other)), expected)
    assert (m.scipy() != sp.csr_matrix(dense)).nnz == 0
    x = other[:, 0]
    assert np.array_equal(m.matvec(x), sp.csr_matrix(dense) @ x)
    left = rng.normal(size=(5, rows))
    left[1, ::2] = 0.0
    assert np.array_equal(m.rmatmul_t(other.T), expected.T)  # the same sums, transposed
    assert np.allclose(m.rmatmul(left), left @ dense, rtol=1e-12, atol=0)
    for product, arg in ((m.rmatmul, left), (m.rmatmul_t, other.T)):  # into a given array
        out = np.full(product(arg).shape, np.nan)
        assert product(arg, out=out) is out and out.tobytes() == product(arg).tobytes()
    nonnegative = Csr.of(rows, cols, r, c, np.abs(dense[r, c]))  # the max-times semiring's
    assert np.array_equal(nonnegative.matvec(np.abs(x), maximum=True),
                          np.max(np.abs(dense) * np.abs(x), axis=1, initial=0.0))
    # a stack's row pointers (int32) and states (uint16 column indices): the same products
    ptr32, col16 = m.indptr.astype(np.int32), m.indices.astype(np.uint16)
    for narrow in (m._replace(indptr=ptr32), m._replace(indices=col16),
                   m._replace(indptr=ptr32, indices=col16)):
        assert narrow.matvec(x).tobytes() == m.matvec(x).tobytes()
        assert narrow.matvec(np.abs(x), maximum=True).tobytes() == \
            m.matvec(np.abs(x), maximum=True).tobytes()
        assert narrow.rmatmul_t(other.T).tobytes() == m.rmatmul_t(other.T).tobytes()
        assert narrow.row(5).tobytes() == m.row(5).tobytes()


@pytest.mark.parametrize("rows", range(10))
def test_rmatmul_t_in_blocks_of_four_rows_is_bitwise_scipys(rows):
    """dense · Aᵀ four rows of ``dense`` at a time, then the rest one by one: every row
    bitwise scipy's A · row, whatever the number of rows."""
    rng = np.random.default_rng(rows)
    a = np.where(rng.random((23, 17)) < 0.3, rng.normal(size=(23, 17)), 0.0)
    a[[2, 9]] = 0.0  # empty rows
    r, c = np.nonzero(a)
    m = Csr.of(23, 17, r, c, a[r, c])
    dense = rng.normal(size=(rows, 17)) * 10.0 ** rng.integers(-8, 8, (rows, 17))
    expected = np.array([sp.csr_matrix(a) @ row for row in dense]).reshape(rows, 23)
    assert m.rmatmul_t(dense).tobytes() == expected.tobytes()


@pytest.mark.parametrize("seed", range(5))
def test_rmatmul_t_of_the_transpose_is_rmatmul_bitwise(seed):
    """Aᵀ's rows hold A's columns in the order of A's rows, so dense · A through
    ``transpose().rmatmul_t`` (every term, zeros of ``dense`` included) has the bits of
    ``rmatmul`` (zeros skipped), also where products underflow to ±0 and at −0.0."""
    rng = np.random.default_rng(seed)
    a = np.where(rng.random((31, 19)) < 0.3,
                 rng.normal(size=(31, 19)) * 10.0 ** rng.integers(-8, 8, (31, 19)), 0.0)
    a[4], a[:, 6] = 0.0, 0.0  # an empty row and an empty column
    a[0, 0], a[1, 1] = 1e-300, -1e-300
    r, c = np.nonzero(a)
    m = Csr.of(31, 19, r, c, a[r, c])
    t = m.transpose()
    assert (t.scipy() != sp.csr_matrix(a).T).nnz == 0 and t.n_cols == 31
    dense = rng.normal(size=(9, 31)) * 10.0 ** rng.integers(-8, 8, (9, 31))
    dense[rng.random((9, 31)) < 0.5] = 0.0
    dense[0, 3], dense[1, :2], dense[2, 0] = -0.0, [1e-300, -1e-300], -1e-30
    assert t.rmatmul_t(dense).tobytes() == m.rmatmul(dense).tobytes()


@pytest.mark.parametrize("dense, out", [((5, 16), None), ((5, 18), None), ((5,), None),
                                        ((5, 17), (5, 22)), ((5, 17), (4, 23)),
                                        ((5, 17), (23, 5))])
def test_rmatmul_t_refuses_shapes_that_do_not_fit(dense, out):
    """The compiled dense · Aᵀ does not check its bounds: ``rmatmul_t`` refuses a ``dense``
    without A's number of columns, or an ``out`` not (rows of dense) × (rows of A), naming
    the shapes."""
    m = Csr.of(23, 17, [0, 22], [0, 16], [1.0, 2.0])
    out = None if out is None else np.zeros(out)
    with pytest.raises(ValueError, match=r"A 23×17: dense \("):
        m.rmatmul_t(np.ones(dense), out=out)


def test_columns_keeps_and_renumbers_columns():
    m = Csr.of(3, 4, np.array([0, 0, 1, 2, 2]), np.array([0, 3, 1, 2, 3]),
               np.array([1.0, 2, 3, 4, 5]))
    sub = m.columns(np.array([1, 3]))
    dense = np.array([[1.0, 0, 0, 2], [0, 3, 0, 0], [0, 0, 4, 5]])
    assert sub.n_cols == 2 and np.array_equal(sub.scipy().toarray(), dense[:, [1, 3]])


def test_of_adds_duplicates_and_sorts_columns():
    m = Csr.of(2, 3, np.array([1, 0, 1, 1]), np.array([2, 1, 0, 2]), np.array([1.0, 2, 3, 4]))
    assert m.indptr.tolist() == [0, 1, 3] and m.indices.tolist() == [1, 0, 2]
    assert m.data.tolist() == [2.0, 3.0, 5.0] and m.n_rows == 2 and m.n_cols == 3


def test_hash_table_finds_the_rank_of_every_key_and_nothing_else():
    rng = np.random.default_rng(0)
    keys = np.unique(rng.integers(-2**62, 2**62, 5000))
    table = _sparse.hash_table(keys, 16384)
    queries = np.concatenate([keys, rng.integers(-2**62, 2**62, 5000), keys[:10] + 1])
    out = np.empty(len(queries), dtype=np.int32)
    _sparse.hash_lookup(*table, queries, out)
    pos = np.searchsorted(keys, queries).clip(0, len(keys) - 1)
    expected = np.where(keys[pos] == queries, pos + 1, 0)  # the binary search it replaces
    np.testing.assert_array_equal(out, expected)
    assert out[:len(keys)].tolist() == list(range(1, len(keys) + 1))


def test_template_keys_are_the_wrapping_uint64_hash():
    rng = np.random.default_rng(1)
    rows = rng.integers(-5, 2**40, (7, 12))
    columns = rng.integers(0, 12, (9, 4))
    mul, shift = np.uint64(0x9E3779B97F4A7C15), np.uint64(29)
    x = rows.astype(np.uint64)[:, columns]  # the same hash in numpy (it wraps too)
    h = np.broadcast_to(np.arange(1, 10, dtype=np.uint64) * mul, (7, 9))
    for c in range(4):
        h = (h ^ x[:, :, c]) * mul
        h ^= h >> shift
    got = _sparse.template_keys(rows, columns.astype(np.intp), int(mul), int(shift))
    np.testing.assert_array_equal(got, h)


@pytest.mark.parametrize("seed", range(6))
def test_concat_rows_equals_row_by_row_concatenation(seed):
    """_sparse.concat_rows against a plain loop: row r of A then row r of B, for rows from
    one side, from both, empty, and beyond B's rows, with two sets of values."""
    rng = np.random.default_rng(seed)
    n_rows = int(rng.integers(1, 40))
    b_rows = int(rng.integers(0, n_rows + 1))

    def random_rows(count):
        lengths = rng.integers(0, 4, count) * (rng.random(count) < 0.6)
        ptr = np.concatenate([[0], np.cumsum(lengths)]).astype(np.int32)  # as a stack's
        return ptr, rng.integers(0, 9, ptr[-1]).astype(np.uint16), rng.random((2, ptr[-1]))

    a, b = random_rows(n_rows), random_rows(b_rows)
    ptr, col, val = _sparse.concat_rows(n_rows, *a, *b)
    want_ptr, want_col, want_val = [0], [], [[], []]
    for r in range(n_rows):
        for side, rows in ((a, n_rows), (b, b_rows)):
            if r < rows:
                lo, hi = side[0][r], side[0][r + 1]
                want_col += side[1][lo:hi].tolist()
                for k in range(2):
                    want_val[k] += side[2][k, lo:hi].tolist()
        want_ptr.append(len(want_col))
    assert ptr.dtype == np.int32 and ptr.tolist() == want_ptr
    assert col.dtype == np.uint16 and col.tolist() == want_col
    assert val.tolist() == want_val


def _exponential_arguments() -> np.ndarray:
    """Arguments x ≤ 0 over the whole range of the M-step's exponential: uniform on [−746.5, 0]
    (subnormal results below −708.4, 0 below about −745.13), near 0, the reduction's boundaries
    (multiples of ln 2 / 2) and their neighbours, and special values."""
    rng = np.random.default_rng(0)
    half = np.arange(-2153, 1) * (np.log(2.0) / 2.0)
    return np.concatenate([
        -746.5 * rng.random(300_000), -40.0 * rng.random(300_000), -rng.random(300_000),
        -1e-3 * rng.random(50_000) ** 3, half, np.nextafter(half, -np.inf),
        np.nextafter(half, np.inf)[:-1],
        [0.0, -0.0, -5e-324, -1e-300, -708.39641853226408, -708.4, -744.44, -745.1332191019411,
         -745.1332191019412, -745.14, -746.0, -1000.0, -1e308, -np.inf]])


def test_exponentials_within_one_ulp_of_libm_and_of_the_exact_value():
    x = _exponential_arguments()
    ours = np.empty_like(x)
    _sparse.exponentials(x, ours)
    libm = np.array([math.exp(v) for v in x])  # math.exp is libm's exp
    assert (np.abs(ours - libm) <= np.spacing(libm)).all()
    assert 0.0 < np.mean(ours != libm) < 0.2  # not libm's: it differs in the last bit at times
    if np.finfo(np.longdouble).nmant > 60:  # x87's 64-bit mantissa: the exact value rounded
        exact = np.exp(x.astype(np.longdouble))
        error = np.abs(ours.astype(np.longdouble) - exact) / np.spacing(exact.astype(float))
        assert error.max() < 1.0
    assert (ours[x == 0.0] == 1.0).all() and ours[x == -np.inf].tolist() == [0.0]
    assert (ours[x < -745.14] == 0.0).all() and (ours[x > -745.13] > 0.0).all()
    out = np.empty(2)
    _sparse.exponentials(np.array([np.nan, -1.0]), out)
    assert np.isnan(out[0]) and out[1] == math.exp(-1.0)


@pytest.mark.parametrize("n", [*range(10), 101])
def test_exponentials_same_bits_on_every_path(n):
    """The AVX2 loop (where the processor has it) and the portable one: the same operations
    element by element, so the same bits, at every length (vector tails included)."""
    x = _exponential_arguments()[::997][:n].copy() if n < 101 else _exponential_arguments()
    fast, portable = np.full_like(x, np.nan), np.full_like(x, np.nan)
    _sparse.exponentials(x, fast)
    _sparse.exponentials(x, portable, avx2=False)
    assert fast.tobytes() == portable.tobytes()
    with pytest.raises(ValueError):
        _sparse.exponentials(x, np.empty(n + 1))


@pytest.mark.parametrize("seed", range(8))
def test_dense_lines_are_the_stored_entries_in_order(seed):
    """dense_lines (the tree DP's way along a dense matrix's lines, every output at once):
    out[r] = ⊕ of L[r, c] ⊗ x[c] over the entries of line r stored (L[r, c] ≠ 0), one by one
    in ascending c from 0, bitwise, in both semirings, through the AVX2 loop and the portable
    one, at sizes that leave vector tails, vectors with zeros and lines with gaps (an
    absent entry or a zero of x adds an exact 0, or cannot beat the maximum)."""
    rng = np.random.default_rng(seed)
    for n in (1, 2, 3, 5, 7, 8, 13, 50, 99):
        lines = rng.random((n, n)) * (rng.random((n, n)) < rng.choice([0.5, 0.9, 1.0]))
        x = rng.random(n) * (rng.random(n) < rng.choice([0.3, 0.8, 1.0]))
        t = np.ascontiguousarray(lines.T).ravel()  # t[c·n + r] = L[r, c]
        for maximum in (False, True):
            want = np.zeros(n)
            for r in range(n):
                for c in np.flatnonzero(lines[r]):
                    p = lines[r, c] * x[c]
                    want[r] = (p if p > want[r] else want[r]) if maximum else want[r] + p
            for avx2 in (True, False):
                got = _sparse.dense_lines(t, x, maximum, avx2)
                assert got.tobytes() == want.tobytes()
    with pytest.raises(ValueError):
        _sparse.dense_lines(np.zeros(5), np.zeros(2), False)


@pytest.mark.parametrize("seed", range(6))
def test_unique_ids_is_numpy_unique(seed):
    """unique_ids: np.unique(values, return_inverse=True), the same arrays and dtypes, on the
    marking path (values below a few times their number) and on the fallback (sparse or
    negative values, none at all)."""
    rng = np.random.default_rng(seed)
    cases = [np.zeros(0, dtype=np.int64), np.array([-3, 5, -3]), np.array([10 ** 9, 3])]
    for _ in range(200):
        n, top = int(rng.integers(1, 400)), int(rng.integers(1, 6000))
        cases.append(rng.integers(0, top, n).astype(rng.choice([np.int32, np.int64])))
    for values in cases:
        got, want = unique_ids(values), np.unique(values, return_inverse=True)
        for g, w in zip(got, want):
            assert g.dtype == w.dtype and g.shape == w.shape
            np.testing.assert_array_equal(g, w)


def _edit_gradients_arguments() -> dict[str, np.ndarray | int]:
    """edit_gradients' arguments for one state, one token without arcs, one puncteme (all
    coefficients 0; the closure's column last), one prefix and one suffix, and one first, last
    and middle position each: all in range."""
    ints, row, one = np.zeros(0, dtype=np.intp), np.zeros((1, 1)), np.zeros(2, dtype=np.intp)
    position, ptr = np.zeros(1, dtype=np.intp), np.array([0, 1])
    return dict(grad=np.zeros(0), coef=np.zeros((1, 2)), p=row, q=row, pre_ptr=one,
                pre_col=ints.astype(np.int32), pre_val=np.zeros(0), suf_ptr=one,
                suf_col=ints.astype(np.int32), suf_val=np.zeros(0), closure=np.zeros(1),
                kp=row, kq=row, exclude=-1, n=1, arc_ptr=one, src=ints, dst=ints,
                first_ptr=ptr, first_puncteme=position, first_suffix=position,
                last_ptr=ptr, last_puncteme=position, last_prefix=position,
                middle_token=position, middle_puncteme=position, middle_prefix=position,
                middle_suffix=position)


@pytest.mark.parametrize("bad", [None, "token", "puncteme", "prefix", "suffix"])
def test_edit_gradients_refuses_a_middle_position_out_of_range(bad) -> None:
    """A middle position's token, puncteme, prefix and suffix index the per-token arc offsets,
    the coefficients and the prefixes' and suffixes' products: one outside them is refused
    (not read out of bounds); in range, the call goes through."""
    args = _edit_gradients_arguments()
    if bad is None:
        _sparse.edit_gradients(**args)
        return
    args[f"middle_{bad}"] = np.array([5])
    with pytest.raises(ValueError, match=r"middle position 0 \(token .*1 tokens"):
        _sparse.edit_gradients(**args)


@pytest.mark.parametrize(("name", "value", "message"), [
    ("first_suffix", [0, 0], "first_puncteme and first_suffix of lengths 1 and 2; one length"),
    ("last_prefix", [], "last_puncteme and last_prefix of lengths 1 and 0; one length"),
    ("first_ptr", [0, 1, 1], r"3 offsets in first_ptr; 1 tokens need 2"),
    ("last_ptr", [0], r"1 offsets in last_ptr; 1 tokens need 2"),
    ("first_ptr", [0, 0], r"first_ptr does not ascend from 0 to 1 \(first positions\): "
                          "offset 1 is 0"),
    ("last_ptr", [1, 1], r"last_ptr does not ascend .* offset 0 is 1"),
    ("last_ptr", [-1, 1], r"last_ptr does not ascend .* offset 0 is -1"),
    ("first_suffix", [1], r"first position 0 \(puncteme 0, suffix 1\); 1 punctemes, "
                          "1 suffixes"),
    ("first_puncteme", [-1], r"first position 0 \(puncteme -1, suffix 0\)"),
    ("last_prefix", [-1], r"last position 0 \(puncteme 0, prefix -1\); 1 punctemes, "
                          "1 prefixes"),
    ("last_puncteme", [1], r"last position 0 \(puncteme 1, prefix 0\)"),
    ("middle_suffix", [0, 0], "middle_token, middle_puncteme, middle_prefix, middle_suffix of "
                              "lengths 1, 1, 1, 2; one length"),
    ("middle_token", [], "middle_token, .* of lengths 0, 1, 1, 1; one length"),
    ("middle_puncteme", [1], r"middle position 0 \(token 0, puncteme 1, .*; 1 tokens, "
                             "1 punctemes"),  # coef's column 1 is the closure's
])
def test_edit_gradients_refuses_positions_that_do_not_fit(name, value, message) -> None:
    """The first and last positions' offsets group them by token (one per token and one more,
    ascending from 0 to their number), their suffixes and prefixes pair with their punctemes,
    each in range, and the middle positions' four arrays have one length: else ValueError
    (not read out of bounds)."""
    args = _edit_gradients_arguments()
    args[name] = np.array(value, dtype=np.intp)
    with pytest.raises(ValueError, match=f"^edit_gradients: {message}"):
        _sparse.edit_gradients(**args)


@pytest.mark.parametrize("short", ["src", "dst", "weight"])
def test_combine_arcs_refuses_arrays_of_other_lengths(short) -> None:
    """src, dst and weight have token's length (one entry per arc): a shorter one is refused,
    not read past its end; of equal lengths, the call goes through."""
    arcs = dict(token=np.array([0, 1, -1]), src=np.array([0, 1, 0]), dst=np.array([1, 1, 0]),
                weight=np.array([0.5, 2.0, 1.0]))
    kinds = np.zeros(1, dtype=np.uint8)
    assert _sparse.combine_arcs(2, **arcs, maximum=kinds)[3].tolist() == [[0.5, 2.0]]
    arcs[short] = arcs[short][:2]
    lengths = ", ".join("2" if name == short else "3" for name in ("src", "dst", "weight"))
    with pytest.raises(ValueError, match=f"^combine_arcs: token, src, dst, weight of lengths "
                                         f"3, {lengths}; one length$"):
        _sparse.combine_arcs(2, **arcs, maximum=kinds)
