"""The M-step's L-BFGS against scipy's L-BFGS-B without bounds: the same iterations, evaluations
and stopping reasons, iterates equal up to the order of the sums (over tens of iterations: on a
badly scaled problem, rounding differences grow along a long run, as between any two
implementations)."""
import numpy as np
import pytest
from scipy.optimize import minimize as scipy_minimize

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
