"""The compiled tree DP (fstpunct.dp.forest over fstpunct.dp._forest) against the Python reference
(dp.treedp, itself checked against brute force and finite differences in test_treedp.py): the
same Viterbi choices, ties included, the same best score, and log Z, on random trees in both
semirings; every gradient of log Z from the outside pass; the same samples from the same
generator; and the same on a model's batches (Inference)."""
from collections.abc import Callable
from dataclasses import replace

import numpy as np
import pytest
from fstpunct.model._punct import candidate_arrays
from hypothesis import example, given, settings
from hypothesis import strategies as st
from test_model import corpora, make_model
from test_treedp import random_tree

from fstpunct.dp import forest, treedp
from fstpunct.dp.semiring import MaxProduct, SumProduct
from fstpunct.dp.stacks import DenseStack, SparseStack
from fstpunct.dp.treedp import Candidates, MatrixTree, MatrixTreeError, ZeroWeightError
from fstpunct.errors import FstpunctError
from fstpunct.fst import lattice
from fstpunct.model.punct import Inference
from fstpunct.ud.slots import BOUNDARY

SEEDS = st.integers(0, 2**32 - 1)
FAST = settings(max_examples=150, deadline=None)


def coarse(tree: MatrixTree, rng: np.random.Generator) -> MatrixTree:
    """The tree with every weight and matrix entry drawn from {0, ¼, ½, 1}: many exact ties."""
    def snap(x):
        x = np.asarray(x, dtype=float)
        return np.where(x > 0, rng.choice([0.25, 0.5, 1.0], x.shape), 0.0)

    nodes = [replace(c, weights=snap(c.weights), lefts=snap(c.lefts), rights=snap(c.rights))
             for c in tree.nodes]
    return replace(tree, start=[snap(x) for x in tree.start],
                   final=[snap(x) for x in tree.final], prefix=snap(tree.prefix), nodes=nodes)


def sparse(tree: MatrixTree) -> MatrixTree:
    """The tree with its nodes' matrices as SparseStacks (as the model gives them)."""
    def stack(m):
        m = np.asarray(m, dtype=float)
        return SparseStack.of(m) if len(m) else m

    return replace(tree, nodes=[replace(c, lefts=stack(c.lefts), rights=stack(c.rights))
                                for c in tree.nodes])


def reference(tree: MatrixTree) -> tuple[list[int] | None, float | None, float | None]:
    """Viterbi choice and score and log Z by treedp; None where Z = 0."""
    try:
        choice, score = treedp.viterbi(tree)
    except ZeroWeightError:
        return None, None, None
    return choice, score, treedp.log_partition(tree)


