"""Prior sampling and MBR for restoration against exact model probabilities and brute force."""
import itertools
import math
import re
from collections import Counter

import numpy as np
import pytest
from test_model import make_model

from fstpunct.apps.restoration.generative import ModelRestorer, check_sampling, split
from fstpunct.apps.restoration.mbr import insertions, sentence_mbr, slot_mbr, slot_risks
from fstpunct.apps.restoration.metrics import levenshtein
from fstpunct.apps.restoration.sample import Draws, PriorSampler, SlotDraws
from fstpunct.errors import InputError
from fstpunct.fst.channel import SPECIALS
from fstpunct.model.punct import Inference, Settings
from fstpunct.ud.slots import SlotSentence, to_slots
from fstpunct.ud.treebank import read_conllu

TRAIN = [
    SlotSentence(words=("a", "b", "c"), upos=("N", "V", "N"), heads=(2, 0, 2),
                 deprels=("a", "root", "b"), slots=((), (",",), ("(",), (")", ".")),
                 word_ids=(1, 2, 3), slot_ids=((), (1,), (2,), (3, 4))),
    SlotSentence(words=("a", "b"), upos=("N", "V"), heads=(2, 0), deprels=("a", "root"),
                 slots=(("(",), (")", ","), (".",)), word_ids=(1, 2),
                 slot_ids=((1,), (2, 3), (4,))),
]


def with_slots(sent: SlotSentence, slots) -> SlotSentence:
    return SlotSentence(sent.words, sent.upos, sent.heads, sent.deprels, tuple(slots),
                        sent.word_ids, tuple(tuple(range(len(x))) for x in slots))


@pytest.mark.parametrize("direction", ["ltr", "rtl"])
@pytest.mark.parametrize("backoff", [0.0, 0.3])
def test_samples_follow_the_model(direction, backoff):
    """Sampled x has the frequencies that the (brute-force tested) inside algorithm gives."""
    model = make_model(TRAIN, direction, seed=3)
    model.settings = Settings(backoff=backoff)
    sent = TRAIN[0]
    m = 40000
    draws = next(PriorSampler(model, m, seed=1, hidden=frozenset()).draws([sent]))
    seen = Counter(tuple(slot.strings[j] for slot, j in zip(draws.slots, js))
                   for js in zip(*(slot.of_sample for slot in draws.slots)))
    candidates = [x for x, _ in seen.most_common(12)]
    inference = Inference(model, model.prepare([with_slots(sent, x) for x in candidates]))
    total = 0.0
    for k, x in enumerate(candidates):
        p = math.exp(inference.log_prob(k))
        total += p
        assert seen[x] / m == pytest.approx(p, abs=5 * math.sqrt(p * (1 - p) / m) + 1e-4)
    assert total <= 1 + 1e-9


@pytest.mark.parametrize("direction", ["ltr", "rtl"])
def test_channel_draws_match_the_channel(direction):
    """The vectorised sliding window draws x with p(x | u)."""
    model = make_model(TRAIN, direction, seed=5)
    channel, sampler = model.channel, PriorSampler(model, 1)
    symbols = list(channel.symbols)
    m = 20000
    for u in [(), (",",), (",", "."), ("(", ",", ")", "."), ("∘", ",", ",", ".")]:
        ids = np.array([[symbols.index(t) for t in u]], dtype=np.int64).reshape(1, len(u))
        out = sampler._channel_draws(np.random.default_rng(2), ids, np.zeros(m, dtype=int))
        seen = Counter(tuple(symbols[t] for t in row if t >= 0) for row in out)
        for x, p in channel.distribution(u).items():
            assert seen[x] / m == pytest.approx(p, abs=5 * math.sqrt(p * (1 - p) / m) + 1e-4)


def toy_draws(rng: np.random.Generator, m: int = 30) -> Draws:
    """Random slot draws over a small alphabet."""
    pool = [(), (",",), (".",), (",", "."), ("(", ",")]
    slots = []
    for _ in range(3):
        k = rng.integers(1, len(pool) + 1)
        strings = tuple(pool[j] for j in rng.choice(len(pool), size=k, replace=False))
        of = rng.integers(0, k, size=m)
        of[:k] = np.arange(k)  # every string drawn at least once
        slots.append(SlotDraws(strings, tuple((1,) * len(s) for s in strings), of))
    return Draws(tuple(slots))


@pytest.mark.parametrize("seed", range(20))
def test_mbr_against_brute_force(seed):
    draws = toy_draws(np.random.default_rng(seed))
    samples = list(zip(*(slot.of_sample for slot in draws.slots)))

    def risk(choice):
        return sum(levenshtein(slot.strings[j], slot.strings[js[i]])
                   for js in samples for i, (slot, j) in enumerate(zip(draws.slots, choice))
                   ) / len(samples)

    best_sample = min(risk(js) for js in samples)
    assert risk(sentence_mbr(draws)) == pytest.approx(best_sample)
    combos = itertools.product(*(range(len(slot.strings)) for slot in draws.slots))
    best_combo = min(risk(c) for c in combos)
    assert risk(slot_mbr(draws)) == pytest.approx(best_combo)
    assert best_combo <= best_sample + 1e-12
    for slot in draws.slots:
        r = slot_risks(slot)
        assert r == pytest.approx([risk_one(slot, j) for j in range(len(slot.strings))])


def risk_one(slot: SlotDraws, j: int) -> float:
    return float(np.mean([levenshtein(slot.strings[j], slot.strings[k]) for k in slot.of_sample]))


