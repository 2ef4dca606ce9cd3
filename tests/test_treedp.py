"""The tree DP against brute-force enumeration over the slot-wise definition (DESIGN §3).

Brute force: for every choice of candidate per node, slot i's matrices are, in order, the prefix
(slot 0), the right matrices of constituents ending at i (innermost first), then the left matrices
of constituents starting at i (outermost first); the n = 0 pseudo node contributes left then right.
Each slot's value is enumerated over all state sequences (sum or max). Candidate j uses its own
``lefts[left_of[j]]`` and ``rights[right_of[j]]``: the unfactored definition, whatever matrices
the candidates share.
"""
import contextlib
import itertools
from dataclasses import replace
from unittest import mock

import numpy as np
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st
from scipy import stats

from fstpunct.dp import treedp
from fstpunct.dp.semiring import MaxProduct
from fstpunct.dp.stacks import DenseStack, SparseStack
from fstpunct.dp.treedp import (
    Candidates,
    MatrixTree,
    MatrixTreeError,
    ZeroWeightError,
    inside,
    log_partition,
    outside,
    posteriors,
    sample,
    viterbi,
)
from fstpunct.ud.tree import spans

SEEDS = st.integers(0, 2**32 - 1)
SIZES = st.integers(0, 4)
FAST = settings(max_examples=150, deadline=None)


# --- random matrix trees --------------------------------------------------------------------------

def random_heads(rng: np.random.Generator, lo: int, hi: int,
                 parent: int = 0) -> list[tuple[int, int]]:
    """(word, head) arcs of a random projective subtree over words lo..hi under ``parent``."""
    if lo > hi:
        return []
    h = int(rng.integers(lo, hi + 1))
    arcs = [(h, parent)]
    for a, b in ((lo, h - 1), (h + 1, hi)):
        while a <= b:  # split the side into consecutive child subtrees
            end = int(rng.integers(a, b + 1))
            arcs += random_heads(rng, a, end, h)
            a = end + 1
    return arcs


def random_array(rng: np.random.Generator, shape: tuple[int, ...], zeros: float) -> np.ndarray:
    x = rng.uniform(0.05, 1.0, shape)
    return np.where(rng.random(shape) < zeros, 0.0, x)


def random_candidates(rng: np.random.Generator, j: int, ni: int, nk: int, zeros: float,
                      share: bool) -> Candidates:
    """j candidates; with ``share``, over 1..j distinct left and 1..j distinct right matrices
    (some pairs possibly repeated, some matrices possibly unused)."""
    a, c = (int(rng.integers(1, j + 1)) for _ in "ac") if share else (j, j)
    left_of = rng.integers(0, a, j) if share else np.arange(j)
    right_of = rng.integers(0, c, j) if share else np.arange(j)
    return Candidates(random_array(rng, (j,), zeros), random_array(rng, (a, ni, ni), zeros),
                      random_array(rng, (c, nk, nk), zeros), left_of, right_of)


def random_tree(rng: np.random.Generator, n: int, zeros: float = 0.15, max_states: int = 3,
                max_cands: int = 3, min_states: int = 1, share: float = 0.5) -> MatrixTree:
    """A random projective tree; each node shares matrices with probability ``share``."""
    heads = [h for _, h in sorted(random_heads(rng, 1, n))]
    states = rng.integers(min_states, max_states + 1, n + 1)
    sp = spans(heads) if n else [(0, 0)]
    nodes = []
    for i, k in sp:
        j = int(rng.integers(1, max_cands + 1))
        nodes.append(random_candidates(rng, j, states[i], states[k], zeros,
                                       bool(rng.random() < share)))
    def vector(size: int) -> np.ndarray:  # trimmed lattices: some start and some final state
        x = random_array(rng, (size,), zeros)
        x[rng.integers(size)] = rng.uniform(0.05, 1.0)
        return x

    return MatrixTree(heads, [vector(s) for s in states], [vector(s) for s in states],
                      random_array(rng, (states[0], states[0]), zeros), nodes)


# --- brute force ----------------------------------------------------------------------------------

