"""The compiled Attach products of a candidate set (fstpunct/model/_attach.pyx) against the numpy
products they replace, on random sets and on en_ewt dev: the scores bitwise the same; the
M-step's pieces (objective term and gradient in one pass over a trie of the rows, another order
of summation) to a few units in the last place, however the rows are cut into pieces."""
import itertools

import numpy as np
import pytest
from conftest import treebank
from hypothesis import given
from hypothesis import strategies as st

from fstpunct.api import load
from fstpunct.dp.sparse import Csr
from fstpunct.model import _attach
from fstpunct.model import attach as reference
from fstpunct.model.attach import _Group
from fstpunct.ud.slots import to_slots


def _fit_pieces(group, scores, targets, size) -> tuple[float, np.ndarray]:
    """The group's term and gradient (added to ``scores``'s shape of zeros) from its pieces of
    at most ``size`` entries, as the M-step adds them; the portable loops give the same bits
    as the AVX2 ones."""
    value, gradient = 0.0, np.zeros_like(scores)
    gathered = group.gather(scores)
    assert gathered.tobytes() == scores[np.ix_(group.used, group.candidates)].tobytes()
    for piece in group.cut(size):
        rows = np.ascontiguousarray(targets[piece.rows])
        term, block = piece.fit(gathered, rows, rows.sum(axis=1))
        x, portable = piece.contexts, np.empty_like(block)
        assert _attach.fit_piece(x.indptr, x.indices, x.data, piece.shared, piece.at, gathered,
                                 rows, rows.sum(axis=1), portable, avx2=False) == term
        assert portable.tobytes() == block.tobytes()
        sparse = np.full_like(block, np.nan)  # only the nonzero targets' terms: the same bits
        assert piece.fit(gathered, rows, rows.sum(axis=1), sparse,
                         _attach.nonzero_rows(rows))[0] == term
        assert sparse.tobytes() == block.tobytes()
        gradient[np.ix_(piece.used, piece.candidates)] += block
        value += term
    return value, gradient


def _check_group(group, scores, targets) -> None:
    """Every compiled product of ``group`` against its reference: the scores bitwise, the
    M-step's term and gradient to rounding (pieces of one row, a few rows, all rows)."""
    expected = group.scores_reference(scores).tobytes()
    assert group.scores(scores).tobytes() == expected
    x = group.contexts
    for avx2 in (True, False):  # either loop, whatever ``out`` held before
        out = np.full((x.n_rows, len(group.candidates)), np.nan)
        _attach.gathered_matmul(x.indptr, x.indices, x.data, group.used, group.candidates,
                                np.ascontiguousarray(scores), out, avx2)
        assert out.tobytes() == expected
    reference = np.zeros_like(scores)
    value = group.fit_term_reference(scores, targets, targets.sum(axis=1), reference)
    scale = np.abs(reference).max(initial=0.0) + np.abs(targets).sum()
    for size in (1, 3 * len(group.candidates), 1 << 30):
        term, gradient = _fit_pieces(group, scores, targets, size)
        assert term == pytest.approx(value, rel=1e-12, abs=1e-12 * scale)
        np.testing.assert_allclose(gradient, reference, rtol=1e-12, atol=1e-13 * scale)
    assert all(np.array_equal(a, b) for a, b in zip(group.prefixes, group.prefixes_reference()))
    pieces = group.cut(2 * len(group.candidates))
    assert sorted(np.concatenate([p.rows for p in pieces]).tolist()) == \
        list(range(group.contexts.n_rows))
    assert all(p.shared[0] == 0 for p in pieces)


@given(st.integers(0, 2**32 - 1), st.integers(1, 7), st.integers(1, 9), st.integers(1, 40))
def test_products_bitwise_equal_numpy(seed, rows, contexts, pairs):
    """(Up to 40 candidates: the scores' loops go 16 entries at a time, then one by one.)"""
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


