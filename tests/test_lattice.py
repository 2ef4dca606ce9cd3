"""Slot lattices: acceptance weights equal the channel's p(x|u); closures equal their series."""
import itertools

import numpy as np
import pytest

from fstpunct.dp import _sparse
from fstpunct.fst.channel import Channel
from fstpunct.fst.lattice import (
    BlockClosures,
    Lattice,
    LatticeBuilder,
    _distinct_rows,
    product_stack,
    product_stacks,
)

SYMBOLS = ("∘", "<abbv>", "<unk>", ",", ".", "”")


@pytest.fixture(params=["ltr", "rtl"])
def builder(request):
    channel = Channel.random(SYMBOLS, request.param, np.random.default_rng(7))
    return LatticeBuilder(channel)


def test_lattice_weight_is_channel_probability(builder):
    channel = builder.channel
    weights = builder.arc_weights()
    tokens = [channel.index(t) for t in (",", ".", "”")]
    for x in [(), (",",), (".", "”"), ("”", ",")]:
        lat = builder.lattice(x, weights)
        for k in range(4):
            for u in itertools.product(tokens, repeat=k):
                got = lat.start @ lat.matrix(u) @ lat.final
                want = channel.prob([channel.symbols[t] for t in u], x)
                assert got == pytest.approx(want, abs=1e-12)



@pytest.mark.parametrize("maximum", [False, True])
def test_uncached_builder_and_token_matrix(builder, maximum):
    """A builder that keeps no topologies (decoding's) weights each string as the caching one
    does, bitwise, and keeps none; M(token) uncached is matrix() of that one token."""
    uncached = LatticeBuilder(builder.channel, cache=False)
    weights = builder.arc_weights()
    for x in [(), (",",), ("∘", ".", "”"), ("”", ",")]:
        want, got = builder.lattice(x, weights, maximum), uncached.lattice(x, weights, maximum)
        for name in ("start", "final", "token", "src", "dst", "weight"):
            np.testing.assert_array_equal(getattr(got, name), getattr(want, name))
        for t in range(len(SYMBOLS)):
            np.testing.assert_array_equal(got.token_matrix(t), want.matrix((t,)))
    assert uncached._topologies == {} and len(builder._topologies) == 4


def test_semirings_share_equal_weights(builder):
    """A string's sum and max lattices hold one weight array where their weights are bitwise
    equal (no parallel arcs), each its own where they differ (here only in the sign of a
    zero); the values are each semiring's own either way."""
    weights = builder.arc_weights()
    for x in [(), (",",), ("∘", ".", "”"), ("”", ",", ".", "”")]:
        both = builder.lattices(x, weights, [False, True])
        for lat, maximum in zip(both, (False, True)):
            assert lat.weight.tobytes() == builder.lattice(x, weights, maximum).weight.tobytes()
        assert both[0].weight is both[1].weight
        assert not both[0].weight.flags.writeable  # a write for one semiring would change both
    rows = np.array([[0.5, 0.0, 1e-300], [0.5, -0.0, 1e-300], [0.5, 0.0, 1e-300]])
    got = _distinct_rows(rows)
    assert [g.tobytes() for g in got] == [r.tobytes() for r in rows]
    assert not any(np.shares_memory(a, b) for a, b in itertools.combinations(got, 2))
    got = _distinct_rows(rows[[0, 2]])
    assert got[0] is got[1] and got[0].tobytes() == rows[0].tobytes()
    assert not got[0].flags.writeable
    assert not np.shares_memory(got[0], rows)  # not a view keeping both rows' memory


@pytest.mark.parametrize("maximum", [False, True])
def test_closure_equals_series_over_token_strings(builder, maximum):
    channel = builder.channel
    boundary = channel.index("∘")
    tokens = [k for k in range(len(SYMBOLS)) if k != boundary]
    rate = 0.1 / len(tokens)  # row sums of rate·Σ M(υ) ≤ 0.1, so the tail past length 6 < 1e-7
    lat = builder.lattice((".", "”"), builder.arc_weights(), maximum)
    series = np.zeros((lat.size, lat.size))
    for k in range(7):
        for u in itertools.product(tokens, repeat=k):
            term = rate ** k * lat.matrix(u)
            series = np.maximum(series, term) if maximum else series + term
    assert lat.closure(rate, boundary) == pytest.approx(series, abs=1e-6)



