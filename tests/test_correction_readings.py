"""Drawn readings of T_e′ (``train(readings=D)``) and the reading diagnostic of
:mod:`fstpunct.apps.correction.readings`, on the hand-made pairs of test_correction."""
import json
import re
import sys
from collections import Counter
from dataclasses import replace

import numpy as np
import pytest
from learner_pairs import GRAMMAR, PLAIN, RELATIVE, conll, learner_pairs, sentences
from scipy import stats
from script_module import load_script
from test_treedp import enumerate_choices

from fstpunct.apps.correction import model as correction_model
from fstpunct.apps.correction.correct import Prepared, corrected, slot_distributions
from fstpunct.apps.correction.draws import learner_draws, sentence_streams
from fstpunct.apps.correction.model import (
    FORMAT,
    CorrectionModel,
    drawn,
    learner_contexts,
    read_correction_record,
    sharpened,
    train,
    with_learner,
)
from fstpunct.apps.correction.readings import readings, stands_for
from fstpunct.apps.correction.rerank import Nbest, correction_log_probs
from fstpunct.apps.decode import ranked_pairs
from fstpunct.apps.rephrase.underlying import Aligner
from fstpunct.apps.restoration.exact import ExactPrior
from fstpunct.apps.restoration.strip import insert, insertions_of, strip
from fstpunct.errors import ConlluError, InputError, ModelError
from fstpunct.fst.grammar import load_grammar
from fstpunct.model.features import node_contexts
from fstpunct.model.punct import Inference, Settings
from fstpunct.model.store import load_model
from fstpunct.model.train import em, initial_model
from fstpunct.model.vocab import UNK
from fstpunct.ud.slots import to_slots


@pytest.fixture(scope="module")
def pairs():
    """A learner model and 8 learner/corrected pairs (:func:`learner_pairs`)."""
    return learner_pairs(4)


@pytest.fixture(scope="module")
def drawn_model(pairs):
    """The corrector of ``pairs`` trained on 4 drawn readings (1 EM iteration)."""
    learner, originals, fixed = pairs
    return train(learner, originals, fixed, load_model("en"), load_grammar(GRAMMAR),
                 iterations=1, readings=4)


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
    # a negative seed: numpy's traceback before
    with pytest.raises(InputError, match="^seed must be at least 0, not -1$"):
        drawn(learner, [ss], 2, -1)
    # checked with nothing to draw too
    with pytest.raises(InputError, match="^seed must be at least 0, not -1$"):
        drawn(learner, [], 2, -1)
    with pytest.raises(InputError, match="at least 1"):
        readings(learner, [], draws=0)


def enumerated(model, ss):
    """Every analysis T′ of ``ss`` under ``model`` (its nodes' pairs) with its posterior, by
    enumeration over the matrix tree (:func:`test_treedp.enumerate_choices`)."""
    inference = Inference(model, model.prepare([ss]))
    tree, labels = inference.tree(0)

    def dense(stack):
        return stack if isinstance(stack, np.ndarray) else np.array(
            [stack.matrix(a) for a in range(len(stack))])
    tree = replace(tree, nodes=[replace(c, lefts=dense(c.lefts), rights=dense(c.rights))
                                for c in tree.nodes])
    values = enumerate_choices(tree)
    z = sum(values.values())
    return [(inference._pairs_of(labels, choice), v / z) for choice, v in values.items()]


def test_sentence_k_draws_from_the_stream_seed_first_plus_k():
    """The streams are (seed, first + k) (draws.sentence_streams); drawn and readings draw from
    them (learner_draws): sentence k's draws are those of Inference.sample from
    default_rng((seed, first + k)). sample_each refuses streams that are not one per sentence
    and a size below 1. A flattened channel (β 0.3) makes the draws differ."""
    assert sentence_streams(5, 2, 3) == [(5, 2), (5, 3), (5, 4)]
    english = load_model("en")
    unsure = replace(english, channel=sharpened(english.channel, 0.3))
    text = [to_slots(s) for s in sentences(conll(PLAIN, "p") + conll(RELATIVE, "r", drop=(1, 4))
                                           + conll(RELATIVE, "q", drop=(1,)))]
    inference, sampled = learner_draws(unsure, text, 6, seed=5, first=2)
    own = [inference.sample(k, np.random.default_rng((5, 2 + k)), 6) for k in range(len(text))]
    assert sampled == own and len({tuple(d) for d in own[1]}) > 1
    assert [[ss.contexts for ss in d] for d in drawn(unsure, text, 6, seed=5, first=2)] == [
        [learner_contexts(ss, own[k][d][:ss.n]) for k, ss in enumerate(text)] for d in range(6)]
    assert learner_draws(unsure, [], 6, seed=5, first=2) is None
    with pytest.raises(ValueError, match="2 random streams for 3 sentences"):
        inference.sample_each(6, sentence_streams(5, 2, 2))
    with pytest.raises(InputError, match="^the draws of T′ must be at least 1, not 0$"):
        inference.sample_each(0, sentence_streams(5, 2, 3))


