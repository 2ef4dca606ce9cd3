"""Restoration under a mixture of the model's slot distributions and a CRF's slot marginals:
the CRF's marginals against enumeration of its tag sequences, the decoder's choice against the
least risk under the brute-force mixture, the CLI against the API."""
import itertools
from collections import Counter

import numpy as np
import pytest
from conftest import treebank
from interleaved import on_two_threads
from test_model import make_model
from test_restore_cli import SAMPLE
from test_restore_exact import TREES, brute_force
from test_restore_sampling import TRAIN

import fstpunct
from fstpunct.apps.restoration.crf import OTHER, features, train
from fstpunct.apps.restoration.exact import ExactRestorer, SlotDistribution
from fstpunct.apps.restoration.metrics import levenshtein
from fstpunct.apps.restoration.mixture import MixedRestorer, crf_distributions, mixture
from fstpunct.cli.main import main
from fstpunct.errors import InputError
from fstpunct.ud.slots import to_slots


@pytest.fixture(scope="module")
def toy_crf(tmp_path_factory):
    """A CRF trained on the toy sentences (every tag seen at least twice)."""
    return train(TRAIN * 3, TRAIN, tmp_path_factory.mktemp("crf") / "crf", "xx",
                 c2_grid=(0.1,), max_iterations=50, log=lambda m: None)


def enumerated_marginals(crf, ss) -> list[Counter]:
    """Per slot, p(tag) summed over every tag sequence of the sentence."""
    labels = crf.tagger.labels()
    crf.tagger.crfsuite.set(features(ss, crf.tree))
    out = [Counter() for _ in range(ss.n + 1)]
    for tags in itertools.product(labels, repeat=ss.n + 1):
        p = crf.tagger.crfsuite.probability(list(tags))
        for i, t in enumerate(tags):
            out[i][t] += p
    return out


@pytest.mark.parametrize("tree", TREES)
def test_crf_marginals_equal_enumeration(toy_crf, tree):
    want = enumerated_marginals(toy_crf, tree)
    got = toy_crf.marginals(tree)
    for slot, expected in zip(got, want):
        assert sum(expected.values()) == pytest.approx(1.0)
        assert sum(slot.values()) == pytest.approx(1.0 - expected[OTHER])
        for y, p in slot.items():
            assert p == pytest.approx(expected[" ".join(y) or "O"], abs=1e-9)
    dists = crf_distributions(toy_crf, tree)
    assert [d.heads[0] for d in dists][:2] == [(1,) * len(dists[0].strings[0]),
                                               (1,) * len(dists[1].strings[0])]
    assert all(np.all(np.diff(d.probs) <= 0) for d in dists)


@pytest.mark.parametrize("method", ["marginals", "tag", "log_prob"])
def test_one_crf_serves_several_threads(toy_crf, method):
    """The crfsuite tagger keeps the sentence ``set`` last: two threads' ``marginals`` (text
    restored on threads through the bundled mixture) used to read each other's sentence,
    giving wrong marginals or a ValueError ('The position, 15is out of range of 15'); now a CRF
    reads one sentence at a time, in each of its calls that set a sentence."""
    sents = TREES[1], next(t for t in TRAIN if t.n != TREES[1].n)
    call = getattr(toy_crf, method)
    want = [call(s) for s in sents]
    assert on_two_threads(toy_crf, call, sents) == want


def test_mixture_adds_the_weighted_parts():
    a = SlotDistribution(((), (",",)), ((), (2,)), np.array([0.7, 0.3]))
    b = SlotDistribution(((",",), (".",)), ((1,), (1,)), np.array([0.6, 0.2]))
    m = mixture(a, b, 0.25)
    assert dict(zip(m.strings, m.probs)) == pytest.approx(
        {(",",): 0.25 * 0.3 + 0.75 * 0.6, (".",): 0.15, (): 0.175})
    assert m.strings[0] == (",",) and m.heads[0] == (2,)  # a's heads
    assert m.rest == pytest.approx(0.75 * 0.2)
    assert mixture(a, b, 1.0).strings == a.strings  # a part of weight 0 adds no candidates


@pytest.mark.parametrize("direction", ["ltr", "rtl"])
@pytest.mark.parametrize("weight", [0.0, 0.3, 0.6, 1.0])
@pytest.mark.parametrize("tree", TREES)
def test_mixed_choice_has_the_least_risk_under_the_brute_force_mixture(toy_crf, direction,
                                                                       weight, tree):
    model = make_model(TRAIN, direction, seed=8)
    restorer = MixedRestorer(model, toy_crf, weight, floor=1e-12, prune=1e-15)
    own = brute_force(model, tree)
    crf = toy_crf.marginals(tree)
    slots, choice = restorer.decode([(tree, restorer.prior.marginals([tree])[0])])
    for slot, j, p_own, p_crf in zip(slots, choice, own, crf):
        mixed = Counter({y: weight * p for y, p in p_own.items()})
        for y, p in p_crf.items():
            mixed[y] += (1 - weight) * p

        def risk(y, mixed=mixed):
            return sum(p * levenshtein(y, z) for z, p in mixed.items())

        assert risk(slot.strings[j]) == pytest.approx(min(map(risk, mixed)), abs=1e-9)
    if weight == 1.0:
        alone = ExactRestorer(model, floor=1e-12, prune=1e-15)
        assert alone.decode([(tree, alone.prior.marginals([tree])[0])])[1] == choice


def test_restore_mixes_with_a_crf_on_the_command_line(tmp_path, capsys):
    sents = itertools.islice(treebank("en", "train").sentences(), 200)
    dev = itertools.islice(treebank("en", "dev").sentences(), 40)
    train([to_slots(s) for s in sents], [to_slots(s) for s in dev], tmp_path / "crf", "en",
          c2_grid=(1.0,), max_iterations=50, log=lambda m: None)
    runs = {}
    for w in ("0", "0.5", "1"):
        assert main(["restore", str(SAMPLE), "--quiet", "--mix-crf", str(tmp_path / "crf"),
                     "--mix-weight", w]) == 0
        runs[w] = capsys.readouterr().out
    model = fstpunct.load("en")
    assert runs["0.5"] == model.restore(SAMPLE.read_text(encoding="utf-8"),
                                        mix_crf=tmp_path / "crf", mix_weight=0.5)
    assert runs["1"] == model.restore(SAMPLE.read_text(encoding="utf-8"))
    assert runs["0"] != runs["1"]
    with pytest.raises(InputError, match="between 0 and 1"):
        model.restore(SAMPLE.read_text(encoding="utf-8"), mix_crf=tmp_path / "crf",
                      mix_weight=1.5)
    assert main(["restore", str(SAMPLE), "--quiet", "--trivial", "en", "--mix-crf",
                 str(tmp_path / "crf")]) == 2
    assert "--mix-crf: only with --model, not with --crf or --trivial" in capsys.readouterr().err
    assert main(["restore", str(SAMPLE), "--quiet", "--crf", str(tmp_path / "crf"), "--samples",
                 "3", "--mix-weight", "0.5"]) == 2  # options the CRF would ignore in silence
    assert "--samples, --mix-weight: only with --model" in capsys.readouterr().err
    assert main(["restore", str(SAMPLE), "--quiet", "--trivial", "en", "--decoder", "balanced",
                 "--seed", "1", "--mbr", "slot"]) == 2  # these had defaults: ignored in silence
    assert "--decoder, --mbr, --seed: only with --model" in capsys.readouterr().err