def left(c: Candidates, j: int) -> np.ndarray:
    return np.asarray(c.lefts)[c.left_of[j]]


def right(c: Candidates, j: int) -> np.ndarray:
    return np.asarray(c.rights)[c.right_of[j]]


def slot_matrices(tree: MatrixTree, choice: tuple[int, ...]) -> list[list[np.ndarray]]:
    n = len(tree.heads)
    slots: list[list[np.ndarray]] = [[tree.prefix]] + [[] for _ in range(n)]
    if n == 0:
        node = tree.nodes[0]
        return [[tree.prefix, left(node, choice[0]), right(node, choice[0])]]
    sp = spans(tree.heads)
    by_len = sorted(range(n), key=lambda v: sp[v][1] - sp[v][0])
    for v in by_len:  # innermost first
        slots[sp[v][1]].append(right(tree.nodes[v], choice[v]))
    for v in reversed(by_len):  # outermost first, after the right matrices
        slots[sp[v][0]].append(left(tree.nodes[v], choice[v]))
    return slots


def paths(lam: np.ndarray, mats: list[np.ndarray], rho: np.ndarray) -> np.ndarray:
    """The weight of every state sequence through the slot (one axis per state)."""
    x = lam
    for m in mats:
        x = x[..., :, None] * m
    return x * rho


def enumerate_choices(tree: MatrixTree, reduce=np.sum) -> dict[tuple[int, ...], float]:
    out = {}
    for choice in itertools.product(*(range(len(c.weights)) for c in tree.nodes)):
        value = np.prod([c.weights[j] for c, j in zip(tree.nodes, choice)])
        for lam, mats, rho in zip(tree.start, slot_matrices(tree, choice), tree.final):
            value *= reduce(paths(lam, mats, rho))
        out[choice] = float(value)
    return out


# --- matrix representations ----------------------------------------------------------------------

REPRESENTATIONS = ("dense", "sparse")


def representation(mode: str):
    """Hold every node's matrices as given (dense) or as a SparseStack (CSR; max products by
    row-length blocks), which is what the model uses."""
    if mode == "dense":
        return contextlib.nullcontext()
    checked = treedp._stack

    def sparse(*args):
        stack = checked(*args)
        return SparseStack.of(stack.mats) if isinstance(stack, DenseStack) else stack

    return mock.patch.object(treedp, "_stack", sparse)


# --- exactness on small trees ---------------------------------------------------------------------

@FAST
@given(SIZES, SEEDS, st.sampled_from(REPRESENTATIONS))
@example(0, 1, "dense")
@example(1, 2, "dense")
def test_log_partition_and_posteriors_match_enumeration(n, seed, mode):
    tree = random_tree(np.random.default_rng(seed), n)
    values = enumerate_choices(tree)
    z = sum(values.values())
    with representation(mode):
        if z == 0:
            with pytest.raises(ZeroWeightError, match="zero total weight"):
                log_partition(tree)
            return
        assert log_partition(tree) == pytest.approx(np.log(z), rel=1e-10, abs=1e-10)
        post = posteriors(tree)
    for v, p in enumerate(post):
        expected = np.zeros(len(tree.nodes[v].weights))
        for choice, value in values.items():
            expected[choice[v]] += value / z
        np.testing.assert_allclose(p, expected, atol=1e-10)
        assert p.sum() == pytest.approx(1.0)


@FAST
@given(SIZES, SEEDS, st.sampled_from(REPRESENTATIONS))
@example(0, 1, "dense")
@example(1, 2, "dense")
def test_viterbi_attains_enumerated_max(n, seed, mode):
    tree = random_tree(np.random.default_rng(seed), n)
    values = enumerate_choices(tree, reduce=np.max)
    best = max(values.values())
    with representation(mode):
        if best == 0:
            with pytest.raises(ZeroWeightError):
                viterbi(tree)
            return
        choice, score = viterbi(tree)
    assert score == pytest.approx(np.log(best), rel=1e-10, abs=1e-10)
    assert values[tuple(choice)] == pytest.approx(best, rel=1e-10)


