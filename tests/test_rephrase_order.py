"""The dependent-ordering model: exact against brute force, gradient, training, permutations."""
from __future__ import annotations

import itertools
import math
from collections import Counter
from pathlib import Path

import numpy as np
import pytest
from conftest import treebank

from fstpunct.apps.rephrase import order as order_mod
from fstpunct.apps.rephrase.order import HEAD, Family, Item, OrderModel, order_path, train_order
from fstpunct.apps.rephrase.permute import families, permuted_order, surface_tree
from fstpunct.errors import ModelError
from fstpunct.ud.tree import children

FAMILIES = [
    Family("VERB", (Item("nsubj", "NOUN"), Item(HEAD, "VERB"), Item("obj", "NOUN"),
                    Item("punct", "PUNCT"))),
    Family("NOUN", (Item("det", "DET"), Item("amod", "ADJ"), Item(HEAD, "NOUN"))),
    Family("VERB", (Item("advmod", "ADV"), Item("nsubj", "PRON"), Item(HEAD, "VERB"),
                    Item("obl", "NOUN"), Item("punct", "PUNCT"))),
    Family("NOUN", (Item(HEAD, "NOUN"), Item("nmod", "NOUN"))),
]


def random_model(seed: int = 0) -> OrderModel:
    design = order_mod._design(FAMILIES, min_count=1)
    rng = np.random.default_rng(seed)
    return OrderModel(design.features, rng.normal(scale=1.5, size=len(design.features)))


@pytest.mark.parametrize("family", FAMILIES)
def test_probabilities_sum_to_one_and_match_brute_force_marginals(family):
    model = random_model()
    perms = list(itertools.permutations(range(len(family))))
    probs = {p: math.exp(model.log_prob(family, p)) for p in perms}
    assert sum(probs.values()) == pytest.approx(1.0, abs=1e-12)
    # the first step's distribution is the marginal of the first item over all orders
    first = model.step_log_probs(family, [])
    for j, lp in first.items():
        assert math.exp(lp) == pytest.approx(sum(p for o, p in probs.items() if o[0] == j))
    # and p(π) is the product of step probabilities computed from unnormalised scores
    for perm in perms[:6]:
        logp = 0.0
        for t in range(len(perm)):
            rest = [j for j in range(len(family)) if j not in perm[:t]]
            head_placed = any(family.items[j].rel == HEAD for j in perm[:t])
            prev = perm[t - 1] if t else None
            scores = {j: model._score(family, j, prev, head_placed) for j in rest}
            logp += scores[perm[t]] - math.log(sum(math.exp(s) for s in scores.values()))
        assert model.log_prob(family, perm) == pytest.approx(logp)


@pytest.mark.parametrize("seed", range(4))
def test_best_order_is_the_brute_force_argmax(seed):
    model = random_model(seed)
    for family in FAMILIES:
        brute = max(itertools.permutations(range(len(family))),
                    key=lambda p: model.log_prob(family, p))
        assert model.best(family) == list(brute)
        assert model._beam(family) == list(brute)  # a wide beam is exact on small families


def test_training_objective_and_gradient():
    design = order_mod._design(FAMILIES, min_count=1)
    model = random_model(3)
    nll, grad = order_mod._objective(model.theta, design, l2=0.5)
    readable = -sum(model.log_prob(f, range(len(f))) for f in FAMILIES)
    assert nll == pytest.approx(readable + 0.25 * model.theta @ model.theta)
    eps = 1e-6
    for k in range(0, len(model.theta), 3):
        step = np.zeros_like(model.theta)
        step[k] = eps
        up = order_mod._objective(model.theta + step, design, 0.5)[0]
        down = order_mod._objective(model.theta - step, design, 0.5)[0]
        assert grad[k] == pytest.approx((up - down) / (2 * eps), rel=1e-5, abs=1e-7)


def test_samples_follow_the_exact_distribution():
    model = random_model(1)
    family = FAMILIES[1]
    rng = np.random.default_rng(0)
    n = 6000
    counts = Counter(tuple(model.sample(family, rng)) for _ in range(n))
    for perm in itertools.permutations(range(3)):
        p = math.exp(model.log_prob(family, perm))
        assert counts[perm] / n == pytest.approx(p, abs=4 * math.sqrt(p * (1 - p) / n) + 1e-3)


def test_save_and_load(tmp_path):
    model = random_model()
    model.save(tmp_path / "order")
    back = OrderModel.load(tmp_path / "order")
    assert back.features == model.features
    assert np.allclose(back.theta, model.theta, atol=1e-6)
    stored = (tmp_path / "order.npz").read_bytes()  # deflated: a flipped bit there fails
    for at in range(40, len(stored) - 120, 3):  # the CRC or the inflating (zlib.error), or
        (tmp_path / "order.npz").write_bytes(stored[:at] + bytes([stored[at] ^ 1]) +
                                             stored[at + 1:])  # order.json's digest
        with pytest.raises(ModelError, match="not an ordering model|records another order.npz"):
            OrderModel.load(tmp_path / "order")
    (tmp_path / "order.npz").write_bytes(stored[:len(stored) // 2])  # a truncated file
    with pytest.raises(ModelError, match="not an ordering model"):
        OrderModel.load(tmp_path / "order")


@pytest.fixture(scope="module")
def es_dev():
    return list(treebank("es", "dev").sentences())[:120]


@pytest.fixture(scope="module")
def trained(es_dev):
    return train_order(f for s in es_dev for f in families(s))


def test_observed_orders_rank_above_random_orders_on_train(es_dev, trained):
    rng = np.random.default_rng(0)
    wins = total = 0
    for sent in es_dev:
        for fam in families(sent):
            if len(fam) < 3:
                continue
            observed = trained.log_prob(fam, range(len(fam)))
            for _ in range(3):
                wins += observed > trained.log_prob(fam, rng.permutation(len(fam)).tolist())
                total += 1
    assert total > 300
    assert wins / total > 0.9


def test_self_permutations_keep_subtrees_contiguous(es_dev, trained):
    rng = np.random.default_rng(1)
    changed = 0
    for sent in es_dev[:60]:
        new = permuted_order(sent, trained, rng)
        assert sorted(new) == list(range(1, len(sent.words) + 1))
        changed += new != sorted(new)
        where = {w: k for k, w in enumerate(new)}
        kids = surface_tree(sent)
        heads = [0] * len(sent.words)
        for h, ks in enumerate(kids):
            for k in ks:
                heads[k - 1] = h
        below = children(heads)
        for w in range(1, len(sent.words) + 1):
            span, stack = set(), [w]
            while stack:
                m = stack.pop()
                span.add(where[m])
                stack.extend(below[m])
            assert max(span) - min(span) + 1 == len(span)
    assert changed > 10


def test_a_missing_ordering_model_names_its_file(tmp_path, capsys):
    """A model folder without order.json (as fstpunct train writes), or --order naming a file
    that is not one: the message names the .json looked for, not a 'folder' that never was."""
    from fstpunct.cli.main import main

    (tmp_path / "model").mkdir()
    with pytest.raises(ModelError, match=r"order: not an ordering model \(no .*order\.json\)"):
        OrderModel.load(order_path(tmp_path / "model"))
    sample = Path(__file__).parents[1] / "data" / "sample.conllu"
    assert main(["rephrase", "--order", str(sample), str(sample)]) == 2
    assert f"{sample.with_suffix('')}: not an ordering model (no sample.json)" \
        in capsys.readouterr().err
