"""The Kneser–Ney trigram model gives exactly nltk.lm's estimates."""
from __future__ import annotations

import itertools
import math
from collections import Counter

import pytest
from nltk.lm import KneserNeyInterpolated, Vocabulary
from nltk.lm.preprocessing import padded_everygram_pipeline

from fstpunct.apps.rephrase.trigram import UNKNOWN, KneserNeyTrigram

TRAIN = [["a", "b", "c", "."], ["a", "c", ",", "b", "."], ["b", "a", ",", "c", "c", "."],
         ["c", "."], ["d", "a", "b", ",", "e", "."]]


@pytest.mark.parametrize("cutoff", [1, 2])
@pytest.mark.parametrize("discount", [0.1, 0.9])
def test_every_trigram_probability_matches_nltk(cutoff, discount):
    grams, padded = padded_everygram_pipeline(3, TRAIN)
    vocab = Vocabulary(padded, unk_cutoff=cutoff)
    lm = KneserNeyInterpolated(3, discount=discount, vocabulary=vocab)
    lm.fit(grams)
    counts = Counter(t for s in TRAIN for t in s)
    known = {t for t, c in counts.items() if c >= cutoff}
    mine = KneserNeyTrigram(TRAIN, discount, vocabulary=known)
    tokens = sorted({*mine.vocab, "unseen"})
    for u, v, w in itertools.product(tokens, repeat=3):
        if w != "<s>":
            assert mine.prob(w, [u, v]) == pytest.approx(lm.score(w, [u, v]), abs=1e-12)
    assert (UNKNOWN in mine.vocab) == (cutoff == 2)


def test_log_probs_cover_every_token_and_the_end():
    lm = KneserNeyTrigram(TRAIN)
    logs = lm.log_probs(["a", "b", "."])
    assert len(logs) == 4
    assert logs[0] == pytest.approx(math.log(lm.prob("a", ["<s>", "<s>"])))
    assert sum(lm.prob(w, ["a", "b"]) for w in lm.vocab if w != "<s>") == pytest.approx(1, abs=1e-2)


def test_left_contexts_count_distinct_predecessors():
    lm = KneserNeyTrigram(TRAIN)
    for w in ("a", ",", ".", "c"):
        before = {p[i - 1] for p in (["<s>", "<s>", *s] for s in TRAIN)
                  for i in range(2, len(p)) if p[i] == w}
        assert lm.left_contexts(w) == len(before)
    assert lm.left_contexts(",") == 3  # c, a and b precede a comma


def test_seen_after_names_the_pairs_of_the_text():
    lm = KneserNeyTrigram(TRAIN, vocabulary={"a", "b", "c", ",", "."})
    assert lm.seen_after("c", ",") and lm.seen_after("<s>", "a") and lm.seen_after("e", ".")
    assert not lm.seen_after("a", ".") and not lm.seen_after("zzz", ",")  # e, zzz: <UNK>
