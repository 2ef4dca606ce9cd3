"""The Attach model: layout, normalisation, gradient, M-step (:mod:`fstpunct.model.mstep`), backoff,
save/load."""
import re
from dataclasses import replace
from itertools import islice

import numpy as np
import pytest
from conftest import treebank
from hypothesis import given, settings
from hypothesis import strategies as st
from test_model import corpora
from test_vocab import CORPUS, LIST, SAID, SMILEY, SYM, sentence

from fstpunct.errors import InputError, ModelError
from fstpunct.model import attach, mstep
from fstpunct.model.attach import (
    AttachData,
    AttachModel,
    node_pairs,
    pair_scores,
    probabilities,
)
from fstpunct.model.features import (
    context_ids,
    context_ids_reference,
    is_lexical,
    node_contexts,
)
from fstpunct.model.punct import MAX_TOKEN_COST
from fstpunct.model.vocab import EMPTY, Vocab
from fstpunct.ud import release as ud
from fstpunct.ud.slots import to_slots


def real_sentences(k: int = 25):
    """En dev's first ``k`` sentences, none without them (the tests that need them ask for them
    by ``treebank``)."""
    try:
        source = ud.split_source("en", "dev")
    except InputError:
        return []
    return [to_slots(s) for s in islice(source.sentences(), k)]


@pytest.fixture(scope="module")
def corpus():
    return CORPUS + real_sentences()


@pytest.fixture(scope="module", params=[0, 20], ids=["plain", "lexical"])
def model(corpus, request):
    """Without and with lexical contexts (θ in one block, or two)."""
    return AttachModel.build(Vocab.build(corpus, min_count=1), SYM, corpus, request.param)


@pytest.fixture(scope="module")
def data(model, corpus):
    return AttachData.build(model, corpus)


def random_theta(model, seed=0, scale=0.5):
    return np.random.default_rng(seed).normal(0, scale, model.size)


def full_matrix(model, theta):
    """Θ as one contexts × pair-features matrix (0 where lexical contexts have no weight)."""
    base, lexical = model.blocks(theta)
    out = np.zeros((len(model.contexts), len(model.pair_feature_names)))
    out[:model.n_base] = base
    out[model.n_base:, model.side] = lexical
    return out


def random_targets(data, seed=1):
    t = np.random.default_rng(seed).random(len(data.pairs))
    return t / np.repeat(np.add.reduceat(t, data.node_offsets[:-1]), np.diff(data.node_offsets))


def one_hot_observed(data, corpus):
    t = np.zeros(len(data.pairs))
    for s, first in zip(corpus, data.sentence_offsets):
        for j, p in enumerate(data.model.vocab.observed(s), first):
            t[data.node_offsets[j] + np.searchsorted(node_pairs(data, j), p)] = 1
    return t


def test_layout_follows_sentences_and_nodes(data, corpus, model):
    assert len(data.sentence_offsets) == len(corpus) + 1
    nodes = [max(s.n, 1) for s in corpus]
    assert np.diff(data.sentence_offsets).tolist() == nodes
    for s, first in zip(corpus, data.sentence_offsets):
        for j, d in enumerate(s.deprels if s.n else (EMPTY,), first):
            assert np.array_equal(node_pairs(data, j), model.vocab.candidates(d))


def test_probabilities_normalised_and_match_naive_scores(data, model, corpus):
    theta = random_theta(model)
    p = probabilities(theta, data)
    assert np.allclose(np.add.reduceat(p, data.node_offsets[:-1]), 1)
    weights = full_matrix(model, theta) @ model.pair_matrix.scipy().T.toarray()  # contexts × pairs
    j = 0
    for s in corpus:
        for names in node_contexts(s, model.lexical):
            cands = node_pairs(data, j)
            known = [model.context_index[c] for c in names if c in model.context_index]
            scores = weights[known][:, cands].sum(axis=0)
            expect = np.exp(scores - scores.max())
            assert np.allclose(p[data.node_offsets[j]:data.node_offsets[j + 1]],
                               expect / expect.sum())
            j += 1