def test_drawn_readings_follow_the_joint_posterior(pairs):
    """Whole drawn T_e′ (every node's pair at once, read off the draw's ``xp=`` contexts)
    against the posterior of the 5-word sentence's 72 analyses by enumeration: chi-square over
    3,000 draws. The joint is 0.14 in total variation from the product of its node marginals,
    so a sampler drawing each node from its marginal alone would fail."""
    learner, originals, _ = pairs
    ss = originals[0]
    joint: Counter = Counter()
    for pairs_, p in enumerated(learner, ss):
        joint[tuple(node[2] for node in learner_contexts(ss, pairs_))] += p
    nodes = len(next(iter(joint)))
    marginals = [Counter() for _ in range(nodes)]
    for t, p in joint.items():
        for i, pair in enumerate(t):
            marginals[i][pair] += p
    product = {t: float(np.prod([marginals[i][t[i]] for i in range(nodes)])) for t in joint}
    assert 0.5 * sum(abs(joint[t] - product[t]) for t in joint) > 0.1  # the nodes depend
    n = 3000
    seen = Counter(tuple(node[2] for node in d[0].contexts) for d in drawn(learner, [ss], n, 7))
    assert all(joint[t] > 0 for t in seen)
    big = [t for t in joint if joint[t] * n >= 5]  # the rest pooled in one cell
    observed = [seen[t] for t in big] + [n - sum(seen[t] for t in big)]
    expected = [joint[t] * n for t in big] + [n - sum(joint[t] * n for t in big)]
    assert len(big) >= 3 and stats.chisquare(observed, expected).pvalue > 1e-3


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
    assert "readings_seed" not in model.record  # stream 0: the record as before the option
    seeded = train(learner, originals, fixed, english, grammar, iterations=1, settings=settings,
                   readings=3, readings_seed=2)
    assert seeded.record["readings_seed"] == 2
    assert not np.array_equal(seeded.corrector.theta, model.corrector.theta)
    with pytest.raises(InputError, match="needs drawn readings"):
        train(learner, originals, fixed, english, grammar, iterations=1, readings_seed=2)


def no_work(monkeypatch) -> None:
    """:func:`train` fails the test if it sharpens the learner or reads a pair with it."""
    def unused(*_):
        raise AssertionError("work began")
    for name in ("sharpened", "drawn", "with_learner"):
        monkeypatch.setattr(correction_model, name, unused)


def test_settings_times_the_readings_are_refused_before_any_is_drawn(pairs, monkeypatch):
    """θ's L2 and the prior times D (:func:`train`'s readings) beyond a float's range: refused
    before the learner is sharpened or a reading drawn (they were multiplied after)."""
    learner, originals, fixed = pairs
    no_work(monkeypatch)
    with pytest.raises(InputError, match=r"^l2 must be a finite number of at least 0, not inf$"):
        train(learner, originals, fixed, load_model("en"), load_grammar(GRAMMAR), iterations=1,
              settings=Settings(lexical=0, l2=1e308), readings=2, sharpen=0.5)


@pytest.mark.parametrize("readings, said", [
    (-1, "readings must be at least 0, not -1"),
    (10**400, r"readings must be within a float's range \(at most 1.8e\+308\), not 1.000E\+400"),
    (True, "readings must be a whole number of at least 0, not True")])
def test_a_bad_readings_is_refused_by_its_name_before_any_work(pairs, monkeypatch, readings,
                                                                said):
    """``readings`` below 0, beyond a float's range (l2 and prior are multiplied by it) or no
    count, in one line naming it (were: l2 and prior refused, an OverflowError, True as 1)."""
    learner, originals, fixed = pairs
    no_work(monkeypatch)
    with pytest.raises(InputError, match=f"^{said}$"):
        train(learner, originals, fixed, load_model("en"), load_grammar(GRAMMAR), iterations=1,
              readings=readings)