@pytest.mark.parametrize("maximum", [False, True])
def test_backoff_arcs_are_bitwise_ufunc_at(builder, maximum):
    """The compiled rate · A against numpy's ``ufunc.at`` (its readable reference), bitwise:
    on slot lattices, and on arcs with many parallel copies in random order (sums in the
    arcs' order), weights over 16 orders of magnitude, a NaN and zeros; bad arcs refused."""
    weights, boundary = builder.arc_weights(), builder.channel.index("∘")
    for x in [(), (",",), ("∘", ".", "”"), ("”", ",", ".", "”")]:
        lat = builder.lattice(x, weights, maximum)
        for exclude in (boundary, -1):
            got = lat.backoff_arcs(0.3, exclude)
            assert got.tobytes() == lat.backoff_arcs_reference(0.3, exclude).tobytes()
    rng = np.random.default_rng(5)
    for n, m in ((1, 0), (1, 9), (4, 60), (17, 400)):
        token, src, dst = (rng.integers(0, k, m).astype(np.uint16) for k in (3, n, n))
        weight = 10.0 ** rng.uniform(-16, 0, m)
        weight[rng.random(m) < 0.1] = 0.0
        if m > 20:  # a NaN on a kept arc, then every later arc of its place
            weight[7], token[7] = np.nan, 0
            token[(src == src[7]) & (dst == dst[7])] = 0
        lat = Lattice(np.eye(n)[0], np.ones(n), token, src, dst, weight, maximum)
        with np.errstate(invalid="ignore"):  # numpy's maximum warns of the NaN
            got, want = lat.backoff_arcs(1 / 3, 1), lat.backoff_arcs_reference(1 / 3, 1)
        assert got.tobytes() == want.tobytes()
        assert got.shape == (n, n) and (m <= 20 or np.isnan(got[src[7], dst[7]]))
    with pytest.raises(ValueError, match="from 0 to 2; 2 states"):
        _sparse.backoff_arcs(2, *(np.array([0], dtype=np.uint16) for _ in range(2)),
                             np.array([2], dtype=np.uint16), np.ones(1), 1.0, 9, False)
    with pytest.raises(ValueError, match="one length"):
        _sparse.backoff_arcs(2, *(np.zeros(2, dtype=np.uint16) for _ in range(3)), np.ones(1),
                             1.0, 9, True)


def test_strong_components_are_scipys_in_topological_order():
    csgraph = pytest.importorskip("scipy.sparse.csgraph")
    rng = np.random.default_rng(2)
    for n, density in itertools.product((0, 1, 2, 9, 40), (0.0, 0.03, 0.1, 0.5)):
        a = np.where(rng.random((n, n)) < density, rng.random((n, n)), 0.0)
        if n > 8:  # a chain of cycles, as a slot lattice's positions
            a[np.arange(n - 1), np.arange(1, n)] = 0.5
            a[np.arange(4, n, 4), np.arange(0, n - 4, 4)] = 0.5
        order, offsets = _sparse.strong_components(a)
        assert sorted(order.tolist()) == list(range(n)) and offsets[0] == 0 and offsets[-1] == n
        component = np.empty(n, dtype=np.intp)
        for c, (lo, hi) in enumerate(zip(offsets[:-1], offsets[1:])):
            assert hi > lo and np.all(np.diff(order[lo:hi]) > 0)  # ascending within
            component[order[lo:hi]] = c
        src, dst = np.nonzero(a)
        assert np.all(component[src] <= component[dst])  # block upper triangular
        count, labels = csgraph.connected_components(a, directed=True, connection="strong")
        assert count == len(offsets) - 1  # scipy's partition: one label per component
        assert len(set(zip(component.tolist(), labels.tolist()))) == count
    with pytest.raises(ValueError, match="not square"):
        _sparse.strong_components(np.zeros((2, 3)))