@pytest.mark.parametrize("token_cost", [0.0, 1.5])
def test_gradient_matches_finite_differences(data, model, token_cost):
    theta, targets = random_theta(model), random_targets(data)
    center = model.init_theta(token_cost)
    value, grad = mstep.objective(theta, data, targets, 0.3, center)
    rng = np.random.default_rng(2)
    eps = 1e-5
    for _ in range(5):
        v = rng.normal(size=theta.shape)
        plus = mstep.objective(theta + eps * v, data, targets, 0.3, center)[0]
        minus = mstep.objective(theta - eps * v, data, targets, 0.3, center)[0]
        assert (plus - minus) / (2 * eps) == pytest.approx(grad @ v, rel=1e-5, abs=1e-6)
    for k in rng.choice(np.flatnonzero(grad), 5, replace=False):
        e = np.zeros_like(theta)
        e[k] = eps
        fd = (mstep.objective(theta + e, data, targets, 0.3, center)[0]
              - mstep.objective(theta - e, data, targets, 0.3, center)[0]) / (2 * eps)
        assert fd == pytest.approx(grad[k], rel=1e-4, abs=1e-6)


def readable_product(model, d_st):
    """d(Θ Gᵀ) · G by Csr.rmatmul, θ's two blocks: the base contexts' rows times the pair
    features, the lexical contexts' rows times their side features."""
    return np.concatenate([model.pair_matrix.rmatmul(d_st[:model.n_base]).ravel(),
                           model.side_matrix.rmatmul(d_st[model.n_base:]).ravel()])


def reference_objective(theta, data, targets, l2, center):
    """:func:`objective` from the groups' readable terms (numpy and scipy)."""
    model = data.model
    st = pair_scores(theta, model)
    d_st = np.zeros_like(st)
    offset = theta - center
    value = -0.5 * l2 * float(offset @ offset)
    for g in data.groups:
        merged = np.zeros((g.contexts.n_rows, len(g.candidates)))
        np.add.at(merged, g.inverse, targets[data.rows(g)])
        value += g.fit_term_reference(st, merged, merged.sum(axis=1), d_st)
    return value, readable_product(model, d_st) - l2 * offset


@pytest.mark.parametrize("piece", [attach.PIECE, 40])
def test_objective_same_on_any_threads_and_near_reference(model, corpus, piece, monkeypatch):
    """Pieces (here also of a few rows each) run on 1, 2 or 3 threads give bitwise the same
    value and gradient, within rounding of the readable reference."""
    if piece == 40 and len(corpus) == len(CORPUS):  # groups cut into pieces need en dev's
        treebank("en", "dev")  # not found: skipped (failed under CI), saying so
    monkeypatch.setattr(attach, "PIECE", piece)
    data = AttachData.build(model, corpus)
    theta, targets = random_theta(model, seed=3), random_targets(data)
    center = model.init_theta(1.5)
    value, grad = mstep.objective(theta, data, targets, 0.3, center)
    assert len([p for g in data.groups for p in g.pieces]) > (len(data.groups) if piece == 40
                                                              else 0)
    for threads in (2, 3):
        other, other_grad = mstep.objective(theta, data, targets, 0.3, center, threads)
        assert other == value and other_grad.tobytes() == grad.tobytes()
    ref, ref_grad = reference_objective(theta, data, targets, 0.3, center)
    assert value == pytest.approx(ref, rel=1e-13)
    np.testing.assert_allclose(grad, ref_grad, rtol=1e-11, atol=1e-12 * np.abs(ref_grad).max())
    fitted = [mstep.fit(center, data, targets, 0.3, 5, center, threads) for threads in (1, 2)]
    assert fitted[0].tobytes() == fitted[1].tobytes()


def test_gradient_is_the_readable_products_bitwise(data, model):
    """The M-step's gradient, d(Θ Gᵀ) · G through Gᵀ's compiled product minus the prior's
    share, has the bits of Csr.rmatmul's products (which skip d(Θ Gᵀ)'s zeros: there are
    some) minus l2 · (θ − centre)."""
    theta, targets, center = random_theta(model, seed=5), random_targets(data), model.init_theta()
    problem = mstep._MStep(data, targets, 0.3, center)
    grad = problem(theta)[1]
    d_st = problem.d_st
    assert np.count_nonzero(d_st == 0.0) and np.count_nonzero(d_st)
    product = readable_product(model, d_st)
    assert grad.tobytes() == (product - 0.3 * (theta - center)).tobytes()


def test_no_center_is_center_zero(data, model):
    """Without a centre the prior's mean is 0: the value and gradient of centre 0, bit for bit
    (the M-step's uncentred branch)."""
    theta, targets = random_theta(model), random_targets(data)
    value, grad = mstep.objective(theta, data, targets, 0.3)
    zero, zero_grad = mstep.objective(theta, data, targets, 0.3, np.zeros_like(theta))
    assert value == zero and grad.tobytes() == zero_grad.tobytes()


