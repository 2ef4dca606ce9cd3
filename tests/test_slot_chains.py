"""The vector path of rare slot strings: :class:`~fstpunct.dp.chains.TokenChains` (puncteme
matrices as products of token matrices, applied to vectors, never built) against dense products;
the compiled tree DP over token chains against the reference over them and over the built
matrices (Viterbi choices the same, scores and log Z up to rounding: the products are associated
otherwise); and a slot cache with ``chains`` against one without, on random models and the
bundled English model."""
import itertools
from dataclasses import replace

import numpy as np
import pytest
from conftest import treebank
from hypothesis import given, reject, settings
from hypothesis import strategies as st
from test_forest import coarse, joint, reference
from test_model import corpora, make_model
from test_treedp import random_tree

import fstpunct
from fstpunct.apps.decode import _slot_cache
from fstpunct.dp import _forest, forest
from fstpunct.dp.chains import ChainShape, TokenChains, strings
from fstpunct.dp.semiring import MaxProduct, SumProduct
from fstpunct.dp.stacks import DenseStack, SparseStack
from fstpunct.dp.treedp import MatrixTree, ZeroWeightError
from fstpunct.fst.lattice import BlockClosures
from fstpunct.model.punct import Inference, SlotCache, _last_matrix
from fstpunct.ud.slots import to_slots
from fstpunct.ud.tree import spans

SEEDS = st.integers(0, 2**32 - 1)
TOKENS = 4  # token 3 has no arcs: chains through it are 0


def random_chains(rng: np.random.Generator, size: int, draws: int | None = None,
                  ties: bool = False) -> tuple[TokenChains, TokenChains]:
    """The same random token chains (ε, single tokens, longer strings) and one stored matrix,
    weighted in the real and in the max-product semiring (``draws``: of arcs, default up to
    3 per state; ``ties``: weights from {¼, ½, 1}, products exact, so that paths tie)."""
    draws = int(rng.integers(1, 3 * size + 2)) if draws is None else draws
    arcs = sorted({(int(rng.integers(TOKENS - 1)), int(rng.integers(size)),
                    int(rng.integers(size))) for _ in range(draws)})
    token, src, dst = (np.array(x, dtype=np.uint16) for x in zip(*arcs))  # as a lattice's
    weight = (rng.choice([0.25, 0.5, 1.0], len(arcs)) if ties
              else rng.uniform(0.05, 1.0, len(arcs)))
    words = [(), *((t,) for t in range(TOKENS))] + [
        tuple(rng.integers(TOKENS, size=int(rng.integers(2, 4))).tolist()) for _ in range(4)]
    shape = ChainShape(size, token, src, dst, strings(words))
    stored = (rng.choice([0.25, 0.5, 1.0], (1, size, size)) if ties
              else rng.uniform(0.05, 1.0, (1, size, size))) * (rng.random((1, size, size)) < 0.7)
    return tuple(TokenChains(shape, weight, SparseStack.of(stored), m) for m in (False, True))


@settings(max_examples=100, deadline=None)
@given(st.integers(1, 6), SEEDS)
def test_token_chains_against_dense_products(size, seed):
    rng = np.random.default_rng(seed)
    for chains, semiring in zip(random_chains(rng, size), (SumProduct, MaxProduct)):
        mats = np.array([chains.matrix(a) for a in range(len(chains))])
        for a, s in enumerate(chains.strings):  # matrix(a) multiplies the tokens out
            expected = np.eye(size)
            for t in s:
                expected = semiring.matmul(expected, chains.token_matrix(t))
            np.testing.assert_array_equal(mats[a], expected)
        x = rng.random(size)
        np.testing.assert_allclose(chains.apply(x, semiring), semiring.matvec(mats, x),
                                   rtol=1e-13)
        np.testing.assert_allclose(chains.apply_t(x, semiring), semiring.vecmat(x, mats),
                                   rtol=1e-13)
        np.testing.assert_array_equal(chains.nonzero, chains.nonzero_reference())
        assert not chains.nonzero[[a for a, s in enumerate(chains.strings) if TOKENS - 1 in s]
                                  ].any()


def test_a_chain_shape_of_strided_arcs_is_the_same():
    """Arcs given as strided views (the columns of one array) make the same shape, with
    contiguous columns, as contiguous copies of them."""
    arcs = np.array([[0, 0, 1], [1, 1, 2], [1, 0, 0], [2, 2, 2]], dtype=np.uint16)
    words = strings([(), (0,), (1,), (2,), (0, 1)])
    strided = ChainShape(3, arcs[:, 0], arcs[:, 1], arcs[:, 2], words)
    copied = ChainShape(3, *(arcs[:, k].copy() for k in range(3)), words)
    assert strided.col.flags.c_contiguous
    for name in ("ptr", "col", "tptr", "tcol", "order"):
        np.testing.assert_array_equal(getattr(strided, name), getattr(copied, name))