@pytest.mark.parametrize("maximum", [False, True])
def test_block_closures_are_the_closures_to_rounding(builder, maximum):
    """Decoding's closures against the whole inverse (sum: to rounding, the same zeros) or
    the same (max), whatever the blocks memoised before (a string computed first and after
    others: the same bits); and on lattices with cycles across many states."""
    channel, weights = builder.channel, builder.arc_weights()
    boundary = channel.index("∘")
    rate = 0.5 / len(SYMBOLS)
    blocks = BlockClosures()
    strings = [(), (",",), ("∘",), (".", "”"), ("∘", ",", "."), ("”", ",", ".", "”")]
    first = {}
    for x in strings + strings[::-1]:
        lat = builder.lattice(x, weights, maximum)
        got, want = blocks.of(lat, rate, boundary), lat.closure(rate, boundary)
        assert got.tobytes() == first.setdefault(x, BlockClosures().of(lat, rate, boundary)
                                                   ).tobytes()
        if maximum:
            assert got.tobytes() == want.tobytes()
        else:
            np.testing.assert_allclose(got, want, rtol=1e-12, atol=0)
            assert np.array_equal(got != 0, want != 0)
    rng = np.random.default_rng(4)
    for n in (1, 5, 30):
        m = 3 * n
        token, src, dst = (rng.integers(0, k, m) for k in (3, n, n))
        key = np.unique((token * n + src) * n + dst)  # sorted, distinct
        token, src, dst = key // (n * n), key // n % n, key % n
        lat = Lattice(np.eye(n)[0], np.ones(n), token, src, dst, rng.uniform(0, 1, len(key)),
                      maximum)
        got, want = blocks.of(lat, 1.0 / (3 * n), 2), lat.closure(1.0 / (3 * n), 2)
        np.testing.assert_allclose(got, want, rtol=1e-12, atol=0)
        assert np.array_equal(got != 0, want != 0)


@pytest.mark.parametrize("transpose", [False, True])
def test_product_stacks_without_token_strings(builder, transpose):
    """Stacks of ε and extras alone (a chained slot's closures; no arc is read): the same
    rows as where ε and the extras follow strings of tokens, in both semirings at once."""
    weights, tokens = builder.arc_weights(), [builder.channel.index(t) for t in (",", ".")]
    for x in [(), (",",), (".", "”")]:
        lattices = builder.lattices(x, weights, [False, True])
        extras = [[lat.closure(0.1, 0), np.eye(lat.size) * (1 + lat.maximum)]
                  for lat in lattices]
        for strings in ([], [()]):
            got = product_stacks(lattices, strings, extras, transpose)
            longer = product_stacks(lattices, [*strings, tuple(tokens)], extras, transpose)
            for g, w in zip(got, longer):
                n = len(strings)
                assert len(g) == n + 2
                for a in range(n + 2):
                    want = w.matrix(a + (a >= n))
                    assert g.matrix(a).tobytes() == want.tobytes()


@pytest.mark.parametrize("maximum", [False, True])
def test_product_stack_holds_the_products_of_token_matrices(builder, maximum):
    channel = builder.channel
    tokens = [channel.index(t) for t in (",", ".", "”")]
    strings = [u for k in range(5) for u in itertools.product(tokens, repeat=k)][::3]
    for x in [(), (",",), (".", "”")]:
        lat = builder.lattice(x, builder.arc_weights(), maximum)
        extra = np.eye(lat.size) * 0.5
        stack = product_stack(lat, strings, [extra])
        transposed = product_stack(lat, strings, transpose=True)
        assert len(stack) == len(strings) + 1
        for a, u in enumerate(strings):
            np.testing.assert_allclose(stack.matrix(a), lat.matrix(u), rtol=1e-12, atol=1e-300)
            np.testing.assert_allclose(transposed.matrix(a), lat.matrix(u).T, rtol=1e-12,
                                       atol=1e-300)
        np.testing.assert_array_equal(stack.matrix(len(strings)), extra)


