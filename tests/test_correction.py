"""The correction model (paper §6.2) on hand-made learner/corrected pairs (their corrector:
conftest.py's ``hand_corrector``)."""
import json
from dataclasses import replace

import numpy as np
import pytest
from learner_pairs import GRAMMAR, PLAIN, RELATIVE, conll, sentences
from pulled import Pulled

from fstpunct.api import load
from fstpunct.apps.correction import correct as correct_module
from fstpunct.apps.correction.calibrate import Trial, best, calibrated
from fstpunct.apps.correction.combine import combined
from fstpunct.apps.correction.correct import corrected, decided, slot_distributions
from fstpunct.apps.correction.crf import CrfCorrector, features, generative_features, labels
from fstpunct.apps.correction.crf import train as crf_train
from fstpunct.apps.correction.model import (
    SUPPORT,
    CorrectionModel,
    Decoding,
    copy_center,
    learner_contexts,
    sharpened,
    train,
    with_learner,
)
from fstpunct.apps.restoration import exact
from fstpunct.apps.restoration.crf import OTHER
from fstpunct.apps.restoration.exact import ExactPrior, SlotDistribution
from fstpunct.apps.restoration.metrics import levenshtein as distance
from fstpunct.apps.restoration.strip import insertions_of, strip
from fstpunct.cli.main import main
from fstpunct.errors import InputError
from fstpunct.fst.grammar import load_grammar
from fstpunct.model.features import node_contexts
from fstpunct.model.punct import Settings
from fstpunct.model.store import load_model, read_record
from fstpunct.model.train import em, initial_model
from fstpunct.parser import Model as ParserModel
from fstpunct.parser import parse
from fstpunct.parser import train as train_parser
from fstpunct.ud.slots import raw_slots, to_slots


def test_learner_contexts():
    ss = to_slots(sentences(conll(PLAIN, "p"))[0])  # We left early . : spans (0,1) (0,3) (2,3)
    assert learner_contexts(ss, [((",",), ()), None, ((), ())]) == (
        ("xl=,", "xr=ε", "xp=,|ε", "sl=ε", "sr=ε"),
        ("xl=<backoff>", "xr=<backoff>", "xp=<backoff>|<backoff>", "sl=ε", "sr=."),
        ("xl=ε", "xr=ε", "xp=ε|ε", "sl=ε", "sr=."))


def test_contexts_reach_the_attach_features(hand_corrector):
    ss = to_slots(sentences(conll(PLAIN, "p"))[0])
    marked = with_learner(hand_corrector.learner, [ss])[0]
    assert len(marked.contexts) == ss.n
    assert all(any(c.startswith("xp=") for c in node) for node in node_contexts(marked))
    assert node_contexts(replace(marked, contexts=())) == node_contexts(ss)
    assert any(c.startswith("xl=") for c in hand_corrector.corrector.attach.contexts)


def test_corrects_what_it_was_trained_on_and_keeps_words_and_tree(hand_corrector):
    learner = sentences(conll(RELATIVE, "r", drop=(1, 4)) + conll(PLAIN, "p"))
    out = list(corrected(learner, hand_corrector))
    assert [w.form for w in out[0].words] == [r[0] for r in RELATIVE]
    assert raw_slots(out[0]) == [(), (",",), (), (",",), (), (".",)]
    assert out[0].comments[1] == "# text = Peter, who runs, is here."
    assert [w.head for w in out[0].words if not w.is_punct] == [6, 4, 1, 0, 6]
    assert raw_slots(out[1]) == raw_slots(learner[1])  # nothing to correct
    sampled = list(corrected(learner, hand_corrector, samples=200, seed=3))
    assert [s.text() for s in sampled] == [s.text() for s in corrected(learner, hand_corrector,
                                                                       samples=200, seed=3)]


