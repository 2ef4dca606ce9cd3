"""The M-step's L-BFGS against scipy's L-BFGS-B without bounds: the same iterations, evaluations
and stopping reasons, iterates equal up to the order of the sums (over tens of iterations: on a
badly scaled problem, rounding differences grow along a long run, as between any two
implementations)."""
from concurrent.futures import ThreadPoolExecutor

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from scipy.optimize import minimize as scipy_minimize

from fstpunct.model import _lbfgs, lbfgs
from fstpunct.model.lbfgs import minimize


def _logistic(n: int, rows: int, seed: int, l2: float = 0.1):
    """A regularised logistic loss (smooth, convex) and its gradient."""
    rng = np.random.default_rng(seed)
    a = rng.normal(size=(rows, n)) * rng.uniform(0.1, 3.0, size=n)  # badly scaled columns
    labels = rng.integers(0, 2, rows)

    def fun(x):
        z = a @ x
        value = np.sum(np.logaddexp(0.0, z)) - labels @ z + 0.5 * l2 * x @ x
        return value, a.T @ (1.0 / (1.0 + np.exp(-z)) - labels) + l2 * x
    return fun


@pytest.mark.parametrize("maxiter", [1, 2, 7, 40])
@pytest.mark.parametrize("m", [3, 10])
def test_minimize_follows_scipy_lbfgsb(maxiter, m):
    fun = _logistic(120, 300, seed=maxiter + m)
    ours = minimize(fun, np.zeros(120), maxiter, m=m)
    theirs = scipy_minimize(fun, np.zeros(120), jac=True, method="L-BFGS-B",
                            options={"maxiter": maxiter, "maxcor": m})
    assert (ours.nit, ours.nfev) == (theirs.nit, theirs.nfev)
    assert ours.fun == pytest.approx(theirs.fun, rel=1e-12)
    np.testing.assert_allclose(ours.x, theirs.x, rtol=0, atol=1e-8 * np.abs(theirs.x).max())
    assert ("maxiter" in ours.message) == (theirs.status == 1)


def test_minimize_converges_where_scipy_does():
    fun = _logistic(40, 200, seed=3, l2=1.0)
    ours = minimize(fun, np.zeros(40), 500)
    theirs = scipy_minimize(fun, np.zeros(40), jac=True, method="L-BFGS-B",
                            options={"maxiter": 500})
    assert ours.message.startswith("converged") and theirs.status == 0
    assert ours.fun == pytest.approx(theirs.fun, rel=1e-9)
    assert abs(ours.nit - theirs.nit) <= 2


def test_minimize_stops_at_a_small_gradient():
    target = np.array([1.0, -2.0, 3.0])

    def fun(x):
        return 0.5 * float((x - target) @ (x - target)), x - target
    start = minimize(fun, target.copy(), 10)
    assert (start.nit, start.nfev) == (0, 1) and "pgtol" in start.message
    done = minimize(fun, np.zeros(3), 10)
    np.testing.assert_allclose(done.x, target, atol=1e-5)
    assert "converged" in done.message and done.nit < 10


def test_minimize_gives_up_without_a_descent_direction():
    """A gradient that disagrees with the values: every line search fails, from −g too."""
    result = minimize(lambda x: (float(-x @ x), x.copy()), np.ones(4), 5)
    assert result.message.startswith("abnormal")
    np.testing.assert_array_equal(result.x, np.ones(4))


def test_minimize_falls_back_to_scipy_without_its_line_search(monkeypatch):
    """scipy's private line search moved or gone: scipy's L-BFGS-B runs, with the same options."""
    import sys
    monkeypatch.setitem(sys.modules, "scipy.optimize._dcsrch", None)  # import fails
    fun = _logistic(30, 100, seed=5)
    ours = minimize(fun, np.zeros(30), 7, m=4)
    theirs = scipy_minimize(fun, np.zeros(30), jac=True, method="L-BFGS-B",
                            options={"maxiter": 7, "maxcor": 4})
    assert (ours.nit, ours.nfev, ours.fun) == (theirs.nit, theirs.nfev, theirs.fun)
    np.testing.assert_array_equal(ours.x, theirs.x)


