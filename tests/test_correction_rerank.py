"""Re-ranking a CRF corrector's n-best by a generative model: the exact k-best of a linear
chain against enumeration, the chain read from python-crfsuite against crfsuite itself, and
the generative scores of the corrections."""
import itertools
import json
import sys
from dataclasses import replace

import numpy as np
import pytest
from interleaved import on_two_threads
from learner_pairs import PLAIN, RELATIVE, conll, sentences
from script_module import load_script
from test_correction_cv import cv_then, learner_folder

from fstpunct.apps.correction.crf import features
from fstpunct.apps.correction.crf import train as crf_train
from fstpunct.apps.correction.model import with_learner
from fstpunct.apps.correction.rerank import (
    Chain,
    Nbest,
    correction_log_probs,
    english_log_probs,
    kbest,
    log_partition,
    nbest,
)
from fstpunct.apps.decode import scored
from fstpunct.apps.restoration.strip import insert, strip
from fstpunct.model.punct import Inference
from fstpunct.model.store import load_model
from fstpunct.ud.slots import to_slots


def enumerated(state, trans):
    """Every label sequence with its score, best first (ties: lexicographic order)."""
    n, labels = state.shape
    out = [(sum(state[i, y] for i, y in enumerate(p))
            + sum(trans[a, b] for a, b in zip(p, p[1:])), p)
           for p in itertools.product(range(labels), repeat=n)]
    return sorted(out, key=lambda x: -x[0])


@pytest.mark.parametrize("seed", range(40))
def test_kbest_is_the_k_best_of_every_label_sequence(seed):
    rng = np.random.default_rng(seed)
    n, labels, k = int(rng.integers(1, 6)), int(rng.integers(1, 5)), int(rng.integers(1, 12))
    state, trans = rng.normal(size=(n, labels)), rng.normal(size=(labels, labels))
    if seed % 4 == 0:  # ties: scores on a coarse grid
        state, trans = np.round(state), np.round(trans)
    every = enumerated(state, trans)
    got = kbest(state, trans, k)
    assert len(got) == min(k, labels ** n)
    assert len({p for _, p in got}) == len(got)  # distinct sequences
    scores = dict((p, s) for s, p in every)
    assert all(abs(scores[p] - s) < 1e-9 for s, p in got)  # each scored right
    assert np.allclose([s for s, _ in got], [s for s, _ in every[:len(got)]])  # the best ones
    z = np.log(sum(np.exp(s) for s, _ in every))
    assert log_partition(state, trans) == pytest.approx(z, abs=1e-9)


def test_kbest_of_nothing():
    assert kbest(np.zeros((3, 2)), np.zeros((2, 2)), 0) == []


@pytest.fixture(scope="module")
def crf(tmp_path_factory):
    """A CRF corrector trained on learners who leave out a relative clause's commas (and
    sometimes a final period)."""
    learner = [to_slots(s) for s in sentences(
        "".join(conll(RELATIVE, f"r{k}", drop=(1, 4)) for k in range(6))
        + "".join(conll(RELATIVE, f"s{k}", drop=(4,)) for k in range(2))
        + "".join(conll(PLAIN, f"p{k}", drop=(3,) if k < 2 else ()) for k in range(6)))]
    gold = [to_slots(s) for s in sentences(
        "".join(conll(RELATIVE, f"r{k}") for k in range(8))
        + "".join(conll(PLAIN, f"p{k}") for k in range(6)))]
    return crf_train(learner, gold, tmp_path_factory.mktemp("crf") / "crf", c2=0.5), learner


@pytest.mark.parametrize("method", ["correct", "marginals"])
def test_one_corrector_serves_several_threads(crf, method):
    """crfsuite keeps the sentence ``set`` last: two threads' calls used to read each other's
    sentence; now the corrector reads one sentence at a time."""
    corrector, learner = crf
    sents = next(ss for ss in learner if ss.n != learner[0].n), learner[0]
    call = getattr(corrector, method)
    want = [call(ss) for ss in sents]
    assert on_two_threads(corrector, call, sents) == want


