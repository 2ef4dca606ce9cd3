"""Exact restoration: slot distributions against brute force and the sampler, the decoders
against enumeration."""
import itertools
import math
from collections import Counter

import numpy as np
import pytest
from test_model import make_model
from test_restore_sampling import TRAIN

from fstpunct.apps.restoration.exact import (
    ExactPrior,
    ExactRestorer,
    SlotDistribution,
    balanced,
    balanced_decoder,
    slot_decoder,
    top_entries_reference,
)
from fstpunct.apps.restoration.metrics import levenshtein
from fstpunct.apps.restoration.pipeline import restored
from fstpunct.apps.restoration.sample import HIDDEN, PriorSampler, Visible
from fstpunct.fst.lattice import LatticeBuilder
from fstpunct.model.attach import AttachData
from fstpunct.model.punct import Settings
from fstpunct.ud.slots import BOUNDARY, SlotSentence, slot_members, underlying_slot
from fstpunct.ud.treebank import read_conllu

PAIRS = (("(", ")"), ("“", "”"))
# a three-word tree with a dependent on each side, and a chain (nested spans)
TREES = [TRAIN[0],
         SlotSentence(words=("a", "b", "c"), upos=("N", "V", "N"), heads=(0, 1, 2),
                      deprels=("root", "a", "b"), slots=((), (), (), ()),
                      word_ids=(1, 2, 3), slot_ids=((), (), (), ()))]


def brute_force(model, sent: SlotSentence, hidden=HIDDEN) -> list[Counter]:
    """Per slot, p(visible string) by enumerating every T′ (backoff 0) and channel output."""
    data = AttachData.build(model.attach, [sent])
    probs = model.attach_probabilities(data)
    visible = Visible(model.channel, hidden)
    options = [[(model.vocab.pair_strings(data.pairs[r]), probs[r])
                for r in range(data.node_offsets[t], data.node_offsets[t + 1])]
               for t in range(data.n_nodes)]
    out = [Counter() for _ in range(sent.n + 1)]
    for choice in itertools.product(*options):
        p = math.prod(w for _, w in choice)
        for i, members in enumerate(slot_members(sent)):
            u, origin = underlying_slot(i, sent.n, ((node, choice[node][0][side])
                                                    for node, side in members))
            for x, q in model.channel.distribution(u).items():
                out[i][visible(x, u, origin)[0]] += p * q
    return out


@pytest.mark.parametrize("direction", ["ltr", "rtl"])
@pytest.mark.parametrize("seed", [3, 8])
@pytest.mark.parametrize("tree", TREES)
def test_exact_slot_distributions_equal_brute_force(direction, seed, tree):
    model = make_model(TRAIN, direction, seed=seed)
    prior = ExactPrior(model, floor=1e-12, prune=1e-15, coarse=1e-15)
    marginals = prior.marginals([tree])[0]
    expected = brute_force(model, tree)
    estimated = prior.sentence([(tree, marginals)])
    for i, (slot, want) in enumerate(zip(estimated, expected)):
        assert sum(want.values()) == pytest.approx(1.0)
        members = slot_members(tree)[i]
        for y, p in want.items():
            assert prior.probability(y, i, members, marginals) == pytest.approx(p, abs=1e-12)
        # the estimates are lower bounds; with this beam they reach everything
        for y, p in zip(slot.strings, slot.probs):
            assert p <= want[y] + 1e-12
        assert slot.rest == pytest.approx(0.0, abs=1e-9)
    exact = prior.exact([(tree, marginals)], estimated)
    for slot, want in zip(exact, expected):
        assert list(slot.probs) == pytest.approx([want[y] for y in slot.strings], abs=1e-12)


@pytest.mark.parametrize("direction", ["ltr", "rtl"])
def test_hidden_symbols_are_summed_out_of_the_lattice(direction):
    """A lattice with hidden symbols gives Σ p(x | u) over the x that show y."""
    model = make_model(TRAIN, direction, seed=6)
    channel = model.channel
    hidden = frozenset({BOUNDARY, "<abbv>", "<unk>"})
    builder = LatticeBuilder(channel, hidden)
    weights = builder.arc_weights()
    visible = Visible(channel, hidden)
    for u in [("∘",), ("∘", ",", "<abbv>"), ("<abbv>", ".", ","), (",", "<unk>", ")", "."),
              ("(", "<abbv>")]:
        shown = Counter()
        for x, q in channel.distribution(u).items():
            shown[visible(x, u, range(len(u)))[0]] += q
        ids = [channel.index(t) for t in u]
        for y, p in shown.items():
            lat = builder.lattice(y, weights)
            assert lat.start @ lat.matrix(ids) @ lat.final == pytest.approx(p, abs=1e-12)


