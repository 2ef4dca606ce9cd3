"""The compiled outside pass and sampler (fstpunct.dp.forest.outside and sample) against the
Python reference (dp.treedp.outside and sample, checked against brute force and finite
differences in test_treedp.py) on random trees: every gradient of log Z, and the same draws from
the same generator."""
import numpy as np
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st
from test_forest import coarse, sparse
from test_model import corpora, make_model
from test_treedp import random_tree

from fstpunct.dp import forest, treedp
from fstpunct.dp.treedp import ZeroWeightError
from fstpunct.model.punct import Inference

SEEDS = st.integers(0, 2**32 - 1)


def dense_terms(out: forest.Outside, fo: forest.Forest) -> dict[int, np.ndarray]:
    """∂log Z/∂(every matrix of every stack the terms touch), (A, N, N) per stack."""
    grads: dict[int, np.ndarray] = {}
    terms = out.terms
    for r in range(len(terms)):
        stack = fo.stacks[terms.stack[r]]
        g = grads.setdefault(int(terms.stack[r]), np.zeros((stack.count, stack.size, stack.size)))
        p, q = terms.vectors(r)
        lo, hi = terms.coef_at[r], terms.coef_at[r + 1]
        for a, c in zip(terms.matrix[lo:hi], terms.coef[lo:hi]):
            g[a] += c * np.outer(p, q)
    return grads


def check(trees: list[treedp.MatrixTree], part: range | None = None) -> None:
    """Every tree with Z > 0 in one forest: log Z, ∂log Z/∂weights, ∂/∂λ, ∂/∂ρ, ∂/∂prefix and
    ∂/∂(every left and right matrix) as the reference gives them, to rounding."""
    kept = []
    for t in trees:
        try:
            treedp.inside(t)
            kept.append(t)
        except ZeroWeightError:
            pass
    if not kept:
        return
    fo = forest.from_trees(kept)
    if part is not None:  # of the sentences kept
        part = range(min(part.start, len(kept)), min(part.stop, len(kept)))
    lo, hi = (0, len(kept)) if part is None else (part.start, part.stop)
    out = forest.outside(fo, lambda s: treedp.inside(kept[s]), part)
    grads = dense_terms(out, fo)
    close = {"rtol": 1e-9, "atol": 1e-12}
    for s in range(lo, hi):
        tree = kept[s]
        ref = treedp.outside(tree, treedp.inside(tree))
        assert out.log_z[s - lo] == pytest.approx(ref.log_z, rel=1e-12, abs=1e-12)
        node0 = fo.node_offsets[s]
        for v in range(len(tree.nodes)):
            g = node0 + v
            a, b = fo.candidate_offsets[g] - fo.candidate_offsets[fo.node_offsets[lo]], \
                fo.candidate_offsets[g + 1] - fo.candidate_offsets[fo.node_offsets[lo]]
            np.testing.assert_allclose(out.weights[a:b], ref.weights[v], **close)
            for stack, expected in ((fo.node_left[g], ref.left[v]), (fo.node_right[g],
                                                                     ref.right[v])):
                got = grads.get(int(stack), np.zeros_like(expected))
                np.testing.assert_allclose(got, expected, **close)
        slot0 = fo.word_offsets[s] + s
        for i in range(len(tree.start)):
            np.testing.assert_allclose(out.slot_vector(out.final, slot0 + i), ref.final[i],
                                       **close)
            start = out.slot_vector(out.start, slot0 + i)
            if i == 0:  # ∂/∂e for e = λ₀ᵀ prefix
                np.testing.assert_allclose(np.asarray(tree.prefix) @ start, ref.start[0], **close)
                np.testing.assert_allclose(np.outer(tree.start[0], start), ref.prefix, **close)
            else:
                np.testing.assert_allclose(start, ref.start[i], **close)


@settings(max_examples=150, deadline=None)
@given(st.integers(0, 6), SEEDS, st.booleans(), st.booleans())
@example(0, 1, False, False)
@example(1, 2, True, True)
def test_outside_equals_reference(n, seed, ties, as_sparse):
    rng = np.random.default_rng(seed)
    tree = random_tree(rng, n, zeros=0.25, max_states=4, max_cands=5, share=0.6)
    if ties:
        tree = coarse(tree, rng)
    check([sparse(tree) if as_sparse else tree])


@settings(max_examples=30, deadline=None)
@given(SEEDS)
def test_outside_over_a_range_of_many_sentences(seed):
    rng = np.random.default_rng(seed)
    trees = [random_tree(rng, int(rng.integers(0, 8)), zeros=0.2, max_states=3, max_cands=4,
                         share=0.8) for _ in range(10)]
    check(trees)
    check(trees, range(3, 7))