def _reference_products(lat, strings):
    """M(s) for each string, every entry reduced as np.add.reduceat (or max) reduces the
    products w·M(rest)[r′, c] over the arcs r → r′ of the first token, by ascending r′."""
    reduce = np.maximum if lat.maximum else np.add
    cache = {(): np.eye(lat.size)}

    def product(s):
        if s not in cache:
            rest, out = product(s[1:]), np.zeros((lat.size, lat.size))
            arcs = np.flatnonzero(lat.token == s[0])
            for r in range(lat.size):
                mine = arcs[lat.src[arcs] == r]  # ascending r′ (the lattice is sorted)
                for c in range(lat.size):
                    terms = [lat.weight[e] * rest[lat.dst[e], c] for e in mine
                             if rest[lat.dst[e], c] != 0]
                    if terms:
                        out[r, c] = reduce.reduceat(np.array(terms), [0])[0]
            cache[s] = out
        return cache[s]

    return [product(tuple(s)) for s in strings]


@pytest.mark.parametrize("maximum", [False, True])
def test_product_stack_is_bitwise_the_reduceat_formulation(maximum):
    """Dense random token matrices: entries with 1 to 12 terms (numpy's pairwise sum from 9)."""
    rng = np.random.default_rng(0)
    n, tokens = 12, 3
    token, src, dst = (x.ravel() for x in np.meshgrid(np.arange(tokens), np.arange(n),
                                                      np.arange(n), indexing="ij"))
    keep = rng.random(len(token)) < 0.8
    lat = Lattice(np.eye(n)[0], np.ones(n), token[keep], src[keep], dst[keep],
                  rng.uniform(0.01, 1, keep.sum()) * 10.0 ** rng.integers(-6, 6, keep.sum()),
                  maximum)
    strings = [(), (0,), (1, 2), (2, 0, 1), (0, 0, 0, 0), (1, 2, 1)]
    stack = product_stack(lat, strings)
    for a, expected in enumerate(_reference_products(lat, strings)):
        assert np.array_equal(stack.matrix(a), expected)


def test_max_star_is_bitwise_the_numpy_floyd_warshall():
    rng = np.random.default_rng(1)
    for n, band in itertools.product((1, 2, 7, 30, 61), (None, (0, 30), (-2, 3))):
        a = np.where(rng.random((n, n)) < 0.3, rng.uniform(0, 0.9, (n, n)), 0.0)
        if band is not None:  # rows with zeros at one or both ends, as slot lattices' have
            offset = np.subtract.outer(np.arange(n), np.arange(n))
            a[(offset < band[0]) | (offset > band[1])] = 0.0
        expected = np.maximum(np.eye(n), a)
        for k in range(n):
            np.maximum(expected, expected[:, k, None] * expected[None, k, :], out=expected)
        star = np.maximum(np.eye(n), a)
        portable = star.copy()
        _sparse.max_star(star)
        _sparse.max_star(portable, avx2=False)
        assert np.array_equal(star, expected)
        assert star.tobytes() == portable.tobytes()  # the AVX2 loop and the portable one


@pytest.mark.parametrize("maximum", [False, True])
def test_product_stacks_of_some_strings_are_bitwise_those_of_all(builder, maximum):
    """``only``: the matrices of those strings exactly as in the whole stack (the restricted
    plan computes the same products), every other matrix 0; extras after them as before."""
    channel = builder.channel
    tokens = [channel.index(t) for t in (",", ".", "”")]
    strings = [u for k in range(4) for u in itertools.product(tokens, repeat=k)]
    rng = np.random.default_rng(3)
    for x in [(",",), (".", "”")]:
        lats = builder.lattices(x, builder.arc_weights(), [maximum, not maximum])
        extras = [[np.full((lat.size, lat.size), 0.25)] for lat in lats]
        whole = product_stacks(lats, strings, extras)
        for only in (np.array([], dtype=np.intp), np.array([len(strings) - 1]),
                     np.flatnonzero(rng.random(len(strings)) < 0.4)):
            some = product_stacks(lats, strings, extras, only=only)
            for full, part in zip(whole, some):
                assert len(part) == len(full)
                for a in range(len(full)):
                    expected = full.matrix(a) if a in only or a == len(strings) else 0 * \
                        full.matrix(a)
                    assert np.array_equal(part.matrix(a), expected)