def test_chain_scores_as_crfsuite_does(crf):
    corrector, learner = crf
    chain = Chain(corrector)
    assert sorted(chain.labels) == sorted(corrector.tagger.labels())
    for ss in learner:
        items = features(ss, corrector.tree)
        state = chain.state(items)
        corrector.tagger.crfsuite.set(items)
        best = kbest(state, chain.trans, 50)
        # the best sequence is crfsuite's Viterbi; each sequence's probability crfsuite's (to
        # the 6 decimals of the weights' dump)
        assert [chain.labels[y] for y in best[0][1]] == corrector.tagger.tag(items)
        log_z = log_partition(state, chain.trans)
        for s, path in best[:10]:
            p = corrector.tagger.crfsuite.probability([chain.labels[y] for y in path])
            assert s - log_z == pytest.approx(np.log(p), abs=1e-4)


def test_nbest_corrections_and_their_probabilities(crf):
    corrector, learner = crf
    chain = Chain(corrector)
    ss = learner[0]  # Peter who runs is here .
    every = nbest(chain, ss, len(chain.labels) ** (ss.n + 1))
    assert np.exp(every.log_probs).sum() == pytest.approx(1.0, abs=1e-6)
    assert len(every.corrections) == len(every.which) == len(chain.labels) ** (ss.n + 1)
    top = nbest(chain, ss, 3)
    assert top.log_probs.tolist() == pytest.approx(every.log_probs[:3].tolist())
    assert [tuple(t for t, _ in slot) for slot in top.corrections[0]] == [
        tuple(t for t, _ in slot) for slot in corrector.correct(ss)]
    # merged: every sequence writes a distinct correction here (no keep tag)
    ids, logs = top.merged(3)
    assert ids == [0, 1, 2] and np.allclose(logs, top.log_probs)


def test_choose_merges_sequences_and_weighs_the_generative_model():
    a, b = [((",", 2),), ()], [(), ()]
    # two sequences write a (p 0.3 + 0.2), one writes b (p 0.4)
    nb = Nbest(np.log([0.4, 0.3, 0.2]), [0, 1, 1], [b, a])
    ids, logs = nb.merged(3)
    assert ids == [0, 1] and np.allclose(np.exp(logs), [0.4, 0.5])
    assert nb.choose([0.0, 0.0], 0.0, 3) == a  # merged: a (0.5) beats b (0.4)
    assert nb.choose([0.0, 0.0], 0.0, 2) == b  # the first two only: b (0.4) beats a (0.3)
    # log p_crf + w log p_gen: the generative model prefers b by 1 nat; a wins below w = 0.22
    gen = [np.log(0.5), np.log(0.5) - 1.0]
    assert nb.choose(gen, 0.1, 3) == a and nb.choose(gen, 1.0, 3) == b
    # a correction the generative model cannot produce (log 0) loses to any it can
    assert nb.choose([-np.inf, -50.0], 0.01, 3) == a
    assert nb.choose([-50.0, -np.inf], 0.01, 3) == b
    assert nb.choose([-np.inf, -np.inf], 1.0, 3) == a  # none can: the CRF decides


def test_generative_scores_of_the_corrections(hand_corrector, crf):
    corrector, learner = crf
    source = sentences(conll(RELATIVE, "r0", drop=(1, 4)) + conll(PLAIN, "p0", drop=(3,)))
    stripped = [strip(s) for s in source]
    chain = Chain(corrector)
    lists = [nbest(chain, to_slots(s), 4) for s in source]
    english = load_model("en")
    got = english_log_probs(english, stripped, lists)
    assert [len(g) for g in got] == [len(nb.corrections) for nb in lists]
    for t, nb, g in zip(stripped, lists, got):  # p(y | T) of each corrected sentence
        expected = [lp for lp, _ in scored(english, [insert(t, c) for c in nb.corrections])]
        assert g == pytest.approx(expected)
    # the correction model: the corrector's p(y | T, T_e') of the corrected sentence with the
    # learner's contexts; it prefers both of the relative clause's commas
    corr = correction_log_probs(hand_corrector, source, stripped, lists)
    ctx = with_learner(hand_corrector.learner, [to_slots(source[0])])[0].contexts
    for c, lp in zip(lists[0].corrections, corr[0]):
        ss = replace(to_slots(insert(stripped[0], c)), contexts=ctx)
        assert lp == pytest.approx(Inference(hand_corrector.corrector,
                                             hand_corrector.corrector.prepare([ss])).log_prob(0))
    strings = [[tuple(t for t, _ in slot) for slot in c] for c in lists[0].corrections]
    commas = [(), (",",), (), (",",), (), (".",)]
    assert strings[0] == commas  # the CRF's best; then one comma left out, or a final comma
    assert corr[0][0] == max(corr[0]) and corr[0][0] > corr[0][1] + 1.0