@given(st.integers(0, 2**32 - 1), st.integers(0, 30), st.integers(1, 6))
def test_lexicographic_is_lexsorts_order(seed, rows, contexts):
    """Rows that are prefixes of others, equal rows (kept in row order) and values that are
    equal but not bitwise (0.0 and −0.0: the same for the order, not shared)."""
    rng = np.random.default_rng(seed)
    dense = rng.random((rows, contexts)) < rng.choice([0.2, 0.5, 0.9])
    dense[rng.random(rows) < 0.5, :contexts // 2] = True
    x = Csr.of(rows, contexts, *np.nonzero(dense),
               rng.choice([1.0, 0.5, -2.0, 0.0, -0.0], size=int(dense.sum())))
    half = rows // 2  # repeat the first half's rows
    x = Csr.of(rows + half, contexts, *np.nonzero(np.vstack([dense, dense[:half]])),
               np.concatenate([x.data, x.data[:x.indptr[half]]]))
    group = _Group("k", np.arange(2), np.arange(x.n_rows), np.arange(contexts, dtype=np.intp),
                   x, np.arange(x.n_rows))
    order, shared = group.prefixes
    expected_order, expected_shared = group.prefixes_reference()
    assert order.tolist() == expected_order.tolist()
    assert shared.tolist() == expected_shared.tolist()
    assert order.dtype == shared.dtype == np.intp


@pytest.mark.parametrize("lang", ["en"])
def test_products_bitwise_on_dev(lang):
    model = load(lang).punct
    sentences = [to_slots(s) for s in itertools.islice(treebank(lang, "dev").sentences(),
                                                       600)]
    rng = np.random.default_rng(0)
    for group in model.prepare(sentences).data.groups:
        targets = rng.random((group.contexts.n_rows, len(group.candidates)))
        _check_group(group, model.pair_scores, targets)


def test_products_refuse_a_block_of_another_shape():
    with pytest.raises(ValueError):
        _attach.gathered_matmul(np.array([0, 1], dtype=np.intp), np.zeros(1, dtype=np.int32),
                                np.ones(1), np.zeros(1, dtype=np.intp),
                                np.zeros(2, dtype=np.intp), np.ones((1, 3)), np.zeros((1, 3)))
    for indptr, indices in (([0, 2], [0]), ([1, 0], [0]), ([0, 1], [1]), ([0, 1], [-1])):
        with pytest.raises(ValueError, match="out of range"):  # row pointers, columns
            _attach.gathered_matmul(np.array(indptr, dtype=np.intp),
                                    np.array(indices, dtype=np.int32), np.ones(1),
                                    np.zeros(1, dtype=np.intp), np.zeros(2, dtype=np.intp),
                                    np.ones((1, 3)), np.zeros((1, 2)))


def test_fit_piece_refuses_mismatched_rows():
    def fit(targets, mass, gradient, width=2, at=0, index=0):
        return _attach.fit_piece(np.array([0, 1], np.intp), np.full(1, index, np.int32),
                                 np.ones(1), np.zeros(1, np.intp), np.full(1, at, np.intp),
                                 np.ones((1, width)), targets, mass, gradient)

    gradient = np.full((1, 2), np.nan)  # written whole
    # two candidates of score 1 and one of each seen: 1 + 1 − 2 log(2e)
    assert fit(np.ones((1, 2)), np.full(1, 2.0), gradient) == pytest.approx(-2.0 * np.log(2.0))
    assert gradient.tolist() == [[0.0, 0.0]]
    for wrong in ((np.ones((2, 2)), np.ones(1), np.zeros((1, 2))),
                  (np.ones((1, 2)), np.ones(2), np.zeros((1, 2))),
                  (np.ones((1, 2)), np.ones(1), np.zeros((2, 2)))):
        with pytest.raises(ValueError):
            fit(*wrong)
    with pytest.raises(ValueError):
        fit(np.ones((1, 0)), np.ones(1), np.zeros((1, 0)), width=0)
    with pytest.raises(ValueError):  # a row outside the block
        fit(np.ones((1, 2)), np.full(1, 2.0), gradient, at=1)
    with pytest.raises(ValueError):  # a column outside ``at``
        fit(np.ones((1, 2)), np.full(1, 2.0), gradient, index=1)
    one = np.ones(1, np.int32)
    for ptr, columns in (([0], one), ([1, 1], one), ([0, 2], one), ([0, 1], 2 * one),
                         ([0, 1], -one)):
        with pytest.raises(ValueError, match="nonzero"):
            _attach.fit_piece(np.array([0, 1], np.intp), np.zeros(1, np.int32), np.ones(1),
                              np.zeros(1, np.intp), np.zeros(1, np.intp), np.ones((1, 2)),
                              np.ones((1, 2)), np.full(1, 2.0), gradient, True,
                              np.array(ptr, np.intp), columns)
    with pytest.raises(ValueError, match="nonzero must give candidates"):  # in a later row
        _attach.fit_piece(np.array([0, 1, 2], np.intp), np.zeros(2, np.int32), np.ones(2),
                          np.zeros(2, np.intp), np.zeros(1, np.intp), np.ones((1, 2)),
                          np.ones((2, 2)), np.full(2, 2.0), gradient, True,
                          np.array([0, 2, 4], np.intp), np.array([0, 1, 1, 2], np.int32))
    with pytest.raises(ValueError):
        _attach.gather(np.ones((2, 3)), np.zeros(1, np.intp), np.arange(2, dtype=np.intp),
                       np.zeros((2, 2)))


@given(st.integers(0, 2**32 - 1), st.integers(0, 30), st.integers(1, 6), st.integers(0, 5))
def test_merge_rows_adds_nodes_in_order(seed, nodes, rows, width):
    import scipy.sparse as sp

    rng = np.random.default_rng(seed)
    targets = rng.normal(size=nodes * width + 3) * 10.0 ** rng.integers(-8, 9, size=nodes *
                                                                          width + 3)
    starts = rng.integers(0, 4, size=nodes) + np.arange(nodes) * width
    into = rng.integers(0, rows, size=nodes).astype(np.intp)
    out = np.full((rows, width), np.nan)  # zeroed first
    _attach.merge_rows(targets, starts, into, out)
    expected = np.zeros((rows, width))
    for start, row in zip(starts, into):  # the readable reference: node by node
        expected[row] += targets[start:start + width]
    assert out.tobytes() == expected.tobytes()
    nodes_rows = targets[starts[:, None] + np.arange(width)].reshape(nodes, width)
    product = sp.csr_matrix((np.ones(nodes), (into, np.arange(nodes))), shape=(rows, nodes))
    assert out.tobytes() == (product @ nodes_rows).tobytes()  # what the M-step used to do
    for start, row in ((len(targets) - width + 1, 0), (0, rows), (0, -1)):  # out of range
        with pytest.raises(ValueError):
            _attach.merge_rows(targets, np.array([start]), np.array([row], np.intp), out)


@given(st.integers(0, 2**32 - 1), st.integers(0, 70), st.floats(0.0, 1.0), st.integers(-2, 2),
       st.integers(-2, 1))
def test_unpack_nonzeros_against_the_mask(seed, size, share, extra, cut):
    """θ's stored blocks unpacked in one pass: the bits of the boolean-mask reference (−0.0,
    NaN and subnormals as stored), whatever ``out`` held; bits past the packed bytes are zero
    (where numpy's ``unpackbits`` of an empty array is not); values that do not pair up with
    the set bits refused (the reference too, where it does not broadcast one value)."""
    rng = np.random.default_rng(seed)
    mask = rng.random(size) < share
    bits = np.packbits(mask)
    if cut < 0:  # a damaged file: bytes missing
        bits = bits[:max(0, len(bits) + cut)]
        mask[8 * len(bits):] = False
    values = rng.choice([-0.0, np.nan, 5e-324, -1.5, 2.0], max(0, int(mask.sum()) + extra))
    out, want = np.full(size, np.inf), np.zeros(size)
    if len(values) == mask.sum():
        _attach.unpack_nonzeros(bits, values, out)
        want[mask] = values
        assert out.view(np.uint64).tolist() == want.view(np.uint64).tolist()
        if len(bits) or not size:
            reference.unpack_nonzeros_reference(bits, values, want)
            assert out.view(np.uint64).tolist() == want.view(np.uint64).tolist()
        return
    with pytest.raises(ValueError, match="do not pair up"):
        _attach.unpack_nonzeros(bits, values, out)
    if len(values) != 1 and len(bits):
        with pytest.raises(ValueError):
            reference.unpack_nonzeros_reference(bits, values, want)


@given(st.integers(0, 2**32 - 1), st.integers(0, 6), st.integers(1, 8), st.integers(1, 12))
def test_add_blocks_bitwise_the_scatter_in_block_order(seed, n, rows, width):
    """Row by row, in any split of the rows, the same bits as scattering the blocks in turn
    (blocks over the same rows and columns, of magnitudes far apart: the order shows)."""
    rng = np.random.default_rng(seed)
    blocks, used, columns = [], [], []
    for _ in range(n):
        used.append(np.sort(rng.choice(rows, size=rng.integers(0, rows + 1), replace=False)))
        columns.append(np.sort(rng.choice(width, size=rng.integers(0, width + 1),
                                          replace=False)).astype(np.intp))
        blocks.append(rng.normal(size=(len(used[-1]), len(columns[-1])))
                      * 10.0 ** rng.integers(-16, 17, size=(len(used[-1]), 1)))
    expected = np.zeros((rows, width))
    for b, u, c in zip(blocks, used, columns):
        expected[np.ix_(u, c)] += b
    flat = np.concatenate([[]] + used).astype(np.intp)
    order = np.argsort(flat, kind="stable")
    ptr = np.concatenate([[0], np.cumsum(np.bincount(flat, minlength=rows))]).astype(np.intp)
    block = np.repeat(np.arange(n), [len(u) for u in used]).astype(np.intp)[order]
    row = np.concatenate([[]] + [np.arange(len(u)) for u in used]).astype(np.intp)[order]
    out = np.full((rows, width), np.nan)
    cut = int(rng.integers(0, rows + 1))
    for lo, hi in ((cut, rows), (0, cut)):
        _attach.add_blocks(out, lo, hi, ptr, block, row, blocks, columns)
    assert out.tobytes() == expected.tobytes()


@given(st.integers(0, 2**32 - 1), st.integers(0, 9), st.integers(0, 9))
def test_nonzero_rows_are_numpys_nonzero(seed, rows, width):
    rng = np.random.default_rng(seed)
    values = rng.choice([0.0, -0.0, 1.5, np.nan, -1e-300], size=(rows, width))
    ptr, columns = _attach.nonzero_rows(values)
    at, expected = np.nonzero(values)
    assert columns.tolist() == expected.tolist() and columns.dtype == np.int32
    assert ptr.tolist() == [0] + np.cumsum(np.bincount(at, minlength=rows)).tolist()


def test_add_blocks_refuses_what_is_out_of_range():
    blocks, columns = [np.ones((1, 2))], [np.arange(2, dtype=np.intp)]
    ptr, one = np.array([0, 1, 1], np.intp), np.zeros(1, np.intp)
    _attach.add_blocks(np.zeros((2, 2)), 0, 2, ptr, one, one, blocks, columns)
    for wrong in ((np.zeros((2, 2)), 1, 3, ptr, one, one, blocks, columns),
                  (np.zeros((3, 2)), 0, 2, ptr, one, one, blocks, columns),
                  (np.zeros((2, 2)), 0, 2, np.array([0, 2, 2], np.intp), one, one, blocks,
                   columns),
                  (np.zeros((2, 2)), 0, 2, ptr, one + 1, one, blocks, columns),
                  (np.zeros((2, 2)), 0, 2, ptr, one, one + 1, blocks, columns),
                  (np.zeros((2, 1)), 0, 2, ptr, one, one, blocks, columns),
                  (np.zeros((2, 2)), 0, 2, ptr, one, one, blocks, [np.arange(3, dtype=np.intp)]),
                  (np.zeros((2, 2)), 0, 2, ptr, one, one, blocks, [])):
        with pytest.raises(ValueError, match="add_blocks"):
            _attach.add_blocks(*wrong)