GROUPS = ("weights", "lefts", "rights", "start", "final", "prefix")
GRADIENT = {"lefts": "left", "rights": "right"}  # Gradients' name of a Candidates field


def params(tree: MatrixTree, group: str) -> list[np.ndarray]:
    """The arrays of one parameter group, listed as :class:`Gradients` lists them."""
    if group in ("weights", "lefts", "rights"):
        return [np.asarray(getattr(c, group), dtype=float) for c in tree.nodes]
    return [np.asarray(tree.prefix)] if group == "prefix" else list(getattr(tree, group))


def with_params(tree: MatrixTree, group: str, values: list[np.ndarray]) -> MatrixTree:
    if group in ("weights", "lefts", "rights"):
        return replace(tree, nodes=[replace(c, **{group: x}) for c, x in zip(tree.nodes, values)])
    return replace(tree, **{group: values[0] if group == "prefix" else values})


def check_gradients(tree: MatrixTree, rng: np.random.Generator, rel: float = 1e-5) -> None:
    grads = outside(tree, inside(tree))
    eps = 1e-6
    for group in GROUPS:
        xs = params(tree, group)
        dirs = [rng.normal(size=x.shape) for x in xs]

        def f(e: float, group: str = group, xs: list = xs, dirs: list = dirs) -> float:
            return log_partition(with_params(tree, group, [x + e * d for x, d in zip(xs, dirs)]))

        g = getattr(grads, GRADIENT.get(group, group))
        assert all(np.shape(a) == x.shape for a, x in zip([g] if group == "prefix" else g, xs))
        analytic = sum(float(np.sum(a * d)) for a, d in zip([g] if group == "prefix" else g, dirs))
        assert analytic == pytest.approx((f(eps) - f(-eps)) / (2 * eps), rel=rel, abs=1e-6), group


@FAST
@given(SIZES, SEEDS, st.sampled_from(REPRESENTATIONS))
@example(0, 1, "dense")
@example(1, 2, "dense")
def test_gradients_match_finite_differences(n, seed, mode):
    rng = np.random.default_rng(seed)
    tree = random_tree(rng, n)
    if sum(enumerate_choices(tree).values()) == 0:
        return
    with representation(mode):
        check_gradients(tree, rng)


# --- shared matrices ------------------------------------------------------------------------------

@FAST
@given(st.integers(0, 2), SEEDS, st.sampled_from(REPRESENTATIONS), st.integers(2, 3))
def test_many_candidates_over_few_matrices_match_enumeration(n, seed, mode, max_states):
    """Every node shares: A < J and C < J typically, repeated (left, right) pairs included."""
    rng = np.random.default_rng(seed)
    tree = random_tree(rng, n, zeros=0.1, max_states=max_states, min_states=2, max_cands=6,
                       share=1.0)
    values = enumerate_choices(tree)
    z = sum(values.values())
    if z == 0:
        return
    with representation(mode):
        assert log_partition(tree) == pytest.approx(np.log(z), rel=1e-10)
        for v, p in enumerate(posteriors(tree)):
            expected = np.zeros(len(tree.nodes[v].weights))
            for choice, value in values.items():
                expected[choice[v]] += value / z
            np.testing.assert_allclose(p, expected, atol=1e-10)
        check_gradients(tree, rng)
        best = max(enumerate_choices(tree, reduce=np.max).items(), key=lambda kv: kv[1])[1]
        choice, score = viterbi(tree)
    assert score == pytest.approx(np.log(best), rel=1e-10)
    assert enumerate_choices(tree, reduce=np.max)[tuple(choice)] == pytest.approx(best, rel=1e-10)


def test_both_representations_give_the_same_chart():
    rng = np.random.default_rng(5)
    tree = random_tree(rng, 6, zeros=0.3, min_states=2, max_states=4, max_cands=8, share=1.0)
    reference = outside(tree, inside(tree))
    with representation("sparse"):
        grads = outside(tree, inside(tree))
        choice, score = viterbi(tree)
    assert choice == viterbi(tree)[0] and score == pytest.approx(viterbi(tree)[1], rel=1e-12)
    assert grads.log_z == pytest.approx(reference.log_z, rel=1e-12)
    for group in ("weights", "left", "right", "start", "final"):
        for a, b in zip(getattr(grads, group), getattr(reference, group)):
            np.testing.assert_allclose(a, b, rtol=1e-9, atol=1e-12)