def test_rerank_chooses_on_a_cv_runs_held_out_pairs(tmp_path, monkeypatch):
    script = load_script("correction")
    result, rows = cv_then(script, monkeypatch, tmp_path, "rerank")
    for crf in (script.CRF, script.KEEP):
        grid = result["grid"][crf]
        assert len(grid) == len(script.GENERATORS) * len(script.RERANK_K) * len(
            script.RERANK_WEIGHTS)
        won = result["chosen"][crf]
        best = max(g["f0.5"] for g in grid)
        mine = next(g for g in grid if all(g[x] == won[x] for x in ("generator", "k", "weight")))
        assert mine["f0.5"] == best == rows[script.reranked_name(crf)]["f0.5"]
        # k = 1 is the CRF corrector itself, whatever the weight
        for g in grid:
            if g["k"] == 1:
                assert g["edit_counts"] == [sum(c) for c in rows[crf]["edit_counts"]]


def test_table_adds_the_reranked_correctors_scoring_the_chosen_generator_only(
        hand_corrector, tmp_path, monkeypatch):
    script = load_script("correction")
    data = tmp_path / "learner"
    data.mkdir()
    learner_folder(data)
    hand_corrector.save(tmp_path / "model")
    chosen = {script.CRF: {"generator": "english", "k": 5, "weight": 1.0},
              script.KEEP: {"generator": "correction", "k": 3, "weight": 0.5}}
    (tmp_path / "rerank.json").write_text(json.dumps({"chosen": chosen}), encoding="utf-8")
    calls = []

    def counted(name: str):
        real = getattr(script, name)
        return lambda *a: (calls.append(name.split("_")[0]), real(*a))[1]

    for name in ("correction_log_probs", "english_log_probs"):
        monkeypatch.setattr(script, name, counted(name))
    monkeypatch.setattr(sys, "argv", [
        "correction.py", "table", "--model", str(tmp_path / "model"), "--data", str(data),
        "--split", "dev", "--split", "test", "--work", str(tmp_path / "crfs"),
        "--rerank", str(tmp_path / "rerank.json"), "-o", str(tmp_path / "table.json")])
    script.main()
    assert calls == ["english", "correction"] * 2  # one generator per CRF corrector and split
    result = json.loads((tmp_path / "table.json").read_text(encoding="utf-8"))
    assert result["rerank"] == chosen
    # each re-ranked row: the table's CRF corrector's 5-best (the largest k chosen), scored by
    # both generators, the chosen one weighed in as the rerank run chose
    english = load_model("en")
    for split in ("dev", "test"):
        source, gold = script.split_pairs(data, split)
        stripped = [strip(s) for s in source]
        rows = {r["system"]: r for r in result[split]}
        for crf, folder in ((script.CRF, "crf-correct"), (script.KEEP, "crf-keep-c2-0.1")):
            chain = Chain(script.CrfCorrector.load(tmp_path / "crfs" / folder))
            lists = [nbest(chain, to_slots(s), 5) for s in source]
            gen = {"english": english_log_probs(english, stripped, lists),
                   "correction": correction_log_probs(hand_corrector, source, stripped, lists)}
            r = chosen[crf]
            pred = [insert(t, nb.choose(g, r["weight"], r["k"]))
                    for t, nb, g in zip(stripped, lists, gen[r["generator"]])]
            name = script.reranked_name(crf)
            expected = script.evaluate(name, source, gold, pred)
            assert {key: rows[name][key] for key in expected} == expected
        assert sum(rows[script.CRF]["edit_counts"][2]) == 4  # dev and test: 2 commas x 2 pairs