def chain_trees(rng: np.random.Generator, n: int, max_states: int = 4, dense: bool = False,
                zeros: float = 0.2, ties: bool = False):
    """A random tree whose slots' stacks are token chains, in the real and the max-product
    semiring, and the same with the chains multiplied out (dense stacks); ``dense``: token
    matrices of about half their entries; ``zeros``: the share of zero weights and vector
    entries (:func:`random_tree`'s); without them, the candidates' matrices have entries;
    ``ties``: every weight from {¼, ½, 1} (:func:`random_chains`, test_forest's ``coarse``)."""
    tree = random_tree(rng, n, zeros=zeros, max_states=max_states, max_cands=5)
    if ties:
        tree = coarse(tree, rng)
    chains = [random_chains(rng, len(x), 2 * len(x) ** 2 if dense else None, ties)
              for x in tree.start]
    sp = spans(tree.heads) if n else [(0, 0)]

    def draw(c: TokenChains, size: int) -> np.ndarray:
        return (rng.choice(np.flatnonzero(c.nonzero), size) if not zeros
                else rng.integers(len(c), size=size))

    draws = [(draw(chains[i][0], len(c.weights)), draw(chains[k][0], len(c.weights)))
             for c, (i, k) in zip(tree.nodes, sp)]

    def stack(c: TokenChains, dense: bool):
        return DenseStack(np.array([c.matrix(a) for a in range(len(c))])) if dense else c

    out = []
    for kind, dense in itertools.product((0, 1), (False, True)):
        nodes = [replace(c, lefts=stack(chains[i][kind], dense),
                         rights=stack(chains[k][kind], dense), left_of=lo, right_of=ro)
                 for c, (i, k), (lo, ro) in zip(tree.nodes, sp, draws)]
        out.append(replace(tree, nodes=nodes))
    return out  # sum chains, sum dense, max chains, max dense


@settings(max_examples=150, deadline=None)
@given(st.integers(0, 6), SEEDS)
def test_compiled_chains_against_the_references(n, seed):
    rng = np.random.default_rng(seed)
    sum_chains, sum_dense, max_chains, max_dense = chain_trees(rng, n)
    expected = reference(max_dense)
    if expected[0] is None:
        return
    assert reference(max_chains)[0] == expected[0]  # the reference over chains
    fallback = lambda s: None  # noqa: E731  (Z > 0 here)
    choice, score = forest.viterbi(forest.from_trees([max_chains], MaxProduct), fallback)
    assert choice.tolist() == expected[0]
    assert score[0] == pytest.approx(expected[1], rel=1e-12, abs=1e-12)
    log_z = forest.log_partition(forest.from_trees([sum_chains], SumProduct), fallback)
    assert log_z[0] == pytest.approx(reference(sum_dense)[2], rel=1e-12, abs=1e-12)


def _no_weight(s: int) -> None:
    reject()  # a sentence of weight 0: the example is filtered out (hypothesis counts them)


def check_joint(total_tree: MatrixTree, best_tree: MatrixTree) -> None:
    """Viterbi over ``best_tree`` and log Z over ``total_tree`` in one traversal: each result
    bitwise that of its own run (:func:`test_forest.joint`)."""
    joint(forest.from_trees([total_tree], SumProduct), forest.from_trees([best_tree], MaxProduct),
          _no_weight, _no_weight)


def few(rng: np.random.Generator, size: int, ties: bool) -> np.ndarray:
    """A slot vector of 1 to 3 nonzero entries (as λ and ρ, which mostly have one; ``ties``:
    from {¼, ½, 1})."""
    k = min(size, int(rng.integers(1, 4)))
    out = np.zeros(size)
    out[rng.choice(size, k, replace=False)] = (rng.choice([0.25, 0.5, 1.0], k) if ties
                                               else rng.uniform(0.05, 1.0, k))
    return out


def thin(rng: np.random.Generator, x, keep: bool = True) -> np.ndarray:
    """x with about a third of its entries zeroed (``keep``: a nonzero entry kept, if any)."""
    x = np.asarray(x, dtype=float)
    out = np.where(rng.random(x.shape) < 0.3, 0.0, x)
    if keep and x.any() and not out.any():
        at = rng.choice(np.flatnonzero(x))
        out[at] = x[at]
    return out