def test_save_load_api_and_cli(hand_corrector, tmp_path, capsys):
    folder = hand_corrector.save(tmp_path / "esl-correct")
    again = CorrectionModel.load(folder)
    # each part's model.json records an object (train's record names the learner's folder:
    # it was written as the learner's whole record, a string, which show could not read)
    named = replace(hand_corrector,
                    record={**hand_corrector.record, "learner": "models/esl-learner"})
    parts = named.save(tmp_path / "named")
    assert read_record(parts / "learner")["record"] == {"part": "learner",
                                                        "from": "models/esl-learner"}
    assert read_record(parts / "corrector")["record"] == {"part": "corrector"}
    learner = conll(RELATIVE, "r", drop=(1, 4))
    api = load(folder)
    assert api.correct(learner) == "".join(s.text() for s in corrected(sentences(learner),
                                                                       again))
    path = tmp_path / "in.conllu"
    path.write_text(learner, encoding="utf-8")
    assert main(["correct", str(path), "--model", str(folder)]) == 0
    assert capsys.readouterr().out == api.correct(learner)
    with pytest.raises(InputError, match="not a correction model"):
        load("en").correct(learner)


def test_correct_writes_one_point_after_an_abbreviation(hand_corrector, tmp_path, capsys):
    """A full stop the corrector adds, or keeps, after ``p.m.`` is absorbed by its dot
    (``9 p.m.``, not ``9 p.m..``), the words as given: ``fstpunct correct`` and the library
    write through the one insert that absorbs (both wrote ``p.m..`` before)."""
    rows = [("We", 2, "nsubj"), ("left", 0, "root"), ("at", 4, "case"), ("9", 2, "obl"),
            ("p.m.", 4, "advmod")]
    folder = hand_corrector.save(tmp_path / "esl-correct")
    for learner in (conll(rows, "bare"), conll([*rows, (".", 2, "punct")], "doubled")):
        [out] = corrected(sentences(learner), hand_corrector)
        assert out.comments[-1] == "# text = We left at 9 p.m.", learner
        assert [w.form for w in out.words] == [r[0] for r in rows]
        path = tmp_path / "in.conllu"
        path.write_text(learner, encoding="utf-8")
        assert main(["correct", str(path), "--model", str(folder)]) == 0
        assert capsys.readouterr().out == out.text()