def test_a_readings_seed_of_two_words_is_refused_by_its_name(pairs, drawn_model, tmp_path):
    """``readings_seed`` of 2**32 or more (two words of a stream) or below 0 is refused by its
    name: by train up front (before its sharpening, refused here too), by decoding, and when a
    saved model is loaded, naming its folder (not at the first sentence decoded)."""
    learner, originals, fixed = pairs
    grammar, english = load_grammar(GRAMMAR), load_model("en")
    for seed, words in ((2 ** 32, "below 2**32"), (-1, "at least 0")):
        with pytest.raises(InputError, match=rf"^readings_seed must be {re.escape(words)}, "
                                             rf"not {seed}$"):
            train(learner, originals, fixed, english, grammar, iterations=1, sharpen=0.0,
                  readings=2, readings_seed=seed)
    bad = replace(drawn_model, record={**drawn_model.record, "readings_seed": 2 ** 32})
    with pytest.raises(InputError, match=r"^readings_seed must be below 2\*\*32, not 4294967296$"):
        bad.readings_of(originals[:1])
    bad.save(tmp_path / "bad")
    with pytest.raises(ModelError) as refused:
        CorrectionModel.load(tmp_path / "bad")
    assert str(refused.value) == (f"{tmp_path / 'bad'}: not a correction model (correction.json: "
                                  "readings_seed must be below 2**32, not 4294967296)")
    drawn_model.save(tmp_path / "good")
    assert CorrectionModel.load(tmp_path / "good").readings_seed == 0


@pytest.mark.parametrize("stored, said", [
    (1.5, "a whole number of at least 0, not 1.5"), (1.0, "a whole number of at least 0, not 1.0"),
    (True, "a whole number of at least 0, not True"),
    ("1", "a whole number of at least 0, not '1'"),
    (None, "a whole number of at least 0, not None"),
    (float("inf"), "a finite number of at least 0, not inf"), (-1, "at least 0, not -1"),
    (2 ** 32, "below 2**32, not 4294967296")])
def test_a_stored_readings_seed_that_is_no_stream_seed_is_refused(drawn_model, tmp_path,
                                                                  stored, said):
    """A correction.json whose ``readings_seed`` is not a JSON integer (a float, even 1.0; a
    bool; a string; null; Infinity, which Python's json reads as a float) or not one 32-bit
    word is refused when loaded, one ModelError naming the folder, in the words of the
    ``readings`` refusal: not read as another seed (int(1.5) is 1) nor an OverflowError's
    traceback."""
    replace(drawn_model, record={**drawn_model.record, "readings_seed": stored}).save(
        tmp_path / "bad")  # json writes inf as Infinity
    with pytest.raises(ModelError) as refused:
        CorrectionModel.load(tmp_path / "bad")
    assert str(refused.value) == (f"{tmp_path / 'bad'}: not a correction model (correction.json: "
                                  f"readings_seed must be {said})")


@pytest.mark.parametrize("stored, said", [
    (2.5, "a whole number of at least 0, not 2.5"), (2.0, "a whole number of at least 0, not 2.0"),
    (True, "a whole number of at least 0, not True"), (-1, "at least 0, not -1"),
    ("x", "a whole number of at least 0, not 'x'"),
    (None, "a whole number of at least 0, not None"),
    (float("inf"), "a finite number of at least 0, not inf")])
def test_a_stored_readings_that_is_not_a_count_is_refused(drawn_model, tmp_path, stored, said):
    """A correction.json whose ``readings`` is not a whole number of at least 0 (a fraction,
    even 2.0; a bool; below 0; a string; null; Infinity) is refused when loaded, one ModelError
    naming the folder and correction.json: not truncated (int(2.5) is 2), nor a ValueError's
    traceback or a refusal of the draws at the first sentence."""
    replace(drawn_model, record={**drawn_model.record, "readings": stored}).save(tmp_path / "bad")
    with pytest.raises(ModelError) as refused:
        CorrectionModel.load(tmp_path / "bad")
    assert str(refused.value) == (f"{tmp_path / 'bad'}: not a correction model (correction.json: "
                                  f"readings must be {said})")