@pytest.mark.parametrize("direction", ["ltr", "rtl"])
def test_exact_probabilities_match_sampled_frequencies_with_backoff(direction):
    """With the backoff (infinitely many punctemes) there is no brute force: the exact slot
    probabilities must match the sampler's frequencies."""
    model = make_model(TRAIN, direction, seed=3)
    model.settings = Settings(backoff=0.3)
    tree, m = TREES[0], 40000
    draws = next(PriorSampler(model, m, seed=1).draws([tree]))
    prior = ExactPrior(model)
    marginals = prior.marginals([tree])[0]
    for i, slot in enumerate(draws.slots):
        members = slot_members(tree)[i]
        for y, f in zip(slot.strings, slot.frequencies()):
            p = prior.probability(y, i, members, marginals)
            assert f == pytest.approx(p, abs=5 * math.sqrt(p * (1 - p) / m) + 1e-4)


@pytest.mark.parametrize("direction", ["ltr", "rtl"])
def test_marginals_rows_equal_the_sum_over_each_nodes_pairs(direction):
    """Each sentence's rows (made when read) and ε's column, bitwise, against adding every
    candidate pair's probability to its side's puncteme in row order, several sentences
    featurised together."""
    model = make_model(TRAIN, direction, seed=8)
    model.settings = Settings(backoff=0.3)
    prior = ExactPrior(model)
    trees = [*TREES, TREES[0]]
    data = AttachData.build(model.attach, trees)
    probs = (1.0 - model.settings.backoff) * model.attach_probabilities(data)
    size = len(model.vocab.punctemes) + 1
    for k, marginals in enumerate(prior.marginals(trees)):
        nodes = range(data.sentence_offsets[k], data.sentence_offsets[k + 1])
        want = np.zeros((2 * len(nodes), size))
        for t, node in enumerate(nodes):
            for r in range(data.node_offsets[node], data.node_offsets[node + 1]):
                for side, l in enumerate(model.vocab.pairs[data.pairs[r]]):
                    want[2 * t + side, l] += probs[r]
        want[:, -1] = model.settings.backoff * (1.0 - model.settings.continuation)
        assert len(marginals) == 2 * len(nodes)
        assert np.array_equal(marginals.empty, want[:, 0])
        dense = np.array([marginals.row(r) for r in range(len(marginals))])
        assert np.array_equal(dense.reshape(len(marginals), marginals.size), want)
        assert marginals.row(1) is marginals.row(1)  # made once
        for r in range(len(marginals)):
            for floor in (0.0, 1e-3, 0.1):
                assert marginals.top(r, prior._backoff, floor) == \
                    top_entries_reference(want[r], prior._backoff, floor)


def random_slots(rng: np.random.Generator, n: int = 4) -> list[SlotDistribution]:
    pool = [(), (",",), ("(",), (")",), (",", ")"), ("“",), ("”",), (".", "”")]
    slots = []
    for _ in range(n):
        k = int(rng.integers(1, 4))
        strings = tuple(pool[j] for j in rng.choice(len(pool), size=k, replace=False))
        probs = rng.dirichlet(np.ones(k + 1))[:k]
        slots.append(SlotDistribution(strings, tuple((1,) * len(y) for y in strings), probs))
    return slots


@pytest.mark.parametrize("seed", range(30))
def test_decoders_against_enumeration(seed):
    slots = random_slots(np.random.default_rng(seed))
    for slot in slots:
        want = [sum(p * levenshtein(y, z) for z, p in zip(slot.strings, slot.probs))
                for y in slot.strings]
        assert list(slot.risks) == pytest.approx(want)
    combos = list(itertools.product(*(range(len(s.strings)) for s in slots)))

    def risk(c):
        return sum(s.risks[j] for s, j in zip(slots, c))

    assert risk(slot_decoder(slots)) == pytest.approx(min(map(risk, combos)))
    good = [c for c in combos if balanced(slots, c, PAIRS)]
    choice = balanced_decoder(slots, PAIRS)
    if good:
        assert balanced(slots, choice, PAIRS)
        assert risk(choice) == pytest.approx(min(map(risk, good)))
    else:
        assert choice == slot_decoder(slots)


def test_balance():
    slot = SlotDistribution(((), ("(",), (")",), ("“",), ("”", ")")), ((),) * 5, np.ones(5) / 5)
    assert balanced([slot, slot], [1, 2], PAIRS)
    assert balanced([slot, slot, slot], [1, 3, 4], PAIRS)
    assert not balanced([slot, slot], [2, 1], PAIRS)
    assert not balanced([slot, slot], [1, 0], PAIRS)
    assert not balanced([slot, slot, slot], [3, 1, 4], PAIRS)  # crossing