def test_from_pairs_shares_matrices_by_identity():
    rng = np.random.default_rng(0)
    a, b, c = (rng.random((2, 2)) for _ in range(3))
    cand = Candidates.from_pairs([0.1, 0.2, 0.3, 0.4], [a, b, a, a.copy()], [c, c, c, c])
    assert cand.lefts.shape == (3, 2, 2) and cand.rights.shape == (1, 2, 2)
    assert cand.left_of.tolist() == [0, 1, 0, 2] and cand.right_of.tolist() == [0, 0, 0, 0]
    np.testing.assert_array_equal(cand.lefts[2], a)
    assert Candidates.from_pairs([], [], []).lefts.shape[0] == 0


def test_repeated_pair_viterbi_takes_the_heaviest_and_sampling_splits_by_weight():
    rng = np.random.default_rng(1)
    m, one = rng.uniform(0.1, 1, (2, 3, 3)), np.ones((1, 1, 1))
    tree = MatrixTree([0], [np.ones(3), np.ones(3)], [np.ones(3), np.ones(3)], np.eye(3),
                      [Candidates(np.array([0.2, 0.5, 0.3, 0.01]), m, m, np.array([0, 0, 0, 1]),
                                  np.array([1, 1, 1, 0]))])
    assert viterbi(tree)[0] == [1]
    post = posteriors(tree)[0]
    np.testing.assert_allclose(post[:3] / post[:3].sum(), [0.2, 0.5, 0.3])
    draws = np.bincount([d[0] for d in sample(tree, rng, 4000)], minlength=4) / 4000
    np.testing.assert_allclose(draws, post, atol=0.03)
    scalar = MatrixTree([0], [np.ones(1)] * 2, [np.ones(1)] * 2, np.eye(1),
                        [Candidates(np.array([0.2, 0.5, 0.5]), one, one, np.zeros(3, int),
                                    np.zeros(3, int))])
    assert viterbi(scalar)[0] == [1]


@pytest.mark.parametrize("seed", range(4))
def test_samples_follow_the_posterior(seed):
    rng = np.random.default_rng(seed)
    values: dict[tuple[int, ...], float] = {}  # states >= 2: sampling them must matter
    while sum(v > 0 for v in values.values()) < 4:  # some zeros, but several possible choices
        tree = random_tree(rng, 4, zeros=0.1, max_cands=3 if seed % 2 else 2, min_states=2,
                           share=0.5 if seed % 2 else 0.0)
        values = enumerate_choices(tree)
    z = sum(values.values())
    with representation(REPRESENTATIONS[seed % 2]):
        draws = sample(tree, np.random.default_rng(100 + seed), 3000)
        post = posteriors(tree)
    counts = {c: 0 for c in values}
    for d in draws:
        counts[tuple(d)] += 1
    assert all(values[c] > 0 for c, k in counts.items() if k)
    support = [c for c in values if values[c] > 0]
    observed = np.array([counts[c] for c in support])
    expected = np.array([values[c] / z * len(draws) for c in support])
    assert stats.chisquare(observed, expected).pvalue > 1e-3
    for v, p in enumerate(post):
        freq = np.bincount([d[v] for d in draws], minlength=len(p)) / len(draws)
        np.testing.assert_allclose(freq, p, atol=0.04)


# --- long sentences, errors -----------------------------------------------------------------------

def test_long_sentence_with_scalar_slots_has_closed_form():
    rng = np.random.default_rng(7)
    n = 250
    tree = random_tree(rng, n, zeros=0.0, max_states=1)
    tree.start = [1e-3 * s for s in tree.start]  # Z ~ 1e-1500: far below float range
    per_node = [c.weights * np.array([left(c, j)[0, 0] * right(c, j)[0, 0]
                                      for j in range(len(c.weights))]) for c in tree.nodes]
    expected = (np.log(tree.prefix[0, 0]) + sum(np.log(s[0]) + np.log(f[0])
                                               for s, f in zip(tree.start, tree.final))
                + sum(np.log(p.sum()) for p in per_node))
    assert log_partition(tree) == pytest.approx(expected, rel=1e-10)
    for p, q in zip(posteriors(tree), per_node):
        np.testing.assert_allclose(p, q / q.sum(), atol=1e-10)