@pytest.mark.parametrize("record", [None, [], "x", 1])
def test_a_stored_record_that_is_not_an_object_is_refused(tmp_path, monkeypatch, capsys,
                                                          record):
    """A correction.json whose ``record`` is not a JSON object (null, a list, a string, a
    number) is refused in one ModelError naming the folder, by read_correction_record and so by
    CorrectionModel.load, not an AttributeError's traceback; through the command
    (channel-heldout reads the record first), one line and exit 2."""
    folder = tmp_path / "heldout" / "correct"
    folder.mkdir(parents=True)
    (folder / "correction.json").write_text(json.dumps({"format": FORMAT, "record": record}),
                                            encoding="utf-8")
    said = f"{folder}: not a correction model (correction.json: 'record' is not a JSON object)"
    for read in (read_correction_record, CorrectionModel.load):
        with pytest.raises(ModelError) as refused:
            read(folder)
        assert str(refused.value) == said
    monkeypatch.setattr(sys, "argv", ["correction.py", "channel-heldout", "--data",
                                      str(tmp_path / "learner"), "--work",
                                      str(tmp_path / "heldout"), "-o", str(tmp_path / "o.json")])
    with pytest.raises(SystemExit) as stop:
        load_script("correction").main()
    assert stop.value.code == 2 and capsys.readouterr().err == f"correction: {said}\n"


def test_decoding_mixes_the_drawn_readings_equally(pairs):
    """A model trained on drawn readings decodes with the equal mixture of the slot
    distributions under each of its D draws (stream 0, or the recorded ``readings_seed``);
    the Viterbi model with T_e′'s."""
    learner, originals, fixed = pairs
    grammar, english = load_grammar(GRAMMAR), load_model("en")
    model = train(learner, originals, fixed, english, grammar, iterations=1, readings=4)
    text = sentences(conll(RELATIVE, "r", drop=(1, 4)) + conll(PLAIN, "p"))
    prior = ExactPrior(model.corrector)
    streams = {seed: drawn(model.learner, [to_slots(s) for s in text], 4, seed) for seed in (0, 7)}
    assert [[ss.contexts for ss in d] for d in streams[0]] != [[ss.contexts for ss in d]
                                                               for d in streams[7]]
    for seed, draws in streams.items():
        decoded = replace(model, record={**model.record, "readings_seed": seed})
        got = slot_distributions(decoded, text)
        for k in range(len(text)):
            alone = [prior.sentence([(d[k], prior.marginals([d[k]])[0])]) for d in draws]
            for i, slot in enumerate(got[k]):
                for y, p in zip(slot.strings, slot.probs):
                    assert p == pytest.approx(np.mean([a[i].prob(y) for a in alone]),
                                              abs=1e-9)
    viterbi = replace(model, record={**model.record, "readings": 0})
    marked = with_learner(viterbi.learner, [to_slots(s) for s in text])
    want = [prior.sentence([(ss, m)]) for ss, m in zip(marked, prior.marginals(marked))]
    for row, expect in zip(slot_distributions(viterbi, text), want):
        assert [s.strings for s in row] == [s.strings for s in expect]
        assert all(np.array_equal(a.probs, b.probs) for a, b in zip(row, expect))


def test_a_reading_stands_for_its_likeliest_rendering():
    """``. ?`` under the root's right and a dependent's: the English grammar's ``?`` absorbs
    the ``.`` (p 0.98 in the bundled channel), so the slot stands for ``?``; a faithful reading
    stands for the learner's string."""
    english = load_model("en")
    ss = to_slots(sentences(conll(PLAIN, "p"))[0])  # We left early . : spans (0,1) (0,3) (2,3)
    faithful = [((), ()), ((), (".",)), ((), ())]
    assert stands_for(Aligner(english.channel), ss, faithful) == [(), (), (), (".",)]
    both = [((), ()), ((), ("?",)), ((), (".",))]  # slot 3: u = . ? (innermost first)
    assert stands_for(Aligner(english.channel), ss, both)[3] == ("?",)
    assert stands_for(Aligner(english.channel), ss, [None, *faithful[1:]])[:2] == [None, None]


def test_readings_flag_what_t_e_does_not_render_as_written(pairs):
    """Every slot's reading is what Viterbi T_e′ stands for; an artifact exactly where that is
    not the learner's string; the posterior a share of the draws."""
    learner, originals, _ = pairs
    got = readings(learner, originals[:5], draws=50)
    inference = Inference(learner, learner.prepare(originals[:5]))
    for ss, row, best in zip(originals, got, inference.viterbi_all()):
        assert [r.reading for r in row] == stands_for(Aligner(learner.channel), ss, best)
        assert [r.artifact for r in row] == [r.reading != ss.slots[i] for i, r in enumerate(row)]
        assert all(0.0 <= r.posterior <= 1.0 and round(r.posterior * 50) / 50 == r.posterior
                   for r in row)