def test_the_largest_token_cost_trains_to_finite_values(data, model):
    """MAX_TOKEN_COST keeps the prior's arithmetic finite: θ₀, the fitted θ, the objective and
    its gradient (a cost of 1e308 made θ₀ −inf and training NaN)."""
    center, targets = model.init_theta(MAX_TOKEN_COST), random_targets(data)
    fitted = mstep.fit(center.copy(), data, targets, 0.3, 4, center)
    value, grad = mstep.objective(fitted, data, targets, 0.3, center)
    assert MAX_TOKEN_COST == 1000 and np.isfinite(center).all() and center.min() < -1000
    assert np.isfinite(fitted).all() and np.isfinite(value) and np.isfinite(grad).all()


def test_fit_moves_only_the_weights_that_can_move(data, model):
    """L-BFGS over the weights with a gradient from the data or off the prior's centre (the
    others keep θ₀'s values) follows L-BFGS over all of θ: the same steps in exact arithmetic,
    the fixed weights' components of every step and gradient being 0."""
    from scipy.optimize import minimize

    targets, center = random_targets(data), model.init_theta(1.5)
    fixed = ~mstep._MStep(data, targets, 0.3, center).free(center)
    assert fixed.any()
    theta0 = center.copy()
    off = np.random.default_rng(4).choice(np.flatnonzero(fixed), 3, replace=False)
    theta0[off] += 0.5  # off the centre: the prior pulls them back
    free = mstep._MStep(data, targets, 0.3, center).free(theta0)
    assert free[off].all() and free.sum() == (~fixed).sum() + 3
    fitted = mstep.fit(theta0, data, targets, 0.3, 8, center)
    assert fitted[~free].tobytes() == theta0[~free].tobytes()
    assert (np.abs(fitted[off] - center[off]) < 0.5).all()

    def loss(theta):
        value, grad = mstep.objective(theta, data, targets, 0.3, center)
        return -value, -grad

    whole = minimize(loss, theta0, jac=True, method="L-BFGS-B", options={"maxiter": 8}).x
    np.testing.assert_allclose(fitted, whole, rtol=1e-9, atol=1e-12)


def test_fit_refuses_no_iterations_and_no_threads(data, model):
    targets = np.zeros(len(data.pairs))
    with pytest.raises(InputError, match="^attach_iterations must be at least 1, not 0$"):
        mstep.fit(model.init_theta(), data, targets, 0.1, maxiter=0)
    with pytest.raises(InputError, match="^threads must be at least 1, not 0$"):
        mstep.objective(model.init_theta(), data, targets, 0.1, threads=0)


def test_token_cost_prior_prefers_fewer_marks(data, model):
    """θ₀ scores every pair −cost per underlying token, and with no data the M-step stays
    there: the empty pair is the most probable, a one-token pair e^cost times less."""
    cost = 2.0
    center = model.init_theta(cost)
    p = probabilities(center, data)
    vocab = model.vocab
    for j in range(data.n_nodes):
        rows = slice(data.node_offsets[j], data.node_offsets[j + 1])
        tokens = np.array([sum(map(len, vocab.pair_strings(k))) for k in data.pairs[rows]])
        expected = np.exp(-cost * tokens)
        assert np.allclose(p[rows], expected / expected.sum())
    fitted = mstep.fit(center, data, np.zeros(len(data.pairs)), l2=0.5, maxiter=10, center=center)
    assert np.allclose(fitted, center)
    assert np.array_equal(model.init_theta(0.0), np.zeros_like(center))


def test_fit_learns_observed_pairs(data, model, corpus):
    targets = one_hot_observed(data, corpus)
    theta0 = model.init_theta()
    before = mstep.objective(theta0, data, targets, 0.1)[0]
    theta = mstep.fit(theta0, data, targets, l2=0.1, maxiter=30)
    assert mstep.objective(theta, data, targets, 0.1)[0] > before
    p = probabilities(theta, data)
    first = data.sentence_offsets[corpus.index(SAID)]
    for j in range(first, first + SAID.n):
        rows = slice(data.node_offsets[j], data.node_offsets[j + 1])
        assert p[rows][targets[rows] == 1][0] > 0.5
    assert (p @ targets) / data.n_nodes > 0.7


