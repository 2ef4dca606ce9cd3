"""Bitwise comparison of results that go through numpy's exponential: numpy's exp is libm's
unless numpy has a SIMD exp of its own for this machine (AVX512F); then only to a few units in
the last place."""
import math

import numpy as np

_PROBE = np.random.default_rng(0).normal(size=1000) * 20
LIBM_EXP = np.exp(_PROBE).tobytes() == np.array([math.exp(x) for x in _PROBE]).tobytes()


def same(a, b) -> None:
    """``a`` and ``b`` bitwise equal (where numpy's exp is libm's), else to 1e-13."""
    if LIBM_EXP:
        assert np.asarray(a).tobytes() == np.asarray(b).tobytes()
    else:
        np.testing.assert_allclose(a, b, rtol=1e-13, atol=1e-300)