def test_a_readings_posterior_is_the_share_of_the_posterior_that_reads_it_so():
    """``Who .`` under the bundled English model: each slot's posterior (4,000 draws) against
    the exact posterior mass of the analyses whose u_i stands for what Viterbi T_e′'s does,
    by enumeration (0.992 and 0.989: within 4 standard errors; 1 would not be)."""
    english = load_model("en")
    ss = to_slots(sentences(conll([("Who", 0, "root"), (".", 1, "punct")], "w"))[0])
    n = 4000
    row = readings(english, [ss], draws=n)[0]
    exact = np.zeros(ss.n + 1)
    for pairs_, p in enumerated(english, ss):
        exact += p * np.array([a == r.reading for a, r in
                               zip(stands_for(Aligner(english.channel), ss, pairs_), row)])
    assert [r.reading for r in row] == [(), (".",)] and max(exact) < 0.995
    for r, p in zip(row, exact):
        assert abs(r.posterior - p) <= 4 * np.sqrt(p * (1 - p) / n)


def test_drawn_readings_keep_the_vocabulary_of_one_copy():
    """With D readings the corrector's vocabulary is the Viterbi one's, that of one copy of
    the pairs (2 pairs' 4 corrected commas stay UNK: D copies of them would pass Vocab.build's
    threshold of 5), while θ's contexts are those of every draw."""
    learner, originals, fixed = learner_pairs(2)
    grammar, english = load_grammar(GRAMMAR), load_model("en")
    plain = train(learner, originals, fixed, english, grammar, iterations=1)
    model = train(learner, originals, fixed, english, grammar, iterations=1, readings=3)
    assert "," not in plain.corrector.vocab.tokens
    assert model.corrector.vocab.to_dict() == plain.corrector.vocab.to_dict()
    assert model.corrector.channel.symbols == plain.corrector.channel.symbols
    seen = {c for draw in drawn(model.learner, originals, 3) for ss in draw
            for node in node_contexts(ss) for c in node}
    assert len({tuple(d[0].contexts) for d in drawn(model.learner, originals, 3)}) > 1
    assert seen <= set(model.corrector.attach.contexts)


def test_a_sentences_readings_do_not_depend_on_its_batch(pairs, drawn_model):
    """Sentence k of a call draws its readings from stream (0, first + k): decoded alone at
    its place (first) or after other sentences, its slot distributions are the same, bit for
    bit (one generator for the whole call made them depend on the sentences before it)."""
    text = sentences(conll(PLAIN, "p") + conll(RELATIVE, "r", drop=(1, 4))
                     + conll(RELATIVE, "q", drop=(1,)))
    together = slot_distributions(drawn_model, text)
    for k, sent in enumerate(text):
        alone = slot_distributions(drawn_model, [sent], first=k)[0]
        assert [s.strings for s in alone] == [s.strings for s in together[k]]
        assert all(np.array_equal(a.probs, b.probs) for a, b in zip(alone, together[k]))
    slots = [to_slots(s) for s in text]
    assert [d[2].contexts for d in drawn(drawn_model.learner, slots, 4)] == [
        d[0].contexts for d in drawn(drawn_model.learner, slots[2:], 4, first=2)]


def test_a_drawn_readings_model_refuses_samples_before_reading(drawn_model):
    """Samples with a drawn-readings model are refused when ``corrected`` is called, before any
    sentence is read (it was refused per batch, and never for empty input)."""
    with pytest.raises(InputError, match="decodes exactly only"):
        corrected(iter([]), drawn_model, samples=5)


def test_rerank_scores_a_drawn_readings_model_by_the_mixture(drawn_model):
    """correction_log_probs of a model trained on D readings: log (1/D) Σ_d p(y | T, T_e′(d))
    over the D readings decoding mixes, not p(y | T, Viterbi T_e′)."""
    source = sentences(conll(RELATIVE, "r", drop=(1, 4)))
    gold = sentences(conll(RELATIVE, "r"))[0]
    stripped = [strip(s) for s in source]
    lists = [Nbest(np.log([0.6, 0.4]), [0, 1], [insertions_of(gold), insertions_of(source[0])])]
    got = correction_log_probs(drawn_model, source, stripped, lists)[0]
    draws = drawn(drawn_model.learner, [to_slots(source[0])], 4)
    corrector = drawn_model.corrector
    spread = 0.0
    for c, lp in zip(lists[0].corrections, got):
        ys = [replace(to_slots(insert(stripped[0], c)), contexts=d[0].contexts) for d in draws]
        per = Inference(corrector, corrector.prepare(ys)).log_probs()
        spread = max(spread, float(np.ptp(per)))
        assert lp == pytest.approx(np.log(np.mean(np.exp(per))), abs=1e-9)
    assert spread > 1e-6  # the draws differ, so the mixture is not any one reading's