def test_unseen_relation_and_features_at_test_time(model):
    odd = sentence(["NOUN", "X"], [0, 1], ["root", "weird"], [(), (), (".",)])
    poss = sentence(["PRON", "NOUN"], [2, 0], ["nmod:unseen", "root"], [(), (), ()])
    data = AttachData.build(model, [odd, poss, SMILEY])
    assert node_pairs(data, 1).tolist() == [0]
    assert np.array_equal(node_pairs(data, 2), model.vocab.candidates("nmod:*"))
    p = probabilities(random_theta(model), data)
    assert p[data.node_offsets[1]] == pytest.approx(1)
    assert np.allclose(np.add.reduceat(p, data.node_offsets[:-1]), 1)


def test_matched_feature_marks_mirrored_quotes(model):
    vocab = model.vocab
    quote = vocab.pair_index[vocab.puncteme_index["“",], vocab.puncteme_index["”", "."]]
    m = model.pair_feature_names.index("M")
    assert model.pair_matrix.scipy()[quote, m] == 1
    assert model.pair_matrix.scipy()[0, m] == 0
    assert model.pair_matrix.scipy()[quote].nnz == 4


def test_save_and_load(tmp_path, model, data, corpus):
    theta = random_theta(model)
    model.save(tmp_path / "attach", theta)
    loaded, theta2 = AttachModel.load(tmp_path / "attach")
    assert np.array_equal(theta, theta2) and loaded.contexts == model.contexts
    again = AttachData.build(loaded, corpus)
    assert np.allclose(probabilities(theta2, again), probabilities(theta, data))


