"""Slot lattices: acceptance weights equal the channel's p(x|u); closures equal their series."""
import itertools

import numpy as np
import pytest

from fstpunct.channel import Channel
from fstpunct.lattice import LatticeBuilder, product_stack

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
