"""Slot stacks built only for the punctemes a slot's candidates use (``SlotCache(subset=True)``,
what decoding uses) give bit for bit the results of stacks over every puncteme of V: Viterbi
choices and scores, log p and posteriors, on random models (a new Inference per sentence
sharing one cache, so later sentences extend the stacks built for earlier ones) and on the
bundled English model over en_ewt dev in chunks; and the reference tree DP agrees on them."""
import itertools

import numpy as np
import pytest
from conftest import treebank
from hypothesis import given, settings
from hypothesis import strategies as st
from test_model import corpora, make_model

import fstpunct
from fstpunct.dp.treedp import ZeroWeightError
from fstpunct.model.punct import Inference, SlotCache
from fstpunct.ud.slots import to_slots


def results(inferences):
    """Viterbi T′ and scores, log p, and posteriors (of the pairs, in row order) of every
    sentence of the inferences."""
    out = []
    for inference in inferences:
        best, scores = inference._viterbi(range(len(inference.batch)))
        posteriors = inference.posteriors_all()
        out.append((best, scores.tolist(), inference.log_probs().tolist(),
                    [(p.log_z, inference.batch.data.pairs[p.rows].tolist(), p.posterior.tolist())
                     for p in posteriors]))
    return [list(itertools.chain.from_iterable(r)) for r in zip(*out)]


@settings(max_examples=40, deadline=None)
@given(corpora(), st.sampled_from(["ltr", "rtl"]), st.integers(0, 10**6),
       st.sampled_from([0.0, 1e-3]), st.booleans())
def test_subset_stacks_give_the_results_of_whole_stacks(sentences, direction, seed, backoff,
                                                        paired):
    if not sentences:
        return
    model = make_model(sentences, direction, seed, backoff=backoff)
    whole = Inference(model, model.prepare(sentences))
    cache = SlotCache(model, paired=paired, subset=True)
    parts = [Inference(model, model.prepare([s]), slots=cache) for s in sentences]
    rng = np.random.default_rng(seed)
    for x in sorted({x for part in parts for x in part.batch.surfaces[0]}):
        # stacks first built for a few punctemes: the sentences' needs extend them
        cache.get(x, bool(rng.integers(2)), rng.random(len(model.vocab.punctemes)) < 0.2)
    try:
        expected = results([whole])
    except ZeroWeightError:
        with pytest.raises(ZeroWeightError):
            results(parts)
        return
    assert results(parts) == expected
    for s, part in enumerate(parts):  # the reference over the subset stacks
        assert part.viterbi_reference(0) == whole.viterbi_reference(s)
        assert part.log_prob_reference(0) == whole.log_prob_reference(s)


def test_subset_stacks_on_en_dev_chunks():
    model = fstpunct.load("en").punct
    sentences = [to_slots(s) for s in itertools.islice(treebank("en", "dev").sentences(),
                                                       240)]
    whole = Inference(model, model.prepare(sentences), slots=SlotCache(model, paired=True))
    cache = SlotCache(model, paired=True, subset=True)
    parts = [Inference(model, model.prepare(sentences[k:k + 60]), slots=cache)
             for k in range(0, len(sentences), 60)]
    assert results(parts) == results([whole])
    built = [slot.built for slot in cache._slots.values() if slot.built is not None]
    assert built and sum(b.sum() for b in built) < 0.9 * sum(len(b) for b in built)


@settings(max_examples=25, deadline=None)
@given(corpora(), st.sampled_from(["ltr", "rtl"]), st.integers(0, 10**6), st.booleans())
def test_expected_counts_on_a_subset_cache(sentences, direction, seed, closures):
    """The E-step's expected counts (compiled and reference) over a subset slot cache equal
    those over whole stacks, and leave the slots holding only what the candidates need; a
    cache that does not keep the dense closures (decoding's) computes them again for the
    edit counter: the same counts."""
    if not sentences:
        return
    model = make_model(sentences, direction, seed, backoff=1e-3)
    batch = model.prepare(sentences)
    whole = Inference(model, batch)
    subset = Inference(model, batch, slots=SlotCache(model, subset=True, closures=closures))
    try:
        expected = whole.expected_counts()
    except ZeroWeightError:
        return
    got = subset.expected_counts()
    kept = [slot.closure is not None for slot in subset.slots._slots.values()]
    assert kept and all(k == closures for k in kept)
    assert got.log_z == expected.log_z
    np.testing.assert_array_equal(got.arc_counts, expected.arc_counts)
    np.testing.assert_array_equal(got.posterior, expected.posterior)
    np.testing.assert_array_equal(subset.expectations(0).arc_counts,
                                  whole.expectations(0).arc_counts)
    layout = subset._layout(False, range(len(batch)))
    for x, need in zip(layout.surfaces, layout.needed):
        slot = subset.slots.get(x, False, need)
        assert slot.built is None or np.array_equal(slot.built, need)