def test_outside_of_long_sentences_stays_finite():
    rng = np.random.default_rng(11)
    trees = []
    for n in (200, 250):
        tree = random_tree(rng, n, zeros=0.0, max_states=3, max_cands=3)
        for c in tree.nodes:
            c.weights = 1e-3 * c.weights
        trees.append(tree)
    check(trees)


def test_outside_raises_the_reference_error():
    dead = random_tree(np.random.default_rng(3), 3, zeros=0.0)
    dead.nodes[1].weights = np.zeros_like(dead.nodes[1].weights)
    with pytest.raises(ZeroWeightError, match=r"In\(node 2\) = 0"):
        forest.outside(forest.from_trees([dead]), lambda s: treedp.inside(dead))


@settings(max_examples=60, deadline=None)
@given(st.integers(0, 6), SEEDS, st.booleans())
@example(0, 5, False)
def test_samples_equal_the_reference_draws(n, seed, ties):
    """The same generator gives the same draws, sentence after sentence, and is left in the
    same state."""
    rng = np.random.default_rng(seed)
    trees = [random_tree(rng, int(rng.integers(0, n + 1)), zeros=0.2, max_states=4,
                         max_cands=5, share=0.6) for _ in range(3)]
    if ties:
        trees = [coarse(t, rng) for t in trees]
    kept = []
    for t in trees:
        try:
            treedp.inside(t)
            kept.append(t)
        except ZeroWeightError:
            pass
    if not kept:
        return
    ref_rng, rng = np.random.default_rng(seed + 1), np.random.default_rng(seed + 1)
    expected = [treedp.sample(t, ref_rng, 7) for t in kept]
    fo = forest.from_trees(kept)
    got = forest.sample(fo, rng, 7, lambda s: treedp.inside(kept[s]))
    offsets = fo.node_offsets
    for s, draws in enumerate(expected):
        assert got[:, offsets[s]:offsets[s + 1]].tolist() == draws
    assert rng.random() == ref_rng.random()
    part = forest.sample(fo, np.random.default_rng(seed + 1), 7,
                         lambda s: treedp.inside(kept[s]), range(0, 1))
    assert part.tolist() == got[:, :offsets[1]].tolist()


@settings(max_examples=25, deadline=None)
@given(corpora(), st.sampled_from(["ltr", "rtl"]), st.integers(0, 10**6),
       st.sampled_from([0.0, 1e-3]), st.sampled_from([0.0, 2.0]))
def test_inference_expected_counts_equal_the_reference(sentences, direction, seed, backoff,
                                                       tilt):
    """Inference.expected_counts, posteriors_all and sample_all (compiled, over the batch or a
    range of it) against expectations, posteriors and sample_reference (the numpy reference, one
    sentence at a time) on a model's slot lattices."""
    if not sentences:
        return
    model = make_model(sentences, direction, seed, backoff=backoff)
    inference = Inference(model, model.prepare(sentences), tilt=tilt)
    try:
        expected = [inference.expectations(s) for s in range(len(sentences))]
    except ZeroWeightError:
        with pytest.raises(ZeroWeightError):
            inference.expected_counts()
        return
    half = range(len(sentences) // 2, len(sentences))
    for part in (None, half):
        got = inference.expected_counts(part)
        ref = expected if part is None else expected[half.start:]
        assert got.log_z == pytest.approx(sum(e.log_z for e in ref), rel=1e-12, abs=1e-9)
        np.testing.assert_array_equal(got.rows, np.concatenate([e.rows for e in ref]))
        np.testing.assert_allclose(got.posterior, np.concatenate([e.posterior for e in ref]),
                                   rtol=1e-9, atol=1e-12)
        np.testing.assert_allclose(got.arc_counts, sum(e.arc_counts for e in ref),
                                   rtol=1e-9, atol=1e-9)
    for s, (got, e) in enumerate(zip(inference.posteriors_all(), expected)):
        assert got.log_z == pytest.approx(e.log_z, rel=1e-12, abs=1e-12)
        ref = inference.posteriors_reference(s)
        np.testing.assert_array_equal(ref.rows, e.rows)
        np.testing.assert_array_equal(inference.posteriors(s).posterior, got.posterior)
        np.testing.assert_array_equal(got.rows, e.rows)
        np.testing.assert_allclose(got.posterior, e.posterior, rtol=1e-9, atol=1e-12)
    draws = inference.sample_all(np.random.default_rng(seed), 5)
    ref_rng = np.random.default_rng(seed)
    assert draws == [inference.sample_reference(s, ref_rng, 5) for s in range(len(sentences))]
    assert inference.sample(0, np.random.default_rng(seed), 5) == draws[0]