def test_long_random_sentence_is_finite():
    rng = np.random.default_rng(11)
    tree = random_tree(rng, 250, zeros=0.0)
    for c in tree.nodes:
        c.weights = 1e-3 * c.weights
    chart = inside(tree)
    assert np.isfinite(chart.log_total) and chart.log_total < -1500  # would underflow unscaled
    grads = outside(tree, chart)
    for p in posteriors(tree):
        assert p.sum() == pytest.approx(1.0, abs=1e-9) and np.all(p >= 0)
    assert all(np.isfinite(g).all() for g in grads.left + grads.right + grads.start + grads.final)
    for group in ("weights", "lefts", "rights"):  # relative directions: the gradients stay exact
        xs = params(tree, group)
        dirs = [rng.normal(size=x.shape) * x for x in xs]
        eps = 1e-6
        up, down = (log_partition(with_params(tree, group, [x + e * d for x, d in zip(xs, dirs)]))
                    for e in (eps, -eps))
        analytic = sum(float(np.sum(a * d))
                       for a, d in zip(getattr(grads, GRADIENT.get(group, group)), dirs))
        assert analytic == pytest.approx((up - down) / (2 * eps), rel=1e-4), group
    choice, score = viterbi(tree)
    assert np.isfinite(score) and score <= chart.log_total
    assert len(sample(tree, rng, 3)[2]) == 250


def test_zero_total_names_the_dead_node():
    tree = random_tree(np.random.default_rng(3), 3, zeros=0.0)
    tree.nodes[1].weights = np.zeros_like(tree.nodes[1].weights)
    with pytest.raises(ZeroWeightError, match=r"In\(node 2\) = 0"):
        log_partition(tree)
    with pytest.raises(ValueError):
        viterbi(tree)


def test_node_without_candidates_has_zero_total():
    tree = random_tree(np.random.default_rng(4), 2)
    tree.nodes[0] = Candidates.from_pairs(np.zeros(0), [], [])
    for run in (log_partition, viterbi):
        with pytest.raises(ZeroWeightError, match=r"In\(node 1\) = 0"):
            run(tree)


def test_zero_total_at_the_boundary():
    tree = random_tree(np.random.default_rng(3), 2, zeros=0.0)
    tree.final[2] = np.zeros_like(tree.final[2])
    with pytest.raises(ZeroWeightError, match="boundary"):
        posteriors(tree)


@pytest.mark.parametrize("heads, message", [
    ([0, 0], "one root"), ([2, 1], "one root"), ([0, 4, 1, 1], "projective"), ([3, 0], "range"),
])
def test_malformed_trees_are_rejected(heads, message):
    tree = random_tree(np.random.default_rng(0), len(heads), max_states=1, max_cands=1)
    tree.heads = heads
    with pytest.raises(MatrixTreeError, match=message):
        inside(tree)


def test_wrong_matrix_shape_is_rejected():
    tree = random_tree(np.random.default_rng(0), 2, max_states=1, max_cands=1)
    tree.nodes[0].lefts = np.ones((1, 2, 2))
    with pytest.raises(MatrixTreeError, match="node 1: left"):
        inside(tree)


def test_wrong_candidate_index_is_rejected():
    for states in (1, 2):
        tree = random_tree(np.random.default_rng(0), 2, min_states=states, max_states=states,
                           max_cands=1)
        tree.nodes[1].right_of = np.array([1])
        with pytest.raises(MatrixTreeError, match="node 2: left_of or right_of out of range"):
            inside(tree)


def test_outside_needs_a_sum_product_chart():
    tree = random_tree(np.random.default_rng(0), 2, zeros=0.0)
    with pytest.raises(ValueError, match="SumProduct"):
        outside(tree, inside(tree, MaxProduct))