def test_insertions_keep_heads_of_the_producing_node():
    model = make_model(TRAIN, "rtl", seed=3)
    sent = TRAIN[0]
    draws = next(PriorSampler(model, 200, seed=0).draws([sent]))
    for slot in draws.slots:
        for string, heads in zip(slot.strings, slot.heads):
            assert len(string) == len(heads)
            assert all(1 <= h <= sent.n for h in heads)
    ins = insertions(draws, slot_mbr(draws))
    assert len(ins) == sent.n + 1


def test_a_doubled_mark_comes_from_the_later_puncteme():
    """For a window ``a a`` the channel keeps b (LEFT: a absorbed), so the surviving mark is
    the later puncteme's, e.g. a sentence's period rather than its last constituent's."""
    model = make_model(TRAIN, "rtl", seed=3)
    mark = next(t for t in model.channel.symbols if t not in SPECIALS)
    sampler = PriorSampler(model, 10)
    assert sampler._visible((mark,), [mark, mark], [3, 1]) == ((mark,), (1,))
    assert sampler._visible((mark, mark), [mark, mark], [3, 1]) == ((mark, mark), (3, 1))


@pytest.mark.parametrize("samples", [0, -3])
def test_a_sampler_refuses_fewer_than_one_sample(samples):
    """The sampler's own check says what the CLI and check_sampling say, in one line."""
    model = make_model(TRAIN, "rtl", seed=3)
    with pytest.raises(InputError, match=rf"^samples must be at least 1, not {samples}$"):
        PriorSampler(model, samples)


@pytest.mark.parametrize("seed, words", [(2 ** 32, "below 2**32"), (2 ** 33 + 5, "below 2**32"),
                                         (-1, "at least 0")])
def test_a_sampler_seed_is_one_32_bit_word(seed, words):
    """Sentence k draws from the stream (seed, first + k[, tree]): a seed of two words would run
    into another seed's stream (numpy reads (2**32 + 5, 0) as (5, 1), sentence 1 of seed 5), so
    the sampler refuses it, and check_sampling (restore's and correct's, before any sentence is
    read) too, by the seed's name."""
    assert np.random.default_rng([2 ** 32 + 5, 0]).random() == np.random.default_rng(
        [5, 1]).random()
    model = make_model(TRAIN, "rtl", seed=3)
    refused = rf"^seed must be {re.escape(words)}, not {seed}$"
    with pytest.raises(InputError, match=refused):
        PriorSampler(model, 3, seed=seed)
    with pytest.raises(InputError, match=refused):
        check_sampling(3, {}, None, seed)
    assert check_sampling(3, {}, None, 2 ** 32 - 1) == ("sentence", 2 ** 32 - 1)
    PriorSampler(model, 3, seed=2 ** 32 - 1)  # the last one-word seed


def test_draws_do_not_depend_on_batching():
    model = make_model(TRAIN, "ltr", seed=4)
    sampler = PriorSampler(model, 50, seed=9)
    together = list(sampler.draws(TRAIN))
    alone = list(sampler.draws(TRAIN[1:], first=1))
    for a, b in zip(together[1].slots, alone[0].slots):
        assert a.strings == b.strings
        assert np.array_equal(a.of_sample, b.of_sample)


def samples_of(draws: Draws) -> list[tuple[tuple[str, ...], ...]]:
    """Every sample's x, in order."""
    return [tuple(slot.strings[j] for slot, j in zip(draws.slots, js))
            for js in zip(*(slot.of_sample for slot in draws.slots))]


def test_pooled_draws_are_the_parts_concatenated():
    """Pooling keeps every sample (parts in order) and the first part's heads of a string."""
    model = make_model(TRAIN, "rtl", seed=3)
    other = SlotSentence(TRAIN[0].words, TRAIN[0].upos, (0, 1, 2), TRAIN[0].deprels,
                         TRAIN[0].slots, TRAIN[0].word_ids, TRAIN[0].slot_ids)
    parts = [next(PriorSampler(model, 300, seed=s).draws([t]))
             for s, t in ((0, TRAIN[0]), (1, other))]
    pooled = Draws.pool(parts)
    assert pooled.size == 600
    assert samples_of(pooled) == samples_of(parts[0]) + samples_of(parts[1])
    for k, slot in enumerate(pooled.slots):
        for string, heads in zip(slot.strings, slot.heads):
            first = next(p.slots[k] for p in parts if string in p.slots[k].strings)
            assert heads == first.heads[first.strings.index(string)]
    assert samples_of(Draws.pool(parts[:1])) == samples_of(parts[0])


def test_restoring_over_several_trees_pools_their_samples():
    """With alternative trees, the samples are split among the trees (streams (seed, k, t)) and
    pooled before MBR; with none, the restorer draws what PriorSampler draws."""
    model = make_model(TRAIN, "ltr", seed=4)
    text = ("1\ta\ta\tN\t_\t_\t2\ta\t_\t_\n2\tb\tb\tV\t_\t_\t0\troot\t_\t_\n"
            "3\tc\tc\tN\t_\t_\t2\tb\t_\t_\n\n")
    sent = next(read_conllu(text.splitlines(keepends=True)))
    flat = next(read_conllu(text.replace("\t2\ta\t", "\t3\ta\t").splitlines(keepends=True)))
    assert split(1000, 3) == [334, 333, 333] and split(7, 7) == [1] * 7
    expected = Draws.pool([next(PriorSampler(model, 50, seed=2, stream=t or None)
                                .draws([to_slots(tree)])) for t, tree in enumerate([sent, flat])])
    restorer = ModelRestorer(model, 100, "slot", seed=2)
    assert restorer.restore(sent, [flat]) == insertions(expected, slot_mbr(expected))
    alone = next(PriorSampler(model, 100, seed=2).draws([to_slots(sent)], first=1))
    assert restorer.restore(sent) == insertions(alone, slot_mbr(alone))