def _numpy_lattices(builder, surface, weights, kinds):
    """The weighted lattices as numpy built them (the reference of the compiled combination):
    parallel arcs combined by a stable sort of their keys and ufunc.reduceat."""
    topo = builder.topology(surface)
    n, w, ends = topo.n_states, weights[topo.arc], topo.token < 0
    src, dst = (topo.dst, topo.src) if topo.reverse else (topo.src, topo.dst)
    key = (topo.token[~ends] * n + src[~ends]) * n + dst[~ends]
    order = np.argsort(key, kind="stable")
    key, values = key[order], w[~ends][order]
    first = np.flatnonzero(np.diff(key, prepend=-1))
    token, state = np.divmod(key[first], n * n)
    return [(token, state // n, state % n,
             (np.maximum if maximum else np.add).reduceat(values, first) if len(first)
             else values) for maximum in kinds]


def test_combine_arcs_is_bitwise_a_stable_sort_and_reduceat():
    """Arcs in any order with up to 20 parallel copies (numpy's pairwise sum from 9 terms),
    weights over many magnitudes, every semiring order; and no arcs at all."""
    rng = np.random.default_rng(5)
    kinds = np.array([0, 1, 1, 0], dtype=np.uint8)
    for n, tokens, m in ((1, 1, 0), (1, 1, 30), (3, 2, 200), (17, 5, 2000), (60, 9, 3000)):
        token, src, dst = (rng.integers(0, k, m) for k in (tokens, n, n))
        repeat = rng.integers(1, 21, m) * (rng.random(m) < 0.1) + 1
        token, src, dst = (np.repeat(x, repeat) for x in (token, src, dst))
        shuffle = rng.permutation(len(token))
        token, src, dst = token[shuffle], src[shuffle], dst[shuffle]
        weight = rng.uniform(0.1, 1, len(token)) * 10.0 ** rng.integers(-8, 8, len(token))
        got = _sparse.combine_arcs(n, token, src, dst, weight, kinds)
        key = (token * n + src) * n + dst
        order = np.argsort(key, kind="stable")
        first = np.flatnonzero(np.diff(key[order], prepend=-1))
        for mine, theirs in zip(got[:3], (token, src, dst)):
            assert mine.dtype == np.uint16 and np.array_equal(mine, theirs[order][first])
        for k, maximum in enumerate(kinds):
            want = (np.maximum if maximum else np.add).reduceat(weight[order], first) if m \
                else np.zeros(0)
            assert got[3][k].tobytes() == want.tobytes()
        # end marks (negative tokens) mixed in, their states out of range: left out, unread
        ends = rng.random(len(token)) < 0.2
        mixed = [np.where(ends, bad, x) for x, bad in ((token, -1), (src, -1), (dst, n + 99))]
        with_ends = _sparse.combine_arcs(n, *mixed, np.where(ends, np.nan, weight), kinds)
        without = _sparse.combine_arcs(n, token[~ends], src[~ends], dst[~ends], weight[~ends],
                                       kinds)
        assert all(a.tobytes() == b.tobytes() for a, b in zip(with_ends, without))


@pytest.mark.parametrize("direction", ["ltr", "rtl"])
def test_lattice_arcs_combined_as_numpy_combines_them(direction):
    rng = np.random.default_rng(3)
    symbols = SYMBOLS + ("!", "?")
    for hidden in (frozenset(), frozenset({"<unk>", ","})):
        builder = LatticeBuilder(Channel.random(symbols, direction, rng), hidden)
        weights = builder.arc_weights()
        for _ in range(30):
            surface = tuple(rng.choice(symbols[1:], rng.integers(0, 4)).tolist())
            for kinds in ([False], [True], [False, True], [True, False]):
                got = builder.lattices(surface, weights, kinds)
                for lat, want in zip(got, _numpy_lattices(builder, surface, weights, kinds)):
                    # uint16 arcs: a decode's slot cache keeps every lattice for its whole run
                    assert lat.token.dtype == lat.src.dtype == lat.dst.dtype == np.uint16
                    for mine, theirs in zip((lat.token, lat.src, lat.dst, lat.weight), want):
                        np.testing.assert_array_equal(mine, theirs)