@pytest.mark.parametrize("seed", range(30))
def test_empty_string_is_best_when_it_has_half_the_mass(seed):
    """R(y) ≥ R(ε) + |y| (2 p(ε) − 1): why ExactPrior (quick) gives such slots ε alone."""
    rng = np.random.default_rng(seed)
    strings = ((), (",",), (",", ","), (".",), ("(", ","))
    probs = rng.dirichlet(np.ones(5))
    probs[0] = max(probs[0], 0.5 + rng.random() * 0.5)
    probs[1:] *= (1 - probs[0]) / probs[1:].sum()
    slot = SlotDistribution(strings, ((),) * 5, probs)
    assert slot.risks[0] == pytest.approx(slot.risks.min())
    assert slot.certified(0)


TEXT = ("1\ta\ta\tN\t_\t_\t2\ta\t_\t_\n2\tb\tb\tV\t_\t_\t0\troot\t_\t_\n"
        "3\tc\tc\tN\t_\t_\t2\tb\t_\t_\n\n")


@pytest.mark.parametrize("decoder", ["slot", "balanced"])
def test_restorer_is_deterministic_and_batching_changes_nothing(decoder):
    model = make_model(TRAIN, "rtl", seed=3)
    model.settings = Settings(backoff=0.01)
    sents = list(read_conllu((TEXT + TEXT.replace("\t2\ta\t", "\t3\ta\t")) .splitlines(True)))
    restorer = ExactRestorer(model, decoder)
    alone = [restorer.restore(s) for s in sents]
    assert restorer.restore_many(sents) == alone
    assert [restorer.restore(s) for s in sents] == alone
    for ins, sent in zip(alone, sents):
        assert len(ins) == len(sent.words) + 1
        assert all(1 <= head <= len(sent.words) for slot in ins for _, head in slot)
    one = [s.text() for s in restored(sents, restorer, chunk=1)]
    assert [s.text() for s in restored(sents, restorer, chunk=256)] == one
    # two trees: the mixture of their distributions
    prior = restorer.prior
    mixed = restorer.restore(sents[0], [sents[1]])
    assert len(mixed) == 4
    slots = list(prior.distributions([[TREES[0]], [TREES[0]]]))[0]
    single = list(prior.distributions([[TREES[0]]]))[0]
    for a, b in zip(slots, single):
        assert a.strings == b.strings and list(a.probs) == pytest.approx(list(b.probs))


@pytest.mark.parametrize("direction", ["ltr", "rtl"])
def test_certain_restorer_decides_on_exact_probabilities_where_estimates_do_not_certify(
        direction):
    model = make_model(TRAIN, direction, seed=5)
    model.settings = Settings(backoff=0.05)
    restorer = ExactRestorer(model, "slot", prune=0.05, exact=True)  # coarse estimates
    prior = restorer.prior
    uncertain = 0
    for tree in TREES:
        given = [(tree, prior.marginals([tree])[0])]
        slots, choice = restorer.decode(given)
        estimated = prior.sentence(given, quick=True)
        for i, (slot, est, j) in enumerate(zip(slots, estimated, choice)):
            if len(est.strings) > 1 and not est.certified(int(np.argmin(est.risks))):
                exact = prior.exact_slot(given, i, est)
                assert list(slot.probs) == pytest.approx(list(exact.probs))
                uncertain += 1
            assert j == int(np.argmin(slot.risks))
    assert uncertain  # the coarse estimates leave some choice open


@pytest.mark.parametrize("direction", ["ltr", "rtl"])
@pytest.mark.parametrize("quick", [False, True])
def test_every_slot_keeps_the_empty_string_when_every_estimate_is_below_the_floor(direction,
                                                                                  quick):
    """A peaked prior (ε improbable, so every path to it pruned) and a floor above every
    estimate: ε is still a candidate of every slot, and the decoders choose in every slot."""
    model = make_model(TRAIN, direction, seed=3)
    model.theta = 40.0 * model.theta
    prior = ExactPrior(model, floor=2.0, prune=0.2, coarse=0.2)
    for tree in TREES:
        marginals = prior.marginals([tree])[0]
        slots = prior.sentence([(tree, marginals)], quick=quick)
        assert len(slots) == tree.n + 1
        for slot in slots:
            assert slot.strings == ((),) and slot.heads == ((),)
        assert slot_decoder(slots) == [0] * len(slots)
        assert balanced_decoder(slots, PAIRS) == [0] * len(slots)