def joint(total: forest.Forest, best: forest.Forest, total_fallback: Callable[[int], object],
          best_fallback: Callable[[int], object]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Viterbi over ``best`` and log Z over ``total`` in one traversal, each result
    bitwise that of its own run: (choice, best score, log Z)."""
    alone = (*forest.viterbi(best, best_fallback), forest.log_partition(total, total_fallback))
    together = forest.viterbi_and_log_partition(total, best, total_fallback, best_fallback)
    for got, want in zip(together, alone):
        assert got.tobytes() == want.tobytes()
    return alone


def compiled(trees: list[MatrixTree]) -> tuple[list[list[int]], np.ndarray, np.ndarray]:
    def fallback(s: int) -> None:
        treedp.inside(trees[s])

    best, total = forest.from_trees(trees, MaxProduct), forest.from_trees(trees, SumProduct)
    choice, score, log_z = joint(total, best, fallback, fallback)
    offsets = best.node_offsets.tolist()
    return [choice[a:b].tolist() for a, b in zip(offsets, offsets[1:])], score, log_z


def check(trees: list[MatrixTree]) -> None:
    """Every tree with Z > 0, in one forest: exactly the reference's Viterbi choice and best
    score, and its log Z to rounding."""
    expected = [reference(t) for t in trees]
    kept = [t for t, e in zip(trees, expected) if e[0] is not None]
    expected = [e for e in expected if e[0] is not None]
    if not kept:
        return
    choices, scores, log_z = compiled(kept)
    for (choice, score, z), got, got_score, got_z in zip(expected, choices, scores, log_z):
        assert got == choice
        assert got_score == score  # bitwise: the same products, maxima are exact
        assert got_z == pytest.approx(z, rel=1e-12, abs=1e-12)


@FAST
@given(st.integers(0, 6), SEEDS, st.booleans(), st.booleans())
@example(0, 1, False, False)
@example(1, 2, True, True)
def test_compiled_equals_reference(n, seed, ties, as_sparse):
    rng = np.random.default_rng(seed)
    tree = random_tree(rng, n, zeros=0.25, max_states=4, max_cands=5, share=0.6)
    if ties:
        tree = coarse(tree, rng)
    check([sparse(tree) if as_sparse else tree])
    check_outside([sparse(tree) if as_sparse else tree])


@settings(max_examples=40, deadline=None)
@given(st.integers(1, 6), SEEDS, st.booleans())
def test_dense_matrices_of_larger_slots(n, seed, ties):
    """Slots of 4–12 states whose matrices are mostly dense (as a slot's backoff closure is):
    the tree DP goes along their lines dense (``_Inputs.dense_lines``), with
    the reference's Viterbi choices and best score bitwise and its log Z to rounding."""
    rng = np.random.default_rng(seed)
    tree = random_tree(rng, n, zeros=0.1, max_states=12, min_states=4, max_cands=5, share=0.6)
    if ties:
        tree = coarse(tree, rng)
    check([sparse(tree)])


@settings(max_examples=30, deadline=None)
@given(SEEDS)
def test_one_forest_of_many_sentences(seed):
    """Sentences of all sizes, the n = 0 pseudo node among them, with ties, in one call (the
    outside pass also over a range of them)."""
    rng = np.random.default_rng(seed)
    trees = [random_tree(rng, int(rng.integers(0, 8)), zeros=0.2, max_states=3, max_cands=4,
                         share=0.8) for _ in range(12)]
    trees = [coarse(t, rng) if k % 2 else t for k, t in enumerate(trees)]
    check(trees)
    check_outside(trees)
    check_outside(trees, range(3, 7))


@settings(max_examples=60, deadline=None)
@given(st.integers(0, 6), SEEDS, st.booleans())
def test_joint_pass_over_stacks_of_other_lines(n, seed, ties):
    """Viterbi and log Z in one traversal where the max-product stacks and slot vectors have
    entries the real-semiring ones lack (some of theirs zeroed): the lines not shared, the two
    runs choosing their ways apart; each result bitwise that of its own call, Viterbi that of
    the reference."""
    rng = np.random.default_rng(seed)
    tree = random_tree(rng, n, zeros=0.2, max_states=4, max_cands=5, share=0.6)
    if ties:
        tree = coarse(tree, rng)

    def thin(x):
        x = np.asarray(x, dtype=float)
        return np.where(rng.random(x.shape) < 0.3, 0.0, x)

    thinned = replace(tree, final=[thin(x) for x in tree.final], nodes=[
        replace(c, lefts=thin(c.lefts), rights=thin(c.rights)) for c in tree.nodes])
    kept = with_weight([tree, thinned])
    if len(kept) < 2:
        return
    choice, _, log_z = joint(forest.from_trees([sparse(thinned)], SumProduct),
                             forest.from_trees([sparse(tree)], MaxProduct),
                             lambda s: treedp.inside(thinned), lambda s: treedp.inside(tree))
    assert choice.tolist() == treedp.viterbi(tree)[0]
    assert log_z[0] == pytest.approx(treedp.log_partition(thinned), rel=1e-12, abs=1e-12)


def test_joint_pass_needs_the_same_layout():
    rng = np.random.default_rng(5)
    trees = [random_tree(rng, 3, max_states=2, max_cands=3) for _ in range(2)]
    with pytest.raises(ValueError, match="differ beyond their stacks"):
        forest.viterbi_and_log_partition(forest.from_trees(trees[:1], SumProduct),
                                         forest.from_trees(trees[1:], MaxProduct),
                                         lambda s: None, lambda s: None)


def test_scalar_slots_and_sparse_vectors():
    """1×1 slots (empty surfaces) and one-hot start and final vectors (as lattices have), the
    inputs the compiled DP applies across matrix lines."""
    rng = np.random.default_rng(3)
    for _ in range(40):
        n = int(rng.integers(1, 7))
        tree = random_tree(rng, n, zeros=0.3, min_states=1, max_states=5, max_cands=6, share=0.7)
        hot = [np.eye(len(x))[rng.integers(len(x))] * rng.uniform(0.2, 1) for x in tree.start]
        tree = replace(tree, start=hot, final=[h[::-1].copy() for h in hot])
        check([tree, sparse(tree), coarse(tree, rng)])


def test_long_sentences_do_not_underflow():
    rng = np.random.default_rng(11)
    trees = []
    for n in (200, 250):
        tree = random_tree(rng, n, zeros=0.0, max_states=3, max_cands=3)
        for c in tree.nodes:
            c.weights = 1e-3 * c.weights
        trees.append(tree)
    _, scores, log_z = compiled(trees)
    assert np.all(np.isfinite(log_z)) and np.all(log_z < -1500)  # far below float range
    check(trees)
    check_outside(trees)


def test_zero_total_raises_the_reference_error():
    good = random_tree(np.random.default_rng(3), 3, zeros=0.0)
    dead = random_tree(np.random.default_rng(3), 3, zeros=0.0)
    dead.nodes[1].weights = np.zeros_like(dead.nodes[1].weights)
    trees = [good, dead]
    for semiring, run in ((MaxProduct, forest.viterbi), (SumProduct, forest.log_partition)):
        with pytest.raises(ZeroWeightError, match=r"In\(node 2\) = 0"):
            run(forest.from_trees(trees, semiring), lambda s: treedp.inside(trees[s]))


def test_node_without_candidates_and_empty_sentence_without_weight():
    tree = random_tree(np.random.default_rng(4), 2)
    tree.nodes[0] = Candidates.from_pairs(np.zeros(0), [], [])
    empty = random_tree(np.random.default_rng(5), 0)
    empty.nodes[0].weights = np.zeros_like(empty.nodes[0].weights)
    for trees in ([tree], [empty]):
        with pytest.raises(ZeroWeightError):
            forest.viterbi(forest.from_trees(trees, MaxProduct),
                           lambda s, trees=trees: treedp.inside(trees[s]))


@pytest.mark.parametrize("heads, message", [
    ([0, 0], "one root"), ([2, 1], "one root"), ([0, 4, 1, 1], "projective"),
    ([2, 3, 0, 3, 2], "projective"),
])
def test_malformed_trees_raise_the_reference_error(heads, message):
    tree = random_tree(np.random.default_rng(0), len(heads), max_states=1, max_cands=1)
    tree.heads = heads
    with pytest.raises(MatrixTreeError, match=message):
        forest.log_partition(forest.from_trees([tree]), lambda s: treedp.inside(tree))


def test_matrices_of_the_wrong_size_raise_the_reference_error():
    tree = random_tree(np.random.default_rng(0), 2, max_states=1, max_cands=1)
    tree.nodes[0].lefts = np.ones((1, 2, 2))
    with pytest.raises(MatrixTreeError, match="node 1: left"):
        forest.viterbi(forest.from_trees([tree], MaxProduct), lambda s: treedp.inside(tree))


def test_a_failure_the_reference_does_not_confirm_is_an_error():
    tree = random_tree(np.random.default_rng(0), 2, max_states=1, max_cands=1)
    tree.heads = [0, 0]
    with pytest.raises(FstpunctError, match="compiled tree DP failed"):
        forest.log_partition(forest.from_trees([tree]), lambda s: None)


def test_indices_out_of_range_are_rejected():
    tree = random_tree(np.random.default_rng(0), 2, max_states=2, max_cands=2)
    tree.nodes[0].left_of = tree.nodes[0].left_of + 7
    with pytest.raises(FstpunctError, match="out of range"):
        forest.from_trees([tree])
    tree.nodes[0].left_of = tree.nodes[0].left_of - 7 + 2**32  # not wrapped into range as int32
    with pytest.raises(FstpunctError, match="beyond int32's range"):
        forest.from_trees([tree])


def test_stack_indices_of_another_type_are_rejected():
    """The kernel reads ``left_of`` and ``right_of`` as int32: ``check`` names another type."""
    tree = random_tree(np.random.default_rng(0), 2, max_states=2, max_cands=2)
    built = forest.from_trees([tree])
    for name in ("left_of", "right_of"):
        wide = replace(built, **{name: getattr(built, name).astype(np.intp)})
        with pytest.raises(FstpunctError, match=f"{name} is int64, not int32"):
            wide.check()
        with pytest.raises(FstpunctError, match=f"{name} is int64, not int32"):
            forest.log_partition(wide, lambda s: None)
        with pytest.raises(FstpunctError, match=f"{name} is int64, not int32"):
            forest.viterbi_and_log_partition(wide, wide, *[lambda s: None] * 2)


def test_candidate_arrays_refuse_stack_indices_beyond_int32():
    empty = np.zeros(0, dtype=np.intp)
    with pytest.raises(ValueError, match="more matrices in a stack than int32 indices hold"):
        candidate_arrays(np.zeros(1, dtype=np.intp), np.zeros(0, dtype=np.int32), empty, empty,
                         np.zeros((0, 2), dtype=np.intp), np.zeros((0, 0), dtype=np.uint8),
                         np.zeros(0), np.zeros(0), 1.0, 1.0, 2**31, 0)


@settings(max_examples=30, deadline=None)
@given(corpora(), st.sampled_from(["ltr", "rtl"]), st.integers(0, 10**6),
       st.sampled_from([0.0, 1e-3]))
def test_inference_batch_equals_sentence_by_sentence(sentences, direction, seed, backoff):
    """Inference.viterbi_all, viterbi, log_probs, log_prob and viterbi_and_log_probs (compiled,
    whole batch or one sentence) against Inference.viterbi_reference and log_prob_reference (the
    reference, one sentence at a time) on a model's slot lattices."""
    if not sentences:
        return
    model = make_model(sentences, direction, seed, backoff=backoff)
    inference = Inference(model, model.prepare(sentences))
    try:
        expected = [inference.viterbi_reference(s)[0] for s in range(len(sentences))]
        log_p = [inference.log_prob_reference(s) for s in range(len(sentences))]
    except ZeroWeightError:
        with pytest.raises(ZeroWeightError):
            inference.viterbi_all()
        with pytest.raises(ZeroWeightError):
            inference.log_probs()
        with pytest.raises(ZeroWeightError):
            inference.viterbi_and_log_probs()
        return
    assert inference.viterbi_all() == expected
    best, log_z = inference.viterbi_and_log_probs()
    assert best == expected
    assert log_z.tobytes() == inference.log_probs().tobytes()
    assert [inference.viterbi(s)[0] for s in range(len(sentences))] == expected
    np.testing.assert_allclose(inference.log_probs(), log_p, rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose([inference.log_prob(s) for s in range(len(sentences))], log_p,
                               rtol=1e-12, atol=1e-12)


def with_weight(trees: list[MatrixTree]) -> list[MatrixTree]:
    """The trees whose total weight is not 0."""
    kept = []
    for t in trees:
        try:
            treedp.inside(t)
            kept.append(t)
        except ZeroWeightError:
            pass
    return kept


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


def check_outside(trees: list[treedp.MatrixTree], part: range | None = None) -> None:
    """Every tree with Z > 0 in one forest: log Z, ∂log Z/∂weights, ∂/∂λ, ∂/∂ρ, ∂/∂prefix and
    ∂/∂(every left and right matrix) as the reference gives them, to rounding."""
    kept = with_weight(trees)
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
    kept = with_weight(trees)
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


@settings(max_examples=20, deadline=None)
@given(corpora(), st.sampled_from(["ltr", "rtl"]), st.integers(0, 10**6))
def test_term_counts_equal_the_dense_reference(sentences, direction, seed):
    """EditCounter.term_counts (compiled, term by term, each term's prefix and suffix products
    only where its nonzero coefficients use them) against term_counts_reference (dense numpy,
    summed per puncteme first), on random terms in every slot of a model, slot 0's boundary
    gradient included: the model's punctemes and random ones of 3–4 tokens (middle
    positions), coefficients drawn with 30 % or 90 % of them 0 (rows using few prefixes)."""
    if not sentences:
        return
    model = make_model(sentences, direction, seed, backoff=0.2)
    inference = Inference(model, model.prepare(sentences))
    rng = np.random.default_rng(seed)
    slots = inference.slots
    tokens = len(model.channel.symbols)
    punctemes = slots.punctemes + tuple(tuple(int(t) for t in rng.integers(0, tokens, size))
                                        for size in rng.integers(3, 5, 6))
    for surface in {x for s in inference.batch.surfaces for x in s if x}:
        slot = slots.get(surface)
        for chosen in (slots.punctemes, punctemes):
            counter = lattice.EditCounter(slots.builder, surface, slots.weights, slot.lattice,
                                          chosen, slot.closure, slots.rate, slots.boundary)
            n = counter._n_states
            rows = int(rng.integers(1, 40))
            coef = rng.normal(size=(rows, len(chosen) + 1))
            coef[rng.random(coef.shape) < rng.choice([0.3, 0.9])] = 0.0
            p, q = rng.random((rows, n)), rng.random((rows, n))
            start, final, prefix = rng.random(n), rng.random(n), rng.random((n, n))
            args = (coef, p, q, start, final, prefix if surface[0] == BOUNDARY else None)
            np.testing.assert_allclose(counter.term_counts(*args),
                                       counter.term_counts_reference(*args), rtol=1e-12,
                                       atol=1e-12)


def test_kernel_stack_of_dense_is_its_sparse_stack_and_refuses_other_types() -> None:
    """KernelStack.of takes a SparseStack, a DenseStack (made sparse: the same arrays) or a
    KernelSource such as TokenChains (its own kernel form); anything else is refused."""
    mats = np.random.default_rng(3).random((3, 4, 4)) * (np.arange(4) % 2)
    dense, sparse = (forest.KernelStack.of(x) for x in (DenseStack(mats), SparseStack.of(mats)))
    for name in ("size", "count", "ptr", "col", "val", "tptr", "tcol", "tperm"):
        assert np.array_equal(getattr(dense, name), getattr(sparse, name)), name

    class Source(forest.KernelSource):
        def kernel(self) -> forest.KernelStack:
            return sparse

    assert forest.KernelStack.of(Source()) is sparse
    with pytest.raises(TypeError):
        forest.KernelSource()  # abstract: kernel() must be given
    with pytest.raises(TypeError, match="KernelStack.of: a list"):
        forest.KernelStack.of([mats[0]])