# The compiled passes (fstpunct.model._lbfgs) against numpy, chunk by chunk.

def _chunked(kernel, n, chunk, *args, splits=()):
    """Run a pass over all chunks, cut at ``splits`` (chunk indices) into separate calls."""
    n_chunks = -(-n // chunk)
    bounds = [0, *splits, n_chunks]
    for first, last in zip(bounds[:-1], bounds[1:]):
        kernel(*args, chunk, first, last)


@given(st.integers(0, 2**32 - 1), st.integers(1, 70), st.sampled_from([1, 3, 4, 8, 13, 64]),
       st.integers(0, 7), st.booleans())
def test_update_stores_the_pair_and_takes_numpys_products(seed, n, chunk, k, pair):
    rng = np.random.default_rng(seed)
    rows = rng.normal(size=(2 * 4 + 2, n)) * rng.choice([1e-8, 1.0, 1e8], size=(10, 1))
    d, g, g_old = rng.normal(size=(3, n))
    stp = float(rng.uniform(0.1, 3.0))
    which = rng.choice(8, size=k, replace=False).astype(np.intp)
    s_row, y_row = (8, 9) if pair else (-1, -1)
    if pair:
        which[-1:] = 9 if k else which[-1:]  # the new y among the rows
    before = rows.copy()
    n_chunks = -(-n // chunk)
    out, top = np.full((n_chunks, k, 2), np.nan), np.full(n_chunks, np.nan)
    _chunked(_lbfgs.update, n, chunk, rows, which, s_row, y_row, d, stp, g, g_old, out, top)
    if pair:
        assert rows[8].tobytes() == (stp * d).tobytes()
        assert rows[9].tobytes() == (g - g_old).tobytes()
    assert rows[:8].tobytes() == before[:8].tobytes()
    products = out.sum(axis=0)
    y = g - g_old if pair else np.zeros(n)
    for column, vector in enumerate((g, y)):  # to the rounding of the sums of |terms|
        error = np.abs(products[:, column] - rows[which] @ vector)
        assert np.all(error <= 1e-13 * (np.abs(rows[which]) @ np.abs(vector)))
    assert top.max() == np.abs(g).max()
    # the same bits whatever the calls' split, and from the portable loops
    again, top2 = np.empty_like(out), np.empty_like(top)
    rows[8:] = before[8:]
    _chunked(_lbfgs.update, n, chunk, rows, which, s_row, y_row, d, stp, g, g_old, again,
             top2, splits=sorted({n_chunks // 2, n_chunks // 3}))
    assert again.tobytes() == out.tobytes() and top2.tobytes() == top.tobytes()
    for c in range(n_chunks):
        rows[8:] = before[8:]
        _lbfgs.update(rows, which, s_row, y_row, d, stp, g, g_old, again, top2, chunk, c, c + 1,
                      False)
    assert again.tobytes() == out.tobytes() and top2.tobytes() == top.tobytes()


@given(st.integers(0, 2**32 - 1), st.integers(1, 2100), st.sampled_from([5, 64, 1024, 4096]),
       st.integers(0, 9))
def test_direction_is_numpys_combination(seed, n, chunk, k):
    rng = np.random.default_rng(seed)
    rows = rng.normal(size=(12, n)) * rng.choice([1e-8, 1.0, 1e8], size=(12, 1))
    which = rng.permutation(12)[:k].astype(np.intp)
    coef, g = rng.normal(size=k), rng.normal(size=n)
    gamma = float(rng.uniform(0.1, 10.0))
    n_chunks = -(-n // chunk)
    d, out = np.full(n, np.nan), np.full((n_chunks, 2), np.nan)
    _chunked(_lbfgs.direction, n, chunk, rows, which, coef, gamma, g, d, out)
    expected = -(coef @ rows[which] + gamma * g)
    scale = np.abs(coef) @ np.abs(rows[which]) + gamma * np.abs(g)
    assert np.all(np.abs(d - expected) <= 1e-14 * scale)
    in_order = np.zeros(n)  # each entry's terms in the order of the rows: the same bits
    for c, row in zip(coef, rows[which]):
        in_order = in_order + c * row
    assert d.tobytes() == (-(in_order + gamma * g)).tobytes()
    gd, dd = out.sum(axis=0)
    assert gd == pytest.approx(float(d @ g), rel=1e-12, abs=1e-12 * float(np.abs(d) @ np.abs(g)))
    assert dd == pytest.approx(float(d @ d), rel=1e-12)
    portable, again = np.empty(n), np.empty_like(out)
    for c in range(n_chunks):
        _lbfgs.direction(rows, which, coef, gamma, g, portable, again, chunk, c, c + 1, False)
    assert portable.tobytes() == d.tobytes() and again.tobytes() == out.tobytes()


@given(st.integers(0, 2**32 - 1), st.integers(0, 300), st.sampled_from([1, 4, 7, 256]))
def test_step_and_dot_are_numpys(seed, n, chunk):
    rng = np.random.default_rng(seed)
    x, d = rng.normal(size=(2, n))
    for stp in (1.0, float(rng.uniform(0.0, 2.0))):
        out = np.full(n, np.nan)
        _chunked(_lbfgs.step, n, chunk, x, d, stp, out)
        assert out.tobytes() == (x + stp * d).tobytes()
    n_chunks = -(-n // chunk)
    partial, portable = np.empty(n_chunks), np.empty(n_chunks)
    _chunked(_lbfgs.dot, n, chunk, x, d, partial)
    assert partial.sum() == pytest.approx(float(x @ d), abs=1e-13 * float(np.abs(x) @ np.abs(d)))
    for c in range(n_chunks):
        _lbfgs.dot(x, d, portable, chunk, c, c + 1, False)
    assert portable.tobytes() == partial.tobytes()


def test_update_tells_max_abs_g_with_signed_zeros_and_nan():
    rows, which = np.zeros((2, 6)), np.zeros(0, dtype=np.intp)
    for g, expected in (([-0.0, 0.0, -3.0, 2.0, 1.0, -0.5], 3.0), ([0.0] * 6, 0.0)):
        top = np.empty(1)
        _lbfgs.update(rows, which, -1, -1, np.zeros(6), 1.0, np.array(g), np.zeros(6),
                      np.empty((1, 0, 2)), top, 8, 0, 1)
        assert top[0] == expected
    for at in range(6):  # NaN in the vector body and in the tail
        g, top = np.ones(6), np.empty(1)
        g[at] = np.nan
        _lbfgs.update(rows, which, -1, -1, np.zeros(6), 1.0, g, np.zeros(6),
                      np.empty((1, 0, 2)), top, 8, 0, 1)
        assert np.isnan(top[0])


def test_passes_refuse_what_is_out_of_range():
    rows, v = np.zeros((4, 10)), np.zeros(10)
    one, out, top = np.zeros(1, dtype=np.intp), np.zeros((3, 1, 2)), np.zeros(3)
    with pytest.raises(ValueError, match="row 4"):
        _lbfgs.update(rows, one + 4, -1, -1, v, 1.0, v, v, out, top, 4, 0, 3)
    with pytest.raises(ValueError, match="rows"):
        _lbfgs.update(rows, one, 1, 4, v, 1.0, v, v, out, top, 4, 0, 3)
    with pytest.raises(ValueError, match="chunks"):
        _lbfgs.update(rows, one, -1, -1, v, 1.0, v, v, out, top, 4, 0, 4)
    with pytest.raises(ValueError, match="lengths"):
        _lbfgs.update(rows, one, -1, -1, np.zeros(9), 1.0, v, v, out, top, 4, 0, 3)
    with pytest.raises(ValueError, match="chunks"):
        _lbfgs.direction(rows, one, np.ones(1), 1.0, v, v.copy(), np.zeros((3, 2)), 3, 0, 4)
    with pytest.raises(ValueError, match="row -1"):
        _lbfgs.direction(rows, one - 1, np.ones(1), 1.0, v, v.copy(), np.zeros((3, 2)), 4, 0, 3)
    with pytest.raises(ValueError, match="chunks"):
        _lbfgs.step(v, v, 1.0, v.copy(), 4, 2, 4)
    with pytest.raises(ValueError, match="lengths"):
        _lbfgs.dot(v, np.zeros(11), np.zeros(3), 4, 0, 3)


def _two_loop(pairs, g):
    """−H g by the two-loop recursion over (s, y) pairs, oldest first, γ = sᵀy / yᵀy of the
    newest (the readable reference of the compact form)."""
    q, alphas = g.copy(), []
    for s, y in reversed(pairs):
        alpha = (s @ q) / (s @ y)
        q -= alpha * y
        alphas.append(alpha)
    s, y = pairs[-1]
    r = (s @ y) / (y @ y) * q
    for (s, y), alpha in zip(pairs, reversed(alphas)):
        r += (alpha - (y @ r) / (s @ y)) * s
    return -r


@pytest.mark.parametrize("workers", [1, 2])
def test_memory_direction_is_the_two_loop_recursion(monkeypatch, workers):
    """Pairs appended through the ring (more than m), some updates without a pair: the direction
    from the compact form and the passes' products is the two-loop recursion's."""
    monkeypatch.setattr(lbfgs, "CHUNK", 16)
    rng = np.random.default_rng(7)
    n, m = 101, 4
    with ThreadPoolExecutor(workers) as pool:
        memory = lbfgs._Memory(n, m, lbfgs._Passes(n, pool, workers))
        g, pairs, d = rng.normal(size=n), [], np.empty(n)
        for it in range(9):
            memory.direction(g, d)
            step, g_new = rng.uniform(0.5, 1.5), g + rng.normal(size=n)
            s, y = step * d, g_new - g
            keep = it != 5 and float(s @ y) > 0
            top = memory.update(g_new, g, d, step, float(s @ y) if keep else None)
            assert top == np.abs(g_new).max()
            if keep:
                pairs = (pairs + [(s, y)])[-m:]
            g = g_new
            gd, dd = memory.direction(g, d)
            expected = _two_loop(pairs, g) if pairs else -g
            np.testing.assert_allclose(d, expected, rtol=1e-9, atol=1e-12 * np.abs(expected).max())
            assert gd == pytest.approx(float(g @ d), rel=1e-12)
            assert dd == pytest.approx(float(d @ d), rel=1e-12)


@pytest.mark.parametrize("maxiter", [3, 25])
def test_minimize_is_the_same_on_any_number_of_threads(monkeypatch, maxiter):
    monkeypatch.setattr(lbfgs, "CHUNK", 8)  # 15 chunks: each thread takes several
    fun = _logistic(120, 300, seed=11)
    alone = minimize(fun, np.zeros(120), maxiter, m=5)
    for workers in (2, 3):
        with ThreadPoolExecutor(workers) as pool:
            shared = minimize(fun, np.zeros(120), maxiter, m=5, threads=pool, workers=workers)
        assert shared.x.tobytes() == alone.x.tobytes() and shared.fun == alone.fun
        assert (shared.nit, shared.nfev) == (alone.nit, alone.nfev)


@pytest.mark.parametrize("n, parts", [(0, 1), (0, 3), (2, 3), (10, 3), (8192, 2), (12345, 7),
                                      (122, 14)])
def test_contiguous_ranges_cover_in_order(n: int, parts: int) -> None:
    """The threads' ranges (and a jackknife's folds): ``parts`` of them, in order, end to end
    from 0 to n, sizes at most one apart, bounds exactly i·n // parts (a float split's, e.g.
    ``np.linspace``'s rounded down, is one less at (122, 14))."""
    got = lbfgs.contiguous_ranges(n, parts)
    assert got == [(i * n // parts, (i + 1) * n // parts) for i in range(parts)]
    assert len(got) == parts and got[0][0] == 0 and got[-1][1] == n
    assert all(a == b for (_, a), (b, _) in zip(got, got[1:]))
    sizes = [b - a for a, b in got]
    assert min(sizes) >= 0 and max(sizes) - min(sizes) <= 1