def thin_chains(c: TokenChains, rng: np.random.Generator) -> TokenChains:
    """c with about a third of its arc weights zeroed (the shape stays)."""
    return TokenChains(c.shape, thin(rng, c.weight, False), c.stored, c.maximum)


def thinned(tree: MatrixTree, rng: np.random.Generator) -> MatrixTree:
    """The tree with about a third of its slot vectors' entries and of its token chains' arc
    weights zeroed (a vector keeps one nonzero entry; the shapes stay): thinned apart, the
    real and the max-product trees each have nonzeros the other lacks."""
    return replace(tree, start=[thin(rng, x) for x in tree.start],
                   final=[thin(rng, x) for x in tree.final],
                   nodes=[replace(c, lefts=thin_chains(c.lefts, rng),
                                  rights=thin_chains(c.rights, rng)) for c in tree.nodes])


@settings(max_examples=150, deadline=None)
@given(st.integers(1, 12), SEEDS, st.booleans())
def test_a_chain_in_both_semirings_at_once_is_each_alone(size, seed, sparse):
    """The compiled step of a token chain in both runs at once (across lines where both
    vectors are sparse, along where both are not, else each its own way) against each run's
    chain alone, bitwise, and the readable reference to rounding: token weights and vectors
    thinned apart, so that each run's vectors have nonzeros the other's lack (``sparse``: 1 to
    3 nonzero entries before thinning, as λ and ρ)."""
    rng = np.random.default_rng(seed)
    sums, maxs = random_chains(rng, size, int(rng.integers(1, 2 * size * size + 2)))
    sums, maxs = thin_chains(sums, rng), thin_chains(maxs, rng)
    x = few(rng, size, False) if sparse else rng.uniform(0.05, 1.0, size)
    x, x2 = thin(rng, x), thin(rng, x)
    stacks = [sums.kernel(), maxs.kernel()]
    for vm, a in itertools.product((False, True), range(len(sums.strings))):
        out, out2, alone, alone2 = _forest.chain_pair(stacks, a, x, x2, vm)
        assert out.tobytes() == alone.tobytes() and out2.tobytes() == alone2.tobytes()
        for got, c, v, semiring in ((alone, sums, x, SumProduct), (alone2, maxs, x2, MaxProduct)):
            want = (c.apply_t if vm else c.apply)(v, semiring)[a]
            np.testing.assert_allclose(got, want, rtol=1e-13)


@settings(max_examples=300, deadline=None)
@given(st.integers(0, 6), SEEDS, st.booleans(), st.booleans(), st.booleans())
def test_joint_pass_over_token_chains(n, seed, apart, sparse, ties):
    """Viterbi and log Z in one traversal over token chains (the chains and the token matrices'
    lines alike in both semirings, applied to both runs' vectors at once): each result bitwise
    that of its own run. With ``apart``, each run's token weights and slot vectors thinned
    apart, so that each run's vectors have nonzeros the other's lack: the guards of the fused
    ways (the same nonzeros) decide, and a fused step across lines scatters entries of one run
    only; with ``sparse``, up to 12 states and slot vectors of 1 to 3 nonzero entries (as λ and
    ρ), so that steps go across lines from a few entries; with ``ties``, every weight from
    {¼, ½, 1}: paths tie, so that a max-product value one ulp off changes a choice (a log
    score hides it)."""
    rng = np.random.default_rng(seed)
    sum_chains, _, max_chains, _ = chain_trees(rng, n, 12 if sparse else 4, dense=sparse,
                                               zeros=0.0, ties=ties)
    if sparse:
        start, final = ([few(rng, len(x), ties) for x in v] for v in (sum_chains.start,
                                                                     sum_chains.final))
        sum_chains = replace(sum_chains, start=start, final=final)
        max_chains = replace(max_chains, start=start, final=final)
    if apart:
        sum_chains, max_chains = thinned(sum_chains, rng), thinned(max_chains, rng)
    check_joint(sum_chains, max_chains)


def reshaped(c: TokenChains, rng: np.random.Generator, drop: bool) -> TokenChains:
    """c with its token strings in another order (rotated by one: other chains over the same
    token matrices); with ``drop``, about a third of its arcs dropped too (other lines)."""
    token, src, dst = c.shape._arcs
    keep = rng.random(len(token)) >= (0.3 if drop else 0.0)
    words = c.strings[1:] + c.strings[:1]
    shape = ChainShape(c.size, token[keep], src[keep], dst[keep], strings(words))
    return TokenChains(shape, c.weight[keep], c.stored, c.maximum)


