"""The whole model against brute force: every T′ and every channel edit sequence, enumerated.

The enumerator below re-implements the sliding window from DESIGN §3 on its own (it shares no
code with fstpunct.fst.channel), so these tests check the lattice construction, the backoff-free
inside/outside pass, the expected edit counts and Viterbi end to end, in both directions.
"""
import itertools
import math

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from fstpunct.dp.treedp import ZeroWeightError
from fstpunct.fst.channel import EDITS, Channel
from fstpunct.model.attach import AttachModel
from fstpunct.model.punct import Inference, PunctModel, Settings
from fstpunct.model.train import em
from fstpunct.model.vocab import Vocab
from fstpunct.ud.slots import BOUNDARY, SlotSentence
from fstpunct.ud.tree import is_projective, spans

KEEP, LEFT, RIGHT, SWAP = (EDITS.index(e) for e in EDITS)
MARKS = (",", ".", "(", ")")
SYMMETRIC = [("(", ")")]


def edit_paths(u, direction):
    """Every (output, [(a, b, edit)]) of the sliding window over u (a left of b in u)."""
    if not u:
        yield (), []
        return
    scan = list(u) if direction == "ltr" else list(u)[::-1]

    def go(pending, rest, out, used):
        if not rest:
            final = out + [pending]
            yield tuple(final if direction == "ltr" else final[::-1]), used
            return
        t, rest = rest[0], rest[1:]
        a, b = (pending, t) if direction == "ltr" else (t, pending)
        for e in range(4):
            if direction == "ltr":
                emit, nxt = {KEEP: ([a], b), LEFT: ([], b), RIGHT: ([], a), SWAP: ([b], a)}[e]
            else:  # the window moves leftwards; output is built reversed
                emit, nxt = {KEEP: ([b], a), LEFT: ([], b), RIGHT: ([], a), SWAP: ([a], b)}[e]
            yield from go(nxt, rest, out + emit, used + [(a, b, e)])

    yield from go(scan[0], scan[1:], [], [])


def slot_strings(sent, pairs):
    """uᵢ for every slot given a (l, r) per node (DESIGN §3)."""
    n = sent.n
    if n == 0:  # one pseudo node spanning slot 0..0
        return [(BOUNDARY, *pairs[0][0], *pairs[0][1])]
    u = [[] for _ in range(n + 1)]
    u[0].append(BOUNDARY)
    sp = spans(sent.heads)

    def depth(w):
        d = 0
        while sent.heads[w - 1]:
            w, d = sent.heads[w - 1], d + 1
        return d

    ends = sorted(range(1, n + 1), key=lambda w: -depth(w))  # innermost first
    for i in range(n + 1):
        for w in ends:
            if sp[w - 1][1] == i:
                u[i].extend(pairs[w - 1][1])
        for w in sorted(range(1, n + 1), key=depth):  # outermost first
            if sp[w - 1][0] == i:
                u[i].extend(pairs[w - 1][0])
    return [tuple(x) for x in u]


def brute_force(inference, s, direction, phi, index):
    """Z, per-node pair posteriors, expected edit counts and the best (T′, paths) score."""
    data = inference.batch.data
    sent, surface = inference.batch.sentences[s], inference.batch.surfaces[s]
    nodes = list(inference.batch.nodes(s))
    choices = [range(data.node_offsets[k], data.node_offsets[k + 1]) for k in nodes]
    vocab = inference.model.vocab
    z, best = 0.0, 0.0
    post = {}
    counts = np.zeros_like(phi)
    for rows in itertools.product(*choices):
        pairs = [vocab.pair_strings(data.pairs[r]) for r in rows]
        prior = math.prod(inference.probs[r] * inference._tilt[data.pairs[r]] for r in rows)
        slot_total, slot_best, slot_counts = 1.0, 1.0, []
        for u, x in zip(slot_strings(sent, pairs), surface):
            tot, top, cnt = 0.0, 0.0, np.zeros_like(phi)
            for out, used in edit_paths(u, direction):
                if out != x:
                    continue
                p = math.prod(phi[index[a], index[b], e] for a, b, e in used)
                tot += p
                top = max(top, p)
                for a, b, e in used:
                    cnt[index[a], index[b], e] += p
            slot_total *= tot
            slot_best *= top
            slot_counts.append((tot, cnt))
        weight = prior * slot_total
        z += weight
        best = max(best, prior * slot_best)
        for r in rows:
            post[r] = post.get(r, 0.0) + weight
        for tot, cnt in slot_counts:
            if tot > 0:
                counts += weight * cnt / tot
    return z, post, counts, best