def test_readings_refuse_no_draws_and_compare_in_model_symbols(pairs):
    """No draws: one clear error. A mark too rare for the learner model's vocabulary (UNK) that
    T_e′ reads faithfully is no artifact (the learner's string is compared in model symbols)."""
    learner, originals, _ = pairs
    with pytest.raises(InputError, match="at least 1"):
        readings(learner, originals[:1], draws=0)
    commas = to_slots(sentences(conll(RELATIVE, "c"))[0])  # two commas: UNK to the model
    start = initial_model(originals + [commas], load_grammar(GRAMMAR),
                          settings=Settings(lexical=0))
    rare, _ = em(start, start.prepare(originals + [commas]), 2)
    assert "," not in rare.vocab.tokens
    row = readings(rare, [commas], draws=20)[0]
    assert [r.reading for r in row[1::2]] == [(UNK,), (UNK,), (".",)]
    assert not any(r.artifact for r in row)


def test_a_sentences_reading_posteriors_do_not_depend_on_its_batch():
    """The diagnostic draws sentence k of a call from stream (seed, first + k), as drawn
    readings do (draws.sentence_streams): each sentence's posteriors alone at its place equal
    those in the batch (one generator for the whole call made sentences 1 and 3 differ), and
    another place draws otherwise. A flattened channel (β 0.3) makes the readings unsure."""
    english = load_model("en")
    unsure = replace(english, channel=sharpened(english.channel, 0.3))
    text = [to_slots(s) for s in sentences(
        conll([("Who", 0, "root"), (".", 1, "punct")], "w") + conll(PLAIN, "p")
        + conll(RELATIVE, "r", drop=(1, 4)) + conll(RELATIVE, "q", drop=(1,)))]
    together = readings(unsure, text, draws=40)
    assert any(r.posterior < 1.0 for row in together for r in row)
    for k, ss in enumerate(text):
        assert readings(unsure, [ss], draws=40, first=k)[0] == together[k]
    shifted = readings(unsure, text, draws=40, first=1)
    assert shifted != together
    for k, ss in enumerate(text):
        assert readings(unsure, [ss], draws=40, first=k + 1)[0] == shifted[k]
    with pytest.raises(InputError, match="^seed must be at least 0, not -1$"):
        readings(unsure, text, draws=2, seed=-1)


def test_rerank_and_decoding_give_a_sentence_the_same_draw_stream(drawn_model, monkeypatch):
    """A sentence's drawn readings come from stream (S, k), k its number among the sentences
    with words. ``fstpunct correct``
    (:func:`corrected`, any batch size) skips a sentence that is all punctuation when counting;
    the lists that decoding (:meth:`Prepared.of`) and re-ranking
    (:func:`correction_log_probs`) read refuse one (one error line each), so their positions
    are that same number, and they give each sentence the same index."""
    seen: dict[str, list[int]] = {}
    readings_of = type(drawn_model).readings_of

    def recorded(self, slots, first=0):
        for k, ss in enumerate(slots):
            seen.setdefault(ss.sent_id, []).append(first + k)
        return readings_of(self, slots, first)
    monkeypatch.setattr(type(drawn_model), "readings_of", recorded)
    text = sentences(conll(PLAIN, "a") + conll([("...", 0, "punct")], "dots")
                     + conll(RELATIVE, "b", drop=(1, 4)))
    for batch in (1, 2, 100):
        list(corrected(text, drawn_model, batch=batch))
    assert seen == {"a": [0, 0, 0], "b": [1, 1, 1]}
    words = [text[0], text[2]]
    seen.clear()
    prepared = Prepared.of(drawn_model, words)
    lists = [Nbest(np.zeros(1), [0], [insertions_of(s)]) for s in words]
    correction_log_probs(drawn_model, words, prepared.stripped, lists)
    assert seen == {"a": [0, 0], "b": [1, 1]}
    with pytest.raises(ConlluError, match="all punctuation"):  # strip's
        Prepared.of(drawn_model, text)
    with pytest.raises(InputError, match="dots.*all punctuation: no correction to score"):
        correction_log_probs(drawn_model, text, [], [])  # its own check, before any other
