"""The BiLSTM-CRF corrector (torch, an optional extra): the chain CRF against brute force and
finite differences, and training on hand-made pairs (no FCE text)."""
import itertools

import pytest
from learner_pairs import PLAIN, RELATIVE, conll, sentences

from fstpunct.errors import InputError
from fstpunct.ud.slots import to_slots

torch = pytest.importorskip("torch")
bilstm = pytest.importorskip("fstpunct.apps.correction.bilstm")


def random_chain(seed: int, length: int = 4, n_labels: int = 3):
    g = torch.Generator().manual_seed(seed)
    return [torch.randn(*shape, generator=g, dtype=torch.float64)
            for shape in ((length, n_labels), (n_labels, n_labels), (n_labels,), (n_labels,))]


@pytest.mark.parametrize("seed", range(5))
def test_chain_crf_against_brute_force(seed):
    em, tr, st, en = random_chain(seed)
    scores = {y: float(bilstm.crf_score(em, tr, st, en, y))
              for y in itertools.product(range(3), repeat=em.shape[0])}
    every = torch.tensor(list(scores.values()), dtype=torch.float64)
    assert float(bilstm.crf_log_partition(em, tr, st, en)) == pytest.approx(
        float(torch.logsumexp(every, 0)), abs=1e-12)
    assert tuple(bilstm.crf_viterbi(em, tr, st, en)) == max(scores, key=scores.get)
    # one slot: the partition is the logsumexp of start + emission + end
    one = [em[:1], tr, st, en]
    assert float(bilstm.crf_log_partition(*one)) == pytest.approx(
        float(torch.logsumexp(st + em[0] + en, 0)), abs=1e-12)


@pytest.mark.parametrize("seed", range(5))
def test_chain_crf_marginals_against_brute_force(seed):
    em, tr, st, en = random_chain(seed)
    z = bilstm.crf_log_partition(em, tr, st, en)
    expected = torch.zeros_like(em)
    for y in itertools.product(range(3), repeat=em.shape[0]):
        p = torch.exp(bilstm.crf_score(em, tr, st, en, y) - z)
        for t, label in enumerate(y):
            expected[t, label] += p
    assert torch.allclose(bilstm.crf_marginals(em, tr, st, en), expected, atol=1e-12)
    assert torch.allclose(bilstm.crf_marginals(em[:1], tr, st, en),
                          torch.softmax(st + em[0] + en, 0)[None], atol=1e-12)


def test_chain_crf_gradient_against_finite_differences():
    chain = [t.requires_grad_() for t in random_chain(7)]
    y = (0, 2, 1, 1)
    assert torch.autograd.gradcheck(
        lambda *c: bilstm.crf_log_partition(*c) - bilstm.crf_score(*c, y), chain)


def pairs(k: int, prefix: str = "r"):
    learner = sentences("".join(conll(RELATIVE, f"{prefix}{j}", drop=(1, 4)) for j in range(k))
                        + "".join(conll(PLAIN, f"p{j}") for j in range(k)))
    gold = sentences("".join(conll(RELATIVE, f"{prefix}{j}") for j in range(k))
                     + "".join(conll(PLAIN, f"p{j}") for j in range(k)))
    return [to_slots(s) for s in learner], [to_slots(s) for s in gold]


def test_bilstm_corrector_learns_the_missing_commas(tmp_path):
    source, gold = pairs(6)
    model = bilstm.train(source, gold, tmp_path / "m", epochs=15, dims={"word": 8, "tag": 4,
                                                                         "hidden": 8})
    fixed = model.correct(source[0])
    assert [[tok for tok, _ in slot] for slot in fixed] == [list(s) for s in gold[0].slots]
    assert [[tok for tok, _ in slot] for slot in model.correct(source[-1])] == [
        list(s) for s in gold[-1].slots]  # a correct sentence is kept
    margs = model.marginals(source[0])  # per slot over strings, the keep label as the own
    assert all(abs(sum(m.values()) - 1) < 1e-5 for m in margs)
    assert [max(m, key=m.get) for m in margs] == list(gold[0].slots)
    # saved and loaded: the same corrections; trained again: the same weights (deterministic)
    again = bilstm.BilstmCorrector.load(tmp_path / "m")
    assert again.correct(source[0]) == fixed
    twice = bilstm.train(source, gold, tmp_path / "m2", epochs=15,
                         dims={"word": 8, "tag": 4, "hidden": 8})
    assert all(torch.equal(a, b) for a, b in zip(model.net.state_dict().values(),
                                                  twice.net.state_dict().values()))
    with pytest.raises(InputError, match="as many"):
        bilstm.train(source, gold[:1], tmp_path / "bad")


def test_numpys_seed_trains_the_bilstm_pythons_does(tmp_path):
    """random.Random refused numpy's seed with a TypeError (its shuffle of the pairs)."""
    import numpy as np

    source, gold = pairs(2)
    models = [bilstm.train(source, gold, tmp_path / name, epochs=2, seed=seed,
                           dims={"word": 8, "tag": 4, "hidden": 8})
              for name, seed in (("np", np.int64(3)), ("py", 3))]
    assert all(torch.equal(a, b) for a, b in zip(models[0].net.state_dict().values(),
                                                  models[1].net.state_dict().values()))
    assert (tmp_path / "np" / "meta.json").read_bytes() == \
        (tmp_path / "py" / "meta.json").read_bytes()