@st.composite
def corpora(draw):
    sentences = []
    for _ in range(draw(st.integers(1, 3))):
        n = draw(st.integers(0, 3))
        heads = [0] * n
        if n:
            root = draw(st.integers(1, n))
            order = [root]
            for d in [w for w in range(1, n + 1) if w != root]:
                heads[d - 1] = draw(st.sampled_from(order))
                order.append(d)
        slots = tuple(tuple(draw(st.lists(st.sampled_from(MARKS), max_size=2)))
                      for _ in range(n + 1))
        sentences.append(SlotSentence(
            words=tuple(f"w{i}" for i in range(n)), upos=tuple(draw(st.sampled_from(["N", "V"]))
                                                               for _ in range(n)),
            heads=tuple(heads), deprels=tuple(draw(st.sampled_from(["a", "b"])) for _ in range(n)),
            slots=slots, word_ids=tuple(range(1, n + 1)),
            slot_ids=tuple(tuple(range(len(x))) for x in slots)))
    return [s for s in sentences if is_projective(s.heads)]


def make_model(sentences, direction, seed, backoff=0.0):
    vocab = Vocab.build(sentences, min_count=1)
    attach = AttachModel.build(vocab, SYMMETRIC, sentences)
    rng = np.random.default_rng(seed)
    theta = rng.normal(size=attach.init_theta().shape)
    channel = Channel.random(vocab.tokens, direction, rng)
    return PunctModel(attach, theta, channel, Settings(backoff=backoff))


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(corpora(), st.sampled_from(["ltr", "rtl"]), st.integers(0, 10**6),
       st.sampled_from([0.0, 1.5, math.inf]))  # ∞: unmatched pairs excluded (rephrase)
def test_inference_equals_brute_force(sentences, direction, seed, tilt):
    if not sentences:
        return
    model = make_model(sentences, direction, seed)
    inference = Inference(model, model.prepare(sentences), tilt=tilt)
    index = {t: k for k, t in enumerate(model.channel.symbols)}
    for s in range(len(sentences)):
        z, post, counts, best = brute_force(inference, s, direction, model.channel.phi, index)
        if z == 0:
            with pytest.raises(ZeroWeightError):
                inference.log_prob(s)
            continue
        assert inference.log_prob(s) == pytest.approx(math.log(z), rel=1e-9, abs=1e-9)
        e = inference.expectations(s)
        got = dict(zip(e.rows.tolist(), e.posterior.tolist()))
        for r, w in post.items():
            assert got.get(r, 0.0) == pytest.approx(w / z, abs=1e-9)
        edits = inference.builder.edit_totals(e.arc_counts)
        assert edits == pytest.approx(counts / z, abs=1e-8)
        _, score = inference.viterbi(s)
        assert score == pytest.approx(math.log(best), rel=1e-9, abs=1e-9)


