"""Drawn readings of T_e′ (``train(readings=D)``) and the reading diagnostic of
:mod:`fstpunct.apps.correction.readings`, on the hand-made pairs of test_correction."""
from collections import Counter
from dataclasses import replace

import numpy as np
import pytest
from test_correction import PLAIN, RELATIVE, conll, learner_pairs, sentences

from fstpunct.apps.correction.correct import slot_distributions
from fstpunct.apps.correction.model import drawn, learner_contexts, train, with_learner
from fstpunct.apps.correction.readings import readings, stands_for
from fstpunct.apps.decode import ranked_pairs
from fstpunct.apps.restoration.exact import ExactPrior
from fstpunct.errors import InputError
from fstpunct.fst.grammar import load_grammar
from fstpunct.model.punct import Inference, Settings
from fstpunct.model.store import load_model
from fstpunct.ud.slots import to_slots

GRAMMAR = "grammars/en.rules"


@pytest.fixture(scope="module")
def pairs():
    """A learner model and 8 learner/corrected pairs (:func:`learner_pairs`)."""
    return learner_pairs(4)


def test_drawn_readings_follow_the_learner_posterior(pairs):
    """Each draw's contexts are learner_contexts of one T′; over many draws each node's pair
    is drawn as often as its posterior marginal says (Monte Carlo, 4 standard errors); the
    same stream gives the same draws."""
    learner, originals, _ = pairs
    ss = originals[0]
    draws = drawn(learner, [ss], 600, seed=5)
    assert len(draws) == 600 and all(len(d) == 1 for d in draws)
    assert [d[0].contexts for d in draws[:20]] == [d[0].contexts for d in
                                                    drawn(learner, [ss], 20, seed=5)]
    inference = Inference(learner, learner.prepare([ss]))
    ranked, _ = ranked_pairs(inference, 0)
    for node, options in enumerate(ranked):
        seen = Counter(d[0].contexts[node][2] for d in draws)  # xp=l|r
        for pair, p in options:
            if pair is None or p < 0.02:
                continue
            key = learner_contexts(ss, [pair] * ss.n)[node][2]
            share = seen[key] / len(draws)
            assert abs(share - p) <= 4 * np.sqrt(p * (1 - p) / len(draws)) + 1e-9, (node, pair)
    with pytest.raises(InputError, match="at least 1"):
        drawn(learner, [ss], 0)


def test_training_on_drawn_readings(pairs):
    """D copies of every pair, one per draw; θ's L2 and the Dirichlet prior times D; the
    record says D. Without readings the record has no such key and T_e′ is Viterbi's."""
    learner, originals, fixed = pairs
    grammar, english = load_grammar(GRAMMAR), load_model("en")
    settings = Settings(lexical=0, l2=1.5, prior=10.0)
    model = train(learner, originals, fixed, english, grammar, iterations=1, settings=settings,
                  readings=3)
    assert model.record["readings"] == 3 and model.record["pairs"] == 3 * len(fixed)
    assert (model.corrector.settings.l2, model.corrector.settings.prior) == (4.5, 30.0)
    plain = train(learner, originals, fixed, english, grammar, iterations=1, settings=settings)
    assert "readings" not in plain.record and plain.record["pairs"] == len(fixed)
    assert plain.corrector.settings == settings


def test_decoding_mixes_the_drawn_readings_equally(pairs):
    """A model trained on drawn readings decodes with the equal mixture of the slot
    distributions under each of its D draws (stream 0); the Viterbi model with T_e′'s."""
    learner, originals, fixed = pairs
    grammar, english = load_grammar(GRAMMAR), load_model("en")
    model = train(learner, originals, fixed, english, grammar, iterations=1, readings=4)
    text = sentences(conll(RELATIVE, "r", drop=(1, 4)) + conll(PLAIN, "p"))
    got = slot_distributions(model, text)
    prior = ExactPrior(model.corrector)
    draws = drawn(model.learner, [to_slots(s) for s in text], 4)
    for k in range(len(text)):
        alone = [prior.sentence([(d[k], prior.marginals([d[k]])[0])]) for d in draws]
        for i, slot in enumerate(got[k]):
            for y, p in zip(slot.strings, slot.probs):
                assert p == pytest.approx(np.mean([a[i].prob(y) for a in alone]), abs=1e-9)
    viterbi = replace(model, record={**model.record, "readings": 0})
    marked = with_learner(viterbi.learner, [to_slots(s) for s in text])
    want = [prior.sentence([(ss, m)]) for ss, m in zip(marked, prior.marginals(marked))]
    assert [[s.strings for s in row] for row in slot_distributions(viterbi, text)] == [
        [s.strings for s in row] for row in want]


def test_a_reading_stands_for_its_likeliest_rendering():
    """``. ?`` under the root's right and a dependent's: the English channel's likeliest
    rendering, worked out by enumeration, is what the slot stands for; a faithful reading
    stands for the learner's string."""
    english = load_model("en")
    ss = to_slots(sentences(conll(PLAIN, "p"))[0])  # We left early . : spans (0,1) (0,3) (2,3)
    faithful = [((), ()), ((), (".",)), ((), ())]
    assert stands_for(english.channel, ss, faithful, {}) == [(), (), (), (".",)]
    both = [((), ()), ((), ("?",)), ((), (".",))]  # slot 3: u = . ? (innermost first)
    dist = english.channel.distribution((".", "?"))
    assert stands_for(english.channel, ss, both, {})[3] == max(dist, key=dist.get)
    assert stands_for(english.channel, ss, [None, *faithful[1:]], {})[:2] == [None, None]


def test_readings_flag_what_t_e_does_not_render_as_written(pairs):
    """Every slot's reading is what Viterbi T_e′ stands for; an artifact exactly where that is
    not the learner's string; the posterior a share of the draws, 1 where every draw agrees."""
    learner, originals, _ = pairs
    got = readings(learner, originals[:5], draws=50)
    inference = Inference(learner, learner.prepare(originals[:5]))
    for ss, row, best in zip(originals, got, inference.viterbi_all()):
        assert [r.reading for r in row] == stands_for(learner.channel, ss, best, {})
        assert [r.artifact for r in row] == [r.reading != ss.slots[i] for i, r in enumerate(row)]
        assert all(0.0 <= r.posterior <= 1.0 and r.posterior * 50 == round(r.posterior * 50)
                   for r in row)