@settings(max_examples=100, deadline=None)
@given(st.integers(0, 6), SEEDS, st.booleans(), st.booleans(), st.booleans())
def test_joint_pass_over_token_chains_of_other_shapes(n, seed, drop, sparse, ties):
    """As test_forest's test_joint_pass_over_stacks_of_other_lines over token chains: the
    max-product run's chains other strings of the same number (with ``drop``, over token
    matrices of fewer arcs), their stored matrices alike, so that only the stored lines are
    read once for both runs; each result bitwise that of its own run."""
    rng = np.random.default_rng(seed)
    sum_chains, _, max_chains, _ = chain_trees(rng, n, 12 if sparse else 4, dense=sparse,
                                               zeros=0.0, ties=ties)
    max_chains = replace(max_chains, nodes=[
        replace(c, lefts=reshaped(c.lefts, rng, drop), rights=reshaped(c.rights, rng, drop))
        for c in max_chains.nodes])
    check_joint(sum_chains, max_chains)


def test_outside_and_sampling_reject_token_chains():
    rng = np.random.default_rng(3)
    sum_chains = chain_trees(rng, 3)[0]
    fo = forest.from_trees([sum_chains], SumProduct)
    with pytest.raises(ValueError, match="token chains"):
        forest.outside(fo, lambda s: None)
    with pytest.raises(ValueError, match="token chains"):
        forest.sample(fo, np.random.default_rng(0), 2, lambda s: None)


def decoded(inference: Inference) -> tuple[list, np.ndarray, np.ndarray]:
    """Viterbi T′, its scores and log p; in one traversal the same T′ and log p bit for bit."""
    best, scores = inference._viterbi(range(len(inference.batch)))
    log_p = inference.log_probs()
    joint_best, joint_log_p = inference.viterbi_and_log_probs()
    assert joint_best == best
    assert joint_log_p.tobytes() == log_p.tobytes()
    return best, scores, log_p


def check_against_stacks(model, batches, chains: int) -> SlotCache:
    """Viterbi T′ the same, its scores and log p to rounding, over a cache with ``chains``
    and blockwise sum closures, as decode's (one per run, shared by the batches as by
    decode's chunks), and over stacks."""
    cache = SlotCache(model, paired=True, subset=True, closures=False, chains=chains)
    for batch in batches:
        best, scores, log_p = decoded(Inference(model, batch))
        got_best, got_scores, got_log_p = decoded(Inference(model, batch, slots=cache))
        assert got_best == best
        np.testing.assert_allclose(got_scores, scores, rtol=1e-12)
        np.testing.assert_allclose(got_log_p, log_p, rtol=1e-12)
    return cache


@settings(max_examples=40, deadline=None)
@given(corpora(), st.sampled_from(["ltr", "rtl"]), SEEDS, st.sampled_from([0.0, 1e-3]),
       st.sampled_from([1, 3, 1000]))
def test_chained_slots_give_the_results_of_stacks(sentences, direction, seed, backoff, chains):
    if not sentences:
        return
    model = make_model(sentences, direction, seed, backoff=backoff)
    batches = [model.prepare(sentences[k:k + 2]) for k in range(0, len(sentences), 2)]
    try:
        for batch in batches:
            decoded(Inference(model, batch))
    except ZeroWeightError:
        return
    cache = check_against_stacks(model, batches, chains)
    if chains == 1000:  # every string with tokens is chained
        assert all(slot.lattice.size == 1 for slot in cache._slots.values())


def test_chained_slots_on_en_dev_chunks():
    model = fstpunct.load("en").punct
    sentences = [to_slots(s) for s in itertools.islice(treebank("en", "dev").sentences(),
                                                       240)]
    batches = [model.prepare(sentences[k:k + 60]) for k in range(0, len(sentences), 60)]
    cache = check_against_stacks(model, batches, 8)
    chained = {x for x, _ in cache._chained}
    assert chained and chained & {x for x, _ in cache._slots}  # some strings both ways
    with pytest.raises(ValueError, match="token chains"):
        Inference(model, batches[0], slots=cache).posteriors_all()


@pytest.mark.parametrize("chains", [0, 8])
def test_only_decode_with_chains_takes_blockwise_closures(chains):
    """decode without posteriors (chains) stores blockwise sum closures; every other caller of
    decode's caches (posteriors, scores, normalisation) LAPACK's, bit for bit."""
    model = fstpunct.load("en").punct
    cache = _slot_cache(model, True, chains)
    for maximum in (False, True):
        slot = cache.get((")", "."), maximum)
        lat = slot.lattice
        want = lat.closure(cache.rate, cache.boundary)
        if chains and not maximum:
            want = BlockClosures().of(lat, cache.rate, cache.boundary)
        assert _last_matrix(slot.sparse).tobytes() == want.tobytes()