def test_expected_edit_counts_are_derivatives_of_log_likelihood():
    """E[count of arc a] = w_a ∂log Z/∂w_a, checked by finite differences on each arc weight."""
    sents = [SlotSentence(("a", "b", "c"), ("N", "V", "N"), (2, 0, 2), ("x", "root", "y"),
                          ((), (",",), (".", ")"), (".",)), (1, 2, 3),
                          ((), (0,), (0, 1), (0,)))]
    for direction in ("ltr", "rtl"):
        model = make_model(sents, direction, seed=3, backoff=0.2)
        batch = model.prepare(sents)
        base = Inference(model, batch)
        counts = base.expectations(0).arc_counts
        checked = 0
        for arc in np.flatnonzero(counts > 1e-3)[:12]:
            bumped = Inference(model, batch)
            h = 1e-6
            bumped.weights = base.weights.copy()
            bumped.weights[arc] *= math.exp(h)
            numeric = (bumped.log_prob(0) - base.log_prob(0)) / h
            assert numeric == pytest.approx(counts[arc], rel=1e-4, abs=1e-6)
            checked += 1
        assert checked >= 5


def test_expected_edit_counts_with_long_punctemes():
    """Punctemes of three and more tokens: counts at their middle tokens, by finite
    differences as above."""
    sents = [SlotSentence(("a", "b"), ("N", "V"), (2, 0), ("x", "root"),
                          ((), (",", "(", ","), (".", ")", ",", ".")), (1, 2),
                          ((), (0, 1, 2), (0, 1, 2, 3)))]
    model = make_model(sents, "rtl", seed=5, backoff=0.1)
    assert max(len(p) for p in model.vocab.punctemes) == 4
    batch = model.prepare(sents)
    base = Inference(model, batch)
    counts = base.expectations(0).arc_counts
    for arc in np.flatnonzero(counts > 1e-3)[:12]:
        bumped = Inference(model, batch)
        bumped.weights = base.weights.copy()
        bumped.weights[arc] *= math.exp(1e-6)
        numeric = (bumped.log_prob(0) - base.log_prob(0)) / 1e-6
        assert numeric == pytest.approx(counts[arc], rel=1e-4, abs=1e-6)


def test_backoff_gives_every_sentence_probability():
    train = [SlotSentence(("a", "b"), ("N", "V"), (2, 0), ("x", "root"), ((), (), (".",)),
                          (1, 2), ((), (), (0,)))]
    strange = SlotSentence(("a", "b"), ("N", "V"), (2, 0), ("zz", "root"),
                           ((",", ","), ("(", ";"), (".", "!")), (1, 2),
                           ((0, 1), (0, 1), (0, 1)))
    model = make_model(train, "rtl", seed=1, backoff=1e-3)
    inference = Inference(model, model.prepare([strange, train[0]]))
    assert np.isfinite(inference.log_prob(0)) and inference.log_prob(0) < inference.log_prob(1)


@pytest.mark.parametrize("token_cost, attach_iterations", [(0.0, 50), (1.0, 50), (1.0, 2)])
def test_em_objective_never_decreases(token_cost, attach_iterations):
    """Also with M-steps cut short (generalised EM: each only needs to improve θ)."""
    rng = np.random.default_rng(0)
    sents = []
    for _ in range(12):
        n = int(rng.integers(2, 6))
        heads = [0] + [int(rng.integers(1, d + 1)) for d in range(1, n)]
        slots = [()] * (n + 1)
        slots[-1] = (".",)
        if n > 2:
            slots[1] = (",",)
        sents.append(SlotSentence(tuple("w" * n), tuple("NV"[d % 2] for d in range(n)),
                                  tuple(heads), tuple("ab"[d % 2] if d else "root"
                                                      for d in range(n)),
                                  tuple(slots), tuple(range(1, n + 1)),
                                  tuple(tuple(range(len(x))) for x in slots)))
    model = make_model(sents, "rtl", seed=2, backoff=1e-3)
    model.settings = Settings(backoff=1e-3, token_cost=token_cost)
    _, history = em(model, model.prepare(sents), 4, attach_iterations=attach_iterations)
    diffs = np.diff(history.objective)
    assert np.all(diffs > -1e-6), history.objective