def test_a_parser_that_is_no_folder_is_refused_before_reading(hand_corrector, tmp_path,
                                                              capsys):
    """``correct(parser=)`` and ``--parser`` refuse a path to no folder as decode does, before
    any sentence is read (a ModelError 'not a parser model (no such folder)' before)."""
    folder = hand_corrector.save(tmp_path / "esl-correct")
    missing = tmp_path / "missing"
    given = Pulled(sentences(conll(PLAIN, "p")))
    with pytest.raises(InputError, match=f"^parser \\(--parser\\): {missing}: no such folder$"):
        load(folder).correct(iter(given), parser=missing)
    assert given.count == 0
    path = tmp_path / "in.conllu"
    path.write_text(conll(PLAIN, "p"), encoding="utf-8")
    assert main(["correct", str(path), "--model", str(folder), "--parser", str(missing)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and f"--parser: {missing}: no such folder" in err, err


def test_full_width_input_is_corrected_in_its_width(hand_corrector, tmp_path):
    """fstpunct.ud.width: ``，`` and ``。``, unknown to the model, are read as ``,`` and ``.``,
    and the corrected sentence is written full-width, ``# text`` too."""
    api = load(hand_corrector.save(tmp_path / "m"))
    learner = conll(RELATIVE, "r", drop=(1, 4))
    wide = str.maketrans(",.", "，。")
    fixed = api.correct(learner)
    assert "# text = Peter, who runs, is here." in fixed
    assert api.correct(learner.translate(wide)) == fixed.translate(wide)
    assert api.correct(learner, width="full") == fixed.translate(wide)


def test_copy_center_weights_the_learners_own_punctemes(hand_corrector):
    attach = hand_corrector.corrector.attach
    base = attach.blocks(copy_center(attach, 4.0, 3.0) - attach.init_theta(4.0))[0]
    rows, cols = base.nonzero()
    marked = {(attach.contexts[r], attach.pair_feature_names[c]) for r, c in zip(rows, cols)}
    assert marked and set(base[rows, cols]) == {3.0}
    assert all(c[3:] == f[2:] and (c[:3], f[:2]) in (("xl=", "L="), ("xr=", "R="))
               for c, f in marked)
    assert ("xr=.", "R=.") in marked and ("xl=ε", "L=ε") in marked
    assert not attach.blocks(copy_center(attach, 4.0, 0.0) - attach.init_theta(4.0))[0].any()


def test_em_keeps_theta_at_the_given_prior_centre():
    originals = [to_slots(s) for s in sentences("".join(conll(PLAIN, f"p{k}")
                                                        for k in range(3)))]
    start = initial_model(originals, load_grammar(GRAMMAR), settings=Settings(lexical=0,
                                                                             l2=1e9))
    center = start.theta + 0.5
    trained, _ = em(start, start.prepare(originals), 1, center=center)
    assert abs(trained.theta - center).max() < 1e-3
    moved, _ = em(start, start.prepare(originals), 1)
    assert abs(moved.theta - start.theta).max() < 1e-3


def test_copy_prior_makes_keeping_the_default(hand_corrector):
    """An untrained corrector (no EM iteration) is its prior: with a copy weight it keeps the
    learner's punctuation, without one it writes none (the token cost)."""
    learner = sentences("".join(conll(RELATIVE, f"r{k}", drop=(1, 4)) + conll(PLAIN, f"p{k}")
                                for k in range(3)))  # '.' 6 times: not UNK to the corrector
    originals = [to_slots(s) for s in learner]
    grammar, english = load_grammar(GRAMMAR), load_model("en")
    kept = train(hand_corrector.learner, originals, originals, english, grammar, iterations=0,
                 copy=12.0)
    assert [raw_slots(s) for s in corrected(learner, kept)] == [raw_slots(s) for s in learner]
    bare = train(hand_corrector.learner, originals, originals, english, grammar, iterations=0)
    assert [raw_slots(s)[-1] for s in corrected(learner, bare)] == [()] * 6


def test_lexical_contexts_let_the_corrector_tell_words_apart(hand_corrector):
    """Two sentences of the same tree that differ in one word: the annotators put a comma
    before *however* and none before *early*. Unlexicalised, the corrector cannot tell the two
    slots apart; with lexical contexts (``Settings.lexical``) it corrects the first only."""
    def variant(word, comma):
        rows = [("We", 2, "nsubj"), ("left", 0, "root")] + ([(",", 4, "punct")] if comma
                                                            else [])
        return rows + [(word, 2, "advmod"), (".", 2, "punct")]
    learner_text = "".join(conll(variant(w, False), f"{w}{k}") for w in ("however", "early")
                           for k in range(8))
    gold_text = "".join(conll(variant(w, w == "however"), f"{w}{k}")
                        for w in ("however", "early") for k in range(8))
    originals = [to_slots(s) for s in sentences(learner_text)]
    fixed = [to_slots(s) for s in sentences(gold_text)]
    grammar, english = load_grammar(GRAMMAR), load_model("en")
    test = sentences(conll(variant("however", False), "h") + conll(variant("early", False), "e"))
    comma = []
    for lexical in (0, 10):
        corrector = train(hand_corrector.learner, originals, fixed, english, grammar, iterations=3,
                          settings=Settings(lexical=lexical))
        assert corrector.corrector.attach.lexical == bool(lexical)
        comma.append([d[2].prob((",",)) for d in slot_distributions(corrector, test)])
    assert comma[0][0] == pytest.approx(comma[0][1], abs=1e-12)  # the same contexts
    assert comma[1][0] > 0.5 > comma[1][1]


def test_sharpened_channel_by_hand():
    """Each window's edit probabilities to the power β, renormalised: worked out by hand for
    one window; β = 1 changes nothing; structural zeros stay zero."""
    channel = load_model("en").channel
    phi = channel.phi
    a, b = channel.index("”"), channel.index(".")
    assert 0.0 < phi[a, b].max() < 1.0  # a window with a choice of edits
    sharp = sharpened(channel, 2.0).phi
    assert sharp[a, b] == pytest.approx(phi[a, b] ** 2 / (phi[a, b] ** 2).sum())
    assert np.allclose(sharp.sum(axis=2), 1.0) and not sharp[~channel.mask].any()
    assert np.allclose(sharpened(channel, 1.0).phi, phi, rtol=0.0, atol=1e-12)
    likeliest = phi[a, b].argmax()
    assert sharpened(channel, 8.0).phi[a, b, likeliest] > sharp[a, b, likeliest] > phi[a, b,
                                                                                      likeliest]
    for beta in (1e4, np.inf):  # every window's likeliest edits alone, no window lost
        alone = sharpened(channel, beta).phi
        assert np.allclose(alone.sum(axis=2), 1.0)
        assert alone[a, b, likeliest] == 1.0
    with pytest.raises(InputError, match="^the channel's sharpening must be above 0, not 0.0$"):
        sharpened(channel, 0.0)


def test_the_corrector_reads_t_e_under_the_sharpened_learner_channel(hand_corrector, tmp_path):
    """``train(sharpen=β)`` reads T_e′ of its pairs under the learner model with the sharpened
    channel and stores that learner model (so decoding reads T_e′ alike); β = 1 is the learner
    model as it is."""
    learner_text = "".join(conll(RELATIVE, f"r{k}", drop=(1, 4)) for k in range(4))
    gold_text = "".join(conll(RELATIVE, f"r{k}") for k in range(4))
    originals = [to_slots(s) for s in sentences(learner_text)]
    fixed = [to_slots(s) for s in sentences(gold_text)]
    grammar, english = load_grammar(GRAMMAR), load_model("en")
    sharp = train(hand_corrector.learner, originals, fixed, english, grammar, iterations=1,
                  sharpen=3.0)
    assert sharp.record["sharpen"] == 3.0
    assert np.allclose(sharp.learner.channel.phi,
                       sharpened(hand_corrector.learner.channel, 3.0).phi)
    assert sharp.learner.attach is hand_corrector.learner.attach
    again = CorrectionModel.load(sharp.save(tmp_path / "sharp"))
    assert np.allclose(again.learner.channel.phi, sharp.learner.channel.phi, atol=1e-6)
    plain = train(hand_corrector.learner, originals, fixed, english, grammar, iterations=1)
    assert plain.learner is hand_corrector.learner and plain.record["sharpen"] == 1.0


def test_crf_corrector_reads_the_learners_punctuation(tmp_path):
    learner = [to_slots(s) for s in sentences(
        "".join(conll(RELATIVE, f"r{k}", drop=(1, 4)) for k in range(6))
        + "".join(conll(PLAIN, f"p{k}") for k in range(6)))]
    gold = [to_slots(s) for s in sentences(
        "".join(conll(RELATIVE, f"r{k}") for k in range(6))
        + "".join(conll(PLAIN, f"p{k}") for k in range(6)))]
    f = features(learner[0])
    assert "x=O" in f[1] and "x=." in f[-1] and "xr=." in f[-2]
    gen = generative_features(load_model("en"), learner)
    assert len(gen) == len(learner) and all(len(g) == s.n + 1 for g, s in zip(gen, learner))
    assert all(any(x.startswith("gx=") for x in slot) for slot in gen[0])
    model = crf_train(learner, gold, tmp_path / "crf", gen)
    again = CrfCorrector.load(tmp_path / "crf")
    fixed = again.correct(learner[0], gen[0])
    assert [tuple(t for t, _ in slot) for slot in fixed] == list(gold[0].slots)
    assert model.correct(learner[-1], gen[-1])[-1] == ((".", 3),)
    # the keep tag: slots whose corrected string is the learner's are labelled <other>
    # (Peter _ who runs _ is here . : the two commas inserted, the rest kept)
    assert labels(learner[0], gold[0], {",", ".", "O"}) == ["O", ",", "O", ",", "O", "."]
    assert labels(learner[0], gold[0], {",", ".", "O"}, keep=True) == [
        OTHER, ",", OTHER, ",", OTHER, OTHER]
    assert labels(learner[0], gold[0], {"."}, keep=True) == [OTHER] * 6
    kept = crf_train(learner, gold, tmp_path / "keep", keep=True)
    assert kept.meta["keep_tag"] and not again.meta["keep_tag"]
    assert [tuple(t for t, _ in slot) for slot in kept.correct(learner[0])] == list(
        gold[0].slots)
    assert kept.correct(learner[-1])[-1] == ((".", 3),)


def test_crf_marginals_and_the_product_with_the_generative_model(hand_corrector, tmp_path):
    learner = [to_slots(s) for s in sentences(
        "".join(conll(RELATIVE, f"r{k}", drop=(1, 4)) for k in range(6)))]
    gold = [to_slots(s) for s in sentences("".join(conll(RELATIVE, f"r{k}") for k in range(6)))]
    crf = crf_train(learner, gold, tmp_path / "crf")
    margs = crf.marginals(learner[0])
    assert all(abs(sum(m.values()) - 1) < 1e-6 for m in margs)
    gen = next(ExactPrior(hand_corrector.corrector).distributions(
        [with_learner(hand_corrector.learner, learner[:1])]))
    alone = [max(m, key=m.get) for m in margs]
    assert [tuple(t for t, _ in slot) for slot in combined(margs, gen, 0.0)] == alone
    heavy = combined(margs, gen, 1e6)
    assert [tuple(t for t, _ in slot) for slot in heavy] == [g.strings[0] for g in gen]
    assert [h for slot in heavy for _, h in slot] == [h for g in gen for h in g.heads[0]]


def brute_force(slot, own, cost):
    """argmin over the candidates and the learner's string of R(y) + cost · ed(y, own)."""
    strings = list(slot.strings) + ([own] if own not in slot.strings else [])
    probs = list(slot.probs) + [0.0] * (len(strings) - len(slot.strings))

    def loss(y):
        return sum(p * distance(y, z) for z, p in zip(strings, probs)) + cost * distance(y, own)
    return min(strings, key=lambda y: (loss(y), strings.index(y)))


def test_edit_cost_is_mbr_with_a_cost_per_edited_token(hand_corrector):
    learner = sentences("".join(conll(RELATIVE, f"r{k}", drop=(1, 4)) + conll(PLAIN, f"p{k}")
                                for k in range(2)))
    dists = slot_distributions(hand_corrector, learner)
    seen = set()
    for cost in (0.0, 0.2, 0.45, 0.9, 3.0):
        for sent, slots in zip(learner, dists):
            own = insertions_of(sent)
            got = decided(hand_corrector, slots, own, Decoding(cost, 0.0, decoder="slot"))
            want = [brute_force(slot, tuple(t for t, _ in o), cost)
                    for slot, o in zip(slots, own)]
            assert [tuple(t for t, _ in g) for g in got] == want
            seen.add(tuple(map(tuple, want)))
    assert len(seen) > 2  # the costs change the choice
    assert raw_slots(next(corrected(learner, hand_corrector, edit_cost=3.0))) == \
        raw_slots(learner[0])
    assert raw_slots(next(corrected(learner, hand_corrector, edit_cost=0.0)))[1] == (",",)
    with pytest.raises(InputError, match="exact decoders"):
        next(corrected(learner, hand_corrector, edit_cost=0.5, samples=10))
    with pytest.raises(InputError, match="^edit_cost must be at least 0, not -1.0$"):
        next(corrected(learner, hand_corrector, edit_cost=-1.0))
    with pytest.raises(InputError, match="^edit_cost must be a finite number of at least 0, "
                                         "not inf$"):  # its loss's weight was NaN
        next(corrected(learner, hand_corrector, edit_cost=float("inf")))
    with pytest.raises(InputError, match="^support must be from 0 to 1, not 1.5$"):
        next(corrected(learner, hand_corrector, support=1.5))


def test_support_keeps_a_learner_string_the_model_cannot_explain(hand_corrector):
    """Slot 0: the learner's opening quote is no candidate (kept at support 1e-3, dropped
    without); slot 1 is decoded, the balanced decoder closing the kept quote there."""
    slots = [SlotDistribution(((), (",",)), ((), (1,)), np.array([0.3, 0.7])),
             SlotDistribution(((), ("”",)), ((), (1,)), np.array([0.4, 0.6]))]
    own = [(("“", 1),), ()]
    plain = decided(hand_corrector, slots, own, Decoding(0.0, 0.0, decoder="slot"))
    assert plain == [((",", 1),), (("”", 1),)]
    kept = decided(hand_corrector, slots, own, Decoding(0.0, 1e-3, decoder="balanced"))
    assert kept == [(("“", 1),), (("”", 1),)]
    assert decided(hand_corrector, slots, [(("“", 1),), (("”", 1),)],
                   Decoding(0.0, 1e-3, decoder="balanced")) == kept
    for decoder in ("slot", "balanced"):
        assert decided(hand_corrector, slots, own, Decoding(0.0, 0.8, decoder=decoder)) == [
            (("“", 1),), ()]


def test_the_learner_decoder_balances_only_what_the_learner_balanced(hand_corrector):
    """The learner opened a quote that this sentence does not close (a quotation going on in
    the next one): the balanced decoder drops it (or closes it), the learner decoder keeps the
    slot decoder's choice; where the learner's marks balance, it is the balanced decoder."""
    slots = [SlotDistribution((("“",), ()), ((1,), ()), np.array([0.9, 0.1])),
             SlotDistribution(((), ("”",)), ((), (1,)), np.array([0.8, 0.2]))]
    unbalanced = [(("“", 1),), ()]
    balanced = decided(hand_corrector, slots, unbalanced, Decoding(1.0, 0.0, decoder="balanced"))
    assert balanced != unbalanced  # an edit at edit cost 1, made for the balance alone
    for cost in (0.0, 1.0):
        learner = Decoding(cost, 0.0, decoder="learner")
        assert decided(hand_corrector, slots, unbalanced, learner) == unbalanced
    both = [(("“", 1),), (("”", 1),)]  # balanced by the learner: held to it
    for cost in (0.0, 0.3):
        assert decided(hand_corrector, slots, both, Decoding(cost, 0.0, decoder="learner")) == \
            decided(hand_corrector, slots, both, Decoding(cost, 0.0, decoder="balanced"))
    assert decided(hand_corrector, slots, both, Decoding(0.0, 0.0, decoder="slot")) == unbalanced
    assert decided(hand_corrector, slots, both, Decoding(0.0, 0.0, decoder="learner")) != unbalanced
    symmetric = hand_corrector.corrector.attach.symmetric
    assert exact.balanced_strings([("“",), (), (",", "”")], symmetric)
    assert not exact.balanced_strings([("“",), ()], symmetric)
    with pytest.raises(InputError, match="decoder must be one of balanced, slot, learner"):
        next(corrected([], hand_corrector, decoder="nearest"))
    with pytest.raises(InputError, match="decoder must be one of balanced, slot, learner"):
        Decoding(decoder="nearest")


def test_the_model_stores_its_decoding(hand_corrector, tmp_path, capsys):
    learner = conll(RELATIVE, "r", drop=(1, 4))
    assert hand_corrector.decoding == Decoding()
    folder = hand_corrector.decoded_with(Decoding(3.0, 1e-3), sentences=1).save(tmp_path / "cal")
    again = CorrectionModel.load(folder)
    assert again.decoding == Decoding(3.0, 1e-3) and again.record["decoding"]["sentences"] == 1
    assert raw_slots(next(corrected(sentences(learner), again))) == \
        raw_slots(sentences(learner)[0])
    assert load(folder).correct(learner, edit_cost=0.0, support=0.0) == "".join(
        s.text() for s in corrected(sentences(learner), hand_corrector))
    assert raw_slots(sentences(load(folder).correct(learner, edit_cost=0.0))[0])[1] == (",",)
    path = tmp_path / "in.conllu"
    path.write_text(learner, encoding="utf-8")
    assert main(["correct", str(path), "--model", str(folder)]) == 0
    assert raw_slots(sentences(capsys.readouterr().out)[0]) == raw_slots(sentences(learner)[0])
    assert main(["correct", str(path), "--model", str(folder), "--edit-cost", "0"]) == 0
    assert raw_slots(sentences(capsys.readouterr().out)[0])[1] == (",",)
    assert main(["correct", str(path), "--model", str(folder), "--support", "2"]) == 2
    assert "support" in capsys.readouterr().err


def test_the_stored_decoder_is_the_default(hand_corrector, tmp_path, monkeypatch):
    """calibrate stores the decoder with the decoding; ``correct`` decodes with it unless
    another is named (an older record, without one: balanced)."""
    learner = conll(RELATIVE, "r", drop=(1, 4))
    folder = hand_corrector.decoded_with(Decoding(0.5, 1e-3, decoder="learner")).save(
        tmp_path / "cal")
    assert CorrectionModel.load(folder).decoding == Decoding(0.5, 1e-3, decoder="learner")
    older = hand_corrector.decoded_with(Decoding(0.5, 1e-3)).save(tmp_path / "old")
    record = json.loads((older / "correction.json").read_text(encoding="utf-8"))
    del record["record"]["decoding"]["decoder"]
    (older / "correction.json").write_text(json.dumps(record), encoding="utf-8")
    seen = decoders_seen(monkeypatch)
    path = tmp_path / "in.conllu"
    path.write_text(learner, encoding="utf-8")
    for how, want in ((lambda: load(folder).correct(learner), "learner"),
                      (lambda: load(folder).correct(learner, decoder="slot"), "slot"),
                      (lambda: load(older).correct(learner), "balanced"),
                      (lambda: main(["correct", str(path), "--model", str(folder)]), "learner"),
                      (lambda: main(["correct", str(path), "--model", str(folder),
                                     "--decoder", "balanced"]), "balanced")):
        seen.clear()
        how()
        assert seen == [want]


def test_product_keeps_what_the_generative_model_cannot_explain():
    gen = [SlotDistribution(((), (",",)), ((), (1,)), np.array([0.1, 0.9]))]
    crf = [{(): 0.2, (",",): 0.8}]
    own = [(("“", 1),)]
    assert combined(crf, gen, 1.0) == [((",", 1),)]
    assert combined(crf, gen, 1.0, own=own, support=1e-3) == own
    own_comma = [((",", 1),)]
    assert combined(crf, gen, 1.0, own=own_comma, support=0.95) == own_comma
    assert combined(crf, gen, 1.0, own=[()], support=0.05) == [((",", 1),)]


def test_calibration_chooses_the_cost_of_least_dev_aed(hand_corrector):
    learner = sentences("".join(conll(RELATIVE, f"r{k}", drop=(1, 4)) for k in range(2)))
    fixed = sentences("".join(conll(RELATIVE, f"r{k}") for k in range(2)))
    chosen, trials = calibrated(hand_corrector, learner, fixed, costs=(3.0, 0.0))
    # cost 0 inserts both commas of each sentence (AED 0), cost 3 none (AED 2)
    assert [(t.edit_cost, t.aed, t.correct, t.proposed, t.gold) for t in trials] == [
        (3.0, 2.0, 0, 0, 4), (0.0, 0.0, 4, 4, 4)]
    assert trials[1].f05 == 100.0 and trials[0].f05 == 0.0
    assert chosen.decoding == Decoding(0.0, SUPPORT)
    assert chosen.record["decoding"]["aed"] == 0.0
    # gold keeps the learner's punctuation: no edit is best, and the tie goes to F0.5 then cost
    kept, trials = calibrated(hand_corrector, learner, learner, costs=(3.0, 0.0, 5.0))
    assert kept.decoding.edit_cost == 3.0 and [t.aed for t in trials] == [0.0, 2.0, 0.0]
    with pytest.raises(InputError, match="as many"):
        calibrated(hand_corrector, learner, fixed[:1])
    # chosen on a parser's trees: stored beside the gold trees' decoding, which stays
    both, _ = calibrated(kept, learner, fixed, costs=(3.0, 0.0), parsed=True)
    assert both.decoding == Decoding(3.0, SUPPORT) and both.decoding_for(True) == Decoding(
        0.0, SUPPORT)
    assert both.record["decoding parsed"]["aed"] == 0.0
    assert kept.decoding_for(True) == kept.decoding  # none chosen on parsed trees: gold's
    # parsed ties go to the cost nearest the gold trees' (3.0), not to the lowest
    near, trials = calibrated(kept, learner, learner, costs=(1.5, 2.0, 5.0, 0.0), parsed=True)
    assert [t.aed for t in trials] == [0.0, 0.0, 0.0, 2.0]
    assert near.decoding_for(True).edit_cost == 2.0


def test_best_counts_equal_distances_as_a_tie():
    """0.15 and 0.25 are equally far from 0.2, though floating point says 0.25 is nearer: the
    tie goes to the lower cost, as best's rule says (it took 0.25)."""
    trials = [Trial(cost, 0.1, 1, 2, 3, 40.0) for cost in (0.25, 0.15)]
    assert best(trials, near=0.2).edit_cost == 0.15


def test_correct_with_a_parser_of_punctuated_learner_text(hand_corrector, tmp_path, capsys):
    learner = sentences("".join(conll(RELATIVE, f"r{k}", drop=(1, 4)) for k in range(4))
                        + "".join(conll(PLAIN, f"p{k}") for k in range(4)))
    parser = tmp_path / "parser"
    train_parser(learner, learner, "tokens", 1, parser, epochs=2, progress=False,
                 log=lambda m: None)
    flat = conll(RELATIVE, "r", drop=(1, 4))
    path = tmp_path / "in.conllu"
    path.write_text(flat, encoding="utf-8")
    folder = hand_corrector.save(tmp_path / "esl-correct")
    assert main(["correct", str(path), "--model", str(folder), "--parser", str(parser)]) == 0
    out = sentences(capsys.readouterr().out)[0]
    parsed = load(folder).correct(flat, parser=parser)
    assert out.text() == sentences(parsed)[0].text()
    assert [w.form for w in out.words if not w.is_punct] == ["Peter", "who", "runs", "is", "here"]
    tree = parse(ParserModel.load(parser), sentences(flat)[0], 1)
    assert [w.head for w in strip(out).words] == [w.head for w in strip(tree).words]
    # with --parser the decoding chosen on parsed trees, else the gold trees' one
    gold_only = hand_corrector.decoded_with(Decoding(5.0, SUPPORT)).save(tmp_path / "gold-only")
    both = CorrectionModel.load(gold_only).decoded_with(Decoding(0.0, 0.0), parsed=True).save(
        tmp_path / "both")
    assert load(gold_only).correct(flat, parser=parser) == load(gold_only).correct(
        flat, parser=parser, edit_cost=5.0, support=SUPPORT) != parsed
    assert load(both).correct(flat, parser=parser) == parsed
    assert load(both).correct(flat) == load(gold_only).correct(flat)


def test_a_stored_gate_undoes_the_edits_it_doubts(hand_corrector, tmp_path):
    learner = sentences(conll(RELATIVE, "r", drop=(1, 4)))
    n = len(Decoding(0.0, 0.0, (0.0,) * 6).gate)
    doubt, trust = (-10.0,) + (0.0,) * (n - 1), (10.0,) + (0.0,) * (n - 1)
    folder = hand_corrector.decoded_with(Decoding(0.0, SUPPORT, doubt)).save(tmp_path / "gated")
    again = CorrectionModel.load(folder)
    assert again.decoding == Decoding(0.0, SUPPORT, doubt)
    assert raw_slots(next(corrected(learner, again))) == raw_slots(learner[0])
    trusted = next(corrected(learner, hand_corrector.decoded_with(Decoding(0.0, SUPPORT, trust))))
    assert raw_slots(trusted) == raw_slots(next(corrected(learner, hand_corrector, edit_cost=0.0,
                                                          support=SUPPORT)))
    assert raw_slots(trusted)[1] == (",",)


def decoders_seen(monkeypatch, *modules) -> list[str]:
    """The decoder of every sentence the correction model decodes from now on (``decided`` of
    the correction module and of ``modules``, spied)."""
    seen: list[str] = []

    def spy(corrector, slots, own, decoding):
        seen.append(decoding.decoder)
        return decided(corrector, slots, own, decoding)
    for module in (correct_module, *modules):
        monkeypatch.setattr(module, "decided", spy)
    return seen