def test_weights_are_stored_as_nonzeros_bitwise(tmp_path, model, corpus):
    """θ is saved as its nonzero entries, uncompressed, and read back bitwise (zeros, −0.0,
    tiny values, both blocks); a file of older models (blocks whole, compressed) still loads;
    a damaged file (values missing, a flipped bit that the zip's CRC finds, a truncated file)
    or a block of another shape is a ModelError."""
    lexical = AttachModel.build(model.vocab, SYM, corpus, lexical=3)
    for m in (model, lexical):
        theta = random_theta(m) * (np.random.default_rng(1).random(len(random_theta(m))) < 0.6)
        theta[:4] = [-0.0, 5e-324, -1e300, 0.0]
        m.save(tmp_path / "attach", theta)
        with np.load(tmp_path / "attach.npz") as npz:
            assert "theta" not in npz and all(v.dtype != object for v in npz.values())
        _, again = AttachModel.load(tmp_path / "attach")
        assert np.array_equal(again.view(np.uint64), theta.view(np.uint64))
        base, lex = m.blocks(theta)
        np.savez_compressed(tmp_path / "attach.npz", theta=base,
                            **({"lexical": lex} if m.lexical else {}))
        _, old = AttachModel.load(tmp_path / "attach")
        assert np.array_equal(old.view(np.uint64), theta.view(np.uint64))
    m.save(tmp_path / "attach", theta)
    with np.load(tmp_path / "attach.npz") as npz:
        parts = dict(npz)
    np.savez(tmp_path / "attach.npz", **{**parts, "lexical_values": parts["lexical_values"][:-1]})
    with pytest.raises(ModelError, match=rf"{re.escape(str(tmp_path))}: not a fstpunct model "
                                         r"\(attach.npz: "):
        AttachModel.load(tmp_path / "attach")
    np.savez(tmp_path / "attach.npz", **{**parts, "theta_shape": parts["theta_shape"][::-1]})
    with pytest.raises(ModelError, match=rf"{re.escape(str(tmp_path))}: not a fstpunct model "
                                         r"\(attach.npz: its "
                                         "weights do not match the feature index"):
        AttachModel.load(tmp_path / "attach")
    np.savez(tmp_path / "attach.npz", **parts)
    stored = (tmp_path / "attach.npz").read_bytes()
    at = stored.index(parts["lexical_values"].tobytes()[:64]) + 8  # inside a stored value
    for damaged in (stored[:at] + bytes([stored[at] ^ 1]) + stored[at + 1:],  # a flipped bit
                    stored[:len(stored) // 2]):  # a truncated file
        (tmp_path / "attach.npz").write_bytes(damaged)
        with pytest.raises(ModelError, match=rf"{re.escape(str(tmp_path))}: not a fstpunct "
                                             r"model \(attach.npz: "):
            AttachModel.load(tmp_path / "attach")


def test_conj_with_cc_context(model):
    names = node_contexts(LIST)
    assert "c=cc" in names[3] and "c=cc" not in names[1]
    assert {"start", "end", "d=root", "pd=<root>", "ll=<s>", "rr=</s>"} <= set(names[0])


def test_lexical_contexts_name_the_words_beside_each_slot():
    # Dogs , cats and mice .  (words are their UPOS, lowercased in lexical contexts)
    names = node_contexts(LIST, lexical=True)
    assert {"fw=noun", "llw=<s>", "lrw=noun", "rlw=noun", "rrw=</s>"} <= set(names[0])
    assert {"fw=cconj", "llw=noun", "lrw=cconj", "rlw=cconj", "rrw=noun"} <= set(names[2])
    assert not any(n.startswith("fw=") for n in node_contexts(LIST)[0])


def test_lexical_model_keeps_the_most_frequent_words_only(corpus, tmp_path):
    vocab = Vocab.build(corpus, min_count=1)
    plain = AttachModel.build(vocab, SYM, corpus)
    model = AttachModel.build(vocab, SYM, corpus, lexical=3)
    words = {c.split("=", 1)[1] for c in model.contexts if c.startswith("fw=")}
    counts = {}
    for s in corpus:
        for w in s.words:
            counts[w.lower()] = counts.get(w.lower(), 0) + 1
    assert words == set(sorted(counts, key=lambda w: (-counts[w], w))[:3])
    assert model.lexical and not plain.lexical
    assert set(plain.contexts) < set(model.contexts)
    # featurising reads the lexical contexts: without their weights the probabilities change
    theta = random_theta(model)
    data = AttachData.build(model, corpus)
    unlexical = theta.copy()
    model.blocks(unlexical)[1][:] = 0
    assert not np.allclose(probabilities(theta, data), probabilities(unlexical, data))
    model.save(tmp_path / "attach", theta)
    loaded, theta2 = AttachModel.load(tmp_path / "attach")
    assert loaded.lexical
    assert np.allclose(probabilities(theta2, AttachData.build(loaded, corpus)),
                       probabilities(theta, data))


def test_lexical_contexts_weigh_side_features_only(corpus):
    """θ's lexical block holds lexical contexts × the L=/R=/M pair features: the whole matrix
    is 0 elsewhere in those rows, and the contexts list them after all the others."""
    model = AttachModel.build(Vocab.build(corpus, min_count=1), SYM, corpus, lexical=20)
    (rows, cols), (lex_rows, side) = model.shapes
    assert cols == len(model.pair_feature_names) and rows + lex_rows == len(model.contexts)
    assert all(is_lexical(c) for c in model.contexts[rows:])
    assert not any(is_lexical(c) for c in model.contexts[:rows])
    assert [model.pair_feature_names[k][0] for k in model.side] == ["L"] * (side - 1 - sum(
        n.startswith("R=") for n in model.pair_feature_names)) + ["R"] * sum(
        n.startswith("R=") for n in model.pair_feature_names) + ["M"]
    full = full_matrix(model, random_theta(model))
    p_columns = [k for k, n in enumerate(model.pair_feature_names) if n.startswith("P=")]
    assert not full[rows:][:, p_columns].any() and full[rows:][:, model.side].all()
    with pytest.raises(ModelError, match="lexical"):
        AttachModel(model.vocab, SYM, list(reversed(model.contexts)))


@settings(max_examples=60, deadline=None)
@given(corpora(), st.integers(0, 2**32 - 1), st.booleans())
def test_context_ids_map_node_contexts_through_the_index(sentences, seed, lexical):
    """context_ids (each template's strings looked up once, the rows assembled compiled)
    against node_contexts (names, node by node) mapped through an index that knows only
    some of the names; with extra contexts on some sentences and sentences without words."""
    rng = np.random.default_rng(seed)
    sentences = [replace(s, contexts=tuple((f"xl={rng.integers(3)}",) * int(rng.integers(3))
                                           for _ in range(s.n)))
                 if s.n and rng.random() < 0.5 else s for s in sentences] + real_sentences(6)
    names = sorted({c for s in sentences for node in node_contexts(s, lexical) for c in node})
    index = {c: k for k, c in enumerate(c for c in names if rng.random() < 0.8)}
    ptr, ids, offsets = context_ids(sentences, index, lexical)
    expected = context_ids_reference(sentences, index, lexical)
    assert [ids[a:b].tolist() for a, b in zip(ptr[:-1], ptr[1:])] == expected
    assert offsets.tolist() == np.cumsum([0] + [max(s.n, 1) for s in sentences]).tolist()
